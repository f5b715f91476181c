//! Films (SPEC §10 "Films") without Bevy: the path file's rules and refusals, and the camera's
//! motion — continuous velocity at the keys, an even pace along the curve, the short way round,
//! the sun between keys, the lift over the ground.

use isla::film::{Ease, Film, KeySun, PathFile, frame_range};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-film").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("island.dat"), b"not read by the path loader").unwrap();
    d
}

fn parse(dir: &Path, text: &str) -> Result<PathFile, String> {
    PathFile::parse(&dir.join("island.path.toml"), text).map_err(|e| e.to_string())
}

fn key(from: [f32; 3], at: [f32; 3], extra: &str) -> String {
    format!("\n[[key]]\nlook_from = {from:?}\nlook_at = {at:?}\n{extra}")
}

/// Yaw (degrees, 0..360) of a forward vector, as the path's rotations measure it.
fn yaw(f: [f32; 3]) -> f32 {
    (-f[0]).atan2(-f[2]).to_degrees().rem_euclid(360.0)
}

fn forward_at_yaw(deg: f32) -> [f32; 3] {
    let r = deg.to_radians();
    [-r.sin(), 0.0, -r.cos()]
}

#[test]
fn a_path_file_times_its_keys_and_names_its_blueprint_by_default() {
    let dir = scratch("timing");
    let text = format!(
        "fps = 24\nwidth = 320\nheight = 180\noff = [\"fog\"]{}{}{}",
        key([0.0, 100.0, 0.0], [10.0, 90.0, 10.0], "hold = 1.5\n"),
        key([400.0, 100.0, 0.0], [10.0, 90.0, 10.0], "travel = 3\nease = \"linear\"\n"),
        key([400.0, 100.0, 400.0], [10.0, 90.0, 10.0], "time = 9\ntime_of_day = 15\n")
    );
    let f = parse(&dir, &text).unwrap();
    assert_eq!(f.blueprint, dir.join("island.dat"), "BLUEPRINT.path.toml names BLUEPRINT.dat");
    assert_eq!((f.fps, f.width, f.height, f.switches.fog), (24, 320, 180, false));
    let times: Vec<(f32, f32)> = f.keys.iter().map(|k| (k.arrive, k.depart)).collect();
    assert_eq!(times, [(0.0, 1.5), (4.5, 4.5), (9.0, 9.0)]);
    assert_eq!((f.keys[1].ease, f.keys[2].ease), (Ease::Linear, Ease::InOut));
    assert_eq!(f.keys[2].sun, KeySun::Hour(15.0));
    assert_eq!(f.frames(), 216, "9 s at 24 fps");
    assert_eq!(frame_range("200..215", 216), Ok((200, 215)));
}

