//! Roads carved into the column surface (SPEC §3 "Roads"): the world server reads the blueprint's
//! `ROAD` polylines once at load and answers, per column, the carved surface and the road there.
//!
//! - **Roadbed** ([`super::roadbed`], joined where roads meet by [`super::joins`]). Along each
//!   road (one point per pixel) the terrain is sampled and turned into a
//!   profile within the tier's grade: the mean of the lowest profile above the terrain and the
//!   highest profile below it that both climb at most the grade (each a two-pass distance
//!   transform; their mean climbs at most the grade too), so cuts and fills balance. Bridge
//!   points do not pull the profile (the deck spans them). The profile is then lifted, within the
//!   grade, over the sea, over each bridge's water by the clearance, and over any water beside
//!   the road, so a road never runs below a river or lake next to it.
//! - **Cross-section.** A column within the tier's half-width of the nearest road centreline
//!   stands at the roadbed there (flat across the road); the shoulder beyond blends back into the
//!   terrain with a smoothstep, as wide as the fill or cut at the road's edge needs to stay
//!   within [`EMBANKMENT_SLOPE`]; outside every roadway a column takes the highest fill and the
//!   deepest cut of the segments that reach it; wet columns and bridge spans are not carved, and
//!   no carved column ends below the water in its 8 neighbours.
//! - **Culling.** Each road segment is listed in the chunks its box, grown by the widest
//!   half-width + [`MAX_SHOULDER_M`], touches; a column only looks at its chunk's segments.

use super::layout::{CHUNK_COLUMNS, FLOOR_Y_M};
pub use super::roadbed::{BRIDGE_CLEARANCE_M, CarvedRoad, ROADBED_ABOVE_SEA_M, road_width_m, roadbed, shoulder_m};
use super::roadbed::{bilinear, carve_road, water_beside_m};
use crate::blueprint::{Blueprint, RoadTier, Town, TownTier};

/// The steepest a road's embankment or cutting may stand (rise over run): where the roadbed lies
/// far above or below the terrain at the road's edge, the shoulder widens so its smoothstep (whose
/// steepest slope is 1.5 × the height over the width) climbs no steeper, up to
/// [`MAX_SHOULDER_M`]. A tall fill then reads as a slope under the road's edge instead of a wall
/// of one-column teeth.
pub const EMBANKMENT_SLOPE: f32 = 1.0;
/// The widest a shoulder grows (m).
pub const MAX_SHOULDER_M: f32 = 48.0;

/// The shoulder (m) of a `tier` road whose roadbed stands `fill_m` above (or, negative, below)
/// the terrain at its edge: [`shoulder_m`], widened to keep the embankment within
/// [`EMBANKMENT_SLOPE`], at most [`MAX_SHOULDER_M`].
pub fn embankment_shoulder_m(tier: RoadTier, fill_m: f32) -> f32 {
    (1.5 * fill_m.abs() / EMBANKMENT_SLOPE).clamp(shoulder_m(tier), MAX_SHOULDER_M)
}

/// Half the side (m) of a town's square, by the town's tier: flat, carved, paved.
pub fn town_square_half_m(tier: TownTier) -> f32 {
    match tier {
        TownTier::Village => 10.0,
        TownTier::Town => 16.0,
        TownTier::City => 24.0,
        TownTier::Capitol => 32.0,
    }
}

/// A town's square: its centre (pixel coordinates), half its side (pixels), the one height it
/// is carved at (m) and the paving (a highway town's asphalt, else gravel).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Square {
    pub centre: [f32; 2],
    pub half_px: f32,
    pub height_m: f32,
    pub paving: RoadTier,
}

impl Square {
    /// How far (pixels, Chebyshev) a point lies outside the square; 0 inside.
    pub fn outside_px(&self, p: [f32; 2]) -> f32 {
        self.signed_px(p).max(0.0)
    }

    /// The signed Chebyshev distance (pixels) from a point to the square's edge: negative inside.
    pub fn signed_px(&self, p: [f32; 2]) -> f32 {
        let d = (p[0] - self.centre[0]).abs().max((p[1] - self.centre[1]).abs());
        d - self.half_px
    }
}

