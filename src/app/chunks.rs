//! Node rendering, the client half: turns the mesh buffers the world server hands over into
//! Bevy meshes — terrain with its morph targets on the node entity, drawn by the level-of-detail
//! material (`super::terrain`, its coarse tiles' textures in `super::far_field`'s pages), and the water sheet as its own child entity with a
//! translucent material that casts no shadow — and draws the open sea beyond the map.

use super::IslandWorld;
use super::far_field::{self, FarFieldPages, LayerWrites};
use super::server::{Lod, LodNode, NodeBuffers, NodeIndex, ServerSet, StaleNodes, WorldStats};
use super::terrain::{
    ATTRIBUTE_LOD_MORPH, ATTRIBUTE_LOD_MORPH_COLOR, LodExt, LodMaterial, level_tint, morph_uniform, terrain_base,
};
use crate::mesh::far_field::TileTexture;
use crate::mesh::lod::LodMesh;
use crate::mesh::{TerrainMesh, WaterMesh};
use crate::world::lod::LodRanges;
use bevy::asset::RenderAssetUsages;
use bevy::ecs::system::SystemParam;
use bevy::light::NotShadowCaster;
use bevy::mesh::{Indices, MeshTag, PrimitiveTopology};
use bevy::prelude::*;

/// A chunk's water-sheet entity.
#[derive(Component, Debug, Clone, Copy)]
pub struct ChunkWaterSheet;

/// Bytes of a node's GPU buffers (vertex and index data): terrain, and water. (Its far-field
/// textures live in shared pages, counted apart: `super::far_field::FarFieldPages`.)
#[derive(Component, Debug, Clone, Copy)]
pub struct NodeGpuBytes {
    pub terrain: u64,
    pub water: u64,
}

/// Materials shared by every node.
#[derive(Resource)]
pub struct ChunkMaterials {
    /// One terrain material per level.
    pub levels: Vec<Handle<LodMaterial>>,
    /// The open sea's seabed (no morph).
    pub seabed: Handle<StandardMaterial>,
    pub water: Handle<super::water::WaterMaterial>,
}

pub struct ChunkRenderPlugin;

impl Plugin for ChunkRenderPlugin {
    fn build(&self, app: &mut App) {
        bevy::asset::embedded_asset!(app, "terrain_lod.wgsl");
        app.add_plugins((
            MaterialPlugin::<LodMaterial>::default(),
            super::water::WaterMaterialPlugin,
            far_field::FarFieldTexturesPlugin,
        ))
        .add_systems(Startup, (create_materials, spawn_open_sea, spawn_bridges).chain())
        // A reload: the new island's materials before its first node is uploaded, and its
        // sea and bridges when it replaces the old island on screen.
        .add_systems(
            Update,
            create_materials.run_if(on_message::<super::server::WorldReplaced>).in_set(super::IslaSet::Apply),
        )
        .add_systems(
            Update,
            (despawn_island_props, spawn_open_sea, spawn_bridges)
                .chain()
                .run_if(on_message::<super::server::WorldShown>)
                .in_set(super::IslaSet::Render),
        )
        .add_systems(
            Update,
            upload_node_meshes.in_set(super::IslaSet::Server).after(ServerSet::Collect).before(ServerSet::Select),
        )
        .add_systems(Update, count_gpu_bytes.in_set(super::IslaSet::Server).after(ServerSet::Swap))
        .add_systems(
            Update,
            apply_pending_textures.in_set(super::IslaSet::Server).after(upload_node_meshes).before(ServerSet::Select),
        )
        .add_systems(
            Update,
            follow_lod_switch
                .run_if(resource_exists_and_changed::<super::settings::StreamSettings>)
                .run_if(resource_exists::<ChunkMaterials>)
                .in_set(super::IslaSet::Apply),
        );
    }
}

