//! Coarse level-of-detail meshes (SPEC §3–4): pure functions from the world and a quadtree node
//! to plain buffers, plus the morph targets every level's vertices carry.
//!
//! - A node of level k ≥ 1 is a heightfield tile on [`LevelGrid`] `k`: up to 33 × 33 vertices,
//!   each cell split along its (i, j) → (i+1, j+1) diagonal. Every vertex carries its **morph
//!   target**: the level-(k + 1) surface's height, normal and colour at the vertex's position,
//!   interpolated with that level's own triangle split, so a fully morphed tile is its parent.
//! - A level-0 Marching Cubes chunk gets morph targets on the level-1 surface the same way
//!   ([`mc_morph_targets`]), so handing a chunk over to its level-1 tile is invisible.
//! - **T-junctions** where a tile meets a finer neighbour are filled by zero-area triangles along
//!   its border through the finer side's border vertices (midpoints for a level-(k − 1) tile,
//!   the Marching Cubes border crossings for level-0 chunks). No skirts.
//! - **Water** per coarse cell applies the sheet rule of SPEC §4 to the columns inside the cell
//!   (drawn if any sampled column is wet, at the highest wet level, coloured by the deepest) and
//!   merges neighbouring flat cells at the same level into large quads (the body's colour comes
//!   from the scene's depth per pixel, SPEC §5, so depth does not split a quad; the quad's vertex
//!   colour, shown only in the debug views, is its deepest cell's).

use super::far_field::{LevelView, TileTexture, bake, texel_spacing};
use super::marching_cubes::{Shading, TerrainMesh, material_id_colour};
use super::palette::cover_colour;
use super::water::{WaterMesh, water_colour};
use crate::world::lod::{LevelGrid, LevelSamples, LodTree, NodeId, PointCover};
use crate::world::{CHUNK_COLUMNS, ChunkCoord, ChunkData, Material, WorldSource, build_chunk, road_material_at};

/// Buffers of one LOD node: terrain with morph targets, and its water.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LodMesh {
    pub terrain: TerrainMesh,
    /// Per vertex: `[target_y, target_normal.x, .y, .z]` on the parent level's surface.
    pub morph: Vec<[f32; 4]>,
    /// Per vertex: the parent level's colour at the vertex (linear RGBA).
    pub morph_colors: Vec<[f32; 4]>,
    pub water: WaterMesh,
    /// A coarse tile's far-field textures ([`far_field`]): its own level's, and its parent
    /// level's over the same area (the own one again at the root). `None` at level 0.
    pub textures: Option<Box<[TileTexture; 2]>>,
}

/// One level's samples over a tile's own grid points, as the world hands them, with the colour the
/// shading gives each point. Nothing reads past the tile with any weight: an interpolation on its
/// far border reads the next line at weight zero, which the clamped read answers exactly. (The
/// ring of samples once read around the tile changed nothing in 1,218 tile meshes but the sign of
/// a zero.)
struct GridSamples {
    samples: LevelSamples,
    colour: Vec<[f32; 4]>,
}

impl GridSamples {
    /// Sample grid points `i0..=i1` × `j0..=j1` of `grid`.
    fn new(src: &WorldSource, grid: LevelGrid, rect: [i64; 4], shading: Shading) -> Self {
        let samples = LevelSamples::new(src, grid, rect);
        let colour = samples
            .shape
            .iter()
            .zip(&samples.cover)
            .map(|(s, c)| point_colour(*c, [s[1], s[2], s[3]], shading))
            .collect();
        Self { samples, colour }
    }
    #[inline]
    fn at(&self, i: i64, j: i64) -> usize {
        self.samples.at(i, j)
    }
    #[inline]
    fn shape(&self, k: usize) -> [f32; 4] {
        self.samples.shape[k]
    }
    /// Height of this level's surface at column coordinates `(x, z)`.
    fn height_at(&self, x: f64, z: f64) -> f32 {
        let grid = &self.samples.grid;
        grid.interpolate(x, z, |i, j| [self.samples.shape[self.at(i, j)][0]])[0]
    }
    /// Height, normal and colour of this level's surface at column coordinates `(x, z)`.
    fn surface(&self, x: f64, z: f64) -> ([f32; 4], [f32; 4]) {
        let grid = &self.samples.grid;
        let s = grid.interpolate(x, z, |i, j| self.samples.shape[self.at(i, j)]);
        let c = grid.interpolate(x, z, |i, j| self.colour[self.at(i, j)]);
        (s, c)
    }
}

