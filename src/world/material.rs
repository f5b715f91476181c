//! Material per voxel: from the column's biome, the depth below the surface and the slope.

use crate::blueprint::Biome;

/// Stored material of a solid voxel; 0 is air. Ordinals index the mesher's palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Material {
    Air = 0,
    Sand = 1,
    Grass = 2,
    ForestFloor = 3,
    JungleFloor = 4,
    Rock = 5,
    Snow = 6,
    Dirt = 7,
    Seabed = 8,
    Ash = 9,
    Heath = 10,
    /// A highway's surface.
    Asphalt = 11,
    /// A minor road's lighter surface.
    Gravel = 12,
}

impl Material {
    pub const COUNT: usize = 13;
}

/// Slope (rise over run) above which bare rock shows, whatever the biome: about 40°.
pub const ROCK_SLOPE: f32 = 0.85;
/// Depth below the surface (m) where topsoil gives way to dirt, and dirt to rock.
pub const TOPSOIL_DEPTH_M: f32 = 1.5;
pub const DIRT_DEPTH_M: f32 = 6.0;

/// The surface material a biome shows on gentle slopes.
pub fn top_material(biome: Biome) -> Material {
    match biome {
        Biome::Ocean | Biome::Lake => Material::Seabed,
        Biome::Beach => Material::Sand,
        Biome::Grassland => Material::Grass,
        Biome::Forest => Material::ForestFloor,
        Biome::Jungle => Material::JungleFloor,
        Biome::Highland => Material::Heath,
        Biome::Mountain => Material::Rock,
        Biome::Snow => Material::Snow,
        Biome::Wasteland => Material::Ash,
    }
}

/// [`material_at`] on a column that may carry a road (`road`: 0 none, else 1 + the tier
/// ordinal): the road's surface replaces the topsoil.
pub fn road_material_at(road: u8, biome: Biome, depth_m: f32, slope: f32) -> Material {
    let m = material_at(biome, depth_m, slope);
    if road == 0 || m == Material::Air || depth_m > TOPSOIL_DEPTH_M {
        return m;
    }
    if road == 1 { Material::Asphalt } else { Material::Gravel }
}

/// Material of the voxel `depth_m` below the surface of a column (negative depth is air): the
/// integer classification that is stored. The rendered colour uses the float version in the
/// mesher's palette, which blends across a band around the same thresholds.
pub fn material_at(biome: Biome, depth_m: f32, slope: f32) -> Material {
    if depth_m < 0.0 {
        return Material::Air;
    }
    if depth_m > DIRT_DEPTH_M {
        return Material::Rock;
    }
    let top = top_material(biome);
    if slope > ROCK_SLOPE && top != Material::Seabed {
        return Material::Rock;
    }
    if depth_m > TOPSOIL_DEPTH_M && !matches!(top, Material::Sand | Material::Seabed | Material::Rock) {
        return Material::Dirt;
    }
    top
}
