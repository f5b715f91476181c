//! Level of detail (SPEC §3): which nodes of a quadtree over the chunk grid to draw from a
//! camera position — a pure function of the world and the camera, so the app only schedules
//! what this decides.
//!
//! - **Nodes.** Level 0 is one Marching Cubes chunk (32 × 32 columns). A node of level k covers
//!   2^k × 2^k chunks and is drawn as a heightfield grid of 32 × 32 cells that samples the same
//!   blueprint field every 2^k columns ([`LevelGrid`]): "one field at every level", so a fully
//!   morphed node equals its parent exactly.
//! - **Selection** (CDLOD): a node of level k ≥ 1 is split into its four children when the 3-D
//!   distance from the camera to its bounds (a min/max height pyramid) is below `range(k − 1)`.
//! - **Morph.** A vertex of level k moves towards the level-(k + 1) surface over
//!   `[MORPH_START · range(k), range(k)]` of its own distance to the camera (in the vertex
//!   shader).
//! - **Ranges** are sized per world ([`LodTree::new`]): each level's error against full detail
//!   stays within [`MAX_ERROR_PX`] (for [`ERROR_QUANTILE`] of the columns) where it is first drawn,
//!   and where two levels meet the finer side is fully morphed and the coarser side not at all —
//!   which makes the borders coincide and keeps neighbouring levels at most one apart.

use super::WorldSource;
use super::layout::{CHUNK_COLUMNS, WorldLayout};

/// Where along its range a level starts to morph towards its parent, as a fraction of the range.
pub const MORPH_START: f32 = 0.9;
/// The ranges keep this share of every level's columns within [`MAX_ERROR_PX`] of full detail
/// where the level is first drawn. Not all: the forge's summit spires and terrace risers put a
/// few columns tens of metres from any coarse surface (measured in `docs/PERFORMANCE.md`).
pub const ERROR_QUANTILE: f64 = 0.99;
pub const MAX_ERROR_PX: f32 = 2.0;
/// Vertical field of view and frame height the ranges are sized for (the app's camera).
pub const DESIGN_FOV_RAD: f32 = 55.0 * std::f32::consts::PI / 180.0;
pub const DESIGN_HEIGHT_PX: f32 = 720.0;

/// A node of the quadtree: level `level`, covering chunks `[x·2^level, (x+1)·2^level)` (and the
/// same along Z).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    pub level: u8,
    pub x: i32,
    pub z: i32,
}

impl NodeId {
    pub fn new(level: u8, x: i32, z: i32) -> Self {
        Self { level, x, z }
    }
    /// Chunks per side of the node.
    pub fn span_chunks(self) -> i32 {
        1 << self.level
    }
    /// The four children (none at level 0), in (x, z) order.
    pub fn children(self) -> [NodeId; 4] {
        let l = self.level.saturating_sub(1);
        let (x, z) = (self.x * 2, self.z * 2);
        [NodeId::new(l, x, z), NodeId::new(l, x, z + 1), NodeId::new(l, x + 1, z), NodeId::new(l, x + 1, z + 1)]
    }
    pub fn parent(self) -> NodeId {
        NodeId::new(self.level + 1, self.x >> 1, self.z >> 1)
    }
    /// Whether `other` lies inside this node (or is it).
    pub fn contains(self, other: NodeId) -> bool {
        if other.level > self.level {
            return false;
        }
        let d = self.level - other.level;
        (other.x >> d) == self.x && (other.z >> d) == self.z
    }
    /// Whether the two nodes' areas overlap (one contains the other).
    pub fn overlaps(self, other: NodeId) -> bool {
        self.contains(other) || other.contains(self)
    }
    /// First chunk and one past the last, per axis: `[x0, z0, x1, z1]`.
    pub fn chunk_rect(self) -> [i32; 4] {
        let s = self.span_chunks();
        [self.x * s, self.z * s, (self.x + 1) * s, (self.z + 1) * s]
    }
}

