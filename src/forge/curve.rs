//! The height curve: a monotone, terraced remap of elevation above sea (classify metres → render
//! metres), identity at and below sea. Bands, bottom to top: lowland (compressed), a foothill
//! riser, the bench shelf (~100 m), a mid riser, the plateau shelf (~220 m), and summit spires up
//! to the cap (~420 m). Shelf heights, shelf spans and the shelf/riser knots vary per column
//! through low-frequency noise fields; monotonicity is asserted on every generation at every
//! extreme of that variation, and a violation refuses to generate.
//!
//! Knots are fractions of the seed's highest elevation (the spike normaliser), so every seed gets
//! the whole ladder whatever its absolute relief; `TCRV` records the knots in metres.

use super::ForgeDials;
use super::shape::norm;
use crate::blueprint::{CurveMeta, DetailMeta};
use noise::{NoiseFn, Perlin};
use rayon::prelude::*;

/// Isla's own `TCRV` body layout (see `docs/FORGE.md`).
pub const CURVE_VERSION: u16 = 1;
/// Riser shape `s = FLOOR·u + (1 − FLOOR)·smoothstep(u)`: the slope never drops below FLOOR.
const RISER_SLOPE_FLOOR: f32 = 0.1;
/// Spire shape `s = FLOOR·u + (1 − FLOOR)·u²`: sharp tops, strictly increasing from the plateau.
const SPIRE_SLOPE_FLOOR: f32 = 0.05;
/// Slope above the seed's maximum (never reached by the seed's own terrain).
const TAIL_SLOPE: f32 = 0.25;

const BENCH_SEED_OFFSET: i32 = 7211;
const PLATEAU_SEED_OFFSET: i32 = 7307;
const STRENGTH_SEED_OFFSET: i32 = 7331;
const RELIEF_SEED_OFFSET: i32 = 7409;
const EDGE_SEED_OFFSET: i32 = 7507;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CurveDials {
    /// Knots as fractions of the seed's highest elevation: lowland end, bench start, bench end,
    /// plateau start, plateau end (spires above).
    pub knots: [f32; 5],
    /// Output height of the lowland's top, metres above sea.
    pub lowland_ceil_m: f32,
    pub bench_base_m: f32,
    pub bench_amp_m: f32,
    pub plateau_base_m: f32,
    pub plateau_amp_m: f32,
    /// Shelf span (output rise across a shelf), between these, by a strength field.
    pub shelf_span_min_m: f32,
    pub shelf_span_max_m: f32,
    /// Summit cap, metres above sea.
    pub cap_m: f32,
    /// Modulation fields' frequencies, undulations per island width.
    pub shelf_freq: f32,
    pub strength_freq: f32,
}

impl Default for CurveDials {
    fn default() -> Self {
        Self {
            knots: [0.10, 0.24, 0.40, 0.53, 0.76],
            lowland_ceil_m: 14.0,
            bench_base_m: 100.0,
            bench_amp_m: 12.0,
            plateau_base_m: 220.0,
            plateau_amp_m: 20.0,
            shelf_span_min_m: 6.0,
            shelf_span_max_m: 25.0,
            cap_m: 420.0,
            shelf_freq: 1.5,
            strength_freq: 1.0,
        }
    }
}

/// The detail pass riding on the curve: shelf micro-relief (output metres) and shelf-edge
/// variation (a per-column shift of the bench/plateau knot block, input metres). Recorded in
/// `TDTL` v2 as applied.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DetailDials {
    pub relief_amp_m: f32,
    pub relief_freq: f32,
    pub edge_amp_m: f32,
    pub edge_freq: f32,
}

impl Default for DetailDials {
    fn default() -> Self {
        Self { relief_amp_m: 2.5, relief_freq: 14.0, edge_amp_m: 10.0, edge_freq: 6.0 }
    }
}

/// The per-column parameters of the curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Column {
    pub bench_lo: f32,
    pub plateau_lo: f32,
    pub span: f32,
    /// Shift of knots 2..4 (input metres).
    pub edge_shift: f32,
}

