//! Screenshot tests (SPEC §8): Isla's own suites (`tests/screenshots/*.toml`) run through
//! `isla suite`, the same code and comparison a user's suites use, plus assertions that hold
//! whatever the references are.
//!
//! - References live in `tests/screenshots/*.png`; the metric, its thresholds and how they were
//!   chosen are in `tests/screenshots/README.md`.
//! - On a mismatch the suite's report (actual, reference and a difference heat map side by side)
//!   is under `target/screenshot-output/SUITE/report.html`, and the failure names it.
//! - `ISLA_BLESS=1 cargo test --test app screenshots` runs the suites with `--bless`. Look at every
//!   blessed image before committing it.

use crate::common::{luma, render_shot, repo};
use std::path::{Path, PathBuf};
use std::process::Command;

const W: u32 = 160;
const H: u32 = 90;
const SMALL: &str = "blueprints/small.dat";

/// `isla shot` at the references' size.
fn render(blueprint: &str, args: &[&str], name: &str) -> image::RgbImage {
    render_shot(blueprint, (W, H), args, &format!("{name}.png"))
}

/// What one run of `isla suite` gave: its exit code, stderr, and `report.json`.
struct SuiteRun {
    code: i32,
    stderr: String,
    report: serde_json::Value,
    out: PathBuf,
}

impl SuiteRun {
    fn status(&self, view: &str) -> String {
        let v = self.report["views"].as_array().unwrap().iter().find(|v| v["name"] == view);
        v.unwrap_or_else(|| panic!("no view {view} in the report"))["status"].as_str().unwrap().to_string()
    }
}

/// Run `isla suite` on `suite` with `extra` arguments and environment.
fn run_suite(suite: &Path, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> SuiteRun {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_isla"));
    cmd.arg("suite").arg(suite).arg("--out").arg(out).args(extra).current_dir(repo(""));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let run = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    let report = std::fs::read(out.join("report.json"))
        .map(|b| serde_json::from_slice(&b).unwrap())
        .unwrap_or(serde_json::Value::Null);
    SuiteRun { code: run.status.code().unwrap_or(-1), stderr, report, out: out.to_path_buf() }
}

/// One of Isla's own suites, run once per test binary (blessed with `ISLA_BLESS=1`).
fn own_suite(name: &str) -> &'static SuiteRun {
    static RUNS: [std::sync::OnceLock<SuiteRun>; 2] = [const { std::sync::OnceLock::new() }; 2];
    let i = ["small", "default"].iter().position(|n| *n == name).expect("an own suite");
    RUNS[i].get_or_init(|| {
        let bless = std::env::var("ISLA_BLESS").is_ok_and(|v| v == "1");
        let out = repo(&format!("target/screenshot-output/{name}"));
        let r = run_suite(
            &repo(&format!("tests/screenshots/{name}.toml")),
            &out,
            if bless { &["--bless"] } else { &[] },
            &[],
        );
        eprintln!("{}", r.stderr);
        r
    })
}

/// Every view of an own suite passes against its committed reference.
fn assert_suite_passes(name: &str) {
    let r = own_suite(name);
    assert_eq!(r.code, 0, "suite {name} failed; see {}\n{}", r.out.join("report.html").display(), r.stderr);
    for v in r.report["views"].as_array().unwrap() {
        assert_eq!(v["status"], "pass", "{v}");
    }
}

const PRESETS: [&str; 4] = ["overview", "coast", "crater", "underwater"];

/// The small island from `preset`, as the own suite rendered it (once for every test of this
/// binary that reads it).
fn small_preset(preset: &str) -> &'static image::RgbImage {
    static SHOTS: [std::sync::OnceLock<image::RgbImage>; 4] = [const { std::sync::OnceLock::new() }; 4];
    let i = PRESETS.iter().position(|p| *p == preset).expect("a camera preset");
    SHOTS[i].get_or_init(|| {
        let r = own_suite("small");
        image::open(r.out.join(format!("small-{preset}.png"))).unwrap_or_else(|e| panic!("{e}\n{}", r.stderr)).to_rgb8()
    })
}

#[test]
fn presets_match_their_references() {
    assert_suite_passes("small");
    assert_suite_passes("default");
}

