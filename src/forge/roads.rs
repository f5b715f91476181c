//! Roads between the towns (SPEC §2 "Roads"): found by the forge after the rivers, carved into
//! the terrain by the world server at load (`world::roads`).
//!
//! - **Network.** Highways join the highway-node towns (capitol and cities) along a minimum
//!   spanning tree of their straight-line distances, grown from the capitol; every other town and
//!   village, nearest to the capitol first, gets a road to the nearest town already joined.
//! - **Search**, coarse to fine in the sense of a two-level grid: A* over a grid of at most
//!   [`COARSE_CELLS`]² cells (4 px at 1024², 32 px at 8192², so the search costs the same on any
//!   map), each cell carrying its mean render height. A step costs its length, more on slopes
//!   (quadratic in the grade over the tier's limit, and steeply past the limit), more for a turn
//!   (so roads run straight and curve gently), and much more on a river (a bridge). A cell holding
//!   any ocean or lake pixel, or the crater core, is closed; a diagonal step never cuts a closed
//!   cell's corner; on a river a road never turns, so bridges are straight.
//! - **Polyline.** The cells' centres from town to town, smoothed (Chaikin, twice) unless the
//!   smoothing would put a point on closed water, then resampled at one point per pixel. Bridge
//!   spans are the runs of points on river water, with the land point at each end.
//!
//! Deterministic: every search breaks ties by cell index and the order of the towns is fixed.

use super::crater::CARVE_FACTOR;
use crate::blueprint::{NO_TOWN, Road, RoadNetwork, RoadTier, TownTier, Water};

/// The coarse grid has at most this many cells per side.
pub const COARSE_CELLS: usize = 256;

/// The road dials: the grade each tier is planned for and the search's cost weights.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RoadDials {
    /// The steepest grade (rise over run) a highway is planned for; the search pays quadratically
    /// for grade under it and steeply past it.
    pub highway_grade: f32,
    /// The same for the other roads.
    pub road_grade: f32,
    /// Cost per unit of (grade / limit)² along a step.
    pub slope_weight: f32,
    /// Cost per unit of grade past the limit.
    pub steep_weight: f32,
    /// Cost of a 45° turn, in metres of road.
    pub turn_m: f32,
    /// Cost factor of a step on a river (a bridge).
    pub bridge_factor: f32,
}

impl Default for RoadDials {
    /// The tiers' own grades ([`RoadTier::grade_limit`], which the world server carves within).
    fn default() -> Self {
        Self {
            highway_grade: RoadTier::Highway.grade_limit(),
            road_grade: RoadTier::Road.grade_limit(),
            slope_weight: 1.0,
            steep_weight: 40.0,
            turn_m: 6.0,
            bridge_factor: 8.0,
        }
    }
}

impl RoadDials {
    /// The grade `tier` is planned for.
    pub fn grade(&self, tier: RoadTier) -> f32 {
        match tier {
            RoadTier::Highway => self.highway_grade,
            RoadTier::Road => self.road_grade,
        }
    }
}

use super::grid::{DX, DY, LeastCost, Step};

/// What the road stage reads besides the maps: the site, and where the river bodies start.
pub struct Inputs<'a> {
    pub site: super::Site<'a>,
    pub dials: &'a RoadDials,
    /// Body ids from this one up are rivers (the rest are the ocean and the lakes).
    pub first_river_id: u16,
}

/// Figures of one run.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RoadStats {
    pub roads: usize,
    pub highways: usize,
    pub total_length_m: f64,
    pub bridges: usize,
    pub bridge_length_m: f64,
    /// Towns no road could reach (an islet, say): named in the progress line.
    pub unreachable: Vec<usize>,
    pub cells_expanded: u64,
    /// Finer grids built for pairs the coarse grid could not join.
    pub refined_grids: usize,
    pub millis: f64,
}

/// The coarse grid: cell size, side, mean height (m) and what a cell is.
struct Grid {
    cell: usize,
    side: usize,
    height_m: Vec<f32>,
    kind: Vec<u8>,
}

const LAND: u8 = 0;
const RIVER: u8 = 1;
const CLOSED: u8 = 2;

