//! The Bevy-free tests, one binary: the blueprint format, the world server's rules, the forge,
//! the cliff generator, and view strings, suite files and the screenshot metric. They build and
//! pass with `cargo test --no-default-features` (no Bevy crate is compiled).

mod cliffs;
mod forge;
mod format;
mod rules;
mod suite;
mod world;
