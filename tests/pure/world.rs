//! World server rules (SPEC §3), meshing (SPEC §4) and forge determinism (SPEC §2), on small
//! synthetic blueprints.

use isla::blueprint::testing::IslandBuilder;
use isla::blueprint::*;
use isla::mesh::{Mesher, TerrainMesh, WaterMesh, mesh_water, water_colour};
use isla::world::*;
use std::sync::Arc;

const N: u32 = 64;
const MPR: f32 = 251.0;
const SEA: f32 = 0.1;

/// A 64² blueprint: a bowl whose floor sits below sea in the middle, ocean around it.
fn bowl() -> Blueprint {
    let n = N as usize;
    let mut heights = vec![0f32; n * n];
    for x in 0..n {
        for y in 0..n {
            let d = (((x as f32 - 32.0).powi(2) + (y as f32 - 32.0).powi(2)).sqrt()) / 32.0;
            heights[x * n + y] = 0.3 * (1.0 - d).max(0.0);
        }
    }
    IslandBuilder::new(N, heights).seed(1).sea_level_raw(SEA).metres_per_raw(MPR).metres_per_pixel(2.0).build()
}

fn ocean_body(level: f32) -> WaterBody {
    WaterBody {
        id: 1,
        kind: WaterType::Ocean,
        salinity: Salinity::Salt,
        surface_level_raw: level,
        pixel_count: 1,
        centroid_x: 0.0,
        centroid_y: 0.0,
    }
}

fn with_water(mut bp: Blueprint, f: impl Fn(usize, f32) -> (u16, u16), bodies: Vec<WaterBody>) -> Blueprint {
    let (ids, surf): (Vec<u16>, Vec<u16>) = bp.heights_raw.iter().enumerate().map(|(i, &h)| f(i, h)).unzip();
    bp.water = Some(Water { body_ids: ids, bodies: Some(bodies), surface: Some(surf) });
    bp
}

/// A river network of one river, body `body_id`, running along Y at `x` across the 64² map into
/// the ocean (body 1).
fn river_along_y(body_id: u16, x: f32) -> RiverNetwork {
    RiverNetwork {
        dials: Default::default(),
        rivers: vec![River {
            body_id,
            order: 1,
            mouth_body_id: 1,
            source: [x, 0.5],
            mouth: [x, 63.5],
            length_m: 128.0,
            course: vec![],
        }],
    }
}

fn column(bp: &Blueprint, x: u32, y: u32) -> Option<WaterColumn> {
    let src = WaterSource::new(bp);
    water_column(bp, &src, x, y, 500.0)
}

#[test]
fn wsrf_level_is_the_authority() {
    let bp = with_water(bowl(), |_, _| (1, water_level::encode(0.25)), vec![ocean_body(SEA)]);
    let c = column(&bp, 0, 0).unwrap();
    assert!((c.level_raw - 0.25).abs() < 1e-4);
    assert!((c.water_surface_y_m - 0.25 * MPR).abs() < 0.05);
    assert!(!c.seam);
}

#[test]
fn sentinel_falls_back_to_the_body_level() {
    let bp = with_water(bowl(), |_, _| (1, water_level::NO_WATER), vec![ocean_body(0.12)]);
    assert!((column(&bp, 0, 0).unwrap().level_raw - 0.12).abs() < 1e-6);
}

#[test]
fn unknown_body_stays_dry() {
    let bp = with_water(bowl(), |_, _| (7, water_level::NO_WATER), vec![ocean_body(SEA)]);
    assert_eq!(column(&bp, 0, 0), None, "never guess a level");
    // Even when WSRF holds a level: the table does not know body 7, so the column stays dry.
    let bp = with_water(bowl(), |_, _| (7, water_level::encode(0.2)), vec![ocean_body(SEA)]);
    assert_eq!(column(&bp, 0, 0), None, "a WSRF level for a body WBTB lacks is not trusted");
    // Without any WBTB table, WSRF alone decides.
    let mut bp = with_water(bowl(), |_, _| (7, water_level::encode(0.2)), vec![]);
    bp.water.as_mut().unwrap().bodies = None;
    assert!((column(&bp, 0, 0).unwrap().level_raw - 0.2).abs() < 1e-4);
}

#[test]
fn seam_rule_fires_only_where_wbid_is_zero_and_ground_is_below_the_ocean() {
    // WBID says dry everywhere; the ocean body exists at SEA. Columns whose rendered ground is
    // below SEA are the seam; the rest stay dry.
    let bp = with_water(bowl(), |_, _| (0, 0), vec![ocean_body(SEA)]);
    let src = WaterSource::new(&bp);
    for x in 0..N {
        for y in 0..N {
            let h = bp.height_raw(x, y);
            let rendered = (h * MPR).max(FLOOR_Y_M);
            let c = water_column(&bp, &src, x, y, 500.0);
            if rendered < SEA * MPR {
                let c = c.expect("below the ocean: wet");
                assert!(c.seam && c.level_raw == SEA);
            } else {
                assert_eq!(c, None);
            }
        }
    }
}

#[test]
fn seam_rule_never_fires_without_an_ocean_body() {
    let bp = with_water(bowl(), |_, _| (0, 0), vec![]);
    assert_eq!(column(&bp, 0, 0), None);
}

#[test]
fn true_depth_comes_from_blueprint_heights_even_under_the_clamped_floor() {
    // Height 0 renders at the 2 m floor, but the depth is measured to the blueprint's 0 m.
    let bp = with_water(bowl(), |_, _| (1, water_level::encode(SEA)), vec![ocean_body(SEA)]);
    let c = column(&bp, 0, 0).unwrap();
    assert_eq!(bp.height_raw(0, 0), 0.0);
    assert!((c.true_depth_m - SEA * MPR).abs() < 0.01, "{}", c.true_depth_m);
    assert_eq!(terrain_y_m(&bp, 0, 0), FLOOR_Y_M);
}

#[test]
fn water_surface_is_clamped_to_the_world() {
    let bp = with_water(bowl(), |_, _| (1, water_level::encode(1.9)), vec![ocean_body(SEA)]);
    let src = WaterSource::new(&bp);
    let c = water_column(&bp, &src, 0, 0, 100.0).unwrap();
    assert_eq!(c.water_surface_y_m, 100.0 - WATER_TOP_MARGIN_M);
    let low = with_water(bowl(), |_, _| (1, water_level::encode(0.0)), vec![ocean_body(SEA)]);
    assert_eq!(column(&low, 0, 0).unwrap().water_surface_y_m, FLOOR_Y_M);
}

#[test]
fn chunk_without_wet_columns_has_no_water_data() {
    let src = WorldSource::new(Arc::new(bowl()));
    for c in src.layout.all_chunks() {
        assert!(build_chunk(&src, c).water.is_none());
    }
}

#[test]
fn only_sections_meeting_the_surface_carry_data() {
    let src = WorldSource::new(Arc::new(bowl()));
    for coord in src.layout.all_chunks() {
        let c = build_chunk(&src, coord);
        assert!(!c.sections.is_empty());
        for s in &c.sections {
            let has_solid = s.density.iter().any(|&d| d < 0.0);
            let has_air = s.density.iter().any(|&d| d >= 0.0);
            assert!(has_solid && has_air, "section {} of {:?} does not meet the surface", s.index, coord);
        }
    }
}

#[test]
fn building_a_chunk_is_deterministic_across_threads() {
    let bp = with_water(
        bowl(),
        |_, h| {
            if h < SEA { (1, water_level::encode(SEA)) } else { (0, 0) }
        },
        vec![ocean_body(SEA)],
    );
    let src = Arc::new(WorldSource::new(Arc::new(bp)));
    // The server builds chunks in parallel: every chunk built on a pool of eight threads, in
    // whatever order the pool takes them, equals the same chunk built alone on one thread.
    use rayon::prelude::*;
    let coords: Vec<ChunkCoord> = src.layout.all_chunks().collect();
    let pool = |n: usize| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
    let one: Vec<ChunkData> = pool(1).install(|| coords.iter().map(|&c| build_chunk(&src, c)).collect());
    let many: Vec<ChunkData> = pool(8).install(|| coords.par_iter().map(|&c| build_chunk(&src, c)).collect());
    assert!(coords.len() >= 4);
    assert_eq!(one, many);
}

fn mesh_of(src: &WorldSource, coord: ChunkCoord) -> TerrainMesh {
    let mut m = TerrainMesh::default();
    Mesher::new().mesh_chunk(&build_chunk(src, coord), &mut m);
    m
}

#[test]
fn neighbouring_chunks_share_border_vertices_exactly() {
    let src = WorldSource::new(Arc::new(bowl()));
    let a = mesh_of(&src, ChunkCoord::new(0, 0));
    let b = mesh_of(&src, ChunkCoord::new(1, 0));
    let border_x = 32.0 * src.layout.column_m;
    let on = |m: &TerrainMesh| {
        let mut v: Vec<[u32; 3]> = m
            .positions
            .iter()
            .filter(|p| p[0] == border_x)
            .map(|p| [p[0].to_bits(), p[1].to_bits(), p[2].to_bits()])
            .collect();
        v.sort();
        v
    };
    let (va, vb) = (on(&a), on(&b));
    assert!(!va.is_empty());
    assert_eq!(va, vb, "border vertices coincide bit for bit");
}

#[test]
fn mesh_is_deterministic_and_normals_face_up_on_a_heightfield() {
    let src = WorldSource::new(Arc::new(bowl()));
    let a = mesh_of(&src, ChunkCoord::new(0, 1));
    let b = mesh_of(&src, ChunkCoord::new(0, 1));
    assert_eq!(a, b);
    // The bowl is a hill rising towards (32, 32): on its flanks the gradient normals lean away
    // from the summit, and they point up (y is 1/√(1 + slope²) by construction, so that alone
    // would prove nothing).
    let summit = [32.0 * 2.0, 32.0 * 2.0];
    let mut leaning = 0;
    for (p, n) in a.positions.iter().zip(&a.normals) {
        let (dx, dz) = (p[0] - summit[0], p[2] - summit[1]);
        let horizontal = (n[0] * n[0] + n[2] * n[2]).sqrt();
        if horizontal > 0.05 && (dx * dx + dz * dz).sqrt() > 4.0 {
            assert!(n[0] * dx + n[2] * dz > 0.0, "normal {n:?} at {p:?} leans towards the summit");
            leaning += 1;
        }
    }
    assert!(leaning > 100, "{leaning} vertices on the flanks");
    // Front faces face the air: each triangle's winding normal agrees with the density-gradient
    // normals at its corners (degenerate, zero-area triangles aside).
    let (mut agree, mut degenerate) = (0, 0);
    for t in a.indices.chunks(3) {
        let [p0, p1, p2] = [a.positions[t[0] as usize], a.positions[t[1] as usize], a.positions[t[2] as usize]];
        let e1 = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
        let e2 = [p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]];
        let n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if len < 1e-6 {
            degenerate += 1;
            continue;
        }
        let vn = t.iter().fold([0f32; 3], |s, &i| {
            let v = a.normals[i as usize];
            [s[0] + v[0], s[1] + v[1], s[2] + v[2]]
        });
        if n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] > 0.0 {
            agree += 1;
        }
    }
    assert_eq!(agree + degenerate, a.triangle_count(), "{degenerate} degenerate");
}

#[test]
fn water_sheet_rules() {
    // Column (0,0)'s cell: only corner (0,0) is wet, at 10 m with depth 5 m; the others dry.
    let bp = with_water(bowl(), |_, _| (0, 0), vec![]);
    let src = WorldSource::new(Arc::new(bp));
    let mut chunk = build_chunk(&src, ChunkCoord::new(0, 0));
    assert!(chunk.water.is_none());
    let mut out = WaterMesh::default();
    mesh_water(&chunk, &mut out);
    assert!(out.is_empty(), "no sheet for a chunk without water");

    let mut cols = vec![None; PADDED * PADDED];
    let wet =
        |y: f32, d: f32| Some(WaterColumn { level_raw: y / MPR, water_surface_y_m: y, true_depth_m: d, seam: false });
    cols[ChunkData::column_index(0, 0)] = wet(10.0, 5.0);
    cols[ChunkData::column_index(1, 1)] = wet(12.0, 70.0);
    chunk.water = Some(ChunkWater {
        columns: cols,
        bank_y_m: vec![f32::NEG_INFINITY; PADDED * PADDED],
        wet_columns: 2,
        seam_columns: 0,
        max_depth_m: 70.0,
        surface_y_range_m: [10.0, 12.0],
    });
    mesh_water(&chunk, &mut out);
    // Cells touching a wet corner: (0,0) [both], (0,1),(1,0),(1,1) [column (1,1)] → 4 quads.
    assert_eq!(out.indices.len(), 4 * 6);
    // Flat cells face straight up; the sloped one (cell (0,0)) tilts toward its low corner.
    assert!(out.normals[4..].iter().all(|n| *n == [0.0, 1.0, 0.0]));
    let tilt = out.normals[0];
    assert!(tilt[1] > 0.8 && tilt[0] < 0.0 && tilt[2] < 0.0, "{tilt:?}");
    // Every triangle is wound counter-clockwise from above; the cells with one wet corner are flat.
    for (q, t) in out.indices.chunks(3).enumerate() {
        let [p0, p1, p2] = [out.positions[t[0] as usize], out.positions[t[1] as usize], out.positions[t[2] as usize]];
        if q >= 2 {
            assert!(p0[1] == p1[1] && p1[1] == p2[1], "flat");
        }
        let ny = (p1[2] - p0[2]) * (p2[0] - p0[0]) - (p1[0] - p0[0]) * (p2[2] - p0[2]);
        assert!(ny > 0.0, "faces up");
    }
    // Cell (0,0) has two wet corners at different levels: each at its own level, the dry ones at
    // the highest (12 m); coloured by the deepest (70 m).
    let ys: Vec<f32> = out.positions[..4].iter().map(|p| p[1]).collect();
    assert_eq!(ys, vec![10.0, 12.0, 12.0, 12.0], "corners (0,0), (0,1), (1,1), (1,0)");
    assert_eq!(out.colors[0], water_colour(70.0));
    assert_eq!(water_colour(70.0), water_colour(60.0), "ramp bottoms out at 60 m");
    assert!(water_colour(0.0)[3] < water_colour(30.0)[3]);
    assert!((water_colour(0.0)[3] - 0.62).abs() < 1e-6 && (water_colour(60.0)[3] - 0.97).abs() < 1e-6);
}

#[test]
fn forged_water_sections_agree() {
    let bp = isla::forge::forge(&isla::forge::ForgeDials::new(5, 128), |_| {}).unwrap();
    let w = bp.water.as_ref().unwrap();
    let surf = w.surface.as_ref().unwrap();
    let n = bp.map_size;
    for (&id, &q) in w.body_ids.iter().zip(surf) {
        assert_eq!(id == 0, q == water_level::NO_WATER, "WSRF non-zero exactly where WBID is");
        if id != 0 {
            let level = w.body(id).expect("every id is in WBTB").surface_level_raw;
            assert_eq!(water_level::decode(q).unwrap(), water_level::decode(water_level::encode(level)).unwrap());
        }
    }
    // The ocean touches the border; no lake does.
    let border = |i: usize| {
        let (x, y) = (i as u32 / n, i as u32 % n);
        x == 0 || y == 0 || x == n - 1 || y == n - 1
    };
    assert!((0..w.body_ids.len()).any(|i| border(i) && w.body_ids[i] == 1));
    assert!((0..w.body_ids.len()).all(|i| !border(i) || w.body_ids[i] <= 1));
}

/// A chunk whose single section holds an arbitrary density function (for mesher properties).
fn chunk_with_density(f: impl Fn(f32, f32, f32) -> f32) -> ChunkData {
    let mut density = vec![0f32; PADDED * PADDED * PADDED];
    for x in 0..PADDED {
        for z in 0..PADDED {
            for y in 0..PADDED {
                density[(x * PADDED + z) * PADDED + y] = f(x as f32, y as f32, z as f32);
            }
        }
    }
    ChunkData {
        coord: ChunkCoord::new(0, 0),
        origin_px: (0, 0),
        column_m: 1.0,
        voxel_m: 1.0,
        surface_y_m: vec![0.0; PADDED * PADDED],
        gradient: vec![[0.0; 2]; PADDED * PADDED],
        biome: vec![3; PADDED * PADDED],
        road: vec![0; PADDED * PADDED],
        paint: vec![[2.0, 0.0]; PADDED * PADDED],
        sections: vec![SectionData { index: 0, material: vec![2; density.len()], density }],
        water: None,
    }
}

