//! The probe (SPEC §7): the column a pixel of a frame shows, found by a ray over the drawn surface.

use isla::world::WorldSource;
use isla::world::probe::{cast, pixel_ray};
use std::sync::{Arc, OnceLock};

fn default_world() -> &'static WorldSource {
    static W: OnceLock<WorldSource> = OnceLock::new();
    W.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("blueprints/default.dat");
        WorldSource::new(Arc::new(isla::blueprint::read_file(&path).unwrap()))
    })
}

/// The drawn top of a column: its water's surface where wet, else the carved ground.
fn top_m(src: &WorldSource, px: i64, py: i64) -> f32 {
    let ground = src.surface_y_m(px, py);
    src.water_at(px as u32, py as u32, src.layout.top_m()).map_or(ground, |w| w.water_surface_y_m.max(ground))
}

/// Looking straight down, the frame's centre shows the column under the camera (within 2
/// pixels), and every probed pixel's hit lies on its ray, on the drawn top
/// of its column, with the air just before it above the surface.
#[test]
fn the_probe_finds_the_column_a_pixel_shows() {
    let src = default_world();
    let col = src.layout.column_m;
    let frame = (960, 540);
    let views = [([2048.0, 1500.0, 2049.0], [2048.0, 0.0, 2048.0]), ([1200.0, 400.0, 3300.0], [1500.0, 100.0, 2900.0])];
    let centre = cast(src, views[0].0, pixel_ray(views[0].0, views[0].1, frame, (480.5, 270.5))).expect("ground below");
    let under = [(2048.0f32 / col).floor() as i64, (2049.0f32 / col).floor() as i64];
    assert!(
        (centre.pixel[0] - under[0]).abs() <= 2 && (centre.pixel[1] - under[1]).abs() <= 2,
        "centre pixel shows {:?}, the camera is over {under:?}",
        centre.pixel
    );
    // Straight down, east (+X) is up in the frame and +Z to the right (the camera's `look`): a
    // pixel's offset from the centre is its angle's tangent times the height over the ground.
    let (from, at) = ([2048.0, 1500.0, 2048.0], [2048.0, 0.0, 2048.0]);
    let tan = (isla::world::probe::CAMERA_FOV_Y_RAD * 0.5).tan();
    for (px, py) in [(900.5f32, 270.5f32), (480.5, 20.5), (60.5, 500.5)] {
        let hit = cast(src, from, pixel_ray(from, at, frame, (px, py))).unwrap();
        let h = from[1] - hit.world[1];
        let want_z = from[2] + (2.0 * px / 960.0 - 1.0) * tan * (960.0 / 540.0) * h;
        let want_x = from[0] + (1.0 - 2.0 * py / 540.0) * tan * h;
        assert!(
            (hit.world[2] - want_z).abs() < 0.5 && (hit.world[0] - want_x).abs() < 0.5,
            "pixel ({px}, {py}) hit {:?}, want x {want_x}, z {want_z}",
            hit.world
        );
    }
    let mut probed = 0;
    for (from, at) in views {
        for (px, py) in [(480.5, 270.5), (100.5, 500.5), (900.5, 300.5), (480.5, 530.5), (20.5, 200.5)] {
            let d = pixel_ray(from, at, frame, (px, py));
            let Some(hit) = cast(src, from, d) else { continue };
            probed += 1;
            let w = hit.world;
            // On the ray.
            let t = ((w[0] - from[0]) * d[0] + (w[1] - from[1]) * d[1] + (w[2] - from[2]) * d[2]).max(0.0);
            let off = [from[0] + d[0] * t - w[0], from[1] + d[1] * t - w[1], from[2] + d[2] * t - w[2]];
            assert!(off.iter().map(|v| v * v).sum::<f32>().sqrt() < 0.01, "({px}, {py}): the hit is off its ray");
            // At or under the drawn top of its column (on it, or on the side a steeper column
            // shows the ray), and the column is the one under the hit.
            assert_eq!(hit.pixel, [(w[0] / col).floor() as i64, (w[2] / col).floor() as i64]);
            assert!(w[1] <= top_m(src, hit.pixel[0], hit.pixel[1]) + 0.05, "({px}, {py}): above the surface");
            // Half a metre back along the ray is air.
            let b = [w[0] - d[0] * 0.5, w[1] - d[1] * 0.5, w[2] - d[2] * 0.5];
            let bp = [(b[0] / col).floor() as i64, (b[2] / col).floor() as i64];
            assert!(
                b[1] > top_m(src, bp[0], bp[1]) - 0.05,
                "({px}, {py}): the ray was under the ground before its hit"
            );
        }
    }
    assert!(probed >= 8, "{probed} pixels hit the ground");
}

