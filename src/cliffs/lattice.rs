//! The cell lattice (SPEC §6): cells of 4 × 4 tiles, 8 × 8 cells per 32-tile chunk, fields sampled
//! at the bare corners `(chunkX·32 + i·4, chunkY·32 + j·4)`, cliffs centred at `(+2, +2.5)` in
//! their cell; plus chunk-aligned windows and the per-chunk smoothing of the elevation.

/// Tiles per cell side (reference, Nauvis notes: `grid_size = {4, 4}`).
pub const CELL_TILES: i64 = 4;
/// Tiles per chunk side (reference, Nauvis notes: "a 32-tile chunk").
pub const CHUNK_TILES: i64 = 32;
/// Cells per chunk side: 32 / 4.
pub const CHUNK_CELLS: usize = (CHUNK_TILES / CELL_TILES) as usize;
/// Corners per chunk side: one more than cells.
pub const CHUNK_CORNERS: usize = CHUNK_CELLS + 1;
/// A cliff's centre inside its cell, tiles: `grid_size / 2 + grid_offset` with `grid_offset =
/// {0, 0.5}`, applied to the centre only, never to the samples (as the reference's cliff notes found).
pub const CELL_CENTRE_OFFSET_TILES: [f32; 2] = [2.0, 2.5];

/// World tile position of in-chunk corner `(i, j)` of chunk `(chunk_x, chunk_y)`, `i, j` in 0..=8.
#[inline]
pub fn corner_tile(chunk_x: i32, chunk_y: i32, i: usize, j: usize) -> (i64, i64) {
    (chunk_x as i64 * CHUNK_TILES + i as i64 * CELL_TILES, chunk_y as i64 * CHUNK_TILES + j as i64 * CELL_TILES)
}

/// World tile position of the centre of the cliff in global cell `(cell_x, cell_y)`.
#[inline]
pub fn cell_centre_tiles(cell_x: i64, cell_y: i64) -> (f32, f32) {
    (
        (cell_x * CELL_TILES) as f32 + CELL_CENTRE_OFFSET_TILES[0],
        (cell_y * CELL_TILES) as f32 + CELL_CENTRE_OFFSET_TILES[1],
    )
}

/// A rectangle of whole chunks: the unit the placer works in. Every corner of it is evaluated
/// exactly once: `(32·w/4 + 1) × (32·h/4 + 1)` samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ChunkWindow {
    pub chunk_x0: i32,
    pub chunk_y0: i32,
    /// Width and height in chunks.
    pub chunks_w: u32,
    pub chunks_h: u32,
}

impl ChunkWindow {
    pub fn new(chunk_x0: i32, chunk_y0: i32, chunks_w: u32, chunks_h: u32) -> Self {
        Self { chunk_x0, chunk_y0, chunks_w, chunks_h }
    }
    /// The smallest window covering tiles `[x, x + w) × [y, y + h)`.
    pub fn covering_tiles(x: i64, y: i64, w: u64, h: u64) -> Self {
        let cx0 = x.div_euclid(CHUNK_TILES);
        let cy0 = y.div_euclid(CHUNK_TILES);
        let cx1 = (x + w.max(1) as i64 - 1).div_euclid(CHUNK_TILES) + 1;
        let cy1 = (y + h.max(1) as i64 - 1).div_euclid(CHUNK_TILES) + 1;
        Self::new(cx0 as i32, cy0 as i32, (cx1 - cx0) as u32, (cy1 - cy0) as u32)
    }
    pub fn cells_w(&self) -> usize {
        self.chunks_w as usize * CHUNK_CELLS
    }
    pub fn cells_h(&self) -> usize {
        self.chunks_h as usize * CHUNK_CELLS
    }
    pub fn corners_w(&self) -> usize {
        self.cells_w() + 1
    }
    pub fn corners_h(&self) -> usize {
        self.cells_h() + 1
    }
    pub fn corner_count(&self) -> u64 {
        (self.corners_w() * self.corners_h()) as u64
    }
    /// Tile position of the window's first corner.
    pub fn origin_tiles(&self) -> (i64, i64) {
        (self.chunk_x0 as i64 * CHUNK_TILES, self.chunk_y0 as i64 * CHUNK_TILES)
    }
    /// Global index of the window's first cell.
    pub fn origin_cell(&self) -> (i64, i64) {
        (self.chunk_x0 as i64 * CHUNK_CELLS as i64, self.chunk_y0 as i64 * CHUNK_CELLS as i64)
    }
    /// The window's chunks, rows outer (the placer's deterministic order).
    pub fn chunks(&self) -> impl Iterator<Item = (i32, i32)> + '_ {
        (0..self.chunks_h as i32)
            .flat_map(move |dy| (0..self.chunks_w as i32).map(move |dx| (self.chunk_x0 + dx, self.chunk_y0 + dy)))
    }
}

/// Per axis: the two knots an in-chunk corner index interpolates between and its weight.
/// `lo = i & !3`, `hi = min(lo + 4, 7)`, `t = (i & 3)/(hi − lo)` — knots at 0, 4 and 7. Index 8
/// (the next chunk's 0) has `lo = 8 > hi`: it is its own knot with `t = 0`, as in the reference
/// ("index 8 falls out with t = 0 on itself"), so neighbouring chunks agree on their shared corners.
#[inline]
pub fn smoothing_knots(i: usize) -> (usize, usize, f32) {
    let lo = i & !3;
    let hi = (lo + 4).min(CHUNK_CELLS - 1);
    if hi <= lo { (lo, lo, 0.0) } else { (lo, hi, (i & 3) as f32 / (hi - lo) as f32) }
}

/// Smooth one chunk's 9 × 9 elevation block in place (index `i + 9·j`, i = x):
/// `smoothed = (1 − s)·E + s·bilerp(E at the knots)`. The knots read the unsmoothed values.
pub fn smooth_chunk_elevation(elevation: &mut [f32; CHUNK_CORNERS * CHUNK_CORNERS], smoothing: f32) {
    if smoothing == 0.0 {
        return;
    }
    let raw = *elevation;
    let at = |i: usize, j: usize| raw[i + CHUNK_CORNERS * j];
    for j in 0..CHUNK_CORNERS {
        let (jl, jh, tj) = smoothing_knots(j);
        for i in 0..CHUNK_CORNERS {
            let (il, ih, ti) = smoothing_knots(i);
            let top = at(il, jl) + (at(ih, jl) - at(il, jl)) * ti;
            let bottom = at(il, jh) + (at(ih, jh) - at(il, jh)) * ti;
            let bilerp = top + (bottom - top) * tj;
            let e = at(i, j);
            elevation[i + CHUNK_CORNERS * j] = (1.0 - smoothing) * e + smoothing * bilerp;
        }
    }
}
