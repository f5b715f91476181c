//! The forge: a deterministic island generator that writes blueprints (SPEC §2, `docs/FORGE.md`).
//!
//! Two height maps: the **classify** map (shape, islets, coast shelf, crater carve — uncurved and
//! uneroded) decides water and biomes; the **render** map (the classify map through the terraced
//! height curve, lake beds settled under their levels, optional erosion, the same crater carve) is
//! what `HGTS` stores. They agree on which side of the sea every pixel lies except in the crater,
//! where the carve lerps two different bases toward one target: the seam ring.
//!
//! Every per-pixel pass is a pure function of the seed, the dials and the pixel (rows in parallel
//! with rayon); the floods and the droplets are sequential and scan-ordered. The output is
//! byte-identical for any thread count. This module owns generation; it must never read chunk,
//! mesh or render code.

mod biomes;
pub mod crater;
pub mod curve;
pub mod erosion;
mod shape;
mod snapshots;
mod towns;
mod water;

use crate::blueprint::{Blueprint, Params};
use std::time::Instant;

pub use crater::{Crater, CraterDials};
pub use curve::{CurveDials, DetailDials, HeightCurve};
pub use erosion::{ErosionDials, ErosionStats};
pub use shape::{ShapeDials, coast_shelf, smooth_abs};
pub use snapshots::snapshots;
pub use water::{Classification, MIN_LAKE_DEPTH_M, MIN_LAKE_PIXELS, classify_water, spill_levels};

/// The reference game's raw-height → metres mapping.
pub const METRES_PER_RAW: f32 = 251.0;
/// Sea level in raw units: the ocean floor (raw 0) lies 75 m below it, and summits capped near
/// 420 m above sea stay inside the `WSRF` range (≤ 1.99997 raw).
pub const SEA_LEVEL_RAW: f32 = 0.3;

/// Everything that decides an island. `ForgeDials::new(seed, size)` gives the defaults, which
/// make the repository's islands: only the seed and the size are needed to reproduce one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ForgeDials {
    pub seed: i32,
    pub size: u32,
    /// Horizontal size of one pixel; 4 m makes a 1024² map 4 km across.
    pub metres_per_pixel: f32,
    pub shape: ShapeDials,
    pub curve: CurveDials,
    /// The detail pass on the curve (shelf micro-relief, shelf-edge variation); `None` = off.
    pub detail: Option<DetailDials>,
    pub crater: CraterDials,
    /// Droplet erosion on the render map; `None` (the default) = off.
    pub erosion: Option<ErosionDials>,
}

impl ForgeDials {
    pub fn new(seed: i32, size: u32) -> Self {
        Self {
            seed,
            size,
            metres_per_pixel: 4.0,
            shape: ShapeDials::default(),
            curve: CurveDials::default(),
            detail: Some(DetailDials::default()),
            crater: CraterDials::default(),
            erosion: None,
        }
    }
}

/// One stage's summary, for the progress log.
#[derive(Debug, Clone)]
pub struct StageReport {
    pub stage: &'static str,
    pub millis: f64,
    pub detail: String,
}

/// Whole-run figures, beside the blueprint.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ForgeSummary {
    pub land_fraction: f64,
    pub islet_pixels: u64,
    pub max_elevation_m: f32,
    pub lakes: usize,
    pub max_depth_m: f32,
    /// Dry (`WBID` 0) pixels whose render height is below sea: the crater's seam ring.
    pub seam_pixels: u64,
    pub erosion: Option<ErosionStats>,
    pub towns: usize,
    pub millis: f64,
}

/// A forged island with what the blueprint does not keep.
#[derive(Debug, Clone)]
pub struct Forged {
    pub blueprint: Blueprint,
    /// The final classify map (raw, crater carved), X-outer / Y-inner.
    pub classify_raw: Vec<f32>,
    pub crater: Option<Crater>,
    pub curve: HeightCurve,
    pub summary: ForgeSummary,
}

