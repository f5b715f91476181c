//! The command line's grammar (clap). Every range and limit is checked here, once, by a value
//! parser, so a command function receives only values it can use.

use clap::{Args, Parser, Subcommand};
use isla::app::camera::CameraPreset;
use isla::mesh::Shading;
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "isla", version, about = "Fly over island blueprints; forge, inspect and render them")]
// `fly` is the default command: its flags work without the word (`isla --frames 40`), and a
// subcommand's name turns them off (`isla shot …` takes only `shot`'s flags).
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub fly: FlyArgs,
}

#[derive(Subcommand)]
pub enum Command {
    /// Open a window and fly over a blueprint (the default command).
    Fly(FlyArgs),
    /// Generate an island and write it as a blueprint (atomically).
    Forge(ForgeArgs),
    /// Describe a blueprint: header, sections, sizes, warnings.
    Info(InfoArgs),
    /// Compare two blueprints: sections, heights, water, rivers, roads, towns and dials (exit 0
    /// equal, 1 they differ, 2 a file is bad).
    Diff(DiffArgs),
    /// Render a blueprint headless (no window) to a PNG.
    Shot(ShotArgs),
    /// Render the in-game map headless to a PNG: terrain, water, cliffs and other layers.
    Map(MapArgs),
    /// Dump the per-column data of the chunk holding blueprint pixel X,Y.
    Chunk(ChunkArgs),
    /// Fly a scripted path headless and report frame times, triangles and memory (a benchmark).
    Flight(FlightArgs),
    /// Render every view of a suite file in one process, compare each with its reference, and
    /// write a report (NAME.png, NAME.diff.png, report.html, report.json).
    Suite(SuiteArgs),
    /// Render a camera path (a path file, or a saved-views file) to frames, film.json and an MP4.
    Film(FilmArgs),
}

/// A feature on or off (`--lod off` draws every chunk in the view distance at full detail;
/// `--rivers off` forges without rivers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Switch {
    #[default]
    On,
    Off,
}

impl Switch {
    pub fn enabled(self) -> bool {
        self == Switch::On
    }
}

/// How the world streams, for every command that renders: declared once, flattened into each.
#[derive(Args, Clone, Copy, Debug)]
pub struct StreamArgs {
    /// Level of detail (default on; `off`: full detail within the view distance).
    #[arg(long, value_enum)]
    pub lod: Option<Switch>,
    /// With --lod off: chunks within this distance (m) of the camera are drawn.
    #[arg(long, value_parser = positive_metres, default_value_t = isla::app::server::DEFAULT_VIEW_DISTANCE_M)]
    pub view_distance: f32,
}

impl StreamArgs {
    /// The settings whole, level of detail on unless `--lod off`.
    pub fn streaming(&self) -> isla::app::settings::Streaming {
        isla::app::settings::Streaming {
            lod: self.lod.is_none_or(|l| l.enabled()),
            view_distance_m: self.view_distance,
        }
    }
}

impl Default for StreamArgs {
    fn default() -> Self {
        Self { lod: None, view_distance: isla::app::server::DEFAULT_VIEW_DISTANCE_M }
    }
}

/// Which renderer draws, for every command that renders: declared once, flattened into each.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct RendererArgs {
    /// The renderer: auto (what the system offers: a GPU where there is one, else lavapipe),
    /// lavapipe (Mesa's software Vulkan) or swiftshader (Google's, as Chromium and Chrome ship it;
    /// off-screen only).
    #[arg(long, value_name = "NAME", value_parser = renderer_choice, default_value = "auto")]
    pub renderer: isla::renderer::Choice,
}

fn renderer_choice(s: &str) -> Result<isla::renderer::Choice, String> {
    s.parse()
}

