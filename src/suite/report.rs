//! What a suite run found, and every form it is written in: `report.json` (read back by
//! `--merge`, `--bless-from` and `--durations`), `report.html` for people, JUnit XML for CI
//! systems (`--junit`), and GitHub Actions' `::error` lines and step summary.

use super::file::{Suite, relative_path};
use crate::compare::{Metrics, Tolerance};
use crate::renderer::RendererInfo;
use std::path::{Path, PathBuf};

/// A view's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ViewResult {
    pub name: String,
    pub status: Status,
    /// The comparison's figures; empty for a view without a reference or that did not render.
    pub metrics: serde_json::Value,
    /// Wall time of the view: render, readback, comparison and writing.
    pub seconds: f64,
    /// Why it failed or errored (for a failure, with the thresholds it would pass at).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The view string of what was rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
    /// What the suite file asked for ([`super::file::SuiteView::request`]).
    #[serde(default)]
    pub request: String,
    /// The thresholds it was judged by, on this run's renderer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Tolerance>,
    /// The renderer its reference was blessed on, where that is known and is not this run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_renderer: Option<RendererInfo>,
    /// With `--bless`: whether the reference was (re)written, and `was`, the verdict against the
    /// old one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blessed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub was: Option<Status>,
    #[serde(skip)]
    pub(super) figures: Option<Metrics>,
    #[serde(skip)]
    pub(super) files: Files,
}

impl ViewResult {
    pub(super) fn new(name: &str, request: String) -> Self {
        Self {
            name: name.to_string(),
            status: Status::Error,
            metrics: serde_json::json!({}),
            seconds: 0.0,
            message: None,
            view: None,
            request,
            tolerance: None,
            reference_renderer: None,
            blessed: None,
            was: None,
            figures: None,
            files: Files::default(),
        }
    }

    /// The figures of the comparison, or the message, in one phrase.
    pub fn figures_or_message(&self) -> String {
        match (&self.message, &self.figures) {
            (Some(m), _) => m.clone(),
            (None, Some(f)) => f.summary(),
            (None, None) => String::new(),
        }
    }
}

/// The images a view's row shows.
#[derive(Debug, Clone, Default)]
pub(super) struct Files {
    pub actual: Option<PathBuf>,
    pub reference: Option<PathBuf>,
    pub diff: Option<PathBuf>,
}

/// Which suite file a report came from, so outputs of another suite are refused.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SuiteId {
    /// The suite file, as given.
    pub file: String,
    /// [`Suite::fingerprint`].
    pub fingerprint: String,
    /// How many views the file has (a run may render fewer).
    pub views: usize,
}

