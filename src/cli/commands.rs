//! One function per command. Each takes its parsed arguments (already range-checked by
//! [`super::args`]) and calls the library; the printing of `info` and `chunk` lives here too.

use super::args::{ChunkArgs, DiffArgs, FlightArgs, FlyArgs, ForgeArgs, InfoArgs, MapArgs, SceneArgs, ShotArgs};
use super::{BadInput, Failure, bad, writable_dir, writable_file};
use anyhow::Context;
use isla::app::IslandWorld;
use isla::app::debug::DebugToggles;
use isla::blueprint::{self, Blueprint};
use isla::world::{ChunkCoord, ChunkData, PADDED, WorldSource, build_chunk};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

type Outcome = Result<ExitCode, Failure>;

/// Read a blueprint (bad input when it cannot be read or is malformed); print its warnings.
pub(super) fn load(path: &Path) -> Result<(Blueprint, PathBuf), BadInput> {
    let path = isla::resolve_blueprint_path(path);
    let bp = blueprint::read_file(&path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    for w in &bp.warnings {
        eprintln!("warning: {}: {} at byte {}: {}", path.display(), w.section, w.offset, w.message);
    }
    Ok((bp, path))
}

pub(super) fn world_of(bp: Blueprint, path: &Path) -> IslandWorld {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "blueprint".into());
    IslandWorld { source: Arc::new(WorldSource::new(Arc::new(bp))), name }
}

