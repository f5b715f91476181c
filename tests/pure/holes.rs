//! SPEC §3 "Swaps" and "Level of detail": the screen has no hole. Rays are cast through every
//! pixel of several poses on a 4096² island, against the meshes the world server would display
//! (built by the app's own `build_node`, morphed as the vertex shader morphs them): a ray that
//! goes down into the map must hit terrain or water; only a ray that leaves the map, or goes up
//! into the sky, may miss. Unlike a count of node coverage, this sees a node that is displayed
//! with no mesh, a tile that does not reach its border, or a crack the morph opens.

use isla::mesh::Shading;
use isla::mesh::lod::{LodMesh, build_node, drawn_position};
use isla::world::WorldSource;
use isla::world::display::{border_pins, display_set};
use isla::world::lod::{LodTree, NodeId};
use isla::world::probe::pixel_ray;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

/// A 4096² island (8 km across at 2 m a pixel): [`isla::blueprint::testing::cone_island`].
fn big_world() -> &'static (WorldSource, LodTree) {
    static W: OnceLock<(WorldSource, LodTree)> = OnceLock::new();
    W.get_or_init(|| {
        let bp = isla::blueprint::testing::cone_island(4096);
        let src = WorldSource::new(Arc::new(bp));
        let tree = LodTree::new(&src);
        (src, tree)
    })
}

/// Triangles bucketed by the XZ cells their bounds touch, for rays marched cell by cell.
struct Scene {
    cell_m: f32,
    side: usize,
    cells: Vec<Vec<[[f32; 3]; 3]>>,
    /// Per cell, the highest vertex of its triangles: a ray that crosses the cell above it
    /// cannot hit them there.
    cell_top: Vec<f32>,
    /// Below every triangle: a ray that reaches this height inside the map has passed the ground.
    floor_y: f32,
    /// Above every triangle: a ray going up past it hits nothing more.
    ceiling_y: f32,
}

impl Scene {
    fn new(extent_m: f32, cell_m: f32) -> Self {
        let side = (extent_m / cell_m).ceil() as usize;
        Self {
            cell_m,
            side,
            cells: vec![Vec::new(); side * side],
            cell_top: vec![f32::MIN; side * side],
            floor_y: f32::MAX,
            ceiling_y: f32::MIN,
        }
    }

    fn add(&mut self, t: [[f32; 3]; 3]) {
        let n = self.side as i64;
        let cell = |v: f32| ((v / self.cell_m).floor() as i64).clamp(0, n - 1) as usize;
        let (x0, x1) =
            (t.iter().map(|p| p[0]).fold(f32::MAX, f32::min), t.iter().map(|p| p[0]).fold(f32::MIN, f32::max));
        let (z0, z1) =
            (t.iter().map(|p| p[2]).fold(f32::MAX, f32::min), t.iter().map(|p| p[2]).fold(f32::MIN, f32::max));
        let top = t.iter().fold(f32::MIN, |f, p| f.max(p[1]));
        for cx in cell(x0)..=cell(x1) {
            for cz in cell(z0)..=cell(z1) {
                self.cells[cx * self.side + cz].push(t);
                self.cell_top[cx * self.side + cz] = self.cell_top[cx * self.side + cz].max(top);
            }
        }
        self.floor_y = t.iter().fold(self.floor_y, |f, p| f.min(p[1] - 1.0));
        self.ceiling_y = t.iter().fold(self.ceiling_y, |f, p| f.max(p[1] + 1.0));
    }