/// Where the camera starts: a preset, an explicit pose, or a whole view string.
#[derive(Args, Clone, Debug, Default)]
pub struct CameraArgs {
    /// Camera preset: overview (the default), coast, crater, underwater.
    #[arg(long, value_parser = preset, conflicts_with_all = ["look_from", "view"])]
    pub preset: Option<CameraPreset>,
    /// Camera position in metres `X,Y,Z` (needs --look-at).
    #[arg(long, value_parser = xyz, requires = "look_at", conflicts_with = "view")]
    pub look_from: Option<[f32; 3]>,
    /// Point the camera looks at, metres `X,Y,Z`. Looking straight down, east is up in the frame.
    #[arg(long, value_parser = xyz, requires = "look_from", conflicts_with = "view")]
    pub look_at: Option<[f32; 3]>,
    /// A whole view (`isla:v1;from=X,Y,Z;at=X,Y,Z;sun=EL,AZ;off=…`, SPEC §8): camera, sun,
    /// switches and level of detail; or the NAME of a view saved beside the blueprint
    /// (`BLUEPRINT.views.toml`, the B key in `fly`). The sun, switch and --lod flags refine it.
    #[arg(long, value_parser = view_arg, value_name = "STRING|NAME")]
    pub view: Option<ViewArg>,
}

/// `--view`: a view string, or the name of a saved view.
#[derive(Debug, Clone)]
pub enum ViewArg {
    String(isla::view::View),
    Saved(String),
}

fn view_arg(s: &str) -> Result<ViewArg, String> {
    if s.starts_with("isla:") {
        return view_string(s).map(ViewArg::String);
    }
    let ok =
        !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(ViewArg::Saved(s.to_string()))
    } else {
        Err(format!("'{s}' is neither a view string (isla:v1;…) nor a saved view's name (1–64 of A-Z a-z 0-9 - _ .)"))
    }
}

#[derive(Args)]
pub struct FlyArgs {
    /// Blueprint file; defaults to the repository's default island.
    pub blueprint: Option<PathBuf>,
    /// Exit after this many frames (smoke tests).
    #[arg(long)]
    pub frames: Option<u32>,
    /// With --frames: save a PNG of the window shortly before exiting.
    #[arg(long, requires = "frames")]
    pub screenshot: Option<PathBuf>,
    /// Start with the debug panel open.
    #[arg(long)]
    pub panel: bool,
    /// Start with the map window open.
    #[arg(long)]
    pub map: bool,
    /// Once the first view is built, pin the probe at window pixel `PX,PY` (from the top left of
    /// the 1280 × 720 window), as a click there does: marker, panel, `probe: {json}` on stdout.
    #[arg(long, value_parser = xy, value_name = "PX,PY")]
    pub probe: Option<(u32, u32)>,
    /// Once the first view is built, lay the ruler between two window pixels, as R + two clicks
    /// do: `PX,PY` twice.
    #[arg(long, value_parser = xy, value_name = "PX,PY", num_args = 2)]
    pub ruler: Option<Vec<(u32, u32)>>,
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub renderer: RendererArgs,
}

/// What a rendering command shows: where the camera is, the view switches and the sun, and how
/// the world streams. Flattened whole into `fly` and `shot`.
#[derive(Args, Clone, Debug, Default)]
pub struct SceneArgs {
    #[command(flatten)]
    pub camera: CameraArgs,
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub stream: StreamArgs,
}

impl Default for FlyArgs {
    /// `isla` with no arguments: fly over the default island with the defaults of the flags.
    fn default() -> Self {
        Self {
            blueprint: None,
            frames: None,
            screenshot: None,
            panel: false,
            map: false,
            probe: None,
            ruler: None,
            scene: SceneArgs::default(),
            renderer: RendererArgs::default(),
        }
    }
}

