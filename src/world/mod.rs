//! The server half: turns a loaded [`Blueprint`](crate::blueprint::Blueprint) into chunk data
//! (SPEC §3). Everything here is a pure function of the blueprint and a chunk coordinate, so the
//! same chunk built twice — on any thread, in any order — is identical.
//!
//! It owns the chunk layout, per-column sampling (surface height, slope, material), the density
//! field and the water rules. It must never read Bevy's renderer or decide where water is: the
//! blueprint decides, the world only reads it (plus the one shoreline-seam rule).

mod chunk;
mod column;
mod layout;
pub mod lod;
mod material;
mod streaming;
mod water;

pub use chunk::{ChunkData, ChunkWater, RESIDENT_BYTES_PER_COLUMN, SectionData, build_chunk};
pub use column::{column_gradient, surface_y_m};
pub use layout::{CHUNK_COLUMNS, ChunkCoord, FLOOR_Y_M, PADDED, SECTION_VOXELS, WATER_TOP_MARGIN_M, WorldLayout};
pub use material::{Material, ROCK_SLOPE, material_at, top_material};
pub use streaming::{UNLOAD_FACTOR, chunk_distance_m, chunks_within, should_unload};
pub use water::{IslandStats, WaterColumn, WaterSource, is_seam_column, island_stats, water_column};

/// Everything a chunk build needs, shared read-only between build threads.
pub struct WorldSource {
    pub blueprint: std::sync::Arc<crate::blueprint::Blueprint>,
    pub layout: WorldLayout,
    pub water: WaterSource,
}

impl WorldSource {
    pub fn new(blueprint: std::sync::Arc<crate::blueprint::Blueprint>) -> Self {
        let layout = WorldLayout::for_blueprint(&blueprint);
        let water = WaterSource::new(&blueprint);
        Self { blueprint, layout, water }
    }
}
