//! Benchmarks of the hot paths, each against a peer measured in the same run (see
//! `docs/PERFORMANCE.md`). Run without Bevy, which the benches do not need:
//!
//! ```sh
//! cargo bench --no-default-features --bench pipeline
//! ```

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use isla::blueprint::{self, Blueprint, Params, Water, water_level};
use isla::mesh::{Mesher, TerrainMesh};
use isla::world::{ChunkCoord, ChunkData, PADDED, SectionData, WorldSource, build_chunk};
use std::hint::black_box;
use std::sync::Arc;

/// Cells per side of the meshing block: 128³ cells, as 4 × 4 × 4 sections of 32³.
const BLOCK: usize = 128;
const S: usize = 32;

/// Terrain-like density: rolling hills with ridges, signed distance to a height field.
fn density(x: f32, y: f32, z: f32) -> f32 {
    let h = 64.0
        + 18.0 * (x * 0.05).sin() * (z * 0.043).cos()
        + 9.0 * ((x + 2.0 * z) * 0.11).sin()
        + 4.0 * ((3.0 * x - z) * 0.23).cos()
        + 12.0 * (1.0 - ((x - 64.0) * 0.03).abs().min(1.0));
    y - h
}

/// The block as Isla's padded sections (x, z, y order per section).
fn isla_sections() -> Vec<ChunkData> {
    let mut out = Vec::new();
    for sx in 0..BLOCK / S {
        for sz in 0..BLOCK / S {
            let mut sections = Vec::new();
            for sy in 0..BLOCK / S {
                let mut d = vec![0f32; PADDED * PADDED * PADDED];
                for x in 0..PADDED {
                    for z in 0..PADDED {
                        for y in 0..PADDED {
                            d[(x * PADDED + z) * PADDED + y] =
                                density((sx * S + x) as f32, (sy * S + y) as f32, (sz * S + z) as f32);
                        }
                    }
                }
                sections.push(SectionData { index: sy as u32, material: vec![2; d.len()], density: d });
            }
            out.push(ChunkData {
                coord: ChunkCoord::new(sx as i32, sz as i32),
                origin_px: ((sx * S) as i64, (sz * S) as i64),
                column_m: 1.0,
                voxel_m: 1.0,
                surface_y_m: vec![0.0; PADDED * PADDED],
                gradient: vec![[0.0, 0.0]; PADDED * PADDED],
                biome: vec![3; PADDED * PADDED],
                sections,
                water: None,
            });
        }
    }
    out
}

/// The same block as one (BLOCK+1)³ array, x fastest (fast-surface-nets' layout).
fn flat_block() -> Vec<f32> {
    let n = BLOCK + 1;
    let mut v = vec![0f32; n * n * n];
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                v[x + n * (y + n * z)] = density(x as f32, y as f32, z as f32);
            }
        }
    }
    v
}

struct Block<'a>(&'a [f32]);

impl isosurface::source::ScalarSource for Block<'_> {
    fn sample_scalar(&self, p: isosurface::math::Vec3) -> isosurface::distance::Signed {
        let n = BLOCK + 1;
        let i = |v: f32| ((v * BLOCK as f32).round() as usize).min(BLOCK);
        isosurface::distance::Signed(self.0[i(p.x) + n * (i(p.y) + n * i(p.z))])
    }
}

fn meshers(c: &mut Criterion) {
    let chunks = isla_sections();
    let flat = flat_block();
    let mut g = c.benchmark_group("mesh_128_cubed");
    g.throughput(Throughput::Elements((BLOCK * BLOCK * BLOCK) as u64));
    g.sample_size(20);

    let mut mesher = Mesher::new();
    let mut out = TerrainMesh::default();
    g.bench_function("isla_marching_cubes", |b| {
        b.iter(|| {
            let mut tris = 0;
            for ch in &chunks {
                mesher.mesh_chunk(ch, &mut out);
                tris += out.triangle_count();
            }
            black_box(tris)
        })
    });

    let shape = fast_surface_nets::ndshape::RuntimeShape::<u32, 3>::new([BLOCK as u32 + 1; 3]);
    let mut fsn = fast_surface_nets::SurfaceNetsBuffer::default();
    g.bench_function("fast_surface_nets", |b| {
        b.iter(|| {
            fast_surface_nets::surface_nets(&flat, &shape, [0; 3], [BLOCK as u32; 3], &mut fsn);
            black_box(fsn.indices.len())
        })
    });

    let source = Block(&flat);
    let sampler = isosurface::sampler::Sampler::new(&source);
    let mut mc = isosurface::MarchingCubes::<isosurface::distance::Signed>::new(BLOCK);
    let (mut verts, mut idx) = (Vec::new(), Vec::new());
    g.sample_size(10);
    g.bench_function("isosurface_marching_cubes", |b| {
        b.iter(|| {
            verts.clear();
            idx.clear();
            mc.extract(&sampler, &mut isosurface::extractor::IndexedVertices::new(&mut verts, &mut idx));
            black_box(idx.len())
        })
    });

    g.sample_size(20);
    g.bench_function("sign_scan_floor", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for ch in &chunks {
                for s in &ch.sections {
                    n += s.density.iter().filter(|&&d| d < 0.0).count();
                }
            }
            black_box(n)
        })
    });
    g.finish();

    // Triangles and bytes per triangle, reported once for the docs.
    let (mut tris, mut bytes) = (0, 0);
    for ch in &chunks {
        mesher.mesh_chunk(ch, &mut out);
        tris += out.triangle_count();
        bytes += out.byte_size();
    }
    eprintln!(
        "isla mesher: {tris} triangles, {:.1} bytes per triangle (vertex + index buffers)",
        bytes as f64 / tris as f64
    );
}

