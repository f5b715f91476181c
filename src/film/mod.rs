//! Films (SPEC §10 "Films"): a camera path over an island, read from a path file, sampled into
//! one view per frame. This module reads and checks the file ([`PathFile::load`]) and moves the
//! camera ([`Film`]); `isla film` renders the views with the headless renderer. Bevy-free.
//!
//! - **Timing.** Key `i` is reached at `arrive[i]` (its `time`, or the last key's departure plus
//!   its `travel`, default [`DEFAULT_TRAVEL_S`]) and left at `depart[i] = arrive[i] + hold`.
//! - **Position** runs along a cubic Hermite curve per leg whose key tangents are Catmull-Rom's,
//!   parametrised by the keys' times (`(p[i+1] − p[i−1]) / (arrive[i+1] − depart[i−1])`), and
//!   zero at the first and last key, at a key with a hold, and at either end of an `in-out`
//!   leg. A tangent is shortened to at most its legs' chord over duration, so close keys make no
//!   cusp or loop. Along each leg the camera covers the curve's arc length at a speed that moves
//!   smoothly (a quadratic in time) from the key's speed to the next key's: the velocity has no
//!   step at a key, and the pace within a leg is even, not bunched where the curve's parameter
//!   is.
//! - **Orientation** is the keys' quaternions slerped by the leg's progress along its arc (by
//!   its time where the camera turns in place), the short way round: 350° to 10° is 20°.
//! - **Sun.** A key may set `sun_elevation` and `sun_azimuth`, or `time_of_day`; a key that sets
//!   neither keeps the sun it arrives with. Between two keys on the day arc the hour moves; else
//!   the elevation moves and the azimuth turns the short way.

mod motion;

pub use motion::{Film, Pose, look_rotation, polyline, rotate, slerp};

use crate::view::{Sun, Switches, View};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The path file's format version.
pub const PATH_VERSION: i64 = 1;
/// A key's travel from the last key when neither `time` nor `travel` is given (seconds).
pub const DEFAULT_TRAVEL_S: f32 = 4.0;
pub const DEFAULT_FPS: u32 = 30;
pub const DEFAULT_WIDTH: u32 = 960;
pub const DEFAULT_HEIGHT: u32 = 540;
pub const MAX_FPS: u32 = 240;
/// The most frames a film may have (an hour at 30 fps is 108,000).
pub const MAX_FRAMES: u64 = 1_000_000;
/// Largest path file read.
pub const MAX_PATH_BYTES: u64 = 4 << 20;
/// Between keys the camera stays at least this far over the drawn surface (m), or as far as the
/// keys themselves are where they are lower.
pub const CLEARANCE_M: f32 = 2.0;
/// The `at` point of a frame's view string lies this far ahead of the camera (m).
pub(crate) const LOOK_AHEAD_M: f32 = 100.0;

/// A path file refused: one line naming the file, the key and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilmError(pub String);

impl std::fmt::Display for FilmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::io::one_line(&self.0))
    }
}

impl std::error::Error for FilmError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPath {
    version: Option<i64>,
    blueprint: Option<String>,
    fps: Option<u32>,
    width: Option<u32>,
    height: Option<u32>,
    off: Option<Vec<String>>,
    on: Option<Vec<String>>,
    shading: Option<String>,
    lod: Option<String>,
    #[serde(default)]
    key: Vec<RawKey>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKey {
    view: Option<String>,
    look_from: Option<[f32; 3]>,
    look_at: Option<[f32; 3]>,
    time: Option<f32>,
    travel: Option<f32>,
    hold: Option<f32>,
    ease: Option<String>,
    sun_elevation: Option<f32>,
    sun_azimuth: Option<f32>,
    time_of_day: Option<f32>,
}

/// How a leg starts and ends: at the keys' speeds (`linear`), or from and to rest (`in-out`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ease {
    Linear,
    #[default]
    InOut,
}

/// A key's sun: inherited from the key before, set by angles, or an hour of the day arc.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeySun {
    Inherit,
    Angles(Sun),
    Hour(f32),
}

/// One key, resolved: where the camera is and looks (a unit vector), when, and the sun.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub from: [f32; 3],
    pub forward: [f32; 3],
    pub arrive: f32,
    pub depart: f32,
    /// The leg that arrives at this key.
    pub ease: Ease,
    pub sun: KeySun,
}

