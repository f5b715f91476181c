//! PNG snapshots of a blueprint, for eyes and for reviews: `height.png` (hypsometric tint with a
//! north-west hillshade), `biomes.png`, `water.png` (body ids) and `depth.png` (true depth of
//! every wet pixel over a dimmed land). Image x is map X (east), image y is map Y (south).

use crate::blueprint::Blueprint;
use crate::raster::{biome_colour, hillshade, hypsometric_colour, to_u8, water_body_colour, water_depth_colour};
use anyhow::Context;
use std::path::Path;

/// Hillshade of the render heights at a pixel (the map's rule, `crate::raster::hillshade`).
fn shade(bp: &Blueprint, x: usize, y: usize) -> f32 {
    let n = bp.n();
    let h = |x: usize, y: usize| bp.heights_raw[x.min(n - 1) * n + y.min(n - 1)] * bp.params.metres_per_raw;
    let span = |a: usize, b: usize| (b - a).max(1) as f32 * bp.params.metres_per_pixel;
    let (x0, x1, y0, y1) = (x.saturating_sub(1), (x + 1).min(n - 1), y.saturating_sub(1), (y + 1).min(n - 1));
    hillshade([(h(x1, y) - h(x0, y)) / span(x0, x1), (h(x, y1) - h(x, y0)) / span(y0, y1)])
}

fn save(dir: &Path, name: &str, n: usize, px: impl Fn(usize, usize) -> [u8; 3]) -> anyhow::Result<()> {
    let mut img = image::RgbImage::new(n as u32, n as u32);
    for x in 0..n {
        for y in 0..n {
            img.put_pixel(x as u32, y as u32, image::Rgb(px(x, y)));
        }
    }
    let bytes = crate::io::encode_png_rgb(img.as_raw(), n as u32, n as u32)?;
    crate::io::write_png_atomic(&dir.join(name), &bytes)
}

/// Write the four snapshots into `dir` (created if missing).
pub fn snapshots(bp: &Blueprint, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let n = bp.n();
    let p = bp.params;
    let ids = bp.water.as_ref().map(|w| &w.body_ids);
    // The pixel's own level (`WSRF`: a river's falls along it), else its body's (`WBTB`).
    let level = |x: usize, y: usize| -> Option<f32> {
        let w = bp.water.as_ref()?;
        let id = w.body_ids[x * n + y];
        if id == 0 {
            return None;
        }
        let own = w.surface.as_ref().and_then(|s| crate::blueprint::water_level::decode(s[x * n + y]));
        own.or_else(|| w.body(id).map(|b| b.surface_level_raw))
    };
    save(dir, "height.png", n, |x, y| {
        let h = bp.heights_raw[x * n + y];
        match level(x, y) {
            Some(l) => water_depth_colour((l - h) * p.metres_per_raw),
            None if h < p.sea_level_raw => [200, 60, 200], // dry below sea: the seam ring
            None => to_u8(hypsometric_colour((h - p.sea_level_raw) * p.metres_per_raw).map(|c| c * shade(bp, x, y))),
        }
    })?;
    save(dir, "biomes.png", n, |x, y| biome_colour(bp.biomes[x * n + y]))?;
    save(dir, "water.png", n, |x, y| match ids {
        Some(ids) if ids[x * n + y] != 0 => water_body_colour(ids[x * n + y]),
        _ => [(70.0 * shade(bp, x, y).min(1.0) + 40.0) as u8; 3],
    })?;
    save(dir, "depth.png", n, |x, y| match level(x, y) {
        Some(l) => water_depth_colour((l - bp.heights_raw[x * n + y]) * p.metres_per_raw),
        None => [(60.0 * shade(bp, x, y).min(1.0) + 20.0) as u8; 3],
    })?;
    Ok(())
}
