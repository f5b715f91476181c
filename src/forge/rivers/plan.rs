//! Planning (step 2): trunks, lake rivers and tributaries from the drainage, and the
//! deterministic least-cost router that takes a stem from its mountain exit to its body.

#![allow(clippy::needless_range_loop)]

use super::*;

pub(super) fn course_length_px(n: usize, cells: &[usize]) -> f32 {
    cells
        .windows(2)
        .map(|w| {
            let (dx, dy) = ((w[1] / n) as f32 - (w[0] / n) as f32, (w[1] % n) as f32 - (w[0] % n) as f32);
            (dx * dx + dy * dy).sqrt()
        })
        .sum()
}

pub(super) fn plan(
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
pub(super) struct Router {
    pub(super) cost: Vec<f32>,
    pub(super) parent: Vec<u32>,
    pub(super) touched: Vec<usize>,
}

impl Router {
    pub(super) fn new(n: usize) -> Self {
        Self { cost: vec![f32::INFINITY; n * n], parent: vec![u32::MAX; n * n], touched: Vec::new() }
    }

    /// The cheapest path from `start` into water of body `target`, as cells from `start` to the
    /// last dry cell; `None` when no path exists.
    pub(super) fn route(
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