fn create_materials(
    mut commands: Commands,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut lod_materials: ResMut<Assets<LodMaterial>>,
    mut water_materials: ResMut<Assets<super::water::WaterMaterial>>,
    sun: Res<super::settings::SunSettings>,
    world: Res<IslandWorld>,
    lod: Res<Lod>,
    settings: Res<super::settings::StreamSettings>,
    toggles: Option<Res<super::settings::DebugToggles>>,
    pages: Option<Res<FarFieldPages>>,
) {
    let tint_on = toggles.is_some_and(|t| t.lod_colours);
    let snow_line = world.source.snow_line_m();
    let ambient = super::scene::hemisphere_ambient();
    let levels = (0..=lod.0.top_level)
        .map(|l| {
            lod_materials.add(LodMaterial {
                base: terrain_base(),
                extension: LodExt {
                    morph: morph_uniform(&lod.0.ranges, l, settings.lod),
                    tint: level_tint(l, tint_on),
                    node: Vec4::new(world.source.layout.chunk_size_m(), 0.0, 0.0, 0.0),
                    ..LodExt::new(Vec4::ZERO, Vec4::ONE, ambient, world.source.sea_level_m(), snow_line)
                },
            })
        })
        .collect();
    let seabed = materials.add(terrain_base());
    let to_sun = super::settings::sun_direction(sun.elevation_deg, sun.azimuth_deg);
    let water = water_materials.add(super::water::water_material(to_sun));
    commands.insert_resource(ChunkMaterials { levels, seabed, water });
    // The pages are made from the levels' materials: a new island starts new ones.
    commands.insert_resource(FarFieldPages::after(pages.as_deref()));
}

/// The GPU buffers of the resident nodes (fresh or stale), per level, into the world's stats.
fn count_gpu_bytes(
    lod: Res<Lod>,
    index: Res<NodeIndex>,
    stale: Res<StaleNodes>,
    nodes: Query<(Entity, &LodNode, Option<&NodeGpuBytes>)>,
    pages: Res<FarFieldPages>,
    mut stats: ResMut<WorldStats>,
) {
    let mut per_level = vec![(0u32, 0u64, 0u64); lod.0.top_level as usize + 1];
    for (e, node, bytes) in &nodes {
        if index.0.get(&node.id) != Some(&e) && stale.0.get(&node.id) != Some(&e) {
            continue;
        }
        let g = &mut per_level[node.id.level as usize];
        g.0 += 1;
        g.1 += bytes.map_or(0, |b| b.terrain);
        g.2 += bytes.map_or(0, |b| b.water);
    }
    let textures = pages.bytes_per_level(per_level.len());
    stats.gpu_bytes = per_level.iter().map(|l| l.1 + l.2).sum();
    stats.gpu_bytes_per_level = per_level;
    stats.texture_bytes = textures.iter().sum();
    stats.texture_bytes_per_level = textures;
}

/// The morph bands follow the level-of-detail switch (a suite's views may turn it off and on).
fn follow_lod_switch(
    settings: Res<super::settings::StreamSettings>,
    lod: Res<Lod>,
    mut materials: ResMut<Assets<LodMaterial>>,
) {
    // The levels' shared materials and every coarse tile's own (the level is `morph.z`).
    let stale: Vec<_> = materials
        .iter()
        .filter(|(_, m)| m.extension.morph != morph_of(&lod.0.ranges, m.extension.morph, settings.lod))
        .map(|(id, _)| id)
        .collect();
    for id in stale {
        if let Some(mut m) = materials.get_mut(id) {
            m.extension.morph = morph_of(&lod.0.ranges, m.extension.morph, settings.lod);
        }
    }
}

/// The morph uniform `current` (of level `current.z`, textured when `current.w` is 1) should
/// have with the level-of-detail switch at `lod`.
fn morph_of(ranges: &LodRanges, current: Vec4, lod: bool) -> Vec4 {
    morph_uniform(ranges, current.z as u8, lod).with_w(current.w)
}

fn to_mesh(positions: Vec<[f32; 3]>, normals: Vec<[f32; 3]>, colors: Vec<[f32; 4]>, indices: Vec<u32>) -> Mesh {
    // GPU-only: the CPU copy is dropped after upload, so resident memory is the chunk data.
    to_mesh_with(positions, normals, colors, indices, RenderAssetUsages::RENDER_WORLD)
}

fn to_mesh_with(
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    colors: Vec<[f32; 4]>,
    indices: Vec<u32>,
    usage: RenderAssetUsages,
) -> Mesh {
    Mesh::new(PrimitiveTopology::TriangleList, usage)
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
        .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors)
        .with_inserted_indices(Indices::U32(indices))
}

/// What putting a coarse tile's textures in its level's pages takes (`far_field::place`).
#[derive(SystemParam)]
struct TilePages<'w> {
    mats: Res<'w, ChunkMaterials>,
    world: Res<'w, IslandWorld>,
    pages: ResMut<'w, FarFieldPages>,
    writes: ResMut<'w, LayerWrites>,
    images: ResMut<'w, Assets<Image>>,
    materials: ResMut<'w, Assets<LodMaterial>>,
}

