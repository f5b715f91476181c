//! The forge (SPEC §2): each test names the rule it protects.

use isla::blueprint::testing::IslandBuilder;
use isla::blueprint::{self, OCEAN_BODY_ID, water_level};
use isla::forge::{self, ErosionDials, ForgeDials, SEA_LEVEL_RAW};

/// The repository's 1024² island and the seed it was forged from (`blueprints/default.json`).
const DEFAULT_ISLAND: &str = "blueprints/default.dat";
const ISLAND_1024_SEED: i32 = 7;

/// A forged island with the default dials, forged once per binary per (seed, size): forging is
/// the expensive fixture here.
fn forged(seed: i32, size: u32) -> std::sync::Arc<forge::Forged> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Slot = Arc<OnceLock<Arc<forge::Forged>>>;
    static CACHE: OnceLock<Mutex<HashMap<(i32, u32), Slot>>> = OnceLock::new();
    let slot = CACHE.get_or_init(Default::default).lock().unwrap().entry((seed, size)).or_default().clone();
    slot.get_or_init(|| Arc::new(forge::forge_full(&ForgeDials::new(seed, size), |_| {}).unwrap())).clone()
}

fn repo(p: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// SPEC §2 "deterministic: byte-identical output on any thread count" — with erosion on, too:
/// one thread against two and eight.
#[test]
fn forge_is_byte_identical_on_one_two_and_eight_threads() {
    let mut dials = ForgeDials::new(3, 128);
    dials.erosion = Some(ErosionDials::new(128));
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| blueprint::to_bytes(&forge::forge(&dials, |_| {}).unwrap()).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(8));
}

/// SPEC §2 coast shelf: "strictly positive for positive depth, so it cannot move the waterline" —
/// water and biomes are identical with it on and off, and only below-sea heights differ.
#[test]
fn coast_shelf_keeps_the_waterline() {
    let on = ForgeDials::new(5, 160);
    let mut off = on.clone();
    off.shape.coast_shelf = false;
    let (a, b) = (forge::forge(&on, |_| {}).unwrap(), forge::forge(&off, |_| {}).unwrap());
    assert_eq!(a.water, b.water, "WBID/WBTB/WSRF identical");
    assert_eq!(a.biomes, b.biomes);
    let sea = SEA_LEVEL_RAW;
    let mut shallower = 0;
    for (ha, hb) in a.heights_raw.iter().zip(&b.heights_raw) {
        assert_eq!(*ha < sea, *hb < sea, "same side of the sea");
        if *hb < sea && ha > hb {
            shallower += 1;
        }
    }
    assert!(shallower > 0, "the shelf did compress something");
    assert!(forge::coast_shelf(1e-3) > 0.0 && forge::coast_shelf(50.0) < 50.0);
}

/// SPEC §2 erosion flood guard: "below-sea cells are never touched ... the water-pixel count is
/// identical before and after", the classify-side sections never see it, and it is recorded.
#[test]
fn erosion_changes_no_water_pixel() {
    let plain = ForgeDials::new(9, 192);
    let mut eroded = plain.clone();
    eroded.erosion = Some(ErosionDials::new(192));
    let (a, b) = (forge::forge_full(&plain, |_| {}).unwrap(), forge::forge_full(&eroded, |_| {}).unwrap());
    let (a, stats, b) = (a.blueprint, b.summary.erosion.unwrap(), b.blueprint);
    assert_eq!(a.water, b.water);
    assert_eq!(a.biomes, b.biomes);
    assert_eq!(stats.wet_before, stats.wet_after);
    assert!(stats.eroded_m3 > 0.0, "erosion did something");
    assert!(a.heights_raw != b.heights_raw);
    let sea = SEA_LEVEL_RAW;
    for (i, (ha, hb)) in a.heights_raw.iter().zip(&b.heights_raw).enumerate() {
        if *ha < sea || a.water.as_ref().unwrap().body_ids[i] != 0 {
            assert_eq!(ha.to_bits(), hb.to_bits(), "water and below-sea cells are read-only");
        }
        assert_eq!(*ha < sea, *hb < sea);
    }
    assert_eq!(b.erosion.unwrap(), blueprint::ErosionMeta::from(&ErosionDials::new(192)), "EROS v3 as applied");
    assert!(a.erosion.is_none(), "off by default");
}

/// SPEC §2 height curve: "monotone ... identity at and below sea level ... asserted on every
/// generation; a violation refuses to generate", recorded in TCRV.
#[test]
fn height_curve_is_monotone_and_a_violation_refuses_to_generate() {
    let f = forged(4, 128);
    f.curve.assert_monotonic().unwrap();
    let tcrv = f.blueprint.curve.as_ref().unwrap();
    assert_eq!(tcrv.version, forge::curve::CURVE_VERSION);
    let v = tcrv.values();
    assert_eq!(v[0], SEA_LEVEL_RAW);
    assert!(v[3..8].windows(2).all(|w| w[0] < w[1]), "knots ordered");
    assert!(f.blueprint.detail.is_some(), "TDTL v2 written with the detail pass");
    // A plateau below the bench cannot be monotone: generation must refuse.
    let mut bad = ForgeDials::new(4, 64);
    bad.curve.plateau_base_m = 90.0;
    let err = forge::forge(&bad, |_| {}).unwrap_err();
    assert!(err.to_string().contains("refusing to generate"), "{err}");
    // Summits stay under the cap and inside the WSRF range.
    let top = f.blueprint.heights_raw.iter().copied().fold(0.0, f32::max);
    assert!((top - SEA_LEVEL_RAW) * forge::METRES_PER_RAW <= 420.5 && top < 1.99997);
}

/// SPEC §2 water: WBID/WBTB/WSRF agree, the ocean touches the border, no lake does, and every
/// lake stands at its basin's spill height (classify map) and at its lowest rendered shore.
#[test]
fn water_sections_agree_and_lakes_stand_at_their_spill_height() {
    let f = forged(7, 256);
    let bp = &f.blueprint;
    let n = bp.n();
    let w = bp.water.as_ref().unwrap();
    let surf = w.surface.as_ref().unwrap();
    for (i, &id) in w.body_ids.iter().enumerate() {
        assert_eq!(id == 0, surf[i] == water_level::NO_WATER, "WSRF non-zero exactly where WBID is");
        if id != 0 {
            let level = w.body(id).expect("every id is in WBTB").surface_level_raw;
            assert_eq!(water_level::decode(surf[i]).unwrap(), water_level::decode(water_level::encode(level)).unwrap());
            if id > OCEAN_BODY_ID {
                assert_eq!(water_level::decode(surf[i]).unwrap(), level, "lake levels sit on the WSRF grid");
            }
            assert!(bp.heights_raw[i] < level, "wet ground lies under its water");
        }
    }
    let border = |i: usize| {
        let (x, y) = (i / n, i % n);
        x == 0 || y == 0 || x == n - 1 || y == n - 1
    };
    assert!((0..n * n).any(|i| border(i) && w.body_ids[i] == OCEAN_BODY_ID));
    assert!((0..n * n).all(|i| !border(i) || w.body_ids[i] <= OCEAN_BODY_ID), "no lake touches the border");
    let bodies = w.bodies.as_ref().unwrap();
    for b in bodies {
        let count = w.body_ids.iter().filter(|&&id| id == b.id).count();
        assert_eq!(b.pixel_count as usize, count);
    }
    // Classify space: a lake's level is the highest spill level among its pixels.
    let class = forge::classify_water(bp.map_size, &f.classify_raw, SEA_LEVEL_RAW, forge::METRES_PER_RAW);
    let spill = forge::spill_levels(n, &f.classify_raw, SEA_LEVEL_RAW);
    assert_eq!(class.body_ids, w.body_ids, "one classification");
    let lakes: Vec<_> = class.bodies.iter().filter(|b| b.id > OCEAN_BODY_ID).collect();
    assert!(lakes.len() >= 2, "the island has lakes");
    for lake in &lakes {
        let members: Vec<usize> = (0..n * n).filter(|&i| class.body_ids[i] == lake.id).collect();
        let spill_max = members.iter().map(|&i| spill[i]).fold(f32::MIN, f32::max);
        assert_eq!(lake.surface_level_raw, spill_max);
        // Render space: the level is the lowest dry shore, rounded down onto the WSRF grid.
        let mut shore = f32::INFINITY;
        for &i in &members {
            for j in [i.wrapping_sub(n), i + n, i.wrapping_sub(1), i + 1] {
                if j < n * n && (i % n).abs_diff(j % n) <= 1 && w.body_ids[j] == 0 {
                    shore = shore.min(bp.heights_raw[j]);
                }
            }
        }
        let stored = w.body(lake.id).unwrap().surface_level_raw;
        assert!(
            stored <= shore && shore - stored < 1.0 / 32768.0 + 1e-6,
            "lake {}: {stored} vs shore {shore}",
            lake.id
        );
    }
}

