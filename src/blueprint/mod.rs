//! The blueprint wire format, version 2 (SPEC §1, `docs/BLUEPRINT_FORMAT.md`).
//!
//! This module owns the bytes: the plain-data [`Blueprint`] model, a validating reader that never
//! allocates more than the file's own size because a length field says so, and an atomic writer.
//! It must never know about chunks, meshes or Bevy: everything downstream reads the model.
//! [`testing`] builds small synthetic islands for the tests and benchmarks.

mod error;
mod model;
mod reader;
pub mod testing;
mod writer;

pub use error::{BlueprintError, ErrorKind};
pub use model::*;
pub use reader::{DIRECT_READ_MIN_BYTES, SectionInfo, list_file_sections, list_sections, read_bytes, read_file};
pub use writer::{to_bytes, write_file_atomic};
