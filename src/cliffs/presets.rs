//! The three presets' field expressions (SPEC §6): `island` (the blueprint's render height),
//! `nauvis` (pure noise, a 0-or-10 cliffiness gate) and `vulcanus` (a noise elevation). Each is
//! built once from [`CliffSettings`] and then evaluated per corner without allocating.

use super::fields::{CornerSample, FieldSource};
use super::noise::{BasisNoise, MultiOctaveNoise, Seed1, slider_to_linear};
use super::settings::{CliffPreset, CliffSettings};
use crate::blueprint::Blueprint;

/// `cliffiness_basic`'s noise (reference, Vulcanus notes): seed1 123, input scale 1/32, two octaves, each next
/// octave at 1/3 the input scale and the same output scale.
const BASIC_CLIFFINESS_SEED1: u32 = 123;
const BASIC_CLIFFINESS_INPUT_SCALE: f64 = 1.0 / 32.0;
const BASIC_CLIFFINESS_OCTAVES: u32 = 2;
const BASIC_CLIFFINESS_OCTAVE_INPUT_MULTIPLIER: f64 = 1.0 / 3.0;

/// Nauvis's segmentation multiplier at the default water slider (the reference's Nauvis input scales
/// are written as `nauvis_segmentation_multiplier / k`).
const NAUVIS_SEGMENTATION: f64 = 1.0;
/// `nauvis_hills`: |4-octave noise|, persistence 0.5, seed1 900, input scale seg/90 (reference, Nauvis).
const NAUVIS_HILLS_SEED1: u32 = 900;
const NAUVIS_HILLS_OCTAVES: u32 = 4;
const NAUVIS_HILLS_INPUT_DIVISOR: f64 = 90.0;
/// The offset hills field is the same noise displaced by 12 tiles along a unit-ish vector field.
const NAUVIS_HILLS_OFFSET_TILES: f64 = 12.0;
const NAUVIS_OFFSET_INPUT_DIVISOR: f64 = 500.0;
/// `normalize(a, b, bias) = a / sqrt(bias + a² + b²)`, bias 0.001 (reference, Nauvis).
const NAUVIS_NORMALIZE_BIAS: f64 = 0.001;
/// `nauvis_hills_cliff_level` is not in the reference notes; this port uses a slow noise around
/// the typical |4-octave Perlin| value, so the elevation-0 contour meanders between hills.
const NAUVIS_CLIFF_LEVEL_MEAN: f64 = 0.3;
const NAUVIS_CLIFF_LEVEL_AMPLITUDE: f64 = 0.1;
const NAUVIS_CLIFF_LEVEL_INPUT_DIVISOR: f64 = 800.0;
/// `cliff_elevation_nauvis = 10 + 30·(hills − level)` (reference, Nauvis).
const NAUVIS_ELEVATION_OFFSET: f64 = 10.0;
const NAUVIS_ELEVATION_SCALE: f64 = 30.0;
/// `low_frequency_cliffiness`: seed1 86883, input scale seg/500, output scale 0.51 (reference, Nauvis).
const NAUVIS_LOW_FREQUENCY_SEED1: u32 = 86883;
const NAUVIS_LOW_FREQUENCY_OUTPUT_SCALE: f64 = 0.51;
/// The gate's value when on: `cliffiness_nauvis = (main >= cutoff) × 10` (reference, Nauvis).
const NAUVIS_CLIFFINESS_ON: f32 = 10.0;
/// The frequency the reference's default interval means: `cliff_frequency = 40 / interval`.
const NAUVIS_FREQUENCY_INTERVAL: f64 = 40.0;

/// Vulcanus's elevation is not ported (the reference's Vulcanus routes the planet's own elevation); this is
/// a stand-in with the same role: a 5-octave noise spanning several 120-unit bands above 70.
const VULCANUS_ELEVATION_BASE: f64 = 130.0;
const VULCANUS_ELEVATION_AMPLITUDE: f64 = 300.0;
const VULCANUS_ELEVATION_OCTAVES: u32 = 5;
const VULCANUS_ELEVATION_INPUT_SCALE: f64 = 1.0 / 600.0;

/// `cliffiness_basic = clamp(0.5·log2(richness) + 2-octave noise, 0, 1) + 0.5`, in [0.5, 1.5].
#[derive(Debug, Clone)]
pub struct BasicCliffiness {
    noise: MultiOctaveNoise,
    richness_term: f64,
}

