//! Drainage (step 1 of the river stage): the routing surface by priority flood, D8 directions,
//! flow accumulation and longest flow paths, and the masks the planner keeps clear.

#![allow(clippy::needless_range_loop)]

use super::*;

/// The drainage analysis: routing surface, D8 directions, accumulation.
pub(super) struct Drainage {
    /// D8 direction 0..7, [`TO_WATER`] + k into a water neighbour k, or [`SINK`].
    pub(super) dir: Vec<u8>,
    pub(super) acc: Vec<u32>,
    /// Length (pixels) of the longest flow path from a source down to each cell.
    pub(super) longest: Vec<f32>,
    /// The routing surface: pits filled one ulp above their spill, terminal basins as they are.
    pub(super) filled: Vec<f32>,
}

pub(super) const SINK: u8 = 255;
pub(super) const TO_WATER: u8 = 16;

impl Drainage {
    pub(super) fn target(&self, i: usize, n: usize) -> Option<usize> {
        flow_target(&self.dir, i, n)
    }
}

/// The cell a D8 direction `dir[i]` leads to, `None` for a sink.
fn flow_target(dir: &[u8], i: usize, n: usize) -> Option<usize> {
    let d = dir[i];
    if d == SINK {
        return None;
    }
    let k = (d % TO_WATER) as usize;
    let (x, y) = ((i / n) as i64 + DX[k], (i % n) as i64 + DY[k]);
    Some(x as usize * n + y as usize)
}

/// `route_h` (the routing heights of [`routing_surface`]) becomes the filled routing surface.
pub(super) fn drainage(st: &Stage<'_>, route_h: Vec<f32>, ids: &[u16], stats: &mut RiverStats) -> Drainage {
    let n = st.inp.n;
    let (mut filled, raised, seen) = fill_pits(st, route_h, ids);
    revert_terminal_basins(st, &mut filled, raised, seen, stats);
    let dir = d8_directions(n, &st.outlet, &filled);
    let (acc, longest) = accumulate(n, &st.outlet, &dir);
    Drainage { dir, acc, longest, filled }
}

/// Step 1, the fill: priority flood from the outlets (dry pixels touching water) and the dry
/// border, every pit raised one ulp above the cell it is reached from (a strictly descending way
/// back out of it). The filled surface; the cells it raised with their heights before (lake
/// cells crossed are flats at their level, not pits, and stay out of the list); the flood's
/// visited mask (every cell), for reuse.
fn fill_pits(st: &Stage<'_>, route_h: Vec<f32>, ids: &[u16]) -> (Vec<f32>, Vec<(u32, f32)>, Vec<bool>) {
    let (n, outlet) = (st.inp.n, &st.outlet);
    let lake = |i: usize| ids[i] != 0 && !outlet[i];
    // The pit and basin tests compare against the unfilled heights: keep what the fill raises
    // (few pixels) rather than a second map.
    let mut filled = route_h;
    let mut raised: Vec<(u32, f32)> = Vec::new();
    let mut seen = outlet.clone();
    let seeds = (0..n * n).filter(|&i| !outlet[i] && (is_border(i, n) || neighbours8(i, n).any(|(_, j)| outlet[j])));
    let fill = |j: usize, old: f32, level: f32| {
        if !lake(j) {
            raised.push((j as u32, old));
        }
        level.next_up()
    };
    priority_flood(n, Connectivity::Eight, &mut filled, &mut seen, seeds, fill);
    (filled, raised, seen)
}

