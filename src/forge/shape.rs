//! Island shape: noise topography plus a mountain spine, minus an island falloff.

use super::ForgeDials;
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use rayon::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct ShapeDials {
    /// Falloff axis ratio (north–south extent over east–west extent).
    pub axis_ratio: f32,
    /// Blend between the squircle (0) and the ellipse (1) falloff.
    pub ellipse_blend: f32,
    /// Peak height of the spine above sea, metres.
    pub spine_m: f32,
    /// Amplitude of the noise topography, metres.
    pub relief_m: f32,
}

impl Default for ShapeDials {
    fn default() -> Self {
        Self { axis_ratio: 0.8, ellipse_blend: 0.5, spine_m: 170.0, relief_m: 90.0 }
    }
}

/// Smooth |x|: rounded within `k` of zero, so the spine's crest has no slope kink.
fn smooth_abs(x: f32, k: f32) -> f32 {
    (x * x + k * k).sqrt() - k
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Raw render heights, X-outer / Y-inner.
pub fn heights(d: &ForgeDials, sea_raw: f32, metres_per_raw: f32) -> Vec<f32> {
    let n = d.size as usize;
    let s = &d.shape;
    let fbm: Fbm<Perlin> = Fbm::new(d.seed as u32).set_octaves(6).set_frequency(1.0).set_persistence(0.5);
    let warp = Perlin::new(d.seed.wrapping_add(7919) as u32);
    let mut out = vec![0f32; n * n];
    out.par_chunks_mut(n).enumerate().for_each(|(x, row)| {
        for (y, h) in row.iter_mut().enumerate() {
            let u = (x as f32 + 0.5) / n as f32 * 2.0 - 1.0;
            let v = (y as f32 + 0.5) / n as f32 * 2.0 - 1.0;
            let (fu, fv) = (u, v / s.axis_ratio);
            let squircle = (fu.powi(4) + fv.powi(4)).powf(0.25);
            let ellipse = (fu * fu + fv * fv).sqrt();
            let dist = squircle + (ellipse - squircle) * s.ellipse_blend;
            let land = 1.0 - smoothstep(0.35, 0.92, dist);

            let p = [u as f64 * 2.2, v as f64 * 2.2];
            let topo = fbm.get(p) as f32; // about −1..1
            // A spine running diagonally, its line wobbled by low-frequency noise.
            let wobble = warp.get([u as f64 * 1.3, v as f64 * 1.3]) as f32 * 0.25;
            let across = (u * 0.6 - v * 0.8) + wobble;
            let spine = (1.0 - smooth_abs(across, 0.08) * 2.2).max(0.0);

            let above_m = land * (40.0 + s.relief_m * topo + s.spine_m * spine * land) - (1.0 - land) * 60.0;
            let raw = sea_raw + above_m / metres_per_raw;
            *h = raw.max(0.0);
        }
    });
    out
}