/// Colour of the field at a grid point: the palette from the column's biome and its own
/// (full-resolution) slope, or a debug view. Roads show at every level as material, where a
/// sample falls on one.
fn point_colour(cover: PointCover, normal: [f32; 3], shading: Shading) -> [f32; 4] {
    let PointCover { biome, road, slope } = cover;
    match shading {
        Shading::Palette => cover_colour(biome as u8, road),
        Shading::Normals => [normal[0] * 0.5 + 0.5, normal[1] * 0.5 + 0.5, normal[2] * 0.5 + 0.5, 1.0],
        Shading::Materials => {
            let m = road_material_at(road, biome, 0.0, slope);
            material_id_colour(if m == Material::Air { Material::Rock as u8 } else { m as u8 })
        }
    }
}

/// The parent level's samples over the area of `node` (a tile of level `node.level`, or a chunk).
fn parent_samples(src: &WorldSource, node: NodeId, top_level: u8, shading: Shading) -> Option<GridSamples> {
    if node.level >= top_level {
        return None;
    }
    let grid = LevelGrid::new(&src.layout, node.level + 1);
    Some(GridSamples::new(src, grid, node_grid_rect(node, &grid), shading))
}

/// A level's water cells over a rectangle of grid indices: per cell, when a sheet is drawn, its
/// corners' surface Y (`(i, j)`, `(i, j + 1)`, `(i + 1, j + 1)`, `(i + 1, j)`) and its deepest
/// sampled column.
struct WaterCells {
    i0: i64,
    j0: i64,
    nx: i64,
    nz: i64,
    cells: Vec<Option<([f32; 4], f32)>>,
}

impl WaterCells {
    fn get(&self, i: i64, j: i64) -> Option<([f32; 4], f32)> {
        let (a, b) = (i - self.i0, j - self.j0);
        if a < 0 || b < 0 || a >= self.nx || b >= self.nz {
            return None;
        }
        self.cells[(a * self.nz + b) as usize]
    }
}

/// Bake `own`'s texture over `node`'s area and, with `parent`, the parent level's there (each
/// level's samples cover the area).
fn bake_over(
    src: &WorldSource,
    node: NodeId,
    own: &GridSamples,
    parent: Option<&GridSamples>,
    shading: Shading,
) -> (TileTexture, Option<TileTexture>) {
    let c = CHUNK_COLUMNS as i64;
    let [x0, z0, _, _] = node.chunk_rect();
    let cols = c << node.level;
    let spacing = texel_spacing(own.samples.grid.level);
    let os = |x: f64, z: f64| own.height_at(x, z);
    let ps = |x: f64, z: f64| parent.map_or(0.0, |p| p.height_at(x, z));
    let (own_view, parent_view) = (LevelView { surface: &os }, LevelView { surface: &ps });
    let ratio = parent.map(|p| texel_spacing(p.samples.grid.level) / spacing);
    let side = (cols / spacing + 1) as u32;
    bake(src, &own_view, ratio.map(|r| (&parent_view, r)), [x0 as i64 * c, z0 as i64 * c], spacing, side, shading)
}

/// Grid indices `[i0, j0, i1, j1]` (inclusive) of `grid` covering `node`'s area, clipped to the
/// world.
fn node_grid_rect(node: NodeId, grid: &LevelGrid) -> [i64; 4] {
    let c = CHUNK_COLUMNS as i64;
    let [x0, z0, x1, z1] = node.chunk_rect();
    let col = |chunk: i32| (chunk as i64 * c).min(grid.extent);
    let first = |v: i64| v / grid.step;
    let last = |v: i64| (v + grid.step - 1) / grid.step;
    [first(col(x0)), first(col(z0)), last(col(x1)), last(col(z1))]
}

