//! `isla film` end to end (SPEC §10 "Films"): frames that are the same bytes on every run and in
//! any part of the film, a frame's view string that `isla shot` renders to the same bytes, the
//! refusals, and the MP4.

use crate::common::{isla, out_dir, repo, small_island_in};
use std::path::{Path, PathBuf};

/// A 4-key path over the small island: 3 s at 4 fps, 96 × 54 (12 frames).
fn path_file(dir: &Path) -> PathBuf {
    let p = dir.join("small.path.toml");
    let text = format!(
        "version = 1\nblueprint = \"{}\"\nfps = 4\nwidth = 96\nheight = 54\n\
         [[key]]\nlook_from = [200, 900, 3800]\nlook_at = [2048, 100, 2048]\nsun_elevation = 30\n\
         [[key]]\nlook_from = [2048, 700, 4200]\nlook_at = [2048, 100, 2000]\ntravel = 1\nease = \"linear\"\n\
         [[key]]\nlook_from = [3900, 600, 3000]\nlook_at = [2000, 100, 2000]\ntravel = 1\nease = \"linear\"\n\
         [[key]]\nlook_from = [3600, 400, 600]\nlook_at = [2000, 200, 2000]\ntravel = 1\ntime_of_day = 16\n",
        repo("blueprints/small.dat").display()
    );
    std::fs::write(&p, text).unwrap();
    p
}

fn film(args: &[&std::ffi::OsStr]) -> std::process::Output {
    isla().arg("film").args(args).current_dir(repo("")).output().unwrap()
}

fn frames(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

/// The same path gives the same frames, byte for byte, on every run; frames 6..11 rendered alone
/// are the whole film's frames 6..11; and frame 7's view string from film.json, given to
/// `isla shot` at the film's size, renders frame 7's bytes.
#[test]
fn a_film_renders_the_same_bytes_whole_in_parts_and_by_its_view_strings() {
    let dir = out_dir().join("film");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = path_file(&dir);
    let (a, b, part) = (dir.join("a"), dir.join("b"), dir.join("part"));
    for out in [&a, &b] {
        let run = film(&[path.as_os_str(), "--out".as_ref(), out.as_os_str()]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    }
    let whole = frames(&a);
    assert_eq!(whole.len(), 12);
    assert_eq!(whole, frames(&b), "two runs, the same bytes");
    let run = film(&[path.as_os_str(), "--out".as_ref(), part.as_os_str(), "--frames".as_ref(), "6..11".as_ref()]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains("film: frame 11 (6/6)"), "progress: {err}");
    assert_eq!(frames(&part), whole[6..], "frames 6..11 alone are the film's");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(a.join("film.json")).unwrap()).unwrap();
    assert_eq!((json["frames_total"].as_u64(), json["fps"].as_u64()), (Some(12), Some(4)));
    let f7 = &json["frames"][7];
    assert_eq!((f7["frame"].as_u64(), f7["time"].as_f64()), (Some(7), Some(1.75)));
    let shot = dir.join("shot-7.png");
    let run = isla()
        .args([
            "shot",
            "blueprints/small.dat",
            "--width",
            "96",
            "--height",
            "54",
            "--view",
            f7["view"].as_str().unwrap(),
        ])
        .arg("--out")
        .arg(&shot)
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(std::fs::read(&shot).unwrap(), whole[7].1, "frame 7's view string renders frame 7");
    // The MP4: with ffmpeg, 12 frames at 4 fps that ffprobe reads; without it, one clear line.
    let mp4 = dir.join("film.mp4");
    let run = film(&[path.as_os_str(), "--encode".as_ref(), a.as_os_str(), "--mp4".as_ref(), mp4.as_os_str()]);
    let err = String::from_utf8_lossy(&run.stderr);
    if std::process::Command::new("ffmpeg").arg("-version").output().is_ok() {
        assert!(run.status.success(), "{err}");
        let probe = std::process::Command::new("ffprobe")
            .args(["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries"])
            .args(["stream=nb_read_frames,r_frame_rate,pix_fmt,codec_name", "-of", "csv=p=0"])
            .arg(&mp4)
            .output()
            .unwrap();
        let info = String::from_utf8_lossy(&probe.stdout);
        assert_eq!(info.trim(), "h264,yuv420p,4/1,12", "{info}");
    } else {
        assert_eq!(run.status.code(), Some(2), "{err}");
        assert!(err.contains("ffmpeg is not installed") && err.lines().count() == 1, "{err}");
        assert!(!mp4.exists());
    }
}

/// Pixels darker than a fifth of each of their eight neighbours (summed RGB): the dark specks
/// the ground's back faces make when lit as seen from inside, where a sliver of T-junction fill,
/// a crack of a pixel between tiles or a ridge's far side at its silhouette wins a pixel. Rivers
/// a pixel wide, shadows and roads are never that much darker than everything round them.
fn specks(png: &Path) -> Vec<(u32, u32)> {
    let img = image::open(png).unwrap().to_rgb8();
    let l = |x: u32, y: u32| img.get_pixel(x, y).0.iter().map(|&c| c as u32).sum::<u32>();
    let (w, h) = img.dimensions();
    let mut out = Vec::new();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let around = (0..9).filter(|&i| i != 4).map(|i| l(x + i % 3 - 1, y + i / 3 - 1)).min().unwrap();
            if l(x, y) * 5 < around {
                out.push((x, y));
            }
        }
    }
    out
}

