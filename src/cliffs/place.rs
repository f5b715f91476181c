//! Placement over a window of chunks (SPEC §6): evaluate the corner lattice once, then per chunk
//! (in parallel) smooth the elevation, compute the 144 edge crossings, run the repair sweep, map
//! codes to orientations and drop cliffs on water. Each chunk reads only its own 9 × 9 corners,
//! so any tiling of a window gives byte-identical placements to the whole.

use super::codes::{Orientation, orientation_of};
use super::crossing::crosses_cliff;
use super::fields::FieldSource;
use super::lattice::{CHUNK_CELLS, CHUNK_CORNERS, ChunkWindow, cell_centre_tiles, smooth_chunk_elevation};
use super::repair::{ChunkEdges, fix_impossible_cells};
use super::settings::CliffSettings;
use super::water::WaterMask;
use rayon::prelude::*;
use std::time::Instant;

/// One placed cliff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct PlacedCliff {
    /// Global cell coordinates (a cell is 4 × 4 tiles; cell 0 starts at tile 0).
    pub cell_x: i64,
    pub cell_y: i64,
    /// The packed crossing code after repair.
    pub code: u8,
    pub orientation: Orientation,
}

impl PlacedCliff {
    /// The cliff's centre in world tiles: `(4·cx + 2, 4·cy + 2.5)`.
    pub fn centre_tiles(&self) -> (f32, f32) {
        cell_centre_tiles(self.cell_x, self.cell_y)
    }
}

/// What a placement did, for logs and the map window.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct CliffStats {
    pub placed: u32,
    /// Indexed by `Orientation as usize`.
    pub placed_per_orientation: [u32; Orientation::COUNT],
    pub rejected_by_water: u32,
    pub repaired_edges: u32,
    pub chunks_restarted: u32,
    pub chunks_abandoned: u32,
    /// Corner samples taken: `(cells_w + 1)·(cells_h + 1)` for the window.
    pub corner_evaluations: u64,
    pub elapsed_ms: f64,
}

/// A window's placement plus the lattices the map layers draw.
#[derive(Debug, Clone, PartialEq)]
pub struct CliffPlacement {
    pub window: ChunkWindow,
    pub settings: CliffSettings,
    /// Smoothed cliff elevation at every corner, row-major (`gx + corners_w·gy`).
    pub elevation: Vec<f32>,
    /// Raw cliffiness at every corner, same layout.
    pub cliffiness: Vec<f32>,
    /// Placed code per cell (0 where nothing is placed), row-major (`cx + cells_w·cy`).
    pub cell_codes: Vec<u8>,
    /// Placed cliffs, sorted by `(cell_y, cell_x)`.
    pub cliffs: Vec<PlacedCliff>,
    pub stats: CliffStats,
}

impl CliffPlacement {
    /// The placed cliffs as bytes (`i64 cell_x · i64 cell_y · u8 code`, little-endian, in order):
    /// the form the tiling guarantee is stated in.
    pub fn cliffs_to_bytes(cliffs: &[PlacedCliff]) -> Vec<u8> {
        let mut out = Vec::with_capacity(cliffs.len() * 17);
        for c in cliffs {
            out.extend_from_slice(&c.cell_x.to_le_bytes());
            out.extend_from_slice(&c.cell_y.to_le_bytes());
            out.push(c.code);
        }
        out
    }
    /// Placed code of global cell `(cell_x, cell_y)`, 0 outside the window.
    pub fn code_at_cell(&self, cell_x: i64, cell_y: i64) -> u8 {
        let (ox, oy) = self.window.origin_cell();
        let (dx, dy) = (cell_x - ox, cell_y - oy);
        let (w, h) = (self.window.cells_w() as i64, self.window.cells_h() as i64);
        if dx < 0 || dy < 0 || dx >= w || dy >= h { 0 } else { self.cell_codes[(dx + w * dy) as usize] }
    }
}

/// The result of one chunk, before assembly.
struct ChunkResult {
    smoothed: [f32; CHUNK_CORNERS * CHUNK_CORNERS],
    codes: [u8; CHUNK_CELLS * CHUNK_CELLS],
    rejected_by_water: u32,
    repaired_edges: u32,
    restarted: bool,
    abandoned: bool,
}

