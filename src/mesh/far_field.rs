//! The far field's per-pixel detail (SPEC §3 "Far-field textures", §5): the mesh of a coarse
//! tile carries the shape, two small textures carry what lies between its vertices.
//!
//! - **Grid.** A texture of level k samples the world every [`texel_spacing`]`(k)` columns
//!   (one texel per column up to level 2, then [`TILE_TEXELS`] across a tile), *corner-sampled*:
//!   texel `t` sits on column `origin + t · spacing`, and a tile's texture runs from its first
//!   column line to its last one inclusive, so two neighbouring tiles hold the same texels on
//!   their shared border and bilinear filtering is seamless across them.
//! - **Colour** (sRGB): the final albedo of the ground — the biome's cover with SPEC §4's sand,
//!   rock and snow rules applied at the column's own height and slope (the same formulas and noise
//!   as the terrain shader's), the roads' asphalt and gravel, and river water where the level's
//!   own water sheet does not show it — averaged over the texel's footprint (2 × 2 columns once
//!   a texel spans more than one), so a road or river thinner than a texel fades, never breaks.
//! - **Normal**: central differences of the rendered (carved) surface at the texel spacing.
//! - Every texel is a pure function of its column, the spacing and the level, so a tile's
//!   **parent texture** (its parent level's texels over the tile's area, which the morph blends
//!   towards) holds exactly the parent tile's own texels there.

use super::marching_cubes::{Shading, material_id_colour};
use super::palette::{ROCK_BLEND_HALF_WIDTH, ground_cover_colour, material_colour};
use crate::blueprint::RoadTier;
use crate::world::{Material, ROCK_SLOPE, WorldSource, road_material_at};

/// Texels across a tile's side (plus one: the grid is corner-sampled), at most.
pub const TILE_TEXELS: i64 = 128;

/// Sand covers the ground from the waterline up to this height above it (before noise).
pub const SAND_BAND_M: f32 = 2.5;

/// Columns between two texels of a level-`level` texture: 1 up to level 2, then the tile's
/// `32 · 2^level` columns over [`TILE_TEXELS`].
pub fn texel_spacing(level: u8) -> i64 {
    let cols = (crate::world::CHUNK_COLUMNS as i64) << level;
    (cols / TILE_TEXELS).max(1)
}

/// One texture over a rectangle of columns: texel `(t, u)` (row `u` along Z, column `t` along
/// X) on column `(origin[0] + t · spacing, origin[1] + u · spacing)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TileTexture {
    pub origin: [i64; 2],
    pub spacing: i64,
    /// Texels per side.
    pub side: u32,
    /// Row-major (`u · side + t`): sRGB colour, alpha 255.
    pub colour: Vec<[u8; 4]>,
    /// Row-major: the unit normal as `n · 0.5 + 0.5`, alpha 255.
    pub normal: Vec<[u8; 4]>,
}

impl TileTexture {
    pub fn is_empty(&self) -> bool {
        self.side == 0
    }
    /// Bilinear sample at column coordinates `(x, z)` (clamped to the grid), as the GPU filters
    /// it: linear colour (alpha 1) and the normal before normalisation.
    pub fn sample(&self, x: f64, z: f64) -> ([f32; 4], [f32; 3]) {
        let n = self.side as i64;
        let ft = ((x - self.origin[0] as f64) / self.spacing as f64).clamp(0.0, (n - 1) as f64);
        let fu = ((z - self.origin[1] as f64) / self.spacing as f64).clamp(0.0, (n - 1) as f64);
        let (t0, u0) = ((ft.floor() as i64).min(n - 2).max(0), (fu.floor() as i64).min(n - 2).max(0));
        let (a, b) = ((ft - t0 as f64) as f32, (fu - u0 as f64) as f32);
        let mut c = [0f32; 4];
        let mut nrm = [0f32; 3];
        for (dt, du, w) in [(0, 0, (1.0 - a) * (1.0 - b)), (1, 0, a * (1.0 - b)), (0, 1, (1.0 - a) * b), (1, 1, a * b)]
        {
            let k = ((u0 + du).min(n - 1) * n + (t0 + dt).min(n - 1)) as usize;
            for ch in 0..3 {
                c[ch] += w * super::palette::srgb_to_linear(self.colour[k][ch] as f32 / 255.0);
                nrm[ch] += w * (self.normal[k][ch] as f32 / 255.0 * 2.0 - 1.0);
            }
        }
        c[3] = 1.0;
        (c, nrm)
    }
}

