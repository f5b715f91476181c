//! RGBA8 map layers (SPEC §6 "The map"): each layer is a pure function that paints into an
//! [`RgbaImage`] covering a [`MapRegion`] of tiles. One tile is one blueprint pixel; a region may
//! draw several tiles per image pixel (nearest sample, top-left tile of the pixel's span).

use super::codes::Orientation;
use super::lattice::{CELL_TILES, CHUNK_TILES};
use super::place::CliffPlacement;
use crate::blueprint::{Blueprint, TownTier};
pub use crate::raster::{hillshade, hypsometric_colour, to_u8, water_body_colour, water_depth_colour};
use crate::world::{WaterSource, WorldLayout, terrain_gradient, water_column};

/// The reference's cliff map colour (its Vulcanus notes: `map_color = {144, 119, 87}`, shared by both
/// planets' cliff prototypes).
pub const CLIFF_MAP_COLOUR: [u8; 3] = [144, 119, 87];
/// Background where no terrain is drawn (off the map, or the terrain layer is off).
pub const BACKGROUND_COLOUR: [u8; 3] = [24, 26, 30];
/// Overlay opacities.
const BAND_ALPHA: f32 = 0.35;
const CLIFFINESS_ALPHA: f32 = 0.55;
const WATER_BODY_ALPHA: f32 = 0.6;
const CHUNK_GRID_ALPHA: f32 = 0.3;
const VIEW_CONE_ALPHA: f32 = 0.35;
/// Band tints, alternating.
const BAND_COLOURS: [[u8; 3]; 2] = [[255, 170, 60], [70, 120, 255]];
const CLIFFINESS_COLOUR: [u8; 3] = [230, 40, 200];
const CHUNK_GRID_COLOUR: [u8; 3] = [255, 255, 255];
const CAMERA_COLOUR: [u8; 3] = [230, 30, 30];
const VIEW_CONE_COLOUR: [u8; 3] = [255, 230, 80];
/// Town marker half-size in pixels and colour, by tier (village … capitol).
const TOWN_HALF_PX: [i64; 4] = [1, 2, 3, 4];
const TOWN_COLOURS: [[u8; 3]; 4] = [[250, 250, 250], [255, 220, 120], [255, 160, 60], [255, 70, 70]];

/// An RGBA8 image, row-major, top row first (map north up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    pub fn filled(width: u32, height: u32, rgb: [u8; 3]) -> Self {
        let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
        for _ in 0..width as usize * height as usize {
            pixels.extend_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
        }
        Self { width, height, pixels }
    }
    #[inline]
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = 4 * (x as usize + self.width as usize * y as usize);
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2], self.pixels[i + 3]]
    }
    #[inline]
    pub fn put(&mut self, x: u32, y: u32, rgb: [u8; 3]) {
        let i = 4 * (x as usize + self.width as usize * y as usize);
        self.pixels[i..i + 4].copy_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
    }
    /// Alpha-blend `rgb` over the pixel.
    #[inline]
    pub fn blend(&mut self, x: u32, y: u32, rgb: [u8; 3], alpha: f32) {
        let i = 4 * (x as usize + self.width as usize * y as usize);
        for (k, &c) in rgb.iter().enumerate() {
            let d = self.pixels[i + k] as f32;
            self.pixels[i + k] = (d + (c as f32 - d) * alpha).round().clamp(0.0, 255.0) as u8;
        }
        self.pixels[i + 3] = 255;
    }
}

/// The tiles an image covers: `[x, x + w) × [y, y + h)`, `tiles_per_px` tiles per pixel side.
/// The CLI's `--region X,Y,W,H` is this with `tiles_per_px = 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct MapRegion {
    pub x: i64,
    pub y: i64,
    pub w: u32,
    pub h: u32,
    pub tiles_per_px: u32,
}