    /// Distance along the ray to the first triangle it hits, marching the XZ cells it crosses.
    fn hit(&self, o: [f32; 3], d: [f32; 3]) -> Option<f32> {
        let extent = self.side as f32 * self.cell_m;
        // Clip the ray to the grid's XZ square.
        let (mut t0, mut t1) = (0.0f32, f32::MAX);
        for k in [0, 2] {
            if d[k].abs() < 1e-12 {
                if o[k] < 0.0 || o[k] > extent {
                    return None;
                }
            } else {
                let (a, b) = ((0.0 - o[k]) / d[k], (extent - o[k]) / d[k]);
                t0 = t0.max(a.min(b));
                t1 = t1.min(a.max(b));
            }
        }
        if t0 > t1 {
            return None;
        }
        let step = self.cell_m * 0.5;
        let mut t = t0;
        // The cells tested lately (the march meets a cell again within a few steps, never after).
        let mut seen = [(i64::MIN, i64::MIN); 16];
        let mut next_seen = 0;
        while t <= t1 {
            let p = [o[0] + d[0] * t, o[2] + d[2] * t];
            let n = self.side as i64;
            let (cx, cz) = ((p[0] / self.cell_m).floor() as i64, (p[1] / self.cell_m).floor() as i64);
            let mut best: Option<f32> = None;
            for (ax, az) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)] {
                let (x, z) = (cx + ax, cz + az);
                if x < 0 || z < 0 || x >= n || z >= n || seen.contains(&(x, z)) {
                    continue;
                }
                seen[next_seen % seen.len()] = (x, z);
                next_seen += 1;
                // A hit lies in a cell its triangle is listed in and the ray crosses, at most
                // as high as the cell's top: skip a cell the ray crosses wholly above that.
                if self.above(o, d, x, z) {
                    continue;
                }
                for tri in &self.cells[x as usize * self.side + z as usize] {
                    if let Some(h) = intersect(o, d, tri) {
                        best = Some(best.map_or(h, |b: f32| b.min(h)));
                    }
                }
            }
            // Any hit will do: the test asks whether the ray meets the ground, not where first.
            if best.is_some() {
                return best;
            }
            let y = o[1] + d[1] * t;
            if (y < self.floor_y && d[1] < 0.0) || (y > self.ceiling_y && d[1] > 0.0) {
                return None;
            }
            t += step;
        }
        None
    }
}

impl Scene {
    /// Whether the ray misses cell `(x, z)`'s column or crosses it wholly above its top.
    fn above(&self, o: [f32; 3], d: [f32; 3], x: i64, z: i64) -> bool {
        let (mut a, mut b) = (0.0f32, f32::MAX);
        for (k, c) in [(0, x), (2, z)] {
            let (lo, hi) = (c as f32 * self.cell_m - 0.01, (c + 1) as f32 * self.cell_m + 0.01);
            if d[k].abs() < 1e-12 {
                if o[k] < lo || o[k] > hi {
                    return true;
                }
            } else {
                let (p, q) = ((lo - o[k]) / d[k], (hi - o[k]) / d[k]);
                a = a.max(p.min(q));
                b = b.min(p.max(q));
            }
        }
        if a > b {
            return true;
        }
        let low = (o[1] + d[1] * a).min(o[1] + d[1] * b.min(1.0e7));
        low > self.cell_top[x as usize * self.side + z as usize] + 0.01
    }
}

/// Möller–Trumbore, both faces, with a small tolerance on the edges so a ray through a shared
/// edge of two triangles counts as a hit (the rasteriser's fill rule covers that pixel).
fn intersect(o: [f32; 3], d: [f32; 3], [a, b, c]: &[[f32; 3]; 3]) -> Option<f32> {
    let sub = |p: [f32; 3], q: [f32; 3]| [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
    let cross =
        |p: [f32; 3], q: [f32; 3]| [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]];
    let dot = |p: [f32; 3], q: [f32; 3]| p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
    let (e1, e2) = (sub(*b, *a), sub(*c, *a));
    let p = cross(d, e2);
    let det = dot(e1, p);
    if det.abs() < 1e-9 {
        return None;
    }
    let inv = 1.0 / det;
    let s = sub(o, *a);
    let u = dot(s, p) * inv;
    let q = cross(s, e1);
    let v = dot(d, q) * inv;
    const EPS: f32 = 1e-4;
    if u < -EPS || v < -EPS || u + v > 1.0 + EPS {
        return None;
    }
    let t = dot(e2, q) * inv;
    (t > 0.0).then_some(t)
}