#[derive(Args)]
pub struct ForgeArgs {
    /// The seed (default 7, or the dials file's).
    #[arg(long)]
    pub seed: Option<i32>,
    /// Pixels per side, 32..=16384 (default 256, or the dials file's).
    #[arg(long, value_parser = map_size)]
    pub size: Option<u32>,
    /// Metres per pixel (default 4, or the dials file's).
    #[arg(long, value_parser = positive_metres)]
    pub metres_per_pixel: Option<f32>,
    /// Run the droplet hydraulic erosion (recorded in EROS); sets `erosion.enabled`.
    #[arg(long)]
    pub erosion: bool,
    /// Plan, carve and water the rivers (recorded in RIVR): on (the default) or off.
    #[arg(long, value_enum)]
    pub rivers: Option<Switch>,
    /// Find the road network between the towns (recorded in ROAD): on (the default) or off.
    #[arg(long, value_enum)]
    pub roads: Option<Switch>,
    /// Read every dial from this TOML file (`--print-dials` writes the full default file); an
    /// absent key takes its default, and the flags above override the file.
    #[arg(long, value_name = "FILE.toml", conflicts_with = "dials_from")]
    pub dials: Option<PathBuf>,
    /// Re-forge from the dials a blueprint recorded (its DIAL section); the flags above override them.
    #[arg(long, value_name = "OLD.dat")]
    pub dials_from: Option<PathBuf>,
    /// Print the dials file of the dials given (with nothing else, the full default file) and
    /// write no blueprint.
    #[arg(long, conflicts_with_all = ["out", "snapshots"])]
    pub print_dials: bool,
    /// Also write PNG snapshots (height, biomes, water, depth) to this folder.
    #[arg(long)]
    pub snapshots: Option<PathBuf>,
    #[arg(long, required_unless_present = "print_dials")]
    pub out: Option<PathBuf>,
}

#[derive(Args)]
pub struct DiffArgs {
    pub a: PathBuf,
    pub b: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also draw the changes over the map to this PNG.
    #[arg(long, value_name = "OUT.png")]
    pub png: Option<PathBuf>,
}

#[derive(Args)]
pub struct InfoArgs {
    pub blueprint: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The view switches and the sun, shared by `shot` and `fly` (and the flight's debug panel).
/// Each refines the camera's view (a view string, or the defaults).
#[derive(Args, Clone, Debug, Default)]
pub struct ViewArgs {
    /// Turn the sun's shadows off.
    #[arg(long)]
    pub no_shadows: bool,
    /// Turn the sky dome off (the clear colour shows).
    #[arg(long)]
    pub no_sky: bool,
    /// Hide the water sheet (the seabed shows).
    #[arg(long)]
    pub no_water: bool,
    /// Turn the distance fog off.
    #[arg(long)]
    pub no_fog: bool,
    /// Draw every mesh's wireframe.
    #[arg(long)]
    pub wireframe: bool,
    /// Draw chunk borders.
    #[arg(long)]
    pub chunk_borders: bool,
    /// Terrain shading: the palette (the default), or a debug view (normals, materials).
    #[arg(long, value_parser = shading)]
    pub shading: Option<Shading>,
    /// Colour the water over shoreline-seam columns.
    #[arg(long)]
    pub seam_highlight: bool,
    /// Tint every level of detail in its own colour.
    #[arg(long)]
    pub lod_colours: bool,
    /// Sun elevation above the horizon, degrees (0..=90; default 38).
    #[arg(long, value_parser = sun_elevation)]
    pub sun_elevation: Option<f32>,
    /// Sun azimuth, degrees clockwise from north (default 45).
    #[arg(long, value_parser = finite)]
    pub sun_azimuth: Option<f32>,
}

#[derive(Args)]
pub struct ShotArgs {
    pub blueprint: PathBuf,
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = 480, value_parser = shot_side)]
    pub width: u32,
    #[arg(long, default_value_t = 270, value_parser = shot_side)]
    pub height: u32,
    /// Print `probe: {json}` for frame pixel `PX,PY` (from the top left): the column it shows,
    /// with the keys of `isla chunk --json` plus `world`, `pixel`, `level` and `hit`.
    #[arg(long, value_parser = xy, value_name = "PX,PY")]
    pub probe: Option<(u32, u32)>,
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub renderer: RendererArgs,
}

