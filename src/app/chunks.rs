//! Chunk rendering, the client half: turns the mesh buffers the world server hands over into
//! Bevy meshes — terrain on the chunk entity, the water sheet as its own child entity with a
//! translucent material that casts no shadow — and draws the open sea beyond the map.

use super::IslandWorld;
use super::server::{Chunk, ChunkBuffers, ServerSet};
use crate::mesh::{TerrainMesh, WaterMesh};
use crate::world::ChunkCoord;
use bevy::asset::RenderAssetUsages;
use bevy::light::NotShadowCaster;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;

/// A chunk's terrain entity.
#[derive(Component, Debug, Clone, Copy)]
pub struct ChunkTerrain(pub ChunkCoord);

/// A chunk's water-sheet entity.
#[derive(Component, Debug, Clone, Copy)]
pub struct ChunkWaterSheet(pub ChunkCoord);

/// Materials shared by every chunk.
#[derive(Resource)]
pub struct ChunkMaterials {
    pub terrain: Handle<StandardMaterial>,
    pub water: Handle<StandardMaterial>,
}

pub struct ChunkRenderPlugin;

impl Plugin for ChunkRenderPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, (create_materials, spawn_open_sea).chain())
            .add_systems(Update, upload_chunk_meshes.after(ServerSet::Collect).before(ServerSet::Schedule));
    }
}

fn create_materials(mut commands: Commands, mut materials: ResMut<Assets<StandardMaterial>>) {
    let terrain = materials.add(StandardMaterial {
        base_color: Color::WHITE,
        perceptual_roughness: 0.92,
        metallic: 0.0,
        reflectance: 0.2,
        // Visible from both sides: the world can be seen from below.
        cull_mode: None,
        double_sided: true,
        ..default()
    });
    let water = materials.add(StandardMaterial {
        base_color: Color::WHITE,
        alpha_mode: AlphaMode::Blend,
        perceptual_roughness: 0.35,
        metallic: 0.0,
        reflectance: 0.4,
        cull_mode: None,
        double_sided: true,
        ..default()
    });
    commands.insert_resource(ChunkMaterials { terrain, water });
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

/// The ocean beyond the map's edge, so the sea reaches the horizon.
#[derive(Component, Debug, Clone, Copy)]
pub struct OpenSea;

/// The water part of the open sea (the other part is its seabed), hidden with the water toggle.
#[derive(Component, Debug, Clone, Copy)]
pub struct OpenSeaWater;

/// How far the open sea reaches beyond the map, in metres.
pub const OPEN_SEA_REACH_M: f32 = 0.9 * super::sky::DOME_RADIUS_M;

/// A ring of four flat quads around the square `[0, extent]²` at height `y`, deep-water coloured.
/// It borders the chunks' sheets without overlapping them, so alpha never stacks.
pub fn open_sea_mesh(extent: f32, y: f32, colour: [f32; 4]) -> Mesh {
    let (lo, hi) = (-OPEN_SEA_REACH_M, extent + OPEN_SEA_REACH_M);
    let rects = [[lo, lo, hi, 0.0], [lo, extent, hi, hi], [lo, 0.0, 0.0, extent], [extent, 0.0, hi, extent]];
    let (mut p, mut n, mut c, mut i) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for [x0, z0, x1, z1] in rects {
        let b = p.len() as u32;
        p.extend_from_slice(&[[x0, y, z0], [x0, y, z1], [x1, y, z1], [x1, y, z0]]);
        n.extend_from_slice(&[[0.0, 1.0, 0.0]; 4]);
        c.extend_from_slice(&[colour; 4]);
        i.extend_from_slice(&[b, b + 1, b + 2, b, b + 2, b + 3]);
    }
    to_mesh(p, n, c, i)
}

fn upload_chunk_meshes(
    mut commands: Commands,
    mut fresh: Query<(Entity, &Chunk, &mut ChunkBuffers), Added<ChunkBuffers>>,
    mats: Res<ChunkMaterials>,
    mut meshes: ResMut<Assets<Mesh>>,
) {
    for (e, chunk, mut buffers) in &mut fresh {
        let ChunkBuffers { terrain, water } = std::mem::take(&mut *buffers);
        let mut ec = commands.entity(e);
        ec.remove::<ChunkBuffers>().insert(ChunkTerrain(chunk.coord));
        if !terrain.is_empty() {
            let TerrainMesh { positions, normals, colors, indices } = terrain;
            ec.insert((
                Mesh3d(meshes.add(to_mesh(positions, normals, colors, indices))),
                MeshMaterial3d(mats.terrain.clone()),
            ));
        }
        if !water.is_empty() {
            let WaterMesh { positions, normals, colors, indices } = water;
            ec.with_child((
                ChunkWaterSheet(chunk.coord),
                Mesh3d(meshes.add(to_mesh(positions, normals, colors, indices))),
                MeshMaterial3d(mats.water.clone()),
                Transform::default(),
                NotShadowCaster,
                // A sheet's 1,024 flat quads would hide the terrain's wireframe behind them.
                bevy::pbr::wireframe::NoWireframe,
            ));
        }
    }
}

fn spawn_open_sea(
    mut commands: Commands,
    world: Res<IslandWorld>,
    mats: Res<ChunkMaterials>,
    mut meshes: ResMut<Assets<Mesh>>,
) {
    let src = &world.source;
    let Some(level) = src.water.ocean_level_raw else { return };
    let y = (level * src.blueprint.params.metres_per_raw).max(crate::world::FLOOR_Y_M);
    let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
    commands.spawn((
        OpenSea,
        OpenSeaWater,
        Mesh3d(meshes.add(open_sea_mesh(extent, y, crate::mesh::water_colour(crate::mesh::water::RAMP_DEPTH_M)))),
        MeshMaterial3d(mats.water.clone()),
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
        MeshMaterial3d(mats.terrain.clone()),
        Transform::default(),
        NotShadowCaster,
        bevy::pbr::wireframe::NoWireframe,
    ));
}

/// Mean rendered height of the map's border columns.
fn border_floor_m(src: &crate::world::WorldSource) -> f32 {
    let n = src.blueprint.map_size as i64;
    let mut sum = 0.0;
    for i in 0..n {
        for (x, y) in [(i, 0), (i, n - 1), (0, i), (n - 1, i)] {
            sum += crate::world::surface_y_m(&src.blueprint, x, y);
        }
    }
    sum / (4 * n) as f32
}
