//! The probe (SPEC §7): which column of the world a pixel of a frame shows. A ray from the camera
//! through the pixel is marched over the rendered surface (terrain with the roads carved in, and
//! the water's surface where a column is wet) until it goes below it; the hit is refined by
//! bisection to a centimetre. The camera is the shot's: a 55° vertical field of view, looking
//! from `from` at `at`, with east up in the frame when it looks (nearly) straight down.

use super::{ChunkCoord, ChunkData, WorldSource, build_chunk};

/// The vertical field of view of the shot and flight cameras (radians).
pub const CAMERA_FOV_Y_RAD: f32 = 55.0 * std::f32::consts::PI / 180.0;

/// Where a probe ray met the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeHit {
    /// The point on the surface, world metres.
    pub world: [f32; 3],
    /// The blueprint pixel (column) under it.
    pub pixel: [i64; 2],
}

fn norm(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    [v[0] / l, v[1] / l, v[2] / l]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// The unit direction of the ray through pixel `(px, py)` (its centre is `+ 0.5`) of a `w`×`h`
/// frame seen from `from` looking at `at`.
pub fn pixel_ray(from: [f32; 3], at: [f32; 3], (w, h): (u32, u32), (px, py): (f32, f32)) -> [f32; 3] {
    let f = norm([at[0] - from[0], at[1] - from[1], at[2] - from[2]]);
    // As `app::camera::look`: east (+X) is up in the frame when looking nearly straight down.
    let up = if -f[1] > 0.99 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let r = norm(cross(f, up));
    let u = cross(r, f);
    let tan = (CAMERA_FOV_Y_RAD * 0.5).tan();
    let sx = (2.0 * px / w as f32 - 1.0) * tan * w as f32 / h as f32;
    let sy = (1.0 - 2.0 * py / h as f32) * tan;
    norm([f[0] + sx * r[0] + sy * u[0], f[1] + sx * r[1] + sy * u[1], f[2] + sx * r[2] + sy * u[2]])
}

/// The height of the drawn surface over a map column: the water's surface where it is wet, else
/// the carved terrain. `None` outside the map.
fn drawn_top_m(src: &WorldSource, x: f32, z: f32) -> Option<f32> {
    let col = src.layout.column_m;
    let n = src.layout.map_size as i64;
    let (px, py) = ((x / col).floor() as i64, (z / col).floor() as i64);
    if px < 0 || py < 0 || px >= n || py >= n {
        return None;
    }
    let ground = src.surface_y_m(px, py);
    let water = src.water_at(px as u32, py as u32, src.layout.top_m()).map(|w| w.water_surface_y_m);
    Some(water.map_or(ground, |w| w.max(ground)))
}

/// March the ray from `from` along `dir` until it goes below the drawn surface of a map column.
/// `None` when it leaves the map or rises above everything first (the sky, or the open sea
/// beyond the map, which has no column).
pub fn cast(src: &WorldSource, from: [f32; 3], dir: [f32; 3]) -> Option<ProbeHit> {
    let col = src.layout.column_m;
    let extent = src.layout.map_size as f32 * col;
    let ceiling = src.layout.top_m();
    let step = 0.25 * col;
    let at = |t: f32| [from[0] + dir[0] * t, from[1] + dir[1] * t, from[2] + dir[2] * t];
    let below = |p: [f32; 3]| drawn_top_m(src, p[0], p[2]).map(|top| p[1] <= top);
    let max_t = 4.0 * (extent + from[1].abs()) + 1000.0;
    let mut t = 0.0;
    let mut entered = false;
    while t < max_t {
        let p = at(t);
        match below(p) {
            Some(true) => {
                // Bisect between the last point above and this one.
                let (mut lo, mut hi) = ((t - step).max(0.0), t);
                for _ in 0..24 {
                    let mid = 0.5 * (lo + hi);
                    if below(at(mid)) == Some(true) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                let w = at(hi);
                return Some(ProbeHit { world: w, pixel: [(w[0] / col).floor() as i64, (w[2] / col).floor() as i64] });
            }
            Some(false) => entered = true,
            None if entered || (p[1] > ceiling && dir[1] >= 0.0) => return None,
            None => {}
        }
        if p[1] > ceiling && dir[1] >= 0.0 {
            return None;
        }
        t += step;
    }
    None
}

/// One column of a chunk as `isla chunk --json` prints it.
pub fn column_json(c: &ChunkData, cx: usize, cz: usize) -> serde_json::Value {
    let i = ChunkData::column_index(cx, cz);
    let w = c.water.as_ref().and_then(|w| w.columns[i]);
    serde_json::json!({
        "x": c.origin_px.0 + cx as i64, "y": c.origin_px.1 + cz as i64,
        "surface_y_m": c.surface_y_m[i],
        "wet": w.is_some(),
        "level_raw": w.map(|w| w.level_raw),
        "water_surface_y_m": w.map(|w| w.water_surface_y_m),
        "true_depth_m": w.map(|w| w.true_depth_m),
        "seam": w.is_some_and(|w| w.seam),
        "road": crate::blueprint::RoadTier::from_ordinal(c.road[i].wrapping_sub(1)).map(|t| t.name()),
    })
}

/// The level of detail drawn over `hit`'s chunk from `eye` (0 without a tree: full detail).
pub fn level_at(tree: Option<&super::lod::LodTree>, hit: &ProbeHit, eye: [f32; 3]) -> u8 {
    let Some(tree) = tree else { return 0 };
    let coord = ChunkCoord::containing_pixel(hit.pixel[0] as u32, hit.pixel[1] as u32);
    tree.select(eye)
        .into_iter()
        .find(|id| {
            let [x0, z0, x1, z1] = id.chunk_rect();
            (x0..x1).contains(&coord.x) && (z0..z1).contains(&coord.z)
        })
        .map_or(0, |id| id.level)
}

/// What a probe found, as `probe: {json}` prints it (SPEC §9 `shot --probe`): the column's
/// `isla chunk --json` keys plus `hit`, `world`, `pixel`, `chunk`, `level` (the level of detail
/// drawn there, [`level_at`]), `biome`, `water_body`, `water_type`, `water_level_m` (the body's
/// level), `river` (`{id, order}` where the water is a river) and `nearest_town`. A miss is
/// `{"hit": false}`.
pub fn probe_json(src: &WorldSource, hit: Option<ProbeHit>, level: u8) -> serde_json::Value {
    let Some(hit) = hit else { return serde_json::json!({"hit": false}) };
    let [x, y] = hit.pixel;
    let coord = ChunkCoord::containing_pixel(x as u32, y as u32);
    let chunk = build_chunk(src, coord);
    let mut v = column_json(&chunk, (x - chunk.origin_px.0) as usize, (y - chunk.origin_px.1) as usize);
    let bp = &src.blueprint;
    let body = bp.water.as_ref().map(|w| w.body_ids[(x * bp.map_size as i64 + y) as usize]).filter(|&id| id != 0);
    // The river whose channel this is: its index in `RIVR` and its order (1 main, 2 tributary).
    let river = body.and_then(|id| {
        let rivers = &bp.rivers.as_ref()?.rivers;
        let i = rivers.iter().position(|r| r.body_id == id)?;
        Some(serde_json::json!({"id": i, "order": rivers[i].order}))
    });
    let town = bp
        .towns
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .map(|(i, t)| (i, (t.x - x as f32 - 0.5).hypot(t.y - y as f32 - 0.5) * bp.params.metres_per_pixel))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let extra = serde_json::json!({
        "hit": true,
        "world": hit.world,
        "pixel": hit.pixel,
        "chunk": [coord.x, coord.z],
        "level": level,
        "biome": format!("{:?}", bp.biome(x as u32, y as u32)).to_lowercase(),
        "water_body": body,
        "water_type": body.and_then(|id| bp.water.as_ref()?.body(id)).map(|b| format!("{:?}", b.kind).to_lowercase()),
        "water_level_m": body.and_then(|id| bp.water.as_ref()?.body(id)).map(|b| b.surface_level_raw * bp.params.metres_per_raw),
        "river": river,
        "nearest_town": town.map(|(i, d)| serde_json::json!({"index": i, "distance_m": d})),
    });
    if let (Some(o), serde_json::Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    v
}

/// A ruler between two probed points: the straight distance, the horizontal distance,
/// the height difference (`b` above `a`) and the mean slope (rise over horizontal run, in per
/// cent; 0 for two points one above the other).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Ruler {
    pub distance_m: f32,
    pub horizontal_m: f32,
    pub rise_m: f32,
    pub slope_percent: f32,
}

impl Ruler {
    pub fn between(a: [f32; 3], b: [f32; 3]) -> Self {
        let (dx, dy, dz) = (b[0] - a[0], b[1] - a[1], b[2] - a[2]);
        let horizontal_m = dx.hypot(dz);
        Self {
            distance_m: (dx * dx + dy * dy + dz * dz).sqrt(),
            horizontal_m,
            rise_m: dy,
            slope_percent: if horizontal_m > 0.0 { 100.0 * dy / horizontal_m } else { 0.0 },
        }
    }
}