/// The triangles the vertex shader draws, through its CPU copy
/// ([`drawn_position`]): each vertex moved towards its target with the camera's distance,
/// except on a border its node's `pins` fix.
fn drawn_triangles(tree: &LodTree, id: NodeId, pins: u8, m: &LodMesh, cam: [f32; 3], scene: &mut Scene) {
    let chunk_m = tree.layout.chunk_size_m();
    let k = |p: [f32; 3]| {
        let d = ((p[0] - cam[0]).powi(2) + (p[1] - cam[1]).powi(2) + (p[2] - cam[2]).powi(2)).sqrt();
        tree.ranges.morph(id.level, d)
    };
    let pos: Vec<[f32; 3]> =
        (0..m.terrain.positions.len()).map(|i| drawn_position(id, pins, chunk_m, m, i, k)).collect();
    for tri in m.terrain.indices.chunks_exact(3) {
        scene.add([pos[tri[0] as usize], pos[tri[1] as usize], pos[tri[2] as usize]]);
    }
    let w = &m.water;
    for tri in w.indices.chunks_exact(3) {
        scene.add([w.positions[tri[0] as usize], w.positions[tri[1] as usize], w.positions[tri[2] as usize]]);
    }
}

/// Node meshes, built once each with the app's `build_node`, in parallel.
struct Meshes(HashMap<NodeId, LodMesh>);

impl Meshes {
    fn ensure(&mut self, src: &WorldSource, tree: &LodTree, ids: &[NodeId]) {
        let missing: Vec<NodeId> = ids.iter().copied().filter(|id| !self.0.contains_key(id)).collect();
        let built: Vec<(NodeId, LodMesh)> =
            missing.par_iter().map(|&id| (id, build_node(src, tree, id, Shading::Palette, false).0)).collect();
        self.0.extend(built);
    }
}

/// Holes in the frame `shown` draws from `from` towards `at`, `w`×`h` rays at the design field
/// of view: the pixels whose ray goes down into the map and hits nothing.
fn holes(
    src: &WorldSource,
    tree: &LodTree,
    meshes: &Meshes,
    shown: &[NodeId],
    from: [f32; 3],
    at: [f32; 3],
    (w, h): (usize, usize),
) -> Vec<(usize, usize)> {
    let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
    let mut scene = Scene::new(extent, 64.0);
    let pins: HashMap<NodeId, u8> = border_pins(tree, shown).into_iter().collect();
    for id in shown {
        drawn_triangles(tree, *id, pins[id], &meshes.0[id], from, &mut scene);
    }
    let pixels: Vec<(usize, usize)> = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).collect();
    pixels
        .into_par_iter()
        .filter(|&(x, y)| {
            let d = pixel_ray(from, at, (w as u32, h as u32), (x as f32 + 0.5, y as f32 + 0.5));
            if scene.hit(from, d).is_some() || d[1] >= 0.0 {
                return false;
            }
            // Missed, going down: a hole if it reaches the floor inside the map.
            let t = (scene.floor_y - from[1]) / d[1];
            let (px, pz) = (from[0] + d[0] * t, from[2] + d[2] * t);
            (0.0..=extent).contains(&px) && (0.0..=extent).contains(&pz)
        })
        .collect()
}

/// Height of the ground (or the sea) under a point, metres.
fn ground_m(src: &WorldSource, x: f32, z: f32) -> f32 {
    let col = src.layout.column_m;
    src.surface_y_m((x / col) as i64, (z / col) as i64).max(src.sea_level_m())
}

/// Fails with the poses' hole counts.
fn assert_no_holes(label: &str, found: &[(usize, usize)], rays: usize) {
    assert!(
        found.is_empty(),
        "{label}: {} of {rays} rays fall through the ground, first at {:?}",
        found.len(),
        &found[..found.len().min(8)]
    );
}

const FRAME: (usize, usize) = (128, 72);

