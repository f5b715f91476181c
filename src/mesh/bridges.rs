//! Bridge decks (SPEC §4 "Bridges"): where a road crosses a river, a deck over the water at the
//! roadbed's height (which the world keeps within the road's grade across the span), as wide as
//! the road plus a kerb, with side faces and an underside so it reads from any angle.

use super::marching_cubes::TerrainMesh;
use super::palette::srgb;
use crate::world::WorldSource;
use crate::world::roads::road_width_m;

/// The deck stands this far above the roadbed at its ends (m) and is this thick.
pub const DECK_ABOVE_BED_M: f32 = 0.3;
pub const DECK_THICKNESS_M: f32 = 1.2;
/// Extra width each side beyond the road (m).
pub const KERB_M: f32 = 0.6;

/// The decks of every bridge span of the world's roads, as one mesh (empty without bridges).
pub fn bridge_mesh(src: &WorldSource) -> TerrainMesh {
    let mut out = TerrainMesh::default();
    let col = src.layout.column_m;
    let colour = srgb(0.62, 0.60, 0.56);
    for r in &src.roads.roads {
        let half = road_width_m(r.tier) / 2.0 + KERB_M;
        let m = r.points.len();
        let mut i = 0;
        while i < m {
            if !r.bridge[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i + 1 < m && r.bridge[i + 1] {
                i += 1;
            }
            let end = i;
            i += 1;
            if end == start {
                continue;
            }
            // Per point: centre (m), the unit side vector, the deck's top.
            // Road points are in pixel space, where column x spans [x, x + 1) and sits at world
            // x · column (its centre is x + 0.5 there): the same half-column shift as the carve.
            let at = |k: usize| [(r.points[k][0] - 0.5) * col, (r.points[k][1] - 0.5) * col];
            let mut rails: Vec<([f32; 3], [f32; 3], [f32; 2])> = Vec::new();
            for k in start..=end {
                let (a, b) = (at(k.saturating_sub(1).max(start)), at((k + 1).min(end)));
                let (dx, dz) = (b[0] - a[0], b[1] - a[1]);
                let len = dx.hypot(dz).max(1e-6);
                let side = [-dz / len, dx / len];
                let c = at(k);
                let y = r.bed_m[k] + DECK_ABOVE_BED_M;
                let left = [c[0] + side[0] * half, y, c[1] + side[1] * half];
                let right = [c[0] - side[0] * half, y, c[1] - side[1] * half];
                rails.push((left, right, side));
            }
            for w in rails.windows(2) {
                let ((l0, r0, s0), (l1, r1, _)) = (w[0], w[1]);
                let down = |p: [f32; 3]| [p[0], p[1] - DECK_THICKNESS_M, p[2]];
                // Top, underside, and the two sides.
                quad(&mut out, [l0, l1, r1, r0], [0.0, 1.0, 0.0], colour);
                quad(&mut out, [down(r0), down(r1), down(l1), down(l0)], [0.0, -1.0, 0.0], colour);
                quad(&mut out, [down(l0), down(l1), l1, l0], [s0[0], 0.0, s0[1]], colour);
                quad(&mut out, [r0, r1, down(r1), down(r0)], [-s0[0], 0.0, -s0[1]], colour);
            }
        }
    }
    out
}

fn quad(out: &mut TerrainMesh, p: [[f32; 3]; 4], normal: [f32; 3], colour: [f32; 4]) {
    let base = out.positions.len() as u32;
    for v in p {
        out.positions.push(v);
        out.normals.push(normal);
        out.colors.push(colour);
    }
    // Both windings: the deck is seen from above and below alike.
    out.indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    out.indices.extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
}
