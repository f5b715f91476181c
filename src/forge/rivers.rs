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
//! 3. **Carve** each course in plan order: a parabolic channel with a smoothstep shoulder, width
//!    and depth growing with the drained area; the bed follows the routing surface (so a pit on
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

use super::crater::CARVE_FACTOR;
use crate::blueprint::{
    Biome, OCEAN_BODY_ID, River, RiverDialsMeta, RiverNetwork, RiverPoint, Salinity, Water, WaterBody, WaterType,
    water_level,
};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

// Neighbour order is fixed (`grid`): it is the deterministic tie-break everywhere below.
use super::grid::{DIST, DX, DY, neighbour};

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

/// The river dials. The island's shape scales with the map, so areas and distances are given as
/// fractions of the map (area / N², distance / N); [`RiverDials::new`] gives the defaults.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RiverDials {
    /// Most trunks to the ocean.
    pub trunks: u32,
    /// Most rivers ending in a lake.
    pub lake_rivers: u32,
    /// Most tributaries per main river.
    pub tributaries: u32,
    /// Least drained area of a main stem's outlet, fraction of the map.
    pub main_min_area: f32,
    /// Least drained area of a tributary, fraction of the map.
    pub tributary_min_area: f32,
    /// A stem is traced upstream while the inflow drains at least this (fraction of the map).
    pub stem_min_area: f32,
    /// Least area of a dry terminal basin, fraction of the map.
    pub endorheic_min_area: f32,
    /// Least distance between two trunk mouths, fraction of the map's side.
    pub mouth_separation: f32,
    /// Shortest river kept (metres); tributaries need half of it.
    pub min_length_m: f32,
    pub width_scale: f32,
    pub depth_scale: f32,
    /// Least water depth over the bed (metres).
    pub min_depth_m: f32,
    /// The bed stays this far above sea (metres).
    pub sea_margin_m: f32,
}

