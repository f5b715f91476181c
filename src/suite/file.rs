//! A suite file, read and checked ([`Suite::load`]): its blueprint, references, views and each
//! view's thresholds per renderer. A bad file is refused in one line before anything renders or
//! is written.

use crate::compare::Tolerance;
use crate::view::{Preset, Sun, Switches, View};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// A suite file refused: one line naming the file, the key or view, and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError(pub String);

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::io::one_line(&self.0))
    }
}

impl std::error::Error for SuiteError {}

/// Default frame size of a suite's views.
pub const DEFAULT_WIDTH: u32 = 960;
pub const DEFAULT_HEIGHT: u32 = 540;
/// Largest frame side a suite may ask for (the renderer's own limit).
pub const MAX_SIDE: u32 = 8192;
/// Largest suite file read (a suite of thousands of views is a few hundred KiB).
pub const MAX_SUITE_BYTES: u64 = 4 << 20;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    blueprint: String,
    references: Option<String>,
    width: Option<u32>,
    height: Option<u32>,
    view_distance: Option<f32>,
    tolerance: Option<RawTolerance>,
    #[serde(default)]
    view: Vec<RawView>,
}

/// `[tolerance]` (or a view's): the thresholds, and `[tolerance.renderer."PATTERN"]` tables that
/// refine them on the renderers whose text the pattern matches.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawTolerance {
    min_similarity: Option<f64>,
    flip: Option<f64>,
    max_flip_changed: Option<f64>,
    max_mean_flip: Option<f64>,
    delta_e: Option<f64>,
    max_changed: Option<f64>,
    max_mean_delta_e: Option<f64>,
    renderer: Option<BTreeMap<String, ToleranceOverlay>>,
}

impl RawTolerance {
    fn values(&self) -> ToleranceOverlay {
        ToleranceOverlay {
            min_similarity: self.min_similarity,
            flip: self.flip,
            max_flip_changed: self.max_flip_changed,
            max_mean_flip: self.max_mean_flip,
            delta_e: self.delta_e,
            max_changed: self.max_changed,
            max_mean_delta_e: self.max_mean_delta_e,
        }
    }
}

/// Thresholds that replace those they name, leaving the rest as they were.
#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToleranceOverlay {
    pub min_similarity: Option<f64>,
    pub flip: Option<f64>,
    pub max_flip_changed: Option<f64>,
    pub max_mean_flip: Option<f64>,
    pub delta_e: Option<f64>,
    pub max_changed: Option<f64>,
    pub max_mean_delta_e: Option<f64>,
}

impl ToleranceOverlay {
    pub fn over(self, base: Tolerance) -> Tolerance {
        Tolerance {
            min_similarity: self.min_similarity.unwrap_or(base.min_similarity),
            flip: self.flip.unwrap_or(base.flip),
            max_flip_changed: self.max_flip_changed.unwrap_or(base.max_flip_changed),
            max_mean_flip: self.max_mean_flip.unwrap_or(base.max_mean_flip),
            delta_e: self.delta_e.unwrap_or(base.delta_e),
            max_changed: self.max_changed.unwrap_or(base.max_changed),
            max_mean_delta_e: self.max_mean_delta_e.unwrap_or(base.max_mean_delta_e),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawView {
    name: String,
    preset: Option<String>,
    view: Option<String>,
    look_from: Option<[f32; 3]>,
    look_at: Option<[f32; 3]>,
    sun_elevation: Option<f32>,
    sun_azimuth: Option<f32>,
    off: Option<Vec<String>>,
    on: Option<Vec<String>>,
    shading: Option<String>,
    lod: Option<String>,
    width: Option<u32>,
    height: Option<u32>,
    tolerance: Option<RawTolerance>,
    /// Regions of the frame the comparison leaves out: `[x, y, w, h]` in pixels.
    ignore: Option<Vec<[u32; 4]>>,
}

/// Where a view's camera is: a preset (placed by the app on the island) or an explicit pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pose {
    Preset(Preset),
    Look { from: [f32; 3], at: [f32; 3] },
}

/// One view of a suite, every setting resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteView {
    pub name: String,
    pub pose: Pose,
    pub sun: Sun,
    pub switches: Switches,
    pub lod: bool,
    pub width: u32,
    pub height: u32,
    /// The thresholds on any renderer: the defaults, refined by the file's `[tolerance]` and the
    /// view's own.
    pub tolerance: Tolerance,
    /// Refinements for renderers whose text matches the pattern, weakest first: the file's, then
    /// the view's, each in order of pattern length ([`SuiteView::tolerance_for`]).
    pub renderer_tolerance: Vec<(String, ToleranceOverlay)>,
    /// Rectangles `[x, y, w, h]` (pixels) the comparison leaves out.
    pub ignore: Vec<[u32; 4]>,
}

impl SuiteView {
    /// The thresholds on the renderer described by `renderer` ([`RendererInfo::text`]): the
    /// view's tolerance, then every matching `[tolerance.renderer."PATTERN"]`, the file's before
    /// the view's and a shorter pattern before a longer, so the most specific says last.
    pub fn tolerance_for(&self, renderer: Option<&str>) -> Tolerance {
        let Some(text) = renderer else { return self.tolerance };
        self.renderer_tolerance
            .iter()
            .filter(|(pattern, _)| pattern_matches(pattern, text))
            .fold(self.tolerance, |t, (_, o)| o.over(t))
    }

