//! `isla`: the command line. With no arguments it flies over the default island.

use anyhow::Context;
use clap::{Parser, Subcommand};
use isla::app::IslandWorld;
use isla::app::camera::CameraPreset;
use isla::blueprint::{self, Blueprint};
use isla::mesh::Shading;
use isla::world::{ChunkCoord, ChunkData, PADDED, WorldSource, build_chunk};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "isla", version, about = "Fly over island blueprints; forge, inspect and render them")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open a window and fly over a blueprint (the default command).
    Fly {
        /// Blueprint file; defaults to the repository's default island.
        blueprint: Option<PathBuf>,
        /// Exit after this many frames (smoke tests).
        #[arg(long)]
        frames: Option<u32>,
        /// With --frames: save a PNG of the window shortly before exiting.
        #[arg(long, requires = "frames")]
        screenshot: Option<PathBuf>,
        /// Start with the debug panel open.
        #[arg(long)]
        panel: bool,
        /// Start with the map window open.
        #[arg(long)]
        map: bool,
        /// Chunks within this distance (m) of the camera are kept resident.
        #[arg(long, default_value_t = isla::app::server::DEFAULT_VIEW_DISTANCE_M)]
        view_distance: f32,
    },
    /// Generate an island and write it as a blueprint (atomically).
    Forge {
        #[arg(long, default_value_t = 7)]
        seed: i32,
        #[arg(long, default_value_t = 256)]
        size: u32,
        #[arg(long, default_value_t = 4.0)]
        metres_per_pixel: f32,
        /// Run the droplet hydraulic erosion (recorded in EROS).
        #[arg(long)]
        erosion: bool,
        /// Also write PNG snapshots (height, biomes, water, depth) to this folder.
        #[arg(long)]
        snapshots: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Describe a blueprint: header, sections, sizes, warnings.
    Info {
        blueprint: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Render a blueprint headless (no window) to a PNG.
    Shot {
        blueprint: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 480)]
        width: u32,
        #[arg(long, default_value_t = 270)]
        height: u32,
        #[arg(long, value_enum, default_value_t = CameraPreset::Overview)]
        preset: CameraPreset,
        /// Turn the sun's shadows off.
        #[arg(long)]
        no_shadows: bool,
        /// Turn the sky dome off (the clear colour shows).
        #[arg(long)]
        no_sky: bool,
        /// Hide the water sheet (the seabed shows).
        #[arg(long)]
        no_water: bool,
        /// Turn the distance fog off.
        #[arg(long)]
        no_fog: bool,
        /// Draw every mesh's wireframe.
        #[arg(long)]
        wireframe: bool,
        /// Draw chunk borders.
        #[arg(long)]
        chunk_borders: bool,
        /// Terrain shading: the palette, or a debug view.
        #[arg(long, value_enum, default_value_t = Shading::Palette)]
        shading: Shading,
        /// Colour the water over shoreline-seam columns.
        #[arg(long)]
        seam_highlight: bool,
        /// Camera position in metres `X,Y,Z` (overrides --preset; needs --look-at).
        #[arg(long, value_parser = parse_xyz, requires = "look_at")]
        look_from: Option<[f32; 3]>,
        /// Point the camera looks at, metres `X,Y,Z`. Looking straight down, east is up in the frame.
        #[arg(long, value_parser = parse_xyz, requires = "look_from")]
        look_at: Option<[f32; 3]>,
        /// Sun elevation above the horizon, degrees.
        #[arg(long, default_value_t = isla::app::scene::SUN_ELEVATION_DEG)]
        sun_elevation: f32,
        /// Sun azimuth, degrees clockwise from north.
        #[arg(long, default_value_t = isla::app::scene::SUN_AZIMUTH_DEG)]
        sun_azimuth: f32,
        /// Chunks within this distance (m) of the camera are built before the frame is taken.
        #[arg(long, default_value_t = isla::app::server::DEFAULT_VIEW_DISTANCE_M)]
        view_distance: f32,
    },
    /// Render the in-game map headless to a PNG: terrain, water, cliffs and other layers.
    Map {
        blueprint: PathBuf,
        /// Comma-separated layers: terrain, water-bodies, bands, cliffiness, grid, cliffs,
        /// cliffs-by-orientation, towns, camera, all, none.
        #[arg(long, default_value = "terrain,cliffs")]
        layers: String,
        /// Cliff generator preset: island, nauvis or vulcanus.
        #[arg(long, default_value = "island")]
        preset: String,
        #[arg(long)]
        out: PathBuf,
        /// Region in blueprint pixels `X,Y,W,H` (default: the whole map).
        #[arg(long)]
        region: Option<String>,
        /// Blueprint pixels per image pixel (1 = full resolution).
        #[arg(long, default_value_t = 1)]
        scale: u32,
        /// Print placed cliffs per orientation, corner evaluations and time per pixel.
        #[arg(long)]
        stats: bool,
    },
    /// Dump the per-column data of the chunk holding blueprint pixel X,Y.
    Chunk {
        blueprint: PathBuf,
        /// Blueprint pixel `X,Y`.
        #[arg(long, value_parser = parse_xy)]
        at: (u32, u32),
        #[arg(long)]
        json: bool,
    },
}

