//! The crater bay: an impact crater on the coast, carved toward `sea − 0.15 raw` inside
//! 0.8 × its radius on **both** maps, so it floods into a bay while its rim (0.8 … 1.0 × radius)
//! survives as a land bridge around it. Because the carve lerps two different bases (classify
//! and render) toward one target, a ring inside the crater renders below sea while the classify
//! map calls it dry: the seam ring the world's shoreline-seam rule exists for.

use rayon::prelude::*;

/// Depth of the carve target below sea, raw units (reference: "dialed back to −0.15").
pub const CARVE_BELOW_SEA_RAW: f32 = 0.15;
/// The carve's own extent as a fraction of the crater radius; erosion's protected core must be at
/// least this wide so the two passes touch disjoint cells.
pub const CARVE_FACTOR: f32 = 0.8;
/// Fraction of the way to the target at the very centre.
const CARVE_STRENGTH: f32 = 0.9;
/// Candidate headings tried for the crater's coast point.
const CANDIDATES: usize = 16;
/// The crater centre sits this many radii inland of the coast point.
const INLAND_RADII: f32 = 0.3;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CraterDials {
    /// Crater radius as a fraction of the map size; 0 = no crater.
    pub radius_frac: f32,
}

impl Default for CraterDials {
    fn default() -> Self {
        Self { radius_frac: 0.06 }
    }
}

/// A placed crater, in pixel index coordinates (pixel `(x, y)` is at `(x, y)`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Crater {
    pub x: f32,
    pub y: f32,
    pub radius_px: f32,
}

impl Crater {
    pub fn carve_radius_px(&self) -> f32 {
        self.radius_px * CARVE_FACTOR
    }
    pub fn distance(&self, x: usize, y: usize) -> f32 {
        let (dx, dy) = (x as f32 - self.x, y as f32 - self.y);
        (dx * dx + dy * dy).sqrt()
    }
}

/// Place the crater on the coast of the classify map: of [`CANDIDATES`] headings from the centre
/// (phase from the seed), the one whose crater would cover the most lowland (`0 < e < lowland_m`
/// metres above sea) — lowland is where the curve compresses height, so that is where the seam
/// ring forms. `None` when the radius is under two pixels or no heading finds a coast.
pub fn place(
    seed: i32,
    dials: &CraterDials,
    n: usize,
    classify: &[f32],
    sea: f32,
    mpr: f32,
    lowland_m: f32,
) -> Option<Crater> {
    let r = dials.radius_frac * n as f32;
    if r < 2.0 {
        return None;
    }
    let phase = super::shape::seed_angle(seed, 2);
    let c = n as f32 / 2.0;
    let at = |x: f32, y: f32| -> Option<f32> {
        let (xi, yi) = (x.round(), y.round());
        (xi >= 0.0 && yi >= 0.0 && (xi as usize) < n && (yi as usize) < n)
            .then(|| classify[xi as usize * n + yi as usize])
    };
    let mut best: Option<(u64, Crater)> = None;
    for k in 0..CANDIDATES {
        let a = phase + k as f32 * std::f32::consts::TAU / CANDIDATES as f32;
        let (dx, dy) = (a.cos(), a.sin());
        // Walk out from the centre; the coast is the last land before a run of `r` water pixels.
        let (mut t, mut last_land, mut water_run) = (0.0f32, None, 0.0f32);
        while let Some(h) = at(c + dx * t, c + dy * t) {
            if h >= sea {
                last_land = Some(t);
                water_run = 0.0;
            } else {
                water_run += 1.0;
                if water_run >= r && last_land.is_some() {
                    break;
                }
            }
            t += 1.0;
        }
        let Some(coast) = last_land else { continue };
        let t = coast - INLAND_RADII * r;
        let cr = Crater { x: (c + dx * t).round(), y: (c + dy * t).round(), radius_px: r };
        let rc = cr.carve_radius_px();
        let (x0, x1) = ((cr.x - rc).floor().max(0.0) as usize, ((cr.x + rc).ceil() as usize).min(n - 1));
        let (y0, y1) = ((cr.y - rc).floor().max(0.0) as usize, ((cr.y + rc).ceil() as usize).min(n - 1));
        let mut score = 0u64;
        for x in x0..=x1 {
            for y in y0..=y1 {
                let e = (classify[x * n + y] - sea) * mpr;
                score += (cr.distance(x, y) < rc && e > 0.0 && e < lowland_m) as u64;
            }
        }
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, cr));
        }
    }
    best.map(|(_, c)| c)
}

/// Carve the crater into one map (raw heights): inside 0.8 × radius, lerp toward
/// `sea − 0.15 raw` by `0.9 × (1 − d / (0.8 × radius))`.
pub fn carve(map: &mut [f32], n: usize, crater: &Crater, sea: f32) {
    let target = sea - CARVE_BELOW_SEA_RAW;
    let rc = crater.carve_radius_px();
    map.par_chunks_mut(n).enumerate().for_each(|(x, row)| {
        if (x as f32 - crater.x).abs() >= rc {
            return;
        }
        for (y, h) in row.iter_mut().enumerate() {
            let d = crater.distance(x, y);
            if d < rc {
                let f = CARVE_STRENGTH * (1.0 - d / rc);
                *h += (target - *h) * f;
            }
        }
    });
}