    /// What was asked of the renderer, in one line: the pose (a preset's name or the camera), the
    /// sun, the switches, level of detail, the frame size and the masks. Two runs of the same
    /// request render the same frame, so an earlier run's images can be blessed for it.
    pub fn request(&self) -> String {
        let mut v = View { from: [0.0; 3], at: [0.0; 3], sun: self.sun, switches: self.switches, lod: self.lod };
        let pose = match self.pose {
            Pose::Preset(p) => format!("preset={}", p.name()),
            Pose::Look { from, at } => {
                (v.from, v.at) = (from, at);
                String::new()
            }
        };
        let mut s = v.to_string();
        if !pose.is_empty() {
            // The placeholder camera replaced by the preset's name.
            s = s.replacen(";from=0,0,0;at=0,0,0", &format!(";{pose}"), 1);
        }
        s.push_str(&format!(";size={}x{}", self.width, self.height));
        for [x, y, w, h] in &self.ignore {
            s.push_str(&format!(";ignore={x},{y},{w},{h}"));
        }
        s
    }
}

/// Whether a renderer pattern matches a renderer's text: case-insensitively, `*` standing for any
/// run of characters; a pattern without `*` matches anywhere in the text.
pub fn pattern_matches(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.to_lowercase(), text.to_lowercase());
    if !p.contains('*') {
        return t.contains(&p);
    }
    let parts: Vec<&str> = p.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !t.starts_with(first) || t.len() < first.len() + last.len() || !t.ends_with(last) {
        return false;
    }
    let mut rest = &t[first.len()..t.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// A checked suite file.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The suite file itself.
    pub path: PathBuf,
    pub blueprint: PathBuf,
    /// The folder of `NAME.png` references.
    pub references: PathBuf,
    /// With level of detail off: chunks within this distance are drawn (m).
    pub view_distance_m: Option<f32>,
    pub views: Vec<SuiteView>,
    /// The blueprint's name and size, then every view of the file (before `--only` or `--shard`
    /// pick some) by [`SuiteView::request`]: what [`Suite::fingerprint`] is made of.
    all_requests: Vec<String>,
}

/// A file name a view may have: it names `NAME.png` files.
fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && !name.ends_with(".diff")
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "name '{name}' must be 1–64 of A-Z a-z 0-9 - _ . (it names the view's files), not starting with '.' nor ending in '.diff'"
        ))
    }
}

fn check_side(key: &str, v: u32) -> Result<u32, String> {
    if (1..=MAX_SIDE).contains(&v) { Ok(v) } else { Err(format!("{key} {v} is outside 1..={MAX_SIDE}")) }
}

impl Suite {
    /// Read and check a suite file. Every refusal is one line: the file, the key or view, and the
    /// problem. Paths in the file are relative to the file's folder.
    pub fn load(path: &Path) -> Result<Suite, SuiteError> {
        let text = crate::io::read_text_bounded(path, MAX_SUITE_BYTES, "a suite file").map_err(SuiteError)?;
        Self::parse(path, &text)
    }

