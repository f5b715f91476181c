//! Renderers (SPEC §8 "Renderers"), without Bevy: choosing one by name and finding its driver
//! manifest, the open sea that every rasteriser draws the same, the ꟻLIP gate that passes a
//! renderer's noise and refuses a real change, and `--renderers`' portability check.

use isla::compare::{Tolerance, compare};
use isla::renderer::{Choice, RendererInfo, check_manifest};
use isla::suite::portability::{self, RendererRun};
use isla::suite::{Pose, Renderer, RunOptions, Suite, SuiteView};
use isla::view::View;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-renderers").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_renderer_is_named_exactly_and_an_unknown_name_is_refused() {
    for (s, c) in [("auto", Choice::Auto), ("lavapipe", Choice::Lavapipe), ("swiftshader", Choice::SwiftShader)] {
        assert_eq!(s.parse::<Choice>(), Ok(c));
        assert_eq!(c.to_string(), s);
    }
    let e = "gpu9".parse::<Choice>().unwrap_err();
    assert_eq!(e, "unknown renderer 'gpu9' (auto, lavapipe, swiftshader)");
    // Only SwiftShader, as Chromium and Chrome ship it, cannot open a window.
    assert!(Choice::Auto.presents() && Choice::Lavapipe.presents() && !Choice::SwiftShader.presents());
    let info =
        |name: &str, driver: &str| RendererInfo { name: name.into(), driver: driver.into(), ..Default::default() };
    assert!(Choice::SwiftShader.is(&info("SwiftShader Device (Subzero)", "SwiftShader driver")));
    assert!(Choice::Lavapipe.is(&info("llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe")));
    assert!(!Choice::Lavapipe.is(&info("SwiftShader Device (Subzero)", "")));
}

