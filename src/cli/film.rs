//! `isla film`: render a camera path to numbered frames and `film.json`, all of it or a range
//! of it, and encode the frames to an MP4 with ffmpeg (SPEC §10 "Films").

use super::args::FilmArgs;
use super::commands::{load, world_of};
use super::{BadInput, Failure, bad, writable_dir, writable_file};
use isla::film::{Film, PathFile, frame_name, frame_range};
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

type Outcome = Result<ExitCode, Failure>;

/// ffmpeg's version line, or a refusal saying how to get it.
fn ffmpeg() -> Result<String, BadInput> {
    let out = Command::new("ffmpeg").arg("-version").output().map_err(|_| {
        bad("--mp4: ffmpeg is not installed (Debian/Ubuntu: apt-get install ffmpeg); the frames need no encoder")
    })?;
    let line = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("ffmpeg").to_string();
    Ok(line.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

pub fn film(a: FilmArgs) -> Outcome {
    let started = Instant::now();
    if let Some(out) = &a.out {
        writable_dir("--out", out)?;
    }
    if let Some(mp4) = &a.mp4 {
        writable_file("--mp4", mp4)?;
        ffmpeg()?;
    }
    let file = PathFile::load(&a.path).map_err(|e| bad(e.to_string()))?;
    let file = file.with(a.fps, a.width, a.height).map_err(|e| bad(e.to_string()))?;
    let total = file.frames();
    if let Some(dir) = &a.encode {
        let mp4 = a.mp4.as_deref().expect("clap requires --mp4 with --encode");
        return encode(dir, mp4, file.fps, total, started).map(|()| ExitCode::SUCCESS);
    }
    let out = a.out.clone().expect("clap requires --out without --encode");
    let (first, last) = match &a.frames {
        Some(r) => frame_range(r, total).map_err(|e| bad(format!("--frames {e}")))?,
        None => (0, total - 1),
    };
    if a.mp4.is_some() && (first, last) != (0, total - 1) {
        return Err(bad(format!(
            "--mp4 with --frames {first}..{last}: a film of parts is encoded once all are rendered (--encode DIR --mp4 FILE)"
        ))
        .into());
    }
    let (bp, bp_path) =
        load(&file.blueprint).map_err(|BadInput(e)| bad(format!("{}: blueprint: {e:#}", a.path.display())))?;
    let world = world_of(bp, &bp_path);
    let src = world.source.clone();
    let (fps, width, height) = (file.fps, file.width, file.height);
    eprintln!(
        "film: {} of {total} frames ({first}..{last}) of {} over {} at {width}×{height}, {fps} fps, {:.1} s",
        last - first + 1,
        a.path.display(),
        bp_path.display(),
        file.duration_s()
    );
    let film = Film::new(file);
    let views = frame_views(&film, &src);
    std::fs::create_dir_all(&out).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    let mut renderer =
        isla::app::shot::Renderer::new(world, isla::app::server::DEFAULT_VIEW_DISTANCE_M).of_file(&bp_path);
    let t = Instant::now();
    let n = last - first + 1;
    for (k, i) in (first..=last).enumerate() {
        let img = renderer.render(&views[i as usize].0, width, height)?;
        isla::app::shot::save_png(&img, &out.join(frame_name(i)))?;
        let done = k as f64 + 1.0;
        let rate = done / t.elapsed().as_secs_f64().max(1e-9);
        eprint!("\rfilm: frame {i} ({}/{n}), {rate:.2} frames/s, ETA {:.0} s   ", k + 1, (n as f64 - done) / rate);
    }
    eprintln!();
    let about = FilmJson { path: &a.path, blueprint: &bp_path, rendered: (first, last), renderer: renderer.adapter() };
    write_film_json(&out, &film, &views, &about)?;
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "film: wrote {n} frames and film.json to {} in {secs:.1} s ({:.2} s a frame)",
        out.display(),
        secs / n as f64
    );
    if let Some(mp4) = &a.mp4 {
        encode(&out, mp4, fps, total, started)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What film.json says besides the frames.
struct FilmJson<'a> {
    path: &'a Path,
    blueprint: &'a Path,
    rendered: (u64, u64),
    renderer: Option<isla::renderer::RendererInfo>,
}

/// `film.json` beside the frames: the film's settings and every frame's time and view string.
fn write_film_json(out: &Path, film: &Film, views: &[(isla::view::View, f32)], about: &FilmJson) -> anyhow::Result<()> {
    let f = &film.file;
    let json = serde_json::json!({
        "path": about.path.display().to_string(),
        "blueprint": about.blueprint.display().to_string(),
        "fps": f.fps,
        "width": f.width,
        "height": f.height,
        "frames_total": f.frames(),
        "duration_s": f.duration_s(),
        "rendered": [about.rendered.0, about.rendered.1],
        "renderer": about.renderer,
        "lifted_frames": views.iter().filter(|v| v.1 > 0.0).count(),
        "frames": views.iter().enumerate().map(|(i, v)| serde_json::json!({
            "frame": i,
            "time": film.time_of(i as u64),
            "view": v.0.to_string(),
        })).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&json)? + "\n";
    isla::io::write_bytes_atomic(&out.join("film.json"), text.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.join("film.json").display()))
}

/// Every frame's view, lifted over the drawn surface (the carved ground, or the sea over it)
/// between keys, and how far; the lift said once.
fn frame_views(film: &Film, src: &isla::world::WorldSource) -> Vec<(isla::view::View, f32)> {
    let col = src.layout.column_m;
    let ground = |x: f32, z: f32| {
        let (px, pz) = ((x / col).floor() as i64, (z / col).floor() as i64);
        src.surface_y_m(px, pz).max(src.sea_level_m())
    };
    let views: Vec<(isla::view::View, f32)> = (0..film.file.frames()).map(|i| film.view(i, Some(&ground))).collect();
    let lifted: Vec<f32> = views.iter().map(|v| v.1).filter(|&l| l > 0.0).collect();
    if !lifted.is_empty() {
        eprintln!(
            "film: the camera was lifted over the ground between keys at {} frames (at most {:.1} m)",
            lifted.len(),
            lifted.iter().fold(0.0f32, |m, &l| m.max(l))
        );
    }
    views
}

/// Encode `dir`'s frames `0..total` to `mp4` (H.264, yuv420p, `fps`), written atomically. Every
/// frame must be there (a film rendered in parts, joined by file name).
fn encode(dir: &Path, mp4: &Path, fps: u32, total: u64, started: Instant) -> Result<(), Failure> {
    let version = ffmpeg()?;
    let missing: Vec<u64> = (0..total).filter(|&i| !dir.join(frame_name(i)).is_file()).collect();
    if let Some(&m) = missing.first() {
        return Err(bad(format!(
            "--encode {}: {} of {total} frames missing (the first: {})",
            dir.display(),
            missing.len(),
            frame_name(m)
        ))
        .into());
    }
    let tmp = isla::io::temp_path_for(mp4).with_extension("mp4");
    let run = Command::new("ffmpeg")
        .args(["-y", "-loglevel", "error", "-framerate", &fps.to_string(), "-i"])
        .arg(dir.join("frame-%05d.png"))
        .args(["-frames:v", &total.to_string(), "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart"])
        .arg(&tmp)
        .output()
        .map_err(|e| anyhow::anyhow!("running ffmpeg: {e}"))?;
    if !run.status.success() {
        let _ = std::fs::remove_file(&tmp);
        let why = String::from_utf8_lossy(&run.stderr);
        return Err(anyhow::anyhow!("ffmpeg failed: {}", why.lines().next().unwrap_or("no message")).into());
    }
    std::fs::rename(&tmp, mp4).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", mp4.display()))?;
    eprintln!(
        "film: wrote {} ({total} frames at {fps} fps, H.264 yuv420p, {version}) in {:.1} s",
        mp4.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
