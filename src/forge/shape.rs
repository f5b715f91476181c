//! Island shape: noise topography plus a mountain spine, minus an island falloff; then the
//! offshore islets and the coast shelf. The result is the **classify** map before the crater
//! carve: uncurved, uneroded elevation, stored as raw height.
//!
//! Everything is in normalised map coordinates (`u, v` in −1..1), so one seed and one set of dials
//! give the same island at every map size; only the sampling resolution changes.

use super::ForgeDials;
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use rayon::prelude::*;

/// Seed offsets of the shape's noise fields (decorrelated streams from one seed).
const TOPO_SEED_OFFSET: i32 = 0;
const WARP_X_SEED_OFFSET: i32 = 7919;
const WARP_Y_SEED_OFFSET: i32 = 7927;
const SPINE_SEED_OFFSET: i32 = 8111;
const COAST_SEED_OFFSET: i32 = 8209;
const ISLET_SEED_OFFSET: i32 = 7607;

/// Coast shelf: `depth' = depth·(1 − STRENGTH·e^(−depth/SCALE))` (reference `IslandFalloff`).
pub const SHELF_STRENGTH: f32 = 0.775;
pub const SHELF_SCALE_M: f32 = 100.0;

/// The deep-water wall at the map edge: starts at this Chebyshev distance from the centre (in
/// normalised units) and sinks the seabed by [`EDGE_WALL_M`] by [`EDGE_WALL_END`].
const EDGE_WALL_START: f32 = 0.84;
const EDGE_WALL_END: f32 = 0.97;
const EDGE_WALL_M: f32 = 220.0;
/// How far the seabed drops past the nominal coast, metres.
const SEAWARD_DROP_M: f32 = 120.0;
/// Islets stay clear of the edge wall: full weight inside `INNER`, none past `OUTER`.
const ISLET_EDGE_INNER: f32 = 0.74;
const ISLET_EDGE_OUTER: f32 = 0.82;
/// Islets only where the falloff distance says "open ocean", past the island body.
const ISLET_MIN_FALLOFF: f32 = 1.12;
const ISLET_FALLOFF_FEATHER: f32 = 0.2;
/// Lattice side for the islet threshold calibration (samples over the whole map, normalised
/// coordinates, so the threshold is the same at every map size).
const ISLET_CALIBRATION_SIDE: usize = 96;
/// Fraction of a blob's excess over the threshold that saturates it.
const ISLET_CORE: f32 = 0.45;
/// Past the core an islet keeps rising toward its noise peak over this many cores: a dome or a
/// stack with a rounded top, not a flat-topped cylinder.
const ISLET_DOME_SPAN: f32 = 2.5;
/// Crest of a low rocky dome (metres above sea, before the curve); stacks reach the islet crest
/// dial. Which an islet is follows a low-frequency field.
const ISLET_DOME_CREST_M: f32 = 22.0;
/// Rough tops: fBm relief on the lifted part, metres.
const ISLET_ROUGH_M: f32 = 6.0;
/// Below this height an islet's slope is eased into a beach (`h²/B`): its own sand apron.
const ISLET_BEACH_M: f32 = 8.0;
const ISLET_ROUGH_SEED_OFFSET: i32 = 7717;
const ISLET_KIND_SEED_OFFSET: i32 = 7723;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShapeDials {
    /// Island half-extent along east–west, in normalised map units (1 = the map's half width).
    pub axis_x: f32,
    /// Island half-extent along north–south, in normalised map units.
    pub axis_y: f32,
    /// Blend between the squircle (0) and the ellipse (1) falloff.
    pub ellipse_blend: f32,
    /// How much low-frequency noise wanders the coastline, in falloff units.
    pub coast_wander: f32,
    /// Height of the island body above sea at its centre, metres (before noise and spine).
    pub body_m: f32,
    /// Amplitude of the noise topography, metres.
    pub relief_m: f32,
    /// Frequency of the noise topography, undulations per island width.
    pub relief_freq: f32,
    /// Peak height of the spine above the body, metres.
    pub spine_m: f32,
    /// Half-width of the spine, normalised units.
    pub spine_width: f32,
    /// Rounding radius of the spine's crest (smooth |x|), normalised units.
    pub crest_round: f32,
    /// Compress shallow depth (the coast shelf). Cannot move the waterline.
    pub coast_shelf: bool,
    /// Fraction of the islet noise field's sampled values above the islet threshold (0 = none).
    pub islet_density: f32,
    /// Islet noise frequency, blobs per map width.
    pub islet_freq: f32,
    /// Height islets are lifted toward, metres above sea (before the curve).
    pub islet_crest_m: f32,
    /// The moat: islets lift nothing where the water is shallower than this, metres.
    pub islet_moat_m: f32,
    /// The sea's height over the shape, metres: the whole shape sinks by this much before the
    /// islets, the shelf and the curve (raise it to drown the coast, lower it to bare the shelf).
    pub sea_level_m: f32,
}