#[test]
fn marching_cubes_surface_is_closed_and_consistently_wound() {
    // Blobby shapes exercise all kinds of cases, ambiguous faces included.
    type Shape = Box<dyn Fn(f32, f32, f32) -> f32>;
    let shapes: Vec<Shape> = vec![
        Box::new(|x, y, z| ((x - 16.0).powi(2) + (y - 16.0).powi(2) + (z - 16.0).powi(2)).sqrt() - 11.3),
        Box::new(|x, y, z| {
            (x * 0.9).sin() + (y * 0.7).sin() + (z * 1.1).cos() + 0.3
                - 10.0 * f32::max(0.0, ((x - 16.0).powi(2) + (y - 16.0).powi(2) + (z - 16.0).powi(2)).sqrt() - 13.0)
                    / 13.0
        }),
    ];
    for (k, f) in shapes.iter().enumerate() {
        // Outside the 1..31 box is air so the surface closes inside the section.
        let chunk = chunk_with_density(|x, y, z| {
            if x < 1.0 || y < 1.0 || z < 1.0 || x > 31.0 || y > 31.0 || z > 31.0 { 1.0 } else { f(x, y, z) }
        });
        let mut m = TerrainMesh::default();
        Mesher::new().mesh_chunk(&chunk, &mut m);
        assert!(m.triangle_count() > 100, "shape {k}");
        let mut directed = std::collections::HashMap::new();
        for t in m.indices.chunks(3) {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                *directed.entry((a, b)).or_insert(0) += 1;
            }
        }
        for (&(a, b), &count) in &directed {
            assert_eq!(count, 1, "shape {k}: edge {a}->{b} used {count} times in one direction");
            assert_eq!(directed.get(&(b, a)), Some(&1), "shape {k}: edge {a}->{b} has no twin: a hole");
        }
    }
}

#[test]
fn marching_cubes_table_covers_every_case() {
    use isla::mesh::tables::{EDGES, case_table};
    let t = case_table();
    assert!(t.case(0).is_empty() && t.case(255).is_empty());
    for case in 1..255u8 {
        let crossing: Vec<usize> = (0..12)
            .filter(|&e| {
                let (a, b) = EDGES[e];
                (case >> a & 1) != (case >> b & 1)
            })
            .collect();
        let mut used: Vec<usize> = t.case(case).iter().flatten().map(|&e| e as usize).collect();
        used.sort();
        used.dedup();
        assert_eq!(used, crossing, "case {case:#04x} uses exactly its crossing edges");
    }
    // One solid corner: one triangle, facing away from the corner.
    assert_eq!(t.case(1).len(), 1);
}

#[test]
fn streaming_wants_nearest_chunks_first_and_unloads_with_hysteresis() {
    let src = WorldSource::new(Arc::new(bowl()));
    let l = src.layout;
    let s = l.chunk_size_m();
    let at = [0.5 * s, 0.5 * s];
    let wanted = chunks_within(&l, at, 2.0 * s);
    assert_eq!(wanted[0], ChunkCoord::new(0, 0), "the chunk under the viewer comes first");
    let d: Vec<f32> = wanted.iter().map(|&c| chunk_distance_m(&l, c, at)).collect();
    assert!(d.windows(2).all(|w| w[0] <= w[1]), "nearest first");
    assert!(wanted.iter().all(|&c| l.contains(c)), "never outside the map");
    // A chunk just beyond the radius is not wanted, but not unloaded either until the margin.
    let r = 0.6 * s;
    let c = ChunkCoord::new(1, 0); // 0.5 s away from the viewer
    assert!(chunks_within(&l, at, r).contains(&c));
    assert!(!should_unload(&l, c, at, r));
    assert!(!should_unload(&l, c, at, 0.45 * s), "inside the hysteresis margin");
    assert!(should_unload(&l, c, at, 0.4 * s));
}

#[test]
fn meshing_two_by_two_chunks_gives_the_same_surface_as_one_block() {
    use isla::mesh::marching_cubes::crossing_t;
    // A 2 × 2-chunk area, 2 sections tall, of a wavy terrain, meshed as four chunks (each two
    // sections) and as one 65 × 65 × 65 block. Triangles compared as sets of exact positions.
    let f = |x: f32, y: f32, z: f32| {
        y - (30.0 + 8.0 * (x * 0.15).sin() + 6.0 * (z * 0.11).cos() + 3.0 * ((x + z) * 0.4).sin())
    };
    let to_key = |p: [f32; 3]| [p[0].to_bits(), p[1].to_bits(), p[2].to_bits()];
    let tri_set = |m: &TerrainMesh| {
        let mut v: Vec<[[u32; 3]; 3]> = m
            .indices
            .chunks(3)
            .map(|t| {
                let mut tri = [
                    to_key(m.positions[t[0] as usize]),
                    to_key(m.positions[t[1] as usize]),
                    to_key(m.positions[t[2] as usize]),
                ];
                // Same triangle whatever vertex it starts from (keep the winding).
                let k = (0..3).min_by_key(|&i| tri[i]).unwrap();
                tri.rotate_left(k);
                tri
            })
            .collect();
        v.sort();
        v
    };

    let mut mesher = Mesher::new();
    let mut chunks_mesh = TerrainMesh::default();
    for cx in 0..2 {
        for cz in 0..2 {
            for sy in 0..2 {
                let (ox, oy, oz) = (cx * 32, sy * 32, cz * 32);
                let mut d = vec![0f32; PADDED * PADDED * PADDED];
                for x in 0..PADDED {
                    for z in 0..PADDED {
                        for y in 0..PADDED {
                            d[(x * PADDED + z) * PADDED + y] = f((ox + x) as f32, (oy + y) as f32, (oz + z) as f32);
                        }
                    }
                }
                mesher.mesh_grid(&d, [PADDED; 3], &mut chunks_mesh, |lo, axis, out| {
                    let mut hi = lo;
                    hi[axis] += 1;
                    let at = |p: [usize; 3]| d[(p[0] * PADDED + p[2]) * PADDED + p[1]];
                    let t = crossing_t(at(lo), at(hi));
                    let mut p = [(ox + lo[0]) as f32, (oy + lo[1]) as f32, (oz + lo[2]) as f32];
                    p[axis] += t;
                    out.positions.push(p);
                });
            }
        }
    }
    let n = 65;
    let mut d = vec![0f32; n * n * n];
    for x in 0..n {
        for z in 0..n {
            for y in 0..n {
                d[(x * n + z) * n + y] = f(x as f32, y as f32, z as f32);
            }
        }
    }
    let mut block_mesh = TerrainMesh::default();
    mesher.mesh_grid(&d, [n; 3], &mut block_mesh, |lo, axis, out| {
        let mut hi = lo;
        hi[axis] += 1;
        let at = |p: [usize; 3]| d[(p[0] * n + p[2]) * n + p[1]];
        let t = crossing_t(at(lo), at(hi));
        let mut p = [lo[0] as f32, lo[1] as f32, lo[2] as f32];
        p[axis] += t;
        out.positions.push(p);
    });
    let (a, b) = (tri_set(&chunks_mesh), tri_set(&block_mesh));
    assert!(a.len() > 1000);
    assert_eq!(a.len(), b.len(), "same triangle count: no doubled walls, no missing strips");
    assert!(a == b, "the chunked surface is the block's surface, triangle for triangle");
}

// ---------------------------------------------------------------------------------------------
// Level of detail (SPEC §3 "Level of detail", §4): selection, morph, borders, error, water.

pub(crate) mod lod {
    use isla::mesh::Shading;
    use isla::mesh::lod::{LodMesh, mc_morph_targets, mesh_tile};
    use isla::world::lod::{DESIGN_FOV_RAD, DESIGN_HEIGHT_PX, LodTree, NodeId};
    use isla::world::*;
    use std::collections::HashMap;
    use std::sync::{Arc, OnceLock};

    /// The quadtree's addressing (SPEC §3), checked against areas rather than against its own
    /// arithmetic: a node covers the square of chunks `chunk_rect`; it contains another exactly
    /// when the other's square lies inside its own (no finer node contains a coarser one); two
    /// nodes overlap exactly when their squares share a chunk; a node's four children tile its
    /// square and have it as their parent. Every pair of nodes of levels 0–4 over 16 × 16 chunks.
    #[test]
    fn a_nodes_family_is_the_squares_it_covers() {
        let nodes: Vec<NodeId> = (0..=4u8)
            .flat_map(|l| {
                let per = 16 >> l;
                (0..per).flat_map(move |x| (0..per).map(move |z| NodeId::new(l, x, z)))
            })
            .collect();
        let inside = |a: [i32; 4], b: [i32; 4]| b[0] >= a[0] && b[1] >= a[1] && b[2] <= a[2] && b[3] <= a[3];
        let share = |a: [i32; 4], b: [i32; 4]| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
        for &a in &nodes {
            let ra = a.chunk_rect();
            let side = 1 << a.level;
            assert_eq!(ra, [a.x * side, a.z * side, a.x * side + side, a.z * side + side], "{a:?}'s square");
            for &b in &nodes {
                let rb = b.chunk_rect();
                assert_eq!(a.contains(b), inside(ra, rb), "{a:?} contains {b:?}");
                assert_eq!(a.overlaps(b), share(ra, rb), "{a:?} overlaps {b:?}");
            }
            if a.level > 0 {
                let kids = a.children();
                let area: i32 = kids.iter().map(|k| (k.chunk_rect()[2] - k.chunk_rect()[0]).pow(2)).sum();
                assert_eq!(area, side * side, "{a:?}'s children cover its area");
                for (i, k) in kids.iter().enumerate() {
                    assert_eq!((k.level, k.parent()), (a.level - 1, a), "{a:?}'s child {k:?}");
                    assert!(inside(ra, k.chunk_rect()), "{k:?} inside {a:?}");
                    for k2 in &kids[i + 1..] {
                        assert!(!share(k.chunk_rect(), k2.chunk_rect()), "{k:?} and {k2:?} apart");
                    }
                }
            }
        }
    }

