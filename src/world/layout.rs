//! Chunk layout: square columns of terrain cut into vertical sections.

use crate::blueprint::Blueprint;

/// Columns per chunk side (the reference uses 32 × 32).
pub const CHUNK_COLUMNS: u32 = 32;
/// Voxels per section height; a section is a cube of `CHUNK_COLUMNS` × `SECTION_VOXELS` cells.
pub const SECTION_VOXELS: u32 = 32;
/// Samples per axis of a chunk or section: one extra on the positive side so the mesher reaches
/// into the neighbour without a lookup.
pub const PADDED: usize = CHUNK_COLUMNS as usize + 1;
/// The rendered floor: the deep ocean floor is drawn flat at this height (SPEC §3), which is why
/// depth is never read from geometry.
pub const FLOOR_Y_M: f32 = 2.0;
/// Water surfaces stay this far inside the world's vertical range (SPEC §3, rule 3).
pub const WATER_TOP_MARGIN_M: f32 = 2.0;

/// A chunk's position in chunk units (X east, Z south).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkCoord {
    pub x: i32,
    pub z: i32,
}

impl ChunkCoord {
    pub fn new(x: i32, z: i32) -> Self {
        Self { x, z }
    }
    /// The chunk holding blueprint pixel `(px, py)`.
    pub fn containing_pixel(px: u32, py: u32) -> Self {
        Self::new((px / CHUNK_COLUMNS) as i32, (py / CHUNK_COLUMNS) as i32)
    }
    /// Blueprint pixel of the chunk's first column.
    pub fn origin_px(self) -> (i64, i64) {
        (self.x as i64 * CHUNK_COLUMNS as i64, self.z as i64 * CHUNK_COLUMNS as i64)
    }
}

/// The fixed geometry of one world: voxel size, vertical range, chunk count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldLayout {
    pub map_size: u32,
    /// Horizontal spacing of columns in metres.
    pub column_m: f32,
    /// Vertical voxel size in metres (cubic voxels: equal to the column spacing).
    pub voxel_m: f32,
    /// Number of vertical sections; the world spans Y in `[0, sections × section height]`.
    pub sections: u32,
    pub chunks_per_side: u32,
}

impl WorldLayout {
    pub fn for_blueprint(bp: &Blueprint) -> Self {
        let column_m = bp.params.metres_per_pixel;
        let voxel_m = column_m;
        let max_h = bp.heights_raw.iter().copied().fold(0f32, f32::max) * bp.params.metres_per_raw;
        let section_m = voxel_m * SECTION_VOXELS as f32;
        // Headroom of one voxel plus the water margin so the surface never touches the lid.
        let needed = max_h.max(FLOOR_Y_M) + voxel_m + WATER_TOP_MARGIN_M;
        let sections = ((needed / section_m).ceil() as u32).max(1);
        // Cells span column i..i+1, so the last chunk must reach column N-1.
        let chunks_per_side = (bp.map_size - 1).div_ceil(CHUNK_COLUMNS);
        Self { map_size: bp.map_size, column_m, voxel_m, sections, chunks_per_side }
    }
    pub fn section_height_m(&self) -> f32 {
        self.voxel_m * SECTION_VOXELS as f32
    }
    /// Top of the world's vertical range in metres.
    pub fn top_m(&self) -> f32 {
        self.sections as f32 * self.section_height_m()
    }
    pub fn chunk_size_m(&self) -> f32 {
        self.column_m * CHUNK_COLUMNS as f32
    }
    pub fn contains(&self, c: ChunkCoord) -> bool {
        let n = self.chunks_per_side as i32;
        (0..n).contains(&c.x) && (0..n).contains(&c.z)
    }
    /// Every chunk of the world, row by row.
    pub fn all_chunks(&self) -> impl Iterator<Item = ChunkCoord> + '_ {
        let n = self.chunks_per_side as i32;
        (0..n).flat_map(move |x| (0..n).map(move |z| ChunkCoord::new(x, z)))
    }
    /// World position (metres) of the centre of a chunk at Y = 0.
    pub fn chunk_centre_m(&self, c: ChunkCoord) -> [f32; 2] {
        let s = self.chunk_size_m();
        [(c.x as f32 + 0.5) * s, (c.z as f32 + 0.5) * s]
    }
}