/// Mesh a coarse node (level ≥ 1) into `out`: terrain with morph targets and T-junction fill,
/// and its merged water. `top_level` is the tree's root level (its nodes have no parent).
pub fn mesh_tile(src: &WorldSource, node: NodeId, top_level: u8, shading: Shading, out: &mut LodMesh) {
    mesh_tile_with(src, node, top_level, shading, true, out);
}

/// A coarse node's far-field textures alone (see [`mesh_tile`]): its own level's and its parent
/// level's over its area, exactly as [`mesh_tile`] bakes them.
pub fn bake_tile(src: &WorldSource, node: NodeId, top_level: u8, shading: Shading) -> Box<[TileTexture; 2]> {
    assert!(node.level >= 1, "level 0 is a Marching Cubes chunk");
    let grid = LevelGrid::new(&src.layout, node.level);
    let own = GridSamples::new(src, grid, node_grid_rect(node, &grid), shading);
    let parent = parent_samples(src, node, top_level, shading);
    textures_of(src, node, &own, parent.as_ref(), shading)
}

fn textures_of(
    src: &WorldSource,
    node: NodeId,
    own: &GridSamples,
    parent: Option<&GridSamples>,
    shading: Shading,
) -> Box<[TileTexture; 2]> {
    let (own_tex, parent_tex) = bake_over(src, node, own, parent, shading);
    let parent_tex = parent_tex.unwrap_or_else(|| own_tex.clone());
    Box::new([own_tex, parent_tex])
}

/// [`mesh_tile`], with the textures baked (`bake`) or left for [`bake_tile`] (`textures` `None`).
pub fn mesh_tile_with(src: &WorldSource, node: NodeId, top_level: u8, shading: Shading, bake: bool, out: &mut LodMesh) {
    assert!(node.level >= 1, "level 0 is a Marching Cubes chunk");
    *out = LodMesh::default();
    let grid = LevelGrid::new(&src.layout, node.level);
    let [i0, j0, i1, j1] = node_grid_rect(node, &grid);
    let own = GridSamples::new(src, grid, [i0, j0, i1, j1], shading);
    let parent = parent_samples(src, node, top_level, shading);
    let (nx, nz) = ((i1 - i0) as usize, (j1 - j0) as usize);
    let col = src.layout.column_m;
    for a in 0..=nx as i64 {
        for b in 0..=nz as i64 {
            let (i, j) = (i0 + a, j0 + b);
            let k = own.at(i, j);
            let (x, z) = (grid.line(i) as f64, grid.line(j) as f64);
            push_vertex(out, col, x, z, (own.shape(k), own.colour[k]), parent.as_ref());
        }
    }
    let v = |a: usize, b: usize| (a * (nz + 1) + b) as u32;
    for a in 0..nx {
        for b in 0..nz {
            let (p00, p01, p11, p10) = (v(a, b), v(a, b + 1), v(a + 1, b + 1), v(a + 1, b));
            out.terrain.indices.extend_from_slice(&[p00, p01, p11, p00, p11, p10]);
        }
    }
    // T-junction fill along the four borders.
    let borders: [(bool, i64, [usize; 2]); 4] = [
        (true, grid.line(i0), [0, 0]),   // x = first line, walking z
        (true, grid.line(i1), [nx, 0]),  // x = last line
        (false, grid.line(j0), [0, 0]),  // z = first line, walking x
        (false, grid.line(j1), [0, nz]), // z = last line
    ];
    for (along_z, fixed, [fa, fb]) in borders {
        let steps = if along_z { nz } else { nx };
        for s in 0..steps {
            let (ia, ib) = if along_z { (v(fa, s), v(fa, s + 1)) } else { (v(s, fb), v(s + 1, fb)) };
            let (c_lo, c_hi) = if along_z {
                (grid.line(j0 + s as i64), grid.line(j0 + s as i64 + 1))
            } else {
                (grid.line(i0 + s as i64), grid.line(i0 + s as i64 + 1))
            };
            let inner = finer_border_points(src, node.level, along_z, fixed, c_lo, c_hi);
            let mut prev = ia;
            for c in inner {
                let (x, z) = if along_z { (fixed as f64, c) } else { (c, fixed as f64) };
                let idx = push_fill(out, col, ia, [x, z], own.surface(x, z).0[0]);
                out.terrain.indices.extend_from_slice(&[ia, prev, idx]);
                prev = idx;
            }
            if prev != ia {
                out.terrain.indices.extend_from_slice(&[ia, prev, ib]);
            }
        }
    }
    let cells = water_cells(src, &grid, [i0, j0, i1, j1], &own);
    merge_water(src, &grid, [i0, j0, i1, j1], &cells, &mut out.water);
    if bake {
        out.textures = Some(textures_of(src, node, &own, parent.as_ref(), shading));
    }
}

