//! End-to-end: the `isla` binary renders a blueprint headless, and refuses bad input cleanly.
//! These run the real binary (as a user would) on the software Vulkan driver.

use std::path::PathBuf;
use std::process::Command;

fn isla() -> Command {
    Command::new(env!("CARGO_BIN_EXE_isla"))
}

fn repo(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn out_dir() -> PathBuf {
    let d = repo("target/test-output");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn luma(p: &image::Rgb<u8>) -> f32 {
    0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32
}

#[test]
fn headless_shot_shows_sky_above_lit_terrain() {
    let out = out_dir().join("skeleton-overview.png");
    let _ = std::fs::remove_file(&out);
    let status = isla()
        .args([
            "shot",
            "blueprints/default.dat",
            "--width",
            "320",
            "--height",
            "180",
            "--out",
        ])
        .arg(&out)
        .current_dir(repo(""))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .status()
        .unwrap();
    assert!(status.success(), "isla shot failed: {status}");
    let img = image::open(&out).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (320, 180));

    // Top rows: sky — bluish (blue channel dominant), bright, and nearly uniform across.
    for x in (0..320).step_by(16) {
        let p = img.get_pixel(x, 2);
        assert!(
            p[2] > p[0] && p[2] >= p[1] && luma(p) > 90.0,
            "top row pixel at x={x} is not sky: {p:?}"
        );
    }
    // Lower half: lit terrain and water, i.e. many non-sky pixels with varied brightness.
    let sky = *img.get_pixel(160, 2);
    let lower: Vec<_> = (90..180)
        .flat_map(|y| (0..320).map(move |x| (x, y)))
        .map(|(x, y)| *img.get_pixel(x, y))
        .collect();
    let non_sky = lower
        .iter()
        .filter(|p| {
            (0..3)
                .map(|c| (p[c] as i32 - sky[c] as i32).abs())
                .sum::<i32>()
                > 40
        })
        .count();
    assert!(
        non_sky * 100 > lower.len() * 60,
        "only {non_sky} of {} lower pixels differ from the sky",
        lower.len()
    );
    let l: Vec<f32> = lower.iter().map(luma).collect();
    let mean = l.iter().sum::<f32>() / l.len() as f32;
    let sd = (l.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / l.len() as f32).sqrt();
    assert!(
        sd > 8.0,
        "terrain brightness barely varies (sd {sd:.1}): unlit or flat"
    );
    assert!(
        mean > 25.0,
        "terrain is too dark (mean luma {mean:.1}): is the sun lighting it?"
    );
}

#[test]
fn missing_blueprint_is_one_clear_error_and_exit_code_2() {
    let out = isla()
        .args(["shot", "no/such/island.dat", "--out", "/tmp/never.png"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no/such/island.dat"), "{err}");
    let fly = isla().args(["fly", "no/such/island.dat"]).output().unwrap();
    assert_eq!(
        fly.status.code(),
        Some(2),
        "fly refuses before any window opens"
    );
}

#[test]
fn malformed_blueprint_names_the_section() {
    let path = out_dir().join("truncated.dat");
    let bytes = std::fs::read(repo("blueprints/default.dat")).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let out = isla().arg("info").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("runs past the end of the file") && err.contains("at byte"),
        "{err}"
    );
}

#[test]
fn window_opens_under_xvfb_when_available() {
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        eprintln!(
            "xvfb-run not installed: the windowed smoke test is covered by .ci/run, which installs it"
        );
        return;
    }
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_isla"))
        .args(["fly", "--frames", "20"])
        .current_dir(repo(""))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "fly under xvfb failed: {err}");
    assert!(err.contains("exiting after 20 frames"), "{err}");
}