    /// [`Suite::load`] from text already read.
    pub fn parse(path: &Path, text: &str) -> Result<Suite, SuiteError> {
        let shown = path.display().to_string();
        let raw: RawSuite = toml::from_str(text).map_err(|e| SuiteError(crate::io::toml_refusal(&shown, text, &e)))?;
        let err = |what: String| SuiteError(format!("{shown}: {what}"));
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let blueprint = dir.join(&raw.blueprint);
        if !blueprint.is_file() {
            return Err(err(format!("blueprint: {} does not exist", blueprint.display())));
        }
        let references = dir.join(raw.references.as_deref().unwrap_or("refs"));
        let width = check_side("width", raw.width.unwrap_or(DEFAULT_WIDTH)).map_err(err)?;
        let height = check_side("height", raw.height.unwrap_or(DEFAULT_HEIGHT)).map_err(err)?;
        if let Some(d) = raw.view_distance
            && !(d.is_finite() && d > 0.0)
        {
            return Err(err(format!("view_distance must be a positive number of metres, got {d}")));
        }
        let suite_tol = raw.tolerance.unwrap_or_default();
        let tolerance = suite_tol.values().over(Tolerance::default());
        tolerance.check().map_err(|e| err(format!("tolerance: {e}")))?;
        let suite_overlays = renderer_overlays(&suite_tol, tolerance).map_err(|e| err(format!("tolerance: {e}")))?;
        if raw.view.is_empty() {
            return Err(err("no [[view]]: a suite needs at least one view".into()));
        }
        let mut views: Vec<SuiteView> = Vec::with_capacity(raw.view.len());
        for (i, v) in raw.view.into_iter().enumerate() {
            let label = format!("view '{}' ([[view]] #{})", v.name, i + 1);
            let resolved =
                resolve_view(v, width, height, tolerance, &suite_overlays).map_err(|e| err(format!("{label}: {e}")))?;
            if views.iter().any(|o| o.name == resolved.name) {
                return Err(err(format!("{label}: name '{}' is given twice", resolved.name)));
            }
            views.push(resolved);
        }
        // The blueprint (its file name and size) is part of what the views render.
        let bytes = std::fs::metadata(&blueprint).map_or(0, |m| m.len());
        let name = blueprint.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let mut all_requests = vec![format!("blueprint|{name}|{bytes}")];
        all_requests.extend(views.iter().map(|v| format!("{}|{}", v.name, v.request())));
        Ok(Suite {
            path: path.to_path_buf(),
            blueprint,
            references,
            view_distance_m: raw.view_distance,
            views,
            all_requests,
        })
    }

    /// Keep only the views named in `only` (all of them when empty); an unknown name is refused.
    pub fn select(&mut self, only: &[String]) -> Result<(), SuiteError> {
        if only.is_empty() {
            return Ok(());
        }
        if let Some(missing) = only.iter().find(|n| !self.views.iter().any(|v| &v.name == *n)) {
            return Err(SuiteError(format!("--only: {} has no view named '{missing}'", self.path.display())));
        }
        self.views.retain(|v| only.contains(&v.name));
        Ok(())
    }

