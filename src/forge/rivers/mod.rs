//! Rivers with water in them (SPEC §2): drainage, plan, carve, water — after towns, before roads.
//!
//! 1. **Drainage** on the render map. Outlets are the ocean and the lakes a river cannot leave
//!    (near sea level, or large); other lakes are flats at their level that water crosses. An
//!    8-connected priority flood from the outlets and the map border fills every dry depression
//!    one ulp above its spill (Barnes' heap-and-pit variant) — a routing surface only, the terrain
//!    is not touched by it. A filled depression at least [`ENDO_MIN_DEPTH_M`] deep and
//!    [`RiverDials::endorheic_min_area`] large reverts to the real surface (a dry terminal basin:
//!    flow into it ends there and no river is planned into it). D8 directions on the routing
//!    surface, then flow accumulation and longest flow paths in Kahn (topological) order.
//! 2. **Plan.** Outlets into the ocean body ranked by drained area, the top
//!    [`RiverDials::trunks`] a minimum distance apart become trunks; outlets into lakes become
//!    lake rivers ([`RiverDials::lake_rivers`]). Each main stem is traced upstream along the
//!    longest flow path; below its mountain exit (where the stem stops sustaining [`EXIT_GRADE`])
//!    it is re-routed to its body by a deterministic least-cost path whose cost is the elevation
//!    above sea ("lowground": it meanders through low ground). Tributaries branch off the upland
//!    stems down to [`RiverDials::tributary_min_area`]. Stems and routes keep clear of the towns'
//!    grounds and the crater core.
//! 3. **Carve** each course in plan order: a parabolic channel with a smoothstep shoulder (which
//!    never lowers a column by more than the channel's own depth, so a riser is not cut back),
//!    width and depth growing with the drained area; the bed follows the routing surface (so a pit on
//!    the way stays as a pool instead of a canyon being cut through its rim), is monotone
//!    non-increasing toward the mouth and held at or above sea + [`RiverDials::sea_margin_m`]
//!    (and above what the river flows into). Water and below-sea pixels are read-only; the crater
//!    core and the towns' grounds are left alone. A course that reaches the channel of a river
//!    carved before it ends there (a confluence).
//! 4. **Water.** Each river is a fresh water body (type 1) whose `WSRF` level descends
//!    monotonically from source to mouth, at least [`RiverDials::min_depth_m`] above its bed, and
//!    never below the level of a lake it crosses or of what it flows into. Its pixels are the
//!    channel pixels under that level; `BIOM` marks them as lake water.
//! 5. **Guards** ([`check`]) on every run; a violation is an internal failure and nothing is written.
//!
//! Everything is sequential, scan-ordered and tie-broken by pixel index: the result is the same
//! on any thread count.

// Grid code: one pixel index reads several parallel per-pixel arrays, and neighbour k reads the
// direction tables; index loops say that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

mod carve;
mod drainage;
mod guards;
mod plan;

pub use guards::RiverGuard;

use carve::*;
use drainage::*;
use guards::*;
use plan::*;

use super::crater::CARVE_FACTOR;
use crate::blueprint::{
    Biome, OCEAN_BODY_ID, River, RiverDialsMeta, RiverNetwork, RiverPoint, Salinity, Water, WaterBody, WaterType,
    water_level,
};
use std::collections::{HashMap, VecDeque};

// Neighbour order is fixed (`grid`): it is the deterministic tie-break everywhere below.
use super::grid::{Connectivity, DIST, DX, DY, LeastCost, Step, flood_region, is_border, neighbours8, priority_flood};

/// A filled depression at least this deep (and large) is a terminal basin, not a pit.
pub const ENDO_MIN_DEPTH_M: f32 = 2.0;
/// Mountain exit: the furthest-downstream stem point whose upstream window still climbs this
/// steeply (metres per metre).
pub const EXIT_GRADE: f32 = 0.04;
/// Lowground routing: cost per pixel of distance at sea level, per metre of elevation, and per
/// metre climbed.
const ROUTE_BASE: f32 = 0.05;
const ROUTE_PER_M_ELEVATION: f32 = 1.0;
const ROUTE_PER_M_UPHILL: f32 = 50.0;
/// Least bed descent, metres per metre of course.
const MIN_BED_SLOPE: f32 = 0.0005;
/// Drained area (km²) at which a river has its reference width and depth.
const REFERENCE_AREA_KM2: f32 = 1.0;
/// Channel depth and half-width at the head and per unit of `sqrt(area / reference)`.
const DEPTH_HEAD_M: f32 = 1.0;
const DEPTH_PER_SIZE_M: f32 = 3.0;
const HALF_WIDTH_HEAD_M: f32 = 4.0;
const HALF_WIDTH_PER_SIZE_M: f32 = 12.0;
/// The water stands this share of the channel depth above the bed (at least the minimum depth).
const WATER_SHARE: f32 = 0.6;
/// Runoff that turns drained area into the discharge `RIVR` records: 6.3e-8 m/s, about 2 m of rain
/// a year leaving a humid island as streamflow.
const RUNOFF_M_PER_S: f64 = 6.3e-8;