/// SPEC §2 crater bay: PRMS records it, the carve floods a bay, and the seam ring (render below
/// sea, WBID 0) is non-empty and lies inside the carve only.
#[test]
fn crater_seam_ring_is_non_empty_and_inside_the_carve() {
    let f = forged(7, 256);
    let bp = &f.blueprint;
    let c = f.crater.expect("a crater");
    assert!(bp.params.crater_radius > 0.0 && bp.params.crater_x == c.x && bp.params.crater_y == c.y);
    let n = bp.n();
    let ids = &bp.water.as_ref().unwrap().body_ids;
    let mut seam = 0;
    for (i, (&id, &h)) in ids.iter().zip(&bp.heights_raw).enumerate() {
        if id == 0 && h < SEA_LEVEL_RAW {
            seam += 1;
            assert!(c.distance(i / n, i % n) < c.carve_radius_px(), "seam pixel outside the crater");
        }
    }
    assert!(seam > 0, "the seam ring exists");
    assert_eq!(isla::world::island_stats(bp).seam_candidates, seam as u64);
    assert_eq!(ids[c.x as usize * n + c.y as usize], OCEAN_BODY_ID, "the crater floods into a bay");
}

/// SPEC §2 offshore islets: lifted from deep water, never touching the mainland nor the edge.
#[test]
fn islets_never_touch_the_mainland_or_the_edge() {
    let with = ForgeDials::new(7, 256);
    let mut without = with.clone();
    without.shape.islet_density = 0.0;
    let (a, b) = (forged_with(&with), forged_with(&without));
    let n = 256usize;
    let land = |f: &forge::Forged, i: usize| f.classify_raw[i] >= SEA_LEVEL_RAW;
    let islet: Vec<bool> = (0..n * n).map(|i| land(&a, i) && !land(&b, i)).collect();
    assert!(islet.iter().any(|&v| v), "some islet surfaced");
    for (i, _) in islet.iter().enumerate().filter(|(_, on)| **on) {
        let (x, y) = (i / n, i % n);
        assert!(x > 0 && y > 0 && x < n - 1 && y < n - 1, "islet on the map edge");
        // 8-neighbours: an islet pixel never touches mainland land.
        for dx in -1i32..=1 {
            for dy in -1i32..=1 {
                let j = (x as i32 + dx) as usize * n + (y as i32 + dy) as usize;
                assert!(!land(&b, j), "islet pixel {x},{y} touches the mainland");
            }
        }
    }
}

fn forged_with(d: &ForgeDials) -> forge::Forged {
    forge::forge_full(d, |_| {}).unwrap()
}

/// SPEC §2 shape: land in the middle, deep water at the edges, at every test size.
#[test]
fn land_in_the_middle_and_deep_water_at_the_edges() {
    for size in [64u32, 96, 256] {
        let bp = forged(11, size).blueprint.clone();
        let n = bp.n();
        assert!(bp.heights_raw[(n / 2) * n + n / 2] >= SEA_LEVEL_RAW, "{size}: land in the middle");
        for i in 0..n {
            for j in [i, (n - 1) * n + i, i * n, i * n + n - 1] {
                assert!((SEA_LEVEL_RAW - bp.heights_raw[j]) * forge::METRES_PER_RAW > 30.0, "{size}: deep edge");
            }
        }
        assert!(bp.towns.as_ref().is_some_and(|t| !t.is_empty()), "{size}: towns");
    }
}

