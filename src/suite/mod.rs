//! Screenshot suites (SPEC §8 "Suites"): a TOML file of named views of one blueprint, each
//! rendered, compared with its reference under [`crate::compare`], and reported — `NAME.png`,
//! `NAME.diff.png`, `report.json` and `report.html` — with `--bless` the only way a reference is
//! ever written.
//!
//! This module reads and checks the file ([`Suite::load`]) and runs a suite against any
//! [`Renderer`] ([`run`]): the app's headless renderer in `isla suite`, a fake one in the
//! Bevy-free tests. A bad file is refused before anything renders or is written.

use crate::compare::{self, Metrics, Tolerance};
use crate::mesh::Shading;
use crate::view::{Preset, Sun, Switches, View};
use image::RgbImage;
use serde::Deserialize;
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

/// A suite file refused: one line naming the file, the key or view, and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError(pub String);

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
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

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct RawTolerance {
    min_similarity: Option<f64>,
    delta_e: Option<f64>,
    max_changed: Option<f64>,
    max_mean_delta_e: Option<f64>,
}

impl RawTolerance {
    fn over(self, base: Tolerance) -> Tolerance {
        Tolerance {
            min_similarity: self.min_similarity.unwrap_or(base.min_similarity),
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
    pub tolerance: Tolerance,
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
}

/// Line and column (1-based) of byte `at` in `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
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
        let shown = path.display().to_string();
        let len = std::fs::metadata(path).map_err(|e| SuiteError(format!("{shown}: cannot read: {e}")))?.len();
        if len > MAX_SUITE_BYTES {
            return Err(SuiteError(format!("{shown}: {len} bytes; a suite file is at most {MAX_SUITE_BYTES}")));
        }
        let text = std::fs::read_to_string(path).map_err(|e| SuiteError(format!("{shown}: cannot read: {e}")))?;
        Self::parse(path, &text)
    }

    /// [`Suite::load`] from text already read.
    pub fn parse(path: &Path, text: &str) -> Result<Suite, SuiteError> {
        let shown = path.display().to_string();
        let raw: RawSuite = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|s| line_col(text, s.start));
            let msg = e.message().lines().next().unwrap_or("malformed TOML").trim_end().to_string();
            SuiteError(match at {
                Some((l, c)) => format!("{shown}:{l}:{c}: {msg}"),
                None => format!("{shown}: {msg}"),
            })
        })?;
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
        let tolerance = raw.tolerance.unwrap_or_default().over(Tolerance::default());
        tolerance.check().map_err(|e| err(format!("tolerance: {e}")))?;
        if raw.view.is_empty() {
            return Err(err("no [[view]]: a suite needs at least one view".into()));
        }
        let mut views: Vec<SuiteView> = Vec::with_capacity(raw.view.len());
        for (i, v) in raw.view.into_iter().enumerate() {
            let label = format!("view '{}' ([[view]] #{})", v.name, i + 1);
            let resolved = resolve_view(v, width, height, tolerance).map_err(|e| err(format!("{label}: {e}")))?;
            if views.iter().any(|o| o.name == resolved.name) {
                return Err(err(format!("{label}: name '{}' is given twice", resolved.name)));
            }
            views.push(resolved);
        }
        Ok(Suite { path: path.to_path_buf(), blueprint, references, view_distance_m: raw.view_distance, views })
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

fn resolve_view(v: RawView, width: u32, height: u32, tol: Tolerance) -> Result<SuiteView, String> {
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
    for name in v.off.iter().flatten() {
        switches.turn_off(name).map_err(|e| format!("off: {e}"))?;
    }
    for name in v.on.iter().flatten() {
        switches.turn_on(name).map_err(|e| format!("on: {e}"))?;
    }
    if let Some(s) = &v.shading {
        switches.shading = Shading::from_name(s)
            .ok_or_else(|| format!("shading: unknown shading '{s}' (palette, normals, materials)"))?;
    }
    if let Some(l) = &v.lod {
        lod = match l.as_str() {
            "on" => true,
            "off" => false,
            _ => return Err(format!("lod: expected \"on\" or \"off\", got '{l}'")),
        };
    }
    let tolerance = v.tolerance.unwrap_or_default().over(tol);
    tolerance.check().map_err(|e| format!("tolerance: {e}"))?;
    Ok(SuiteView {
        name: v.name,
        pose,
        sun,
        switches,
        lod,
        width: check_side("width", v.width.unwrap_or(width))?,
        height: check_side("height", v.height.unwrap_or(height))?,
        tolerance,
    })
}

/// What renders a view: the app's headless renderer, or a test's stand-in. `Ok` carries the frame
/// and the view string of the pose it used.
pub trait Renderer {
    fn render(&mut self, view: &SuiteView) -> anyhow::Result<(RgbImage, View)>;
}

/// A view's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    New,
    Error,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::New => "new",
            Status::Error => "error",
        }
    }
    /// Worst first in the report.
    fn rank(self) -> u8 {
        match self {
            Status::Error => 0,
            Status::Fail => 1,
            Status::New => 2,
            Status::Pass => 3,
        }
    }
}

