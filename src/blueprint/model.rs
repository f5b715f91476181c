//! The blueprint as plain data. Grids are `N × N`, X-outer / Y-inner: pixel `(x, y)` is at
//! index `x * N + y` (SPEC §1). Map X is world X (east), map Y is world Z (south).

/// The only format version this project reads and writes.
pub const FORMAT_VERSION: u8 = 2;
/// Header: `u8 formatVersion` · `u32 mapSize` · `i32 resolvedWorldSeed`.
pub const HEADER_LEN: usize = 9;
/// Section header: `u32 tag` · `u64 payloadLength`.
pub const SECTION_HEADER_LEN: usize = 12;
pub const MIN_MAP_SIZE: u32 = 32;
pub const MAX_MAP_SIZE: u32 = 16384;
/// `PRMS` body version this reader knows; longer payloads are later extensions.
pub const PRMS_VERSION: u16 = 1;
pub const PRMS_LEN: usize = 26;
/// `TDTL` body version with a known layout (v2: relief + shelf-edge variation, 30 B).
pub const TDTL_VERSION: u16 = 2;
pub const TDTL_LEN: usize = 30;
/// `EROS` body version with a known layout (v3: core/feather crater protection, 67 B).
pub const EROS_VERSION: u16 = 3;
pub const EROS_LEN: usize = 67;
/// `RIVR`: the river network (Isla's own section).
pub const RIVR_VERSION: u16 = 1;
/// `RIVR` v1: the version, then the dials block.
pub const RIVR_DIALS_LEN: usize = 3 * 2 + 10 * 4;
/// `RIVR` v1: one river's fixed part before its points, and one point.
pub const RIVER_RECORD_LEN: usize = 2 + 1 + 2 + 4 * 4 + 4 + 4;
pub const RIVER_POINT_LEN: usize = 16;

/// `ROAD`: the road network (Isla's own section).
pub const ROAD_VERSION: u16 = 1;
/// `ROAD` v1: one road's fixed part (tier, towns, point and bridge counts), a point, a bridge.
pub const ROAD_RECORD_LEN: usize = 1 + 2 + 2 + 4 + 4;
pub const ROAD_POINT_LEN: usize = 8;
pub const ROAD_BRIDGE_LEN: usize = 8;
/// `DIAL`: the forge's dials as applied (Isla's own section).
pub const DIAL_VERSION: u16 = 1;
/// `DIAL` v1: the most dials one record may list, and the longest key.
pub const MAX_DIALS: usize = 1024;
pub const MAX_DIAL_KEY_LEN: usize = 64;
/// `ROAD`'s "no town" for a road end that is not a town.
pub const NO_TOWN: u16 = u16::MAX;

/// One `WBTB` record: id, type, salinity, level, pixel count, centroid.
pub const WATER_BODY_RECORD_LEN: usize = 20;
/// One `TOWN` record: x, y, tier, highway flag.
pub const TOWN_RECORD_LEN: usize = 10;
/// Body id 1 is the ocean (SPEC §1).
pub const OCEAN_BODY_ID: u16 = 1;
/// The reference game's raw-height → metres mapping: the `metresPerRaw` that blueprints written
/// by the forge carry, and what tools assume before a blueprint is loaded.
pub const DEFAULT_METRES_PER_RAW: f32 = 251.0;
/// The forge's sea level in raw units: the ocean floor (raw 0) lies 75 m below it, and summits
/// capped near 420 m above sea stay inside the `WSRF` range (≤ 1.99997 raw).
pub const DEFAULT_SEA_LEVEL_RAW: f32 = 0.3;

