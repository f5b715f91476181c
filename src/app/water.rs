//! The water's material (SPEC §5): the sheet's depth ramp (SPEC §4, in the vertex colours) is the
//! body of the water; over it the surface mirrors the procedural sky with a Schlick Fresnel term
//! and shows the sun's glint, from a weakly perturbed normal — the sheet itself stays flat and at
//! rest. Premultiplied alpha: the body is thinned by its alpha, the reflection is not.
//!
//! With the camera's depth prepass the body is shaded per pixel: the ramp reads the true depth
//! under each pixel (the water's surface minus the opaque point behind it), the first metre or
//! two of water lets the floor through (so the shoreline has no hard edge), the view ray's extra
//! path through the water absorbs more (Beer–Lambert), and a band of foam marks the shallowest
//! water.
//! The debug views (seam highlight, normals, materials) keep the per-cell vertex colours.

use super::settings::{SunSettings, sun_direction};
use super::sky::SkyParams;
use bevy::pbr::{ExtendedMaterial, MaterialExtension};
use bevy::prelude::*;
use bevy::render::render_resource::AsBindGroup;
use bevy::shader::ShaderRef;

/// The extension: the sky's parameters, so the reflection is the same sky the dome draws, and the
/// per-pixel body's constants.
#[derive(Asset, AsBindGroup, TypePath, Debug, Clone)]
pub struct WaterExt {
    #[uniform(100)]
    pub sky: SkyParams,
    #[uniform(101)]
    pub shading: WaterShading,
    /// x: 1 for a flat sheet whose surface each pixel finds by casting its own view ray onto the
    /// plane `y = plane.y` (the open sea, [`open_sea_plane`]), 0 for a sheet shaded where the
    /// rasteriser interpolates it (the chunks' sheets).
    #[uniform(102)]
    pub plane: Vec4,
}

/// The `plane` of the open sea's material at `level_m`: every pixel of it finds its point on the
/// sea from its own view ray, so the ripples, the depth and the foam do not depend on how large a
/// triangle the rasteriser interpolated.
pub fn open_sea_plane(level_m: f32) -> Vec4 {
    Vec4::new(1.0, level_m, 0.0, 0.0)
}

/// The per-pixel body (SPEC §5 "Water per pixel"): the SPEC §4 ramp's ends and the lengths of
/// the shading, as one uniform (every constant of the formula lives here, none in the shader).
#[derive(Debug, Clone, Copy, PartialEq, bevy::render::render_resource::ShaderType)]
pub struct WaterShading {
    /// sRGB colour and alpha of the shallow end of the ramp.
    pub shallow: Vec4,
    /// sRGB colour and alpha of the deep end.
    pub deep: Vec4,
    /// x: 1 = per pixel (needs the depth prepass), 0 = the vertex colours; y: the ramp's depth (m);
    /// z: the absorption length of the view ray's extra path (m); w: the foam band's depth (m).
    pub params: Vec4,
    /// x: the depth through which the floor shows ([`THIN_M`]); y, z: where the foam band starts
    /// and where it begins to fade ([`FOAM_START_M`], [`FOAM_FULL_M`]); w: the distance beyond
    /// which foam fades out ([`FOAM_FADE_M`]).
    pub lengths: Vec4,
}

/// Metres of extra path through the water that absorb all but 1/e of what the ramp lets through.
pub const ABSORPTION_M: f32 = 25.0;
/// Depth of the shoreline's foam band (m).
pub const FOAM_DEPTH_M: f32 = 1.0;
/// Metres of water through which the floor still shows: the floor's share falls to 1/e there.
pub const THIN_M: f32 = 1.5;
/// The foam band fades in from the waterline to `FOAM_START_M` (m) and out from `FOAM_FULL_M` to
/// [`FOAM_DEPTH_M`].
pub const FOAM_START_M: f32 = 0.06;
pub const FOAM_FULL_M: f32 = 0.1;
/// Foam fades out between half this distance and this distance from the eye (m): its lines are
/// finer than a pixel farther out.
pub const FOAM_FADE_M: f32 = 900.0;

