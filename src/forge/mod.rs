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
pub mod dials;
pub mod erosion;
mod grid;
pub mod rivers;
pub mod roads;
mod shape;
mod snapshots;
pub mod towns;
mod water;

use crate::blueprint::{Blueprint, ErosionMeta, Params, RiverNetwork, RoadNetwork, Town, Water};
use std::time::Instant;

pub use crater::{Crater, CraterDials};
pub use curve::{CurveDials, DetailDials, HeightCurve};
pub use erosion::{ErosionDials, ErosionStats};
pub use rivers::{RiverDials, RiverGuard, RiverStats};
pub use roads::{RoadDials, RoadStats};
pub use shape::{ShapeDials, coast_shelf, smooth_abs};
pub use snapshots::snapshots;
pub use towns::TownDials;
pub use water::{Classification, MIN_LAKE_DEPTH_M, MIN_LAKE_PIXELS, classify_water, spill_levels};

/// The forge writes the blueprint format's default scale (owned by [`crate::blueprint`]).
pub use crate::blueprint::{DEFAULT_METRES_PER_RAW as METRES_PER_RAW, DEFAULT_SEA_LEVEL_RAW as SEA_LEVEL_RAW};

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
    /// Rivers with water in them, after towns; `None` = off (`isla forge --rivers off`).
    pub rivers: Option<RiverDials>,
    /// Where the towns go (after the biomes).
    pub towns: TownDials,
    /// The road network between the towns, after rivers; `None` = off (`isla forge --roads off`).
    pub roads: Option<RoadDials>,
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
            rivers: Some(RiverDials::default()),
            towns: TownDials::default(),
            roads: Some(RoadDials::default()),
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
    pub rivers: Option<RiverStats>,
    pub roads: Option<RoadStats>,
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

/// Why a forge run produced no island: dials the caller got wrong (bad input), or a guard the
/// generator itself tripped (an internal failure: monotone curve, flood guard, writer checks).
#[derive(Debug)]
pub enum ForgeError {
    BadDials(String),
    Internal(anyhow::Error),
}

impl std::fmt::Display for ForgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ForgeError::BadDials(m) => write!(f, "bad forge dials: {m}"),
            ForgeError::Internal(e) => write!(f, "internal failure in the forge: {e:#}"),
        }
    }
}

impl std::error::Error for ForgeError {}

impl From<anyhow::Error> for ForgeError {
    fn from(e: anyhow::Error) -> Self {
        ForgeError::Internal(e)
    }
}

macro_rules! ensure_dial {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(ForgeError::BadDials(format!($($msg)+)));
        }
    };
}

/// What the river and road stages read besides the maps: the map's side, sea level, raw-to-metre
/// and pixel-to-metre scales, the towns and the crater.
#[derive(Debug, Clone, Copy)]
pub struct Site<'a> {
    pub n: usize,
    pub sea: f32,
    pub mpr: f32,
    pub mpp: f32,
    pub towns: &'a [Town],
    pub crater: Option<&'a Crater>,
}

/// Generate an island. `progress` receives one report per finished stage.
pub fn forge(dials: &ForgeDials, progress: impl FnMut(&StageReport)) -> Result<Blueprint, ForgeError> {
    Ok(forge_full(dials, progress)?.blueprint)
}

/// Generate an island, keeping the classify map and the run's figures.
pub fn forge_full(dials: &ForgeDials, mut progress: impl FnMut(&StageReport)) -> Result<Forged, ForgeError> {
    check_dials(dials)?;
    let t_all = Instant::now();
    let mut summary = ForgeSummary::default();
    let mut stage = |name: &'static str, t: Instant, detail: String| {
        progress(&StageReport { stage: name, millis: t.elapsed().as_secs_f64() * 1e3, detail })
    };
    let mut terrain = terrain_stages(dials, &mut summary, &mut stage)?;
    let features = feature_stages(dials, &mut terrain, &mut summary, &mut stage)?;
    let pixels = (dials.size as f64) * (dials.size as f64);
    let detail = summary_stage(&terrain.water, &terrain.render, pixels, t_all, &mut summary);
    stage("summary", t_all, detail);
    Ok(assemble(dials, terrain, features, summary))
}

/// A stage's report: its name, when it started and its line.
type Report<'r> = dyn FnMut(&'static str, Instant, String) + 'r;

/// What the map stages make: both height maps, the curve, the crater, the water sections of the
/// classification and the `EROS` record when erosion ran. The rivers change the render map and
/// the water in place.
struct Terrain {
    classify: Vec<f32>,
    render: Vec<f32>,
    curve: HeightCurve,
    crater: Option<Crater>,
    water: Water,
    erosion: Option<ErosionMeta>,
}

