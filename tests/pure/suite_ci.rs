//! Screenshot suites in a team's CI (SPEC §8 "Suites in CI"), without Bevy: shards and their
//! merge, bless modes and blessing from an earlier run's output, JUnit and GitHub output, masks,
//! the thresholds a failing view would pass at, and per-renderer tolerances. A stand-in renderer
//! draws each view from its settings, with "planted" changes on chosen views.

use isla::suite::report::{self, Report, Status};
use isla::suite::shard::{self, Shard};
use isla::suite::{BlessMode, Pose, Renderer, RendererInfo, RunOptions, Suite, SuiteView};
use isla::view::View;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-suite-ci").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Draws a frame from the view's sun and switches; `planted` views get a red block at
/// (8..24, 4..12); `shift` adds that much to every blue value (a renderer's small difference).
struct Fake {
    name: &'static str,
    planted: Vec<String>,
    shift: u8,
    renders: usize,
}

impl Fake {
    fn new(name: &'static str) -> Self {
        Fake { name, planted: Vec::new(), shift: 0, renders: 0 }
    }
}

impl Renderer for Fake {
    fn render(&mut self, v: &SuiteView) -> anyhow::Result<(image::RgbImage, View)> {
        self.renders += 1;
        let sky = (v.sun.elevation_deg * 2.5) as u8;
        let plant = self.planted.contains(&v.name);
        let shift = self.shift;
        let img = image::RgbImage::from_fn(v.width, v.height, |x, y| {
            if plant && (8..24).contains(&x) && (4..12).contains(&y) {
                image::Rgb([230, 20, 20])
            } else if y < v.height / 2 {
                image::Rgb([sky / 2, sky, (200 + (x % 7) as u8).saturating_add(shift)])
            } else if v.switches.water {
                image::Rgb([20, 60, 150u8.saturating_add(shift)])
            } else {
                image::Rgb([200, 180, 120u8.saturating_add(shift)])
            }
        });
        let (from, at) = match v.pose {
            Pose::Look { from, at } => (from, at),
            Pose::Preset(_) => ([0.0, 100.0, 0.0], [10.0, 0.0, 10.0]),
        };
        Ok((img, View { from, at, sun: v.sun, switches: v.switches, lod: v.lod }))
    }

    fn info(&mut self) -> Option<RendererInfo> {
        Some(RendererInfo {
            name: self.name.into(),
            driver: "fake".into(),
            driver_info: "Fake 1.0".into(),
            backend: "Vulkan".into(),
            device_type: "Cpu".into(),
            isla: "test".into(),
        })
    }
}

/// `suite` blessed on "lavapipe" into `DIR/refs`, then run on "gpu" with `planted` views into
/// `DIR/ci-artefact` (an earlier CI run's output); returns the two folders.
fn blessed_then_ci(suite: &Suite, dir: &Path, planted: &[&str]) -> (PathBuf, PathBuf) {
    run(suite, &mut Fake::new("lavapipe"), &dir.join("o"), Some(BlessMode::Changed), None);
    let mut gpu = Fake::new("gpu");
    gpu.planted = planted.iter().map(|v| v.to_string()).collect();
    let ci = dir.join("ci-artefact");
    run(suite, &mut gpu, &ci, None, None);
    (dir.join("refs"), ci)
}

/// Ten views of assorted sizes, suns and switches.
fn ten_views(dir: &Path, extra: &str) -> PathBuf {
    std::fs::write(dir.join("bp.dat"), b"not read by the suite loader").unwrap();
    let mut t = String::from("blueprint = \"bp.dat\"\nreferences = \"refs\"\nwidth = 48\nheight = 24\n");
    t.push_str(extra);
    for i in 0..10 {
        t.push_str(&format!(
            "\n[[view]]\nname = \"v{i}\"\nlook_from = [{i}, 100, 0]\nlook_at = [0, 0, 10]\nsun_elevation = {}\n{}{}",
            10 + 5 * i,
            if i % 3 == 0 { "off = [\"water\"]\n" } else { "" },
            if i % 4 == 1 { "width = 96\nheight = 48\nlod = \"off\"\n" } else { "" },
        ));
    }
    let p = dir.join("suite.toml");
    std::fs::write(&p, t).unwrap();
    p
}