#[derive(Args)]
pub struct SuiteArgs {
    /// The suite file (TOML; SPEC §8 "Suites").
    pub suite: PathBuf,
    /// Folder for the outputs (default: `suite-out` beside the suite file).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write references (atomically) and say which changed: `changed` (the default: every view
    /// whose bytes differ), `new` (only views without one), `failed` (only views that failed).
    #[arg(long, value_name = "MODE", num_args = 0..=1, default_missing_value = "changed", value_parser = bless_mode)]
    pub bless: Option<isla::suite::BlessMode>,
    /// Bless from the images of an earlier run's --out folder (a CI artefact, say) without
    /// rendering; it must come from this suite file. Honours --only and --bless=MODE.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["merge", "shard"])]
    pub bless_from: Option<PathBuf>,
    /// Render only the view called NAME (repeatable).
    #[arg(long, value_name = "NAME")]
    pub only: Vec<String>,
    /// Render shard K of N (1-based): a deterministic share of the views.
    #[arg(long, value_name = "K/N", value_parser = shard)]
    pub shard: Option<isla::suite::shard::Shard>,
    /// Balance the shards by each view's seconds in this earlier report.json (or its folder).
    #[arg(long, value_name = "REPORT.json", requires = "shard")]
    pub durations: Option<PathBuf>,
    /// Merge shard output folders into one report under --out, without rendering.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["bless", "shard"])]
    pub merge: Vec<PathBuf>,
    /// Also write the results as JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    #[command(flatten)]
    pub renderer: RendererArgs,
    /// Render every view on each of these renderers (comma-separated, at least two) and report
    /// which views would fail on a change of renderer: the first renderer's frame is taken as the
    /// reference, each other's judged against it on that renderer's thresholds.
    #[arg(long, value_name = "A,B,…", value_parser = renderer_list, conflicts_with_all = ["renderer", "bless", "bless_from", "merge", "shard"])]
    pub renderers: Option<RendererList>,
}

/// `--renderers A,B,…`: at least two renderers, none twice.
#[derive(Debug, Clone)]
pub struct RendererList(pub Vec<isla::renderer::Choice>);

fn renderer_list(s: &str) -> Result<RendererList, String> {
    let list = s.split(',').map(|r| r.trim().parse()).collect::<Result<Vec<isla::renderer::Choice>, String>>()?;
    if list.len() < 2 {
        return Err(format!("'{s}' names {} renderer; give at least two, comma-separated", list.len()));
    }
    if (1..list.len()).any(|i| list[..i].contains(&list[i])) {
        return Err(format!("'{s}' names a renderer twice"));
    }
    Ok(RendererList(list))
}

#[derive(Args)]
pub struct FilmArgs {
    /// The path file (TOML; SPEC §10 "Films"), or a saved-views file.
    pub path: PathBuf,
    /// Folder for the frames (frame-00000.png, …) and film.json.
    #[arg(long, required_unless_present = "encode")]
    pub out: Option<PathBuf>,
    /// Frames a second (default: the path file's, else 30).
    #[arg(long)]
    pub fps: Option<u32>,
    /// Frame size (default: the path file's, else 960 × 540); even.
    #[arg(long)]
    pub width: Option<u32>,
    #[arg(long)]
    pub height: Option<u32>,
    /// Render only frames A to B (both included): a part of the film, joined by file name.
    #[arg(long, value_name = "A..B")]
    pub frames: Option<String>,
    /// Also encode the frames to an MP4 (H.264, yuv420p; needs ffmpeg).
    #[arg(long, value_name = "FILE.mp4")]
    pub mp4: Option<PathBuf>,
    /// Encode the frames already in DIR (a film rendered in parts) to --mp4, rendering nothing.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["out", "frames"], requires = "mp4")]
    pub encode: Option<PathBuf>,
    #[command(flatten)]
    pub renderer: RendererArgs,
}

fn bless_mode(s: &str) -> Result<isla::suite::BlessMode, String> {
    isla::suite::BlessMode::parse(s)
}

fn shard(s: &str) -> Result<isla::suite::shard::Shard, String> {
    s.parse()
}

#[derive(Args)]
pub struct MapArgs {
    pub blueprint: PathBuf,
    /// Comma-separated layers: terrain, water-bodies, bands, cliffiness, grid, cliffs,
    /// cliffs-by-orientation, towns, camera, all, none.
    #[arg(long, default_value = "terrain,cliffs")]
    pub layers: String,
    /// Cliff generator preset: island, nauvis or vulcanus.
    #[arg(long, default_value = "island")]
    pub preset: String,
    #[arg(long)]
    pub out: PathBuf,
    /// Region in blueprint pixels `X,Y,W,H` (default: the whole map).
    #[arg(long)]
    pub region: Option<String>,
    /// Blueprint pixels per image pixel (1 = full resolution, at most 64).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub scale: u32,
    /// Print placed cliffs per orientation, corner evaluations and time per pixel.
    #[arg(long)]
    pub stats: bool,
}

