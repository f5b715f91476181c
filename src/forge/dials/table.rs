//! The table of every dial: key, type and range, unit, meaning, and its place in
//! [`ForgeDials`] (a `get` and a `set` each, written by the macros below).

use super::{Dial, Kind, auto_droplets};
use crate::blueprint::DialValue;
use crate::forge::{ErosionDials, ForgeDials};

macro_rules! float {
    ($key:literal, $($f:ident).+, $lo:expr, $hi:expr, $unit:literal, $help:literal) => {
        Dial {
            key: $key,
            kind: Kind::Float { lo: $lo, hi: $hi },
            unit: $unit,
            help: $help,
            get: |d| Some(DialValue::Float(d.$($f).+)),
            set: |d, v| {
                if let DialValue::Float(v) = v {
                    d.$($f).+ = v
                }
            },
        }
    };
}

macro_rules! int {
    ($key:literal, $($f:ident).+ as $ty:ty, $lo:expr, $hi:expr, $unit:literal, $help:literal) => {
        Dial {
            key: $key,
            kind: Kind::Int { lo: $lo, hi: $hi },
            unit: $unit,
            help: $help,
            get: |d| Some(DialValue::Int(d.$($f).+ as i64)),
            set: |d, v| {
                if let DialValue::Int(v) = v {
                    d.$($f).+ = v as $ty
                }
            },
        }
    };
}

macro_rules! switch {
    ($key:literal, $($f:ident).+, $help:literal) => {
        Dial {
            key: $key,
            kind: Kind::Bool,
            unit: "",
            help: $help,
            get: |d| Some(DialValue::Bool(d.$($f).+)),
            set: |d, v| {
                if let DialValue::Bool(v) = v {
                    d.$($f).+ = v
                }
            },
        }
    };
}

/// A float of an optional stage (`d.$stage: Option<_>`).
macro_rules! stage_float {
    ($key:literal, $stage:ident . $f:ident, $lo:expr, $hi:expr, $unit:literal, $help:literal) => {
        Dial {
            key: $key,
            kind: Kind::Float { lo: $lo, hi: $hi },
            unit: $unit,
            help: $help,
            get: |d| d.$stage.as_ref().map(|s| DialValue::Float(s.$f)),
            set: |d, v| {
                if let (Some(s), DialValue::Float(v)) = (d.$stage.as_mut(), v) {
                    s.$f = v
                }
            },
        }
    };
}

macro_rules! stage_int {
    ($key:literal, $stage:ident . $f:ident as $ty:ty, $lo:expr, $hi:expr, $unit:literal, $help:literal) => {
        Dial {
            key: $key,
            kind: Kind::Int { lo: $lo, hi: $hi },
            unit: $unit,
            help: $help,
            get: |d| d.$stage.as_ref().map(|s| DialValue::Int(s.$f as i64)),
            set: |d, v| {
                if let (Some(s), DialValue::Int(v)) = (d.$stage.as_mut(), v) {
                    s.$f = v as $ty
                }
            },
        }
    };
}

/// An optional stage's `enabled` switch: on takes the stage's defaults (erosion's for the size).
macro_rules! enabled {
    ($key:literal, $stage:ident, $on:expr, $help:literal) => {
        Dial {
            key: $key,
            kind: Kind::Bool,
            unit: "",
            help: $help,
            get: |d| Some(DialValue::Bool(d.$stage.is_some())),
            set: |d, v| match v {
                DialValue::Bool(false) => d.$stage = None,
                DialValue::Bool(true) if d.$stage.is_none() => d.$stage = Some($on(d)),
                _ => {}
            },
        }
    };
}

macro_rules! knot {
    ($key:literal, $i:literal, $help:literal) => {
        Dial {
            key: $key,
            kind: Kind::Float { lo: 0.0, hi: 1.0 },
            unit: "fraction of the highest elevation",
            help: $help,
            get: |d| Some(DialValue::Float(d.curve.knots[$i])),
            set: |d, v| {
                if let DialValue::Float(v) = v {
                    d.curve.knots[$i] = v
                }
            },
        }
    };
}