/// The ten views with one sun lower: another suite, whose outputs must not mix with the first's.
fn another_suite(dir: &Path) -> PathBuf {
    let p = ten_views(dir, "");
    let text = std::fs::read_to_string(&p).unwrap().replacen("sun_elevation = 10\n", "sun_elevation = 11\n", 1);
    std::fs::write(&p, text).unwrap();
    p
}

fn run(suite: &Suite, r: &mut Fake, out: &Path, bless: Option<BlessMode>, shard: Option<String>) -> Report {
    let opts = RunOptions { out: out.to_path_buf(), bless, shard };
    isla::suite::run(suite, r, &opts, std::time::Instant::now(), &mut |_| {}).unwrap()
}

fn statuses(r: &Report) -> Vec<(String, Status, serde_json::Value)> {
    r.views.iter().map(|v| (v.name.clone(), v.status, v.metrics.clone())).collect()
}

/// SPEC §8 "Shards": shards 1/3, 2/3 and 3/3 of a ten-view suite with two planted changes each
/// exit as their own views dictate, every view is in exactly one of them, and their merge has
/// the statuses, figures, order and exit code of one unsharded run.
#[test]
fn three_shards_merge_into_the_report_of_one_run() {
    let dir = scratch("shards");
    let p = ten_views(&dir, "");
    let suite = Suite::load(&p).unwrap();
    run(&suite, &mut Fake::new("fake gpu"), &dir.join("bless"), Some(BlessMode::Changed), None);
    let mut planted = Fake::new("fake gpu");
    planted.planted = vec!["v2".into(), "v7".into()];
    let whole = run(&suite, &mut planted, &dir.join("whole"), None, None);
    assert_eq!(whole.exit_code(), 1);
    assert_eq!(whole.views.iter().filter(|v| v.status == Status::Fail).count(), 2);
    let mut dirs = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for k in 1..=3 {
        let mut part = Suite::load(&p).unwrap();
        shard::select(&mut part, Shard { k, n: 3 }, &HashMap::new());
        assert!(!part.views.is_empty(), "shard {k} has views");
        seen.extend(part.views.iter().map(|v| v.name.clone()));
        let out = dir.join(format!("shard-{k}"));
        let r = run(&part, &mut planted, &out, None, Some(format!("{k}/3")));
        let planted_here = part.views.iter().any(|v| v.name == "v2" || v.name == "v7");
        assert_eq!(r.exit_code(), u8::from(planted_here), "shard {k}: {:?}", statuses(&r));
        dirs.push(out);
    }
    seen.sort();
    let mut all: Vec<String> = suite.views.iter().map(|v| v.name.clone()).collect();
    all.sort();
    assert_eq!(seen, all, "every view in exactly one shard");
    // Merged in another order of folders: the file's order all the same.
    dirs.reverse();
    let mut merged = shard::merge(&suite, &dirs).unwrap();
    let out = dir.join("merged");
    shard::write_merged(&suite, &mut merged, &out).unwrap();
    assert_eq!(statuses(&merged.report), statuses(&whole));
    assert_eq!(merged.report.exit_code(), whole.exit_code());
    let back = Report::read(&out).unwrap();
    assert_eq!(statuses(&back), statuses(&whole));
    for v in &suite.views {
        assert!(out.join(format!("{}.png", v.name)).is_file(), "{} copied", v.name);
    }
    // A shard missing, a folder twice, another suite's folder, a folder with no report: refused.
    assert!(shard::merge(&suite, &dirs[..2]).unwrap_err().contains("is a shard missing?"));
    assert!(shard::merge(&suite, &[dirs[0].clone(), dirs[0].clone()]).unwrap_err().contains("is in both"));
    let other = scratch("shards-other");
    let q = another_suite(&other);

    let other_suite = Suite::load(&q).unwrap();
    assert!(shard::merge(&other_suite, &dirs).unwrap_err().contains("made from another suite"));
    assert!(shard::merge(&suite, std::slice::from_ref(&dir)).unwrap_err().contains("no report.json"));
}

