//! Meshing: pure functions from chunk data to plain vertex and index buffers (SPEC §4). The app
//! turns those buffers into Bevy meshes; nothing here knows about Bevy.
//!
//! - [`marching_cubes`]: the terrain surface of the density field, normals from the density
//!   gradient, vertex colours from the material palette. Vertices on a chunk's border are computed
//!   from global sample coordinates and the same two densities in the same order on both sides,
//!   so neighbouring chunks meet exactly.
//! - [`water`]: the translucent water sheet, a separate mesh that never enters the density field.
//! - [`bridges`]: the decks where roads cross rivers.

pub mod bridges;
pub mod far_field;
pub mod lod;
pub mod marching_cubes;
pub mod open_sea;
pub mod palette;
pub mod tables;
pub mod water;

pub use marching_cubes::{Mesher, Shading, TerrainMesh};
pub use water::{WaterMesh, cell_normal, mesh_water, mesh_water_styled, water_colour};