pub fn fly(a: FlyArgs) -> Outcome {
    if let Some(shot) = &a.screenshot {
        writable_file("--screenshot", shot)?;
    }
    let path = a.blueprint.unwrap_or_else(|| PathBuf::from(isla::DEFAULT_BLUEPRINT));
    let (bp, path) = load(&path)?;
    let world = world_of(bp, &path);
    let view = view_of(&world, &path, &a.scene)?;
    let toggles = DebugToggles { panel: a.panel, map: a.map, ..DebugToggles::of_view(&view.switches) };
    let opts = isla::app::fly::FlyOptions {
        exit_after_frames: a.frames,
        screenshot: a.screenshot,
        view,
        toggles,
        view_distance_m: a.scene.stream.view_distance,
        views_file: Some(path.clone()),
        watch: Some(path.clone()),
        clicks: isla::app::probe::StartClicks {
            probe: a.probe.map(|(x, y)| [x as f32, y as f32]),
            ruler: a.ruler.unwrap_or_default().iter().map(|&(x, y)| [x as f32, y as f32]).collect(),
        },
    };
    let exit = isla::app::fly::run(world, opts);
    Ok(if exit.is_success() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The whole view the camera, view and stream flags ask for on `world`: the view string (or the
/// preset's or explicit pose with the defaults), refined by every flag given.
fn view_of(world: &IslandWorld, blueprint: &Path, scene: &SceneArgs) -> Result<isla::view::View, BadInput> {
    use super::args::ViewArg;
    use isla::view::{Sun, Switches, View};
    let (cam, v, stream) = (&scene.camera, &scene.view, &scene.stream);
    let mut view = match (&cam.view, cam.look_from.zip(cam.look_at)) {
        (Some(ViewArg::String(view)), _) => *view,
        (Some(ViewArg::Saved(name)), _) => isla::views::load(blueprint, name).map_err(|e| bad(e.to_string()))?,
        (None, Some((from, at))) => {
            isla::view::check_pose(from, at).map_err(|e| bad(format!("--look-from/--look-at: {e}")))?;
            View { from, at, sun: Sun::default(), switches: Switches::default(), lod: true }
        }
        (None, None) => {
            let (from, at) = cam.preset.unwrap_or_default().pose(&world.source);
            View {
                from: from.to_array(),
                at: at.to_array(),
                sun: Sun::default(),
                switches: Switches::default(),
                lod: true,
            }
        }
    };
    let s = &mut view.switches;
    s.shadows &= !v.no_shadows;
    s.sky &= !v.no_sky;
    s.water &= !v.no_water;
    s.fog &= !v.no_fog;
    s.wireframe |= v.wireframe;
    s.chunk_borders |= v.chunk_borders;
    s.seam_highlight |= v.seam_highlight;
    s.lod_colours |= v.lod_colours;
    if let Some(shading) = v.shading {
        s.shading = shading;
    }
    view.sun.elevation_deg = v.sun_elevation.unwrap_or(view.sun.elevation_deg);
    view.sun.azimuth_deg = v.sun_azimuth.unwrap_or(view.sun.azimuth_deg);
    if let Some(lod) = stream.lod {
        view.lod = lod.enabled();
    }
    Ok(view)
}

/// The dials `forge` runs with: the dials file or a blueprint's record (or the defaults), then
/// the flags over them; each value checked against its dial's range.
fn forge_dials(a: &ForgeArgs) -> Result<isla::forge::ForgeDials, BadInput> {
    use isla::blueprint::DialValue;
    use isla::forge::dials;
    let mut values = match (&a.dials, &a.dials_from) {
        (Some(p), _) => dials::load_toml(p).map_err(|e| bad(e.0))?,
        (None, Some(p)) => {
            let (bp, path) = load(p)?;
            let record = bp.dials.ok_or_else(|| {
                bad(format!(
                    "{}: no DIAL section: the island was forged before the forge recorded its dials",
                    path.display()
                ))
            })?;
            dials::from_record(&path.display().to_string(), &record).map_err(|e| bad(e.0))?
        }
        (None, None) => dials::Values::new(),
    };
    let mut set =
        |flag: &str, key: &str, v: DialValue| dials::set_value(&mut values, flag, key, v).map_err(|e| bad(e.0));
    if let Some(s) = a.seed {
        set("--seed", "seed", DialValue::Int(s as i64))?;
    }
    if let Some(s) = a.size {
        set("--size", "size", DialValue::Int(s as i64))?;
    }
    if let Some(m) = a.metres_per_pixel {
        set("--metres-per-pixel", "metres_per_pixel", DialValue::Float(m))?;
    }
    if a.erosion {
        set("--erosion", "erosion.enabled", DialValue::Bool(true))?;
    }
    if let Some(r) = a.rivers {
        set("--rivers", "rivers.enabled", DialValue::Bool(r.enabled()))?;
    }
    if let Some(r) = a.roads {
        set("--roads", "roads.enabled", DialValue::Bool(r.enabled()))?;
    }
    Ok(dials::build(&values))
}

pub fn forge(a: ForgeArgs) -> Outcome {
    use isla::forge::ForgeError;
    let dials = forge_dials(&a)?;
    if a.print_dials {
        print!("{}", isla::forge::dials::to_toml(&dials));
        return Ok(ExitCode::SUCCESS);
    }
    let out = a.out.clone().expect("clap requires --out without --print-dials");
    writable_file("--out", &out)?;
    if let Some(dir) = &a.snapshots {
        writable_dir("--snapshots", dir)?;
    }
    let t = std::time::Instant::now();
    let report = |r: &isla::forge::StageReport| eprintln!("forge: {:<7} {:>7.1} ms  {}", r.stage, r.millis, r.detail);
    let bp = isla::forge::forge(&dials, report).map_err(|e| match e {
        ForgeError::BadDials(_) => Failure::Bad(bad(e.to_string())),
        ForgeError::Internal(_) => Failure::Other(anyhow::anyhow!("{e}")),
    })?;
    blueprint::write_file_atomic(&out, &bp).map_err(|e| anyhow::anyhow!("{e}"))?;
    eprintln!(
        "forge: wrote {} ({}², seed {}) in {:.2} s",
        out.display(),
        dials.size,
        dials.seed,
        t.elapsed().as_secs_f64()
    );
    if bp.roads.is_some() {
        // The world grades the roads together where they meet (SPEC §3 "Joins"): say how well
        // this island's roadbeds agree there, as `isla info` does.
        let (_, j) = isla::world::roads::joined_roadbeds(&bp);
        eprintln!(
            "forge: roads joined where they meet: {} contacts, {} points pinned, residue {:.2} m",
            j.contacts, j.pinned_points, j.residue_m
        );
    }
    if let Some(dir) = a.snapshots {
        isla::forge::snapshots(&bp, &dir)?;
        eprintln!("forge: snapshots in {}", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

pub fn info(a: InfoArgs) -> Outcome {
    let path = isla::resolve_blueprint_path(&a.blueprint);
    let bytes = std::fs::read(&path).map_err(|e| bad(format!("cannot read {}: {e}", path.display())))?;
    let bp = blueprint::read_bytes(&bytes).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    let sections = blueprint::list_sections(&bytes).map_err(|e| bad(format!("{e}")))?;
    if a.json {
        print_info_json(&path, bytes.len(), &bp, &sections);
    } else {
        print_info_text(&path, bytes.len(), &bp, &sections);
    }
    Ok(ExitCode::SUCCESS)
}

/// `isla diff A B`: exit 0 when the two are equal, 1 when they differ, 2 when a file is bad
/// (as `diff` does); a PNG that cannot be written is trouble too (2).
pub fn diff(a: DiffArgs) -> Outcome {
    if let Some(png) = &a.png {
        writable_file("--png", png)?;
    }
    let (pa, pb) = (isla::resolve_blueprint_path(&a.a), isla::resolve_blueprint_path(&a.b));
    let t = std::time::Instant::now();
    let c = isla::diff::diff_files(&pa, &pb).map_err(|e| bad(e.0))?;
    for (p, bp) in [(&pa, &c.a), (&pb, &c.b)] {
        for w in &bp.warnings {
            eprintln!("warning: {}: {} at byte {}: {}", p.display(), w.section, w.offset, w.message);
        }
    }
    if a.json {
        let mut v = serde_json::to_value(&c.diff).context("diff JSON")?;
        if let Some(o) = v.as_object_mut() {
            o.insert("a".into(), serde_json::json!(pa.display().to_string()));
            o.insert("b".into(), serde_json::json!(pb.display().to_string()));
        }
        println!("{}", serde_json::to_string_pretty(&v).context("diff JSON")?);
    } else {
        for line in c.diff.text(&pa.display().to_string(), &pb.display().to_string()) {
            println!("{line}");
        }
    }
    if let Some(png) = &a.png {
        match isla::diff::picture(&c) {
            Some(img) => {
                let bytes = isla::io::encode_png_rgb(img.as_raw(), img.width(), img.height())?;
                isla::io::write_png_atomic(png, &bytes)
                    .map_err(|e| bad(format!("--png {}: cannot write: {e:#}", png.display())))?;
                eprintln!("diff: drew the changes in {} ({}×{})", png.display(), img.width(), img.height());
            }
            None => eprintln!("diff: --png: the maps differ in size, so nothing is drawn"),
        }
    }
    eprintln!("diff: compared in {:.2} s", t.elapsed().as_secs_f64());
    Ok(ExitCode::from(if c.diff.equal { 0 } else { 1 }))
}

pub fn shot(a: ShotArgs) -> Outcome {
    writable_file("--out", &a.out)?;
    let (bp, path) = load(&a.blueprint)?;
    let world = world_of(bp, &path);
    let view = view_of(&world, &path, &a.scene)?;
    let cam = &a.scene.camera;
    let what = match (cam.view.is_some(), cam.look_from.is_some()) {
        (true, _) => "view string".to_string(),
        (_, true) => "explicit camera".to_string(),
        _ => cam.preset.unwrap_or_default().name().to_string(),
    };
    if let Some((px, py)) = a.probe
        && (px >= a.width || py >= a.height)
    {
        return Err(bad(format!("--probe {px},{py}: outside the {}×{} frame", a.width, a.height)).into());
    }
    let source = world.source.clone();
    let t = std::time::Instant::now();
    let mut renderer = isla::app::shot::Renderer::new(world, a.scene.stream.view_distance).of_file(&path);
    let img = renderer.render(&view, a.width, a.height)?;
    isla::app::shot::save_png(&img, &a.out)?;
    eprintln!(
        "shot: wrote {} ({}×{}, {what}) in {:.1} s",
        a.out.display(),
        a.width,
        a.height,
        t.elapsed().as_secs_f64()
    );
    println!("view: {view}");
    if let Some(p) = a.probe {
        println!("probe: {}", probe_json(&source, &view, (a.width, a.height), p));
    }
    Ok(ExitCode::SUCCESS)
}

/// The probe of frame pixel `p` (SPEC §9 `shot --probe`).
fn probe_json(src: &WorldSource, view: &isla::view::View, frame: (u32, u32), p: (u32, u32)) -> serde_json::Value {
    use isla::world::probe::{cast, level_at, pixel_ray, probe_json};
    let dir = pixel_ray(view.from, view.at, frame, (p.0 as f32 + 0.5, p.1 as f32 + 0.5));
    let hit = cast(src, view.from, dir);
    let tree = (view.lod && hit.is_some()).then(|| isla::world::lod::LodTree::new(src));
    let level = hit.map_or(0, |h| level_at(tree.as_ref(), &h, view.from));
    let mut v = probe_json(src, hit, level);
    if let Some(o) = v.as_object_mut() {
        o.insert("frame_pixel".into(), serde_json::json!([p.0, p.1]));
    }
    v
}

pub fn map(a: MapArgs) -> Outcome {
    use isla::cliffs::{CliffPreset, CliffSettings, MapLayers, MapRegion, MapRequest, render_map, write_png};
    writable_file("--out", &a.out)?;
    let (bp, _) = load(&a.blueprint)?;
    let layers = MapLayers::parse(&a.layers).map_err(|e| bad(format!("--layers: {e}")))?;
    let preset = CliffPreset::from_name(&a.preset)
        .ok_or_else(|| bad(format!("--preset: unknown preset '{}' (island, nauvis, vulcanus)", a.preset)))?;
    let region = match &a.region {
        Some(r) => MapRegion::parse(r).map_err(|e| bad(format!("--region: {e}")))?,
        None => MapRegion::whole(&bp),
    };
    region.check_against(bp.map_size).map_err(|e| bad(format!("--region: {e}")))?;
    let req = MapRequest {
        blueprint: Some(&bp),
        water: None,
        settings: CliffSettings::for_blueprint(preset, &bp),
        region: region.scaled(a.scale),
        layers,
        camera: None,
    };
    let t = std::time::Instant::now();
    let render = render_map(&req).map_err(|e| anyhow::anyhow!("{e}"))?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    write_png(&a.out, &render.image)?;
    let px = render.image.width as f64 * render.image.height as f64;
    eprintln!(
        "map: wrote {} ({}×{} px, preset {}) in {ms:.1} ms ({:.4} µs per pixel)",
        a.out.display(),
        render.image.width,
        render.image.height,
        preset.name(),
        ms * 1e3 / px
    );
    if a.stats
        && let Some(s) = render.stats()
    {
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
        println!("placement time: {:.2} ms, {:.4} µs per pixel of the map", s.elapsed_ms, s.elapsed_ms * 1e3 / px);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn chunk(a: ChunkArgs) -> Outcome {
    let (bp, _) = load(&a.blueprint)?;
    if a.at.0 >= bp.map_size || a.at.1 >= bp.map_size {
        return Err(bad(format!("pixel {},{} is outside the {}² map", a.at.0, a.at.1, bp.map_size)).into());
    }
    let src = WorldSource::new(Arc::new(bp));
    let chunk = build_chunk(&src, ChunkCoord::containing_pixel(a.at.0, a.at.1));
    print_chunk(&src, &chunk, a.json).context("printing chunk")?;
    Ok(ExitCode::SUCCESS)
}

pub fn flight(a: FlightArgs) -> Outcome {
    let film = match &a.path {
        Some(p) => Some(isla::film::Film::new(isla::film::PathFile::load(p).map_err(|e| bad(e.to_string()))?)),
        None => None,
    };
    let blueprint = match (&a.blueprint, &film) {
        (Some(b), _) => b.clone(),
        (None, Some(f)) => f.file.blueprint.clone(),
        (None, None) => unreachable!("clap requires a blueprint without --path"),
    };
    let (bp, path) = load(&blueprint)?;
    let opts = isla::app::flight::FlightOptions {
        path: film,
        frames: a.frames,
        width: a.width,
        height: a.height,
        stream: a.stream.streaming(),
        passes: a.passes,
    };
    let report = isla::app::flight::run(world_of(bp, &path), &opts)?;
    eprintln!(
        "flight: first view in {:.2} s; terrain and water at most {:.1} MiB of GPU buffers and {:.1} MiB of chunk data; \
         far-field textures at most {:.1} MiB",
        report.first_view_s, report.terrain_gpu_mib, report.terrain_cpu_mib, report.texture_mib
    );
    let levels: Vec<String> = report
        .gpu_by_level
        .iter()
        .map(|l| format!("level {}: {} nodes, {:.1} + {:.1} MiB", l.level, l.nodes, l.terrain_mib, l.water_mib))
        .collect();
    eprintln!("flight: those buffers by level (terrain + water): {}", levels.join("; "));
    for p in &report.passes {
        eprintln!(
            "flight: pass {}: GPU {:.1} ms mean, {:.1} ms max, {:.0} fragments a frame",
            p.name, p.mean_ms, p.max_ms, p.fragments
        );
    }
    // The summary is the last line, exactly as documented (SPEC §9).
    println!("{}", report.summary_line());
    Ok(ExitCode::SUCCESS)
}

fn print_info_json(path: &Path, size: usize, bp: &Blueprint, sections: &[blueprint::SectionInfo]) {
    let sections: Vec<_> = sections
        .iter()
        .map(|s| serde_json::json!({"tag": s.tag, "offset": s.offset, "length": s.payload_bytes}))
        .collect();
    let warnings: Vec<String> =
        bp.warnings.iter().map(|w| format!("{} at byte {}: {}", w.section, w.offset, w.message)).collect();
    let v = serde_json::json!({
        "path": path.display().to_string(),
        "file_bytes": size,
        "format_version": blueprint::FORMAT_VERSION,
        "map_size": bp.map_size,
        "seed": bp.seed,
        "params": bp.params,
        "sections": sections,
        "water_bodies": bp.water.as_ref().and_then(|w| w.bodies.clone()).unwrap_or_default(),
        "rivers": rivers_json(bp),
        "towns": bp.towns.as_deref().unwrap_or(&[]).iter().map(|t| serde_json::json!({
            "x": t.x, "y": t.y, "tier": format!("{:?}", t.tier).to_lowercase(), "highway_node": t.is_highway_node,
        })).collect::<Vec<_>>(),
        "roads": roads_json(bp),
        "road_joins": isla::world::roads::joined_roadbeds(bp).1,
        "river_dials": bp.rivers.as_ref().map(|r| r.dials),
        "dials": bp.dials.as_ref().map(|d| d.dials.iter().map(|(k, v)| (k.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>()),
        "stats": isla::world::island_stats(bp),
        "warnings": warnings,
    });
    println!("{}", serde_json::to_string_pretty(&v).expect("JSON"));
}

/// `info --json`'s `rivers`: per river its body, order, mouth body, length and course (`[x, y]`
/// pixel points from source to mouth), with the width and discharge along it.
fn rivers_json(bp: &Blueprint) -> Vec<serde_json::Value> {
    let Some(net) = &bp.rivers else { return Vec::new() };
    net.rivers
        .iter()
        .map(|r| {
            serde_json::json!({
                "body_id": r.body_id,
                "order": r.order,
                "mouth_body_id": r.mouth_body_id,
                "length_m": r.length_m,
                "source": r.source,
                "mouth": r.mouth,
                "course": r.course.iter().map(|p| [p.x, p.y]).collect::<Vec<_>>(),
                "width_m": r.course.iter().map(|p| p.width_m).collect::<Vec<_>>(),
                "discharge_m3s": r.course.iter().map(|p| p.discharge_m3s).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// `info --json`'s `roads`: per road its tier, length, towns, `points` (`[x, y]` pixels) and
/// `bridges` (`[first, last]` indices into `points`).
fn roads_json(bp: &Blueprint) -> Vec<serde_json::Value> {
    let Some(net) = &bp.roads else { return Vec::new() };
    let town = |i: u16| (i != blueprint::NO_TOWN).then_some(i);
    net.roads
        .iter()
        .map(|r| {
            serde_json::json!({
                "tier": r.tier.name(),
                "length_m": r.length_px() * bp.params.metres_per_pixel,
                "from_town": town(r.from_town),
                "to_town": town(r.to_town),
                "points": r.points,
                "bridges": r.bridges,
            })
        })
        .collect()
}

/// What a river flows into, for `info`'s text.
fn mouth_name(bp: &Blueprint, id: u16) -> String {
    let river = bp.rivers.as_ref().is_some_and(|n| n.rivers.iter().any(|r| r.body_id == id));
    match bp.water.as_ref().and_then(|w| w.body(id)) {
        _ if river => format!("river #{id}"),
        Some(b) if b.kind == blueprint::WaterType::Ocean => format!("the ocean (#{id})"),
        Some(_) => format!("lake #{id}"),
        None => format!("body #{id}"),
    }
}

fn print_info_text(path: &Path, size: usize, bp: &Blueprint, sections: &[blueprint::SectionInfo]) {
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
    print_water_bodies(bp);
    let s = isla::world::island_stats(bp);
    let b = &s.blueprint;
    println!(
        "  land {:.1}%, heights {:.1}..{:.1} m, {} wet pixels, {} seam candidates, {} towns",
        b.land_fraction * 100.0,
        b.height_min_m,
        b.height_max_m,
        b.wet_pixels,
        s.seam_candidates,
        b.towns
    );
    print_rivers(bp);
    print_roads(bp);
    print_dials(bp);
    for w in &bp.warnings {
        println!("  warning: {} at byte {}: {}", w.section, w.offset, w.message);
    }
}

/// `isla info`'s water bodies, one line each.
fn print_water_bodies(bp: &Blueprint) {
    let p = &bp.params;
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
}

/// `isla info`'s dials: how many the `DIAL` record holds and those that are not the defaults.
fn print_dials(bp: &Blueprint) {
    if let Some(r) = &bp.dials {
        let defaults = isla::forge::dials::record(&isla::forge::ForgeDials::new(7, 256));
        let differ: Vec<String> =
            isla::forge::dials::differing(&defaults, r).into_iter().map(|(k, _, v)| format!("{k} = {v}")).collect();
        println!(
            "  dials: {} recorded (isla forge --dials-from re-forges); not the defaults: {}",
            r.dials.len(),
            if differ.is_empty() { "none".to_string() } else { differ.join(", ") }
        );
    }
}

/// `isla info`'s rivers, one line each.
fn print_rivers(bp: &Blueprint) {
    if let Some(net) = &bp.rivers {
        println!("  rivers: {}", net.rivers.len());
        for r in &net.rivers {
            let last = r.course.last();
            println!(
                "    #{:<4} {} {:.2} km, ({:.0}, {:.0}) -> ({:.0}, {:.0}) into {}, {} points, {:.0} m wide and {:.3} m³/s at the mouth",
                r.body_id,
                if r.order == 1 { "main     " } else { "tributary" },
                r.length_m / 1e3,
                r.source[0],
                r.source[1],
                r.mouth[0],
                r.mouth[1],
                mouth_name(bp, r.mouth_body_id),
                r.course.len(),
                last.map_or(0.0, |p| p.width_m),
                last.map_or(0.0, |p| p.discharge_m3s),
            );
        }
    }
}

/// `isla info`'s roads, one line each.
fn print_roads(bp: &Blueprint) {
    let p = &bp.params;
    if let Some(net) = &bp.roads {
        let (_, joins) = isla::world::roads::joined_roadbeds(bp);
        println!(
            "  roads: {} (joined where they meet: {} contacts, {} points pinned, residue {:.2} m)",
            net.roads.len(),
            joins.contacts,
            joins.pinned_points,
            joins.residue_m
        );
        let at = |i: u16| {
            bp.towns
                .as_ref()
                .and_then(|t| t.get(i as usize))
                .map_or("-".to_string(), |t| format!("({:.0}, {:.0})", t.x, t.y))
        };
        for (k, r) in net.roads.iter().enumerate() {
            println!(
                "    {:<3} {:<7} {:.2} km, town {} -> town {}, {} points, {} bridges",
                k,
                r.tier.name(),
                r.length_px() * p.metres_per_pixel / 1e3,
                at(r.from_town),
                at(r.to_town),
                r.points.len(),
                r.bridges.len()
            );
        }
    }
}

fn print_chunk(src: &WorldSource, c: &ChunkData, json: bool) -> anyhow::Result<()> {
    let n = src.blueprint.map_size as i64;
    if !json {
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
        return Ok(());
    }
    let mut rows = Vec::new();
    for cx in 0..PADDED - 1 {
        for cz in 0..PADDED - 1 {
            let (x, y) = (c.origin_px.0 + cx as i64, c.origin_px.1 + cz as i64);
            if x >= n || y >= n {
                continue;
            }
            rows.push(isla::world::probe::column_json(c, cx, cz));
        }
    }
    println!("{}", serde_json::to_string(&rows)?);
    Ok(())
}
