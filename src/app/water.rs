//! The water's material (SPEC §5): the sheet's depth ramp (SPEC §4, in the vertex colours) is the
//! body of the water; over it the surface mirrors the procedural sky with a Schlick Fresnel term
//! and shows the sun's glint, from a weakly perturbed normal — the sheet itself stays flat and at
//! rest. Premultiplied alpha: the body is thinned by its alpha, the reflection is not.
//!
//! With the camera's depth prepass the body is shaded per pixel: the ramp reads the true depth
//! under each pixel (the water's surface minus the opaque point behind it), the view ray's extra
//! path through the water absorbs more (Beer–Lambert), the sheet fades in over its first few
//! centimetres so the shoreline has no hard edge, and a band of foam marks the shallowest water.
//! The debug views (seam highlight, normals, materials) keep the per-cell vertex colours.

use super::scene::{SunSettings, sun_direction};
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
    pub body: WaterBody,
}

/// The per-pixel body (SPEC §5 "Water shading"): the SPEC §4 ramp's ends and the absorption and
/// foam lengths, as one uniform.
#[derive(Debug, Clone, Copy, PartialEq, bevy::render::render_resource::ShaderType)]
pub struct WaterBody {
    /// sRGB colour and alpha of the shallow end of the ramp.
    pub shallow: Vec4,
    /// sRGB colour and alpha of the deep end.
    pub deep: Vec4,
    /// x: 1 = per pixel (needs the depth prepass), 0 = the vertex colours; y: the ramp's depth (m);
    /// z: the absorption length of the view ray's extra path (m); w: the foam band's depth (m).
    pub params: Vec4,
}

/// Metres of extra path through the water that absorb all but 1/e of what the ramp lets through.
pub const ABSORPTION_M: f32 = 25.0;
/// Depth of the shoreline's foam band (m).
pub const FOAM_DEPTH_M: f32 = 1.0;

impl WaterBody {
    pub fn new(per_pixel: bool) -> Self {
        use crate::mesh::water::{DEEP_ALPHA, DEEP_RGB, RAMP_DEPTH_M, SHALLOW_ALPHA, SHALLOW_RGB};
        let [r, g, b] = SHALLOW_RGB;
        let [dr, dg, db] = DEEP_RGB;
        Self {
            shallow: Vec4::new(r, g, b, SHALLOW_ALPHA),
            deep: Vec4::new(dr, dg, db, DEEP_ALPHA),
            params: Vec4::new(if per_pixel { 1.0 } else { 0.0 }, RAMP_DEPTH_M, ABSORPTION_M, FOAM_DEPTH_M),
        }
    }
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
        extension: WaterExt { sky: SkyParams::new(to_sun), body: WaterBody::new(true) },
    }
}

pub struct WaterMaterialPlugin;

impl Plugin for WaterMaterialPlugin {
    fn build(&self, app: &mut App) {
        bevy::asset::embedded_asset!(app, "water.wgsl");
        app.add_plugins(MaterialPlugin::<WaterMaterial>::default())
            .init_resource::<SunSettings>()
            .add_systems(Update, follow_sun.run_if(resource_changed::<SunSettings>).in_set(super::IslaSet::Apply))
            .add_systems(Update, follow_debug_views.in_set(super::IslaSet::Apply));
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
fn follow_debug_views(toggles: Option<Res<super::debug::DebugToggles>>, mut materials: ResMut<Assets<WaterMaterial>>) {
    let Some(t) = toggles else { return };
    if !t.is_changed() {
        return;
    }
    let body = WaterBody::new(!t.seam_highlight && t.shading == crate::mesh::Shading::Palette);
    let stale: Vec<_> = materials.iter().filter(|(_, m)| m.extension.body != body).map(|(id, _)| id).collect();
    for id in stale {
        if let Some(mut m) = materials.get_mut(id) {
            m.extension.body = body;
        }
    }
}
