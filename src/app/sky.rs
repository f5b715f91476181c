//! The procedural sky (SPEC §5): Godot's `ProceduralSkyMaterial` for the reference scene's values —
//! a gradient from zenith to horizon to ground with the sun's glow, following the sun's direction,
//! blended in linear space and tone-mapped like the lit scene. Drawn by the app's own WGSL
//! material (`sky.wgsl`) on a dome that follows the camera; [`sky_colour`] is the same function on
//! the CPU, for tests, the fog and the water's reflection.
//!
//! Godot's shader (scene/resources/sky_material.cpp, procedural sky), with `e` the elevation of the
//! view direction as a fraction of 90° and `ease(t, c) = clamp(1 − (1 − t)^(1/c), 0, 1)`:
//! - sky: `mix(horizon, top, ease(e, sky_curve))`;
//! - sun, at angle θ from the view direction with the light's angular size `s` (0 here):
//!   the light's colour × energy inside `s`, and up to `sun_angle_max`
//!   `mix(light, sky, ease((θ − s) / (sun_angle_max − s), sun_curve))`;
//! - ground, for `e < 0`: `mix(ground_horizon, ground_bottom, ease(−e, ground_curve))`, switched
//!   in at the horizon.
//!
//! Isla adds one thing: just below the horizon (about 3°) the ground fades in from the horizon
//! colour, so no ground band shows between the far edge of the open sea and the sky.

use super::settings::{Sun, SunSettings, sun_direction};
use bevy::camera::visibility::NoFrustumCulling;
use bevy::light::{NotShadowCaster, NotShadowReceiver};
use bevy::mesh::MeshVertexBufferLayoutRef;
use bevy::pbr::{MaterialPipeline, MaterialPipelineKey};
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, RenderPipelineDescriptor, ShaderType, SpecializedMeshPipelineError};
use bevy::shader::ShaderRef;

/// The reference's colours, as sRGB (Godot's `source_color` uniforms: linear in the shader).
pub const ZENITH: [f32; 3] = [0.28, 0.47, 0.79];
pub const HORIZON: [f32; 3] = [0.72, 0.80, 0.86];
pub const GROUND_HORIZON: [f32; 3] = [0.58, 0.56, 0.50];
pub const GROUND_BOTTOM: [f32; 3] = [0.16, 0.15, 0.14];
pub const SKY_CURVE: f32 = 0.12;
pub const GROUND_CURVE: f32 = 0.05;
/// `sun_angle_max`: where the sun's glow ends.
pub const SUN_ANGLE_MAX_DEG: f32 = 12.0;
pub const SUN_CURVE: f32 = 0.15;
/// The sun's angular size in the sky (Godot's `LIGHT0_SIZE`: the light's angular distance, 0 in
/// the reference scene, so only the glow shows).
pub const SUN_SIZE_DEG: f32 = 0.0;
/// The sun light's energy as the sky sees it (Godot's `LIGHT0_ENERGY`).
pub const SUN_ENERGY: f32 = 1.0;
/// Below-horizon haze band, as a fraction of 90° (about 3°).
pub const HORIZON_HAZE: f32 = 3.0 / 90.0;
/// Dome radius: beyond the terrain and inside the camera's culling range; the open sea reaches
/// 0.9 of it, and the haze below the horizon starts at the sea's far edge as the camera sees it
/// ([`sea_edge_depression`]), so the two meet without a line from any altitude. Bevy's
/// perspective depth is reverse-Z with an infinite far plane, so the distance costs no depth
/// precision.
pub const DOME_RADIUS_M: f32 = 1_000_000.0;
/// How far the open sea reaches beyond the map, in metres (inside the dome).
pub const OPEN_SEA_REACH_M: f32 = crate::mesh::open_sea::REACH_M;
const _: () = assert!(OPEN_SEA_REACH_M < DOME_RADIUS_M);

/// Godot's ease for 0 < c < 1: fast rise, long tail — `clamp(1 − (1 − t)^(1/c), 0, 1)`.
pub fn ease(t: f32, c: f32) -> f32 {
    (1.0 - (1.0 - t.clamp(0.0, 1.0)).powf(1.0 / c)).clamp(0.0, 1.0)
}

fn mix3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// sRGB → linear, per channel.
pub fn linear(c: [f32; 3]) -> [f32; 3] {
    c.map(|v| if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) })
}

/// The sun light's colour (sRGB), shared by the light and the sky's glow.
pub const SUN_RGB: [f32; 3] = [1.0, 0.96, 0.88];

/// How far below the horizon, as a fraction of 90°, the open sea's far edge lies from a camera
/// `height_m` over the sea: at least the sea's reach away, so at most `atan(height / reach)`.
/// From the default island's presets it is a few hundredths of a degree; from 17.7 km up, 1.1°.
pub fn sea_edge_depression(height_m: f32) -> f32 {
    (height_m.max(0.0) / OPEN_SEA_REACH_M).atan() / std::f32::consts::FRAC_PI_2
}

/// Linear sky radiance (before tone mapping) seen along unit direction `dir` with the sun towards
/// `to_sun`, from a camera at the sea's level, exactly as `sky.wgsl` computes it.
pub fn sky_colour(dir: Vec3, to_sun: Vec3) -> [f32; 3] {
    sky_colour_from(dir, to_sun, 0.0)
}

