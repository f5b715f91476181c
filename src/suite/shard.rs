//! A suite split across CI jobs: `--shard K/N` renders a deterministic share of the views,
//! balanced by each view's seconds in an earlier report (`--durations`) or by a fixed cost
//! estimate; `--merge` joins the shards' output folders into one report, in the suite file's
//! order, without rendering.

use super::file::{Suite, SuiteView};
use super::report::{Report, ViewResult};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Shard `k` of `n` (1-based, as Playwright's `--shard=1/3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("'{s}' is not K/N with 1 ≤ K ≤ N (for example 1/3)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n || n > 1000 {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// A view's cost with no measured time: seconds, roughly, on a software renderer (a view's
/// set-up, plus its pixels; three times the pixels with level of detail off, which draws every
/// chunk at full detail).
pub fn estimated_seconds(v: &SuiteView) -> f64 {
    let megapixels = v.width as f64 * v.height as f64 / 1e6;
    0.5 + megapixels * if v.lod { 1.0 } else { 3.0 }
}

/// Each view's seconds in an earlier run's `report.json` (a file, or an output folder holding
/// one), by name.
pub fn durations(path: &Path) -> Result<HashMap<String, f64>, String> {
    let dir = if path.is_dir() { path.to_path_buf() } else { path.parent().map(Path::to_path_buf).unwrap_or_default() };
    let report = if path.is_dir() || path.file_name().is_some_and(|n| n == "report.json") {
        Report::read(&dir)?
    } else {
        return Err(format!("--durations {}: give a report.json or the folder holding one", path.display()));
    };
    Ok(report.views.into_iter().map(|v| (v.name, v.seconds)).collect())
}

/// Which shard (0-based) each view of `views` goes to: longest first onto the least loaded
/// shard (ties to the lower shard; equal costs in file order), the cost a view's measured
/// seconds in `measured`, else the mean ratio of measured to estimated seconds times its
/// estimate (so measured and unmeasured views weigh alike), else its estimate. Deterministic:
/// every run of the same views, costs and `n` gives the same shares, and every view is in
/// exactly one shard.
pub fn assign(views: &[SuiteView], n: usize, measured: &HashMap<String, f64>) -> Vec<usize> {
    let known: Vec<(f64, f64)> = views
        .iter()
        .filter_map(|v| measured.get(&v.name).map(|&s| (s, estimated_seconds(v))))
        .filter(|(s, _)| s.is_finite() && *s >= 0.0)
        .collect();
    let scale = if known.is_empty() {
        1.0
    } else {
        known.iter().map(|k| k.0).sum::<f64>() / known.iter().map(|k| k.1).sum::<f64>()
    };
    let cost = |v: &SuiteView| match measured.get(&v.name) {
        Some(&s) if s.is_finite() && s >= 0.0 => s,
        _ => estimated_seconds(v) * scale,
    };
    let mut order: Vec<(usize, f64)> = views.iter().enumerate().map(|(i, v)| (i, cost(v))).collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut load = vec![0f64; n.max(1)];
    let mut out = vec![0usize; views.len()];
    for (i, c) in order {
        let s = (0..load.len()).min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b))).unwrap_or(0);
        load[s] += c;
        out[i] = s;
    }
    out
}

/// Keep only the views of shard `shard`, in file order.
pub fn select(suite: &mut Suite, shard: Shard, measured: &HashMap<String, f64>) {
    let owner = assign(&suite.views, shard.n, measured);
    let mut i = 0;
    suite.views.retain(|_| {
        let keep = owner[i] == shard.k - 1;
        i += 1;
        keep
    });
}

/// What a merge of shard folders found: the report (views in the suite file's order) and where
/// each view's images came from.
#[derive(Debug)]
pub struct Merged {
    pub report: Report,
    /// Per view, in report order: the folder its images are in.
    pub from: Vec<PathBuf>,
}

/// Read the shards' `report.json`s in `dirs` and join them: every view of `suite` (those
/// selected) exactly once, in file order, with its status and figures as its shard reported
/// them. Refused (one line, nothing written) when a folder has no report, comes from another
/// suite file, two folders hold the same view, or a view is in none.
pub fn merge(suite: &Suite, dirs: &[PathBuf]) -> Result<Merged, String> {
    let mut found: HashMap<String, (ViewResult, PathBuf)> = HashMap::new();
    let mut renderers = Vec::new();
    let mut seconds = 0.0;
    for d in dirs {
        let r = Report::read(d)?;
        r.check_suite(suite, d)?;
        seconds += r.seconds;
        if let Some(info) = r.renderer
            && !renderers.iter().any(|x: &crate::renderer::RendererInfo| x.same_as(&info))
        {
            renderers.push(info);
        }
        for v in r.views {
            if let Some((_, other)) = found.get(&v.name) {
                return Err(format!("view '{}' is in both {} and {}", v.name, other.display(), d.display()));
            }
            found.insert(v.name.clone(), (v, d.clone()));
        }
    }
    let missing: Vec<&str> =
        suite.views.iter().filter(|v| !found.contains_key(&v.name)).map(|v| v.name.as_str()).collect();
    if !missing.is_empty() {
        return Err(format!("no folder holds the views {} (is a shard missing?)", missing.join(", ")));
    }
    let mut views = Vec::with_capacity(suite.views.len());
    let mut from = Vec::with_capacity(suite.views.len());
    for v in &suite.views {
        let (r, d) = found.remove(&v.name).expect("checked above");
        views.push(r);
        from.push(d);
    }
    let mut report = Report::of(suite, renderers.first().cloned(), views, seconds);
    if renderers.len() > 1 {
        let names: Vec<String> = renderers.iter().map(|r| r.label()).collect();
        report.notes.push(format!("the shards ran on different renderers: {}", names.join("; ")));
    }
    Ok(Merged { report, from })
}

/// Copy each merged view's images (`NAME.png`, `NAME.diff.png`) into `out` and write the
/// report there.
pub fn write_merged(suite: &Suite, merged: &mut Merged, out: &Path) -> anyhow::Result<()> {
    use anyhow::Context;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (v, dir) in merged.report.views.iter_mut().zip(&merged.from) {
        for (suffix, slot) in [("png", &mut v.files.actual), ("diff.png", &mut v.files.diff)] {
            let src = dir.join(format!("{}.{suffix}", v.name));
            let dst = out.join(format!("{}.{suffix}", v.name));
            if src.is_file() {
                if std::path::absolute(&src).ok() != std::path::absolute(&dst).ok() {
                    let bytes = std::fs::read(&src).with_context(|| format!("cannot read {}", src.display()))?;
                    crate::io::write_bytes_atomic(&dst, &bytes)
                        .with_context(|| format!("cannot write {}", dst.display()))?;
                }
                *slot = Some(dst);
            }
        }
        let reference = suite.references.join(format!("{}.png", v.name));
        v.files.reference = reference.is_file().then_some(reference);
    }
    super::report::write(&merged.report, suite, out)
}