/// SPEC §10: every bad path is refused in one line naming the file, the key and the problem.
#[test]
fn a_bad_path_file_is_refused_naming_the_file_and_the_key() {
    let dir = scratch("bad");
    let (a, b) = ([0.0, 100.0, 0.0], [400.0, 100.0, 0.0]);
    let at = [10.0, 90.0, 10.0];
    let cases: Vec<(String, &str)> = vec![
        (key(a, at, ""), "1 [[key]]: a path needs at least two"),
        (key(a, at, "") + &key(b, at, "time = 0\n"), "[[key]] #2: time 0 s does not come after"),
        (key(a, at, "hold = 2\n") + &key(b, at, "time = 1\n"), "does not come after the last key's departure at 2 s"),
        (key(a, at, "") + &key(b, at, "travel = nan\n"), "travel must be a finite number"),
        (key(a, at, "") + &key(b, at, "travel = -1\n"), "travel must be more than 0"),
        (key(a, at, "") + &key(b, at, "time = 2\ntravel = 2\n"), "give time or travel, not both"),
        (key(a, at, "") + "\n[[key]]\nview = \"harbour\"\n", "no saved views beside the blueprint"),
        (key(a, at, "") + "\n[[key]]\nview = \"isla:v1;from=1,2,3\"\n", "at: missing"),
        (key(a, at, "") + "\n[[key]]\nlook_from = [1, 2, 3]\n", "look_from without look_at"),
        (key(a, at, "") + &key(b, at, "ease = \"bouncy\"\n"), "ease: expected"),
        (key(a, at, "") + &key(b, at, "time_of_day = 20\n"), "time_of_day must be within 6..=18"),
        (key(a, a, "") + &key(b, at, ""), "looks at its own position"),
        ("width = 321\n".to_string() + &key(a, at, "") + &key(b, at, ""), "width 321 must be even"),
        ("fps = 0\n".to_string() + &key(a, at, "") + &key(b, at, ""), "fps 0 is outside 1..=240"),
        ("version = 2\n".to_string() + &key(a, at, "") + &key(b, at, ""), "version 2"),
        ("zoom = 2\n".to_string() + &key(a, at, "") + &key(b, at, ""), "unknown field `zoom`"),
        (key(a, at, "") + &key(b, at, "travel = 1e30\n"), "frames"),
    ];
    for (text, want) in cases {
        let e = parse(&dir, &text).expect_err(want);
        assert!(e.contains(want), "wanted '{want}' in: {e}");
        assert!(e.starts_with(&dir.join("island.path.toml").display().to_string()), "names the file: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    for (r, want) in [("5..300", "the film has frames 0..215"), ("9..3", "comes after"), ("x", "is not A..B")] {
        assert!(frame_range(r, 216).unwrap_err().contains(want), "{r}");
    }
}

/// SPEC §10 "Motion": position and velocity have no step at a key, whatever the keys' times —
/// sampled a millisecond either side of every key the velocity agrees (and is zero at a stop) —
/// and within a leg the camera's speed is the smooth quadratic from one key's speed to the
/// next's, not bunched where the curve's parameter is.
#[test]
fn the_camera_path_is_c1_and_paced_evenly_along_the_curve() {
    let dir = scratch("c1");
    let at = [0.0, 0.0, -2000.0];
    let text = format!(
        "{}{}{}{}{}",
        key([0.0, 300.0, 0.0], at, ""),
        key([300.0, 320.0, 40.0], at, "travel = 1.3\nease = \"linear\"\n"),
        key([500.0, 280.0, 400.0], at, "travel = 5\nease = \"linear\"\n"),
        key([540.0, 260.0, 430.0], at, "travel = 0.7\nease = \"linear\"\nhold = 1\n"),
        key([900.0, 300.0, 100.0], at, "travel = 3\n"),
    );
    let film = Film::new(parse(&dir, &text).unwrap());
    let pos = |t: f32| film.pose(t).from;
    let vel = |t: f32, h: f32| {
        let (a, b) = (pos(t - h), pos(t + h));
        [(b[0] - a[0]) / (2.0 * h), (b[1] - a[1]) / (2.0 * h), (b[2] - a[2]) / (2.0 * h)]
    };
    let norm = |v: [f32; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let keys = film.file.keys.clone();
    // The velocity arriving at a key and leaving it, each from one side only (second-order
    // one-sided differences: exact for a path quadratic in time, so a smooth path's acceleration
    // does not read as a step).
    let h = 5e-3;
    let one_sided = |t: f32, dir: f32| {
        let (p0, p1, p2) = (pos(t), pos(t + dir * h), pos(t + dir * 2.0 * h));
        [0, 1, 2].map(|c| dir * (-3.0 * p0[c] + 4.0 * p1[c] - p2[c]) / (2.0 * h))
    };
    for (i, k) in keys.iter().enumerate().skip(1).take(keys.len() - 2) {
        let (before, after) = (one_sided(k.arrive, -1.0), one_sided(k.depart, 1.0));
        let step = norm([before[0] - after[0], before[1] - after[1], before[2] - after[2]]);
        let speed = norm(before).max(norm(after));
        assert!(step <= 0.02 * speed.max(1.0), "key {i}: velocity steps by {step} m/s ({before:?} → {after:?})");
        if k.depart > k.arrive {
            assert!(speed < 0.5, "key {i} holds: it arrives at rest ({speed} m/s)");
        }
    }
    // Key 1 is passed at speed (linear on both sides): the path does not stop there.
    assert!(norm(vel(keys[1].arrive, 1e-3)) > 50.0);
    // Pace: leg 1 (key 1 to key 2, 5 s) against the quadratic speed profile of its length.
    let (t0, t1) = (keys[1].depart, keys[2].arrive);
    let steps = 5000;
    let mut length = 0.0;
    for s in 0..steps {
        let (a, b) =
            (pos(t0 + (t1 - t0) * s as f32 / steps as f32), pos(t0 + (t1 - t0) * (s + 1) as f32 / steps as f32));
        length += norm([b[0] - a[0], b[1] - a[1], b[2] - a[2]]);
    }
    let (v0, v1, dur) = (norm(vel(t0 + 1e-3, 1e-3)), norm(vel(t1 - 1e-3, 1e-3)), t1 - t0);
    let c = 6.0 * (length - 0.5 * (v0 + v1) * dur) / dur.powi(3);
    for f in [0.25f32, 0.5, 0.75] {
        let tau = f * dur;
        let want = v0 + (v1 - v0) * f + c * tau * (dur - tau);
        let got = norm(vel(t0 + tau, 1e-3));
        assert!((got - want).abs() <= 0.01 * want, "at {f} of the leg: {got} m/s, the even pace says {want}");
    }
}

/// SPEC §10 "Motion": a turn from 350° to 10° goes 20° through north, not 340° back round; and
/// from 170° to 190° 20° through south (where the two keys' quaternions lie on opposite sides).
#[test]
fn a_turn_from_350_to_10_degrees_is_20_degrees() {
    let dir = scratch("yaw");
    let p = [100.0, 200.0, 100.0];
    let at = |deg: f32| {
        let f = forward_at_yaw(deg);
        [p[0] + 100.0 * f[0], p[1], p[2] + 100.0 * f[2]]
    };
    for (a, b, mid_want) in [(350.0, 10.0, 0.0), (170.0, 190.0, 180.0)] {
        let film = Film::new(parse(&dir, &(key(p, at(a), "") + &key(p, at(b), "travel = 2\n"))).unwrap());
        let (mut turned, mut last) = (0.0, yaw(film.pose(0.0).forward));
        for i in 1..=200 {
            let y = yaw(film.pose(i as f32 * 0.01).forward);
            turned += ((y - last + 540.0).rem_euclid(360.0) - 180.0).abs();
            last = y;
        }
        assert!((turned - 20.0).abs() < 0.05, "{a}° → {b}°: turned {turned}°");
        let mid = yaw(film.pose(1.0).forward);
        let off = ((mid - mid_want + 540.0f32).rem_euclid(360.0) - 180.0).abs();
        assert!(off < 0.05, "{a}° → {b}°: half way it looks at {mid}°, not {mid_want}°");
    }
}

/// SPEC §10 "Sun": between two keys on the day arc the hour moves; between angles the azimuth
/// turns the short way; a key with no sun keeps the one it arrives with.
#[test]
fn the_sun_moves_between_keys() {
    let dir = scratch("sun");
    let at = [0.0, 0.0, -1000.0];
    let text = format!(
        "{}{}{}{}",
        key([0.0, 100.0, 0.0], at, "time_of_day = 8\n"),
        key([100.0, 100.0, 0.0], at, "travel = 2\ntime_of_day = 12\n"),
        key([200.0, 100.0, 0.0], at, "travel = 2\nsun_elevation = 30\nsun_azimuth = 350\n"),
        key([300.0, 100.0, 0.0], at, "travel = 2\nsun_azimuth = 20\n"),
    );
    let film = Film::new(parse(&dir, &text).unwrap());
    let s = film.pose(1.0).sun;
    let want = isla::view::Sun::at_hour(8.0 + 4.0 * 0.5);
    assert!((s.azimuth_deg - want.azimuth_deg).abs() < 0.01 && (s.elevation_deg - want.elevation_deg).abs() < 0.01);
    let s = film.pose(5.0).sun;
    assert!((s.azimuth_deg - 5.0).abs() < 0.01 || (s.azimuth_deg - 365.0).abs() < 0.01, "350° → 20° at half: {s:?}");
    assert_eq!(film.pose(6.0).sun.elevation_deg, 38.0, "the last key keeps the default elevation");
}

/// SPEC §10: between keys the camera never goes under the ground (here a 600 m ridge across the
/// straight line between two keys 400 m up): it is lifted to the clearance, and only there.
#[test]
fn the_camera_is_lifted_over_the_ground_between_keys() {
    let dir = scratch("lift");
    let at = [2000.0, 0.0, 0.0];
    let film = Film::new(
        parse(&dir, &(key([0.0, 400.0, 0.0], at, "") + &key([1000.0, 400.0, 0.0], at, "travel = 4\n"))).unwrap(),
    );
    let ridge = |x: f32, _z: f32| if (400.0..600.0).contains(&x) { 600.0 } else { 0.0 };
    let (mut lifted, mut free) = (0, 0);
    for i in 0..film.file.frames() {
        let (v, l) = film.view(i, Some(&ridge));
        let g = ridge(v.from[0], v.from[2]);
        assert!(v.from[1] >= g + isla::film::CLEARANCE_M - 1e-3, "frame {i} under the ground");
        if l > 0.0 {
            lifted += 1;
        } else {
            free += 1;
        }
    }
    assert!(lifted > 0 && free > lifted, "{lifted} frames lifted, {free} not");
}

/// A saved-views file (`BLUEPRINT.views.toml`) is a path as it is: its views are the keys, 4 s
/// apart.
#[test]
fn a_saved_views_file_is_a_path() {
    let dir = scratch("views");
    let text = "blueprint = \"island.dat\"\n\n[[view]]\nname = \"view-1\"\nview = \"isla:v1;from=0,100,0;at=10,90,10;sun=20,90\"\n\n\
                [[view]]\nname = \"view-2\"\nview = \"isla:v1;from=400,100,0;at=10,90,10\"\n";
    let f = PathFile::parse(&dir.join("island.views.toml"), text).unwrap();
    assert_eq!(f.keys.len(), 2);
    assert_eq!((f.keys[1].arrive, f.duration_s()), (4.0, 4.0));
    assert_eq!(f.keys[0].sun, KeySun::Angles(isla::view::Sun { elevation_deg: 20.0, azimuth_deg: 90.0 }));
}

/// `isla fly`'s K: each press appends the current view as a key to `BLUEPRINT.path.toml`
/// (made with its header the first time); two keys make a path that loads; a file that is not
/// TOML is refused and left as it was.
#[test]
fn keys_appended_beside_the_blueprint_make_a_path() {
    let dir = scratch("append");
    let bp = dir.join("island.dat");
    let a: isla::view::View = "isla:v1;from=0,100,0;at=10,90,10".parse().unwrap();
    let b: isla::view::View = "isla:v1;from=400,100,0;at=10,90,10;sun=20,300".parse().unwrap();
    assert_eq!(isla::film::append_key(&bp, &a).unwrap(), (1, dir.join("island.path.toml")));
    assert!(PathFile::load(&dir.join("island.path.toml")).unwrap_err().to_string().contains("at least two"));
    assert_eq!(isla::film::append_key(&bp, &b).unwrap().0, 2);
    let f = PathFile::load(&dir.join("island.path.toml")).unwrap();
    assert_eq!((f.keys.len(), f.keys[1].arrive, f.blueprint.clone()), (2, 4.0, bp.clone()));
    std::fs::write(dir.join("island.path.toml"), "[[key]\n").unwrap();
    assert!(isla::film::append_key(&bp, &a).unwrap_err().to_string().contains("island.path.toml:1:"));
    assert_eq!(std::fs::read_to_string(dir.join("island.path.toml")).unwrap(), "[[key]\n");
}

/// The camera's position at every frame of the film.
fn positions(film: &Film) -> Vec<[f32; 3]> {
    (0..film.file.frames()).map(|i| film.view(i, None).0.from).collect()
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// SPEC §10 "Motion": a key with a hold is a stop, even between two legs the camera takes at
/// speed (`linear` on both sides). Frame by frame at 60 fps: it slows to rest as it arrives, stays
/// exactly where the key puts it for the whole hold, and leaves from rest — its first and last
/// moves a small fraction of the leg's mean frame step, where passing through would keep them.
#[test]
fn a_key_with_a_hold_is_a_stop() {
    let dir = scratch("hold");
    let at = [0.0, 0.0, -2000.0];
    let linear = "travel = 3\nease = \"linear\"\n";
    let text = format!(
        "fps = 60\n{}{}{}{}{}",
        key([0.0, 300.0, 0.0], at, ""),
        key([400.0, 300.0, 0.0], at, linear),
        key([800.0, 300.0, 100.0], at, "travel = 3\nease = \"linear\"\nhold = 2\n"),
        key([1200.0, 300.0, 0.0], at, linear),
        key([1600.0, 300.0, 0.0], at, linear),
    );
    let film = Film::new(parse(&dir, &text).unwrap());
    let held = film.file.keys[2].clone();
    assert_eq!((held.arrive, held.depart), (6.0, 8.0));
    let p = positions(&film);
    let fps = film.file.fps as f32;
    let (first, last) = ((held.arrive * fps) as usize, (held.depart * fps) as usize);
    for (i, q) in p.iter().enumerate().take(last + 1).skip(first) {
        assert_eq!(*q, held.from, "frame {i} ({} s) is in the hold", i as f32 / fps);
    }
    // The legs either side: their mean step a frame, and the step into and out of the hold.
    let mean_step = |a: usize, b: usize| distance(p[a], p[b]) / (b - a) as f32;
    let arriving = mean_step(first - 3 * 60, first);
    let leaving = mean_step(last, last + 3 * 60);
    let into = distance(p[first - 1], p[first]);
    let out_of = distance(p[last], p[last + 1]);
    assert!(into < 0.05 * arriving, "arrives at {into} m a frame (the leg's mean {arriving} m): not at rest");
    assert!(out_of < 0.05 * leaving, "leaves at {out_of} m a frame (the leg's mean {leaving} m): not from rest");
}

/// SPEC §10 "Motion": at a key between a long leg (1000 m in 4 s) and a short one (10 m in 4 s),
/// both taken at speed, the speed through the key is capped at the short leg's chord over its
/// duration, so the camera does not overshoot: frame by frame it only moves forward, and along
/// the short leg it stays between that leg's two keys.
#[test]
fn the_camera_does_not_overshoot_a_key_between_a_long_leg_and_a_short_one() {
    let dir = scratch("cap");
    let at = [2000.0, 0.0, -2000.0];
    let linear = "travel = 4\nease = \"linear\"\n";
    let text = format!(
        "{}{}{}{}",
        key([0.0, 300.0, 0.0], at, ""),
        key([1000.0, 300.0, 0.0], at, linear),
        key([1010.0, 300.0, 0.0], at, linear),
        key([1020.0, 300.0, 0.0], at, linear),
    );
    let film = Film::new(parse(&dir, &text).unwrap());
    let p = positions(&film);
    let fps = film.file.fps as f32;
    for (i, w) in p.windows(2).enumerate() {
        assert!(w[1][0] >= w[0][0] - 1e-3, "frame {}: back from x = {} to {}", i + 1, w[0][0], w[1][0]);
        assert!((w[1][1] - 300.0).abs() < 1e-3 && w[1][2].abs() < 1e-3, "frame {}: off the line at {:?}", i + 1, w[1]);
    }
    let (b, c) = (film.file.keys[1].clone(), film.file.keys[2].clone());
    for (i, q) in p.iter().enumerate().take((c.arrive * fps) as usize + 1).skip((b.depart * fps) as usize) {
        assert!(
            (b.from[0] - 1e-3..=c.from[0] + 1e-3).contains(&q[0]),
            "frame {i}: x = {} between the keys at {} and {}",
            q[0],
            b.from[0],
            c.from[0]
        );
    }
}

/// SPEC §10 "Motion": where the camera turns in place (two keys at one spot), the turn goes by
/// time, smoothstepped for an in-out leg (from rest to rest) and evenly for a linear one. A
/// quarter of the way through a 20° turn: 20° × smoothstep(¼) = 3.125° in-out, 5° linear.
#[test]
fn a_turn_in_place_is_smoothstepped_in_out_and_even_when_linear() {
    let dir = scratch("turn");
    let p = [100.0, 200.0, 100.0];
    let at = |deg: f32| {
        let f = forward_at_yaw(deg);
        [p[0] + 100.0 * f[0], p[1], p[2] + 100.0 * f[2]]
    };
    for (ease, want) in [("in-out", 3.125f32), ("linear", 5.0)] {
        let text = key(p, at(0.0), "") + &key(p, at(20.0), &format!("travel = 2\nease = \"{ease}\"\n"));
        let film = Film::new(parse(&dir, &text).unwrap());
        let turned = yaw(film.pose(0.5).forward);
        assert!((turned - want).abs() < 0.01, "{ease}: {turned}° a quarter of the way, not {want}°");
        assert_eq!(film.pose(0.5).from, p, "{ease}: the camera stays where it is");
    }
}
