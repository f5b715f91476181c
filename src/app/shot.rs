//! Headless screenshots: render a world from a camera preset into an image, with no window and no
//! winit, on whatever Vulkan adapter is present (Mesa's software one included). Frames are pumped
//! by hand so the result depends on the frame count, never on wall-clock time.

use super::camera::CameraPreset;
use super::scene::SunSettings;
use super::sky::SkySettings;
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
}

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
        air_fog(extent),
        preset.transform(&world.source),
    )
}

/// Distance fog in air: the horizon colour, starting just past the island.
pub fn air_fog(extent_m: f32) -> DistanceFog {
    let [r, g, b] = super::sky::HORIZON;
    DistanceFog {
        color: Color::srgb(r, g, b),
        directional_light_color: Color::NONE,
        directional_light_exponent: 30.0,
        falloff: FogFalloff::Linear { start: extent_m * 0.9, end: extent_m * 4.0 },
    }
}

/// Fog under water: dense, tinted like shallow water, so a diver sees tens of metres.
pub fn water_fog() -> DistanceFog {
    let [r, g, b] = crate::mesh::water::SHALLOW_RGB;
    DistanceFog {
        color: Color::srgb(r * 0.45, g * 0.6, b * 0.7),
        directional_light_color: Color::NONE,
        directional_light_exponent: 30.0,
        falloff: FogFalloff::Exponential { density: 0.012 },
    }
}

/// Fog switched off (the debug toggle): pushed beyond any distance in the world.
pub fn no_fog() -> DistanceFog {
    DistanceFog { falloff: FogFalloff::Linear { start: 1.0e9, end: 2.0e9 }, ..air_fog(1.0) }
}

/// Marker: the camera is below a water surface (the fog has switched to [`water_fog`]).
#[derive(Component, Debug)]
pub struct Submerged;

/// Switch the camera's fog between air and water as it crosses the water surface of its column.
pub fn underwater_fog(
    mut commands: Commands,
    world: Res<IslandWorld>,
    toggles: Option<Res<super::debug::DebugToggles>>,
    mut cams: Query<(Entity, &Transform, &mut DistanceFog, Has<Submerged>), With<Camera3d>>,
) {
    let fog_on = toggles.as_ref().is_none_or(|t| t.fog);
    let toggled = toggles.as_ref().is_some_and(|t| t.is_changed());
    let src = &world.source;
    let l = src.layout;
    for (e, t, mut fog, submerged) in &mut cams {
        let (px, py) = ((t.translation.x / l.column_m).round(), (t.translation.z / l.column_m).round());
        let n = l.map_size as f32;
        let below = if px >= 0.0 && py >= 0.0 && px < n && py < n {
            crate::world::water_column(&src.blueprint, &src.water, px as u32, py as u32, l.top_m())
                .is_some_and(|w| t.translation.y < w.water_surface_y_m)
        } else {
            // Beyond the map: the open sea at the ocean's level.
            src.water.ocean_level_raw.is_some_and(|o| t.translation.y < o * src.blueprint.params.metres_per_raw)
        };
        if below != submerged || toggled {
            *fog = match (fog_on, below) {
                (false, _) => no_fog(),
                (true, true) => water_fog(),
                (true, false) => air_fog(n * l.column_m),
            };
            if below {
                commands.entity(e).insert(Submerged);
            } else {
                commands.entity(e).remove::<Submerged>();
            }
        }
    }
}

/// Render one frame of `world` and return it as RGBA8 (sRGB) pixels.
pub fn render(world: IslandWorld, opts: &ShotOptions) -> anyhow::Result<image::RgbaImage> {
    if opts.width == 0 || opts.height == 0 || opts.width > 8192 || opts.height > 8192 {
        bail!("shot size {}×{} is outside 1..=8192", opts.width, opts.height);
    }
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin { primary_window: None, exit_condition: ExitCondition::DontExit, ..default() })
            .set(RenderPlugin { synchronous_pipeline_compilation: true, ..default() })
            .disable::<WinitPlugin>(),
    )
    .insert_resource(world.clone())
    .insert_resource(SunSettings { shadows: opts.toggles.shadows, ..opts.sun })
    .insert_resource(SkySettings { enabled: opts.toggles.sky })
    .insert_resource(opts.toggles)
    // A shot waits for every chunk anyway: build them in big batches so fewer frames are
    // rendered on the way (each frame costs real time on a software renderer).
    .insert_resource(super::server::StreamSettings {
        view_distance_m: opts.view_distance_m,
        batch_size: 512,
        max_batches: 2,
    })
    .add_plugins(IslaScenePlugin);

    while app.plugins_state() == PluginsState::Adding {
        bevy::tasks::tick_global_task_pools_on_main_thread();
    }
    app.finish();
    app.cleanup();

    let mut target = Image::new_target_texture(opts.width, opts.height, TextureFormat::Rgba8UnormSrgb, None);
    target.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    let handle = app.world_mut().resource_mut::<Assets<Image>>().add(target);
    let cam = camera_bundle(&world, opts.preset);
    let mut e =
        app.world_mut().spawn((cam, RenderTarget::Image(handle.clone().into()), Msaa::Off, super::server::Viewer));
    if let Some(t) = opts.camera {
        e.insert(t);
    }

    // Pump frames until every chunk in view is built and uploaded, then a few more so pipelines
    // and shadow maps settle. Bounded: a stuck build is an error, not a hang.
    let started = std::time::Instant::now();
    loop {
        app.update();
        if app.world().resource::<super::server::Loading>().finished {
            break;
        }
        if started.elapsed() > std::time::Duration::from_secs(300) {
            bail!("chunks in view were still building after 300 s");
        }
        std::thread::yield_now();
    }
    for _ in 0..opts.warmup_frames.max(1) {
        app.update();
    }
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
    log_view_stats(app.world_mut());
    let img = captured.lock().expect("capture lock").take().context("the renderer never delivered the frame")?;
    let data = img.data.context("captured frame has no pixel data")?;
    let rgba =
        image::RgbaImage::from_raw(opts.width, opts.height, data).context("captured frame has the wrong size")?;
    Ok(rgba)
}

/// One line: meshes and terrain triangles the camera's frustum kept (after culling).
fn log_view_stats(world: &mut World) {
    use bevy::camera::visibility::ViewVisibility;
    let mut q = world.query::<(&ViewVisibility, Option<&super::server::Chunk>, Has<super::chunks::ChunkWaterSheet>)>();
    let (mut meshes, mut terrain, mut sheets, mut tris) = (0u32, 0u32, 0u32, 0u64);
    for (v, chunk, sheet) in q.iter(world) {
        if !v.get() {
            continue;
        }
        meshes += 1;
        if let Some(c) = chunk {
            terrain += 1;
            tris += c.triangles as u64;
        }
        sheets += sheet as u32;
    }
    info!("shot: in view: {meshes} meshes ({terrain} terrain chunks, {sheets} water sheets), {tris} terrain triangles");
}

/// Write a PNG atomically (temporary file, then rename).
pub fn save_png(img: &image::RgbaImage, path: &Path) -> anyhow::Result<()> {
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgba8(img.clone())
        .to_rgb8()
        .write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
        .context("encoding PNG")?;
    crate::blueprint::write_bytes_atomic(path, &bytes).with_context(|| format!("writing {}", path.display()))
}