/// SPEC §8 "Suites in CI": the report names the renderer that drew the frames (the adapter, its
/// driver and backend, as the driver reports them), and says which views were checked on
/// another renderer than their reference was blessed on.
#[test]
fn the_report_names_the_renderer() {
    let r = own_suite("small");
    let renderer = &r.report["renderer"];
    for key in ["name", "driver", "driver_info", "backend", "device_type", "isla"] {
        assert!(renderer[key].as_str().is_some_and(|s| !s.is_empty()), "renderer.{key}: {renderer}");
    }
    assert_eq!(renderer["backend"], "Vulkan");
    assert!(r.stderr.contains(&format!("renderer: {}", renderer["name"].as_str().unwrap())), "{}", r.stderr);
    assert_eq!(r.report["suite"]["views"], 4);
    assert!(
        r.report["views"].as_array().unwrap().iter().all(|v| v["request"].as_str().unwrap().contains(";size=160x90"))
    );
}

/// The worked GitHub Actions workflow (docs/ci/github-actions.yml): its shell steps, run here by
/// scripts/ci-example — three shards, the merge with ::error lines, a step summary and JUnit,
/// a bless from the merged report — do what the workflow expects.
#[test]
fn the_ci_workflows_steps_run_here() {
    let run = Command::new(repo("scripts/ci-example")).env("ISLA", env!("CARGO_BIN_EXE_isla")).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "{out}\n{err}");
    assert!(out.contains("the suite passes: OK"), "{out}");
}

/// SPEC §8 "Suites in CI", bad input: a malformed shard, a mask outside the frame, a --merge or
/// --bless-from folder with no report or of another suite are refused with one line and exit 2,
/// and nothing is written.
#[test]
fn bad_ci_input_is_refused_in_one_line_writing_nothing() {
    let dir = repo("target/screenshot-output/bad-ci");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let small = repo("tests/screenshots/small.toml");
    let other = dir.join("other.toml");
    std::fs::write(
        &other,
        format!(
            "blueprint = \"{}\"\nreferences = \"refs\"\nwidth = 32\nheight = 18\n[[view]]\nname = \"a\"\npreset = \"coast\"\n",
            repo("blueprints/small.dat").display()
        ),
    )
    .unwrap();
    // An output of another suite (written with --bless so its folder has a report).
    let made = run_suite(&other, &dir.join("other-out"), &["--bless"], &[]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let masked = dir.join("masked.toml");
    std::fs::write(&masked, std::fs::read_to_string(&other).unwrap() + "ignore = [[30, 0, 3, 1]]\n").unwrap();
    let out = dir.join("out");
    let s = |p: &Path| p.display().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![s(&small), "--shard".into(), "0/2".into()], "is not K/N"),
        (vec![s(&small), "--shard".into(), "3/2".into()], "is not K/N"),
        (vec![s(&small), "--shard".into(), "x/y".into()], "is not K/N"),
        (vec![s(&masked)], "reaches outside the 32×18 frame"),
        (vec![s(&small), "--merge".into(), s(&dir.join("empty"))], "no report.json"),
        (vec![s(&small), "--merge".into(), s(&dir.join("other-out"))], "made from another suite"),
        (vec![s(&small), "--bless-from".into(), s(&dir.join("empty"))], "no report.json"),
        (vec![s(&small), "--bless-from".into(), s(&dir.join("other-out"))], "made from another suite"),
        (vec![s(&small), "--bless=sometimes".into()], "unknown bless mode"),
    ];
    let refs_before: Vec<Vec<u8>> = ["overview", "coast", "crater", "underwater"]
        .map(|p| std::fs::read(repo(&format!("tests/screenshots/small-{p}.png"))).unwrap())
        .into();
    let records = || {
        ["overview", "coast", "crater", "underwater"]
            .map(|p| std::fs::read(repo(&format!("tests/screenshots/small-{p}.bless.json"))).ok())
    };
    let records_before = records();
    for (args, want) in cases {
        let run = Command::new(env!("CARGO_BIN_EXE_isla"))
            .arg("suite")
            .args(&args)
            .arg("--out")
            .arg(&out)
            .current_dir(repo(""))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: wanted '{want}' in {err}");
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    let refs_after: Vec<Vec<u8>> = ["overview", "coast", "crater", "underwater"]
        .map(|p| std::fs::read(repo(&format!("tests/screenshots/small-{p}.png"))).unwrap())
        .into();
    assert_eq!(refs_before, refs_after, "no reference touched");
    assert_eq!(records_before, records(), "no bless record written or changed");
}