/// A pixel over the sky (the top row of a level view) reports no hit.
#[test]
fn a_probe_of_the_sky_is_no_hit() {
    let src = default_world();
    let from = [2048.0, 600.0, 4200.0];
    let at = [2048.0, 620.0, 2048.0];
    assert_eq!(cast(src, from, pixel_ray(from, at, (960, 540), (480.5, 0.5))), None);
}

/// The ruler's figures against a hand-computed pair: from (100, 50, 200) to (130, 62, 240) is
/// 30 m east and 40 m south (50 m across), 12 m up: 51.42 m straight, a 24 % mean slope.
#[test]
fn the_ruler_measures_distance_rise_and_slope() {
    use isla::world::probe::Ruler;
    let r = Ruler::between([100.0, 50.0, 200.0], [130.0, 62.0, 240.0]);
    assert!((r.horizontal_m - 50.0).abs() < 1e-4);
    assert!((r.distance_m - 2644f32.sqrt()).abs() < 1e-4);
    assert!((r.rise_m - 12.0).abs() < 1e-4);
    assert!((r.slope_percent - 24.0).abs() < 1e-3);
    let down = Ruler::between([130.0, 62.0, 240.0], [100.0, 50.0, 200.0]);
    assert!((down.slope_percent + 24.0).abs() < 1e-3, "downhill is negative");
    assert_eq!(Ruler::between([1.0, 2.0, 3.0], [1.0, 9.0, 3.0]).slope_percent, 0.0);
}

/// A probe on a river names it (its index in `RIVR` and its order) and its body's level; one on
/// dry land names no river.
#[test]
fn a_probe_on_a_river_names_the_river_and_its_level() {
    use isla::world::probe::{ProbeHit, probe_json};
    let src = default_world();
    let bp = &src.blueprint;
    let rivers = &bp.rivers.as_ref().expect("the default island has rivers").rivers;
    let water = bp.water.as_ref().unwrap();
    let mut named = 0;
    for (i, r) in rivers.iter().enumerate() {
        // A course point inside the river's own body (not where it has reached its mouth).
        let Some(p) = r.course.iter().find(|p| {
            let (x, y) = (p.x as usize, p.y as usize);
            water.body_ids[x * bp.map_size as usize + y] == r.body_id
        }) else {
            continue;
        };
        let pixel = [p.x as i64, p.y as i64];
        let json = probe_json(src, Some(ProbeHit { world: [0.0; 3], pixel }), 0);
        assert_eq!(json["river"]["id"], i, "river {i} at {pixel:?}: {json}");
        assert_eq!(json["river"]["order"], r.order, "{json}");
        let level = water.body(r.body_id).unwrap().surface_level_raw * bp.params.metres_per_raw;
        assert_eq!(json["water_level_m"].as_f64().unwrap() as f32, level, "{json}");
        named += 1;
    }
    assert!(named >= rivers.len() / 2, "only {named} of {} rivers probed", rivers.len());
    let dry = probe_json(src, Some(ProbeHit { world: [0.0; 3], pixel: [512, 512] }), 0);
    if dry["water_body"].is_null() {
        assert!(dry["river"].is_null(), "{dry}");
    }
}
