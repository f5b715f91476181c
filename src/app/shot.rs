//! Headless screenshots: render a world from a camera preset into an image, with no window and no
//! winit, on whatever Vulkan adapter is present (Mesa's software one included). Frames are pumped
//! by hand so the result depends on the frame count, never on wall-clock time.

use super::camera::CameraPreset;
use super::settings::{Streaming, SunSettings};
use super::{IslaScenePlugin, IslandWorld};
use crate::view::View;
use anyhow::{Context, bail};
use bevy::app::PluginsState;
use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::render::render_resource::{TextureFormat, TextureUsages};
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Largest shot side in pixels.
pub const MAX_SHOT_SIDE: u32 = 8192;

/// The camera every view uses: far culling range for kilometre-scale islands, fog at the horizon.
pub fn camera_bundle(world: &IslandWorld, preset: CameraPreset) -> impl Bundle {
    let layout = world.source.layout;
    let extent = layout.map_size as f32 * layout.column_m;
    (
        Camera3d::default(),
        Projection::Perspective(PerspectiveProjection {
            fov: 55f32.to_radians(),
            near: 0.5,
            far: super::sky::DOME_RADIUS_M * 1.5,
            ..default()
        }),
        super::fog::air_fog(extent),
        // The water's per-pixel depth and foam read the opaque scene's depth (SPEC §5).
        bevy::core_pipeline::prepass::DepthPrepass,
        preset.transform(&world.source),
    )
}

/// Frames drawn with the camera on for each view; the last of them is read back. One is enough:
/// settling ends one frame after the last node is shown (so every mesh has reached the render
/// world), pipelines compile synchronously, and nothing in the picture depends on the frame
/// before. `rendering_the_same_preset_twice_is_repeatable` holds it to that: a suite's second
/// view and a fresh `isla shot` of it are the same bytes.
pub const DRAWN_FRAMES: u32 = 1;

/// Where one render's time went (seconds), for the logs and `docs/PERFORMANCE.md`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderTimings {
    /// Creating the app: plugins, the level-of-detail tree (the first view only).
    pub start_s: f64,
    /// Frames pumped with the camera off until the nodes this view asks for are built and shown.
    pub settle_s: f64,
    pub settle_frames: u32,
    /// The drawn frames.
    pub draw_s: f64,
    /// From the capture request until the pixels are back.
    pub readback_s: f64,
}

/// A headless renderer that keeps one app for many views: pipelines compile once, the blueprint
/// and the level-of-detail tree load once. While a view's nodes build, frames run with the camera
/// off (no drawing, a few milliseconds each); then [`DRAWN_FRAMES`] frames are drawn and the last
/// is read back. A view's picture depends only on the view: the cascades are sized afresh for
/// each camera and nothing is drawn until the screen shows exactly the view's nodes.
pub struct Renderer {
    world: IslandWorld,
    /// The blueprint's file, whose path (`BLUEPRINT.path.toml`) the view switch `path` draws.
    blueprint: Option<std::path::PathBuf>,
    view_distance_m: f32,
    app: Option<App>,
    camera: Option<(Entity, (u32, u32), Handle<Image>)>,
    /// Where the last render's time went.
    pub timings: RenderTimings,
}

impl Drop for Renderer {
    /// Copies requested by the last frames are still in flight: let them land (one more frame,
    /// with nothing drawn, and a wait on the GPU) before the app and their channels go, which
    /// would otherwise warn at exit.
    fn drop(&mut self) {
        if let Some(app) = self.app.as_mut() {
            app.update();
            if let Some(device) = app.world().get_resource::<bevy::render::renderer::RenderDevice>() {
                let _ = device.poll(bevy::render::render_resource::PollType::wait_indefinitely());
            }
        }
    }
}

impl Renderer {
    pub fn new(world: IslandWorld, view_distance_m: f32) -> Self {
        Self { world, blueprint: None, view_distance_m, app: None, camera: None, timings: RenderTimings::default() }
    }

    /// The renderer of the blueprint read from `file`: a view with the switch `path` on draws the
    /// path beside it.
    pub fn of_file(mut self, file: &std::path::Path) -> Self {
        self.blueprint = Some(file.to_path_buf());
        self
    }

    /// The whole view a preset gives on this world, with the given sun, switches and level of
    /// detail.
    pub fn preset_view(
        &self,
        preset: CameraPreset,
        sun: crate::view::Sun,
        switches: crate::view::Switches,
        lod: bool,
    ) -> View {
        let (from, at) = preset.pose(&self.world.source);
        View { from: from.to_array(), at: at.to_array(), sun, switches, lod }
    }