/// [`sky_colour`] from a camera `height_m` over the sea: below the horizon the dome keeps the
/// horizon colour down to the open sea's far edge ([`sea_edge_depression`]) and only then fades
/// into the ground, so from high up the far sea (fogged to the horizon colour) meets the dome
/// without a band or a line.
pub fn sky_colour_from(dir: Vec3, to_sun: Vec3, height_m: f32) -> [f32; 3] {
    let d = dir.normalize_or_zero();
    let e = d.y.clamp(-1.0, 1.0).asin() / std::f32::consts::FRAC_PI_2; // −1..1
    let mut sky = mix3(linear(HORIZON), linear(ZENITH), ease(e, SKY_CURVE));
    let theta = d.angle_between(to_sun.normalize_or_zero());
    let (size, max) = (SUN_SIZE_DEG.to_radians(), SUN_ANGLE_MAX_DEG.to_radians());
    let sun = linear(SUN_RGB).map(|v| v * SUN_ENERGY);
    if theta < size {
        sky = sun;
    } else if theta < max {
        sky = mix3(sun, sky, ease((theta - size) / (max - size), SUN_CURVE));
    }
    if e >= 0.0 {
        return sky;
    }
    let ground = mix3(linear(GROUND_HORIZON), linear(GROUND_BOTTOM), ease(-e, GROUND_CURVE));
    // Isla's haze: the horizon colour (the fog's) fades into the ground over 3°, from the open
    // sea's far edge down.
    mix3(linear(HORIZON), ground, ((-e - sea_edge_depression(height_m)) / HORIZON_HAZE).clamp(0.0, 1.0))
}

/// The fog's colour: the sky at the horizon away from the sun, so fogged geometry meets the sky.
pub fn horizon_colour() -> [f32; 3] {
    linear(HORIZON)
}

#[derive(Component)]
pub struct SkyDome;

/// Uniforms of the sky shader: colours linear (as Godot's `source_color` uniforms arrive), blended
/// exactly like [`sky_colour`].
#[derive(ShaderType, Debug, Clone, Copy)]
pub struct SkyParams {
    pub zenith: Vec4,
    pub horizon: Vec4,
    pub ground_horizon: Vec4,
    pub ground_bottom: Vec4,
    pub sun_colour: Vec4,
    /// xyz towards the sun, w the end of its glow (`sun_angle_max`) in radians.
    pub sun: Vec4,
    /// sky curve, ground curve, sun curve, horizon haze.
    pub curves: Vec4,
    /// x: the sun's angular size in radians; y: [`sea_edge_depression`] of the camera.
    pub sun_size: Vec4,
}

impl SkyParams {
    pub fn new(to_sun: Vec3) -> Self {
        let lin = |c: [f32; 3]| {
            let l = linear(c);
            Vec4::new(l[0], l[1], l[2], 1.0)
        };
        let sun = linear(SUN_RGB).map(|v| v * SUN_ENERGY);
        Self {
            zenith: lin(ZENITH),
            horizon: lin(HORIZON),
            ground_horizon: lin(GROUND_HORIZON),
            ground_bottom: lin(GROUND_BOTTOM),
            sun_colour: Vec4::new(sun[0], sun[1], sun[2], 1.0),
            sun: to_sun.normalize().extend(SUN_ANGLE_MAX_DEG.to_radians()),
            curves: Vec4::new(SKY_CURVE, GROUND_CURVE, SUN_CURVE, HORIZON_HAZE),
            sun_size: Vec4::new(SUN_SIZE_DEG.to_radians(), 0.0, 0.0, 0.0),
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
        super::settings::ensure(app);
        // Embedded so the binary finds its shader from any working directory.
        bevy::shader::load_shader_library!(app, "sky_common.wgsl");
        bevy::asset::embedded_asset!(app, "sky.wgsl");
        app.add_plugins(MaterialPlugin::<SkyMaterial>::default())
            .insert_resource(ClearColor(Color::srgb(HORIZON[0], HORIZON[1], HORIZON[2])))
            .add_systems(Startup, spawn_sky)
            .add_systems(
                Update,
                (
                    follow_sun.run_if(resource_changed::<SunSettings>),
                    show_sky.run_if(resource_changed::<super::settings::DebugToggles>),
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
    toggles: Res<super::settings::DebugToggles>,
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
        m.params.sun = sun_direction(sun.elevation_deg, sun.azimuth_deg).extend(SUN_ANGLE_MAX_DEG.to_radians());
    }
}

/// The sky toggle: off shows the clear colour.
fn show_sky(toggles: Res<super::settings::DebugToggles>, mut dome: Query<&mut Visibility, With<SkyDome>>) {
    for mut v in &mut dome {
        *v = if toggles.sky { Visibility::Visible } else { Visibility::Hidden };
    }
}

fn follow_camera(
    cams: Query<&Transform, (With<Camera3d>, Without<SkyDome>)>,
    mut dome: Query<&mut Transform, (With<SkyDome>, Without<Camera3d>, Without<Sun>)>,
    sky: Option<Res<SkyHandle>>,
    mut materials: ResMut<Assets<SkyMaterial>>,
) {
    let Some(cam) = cams.iter().next() else { return };
    for mut t in &mut dome {
        t.translation = cam.translation;
    }
    // Where the haze begins follows the camera's height (the sea lies within a few metres of 0).
    let edge = sea_edge_depression(cam.translation.y);
    if let Some(sky) = sky
        && materials.get(&sky.0).is_some_and(|m| (m.params.sun_size.y - edge).abs() > 1e-6)
        && let Some(mut m) = materials.get_mut(&sky.0)
    {
        m.params.sun_size.y = edge;
    }
}