#[derive(Args)]
pub struct ChunkArgs {
    pub blueprint: PathBuf,
    /// Blueprint pixel `X,Y`.
    #[arg(long, value_parser = xy)]
    pub at: (u32, u32),
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct FlightArgs {
    /// The blueprint (with --path: the path file's own, unless given).
    #[arg(required_unless_present = "path")]
    pub blueprint: Option<PathBuf>,
    /// Fly the camera path of a path file (SPEC §10) instead of the built-in one.
    #[arg(long, value_name = "PATH.toml")]
    pub path: Option<PathBuf>,
    /// Frames to render along the path.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub frames: u32,
    #[arg(long, default_value_t = 1280, value_parser = shot_side)]
    pub width: u32,
    #[arg(long, default_value_t = 720, value_parser = shot_side)]
    pub height: u32,
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Also measure each render pass's GPU time (timestamp queries) and print one line per pass.
    #[arg(long)]
    pub passes: bool,
    #[command(flatten)]
    pub renderer: RendererArgs,
}

fn finite(s: &str) -> Result<f32, String> {
    let v: f32 = s.trim().parse().map_err(|e| format!("{e}"))?;
    if v.is_finite() { Ok(v) } else { Err("must be a finite number".into()) }
}

fn positive_metres(s: &str) -> Result<f32, String> {
    let v = finite(s)?;
    if v > 0.0 { Ok(v) } else { Err(format!("must be a positive number of metres, got {v}")) }
}

fn sun_elevation(s: &str) -> Result<f32, String> {
    let v = finite(s)?;
    if (0.0..=90.0).contains(&v) { Ok(v) } else { Err(format!("must be 0..=90 degrees, got {v}")) }
}

fn map_size(s: &str) -> Result<u32, String> {
    use isla::blueprint::{MAX_MAP_SIZE, MIN_MAP_SIZE};
    let v: u32 = s.trim().parse().map_err(|e| format!("{e}"))?;
    if (MIN_MAP_SIZE..=MAX_MAP_SIZE).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is outside {MIN_MAP_SIZE}..={MAX_MAP_SIZE}"))
    }
}

fn shot_side(s: &str) -> Result<u32, String> {
    use isla::app::shot::MAX_SHOT_SIDE;
    let v: u32 = s.trim().parse().map_err(|e| format!("{e}"))?;
    if (1..=MAX_SHOT_SIDE).contains(&v) { Ok(v) } else { Err(format!("{v} is outside 1..={MAX_SHOT_SIDE}")) }
}

fn shading(s: &str) -> Result<Shading, String> {
    Shading::from_name(s).ok_or_else(|| format!("unknown shading '{s}' (palette, normals, materials)"))
}

fn preset(s: &str) -> Result<CameraPreset, String> {
    CameraPreset::from_name(s).ok_or_else(|| format!("unknown preset '{s}' (overview, coast, crater, underwater)"))
}

fn xyz(s: &str) -> Result<[f32; 3], String> {
    let v: Vec<f32> = s.split(',').map(finite).collect::<Result<_, _>>()?;
    match v.as_slice() {
        [x, y, z] => Ok([*x, *y, *z]),
        _ => Err("expected X,Y,Z in metres".into()),
    }
}

fn view_string(s: &str) -> Result<isla::view::View, String> {
    s.parse().map_err(|e: isla::view::ViewError| e.to_string())
}

fn xy(s: &str) -> Result<(u32, u32), String> {
    let (x, y) = s.split_once(',').ok_or("expected X,Y")?;
    Ok((x.trim().parse().map_err(|e| format!("X: {e}"))?, y.trim().parse().map_err(|e| format!("Y: {e}"))?))
}