/// A town square's shoulder (m): the carve blends back into the terrain over this distance.
pub const SQUARE_SHOULDER_M: f32 = 10.0;

/// A carved column stands at least this far above the water in its 8 neighbours (m).
pub const SHORE_ABOVE_WATER_M: f32 = 0.05;

/// The road carving of a whole world.
#[derive(Debug, Clone, Default)]
pub struct RoadCarve {
    pub roads: Vec<CarvedRoad>,
    /// Per chunk (X-outer), the `(road, segment)` pairs whose grown box touches it.
    cull: Vec<Vec<(u32, u32)>>,
    /// Per chunk, the carve of each of its 32 × 32 columns, worked out once at load for the
    /// chunks a road reaches (`None` elsewhere): the carve is a pure function of the blueprint.
    tiles: Vec<Option<Box<[Option<Carve>]>>>,
    chunks_per_side: usize,
    mpp: f32,
    /// Where the roads meet, and how well their roadbeds agree there.
    pub joins: super::joins::JoinStats,
    /// The towns' squares, each at one height, the roads into a town ramped to it.
    pub squares: Vec<Square>,
}

/// Where a road's segment is nearest a column: the road, the distance (pixels), the foot point
/// (pixel coordinates), the roadbed there (m) and whether the segment is a bridge's.
#[derive(Debug, Clone, Copy)]
struct Foot {
    road: u32,
    d_px: f32,
    at: [f32; 2],
    bed_m: f32,
    on_bridge: bool,
}

/// The column answer: the carved surface, the road on the column and the paint field near it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Carve {
    /// The carved surface (m); `None` on a column only the paint field reaches, which keeps
    /// its own height (and its own water rules).
    pub surface_m: Option<f32>,
    /// The tier of the road on the column, if any: the nearest road's, within its paint
    /// half-width ([`RoadCarve::paint_half_m`]), or a square's paving inside it.
    pub road: Option<RoadTier>,
    /// The paint field: the signed distance (cm) from the column's centre to the nearest paint
    /// edge of any off-bridge road or square, negative on the paint (clamped to ±327 m). The
    /// renderer interpolates it between columns and thresholds it per pixel, so a paint edge is
    /// a straight line wherever it runs, not a row of one-column steps.
    pub paint_cm: i16,
    /// The tier of the paint nearest the column (a square's paving for a square).
    pub paint_tier: Option<RoadTier>,
}

impl Carve {
    /// The paint field in metres (see [`Carve::paint_cm`]).
    pub fn paint_m(&self) -> f32 {
        self.paint_cm as f32 / 100.0
    }
}

/// The paint field is held on the columns within this many columns of a paint edge; farther
/// columns read it as exactly this far (off the paint).
pub const NO_PAINT_COLUMNS: f32 = 2.0;

fn to_cm(m: f32) -> i16 {
    (m * 100.0).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16
}

/// Culling: per chunk of a `per_side`² grid (X-outer), the `(road, segment)` pairs whose box,
/// grown by the widest half-width + shoulder at `mpp` metres per pixel, touches it.
fn cull_segments(roads: &[CarvedRoad], per_side: usize, mpp: f32) -> Vec<Vec<(u32, u32)>> {
    let chunk = CHUNK_COLUMNS as usize;
    let mut cull = vec![Vec::new(); per_side * per_side];
    // The widest reach of a road's carve, or of its paint field (half-width at least 0.75 of a
    // column, then the field's columns beyond the edge).
    let reach_m = |t: RoadTier| {
        let half = road_width_m(t) / 2.0;
        (half + MAX_SHOULDER_M).max(half.max(0.75 * mpp) + NO_PAINT_COLUMNS * mpp)
    };
    let margin_px = roads.iter().map(|r| reach_m(r.tier)).fold(0.0, f32::max) / mpp + 1.0;
    for (ri, r) in roads.iter().enumerate() {
        for si in 0..r.points.len().saturating_sub(1) {
            let (a, b) = (r.points[si], r.points[si + 1]);
            let x0 = ((a[0].min(b[0]) - margin_px).floor().max(0.0) as usize / chunk).min(per_side - 1);
            let x1 = ((a[0].max(b[0]) + margin_px).ceil().max(0.0) as usize / chunk).min(per_side - 1);
            let y0 = ((a[1].min(b[1]) - margin_px).floor().max(0.0) as usize / chunk).min(per_side - 1);
            let y1 = ((a[1].max(b[1]) + margin_px).ceil().max(0.0) as usize / chunk).min(per_side - 1);
            for cx in x0..=x1 {
                for cy in y0..=y1 {
                    cull[cx * per_side + cy].push((ri as u32, si as u32));
                }
            }
        }
    }
    cull
}