/// SPEC §2 "the repository keeps a default blueprint that the forge reproduces byte-for-byte from
/// its recorded seed": `blueprints/default.dat` from `ForgeDials::new(7, 1024)`.
#[test]
fn island_1024_is_reproduced_byte_for_byte() {
    let t = std::time::Instant::now();
    let dials = ForgeDials::new(ISLAND_1024_SEED, 1024);
    let f = forge::forge_full(&dials, |_| {}).unwrap();
    let bytes = blueprint::to_bytes(&f.blueprint).unwrap();
    eprintln!("forged 1024² in {:.2} s", t.elapsed().as_secs_f64());
    let path = repo(DEFAULT_ISLAND);
    if std::env::var_os("ISLA_BLESS").is_some() {
        isla::io::write_bytes_atomic(&path, &bytes).unwrap();
        let record = serde_json::json!({
            "seed": dials.seed,
            "size": dials.size,
            "command": format!("isla forge --seed {} --size 1024 --out {DEFAULT_ISLAND}", dials.seed),
            "note": "every dial is ForgeDials::new(seed, 1024)'s default; listed as applied",
            "dials": dials,
            "summary": f.summary,
            "crater": f.crater,
        });
        let text = serde_json::to_string_pretty(&record).unwrap() + "\n";
        isla::io::write_bytes_atomic(&repo("blueprints/default.json"), text.as_bytes()).unwrap();
        forge::snapshots(&blueprint::read_bytes(&bytes).unwrap(), std::path::Path::new("/tmp/forge/default")).unwrap();
    }
    let committed = std::fs::read(&path).expect("blueprints/default.dat (re-bless with ISLA_BLESS=1)");
    assert!(committed == bytes, "forge output differs from {DEFAULT_ISLAND}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(repo("blueprints/default.json")).unwrap()).unwrap();
    assert_eq!(json["seed"], ISLAND_1024_SEED);
    assert_eq!(json["size"], 1024);
}

/// The river rules (SPEC §2 "Rivers") checked from outside on a blueprint forged with rivers on,
/// against the same island with them off: the ocean and every below-sea pixel identical, the
/// crater core untouched, no town on water, water in BIOM exactly where WBID says, and along
/// every course the level non-increasing toward the mouth and at least the minimum depth over the
/// ground. Returns the rivers' lengths (metres).
fn assert_river_rules(on: &blueprint::Blueprint, off: &blueprint::Blueprint) -> Vec<f32> {
    let n = on.n();
    let (w_on, w_off) = (on.water.as_ref().unwrap(), off.water.as_ref().unwrap());
    let sea = on.params.sea_level_raw;
    let net = on.rivers.as_ref().expect("a RIVR section");
    assert!(off.rivers.is_none());
    assert_eq!(w_on.ocean(), w_off.ocean(), "the ocean's WBTB record");
    for i in 0..n * n {
        assert_eq!(w_on.body_ids[i] == OCEAN_BODY_ID, w_off.body_ids[i] == OCEAN_BODY_ID, "ocean pixel {i}");
        if off.heights_raw[i] < sea || on.heights_raw[i] < sea {
            assert_eq!(on.heights_raw[i].to_bits(), off.heights_raw[i].to_bits(), "below-sea pixel {i}");
        }
        let water_biome = on.biomes[i] <= 1; // Ocean 0, Lake 1
        assert_eq!(water_biome, w_on.body_ids[i] != 0, "BIOM and WBID at pixel {i}");
        if w_off.body_ids[i] != 0 {
            assert_eq!(w_on.body_ids[i], w_off.body_ids[i], "an existing body keeps its pixels");
        }
    }
    if on.params.crater_radius > 0.0 {
        let r = on.params.crater_radius * forge::crater::CARVE_FACTOR;
        for x in 0..n {
            for y in 0..n {
                let (dx, dy) = (x as f32 - on.params.crater_x, y as f32 - on.params.crater_y);
                if dx * dx + dy * dy <= r * r {
                    let i = x * n + y;
                    assert_eq!(on.heights_raw[i].to_bits(), off.heights_raw[i].to_bits(), "crater core {x},{y}");
                    assert_eq!(w_on.body_ids[i], w_off.body_ids[i]);
                }
            }
        }
    }
    for t in on.towns.as_ref().unwrap() {
        let i = (t.x.round() as usize).min(n - 1) * n + (t.y.round() as usize).min(n - 1);
        assert_eq!(w_on.body_ids[i], 0, "town at ({}, {}) on water", t.x, t.y);
    }
    // SPEC §2 "Plan": at most `trunks` main rivers to the ocean, `lakeRivers` to lakes, and
    // `tributaries` branches on each main river.
    let mains_into =
        |ocean: bool| net.rivers.iter().filter(|r| r.order == 1 && (r.mouth_body_id == OCEAN_BODY_ID) == ocean).count();
    assert!(
        mains_into(true) <= net.dials.trunks as usize,
        "{} trunks, the dial {}",
        mains_into(true),
        net.dials.trunks
    );
    assert!(mains_into(false) <= net.dials.lake_rivers as usize, "{} lake rivers", mains_into(false));
    for main in net.rivers.iter().filter(|r| r.order == 1) {
        let branches = net.rivers.iter().filter(|r| r.order > 1 && r.mouth_body_id == main.body_id).count();
        assert!(branches <= net.dials.tributaries as usize, "body {}: {branches} tributaries", main.body_id);
    }
    let surface = w_on.surface.as_ref().unwrap();
    let min_depth = net.dials.min_depth_m / on.params.metres_per_raw;
    let mut lengths = Vec::new();
    for r in &net.rivers {
        let body = w_on.body(r.body_id).expect("each river is a water body");
        assert_eq!(body.kind, blueprint::WaterType::Lake, "type 1 (fresh)");
        assert!(w_on.body(r.mouth_body_id).is_some(), "the mouth's body exists");
        assert_eq!(r.course.first().map(|p| [p.x, p.y]), Some(r.source));
        assert_eq!(r.course.last().map(|p| [p.x, p.y]), Some(r.mouth));
        let mut last = f32::INFINITY;
        let mut wet = 0;
        for p in &r.course {
            let i = p.x as usize * n + p.y as usize;
            if w_on.body_ids[i] != r.body_id {
                continue; // a lake it passes through, or the river it joins
            }
            let level = water_level::decode(surface[i]).unwrap();
            assert!(level <= last, "body {}: the level rises toward the mouth", r.body_id);
            assert!(level >= on.heights_raw[i] + min_depth * 0.999, "body {}: shallower than the minimum", r.body_id);
            last = level;
            wet += 1;
        }
        assert!(wet * 2 > r.course.len(), "body {}: most of the course is its own water", r.body_id);
        let least_m = if r.order > 1 { 0.5 } else { 1.0 } * net.dials.min_length_m;
        assert!(r.length_m >= least_m, "body {} (order {}): {} m, under {least_m} m", r.body_id, r.order, r.length_m);
        assert_widths_follow_the_drained_area(r, net.dials.width_scale, on.params.metres_per_pixel);
        // The mouth lies beside what the river flows into: the sea's or a lake's pixels, or the
        // channel of the river it joins (out to that river's shoulders, its width from a point).
        let reach = match net.rivers.iter().find(|j| j.body_id == r.mouth_body_id) {
            Some(j) => j.course.iter().map(|p| p.width_m).fold(0f32, f32::max) / on.params.metres_per_pixel + 1.5,
            None => 1.5,
        };
        let [mx, my] = r.mouth;
        let k = reach.ceil() as i64;
        let beside = (-k..=k).flat_map(|dx| (-k..=k).map(move |dy| (dx, dy))).any(|(dx, dy)| {
            let (x, y) = (mx as i64 + dx, my as i64 + dy);
            let inside = (0..n as i64).contains(&x) && (0..n as i64).contains(&y);
            inside
                && ((dx * dx + dy * dy) as f32) <= reach * reach
                && w_on.body_ids[x as usize * n + y as usize] == r.mouth_body_id
        });
        assert!(beside, "body {}: its mouth ({mx}, {my}) is not beside body {}", r.body_id, r.mouth_body_id);
        lengths.push(r.length_m);
    }
    assert_channel_profile(on);
    lengths
}

/// SPEC §2 "Carve", read from a river's `RIVR` record alone: the half-width is `(4 + 12·s) m`
/// times the width scale, at least 1.5 pixels, with `s = √(drained km²)` held under 2; the drained
/// area, recovered from each point's discharge (area × 6.3e-8 m/s), never shrinks downstream.
fn assert_widths_follow_the_drained_area(r: &blueprint::River, width_scale: f32, mpp: f32) {
    let mut last_q = 0f32;
    for p in &r.course {
        let (body, x, y) = (r.body_id, p.x, p.y);
        assert!(p.discharge_m3s >= last_q, "body {body} at ({x}, {y}): the drained area shrinks downstream");
        last_q = p.discharge_m3s;
        let km2 = p.discharge_m3s as f64 / 6.3e-8 / 1e6;
        let s = km2.sqrt().min(2.0);
        let half_m = ((4.0 + 12.0 * s) * width_scale as f64).max(1.5 * mpp as f64);
        let want = 2.0 * half_m;
        let got = p.width_m as f64;
        assert!((got - want).abs() <= 1e-4 * want, "body {body} at ({x}, {y}): {got} m wide, want {want} m (s = {s})");
    }
}

/// SPEC §2 "Carve", the channel's cross-section: a parabola from the bed up to a rim one depth
/// over it within the half-width, with the water at 0.6 of the depth. So the inner half of the
/// half-width is under water (the parabola stands at a quarter of the depth there): at least
/// 95 % of those pixels are wet, where the half-width is 2 pixels or more.
fn assert_channel_profile(on: &blueprint::Blueprint) {
    let (n, mpp) = (on.n(), on.params.metres_per_pixel);
    let net = on.rivers.as_ref().unwrap();
    let w = on.water.as_ref().unwrap();
    let (mut inner, mut inner_wet) = (0usize, 0usize);
    for r in &net.rivers {
        for p in &r.course {
            let hw = p.width_m / 2.0 / mpp;
            if hw < 2.0 || w.body_ids[p.x as usize * n + p.y as usize] != r.body_id {
                continue;
            }
            let k = (0.5 * hw).ceil() as i64;
            for dx in -k..=k {
                for dy in -k..=k {
                    let (x, y) = (p.x as i64 + dx, p.y as i64 + dy);
                    if !(0..n as i64).contains(&x) || !(0..n as i64).contains(&y) {
                        continue;
                    }
                    let i = x as usize * n + y as usize;
                    let d = ((dx * dx + dy * dy) as f32).sqrt();
                    if d <= 0.5 * hw {
                        inner += 1;
                        inner_wet += (w.body_ids[i] != 0) as usize;
                    }
                }
            }
        }
    }
    assert!(inner_wet as f64 >= 0.95 * inner as f64, "{inner_wet} of {inner} pixels in the channels' inner half wet");
}

/// SPEC §2 "Carve", the channel's depth: `(1 + 3·s) m × depthScale`, at least the minimum depth
/// plus 0.1 m, with the bed that far under the ground and the level `0.6 ×` the depth (at least
/// the minimum depth) over the bed. Read at the course points of each river's own water, where the
/// channel's centre is its bed: the medians of cut over depth and of water over its share (pools,
/// the bed's least fall, the level's envelope and the WSRF grid move single points).
fn channel_depth_medians(on: &blueprint::Blueprint, off: &blueprint::Blueprint, depth_scale: f32) -> (f32, f32) {
    let (n, mpr) = (on.n(), on.params.metres_per_raw);
    let net = on.rivers.as_ref().unwrap();
    let w = on.water.as_ref().unwrap();
    let min_depth_m = net.dials.min_depth_m;
    let (mut cut, mut water) = (Vec::new(), Vec::new());
    for r in &net.rivers {
        for p in &r.course {
            let i = p.x as usize * n + p.y as usize;
            if w.body_ids[i] != r.body_id {
                continue;
            }
            let s = (p.discharge_m3s as f64 / 6.3e-8 / 1e6).sqrt().min(2.0) as f32;
            let depth_m = ((1.0 + 3.0 * s) * depth_scale).max(min_depth_m + 0.1);
            let level = water_level::decode(w.surface.as_ref().unwrap()[i]).unwrap();
            cut.push((off.heights_raw[i] - on.heights_raw[i]) * mpr / depth_m);
            water.push((level - on.heights_raw[i]) * mpr / (0.6 * depth_m).max(min_depth_m));
        }
    }
    let median = |mut v: Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    (median(cut), median(water))
}

/// The ocean's record for a synthetic island: every pixel of `h` below `sea`.
fn ocean_below(h: &[f32], sea: f32, [centroid_x, centroid_y]: [f32; 2]) -> blueprint::WaterBody {
    blueprint::WaterBody {
        id: OCEAN_BODY_ID,
        kind: blueprint::WaterType::Ocean,
        salinity: blueprint::Salinity::Salt,
        surface_level_raw: sea,
        pixel_count: h.iter().filter(|&&v| v < sea).count() as i32,
        centroid_x,
        centroid_y,
    }
}

/// A synthetic island for the river stage alone: raw heights `h` (X-outer, N² of them) at the
/// forge's sea level and raw scale, `mpp` metres a pixel, every pixel under the sea one ocean.
fn river_island(h: Vec<f32>, mpp: f32, ocean_centroid: [f32; 2], towns: Vec<blueprint::Town>) -> blueprint::Blueprint {
    let n = (h.len() as f64).sqrt() as u32;
    let ocean = ocean_below(&h, SEA_LEVEL_RAW, ocean_centroid);
    IslandBuilder::new(n, h)
        .seed(1)
        .sea_level_raw(SEA_LEVEL_RAW)
        .metres_per_raw(forge::METRES_PER_RAW)
        .metres_per_pixel(mpp)
        .ocean_below_sea(vec![ocean])
        .towns(towns)
        .build()
}

/// SPEC §2 "Plan": a town's ground on an N² map, N/128 pixels around it, at least 3.
fn town_ground_px(n: usize) -> f32 {
    (n as f32 / 128.0).max(3.0)
}

/// SPEC §2 "Plan": every course point keeps town `t`'s ground plus its own half-width away.
/// Returns the least room left over, in pixels.
fn assert_courses_keep_off_the_town(net: &blueprint::RiverNetwork, t: &blueprint::Town, n: usize, mpp: f32) -> f32 {
    let ground_px = town_ground_px(n);
    let mut room = f32::INFINITY;
    for r in &net.rivers {
        for p in &r.course {
            let d = ((p.x - t.x).powi(2) + (p.y - t.y).powi(2)).sqrt();
            let keep = ground_px + p.width_m / 2.0 / mpp;
            assert!(d >= keep, "body {} at ({}, {}): {d} px from the town, under {keep} px", r.body_id, p.x, p.y);
            room = room.min(d - keep);
        }
    }
    room
}

/// SPEC §2 rivers, on a synthetic island: a slope from 150 m down into the sea with a valley and a
/// town beside it, a crater on the slope; forged by the river stage alone, every guard holds.
#[test]
fn river_rules_hold_on_a_synthetic_slope() {
    use forge::rivers::{Inputs, RiverDials, run};
    let n = 192usize;
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, 251.0f32, 4.0f32);
    let mut h = vec![0f32; n * n];
    for x in 0..n {
        for y in 0..n {
            let valley = (y as f32 - 96.0 - 20.0 * (x as f32 / 30.0).sin()).abs();
            let e_m =
                150.0 - 170.0 * x as f32 / (n - 1) as f32 + 0.3 * valley + 6.0 * ((x * 7 + y * 13) % 5) as f32 / 5.0;
            h[x * n + y] = sea + e_m / mpr;
        }
    }
    let towns = vec![blueprint::Town { x: 60.0, y: 60.0, tier: blueprint::TownTier::City, is_highway_node: true }];
    let crater = forge::Crater { x: 40.0, y: 150.0, radius_px: 12.0 };
    let mut off = river_island(h, mpp, [170.0, 96.0], towns.clone());
    (off.params.crater_x, off.params.crater_y, off.params.crater_radius) = (crater.x, crater.y, crater.radius_px);
    let mut on = off.clone();
    // A width scale other than 1, so the record's widths show that it is applied.
    let dials = RiverDials { min_length_m: 200.0, width_scale: 1.5, depth_scale: 1.5, ..RiverDials::default() };
    let inp = Inputs { n, sea, mpr, mpp, towns: &towns, crater: Some(&crater) };
    let (net, stats) = run(&dials, &inp, &mut on.heights_raw, on.water.as_mut().unwrap(), &mut on.biomes).unwrap();
    assert!(stats.carved_pixels > 0 && stats.wet_pixels > 0, "{stats:?}");
    // The stage's log figures count the network it wrote.
    assert_eq!(stats.rivers, net.rivers.len(), "{stats:?}");
    assert_eq!(stats.tributaries, net.rivers.iter().filter(|r| r.order > 1).count(), "{stats:?}");
    // The stage's log figure for the deepest cut is the deepest the map was cut.
    let deepest_m = off.heights_raw.iter().zip(&on.heights_raw).map(|(a, b)| (a - b) * mpr).fold(0f32, f32::max);
    assert!((stats.max_cut_m - deepest_m).abs() <= 1e-3, "logged {} m, cut {deepest_m} m", stats.max_cut_m);
    on.rivers = Some(net);
    let lengths = assert_river_rules(&on, &off);
    // At 1.5 × the depth. On this steep slope (0.9 m a pixel) the channels of the points
    // downstream cut a point's centre a little under its bed: 1.16 and 1.26 measured.
    let (cut, water) = channel_depth_medians(&on, &off, dials.depth_scale);
    assert!((0.9..=1.35).contains(&cut) && (0.9..=1.35).contains(&water), "depth medians {cut}, {water}");
    assert!(lengths.iter().any(|&l| l >= 400.0), "the valley's river runs most of the slope: {lengths:?}");
    // Deterministic: the same input gives the same network and maps.
    let mut again = off.clone();
    let (net2, _) =
        run(&dials, &inp, &mut again.heights_raw, again.water.as_mut().unwrap(), &mut again.biomes).unwrap();
    again.rivers = Some(net2);
    assert_eq!(blueprint::to_bytes(&on).unwrap(), blueprint::to_bytes(&again).unwrap());
}

