//! Which chunks should be resident around a viewer: a pure function of the layout, the viewer's
//! position and the view distance, so the Bevy side only schedules what this decides.

use super::layout::{ChunkCoord, WorldLayout};

/// Distance (m, horizontal) from a point to the nearest point of a chunk's square.
pub fn chunk_distance_m(layout: &WorldLayout, c: ChunkCoord, at_xz: [f32; 2]) -> f32 {
    let s = layout.chunk_size_m();
    let (x0, z0) = (c.x as f32 * s, c.z as f32 * s);
    let dx = (x0 - at_xz[0]).max(at_xz[0] - (x0 + s)).max(0.0);
    let dz = (z0 - at_xz[1]).max(at_xz[1] - (z0 + s)).max(0.0);
    (dx * dx + dz * dz).sqrt()
}

/// Every chunk of the world within `radius_m` of `at_xz`, nearest first (ties broken by
/// coordinate, so the order is deterministic).
pub fn chunks_within(layout: &WorldLayout, at_xz: [f32; 2], radius_m: f32) -> Vec<ChunkCoord> {
    let s = layout.chunk_size_m();
    let n = layout.chunks_per_side as i32;
    let lo = |v: f32| (((v - radius_m) / s).floor() as i32).clamp(0, n);
    let hi = |v: f32| (((v + radius_m) / s).ceil() as i32).clamp(0, n);
    let mut out: Vec<(f32, ChunkCoord)> = Vec::new();
    for x in lo(at_xz[0])..hi(at_xz[0]) {
        for z in lo(at_xz[1])..hi(at_xz[1]) {
            let c = ChunkCoord::new(x, z);
            let d = chunk_distance_m(layout, c, at_xz);
            if d <= radius_m {
                out.push((d, c));
            }
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    out.into_iter().map(|(_, c)| c).collect()
}

/// Hysteresis: a resident chunk is dropped only beyond this multiple of the view distance, so a
/// viewer hovering on the edge does not make chunks flicker in and out.
pub const UNLOAD_FACTOR: f32 = 1.15;

/// Whether a resident chunk should be unloaded.
pub fn should_unload(layout: &WorldLayout, c: ChunkCoord, at_xz: [f32; 2], radius_m: f32) -> bool {
    chunk_distance_m(layout, c, at_xz) > radius_m * UNLOAD_FACTOR
}