impl MapRegion {
    pub fn new(x: i64, y: i64, w: u32, h: u32) -> Self {
        Self { x, y, w, h, tiles_per_px: 1 }
    }
    /// The whole map at one tile per pixel.
    pub fn whole(bp: &Blueprint) -> Self {
        Self::new(0, 0, bp.map_size, bp.map_size)
    }
    /// Same region, drawn at `tiles_per_px` (≥ 1) tiles per pixel.
    pub fn scaled(self, tiles_per_px: u32) -> Self {
        Self { tiles_per_px: tiles_per_px.max(1), ..self }
    }
    /// Whether the region overlaps a `map_size`² map and stays a sane size (at most four map
    /// widths on a side: no huge images, no overflow).
    pub fn check_against(&self, map_size: u32) -> Result<(), String> {
        let n = map_size as i64;
        let (w, h) = (self.w as i64, self.h as i64);
        let overlaps = self.x > -w && self.y > -h && self.x < n && self.y < n;
        if w < 1 || h < 1 || w > 4 * n || h > 4 * n || !overlaps {
            return Err(format!(
                "{},{},{},{} must overlap the {n}² map and be at most {} pixels on a side",
                self.x,
                self.y,
                self.w,
                self.h,
                4 * n
            ));
        }
        Ok(())
    }
    /// Parse `X,Y,W,H` (tiles; W and H positive).
    pub fn parse(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != 4 {
            return Err(format!("region '{s}' is not X,Y,W,H"));
        }
        let int = |p: &str, what: &str| p.parse::<i64>().map_err(|_| format!("region {what} '{p}' is not an integer"));
        let (x, y, w, h) = (int(parts[0], "X")?, int(parts[1], "Y")?, int(parts[2], "W")?, int(parts[3], "H")?);
        if w <= 0 || h <= 0 || w > u32::MAX as i64 || h > u32::MAX as i64 {
            return Err(format!("region size {w}×{h} must be positive"));
        }
        Ok(Self::new(x, y, w as u32, h as u32))
    }
    pub fn image_size(&self) -> (u32, u32) {
        let s = self.tiles_per_px.max(1);
        (self.w.div_ceil(s), self.h.div_ceil(s))
    }
    /// The tile an image pixel samples.
    #[inline]
    pub fn tile_of(&self, px: u32, py: u32) -> (i64, i64) {
        let s = self.tiles_per_px.max(1) as i64;
        (self.x + px as i64 * s, self.y + py as i64 * s)
    }
    /// The image pixel holding a tile (may be outside the image).
    #[inline]
    pub fn px_of(&self, tx: f64, ty: f64) -> (f64, f64) {
        let s = self.tiles_per_px.max(1) as f64;
        ((tx - self.x as f64) / s, (ty - self.y as f64) / s)
    }
}

/// Terrain: hypsometric tint with hillshade on land, water shaded by its true depth (the world's
/// water rules), background off the map.
pub fn paint_terrain(img: &mut RgbaImage, region: &MapRegion, bp: &Blueprint) {
    let src = WaterSource::new(bp);
    let top_m = WorldLayout::for_blueprint(bp).top_m();
    let n = bp.map_size as i64;
    let sea_m = bp.params.sea_level_raw * bp.params.metres_per_raw;
    for py in 0..img.height {
        for px in 0..img.width {
            let (tx, ty) = region.tile_of(px, py);
            if tx < 0 || ty < 0 || tx >= n || ty >= n {
                img.put(px, py, BACKGROUND_COLOUR);
                continue;
            }
            let (x, y) = (tx as u32, ty as u32);
            if let Some(col) = water_column(bp, &src, x, y, top_m) {
                img.put(px, py, water_depth_colour(col.true_depth_m));
                continue;
            }
            let shade = hillshade(terrain_gradient(bp, tx, ty));
            img.put(px, py, to_u8(hypsometric_colour(bp.height_m(x, y) - sea_m).map(|c| c * shade)));
        }
    }
}

/// Water body ids: the ocean in one colour, each lake in a colour hashed from its id.
pub fn paint_water_bodies(img: &mut RgbaImage, region: &MapRegion, bp: &Blueprint) {
    let Some(w) = &bp.water else { return };
    let n = bp.map_size as i64;
    for py in 0..img.height {
        for px in 0..img.width {
            let (tx, ty) = region.tile_of(px, py);
            if tx < 0 || ty < 0 || tx >= n || ty >= n {
                continue;
            }
            let id = w.body_ids[bp.index(tx as u32, ty as u32)];
            if id != 0 {
                img.blend(px, py, water_body_colour(id), WATER_BODY_ALPHA);
            }
        }
    }
}

/// Bilinear sample of a placement's corner lattice at a tile position (clamped to the window).
fn lattice_at(p: &CliffPlacement, values: &[f32], tx: i64, ty: i64) -> f32 {
    let (x0, y0) = p.window.origin_tiles();
    let (cw, ch) = (p.window.corners_w(), p.window.corners_h());
    let fx = ((tx - x0) as f32 / CELL_TILES as f32).clamp(0.0, (cw - 1) as f32);
    let fy = ((ty - y0) as f32 / CELL_TILES as f32).clamp(0.0, (ch - 1) as f32);
    let (ix, iy) = ((fx as usize).min(cw - 2), (fy as usize).min(ch - 2));
    let (u, v) = (fx - ix as f32, fy - iy as f32);
    let at = |i: usize, j: usize| values[i + cw * j];
    let top = at(ix, iy) + (at(ix + 1, iy) - at(ix, iy)) * u;
    let bottom = at(ix, iy + 1) + (at(ix + 1, iy + 1) - at(ix, iy + 1)) * u;
    top + (bottom - top) * v
}

