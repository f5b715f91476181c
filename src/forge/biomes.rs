//! Biomes from height, moisture and latitude.

use super::ForgeDials;
use crate::blueprint::Biome;
use noise::{NoiseFn, Perlin};
use rayon::prelude::*;

/// Height bands above sea (metres).
const BEACH_M: f32 = 3.0;
const HIGHLAND_M: f32 = 110.0;
const MOUNTAIN_M: f32 = 220.0;
const SNOW_M: f32 = 330.0;

pub fn assign(d: &ForgeDials, heights: &[f32], body_ids: &[u16], sea_raw: f32, mpr: f32) -> Vec<u8> {
    let n = d.size as usize;
    let moist = Perlin::new(d.seed.wrapping_add(104_729) as u32);
    let mut out = vec![0u8; n * n];
    out.par_chunks_mut(n).enumerate().for_each(|(x, row)| {
        for (y, b) in row.iter_mut().enumerate() {
            let i = x * n + y;
            let above = (heights[i] - sea_raw) * mpr;
            let m = moist.get([x as f64 / n as f64 * 3.0, y as f64 / n as f64 * 3.0]) as f32;
            // Latitude: the south (larger y) is warmer.
            let warm = y as f32 / n as f32;
            let biome = match body_ids[i] {
                1 => Biome::Ocean,
                id if id >= 2 => Biome::Lake,
                _ if above < BEACH_M => Biome::Beach,
                _ if above >= SNOW_M => Biome::Snow,
                _ if above >= MOUNTAIN_M => Biome::Mountain,
                _ if above >= HIGHLAND_M => Biome::Highland,
                _ if m < -0.35 => Biome::Wasteland,
                _ if m > 0.15 && warm > 0.6 => Biome::Jungle,
                _ if m > 0.0 => Biome::Forest,
                _ => Biome::Grassland,
            };
            *b = biome as u8;
        }
    });
    out
}
