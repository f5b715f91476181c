//! View strings (SPEC §8 "View strings"): one short line of text that holds a whole view — the
//! camera's position and target, the sun, the view switches that differ from the defaults and the
//! level-of-detail switch — so a view can be kept, shared, and given back to `isla shot`,
//! `isla fly` or a suite file.
//!
//! ```
//! use isla::view::View;
//! let v: View = "isla:v1;from=1250,160,3150;at=1356,90,3036;sun=38,45;off=fog".parse().unwrap();
//! assert!(!v.switches.fog && v.switches.water);
//! assert_eq!(v.to_string(), "isla:v1;from=1250,160,3150;at=1356,90,3036;sun=38,45;off=fog");
//! ```
//!
//! Numbers are printed in Rust's shortest round-trip form, so a printed view parses back to the
//! very same `f32`s and renders the very same image. This module knows nothing of Bevy.

use crate::mesh::Shading;
use std::fmt;

/// The prefix and version every view string starts with.
pub const VIEW_PREFIX: &str = "isla:v1";

/// Default sun elevation above the horizon, degrees (SPEC §5).
pub const SUN_ELEVATION_DEG: f32 = 38.0;
/// Default sun azimuth, degrees clockwise from north (SPEC §5).
pub const SUN_AZIMUTH_DEG: f32 = 45.0;

/// The sun's position in the sky.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sun {
    pub elevation_deg: f32,
    pub azimuth_deg: f32,
}

impl Default for Sun {
    fn default() -> Self {
        Self { elevation_deg: SUN_ELEVATION_DEG, azimuth_deg: SUN_AZIMUTH_DEG }
    }
}

/// Hours of the day the sun is up on the "time of day" arc: it rises due east at 6:00, stands due
/// south at noon at [`DAY_ARC_NOON_ELEVATION_DEG`] and sets due west at 18:00.
pub const DAY_ARC_HOURS: [f32; 2] = [6.0, 18.0];
/// The sun's elevation at noon on the day arc (degrees).
pub const DAY_ARC_NOON_ELEVATION_DEG: f32 = 60.0;

impl Sun {
    /// The sun at `hour` (6–18) on the day arc: azimuth from 90° (east) through 180° (south) to
    /// 270° (west), elevation `noon · sin(π · (hour − 6) / 12)`, at least 2°.
    pub fn at_hour(hour: f32) -> Self {
        let f = ((hour - DAY_ARC_HOURS[0]) / (DAY_ARC_HOURS[1] - DAY_ARC_HOURS[0])).clamp(0.0, 1.0);
        Self {
            elevation_deg: (DAY_ARC_NOON_ELEVATION_DEG * (std::f32::consts::PI * f).sin()).max(2.0),
            azimuth_deg: 90.0 + 180.0 * f,
        }
    }

    /// A sun at `elevation_deg` (0..=90) and any finite azimuth (kept as given).
    pub fn new(elevation_deg: f32, azimuth_deg: f32) -> Result<Self, String> {
        if !(0.0..=90.0).contains(&elevation_deg) {
            return Err(format!("sun elevation must be 0..=90 degrees, got {elevation_deg}"));
        }
        if !azimuth_deg.is_finite() {
            return Err(format!("sun azimuth must be a finite number of degrees, got {azimuth_deg}"));
        }
        Ok(Self { elevation_deg, azimuth_deg })
    }
}

/// The view switches a view carries: the scene's parts (on by default) and the debug looks (off
/// by default). The flight's other toggles (the panel, the map) are not part of a view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Switches {
    pub shadows: bool,
    pub sky: bool,
    pub water: bool,
    pub fog: bool,
    pub wireframe: bool,
    pub chunk_borders: bool,
    pub seam_highlight: bool,
    pub lod_colours: bool,
    /// The path beside the blueprint (`BLUEPRINT.path.toml`, SPEC §10): its line and a marker
    /// per key.
    pub path: bool,
    pub shading: Shading,
}

impl Default for Switches {
    fn default() -> Self {
        Self {
            shadows: true,
            sky: true,
            water: true,
            fog: true,
            wireframe: false,
            chunk_borders: false,
            seam_highlight: false,
            lod_colours: false,
            path: false,
            shading: Shading::Palette,
        }
    }
}

/// The parts of the scene `off=` can turn off, by name.
pub const OFF_NAMES: [&str; 4] = ["shadows", "sky", "water", "fog"];
/// The debug looks `on=` can turn on, by name.
pub const ON_NAMES: [&str; 5] = ["wireframe", "chunk-borders", "seam-highlight", "lod-colours", "path"];

