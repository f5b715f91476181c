//! Isla: a Bevy client that loads island blueprints and flies over them.
//!
//! The data flows one way (see `docs/ARCHITECTURE.md`):
//! [`forge`] → blueprint file → [`blueprint`] → [`world`] chunk data → [`mesh`] buffers →
//! [`app`] entities. Every arrow but the last is a pure function of its inputs.

#[cfg(feature = "app")]
pub mod app;
pub mod blueprint;
pub mod cliffs;
pub mod forge;
pub mod io;
pub mod mesh;
pub mod raster;
pub mod world;

/// The island the app opens when given no blueprint, relative to the repository root.
pub const DEFAULT_BLUEPRINT: &str = "blueprints/default.dat";

/// Resolve a blueprint path: as given if it exists, else relative to the repository root (so
/// `cargo run` works from any folder).
pub fn resolve_blueprint_path(p: &std::path::Path) -> std::path::PathBuf {
    if p.exists() || p.is_absolute() {
        return p.to_path_buf();
    }
    let alt = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p);
    if alt.exists() { alt } else { p.to_path_buf() }
}