/// What the stages on the finished terrain make: the biomes, the towns, and the river and road
/// networks when they ran.
struct Features {
    biomes: Vec<u8>,
    towns: Vec<Town>,
    rivers: Option<RiverNetwork>,
    roads: Option<RoadNetwork>,
}

/// The map stages in order: shape, curve, crater, water, and erosion when asked for.
fn terrain_stages(
    dials: &ForgeDials,
    summary: &mut ForgeSummary,
    stage: &mut Report<'_>,
) -> Result<Terrain, ForgeError> {
    let pixels = (dials.size as f64) * (dials.size as f64);
    let t = Instant::now();
    let (mut classify, max_m, detail) = shape_stage(dials, pixels, summary);
    stage("shape", t, detail);

    let t = Instant::now();
    let (curve, mut render, detail) = curve_stage(dials, &classify, max_m)?;
    stage("curve", t, detail);

    let t = Instant::now();
    let (crater, detail) = crater_stage(dials, &curve, &mut classify, &mut render);
    stage("crater", t, detail);

    let t = Instant::now();
    let (class, detail) = water_stage(dials, &classify, &mut render, summary);
    stage("water", t, detail);

    let erosion = match &dials.erosion {
        Some(e) => {
            let t = Instant::now();
            let (es, detail) = erosion_stage(dials, e, &class.body_ids, &mut render, crater.as_ref())?;
            stage("erosion", t, detail);
            summary.erosion = Some(es);
            Some(ErosionMeta::from(e))
        }
        None => None,
    };
    Ok(Terrain { classify, render, curve, crater, water: class.into_water(), erosion })
}

/// The stages on the finished terrain: biomes and towns, then rivers and roads when asked for.
fn feature_stages(
    dials: &ForgeDials,
    terrain: &mut Terrain,
    summary: &mut ForgeSummary,
    stage: &mut Report<'_>,
) -> Result<Features, ForgeError> {
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, METRES_PER_RAW, dials.metres_per_pixel);
    let (render, water, crater) = (&mut terrain.render, &mut terrain.water, terrain.crater.as_ref());
    let t = Instant::now();
    let (mut biomes, towns, detail) =
        biomes_stage(dials, &terrain.classify, render, &water.body_ids, &terrain.curve, crater, summary);
    stage("biomes", t, detail);

    let site = Site { n: dials.size as usize, sea, mpr, mpp, towns: &towns, crater };
    let rivers = match &dials.rivers {
        Some(r) => {
            let t = Instant::now();
            let (net, rs) = rivers::run(r, &site, render, water, &mut biomes)?;
            stage("rivers", t, rivers_detail(&rs));
            summary.rivers = Some(rs);
            Some(net)
        }
        None => None,
    };

    let roads = match &dials.roads {
        Some(road_dials) => {
            let t = Instant::now();
            let first_river_id = rivers.as_ref().map_or(u16::MAX, RiverNetwork::first_body_id);
            let inp = roads::Inputs { site, dials: road_dials, first_river_id };
            let (net, rs) = roads::run(&inp, render, water)?;
            stage("roads", t, roads_detail(&rs, &towns));
            summary.roads = Some(rs);
            Some(net)
        }
        None => None,
    };
    Ok(Features { biomes, towns, rivers, roads })
}

/// The blueprint of a forged island, with what it does not keep.
fn assemble(dials: &ForgeDials, terrain: Terrain, features: Features, summary: ForgeSummary) -> Forged {
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, METRES_PER_RAW, dials.metres_per_pixel);
    let Terrain { classify, render, curve, crater, water, erosion } = terrain;
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
        biomes: features.biomes,
        towns: Some(features.towns),
        water: Some(water),
        curve: Some(curve.meta(sea, mpr)),
        detail: curve.detail_meta(),
        erosion,
        rivers: features.rivers,
        roads: features.roads,
        dials: Some(dials::record(dials)),
        warnings: Vec::new(),
    };
    Forged { blueprint, classify_raw: classify, crater, curve, summary }
}

/// Refuse dials the generator cannot use (`BadDials`, not an internal failure), before any stage
/// runs: each dial in its range (`dials::DIALS`), the knots rising, then the shape's own rules.
fn check_dials(dials: &ForgeDials) -> Result<(), ForgeError> {
    dials::check(dials).map_err(|e| ForgeError::BadDials(e.0))?;
    ensure_dial!(
        (crate::blueprint::MIN_MAP_SIZE..=crate::blueprint::MAX_MAP_SIZE).contains(&dials.size),
        "map size {} is outside 32..=16384",
        dials.size
    );
    ensure_dial!(
        dials.metres_per_pixel.is_finite() && dials.metres_per_pixel > 0.0,
        "metres per pixel must be positive"
    );
    let s = &dials.shape;
    ensure_dial!(
        s.axis_x > 0.0 && s.axis_y > 0.0 && s.spine_width > 0.0 && (0.0..=1.0).contains(&s.islet_density),
        "shape dials out of range: axes and spine width must be positive, islet density in 0..1"
    );
    Ok(())
}