/// Section tags: four ASCII bytes read as a little-endian u32.
pub mod tags {
    pub const fn tag(s: &[u8; 4]) -> u32 {
        u32::from_le_bytes(*s)
    }
    pub const PRMS: u32 = tag(b"PRMS");
    pub const HGTS: u32 = tag(b"HGTS");
    pub const BIOM: u32 = tag(b"BIOM");
    pub const TOWN: u32 = tag(b"TOWN");
    pub const WBID: u32 = tag(b"WBID");
    pub const WBTB: u32 = tag(b"WBTB");
    pub const WSRF: u32 = tag(b"WSRF");
    pub const TCRV: u32 = tag(b"TCRV");
    pub const TDTL: u32 = tag(b"TDTL");
    pub const EROS: u32 = tag(b"EROS");
    pub const RIVR: u32 = tag(b"RIVR");
    pub const ROAD: u32 = tag(b"ROAD");
    pub const DIAL: u32 = tag(b"DIAL");
}

/// Biome ordinals are the wire values and append-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[repr(u8)]
pub enum Biome {
    Ocean = 0,
    Lake = 1,
    Beach = 2,
    Grassland = 3,
    Forest = 4,
    Jungle = 5,
    Highland = 6,
    Mountain = 7,
    Snow = 8,
    Wasteland = 9,
}

impl Biome {
    pub const COUNT: u8 = 10;
    pub const ALL: [Biome; 10] = [
        Biome::Ocean,
        Biome::Lake,
        Biome::Beach,
        Biome::Grassland,
        Biome::Forest,
        Biome::Jungle,
        Biome::Highland,
        Biome::Mountain,
        Biome::Snow,
        Biome::Wasteland,
    ];
    pub fn from_ordinal(v: u8) -> Option<Biome> {
        Biome::ALL.get(v as usize).copied()
    }
}

/// `PRMS`: the scalar parameters every consumer needs.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Params {
    pub sea_level_raw: f32,
    /// The one raw-height → metres mapping (the reference game used 251).
    pub metres_per_raw: f32,
    /// Horizontal size of one column in metres.
    pub metres_per_pixel: f32,
    pub crater_x: f32,
    pub crater_y: f32,
    /// 0 = no crater.
    pub crater_radius: f32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum TownTier {
    Village = 0,
    Town = 1,
    City = 2,
    Capitol = 3,
}

impl TownTier {
    pub fn from_ordinal(v: u8) -> Option<TownTier> {
        [TownTier::Village, TownTier::Town, TownTier::City, TownTier::Capitol].get(v as usize).copied()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Town {
    pub x: f32,
    pub y: f32,
    pub tier: TownTier,
    pub is_highway_node: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum WaterType {
    Ocean = 0,
    Lake = 1,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Salinity {
    Fresh = 0,
    Salt = 1,
}

/// One `WBTB` record.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct WaterBody {
    pub id: u16,
    #[serde(rename = "type")]
    pub kind: WaterType,
    pub salinity: Salinity,
    pub surface_level_raw: f32,
    pub pixel_count: i32,
    pub centroid_x: f32,
    pub centroid_y: f32,
}

/// `WSRF` quantisation: 0 is the no-water sentinel; level L encodes as `1 + round(L × 32768)`.
pub mod water_level {
    pub const NO_WATER: u16 = 0;
    pub const STEPS_PER_RAW: f32 = 32768.0;
    /// Encode a level in raw units; levels outside 0 … ~1.99997 are clamped into range.
    pub fn encode(level_raw: f32) -> u16 {
        let q = 1.0 + (level_raw * STEPS_PER_RAW).round();
        q.clamp(1.0, u16::MAX as f32) as u16
    }
    /// Decode a non-sentinel value; `None` for the sentinel.
    pub fn decode(q: u16) -> Option<f32> {
        (q != NO_WATER).then(|| (q - 1) as f32 / STEPS_PER_RAW)
    }
}

/// `WBID` + optional `WBTB` + optional `WSRF`: the blueprint's water, decided by the generator.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Water {
    /// N² body ids: 0 dry, 1 the ocean, 2.. lakes.
    pub body_ids: Vec<u16>,
    pub bodies: Option<Vec<WaterBody>>,
    /// N² quantised surface levels (see [`water_level`]).
    pub surface: Option<Vec<u16>>,
}

impl Water {
    pub fn body(&self, id: u16) -> Option<&WaterBody> {
        self.bodies.as_ref()?.iter().find(|b| b.id == id)
    }
    pub fn ocean(&self) -> Option<&WaterBody> {
        self.body(OCEAN_BODY_ID)
    }
}

/// `TCRV`: height-curve metadata. Kept as its body bytes (after the version) so that a reader
/// never loses what a newer curve version recorded; [`CurveMeta::values`] decodes the floats.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveMeta {
    pub version: u16,
    pub body: Vec<u8>,
}

impl CurveMeta {
    /// The body as consecutive little-endian f32 values (knots and anchors), trailing bytes ignored.
    pub fn values(&self) -> Vec<f32> {
        self.body.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }
}

/// `TDTL` v2: shelf micro-relief and shelf-edge variation, as applied.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct DetailMeta {
    pub relief_amp_m: f32,
    pub relief_freq_islands: f32,
    pub relief_seed_offset: i32,
    pub edge_amp_m: f32,
    pub edge_freq_islands: f32,
    pub edge_seed_offset: i32,
    pub edge_max_shift_m: f32,
}

