//! The server half: turns a loaded [`Blueprint`](crate::blueprint::Blueprint) into chunk data
//! (SPEC §3). Everything here is a pure function of the blueprint and a chunk coordinate, so the
//! same chunk built twice — on any thread, in any order — is identical.
//!
//! It owns the chunk layout, per-column sampling (surface height, slope, material), the density
//! field and the water rules. It must never read Bevy's renderer or decide where water is: the
//! blueprint decides, the world only reads it (plus the one shoreline-seam rule).

mod chunk;
mod coast;
mod column;
pub mod display;
pub mod joins;
mod layout;
pub mod lod;
mod material;
pub mod probe;
mod roadbed;
pub mod roads;
mod streaming;
mod water;

pub use chunk::{ChunkData, ChunkWater, RESIDENT_BYTES_PER_COLUMN, SectionData, build_chunk};
pub use coast::{Coast, find_coast};
pub use column::{gradient_of, terrain_gradient, terrain_y_m};
pub use layout::{CHUNK_COLUMNS, ChunkCoord, FLOOR_Y_M, PADDED, SECTION_VOXELS, WATER_TOP_MARGIN_M, WorldLayout};
pub use material::{Material, ROCK_SLOPE, material_at, road_material_at, top_material};
pub use roads::RoadCarve;
pub use streaming::{UNLOAD_FACTOR, chunk_distance_m, chunks_within, should_unload};
pub use water::{IslandStats, WaterColumn, WaterSource, is_seam_column, island_stats, water_column, water_column_over};

use crate::blueprint::RoadTier;

/// Everything a chunk build needs, shared read-only between build threads.
pub struct WorldSource {
    pub blueprint: std::sync::Arc<crate::blueprint::Blueprint>,
    pub layout: WorldLayout,
    pub water: WaterSource,
    /// The roads carved into the column surface (empty without `ROAD`).
    pub roads: RoadCarve,
    /// [`snow_line_m`], computed once on first use (it reads every column).
    snow_line: std::sync::OnceLock<Option<f32>>,
}

impl WorldSource {
    pub fn new(blueprint: std::sync::Arc<crate::blueprint::Blueprint>) -> Self {
        let layout = WorldLayout::for_blueprint(&blueprint);
        let water = WaterSource::new(&blueprint);
        let roads = RoadCarve::new(&blueprint);
        Self { blueprint, layout, water, roads, snow_line: std::sync::OnceLock::new() }
    }

    /// The sea's level in metres: the ocean body's, or the blueprint's sea level without one.
    pub fn sea_level_m(&self) -> f32 {
        let p = &self.blueprint.params;
        self.water.ocean_level_raw.unwrap_or(p.sea_level_raw) * p.metres_per_raw
    }

    /// The ocean body's level in metres, when the blueprint has an ocean.
    pub fn ocean_level_m(&self) -> Option<f32> {
        self.water.ocean_level_raw.map(|o| o * self.blueprint.params.metres_per_raw)
    }

    /// The crater's centre `[x, z]` and radius in metres, when the blueprint has one (`PRMS`).
    pub fn crater_m(&self) -> Option<([f32; 2], f32)> {
        let p = &self.blueprint.params;
        (p.crater_radius > 0.0).then(|| {
            let col = self.layout.column_m;
            ([p.crater_x * col, p.crater_y * col], p.crater_radius * col)
        })
    }

    /// The highest terrain height in metres (before the roads' carve), 0 for an all-sea map.
    pub fn max_height_m(&self) -> f32 {
        let bp = &*self.blueprint;
        bp.heights_raw.iter().copied().fold(0.0f32, f32::max) * bp.params.metres_per_raw
    }

    /// The height in metres above which snow lies on gentle slopes (see [`snow_line_m`]).
    pub fn snow_line_m(&self) -> Option<f32> {
        *self.snow_line.get_or_init(|| snow_line_m(&self.blueprint))
    }

    /// Whether the blueprint carries per-pixel water (`WBID`); without it nothing is wet.
    pub fn has_water_section(&self) -> bool {
        self.blueprint.water.is_some()
    }

    /// Total length of the roads in kilometres.
    pub fn road_km(&self) -> f32 {
        let mpp = self.blueprint.params.metres_per_pixel;
        self.roads
            .roads
            .iter()
            .map(|r| r.points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1])).sum::<f32>())
            .sum::<f32>()
            * mpp
            / 1000.0
    }

    /// The road carve of a column, when a road reaches it (never on a wet column).
    #[inline]
    fn carve(&self, px: i64, py: i64) -> Option<roads::Carve> {
        if self.roads.is_empty() {
            return None;
        }
        let n = self.blueprint.map_size as i64;
        self.roads.at(px.clamp(0, n - 1), py.clamp(0, n - 1))
    }

    /// The rendered surface of a column in metres (SPEC §3): the blueprint's, with the roads
    /// carved in. Pixels outside the map read the nearest edge pixel.
    #[inline]
    pub fn surface_y_m(&self, px: i64, py: i64) -> f32 {
        match self.carve(px, py).and_then(|c| c.surface_m) {
            Some(s) => s,
            None => terrain_y_m(&self.blueprint, px, py),
        }
    }

    /// The road on a column, if any.
    pub fn road_at(&self, px: i64, py: i64) -> Option<RoadTier> {
        self.carve(px, py).and_then(|c| c.road)
    }

    /// The paint field at a column (SPEC §3 "Roads"): the signed distance (m) from its centre to
    /// the nearest paint edge, negative on the paint, and that paint's tier; `None` on a column
    /// neither a carve nor the field reaches (no paint within [`roads::NO_PAINT_COLUMNS`]
    /// columns) and on wet columns. A carved column farther from the paint reads its true
    /// distance.
    pub fn paint_at(&self, px: i64, py: i64) -> Option<(f32, RoadTier)> {
        self.carve(px, py).and_then(|c| Some((c.paint_m(), c.paint_tier?)))
    }

    /// Slope of the rendered surface at a column, `[dY/dX, dY/dZ]` (see [`gradient_of`]).
    pub fn gradient(&self, px: i64, py: i64) -> [f32; 2] {
        let bp = &*self.blueprint;
        gradient_of(bp.map_size, bp.params.metres_per_pixel, |x, y| self.surface_y_m(x, y), px, py)
    }

    /// The water of a column (SPEC §3), the shoreline-seam rule reading the carved surface.
    pub fn water_at(&self, x: u32, y: u32, top_m: f32) -> Option<WaterColumn> {
        let bp = &*self.blueprint;
        let rendered_raw = match self.carve(x as i64, y as i64).and_then(|c| c.surface_m) {
            Some(s) => s / bp.params.metres_per_raw,
            None => bp.height_raw(x, y),
        };
        water_column_over(bp, &self.water, x, y, top_m, rendered_raw)
    }
}

/// The height (m) above which the terrain shader lays snow on gentle slopes: the 5th percentile of
/// the surface height of the blueprint's snow-biome columns, so the snow reaches about as low as
/// the forge's snow caps. `None` when the blueprint has no snow.
pub fn snow_line_m(bp: &crate::blueprint::Blueprint) -> Option<f32> {
    let snow = crate::blueprint::Biome::Snow as u8;
    let mut h: Vec<f32> = bp
        .biomes
        .iter()
        .zip(&bp.heights_raw)
        .filter(|(b, _)| **b == snow)
        .map(|(_, &r)| r * bp.params.metres_per_raw)
        .collect();
    if h.is_empty() {
        return None;
    }
    let k = h.len() / 20;
    let (_, line, _) = h.select_nth_unstable_by(k, f32::total_cmp);
    Some(*line)
}