impl Grid {
    /// The grid of at most `cells` cells per side.
    fn new(inp: &Inputs<'_>, render: &[f32], water: &Water, cells: usize) -> Self {
        let n = inp.site.n;
        let cell = n.div_ceil(cells).max(1);
        let side = n.div_ceil(cell);
        let mut sum = vec![0f64; side * side];
        let mut count = vec![0u32; side * side];
        let mut kind = vec![LAND; side * side];
        let core = inp.site.crater.map(|c| (c.x, c.y, c.radius_px * CARVE_FACTOR));
        for x in 0..n {
            for y in 0..n {
                let i = x * n + y;
                let c = (x / cell) * side + y / cell;
                sum[c] += ((render[i] - inp.site.sea) * inp.site.mpr) as f64;
                count[c] += 1;
                let id = water.body_ids[i];
                let in_core =
                    core.is_some_and(|(cx, cy, r)| (x as f32 - cx).powi(2) + (y as f32 - cy).powi(2) <= r * r);
                if in_core || (id != 0 && id < inp.first_river_id) {
                    kind[c] = CLOSED;
                } else if id >= inp.first_river_id && kind[c] == LAND {
                    kind[c] = RIVER;
                }
            }
        }
        let height_m = sum.iter().zip(&count).map(|(s, &c)| (*s / c.max(1) as f64) as f32).collect();
        Self { cell, side, height_m, kind }
    }

    fn cell_of(&self, x: f32, y: f32) -> usize {
        let cx = ((x.max(0.0) as usize) / self.cell).min(self.side - 1);
        let cy = ((y.max(0.0) as usize) / self.cell).min(self.side - 1);
        cx * self.side + cy
    }

    fn neighbour(&self, c: usize, k: usize) -> Option<usize> {
        super::grid::neighbour(c, self.side, k)
    }
}

/// A* between two coarse cells for a tier (the shared [`LeastCost`] search); the cells from
/// `from` to `to`, or `None`.
fn search(
    grid: &Grid,
    inp: &Inputs<'_>,
    from: usize,
    to: usize,
    tier: RoadTier,
    expanded: &mut u64,
) -> Option<Vec<usize>> {
    let leg =
        Leg { grid, from, to, limit: inp.dials.grade(tier), dials: inp.dials, step_m: grid.cell as f32 * inp.site.mpp };
    let mut lc = LeastCost::new(grid.side);
    let goal = lc.search(from, |c| c == to, |c| leg.to_go_m(c), |s| leg.step_cost(s));
    *expanded += lc.expanded;
    goal.map(|g| lc.path_to(g))
}

/// One search between two cells of a grid: its ends, the tier's grade limit and a cell's size (m).
struct Leg<'g> {
    grid: &'g Grid,
    from: usize,
    to: usize,
    limit: f32,
    dials: &'g RoadDials,
    step_m: f32,
}

impl Leg<'_> {
    /// The heuristic: the straight-line distance to the goal (m).
    fn to_go_m(&self, c: usize) -> f32 {
        let side = self.grid.side;
        let (tx, ty) = ((self.to / side) as f32, (self.to % side) as f32);
        let (x, y) = ((c / side) as f32, (c % side) as f32);
        (x - tx).hypot(y - ty) * self.step_m
    }

    /// Whether a road may enter cell `c`: not closed, or one of the ends (a town's own cell).
    fn open(&self, c: usize) -> bool {
        self.grid.kind[c] != CLOSED || c == self.from || c == self.to
    }

    /// The cost of a step (its length, more on slopes, for turns and on a river), or `None` where
    /// a road may not go: a closed cell, a closed or river corner cut, a turn on a river.
    fn step_cost(&self, s: Step) -> Option<f32> {
        let (grid, c, k, j) = (self.grid, s.from, s.k, s.to);
        if !self.open(j) {
            return None;
        }
        let on_river = grid.kind[c] == RIVER;
        let diagonal = DX[k] != 0 && DY[k] != 0;
        if diagonal {
            // Never cut a closed cell's corner, nor slip past a river's corner (that would be
            // a bridge that paid nothing and need not be straight).
            let (a, b) =
                (grid.neighbour(c, if DX[k] < 0 { 1 } else { 6 }), grid.neighbour(c, if DY[k] < 0 { 3 } else { 4 }));
            let river_corner = |s: Option<usize>| s.is_some_and(|s| grid.kind[s] == RIVER);
            if a.is_some_and(|a| !self.open(a)) || b.is_some_and(|b| !self.open(b)) {
                return None;
            }
            if !on_river && grid.kind[j] != RIVER && (river_corner(a) || river_corner(b)) {
                return None;
            }
        }
        // A bridge is straight: no turn onto, along or off a river but the way it started.
        let turn = s.came.map_or(0, |came| turn_steps(came, k));
        if (on_river || grid.kind[j] == RIVER) && turn != 0 {
            return None;
        }
        let len = if diagonal { std::f32::consts::SQRT_2 } else { 1.0 } * self.step_m;
        let grade = (grid.height_m[j] - grid.height_m[c]).abs() / len;
        let r = grade / self.limit;
        let d = self.dials;
        let mut cost = len * (1.0 + d.slope_weight * r * r) + d.turn_m * turn as f32;
        if r > 1.0 {
            cost += len * d.steep_weight * (r - 1.0);
        }
        if grid.kind[j] == RIVER {
            cost *= d.bridge_factor;
        }
        Some(cost)
    }
}

