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
    pub shadows: bool,
}

impl Default for SunSettings {
    fn default() -> Self {
        Self { elevation_deg: SUN_ELEVATION_DEG, azimuth_deg: SUN_AZIMUTH_DEG, shadows: true }
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
            .add_systems(Startup, spawn_sun);
    }
}

fn spawn_sun(mut commands: Commands, settings: Res<SunSettings>, world: Res<IslandWorld>) {
    let to_sun = sun_direction(settings.elevation_deg, settings.azimuth_deg);
    let extent = world.source.layout.map_size as f32 * world.source.layout.column_m;
    let reach = SHADOW_DISTANCE_M.max(extent * 1.5);
    commands.spawn((
        Sun,
        DirectionalLight {
            color: Color::srgb(1.0, 0.96, 0.88),
            illuminance: lux::AMBIENT_DAYLIGHT,
            shadow_maps_enabled: settings.shadows,
            // Kilometre-scale terrain with metre-scale texels: a little more depth bias than the
            // default keeps self-shadowing free of acne without visible peter-panning.
            shadow_depth_bias: 0.3,
            shadow_normal_bias: 1.8,
            ..default()
        },
        Transform::default().looking_to(-to_sun, Vec3::Y),
        CascadeShadowConfigBuilder {
            num_cascades: 4,
            minimum_distance: 1.0,
            maximum_distance: reach,
            first_cascade_far_bound: reach / 12.0,
            overlap_proportion: 0.2,
        }
        .build(),
    ));
}
