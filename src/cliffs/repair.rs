//! One chunk's edge crossings and the repair sweep (SPEC §6, the reference game's
//! `fixImpossibleCells`): a single forward pass that clears edges until every cell's code is
//! legal, never touching an edge on the chunk's outer boundary (so neighbouring chunks, which
//! share those edges, never disagree), with one restart that first clears the eight outer edges
//! of the four corner cells.

use super::codes::{is_legal, pack_code};
use super::lattice::{CHUNK_CELLS, CHUNK_CORNERS};

const W: usize = CHUNK_CELLS;
/// Vertical edges (corner `(x, y)` → `(x, y + 1)`): 9 columns × 8 rows, index `x + 9·y`.
const VERTICAL_LEN: usize = CHUNK_CORNERS * CHUNK_CELLS;
/// Horizontal edges (corner `(x, y)` → `(x + 1, y)`): 8 columns × 9 rows, index `x + 8·y`.
const HORIZONTAL_LEN: usize = CHUNK_CELLS * CHUNK_CORNERS;

/// A cell's edge, in the sweep's clearing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    L,
    T,
    R,
    B,
}

/// The order the sweep clears a cell's edges in (the reference game's cliff placer: "L, T, R, B").
pub const CLEAR_ORDER: [Edge; 4] = [Edge::L, Edge::T, Edge::R, Edge::B];

/// The signed crossings of one chunk's 144 edges (−1, 0, +1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkEdges {
    pub vertical: [i8; VERTICAL_LEN],
    pub horizontal: [i8; HORIZONTAL_LEN],
}

impl Default for ChunkEdges {
    fn default() -> Self {
        Self { vertical: [0; VERTICAL_LEN], horizontal: [0; HORIZONTAL_LEN] }
    }
}

impl ChunkEdges {
    #[inline]
    fn slot(cx: usize, cy: usize, e: Edge) -> (bool, usize) {
        match e {
            Edge::L => (true, cx + CHUNK_CORNERS * cy),
            Edge::R => (true, cx + 1 + CHUNK_CORNERS * cy),
            Edge::T => (false, cx + W * cy),
            Edge::B => (false, cx + W * (cy + 1)),
        }
    }
    #[inline]
    pub fn get(&self, cx: usize, cy: usize, e: Edge) -> i8 {
        match Self::slot(cx, cy, e) {
            (true, i) => self.vertical[i],
            (false, i) => self.horizontal[i],
        }
    }
    #[inline]
    pub fn set(&mut self, cx: usize, cy: usize, e: Edge, v: i8) {
        match Self::slot(cx, cy, e) {
            (true, i) => self.vertical[i] = v,
            (false, i) => self.horizontal[i] = v,
        }
    }
    /// The cell's packed code, `L<<6 | R<<4 | T<<2 | B`.
    #[inline]
    pub fn code(&self, cx: usize, cy: usize) -> u8 {
        pack_code(
            self.get(cx, cy, Edge::L),
            self.get(cx, cy, Edge::R),
            self.get(cx, cy, Edge::T),
            self.get(cx, cy, Edge::B),
        )
    }
    /// Whether a cell's edge lies on the chunk's outer boundary (and so may never be cleared).
    #[inline]
    pub fn on_chunk_boundary(cx: usize, cy: usize, e: Edge) -> bool {
        match e {
            Edge::L => cx == 0,
            Edge::R => cx == W - 1,
            Edge::T => cy == 0,
            Edge::B => cy == W - 1,
        }
    }
}

/// What the sweep did to one chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RepairOutcome {
    /// Edges cleared, over both passes.
    pub cleared_edges: u32,
    /// The first pass met a cell it could not fix and the pass restarted.
    pub restarted: bool,
    /// The second pass failed too: cells from this row-major index (`cx + 8·cy`) on are abandoned
    /// (they place nothing).
    pub abandoned_from: Option<usize>,
}

/// Run the sweep over one chunk's edges in place.
pub fn fix_impossible_cells(edges: &mut ChunkEdges) -> RepairOutcome {
    let mut out = RepairOutcome::default();
    let mut retry = false;
    loop {
        if retry {
            // The eight outer edges of the four corner cells.
            for (cx, cy) in [(0, 0), (W - 1, 0), (0, W - 1), (W - 1, W - 1)] {
                for e in CLEAR_ORDER {
                    if ChunkEdges::on_chunk_boundary(cx, cy, e) {
                        edges.set(cx, cy, e, 0);
                    }
                }
            }
        }
        match sweep(edges, &mut out.cleared_edges) {
            None => return out,
            Some(stuck) if retry => {
                out.abandoned_from = Some(stuck);
                return out;
            }
            Some(_) => {
                // Restart over the arrays as the abandoned pass left them (as the reference game does).
                retry = true;
                out.restarted = true;
            }
        }
    }
}

/// One forward pass, rows outer; the index of the first cell it cannot fix, if any.
fn sweep(edges: &mut ChunkEdges, cleared: &mut u32) -> Option<usize> {
    for cy in 0..W {
        for cx in 0..W {
            while !is_legal(edges.code(cx, cy)) {
                let clearable = CLEAR_ORDER
                    .into_iter()
                    .find(|&e| !ChunkEdges::on_chunk_boundary(cx, cy, e) && edges.get(cx, cy, e) != 0);
                match clearable {
                    Some(e) => {
                        edges.set(cx, cy, e, 0);
                        *cleared += 1;
                    }
                    None => return Some(cx + W * cy),
                }
            }
        }
    }
    None
}