fn default_island() -> Arc<WorldSource> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/blueprints/default.dat");
    Arc::new(WorldSource::new(Arc::new(blueprint::read_file(std::path::Path::new(path)).unwrap())))
}

fn island(c: &mut Criterion) {
    let src = default_island();
    let coords: Vec<ChunkCoord> = src.layout.all_chunks().collect();
    let mut g = c.benchmark_group("default_island");
    g.sample_size(10);
    g.throughput(Throughput::Elements(coords.len() as u64));
    g.bench_function("build_chunk_data_all_chunks", |b| {
        b.iter(|| {
            use rayon::prelude::*;
            let n: usize = coords.par_iter().map(|&c| build_chunk(&src, c).sections.len()).sum();
            black_box(n)
        })
    });
    let built: Vec<ChunkData> = coords.iter().map(|&c| build_chunk(&src, c)).collect();
    let voxels: usize = built.iter().map(|c| c.sections.len() * S * S * S).sum();
    g.throughput(Throughput::Elements(voxels as u64));
    let mut mesher = Mesher::new();
    let mut out = TerrainMesh::default();
    g.bench_function("mesh_all_chunks_one_thread", |b| {
        b.iter(|| {
            let mut tris = 0;
            for ch in &built {
                mesher.mesh_chunk(ch, &mut out);
                tris += out.triangle_count();
            }
            black_box(tris)
        })
    });
    g.finish();
}

/// A 4096² blueprint with every grid section, written once to the build directory.
fn big_blueprint() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("synthetic-4096.dat");
    if path.exists() {
        return path;
    }
    let n = 4096usize;
    let heights: Vec<f32> =
        (0..n * n).map(|i| ((i / n) as f32 * 0.01).sin() * 0.4 + ((i % n) as f32 * 0.013).cos() * 0.4 + 0.4).collect();
    let ids: Vec<u16> = heights.iter().map(|&h| if h < 0.3 { 1 } else { 0 }).collect();
    let surface = ids.iter().map(|&i| if i == 0 { 0 } else { water_level::encode(0.3) }).collect();
    let bp = Blueprint {
        map_size: n as u32,
        seed: 1,
        params: Params {
            sea_level_raw: 0.3,
            metres_per_raw: 251.0,
            metres_per_pixel: 1.0,
            crater_x: 0.0,
            crater_y: 0.0,
            crater_radius: 0.0,
        },
        biomes: heights.iter().map(|&h| if h < 0.3 { 0 } else { 3 }).collect(),
        heights_raw: heights,
        towns: None,
        water: Some(Water { body_ids: ids, bodies: Some(vec![]), surface: Some(surface) }),
        curve: None,
        detail: None,
        erosion: None,
        warnings: vec![],
    };
    blueprint::write_file_atomic(&path, &bp).unwrap();
    path
}

fn reader(c: &mut Criterion) {
    let path = big_blueprint();
    let len = std::fs::metadata(&path).unwrap().len();
    let mut g = c.benchmark_group("read_4096");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(len));
    g.bench_with_input(BenchmarkId::new("plain_fs_read", len), &path, |b, p| {
        b.iter(|| black_box(std::fs::read(p).unwrap().len()))
    });
    g.bench_with_input(BenchmarkId::new("blueprint_read_file", len), &path, |b, p| {
        b.iter(|| black_box(blueprint::read_file(p).unwrap().map_size))
    });
    g.finish();
}

criterion_group!(benches, meshers, island, reader, cliffs, forge);
criterion_main!(benches);