/// Each camera preset shows what its name promises: the coast looks low over the sea (the lower
/// third is water), and from underwater the top rows are the sheet seen from below (bluish and
/// darker than the open sky's zenith in the overview).
#[test]
fn every_camera_preset_renders_what_its_name_promises() {
    let (overview, coast, under) = (small_preset("overview"), small_preset("coast"), small_preset("underwater"));
    assert_ne!(overview, coast);
    let lower: Vec<_> =
        (62..H).flat_map(|y| (0..W).map(move |x| (x, y))).map(|(x, y)| *coast.get_pixel(x, y)).collect();
    let blue = lower.iter().filter(|p| p[2] as i32 > p[0] as i32 + 20).count();
    assert!(blue * 100 > lower.len() * 70, "coast preset: only {blue} of {} lower pixels are water", lower.len());
    let sky_top = luma(overview.get_pixel(80, 1));
    let under_top = luma(under.get_pixel(80, 1));
    let p = under.get_pixel(80, 1);
    assert!(p[2] > p[0], "underwater top is bluish: {p:?}");
    assert!(under_top < sky_top, "underwater top ({under_top}) is darker than the open sky ({sky_top})");
}

#[test]
fn rendering_the_same_preset_twice_is_repeatable() {
    // Two processes: the shared render and a fresh one.
    let a = small_preset("coast");
    let b = render(SMALL, &["--preset", "coast"], "repeat-b");
    // Deterministic all the way: the same pixels, not merely similar ones.
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "two renders of one preset differ in {differing} pixels");
}

/// A camera straight above a point, east up in the frame.
fn top_down(x_m: f32, z_m: f32, height_m: f32) -> Vec<String> {
    vec!["--look-from".into(), format!("{x_m},{height_m},{z_m}"), "--look-at".into(), format!("{x_m},0,{z_m}")]
}

#[test]
fn shallow_water_is_lighter_than_deep_water_along_a_transect() {
    // From the middle of the island eastwards to the first ocean pixel, then look straight down
    // at a point 40 columns further out: east (offshore) is up in the frame, the shore below.
    let bp = isla::blueprint::read_file(&repo(SMALL)).unwrap();
    let n = bp.map_size;
    let ids = &bp.water.as_ref().unwrap().body_ids;
    let y = n / 2;
    let coast = (n / 2..n).find(|&x| ids[bp.index(x, y)] == 1).expect("ocean east of the centre");
    let m = bp.params.metres_per_pixel;
    let args = top_down((coast + 40) as f32 * m, y as f32 * m, 1800.0);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let img = render(SMALL, &args, "transect");
    // Water pixels of the centre column, from the shore (bottom) out to sea (top).
    let water: Vec<f32> = (0..H)
        .rev()
        .map(|yy| *img.get_pixel(W / 2, yy))
        .filter(|p| p[2] as i32 > p[0] as i32 + 15)
        .map(|p| luma(&p))
        .collect();
    assert!(water.len() > (H as usize) / 2, "the transect is mostly water: {} px", water.len());
    let third = water.len() / 3;
    let near: f32 = water[..third].iter().sum::<f32>() / third as f32;
    let far: f32 = water[water.len() - third..].iter().sum::<f32>() / third as f32;
    assert!(
        near > far + 10.0,
        "shallow water near the shore (luma {near:.0}) is lighter than deep water offshore ({far:.0})"
    );
}