/// Shares are deterministic, and balanced by measured seconds when given: the heaviest view
/// alone on one shard when it outweighs the rest.
#[test]
fn shards_balance_by_measured_seconds_or_by_estimate() {
    let dir = scratch("balance");
    let suite = Suite::load(&ten_views(&dir, "")).unwrap();
    let est = shard::assign(&suite.views, 3, &HashMap::new());
    assert_eq!(est, shard::assign(&suite.views, 3, &HashMap::new()), "deterministic");
    let loads = |owner: &[usize], cost: &dyn Fn(usize) -> f64| {
        let mut l = [0.0; 3];
        for (i, &s) in owner.iter().enumerate() {
            l[s] += cost(i);
        }
        l
    };
    let e = loads(&est, &|i| shard::estimated_seconds(&suite.views[i]));
    let (lo, hi) = (e.iter().cloned().fold(f64::MAX, f64::min), e.iter().cloned().fold(0.0, f64::max));
    assert!(hi - lo <= shard::estimated_seconds(&suite.views[1]), "estimated loads {e:?}");
    let measured: HashMap<String, f64> =
        suite.views.iter().enumerate().map(|(i, v)| (v.name.clone(), if i == 4 { 30.0 } else { 1.0 })).collect();
    let owner = shard::assign(&suite.views, 3, &measured);
    let alone = owner[4];
    assert_eq!(owner.iter().filter(|&&s| s == alone).count(), 1, "the 30 s view alone: {owner:?}");
    let l = loads(&owner, &|i| if i == 4 { 30.0 } else { 1.0 });
    assert_eq!(l.iter().filter(|&&x| x == 30.0).count(), 1);
    assert!(l.iter().filter(|&&x| x != 30.0).all(|&x| (4.0..=5.0).contains(&x)), "{l:?}");
    for bad in ["0/2", "3/2", "x/y", "1/0", "2", "1/2/3", "-1/2"] {
        assert!(bad.parse::<Shard>().unwrap_err().contains("is not K/N"), "{bad}");
    }
    assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, n: 3 }));
}

/// `--junit`: one `testsuite`, one `testcase` per view with its seconds; a failure of type
/// `mismatch` for each failed view, of type `missing-reference` for each view without one. The
/// XML is parsed by Python's standard library, an independent reader.
#[test]
fn the_junit_report_parses_with_a_testcase_per_view() {
    let dir = scratch("junit");
    let suite = Suite::load(&ten_views(&dir, "")).unwrap();
    run(&suite, &mut Fake::new("fake"), &dir.join("bless"), Some(BlessMode::Changed), None);
    std::fs::remove_file(dir.join("refs/v5.png")).unwrap();
    let mut planted = Fake::new("fake <&\"> gpu");
    planted.planted = vec!["v2".into(), "v7".into()];
    let r = run(&suite, &mut planted, &dir.join("out"), None, None);
    let xml = report::junit(&r);
    let file = dir.join("junit.xml");
    std::fs::write(&file, &xml).unwrap();
    let py = "import sys, xml.etree.ElementTree as E\n\
              root = E.parse(sys.argv[1]).getroot()\n\
              suites = root.findall('testsuite')\n\
              cases = suites[0].findall('testcase')\n\
              print(len(suites), len(cases), root.get('tests'), root.get('failures'))\n\
              for c in cases:\n\
              \x20   f = c.find('failure')\n\
              \x20   print(c.get('name'), c.get('time'), f.get('type') if f is not None else 'pass')\n";
    let out = std::process::Command::new("python3").arg("-c").arg(py).arg(&file).output().expect("python3 runs");
    assert!(out.status.success(), "{}\n{xml}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("1 10 10 3"), "{text}");
    for (line, v) in lines.zip(&r.views) {
        let want = match v.status {
            Status::Pass => "pass",
            Status::Fail => "mismatch",
            Status::New => "missing-reference",
            Status::Error => "error",
        };
        assert_eq!(line.split(' ').next(), Some(v.name.as_str()));
        assert!(line.ends_with(want), "{line} for {:?}", v.status);
    }
    // GitHub Actions: an ::error line per view that did not pass, and a summary table.
    let errors = report::github_errors(&r);
    assert_eq!(errors.len(), 3);
    assert!(errors.iter().all(|e| e.starts_with("::error title=isla suite%3A ") && !e.contains('\n')), "{errors:?}");
    let md = report::github_summary(&r);
    assert_eq!(md.lines().filter(|l| l.starts_with("| v") && !l.starts_with("| view")).count(), 10, "{md}");
}

/// `--bless=new` writes only views without a reference; `--bless=failed` only the failed ones;
/// `--bless` (changed) every view whose bytes differ.
#[test]
fn bless_modes_write_only_what_they_name() {
    let dir = scratch("modes");
    let suite = Suite::load(&ten_views(&dir, "")).unwrap();
    let refs = dir.join("refs");
    run(&suite, &mut Fake::new("fake"), &dir.join("o"), Some(BlessMode::Changed), None);
    std::fs::remove_file(refs.join("v5.png")).unwrap();
    let before: HashMap<String, Vec<u8>> = (0..10)
        .filter(|&i| i != 5)
        .map(|i| (format!("v{i}"), std::fs::read(refs.join(format!("v{i}.png"))).unwrap()))
        .collect();
    let mut planted = Fake::new("fake");
    planted.planted = vec!["v2".into()];
    let r = run(&suite, &mut planted, &dir.join("o"), Some(BlessMode::New), None);
    assert!(refs.join("v5.png").is_file(), "the new view blessed");
    assert_eq!(std::fs::read(refs.join("v2.png")).unwrap(), before["v2"], "the failed view left alone");
    assert_eq!(r.exit_code(), 1, "v2 still fails");
    let r = run(&suite, &mut planted, &dir.join("o"), Some(BlessMode::Failed), None);
    assert_eq!(r.exit_code(), 0);
    for (name, bytes) in &before {
        let now = std::fs::read(refs.join(format!("{name}.png"))).unwrap();
        assert_eq!(&now == bytes, name != "v2", "{name}");
    }
    // Each written reference has its record: the view string, request and renderer.
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(refs.join("v2.bless.json")).unwrap()).unwrap();
    assert_eq!(rec["renderer"]["name"], "fake");
    assert!(rec["view"].as_str().unwrap().starts_with("isla:v1;from=2,100,0"));
    assert!(rec["request"].as_str().unwrap().ends_with(";size=48x24"));
}

