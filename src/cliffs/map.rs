//! The map: compose the chosen layers over a region into one RGBA image (the in-game window and
//! `isla map` draw the same thing), and encode it as PNG, written atomically.

use super::fields::FieldSource;
use super::lattice::{CELL_TILES, ChunkWindow};
use super::place::{CliffPlacement, CliffStats, place_cliffs};
use super::presets::{FieldsError, PresetFields};
use super::raster::{
    BACKGROUND_COLOUR, CameraMarker, CliffColouring, MapRegion, RgbaImage, paint_camera, paint_chunk_grid,
    paint_cliffiness, paint_cliffs, paint_elevation_bands, paint_rivers, paint_roads, paint_terrain, paint_towns,
    paint_water_bodies,
};
use super::settings::CliffSettings;
use super::water::WaterMask;
use crate::blueprint::Blueprint;
use std::path::Path;

/// Which layers to draw. Terrain is the base; the others are drawn over it in this order:
/// water bodies, elevation bands, cliffiness, chunk grid, cliffs, rivers, roads, towns, camera.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct MapLayers {
    /// Hypsometric tint with hillshade, water shaded by true depth (needs a blueprint).
    pub terrain: bool,
    pub water_bodies: bool,
    pub elevation_bands: bool,
    pub cliffiness: bool,
    pub chunk_grid: bool,
    /// `None` hides the cliffs.
    pub cliffs: Option<CliffColouring>,
    /// The river network (`RIVR`) as lines.
    pub rivers: bool,
    /// The road network (`ROAD`) by tier, bridges marked.
    pub roads: bool,
    pub towns: bool,
    /// Drawn when the request carries a camera.
    pub camera: bool,
}

impl Default for MapLayers {
    /// What the map opens with: terrain, cliffs in the reference colour, rivers, roads, towns, camera.
    fn default() -> Self {
        Self {
            terrain: true,
            water_bodies: false,
            elevation_bands: false,
            cliffiness: false,
            chunk_grid: false,
            cliffs: Some(CliffColouring::Reference),
            rivers: true,
            roads: true,
            towns: true,
            camera: true,
        }
    }
}

impl MapLayers {
    /// Nothing at all (build up from here).
    pub const NONE: MapLayers = MapLayers {
        terrain: false,
        water_bodies: false,
        elevation_bands: false,
        cliffiness: false,
        chunk_grid: false,
        cliffs: None,
        rivers: false,
        roads: false,
        towns: false,
        camera: false,
    };
    /// Every layer, cliffs coloured by orientation.
    pub const ALL: MapLayers = MapLayers {
        terrain: true,
        water_bodies: true,
        elevation_bands: true,
        cliffiness: true,
        chunk_grid: true,
        cliffs: Some(CliffColouring::ByOrientation),
        rivers: true,
        roads: true,
        towns: true,
        camera: true,
    };
    /// Layer names for a CLI list: terrain, water-bodies, bands, cliffiness, grid, cliffs,
    /// cliffs-by-orientation, rivers, roads, towns, camera; plus `all` and `none`.
    pub const NAMES: [&'static str; 13] = [
        "terrain",
        "water-bodies",
        "bands",
        "cliffiness",
        "grid",
        "cliffs",
        "cliffs-by-orientation",
        "rivers",
        "roads",
        "towns",
        "camera",
        "all",
        "none",
    ];
    /// Parse a comma-separated list of [`MapLayers::NAMES`].
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut l = MapLayers::NONE;
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match name {
                "terrain" => l.terrain = true,
                "water-bodies" => l.water_bodies = true,
                "bands" => l.elevation_bands = true,
                "cliffiness" => l.cliffiness = true,
                "grid" => l.chunk_grid = true,
                "cliffs" => l.cliffs = Some(CliffColouring::Reference),
                "cliffs-by-orientation" => l.cliffs = Some(CliffColouring::ByOrientation),
                "rivers" => l.rivers = true,
                "roads" => l.roads = true,
                "towns" => l.towns = true,
                "camera" => l.camera = true,
                "all" => l = MapLayers::ALL,
                "none" => l = MapLayers::NONE,
                other => return Err(format!("unknown map layer '{other}' (known: {})", Self::NAMES.join(", "))),
            }
        }
        Ok(l)
    }
    /// Whether any chosen layer needs the cliff placement.
    pub fn needs_placement(&self) -> bool {
        self.cliffs.is_some() || self.elevation_bands || self.cliffiness
    }
}

