//! Marching Cubes over a chunk's sections.
//!
//! Coordinate convention: a section's samples are `PADDED³` with index
//! `(x * PADDED + z) * PADDED + y`; cell `(x, y, z)` spans samples `x..=x+1` etc. Output positions
//! are world metres. A crossing on an edge is placed at `t = d_lo / (d_lo − d_hi)` from the edge's
//! lower sample, always in that order, so both chunks that share a border compute bit-identical
//! vertices. Vertices are shared inside a chunk section through a per-edge cache; the cache and
//! the output buffers are reused between calls (no allocation per voxel).

use super::palette::{ground_cover_colour, lerp4};
use super::tables::{EDGES, case_table, corner_offset, edge_axis};
use crate::world::{ChunkData, PADDED, SECTION_VOXELS, SectionData};

/// Plain, indexed triangle buffers: CCW front faces, linear vertex colours.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TerrainMesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub colors: Vec<[f32; 4]>,
    /// Per vertex, the roads' paint field ([`ChunkData::paint`]) blended along the vertex's
    /// edge: the terrain shader paints where the interpolated distance is ≤ 0. Filled by the
    /// palette shading of a Marching Cubes chunk, empty otherwise.
    pub paint: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
}

impl TerrainMesh {
    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.colors.clear();
        self.paint.clear();
        self.indices.clear();
    }
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
    /// Bytes of the vertex and index buffers.
    pub fn byte_size(&self) -> usize {
        self.positions.len() * (12 + 12 + 16) + self.paint.len() * 8 + self.indices.len() * 4
    }
}

const P: usize = PADDED;

/// A reusable mesher: holds the edge → vertex cache. Entries carry the generation of the section
/// that wrote them, so starting a section costs nothing (no clearing of the cache).
pub struct Mesher {
    /// `(generation, vertex)` per edge, keyed by axis and lower sample.
    edge_vertex: Vec<(u32, u32)>,
    generation: u32,
    /// How vertices are coloured (the debug overlays' shading modes).
    pub shading: Shading,
}

/// Vertex colouring: the material palette, or a debug view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Shading {
    #[default]
    Palette,
    /// Normal as colour: `rgb = n · 0.5 + 0.5`.
    Normals,
    /// The stored integer material of the solid endpoint, one flat colour per id.
    Materials,
}

impl Shading {
    pub const ALL: [Shading; 3] = [Shading::Palette, Shading::Normals, Shading::Materials];
    pub fn name(self) -> &'static str {
        match self {
            Shading::Palette => "palette",
            Shading::Normals => "normals",
            Shading::Materials => "materials",
        }
    }
    /// The shading with this name (`palette`, `normals`, `materials`).
    pub fn from_name(s: &str) -> Option<Shading> {
        Self::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// Distinct colours for material ids in [`Shading::Materials`] (linear RGBA).
pub fn material_id_colour(m: u8) -> [f32; 4] {
    const IDS: [[f32; 3]; 13] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.85, 0.2],
        [0.1, 0.8, 0.1],
        [0.0, 0.4, 0.0],
        [0.0, 0.9, 0.6],
        [0.5, 0.5, 0.5],
        [1.0, 1.0, 1.0],
        [0.6, 0.3, 0.1],
        [0.2, 0.3, 1.0],
        [0.3, 0.0, 0.3],
        [0.9, 0.4, 0.9],
        [0.15, 0.15, 0.15],
        [1.0, 0.55, 0.0],
    ];
    let c = IDS.get(m as usize).copied().unwrap_or([1.0, 0.0, 0.0]);
    [c[0], c[1], c[2], 1.0]
}

impl Default for Mesher {
    fn default() -> Self {
        Self::new()
    }
}

impl Mesher {
    pub fn new() -> Self {
        Self::with_shading(Shading::Palette)
    }

    pub fn with_shading(shading: Shading) -> Self {
        Self { edge_vertex: vec![(0, 0); 3 * P * P * P], generation: 0, shading }
    }

    /// Mesh every section of a chunk into `out` (cleared first).
    pub fn mesh_chunk(&mut self, chunk: &ChunkData, out: &mut TerrainMesh) {
        out.clear();
        for section in &chunk.sections {
            self.mesh_section(chunk, section, out);
        }
    }

    /// Mesh one section, appending to `out`.
    pub fn mesh_section(&mut self, chunk: &ChunkData, section: &SectionData, out: &mut TerrainMesh) {
        let base_y = section.index * SECTION_VOXELS;
        let shading = self.shading;
        self.mesh_grid(&section.density, [P, P, P], out, |lo, axis, out| {
            push_vertex(chunk, section, base_y, lo, axis, shading, out)
        });
    }

