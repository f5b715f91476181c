//! One road alone (SPEC §3 "Roads"): its width and shoulder by tier, and its roadbed, the
//! terrain profile along its points graded within the tier's grade and lifted over the sea, over
//! its bridges' water and over the water beside it. Where roads meet they are then joined
//! ([`super::joins`]), and the world's columns carved from the joined roadbeds
//! ([`super::roads`]): this module is below both.

use super::layout::FLOOR_Y_M;
use crate::blueprint::{Blueprint, Road, RoadTier};

/// Road width (m) and shoulder (m) per tier.
pub fn road_width_m(tier: RoadTier) -> f32 {
    match tier {
        RoadTier::Highway => 10.0,
        RoadTier::Road => 6.0,
    }
}
pub fn shoulder_m(tier: RoadTier) -> f32 {
    match tier {
        RoadTier::Highway => 10.0,
        RoadTier::Road => 7.0,
    }
}

/// A bridge deck's roadbed stands at least this far above the water it spans (m).
pub const BRIDGE_CLEARANCE_M: f32 = 1.5;
/// The roadbed never drops below this far above sea (m): the seam rule compares the carved
/// surface with the ocean's level, and a road should not flood.
pub const ROADBED_ABOVE_SEA_M: f32 = 0.5;

/// One road ready for per-column questions: points (pixel coordinates), the roadbed (m) at each
/// and whether it lies on a bridge span.
#[derive(Debug, Clone)]
pub struct CarvedRoad {
    pub tier: RoadTier,
    pub points: Vec<[f32; 2]>,
    pub bed_m: Vec<f32>,
    pub bridge: Vec<bool>,
    /// The lowest the roadbed may stand at each point: above the sea, over its bridges' water by
    /// the clearance, over the water beside it (a grade-limited profile itself).
    pub floor_m: Vec<f32>,
}

pub(super) fn bilinear(bp: &Blueprint, x: f32, y: f32) -> f32 {
    let n = bp.map_size as i64;
    let (fx, fy) = ((x - 0.5).max(0.0), (y - 0.5).max(0.0));
    let (x0, y0) = (fx.floor() as i64, fy.floor() as i64);
    let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
    let h = |x: i64, y: i64| {
        let (x, y) = (x.clamp(0, n - 1) as u32, y.clamp(0, n - 1) as u32);
        (bp.height_raw(x, y) * bp.params.metres_per_raw).max(FLOOR_Y_M)
    };
    let a = h(x0, y0) + (h(x0 + 1, y0) - h(x0, y0)) * tx;
    let b = h(x0, y0 + 1) + (h(x0 + 1, y0 + 1) - h(x0, y0 + 1)) * tx;
    a + (b - a) * ty
}

/// The roadbed of a terrain profile `h` at arc lengths `s`, within `grade`: the mean of the
/// lowest grade-limited profile above `h` and the highest below it, over the points `fixed` says
/// count (the others are interpolated by the same two envelopes).
pub fn roadbed(h: &[f32], s: &[f32], fixed: &[bool], grade: f32) -> Vec<f32> {
    let m = h.len();
    let (mut upper, mut lower) = (vec![f32::INFINITY; m], vec![f32::NEG_INFINITY; m]);
    for i in 0..m {
        if fixed[i] {
            upper[i] = h[i];
            lower[i] = h[i];
        }
    }
    for i in 1..m {
        let d = grade * (s[i] - s[i - 1]);
        upper[i] = upper[i].min(upper[i - 1] + d);
        lower[i] = lower[i].max(lower[i - 1] - d);
    }
    for i in (0..m.saturating_sub(1)).rev() {
        let d = grade * (s[i + 1] - s[i]);
        upper[i] = upper[i].min(upper[i + 1] + d);
        lower[i] = lower[i].max(lower[i + 1] - d);
    }
    upper
        .iter()
        .zip(&lower)
        .zip(h)
        .map(|((&u, &l), &h)| if u.is_finite() && l.is_finite() { 0.5 * (u + l) } else { h })
        .collect()
}

/// The water surface (m) over a pixel, when it is wet.
fn water_level_m(bp: &Blueprint, p: [f32; 2]) -> Option<f32> {
    let w = bp.water.as_ref()?;
    let n = bp.map_size as usize;
    let i = (p[0] as usize).min(n - 1) * n + (p[1] as usize).min(n - 1);
    if w.body_ids[i] == 0 {
        return None;
    }
    let level = w.surface.as_ref().and_then(|s| crate::blueprint::water_level::decode(s[i]));
    level.or_else(|| w.body(w.body_ids[i]).map(|b| b.surface_level_raw)).map(|l| l * bp.params.metres_per_raw)
}

