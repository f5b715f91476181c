//! Water classification: one pass decides every water section, so `WBID`, `WBTB` and `WSRF`
//! agree by construction.
//!
//! - The **ocean** is every below-sea pixel 4-connected to the map border (id 1).
//! - A priority flood from the border gives each pixel its spill level: the lowest level water
//!   standing on it could reach before overflowing to the border. Pixels whose spill level is
//!   above their height are in closed basins; 4-connected groups of them are **lakes** (ids 2.. in
//!   X-outer / Y-inner scan order), each standing at its own spill level.
//! - Basins shallower than [`MIN_LAKE_DEPTH_M`] or smaller than [`MIN_LAKE_PIXELS`] stay dry:
//!   they are puddles of noise, not lakes — unless they hold a below-sea pixel.
//! - Levels are decided on the classify map; [`render_levels`] gives each lake the level it stands
//!   at on the render map (its lowest rendered shore), and [`settle_lake_beds`] lays its bed under
//!   that level. `WBID`, `WBTB` and `WSRF` are then written from this one classification.

use super::grid::{Connectivity, flood_region, is_border, neighbours4, priority_flood};
use crate::blueprint::{OCEAN_BODY_ID, Salinity, Water, WaterBody, WaterType, water_level};

/// A basin shallower than this (metres) is a puddle, not a lake.
pub const MIN_LAKE_DEPTH_M: f32 = 2.0;
/// A basin smaller than this (pixels) is a puddle, not a lake.
pub const MIN_LAKE_PIXELS: u32 = 24;

/// The result of classification: body id per pixel, the bodies, and each pixel's level.
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    pub n: u32,
    pub body_ids: Vec<u16>,
    pub bodies: Vec<WaterBody>,
}

impl Classification {
    pub fn level_of(&self, id: u16) -> Option<f32> {
        self.bodies.iter().find(|b| b.id == id).map(|b| b.surface_level_raw)
    }
    pub fn max_depth_m(&self, heights: &[f32], mpr: f32) -> f32 {
        let levels = self.level_table();
        self.body_ids
            .iter()
            .zip(heights)
            .filter(|(id, _)| **id != 0)
            .map(|(id, h)| (levels[*id as usize] - h) * mpr)
            .fold(0.0, f32::max)
    }
    fn level_table(&self) -> Vec<f32> {
        let max = self.bodies.iter().map(|b| b.id as usize).max().unwrap_or(0);
        let mut t = vec![0f32; max + 1];
        for b in &self.bodies {
            t[b.id as usize] = b.surface_level_raw;
        }
        t
    }
    /// `WBID`, `WBTB` and `WSRF` from this one classification, without copying the id grid.
    pub fn into_water(self) -> Water {
        let surface = self.surface_levels();
        Water { body_ids: self.body_ids, bodies: Some(self.bodies), surface: Some(surface) }
    }
    fn surface_levels(&self) -> Vec<u16> {
        let levels = self.level_table();
        self.body_ids
            .iter()
            .map(|&id| if id == 0 { water_level::NO_WATER } else { water_level::encode(levels[id as usize]) })
            .collect()
    }
    /// `WBID`, `WBTB` and `WSRF` from this one classification.
    pub fn to_water(&self) -> Water {
        let levels = self.level_table();
        let surface = self
            .body_ids
            .iter()
            .map(|&id| if id == 0 { water_level::NO_WATER } else { water_level::encode(levels[id as usize]) })
            .collect();
        Water { body_ids: self.body_ids.clone(), bodies: Some(self.bodies.clone()), surface: Some(surface) }
    }
}

/// Spill level of every pixel (priority flood from the border, sea level as the border's floor).
///
/// A pixel's spill level is the lowest level water standing on it could reach before overflowing
/// to the border. Pixels that fill to the level they were reached at (flats and depressions) go
/// through a FIFO queue instead of the heap (Barnes et al.'s improved priority flood): the same
/// levels, far fewer heap operations where the sea and lakes are wide.
pub fn spill_levels(n: usize, heights: &[f32], sea: f32) -> Vec<f32> {
    let mut level = heights.to_vec();
    let border = || (0..n * n).filter(|&i| is_border(i, n));
    for i in border() {
        level[i] = heights[i].max(sea);
    }
    let mut seen = vec![false; n * n];
    priority_flood(n, Connectivity::Four, &mut level, &mut seen, border(), |_, _, spill| spill);
    level
}