fn parse_xyz(s: &str) -> Result<[f32; 3], String> {
    let v: Vec<f32> =
        s.split(',').map(|p| p.trim().parse::<f32>().map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    match v.as_slice() {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok([*x, *y, *z]),
        _ => Err("expected X,Y,Z in metres".into()),
    }
}

fn parse_xy(s: &str) -> Result<(u32, u32), String> {
    let (x, y) = s.split_once(',').ok_or("expected X,Y")?;
    Ok((x.trim().parse().map_err(|e| format!("X: {e}"))?, y.trim().parse().map_err(|e| format!("Y: {e}"))?))
}

/// A failure the user caused (bad input): one line, exit code 2.
struct BadInput(anyhow::Error);

fn load(path: &Path) -> Result<(Blueprint, PathBuf), BadInput> {
    let path = isla::resolve_blueprint_path(path);
    let bp = blueprint::read_file(&path).map_err(|e| BadInput(anyhow::anyhow!("{}: {e}", path.display())))?;
    for w in &bp.warnings {
        eprintln!("warning: {}: {} at byte {}: {}", path.display(), w.section, w.offset, w.message);
    }
    Ok((bp, path))
}

fn world_of(bp: Blueprint, path: &Path) -> IslandWorld {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "blueprint".into());
    IslandWorld { source: Arc::new(WorldSource::new(Arc::new(bp))), name }
}

/// Panics (for example "no Vulkan adapter") become one readable line unless a backtrace is asked
/// for with `RUST_BACKTRACE`.
fn install_panic_hook() {
    if std::env::var_os("RUST_BACKTRACE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info.location().map(|l| format!(" ({}:{})", l.file(), l.line())).unwrap_or_default();
        eprintln!("error: internal failure: {msg}{at}");
        if msg.contains("GPU") {
            eprintln!("hint: no Vulkan adapter was found; scripts/system-packages installs Mesa's software driver");
        }
    }));
}

