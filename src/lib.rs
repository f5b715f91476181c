//! Isla: a Bevy client that loads island blueprints and flies over them.
//!
//! The data flows one way (see `docs/ARCHITECTURE.md`):
//! [`forge`] → blueprint file → [`blueprint`] → [`world`] chunk data → [`mesh`] buffers →
//! [`app`] entities. Every arrow but the last is a pure function of its inputs.

#[cfg(feature = "app")]
pub mod app;
pub mod blueprint;
pub mod cliffs;
pub mod compare;
pub mod diff;
pub mod film;
pub mod forge;
pub mod io;
pub mod mesh;
pub mod raster;
pub mod renderer;
pub mod suite;
pub mod view;
pub mod views;
pub mod world;

/// Whether the test-only planted defect `name` is switched on (`ISLA_TEST_PLANT=name[,name…]`).
/// The screenshot tests use it to show that a comparison fails on a real change of the renderer
/// (`water-hue=DEG`: the water ramp's hue turned DEG degrees, 10 without a value; `no-shadows`:
/// the sun casts none). It is not a user setting and is documented only in SPEC §8.
pub fn planted(name: &str) -> bool {
    planted_value(name).is_some()
}

/// The value of a planted defect written `name=VALUE` (an empty string for a bare `name`).
pub fn planted_value(name: &str) -> Option<String> {
    let v = std::env::var("ISLA_TEST_PLANT").ok()?;
    v.split(',').map(str::trim).find_map(|p| match p.split_once('=') {
        Some((n, value)) if n == name => Some(value.to_string()),
        None if p == name => Some(String::new()),
        _ => None,
    })
}

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