impl BasicCliffiness {
    pub fn new(seed: u32, richness: f32) -> Self {
        Self {
            noise: MultiOctaveNoise::new(
                seed,
                Seed1::Number(BASIC_CLIFFINESS_SEED1),
                BASIC_CLIFFINESS_OCTAVES,
                BASIC_CLIFFINESS_INPUT_SCALE,
                1.0,
                BASIC_CLIFFINESS_OCTAVE_INPUT_MULTIPLIER,
                1.0,
            ),
            richness_term: 0.5 * (richness.max(0.0) as f64).log2(),
        }
    }
    #[inline]
    pub fn get(&self, x: f64, y: f64) -> f32 {
        let v = self.richness_term + self.noise.get(x, y);
        // NaN cannot reach here (log2 of a non-negative is finite or −∞), but keep the range.
        (v.clamp(0.0, 1.0) + 0.5) as f32
    }
}

/// `island`: the blueprint's render height in metres (clamped to the map's edge pixels).
pub struct IslandFields<'a> {
    pub blueprint: &'a Blueprint,
    cliffiness: BasicCliffiness,
}

impl<'a> IslandFields<'a> {
    pub fn new(settings: &CliffSettings, blueprint: &'a Blueprint) -> Self {
        Self { blueprint, cliffiness: BasicCliffiness::new(settings.seed, settings.richness) }
    }
    #[inline]
    pub fn elevation_m(&self, x: i64, y: i64) -> f32 {
        let n = self.blueprint.map_size as i64;
        let (x, y) = (x.clamp(0, n - 1), y.clamp(0, n - 1));
        self.blueprint.heights_raw[(x * n + y) as usize] * self.blueprint.params.metres_per_raw
    }
}

impl FieldSource for IslandFields<'_> {
    #[inline]
    fn sample(&self, x: i64, y: i64) -> CornerSample {
        CornerSample { elevation: self.elevation_m(x, y), cliffiness: self.cliffiness.get(x as f64, y as f64) }
    }
}

/// `nauvis`: `10 + 30·(hills − level)`, and the ringbreak / low-frequency cliffiness gate.
/// Ported terms: `base_cliffiness` (ringbreak) and `low_frequency_cliffiness`; the forest-path,
/// bridge-path, elevation and starting-area terms need fields this project does not have.
#[derive(Debug, Clone)]
pub struct NauvisFields {
    hills: MultiOctaveNoise,
    offset_x: BasisNoise,
    offset_y: BasisNoise,
    level: BasisNoise,
    low_frequency: BasisNoise,
    /// `min(slider_to_linear(cliff_frequency, −1.7, 1.7), slider_to_linear(cliff_richness, −1, 1))`.
    slider_term: f64,
    /// `cliff_cutoff = 2·cliff_gap_size^1.5`.
    cutoff: f64,
}

impl NauvisFields {
    pub fn new(s: &CliffSettings) -> Self {
        let seg = NAUVIS_SEGMENTATION;
        let richness = s.richness.max(0.0) as f64;
        let cliff_frequency = NAUVIS_FREQUENCY_INTERVAL / s.effective_interval() as f64;
        let gap_size = (0.5 - 0.5 * slider_to_linear(richness, -1.0, 1.0)).max(0.0);
        Self {
            hills: MultiOctaveNoise::with_persistence(
                s.seed,
                Seed1::Number(NAUVIS_HILLS_SEED1),
                NAUVIS_HILLS_OCTAVES,
                0.5,
                seg / NAUVIS_HILLS_INPUT_DIVISOR,
                1.0,
            ),
            offset_x: BasisNoise::new(s.seed, Seed1::Name("nauvis_offset_x"), seg / NAUVIS_OFFSET_INPUT_DIVISOR, 1.0),
            offset_y: BasisNoise::new(s.seed, Seed1::Name("nauvis_offset_y"), seg / NAUVIS_OFFSET_INPUT_DIVISOR, 1.0),
            level: BasisNoise::new(
                s.seed,
                Seed1::Name("nauvis_hills_cliff_level"),
                seg / NAUVIS_CLIFF_LEVEL_INPUT_DIVISOR,
                NAUVIS_CLIFF_LEVEL_AMPLITUDE,
            ),
            low_frequency: BasisNoise::new(
                s.seed,
                Seed1::Number(NAUVIS_LOW_FREQUENCY_SEED1),
                seg / NAUVIS_OFFSET_INPUT_DIVISOR,
                NAUVIS_LOW_FREQUENCY_OUTPUT_SCALE,
            ),
            slider_term: slider_to_linear(cliff_frequency, -1.7, 1.7).min(slider_to_linear(richness, -1.0, 1.0)),
            cutoff: 2.0 * gap_size.powf(1.5),
        }
    }
    #[inline]
    fn hills(&self, x: f64, y: f64) -> f64 {
        self.hills.get(x, y).abs()
    }
    /// `cliff_elevation_nauvis`.
    #[inline]
    pub fn elevation(&self, x: f64, y: f64) -> f64 {
        let level = NAUVIS_CLIFF_LEVEL_MEAN + self.level.get(x, y);
        NAUVIS_ELEVATION_OFFSET + NAUVIS_ELEVATION_SCALE * (self.hills(x, y) - level)
    }
    /// `cliffiness_nauvis`: 0 or 10.
    #[inline]
    pub fn cliffiness(&self, x: f64, y: f64) -> f32 {
        let (rx, ry) = (self.offset_x.get(x, y), self.offset_y.get(x, y));
        let norm = (NAUVIS_NORMALIZE_BIAS + rx * rx + ry * ry).sqrt();
        let (ox, oy) = (NAUVIS_HILLS_OFFSET_TILES * rx / norm, NAUVIS_HILLS_OFFSET_TILES * ry / norm);
        let ringbreak = (self.hills(x, y) - self.hills(x + ox, y + oy)).abs();
        let base = (ringbreak - 0.01) * 60.0;
        let low_frequency = 1.5 + self.low_frequency.get(x, y) + self.slider_term;
        let main = base.min(4.0 * low_frequency);
        if main >= self.cutoff { NAUVIS_CLIFFINESS_ON } else { 0.0 }
    }
}

