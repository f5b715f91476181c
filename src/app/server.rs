//! The world server inside the app: level-of-detail nodes as ECS data, built off the frame,
//! nearest first, swapped in atomically around the viewer (SPEC §3).
//!
//! Each resident node is an entity carrying its [`LodNode`] (and, for level-0 chunks, the chunk's
//! data as [`Chunk`]), so the client half finds what it draws with ordinary queries and debug
//! tools can inspect a node like any other entity.
//!
//! - **Selection** each frame is the pure [`LodTree::select`] (or, with level of detail off,
//!   every chunk within the view distance).
//! - **Builds** run on rayon's pool, one job per node, fed from this system and drained into the
//!   world every frame; they keep running between frames, so loading is not bound to the frame
//!   rate. A job whose node is no longer wanted when it starts is skipped.
//! - **Swaps are atomic:** a displayed node is replaced only when every node that replaces it is
//!   built ([`display_set`]), so streaming never opens a hole; at most
//!   [`StreamSettings::max_swaps_per_frame`] replacements happen per frame.

use super::IslandWorld;
use super::settings::DebugToggles;
use crate::mesh::far_field::TileTexture;
use crate::mesh::lod::{LodMesh, bake_tile, build_node_with};
use crate::world::display::{border_pins, display_set};
use crate::world::lod::{LodTree, NodeId};
use crate::world::{ChunkCoord, ChunkData, should_unload};
use bevy::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One resident node of the level-of-detail tree.
#[derive(Component, Debug, Clone)]
pub struct LodNode {
    pub id: NodeId,
    pub triangles: u32,
    /// Lowest and highest rendered surface over the node (m), for the border gizmos.
    pub height_range_m: [f32; 2],
}

/// A resident level-0 node's chunk data (columns and water; voxel grids released once meshed).
#[derive(Component, Debug, Clone)]
pub struct Chunk {
    pub coord: ChunkCoord,
    pub data: Arc<ChunkData>,
}

/// Mesh buffers waiting for the client half to turn them into Bevy meshes.
#[derive(Component, Debug, Default)]
pub struct NodeBuffers(pub LodMesh);

/// Resident nodes → their entities.
#[derive(Resource, Debug, Default)]
pub struct NodeIndex(pub HashMap<NodeId, Entity>);

/// Nodes built in a mesh style that has since changed: still shown until their rebuilt
/// replacements are ready (so a shading switch never blanks the screen), then dropped.
#[derive(Resource, Debug, Default)]
pub struct StaleNodes(pub HashMap<NodeId, Entity>);

/// The level-of-detail tree of the loaded world.
#[derive(Resource, Clone)]
pub struct Lod(pub Arc<LodTree>);

/// The previous island's nodes after a reload ([`replace_world`]): they stay on screen, and the
/// new island's nodes stay hidden, until the new island's first view is built; then they go in
/// one frame ([`retire_old_world`]), so the screen never shows half of each.
#[derive(Resource, Debug, Default)]
pub struct Retiring(pub Vec<Entity>);

/// A new island was swapped in (its resources are in place; its nodes are not built yet).
#[derive(Message, Debug, Clone, Copy)]
pub struct WorldReplaced;

/// The new island's first view replaced the old island on screen.
#[derive(Message, Debug, Clone, Copy)]
pub struct WorldShown;

pub use super::settings::{DEFAULT_VIEW_DISTANCE_M, MeshStyle, StreamSettings, Viewer};

/// Live numbers for logs and the stats panel.
#[derive(Resource, Debug, Clone, Default)]
pub struct WorldStats {
    pub nodes_resident: u32,
    pub nodes_displayed: u32,
    pub nodes_building: u32,
    pub nodes_queued: u32,
    pub nodes_built_total: u64,
    pub nodes_unloaded_total: u64,
    /// Displayed nodes and their terrain triangles, per level.
    pub displayed_per_level: Vec<(u32, u64)>,
    /// Terrain triangles of the displayed nodes.
    pub triangles: u64,
    /// Bytes of the displayed and waiting nodes' GPU buffers (terrain and water); counted on the
    /// render side (`chunks`), which owns the buffers.
    pub gpu_bytes: u64,
    /// Bytes of resident chunk data (level-0 nodes).
    pub resident_bytes: u64,
    /// Resident nodes and their GPU bytes (terrain, water), per level.
    pub gpu_bytes_per_level: Vec<(u32, u64, u64)>,
    /// Bytes of the resident coarse tiles' far-field textures (apart from the buffers above),
    /// in all and per level.
    pub texture_bytes: u64,
    pub texture_bytes_per_level: Vec<u64>,
}

