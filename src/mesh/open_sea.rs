//! The open sea beyond the map (SPEC §5): a flat ring around the map's square, out to
//! [`REACH_M`], tessellated so that no triangle is large for how far it lies from the map.
//!
//! Rasterisers clip a triangle that reaches far beyond the view each in their own way (guard
//! bands, the precision of the clip), and interpolate its attributes with an error that grows
//! with the triangle: four quads 900 km wide drew the seabed through the water on one renderer
//! and not on another. Here the grid's lines step outward from the map's edge by
//! `max(NEAR_CELL_M, GROWTH × distance)`, so a cell at distance `d` from the map is at most
//! `max(NEAR_CELL_M, GROWTH × d)` on its outward side and the along-edge step on the other: seen
//! from anywhere over the map, no triangle spans more than about 30° nor crosses the near plane
//! unless it is one of the small cells next to the map. Across the map's width the lines follow
//! the map's own step ([`inner_step`]). Every cell shares its edges whole with its neighbours (no
//! T-junctions), so the sheet has no cracks, and no cell overlaps the map, so the sea's alpha
//! never stacks on the chunks' sheets. Bevy-free.

/// How far the open sea reaches beyond the map (m): inside the sky dome.
pub const REACH_M: f32 = 900_000.0;
/// The side of the cells next to the map's edge (m).
pub const NEAR_CELL_M: f32 = 256.0;
/// A cell's outward side at most this share of its distance from the map.
pub const GROWTH: f32 = 0.5;
/// Most lines across the map's width.
pub const MAX_INNER_STEPS: u32 = 64;

/// The lines' distances outward from the map's edge, from 0 to [`REACH_M`].
pub fn outward_lines() -> Vec<f32> {
    let mut out = vec![0.0f32];
    let mut c = 0.0f32;
    while c < REACH_M {
        c = (c + NEAR_CELL_M.max(GROWTH * c)).min(REACH_M);
        out.push(c);
    }
    out
}

/// The step of the lines across the map's width `extent`: [`NEAR_CELL_M`], or coarser for a map
/// wider than [`MAX_INNER_STEPS`] of them.
pub fn inner_step(extent: f32) -> f32 {
    extent / (extent / NEAR_CELL_M).ceil().clamp(1.0, MAX_INNER_STEPS as f32)
}

/// The ring around the square `[0, extent]²`: vertex positions `[x, z]` (m) and triangles (three
/// indices each, counter-clockwise seen from above, so their faces point up).
pub fn ring(extent: f32) -> (Vec<[f32; 2]>, Vec<u32>) {
    let out = outward_lines();
    let n_in = (extent / inner_step(extent)).round() as usize;
    // The lines along one axis: outward below 0, across the map, outward beyond `extent`.
    let mut lines: Vec<f32> = out.iter().rev().map(|c| -c).collect();
    lines.extend((1..n_in).map(|i| extent * i as f32 / n_in as f32));
    lines.extend(out.iter().map(|c| extent + c));
    let (first_in, last_in) = (out.len() - 1, out.len() - 1 + n_in);
    let n = lines.len();
    let lines = &lines;
    let positions: Vec<[f32; 2]> = (0..n).flat_map(|j| lines.iter().map(move |&x| [x, lines[j]])).collect();
    let mut indices = Vec::new();
    let at = |i: usize, j: usize| (j * n + i) as u32;
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let inside = (first_in..last_in).contains(&i) && (first_in..last_in).contains(&j);
            if inside {
                continue;
            }
            // x east, z south: (i, j+1) is south of (i, j); counter-clockwise from above (+Y).
            indices.extend_from_slice(&[
                at(i, j),
                at(i, j + 1),
                at(i + 1, j + 1),
                at(i, j),
                at(i + 1, j + 1),
                at(i + 1, j),
            ]);
        }
    }
    (positions, indices)
}
