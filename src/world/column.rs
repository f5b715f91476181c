//! Per-column sampling of the blueprint. Pixels outside the map read the nearest edge pixel, so a
//! chunk's padding on the map's edge repeats the edge.

use super::layout::FLOOR_Y_M;
use crate::blueprint::Blueprint;

#[inline]
fn clamp_px(v: i64, n: u32) -> u32 {
    v.clamp(0, n as i64 - 1) as u32
}

/// The blueprint's surface height of a column in metres, before any road is carved: raw ×
/// metresPerRaw, floored at [`FLOOR_Y_M`] so the deep ocean floor is drawn flat. The world's
/// rendered surface is [`WorldSource::surface_y_m`](super::WorldSource::surface_y_m).
#[inline]
pub fn terrain_y_m(bp: &Blueprint, px: i64, py: i64) -> f32 {
    let n = bp.map_size;
    (bp.height_raw(clamp_px(px, n), clamp_px(py, n)) * bp.params.metres_per_raw).max(FLOOR_Y_M)
}

/// Slope of a surface at a column, `[dY/dX, dY/dZ]` in metres per metre, by central differences
/// of the neighbouring columns (one-sided on the map edge).
pub fn gradient_of(n: u32, step: f32, surface: impl Fn(i64, i64) -> f32, px: i64, py: i64) -> [f32; 2] {
    let n = n as i64;
    let diff = |a: f32, b: f32, span: i64| {
        if span == 0 { 0.0 } else { (b - a) / (span as f32 * step) }
    };
    let (x0, x1) = ((px - 1).max(0), (px + 1).min(n - 1));
    let (y0, y1) = ((py - 1).max(0), (py + 1).min(n - 1));
    let cx = px.clamp(0, n - 1);
    let cy = py.clamp(0, n - 1);
    [diff(surface(x0, cy), surface(x1, cy), x1 - x0), diff(surface(cx, y0), surface(cx, y1), y1 - y0)]
}

/// Slope of the blueprint's (uncarved) surface at a column (see [`gradient_of`]).
pub fn terrain_gradient(bp: &Blueprint, px: i64, py: i64) -> [f32; 2] {
    gradient_of(bp.map_size, bp.params.metres_per_pixel, |x, y| terrain_y_m(bp, x, y), px, py)
}