/// The grid one level samples: lines every `2^level` columns from the map's origin, the last one
/// clipped to the world's extent (`chunks_per_side × 32` columns). Heights are the field's
/// rendered surface at the grid points; each cell is split along its (i, j) → (i+1, j+1) diagonal.
#[derive(Debug, Clone, Copy)]
pub struct LevelGrid {
    pub level: u8,
    /// Columns between grid lines.
    pub step: i64,
    /// The world's extent in columns: the last grid line.
    pub extent: i64,
}

impl LevelGrid {
    pub fn new(layout: &WorldLayout, level: u8) -> Self {
        Self { level, step: 1 << level, extent: layout.chunks_per_side as i64 * CHUNK_COLUMNS as i64 }
    }
    /// Column coordinate of grid line `i` (clipped to the extent).
    #[inline]
    pub fn line(&self, i: i64) -> i64 {
        (i * self.step).min(self.extent)
    }
    /// The cell index along one axis that holds column coordinate `c` (in `[0, extent]`).
    #[inline]
    pub fn cell_of(&self, c: f64) -> i64 {
        let last = (self.extent - 1).div_euclid(self.step);
        ((c / self.step as f64).floor() as i64).clamp(0, last)
    }
    /// Interpolate per-grid-point values `f(i, j)` at column coordinates `(x, z)`, with the
    /// cell's triangle split (the surface the GPU draws between the grid's vertices).
    pub fn interpolate<const N: usize>(&self, x: f64, z: f64, mut f: impl FnMut(i64, i64) -> [f32; N]) -> [f32; N] {
        let (i, j) = (self.cell_of(x), self.cell_of(z));
        let (x0, x1) = (self.line(i) as f64, self.line(i + 1) as f64);
        let (z0, z1) = (self.line(j) as f64, self.line(j + 1) as f64);
        let u = ((x - x0) / (x1 - x0)).clamp(0.0, 1.0) as f32;
        let v = ((z - z0) / (z1 - z0)).clamp(0.0, 1.0) as f32;
        let a = f(i, j);
        let c = f(i + 1, j + 1);
        let mut out = [0f32; N];
        if u >= v {
            // Triangle (i, j) → (i+1, j) → (i+1, j+1).
            let b = f(i + 1, j);
            for k in 0..N {
                out[k] = a[k] + u * (b[k] - a[k]) + v * (c[k] - b[k]);
            }
        } else {
            // Triangle (i, j) → (i, j+1) → (i+1, j+1).
            let b = f(i, j + 1);
            for k in 0..N {
                out[k] = a[k] + v * (b[k] - a[k]) + u * (c[k] - b[k]);
            }
        }
        out
    }
    /// The field's height at grid point `(i, j)`: the rendered (carved) surface, the one full
    /// detail draws (SPEC §3). A road on a cut or a fill and a river's channel then sit where
    /// full detail draws them, and the textures' paint lands on them; a coarse vertex that falls
    /// on a cut dips by the cut's depth, which the error estimate counts like any other.
    #[inline]
    pub fn height(&self, src: &WorldSource, i: i64, j: i64) -> f32 {
        src.surface_y_m(self.line(i), self.line(j))
    }
    /// Height of this level's surface at column coordinates `(x, z)`.
    pub fn surface_at(&self, src: &WorldSource, x: f64, z: f64) -> f32 {
        self.interpolate(x, z, |i, j| [self.height(src, i, j)])[0]
    }
    /// Unit normal at grid point `(i, j)` from central differences of the level's own samples,
    /// so two tiles that share the point compute the same bits.
    pub fn normal(&self, src: &WorldSource, i: i64, j: i64) -> [f32; 3] {
        let col = src.layout.column_m;
        let (xa, xb) = ((i - 1).max(0), i + 1);
        let (za, zb) = ((j - 1).max(0), j + 1);
        let dx = (self.line(xb) - self.line(xa)).max(1) as f32 * col;
        let dz = (self.line(zb) - self.line(za)).max(1) as f32 * col;
        let gx = (self.height(src, xb, j) - self.height(src, xa, j)) / dx;
        let gz = (self.height(src, i, zb) - self.height(src, i, za)) / dz;
        let inv = 1.0 / (gx * gx + 1.0 + gz * gz).sqrt();
        [-gx * inv, inv, -gz * inv]
    }
}