impl Switches {
    /// The switch called `name` in `off=` (scene parts) or `on=` (debug looks).
    fn slot(&mut self, name: &str, off: bool) -> Option<&mut bool> {
        match (off, name) {
            (true, "shadows") => Some(&mut self.shadows),
            (true, "sky") => Some(&mut self.sky),
            (true, "water") => Some(&mut self.water),
            (true, "fog") => Some(&mut self.fog),
            (false, "wireframe") => Some(&mut self.wireframe),
            (false, "chunk-borders") => Some(&mut self.chunk_borders),
            (false, "seam-highlight") => Some(&mut self.seam_highlight),
            (false, "lod-colours") => Some(&mut self.lod_colours),
            (false, "path") => Some(&mut self.path),
            _ => None,
        }
    }

    /// Turn off the scene part `name` (shadows, sky, water, fog).
    pub fn turn_off(&mut self, name: &str) -> Result<(), String> {
        let slot = self.slot(name, true).ok_or_else(|| format!("unknown part '{name}' (shadows, sky, water, fog)"))?;
        *slot = false;
        Ok(())
    }

    /// Turn on the debug look `name` (wireframe, chunk-borders, seam-highlight, lod-colours, path).
    pub fn turn_on(&mut self, name: &str) -> Result<(), String> {
        let slot = self.slot(name, false).ok_or_else(|| {
            format!("unknown look '{name}' (wireframe, chunk-borders, seam-highlight, lod-colours, path)")
        })?;
        *slot = true;
        Ok(())
    }

    /// The scene parts that are off, in [`OFF_NAMES`] order.
    pub fn off(&self) -> Vec<&'static str> {
        let mut s = *self;
        OFF_NAMES.into_iter().filter(|n| !*s.slot(n, true).expect("a scene part")).collect()
    }

    /// The debug looks that are on, in [`ON_NAMES`] order.
    pub fn on(&self) -> Vec<&'static str> {
        let mut s = *self;
        ON_NAMES.into_iter().filter(|n| *s.slot(n, false).expect("a debug look")).collect()
    }
}

impl Switches {
    /// Refine by a file's `off`, `on` and `shading` keys (a suite view's, a path file's); the
    /// refusal names the key.
    pub fn refine(&mut self, off: &[String], on: &[String], shading: Option<&str>) -> Result<(), String> {
        for name in off {
            self.turn_off(name).map_err(|e| format!("off: {e}"))?;
        }
        for name in on {
            self.turn_on(name).map_err(|e| format!("on: {e}"))?;
        }
        if let Some(s) = shading {
            self.shading = Shading::from_name(s)
                .ok_or_else(|| format!("shading: unknown shading '{s}' (palette, normals, materials)"))?;
        }
        Ok(())
    }
}

/// A file's `lod` key: `"on"` or `"off"`.
pub fn lod_key(l: &str) -> Result<bool, String> {
    match l {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("lod: expected \"on\" or \"off\", got '{l}'")),
    }
}

/// A whole view: where the camera is and looks, the sun, the switches and the level of detail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Camera position in metres (X east, Y up, Z south).
    pub from: [f32; 3],
    /// The point the camera looks at, metres.
    pub at: [f32; 3],
    pub sun: Sun,
    pub switches: Switches,
    /// Level of detail on (the default) or off (full detail within the view distance).
    pub lod: bool,
}

impl View {
    /// A view from `from` towards `at` with every other setting at its default.
    pub fn looking(from: [f32; 3], at: [f32; 3]) -> Result<Self, String> {
        check_pose(from, at)?;
        Ok(Self { from, at, sun: Sun::default(), switches: Switches::default(), lod: true })
    }
}

/// A camera position and target the renderer can use: finite, and not the same point.
pub fn check_pose(from: [f32; 3], at: [f32; 3]) -> Result<(), String> {
    if from.iter().chain(&at).any(|v| !v.is_finite()) {
        return Err("camera coordinates must be finite".into());
    }
    if from == at {
        return Err("the camera looks at its own position (from = at)".into());
    }
    Ok(())
}

/// Why a view string was refused: the key (or part) and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewError(pub String);

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::io::one_line(&self.0))
    }
}

impl std::error::Error for ViewError {}

fn numbers<const N: usize>(key: &str, v: &str) -> Result<[f32; N], ViewError> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() != N {
        return Err(ViewError(format!("{key}: expected {N} comma-separated numbers, got '{v}'")));
    }
    let mut out = [0f32; N];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p.trim().parse().map_err(|_| ViewError(format!("{key}: '{p}' is not a number")))?;
        if !o.is_finite() {
            return Err(ViewError(format!("{key}: '{p}' is not a finite number")));
        }
    }
    Ok(out)
}

impl std::str::FromStr for View {
    type Err = ViewError;