/// The river dials: `RIVR`'s record of them is the one field list, so the stage runs on the record
/// itself (areas and distances are fractions of the map); [`RiverDials::default`] gives the
/// defaults.
pub type RiverDials = RiverDialsMeta;

impl Default for RiverDialsMeta {
    fn default() -> Self {
        Self {
            trunks: 8,
            lake_rivers: 4,
            tributaries: 3,
            main_min_area: 0.002,
            tributary_min_area: 0.0003,
            stem_min_area: 0.000002,
            endorheic_min_area: 0.004,
            mouth_separation: 0.06,
            min_length_m: 600.0,
            width_scale: 1.0,
            depth_scale: 1.0,
            min_depth_m: 0.4,
            sea_margin_m: 0.2,
        }
    }
}

/// What the river stage reads besides the maps.
pub type Inputs<'a> = super::Site<'a>;

/// Figures of one run, for the progress line and the summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RiverStats {
    pub rivers: usize,
    pub tributaries: usize,
    pub total_length_m: f64,
    pub longest_m: f64,
    pub wet_pixels: u64,
    pub carved_pixels: u64,
    pub max_cut_m: f32,
    pub depressions_filled: u64,
    pub terminal_basins: u64,
    pub drainage_ms: f64,
    pub route_ms: f64,
    pub carve_ms: f64,
}

/// A planned course before carving: pixel cells from head to mouth.
struct Plan {
    cells: Vec<usize>,
    /// Drained area (pixels) at each cell, from the drainage analysis.
    area: Vec<u32>,
    /// The routing surface at each cell: where a course crosses a pit, the level the pit fills to.
    ground: Vec<f32>,
    order: u8,
    /// The body the course flows into (ocean or lake); tributaries get theirs from the junction.
    mouth_body: u16,
    /// Index of the parent plan (tributaries).
    parent: Option<usize>,
}

/// A carved river: its course and per-point profile.
struct Carved {
    cells: Vec<usize>,
    order: u8,
    mouth_body: u16,
    bed: Vec<f32>,
    surface: Vec<f32>,
    half_width_px: Vec<f32>,
    area_px: Vec<u32>,
    /// The level of what it flows into where it meets it (the sea, a lake, the parent river).
    mouth_level: f32,
    body_id: u16,
}

fn elapsed_ms(t: std::time::Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// What every step after the routing surface reads: the dials, the site, the `WBTB` levels by
/// body id, the outlets (water a river cannot leave) and the protected ground.
struct Stage<'a> {
    d: &'a RiverDials,
    inp: &'a Inputs<'a>,
    levels: Vec<f32>,
    outlet: Vec<bool>,
    protected: Vec<bool>,
}

impl Stage<'_> {
    /// The level of body `id`, sea level where it has none.
    fn level_of(&self, id: u16) -> f32 {
        self.levels.get(id as usize).copied().filter(|l| l.is_finite()).unwrap_or(self.inp.sea)
    }
}

/// Which carved river owns each channel pixel (its index + 1, 0 for none), at which point of its
/// course, and how far from that point (pixels).
struct Channels {
    owner: Vec<u32>,
    point: Vec<u32>,
    r: Vec<f32>,
    /// Every pixel the carve lowered, with its height before the stage: the log's carved pixels
    /// and deepest cut are the map's, however many channel points cut one pixel.
    cut_from: HashMap<u32, f32>,
}

/// Each river's wet pixels: their count and the sums of their X and Y (for the centroid).
struct Wet {
    pixels: Vec<u64>,
    sums: Vec<(f64, f64)>,
}

