//! Per-column sampling of the blueprint. Pixels outside the map read the nearest edge pixel, so a
//! chunk's padding on the map's edge repeats the edge.

use super::layout::FLOOR_Y_M;
use crate::blueprint::Blueprint;

#[inline]
fn clamp_px(v: i64, n: u32) -> u32 {
    v.clamp(0, n as i64 - 1) as u32
}

/// Rendered surface height of a column in metres: raw × metresPerRaw, floored at
/// [`FLOOR_Y_M`] so the deep ocean floor is drawn flat.
#[inline]
pub fn surface_y_m(bp: &Blueprint, px: i64, py: i64) -> f32 {
    let n = bp.map_size;
    (bp.height_raw(clamp_px(px, n), clamp_px(py, n)) * bp.params.metres_per_raw).max(FLOOR_Y_M)
}

/// Slope of the rendered surface at a column, `[dY/dX, dY/dZ]` in metres per metre, by central
/// differences of the neighbouring columns (one-sided on the map edge).
pub fn column_gradient(bp: &Blueprint, px: i64, py: i64) -> [f32; 2] {
    let n = bp.map_size as i64;
    let step = bp.params.metres_per_pixel;
    let diff = |a: f32, b: f32, span: i64| {
        if span == 0 { 0.0 } else { (b - a) / (span as f32 * step) }
    };
    let (x0, x1) = ((px - 1).max(0), (px + 1).min(n - 1));
    let (y0, y1) = ((py - 1).max(0), (py + 1).min(n - 1));
    let cx = px.clamp(0, n - 1);
    let cy = py.clamp(0, n - 1);
    [
        diff(surface_y_m(bp, x0, cy), surface_y_m(bp, x1, cy), x1 - x0),
        diff(surface_y_m(bp, cx, y0), surface_y_m(bp, cx, y1), y1 - y0),
    ]
}