/// `--bless-from DIR`: the images of an earlier run's output become the references of the views
/// asked for, without rendering; the others are untouched byte for byte; a folder of another
/// suite, or without a report, is refused with nothing written.
#[test]
fn bless_from_an_earlier_output_renders_nothing_and_touches_only_what_is_asked() {
    let dir = scratch("from");
    let p = ten_views(&dir, "");
    let suite = Suite::load(&p).unwrap();
    let (refs, ci) = blessed_then_ci(&suite, &dir, &["v2", "v7"]);
    let before: Vec<Vec<u8>> = (0..10).map(|i| std::fs::read(refs.join(format!("v{i}.png"))).unwrap()).collect();
    let mut only = Suite::load(&p).unwrap();
    only.select(&["v2".into(), "v3".into()]).unwrap();
    let done = isla::suite::bless_from(&only, &ci, BlessMode::Changed).unwrap();
    assert_eq!(done.written, ["v2"]);
    assert_eq!(done.unchanged, ["v3"]);
    for (i, old) in before.iter().enumerate() {
        let now = std::fs::read(refs.join(format!("v{i}.png"))).unwrap();
        if i == 2 {
            assert_eq!(now, std::fs::read(ci.join("v2.png")).unwrap(), "v2 is the artefact's image");
        } else {
            assert_eq!(&now, old, "v{i} untouched");
        }
    }
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(refs.join("v2.bless.json")).unwrap()).unwrap();
    assert_eq!(rec["renderer"]["name"], "gpu", "the record travels with the image");
    // Another suite's output, and a folder without a report: refused, nothing written.
    let other = scratch("from-other");
    let q = another_suite(&other);
    run(&Suite::load(&q).unwrap(), &mut Fake::new("gpu"), &other.join("o"), None, None);
    let snapshot = || (0..10).map(|i| std::fs::read(refs.join(format!("v{i}.png"))).unwrap()).collect::<Vec<_>>();
    let held = snapshot();
    // (v0's request differs there, and bless_from_refuses_an_image_rendered_for_another_request
    // names it; the other nine's requests are the same, their suite file's fingerprint is not.)
    let mut nine = Suite::load(&p).unwrap();
    nine.select(&(1..10).map(|i| format!("v{i}")).collect::<Vec<_>>()).unwrap();
    assert!(
        isla::suite::bless_from(&nine, &other.join("o"), BlessMode::Changed).unwrap_err().contains("another suite")
    );
    assert!(isla::suite::bless_from(&suite, &dir, BlessMode::Changed).unwrap_err().contains("no report.json"));
    assert_eq!(snapshot(), held);
    // By status in that run: --bless=failed from it takes v7 too, and nothing else.
    let done = isla::suite::bless_from(&suite, &ci, BlessMode::Failed).unwrap();
    assert_eq!(done.written, ["v7"]);
    assert_eq!(done.unchanged, ["v2"]);
}