/// Progress of the first view: every node the first selection asked for.
#[derive(Resource, Debug, Clone, Default)]
pub struct Loading {
    pub total: u32,
    pub done: u32,
    pub finished: bool,
    started: Option<Instant>,
    last_report_pct: u32,
    first_view: HashSet<NodeId>,
}

impl Loading {
    pub fn fraction(&self) -> f32 {
        if self.total == 0 { 0.0 } else { self.done as f32 / self.total as f32 }
    }
}

/// What a build job hands back.
struct BuiltNode {
    id: NodeId,
    style: MeshStyle,
    /// `None`: skipped because the node was no longer wanted when the job started.
    built: Option<(LodMesh, Option<ChunkData>, [f32; 2])>,
}

/// What a bake job hands back: a first-view tile's far-field textures.
struct BakedNode {
    id: NodeId,
    style: MeshStyle,
    textures: Box<[TileTexture; 2]>,
}

/// A coarse tile's far-field textures, baked after its mesh (the first view's tiles), waiting to
/// be put on its material once the mesh is uploaded.
#[derive(Component)]
pub struct PendingTextures(pub Box<[TileTexture; 2]>);

/// The build queue: jobs in flight, the set still wanted, and the channel results come back on;
/// and the first view's texture bakes in flight, with theirs.
#[derive(Resource)]
struct Builder {
    in_flight: HashSet<NodeId>,
    wanted: Arc<Mutex<HashSet<NodeId>>>,
    tx: Sender<BuiltNode>,
    rx: Mutex<Receiver<BuiltNode>>,
    bakes: HashSet<NodeId>,
    bake_tx: Sender<BakedNode>,
    bake_rx: Mutex<Receiver<BakedNode>>,
}

impl Default for Builder {
    fn default() -> Self {
        let (tx, rx) = channel();
        let (bake_tx, bake_rx) = channel();
        Self {
            in_flight: HashSet::new(),
            wanted: Arc::default(),
            tx,
            rx: Mutex::new(rx),
            bakes: HashSet::new(),
            bake_tx,
            bake_rx: Mutex::new(bake_rx),
        }
    }
}

/// This frame's selection and the nodes on screen.
#[derive(Resource, Debug, Default)]
pub struct Selection {
    pub target: Vec<NodeId>,
    pub displayed: HashSet<NodeId>,
    /// The viewer's position the target was selected for.
    pub viewer: Option<[f32; 3]>,
}

/// Whether the screen shows exactly what the viewer at `at` asks for: the selection was made for
/// that position, every node of it is built and displayed, and no build or stale node is left.
/// A headless render waits for this before it draws.
pub fn settled(world: &World, at: [f32; 3]) -> bool {
    let (Some(sel), Some(b), Some(stale), Some(loading)) = (
        world.get_resource::<Selection>(),
        world.get_resource::<Builder>(),
        world.get_resource::<StaleNodes>(),
        world.get_resource::<Loading>(),
    ) else {
        return false;
    };
    loading.finished
        && sel.viewer == Some(at)
        && sel.target.iter().all(|id| sel.displayed.contains(id))
        && sel.displayed.len() == sel.target.len()
        && b.in_flight.is_empty()
        && b.bakes.is_empty()
        && stale.0.is_empty()
}

/// Ordering of the server's work within a frame.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum ServerSet {
    Collect,
    Select,
    Swap,
}

pub struct WorldServerPlugin;

impl Plugin for WorldServerPlugin {
    fn build(&self, app: &mut App) {
        super::settings::ensure(app);
        app.init_resource::<NodeIndex>()
            .init_resource::<StaleNodes>()
            .init_resource::<WorldStats>()
            .init_resource::<Loading>()
            .init_resource::<Builder>()
            .init_resource::<Selection>()
            .init_resource::<Retiring>()
            .add_message::<WorldReplaced>()
            .add_message::<WorldShown>()
            .add_systems(PreStartup, build_tree)
            .configure_sets(
                Update,
                (ServerSet::Collect, ServerSet::Select, ServerSet::Swap).chain().in_set(super::IslaSet::Server),
            )
            .add_systems(
                Update,
                rebuild_on_style_change.run_if(resource_changed::<DebugToggles>).before(ServerSet::Collect),
            )
            .add_systems(Update, (collect_builds, collect_bakes).chain().in_set(ServerSet::Collect))
            .add_systems(Update, (select_nodes, schedule_builds).chain().in_set(ServerSet::Select))
            .add_systems(
                Update,
                (swap_nodes, pin_node_borders, report_loading, retire_old_world).chain().in_set(ServerSet::Swap),
            );
    }
}