/// SPEC §3 "Borders" and §5: the README's film of the default island shows no dark speck.
/// Frames 60..62 (480 × 270) showed 7 with the T-junction fill bulging out of a border and the
/// ground's back faces lit with their normals turned away from the camera.
#[test]
fn the_default_film_shows_no_dark_specks() {
    let dir = out_dir().join("film-specks");
    let _ = std::fs::remove_dir_all(&dir);
    let run = film(&[
        repo("docs/examples/default.path.toml").as_os_str(),
        "--out".as_ref(),
        dir.as_os_str(),
        "--frames".as_ref(),
        "60..62".as_ref(),
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for (name, _) in frames(&dir) {
        let found = specks(&dir.join(&name));
        assert!(found.is_empty(), "{name}: {} dark specks, at {:?}", found.len(), &found[..found.len().min(8)]);
    }
}

/// The view switch `path` (`on=path`, L in the flight) draws the path beside the blueprint in a
/// headless shot too: its yellow line over the island; nothing without the switch, and nothing
/// (the same bytes as without it) where no path file lies beside the blueprint.
#[test]
fn the_path_switch_draws_the_path_beside_the_blueprint_in_a_shot() {
    let (dir, bp) = small_island_in("film-path-switch", "small.dat");
    let view = "isla:v1;from=2048,2600,5600;at=2048,0,2048;sun=38,45";
    let shot = |name: &str, view: &str| {
        let out = dir.join(name);
        let run = isla()
            .args(["shot", "--width", "160", "--height", "90", "--view", view, "--out"])
            .arg(&out)
            .arg(&bp)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        image::open(&out).unwrap().to_rgb8()
    };
    let yellow = |img: &image::RgbImage| img.pixels().filter(|p| p[0] > 200 && p[1] > 160 && p[2] < 90).count();
    let bare = shot("bare.png", view);
    let no_file = shot("no-file.png", &format!("{view};on=path"));
    assert_eq!(bare, no_file, "no path file: the switch draws nothing");
    std::fs::write(
        dir.join("small.path.toml"),
        "version = 1\n[[key]]\nlook_from = [1200, 900, 2000]\nlook_at = [2048, 0, 2048]\n\
         [[key]]\nlook_from = [2900, 900, 2000]\nlook_at = [2048, 0, 2048]\ntravel = 2\n",
    )
    .unwrap();
    let drawn = shot("path.png", &format!("{view};on=path"));
    let off = shot("off.png", view);
    assert_eq!(off, bare, "the path file alone changes nothing");
    assert!(
        yellow(&bare) == 0 && yellow(&drawn) > 40,
        "yellow pixels: {} without, {} with",
        yellow(&bare),
        yellow(&drawn)
    );
}

/// SPEC §10, bad input: fewer than two keys, an unknown saved view, times that do not rise, a
/// NaN, a frame range outside the film, a size out of range — one line naming the file, the key
/// and the problem, exit 2, and nothing written.
#[test]
fn bad_film_input_is_refused_in_one_line_writing_nothing() {
    let dir = out_dir().join("film-bad");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read_to_string(path_file(&dir)).unwrap();
    let out = dir.join("out");
    let cases: Vec<(String, Vec<&str>, &str)> = vec![
        (good.split("[[key]]").take(2).collect::<Vec<_>>().join("[[key]]"), vec![], "a path needs at least two"),
        (
            good.replacen("look_from = [2048, 700, 4200]\nlook_at = [2048, 100, 2000]", "view = \"harbour\"", 1),
            vec![],
            "no saved views",
        ),
        (
            good.replacen("travel = 1\nease", "time = 0.5\nease", 1).replacen(
                "travel = 1\nease",
                "time = 0.2\nease",
                1,
            ),
            vec![],
            "does not come after",
        ),
        (good.replacen("travel = 1", "travel = nan", 1), vec![], "travel must be a finite number"),
        (good.clone(), vec!["--frames", "5..12"], "the film has frames 0..11"),
        (good.clone(), vec!["--width", "97"], "width 97 must be even"),
        (good.clone(), vec!["--fps", "0"], "fps 0 is outside"),
    ];
    for (text, extra, want) in cases {
        let p = dir.join("case.path.toml");
        std::fs::write(&p, &text).unwrap();
        let run =
            isla().arg("film").arg(&p).arg("--out").arg(&out).args(&extra).current_dir(repo("")).output().unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{want}: {err}");
        assert_eq!(err.lines().count(), 1, "{want}: {err}");
        assert!(err.contains(want), "wanted '{want}' in {err}");
        assert!(!out.exists(), "{want}: wrote {}", out.display());
    }
}

/// SPEC §9 `flight --path`: the benchmark flies the user's own path (its whole duration over the
/// frames), with the same last line; without a blueprint it takes the path's.
#[test]
fn flight_flies_a_path_file() {
    let dir = out_dir().join("film-flight");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = path_file(&dir);
    let run = isla()
        .args(["flight", "--frames", "4", "--width", "64", "--height", "36", "--path"])
        .arg(&path)
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.lines().last().unwrap_or_default().starts_with("flight: 4 frames, frame p50 "), "{out}");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains(&format!("flight: flying the path {} (4 keys, 3.0 s) over the 4 frames", path.display())),
        "{err}"
    );
    let none = isla().args(["flight", "--frames", "4"]).output().unwrap();
    let err = String::from_utf8_lossy(&none.stderr);
    assert_eq!(none.status.code(), Some(2));
    assert!(err.contains("were not provided: <BLUEPRINT>") && err.lines().count() == 1, "{err}");
}

