//! Chunk data: columns, the sections that meet the surface (density + material per voxel) and the
//! per-column water. All grids are padded by one on the positive side (`PADDED` samples per axis).
//!
//! Index conventions (documented once, used by the mesher):
//! - columns: `cx * PADDED + cz`, pixel `(origin.0 + cx, origin.1 + cz)`;
//! - voxels of a section: `(cx * PADDED + cz) * PADDED + cy`, Y innermost, world
//!   Y = `(section.index * SECTION_VOXELS + cy) × voxel_m`.

use super::layout::{CHUNK_COLUMNS, ChunkCoord, PADDED, SECTION_VOXELS};
use super::material::road_material_at;
use super::water::WaterColumn;
use super::{WorldLayout, WorldSource};
use crate::blueprint::Biome;

/// Resident-memory budget of a meshed chunk, per column it owns: columns (surface, gradient,
/// biome, road, paint field: 22 B for each of the 33² padded samples), water (28 B per padded
/// sample when any column is wet) and bookkeeping, rounded up. Checked by the streaming test.
pub const RESIDENT_BYTES_PER_COLUMN: usize = 56;

/// One vertical section that meets the surface.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionData {
    /// Vertical index: the section spans voxel rows `index * SECTION_VOXELS ..= +SECTION_VOXELS`.
    pub index: u32,
    /// Signed distance to the surface in metres (negative = solid), `PADDED³`.
    pub density: Vec<f32>,
    /// [`Material`](super::Material) ordinal per voxel, `PADDED³`.
    pub material: Vec<u8>,
}

/// Water of a chunk that has at least one wet column.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkWater {
    /// `PADDED²` columns, `None` where dry.
    pub columns: Vec<Option<WaterColumn>>,
    /// `PADDED²` bank heights (m): at a dry column, the highest water surface among its 8
    /// neighbours (read across the chunk's border too), where a water cell's corner on it stands
    /// (SPEC §4); −∞ at a wet column and at a dry one with no wet neighbour.
    pub bank_y_m: Vec<f32>,
    /// Wet columns the chunk owns (padding and pixels outside the map excluded).
    pub wet_columns: u32,
    pub seam_columns: u32,
    pub max_depth_m: f32,
    pub surface_y_range_m: [f32; 2],
}

/// Everything the client needs to draw one chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkData {
    pub coord: ChunkCoord,
    /// Blueprint pixel of column (0, 0).
    pub origin_px: (i64, i64),
    pub column_m: f32,
    pub voxel_m: f32,
    /// `PADDED²` rendered surface heights (m).
    pub surface_y_m: Vec<f32>,
    /// `PADDED²` surface slope `[dY/dX, dY/dZ]`: the density gradient, used for normals.
    pub gradient: Vec<[f32; 2]>,
    /// `PADDED²` biome ordinals, for the rendered colour's blend.
    pub biome: Vec<u8>,
    /// Road per column: 0 none, else 1 + the [`RoadTier`](crate::blueprint::RoadTier) ordinal.
    pub road: Vec<u8>,
    /// `PADDED²` paint field for drawing the roads (SPEC §3 "Roads"): `[distance, tier]`, the
    /// signed distance from the column to the nearest paint edge in columns (negative on the
    /// paint, at most [`NO_PAINT_COLUMNS`](super::roads::NO_PAINT_COLUMNS)) and 1 + the nearest
    /// paint's tier ordinal (a column with none borrows an 8-neighbour's, 0 with none either).
    pub paint: Vec<[f32; 2]>,
    /// Sections that meet the surface, bottom to top.
    pub sections: Vec<SectionData>,
    /// `None` when no column is wet: such a chunk has no water data at all.
    pub water: Option<ChunkWater>,
}

impl ChunkData {
    #[inline]
    pub fn column_index(cx: usize, cz: usize) -> usize {
        cx * PADDED + cz
    }
    pub fn has_water(&self) -> bool {
        self.water.is_some()
    }

    /// Drop the voxel grids (density and material) and keep the columns, the water and the list
    /// of sections. A resident chunk needs no voxels once it is meshed, and the grids are a pure
    /// function of the blueprint, so [`build_chunk`] gives them back on demand. This is what keeps
    /// resident memory within [`RESIDENT_BYTES_PER_COLUMN`].
    pub fn release_voxels(&mut self) {
        for s in &mut self.sections {
            s.density = Vec::new();
            s.material = Vec::new();
        }
    }

