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

use crate::mesh::Shading;
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
const LOOK_AHEAD_M: f32 = 100.0;

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
        let shown = path.display().to_string();
        let len = std::fs::metadata(path).map_err(|e| FilmError(format!("{shown}: cannot read: {e}")))?.len();
        if len > MAX_PATH_BYTES {
            return Err(FilmError(format!("{shown}: {len} bytes; a path file is at most {MAX_PATH_BYTES}")));
        }
        let text = std::fs::read_to_string(path).map_err(|e| FilmError(format!("{shown}: cannot read: {e}")))?;
        Self::parse(path, &text)
    }

    /// [`PathFile::load`] from text already read.
    pub fn parse(path: &Path, text: &str) -> Result<PathFile, FilmError> {
        let shown = path.display().to_string();
        let err = |what: String| FilmError(format!("{shown}: {what}"));
        // A saved-views file is a suite file: `[[view]]` tables and no `[[key]]`.
        let table: toml::Table = toml::from_str(text).map_err(|e| err(toml_error(text, &e)))?;
        if table.contains_key("view") && !table.contains_key("key") {
            return Self::from_views(path, text);
        }
        let raw: RawPath = toml::from_str(text).map_err(|e| err(toml_error(text, &e)))?;
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
        for name in raw.off.iter().flatten() {
            switches.turn_off(name).map_err(|e| err(format!("off: {e}")))?;
        }
        for name in raw.on.iter().flatten() {
            switches.turn_on(name).map_err(|e| err(format!("on: {e}")))?;
        }
        if let Some(s) = &raw.shading {
            switches.shading = Shading::from_name(s)
                .ok_or_else(|| err(format!("shading: unknown shading '{s}' (palette, normals, materials)")))?;
        }
        let lod = match raw.lod.as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(l) => return Err(err(format!("lod: expected \"on\" or \"off\", got '{l}'"))),
        };
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

fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().lines().next().unwrap_or("malformed TOML").trim_end().to_string();
    match e.span() {
        Some(s) => {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("{line}:{col}: {msg}")
        }
        None => msg,
    }
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

// ---- motion ----------------------------------------------------------------------------------

type V3 = [f32; 3];

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn scale(a: V3, s: f32) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn len(a: V3) -> f32 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// A rotation as a unit quaternion `[x, y, z, w]`.
type Quat = [f32; 4];

/// The camera's rotation looking along `forward` (the camera looks down −Z, up +Y, no roll):
/// yaw about Y, then pitch about X.
pub fn look_rotation(forward: V3) -> Quat {
    let yaw = (-forward[0]).atan2(-forward[2]);
    let pitch = forward[1].clamp(-1.0, 1.0).asin();
    let (sy, cy) = (0.5 * yaw).sin_cos();
    let (sp, cp) = (0.5 * pitch).sin_cos();
    // q = q_yaw · q_pitch.
    [cy * sp, sy * cp, -sy * sp, cy * cp]
}

/// `q` applied to `v`.
pub fn rotate(q: Quat, v: V3) -> V3 {
    let u = [q[0], q[1], q[2]];
    let cross = |a: V3, b: V3| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let t = scale(cross(u, v), 2.0);
    add(add(v, scale(t, q[3])), cross(u, t))
}

/// Spherical interpolation from `a` to `b` by `f`, the short way round.
pub fn slerp(a: Quat, b: Quat, f: f32) -> Quat {
    let mut dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    let b = if dot < 0.0 {
        dot = -dot;
        [-b[0], -b[1], -b[2], -b[3]]
    } else {
        b
    };
    let (wa, wb) = if dot > 0.9995 {
        (1.0 - f, f)
    } else {
        let theta = dot.clamp(-1.0, 1.0).acos();
        let s = theta.sin();
        (((1.0 - f) * theta).sin() / s, (f * theta).sin() / s)
    };
    let q = [wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3]];
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
}

