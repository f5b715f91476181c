//! `isla flight`: a headless, deterministic scripted flight — the benchmark of the rendering
//! path (SPEC §9). The camera follows a fixed path computed from the world (approach from the
//! overview, low along the coast, over the spine, into the crater), one pose per frame, so the
//! same blueprint and frame count always fly the same frames. It reports frame times, the most
//! terrain triangles in view in any frame, and the process's resident memory.

use super::IslandWorld;
use super::camera::CameraPreset;
use super::shot::{camera_bundle, spawn_image_camera, view_stats, wait_for_first_view};
use bevy::prelude::*;

#[derive(Debug, Clone)]
pub struct FlightOptions {
    pub frames: u32,
    pub width: u32,
    pub height: u32,
    pub stream: super::settings::Streaming,
    /// Measure each render pass's GPU time (Bevy's render diagnostics, timestamp queries).
    pub passes: bool,
    /// Fly this film's camera path (its whole duration over the frames) instead of the built-in
    /// one; the sun stays the default, so flights compare.
    pub path: Option<crate::film::Film>,
}

/// One render pass's GPU time over the flight's frames.
#[derive(Debug, Clone, PartialEq)]
pub struct PassTime {
    /// The pass's diagnostic path below `render/`, e.g. `main_opaque_pass_3d`.
    pub name: String,
    pub mean_ms: f64,
    pub max_ms: f64,
    /// Mean fragment shader invocations a frame (pipeline statistics; 0 where the driver has none).
    pub fragments: f64,
}

/// One level's resident nodes and their GPU buffers (MiB), terrain and water apart.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelBytes {
    pub level: u8,
    pub nodes: u32,
    pub terrain_mib: f64,
    pub water_mib: f64,
}

/// What a flight measured.
#[derive(Debug, Clone, PartialEq)]
pub struct FlightReport {
    pub frames: u32,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub triangles_max: u64,
    pub resident_mib: f64,
    /// Time until the first view was built and shown, before the timed frames.
    pub first_view_s: f64,
    /// Largest terrain and water data held at once: GPU buffers of the resident nodes, and the
    /// chunk data of the level-0 ones (MiB).
    pub terrain_gpu_mib: f64,
    pub terrain_cpu_mib: f64,
    /// Largest far-field texture data held at once (the coarse tiles' colour and normal
    /// textures, apart from the buffers above; MiB).
    pub texture_mib: f64,
    /// The GPU buffers of the frame that held the most, by level.
    pub gpu_by_level: Vec<LevelBytes>,
    /// With `passes`: GPU time per render pass (Bevy keeps the last 120 frames), slowest first.
    pub passes: Vec<PassTime>,
}

impl FlightReport {
    /// The documented last line of `isla flight`.
    pub fn summary_line(&self) -> String {
        format!(
            "flight: {} frames, frame p50 {:.1} ms, p95 {:.1} ms, triangles in view max {}, resident {:.0} MiB",
            self.frames, self.p50_ms, self.p95_ms, self.triangles_max, self.resident_mib
        )
    }
}

const MIB: f64 = 1024.0 * 1024.0;

/// The `q`-quantile (0..=1) of `v` by the nearest-rank method.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len());
    s[rank - 1]
}

/// The process's resident set in MiB (Linux `/proc/self/statm`; 0 where unavailable).
pub fn resident_mib() -> f64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/statm") else { return 0.0 };
    let pages: f64 = s.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    pages * 4096.0 / MIB
}

/// The path's key poses: overview, low along the coast, over the island's centre above the
/// spine, into the crater.
pub fn key_poses(world: &IslandWorld) -> Vec<Transform> {
    let src = &world.source;
    let l = src.layout;
    let extent = l.map_size as f32 * l.column_m;
    let centre = Vec3::new(extent * 0.5, 0.0, extent * 0.5);
    let max_h = src.max_height_m();
    let coast = CameraPreset::Coast.transform(src);
    let spine_eye = centre + Vec3::new(0.0, max_h + 250.0, extent * 0.08);
    let spine = Transform::from_translation(spine_eye).looking_at(centre - Vec3::new(0.0, 0.0, extent * 0.25), Vec3::Y);
    vec![CameraPreset::Overview.transform(src), coast, spine, CameraPreset::Crater.transform(src)]
}

/// The camera's pose at `t` in 0..=1 along the path through `keys` (positions linear, rotations
/// slerped, each leg an equal share of the flight).
pub fn pose_at(keys: &[Transform], t: f32) -> Transform {
    let legs = keys.len().saturating_sub(1).max(1);
    let x = t.clamp(0.0, 1.0) * legs as f32;
    let i = (x.floor() as usize).min(legs - 1);
    let f = x - i as f32;
    let (a, b) = (keys[i], keys[(i + 1).min(keys.len() - 1)]);
    Transform {
        translation: a.translation.lerp(b.translation, f),
        rotation: a.rotation.slerp(b.rotation, f),
        scale: Vec3::ONE,
    }
}

