//! View strings, suite files and the suite runner, without Bevy: the runner is driven by a
//! stand-in renderer whose pictures depend on the view the way a real one's do (the sun's height
//! darkens it, the water switch changes the lower half), so bless, pass and fail are exercised
//! end to end. The real renderer's suites are in tests/app/app.rs and tests/app/screenshots.rs.

use isla::compare::{Tolerance, compare};
use isla::suite::{Pose, Renderer, RunOptions, Suite, SuiteView};
use isla::view::View;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-suite").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

// ---- view strings -------------------------------------------------------------------------

#[test]
fn a_view_string_round_trips_to_the_same_floats() {
    let s = "isla:v1;from=1250.125,160,3150.3;at=1356,90.5,-3036;sun=20,300.25;off=shadows,fog;on=lod-colours,path;shading=normals;lod=off";
    let v: View = s.parse().unwrap();
    assert_eq!(v.from, [1250.125, 160.0, 3150.3]);
    assert!(!v.switches.shadows && !v.switches.fog && v.switches.water && v.switches.sky);
    assert!(v.switches.lod_colours && v.switches.path && !v.switches.wireframe && !v.lod);
    assert_eq!(v.to_string(), s, "the canonical form is what was given");
    // Arbitrary floats print in their shortest round-trip form and parse back bit for bit.
    let mut x = 0x1234_5678u32;
    for _ in 0..2000 {
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x as f32 / u32::MAX as f32 - 0.5) * 40_000.0
        };
        let from = [next(), next(), next()];
        let at = [next(), next(), next()];
        let v = View::looking(from, at).unwrap();
        let back: View = v.to_string().parse().unwrap();
        assert_eq!(back, v, "{v}");
    }
}

#[test]
fn keys_may_come_in_any_order_and_defaults_are_left_out() {
    let v: View = "isla:v1;at=1,2,3;from=4,5,6".parse().unwrap();
    assert_eq!(v.to_string(), "isla:v1;from=4,5,6;at=1,2,3;sun=38,45");
    // Spelled-out defaults read as the defaults and are left out of the canonical form.
    let v: View = "isla:v1;from=4,5,6;at=1,2,3;sun=38,45;lod=on;shading=palette;off=;on=".parse().unwrap();
    assert!(v.lod && v.switches == isla::view::Switches::default());
    assert_eq!(v.to_string(), "isla:v1;from=4,5,6;at=1,2,3;sun=38,45");
}

#[test]
fn a_malformed_view_string_is_refused_saying_what_is_wrong() {
    let cases = [
        ("from=1,2,3;at=4,5,6", "starts with 'isla:v1;'"),
        ("isla:v2;from=1,2,3;at=4,5,6", "version 'v2'"),
        ("isla:v1;from=1,2,3", "at: missing"),
        ("isla:v1;at=1,2,3", "from: missing"),
        ("isla:v1;from=1,2;at=4,5,6", "from: expected 3"),
        ("isla:v1;from=1,x,3;at=4,5,6", "'x' is not a number"),
        ("isla:v1;from=1,NaN,3;at=4,5,6", "not a finite number"),
        ("isla:v1;from=1,2,3;at=4,5,6;sun=95,10", "0..=90"),
        ("isla:v1;from=1,2,3;at=1,2,3", "its own position"),
        ("isla:v1;from=1,2,3;at=4,5,6;off=clouds", "unknown part 'clouds'"),
        ("isla:v1;from=1,2,3;at=4,5,6;on=water", "unknown look 'water'"),
        ("isla:v1;from=1,2,3;at=4,5,6;zoom=2", "unknown key 'zoom'"),
        ("isla:v1;from=1,2,3;at=4,5,6;from=1,2,3", "from: given twice"),
        ("isla:v1;from=1,2,3;at=4,5,6;lod=maybe", "lod: expected on or off"),
        ("isla:v1;from=1,2,3;at=4,5,6;junk", "not KEY=VALUE"),
    ];
    for (s, want) in cases {
        let e = s.parse::<View>().expect_err(s).to_string();
        assert!(e.contains(want), "{s}: said '{e}', wanted '{want}'");
        assert!(!e.contains('\n'), "{s}: one line");
    }
}

// ---- suite files --------------------------------------------------------------------------

const GOOD: &str = r#"
blueprint = "bp.dat"
references = "refs"
width = 64
height = 36
[tolerance]
max_changed = 0.01

[[view]]
name = "overview"
preset = "overview"

[[view]]
name = "harbour"
look_from = [1250, 160, 3150]
look_at = [1356, 90, 3036]
sun_elevation = 20
off = ["fog", "shadows"]
lod = "off"
width = 32
[view.tolerance]
delta_e = 5

