//! Grid kernels the forge's stages share, on a square row-major grid (`index = x * side + y`):
//! the 8-neighbour table and the neighbours of a cell, a breadth-first region flood, the priority
//! flood (water's spill levels, the rivers' routing surface) and the least-cost search (the
//! rivers' lowground router, the roads' A*). Each is written once here.
//!
//! The table's order is fixed: it is the deterministic tie-break of every search and flood that
//! walks it. Heaps order cells by `(ord_key(level), index)`, so equal levels go by cell index.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Neighbour offsets in X, in the fixed order.
pub const DX: [i64; 8] = [-1, -1, -1, 0, 0, 1, 1, 1];
/// Neighbour offsets in Y, in the same order.
pub const DY: [i64; 8] = [-1, 0, 1, -1, 1, -1, 0, 1];
/// Length of each step in cells (√2 on the diagonals).
pub const DIST: [f32; 8] = [
    std::f32::consts::SQRT_2,
    1.0,
    std::f32::consts::SQRT_2,
    1.0,
    1.0,
    std::f32::consts::SQRT_2,
    1.0,
    std::f32::consts::SQRT_2,
];

/// Which neighbours a flood walks, and in which order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connectivity {
    /// −X, +X, −Y, +Y ([`DX`]/[`DY`] entries 1, 6, 3, 4): the water classification's order.
    Four,
    /// All eight, in [`DX`]/[`DY`] order.
    Eight,
}

impl Connectivity {
    /// The [`DX`]/[`DY`] entries walked, in order.
    pub fn steps(self) -> &'static [usize] {
        match self {
            Connectivity::Four => &[1, 6, 3, 4],
            Connectivity::Eight => &[0, 1, 2, 3, 4, 5, 6, 7],
        }
    }
}

/// Neighbour `k` (0..8, [`DX`]/[`DY`] order) of cell `i` on a `side × side` grid, if inside.
#[inline]
pub fn neighbour(i: usize, side: usize, k: usize) -> Option<usize> {
    let (x, y) = ((i / side) as i64 + DX[k], (i % side) as i64 + DY[k]);
    let s = side as i64;
    (x >= 0 && y >= 0 && x < s && y < s).then(|| x as usize * side + y as usize)
}

/// The neighbours of cell `i` inside the grid, as `(k, j)`: `j` is neighbour `k`, in `conn`'s order.
#[inline]
pub fn neighbours(i: usize, side: usize, conn: Connectivity) -> impl Iterator<Item = (usize, usize)> {
    let (x, y, s) = ((i / side) as i64, (i % side) as i64, side as i64);
    conn.steps().iter().filter_map(move |&k| {
        let (nx, ny) = (x + DX[k], y + DY[k]);
        (nx >= 0 && ny >= 0 && nx < s && ny < s).then(|| (k, nx as usize * side + ny as usize))
    })
}

/// The 4-neighbours of cell `i` inside the grid (−X, +X, −Y, +Y).
#[inline]
pub fn neighbours4(i: usize, side: usize) -> impl Iterator<Item = usize> {
    neighbours(i, side, Connectivity::Four).map(|(_, j)| j)
}

/// The 8-neighbours of cell `i` inside the grid, as `(k, j)` in [`DX`]/[`DY`] order.
#[inline]
pub fn neighbours8(i: usize, side: usize) -> impl Iterator<Item = (usize, usize)> {
    neighbours(i, side, Connectivity::Eight)
}

/// The `k` of the step from cell `from` to its neighbour `to` ([`DX`]/[`DY`] order).
#[inline]
pub fn step_between(from: usize, to: usize, side: usize) -> usize {
    let dx = (to / side) as i64 - (from / side) as i64;
    let dy = (to % side) as i64 - (from % side) as i64;
    let slot = ((dx + 1) * 3 + dy + 1) as usize; // 0..9 with the centre at 4
    if slot < 4 { slot } else { slot - 1 }
}

/// Whether cell `i` lies on the grid's border.
#[inline]
pub fn is_border(i: usize, side: usize) -> bool {
    let (x, y) = (i / side, i % side);
    x == 0 || y == 0 || x == side - 1 || y == side - 1
}

/// A total order on f32 as u32, for the heaps. On non-negative levels it orders as the raw bits
/// do, which the water's spill flood and the roads' A* keyed by before they shared these kernels:
/// their keys are never negative, so their order (and output) is unchanged.
#[inline]
pub fn ord_key(f: f32) -> u32 {
    let b = f.to_bits();
    if b >> 31 == 0 { b | 0x8000_0000 } else { !b }
}

/// Breadth-first flood of a region from `seeds` (already taken by the caller): each neighbour `j`
/// of a visited cell for which `take(j)` holds (`take` marks it taken) is visited in turn.
/// `visit` sees every cell, seeds first, in FIFO order.
pub fn flood_region(
    side: usize,
    conn: Connectivity,
    seeds: impl IntoIterator<Item = usize>,
    mut take: impl FnMut(usize) -> bool,
    mut visit: impl FnMut(usize),
) {
    let mut queue: VecDeque<usize> = seeds.into_iter().collect();
    while let Some(i) = queue.pop_front() {
        visit(i);
        for (_, j) in neighbours(i, side, conn) {
            if take(j) {
                queue.push_back(j);
            }
        }
    }
}