#[test]
fn a_driver_manifest_must_name_a_library_that_exists() {
    let d = scratch("manifest");
    let m = d.join("vk_test_icd.json");
    std::fs::write(
        &m,
        r#"{"file_format_version": "1.0.0", "ICD": {"library_path": "./libvk_test.so", "api_version": "1.0.5"}}"#,
    )
    .unwrap();
    let e = check_manifest("swiftshader", &m).unwrap_err();
    assert!(e.contains("libvk_test.so, which does not exist"), "{e}");
    std::fs::write(d.join("libvk_test.so"), b"").unwrap();
    assert_eq!(check_manifest("swiftshader", &m), Ok(m.clone()));
    // A bare library name is the loader's to find.
    std::fs::write(&m, r#"{"ICD": {"library_path": "libvulkan_x.so.1"}}"#).unwrap();
    assert!(check_manifest("lavapipe", &m).is_ok());
    std::fs::write(&m, "not json").unwrap();
    let e = check_manifest("swiftshader", &m).unwrap_err();
    assert!(e.starts_with("renderer swiftshader: ") && e.contains("not a driver manifest"), "{e}");
    let e = check_manifest("swiftshader", &d.join("missing.json")).unwrap_err();
    assert!(e.contains("missing.json"), "{e}");
}

/// The open sea's triangles: each no larger than the near cells or half its distance from the
/// map, together exactly the ring from the map's edge to its reach, none over the map.
#[test]
fn the_open_sea_has_no_triangle_large_for_its_distance_from_the_map() {
    use isla::mesh::open_sea::{GROWTH, NEAR_CELL_M, REACH_M, inner_step, ring};
    for extent in [128.0f32, 4096.0, 65536.0] {
        let (p, idx) = ring(extent);
        assert_eq!(idx.len() % 3, 0);
        let dist = |x: f32, z: f32| {
            let dx = (-x).max(x - extent).max(0.0);
            let dz = (-z).max(z - extent).max(0.0);
            (dx * dx + dz * dz).sqrt()
        };
        let mut area = 0f64;
        let mut largest_ratio = 0f32;
        for t in idx.chunks(3) {
            let [a, b, c] = [p[t[0] as usize], p[t[1] as usize], p[t[2] as usize]];
            // Counter-clockwise seen from above (+Y, with Z south): the face points up.
            let cross = (b[0] - a[0]) as f64 * (c[1] - a[1]) as f64 - (b[1] - a[1]) as f64 * (c[0] - a[0]) as f64;
            assert!(cross < 0.0, "a triangle facing down at {a:?} (x east, z south: up is negative here)");
            area += cross.abs() / 2.0;
            let centre = [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0];
            assert!(dist(centre[0], centre[1]) > 0.0, "a triangle over the map at {centre:?}");
            let near = [a, b, c].iter().map(|v| dist(v[0], v[1])).fold(f32::MAX, f32::min);
            let longest = [(a, b), (b, c), (c, a)]
                .iter()
                .map(|(u, v)| ((u[0] - v[0]).powi(2) + (u[1] - v[1]).powi(2)).sqrt())
                .fold(0f32, f32::max);
            let bound = NEAR_CELL_M.max(inner_step(extent)).max(GROWTH * near) * std::f32::consts::SQRT_2;
            assert!(longest <= bound * 1.0001, "a triangle {longest} m long at {near} m from the map (bound {bound})");
            if near >= 2048.0 {
                largest_ratio = largest_ratio.max(longest / near);
            }
        }
        let side = (extent + 2.0 * REACH_M) as f64;
        let want = side * side - (extent as f64).powi(2);
        assert!((area - want).abs() / want < 1e-6, "extent {extent}: the ring's area {area}, expected {want}");
        assert!(idx.len() / 3 < 40_000, "extent {extent}: {} triangles", idx.len() / 3);
        assert!(largest_ratio < 0.75, "extent {extent}: beyond 2 km a triangle {largest_ratio} × its distance long");
    }
}

/// Gradients drawn twice, the second a level off here and there as another rasteriser would.
fn gradient(w: u32, h: u32, noise: bool) -> image::RgbImage {
    image::RgbImage::from_fn(w, h, |x, y| {
        let base = [(40 + x % 200) as u8, (80 + y % 150) as u8, 160];
        let d = if noise && ((x / 6) * 3 + y / 5) % 8 == 0 { 1 } else { 0 };
        image::Rgb([base[0].saturating_add(d), base[1].saturating_add(d), base[2] - d])
    })
}

#[test]
fn the_default_gate_passes_a_renderers_noise_and_refuses_a_changed_colour() {
    let (w, h) = (160, 90);
    let reference = gradient(w, h, false);
    let tol = Tolerance::default();
    assert_eq!(tol.min_similarity, 0.0, "the structural gate is off by default");
    let (m, _) = compare(&reference, &gradient(w, h, true), &tol).unwrap();
    assert!(m.similarity < 0.99, "SSIM sees the noise: {m:?}");
    assert!(m.mean_flip < 0.015 && m.flip_changed == 0.0, "ꟻLIP barely does: {m:?}");
    assert_eq!(m.failure(&tol), None, "a level's noise passes: {m:?}");
    // The lower half's colour turned: a real change, over a third of the frame.
    let mut changed = reference.clone();
    for y in h * 2 / 3..h {
        for x in 0..w {
            let p = changed.get_pixel_mut(x, y);
            *p = image::Rgb([p[2], p[0], p[1]]);
        }
    }
    let (m, _) = compare(&reference, &changed, &tol).unwrap();
    let why = m.failure(&tol).expect("a changed colour fails");
    assert!(why.contains("mean ꟻLIP") && why.contains("differ visibly"), "{why}");
    let (same, _) = compare(&reference, &reference, &tol).unwrap();
    assert_eq!((same.mean_flip, same.flip_changed, same.max_flip), (0.0, 0.0, 0.0));
}

/// Draws every view as a gradient; `noise` adds a level's noise, `planted` views a changed colour.
struct Gradient {
    name: &'static str,
    noise: bool,
    planted: Vec<String>,
}

impl Renderer for Gradient {
    fn render(&mut self, v: &SuiteView) -> anyhow::Result<(image::RgbImage, View)> {
        let mut img = gradient(v.width, v.height, self.noise);
        if self.planted.contains(&v.name) {
            for p in img.pixels_mut() {
                *p = image::Rgb([p[2], p[0], p[1]]);
            }
        }
        let Pose::Look { from, at } = v.pose else { unreachable!("the test's views are poses") };
        Ok((img, View { from, at, sun: v.sun, switches: v.switches, lod: v.lod }))
    }

    fn info(&mut self) -> Option<RendererInfo> {
        Some(RendererInfo {
            name: self.name.into(),
            driver: self.name.into(),
            backend: "Vulkan".into(),
            ..Default::default()
        })
    }
}

fn three_views(dir: &Path) -> Suite {
    std::fs::write(dir.join("bp.dat"), b"not read by the suite loader").unwrap();
    let mut t = String::from("blueprint = \"bp.dat\"\nwidth = 96\nheight = 54\n");
    for name in ["sea", "coast", "peak"] {
        t.push_str(&format!("\n[[view]]\nname = \"{name}\"\nlook_from = [1, 100, 0]\nlook_at = [0, 0, 10]\n"));
    }
    // The peak may drift further on the second renderer.
    t.push_str("\n[view.tolerance.renderer.\"second\"]\nmax_mean_flip = 1\nmax_flip_changed = 1.0\nmax_mean_delta_e = 100\nmax_changed = 1.0\n");
    let path = dir.join("suite.toml");
    std::fs::write(&path, t).unwrap();
    Suite::load(&path).unwrap()
}

#[test]
fn renderers_name_the_views_that_would_fail_on_a_change_of_renderer() {
    let dir = scratch("portability");
    let suite = three_views(&dir);
    let run = |r: &mut dyn Renderer, sub: &str| {
        let opts = RunOptions { out: dir.join(sub), bless: None, shard: None };
        isla::suite::run(&suite, r, &opts, std::time::Instant::now(), &mut |_| {}).unwrap();
        RendererRun { name: sub.into(), dir: dir.join(sub) }
    };
    let first = run(&mut Gradient { name: "first", noise: false, planted: vec![] }, "first");
    // The second renderer draws every view with a level's noise, and the coast and the peak
    // with another colour; the peak's own thresholds on it let that pass.
    let second =
        run(&mut Gradient { name: "second", noise: true, planted: vec!["coast".into(), "peak".into()] }, "second");
    let p = portability::judge(&suite, &[first, second]).unwrap();
    assert_eq!(p.not_portable, vec!["coast".to_string()]);
    assert_eq!(p.exit_code(), 1);
    assert_eq!(p.changes.len(), 3);
    let sea = &p.changes[0];
    assert!(sea.portable && sea.metrics.unwrap().mean_flip > 0.0, "{sea:?}");
    assert_eq!(p.changes[2].tolerance.max_mean_flip, 1.0, "the peak is judged on the second renderer's thresholds");
    let lines = portability::lines(&p);
    assert!(lines[1].contains("coast") && lines[1].contains("first → second: WOULD FAIL"), "{}", lines[1]);
    assert!(lines[1].contains("passes at"), "{}", lines[1]);
    assert!(lines[0].contains("portable; ꟻLIP mean"), "{}", lines[0]);
    // A folder that holds no run is refused.
    let e = portability::judge(&suite, &[RendererRun { name: "x".into(), dir: dir.join("none") }]).unwrap_err();
    assert!(e.contains("no report.json"), "{e}");
}

/// A run on another renderer than the references were blessed on says so once, at the top of
/// the report, naming every view it touches — not once per view.
#[test]
fn a_change_of_renderer_is_said_once_naming_the_views() {
    let dir = scratch("said-once");
    let suite = three_views(&dir);
    let run = |r: &mut dyn Renderer, out: &str, bless| {
        let opts = RunOptions { out: dir.join(out), bless, shard: None };
        isla::suite::run(&suite, r, &opts, std::time::Instant::now(), &mut |_| {}).unwrap()
    };
    run(&mut Gradient { name: "first", noise: false, planted: vec![] }, "bless", Some(isla::suite::BlessMode::Changed));
    let same = run(&mut Gradient { name: "first", noise: false, planted: vec![] }, "same", None);
    assert!(same.notes.is_empty(), "{:?}", same.notes);
    let other = run(&mut Gradient { name: "second", noise: true, planted: vec![] }, "other", None);
    assert_eq!(other.notes.len(), 1, "{:?}", other.notes);
    let note = &other.notes[0];
    assert!(
        note.starts_with(
            "a change of renderer: the references of all 3 views (sea, coast, peak) were blessed on first"
        ),
        "{note}"
    );
    assert!(note.ends_with("this run drew them on second (second, Vulkan)"), "{note}");
    assert!(other.views.iter().all(|v| v.reference_renderer.as_ref().is_some_and(|r| r.name == "first")));
    let html = std::fs::read_to_string(dir.join("other/report.html")).unwrap();
    assert_eq!(html.matches("a change of renderer").count(), 1, "once in report.html");
    assert!(html.find("a change of renderer").unwrap() < html.find("<table>").unwrap(), "at the top");
    assert_eq!(html.matches("type=\"range\"").count(), 3, "a slider per view with a reference");
}