/// 45° steps between two of the eight directions (0..=4).
fn turn_steps(a: usize, b: usize) -> u32 {
    let angle = |k: usize| (DY[k] as f32).atan2(DX[k] as f32);
    let d = (angle(a) - angle(b)).abs();
    let d = d.min(std::f32::consts::TAU - d);
    (d / std::f32::consts::FRAC_PI_4).round() as u32
}

/// Whether a pixel position lies on water a road may not touch (ocean, lake) or in the crater core.
fn closed_at(inp: &Inputs<'_>, water: &Water, p: [f32; 2]) -> bool {
    let n = inp.site.n;
    let (x, y) = ((p[0].max(0.0) as usize).min(n - 1), (p[1].max(0.0) as usize).min(n - 1));
    let id = water.body_ids[x * n + y];
    let core = inp.site.crater.is_some_and(|c| c.distance(x, y) <= c.radius_px * CARVE_FACTOR);
    core || (id != 0 && id < inp.first_river_id)
}

fn on_river(inp: &Inputs<'_>, water: &Water, p: [f32; 2]) -> bool {
    let n = inp.site.n;
    let (x, y) = ((p[0].max(0.0) as usize).min(n - 1), (p[1].max(0.0) as usize).min(n - 1));
    water.body_ids[x * n + y] >= inp.first_river_id
}

/// Points every pixel (or less) along a polyline, ends kept.
fn resample(points: &[[f32; 2]]) -> Vec<[f32; 2]> {
    let mut out = vec![points[0]];
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = (b[0] - a[0]).hypot(b[1] - a[1]);
        let steps = len.ceil().max(1.0) as usize;
        for s in 1..=steps {
            let t = s as f32 / steps as f32;
            out.push([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]);
        }
    }
    out
}

/// Two rounds of Chaikin corner cutting, ends kept.
fn chaikin(points: &[[f32; 2]]) -> Vec<[f32; 2]> {
    let mut p = points.to_vec();
    for _ in 0..2 {
        if p.len() < 3 {
            break;
        }
        let mut q = vec![p[0]];
        for w in p.windows(2) {
            let (a, b) = (w[0], w[1]);
            q.push([0.75 * a[0] + 0.25 * b[0], 0.75 * a[1] + 0.25 * b[1]]);
            q.push([0.25 * a[0] + 0.75 * b[0], 0.25 * a[1] + 0.75 * b[1]]);
        }
        q.push(*p.last().expect("non-empty"));
        // The first and last cut points replace the ends' own neighbours; keep the ends exact.
        q.remove(1);
        q.remove(q.len() - 2);
        p = q;
    }
    p
}

/// The polyline of a coarse path between two towns: cell centres with the towns' own positions at
/// the ends, smoothed when that stays off closed water, one point per pixel; and its bridges.
fn polyline(
    grid: &Grid,
    inp: &Inputs<'_>,
    water: &Water,
    path: &[usize],
    a: [f32; 2],
    b: [f32; 2],
) -> (Vec<[f32; 2]>, Vec<[u32; 2]>) {
    let n = inp.site.n as f32;
    let centre = |c: usize| {
        let half = grid.cell as f32 / 2.0;
        [
            ((c / grid.side * grid.cell) as f32 + half).min(n - 0.5),
            ((c % grid.side * grid.cell) as f32 + half).min(n - 0.5),
        ]
    };
    let mut raw: Vec<[f32; 2]> = path.iter().map(|&c| centre(c)).collect();
    raw[0] = a;
    if raw.len() == 1 {
        raw.push(b); // both towns in one cell: the road still runs from one to the other
    } else {
        *raw.last_mut().expect("a path has cells") = b;
    }
    let (rough, smooth) = (resample(&raw), resample(&chaikin(&raw)));
    // The smoothed line only where it stays off closed water and crosses rivers no more often
    // than the cells did (smoothing must not bend a bridge or graze a bank into one).
    let crossings =
        |pts: &[[f32; 2]]| pts.windows(2).filter(|w| !on_river(inp, water, w[0]) && on_river(inp, water, w[1])).count();
    let points = if smooth.iter().any(|&p| closed_at(inp, water, p)) || crossings(&smooth) > crossings(&rough) {
        rough
    } else {
        smooth
    };
    // Bridges: runs of points on river water, widened by one point to the land on each side.
    let mut bridges = Vec::new();
    let mut i = 0;
    while i < points.len() {
        if on_river(inp, water, points[i]) {
            let start = i;
            while i + 1 < points.len() && on_river(inp, water, points[i + 1]) {
                i += 1;
            }
            bridges.push([start.saturating_sub(1) as u32, (i + 1).min(points.len() - 1) as u32]);
        }
        i += 1;
    }
    // Merge spans that touch (a point of land between two river points is still the bridge).
    let mut merged: Vec<[u32; 2]> = Vec::new();
    for s in bridges {
        match merged.last_mut() {
            Some(m) if s[0] <= m[1] => m[1] = m[1].max(s[1]),
            _ => merged.push(s),
        }
    }
    (points, merged)
}