/// Priority flood (Barnes, Lehman & Mulla's improved variant) over `surface` from the `seeds`.
///
/// Cells are reached in order of level, lowest first (ties by index), each from its lowest
/// reached neighbour; a cell `seen` is never entered (seeds are marked seen here, obstacles and
/// outlets by the caller). A reached cell at or below the level `l` it was reached from is filled:
/// `surface[j] = fill(j, surface[j], l)`, and goes through a FIFO queue instead of the heap (the
/// same order of levels, far fewer heap operations over flats and pits); a higher one keeps its
/// height and enters the heap. `fill` is where the callers differ: the water's spill levels fill
/// to `l` itself (4-connected), the rivers' routing surface one ulp above it (8-connected), so
/// every pit drains by a strictly descending way.
pub fn priority_flood(
    side: usize,
    conn: Connectivity,
    surface: &mut [f32],
    seen: &mut [bool],
    seeds: impl IntoIterator<Item = usize>,
    mut fill: impl FnMut(usize, f32, f32) -> f32,
) {
    let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    let mut pit: VecDeque<usize> = VecDeque::new();
    for i in seeds {
        seen[i] = true;
        heap.push(Reverse((ord_key(surface[i]), i as u32)));
    }
    loop {
        let c = match pit.pop_front() {
            Some(c) => c,
            None => match heap.pop() {
                Some(Reverse((_, c))) => c as usize,
                None => break,
            },
        };
        let level = surface[c];
        for (_, j) in neighbours(c, side, conn) {
            if seen[j] {
                continue;
            }
            seen[j] = true;
            if surface[j] <= level {
                surface[j] = fill(j, surface[j], level);
                pit.push_back(j);
            } else {
                heap.push(Reverse((ord_key(surface[j]), j as u32)));
            }
        }
    }
}

/// One step a least-cost search considers: from cell `from` to its neighbour `to` (step `k`),
/// `from` having been reached by step `came` (`None` at the start).
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub from: usize,
    pub k: usize,
    pub to: usize,
    pub came: Option<usize>,
}

/// Least-cost search over the 8-neighbours with buffers reused between searches: Dijkstra, or A*
/// with a heuristic. The heap orders cells by `(ord_key(cost + heuristic), index)`, so equal
/// keys go by cell index; a cell is expanded once (a closed set) and never relaxed after. The
/// rivers' router is Dijkstra (no heuristic; the goal is any cell of a body), the roads' search A*
/// with the straight-line distance to one goal cell and a step cost that depends on the step that
/// came (turns). The router used to skip stale heap entries by comparing keys instead of keeping a
/// closed set: with step costs never negative the two expand the same cells in the same order.
pub struct LeastCost {
    side: usize,
    cost: Vec<f32>,
    parent: Vec<u32>,
    closed: Vec<bool>,
    touched: Vec<usize>,
    /// Cells expanded by the searches so far.
    pub expanded: u64,
}

impl LeastCost {
    /// The buffers for a `side × side` grid.
    pub fn new(side: usize) -> Self {
        let cells = side * side;
        Self {
            side,
            cost: vec![f32::INFINITY; cells],
            parent: vec![u32::MAX; cells],
            closed: vec![false; cells],
            touched: Vec::new(),
            expanded: 0,
        }
    }

    /// The first goal cell expanded from `start`, or `None` when none can be reached. `step_cost`
    /// prices a step (`None`: not taken; never negative); `heuristic` must not overestimate the
    /// cost to a goal.
    pub fn search(
        &mut self,
        start: usize,
        is_goal: impl Fn(usize) -> bool,
        heuristic: impl Fn(usize) -> f32,
        mut step_cost: impl FnMut(Step) -> Option<f32>,
    ) -> Option<usize> {
        self.reset();
        let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
        self.cost[start] = 0.0;
        self.touched.push(start);
        heap.push(Reverse((ord_key(heuristic(start)), start as u32)));
        while let Some(Reverse((_, c))) = heap.pop() {
            let c = c as usize;
            if self.closed[c] {
                continue;
            }
            self.closed[c] = true;
            self.expanded += 1;
            if is_goal(c) {
                return Some(c);
            }
            let came = (self.parent[c] != u32::MAX).then(|| step_between(self.parent[c] as usize, c, self.side));
            for (k, j) in neighbours8(c, self.side) {
                if self.closed[j] {
                    continue;
                }
                let Some(step) = step_cost(Step { from: c, k, to: j, came }) else { continue };
                let nc = self.cost[c] + step;
                if nc < self.cost[j] {
                    if self.cost[j].is_infinite() {
                        self.touched.push(j);
                    }
                    self.cost[j] = nc;
                    self.parent[j] = c as u32;
                    heap.push(Reverse((ord_key(nc + heuristic(j)), j as u32)));
                }
            }
        }
        None
    }

    /// The cells of the last search's path from its start to `goal`, both included.
    pub fn path_to(&self, goal: usize) -> Vec<usize> {
        let mut path = vec![goal];
        let mut c = self.parent[goal];
        while c != u32::MAX {
            path.push(c as usize);
            c = self.parent[c as usize];
        }
        path.reverse();
        path
    }

    /// Clear what the last search touched.
    fn reset(&mut self) {
        for &i in &self.touched {
            self.cost[i] = f32::INFINITY;
            self.parent[i] = u32::MAX;
            self.closed[i] = false;
        }
        self.touched.clear();
    }
}