/// What the bake needs of one level around the texture: the level's drawn surface height at
/// column coordinates (for the river rule).
pub struct LevelView<'a> {
    pub surface: &'a dyn Fn(f64, f64) -> f32,
}

/// The per-texel colour rules' constants (the terrain shader's uniforms).
struct Rules {
    sea_m: f32,
    snow_line_m: f32,
    sand: [f32; 3],
    rock: [f32; 3],
    snow: [f32; 3],
    column_m: f32,
}

fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn mix3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// The terrain shader's `hash2`, bit for bit.
fn hash2(x: i32, y: i32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x8da6_b343) ^ (y as u32).wrapping_mul(0xd816_3841);
    h = (h ^ (h >> 13)).wrapping_mul(0x5bd1_e995);
    h ^= h >> 15;
    (h & 0xffff) as f32 / 65535.0
}

fn value_noise(x: f32, z: f32) -> f32 {
    let (ix, iz) = (x.floor(), z.floor());
    let (fx, fz) = (x - ix, z - iz);
    let (ux, uz) = (fx * fx * (3.0 - 2.0 * fx), fz * fz * (3.0 - 2.0 * fz));
    let (i, j) = (ix as i32, iz as i32);
    let (a, b) = (hash2(i, j), hash2(i.wrapping_add(1), j));
    let (c, d) = (hash2(i, j.wrapping_add(1)), hash2(i.wrapping_add(1), j.wrapping_add(1)));
    let ab = a + (b - a) * ux;
    let cd = c + (d - c) * ux;
    ab + (cd - ab) * uz
}

/// The terrain shader's `ground_noise` (−0.5..0.5) at world `(x, z)` metres.
pub fn ground_noise(x: f32, z: f32) -> f32 {
    0.35 * value_noise(x / 7.0, z / 7.0) + 0.65 * value_noise(x / 29.0 + 17.3, z / 29.0 + 5.1) - 0.5
}

impl Rules {
    fn new(src: &WorldSource) -> Self {
        let rgb = |m: Material| {
            let c = material_colour(m as u8);
            [c[0], c[1], c[2]]
        };
        Self {
            sea_m: src.sea_level_m(),
            snow_line_m: src.snow_line_m().unwrap_or(1.0e9),
            sand: rgb(Material::Sand),
            rock: rgb(Material::Rock),
            snow: rgb(Material::Snow),
            column_m: src.layout.column_m,
        }
    }

    /// SPEC §4 "Materials" at a point: the terrain shader's `surface_colour`.
    fn surface_colour(&self, cover: [f32; 3], p: [f32; 3], slope: f32) -> [f32; 3] {
        let noise = ground_noise(p[0], p[2]);
        let above = p[1] - self.sea_m;
        let band = SAND_BAND_M * (1.0 + 0.8 * noise);
        let sand = (1.0 - smoothstep(band - 0.6, band + 0.6, above)) * smoothstep(-1.2, -0.4, above);
        let mut c = mix3(cover, self.sand, sand);
        let edge = ROCK_SLOPE + 0.35 * noise;
        let rock = smoothstep(edge - ROCK_BLEND_HALF_WIDTH, edge + ROCK_BLEND_HALF_WIDTH, slope)
            * smoothstep(-2.0, -0.5, above);
        let r = 0.9 + 0.25 * noise;
        c = mix3(c, [self.rock[0] * r, self.rock[1] * r, self.rock[2] * r], rock);
        let line = self.snow_line_m + 25.0 * noise;
        let snow = smoothstep(line - 8.0, line + 8.0, p[1]) * (1.0 - smoothstep(0.75, 1.15, slope + 0.3 * noise));
        mix3(c, self.snow, snow)
    }
}