/// `EROS` v3: droplet erosion governors and constants, as applied.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ErosionMeta {
    pub droplet_count: i32,
    pub lifetime: i32,
    pub brush_radius: i32,
    pub seed_offset: i32,
    pub carve_cap_m: f32,
    pub deposit_cap_m: f32,
    pub sea_margin_m: f32,
    pub inertia: f32,
    pub capacity_factor: f32,
    pub min_slope_m: f32,
    pub erode_rate: f32,
    pub deposit_rate: f32,
    pub evaporation: f32,
    pub gravity: f32,
    pub crater_core_factor: f32,
    pub crater_feather_factor: f32,
    pub crater_mode: u8,
}

/// `RIVR` v1's record of the river dials, as applied. The forge's river stage runs on this very
/// record (`forge::rivers::RiverDials` names it, and gives its defaults). The island's shape
/// scales with the map, so areas and distances are fractions of the map (area / N², distance / N).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RiverDialsMeta {
    /// Most trunks to the ocean.
    pub trunks: u16,
    /// Most rivers ending in a lake.
    pub lake_rivers: u16,
    /// Most tributaries per main river.
    pub tributaries: u16,
    /// Least drained area of a main stem's outlet, fraction of the map.
    pub main_min_area: f32,
    /// Least drained area of a tributary, fraction of the map.
    pub tributary_min_area: f32,
    /// A stem is traced upstream while the inflow drains at least this (fraction of the map).
    pub stem_min_area: f32,
    /// Least area of a dry terminal basin, fraction of the map.
    pub endorheic_min_area: f32,
    /// Least distance between two trunk mouths, fraction of the map's side.
    pub mouth_separation: f32,
    /// Shortest river kept (metres); tributaries need half of it.
    pub min_length_m: f32,
    pub width_scale: f32,
    pub depth_scale: f32,
    /// Least water depth over the bed (metres).
    pub min_depth_m: f32,
    /// The bed stays this far above sea (metres).
    pub sea_margin_m: f32,
}

/// One point of a river's course: pixel coordinates, channel width and discharge there.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RiverPoint {
    pub x: f32,
    pub y: f32,
    pub width_m: f32,
    pub discharge_m3s: f32,
}

/// One river of `RIVR`: the water body it is, what it flows into, and its course from source to
/// mouth.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct River {
    pub body_id: u16,
    /// 1 main river (to the ocean or a lake), 2 tributary (it flows into another river).
    pub order: u8,
    /// The body at the mouth: the ocean, a lake or the river it joins.
    pub mouth_body_id: u16,
    pub source: [f32; 2],
    pub mouth: [f32; 2],
    pub length_m: f32,
    pub course: Vec<RiverPoint>,
}