/// One leg: a cubic Hermite curve from key `i` to `i + 1` and its arc-length table.
#[derive(Debug, Clone)]
struct Leg {
    start: f32,
    end: f32,
    p0: V3,
    p1: V3,
    /// The end tangents in the curve's parameter (velocity × duration).
    t0: V3,
    t1: V3,
    /// The speeds (m/s) at its ends.
    v0: f32,
    v1: f32,
    length: f32,
    /// `(arc length, point)` at evenly spaced parameters: the curve as a fine polyline, walked at
    /// exactly the pace asked (a parameter interpolated between samples would not be, where the
    /// curve leaves a stop).
    table: Vec<(f32, V3)>,
    /// Smoothstep the turn's progress when the leg does not move (a turn in place).
    in_out: bool,
}

const TABLE_STEPS: usize = 512;

impl Leg {
    fn point(&self, u: f32) -> V3 {
        let (u2, u3) = (u * u, u * u * u);
        let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
        let h10 = u3 - 2.0 * u2 + u;
        let h01 = -2.0 * u3 + 3.0 * u2;
        let h11 = u3 - u2;
        add(add(scale(self.p0, h00), scale(self.t0, h10)), add(scale(self.p1, h01), scale(self.t1, h11)))
    }

    /// The distance covered `tau` seconds into the leg: speed quadratic in time from `v0` to `v1`,
    /// integrating to the leg's length.
    fn covered(&self, tau: f32) -> f32 {
        let t = self.end - self.start;
        let (v0, v1, l) = (self.v0, self.v1, self.length);
        let c = 6.0 * (l - 0.5 * (v0 + v1) * t) / (t * t * t);
        (v0 * tau + (v1 - v0) * tau * tau / (2.0 * t) + c * (t * tau * tau / 2.0 - tau * tau * tau / 3.0)).clamp(0.0, l)
    }

    /// The point at arc length `s` along the curve.
    fn point_at(&self, s: f32) -> V3 {
        let i = self.table.partition_point(|&(d, _)| d < s).clamp(1, self.table.len() - 1);
        let ((d0, p0), (d1, p1)) = (self.table[i - 1], self.table[i]);
        if d1 > d0 { add(p0, scale(sub(p1, p0), (s - d0) / (d1 - d0))) } else { p1 }
    }
}

/// Where the camera is and looks at time `t`, and the sun.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    pub from: V3,
    pub forward: V3,
    pub sun: Sun,
}

/// A path ready to sample.
#[derive(Debug, Clone)]
pub struct Film {
    pub file: PathFile,
    legs: Vec<Leg>,
    rotations: Vec<Quat>,
    /// Each key's sun, inheritance resolved.
    suns: Vec<KeySun>,
}

impl Film {
    pub fn new(file: PathFile) -> Self {
        let keys = &file.keys;
        let n = keys.len();
        // A key is a stop (zero velocity) at the ends, with a hold, or beside an in-out leg.
        let stop = |i: usize| {
            i == 0
                || i == n - 1
                || keys[i].depart > keys[i].arrive
                || keys[i].ease == Ease::InOut
                || keys[i + 1].ease == Ease::InOut
        };
        let velocity: Vec<V3> = (0..n)
            .map(|i| {
                if stop(i) {
                    return [0.0; 3];
                }
                let (a, b) = (&keys[i - 1], &keys[i + 1]);
                let m = scale(sub(b.from, a.from), 1.0 / (b.arrive - a.depart));
                // No faster than either leg's chord over its duration: no cusp or loop.
                let chord = |p: &Key, q: &Key| len(sub(q.from, p.from)) / (q.arrive - p.depart);
                let cap = chord(a, &keys[i]).min(chord(&keys[i], b));
                let l = len(m);
                if l > cap && l > 0.0 { scale(m, cap / l) } else { m }
            })
            .collect();
        let legs = (0..n - 1)
            .map(|i| {
                let (a, b) = (&keys[i], &keys[i + 1]);
                let d = b.arrive - a.depart;
                let mut leg = Leg {
                    start: a.depart,
                    end: b.arrive,
                    p0: a.from,
                    p1: b.from,
                    t0: scale(velocity[i], d),
                    t1: scale(velocity[i + 1], d),
                    v0: len(velocity[i]),
                    v1: len(velocity[i + 1]),
                    length: 0.0,
                    table: Vec::with_capacity(TABLE_STEPS + 1),
                    in_out: b.ease == Ease::InOut,
                };
                let mut s = 0.0;
                let mut prev = leg.p0;
                for k in 0..=TABLE_STEPS {
                    let p = leg.point(k as f32 / TABLE_STEPS as f32);
                    s += len(sub(p, prev));
                    prev = p;
                    leg.table.push((s, p));
                }
                leg.length = s;
                leg
            })
            .collect();
        let rotations = keys.iter().map(|k| look_rotation(k.forward)).collect();
        let mut suns = Vec::with_capacity(n);
        for k in keys {
            let s = match k.sun {
                KeySun::Inherit => suns.last().copied().unwrap_or(KeySun::Angles(Sun::default())),
                s => s,
            };
            suns.push(s);
        }
        Film { file, legs, rotations, suns }
    }

