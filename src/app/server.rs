//! The world server inside the app: chunks as ECS data, built off the frame, nearest first,
//! streamed in and out around the viewer.
//!
//! **Why chunk entities and not a store resource:** each chunk is an entity carrying its
//! [`ChunkCoord`] and its data (`Arc<ChunkData>`), so the client half finds what it draws with
//! ordinary queries (`Added<…>` for new chunks, despawn for unloads) and debug tools can inspect a
//! chunk like any other entity. A small [`ChunkIndex`] resource maps coordinates to entities for
//! the streaming decisions.
//!
//! Builds run on Bevy's async-compute pool in batches of the nearest wanted chunks; inside a
//! batch, rayon spreads the pure functions (`build_chunk`, the terrain mesher, the water mesher)
//! over the cores, and the batch hands back plain data.

use super::IslandWorld;
use crate::mesh::{Mesher, Shading, TerrainMesh, WaterMesh, mesh_water_styled};
use crate::world::{ChunkCoord, ChunkData, build_chunk, chunks_within, should_unload};
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

/// The camera whose position drives streaming.
#[derive(Component, Debug, Default, Clone, Copy)]
pub struct Viewer;

/// How chunk meshes are built: the debug overlays' shading and seam highlight. Changing it
/// rebuilds every resident chunk.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeshStyle {
    pub shading: Shading,
    pub highlight_seam: bool,
}

/// One resident chunk: its coordinate and its data (columns and water; the voxel grids are
/// released once meshed, see [`ChunkData::release_voxels`]).
#[derive(Component, Debug, Clone)]
pub struct Chunk {
    pub coord: ChunkCoord,
    pub data: Arc<ChunkData>,
    pub triangles: u32,
    /// Lowest and highest rendered surface of the chunk's columns (m), for the border gizmos.
    pub height_range_m: [f32; 2],
}

/// Mesh buffers waiting for the client half to turn them into Bevy meshes.
#[derive(Component, Debug, Default)]
pub struct ChunkBuffers {
    pub terrain: TerrainMesh,
    pub water: WaterMesh,
}

/// Coordinates of resident chunks → their entities.
#[derive(Resource, Debug, Default)]
pub struct ChunkIndex(pub HashMap<ChunkCoord, Entity>);

/// How far around the viewer chunks are kept.
#[derive(Resource, Debug, Clone, Copy)]
pub struct StreamSettings {
    pub view_distance_m: f32,
    /// Chunks per build batch, and batches in flight at once.
    pub batch_size: usize,
    pub max_batches: usize,
}

/// Default view distance: enough to hold a 4 km island (the default blueprint) whole from the
/// overview, and beyond the shadow reach of SPEC §5.
pub const DEFAULT_VIEW_DISTANCE_M: f32 = 7000.0;

impl Default for StreamSettings {
    fn default() -> Self {
        Self { view_distance_m: DEFAULT_VIEW_DISTANCE_M, batch_size: 64, max_batches: 2 }
    }
}

/// Live numbers for logs and the stats panel.
#[derive(Resource, Debug, Clone, Default)]
pub struct WorldStats {
    pub chunks_resident: u32,
    pub chunks_building: u32,
    pub chunks_queued: u32,
    pub chunks_built_total: u64,
    pub chunks_unloaded_total: u64,
    pub water_columns: u64,
    pub seam_columns: u64,
    pub chunks_with_water: u32,
    pub triangles: u64,
    pub resident_bytes: u64,
    /// Deepest water and water-surface range seen in any built chunk.
    pub max_depth_m: f32,
    pub surface_y_range_m: Option<[f32; 2]>,
}

/// Progress of the first ring: every chunk in view when the world opened.
#[derive(Resource, Debug, Clone, Default)]
pub struct Loading {
    pub total: u32,
    pub done: u32,
    pub finished: bool,
    started: Option<Instant>,
    last_report_pct: u32,
    first_ring: HashSet<ChunkCoord>,
}

impl Loading {
    pub fn fraction(&self) -> f32 {
        if self.total == 0 { 0.0 } else { self.done as f32 / self.total as f32 }
    }
}

struct BuiltChunk {
    coord: ChunkCoord,
    data: ChunkData,
    buffers: ChunkBuffers,
}

struct Batch {
    coords: Vec<ChunkCoord>,
    task: Task<Vec<BuiltChunk>>,
}

#[derive(Resource, Default)]
struct InFlight {
    batches: Vec<Batch>,
}

impl InFlight {
    fn contains(&self, c: ChunkCoord) -> bool {
        self.batches.iter().any(|b| b.coords.contains(&c))
    }
    fn chunks(&self) -> u32 {
        self.batches.iter().map(|b| b.coords.len() as u32).sum()
    }
}

