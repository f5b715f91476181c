//! The forge's dials by name (SPEC §2 "Dials") and `isla diff`'s comparison (SPEC §9), on small
//! islands: each test names the rule it protects.

use isla::blueprint::{self, DialRecord, DialValue};
use isla::diff::{SectionState, diff_files};
use isla::forge::dials::{self, DIALS, DialsError};
use isla::forge::{ErosionDials, ForgeDials};

const SIZE: u32 = 192;

fn out(name: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-output/dials");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Forge `d` and write it to `name` under the test output.
fn forge_to(d: &ForgeDials, name: &str) -> std::path::PathBuf {
    let bp = isla::forge::forge(d, |_| {}).unwrap();
    let path = out(name);
    blueprint::write_file_atomic(&path, &bp).unwrap();
    path
}

fn parse(text: &str) -> Result<ForgeDials, DialsError> {
    dials::parse_toml("d.toml", text).map(|v| dials::build(&v))
}

/// The full default file (`isla forge --print-dials`) lists every dial once, each default inside
/// its own range, and reads back to the defaults and to the same text.
#[test]
fn the_default_dials_file_round_trips() {
    let d = ForgeDials::new(7, 256);
    let text = dials::to_toml(&d);
    let keys = text.lines().filter(|l| !l.starts_with('#') && l.contains(" = ")).count();
    assert_eq!(keys, DIALS.len(), "{text}");
    for dial in DIALS {
        assert_eq!(dial.check(dial.default_value()), Ok(dial.default_value()), "{}", dial.key);
    }
    let back = parse(&text).unwrap();
    assert_eq!(back, d);
    assert_eq!(dials::to_toml(&back), text);
    // An empty file is the defaults too, and so is a record's round trip.
    assert_eq!(parse("").unwrap(), d);
    let rec = dials::record(&d);
    assert_eq!(dials::build(&dials::from_record("x.dat", &rec).unwrap()), d);
}

/// Dials off their defaults, every stage switched, survive the file and the record exactly.
#[test]
fn changed_dials_round_trip_through_the_file_and_the_record() {
    let mut d = ForgeDials::new(-12, 512);
    d.metres_per_pixel = 2.5;
    d.shape.sea_level_m = 3.25;
    d.shape.coast_shelf = false;
    d.curve.knots[2] = 0.41;
    d.detail = None;
    d.erosion =
        Some(ErosionDials { lifetime: 40, droplet_count: 1234, crater_feather: false, ..ErosionDials::new(512) });
    d.rivers = None;
    d.towns.max_towns = 9;
    d.roads.as_mut().unwrap().turn_m = 0.1 + 0.2; // not a short decimal: the float must survive
    let text = dials::to_toml(&d);
    assert_eq!(parse(&text).unwrap(), d, "{text}");
    let rec = dials::record(&d);
    assert!(rec.get("rivers.enabled") == Some(DialValue::Bool(false)) && rec.get("rivers.trunks").is_none());
    assert_eq!(dials::build(&dials::from_record("x.dat", &rec).unwrap()), d);
    // Erosion's droplets default to one per eight pixels of the map the file is forged at.
    let auto = parse("size = 1024\n[erosion]\nenabled = true\n").unwrap();
    assert_eq!(auto.erosion.unwrap().droplet_count, ErosionDials::new(1024).droplet_count);
}

/// Each refusal is one line naming the file, the key and the allowed range or type.
#[test]
fn bad_dials_files_are_refused_naming_the_file_the_key_and_the_range() {
    let cases: [(&str, &[&str]); 8] = [
        ("[shape]\naxiz_x = 0.5\n", &["d.toml", "unknown key 'shape.axiz_x'"]),
        ("[shapes]\naxis_x = 0.5\n", &["d.toml", "unknown table [shapes]"]),
        ("colour = 3\n", &["d.toml", "unknown key 'colour'"]),
        ("[shape]\naxis_x = 3.5\n", &["d.toml", "shape.axis_x = 3.5", "0.05..=1.0"]),
        ("size = 20\n", &["d.toml", "size = 20", "32..=16384"]),
        ("[shape]\naxis_x = \"wide\"\n", &["d.toml", "shape.axis_x must be a number in 0.05..=1.0, not a string"]),
        ("[rivers]\ntrunks = 2.5\n", &["d.toml", "rivers.trunks must be a whole number in 0..=64, not a float"]),
        ("[curve]\nknot_bench_start = 0.05\n", &["d.toml", "curve.knot_bench_start = 0.05", "must be above"]),
    ];
    for (text, wants) in cases {
        let e = parse(text).expect_err(text).0;
        assert!(!e.contains('\n'), "one line: {e}");
        for w in wants {
            assert!(e.contains(w), "{text:?}: {e:?} lacks {w:?}");
        }
    }
    let e = parse("[shape\naxis_x = 1").unwrap_err().0;
    assert!(e.starts_with("d.toml:1:") && !e.contains('\n'), "{e}");
    // A record is checked as a file is: a key a newer forge wrote, a value out of range.
    let rec = DialRecord { dials: vec![("shape.colour".into(), DialValue::Float(1.0))] };
    assert!(dials::from_record("old.dat", &rec).unwrap_err().0.contains("old.dat: DIAL: unknown key 'shape.colour'"));
    let rec = DialRecord { dials: vec![("crater.radius_frac".into(), DialValue::Float(0.5))] };
    assert!(dials::from_record("old.dat", &rec).unwrap_err().0.contains("0.0..=0.2"));
}

/// A file against itself: every section equal, nothing changed, no dial differs.
#[test]
fn a_blueprint_diffed_against_itself_is_equal() {
    let a = forge_to(&ForgeDials::new(7, SIZE), "self.dat");
    let c = diff_files(&a, &a).unwrap();
    let d = &c.diff;
    assert!(d.equal);
    assert!(d.sections.iter().all(|s| s.state == SectionState::Equal) && d.sections.iter().any(|s| s.tag == "DIAL"));
    assert_eq!(d.heights.as_ref().unwrap().changed_pixels, 0);
    let w = d.water.as_ref().unwrap();
    assert!(
        w.wet_gained == 0 && w.wet_lost == 0 && w.added.is_empty() && w.removed.is_empty() && w.relevelled.is_empty()
    );
    assert!(d.roads.is_empty() && d.roads.unchanged == d.roads.a_count && d.rivers.is_empty());
    assert!(d.towns.added.is_empty() && d.towns.removed.is_empty());
    assert_eq!(d.dials.as_deref(), Some(&[][..]));
}

/// Raising the sea drowns the coast: wet pixels gained (more than lost), the ground lower, and
/// the one dial changed is the one `diff` names.
#[test]
fn sea_level_shows_in_diff_as_wet_pixels_gained() {
    let a = forge_to(&ForgeDials::new(7, SIZE), "sea-0.dat");
    let mut d = ForgeDials::new(7, SIZE);
    d.shape.sea_level_m = 8.0;
    let b = forge_to(&d, "sea-8.dat");
    let c = diff_files(&a, &b).unwrap().diff;
    assert!(!c.equal);
    let w = c.water.as_ref().unwrap();
    assert!(w.wet_gained > 10 * w.wet_lost.max(1), "gained {} lost {}", w.wet_gained, w.wet_lost);
    assert!(c.heights.as_ref().unwrap().largest_fall_m > 1.0);
    let changed = |t: &str| c.sections.iter().any(|s| s.tag == t && s.state == SectionState::Changed);
    assert!(changed("HGTS") && changed("WBID") && changed("DIAL"));
    let keys: Vec<&str> = c.dials.as_ref().unwrap().iter().map(|x| x.key.as_str()).collect();
    assert_eq!(keys, ["shape.sea_level_m"]);
}

/// A lower planned grade re-routes the roads and nothing else: the same towns, ground and water,
/// the roads' ends kept and their courses changed.
#[test]
fn road_grade_shows_in_diff_as_roads_rerouted() {
    let a = forge_to(&ForgeDials::new(7, SIZE), "grade-default.dat");
    let mut d = ForgeDials::new(7, SIZE);
    let r = d.roads.as_mut().unwrap();
    (r.highway_grade, r.road_grade) = (0.02, 0.03);
    let b = forge_to(&d, "grade-low.dat");
    let c = diff_files(&a, &b).unwrap().diff;
    assert!(!c.equal);
    assert_eq!(c.heights.as_ref().unwrap().changed_pixels, 0);
    assert!(c.roads.added.is_empty() && c.roads.removed.is_empty(), "{:?}", c.roads);
    assert!(c.roads.rerouted.len() * 2 >= c.roads.a_count, "{:?}", c.roads);
    for s in &c.sections {
        let expect = if s.tag == "ROAD" || s.tag == "DIAL" { SectionState::Changed } else { SectionState::Equal };
        assert_eq!(s.state, expect, "{}", s.tag);
    }
    let keys: Vec<&str> = c.dials.as_ref().unwrap().iter().map(|x| x.key.as_str()).collect();
    assert_eq!(keys, ["roads.highway_grade", "roads.road_grade"]);
}

proptest::proptest! {
    /// Any float a dial accepts reads back from the file bit for bit (the file writes the
    /// shortest decimal that names the f32; TOML reads it as an f64, narrowed once). The knots
    /// and the shelf spans are left out: they are also checked against each other.
    #[test]
    fn any_float_dial_value_survives_the_file(bits in proptest::prelude::any::<u32>(), which in 0usize..1000) {
        let together = |k: &str| k.starts_with("curve.knot") || k.starts_with("curve.shelf_span");
        let floats: Vec<_> =
            DIALS.iter().filter(|d| matches!(d.kind, dials::Kind::Float { .. }) && !together(d.key)).collect();
        let dial = floats[which % floats.len()];
        let dials::Kind::Float { lo, hi } = dial.kind else { unreachable!() };
        let x = f32::from_bits(bits);
        let v = if x.is_finite() { lo + (hi - lo) * (x.abs() / f32::MAX).sqrt().min(1.0) } else { lo };
        let mut values = dials::Values::new();
        dials::set_value(&mut values, "t", dial.key, DialValue::Float(v)).unwrap();
        if dial.key.starts_with("erosion.") {
            dials::set_value(&mut values, "t", "erosion.enabled", DialValue::Bool(true)).unwrap();
        }
        let d = dials::build(&values);
        let back = parse(&dials::to_toml(&d)).unwrap();
        proptest::prop_assert_eq!(dial.get(&back), Some(DialValue::Float(v)));
    }
}

/// Dials built in code are held to the same table: the forge refuses one out of its range, or
/// knots that do not rise, as bad dials before any stage runs.
#[test]
fn the_forge_refuses_dials_out_of_range_built_in_code() {
    let mut d = ForgeDials::new(7, 64);
    d.towns.max_towns = 500;
    let e = isla::forge::forge(&d, |_| {}).unwrap_err();
    assert!(
        matches!(e, isla::forge::ForgeError::BadDials(_)) && e.to_string().contains("towns.max_towns = 500"),
        "{e}"
    );
    let mut d = ForgeDials::new(7, 64);
    d.curve.knots.swap(1, 2);
    let e = isla::forge::forge(&d, |_| {}).unwrap_err();
    assert!(e.to_string().contains("curve.knot_bench_end"), "{e}");
}

/// The edges of the file rules, each as a user meets it: a syntax error names its line and
/// column; an out-of-range value names the dial's unit; equal shelf spans are allowed and crossed
/// ones are not; `erosion.droplet_count = 0` means one droplet per eight pixels of the size given;
/// a file of exactly the size limit is read and one byte more is refused.
#[test]
fn the_dials_file_rules_hold_at_their_edges() {
    let e = parse("seed = 7\n\n[shape]\nsea_level_m = = 3\n").unwrap_err().to_string();
    assert!(e.starts_with("d.toml:4:"), "{e}");
    let col: usize = e.split(':').nth(2).unwrap().parse().unwrap();
    assert_eq!(col, 15, "the second = is the 15th character of its line: {e}");
    let e = parse("[shape]\nsea_level_m = 9999.0\n").unwrap_err().to_string();
    assert!(e.contains("(metres)"), "{e}");
    let span = |lo: f32, hi: f32| {
        parse(&format!("[curve]\nshelf_span_min_m = {lo:?}\nshelf_span_max_m = {hi:?}\n")).map(|_| ())
    };
    let max = ForgeDials::new(7, 256).curve.shelf_span_max_m;
    assert_eq!(span(max, max), Ok(()), "equal spans are allowed");
    assert!(span(max, max * 0.9).is_err(), "crossed spans are refused");
    for size in [256u32, 512] {
        let d = parse(&format!("size = {size}\n[erosion]\nenabled = true\ndroplet_count = 0\n")).unwrap();
        let want = ErosionDials::new(size).droplet_count;
        assert!(want > 1, "{want}");
        assert_eq!(d.erosion.unwrap().droplet_count, want, "size {size}");
    }
    let limit = dials::MAX_DIALS_FILE_BYTES as usize;
    let path = out("limit.toml");
    let body = "seed = 7\n";
    std::fs::write(&path, format!("{body}{}\n", "#".repeat(limit - body.len() - 1))).unwrap();
    assert!(dials::load_toml(&path).is_ok(), "a file of exactly the limit is read");
    std::fs::write(&path, format!("{body}{}\n", "#".repeat(limit - body.len()))).unwrap();
    let e = dials::load_toml(&path).unwrap_err().to_string();
    assert!(e.contains("at most"), "{e}");
}

/// The heights part of `diff` against a hand-made change: three pixels moved by known metres
/// give that count and share, the largest rise and fall in metres, and the pixel of each; the
/// sections that hold them changed and the others equal.
#[test]
fn diff_reports_the_heights_that_moved_by_how_much_and_where() {
    use isla::blueprint::testing::cone_island;
    let a = cone_island(64);
    let mut b = a.clone();
    let mpr = a.params.metres_per_raw;
    let n = a.map_size as usize;
    for (x, y, metres) in [(5usize, 7usize, 2.0f32), (10, 2, -3.0), (1, 1, 1.0)] {
        b.heights_raw[x * n + y] += metres / mpr;
    }
    let (pa, pb) = (out("heights-a.dat"), out("heights-b.dat"));
    blueprint::write_file_atomic(&pa, &a).unwrap();
    blueprint::write_file_atomic(&pb, &b).unwrap();
    let d = diff_files(&pa, &pb).unwrap().diff;
    assert!(!d.equal);
    let h = d.heights.unwrap();
    assert_eq!(h.changed_pixels, 3);
    assert!((h.changed_share - 3.0 / (n * n) as f64).abs() < 1e-12, "{}", h.changed_share);
    assert!((h.largest_rise_m - 2.0).abs() < 0.01 && h.rise_at == [5, 7], "{h:?}");
    assert!((h.largest_fall_m - 3.0).abs() < 0.01 && h.fall_at == [10, 2], "{h:?}");
    let state = |tag: &str| d.sections.iter().find(|s| s.tag == tag).map(|s| s.state);
    assert_eq!(state("HGTS"), Some(SectionState::Changed));
    assert_eq!(state("PRMS"), Some(SectionState::Equal));
}

/// SPEC §2 "Dials": every seed in the advertised range `i32::MIN..=i32::MAX` forges, the small
/// negative ones included (their noise octaves are seeded `seed + octave`, which must wrap, not
/// overflow), whether it comes from the dials built in code or from a dials file's `seed` key.
#[test]
fn every_seed_in_the_advertised_range_forges_from_code_and_from_a_dials_file() {
    let mut seeds = vec![-1, -2, -5, -7, i32::MIN, i32::MIN + 1, i32::MAX, i32::MAX - 1, 0, 1];
    // And a spread across the range (an LCG: the sample is fixed, not random per run).
    let mut x: u32 = 0x2545_F491;
    for _ in 0..6 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        seeds.push(x as i32);
    }
    for seed in seeds {
        let from_file = parse(&format!("seed = {seed}\nsize = 64\n")).unwrap();
        assert_eq!(from_file, ForgeDials::new(seed, 64), "seed {seed}");
        let bp = isla::forge::forge(&from_file, |_| {}).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(bp.seed, seed);
    }
}
