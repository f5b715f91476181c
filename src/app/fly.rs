//! The flight: a window, Bevy's free camera with speeds for a kilometre-scale island.

use super::camera::CameraPreset;
use super::shot::camera_bundle;
use super::{IslaScenePlugin, IslandWorld};
use bevy::camera_controller::free_camera::FreeCameraPlugin;
use bevy::prelude::*;

#[derive(Debug, Clone)]
pub struct FlyOptions {
    /// Exit after this many frames (for smoke tests); `None` runs until the window closes.
    pub exit_after_frames: Option<u32>,
    /// Save a screenshot of the window this many frames before exiting (needs `exit_after_frames`).
    pub screenshot: Option<std::path::PathBuf>,
    /// Where the flight starts: the camera, the sun, the switches and the level of detail.
    pub view: crate::view::View,
    /// Start with these overlays (the view's switches, and for example the panel open).
    pub toggles: super::settings::DebugToggles,
    pub view_distance_m: f32,
    /// The blueprint whose saved views the B key appends to (`BLUEPRINT.views.toml` beside it).
    pub views_file: Option<std::path::PathBuf>,
    /// Watch this blueprint file and reload the island when it changes.
    pub watch: Option<std::path::PathBuf>,
    /// Probe and ruler clicks to make once the first view is built.
    pub clicks: super::probe::StartClicks,
}

/// The view the flight starts from.
#[derive(Resource, Debug, Clone, Copy)]
struct StartView(crate::view::View);

#[derive(Resource)]
struct ExitAfter(Option<u32>, Option<std::path::PathBuf>);

/// The window screenshot: asked for once the world in view is drawn, then written; the exit waits
/// for it.
#[derive(Resource, Default)]
struct ScreenshotState {
    asked: Option<std::time::Instant>,
    saved: bool,
    /// Frames in a row the screen has shown exactly what the camera asks for, every pipeline ready.
    ready_frames: u32,
    /// The frame on which that reached [`SETTLED_FRAMES`]: the world in view is drawn.
    settled_at: Option<u32>,
    frame: u32,
    started: Option<std::time::Instant>,
}

/// Frames in a row, after the view settles, with no render pipeline still compiling before the
/// screenshot is taken: the window compiles pipelines in the background (a shot compiles them
/// at once), and a mesh whose pipeline is not ready is not drawn.
const SETTLED_FRAMES: u32 = 3;

/// How many render pipelines are still compiling, counted by the render world each frame.
#[derive(Resource, Clone, Default)]
struct PipelinesWaiting(std::sync::Arc<std::sync::atomic::AtomicUsize>);

fn count_waiting_pipelines(cache: Res<bevy::render::render_resource::PipelineCache>, waiting: Res<PipelinesWaiting>) {
    waiting.0.store(cache.waiting_pipelines().count(), std::sync::atomic::Ordering::Relaxed);
}

/// Frames before the exit at which the screenshot is asked for at the earliest, so the capture
/// lands before the app ends.
const SCREENSHOT_LEAD_FRAMES: u32 = 10;

/// How long the flight waits for the world in view to be drawn before a screenshot is refused.
const SCREENSHOT_VIEW_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

pub fn run(world: IslandWorld, opts: FlyOptions) -> AppExit {
    let title = format!("Isla — {}", world.name);
    let mut app = App::new();
    if let Some(path) = opts.watch.clone() {
        app.insert_resource(super::reload::Watch::new(path));
    }
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window { title, resolution: (1280u32, 720u32).into(), ..default() }),
        ..default()
    }))
    .insert_resource(world)
    .insert_resource(opts.toggles)
    .insert_resource(super::settings::SunSettings::from(opts.view.sun))
    .insert_resource(StartView(opts.view))
    .insert_resource(opts.clicks.clone())
    .insert_resource(super::input::SavedViewsOf::read(opts.views_file.clone()))
    .insert_resource(super::film::PathOf::read(opts.views_file.clone()))
    .insert_resource(super::settings::StreamSettings {
        lod: opts.view.lod,
        view_distance_m: opts.view_distance_m,
        ..default()
    })
    .add_plugins((
        FreeCameraPlugin,
        IslaScenePlugin,
        super::input::InputPlugin,
        super::panel::DebugPanelPlugin,
        super::map::MapPlugin,
        super::probe::ProbePlugin,
        super::reload::ReloadPlugin,
        super::film::FilmPlugin,
        FlightPlugin { exit_after_frames: opts.exit_after_frames, screenshot: opts.screenshot },
    ))
    .run()
}

/// The windowed flight: the free camera, the loading indicator in the title, the software
/// renderer's MSAA switch, and the smoke tests' exit after N frames (with a screenshot).
pub struct FlightPlugin {
    pub exit_after_frames: Option<u32>,
    pub screenshot: Option<std::path::PathBuf>,
}

impl Plugin for FlightPlugin {
    fn build(&self, app: &mut App) {
        let waiting = PipelinesWaiting::default();
        if let Some(render_app) = app.get_sub_app_mut(bevy::render::RenderApp) {
            render_app.insert_resource(waiting.clone()).add_systems(
                bevy::render::Render,
                count_waiting_pipelines.in_set(bevy::render::RenderSystems::Cleanup),
            );
        }
        app.insert_resource(ExitAfter(self.exit_after_frames, self.screenshot.clone()))
            .insert_resource(waiting)
            .init_resource::<ScreenshotState>()
            .add_systems(Startup, spawn_camera)
            .add_systems(
                Update,
                ((track_settled, exit_after).chain(), show_loading.run_if(resource_changed::<super::server::Loading>))
                    .in_set(super::IslaSet::Render),
            )
            .add_systems(PostStartup, software_renderer_msaa_off);
    }
}

