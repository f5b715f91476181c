//! Material colours (linear RGB). Chosen to read well under a warm sun and a blue ambient.

use crate::world::Material;

/// sRGB display colour → linear, as vertex colours must be.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

pub fn srgb(r: f32, g: f32, b: f32) -> [f32; 4] {
    [srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b), 1.0]
}

/// Linear RGBA per [`Material`] ordinal.
pub fn material_colour(m: u8) -> [f32; 4] {
    const AIR: u8 = Material::Air as u8;
    match m {
        x if x == Material::Sand as u8 => srgb(0.84, 0.78, 0.58),
        x if x == Material::Grass as u8 => srgb(0.42, 0.60, 0.27),
        x if x == Material::ForestFloor as u8 => srgb(0.26, 0.45, 0.20),
        x if x == Material::JungleFloor as u8 => srgb(0.20, 0.42, 0.16),
        x if x == Material::Rock as u8 => srgb(0.50, 0.47, 0.44),
        x if x == Material::Snow as u8 => srgb(0.93, 0.94, 0.96),
        x if x == Material::Dirt as u8 => srgb(0.45, 0.36, 0.25),
        x if x == Material::Seabed as u8 => srgb(0.62, 0.58, 0.45),
        x if x == Material::Ash as u8 => srgb(0.40, 0.37, 0.34),
        x if x == Material::Heath as u8 => srgb(0.55, 0.56, 0.33),
        x if x == Material::Asphalt as u8 => srgb(0.24, 0.24, 0.25),
        x if x == Material::Gravel as u8 => srgb(0.66, 0.60, 0.49),
        AIR => [1.0, 0.0, 1.0, 1.0],
        _ => [1.0, 0.0, 1.0, 1.0],
    }
}

/// Half-width of the slope band over which a surface blends into bare rock (the terrain shader's).
pub const ROCK_BLEND_HALF_WIDTH: f32 = 0.2;

/// The vertex colour of a surface point in the lit palette view: the biome's own ground cover
/// only. The terrain's fragment shader decides the rest per pixel (SPEC §4 "Materials"): bare
/// rock by the pixel's slope, sand by height just above the waterline, both with noise on the
/// thresholds. A beach therefore carries the inland cover (grass) and gets its sand from the
/// height band, so no coast follows the column grid; likewise the snow biome carries the
/// mountain's rock and gets its snow from the snow line ([`snow_line_m`]) and the slope.
pub fn ground_cover_colour(biome: u8) -> [f32; 4] {
    use crate::blueprint::Biome;
    let b = Biome::from_ordinal(biome).unwrap_or(Biome::Ocean);
    let cover = match b {
        Biome::Beach => Biome::Grassland,
        Biome::Snow => Biome::Mountain,
        b => b,
    };
    material_colour(crate::world::top_material(cover) as u8)
}

/// The vertex colour of a surface point that may carry a road (`road`: 0 none, else 1 + the
/// tier ordinal): the road's surface colour with alpha 0 — which tells the terrain shader to lay
/// no sand, rock or snow over it — or the biome's ground cover with alpha 1.
pub fn cover_colour(biome: u8, road: u8) -> [f32; 4] {
    match road {
        0 => ground_cover_colour(biome),
        1 => with_alpha(material_colour(Material::Asphalt as u8), 0.0),
        _ => with_alpha(material_colour(Material::Gravel as u8), 0.0),
    }
}

fn with_alpha(c: [f32; 4], a: f32) -> [f32; 4] {
    [c[0], c[1], c[2], a]
}

pub use crate::world::snow_line_m;

pub fn lerp4(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t, a[3] + (b[3] - a[3]) * t]
}
