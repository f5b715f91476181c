//! Planning (step 2): trunks, lake rivers and tributaries from the drainage, and the
//! deterministic least-cost route (the shared [`LeastCost`] search) that takes a stem from its
//! mountain exit to its body.

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

/// Plan every course: the main rivers in rank order, each followed (after all of them) by its
/// tributaries, so a tributary's parent keeps its index and is carved before it.
pub(super) fn plan(st: &Stage<'_>, render: &[f32], ids: &[u16], dr: &Drainage) -> Vec<Plan> {
    let pl = Planner::new(st, render, ids, dr);
    let mut search = LeastCost::new(pl.n);
    let mut plans = Vec::new();
    let mut trib_plans = Vec::new();
    for (mouth, body) in pl.mains() {
        let stem = trace_up(dr, pl.n, mouth, pl.stem_min, &pl.near); // stem[0] = the last cell before water
        let (cells, upland_end) = pl.main_course(&mut search, &stem, body);
        if course_length_px(pl.n, &cells) < pl.min_main_px {
            continue;
        }
        // Tributaries from the upland stem (above the exit: the cells the course keeps).
        let tribs = pl.tributaries(&stem[upland_end..], plans.len());
        plans.push(pl.plan_of(cells, 1, body, None));
        trib_plans.extend(tribs);
    }
    // Main rivers first (a tributary needs its parent carved): parents keep their indices.
    plans.extend(trib_plans);
    plans
}

/// What planning reads: the stage, the maps, the drainage, the protected ground grown by a
/// channel's width, and the dials' areas and lengths in pixels.
struct Planner<'a> {
    st: &'a Stage<'a>,
    render: &'a [f32],
    ids: &'a [u16],
    dr: &'a Drainage,
    n: usize,
    near: Vec<bool>,
    main_min: u32,
    trib_min: u32,
    stem_min: u32,
    /// Mountain exit window (cells).
    window: usize,
    min_main_px: f32,
}

impl<'a> Planner<'a> {
    fn new(st: &'a Stage<'a>, render: &'a [f32], ids: &'a [u16], dr: &'a Drainage) -> Self {
        let (d, inp, n) = (st.d, st.inp, st.inp.n);
        let total = (n * n) as f64;
        let max_half_px = ((HALF_WIDTH_HEAD_M + HALF_WIDTH_PER_SIZE_M * 2.0) * d.width_scale / inp.mpp).ceil() as usize;
        let near = grow(&st.protected, n, max_half_px + 2);
        let frac = |f: f32| (f as f64 * total).max(1.0) as u32;
        Self {
            st,
            render,
            ids,
            dr,
            n,
            near,
            main_min: frac(d.main_min_area),
            trib_min: frac(d.tributary_min_area),
            stem_min: frac(d.stem_min_area),
            window: (n / 64).max(8),
            min_main_px: d.min_length_m / inp.mpp,
        }
    }