/// `RIVR` v1: the river network. Metadata: the water itself is in `WBID`/`WBTB`/`WSRF`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RiverNetwork {
    pub dials: RiverDialsMeta,
    pub rivers: Vec<River>,
}

impl RiverNetwork {
    /// The lowest river body id: the forge numbers rivers after every lake, so ids from this one
    /// up are rivers. `u16::MAX` without rivers.
    pub fn first_body_id(&self) -> u16 {
        self.rivers.iter().map(|r| r.body_id).min().unwrap_or(u16::MAX)
    }
}

impl Blueprint {
    /// [`RiverNetwork::first_body_id`] of the blueprint's rivers (`u16::MAX` without `RIVR`).
    pub fn first_river_body_id(&self) -> u16 {
        self.rivers.as_ref().map_or(u16::MAX, RiverNetwork::first_body_id)
    }
}

/// A road's tier: the world carves and paints each its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum RoadTier {
    /// Between the highway-node towns (capitol and cities): wide, asphalt.
    Highway = 0,
    /// Out to the other towns and villages: narrower, a lighter surface.
    Road = 1,
}

impl RoadTier {
    pub fn from_ordinal(v: u8) -> Option<RoadTier> {
        match v {
            0 => Some(RoadTier::Highway),
            1 => Some(RoadTier::Road),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            RoadTier::Highway => "highway",
            RoadTier::Road => "road",
        }
    }
    /// The steepest grade (rise over run) of the tier: the forge plans for it, the world server
    /// carves the roadbed within it.
    pub fn grade_limit(self) -> f32 {
        match self {
            RoadTier::Highway => 0.08,
            RoadTier::Road => 0.12,
        }
    }
}

/// One road of `ROAD`: its tier, the towns it joins (indices into `TOWN`, [`NO_TOWN`] for
/// none), its polyline in pixel index coordinates and its bridge spans (`[first, last]` point
/// indices, inclusive).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Road {
    pub tier: RoadTier,
    pub from_town: u16,
    pub to_town: u16,
    pub points: Vec<[f32; 2]>,
    pub bridges: Vec<[u32; 2]>,
}

impl Road {
    /// Polyline length in pixels.
    pub fn length_px(&self) -> f32 {
        self.points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1])).sum()
    }
}

/// `ROAD` v1: the road network. Metadata the world server carves into the terrain at load.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RoadNetwork {
    pub roads: Vec<Road>,
}

/// One dial's value in `DIAL`: a switch, a whole number or a float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DialValue {
    Bool(bool),
    Int(i64),
    Float(f32),
}

impl DialValue {
    /// The value type's wire code: 0 bool, 1 integer (`i64`), 2 float (`f32`).
    pub fn type_code(&self) -> u8 {
        match self {
            DialValue::Bool(_) => 0,
            DialValue::Int(_) => 1,
            DialValue::Float(_) => 2,
        }
    }
}

impl std::fmt::Display for DialValue {
    /// As TOML writes it: `true`, `7`, `0.6` (a float always has a point or an exponent).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DialValue::Bool(b) => write!(f, "{b}"),
            DialValue::Int(i) => write!(f, "{i}"),
            DialValue::Float(x) => write!(f, "{x:?}"),
        }
    }
}

impl serde::Serialize for DialValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DialValue::Bool(b) => s.serialize_bool(*b),
            DialValue::Int(i) => s.serialize_i64(*i),
            DialValue::Float(x) => s.serialize_f32(*x),
        }
    }
}

/// `DIAL` v1: the dials the forge ran with, as `key = value` pairs in the order recorded (keys
/// unique; `forge::dials` names them and gives their meaning). A stage that was off records
/// only its `enabled = false`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DialRecord {
    pub dials: Vec<(String, DialValue)>,
}

