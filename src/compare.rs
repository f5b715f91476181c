//! Comparing a rendered frame with its reference (SPEC §8 "The metric"): what a viewer sees and
//! colour, all of which must hold.
//!
//! - **What a viewer sees:** NVIDIA's ꟻLIP (through the `nv-flip` crate) gives every pixel the
//!   difference a viewer perceives flipping between the two images at a desk (0 = none, 1 = the
//!   most); at most [`Tolerance::max_flip_changed`] of the pixels may exceed [`Tolerance::flip`]
//!   and the mean over the frame may be at most [`Tolerance::max_mean_flip`]. Two renderers'
//!   noise (a level or two in smooth gradients, an edge pixel here and there) stays far below
//!   both; a change of hue, of shadows or of geometry does not.
//! - **Structure** (optional): image-compare's hybrid similarity (MSSIM on luma, RMS on chroma;
//!   1.0 = identical) at least [`Tolerance::min_similarity`] — off by default (0): SSIM on luma
//!   punishes exactly the noise of another rasteriser, which no one sees.
//! - **Colour:** both images are converted to CIELAB (D65) and a pixel has *changed* when its CIE76
//!   ΔE to the reference exceeds [`Tolerance::delta_e`] (a difference anyone sees side by side); at
//!   most [`Tolerance::max_changed`] of the pixels may change. The structural metric barely sees a
//!   change of hue; this one does.
//! - **Overall colour:** the mean ΔE over the frame must be at most
//!   [`Tolerance::max_mean_delta_e`]. A small shift over a large area (the whole sea turned a few
//!   degrees of hue) stays under the per-pixel threshold everywhere, but raises the mean.
//!
//! Regions a suite asks to leave out ([`compare_masked`]'s `ignore` rectangles) count for
//! nothing: their pixels are taken from the reference before comparing, and the shares and means
//! are over the pixels left. A failing comparison says at what thresholds it would pass
//! ([`pass_at`]).
//!
//! [`heat_map`] draws the ΔE of every pixel: the dimmed reference where nothing visible changed
//! (ΔE < 1), then red through yellow to white at ΔE 2 × the threshold, so a reviewer sees where
//! and how much. Bevy-free.

use image::{Rgb, RgbImage};

/// The thresholds of one comparison. The defaults pass the same view drawn by two renderers
/// (lavapipe and SwiftShader) and refuse a 5° turn of the water's hue or a frame without shadows
/// where those change a fifth (a twentieth) of the frame (`docs/RELIABILITY.md`, "Renderer
/// differences", has the figures they were chosen from).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tolerance {
    /// Least hybrid similarity (0..=1); 0 turns the test off.
    pub min_similarity: f64,
    /// ꟻLIP above which a pixel counts as changed (0..=1).
    #[serde(default = "default_flip")]
    pub flip: f64,
    /// Largest share of pixels whose ꟻLIP exceeds `flip` (0..=1).
    #[serde(default = "default_max_flip_changed")]
    pub max_flip_changed: f64,
    /// Largest mean ꟻLIP over the frame (0..=1).
    #[serde(default = "default_max_mean_flip")]
    pub max_mean_flip: f64,
    /// ΔE (CIE76) above which a pixel counts as changed.
    pub delta_e: f64,
    /// Largest share of changed pixels (0..=1).
    pub max_changed: f64,
    /// Largest mean ΔE over the frame.
    pub max_mean_delta_e: f64,
}

/// The default thresholds ([`Tolerance::default`]); read back into reports written before a key
/// existed.
pub const DEFAULT_FLIP: f64 = 0.3;
pub const DEFAULT_MAX_FLIP_CHANGED: f64 = 0.01;
pub const DEFAULT_MAX_MEAN_FLIP: f64 = 0.02;

fn default_flip() -> f64 {
    DEFAULT_FLIP
}
fn default_max_flip_changed() -> f64 {
    DEFAULT_MAX_FLIP_CHANGED
}
fn default_max_mean_flip() -> f64 {
    DEFAULT_MAX_MEAN_FLIP
}

impl Default for Tolerance {
    fn default() -> Self {
        Self {
            min_similarity: 0.0,
            flip: DEFAULT_FLIP,
            max_flip_changed: DEFAULT_MAX_FLIP_CHANGED,
            max_mean_flip: DEFAULT_MAX_MEAN_FLIP,
            delta_e: 10.0,
            max_changed: 0.02,
            max_mean_delta_e: 1.0,
        }
    }
}