/// Run the whole stage on the render map, the water and the biomes (all X-outer / Y-inner).
/// Returns the network and the figures; a tripped guard is an error (nothing may be written).
pub fn run(
    d: &RiverDials,
    inp: &Inputs<'_>,
    render: &mut [f32],
    water: &mut Water,
    biomes: &mut [u8],
) -> anyhow::Result<(RiverNetwork, RiverStats)> {
    let mut stats = RiverStats::default();
    let before = Snapshot::take(inp, render, water);
    let protected = protected_mask(inp);

    let t = std::time::Instant::now();
    let levels = body_levels(water);
    let (outlet, route_h) = routing_surface(d, inp, render, water, &levels);
    let st = Stage { d, inp, levels, outlet, protected };
    let drain = drainage(&st, route_h, &water.body_ids, &mut stats);
    stats.drainage_ms = elapsed_ms(t);

    let t = std::time::Instant::now();
    let plans = plan(&st, render, &water.body_ids, &drain);
    stats.route_ms = elapsed_ms(t);
    drop(drain);

    let t = std::time::Instant::now();
    let (carved, channels) = carve_all(&st, render, water, &plans, &mut stats);
    let wet = wet_channels(&st, render, water, biomes, &carved, channels);
    let rivers = river_bodies(inp, water, &carved, &wet, &mut stats);
    stats.carve_ms = elapsed_ms(t);
    stats.rivers = rivers.len();
    stats.tributaries = rivers.iter().filter(|r| r.order > 1).count();
    // A fold from +0.0: `Sum` of no floats is −0.0, which a log line prints as "-0.0 km".
    stats.total_length_m = rivers.iter().map(|r| r.length_m as f64).fold(0.0, |a, b| a + b);
    stats.longest_m = rivers.iter().map(|r| r.length_m as f64).fold(0.0, f64::max);
    let network = RiverNetwork { dials: *d, rivers };
    check(inp, &before, render, water, biomes, &network, &carved)?;
    Ok((network, stats))
}

/// Profile and carve each plan in order (a tributary only after its parent was carved); river
/// ids follow the bodies already there (never the ocean's id, even with an empty table).
fn carve_all(
    st: &Stage<'_>,
    render: &mut [f32],
    water: &Water,
    plans: &[Plan],
    stats: &mut RiverStats,
) -> (Vec<Carved>, Channels) {
    let n = st.inp.n;
    let last_id = water.bodies.as_ref().and_then(|b| b.iter().map(|b| b.id).max()).unwrap_or(OCEAN_BODY_ID);
    let next_id = last_id.max(OCEAN_BODY_ID).saturating_add(1);
    let mut ch = Channels {
        owner: vec![0u32; n * n],
        point: vec![0u32; n * n],
        r: vec![f32::INFINITY; n * n],
        cut_from: HashMap::new(),
    };
    let mut carved: Vec<Carved> = Vec::new();
    let mut plan_to_carved: Vec<Option<usize>> = vec![None; plans.len()];
    for (pi, p) in plans.iter().enumerate() {
        if p.parent.is_some_and(|pp| plan_to_carved[pp].is_none()) {
            continue; // the parent was dropped
        }
        let Some(mut c) = profile(st, &water.body_ids, p, &carved, &ch) else {
            continue;
        };
        if next_id as usize + carved.len() >= u16::MAX as usize {
            break;
        }
        c.body_id = next_id + carved.len() as u16;
        let k = carved.len() as u32 + 1;
        carve(st, render, &water.body_ids, &c, k, &mut ch);
        plan_to_carved[pi] = Some(carved.len());
        carved.push(c);
    }
    stats.carved_pixels = ch.cut_from.len() as u64;
    stats.max_cut_m = ch.cut_from.iter().map(|(&j, &h)| (h - render[j as usize]) * st.inp.mpr).fold(0.0, f32::max);
    (carved, ch)
}

/// Water: each channel pixel under its river's level becomes that river's (`WBID`, `WSRF`,
/// `BIOM`); water, protected ground and below-sea pixels are never a river's.
fn wet_channels(
    st: &Stage<'_>,
    render: &[f32],
    water: &mut Water,
    biomes: &mut [u8],
    carved: &[Carved],
    ch: Channels,
) -> Wet {
    let n = st.inp.n;
    let Channels { owner, point, r, cut_from } = ch;
    drop((r, cut_from));
    let surface = water.surface.get_or_insert_with(|| vec![water_level::NO_WATER; n * n]);
    let mut wet = Wet { pixels: vec![0u64; carved.len()], sums: vec![(0f64, 0f64); carved.len()] };
    for i in 0..n * n {
        let k = owner[i];
        if k == 0 || water.body_ids[i] != 0 || st.protected[i] || render[i] < st.inp.sea {
            continue;
        }
        let c = &carved[k as usize - 1];
        let level = c.surface[point[i] as usize];
        if render[i] < level {
            water.body_ids[i] = c.body_id;
            surface[i] = water_level::encode(level);
            biomes[i] = Biome::Lake as u8;
            wet.pixels[k as usize - 1] += 1;
            wet.sums[k as usize - 1].0 += (i / n) as f64;
            wet.sums[k as usize - 1].1 += (i % n) as f64;
        }
    }
    wet
}

/// What each carved river flows into, as (body, level). Every course point on dry ground is
/// wetted by its own river, so a river without a wet pixel should not occur; if one does, it gets
/// no body and what flowed into it flows into what it flowed into (its record's mouth is
/// remapped), so no mouth ever names a missing body.
fn mouths(carved: &[Carved], pixels: &[u64]) -> Vec<(u16, f32)> {
    let mut mouth_of: Vec<(u16, f32)> = carved.iter().map(|c| (c.mouth_body, c.mouth_level)).collect();
    for k in 0..carved.len() {
        let (mut m, mut l) = mouth_of[k];
        while let Some(j) = carved.iter().position(|c| c.body_id == m).filter(|&j| pixels[j] == 0) {
            (m, l) = mouth_of[j];
        }
        mouth_of[k] = (m, l);
    }
    mouth_of
}

