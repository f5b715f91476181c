//! Chunk rendering: builds chunk data and mesh buffers off the main thread (rayon, in parallel),
//! then spawns one terrain entity and, where the chunk has water, one water-sheet entity.

use super::IslandWorld;
use crate::mesh::{Mesher, TerrainMesh, WaterMesh, mesh_water};
use crate::world::{ChunkCoord, build_chunk};
use bevy::asset::RenderAssetUsages;
use bevy::light::NotShadowCaster;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use rayon::prelude::*;
use std::time::Instant;

/// A chunk's terrain entity.
#[derive(Component, Debug, Clone, Copy)]
pub struct ChunkTerrain(pub ChunkCoord);

/// A chunk's water-sheet entity.
#[derive(Component, Debug, Clone, Copy)]
pub struct ChunkWaterSheet(pub ChunkCoord);

/// What the world server built, for logs and the stats panel.
#[derive(Resource, Debug, Clone, Default)]
pub struct WorldStats {
    pub chunks_built: u32,
    pub chunks_with_water: u32,
    pub water_columns: u64,
    pub seam_columns: u64,
    pub max_depth_m: f32,
    pub surface_y_range_m: [f32; 2],
    pub triangles: u64,
    pub resident_bytes: u64,
    pub build_ms: f64,
}

/// Materials shared by every chunk.
#[derive(Resource)]
pub struct ChunkMaterials {
    pub terrain: Handle<StandardMaterial>,
    pub water: Handle<StandardMaterial>,
}

pub struct ChunkRenderPlugin;

impl Plugin for ChunkRenderPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<WorldStats>()
            .add_systems(Startup, (create_materials, build_all_chunks).chain());
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

fn to_mesh(
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    colors: Vec<[f32; 4]>,
    indices: Vec<u32>,
) -> Mesh {
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
    .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors)
    .with_inserted_indices(Indices::U32(indices))
}

/// The ocean beyond the map's edge, so the sea reaches the horizon.
#[derive(Component, Debug, Clone, Copy)]
pub struct OpenSea;

/// How far the open sea reaches beyond the map, in metres.
pub const OPEN_SEA_REACH_M: f32 = 0.9 * super::sky::DOME_RADIUS_M;

/// A ring of four flat quads around the square `[0, extent]²` at height `y`, deep-water coloured.
/// It borders the chunks' sheets without overlapping them, so alpha never stacks.
pub fn open_sea_mesh(extent: f32, y: f32, colour: [f32; 4]) -> Mesh {
    let (lo, hi) = (-OPEN_SEA_REACH_M, extent + OPEN_SEA_REACH_M);
    let rects = [
        [lo, lo, hi, 0.0],
        [lo, extent, hi, hi],
        [lo, 0.0, 0.0, extent],
        [extent, 0.0, hi, extent],
    ];
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

struct Built {
    coord: ChunkCoord,
    terrain: TerrainMesh,
    water: WaterMesh,
    wet: u32,
    seam: u32,
    max_depth: f32,
    range: Option<[f32; 2]>,
    bytes: usize,
}

fn build_all_chunks(
    mut commands: Commands,
    world: Res<IslandWorld>,
    mats: Res<ChunkMaterials>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut stats: ResMut<WorldStats>,
) {
    let t = Instant::now();
    let src = world.source.clone();
    let coords: Vec<ChunkCoord> = src.layout.all_chunks().collect();
    let built: Vec<Built> = coords
        .par_iter()
        .map_init(Mesher::new, |mesher, &coord| {
            let data = build_chunk(&src, coord);
            let mut terrain = TerrainMesh::default();
            mesher.mesh_chunk(&data, &mut terrain);
            let mut water = WaterMesh::default();
            mesh_water(&data, &mut water);
            let w = data.water.as_ref();
            Built {
                coord,
                terrain,
                water,
                wet: w.map_or(0, |w| w.wet_columns),
                seam: w.map_or(0, |w| w.seam_columns),
                max_depth: w.map_or(0.0, |w| w.max_depth_m),
                range: w.filter(|w| w.wet_columns > 0).map(|w| w.surface_y_range_m),
                bytes: data.resident_bytes(),
            }
        })
        .collect();

    let mut s = WorldStats {
        chunks_built: built.len() as u32,
        surface_y_range_m: [f32::MAX, f32::MIN],
        ..default()
    };
    for b in built {
        s.water_columns += b.wet as u64;
        s.seam_columns += b.seam as u64;
        s.max_depth_m = s.max_depth_m.max(b.max_depth);
        s.resident_bytes += b.bytes as u64;
        if let Some(r) = b.range {
            s.chunks_with_water += 1;
            s.surface_y_range_m = [
                s.surface_y_range_m[0].min(r[0]),
                s.surface_y_range_m[1].max(r[1]),
            ];
        }
        s.triangles += b.terrain.triangle_count() as u64;
        if !b.terrain.is_empty() {
            let TerrainMesh {
                positions,
                normals,
                colors,
                indices,
            } = b.terrain;
            commands.spawn((
                ChunkTerrain(b.coord),
                Mesh3d(meshes.add(to_mesh(positions, normals, colors, indices))),
                MeshMaterial3d(mats.terrain.clone()),
                Transform::default(),
            ));
        }
        if !b.water.is_empty() {
            let WaterMesh {
                positions,
                normals,
                colors,
                indices,
            } = b.water;
            commands.spawn((
                ChunkWaterSheet(b.coord),
                Mesh3d(meshes.add(to_mesh(positions, normals, colors, indices))),
                MeshMaterial3d(mats.water.clone()),
                Transform::default(),
                NotShadowCaster,
            ));
        }
    }
    if let Some(level) = src.water.ocean_level_raw {
        let y = (level * src.blueprint.params.metres_per_raw).max(crate::world::FLOOR_Y_M);
        let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
        commands.spawn((
            OpenSea,
            Mesh3d(meshes.add(open_sea_mesh(
                extent,
                y,
                crate::mesh::water_colour(crate::mesh::water::RAMP_DEPTH_M),
            ))),
            MeshMaterial3d(mats.water.clone()),
            Transform::default(),
            NotShadowCaster,
        ));
        // An opaque seabed under the open sea, at the map border's mean floor height, so the
        // translucent sheet shows the same thing beyond the map as inside it.
        let floor_y = border_floor_m(&src);
        let seabed = crate::mesh::palette::material_colour(crate::world::Material::Seabed as u8);
        commands.spawn((
            OpenSea,
            Mesh3d(meshes.add(open_sea_mesh(extent, floor_y, seabed))),
            MeshMaterial3d(mats.terrain.clone()),
            Transform::default(),
            NotShadowCaster,
        ));
    }
    s.build_ms = t.elapsed().as_secs_f64() * 1e3;
    info!(
        "world: built {} chunks in {:.0} ms ({} triangles, {:.1} MiB of chunk data)",
        s.chunks_built,
        s.build_ms,
        s.triangles,
        s.resident_bytes as f64 / (1024.0 * 1024.0)
    );
    if s.water_columns == 0 {
        info!("water: nothing is wet in this blueprint (no WBID section, or every column dry)");
    } else {
        info!(
            "water: {} columns in {} chunks, surface Y {:.1}..{:.1} m, max depth {:.1} m, {} seam columns recovered",
            s.water_columns,
            s.chunks_with_water,
            s.surface_y_range_m[0],
            s.surface_y_range_m[1],
            s.max_depth_m,
            s.seam_columns
        );
    }
    *stats = s;
}