/// Masks: a planted change under an `ignore` rectangle passes; the heat map hatches the
/// rectangle; the saved image keeps it. A failing view says at what thresholds it would pass,
/// and it does pass at them.
#[test]
fn a_mask_over_a_change_passes_and_a_failure_says_what_would_pass() {
    let dir = scratch("mask");
    let p = ten_views(&dir, "");
    let suite = Suite::load(&p).unwrap();
    run(&suite, &mut Fake::new("f"), &dir.join("o"), Some(BlessMode::Changed), None);
    let mut planted = Fake::new("f");
    planted.planted = vec!["v0".into()];
    let r = run(&suite, &mut planted, &dir.join("o"), None, None);
    let msg = r.views[0].message.clone().unwrap();
    assert_eq!(r.views[0].status, Status::Fail);
    let hint = msg.split("passes at ").nth(1).unwrap_or_else(|| panic!("no hint in '{msg}'"));
    // The hint's thresholds, applied (either alternative of a clause), pass the view.
    let text = std::fs::read_to_string(&p).unwrap();
    for alternative in 0..2 {
        let keys: Vec<String> = hint
            .split("; ")
            .map(|c| {
                let alts: Vec<&str> = c.split(", or ").collect();
                let c = alts[alternative.min(alts.len() - 1)];
                let (k, v) = c.split_once(' ').unwrap();
                match v.strip_suffix(" %") {
                    Some(pc) => format!("{k} = {}", pc.parse::<f64>().unwrap() / 100.0),
                    None => format!("{k} = {v}"),
                }
            })
            .collect();
        let hinted =
            text.replacen("name = \"v0\"\n", &format!("name = \"v0\"\ntolerance = {{ {} }}\n", keys.join(", ")), 1);
        std::fs::write(&p, &hinted).unwrap();
        let r = run(&Suite::load(&p).unwrap(), &mut planted, &dir.join("o2"), None, None);
        assert_eq!(r.views[0].status, Status::Pass, "{hint}: {keys:?}: {:?}", r.views[0].message);
    }
    // A mask over the block (8..24, 4..12) passes it at the default thresholds.
    let masked = text.replacen("name = \"v0\"\n", "name = \"v0\"\nignore = [[8, 4, 16, 8]]\n", 1);
    std::fs::write(&p, &masked).unwrap();
    let r = run(&Suite::load(&p).unwrap(), &mut planted, &dir.join("o3"), None, None);
    assert_eq!(r.views[0].status, Status::Pass, "{:?}", r.views[0].message);
    let heat = image::open(dir.join("o3/v0.diff.png")).unwrap().to_rgb8();
    assert_eq!(*heat.get_pixel(8, 8), image::Rgb([70, 80, 130]), "hatched");
    let saved = image::open(dir.join("o3/v0.png")).unwrap().to_rgb8();
    assert_eq!(*saved.get_pixel(10, 6), image::Rgb([230, 20, 20]), "the image keeps the masked pixels");
    // A mask that misses it by one pixel does not.
    std::fs::write(&p, text.replacen("name = \"v0\"\n", "name = \"v0\"\nignore = [[9, 4, 15, 8]]\n", 1)).unwrap();
    let r = run(&Suite::load(&p).unwrap(), &mut planted, &dir.join("o4"), None, None);
    assert_eq!(r.views[0].status, Status::Fail);
    // Masks outside the frame, or empty: refused when the file is read.
    for (mask, want) in [("[[40, 0, 9, 4]]", "reaches outside the 48×24 frame"), ("[[0, 0, 0, 4]]", "is empty")] {
        std::fs::write(&p, text.replacen("name = \"v0\"\n", &format!("name = \"v0\"\nignore = {mask}\n"), 1)).unwrap();
        let e = Suite::load(&p).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("view 'v0'"), "{e}");
    }
}