    /// The graphics adapter that renders, once the first render has started the app.
    pub fn adapter(&self) -> Option<crate::renderer::RendererInfo> {
        let info = self.app.as_ref()?.world().get_resource::<bevy::render::renderer::RenderAdapterInfo>()?;
        Some(crate::renderer::RendererInfo {
            name: info.name.clone(),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            isla: env!("CARGO_PKG_VERSION").to_string(),
        })
    }

    /// Render `view` at `width × height` and return it as RGBA8 (sRGB) pixels.
    pub fn render(&mut self, view: &View, width: u32, height: u32) -> anyhow::Result<image::RgbaImage> {
        if width == 0 || height == 0 || width > MAX_SHOT_SIDE || height > MAX_SHOT_SIDE {
            bail!("shot size {width}×{height} is outside 1..={MAX_SHOT_SIDE}");
        }
        let t = std::time::Instant::now();
        let toggles = super::settings::DebugToggles::of_view(&view.switches);
        let sun = SunSettings::from(view.sun);
        let mut timings = RenderTimings::default();
        let Self { world, blueprint, view_distance_m, app, camera: cam_slot, .. } = self;
        let app = match app {
            Some(app) => {
                apply_view_settings(app.world_mut(), toggles, sun, view.lod);
                app
            }
            None => {
                let stream = Streaming { lod: view.lod, view_distance_m: *view_distance_m };
                let new = headless_app(world, toggles, sun, stream);
                timings.start_s = t.elapsed().as_secs_f64();
                app.insert(new)
            }
        };
        // The path beside the blueprint is read the first time a view asks for it.
        if view.switches.path
            && blueprint.is_some()
            && app.world().get_resource::<super::film::PathOf>().is_none_or(|p| p.blueprint.is_none())
        {
            let path = super::film::PathOf::read(blueprint.clone());
            if let Some(problem) = &path.problem {
                warn!("path: {problem}");
            }
            app.insert_resource(path);
        }
        let camera = match cam_slot {
            Some((e, size, h)) if *size == (width, height) => (*e, h.clone()),
            _ => {
                if let Some((e, _, _)) = cam_slot.take() {
                    app.world_mut().despawn(e);
                }
                let cam = camera_bundle(world, CameraPreset::Overview);
                let h = spawn_image_camera(app, cam, width, height);
                let e = app
                    .world_mut()
                    .query_filtered::<Entity, With<super::settings::Viewer>>()
                    .single(app.world())
                    .context("one viewer")?;
                *cam_slot = Some((e, (width, height), h.clone()));
                (e, h)
            }
        };
        let transform = super::camera::look(Vec3::from_array(view.from), Vec3::from_array(view.at));
        {
            let mut e = app.world_mut().entity_mut(camera.0);
            e.insert((transform, GlobalTransform::from(transform)));
            e.get_mut::<Camera>().context("the viewer is a camera")?.is_active = false;
        }
        let s = std::time::Instant::now();
        timings.settle_frames = settle(app, transform.translation.to_array())?;
        timings.settle_s = s.elapsed().as_secs_f64();
        let d = std::time::Instant::now();
        app.world_mut().entity_mut(camera.0).get_mut::<Camera>().context("the viewer is a camera")?.is_active = true;
        for _ in 0..DRAWN_FRAMES {
            app.update();
        }
        log_view_stats(app.world_mut());
        // The target keeps the last drawn frame: read it back with the camera off, so the frames
        // pumped until the copy arrives draw nothing.
        app.world_mut().entity_mut(camera.0).get_mut::<Camera>().context("the viewer is a camera")?.is_active = false;
        timings.draw_s = d.elapsed().as_secs_f64();
        let r = std::time::Instant::now();
        let img = read_back(app, camera.1, width, height)?;
        timings.readback_s = r.elapsed().as_secs_f64();
        info!(
            "shot: settled in {} frames ({:.2} s), drew {DRAWN_FRAMES} ({:.2} s), drawn and read back in {:.2} s",
            timings.settle_frames, timings.settle_s, timings.draw_s, timings.readback_s
        );
        self.timings = timings;
        image::RgbaImage::from_raw(width, height, img).context("captured frame has the wrong size")
    }
}

/// Set the toggles, sun and level of detail of the next view, touching only what changes (each
/// change wakes the systems that apply it), and size the cascades afresh.
fn apply_view_settings(world: &mut World, toggles: super::settings::DebugToggles, sun: SunSettings, lod: bool) {
    if *world.resource::<super::settings::DebugToggles>() != toggles {
        world.insert_resource(toggles);
    }
    let old = *world.resource::<SunSettings>();
    if (old.elevation_deg, old.azimuth_deg) != (sun.elevation_deg, sun.azimuth_deg) {
        world.insert_resource(sun);
    }
    if world.resource::<super::settings::StreamSettings>().lod != lod {
        world.resource_mut::<super::settings::StreamSettings>().lod = lod;
    }
    super::scene::reset_shadow_reach(world);
}