    /// The main rivers' mouths (the last dry cell) and bodies: outlets (dry cells draining into
    /// water) by drained area, ties by index, at most [`RiverDials::trunks`] into the ocean and
    /// [`RiverDials::lake_rivers`] into lakes, each [`RiverDials::mouth_separation`] from the others.
    fn mains(&self) -> Vec<(usize, u16)> {
        let (n, d, dr) = (self.n, self.st.d, self.dr);
        let mut outlets: Vec<(u32, usize, u16)> = Vec::new();
        for i in 0..n * n {
            if !self.st.outlet[i]
                && dr.dir[i] >= TO_WATER
                && dr.dir[i] != SINK
                && dr.acc[i] >= self.main_min
                && !self.near[i]
            {
                let t = dr.target(i, n).expect("into water");
                outlets.push((dr.acc[i], i, self.ids[t]));
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
        mains
    }

    /// The mountain exit: the first stem point from the mouth whose upstream window still climbs
    /// [`EXIT_GRADE`], on the routing surface (a crossed lake reads as its level, not its bed).
    fn mountain_exit(&self, stem: &[usize]) -> Option<usize> {
        let (inp, w) = (self.st.inp, self.window);
        (0..stem.len().saturating_sub(w)).find(|&i| {
            let rise_m = (self.dr.filled[stem[i + w]] - self.dr.filled[stem[i]]) * inp.mpr;
            rise_m / (w as f32 * inp.mpp) >= EXIT_GRADE
        })
    }

    /// A main river's cells from head to mouth: the stem down to its mountain exit, then the
    /// lowground route to its body (the stem itself where no route exists); and where the upland
    /// part ends on the stem.
    fn main_course(&self, search: &mut LeastCost, stem: &[usize], body: u16) -> (Vec<usize>, usize) {
        let exit = self.mountain_exit(stem);
        let upland_end = exit.unwrap_or(0);
        let mut cells: Vec<usize> = stem[upland_end..].iter().rev().copied().collect();
        if let Some(e) = exit
            && e > 0
        {
            match self.route(search, stem[e], body) {
                Some(route) => cells.extend(&route[1..]),
                None => cells.extend(stem[..e].iter().rev()),
            }
        }
        (cells, upland_end)
    }

    /// The tributaries of main plan `parent` along its upland stem: the inflows draining at least
    /// [`RiverDials::tributary_min_area`], largest first, up to [`RiverDials::tributaries`] of
    /// them and none too near one taken, each traced upstream and long enough.
    fn tributaries(&self, upland: &[usize], parent: usize) -> Vec<Plan> {
        let (n, dr) = (self.n, self.dr);
        let dedupe = (n as f32 / 34.0).max(4.0);
        let mut taken: Vec<usize> = Vec::new();
        let mut tribs = Vec::new();
        for (a, j, sc) in self.junctions(upland) {
            if taken.len() >= self.st.d.tributaries as usize {
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
            let ts = trace_up(dr, n, j, self.stem_min.max(a / 20), &self.near);
            let mut tc: Vec<usize> = ts.iter().rev().copied().collect();
            tc.push(sc);
            if course_length_px(n, &tc) >= 0.5 * self.min_main_px {
                tribs.push(self.plan_of(tc, 2, 0, Some(parent)));
            }
        }
        tribs
    }

    /// Tributary candidates along an upland stem, as (drained area, inflow cell, stem cell): the
    /// off-stem inflows draining at least the tributary minimum, by area (ties by index).
    fn junctions(&self, upland: &[usize]) -> Vec<(u32, usize, usize)> {
        let (n, dr) = (self.n, self.dr);
        let on_stem: std::collections::HashSet<usize> = upland.iter().copied().collect();
        let mut cands: Vec<(u32, usize, usize)> = Vec::new();
        for &sc in upland {
            for (_, j) in neighbours8(sc, n) {
                if !on_stem.contains(&j)
                    && dr.dir[j] < TO_WATER
                    && dr.target(j, n) == Some(sc)
                    && dr.acc[j] >= self.trib_min
                    && !self.near[j]
                {
                    cands.push((dr.acc[j], j, sc));
                }
            }
        }
        cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        cands
    }

    /// A plan of `cells`, with the drained area and routing surface along them.
    fn plan_of(&self, cells: Vec<usize>, order: u8, mouth_body: u16, parent: Option<usize>) -> Plan {
        let area = cells.iter().map(|&c| self.dr.acc[c]).collect();
        let ground = cells.iter().map(|&c| self.dr.filled[c]).collect();
        Plan { cells, area, ground, order, mouth_body, parent }
    }

    /// The lowground route (deterministic Dijkstra, cost ≈ elevation above sea) from `start` into
    /// water of body `target`, as cells from `start` to the last dry cell; `None` when no path
    /// exists. Other water and the grown protected ground are closed to it.
    fn route(&self, search: &mut LeastCost, start: usize, target: u16) -> Option<Vec<usize>> {
        let (inp, render, ids, blocked) = (self.st.inp, self.render, self.ids, &self.near);
        let step_cost = |s: Step| {
            let j = s.to;
            let wet = ids[j] != 0;
            if (wet && ids[j] != target) || (!wet && blocked[j] && j != start) {
                return None;
            }
            let elev = ((render[j] - inp.sea) * inp.mpr).max(0.0);
            let up = ((render[j] - render[s.from]) * inp.mpr).max(0.0);
            Some(DIST[s.k] * (ROUTE_BASE + elev * ROUTE_PER_M_ELEVATION) + up * ROUTE_PER_M_UPHILL)
        };
        let goal = search.search(start, |c| ids[c] == target, |_| 0.0, step_cost)?;
        let mut path = search.path_to(goal);
        path.pop(); // the goal is the first cell in the water
        (!path.is_empty()).then_some(path)
    }
}