/// Per-renderer tolerances: `[tolerance.renderer."PATTERN"]` refines the thresholds on the
/// renderers whose text matches (case-insensitive, `*` for any run), the longest pattern last;
/// the report names the renderer, and a reference blessed on another renderer says so.
#[test]
fn renderer_tolerances_apply_where_the_pattern_matches_and_the_report_names_the_renderer() {
    let dir = scratch("renderers");
    let extra = "[tolerance.renderer.\"llvmpipe\"]\nmax_mean_delta_e = 8\nmin_similarity = 0.8\nmax_mean_flip = 0.5\nmax_flip_changed = 1\n\
                 [tolerance.renderer.\"llvmpipe*fake 1.0*\"]\nmax_changed = 0.9\n";
    let p = ten_views(&dir, extra);
    let suite = Suite::load(&p).unwrap();
    run(&suite, &mut Fake::new("NVIDIA H100"), &dir.join("o"), Some(BlessMode::Changed), None);
    // The same frames on "llvmpipe", a few levels bluer: within its tolerance.
    let mut cpu = Fake::new("llvmpipe (LLVM 15.0.6, 256 bits)");
    cpu.shift = 12;
    let r = run(&suite, &mut cpu, &dir.join("cpu"), None, None);
    assert_eq!(r.exit_code(), 0, "{:?}", r.views.iter().map(|v| v.message.clone()).collect::<Vec<_>>());
    let t = r.views[0].tolerance.unwrap();
    assert_eq!((t.max_mean_delta_e, t.max_changed, t.delta_e, t.min_similarity), (8.0, 0.9, 10.0, 0.8));
    assert_eq!(r.renderer.as_ref().unwrap().name, "llvmpipe (LLVM 15.0.6, 256 bits)");
    assert!(r.views.iter().all(|v| v.reference_renderer.as_ref().is_some_and(|x| x.name == "NVIDIA H100")));
    assert!(r.notes.iter().any(|n| n.contains("blessed on NVIDIA H100")), "{:?}", r.notes);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("cpu/report.json")).unwrap()).unwrap();
    assert_eq!(json["renderer"]["driver_info"], "Fake 1.0");
    assert_eq!(json["views"][0]["reference_renderer"]["name"], "NVIDIA H100");
    // On another renderer the same shift fails: the defaults hold there.
    let mut other = Fake::new("AMD Radeon");
    other.shift = 12;
    let r = run(&suite, &mut other, &dir.join("amd"), None, None);
    assert_eq!(r.exit_code(), 1);
    // Patterns: substring without `*`, anchored glob with it, both case-insensitive.
    use isla::suite::pattern_matches;
    assert!(pattern_matches("LLVMPIPE", "llvmpipe (LLVM 15) llvmpipe Mesa 22.3.6 Vulkan"));
    assert!(pattern_matches("*mesa 22.*", "llvmpipe (LLVM 15) llvmpipe Mesa 22.3.6 Vulkan"));
    assert!(!pattern_matches("mesa 22.*", "llvmpipe (LLVM 15) llvmpipe Mesa 22.3.6 Vulkan"));
    assert!(!pattern_matches("*mesa 23.*", "llvmpipe (LLVM 15) llvmpipe Mesa 22.3.6 Vulkan"));
    // A renderer table with a value out of range is refused naming the pattern.
    std::fs::write(&p, std::fs::read_to_string(&p).unwrap().replace("max_changed = 0.9", "max_changed = 2")).unwrap();
    let e = Suite::load(&p).unwrap_err().to_string();
    assert!(e.contains("renderer \"llvmpipe*fake 1.0*\": max_changed must be 0..=1"), "{e}");
}