fn build_tree(mut commands: Commands, world: Res<IslandWorld>) {
    commands.insert_resource(Lod(Arc::new(new_tree(&world.source))));
}

/// The world's level-of-detail tree, with one log line for the roads and one for the tree.
pub fn new_tree(src: &crate::world::WorldSource) -> LodTree {
    let roads = &src.roads;
    if !roads.is_empty() {
        let km = src.road_km();
        let bridges: usize = roads
            .roads
            .iter()
            .map(|r| {
                r.bridge.windows(2).filter(|w| !w[0] && w[1]).count() + r.bridge.first().map_or(0, |&b| b as usize)
            })
            .sum();
        info!(
            "world: roads: {} carved ({:.1} km) into {} chunks, {} bridge decks; joined at {} points, residue {:.2} m",
            roads.roads.len(),
            km,
            roads.carved_chunks(),
            bridges,
            roads.joins.pinned_points,
            roads.joins.residue_m
        );
    }
    let t = Instant::now();
    let tree = LodTree::new(src);
    let ranges: Vec<String> = (0..tree.top_level).map(|l| format!("{:.0}", tree.ranges.range_m(l))).collect();
    info!(
        "world: level-of-detail tree of {} levels over {} × {} chunks in {:.0} ms; full detail within {:.0} m; level k+1 splits within [{}] m",
        tree.top_level + 1,
        tree.layout.chunks_per_side,
        tree.layout.chunks_per_side,
        t.elapsed().as_secs_f64() * 1e3,
        tree.ranges.range_m(0),
        ranges.join(", ")
    );
    tree
}

/// Swap a new island in (a reload): the world and its tree replace the old ones, the old
/// island's nodes retire (still drawn until the new first view is built), builds in flight for
/// the old island are dropped on return, and the first view's loading starts again. The camera
/// and the settings stay as they are.
pub fn replace_world(world: &mut World, new: IslandWorld, tree: LodTree) {
    let mut nodes: Vec<Entity> = world.resource_mut::<NodeIndex>().0.drain().map(|(_, e)| e).collect();
    nodes.extend(world.resource_mut::<StaleNodes>().0.drain().map(|(_, e)| e));
    nodes.sort();
    if world.resource::<Retiring>().0.is_empty() {
        world.resource_mut::<Retiring>().0 = nodes;
    } else {
        // A reload during a reload: the island on screen keeps retiring; the one in between,
        // never shown, goes now.
        for e in nodes {
            world.despawn(e);
        }
    }
    world.insert_resource(new);
    world.insert_resource(Lod(Arc::new(tree)));
    // A fresh queue: the old jobs send into the old channel, which is dropped here.
    world.insert_resource(Builder::default());
    world.insert_resource(Selection::default());
    world.insert_resource(Loading::default());
    world.insert_resource(WorldStats::default());
    world.write_message(WorldReplaced);
}

/// Once the new island's first view is built, the old island's nodes go and the new ones show,
/// in the same frame.
fn retire_old_world(
    mut commands: Commands,
    mut retiring: ResMut<Retiring>,
    loading: Res<Loading>,
    selection: Res<Selection>,
    index: Res<NodeIndex>,
    mut vis: Query<&mut Visibility, With<LodNode>>,
    mut shown: MessageWriter<WorldShown>,
) {
    if retiring.0.is_empty() || !loading.finished {
        return;
    }
    for e in retiring.0.drain(..) {
        commands.entity(e).despawn();
    }
    for id in &selection.displayed {
        if let Some(mut v) = index.0.get(id).and_then(|&e| vis.get_mut(e).ok()) {
            *v = Visibility::Inherited;
        }
    }
    shown.write(WorldShown);
}

fn viewer_position(viewers: &Query<&GlobalTransform, With<Viewer>>) -> Option<[f32; 3]> {
    viewers.iter().next().map(|t| t.translation().to_array())
}