/// Append a tile vertex at column coordinates `(x, z)` with its own `(shape, colour)` and its
/// morph target on the parent level's surface (itself at the root); returns its index.
fn push_vertex(
    out: &mut LodMesh,
    column_m: f32,
    x: f64,
    z: f64,
    (shape, colour): ([f32; 4], [f32; 4]),
    parent: Option<&GridSamples>,
) -> u32 {
    let idx = out.terrain.positions.len() as u32;
    out.terrain.positions.push([x as f32 * column_m, shape[0], z as f32 * column_m]);
    out.terrain.normals.push([shape[1], shape[2], shape[3]]);
    out.terrain.colors.push(colour);
    let (ms, mc) = parent.map_or((shape, colour), |p| p.surface(x, z));
    out.morph.push(ms);
    out.morph_colors.push(mc);
    idx
}

/// Marks a T-junction fill vertex: its morph colour's alpha (a colour's is at most 1).
pub const FILL_MARK: f32 = 2.0;

/// Append a T-junction fill vertex on the border segment that starts at vertex `first`: a copy
/// of `first`, so the fill's triangles have no area wherever the vertex shader leaves it, with
/// its own place (column coordinates `(x, z)`, own surface height `y`) as its morph colour. On
/// a side pinned finer the shader puts it there ([`drawn_position`]), where the finer
/// neighbour's border vertex is. (Fill placed and morphed as a vertex would bulge out of the
/// border line wherever the morph factor changes along it, and its back faces would show
/// through the neighbour as dark specks.)
fn push_fill(out: &mut LodMesh, column_m: f32, first: u32, [x, z]: [f64; 2], y: f32) -> u32 {
    let (idx, f) = (out.terrain.positions.len() as u32, first as usize);
    let t = &mut out.terrain;
    t.positions.push(t.positions[f]);
    t.normals.push(t.normals[f]);
    t.colors.push(t.colors[f]);
    if !t.paint.is_empty() {
        t.paint.push(t.paint[f]);
    }
    out.morph.push(out.morph[f]);
    out.morph_colors.push([x as f32 * column_m, y, z as f32 * column_m, FILL_MARK]);
    idx
}

/// Where the vertex shader (`terrain_lod.wgsl`) draws vertex `i` of node `n`'s mesh `m`, its
/// CPU copy: the vertex moved towards its morph target by `k`, the factor the camera's distance
/// gives (`LodRanges::morph`), unless the node's border `pins` hold it
/// ([`pinned_morph`](crate::world::display::pinned_morph)); a T-junction fill vertex
/// ([`push_fill`]) at its own place on a side pinned finer, else where its copy is drawn.
pub fn drawn_position(
    n: NodeId,
    pins: u8,
    chunk_m: f32,
    m: &LodMesh,
    i: usize,
    k: impl Fn([f32; 3]) -> f32,
) -> [f32; 3] {
    use crate::world::display::{PIN_FINER, pin_at, pinned_morph};
    let fill = m.morph_colors[i];
    if fill[3] > 1.5 && pin_at(n, pins, chunk_m, fill[0], fill[2]) == PIN_FINER {
        return [fill[0], fill[1], fill[2]];
    }
    let (p, target) = (m.terrain.positions[i], m.morph[i][0]);
    let k = pinned_morph(n, pins, chunk_m, p[0], p[2], k(p));
    [p[0], if k >= 1.0 { target } else { p[1] + (target - p[1]) * k }, p[2]]
}