/// SPEC §2 "Drainage": a filled depression at least 2 m deep and `endorheicMinArea` large
/// reverts to the real surface as a terminal basin; shallower or smaller ones stay filled. A
/// plateau tilted gently toward the sea holds three bowls: one 6 m deep and 12 px across
/// (452 px, the dial's 0.004 of the map is 66 px), one as wide but 1.5 m deep, one as deep but
/// 3 px across (29 px). Only the first is a terminal basin; the river stage's own figures say so.
#[test]
fn only_a_deep_and_wide_depression_is_a_terminal_basin() {
    use forge::rivers::{Inputs, RiverDials, run};
    let n = 128usize;
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, 251.0f32, 4.0f32);
    let bowls = [([40.0f32, 64.0f32], 12.0f32, 6.0f32), ([40.0, 22.0], 12.0, 1.5), ([40.0, 106.0], 3.0, 6.0)];
    let ground_m = |x: usize, y: usize| {
        // A plateau at 60 m falling 0.05 m a pixel toward +x, then a cliff into the sea.
        let mut e = if x < 80 { 60.0 - 0.05 * x as f32 } else { 56.0 - 4.0 * (x - 79) as f32 };
        for ([cx, cy], r, depth) in bowls {
            let d2 = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)) / (r * r);
            e -= depth * (1.0 - d2).max(0.0);
        }
        e
    };
    let h: Vec<f32> = (0..n * n).map(|i| sea + ground_m(i / n, i % n) / mpr).collect();
    let mut bp = river_island(h, mpp, [120.0, 64.0], vec![]);
    let dials = RiverDials::default();
    assert!((dials.endorheic_min_area * (n * n) as f32) < 100.0, "the wide bowls are above the dial");
    let inp = Inputs { n, sea, mpr, mpp, towns: &[], crater: None };
    let (_, stats) = run(&dials, &inp, &mut bp.heights_raw, bp.water.as_mut().unwrap(), &mut bp.biomes).unwrap();
    assert_eq!(stats.terminal_basins, 1, "{stats:?}");
    assert!(stats.depressions_filled >= 2, "the shallow and the narrow bowl are filled: {stats:?}");
}

