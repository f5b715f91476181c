//! Marching Cubes over a chunk's sections.
//!
//! Coordinate convention: a section's samples are `PADDED³` with index
//! `(x * PADDED + z) * PADDED + y`; cell `(x, y, z)` spans samples `x..=x+1` etc. Output positions
//! are world metres. A crossing on an edge is placed at `t = d_lo / (d_lo − d_hi)` from the edge's
//! lower sample, always in that order, so both chunks that share a border compute bit-identical
//! vertices. Vertices are shared inside a chunk section through a per-edge cache; the cache and
//! the output buffers are reused between calls (no allocation per voxel).

use super::palette::material_colour;
use super::tables::{EDGES, case_table, corner_offset, edge_axis};
use crate::world::{ChunkData, PADDED, SECTION_VOXELS, SectionData};

/// Plain, indexed triangle buffers: CCW front faces, linear vertex colours.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TerrainMesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub colors: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
}

impl TerrainMesh {
    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.colors.clear();
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
        self.positions.len() * (12 + 12 + 16) + self.indices.len() * 4
    }
}

const P: usize = PADDED;
const NO_VERTEX: u32 = u32::MAX;

/// A reusable mesher: holds the edge → vertex cache.
pub struct Mesher {
    edge_vertex: Vec<u32>,
}

impl Default for Mesher {
    fn default() -> Self {
        Self::new()
    }
}

impl Mesher {
    pub fn new() -> Self {
        Self { edge_vertex: vec![NO_VERTEX; 3 * P * P * P] }
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
        let table = case_table();
        self.edge_vertex.fill(NO_VERTEX);
        let d = &section.density;
        let base_y = section.index * SECTION_VOXELS;
        let idx = |x: usize, y: usize, z: usize| (x * P + z) * P + y;
        for x in 0..P - 1 {
            for z in 0..P - 1 {
                for y in 0..P - 1 {
                    let mut case = 0u8;
                    for c in 0..8u8 {
                        let [ox, oy, oz] = corner_offset(c);
                        if d[idx(x + ox, y + oy, z + oz)] < 0.0 {
                            case |= 1 << c;
                        }
                    }
                    if case == 0 || case == 255 {
                        continue;
                    }
                    for tri in table.case(case) {
                        for &e in tri {
                            let (a, _) = EDGES[e as usize];
                            let [ox, oy, oz] = corner_offset(a);
                            let (lx, ly, lz) = (x + ox, y + oy, z + oz);
                            let axis = edge_axis(e as usize);
                            let key = axis * P * P * P + idx(lx, ly, lz);
                            let mut v = self.edge_vertex[key];
                            if v == NO_VERTEX {
                                v = out.positions.len() as u32;
                                push_vertex(chunk, section, base_y, [lx, ly, lz], axis, out);
                                self.edge_vertex[key] = v;
                            }
                            out.indices.push(v);
                        }
                    }
                }
            }
        }
    }
}

fn push_vertex(
    chunk: &ChunkData,
    section: &SectionData,
    base_y: u32,
    lo: [usize; 3],
    axis: usize,
    out: &mut TerrainMesh,
) {
    let [lx, ly, lz] = lo;
    let mut hi = lo;
    hi[axis] += 1;
    let ia = (lx * P + lz) * P + ly;
    let ib = (hi[0] * P + hi[2]) * P + hi[1];
    let (da, db) = (section.density[ia], section.density[ib]);
    let t = da / (da - db);
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

    // Colour: the solid endpoint's material (the one just below the surface).
    let m = if da < 0.0 { section.material[ia] } else { section.material[ib] };
    out.colors.push(material_colour(m));
}