/// Stage `shape`: the uncurved classify map, its highest elevation (for the curve) and the report line.
fn shape_stage(dials: &ForgeDials, pixels: f64, summary: &mut ForgeSummary) -> (Vec<f32>, f32, String) {
    let (classify, st) = shape::classify_heights(dials, SEA_LEVEL_RAW, METRES_PER_RAW);
    summary.islet_pixels = st.islet_pixels;
    summary.max_elevation_m = st.max_m;
    let detail = format!(
        "land {:.1}%, highest {:.0} m above sea (uncurved), islets {} px (threshold {:.3}), shelf {}",
        100.0 * st.land_pixels as f64 / pixels,
        st.max_m,
        st.islet_pixels,
        st.islet_threshold,
        if dials.shape.coast_shelf { "on" } else { "off" }
    );
    (classify, st.max_m, detail)
}

/// Stage `curve`: the height curve (non-monotone = bad dials), the render map and the report line.
fn curve_stage(
    dials: &ForgeDials,
    classify: &[f32],
    max_m: f32,
) -> Result<(HeightCurve, Vec<f32>, String), ForgeError> {
    let (sea, mpr) = (SEA_LEVEL_RAW, METRES_PER_RAW);
    let curve = HeightCurve::new(&dials.curve, dials.detail.as_ref(), max_m);
    // The curve is built from the dials alone: a non-monotone one is a dial the caller got wrong.
    curve.assert_monotonic().map_err(|e| ForgeError::BadDials(format!("{e:#}")))?;
    let render = curve::render_heights(dials, &curve, classify, sea, mpr);
    let top = render.iter().copied().fold(f32::MIN, f32::max);
    let detail = format!(
        "monotone at 24 modulation corners; knots {:.0}/{:.0}/{:.0}/{:.0}/{:.0} m; summit {:.0} m; edge shift ±{:.1} m",
        curve.k[0],
        curve.k[1],
        curve.k[2],
        curve.k[3],
        curve.k[4],
        (top - sea) * mpr,
        curve.edge_amp_m
    );
    Ok((curve, render, detail))
}

/// Stage `crater`: place the crater and carve it into both maps in place; the crater and the report line.
fn crater_stage(
    dials: &ForgeDials,
    curve: &HeightCurve,
    classify: &mut [f32],
    render: &mut [f32],
) -> (Option<Crater>, String) {
    let (sea, mpr) = (SEA_LEVEL_RAW, METRES_PER_RAW);
    let n = dials.size as usize;
    let crater = crater::place(dials.seed, &dials.crater, n, classify, sea, mpr, curve.k[0]);
    if let Some(c) = &crater {
        crater::carve(classify, n, c, sea);
        crater::carve(render, n, c, sea);
    }
    let detail = match &crater {
        Some(c) => format!(
            "at ({:.0}, {:.0}), radius {:.1} px, carved inside {:.1} px",
            c.x,
            c.y,
            c.radius_px,
            c.carve_radius_px()
        ),
        None => "none".to_string(),
    };
    (crater, detail)
}

/// Stage `water`: classify the water, settle the lake beds of the render map; the classification and report line.
fn water_stage(
    dials: &ForgeDials,
    classify: &[f32],
    render: &mut [f32],
    summary: &mut ForgeSummary,
) -> (Classification, String) {
    let (sea, mpr) = (SEA_LEVEL_RAW, METRES_PER_RAW);
    let mut class = classify_water(dials.size, classify, sea, mpr);
    let levels = water::render_levels(&class, render, sea);
    water::settle_lake_beds(&class, classify, render, &levels, sea);
    for (b, l) in class.bodies.iter_mut().zip(&levels) {
        b.surface_level_raw = *l;
    }
    summary.lakes = class.bodies.iter().filter(|b| b.id > crate::blueprint::OCEAN_BODY_ID).count();
    summary.max_depth_m = class.max_depth_m(render, mpr);
    let mut lake_levels: Vec<f32> = class.bodies.iter().skip(1).map(|b| (b.surface_level_raw - sea) * mpr).collect();
    lake_levels.sort_by(|a, b| b.total_cmp(a));
    let detail = format!(
        "{} bodies ({} lakes; highest levels {:?} m), max depth {:.0} m",
        class.bodies.len(),
        summary.lakes,
        lake_levels.iter().take(4).map(|l| l.round() as i32).collect::<Vec<_>>(),
        summary.max_depth_m
    );
    (class, detail)
}

