//! The water sheet (SPEC §4): a separate, upward-facing mesh per chunk.
//!
//! Per cell of four columns: drawn if **any** corner is wet; each wet corner at its own column's
//! surface and each dry corner at its bank height, the highest wet surface among the dry column's
//! 8 neighbours (the world's [`ChunkWater::bank_y_m`](crate::world::ChunkWater::bank_y_m)): at
//! least the cell's highest, which carries the sheet under the shoreline so no dry gap shows along
//! coasts, and one height for every cell that shares the corner. A body at one level is flat; a
//! river whose columns step down is drawn through its corners' levels, so neighbouring cells share
//! their edges exactly, at its banks too, and a sloped river has no steps or slits. A sloped cell's normal follows its
//! slope; a flat one's points straight up. Coloured by the **deepest** wet corner's true depth
//! through a smoothstep ramp from shallow teal to deep navy that bottoms out at [`RAMP_DEPTH_M`].
//! Sheets of neighbouring chunks never overlap, so translucent water never stacks alpha.

use super::palette::srgb_to_linear;
use crate::world::{CHUNK_COLUMNS, ChunkData};

/// Shallow water colour (sRGB) and alpha.
pub const SHALLOW_RGB: [f32; 3] = [0.38, 0.76, 0.78];
pub const SHALLOW_ALPHA: f32 = 0.62;
/// Deep water colour (sRGB) and alpha.
pub const DEEP_RGB: [f32; 3] = [0.05, 0.17, 0.42];
pub const DEEP_ALPHA: f32 = 0.97;
/// Depth at which the ramp reaches the deep colour.
pub const RAMP_DEPTH_M: f32 = 60.0;

/// Plain buffers of the water sheet; all normals point up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WaterMesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub colors: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
}

impl WaterMesh {
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
    /// Bytes of its vertex and index buffers (position, normal, colour; `u32` indices).
    pub fn byte_size(&self) -> usize {
        self.positions.len() * (12 + 12 + 16) + self.indices.len() * 4
    }
    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.colors.clear();
        self.indices.clear();
    }
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Linear RGBA of water whose deepest wet corner is `true_depth_m` deep.
pub fn water_colour(true_depth_m: f32) -> [f32; 4] {
    let t = smoothstep(0.0, RAMP_DEPTH_M, true_depth_m);
    let mix = |a: f32, b: f32| a + (b - a) * t;
    [
        srgb_to_linear(mix(SHALLOW_RGB[0], DEEP_RGB[0])),
        srgb_to_linear(mix(SHALLOW_RGB[1], DEEP_RGB[1])),
        srgb_to_linear(mix(SHALLOW_RGB[2], DEEP_RGB[2])),
        mix(SHALLOW_ALPHA, DEEP_ALPHA),
    ]
}

/// The normal of a cell whose corners `(x0, z0)`, `(x0, z1)`, `(x1, z1)`, `(x1, z0)` stand at `y`:
/// straight up when flat, else the mean slope's normal (always facing up).
pub fn cell_normal([y00, y01, y11, y10]: [f32; 4], dx: f32, dz: f32) -> [f32; 3] {
    if y00 == y01 && y01 == y11 && y11 == y10 {
        return [0.0, 1.0, 0.0];
    }
    let gx = ((y10 + y11) - (y00 + y01)) / (2.0 * dx);
    let gz = ((y01 + y11) - (y00 + y10)) / (2.0 * dz);
    let len = (gx * gx + 1.0 + gz * gz).sqrt();
    [-gx / len, 1.0 / len, -gz / len]
}

/// Colour of cells touching a seam column when the seam highlight is on (linear magenta).
pub const SEAM_HIGHLIGHT: [f32; 4] = [1.0, 0.0, 0.8, 0.95];

/// Mesh a chunk's water sheet into `out` (cleared first). A chunk without water yields nothing.
pub fn mesh_water(chunk: &ChunkData, out: &mut WaterMesh) {
    mesh_water_styled(chunk, false, out)
}

/// [`mesh_water`], optionally colouring every cell with a seam-rule corner in [`SEAM_HIGHLIGHT`]
/// (the debug overlay's seam view).
pub fn mesh_water_styled(chunk: &ChunkData, highlight_seam: bool, out: &mut WaterMesh) {
    out.clear();
    let Some(water) = &chunk.water else { return };
    let n = CHUNK_COLUMNS as usize;
    for cx in 0..n {
        for cz in 0..n {
            let corners = [(cx, cz), (cx, cz + 1), (cx + 1, cz + 1), (cx + 1, cz)];
            let mut top = f32::MIN;
            let mut deepest = f32::MIN;
            let mut any = false;
            let mut seam = false;
            let mut level = [None; 4];
            for (k, &(x, z)) in corners.iter().enumerate() {
                if let Some(c) = water.columns[ChunkData::column_index(x, z)] {
                    any = true;
                    seam |= c.seam;
                    top = top.max(c.water_surface_y_m);
                    deepest = deepest.max(c.true_depth_m);
                    level[k] = Some(c.water_surface_y_m);
                }
            }
            if !any {
                continue;
            }
            let colour = if highlight_seam && seam { SEAM_HIGHLIGHT } else { water_colour(deepest) };
            let base = out.positions.len() as u32;
            let ys = std::array::from_fn(|k| {
                let (x, z) = corners[k];
                let bank = water.bank_y_m[ChunkData::column_index(x, z)];
                level[k].unwrap_or(if bank.is_finite() { bank } else { top })
            });
            let normal = cell_normal(ys, chunk.column_m, chunk.column_m);
            for (k, &(x, z)) in corners.iter().enumerate() {
                let wx = (chunk.origin_px.0 + x as i64) as f32 * chunk.column_m;
                let wz = (chunk.origin_px.1 + z as i64) as f32 * chunk.column_m;
                out.positions.push([wx, ys[k], wz]);
                out.normals.push(normal);
                out.colors.push(colour);
            }
            // (x,z) → (x,z+1) → (x+1,z+1) is counter-clockwise seen from above.
            out.indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
}
