//! Noise expressions on the `noise` crate: the reference game's `basis_noise` and
//! `multioctave_noise` shapes (input scale, output scale, octaves, persistence), seeds made of a
//! map seed plus a numeric or string `seed1`, and `slider_to_linear`.
//!
//! The basis is the `noise` crate's Perlin, not the game's own gradient noise, so values do not
//! match the game point for point; the expression shapes, seeds and scales do.

use super::crc32::crc32;
use noise::{NoiseFn, Perlin};

/// `seed1` of a noise layer: a number, or a name hashed with CRC-32 (reference, Nauvis notes: "seed1(name) =
/// crc32(utf8Bytes(name)), seed0-independent").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed1<'a> {
    Number(u32),
    Name(&'a str),
}

impl Seed1<'_> {
    pub fn resolve(self) -> u32 {
        match self {
            Seed1::Number(n) => n,
            Seed1::Name(s) => crc32(s.as_bytes()),
        }
    }
}

/// SplitMix64 finaliser: mixes `(seed0, seed1)` into one well-spread 64-bit word.
fn mix(seed0: u32, seed1: u32, octave: u32) -> u64 {
    let mut z = ((seed0 as u64) << 32 | seed1 as u64) ^ (octave as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One seeded Perlin layer with a sub-lattice phase offset. The offset keeps a layer whose input
/// scale puts every sample on an integer lattice point (where Perlin is exactly 0) from going flat.
#[derive(Clone, Copy, Debug)]
struct Layer {
    perlin: Perlin,
    phase: [f64; 2],
}

impl Layer {
    fn new(seed0: u32, seed1: u32, octave: u32) -> Self {
        let h = mix(seed0, seed1, octave);
        let unit = |bits: u64| (bits & 0xFFFF) as f64 / 65536.0;
        Self { perlin: Perlin::new((h >> 32) as u32), phase: [unit(h), unit(h >> 16)] }
    }
    #[inline]
    fn get(&self, x: f64, y: f64) -> f64 {
        self.perlin.get([x + self.phase[0], y + self.phase[1]])
    }
}

/// `basis_noise{seed0, seed1, input_scale, output_scale}`: one Perlin octave, about −1..1 before
/// the output scale.
#[derive(Clone, Copy, Debug)]
pub struct BasisNoise {
    layer: Layer,
    pub input_scale: f64,
    pub output_scale: f64,
}

impl BasisNoise {
    pub fn new(seed0: u32, seed1: Seed1, input_scale: f64, output_scale: f64) -> Self {
        Self { layer: Layer::new(seed0, seed1.resolve(), 0), input_scale, output_scale }
    }
    #[inline]
    pub fn get(&self, x: f64, y: f64) -> f64 {
        self.output_scale * self.layer.get(x * self.input_scale, y * self.input_scale)
    }
}

/// `multioctave_noise` / `quick_multioctave_noise`: a sum of octaves, the first at
/// `input_scale` and `output_scale`, each next one with its input scale multiplied by
/// `octave_input_scale_multiplier` and its output by `octave_output_scale_multiplier`.
/// [`MultiOctaveNoise::with_persistence`] is the classic shape (inputs ×2, outputs × persistence).
#[derive(Clone, Debug)]
pub struct MultiOctaveNoise {
    layers: Vec<Layer>,
    pub input_scale: f64,
    pub output_scale: f64,
    pub octave_input_scale_multiplier: f64,
    pub octave_output_scale_multiplier: f64,
}

impl MultiOctaveNoise {
    pub fn new(
        seed0: u32,
        seed1: Seed1,
        octaves: u32,
        input_scale: f64,
        output_scale: f64,
        octave_input_scale_multiplier: f64,
        octave_output_scale_multiplier: f64,
    ) -> Self {
        let s1 = seed1.resolve();
        Self {
            layers: (0..octaves.max(1)).map(|o| Layer::new(seed0, s1, o)).collect(),
            input_scale,
            output_scale,
            octave_input_scale_multiplier,
            octave_output_scale_multiplier,
        }
    }
    /// `multioctave_noise{persistence, octaves, input_scale, output_scale}`: each octave doubles
    /// the frequency and multiplies the amplitude by `persistence`.
    pub fn with_persistence(
        seed0: u32,
        seed1: Seed1,
        octaves: u32,
        persistence: f64,
        input_scale: f64,
        output_scale: f64,
    ) -> Self {
        Self::new(seed0, seed1, octaves, input_scale, output_scale, 2.0, persistence)
    }
    pub fn octaves(&self) -> usize {
        self.layers.len()
    }
    #[inline]
    pub fn get(&self, x: f64, y: f64) -> f64 {
        let (mut fin, mut fout, mut sum) = (self.input_scale, self.output_scale, 0.0);
        for l in &self.layers {
            sum += fout * l.get(x * fin, y * fin);
            fin *= self.octave_input_scale_multiplier;
            fout *= self.octave_output_scale_multiplier;
        }
        sum
    }
}

/// The reference game's slider mapping: a slider value `v` (1 = default, 1/6 … 6 the UI range)
/// to a linear quantity in `lo … hi`, hitting the midpoint at `v = 1` and the ends at 1/6 and 6.
/// `slider_to_linear(v, lo, hi) = lo + 0.5·(hi − lo)·(1 + log2(v)/log2(6))`.
pub fn slider_to_linear(v: f64, lo: f64, hi: f64) -> f64 {
    lo + 0.5 * (hi - lo) * (1.0 + v.log2() / 6f64.log2())
}
