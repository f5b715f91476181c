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

use crate::blueprint::{OCEAN_BODY_ID, Salinity, Water, WaterBody, WaterType, water_level};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

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

fn neighbours(i: usize, n: usize) -> impl Iterator<Item = usize> {
    let (x, y) = (i / n, i % n);
    let mut v = [usize::MAX; 4];
    if x > 0 {
        v[0] = i - n;
    }
    if x + 1 < n {
        v[1] = i + n;
    }
    if y > 0 {
        v[2] = i - 1;
    }
    if y + 1 < n {
        v[3] = i + 1;
    }
    v.into_iter().filter(|&j| j != usize::MAX)
}

fn is_border(i: usize, n: usize) -> bool {
    let (x, y) = (i / n, i % n);
    x == 0 || y == 0 || x == n - 1 || y == n - 1
}

/// Spill level of every pixel (priority flood from the border, sea level as the border's floor).
///
/// A pixel's spill level is the lowest level water standing on it could reach before overflowing
/// to the border. Pixels that fill to the level they were reached at (flats and depressions) go
/// through a FIFO queue instead of the heap (Barnes et al.'s improved priority flood): the same
/// levels, far fewer heap operations where the sea and lakes are wide.
pub fn spill_levels(n: usize, heights: &[f32], sea: f32) -> Vec<f32> {
    let mut level = vec![f32::NAN; n * n];
    let mut heap = BinaryHeap::new();
    let mut flat = VecDeque::new();
    // Key: (level bits, index) — total order on non-negative finite floats, ties by index.
    let key = |l: f32, i: usize| Reverse((l.to_bits(), i));
    for i in 0..n * n {
        if is_border(i, n) {
            level[i] = heights[i].max(sea);
            heap.push(key(level[i], i));
        }
    }
    loop {
        let (i, l) = match flat.pop_front() {
            Some(i) => (i, level[i]),
            None => match heap.pop() {
                Some(Reverse((bits, i))) => (i, f32::from_bits(bits)),
                None => break,
            },
        };
        for j in neighbours(i, n) {
            if level[j].is_nan() {
                if heights[j] <= l {
                    level[j] = l;
                    flat.push_back(j);
                } else {
                    level[j] = heights[j];
                    heap.push(key(level[j], j));
                }
            }
        }
    }
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
    // Ocean: below sea and 4-connected to the border.
    let mut queue = VecDeque::new();
    for i in 0..n * n {
        if is_border(i, n) && heights[i] < sea {
            ids[i] = OCEAN_BODY_ID;
            queue.push_back(i);
        }
    }
    let mut count = 0u64;
    while let Some(i) = queue.pop_front() {
        count += 1;
        for j in neighbours(i, n) {
            if ids[j] == 0 && heights[j] < sea {
                ids[j] = OCEAN_BODY_ID;
                queue.push_back(j);
            }
        }
    }
    drop(queue);
    let mut bodies = Vec::new();
    if count > 0 {
        // Centroid sums in scan order, so they do not depend on the flood's visiting order.
        let (mut cx, mut cy) = (0f64, 0f64);
        for (i, &id) in ids.iter().enumerate() {
            if id == OCEAN_BODY_ID {
                cx += (i / n) as f64;
                cy += (i % n) as f64;
            }
        }
        bodies.push(WaterBody {
            id: OCEAN_BODY_ID,
            kind: WaterType::Ocean,
            salinity: Salinity::Salt,
            surface_level_raw: sea,
            pixel_count: count as i32,
            centroid_x: (cx / count as f64) as f32,
            centroid_y: (cy / count as f64) as f32,
        });
    }

    let spill = spill_levels(n, heights, sea);
    let mut seen = vec![false; n * n];
    let mut next_id = OCEAN_BODY_ID + 1;
    let mut members = Vec::new();
    for start in 0..n * n {
        if seen[start] || ids[start] != 0 || spill[start] <= heights[start] {
            continue;
        }
        // One basin: flood its 4-connected flooded pixels.
        members.clear();
        members.push(start);
        seen[start] = true;
        let mut k = 0;
        while k < members.len() {
            let i = members[k];
            k += 1;
            for j in neighbours(i, n) {
                if !seen[j] && ids[j] == 0 && spill[j] > heights[j] {
                    seen[j] = true;
                    members.push(j);
                }
            }
        }
        let level = members.iter().map(|&i| spill[i]).fold(f32::MIN, f32::max);
        let depth_m = members.iter().map(|&i| (level - heights[i]) * mpr).fold(0.0, f32::max);
        let below_sea = members.iter().any(|&i| heights[i] < sea);
        let puddle = members.len() < MIN_LAKE_PIXELS as usize || depth_m < MIN_LAKE_DEPTH_M;
        if (puddle && !below_sea) || next_id == u16::MAX {
            continue;
        }
        members.sort_unstable();
        for &i in &members {
            ids[i] = next_id;
        }
        bodies.push(body(next_id, WaterType::Lake, level, &members, n));
        next_id += 1;
    }
    Classification { n: size, body_ids: ids, bodies }
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
            for j in neighbours(i, n) {
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
