//! The sun: one shadow-casting directional light, and the ambient light.

use super::IslandWorld;
use bevy::light::{CascadeShadowConfigBuilder, DirectionalLightShadowMap, light_consts::lux};
use bevy::prelude::*;

/// Sun elevation above the horizon (SPEC §5: about 38°).
pub const SUN_ELEVATION_DEG: f32 = 38.0;
/// Sun azimuth, clockwise from north (SPEC §5: about 45°, the north-east).
pub const SUN_AZIMUTH_DEG: f32 = 45.0;
/// Shadows reach at least this far from the camera (SPEC §5).
pub const SHADOW_DISTANCE_M: f32 = 2500.0;
/// The reach grows with the camera's height (a high camera sees more ground): this much per metre
/// above the sea, up to [`SHADOW_MAX_DISTANCE_M`].
pub const SHADOW_REACH_PER_HEIGHT: f32 = 4.0;
pub const SHADOW_MAX_DISTANCE_M: f32 = 16_000.0;

/// How far the sun's cascades reach for a camera `height_m` above the sea: sized from the camera,
/// never from the map.
pub fn shadow_reach_m(height_m: f32) -> f32 {
    (SHADOW_DISTANCE_M + SHADOW_REACH_PER_HEIGHT * height_m.max(0.0)).min(SHADOW_MAX_DISTANCE_M)
}

fn cascades(reach: f32) -> bevy::light::CascadeShadowConfig {
    CascadeShadowConfigBuilder {
        num_cascades: 4,
        minimum_distance: 1.0,
        maximum_distance: reach,
        first_cascade_far_bound: reach / 12.0,
        overlap_proportion: 0.2,
    }
    .build()
}
/// Cool blue ambient (SPEC §5) and its strength: 0.45 of [`AMBIENT_FULL`].
pub const AMBIENT_RGB: [f32; 3] = [0.37, 0.57, 1.0];
pub const AMBIENT_FULL: f32 = 1000.0;
pub const AMBIENT_FRACTION: f32 = 0.45;

/// Unit vector from the ground towards the sun.
pub fn sun_direction(elevation_deg: f32, azimuth_deg: f32) -> Vec3 {
    let (el, az) = (elevation_deg.to_radians(), azimuth_deg.to_radians());
    // North is −Z, east is +X.
    Vec3::new(el.cos() * az.sin(), el.sin(), -el.cos() * az.cos()).normalize()
}

#[derive(Component)]
pub struct Sun;

/// Settings a shot or the flight can change.
#[derive(Resource, Debug, Clone, Copy)]
pub struct SunSettings {
    pub elevation_deg: f32,
    pub azimuth_deg: f32,
}

impl Default for SunSettings {
    fn default() -> Self {
        Self { elevation_deg: SUN_ELEVATION_DEG, azimuth_deg: SUN_AZIMUTH_DEG }
    }
}

pub struct SunPlugin;

impl Plugin for SunPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SunSettings>()
            .insert_resource(DirectionalLightShadowMap { size: 2048 })
            .insert_resource(GlobalAmbientLight {
                color: Color::linear_rgb(AMBIENT_RGB[0], AMBIENT_RGB[1], AMBIENT_RGB[2]),
                brightness: AMBIENT_FULL * AMBIENT_FRACTION,
                ..default()
            })
            .init_resource::<super::debug::DebugToggles>()
            .add_systems(Startup, spawn_sun)
            .add_systems(
                Update,
                (
                    aim_sun.run_if(resource_changed::<SunSettings>),
                    switch_shadows.run_if(resource_changed::<super::debug::DebugToggles>),
                )
                    .in_set(super::IslaSet::Apply),
            )
            .add_systems(PostUpdate, size_shadows_from_camera);
    }
}

/// The light points along the settings' direction (the sky follows the same resource).
fn aim_sun(settings: Res<SunSettings>, mut lights: Query<&mut Transform, With<Sun>>) {
    let to_sun = sun_direction(settings.elevation_deg, settings.azimuth_deg);
    for mut t in &mut lights {
        *t = Transform::default().looking_to(-to_sun, Vec3::Y);
    }
}

/// The shadows toggle (F5, `--no-shadows`).
fn switch_shadows(toggles: Res<super::debug::DebugToggles>, mut lights: Query<&mut DirectionalLight, With<Sun>>) {
    for mut l in &mut lights {
        if l.shadow_maps_enabled != toggles.shadows {
            l.shadow_maps_enabled = toggles.shadows;
        }
    }
}

fn spawn_sun(mut commands: Commands, settings: Res<SunSettings>, toggles: Res<super::debug::DebugToggles>) {
    let to_sun = sun_direction(settings.elevation_deg, settings.azimuth_deg);
    let reach = shadow_reach_m(0.0);
    commands.spawn((
        Sun,
        DirectionalLight {
            color: Color::srgb(super::sky::SUN_RGB[0], super::sky::SUN_RGB[1], super::sky::SUN_RGB[2]),
            illuminance: lux::AMBIENT_DAYLIGHT,
            shadow_maps_enabled: toggles.shadows,
            // Kilometre-scale terrain with metre-scale texels: a little more depth bias than the
            // default keeps self-shadowing free of acne without visible peter-panning.
            shadow_depth_bias: 0.3,
            shadow_normal_bias: 1.8,
            ..default()
        },
        Transform::default().looking_to(-to_sun, Vec3::Y),
        cascades(reach),
        ShadowReach(reach),
    ));
}

/// The reach the sun's cascades were last built for.
#[derive(Component, Debug, Clone, Copy)]
pub struct ShadowReach(pub f32);

/// Resize the cascades when the camera's height changes the reach by more than a tenth.
fn size_shadows_from_camera(
    world: Res<IslandWorld>,
    cams: Query<&GlobalTransform, With<super::server::Viewer>>,
    mut suns: Query<(&mut bevy::light::CascadeShadowConfig, &mut ShadowReach), With<Sun>>,
) {
    let Some(cam) = cams.iter().next() else { return };
    let p = &world.source.blueprint.params;
    let sea = world.source.water.ocean_level_raw.unwrap_or(p.sea_level_raw) * p.metres_per_raw;
    let want = shadow_reach_m(cam.translation().y - sea);
    for (mut cfg, mut reach) in &mut suns {
        if (want - reach.0).abs() > 0.1 * reach.0 {
            *cfg = cascades(want);
            reach.0 = want;
        }
    }
}