impl Default for RiverDials {
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

impl RiverDials {
    /// `RIVR`'s record of the dials as applied.
    pub fn meta(&self) -> RiverDialsMeta {
        RiverDialsMeta {
            trunks: self.trunks.min(u16::MAX as u32) as u16,
            lake_rivers: self.lake_rivers.min(u16::MAX as u32) as u16,
            tributaries: self.tributaries.min(u16::MAX as u32) as u16,
            main_min_area: self.main_min_area,
            tributary_min_area: self.tributary_min_area,
            stem_min_area: self.stem_min_area,
            endorheic_min_area: self.endorheic_min_area,
            mouth_separation: self.mouth_separation,
            min_length_m: self.min_length_m,
            width_scale: self.width_scale,
            depth_scale: self.depth_scale,
            min_depth_m: self.min_depth_m,
            sea_margin_m: self.sea_margin_m,
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

/// A total order on f32 as u32 (for the priority queues).
fn ord_key(f: f32) -> u32 {
    let b = f.to_bits();
    if b >> 31 == 0 { b | 0x8000_0000 } else { !b }
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
    let n = inp.n;
    let mut stats = RiverStats::default();
    let before = Snapshot::take(inp, render, water);
    let protected = protected_mask(inp);

    let t = std::time::Instant::now();
    let levels = body_levels(water);
    let (outlet, route_h) = routing_surface(d, inp, render, water, &levels);
    let drain = drainage(d, inp, route_h, &outlet, &water.body_ids, &mut stats);
    stats.drainage_ms = elapsed_ms(t);

    let t = std::time::Instant::now();
    let plans = plan(d, inp, render, &water.body_ids, &outlet, &protected, &drain);
    stats.route_ms = elapsed_ms(t);
    drop(drain);

    let t = std::time::Instant::now();
    // River ids follow the bodies already there (never the ocean's id, even with an empty table).
    let last_id = water.bodies.as_ref().and_then(|b| b.iter().map(|b| b.id).max()).unwrap_or(OCEAN_BODY_ID);
    let next_id = last_id.max(OCEAN_BODY_ID).saturating_add(1);
    let mut owner = vec![0u32; n * n]; // carved river index + 1 per channel pixel
    let mut owner_point = vec![0u32; n * n];
    let mut owner_r = vec![f32::INFINITY; n * n];
    let mut carved: Vec<Carved> = Vec::new();
    let mut plan_to_carved: Vec<Option<usize>> = vec![None; plans.len()];
    for (pi, p) in plans.iter().enumerate() {
        if p.parent.is_some_and(|pp| plan_to_carved[pp].is_none()) {
            continue; // the parent was dropped
        }
        let Some(mut c) = profile(d, inp, &water.body_ids, &outlet, &levels, p, &carved, &owner, &owner_point) else {
            continue;
        };
        if next_id as usize + carved.len() >= u16::MAX as usize {
            break;
        }
        c.body_id = next_id + carved.len() as u16;
        let k = carved.len() as u32 + 1;
        carve(inp, render, &water.body_ids, &protected, &c, k, &mut owner, &mut owner_point, &mut owner_r, &mut stats);
        plan_to_carved[pi] = Some(carved.len());
        carved.push(c);
    }
    drop(owner_r);

    // Water: channel pixels under their river's level.
    let surface = water.surface.get_or_insert_with(|| vec![water_level::NO_WATER; n * n]);
    let mut pixels = vec![0u64; carved.len()];
    let mut sums = vec![(0f64, 0f64); carved.len()];
    for i in 0..n * n {
        let k = owner[i];
        if k == 0 || water.body_ids[i] != 0 || protected[i] || render[i] < inp.sea {
            continue; // water, protected ground and below-sea pixels are never a river's
        }
        let c = &carved[k as usize - 1];
        let level = c.surface[owner_point[i] as usize];
        if render[i] < level {
            water.body_ids[i] = c.body_id;
            surface[i] = water_level::encode(level);
            biomes[i] = Biome::Lake as u8;
            pixels[k as usize - 1] += 1;
            sums[k as usize - 1].0 += (i / n) as f64;
            sums[k as usize - 1].1 += (i % n) as f64;
        }
    }
    drop(owner);
    drop(owner_point);
    // Every course point on dry ground is wetted by its own river, so a river without a wet pixel
    // should not occur; if one does, it gets no body and what flowed into it flows into what it
    // flowed into (its record's mouth is remapped), so no mouth ever names a missing body.
    let mut mouth_of: Vec<(u16, f32)> = carved.iter().map(|c| (c.mouth_body, c.mouth_level)).collect();
    for k in 0..carved.len() {
        let (mut m, mut l) = mouth_of[k];
        while let Some(j) = carved.iter().position(|c| c.body_id == m).filter(|&j| pixels[j] == 0) {
            (m, l) = mouth_of[j];
        }
        mouth_of[k] = (m, l);
    }
    let bodies = water.bodies.get_or_insert_with(Vec::new);
    let mut rivers = Vec::new();
    for (k, c) in carved.iter().enumerate() {
        if pixels[k] == 0 {
            continue;
        }
        let px = pixels[k] as f64;
        bodies.push(WaterBody {
            id: c.body_id,
            kind: WaterType::Lake,
            salinity: Salinity::Fresh,
            surface_level_raw: mouth_of[k].1,
            pixel_count: pixels[k] as i32,
            centroid_x: (sums[k].0 / px) as f32,
            centroid_y: (sums[k].1 / px) as f32,
        });
        stats.wet_pixels += pixels[k];
        let mut record = to_record(inp, c);
        record.mouth_body_id = mouth_of[k].0;
        rivers.push(record);
    }
    stats.carve_ms = elapsed_ms(t);
    stats.rivers = rivers.len();
    stats.tributaries = rivers.iter().filter(|r| r.order > 1).count();
    stats.total_length_m = rivers.iter().map(|r| r.length_m as f64).sum();
    stats.longest_m = rivers.iter().map(|r| r.length_m as f64).fold(0.0, f64::max);
    let network = RiverNetwork { dials: d.meta(), rivers };
    check(inp, &before, render, water, biomes, &network, &carved)?;
    Ok((network, stats))
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

/// The drainage analysis: routing surface, D8 directions, accumulation.
struct Drainage {
    /// D8 direction 0..7, [`TO_WATER`] + k into a water neighbour k, or [`SINK`].
    dir: Vec<u8>,
    acc: Vec<u32>,
    /// Length (pixels) of the longest flow path from a source down to each cell.
    longest: Vec<f32>,
    /// The routing surface: pits filled one ulp above their spill, terminal basins as they are.
    filled: Vec<f32>,
}

const SINK: u8 = 255;
const TO_WATER: u8 = 16;

impl Drainage {
    fn target(&self, i: usize, n: usize) -> Option<usize> {
        let d = self.dir[i];
        if d == SINK {
            return None;
        }
        let k = (d % TO_WATER) as usize;
        let (x, y) = ((i / n) as i64 + DX[k], (i % n) as i64 + DY[k]);
        Some(x as usize * n + y as usize)
    }
}

/// `route_h` (the routing heights of [`routing_surface`]) becomes the filled routing surface.
fn drainage(
    d: &RiverDials,
    inp: &Inputs<'_>,
    route_h: Vec<f32>,
    outlet: &[bool],
    ids: &[u16],
    stats: &mut RiverStats,
) -> Drainage {
    let lake = |i: usize| ids[i] != 0 && !outlet[i];
    let n = inp.n;
    let total = n * n;
    // 1. Priority flood from the outlets (dry pixels touching water) and the dry border.
    // The pit and basin tests below compare against the unfilled heights: keep what the fill
    // raises (few pixels) rather than a second map.
    let mut filled = route_h;
    let mut raised: Vec<(u32, f32)> = Vec::new();
    let mut seen = vec![false; total];
    let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    let mut pit: VecDeque<usize> = VecDeque::new();
    for i in 0..total {
        if outlet[i] {
            seen[i] = true;
            continue;
        }
        let (x, y) = (i / n, i % n);
        let border = x == 0 || y == 0 || x == n - 1 || y == n - 1;
        if border || (0..8).any(|k| neighbour(i, n, k).is_some_and(|j| outlet[j])) {
            seen[i] = true;
            heap.push(Reverse((ord_key(filled[i]), i as u32)));
        }
    }
    loop {
        let c = match pit.pop_front() {
            Some(c) => c,
            None => match heap.pop() {
                Some(Reverse((_, c))) => c as usize,
                None => break,
            },
        };
        let fc = filled[c];
        for k in 0..8 {
            let Some(j) = neighbour(c, n, k) else { continue };
            if seen[j] {
                continue;
            }
            seen[j] = true;
            if filled[j] <= fc {
                // One ulp above the parent: a strictly descending way back out of every pit.
                if !lake(j) {
                    // A lake crossed is a flat at its level, not a pit: its cells stay out of
                    // the depression search below.
                    raised.push((j as u32, filled[j]));
                }
                filled[j] = fc.next_up();
                pit.push_back(j);
            } else {
                heap.push(Reverse((ord_key(filled[j]), j as u32)));
            }
        }
    }
    drop(heap);
    drop(pit);

    // 2. Depressions (8-connected cells the fill raised); deep and large ones revert.
    raised.sort_unstable_by_key(|r| r.0);
    let orig = |i: usize| raised[raised.binary_search_by_key(&(i as u32), |r| r.0).expect("a raised cell")].1;
    let min_area = (d.endorheic_min_area as f64 * total as f64).max(1.0) as usize;
    let mut pending = seen; // reuse: true = raised and not yet in a pool
    pending.fill(false);
    for &(i, _) in &raised {
        pending[i as usize] = true;
    }
    let mut members = Vec::new();
    for &(s, _) in &raised {
        let s = s as usize;
        if !pending[s] {
            continue;
        }
        members.clear();
        members.push(s);
        pending[s] = false;
        let mut q = 0;
        let mut depth = 0f32;
        while q < members.len() {
            let c = members[q];
            q += 1;
            depth = depth.max((filled[c] - orig(c)) * inp.mpr);
            for k in 0..8 {
                if let Some(j) = neighbour(c, n, k)
                    && pending[j]
                {
                    pending[j] = false;
                    members.push(j);
                }
            }
        }
        if depth >= ENDO_MIN_DEPTH_M && members.len() >= min_area {
            stats.terminal_basins += 1;
            for &c in &members {
                filled[c] = orig(c);
            }
        } else {
            stats.depressions_filled += 1;
        }
    }
    drop(pending);
    drop(members);
    drop(raised);

    // 3. D8 on the routing surface; into water when no dry neighbour is lower.
    let mut dir = vec![SINK; total];
    for i in 0..total {
        if outlet[i] {
            continue;
        }
        let (mut best, mut best_k, mut water_k) = (0f32, usize::MAX, usize::MAX);
        for k in 0..8 {
            let Some(j) = neighbour(i, n, k) else { continue };
            if outlet[j] {
                let drop = (filled[i] - filled[j].min(filled[i])) / DIST[k];
                if water_k == usize::MAX || drop > best {
                    water_k = k;
                }
                if drop > best {
                    best = drop;
                    best_k = k + 100;
                }
                continue;
            }
            let drop = (filled[i] - filled[j]) / DIST[k];
            if drop > best {
                best = drop;
                best_k = k;
            }
        }
        dir[i] = match best_k {
            usize::MAX if water_k != usize::MAX => TO_WATER + water_k as u8,
            usize::MAX => SINK,
            k if k >= 100 => TO_WATER + (k - 100) as u8,
            k => k as u8,
        };
    }
    // 4. Accumulation in Kahn order (dry cells only; water cells only receive).
    let mut acc = vec![0u32; total];
    let mut indeg = vec![0u8; total];
    let mut longest = vec![0f32; total];
    let dr = Drainage { dir, acc: Vec::new(), longest: Vec::new(), filled: Vec::new() };
    for i in 0..total {
        if !outlet[i]
            && dr.dir[i] < TO_WATER
            && let Some(t) = dr.target(i, n)
        {
            indeg[t] += 1;
        }
    }
    let mut q: VecDeque<usize> = VecDeque::new();
    for i in 0..total {
        if !outlet[i] {
            acc[i] = 1;
            if indeg[i] == 0 {
                q.push_back(i);
            }
        }
    }
    while let Some(c) = q.pop_front() {
        if dr.dir[c] >= TO_WATER {
            continue;
        }
        let t = dr.target(c, n).expect("a dry direction has a target");
        acc[t] += acc[c];
        longest[t] = longest[t].max(longest[c] + DIST[dr.dir[c] as usize]);
        indeg[t] -= 1;
        if indeg[t] == 0 {
            q.push_back(t);
        }
    }
    Drainage { dir: dr.dir, acc, longest, filled }
}

/// Trace a stem upstream from `from` along the longest flow path (the hydrologists' main stem)
/// among the inflows that drain at least `min_acc`, stopping before protected ground.
fn trace_up(dr: &Drainage, n: usize, from: usize, min_acc: u32, near_protected: &[bool]) -> Vec<usize> {
    let mut stem = vec![from];
    let mut c = from;
    loop {
        let (mut best, mut best_l) = (usize::MAX, -1f32);
        for k in 0..8 {
            let Some(j) = neighbour(c, n, k) else { continue };
            if dr.dir[j] < TO_WATER
                && dr.target(j, n) == Some(c)
                && dr.acc[j] >= min_acc
                && !near_protected[j]
                && dr.longest[j] > best_l
            {
                best = j;
                best_l = dr.longest[j];
            }
        }
        if best == usize::MAX {
            break;
        }
        stem.push(best);
        c = best;
    }
    stem
}

/// Protected ground grown by a channel's width: stems stop before it, routes go around it.
/// A square dilation by `r`, separable: along Y within each row, then along X.
fn grow(mask: &[bool], n: usize, r: usize) -> Vec<bool> {
    let rows = dilate(mask, n, r, |line, k| line * n + k);
    dilate(&rows, n, r, |line, k| k * n + line)
}

/// One axis of [`grow`]: each of the `n` lines (`at(line, k)` its k-th cell) marks every cell
/// within `r` of a set cell, by a forward and a backward sweep.
fn dilate(mask: &[bool], n: usize, r: usize, at: impl Fn(usize, usize) -> usize) -> Vec<bool> {
    let mut out = vec![false; n * n];
    for line in 0..n {
        let mut last: Option<usize> = None;
        for k in 0..n {
            if mask[at(line, k)] {
                last = Some(k);
            }
            if last.is_some_and(|l| k - l <= r) {
                out[at(line, k)] = true;
            }
        }
        let mut next: Option<usize> = None;
        for k in (0..n).rev() {
            if mask[at(line, k)] {
                next = Some(k);
            }
            if next.is_some_and(|l| l - k <= r) {
                out[at(line, k)] = true;
            }
        }
    }
    out
}

fn course_length_px(n: usize, cells: &[usize]) -> f32 {
    cells
        .windows(2)
        .map(|w| {
            let (dx, dy) = ((w[1] / n) as f32 - (w[0] / n) as f32, (w[1] % n) as f32 - (w[0] % n) as f32);
            (dx * dx + dy * dy).sqrt()
        })
        .sum()
}

fn plan(
    d: &RiverDials,
    inp: &Inputs<'_>,
    render: &[f32],
    ids: &[u16],
    outlet: &[bool],
    protected: &[bool],
    dr: &Drainage,
) -> Vec<Plan> {
    let n = inp.n;
    let total = (n * n) as f64;
    let max_half_px = ((HALF_WIDTH_HEAD_M + HALF_WIDTH_PER_SIZE_M * 2.0) * d.width_scale / inp.mpp).ceil() as usize;
    let near = grow(protected, n, max_half_px + 2);
    let frac = |f: f32| (f as f64 * total).max(1.0) as u32;
    let (main_min, trib_min, stem_min) = (frac(d.main_min_area), frac(d.tributary_min_area), frac(d.stem_min_area));

    // Outlets: dry cells draining into water, by drained area (ties by index).
    let mut outlets: Vec<(u32, usize, u16)> = Vec::new();
    for i in 0..n * n {
        if !outlet[i] && dr.dir[i] >= TO_WATER && dr.dir[i] != SINK && dr.acc[i] >= main_min && !near[i] {
            let t = dr.target(i, n).expect("into water");
            outlets.push((dr.acc[i], i, ids[t]));
        }
    }
    outlets.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let sep = d.mouth_separation * n as f32;
    let mut mains: Vec<(usize, u16)> = Vec::new();
    let (mut trunks, mut lake_rivers) = (0, 0);
    for &(_, cell, body) in &outlets {
        let is_ocean = body == OCEAN_BODY_ID;
        if (is_ocean && trunks >= d.trunks) || (!is_ocean && lake_rivers >= d.lake_rivers) {
            continue;
        }
        let (cx, cy) = ((cell / n) as f32, (cell % n) as f32);
        let far = mains.iter().all(|&(m, _)| {
            let (dx, dy) = ((m / n) as f32 - cx, (m % n) as f32 - cy);
            dx * dx + dy * dy >= sep * sep
        });
        if far {
            mains.push((cell, body));
            if is_ocean {
                trunks += 1;
            } else {
                lake_rivers += 1;
            }
        }
    }

    let window = (n / 64).max(8);
    let mut router = Router::new(n);
    let mut plans = Vec::new();
    let mut trib_plans = Vec::new();
    let min_main_px = d.min_length_m / inp.mpp;
    for (mouth, body) in mains {
        let stem = trace_up(dr, n, mouth, stem_min, &near); // stem[0] = the last cell before water
        // Mountain exit: the first point from the mouth whose upstream window still climbs.
        let mut exit = None;
        for i in 0..stem.len().saturating_sub(window) {
            // On the routing surface: a crossed lake reads as its level, not its bed.
            let rise_m = (dr.filled[stem[i + window]] - dr.filled[stem[i]]) * inp.mpr;
            if rise_m / (window as f32 * inp.mpp) >= EXIT_GRADE {
                exit = Some(i);
                break;
            }
        }
        let mut cells: Vec<usize> = Vec::new();
        let upland_end = exit.unwrap_or(0);
        cells.extend(stem[upland_end..].iter().rev());
        if let Some(e) = exit
            && e > 0
        {
            match router.route(inp, render, ids, &near, stem[e], body) {
                Some(route) => cells.extend(&route[1..]),
                None => cells.extend(stem[..e].iter().rev()),
            }
        }
        if course_length_px(n, &cells) < min_main_px {
            continue;
        }
        let parent = plans.len();
        // Tributaries from the upland stem (above the exit: the cells the course keeps).
        let upland = &stem[upland_end..];
        let on_stem: std::collections::HashSet<usize> = upland.iter().copied().collect();
        let mut cands: Vec<(u32, usize, usize)> = Vec::new();
        for &sc in upland {
            for k in 0..8 {
                let Some(j) = neighbour(sc, n, k) else { continue };
                if !on_stem.contains(&j)
                    && dr.dir[j] < TO_WATER
                    && dr.target(j, n) == Some(sc)
                    && dr.acc[j] >= trib_min
                    && !near[j]
                {
                    cands.push((dr.acc[j], j, sc));
                }
            }
        }
        cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let dedupe = (n as f32 / 34.0).max(4.0);
        let mut taken: Vec<usize> = Vec::new();
        let mut tribs = Vec::new();
        for &(a, j, sc) in &cands {
            if taken.len() >= d.tributaries as usize {
                break;
            }
            let (jx, jy) = ((j / n) as f32, (j % n) as f32);
            if taken.iter().any(|&t| {
                let (dx, dy) = ((t / n) as f32 - jx, (t % n) as f32 - jy);
                dx * dx + dy * dy < dedupe * dedupe
            }) {
                continue;
            }
            taken.push(j);
            let ts = trace_up(dr, n, j, stem_min.max(a / 20), &near);
            let mut tc: Vec<usize> = ts.iter().rev().copied().collect();
            tc.push(sc);
            if course_length_px(n, &tc) >= 0.5 * min_main_px {
                let area = tc.iter().map(|&c| dr.acc[c]).collect();
                let ground = tc.iter().map(|&c| dr.filled[c]).collect();
                tribs.push(Plan { cells: tc, area, ground, order: 2, mouth_body: 0, parent: Some(parent) });
            }
        }
        let area = cells.iter().map(|&c| dr.acc[c]).collect();
        let ground = cells.iter().map(|&c| dr.filled[c]).collect();
        plans.push(Plan { cells, area, ground, order: 1, mouth_body: body, parent: None });
        trib_plans.extend(tribs);
    }
    // Main rivers first (a tributary needs its parent carved): parents keep their indices.
    plans.extend(trib_plans);
    plans
}

/// Deterministic Dijkstra with reusable buffers ("lowground": cost ≈ elevation above sea).
struct Router {
    cost: Vec<f32>,
    parent: Vec<u32>,
    touched: Vec<usize>,
}

impl Router {
    fn new(n: usize) -> Self {
        Self { cost: vec![f32::INFINITY; n * n], parent: vec![u32::MAX; n * n], touched: Vec::new() }
    }

    /// The cheapest path from `start` into water of body `target`, as cells from `start` to the
    /// last dry cell; `None` when no path exists.
    fn route(
        &mut self,
        inp: &Inputs<'_>,
        render: &[f32],
        ids: &[u16],
        blocked: &[bool],
        start: usize,
        target: u16,
    ) -> Option<Vec<usize>> {
        let n = inp.n;
        for &i in &self.touched {
            self.cost[i] = f32::INFINITY;
            self.parent[i] = u32::MAX;
        }
        self.touched.clear();
        let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
        self.cost[start] = 0.0;
        self.touched.push(start);
        heap.push(Reverse((ord_key(0.0), start as u32)));
        let mut goal = None;
        while let Some(Reverse((key, c))) = heap.pop() {
            let c = c as usize;
            if key != ord_key(self.cost[c]) {
                continue; // stale
            }
            if ids[c] == target {
                goal = Some(c);
                break;
            }
            let hc = render[c];
            for k in 0..8 {
                let Some(j) = neighbour(c, n, k) else { continue };
                let wet = ids[j] != 0;
                if (wet && ids[j] != target) || (!wet && blocked[j] && j != start) {
                    continue;
                }
                let elev = ((render[j] - inp.sea) * inp.mpr).max(0.0);
                let up = ((render[j] - hc) * inp.mpr).max(0.0);
                let step = DIST[k] * (ROUTE_BASE + elev * ROUTE_PER_M_ELEVATION) + up * ROUTE_PER_M_UPHILL;
                let nc = self.cost[c] + step;
                if nc < self.cost[j] {
                    if self.cost[j].is_infinite() {
                        self.touched.push(j);
                    }
                    self.cost[j] = nc;
                    self.parent[j] = c as u32;
                    heap.push(Reverse((ord_key(nc), j as u32)));
                }
            }
        }
        let goal = goal?;
        let mut path = Vec::new();
        let mut c = self.parent[goal];
        while c != u32::MAX {
            path.push(c as usize);
            c = self.parent[c as usize];
        }
        path.reverse();
        (!path.is_empty()).then_some(path)
    }
}

/// The profile of one planned course: cut at its outlet or at the first channel of a river
/// carved before it (a confluence), then width, depth, a monotone clamped bed and a monotone
/// water level. Points on a lake the river passes through ("crossings") carry the lake's level and
/// are neither carved nor wetted. `None` when the course is too short or cannot be made
/// consistent (a later lake higher than an earlier one).
#[allow(clippy::too_many_arguments)]
fn profile(
    d: &RiverDials,
    inp: &Inputs<'_>,
    ids: &[u16],
    outlet: &[bool],
    levels: &[f32],
    p: &Plan,
    carved: &[Carved],
    owner: &[u32],
    owner_point: &[u32],
) -> Option<Carved> {
    let n = inp.n;
    let (sea, mpr, mpp) = (inp.sea, inp.mpr, inp.mpp);
    let level_of = |id: u16| levels.get(id as usize).copied().filter(|l| l.is_finite()).unwrap_or(sea);
    let mut cells = Vec::with_capacity(p.cells.len());
    let mut mouth_body = p.mouth_body;
    // Floors from what the river flows into: bed and level.
    let mut floor_bed = sea + d.sea_margin_m / mpr;
    let mut floor_surface = f32::MIN;
    let mut mouth_level = level_of(mouth_body);
    if mouth_body > OCEAN_BODY_ID {
        floor_bed = floor_bed.max(mouth_level + d.sea_margin_m / mpr);
    }
    let mut joined = false;
    for &c in &p.cells {
        if outlet[c] {
            break;
        }
        cells.push(c);
        if owner[c] != 0 {
            let j = &carved[owner[c] as usize - 1];
            let pt = owner_point[c] as usize;
            mouth_body = j.body_id;
            floor_bed = floor_bed.max(j.bed[pt]);
            floor_surface = j.surface[pt];
            mouth_level = floor_surface;
            joined = true;
            break;
        }
    }
    if !joined && p.parent.is_some() {
        return None; // a tributary that never reached its parent's channel
    }
    // A course must start and end on dry ground.
    while cells.last().is_some_and(|&c| ids[c] != 0) {
        cells.pop();
    }
    let start = cells.iter().position(|&c| ids[c] == 0)?;
    cells.drain(..start);
    let min_px = if p.order > 1 { 0.5 } else { 1.0 } * d.min_length_m / mpp;
    if cells.len() < 2 || course_length_px(n, &cells) < min_px {
        return None;
    }
    let m = cells.len();
    // The kept cells are a run of the plan's cells: index them by the plan's position.
    let offset = p.cells.iter().position(|&c| c == cells[0]).expect("a kept cell is a plan cell");
    let (mut bed, mut surface, mut half, mut area) = (vec![0f32; m], vec![0f32; m], vec![0f32; m], vec![0u32; m]);
    let mut depth = vec![0f32; m];
    let acc_km2 = |a: u32| a as f32 * mpp * mpp * 1e-6;
    let min_depth = d.min_depth_m / mpr;
    let (mut a_run, mut prev_bed) = (0u32, f32::INFINITY);
    for (i, &c) in cells.iter().enumerate() {
        // The drained area never shrinks downstream (a re-routed reach leaves the D8 network).
        a_run = a_run.max(p.area[offset + i]);
        area[i] = a_run;
        let size = (acc_km2(a_run) / REFERENCE_AREA_KM2).sqrt().min(2.0);
        depth[i] = ((DEPTH_HEAD_M + DEPTH_PER_SIZE_M * size) * d.depth_scale).max(d.min_depth_m + 0.1);
        half[i] = ((HALF_WIDTH_HEAD_M + HALF_WIDTH_PER_SIZE_M * size) * d.width_scale / mpp).max(1.5);
        let step = if i == 0 { 0.0 } else { course_length_px(n, &cells[i - 1..=i]) * mpp };
        // Under the routing surface, not the terrain: through a pit the bed runs at the level the
        // pit fills to (the pit stays, as a pool) instead of cutting a canyon through its rim.
        let own = if ids[c] != 0 { level_of(ids[c]) - min_depth } else { p.ground[offset + i] - depth[i] / mpr };
        bed[i] = own.min(prev_bed - MIN_BED_SLOPE * step / mpr);
        prev_bed = bed[i];
    }
    for b in bed.iter_mut() {
        *b = b.max(floor_bed);
    }
    // Level: from the source down, never above the channel's water line, equal to a crossed
    // lake's level on it; then the smallest non-increasing envelope over that (so upstream of a
    // lake it never dips under the lake), held at what it flows into; on the WSRF grid, rounded up.
    let mut prev = f32::INFINITY;
    for i in 0..m {
        let own = if ids[cells[i]] != 0 {
            level_of(ids[cells[i]])
        } else {
            (bed[i] + (WATER_SHARE * depth[i]).max(d.min_depth_m) / mpr).min(prev)
        };
        surface[i] = own;
        prev = own;
    }
    let mut env = floor_surface;
    for i in (0..m).rev() {
        env = env.max(surface[i]);
        surface[i] = (env * water_level::STEPS_PER_RAW).ceil() / water_level::STEPS_PER_RAW;
    }
    // Consistency: a crossing must stand at its lake's level (a later, higher lake lifted it) and
    // every point at least the minimum depth over its bed.
    for i in 0..m {
        let c = cells[i];
        if ids[c] != 0 && surface[i] > level_of(ids[c]) + 1.5 / water_level::STEPS_PER_RAW {
            return None;
        }
        if surface[i] < bed[i] + min_depth * 0.999 {
            return None;
        }
    }
    Some(Carved {
        cells,
        // A main course that ends in another river is that river's tributary.
        order: if joined { 2 } else { p.order },
        mouth_body,
        bed,
        surface,
        half_width_px: half,
        area_px: area,
        mouth_level,
        body_id: 0,
    })
}

/// Stamp one river into the render map and claim its channel pixels: a parabola from the bed to
/// the rim inside the half-width, a smoothstep shoulder back to the terrain out to twice it.
#[allow(clippy::too_many_arguments)]
fn carve(
    inp: &Inputs<'_>,
    render: &mut [f32],
    ids: &[u16],
    protected: &[bool],
    c: &Carved,
    k: u32,
    owner: &mut [u32],
    owner_point: &mut [u32],
    owner_r: &mut [f32],
    stats: &mut RiverStats,
) {
    let n = inp.n;
    for (i, &cell) in c.cells.iter().enumerate() {
        if ids[cell] != 0 {
            continue; // a lake the river passes through
        }
        let (px, py) = ((cell / n) as f32, (cell % n) as f32);
        let hw = c.half_width_px[i];
        let outer = 2.0 * hw;
        let depth_raw = c.surface[i].max(c.bed[i]) - c.bed[i];
        let rim = c.bed[i] + (depth_raw / WATER_SHARE).max(depth_raw);
        let (x0, x1) = ((px - outer).floor().max(0.0) as usize, ((px + outer).ceil() as usize).min(n - 1));
        let (y0, y1) = ((py - outer).floor().max(0.0) as usize, ((py + outer).ceil() as usize).min(n - 1));
        for x in x0..=x1 {
            for y in y0..=y1 {
                let j = x * n + y;
                let (dx, dy) = (x as f32 - px, y as f32 - py);
                let r = (dx * dx + dy * dy).sqrt();
                if r > outer || ids[j] != 0 || protected[j] || render[j] < inp.sea {
                    continue;
                }
                let old = render[j];
                let target = if r <= hw {
                    let f = r / hw;
                    c.bed[i] + (rim - c.bed[i]) * f * f
                } else {
                    let f = (r - hw) / hw;
                    let f = f * f * (3.0 - 2.0 * f);
                    rim + (old - rim) * f
                };
                // Never below the bed of this point (which is above sea + margin).
                let target = target.max(c.bed[i]);
                if target < old {
                    render[j] = target;
                    stats.carved_pixels += 1;
                    stats.max_cut_m = stats.max_cut_m.max((old - target) * inp.mpr);
                }
                if r <= hw && (owner[j] == 0 || (owner[j] == k && r < owner_r[j])) {
                    owner[j] = k;
                    owner_point[j] = i as u32;
                    owner_r[j] = r;
                }
            }
        }
    }
}

fn to_record(inp: &Inputs<'_>, c: &Carved) -> River {
    let n = inp.n;
    let xy = |cell: usize| [(cell / n) as f32, (cell % n) as f32];
    let course: Vec<RiverPoint> = c
        .cells
        .iter()
        .zip(&c.half_width_px)
        .zip(&c.area_px)
        .map(|((&cell, &hw), &a)| {
            let [x, y] = xy(cell);
            let area_m2 = a as f64 * (inp.mpp as f64).powi(2);
            RiverPoint { x, y, width_m: 2.0 * hw * inp.mpp, discharge_m3s: (area_m2 * RUNOFF_M_PER_S) as f32 }
        })
        .collect();
    River {
        body_id: c.body_id,
        order: c.order,
        mouth_body_id: c.mouth_body,
        source: xy(c.cells[0]),
        mouth: xy(*c.cells.last().expect("non-empty course")),
        length_m: course_length_px(n, &c.cells) * inp.mpp,
        course,
    }
}

/// What the guards compare against: the state before the river stage. The ocean's pixels and the
/// below-sea heights are kept as digests (a 64-bit mix of every index and value), not copies: the
/// sea is most of the map.
struct Snapshot {
    ocean: Option<WaterBody>,
    ocean_digest: u64,
    below_sea_digest: u64,
    core: Vec<(u32, u32, u16)>,
}

/// Order-dependent 64-bit digest of `(index, value)` pairs (splitmix64 steps).
fn digest(pairs: impl Iterator<Item = (usize, u32)>) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    pairs.fold(0x9e37_79b9_7f4a_7c15, |h, (i, v)| mix(h ^ mix(((i as u64) << 32) | v as u64)))
}

fn ocean_digest(water: &Water) -> u64 {
    digest(water.body_ids.iter().enumerate().filter(|(_, id)| **id == OCEAN_BODY_ID).map(|(i, _)| (i, 1)))
}

/// Every below-sea pixel's height and body id.
fn below_sea_digest(render: &[f32], ids: &[u16], sea: f32) -> u64 {
    digest(
        render
            .iter()
            .zip(ids)
            .enumerate()
            .filter(|(_, (h, _))| **h < sea)
            .flat_map(|(i, (h, id))| [(i, h.to_bits()), (i, *id as u32)]),
    )
}

impl Snapshot {
    fn take(inp: &Inputs<'_>, render: &[f32], water: &Water) -> Self {
        let core = core_pixels(inp).into_iter().map(|i| (i as u32, render[i].to_bits(), water.body_ids[i])).collect();
        Self {
            ocean: water.ocean().copied(),
            ocean_digest: ocean_digest(water),
            below_sea_digest: below_sea_digest(render, &water.body_ids, inp.sea),
            core,
        }
    }
}

/// The crater core's pixels (the carve's extent), in scan order.
fn core_pixels(inp: &Inputs<'_>) -> Vec<usize> {
    let n = inp.n;
    let Some(c) = inp.crater else { return Vec::new() };
    let r = c.radius_px * CARVE_FACTOR;
    let mut v = Vec::new();
    let (x0, x1) = ((c.x - r).floor().max(0.0) as usize, ((c.x + r).ceil() as usize).min(n - 1));
    let (y0, y1) = ((c.y - r).floor().max(0.0) as usize, ((c.y + r).ceil() as usize).min(n - 1));
    for x in x0..=x1 {
        for y in y0..=y1 {
            if c.distance(x, y) <= r {
                v.push(x * n + y);
            }
        }
    }
    v
}

/// The guards (SPEC §2), on every run: a violation is an internal failure.
fn check(
    inp: &Inputs<'_>,
    before: &Snapshot,
    render: &[f32],
    water: &Water,
    biomes: &[u8],
    net: &RiverNetwork,
    carved: &[Carved],
) -> anyhow::Result<()> {
    use anyhow::ensure;
    let n = inp.n;
    // 1. The ocean body and every below-sea pixel as they were.
    ensure!(water.ocean().copied() == before.ocean, "river guard: the ocean body's WBTB record changed");
    ensure!(ocean_digest(water) == before.ocean_digest, "river guard: the ocean's pixels changed");
    ensure!(
        below_sea_digest(render, &water.body_ids, inp.sea) == before.below_sea_digest,
        "river guard: a below-sea pixel changed or appeared"
    );
    // 2. Bed and level monotone along every course, the level at least the minimum depth up.
    let min_depth = net.dials.min_depth_m / inp.mpr;
    let first_river = net.first_body_id();
    for c in carved {
        for w in c.bed.windows(2) {
            ensure!(w[1] <= w[0], "river guard: body {}'s bed rises toward its mouth", c.body_id);
        }
        for w in c.surface.windows(2) {
            ensure!(w[1] <= w[0], "river guard: body {}'s level rises toward its mouth", c.body_id);
        }
        for (i, (&s, &b)) in c.surface.iter().zip(&c.bed).enumerate() {
            ensure!(
                s >= b + min_depth * 0.999,
                "river guard: body {} is {:.2} m deep at point {i}, under the minimum",
                c.body_id,
                (s - b) * inp.mpr
            );
        }
    }
    // 3. No town on water.
    for t in inp.towns {
        let (x, y) = ((t.x.round() as usize).min(n - 1), (t.y.round() as usize).min(n - 1));
        ensure!(water.body_ids[x * n + y] == 0, "river guard: the town at ({}, {}) is on water", t.x, t.y);
    }
    // 4. The crater core untouched.
    for &(i, h, id) in &before.core {
        let i = i as usize;
        ensure!(render[i].to_bits() == h && water.body_ids[i] == id, "river guard: the crater core changed");
    }
    // 5. Water in BIOM exactly where WBID says so, and every river pixel's level above its ground.
    let surface = water.surface.as_deref().unwrap_or(&[]);
    for i in 0..n * n {
        let id = water.body_ids[i];
        let water_biome = biomes[i] == Biome::Ocean as u8 || biomes[i] == Biome::Lake as u8;
        ensure!(water_biome == (id != 0), "river guard: BIOM and WBID disagree at pixel {i}");
    }
    for i in 0..n * n {
        if water.body_ids[i] >= first_river {
            let l = water_level::decode(surface[i]).unwrap_or(f32::NAN);
            ensure!(l > render[i], "river guard: a river pixel's level is not above its ground");
        }
    }
    Ok(())
}