/// Pump frames until the screen shows exactly what a viewer at `at` asks for, then one more so
/// the last nodes' meshes reach the render world; returns the frames pumped. Bounded: a stuck
/// build is an error, not a hang.
fn settle(app: &mut App, at: [f32; 3]) -> anyhow::Result<u32> {
    let started = std::time::Instant::now();
    let mut frames = 0;
    loop {
        app.update();
        frames += 1;
        if super::server::settled(app.world(), at) {
            app.update();
            return Ok(frames + 1);
        }
        if started.elapsed() > std::time::Duration::from_secs(300) {
            bail!("the view was still building after 300 s");
        }
        std::thread::yield_now();
    }
}

/// A windowless app with the scene plugins, ready to update by hand.
pub fn headless_app(
    world: &IslandWorld,
    toggles: super::settings::DebugToggles,
    sun: SunSettings,
    stream: Streaming,
) -> App {
    headless_app_with(world, toggles, sun, stream, |_| {})
}

/// [`headless_app`], with `extra` adding plugins before the app is finished.
pub fn headless_app_with(
    world: &IslandWorld,
    toggles: super::settings::DebugToggles,
    sun: SunSettings,
    stream: Streaming,
    extra: impl FnOnce(&mut App),
) -> App {
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin { primary_window: None, exit_condition: ExitCondition::DontExit, ..default() })
            .set(RenderPlugin { synchronous_pipeline_compilation: true, ..default() })
            .disable::<WinitPlugin>(),
    )
    .insert_resource(world.clone())
    .insert_resource(sun)
    .insert_resource(toggles)
    // A headless run waits for its nodes anyway: keep many jobs queued so fewer frames are
    // rendered on the way (each frame costs real time on a software renderer).
    .insert_resource(super::settings::StreamSettings {
        lod: stream.lod,
        view_distance_m: stream.view_distance_m,
        max_in_flight: 4096,
        max_swaps_per_frame: 0,
    })
    .add_plugins(IslaScenePlugin);
    extra(&mut app);

    while app.plugins_state() == PluginsState::Adding {
        bevy::tasks::tick_global_task_pools_on_main_thread();
    }
    app.finish();
    app.cleanup();

    app
}

/// Spawn the viewing camera rendering into a new image of `width × height`; returns the image.
pub fn spawn_image_camera(app: &mut App, cam: impl Bundle, width: u32, height: u32) -> Handle<Image> {
    let mut target = Image::new_target_texture(width, height, TextureFormat::Rgba8UnormSrgb, None);
    target.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    let handle = app.world_mut().resource_mut::<Assets<Image>>().add(target);
    app.world_mut().spawn((cam, RenderTarget::Image(handle.clone().into()), Msaa::Off, super::settings::Viewer));
    handle
}

/// Pump frames until the first view is built and shown. Bounded: a stuck build is an error, not
/// a hang.
pub fn wait_for_first_view(app: &mut App) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    loop {
        app.update();
        if app.world().resource::<super::server::Loading>().finished {
            return Ok(());
        }
        if started.elapsed() > std::time::Duration::from_secs(300) {
            bail!("the first view was still building after 300 s");
        }
        std::thread::yield_now();
    }
}

/// How long a frame may take to come back from the GPU: 300 s, or `ISLA_READBACK_TIMEOUT_S`.
/// Bounded by time, not frames: a software renderer compiling its shaders on first use takes
/// seconds for one frame (SwiftShader's first, about 8 s on two cores), a slow CI machine longer.
pub fn readback_timeout() -> std::time::Duration {
    let s = std::env::var("ISLA_READBACK_TIMEOUT_S").ok().and_then(|v| v.trim().parse::<f64>().ok());
    std::time::Duration::from_secs_f64(s.filter(|s| s.is_finite() && *s >= 0.0).unwrap_or(300.0))
}

/// A frame the renderer did not return in time ([`readback_timeout`]): said in one line that
/// names the renderer, not as an internal failure.
#[derive(Debug, Clone)]
pub struct SlowRenderer {
    pub renderer: String,
    /// The bound it was given ([`readback_timeout`]).
    pub limit_s: f64,
}

impl std::fmt::Display for SlowRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the renderer {} returned no frame within {:.0} s (ISLA_READBACK_TIMEOUT_S sets how long to wait)",
            self.renderer, self.limit_s
        )
    }
}

impl std::error::Error for SlowRenderer {}

/// The adapter's name, for messages.
pub fn adapter_name(world: &World) -> String {
    world
        .get_resource::<bevy::render::renderer::RenderAdapterInfo>()
        .map_or_else(|| "(unknown adapter)".to_string(), |i| i.name.clone())
}