/// The cliff map layer (SPEC §6) on a forged island with the `island` preset: placement (corner
/// fields, crossings, repair, water rejection) plus painting, in µs per pixel = 1 / (Melem/s).
/// One thread (a 1-thread rayon pool) and all threads; and a 1024² window tiled as 16 × 256²
/// against the whole, whose ratio is printed (target ≤ 1.05).
fn cliffs(c: &mut Criterion) {
    use isla::cliffs::{CliffPreset, CliffSettings, MapLayers, MapRegion, MapRequest, WaterMask, render_map};
    let bp = isla::forge::forge(&isla::forge::ForgeDials::new(7, 1024), |_| {}).unwrap();
    let water = WaterMask::from_blueprint(&bp);
    let settings = CliffSettings::for_blueprint(CliffPreset::Island, &bp);
    let layers = MapLayers::parse("cliffs").unwrap();
    let request = |region: MapRegion| MapRequest {
        blueprint: Some(&bp),
        water: Some(&water),
        settings,
        region,
        layers,
        camera: None,
    };
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut g = c.benchmark_group("cliffs");
    g.sample_size(10);
    for size in [256u32, 1024] {
        let region = MapRegion::new(((1024 - size) / 2) as i64, ((1024 - size) / 2) as i64, size, size);
        g.throughput(Throughput::Elements(size as u64 * size as u64));
        g.bench_function(BenchmarkId::new("cliff_layer_one_thread", size), |b| {
            b.iter(|| one_thread.install(|| black_box(render_map(&request(region)).unwrap().image.pixels.len())))
        });
        g.bench_function(BenchmarkId::new("cliff_layer_all_threads", size), |b| {
            b.iter(|| black_box(render_map(&request(region)).unwrap().image.pixels.len()))
        });
    }
    let tiles: Vec<MapRegion> =
        (0..4).flat_map(|ty| (0..4).map(move |tx| MapRegion::new(tx * 256, ty * 256, 256, 256))).collect();
    let whole = MapRegion::new(0, 0, 1024, 1024);
    g.throughput(Throughput::Elements(1024 * 1024));
    g.bench_function("whole_1024_one_thread", |b| {
        b.iter(|| one_thread.install(|| black_box(render_map(&request(whole)).unwrap().image.pixels.len())))
    });
    g.bench_function("tiled_16x256_one_thread", |b| {
        b.iter(|| {
            one_thread.install(|| {
                black_box(tiles.iter().map(|&t| render_map(&request(t)).unwrap().image.pixels.len()).sum::<usize>())
            })
        })
    });
    g.finish();

    // Paired, interleaved minima for the ratio (the machines are noisy; see docs/PERFORMANCE.md).
    let time = |f: &dyn Fn()| {
        let t = std::time::Instant::now();
        f();
        t.elapsed().as_secs_f64()
    };
    let (mut best_whole, mut best_tiled) = (f64::MAX, f64::MAX);
    for _ in 0..15 {
        best_whole = best_whole.min(time(&|| {
            one_thread.install(|| black_box(render_map(&request(whole)).unwrap().image.pixels.len()));
        }));
        best_tiled = best_tiled.min(time(&|| {
            one_thread.install(|| {
                for &t in &tiles {
                    black_box(render_map(&request(t)).unwrap().image.pixels.len());
                }
            })
        }));
    }
    let px = 1024.0 * 1024.0;
    eprintln!(
        "cliff layer 1024², one thread: whole {:.4} µs/px, tiled 16 × 256² {:.4} µs/px, tiled/whole {:.3}",
        best_whole * 1e6 / px,
        best_tiled * 1e6 / px,
        best_tiled / best_whole
    );
}

/// The forge (SPEC §2, `docs/FORGE.md`): a 1024² island without erosion (target < 3 s on two
/// cores), the same with droplet erosion (its cost is the difference), and one timed 4096² run
/// (target < 60 s; too slow for criterion's sampling, so it is timed once and printed).
fn forge(c: &mut Criterion) {
    use isla::forge::{ErosionDials, ForgeDials, forge};
    let mut g = c.benchmark_group("forge");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1024 * 1024));
    let plain = ForgeDials::new(7, 1024);
    g.bench_function("island_1024", |b| b.iter(|| black_box(forge(&plain, |_| {}).unwrap().map_size)));
    let mut eroded = plain.clone();
    eroded.erosion = Some(ErosionDials::new(1024));
    g.bench_function("island_1024_erosion", |b| b.iter(|| black_box(forge(&eroded, |_| {}).unwrap().map_size)));
    g.finish();

    let t = std::time::Instant::now();
    let bp = forge(&ForgeDials::new(7, 4096), |r| {
        eprintln!("forge 4096²: {:<8} {:>9.1} ms  {}", r.stage, r.millis, r.detail)
    })
    .unwrap();
    eprintln!("forge 4096² (no erosion): {:.2} s, {} px", t.elapsed().as_secs_f64(), bp.heights_raw.len());
}