impl Default for ShapeDials {
    fn default() -> Self {
        Self {
            axis_x: 0.60,
            axis_y: 0.50,
            ellipse_blend: 0.5,
            coast_wander: 0.16,
            body_m: 35.0,
            relief_m: 95.0,
            relief_freq: 2.2,
            spine_m: 210.0,
            spine_width: 0.22,
            crest_round: 0.05,
            coast_shelf: true,
            islet_density: 0.035,
            islet_freq: 8.0,
            islet_crest_m: 60.0,
            islet_moat_m: 22.0,
            sea_level_m: 0.0,
        }
    }
}

/// Smooth |x|: exactly 0 with zero slope at 0, converging to |x| away from it — the spine's crest
/// is rounded, never a slope kink (reference: the crease was the largest slope step on the map).
pub fn smooth_abs(x: f32, k: f32) -> f32 {
    let a = x * x;
    a / (a + k * k).sqrt()
}

pub fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The coast shelf on a positive depth (metres): strictly positive for positive depth, monotone.
pub fn coast_shelf(depth_m: f32) -> f32 {
    if depth_m <= 0.0 {
        return depth_m;
    }
    depth_m * (1.0 - SHELF_STRENGTH * (-depth_m / SHELF_SCALE_M).exp())
}

/// Islet blob weight for one noise value against the calibrated threshold.
fn islet_blob(v: f32, threshold: f32) -> f32 {
    if v <= threshold {
        return 0.0;
    }
    let core = ((1.0 - threshold) * ISLET_CORE).max(1e-4);
    smoothstep(0.0, 1.0, (v - threshold) / core)
}

/// The value that `density` of `samples` exceed (a quantile of the field's actual distribution).
pub fn calibrate_threshold(samples: &mut [f32], density: f32) -> f32 {
    if samples.is_empty() || density <= 0.0 {
        return f32::INFINITY;
    }
    samples.sort_by(f32::total_cmp);
    let idx = ((1.0 - density.clamp(0.0, 1.0)) * (samples.len() - 1) as f32) as usize;
    samples[idx.min(samples.len() - 1)]
}

/// The seeded noise fields of the shape.
pub struct ShapeField<'a> {
    d: &'a ForgeDials,
    topo: Fbm<Perlin>,
    warp_x: Perlin,
    warp_y: Perlin,
    spine_wobble: Perlin,
    coast: Fbm<Perlin>,
    islet: Perlin,
    islet_threshold: f32,
    islet_rough: Fbm<Perlin>,
    islet_kind: Perlin,
    /// Spine axis direction (unit vector).
    spine_dir: (f32, f32),
}

fn seeded(seed: i32, offset: i32) -> u32 {
    seed.wrapping_add(offset) as u32
}

/// Fractal Brownian motion over Perlin noise, persistence 0.5, with octave `i` seeded
/// `seed + i` wrapping. `noise`'s own `Fbm::new(seed)` adds the octave to the seed unchecked,
/// which overflows for every seed within `octaves` of `u32::MAX` (every small negative `i32`
/// seed). Wrapping gives the same octave seeds as that sum wherever it does not overflow, so
/// no island changes.
pub(crate) fn fbm(seed: u32, octaves: u32) -> Fbm<Perlin> {
    let sources = (0..octaves).map(|i| Perlin::new(seed.wrapping_add(i))).collect();
    Fbm::<Perlin>::new(0).set_octaves(octaves as usize).set_persistence(0.5).set_sources(sources)
}

/// A hash of the seed to an angle in radians (the spine's heading).
pub fn seed_angle(seed: i32, salt: u32) -> f32 {
    let mut h = (seed as u32 as u64) ^ ((salt as u64) << 32);
    h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 32;
    (h % 1_000_000) as f32 / 1_000_000.0 * std::f32::consts::TAU
}

/// Per-pixel outputs of the shape pass.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShapeStats {
    pub land_pixels: u64,
    /// Pixels the islet layer lifted from water to land.
    pub islet_pixels: u64,
    /// Highest elevation, metres above sea (the curve's spike normaliser).
    pub max_m: f32,
    pub islet_threshold: f32,
}