/// The cliff-elevation bands the crossing rule cuts: alternating tints per band above
/// `elevation_0`, from the smoothed elevation the rule saw.
pub fn paint_elevation_bands(img: &mut RgbaImage, region: &MapRegion, p: &CliffPlacement) {
    let (e0, interval) = (p.settings.elevation_0, p.settings.effective_interval());
    if interval.is_nan() || interval <= 0.0 {
        return;
    }
    for py in 0..img.height {
        for px in 0..img.width {
            let (tx, ty) = region.tile_of(px, py);
            let e = lattice_at(p, &p.elevation, tx, ty);
            if e < 0.0 || e < e0 {
                continue;
            }
            let band = ((e - e0) / interval).floor() as i64;
            img.blend(px, py, BAND_COLOURS[band.rem_euclid(2) as usize], BAND_ALPHA);
        }
    }
}

/// Cliffiness: transparent where an edge could not carry a cliff (≤ 0.5), strongest at 1.5 and
/// above (the continuous field's top; Nauvis's gate reads 10).
pub fn paint_cliffiness(img: &mut RgbaImage, region: &MapRegion, p: &CliffPlacement) {
    for py in 0..img.height {
        for px in 0..img.width {
            let (tx, ty) = region.tile_of(px, py);
            let c = lattice_at(p, &p.cliffiness, tx, ty);
            let a = ((c - 0.5) / 1.0).clamp(0.0, 1.0) * CLIFFINESS_ALPHA;
            if a > 0.0 {
                img.blend(px, py, CLIFFINESS_COLOUR, a);
            }
        }
    }
}

/// Lines on every 32-tile chunk boundary.
pub fn paint_chunk_grid(img: &mut RgbaImage, region: &MapRegion) {
    let s = region.tiles_per_px.max(1) as i64;
    for py in 0..img.height {
        for px in 0..img.width {
            let (tx, ty) = region.tile_of(px, py);
            if tx.rem_euclid(CHUNK_TILES) < s || ty.rem_euclid(CHUNK_TILES) < s {
                img.blend(px, py, CHUNK_GRID_COLOUR, CHUNK_GRID_ALPHA);
            }
        }
    }
}

/// How the cliff layer colours a cliff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CliffColouring {
    /// All cliffs in [`CLIFF_MAP_COLOUR`].
    Reference,
    /// One hue per orientation (see [`orientation_colour`]).
    ByOrientation,
}

/// A distinct colour per orientation: hue by orientation id, two-crossing ones bright, terminal
/// ones darker.
pub fn orientation_colour(o: Orientation) -> [u8; 3] {
    let id = o as u8 as f32;
    let hue = (id * 0.618_034).fract() * 6.0;
    let v = if (o as u8) < 12 { 1.0 } else { 0.6 };
    let c = v;
    let x = c * (1.0 - (hue % 2.0 - 1.0).abs());
    let rgb = match hue as u32 {
        0 => [c, x, 0.0],
        1 => [x, c, 0.0],
        2 => [0.0, c, x],
        3 => [0.0, x, c],
        4 => [x, 0.0, c],
        _ => [c, 0.0, x],
    };
    to_u8(rgb.map(|k| k * 255.0))
}

/// Cliffs: each placed cliff fills its cell's 4 × 4 tile footprint.
pub fn paint_cliffs(img: &mut RgbaImage, region: &MapRegion, p: &CliffPlacement, colouring: CliffColouring) {
    let s = region.tiles_per_px.max(1) as i64;
    let (w, h) = (img.width as i64, img.height as i64);
    for c in &p.cliffs {
        let colour = match colouring {
            CliffColouring::Reference => CLIFF_MAP_COLOUR,
            CliffColouring::ByOrientation => orientation_colour(c.orientation),
        };
        let (tx0, ty0) = (c.cell_x * CELL_TILES, c.cell_y * CELL_TILES);
        let px0 = (tx0 - region.x).div_euclid(s).max(0);
        let px1 = (tx0 + CELL_TILES - 1 - region.x).div_euclid(s).min(w - 1);
        let py0 = (ty0 - region.y).div_euclid(s).max(0);
        let py1 = (ty0 + CELL_TILES - 1 - region.y).div_euclid(s).min(h - 1);
        for py in py0..=py1 {
            for px in px0..=px1 {
                img.put(px as u32, py as u32, colour);
            }
        }
    }
}