/// What a run did, and the exit status it calls for.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub suite: SuiteId,
    /// The renderer that drew the frames (`None` where nothing rendered, as in `--bless-from`).
    pub renderer: Option<RendererInfo>,
    /// `K/N` when this run rendered one shard of the suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub views: Vec<ViewResult>,
    pub passed: usize,
    /// Views that did not pass: failed, errored, or without a reference.
    pub failed: usize,
    pub new: usize,
    pub errors: usize,
    /// Wall time of the whole run (s), start-up included; for a merge, the shards' sum.
    pub seconds: f64,
    /// What a reader should know beyond the statuses: references blessed on another renderer.
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Report {
    /// A report of `views` with the counts made from their statuses.
    pub fn of(suite: &Suite, renderer: Option<RendererInfo>, views: Vec<ViewResult>, seconds: f64) -> Self {
        let count = |s: Status| views.iter().filter(|v| v.status == s).count();
        let (passed, new, errors) = (count(Status::Pass), count(Status::New), count(Status::Error));
        let notes = renderer_notes(&views, renderer.as_ref());
        let suite = SuiteId {
            file: suite.path.display().to_string(),
            fingerprint: suite.fingerprint(),
            views: suite.file_views(),
        };
        Report {
            suite,
            renderer,
            shard: None,
            passed,
            failed: views.len() - passed,
            new,
            errors,
            seconds,
            notes,
            views,
        }
    }

    /// 0 when every view passed, else 1.
    pub fn exit_code(&self) -> u8 {
        if self.failed == 0 { 0 } else { 1 }
    }

    /// Read an earlier run's `report.json` from its output folder `dir`. The error is one line
    /// naming the folder.
    pub fn read(dir: &Path) -> Result<Report, String> {
        let path = dir.join("report.json");
        if !path.is_file() {
            return Err(format!("{}: no report.json (not the --out folder of an isla suite run)", dir.display()));
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let mut report: Report =
            serde_json::from_slice(&bytes).map_err(|e| format!("{}: not a suite report: {e}", path.display()))?;
        for v in &mut report.views {
            v.figures = serde_json::from_value(v.metrics.clone()).ok();
        }
        Ok(report)
    }

    /// Whether this report came from `suite`'s file (the same views, names and requests).
    pub fn check_suite(&self, suite: &Suite, dir: &Path) -> Result<(), String> {
        if self.suite.fingerprint != suite.fingerprint() {
            return Err(format!(
                "{}: made from another suite ({}, fingerprint {}), not {} (fingerprint {})",
                dir.display(),
                self.suite.file,
                self.suite.fingerprint,
                suite.path.display(),
                suite.fingerprint()
            ));
        }
        Ok(())
    }
}

/// A change of renderer, said once: for each renderer the references were blessed on that is not
/// this run's, which views it touches.
fn renderer_notes(views: &[ViewResult], now: Option<&RendererInfo>) -> Vec<String> {
    let Some(now) = now else { return Vec::new() };
    let mut by: Vec<(&RendererInfo, Vec<&str>)> = Vec::new();
    for v in views {
        let Some(then) = &v.reference_renderer else { continue };
        match by.iter_mut().find(|(r, _)| r.same_as(then)) {
            Some((_, names)) => names.push(&v.name),
            None => by.push((then, vec![&v.name])),
        }
    }
    by.into_iter()
        .map(|(then, names)| {
            let which = if names.len() == views.len() && names.len() > 1 {
                format!("all {} views", names.len())
            } else {
                format!("{} view{}", names.len(), if names.len() == 1 { "" } else { "s" })
            };
            format!(
                "a change of renderer: the references of {which} ({}) were blessed on {}; this run drew them on {}",
                names.join(", "),
                then.label(),
                now.label()
            )
        })
        .collect()
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Write `report.json` and `report.html` under `out`.
pub fn write(report: &Report, suite: &Suite, out: &Path) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(report)?;
    crate::io::write_bytes_atomic(&out.join("report.json"), json.as_bytes())?;
    crate::io::write_bytes_atomic(&out.join("report.html"), html(report, suite, out).as_bytes())?;
    Ok(())
}

fn html(report: &Report, suite: &Suite, out: &Path) -> String {
    let mut rows: Vec<&ViewResult> = report.views.iter().collect();
    let score = |v: &ViewResult| v.figures.map_or(0.0, |m| -m.mean_flip);
    rows.sort_by(|a, b| a.status.rank().cmp(&b.status.rank()).then(score(a).total_cmp(&score(b))));
    let cell = |p: &Option<PathBuf>, what: &str| match p {
        Some(p) => {
            let rel = html_escape(&relative_path(out, p));
            format!("<td><a href=\"{rel}\"><img src=\"{rel}\" alt=\"{what}\"></a></td>")
        }
        None => format!("<td class=\"none\">no {what}</td>"),
    };
    let renderer = report.renderer.as_ref().map_or("none (nothing was rendered)".to_string(), |r| r.label());
    let mut html = String::new();
    html.push_str(&format!(
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>Isla suite: {name}</title>\n<style>\n\
         body {{ font: 14px system-ui, sans-serif; margin: 1em; }} table {{ border-collapse: collapse; }}\n\
         td, th {{ border: 1px solid #ccc; padding: 4px; vertical-align: top; }} img {{ width: 320px; }}\n\
         td:first-child {{ width: 300px; }} code {{ word-break: break-all; font-size: 12px; }}\n\
         .pass {{ color: #161; }} .fail, .error {{ color: #b11; font-weight: bold; }} .new {{ color: #a60; }}\n\
         .none {{ color: #888; }} .note {{ color: #a60; }}\n\
         .flip {{ position: relative; width: 320px; line-height: 0; }} .flip img {{ display: block; }}\n\
         .flip .over {{ position: absolute; top: 0; left: 0; height: 100%; width: 50%; overflow: hidden; \
         border-right: 2px solid #fc0; }}\n\
         .flip .over img {{ max-width: none; }} td > input[type=range] {{ width: 320px; margin: 4px 0 0; }}\n</style>\n<h1>{name}</h1>\n<p>{} views{}: {} passed, {} failed ({} without a reference, {} errors) in {:.1} s. \
         Blueprint {}.</p>\n<p>Renderer: {}.</p>\n",
        report.views.len(),
        report.shard.as_ref().map_or(String::new(), |s| format!(" (shard {s})")),
        report.passed,
        report.failed,
        report.new,
        report.errors,
        report.seconds,
        html_escape(&suite.blueprint.display().to_string()),
        html_escape(&renderer),
        name = html_escape(&suite.path.display().to_string()),
    ));
    for n in &report.notes {
        html.push_str(&format!("<p class=\"note\">Note: {}</p>\n", html_escape(n)));
    }
    html.push_str(
        "<table>\n<tr><th>view</th><th>actual | reference (drag)</th><th>reference</th><th>actual</th><th>difference (ΔE)</th></tr>\n",
    );
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
            "<tr><td>{about}</td>{}{}{}{}</tr>\n",
            slider(out, &v.files.reference, &v.files.actual),
            cell(&v.files.reference, "reference"),
            cell(&v.files.actual, "image"),
            cell(&v.files.diff, "difference")
        ));
    }
    html.push_str("</table>\n");
    html
}

/// The reference under the actual image, the actual shown left of a slider the reviewer drags
/// (as Playwright's report does): flipping between the two shows what moved.
fn slider(out: &Path, reference: &Option<PathBuf>, actual: &Option<PathBuf>) -> String {
    let (Some(r), Some(a)) = (reference, actual) else {
        return "<td class=\"none\">no comparison</td>".to_string();
    };
    let (r, a) = (html_escape(&relative_path(out, r)), html_escape(&relative_path(out, a)));
    format!(
        "<td><div class=\"flip\"><img src=\"{r}\" alt=\"reference\"><div class=\"over\"><img src=\"{a}\" alt=\"actual\"></div></div>\
         <input type=\"range\" min=\"0\" max=\"100\" value=\"50\" aria-label=\"reference | actual\" \
         oninput=\"this.parentNode.querySelector('.over').style.width = this.value + '%'\"></td>"
    )
}

fn xml_escape(s: &str) -> String {
    s.chars()
        .filter(|&c| matches!(c, '\t' | '\n' | '\r') || c >= ' ')
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The report as JUnit XML: one `testsuite` named after the suite file, one `testcase` per view
/// (its name and seconds). A failed view carries a `failure` (type `mismatch`) with its message
/// and figures; a view without a reference a `failure` of type `missing-reference`; an error an
/// `error`.
pub fn junit(report: &Report) -> String {
    let class = Path::new(&report.suite.file).file_stem().map_or("suite".into(), |s| s.to_string_lossy().into_owned());
    let fails = report.views.iter().filter(|v| matches!(v.status, Status::Fail | Status::New)).count();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    x.push_str(&format!(
        "<testsuites name=\"isla suite\" tests=\"{}\" failures=\"{fails}\" errors=\"{}\" time=\"{:.3}\">\n",
        report.views.len(),
        report.errors,
        report.seconds
    ));
    x.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" errors=\"{}\" skipped=\"0\" time=\"{:.3}\">\n",
        xml_escape(&report.suite.file),
        report.views.len(),
        report.errors,
        report.seconds
    ));
    if let Some(r) = &report.renderer {
        x.push_str(&format!(
            "    <properties>\n      <property name=\"renderer\" value=\"{}\"/>\n    </properties>\n",
            xml_escape(&r.label())
        ));
    }
    for v in &report.views {
        let open = format!(
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
            xml_escape(&v.name),
            xml_escape(&class),
            v.seconds
        );
        let msg = xml_escape(&v.message.clone().unwrap_or_default());
        let body = xml_escape(&format!(
            "{}{}",
            v.figures.map(|f| f.summary() + "\n").unwrap_or_default(),
            v.view.clone().unwrap_or_default()
        ));
        let inner = match v.status {
            Status::Pass => None,
            Status::Fail => Some(format!("<failure type=\"mismatch\" message=\"{msg}\">{body}</failure>")),
            Status::New => Some(format!("<failure type=\"missing-reference\" message=\"{msg}\"/>")),
            Status::Error => Some(format!("<error type=\"error\" message=\"{msg}\"/>")),
        };
        match inner {
            None => x.push_str(&format!("{open}/>\n")),
            Some(i) => x.push_str(&format!("{open}>\n      {i}\n    </testcase>\n")),
        }
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

/// GitHub Actions' workflow-command escaping of a message.
fn gh_escape(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// One `::error` line per view that did not pass.
pub fn github_errors(report: &Report) -> Vec<String> {
    report
        .views
        .iter()
        .filter(|v| v.status != Status::Pass)
        .map(|v| {
            format!(
                "::error title={}::{} {}: {}",
                gh_escape(&format!("isla suite: {}", v.name)).replace(',', "%2C").replace(':', "%3A"),
                v.name,
                v.status.name(),
                gh_escape(&v.figures_or_message())
            )
        })
        .collect()
}

/// The step summary: a heading with the counts and renderer, and a Markdown table of the views
/// (worst first): view, status, figures.
pub fn github_summary(report: &Report) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut md = format!(
        "### Isla suite `{}`{}\n\n{} views: {} passed, {} failed ({} without a reference, {} errors) in {:.1} s on {}.\n\n",
        report.suite.file,
        report.shard.as_ref().map_or(String::new(), |s| format!(" (shard {s})")),
        report.views.len(),
        report.passed,
        report.failed,
        report.new,
        report.errors,
        report.seconds,
        report.renderer.as_ref().map_or("no renderer".into(), |r| r.label())
    );
    md.push_str("| view | status | figures |\n|---|---|---|\n");
    let mut rows: Vec<&ViewResult> = report.views.iter().collect();
    rows.sort_by_key(|v| v.status.rank());
    for v in rows {
        md.push_str(&format!("| {} | {} | {} |\n", cell(&v.name), v.status.name(), cell(&v.figures_or_message())));
    }
    md.push('\n');
    md
}
