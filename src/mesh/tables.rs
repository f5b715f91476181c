//! Marching Cubes case tables, derived at start-up from the cube's geometry rather than typed in.
//!
//! Corner `c` sits at `(c & 1, (c >> 1) & 1, (c >> 2) & 1)`; a case's bit `c` is set when corner
//! `c` is solid (density < 0). For each case, every cube face contributes segments between the
//! crossing points on its edges, oriented counter-clockwise about the face's outward normal with
//! the solid corners cut off; a face with two diagonal solid corners (the ambiguous face) cuts off
//! each solid corner separately. Because the rule depends only on the face's own four corners, two
//! cells sharing a face always agree on it, so the surface has no holes. The segments chain into
//! closed loops, and each loop is fanned into triangles wound counter-clockwise seen from the air
//! side. The result covers all 256 cases; tests check every case is closed and outward-facing.

use std::sync::OnceLock;

/// The 12 cube edges as corner pairs, lower corner first: 4 along X, 4 along Y, 4 along Z.
pub const EDGES: [(u8, u8); 12] = [
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7), // X
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7), // Y
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7), // Z
];

/// Corner offset `(x, y, z)` in cells.
#[inline]
pub const fn corner_offset(c: u8) -> [usize; 3] {
    [(c & 1) as usize, ((c >> 1) & 1) as usize, ((c >> 2) & 1) as usize]
}

/// Axis of an edge: 0 X, 1 Y, 2 Z.
#[inline]
pub const fn edge_axis(e: usize) -> usize {
    e / 4
}

/// Triangles per case, as edge ids, flattened: `triangles[offsets[c]..offsets[c + 1]]`.
pub struct CaseTable {
    pub offsets: [u16; 257],
    pub triangles: Vec<[u8; 3]>,
}

impl CaseTable {
    #[inline]
    pub fn case(&self, case: u8) -> &[[u8; 3]] {
        &self.triangles[self.offsets[case as usize] as usize..self.offsets[case as usize + 1] as usize]
    }
}

fn edge_between(a: u8, b: u8) -> usize {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    EDGES.iter().position(|&e| e == (lo, hi)).expect("adjacent corners")
}

/// The six faces, corners counter-clockwise about the outward normal.
fn faces() -> Vec<[u8; 4]> {
    let mut out = Vec::new();
    for axis in 0..3 {
        let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in 0..2u8 {
            let corner = |cu: u8, cw: u8| (side << axis) | (cu << u) | (cw << w);
            let ring = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
            // (u, w, axis) is right-handed, so this ring is CCW about +axis; reverse for −axis.
            out.push(if side == 1 { ring } else { [ring[0], ring[3], ring[2], ring[1]] });
        }
    }
    out
}

/// Triangles for one case (edge ids, wound CCW seen from the air side).
pub fn triangulate_case(case: u8) -> Vec<[u8; 3]> {
    let solid = |c: u8| case & (1 << c) != 0;
    let mut next = [usize::MAX; 12];
    for ring in faces() {
        for k in 0..4 {
            let (p, q) = (ring[k], ring[(k + 1) % 4]);
            if !solid(p) || solid(q) {
                continue;
            }
            // Leaving the solid region at edge (p, q): walk back over the solid arc.
            let mut j = k;
            while solid(ring[(j + 3) % 4]) {
                j = (j + 3) % 4;
            }
            let enter = edge_between(ring[(j + 3) % 4], ring[j]);
            next[edge_between(p, q)] = enter;
        }
    }
    let mut tris = Vec::new();
    let mut seen = [false; 12];
    for start in 0..12 {
        if next[start] == usize::MAX || seen[start] {
            continue;
        }
        let mut ring = Vec::new();
        let mut e = start;
        while !seen[e] {
            seen[e] = true;
            ring.push(e as u8);
            e = next[e];
        }
        // Loop order faces the solid side; emit reversed so the front faces the air.
        for i in 1..ring.len() - 1 {
            tris.push([ring[0], ring[i + 1], ring[i]]);
        }
    }
    tris
}

/// The shared case table, built once.
pub fn case_table() -> &'static CaseTable {
    static TABLE: OnceLock<CaseTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut offsets = [0u16; 257];
        let mut triangles = Vec::new();
        for case in 0..=255u8 {
            offsets[case as usize] = triangles.len() as u16;
            triangles.extend(triangulate_case(case));
        }
        offsets[256] = triangles.len() as u16;
        CaseTable { offsets, triangles }
    })
}