impl TilePages<'_> {
    /// The material of `level` (the last level's beyond it).
    fn level_material(&self, level: u8) -> &Handle<LodMaterial> {
        &self.mats.levels[(level as usize).min(self.mats.levels.len() - 1)]
    }

    /// A coarse tile's material, tag and slot in its level's pages; `None` when the level's
    /// material is gone (a reload under way).
    fn place(&mut self, level: u8, textures: [TileTexture; 2]) -> Option<far_field::Placed> {
        let material = self.level_material(level).clone();
        let column_m = self.world.source.layout.column_m;
        far_field::place(
            &mut self.pages,
            &mut self.writes,
            &material,
            level,
            textures,
            column_m,
            &mut self.images,
            &mut self.materials,
        )
    }
}

/// Put the textures baked after a first-view tile's mesh on its material (the tile drew its
/// per-vertex colours until then).
fn apply_pending_textures(
    mut commands: Commands,
    mut pending: Query<(Entity, &LodNode, &mut super::server::PendingTextures, Option<&MeshTag>), With<Mesh3d>>,
    mut tiles: TilePages,
) {
    for (e, node, mut textures, tag) in &mut pending {
        let t = std::mem::take(&mut *textures.0);
        let mut ec = commands.entity(e);
        ec.remove::<super::server::PendingTextures>();
        if let Some(mut drawn) = tiles.place(node.id.level, t) {
            // The border pins the world server set stay.
            let pins = tag.map_or(0, |t| (t.0 >> far_field::PIN_SHIFT) as u8);
            drawn.1 = MeshTag(far_field::with_pins(drawn.1.0, pins));
            ec.insert(drawn);
        }
    }
}

/// The ocean beyond the map's edge, so the sea reaches the horizon.
#[derive(Component, Debug, Clone, Copy)]
pub struct OpenSea;

/// The water part of the open sea (the other part is its seabed), hidden with the water toggle.
#[derive(Component, Debug, Clone, Copy)]
pub struct OpenSeaWater;

pub use super::sky::OPEN_SEA_REACH_M;

/// The open sea around the square `[0, extent]²` at height `y`, deep-water coloured: a flat ring
/// tessellated by [`crate::mesh::open_sea::ring`], so no rasteriser's clipping of a far triangle
/// decides the picture. It borders the chunks' sheets without overlapping them, so alpha never
/// stacks.
pub fn open_sea_mesh(extent: f32, y: f32, colour: [f32; 4]) -> Mesh {
    let (xz, indices) = crate::mesh::open_sea::ring(extent);
    let p: Vec<[f32; 3]> = xz.iter().map(|&[x, z]| [x, y, z]).collect();
    let n = vec![[0.0, 1.0, 0.0]; p.len()];
    let c = vec![colour; p.len()];
    to_mesh(p, n, c, indices)
}

/// Nodes of a level drawn only beyond the longest shadow reach
/// ([`super::scene::SHADOW_MAX_DISTANCE_M`]) cast no shadow.
fn casts_shadow(ranges: &LodRanges, level: u8) -> bool {
    level == 0 || ranges.range_m(level - 1) < super::scene::SHADOW_MAX_DISTANCE_M
}