/// Everything one map image depends on.
#[derive(Clone, Copy)]
pub struct MapRequest<'a> {
    pub blueprint: Option<&'a Blueprint>,
    /// The water cliffs are rejected on. `None` with a blueprint: built from the blueprint over
    /// the region (keep one from [`WaterMask::from_blueprint`] to skip that on each redraw).
    pub water: Option<&'a WaterMask>,
    pub settings: CliffSettings,
    pub region: MapRegion,
    pub layers: MapLayers,
    pub camera: Option<CameraMarker>,
}

/// A rendered map and, when a cliff layer was drawn, the placement behind it.
#[derive(Debug, Clone)]
pub struct MapRender {
    pub image: RgbaImage,
    pub placement: Option<CliffPlacement>,
}

impl MapRender {
    pub fn stats(&self) -> Option<&CliffStats> {
        self.placement.as_ref().map(|p| &p.stats)
    }
}

/// The chunk window a region's cliffs come from (every chunk any of its tiles lies in).
pub fn placement_window(region: &MapRegion) -> ChunkWindow {
    ChunkWindow::covering_tiles(region.x, region.y, region.w as u64, region.h as u64)
}

/// Place cliffs for a region with the settings' preset fields (and the blueprint's water).
pub fn place_for_region(
    settings: &CliffSettings,
    blueprint: Option<&Blueprint>,
    water: Option<&WaterMask>,
    region: &MapRegion,
) -> Result<CliffPlacement, FieldsError> {
    let fields = PresetFields::new(settings, blueprint)?;
    Ok(place_with_fields(settings, &fields, blueprint, water, region))
}

/// [`place_for_region`] with any field source.
pub fn place_with_fields<F: FieldSource + ?Sized>(
    settings: &CliffSettings,
    fields: &F,
    blueprint: Option<&Blueprint>,
    water: Option<&WaterMask>,
    region: &MapRegion,
) -> CliffPlacement {
    let window = placement_window(region);
    let built;
    let water = match (water, blueprint) {
        (Some(w), _) => Some(w),
        (None, Some(bp)) => {
            let (x0, y0) = window.origin_tiles();
            let (w, h) = (window.cells_w() as i64 * CELL_TILES, window.cells_h() as i64 * CELL_TILES);
            built = WaterMask::from_blueprint_region(bp, x0, y0, w as u32, h as u32);
            Some(&built)
        }
        (None, None) => None,
    };
    place_cliffs(window, settings, fields, water)
}

/// Draw the chosen layers over the region.
pub fn render_map(req: &MapRequest) -> Result<MapRender, FieldsError> {
    let placement = if req.layers.needs_placement() {
        Some(place_for_region(&req.settings, req.blueprint, req.water, &req.region)?)
    } else {
        None
    };
    Ok(compose(req, placement))
}

/// Draw the layers with a placement already made (e.g. kept from a previous frame).
pub fn compose(req: &MapRequest, placement: Option<CliffPlacement>) -> MapRender {
    let (w, h) = req.region.image_size();
    let mut img = RgbaImage::filled(w, h, BACKGROUND_COLOUR);
    let r = &req.region;
    let l = &req.layers;
    if let Some(bp) = req.blueprint {
        if l.terrain {
            paint_terrain(&mut img, r, bp);
        }
        if l.water_bodies {
            paint_water_bodies(&mut img, r, bp);
        }
    }
    if let Some(p) = &placement {
        if l.elevation_bands {
            paint_elevation_bands(&mut img, r, p);
        }
        if l.cliffiness {
            paint_cliffiness(&mut img, r, p);
        }
    }
    if l.chunk_grid {
        paint_chunk_grid(&mut img, r);
    }
    if let (Some(p), Some(colouring)) = (&placement, l.cliffs) {
        paint_cliffs(&mut img, r, p, colouring);
    }
    if let (Some(bp), true) = (req.blueprint, l.rivers) {
        paint_rivers(&mut img, r, bp);
    }
    if let (Some(bp), true) = (req.blueprint, l.roads) {
        paint_roads(&mut img, r, bp);
    }
    if let (Some(bp), true) = (req.blueprint, l.towns) {
        paint_towns(&mut img, r, bp);
    }
    if let (Some(cam), true) = (&req.camera, l.camera) {
        paint_camera(&mut img, r, cam);
    }
    MapRender { image: img, placement }
}

/// PNG bytes of an image.
pub fn encode_png(img: &RgbaImage) -> anyhow::Result<Vec<u8>> {
    crate::io::encode_png_rgba(&img.pixels, img.width, img.height)
}

/// Write an image as PNG atomically (temporary file, then rename).
pub fn write_png(path: &Path, img: &RgbaImage) -> anyhow::Result<()> {
    crate::io::write_png_atomic(path, &encode_png(img)?)
}