#[test]
fn the_crater_seam_ring_is_drawn_wet() {
    // Straight down over the crater: with the seam highlight, the shoreline-seam columns turn
    // magenta — only inside the crater — and without it the sheet is drawn over the same pixels.
    let bp = isla::blueprint::read_file(&repo(SMALL)).unwrap();
    let p = bp.params;
    assert!(p.crater_radius > 0.0, "small.dat has a crater");
    let (cx, cz, r) =
        (p.crater_x * p.metres_per_pixel, p.crater_y * p.metres_per_pixel, p.crater_radius * p.metres_per_pixel);
    let args = top_down(cx, cz, r * 2.2);
    let mut hl: Vec<&str> = args.iter().map(String::as_str).collect();
    let plain = render(SMALL, &hl, "crater-plain");
    hl.push("--seam-highlight");
    let highlighted = render(SMALL, &hl, "crater-seam");
    let magenta = |q: &image::Rgb<u8>| q[0] as i32 > q[1] as i32 + 60 && q[2] as i32 > q[1] as i32 + 40;
    let ring: Vec<(u32, u32)> =
        highlighted.enumerate_pixels().filter(|(_, _, q)| magenta(q)).map(|(x, y, _)| (x, y)).collect();
    assert!(ring.len() > 20, "seam columns highlighted: {} px", ring.len());
    assert!(plain.pixels().filter(|q| magenta(q)).count() == 0, "no magenta without the highlight");
    // Inside the crater: the frame spans ±1.15 r vertically around the crater's centre.
    let px_per_m = H as f32 / (2.0 * (r * 2.2) * (55f32.to_radians() / 2.0).tan());
    for &(x, y) in &ring {
        let d = (((x as f32 - W as f32 / 2.0).powi(2) + (y as f32 - H as f32 / 2.0).powi(2)).sqrt()) / px_per_m;
        assert!(d <= r * 1.1, "highlighted pixel ({x}, {y}) lies {d:.0} m from the crater centre (radius {r:.0} m)");
    }
    // Without the highlight the sheet is drawn there: each ring pixel is bluer than the same pixel
    // with the water hidden. (The per-pixel body lets the floor of shallow water show through and
    // puts foam on the waterline, so a shallow seam column is not plain teal.)
    let dry = render(SMALL, &[&hl[..hl.len() - 1], &["--no-water"][..]].concat(), "crater-dry");
    let blue = |q: &image::Rgb<u8>| q[2] as i32 - q[0] as i32;
    let wet = ring.iter().filter(|&&(x, y)| blue(plain.get_pixel(x, y)) >= blue(dry.get_pixel(x, y)) + 4).count();
    eprintln!("seam ring: {} px highlighted, {wet} of them bluer with the water drawn", ring.len());
    assert!(
        wet * 10 >= ring.len() * 9,
        "the seam ring is not drawn wet without the highlight: {wet} of {}",
        ring.len()
    );
}

/// The comparison fails on a real change of the renderer, planted through the test-only
/// `ISLA_TEST_PLANT` switch: the water ramp's hue turned 5° fails the crater view (the most
/// water in frame), the sun without shadows fails the coast. The unplanted render of the same
/// suite passes (`presets_match_their_references`).
#[test]
fn a_planted_change_in_the_renderer_fails_the_suite() {
    for (plant, view) in [("water-hue=5", "small-crater"), ("no-shadows", "small-coast")] {
        let out = repo(&format!("target/screenshot-output/plant-{plant}"));
        let r = run_suite(&repo("tests/screenshots/small.toml"), &out, &[], &[("ISLA_TEST_PLANT", plant)]);
        eprintln!("{plant}:\n{}", r.stderr);
        assert_eq!(r.code, 1, "{plant}: the suite passed\n{}", r.stderr);
        assert_eq!(r.status(view), "fail", "{plant}: {view}");
        assert!(out.join(format!("{view}.diff.png")).is_file(), "{plant}: a heat map of {view}");
    }
    assert_suite_passes("small");
}

