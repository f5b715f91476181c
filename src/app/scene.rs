//! The sun: one shadow-casting directional light, and the ambient light.

use super::IslandWorld;
use bevy::light::{CascadeShadowConfigBuilder, DirectionalLightShadowMap, light_consts::lux};
use bevy::prelude::*;

pub use super::settings::{SUN_AZIMUTH_DEG, SUN_ELEVATION_DEG, Sun, SunSettings, sun_direction};
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
/// Ambient light from the sky (SPEC §5): the reference takes ambient from its sky at energy 0.45.
pub const AMBIENT_FRACTION: f32 = 0.45;
/// How bright a sky radiance of 1 is in Bevy's units: the sun's illuminance over π, so a surface
/// under a uniform sky of radiance 1 is lit as by the sun of energy 1 (the sky's own sun colour)
/// shining straight on it through Bevy's Lambert term.
pub const SKY_UNIT: f32 = lux::AMBIENT_DAYLIGHT / std::f32::consts::PI;

/// The hemispheric ambient: the cosine-weighted mean sky radiance seen by a surface facing
/// straight up (`.0`) and straight down (`.1`), linear, times [`AMBIENT_FRACTION`] and
/// [`SKY_UNIT`]. A surface with normal `n` gets `mix(down, up, 0.5 + 0.5 n.y)`. The sun's glow
/// (a couple of degrees, under 0.1 % of the hemisphere) is left out, so it does not depend on
/// the sun's position.
pub fn hemisphere_ambient() -> ([f32; 3], [f32; 3]) {
    let no_sun = Vec3::NEG_Y;
    let mean = |up: f32| {
        // Cosine-weighted: elevation φ of the hemisphere around `up`·Y carries cos φ sin φ... per
        // ring; the sky depends on the elevation only.
        let (mut s, mut w) = ([0f64; 3], 0f64);
        let n = 512;
        for i in 0..n {
            let polar = (i as f32 + 0.5) / n as f32 * std::f32::consts::FRAC_PI_2; // from the normal
            let weight = (polar.cos() * polar.sin()) as f64;
            let dir = Vec3::new(polar.sin(), up * polar.cos(), 0.0);
            let c = super::sky::sky_colour(dir, no_sun);
            (0..3).for_each(|k| s[k] += c[k] as f64 * weight);
            w += weight;
        }
        s.map(|v| (v / w) as f32 * AMBIENT_FRACTION * SKY_UNIT)
    };
    (mean(1.0), mean(-1.0))
}

pub struct SunPlugin;

impl Plugin for SunPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.insert_resource(DirectionalLightShadowMap { size: 2048 })
            // Materials without the terrain's hemispheric ambient (the open sea's seabed, the
            // water's body) face up: they get the sky's half.
            .insert_resource({
                let up = hemisphere_ambient().0;
                GlobalAmbientLight { color: Color::linear_rgb(up[0], up[1], up[2]), brightness: 1.0, ..default() }
            })
            .add_systems(Startup, spawn_sun)
            .add_systems(
                Update,
                (
                    aim_sun.run_if(resource_changed::<SunSettings>),
                    switch_shadows.run_if(resource_changed::<super::settings::DebugToggles>),
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

/// Whether the sun casts shadows under these toggles. (The test-only planted defect
/// `ISLA_TEST_PLANT=no-shadows` drops them, so the suite's tests can show a comparison failing on
/// the renderer itself.)
fn shadows_on(toggles: &super::settings::DebugToggles) -> bool {
    toggles.shadows && !crate::planted("no-shadows")
}

/// The shadows toggle (F5, `--no-shadows`).
fn switch_shadows(toggles: Res<super::settings::DebugToggles>, mut lights: Query<&mut DirectionalLight, With<Sun>>) {
    let on = shadows_on(&toggles);
    for mut l in &mut lights {
        if l.shadow_maps_enabled != on {
            l.shadow_maps_enabled = on;
        }
    }
}

/// Put the sun's cascades back to the reach they are spawned with, so the next frame sizes them
/// for the camera exactly as a fresh app would: a render's shadows then depend on its own camera,
/// never on the view rendered before it (`isla suite` renders many views in one app).
pub fn reset_shadow_reach(world: &mut World) {
    let reach = shadow_reach_m(0.0);
    let mut q = world.query_filtered::<(&mut bevy::light::CascadeShadowConfig, &mut ShadowReach), With<Sun>>();
    for (mut cfg, mut r) in q.iter_mut(world) {
        if r.0 != reach {
            *cfg = cascades(reach);
            r.0 = reach;
        }
    }
}

fn spawn_sun(mut commands: Commands, settings: Res<SunSettings>, toggles: Res<super::settings::DebugToggles>) {
    let to_sun = sun_direction(settings.elevation_deg, settings.azimuth_deg);
    let reach = shadow_reach_m(0.0);
    commands.spawn((
        Sun,
        DirectionalLight {
            color: Color::srgb(super::sky::SUN_RGB[0], super::sky::SUN_RGB[1], super::sky::SUN_RGB[2]),
            illuminance: lux::AMBIENT_DAYLIGHT,
            shadow_maps_enabled: shadows_on(&toggles),
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
    cams: Query<&GlobalTransform, With<super::settings::Viewer>>,
    mut suns: Query<(&mut bevy::light::CascadeShadowConfig, &mut ShadowReach), With<Sun>>,
) {
    let Some(cam) = cams.iter().next() else { return };
    let sea = world.source.sea_level_m();
    let want = shadow_reach_m(cam.translation().y - sea);
    for (mut cfg, mut reach) in &mut suns {
        if (want - reach.0).abs() > 0.1 * reach.0 {
            *cfg = cascades(want);
            reach.0 = want;
        }
    }
}