/// One view's outcome.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ViewResult {
    pub name: String,
    pub status: Status,
    /// The comparison's figures; empty for a view without a reference or that did not render.
    pub metrics: serde_json::Value,
    /// Wall time of the view: render, readback, comparison and writing.
    pub seconds: f64,
    /// Why it failed or errored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The view string of what was rendered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
    /// With `--bless`: whether the reference was (re)written, and `was`, the verdict against the
    /// old one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blessed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was: Option<Status>,
    #[serde(skip)]
    figures: Option<Metrics>,
    #[serde(skip)]
    files: Files,
}

#[derive(Debug, Clone, Default)]
struct Files {
    actual: Option<PathBuf>,
    reference: Option<PathBuf>,
    diff: Option<PathBuf>,
}

/// What `run` did, and the exit status it calls for.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub views: Vec<ViewResult>,
    pub passed: usize,
    /// Views that did not pass: failed, errored, or without a reference.
    pub failed: usize,
    pub new: usize,
    pub errors: usize,
    /// Wall time of the whole run (s), start-up included.
    pub seconds: f64,
}

impl Report {
    /// 0 when every view passed, else 1.
    pub fn exit_code(&self) -> u8 {
        if self.failed == 0 { 0 } else { 1 }
    }
}

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    pub bless: bool,
}

