//! `isla suite`: render a suite (or one shard of it) and judge it, bless references from a
//! render or from an earlier run's output, or merge shard outputs — then say so where CI reads it
//! (JUnit XML, GitHub Actions).

use super::args::SuiteArgs;
use super::commands::{load, world_of};
use super::{Failure, bad, writable_dir};
use isla::suite::report::{self, Report};
use isla::suite::{BlessMode, RunOptions, Suite};
use std::path::Path;
use std::process::ExitCode;

type Outcome = Result<ExitCode, Failure>;

pub fn suite(a: SuiteArgs) -> Outcome {
    let started = std::time::Instant::now();
    let mut suite = Suite::load(&a.suite).map_err(|e| bad(e.to_string()))?;
    suite.select(&a.only).map_err(|e| bad(e.to_string()))?;
    if let Some(j) = &a.junit {
        // Its folder may be the --out folder this run creates: the nearest existing one must take it.
        if j.is_dir() {
            return Err(bad(format!("--junit {}: that is a folder, not a file", j.display())).into());
        }
        writable_dir("--junit", j.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
    }
    if let Some(dir) = &a.bless_from {
        return bless_from(&suite, dir, a.bless.unwrap_or_default(), started);
    }
    let out = a.out.clone().unwrap_or_else(|| suite.default_out());
    if suite.out_is_references(&out) {
        return Err(bad(format!(
            "--out {}: that is the suite's references folder; a render there would replace its reference",
            out.display()
        ))
        .into());
    }
    writable_dir("--out", &out)?;
    if !a.merge.is_empty() {
        return merge(&suite, &a, &out);
    }
    if let Some(list) = &a.renderers {
        return portability(&suite, &a, &list.0, &out, started);
    }
    let mut shard_label = None;
    if let Some(shard) = a.shard {
        let measured = match &a.durations {
            Some(p) => isla::suite::shard::durations(p).map_err(|e| bad(format!("--durations: {e}")))?,
            None => Default::default(),
        };
        let all = suite.views.len();
        isla::suite::shard::select(&mut suite, shard, &measured);
        let by = if a.durations.is_some() { "measured seconds" } else { "estimated cost" };
        eprintln!("suite: shard {shard}: {} of {all} views, balanced by {by}", suite.views.len());
        shard_label = Some(shard.to_string());
    }
    let (bp, path) =
        load(&suite.blueprint).map_err(|super::BadInput(e)| bad(format!("{}: blueprint: {e:#}", a.suite.display())))?;
    eprintln!("suite: {} views of {} from {}", suite.views.len(), path.display(), a.suite.display());
    let world = world_of(bp, &path);
    let view_distance = suite.view_distance_m.unwrap_or(isla::app::server::DEFAULT_VIEW_DISTANCE_M);
    let mut renderer = AppRenderer(isla::app::shot::Renderer::new(world, view_distance).of_file(&path));
    let opts = RunOptions { out, bless: a.bless, shard: shard_label };
    let report = isla::suite::run(&suite, &mut renderer, &opts, started, &mut |line| eprintln!("{line}"))?;
    if let Some(r) = &report.renderer {
        eprintln!("renderer: {}", r.label());
    }
    for n in &report.notes {
        eprintln!("suite: note: {n}");
    }
    if a.bless.is_some() {
        let changed: Vec<String> = report
            .views
            .iter()
            .filter(|v| v.blessed == Some(true))
            .map(|v| format!("{} (was {})", v.name, v.was.map_or("?", |w| w.name())))
            .collect();
        let unchanged = report.views.iter().filter(|v| v.blessed == Some(false)).count();
        if changed.is_empty() {
            eprintln!("suite: blessed nothing: {unchanged} references already match");
        } else {
            eprintln!("suite: blessed {}: {}; {unchanged} unchanged", changed.len(), changed.join(", "));
        }
    }
    finish(&report, &a, &opts.out)
}

struct AppRenderer(isla::app::shot::Renderer);

impl isla::suite::Renderer for AppRenderer {
    fn render(&mut self, v: &isla::suite::SuiteView) -> anyhow::Result<(image::RgbImage, isla::view::View)> {
        use isla::suite::Pose;
        let view = match v.pose {
            Pose::Preset(p) => self.0.preset_view(p, v.sun, v.switches, v.lod),
            Pose::Look { from, at } => isla::view::View { from, at, sun: v.sun, switches: v.switches, lod: v.lod },
        };
        let img = self.0.render(&view, v.width, v.height)?;
        Ok((image::DynamicImage::ImageRgba8(img).to_rgb8(), view))
    }

    fn info(&mut self) -> Option<isla::renderer::RendererInfo> {
        self.0.adapter()
    }
}

/// The last line, the JUnit file and GitHub's output; the exit code the statuses call for.
fn finish(report: &Report, a: &SuiteArgs, out: &Path) -> Outcome {
    if let Some(j) = &a.junit {
        if let Some(dir) = j.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        }
        isla::io::write_bytes_atomic(j, report::junit(report).as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", j.display()))?;
        eprintln!("suite: JUnit in {}", j.display());
    }
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        for line in report::github_errors(report) {
            println!("{line}");
        }
        if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&summary)
                .map_err(|e| anyhow::anyhow!("GITHUB_STEP_SUMMARY {}: {e}", Path::new(&summary).display()))?;
            f.write_all(report::github_summary(report).as_bytes())
                .map_err(|e| anyhow::anyhow!("GITHUB_STEP_SUMMARY: {e}"))?;
        }
    }
    eprintln!(
        "suite: {} passed, {} failed ({} without a reference, {} errors) in {:.1} s; report {}",
        report.passed,
        report.failed,
        report.new,
        report.errors,
        report.seconds,
        out.join("report.html").display()
    );
    Ok(ExitCode::from(report.exit_code()))
}

