//! Debug overlays (SPEC §7): one [`DebugToggles`] resource is the source of truth; small systems
//! apply each toggle to the scene. The flight shows them in an egui panel with keys and live
//! stats ([`DebugPanelPlugin`]); `isla shot` sets them from flags ([`DebugTogglesPlugin`] alone).

use super::IslandWorld;
use super::chunks::{ChunkWaterSheet, OpenSeaWater};
use super::scene::SunSettings;
use super::server::{Chunk, MeshStyle};
use super::sky::SkySettings;
use crate::mesh::Shading;
use bevy::pbr::wireframe::{WireframeConfig, WireframePlugin};
use bevy::prelude::*;

/// Every overlay and view toggle.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct DebugToggles {
    pub panel: bool,
    pub wireframe: bool,
    pub chunk_borders: bool,
    pub water: bool,
    pub shadows: bool,
    pub sky: bool,
    pub fog: bool,
    pub shading: Shading,
    pub seam_highlight: bool,
    pub map: bool,
}

impl Default for DebugToggles {
    fn default() -> Self {
        Self {
            panel: false,
            wireframe: false,
            chunk_borders: false,
            water: true,
            shadows: true,
            sky: true,
            fog: true,
            shading: Shading::Palette,
            seam_highlight: false,
            map: false,
        }
    }
}

/// Whether the device could run the engine's wireframe (it needs line polygon mode and push
/// constants); the panel says so instead of offering a toggle that does nothing.
#[derive(Resource, Debug, Clone, Copy, Default)]
pub struct WireframeSupport(pub bool);

/// Colour of chunk-border gizmos.
pub const CHUNK_BORDER_COLOUR: Color = Color::srgb(1.0, 0.9, 0.1);

/// Applies [`DebugToggles`] to the scene; used by the flight and by headless shots.
pub struct DebugTogglesPlugin;

impl Plugin for DebugTogglesPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(WireframePlugin::default())
            .init_resource::<DebugToggles>()
            .init_resource::<WireframeSupport>()
            .add_systems(Startup, detect_wireframe_support)
            .add_systems(Update, (apply_toggles, draw_chunk_borders.run_if(|t: Res<DebugToggles>| t.chunk_borders)));
    }
}

fn detect_wireframe_support(
    mut support: ResMut<WireframeSupport>,
    device: Option<Res<bevy::render::renderer::RenderDevice>>,
) {
    // WireframePlugin skips its render setup (with a warning) when these are missing.
    use bevy::render::settings::WgpuFeatures;
    let needed = WgpuFeatures::POLYGON_MODE_LINE | WgpuFeatures::IMMEDIATES;
    support.0 = device.is_some_and(|d| d.features().contains(needed));
    if !support.0 {
        warn!("debug: this device cannot draw wireframes (needs line polygon mode and push constants)");
    }
}

#[allow(clippy::too_many_arguments)]
fn apply_toggles(
    toggles: Res<DebugToggles>,
    mut wireframe: Option<ResMut<WireframeConfig>>,
    mut sun: ResMut<SunSettings>,
    mut sky: ResMut<SkySettings>,
    mut style: ResMut<MeshStyle>,
    mut lights: Query<&mut DirectionalLight>,
    chunk_materials: Option<Res<super::chunks::ChunkMaterials>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut water: Query<&mut Visibility, Or<(With<ChunkWaterSheet>, With<OpenSeaWater>)>>,
    fresh_water: Query<(), Added<ChunkWaterSheet>>,
) {
    let changed = toggles.is_changed();
    if changed {
        if let Some(w) = wireframe.as_mut() {
            w.global = toggles.wireframe;
            w.default_color = Color::BLACK;
        }
        if sun.shadows != toggles.shadows {
            sun.shadows = toggles.shadows;
        }
        for mut l in &mut lights {
            l.shadow_maps_enabled = toggles.shadows;
        }
        if sky.enabled != toggles.sky {
            sky.enabled = toggles.sky;
        }
        let want = MeshStyle { shading: toggles.shading, highlight_seam: toggles.seam_highlight };
        if *style != want {
            *style = want;
        }
        // Debug shading shows the colours as they are: unlit.
        if let Some(cm) = chunk_materials.as_ref()
            && let Some(mut m) = materials.get_mut(&cm.terrain)
        {
            let unlit = toggles.shading != Shading::Palette;
            if m.unlit != unlit {
                m.unlit = unlit;
            }
        }
    }
    // Water visibility also applies to sheets that stream in later.
    if changed || !fresh_water.is_empty() {
        let v = if toggles.water { Visibility::Inherited } else { Visibility::Hidden };
        for mut vis in &mut water {
            *vis = v;
        }
    }
}

fn draw_chunk_borders(mut gizmos: Gizmos, chunks: Query<&Chunk>, world: Res<IslandWorld>) {
    let size = world.source.layout.chunk_size_m();
    for c in &chunks {
        let [lo, hi] = c.height_range_m;
        let (x0, z0) = (c.coord.x as f32 * size, c.coord.z as f32 * size);
        let centre = Vec3::new(x0 + size * 0.5, (lo + hi) * 0.5, z0 + size * 0.5);
        let half = Vec3::new(size * 0.5, ((hi - lo) * 0.5).max(1.0), size * 0.5);
        gizmos.aabb_3d(bevy::math::bounding::Aabb3d::new(centre, half), Transform::IDENTITY, CHUNK_BORDER_COLOUR);
    }
}