impl Tolerance {
    /// Each threshold in its range; `Err` names the key.
    pub fn check(&self) -> Result<(), String> {
        for (key, v) in [
            ("min_similarity", self.min_similarity),
            ("flip", self.flip),
            ("max_flip_changed", self.max_flip_changed),
            ("max_mean_flip", self.max_mean_flip),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{key} must be 0..=1, got {v}"));
            }
        }
        if !(self.delta_e.is_finite() && self.delta_e >= 0.0) {
            return Err(format!("delta_e must be a non-negative number, got {}", self.delta_e));
        }
        if !(0.0..=1.0).contains(&self.max_changed) {
            return Err(format!("max_changed must be 0..=1, got {}", self.max_changed));
        }
        if !(self.max_mean_delta_e.is_finite() && self.max_mean_delta_e >= 0.0) {
            return Err(format!("max_mean_delta_e must be a non-negative number, got {}", self.max_mean_delta_e));
        }
        Ok(())
    }
}

/// What a comparison measured.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Metrics {
    /// Hybrid similarity, 1.0 = identical.
    pub similarity: f64,
    /// Mean ꟻLIP over the frame (0 = identical).
    #[serde(default)]
    pub mean_flip: f64,
    /// Share of the pixels whose ꟻLIP exceeds the tolerance's `flip` (0..=1).
    #[serde(default)]
    pub flip_changed: f64,
    /// The largest ꟻLIP of any pixel.
    #[serde(default)]
    pub max_flip: f64,
    /// Share of the pixels whose ΔE exceeds the tolerance's `delta_e` (0..=1).
    pub changed: f64,
    pub mean_delta_e: f64,
    pub max_delta_e: f64,
}