[[view]]
name = "kept"
view = "isla:v1;from=1,2,3;at=4,5,6;sun=30,90;off=sky"
off = ["water"]
"#;

fn write_suite(dir: &Path, text: &str) -> PathBuf {
    std::fs::write(dir.join("bp.dat"), b"not read by the suite loader").unwrap();
    let p = dir.join("suite.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_suite_file_resolves_every_view() {
    let dir = scratch("resolve");
    let suite = Suite::load(&write_suite(&dir, GOOD)).unwrap();
    assert_eq!(suite.blueprint, dir.join("bp.dat"));
    assert_eq!(suite.references, dir.join("refs"));
    let [o, h, k] = &suite.views[..] else { panic!("three views") };
    assert_eq!(o.pose, Pose::Preset(isla::view::Preset::Overview));
    assert_eq!((o.width, o.height), (64, 36));
    assert_eq!(o.tolerance, Tolerance { max_changed: 0.01, ..Tolerance::default() });
    assert_eq!(h.pose, Pose::Look { from: [1250.0, 160.0, 3150.0], at: [1356.0, 90.0, 3036.0] });
    assert_eq!((h.sun.elevation_deg, h.sun.azimuth_deg), (20.0, 45.0));
    assert!(!h.switches.fog && !h.switches.shadows && h.switches.water && !h.lod);
    assert_eq!((h.width, h.height), (32, 36));
    assert_eq!(h.tolerance, Tolerance { max_changed: 0.01, delta_e: 5.0, ..Tolerance::default() });
    // A view string's settings, refined by the view's own keys.
    assert_eq!((k.sun.elevation_deg, k.sun.azimuth_deg), (30.0, 90.0));
    assert!(!k.switches.sky && !k.switches.water && k.switches.fog);
}

#[test]
fn a_bad_suite_file_is_refused_in_one_line_naming_the_file_and_the_key() {
    let views = "[[view]]\nname = \"a\"\npreset = \"overview\"\n";
    let cases: Vec<(String, &str)> = vec![
        (format!("blueprint = \"bp.dat\"\ncolour = 3\n{views}"), "unknown field `colour`"),
        (format!("blueprint = \"bp.dat\"\n{views}zoom = 2\n"), "unknown field `zoom`"),
        (format!("blueprint = \"missing.dat\"\n{views}"), "blueprint: "),
        (format!("blueprint = \"bp.dat\"\nwidth = 0\n{views}"), "width 0 is outside"),
        (format!("blueprint = \"bp.dat\"\nwidth = 9000\n{views}"), "width 9000 is outside"),
        (format!("blueprint = \"bp.dat\"\n{views}{views}"), "name 'a' is given twice"),
        ("blueprint = \"bp.dat\"\n[[view]]\nname = \"a\"\n".into(), "no pose"),
        (format!("blueprint = \"bp.dat\"\n{views}look_from = [1, 2, 3]\nlook_at = [4, 5, 6]\n"), "more than one pose"),
        ("blueprint = \"bp.dat\"\n[[view]]\nname = \"a\"\nlook_from = [1, 2, 3]\n".into(), "look_from without look_at"),
        ("blueprint = \"bp.dat\"\n[[view]]\nname = \"a\"\nview = \"isla:v9;x\"\n".into(), "view: unsupported"),
        ("blueprint = \"bp.dat\"\n[[view]]\nname = \"a\"\npreset = \"moon\"\n".into(), "unknown preset 'moon'"),
        (format!("blueprint = \"bp.dat\"\n{views}off = [\"clouds\"]\n"), "off: unknown part"),
        (format!("blueprint = \"bp.dat\"\n{views}sun_elevation = 120\n"), "0..=90"),
        (format!("blueprint = \"bp.dat\"\n[tolerance]\nmax_changed = 2\n{views}"), "tolerance: max_changed"),
        ("blueprint = \"bp.dat\"\n[[view]]\nname = \"../x\"\npreset = \"coast\"\n".into(), "name '../x'"),
        ("blueprint = \"bp.dat\"\n".into(), "no [[view]]"),
        ("blueprint = [\n".into(), "suite.toml:"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let dir = scratch(&format!("bad-{i}"));
        let p = write_suite(&dir, text);
        let e = Suite::load(&p).expect_err(text).to_string();
        assert!(e.contains(want), "case {i}: said '{e}', wanted '{want}'");
        assert!(e.contains("suite.toml"), "case {i}: names the file: {e}");
        assert!(!e.contains('\n'), "case {i}: one line: {e}");
    }
    // The unknown key's line is named.
    let dir = scratch("bad-line");
    let e = Suite::load(&write_suite(&dir, &format!("blueprint = \"bp.dat\"\n{views}zoom = 2\n"))).unwrap_err();
    assert!(e.to_string().contains("suite.toml:5:"), "{e}");
}

#[test]
fn only_keeps_the_named_views_and_refuses_an_unknown_one() {
    let dir = scratch("only");
    let mut suite = Suite::load(&write_suite(&dir, GOOD)).unwrap();
    assert!(suite.select(&["nope".into()]).unwrap_err().to_string().contains("no view named 'nope'"));
    suite.select(&["kept".into()]).unwrap();
    assert_eq!(suite.views.len(), 1);
}

// ---- the runner -----------------------------------------------------------------------------

/// Pictures that change with the view as a renderer's do: the sun's elevation sets the sky's
/// brightness (upper half); the water switch turns the lower half from blue to sand.
struct Fake;

impl Renderer for Fake {
    fn render(&mut self, v: &SuiteView) -> anyhow::Result<(image::RgbImage, View)> {
        let sky = (v.sun.elevation_deg * 2.5) as u8;
        let img = image::RgbImage::from_fn(v.width, v.height, |x, y| {
            if y < v.height / 2 {
                image::Rgb([sky / 2, sky, 200u8.saturating_add((x % 7) as u8)])
            } else if v.switches.water {
                image::Rgb([20, 60, 150])
            } else {
                image::Rgb([200, 180, 120])
            }
        });
        let (from, at) = match v.pose {
            Pose::Look { from, at } => (from, at),
            Pose::Preset(_) => ([0.0, 100.0, 0.0], [10.0, 0.0, 10.0]),
        };
        Ok((img, View { from, at, sun: v.sun, switches: v.switches, lod: v.lod }))
    }
}

fn run(suite_path: &Path, bless: bool) -> (isla::suite::Report, serde_json::Value, PathBuf) {
    let suite = Suite::load(suite_path).unwrap();
    let out = suite.default_out();
    let opts = RunOptions { out: out.clone(), bless: bless.then_some(isla::suite::BlessMode::Changed), shard: None };
    let mut lines = Vec::new();
    let report =
        isla::suite::run(&suite, &mut Fake, &opts, std::time::Instant::now(), &mut |l| lines.push(l.to_string()))
            .unwrap();
    assert_eq!(lines.len(), suite.views.len(), "one progress line per view");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    (report, json, out)
}

fn statuses(json: &serde_json::Value) -> Vec<(String, String)> {
    json["views"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap().to_string(), v["status"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn bless_then_a_plain_run_passes_and_a_changed_view_fails_alone() {
    let dir = scratch("runner");
    let p = write_suite(&dir, GOOD);
    // No references yet: every view is new, exit 1, and nothing is blessed without asking.
    let (r, json, _) = run(&p, false);
    assert_eq!((r.exit_code(), r.new, r.passed), (1, 3, 0));
    assert!(statuses(&json).iter().all(|(_, s)| s == "new"));
    assert!(!dir.join("refs").exists(), "no reference is written without --bless");
    // Bless: every reference written, every view passes.
    let (r, json, _) = run(&p, true);
    assert_eq!(r.exit_code(), 0);
    assert!(statuses(&json).iter().all(|(_, s)| s == "pass"), "{json}");
    assert!(json["views"].as_array().unwrap().iter().all(|v| v["blessed"] == true && v["was"] == "new"));
    // Blessing again writes nothing: the references already match.
    let (_, json, _) = run(&p, true);
    assert!(json["views"].as_array().unwrap().iter().all(|v| v["blessed"] == false && v["was"] == "pass"));
    // A plain run: exit 0, every view passes, the report links images that exist.
    let (r, json, out) = run(&p, false);
    assert_eq!((r.exit_code(), r.passed, r.failed), (0, 3, 0));
    assert_eq!((json["passed"].as_u64(), json["failed"].as_u64()), (Some(3), Some(0)));
    for v in json["views"].as_array().unwrap() {
        assert_eq!(v["status"], "pass");
        assert_eq!(v["metrics"]["similarity"].as_f64(), Some(1.0));
        assert!(v["seconds"].as_f64().unwrap() >= 0.0);
        assert!(v["view"].as_str().unwrap().starts_with("isla:v1;"));
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let links: Vec<&str> = html.split("href=\"").skip(1).map(|s| s.split('"').next().unwrap()).collect();
    assert_eq!(links.len(), 9, "reference, actual and difference for each of three views");
    for l in links {
        assert!(out.join(l).is_file(), "report.html links {l}, which does not exist");
    }
    // Keeping the references, one view without water: it alone fails, exit 1.
    let changed = GOOD.replace(
        "name = \"overview\"\npreset = \"overview\"",
        "name = \"overview\"\npreset = \"overview\"\noff = [\"water\"]",
    );
    std::fs::write(&p, &changed).unwrap();
    let (r, json, out) = run(&p, false);
    assert_eq!(r.exit_code(), 1);
    let s = statuses(&json);
    assert_eq!(s.iter().filter(|(n, st)| n == "overview" && st == "fail").count(), 1, "{s:?}");
    assert_eq!(s.iter().filter(|(n, st)| n != "overview" && st == "pass").count(), 2, "{s:?}");
    assert!(out.join("overview.diff.png").is_file());
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.find("<b>overview</b>").unwrap() < html.find("<b>harbour</b>").unwrap(), "worst first");
    // Likewise a lower sun.
    std::fs::write(&p, GOOD.replace("sun_elevation = 20", "sun_elevation = 12")).unwrap();
    let (r, json, _) = run(&p, false);
    assert_eq!(r.exit_code(), 1);
    assert_eq!(statuses(&json).iter().filter(|(_, st)| st == "fail").count(), 1);
    // Bless again: the changed one is said to have changed, the others untouched.
    let (r, json, _) = run(&p, true);
    assert_eq!(r.exit_code(), 0);
    let blessed: Vec<&str> = json["views"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["blessed"] == true)
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(blessed, ["harbour"]);
}

#[test]
fn a_reference_of_another_size_fails_the_view() {
    let dir = scratch("size");
    let p = write_suite(&dir, GOOD);
    run(&p, true);
    std::fs::write(&p, GOOD.replace("width = 32\n", "width = 40\n")).unwrap();
    let (r, json, _) = run(&p, false);
    assert_eq!(r.exit_code(), 1);
    let h = json["views"].as_array().unwrap().iter().find(|v| v["name"] == "harbour").unwrap().clone();
    assert_eq!(h["status"], "fail");
    assert!(h["message"].as_str().unwrap().contains("32×36"), "{h}");
}

#[test]
fn rendering_twice_writes_the_same_bytes() {
    let dir = scratch("bytes");
    let p = write_suite(&dir, GOOD);
    let (_, _, out) = run(&p, false);
    let a = std::fs::read(out.join("harbour.png")).unwrap();
    let (_, _, out) = run(&p, false);
    assert_eq!(a, std::fs::read(out.join("harbour.png")).unwrap());
}

// ---- the metric -----------------------------------------------------------------------------

#[test]
fn the_metric_passes_the_same_frame_and_refuses_a_colour_change() {
    let a = image::RgbImage::from_fn(80, 45, |x, y| image::Rgb([(x * 3) as u8, (y * 5) as u8, 120]));
    let tol = Tolerance::default();
    let (m, de) = compare(&a, &a, &tol).unwrap();
    assert_eq!((m.similarity, m.changed, m.max_delta_e), (1.0, 0.0, 0.0));
    assert!(m.failure(&tol).is_none() && de.iter().all(|&d| d == 0.0));
    // Half the frame turned green: structure barely moves, colour does.
    let mut b = a.clone();
    for y in 0..45 {
        for x in 0..40 {
            b.put_pixel(x, y, image::Rgb([0, 200, 0]));
        }
    }
    let (m, _) = compare(&a, &b, &tol).unwrap();
    assert!(m.changed > 0.2, "{m:?}");
    assert!(m.failure(&tol).unwrap().contains("changed colour"));
    assert!(compare(&a, &image::RgbImage::new(10, 10), &tol).is_err(), "sizes differ");
}

/// SPEC §8 "The metric" converts sRGB to CIELAB under D65 by the published formulas (IEC
/// 61966-2-1's transfer curve, CIE 15's L*a*b* with its linear segment below (6/29)³). The
/// primaries and white are checked against their published CIELAB values (cited: the sRGB
/// primaries' L*a*b* as tabled for D65, to 0.05 for the four-digit matrix); the near-black
/// colours, on the linear segments of both curves, against the formulas worked by hand
/// (computed: L* = 903.3 Y for Y ≤ 0.008856, with Y = (c / 255) / 12.92). (cargo-mutants: no
/// test read a CIELAB value.)
#[test]
fn cielab_matches_the_published_values_of_the_srgb_primaries_and_the_linear_segments() {
    use isla::compare::lab;
    let cases: [([u8; 3], [f64; 3]); 7] = [
        ([255, 255, 255], [100.0, 0.0, 0.0]),
        ([0, 0, 0], [0.0, 0.0, 0.0]),
        ([255, 0, 0], [53.24, 80.09, 67.20]),
        ([0, 255, 0], [87.73, -86.18, 83.18]),
        ([0, 0, 255], [32.30, 79.19, -107.86]),
        // (1/255)/12.92 = 3.035e-4 = Y (a grey: X/Xn = Y = Z/Zn), L* = 903.3 · Y.
        ([1, 1, 1], [0.2742, 0.0, 0.0]),
        // X/Xn, Y and Z/Zn all on the linear segment: a* = 500 · (24389/27)/116 · (X/Xn − Y).
        ([10, 0, 0], [0.5829, 2.6152, 0.9212]),
    ];
    for (rgb, want) in cases {
        let got = lab(&image::Rgb(rgb));
        let tol = if rgb.iter().all(|&c| c == 0 || c == 255) { 0.05 } else { 0.002 };
        for k in 0..3 {
            assert!((got[k] - want[k]).abs() < tol, "{rgb:?}: L*a*b* {got:?}, published {want:?}");
        }
    }
}

/// The colour metric's figures from ΔE (CIE76, the Euclidean distance in L*a*b*): the share of
/// pixels strictly over the threshold, the mean and the maximum; a figure exactly at its
/// tolerance passes, one beyond it fails and is named.
#[test]
fn the_colour_metric_counts_pixels_strictly_over_the_threshold_and_passes_figures_at_their_limits() {
    use isla::compare::{delta_e, lab};
    let black = image::RgbImage::new(10, 1);
    let mut b = black.clone();
    for x in 0..3 {
        b.put_pixel(x, 0, image::Rgb([255, 0, 0]));
    }
    for x in 3..5 {
        b.put_pixel(x, 0, image::Rgb([1, 1, 1]));
    }
    let de = delta_e(&black, &b);
    let red = lab(&image::Rgb([255, 0, 0]));
    let red_de = (red[0] * red[0] + red[1] * red[1] + red[2] * red[2]).sqrt();
    assert!((red_de - 117.34).abs() < 0.05, "ΔE of red against black: {red_de}");
    assert!((de[0] as f64 - red_de).abs() < 1e-3 && (de[3] - 0.2742).abs() < 2e-3, "{de:?}");
    assert_eq!(&de[5..], &[0.0; 5]);
    // Between two colours, neither black: red against green, from their published L*a*b*.
    let one = |rgb| image::RgbImage::from_pixel(1, 1, image::Rgb(rgb));
    let want = ((87.73f64 - 53.24).powi(2) + (-86.18f64 - 80.09).powi(2) + (83.18f64 - 67.20).powi(2)).sqrt();
    let got = delta_e(&one([255, 0, 0]), &one([0, 255, 0]))[0] as f64;
    assert!((got - want).abs() < 0.1, "ΔE red to green {got}, published {want}");
    // The threshold exactly at red's ΔE: red is not over it, so nothing changed.
    let at = Tolerance { delta_e: de[0] as f64, ..Tolerance::default() };
    let (m, _) = compare(&black, &b, &at).unwrap();
    assert_eq!(m.changed, 0.0, "a pixel at the threshold counts as changed: {m:?}");
    let tol = Tolerance { delta_e: 10.0, ..Tolerance::default() };
    let (m, _) = compare(&black, &b, &tol).unwrap();
    assert!(m.similarity < 1.0, "a changed frame is not identical: {m:?}");
    let mean = (3.0 * de[0] as f64 + 2.0 * de[3] as f64) / 10.0;
    assert!((m.changed - 0.3).abs() < 1e-12, "{m:?}");
    assert!((m.mean_delta_e - mean).abs() < 1e-9 && m.max_delta_e == de[0] as f64, "{m:?}");
    // Each figure exactly at its limit passes; just beyond it fails, naming it.
    let limits = Tolerance {
        min_similarity: m.similarity,
        flip: 0.3,
        max_flip_changed: m.flip_changed,
        max_mean_flip: m.mean_flip,
        delta_e: 10.0,
        max_changed: 0.3,
        max_mean_delta_e: m.mean_delta_e,
    };
    assert!(m.mean_flip > 0.0 && m.flip_changed > 0.0, "ꟻLIP sees red on black: {m:?}");
    assert_eq!(m.failure(&limits), None, "{m:?} at {limits:?}");
    let cases = [
        (Tolerance { min_similarity: m.similarity + 1e-9, ..limits }, "similarity"),
        (Tolerance { max_changed: 0.29, ..limits }, "changed colour"),
        (Tolerance { max_mean_delta_e: m.mean_delta_e - 1e-9, ..limits }, "mean ΔE"),
        (Tolerance { max_mean_flip: m.mean_flip - 1e-9, ..limits }, "mean ꟻLIP"),
        (Tolerance { max_flip_changed: m.flip_changed - 1e-9, ..limits }, "differ visibly"),
    ];
    assert_eq!(
        m.summary(),
        format!(
            "ꟻLIP mean {:.4}, over {:.2} %, similarity {:.4}, changed 30.00 %, mean ΔE {mean:.2}, max ΔE {:.1}",
            m.mean_flip,
            m.flip_changed * 100.0,
            m.similarity,
            de[0]
        ),
        "the progress line's figures"
    );
    for (tol, named) in cases {
        let why = m.failure(&tol).unwrap_or_default();
        let others = ["similarity", "changed colour", "mean ΔE", "mean ꟻLIP", "differ visibly"]
            .into_iter()
            .filter(|o| *o != named);
        assert!(why.contains(named) && others.clone().all(|o| !why.contains(o)), "{tol:?}: {why:?}");
    }
}

/// A tolerance's thresholds in their ranges: ΔE thresholds finite and not negative, shares and
/// the similarity in 0..=1; the refusal names the key. (cargo-mutants: a negative or infinite ΔE
/// threshold was refused by no test.)
#[test]
fn a_tolerance_out_of_its_range_is_refused_naming_the_key() {
    let ok = Tolerance::default();
    assert_eq!(ok.check(), Ok(()));
    let cases = [
        (Tolerance { min_similarity: 1.01, ..ok }, "min_similarity"),
        (Tolerance { min_similarity: -0.01, ..ok }, "min_similarity"),
        (Tolerance { delta_e: -1.0, ..ok }, "delta_e"),
        (Tolerance { delta_e: f64::INFINITY, ..ok }, "delta_e"),
        (Tolerance { delta_e: f64::NAN, ..ok }, "delta_e"),
        (Tolerance { max_changed: 1.5, ..ok }, "max_changed"),
        (Tolerance { max_mean_delta_e: -0.5, ..ok }, "max_mean_delta_e"),
        (Tolerance { max_mean_delta_e: f64::INFINITY, ..ok }, "max_mean_delta_e"),
        (Tolerance { flip: 1.5, ..ok }, "flip"),
        (Tolerance { max_flip_changed: -0.1, ..ok }, "max_flip_changed"),
        (Tolerance { max_mean_flip: f64::NAN, ..ok }, "max_mean_flip"),
    ];
    for (tol, key) in cases {
        let e = tol.check().unwrap_err();
        assert!(e.starts_with(key), "{tol:?}: {e}");
    }
    let edges = Tolerance {
        min_similarity: 0.0,
        flip: 1.0,
        max_flip_changed: 0.0,
        max_mean_flip: 1.0,
        delta_e: 0.0,
        max_changed: 1.0,
        max_mean_delta_e: 0.0,
    };
    assert_eq!(edges.check(), Ok(()), "the ranges' ends are in them");
}

/// SPEC §8's heat map: where ΔE < 1 the reference's luma dimmed to a quarter; from there red
/// rises over the first third of `2 × delta_e` (from 0.35), green over the second, blue over the
/// last, each mixed from that grey towards 255; white at and beyond `2 × delta_e`.
#[test]
fn the_heat_map_dims_the_unchanged_and_ramps_red_yellow_white() {
    use isla::compare::heat_map;
    // Two rows of three, so a pixel's place in the row-major ΔE is read too; one ramp pixel over
    // a grey reference, so the mix from the grey is read.
    let reference = image::RgbImage::from_fn(3, 2, |x, y| match (x, y) {
        (0, 0) => image::Rgb([200, 100, 40]),
        (2, 0) => image::Rgb([40; 3]),
        _ => image::Rgb([0; 3]),
    });
    // Threshold 10: full scale at ΔE 20.
    let de = [0.9, 1.0, 5.0, 12.0, 17.0, 20.0];
    let map = heat_map(&reference, &de, 10.0, &[]);
    let px = |i: u32| map.get_pixel(i % 3, i / 3).0;
    let luma = (0.2126 * 200.0 + 0.7152 * 100.0 + 0.0722 * 40.0) * 0.25;
    assert_eq!(px(0), [luma as u8; 3], "unchanged: the dimmed luma");
    // t = 0.05: red at its floor of 0.35; t = 0.25: red 0.75; t = 0.6: red full, green 0.8.
    assert_eq!(px(1), [89, 0, 0]);
    assert_eq!(px(2), [194, 10, 10], "over a grey of 10: red 10 + 245 · 0.75");
    assert_eq!(px(3), [255, 204, 0]);
    // t = 0.85: red and green full, blue 0.55; t = 1: white.
    assert_eq!(px(4), [255, 255, 140]);
    assert_eq!(px(5), [255, 255, 255]);
}

#[test]
fn a_corrupt_reference_is_an_error_and_an_oversized_suite_file_is_refused() {
    let dir = scratch("corrupt");
    let p = write_suite(&dir, GOOD);
    run(&p, true);
    std::fs::write(dir.join("refs/harbour.png"), b"\x89PNG\r\n\x1a\nnot really").unwrap();
    let (r, json, _) = run(&p, false);
    assert_eq!((r.exit_code(), r.errors), (1, 1));
    let h = json["views"].as_array().unwrap().iter().find(|v| v["name"] == "harbour").unwrap().clone();
    assert_eq!(h["status"], "error");
    assert!(h["message"].as_str().unwrap().contains("cannot read the reference"), "{h}");
    // --bless rewrites it.
    let (r, _, _) = run(&p, true);
    assert_eq!(r.exit_code(), 0);
    let big = dir.join("big.toml");
    std::fs::write(&big, vec![b'#'; (isla::suite::MAX_SUITE_BYTES + 1) as usize]).unwrap();
    let e = Suite::load(&big).unwrap_err().to_string();
    assert!(e.contains("big.toml") && e.contains("at most"), "{e}");
}

/// The house's lines, held: no circle among the files of `src/app`, `src/forge`, `src/suite` and
/// the top-level modules (`scripts/structure`; in `src/suite` once `report` and `run` imported
/// each other), no function in `src` over 80 lines unless it is a marked table
/// and no file over 700 (`scripts/long-fns`).
#[test]
fn the_house_keeps_its_lines() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let structure =
        [&["scripts/structure"][..], &["scripts/structure", "src/forge"], &["scripts/structure", "src/suite"]];
    for args in structure.into_iter().chain([&["scripts/long-fns"][..]]) {
        let out = std::process::Command::new("python3")
            .args(args)
            .current_dir(root)
            .output()
            .expect("python3 runs the structure scripts");
        assert!(
            out.status.success(),
            "{args:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Saved views round-trip. Saving appends `view-1`, `view-2`… to
/// `BLUEPRINT.views.toml` beside the blueprint; each loads back as the same view, the file is a
/// suite `isla suite` reads as it is, and a file that does not parse is refused, not overwritten.
#[test]
fn saved_views_round_trip_and_are_a_suite() {
    use isla::view::View;
    let dir = std::env::temp_dir().join(format!("isla-views-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bp = dir.join("island.dat");
    std::fs::copy(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("blueprints/small.dat"), &bp).unwrap();
    assert_eq!(isla::views::views_path(&bp), dir.join("island.views.toml"));
    assert!(isla::views::names(&bp).unwrap().is_empty());
    let a: View = "isla:v1;from=1000.5,320.25,2900;at=1500,100,2000;sun=22.5,310;off=fog".parse().unwrap();
    let b: View = "isla:v1;from=0.1,1500,0.3;at=2048,0,2048;sun=60,45;shading=normals;lod=off".parse().unwrap();
    let (na, file) = isla::views::save(&bp, &a).unwrap();
    let (nb, _) = isla::views::save(&bp, &b).unwrap();
    assert_eq!((na.as_str(), nb.as_str()), ("view-1", "view-2"));
    assert_eq!(isla::views::names(&bp).unwrap(), ["view-1", "view-2"]);
    assert_eq!(isla::views::load(&bp, "view-1").unwrap(), a);
    assert_eq!(isla::views::load(&bp, "view-2").unwrap(), b);
    let suite = isla::suite::Suite::load(&file).unwrap();
    assert_eq!(suite.views.len(), 2);
    assert_eq!(suite.blueprint, dir.join("island.dat"));
    let e = isla::views::load(&bp, "view-9").unwrap_err().to_string();
    assert!(e.contains("island.views.toml") && e.contains("view-9") && !e.contains('\n'), "{e}");
    // A broken file is refused and left as it was.
    std::fs::write(&file, "blueprint = \"island.dat\"\n[[view]\n").unwrap();
    let e = isla::views::save(&bp, &a).unwrap_err().to_string();
    assert!(e.contains("island.views.toml:2"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "blueprint = \"island.dat\"\n[[view]\n");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- the suite runner's edges, each once a surviving mutant ----------------------------------

#[test]
fn a_malformed_suite_file_names_the_line_and_the_column() {
    let dir = scratch("line-col");
    let e = Suite::load(&write_suite(&dir, "blueprint = \"bp.dat\"\nwidth = @\n")).unwrap_err().to_string();
    assert!(e.contains("suite.toml:2:9:"), "line 2, column 9 (the '@'): {e}");
}

#[test]
fn names_view_distances_and_lod_are_checked_key_by_key() {
    let view = |extra: &str| format!("blueprint = \"bp.dat\"\n[[view]]\nname = \"a\"\npreset = \"overview\"\n{extra}");
    let refused: Vec<(String, &str)> = vec![
        ("blueprint = \"bp.dat\"\n[[view]]\nname = \".hidden\"\npreset = \"overview\"\n".into(), "name '.hidden'"),
        ("blueprint = \"bp.dat\"\n[[view]]\nname = \"x.diff\"\npreset = \"overview\"\n".into(), "name 'x.diff'"),
        (format!("view_distance = 0\n{}", view("")), "view_distance must be"),
        (format!("view_distance = -5\n{}", view("")), "view_distance must be"),
        (format!("view_distance = nan\n{}", view("")), "view_distance must be"),
        (format!("view_distance = inf\n{}", view("")), "view_distance must be"),
        (view("lod = \"maybe\"\n"), "lod: expected"),
    ];
    for (i, (text, want)) in refused.iter().enumerate() {
        let dir = scratch(&format!("keys-{i}"));
        let e = Suite::load(&write_suite(&dir, text)).expect_err(text).to_string();
        assert!(e.contains(want), "case {i}: said '{e}', wanted '{want}'");
    }
    let dir = scratch("keys-good");
    let text = "view_distance = 250\nblueprint = \"bp.dat\"\n[[view]]\nname = \"a.b-c_1\"\n\
                view = \"isla:v1;from=1,2,3;at=4,5,6;lod=off\"\nlod = \"on\"\n";
    let s = Suite::load(&write_suite(&dir, text)).unwrap();
    assert_eq!(s.view_distance_m, Some(250.0));
    assert!(s.views[0].lod, "lod = \"on\" refines the view string's lod=off");
}

#[test]
fn a_suite_file_of_exactly_the_limit_loads() {
    let dir = scratch("limit");
    let mut text = GOOD.to_string().into_bytes();
    text.push(b'#');
    text.resize(isla::suite::MAX_SUITE_BYTES as usize - 1, b'#');
    text.push(b'\n');
    let p = dir.join("suite.toml");
    std::fs::write(dir.join("bp.dat"), b"x").unwrap();
    std::fs::write(&p, &text).unwrap();
    assert_eq!(Suite::load(&p).unwrap().views.len(), 3);
}

#[test]
fn relative_paths_walk_up_and_the_references_folder_is_known_by_any_spelling() {
    use isla::suite::relative_path;
    assert_eq!(relative_path(Path::new("/a/b/c"), Path::new("/a/b/d/e.png")), "../d/e.png");
    assert_eq!(relative_path(Path::new("/a/b/../x"), Path::new("/a/x/y.png")), "y.png");
    assert_eq!(relative_path(Path::new("/a/b"), Path::new("/a/b")), "");
    let dir = scratch("refs-out");
    let suite = Suite::load(&write_suite(&dir, GOOD)).unwrap();
    assert!(suite.out_is_references(&dir.join("refs")));
    assert!(suite.out_is_references(&dir.join("out/../refs")));
    assert!(!suite.out_is_references(&dir.join("out")));
    assert!(!suite.out_is_references(&dir.join("refs/sub")));
}

#[test]
fn the_report_lists_the_worst_first_and_says_what_was_blessed() {
    let dir = scratch("order");
    let p = write_suite(&dir, GOOD);
    let (_, _, out) = run(&p, true);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(html.matches("(blessed; was new)").count(), 3, "{html}");
    let (_, _, out) = run(&p, true);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(!html.contains("(blessed;"), "nothing was rewritten: {html}");
    // One view of each verdict: harbour errors (a corrupt reference), overview fails (no water),
    // fresh is new, kept passes.
    std::fs::write(dir.join("refs/harbour.png"), b"\x89PNG\r\n\x1a\nnot really").unwrap();
    let text = GOOD.replace("preset = \"overview\"", "preset = \"overview\"\noff = [\"water\"]")
        + "\n[[view]]\nname = \"fresh\"\npreset = \"coast\"\n";
    std::fs::write(&p, text).unwrap();
    let (_, _, out) = run(&p, false);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let at = |name: &str, status: &str| {
        let i = html.find(&format!("<b>{name}</b>")).unwrap_or_else(|| panic!("{name} listed"));
        assert!(
            html[i..].starts_with(&format!("<b>{name}</b><br><span class=\"{status}\">{status}</span>")),
            "{name} is {status}"
        );
        i
    };
    let order = [at("harbour", "error"), at("overview", "fail"), at("fresh", "new"), at("kept", "pass")];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "error, fail, new, pass: {order:?}");
}

#[test]
fn a_reference_of_another_size_fails_without_being_decoded() {
    let dir = scratch("size-header");
    let p = write_suite(&dir, GOOD);
    run(&p, true);
    // Only the header survives: the size is read from it and the pixels never are.
    let r = dir.join("refs/harbour.png");
    let bytes = std::fs::read(&r).unwrap();
    std::fs::write(&r, &bytes[..bytes.len() - 20]).unwrap();
    std::fs::write(&p, GOOD.replace("width = 32\n", "width = 40\n")).unwrap();
    let (_, json, _) = run(&p, false);
    let h = json["views"].as_array().unwrap().iter().find(|v| v["name"] == "harbour").unwrap().clone();
    assert_eq!(h["status"], "fail", "{h}");
    assert_eq!(h["message"], "the reference is 32×36, the render 40×36");
}