/// The squares of the blueprint's towns: each at the mean roadbed of the road points inside it
/// (the terrain at its centre when no road reaches it), and every road point inside a square
/// pinned to its height, the road ramping away within its grade.
pub fn town_squares(bp: &Blueprint, roads: &mut [CarvedRoad]) -> Vec<Square> {
    let Some(towns) = &bp.towns else { return Vec::new() };
    let mpp = bp.params.metres_per_pixel;
    let squares: Vec<Square> = towns
        .iter()
        .map(|t: &Town| {
            let half_px = town_square_half_m(t.tier) / mpp;
            let mut sq = Square {
                centre: [t.x, t.y],
                half_px,
                height_m: bilinear(bp, t.x, t.y),
                paving: if t.is_highway_node { RoadTier::Highway } else { RoadTier::Road },
            };
            let inside: Vec<f32> = roads
                .iter()
                .flat_map(|r| r.points.iter().zip(&r.bed_m).filter(|(p, _)| sq.outside_px(**p) == 0.0).map(|(_, b)| *b))
                .collect();
            if !inside.is_empty() {
                sq.height_m = inside.iter().sum::<f32>() / inside.len() as f32;
            }
            sq
        })
        .collect();
    for r in roads.iter_mut() {
        let pins: Vec<Option<f32>> =
            r.points.iter().map(|p| squares.iter().find(|s| s.outside_px(*p) == 0.0).map(|s| s.height_m)).collect();
        if pins.iter().any(Option::is_some) {
            let mut s = vec![0f32; r.points.len()];
            for i in 1..s.len() {
                let (a, b) = (r.points[i - 1], r.points[i]);
                s[i] = s[i - 1] + (b[0] - a[0]).hypot(b[1] - a[1]) * mpp;
            }
            let floor = r.floor_m.clone();
            super::joins::ramp_to_pins(&mut r.bed_m, &s, &pins, r.tier.grade_limit(), &floor);
        }
    }
    squares
}

/// Every road's roadbed, graded alone and then joined where roads meet ([`super::joins`]), with
/// how they met. Cheap next to the per-column carve: `isla info` reports the joins from it.
pub fn joined_roadbeds(bp: &Blueprint) -> (Vec<CarvedRoad>, super::joins::JoinStats) {
    let Some(net) = &bp.roads else { return (Vec::new(), Default::default()) };
    // The level the seam rule compares with: the ocean body's, else the sea level.
    let ocean_raw = bp.water.as_ref().and_then(|w| w.ocean()).map_or(bp.params.sea_level_raw, |o| o.surface_level_raw);
    let sea_m = ocean_raw * bp.params.metres_per_raw;
    let river_from = bp.first_river_body_id();
    let mut roads: Vec<CarvedRoad> = net.roads.iter().map(|r| carve_road(bp, r, sea_m, river_from)).collect();
    let joins = super::joins::join_roads(&mut roads, bp.params.metres_per_pixel);
    (roads, joins)
}

