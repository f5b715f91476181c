//! Headless screenshots: render a world from a camera preset into an image, with no window and no
//! winit, on whatever Vulkan adapter is present (Mesa's software one included). Frames are pumped
//! by hand so the result depends on the frame count, never on wall-clock time.

use super::camera::CameraPreset;
use super::scene::SunSettings;
use super::{IslaScenePlugin, IslandWorld};
use anyhow::{Context, bail};
use bevy::app::PluginsState;
use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::render::render_resource::{TextureFormat, TextureUsages};
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use std::path::Path;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone)]
pub struct ShotOptions {
    pub width: u32,
    pub height: u32,
    pub preset: CameraPreset,
    /// An explicit camera, overriding the preset.
    pub camera: Option<Transform>,
    /// Overlays and view switches, as the flight's debug panel has them.
    pub toggles: super::debug::DebugToggles,
    pub sun: SunSettings,
    /// Frames rendered before the captured one (shadow maps and pipelines settle).
    pub warmup_frames: u32,
    pub view_distance_m: f32,
    /// Level of detail (off: every chunk within the view distance at full detail).
    pub lod: bool,
}

/// Largest shot side in pixels.
pub const MAX_SHOT_SIDE: u32 = 8192;

impl Default for ShotOptions {
    fn default() -> Self {
        Self {
            width: 480,
            height: 270,
            preset: CameraPreset::Overview,
            camera: None,
            toggles: super::debug::DebugToggles::default(),
            sun: SunSettings::default(),
            warmup_frames: 3,
            view_distance_m: super::server::DEFAULT_VIEW_DISTANCE_M,
            lod: true,
        }
    }
}

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

/// Render one frame of `world` and return it as RGBA8 (sRGB) pixels.
pub fn render(world: IslandWorld, opts: &ShotOptions) -> anyhow::Result<image::RgbaImage> {
    if opts.width == 0 || opts.height == 0 || opts.width > MAX_SHOT_SIDE || opts.height > MAX_SHOT_SIDE {
        bail!("shot size {}×{} is outside 1..={MAX_SHOT_SIDE}", opts.width, opts.height);
    }
    let mut app = headless_app(&world, opts.toggles, opts.sun, opts.lod, opts.view_distance_m);
    let cam = camera_bundle(&world, opts.preset);
    let handle = spawn_image_camera(&mut app, cam, opts.width, opts.height);
    if let Some(t) = opts.camera {
        let cams: Vec<Entity> = app.world_mut().query_filtered::<Entity, With<Camera3d>>().iter(app.world()).collect();
        for e in cams {
            app.world_mut().entity_mut(e).insert(t);
        }
    }
    wait_for_first_view(&mut app)?;
    for _ in 0..opts.warmup_frames.max(1) {
        app.update();
    }
    let img = capture(&mut app, handle)?;
    log_view_stats(app.world_mut());
    image::RgbaImage::from_raw(opts.width, opts.height, img).context("captured frame has the wrong size")
}

/// A windowless app with the scene plugins, ready to update by hand.
pub fn headless_app(
    world: &IslandWorld,
    toggles: super::debug::DebugToggles,
    sun: SunSettings,
    lod: bool,
    view_distance_m: f32,
) -> App {
    headless_app_with(world, toggles, sun, lod, view_distance_m, |_| {})
}

/// [`headless_app`], with `extra` adding plugins before the app is finished.
pub fn headless_app_with(
    world: &IslandWorld,
    toggles: super::debug::DebugToggles,
    sun: SunSettings,
    lod: bool,
    view_distance_m: f32,
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
    .insert_resource(super::server::StreamSettings {
        lod,
        view_distance_m,
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
    app.world_mut().spawn((cam, RenderTarget::Image(handle.clone().into()), Msaa::Off, super::server::Viewer));
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

/// Capture the next frame rendered into `handle` as RGBA8 bytes.
pub fn capture(app: &mut App, handle: Handle<Image>) -> anyhow::Result<Vec<u8>> {
    let captured: Arc<Mutex<Option<Image>>> = Arc::default();
    let sink = captured.clone();
    app.world_mut().spawn(Screenshot::image(handle)).observe(move |ev: On<ScreenshotCaptured>| {
        *sink.lock().expect("capture lock") = Some(ev.image.clone());
    });
    for _ in 0..30 {
        app.update();
        if captured.lock().expect("capture lock").is_some() {
            break;
        }
    }
    let img = captured.lock().expect("capture lock").take().context("the renderer never delivered the frame")?;
    img.data.context("captured frame has no pixel data")
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