/// In the flight (SPEC §10): K appends the current view as a key to `BLUEPRINT.path.toml`; with
/// two keys P plays the path — the camera is where the film has it at each moment — and a flight
/// key stops it.
#[test]
fn the_flight_adds_keys_and_plays_the_path() {
    use bevy::prelude::*;
    use isla::app::film::{FilmPlugin, PathOf, Playing};
    use isla::app::settings::{Action, SettingsPlugin, Viewer};
    let (dir, bp) = small_island_in("film-fly", "island.dat");
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(SettingsPlugin).add_plugins(FilmPlugin);
    app.insert_resource(PathOf::read(Some(bp.clone())));
    let cam = app
        .world_mut()
        .spawn((Viewer, isla::app::camera::look(Vec3::new(0.0, 500.0, 0.0), Vec3::new(100.0, 400.0, 100.0))))
        .id();
    app.update();
    app.world_mut().write_message(Action::AddPathKey);
    app.update();
    *app.world_mut().get_mut::<Transform>(cam).unwrap() =
        isla::app::camera::look(Vec3::new(2000.0, 600.0, 0.0), Vec3::new(2000.0, 400.0, 1000.0));
    app.world_mut().write_message(Action::AddPathKey);
    app.update();
    let file = dir.join("island.path.toml");
    assert_eq!(std::fs::read_to_string(&file).unwrap().matches("[[key]]").count(), 2);
    let film = app.world().resource::<PathOf>().film.clone().expect("two keys make a path");
    assert_eq!(film.file.duration_s(), 4.0);
    app.world_mut().write_message(Action::PlayPath);
    app.update();
    let started = app.world().resource::<Playing>().0;
    for _ in 0..5 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        app.update();
        let t = (app.world().resource::<Time>().elapsed_secs_f64() - started) as f32;
        let want = film.pose(t).from;
        let got = app.world().get::<Transform>(cam).unwrap().translation;
        assert!(got.distance(Vec3::from_array(want)) < 1e-3, "at {t} s the camera is at {got}, the path at {want:?}");
    }
    app.world_mut().write_message(Action::Forward);
    app.update();
    assert!(!app.world().contains_resource::<Playing>(), "a flight key stops it");
}