    /// The default island and its tree, built once for this binary.
    pub(crate) fn default_world() -> &'static (WorldSource, LodTree) {
        static W: OnceLock<(WorldSource, LodTree)> = OnceLock::new();
        W.get_or_init(|| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("blueprints/default.dat");
            let src = WorldSource::new(Arc::new(isla::blueprint::read_file(&path).unwrap()));
            let tree = LodTree::new(&src);
            (src, tree)
        })
    }

    /// Deterministic pseudo-random cameras over and around the island, low and high.
    pub(crate) fn cameras(src: &WorldSource, n: usize) -> Vec<[f32; 3]> {
        let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
        let mut s = 0x9E37_79B9u32;
        let mut r = move || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s as f32 / u32::MAX as f32
        };
        (0..n)
            .map(|i| {
                let h = if i % 3 == 0 { 5.0 + 60.0 * r() } else { 20.0 + 4000.0 * r() * r() };
                [(r() * 1.4 - 0.2) * extent, h + 100.0 * r(), (r() * 1.4 - 0.2) * extent]
            })
            .collect()
    }

    fn mesh_node(src: &WorldSource, tree: &LodTree, id: NodeId) -> LodMesh {
        let mut m = LodMesh::default();
        if id.level == 0 {
            let data = build_chunk(src, ChunkCoord::new(id.x, id.z));
            Mesher::new().mesh_chunk(&data, &mut m.terrain);
            (m.morph, m.morph_colors) = mc_morph_targets(src, id, tree.top_level, Shading::Palette, &m.terrain);
            mesh_water(&data, &mut m.water);
        } else {
            mesh_tile(src, id, tree.top_level, Shading::Palette, &mut m);
        }
        m
    }

    use isla::mesh::{Mesher, mesh_water};

    /// The CPU copy of the vertex shader: vertex positions as drawn from `cam`.
    fn morphed(tree: &LodTree, id: NodeId, m: &LodMesh, cam: [f32; 3]) -> Vec<[f32; 3]> {
        m.terrain
            .positions
            .iter()
            .zip(&m.morph)
            .map(|(p, t)| {
                let d = ((p[0] - cam[0]).powi(2) + (p[1] - cam[1]).powi(2) + (p[2] - cam[2]).powi(2)).sqrt();
                let k = tree.ranges.morph(id.level, d);
                let y = if k >= 1.0 { t[0] } else { p[1] + (t[0] - p[1]) * k };
                [p[0], y, p[2]]
            })
            .collect()
    }

    /// SPEC §3 "Morph": a vertex of level k moves towards its parent's surface over
    /// `[0.9 · range(k), range(k)]` of its distance to the camera, linearly (the vertex shader's
    /// formula; `LodRanges::morph` is its CPU copy, which the crack and hole tests drive).
    #[test]
    fn the_morph_factor_runs_over_the_outer_tenth_of_each_range() {
        let (_, tree) = default_world();
        for level in 0..=tree.top_level {
            let r = tree.ranges.range_m(level);
            let k = |f: f32| tree.ranges.morph(level, f * r);
            assert_eq!(k(0.0), 0.0, "level {level}: morphed at the camera");
            assert_eq!(k(0.9), 0.0, "level {level}: morphing before 0.9 · range");
            for (f, want) in [(0.925, 0.25), (0.95, 0.5), (0.975, 0.75)] {
                assert!((k(f) - want).abs() < 1e-3, "level {level}: morph {} at {f} · range, not {want}", k(f));
            }
            assert_eq!(k(1.0), 1.0, "level {level}: not fully morphed at its range");
            assert_eq!(k(3.0), 1.0, "level {level}: beyond its range");
        }
    }

    /// SPEC §3 "Selection": the tree holds a node exactly where it has a chunk inside the world,
    /// at the root's level or below, nothing around the world and nothing above the root.
    #[test]
    fn the_tree_holds_exactly_the_nodes_over_the_world() {
        let (src, tree) = default_world();
        let n = src.layout.chunks_per_side as i32;
        let mut held = 0;
        for level in 0..=tree.top_level + 1 {
            let span = 1i32 << level;
            let across = (n + span - 1) / span;
            for x in -2..across + 2 {
                for z in -2..across + 2 {
                    let inside = |v: i32| v * span + span > 0 && v * span < n;
                    let want = level <= tree.top_level && inside(x) && inside(z);
                    assert_eq!(tree.exists(NodeId::new(level, x, z)), want, "node ({level}, {x}, {z})");
                    held += want as usize;
                }
            }
        }
        assert!(held > (n * n) as usize, "only {held} nodes");
    }

    /// SPEC §3 "Selection": a node's bounds are the min/max of the surface it may draw: every
    /// column under it (its carved ground, and its water surface where wet) lies inside them. The
    /// small island, every node of every level.
    #[test]
    fn a_nodes_height_bounds_hold_every_column_under_it() {
        let (src, tree) = small_world();
        let map = src.layout.map_size as i64;
        let (cols, top) = (CHUNK_COLUMNS as i64, src.layout.top_m());
        let mut checked = 0usize;
        for level in 0..=tree.top_level {
            let span = 1i32 << level;
            let across = (src.layout.chunks_per_side as i32 + span - 1) / span;
            for (x, z) in (0..across).flat_map(|x| (0..across).map(move |z| (x, z))) {
                let id = NodeId::new(level, x, z);
                let [lo, hi] = tree.height_bounds(id);
                let [x0, z0, x1, z1] = id.chunk_rect().map(|c| c as i64 * cols);
                for px in x0..x1.min(map) {
                    for pz in z0..z1.min(map) {
                        let g = src.surface_y_m(px, pz);
                        let w = src.water_at(px as u32, pz as u32, top).map_or(g, |w| w.water_surface_y_m);
                        assert!(
                            lo <= g.min(w) && g.max(w) <= hi,
                            "{id:?}: column ({px}, {pz}) at {g} m (water {w} m) outside [{lo}, {hi}]"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 3 * 256 * 256, "only {checked} columns checked");
    }

    fn small_world() -> (WorldSource, LodTree) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("blueprints/small.dat");
        let src = WorldSource::new(Arc::new(isla::blueprint::read_file(&path).unwrap()));
        let tree = LodTree::new(&src);
        (src, tree)
    }

    /// SPEC §3 "Ranges" (1): a level's error is the 99th percentile of its columns' errors,
    /// estimated on a regular sample of about 131,000 columns. `small.dat` has 256² = 65,536
    /// columns, fewer than the sample, so the estimate is every column: it equals the
    /// nearest-rank quantile of a full count, at every q. (Without it the sample's
    /// stride and the quantile's index were read by no test.)
    #[test]
    fn the_error_estimate_is_the_quantile_of_every_columns_error_on_a_small_world() {
        use isla::world::lod::{column_errors_m, level_error_quantile_m};
        let (src, tree) = small_world();
        let columns = src.layout.chunks_per_side as usize * CHUNK_COLUMNS as usize;
        assert_eq!(columns, 256);
        for level in 1..=tree.top_level {
            let n = (src.layout.chunks_per_side as i32 + (1 << level) - 1) >> level;
            let mut all = Vec::new();
            for x in 0..n {
                for z in 0..n {
                    column_errors_m(&src, NodeId::new(level, x, z), 1, &mut all);
                }
            }
            assert_eq!(all.len(), columns * columns, "level {level}: every column once");
            all.sort_by(f32::total_cmp);
            assert!(all[all.len() - 1] > all[0], "level {level}: the errors do not vary");
            for q in [0.0, 0.25, 0.5, 0.9, 0.99, 1.0] {
                let exact = all[((all.len() - 1) as f64 * q).round() as usize];
                assert_eq!(level_error_quantile_m(&src, level, q), exact, "level {level}, q {q}");
            }
        }
    }

    /// The world's water figures (the load's log line, the panel) count every column once:
    /// wet and seam columns, the deepest water and the water surface's range, against a walk
    /// over every column; and the chunks with water.
    #[test]
    fn the_worlds_water_tally_counts_every_column_once() {
        let (src, tree) = small_world();
        let (n, top, c) = (src.layout.map_size, src.layout.top_m(), CHUNK_COLUMNS);
        let (mut wet, mut seam, mut deepest, mut range) = (0u64, 0u64, 0f32, None::<[f32; 2]>);
        let mut chunks = std::collections::HashSet::new();
        for x in 0..n {
            for z in 0..n {
                if let Some(w) = src.water_at(x, z, top) {
                    wet += 1;
                    seam += w.seam as u64;
                    deepest = deepest.max(w.true_depth_m);
                    let y = w.water_surface_y_m;
                    range = Some(range.map_or([y, y], |r: [f32; 2]| [r[0].min(y), r[1].max(y)]));
                    chunks.insert((x / c, z / c));
                }
            }
        }
        let t = tree.water;
        assert!(wet > 1000 && seam > 0, "small.dat: {wet} wet columns, {seam} seam columns");
        assert_eq!(
            (t.wet_columns, t.seam_columns, t.chunks_with_water as usize, t.max_depth_m, t.surface_y_range_m),
            (wet, seam, chunks.len(), deepest, range)
        );
    }

    #[test]
    fn selection_is_a_partition_of_the_world_from_any_camera() {
        let (src, tree) = default_world();
        let n = src.layout.chunks_per_side as usize;
        for cam in cameras(src, 60) {
            let sel = tree.select(cam);
            let mut cover = vec![0u8; n * n];
            for id in &sel {
                let [x0, z0, x1, z1] = id.chunk_rect();
                for x in x0..x1.min(n as i32) {
                    for z in z0..z1.min(n as i32) {
                        cover[x as usize * n + z as usize] += 1;
                    }
                }
            }
            assert!(cover.iter().all(|&c| c == 1), "camera {cam:?}: a chunk is covered {:?} times", cover.iter().max());
            assert_eq!(sel, tree.select(cam), "selection is deterministic");
        }
    }

    /// How many times each chunk is covered by `nodes` (a partition covers each exactly once).
    fn coverage(src: &WorldSource, nodes: &[NodeId]) -> Vec<u8> {
        let n = src.layout.chunks_per_side as usize;
        let mut cover = vec![0u8; n * n];
        for id in nodes {
            let [x0, z0, x1, z1] = id.chunk_rect();
            for x in x0.max(0)..x1.min(n as i32) {
                for z in z0.max(0)..z1.min(n as i32) {
                    cover[x as usize * n + z as usize] += 1;
                }
            }
        }
        cover
    }

    /// SPEC §3 "Swaps", the crack rule across the old screen and the new target: with every other
    /// node of a new target built, no two nodes on screen that share a border are two levels or
    /// more apart, and across every border between two levels the finer node's side is pinned to
    /// the coarser surface and the coarser node's to its own ([`border_pins`]); where the two are
    /// one level, their pins agree, whatever the camera's distance says. [`pinned_morph`] moves a
    /// vertex on a pinned side fully, or not at all, and leaves the others to the distance.
    #[test]
    fn the_display_keeps_the_crack_rule_across_kept_nodes() {
        use isla::world::display::{PIN_COARSER, PIN_FINER, PIN_NONE, SIDES, border_pins, display_set, pinned_morph};
        use std::collections::{HashMap, HashSet};
        let (src, tree) = default_world();
        let cams = cameras(src, 24);
        let mut pinned = 0;
        for pair in cams.windows(2) {
            let old: Vec<NodeId> = tree.select(pair[0]);
            let displayed: HashSet<NodeId> = old.iter().copied().collect();
            let target = tree.select(pair[1]);
            let built: HashSet<NodeId> = target.iter().copied().step_by(2).chain(old.iter().copied()).collect();
            let resident = |id: NodeId| built.contains(&id);
            let shown = display_set(tree, &target, &resident, &resident, &displayed, 0);
            assert!(coverage(src, &shown).iter().all(|&c| c == 1), "a hole or an overlap");
            let pins: HashMap<NodeId, u8> = border_pins(tree, &shown).into_iter().collect();
            let set: HashSet<NodeId> = shown.iter().copied().collect();
            for &a in &shown {
                for (side, (dx, dz)) in SIDES.iter().enumerate() {
                    let [x0, z0, x1, z1] = a.chunk_rect();
                    // The chunk just across this side, at the side's first chunk.
                    let (cx, cz) = match (dx, dz) {
                        (-1, _) => (x0 - 1, z0),
                        (1, _) => (x1, z0),
                        (_, -1) => (x0, z0 - 1),
                        _ => (x0, z1),
                    };
                    let Some(b) =
                        (0..=tree.top_level).map(|l| NodeId::new(l, cx >> l, cz >> l)).find(|n| set.contains(n))
                    else {
                        continue;
                    };
                    let pin = (pins[&a] >> (2 * side)) & 3;
                    assert!(b.level + 1 >= a.level && a.level + 1 >= b.level, "{a:?} beside {b:?}: two levels apart");
                    let want = if b.level > a.level {
                        PIN_COARSER
                    } else if b.level < a.level {
                        PIN_FINER
                    } else {
                        PIN_NONE
                    };
                    assert_eq!(pin, want, "{a:?}'s side {side} beside {b:?}");
                    pinned += usize::from(b.level != a.level);
                }
            }
        }
        eprintln!("{pinned} pinned sides checked");
        assert!(pinned > 100, "only {pinned} sides between levels");
        // The vertex rule: a node's low-x side pinned coarser, its high-z side finer.
        let n = NodeId::new(2, 3, 5);
        let c = 128.0;
        let pins = PIN_COARSER | PIN_FINER << 6;
        let [x0, z0, x1, z1] = n.chunk_rect().map(|v| v as f32 * c);
        assert_eq!(pinned_morph(n, pins, c, x0, (z0 + z1) / 2.0, 0.3), 1.0);
        assert_eq!(pinned_morph(n, pins, c, (x0 + x1) / 2.0, z1, 0.3), 0.0);
        assert_eq!(pinned_morph(n, pins, c, x0, z1, 0.3), 1.0, "a corner takes the coarser pin");
        assert_eq!(pinned_morph(n, pins, c, x1, (z0 + z1) / 2.0, 0.3), 0.3, "an unpinned side keeps the distance's");
        assert_eq!(pinned_morph(n, 0, c, x0, z0, 0.3), 0.3);
    }

    /// SPEC §3 "Swaps": while the camera moves and only some of the new target is built, the
    /// screen is still a partition of the world (no hole, no overlap), shows only built or kept
    /// nodes, and takes the target exactly once all of it is built. A bounded number of swaps
    /// a frame keeps more of the old screen, still a partition.
    #[test]
    fn the_display_never_opens_a_hole_while_the_target_streams_in() {
        use isla::world::display::display_set;
        use std::collections::HashSet;
        let (src, tree) = default_world();
        let cams = cameras(src, 24);
        for pair in cams.windows(2) {
            let old: Vec<NodeId> = tree.select(pair[0]);
            let displayed: HashSet<NodeId> = old.iter().copied().collect();
            let target = tree.select(pair[1]);
            // Every other node of the new target is built; the old screen is still resident.
            let built: HashSet<NodeId> = target.iter().copied().step_by(2).chain(old.iter().copied()).collect();
            let resident = |id: NodeId| built.contains(&id);
            let shown = display_set(tree, &target, &resident, &resident, &displayed, 0);
            assert!(coverage(src, &shown).iter().all(|&c| c == 1), "a hole or an overlap while streaming");
            assert!(shown.iter().all(|id| built.contains(id)), "an unbuilt node is shown");
            // Coarser nodes still resident from before (built, no longer on screen, not yet
            // unloaded) are never brought back: only what was on screen or is wanted shows.
            let mut stale: HashSet<NodeId> = built.clone();
            for id in &old {
                let mut n = *id;
                while n.level < tree.top_level {
                    n = n.parent();
                    stale.insert(n);
                }
            }
            let kept = |id: NodeId| stale.contains(&id);
            let shown = display_set(tree, &target, &resident, &kept, &displayed, 0);
            assert!(coverage(src, &shown).iter().all(|&c| c == 1), "a hole or an overlap with stale nodes resident");
            let wanted: HashSet<NodeId> = displayed.iter().chain(&target).copied().collect();
            assert!(shown.iter().all(|id| wanted.contains(id)), "a node neither on screen nor wanted came back");
            // All built: the target, exactly.
            let all: HashSet<NodeId> = built.iter().copied().chain(target.iter().copied()).collect();
            let resident_all = |id: NodeId| all.contains(&id);
            let shown_all: HashSet<NodeId> =
                display_set(tree, &target, &resident_all, &resident_all, &displayed, 0).into_iter().collect();
            assert_eq!(shown_all, target.iter().copied().collect::<HashSet<_>>(), "the built target is shown");
            // One swap a frame: still a partition; repeated, it reaches the target.
            let mut screen = displayed.clone();
            for frame in 0.. {
                let step = display_set(tree, &target, &resident_all, &resident_all, &screen, 1);
                assert!(coverage(src, &step).iter().all(|&c| c == 1), "frame {frame}: a hole with one swap a frame");
                let next: HashSet<NodeId> = step.into_iter().collect();
                if next == screen {
                    break;
                }
                screen = next;
                assert!(frame < 4096, "one swap a frame never reaches the target");
            }
            assert_eq!(screen, shown_all, "one swap a frame ends at the target");
        }
    }

    /// Frames from `old` until the screen stops changing, with at most `max_swaps` replacements a
    /// frame, every one a partition; and the screen it ends at.
    fn frames_to_target(
        src: &WorldSource,
        tree: &LodTree,
        old: &std::collections::HashSet<NodeId>,
        target: &[NodeId],
        resident: &dyn Fn(NodeId) -> bool,
        max_swaps: usize,
    ) -> (u32, std::collections::HashSet<NodeId>) {
        use std::collections::HashSet;
        let mut screen = old.clone();
        let mut frames = 0;
        loop {
            let step = isla::world::display::display_set(tree, target, resident, resident, &screen, max_swaps);
            assert!(coverage(src, &step).iter().all(|&c| c == 1), "a hole with {max_swaps} swaps a frame");
            let next: HashSet<NodeId> = step.into_iter().collect();
            if next == screen {
                return (frames, next);
            }
            screen = next;
            frames += 1;
            assert!(frames < 4096, "{max_swaps} swaps a frame never reach the target");
        }
    }

    /// SPEC §3 "Swaps": at most `max_swaps` regions are replaced a frame. With all of the target
    /// built but one node, the root cannot be swapped whole, so the change is many regions:
    /// unbounded, they all come on in one frame; with one swap a frame most camera changes take
    /// several frames, with two never more than with one and sometimes fewer — and every budget
    /// ends at the same screen.
    #[test]
    fn the_swap_budget_bounds_the_replacements_a_frame() {
        use std::collections::HashSet;
        let (src, tree) = default_world();
        let (mut slower, mut faster, mut pairs) = (0, 0, 0);
        for pair in cameras(src, 24).windows(2) {
            let old: HashSet<NodeId> = tree.select(pair[0]).into_iter().collect();
            let target = tree.select(pair[1]);
            let missing = target.iter().copied().find(|n| !old.contains(n));
            let all: HashSet<NodeId> =
                old.iter().copied().chain(target.iter().copied().filter(|n| Some(*n) != missing)).collect();
            let resident = |id: NodeId| all.contains(&id);
            let (unbounded, end) = frames_to_target(src, tree, &old, &target, &resident, 0);
            assert!(unbounded <= 1, "unbounded swaps take {unbounded} frames");
            let (one, end_one) = frames_to_target(src, tree, &old, &target, &resident, 1);
            let (two, end_two) = frames_to_target(src, tree, &old, &target, &resident, 2);
            assert!(end_one == end && end_two == end, "the swap budget changes where the screen ends");
            assert!(two <= one, "two swaps a frame ({two} frames) slower than one ({one})");
            pairs += 1;
            slower += (one > 1) as u32;
            faster += (two < one) as u32;
        }
        assert!(slower * 2 > pairs, "one swap a frame took several frames in only {slower} of {pairs} changes");
        assert!(faster > 0, "two swaps a frame were never faster than one");
    }

    #[test]
    fn a_high_camera_draws_no_full_detail_chunks_and_a_low_one_only_nearby() {
        let (src, tree) = default_world();
        let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
        let high = tree.select([extent * 0.5, tree.ranges.range_m(0) + 500.0, extent * 0.5]);
        assert!(high.iter().all(|n| n.level > 0), "a high camera sees no level-0 chunk");
        let low_cam = [extent * 0.5, 80.0, extent * 0.5];
        let low = tree.select(low_cam);
        let near: Vec<_> = low.iter().filter(|n| n.level == 0).collect();
        assert!(!near.is_empty());
        for n in near {
            // A chunk is drawn at full detail only because its level-1 parent is within range(0).
            assert!(tree.distance_m(n.parent(), low_cam) < tree.ranges.range_m(0), "{n:?}");
        }
        // Logarithmic: the whole island in far fewer nodes than chunks.
        let level0 = low.iter().filter(|n| n.level == 0).count();
        assert!(low.len() - level0 < 80 * tree.top_level as usize, "{} coarse nodes", low.len() - level0);
    }

    pub(crate) fn neighbours(a: NodeId, b: NodeId) -> Option<(bool, i32, [i32; 2])> {
        // Shared border: returns (border runs along z, fixed chunk coordinate, overlap range).
        let [ax0, az0, ax1, az1] = a.chunk_rect();
        let [bx0, bz0, bx1, bz1] = b.chunk_rect();
        let overlap = |a0: i32, a1: i32, b0: i32, b1: i32| {
            let (lo, hi) = (a0.max(b0), a1.min(b1));
            (lo < hi).then_some([lo, hi])
        };
        if ax1 == bx0 || bx1 == ax0 {
            let x = if ax1 == bx0 { ax1 } else { ax0 };
            return overlap(az0, az1, bz0, bz1).map(|r| (true, x, r));
        }
        if az1 == bz0 || bz1 == az0 {
            let z = if az1 == bz0 { az1 } else { az0 };
            return overlap(ax0, ax1, bx0, bx1).map(|r| (false, z, r));
        }
        None
    }

    #[test]
    fn neighbouring_levels_differ_by_at_most_one() {
        let (src, tree) = default_world();
        for cam in cameras(src, 60) {
            let sel = tree.select(cam);
            for (i, a) in sel.iter().enumerate() {
                for b in &sel[i + 1..] {
                    if neighbours(*a, *b).is_some() {
                        assert!(a.level.abs_diff(b.level) <= 1, "camera {cam:?}: {a:?} next to {b:?}");
                    }
                }
            }
        }
    }

    /// Every border vertex of every drawn node lies on its neighbour's drawn border within 1 mm,
    /// for many cameras, level 0 (Marching Cubes) against level 1 included.
    #[test]
    fn no_crack_between_any_two_levels() {
        let (src, tree) = default_world();
        let pairs = check_no_crack(src, tree, &cameras(src, 24));
        assert!(pairs.keys().any(|&(a, b)| a == 0 && b == 1), "Marching Cubes meets level 1 somewhere");
        assert!(pairs.keys().any(|&(a, b)| a >= 1 && b == a + 1), "two heightfield levels meet somewhere");
    }

    /// A map whose chunk count is no power of two (200² pixels: 7 × 7 chunks), so the last grid
    /// line of every level is clipped to the world's edge: still a partition without cracks.
    #[test]
    fn lod_on_a_map_whose_chunk_count_is_not_a_power_of_two() {
        let bp = isla::forge::forge(&isla::forge::ForgeDials::new(4, 200), |_| {}).unwrap();
        let src = WorldSource::new(Arc::new(bp));
        let tree = LodTree::new(&src);
        assert_eq!((src.layout.chunks_per_side, tree.top_level), (7, 3));
        let n = src.layout.chunks_per_side as usize;
        let cams = cameras(&src, 16);
        for cam in &cams {
            let mut cover = vec![0u8; n * n];
            for id in tree.select(*cam) {
                let [x0, z0, x1, z1] = id.chunk_rect();
                for x in x0..x1.min(n as i32) {
                    for z in z0..z1.min(n as i32) {
                        cover[x as usize * n + z as usize] += 1;
                    }
                }
            }
            assert!(cover.iter().all(|&c| c == 1), "camera {cam:?}");
        }
        check_no_crack(&src, &tree, &cams);
    }

    /// The crack check behind the two tests above; returns the level pairs it saw meet.
    pub(crate) fn check_no_crack(src: &WorldSource, tree: &LodTree, cams: &[[f32; 3]]) -> HashMap<(u8, u8), usize> {
        let col = src.layout.column_m;
        let chunk_cols = CHUNK_COLUMNS as f32;
        let mut checked = 0usize;
        let mut pairs_by_level: HashMap<(u8, u8), usize> = HashMap::new();
        let mut cache: HashMap<NodeId, LodMesh> = HashMap::new();
        for &cam in cams {
            let sel = tree.select(cam);
            for a in &sel {
                for b in &sel {
                    let Some((along_z, fixed, [lo, hi])) = neighbours(*a, *b) else { continue };
                    let ma = cache.entry(*a).or_insert_with(|| mesh_node(src, tree, *a)).clone();
                    let mb = cache.entry(*b).or_insert_with(|| mesh_node(src, tree, *b)).clone();
                    let (pa, pb) = (morphed(tree, *a, &ma, cam), morphed(tree, *b, &mb, cam));
                    let line = fixed as f32 * chunk_cols * col;
                    let (lo, hi) = (lo as f32 * chunk_cols * col, hi as f32 * chunk_cols * col);
                    let on = |p: &[f32; 3]| {
                        let (f, t) = if along_z { (p[0], p[2]) } else { (p[2], p[0]) };
                        ((f - line).abs() < 1e-3 && t >= lo - 1e-3 && t <= hi + 1e-3).then_some(t)
                    };
                    // b's border polyline, sorted along the border.
                    let mut poly: Vec<(f32, f32)> = pb.iter().filter_map(|p| on(p).map(|t| (t, p[1]))).collect();
                    poly.sort_by(|x, y| x.0.total_cmp(&y.0));
                    poly.dedup_by(|x, y| (x.0 - y.0).abs() < 1e-5);
                    assert!(poly.len() >= 2, "{b:?} has a border towards {a:?}");
                    for p in pa.iter() {
                        let Some(t) = on(p) else { continue };
                        // Distance (in the border's plane) to the nearest segment of b's polyline.
                        let k = poly.partition_point(|q| q.0 < t).clamp(1, poly.len() - 1);
                        let seg_dist = |q0: (f32, f32), q1: (f32, f32)| {
                            let (dx, dy) = (q1.0 - q0.0, q1.1 - q0.1);
                            let len2 = dx * dx + dy * dy;
                            let u = if len2 > 0.0 {
                                (((t - q0.0) * dx + (p[1] - q0.1) * dy) / len2).clamp(0.0, 1.0)
                            } else {
                                0.0
                            };
                            ((q0.0 + u * dx - t).powi(2) + (q0.1 + u * dy - p[1]).powi(2)).sqrt()
                        };
                        let lo_k = k.saturating_sub(2).max(1);
                        let hi_k = (k + 2).min(poly.len() - 1);
                        let d = (lo_k..=hi_k).map(|k| seg_dist(poly[k - 1], poly[k])).fold(f32::MAX, f32::min);
                        assert!(
                            d <= 1e-3,
                            "camera {cam:?}: vertex {p:?} of {a:?} is {d:.4} m off the border of {b:?} (near {:?})",
                            poly[k]
                        );
                        checked += 1;
                    }
                    *pairs_by_level.entry((a.level.min(b.level), a.level.max(b.level))).or_default() += 1;
                }
            }
        }
        eprintln!("no crack: {checked} border vertices checked; level pairs {pairs_by_level:?}");
        assert!(checked > 0);
        pairs_by_level
    }

    /// Where a node is swapped for its children (the camera crossing `range(k − 1)` of the
    /// parent), the children are fully morphed: their vertices are where the parent draws them.
    #[test]
    fn no_pop_when_a_node_is_swapped() {
        let (src, tree) = default_world();
        let px_per_rad = DESIGN_HEIGHT_PX / DESIGN_FOV_RAD;
        let mut worst = 0f32;
        let extent = src.layout.chunks_per_side as f32 * src.layout.chunk_size_m();
        for (i, cam) in cameras(src, 12).into_iter().enumerate() {
            for parent in tree.select(cam).into_iter().filter(|n| n.level >= 1).take(6) {
                // Place the camera exactly at the split distance of `parent`, above its centre.
                let [lo, hi] = tree.bounds_m(parent);
                let split = tree.ranges.range_m(parent.level - 1);
                let c = [(lo[0] + hi[0]) * 0.5, hi[1] + split * 1.0001, (lo[2] + hi[2]) * 0.5];
                assert!(!tree.splits(parent, c) && c[0] < extent * 2.0);
                let mp = mesh_node(src, tree, parent);
                let pp = morphed(tree, parent, &mp, c);
                let grid = isla::world::lod::LevelGrid::new(&src.layout, parent.level);
                for child in parent.children().into_iter().filter(|n| tree.exists(*n)) {
                    let mc = mesh_node(src, tree, child);
                    for p in morphed(tree, child, &mc, c) {
                        let col = src.layout.column_m as f64;
                        let parent_y = grid.surface_at(src, p[0] as f64 / col, p[2] as f64 / col);
                        // The parent itself is not morphed at this distance.
                        let d = ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)).sqrt();
                        let px = (p[1] - parent_y).abs() / d * px_per_rad;
                        worst = worst.max(px);
                    }
                }
                assert!(
                    pp.iter().zip(&mp.terrain.positions).all(|(a, b)| a[1] == b[1]),
                    "camera {i}: parent unmorphed"
                );
            }
        }
        eprintln!("no pop: largest vertex jump at a swap {worst:.4} px");
        assert!(worst <= 0.5, "a vertex jumps {worst:.3} px when a node is swapped");
    }

    /// Geometric error of every level against full detail (the distance from each full-resolution
    /// surface point to the level's triangles), seen from the nearest distance the level is drawn
    /// at, at 1280×720 with the app's field of view: 99 % of the columns within 2 px at every
    /// level (the few beyond are the forge's spires and risers; the largest is printed).
    #[test]
    fn geometric_error_of_every_level_is_at_most_two_pixels() {
        use isla::world::lod::{ERROR_QUANTILE, column_errors_m};
        let (src, tree) = default_world();
        let px_per_rad = DESIGN_HEIGHT_PX / DESIGN_FOV_RAD;
        for level in 1..=tree.top_level {
            let n = (src.layout.chunks_per_side as i32 + (1 << level) - 1) >> level;
            let mut errs = Vec::new();
            // Every column of every node (stride 1) on levels 1–2, every 2nd beyond.
            let stride = if level <= 2 { 1 } else { 2 };
            for x in 0..n {
                for z in 0..n {
                    column_errors_m(src, NodeId::new(level, x, z), stride, &mut errs);
                }
            }
            errs.sort_by(f32::total_cmp);
            let d = tree.ranges.range_m(level - 1);
            let px = |m: f32| m / d * px_per_rad;
            let q = errs[((errs.len() - 1) as f64 * ERROR_QUANTILE).round() as usize];
            eprintln!(
                "level {level}: drawn from {d:.0} m; error p50 {:.2} px, p99 {:.2} px, max {:.2} px ({:.1} m)",
                px(errs[errs.len() / 2]),
                px(q),
                px(*errs.last().unwrap()),
                errs.last().unwrap()
            );
            assert!(px(q) <= 2.0, "level {level}: 99 % of columns within {:.2} px", px(q));
        }
    }

    #[test]
    fn coarse_water_merges_equal_cells_and_deep_sea_costs_a_few_triangles() {
        let (src, tree) = default_world();
        // A corner node at level 3 lies in deep open sea.
        let mut m = LodMesh::default();
        mesh_tile(src, NodeId::new(3, 0, 0), tree.top_level, Shading::Palette, &mut m);
        let tris = m.water.indices.len() / 3;
        assert!(tris > 0 && tris <= 8, "a deep-sea tile of 32 × 32 cells drew {tris} water triangles");
        // Tiles are deterministic.
        let mut again = LodMesh::default();
        mesh_tile(src, NodeId::new(3, 0, 0), tree.top_level, Shading::Palette, &mut again);
        assert_eq!(m, again);
    }

    /// SPEC §3–5: a coast tile's shelf, deep and shallow at one level, merges into a few large
    /// quads (its colour is per pixel), and merging loses no cell: no cell is covered twice, and
    /// every cell wet at all four corners is covered. The south coast's level-1 tile: measured 1,024 cells, 776 wet, drawn
    /// in 4 quads (when depth split quads, a shelf's cells each had their own).
    #[test]
    fn coarse_water_merges_a_shelf_into_a_few_quads_without_losing_a_cell() {
        let (src, tree) = default_world();
        let id = NodeId::new(1, 7, 12);
        let mut m = LodMesh::default();
        mesh_tile(src, id, tree.top_level, Shading::Palette, &mut m);
        let col = src.layout.column_m;
        let cell = 2.0 * col;
        let [x0, z0, _, _] = id.chunk_rect();
        let origin = [x0 as f32 * src.layout.chunk_size_m(), z0 as f32 * src.layout.chunk_size_m()];
        let side = id.span_chunks() as usize * isla::world::CHUNK_COLUMNS as usize / 2;
        let mut cover = vec![0u32; side * side];
        for q in m.water.positions.chunks(4) {
            let (xa, xb) = (q[0][0].min(q[2][0]), q[0][0].max(q[2][0]));
            let (za, zb) = (q[0][2].min(q[2][2]), q[0][2].max(q[2][2]));
            for a in ((xa - origin[0]) / cell).round() as usize..((xb - origin[0]) / cell).round() as usize {
                for b in ((za - origin[1]) / cell).round() as usize..((zb - origin[1]) / cell).round() as usize {
                    cover[a * side + b] += 1;
                }
            }
        }
        let wet = cover.iter().filter(|&&c| c > 0).count();
        let quads = m.water.positions.len() / 4;
        // Independently of the mesher: a cell whose four corner columns are all wet at one level
        // is always drawn (the floating rule only looks at dry corners).
        let top = src.layout.top_m();
        let (c0x, c0z) = (x0 as i64 * isla::world::CHUNK_COLUMNS as i64, z0 as i64 * isla::world::CHUNK_COLUMNS as i64);
        let level = |x: i64, z: i64| src.water_at(x as u32, z as u32, top).map(|w| w.water_surface_y_m);
        let mut must = 0;
        for a in 0..side {
            for b in 0..side {
                let (x, z) = (c0x + 2 * a as i64, c0z + 2 * b as i64);
                let corners = [level(x, z), level(x + 2, z), level(x, z + 2), level(x + 2, z + 2)];
                if corners[0].is_some() && corners.iter().all(|&c| c == corners[0]) {
                    must += 1;
                    assert_eq!(cover[a * side + b], 1, "the all-wet cell ({a}, {b}) is not drawn");
                }
            }
        }
        eprintln!(
            "level-1 coast tile: {} cells, {wet} wet ({must} wet at every corner), drawn in {quads} quads",
            side * side
        );
        assert!(cover.iter().all(|&c| c <= 1), "a cell is covered twice");
        assert!(wet > side * side / 10, "the tile was meant to be a coast: {wet} wet cells");
        assert!(quads * 8 <= wet, "{wet} wet cells took {quads} quads");
    }

    /// SPEC §3–4, on every level-1 and level-2 tile of the default island (every coast, whatever
    /// its direction): a drawn water cell holds water — at least one wet column among its own
    /// (the cell's columns, border lines included, all of them sampled at these levels) — no cell
    /// is drawn twice, a cell wet at its four corners at one level is drawn, and every quad's
    /// normal is its mean slope's over its own extent. (Without it,
    /// reading the samples one or two cells off, `i0 − 1 + a` → `i0 + 1 + a`, passed
    /// the single south-coast tile above.)
    #[test]
    fn every_coarse_water_cell_drawn_holds_water_on_every_coast() {
        let (src, tree) = default_world();
        let c = isla::world::CHUNK_COLUMNS as i64;
        let top = src.layout.top_m();
        let level_at = |x: i64, z: i64| src.water_at(x as u32, z as u32, top).map(|w| w.water_surface_y_m);
        let n = src.layout.map_size as i64;
        let mut m = LodMesh::default();
        let (mut drawn, mut must, mut sloped) = (0usize, 0usize, 0usize);
        for level in 1..=2u8 {
            let per = (src.layout.chunks_per_side as i32) >> level;
            let cell = 1i64 << level;
            let cell_m = cell as f32 * src.layout.column_m;
            for tx in 0..per {
                for tz in 0..per {
                    let id = NodeId::new(level, tx, tz);
                    // The water alone: no texture bake.
                    isla::mesh::lod::mesh_tile_with(src, id, tree.top_level, Shading::Palette, false, &mut m);
                    let [x0, z0, _, _] = id.chunk_rect();
                    let (c0x, c0z) = (x0 as i64 * c, z0 as i64 * c);
                    let side = (id.span_chunks() as i64 * c / cell) as usize;
                    let mut cover = vec![0u32; side * side];
                    for (qi, q) in m.water.positions.chunks(4).enumerate() {
                        // Its normal is its mean slope's, over its own extent (corners (x0, z0),
                        // (x0, z1), (x1, z1), (x1, z0)).
                        let (dx, dz) = (q[2][0] - q[0][0], q[1][2] - q[0][2]);
                        let gx = ((q[3][1] + q[2][1]) - (q[0][1] + q[1][1])) / (2.0 * dx);
                        let gz = ((q[1][1] + q[2][1]) - (q[0][1] + q[3][1])) / (2.0 * dz);
                        let len = (gx * gx + 1.0 + gz * gz).sqrt();
                        let got = m.water.normals[qi * 4];
                        let want = [-gx / len, 1.0 / len, -gz / len];
                        assert!(
                            (0..3).all(|k| (got[k] - want[k]).abs() < 1e-4),
                            "quad {qi}: normal {got:?}, its slope's {want:?}"
                        );
                        sloped += usize::from(gx != 0.0 || gz != 0.0);
                        let (xa, xb) = (q[0][0].min(q[2][0]), q[0][0].max(q[2][0]));
                        let (za, zb) = (q[0][2].min(q[2][2]), q[0][2].max(q[2][2]));
                        let to_cell = |v: f32, o: i64| ((v - o as f32 * src.layout.column_m) / cell_m).round() as usize;
                        for a in to_cell(xa, c0x)..to_cell(xb, c0x) {
                            for b in to_cell(za, c0z)..to_cell(zb, c0z) {
                                cover[a * side + b] += 1;
                            }
                        }
                    }
                    for a in 0..side {
                        for b in 0..side {
                            let (x, z) = (c0x + cell * a as i64, c0z + cell * b as i64);
                            let k = cover[a * side + b];
                            assert!(k <= 1, "level {level} tile {tx},{tz}: cell ({a}, {b}) drawn {k} times");
                            let inside = |v: i64| v.clamp(0, n - 1);
                            if k == 1 {
                                drawn += 1;
                                let holds = (x..=x + cell)
                                    .any(|cx| (z..=z + cell).any(|cz| level_at(inside(cx), inside(cz)).is_some()));
                                assert!(
                                    holds,
                                    "level {level} tile {tx},{tz}: cell ({a}, {b}) at column ({x}, {z}) is drawn over dry land"
                                );
                            }
                            if x + cell < n && z + cell < n {
                                let corners = [
                                    level_at(x, z),
                                    level_at(x + cell, z),
                                    level_at(x, z + cell),
                                    level_at(x + cell, z + cell),
                                ];
                                if corners[0].is_some() && corners.iter().all(|&y| y == corners[0]) {
                                    must += 1;
                                    assert_eq!(
                                        k, 1,
                                        "level {level} tile {tx},{tz}: the all-wet cell ({a}, {b}) is not drawn"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        eprintln!("levels 1–2: {drawn} water cells drawn, {must} wet at all four corners, {sloped} sloped quads");
        assert!(must > 1000 && drawn >= must, "the island's sea was meant to be drawn: {drawn} / {must}");
        assert!(sloped > 0, "the rivers were meant to draw sloped cells");
    }

    /// The tree's pyramid and error estimate run in parallel: one thread and eight give the same
    /// ranges, errors and bounds, so every machine cuts the same tree.
    #[test]
    fn lod_tree_is_identical_on_one_and_eight_threads() {
        let (src, _) = default_world();
        let build = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| LodTree::new(src))
        };
        let (a, b) = (build(1), build(8));
        assert_eq!(a.ranges, b.ranges);
        assert_eq!(a.error_m, b.error_m);
        assert_eq!(a.water, b.water);
        for level in 0..=a.top_level {
            let n = (src.layout.chunks_per_side as i32 + (1 << level) - 1) >> level;
            for x in 0..n {
                for z in 0..n {
                    let id = NodeId::new(level, x, z);
                    assert_eq!(a.height_bounds(id), b.height_bounds(id), "{id:?}");
                }
            }
        }
    }

    #[test]
    fn lod_tree_works_on_the_smallest_map() {
        let mut bp = super::bowl();
        bp.map_size = 32;
        bp.heights_raw = vec![0.5; 32 * 32];
        bp.biomes = vec![3; 32 * 32];
        bp.water = None;
        let src = WorldSource::new(Arc::new(bp));
        let tree = LodTree::new(&src);
        assert_eq!(tree.top_level, 0);
        assert_eq!(tree.select([10.0, 50.0, 10.0]), vec![NodeId::new(0, 0, 0)]);
    }
}

/// SPEC §4 "Materials": the terrain shader's snow line is the foot of the forge's snow caps — the
/// 5th percentile of the snow-biome columns' heights — and there is none without snow.
#[test]
fn the_snow_line_sits_at_the_foot_of_the_snow_caps() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("blueprints/default.dat");
    let mut bp = read_file(&path).unwrap();
    let line = isla::mesh::palette::snow_line_m(&bp).expect("the default island has snow");
    let mpr = bp.params.metres_per_raw;
    let snow: Vec<f32> = bp
        .biomes
        .iter()
        .zip(&bp.heights_raw)
        .filter(|(b, _)| **b == Biome::Snow as u8)
        .map(|(_, &r)| r * mpr)
        .collect();
    let below = snow.iter().filter(|&&h| h < line).count() as f64 / snow.len() as f64;
    assert!((0.04..=0.06).contains(&below), "{:.3} of the snow columns lie below the line", below);
    assert!(line > bp.params.sea_level_raw * mpr + 100.0, "snow line {line} m");
    for b in bp.biomes.iter_mut().filter(|b| **b == Biome::Snow as u8) {
        *b = Biome::Mountain as u8;
    }
    assert_eq!(isla::mesh::palette::snow_line_m(&bp), None);
}

/// A 64² blueprint with a river (body 2) running down the X axis through rows 28..36: its level
/// falls 0.5 m per column, its bed 3 m under the level; the ocean (body 1) beyond X = 56.
fn sloped_river() -> Blueprint {
    let n = N as usize;
    let mut bp = bowl();
    let level = |x: usize| 0.3 - 0.002 * x as f32;
    for x in 0..n {
        for y in 0..n {
            let river = (28..36).contains(&y) && (8..56).contains(&x);
            bp.heights_raw[x * n + y] = if x >= 56 {
                0.05
            } else if river {
                level(x) - 3.0 / MPR
            } else {
                0.4
            };
        }
    }
    let bodies = vec![
        ocean_body(SEA),
        WaterBody {
            id: 2,
            kind: WaterType::Lake,
            salinity: Salinity::Fresh,
            surface_level_raw: SEA,
            ..ocean_body(SEA)
        },
    ];
    with_water(
        bp,
        |i, _| {
            let (x, y) = (i / n, i % n);
            if x >= 56 {
                (1, water_level::encode(SEA))
            } else if (28..36).contains(&y) && x >= 8 {
                (2, water_level::encode(level(x)))
            } else {
                (0, 0)
            }
        },
        bodies,
    )
}

/// Whether a vertical ray at (x, z) hits one of the sheet's triangles.
fn ray_hits(m: &WaterMesh, x: f32, z: f32) -> bool {
    m.indices.chunks(3).any(|t| {
        let [a, b, c] = [m.positions[t[0] as usize], m.positions[t[1] as usize], m.positions[t[2] as usize]];
        let cross = |p: [f32; 3], q: [f32; 3]| (q[0] - p[0]) * (z - p[2]) - (q[2] - p[2]) * (x - p[0]);
        let (d0, d1, d2) = (cross(a, b), cross(b, c), cross(c, a));
        (d0 >= -1e-4 && d1 >= -1e-4 && d2 >= -1e-4) || (d0 <= 1e-4 && d1 <= 1e-4 && d2 <= 1e-4)
    })
}

/// SPEC §4 "Within one water body the sheet is continuous": a descending river is drawn through
/// its corners' levels — rays through every cell of its footprint hit the sheet, and every vertex
/// a river cell shares with another river cell has one height (no steps, no slits); the full
/// detail chunks and a coarse LOD tile both.
#[test]
fn a_sloped_river_sheet_has_no_gap_seen_from_above() {
    let src = WorldSource::new(Arc::new(sloped_river()));
    let col = src.layout.column_m;
    let mut sheets = Vec::new();
    for (cx, cz) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let chunk = build_chunk(&src, ChunkCoord::new(cx, cz));
        let mut m = WaterMesh::default();
        mesh_water(&chunk, &mut m);
        sheets.push(m);
    }
    let all = WaterMesh {
        positions: sheets.iter().flat_map(|m| m.positions.clone()).collect(),
        normals: vec![],
        colors: vec![],
        indices: {
            let mut base = 0u32;
            let mut v = Vec::new();
            for m in &sheets {
                v.extend(m.indices.iter().map(|i| i + base));
                base += m.positions.len() as u32;
            }
            v
        },
    };
    // Rays at the centre, the edges and the corners of every river cell (x 8..55, z 28..35).
    let mut rays = 0;
    for x in 8..55 {
        for z in 28..35 {
            for (fx, fz) in [(0.5, 0.5), (0.0, 0.5), (0.999, 0.5), (0.5, 0.0), (0.5, 0.999), (0.0, 0.0), (0.999, 0.999)]
            {
                let (wx, wz) = ((x as f32 + fx) * col, (z as f32 + fz) * col);
                assert!(ray_hits(&all, wx, wz), "a ray at column ({x}.{fx}, {z}.{fz}) sees through the sheet");
                rays += 1;
            }
        }
    }
    assert!(rays > 2000);
    // One height per shared vertex among cells whose four corners are river water.
    let mut heights: std::collections::HashMap<(i64, i64), f32> = Default::default();
    for q in all.positions.chunks(4) {
        let inside = q.iter().all(|p| {
            let (x, z) = ((p[0] / col).round() as i64, (p[2] / col).round() as i64);
            (8..56).contains(&x) && (28..36).contains(&z)
        });
        if !inside {
            continue;
        }
        for p in q {
            let key = ((p[0] / col).round() as i64, (p[2] / col).round() as i64);
            let y = *heights.entry(key).or_insert(p[1]);
            assert_eq!(y, p[1], "a step between river cells at column {key:?}");
        }
    }
    // The river does descend: its sheet spans the levels.
    let ys: Vec<f32> = heights.values().copied().collect();
    let (lo, hi) = ys.iter().fold((f32::MAX, f32::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    assert!(hi - lo > 20.0, "sheet from {lo} to {hi} m");

    // A coarse tile (level 1) over the same river: rays through the river's footprint hit it.
    let tree = isla::world::lod::LodTree::new(&src);
    let mut m = isla::mesh::lod::LodMesh::default();
    isla::mesh::lod::mesh_tile(
        &src,
        isla::world::lod::NodeId::new(1, 0, 0),
        tree.top_level,
        isla::mesh::Shading::Palette,
        &mut m,
    );
    for x in 8..55 {
        for z in 28..35 {
            let (wx, wz) = ((x as f32 + 0.5) * col, (z as f32 + 0.5) * col);
            assert!(ray_hits(&m.water, wx, wz), "the coarse sheet has a hole at column ({x}, {z})");
        }
    }
}

/// SPEC §4: a dry corner takes one height, the highest water among its column's 8 neighbours,
/// whichever cell draws it, so at a sloped river's banks no two cells put a shared corner at two
/// heights (a sliver under the bank), within a chunk and across the chunks' borders (the river
/// crosses both the X and the Z border of the 32-column chunks).
#[test]
fn a_dry_bank_corner_has_one_height_in_every_cell() {
    let src = WorldSource::new(Arc::new(sloped_river()));
    let col = src.layout.column_m;
    let mut heights: std::collections::HashMap<(i64, i64), f32> = Default::default();
    let mut banks = 0;
    for (cx, cz) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let chunk = build_chunk(&src, ChunkCoord::new(cx, cz));
        let mut m = WaterMesh::default();
        mesh_water(&chunk, &mut m);
        for p in &m.positions {
            let key = ((p[0] / col).round() as i64, (p[2] / col).round() as i64);
            let (x, z) = (key.0 as u32, key.1 as u32);
            let known = *heights.entry(key).or_insert(p[1]);
            if src.water_at(x.min(N - 1), z.min(N - 1), src.layout.top_m()).is_none() && known == p[1] {
                banks += 1;
            }
            assert_eq!(known, p[1], "the sheet's corner at column {key:?} stands at two heights");
        }
    }
    assert!(banks > 200, "{banks} bank corners seen");
}

fn default_source() -> &'static WorldSource {
    static SRC: std::sync::OnceLock<WorldSource> = std::sync::OnceLock::new();
    SRC.get_or_init(|| {
        let bp =
            read_file(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/blueprints/default.dat"))).unwrap();
        WorldSource::new(Arc::new(bp))
    })
}

/// SPEC §3 "Roads": on the world server's chunk data, the carved roadbed of every road of the
/// default island climbs at most its tier's grade between neighbouring road columns (where no
/// other road is near enough to own the column), and those columns carry the road's material.
#[test]
fn carved_roads_keep_their_grade_in_the_chunk_data() {
    let src = default_source();
    let col = src.layout.column_m;
    let mut chunks: std::collections::HashMap<(i32, i32), ChunkData> = Default::default();
    let mut column = |x: i64, y: i64| {
        let c = ChunkCoord::new((x / CHUNK_COLUMNS as i64) as i32, (y / CHUNK_COLUMNS as i64) as i32);
        let data = chunks.entry((c.x, c.z)).or_insert_with(|| build_chunk(src, c));
        let i = ChunkData::column_index((x - data.origin_px.0) as usize, (y - data.origin_px.1) as usize);
        (data.surface_y_m[i], data.road[i])
    };
    let roads = &src.roads.roads;
    assert!(!roads.is_empty(), "the default island has roads");
    let (mut pairs, mut worst) = (0, 0f32);
    for (k, r) in roads.iter().enumerate() {
        let limit = r.tier.grade_limit();
        // The roadbed itself climbs at most the grade per metre of road.
        let mut arc = vec![0f32; r.points.len()];
        for i in 1..r.points.len() {
            let (a, b) = (r.points[i - 1], r.points[i]);
            arc[i] = arc[i - 1] + (b[0] - a[0]).hypot(b[1] - a[1]) * col;
            let grade = (r.bed_m[i] - r.bed_m[i - 1]).abs() / (arc[i] - arc[i - 1]).max(1e-6);
            assert!(grade <= limit * 1.0001, "road {k}'s roadbed climbs {grade:.4} at point {i}");
        }
        let others = |x: f32, y: f32| {
            roads
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .any(|(_, o)| o.points.iter().any(|p| (p[0] - x).hypot(p[1] - y) < 8.0))
        };
        // The chunk data: the surface of the column under each road point, compared with the
        // next road column along the road. A column centre sits up to half a diagonal (0.71
        // columns) off the centreline, so its roadbed is read up to that far along the road:
        // the allowance is the grade over the road between the points plus over that offset at
        // both ends.
        let slack = limit * 2.0 * std::f32::consts::FRAC_1_SQRT_2 * col + 0.01;
        let mut last: Option<((i64, i64), f32, f32)> = None;
        for (i, p) in r.points.iter().enumerate() {
            let c = (p[0] as i64, p[1] as i64);
            // A bridge and its ends (whose columns the deck's segments own) are not carved.
            let near_bridge = (i.saturating_sub(2)..=(i + 2).min(r.points.len() - 1)).any(|j| r.bridge[j]);
            if near_bridge || others(p[0], p[1]) {
                last = None;
                continue;
            }
            let (s, road) = column(c.0, c.1);
            assert_eq!(road, r.tier as u8 + 1, "road {k} column {c:?} carries its tier");
            if let Some((lc, ls, la)) = last
                && lc != c
            {
                let allowed = limit * (arc[i] - la) + slack;
                worst = worst.max((s - ls).abs() / allowed);
                pairs += 1;
            }
            if last.is_none_or(|(lc, _, _)| lc != c) {
                last = Some((c, s, arc[i]));
            }
        }
    }
    eprintln!("{pairs} column pairs, the steepest at {worst:.3} of what the grade allows");
    assert!(pairs > 1000, "{pairs}");
    assert!(worst <= 1.0, "a road column pair climbs {worst:.3}× what its tier's grade allows");
}

/// Dry road columns the road's carve sets, those beside water (8 neighbours), and those standing
/// more than 1 cm below a wet neighbour's level (column, road surface, water level).
/// A roadway column below the water beside it: the column, its surface and the water's level.
type BelowWater = ((i64, i64), f32, f32);

fn roads_beside_water(src: &WorldSource) -> (usize, usize, Vec<BelowWater>) {
    let n = src.layout.map_size as i64;
    let top = src.layout.top_m();
    let (mut road_columns, mut beside_water, mut below) = (0, 0, Vec::new());
    for x in 0..n {
        for y in 0..n {
            if src.road_at(x, y).is_none() || src.water_at(x as u32, y as u32, top).is_some() {
                continue;
            }
            // Only where the road sets the surface: on coarse maps a road's material also reaches
            // columns beyond its carve, which keep the terrain (and its own relation to the water).
            let s = src.surface_y_m(x, y);
            if (s - isla::world::terrain_y_m(&src.blueprint, x, y)).abs() < 1e-3 {
                continue;
            }
            road_columns += 1;
            let mut near = false;
            for (dx, dy) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
                let (a, b) = (x + dx, y + dy);
                if a < 0 || b < 0 || a >= n || b >= n {
                    continue;
                }
                if let Some(w) = src.water_at(a as u32, b as u32, top) {
                    near = true;
                    if w.water_surface_y_m > s + 0.01 {
                        below.push(((x, y), s, w.water_surface_y_m));
                    }
                }
            }
            beside_water += near as usize;
        }
    }
    (road_columns, beside_water, below)
}

/// SPEC §3 "Roads": a road never runs below the water beside it — every dry column the road's
/// carve sets and paints stands at or above the level of each wet column next to it, so a road
/// along a river keeps to an embankment, not a trench under the river's surface. The default
/// island and the forge's road seeds (256² of 16 m). Before the roadbed was lifted over the water
/// beside it, seed 3 had a roadway column 1 cm under a river; before carved columns were held
/// over the water in their neighbours, seed 101 had four shoulder columns (painted as road on
/// 16 m pixels) up to 0.8 m under a river, where the terrain itself lies below it.
#[test]
fn no_road_runs_below_the_water_beside_it() {
    let seeds = [3, 11, 29, 101];
    let forged: Vec<WorldSource> = seeds
        .iter()
        .map(|&seed| {
            let mut dials = isla::forge::ForgeDials::new(seed, 256);
            dials.metres_per_pixel = 16.0;
            WorldSource::new(Arc::new(isla::forge::forge(&dials, |_| {}).unwrap()))
        })
        .collect();
    let names = std::iter::once("default".to_string()).chain(seeds.iter().map(|s| format!("seed {s}")));
    let worlds: Vec<(String, &WorldSource)> = names.zip(std::iter::once(default_source()).chain(&forged)).collect();
    let mut beside_total = 0;
    for (name, src) in &worlds {
        let (roads, beside, below) = roads_beside_water(src);
        eprintln!("{name}: {roads} dry road columns, {beside} beside water, {} below it", below.len());
        beside_total += beside;
        for &((x, y), s, w) in &below {
            let (mut best, mut at) = (f32::MAX, (0, 0));
            for (k, r) in src.roads.roads.iter().enumerate() {
                for (i, p) in r.points.iter().enumerate() {
                    let d = (p[0] - x as f32 - 0.5).hypot(p[1] - y as f32 - 0.5);
                    if d < best {
                        (best, at) = (d, (k, i));
                    }
                }
            }
            let r = &src.roads.roads[at.0];
            eprintln!(
                "  ({x}, {y}) at {s:.2} m, water {w:.2} m: nearest road {} point {} ({best:.2} px), bed {:.2}, bridge {}, terrain {:.2}",
                at.0,
                at.1,
                r.bed_m[at.1],
                r.bridge[at.1],
                isla::world::terrain_y_m(&src.blueprint, x, y)
            );
        }
        assert!(
            below.is_empty(),
            "{name}: road columns below the water beside them (column, road, water): {:?}",
            &below[..below.len().min(8)]
        );
    }
    assert!(beside_total > 0, "no road column lies beside water: the test looks at nothing");
}

/// SPEC §3: the shoreline-seam rule compares the *carved* surface with the ocean level — a dry
/// column below sea that a road's embankment lifts is no longer wet.
#[test]
fn the_seam_rule_reads_the_carved_surface() {
    let n = N as usize;
    let mut bp = bowl();
    for x in 0..n {
        for y in 0..n {
            bp.heights_raw[x * n + y] = if x >= 56 { 0.05 } else { 0.2 };
        }
    }
    bp.heights_raw[30 * n + 30] = 0.05; // a dry dip below sea
    let bp =
        with_water(bp, |i, _| if i / n >= 56 { (1, water_level::encode(SEA)) } else { (0, 0) }, vec![ocean_body(SEA)]);
    let plain = WorldSource::new(Arc::new(bp.clone()));
    assert!(plain.water_at(30, 30, 500.0).is_some_and(|w| w.seam), "without a road the dip is seam water");
    let mut with_road = bp;
    let points: Vec<[f32; 2]> = (10..=50).map(|x| [x as f32 + 0.5, 30.5]).collect();
    with_road.roads = Some(RoadNetwork {
        roads: vec![Road { tier: RoadTier::Road, from_town: 0, to_town: 1, points, bridges: vec![] }],
    });
    let carved = WorldSource::new(Arc::new(with_road));
    assert!(carved.surface_y_m(30, 30) > SEA * MPR, "the roadbed lifts the dip above the sea");
    assert_eq!(carved.water_at(30, 30, 500.0), None, "and the seam rule reads the carved surface");
    assert_eq!(carved.road_at(30, 30), Some(RoadTier::Road));
}

/// SPEC §3 "Town squares": with no road near, a town's square is carved flat at the terrain of
/// its centre and paved, and blends back to the terrain over the 10 m shoulder by a smoothstep of
/// the Chebyshev distance from the column's centre to the square; beyond it the terrain is
/// untouched. Its paint field is the signed Chebyshev distance to its edge, its tier the paving.
/// (cargo-mutants: the shoulder's blend and its reach were read by no test.)
#[test]
fn a_town_square_is_flat_and_blends_back_over_its_shoulder() {
    let n = N as usize;
    // A plane rising 0.5 m a column (25 %) along X.
    let heights: Vec<f32> = (0..n * n).map(|i| 0.1 + 0.002 * (i / n) as f32).collect();
    let town = Town { x: 32.5, y: 32.5, tier: TownTier::Town, is_highway_node: false };
    let mut bp = IslandBuilder::new(N, heights).metres_per_raw(MPR).metres_per_pixel(2.0).towns(vec![town]).build();
    bp.roads = Some(RoadNetwork { roads: vec![] });
    let src = WorldSource::new(Arc::new(bp));
    let (mpp, half_m, shoulder_m) = (2.0f32, 16.0f32, 10.0f32);
    let centre_m = terrain_y_m(&src.blueprint, 32, 32);
    let (mut inside, mut shoulder, mut beyond) = (0, 0, 0);
    for x in 0..N as i64 {
        for y in 0..N as i64 {
            let q = [x as f32 + 0.5, y as f32 + 0.5];
            let signed_m = (q[0] - 32.5).abs().max((q[1] - 32.5).abs()) * mpp - half_m;
            let (got, terrain) = (src.surface_y_m(x, y), terrain_y_m(&src.blueprint, x, y));
            if signed_m <= 0.0 {
                inside += 1;
                assert_eq!(got, centre_m, "({x}, {y}) inside the square");
                assert_eq!(src.road_at(x, y), Some(RoadTier::Road), "({x}, {y}) inside the square is paved");
            } else if signed_m < shoulder_m {
                shoulder += 1;
                let f = signed_m / shoulder_m;
                let want = centre_m + (terrain - centre_m) * f * f * (3.0 - 2.0 * f);
                assert!((got - want).abs() < 1e-3, "({x}, {y}) {signed_m} m out: {got} m, the blend says {want} m");
                assert_eq!(src.road_at(x, y), None, "({x}, {y}) on the shoulder is not paved");
            } else {
                beyond += 1;
                assert_eq!(got, terrain, "({x}, {y}) beyond the shoulder");
            }
            match src.paint_at(x, y) {
                Some((d, tier)) => {
                    assert!(signed_m < shoulder_m, "({x}, {y}): a paint field {d} m beyond the carve");
                    assert!((d - signed_m).abs() <= 0.005, "({x}, {y}): paint field {d} m, the square says {signed_m}");
                    assert_eq!(tier, RoadTier::Road);
                }
                None => assert!(signed_m >= shoulder_m, "({x}, {y}) {signed_m} m out has no paint field"),
            }
        }
    }
    assert!(inside == 17 * 17 && shoulder > 300 && beyond > 0, "{inside} inside, {shoulder} on the shoulder");
}

/// SPEC §3: a road point's or a town's ground is the bilinear height at its position, with
/// the map's edge columns held beyond the edge. A town within half a column of the far edge
/// (X, Y or both) stands at the edge column's height, interpolated only along the other axis;
/// one at the near corner at column (0, 0). (cargo-mutants: the Y clamp at `n - 1` was read by no
/// test; unclamped, the read past the last row wraps into the next column's first row, or past
/// the grid at the far corner.)
#[test]
fn a_town_at_the_maps_far_edge_stands_on_the_edge_columns() {
    let n = 64u32;
    // A plane rising along both axes, so every wrapped or misplaced read gives another height.
    let heights: Vec<f32> = (0..(n * n) as usize)
        .map(|i| 0.1 + 0.003 * (i / n as usize) as f32 + 0.005 * (i % n as usize) as f32)
        .collect();
    let town = |x: f32, y: f32| Town { x, y, tier: TownTier::Village, is_highway_node: false };
    let (last, e) = (n as i64 - 1, n as f32 - 0.2);
    let towns = vec![town(20.5, e), town(20.9, e), town(e, 20.5), town(e, e), town(0.2, 0.2)];
    let bp = IslandBuilder::new(n, heights).metres_per_raw(MPR).metres_per_pixel(2.0).towns(towns).build();
    let h = |x: i64, y: i64| terrain_y_m(&bp, x, y);
    let want = [h(20, last), h(20, last) + (h(21, last) - h(20, last)) * 0.4, h(last, 20), h(last, last), h(0, 0)];
    let squares = isla::world::roads::town_squares(&bp, &mut []);
    assert_eq!(squares.len(), want.len());
    for (sq, want) in squares.iter().zip(want) {
        assert!(
            (sq.height_m - want).abs() < 1e-3,
            "the square at {:?} stands at {} m, the edge column says {want} m",
            sq.centre,
            sq.height_m
        );
    }
}

/// SPEC §1: a road's points lie on the map, its far edges included (`0..=N` on each axis, the
/// reader's check). A road bridged out to the far corner (N, N), where the pixel under the point
/// is the last column's, loads with a roadbed at every point. (cargo-mutants: the clamp of a
/// bridge point's pixel to the last column, `n − 1` → `n + 1` or `n / 1`, was read by no test;
/// unclamped, the corner reads past the grid.)
#[test]
fn a_road_may_be_bridged_out_to_the_maps_far_corner() {
    let n = N as usize;
    let heights: Vec<f32> = (0..n * n).map(|i| if i / n >= 60 { 0.09 } else { 0.11 }).collect();
    let bp = IslandBuilder::new(N, heights).sea_level_raw(SEA).metres_per_raw(MPR).metres_per_pixel(2.0).build();
    let mut bp =
        with_water(bp, |i, _| if i / n >= 60 { (1, water_level::encode(SEA)) } else { (0, 0) }, vec![ocean_body(SEA)]);
    let points: Vec<[f32; 2]> = (50..=64).map(|v| [v as f32, v as f32]).collect();
    bp.roads = Some(RoadNetwork {
        roads: vec![Road { tier: RoadTier::Road, from_town: 0, to_town: 1, points, bridges: vec![[10, 14]] }],
    });
    let src = WorldSource::new(Arc::new(bp));
    let road = &src.roads.roads[0];
    assert_eq!(road.bed_m.len(), 15);
    assert!(road.bed_m.iter().all(|b| b.is_finite() && *b >= SEA * MPR + 0.5 - 1e-3), "{:?}", road.bed_m);
}

/// SPEC §4 "Roads", cross-section: a straight road across a tilted plane stands flat at its
/// roadbed over its width, and beyond it blends back to the terrain by a smoothstep over the
/// tier's shoulder (10 m, 7 m), widened to 1.5 × the fill or cut at the road's edge where that
/// is wider (up to 48 m); past the shoulder the terrain is untouched.
#[test]
fn a_roads_cross_section_is_flat_over_its_width_and_blends_back_over_its_shoulder() {
    let n = N as usize;
    let mpp = 2.0f32;
    // (tier, width, shoulder, the plane's rise a column along X in raw units).
    for (tier, width_m, spec_shoulder_m, rise_raw) in [
        (RoadTier::Road, 6.0f32, 7.0f32, 0.002f32),
        (RoadTier::Highway, 10.0, 10.0, 0.002),
        (RoadTier::Road, 6.0, 7.0, 0.02),
    ] {
        let heights: Vec<f32> = (0..n * n).map(|i| 0.3 + rise_raw * (i / n) as f32).collect();
        let mut bp = IslandBuilder::new(N, heights).metres_per_raw(MPR).metres_per_pixel(mpp).build();
        // Along Y at x = 32.5 (a column's centre): the terrain is level along the road, so the
        // roadbed is the terrain under the centreline all along.
        let points: Vec<[f32; 2]> = (2..=62).map(|y| [32.5, y as f32 + 0.5]).collect();
        bp.roads = Some(RoadNetwork { roads: vec![Road { tier, from_town: 0, to_town: 1, points, bridges: vec![] }] });
        let src = WorldSource::new(Arc::new(bp));
        let half_m = width_m / 2.0;
        let slope = rise_raw * MPR / mpp; // rise over run across the road
        let bed = src.surface_y_m(32, 32);
        let edge_fill_m = slope * half_m;
        let shoulder_m = (1.5 * edge_fill_m).clamp(spec_shoulder_m, 48.0);
        let what = format!("{tier:?} across a {:.0} % slope", slope * 100.0);
        let (mut on_road, mut on_shoulder, mut beyond) = (0, 0, 0);
        for y in 16..48i64 {
            for x in 0..N as i64 {
                let d_m = (x as f32 + 0.5 - 32.5).abs() * mpp;
                let (got, terrain) = (src.surface_y_m(x, y), terrain_y_m(&src.blueprint, x, y));
                if d_m <= half_m {
                    on_road += 1;
                    assert_eq!(got, bed, "{what}: ({x}, {y}) {d_m} m from the centreline is on the roadbed");
                } else if d_m < half_m + shoulder_m {
                    on_shoulder += 1;
                    let f = (d_m - half_m) / shoulder_m;
                    let want = bed + (terrain - bed) * f * f * (3.0 - 2.0 * f);
                    assert!(
                        (got - want).abs() < 2e-3,
                        "{what}: ({x}, {y}) {d_m} m from the centreline: {got} m, the shoulder's blend says {want} m \
                         (terrain {terrain} m, roadbed {bed} m, shoulder {shoulder_m} m)"
                    );
                } else {
                    beyond += 1;
                    assert_eq!(got, terrain, "{what}: ({x}, {y}) {d_m} m from the centreline, past the shoulder");
                }
            }
        }
        let expect_shoulder = 2 * ((half_m + shoulder_m) / mpp).floor() as usize - 2 * (half_m / mpp).floor() as usize;
        assert!(
            on_road > 0 && on_shoulder >= 32 * expect_shoulder.saturating_sub(2) && beyond > 0,
            "{what}: {on_road} roadbed, {on_shoulder} shoulder, {beyond} untouched columns"
        );
    }
}

/// SPEC §4 "Roads", cross-section: a road's shoulder on each side is as wide as the fill or cut
/// at the road's edge *on that side* needs (1.5 × the fill or cut, from the tier's 10 m up to
/// 48 m). A highway along a cliff's top (a 43 m fill at its edge over the cliff, a 7.5 m cut into
/// the rising plateau) blends over the 48 m cap on the cliff's side and over 11.3 m on the
/// plateau's; past each the terrain is untouched and the column uncarved. The same island is checked transposed, the road along X, so the road's edge is
/// found along both axes. (cargo-mutants: which edge the fill is read at, and the shoulder's
/// reach, were read only on symmetric slopes; the edge's Y, a shoulder between the floor and the
/// cap, and a column past the shoulder carved at its own terrain, by no test.)
#[test]
fn a_roads_shoulder_is_as_wide_as_its_own_sides_fill_needs() {
    let n = N as usize;
    for transposed in [false, true] {
        // Across the road `u`, along it `v`; the blueprint's (x, y) is (u, v), or (v, u)
        // transposed.
        let xy = |u: usize, v: usize| if transposed { (v, u) } else { (u, v) };
        // The plateau rises 3 m a column away from the cliff at u = 30; below it, 75 m.
        let height = |u: usize| if u < 30 { 0.5 + 0.012 * (30 - u) as f32 } else { 0.3 };
        let heights: Vec<f32> = (0..n * n).map(|i| height(if transposed { i % n } else { i / n })).collect();
        let mut bp = IslandBuilder::new(N, heights).metres_per_raw(MPR).metres_per_pixel(2.0).build();
        let centre = 27.7f32;
        let points: Vec<[f32; 2]> =
            (2..=62).map(|v| if transposed { [v as f32 + 0.5, centre] } else { [centre, v as f32 + 0.5] }).collect();
        bp.roads = Some(RoadNetwork {
            roads: vec![Road { tier: RoadTier::Highway, from_town: 0, to_town: 1, points, bridges: vec![] }],
        });
        let src = WorldSource::new(Arc::new(bp));
        let (mpp, half_m) = (2.0f32, 5.0f32);
        let bed = src.roads.roads[0].bed_m[30];
        // SPEC: the terrain at the road's edge is the bilinear height there (columns at their
        // centres); here it varies across the road only.
        let ground_at = |p: f32| {
            let f = p - 0.5;
            let (i, t) = (f.floor() as usize, f.fract());
            (height(i) + (height(i + 1) - height(i)) * t) * MPR
        };
        let width = |edge: f32| isla::world::roads::embankment_shoulder_m(RoadTier::Highway, bed - ground_at(edge));
        let (cliff_w, plateau_w) = (width(centre + 2.5), width(centre - 2.5));
        assert!(cliff_w == 48.0 && plateau_w > 11.0 && plateau_w < 12.0, "shoulders {cliff_w} m and {plateau_w} m");
        let (mut cliff_side, mut plateau_side) = (0, 0);
        for v in 16..48 {
            for u in 0..n {
                let (x, y) = xy(u, v);
                let (x, y) = (x as i64, y as i64);
                let q = u as f32 + 0.5;
                let d_m = (q - centre).abs() * mpp;
                let width_m = if q > centre { cliff_w } else { plateau_w };
                let (got, terrain) = (src.surface_y_m(x, y), terrain_y_m(&src.blueprint, x, y));
                let want = if d_m <= half_m {
                    bed
                } else if d_m < half_m + width_m {
                    let f = (d_m - half_m) / width_m;
                    if q > centre {
                        cliff_side += 1
                    } else {
                        plateau_side += 1
                    }
                    bed + (terrain - bed) * f * f * (3.0 - 2.0 * f)
                } else {
                    assert!(
                        src.roads.at(x, y).is_none(),
                        "transposed {transposed}: ({x}, {y}) past the shoulder is carved"
                    );
                    terrain
                };
                assert!(
                    (got - want).abs() < 2e-3,
                    "transposed {transposed}: ({x}, {y}) {d_m} m from the centreline on the {} side: {got} m, want {want} \
                     m (terrain {terrain} m, roadbed {bed} m)",
                    if q > centre { "cliff's" } else { "plateau's" }
                );
            }
        }
        assert!(
            cliff_side >= 32 * 23 && plateau_side >= 32 * 4,
            "transposed {transposed}: {cliff_side} cliff-side and {plateau_side} plateau-side columns"
        );
    }
}

/// SPEC §3 "Roads", roadbed: on level ground a road's roadbed is the ground, raised — each by a
/// cone falling at the tier's grade — to stand 0.5 m over the sea (across a dry dip below it),
/// 0.5 m over a lake whose nearest pixel lies the road's half-width and 1.5 columns from its
/// points (3 px at 2 m a pixel; a lake 4 px off does not count) and 1.5 m over a river at a
/// bridge's points, abutments among them; the river's gorge under the span does not pull it
/// down. Every point is checked against that rule, worked out here the long way (the ground's
/// own roadbed and each lift over every pair of points). And no carved column ends less than 5 cm over the water in its 8
/// neighbours. (cargo-mutants: `carve_road`'s reach, its clearance and its unfixed span, and the
/// 5 cm, were read by no test.)
#[test]
fn a_roadbed_is_raised_within_its_grade_over_the_sea_the_water_beside_it_and_its_bridges() {
    let n = N as usize;
    // Ground 27.6 m, a dip 3.8 m deep to 1.3 m under the sea, a river gorge 15 m deep.
    let (ground, dip, gorge) = (0.11f32, 0.095f32, 0.05f32);
    // The near lake's level puts the shoulder column (33, 35) beside it within 5 cm of its
    // surface, where the rule lifts it to 5 cm over.
    // Each level as `WSRF` holds it (quantised).
    let held = |raw: f32| water_level::decode(water_level::encode(raw)).unwrap();
    let (near_lake, far_lake, river) = (held(0.11303), held(0.125), held(0.11));
    // Body ids: 1 ocean, 2 the lake 3 px off, 3 the lake 4 px off, 4 the river.
    let body = |i: usize| -> u16 {
        let (x, y) = (i / n, i % n);
        match (x, y) {
            (28..=32, 35) => 2,
            (38..=42, 36) => 3,
            (50..=53, _) => 4,
            _ => 0,
        }
    };
    let heights: Vec<f32> = (0..n * n)
        .map(|i| match (i / n, body(i)) {
            (_, 4) => gorge,
            (8..=12, _) => dip,
            _ => ground,
        })
        .collect();
    let mut bp = IslandBuilder::new(N, heights).sea_level_raw(SEA).metres_per_raw(MPR).metres_per_pixel(2.0).build();
    let lake = |id, level| WaterBody { id, kind: WaterType::Lake, salinity: Salinity::Fresh, ..ocean_body(level) };
    let levels = [0.0, SEA, near_lake, far_lake, river];
    bp = with_water(
        bp,
        |i, _| match body(i) {
            0 => (0, 0),
            b => (b, water_level::encode(levels[b as usize])),
        },
        vec![ocean_body(SEA), lake(2, near_lake), lake(3, far_lake), lake(4, river)],
    );
    bp.rivers = Some(river_along_y(4, 51.5));
    // Along y = 32.5, a point per column from x = 2 to 61 (point i over column i + 2); the
    // bridge spans points 47–52, columns 49–54: abutments on the banks, the river under 48–51.
    let points: Vec<[f32; 2]> = (2..=61).map(|x| [x as f32 + 0.5, 32.5]).collect();
    let bridge = [47u32, 52];
    bp.roads = Some(RoadNetwork {
        roads: vec![Road { tier: RoadTier::Road, from_town: 0, to_town: 1, points, bridges: vec![bridge] }],
    });
    let src = WorldSource::new(Arc::new(bp));
    let road = &src.roads.roads[0];
    let (grade, mpp, reach) = (0.12f32, 2.0f32, 3i64);
    let m = road.points.len();
    // The water each point must clear, by the rule: the highest within `reach` columns, plus
    // the clearance on the bridge, else 0.5 m; and the sea.
    let on_bridge = |i: usize| (bridge[0] as usize..=bridge[1] as usize).contains(&i);
    let clear: Vec<f32> = (0..m)
        .map(|i| {
            let x = i as i64 + 2;
            let mut top = f32::NEG_INFINITY;
            for (bx, by) in (x - reach..=x + reach).flat_map(|bx| (32 - reach..=32 + reach).map(move |by| (bx, by))) {
                if bx < 0 {
                    continue; // off the map
                }
                let b = body((bx as usize) * n + by as usize);
                if b != 0 {
                    top = top.max(levels[b as usize] * MPR);
                }
            }
            (top + if on_bridge(i) { 1.5 } else { 0.5 }).max(SEA * MPR + 0.5)
        })
        .collect();
    // The ground's own roadbed, with the gorge under the span left out.
    let h: Vec<f32> = (0..m).map(|i| terrain_y_m(&src.blueprint, i as i64 + 2, 32)).collect();
    let s: Vec<f32> = (0..m).map(|i| i as f32 * mpp).collect();
    let fixed: Vec<bool> = (0..m).map(|i| !(on_bridge(i) && (50..=53).contains(&(i + 2)))).collect();
    // SPEC: the mean of the lowest grade-limited profile above the ground and the highest below
    // it, over the points that count (each worked out the long way, over every pair).
    let own: Vec<f32> = (0..m)
        .map(|i| {
            let (mut below, mut above) = (f32::INFINITY, f32::NEG_INFINITY);
            for j in (0..m).filter(|&j| fixed[j]) {
                below = below.min(h[j] + grade * (s[i] - s[j]).abs());
                above = above.max(h[j] - grade * (s[i] - s[j]).abs());
            }
            0.5 * (below + above)
        })
        .collect();
    for i in 0..m {
        let lift = (0..m).map(|j| clear[j] - grade * (s[i] - s[j]).abs()).fold(f32::NEG_INFINITY, f32::max);
        let want = own[i].max(lift);
        assert!(
            (road.bed_m[i] - want).abs() < 1e-3,
            "point {i} (column {}): roadbed {} m, the rule says {want} m (ground {} m, lift {lift} m)",
            i + 2,
            road.bed_m[i],
            own[i]
        );
        assert_eq!(road.bridge[i], on_bridge(i), "point {i}");
    }
    // What the rule's parts do here, so the test is seen to read each of them.
    let ground_m = ground * MPR;
    assert!(h[10 - 2] < SEA * MPR && own[10 - 2] < SEA * MPR + 0.5, "the dip's own roadbed lies under the sea");
    assert!((road.bed_m[10 - 2] - (SEA * MPR + 0.5)).abs() < 1e-3, "the dip is filled to 0.5 m over the sea");
    assert!((road.bed_m[30 - 2] - (near_lake * MPR + 0.5)).abs() < 1e-3, "the lake 3 px off lifts the road");
    assert!((road.bed_m[42 - 2] - ground_m).abs() < 1e-3, "the lake 4 px off does not");
    assert!((road.bed_m[51 - 2] - (river * MPR + 1.5)).abs() < 1e-3, "the bridge stands the clearance over the river");
    assert!(own[51 - 2] > ground_m - 1e-3, "the gorge does not pull the span down");
    // No carved column ends less than 5 cm over the water in its 8 neighbours.
    let mut lifted = 0;
    for x in 1..N as i64 - 1 {
        for y in 1..N as i64 - 1 {
            let Some(surface) = src.roads.at(x, y).and_then(|c| c.surface_m) else { continue };
            let beside = (x - 1..=x + 1)
                .flat_map(|bx| (y - 1..=y + 1).map(move |by| body(bx as usize * n + by as usize)))
                .filter(|&b| b != 0)
                .map(|b| levels[b as usize] * MPR)
                .fold(f32::NEG_INFINITY, f32::max);
            assert!(surface >= beside + 0.05 - 1e-4, "({x}, {y}) carved to {surface} m beside water at {beside} m");
            lifted += ((surface - (beside + 0.05)).abs() < 1e-4 && (x, y) == (33, 35)) as usize;
        }
    }
    assert_eq!(lifted, 1, "the shoulder column (33, 35) stands 5 cm over the lake beside it");
}

/// SPEC §3 "Roads", roadbed: the water beside a road is the water within the road's half-width
/// and 1.5 columns of its points, rounded up to whole columns — at 4 m a pixel a 6 m road reaches
/// ⌈0.75 + 1.5⌉ = 3 columns: a lake 3 columns off lifts the roadbed to 0.5 m over it, one 4 off
/// does not. (cargo-mutants: at 2 m a pixel, the test above, `half-width + 1.5` and
/// `half-width × 1.5` both round to 3 columns; here they do not.)
#[test]
fn at_four_metres_a_pixel_a_road_reaches_the_water_three_columns_off() {
    let n = N as usize;
    let ground = 0.11f32;
    let held = |raw: f32| water_level::decode(water_level::encode(raw)).unwrap();
    // Both lakes stand 2 m over the ground, perched, so only the rule lifts the road.
    let level = held(ground + 0.008);
    let body = |i: usize| -> u16 {
        match (i / n, i % n) {
            (20..=24, 35) => 2,
            (40..=44, 36) => 3,
            _ => 0,
        }
    };
    let bp =
        IslandBuilder::new(N, vec![ground; n * n]).sea_level_raw(SEA).metres_per_raw(MPR).metres_per_pixel(4.0).build();
    let lake = |id| WaterBody { id, kind: WaterType::Lake, salinity: Salinity::Fresh, ..ocean_body(level) };
    let mut bp = with_water(
        bp,
        |i, _| match body(i) {
            0 => (0, 0),
            b => (b, water_level::encode(level)),
        },
        vec![ocean_body(SEA), lake(2), lake(3)],
    );
    let points: Vec<[f32; 2]> = (2..=61).map(|x| [x as f32 + 0.5, 32.5]).collect();
    bp.roads = Some(RoadNetwork {
        roads: vec![Road { tier: RoadTier::Road, from_town: 0, to_town: 1, points, bridges: vec![] }],
    });
    let src = WorldSource::new(Arc::new(bp));
    let bed = |x: usize| src.roads.roads[0].bed_m[x - 2];
    let (lake_m, ground_m) = (level * MPR, ground * MPR);
    for x in 20..=24 {
        assert!((bed(x) - (lake_m + 0.5)).abs() < 1e-3, "column {x}: roadbed {} m beside a lake at {lake_m} m", bed(x));
    }
    for x in 40..=44 {
        assert!(
            (bed(x) - ground_m).abs() < 1e-3,
            "column {x}: roadbed {} m, 4 columns from a lake (ground {ground_m} m)",
            bed(x)
        );
    }
}

/// A column whose kept carve differs from the one worked out: x, y, kept, worked out.
type CarveDiff = (i64, i64, Option<isla::world::roads::Carve>, Option<isla::world::roads::Carve>);

/// Every column of `src` where the road carve kept at load differs from the one worked out from
/// every segment, with how many columns have a carve (or a paint field).
fn culled_carve_differs(src: &WorldSource) -> (usize, Vec<CarveDiff>) {
    let m = src.blueprint.map_size as i64;
    let (mut carved, mut differ) = (0, Vec::new());
    for x in 0..m {
        for y in 0..m {
            let (kept, every) = (src.roads.at(x, y), src.roads.at_uncached(&src.blueprint, x, y));
            carved += every.is_some() as usize;
            if kept != every {
                differ.push((x, y, kept, every));
            }
        }
    }
    (carved, differ)
}

/// SPEC §3 "Roads", culling: the carve kept at load (each column looks only at the segments its
/// chunk's list holds, grown by the widest reach) equals the carve worked out from every segment
/// of every road, on every column of two islands. On steep hills, at 2, 0.5 and 100 m a pixel:
/// roads along a chunk border, across chunk corners on a diagonal, round a curve, down the map's
/// edge and in two long segments, and a lake beside one. Round a pit: a highway on each rim, 1.8 px from a 50 m cliff, so its shoulder takes its
/// 48 m cap and reaches 26.3 px over a chunk border; and a town square whose shoulder reaches
/// chunks no road does. (cargo-mutants: a culling narrowed by its margin, its rounding or its
/// clamp, or a square's reach, was read by no test; widening them changes only the work.)
#[test]
fn the_culled_road_carve_equals_the_carve_from_every_segment() {
    let line = |a: [f32; 2], b: [f32; 2], k: usize| -> Vec<[f32; 2]> {
        (0..=k).map(|i| i as f32 / k as f32).map(|t| [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]).collect()
    };
    let road = |tier, points| Road { tier, from_town: 0, to_town: 1, points, bridges: vec![] };

    // Hills of ±30 m over 60–80 m: fills and cuts at a road's edge of tens of metres.
    let n = 160usize;
    let heights: Vec<f32> = (0..n * n)
        .map(|i| {
            let (x, y) = ((i / n) as f32, (i % n) as f32);
            0.35 + 0.12 * (x / 9.0).sin() * (y / 13.0).cos() + 0.05 * ((x + 2.0 * y) / 5.0).sin()
        })
        .collect();
    let mut hills = IslandBuilder::new(n as u32, heights).metres_per_raw(MPR).metres_per_pixel(2.0).build();
    let lake = |i: usize| (60..70).contains(&(i / n)) && (112..122).contains(&(i % n));
    let level = water_level::encode(0.42);
    let lake_body = WaterBody { id: 2, kind: WaterType::Lake, salinity: Salinity::Fresh, ..ocean_body(0.42) };
    hills = with_water(hills, |i, _| if lake(i) { (2, level) } else { (0, 0) }, vec![ocean_body(SEA), lake_body]);
    let arc: Vec<[f32; 2]> = (0..=140)
        .map(|i| 0.3 + 2.6 * i as f32 / 140.0)
        .map(|a| [80.0 + 45.0 * a.cos(), 80.0 + 45.0 * a.sin()])
        .collect();
    hills.roads = Some(RoadNetwork {
        roads: vec![
            road(RoadTier::Road, line([3.2, 5.1], [150.7, 140.3], 200)),
            road(RoadTier::Highway, line([0.5, 31.7], [159.5, 31.7], 160)),
            road(RoadTier::Road, arc),
            road(RoadTier::Road, line([157.3, 2.2], [158.9, 40.6], 40)),
            // Two long segments: a blueprint need not give a point per pixel.
            road(RoadTier::Road, vec![[20.3, 150.2], [90.6, 100.4], [140.1, 150.9]]),
            // At 100 m a pixel its paint field reaches column 95 (2.7 px off), over a chunk
            // border from its line.
            road(RoadTier::Road, line([98.2, 2.5], [98.2, 20.5], 18)),
        ],
    });
    // The same at 0.5 m a pixel, where the widest shoulder reaches 106 columns, and at 100 m,
    // where the paint field (two columns past a paint at least 0.75 of a column wide) reaches
    // farther than any shoulder.
    let (mut fine, mut coarse) = (hills.clone(), hills.clone());
    fine.params.metres_per_pixel = 0.5;
    coarse.params.metres_per_pixel = 100.0;

    // A plateau at 125 m round a pit at 75 m over columns 8–87; a City's square at (111.75,
    // 111.75), 12 px to a side, reaches the chunks from 128 only by the last 0.5 m of its 10 m
    // shoulder (column 128's centre is 4.75 px out).
    let n = 136usize;
    let pit = |v: usize| (8..88).contains(&v);
    let heights: Vec<f32> = (0..n * n).map(|i| if pit(i / n) && pit(i % n) { 0.3 } else { 0.5 }).collect();
    let town = Town { x: 111.75, y: 111.75, tier: TownTier::City, is_highway_node: true };
    let mut rims =
        IslandBuilder::new(n as u32, heights).metres_per_raw(MPR).metres_per_pixel(2.0).towns(vec![town]).build();
    rims.roads = Some(RoadNetwork {
        roads: vec![
            road(RoadTier::Highway, line([14.0, 6.2], [80.0, 6.2], 66)),
            road(RoadTier::Highway, line([14.0, 89.8], [80.0, 89.8], 66)),
            road(RoadTier::Highway, line([6.2, 14.0], [6.2, 80.0], 66)),
            road(RoadTier::Highway, line([89.8, 14.0], [89.8, 80.0], 66)),
        ],
    });

    for (name, bp) in [("hills", hills), ("fine hills", fine), ("coarse hills", coarse), ("rims", rims)] {
        let src = WorldSource::new(Arc::new(bp));
        let (carved, differ) = culled_carve_differs(&src);
        eprintln!("{name}: {carved} carved columns, {} differ", differ.len());
        assert!(
            differ.is_empty(),
            "{name}: the kept carve differs from every segment's at {} columns (column, kept, every): {:?}",
            differ.len(),
            &differ[..differ.len().min(4)]
        );
        assert!(carved > 2000, "{name}: only {carved} columns carved or painted");
        // Every chunk with a carved column is counted among the chunks a road reaches.
        let m = src.blueprint.map_size as i64;
        let chunks = (0..(m + 31) / 32)
            .flat_map(|cx| (0..(m + 31) / 32).map(move |cy| (cx, cy)))
            .filter(|&(cx, cy)| {
                (cx * 32..(cx * 32 + 32).min(m))
                    .any(|x| (cy * 32..(cy * 32 + 32).min(m)).any(|y| src.roads.at(x, y).is_some()))
            })
            .count();
        let held = src.roads.carved_chunks();
        assert!(held >= chunks && chunks > 1, "{name}: {held} chunks held, {chunks} with a carved column");
        if name == "rims" {
            // The far edge of each rim highway's 48 m shoulder (26.3 px out, no other road's
            // shoulder near), across the chunk borders at 32 and 64, and the square's shoulder
            // past the chunk border at 128.
            for (x, y) in [(40, 32), (32, 40), (40, 63), (63, 40), (128, 128), (128, 110), (110, 128)] {
                let carve = src.roads.at(x, y);
                assert!(carve.is_some_and(|c| c.surface_m.is_some()), "{name}: ({x}, {y}) is not carved ({carve:?})");
            }
        }
    }
}

/// SPEC §4 "Bridges": the default island's bridges have decks, standing over the river water
/// they span.
#[test]
fn bridge_decks_stand_over_the_rivers_they_span() {
    let src = default_source();
    let deck = isla::mesh::bridges::bridge_mesh(src);
    assert!(!deck.indices.is_empty(), "the default island's roads cross rivers on bridges");
    let top = src.layout.top_m();
    let (mut over, mut lowest) = (0, f32::MAX);
    for r in &src.roads.roads {
        for (i, p) in r.points.iter().enumerate() {
            if !r.bridge[i] {
                continue;
            }
            if let Some(w) = src.water_at(p[0] as u32, p[1] as u32, top) {
                let clearance = r.bed_m[i] + isla::mesh::bridges::DECK_ABOVE_BED_M - w.water_surface_y_m;
                lowest = lowest.min(clearance);
                over += 1;
            }
        }
    }
    eprintln!("{over} deck points over water, lowest {lowest:.2} m above it");
    assert!(over > 0);
    assert!(lowest >= 0.0, "a deck dips {lowest:.2} m into the river");
}

/// SPEC §3: a dry column is a seam column only when its rendered ground lies strictly below the
/// ocean's level; ground exactly at the level stays dry. (cargo-mutants: `<` for `<=` was missed.)
#[test]
fn ground_exactly_at_the_ocean_level_is_not_a_seam() {
    let mpr = 251.0;
    let level = 0.3;
    assert!(!is_seam_column(level, level, mpr), "ground at the ocean's level is dry");
    assert!(is_seam_column(level - 1e-4, level, mpr), "ground just below it is a seam");
    assert!(!is_seam_column(level + 1e-4, level, mpr));
}

/// SPEC §3: a column's water surface never rises above its chunk's top less the margin, so the
/// sheet is always inside the chunk's meshed height. (cargo-mutants: the margin added instead of
/// subtracted was missed.)
#[test]
fn the_water_surface_stays_below_the_chunk_top_by_the_margin() {
    let bp = with_water(bowl(), |_, h| if h < 0.5 { (1, 0) } else { (0, 0) }, vec![ocean_body(0.5)]);
    let src = WorldSource::new(Arc::new(bp));
    let (x, y) = (16, 16);
    let free = src.water_at(x, y, 1.0e4).expect("the bowl's floor is wet");
    let top_m = free.water_surface_y_m - 0.5;
    let clamped = src.water_at(x, y, top_m).expect("still wet");
    assert!(
        clamped.water_surface_y_m <= top_m - WATER_TOP_MARGIN_M + 1e-4,
        "surface {} above the top {top_m} less the margin",
        clamped.water_surface_y_m
    );
}

/// SPEC §4: the water's colour ramps from shallow to deep over `RAMP_DEPTH_M` by a smoothstep of
/// the depth (3t² − 2t³), read here on its alpha, which is mixed linearly. (cargo-mutants: the
/// smoothstep's arithmetic was unguarded.)
#[test]
fn the_water_ramp_is_a_smoothstep_of_the_depth() {
    use isla::mesh::water::{DEEP_ALPHA, RAMP_DEPTH_M, SHALLOW_ALPHA};
    for (depth, t) in [(0.0, 0.0), (0.25, 0.15625), (0.5, 0.5), (0.75, 0.84375), (1.0, 1.0), (2.0, 1.0), (-1.0, 0.0)] {
        let want = SHALLOW_ALPHA + (DEEP_ALPHA - SHALLOW_ALPHA) * t;
        let got = water_colour(depth * RAMP_DEPTH_M)[3];
        assert!((got - want).abs() < 1e-5, "at {depth} of the ramp: alpha {got}, want {want}");
    }
}

/// The water mesh's buffer size, counted as the flight's "GPU buffers" line counts it
/// (computed): 40 bytes a vertex (position 12, normal 12, linear RGBA 16), 4 an index; `clear`
/// empties it. (cargo-mutants: `byte_size`, `is_empty` and `clear` were unguarded.)
#[test]
fn the_water_mesh_counts_its_bytes_and_clears() {
    let mut m = WaterMesh::default();
    assert!(m.is_empty());
    assert_eq!(m.byte_size(), 0);
    m.positions = vec![[0.0; 3]; 3];
    m.normals = vec![[0.0, 1.0, 0.0]; 3];
    m.colors = vec![[0.0; 4]; 3];
    m.indices = vec![0, 1, 2, 2, 1, 0];
    assert!(!m.is_empty());
    assert_eq!(m.byte_size(), 3 * 40 + 6 * 4);
    m.clear();
    assert!(m.is_empty() && m.positions.is_empty() && m.normals.is_empty() && m.colors.is_empty());
}

/// A water cell's normal is the normal of its mean slope: for corners on a plane
/// `y = a·x + b·z` it is `(−a, 1, −b)` normalised, and a flat cell faces straight up.
/// (cargo-mutants: the slope arithmetic of `cell_normal` was unguarded.)
#[test]
fn a_water_cells_normal_is_its_planes_normal() {
    use isla::mesh::cell_normal;
    for (a, b, dx, dz) in
        [(0.1f32, -0.05f32, 4.0f32, 4.0f32), (-0.3, 0.2, 8.0, 2.0), (0.0, 0.7, 1.0, 16.0), (0.25, 0.0, 4.0, 4.0)]
    {
        let y = |x: f32, z: f32| 50.0 + a * x + b * z;
        let n = cell_normal([y(0.0, 0.0), y(0.0, dz), y(dx, dz), y(dx, 0.0)], dx, dz);
        let len = (a * a + 1.0 + b * b).sqrt();
        let want = [-a / len, 1.0 / len, -b / len];
        for k in 0..3 {
            assert!((n[k] - want[k]).abs() < 1e-5, "plane ({a}, {b}) over {dx}×{dz}: {n:?}, want {want:?}");
        }
    }
    assert_eq!(cell_normal([3.0; 4], 4.0, 4.0), [0.0, 1.0, 0.0]);
    // One corner lower: the cell leans, it is not flat.
    assert!(cell_normal([2.0, 3.0, 3.0, 3.0], 4.0, 4.0)[1] < 1.0);
}

/// SPEC §7: with the seam highlight on, exactly the water cells that touch a seam column are
/// drawn in the highlight colour; with it off, none. (cargo-mutants: the cell's seam flag and
/// the highlight's condition were unguarded.)
#[test]
fn the_seam_highlight_colours_exactly_the_cells_touching_a_seam() {
    use isla::mesh::mesh_water_styled;
    use isla::mesh::water::SEAM_HIGHLIGHT;
    let src = default_source();
    let chunk = src
        .layout
        .all_chunks()
        .map(|c| build_chunk(src, c))
        .find(|d| d.water.as_ref().is_some_and(|w| w.seam_columns > 0 && w.wet_columns > w.seam_columns + 50))
        .expect("a chunk with seam columns and other water");
    let (mut lit, mut plain) = (WaterMesh::default(), WaterMesh::default());
    mesh_water_styled(&chunk, true, &mut lit);
    mesh_water_styled(&chunk, false, &mut plain);
    let count = |m: &WaterMesh| m.colors.iter().filter(|c| **c == SEAM_HIGHLIGHT).count();
    assert_eq!(count(&plain), 0, "no highlight with it off");
    let cells = lit.colors.len() / 4;
    let seam_cells = count(&lit) / 4;
    assert!(seam_cells > 0 && seam_cells < cells, "{seam_cells} of {cells} cells highlighted");
    // Each highlighted cell has a seam corner; every cell with one is highlighted.
    let w = chunk.water.as_ref().unwrap();
    let col = chunk.column_m;
    let seam_at = |x: f32, z: f32| {
        let (cx, cz) = ((x / col).round() as i64 - chunk.origin_px.0, (z / col).round() as i64 - chunk.origin_px.1);
        w.columns[ChunkData::column_index(cx as usize, cz as usize)].is_some_and(|c| c.seam)
    };
    for (k, quad) in lit.positions.chunks_exact(4).enumerate() {
        let touches = quad.iter().any(|p| seam_at(p[0], p[2]));
        assert_eq!(lit.colors[4 * k] == SEAM_HIGHLIGHT, touches, "cell {k} at {:?}", quad[0]);
    }
}

/// SPEC §4 on the coarse levels: a dry corner of the water sheet takes one height, whichever
/// coarse cell draws it and whichever tile the cell is in, so a river's banks leave no sliver
/// at any level (`blueprints/small.dat`: rivers descending between lakes, levels 1–3).
#[test]
fn a_dry_bank_corner_has_one_height_on_the_coarse_levels() {
    use isla::mesh::Shading;
    use isla::mesh::lod::build_node;
    use isla::world::lod::{LodTree, NodeId};
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/blueprints/small.dat"));
    let src = WorldSource::new(Arc::new(read_file(path).unwrap()));
    let tree = LodTree::new(&src);
    let (col, n) = (src.layout.column_m, src.layout.map_size);
    let mut banks = 0;
    for level in 1..=tree.top_level {
        let side = (src.layout.chunks_per_side as i32 + (1 << level) - 1) >> level;
        let mut heights: std::collections::HashMap<(i64, i64), (f32, NodeId)> = Default::default();
        for x in 0..side {
            for z in 0..side {
                let id = NodeId::new(level, x, z);
                let (mesh, _, _) = build_node(&src, &tree, id, Shading::Palette, false);
                for p in &mesh.water.positions {
                    let key = ((p[0] / col).round() as i64, (p[2] / col).round() as i64);
                    let (known, by) = *heights.entry(key).or_insert((p[1], id));
                    let dry = src
                        .water_at((key.0 as u32).min(n - 1), (key.1 as u32).min(n - 1), src.layout.top_m())
                        .is_none();
                    if dry && by != id {
                        banks += 1;
                    }
                    assert!(
                        !dry || known == p[1],
                        "level {level}: the dry corner at column {key:?} stands at {known} m in {by:?} and {} m in {id:?}",
                        p[1]
                    );
                }
            }
        }
    }
    assert!(banks > 0, "no dry corner was shared by two tiles");
}

/// SPEC §4 "Roads": a bridge's end points are its abutments; they stand on land and pull the
/// roadbed like any land point, and the roadway between the last land point and an abutment is
/// road, carved to the roadbed, not bridge. Here the points are 6 columns apart and the
/// abutments stand on banks 1 m over the approaches, so the abutment's own ground decides its
/// roadbed (the grade's cone from the approaches, ±1.44 m, is wider than the bank).
#[test]
fn a_bridges_abutments_pull_the_roadbed_and_its_approaches_are_road() {
    let n = N as usize;
    // Ground 27.6 m, the banks 28.6 m (columns 24–28 and 35–39), a gorge at 12.6 m under a
    // river at 15.1 m (columns 30–33).
    let (ground, bank, gorge, river) = (0.11f32, 0.114f32, 0.05f32, 0.06f32);
    let river = water_level::decode(water_level::encode(river)).unwrap();
    let heights: Vec<f32> = (0..n * n)
        .map(|i| match i / n {
            24..=28 | 35..=39 => bank,
            30..=33 => gorge,
            _ => ground,
        })
        .collect();
    let bp = IslandBuilder::new(N, heights).sea_level_raw(SEA).metres_per_raw(MPR).metres_per_pixel(2.0).build();
    let lake = WaterBody { id: 2, kind: WaterType::Lake, salinity: Salinity::Fresh, ..ocean_body(river) };
    let mut bp = with_water(
        bp,
        |i, _| if (30..=33).contains(&(i / n)) { (2, water_level::encode(river)) } else { (0, 0) },
        vec![ocean_body(SEA), lake],
    );
    bp.rivers = Some(river_along_y(2, 31.5));
    // Points 2 and 4 are the abutments (columns 26 and 37), point 3 is over the river.
    let xs = [5.5f32, 20.5, 26.5, 31.5, 37.5, 43.5, 58.5];
    let points: Vec<[f32; 2]> = xs.iter().map(|&x| [x, 32.5]).collect();
    bp.roads = Some(RoadNetwork {
        roads: vec![Road { tier: RoadTier::Road, from_town: 0, to_town: 1, points, bridges: vec![[2, 4]] }],
    });
    let src = WorldSource::new(Arc::new(bp));
    let road = &src.roads.roads[0];
    assert_eq!(road.bridge, [false, false, true, true, true, false, false]);
    let bank_m = terrain_y_m(&src.blueprint, 26, 32);
    assert!((bank_m - terrain_y_m(&src.blueprint, 20, 32) - 1.0).abs() < 0.01, "the bank stands 1 m over the approach");
    for (i, col) in [(2usize, 26i64), (4, 37)] {
        assert!(
            (road.bed_m[i] - terrain_y_m(&src.blueprint, col, 32)).abs() < 1e-3,
            "the abutment at column {col} stands on its bank ({bank_m} m): roadbed {} m ({:?})",
            road.bed_m[i],
            road.bed_m
        );
    }
    // Between the last land point and each abutment, the columns on the line are road, at the
    // roadbed interpolated along the segment.
    for (i, cols) in [(1usize, 21..=25i64), (4, 38..=42)] {
        for x in cols {
            let t = (x as f32 + 0.5 - xs[i]) / (xs[i + 1] - xs[i]);
            let want = road.bed_m[i] + (road.bed_m[i + 1] - road.bed_m[i]) * t;
            assert_eq!(src.road_at(x, 32), Some(RoadTier::Road), "column ({x}, 32) on the approach is road");
            let got = src.surface_y_m(x, 32);
            assert!((got - want).abs() < 1e-3, "column ({x}, 32) on the approach: {got} m, the roadbed {want} m");
        }
    }
    // Under the span the river and its gorge stay as they are.
    assert_eq!(src.road_at(31, 32), None);
}

/// A road of one place (two equal points: the reader accepts it) is carved round that place
/// over its half-width, at the terrain there; nothing reads as NaN.
#[test]
fn a_road_of_two_equal_points_is_carved_round_its_one_place() {
    let n = N as usize;
    let mut bp = IslandBuilder::new(N, vec![0.11; n * n]).metres_per_raw(MPR).metres_per_pixel(2.0).build();
    bp.roads = Some(RoadNetwork {
        roads: vec![Road {
            tier: RoadTier::Road,
            from_town: 0,
            to_town: 1,
            points: vec![[32.5, 32.5], [32.5, 32.5]],
            bridges: vec![],
        }],
    });
    let src = WorldSource::new(Arc::new(bp));
    let ground = terrain_y_m(&src.blueprint, 32, 32);
    // Half-width 3 m at 2 m a pixel: the column centres within 1.5 px are the 3 × 3 block.
    for x in 29..=35i64 {
        for y in 29..=35i64 {
            let d = ((x - 32) as f32).hypot((y - 32) as f32);
            let want = (d <= 1.5).then_some(RoadTier::Road);
            assert_eq!(src.road_at(x, y), want, "({x}, {y}), {d} px from the road's place");
            let s = src.surface_y_m(x, y);
            assert!((s - ground).abs() < 1e-3, "({x}, {y}): {s} m on flat ground at {ground} m");
        }
    }
}