/// Render every view of `suite` with `renderer`, compare, write the outputs under `opts.out`
/// and, with `bless`, the references. `progress` gets one line per view as it finishes.
pub fn run(
    suite: &Suite,
    renderer: &mut dyn Renderer,
    opts: &RunOptions,
    started: Instant,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<Report> {
    use anyhow::Context;
    std::fs::create_dir_all(&opts.out).with_context(|| format!("cannot create {}", opts.out.display()))?;
    let mut views = Vec::with_capacity(suite.views.len());
    for (i, v) in suite.views.iter().enumerate() {
        let t = Instant::now();
        let mut r = run_view(suite, v, renderer, opts)?;
        r.seconds = t.elapsed().as_secs_f64();
        let figures = match (&r.message, &r.figures) {
            (Some(m), _) => m.clone(),
            (None, Some(f)) => f.summary(),
            (None, None) => String::new(),
        };
        progress(&format!(
            "suite: [{}/{}] {:<16} {:>6.2} s  {:<5} {}{}",
            i + 1,
            suite.views.len(),
            r.name,
            r.seconds,
            r.status.name(),
            if r.blessed == Some(true) { "blessed; " } else { "" },
            figures
        ));
        views.push(r);
    }
    let count = |s: Status| views.iter().filter(|v| v.status == s).count();
    let (passed, new, errors) = (count(Status::Pass), count(Status::New), count(Status::Error));
    let report =
        Report { passed, failed: views.len() - passed, new, errors, seconds: started.elapsed().as_secs_f64(), views };
    write_report(&report, suite, &opts.out)?;
    Ok(report)
}

fn run_view(
    suite: &Suite,
    v: &SuiteView,
    renderer: &mut dyn Renderer,
    opts: &RunOptions,
) -> anyhow::Result<ViewResult> {
    let mut r = ViewResult {
        name: v.name.clone(),
        status: Status::Error,
        metrics: serde_json::json!({}),
        seconds: 0.0,
        message: None,
        view: None,
        blessed: None,
        was: None,
        figures: None,
        files: Files::default(),
    };
    let (actual, view) = match renderer.render(v) {
        Ok(x) => x,
        Err(e) => {
            r.message = Some(format!("render failed: {e:#}"));
            return Ok(r);
        }
    };
    r.view = Some(view.to_string());
    let png = crate::io::encode_png_rgb(actual.as_raw(), actual.width(), actual.height())?;
    let actual_path = opts.out.join(format!("{}.png", v.name));
    crate::io::write_png_atomic(&actual_path, &png)?;
    r.files.actual = Some(actual_path);
    let ref_path = suite.references.join(format!("{}.png", v.name));
    (r.status, r.message) = verdict(&ref_path, &actual, v, &opts.out, &mut r)?;
    if opts.bless {
        let old = std::fs::read(&ref_path).ok();
        let write = old.as_deref() != Some(&png[..]);
        if write {
            std::fs::create_dir_all(&suite.references)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", suite.references.display()))?;
            crate::io::write_png_atomic(&ref_path, &png)?;
        }
        r.blessed = Some(write);
        r.was = Some(r.status);
        r.status = Status::Pass;
        r.message = None;
        r.files.reference = Some(ref_path);
    }
    Ok(r)
}

/// The verdict against the reference at `ref_path` (and the difference image, where one exists).
fn verdict(
    ref_path: &Path,
    actual: &RgbImage,
    v: &SuiteView,
    out: &Path,
    r: &mut ViewResult,
) -> anyhow::Result<(Status, Option<String>)> {
    if !ref_path.exists() {
        return Ok((
            Status::New,
            Some(format!("no reference {}; bless with --bless after looking", ref_path.display())),
        ));
    }
    // The header first: a reference of another size fails without being decoded (a corrupt or
    // hostile file never makes the runner allocate more than the render it is compared with).
    match image::image_dimensions(ref_path) {
        Ok(d) if d != actual.dimensions() => {
            let ((rw, rh), (aw, ah)) = (d, actual.dimensions());
            r.files.reference = Some(ref_path.to_path_buf());
            return Ok((Status::Fail, Some(format!("the reference is {rw}×{rh}, the render {aw}×{ah}"))));
        }
        Ok(_) => {}
        Err(e) => return Ok((Status::Error, Some(format!("cannot read the reference {}: {e}", ref_path.display())))),
    }
    let reference = match image::open(ref_path) {
        Ok(i) => i.to_rgb8(),
        Err(e) => return Ok((Status::Error, Some(format!("cannot read the reference {}: {e}", ref_path.display())))),
    };
    r.files.reference = Some(ref_path.to_path_buf());
    let (m, de) = match compare::compare(&reference, actual, &v.tolerance) {
        Ok(x) => x,
        Err(why) => return Ok((Status::Fail, Some(why))),
    };
    r.metrics = serde_json::to_value(m)?;
    r.figures = Some(m);
    let heat = compare::heat_map(&reference, &de, v.tolerance.delta_e);
    let diff_path = out.join(format!("{}.diff.png", v.name));
    crate::io::write_png_atomic(&diff_path, &crate::io::encode_png_rgb(heat.as_raw(), heat.width(), heat.height())?)?;
    r.files.diff = Some(diff_path);
    Ok(match m.failure(&v.tolerance) {
        Some(why) => (Status::Fail, Some(why)),
        None => (Status::Pass, None),
    })
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

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn write_report(report: &Report, suite: &Suite, out: &Path) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(report)?;
    crate::io::write_bytes_atomic(&out.join("report.json"), json.as_bytes())?;
    let mut rows: Vec<&ViewResult> = report.views.iter().collect();
    let score = |v: &ViewResult| v.figures.map_or(1.0, |m| m.similarity);
    rows.sort_by(|a, b| a.status.rank().cmp(&b.status.rank()).then(score(a).total_cmp(&score(b))));
    let cell = |p: &Option<PathBuf>, what: &str| match p {
        Some(p) => {
            let rel = html_escape(&relative_path(out, p));
            format!("<td><a href=\"{rel}\"><img src=\"{rel}\" alt=\"{what}\"></a></td>")
        }
        None => format!("<td class=\"none\">no {what}</td>"),
    };
    let mut html = String::new();
    html.push_str(&format!(
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>Isla suite: {name}</title>\n<style>\n\
         body {{ font: 14px system-ui, sans-serif; margin: 1em; }} table {{ border-collapse: collapse; }}\n\
         td, th {{ border: 1px solid #ccc; padding: 4px; vertical-align: top; }} img {{ width: 320px; }}\n\
         td:first-child {{ width: 300px; }} code {{ word-break: break-all; font-size: 12px; }}\n\
         .pass {{ color: #161; }} .fail, .error {{ color: #b11; font-weight: bold; }} .new {{ color: #a60; }}\n\
         .none {{ color: #888; }}\n</style>\n<h1>{name}</h1>\n<p>{} views: {} passed, {} failed ({} without a reference, {} errors) in {:.1} s. \
         Blueprint {}.</p>\n<table>\n<tr><th>view</th><th>reference</th><th>actual</th><th>difference (ΔE)</th></tr>\n",
        report.views.len(),
        report.passed,
        report.failed,
        report.new,
        report.errors,
        report.seconds,
        html_escape(&suite.blueprint.display().to_string()),
        name = html_escape(&suite.path.display().to_string()),
    ));
    for v in rows {
        let status = v.status.name();
        let mut about = format!("<b>{}</b><br><span class=\"{status}\">{status}</span>", html_escape(&v.name));
        if v.blessed == Some(true) {
            about.push_str(&format!(" (blessed; was {})", v.was.map_or("-", |w| w.name())));
        }
        about.push_str(&format!("<br>{:.2} s", v.seconds));
        if let Some(m) = &v.figures {
            about.push_str(&format!("<br>{}", html_escape(&m.summary())));
        }
        if let Some(msg) = &v.message {
            about.push_str(&format!("<br>{}", html_escape(msg)));
        }
        if let Some(s) = &v.view {
            about.push_str(&format!("<br><code>{}</code>", html_escape(s)));
        }
        html.push_str(&format!(
            "<tr><td>{about}</td>{}{}{}</tr>\n",
            cell(&v.files.reference, "reference"),
            cell(&v.files.actual, "image"),
            cell(&v.files.diff, "difference")
        ));
    }
    html.push_str("</table>\n");
    crate::io::write_bytes_atomic(&out.join("report.html"), html.as_bytes())?;
    Ok(())
}