    /// Mesh any grid of samples with dims `[nx, ny, nz]`, index `(x * nz + z) * ny + y`,
    /// appending triangles to `out`. `push` appends the vertex on the edge from sample `lo` one
    /// step along `axis` (0 X, 1 Y, 2 Z) and is called once per crossed edge.
    ///
    /// Cells are visited as columns of four sample columns (`x, z` outer, `y` inner). The four
    /// signs of one sample row make half a cube case, so each row's signs are read once and
    /// shared by the cell below and the cell above it.
    pub fn mesh_grid(
        &mut self,
        density: &[f32],
        dims: [usize; 3],
        out: &mut TerrainMesh,
        mut push: impl FnMut([usize; 3], usize, &mut TerrainMesh),
    ) {
        let [nx, ny, nz] = dims;
        let samples = nx * ny * nz;
        assert!(nx >= 2 && ny >= 2 && nz >= 2 && density.len() >= samples, "grid smaller than its dims");
        if self.edge_vertex.len() < 3 * samples {
            self.edge_vertex.resize(3 * samples, (0, 0));
        }
        let table = case_table();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.edge_vertex.fill((0, 0));
            self.generation = 1;
        }
        let generation = self.generation;
        let d = &density[..samples];
        for x in 0..nx - 1 {
            for z in 0..nz - 1 {
                let c00 = (x * nz + z) * ny;
                let c10 = ((x + 1) * nz + z) * ny;
                let c01 = (x * nz + z + 1) * ny;
                let c11 = ((x + 1) * nz + z + 1) * ny;
                // Corner bits of one row: (x0,z0) → 0, (x1,z0) → 1, (x0,z1) → 4, (x1,z1) → 5.
                let row = |y: usize| -> u8 {
                    ((d[c00 + y] < 0.0) as u8)
                        | ((d[c10 + y] < 0.0) as u8) << 1
                        | ((d[c01 + y] < 0.0) as u8) << 4
                        | ((d[c11 + y] < 0.0) as u8) << 5
                };
                let mut below = row(0);
                for y in 0..ny - 1 {
                    let above = row(y + 1);
                    let case = below | above << 2;
                    below = above;
                    if case == 0 || case == 255 {
                        continue;
                    }
                    for tri in table.case(case) {
                        for &e in tri {
                            let (a, _) = EDGES[e as usize];
                            let [ox, oy, oz] = corner_offset(a);
                            let (lx, ly, lz) = (x + ox, y + oy, z + oz);
                            let axis = edge_axis(e as usize);
                            let key = axis * samples + (lx * nz + lz) * ny + ly;
                            let slot = self.edge_vertex[key];
                            let v = if slot.0 == generation {
                                slot.1
                            } else {
                                let v = out.positions.len() as u32;
                                push([lx, ly, lz], axis, out);
                                self.edge_vertex[key] = (generation, v);
                                v
                            };
                            out.indices.push(v);
                        }
                    }
                }
            }
        }
    }
}

/// Where a crossing lies on the edge from sample `lo` along `axis`, as a fraction from `lo`:
/// `t = d_lo / (d_lo − d_hi)`, always computed from the lower sample, so two grids that share the
/// edge compute the same bits.
#[inline]
pub fn crossing_t(d_lo: f32, d_hi: f32) -> f32 {
    d_lo / (d_lo - d_hi)
}

fn push_vertex(
    chunk: &ChunkData,
    section: &SectionData,
    base_y: u32,
    lo: [usize; 3],
    axis: usize,
    shading: Shading,
    out: &mut TerrainMesh,
) {
    let [lx, ly, lz] = lo;
    let mut hi = lo;
    hi[axis] += 1;
    let ia = (lx * P + lz) * P + ly;
    let ib = (hi[0] * P + hi[2]) * P + hi[1];
    let (da, db) = (section.density[ia], section.density[ib]);
    let t = crossing_t(da, db);
    let gx = (chunk.origin_px.0 + lx as i64) as f32;
    let gz = (chunk.origin_px.1 + lz as i64) as f32;
    let gy = (base_y as usize + ly) as f32;
    let mut p = [gx, gy, gz];
    p[axis] += t;
    out.positions.push([p[0] * chunk.column_m, p[1] * chunk.voxel_m, p[2] * chunk.column_m]);

    // Normal from the density gradient: d = (y − s(x, z)) / k, so ∇d ∝ (−∂s/∂x, 1, −∂s/∂z).
    let ca = ChunkData::column_index(lx, lz);
    let cb = ChunkData::column_index(hi[0], hi[2]);
    let (g0, g1) = (chunk.gradient[ca], chunk.gradient[cb]);
    let gxs = g0[0] + (g1[0] - g0[0]) * t;
    let gzs = g0[1] + (g1[1] - g0[1]) * t;
    let inv = 1.0 / (gxs * gxs + 1.0 + gzs * gzs).sqrt();
    out.normals.push([-gxs * inv, inv, -gzs * inv]);

    // Colour: the ground cover of both columns' biomes, blended along the edge, so biome borders
    // fade instead of stepping (rock and sand are decided per pixel, in the terrain shader, and
    // so is the roads' paint, from the field blended here).
    let colour = match shading {
        Shading::Palette => {
            let (pa, pb) = (chunk.paint[ca], chunk.paint[cb]);
            out.paint.push([pa[0] + (pb[0] - pa[0]) * t, pa[1] + (pb[1] - pa[1]) * t]);
            let colour_a = ground_cover_colour(chunk.biome[ca]);
            if ca == cb { colour_a } else { lerp4(colour_a, ground_cover_colour(chunk.biome[cb]), t) }
        }
        Shading::Normals => [-gxs * inv * 0.5 + 0.5, inv * 0.5 + 0.5, -gzs * inv * 0.5 + 0.5, 1.0],
        Shading::Materials => {
            let m = if da < 0.0 { section.material[ia] } else { section.material[ib] };
            material_id_colour(m)
        }
    };
    out.colors.push(colour);
}
