//! The app end to end: the `isla` binary as a user runs it (headless rendering on the software
//! Vulkan driver, clean refusals of bad input, writes that survive being killed) and the world
//! server driven headless along a flight path.

use crate::common::{isla, luma, out_dir, render_shot, repo, small_island_in};
use std::process::Command;

#[test]
fn headless_shot_shows_sky_above_lit_terrain() {
    let out = out_dir().join("skeleton-overview.png");
    let _ = std::fs::remove_file(&out);
    let run = isla()
        .args(["shot", "blueprints/small.dat", "--width", "320", "--height", "180", "--out"])
        .arg(&out)
        .current_dir(repo(""))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "isla shot failed: {log}");
    // The world server's diagnostics (SPEC §3), one line per stage.
    assert!(log.contains("world: first view built:"), "{log}");
    assert!(log.contains("shot: in view per level:"), "{log}");
    let water =
        log.lines().find(|l| l.contains("water: ") && l.contains("seam columns recovered")).expect("water line");
    assert!(water.contains("columns in") && water.contains("surface Y") && water.contains("max depth"), "{water}");
    let img = image::open(&out).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (320, 180));

    // Top rows: sky — bluish (blue channel dominant), bright, and nearly uniform across.
    for x in (0..320).step_by(16) {
        let p = img.get_pixel(x, 2);
        assert!(p[2] > p[0] && p[2] >= p[1] && luma(p) > 90.0, "top row pixel at x={x} is not sky: {p:?}");
    }
    // Lower half: lit terrain and water, i.e. many non-sky pixels with varied brightness.
    let sky = *img.get_pixel(160, 2);
    let lower: Vec<_> =
        (90..180).flat_map(|y| (0..320).map(move |x| (x, y))).map(|(x, y)| *img.get_pixel(x, y)).collect();
    let non_sky =
        lower.iter().filter(|p| (0..3).map(|c| (p[c] as i32 - sky[c] as i32).abs()).sum::<i32>() > 40).count();
    assert!(non_sky * 100 > lower.len() * 60, "only {non_sky} of {} lower pixels differ from the sky", lower.len());
    let l: Vec<f32> = lower.iter().map(luma).collect();
    let mean = l.iter().sum::<f32>() / l.len() as f32;
    let sd = (l.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / l.len() as f32).sqrt();
    assert!(sd > 8.0, "terrain brightness barely varies (sd {sd:.1}): unlit or flat");
    assert!(mean > 25.0, "terrain is too dark (mean luma {mean:.1}): is the sun lighting it?");
}

#[test]
fn missing_blueprint_is_one_clear_error_and_exit_code_2() {
    let out = isla().args(["shot", "no/such/island.dat", "--out", "/tmp/never.png"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no/such/island.dat"), "{err}");
    let fly = isla().args(["fly", "no/such/island.dat"]).output().unwrap();
    assert_eq!(fly.status.code(), Some(2), "fly refuses before any window opens");
}

/// Every command that writes checks its output before any work (SPEC §9): a file in a folder
/// that does not exist, or a folder under a file, is the user's mistake, refused with one line
/// naming the flag and the path, exit 2 — and nothing is rendered, forged or compared first (a
/// forge that ran would have logged its stages; a diff that ran would have printed it).
#[test]
fn outputs_that_cannot_be_written_are_refused_before_any_work() {
    let missing = out_dir().join(format!("no-such-folder-{}", std::process::id()));
    let png = missing.join("x.png");
    let small = repo("blueprints/small.dat");
    let runs: Vec<(&str, Vec<std::ffi::OsString>)> = vec![
        ("shot", vec!["shot".into(), small.clone().into(), "--out".into(), png.clone().into()]),
        ("map", vec!["map".into(), small.clone().into(), "--out".into(), png.clone().into()]),
        ("diff", vec!["diff".into(), small.clone().into(), small.clone().into(), "--png".into(), png.clone().into()]),
        (
            "forge",
            vec![
                "forge".into(),
                "--seed".into(),
                "3".into(),
                "--size".into(),
                "64".into(),
                "--out".into(),
                missing.join("x.dat").into(),
            ],
        ),
        (
            "suite",
            vec!["suite".into(), repo("tests/screenshots/small.toml").into(), "--out".into(), small.join("out").into()],
        ),
        ("fly", vec!["--frames".into(), "4".into(), "--screenshot".into(), png.clone().into()]),
    ];
    for (what, args) in runs {
        let out = isla().args(&args).env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: one line, before any work: {err}");
        assert!(out.stdout.is_empty(), "{what}: printed before refusing: {}", String::from_utf8_lossy(&out.stdout));
        let flag = if what == "diff" {
            "--png"
        } else if what == "fly" {
            "--screenshot"
        } else {
            "--out"
        };
        assert!(err.starts_with(&format!("error: {flag} ")), "{what}: {err}");
        assert!(err.contains("no folder") || err.contains("is not a folder"), "{what}: {err}");
    }
    assert!(!missing.exists(), "nothing was created");
}

/// `fly` is the default command: its flags work without the word, and a file alone is its
/// blueprint. (A missing blueprint is refused before any window opens, so no display is needed.)
#[test]
fn flys_flags_work_without_the_word_fly() {
    for args in [
        &["--frames", "4", "--panel", "no/such/island.dat"][..],
        &["no/such/island.dat"],
        &["--map", "no/such/island.dat"],
    ] {
        let out = isla().args(args).env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("no/such/island.dat") && !err.contains("unexpected argument"), "{args:?}: {err}");
    }
    // A subcommand still takes only its own flags.
    let out = isla().args(["info", "--panel", "blueprints/small.dat"]).current_dir(repo("")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn malformed_blueprint_names_the_section() {
    let path = out_dir().join("truncated.dat");
    let bytes = std::fs::read(repo("blueprints/default.dat")).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let out = isla().arg("info").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("runs past the end of the file") && err.contains("at byte"), "{err}");
}

#[test]
fn window_opens_under_xvfb_when_available() {
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        // CI and scripts/test install it; only a bare `cargo test` on a machine without it skips.
        assert!(std::env::var_os("CI").is_none(), "xvfb-run is missing on CI: .ci/run should have installed it");
        eprintln!("xvfb-run not installed (run scripts/test to install it): windowed smoke test skipped");
        return;
    }
    // The flight starts where a view string says, with its sun and switches. Twelve frames see
    // the window open and the first view built (about 3 s); the frames after it draw half a
    // million triangles at 1280 × 720 on the software rasteriser, a second or more each, and
    // the headless shots test what is drawn.
    let view = "isla:v1;from=1250,160,3150;at=1356,90,3036;sun=20,300;off=fog";
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_isla"))
        // No `fly`: it is the default command, and its flags work without the word.
        .args(["--frames", "12", "--panel", "--view", view])
        .current_dir(repo(""))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "fly under xvfb failed: {err}");
    assert!(err.contains("exiting after 12 frames"), "{err}");
    assert!(err.contains(&format!("fly: starting at view: {view}")), "{err}");
}

/// The view the flight prints (V, the panel's button) is where its camera is, looking where it
/// looks, with the flight's sun, switches and level of detail — and it reads back as itself.
#[test]
fn the_flights_view_string_is_its_camera_and_settings() {
    use isla::app::debug::DebugToggles;
    use isla::app::scene::SunSettings;
    let (from, at) = (bevy::math::Vec3::new(1250.0, 160.0, 3150.0), bevy::math::Vec3::new(1356.0, 90.0, 3036.0));
    let cam = isla::app::camera::look(from, at);
    let toggles = DebugToggles { water: false, panel: true, lod_colours: true, ..Default::default() };
    let sun = SunSettings { elevation_deg: 12.5, azimuth_deg: 200.0 };
    let v = isla::app::input::current_view(&cam, &sun, &toggles, false);
    assert_eq!(v.from, from.to_array());
    let dir = (bevy::math::Vec3::from_array(v.at) - from).normalize();
    assert!(dir.dot((at - from).normalize()) > 0.99999, "looks where the camera looks");
    assert!((bevy::math::Vec3::from_array(v.at) - from).length() > 50.0);
    let s = v.to_string();
    assert!(s.contains(";sun=12.5,200;off=water;on=lod-colours;lod=off"), "{s}");
    assert_eq!(s.parse::<isla::view::View>().unwrap(), v);
}

