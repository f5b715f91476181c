//! Debug overlays (SPEC §7): one [`DebugToggles`] resource is the source of truth; small systems
//! apply each toggle to the scene. The flight shows them in an egui panel with keys and live
//! stats ([`DebugPanelPlugin`]); `isla shot` sets them from flags ([`DebugTogglesPlugin`] alone).

use super::IslandWorld;
use super::chunks::{ChunkWaterSheet, OpenSeaWater};
use super::server::LodNode;
pub use super::settings::DebugToggles;
use super::terrain::{LodMaterial, level_tint};
use crate::mesh::Shading;
use bevy::pbr::wireframe::{WireframeConfig, WireframePlugin};
use bevy::prelude::*;

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
        super::settings::ensure(app);
        app.add_plugins(WireframePlugin::default())
            .init_resource::<WireframeSupport>()
            .add_systems(Startup, detect_wireframe_support)
            .add_systems(
                Update,
                (
                    apply_toggles.run_if(resource_changed::<DebugToggles>),
                    show_water
                        .run_if(resource_changed::<DebugToggles>.or_else(any_match_filter::<Added<ChunkWaterSheet>>)),
                )
                    .in_set(super::IslaSet::Apply),
            )
            .add_systems(
                Update,
                draw_chunk_borders.run_if(|t: Res<DebugToggles>| t.chunk_borders).in_set(super::IslaSet::Render),
            );
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

/// The toggles no other plugin owns: the wireframe and the terrain materials' debug looks. (The
/// sun, sky, fog, water and mesh style read [`DebugToggles`] themselves: one source of truth.)
fn apply_toggles(
    toggles: Res<DebugToggles>,
    mut wireframe: Option<ResMut<WireframeConfig>>,
    chunk_materials: Option<Res<super::chunks::ChunkMaterials>>,
    mut materials: ResMut<Assets<LodMaterial>>,
) {
    if let Some(w) = wireframe.as_mut() {
        w.global = toggles.wireframe;
        w.default_color = Color::BLACK;
    }
    // Debug shading shows the colours as they are: unlit. The LOD view tints each level.
    // Every terrain material: the levels' shared ones and each coarse tile's own (its level is
    // `morph.z`).
    if chunk_materials.is_none() {
        return;
    }
    let unlit = toggles.shading != Shading::Palette;
    let tint_of = |m: &LodMaterial| level_tint(m.extension.morph.z as u8, toggles.lod_colours);
    let stale: Vec<_> = materials
        .iter()
        .filter(|(_, m)| m.base.unlit != unlit || m.extension.tint != tint_of(m))
        .map(|(id, _)| id)
        .collect();
    for id in stale {
        if let Some(mut m) = materials.get_mut(id) {
            m.base.unlit = unlit;
            m.extension.tint = tint_of(&m);
        }
    }
}

/// Water visibility, also for sheets that stream in later.
fn show_water(
    toggles: Res<DebugToggles>,
    mut water: Query<&mut Visibility, Or<(With<ChunkWaterSheet>, With<OpenSeaWater>)>>,
) {
    let v = if toggles.water { Visibility::Inherited } else { Visibility::Hidden };
    for mut vis in &mut water {
        if *vis != v {
            *vis = v;
        }
    }
}

/// A box around every displayed node. (Displayed, not "visible last frame": a headless render
/// draws one frame after frames with the camera off, and lines off screen are clipped anyway.)
fn draw_chunk_borders(mut gizmos: Gizmos, nodes: Query<(&LodNode, &Visibility)>, world: Res<IslandWorld>) {
    let chunk = world.source.layout.chunk_size_m();
    for (c, v) in &nodes {
        if *v == Visibility::Hidden {
            continue;
        }
        let size = chunk * c.id.span_chunks() as f32;
        let [lo, hi] = c.height_range_m;
        let (x0, z0) = (c.id.x as f32 * size, c.id.z as f32 * size);
        let centre = Vec3::new(x0 + size * 0.5, (lo + hi) * 0.5, z0 + size * 0.5);
        let half = Vec3::new(size * 0.5, ((hi - lo) * 0.5).max(1.0), size * 0.5);
        gizmos.aabb_3d(bevy::math::bounding::Aabb3d::new(centre, half), Transform::IDENTITY, CHUNK_BORDER_COLOUR);
    }
}