fn spawn_camera(mut commands: Commands, world: Res<IslandWorld>, start: Res<StartView>) {
    let v = start.0;
    let transform = super::camera::look(Vec3::from_array(v.from), Vec3::from_array(v.at));
    commands
        .spawn((camera_bundle(&world, CameraPreset::Overview), super::input::free_camera(), super::settings::Viewer))
        .insert(transform);
    info!("fly: starting at view: {}", v);
}

/// The loading indicator: the window title shows the first view's progress until it is built.
fn show_loading(
    loading: Res<super::server::Loading>,
    world: Res<IslandWorld>,
    mut windows: Query<&mut Window>,
    mut shown: Local<Option<u32>>,
) {
    let pct = if loading.finished { 100 } else { (loading.fraction() * 100.0) as u32 };
    if *shown == Some(pct) {
        return;
    }
    *shown = Some(pct);
    for mut w in &mut windows {
        w.title = if loading.finished {
            format!("Isla — {}", world.name)
        } else {
            format!("Isla — {} — loading {pct}% ({}/{} nodes)", world.name, loading.done, loading.total)
        };
    }
}

/// Counts frames and notes the first on which the screen shows exactly what the camera asks for
/// (the settled view a headless shot waits for), while a screenshot is still to be taken.
fn track_settled(world: &mut World) {
    let mut st = world.resource_mut::<ScreenshotState>();
    st.frame += 1;
    st.started.get_or_insert_with(std::time::Instant::now);
    if st.settled_at.is_some() || world.resource::<ExitAfter>().1.is_none() {
        return;
    }
    let at = world
        .query_filtered::<&GlobalTransform, With<super::settings::Viewer>>()
        .iter(world)
        .next()
        .map(|t| t.translation().to_array());
    let compiling = world.resource::<PipelinesWaiting>().0.load(std::sync::atomic::Ordering::Relaxed);
    let ready = compiling == 0 && at.is_some_and(|at| super::server::settled(world, at));
    let mut st = world.resource_mut::<ScreenshotState>();
    st.ready_frames = if ready { st.ready_frames + 1 } else { 0 };
    if st.ready_frames >= SETTLED_FRAMES {
        st.settled_at = Some(st.frame);
    }
}

/// `--frames N`: exit after N frames. With `--screenshot`, the window is captured once the world
/// in view is drawn (however few frames N is) and not before N − 10 frames, and the exit waits
/// for the file; a view that is not drawn, or a frame that does not come back, in time is refused
/// (exit 1, nothing written).
fn exit_after(
    mut commands: Commands,
    limit: Res<ExitAfter>,
    mut st: ResMut<ScreenshotState>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(n) = limit.0 else { return };
    let frame = st.frame;
    if let Some(path) = &limit.1 {
        let drawn = st.settled_at.is_some();
        if st.asked.is_none() && drawn && frame + SCREENSHOT_LEAD_FRAMES >= n {
            use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
            info!("fly: saving a screenshot of the window to {}", path.display());
            let mut save = save_to_disk(path.clone());
            commands.spawn(Screenshot::primary_window()).observe(
                move |captured: On<ScreenshotCaptured>, mut st: ResMut<ScreenshotState>| {
                    save(captured);
                    st.saved = true;
                },
            );
            st.asked = Some(std::time::Instant::now());
        }
        let late = match st.asked {
            None => st
                .started
                .is_some_and(|t| t.elapsed() > SCREENSHOT_VIEW_TIMEOUT)
                .then(|| format!("the world in view was not drawn within {} s", SCREENSHOT_VIEW_TIMEOUT.as_secs())),
            Some(t) if !st.saved && t.elapsed() > super::shot::readback_timeout() => Some(format!(
                "the window's frame did not come back within {:.0} s",
                super::shot::readback_timeout().as_secs_f64()
            )),
            _ => None,
        };
        if let Some(why) = late {
            error!("fly: --screenshot {}: {why}; no screenshot written", path.display());
            exit.write(AppExit::error());
            return;
        }
        if !st.saved {
            return;
        }
    }
    if frame >= n {
        info!("fly: exiting after {} frames as asked", n);
        exit.write(AppExit::Success);
    }
}

/// On a software rasteriser (Mesa's lavapipe) 4× MSAA quadruples the fragment work of every frame;
/// turn it off there so the flight stays usable on machines without a GPU.
fn software_renderer_msaa_off(
    adapter: Option<Res<bevy::render::renderer::RenderAdapterInfo>>,
    mut cams: Query<&mut Msaa, With<Camera3d>>,
) {
    let Some(info) = adapter else { return };
    // wgpu's DeviceType is not re-exported by Bevy; its Debug name is stable ("Cpu").
    if format!("{:?}", info.device_type) == "Cpu" {
        for mut m in &mut cams {
            *m = Msaa::Off;
        }
        info!("fly: software renderer ({}): MSAA off", info.name);
    }
}