pub fn run(world: IslandWorld, opts: &FlightOptions) -> anyhow::Result<FlightReport> {
    let passes = opts.passes;
    let mut app = super::shot::headless_app_with(
        &world,
        super::settings::DebugToggles::default(),
        super::settings::SunSettings::default(),
        opts.stream,
        move |app| {
            if passes {
                app.add_plugins(bevy::render::diagnostic::RenderDiagnosticsPlugin);
            }
        },
    );
    let keys = key_poses(&world);
    let cam = camera_bundle(&world, CameraPreset::Overview);
    spawn_image_camera(&mut app, cam, opts.width, opts.height);
    let started = std::time::Instant::now();
    wait_for_first_view(&mut app)?;
    let first_view_s = started.elapsed().as_secs_f64();
    info!(
        "flight: first view ready in {first_view_s:.2} s; flying {} frames at {}×{} (level of detail {})",
        opts.frames,
        opts.width,
        opts.height,
        if opts.stream.lod { "on" } else { "off" }
    );
    log_path(opts);
    let cam_entity = app.world_mut().query_filtered::<Entity, With<Camera3d>>().iter(app.world()).next();
    let cam_entity = cam_entity.ok_or_else(|| anyhow::anyhow!("the flight has no camera"))?;
    let (mut times, mut tris_max, mut rss_max) = (Vec::new(), 0u64, 0f64);
    let (mut gpu_max, mut cpu_max, mut tex_max) = (0u64, 0u64, 0u64);
    let mut gpu_peak_levels = Vec::new();
    let report_every = (opts.frames / 10).max(1);
    for frame in 0..opts.frames {
        let t = frame as f32 / (opts.frames - 1).max(1) as f32;
        app.world_mut().entity_mut(cam_entity).insert(frame_pose(opts.path.as_ref(), &keys, t));
        let t0 = std::time::Instant::now();
        app.update();
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        tris_max = tris_max.max(view_stats(app.world_mut()).0.triangles);
        rss_max = rss_max.max(resident_mib());
        let w = app.world().resource::<super::server::WorldStats>();
        if w.gpu_bytes > gpu_max {
            gpu_max = w.gpu_bytes;
            gpu_peak_levels = w.gpu_bytes_per_level.clone();
        }
        cpu_max = cpu_max.max(w.resident_bytes);
        tex_max = tex_max.max(w.texture_bytes);
        if (frame + 1) % report_every == 0 {
            info!(
                "flight: frame {}/{}: {:.1} ms, {} triangles in view so far at most",
                frame + 1,
                opts.frames,
                times.last().copied().unwrap_or(0.0),
                tris_max
            );
        }
    }
    let gpu_by_level = level_bytes(&gpu_peak_levels);
    Ok(FlightReport {
        frames: opts.frames,
        p50_ms: quantile(&times, 0.5),
        p95_ms: quantile(&times, 0.95),
        triangles_max: tris_max,
        resident_mib: rss_max,
        first_view_s,
        terrain_gpu_mib: gpu_max as f64 / MIB,
        terrain_cpu_mib: cpu_max as f64 / MIB,
        texture_mib: tex_max as f64 / MIB,
        gpu_by_level,
        passes: pass_times(app.world()),
    })
}

/// The camera `t` (0..=1) along the flight: along the path file's film over its whole
/// duration, else along the built-in path through `keys`.
fn frame_pose(path: Option<&crate::film::Film>, keys: &[Transform], t: f32) -> Transform {
    match path {
        Some(film) => {
            let p = film.pose(t * film.file.duration_s());
            let from = Vec3::from_array(p.from);
            super::camera::look(from, from + Vec3::from_array(p.forward) * 100.0)
        }
        None => pose_at(keys, t),
    }
}

/// Say which path file the flight flies, if any.
fn log_path(opts: &FlightOptions) {
    if let Some(film) = &opts.path {
        info!(
            "flight: flying the path {} ({} keys, {:.1} s) over the {} frames",
            film.file.path.display(),
            film.file.keys.len(),
            film.file.duration_s(),
            opts.frames
        );
    }
}

/// The per-level GPU buffers of a frame (`WorldStats::gpu_bytes_per_level`), levels with nodes.
fn level_bytes(per_level: &[(u32, u64, u64)]) -> Vec<LevelBytes> {
    let mib = |b: u64| b as f64 / MIB;
    let levels = per_level.iter().enumerate().filter(|(_, l)| l.0 > 0);
    levels
        .map(|(l, &(n, t, w))| LevelBytes { level: l as u8, nodes: n, terrain_mib: mib(t), water_mib: mib(w) })
        .collect()
}

/// The GPU time of each render pass, from the render diagnostics' history (empty without them).
fn pass_times(world: &World) -> Vec<PassTime> {
    let Some(store) = world.get_resource::<bevy::diagnostic::DiagnosticsStore>() else { return Vec::new() };
    let mut out: Vec<PassTime> = store
        .iter()
        .filter_map(|d| {
            let path = d.path().as_str();
            let name = path.strip_prefix("render/")?.strip_suffix("/elapsed_gpu")?;
            let mean = |d: &bevy::diagnostic::Diagnostic| {
                let v: Vec<f64> = d.values().copied().collect();
                if v.is_empty() { None } else { Some(v.iter().sum::<f64>() / v.len() as f64) }
            };
            let fragments = bevy::diagnostic::DiagnosticPath::new(format!("render/{name}/fragment_shader_invocations"));
            Some(PassTime {
                name: name.to_string(),
                mean_ms: mean(d)?,
                max_ms: d.values().copied().fold(0.0, f64::max),
                fragments: store.get(&fragments).and_then(mean).unwrap_or(0.0),
            })
        })
        .collect();
    out.sort_by(|a, b| b.mean_ms.total_cmp(&a.mean_ms));
    out
}