impl DialRecord {
    pub fn get(&self, key: &str) -> Option<DialValue> {
        self.dials.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

/// Whether `key` may name a dial in `DIAL`: 1..=64 bytes of `a-z 0-9 _ .`.
pub fn is_dial_key(key: &[u8]) -> bool {
    (1..=MAX_DIAL_KEY_LEN).contains(&key.len())
        && key.iter().all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
}

/// A reader warning: something skipped, nothing misread.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Warning {
    pub section: String,
    pub offset: u64,
    pub message: String,
}

/// One parsed blueprint. Warnings are what the reader skipped; they are not part of the model's
/// content and the writer ignores them.
#[derive(Debug, Clone, PartialEq)]
pub struct Blueprint {
    pub map_size: u32,
    pub seed: i32,
    pub params: Params,
    /// N² raw render heights; metres = raw × `metres_per_raw`.
    pub heights_raw: Vec<f32>,
    /// N² biome ordinals, each < [`Biome::COUNT`].
    pub biomes: Vec<u8>,
    pub towns: Option<Vec<Town>>,
    pub water: Option<Water>,
    pub curve: Option<CurveMeta>,
    pub detail: Option<DetailMeta>,
    pub erosion: Option<ErosionMeta>,
    pub rivers: Option<RiverNetwork>,
    pub roads: Option<RoadNetwork>,
    /// `DIAL`: the forge's dials as applied (`isla forge --dials-from` re-forges from it).
    pub dials: Option<DialRecord>,
    pub warnings: Vec<Warning>,
}

impl Blueprint {
    pub fn n(&self) -> usize {
        self.map_size as usize
    }
    /// Index of pixel `(x, y)` in every grid (X-outer / Y-inner).
    #[inline]
    pub fn index(&self, x: u32, y: u32) -> usize {
        x as usize * self.map_size as usize + y as usize
    }
    #[inline]
    pub fn height_raw(&self, x: u32, y: u32) -> f32 {
        self.heights_raw[self.index(x, y)]
    }
    #[inline]
    pub fn height_m(&self, x: u32, y: u32) -> f32 {
        self.height_raw(x, y) * self.params.metres_per_raw
    }
    pub fn biome(&self, x: u32, y: u32) -> Biome {
        Biome::from_ordinal(self.biomes[self.index(x, y)]).unwrap_or(Biome::Ocean)
    }
    /// Summary numbers for `isla info`.
    pub fn stats(&self) -> BlueprintStats {
        let p = &self.params;
        let land = self.heights_raw.iter().filter(|&&h| h >= p.sea_level_raw).count();
        let (lo, hi) = self.heights_raw.iter().fold((f32::MAX, f32::MIN), |(a, b), &h| (a.min(h), b.max(h)));
        let wet = self.water.as_ref().map_or(0, |w| w.body_ids.iter().filter(|&&id| id != 0).count() as u64);
        BlueprintStats {
            land_fraction: land as f64 / self.heights_raw.len() as f64,
            height_min_m: lo * p.metres_per_raw,
            height_max_m: hi * p.metres_per_raw,
            wet_pixels: wet,
            water_bodies: self.water.as_ref().and_then(|w| w.bodies.as_ref()).map_or(0, |b| b.len()),
            towns: self.towns.as_ref().map_or(0, |t| t.len()),
        }
    }

    /// Size of the island along one axis, in metres.
    pub fn extent_m(&self) -> f32 {
        self.map_size as f32 * self.params.metres_per_pixel
    }
}

/// Whole-map numbers, as `isla info` prints them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BlueprintStats {
    /// Share of pixels at or above sea level.
    pub land_fraction: f64,
    pub height_min_m: f32,
    pub height_max_m: f32,
    /// Pixels with a non-zero `WBID`.
    pub wet_pixels: u64,
    pub water_bodies: usize,
    pub towns: usize,
}