fn select_nodes(
    lod: Res<Lod>,
    settings: Res<StreamSettings>,
    viewers: Query<&GlobalTransform, With<Viewer>>,
    mut selection: ResMut<Selection>,
    mut loading: ResMut<Loading>,
    index: Res<NodeIndex>,
) {
    let Some(p) = viewer_position(&viewers) else { return };
    selection.viewer = Some(p);
    selection.target =
        if settings.lod { lod.0.select(p) } else { lod.0.select_full_detail(p, settings.view_distance_m) };
    if loading.started.is_none() {
        loading.started = Some(Instant::now());
        loading.total = selection.target.len() as u32;
        loading.first_view = selection.target.iter().copied().collect();
        let levels: HashSet<u8> = selection.target.iter().map(|n| n.level).collect();
        info!(
            "world: loading {} nodes for the first view ({} levels{})",
            selection.target.len(),
            levels.len(),
            if settings.lod {
                String::new()
            } else {
                format!(", full detail within {:.0} m", settings.view_distance_m)
            }
        );
    } else if !loading.finished && !loading.first_view.is_empty() {
        // The viewer moved on before the first view was built: nodes no longer wanted will never
        // be built, so they no longer hold the loading back.
        let still: HashSet<NodeId> = selection.target.iter().copied().collect();
        let before = loading.first_view.len();
        loading.first_view.retain(|c| still.contains(c) || index.0.contains_key(c));
        loading.done += (before - loading.first_view.len()) as u32;
    }
}

fn schedule_builds(
    world: Res<IslandWorld>,
    lod: Res<Lod>,
    toggles: Res<DebugToggles>,
    settings: Res<StreamSettings>,
    selection: Res<Selection>,
    index: Res<NodeIndex>,
    loading: Res<Loading>,
    mut builder: ResMut<Builder>,
    mut stats: ResMut<WorldStats>,
) {
    // The first view's coarse tiles come without their textures, baked after every mesh is
    // built (see `collect_builds`), so the first picture waits for the meshes alone; later
    // tiles are swapped in only with their textures.
    let bake = loading.finished;
    let todo: Vec<NodeId> = selection
        .target
        .iter()
        .copied()
        .filter(|id| !index.0.contains_key(id) && !builder.in_flight.contains(id))
        .collect();
    {
        let mut wanted = builder.wanted.lock().expect("wanted set");
        wanted.clear();
        wanted.extend(selection.target.iter().copied());
    }
    let room = settings.max_in_flight.saturating_sub(builder.in_flight.len());
    for &id in todo.iter().take(room) {
        let (src, tree, tx, wanted, style) =
            (world.source.clone(), lod.0.clone(), builder.tx.clone(), builder.wanted.clone(), MeshStyle::of(&toggles));
        builder.in_flight.insert(id);
        rayon::spawn(move || {
            let still = wanted.lock().map(|w| w.contains(&id)).unwrap_or(true);
            let built = still.then(|| build_node_with(&src, &tree, id, style.shading, style.highlight_seam, bake));
            let _ = tx.send(BuiltNode { id, style, built });
        });
    }
    stats.nodes_queued = todo.len().saturating_sub(room) as u32;
    stats.nodes_building = builder.in_flight.len() as u32;
}

fn collect_builds(
    mut commands: Commands,
    mut builder: ResMut<Builder>,
    mut index: ResMut<NodeIndex>,
    mut stats: ResMut<WorldStats>,
    mut loading: ResMut<Loading>,
    toggles: Res<DebugToggles>,
    world: Res<IslandWorld>,
    lod: Res<Lod>,
) {
    let style = MeshStyle::of(&toggles);
    let mut ready = Vec::new();
    {
        let rx = builder.rx.lock().expect("build channel");
        while let Ok(b) = rx.try_recv() {
            ready.push(b);
        }
    }
    // Spawn in id order so entity allocation does not depend on job completion order.
    ready.sort_by_key(|b| b.id);
    for b in ready {
        builder.in_flight.remove(&b.id);
        let Some((mesh, data, height_range_m)) = b.built else { continue };
        if b.style != style || index.0.contains_key(&b.id) {
            continue;
        }
        let triangles = mesh.terrain.triangle_count() as u32;
        stats.nodes_built_total += 1;
        if b.id.level >= 1 && mesh.textures.is_none() {
            let (src, top, tx, style) = (world.source.clone(), lod.0.top_level, builder.bake_tx.clone(), b.style);
            builder.bakes.insert(b.id);
            rayon::spawn(move || {
                let textures = bake_tile(&src, b.id, top, style.shading);
                let _ = tx.send(BakedNode { id: b.id, style, textures });
            });
        }
        let mut e = commands.spawn((
            LodNode { id: b.id, triangles, height_range_m },
            NodeBuffers(mesh),
            Transform::default(),
            Visibility::Hidden,
        ));
        if let Some(data) = data {
            e.insert(Chunk { coord: data.coord, data: Arc::new(data) });
        }
        index.0.insert(b.id, e.id());
        if loading.first_view.remove(&b.id) {
            loading.done += 1;
        }
    }
    stats.nodes_building = builder.in_flight.len() as u32;
}