#[test]
fn killing_a_writer_mid_write_leaves_the_old_blueprint_intact() {
    let dir = out_dir().join(format!("kill-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("island.dat");
    let ok = isla().args(["forge", "--seed", "3", "--size", "64", "--out"]).arg(&target).output().unwrap();
    assert!(ok.status.success());
    let old = std::fs::read(&target).unwrap();

    // A 1024² island is about 9 MiB: nine slow chunks, so the kill lands mid-write.
    let mut child = isla()
        .args(["forge", "--seed", "4", "--size", "1024", "--out"])
        .arg(&target)
        .env("ISLA_SLOW_WRITE_MS", "300")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let temp_seen = loop {
        let temp = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .find(|e| e.file_name().to_string_lossy().ends_with(".tmp"));
        if let Some(t) = temp
            && t.metadata().map(|m| m.len() > 0).unwrap_or(false)
        {
            break true;
        }
        if started.elapsed().as_secs() > 60 {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(temp_seen, "the writer never started writing its temporary file");
    assert_eq!(std::fs::read(&target).unwrap(), old, "the old blueprint is byte-for-byte intact");
    isla::blueprint::read_file(&target).expect("and still valid");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn info_json_has_the_documented_fields() {
    let out = isla().args(["info", "blueprints/default.dat", "--json"]).current_dir(repo("")).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format_version"], 2);
    assert!(v["map_size"].as_u64().unwrap() >= 32);
    assert!(v["seed"].is_i64());
    let sections = v["sections"].as_array().unwrap();
    assert_eq!(sections[0]["tag"], "PRMS");
    assert_eq!(sections[0]["offset"], 9);
    assert_eq!(sections[0]["length"], 26);
    let bodies = v["water_bodies"].as_array().unwrap();
    assert_eq!(bodies[0]["id"], 1);
    assert_eq!(bodies[0]["type"], "Ocean");
    for key in ["salinity", "surface_level_raw", "pixel_count", "centroid_x", "centroid_y"] {
        assert!(!bodies[0][key].is_null(), "{key}");
    }
    for key in ["land_fraction", "height_min_m", "height_max_m", "wet_pixels", "seam_candidates"] {
        assert!(v["stats"][key].is_number(), "stats.{key}");
    }
    assert!(v["warnings"].is_array());
    // Rivers (SPEC §9): body, length, mouth and course from source to mouth, per river.
    let rivers = v["rivers"].as_array().unwrap();
    assert!(rivers.len() >= 3, "the default island's rivers");
    // Towns and roads (SPEC §9).
    let towns = v["towns"].as_array().unwrap();
    assert!(towns.len() >= 2 && towns[0]["tier"] == "capitol" && towns[0]["highway_node"] == true);
    for key in ["x", "y"] {
        assert!(towns[0][key].is_number(), "towns.{key}");
    }
    let roads = v["roads"].as_array().unwrap();
    assert_eq!(roads.len(), towns.len() - 1);
    for r in roads {
        assert!(r["tier"] == "highway" || r["tier"] == "road");
        assert!(r["length_m"].as_f64().unwrap() > 0.0);
        let points = r["points"].as_array().unwrap();
        assert!(points.len() >= 2 && points[0].as_array().unwrap().len() == 2);
        for b in r["bridges"].as_array().unwrap() {
            let (first, last) = (b[0].as_u64().unwrap(), b[1].as_u64().unwrap());
            assert!(first <= last && (last as usize) < points.len());
        }
    }
    for r in rivers {
        assert!(r["body_id"].as_u64().unwrap() > 1 && r["mouth_body_id"].is_u64());
        assert!(r["length_m"].as_f64().unwrap() > 0.0);
        let course = r["course"].as_array().unwrap();
        assert!(course.len() >= 2 && course[0].as_array().unwrap().len() == 2);
        assert_eq!(course[0], r["source"]);
        assert_eq!(course[course.len() - 1], r["mouth"]);
    }
}

/// SPEC §9 `isla forge --rivers off`: the summary line says so, `info` lists no rivers; with
/// rivers on (the default) it reports their count and length and `info` prints a line for each.
#[test]
fn forge_reports_rivers_and_can_leave_them_out() {
    let dir = out_dir();
    let forge = |extra: &[&str], name: &str| {
        let path = dir.join(name);
        let run = isla()
            .args(["forge", "--seed", "7", "--size", "256", "--metres-per-pixel", "16", "--out"])
            .arg(&path)
            .args(extra)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        let info = isla().arg("info").arg(&path).output().unwrap();
        (stderr, String::from_utf8_lossy(&info.stdout).into_owned())
    };
    let (log, info) = forge(&[], "rivers-on.dat");
    let summary = log.lines().find(|l| l.starts_with("forge: summary")).unwrap();
    assert!(summary.contains(" rivers (") && summary.contains(" km), "), "{summary}");
    assert!(summary.contains(" roads (") && summary.ends_with(" bridges)"), "{summary}");
    assert!(log.lines().any(|l| l.starts_with("forge: roads") && l.contains("every town joined")), "{log}");
    assert!(log.lines().any(|l| l.starts_with("forge: rivers") && l.contains("guards hold")), "{log}");
    let listed = info.lines().filter(|l| l.contains(" km, (") && l.contains(" into ")).count();
    assert!(listed >= 3, "{info}");
    let (log, info) = forge(&["--rivers", "off"], "rivers-off.dat");
    assert!(log.lines().any(|l| l.starts_with("forge: summary") && l.contains("rivers off")), "{log}");
    assert!(!info.contains("rivers:"), "{info}");
    let (log, info) = forge(&["--roads", "off"], "roads-off.dat");
    assert!(log.lines().any(|l| l.starts_with("forge: summary") && l.ends_with("roads off")), "{log}");
    assert!(!info.contains("roads:") && info.contains("rivers:"), "{info}");
    let run = isla().args(["forge", "--rivers", "maybe", "--out", "/tmp/never.dat"]).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
}

#[test]
fn chunk_json_lists_every_column_of_the_chunk() {
    let out = isla()
        .args(["chunk", "blueprints/default.dat", "--at", "5,40", "--json"])
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cols = v.as_array().unwrap();
    assert_eq!(cols.len(), 32 * 32);
    assert_eq!((cols[0]["x"].as_i64(), cols[0]["y"].as_i64()), (Some(0), Some(32)));
    // The map corner is open ocean: wet, with a level and a true depth.
    let c = &cols[0];
    assert_eq!(c["wet"], true);
    assert!(
        c["level_raw"].is_number() && c["water_surface_y_m"].is_number() && c["true_depth_m"].as_f64().unwrap() > 0.0
    );
    assert_eq!(c["seam"], false);
    for key in ["x", "y", "surface_y_m", "wet", "level_raw", "water_surface_y_m", "true_depth_m", "seam", "road"] {
        assert!(c.get(key).is_some(), "{key}");
    }
    let bad =
        isla().args(["chunk", "blueprints/default.dat", "--at", "99999,0"]).current_dir(repo("")).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// A synthetic 4096² island (cheap to make): rolling land in the middle, sea at the edges.
fn big_island() -> isla::blueprint::Blueprint {
    isla::blueprint::testing::cone_island(4096)
}

#[test]
fn streaming_across_a_4096_island_keeps_resident_memory_flat_and_bounded() {
    use bevy::prelude::*;
    use isla::app::IslandWorld;
    use isla::app::server::{
        Loading, Lod, NodeIndex, Selection, StreamSettings, Viewer, WorldServerPlugin, WorldStats,
    };
    use isla::world::{RESIDENT_BYTES_PER_COLUMN, UNLOAD_FACTOR, WorldSource};
    use std::sync::Arc;

    let src = Arc::new(WorldSource::new(Arc::new(big_island())));
    let extent = src.layout.map_size as f32 * src.layout.column_m;
    let z = extent * 0.5;
    for lod in [true, false] {
        let view_m = 600.0;
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .add_plugins(WorldServerPlugin)
            .insert_resource(IslandWorld { source: src.clone(), name: "big".into() })
            .insert_resource(StreamSettings { lod, view_distance_m: view_m, ..default() });
        let viewer = app.world_mut().spawn((Viewer, GlobalTransform::from_translation(Vec3::new(0.0, 300.0, z)))).id();
        // With level of detail off, the bound is every chunk that may be resident (within the
        // unload radius, plus one chunk of slack at the disc's edge) at the budget per column.
        let chunk_m = src.layout.chunk_size_m();
        let r = view_m * UNLOAD_FACTOR + chunk_m * std::f32::consts::SQRT_2;
        let max_chunks = (std::f32::consts::PI * r * r / (chunk_m * chunk_m)).ceil() as u64;
        let bound = max_chunks * 1024 * RESIDENT_BYTES_PER_COLUMN as u64;

        let (mut samples, mut nodes) = (Vec::new(), Vec::new());
        let steps = 24;
        for step in 0..=steps {
            let x = extent * step as f32 / steps as f32;
            app.world_mut().entity_mut(viewer).insert(GlobalTransform::from_translation(Vec3::new(x, 300.0, z)));
            // Let the view around the new position finish building and swapping in (bounded).
            for _ in 0..4000 {
                app.update();
                let s = app.world().resource::<WorldStats>();
                let sel = app.world().resource::<Selection>();
                if s.nodes_building == 0 && s.nodes_queued == 0 && sel.target.iter().all(|n| sel.displayed.contains(n))
                {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let s = app.world().resource::<WorldStats>().clone();
            assert_eq!(s.nodes_resident as usize, app.world().resource::<NodeIndex>().0.len());
            if lod {
                // The whole island is drawn from every position: the selection is a partition.
                let tree = app.world().resource::<Lod>().0.clone();
                let sel = app.world().resource::<Selection>();
                let covered: u64 = sel
                    .displayed
                    .iter()
                    .map(|n| {
                        let [x0, z0, x1, z1] = n.chunk_rect();
                        let c = tree.layout.chunks_per_side as i32;
                        ((x1.min(c) - x0) as u64) * ((z1.min(c) - z0) as u64)
                    })
                    .sum();
                assert_eq!(
                    covered,
                    (tree.layout.chunks_per_side as u64).pow(2),
                    "step {step}: the displayed nodes cover the world once"
                );
                // Level-0 chunk data: only chunks whose parent is within range(0).
                let r0 = tree.ranges.range_m(0) + 2.0 * chunk_m * std::f32::consts::SQRT_2;
                let lod_bound = (std::f32::consts::PI * r0 * r0 / (chunk_m * chunk_m)).ceil() as u64
                    * 1024
                    * RESIDENT_BYTES_PER_COLUMN as u64;
                assert!(s.resident_bytes <= lod_bound, "step {step}: {} bytes > {lod_bound}", s.resident_bytes);
            } else {
                assert!(s.resident_bytes <= bound, "step {step}: {} bytes resident > bound {bound}", s.resident_bytes);
            }
            eprintln!(
                "lod {lod} step {step}: x {x:.0} m, {} nodes resident ({} shown), {} bytes of chunk data",
                s.nodes_resident, s.nodes_displayed, s.resident_bytes
            );
            samples.push(s.resident_bytes);
            nodes.push(s.nodes_resident as u64);
        }
        assert!(app.world().resource::<Loading>().finished);
        let s = app.world().resource::<WorldStats>();
        assert!(s.nodes_unloaded_total > 0, "nodes behind the viewer were unloaded");
        // Flat: once the view is full, resident data varies within a band, never growing with
        // distance flown (the path crosses the whole island: 32 times the view distance).
        // (With level of detail the chunk data comes and goes with the ground's height under a
        // 300 m camera; what must stay flat there is the number of resident nodes.)
        let flat: Vec<&Vec<u64>> = if lod { vec![&nodes] } else { vec![&samples, &nodes] };
        for series in flat {
            let steady = &series[4..series.len() - 4];
            let (lo, hi) = (steady.iter().min().unwrap(), steady.iter().max().unwrap());
            assert!(*hi as f64 <= (*lo).max(1) as f64 * 1.6, "lod {lod}: resident not flat: {lo}..{hi}");
            eprintln!("lod {lod}: resident along the path {lo}..{hi}");
        }
    }
}

#[test]
fn every_malformed_seed_is_refused_with_exit_code_2_naming_where() {
    let seeds = repo("fuzz/seeds");
    let mut refused = 0;
    for entry in std::fs::read_dir(&seeds).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = isla().arg("info").arg(&path).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let valid = name.starts_with("valid") || name == "all-sections.dat" || name == "tdtl-v1.dat";
        if valid {
            assert!(out.status.success(), "{name}: {err}");
            continue;
        }
        refused += 1;
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(err.contains(" at byte "), "{name}: names the offset: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    assert!(refused >= 7, "{refused} malformed seeds");
    // The skipped-version seed reads with a warning, metadata empty.
    let out = isla().arg("info").arg(seeds.join("tdtl-v1.dat")).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("TDTL version 1"));
}

#[test]
fn a_dry_blueprint_says_nothing_is_wet() {
    let mut bp = isla::forge::forge(&isla::forge::ForgeDials::new(2, 64), |_| {}).unwrap();
    bp.water = None;
    let path = out_dir().join("dry-64.dat");
    isla::blueprint::write_file_atomic(&path, &bp).unwrap();
    let run = isla()
        .args(["shot", "--width", "64", "--height", "36", "--out"])
        .arg(out_dir().join("dry.png"))
        .arg(&path)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{log}");
    assert!(log.contains("water: nothing is wet (the blueprint has no WBID section)"), "{log}");
}

fn mean_abs_diff(a: &image::RgbImage, b: &image::RgbImage) -> f64 {
    a.pixels()
        .zip(b.pixels())
        .map(|(p, q)| (0..3).map(|c| (p[c] as i32 - q[c] as i32).abs() as f64).sum::<f64>())
        .sum::<f64>()
        / (a.len() as f64)
}

/// The small island's overview at 160 × 90 as each of `views` (`NAME`, then TOML keys that
/// refine the preset: `off`, `on`, `shading`, the sun), rendered by one `isla suite` process (the
/// island loads once), blessed into a scratch folder: the pictures by name.
fn overview_variants(suite: &str, views: &[(&str, &str)]) -> std::collections::HashMap<String, image::RgbImage> {
    let dir = out_dir().join(suite);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut toml = format!(
        "blueprint = \"{}\"\nreferences = \"refs\"\nwidth = 160\nheight = 90\n",
        repo("blueprints/small.dat").display()
    );
    for (name, keys) in views {
        toml += &format!("\n[[view]]\nname = \"{name}\"\npreset = \"overview\"\n{keys}\n");
    }
    std::fs::write(dir.join("suite.toml"), toml).unwrap();
    let run = isla()
        .arg("suite")
        .arg(dir.join("suite.toml"))
        .args(["--bless", "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(run.status.success(), "isla suite {suite}: {}", String::from_utf8_lossy(&run.stderr));
    let read = |n: &str| image::open(dir.join("out").join(format!("{n}.png"))).unwrap().to_rgb8();
    views.iter().map(|(n, _)| (n.to_string(), read(n))).collect()
}

/// Each overlay toggle, rendered on and off, makes the difference it should (SPEC §7); and with
/// a low sun from the west-north-west, facing the overview camera, the island casts its long
/// shadow towards it across the sea: with shadows off that water and the lee slopes are lit.
#[test]
fn each_visual_toggle_changes_the_frame_as_it_should() {
    let low_sun = "sun_elevation = 10\nsun_azimuth = 300";
    let shots = overview_variants(
        "toggles",
        &[
            ("base", ""),
            ("borders-no-water", "on = [\"chunk-borders\"]\noff = [\"water\"]"),
            ("no-sky-no-fog", "off = [\"sky\", \"fog\"]"),
            ("normals", "shading = \"normals\""),
            ("materials", "shading = \"materials\""),
            ("wireframe", "on = [\"wireframe\"]"),
            ("shadows-on", low_sun),
            ("shadows-off", &format!("{low_sun}\noff = [\"shadows\"]")),
        ],
    );
    let base = &shots["base"];

    // Chunk borders and water off, in one frame (yellow lines; the seabed is sand, not yellow):
    // gizmo lines appear where there were none, and the seabed shows where the sheet was — the
    // sea turns from blue to sand.
    let dry = &shots["borders-no-water"];
    let yellow = |img: &image::RgbImage| img.pixels().filter(|p| p[0] > 180 && p[1] > 160 && p[2] < 90).count();
    assert!(yellow(dry) > 200 && yellow(base) < 20, "borders {} vs base {}", yellow(dry), yellow(base));
    let blue = |img: &image::RgbImage| img.pixels().filter(|p| p[2] as i32 > p[0] as i32 + 40).count();
    assert!(blue(base) > 4 * blue(dry) + 100, "water on {} blue px, off {}", blue(base), blue(dry));

    // Sky and fog off, in one frame: the top rows become the flat clear colour (no gradient
    // across them; fog never touches the clear colour), and the far sea near the horizon keeps
    // its deep colour instead of fading to haze.
    let clear = &shots["no-sky-no-fog"];
    let row_spread = |img: &image::RgbImage, y: u32| {
        let l: Vec<f32> = (0..img.width()).map(|x| luma(img.get_pixel(x, y))).collect();
        l.iter().cloned().fold(f32::MIN, f32::max) - l.iter().cloned().fold(f32::MAX, f32::min)
    };
    assert!(luma(clear.get_pixel(80, 0)) > luma(base.get_pixel(80, 0)) + 10.0, "clear colour is the pale horizon");
    assert!(row_spread(clear, 0) < 2.0);
    let haze_row = (0..90).rev().find(|&y| luma(base.get_pixel(5, y)) > 150.0).unwrap_or(20) + 2;
    assert!(luma(clear.get_pixel(5, haze_row)) < luma(base.get_pixel(5, haze_row)) - 10.0, "fog row {haze_row}");

    // Shading modes recolour the terrain; wireframe draws lines over it.
    for name in ["normals", "materials", "wireframe"] {
        assert!(mean_abs_diff(&shots[name], base) > 1.0, "{name} makes no visible difference");
    }

    // Shadows off brightens the shadowed side, and only that.
    let (mut brighter, mut darker) = (0, 0);
    for (p, q) in shots["shadows-on"].pixels().zip(shots["shadows-off"].pixels()) {
        let (a, b) = (luma(p), luma(q));
        if b > a + 8.0 {
            brighter += 1;
        } else if a > b + 8.0 {
            darker += 1;
        }
    }
    assert!(brighter > 1000, "turning shadows off brightened only {brighter} of 14400 pixels");
    assert!(brighter > 5 * darker, "and darkened {darker}: the change is the shadows, not noise");
}

#[test]
fn map_renders_headless_with_layers_and_stats() {
    let out = out_dir().join("map-small.png");
    let run = isla()
        .args([
            "map",
            "blueprints/small.dat",
            "--layers",
            "terrain,cliffs-by-orientation,grid,towns",
            "--stats",
            "--out",
        ])
        .arg(&out)
        .current_dir(repo(""))
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "{stderr}");
    let img = image::open(&out).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (256, 256), "one pixel per blueprint pixel by default");
    assert!(stdout.contains("cliffs placed:") && stdout.contains("corner evaluations: 4225"), "{stdout}");
    assert!(stderr.contains("µs per pixel"), "{stderr}");
    // A region at half resolution.
    let half = out_dir().join("map-region.png");
    let run = isla()
        .args(["map", "blueprints/small.dat", "--region", "64,64,128,64", "--scale", "2", "--out"])
        .arg(&half)
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(image::open(&half).unwrap().to_rgba8().dimensions(), (64, 32));
    // Bad input: exit code 2, one line.
    for bad in [&["--layers", "lava"][..], &["--preset", "mars"][..], &["--region", "1,2,3"][..]] {
        let run = isla()
            .args(["map", "blueprints/small.dat", "--out", "/tmp/never.png"])
            .args(bad)
            .current_dir(repo(""))
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{bad:?}: {}", String::from_utf8_lossy(&run.stderr));
    }
}

/// SPEC §5 "Sky": the sea reaches the horizon from any altitude the presets use. From high up the
/// open sea's far edge lies over a degree below the horizon; down to it the dome keeps the horizon
/// colour (that of the fully fogged sea), so no darker band and no line shows between them. A
/// camera 17.7 km up (the 16384² island's overview preset) pitched 19° down over the small
/// island: down the frame's centre column, over the sky and the sea beyond the island, no row
/// steps from the next by more than 8 levels. (On
/// the dome's old haze, which began at the horizon, it stepped 14 levels where the sea began.)
#[test]
fn the_sea_meets_the_horizon_without_a_line_from_high_up() {
    use bevy::math::Vec3;
    use isla::app::sky::{HORIZON, linear, sea_edge_depression, sky_colour_from};
    let edge = sea_edge_depression(17_700.0);
    assert!((edge * 90.0 - 1.127).abs() < 0.01, "the far sea's edge from 17.7 km: {}°", edge * 90.0);
    let below = |deg: f32| Vec3::new(deg.to_radians().cos(), -deg.to_radians().sin(), 0.0);
    let away = Vec3::new(0.0, 0.5, 1.0);
    let h = linear(HORIZON);
    for deg in [0.1, 0.5, 1.0, 1.12] {
        let c = sky_colour_from(below(deg), away, 17_700.0);
        assert!(c.iter().zip(h).all(|(a, b)| (a - b).abs() < 1e-5), "{deg}° below: {c:?} is not the horizon {h:?}");
    }
    assert!(sky_colour_from(below(1.5), away, 17_700.0)[2] < h[2] - 0.01, "the haze begins past the edge");
    let pitch = 19f32.to_radians();
    let (from, reach) = ([1000.0, 17_700.0, 40_000.0], 17_700.0 / pitch.sin());
    let at = [1000.0, 0.0, from[2] - reach * pitch.cos()];
    let fmt = |p: [f32; 3]| format!("{},{},{}", p[0], p[1], p[2]);
    let img = render_shot(
        "blueprints/small.dat",
        (320, 180),
        &["--look-from", &fmt(from), "--look-at", &fmt(at)],
        "horizon-17km.png",
    );
    // The rows above the island (its far shore is about 24° below the camera, row 106): sky,
    // horizon at row 28 and open sea.
    let (mut worst, mut at_row) = (0i32, 0u32);
    for y in 1..80 {
        let (p, q) = (img.get_pixel(160, y - 1), img.get_pixel(160, y));
        let step = (0..3).map(|c| (p[c] as i32 - q[c] as i32).abs()).max().unwrap();
        if step > worst {
            (worst, at_row) = (step, y);
        }
    }
    assert!(worst <= 8, "column 160 steps {worst} levels between rows {} and {at_row}", at_row - 1);
}

/// The CPU sky against Godot's ProceduralSkyMaterial formula, worked by hand for the reference
/// values (sky curve 0.12, ground curve 0.05, sun_angle_max 12°, sun_curve 0.15, sun size 0),
/// colours converted from sRGB to linear as Godot's `source_color` uniforms are.
#[test]
fn sky_matches_godots_procedural_sky() {
    use bevy::math::Vec3;
    use isla::app::sky::{GROUND_BOTTOM, HORIZON, SUN_RGB, ZENITH, linear, sky_colour};
    let lin = |c: f32| if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055f32).powf(2.4) };
    assert!((lin(0.5) - 0.21404).abs() < 1e-4, "sRGB 0.5 is linear 0.214");
    let close = |a: [f32; 3], b: [f32; 3], what: &str| {
        assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 2e-3), "{what}: {a:?} against {b:?}")
    };
    let mix = |a: [f32; 3], b: [f32; 3], t: f32| [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * t);
    let away = Vec3::new(0.0, 0.0, 1.0);
    close(sky_colour(Vec3::Y, away), linear(ZENITH), "zenith");
    close(sky_colour(Vec3::X, away), linear(HORIZON), "horizon");
    close(sky_colour(Vec3::NEG_Y, away), linear(GROUND_BOTTOM), "straight down");
    // 30° up: e = 1/3, ease = 1 − (2/3)^(1/0.12) = 1 − 0.034206 = 0.965794.
    let up30 = Vec3::new(30f32.to_radians().cos(), 30f32.to_radians().sin(), 0.0);
    close(sky_colour(up30, away), mix(linear(HORIZON), linear(ZENITH), 0.965794), "30° up");
    // 5° up: e = 1/18, ease = 1 − (17/18)^(8.3333) = 1 − 0.620856 = 0.379144.
    let up5 = Vec3::new(5f32.to_radians().cos(), 5f32.to_radians().sin(), 0.0);
    close(sky_colour(up5, away), mix(linear(HORIZON), linear(ZENITH), 0.379144), "5° up");
    // 30° down: past the 3° haze, ease = 1 − (2/3)^(1/0.05) = 1 − 0.000301 = 0.999699.
    let down30 = Vec3::new(30f32.to_radians().cos(), -30f32.to_radians().sin(), 0.0);
    close(
        sky_colour(down30, away),
        mix(linear(isla::app::sky::GROUND_HORIZON), linear(GROUND_BOTTOM), 0.999699),
        "30° down",
    );
    // The sun's glow, at 60° elevation (the sky behind it is the zenith's to within 1e-5):
    // straight at the sun it is the light's colour; 1° off, c = 1/12, ease = 1 − (11/12)^(1/0.15)
    // = 1 − 0.559604 = 0.440396; 3° off, 1 − 0.75^6.6667 = 1 − 0.146958 = 0.853042; past 12° none.
    let sun = Vec3::new(0.0, 60f32.to_radians().sin(), -60f32.to_radians().cos());
    let off = |deg: f32| {
        let e = (60.0 + deg).to_radians();
        Vec3::new(0.0, e.sin(), -e.cos())
    };
    let behind = sky_colour(off(13.0), sun);
    close(sky_colour(sun, sun), linear(SUN_RGB), "at the sun");
    close(sky_colour(off(1.0), sun), mix(linear(SUN_RGB), sky_colour(off(1.0), -sun), 0.440396), "1° from the sun");
    close(sky_colour(off(3.0), sun), mix(linear(SUN_RGB), sky_colour(off(3.0), -sun), 0.853042), "3° from the sun");
    close(behind, sky_colour(off(13.0), -sun), "13° from the sun: no glow");
}

/// SPEC §5/§7 keys: one table, no key doing two things — the free camera's own bindings
/// included (Bevy's FreeCamera defaults its grab toggle to M, which the map owns).
#[test]
fn no_two_actions_share_a_key() {
    use isla::app::input::{Action, KEY_TABLE, free_camera, key_conflicts, key_of};
    let cam = free_camera();
    assert_eq!(key_conflicts(&cam), Vec::<String>::new());
    assert_eq!(key_of(Action::Map), bevy::prelude::KeyCode::KeyM, "M opens the map");
    assert_eq!(cam.keyboard_key_toggle_cursor_grab, bevy::prelude::KeyCode::KeyG, "G grabs the pointer");
    assert_ne!(cam.keyboard_key_toggle_cursor_grab, key_of(Action::Map));
    // Bevy's default camera would conflict: the check can fail.
    let default_cam = bevy::camera_controller::free_camera::FreeCamera::default();
    assert!(key_conflicts(&default_cam).iter().any(|c| c.contains("KeyM")), "{:?}", key_conflicts(&default_cam));
    // Every toggle action flips exactly its own toggle.
    use isla::app::debug::DebugToggles;
    for b in KEY_TABLE {
        let mut t = DebugToggles::default();
        t.apply(b.action);
        let changed = t != DebugToggles::default();
        let is_toggle = matches!(
            b.action,
            Action::Panel
                | Action::Wireframe
                | Action::ChunkBorders
                | Action::Water
                | Action::Shadows
                | Action::Sky
                | Action::Fog
                | Action::CycleShading
                | Action::SeamHighlight
                | Action::LodColours
                | Action::Map
                | Action::PathLine
        );
        assert_eq!(changed, is_toggle, "{:?}", b.action);
    }
    // The README's controls table lists every key of the table.
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    for row in isla::app::input::help_rows() {
        assert!(readme.contains(&row), "README's controls table lacks {row}");
    }
}

/// SPEC §3 "streaming never opens a hole": flying fast (1,000 m/s at 60 frames a second) and
/// low across a 4096² island, every frame's displayed nodes cover the world exactly once — the
/// atomic swaps keep old nodes until all of their replacements are built.
#[test]
fn a_fast_flight_never_opens_a_hole() {
    use bevy::prelude::*;
    use isla::app::IslandWorld;
    use isla::app::server::{Loading, Lod, Selection, StreamSettings, Viewer, WorldServerPlugin, WorldStats};
    use isla::world::WorldSource;
    use std::sync::Arc;

    let src = Arc::new(WorldSource::new(Arc::new(big_island())));
    let extent = src.layout.map_size as f32 * src.layout.column_m;
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(WorldServerPlugin)
        .insert_resource(IslandWorld { source: src.clone(), name: "big".into() })
        .insert_resource(StreamSettings { max_in_flight: 16, max_swaps_per_frame: 8, ..default() });
    let at = |x: f32| GlobalTransform::from_translation(Vec3::new(x, 120.0, extent * 0.5));
    let viewer = app.world_mut().spawn((Viewer, at(0.0))).id();
    for _ in 0..20_000 {
        app.update();
        if app.world().resource::<Loading>().finished {
            break;
        }
    }
    assert!(app.world().resource::<Loading>().finished, "the first view loads");
    let tree = app.world().resource::<Lod>().0.clone();
    let chunks = tree.layout.chunks_per_side as usize;
    let step_m = 1000.0 / 60.0;
    let (mut frames, mut swaps_waiting) = (0u32, 0u32);
    let mut x = 0.0;
    while x < extent {
        x += step_m;
        app.world_mut().entity_mut(viewer).insert(at(x));
        app.update();
        frames += 1;
        let sel = app.world().resource::<Selection>();
        let mut cover = vec![0u8; chunks * chunks];
        for n in &sel.displayed {
            let [x0, z0, x1, z1] = n.chunk_rect();
            for cx in x0..x1.min(chunks as i32) {
                for cz in z0..z1.min(chunks as i32) {
                    cover[cx as usize * chunks + cz as usize] += 1;
                }
            }
        }
        let bad = cover.iter().filter(|&&c| c != 1).count();
        assert_eq!(bad, 0, "frame {frames} at x {x:.0} m: {bad} chunks shown other than once");
        swaps_waiting += (!sel.target.iter().all(|n| sel.displayed.contains(n))) as u32;
    }
    let s = app.world().resource::<WorldStats>();
    eprintln!(
        "fast flight: {frames} frames over {extent:.0} m, {swaps_waiting} frames still waiting for builds, {} nodes built",
        s.nodes_built_total
    );
    assert!(swaps_waiting > 0, "the flight outran the builder at least once (so the test tests the waiting)");
}

/// SPEC §9 `flight`: a headless scripted flight whose last line is exactly the documented one.
#[test]
fn flight_prints_its_summary_as_the_last_line() {
    let run = isla()
        .args(["flight", "blueprints/small.dat", "--frames", "4", "--width", "64", "--height", "36"])
        .current_dir(repo(""))
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let out = String::from_utf8_lossy(&run.stdout);
    let last = out.lines().last().unwrap_or_default();
    let re = |l: &str| {
        let rest = l.strip_prefix("flight: 4 frames, frame p50 ")?;
        let (p50, rest) = rest.split_once(" ms, p95 ")?;
        let (p95, rest) = rest.split_once(" ms, triangles in view max ")?;
        let (tris, rest) = rest.split_once(", resident ")?;
        let mib = rest.strip_suffix(" MiB")?;
        let one_decimal = |v: &str| v.parse::<f64>().is_ok() && v.split('.').nth(1).is_none_or(|d| d.len() <= 1);
        Some(one_decimal(p50) && one_decimal(p95) && tris.parse::<u64>().ok()? > 0 && mib.parse::<f64>().ok()? > 0.0)
    };
    assert_eq!(re(last), Some(true), "last line: {last:?}");
    let bad = isla().args(["flight", "blueprints/small.dat", "--frames", "1"]).current_dir(repo("")).output().unwrap();
    assert_eq!(bad.status.code(), Some(2), "one frame is refused as bad input");
}

/// A mesh-style change (F8 shading) rebuilds every node without blanking the screen: the old
/// nodes stay on screen, still a partition of the world, until their rebuilt ones replace them.
#[test]
fn a_shading_change_rebuilds_without_a_hole() {
    use bevy::prelude::*;
    use isla::app::IslandWorld;
    use isla::app::debug::DebugToggles;
    use isla::app::server::{Loading, Selection, StaleNodes, Viewer, WorldServerPlugin};
    use isla::world::WorldSource;
    use std::sync::Arc;

    let bp = isla::blueprint::read_file(&repo("blueprints/small.dat")).unwrap();
    let src = Arc::new(WorldSource::new(Arc::new(bp)));
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(WorldServerPlugin)
        .insert_resource(IslandWorld { source: src.clone(), name: "small".into() });
    let extent = src.layout.map_size as f32 * src.layout.column_m;
    app.world_mut().spawn((Viewer, GlobalTransform::from_translation(Vec3::new(extent * 0.5, 150.0, extent * 0.5))));
    while !app.world().resource::<Loading>().finished {
        app.update();
    }
    let chunks = src.layout.chunks_per_side as usize;
    let covered = |app: &App| {
        let mut cover = vec![0u8; chunks * chunks];
        for n in &app.world().resource::<Selection>().displayed {
            let [x0, z0, x1, z1] = n.chunk_rect();
            for cx in x0..x1.min(chunks as i32) {
                for cz in z0..z1.min(chunks as i32) {
                    cover[cx as usize * chunks + cz as usize] += 1;
                }
            }
        }
        cover.iter().all(|&c| c == 1)
    };
    app.world_mut().resource_mut::<DebugToggles>().shading = isla::mesh::Shading::Normals;
    let mut frames = 0;
    loop {
        app.update();
        frames += 1;
        assert!(covered(&app), "frame {frames}: the screen is not covered once");
        if frames > 2 && app.world().resource::<StaleNodes>().0.is_empty() {
            break;
        }
        assert!(frames < 20_000, "the rebuild never finished");
    }
    eprintln!("shading change: rebuilt in {frames} frames with the old nodes on screen meanwhile");
}

/// Mean colour of rows `rows` (all columns) of `img`.
fn row_mean(img: &image::RgbImage, rows: std::ops::Range<u32>) -> [f64; 3] {
    let mut s = [0f64; 3];
    let mut n = 0f64;
    for y in rows {
        for x in 0..img.width() {
            let p = img.get_pixel(x, y);
            (0..3).for_each(|c| s[c] += p[c] as f64);
            n += 1.0;
        }
    }
    s.map(|v| v / n)
}

fn shot_at(extra: &[&str], size: (u32, u32), name: &str) -> image::RgbImage {
    render_shot("blueprints/default.dat", size, extra, name)
}

/// SPEC §5: sky and fogged sea meet at the horizon without a seam — both are tone-mapped alike
/// and the fog is the sky's horizon colour. The overview camera is pitched atan(0.27 / 0.749)
/// = 19.82° down (camera.rs), so with a 55° field of view the horizon (the open sea's far edge is
/// 0.07° below it from 1.1 km up) lies 0.5 − tan 19.82° / tan 27.5° / 2 = 0.1538 of the way down.
#[test]
fn sky_meets_the_fogged_sea_without_a_seam() {
    let img = shot_at(&["--preset", "overview"], (480, 270), "seam-overview.png");
    let pitch = (0.27f64 / (0.62f64 * 0.62 + 0.42 * 0.42).sqrt()).atan();
    let row = (0.5 - pitch.tan() / 27.5f64.to_radians().tan() * 0.5) * 270.0;
    let r = row.round() as u32;
    let above = row_mean(&img, r - 5..r - 2);
    let below = row_mean(&img, r + 2..r + 5);
    let seam = (0..3).map(|c| (above[c] - below[c]).abs()).fold(0.0, f64::max);
    eprintln!("horizon at row {row:.1}: sky {above:.1?}, sea {below:.1?}, seam {seam:.1} levels");
    assert!(seam <= 8.0, "a {seam:.1}-level seam at the horizon: sky {above:.1?}, sea {below:.1?}");
}

/// SPEC §5: the reference's sun (sun_angle_max 12°, curve 0.15) is a glow of a couple of degrees.
/// Looking straight at a 20° sun over the open sea west of the map, the sky (above the horizon)
/// brighter than the same
/// row at the frame's edges (42° from the sun, past any glow) by 40 levels has an equivalent
/// radius of at most 3°.
#[test]
fn the_sun_glows_a_couple_of_degrees() {
    let up = 20f32.to_radians().tan() * 1000.0;
    let at = format!("--look-at=-4000,{},2048", 105.3 + up);
    let img = shot_at(
        &["--look-from=-3000,105.3,2048", &at, "--sun-elevation", "20", "--sun-azimuth", "270"],
        (480, 270),
        "sun-glow.png",
    );
    let l = |p: &image::Rgb<u8>| 0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32;
    // Only the sky: the horizon is tan 20° / tan 27.5° / 2 = 0.35 of the height below the centre.
    let horizon = ((0.5 + 20f32.to_radians().tan() / 27.5f32.to_radians().tan() * 0.5) * 270.0) as u32;
    let mut bright = 0usize;
    for y in 0..horizon - 3 {
        let edge = (l(img.get_pixel(0, y)) + l(img.get_pixel(img.width() - 1, y))) / 2.0;
        bright += (0..img.width()).filter(|&x| l(img.get_pixel(x, y)) > edge + 40.0).count();
    }
    let deg_per_px = 55.0 / 270.0;
    let radius = (bright as f32 / std::f32::consts::PI).sqrt() * deg_per_px;
    eprintln!("sun glow: {bright} pixels 40 levels above their row's edges, equivalent radius {radius:.2}°");
    assert!(bright > 0, "the sun shows no glow at all");
    assert!(radius <= 3.0, "the sun's glow has an equivalent radius of {radius:.2}°");
}

/// SPEC §5: the sea mirrors the sky by Fresnel — most of it at grazing angles, little looking
/// down. 30 m above deep open sea west of the map, looking level with fog off, the ten rows just
/// below the horizon (the frame's middle) are at least 0.8× as bright as the ten rows above it,
/// and at least 1.5× as bright as the sea at the bottom of the frame (27.5° down).
#[test]
fn the_sea_mirrors_the_sky_at_grazing_angles() {
    let img = shot_at(
        &["--look-from=-3000,105.3,2048", "--look-at=-4000,105.3,2048", "--no-fog"],
        (480, 270),
        "sea-fresnel.png",
    );
    let l = |m: [f64; 3]| 0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2];
    let sky = l(row_mean(&img, 125..135));
    let grazing = l(row_mean(&img, 136..146));
    let bottom = l(row_mean(&img, 260..270));
    eprintln!("sky above the horizon {sky:.1}, sea below it {grazing:.1}, sea at the bottom {bottom:.1}");
    assert!(grazing >= 0.8 * sky, "the sea near the horizon ({grazing:.1}) is not 0.8× the sky above ({sky:.1})");
    assert!(grazing >= 1.5 * bottom, "the grazing sea ({grazing:.1}) is not 1.5× the sea below ({bottom:.1})");
}

/// SPEC §5: ambient comes from the sky — sky-coloured (blue) from above, ground-coloured (warm
/// and darker) from below — at the reference's 0.45, not a flat blue.
#[test]
fn ambient_comes_from_the_sky_hemisphere() {
    use isla::app::scene::{AMBIENT_FRACTION, SKY_UNIT, hemisphere_ambient};
    use isla::app::sky::{GROUND_BOTTOM, GROUND_HORIZON, HORIZON, ZENITH, linear};
    let (up, down) = hemisphere_ambient();
    let (up, down) = (up.map(|v| v / (AMBIENT_FRACTION * SKY_UNIT)), down.map(|v| v / (AMBIENT_FRACTION * SKY_UNIT)));
    let lum = |c: [f32; 3]| 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    assert!(up[2] > up[1] && up[1] > up[0], "the sky half is blue: {up:?}");
    assert!(down[0] > down[2], "the ground half is warm: {down:?}");
    assert!(lum(down) < 0.5 * lum(up), "the ground half is darker: {down:?} against {up:?}");
    // Each half lies between its colours: the sky's between horizon and zenith, the ground's
    // between the horizon (the haze band) and the ground colours.
    let (z, h) = (linear(ZENITH), linear(HORIZON));
    for c in 0..3 {
        assert!(up[c] >= z[c].min(h[c]) - 1e-4 && up[c] <= z[c].max(h[c]) + 1e-4, "{up:?}");
        let lo = linear(GROUND_BOTTOM)[c].min(linear(GROUND_HORIZON)[c]).min(h[c]);
        let hi = linear(GROUND_BOTTOM)[c].max(linear(GROUND_HORIZON)[c]).max(h[c]);
        assert!(down[c] >= lo - 1e-4 && down[c] <= hi + 1e-4, "{down:?}");
    }
}

/// SPEC §5 aerial perspective: the haze is brighter toward the sun, and the sky adds the same
/// inscattering at the horizon, so the fogged sea still meets the sky without a seam there.
/// Level from 30 m over the open sea west of the map, a 10° sun in the west. Measured: seam 2.8
/// levels, the sea just below the horizon 8.8 levels brighter toward the sun than 90° away (0.0
/// without the inscattering, whose seam toward the sun was 15.4 levels once the sky had it alone).
#[test]
fn the_haze_brightens_toward_the_sun_without_a_seam() {
    let sun = ["--sun-elevation", "10", "--sun-azimuth", "270"];
    let toward = shot_at(
        &[&["--look-from=-3000,105.3,2048", "--look-at=-4000,105.3,2048"][..], &sun].concat(),
        (480, 270),
        "haze-toward.png",
    );
    let away = shot_at(
        &[&["--look-from=-3000,105.3,2048", "--look-at=-3000,105.3,1048"][..], &sun].concat(),
        (480, 270),
        "haze-away.png",
    );
    let l = |m: [f64; 3]| 0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2];
    // The horizon is the middle row (135): compare rows just above and just below it.
    let (sky, sea) = (row_mean(&toward, 130..133), row_mean(&toward, 137..140));
    let seam = (0..3).map(|c| (sky[c] - sea[c]).abs()).fold(0.0, f64::max);
    let (t, a) = (l(row_mean(&toward, 137..140)), l(row_mean(&away, 137..140)));
    eprintln!("toward the sun: sky {sky:.1?}, sea {sea:.1?} (seam {seam:.1}); haze toward {t:.1}, away {a:.1}");
    assert!(seam <= 8.0, "a {seam:.1}-level seam at the horizon toward the sun");
    assert!(t >= a + 5.0, "the haze toward the sun ({t:.1}) is not brighter than away from it ({a:.1})");
}

/// SPEC §5 per-pixel water: looking straight down on the south beach of the default island (the
/// shore runs down the frame, sand on the left, sea on the right), the sand fades under the
/// shallows instead of ending at a drawn edge, and foam marks the waterline. Per row: from the
/// last sand pixel before the water, the largest one-pixel step in red over the next 16 pixels,
/// and whether a pixel there is whiter than the sand (foam). Measured: median step 7 levels,
/// largest 11, foam in 13 of 21 rows; with the per-cell vertex colours (before): 43, 46, none.
#[test]
fn the_shallows_fade_into_the_sand_with_foam_at_the_waterline() {
    let img = shot_at(&["--look-from=2000,180,3170", "--look-at=2000,75,3169"], (320, 180), "waterline.png");
    let l = |p: &image::Rgb<u8>| 0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32;
    let (mut steps, mut foam) = (Vec::new(), 0);
    for y in (6..img.height() - 6).step_by(8) {
        let px = |x: u32| *img.get_pixel(x, y);
        let sand = |p: image::Rgb<u8>| p[0] as i32 - p[2] as i32 > 25 && p[0] > 180;
        let Some(wet) = (0..img.width()).find(|&x| px(x)[2] as i32 > px(x)[0] as i32 + 5) else { continue };
        let Some(last_sand) = (0..wet).rev().find(|&x| sand(px(x))) else { continue };
        let seg: Vec<_> = (last_sand..(last_sand + 16).min(img.width())).map(px).collect();
        steps.push(seg.windows(2).map(|w| (w[1][0] as i32 - w[0][0] as i32).abs()).max().unwrap_or(0));
        let s = seg[0];
        // Foam is white: as red as the sand and much bluer. Clear water over sand is bluer too,
        // but it takes red away.
        if seg.iter().any(|p| p[2] as i32 - s[2] as i32 >= 15 && p[0] as i32 >= s[0] as i32 - 3 && l(p) >= l(&s) - 5.0)
        {
            foam += 1;
        }
    }
    steps.sort();
    eprintln!("waterline in {} rows: one-pixel steps in red {steps:?}, foam in {foam} rows", steps.len());
    assert!(steps.len() >= 15, "the waterline was found in only {} rows", steps.len());
    let median = steps[steps.len() / 2];
    assert!(median <= 20, "the sand ends at a drawn edge: median step {median} levels");
    assert!(foam * 3 >= steps.len(), "foam shows in only {foam} of {} rows", steps.len());
}

#[test]
fn actions_sent_as_messages_are_the_one_way_settings_change() {
    use bevy::prelude::*;
    use isla::app::settings::{Action, DebugToggles, SettingsPlugin, SunSettings};
    use isla::mesh::Shading;
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(SettingsPlugin);
    app.update();
    let before = *app.world().resource::<DebugToggles>();
    for a in [Action::Wireframe, Action::SetShading(Shading::Normals), Action::Map, Action::Forward] {
        app.world_mut().write_message(a);
    }
    app.update();
    let t = *app.world().resource::<DebugToggles>();
    assert_eq!(t, DebugToggles { wireframe: true, shading: Shading::Normals, map: true, ..before });

    // The panel edits a copy and sends the difference: applying it gives the copy back.
    let to = DebugToggles { water: false, fog: false, shading: Shading::Materials, panel: true, ..t };
    let mut got = t;
    for a in isla::app::panel::changes(&t, &to) {
        got.apply(a);
    }
    assert_eq!(got, to);
    assert!(isla::app::panel::changes(&to, &to).is_empty(), "no edit sends nothing");

    // A held sun key moves the sun by its step and stays in range.
    let mut sun = SunSettings { elevation_deg: 88.0, azimuth_deg: 359.0 };
    sun.apply(Action::SunRaise, 5.0);
    sun.apply(Action::SunEast, 5.0);
    assert_eq!((sun.elevation_deg, sun.azimuth_deg), (89.0, 4.0));
    sun.apply(Action::Wireframe, 5.0);
    assert_eq!((sun.elevation_deg, sun.azimuth_deg), (89.0, 4.0), "other actions leave the sun");
}

/// `isla shot … --probe PX,PY` prints `probe: {json}` for the column that pixel shows,
/// with the same fields `isla chunk --json` prints for it, plus where it was hit; over the sky,
/// `"hit": false`.
#[test]
fn shot_probe_reports_the_column_as_chunk_json_does() {
    let probe = |look_from: &str, look_at: &str, px: &str| -> serde_json::Value {
        let out = out_dir().join("probe.png");
        let run = isla()
            .args(["shot", "blueprints/small.dat", "--width", "160", "--height", "90", "--probe", px])
            .args(["--look-from", look_from, "--look-at", look_at, "--out"])
            .arg(&out)
            .current_dir(repo(""))
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let stdout = String::from_utf8_lossy(&run.stdout);
        let line = stdout.lines().find_map(|l| l.strip_prefix("probe: ")).expect("a probe line");
        serde_json::from_str(line).unwrap()
    };
    // Straight down over the middle of the 4 km island, and at a slant.
    for (from, at, px) in [("2048,1500,2049", "2048,0,2048", "80,45"), ("900,500,3300", "2000,100,2000", "100,60")] {
        let p = probe(from, at, px);
        assert_eq!(p["hit"], true, "{p}");
        let (x, y) = (p["pixel"][0].as_i64().unwrap(), p["pixel"][1].as_i64().unwrap());
        let chunk = isla()
            .args(["chunk", "blueprints/small.dat", "--json", "--at", &format!("{x},{y}")])
            .current_dir(repo(""))
            .output()
            .unwrap();
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&chunk.stdout).unwrap();
        let row = rows.iter().find(|r| r["x"] == x && r["y"] == y).expect("the column in its chunk");
        for (k, v) in row.as_object().unwrap() {
            assert_eq!(&p[k], v, "probe {px} from {from}: `{k}` differs from chunk --json");
        }
        assert!(p["level"].is_u64() && p["world"].is_array(), "{p}");
    }
    let sky = probe("2048,600,4200", "2048,620,2048", "80,0");
    assert_eq!(sky["hit"], false, "{sky}");
}

/// `--view NAME` starts at a view saved beside the blueprint; an unknown name is one
/// line and exit 2.
#[test]
fn a_saved_view_is_started_from_by_name() {
    let (dir, bp) = small_island_in("saved-views", "small.dat");
    let v: isla::view::View = "isla:v1;from=900,500,3300;at=2000,100,2000;sun=30,200;off=fog".parse().unwrap();
    isla::views::save(&bp, &v).unwrap();
    let shot = |view: &str| {
        isla()
            .args(["shot", "--width", "64", "--height", "36", "--view", view, "--out"])
            .arg(dir.join("s.png"))
            .arg(&bp)
            .output()
            .unwrap()
    };
    let run = shot("view-1");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(
        String::from_utf8_lossy(&run.stdout).contains(&format!("view: {v}")),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let bad = shot("no-such-view");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("no view named 'no-such-view'") && err.trim().lines().count() == 1, "{err}");
}

/// The sun in hand: the panel's sliders send `SetSun`, which sets the sun (clamped as
/// the keys clamp it), and the time of day follows the day arc: east at 6:00, south and 60° high
/// at noon, west at 18:00.
#[test]
fn the_sun_sliders_and_the_day_arc() {
    use bevy::prelude::*;
    use isla::app::settings::{Action, SettingsPlugin, SunSettings};
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(SettingsPlugin);
    app.update();
    app.world_mut().write_message(SunSettings { elevation_deg: 33.5, azimuth_deg: 271.25 }.set_action());
    app.update();
    let s = *app.world().resource::<SunSettings>();
    assert_eq!((s.elevation_deg, s.azimuth_deg), (33.5, 271.25));
    app.world_mut().write_message(Action::SetSun { elevation_cdeg: 9500, azimuth_cdeg: -1000 });
    app.update();
    let s = *app.world().resource::<SunSettings>();
    assert_eq!((s.elevation_deg, s.azimuth_deg), (89.0, 350.0), "clamped as the keys clamp it");
    let close =
        |s: SunSettings, el: f32, az: f32| (s.elevation_deg - el).abs() < 1e-3 && (s.azimuth_deg - az).abs() < 1e-3;
    assert!(close(SunSettings::at_hour(6.0), 2.0, 90.0));
    assert!(close(SunSettings::at_hour(12.0), 60.0, 180.0));
    assert!(close(SunSettings::at_hour(15.0), 60.0 * std::f32::consts::FRAC_1_SQRT_2, 225.0));
    assert!(close(SunSettings::at_hour(18.0), 2.0, 270.0));
    // The time-of-day slider shows an hour only for a sun on the arc: the default sun (38°, 45°)
    // is off it, and so is one turned off it by a degree; a sun the slider set, after the
    // action's rounding, reads back as its hour.
    assert_eq!(SunSettings::default().hour_on_arc(), None);
    assert_eq!(SunSettings { elevation_deg: 61.0, azimuth_deg: 180.0 }.hour_on_arc(), None);
    for hour in [6.0, 7.3, 12.0, 15.55, 18.0] {
        app.world_mut().write_message(SunSettings::at_hour(hour).set_action());
        app.update();
        let got = app.world().resource::<SunSettings>().hour_on_arc();
        assert!(got.is_some_and(|h| (h - hour).abs() < 1e-3), "hour {hour}: {got:?}");
    }
}

/// The full default dials file, read back with the seed and size of the
/// default island, forges `blueprints/default.dat` byte for byte.
#[test]
fn the_printed_default_dials_reproduce_the_default_island() {
    let dir = out_dir();
    let print = isla().args(["forge", "--print-dials"]).output().unwrap();
    assert!(print.status.success(), "{}", String::from_utf8_lossy(&print.stderr));
    let dials = dir.join("default-dials.toml");
    std::fs::write(&dials, &print.stdout).unwrap();
    let x = dir.join("default-from-dials.dat");
    let run = isla()
        .args(["forge", "--dials"])
        .arg(&dials)
        .args(["--seed", "7", "--size", "1024", "--out"])
        .arg(&x)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(std::fs::read(&x).unwrap() == std::fs::read(repo("blueprints/default.dat")).unwrap(), "x.dat differs");
}

/// A dials file with an unknown key, or a value out of range: exit 2, one line naming the file,
/// the key and the range, and no blueprint written.
#[test]
fn a_bad_dials_file_is_one_line_exit_2_and_nothing_written() {
    let dir = out_dir();
    for (name, text, wants) in [
        ("unknown.toml", "[shape]\naxis_x = 0.5\nspin = 2\n", "unknown key 'shape.spin'"),
        ("range.toml", "[towns]\nmax_towns = 500\n", "towns.max_towns = 500 is outside 0..=64"),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let target = dir.join(format!("{name}.dat"));
        let _ = std::fs::remove_file(&target);
        let run =
            isla().args(["forge", "--size", "64", "--dials"]).arg(&file).arg("--out").arg(&target).output().unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&*file.display().to_string()) && err.contains(wants), "{err}");
        assert!(!target.exists(), "{name}: nothing is written");
    }
}