/// SPEC §2 "Plan" and "Carve": stems and routes keep clear of the towns' grounds (N/128 pixels
/// around each, at least 3, plus a channel's width), and the carve does not touch that ground. On a
/// 1024² map of 16 m pixels the ground (8 px) is wider than the margin the plan grows around it
/// for a channel (4 px), so a ground lost or shrunk shows. A slope falls 170 m to the sea down a
/// meandering valley 200 px wide between ridges; a town stands on its floor, 500 px above the
/// mouth, where the valley's river would run.
#[test]
fn rivers_keep_off_a_towns_ground_in_their_valley() {
    use forge::rivers::{Inputs, RiverDials, run};
    let n = 1024usize;
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, 251.0f32, 16.0f32);
    let valley_y = |x: f32| n as f32 / 2.0 + 60.0 * (x / 160.0).sin();
    let mut h = vec![0f32; n * n];
    for x in 0..n {
        for y in 0..n {
            // Ridges 100 px either side of the floor keep the valley's own flow the longest.
            let side = (y as f32 - valley_y(x as f32)).abs();
            let ridge = 0.3 * side.min(100.0) - 0.5 * (side - 100.0).max(0.0);
            let e_m = 150.0 - 170.0 * x as f32 / (n - 1) as f32 + ridge + 0.2 * ((x * 7 + y * 13) % 5) as f32 / 5.0;
            h[x * n + y] = sea + e_m / mpr;
        }
    }
    let town_x = 400.0f32;
    let towns = vec![blueprint::Town {
        x: town_x,
        y: valley_y(town_x).round(),
        tier: blueprint::TownTier::Town,
        is_highway_node: false,
    }];
    let off = river_island(h, mpp, [1000.0, 512.0], towns.clone());
    let mut on = off.clone();
    let dials = RiverDials { depth_scale: 0.05, ..RiverDials::default() };
    let inp = Inputs { n, sea, mpr, mpp, towns: &towns, crater: None };
    let (net, stats) = run(&dials, &inp, &mut on.heights_raw, on.water.as_mut().unwrap(), &mut on.biomes).unwrap();
    let ground_px = town_ground_px(n);
    let t = &towns[0];
    // The ground itself: not cut, not wet.
    let w = on.water.as_ref().unwrap();
    for x in 0..n {
        for y in 0..n {
            let (dx, dy) = (x as f32 - t.x, y as f32 - t.y);
            if dx * dx + dy * dy <= ground_px * ground_px {
                let i = x * n + y;
                assert_eq!(
                    on.heights_raw[i].to_bits(),
                    off.heights_raw[i].to_bits(),
                    "the town's ground cut at ({x}, {y})"
                );
                assert_eq!(w.body_ids[i], 0, "the town's ground wet at ({x}, {y})");
            }
        }
    }
    // Every course point keeps the ground and its own half-width away; and a river does come by
    // (within another ground's width of that), so the rule was put to the test.
    let room = assert_courses_keep_off_the_town(&net, t, n, mpp);
    assert!(room < ground_px, "no river came by the town: the nearest is {room} px beyond its ground");
    // The log's tributary count is the network's, and there are tributaries to count.
    let tributaries = net.rivers.iter().filter(|r| r.order > 1).count();
    assert!(tributaries > 0 && stats.tributaries == tributaries, "{stats:?}: {tributaries} tributaries");
    on.rivers = Some(net);
    assert_river_rules(&on, &off);
    // At 0.05 × the depth, the floor (the minimum depth + 0.1 m) sets every channel's depth.
    let (cut, water) = channel_depth_medians(&on, &off, dials.depth_scale);
    assert!((0.95..=1.1).contains(&cut) && (0.95..=1.1).contains(&water), "depth medians {cut}, {water}");
}

/// SPEC §2 "Plan": below its mountain exit a main river is re-routed to its body by the
/// least-cost path, and routes, like stems, keep clear of the towns' grounds. On a 256² slope
/// of 4 m pixels a valley falls steeply (8 %) to its exit, then gently (1.7 %) to the sea; beside
/// it, over a 2.4 m ridge, lies a plain at most 2 m above the sea. The route must leave the
/// valley for the plain (its cost is the elevation it runs at; computed: the climb costs 120, and
/// the valley's floor sums about 800 more elevation than the plain's trough), and pass by a town
/// standing on the plain's trough.
#[test]
fn a_rivers_lowland_route_keeps_off_a_towns_ground() {
    use forge::rivers::{Inputs, RiverDials, run};
    let n = 256usize;
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, 251.0f32, 4.0f32);
    let ground_m = |x: usize, y: usize| {
        let (xf, yf) = (x as f32, y as f32);
        if x >= 236 {
            return -1.0 - 0.5 * (xf - 236.0);
        }
        let floor = if x < 60 { 12.0 + 0.32 * (60.0 - xf) } else { 12.0 * (236.0 - xf) / 176.0 };
        let side = (yf - 128.0).abs();
        if x < 60 {
            return floor + side;
        }
        if y < 136 {
            return floor + 0.3 * side;
        }
        if y < 140 {
            return floor + 2.4;
        }
        2.0 * (236.0 - xf) / 176.0 + 0.02 * (yf - 170.0).abs()
    };
    let h: Vec<f32> = (0..n * n).map(|i| sea + ground_m(i / n, i % n) / mpr).collect();
    let towns =
        vec![blueprint::Town { x: 120.0, y: 170.0, tier: blueprint::TownTier::Village, is_highway_node: false }];
    let off = river_island(h, mpp, [246.0, 128.0], towns.clone());
    let mut on = off.clone();
    let dials = RiverDials { min_length_m: 200.0, ..RiverDials::default() };
    let inp = Inputs { n, sea, mpr, mpp, towns: &towns, crater: None };
    let (net, _) = run(&dials, &inp, &mut on.heights_raw, on.water.as_mut().unwrap(), &mut on.biomes).unwrap();
    let t = &towns[0];
    // The valley's river (from the upland) runs to the sea over the plain: below the exit,
    // most of its course is on the plain (a route along the valley floor runs 2–12 m up).
    let valley = net.rivers.iter().find(|r| r.order == 1 && r.source[0] < 60.0).expect("the valley's river");
    let lowland: Vec<_> = valley.course.iter().filter(|p| p.x >= 70.0).collect();
    let on_plain = lowland.iter().filter(|p| p.y >= 140.0).count();
    assert!(on_plain * 4 >= lowland.len() * 3, "{on_plain} of {} lowland points on the plain", lowland.len());
    let nearest =
        valley.course.iter().map(|p| ((p.x - t.x).powi(2) + (p.y - t.y).powi(2)).sqrt()).fold(f32::MAX, f32::min);
    assert!(nearest < 20.0, "the route passes the town {nearest} px away");
    assert_courses_keep_off_the_town(&net, t, n, mpp);
    on.rivers = Some(net);
    assert_river_rules(&on, &off);
}