impl RoadCarve {
    /// The carving of `bp`'s roads: each road's roadbed, the segments per chunk, and the carve of
    /// every column in the chunks a road reaches.
    pub fn new(bp: &Blueprint) -> Self {
        if bp.roads.is_none() {
            return Self::default();
        }
        let mpp = bp.params.metres_per_pixel;
        let (mut roads, joins) = joined_roadbeds(bp);
        let squares = town_squares(bp, &mut roads);
        let per_side = (bp.map_size as usize).div_ceil(CHUNK_COLUMNS as usize) + 1;
        let cull = cull_segments(&roads, per_side, mpp);
        let mut carve = Self { roads, cull, tiles: Vec::new(), chunks_per_side: per_side, mpp, joins, squares };
        carve.tiles = carve.carve_tiles(bp);
        carve
    }

    /// Per chunk, the carve of each of its columns, for the chunks a road reaches (`None`
    /// elsewhere); wet columns stay uncarved.
    fn carve_tiles(&self, bp: &Blueprint) -> Vec<Option<Box<[Option<Carve>]>>> {
        let (chunk, per_side) = (CHUNK_COLUMNS as usize, self.chunks_per_side);
        let n = bp.map_size as i64;
        let c = chunk as i64;
        (0..per_side * per_side)
            .map(|k| {
                let (cx, cy) = ((k / per_side) as i64, (k % per_side) as i64);
                if self.cull[k].is_empty() && !self.square_near_chunk(cx, cy) {
                    return None;
                }
                let mut cells = vec![None; chunk * chunk];
                for dx in 0..c {
                    for dy in 0..c {
                        let (x, y) = (cx * c + dx, cy * c + dy);
                        if x < n && y < n {
                            cells[(dx * c + dy) as usize] = self.carve_cell(bp, x, y, &self.cull[k]);
                        }
                    }
                }
                Some(cells.into_boxed_slice())
            })
            .collect()
    }

    /// The carve of column `(x, y)` inside the map, from the road segments `segments` (the
    /// chunk's culled list at load): `None` on a wet column; a carved column never ends below the
    /// water beside it (a shoulder blending into terrain that lies under a river's level next to
    /// it).
    fn carve_cell(&self, bp: &Blueprint, x: i64, y: i64, segments: &[(u32, u32)]) -> Option<Carve> {
        let n = bp.map_size as i64;
        if bp.water.as_ref().is_some_and(|w| w.body_ids[(x * n + y) as usize] != 0) {
            return None;
        }
        let mut cell = self.carve_column(bp, x, y, super::column::terrain_y_m(bp, x, y), segments);
        if let Some(surface) = cell.as_mut().and_then(|c| c.surface_m.as_mut()) {
            let beside = water_beside_m(bp, [x as f32, y as f32], 1);
            if *surface < beside + SHORE_ABOVE_WATER_M {
                *surface = beside + SHORE_ABOVE_WATER_M;
            }
        }
        cell
    }

    /// The carve of column `(px, py)` (inside the map) worked out from every segment of every
    /// road, with neither the chunk culling nor the tiles kept at load: slow (every column looks
    /// at every segment), the reference that [`RoadCarve::at`] must equal everywhere.
    pub fn at_uncached(&self, bp: &Blueprint, px: i64, py: i64) -> Option<Carve> {
        if self.is_empty() {
            return None;
        }
        let all: Vec<(u32, u32)> = (self.roads.iter().enumerate())
            .flat_map(|(ri, r)| (0..r.points.len().saturating_sub(1)).map(move |si| (ri as u32, si as u32)))
            .collect();
        self.carve_cell(bp, px, py, &all)
    }

    /// The carve of column `(px, py)` inside the map (never a wet one), as worked out at load.
    #[inline]
    pub fn at(&self, px: i64, py: i64) -> Option<Carve> {
        if self.tiles.is_empty() {
            return None;
        }
        let c = CHUNK_COLUMNS as i64;
        let tile = self.tiles[self.chunk_of(px, py)?].as_ref()?;
        tile[((px % c) * c + py % c) as usize]
    }

    /// Index (X-outer) of the chunk holding column `(px, py)`, when it lies on the chunk grid.
    #[inline]
    fn chunk_of(&self, px: i64, py: i64) -> Option<usize> {
        if px < 0 || py < 0 {
            return None;
        }
        let c = CHUNK_COLUMNS as i64;
        let (cx, cy) = ((px / c) as usize, (py / c) as usize);
        (cx < self.chunks_per_side && cy < self.chunks_per_side).then_some(cx * self.chunks_per_side + cy)
    }