/// A checked path file.
#[derive(Debug, Clone)]
pub struct PathFile {
    pub path: PathBuf,
    pub blueprint: PathBuf,
    pub fps: u32,
    pub width: u32,
    pub height: u32,
    pub switches: Switches,
    pub lod: bool,
    pub keys: Vec<Key>,
}

/// The blueprint a path file beside it names by default: `NAME.path.toml` → `NAME.dat`.
fn blueprint_beside(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".path.toml").or_else(|| name.strip_suffix(".views.toml"))?;
    Some(path.with_file_name(format!("{stem}.dat")))
}

/// The path file beside a blueprint: `NAME.dat` → `NAME.path.toml`.
pub fn path_beside(blueprint: &Path) -> PathBuf {
    let stem = blueprint.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "blueprint".into());
    blueprint.with_file_name(format!("{stem}.path.toml"))
}

fn finite(what: &str, v: f32) -> Result<f32, String> {
    if v.is_finite() { Ok(v) } else { Err(format!("{what} must be a finite number, got {v}")) }
}

fn unit(v: [f32; 3]) -> Option<[f32; 3]> {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (l > 1e-6 && l.is_finite()).then(|| [v[0] / l, v[1] / l, v[2] / l])
}

impl PathFile {
    /// Read and check a path file (or a saved-views file, each view a key `DEFAULT_TRAVEL_S`
    /// apart). Every refusal is one line: the file, the key, the problem.
    pub fn load(path: &Path) -> Result<PathFile, FilmError> {
        let text = crate::io::read_text_bounded(path, MAX_PATH_BYTES, "a path file").map_err(FilmError)?;
        Self::parse(path, &text)
    }