    /// Whether the voxel grids are present (see [`ChunkData::release_voxels`]).
    pub fn has_voxels(&self) -> bool {
        self.sections.iter().all(|s| !s.density.is_empty())
    }
    /// Bytes held by this chunk's grids (for the stats panel).
    pub fn resident_bytes(&self) -> usize {
        let cols = self.surface_y_m.len() * 4
            + self.gradient.len() * 8
            + self.biome.len()
            + self.road.len()
            + self.paint.len() * 8;
        let secs: usize = self.sections.iter().map(|s| s.density.len() * 4 + s.material.len()).sum();
        let water = self
            .water
            .as_ref()
            .map_or(0, |w| w.columns.len() * std::mem::size_of::<Option<WaterColumn>>() + w.bank_y_m.len() * 4);
        cols + secs + water + std::mem::size_of::<Self>()
    }
}

/// Build one chunk. Pure: the same source and coordinate always give identical data.
pub fn build_chunk(src: &WorldSource, coord: ChunkCoord) -> ChunkData {
    let bp = &*src.blueprint;
    let layout: &WorldLayout = &src.layout;
    let origin = coord.origin_px();
    let n = bp.map_size as i64;

    let mut surface = vec![0f32; PADDED * PADDED];
    let mut gradient = vec![[0f32; 2]; PADDED * PADDED];
    let mut biome = vec![Biome::Ocean; PADDED * PADDED];
    let mut road = vec![0u8; PADDED * PADDED];
    for cx in 0..PADDED {
        for cz in 0..PADDED {
            let (px, py) = (origin.0 + cx as i64, origin.1 + cz as i64);
            let i = ChunkData::column_index(cx, cz);
            surface[i] = src.surface_y_m(px, py);
            gradient[i] = src.gradient(px, py);
            biome[i] = bp.biome(px.clamp(0, n - 1) as u32, py.clamp(0, n - 1) as u32);
            road[i] = src.road_at(px, py).map_or(0, |t| t as u8 + 1);
        }
    }
    let paint = paint_field(src, origin);

    // Sections that overlap [min surface, max surface] are the only ones a sign change can reach.
    let (lo, hi) = surface.iter().fold((f32::MAX, f32::MIN), |(a, b), &s| (a.min(s), b.max(s)));
    let section_m = layout.section_height_m();
    // One voxel of slack below: a surface exactly on a section's bottom plane still meshes.
    let first = (((lo - layout.voxel_m) / section_m).floor().max(0.0)) as u32;
    let last = ((hi / section_m).floor() as u32).min(layout.sections - 1);
    let sections =
        (first..=last).map(|k| build_section(k, &surface, &gradient, &biome, &road, layout.voxel_m)).collect();

    let water = build_water(src, origin);
    ChunkData {
        coord,
        origin_px: origin,
        column_m: layout.column_m,
        voxel_m: layout.voxel_m,
        surface_y_m: surface,
        gradient,
        biome: biome.iter().map(|&b| b as u8).collect(),
        road,
        paint,
        sections,
        water,
    }
}

/// The paint field of a chunk's padded columns (see [`ChunkData::paint`]). A column off every
/// paint borrows the tier of a neighbour's, so the field's tier does not fade towards "none"
/// between a painted column and its unpainted neighbour.
fn paint_field(src: &WorldSource, origin: (i64, i64)) -> Vec<[f32; 2]> {
    use super::roads::NO_PAINT_COLUMNS;
    let column_m = src.layout.column_m;
    let tier_at = |px: i64, py: i64| src.paint_at(px, py).map(|(_, t)| t);
    let mut paint = vec![[NO_PAINT_COLUMNS, 0.0]; PADDED * PADDED];
    if src.roads.is_empty() {
        return paint;
    }
    for cx in 0..PADDED {
        for cz in 0..PADDED {
            let (px, py) = (origin.0 + cx as i64, origin.1 + cz as i64);
            let i = ChunkData::column_index(cx, cz);
            match src.paint_at(px, py) {
                Some((d_m, t)) => paint[i] = [(d_m / column_m).min(NO_PAINT_COLUMNS), t as u8 as f32 + 1.0],
                None => {
                    let borrowed = (-1..=1)
                        .flat_map(|dx| (-1..=1).map(move |dz| (dx, dz)))
                        .find_map(|(dx, dz)| tier_at(px + dx, py + dz));
                    if let Some(t) = borrowed {
                        paint[i][1] = t as u8 as f32 + 1.0;
                    }
                }
            }
        }
    }
    paint
}