/// Stage `erosion` (when asked for): droplets on the render map, water and shore locked; figures and report line.
fn erosion_stage(
    dials: &ForgeDials,
    e: &ErosionDials,
    ids: &[u16],
    render: &mut [f32],
    crater: Option<&Crater>,
) -> Result<(ErosionStats, String), ForgeError> {
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, METRES_PER_RAW, dials.metres_per_pixel);
    let n = dials.size as usize;
    // Water and shore cells are read-only: lakes keep their beds and levels, coasts stay put.
    let locked: Vec<bool> = (0..n * n).map(|i| ids[i] != 0 || grid::neighbours4(i, n).any(|j| ids[j] != 0)).collect();
    let es = erosion::erode(e, dials.seed, n, render, &locked, crater, sea, mpr, mpp)?;
    let detail = format!(
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
    );
    Ok((es, detail))
}

/// Stage `biomes`: the biome grid (classify map) and the towns (final render map), with the report line.
fn biomes_stage(
    dials: &ForgeDials,
    classify: &[f32],
    render: &[f32],
    body_ids: &[u16],
    curve: &HeightCurve,
    crater: Option<&Crater>,
    summary: &mut ForgeSummary,
) -> (Vec<u8>, Vec<crate::blueprint::Town>, String) {
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, METRES_PER_RAW, dials.metres_per_pixel);
    let n = dials.size as usize;
    let biomes = biomes::assign(dials.seed, n, classify, body_ids, curve, sea, mpr);
    let towns = towns::place(&dials.towns, n, render, body_ids, crater, sea, mpr, mpp);
    summary.towns = towns.len();
    let detail = format!("10 biomes by height band, temperature and moisture; {} towns", towns.len());
    (biomes, towns, detail)
}

/// The `rivers` report line.
fn rivers_detail(rs: &RiverStats) -> String {
    format!(
        "{} rivers ({} tributaries), {:.1} km in all, longest {:.1} km; {} wet px, carved {} px (max cut {:.1} m); {} depressions filled, {} terminal basins; drainage {:.0} ms, plan {:.0} ms, carve {:.0} ms; guards hold",
        rs.rivers,
        rs.tributaries,
        rs.total_length_m / 1e3,
        rs.longest_m / 1e3,
        rs.wet_pixels,
        rs.carved_pixels,
        rs.max_cut_m,
        rs.depressions_filled,
        rs.terminal_basins,
        rs.drainage_ms,
        rs.route_ms,
        rs.carve_ms
    )
}

/// The `roads` report line.
fn roads_detail(rs: &RoadStats, towns: &[crate::blueprint::Town]) -> String {
    let unreachable = if rs.unreachable.is_empty() {
        "every town joined".to_string()
    } else {
        let at: Vec<String> =
            rs.unreachable.iter().map(|&i| format!("({:.0}, {:.0})", towns[i].x, towns[i].y)).collect();
        format!("{} towns unreachable: {}", rs.unreachable.len(), at.join(", "))
    };
    format!(
        "{} roads ({} highways), {:.1} km in all, {} bridges ({:.0} m); {}; {} cells searched, {} finer grids; guards hold",
        rs.roads,
        rs.highways,
        rs.total_length_m / 1e3,
        rs.bridges,
        rs.bridge_length_m,
        unreachable,
        rs.cells_expanded,
        rs.refined_grids
    )
}

/// The closing `summary` report: fills the whole-run figures of `summary` and returns the report line.
fn summary_stage(
    water: &crate::blueprint::Water,
    render: &[f32],
    pixels: f64,
    t_all: Instant,
    summary: &mut ForgeSummary,
) -> String {
    let sea = SEA_LEVEL_RAW;
    let land = render.iter().filter(|&&h| h >= sea).count();
    summary.land_fraction = land as f64 / pixels;
    summary.seam_pixels = water.body_ids.iter().zip(render).filter(|&(&id, &h)| id == 0 && h < sea).count() as u64;
    summary.millis = t_all.elapsed().as_secs_f64() * 1e3;
    let eroded = summary.erosion.as_ref().map_or("off".to_string(), |e| format!("{:.0} m³", e.eroded_m3));
    let rivers = summary
        .rivers
        .as_ref()
        .map_or("rivers off".to_string(), |r| format!("{} rivers ({:.1} km)", r.rivers, r.total_length_m / 1e3));
    let roads = summary.roads.as_ref().map_or("roads off".to_string(), |r| {
        format!("{} roads ({:.1} km, {} bridges)", r.roads, r.total_length_m / 1e3, r.bridges)
    });
    format!(
        "land {:.1}%, {} bodies, max depth {:.0} m, seam pixels {}, eroded {}, {} towns, {}, {}",
        100.0 * summary.land_fraction,
        water.bodies.as_ref().map_or(0, |b| b.len()),
        summary.max_depth_m,
        summary.seam_pixels,
        eroded,
        summary.towns,
        rivers,
        roads
    )
}