    /// The pose at `t` seconds.
    pub fn pose(&self, t: f32) -> Pose {
        let keys = &self.file.keys;
        let at_key = |i: usize| Pose { from: keys[i].from, forward: keys[i].forward, sun: self.sun_of(i, i, 0.0) };
        if t <= keys[0].depart {
            return at_key(0);
        }
        for (i, leg) in self.legs.iter().enumerate() {
            if t < leg.start {
                return at_key(i);
            }
            if t < leg.end {
                let tau = t - leg.start;
                let dur = leg.end - leg.start;
                let s = leg.covered(tau);
                let from = leg.point_at(s);
                let f = if leg.length > 1e-3 {
                    s / leg.length
                } else {
                    let x = tau / dur;
                    if leg.in_out { x * x * (3.0 - 2.0 * x) } else { x }
                };
                let q = slerp(self.rotations[i], self.rotations[i + 1], f);
                return Pose { from, forward: rotate(q, [0.0, 0.0, -1.0]), sun: self.sun_of(i, i + 1, f) };
            }
        }
        at_key(keys.len() - 1)
    }

    fn sun_of(&self, a: usize, b: usize, f: f32) -> Sun {
        let angles = |s: KeySun| match s {
            KeySun::Angles(s) => s,
            KeySun::Hour(h) => Sun::at_hour(h),
            KeySun::Inherit => Sun::default(),
        };
        match (self.suns[a], self.suns[b]) {
            (KeySun::Hour(h0), KeySun::Hour(h1)) => Sun::at_hour(h0 + (h1 - h0) * f),
            (x, y) => {
                let (p, q) = (angles(x), angles(y));
                let turn = (q.azimuth_deg - p.azimuth_deg + 540.0).rem_euclid(360.0) - 180.0;
                Sun {
                    elevation_deg: (p.elevation_deg + (q.elevation_deg - p.elevation_deg) * f).clamp(0.0, 90.0),
                    azimuth_deg: (p.azimuth_deg + turn * f).rem_euclid(360.0),
                }
            }
        }
    }

    /// Frame `i`'s time (s).
    pub fn time_of(&self, frame: u64) -> f32 {
        (frame as f64 / self.file.fps as f64) as f32
    }

    /// Frame `i`'s view: the pose at its time, lifted over the drawn surface where it would dip
    /// under it between keys (`ground(x, z)`: the surface's height there, m; `None` for no lift),
    /// with the film's switches. Also how far it was lifted (m, 0 for none).
    pub fn view(&self, frame: u64, ground: Option<&dyn Fn(f32, f32) -> f32>) -> (View, f32) {
        let t = self.time_of(frame);
        let mut p = self.pose(t);
        let mut lifted = 0.0;
        if let Some(g) = ground {
            let keys = &self.file.keys;
            // The clearance the keys around `t` keep themselves (a key under the water or low over
            // a beach is where the user put it), at most CLEARANCE_M.
            let next = keys.iter().position(|k| k.arrive > t).unwrap_or(keys.len() - 1);
            let prev = next.saturating_sub(1);
            let clear = |k: &Key| k.from[1] - g(k.from[0], k.from[2]);
            let want = clear(&keys[prev]).min(clear(&keys[next])).clamp(0.0, CLEARANCE_M);
            let floor = g(p.from[0], p.from[2]) + want;
            if p.from[1] < floor {
                lifted = floor - p.from[1];
                p.from[1] = floor;
            }
        }
        let at = add(p.from, scale(p.forward, LOOK_AHEAD_M));
        let view = View { from: p.from, at, sun: p.sun, switches: self.file.switches, lod: self.file.lod };
        (view, lifted)
    }
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