/// The curve for one seed: knots in input metres.
#[derive(Debug, Clone)]
pub struct HeightCurve {
    pub dials: CurveDials,
    pub detail: Option<DetailDials>,
    /// The seed's highest elevation, input metres above sea (the spike normaliser).
    pub max_m: f32,
    pub k: [f32; 5],
    /// Edge shift as applied (clamped to [`Self::max_edge_shift_m`]).
    pub edge_amp_m: f32,
    pub max_edge_shift_m: f32,
}

fn riser(u: f32) -> f32 {
    RISER_SLOPE_FLOOR * u + (1.0 - RISER_SLOPE_FLOOR) * (u * u * (3.0 - 2.0 * u))
}

impl HeightCurve {
    pub fn new(dials: &CurveDials, detail: Option<&DetailDials>, max_m: f32) -> Self {
        let max_m = max_m.max(1.0);
        let k = dials.knots.map(|f| f * max_m);
        // The knot block 2..4 may slide as far as keeps the set strictly ordered, with margin.
        let max_edge_shift_m = 0.45 * (k[1] - k[0]).min(k[4] - k[3]).max(0.0);
        let edge_amp_m = detail.map_or(0.0, |d| d.edge_amp_m.clamp(0.0, max_edge_shift_m));
        Self { dials: dials.clone(), detail: detail.cloned(), max_m, k, edge_amp_m, max_edge_shift_m }
    }

    /// Render metres above sea for input metres `a` in one column. Identity at and below 0.
    pub fn apply(&self, a: f32, c: &Column) -> f32 {
        if a <= 0.0 {
            return a;
        }
        let d = &self.dials;
        let [k1, k2, k3, k4, k5] = self.k;
        let (k2, k3, k4) = (k2 + c.edge_shift, k3 + c.edge_shift, k4 + c.edge_shift);
        let bench_top = c.bench_lo + c.span;
        let plateau_top = c.plateau_lo + c.span;
        if a < k1 {
            return d.lowland_ceil_m * (a / k1);
        }
        if a < k2 {
            return d.lowland_ceil_m + riser((a - k1) / (k2 - k1)) * (c.bench_lo - d.lowland_ceil_m);
        }
        if a < k3 {
            return c.bench_lo + (a - k2) / (k3 - k2) * c.span;
        }
        if a < k4 {
            return bench_top + riser((a - k3) / (k4 - k3)) * (c.plateau_lo - bench_top);
        }
        if a < k5 {
            return c.plateau_lo + (a - k4) / (k5 - k4) * c.span;
        }
        if a <= self.max_m {
            let u = (a - k5) / (self.max_m - k5);
            let s = SPIRE_SLOPE_FLOOR * u + (1.0 - SPIRE_SLOPE_FLOOR) * u * u;
            return plateau_top + s * (d.cap_m - plateau_top);
        }
        d.cap_m + (a - self.max_m) * TAIL_SLOPE
    }

    /// How much of a shelf this input height is on (0 on risers, lowland and spires; 1 mid-shelf).
    pub fn shelf_weight(&self, a: f32, c: &Column) -> f32 {
        let [_, k2, k3, k4, k5] = self.k;
        let (k2, k3, k4) = (k2 + c.edge_shift, k3 + c.edge_shift, k4 + c.edge_shift);
        let bump = |lo: f32, hi: f32| {
            if a > lo && a < hi { (std::f32::consts::PI * (a - lo) / (hi - lo)).sin() } else { 0.0 }
        };
        bump(k2, k3) + bump(k4, k5)
    }