/// Evaluate the window's corner lattice: every corner exactly once, rows in parallel.
pub fn sample_lattice<F: FieldSource + ?Sized>(window: &ChunkWindow, fields: &F) -> (Vec<f32>, Vec<f32>) {
    let (cw, ch) = (window.corners_w(), window.corners_h());
    let (x0, y0) = window.origin_tiles();
    let rows: Vec<(Vec<f32>, Vec<f32>)> = (0..ch)
        .into_par_iter()
        .map(|gy| {
            let y = y0 + gy as i64 * super::lattice::CELL_TILES;
            let (mut e, mut c) = (Vec::with_capacity(cw), Vec::with_capacity(cw));
            for gx in 0..cw {
                let s = fields.sample(x0 + gx as i64 * super::lattice::CELL_TILES, y);
                e.push(s.elevation);
                c.push(s.cliffiness);
            }
            (e, c)
        })
        .collect();
    let (mut elevation, mut cliffiness) = (Vec::with_capacity(cw * ch), Vec::with_capacity(cw * ch));
    for (e, c) in rows {
        elevation.extend_from_slice(&e);
        cliffiness.extend_from_slice(&c);
    }
    (elevation, cliffiness)
}

/// What every chunk reads (window lattice, dials), worked out once and shared read-only by the parallel chunks.
struct ChunkInputs<'a> {
    window: &'a ChunkWindow,
    raw_elevation: &'a [f32],
    cliffiness: &'a [f32],
    enabled: bool,
    e0: f32,
    interval: f32,
    smoothing: f32,
    water: Option<&'a WaterMask>,
}

/// Place cliffs over `window`. Runs on the current rayon pool (install a 1-thread pool for a
/// single-threaded run); the output does not depend on the thread count.
pub fn place_cliffs<F: FieldSource + ?Sized>(
    window: ChunkWindow,
    settings: &CliffSettings,
    fields: &F,
    water: Option<&WaterMask>,
) -> CliffPlacement {
    let t = Instant::now();
    let (raw_elevation, cliffiness) = sample_lattice(&window, fields);
    let inputs = ChunkInputs {
        window: &window,
        raw_elevation: &raw_elevation,
        cliffiness: &cliffiness,
        enabled: settings.enabled(),
        e0: settings.elevation_0,
        interval: settings.effective_interval(),
        smoothing: settings.smoothing,
        water,
    };

    let chunks: Vec<(i32, i32)> = window.chunks().collect();
    let results: Vec<ChunkResult> = chunks.par_iter().map(|&(chx, chy)| place_chunk(&inputs, chx, chy)).collect();

    let (elevation, cell_codes, mut stats) = assemble(&window, &chunks, &results, raw_elevation.len());
    let cliffs = collect_cliffs(&window, &cell_codes, &mut stats);
    stats.elapsed_ms = t.elapsed().as_secs_f64() * 1e3;
    CliffPlacement { window, settings: *settings, elevation, cliffiness, cell_codes, cliffs, stats }
}

/// One chunk's cliffs from its own 9 × 9 corners only: the unit of parallel work, so any tiling matches the whole.
fn place_chunk(inputs: &ChunkInputs<'_>, chx: i32, chy: i32) -> ChunkResult {
    let window = inputs.window;
    let corners_w = window.corners_w();
    // This chunk's corners inside the window lattice.
    let gx0 = (chx - window.chunk_x0) as usize * CHUNK_CELLS;
    let gy0 = (chy - window.chunk_y0) as usize * CHUNK_CELLS;
    let at = |i: usize, j: usize| (gx0 + i) + corners_w * (gy0 + j);
    let mut elev = [0f32; CHUNK_CORNERS * CHUNK_CORNERS];
    let mut cliffy = [0f32; CHUNK_CORNERS * CHUNK_CORNERS];
    for j in 0..CHUNK_CORNERS {
        for i in 0..CHUNK_CORNERS {
            elev[i + CHUNK_CORNERS * j] = inputs.raw_elevation[at(i, j)];
            cliffy[i + CHUNK_CORNERS * j] = inputs.cliffiness[at(i, j)];
        }
    }
    smooth_chunk_elevation(&mut elev, inputs.smoothing);
    let mut r = ChunkResult {
        smoothed: elev,
        codes: [0; CHUNK_CELLS * CHUNK_CELLS],
        rejected_by_water: 0,
        repaired_edges: 0,
        restarted: false,
        abandoned: false,
    };
    if !inputs.enabled {
        return r;
    }
    let mut edges = chunk_crossings(&elev, &cliffy, inputs.e0, inputs.interval);
    let outcome = fix_impossible_cells(&mut edges);
    r.repaired_edges = outcome.cleared_edges;
    r.restarted = outcome.restarted;
    r.abandoned = outcome.abandoned_from.is_some();
    let live_cells = outcome.abandoned_from.unwrap_or(CHUNK_CELLS * CHUNK_CELLS);
    for idx in 0..live_cells {
        let (cx, cy) = (idx % CHUNK_CELLS, idx / CHUNK_CELLS);
        let code = edges.code(cx, cy);
        if orientation_of(code).is_none() {
            continue;
        }
        let gcx = chx as i64 * CHUNK_CELLS as i64 + cx as i64;
        let gcy = chy as i64 * CHUNK_CELLS as i64 + cy as i64;
        if inputs.water.is_some_and(|w| w.footprint_touches_water(gcx, gcy)) {
            r.rejected_by_water += 1;
            continue;
        }
        r.codes[idx] = code;
    }
    r
}

