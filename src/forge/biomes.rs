//! Biomes from classify height (against the curve's bands), temperature (latitude, noise and a
//! lapse rate with height) and moisture. Water biomes come from the water classification.

use super::curve::HeightCurve;
use super::shape::norm;
use crate::blueprint::{Biome, OCEAN_BODY_ID};
use noise::{NoiseFn, Perlin};
use rayon::prelude::*;

const MOISTURE_SEED_OFFSET: i32 = 104_729;
const TEMPERATURE_SEED_OFFSET: i32 = 104_743;
/// Classify height below which dry land is beach, metres above sea.
pub const BEACH_M: f32 = 2.5;
/// Snow caps the upper part of the spire band (fraction of the way from its knot to the summit).
const SNOW_SPIRE_FRACTION: f32 = 0.4;
/// Temperature lost from sea level to the seed's summit (0..1 scale).
const LAPSE: f32 = 0.45;

/// Biome ordinals, X-outer / Y-inner.
pub fn assign(
    seed: i32,
    n: usize,
    classify: &[f32],
    body_ids: &[u16],
    curve: &HeightCurve,
    sea: f32,
    mpr: f32,
) -> Vec<u8> {
    let moist = super::shape::fbm(seed.wrapping_add(MOISTURE_SEED_OFFSET) as u32, 3);
    let temp = Perlin::new(seed.wrapping_add(TEMPERATURE_SEED_OFFSET) as u32);
    let [_, _, k3, k4, k5] = curve.k;
    let mut out = vec![0u8; n * n];
    out.par_chunks_mut(n).enumerate().for_each(|(x, row)| {
        let u = norm(x, n);
        for (y, b) in row.iter_mut().enumerate() {
            let i = x * n + y;
            let v = norm(y, n);
            let e = (classify[i] - sea) * mpr;
            let biome = match body_ids[i] {
                OCEAN_BODY_ID => Biome::Ocean,
                id if id > OCEAN_BODY_ID => Biome::Lake,
                _ => {
                    // Latitude: the south (larger y) is warmer.
                    let t = 0.5 + 0.4 * v + 0.12 * temp.get([u as f64 * 2.0, v as f64 * 2.0]) as f32
                        - LAPSE * (e / curve.max_m).clamp(0.0, 1.0);
                    let m = moist.get([u as f64 * 2.5, v as f64 * 2.5]) as f32;
                    if e < BEACH_M {
                        Biome::Beach
                    } else if e >= k5 + SNOW_SPIRE_FRACTION * (curve.max_m - k5) && t < 0.45 {
                        Biome::Snow
                    } else if e >= k4 {
                        Biome::Mountain
                    } else if e >= k3 {
                        Biome::Highland
                    } else if m < -0.3 && t > 0.45 {
                        Biome::Wasteland
                    } else if m > 0.1 && t > 0.62 {
                        Biome::Jungle
                    } else if m > -0.05 {
                        Biome::Forest
                    } else {
                        Biome::Grassland
                    }
                }
            };
            *b = biome as u8;
        }
    });
    out
}