fn bless_from(suite: &Suite, dir: &Path, mode: BlessMode, started: std::time::Instant) -> Outcome {
    let done = isla::suite::bless_from(suite, dir, mode).map_err(|e| bad(format!("--bless-from {e}")))?;
    let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    eprintln!(
        "suite: blessed from {} in {:.2} s, nothing rendered: wrote {} ({}); {} already matched; {} left by the mode",
        dir.display(),
        started.elapsed().as_secs_f64(),
        done.written.len(),
        list(&done.written),
        done.unchanged.len(),
        done.skipped.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn merge(suite: &Suite, a: &SuiteArgs, out: &Path) -> Outcome {
    let mut merged = isla::suite::shard::merge(suite, &a.merge).map_err(|e| bad(format!("--merge: {e}")))?;
    isla::suite::shard::write_merged(suite, &mut merged, out)?;
    eprintln!("suite: merged {} folders: {} views", a.merge.len(), merged.report.views.len());
    for n in &merged.report.notes {
        eprintln!("suite: note: {n}");
    }
    finish(&merged.report, a, out)
}

/// `--renderers A,B,…`: each renderer draws every view in its own `isla suite --renderer R` run
/// (a renderer is chosen once per process), into `OUT/R`; then each view's frames are judged
/// across the renderers, written to `OUT/portability.json` and said one line per view.
fn portability(
    suite: &Suite,
    a: &SuiteArgs,
    list: &[isla::renderer::Choice],
    out: &Path,
    started: std::time::Instant,
) -> Outcome {
    use isla::suite::portability::{self, RendererRun};
    // Every renderer must be there before any renders.
    for r in list {
        r.manifest().map_err(bad)?;
    }
    let exe = std::env::current_exe().map_err(|e| anyhow::anyhow!("cannot find this program: {e}"))?;
    let mut runs = Vec::new();
    for r in list {
        let dir = out.join(r.to_string());
        eprintln!("suite: rendering {} views on {r} into {}", suite.views.len(), dir.display());
        let mut cmd = std::process::Command::new(&exe);
        cmd.arg("suite").arg(&a.suite).arg("--renderer").arg(r.to_string()).arg("--out").arg(&dir);
        for name in &a.only {
            cmd.arg("--only").arg(name);
        }
        let status = cmd.status().map_err(|e| anyhow::anyhow!("cannot run {}: {e}", exe.display()))?;
        // 0 and 1 are verdicts against the references; anything else is a run that did not finish.
        if !matches!(status.code(), Some(0 | 1)) {
            return Err(anyhow::anyhow!("the run on {r} ended with {status}").into());
        }
        runs.push(RendererRun { name: r.to_string(), dir });
    }
    let p = portability::judge(suite, &runs).map_err(|e| anyhow::anyhow!("{e}"))?;
    for line in portability::lines(&p) {
        eprintln!("{line}");
    }
    let json = serde_json::to_string_pretty(&p).map_err(|e| anyhow::anyhow!("{e}"))?;
    let path = out.join("portability.json");
    isla::io::write_bytes_atomic(&path, json.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    if p.not_portable.is_empty() {
        eprintln!(
            "suite: portable: all {} views pass on a change of renderer ({}) in {:.1} s; {}",
            suite.views.len(),
            runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", "),
            started.elapsed().as_secs_f64(),
            path.display()
        );
    } else {
        eprintln!(
            "suite: not portable: {} of {} views would fail on a change of renderer: {}; {}",
            p.not_portable.len(),
            suite.views.len(),
            p.not_portable.join(", "),
            path.display()
        );
    }
    Ok(ExitCode::from(p.exit_code()))
}