#[test]
fn rays_through_every_pixel_hit_the_ground_from_still_poses() {
    let (src, tree) = big_world();
    let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
    let c = extent * 0.5;
    let low = |x: f32, z: f32, above: f32| [x, ground_m(src, x, z) + above, z];
    let poses: [(&str, [f32; 3], [f32; 3]); 4] = [
        ("6 km straight down", [c, 6000.0, c], [c, 0.0, c + 1.0]),
        ("6 km down at a slant", [c - 3000.0, 6000.0, c + 3000.0], [c, 0.0, c]),
        ("40 m over the coast, looking inland", low(extent * 0.1, c, 40.0), [c, 100.0, c]),
        ("above the summit, to the horizon", low(c + 200.0, c + 150.0, 30.0), [extent, 0.0, extent]),
    ];
    let mut meshes = Meshes(HashMap::new());
    for (label, from, at) in poses {
        let shown = tree.select(from);
        meshes.ensure(src, tree, &shown);
        let found = holes(src, tree, &meshes, &shown, from, at, FRAME);
        eprintln!("{label}: {} nodes, {} holes", shown.len(), found.len());
        assert_no_holes(label, &found, FRAME.0 * FRAME.1);
    }
}

/// Where two nodes' bounds touch, within this; coarser than any grid step is fine.
const TOUCH_M: f32 = 5e-3;

/// A shared border: the line `axis` = `line`, from `lo` to `hi` along the `other` axis.
struct Border {
    axis: usize,
    other: usize,
    line: f32,
    lo: f32,
    hi: f32,
}

impl Border {
    /// The border two nodes' bounds share, if they share more than a corner.
    fn between([a0, a1]: [[f32; 3]; 2], [b0, b1]: [[f32; 3]; 2]) -> Option<Self> {
        [(0usize, 2usize), (2, 0)].into_iter().find_map(|(axis, other)| {
            let line = if (a1[axis] - b0[axis]).abs() < TOUCH_M {
                a1[axis]
            } else if (a0[axis] - b1[axis]).abs() < TOUCH_M {
                a0[axis]
            } else {
                return None;
            };
            let (lo, hi) = (a0[other].max(b0[other]), a1[other].min(b1[other]));
            (hi - lo >= TOUCH_M).then_some(Self { axis, other, line, lo, hi })
        })
    }

    fn holds(&self, p: [f32; 3]) -> bool {
        (p[self.axis] - self.line).abs() < TOUCH_M
            && p[self.other] > self.lo - TOUCH_M
            && p[self.other] < self.hi + TOUCH_M
    }

    /// `m`'s triangles that touch the border; with `drawn`, only those with area (a tile's own
    /// T-junction fill against its other, finer, neighbours lies wholly on its border and draws
    /// nothing).
    fn triangles(&self, m: &LodMesh, drawn: bool) -> Vec<[u32; 3]> {
        let on = |i: u32| self.holds(m.terrain.positions[i as usize]);
        let all = m.terrain.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]);
        all.filter(|t| !(drawn && t.iter().all(|&i| on(i)))).collect()
    }

    /// The vertices of those triangles on the border.
    fn vertices(&self, m: &LodMesh, drawn: bool) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .triangles(m, drawn)
            .into_iter()
            .flatten()
            .filter(|&i| self.holds(m.terrain.positions[i as usize]))
            .map(|i| i as usize)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The edges of those triangles on the border: their two ends along it, ascending.
    fn edges(&self, m: &LodMesh, drawn: bool) -> Vec<(f32, f32)> {
        let pos = |i: u32| m.terrain.positions[i as usize];
        self.triangles(m, drawn)
            .into_iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .filter(|&(i, j)| self.holds(pos(i)) && self.holds(pos(j)))
            .map(|(i, j)| (pos(i)[self.other], pos(j)[self.other]))
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect()
    }
}