/// Classify the water of a raw height map.
///
/// Basins shallower than [`MIN_LAKE_DEPTH_M`] or smaller than [`MIN_LAKE_PIXELS`] stay dry —
/// unless they hold a below-sea pixel: every below-sea pixel is water (SPEC §2), so a below-sea
/// region cut off from the ocean is always a lake, however small.
pub fn classify_water(size: u32, heights: &[f32], sea: f32, mpr: f32) -> Classification {
    let n = size as usize;
    let mut ids = vec![0u16; n * n];
    let mut bodies: Vec<WaterBody> = flood_ocean(n, heights, sea, &mut ids).into_iter().collect();
    bodies.extend(find_lakes(n, heights, sea, mpr, &mut ids));
    Classification { n: size, body_ids: ids, bodies }
}

/// The ocean: every below-sea pixel 4-connected to the border gets [`OCEAN_BODY_ID`]; its body,
/// or `None` when there is no sea.
fn flood_ocean(n: usize, heights: &[f32], sea: f32, ids: &mut [u16]) -> Option<WaterBody> {
    let seeds: Vec<usize> = (0..n * n).filter(|&i| is_border(i, n) && heights[i] < sea).collect();
    for &i in &seeds {
        ids[i] = OCEAN_BODY_ID;
    }
    let mut count = 0u64;
    let take = |j: usize| {
        let wet = ids[j] == 0 && heights[j] < sea;
        if wet {
            ids[j] = OCEAN_BODY_ID;
        }
        wet
    };
    flood_region(n, Connectivity::Four, seeds, take, |_| count += 1);
    if count == 0 {
        return None;
    }
    // Centroid sums in scan order, so they do not depend on the flood's visiting order.
    let (mut cx, mut cy) = (0f64, 0f64);
    for (i, &id) in ids.iter().enumerate() {
        if id == OCEAN_BODY_ID {
            cx += (i / n) as f64;
            cy += (i % n) as f64;
        }
    }
    Some(WaterBody {
        id: OCEAN_BODY_ID,
        kind: WaterType::Ocean,
        salinity: Salinity::Salt,
        surface_level_raw: sea,
        pixel_count: count as i32,
        centroid_x: (cx / count as f64) as f32,
        centroid_y: (cy / count as f64) as f32,
    })
}

/// The lakes: 4-connected groups of dry pixels under their spill level, in scan order of their
/// first pixel, numbered from [`OCEAN_BODY_ID`] + 1 into `ids`; puddles stay dry.
fn find_lakes(n: usize, heights: &[f32], sea: f32, mpr: f32, ids: &mut [u16]) -> Vec<WaterBody> {
    let spill = spill_levels(n, heights, sea);
    let mut seen = vec![false; n * n];
    let mut next_id = OCEAN_BODY_ID + 1;
    let mut members = Vec::new();
    let mut lakes = Vec::new();
    for start in 0..n * n {
        if seen[start] || ids[start] != 0 || spill[start] <= heights[start] {
            continue;
        }
        // One basin: flood its 4-connected flooded pixels.
        members.clear();
        seen[start] = true;
        let take = |j: usize| {
            let flooded = !seen[j] && ids[j] == 0 && spill[j] > heights[j];
            if flooded {
                seen[j] = true;
            }
            flooded
        };
        flood_region(n, Connectivity::Four, [start], take, |i| members.push(i));
        let Some(level) = lake_level(&members, heights, &spill, sea, mpr) else { continue };
        if next_id == u16::MAX {
            continue;
        }
        members.sort_unstable();
        for &i in &members {
            ids[i] = next_id;
        }
        lakes.push(body(next_id, WaterType::Lake, level, &members, n));
        next_id += 1;
    }
    lakes
}