    /// The extreme columns the modulation can produce (2 bench × 2 plateau × 2 span × 3 shifts).
    fn corners(&self) -> Vec<Column> {
        let d = &self.dials;
        let mut out = Vec::new();
        for bench_lo in [d.bench_base_m - d.bench_amp_m, d.bench_base_m + d.bench_amp_m] {
            for plateau_lo in [d.plateau_base_m - d.plateau_amp_m, d.plateau_base_m + d.plateau_amp_m] {
                for span in [d.shelf_span_min_m, d.shelf_span_max_m] {
                    for edge_shift in [-self.edge_amp_m, 0.0, self.edge_amp_m] {
                        out.push(Column { bench_lo, plateau_lo, span, edge_shift });
                    }
                }
            }
        }
        out
    }

    /// Strict monotonicity of the effective curve at every modulation corner, identity at and
    /// below sea, and the cap respected. Every ordering condition is linear in the modulation
    /// parameters, so holding at the corners of their box means holding inside it; the dense
    /// sweep then checks the float arithmetic. An `Err` refuses to generate.
    pub fn assert_monotonic(&self) -> anyhow::Result<()> {
        let d = &self.dials;
        let k = self.k;
        anyhow::ensure!(
            k.windows(2).all(|w| w[0] < w[1]) && k[0] > 0.0 && k[4] < self.max_m,
            "height curve: knots {k:?} are not strictly ordered inside 0..{} m; refusing to generate",
            self.max_m
        );
        anyhow::ensure!(
            k[0] < k[1] - self.edge_amp_m && k[3] + self.edge_amp_m < k[4],
            "height curve: edge shift ±{} m would reorder the knots {k:?}; refusing to generate",
            self.edge_amp_m
        );
        const STEPS: usize = 4096;
        for c in self.corners() {
            anyhow::ensure!(
                d.lowland_ceil_m > 0.0
                    && c.bench_lo > d.lowland_ceil_m
                    && c.plateau_lo > c.bench_lo + c.span
                    && d.cap_m > c.plateau_lo + c.span
                    && c.span > 0.0,
                "height curve: anchors out of order at {c:?} (lowland {} m, cap {} m); refusing to generate",
                d.lowland_ceil_m,
                d.cap_m
            );
            anyhow::ensure!(self.apply(0.0, &c) == 0.0 && self.apply(-5.0, &c) == -5.0, "curve is not identity at sea");
            let top = self.max_m * 1.05;
            let (mut prev_a, mut prev) = (-1.0f32, self.apply(-1.0, &c));
            for i in 0..=STEPS {
                let a = -1.0 + (top + 1.0) * i as f32 / STEPS as f32;
                if a <= prev_a {
                    continue;
                }
                let v = self.apply(a, &c);
                anyhow::ensure!(
                    v > prev,
                    "height curve: MONOTONICITY VIOLATION at {a} m ({v} <= {prev}) for {c:?}; refusing to generate"
                );
                (prev_a, prev) = (a, v);
            }
            let summit = self.apply(self.max_m, &c);
            anyhow::ensure!(summit <= d.cap_m * 1.0001, "height curve: summit {summit} m above the cap");
        }
        Ok(())
    }

    /// `TCRV` body (curve version [`CURVE_VERSION`]): consecutive little-endian f32.
    pub fn meta(&self, sea_raw: f32, mpr: f32) -> CurveMeta {
        let d = &self.dials;
        let values = [
            sea_raw,
            mpr,
            self.max_m,
            self.k[0],
            self.k[1],
            self.k[2],
            self.k[3],
            self.k[4],
            d.lowland_ceil_m,
            d.bench_base_m,
            d.bench_amp_m,
            d.plateau_base_m,
            d.plateau_amp_m,
            d.shelf_span_min_m,
            d.shelf_span_max_m,
            d.cap_m,
            TAIL_SLOPE,
            RISER_SLOPE_FLOOR,
            SPIRE_SLOPE_FLOOR,
            d.shelf_freq,
            d.strength_freq,
            BENCH_SEED_OFFSET as f32,
            PLATEAU_SEED_OFFSET as f32,
            STRENGTH_SEED_OFFSET as f32,
        ];
        CurveMeta { version: CURVE_VERSION, body: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }

    /// `TDTL` v2, as applied.
    pub fn detail_meta(&self) -> Option<DetailMeta> {
        self.detail.as_ref().map(|dd| DetailMeta {
            relief_amp_m: dd.relief_amp_m,
            relief_freq_islands: dd.relief_freq,
            relief_seed_offset: RELIEF_SEED_OFFSET,
            edge_amp_m: self.edge_amp_m,
            edge_freq_islands: dd.edge_freq,
            edge_seed_offset: EDGE_SEED_OFFSET,
            edge_max_shift_m: self.max_edge_shift_m,
        })
    }
}

/// The seeded modulation fields.
pub struct Modulation<'a> {
    curve: &'a HeightCurve,
    bench: Perlin,
    plateau: Perlin,
    strength: Perlin,
    relief: Perlin,
    edge: Perlin,
}

