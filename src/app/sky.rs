//! The procedural sky (SPEC §5): a gradient from zenith to horizon to ground with a sun disc,
//! following the sun's direction. Drawn by the app's own WGSL material (`sky.wgsl`) on a dome that
//! follows the camera; [`sky_colour`] is the same function on the CPU, for tests and tools.

use super::scene::{Sun, SunSettings, sun_direction};
use bevy::camera::visibility::NoFrustumCulling;
use bevy::light::{NotShadowCaster, NotShadowReceiver};
use bevy::mesh::MeshVertexBufferLayoutRef;
use bevy::pbr::{MaterialPipeline, MaterialPipelineKey};
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, RenderPipelineDescriptor, ShaderType, SpecializedMeshPipelineError};
use bevy::shader::ShaderRef;

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
/// Dome radius: beyond the terrain, inside the camera's culling range, and far enough that the
/// open sea (which reaches 0.9 of it) meets the horizon within the haze band from any altitude
/// up to 10 km: atan(10 km / 900 km) = 0.64° < 3°. Bevy's perspective depth is reverse-Z with an
/// infinite far plane, so the distance costs no depth precision.
pub const DOME_RADIUS_M: f32 = 1_000_000.0;

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

/// Uniforms of the sky shader. Colours are sRGB, as SPEC §5 gives them: the shader blends in sRGB
/// exactly like [`sky_colour`] and converts the result to linear at the end.
#[derive(ShaderType, Debug, Clone, Copy)]
pub struct SkyParams {
    pub zenith: Vec4,
    pub horizon: Vec4,
    pub ground_horizon: Vec4,
    pub ground_bottom: Vec4,
    pub sun_colour: Vec4,
    /// xyz towards the sun, w the disc radius in radians.
    pub sun: Vec4,
    /// sky curve, ground curve, sun curve, horizon haze.
    pub curves: Vec4,
}

impl SkyParams {
    pub fn new(to_sun: Vec3) -> Self {
        let lin = |c: [f32; 3]| Vec4::new(c[0], c[1], c[2], 1.0);
        Self {
            zenith: lin(ZENITH),
            horizon: lin(HORIZON),
            ground_horizon: lin(GROUND_HORIZON),
            ground_bottom: lin(GROUND_BOTTOM),
            sun_colour: lin(SUN_DISC_RGB),
            sun: to_sun.normalize().extend(SUN_DISC_MAX_DEG.to_radians()),
            curves: Vec4::new(SKY_CURVE, GROUND_CURVE, SUN_CURVE, HORIZON_HAZE),
        }
    }
}

/// The sky as the app's own WGSL material: works on any Vulkan driver, the software one included.
#[derive(Asset, TypePath, AsBindGroup, Debug, Clone)]
pub struct SkyMaterial {
    #[uniform(0)]
    pub params: SkyParams,
}

impl Material for SkyMaterial {
    fn fragment_shader() -> ShaderRef {
        "embedded://isla/app/sky.wgsl".into()
    }
    fn enable_prepass() -> bool {
        false
    }
    fn enable_shadows() -> bool {
        false
    }
    fn specialize(
        _: &MaterialPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        _: &MeshVertexBufferLayoutRef,
        _: MaterialPipelineKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        // Seen from inside.
        descriptor.primitive.cull_mode = None;
        Ok(())
    }
}

#[derive(Resource)]
pub struct SkyHandle(pub Handle<SkyMaterial>);

pub struct SkyPlugin;

impl Plugin for SkyPlugin {
    fn build(&self, app: &mut App) {
        // Embedded so the binary finds its shader from any working directory.
        bevy::asset::embedded_asset!(app, "sky.wgsl");
        app.add_plugins(MaterialPlugin::<SkyMaterial>::default())
            .init_resource::<super::debug::DebugToggles>()
            .insert_resource(ClearColor(Color::srgb(HORIZON[0], HORIZON[1], HORIZON[2])))
            .add_systems(Startup, spawn_sky)
            .add_systems(
                Update,
                (
                    follow_sun.run_if(resource_changed::<SunSettings>),
                    show_sky.run_if(resource_changed::<super::debug::DebugToggles>),
                )
                    .in_set(super::IslaSet::Apply),
            )
            .add_systems(PostUpdate, follow_camera.before(TransformSystems::Propagate));
    }
}

fn spawn_sky(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<SkyMaterial>>,
    sun: Res<SunSettings>,
    toggles: Res<super::debug::DebugToggles>,
) {
    let to_sun = sun_direction(sun.elevation_deg, sun.azimuth_deg);
    let handle = materials.add(SkyMaterial { params: SkyParams::new(to_sun) });
    commands.insert_resource(SkyHandle(handle.clone()));
    commands.spawn((
        SkyDome,
        Mesh3d(meshes.add(Sphere::new(DOME_RADIUS_M).mesh().uv(48, 24))),
        MeshMaterial3d(handle),
        Transform::default(),
        if toggles.sky { Visibility::Visible } else { Visibility::Hidden },
        NotShadowCaster,
        NotShadowReceiver,
        NoFrustumCulling,
        bevy::pbr::wireframe::NoWireframe,
    ));
}

/// The sky follows the sun: its disc and glow move when the sun does.
fn follow_sun(sun: Res<SunSettings>, sky: Option<Res<SkyHandle>>, mut materials: ResMut<Assets<SkyMaterial>>) {
    let Some(sky) = sky else { return };
    if let Some(mut m) = materials.get_mut(&sky.0) {
        m.params.sun = sun_direction(sun.elevation_deg, sun.azimuth_deg).extend(SUN_DISC_MAX_DEG.to_radians());
    }
}

/// The sky toggle: off shows the clear colour.
fn show_sky(toggles: Res<super::debug::DebugToggles>, mut dome: Query<&mut Visibility, With<SkyDome>>) {
    for mut v in &mut dome {
        *v = if toggles.sky { Visibility::Visible } else { Visibility::Hidden };
    }
}

fn follow_camera(
    cams: Query<&Transform, (With<Camera3d>, Without<SkyDome>)>,
    mut dome: Query<&mut Transform, (With<SkyDome>, Without<Camera3d>, Without<Sun>)>,
) {
    let Some(cam) = cams.iter().next() else { return };
    for mut t in &mut dome {
        t.translation = cam.translation;
    }
}