/// The level a basin's pixels stand at (their highest spill level), or `None` for a puddle:
/// shallower than [`MIN_LAKE_DEPTH_M`] or smaller than [`MIN_LAKE_PIXELS`], and all above sea.
fn lake_level(members: &[usize], heights: &[f32], spill: &[f32], sea: f32, mpr: f32) -> Option<f32> {
    let level = members.iter().map(|&i| spill[i]).fold(f32::MIN, f32::max);
    let depth_m = members.iter().map(|&i| (level - heights[i]) * mpr).fold(0.0, f32::max);
    let below_sea = members.iter().any(|&i| heights[i] < sea);
    let puddle = members.len() < MIN_LAKE_PIXELS as usize || depth_m < MIN_LAKE_DEPTH_M;
    (!puddle || below_sea).then_some(level)
}

/// The rendered level of every lake: the lowest rendered height on its dry 4-neighbour shore
/// (where it spills on the render map), held at or above sea and rounded down onto the `WSRF`
/// grid so the stored level never floats above that shore. Indexed like `class.bodies`; the
/// ocean keeps its level.
pub fn render_levels(class: &Classification, render: &[f32], sea: f32) -> Vec<f32> {
    let n = class.n as usize;
    let max_id = class.bodies.iter().map(|b| b.id as usize).max().unwrap_or(0);
    let mut shore = vec![f32::INFINITY; max_id + 1];
    for (i, &id) in class.body_ids.iter().enumerate() {
        if id > OCEAN_BODY_ID {
            for j in neighbours4(i, n) {
                if class.body_ids[j] == 0 {
                    shore[id as usize] = shore[id as usize].min(render[j]);
                }
            }
        }
    }
    class
        .bodies
        .iter()
        .map(|b| {
            if b.kind == WaterType::Ocean {
                return b.surface_level_raw;
            }
            let l = shore[b.id as usize];
            let l = if l.is_finite() { l.max(sea) } else { b.surface_level_raw };
            (l * water_level::STEPS_PER_RAW).floor() / water_level::STEPS_PER_RAW
        })
        .collect()
}

/// Settle the render map under each lake: the lake bed is the classify bed mapped linearly so
/// that sea stays sea and the classify level lands on the rendered level (so a bed above sea stays
/// above sea and one below stays below), held strictly under the rendered level.
pub fn settle_lake_beds(class: &Classification, classify: &[f32], render: &mut [f32], levels: &[f32], sea: f32) {
    let max_id = class.bodies.iter().map(|b| b.id as usize).max().unwrap_or(0);
    let mut by_id = vec![(0f32, 0f32); max_id + 1];
    for (b, &lr) in class.bodies.iter().zip(levels) {
        by_id[b.id as usize] = (b.surface_level_raw, lr);
    }
    for (i, &id) in class.body_ids.iter().enumerate() {
        if id <= OCEAN_BODY_ID {
            continue;
        }
        let (lc, lr) = by_id[id as usize];
        let c = classify[i];
        let bed = if lc - sea > 1e-4 { sea + (c - sea) * ((lr - sea) / (lc - sea)) } else { lr - (lc - c) };
        let below = f32::from_bits(lr.to_bits() - 1);
        render[i] = bed.min(below).max(0.0);
    }
}

fn body(id: u16, kind: WaterType, level: f32, pixels: &[usize], n: usize) -> WaterBody {
    let (mut sx, mut sy) = (0f64, 0f64);
    for &i in pixels {
        sx += (i / n) as f64;
        sy += (i % n) as f64;
    }
    let c = pixels.len().max(1) as f64;
    WaterBody {
        id,
        kind,
        salinity: if kind == WaterType::Ocean { Salinity::Salt } else { Salinity::Fresh },
        surface_level_raw: level,
        pixel_count: pixels.len() as i32,
        centroid_x: (sx / c) as f32,
        centroid_y: (sy / c) as f32,
    }
}
