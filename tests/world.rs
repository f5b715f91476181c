//! World server rules (SPEC §3), meshing (SPEC §4) and forge determinism (SPEC §2), on small
//! synthetic blueprints.

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
    Blueprint {
        map_size: N,
        seed: 1,
        params: Params {
            sea_level_raw: SEA,
            metres_per_raw: MPR,
            metres_per_pixel: 2.0,
            crater_x: 0.0,
            crater_y: 0.0,
            crater_radius: 0.0,
        },
        biomes: heights.iter().map(|&h| if h < SEA { 0 } else { 3 }).collect(),
        heights_raw: heights,
        towns: None,
        water: None,
        curve: None,
        detail: None,
        erosion: None,
        warnings: vec![],
    }
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
    assert_eq!(surface_y_m(&bp, 0, 0), FLOOR_Y_M);
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
    let coord = ChunkCoord::new(1, 0);
    let a = build_chunk(&src, coord);
    let s2 = src.clone();
    let b = std::thread::spawn(move || build_chunk(&s2, coord)).join().unwrap();
    assert_eq!(a, b);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let c = pool.install(|| build_chunk(&src, coord));
    assert_eq!(a, c);
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
    assert!(a.normals.iter().all(|n| n[1] > 0.0), "a height field's gradient normals point up");
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
        wet_columns: 2,
        seam_columns: 0,
        max_depth_m: 70.0,
        surface_y_range_m: [10.0, 12.0],
    });
    mesh_water(&chunk, &mut out);
    // Cells touching a wet corner: (0,0) [both], (0,1),(1,0),(1,1) [column (1,1)] → 4 quads.
    assert_eq!(out.indices.len(), 4 * 6);
    assert!(out.normals.iter().all(|n| *n == [0.0, 1.0, 0.0]));
    // Every triangle is horizontal (no vertical faces) and wound counter-clockwise from above.
    for t in out.indices.chunks(3) {
        let [p0, p1, p2] = [out.positions[t[0] as usize], out.positions[t[1] as usize], out.positions[t[2] as usize]];
        assert!(p0[1] == p1[1] && p1[1] == p2[1], "flat");
        let ny = (p1[2] - p0[2]) * (p2[0] - p0[0]) - (p1[0] - p0[0]) * (p2[2] - p0[2]);
        assert!(ny > 0.0, "faces up");
    }
    // Cell (0,0) has both wet corners: flat at the highest (12 m), coloured by the deepest (70 m).
    assert!(out.positions[..4].iter().all(|p| p[1] == 12.0));
    assert_eq!(out.colors[0], water_colour(70.0));
    assert_eq!(water_colour(70.0), water_colour(60.0), "ramp bottoms out at 60 m");
    assert!(water_colour(0.0)[3] < water_colour(30.0)[3]);
    assert!((water_colour(0.0)[3] - 0.62).abs() < 1e-6 && (water_colour(60.0)[3] - 0.97).abs() < 1e-6);
}

#[test]
fn forge_is_deterministic_across_thread_counts() {
    let dials = isla::forge::ForgeDials::new(11, 96);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| to_bytes(&isla::forge::forge(&dials, |_| {}).unwrap()).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(2));
}

#[test]
fn forged_water_sections_agree() {
    let bp = isla::forge::forge(&isla::forge::ForgeDials::new(5, 128), |_| {}).unwrap();
    let w = bp.water.as_ref().unwrap();
    let surf = w.surface.as_ref().unwrap();
    let n = bp.map_size;
    for i in 0..w.body_ids.len() {
        let id = w.body_ids[i];
        assert_eq!(id == 0, surf[i] == water_level::NO_WATER, "WSRF non-zero exactly where WBID is");
        if id != 0 {
            let level = w.body(id).expect("every id is in WBTB").surface_level_raw;
            assert_eq!(water_level::decode(surf[i]).unwrap(), water_level::decode(water_level::encode(level)).unwrap());
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
        sections: vec![SectionData { index: 0, material: vec![2; density.len()], density }],
        water: None,
    }
}

#[test]
fn marching_cubes_surface_is_closed_and_consistently_wound() {
    // Blobby shapes exercise all kinds of cases, ambiguous faces included.
    let shapes: Vec<Box<dyn Fn(f32, f32, f32) -> f32>> = vec![
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
