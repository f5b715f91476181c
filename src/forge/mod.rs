//! The forge: a deterministic island generator that writes blueprints (SPEC §2).
//!
//! Every pixel is a pure function of the seed, the dials and its coordinates (rows are computed in
//! parallel with rayon; the result does not depend on the thread count), and the water
//! classification is a sequential, deterministic scan. It owns island shape and classification;
//! it must never read chunk or render code.

mod biomes;
mod shape;
mod water;

use crate::blueprint::{Blueprint, Params};
use std::time::Instant;

pub use shape::ShapeDials;
pub use water::{Classification, classify_water};

/// The reference game's raw-height → metres mapping.
pub const METRES_PER_RAW: f32 = 251.0;
/// Sea level in raw units: the ocean floor (raw 0) lies 75 m below it, and summits capped near
/// 420 m above sea stay inside the `WSRF` range (≤ 1.99997 raw).
pub const SEA_LEVEL_RAW: f32 = 0.3;

/// Everything that decides an island.
#[derive(Debug, Clone, PartialEq)]
pub struct ForgeDials {
    pub seed: i32,
    pub size: u32,
    pub metres_per_pixel: f32,
    pub shape: ShapeDials,
}

impl ForgeDials {
    pub fn new(seed: i32, size: u32) -> Self {
        Self { seed, size, metres_per_pixel: 4.0, shape: ShapeDials::default() }
    }
}

/// One stage's summary, for the progress log.
#[derive(Debug, Clone)]
pub struct StageReport {
    pub stage: &'static str,
    pub millis: f64,
    pub detail: String,
}

/// Generate an island. `progress` receives one report per finished stage.
pub fn forge(dials: &ForgeDials, mut progress: impl FnMut(&StageReport)) -> anyhow::Result<Blueprint> {
    anyhow::ensure!(
        (crate::blueprint::MIN_MAP_SIZE..=crate::blueprint::MAX_MAP_SIZE).contains(&dials.size),
        "map size {} is outside 32..=16384",
        dials.size
    );
    anyhow::ensure!(
        dials.metres_per_pixel.is_finite() && dials.metres_per_pixel > 0.0,
        "metres per pixel must be positive"
    );
    let mut stage = |name: &'static str, t: Instant, detail: String| {
        progress(&StageReport { stage: name, millis: t.elapsed().as_secs_f64() * 1e3, detail })
    };

    let t = Instant::now();
    let heights_raw = shape::heights(dials, SEA_LEVEL_RAW, METRES_PER_RAW);
    let land = heights_raw.iter().filter(|&&h| h >= SEA_LEVEL_RAW).count();
    let max_m = heights_raw.iter().copied().fold(f32::MIN, f32::max);
    stage(
        "shape",
        t,
        format!(
            "land {:.1}%, highest {:.0} m above sea",
            100.0 * land as f64 / heights_raw.len() as f64,
            (max_m - SEA_LEVEL_RAW) * METRES_PER_RAW
        ),
    );

    let t = Instant::now();
    let class = classify_water(dials.size, &heights_raw, SEA_LEVEL_RAW, METRES_PER_RAW);
    let max_depth_m = class.max_depth_m(&heights_raw, METRES_PER_RAW);
    stage(
        "water",
        t,
        format!(
            "{} bodies ({} lakes), max depth {:.0} m",
            class.bodies.len(),
            class.bodies.len().saturating_sub(1),
            max_depth_m
        ),
    );

    let t = Instant::now();
    let biomes = biomes::assign(dials, &heights_raw, &class.body_ids, SEA_LEVEL_RAW, METRES_PER_RAW);
    stage("biomes", t, "10 biomes by height, moisture and latitude".to_string());

    Ok(Blueprint {
        map_size: dials.size,
        seed: dials.seed,
        params: Params {
            sea_level_raw: SEA_LEVEL_RAW,
            metres_per_raw: METRES_PER_RAW,
            metres_per_pixel: dials.metres_per_pixel,
            crater_x: 0.0,
            crater_y: 0.0,
            crater_radius: 0.0,
        },
        heights_raw,
        biomes,
        towns: None,
        water: Some(class.to_water()),
        curve: None,
        detail: None,
        erosion: None,
        warnings: Vec::new(),
    })
}