/// SPEC §3 "Borders": where a tile meets a finer neighbour, every vertex the neighbour draws on
/// the shared border is also a vertex of the coarser tile (its zero-area T-junction fill), at the
/// same place, and the two sides' heights coincide there (the finer side fully morphed, the
/// coarser side unmorphed); and every border edge the finer side draws is an edge of the coarser
/// side's triangles. A T-junction left open is a crack of a pixel or less that the ray casts above
/// slip past; this reads the meshes themselves. Tiles against tiles and tiles against Marching
/// Cubes chunks, from two poses of the 4096² island.
///
/// Places along the border must be bit-identical: the fill computes each crossing by the mesher's
/// own formula from the same column, and a rasteriser closes a T-junction only on identical
/// vertices (measured: 0 m apart; the slope scale `1 + s²` → `1 − s²` planted in the fill moves
/// them by at most two f32 steps and fails this).
#[test]
fn every_border_vertex_of_a_finer_neighbour_is_a_vertex_of_the_coarser_tile() {
    let (src, tree) = big_world();
    let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
    let c = extent * 0.5;
    let near = |x: f32, z: f32| [x, ground_m(src, x, z) + 40.0, z];
    let poses = [("6 km straight down", [c, 6000.0, c]), ("40 m over the coast", near(extent * 0.1, c))];
    let mut meshes = Meshes(HashMap::new());
    let (mut pairs, mut vertices, mut edges) = (HashMap::<(u8, u8), usize>::new(), 0usize, 0usize);
    let mut worst_dy = 0f32;
    for (label, from) in poses {
        let shown = tree.select(from);
        meshes.ensure(src, tree, &shown);
        let pins: HashMap<NodeId, u8> = border_pins(tree, &shown).into_iter().collect();
        let touching =
            shown.iter().flat_map(|&a| shown.iter().filter(move |b| b.level < a.level).map(move |&b| (a, b)));
        for (a, b) in touching {
            let Some(border) = Border::between(tree.bounds_m(a), tree.bounds_m(b)) else { continue };
            *pairs.entry((a.level, b.level)).or_default() += 1;
            // The coarser side as the shader draws it (its side pinned finer holds it unmorphed
            // and puts its T-junction fill in place); the finer side's own vertices.
            let drawn_a = unmorphed_drawn(tree, a, pins[&a], &meshes.0[&a]);
            let (ma, mb) = (&drawn_a, &meshes.0[&b]);
            let along = |p: [f32; 3]| p[border.other];
            let coarse: Vec<[f32; 3]> =
                border.vertices(ma, false).into_iter().map(|i| ma.terrain.positions[i]).collect();
            for k in border.vertices(mb, true) {
                let (p, morphed_y) = (mb.terrain.positions[k], mb.morph[k][0]);
                let Some(q) = coarse.iter().find(|q| along(**q) == along(p)) else {
                    panic!(
                        "{label}: level-{} node {b:?}'s border vertex at ({:.3}, {:.3}) m is not a vertex of its \
                         level-{} neighbour {a:?} ({} vertices on the shared border there)",
                        b.level,
                        p[0],
                        p[2],
                        a.level,
                        coarse.len()
                    )
                };
                let dy = (q[1] - morphed_y).abs();
                assert!(
                    dy < 1e-3,
                    "{label}: at ({:.3}, {:.3}) m the level-{} side stands at {} m, the level-{} side fully morphed \
                     at {morphed_y} m",
                    p[0],
                    p[2],
                    a.level,
                    q[1],
                    b.level
                );
                worst_dy = worst_dy.max(dy);
                vertices += 1;
            }
            // A rasteriser draws two meshes without a gap only where their edges are shared (the
            // fill's fan walks the border vertex to vertex).
            let coarse_edges = border.edges(ma, false);
            for e in border.edges(mb, true) {
                assert!(
                    coarse_edges.contains(&e),
                    "{label}: the level-{} node {b:?} draws a border edge from {:.3} to {:.3} m on the line {} m that \
                     its level-{} neighbour {a:?} has no edge for",
                    b.level,
                    e.0,
                    e.1,
                    border.line,
                    a.level
                );
                edges += 1;
            }
        }
    }
    let mut seen: Vec<_> = pairs.into_iter().collect();
    seen.sort();
    eprintln!(
        "borders by (coarser, finer) level: {seen:?}; {vertices} finer border vertices and {edges} edges, each \
         bit-identical on both sides; worst height gap {worst_dy} m"
    );
    assert!(seen.iter().any(|&((a, b), _)| (a, b) == (1, 0)), "a tile meets a Marching Cubes chunk: {seen:?}");
    assert!(seen.iter().any(|&((a, b), _)| b >= 1 && a == b + 1), "a tile meets a finer tile: {seen:?}");
}

