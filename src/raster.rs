//! Colour rules for pictures of a blueprint seen from above, shared by the forge's snapshots and
//! the map's terrain layer, so both draw an island the same way: hypsometric tint, hillshade,
//! water by true depth, a colour per water body and per biome. Pure functions of numbers; it
//! knows only the blueprint's enums.

use crate::blueprint::{Biome, OCEAN_BODY_ID};

/// Hypsometric tint stops: metres above sea → colour (beach sand, lowland green, bench olive,
/// plateau ochre, summit rock, snow; the forge's shelves sit near 100 m and 220 m, SPEC §2).
pub const HYPSOMETRIC_STOPS: [(f32, [u8; 3]); 6] = [
    (0.0, [214, 201, 150]),
    (12.0, [104, 158, 88]),
    (100.0, [140, 150, 86]),
    (220.0, [158, 128, 88]),
    (330.0, [128, 118, 108]),
    (420.0, [240, 240, 240]),
];
/// Water by true depth: the water sheet's ramp (SPEC §4) in sRGB bytes — shallow teal to deep
/// navy through a smoothstep that bottoms out at [`WATER_RAMP_DEPTH_M`].
pub const SHALLOW_WATER_COLOUR: [u8; 3] = [97, 194, 199];
pub const DEEP_WATER_COLOUR: [u8; 3] = [13, 43, 107];
pub const WATER_RAMP_DEPTH_M: f32 = 60.0;
/// Sun for the hillshade: from the north-west, 45° up (the cartographic convention).
const SUN_DIRECTION: [f32; 3] = [-0.5, std::f32::consts::FRAC_1_SQRT_2, -0.5];
/// Slopes are drawn exaggerated so 4 m columns read as relief at map scale.
const HILLSHADE_EXAGGERATION: f32 = 2.0;
/// The ocean body's colour in body-id pictures.
const OCEAN_BODY_COLOUR: [u8; 3] = [30, 80, 200];

pub fn lerp3(a: [u8; 3], b: [u8; 3], t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    [0, 1, 2].map(|k| a[k] as f32 + (b[k] as f32 - a[k] as f32) * t)
}

pub fn to_u8(c: [f32; 3]) -> [u8; 3] {
    c.map(|v| v.round().clamp(0.0, 255.0) as u8)
}

/// Hypsometric colour for a height above sea, metres.
pub fn hypsometric_colour(above_sea_m: f32) -> [f32; 3] {
    let s = &HYPSOMETRIC_STOPS;
    if above_sea_m <= s[0].0 {
        return lerp3(s[0].1, s[0].1, 0.0);
    }
    for w in s.windows(2) {
        if above_sea_m <= w[1].0 {
            return lerp3(w[0].1, w[1].1, (above_sea_m - w[0].0) / (w[1].0 - w[0].0));
        }
    }
    lerp3(s[5].1, s[5].1, 0.0)
}

/// Water colour for a true depth in metres: lighter when shallow.
pub fn water_depth_colour(true_depth_m: f32) -> [u8; 3] {
    let t = (true_depth_m.max(0.0) / WATER_RAMP_DEPTH_M).clamp(0.0, 1.0);
    to_u8(lerp3(SHALLOW_WATER_COLOUR, DEEP_WATER_COLOUR, t * t * (3.0 - 2.0 * t)))
}

/// Lambert hillshade factor for a surface gradient (metres per metre); 1 on flat ground.
pub fn hillshade(gradient: [f32; 2]) -> f32 {
    let (gx, gz) = (gradient[0] * HILLSHADE_EXAGGERATION, gradient[1] * HILLSHADE_EXAGGERATION);
    let inv = 1.0 / (gx * gx + 1.0 + gz * gz).sqrt();
    let n = [-gx * inv, inv, -gz * inv];
    let lit = n[0] * SUN_DIRECTION[0] + n[1] * SUN_DIRECTION[1] + n[2] * SUN_DIRECTION[2];
    (lit.max(0.0) / SUN_DIRECTION[1]).clamp(0.25, 1.35)
}

/// A stable colour per water body id.
pub fn water_body_colour(id: u16) -> [u8; 3] {
    if id == OCEAN_BODY_ID {
        return OCEAN_BODY_COLOUR;
    }
    let h = (id as u32).wrapping_mul(0x9E37_79B1);
    [(h >> 24) as u8 | 0x40, (h >> 16) as u8 | 0x40, (h >> 8) as u8 | 0x40]
}

/// A colour per biome ordinal (magenta for one the format does not know).
pub fn biome_colour(b: u8) -> [u8; 3] {
    match Biome::from_ordinal(b) {
        Some(Biome::Ocean) => [24, 62, 130],
        Some(Biome::Lake) => [60, 130, 200],
        Some(Biome::Beach) => [226, 212, 160],
        Some(Biome::Grassland) => [136, 186, 90],
        Some(Biome::Forest) => [52, 120, 60],
        Some(Biome::Jungle) => [24, 96, 44],
        Some(Biome::Highland) => [150, 146, 96],
        Some(Biome::Mountain) => [124, 110, 100],
        Some(Biome::Snow) => [244, 244, 250],
        Some(Biome::Wasteland) => [176, 150, 110],
        None => [255, 0, 255],
    }
}