    /// [`PathFile::load`] from text already read.
    pub fn parse(path: &Path, text: &str) -> Result<PathFile, FilmError> {
        let shown = path.display().to_string();
        let err = |what: String| FilmError(format!("{shown}: {what}"));
        // A saved-views file is a suite file: `[[view]]` tables and no `[[key]]`.
        let table: toml::Table = toml::from_str(text).map_err(|e| toml_refusal(&shown, text, &e))?;
        if table.contains_key("view") && !table.contains_key("key") {
            return Self::from_views(path, text);
        }
        let raw: RawPath = toml::from_str(text).map_err(|e| toml_refusal(&shown, text, &e))?;
        if let Some(v) = raw.version
            && v != PATH_VERSION
        {
            return Err(err(format!("version {v}: this Isla reads path files of version {PATH_VERSION}")));
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let blueprint = match &raw.blueprint {
            Some(b) => dir.join(b),
            None => blueprint_beside(path)
                .ok_or_else(|| err("no blueprint: give `blueprint`, or name the file BLUEPRINT.path.toml".into()))?,
        };
        if !blueprint.is_file() {
            return Err(err(format!("blueprint: {} does not exist", blueprint.display())));
        }
        let fps = raw.fps.unwrap_or(DEFAULT_FPS);
        let (width, height) = (raw.width.unwrap_or(DEFAULT_WIDTH), raw.height.unwrap_or(DEFAULT_HEIGHT));
        check_film_size(fps, width, height).map_err(err)?;
        let mut switches = Switches::default();
        switches
            .refine(
                raw.off.as_deref().unwrap_or_default(),
                raw.on.as_deref().unwrap_or_default(),
                raw.shading.as_deref(),
            )
            .map_err(err)?;
        let lod = raw.lod.as_deref().map_or(Ok(true), crate::view::lod_key).map_err(err)?;
        if raw.key.len() < 2 {
            return Err(err(format!("{} [[key]]: a path needs at least two", raw.key.len())));
        }
        let mut keys: Vec<Key> = Vec::with_capacity(raw.key.len());
        for (i, k) in raw.key.into_iter().enumerate() {
            let label = format!("[[key]] #{}", i + 1);
            let key = resolve_key(k, &blueprint, keys.last()).map_err(|e| err(format!("{label}: {e}")))?;
            keys.push(key);
        }
        let file = PathFile { path: path.to_path_buf(), blueprint, fps, width, height, switches, lod, keys };
        file.check_frames().map_err(err)?;
        Ok(file)
    }

    /// A saved-views file as a path: its views in order, [`DEFAULT_TRAVEL_S`] apart.
    fn from_views(path: &Path, text: &str) -> Result<PathFile, FilmError> {
        let suite = crate::suite::Suite::parse(path, text).map_err(|e| FilmError(e.to_string()))?;
        let shown = path.display().to_string();
        if suite.views.len() < 2 {
            return Err(FilmError(format!("{shown}: {} saved views: a path needs at least two", suite.views.len())));
        }
        let mut keys: Vec<Key> = Vec::new();
        for v in &suite.views {
            let crate::suite::Pose::Look { from, at } = v.pose else {
                return Err(FilmError(format!(
                    "{shown}: view '{}' is a preset; a key needs its camera (a view string or look_from + look_at)",
                    v.name
                )));
            };
            let forward = unit([at[0] - from[0], at[1] - from[1], at[2] - from[2]])
                .ok_or_else(|| FilmError(format!("{shown}: view '{}': the camera looks at itself", v.name)))?;
            let arrive = keys.last().map_or(0.0, |k| k.depart + DEFAULT_TRAVEL_S);
            keys.push(Key { from, forward, arrive, depart: arrive, ease: Ease::InOut, sun: KeySun::Angles(v.sun) });
        }
        let first = &suite.views[0];
        let file = PathFile {
            path: path.to_path_buf(),
            blueprint: suite.blueprint.clone(),
            fps: DEFAULT_FPS,
            width: first.width,
            height: first.height,
            switches: first.switches,
            lod: first.lod,
            keys,
        };
        file.check_frames().map_err(|e| FilmError(format!("{shown}: {e}")))?;
        Ok(file)
    }

    /// The film's length (s): the last key's departure.
    pub fn duration_s(&self) -> f32 {
        self.keys.last().map_or(0.0, |k| k.depart)
    }

    /// Frames in the film: one every `1 / fps` seconds from 0 up to (not including) its end.
    pub fn frames(&self) -> u64 {
        ((self.duration_s() as f64 * self.fps as f64).round() as u64).max(1)
    }

    fn check_frames(&self) -> Result<(), String> {
        let n = self.frames();
        if n > MAX_FRAMES {
            return Err(format!(
                "{n} frames ({} s at {} fps): a film has at most {MAX_FRAMES}",
                self.duration_s(),
                self.fps
            ));
        }
        Ok(())
    }

    /// The same film at another rate or size (`--fps`, `--width`, `--height`).
    pub fn with(mut self, fps: Option<u32>, width: Option<u32>, height: Option<u32>) -> Result<Self, FilmError> {
        self.fps = fps.unwrap_or(self.fps);
        self.width = width.unwrap_or(self.width);
        self.height = height.unwrap_or(self.height);
        let shown = self.path.display().to_string();
        check_film_size(self.fps, self.width, self.height).map_err(|e| FilmError(format!("{shown}: {e}")))?;
        self.check_frames().map_err(|e| FilmError(format!("{shown}: {e}")))?;
        Ok(self)
    }
}

fn check_film_size(fps: u32, width: u32, height: u32) -> Result<(), String> {
    if !(1..=MAX_FPS).contains(&fps) {
        return Err(format!("fps {fps} is outside 1..={MAX_FPS}"));
    }
    let max = crate::suite::MAX_SIDE;
    for (k, v) in [("width", width), ("height", height)] {
        if !(2..=max).contains(&v) || v % 2 != 0 {
            return Err(format!("{k} {v} must be even and within 2..={max} (video frames are in 2 × 2 blocks)"));
        }
    }
    Ok(())
}

/// A TOML error as a refusal: `FILE:LINE:COL: message`.
fn toml_refusal(shown: &str, text: &str, e: &toml::de::Error) -> FilmError {
    FilmError(crate::io::toml_refusal(shown, text, e))
}

fn resolve_key(k: RawKey, blueprint: &Path, last: Option<&Key>) -> Result<Key, String> {
    let (from, at, view_sun) = match (&k.view, k.look_from, k.look_at) {
        (Some(v), None, None) => {
            let view: View = if v.trim_start().starts_with("isla:") {
                v.parse().map_err(|e| format!("view: {e}"))?
            } else {
                crate::views::load(blueprint, v).map_err(|e| format!("view: {e}"))?
            };
            (view.from, view.at, Some(view.sun))
        }
        (None, Some(from), Some(at)) => {
            crate::view::check_pose(from, at).map_err(|e| format!("look_from/look_at: {e}"))?;
            (from, at, None)
        }
        (None, None, None) => return Err("no pose: give view, or look_from with look_at".into()),
        (Some(_), _, _) => return Err("give view or look_from with look_at, not both".into()),
        (None, from, _) => {
            return Err(if from.is_some() { "look_from without look_at" } else { "look_at without look_from" }.into());
        }
    };
    let forward = unit([at[0] - from[0], at[1] - from[1], at[2] - from[2]]).ok_or("the camera looks at itself")?;
    let hold = finite("hold", k.hold.unwrap_or(0.0))?;
    if hold < 0.0 {
        return Err(format!("hold must be at least 0 seconds, got {hold}"));
    }
    let arrive = match (k.time, k.travel, last) {
        (Some(_), Some(_), _) => return Err("give time or travel, not both".into()),
        (Some(t), None, _) => finite("time", t)?,
        (None, travel, Some(l)) => {
            let travel = finite("travel", travel.unwrap_or(DEFAULT_TRAVEL_S))?;
            if travel <= 0.0 {
                return Err(format!("travel must be more than 0 seconds, got {travel}"));
            }
            l.depart + travel
        }
        (None, Some(_), None) => return Err("the first key has no travel (it is where the film starts)".into()),
        (None, None, None) => 0.0,
    };
    match last {
        Some(l) if arrive <= l.depart => {
            return Err(format!("time {arrive} s does not come after the last key's departure at {} s", l.depart));
        }
        None if arrive != 0.0 => return Err(format!("the first key is at time 0, not {arrive}")),
        _ => {}
    }
    let ease = match k.ease.as_deref() {
        None | Some("in-out") => Ease::InOut,
        Some("linear") => Ease::Linear,
        Some(e) => return Err(format!("ease: expected \"linear\" or \"in-out\", got '{e}'")),
    };
    let sun = match (k.sun_elevation, k.sun_azimuth, k.time_of_day) {
        (None, None, None) => view_sun.map_or(KeySun::Inherit, KeySun::Angles),
        (None, None, Some(h)) => {
            let [h0, h1] = crate::view::DAY_ARC_HOURS;
            if !(h0..=h1).contains(&finite("time_of_day", h)?) {
                return Err(format!("time_of_day must be within {h0}..={h1} hours, got {h}"));
            }
            KeySun::Hour(h)
        }
        (el, az, None) => {
            let base = view_sun.unwrap_or_default();
            KeySun::Angles(
                Sun::new(el.unwrap_or(base.elevation_deg), az.unwrap_or(base.azimuth_deg))
                    .map_err(|e| format!("sun_elevation/sun_azimuth: {e}"))?,
            )
        }
        (_, _, Some(_)) => return Err("give time_of_day or sun_elevation/sun_azimuth, not both".into()),
    };
    Ok(Key { from, forward, arrive, depart: arrive + hold, ease, sun })
}

/// A frame range `A..B` (both included) of `--frames`, checked against a film of `frames`.
pub fn frame_range(s: &str, frames: u64) -> Result<(u64, u64), String> {
    let bad = || format!("'{s}' is not A..B (frame numbers, both included)");
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let (a, b): (u64, u64) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
    if a > b {
        return Err(format!("{a}..{b}: the first frame comes after the last"));
    }
    if b >= frames {
        return Err(format!("{a}..{b}: the film has frames 0..{}", frames - 1));
    }
    Ok((a, b))
}

/// The file name of frame `i`.
pub fn frame_name(i: u64) -> String {
    format!("frame-{i:05}.png")
}

/// Append `view` as a key to the path file beside `blueprint` (`BLUEPRINT.path.toml`, made
/// with its header when absent), rewriting it atomically: `isla fly`'s add-a-key. A file that
/// is not TOML is refused, never overwritten. Returns the keys the file now has, and the file.
pub fn append_key(blueprint: &Path, view: &View) -> Result<(usize, PathBuf), FilmError> {
    let path = path_beside(blueprint);
    let shown = path.display().to_string();
    let mut text = if path.is_file() {
        std::fs::read_to_string(&path).map_err(|e| FilmError(format!("{shown}: cannot read: {e}")))?
    } else {
        format!(
            "# A camera path (SPEC §10): K in `isla fly` adds the current view as a key, P plays it.\nversion = {PATH_VERSION}\n"
        )
    };
    let table: toml::Table = toml::from_str(&text).map_err(|e| toml_refusal(&shown, &text, &e))?;
    let keys = table.get("key").and_then(|k| k.as_array()).map_or(0, |a| a.len());
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("\n[[key]]\nview = \"{view}\"\n"));
    crate::io::write_bytes_atomic(&path, text.as_bytes())
        .map_err(|e| FilmError(format!("{shown}: cannot write: {e}")))?;
    Ok((keys + 1, path))
}