    /// Whether nothing is carved: no road and no town square (a `ROAD` section with no roads
    /// still carves its towns' squares).
    pub fn is_empty(&self) -> bool {
        self.roads.is_empty() && self.squares.is_empty()
    }

    /// How many chunks a road reaches (their columns' carve is held).
    pub fn carved_chunks(&self) -> usize {
        self.tiles.iter().filter(|t| t.is_some()).count()
    }

    /// Whether a square or its shoulder reaches chunk `(cx, cy)`.
    fn square_near_chunk(&self, cx: i64, cy: i64) -> bool {
        let c = CHUNK_COLUMNS as f32;
        let reach = SQUARE_SHOULDER_M / self.mpp + NO_PAINT_COLUMNS + 1.0;
        let centre = [(cx as f32 + 0.5) * c, (cy as f32 + 0.5) * c];
        self.squares.iter().any(|s| s.outside_px(centre) <= 0.5 * c + reach)
    }

    /// How far either side of its centreline a `tier` road is painted (m): its half-width, at
    /// least 0.75 of a column, so a line of columns stays unbroken on coarse maps.
    pub fn paint_half_m(&self, tier: RoadTier) -> f32 {
        (road_width_m(tier) / 2.0).max(0.75 * self.mpp)
    }

    /// The carve of column `(px, py)` (inside the map) whose terrain is `terrain_m`, from the
    /// road segments `segments`, or `None` where neither a road, a square nor their paint field
    /// reaches it: a town's square (flat inside, blending out over its shoulder), else the road
    /// nearest it; and the paint field.
    fn carve_column(&self, bp: &Blueprint, px: i64, py: i64, terrain_m: f32, segments: &[(u32, u32)]) -> Option<Carve> {
        let q = [px as f32 + 0.5, py as f32 + 0.5];
        // Every segment in the list where it is nearest the column, computed once for both the
        // carve and the paint.
        let feet: Vec<Foot> = segments.iter().map(|&(ri, si)| self.foot(ri, si, q)).collect();
        let (paint_m, paint_tier) = self.paint_of(&feet, q);
        let paint_cm = to_cm(paint_m);
        let square = self.squares.iter().map(|s| (s.outside_px(q) * self.mpp, s)).min_by(|a, b| a.0.total_cmp(&b.0));
        let carve = |surface_m: f32, road| Some(Carve { surface_m: Some(surface_m), road, paint_cm, paint_tier });
        if let Some((0.0, s)) = square {
            return carve(s.height_m.max(FLOOR_Y_M), Some(s.paving));
        }
        match (self.carve_road_column(bp, &feet, q, terrain_m), square) {
            (Some((surface, road)), _) => carve(surface, road),
            (None, Some((d, s))) if d < SQUARE_SHOULDER_M => {
                let f = d / SQUARE_SHOULDER_M;
                let f = f * f * (3.0 - 2.0 * f);
                carve((s.height_m + (terrain_m - s.height_m) * f).max(FLOOR_Y_M), None)
            }
            // A column only the paint field reaches keeps its own height: the field must fall
            // to its far value beyond the paint edge, not at the edge's own column.
            _ if paint_tier.is_some() && paint_m < NO_PAINT_COLUMNS * self.mpp => {
                Some(Carve { surface_m: None, road: None, paint_cm, paint_tier })
            }
            _ => None,
        }
    }

    /// The paint field at a column centre `q` (see [`Carve::paint_cm`]), in metres, and the
    /// nearest paint's tier: the least of every off-bridge road segment's distance less its
    /// paint half-width and every square's signed distance; `(+∞, None)` with neither.
    fn paint_of(&self, feet: &[Foot], q: [f32; 2]) -> (f32, Option<RoadTier>) {
        let roads = feet.iter().filter(|f| !f.on_bridge).map(|f| {
            let tier = self.roads[f.road as usize].tier;
            (f.d_px * self.mpp - self.paint_half_m(tier), tier)
        });
        let squares = self.squares.iter().map(|s| (s.signed_px(q) * self.mpp, s.paving));
        roads.chain(squares).min_by(|a, b| a.0.total_cmp(&b.0)).map_or((f32::INFINITY, None), |(d, t)| (d, Some(t)))
    }