/// Column coordinates (strictly between `lo` and `hi`, ascending) of the vertices a finer
/// neighbour has on a border segment of a level-`level` tile: the midpoint for a level ≥ 1
/// neighbour, the Marching Cubes crossings for a level-0 chunk.
fn finer_border_points(src: &WorldSource, level: u8, along_z: bool, fixed: i64, lo: i64, hi: i64) -> Vec<f64> {
    if level >= 2 {
        let mid = (lo + hi) / 2;
        return if mid > lo && mid < hi { vec![mid as f64] } else { vec![] };
    }
    // Level 1 against Marching Cubes: per column one crossing on the vertical edge (at the
    // column itself), and one per voxel row between two columns' surfaces on the edge joining
    // them — the same formula the mesher uses, from the lower column.
    let voxel = src.layout.voxel_m;
    let at = |c: i64| if along_z { (fixed, c) } else { (c, fixed) };
    let density_row = |c: i64| {
        let (x, z) = at(c);
        let s = src.surface_y_m(x, z);
        let [gx, gz] = src.gradient(x, z);
        let slope = (gx * gx + gz * gz).sqrt();
        (s, 1.0 / (1.0 + slope * slope).sqrt())
    };
    let mut out = Vec::new();
    for c in lo..hi {
        if c > lo {
            out.push(c as f64);
        }
        let (sa, ka) = density_row(c);
        let (sb, kb) = density_row(c + 1);
        let (ylo, yhi) = (sa.min(sb), sa.max(sb));
        let first = (ylo / voxel).ceil() as i64;
        let last = (yhi / voxel).floor() as i64;
        let mut ts = Vec::new();
        for row in first.max(0)..=last {
            let y = row as f32 * voxel;
            let (da, db) = ((y - sa) * ka, (y - sb) * kb);
            if (da < 0.0) != (db < 0.0) {
                let t = super::marching_cubes::crossing_t(da, db);
                if t > 0.0 && t < 1.0 {
                    ts.push(t as f64);
                }
            }
        }
        ts.sort_by(f64::total_cmp);
        out.extend(ts.into_iter().map(|t| c as f64 + t));
    }
    out
}

/// Morph targets of a level-0 chunk's Marching Cubes vertices: the level-1 surface's height at
/// each vertex's position, and the level-1 far-field texture's normal and colour there (the
/// colour with alpha 0: final, no per-pixel rules over it), so a chunk fully morphed looks as
/// its level-1 tile draws it. `top_level` 0 (a one-chunk world) leaves every vertex on its own
/// surface.
pub fn mc_morph_targets(
    src: &WorldSource,
    node: NodeId,
    top_level: u8,
    shading: Shading,
    mesh: &TerrainMesh,
) -> (Vec<[f32; 4]>, Vec<[f32; 4]>) {
    let col = src.layout.column_m as f64;
    match parent_samples(src, node, top_level, shading) {
        Some(p) => {
            let (tex, _) = bake_over(src, node, &p, None, shading);
            mesh.positions
                .iter()
                .map(|q| {
                    let (x, z) = (q[0] as f64 / col, q[2] as f64 / col);
                    let (c, n) = tex.sample(x, z);
                    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt().max(1e-6);
                    ([p.height_at(x, z), n[0] / len, n[1] / len, n[2] / len], [c[0], c[1], c[2], 0.0])
                })
                .unzip()
        }
        None => (
            mesh.positions.iter().zip(&mesh.normals).map(|(q, n)| [q[1], n[0], n[1], n[2]]).collect(),
            mesh.colors.clone(),
        ),
    }
}