/// Linear albedo of river water seen from afar over its bed: the shallow end of the water ramp
/// laid over the bed at its opacity (the sheet the coarse level cannot draw).
fn river_colour(bed: [f32; 3]) -> [f32; 3] {
    let w = super::water::water_colour(0.0);
    mix3(bed, [w[0], w[1], w[2]], w[3])
}

/// The albedo (linear RGB) of one column's natural ground — the cover with the sand, rock and
/// snow rules at the column's rendered height `y` and slope `[dY/dX, dY/dZ]` — or its debug
/// colour (which then is final: no road or river is laid over it).
fn ground_colour(
    src: &WorldSource,
    rules: &Rules,
    shading: Shading,
    x: i64,
    z: i64,
    y: f32,
    [gx, gz]: [f32; 2],
) -> [f32; 3] {
    let n = src.layout.map_size as i64;
    let biome = src.blueprint.biome(x.clamp(0, n - 1) as u32, z.clamp(0, n - 1) as u32);
    let slope = (gx * gx + gz * gz).sqrt();
    let rgb = |c: [f32; 4]| [c[0], c[1], c[2]];
    match shading {
        Shading::Palette => {
            let p = [x as f32 * rules.column_m, y, z as f32 * rules.column_m];
            rules.surface_colour(rgb(ground_cover_colour(biome as u8)), p, slope)
        }
        Shading::Normals => {
            let inv = 1.0 / (gx * gx + 1.0 + gz * gz).sqrt();
            [(-gx * inv) * 0.5 + 0.5, inv * 0.5 + 0.5, (-gz * inv) * 0.5 + 0.5]
        }
        Shading::Materials => {
            let road_code = src.road_at(x, z).map_or(0, |t| t as u8 + 1);
            let m = road_material_at(road_code, biome, 0.0, slope);
            rgb(material_id_colour(if m == Material::Air { Material::Rock as u8 } else { m as u8 }))
        }
    }
}

/// A column's colour as a level shows it over the natural `ground`: the roads' paint, covering
/// the sample by the share of its `footprint_m` the paint field says lies on the paint, and river
/// water where the level's surface (`surface`, asked once per texel) hides the water (its own
/// sheet, at the water's level, then cannot show it: a river narrower than the level's cells).
fn overlay(
    src: &WorldSource,
    surface: &mut impl FnMut() -> f32,
    x: i64,
    z: i64,
    ground: [f32; 3],
    footprint_m: f32,
) -> [f32; 3] {
    let rgb = |m: Material| {
        let c = material_colour(m as u8);
        [c[0], c[1], c[2]]
    };
    let c = match src.paint_at(x, z) {
        Some((d, tier)) => {
            let paint = rgb(if tier == RoadTier::Highway { Material::Asphalt } else { Material::Gravel });
            // A ramp one footprint wide across the paint edge, and no more than the paint's
            // width can cover (a road thinner than the footprint fades; a square, whose field
            // runs deeper than a road's half-width, is as wide as the field is deep).
            let half = src.roads.paint_half_m(tier).max(-d);
            let cover = (0.5 - d / footprint_m).clamp(0.0, 1.0).min(2.0 * half / footprint_m);
            mix3(ground, paint, cover)
        }
        None => ground,
    };
    let n = src.layout.map_size as i64;
    if !src.has_water_section() || x < 0 || z < 0 || x >= n || z >= n {
        return c;
    }
    let Some(w) = src.water_at(x as u32, z as u32, src.layout.top_m()) else { return c };
    if w.water_surface_y_m > surface() { c } else { river_colour(c) }
}