fn upload_node_meshes(
    mut commands: Commands,
    mut fresh: Query<(Entity, &LodNode, &mut NodeBuffers), Added<NodeBuffers>>,
    lod: Res<Lod>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut tiles: TilePages,
) {
    for (e, node, mut buffers) in &mut fresh {
        let LodMesh { terrain, morph, morph_colors, water, textures } = std::mem::take(&mut buffers.0);
        let mut bytes = NodeGpuBytes { terrain: (terrain.byte_size() + morph.len() * 32) as u64, water: 0 };
        let mut ec = commands.entity(e);
        ec.remove::<NodeBuffers>();
        if !terrain.is_empty() {
            let TerrainMesh { positions, normals, colors, paint, indices } = terrain;
            let mut mesh = to_mesh(positions, normals, colors, indices)
                .with_inserted_attribute(ATTRIBUTE_LOD_MORPH, morph)
                .with_inserted_attribute(ATTRIBUTE_LOD_MORPH_COLOR, morph_colors);
            // A Marching Cubes chunk's paint field rides in the first UV set (the terrain shader
            // reads it as such, under `VERTEX_UVS_A`).
            if !paint.is_empty() {
                mesh.insert_attribute(Mesh::ATTRIBUTE_UV_0, paint);
            }
            ec.insert(Mesh3d(meshes.add(mesh)));
            // A coarse tile draws with its textures' page (its level's material, with the
            // arrays) and its layer in its tag; the rest with its level's material.
            // Every node's tag holds its index (the shader finds its borders with it).
            match textures.and_then(|t| tiles.place(node.id.level, *t)) {
                Some(drawn) => ec.insert(drawn),
                None => ec.insert((
                    MeshMaterial3d(tiles.level_material(node.id.level).clone()),
                    MeshTag(far_field::tile_tag(0, [node.id.x as u32, node.id.z as u32])),
                )),
            };
            if !casts_shadow(&lod.0.ranges, node.id.level) {
                ec.insert(NotShadowCaster);
            }
        }
        if !water.is_empty() {
            bytes.water = water.byte_size() as u64;
            let WaterMesh { positions, normals, colors, indices } = water;
            ec.with_child((
                ChunkWaterSheet,
                Mesh3d(meshes.add(to_mesh(positions, normals, colors, indices))),
                MeshMaterial3d(tiles.mats.water.clone()),
                Transform::default(),
                NotShadowCaster,
                // A sheet's flat quads would hide the terrain's wireframe behind them.
                bevy::pbr::wireframe::NoWireframe,
            ));
        }
        ec.insert(bytes);
    }
}

fn spawn_open_sea(
    mut commands: Commands,
    world: Res<IslandWorld>,
    mats: Res<ChunkMaterials>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut water_materials: ResMut<Assets<super::water::WaterMaterial>>,
) {
    let src = &world.source;
    let Some(level_m) = src.ocean_level_m() else { return };
    let y = level_m.max(crate::world::FLOOR_Y_M);
    let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
    // The chunks' water material as it is now (sun, debug views), finding its surface per pixel.
    let Some(mut sea) = water_materials.get(&mats.water).cloned() else { return };
    sea.extension.plane = super::water::open_sea_plane(y);
    commands.spawn((
        OpenSea,
        OpenSeaWater,
        Mesh3d(meshes.add(open_sea_mesh(extent, y, crate::mesh::water_colour(crate::mesh::water::RAMP_DEPTH_M)))),
        MeshMaterial3d(water_materials.add(sea)),
        Transform::default(),
        NotShadowCaster,
        bevy::pbr::wireframe::NoWireframe,
    ));
    // An opaque seabed under the open sea, at the map border's mean floor height, so the
    // translucent sheet shows the same thing beyond the map as inside it.
    let floor_y = border_floor_m(src);
    let seabed = crate::mesh::palette::material_colour(crate::world::Material::Seabed as u8);
    commands.spawn((
        OpenSea,
        Mesh3d(meshes.add(open_sea_mesh(extent, floor_y, seabed))),
        MeshMaterial3d(mats.seabed.clone()),
        Transform::default(),
        NotShadowCaster,
        bevy::pbr::wireframe::NoWireframe,
    ));
}

/// The island's bridge decks (one entity).
#[derive(Component, Debug, Clone, Copy)]
pub struct BridgeDecks;

/// The open sea and the bridge decks of the island that was replaced.
fn despawn_island_props(mut commands: Commands, props: Query<Entity, Or<(With<OpenSea>, With<BridgeDecks>)>>) {
    for e in &props {
        commands.entity(e).despawn();
    }
}

/// The bridge decks (one mesh for the island), lit like the terrain and casting shadows.
fn spawn_bridges(
    mut commands: Commands,
    world: Res<IslandWorld>,
    mats: Res<ChunkMaterials>,
    mut meshes: ResMut<Assets<Mesh>>,
) {
    let deck = crate::mesh::bridges::bridge_mesh(&world.source);
    if deck.indices.is_empty() {
        return;
    }
    let crate::mesh::TerrainMesh { positions, normals, colors, indices, .. } = deck;
    commands.spawn((
        BridgeDecks,
        Mesh3d(meshes.add(to_mesh(positions, normals, colors, indices))),
        MeshMaterial3d(mats.seabed.clone()),
        Transform::default(),
    ));
}

/// Mean rendered height of the map's border columns.
fn border_floor_m(src: &crate::world::WorldSource) -> f32 {
    let n = src.layout.map_size as i64;
    let mut sum = 0.0;
    for i in 0..n {
        for (x, y) in [(i, 0), (i, n - 1), (0, i), (n - 1, i)] {
            sum += src.surface_y_m(x, y);
        }
    }
    sum / (4 * n) as f32
}