/// Step 2, the depressions: 8-connected groups of cells the fill raised; one at least
/// [`ENDO_MIN_DEPTH_M`] deep and [`RiverDials::endorheic_min_area`] large reverts to its real
/// surface (a dry terminal basin), the others stay filled. `buffer` is a spare mask of the map.
fn revert_terminal_basins(
    st: &Stage<'_>,
    filled: &mut [f32],
    mut raised: Vec<(u32, f32)>,
    buffer: Vec<bool>,
    stats: &mut RiverStats,
) {
    let n = st.inp.n;
    raised.sort_unstable_by_key(|r| r.0);
    let orig = |i: usize| raised[raised.binary_search_by_key(&(i as u32), |r| r.0).expect("a raised cell")].1;
    let min_area = (st.d.endorheic_min_area as f64 * (n * n) as f64).max(1.0) as usize;
    let mut pending = buffer; // true = raised and not yet in a pool
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
        pending[s] = false;
        let mut depth = 0f32;
        let take = |j: usize| std::mem::replace(&mut pending[j], false);
        let visit = |c: usize| {
            depth = depth.max((filled[c] - orig(c)) * st.inp.mpr);
            members.push(c);
        };
        flood_region(n, Connectivity::Eight, [s], take, visit);
        if depth >= ENDO_MIN_DEPTH_M && members.len() >= min_area {
            stats.terminal_basins += 1;
            for &c in &members {
                filled[c] = orig(c);
            }
        } else {
            stats.depressions_filled += 1;
        }
    }
}

/// Step 3, D8 on the routing surface: every dry cell's steepest way down, into water when no dry
/// neighbour is lower.
fn d8_directions(n: usize, outlet: &[bool], filled: &[f32]) -> Vec<u8> {
    (0..n * n).map(|i| if outlet[i] { SINK } else { d8_direction(i, n, outlet, filled) }).collect()
}

/// The D8 direction of dry cell `i`: the steepest drop (ties to the first in neighbour order), or
/// [`TO_WATER`] + k for the steepest water neighbour k when no dry one is lower, or [`SINK`].
fn d8_direction(i: usize, n: usize, outlet: &[bool], filled: &[f32]) -> u8 {
    let (mut best, mut best_k, mut water_k) = (0f32, usize::MAX, usize::MAX);
    for (k, j) in neighbours8(i, n) {
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
    match best_k {
        usize::MAX if water_k != usize::MAX => TO_WATER + water_k as u8,
        usize::MAX => SINK,
        k if k >= 100 => TO_WATER + (k - 100) as u8,
        k => k as u8,
    }
}

/// Step 4, accumulation in Kahn (topological) order, dry cells only (water cells only receive):
/// the drained area of every cell (pixels) and its longest flow path from a source (pixels).
fn accumulate(n: usize, outlet: &[bool], dir: &[u8]) -> (Vec<u32>, Vec<f32>) {
    let total = n * n;
    let mut acc = vec![0u32; total];
    let mut indeg = vec![0u8; total];
    let mut longest = vec![0f32; total];
    for i in 0..total {
        if !outlet[i]
            && dir[i] < TO_WATER
            && let Some(t) = flow_target(dir, i, n)
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
        if dir[c] >= TO_WATER {
            continue;
        }
        let t = flow_target(dir, c, n).expect("a dry direction has a target");
        acc[t] += acc[c];
        longest[t] = longest[t].max(longest[c] + DIST[dir[c] as usize]);
        indeg[t] -= 1;
        if indeg[t] == 0 {
            q.push_back(t);
        }
    }
    (acc, longest)
}

/// Trace a stem upstream from `from` along the longest flow path (the hydrologists' main stem)
/// among the inflows that drain at least `min_acc`, stopping before protected ground.
pub(super) fn trace_up(dr: &Drainage, n: usize, from: usize, min_acc: u32, near_protected: &[bool]) -> Vec<usize> {
    let mut stem = vec![from];
    let mut c = from;
    loop {
        let (mut best, mut best_l) = (usize::MAX, -1f32);
        for (_, j) in neighbours8(c, n) {
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
pub(super) fn grow(mask: &[bool], n: usize, r: usize) -> Vec<bool> {
    let rows = dilate(mask, n, r, |line, k| line * n + k);
    dilate(&rows, n, r, |line, k| k * n + line)
}

/// One axis of [`grow`]: each of the `n` lines (`at(line, k)` its k-th cell) marks every cell
/// within `r` of a set cell, by a forward and a backward sweep.
pub(super) fn dilate(mask: &[bool], n: usize, r: usize, at: impl Fn(usize, usize) -> usize) -> Vec<bool> {
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