/// Hand each baked texture pair to its tile (when it is still resident and drawn in the style
/// it was baked for): `chunks::apply_pending_textures` puts it on the tile's material.
fn collect_bakes(
    mut commands: Commands,
    mut builder: ResMut<Builder>,
    index: Res<NodeIndex>,
    toggles: Res<DebugToggles>,
) {
    let style = MeshStyle::of(&toggles);
    let mut ready = Vec::new();
    {
        let rx = builder.bake_rx.lock().expect("bake channel");
        while let Ok(b) = rx.try_recv() {
            ready.push(b);
        }
    }
    for b in ready {
        builder.bakes.remove(&b.id);
        if b.style != style {
            continue;
        }
        if let Some(&e) = index.0.get(&b.id) {
            commands.entity(e).try_insert(PendingTextures(b.textures));
        }
    }
}

fn swap_nodes(
    mut commands: Commands,
    lod: Res<Lod>,
    settings: Res<StreamSettings>,
    mut selection: ResMut<Selection>,
    mut index: ResMut<NodeIndex>,
    mut stale: ResMut<StaleNodes>,
    mut nodes: Query<(Entity, &LodNode, &mut Visibility, Option<&Chunk>)>,
    viewers: Query<&GlobalTransform, With<Viewer>>,
    mut stats: ResMut<WorldStats>,
    retiring: Res<Retiring>,
) {
    let resident = |id: NodeId| index.0.contains_key(&id);
    let kept = |id: NodeId| index.0.contains_key(&id) || stale.0.contains_key(&id);
    let shown: Vec<NodeId> = if settings.lod {
        display_set(&lod.0, &selection.target, &resident, &kept, &selection.displayed, settings.max_swaps_per_frame)
    } else {
        selection.target.iter().copied().filter(|id| kept(*id)).collect()
    };
    let shown_set: HashSet<NodeId> = shown.into_iter().collect();
    let target_set: HashSet<NodeId> = selection.target.iter().copied().collect();
    // Unload what is neither shown nor wanted (with level of detail off: beyond the hysteresis).
    let p = viewer_position(&viewers);
    let mut gone = Vec::new();
    for (&id, &e) in &index.0 {
        let keep = if settings.lod {
            shown_set.contains(&id) || target_set.contains(&id)
        } else {
            p.is_none_or(|p| {
                !should_unload(&lod.0.layout, ChunkCoord::new(id.x, id.z), [p[0], p[2]], settings.view_distance_m)
            })
        };
        if !keep {
            gone.push((id, e));
        }
    }
    for (id, e) in gone {
        index.0.remove(&id);
        commands.entity(e).despawn();
        stats.nodes_unloaded_total += 1;
    }
    // Stale nodes go once they are off screen or their rebuilt node has taken over.
    stale.0.retain(|id, e| {
        let keep = shown_set.contains(id) && !index.0.contains_key(id);
        if !keep {
            commands.entity(*e).despawn();
        }
        keep
    });
    let mut per_level = vec![(0u32, 0u64); lod.0.top_level as usize + 1];
    let (mut tris, mut chunk_bytes, mut resident_n) = (0u64, 0u64, 0u32);
    for (e, node, mut vis, chunk) in &mut nodes {
        let fresh = index.0.get(&node.id) == Some(&e);
        if !fresh && stale.0.get(&node.id) != Some(&e) {
            continue;
        }
        resident_n += 1;
        let on = shown_set.contains(&node.id);
        // While an old island retires, the new one is built and swapped out of sight.
        let want = if on && retiring.0.is_empty() { Visibility::Inherited } else { Visibility::Hidden };
        if *vis != want {
            *vis = want;
        }

        if on {
            let l = &mut per_level[node.id.level as usize];
            l.0 += 1;
            l.1 += node.triangles as u64;
            tris += node.triangles as u64;
        }
        chunk_bytes += chunk.map_or(0, |c| c.data.resident_bytes() as u64);
    }
    stats.nodes_resident = resident_n;
    stats.nodes_displayed = shown_set.len() as u32;
    stats.displayed_per_level = per_level;
    stats.triangles = tris;
    stats.resident_bytes = chunk_bytes;
    selection.displayed = shown_set;
}

