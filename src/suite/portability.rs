//! Whether a suite is portable across renderers (`isla suite FILE --renderers A,B,…`): every view
//! rendered on each renderer, the first renderer's frame taken as the reference a team would
//! bless there, and each other renderer's frame judged against it on that renderer's thresholds —
//! what CI would say after a change of renderer, known before CI says it.

use super::file::Suite;
use super::report::Report;
use crate::compare::{self, Metrics, Tolerance};
use crate::renderer::RendererInfo;
use std::path::{Path, PathBuf};

/// One view across one change of renderer.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Change {
    pub view: String,
    /// The renderer that would bless (the first), and the one that would check.
    pub from: String,
    pub to: String,
    /// The difference between the two renderers' frames; `None` where one did not render.
    pub metrics: Option<Metrics>,
    /// The thresholds the view has on the checking renderer.
    pub tolerance: Tolerance,
    /// Whether the view would pass there.
    pub portable: bool,
    /// Why it would not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What a portability run found.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Portability {
    /// Each renderer as asked for and as the adapter named itself.
    pub renderers: Vec<(String, Option<RendererInfo>)>,
    pub changes: Vec<Change>,
    /// The views that would fail on some change of renderer, in the suite's order.
    pub not_portable: Vec<String>,
}

impl Portability {
    /// 0 when every view is portable, else 1.
    pub fn exit_code(&self) -> u8 {
        if self.not_portable.is_empty() { 0 } else { 1 }
    }
}

/// A renderer's run: the name it was asked for, and the `--out` folder of its `isla suite` run.
pub struct RendererRun {
    pub name: String,
    pub dir: PathBuf,
}

/// Judge `suite`'s views across the runs in `runs` (at least two; the first is the reference).
/// A run's folder must hold a report of this suite file (else `Err`, one line).
pub fn judge(suite: &Suite, runs: &[RendererRun]) -> Result<Portability, String> {
    let reports: Vec<Report> = runs
        .iter()
        .map(|r| {
            let rep = Report::read(&r.dir)?;
            rep.check_suite(suite, &r.dir)?;
            Ok(rep)
        })
        .collect::<Result<_, String>>()?;
    let renderers = runs.iter().zip(&reports).map(|(r, rep)| (r.name.clone(), rep.renderer.clone())).collect();
    let mut changes = Vec::new();
    let mut not_portable = Vec::new();
    for v in &suite.views {
        let base = frame(&runs[0].dir, &v.name);
        let mut portable = true;
        for (run, rep) in runs.iter().zip(&reports).skip(1) {
            let tolerance = v.tolerance_for(rep.renderer.as_ref().map(RendererInfo::text).as_deref());
            let change = judge_view(&v.name, &v.ignore, &base, &frame(&run.dir, &v.name), &tolerance);
            let change = Change { from: runs[0].name.clone(), to: run.name.clone(), ..change };
            portable &= change.portable;
            changes.push(change);
        }
        if !portable {
            not_portable.push(v.name.clone());
        }
    }
    Ok(Portability { renderers, changes, not_portable })
}

/// A run's frame of `view`, or why there is none.
fn frame(dir: &Path, view: &str) -> Result<image::RgbImage, String> {
    let path = dir.join(format!("{view}.png"));
    image::open(&path).map(|i| i.to_rgb8()).map_err(|e| format!("no frame {}: {e}", path.display()))
}

fn judge_view(
    name: &str,
    ignore: &[[u32; 4]],
    base: &Result<image::RgbImage, String>,
    other: &Result<image::RgbImage, String>,
    tol: &Tolerance,
) -> Change {
    let mut c = Change {
        view: name.to_string(),
        from: String::new(),
        to: String::new(),
        metrics: None,
        tolerance: *tol,
        portable: false,
        message: None,
    };
    let (a, b) = match (base, other) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            c.message = Some(format!("did not render: {e}"));
            return c;
        }
    };
    match compare::compare_masked(a, b, tol, ignore) {
        Ok((m, de, flip, ignored)) => {
            c.metrics = Some(m);
            c.message = m.failure(tol).map(|why| match compare::pass_at(&m, &de, &flip, &ignored, tol) {
                Some(h) => format!("{why}; passes at {h}"),
                None => why,
            });
            c.portable = c.message.is_none();
        }
        Err(why) => c.message = Some(why),
    }
    c
}

/// One line per change of renderer: the view, the two renderers, the figures beside their
/// thresholds, and the verdict.
pub fn lines(p: &Portability) -> Vec<String> {
    p.changes
        .iter()
        .map(|c| {
            let verdict = if c.portable { "portable" } else { "WOULD FAIL" };
            let figures = c.metrics.map_or(String::new(), |m| {
                format!(
                    "ꟻLIP mean {:.4} (≤ {}), over {} {:.2} % (≤ {} %), mean ΔE {:.2} (≤ {}), ΔE > {} {:.2} % (≤ {} %)",
                    m.mean_flip,
                    c.tolerance.max_mean_flip,
                    c.tolerance.flip,
                    m.flip_changed * 100.0,
                    c.tolerance.max_flip_changed * 100.0,
                    m.mean_delta_e,
                    c.tolerance.max_mean_delta_e,
                    c.tolerance.delta_e,
                    m.changed * 100.0,
                    c.tolerance.max_changed * 100.0
                )
            });
            let why = c.message.as_ref().map_or(String::new(), |m| format!(": {m}"));
            format!("portability: {:<16} {} → {}: {verdict}; {figures}{why}", c.view, c.from, c.to)
        })
        .collect()
}