    /// What identifies this suite file's views, whichever of them a run renders: a hash (FNV-1a,
    /// 64 bits, hex) of the blueprint's file name and size and every view's name and request in
    /// file order. Outputs with another
    /// fingerprint come from another suite file (or another version of it).
    pub fn fingerprint(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for r in &self.all_requests {
            for b in r.bytes().chain(std::iter::once(b'\n')) {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
        format!("{h:016x}")
    }

    /// How many views the file has, before any selection.
    pub fn file_views(&self) -> usize {
        self.all_requests.len() - 1
    }

    /// Whether `out` is the references folder: a render written there would replace its own
    /// reference, a bless without `--bless`.
    pub fn out_is_references(&self, out: &Path) -> bool {
        relative_path(&self.references, out).is_empty()
    }

    /// Where outputs go by default: `suite-out` beside the suite file.
    pub fn default_out(&self) -> PathBuf {
        self.path.parent().map(Path::to_path_buf).unwrap_or_default().join("suite-out")
    }
}

/// The `[tolerance.renderer."PATTERN"]` tables of `raw`, each checked over `base`, shorter
/// patterns first.
fn renderer_overlays(raw: &RawTolerance, base: Tolerance) -> Result<Vec<(String, ToleranceOverlay)>, String> {
    let mut out: Vec<(String, ToleranceOverlay)> = Vec::new();
    for (pattern, o) in raw.renderer.iter().flatten() {
        if pattern.trim().is_empty() || pattern.len() > 200 {
            return Err(format!("renderer pattern '{pattern}' must be 1–200 characters"));
        }
        o.over(base).check().map_err(|e| format!("renderer \"{pattern}\": {e}"))?;
        out.push((pattern.clone(), *o));
    }
    out.sort_by_key(|(p, _)| p.len());
    Ok(out)
}

/// Each `ignore` rectangle inside the `width × height` frame and not empty.
fn check_masks(masks: &[[u32; 4]], width: u32, height: u32) -> Result<(), String> {
    for &[x, y, w, h] in masks {
        if w == 0 || h == 0 {
            return Err(format!("ignore: [{x}, {y}, {w}, {h}] is empty (width and height must be at least 1)"));
        }
        if x as u64 + w as u64 > width as u64 || y as u64 + h as u64 > height as u64 {
            return Err(format!("ignore: [{x}, {y}, {w}, {h}] reaches outside the {width}×{height} frame"));
        }
    }
    Ok(())
}

fn resolve_view(
    v: RawView,
    width: u32,
    height: u32,
    tol: Tolerance,
    suite_overlays: &[(String, ToleranceOverlay)],
) -> Result<SuiteView, String> {
    check_name(&v.name)?;
    let poses = [v.preset.is_some(), v.view.is_some(), v.look_from.is_some() || v.look_at.is_some()];
    match poses.iter().filter(|p| **p).count() {
        0 => return Err("no pose: give one of preset, view (a view string), or look_from with look_at".into()),
        1 => {}
        _ => return Err("more than one pose: give only one of preset, view, or look_from with look_at".into()),
    }
    let (mut sun, mut switches, mut lod) = (Sun::default(), Switches::default(), true);
    let pose = if let Some(p) = &v.preset {
        Pose::Preset(
            Preset::from_name(p)
                .ok_or_else(|| format!("preset: unknown preset '{p}' (overview, coast, crater, underwater)"))?,
        )
    } else if let Some(s) = &v.view {
        let parsed: View = s.parse().map_err(|e| format!("view: {e}"))?;
        (sun, switches, lod) = (parsed.sun, parsed.switches, parsed.lod);
        Pose::Look { from: parsed.from, at: parsed.at }
    } else {
        let (Some(from), Some(at)) = (v.look_from, v.look_at) else {
            return Err(format!(
                "{} without {}",
                if v.look_from.is_some() { "look_from" } else { "look_at" },
                if v.look_from.is_some() { "look_at" } else { "look_from" }
            ));
        };
        crate::view::check_pose(from, at).map_err(|e| format!("look_from/look_at: {e}"))?;
        Pose::Look { from, at }
    };
    // The view's own keys refine what its pose (a view string) says.
    sun = Sun::new(v.sun_elevation.unwrap_or(sun.elevation_deg), v.sun_azimuth.unwrap_or(sun.azimuth_deg))
        .map_err(|e| format!("sun_elevation/sun_azimuth: {e}"))?;
    switches.refine(v.off.as_deref().unwrap_or_default(), v.on.as_deref().unwrap_or_default(), v.shading.as_deref())?;
    if let Some(l) = &v.lod {
        lod = crate::view::lod_key(l)?;
    }
    let view_tol = v.tolerance.unwrap_or_default();
    let tolerance = view_tol.values().over(tol);
    tolerance.check().map_err(|e| format!("tolerance: {e}"))?;
    let mut renderer_tolerance = suite_overlays.to_vec();
    renderer_tolerance.extend(renderer_overlays(&view_tol, tolerance).map_err(|e| format!("tolerance: {e}"))?);
    let width = check_side("width", v.width.unwrap_or(width))?;
    let height = check_side("height", v.height.unwrap_or(height))?;
    let ignore = v.ignore.unwrap_or_default();
    if ignore.len() > 256 {
        return Err(format!("ignore: {} rectangles; at most 256", ignore.len()));
    }
    check_masks(&ignore, width, height)?;
    Ok(SuiteView { name: v.name, pose, sun, switches, lod, width, height, tolerance, renderer_tolerance, ignore })
}

/// `to` relative to the folder `from` (both made absolute and normalised lexically), with `/`.
pub fn relative_path(from: &Path, to: &Path) -> String {
    let norm = |p: &Path| -> Vec<String> {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let mut out: Vec<String> = Vec::new();
        for c in abs.components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::Normal(s) => out.push(s.to_string_lossy().into_owned()),
                _ => {}
            }
        }
        out
    };
    let (a, b) = (norm(from), norm(to));
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(b[common..].iter().cloned());
    parts.join("/")
}