impl Metrics {
    /// Why these figures fail `tol`, or `None` when they pass.
    pub fn failure(&self, tol: &Tolerance) -> Option<String> {
        let mut why = Vec::new();
        if self.similarity < tol.min_similarity {
            why.push(format!("similarity {:.4} < {}", self.similarity, tol.min_similarity));
        }
        if self.mean_flip > tol.max_mean_flip {
            why.push(format!("mean ꟻLIP {:.4} > {}", self.mean_flip, tol.max_mean_flip));
        }
        if self.flip_changed > tol.max_flip_changed {
            why.push(format!(
                "{:.2} % of the pixels differ visibly (ꟻLIP > {}; at most {} %)",
                self.flip_changed * 100.0,
                tol.flip,
                tol.max_flip_changed * 100.0
            ));
        }
        if self.changed > tol.max_changed {
            why.push(format!(
                "{:.2} % of the pixels changed colour (ΔE > {}; at most {} %)",
                self.changed * 100.0,
                tol.delta_e,
                tol.max_changed * 100.0
            ));
        }
        if self.mean_delta_e > tol.max_mean_delta_e {
            why.push(format!("mean ΔE {:.2} > {}", self.mean_delta_e, tol.max_mean_delta_e));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }

    /// The figures in one short phrase, for progress lines.
    pub fn summary(&self) -> String {
        format!(
            "ꟻLIP mean {:.4}, over {:.2} %, similarity {:.4}, changed {:.2} %, mean ΔE {:.2}, max ΔE {:.1}",
            self.mean_flip,
            self.flip_changed * 100.0,
            self.similarity,
            self.changed * 100.0,
            self.mean_delta_e,
            self.max_delta_e
        )
    }
}

/// sRGB (8 bit) → CIELAB under D65.
pub fn lab(p: &Rgb<u8>) -> [f64; 3] {
    let lin = |c: u8| {
        let c = c as f64 / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    let (r, g, b) = (lin(p[0]), lin(p[1]), lin(p[2]));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| if t > 216.0 / 24389.0 { t.cbrt() } else { (24389.0 / 27.0 * t + 16.0) / 116.0 };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// CIE76 ΔE of every pixel pair, row-major.
pub fn delta_e(a: &RgbImage, b: &RgbImage) -> Vec<f32> {
    a.pixels()
        .zip(b.pixels())
        .map(|(p, q)| {
            if p == q {
                return 0.0;
            }
            let (l, m) = (lab(p), lab(q));
            ((l[0] - m[0]).powi(2) + (l[1] - m[1]).powi(2) + (l[2] - m[2]).powi(2)).sqrt() as f32
        })
        .collect()
}

/// ꟻLIP of every pixel pair (row-major, 0..=1), at the crate's default viewing distance (67
/// pixels per degree: a 0.7 m look at a 24-inch 4K screen). Identical images are all zero.
pub fn flip(reference: &RgbImage, actual: &RgbImage) -> Vec<f32> {
    let (w, h) = reference.dimensions();
    if reference == actual {
        return vec![0.0; w as usize * h as usize];
    }
    let r = nv_flip::FlipImageRgb8::with_data(w, h, reference.as_raw());
    let a = nv_flip::FlipImageRgb8::with_data(w, h, actual.as_raw());
    nv_flip::flip(r, a, nv_flip::DEFAULT_PIXELS_PER_DEGREE).to_vec()
}

/// Compare `actual` with `reference` (same size, else `Err`); `.1` is the per-pixel ΔE.
pub fn compare(reference: &RgbImage, actual: &RgbImage, tol: &Tolerance) -> Result<(Metrics, Vec<f32>), String> {
    compare_masked(reference, actual, tol, &[]).map(|(m, de, _, _)| (m, de))
}

/// Which pixels (row-major) the `[x, y, w, h]` rectangles cover in a `width × height` frame;
/// empty when there are none. Rectangles are clipped to the frame.
pub fn ignored_pixels(width: u32, height: u32, ignore: &[[u32; 4]]) -> Vec<bool> {
    if ignore.is_empty() {
        return Vec::new();
    }
    let mut out = vec![false; width as usize * height as usize];
    for &[x, y, w, h] in ignore {
        for row in y.min(height)..y.saturating_add(h).min(height) {
            let start = row as usize * width as usize;
            out[start + x.min(width) as usize..start + x.saturating_add(w).min(width) as usize].fill(true);
        }
    }
    out
}

/// [`compare`], leaving out the pixels under the `ignore` rectangles: they are taken from the
/// reference before comparing (so the structure and the ΔE see no change there), and the shares
/// and the mean are over the pixels left. `.1` is the per-pixel ΔE, `.2` the per-pixel ꟻLIP and
/// `.3` the ignored pixels ([`ignored_pixels`]).
pub fn compare_masked(
    reference: &RgbImage,
    actual: &RgbImage,
    tol: &Tolerance,
    ignore: &[[u32; 4]],
) -> Result<(Metrics, Vec<f32>, Vec<f32>, Vec<bool>), String> {
    if reference.dimensions() != actual.dimensions() {
        let ((rw, rh), (aw, ah)) = (reference.dimensions(), actual.dimensions());
        return Err(format!("the reference is {rw}×{rh}, the render {aw}×{ah}"));
    }
    let (w, h) = reference.dimensions();
    let ignored = ignored_pixels(w, h, ignore);
    let patched;
    let actual = if ignored.is_empty() {
        actual
    } else {
        let mut p = actual.clone();
        for (i, px) in p.pixels_mut().enumerate() {
            if ignored[i] {
                *px = *reference.get_pixel(i as u32 % w, i as u32 / w);
            }
        }
        patched = p;
        &patched
    };
    let de = delta_e(reference, actual);
    let similarity = if reference == actual {
        1.0
    } else {
        image_compare::rgb_hybrid_compare(reference, actual).map_err(|e| format!("comparison failed: {e}"))?.score
    };
    // ꟻLIP filters over a neighbourhood, so an ignored pixel (the reference's own) can still
    // differ where its neighbours do: count only the pixels left.
    let fl = flip(reference, actual);
    let kept = |i: usize| !ignored.get(i).copied().unwrap_or(false);
    let left = de.len() - ignored.iter().filter(|&&i| i).count();
    let n = left.max(1) as f64;
    let changed = de.iter().filter(|&&d| d as f64 > tol.delta_e).count() as f64 / n;
    let mean_delta_e = de.iter().map(|&d| d as f64).sum::<f64>() / n;
    let max_delta_e = de.iter().fold(0f32, |m, &d| m.max(d)) as f64;
    let kept_flip = || fl.iter().enumerate().filter(|(i, _)| kept(*i)).map(|(_, &f)| f as f64);
    let mean_flip = kept_flip().sum::<f64>() / n;
    let flip_changed = kept_flip().filter(|&f| f > tol.flip).count() as f64 / n;
    let max_flip = kept_flip().fold(0f64, f64::max);
    let m = Metrics { similarity, mean_flip, flip_changed, max_flip, changed, mean_delta_e, max_delta_e };
    Ok((m, de, fl, ignored))
}

/// The least threshold with at most `share` of the pixels left (not `ignored`) strictly above
/// it: the (k+1)-th largest value, where k pixels may exceed it.
fn least_threshold(values: &[f32], ignored: &[bool], share: f64) -> f64 {
    let mut left: Vec<f32> = values
        .iter()
        .enumerate()
        .filter(|(i, _)| !ignored.get(*i).copied().unwrap_or(false))
        .map(|(_, &d)| d)
        .collect();
    let k = (share * left.len() as f64).floor() as usize;
    if k >= left.len() {
        return 0.0;
    }
    left.select_nth_unstable_by(k, |a, b| b.total_cmp(a));
    left[k] as f64
}

/// At what thresholds a comparison that fails `tol` would pass, one clause per failing test
/// ("delta_e 14.2, or max_changed 3.1 %; max_mean_delta_e 1.43"), or `None` when it passes.
/// `de`, `flip` and `ignored` are [`compare_masked`]'s. Each figure is rounded away from failing.
pub fn pass_at(m: &Metrics, de: &[f32], flip: &[f32], ignored: &[bool], tol: &Tolerance) -> Option<String> {
    let mut clauses = Vec::new();
    if m.similarity < tol.min_similarity {
        clauses.push(format!("min_similarity {}", (m.similarity * 1e4).floor() / 1e4));
    }
    if m.mean_flip > tol.max_mean_flip {
        clauses.push(format!("max_mean_flip {}", (m.mean_flip * 1e4).ceil() / 1e4));
    }
    if m.flip_changed > tol.max_flip_changed {
        let needed = least_threshold(flip, ignored, tol.max_flip_changed);
        clauses.push(format!(
            "flip {}, or max_flip_changed {} %",
            (needed * 100.0).ceil() / 100.0,
            (m.flip_changed * 1000.0).ceil() / 10.0
        ));
    }
    if m.changed > tol.max_changed {
        let needed = least_threshold(de, ignored, tol.max_changed);
        clauses.push(format!(
            "delta_e {}, or max_changed {} %",
            (needed * 10.0).ceil() / 10.0,
            (m.changed * 1000.0).ceil() / 10.0
        ));
    }
    if m.mean_delta_e > tol.max_mean_delta_e {
        clauses.push(format!("max_mean_delta_e {}", (m.mean_delta_e * 100.0).ceil() / 100.0));
    }
    (!clauses.is_empty()).then(|| clauses.join("; "))
}

/// A heat map of per-pixel ΔE: the reference's dimmed luma where ΔE is below 1 (no difference
/// the eye sees), then red → yellow → white at `2 × delta_e`, so the eye finds its place in the
/// frame and sees where and how much the colour moved. Ignored pixels (`ignored`, empty for
/// none) are hatched in slate-blue diagonal stripes over the dimmed reference.
pub fn heat_map(reference: &RgbImage, de: &[f32], delta_e: f64, ignored: &[bool]) -> RgbImage {
    let full = (2.0 * delta_e).max(1.0) as f32;
    let (w, h) = reference.dimensions();
    RgbImage::from_fn(w, h, |x, y| {
        let i = (y * w + x) as usize;
        let t = (de[i] / full).clamp(0.0, 1.0);
        let p = reference.get_pixel(x, y);
        let grey = (0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32) * 0.25;
        if ignored.get(i).copied().unwrap_or(false) {
            return if (x + y) / 4 % 2 == 0 { Rgb([70, 80, 130]) } else { Rgb([grey as u8; 3]) };
        }
        if de[i] < 1.0 {
            return Rgb([grey as u8; 3]);
        }
        // Piecewise ramp: red rises over the first third, green the second, blue the last.
        let ramp = |lo: f32| ((t - lo) * 3.0).clamp(0.0, 1.0);
        let mix = |c: f32| (grey + (255.0 - grey) * c).round() as u8;
        Rgb([mix(ramp(0.0).max(0.35)), mix(ramp(1.0 / 3.0)), mix(ramp(2.0 / 3.0))])
    })
}
