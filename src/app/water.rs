//! The water's material (SPEC §5): the sheet's depth ramp (SPEC §4, in the vertex colours) is the
//! body of the water; over it the surface mirrors the procedural sky with a Schlick Fresnel term
//! and shows the sun's glint, from a weakly perturbed normal — the sheet itself stays flat and at
//! rest. Premultiplied alpha: the body is thinned by its alpha, the reflection is not.

use super::scene::{SunSettings, sun_direction};
use super::sky::SkyParams;
use bevy::pbr::{ExtendedMaterial, MaterialExtension};
use bevy::prelude::*;
use bevy::render::render_resource::AsBindGroup;
use bevy::shader::ShaderRef;

/// The extension: the sky's parameters, so the reflection is the same sky the dome draws.
#[derive(Asset, AsBindGroup, TypePath, Debug, Clone)]
pub struct WaterExt {
    #[uniform(100)]
    pub sky: SkyParams,
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
        extension: WaterExt { sky: SkyParams::new(to_sun) },
    }
}

pub struct WaterMaterialPlugin;

impl Plugin for WaterMaterialPlugin {
    fn build(&self, app: &mut App) {
        bevy::asset::embedded_asset!(app, "water.wgsl");
        app.add_plugins(MaterialPlugin::<WaterMaterial>::default())
            .init_resource::<SunSettings>()
            .add_systems(Update, follow_sun.run_if(resource_changed::<SunSettings>).in_set(super::IslaSet::Apply));
    }
}

/// The reflection follows the sun, as the sky does.
fn follow_sun(sun: Res<SunSettings>, mut materials: ResMut<Assets<WaterMaterial>>) {
    let to_sun = sun_direction(sun.elevation_deg, sun.azimuth_deg);
    for (_, m) in materials.iter_mut() {
        m.extension.sky = SkyParams::new(to_sun);
    }
}