/// SPEC §2 "Drainage" and "Plan": a lake a river cannot leave ends it, and at most `lakeRivers`
/// main rivers end in lakes. A slope falls 60 m to the sea with three valleys, each running into a
/// lake: two lakes of 441 px halfway down (over `endorheicMinArea`, 262 px here) and a small one
/// by the shore standing 0.8 m above the sea (under the 1.1 m of a river's least bed and depth
/// above it, so no river could leave it). With `lakeRivers` 2, two main rivers end in lakes, the
/// low lake's among them (its valley drains the most); the others reach the sea.
#[test]
fn lakes_a_river_cannot_leave_end_it_and_lake_rivers_are_limited() {
    use forge::rivers::{Inputs, RiverDials, run};
    let n = 256usize;
    let (sea, mpr, mpp) = (SEA_LEVEL_RAW, 251.0f32, 4.0f32);
    // (centre, radius px, level m above the sea); body ids 2, 3, 4.
    let lakes = [([120.0f32, 48.0f32], 12.0f32, 27.0f32), ([120.0, 128.0], 12.0, 27.0), ([228.0, 208.0], 5.0, 0.8)];
    let lake_at = |x: usize, y: usize| {
        lakes.iter().position(|&([cx, cy], r, _)| (x as f32 - cx).powi(2) + (y as f32 - cy).powi(2) <= r * r)
    };
    let ground_m = |x: usize, y: usize| {
        if x >= 236 {
            return -1.0 - 0.5 * (x - 236) as f32;
        }
        if let Some(k) = lake_at(x, y) {
            let ([cx, cy], r, level) = lakes[k];
            let d2 = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)) / (r * r);
            return level - 0.2 - (1.0 - d2);
        }
        let side = [48.0f32, 128.0, 208.0].iter().map(|&v| (y as f32 - v).abs()).fold(f32::INFINITY, f32::min);
        60.0 - 0.25 * x as f32 + 0.2 * side + ((x * 7 + y * 13) % 5) as f32 / 5.0
    };
    let h: Vec<f32> = (0..n * n).map(|i| sea + ground_m(i / n, i % n) / mpr).collect();
    let mut off = river_island(h, mpp, [246.0, 128.0], vec![]);
    let w = off.water.as_mut().unwrap();
    let mut bodies = w.bodies.take().unwrap();
    for (k, &([cx, cy], _, level_m)) in lakes.iter().enumerate() {
        let id = k as u16 + 2;
        let level = sea + level_m / mpr;
        let mut count = 0;
        for i in 0..n * n {
            if lake_at(i / n, i % n) == Some(k) {
                w.body_ids[i] = id;
                w.surface.as_mut().unwrap()[i] = water_level::encode(level);
                off.biomes[i] = blueprint::Biome::Lake as u8;
                count += 1;
            }
        }
        bodies.push(blueprint::WaterBody {
            id,
            kind: blueprint::WaterType::Lake,
            salinity: blueprint::Salinity::Fresh,
            surface_level_raw: level,
            pixel_count: count,
            centroid_x: cx,
            centroid_y: cy,
        });
    }
    w.bodies = Some(bodies);
    let mut on = off.clone();
    let dials = RiverDials { lake_rivers: 2, min_length_m: 200.0, ..RiverDials::default() };
    let min_area = (dials.endorheic_min_area * (n * n) as f32) as i32;
    let counts: Vec<i32> =
        off.water.as_ref().unwrap().bodies.as_ref().unwrap()[1..].iter().map(|b| b.pixel_count).collect();
    assert!(
        counts[0] >= min_area && counts[1] >= min_area && counts[2] < min_area,
        "lakes {counts:?}, the dial {min_area} px"
    );
    let inp = Inputs { n, sea, mpr, mpp, towns: &[], crater: None };
    let (net, _) = run(&dials, &inp, &mut on.heights_raw, on.water.as_mut().unwrap(), &mut on.biomes).unwrap();
    let mouths: Vec<u16> = net.rivers.iter().filter(|r| r.order == 1).map(|r| r.mouth_body_id).collect();
    let into_lakes = mouths.iter().filter(|&&m| m != OCEAN_BODY_ID).count();
    assert_eq!(into_lakes, 2, "main rivers into lakes, the dial 2 and three lakes fed: mouths {mouths:?}");
    assert!(mouths.contains(&4), "the low lake ends the river of its valley: mouths {mouths:?}");
    // No course runs on through the low lake: a river that reaches it ends there.
    for r in &net.rivers {
        let inside = r.course.iter().filter(|p| lake_at(p.x as usize, p.y as usize) == Some(2)).count();
        assert!(inside <= 1, "body {} crosses the low lake ({inside} course points in it)", r.body_id);
    }
    on.rivers = Some(net);
    assert_river_rules(&on, &off);
}

/// SPEC §2 rivers on the default island: at least three rivers of 1 km or more from the highland
/// (their sources at least 100 m above sea) to the sea or a lake, and every guard holds against
/// the island forged with rivers off.
#[test]
fn the_default_island_has_three_rivers_of_a_kilometre_from_the_highland() {
    let on = &forged(ISLAND_1024_SEED, 1024).blueprint;
    let mut dials = ForgeDials::new(ISLAND_1024_SEED, 1024);
    dials.rivers = None;
    let off = forge::forge(&dials, |_| {}).unwrap();
    let lengths = assert_river_rules(on, &off);
    let net = on.rivers.as_ref().unwrap();
    let n = on.n();
    let long: Vec<_> = net
        .rivers
        .iter()
        .filter(|r| r.order == 1 && r.length_m >= 1000.0)
        .filter(|r| {
            let i = r.source[0] as usize * n + r.source[1] as usize;
            (on.heights_raw[i] - SEA_LEVEL_RAW) * on.params.metres_per_raw >= 100.0
        })
        .collect();
    assert!(long.len() >= 3, "rivers of 1 km from the highland: {} (lengths {lengths:?})", long.len());
    for r in long {
        let mouth = on.water.as_ref().unwrap().body(r.mouth_body_id).unwrap();
        assert!(mouth.id == OCEAN_BODY_ID || mouth.id < net.rivers[0].body_id, "ends in the sea or a lake");
    }
}