fn main() -> ExitCode {
    install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version: print as clap does, success.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // Bad arguments: one line and exit code 2, like every other refusal.
            let text = e.to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            eprintln!("{}", first.trim_end());
            return ExitCode::from(2);
        }
    };
    let command = cli.command.unwrap_or(Command::Fly {
        blueprint: None,
        frames: None,
        screenshot: None,
        panel: false,
        map: false,
        view_distance: isla::app::server::DEFAULT_VIEW_DISTANCE_M,
    });
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(command)));
    let Ok(result) = outcome else {
        return ExitCode::from(101);
    };
    match result {
        Ok(code) => code,
        Err(Failure::Bad(BadInput(e))) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
        Err(Failure::Other(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

enum Failure {
    Bad(BadInput),
    Other(anyhow::Error),
}
impl From<BadInput> for Failure {
    fn from(b: BadInput) -> Self {
        Failure::Bad(b)
    }
}
impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

fn run(cmd: Command) -> Result<ExitCode, Failure> {
    match cmd {
        Command::Fly { blueprint, frames, screenshot, panel, map, view_distance } => {
            let view_distance = checked_view_distance(view_distance)?;
            let path = blueprint.unwrap_or_else(|| PathBuf::from(isla::DEFAULT_BLUEPRINT));
            let (bp, path) = load(&path)?;
            let exit = isla::app::fly::run(
                world_of(bp, &path),
                isla::app::fly::FlyOptions {
                    exit_after_frames: frames,
                    screenshot,
                    toggles: isla::app::debug::DebugToggles { panel, map, ..Default::default() },
                    view_distance_m: view_distance,
                },
            );
            Ok(if exit.is_success() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Forge { seed, size, metres_per_pixel, erosion, snapshots, out } => {
            if !(blueprint::MIN_MAP_SIZE..=blueprint::MAX_MAP_SIZE).contains(&size) {
                return Err(BadInput(anyhow::anyhow!("--size {size} is outside 32..=16384")).into());
            }
            if !(metres_per_pixel.is_finite() && metres_per_pixel > 0.0) {
                return Err(BadInput(anyhow::anyhow!("--metres-per-pixel must be positive")).into());
            }
            let mut dials = isla::forge::ForgeDials::new(seed, size);
            dials.metres_per_pixel = metres_per_pixel;
            if erosion {
                dials.erosion = Some(isla::forge::ErosionDials::new(size));
            }
            let t = std::time::Instant::now();
            let bp =
                isla::forge::forge(&dials, |r| eprintln!("forge: {:<7} {:>7.1} ms  {}", r.stage, r.millis, r.detail))
                    .map_err(BadInput)?;
            blueprint::write_file_atomic(&out, &bp).map_err(|e| Failure::Other(anyhow::anyhow!("{e}")))?;
            eprintln!("forge: wrote {} ({}², seed {seed}) in {:.2} s", out.display(), size, t.elapsed().as_secs_f64());
            if let Some(dir) = snapshots {
                std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
                isla::forge::snapshots(&bp, &dir)?;
                eprintln!("forge: snapshots in {}", dir.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Info { blueprint, json } => {
            let path = isla::resolve_blueprint_path(&blueprint);
            let bytes =
                std::fs::read(&path).map_err(|e| BadInput(anyhow::anyhow!("cannot read {}: {e}", path.display())))?;
            let bp = blueprint::read_bytes(&bytes).map_err(|e| BadInput(anyhow::anyhow!("{}: {e}", path.display())))?;
            let sections = blueprint::list_sections(&bytes).map_err(|e| BadInput(anyhow::anyhow!("{e}")))?;
            print_info(&path, bytes.len(), &bp, &sections, json);
            Ok(ExitCode::SUCCESS)
        }
        Command::Shot {
            blueprint,
            out,
            width,
            height,
            preset,
            no_shadows,
            no_sky,
            no_water,
            no_fog,
            wireframe,
            chunk_borders,
            shading,
            seam_highlight,
            sun_elevation,
            sun_azimuth,
            look_from,
            look_at,
            view_distance,
        } => {
            let view_distance_m = checked_view_distance(view_distance)?;
            if !(1..=8192).contains(&width) || !(1..=8192).contains(&height) {
                return Err(
                    BadInput(anyhow::anyhow!("--width and --height must be 1..=8192, got {width}×{height}")).into()
                );
            }
            if !(0.0..=90.0).contains(&sun_elevation) || !sun_azimuth.is_finite() {
                return Err(BadInput(anyhow::anyhow!(
                    "--sun-elevation must be 0..=90 degrees and --sun-azimuth finite"
                ))
                .into());
            }
            let (bp, path) = load(&blueprint)?;
            let toggles = isla::app::debug::DebugToggles {
                shadows: !no_shadows,
                sky: !no_sky,
                water: !no_water,
                fog: !no_fog,
                wireframe,
                chunk_borders,
                shading,
                seam_highlight,
                ..Default::default()
            };
            let sun = isla::app::scene::SunSettings {
                elevation_deg: sun_elevation,
                azimuth_deg: sun_azimuth,
                shadows: !no_shadows,
            };
            let camera = look_from.zip(look_at).map(|(f, a)| isla::app::camera::look(f.into(), a.into()));
            let opts = isla::app::shot::ShotOptions {
                width,
                height,
                preset,
                camera,
                toggles,
                sun,
                view_distance_m,
                ..Default::default()
            };
            let t = std::time::Instant::now();
            let img = isla::app::shot::render(world_of(bp, &path), &opts)?;
            isla::app::shot::save_png(&img, &out)?;
            eprintln!(
                "shot: wrote {} ({width}×{height}, {preset:?}) in {:.1} s",
                out.display(),
                t.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Map { blueprint, layers, preset, out, region, scale, stats } => {
            use isla::cliffs::{CliffPreset, CliffSettings, MapLayers, MapRegion, MapRequest, render_map, write_png};
            let (bp, _) = load(&blueprint)?;
            let layers = MapLayers::parse(&layers).map_err(|e| BadInput(anyhow::anyhow!("--layers: {e}")))?;
            let preset = CliffPreset::from_name(&preset).ok_or_else(|| {
                BadInput(anyhow::anyhow!("--preset: unknown preset '{preset}' (island, nauvis, vulcanus)"))
            })?;
            let region = match region {
                Some(r) => MapRegion::parse(&r).map_err(|e| BadInput(anyhow::anyhow!("--region: {e}")))?,
                None => MapRegion::whole(&bp),
            };
            // The region must overlap the map and stay a sane size (no huge images, no overflow).
            let n = bp.map_size as i64;
            let (w, h) = (region.w as i64, region.h as i64);
            if w < 1
                || h < 1
                || w > 4 * n
                || h > 4 * n
                || region.x <= -w
                || region.y <= -h
                || region.x >= n
                || region.y >= n
            {
                return Err(BadInput(anyhow::anyhow!(
                    "--region {},{},{},{} must overlap the {n}² map and be at most {} pixels on a side",
                    region.x,
                    region.y,
                    region.w,
                    region.h,
                    4 * n
                ))
                .into());
            }
            if scale == 0 || scale > 64 {
                return Err(BadInput(anyhow::anyhow!("--scale must be 1..=64")).into());
            }
            let region = region.scaled(scale);
            let req = MapRequest {
                blueprint: Some(&bp),
                water: None,
                settings: CliffSettings::for_blueprint(preset, &bp),
                region,
                layers,
                camera: None,
            };
            let t = std::time::Instant::now();
            let render = render_map(&req).map_err(|e| Failure::Other(anyhow::anyhow!("{e}")))?;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            write_png(&out, &render.image)?;
            let px = render.image.width as f64 * render.image.height as f64;
            eprintln!(
                "map: wrote {} ({}×{} px, preset {}) in {ms:.1} ms ({:.4} µs per pixel)",
                out.display(),
                render.image.width,
                render.image.height,
                preset.name(),
                ms * 1e3 / px
            );
            if stats && let Some(s) = render.stats() {
                println!(
                    "cliffs placed: {} ({} rejected by water, {} edges repaired, {} chunks restarted, {} abandoned)",
                    s.placed, s.rejected_by_water, s.repaired_edges, s.chunks_restarted, s.chunks_abandoned
                );
                for o in isla::cliffs::Orientation::ALL {
                    let n = s.placed_per_orientation[o as usize];
                    if n > 0 {
                        println!("  {:<14} {n}", o.name());
                    }
                }
                println!("corner evaluations: {}", s.corner_evaluations);
                println!(
                    "placement time: {:.2} ms, {:.4} µs per pixel of the map",
                    s.elapsed_ms,
                    s.elapsed_ms * 1e3 / px
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Chunk { blueprint, at, json } => {
            let (bp, _) = load(&blueprint)?;
            if at.0 >= bp.map_size || at.1 >= bp.map_size {
                return Err(
                    BadInput(anyhow::anyhow!("pixel {},{} is outside the {}² map", at.0, at.1, bp.map_size)).into()
                );
            }
            let src = WorldSource::new(Arc::new(bp));
            let coord = ChunkCoord::containing_pixel(at.0, at.1);
            let chunk = build_chunk(&src, coord);
            print_chunk(&src, &chunk, json).context("printing chunk")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn checked_view_distance(m: f32) -> Result<f32, BadInput> {
    if m.is_finite() && m > 0.0 {
        Ok(m)
    } else {
        Err(BadInput(anyhow::anyhow!("--view-distance must be a positive number of metres, got {m}")))
    }
}

fn print_info(path: &Path, size: usize, bp: &Blueprint, sections: &[blueprint::SectionInfo], json: bool) {
    let stats = bp.stats();
    let warnings: Vec<String> =
        bp.warnings.iter().map(|w| format!("{} at byte {}: {}", w.section, w.offset, w.message)).collect();
    if json {
        let sections: Vec<_> = sections
            .iter()
            .map(|s| serde_json::json!({"tag": s.tag, "offset": s.offset, "length": s.payload_bytes}))
            .collect();
        let v = serde_json::json!({
            "path": path.display().to_string(),
            "file_bytes": size,
            "format_version": blueprint::FORMAT_VERSION,
            "map_size": bp.map_size,
            "seed": bp.seed,
            "params": bp.params,
            "sections": sections,
            "water_bodies": bp.water.as_ref().and_then(|w| w.bodies.clone()).unwrap_or_default(),
            "stats": stats,
            "warnings": warnings,
        });
        println!("{}", serde_json::to_string_pretty(&v).expect("JSON"));
        return;
    }
    let p = &bp.params;
    println!("{}: blueprint v{}, {} bytes", path.display(), blueprint::FORMAT_VERSION, size);
    println!(
        "  map {0}×{0} pixels at {1} m = {2:.0} m across, seed {3}",
        bp.map_size,
        p.metres_per_pixel,
        bp.extent_m(),
        bp.seed
    );
    println!(
        "  sea level {} raw ({:.1} m), {} m per raw unit",
        p.sea_level_raw,
        p.sea_level_raw * p.metres_per_raw,
        p.metres_per_raw
    );
    if p.crater_radius > 0.0 {
        println!("  crater at ({}, {}) radius {} px", p.crater_x, p.crater_y, p.crater_radius);
    }
    println!("  sections:");
    for s in sections {
        println!("    {:<6} at byte {:>10}  {:>12} bytes", s.tag, s.offset, s.payload_bytes);
    }
    if let Some(bodies) = bp.water.as_ref().and_then(|w| w.bodies.as_ref()) {
        println!("  water bodies: {}", bodies.len());
        for b in bodies {
            println!(
                "    #{:<4} {:?} {:?} level {:.5} raw ({:.1} m), {} px, centroid ({:.0}, {:.0})",
                b.id,
                b.kind,
                b.salinity,
                b.surface_level_raw,
                b.surface_level_raw * p.metres_per_raw,
                b.pixel_count,
                b.centroid_x,
                b.centroid_y
            );
        }
    }
    println!(
        "  land {:.1}%, heights {:.1}..{:.1} m, {} wet pixels, {} seam candidates, {} towns",
        stats.land_fraction * 100.0,
        stats.height_min_m,
        stats.height_max_m,
        stats.wet_pixels,
        stats.seam_candidates,
        stats.towns
    );
    for w in &warnings {
        println!("  warning: {w}");
    }
}

fn print_chunk(src: &WorldSource, c: &ChunkData, json: bool) -> anyhow::Result<()> {
    let n = src.blueprint.map_size as i64;
    let mut rows = Vec::new();
    for cx in 0..PADDED - 1 {
        for cz in 0..PADDED - 1 {
            let (x, y) = (c.origin_px.0 + cx as i64, c.origin_px.1 + cz as i64);
            if x >= n || y >= n {
                continue;
            }
            let i = ChunkData::column_index(cx, cz);
            let w = c.water.as_ref().and_then(|w| w.columns[i]);
            rows.push(serde_json::json!({
                "x": x, "y": y,
                "surface_y_m": c.surface_y_m[i],
                "wet": w.is_some(),
                "level_raw": w.map(|w| w.level_raw),
                "water_surface_y_m": w.map(|w| w.water_surface_y_m),
                "true_depth_m": w.map(|w| w.true_depth_m),
                "seam": w.is_some_and(|w| w.seam),
            }));
        }
    }
    if json {
        println!("{}", serde_json::to_string(&rows)?);
    } else {
        let wet = c.water.as_ref().map_or(0, |w| w.wet_columns);
        let seam = c.water.as_ref().map_or(0, |w| w.seam_columns);
        println!(
            "chunk ({}, {}): pixels {}..{} × {}..{}, {} sections, {} wet columns ({} seam), max depth {:.1} m",
            c.coord.x,
            c.coord.z,
            c.origin_px.0,
            c.origin_px.0 + 31,
            c.origin_px.1,
            c.origin_px.1 + 31,
            c.sections.len(),
            wet,
            seam,
            c.water.as_ref().map_or(0.0, |w| w.max_depth_m)
        );
    }
    Ok(())
}