/// What lies at a grid point's column, for the mesher's colours: the biome, the road there
/// (0 for none, else its tier + 1) and the full-resolution slope of the rendered surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointCover {
    pub biome: crate::blueprint::Biome,
    pub road: u8,
    pub slope: f32,
}

/// One level's surface sampled at its grid points over a rectangle of grid indices: the heights,
/// normals and cover a coarse tile is triangulated from. The mesher reads only these (it never
/// samples the world itself), and reads outside the rectangle clamp to its border.
#[derive(Debug, Clone)]
pub struct LevelSamples {
    pub grid: LevelGrid,
    /// First grid index covered along X and Z.
    pub i0: i64,
    pub j0: i64,
    /// Points along each side (the rectangle is padded to a square).
    pub side: usize,
    /// `[height_m, nx, ny, nz]` per point, indexed by [`LevelSamples::at`].
    pub shape: Vec<[f32; 4]>,
    pub cover: Vec<PointCover>,
}

impl LevelSamples {
    /// Sample grid points `i0..=i1` × `j0..=j1` of `grid`.
    pub fn new(src: &WorldSource, grid: LevelGrid, [i0, j0, i1, j1]: [i64; 4]) -> Self {
        let side = (i1 - i0 + 1).max(j1 - j0 + 1) as usize;
        let mut shape = Vec::with_capacity(side * side);
        let mut cover = Vec::with_capacity(side * side);
        let n = src.layout.map_size as i64;
        for a in 0..side as i64 {
            for b in 0..side as i64 {
                let (i, j) = (i0 + a, j0 + b);
                let h = grid.height(src, i, j);
                let nrm = grid.normal(src, i, j);
                shape.push([h, nrm[0], nrm[1], nrm[2]]);
                let (x, z) = (grid.line(i), grid.line(j));
                let biome = src.blueprint.biome(x.clamp(0, n - 1) as u32, z.clamp(0, n - 1) as u32);
                let [gx, gz] = src.gradient(x, z);
                let road = src.road_at(x, z).map_or(0, |t| t as u8 + 1);
                cover.push(PointCover { biome, road, slope: (gx * gx + gz * gz).sqrt() });
            }
        }
        Self { grid, i0, j0, side, shape, cover }
    }

    /// Index of grid point `(i, j)` in the sample vectors, clamped to the rectangle.
    #[inline]
    pub fn at(&self, i: i64, j: i64) -> usize {
        let a = (i - self.i0).clamp(0, self.side as i64 - 1) as usize;
        let b = (j - self.j0).clamp(0, self.side as i64 - 1) as usize;
        a * self.side + b
    }
}

/// Levels a tree can have: a 16384² map has 512 chunks a side, so its root is level 9.
pub const MAX_LEVELS: usize = 16;

/// How the tree is cut: each level's range and the morph band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LodRanges {
    /// `range(k)`: a node of level k + 1 is split within this distance, and level-k vertices
    /// finish their morph at it. Strictly increasing.
    pub ranges_m: [f32; MAX_LEVELS],
    pub morph_start: f32,
}

impl LodRanges {
    pub fn range_m(&self, level: u8) -> f32 {
        self.ranges_m[(level as usize).min(MAX_LEVELS - 1)]
    }
    /// Morph band of a level: `[start, end]` metres.
    pub fn morph_band_m(&self, level: u8) -> [f32; 2] {
        let r = self.range_m(level);
        [self.morph_start * r, r]
    }
    /// Morph factor (0 = own surface, 1 = the parent's) of a vertex at `distance_m`: the CPU
    /// copy of the vertex shader's formula.
    pub fn morph(&self, level: u8, distance_m: f32) -> f32 {
        let [a, b] = self.morph_band_m(level);
        ((distance_m - a) / (b - a)).clamp(0.0, 1.0)
    }
}

/// Whole-world water figures gathered while the pyramid is built (SPEC §3 diagnostics).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WaterTally {
    pub wet_columns: u64,
    pub seam_columns: u64,
    pub chunks_with_water: u32,
    pub max_depth_m: f32,
    /// Lowest and highest water surface (m), when any column is wet.
    pub surface_y_range_m: Option<[f32; 2]>,
}