impl WaterShading {
    pub fn new(per_pixel: bool) -> Self {
        use crate::mesh::water::{DEEP_ALPHA, DEEP_RGB, RAMP_DEPTH_M, SHALLOW_ALPHA, SHALLOW_RGB};
        let (mut shallow, mut deep) = (SHALLOW_RGB, DEEP_RGB);
        // The test-only planted defect (see `crate::planted`): the ramp's hue turned (10° unless
        // the plant gives its degrees, `water-hue=5`).
        if let Some(deg) = crate::planted_value("water-hue") {
            let deg = deg.parse().unwrap_or(10.0);
            (shallow, deep) = (hue_rotated(shallow, deg), hue_rotated(deep, deg));
        }
        let [r, g, b] = shallow;
        let [dr, dg, db] = deep;
        Self {
            shallow: Vec4::new(r, g, b, SHALLOW_ALPHA),
            deep: Vec4::new(dr, dg, db, DEEP_ALPHA),
            params: Vec4::new(if per_pixel { 1.0 } else { 0.0 }, RAMP_DEPTH_M, ABSORPTION_M, FOAM_DEPTH_M),
            lengths: Vec4::new(THIN_M, FOAM_START_M, FOAM_FULL_M, FOAM_FADE_M),
        }
    }
}

/// `rgb` with its hue turned by `deg` about the grey axis (Rodrigues' rotation).
fn hue_rotated(rgb: [f32; 3], deg: f32) -> [f32; 3] {
    let (c, s) = (deg.to_radians().cos(), deg.to_radians().sin());
    let k = (1.0 - c) / 3.0;
    let r3 = (1.0f32 / 3.0).sqrt() * s;
    let m = [[c + k, k - r3, k + r3], [k + r3, c + k, k - r3], [k - r3, k + r3, c + k]];
    [0, 1, 2].map(|i| (m[i][0] * rgb[0] + m[i][1] * rgb[1] + m[i][2] * rgb[2]).clamp(0.0, 1.0))
}

impl MaterialExtension for WaterExt {
    fn fragment_shader() -> ShaderRef {
        "embedded://isla/app/water.wgsl".into()
    }
    fn alpha_mode() -> Option<AlphaMode> {
        Some(AlphaMode::Premultiplied)
    }
}

pub type WaterMaterial = ExtendedMaterial<StandardMaterial, WaterExt>;

/// The water material for a sun towards `to_sun`: white base (the vertex colours carry the ramp),
/// no specular of its own (the reflected sky carries the sun's glint), both sides.
pub fn water_material(to_sun: Vec3) -> WaterMaterial {
    ExtendedMaterial {
        base: StandardMaterial {
            base_color: Color::WHITE,
            alpha_mode: AlphaMode::Premultiplied,
            perceptual_roughness: 1.0,
            metallic: 0.0,
            reflectance: 0.0,
            cull_mode: None,
            double_sided: true,
            ..default()
        },
        extension: WaterExt { sky: SkyParams::new(to_sun), shading: WaterShading::new(true), plane: Vec4::ZERO },
    }
}

pub struct WaterMaterialPlugin;

impl Plugin for WaterMaterialPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        bevy::asset::embedded_asset!(app, "water.wgsl");
        app.add_plugins(MaterialPlugin::<WaterMaterial>::default())
            .add_systems(Update, follow_sun.run_if(resource_changed::<SunSettings>).in_set(super::IslaSet::Apply))
            .add_systems(
                Update,
                follow_debug_views
                    .run_if(resource_exists_and_changed::<super::settings::DebugToggles>)
                    .in_set(super::IslaSet::Apply),
            );
    }
}

/// The reflection follows the sun, as the sky does.
fn follow_sun(sun: Res<SunSettings>, mut materials: ResMut<Assets<WaterMaterial>>) {
    let to_sun = sun_direction(sun.elevation_deg, sun.azimuth_deg);
    for (_, m) in materials.iter_mut() {
        m.extension.sky = SkyParams::new(to_sun);
    }
}

/// The debug views colour the sheets per cell (the seam highlight, normals, materials): the
/// per-pixel body would paint over them, so it is off while one is shown.
fn follow_debug_views(toggles: Res<super::settings::DebugToggles>, mut materials: ResMut<Assets<WaterMaterial>>) {
    let shading = WaterShading::new(!super::settings::MeshStyle::of(&toggles).colours_water_per_cell());
    let stale: Vec<_> = materials.iter().filter(|(_, m)| m.extension.shading != shading).map(|(id, _)| id).collect();
    for id in stale {
        if let Some(mut m) = materials.get_mut(id) {
            m.extension.shading = shading;
        }
    }
}