/// Road rules checked from outside (SPEC §2 "Roads"): every road joins two towns; every town is
/// reachable from the capitol over the roads; no point lies on water outside a bridge span, and
/// every span lies over a river (never the sea or a lake). Returns (roads, bridges).
fn assert_road_rules(bp: &blueprint::Blueprint) -> (usize, usize) {
    let n = bp.n();
    let towns = bp.towns.as_ref().unwrap();
    let net = bp.roads.as_ref().expect("a ROAD section");
    let w = bp.water.as_ref().unwrap();
    let first_river = bp.first_river_body_id();
    let id_at = |p: [f32; 2]| w.body_ids[(p[0] as usize).min(n - 1) * n + (p[1] as usize).min(n - 1)];
    let mut adj = vec![Vec::new(); towns.len()];
    let mut bridges = 0;
    for (k, r) in net.roads.iter().enumerate() {
        let (a, b) = (r.from_town as usize, r.to_town as usize);
        assert!(a < towns.len() && b < towns.len(), "road {k} joins two towns");
        assert_eq!(r.points[0], [towns[a].x, towns[a].y], "road {k} starts at its town");
        assert_eq!(*r.points.last().unwrap(), [towns[b].x, towns[b].y], "road {k} ends at its town");
        adj[a].push(b);
        adj[b].push(a);
        for (i, &p) in r.points.iter().enumerate() {
            let id = id_at(p);
            let bridged = r.bridges.iter().any(|s| (s[0] as usize..=s[1] as usize).contains(&i));
            assert!(
                id == 0 || (bridged && id >= first_river),
                "road {k} point {i} on water body {id} (bridge {bridged})"
            );
        }
        for s in &r.bridges {
            assert!(
                (s[0]..=s[1]).any(|i| id_at(r.points[i as usize]) >= first_river),
                "road {k}: a bridge over a river"
            );
        }
        bridges += r.bridges.len();
    }
    let capitol = towns.iter().position(|t| t.tier == blueprint::TownTier::Capitol).unwrap();
    let mut seen = vec![false; towns.len()];
    let mut stack = vec![capitol];
    seen[capitol] = true;
    while let Some(t) = stack.pop() {
        for &u in &adj[t] {
            if !seen[u] {
                seen[u] = true;
                stack.push(u);
            }
        }
    }
    let unreached: Vec<usize> = (0..towns.len()).filter(|&i| !seen[i]).collect();
    assert!(unreached.is_empty(), "towns unreachable from the capitol: {unreached:?}");
    (net.roads.len(), bridges)
}

/// SPEC §2 roads on the default island: every town reachable from the capitol, no road point on
/// water off a bridge, bridges only over rivers; and there are highways and bridges to test.
#[test]
fn every_default_town_is_reachable_by_road_and_roads_keep_off_the_water() {
    let bp = &forged(ISLAND_1024_SEED, 1024).blueprint;
    let (roads, bridges) = assert_road_rules(bp);
    assert_eq!(roads, bp.towns.as_ref().unwrap().len() - 1, "a tree: one road per town but the capitol");
    assert!(bridges > 0, "the default island's roads cross its rivers");
    let net = bp.roads.as_ref().unwrap();
    assert!(net.roads.iter().any(|r| r.tier == blueprint::RoadTier::Highway));
}

/// The same rules on random seeds (256² islands of 16 m pixels, the default island's shape).
#[test]
fn roads_join_every_town_on_random_seeds() {
    for seed in [3, 11, 29, 101] {
        let mut dials = ForgeDials::new(seed, 256);
        dials.metres_per_pixel = 16.0;
        let f = forge::forge_full(&dials, |_| {}).unwrap();
        assert!(f.summary.roads.as_ref().unwrap().unreachable.is_empty(), "seed {seed}");
        assert_road_rules(&f.blueprint);
    }
}

/// SPEC §2 islets as rocks: every islet of the default island rises to a rounded,
/// rough top rather than a flat one (few of its pixels within a metre of its highest), has a
/// beach of its own, and there are both low domes and tall stacks.
#[test]
fn islets_are_domes_and_stacks_with_beaches_not_flat_tops() {
    let bp = &forged(ISLAND_1024_SEED, 1024).blueprint;
    let n = bp.n();
    let (sea, mpr) = (bp.params.sea_level_raw, bp.params.metres_per_raw);
    let dry = |i: usize| bp.heights_raw[i] >= sea;
    let mut label = vec![0u32; n * n];
    let mut islands: Vec<Vec<usize>> = Vec::new();
    for s in 0..n * n {
        if label[s] != 0 || !dry(s) {
            continue;
        }
        let id = islands.len() as u32 + 1;
        let mut members = vec![s];
        label[s] = id;
        let mut k = 0;
        while k < members.len() {
            let i = members[k];
            k += 1;
            let (x, y) = (i / n, i % n);
            for j in [i.wrapping_sub(n), i + n, i.wrapping_sub(1), i + 1] {
                let ok = j < n * n && (j / n).abs_diff(x) + (j % n).abs_diff(y) == 1;
                if ok && label[j] == 0 && dry(j) {
                    label[j] = id;
                    members.push(j);
                }
            }
        }
        islands.push(members);
    }
    islands.sort_by_key(|m| std::cmp::Reverse(m.len()));
    let islets: Vec<&Vec<usize>> = islands.iter().skip(1).filter(|m| m.len() >= 20).collect();
    assert!(islets.len() >= 3, "{} islets", islets.len());
    let (mut domes, mut stacks, mut with_beach) = (0, 0, 0);
    for m in &islets {
        let top = m.iter().map(|&i| (bp.heights_raw[i] - sea) * mpr).fold(f32::MIN, f32::max);
        let near_top = m.iter().filter(|&&i| (bp.heights_raw[i] - sea) * mpr > top - 1.0).count();
        assert!(near_top * 4 <= m.len(), "an islet of {} px has {near_top} px within 1 m of its top", m.len());
        with_beach += m.iter().any(|&i| bp.biomes[i] == blueprint::Biome::Beach as u8) as usize;
        if top < 30.0 {
            domes += 1;
        } else if top > 40.0 {
            stacks += 1;
        }
    }
    assert_eq!(with_beach, islets.len(), "every islet has a beach");
    assert!(domes > 0 && stacks > 0, "domes {domes}, stacks {stacks}");
}

/// How far the rivers lowered the terrain outside every channel — the shoulders — on `on` against
/// the same island with rivers off: the deepest cut (m) and where. A column is in a channel
/// within the half-width of any course point (`RIVR` widths), in a shoulder within twice it.
fn deepest_shoulder_cut(on: &blueprint::Blueprint, off: &blueprint::Blueprint) -> (f32, [usize; 2]) {
    let n = on.n();
    let mpp = on.params.metres_per_pixel;
    let (mut channel, mut shoulder) = (vec![false; n * n], vec![false; n * n]);
    for p in on.rivers.as_ref().expect("rivers").rivers.iter().flat_map(|r| &r.course) {
        let hw = p.width_m / 2.0 / mpp;
        let reach = (2.0 * hw).ceil() as i64 + 1;
        let (cx, cy) = (p.x as i64, p.y as i64);
        for x in (cx - reach).max(0)..=(cx + reach).min(n as i64 - 1) {
            for y in (cy - reach).max(0)..=(cy + reach).min(n as i64 - 1) {
                let d = (x as f32 - p.x).hypot(y as f32 - p.y);
                let i = x as usize * n + y as usize;
                channel[i] |= d <= hw;
                shoulder[i] |= d <= 2.0 * hw;
            }
        }
    }
    let mut worst = (0f32, [0, 0]);
    for i in (0..n * n).filter(|&i| shoulder[i] && !channel[i]) {
        let cut = (off.heights_raw[i] - on.heights_raw[i]) * on.params.metres_per_raw;
        if cut > worst.0 {
            worst = (cut, [i / n, i % n]);
        }
    }
    worst
}