fn build_batch(src: &crate::world::WorldSource, coords: &[ChunkCoord], style: MeshStyle) -> Vec<BuiltChunk> {
    use rayon::prelude::*;
    coords
        .par_iter()
        .map_init(
            || Mesher::with_shading(style.shading),
            |mesher, &coord| {
                let mut data = build_chunk(src, coord);
                let mut buffers = ChunkBuffers::default();
                mesher.mesh_chunk(&data, &mut buffers.terrain);
                mesh_water_styled(&data, style.highlight_seam, &mut buffers.water);
                data.release_voxels();
                BuiltChunk { coord, data, buffers }
            },
        )
        .collect()
}

/// Ordering of the server's work within a frame.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum ServerSet {
    Collect,
    Schedule,
    Unload,
}

pub struct WorldServerPlugin;

impl Plugin for WorldServerPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ChunkIndex>()
            .init_resource::<StreamSettings>()
            .init_resource::<WorldStats>()
            .init_resource::<Loading>()
            .init_resource::<InFlight>()
            .init_resource::<MeshStyle>()
            .configure_sets(Update, (ServerSet::Collect, ServerSet::Schedule, ServerSet::Unload).chain())
            .add_systems(Update, collect_builds.in_set(ServerSet::Collect))
            .add_systems(Update, schedule_builds.in_set(ServerSet::Schedule))
            .add_systems(Update, unload_far_chunks.in_set(ServerSet::Unload))
            .add_systems(Update, rebuild_on_style_change.before(ServerSet::Collect));
    }
}

fn viewer_xz(viewers: &Query<&GlobalTransform, With<Viewer>>) -> Option<[f32; 2]> {
    viewers.iter().next().map(|t| {
        let p = t.translation();
        [p.x, p.z]
    })
}

fn schedule_builds(
    world: Res<IslandWorld>,
    style: Res<MeshStyle>,
    settings: Res<StreamSettings>,
    viewers: Query<&GlobalTransform, With<Viewer>>,
    index: Res<ChunkIndex>,
    mut in_flight: ResMut<InFlight>,
    mut loading: ResMut<Loading>,
    mut stats: ResMut<WorldStats>,
) {
    let Some(at) = viewer_xz(&viewers) else { return };
    let layout = world.source.layout;
    let wanted = chunks_within(&layout, at, settings.view_distance_m);
    if loading.started.is_none() {
        loading.started = Some(Instant::now());
        loading.total = wanted.len() as u32;
        loading.first_ring = wanted.iter().copied().collect();
        info!(
            "world: loading {} chunks within {:.0} m of the camera ({} × {} chunks of {:.0} m in all)",
            wanted.len(),
            settings.view_distance_m,
            layout.chunks_per_side,
            layout.chunks_per_side,
            layout.chunk_size_m()
        );
    } else if !loading.finished && !loading.first_ring.is_empty() {
        // The viewer moved on before the first ring was built: chunks of it that are no longer
        // wanted will never be built, so they no longer hold the loading back.
        let still: HashSet<ChunkCoord> = wanted.iter().copied().collect();
        let before = loading.first_ring.len();
        loading.first_ring.retain(|c| still.contains(c) || index.0.contains_key(c));
        loading.done += (before - loading.first_ring.len()) as u32;
    }
    let pool = AsyncComputeTaskPool::get();
    let todo: Vec<ChunkCoord> =
        wanted.into_iter().filter(|&c| !index.0.contains_key(&c) && !in_flight.contains(c)).collect();
    let mut rest = todo.as_slice();
    while in_flight.batches.len() < settings.max_batches && !rest.is_empty() {
        let (now, later) = rest.split_at(rest.len().min(settings.batch_size.max(1)));
        rest = later;
        let coords = now.to_vec();
        let (src, job) = (world.source.clone(), coords.clone());
        let style = *style;
        let task = pool.spawn(async move { build_batch(&src, &job, style) });
        in_flight.batches.push(Batch { coords, task });
    }
    let queued = rest.len() as u32;
    stats.chunks_queued = queued;
    stats.chunks_building = in_flight.chunks();
}