impl WaterTally {
    fn add(&mut self, o: &WaterTally) {
        self.wet_columns += o.wet_columns;
        self.seam_columns += o.seam_columns;
        self.chunks_with_water += o.chunks_with_water;
        self.max_depth_m = self.max_depth_m.max(o.max_depth_m);
        self.surface_y_range_m = match (self.surface_y_range_m, o.surface_y_range_m) {
            (Some(a), Some(b)) => Some([a[0].min(b[0]), a[1].max(b[1])]),
            (a, b) => a.or(b),
        };
    }
}

/// The quadtree over one world: its depth, the min/max height pyramid and the ranges.
#[derive(Debug, Clone)]
pub struct LodTree {
    pub layout: WorldLayout,
    /// The root's level: `2^top_level ≥ chunks_per_side`.
    pub top_level: u8,
    /// Per level, per node (row-major by x then z, `nodes_per_side(level)²`): min and max of the
    /// rendered surface and of any water surface over the node's columns (metres).
    pyramid: Vec<Vec<[f32; 2]>>,
    pub ranges: LodRanges,
    /// The world's water, counted over every column.
    pub water: WaterTally,
    /// Per level, the [`ERROR_QUANTILE`] of its geometric error against full detail (metres).
    pub error_m: Vec<f32>,
}

impl LodTree {
    /// Build the pyramid (one pass over the map, parallel by chunk) and size the ranges.
    pub fn new(src: &WorldSource) -> Self {
        use rayon::prelude::*;
        let layout = src.layout;
        let n = layout.chunks_per_side as usize;
        let top_level = (usize::BITS - (n.max(1) - 1).leading_zeros()) as u8;
        let per_chunk: Vec<([f32; 2], WaterTally)> =
            (0..n * n).into_par_iter().map(|i| chunk_height_bounds(src, (i / n) as i64, (i % n) as i64)).collect();
        let mut water = WaterTally::default();
        for (_, t) in &per_chunk {
            water.add(t);
        }
        let chunk_bounds: Vec<[f32; 2]> = per_chunk.into_iter().map(|(b, _)| b).collect();
        let mut pyramid = vec![chunk_bounds];
        for level in 1..=top_level {
            let below = &pyramid[level as usize - 1];
            let nb = nodes_per_side(n, level - 1);
            let nl = nodes_per_side(n, level);
            let mut here = vec![[f32::MAX, f32::MIN]; nl * nl];
            for x in 0..nb {
                for z in 0..nb {
                    let b = below[x * nb + z];
                    let h = &mut here[(x / 2) * nl + z / 2];
                    *h = [h[0].min(b[0]), h[1].max(b[1])];
                }
            }
            pyramid.push(here);
        }
        let error_m: Vec<f32> = (0..=top_level)
            .map(|l| if l == 0 { 0.0 } else { level_error_quantile_m(src, l, ERROR_QUANTILE) })
            .collect();
        let ranges = ranges_for(&layout, &pyramid, &error_m);
        Self { layout, top_level, pyramid, ranges, water, error_m }
    }

    pub fn root(&self) -> NodeId {
        NodeId::new(self.top_level, 0, 0)
    }

    /// Whether a node has any chunk inside the world.
    pub fn exists(&self, id: NodeId) -> bool {
        let [x0, z0, _, _] = id.chunk_rect();
        let n = self.layout.chunks_per_side as i32;
        id.level <= self.top_level && id.x >= 0 && id.z >= 0 && x0 < n && z0 < n
    }

    /// Min and max height over the node (metres).
    pub fn height_bounds(&self, id: NodeId) -> [f32; 2] {
        let n = nodes_per_side(self.layout.chunks_per_side as usize, id.level);
        self.pyramid[id.level as usize][id.x as usize * n + id.z as usize]
    }

    /// The node's box in world metres: `[min, max]` corners, clipped to the world.
    pub fn bounds_m(&self, id: NodeId) -> [[f32; 3]; 2] {
        let s = self.layout.chunk_size_m();
        let n = self.layout.chunks_per_side as i32;
        let [x0, z0, x1, z1] = id.chunk_rect();
        let [lo, hi] = self.height_bounds(id);
        [[x0 as f32 * s, lo, z0 as f32 * s], [x1.min(n) as f32 * s, hi, z1.min(n) as f32 * s]]
    }