/// SPEC §3 "Borders": a tile's T-junction fill draws nothing but where a finer neighbour is
/// across. Its vertices are copies of their border segment's first vertex, so on a side that is
/// not pinned finer each fill triangle has two vertices at one place, bit for bit, whatever the
/// morph factor does along the border (a fill vertex morphed as a vertex bulges out of the line,
/// and its back shows through the neighbour as a dark speck); on a side pinned finer the fill
/// vertex stands at its own place, unmorphed. Every shown coarse tile of two poses, with a morph
/// factor that changes along every border.
#[test]
fn t_junction_fill_draws_nothing_unless_a_finer_neighbour_is_across() {
    use isla::mesh::lod::FILL_MARK;
    use isla::world::display::{PIN_FINER, pin_at};
    let (src, tree) = big_world();
    let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
    let c = extent * 0.5;
    let poses = [[c, 6000.0, c], [extent * 0.1, ground_m(src, extent * 0.1, c) + 40.0, c]];
    let chunk_m = tree.layout.chunk_size_m();
    let mut meshes = Meshes(HashMap::new());
    let (mut collapsed, mut placed) = (0usize, 0usize);
    for from in poses {
        let shown = tree.select(from);
        meshes.ensure(src, tree, &shown);
        let pins: HashMap<NodeId, u8> = border_pins(tree, &shown).into_iter().collect();
        for id in shown.iter().filter(|id| id.level >= 1) {
            let m = &meshes.0[id];
            let k = |p: [f32; 3]| (p[0] * 0.0137 + p[2] * 0.0071).sin() * 0.5 + 0.5;
            let fill = |i: usize| m.morph_colors[i][3] == FILL_MARK;
            for t in m.terrain.indices.chunks_exact(3) {
                let Some(&f) = t.iter().find(|&&i| fill(i as usize)) else { continue };
                let drawn: Vec<[f32; 3]> =
                    t.iter().map(|&i| drawn_position(*id, pins[id], chunk_m, m, i as usize, k)).collect();
                let own = m.morph_colors[f as usize];
                if pin_at(*id, pins[id], chunk_m, own[0], own[2]) == PIN_FINER {
                    assert_eq!(drawn[t.iter().position(|&i| i == f).unwrap()], [own[0], own[1], own[2]]);
                    placed += 1;
                } else {
                    let bits = |p: &[f32; 3]| p.map(f32::to_bits);
                    let (a, b, c) = (bits(&drawn[0]), bits(&drawn[1]), bits(&drawn[2]));
                    assert!(
                        a == b || b == c || a == c,
                        "{id:?} (pins {:08b}): a fill triangle off a side pinned finer draws {drawn:?}",
                        pins[id]
                    );
                    collapsed += 1;
                }
            }
        }
    }
    eprintln!("fill triangles: {collapsed} with no area, {placed} in place against a finer neighbour");
    assert!(collapsed > 0 && placed > 0);
}

/// `m` with its vertices where the vertex shader draws them ([`drawn_position`]) with the
/// camera's distance morphing nothing: only node `id`'s border `pins` move them.
fn unmorphed_drawn(tree: &LodTree, id: NodeId, pins: u8, m: &LodMesh) -> LodMesh {
    let chunk_m = tree.layout.chunk_size_m();
    let mut out = m.clone();
    for (i, p) in out.terrain.positions.iter_mut().enumerate() {
        *p = drawn_position(id, pins, chunk_m, m, i, |_| 0.0);
    }
    out
}

