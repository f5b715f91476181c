//! Running a suite: render each view, judge it against its reference on this renderer's
//! thresholds, write the outputs, and bless what was asked — from the renders, or from an
//! earlier run's output folder without rendering ([`bless_from`]).
//!
//! A reference's record, `NAME.bless.json` beside `NAME.png`, says what it was blessed from: the
//! view string, the request and the renderer. A reference without one still works; a reference
//! blessed on another renderer than this run's says so in the report.

use super::file::{Suite, SuiteView};
use super::report::{Report, Status, ViewResult};
use crate::compare;
use crate::renderer::RendererInfo;
use crate::view::View;
use anyhow::Context;
use image::RgbImage;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What renders a view: the app's headless renderer, or a test's stand-in. `Ok` carries the frame
/// and the view string of the pose it used.
pub trait Renderer {
    fn render(&mut self, view: &SuiteView) -> anyhow::Result<(RgbImage, View)>;
    /// The renderer, once it has rendered (`None` where it cannot tell).
    fn info(&mut self) -> Option<RendererInfo> {
        None
    }
}

/// Which references `--bless` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlessMode {
    /// Every view whose bytes differ from its reference (or that has none): `--bless`.
    #[default]
    Changed,
    /// Only the views without a reference.
    New,
    /// Only the views that failed (or could not read their reference).
    Failed,
}

impl BlessMode {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "changed" => Ok(Self::Changed),
            "new" => Ok(Self::New),
            "failed" => Ok(Self::Failed),
            _ => Err(format!("unknown bless mode '{s}' (changed, new, failed)")),
        }
    }

    /// Whether a view whose verdict was `status` is blessed in this mode.
    fn takes(self, status: Status) -> bool {
        match self {
            Self::Changed => true,
            Self::New => status == Status::New,
            Self::Failed => matches!(status, Status::Fail | Status::Error),
        }
    }
}

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    /// Bless the references: `None` to only compare.
    pub bless: Option<BlessMode>,
    /// `K/N` when this run renders one shard (recorded in the report).
    pub shard: Option<String>,
}

/// A reference's record: what it was blessed from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BlessRecord {
    pub view: String,
    pub request: String,
    pub renderer: Option<RendererInfo>,
}

/// The record beside the reference `NAME.png`.
pub fn record_path(reference: &Path) -> PathBuf {
    let name = reference.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    reference.with_file_name(format!("{name}.bless.json"))
}

/// The renderer a reference was blessed on, where its record says.
fn blessed_on(reference: &Path) -> Option<RendererInfo> {
    let bytes = std::fs::read(record_path(reference)).ok()?;
    serde_json::from_slice::<BlessRecord>(&bytes).ok()?.renderer
}

/// Write the reference `ref_path` (when its bytes differ) and its record; whether it was written.
fn write_reference(suite: &Suite, ref_path: &Path, png: &[u8], record: &BlessRecord) -> anyhow::Result<bool> {
    let write = std::fs::read(ref_path).ok().as_deref() != Some(png);
    if write {
        std::fs::create_dir_all(&suite.references)
            .with_context(|| format!("cannot create {}", suite.references.display()))?;
        crate::io::write_png_atomic(ref_path, png)?;
        let json = serde_json::to_string_pretty(record)? + "\n";
        crate::io::write_bytes_atomic(&record_path(ref_path), json.as_bytes())
            .with_context(|| format!("cannot write {}", record_path(ref_path).display()))?;
    }
    Ok(write)
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
    std::fs::create_dir_all(&opts.out).with_context(|| format!("cannot create {}", opts.out.display()))?;
    let mut views = Vec::with_capacity(suite.views.len());
    let mut info: Option<RendererInfo> = None;
    for (i, v) in suite.views.iter().enumerate() {
        let t = Instant::now();
        let mut r = run_view(suite, v, renderer, &mut info, opts)?;
        r.seconds = t.elapsed().as_secs_f64();
        progress(&format!(
            "suite: [{}/{}] {:<16} {:>6.2} s  {:<5} {}{}",
            i + 1,
            suite.views.len(),
            r.name,
            r.seconds,
            r.status.name(),
            if r.blessed == Some(true) { "blessed; " } else { "" },
            r.figures_or_message()
        ));
        views.push(r);
    }
    let mut report = Report::of(suite, info, views, started.elapsed().as_secs_f64());
    report.shard = opts.shard.clone();
    super::report::write(&report, suite, &opts.out)?;
    Ok(report)
}