    /// 3-D distance from `p` (world metres) to the node's box (0 inside).
    pub fn distance_m(&self, id: NodeId, p: [f32; 3]) -> f32 {
        let [lo, hi] = self.bounds_m(id);
        let mut d2 = 0.0;
        for a in 0..3 {
            let d = (lo[a] - p[a]).max(p[a] - hi[a]).max(0.0);
            d2 += d * d;
        }
        d2.sqrt()
    }

    /// Whether the node should be split into its children for a camera at `p`.
    pub fn splits(&self, id: NodeId, p: [f32; 3]) -> bool {
        id.level > 0 && self.distance_m(id, p) < self.ranges.range_m(id.level - 1)
    }

    /// The nodes to draw for a camera at `p`: a partition of the world, nearest first (ties by
    /// id, so the order is deterministic).
    pub fn select(&self, p: [f32; 3]) -> Vec<NodeId> {
        let mut out = Vec::new();
        self.select_into(self.root(), p, &mut out);
        let mut keyed: Vec<(f32, NodeId)> = out.into_iter().map(|id| (self.distance_m(id, p), id)).collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        keyed.into_iter().map(|(_, id)| id).collect()
    }

    fn select_into(&self, id: NodeId, p: [f32; 3], out: &mut Vec<NodeId>) {
        if !self.exists(id) {
            return;
        }
        if self.splits(id, p) {
            for c in id.children() {
                self.select_into(c, p, out);
            }
        } else {
            out.push(id);
        }
    }

    /// Every chunk within `radius_m` (horizontal) of `p` as level-0 nodes: the full-detail
    /// selection `--lod off` draws.
    pub fn select_full_detail(&self, p: [f32; 3], radius_m: f32) -> Vec<NodeId> {
        super::chunks_within(&self.layout, [p[0], p[2]], radius_m)
            .into_iter()
            .map(|c| NodeId::new(0, c.x, c.z))
            .collect()
    }
}

/// Distance from point `p` to triangle `(a, b, c)` (all in metres): what [`column_errors_m`]
/// measures a column's error with.
pub fn point_triangle_distance(p: [f32; 3], a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> f32 {
    let sub = |u: [f32; 3], v: [f32; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
    let dot = |u: [f32; 3], v: [f32; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let at = |u: [f32; 3], v: [f32; 3], t: f32| [u[0] + v[0] * t, u[1] + v[1] * t, u[2] + v[2] * t];
    // Closest point on a triangle (Ericson, Real-Time Collision Detection §5.1.5).
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    let q = if d1 <= 0.0 && d2 <= 0.0 {
        a
    } else {
        let bp = sub(p, b);
        let (d3, d4) = (dot(ab, bp), dot(ac, bp));
        if d3 >= 0.0 && d4 <= d3 {
            b
        } else {
            let vc = d1 * d4 - d3 * d2;
            if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
                at(a, ab, d1 / (d1 - d3))
            } else {
                let cp = sub(p, c);
                let (d5, d6) = (dot(ab, cp), dot(ac, cp));
                if d6 >= 0.0 && d5 <= d6 {
                    c
                } else {
                    let vb = d5 * d2 - d1 * d6;
                    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
                        at(a, ac, d2 / (d2 - d6))
                    } else {
                        let va = d3 * d6 - d5 * d4;
                        if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
                            at(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)))
                        } else {
                            let denom = 1.0 / (va + vb + vc);
                            let (v, w) = (vb * denom, vc * denom);
                            [a[0] + ab[0] * v + ac[0] * w, a[1] + ab[1] * v + ac[1] * w, a[2] + ab[2] * v + ac[2] * w]
                        }
                    }
                }
            }
        }
    };
    let d = sub(p, q);
    dot(d, d).sqrt()
}