fn collect_builds(
    mut commands: Commands,
    mut in_flight: ResMut<InFlight>,
    mut index: ResMut<ChunkIndex>,
    mut stats: ResMut<WorldStats>,
    mut loading: ResMut<Loading>,
    world: Res<IslandWorld>,
) {
    let mut ready = Vec::new();
    in_flight.batches.retain_mut(|b| match check_ready(&mut b.task) {
        Some(built) => {
            ready.extend(built);
            false
        }
        None => true,
    });
    // Spawn in coordinate order so entity allocation does not depend on task completion order.
    ready.sort_by_key(|b| b.coord);
    for b in ready {
        let triangles = b.buffers.terrain.triangle_count() as u32;
        if let Some(w) = &b.data.water {
            stats.water_columns += w.wet_columns as u64;
            stats.seam_columns += w.seam_columns as u64;
            if w.wet_columns > 0 {
                stats.chunks_with_water += 1;
                stats.max_depth_m = stats.max_depth_m.max(w.max_depth_m);
                let r = w.surface_y_range_m;
                stats.surface_y_range_m = Some(match stats.surface_y_range_m {
                    Some(s) => [s[0].min(r[0]), s[1].max(r[1])],
                    None => r,
                });
            }
        }
        stats.triangles += triangles as u64;
        stats.resident_bytes += b.data.resident_bytes() as u64;
        stats.chunks_built_total += 1;
        stats.chunks_resident += 1;
        if loading.first_ring.remove(&b.coord) {
            loading.done += 1;
        }
        let height_range_m = b.data.surface_y_m.iter().fold([f32::MAX, f32::MIN], |r, &h| [r[0].min(h), r[1].max(h)]);
        let e = commands
            .spawn((
                Chunk { coord: b.coord, data: Arc::new(b.data), triangles, height_range_m },
                b.buffers,
                Transform::default(),
                Visibility::default(),
            ))
            .id();
        index.0.insert(b.coord, e);
    }
    stats.chunks_building = in_flight.chunks();
    report_loading(&mut loading, &stats, &world);
}

fn report_loading(loading: &mut Loading, stats: &WorldStats, world: &IslandWorld) {
    if loading.finished || loading.started.is_none() {
        return;
    }
    let pct = (loading.fraction() * 100.0) as u32;
    if pct / 25 > loading.last_report_pct / 25 && pct < 100 {
        info!("world: loading {pct}% ({}/{} chunks)", loading.done, loading.total);
        loading.last_report_pct = pct;
    }
    if loading.done < loading.total {
        return;
    }
    loading.finished = true;
    let secs = loading.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
    info!(
        "world: first ring built: {} chunks in {:.2} s, {} triangles, {:.1} MiB of chunk data",
        loading.total,
        secs,
        stats.triangles,
        stats.resident_bytes as f64 / (1024.0 * 1024.0)
    );
    match stats.surface_y_range_m {
        Some([lo, hi]) if stats.water_columns > 0 => info!(
            "water: {} columns in {} chunks, surface Y {:.1}..{:.1} m, max depth {:.1} m, {} seam columns recovered",
            stats.water_columns, stats.chunks_with_water, lo, hi, stats.max_depth_m, stats.seam_columns
        ),
        _ => {
            let why = if world.source.blueprint.water.is_none() {
                "the blueprint has no WBID section"
            } else {
                "every column in view is dry"
            };
            info!("water: nothing is wet ({why})");
        }
    }
}

fn unload_far_chunks(
    mut commands: Commands,
    world: Res<IslandWorld>,
    settings: Res<StreamSettings>,
    viewers: Query<&GlobalTransform, With<Viewer>>,
    mut index: ResMut<ChunkIndex>,
    chunks: Query<&Chunk>,
    mut stats: ResMut<WorldStats>,
) {
    let Some(at) = viewer_xz(&viewers) else { return };
    let layout = world.source.layout;
    let mut gone = Vec::new();
    for (&coord, &e) in &index.0 {
        if should_unload(&layout, coord, at, settings.view_distance_m) {
            gone.push((coord, e));
        }
    }
    for (coord, e) in gone {
        index.0.remove(&coord);
        if let Ok(c) = chunks.get(e) {
            if let Some(w) = &c.data.water {
                stats.water_columns -= w.wet_columns as u64;
                stats.seam_columns -= w.seam_columns as u64;
                if w.wet_columns > 0 {
                    stats.chunks_with_water -= 1;
                }
            }
            stats.triangles -= c.triangles as u64;
            stats.resident_bytes -= c.data.resident_bytes() as u64;
        }
        stats.chunks_resident -= 1;
        stats.chunks_unloaded_total += 1;
        commands.entity(e).despawn();
    }
}

/// A new mesh style (shading mode, seam highlight) rebuilds every resident chunk: they are
/// dropped and stream back in, built with the new style; batches already in flight are discarded.
fn rebuild_on_style_change(
    mut commands: Commands,
    style: Res<MeshStyle>,
    mut index: ResMut<ChunkIndex>,
    mut in_flight: ResMut<InFlight>,
    mut stats: ResMut<WorldStats>,
) {
    if !style.is_changed() || style.is_added() {
        return;
    }
    info!("world: mesh style now {:?}; rebuilding {} resident chunks", *style, index.0.len());
    for (_, e) in index.0.drain() {
        commands.entity(e).despawn();
    }
    in_flight.batches.clear();
    let built = stats.chunks_built_total;
    let unloaded = stats.chunks_unloaded_total;
    *stats = WorldStats { chunks_built_total: built, chunks_unloaded_total: unloaded, ..default() };
}
