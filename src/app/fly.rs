//! The flight: a window, Bevy's free camera with speeds for a kilometre-scale island.

use super::camera::CameraPreset;
use super::shot::camera_bundle;
use super::{IslaScenePlugin, IslandWorld};
use bevy::camera_controller::free_camera::{FreeCamera, FreeCameraPlugin};
use bevy::prelude::*;

#[derive(Debug, Clone, Default)]
pub struct FlyOptions {
    /// Exit after this many frames (for smoke tests); `None` runs until the window closes.
    pub exit_after_frames: Option<u32>,
}

#[derive(Resource)]
struct ExitAfter(Option<u32>);

pub fn run(world: IslandWorld, opts: FlyOptions) -> AppExit {
    let title = format!("Isla — {}", world.name);
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title,
                resolution: (1280u32, 720u32).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((FreeCameraPlugin, IslaScenePlugin))
        .insert_resource(world)
        .insert_resource(ExitAfter(opts.exit_after_frames))
        .add_systems(Startup, spawn_camera)
        .add_systems(Update, exit_after)
        .run()
}

fn spawn_camera(mut commands: Commands, world: Res<IslandWorld>) {
    commands.spawn((
        camera_bundle(&world, CameraPreset::Overview),
        FreeCamera {
            walk_speed: 60.0,
            run_speed: 300.0,
            ..default()
        },
    ));
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