/// A fast flight: 300 m a frame at 120 m over the island.
///
/// - Settled (each frame's target built): no ray falls through.
/// - Streaming, with a budget of builds a frame, so frames show a mixture of the old screen and
///   the new target ([`display_set`]): no ray falls through, neither a missing or unbuilt node
///   nor a crack where a node kept from the last screen meets one of another level. Without the
///   crack rule across kept nodes (no border pins, no waiting replacement), two rays of 92,160
///   fell through such borders (a kept level 4 beside a level 3 the camera came nearer to, and a
///   kept level 4 beside a new level 2).
const FLIGHT_FRAMES: usize = 10;

#[test]
fn rays_through_every_pixel_hit_the_ground_in_a_fast_flight() {
    let (src, tree) = big_world();
    let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
    let mut meshes = Meshes(HashMap::new());
    let mut built: HashSet<NodeId> = HashSet::new();
    let mut screen: HashSet<NodeId> = HashSet::new();
    const BUILDS_PER_FRAME: usize = 40;
    let (mut holes_total, mut kept_frames) = (0, 0);
    for frame in 0..FLIGHT_FRAMES {
        let (x, z) = (extent * 0.15 + 300.0 * frame as f32, extent * 0.45);
        let from = [x, ground_m(src, x, z) + 120.0, z];
        let at = [x + 400.0, from[1] - 150.0, z + 40.0];
        let target = tree.select(from);
        let target_set: HashSet<NodeId> = target.iter().copied().collect();
        meshes.ensure(src, tree, &target);
        let settled = holes(src, tree, &meshes, &target, from, at, FRAME);
        assert_no_holes(&format!("frame {frame}, settled"), &settled, FRAME.0 * FRAME.1);

        let fresh: Vec<NodeId> = target.iter().copied().filter(|id| !built.contains(id)).collect();
        built.extend(if frame == 0 { &fresh[..] } else { &fresh[..fresh.len().min(BUILDS_PER_FRAME)] });
        let resident = |id: NodeId| built.contains(&id);
        let shown = display_set(tree, &target, &resident, &resident, &screen, 64);
        meshes.ensure(src, tree, &shown);
        let found = holes(src, tree, &meshes, &shown, from, at, FRAME);
        let pins: HashMap<NodeId, u8> = border_pins(tree, &shown).into_iter().collect();
        for &(px, py) in &found {
            let d = pixel_ray(from, at, (FRAME.0 as u32, FRAME.1 as u32), (px as f32 + 0.5, py as f32 + 0.5));
            let mut t = 0.0;
            while from[1] + d[1] * t > ground_m(src, from[0] + d[0] * t, from[2] + d[2] * t) && t < 1e5 {
                t += 1.0;
            }
            let g = [from[0] + d[0] * t, from[1] + d[1] * t, from[2] + d[2] * t];
            eprintln!("HOLE at pixel {px},{py} ground {g:?}");
            let c = src.layout.chunk_size_m();
            for id in &shown {
                let [x0, z0, x1, z1] = id.chunk_rect().map(|v| v as f32 * c);
                if g[0] >= x0 - 40.0 && g[0] <= x1 + 40.0 && g[2] >= z0 - 40.0 && g[2] <= z1 + 40.0 {
                    eprintln!(
                        "  node {id:?} rect [{x0},{z0},{x1},{z1}] target {} old {} pins {:08b}",
                        target_set.contains(id),
                        screen.contains(id),
                        pins[id]
                    );
                }
            }
        }
        let on_target = shown.iter().filter(|id| target_set.contains(id)).count();
        let kept = shown.len() - on_target;
        eprintln!(
            "frame {frame}: {} nodes shown ({kept} kept from the last screen), {} holes",
            shown.len(),
            found.len()
        );
        kept_frames += usize::from(kept > 0);
        holes_total += found.len();
        screen = shown.into_iter().collect();
    }
    eprintln!("fast flight: {holes_total} rays of {} fall through while streaming", FLIGHT_FRAMES * FRAME.0 * FRAME.1);
    assert!(kept_frames >= 3, "the flight streams: only {kept_frames} frames show kept nodes");
    assert_eq!(holes_total, 0, "rays fell through the streaming frames");
}
