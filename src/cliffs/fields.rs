//! The two corner fields the placer reads — cliff elevation and cliffiness — behind one trait, so
//! a preset, a test's hand-written grid and a counting wrapper are interchangeable.

use std::sync::atomic::{AtomicU64, Ordering};

/// Both fields at one corner of the cell lattice.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CornerSample {
    /// Cliff elevation, in the preset's units (metres for `island`).
    pub elevation: f32,
    /// Cliffiness; an edge can carry a cliff only where its two corners average above 0.5.
    pub cliffiness: f32,
}

/// A pair of noise expressions evaluated at a world tile position. Must be a pure function of
/// `(x_tiles, y_tiles)`: the placer's chunk-locality and tiling guarantees rest on it.
pub trait FieldSource: Sync {
    fn sample(&self, x_tiles: i64, y_tiles: i64) -> CornerSample;
}

impl<F: Fn(i64, i64) -> CornerSample + Sync> FieldSource for F {
    #[inline]
    fn sample(&self, x_tiles: i64, y_tiles: i64) -> CornerSample {
        self(x_tiles, y_tiles)
    }
}

/// Wraps a source and counts its evaluations (thread-safe), to check that each corner is
/// evaluated once per window.
pub struct CountingFields<S> {
    pub inner: S,
    evaluations: AtomicU64,
}

impl<S> CountingFields<S> {
    pub fn new(inner: S) -> Self {
        Self { inner, evaluations: AtomicU64::new(0) }
    }
    pub fn evaluations(&self) -> u64 {
        self.evaluations.load(Ordering::Relaxed)
    }
}

impl<S: FieldSource> FieldSource for CountingFields<S> {
    fn sample(&self, x_tiles: i64, y_tiles: i64) -> CornerSample {
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        self.inner.sample(x_tiles, y_tiles)
    }
}