/// Generate an island. `progress` receives one report per finished stage.
pub fn forge(dials: &ForgeDials, progress: impl FnMut(&StageReport)) -> anyhow::Result<Blueprint> {
    Ok(forge_full(dials, progress)?.blueprint)
}

/// Generate an island, keeping the classify map and the run's figures.
pub fn forge_full(dials: &ForgeDials, mut progress: impl FnMut(&StageReport)) -> anyhow::Result<Forged> {
    anyhow::ensure!(
        (crate::blueprint::MIN_MAP_SIZE..=crate::blueprint::MAX_MAP_SIZE).contains(&dials.size),
        "map size {} is outside 32..=16384",
        dials.size
    );
    anyhow::ensure!(
        dials.metres_per_pixel.is_finite() && dials.metres_per_pixel > 0.0,
        "metres per pixel must be positive"
    );
    let s = &dials.shape;
    anyhow::ensure!(
        s.axis_x > 0.0 && s.axis_y > 0.0 && s.spine_width > 0.0 && (0.0..=1.0).contains(&s.islet_density),
        "shape dials out of range: axes and spine width must be positive, islet density in 0..1"
    );
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, METRES_PER_RAW, dials.metres_per_pixel);
    let n = dials.size as usize;
    let pixels = (n * n) as f64;
    let t_all = Instant::now();
    let mut summary = ForgeSummary::default();
    let mut stage = |name: &'static str, t: Instant, detail: String| {
        progress(&StageReport { stage: name, millis: t.elapsed().as_secs_f64() * 1e3, detail })
    };

    let t = Instant::now();
    let (mut classify, st) = shape::classify_heights(dials, sea, mpr);
    summary.islet_pixels = st.islet_pixels;
    summary.max_elevation_m = st.max_m;
    stage(
        "shape",
        t,
        format!(
            "land {:.1}%, highest {:.0} m above sea (uncurved), islets {} px (threshold {:.3}), shelf {}",
            100.0 * st.land_pixels as f64 / pixels,
            st.max_m,
            st.islet_pixels,
            st.islet_threshold,
            if s.coast_shelf { "on" } else { "off" }
        ),
    );

    let t = Instant::now();
    let curve = HeightCurve::new(&dials.curve, dials.detail.as_ref(), st.max_m);
    curve.assert_monotonic()?;
    let mut render = curve::render_heights(dials, &curve, &classify, sea, mpr);
    let top = render.iter().copied().fold(f32::MIN, f32::max);
    stage(
        "curve",
        t,
        format!(
            "monotone at 24 modulation corners; knots {:.0}/{:.0}/{:.0}/{:.0}/{:.0} m; summit {:.0} m; edge shift ±{:.1} m",
            curve.k[0],
            curve.k[1],
            curve.k[2],
            curve.k[3],
            curve.k[4],
            (top - sea) * mpr,
            curve.edge_amp_m
        ),
    );

    let t = Instant::now();
    let crater = crater::place(dials.seed, &dials.crater, n, &classify, sea, mpr, curve.k[0]);
    if let Some(c) = &crater {
        crater::carve(&mut classify, n, c, sea);
        crater::carve(&mut render, n, c, sea);
    }
    stage(
        "crater",
        t,
        match &crater {
            Some(c) => format!(
                "at ({:.0}, {:.0}), radius {:.1} px, carved inside {:.1} px",
                c.x,
                c.y,
                c.radius_px,
                c.carve_radius_px()
            ),
            None => "none".to_string(),
        },
    );

    let t = Instant::now();
    let mut class = classify_water(dials.size, &classify, sea, mpr);
    let levels = water::render_levels(&class, &render, sea);
    water::settle_lake_beds(&class, &classify, &mut render, &levels, sea);
    for (b, l) in class.bodies.iter_mut().zip(&levels) {
        b.surface_level_raw = *l;
    }
    summary.lakes = class.bodies.iter().filter(|b| b.id > crate::blueprint::OCEAN_BODY_ID).count();
    summary.max_depth_m = class.max_depth_m(&render, mpr);
    let mut lake_levels: Vec<f32> = class.bodies.iter().skip(1).map(|b| (b.surface_level_raw - sea) * mpr).collect();
    lake_levels.sort_by(|a, b| b.total_cmp(a));
    stage(
        "water",
        t,
        format!(
            "{} bodies ({} lakes; highest levels {:?} m), max depth {:.0} m",
            class.bodies.len(),
            summary.lakes,
            lake_levels.iter().take(4).map(|l| l.round() as i32).collect::<Vec<_>>(),
            summary.max_depth_m
        ),
    );

    let erosion_meta = match &dials.erosion {
        Some(e) => {
            let t = Instant::now();
            // Water and shore cells are read-only: lakes keep their beds and levels, coasts stay put.
            let ids = &class.body_ids;
            let locked: Vec<bool> = (0..n * n)
                .map(|i| {
                    let (x, y) = (i / n, i % n);
                    ids[i] != 0
                        || (x > 0 && ids[i - n] != 0)
                        || (x + 1 < n && ids[i + n] != 0)
                        || (y > 0 && ids[i - 1] != 0)
                        || (y + 1 < n && ids[i + 1] != 0)
                })
                .collect();
            let es = erosion::erode(e, dials.seed, n, &mut render, &locked, crater.as_ref(), sea, mpr, mpp)?;
            stage(
                "erosion",
                t,
                format!(
                    "{} droplets, {} steps; eroded {:.0} m³, deposited {:.0} m³; max cell carve {:.2}/{:.2} m, deposit {:.2}/{:.2} m; below-sea pixels {} -> {} (flood guard holds)",
                    es.spawned,
                    es.steps,
                    es.eroded_m3,
                    es.deposited_m3,
                    es.max_cell_carve_m,
                    e.carve_cap_m,
                    es.max_cell_deposit_m,
                    e.deposit_cap_m,
                    es.wet_before,
                    es.wet_after
                ),
            );
            summary.erosion = Some(es);
            Some(e.meta())
        }
        None => None,
    };

    let t = Instant::now();
    let biomes = biomes::assign(dials.seed, n, &classify, &class.body_ids, &curve, sea, mpr);
    let towns = towns::place(n, &render, &class.body_ids, crater.as_ref(), sea, mpr, mpp);
    summary.towns = towns.len();
    stage("biomes", t, format!("10 biomes by height band, temperature and moisture; {} towns", towns.len()));

    let land = render.iter().filter(|&&h| h >= sea).count();
    summary.land_fraction = land as f64 / pixels;
    summary.seam_pixels = class.body_ids.iter().zip(&render).filter(|&(&id, &h)| id == 0 && h < sea).count() as u64;
    summary.millis = t_all.elapsed().as_secs_f64() * 1e3;
    let eroded = summary.erosion.as_ref().map_or("off".to_string(), |e| format!("{:.0} m³", e.eroded_m3));
    stage(
        "summary",
        t_all,
        format!(
            "land {:.1}%, {} bodies, max depth {:.0} m, seam pixels {}, eroded {}, {} towns",
            100.0 * summary.land_fraction,
            class.bodies.len(),
            summary.max_depth_m,
            summary.seam_pixels,
            eroded,
            summary.towns
        ),
    );

    let water = class.into_water();
    let blueprint = Blueprint {
        map_size: dials.size,
        seed: dials.seed,
        params: Params {
            sea_level_raw: sea,
            metres_per_raw: mpr,
            metres_per_pixel: mpp,
            crater_x: crater.map_or(0.0, |c| c.x),
            crater_y: crater.map_or(0.0, |c| c.y),
            crater_radius: crater.map_or(0.0, |c| c.radius_px),
        },
        heights_raw: render,
        biomes,
        towns: Some(towns),
        water: Some(water),
        curve: Some(curve.meta(sea, mpr)),
        detail: curve.detail_meta(),
        erosion: erosion_meta,
        warnings: Vec::new(),
    };
    Ok(Forged { blueprint, classify_raw: classify, crater, curve, summary })
}