/// The highest water surface (m) over the pixels within `reach` pixels of `p` (−∞ if none is wet).
pub(super) fn water_beside_m(bp: &Blueprint, p: [f32; 2], reach: i64) -> f32 {
    let n = bp.map_size as i64;
    let (cx, cy) = (p[0].floor() as i64, p[1].floor() as i64);
    let mut top = f32::NEG_INFINITY;
    for x in (cx - reach).max(0)..=(cx + reach).min(n - 1) {
        for y in (cy - reach).max(0)..=(cy + reach).min(n - 1) {
            if let Some(l) = water_level_m(bp, [x as f32, y as f32]) {
                top = top.max(l);
            }
        }
    }
    top
}

/// `max_j (v_j − grade·|s_i − s_j|)`: the lowest grade-limited profile at or above every `v`.
fn lower_cone(v: &[f32], s: &[f32], grade: f32) -> Vec<f32> {
    let mut out = v.to_vec();
    for i in 1..out.len() {
        out[i] = out[i].max(out[i - 1] - grade * (s[i] - s[i - 1]));
    }
    for i in (0..out.len().saturating_sub(1)).rev() {
        out[i] = out[i].max(out[i + 1] - grade * (s[i + 1] - s[i]));
    }
    out
}

/// The roadbed (m) of road `r` along its points: the grade-limited profile of the terrain, lifted
/// over the sea (`sea_m`), over its bridges' water by the clearance and over the water beside it.
/// Bridge points over a river (body ids from `river_from` up) do not pull the profile.
pub(super) fn carve_road(bp: &Blueprint, r: &Road, sea_m: f32, river_from: u16) -> CarvedRoad {
    let mpp = bp.params.metres_per_pixel;
    let wet_river = |p: [f32; 2]| {
        let w = bp.water.as_ref()?;
        let n = bp.map_size as usize;
        let (x, y) = ((p[0] as usize).min(n - 1), (p[1] as usize).min(n - 1));
        Some(w.body_ids[x * n + y] >= river_from)
    };
    let m = r.points.len();
    let mut bridge = vec![false; m];
    for s in &r.bridges {
        for b in bridge.iter_mut().take(s[1] as usize + 1).skip(s[0] as usize) {
            *b = true;
        }
    }
    // The bridge's end points are its abutments: they stand on land and do count.
    let fixed: Vec<bool> = (0..m).map(|i| !bridge[i] || !wet_river(r.points[i]).unwrap_or(false)).collect();
    let h: Vec<f32> = r.points.iter().map(|p| bilinear(bp, p[0], p[1])).collect();
    let mut s = vec![0f32; m];
    for i in 1..m {
        let (a, b) = (r.points[i - 1], r.points[i]);
        s[i] = s[i - 1] + (b[0] - a[0]).hypot(b[1] - a[1]) * mpp;
    }
    let grade = r.tier.grade_limit();
    let mut bed = roadbed(&h, &s, &fixed, grade);
    // Held above the sea, and over each bridge's water by the clearance, with the
    // approaches ramping up within the grade: the larger of grade-limited profiles is
    // still grade-limited.
    let floor = sea_m + ROADBED_ABOVE_SEA_M;
    // And never below the water beside it: every point stands at least
    // `ROADBED_ABOVE_SEA_M` over the highest water within the road's half-width and one
    // column and a half, so no road column sits under a river or lake next to it; a bridge's
    // points, its abutments among them, stand the clearance over that water, so the deck is
    // clear of it across its whole width (beside an abutment, and across a sloping river where
    // the water beside the road's line stands higher than under it).
    let reach = (road_width_m(r.tier) / 2.0 / mpp + 1.5).ceil() as i64;
    let clear: Vec<f32> = (0..m)
        .map(|i| {
            let beside = water_beside_m(bp, r.points[i], reach);
            beside + if bridge[i] { BRIDGE_CLEARANCE_M } else { ROADBED_ABOVE_SEA_M }
        })
        .collect();
    let lift: Vec<f32> = lower_cone(&clear, &s, grade).into_iter().map(|l| l.max(floor)).collect();
    for (b, l) in bed.iter_mut().zip(&lift) {
        *b = b.max(*l);
    }
    CarvedRoad { tier: r.tier, points: r.points.clone(), bed_m: bed, bridge, floor_m: lift }
}
