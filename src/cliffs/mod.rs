//! The cliff/noise generator (SPEC §6): noise expressions, cliff fields, edge crossings, cell
//! codes and orientations, the repair sweep, water rejection and raster map layers. Pure and
//! deterministic; it never touches Bevy.
//!
//! Flow: [`CliffSettings`] + optional blueprint → [`PresetFields`] (a [`FieldSource`]) →
//! [`place_cliffs`] over a [`ChunkWindow`] → [`CliffPlacement`] → map layers ([`render_map`]) →
//! RGBA or PNG. The placer samples each corner of the window once, works chunk by chunk in
//! parallel (each chunk reads only its own 9 × 9 corners, so any tiling gives byte-identical
//! output) and assembles in a fixed order, so the thread count never changes the result.
//!
//! It owns cliff rules and map rasters. It must never decide where water is (the blueprint and
//! the world's water rules do) nor know about chunks of the 3-D world or the renderer.

mod codes;
mod crc32;
mod crossing;
mod fields;
mod lattice;
mod map;
mod noise;
mod place;
mod presets;
mod raster;
mod repair;
mod settings;
mod water;

pub use codes::{
    CODE_TABLE, CellKind, Orientation, Side, cell_kind, decode_crossing, encode_crossing, is_legal, orientation_of,
    pack_code,
};
pub use crc32::{crc32, table_entry as crc32_table_entry};
pub use crossing::crosses_cliff;
pub use fields::{CornerSample, CountingFields, FieldSource};
pub use lattice::{
    CELL_CENTRE_OFFSET_TILES, CELL_TILES, CHUNK_CELLS, CHUNK_CORNERS, CHUNK_TILES, ChunkWindow, cell_centre_tiles,
    corner_tile, smooth_chunk_elevation, smoothing_knots,
};
pub use map::{
    MapLayers, MapRender, MapRequest, compose, encode_png, place_for_region, place_with_fields, placement_window,
    render_map, write_png,
};
pub use noise::{BasisNoise, MultiOctaveNoise, Seed1, slider_to_linear};
pub use place::{CliffPlacement, CliffStats, PlacedCliff, place_cliffs, sample_lattice};
pub use presets::{BasicCliffiness, FieldsError, IslandFields, NauvisFields, PresetFields, VulcanusFields};
pub use raster::{
    BACKGROUND_COLOUR, CLIFF_MAP_COLOUR, CameraMarker, CliffColouring, MapRegion, RgbaImage, hillshade,
    hypsometric_colour, orientation_colour, paint_camera, paint_chunk_grid, paint_cliffiness, paint_cliffs,
    paint_elevation_bands, paint_terrain, paint_towns, paint_water_bodies, water_body_colour, water_depth_colour,
};
pub use repair::{CLEAR_ORDER, ChunkEdges, Edge, RepairOutcome, fix_impossible_cells};
pub use settings::*;
pub use water::WaterMask;