impl<'a> ShapeField<'a> {
    pub fn new(d: &'a ForgeDials) -> Self {
        let s = &d.shape;
        let topo = fbm(seeded(d.seed, TOPO_SEED_OFFSET), 7);
        let coast = fbm(seeded(d.seed, COAST_SEED_OFFSET), 3);
        let islet = Perlin::new(seeded(d.seed, ISLET_SEED_OFFSET));
        // Calibrate against the islet field's sampled distribution, not its theoretical range:
        // Perlin output sits well inside −1..1, so a density read as a fraction of the range
        // would raise almost nothing.
        let mut samples = Vec::with_capacity(ISLET_CALIBRATION_SIDE * ISLET_CALIBRATION_SIDE);
        for i in 0..ISLET_CALIBRATION_SIDE {
            for j in 0..ISLET_CALIBRATION_SIDE {
                let u = (i as f32 + 0.5) / ISLET_CALIBRATION_SIDE as f32 * 2.0 - 1.0;
                let v = (j as f32 + 0.5) / ISLET_CALIBRATION_SIDE as f32 * 2.0 - 1.0;
                samples.push(islet_value(&islet, s.islet_freq, u, v));
            }
        }
        let islet_threshold = calibrate_threshold(&mut samples, s.islet_density);
        let a = seed_angle(d.seed, 1);
        Self {
            d,
            topo,
            warp_x: Perlin::new(seeded(d.seed, WARP_X_SEED_OFFSET)),
            warp_y: Perlin::new(seeded(d.seed, WARP_Y_SEED_OFFSET)),
            spine_wobble: Perlin::new(seeded(d.seed, SPINE_SEED_OFFSET)),
            coast,
            islet,
            islet_threshold,
            islet_rough: fbm(seeded(d.seed, ISLET_ROUGH_SEED_OFFSET), 3),
            islet_kind: Perlin::new(seeded(d.seed, ISLET_KIND_SEED_OFFSET)),
            spine_dir: (a.cos(), a.sin()),
        }
    }

    /// Falloff distance: ~0 at the centre, ~1 at the nominal coast (squircle/ellipse blend with
    /// the axis ratios, its outline wandered by low-frequency noise).
    fn falloff(&self, u: f32, v: f32) -> f32 {
        let s = &self.d.shape;
        let (fu, fv) = (u / s.axis_x, v / s.axis_y);
        let squircle = (fu.powi(4) + fv.powi(4)).sqrt().sqrt();
        let ellipse = (fu * fu + fv * fv).sqrt();
        let dist = squircle + (ellipse - squircle) * s.ellipse_blend;
        let wander = self.coast.get([u as f64 * 1.6, v as f64 * 1.6]) as f32;
        dist + wander * s.coast_wander
    }

    /// Elevation in metres relative to sea at normalised `(u, v)`, before islets and shelf, and
    /// the falloff distance there.
    fn elevation(&self, u: f32, v: f32) -> (f32, f32) {
        let s = &self.d.shape;
        let f = self.falloff(u, v);
        // Domain-warped fBm topography.
        let fq = s.relief_freq as f64;
        let (pu, pv) = (u as f64 * fq, v as f64 * fq);
        let wx = self.warp_x.get([pu * 0.5, pv * 0.5]) * 0.45;
        let wy = self.warp_y.get([pu * 0.5, pv * 0.5]) * 0.45;
        let topo = self.topo.get([pu + wx, pv + wy]) as f32;
        // The spine: a ridge along a seeded heading through the centre, its line wobbled, its
        // crest rounded by a smooth |x|, fading toward its ends.
        let (dx, dy) = self.spine_dir;
        let along = u * dx + v * dy;
        let wobble = self.spine_wobble.get([u as f64 * 1.4, v as f64 * 1.4]) as f32 * 0.16;
        let across = -u * dy + v * dx + wobble;
        let ridge = (1.0 - smooth_abs(across, s.crest_round) / s.spine_width).max(0.0);
        let ends = 1.0 - smoothstep(0.3, 0.7, along.abs());
        let spine = ridge * ridge * (3.0 - 2.0 * ridge) * ends;

        let inland = 1.0 - smoothstep(0.55, 1.05, f);
        let body = s.body_m * (1.0 - f * f);
        // The seabed drops away past the coast (the shelf then widens its shallows).
        let seaward = SEAWARD_DROP_M * smoothstep(0.95, 1.5, f);
        let mut e = body - seaward + s.relief_m * topo * (0.45 + 0.55 * inland) + s.spine_m * spine * inland;
        // Deep water at the edges, whatever the noise says.
        let edge = u.abs().max(v.abs());
        e -= EDGE_WALL_M * smoothstep(EDGE_WALL_START, EDGE_WALL_END, edge);
        if s.sea_level_m != 0.0 {
            e -= s.sea_level_m;
        }
        // Land in the middle, whatever the noise says.
        if f < 0.3 {
            e = e.max(6.0 * (1.0 - smoothstep(0.0, 0.3, f)));
        }
        (e, f)
    }