    /// The carve the roads give a column centred on `q`, from its `feet`: the surface (m) and
    /// the road on it. Flat at the nearest road's roadbed within its half-width; outside every
    /// roadway, each road segment's shoulder blends from its roadbed back to the terrain over a
    /// width its fill or cut at the edge needs ([`embankment_shoulder_m`]), and the column takes
    /// the highest fill and the deepest cut of the segments that reach it (a maximum and a
    /// minimum of continuous blends: no step where two roads' shoulders, or a hairpin's two
    /// legs', meet).
    fn carve_road_column(
        &self,
        bp: &Blueprint,
        feet: &[Foot],
        q: [f32; 2],
        terrain_m: f32,
    ) -> Option<(f32, Option<RoadTier>)> {
        let first = *feet.iter().min_by(|a, b| a.d_px.total_cmp(&b.d_px))?;
        let r = &self.roads[first.road as usize];
        if first.on_bridge {
            return None; // under a bridge the terrain (and the river) stay as they are
        }
        let d_m = first.d_px * self.mpp;
        let half = road_width_m(r.tier) / 2.0;
        let paint = (d_m <= self.paint_half_m(r.tier)).then_some(r.tier);
        if d_m <= half {
            return Some((first.bed_m.max(FLOOR_Y_M), paint));
        }
        let (mut fill, mut cut, mut reached) = (0f32, 0f32, paint.is_some());
        for f in feet.iter().filter(|f| !f.on_bridge) {
            let Some(c) = self.shoulder_m(bp, f, q, terrain_m) else { continue };
            (fill, cut, reached) = (fill.max(c - terrain_m), cut.min(c - terrain_m), true);
        }
        reached.then(|| ((terrain_m + fill + cut).max(FLOOR_Y_M), paint))
    }

    /// Where segment `si` of road `ri` is nearest the point `q` (pixel coordinates).
    fn foot(&self, ri: u32, si: u32, q: [f32; 2]) -> Foot {
        let r = &self.roads[ri as usize];
        let (i, j) = (si as usize, si as usize + 1);
        let (a, b) = (r.points[i], r.points[j]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 { (((q[0] - a[0]) * dx + (q[1] - a[1]) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
        let at = [a[0] + dx * t, a[1] + dy * t];
        Foot {
            road: ri,
            d_px: (q[0] - at[0]).hypot(q[1] - at[1]),
            at,
            bed_m: r.bed_m[i] + (r.bed_m[j] - r.bed_m[i]) * t,
            on_bridge: r.bridge[i] && r.bridge[j],
        }
    }

    /// A road's shoulder at a column outside its roadway whose terrain is `terrain_m`: the
    /// smoothstep from the roadbed back to the terrain, as wide as the fill or cut at the road's
    /// edge on the column's side needs; `None` beyond it.
    fn shoulder_m(&self, bp: &Blueprint, f: &Foot, q: [f32; 2], terrain_m: f32) -> Option<f32> {
        let tier = self.roads[f.road as usize].tier;
        let half = road_width_m(tier) / 2.0;
        let d_m = f.d_px * self.mpp;
        if d_m > half + MAX_SHOULDER_M {
            return None;
        }
        let to_edge = half / self.mpp / f.d_px.max(1e-6);
        let edge = [f.at[0] + (q[0] - f.at[0]) * to_edge, f.at[1] + (q[1] - f.at[1]) * to_edge];
        let width = embankment_shoulder_m(tier, f.bed_m - bilinear(bp, edge[0], edge[1]));
        if d_m > half + width {
            return None;
        }
        let x = ((d_m - half) / width).clamp(0.0, 1.0);
        Some(f.bed_m + (terrain_m - f.bed_m) * x * x * (3.0 - 2.0 * x))
    }
}
