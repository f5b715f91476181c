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
pub(super) fn drainage(
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
pub(super) fn trace_up(dr: &Drainage, n: usize, from: usize, min_acc: u32, near_protected: &[bool]) -> Vec<usize> {
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
