//! Grid kernels the forge's stages share: the 8-neighbour table and the neighbour of a cell on a
//! square row-major grid (`index = x * side + y`). The table's order is fixed: it is the
//! deterministic tie-break of every search and flood that walks it (rivers, roads).

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

/// Neighbour `k` (0..8, [`DX`]/[`DY`] order) of cell `i` on a `side × side` grid, if inside.
#[inline]
pub fn neighbour(i: usize, side: usize, k: usize) -> Option<usize> {
    let (x, y) = ((i / side) as i64 + DX[k], (i % side) as i64 + DY[k]);
    let s = side as i64;
    (x >= 0 && y >= 0 && x < s && y < s).then(|| x as usize * side + y as usize)
}