/// SPEC §4 "Materials": sand and rock are decided per pixel with noise on the thresholds, so no
/// material boundary follows the 4 m column grid. Straight down on the crater bay of the default
/// island (about 4 pixels a column), the boundary of the dry sand is traced on a 5×5-smoothed
/// mask; the share of its pixels whose boundary direction lies within 3° of an image axis is at
/// most twice what random directions give (6° of every 90°: 6.7 %). Measured: 7.6 % with the
/// per-pixel materials; 14.4 % with the per-vertex colours they replaced, which fail.
#[test]
fn material_boundaries_do_not_follow_the_column_grid() {
    let bp = isla::blueprint::read_file(&repo("blueprints/default.dat")).unwrap();
    let (m, p) = (bp.params.metres_per_pixel, &bp.params);
    let (w, h) = (960u32, 540u32);
    let args = top_down(p.crater_x * m, p.crater_y * m, 500.0);
    let out = repo("target/screenshot-output/crater-top.png");
    let run = Command::new(env!("CARGO_BIN_EXE_isla"))
        .args(["shot", "blueprints/default.dat", "--width", &w.to_string(), "--height", &h.to_string(), "--out"])
        .arg(&out)
        .args(&args)
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let img = image::open(&out).unwrap().to_rgb8();
    let sand = |p: &image::Rgb<u8>| p[0] > 150 && p[0] as i32 > p[2] as i32 + 40 && p[1] as i32 > p[2] as i32 + 10;
    let (wi, hi) = (w as i64, h as i64);
    let mask: Vec<f32> = img.pixels().map(|p| sand(p) as u8 as f32).collect();
    let at = |v: &[f32], x: i64, y: i64| v[(y.clamp(0, hi - 1) * wi + x.clamp(0, wi - 1)) as usize];
    let mut blur = vec![0f32; mask.len()];
    for y in 0..hi {
        for x in 0..wi {
            let mut s = 0.0;
            for dy in -2..=2 {
                for dx in -2..=2 {
                    s += at(&mask, x + dx, y + dy);
                }
            }
            blur[(y * wi + x) as usize] = s / 25.0;
        }
    }
    let (mut boundary, mut aligned) = (0usize, 0usize);
    for y in 1..hi - 1 {
        for x in 1..wi - 1 {
            let b = at(&blur, x, y);
            if !(0.25..=0.75).contains(&b) {
                continue;
            }
            let gx = at(&blur, x + 1, y - 1) + 2.0 * at(&blur, x + 1, y) + at(&blur, x + 1, y + 1)
                - at(&blur, x - 1, y - 1)
                - 2.0 * at(&blur, x - 1, y)
                - at(&blur, x - 1, y + 1);
            let gy = at(&blur, x - 1, y + 1) + 2.0 * at(&blur, x, y + 1) + at(&blur, x + 1, y + 1)
                - at(&blur, x - 1, y - 1)
                - 2.0 * at(&blur, x, y - 1)
                - at(&blur, x + 1, y - 1);
            if gx.abs() + gy.abs() < 0.05 {
                continue;
            }
            let a = gy.atan2(gx).to_degrees().rem_euclid(90.0);
            boundary += 1;
            aligned += (a.min(90.0 - a) < 3.0) as usize;
        }
    }
    let share = aligned as f64 / boundary.max(1) as f64;
    eprintln!("sand boundary: {boundary} pixels, {:.1} % within 3° of an axis (random: 6.7 %)", share * 100.0);
    assert!(boundary > 500, "too little sand boundary in view ({boundary} pixels) to judge");
    assert!(share <= 2.0 * 6.0 / 90.0, "{:.1} % of the sand boundary is axis-aligned", share * 100.0);
}

/// `isla shot` prints the view it rendered; that string given back with `--view` renders the
/// very same bytes — for an explicit camera with sun and switch flags, and for a preset.
#[test]
fn a_shot_from_its_printed_view_string_is_byte_identical() {
    let dir = repo("target/screenshot-output");
    std::fs::create_dir_all(&dir).unwrap();
    let shot = |args: &[&str], name: &str| -> (Vec<u8>, String) {
        let out = dir.join(format!("{name}.png"));
        let run = Command::new(env!("CARGO_BIN_EXE_isla"))
            .args(["shot", SMALL, "--width", "160", "--height", "90", "--out"])
            .arg(&out)
            .args(args)
            .current_dir(repo(""))
            .output()
            .unwrap();
        assert!(run.status.success(), "{name}: {}", String::from_utf8_lossy(&run.stderr));
        let stdout = String::from_utf8(run.stdout).unwrap();
        let view = stdout.lines().find_map(|l| l.strip_prefix("view: ")).expect("a view: line").to_string();
        assert_eq!(stdout.lines().count(), 1, "one line on stdout: {stdout}");
        (std::fs::read(&out).unwrap(), view)
    };
    let flags = [
        "--look-from",
        "700,220,1300",
        "--look-at",
        "500,20,500",
        "--sun-elevation",
        "21.5",
        "--sun-azimuth",
        "130",
        "--no-fog",
        "--no-shadows",
    ];
    let (a, view) = shot(&flags, "view-flags");
    assert_eq!(view, "isla:v1;from=700,220,1300;at=500,20,500;sun=21.5,130;off=shadows,fog");
    let (b, again) = shot(&["--view", &view], "view-string");
    assert_eq!(again, view);
    assert!(a == b, "the view string's shot differs from the flags' shot");
    let (c, preset_view) = shot(&["--preset", "coast"], "view-preset");
    let (d, _) = shot(&["--view", &preset_view], "view-preset-string");
    assert!(c == d, "the coast preset's view string renders differently: {preset_view}");
}