/// Every dial, in the order of the default file and of the `DIAL` record.
pub static DIALS: &[Dial] = &[
    int!(
        "seed",
        seed as i32,
        i32::MIN as i64,
        i32::MAX as i64,
        "",
        "the world seed: every noise field and stream derives from it"
    ),
    int!(
        "size",
        size as u32,
        32,
        16384,
        "pixels per side",
        "the map's side; the island's shape is the same at every size"
    ),
    float!(
        "metres_per_pixel",
        metres_per_pixel,
        0.01,
        1000.0,
        "metres",
        "horizontal size of one pixel (4 m makes a 1024² map 4 km across)"
    ),
    // Shape.
    float!(
        "shape.axis_x",
        shape.axis_x,
        0.05,
        1.0,
        "normalised map units",
        "island half-extent east–west (1 = the map's half width)"
    ),
    float!("shape.axis_y", shape.axis_y, 0.05, 1.0, "normalised map units", "island half-extent north–south"),
    float!("shape.ellipse_blend", shape.ellipse_blend, 0.0, 1.0, "", "falloff outline: squircle (0) to ellipse (1)"),
    float!(
        "shape.coast_wander",
        shape.coast_wander,
        0.0,
        1.0,
        "falloff units",
        "how far low-frequency noise wanders the coastline"
    ),
    float!(
        "shape.body_m",
        shape.body_m,
        0.0,
        500.0,
        "metres",
        "height of the island body above sea at its centre, before noise and spine"
    ),
    float!("shape.relief_m", shape.relief_m, 0.0, 500.0, "metres", "amplitude of the noise topography"),
    float!("shape.relief_freq", shape.relief_freq, 0.1, 20.0, "per island width", "frequency of the noise topography"),
    float!("shape.spine_m", shape.spine_m, 0.0, 1000.0, "metres", "peak height of the mountain spine above the body"),
    float!("shape.spine_width", shape.spine_width, 0.01, 1.0, "normalised map units", "half-width of the spine"),
    float!(
        "shape.crest_round",
        shape.crest_round,
        0.001,
        1.0,
        "normalised map units",
        "rounding radius of the spine's crest"
    ),
    switch!(
        "shape.coast_shelf",
        shape.coast_shelf,
        "compress shallow depth into a coast shelf (never moves the waterline)"
    ),
    float!(
        "shape.islet_density",
        shape.islet_density,
        0.0,
        1.0,
        "fraction",
        "share of the islet noise field above the islet threshold (0 = no islets)"
    ),
    float!("shape.islet_freq", shape.islet_freq, 0.5, 64.0, "per map width", "islet noise frequency"),
    float!(
        "shape.islet_crest_m",
        shape.islet_crest_m,
        0.0,
        300.0,
        "metres",
        "height the stack islets are lifted toward, above sea, before the curve"
    ),
    float!(
        "shape.islet_moat_m",
        shape.islet_moat_m,
        0.0,
        200.0,
        "metres",
        "the moat: islets lift nothing where the water is shallower than this"
    ),
    float!(
        "shape.sea_level_m",
        shape.sea_level_m,
        -100.0,
        200.0,
        "metres",
        "the sea's height over the shape: raise it to drown the coast, lower it to bare the shelf"
    ),
    // Curve.
    knot!(
        "curve.knot_lowland",
        0,
        "end of the lowland (the knots rise: 0 < lowland < bench start < bench end < plateau start < plateau end < 1)"
    ),
    knot!("curve.knot_bench_start", 1, "start of the bench shelf"),
    knot!("curve.knot_bench_end", 2, "end of the bench shelf"),
    knot!("curve.knot_plateau_start", 3, "start of the plateau shelf"),
    knot!("curve.knot_plateau_end", 4, "end of the plateau shelf (summit spires above)"),
    float!(
        "curve.lowland_ceil_m",
        curve.lowland_ceil_m,
        0.0,
        100.0,
        "metres",
        "rendered height of the lowland's top above sea"
    ),
    float!("curve.bench_base_m", curve.bench_base_m, 0.0, 425.0, "metres", "rendered height of the bench shelf"),
    float!(
        "curve.bench_amp_m",
        curve.bench_amp_m,
        0.0,
        200.0,
        "metres",
        "how much the bench's height varies across the island"
    ),
    float!("curve.plateau_base_m", curve.plateau_base_m, 0.0, 425.0, "metres", "rendered height of the plateau shelf"),
    float!("curve.plateau_amp_m", curve.plateau_amp_m, 0.0, 200.0, "metres", "how much the plateau's height varies"),
    float!(
        "curve.shelf_span_min_m",
        curve.shelf_span_min_m,
        0.0,
        200.0,
        "metres",
        "least rendered rise across a shelf"
    ),
    float!("curve.shelf_span_max_m", curve.shelf_span_max_m, 0.0, 200.0, "metres", "most rendered rise across a shelf"),
    float!(
        "curve.cap_m",
        curve.cap_m,
        10.0,
        425.0,
        "metres",
        "summit cap above sea (425 keeps every level inside WSRF's range)"
    ),
    float!("curve.shelf_freq", curve.shelf_freq, 0.1, 20.0, "per island width", "frequency of the shelf-height fields"),
    float!(
        "curve.strength_freq",
        curve.strength_freq,
        0.1,
        20.0,
        "per island width",
        "frequency of the shelf-span strength field"
    ),
    // Detail.
    enabled!(
        "detail.enabled",
        detail,
        |_: &ForgeDials| crate::forge::DetailDials::default(),
        "the detail pass on the curve (recorded in TDTL)"
    ),
    stage_float!("detail.relief_amp_m", detail.relief_amp_m, 0.0, 20.0, "metres", "shelf micro-relief amplitude"),
    stage_float!(
        "detail.relief_freq",
        detail.relief_freq,
        0.5,
        100.0,
        "per island width",
        "shelf micro-relief frequency"
    ),
    stage_float!(
        "detail.edge_amp_m",
        detail.edge_amp_m,
        0.0,
        50.0,
        "metres",
        "shelf-edge variation: how far a shelf's edge shifts"
    ),
    stage_float!(
        "detail.edge_freq",
        detail.edge_freq,
        0.5,
        100.0,
        "per island width",
        "shelf-edge variation frequency"
    ),
    // Crater.
    float!(
        "crater.radius_frac",
        crater.radius_frac,
        0.0,
        0.2,
        "fraction of the map's side",
        "crater radius (under 2 px = no crater)"
    ),
    // Erosion.
    enabled!(
        "erosion.enabled",
        erosion,
        |d: &ForgeDials| ErosionDials::new(d.size),
        "droplet erosion on the render map (recorded in EROS; --erosion)"
    ),
    Dial {
        key: "erosion.droplet_count",
        kind: Kind::Int { lo: 0, hi: 50_000_000 },
        unit: "droplets",
        help: "governor 1: droplets in all; 0 = one per eight pixels of the map",
        get: |d| {
            d.erosion.as_ref().map(|e| {
                DialValue::Int(if e.droplet_count == auto_droplets(d.size) { 0 } else { e.droplet_count as i64 })
            })
        },
        set: |d, v| {
            let auto = auto_droplets(d.size);
            if let (Some(e), DialValue::Int(v)) = (d.erosion.as_mut(), v) {
                e.droplet_count = if v == 0 { auto } else { v as u32 }
            }
        },
    },
    stage_int!("erosion.lifetime", erosion.lifetime as u32, 1, 1000, "steps", "governor 2: most steps per droplet"),
    stage_float!(
        "erosion.carve_cap_m",
        erosion.carve_cap_m,
        0.0,
        100.0,
        "metres",
        "governor 3: most any cell is carved"
    ),
    stage_float!(
        "erosion.deposit_cap_m",
        erosion.deposit_cap_m,
        0.0,
        100.0,
        "metres",
        "governor 4: most any cell is built up"
    ),
    stage_float!(
        "erosion.sea_margin_m",
        erosion.sea_margin_m,
        0.0,
        50.0,
        "metres",
        "flood guard: nothing is carved below sea plus this"
    ),
    stage_int!(
        "erosion.brush_radius",
        erosion.brush_radius as u32,
        0,
        8,
        "pixels",
        "radius of the erode/deposit brush"
    ),
    stage_float!("erosion.inertia", erosion.inertia, 0.0, 1.0, "", "how much a droplet keeps its direction"),
    stage_float!(
        "erosion.capacity_factor",
        erosion.capacity_factor,
        0.0,
        64.0,
        "",
        "sediment capacity per unit of speed, water and slope"
    ),
    stage_float!("erosion.min_slope_m", erosion.min_slope_m, 0.0, 1.0, "metres per pixel", "capacity slope floor"),
    stage_float!("erosion.erode_rate", erosion.erode_rate, 0.0, 1.0, "", "share of the free capacity taken per step"),
    stage_float!(
        "erosion.deposit_rate",
        erosion.deposit_rate,
        0.0,
        1.0,
        "",
        "share of the excess sediment dropped per step"
    ),
    stage_float!("erosion.evaporation", erosion.evaporation, 0.0, 1.0, "", "share of the water lost per step"),
    stage_float!("erosion.gravity", erosion.gravity, 0.0, 100.0, "", "speed gained per metre of descent"),
    stage_float!(
        "erosion.crater_core_factor",
        erosion.crater_core_factor,
        0.0,
        4.0,
        "crater radii",
        "nothing inside this is modified (raised to the carve's 0.8)"
    ),
    stage_float!(
        "erosion.crater_feather_factor",
        erosion.crater_feather_factor,
        0.0,
        4.0,
        "crater radii",
        "erosion ramps from the core to full strength here (feather mode)"
    ),
    Dial {
        key: "erosion.crater_feather",
        kind: Kind::Bool,
        unit: "",
        help: "feather the crater's edge (true) or erode at full strength right outside the core",
        get: |d| d.erosion.as_ref().map(|e| DialValue::Bool(e.crater_feather)),
        set: |d, v| {
            if let (Some(e), DialValue::Bool(v)) = (d.erosion.as_mut(), v) {
                e.crater_feather = v
            }
        },
    },
    // Rivers.
    enabled!(
        "rivers.enabled",
        rivers,
        |_: &ForgeDials| crate::forge::RiverDials::default(),
        "rivers with water in them (recorded in RIVR; --rivers)"
    ),
    stage_int!("rivers.trunks", rivers.trunks as u16, 0, 64, "rivers", "most trunks to the ocean"),
    stage_int!("rivers.lake_rivers", rivers.lake_rivers as u16, 0, 64, "rivers", "most rivers ending in a lake"),
    stage_int!("rivers.tributaries", rivers.tributaries as u16, 0, 16, "rivers", "most tributaries per main river"),
    stage_float!(
        "rivers.main_min_area",
        rivers.main_min_area,
        0.0,
        1.0,
        "fraction of the map",
        "least drained area of a main river's outlet"
    ),
    stage_float!(
        "rivers.tributary_min_area",
        rivers.tributary_min_area,
        0.0,
        1.0,
        "fraction of the map",
        "least drained area of a tributary"
    ),
    stage_float!(
        "rivers.stem_min_area",
        rivers.stem_min_area,
        0.0,
        1.0,
        "fraction of the map",
        "a stem is traced upstream while the inflow drains this much"
    ),
    stage_float!(
        "rivers.endorheic_min_area",
        rivers.endorheic_min_area,
        0.0,
        1.0,
        "fraction of the map",
        "least area of a dry terminal basin"
    ),
    stage_float!(
        "rivers.mouth_separation",
        rivers.mouth_separation,
        0.0,
        1.0,
        "fraction of the map's side",
        "least distance between two trunk mouths"
    ),
    stage_float!(
        "rivers.min_length_m",
        rivers.min_length_m,
        0.0,
        100_000.0,
        "metres",
        "shortest river kept (tributaries need half)"
    ),
    stage_float!("rivers.width_scale", rivers.width_scale, 0.01, 10.0, "", "channel width multiplier"),
    stage_float!("rivers.depth_scale", rivers.depth_scale, 0.01, 10.0, "", "channel depth multiplier"),
    stage_float!("rivers.min_depth_m", rivers.min_depth_m, 0.0, 10.0, "metres", "least water depth over the bed"),
    stage_float!("rivers.sea_margin_m", rivers.sea_margin_m, 0.0, 20.0, "metres", "the bed stays this far above sea"),
    // Towns.
    int!(
        "towns.max_towns",
        towns.max_towns as u32,
        0,
        64,
        "towns",
        "most towns (the capitol, two cities, four towns, then villages)"
    ),
    float!(
        "towns.max_slope",
        towns.max_slope,
        0.0,
        1.0,
        "metres per metre",
        "steepest ground a town accepts on a 1024² map (scaled up on smaller maps)"
    ),
    float!(
        "towns.min_above_sea_m",
        towns.min_above_sea_m,
        0.0,
        400.0,
        "metres",
        "lowest ground above sea a town accepts"
    ),
    float!(
        "towns.spacing",
        towns.spacing,
        0.0,
        1.0,
        "fraction of the map's side",
        "least distance between two towns (at least 6 px)"
    ),
    // Roads.
    enabled!(
        "roads.enabled",
        roads,
        |_: &ForgeDials| crate::forge::RoadDials::default(),
        "the road network between the towns (recorded in ROAD; --roads)"
    ),
    stage_float!(
        "roads.highway_grade",
        roads.highway_grade,
        0.01,
        1.0,
        "rise over run",
        "the grade highways are planned for (the world server carves within 0.08)"
    ),
    stage_float!(
        "roads.road_grade",
        roads.road_grade,
        0.01,
        1.0,
        "rise over run",
        "the grade other roads are planned for (the world server carves within 0.12)"
    ),
    stage_float!(
        "roads.slope_weight",
        roads.slope_weight,
        0.0,
        100.0,
        "",
        "search cost per unit of (grade / planned grade)² along a step"
    ),
    stage_float!(
        "roads.steep_weight",
        roads.steep_weight,
        0.0,
        1000.0,
        "",
        "search cost per unit of grade past the planned grade"
    ),
    stage_float!("roads.turn_m", roads.turn_m, 0.0, 1000.0, "metres of road", "search cost of a 45° turn"),
    stage_float!(
        "roads.bridge_factor",
        roads.bridge_factor,
        1.0,
        100.0,
        "",
        "search cost factor of a step on a river (a bridge)"
    ),
];