/// The geometric error of node `id`'s own surface against full detail, per full-resolution
/// column (every `stride`-th along each axis): the distance from the column's surface point to
/// the node's triangles (those of the point's cell and its eight neighbours), in metres. A
/// distance, not a height difference: on a near-vertical riser a cell's vertical error is the
/// riser's height, while the two surfaces are never farther apart than about a cell.
pub fn column_errors_m(src: &WorldSource, id: NodeId, stride: i64, out: &mut Vec<f32>) {
    if id.level == 0 {
        return;
    }
    let layout = &src.layout;
    let grid = LevelGrid::new(layout, id.level);
    let col = layout.column_m;
    let [x0, z0, x1, z1] = id.chunk_rect();
    let n = layout.chunks_per_side as i64;
    let c = CHUNK_COLUMNS as i64;
    let last = (grid.extent - 1).div_euclid(grid.step);
    if x0 as i64 >= n || z0 as i64 >= n {
        return;
    }
    // The grid points the node's columns reach (their cells and one ring), sampled once: every
    // column reads 36 of them.
    let span = |a: i32, b: i32| {
        let lo = (grid.cell_of((a as i64 * c) as f64) - 1).max(0);
        let hi = (grid.cell_of(((b as i64).min(n) * c - 1) as f64) + 2).min(last + 1);
        (lo, hi)
    };
    let ((ilo, ihi), (jlo, jhi)) = (span(x0, x1), span(z0, z1));
    let w = jhi - jlo + 1;
    let mut heights = Vec::with_capacity(((ihi - ilo + 1) * w) as usize);
    for i in ilo..=ihi {
        for j in jlo..=jhi {
            heights.push(grid.height(src, i, j));
        }
    }
    let vertex = |i: i64, j: i64| {
        let (i, j) = (i.clamp(0, last + 1), j.clamp(0, last + 1));
        [grid.line(i) as f32 * col, heights[((i - ilo) * w + j - jlo) as usize], grid.line(j) as f32 * col]
    };
    let stride = stride.max(1);
    let mut x = x0 as i64 * c;
    while x < (x1 as i64).min(n) * c {
        let mut z = z0 as i64 * c;
        while z < (z1 as i64).min(n) * c {
            // Against the surface full detail draws, which the level samples.
            let p = [x as f32 * col, src.surface_y_m(x, z), z as f32 * col];
            let (ci, cj) = (grid.cell_of(x as f64), grid.cell_of(z as f64));
            let mut best = f32::MAX;
            for i in (ci - 1).max(0)..=(ci + 1).min(last) {
                for j in (cj - 1).max(0)..=(cj + 1).min(last) {
                    let (a, b, cc, d) = (vertex(i, j), vertex(i, j + 1), vertex(i + 1, j + 1), vertex(i + 1, j));
                    best = best.min(point_triangle_distance(p, a, b, cc)).min(point_triangle_distance(p, a, cc, d));
                }
            }
            out.push(best);
            z += stride;
        }
        x += stride;
    }
}

/// Columns a level's error is estimated from (a regular grid over the whole world).
pub const ERROR_SAMPLES_PER_LEVEL: i64 = 1 << 17;

/// The `q`-quantile (0..=1) of a level's per-column geometric error (metres), estimated from a
/// regular grid of about [`ERROR_SAMPLES_PER_LEVEL`] columns over the whole world: the figure
/// the ranges are sized by.
pub fn level_error_quantile_m(src: &WorldSource, level: u8, q: f64) -> f32 {
    use rayon::prelude::*;
    let n = nodes_per_side(src.layout.chunks_per_side as usize, level) as i32;
    let columns = src.layout.chunks_per_side as i64 * CHUNK_COLUMNS as i64;
    let stride = ((columns * columns) as f64 / ERROR_SAMPLES_PER_LEVEL as f64).sqrt().ceil().max(1.0) as i64;
    let nodes: Vec<NodeId> = (0..n).flat_map(|x| (0..n).map(move |z| NodeId::new(level, x, z))).collect();
    let mut errs: Vec<f32> = nodes
        .par_iter()
        .map(|&id| {
            let mut v = Vec::new();
            column_errors_m(src, id, stride, &mut v);
            v
        })
        .flatten()
        .collect();
    if errs.is_empty() {
        return 0.0;
    }
    errs.sort_by(f32::total_cmp);
    errs[((errs.len() - 1) as f64 * q).round() as usize]
}