/// The signed crossings of one chunk's 144 edges before repair: the step the crossing rule owns, kept apart.
fn chunk_crossings(
    elev: &[f32; CHUNK_CORNERS * CHUNK_CORNERS],
    cliffy: &[f32; CHUNK_CORNERS * CHUNK_CORNERS],
    e0: f32,
    interval: f32,
) -> ChunkEdges {
    let cross = |a: usize, b: usize| crosses_cliff(elev[a], elev[b], (cliffy[a] + cliffy[b]) * 0.5, e0, interval);
    let mut edges = ChunkEdges::default();
    for y in 0..CHUNK_CELLS {
        for x in 0..CHUNK_CORNERS {
            edges.vertical[x + CHUNK_CORNERS * y] = cross(x + CHUNK_CORNERS * y, x + CHUNK_CORNERS * (y + 1));
        }
    }
    for y in 0..CHUNK_CORNERS {
        for x in 0..CHUNK_CELLS {
            edges.horizontal[x + CHUNK_CELLS * y] = cross(x + CHUNK_CORNERS * y, x + 1 + CHUNK_CORNERS * y);
        }
    }
    edges
}

/// Assemble the chunk results in window order (deterministic whatever the thread count): sequential, apart.
fn assemble(
    window: &ChunkWindow,
    chunks: &[(i32, i32)],
    results: &[ChunkResult],
    corner_len: usize,
) -> (Vec<f32>, Vec<u8>, CliffStats) {
    let corners_w = window.corners_w();
    let (cells_w, cells_h) = (window.cells_w(), window.cells_h());
    let mut elevation = vec![0f32; corner_len];
    let mut cell_codes = vec![0u8; cells_w * cells_h];
    let mut stats = CliffStats { corner_evaluations: window.corner_count(), ..Default::default() };
    for (&(chx, chy), r) in chunks.iter().zip(results) {
        let gx0 = (chx - window.chunk_x0) as usize * CHUNK_CELLS;
        let gy0 = (chy - window.chunk_y0) as usize * CHUNK_CELLS;
        for j in 0..CHUNK_CORNERS {
            for i in 0..CHUNK_CORNERS {
                elevation[(gx0 + i) + corners_w * (gy0 + j)] = r.smoothed[i + CHUNK_CORNERS * j];
            }
        }
        for cy in 0..CHUNK_CELLS {
            for cx in 0..CHUNK_CELLS {
                cell_codes[(gx0 + cx) + cells_w * (gy0 + cy)] = r.codes[cx + CHUNK_CELLS * cy];
            }
        }
        stats.rejected_by_water += r.rejected_by_water;
        stats.repaired_edges += r.repaired_edges;
        stats.chunks_restarted += r.restarted as u32;
        stats.chunks_abandoned += r.abandoned as u32;
    }
    (elevation, cell_codes, stats)
}

/// The placed cliffs, sorted by `(cell_y, cell_x)`, counted into `stats`: it reads cells, not chunks, so apart.
fn collect_cliffs(window: &ChunkWindow, cell_codes: &[u8], stats: &mut CliffStats) -> Vec<PlacedCliff> {
    let (cell_x0, cell_y0) = window.origin_cell();
    let (cells_w, cells_h) = (window.cells_w(), window.cells_h());
    let mut cliffs = Vec::new();
    for cy in 0..cells_h {
        for cx in 0..cells_w {
            let code = cell_codes[cx + cells_w * cy];
            if let Some(orientation) = orientation_of(code) {
                cliffs.push(PlacedCliff {
                    cell_x: cell_x0 + cx as i64,
                    cell_y: cell_y0 + cy as i64,
                    code,
                    orientation,
                });
                stats.placed += 1;
                stats.placed_per_orientation[orientation as usize] += 1;
            }
        }
    }
    cliffs
}