    /// Elevation after the islet layer (metres relative to sea), and whether an islet lifted it.
    fn with_islets(&self, u: f32, v: f32) -> (f32, bool) {
        let s = &self.d.shape;
        let (e, f) = self.elevation(u, v);
        if e >= 0.0 || !self.islet_threshold.is_finite() {
            return (e, false);
        }
        let depth = -e;
        // The moat: exactly zero lift in water shallower than the moat, so a ring of untouched
        // water separates every islet from the mainland shore.
        if depth < s.islet_moat_m || f < ISLET_MIN_FALLOFF {
            return (e, false);
        }
        let edge = u.abs().max(v.abs());
        if edge >= ISLET_EDGE_OUTER {
            return (e, false);
        }
        let mut zone = smoothstep(0.0, 40.0, depth - s.islet_moat_m);
        zone *= smoothstep(0.0, ISLET_FALLOFF_FEATHER, f - ISLET_MIN_FALLOFF);
        zone *= 1.0 - smoothstep(ISLET_EDGE_INNER, ISLET_EDGE_OUTER, edge);
        if zone <= 0.0 {
            return (e, false);
        }
        let value = islet_value(&self.islet, s.islet_freq, u, v);
        let blob = islet_blob(value, self.islet_threshold) * zone;
        if blob <= 0.0 {
            return (e, false);
        }
        // The target: a stack's or a dome's crest (a low-frequency field picks which), reached
        // only at the blob's noise peak, with rough fBm relief on top.
        let excess = (value - self.islet_threshold) / ((1.0 - self.islet_threshold) * ISLET_CORE).max(1e-4);
        let dome = smoothstep(0.0, 1.0, excess / ISLET_DOME_SPAN);
        let kind = smoothstep(-0.2, 0.2, self.islet_kind.get([u as f64 * 3.0 + 5.1, v as f64 * 3.0 - 2.3]) as f32);
        let crest = ISLET_DOME_CREST_M + (s.islet_crest_m - ISLET_DOME_CREST_M) * kind;
        let rough = ISLET_ROUGH_M * self.islet_rough.get([u as f64 * 40.0, v as f64 * 40.0]) as f32;
        let target = crest * (0.3 + 0.7 * dome) + rough * dome;
        // Lerp toward it rather than add, so an islet can surface at any ambient depth.
        let lifted = e + (target - e) * blob;
        if lifted < 0.0 {
            return (lifted, false);
        }
        // Its own beach: the lowest metres eased flat (monotone, zero stays zero).
        let lifted = if lifted < ISLET_BEACH_M { lifted * lifted / ISLET_BEACH_M } else { lifted };
        (lifted, true)
    }
}

fn islet_value(p: &Perlin, freq: f32, u: f32, v: f32) -> f32 {
    p.get([u as f64 * freq as f64 + 31.7, v as f64 * freq as f64 - 17.3]) as f32
}

/// The largest float below `x` (for holding a shelved depth strictly below sea).
pub fn next_below(x: f32) -> f32 {
    debug_assert!(x > 0.0 && x.is_finite());
    f32::from_bits(x.to_bits() - 1)
}

/// Normalised coordinate of pixel centre `i` on an `n`-pixel axis.
#[inline]
pub fn norm(i: usize, n: usize) -> f32 {
    (i as f32 + 0.5) / n as f32 * 2.0 - 1.0
}

/// Elevation (metres relative to sea) → raw height. The sign of `e_m` alone decides water: a
/// negative elevation is held strictly below sea even where float rounding would land on it.
#[inline]
pub fn to_raw(e_m: f32, sea: f32, mpr: f32) -> f32 {
    let raw = sea + e_m / mpr;
    if e_m < 0.0 { raw.min(next_below(sea)).max(0.0) } else { raw }
}

/// The classify map before the crater carve, X-outer / Y-inner, raw units.
pub fn classify_heights(d: &ForgeDials, sea: f32, mpr: f32) -> (Vec<f32>, ShapeStats) {
    let n = d.size as usize;
    let field = ShapeField::new(d);
    let mut out = vec![0f32; n * n];
    let rows: Vec<(u64, u64, f32)> = out
        .par_chunks_mut(n)
        .enumerate()
        .map(|(x, row)| {
            let u = norm(x, n);
            let (mut land, mut islet, mut max_m) = (0u64, 0u64, f32::MIN);
            for (y, h) in row.iter_mut().enumerate() {
                let (mut e, lifted) = field.with_islets(u, norm(y, n));
                islet += lifted as u64;
                if e < 0.0 && d.shape.coast_shelf {
                    // Floor at the smallest positive depth: a subnormal depth must not round to dry land.
                    e = -coast_shelf(-e).max(f32::MIN_POSITIVE);
                }
                land += (e >= 0.0) as u64;
                max_m = max_m.max(e);
                *h = to_raw(e, sea, mpr);
            }
            (land, islet, max_m)
        })
        .collect();
    let mut st = ShapeStats { islet_threshold: field.islet_threshold, max_m: f32::MIN, ..Default::default() };
    for (l, i, m) in rows {
        st.land_pixels += l;
        st.islet_pixels += i;
        st.max_m = st.max_m.max(m);
    }
    (out, st)
}