fn build_section(
    index: u32,
    surface: &[f32],
    gradient: &[[f32; 2]],
    biome: &[Biome],
    road: &[u8],
    voxel_m: f32,
) -> SectionData {
    let mut density = vec![0f32; PADDED * PADDED * PADDED];
    let mut material = vec![0u8; PADDED * PADDED * PADDED];
    let base = index * SECTION_VOXELS;
    for col in 0..PADDED * PADDED {
        let s = surface[col];
        let [gx, gz] = gradient[col];
        let slope = (gx * gx + gz * gz).sqrt();
        // Distance to the local tangent plane: (y − s) / |(−gx, 1, −gz)|.
        let inv_norm = 1.0 / (1.0 + slope * slope).sqrt();
        let row = col * PADDED;
        for cy in 0..PADDED {
            let y = (base + cy as u32) as f32 * voxel_m;
            density[row + cy] = (y - s) * inv_norm;
            material[row + cy] = road_material_at(road[col], biome[col], s - y, slope) as u8;
        }
    }
    SectionData { index, density, material }
}

fn build_water(src: &WorldSource, origin: (i64, i64)) -> Option<ChunkWater> {
    let bp = &*src.blueprint;
    bp.water.as_ref()?;
    let n = bp.map_size as i64;
    let top = src.layout.top_m();
    // The padded columns and a ring of one more on every side, for the banks' neighbours.
    const RING: usize = PADDED + 2;
    let mut ring = vec![None; RING * RING];
    for rx in 0..RING {
        for rz in 0..RING {
            let (px, py) = (origin.0 + rx as i64 - 1, origin.1 + rz as i64 - 1);
            if (0..n).contains(&px) && (0..n).contains(&py) {
                ring[rx * RING + rz] = src.water_at(px as u32, py as u32, top);
            }
        }
    }
    let mut columns = vec![None; PADDED * PADDED];
    let mut bank_y_m = vec![f32::NEG_INFINITY; PADDED * PADDED];
    let (mut wet, mut seam, mut max_depth) = (0u32, 0u32, 0f32);
    let mut range = [f32::MAX, f32::MIN];
    let mut any = false;
    for cx in 0..PADDED {
        for cz in 0..PADDED {
            let i = ChunkData::column_index(cx, cz);
            let Some(c) = ring[(cx + 1) * RING + cz + 1] else {
                bank_y_m[i] = bank_level(&ring, RING, cx + 1, cz + 1);
                continue;
            };
            columns[i] = Some(c);
            any = true;
            if cx < CHUNK_COLUMNS as usize && cz < CHUNK_COLUMNS as usize {
                wet += 1;
                seam += c.seam as u32;
                max_depth = max_depth.max(c.true_depth_m);
                range = [range[0].min(c.water_surface_y_m), range[1].max(c.water_surface_y_m)];
            }
        }
    }
    any.then_some(ChunkWater {
        columns,
        bank_y_m,
        wet_columns: wet,
        seam_columns: seam,
        max_depth_m: max_depth,
        surface_y_range_m: if wet > 0 { range } else { [0.0, 0.0] },
    })
}

/// The highest water surface (m) among the 8 neighbours of sample `(x, z)` of a `side`² grid
/// (−∞ when none is wet). Every cell with a corner on a dry column has its other corners among
/// these neighbours, so each cell that shares the corner puts it at this one height.
fn bank_level(grid: &[Option<WaterColumn>], side: usize, x: usize, z: usize) -> f32 {
    let mut top = f32::NEG_INFINITY;
    for nx in x - 1..=x + 1 {
        for nz in z - 1..=z + 1 {
            if let Some(c) = grid[nx * side + nz] {
                top = top.max(c.water_surface_y_m);
            }
        }
    }
    top
}