/// Linear → 8-bit sRGB, through a table of 4096 steps (exact to the byte but for rounding
/// at the darkest end).
fn linear_to_srgb_u8(c: f32) -> u8 {
    static TABLE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        (0..=4096)
            .map(|i| {
                let c = i as f32 / 4096.0;
                let s = if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
                (s * 255.0 + 0.5) as u8
            })
            .collect()
    });
    t[(c.clamp(0.0, 1.0) * 4096.0 + 0.5) as usize]
}

/// Bake a tile's textures: `side × side` texels from `origin` every `spacing` columns as `own`
/// shows the ground, and, with `parent = Some((level, ratio))`, the parent level's texture over
/// the same area (every `ratio · spacing` columns, `ratio` 1 or 2). The natural ground is
/// evaluated once per column, at the texel; roads and rivers over each texel's footprint
/// (2 × 2 columns of it once a texel spans more than one).
pub fn bake(
    src: &WorldSource,
    own: &LevelView,
    parent: Option<(&LevelView, i64)>,
    origin: [i64; 2],
    spacing: i64,
    side: u32,
    shading: Shading,
) -> (TileTexture, Option<TileTexture>) {
    let ring = SurfaceRing::sample(src, origin, spacing.max(1), side as i64);
    let ground = ground_texels(src, &ring, shading);
    let tile = Tile { src, ring: &ring, ground: &ground, shading };
    (tile.texture(own, 1), parent.map(|(level, r)| tile.texture(level, r)))
}

/// The rendered surface at every texel's column of a tile and two rings around it: the heights
/// the normals and slopes are differenced from, at the tile's spacing and twice it. Sampled X
/// outer and Z inner, the blueprint's and the carve's order in memory: on a big map a level's
/// texels lie a whole row of the map apart along X.
struct SurfaceRing {
    origin: [i64; 2],
    spacing: i64,
    /// Texels per side of the tile (the ring adds 2 on each side).
    side: i64,
    column_m: f32,
    last_column: i64,
    heights: Vec<f32>,
}

impl SurfaceRing {
    const RING: i64 = 2;

    fn sample(src: &WorldSource, origin: [i64; 2], spacing: i64, side: i64) -> Self {
        let hs = side + 2 * Self::RING;
        let mut heights = vec![0f32; (hs * hs) as usize];
        for t in -Self::RING..side + Self::RING {
            for u in -Self::RING..side + Self::RING {
                heights[((u + Self::RING) * hs + t + Self::RING) as usize] =
                    src.surface_y_m(origin[0] + t * spacing, origin[1] + u * spacing);
            }
        }
        let (column_m, last_column) = (src.layout.column_m, src.layout.map_size as i64 - 1);
        Self { origin, spacing, side, column_m, last_column, heights }
    }

    /// The surface at texel `(t, u)`, `-2 ≤ t, u < side + 2`.
    fn at(&self, t: i64, u: i64) -> f32 {
        let hs = self.side + 2 * Self::RING;
        self.heights[((u + Self::RING) * hs + t + Self::RING) as usize]
    }

    /// At one texel per column, a column's slope from these heights, as `WorldSource::gradient`
    /// computes it (one-sided on the map's edge).
    fn column_slope(&self, t: i64, u: i64) -> [f32; 2] {
        let (x, z) = (self.origin[0] + t, self.origin[1] + u);
        let (xa, xb) = (if x - 1 < 0 { t } else { t - 1 }, if x + 1 > self.last_column { t } else { t + 1 });
        let (za, zb) = (if z - 1 < 0 { u } else { u - 1 }, if z + 1 > self.last_column { u } else { u + 1 });
        let diff = |a: f32, b: f32, span: i64| if span == 0 { 0.0 } else { (b - a) / (span as f32 * self.column_m) };
        [diff(self.at(xa, u), self.at(xb, u), xb - xa), diff(self.at(t, za), self.at(t, zb), zb - za)]
    }

    /// The central-difference gradient at texel `(t, u)` over `r` texels each way.
    fn gradient(&self, t: i64, u: i64, r: i64) -> [f32; 2] {
        let d = (2 * r * self.spacing) as f32 * self.column_m;
        [(self.at(t + r, u) - self.at(t - r, u)) / d, (self.at(t, u + r) - self.at(t, u - r)) / d]
    }
}