/// The `WBTB` body and the `RIVR` record of every river with water in it.
fn river_bodies(
    inp: &Inputs<'_>,
    water: &mut Water,
    carved: &[Carved],
    wet: &Wet,
    stats: &mut RiverStats,
) -> Vec<River> {
    let mouth_of = mouths(carved, &wet.pixels);
    let bodies = water.bodies.get_or_insert_with(Vec::new);
    let mut rivers = Vec::new();
    for (k, c) in carved.iter().enumerate() {
        if wet.pixels[k] == 0 {
            continue;
        }
        let px = wet.pixels[k] as f64;
        bodies.push(WaterBody {
            id: c.body_id,
            kind: WaterType::Lake,
            salinity: Salinity::Fresh,
            surface_level_raw: mouth_of[k].1,
            pixel_count: wet.pixels[k] as i32,
            centroid_x: (wet.sums[k].0 / px) as f32,
            centroid_y: (wet.sums[k].1 / px) as f32,
        });
        stats.wet_pixels += wet.pixels[k];
        let mut record = to_record(inp, c);
        record.mouth_body_id = mouth_of[k].0;
        rivers.push(record);
    }
    rivers
}

/// `WBTB` levels indexed by body id (NaN where there is none).
fn body_levels(water: &Water) -> Vec<f32> {
    let bodies = water.bodies.as_deref().unwrap_or(&[]);
    let max = bodies.iter().map(|b| b.id as usize).max().unwrap_or(0);
    let mut t = vec![f32::NAN; max + 1];
    for b in bodies {
        t[b.id as usize] = b.surface_level_raw;
    }
    t
}

/// Where flow ends and what it flows over. Outlets are the ocean and the lakes a river cannot
/// leave: those standing within a river's least bed and depth of sea level (water leaving them
/// would have to climb) and those at least [`RiverDials::endorheic_min_area`] large. Other lakes
/// are flats at their level that rivers pass through. Everything else is the render height.
fn routing_surface(
    d: &RiverDials,
    inp: &Inputs<'_>,
    render: &[f32],
    water: &Water,
    levels: &[f32],
) -> (Vec<bool>, Vec<f32>) {
    let n = inp.n;
    let min_area = (d.endorheic_min_area as f64 * (n * n) as f64) as i32;
    let lowest_exit = inp.sea + (d.sea_margin_m + d.min_depth_m + 0.5) / inp.mpr;
    let mut terminal = vec![true; levels.len()];
    for b in water.bodies.as_deref().unwrap_or(&[]) {
        terminal[b.id as usize] =
            b.kind == WaterType::Ocean || b.surface_level_raw <= lowest_exit || b.pixel_count >= min_area;
    }
    let mut outlet = vec![false; n * n];
    let mut h = render.to_vec();
    for i in 0..n * n {
        let id = water.body_ids[i] as usize;
        if id == 0 {
            continue;
        }
        let level = levels.get(id).copied().filter(|l| l.is_finite()).unwrap_or(render[i]);
        if terminal.get(id).copied().unwrap_or(true) {
            outlet[i] = true;
            h[i] = level;
        } else {
            h[i] = level.max(render[i]);
        }
    }
    (outlet, h)
}

/// Pixels no river may wet, carve or cross: the crater core and the towns' grounds.
fn protected_mask(inp: &Inputs<'_>) -> Vec<bool> {
    let n = inp.n;
    let mut m = vec![false; n * n];
    let town_r = town_clearance_px(n);
    let mut disc = |cx: f32, cy: f32, r: f32| {
        let (x0, x1) = (((cx - r).floor().max(0.0)) as usize, ((cx + r).ceil() as usize).min(n - 1));
        let (y0, y1) = (((cy - r).floor().max(0.0)) as usize, ((cy + r).ceil() as usize).min(n - 1));
        for x in x0..=x1 {
            for y in y0..=y1 {
                let (dx, dy) = (x as f32 - cx, y as f32 - cy);
                if dx * dx + dy * dy <= r * r {
                    m[x * n + y] = true;
                }
            }
        }
    };
    for t in inp.towns {
        disc(t.x, t.y, town_r);
    }
    // The crater core from the very pixel list the guard compares.
    for i in core_pixels(inp) {
        m[i] = true;
    }
    m
}

/// Radius kept dry around a town (pixels).
fn town_clearance_px(n: usize) -> f32 {
    (n as f32 / 128.0).max(3.0)
}