fn run_view(
    suite: &Suite,
    v: &SuiteView,
    renderer: &mut dyn Renderer,
    info: &mut Option<RendererInfo>,
    opts: &RunOptions,
) -> anyhow::Result<ViewResult> {
    let mut r = ViewResult::new(&v.name, v.request());
    let rendered = renderer.render(v);
    if info.is_none() {
        *info = renderer.info();
    }
    let (actual, view) = match rendered {
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
    let tol = v.tolerance_for(info.as_ref().map(|i| i.text()).as_deref());
    r.tolerance = Some(tol);
    if let (Some(then), Some(now)) = (blessed_on(&ref_path), info.as_ref())
        && !then.same_as(now)
    {
        r.reference_renderer = Some(then);
    }
    (r.status, r.message) = verdict(&ref_path, &actual, v, &tol, &opts.out, &mut r)?;
    if let Some(mode) = opts.bless
        && mode.takes(r.status)
    {
        let record = BlessRecord { view: view.to_string(), request: v.request(), renderer: info.clone() };
        r.blessed = Some(write_reference(suite, &ref_path, &png, &record)?);
        r.was = Some(r.status);
        r.status = Status::Pass;
        r.message = None;
        r.reference_renderer = None;
        r.files.reference = Some(ref_path);
    }
    Ok(r)
}

/// The verdict against the reference at `ref_path` (and the difference image, where one exists).
fn verdict(
    ref_path: &Path,
    actual: &RgbImage,
    v: &SuiteView,
    tol: &compare::Tolerance,
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
    let (m, de, flip, ignored) = match compare::compare_masked(&reference, actual, tol, &v.ignore) {
        Ok(x) => x,
        Err(why) => return Ok((Status::Fail, Some(why))),
    };
    r.metrics = serde_json::to_value(m)?;
    r.figures = Some(m);
    let heat = compare::heat_map(&reference, &de, tol.delta_e, &ignored);
    let diff_path = out.join(format!("{}.diff.png", v.name));
    crate::io::write_png_atomic(&diff_path, &crate::io::encode_png_rgb(heat.as_raw(), heat.width(), heat.height())?)?;
    r.files.diff = Some(diff_path);
    Ok(match m.failure(tol) {
        Some(why) => {
            let hint =
                compare::pass_at(&m, &de, &flip, &ignored, tol).map_or(String::new(), |h| format!("; passes at {h}"));
            (Status::Fail, Some(format!("{why}{hint}")))
        }
        None => (Status::Pass, None),
    })
}

/// What `--bless-from` did: the views whose references were written, and those that already
/// matched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlessedFrom {
    pub written: Vec<String>,
    pub unchanged: Vec<String>,
    /// Views the mode left alone (`--bless=new` and the view had a reference, say).
    pub skipped: Vec<String>,
}

/// Bless `suite`'s views (those selected) from the images of an earlier run's output folder
/// `dir`, without rendering. Refused (`Err`, one line, nothing written) unless `dir`'s report
/// was made from this suite file and holds every selected view with its image and the same
/// request. `mode` picks views by their status in that run.
pub fn bless_from(suite: &Suite, dir: &Path, mode: BlessMode) -> Result<BlessedFrom, String> {
    let report = Report::read(dir)?;
    // Every check before the first write. A selected view that `dir`'s run rendered for another
    // request is named with both requests before the fingerprints are compared: that change
    // alters the fingerprint too, and the view says more than two hashes.
    for v in &suite.views {
        if let Some(r) = report.views.iter().find(|r| r.name == v.name)
            && r.request != v.request()
        {
            return Err(format!(
                "{}: view '{}' was rendered from '{}', the suite asks for '{}'",
                dir.display(),
                v.name,
                r.request,
                v.request()
            ));
        }
    }
    report.check_suite(suite, dir)?;
    let mut plan = Vec::new();
    for v in &suite.views {
        let Some(r) = report.views.iter().find(|r| r.name == v.name) else {
            return Err(format!(
                "{}: has no view '{}' (a shard's folder? merge the shards first)",
                dir.display(),
                v.name
            ));
        };
        let status = r.was.unwrap_or(r.status);
        if !mode.takes(status) || (mode == BlessMode::New && suite.references.join(format!("{}.png", v.name)).exists())
        {
            plan.push((v, r, None));
            continue;
        }
        let image = dir.join(format!("{}.png", v.name));
        let png = std::fs::read(&image).map_err(|e| format!("{}: cannot read: {e}", image.display()))?;
        match image::load_from_memory_with_format(&png, image::ImageFormat::Png) {
            Ok(i) if (i.width(), i.height()) == (v.width, v.height) => {}
            Ok(i) => {
                return Err(format!(
                    "{}: {}×{}, the view is {}×{}",
                    image.display(),
                    i.width(),
                    i.height(),
                    v.width,
                    v.height
                ));
            }
            Err(e) => return Err(format!("{}: not a PNG: {e}", image.display())),
        }
        plan.push((v, r, Some(png)));
    }
    let mut done = BlessedFrom::default();
    for (v, r, png) in plan {
        let Some(png) = png else {
            done.skipped.push(v.name.clone());
            continue;
        };
        let ref_path = suite.references.join(format!("{}.png", v.name));
        let record = BlessRecord {
            view: r.view.clone().unwrap_or_default(),
            request: v.request(),
            renderer: report.renderer.clone(),
        };
        let wrote = write_reference(suite, &ref_path, &png, &record).map_err(|e| format!("{e:#}"))?;
        if wrote { &mut done.written } else { &mut done.unchanged }.push(v.name.clone());
    }
    Ok(done)
}