/// River lines: main rivers in bright blue, tributaries lighter; each as wide as its channel
/// (at least one image pixel).
const RIVER_COLOURS: [[u8; 3]; 2] = [[30, 110, 255], [90, 170, 255]];

/// Rivers (`RIVR`): each course drawn as a line of discs along its points.
pub fn paint_rivers(img: &mut RgbaImage, region: &MapRegion, bp: &Blueprint) {
    let Some(net) = &bp.rivers else { return };
    let s = region.tiles_per_px.max(1) as f64;
    let mpp = bp.params.metres_per_pixel as f64;
    for r in &net.rivers {
        let colour = RIVER_COLOURS[(r.order.clamp(1, 2) - 1) as usize];
        for w in r.course.windows(2) {
            let (a, b) = (w[0], w[1]);
            let (ax, ay) = region.px_of(a.x as f64 + 0.5, a.y as f64 + 0.5);
            let (bx, by) = region.px_of(b.x as f64 + 0.5, b.y as f64 + 0.5);
            // Bounded whatever the file says (the reader keeps points on the map): a disc of at
            // most 64 image pixels, steps of half a pixel along at most the image's diagonal.
            let radius = (b.width_m as f64 / mpp / 2.0 / s).clamp(0.5, 64.0);
            let diagonal = (img.width as f64).hypot(img.height as f64);
            let steps = (((bx - ax).hypot(by - ay)).min(diagonal) * 2.0).ceil().max(1.0) as usize;
            for k in 0..=steps {
                let t = k as f64 / steps as f64;
                disc(img, ax + (bx - ax) * t, ay + (by - ay) * t, radius, colour);
            }
        }
    }
}

/// Road lines by tier: highways dark grey and wider, roads light; bridges in the bridge colour.
const ROAD_COLOURS: [[u8; 3]; 2] = [[60, 60, 64], [225, 205, 160]];
const BRIDGE_COLOUR: [u8; 3] = [200, 60, 40];

/// Roads (`ROAD`): each polyline as a line of discs, wider for highways; bridge spans marked.
pub fn paint_roads(img: &mut RgbaImage, region: &MapRegion, bp: &Blueprint) {
    let Some(net) = &bp.roads else { return };
    let s = region.tiles_per_px.max(1) as f64;
    let mpp = bp.params.metres_per_pixel as f64;
    let diagonal = (img.width as f64).hypot(img.height as f64);
    for r in &net.roads {
        let tier = r.tier as usize;
        let width_m = crate::world::roads::road_width_m(r.tier) as f64;
        let radius = (width_m / mpp / 2.0 / s).clamp(0.6, 64.0);
        for (i, w) in r.points.windows(2).enumerate() {
            let bridge = r.bridges.iter().any(|b| (b[0] as usize) <= i && i < b[1] as usize);
            let colour = if bridge { BRIDGE_COLOUR } else { ROAD_COLOURS[tier] };
            let (ax, ay) = region.px_of(w[0][0] as f64, w[0][1] as f64);
            let (bx, by) = region.px_of(w[1][0] as f64, w[1][1] as f64);
            let steps = (((bx - ax).hypot(by - ay)).min(diagonal) * 2.0).ceil().max(1.0) as usize;
            for k in 0..=steps {
                let t = k as f64 / steps as f64;
                disc(img, ax + (bx - ax) * t, ay + (by - ay) * t, radius, colour);
            }
        }
    }
}

fn disc(img: &mut RgbaImage, cx: f64, cy: f64, radius: f64, colour: [u8; 3]) {
    let ri = radius.ceil() as i64;
    for dy in -ri..=ri {
        for dx in -ri..=ri {
            let (x, y) = (cx.floor() as i64 + dx, cy.floor() as i64 + dy);
            if x < 0 || y < 0 || x >= img.width as i64 || y >= img.height as i64 {
                continue;
            }
            let (ex, ey) = (x as f64 + 0.5 - cx, y as f64 + 0.5 - cy);
            if ex * ex + ey * ey <= (radius + 0.5) * (radius + 0.5) {
                img.put(x as u32, y as u32, colour);
            }
        }
    }
}

