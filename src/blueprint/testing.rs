//! Small synthetic blueprints for tests and benchmarks: the island the pure tests, the app tests
//! and the benches each used to build by hand, in one place. It lives in the library (Bevy-free)
//! because those are three separate crates; nothing in the library itself uses it.

use super::model::*;

/// A synthetic island made from its heights. Everything else gets a plain default — seed 0, sea
/// level 0, 251 m per raw unit, 2 m per pixel, no crater, biomes by sea level, no water, no
/// towns, no metadata — and each setter changes one thing. [`IslandBuilder::build`] does not
/// validate: a test may build a model the writer refuses.
#[derive(Debug, Clone)]
pub struct IslandBuilder {
    map_size: u32,
    seed: i32,
    params: Params,
    heights_raw: Vec<f32>,
    /// `None`: by sea level (see [`IslandBuilder::build`]).
    biomes: Option<Vec<u8>>,
    /// `Some`: an ocean below sea level, with this body table.
    ocean_bodies: Option<Vec<WaterBody>>,
    towns: Option<Vec<Town>>,
}

impl IslandBuilder {
    /// A `map_size`² island with these raw heights (X-outer, as [`Blueprint::heights_raw`]).
    pub fn new(map_size: u32, heights_raw: Vec<f32>) -> Self {
        Self {
            map_size,
            seed: 0,
            params: Params {
                sea_level_raw: 0.0,
                metres_per_raw: 251.0,
                metres_per_pixel: 2.0,
                crater_x: 0.0,
                crater_y: 0.0,
                crater_radius: 0.0,
            },
            heights_raw,
            biomes: None,
            ocean_bodies: None,
            towns: None,
        }
    }

    /// The forge seed recorded in the header.
    pub fn seed(mut self, seed: i32) -> Self {
        self.seed = seed;
        self
    }

    /// The sea level (raw height units): what the biomes and the ocean are split by.
    pub fn sea_level_raw(mut self, sea_level_raw: f32) -> Self {
        self.params.sea_level_raw = sea_level_raw;
        self
    }

    /// Metres per raw height unit.
    pub fn metres_per_raw(mut self, metres_per_raw: f32) -> Self {
        self.params.metres_per_raw = metres_per_raw;
        self
    }

    /// Metres per pixel (map cell).
    pub fn metres_per_pixel(mut self, metres_per_pixel: f32) -> Self {
        self.params.metres_per_pixel = metres_per_pixel;
        self
    }

    /// The crater's centre and radius (pixels).
    pub fn crater(mut self, x: f32, y: f32, radius_px: f32) -> Self {
        (self.params.crater_x, self.params.crater_y, self.params.crater_radius) = (x, y, radius_px);
        self
    }

    /// These biome ordinals (one per cell) instead of the split by sea level.
    pub fn biomes(mut self, biomes: Vec<u8>) -> Self {
        self.biomes = Some(biomes);
        self
    }

    /// Water: every cell below sea level is the ocean ([`OCEAN_BODY_ID`] in `WBID`, the sea level
    /// in `WSRF`), every other cell dry; `bodies` is the `WBTB` table.
    pub fn ocean_below_sea(mut self, bodies: Vec<WaterBody>) -> Self {
        self.ocean_bodies = Some(bodies);
        self
    }

    /// The `TOWN` table.
    pub fn towns(mut self, towns: Vec<Town>) -> Self {
        self.towns = Some(towns);
        self
    }

    /// The model. Unless [`IslandBuilder::biomes`] gave them, cells below sea level are
    /// [`Biome::Ocean`] and the others [`Biome::Grassland`]. No curve, detail, erosion, rivers,
    /// roads or warnings: set those fields on the result.
    pub fn build(self) -> Blueprint {
        let sea = self.params.sea_level_raw;
        let below = |h: f32| h < sea;
        let biomes = self.biomes.unwrap_or_else(|| {
            let by_level = |h: f32| if below(h) { Biome::Ocean } else { Biome::Grassland };
            self.heights_raw.iter().map(|&h| by_level(h) as u8).collect()
        });
        let water = self.ocean_bodies.map(|bodies| {
            let body_ids: Vec<u16> =
                self.heights_raw.iter().map(|&h| if below(h) { OCEAN_BODY_ID } else { 0 }).collect();
            let surface = body_ids.iter().map(|&id| if id == 0 { 0 } else { water_level::encode(sea) }).collect();
            Water { body_ids, bodies: Some(bodies), surface: Some(surface) }
        });
        Blueprint {
            map_size: self.map_size,
            seed: self.seed,
            params: self.params,
            heights_raw: self.heights_raw,
            biomes,
            towns: self.towns,
            water,
            curve: None,
            detail: None,
            erosion: None,
            rivers: None,
            roads: None,
            dials: None,
            warnings: vec![],
        }
    }
}

/// A large synthetic island for level-of-detail and streaming tests: an `n`² cone of land with
/// long ripples at 2 m a pixel (seed 9), the sea at 0.3 raw (75 m) and an ocean body below it.
pub fn cone_island(n: usize) -> Blueprint {
    let mut heights = vec![0f32; n * n];
    for x in 0..n {
        for y in 0..n {
            let (u, v) = (x as f32 / n as f32 - 0.5, y as f32 / n as f32 - 0.5);
            let land = 0.5 - (u * u + v * v).sqrt();
            heights[x * n + y] =
                (0.3 + land * 1.2 + 0.05 * (x as f32 * 0.02).sin() * (y as f32 * 0.017).cos()).max(0.0);
        }
    }
    let ocean = WaterBody {
        id: 1,
        kind: WaterType::Ocean,
        salinity: Salinity::Salt,
        surface_level_raw: 0.3,
        pixel_count: 0,
        centroid_x: 0.0,
        centroid_y: 0.0,
    };
    IslandBuilder::new(n as u32, heights)
        .seed(9)
        .sea_level_raw(0.3)
        .metres_per_raw(251.0)
        .metres_per_pixel(2.0)
        .ocean_below_sea(vec![ocean])
        .build()
}