/// Copy the image `handle` (RGBA8, `width × height`) back from the GPU as it is now, without
/// drawing: frames are pumped until the copy arrives, at most [`readback_timeout`]. Rows come
/// padded to wgpu's copy alignment and are unpadded here.
pub fn read_back(app: &mut App, handle: Handle<Image>, width: u32, height: u32) -> anyhow::Result<Vec<u8>> {
    use bevy::render::gpu_readback::{Readback, ReadbackComplete};
    let captured: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    let sink = captured.clone();
    let e = app
        .world_mut()
        .spawn(Readback::texture(handle))
        .observe(move |ev: On<ReadbackComplete>| {
            let mut s = sink.lock().expect("readback lock");
            if s.is_none() {
                *s = Some(ev.data.clone());
            }
        })
        .id();
    let (started, limit) = (std::time::Instant::now(), readback_timeout());
    loop {
        app.update();
        if captured.lock().expect("readback lock").is_some() || started.elapsed() >= limit {
            break;
        }
    }
    app.world_mut().despawn(e);
    let Some(data) = captured.lock().expect("readback lock").take() else {
        return Err(SlowRenderer { renderer: adapter_name(app.world()), limit_s: limit.as_secs_f64() }.into());
    };
    let row = width as usize * 4;
    let stride = row.next_multiple_of(256);
    if data.len() < stride * (height as usize - 1) + row {
        bail!("the frame read back has {} bytes, expected {}×{} RGBA rows of {stride}", data.len(), width, height);
    }
    let mut out = Vec::with_capacity(row * height as usize);
    for y in 0..height as usize {
        out.extend_from_slice(&data[y * stride..y * stride + row]);
    }
    Ok(out)
}

/// What one view draws: meshes, terrain nodes, water sheets, terrain triangles, and per level
/// `(nodes, triangles)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ViewStats {
    pub meshes: u32,
    pub terrain_nodes: u32,
    pub water_sheets: u32,
    pub triangles: u64,
    pub per_level: Vec<(u32, u64)>,
}

impl ViewStats {
    fn add(&mut self, node: Option<&super::server::LodNode>, sheet: bool) {
        self.meshes += 1;
        if let Some(n) = node {
            self.terrain_nodes += 1;
            self.triangles += n.triangles as u64;
            let l = n.id.level as usize;
            if self.per_level.len() <= l {
                self.per_level.resize(l + 1, (0, 0));
            }
            self.per_level[l].0 += 1;
            self.per_level[l].1 += n.triangles as u64;
        }
        self.water_sheets += sheet as u32;
    }
}

/// Terrain and water in view after culling: `.0` what the camera's frustum kept (the camera's
/// `VisibleEntities`), `.1` everything drawn in any view, the sun's shadow cascades included
/// (`ViewVisibility`).
pub fn view_stats(world: &mut World) -> (ViewStats, ViewStats) {
    use bevy::camera::visibility::{ViewVisibility, VisibleEntities};
    let mut cams = world.query_filtered::<&VisibleEntities, With<Camera3d>>();
    let in_camera: std::collections::HashSet<Entity> =
        cams.iter(world).flat_map(|v| v.get(std::any::TypeId::of::<Mesh3d>()).iter().copied()).collect();
    let mut q = world
        .query::<(Entity, &ViewVisibility, Option<&super::server::LodNode>, Has<super::chunks::ChunkWaterSheet>)>();
    let (mut camera, mut any) = (ViewStats::default(), ViewStats::default());
    for (e, v, node, sheet) in q.iter(world) {
        if in_camera.contains(&e) {
            camera.add(node, sheet);
        }
        if v.get() {
            any.add(node, sheet);
        }
    }
    (camera, any)
}

/// One line: meshes and terrain triangles the camera's frustum kept (after culling).
fn log_view_stats(world: &mut World) {
    let (v, all) = view_stats(world);
    // The line, ending in the camera's terrain triangles; the shadow casters on their own.
    info!(
        "shot: in view: {} meshes ({} terrain nodes, {} water sheets), {} terrain triangles",
        v.meshes, v.terrain_nodes, v.water_sheets, v.triangles
    );
    info!("shot: with the shadow cascades' casters: {} meshes, {} terrain triangles", all.meshes, all.triangles);
    let levels: Vec<String> = v
        .per_level
        .iter()
        .enumerate()
        .filter(|(_, l)| l.0 > 0)
        .map(|(l, (n, t))| format!("L{l} {n} nodes {t} tris"))
        .collect();
    info!("shot: in view per level: {}", levels.join(", "));
}

/// Write a PNG atomically (temporary file, then rename).
pub fn save_png(img: &image::RgbaImage, path: &Path) -> anyhow::Result<()> {
    let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
    crate::io::write_png_atomic(path, &crate::io::encode_png_rgb(rgb.as_raw(), rgb.width(), rgb.height())?)
}
