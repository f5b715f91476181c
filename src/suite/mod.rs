//! Screenshot suites (SPEC §8 "Suites"): a TOML file of named views of one blueprint, each
//! rendered, compared with its reference under [`crate::compare`], and reported — `NAME.png`,
//! `NAME.diff.png`, `report.json` and `report.html` — with `--bless` the only way a reference is
//! ever written.
//!
//! [`file`] reads and checks the file ([`Suite::load`]); [`run`] renders and judges a suite
//! against any [`Renderer`] (the app's headless renderer in `isla suite`, a fake one in the
//! Bevy-free tests) and blesses references, from a render or from an earlier run's output;
//! [`report`] writes what a run found (JSON, HTML, JUnit, GitHub Actions); [`shard`] splits a
//! suite across CI jobs and merges their outputs. A bad file is refused before anything renders
//! or is written.

pub mod file;
pub mod portability;
pub mod report;
pub mod run;
pub mod shard;

pub use crate::renderer::RendererInfo;
pub use file::{
    DEFAULT_HEIGHT, DEFAULT_WIDTH, MAX_SIDE, MAX_SUITE_BYTES, Pose, Suite, SuiteError, SuiteView, ToleranceOverlay,
    pattern_matches, relative_path,
};
pub use report::{Report, Status, ViewResult};
pub use run::{BlessMode, Renderer, RunOptions, bless_from, run};