/// Nodes per side at a level, for a world `chunks` chunks across.
fn nodes_per_side(chunks: usize, level: u8) -> usize {
    chunks.div_ceil(1 << level).max(1)
}

/// Min/max of the rendered surface and of the water surface over one chunk's 33 × 33 columns,
/// and the water of the 32 × 32 columns it owns.
fn chunk_height_bounds(src: &WorldSource, cx: i64, cz: i64) -> ([f32; 2], WaterTally) {
    let bp = &*src.blueprint;
    let n = bp.map_size as i64;
    let c = CHUNK_COLUMNS as i64;
    let top = src.layout.top_m();
    let (mut lo, mut hi) = (f32::MAX, f32::MIN);
    let mut tally = WaterTally::default();
    for x in cx * c..=cx * c + c {
        for z in cz * c..=cz * c + c {
            // The carved surface, which every level samples.
            let s = src.surface_y_m(x, z);
            lo = lo.min(s);
            hi = hi.max(s);
            if x < n
                && z < n
                && let Some(w) = src.water_at(x as u32, z as u32, top)
            {
                hi = hi.max(w.water_surface_y_m);
                if x < cx * c + c && z < cz * c + c {
                    tally.wet_columns += 1;
                    tally.seam_columns += w.seam as u64;
                    tally.max_depth_m = tally.max_depth_m.max(w.true_depth_m);
                    let y = w.water_surface_y_m;
                    tally.surface_y_range_m = Some(match tally.surface_y_range_m {
                        Some(r) => [r[0].min(y), r[1].max(y)],
                        None => [y, y],
                    });
                }
            }
        }
    }
    tally.chunks_with_water = (tally.wet_columns > 0) as u32;
    ([lo, hi], tally)
}

/// Each level's range, the smallest that meets two rules, level by level from the finest:
///
/// - **Error:** level k + 1 is drawn unsplit from `range(k)` out, so there its error must stay
///   within [`MAX_ERROR_PX`]: `range(k) ≥ error(k + 1) · px_per_rad / MAX_ERROR_PX`.
/// - **No crack:** where a level-(k + 1) node meets a level-k one, every shared point must be
///   beyond `range(k)` (the finer side fully morphed — true, since the coarser node was not split)
///   and nearer than `MORPH_START · range(k + 1)` (the coarser side not yet morphing). The finer
///   node's parent was split, so it is nearer than `range(k)`, and its points are at most the
///   parent's 3-D diagonal farther: `range(k) + diagonal(k + 1) ≤ MORPH_START · range(k + 1)`.
///   The same rule keeps neighbouring levels at most one apart.
///
/// Ranges also grow by at least 1.5× a level, and level 0 reaches at least two chunks.
fn ranges_for(layout: &WorldLayout, pyramid: &[Vec<[f32; 2]>], error_m: &[f32]) -> LodRanges {
    let px_per_rad = DESIGN_HEIGHT_PX / DESIGN_FOV_RAD;
    let chunk = layout.chunk_size_m();
    let top = pyramid.len() - 1;
    // A quarter of margin: the quantile is estimated from a sample of the columns.
    let by_error = |k: usize| error_m.get(k + 1).map_or(0.0, |e| 1.25 * e * px_per_rad / MAX_ERROR_PX);
    let diagonal = |k: usize| {
        let span = pyramid[k].iter().map(|b| (b[1] - b[0]).max(0.0)).fold(0.0, f32::max);
        let side = chunk * (1u64 << k) as f32;
        (2.0 * side * side + span * span).sqrt()
    };
    let mut r = [0f32; MAX_LEVELS];
    r[0] = by_error(0).max(2.0 * chunk);
    for k in 1..MAX_LEVELS {
        let crack = if k <= top { (r[k - 1] + diagonal(k)) / MORPH_START } else { 0.0 };
        // 2 % margin on the crack rule for rounding.
        r[k] = (crack * 1.02).max(by_error(k)).max(1.5 * r[k - 1]);
    }
    LodRanges { ranges_m: r, morph_start: MORPH_START }
}