/// Each shown node's border pins (SPEC §3 "Swaps": the crack rule across kept nodes) into its
/// tag, where the terrain's vertex shader reads them; 0 for every node with level of detail off.
fn pin_node_borders(
    lod: Res<Lod>,
    settings: Res<StreamSettings>,
    selection: Res<Selection>,
    mut nodes: Query<(&LodNode, &mut bevy::mesh::MeshTag)>,
) {
    let shown: Vec<NodeId> = selection.displayed.iter().copied().collect();
    let pins: HashMap<NodeId, u8> =
        if settings.lod { border_pins(&lod.0, &shown).into_iter().collect() } else { HashMap::new() };
    for (node, mut tag) in &mut nodes {
        let t = super::far_field::with_pins(tag.0, pins.get(&node.id).copied().unwrap_or(0));
        if tag.0 != t {
            tag.0 = t;
        }
    }
}

fn report_loading(
    mut loading: ResMut<Loading>,
    stats: Res<WorldStats>,
    world: Res<IslandWorld>,
    lod: Res<Lod>,
    selection: Res<Selection>,
) {
    if loading.finished || loading.started.is_none() {
        return;
    }
    let pct = (loading.fraction() * 100.0) as u32;
    if pct / 25 > loading.last_report_pct / 25 && pct < 100 {
        info!("world: loading {pct}% ({}/{} nodes)", loading.done, loading.total);
        loading.last_report_pct = pct;
    }
    // Finished when every node of the first view is built and the screen shows the target.
    let on_screen = selection.target.iter().all(|id| selection.displayed.contains(id));
    if loading.done < loading.total || !on_screen {
        return;
    }
    loading.finished = true;
    let secs = loading.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
    let levels: Vec<String> = stats
        .displayed_per_level
        .iter()
        .enumerate()
        .filter(|(_, (n, _))| *n > 0)
        .map(|(l, (n, t))| format!("L{l} {n} nodes/{t} tris"))
        .collect();
    info!(
        "world: first view built: {} nodes in {:.2} s, {} triangles ({})",
        loading.total,
        secs,
        stats.triangles,
        levels.join(", ")
    );
    let w = &lod.0.water;
    match w.surface_y_range_m {
        Some([lo, hi]) if w.wet_columns > 0 => info!(
            "water: {} columns in {} chunks, surface Y {:.1}..{:.1} m, max depth {:.1} m, {} seam columns recovered",
            w.wet_columns, w.chunks_with_water, lo, hi, w.max_depth_m, w.seam_columns
        ),
        _ => {
            let why = if !world.source.has_water_section() {
                "the blueprint has no WBID section"
            } else {
                "every column is dry"
            };
            info!("water: nothing is wet ({why})");
        }
    }
}

/// A new mesh style (shading mode, seam highlight) rebuilds every resident node: they become
/// stale — still shown until their rebuilt replacements are ready — and stream back in, built
/// with the new style; jobs in flight are discarded on return.
fn rebuild_on_style_change(
    mut commands: Commands,
    toggles: Res<DebugToggles>,
    mut last: Local<Option<MeshStyle>>,
    mut index: ResMut<NodeIndex>,
    mut stale: ResMut<StaleNodes>,
) {
    let style = MeshStyle::of(&toggles);
    let before = last.replace(style);
    if before.is_none_or(|b| b == style) {
        return;
    }
    info!("world: mesh style now {style:?}; rebuilding {} resident nodes", index.0.len());
    for (id, e) in index.0.drain() {
        if let Some(old) = stale.0.insert(id, e) {
            commands.entity(old).despawn();
        }
    }
}