impl FieldSource for NauvisFields {
    #[inline]
    fn sample(&self, x: i64, y: i64) -> CornerSample {
        let (x, y) = (x as f64, y as f64);
        CornerSample { elevation: self.elevation(x, y) as f32, cliffiness: self.cliffiness(x, y) }
    }
}

/// `vulcanus`: a noise elevation, `cliffiness_basic`.
#[derive(Debug, Clone)]
pub struct VulcanusFields {
    elevation: MultiOctaveNoise,
    cliffiness: BasicCliffiness,
}

impl VulcanusFields {
    pub fn new(s: &CliffSettings) -> Self {
        Self {
            elevation: MultiOctaveNoise::with_persistence(
                s.seed,
                Seed1::Name("vulcanus_elevation"),
                VULCANUS_ELEVATION_OCTAVES,
                0.5,
                VULCANUS_ELEVATION_INPUT_SCALE,
                VULCANUS_ELEVATION_AMPLITUDE,
            ),
            cliffiness: BasicCliffiness::new(s.seed, s.richness),
        }
    }
}

impl FieldSource for VulcanusFields {
    #[inline]
    fn sample(&self, x: i64, y: i64) -> CornerSample {
        let (x, y) = (x as f64, y as f64);
        CornerSample {
            elevation: (VULCANUS_ELEVATION_BASE + self.elevation.get(x, y)) as f32,
            cliffiness: self.cliffiness.get(x, y),
        }
    }
}

/// The fields a settings value selects (built once per placement, so the size spread between
/// variants does not matter).
#[allow(clippy::large_enum_variant)]
pub enum PresetFields<'a> {
    Island(IslandFields<'a>),
    Nauvis(NauvisFields),
    Vulcanus(VulcanusFields),
}

/// Why a preset's fields could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldsError {
    /// `island` reads the blueprint's heights and none was given.
    NeedsBlueprint(CliffPreset),
}

impl std::fmt::Display for FieldsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldsError::NeedsBlueprint(p) => write!(f, "the '{}' cliff preset needs a blueprint", p.name()),
        }
    }
}

impl std::error::Error for FieldsError {}

impl<'a> PresetFields<'a> {
    pub fn new(settings: &CliffSettings, blueprint: Option<&'a Blueprint>) -> Result<Self, FieldsError> {
        Ok(match settings.preset {
            CliffPreset::Island => PresetFields::Island(IslandFields::new(
                settings,
                blueprint.ok_or(FieldsError::NeedsBlueprint(CliffPreset::Island))?,
            )),
            CliffPreset::Nauvis => PresetFields::Nauvis(NauvisFields::new(settings)),
            CliffPreset::Vulcanus => PresetFields::Vulcanus(VulcanusFields::new(settings)),
        })
    }
}

impl FieldSource for PresetFields<'_> {
    #[inline]
    fn sample(&self, x: i64, y: i64) -> CornerSample {
        match self {
            PresetFields::Island(f) => f.sample(x, y),
            PresetFields::Nauvis(f) => f.sample(x, y),
            PresetFields::Vulcanus(f) => f.sample(x, y),
        }
    }
}
