//! The procedural sky (SPEC §5): a gradient from zenith to horizon to ground with a sun disc,
//! following the sun's direction. Drawn as an unlit, vertex-coloured dome around the camera, which
//! works on every driver (the software Vulkan one included).

use super::scene::{Sun, SunSettings, sun_direction};
use bevy::asset::RenderAssetUsages;
use bevy::camera::visibility::NoFrustumCulling;
use bevy::light::{NotShadowCaster, NotShadowReceiver};
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;

pub const ZENITH: [f32; 3] = [0.28, 0.47, 0.79];
pub const HORIZON: [f32; 3] = [0.72, 0.80, 0.86];
pub const GROUND_HORIZON: [f32; 3] = [0.58, 0.56, 0.50];
pub const GROUND_BOTTOM: [f32; 3] = [0.16, 0.15, 0.14];
pub const SKY_CURVE: f32 = 0.12;
pub const GROUND_CURVE: f32 = 0.05;
pub const SUN_DISC_MAX_DEG: f32 = 12.0;
pub const SUN_CURVE: f32 = 0.15;
/// Below-horizon haze band, as a fraction of 90° (about 3°).
pub const HORIZON_HAZE: f32 = 3.0 / 90.0;
pub const SUN_DISC_RGB: [f32; 3] = [1.0, 0.97, 0.90];
/// Dome radius: beyond the terrain, inside the camera's culling range.
pub const DOME_RADIUS_M: f32 = 20_000.0;

/// Godot-style ease for 0 < c < 1: fast rise, long tail (1 − (1 − t)^(1/c)).
fn ease_out(t: f32, c: f32) -> f32 {
    1.0 - (1.0 - t.clamp(0.0, 1.0)).powf(1.0 / c)
}

fn mix3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// sRGB sky colour seen along unit direction `dir` with the sun towards `to_sun`.
pub fn sky_colour(dir: Vec3, to_sun: Vec3) -> [f32; 3] {
    let d = dir.normalize_or_zero();
    let angle_from_horizon = d.y.clamp(-1.0, 1.0).asin() / std::f32::consts::FRAC_PI_2; // −1..1
    let mut c = if angle_from_horizon >= 0.0 {
        mix3(HORIZON, ZENITH, ease_out(angle_from_horizon, SKY_CURVE))
    } else {
        let ground = mix3(GROUND_HORIZON, GROUND_BOTTOM, ease_out(-angle_from_horizon, GROUND_CURVE));
        // Just below the horizon the dome meets the fogged far sea: fade from the horizon (fog)
        // colour so no band shows between the sea's end and the sky.
        mix3(HORIZON, ground, (-angle_from_horizon / HORIZON_HAZE).min(1.0))
    };
    let sun_angle = d.angle_between(to_sun.normalize_or_zero()).to_degrees();
    if sun_angle < SUN_DISC_MAX_DEG && d.y > -0.02 {
        let t = ease_out(1.0 - sun_angle / SUN_DISC_MAX_DEG, SUN_CURVE).powi(4);
        c = mix3(c, SUN_DISC_RGB, t);
    }
    c
}

#[derive(Component)]
pub struct SkyDome;

/// Whether the sky dome is drawn (off shows the clear colour).
#[derive(Resource, Debug, Clone, Copy)]
pub struct SkySettings {
    pub enabled: bool,
}

impl Default for SkySettings {
    fn default() -> Self {
        Self { enabled: true }
    }
}

pub struct SkyPlugin;

impl Plugin for SkyPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SkySettings>()
            .insert_resource(ClearColor(Color::srgb(HORIZON[0], HORIZON[1], HORIZON[2])))
            .add_systems(Startup, spawn_sky)
            .add_systems(PostUpdate, follow_camera.before(TransformSystems::Propagate));
    }
}

/// A UV sphere with per-vertex sky colours, wound to be seen from inside.
pub fn sky_mesh(to_sun: Vec3, sectors: u32, stacks: u32) -> Mesh {
    let mut positions = Vec::new();
    let mut colors = Vec::new();
    let mut normals = Vec::new();
    for i in 0..=stacks {
        let phi = std::f32::consts::PI * i as f32 / stacks as f32; // 0 at the zenith
        for j in 0..=sectors {
            let theta = std::f32::consts::TAU * j as f32 / sectors as f32;
            let dir = Vec3::new(phi.sin() * theta.cos(), phi.cos(), phi.sin() * theta.sin());
            positions.push((dir * DOME_RADIUS_M).to_array());
            normals.push((-dir).to_array());
            let [r, g, b] = sky_colour(dir, to_sun);
            colors.push(Color::srgb(r, g, b).to_linear().to_f32_array());
        }
    }
    let mut indices = Vec::new();
    let row = sectors + 1;
    for i in 0..stacks {
        for j in 0..sectors {
            let (a, b, c, d) = (i * row + j, i * row + j + 1, (i + 1) * row + j, (i + 1) * row + j + 1);
            indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
        .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors)
        .with_inserted_indices(Indices::U32(indices))
}

fn spawn_sky(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    sun: Res<SunSettings>,
    settings: Res<SkySettings>,
) {
    let to_sun = sun_direction(sun.elevation_deg, sun.azimuth_deg);
    commands.spawn((
        SkyDome,
        Mesh3d(meshes.add(sky_mesh(to_sun, 96, 64))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::WHITE,
            unlit: true,
            fog_enabled: false,
            cull_mode: None,
            ..default()
        })),
        Transform::default(),
        if settings.enabled { Visibility::Visible } else { Visibility::Hidden },
        NotShadowCaster,
        NotShadowReceiver,
        NoFrustumCulling,
    ));
}

fn follow_camera(
    cams: Query<&Transform, (With<Camera3d>, Without<SkyDome>)>,
    mut dome: Query<&mut Transform, (With<SkyDome>, Without<Camera3d>, Without<Sun>)>,
) {
    let Some(cam) = cams.iter().next() else {
        return;
    };
    for mut t in &mut dome {
        t.translation = cam.translation;
    }
}