    /// Parse `isla:v1;from=X,Y,Z;at=X,Y,Z[;sun=EL,AZ][;off=…][;on=…][;shading=…][;lod=on|off]`.
    /// Keys may come in any order, each at most once; `from` and `at` are required.
    fn from_str(s: &str) -> Result<Self, ViewError> {
        let s = s.trim();
        if let Some((i, c)) = s.chars().enumerate().find(|(_, c)| c.is_control()) {
            return Err(ViewError(format!(
                "a view string is one line of text; character {} is the control character U+{:04X}",
                i + 1,
                c as u32
            )));
        }
        let mut parts = s.split(';');
        let head = parts.next().unwrap_or_default();
        if head != VIEW_PREFIX {
            return Err(ViewError(match head.strip_prefix("isla:") {
                Some(v) => format!("unsupported view string version '{v}' (this Isla reads v1)"),
                None => format!(
                    "a view string starts with '{VIEW_PREFIX};', got '{}'",
                    head.chars().take(24).collect::<String>()
                ),
            }));
        }
        let (mut from, mut at, mut sun) = (None, None, None);
        let mut switches = Switches::default();
        let mut lod = true;
        let mut seen: Vec<&str> = Vec::new();
        for part in parts {
            let (key, value) = part.split_once('=').ok_or_else(|| ViewError(format!("'{part}' is not KEY=VALUE")))?;
            if seen.contains(&key) {
                return Err(ViewError(format!("{key}: given twice")));
            }
            seen.push(key);
            match key {
                "from" => from = Some(numbers::<3>(key, value)?),
                "at" => at = Some(numbers::<3>(key, value)?),
                "sun" => {
                    let [el, az] = numbers::<2>(key, value)?;
                    sun = Some(Sun::new(el, az).map_err(|e| ViewError(format!("sun: {e}")))?);
                }
                "off" | "on" => {
                    for name in value.split(',').filter(|n| !n.is_empty()) {
                        let r = if key == "off" { switches.turn_off(name) } else { switches.turn_on(name) };
                        r.map_err(|e| ViewError(format!("{key}: {e}")))?;
                    }
                }
                "shading" => {
                    switches.shading = Shading::from_name(value).ok_or_else(|| {
                        ViewError(format!("shading: unknown shading '{value}' (palette, normals, materials)"))
                    })?
                }
                "lod" => {
                    lod = match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(ViewError(format!("lod: expected on or off, got '{value}'"))),
                    }
                }
                _ => {
                    return Err(ViewError(format!("unknown key '{key}' (from, at, sun, off, on, shading, lod)")));
                }
            }
        }
        let from = from.ok_or_else(|| ViewError("from: missing (the camera's position X,Y,Z)".into()))?;
        let at = at.ok_or_else(|| ViewError("at: missing (the point the camera looks at X,Y,Z)".into()))?;
        check_pose(from, at).map_err(ViewError)?;
        Ok(View { from, at, sun: sun.unwrap_or_default(), switches, lod })
    }
}

impl fmt::Display for View {
    /// The canonical form: `from`, `at` and `sun` always, then `off`, `on`, `shading` and `lod`
    /// only where they differ from the defaults.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.from;
        let [ax, ay, az] = self.at;
        write!(
            f,
            "{VIEW_PREFIX};from={x},{y},{z};at={ax},{ay},{az};sun={},{}",
            self.sun.elevation_deg, self.sun.azimuth_deg
        )?;
        let off = self.switches.off();
        if !off.is_empty() {
            write!(f, ";off={}", off.join(","))?;
        }
        let on = self.switches.on();
        if !on.is_empty() {
            write!(f, ";on={}", on.join(","))?;
        }
        if self.switches.shading != Shading::Palette {
            write!(f, ";shading={}", self.switches.shading.name())?;
        }
        if !self.lod {
            write!(f, ";lod=off")?;
        }
        Ok(())
    }
}

/// The named camera presets. Where each puts the camera depends on the island (the app computes
/// it: `app::camera`); a view string always holds the resulting position and target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preset {
    /// High above the east-south-east, looking at the whole island, sun from the right.
    #[default]
    Overview,
    /// Low over the sea, looking at the shore: shallows, beach, water sheet.
    Coast,
    /// Above the crater bay, looking down into it (falls back to the coast without a crater).
    Crater,
    /// A few metres under the sea surface, looking up at the water sheet from below.
    Underwater,
}

impl Preset {
    pub const ALL: [Preset; 4] = [Preset::Overview, Preset::Coast, Preset::Crater, Preset::Underwater];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Overview => "overview",
            Preset::Coast => "coast",
            Preset::Crater => "crater",
            Preset::Underwater => "underwater",
        }
    }

    /// The preset with this name (`overview`, `coast`, `crater`, `underwater`).
    pub fn from_name(s: &str) -> Option<Preset> {
        Self::ALL.into_iter().find(|p| p.name() == s)
    }
}