/// Towns: a square per town, sized and coloured by tier, with a dark outline.
/// The outline of a town's square on the map: the roads' asphalt grey.
pub const TOWN_SQUARE_COLOUR: [u8; 3] = [70, 70, 76];

pub fn paint_towns(img: &mut RgbaImage, region: &MapRegion, bp: &Blueprint) {
    let Some(towns) = &bp.towns else { return };
    for t in towns {
        let (cx, cy) = region.px_of(t.x as f64, t.y as f64);
        let (cx, cy) = (cx.floor() as i64, cy.floor() as i64);
        let tier = match t.tier {
            TownTier::Village => 0,
            TownTier::Town => 1,
            TownTier::City => 2,
            TownTier::Capitol => 3,
        };
        // The town's carved square (SPEC §3 "Roads"), outlined at its true size where that is
        // larger than the marker.
        let half_px = crate::world::roads::town_square_half_m(t.tier) / bp.params.metres_per_pixel;
        let (ex, _) = region.px_of((t.x + half_px) as f64, t.y as f64);
        let sq = (ex.floor() as i64 - cx).max(0);
        if sq > TOWN_HALF_PX[tier] + 1 {
            for d in -sq..=sq {
                for (x, y) in [(cx + d, cy - sq), (cx + d, cy + sq), (cx - sq, cy + d), (cx + sq, cy + d)] {
                    if x >= 0 && y >= 0 && x < img.width as i64 && y < img.height as i64 {
                        img.put(x as u32, y as u32, TOWN_SQUARE_COLOUR);
                    }
                }
            }
        }
        let r = TOWN_HALF_PX[tier];
        for dy in -r - 1..=r + 1 {
            for dx in -r - 1..=r + 1 {
                let (x, y) = (cx + dx, cy + dy);
                if x < 0 || y < 0 || x >= img.width as i64 || y >= img.height as i64 {
                    continue;
                }
                let edge = dx.abs() > r || dy.abs() > r;
                img.put(x as u32, y as u32, if edge { [20, 20, 20] } else { TOWN_COLOURS[tier] });
            }
        }
    }
}

/// The camera on the map: position in tiles (map pixels, x east, y south) and a view cone.
/// `yaw_rad` follows Bevy's convention for a Y-up world where map Y is world Z: the camera looks
/// along `(−sin yaw, −cos yaw)` in map (x, y), so yaw 0 looks north.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CameraMarker {
    pub x_tiles: f32,
    pub y_tiles: f32,
    pub yaw_rad: f32,
    /// Full horizontal field of view.
    pub fov_rad: f32,
    /// Length of the drawn cone, tiles.
    pub range_tiles: f32,
}

/// The camera: a translucent view cone and a dot at its apex.
pub fn paint_camera(img: &mut RgbaImage, region: &MapRegion, cam: &CameraMarker) {
    let s = region.tiles_per_px.max(1) as f32;
    let (cx, cy) = region.px_of(cam.x_tiles as f64, cam.y_tiles as f64);
    let (cx, cy) = (cx as f32, cy as f32);
    let (fx, fy) = (-cam.yaw_rad.sin(), -cam.yaw_rad.cos());
    let range_px = cam.range_tiles / s;
    let half_cos = (cam.fov_rad * 0.5).cos();
    let (w, h) = (img.width as i64, img.height as i64);
    let x0 = ((cx - range_px).floor() as i64).max(0);
    let x1 = ((cx + range_px).ceil() as i64).min(w - 1);
    let y0 = ((cy - range_px).floor() as i64).max(0);
    let y1 = ((cy + range_px).ceil() as i64).min(h - 1);
    for py in y0..=y1 {
        for px in x0..=x1 {
            let (dx, dy) = (px as f32 + 0.5 - cx, py as f32 + 0.5 - cy);
            let d = (dx * dx + dy * dy).sqrt();
            if d > 0.0 && d <= range_px && (dx * fx + dy * fy) / d >= half_cos {
                img.blend(px as u32, py as u32, VIEW_CONE_COLOUR, VIEW_CONE_ALPHA);
            }
        }
    }
    let r = 3i64;
    let (icx, icy) = (cx.floor() as i64, cy.floor() as i64);
    for dy in -r..=r {
        for dx in -r..=r {
            let (x, y) = (icx + dx, icy + dy);
            if dx * dx + dy * dy <= r * r && x >= 0 && y >= 0 && x < w && y < h {
                img.put(x as u32, y as u32, CAMERA_COLOUR);
            }
        }
    }
}