impl<'a> Modulation<'a> {
    pub fn new(seed: i32, curve: &'a HeightCurve) -> Self {
        let p = |o: i32| Perlin::new(seed.wrapping_add(o) as u32);
        Self {
            curve,
            bench: p(BENCH_SEED_OFFSET),
            plateau: p(PLATEAU_SEED_OFFSET),
            strength: p(STRENGTH_SEED_OFFSET),
            relief: p(RELIEF_SEED_OFFSET),
            edge: p(EDGE_SEED_OFFSET),
        }
    }

    fn sample(p: &Perlin, freq: f32, u: f32, v: f32) -> f32 {
        // Fields are bounded to −1..1 so the corner check covers them.
        (p.get([u as f64 * freq as f64 * 0.5 + 0.37, v as f64 * freq as f64 * 0.5 - 0.61]) as f32).clamp(-1.0, 1.0)
    }

    pub fn column(&self, u: f32, v: f32) -> Column {
        let d = &self.curve.dials;
        let strength01 = (Self::sample(&self.strength, d.strength_freq, u, v) + 1.0) * 0.5;
        let edge_shift = match &self.curve.detail {
            Some(dd) => Self::sample(&self.edge, dd.edge_freq, u, v) * self.curve.edge_amp_m,
            None => 0.0,
        };
        Column {
            bench_lo: d.bench_base_m + Self::sample(&self.bench, d.shelf_freq, u, v) * d.bench_amp_m,
            plateau_lo: d.plateau_base_m + Self::sample(&self.plateau, d.shelf_freq, u, v) * d.plateau_amp_m,
            span: d.shelf_span_max_m + (d.shelf_span_min_m - d.shelf_span_max_m) * strength01,
            edge_shift,
        }
    }

    /// Render metres for input metres `a` at `(u, v)`, micro-relief included.
    pub fn render_m(&self, a: f32, u: f32, v: f32) -> f32 {
        if a <= 0.0 {
            return a;
        }
        let c = self.column(u, v);
        let mut out = self.curve.apply(a, &c);
        if let Some(dd) = &self.curve.detail {
            let w = self.curve.shelf_weight(a, &c);
            if w > 0.0 {
                out += Self::sample(&self.relief, dd.relief_freq, u, v) * dd.relief_amp_m * w;
            }
        }
        out
    }
}

/// The render map from the classify map (both raw, before the crater carve). Below-sea pixels are
/// copied bit for bit, so both maps agree on which side of the sea every pixel lies.
pub fn render_heights(d: &ForgeDials, curve: &HeightCurve, classify: &[f32], sea: f32, mpr: f32) -> Vec<f32> {
    let n = d.size as usize;
    let m = Modulation::new(d.seed, curve);
    let mut out = vec![0f32; n * n];
    out.par_chunks_mut(n).zip(classify.par_chunks(n)).enumerate().for_each(|(x, (row, src))| {
        let u = norm(x, n);
        for (y, (h, &c)) in row.iter_mut().zip(src).enumerate() {
            *h = if c <= sea {
                c
            } else {
                // Shelf relief is at least ~80 m above sea, so the result stays above sea.
                (sea + m.render_m((c - sea) * mpr, u, norm(y, n)) / mpr).max(sea)
            };
        }
    });
    out
}