/// SPEC §2 rivers: a river's shoulder never cuts a terrace riser back by more than the channel
/// needs — outside the channel no column is lowered by more than the deepest channel the dials
/// make, 7 m (`(1 + 3 × 2) m` × `depthScale`), so a river falling down a riser cuts a steep chute,
/// not a notch. On the default island and on `small.dat`'s recipe (256², 16 m columns). Measured
/// 2026-12-02: 6.4 m and 4.8 m; with the shoulder blending to the rim whatever it cuts (before),
/// 19.3 m at (376, 653) and 46.3 m at (87, 103).
#[test]
fn a_river_shoulder_cuts_no_deeper_than_its_channel() {
    let deepest_channel_m = (1.0 + 3.0 * 2.0) * forge::rivers::RiverDials::default().depth_scale;
    for (size, mpp) in [(1024u32, 4.0f32), (256, 16.0)] {
        let mut dials = ForgeDials::new(ISLAND_1024_SEED, size);
        dials.metres_per_pixel = mpp;
        let on =
            if size == 1024 { forged(ISLAND_1024_SEED, size).blueprint.clone() } else { forged_with(&dials).blueprint };
        dials.rivers = None;
        let off = forge::forge(&dials, |_| {}).unwrap();
        let (cut, at) = deepest_shoulder_cut(&on, &off);
        eprintln!("{size}²: the deepest shoulder cut is {cut:.2} m at {at:?}");
        assert!(cut <= deepest_channel_m, "{size}²: a shoulder cuts {cut:.2} m at {at:?}");
    }
}

/// SPEC §2's river guards on the maps: each map the river stage may not make — the ocean's
/// record or pixels changed, a below-sea height changed or a new one made, a town on water, the
/// crater core changed, BIOM against WBID, a river level under its ground — is refused with its
/// guard's message, and the untouched map passes. (The stage never makes one, so a forge alone
/// cannot show that a guard fires.)
#[test]
fn the_river_guards_refuse_each_map_the_stage_may_not_make() {
    use isla::blueprint::{Biome, Water};
    // The repository's island: rivers, towns and a crater (the forge at 256² makes no river).
    let bp = &blueprint::read_file(&repo(DEFAULT_ISLAND)).unwrap();
    let n = bp.n();
    let towns = bp.towns.clone().unwrap_or_default();
    let p = &bp.params;
    assert!(p.crater_radius > 0.0, "a crater");
    let crater = forge::Crater { x: p.crater_x, y: p.crater_y, radius_px: p.crater_radius };
    let site = forge::Site {
        n,
        sea: SEA_LEVEL_RAW,
        mpr: bp.params.metres_per_raw,
        mpp: bp.params.metres_per_pixel,
        towns: &towns,
        crater: Some(&crater),
    };
    let first_river = bp.rivers.as_ref().expect("rivers").first_body_id();
    let (render, water, biomes) = (&bp.heights_raw, bp.water.as_ref().unwrap(), &bp.biomes);
    let guard = forge::RiverGuard::take(&site, render, water);
    let check = |r: &[f32], w: &Water, b: &[u8]| guard.check(&site, r, w, b, first_river).map_err(|e| e.to_string());
    assert_eq!(check(render, water, biomes), Ok(()), "the maps the guard was taken on");
    let refused = |what: &str, got: Result<(), String>, says: &str| {
        assert!(matches!(&got, Err(m) if m.contains(says)), "{what}: expected \"{says}\", got {got:?}");
    };
    let sea = SEA_LEVEL_RAW;
    let dry_land = |i: usize| {
        water.body_ids[i] == 0
            && render[i] > sea + 1.0
            && crater.distance(i / n, i % n) > 2.0 * crater.carve_radius_px()
    };

    // 1. The ocean's record, its pixels (first, middle and last of them) and the sea floor.
    let mut w = water.clone();
    w.bodies.as_mut().unwrap().iter_mut().find(|b| b.id == OCEAN_BODY_ID).unwrap().surface_level_raw += 0.5;
    refused("the ocean's level", check(render, &w, biomes), "the ocean body's WBTB record changed");
    let ocean: Vec<usize> = (0..n * n).filter(|&i| water.body_ids[i] == OCEAN_BODY_ID).collect();
    for i in [ocean[0], ocean[ocean.len() / 2], ocean[ocean.len() - 1]] {
        let mut w = water.clone();
        w.body_ids[i] = 0;
        refused(&format!("ocean pixel {i} dried"), check(render, &w, biomes), "the ocean's pixels changed");
    }
    let dry = (0..n * n).find(|&i| dry_land(i)).unwrap();
    let mut w = water.clone();
    w.body_ids[dry] = OCEAN_BODY_ID;
    refused("a dry pixel flooded", check(render, &w, biomes), "the ocean's pixels changed");
    w.body_ids[ocean[ocean.len() / 2]] = 0;
    refused("an ocean pixel moved (the same count)", check(render, &w, biomes), "the ocean's pixels changed");
    let floor: Vec<usize> = (0..n * n).filter(|&i| render[i] < sea).collect();
    for i in [floor[0], floor[floor.len() / 2], floor[floor.len() - 1]] {
        let mut r = render.clone();
        r[i] -= 0.25;
        refused(
            &format!("sea floor pixel {i} lowered"),
            check(&r, water, biomes),
            "a below-sea pixel changed or appeared",
        );
    }
    let (a, b) = (floor[0], *floor.iter().find(|&&i| render[i] != render[floor[0]]).unwrap());
    let mut r = render.clone();
    r.swap(a, b);
    refused("two sea floor heights swapped", check(&r, water, biomes), "a below-sea pixel changed or appeared");
    let mut r = render.clone();
    r[dry] = sea - 0.5;
    refused("a dry pixel sunk under the sea", check(&r, water, biomes), "a below-sea pixel changed or appeared");

    // 3. A town on water (a river's id under it).
    let t = &towns[0];
    let ti = (t.x.round() as usize).min(n - 1) * n + (t.y.round() as usize).min(n - 1);
    let mut w = water.clone();
    w.body_ids[ti] = first_river;
    refused("a town on a river", check(render, &w, biomes), "is on water");

    // 4. The crater core: above-sea pixels of it (below-sea ones trip guard 1 first), the one
    // nearest the centre and the one nearest the core's edge.
    let core: Vec<usize> =
        (0..n * n).filter(|&i| crater.distance(i / n, i % n) <= crater.carve_radius_px() && render[i] > sea).collect();
    assert!(!core.is_empty(), "the crater core has dry pixels");
    let d = |i: &usize| crater.distance(i / n, i % n);
    let inner = *core.iter().min_by(|a, b| d(a).total_cmp(&d(b))).unwrap();
    let outer = *core.iter().max_by(|a, b| d(a).total_cmp(&d(b))).unwrap();
    for i in [inner, outer] {
        let mut r = render.clone();
        r[i] += 0.25;
        refused(&format!("crater core pixel {i} raised"), check(&r, water, biomes), "the crater core changed");
    }

    // The core is the carve's extent and no more: the stage may change dry land just outside it.
    let beside = (0..n * n)
        .filter(|&i| water.body_ids[i] == 0 && render[i] > sea && d(&i) > crater.carve_radius_px())
        .min_by(|a, b| d(a).total_cmp(&d(b)))
        .unwrap();
    assert!(d(&beside) < crater.carve_radius_px() + 2.0, "dry land just outside the core: {}", d(&beside));
    let mut r = render.clone();
    r[beside] += 0.25;
    assert_eq!(check(&r, water, biomes), Ok(()), "a dry pixel just outside the crater core may change");

    // 5. BIOM against WBID, and a river pixel's level under its ground.
    let mut b = biomes.clone();
    b[dry] = Biome::Lake as u8;
    refused("a dry pixel marked lake", check(render, water, &b), "BIOM and WBID disagree");
    let ri = (0..n * n).find(|&i| water.body_ids[i] >= first_river).expect("a river pixel");
    let level = water_level::decode(water.surface.as_ref().unwrap()[ri]).unwrap();
    let mut r = render.clone();
    r[ri] = level + 0.1;
    refused("a river bed over its level", check(&r, water, biomes), "a river pixel's level is not above its ground");
}