#[test]
fn a_malformed_view_string_or_suite_file_is_one_line_and_exit_code_2() {
    let run = Command::new(env!("CARGO_BIN_EXE_isla"))
        .args(["shot", SMALL, "--out", "target/never.png", "--view", "isla:v1;from=1,2,3"])
        .current_dir(repo(""))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("at: missing"), "{err}");

    let dir = repo("target/screenshot-output/bad-suite");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("bad.toml");
    for (text, want) in [
        (
            "blueprint = \"../../../blueprints/small.dat\"\n[[view]]\nname = \"a\"\npreset = \"coast\"\nlook_from = [1, 2, 3]\nlook_at = [4, 5, 6]\n",
            "more than one pose",
        ),
        (
            "blueprint = \"../../../blueprints/small.dat\"\ncolour = 1\n[[view]]\nname = \"a\"\npreset = \"coast\"\n",
            "unknown field `colour`",
        ),
        ("blueprint = \"nowhere.dat\"\n[[view]]\nname = \"a\"\npreset = \"coast\"\n", "does not exist"),
    ] {
        std::fs::write(&suite, text).unwrap();
        let out = dir.join("out");
        let r = run_suite(&suite, &out, &[], &[]);
        assert_eq!(r.code, 2, "{want}: {}", r.stderr);
        assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
        assert!(r.stderr.contains("bad.toml") && r.stderr.contains(want), "{}", r.stderr);
        assert!(!out.exists(), "nothing is written for a bad suite file");
    }
}

/// SPEC §8 "Suites", with the real renderer: a new suite has no references (exit 1, every view
/// `new`, nothing blessed); `--bless` then a plain run both exit 0 with every view `pass` and the
/// report linking its images; keeping the references, a view turned to `off = ["water"]` and
/// another to `sun_elevation = 12` fail alone (exit 1).
#[test]
fn a_users_suite_blesses_passes_and_fails_only_the_changed_views() {
    let dir = repo("target/screenshot-output/user-suite");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("island.toml");
    let text = "blueprint = \"../../../blueprints/small.dat\"\nreferences = \"refs\"\nwidth = 96\nheight = 54\n\
                [[view]]\nname = \"overview\"\npreset = \"overview\"\n\
                [[view]]\nname = \"coast\"\npreset = \"coast\"\n\
                [[view]]\nname = \"harbour\"\nlook_from = [2600, 260, 2700]\nlook_at = [2300, 80, 2300]\n";
    std::fs::write(&suite, text).unwrap();
    let out = dir.join("out");
    let r = run_suite(&suite, &out, &[], &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(["overview", "coast", "harbour"].iter().all(|v| r.status(v) == "new"));
    assert!(!dir.join("refs").exists(), "nothing is blessed without --bless");
    for args in [&["--bless"][..], &[][..]] {
        let r = run_suite(&suite, &out, args, &[]);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(["overview", "coast", "harbour"].iter().all(|v| r.status(v) == "pass"), "{args:?}: {}", r.report);
        assert_eq!(r.report["passed"], 3);
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for link in html.split("href=\"").skip(1).map(|s| s.split('"').next().unwrap()) {
        assert!(out.join(link).is_file(), "report.html links {link}, which does not exist");
    }
    let changed = text
        .replace("preset = \"coast\"\n", "preset = \"coast\"\noff = [\"water\"]\n")
        .replace("look_at = [2300, 80, 2300]\n", "look_at = [2300, 80, 2300]\nsun_elevation = 12\n");
    std::fs::write(&suite, changed).unwrap();
    let r = run_suite(&suite, &out, &[], &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        (r.status("overview"), r.status("coast"), r.status("harbour")),
        ("pass".into(), "fail".into(), "fail".into())
    );
    assert!(out.join("coast.diff.png").is_file() && out.join("harbour.diff.png").is_file());
}
