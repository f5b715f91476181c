//! Water per column (SPEC §3): the blueprint is the authority, the world only reads it.
//!
//! 1. `WBID` non-zero: the level is the `WSRF` value; on the sentinel, the body's `WBTB` level;
//!    a body the table does not know leaves the column dry (never guess a level). A blueprint
//!    with `WBID` and `WSRF` but no `WBTB` at all is read by `WSRF` alone.
//! 2. Shoreline seam: `WBID` zero but the rendered ground below the ocean body's own `WBTB`
//!    level → wet at the ocean level. Only the crater carve produces such columns.
//! 3. Surface Y = level × metresPerRaw clamped to `[FLOOR_Y_M, top − WATER_TOP_MARGIN_M]`;
//!    true depth = max(0, (level − HGTS height) × metresPerRaw), from blueprint heights.

use super::layout::{FLOOR_Y_M, WATER_TOP_MARGIN_M};
use crate::blueprint::{Blueprint, water_level};

/// One wet column.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct WaterColumn {
    pub level_raw: f32,
    pub water_surface_y_m: f32,
    pub true_depth_m: f32,
    /// Wet only because of the shoreline-seam rule.
    pub seam: bool,
}

/// The blueprint's water, ready for per-column questions.
#[derive(Debug, Clone, Default)]
pub struct WaterSource {
    /// The ocean body's `WBTB` level, when the blueprint has one: the seam rule's threshold.
    pub ocean_level_raw: Option<f32>,
    /// `WBTB` levels indexed by body id (NaN where the table has no such body).
    body_levels: Vec<f32>,
    /// Whether the blueprint has a `WBTB` table at all.
    has_table: bool,
}

impl WaterSource {
    pub fn new(bp: &Blueprint) -> Self {
        let Some(w) = &bp.water else {
            return Self::default();
        };
        let mut body_levels = Vec::new();
        if let Some(bodies) = &w.bodies {
            let max_id = bodies.iter().map(|b| b.id as usize).max().unwrap_or(0);
            body_levels = vec![f32::NAN; max_id + 1];
            for b in bodies {
                body_levels[b.id as usize] = b.surface_level_raw;
            }
        }
        Self { ocean_level_raw: w.ocean().map(|b| b.surface_level_raw), body_levels, has_table: w.bodies.is_some() }
    }
    fn body_level(&self, id: u16) -> Option<f32> {
        self.body_levels.get(id as usize).copied().filter(|v| v.is_finite())
    }
}

/// The water of the column at pixel `(x, y)` (inside the map), or `None` when it is dry; the
/// seam rule reads the blueprint's height (no roads: the world's own
/// [`WorldSource::water_at`](super::WorldSource::water_at) reads the carved surface).
pub fn water_column(bp: &Blueprint, src: &WaterSource, x: u32, y: u32, top_m: f32) -> Option<WaterColumn> {
    water_column_over(bp, src, x, y, top_m, bp.heights_raw[bp.index(x, y)])
}

/// [`water_column`] with the seam rule comparing `rendered_raw` (the column's rendered surface,
/// raw units, e.g. after a road's carve) with the ocean's level. True depth still comes from the
/// blueprint's height.
pub fn water_column_over(
    bp: &Blueprint,
    src: &WaterSource,
    x: u32,
    y: u32,
    top_m: f32,
    rendered_raw: f32,
) -> Option<WaterColumn> {
    let w = bp.water.as_ref()?;
    let i = bp.index(x, y);
    let id = w.body_ids[i];
    let height_raw = bp.heights_raw[i];
    let (level_raw, seam) = if id != 0 {
        // A body the table does not know stays dry, whatever WSRF says: never guess a level.
        // (Without any WBTB table, WSRF alone decides.)
        let table_level = src.body_level(id);
        if src.has_table && table_level.is_none() {
            return None;
        }
        let from_surface = w.surface.as_ref().and_then(|s| water_level::decode(s[i]));
        (from_surface.or(table_level)?, false)
    } else {
        let ocean = src.ocean_level_raw?;
        if !is_seam_column(rendered_raw, ocean, bp.params.metres_per_raw) {
            return None;
        }
        (ocean, true)
    };
    let mpr = bp.params.metres_per_raw;
    let water_surface_y_m = (level_raw * mpr).clamp(FLOOR_Y_M, (top_m - WATER_TOP_MARGIN_M).max(FLOOR_Y_M));
    let true_depth_m = ((level_raw - height_raw) * mpr).max(0.0);
    Some(WaterColumn { level_raw, water_surface_y_m, true_depth_m, seam })
}

/// The shoreline-seam rule's test for a dry (`WBID` 0) column: its **rendered** ground (floored at
/// [`FLOOR_Y_M`]) lies below the ocean body's level. Written so that a non-finite level (refused
/// by the reader anyway) never floods.
#[inline]
pub fn is_seam_column(height_raw: f32, ocean_level_raw: f32, metres_per_raw: f32) -> bool {
    let rendered_m = (height_raw * metres_per_raw).max(FLOOR_Y_M);
    rendered_m < ocean_level_raw * metres_per_raw
}

/// Whole-map statistics as `isla info` prints them: the blueprint's own numbers plus what the
/// world's rules make of it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct IslandStats {
    #[serde(flatten)]
    pub blueprint: crate::blueprint::BlueprintStats,
    /// Dry pixels the shoreline-seam rule will make wet (the same test [`water_column`] applies).
    pub seam_candidates: u64,
}

/// [`IslandStats`] of a blueprint.
pub fn island_stats(bp: &Blueprint) -> IslandStats {
    let mut seam = 0u64;
    if let Some(ocean) = bp.water.as_ref().and_then(|w| w.ocean()).map(|b| b.surface_level_raw) {
        let w = bp.water.as_ref().expect("ocean implies water");
        let mpr = bp.params.metres_per_raw;
        seam = w
            .body_ids
            .iter()
            .zip(&bp.heights_raw)
            .filter(|&(&id, &h)| id == 0 && is_seam_column(h, ocean, mpr))
            .count() as u64;
    }
    IslandStats { blueprint: bp.stats(), seam_candidates: seam }
}
