//! PNG snapshots of a blueprint, for eyes and for reviews: `height.png` (hypsometric tint with a
//! north-west hillshade), `biomes.png`, `water.png` (body ids) and `depth.png` (true depth of
//! every wet pixel over a dimmed land). Image x is map X (east), image y is map Y (south).

use crate::blueprint::{Biome, Blueprint, OCEAN_BODY_ID, write_bytes_atomic};
use anyhow::Context;
use std::path::Path;

/// Hypsometric stops: metres above sea → colour.
const HYPSO: [(f32, [u8; 3]); 8] = [
    (0.0, [214, 206, 156]),
    (8.0, [118, 160, 88]),
    (60.0, [86, 132, 70]),
    (110.0, [150, 150, 92]),
    (200.0, [150, 118, 84]),
    (260.0, [128, 104, 88]),
    (360.0, [170, 160, 156]),
    (420.0, [246, 246, 250]),
];

fn lerp3(a: [u8; 3], b: [u8; 3], t: f32) -> [f32; 3] {
    std::array::from_fn(|k| a[k] as f32 + (b[k] as f32 - a[k] as f32) * t)
}

fn hypso(m: f32) -> [f32; 3] {
    for w in HYPSO.windows(2) {
        if m < w[1].0 {
            return lerp3(w[0].1, w[1].1, ((m - w[0].0) / (w[1].0 - w[0].0)).clamp(0.0, 1.0));
        }
    }
    HYPSO[HYPSO.len() - 1].1.map(|c| c as f32)
}

/// Depth ramp: shallow teal to deep navy, bottoming out at 60 m (as the water sheet does).
fn depth_colour(depth_m: f32) -> [f32; 3] {
    let t = (depth_m / 60.0).clamp(0.0, 1.0);
    let t = t * t * (3.0 - 2.0 * t);
    lerp3([97, 194, 199], [13, 43, 107], t)
}

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

/// Distinct colour per water body id.
fn body_colour(id: u16) -> [u8; 3] {
    if id == OCEAN_BODY_ID {
        return [30, 70, 140];
    }
    let h = (id as u32).wrapping_mul(0x9E37_79B9);
    [80 + (h >> 8) as u8 % 170, 80 + (h >> 16) as u8 % 170, 80 + (h >> 24) as u8 % 170]
}

/// North-west hillshade of the render heights, 0.35..1.
fn hillshade(bp: &Blueprint, x: usize, y: usize) -> f32 {
    let n = bp.n();
    let h = |x: usize, y: usize| bp.heights_raw[x.min(n - 1) * n + y.min(n - 1)] * bp.params.metres_per_raw;
    let gx = (h(x + 1, y) - h(x.saturating_sub(1), y)) / (2.0 * bp.params.metres_per_pixel);
    let gy = (h(x, y + 1) - h(x, y.saturating_sub(1))) / (2.0 * bp.params.metres_per_pixel);
    // Light from the north-west, 45° up.
    let (lx, ly, lz) = (-0.5f32, -0.5f32, std::f32::consts::FRAC_1_SQRT_2);
    let len = (gx * gx + gy * gy + 1.0).sqrt();
    let dot = (-gx * lx - gy * ly + lz) / len;
    0.35 + 0.65 * dot.clamp(0.0, 1.0)
}

fn save(dir: &Path, name: &str, n: usize, px: impl Fn(usize, usize) -> [u8; 3]) -> anyhow::Result<()> {
    let mut img = image::RgbImage::new(n as u32, n as u32);
    for x in 0..n {
        for y in 0..n {
            img.put_pixel(x as u32, y as u32, image::Rgb(px(x, y)));
        }
    }
    let mut bytes = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png).context("encoding PNG")?;
    let path = dir.join(name);
    write_bytes_atomic(&path, &bytes).with_context(|| format!("writing {}", path.display()))
}

/// Write the four snapshots into `dir` (created if missing).
pub fn snapshots(bp: &Blueprint, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let n = bp.n();
    let p = bp.params;
    let ids = bp.water.as_ref().map(|w| &w.body_ids);
    let level = |x: usize, y: usize| -> Option<f32> {
        let w = bp.water.as_ref()?;
        let id = w.body_ids[x * n + y];
        (id != 0).then(|| w.body(id).map(|b| b.surface_level_raw)).flatten()
    };
    save(dir, "height.png", n, |x, y| {
        let h = bp.heights_raw[x * n + y];
        let c = match level(x, y) {
            Some(l) => depth_colour((l - h) * p.metres_per_raw),
            None if h < p.sea_level_raw => [200.0, 60.0, 200.0], // dry below sea: the seam ring
            None => hypso((h - p.sea_level_raw) * p.metres_per_raw).map(|c| c * hillshade(bp, x, y)),
        };
        c.map(|v| v.clamp(0.0, 255.0) as u8)
    })?;
    save(dir, "biomes.png", n, |x, y| biome_colour(bp.biomes[x * n + y]))?;
    save(dir, "water.png", n, |x, y| match ids {
        Some(ids) if ids[x * n + y] != 0 => body_colour(ids[x * n + y]),
        _ => [(70.0 * hillshade(bp, x, y) + 40.0) as u8; 3],
    })?;
    save(dir, "depth.png", n, |x, y| {
        let c = match level(x, y) {
            Some(l) => depth_colour((l - bp.heights_raw[x * n + y]) * p.metres_per_raw),
            None => [60.0 * hillshade(bp, x, y) + 20.0; 3],
        };
        c.map(|v| v.clamp(0.0, 255.0) as u8)
    })?;
    Ok(())
}