/// The natural ground's colour (linear RGB) at every texel of the tile, `u` outer.
fn ground_texels(src: &WorldSource, ring: &SurfaceRing, shading: Shading) -> Vec<[f32; 3]> {
    let rules = Rules::new(src);
    let (side, s) = (ring.side, ring.spacing);
    let mut ground = vec![[0f32; 3]; (side * side) as usize];
    for t in 0..side {
        for u in 0..side {
            let (x, z) = (ring.origin[0] + t * s, ring.origin[1] + u * s);
            let g = if s == 1 { ring.column_slope(t, u) } else { src.gradient(x, z) };
            ground[(u * side + t) as usize] = ground_colour(src, &rules, shading, x, z, ring.at(t, u), g);
        }
    }
    ground
}

/// What a tile's textures are made of: its surface ring and its ground colours.
struct Tile<'a> {
    src: &'a WorldSource,
    ring: &'a SurfaceRing,
    ground: &'a [[f32; 3]],
    shading: Shading,
}

impl Tile<'_> {
    /// The texture `level` shows over the tile, every `r` texels (`r` 1 for the tile's own
    /// level, the ratio for its parent's): each texel's colour with the roads and rivers over its
    /// footprint, and its normal.
    fn texture(&self, level: &LevelView, r: i64) -> TileTexture {
        let (side, s, origin) = (self.ring.side, self.ring.spacing, self.ring.origin);
        let sp = s * r;
        let n = (side - 1) / r + 1;
        let mut out = TileTexture {
            origin,
            spacing: sp,
            side: n as u32,
            colour: vec![[0; 4]; (n * n) as usize],
            normal: vec![[0; 4]; (n * n) as usize],
        };
        for i in 0..n {
            for j in 0..n {
                let (t, u) = (i * r, j * r);
                let (x, z) = (origin[0] + t * s, origin[1] + u * s);
                let c = self.texel_colour(level, sp, x, z, self.ground[(u * side + t) as usize]);
                let k = (j * n + i) as usize;
                out.colour[k] = [linear_to_srgb_u8(c[0]), linear_to_srgb_u8(c[1]), linear_to_srgb_u8(c[2]), 255];
                let [gx, gz] = self.ring.gradient(t, u, r);
                let inv = 1.0 / (gx * gx + 1.0 + gz * gz).sqrt();
                let enc = |v: f32| ((v * 0.5 + 0.5) * 255.0 + 0.5).clamp(0.0, 255.0) as u8;
                out.normal[k] = [enc(-gx * inv), enc(inv), enc(-gz * inv), 255];
            }
        }
        out
    }

    /// A texel's colour at column `(x, z)`, `sp` columns a side: the ground `base`, and in the
    /// palette shading the roads and rivers over its footprint (2 × 2 samples of it once a texel
    /// spans more than one column), each sample standing for its share of the footprint.
    fn texel_colour(&self, level: &LevelView, sp: i64, x: i64, z: i64, base: [f32; 3]) -> [f32; 3] {
        if self.shading != Shading::Palette {
            return base;
        }
        let offsets: &[i64] = if sp == 1 { &[0] } else { &[-(sp / 2) + sp / 4, sp / 4] };
        let weight = 1.0 / (offsets.len() * offsets.len()) as f32;
        let footprint_m = self.src.layout.column_m * (sp as f32 / offsets.len() as f32).max(1.0);
        // The level's surface at the texel, for every wet column of its footprint.
        let mut at_texel = None;
        let mut surface = || *at_texel.get_or_insert_with(|| (level.surface)(x as f64, z as f64));
        let mut c = [0f32; 3];
        for &ox in offsets {
            for &oz in offsets {
                let v = overlay(self.src, &mut surface, x + ox, z + oz, base, footprint_m);
                for k in 0..3 {
                    c[k] += v[k] * weight;
                }
            }
        }
        c
    }
}
