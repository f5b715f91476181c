//! The Bevy-free tests, one binary: the blueprint format (with its section-by-section
//! corruption and the reader's heap bound, measured by a per-thread counting allocator that is
//! this binary's global allocator), the world server's rules, the forge, the cliff generator, and
//! view strings, suite files and the screenshot metric. They build and pass with
//! `cargo test --no-default-features` (no Bevy crate is compiled).

mod cliffs;
mod corruption;
mod dials;
mod film;
mod forge;
mod format;
mod holes;
mod joins;
mod lod_drawn;
mod probe;
mod reader_bounds;
mod renderers;
mod rules;
mod suite;
mod suite_ci;
mod text_inputs;
mod world;