/// `isla diff`: a file against itself exits 0; against an island forged with one dial changed it
/// exits 1 naming that dial and the sections that changed (text and JSON), and draws a PNG; a
/// bad file exits 2. `--dials-from` re-forges an island from its own record, byte for byte, and
/// `info --json` prints that record.
#[test]
fn diff_names_the_dial_and_the_sections_and_dials_from_reforges() {
    let dir = out_dir();
    let same = isla()
        .args(["diff", "blueprints/default.dat", "blueprints/default.dat"])
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0), "{}", String::from_utf8_lossy(&same.stderr));
    let forge = |extra: &[&str], name: &str| {
        let path = dir.join(name);
        let run = isla().args(["forge", "--size", "160"]).args(extra).arg("--out").arg(&path).output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        path
    };
    let a = forge(&[], "diff-a.dat");
    let sea = dir.join("sea.toml");
    std::fs::write(&sea, "[shape]\nsea_level_m = 6.0\n").unwrap();
    let b = forge(&["--dials", sea.to_str().unwrap()], "diff-b.dat");
    let png = dir.join("diff-sea.png");
    let run = isla().arg("diff").arg(&a).arg(&b).arg("--png").arg(&png).output().unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert!(text.contains("dials: 1 differ: shape.sea_level_m 0.0 → 6.0"), "{text}");
    assert!(text.contains("HGTS changed") && text.contains("WBID changed") && text.contains("DIAL changed"), "{text}");
    assert!(image::open(&png).unwrap().width() == 160);
    let json = isla().arg("diff").arg(&a).arg(&b).arg("--json").output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["equal"], false);
    assert_eq!(v["dials"][0]["key"], "shape.sea_level_m");
    assert!(v["water"]["wet_gained"].as_u64().unwrap() > v["water"]["wet_lost"].as_u64().unwrap());
    let bad = isla().arg("diff").arg(&a).arg(&sea).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    // Re-forged from B's own record: the same bytes.
    let again = forge(&["--dials-from", b.to_str().unwrap()], "diff-b-again.dat");
    assert!(std::fs::read(&again).unwrap() == std::fs::read(&b).unwrap(), "--dials-from gives other bytes");
    let info = isla().args(["info", "--json"]).arg(&b).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(v["dials"]["shape.sea_level_m"], 6.0);
    assert_eq!(v["dials"]["size"], 160);
    assert_eq!(v["dials"]["erosion.enabled"], false);
}