/// Find the road network. Towns are `inp.site.towns` (the capitol first).
pub fn run(inp: &Inputs<'_>, render: &[f32], water: &Water) -> anyhow::Result<(RoadNetwork, RoadStats)> {
    let t = std::time::Instant::now();
    let towns = inp.site.towns;
    let mut net = Network::new(inp, render, water);
    if towns.len() >= 2 {
        let capitol = towns.iter().position(|t| t.tier == TownTier::Capitol).unwrap_or(0);
        let mut joined = vec![false; towns.len()];
        joined[capitol] = true;
        net.highways(capitol, &mut joined);
        net.stats.unreachable = net.local_roads(capitol, &mut joined);
        guard(inp, water, &net.roads)?;
        tally(&mut net.stats, &net.roads, inp.site.mpp);
    }
    let Network { roads, mut stats, .. } = net;
    stats.millis = t.elapsed().as_secs_f64() * 1e3;
    Ok((RoadNetwork { roads }, stats))
}

/// The network as it is built: the grids searched so far (coarsest first), the roads and figures.
struct Network<'a> {
    inp: &'a Inputs<'a>,
    render: &'a [f32],
    water: &'a Water,
    grids: Vec<Grid>,
    roads: Vec<Road>,
    stats: RoadStats,
}

impl<'a> Network<'a> {
    fn new(inp: &'a Inputs<'a>, render: &'a [f32], water: &'a Water) -> Self {
        Self { inp, render, water, grids: Vec::new(), roads: Vec::new(), stats: RoadStats::default() }
    }

    /// Straight-line distance between two towns (pixels).
    fn dist(&self, a: usize, b: usize) -> f32 {
        let towns = self.inp.site.towns;
        (towns[a].x - towns[b].x).hypot(towns[a].y - towns[b].y)
    }

    /// Join two towns by a road of `tier`, if one is found; whether it was.
    ///
    /// A coarse cell with a single ocean or lake pixel is closed, which can shut a narrow way: a
    /// pair the coarse grid cannot join is searched again on grids of twice and four times the
    /// resolution (built when first needed).
    fn join(&mut self, from: usize, to: usize, tier: RoadTier) -> bool {
        let (inp, water, towns) = (self.inp, self.water, self.inp.site.towns);
        if self.grids.is_empty() {
            self.grids.push(Grid::new(inp, self.render, water, COARSE_CELLS));
        }
        for level in 0..3 {
            if level == self.grids.len() {
                if self.grids[level - 1].cell == 1 {
                    return false; // already at full resolution
                }
                self.grids.push(Grid::new(inp, self.render, water, COARSE_CELLS << level));
                self.stats.refined_grids += 1;
            }
            let grid = &self.grids[level];
            let (ca, cb) = (grid.cell_of(towns[from].x, towns[from].y), grid.cell_of(towns[to].x, towns[to].y));
            let Some(path) = search(grid, inp, ca, cb, tier, &mut self.stats.cells_expanded) else { continue };
            let (a, b) = ([towns[from].x, towns[from].y], [towns[to].x, towns[to].y]);
            let (points, bridges) = polyline(grid, inp, water, &path, a, b);
            // A town's own cell is open even when it holds water; the leg from the town to the
            // cell's neighbour may then touch it: try the finer grid instead.
            if points.iter().any(|&p| closed_at(inp, water, p)) {
                continue;
            }
            self.roads.push(Road { tier, from_town: from as u16, to_town: to as u16, points, bridges });
            return true;
        }
        false
    }