/// A level's water cells over grid indices `[i0, j0, i1, j1]`: per cell, the sheet rule over the
/// columns it covers (sampled at most 8 × 8 per cell). `own` holds the level's samples there.
fn water_cells(src: &WorldSource, grid: &LevelGrid, [i0, j0, i1, j1]: [i64; 4], own: &GridSamples) -> WaterCells {
    let (nx, nz) = ((i1 - i0).max(0), (j1 - j0).max(0));
    let mut out = WaterCells { i0, j0, nx, nz, cells: Vec::new() };
    if !src.has_water_section() {
        out.nx = 0;
        out.nz = 0;
        return out;
    }
    out.cells = vec![None; (nx * nz) as usize];
    let n = src.layout.map_size as i64;
    let top = src.layout.top_m();
    let wet = |x: i64, z: i64| src.water_at(x.clamp(0, n - 1) as u32, z.clamp(0, n - 1) as u32, top);
    // Each cell's highest and deepest sampled water (`None` when dry), over a ring of cells one
    // past the tile so a corner on its border sees the same cells its neighbour tile does.
    let sample = |i: i64, j: i64| -> Option<(f32, f32)> {
        let (x0, x1, z0, z1) = (grid.line(i), grid.line(i + 1), grid.line(j), grid.line(j + 1));
        let stride = ((x1 - x0).max(z1 - z0) / 8).max(1);
        let (mut top_y, mut deepest, mut any) = (f32::MIN, f32::MIN, false);
        let mut x = x0;
        while x <= x1 {
            let mut z = z0;
            while z <= z1 {
                if let Some(w) = wet(x, z) {
                    any = true;
                    top_y = top_y.max(w.water_surface_y_m);
                    deepest = deepest.max(w.true_depth_m);
                }
                z += stride;
            }
            x += stride;
        }
        any.then_some((top_y, deepest))
    };
    let (rx, rz) = (nx + 2, nz + 2);
    let mut ring = vec![None; (rx * rz) as usize];
    for a in 0..rx {
        for b in 0..rz {
            ring[(a * rz + b) as usize] = sample(i0 - 1 + a, j0 - 1 + b);
        }
    }
    let cell = |i: i64, j: i64| ring[((i - i0 + 1) * rz + (j - j0 + 1)) as usize];
    // A corner's surface Y: a wet corner at its own level (a river descending); a dry one, on a
    // bank, at the highest water of the (up to four) cells around it, so every cell that shares
    // it puts it at one height (SPEC §4), in this tile and the next.
    let corner = |ci: i64, cj: i64| match wet(grid.line(ci), grid.line(cj)) {
        Some(w) => w.water_surface_y_m,
        None => [(ci - 1, cj - 1), (ci - 1, cj), (ci, cj - 1), (ci, cj)]
            .iter()
            .filter_map(|&(i, j)| cell(i, j).map(|c| c.0))
            .fold(f32::MIN, f32::max),
    };
    // Per cell, when drawn: its corners' surface Y ((i, j), (i, j + 1), (i + 1, j + 1), (i + 1, j))
    // and its deepest sampled column. Flat cells at the same level merge, whatever their depth
    // (the body is shaded per pixel from the scene's depth, SPEC §5); sloped ones are drawn alone.
    for a in 0..nx {
        for b in 0..nz {
            let (i, j) = (i0 + a, j0 + b);
            let Some((_, deepest)) = cell(i, j) else { continue };
            let ys = [corner(i, j), corner(i, j + 1), corner(i + 1, j + 1), corner(i + 1, j)];
            // Never float a sheet over lower dry ground: a cell whose terrain lies below the
            // sheet at a corner that is dry is left to the terrain.
            let floats = [(i, j), (i, j + 1), (i + 1, j + 1), (i + 1, j)].iter().zip(ys).any(|(&(ci, cj), y)| {
                // Corners on the world's far edge read the map's last column, as the terrain does.
                let dry = wet(grid.line(ci), grid.line(cj)).is_none();
                dry && own.shape(own.at(ci, cj))[0] < y - 0.5
            });
            if floats {
                continue;
            }
            out.cells[(a * nz + b) as usize] = Some((ys, deepest));
        }
    }
    out
}