/// SPEC §3 "Far-field textures": the first view's coarse tiles are meshed first and their
/// textures baked after (so the first picture waits for the meshes alone), but the world is not
/// `settled` — what a headless shot waits for — until every tile has its textures. Checked on
/// the world server alone (no renderer, so baked textures stay on the entity as
/// `PendingTextures`): at the first settled frame every resident coarse tile holds its textures,
/// built with its mesh or baked after it.
#[test]
fn a_shot_waits_for_the_first_views_textures() {
    use bevy::prelude::*;
    use isla::app::IslandWorld;
    use isla::app::server::{Loading, LodNode, NodeBuffers, PendingTextures, Viewer, WorldServerPlugin, settled};
    use isla::world::WorldSource;
    use std::sync::Arc;

    let bp = isla::blueprint::read_file(&repo("blueprints/default.dat")).expect("default island");
    let src = Arc::new(WorldSource::new(Arc::new(bp)));
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(WorldServerPlugin)
        .insert_resource(IslandWorld { source: src.clone(), name: "default".into() });
    let at = [2048.0, 2500.0, 3400.0];
    app.world_mut().spawn((Viewer, GlobalTransform::from_translation(Vec3::from(at))));
    let mut frames = 0;
    while !settled(app.world(), at) {
        app.update();
        frames += 1;
        assert!(frames < 20_000, "the world never settled");
    }
    assert!(app.world().resource::<Loading>().finished);
    let mut q = app.world_mut().query::<(&LodNode, Option<&NodeBuffers>, Option<&PendingTextures>)>();
    let (mut coarse, mut baked_after) = (0, 0);
    for (node, buffers, pending) in q.iter(app.world()) {
        if node.id.level == 0 {
            continue;
        }
        coarse += 1;
        baked_after += pending.is_some() as usize;
        let with_mesh = buffers.is_some_and(|b| b.0.textures.is_some());
        assert!(with_mesh || pending.is_some(), "{:?} settled without its textures", node.id);
    }
    eprintln!("{coarse} coarse tiles settled after {frames} frames, {baked_after} of them baked after their mesh");
    assert!(coarse > 10 && baked_after > 10, "{coarse} coarse tiles, {baked_after} baked after their mesh");
}