    /// Highways: Prim's tree over the highway nodes from the capitol (ties by town index). A node
    /// no highway reaches is left for [`Network::local_roads`] as an ordinary town.
    fn highways(&mut self, capitol: usize, joined: &mut [bool]) {
        let towns = self.inp.site.towns;
        let nodes: Vec<usize> = (0..towns.len()).filter(|&i| towns[i].is_highway_node || i == capitol).collect();
        let mut in_tree = vec![capitol];
        let mut failed = vec![false; towns.len()];
        loop {
            let mut best: Option<(f32, usize, usize)> = None;
            for &a in &in_tree {
                for &b in &nodes {
                    if in_tree.contains(&b) || failed[b] {
                        continue;
                    }
                    let d = self.dist(a, b);
                    if best.is_none_or(|(bd, _, _)| d < bd) {
                        best = Some((d, a, b));
                    }
                }
            }
            let Some((_, a, b)) = best else { break };
            if self.join(a, b, RoadTier::Highway) {
                in_tree.push(b);
                joined[b] = true;
            } else {
                failed[b] = true; // retried below as an ordinary town
            }
        }
    }

    /// Roads: the other towns, nearest to the capitol first, each to the nearest joined town it
    /// can reach. A town none of its three nearest joined towns reaches is retried against every
    /// joined town, and again after others have joined, until a round joins nobody. The towns
    /// left unreachable.
    fn local_roads(&mut self, capitol: usize, joined: &mut [bool]) -> Vec<usize> {
        let count = self.inp.site.towns.len();
        let mut rest: Vec<usize> = (0..count).filter(|&i| !joined[i]).collect();
        rest.sort_by(|&a, &b| self.dist(capitol, a).total_cmp(&self.dist(capitol, b)).then(a.cmp(&b)));
        let mut first_round = true;
        loop {
            let mut left = Vec::new();
            for &town in &rest {
                let mut targets: Vec<usize> = (0..count).filter(|&i| joined[i]).collect();
                targets.sort_by(|&a, &b| self.dist(town, a).total_cmp(&self.dist(town, b)).then(a.cmp(&b)));
                let tries = if first_round { 3 } else { targets.len() };
                if targets.into_iter().take(tries).any(|to| self.join(to, town, RoadTier::Road)) {
                    joined[town] = true;
                } else {
                    left.push(town);
                }
            }
            let progress = left.len() < rest.len();
            rest = left;
            if rest.is_empty() || (!progress && !first_round) {
                return rest;
            }
            first_round = false;
        }
    }
}

/// The road guard: no point on the ocean, a lake or the crater core; bridges only over rivers;
/// every road joins two towns.
fn guard(inp: &Inputs<'_>, water: &Water, roads: &[Road]) -> anyhow::Result<()> {
    for (k, r) in roads.iter().enumerate() {
        for (i, &p) in r.points.iter().enumerate() {
            anyhow::ensure!(!closed_at(inp, water, p), "road guard: road {k} point {i} lies on closed water");
            let bridged = r.bridges.iter().any(|s| (s[0] as usize..=s[1] as usize).contains(&i));
            anyhow::ensure!(
                bridged || !on_river(inp, water, p),
                "road guard: road {k} point {i} is on a river off a bridge"
            );
        }
        anyhow::ensure!(r.from_town != NO_TOWN && r.to_town != NO_TOWN, "road guard: road {k} has a loose end");
    }
    Ok(())
}

/// The network's figures: roads, highways, lengths and bridges (`mpp`: metres per pixel).
fn tally(stats: &mut RoadStats, roads: &[Road], mpp: f32) {
    stats.roads = roads.len();
    stats.highways = roads.iter().filter(|r| r.tier == RoadTier::Highway).count();
    // From +0.0: `Sum` of no floats is −0.0 ("-0.0 km" in the log).
    stats.total_length_m = roads.iter().map(|r| (r.length_px() * mpp) as f64).fold(0.0, |a, b| a + b);
    stats.bridges = roads.iter().map(|r| r.bridges.len()).sum();
    stats.bridge_length_m = roads
        .iter()
        .flat_map(|r| r.bridges.iter().map(move |s| (r, s)))
        .map(|(r, s)| {
            let pts = &r.points[s[0] as usize..=s[1] as usize];
            pts.windows(2).map(|w| ((w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]) * mpp) as f64).sum::<f64>()
        })
        .sum();
}