/// The water of a coarse tile over grid indices `[i0, j0, i1, j1]`: its drawn cells, flat cells
/// at the same level merged into rectangles.
fn merge_water(
    src: &WorldSource,
    grid: &LevelGrid,
    [i0, j0, i1, j1]: [i64; 4],
    cells: &WaterCells,
    out: &mut WaterMesh,
) {
    out.clear();
    let (nx, nz) = ((i1 - i0) as usize, (j1 - j0) as usize);
    let cell = |a: usize, b: usize| cells.get(i0 + a as i64, j0 + b as i64);
    // Greedy merge: grow each unvisited cell along z, then along x, while cells are level with it.
    let mut done = vec![false; nx * nz];
    let col = src.layout.column_m;
    for a in 0..nx {
        for b in 0..nz {
            let Some(key) = cell(a, b) else { continue };
            if done[a * nz + b] {
                continue;
            }
            let flat = key.0.iter().all(|&y| y == key.0[0]);
            let same = |a: usize, b: usize| flat && !done[a * nz + b] && cell(a, b).is_some_and(|c| c.0 == key.0);
            let mut b1 = b + 1;
            while b1 < nz && same(a, b1) {
                b1 += 1;
            }
            let mut a1 = a + 1;
            while a1 < nx && (b..b1).all(|bb| same(a1, bb)) {
                a1 += 1;
            }
            // The vertex colour (used where the body is not per pixel: the debug views) is the
            // ramp at the rectangle's deepest cell, as a single cell's is.
            let mut deepest = key.1;
            for aa in a..a1 {
                for bb in b..b1 {
                    done[aa * nz + bb] = true;
                    deepest = deepest.max(cell(aa, bb).map_or(f32::MIN, |c| c.1));
                }
            }
            let colour = water_colour(deepest);
            let (x0, x1) = (grid.line(i0 + a as i64) as f32 * col, grid.line(i0 + a1 as i64) as f32 * col);
            let (z0, z1) = (grid.line(j0 + b as i64) as f32 * col, grid.line(j0 + b1 as i64) as f32 * col);
            let [y00, y01, y11, y10] = key.0;
            let base = out.positions.len() as u32;
            let normal = super::water::cell_normal(key.0, x1 - x0, z1 - z0);
            for p in [[x0, y00, z0], [x0, y01, z1], [x1, y11, z1], [x1, y10, z0]] {
                out.positions.push(p);
                out.normals.push(normal);
                out.colors.push(colour);
            }
            out.indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
}

thread_local! {
    static MESHER: std::cell::RefCell<Option<super::Mesher>> = const { std::cell::RefCell::new(None) };
}

/// Build one node's meshes (and, at level 0, its chunk data, voxel grids released). Pure: the
/// same node, shading and seam highlight always give identical buffers, on any thread. The app's
/// world server runs it on rayon's pool, one job per node.
pub fn build_node(
    src: &WorldSource,
    tree: &LodTree,
    id: NodeId,
    shading: Shading,
    highlight_seam: bool,
) -> (LodMesh, Option<ChunkData>, [f32; 2]) {
    build_node_with(src, tree, id, shading, highlight_seam, true)
}

/// [`build_node`], a coarse tile's textures baked (`bake`) or left for [`bake_tile`].
pub fn build_node_with(
    src: &WorldSource,
    tree: &LodTree,
    id: NodeId,
    shading: Shading,
    highlight_seam: bool,
    bake: bool,
) -> (LodMesh, Option<ChunkData>, [f32; 2]) {
    let mut mesh = LodMesh::default();
    if id.level == 0 {
        let mut data = build_chunk(src, ChunkCoord::new(id.x, id.z));
        MESHER.with(|m| {
            let mut m = m.borrow_mut();
            let mesher = m.get_or_insert_with(|| super::Mesher::with_shading(shading));
            mesher.shading = shading;
            mesher.mesh_chunk(&data, &mut mesh.terrain);
        });
        (mesh.morph, mesh.morph_colors) = mc_morph_targets(src, id, tree.top_level, shading, &mesh.terrain);
        super::mesh_water_styled(&data, highlight_seam, &mut mesh.water);
        data.release_voxels();
        let range = data.surface_y_m.iter().fold([f32::MAX, f32::MIN], |r, &h| [r[0].min(h), r[1].max(h)]);
        (mesh, Some(data), range)
    } else {
        mesh_tile_with(src, id, tree.top_level, shading, bake, &mut mesh);
        (mesh, None, tree.height_bounds(id))
    }
}
