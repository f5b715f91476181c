//! The flight: a window, Bevy's free camera with speeds for a kilometre-scale island.

use super::camera::CameraPreset;
use super::shot::camera_bundle;
use super::{IslaScenePlugin, IslandWorld};
use bevy::camera_controller::free_camera::{FreeCamera, FreeCameraPlugin};
use bevy::prelude::*;

#[derive(Debug, Clone)]
pub struct FlyOptions {
    /// Exit after this many frames (for smoke tests); `None` runs until the window closes.
    pub exit_after_frames: Option<u32>,
    pub view_distance_m: f32,
}

#[derive(Resource)]
struct ExitAfter(Option<u32>);

pub fn run(world: IslandWorld, opts: FlyOptions) -> AppExit {
    let title = format!("Isla — {}", world.name);
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window { title, resolution: (1280u32, 720u32).into(), ..default() }),
            ..default()
        }))
        .add_plugins((FreeCameraPlugin, IslaScenePlugin))
        .insert_resource(world)
        .insert_resource(ExitAfter(opts.exit_after_frames))
        .insert_resource(super::server::StreamSettings { view_distance_m: opts.view_distance_m, ..default() })
        .add_systems(Startup, spawn_camera)
        .add_systems(Update, (exit_after, show_loading))
        .run()
}

fn spawn_camera(mut commands: Commands, world: Res<IslandWorld>) {
    commands.spawn((
        camera_bundle(&world, CameraPreset::Overview),
        FreeCamera { walk_speed: 60.0, run_speed: 300.0, ..default() },
        super::server::Viewer,
    ));
}

/// The loading indicator: the window title shows the first ring's progress until it is built.
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
            format!("Isla — {} — loading {pct}% ({}/{} chunks)", world.name, loading.done, loading.total)
        };
    }
}

fn exit_after(mut frames: Local<u32>, limit: Res<ExitAfter>, mut exit: MessageWriter<AppExit>) {
    *frames += 1;
    if let Some(n) = limit.0
        && *frames >= n
    {
        info!("fly: exiting after {n} frames as asked");
        exit.write(AppExit::Success);
    }
}
