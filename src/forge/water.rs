//! Water classification: one pass decides every water section, so `WBID`, `WBTB` and `WSRF`
//! agree by construction.
//!
//! - The **ocean** is every below-sea pixel 4-connected to the map border (id 1).
//! - A priority flood from the border gives each pixel its spill level: the lowest level water
//!   standing on it could reach before overflowing to the border. Pixels whose spill level is
//!   above their height are in closed basins; 4-connected groups of them are **lakes** (ids 2.. in
//!   X-outer / Y-inner scan order), each standing at its own spill level.
//! - Basins shallower than [`MIN_LAKE_DEPTH_M`] or smaller than [`MIN_LAKE_PIXELS`] stay dry:
//!   they are puddles of noise, not lakes.

use crate::blueprint::{OCEAN_BODY_ID, Salinity, Water, WaterBody, WaterType, water_level};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

pub const MIN_LAKE_DEPTH_M: f32 = 1.0;
pub const MIN_LAKE_PIXELS: u32 = 12;

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
pub fn spill_levels(n: usize, heights: &[f32], sea: f32) -> Vec<f32> {
    let mut level = vec![f32::NAN; n * n];
    let mut heap = BinaryHeap::new();
    // Key: (level bits, index) — total order on non-negative finite floats, ties by index.
    let key = |l: f32, i: usize| Reverse((l.to_bits(), i));
    for i in 0..n * n {
        if is_border(i, n) {
            level[i] = heights[i].max(sea);
            heap.push(key(level[i], i));
        }
    }
    while let Some(Reverse((bits, i))) = heap.pop() {
        let l = f32::from_bits(bits);
        for j in neighbours(i, n) {
            if level[j].is_nan() {
                level[j] = heights[j].max(l);
                heap.push(key(level[j], j));
            }
        }
    }
    level
}

/// Classify the water of a raw height map.
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
    while let Some(i) = queue.pop_front() {
        for j in neighbours(i, n) {
            if ids[j] == 0 && heights[j] < sea {
                ids[j] = OCEAN_BODY_ID;
                queue.push_back(j);
            }
        }
    }
    let mut bodies = Vec::new();
    let ocean_pixels: Vec<usize> = (0..n * n).filter(|&i| ids[i] == OCEAN_BODY_ID).collect();
    if !ocean_pixels.is_empty() {
        bodies.push(body(OCEAN_BODY_ID, WaterType::Ocean, sea, &ocean_pixels, n));
    }

    let spill = spill_levels(n, heights, sea);
    let mut seen = vec![false; n * n];
    let mut next_id = OCEAN_BODY_ID + 1;
    for start in 0..n * n {
        if seen[start] || ids[start] != 0 || spill[start] <= heights[start] {
            continue;
        }
        // One basin: flood its 4-connected flooded pixels.
        let mut members = vec![start];
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
        if members.len() < MIN_LAKE_PIXELS as usize || depth_m < MIN_LAKE_DEPTH_M || next_id == u16::MAX {
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