/// Every file of the references folder, by name, with its bytes.
fn folder(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// SPEC §8 "Suites in CI": `--bless-from DIR` refuses a view whose request (its pose, size or
/// settings) changed since DIR's run, whatever the mode and selection: that run's image is
/// another request's picture. The refusal is one line naming the view and both requests (the
/// CLI prints it and exits 2), and no reference or record is written. With the suite as it was,
/// the same bless goes through.
#[test]
fn bless_from_refuses_an_image_rendered_for_another_request() {
    let dir = scratch("from-request");
    let p = ten_views(&dir, "");
    let text = std::fs::read_to_string(&p).unwrap();
    let suite = Suite::load(&p).unwrap();
    let (refs, ci) = blessed_then_ci(&suite, &dir, &["v3"]);
    let held = folder(&refs);
    let then = suite.views[3].request();
    let changes = [
        ("the sun", text.replacen("sun_elevation = 25\n", "sun_elevation = 26\n", 1)),
        ("the pose", text.replacen("look_from = [3, 100, 0]", "look_from = [3, 101, 0]", 1)),
        ("the size", text.replacen("name = \"v3\"\n", "name = \"v3\"\nwidth = 50\n", 1)),
        ("the switches", text.replacen("name = \"v3\"\n", "name = \"v3\"\nshading = \"normals\"\n", 1)),
    ];
    for (what, changed) in changes {
        assert_ne!(changed, text, "{what}: the edit applies");
        std::fs::write(&p, &changed).unwrap();
        for only in [vec![], vec!["v3".to_string()]] {
            let mut now = Suite::load(&p).unwrap();
            now.select(&only).unwrap();
            let asked = now.views.iter().find(|v| v.name == "v3").unwrap().request();
            assert_ne!(asked, then, "{what}: the request changes");
            for mode in [BlessMode::Changed, BlessMode::Failed, BlessMode::New] {
                let e = isla::suite::bless_from(&now, &ci, mode).expect_err(what);
                assert!(
                    e.contains("view 'v3'") && e.contains(&format!("'{then}'")) && e.contains(&format!("'{asked}'")),
                    "{what}, {mode:?}, only {only:?}: wanted the view and both requests in: {e}"
                );
                assert!(e.starts_with(&ci.display().to_string()) && !e.contains('\n'), "{e}");
                assert_eq!(folder(&refs), held, "{what}, {mode:?}: nothing written");
            }
        }
    }
    // The suite as it was: v3 (failed in that run) is blessed from it.
    std::fs::write(&p, &text).unwrap();
    let done = isla::suite::bless_from(&Suite::load(&p).unwrap(), &ci, BlessMode::Failed).unwrap();
    assert_eq!(done.written, ["v3"]);
    assert_eq!(std::fs::read(refs.join("v3.png")).unwrap(), std::fs::read(ci.join("v3.png")).unwrap());
}

/// SPEC §8 "Tolerances per renderer": where several `[tolerance.renderer."PATTERN"]` tables
/// match, they refine the thresholds the file's before the view's and a shorter pattern before a
/// longer, so the most specific has the last word, in whatever order the file lists them. Read
/// from the thresholds each view was judged by in `report.json`.
#[test]
fn the_most_specific_renderer_tolerance_has_the_last_word() {
    let dir = scratch("tolerance-order");
    // Listed longest first, and their names' order is not their lengths' ("llvmpipe*…" < "vulkan").
    let extra = "[tolerance.renderer.\"llvmpipe*fake 1.0*\"]\ndelta_e = 15\nmax_changed = 0.4\n\
                 [tolerance.renderer.\"vulkan\"]\ndelta_e = 20\nmax_changed = 0.5\nmin_similarity = 0.5\n\
                 [tolerance.renderer.\"amd\"]\ndelta_e = 30\nmax_mean_delta_e = 3\n";
    let p = ten_views(&dir, extra);
    // v4's own tables: shorter than the file's, yet they come after them; "(llvm 15" < "bits" by name.
    let text = std::fs::read_to_string(&p).unwrap().replacen(
        "name = \"v4\"\n",
        "name = \"v4\"\ntolerance = { renderer = { \"(llvm 15\" = { delta_e = 11 }, bits = { delta_e = 12, max_mean_delta_e = 4 } } }\n",
        1,
    );
    std::fs::write(&p, text).unwrap();
    let suite = Suite::load(&p).unwrap();
    let judged_by = |out: &Path, view: usize| {
        let json: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        let t = &json["views"][view]["tolerance"];
        ["min_similarity", "delta_e", "max_changed", "max_mean_delta_e"].map(|k| t[k].as_f64().unwrap())
    };
    let cpu = dir.join("cpu");
    run(&suite, &mut Fake::new("llvmpipe (LLVM 15.0.6, 256 bits)"), &cpu, None, None);
    // v0: the defaults, then "vulkan", then "llvmpipe*fake 1.0*"; "amd" does not match.
    assert_eq!(judged_by(&cpu, 0), [0.5, 15.0, 0.4, 1.0]);
    // v4: the file's two, then its own "bits", then its own "(llvm 15".
    assert_eq!(judged_by(&cpu, 4), [0.5, 11.0, 0.4, 4.0]);
    // Another renderer: "amd", then "vulkan" (longer), over the defaults.
    let amd = dir.join("amd");
    run(&suite, &mut Fake::new("AMD Radeon"), &amd, None, None);
    assert_eq!(judged_by(&amd, 0), [0.5, 20.0, 0.5, 3.0]);
    assert_eq!(judged_by(&amd, 4), [0.5, 20.0, 0.5, 3.0]);
}

/// SPEC §8 "Suites in CI": `--bless-from DIR` takes a view's image only where it is a PNG at the
/// view's size: another size, bytes that are not a PNG, or no image at all is refused in one
/// line naming the file, before anything is written (here the views before it in the file
/// would be blessed).
#[test]
fn bless_from_refuses_an_image_of_another_size_or_not_a_png() {
    let dir = scratch("from-image");
    let p = ten_views(&dir, "");
    let suite = Suite::load(&p).unwrap();
    let (refs, ci) = blessed_then_ci(&suite, &dir, &["v2", "v7"]);
    let held = folder(&refs);
    let image = ci.join("v7.png");
    let small = image::RgbImage::from_pixel(47, 24, image::Rgb([1, 2, 3]));
    small.save(&image).unwrap();
    let e = isla::suite::bless_from(&suite, &ci, BlessMode::Changed).unwrap_err();
    assert_eq!(e, format!("{}: 47×24, the view is 48×24", image.display()));
    assert_eq!(folder(&refs), held, "v2 not blessed either");
    std::fs::write(&image, b"\x89PNG\r\n\x1a\n not really").unwrap();
    let e = isla::suite::bless_from(&suite, &ci, BlessMode::Failed).unwrap_err();
    assert!(e.starts_with(&format!("{}: not a PNG", image.display())) && !e.contains('\n'), "{e}");
    std::fs::remove_file(&image).unwrap();
    let e = isla::suite::bless_from(&suite, &ci, BlessMode::Changed).unwrap_err();
    assert!(e.starts_with(&format!("{}: cannot read", image.display())) && !e.contains('\n'), "{e}");
    assert_eq!(folder(&refs), held, "nothing written");
}

/// SPEC §8 "Tolerances per renderer": a renderer pattern is 1–200 characters. Blank, or 201
/// characters long, the file is refused in one line naming the pattern; 200 characters load.
#[test]
fn a_renderer_pattern_is_1_to_200_characters() {
    let dir = scratch("pattern-length");
    for (pattern, refused) in [
        (String::new(), true),
        ("  ".into(), true),
        ("x".repeat(201), true),
        ("x".repeat(200), false),
        ("x".into(), false),
    ] {
        let p = ten_views(&dir, &format!("[tolerance.renderer.\"{pattern}\"]\ndelta_e = 12\n"));
        match Suite::load(&p) {
            Err(e) if refused => {
                let e = e.to_string();
                assert!(
                    e.contains(&format!("renderer pattern '{pattern}' must be 1–200 characters")) && !e.contains('\n'),
                    "{e}"
                );
            }
            Ok(s) if !refused => assert_eq!(s.views[0].renderer_tolerance.len(), 1),
            other => panic!("pattern of {} characters: {:?}", pattern.len(), other.map(|_| ())),
        }
    }
}
