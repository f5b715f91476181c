//! The generator's dials: which preset supplies the two fields, the band constants and the
//! sliders. Plain data, editable by the map window; every field is read fresh on each placement.

use crate::blueprint::Blueprint;

/// Which pair of noise expressions feeds the placer (SPEC §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CliffPreset {
    /// Cliff elevation = the blueprint's render height in metres; continuous cliffiness.
    Island,
    /// Pure noise: `10 + 30·(hills − level)`, cliffiness a 0-or-10 gate.
    Nauvis,
    /// Elevation-driven over a noise elevation; continuous cliffiness.
    Vulcanus,
}

impl CliffPreset {
    pub const ALL: [CliffPreset; 3] = [CliffPreset::Island, CliffPreset::Nauvis, CliffPreset::Vulcanus];
    pub fn name(self) -> &'static str {
        match self {
            CliffPreset::Island => "island",
            CliffPreset::Nauvis => "nauvis",
            CliffPreset::Vulcanus => "vulcanus",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(s))
    }
    /// Whether the preset reads the blueprint's heights (and so needs one).
    pub fn needs_blueprint(self) -> bool {
        matches!(self, CliffPreset::Island)
    }
}

/// Island band phase above sea level, metres. The forge's height curve puts the bench shelf near
/// 100 m and the plateau shelf near 220 m above sea (SPEC §2); with boundaries at sea + 40 + 40·k
/// (40, 80, 120, 160, 200, 240 m) both shelves sit mid-band, 20 m from the nearest boundary, so
/// shelf micro-relief never crosses one, while the foothill riser (≈ 40–100 m) and the mid riser
/// (≈ 100–220 m) each carry boundaries: cliffs trace the risers. Lowland and beach (< 40 m above
/// sea) stay cliff-free.
pub const ISLAND_ELEVATION_0_ABOVE_SEA_M: f32 = 40.0;
/// Island band spacing, metres (see [`ISLAND_ELEVATION_0_ABOVE_SEA_M`]; the reference's Nauvis
/// default interval is also 40).
pub const ISLAND_ELEVATION_INTERVAL_M: f32 = 40.0;
/// Nauvis band constants (reference, Nauvis notes: "cliff_elevation_0 10, interval 40 from the preset").
pub const NAUVIS_ELEVATION_0: f32 = 10.0;
pub const NAUVIS_ELEVATION_INTERVAL: f32 = 40.0;
/// Nauvis's `cliff_smoothing` (reference, Nauvis notes: "cliff_smoothing = 0 on Nauvis").
pub const NAUVIS_SMOOTHING: f32 = 0.0;
/// Vulcanus band constants (the reference's Vulcanus notes: "cliff_elevation_interval = 120, cliff_elevation_0 = 70").
pub const VULCANUS_ELEVATION_0: f32 = 70.0;
pub const VULCANUS_ELEVATION_INTERVAL: f32 = 120.0;
/// The prototype default `cliff_smoothing`, which Vulcanus and the island preset keep
/// (reference, Nauvis notes: "the prototype default is 1, not 0").
pub const DEFAULT_SMOOTHING: f32 = 1.0;

/// Everything that decides a placement besides the field expressions' own constants.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CliffSettings {
    pub preset: CliffPreset,
    /// `seed0` of every noise layer (the map seed).
    pub seed: u32,
    /// `cliff_elevation_0`: the band phase, in the elevation field's units (metres for island).
    pub elevation_0: f32,
    /// `cliff_elevation_interval` before the frequency slider, same units.
    pub elevation_interval: f32,
    /// `cliff_richness`, which the Nauvis "continuity" slider scales (reference, Nauvis notes:
    /// `getModifiedRichness = richness × size`). 0 disables cliffs.
    pub richness: f32,
    /// The frequency slider: the effective interval is `elevation_interval / frequency`
    /// (reference, Nauvis notes: `getModifiedElevationInterval`). Applied on every preset.
    pub frequency: f32,
    /// `cliff_smoothing` in 0..=1: how far each chunk's elevation is pulled to its knot bilerp.
    pub smoothing: f32,
}

impl CliffSettings {
    /// The preset's defaults. For [`CliffPreset::Island`] the band phase needs the sea level:
    /// use [`CliffSettings::for_blueprint`] (this assumes the format's default sea level).
    pub fn preset(preset: CliffPreset, seed: u32) -> Self {
        let sea_m = crate::blueprint::DEFAULT_SEA_LEVEL_RAW * crate::blueprint::DEFAULT_METRES_PER_RAW;
        Self::preset_with_sea(preset, seed, sea_m)
    }
    /// The preset's defaults for a loaded blueprint: its seed, and (island) its sea level.
    pub fn for_blueprint(preset: CliffPreset, bp: &Blueprint) -> Self {
        Self::preset_with_sea(preset, bp.seed as u32, bp.params.sea_level_raw * bp.params.metres_per_raw)
    }
    fn preset_with_sea(preset: CliffPreset, seed: u32, sea_level_m: f32) -> Self {
        let (elevation_0, elevation_interval, smoothing) = match preset {
            CliffPreset::Island => {
                (sea_level_m + ISLAND_ELEVATION_0_ABOVE_SEA_M, ISLAND_ELEVATION_INTERVAL_M, DEFAULT_SMOOTHING)
            }
            CliffPreset::Nauvis => (NAUVIS_ELEVATION_0, NAUVIS_ELEVATION_INTERVAL, NAUVIS_SMOOTHING),
            CliffPreset::Vulcanus => (VULCANUS_ELEVATION_0, VULCANUS_ELEVATION_INTERVAL, DEFAULT_SMOOTHING),
        };
        Self { preset, seed, elevation_0, elevation_interval, richness: 1.0, frequency: 1.0, smoothing }
    }
    /// The band spacing the crossing rule uses: `elevation_interval / frequency`.
    pub fn effective_interval(&self) -> f32 {
        self.elevation_interval / self.frequency
    }
    /// Whether these dials can place anything at all (continuity 0, a non-positive interval or a
    /// non-finite dial disables the pass, as the reference's continuity-0 gate does).
    pub fn enabled(&self) -> bool {
        let i = self.effective_interval();
        self.richness > 0.0 && i.is_finite() && i > 0.0 && self.elevation_0.is_finite() && self.smoothing.is_finite()
    }
}
