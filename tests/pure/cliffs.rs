//! Cliff/noise generator rules (SPEC §6), each test named after the rule it protects. Inputs are
//! small hand-written fields where possible; presets and a forged island where a rule is about them.

use isla::cliffs::*;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::sync::Mutex;

/// A field source from an elevation function (cliffiness everywhere 1: every edge may cross).
fn elevation_only(f: impl Fn(i64, i64) -> f32 + Sync) -> impl FieldSource {
    move |x: i64, y: i64| CornerSample { elevation: f(x, y), cliffiness: 1.0 }
}

/// A ramp rising east, `E = x + 2`: with [`ramp_settings`] (bands at 20, 60, 100 …) the only
/// crossings are between corner columns x = 16 and 20 (E 18 → 22), 56 and 60, …: a north-to-south
/// cliff in cell column 4, 14, 24 …
fn ramp() -> impl FieldSource {
    elevation_only(|x, _| x as f32 + 2.0)
}

fn ramp_settings() -> CliffSettings {
    plain(20.0, 40.0)
}

/// Settings with plain bands and no smoothing, for hand-written fields.
fn plain(e0: f32, interval: f32) -> CliffSettings {
    CliffSettings {
        elevation_0: e0,
        elevation_interval: interval,
        smoothing: 0.0,
        ..CliffSettings::preset(CliffPreset::Nauvis, 1)
    }
}

fn forged(seed: i32, size: u32) -> isla::blueprint::Blueprint {
    isla::forge::forge(&isla::forge::ForgeDials::new(seed, size), |_| {}).unwrap()
}

// ---------------------------------------------------------------- noise expressions

#[test]
fn string_seeds_hash_with_standard_crc32_nauvis_offset_x_is_593691028() {
    assert_eq!(crc32(b"nauvis_offset_x"), 593691028);
}

#[test]
fn string_seeds_hash_with_standard_crc32_nauvis_offset_y_is_1415852290() {
    assert_eq!(crc32(b"nauvis_offset_y"), 1415852290);
}

#[test]
fn crc32_is_zlibs_table_and_check_value() {
    assert_eq!([crc32_table_entry(0), crc32_table_entry(1), crc32_table_entry(2)], [0, 0x7707_3096, 0xEE0E_612C]);
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926, "the CRC-32 catalogue's check value");
    assert_eq!(crc32(b""), 0);
}

#[test]
fn a_string_seed1_is_its_crc32_as_a_number() {
    let named = BasisNoise::new(7, Seed1::Name("nauvis_offset_x"), 1.0 / 50.0, 1.0);
    let numbered = BasisNoise::new(7, Seed1::Number(593691028), 1.0 / 50.0, 1.0);
    for (x, y) in [(0.0, 0.0), (13.0, -7.0), (1000.5, 333.25)] {
        assert_eq!(named.get(x, y), numbered.get(x, y));
    }
    let other = BasisNoise::new(7, Seed1::Name("nauvis_offset_y"), 1.0 / 50.0, 1.0);
    assert!((0..50).any(|i| other.get(i as f64 * 7.0, 3.0) != named.get(i as f64 * 7.0, 3.0)));
}

#[test]
fn slider_to_linear_is_the_midpoint_at_1_and_the_ends_at_a_sixth_and_six() {
    assert!((slider_to_linear(1.0, -1.0, 1.0) - 0.0).abs() < 1e-12);
    assert!((slider_to_linear(6.0, -1.7, 1.7) - 1.7).abs() < 1e-12);
    assert!((slider_to_linear(1.0 / 6.0, -1.7, 1.7) + 1.7).abs() < 1e-12);
    // lo + 0.5·(hi − lo)·(1 + log2(v)/log2(6)) at v = 2.
    let v = 2f64;
    assert!((slider_to_linear(v, 0.0, 10.0) - 5.0 * (1.0 + 1.0 / 6f64.log2())).abs() < 1e-12);
}

#[test]
fn multioctave_noise_scales_input_and_output_per_octave() {
    let one = MultiOctaveNoise::with_persistence(3, Seed1::Number(9), 1, 0.5, 0.1, 2.0);
    let basis = BasisNoise::new(3, Seed1::Number(9), 0.1, 2.0);
    assert_eq!(one.get(12.0, 34.0), basis.get(12.0, 34.0), "a one-octave noise is its basis noise");
    let four = MultiOctaveNoise::with_persistence(3, Seed1::Number(9), 4, 0.5, 0.1, 2.0);
    assert_eq!(four.octaves(), 4);
    // Bounded by the sum of octave amplitudes (Perlin is within ±1): 2·(1 + .5 + .25 + .125).
    for i in 0..200 {
        assert!(four.get(i as f64 * 3.7, i as f64 * -1.3).abs() <= 3.75 + 1e-9);
    }
}

#[test]
fn island_and_vulcanus_cliffiness_is_continuous_in_half_to_one_and_a_half() {
    let c = BasicCliffiness::new(42, 1.0);
    let v: Vec<f32> = (0..4000).map(|i| c.get((i % 64) as f64 * 4.0, (i / 64) as f64 * 4.0)).collect();
    assert!(v.iter().all(|&x| (0.5..=1.5).contains(&x)));
    assert!(v.contains(&0.5) && v.contains(&1.5), "both clamp ends are reached");
    assert!(v.iter().any(|&x| x > 0.6 && x < 1.4), "and values between them: it is continuous");
    let none = BasicCliffiness::new(42, 0.0);
    assert!((0..100).all(|i| none.get(i as f64 * 4.0, 0.0) == 0.5), "richness 0 → log2 = −∞ → 0.5");
}

#[test]
fn nauvis_cliffiness_is_a_0_or_10_gate() {
    let f = NauvisFields::new(&CliffSettings::preset(CliffPreset::Nauvis, 123456));
    let v: Vec<f32> = (0..3000).map(|i| f.cliffiness((i % 60) as f64 * 8.0, (i / 60) as f64 * 8.0)).collect();
    assert!(v.iter().all(|&c| c == 0.0 || c == 10.0));
    assert!(v.contains(&0.0) && v.contains(&10.0));
}

#[test]
fn island_cliff_elevation_is_the_blueprints_render_height_in_metres() {
    let bp = forged(5, 64);
    let s = CliffSettings::for_blueprint(CliffPreset::Island, &bp);
    let f = PresetFields::new(&s, Some(&bp)).unwrap();
    for (x, y) in [(0u32, 0u32), (20, 36), (32, 32), (63, 1)] {
        assert_eq!(f.sample(x as i64, y as i64).elevation, bp.height_m(x, y));
    }
    // Off the map reads the nearest edge pixel.
    assert_eq!(f.sample(64, 70).elevation, bp.height_m(63, 63));
    assert!(matches!(PresetFields::new(&s, None), Err(FieldsError::NeedsBlueprint(CliffPreset::Island))));
}

#[test]
fn presets_carry_the_reference_band_constants() {
    let n = CliffSettings::preset(CliffPreset::Nauvis, 1);
    assert_eq!((n.elevation_0, n.elevation_interval, n.smoothing), (10.0, 40.0, 0.0));
    let v = CliffSettings::preset(CliffPreset::Vulcanus, 1);
    assert_eq!((v.elevation_0, v.elevation_interval, v.smoothing), (70.0, 120.0, 1.0));
    let bp = forged(5, 32);
    let i = CliffSettings::for_blueprint(CliffPreset::Island, &bp);
    let sea_m = bp.params.sea_level_raw * bp.params.metres_per_raw;
    assert_eq!((i.elevation_0, i.elevation_interval, i.smoothing), (sea_m + 40.0, 40.0, 1.0));
    assert_eq!(CliffPreset::from_name("VULCANUS"), Some(CliffPreset::Vulcanus));
}

#[test]
fn frequency_divides_the_interval_and_continuity_zero_places_nothing() {
    let mut s = CliffSettings::preset(CliffPreset::Nauvis, 9);
    s.frequency = 2.0;
    assert_eq!(s.effective_interval(), 20.0);
    let fields = NauvisFields::new(&s);
    let w = ChunkWindow::new(0, 0, 4, 4);
    assert!(place_cliffs(w, &s, &fields, None).stats.placed > 0);
    s.richness = 0.0;
    assert_eq!(place_cliffs(w, &s, &NauvisFields::new(&s), None).stats.placed, 0);
}

// ---------------------------------------------------------------- lattice

#[test]
fn corners_are_sampled_at_the_bare_lattice_chunk_times_32_plus_i_times_4() {
    let seen = Mutex::new(BTreeSet::new());
    let f = |x: i64, y: i64| {
        seen.lock().unwrap().insert((x, y));
        CornerSample::default()
    };
    place_cliffs(ChunkWindow::new(1, -1, 1, 1), &plain(0.0, 10.0), &f, None);
    let want: BTreeSet<(i64, i64)> = (0..9).flat_map(|i| (0..9).map(move |j| (32 + i * 4, -32 + j * 4))).collect();
    assert_eq!(*seen.lock().unwrap(), want, "9 × 9 corners, no offset on the samples");
    assert_eq!(corner_tile(1, -1, 8, 8), (64, 0));
}

#[test]
fn a_cliff_centre_is_at_plus_2_and_plus_2_5_in_its_cell() {
    assert_eq!(cell_centre_tiles(0, 0), (2.0, 2.5));
    assert_eq!(cell_centre_tiles(8 + 3, -8 + 5), (46.0, -9.5));
    let p = place_cliffs(ChunkWindow::new(0, 0, 2, 2), &ramp_settings(), &ramp(), None);
    assert!(!p.cliffs.is_empty());
    for c in &p.cliffs {
        let (x, y) = c.centre_tiles();
        assert_eq!((x.rem_euclid(4.0), y.rem_euclid(4.0)), (2.0, 2.5));
    }
}

#[test]
fn each_corner_is_evaluated_exactly_once_per_window_w_over_4_plus_1_squared() {
    for (w_chunks, h_chunks) in [(1u32, 1u32), (4, 4), (3, 2)] {
        let f = CountingFields::new(NauvisFields::new(&CliffSettings::preset(CliffPreset::Nauvis, 3)));
        let s = CliffSettings::preset(CliffPreset::Nauvis, 3);
        let p = place_cliffs(ChunkWindow::new(-2, 5, w_chunks, h_chunks), &s, &f, None);
        let (w, h) = (w_chunks as u64 * 32, h_chunks as u64 * 32);
        assert_eq!(f.evaluations(), (w / 4 + 1) * (h / 4 + 1));
        assert_eq!(p.stats.corner_evaluations, f.evaluations());
    }
}

// ---------------------------------------------------------------- crossing rule

#[test]
fn crossing_rule_no_crossing_when_a_corner_is_negative() {
    assert_eq!(crosses_cliff(-0.1, 50.0, 10.0, 10.0, 40.0), 0);
    assert_eq!(crosses_cliff(50.0, -0.1, 10.0, 10.0, 40.0), 0);
}

#[test]
fn crossing_rule_plus_1_rising_and_minus_1_falling_across_a_band_boundary() {
    // boundary = 10 + 40·floor((60 − 10)/40) = 50.
    assert_eq!(crosses_cliff(45.0, 60.0, 1.0, 10.0, 40.0), 1);
    assert_eq!(crosses_cliff(60.0, 45.0, 1.0, 10.0, 40.0), -1);
    assert_eq!(crosses_cliff(52.0, 60.0, 1.0, 10.0, 40.0), 0, "same band");
}

#[test]
fn crossing_rule_uses_the_boundary_below_the_higher_corner_only() {
    // Spanning several bands still gives one crossing, at 10 + 40·floor(90/40) = 90.
    assert_eq!(crosses_cliff(20.0, 100.0, 1.0, 10.0, 40.0), 1);
    // A corner exactly on the boundary is not strictly on either side.
    assert_eq!(crosses_cliff(50.0, 60.0, 1.0, 10.0, 40.0), 0);
    assert_eq!(crosses_cliff(45.0, 50.0, 1.0, 10.0, 40.0), 0);
}

#[test]
fn crossing_rule_none_when_the_boundary_falls_below_elevation_0() {
    // max 8 < e0 10: boundary = 10 + 40·floor(−0.05) = −30 < 10.
    assert_eq!(crosses_cliff(5.0, 8.0, 10.0, 10.0, 40.0), 0);
    assert_eq!(crosses_cliff(5.0, 12.0, 10.0, 10.0, 40.0), 1, "the e0 boundary itself crosses");
}

#[test]
fn crossing_rule_needs_average_cliffiness_above_one_half() {
    assert_eq!(crosses_cliff(45.0, 60.0, 0.5, 10.0, 40.0), 0, "the gate is > 0.5, not ≥");
    assert_eq!(crosses_cliff(45.0, 60.0, 0.5001, 10.0, 40.0), 1);
    // Through the placer: corners 0 and 10 (Nauvis gate) average 5 → crosses; both 0 → not.
    let ramp_gated = |gate: f32| move |x: i64, _y: i64| CornerSample { elevation: x as f32 + 2.0, cliffiness: gate };
    let w = ChunkWindow::new(0, 0, 1, 1);
    assert_eq!(place_cliffs(w, &ramp_settings(), &ramp_gated(10.0), None).stats.placed, 8);
    assert_eq!(place_cliffs(w, &ramp_settings(), &ramp_gated(0.0), None).stats.placed, 0);
}

// ---------------------------------------------------------------- smoothing

#[test]
fn smoothing_knots_land_at_in_chunk_corners_0_4_and_7() {
    let k: Vec<(usize, usize, f32)> = (0..=8).map(smoothing_knots).collect();
    assert_eq!(
        k,
        vec![
            (0, 4, 0.0),
            (0, 4, 0.25),
            (0, 4, 0.5),
            (0, 4, 0.75),
            (4, 7, 0.0),
            (4, 7, 1.0 / 3.0),
            (4, 7, 2.0 / 3.0),
            (4, 7, 1.0),
            (8, 8, 0.0),
        ]
    );
}

#[test]
fn smoothing_blends_elevation_towards_the_knot_bilerp_by_s() {
    let mut bump = [0f32; 81];
    bump[2 + 9 * 2] = 100.0; // (2, 2) is not a knot
    let mut full = bump;
    smooth_chunk_elevation(&mut full, 1.0);
    assert_eq!(full[2 + 9 * 2], 0.0, "s = 1: the knots' bilerp, which never saw the bump");
    let mut half = bump;
    smooth_chunk_elevation(&mut half, 0.5);
    assert_eq!(half[2 + 9 * 2], 50.0);
    let mut none = bump;
    smooth_chunk_elevation(&mut none, 0.0);
    assert_eq!(none, bump);
    // A knot keeps its value; a plane is its own bilerp.
    let mut knot = [0f32; 81];
    knot[4 + 9 * 4] = 100.0;
    smooth_chunk_elevation(&mut knot, 1.0);
    assert_eq!(knot[4 + 9 * 4], 100.0);
    let mut plane: [f32; 81] = std::array::from_fn(|k| (k % 9) as f32 * 3.0 + (k / 9) as f32 * 5.0);
    let before = plane;
    smooth_chunk_elevation(&mut plane, 1.0);
    for k in 0..81 {
        assert!((plane[k] - before[k]).abs() < 1e-4);
    }
}

#[test]
fn smoothing_rewrites_elevation_not_cliffiness_and_chunks_agree_on_shared_corners() {
    let wobble = |x: i64, y: i64| CornerSample {
        elevation: ((x * 7919 + y * 104729) % 97) as f32,
        cliffiness: ((x * 31 + y * 17) % 13) as f32 / 10.0,
    };
    let w = ChunkWindow::new(0, 0, 2, 2);
    let mut s = plain(0.0, 10.0);
    let raw = place_cliffs(w, &s, &wobble, None);
    s.smoothing = 1.0;
    let smooth = place_cliffs(w, &s, &wobble, None);
    assert_eq!(raw.cliffiness, smooth.cliffiness, "cliffiness is read raw");
    assert_ne!(raw.elevation, smooth.elevation);
    // Each chunk smoothed alone: the two chunks agree on their shared column of corners (index
    // 8 of the west chunk is index 0 of the east one), and the window holds the same values.
    let block = |chunk_x: i64| {
        let mut b = [0f32; 81];
        for j in 0..9 {
            for i in 0..9 {
                b[i + 9 * j] = wobble(32 * chunk_x + 4 * i as i64, 4 * j as i64).elevation;
            }
        }
        smooth_chunk_elevation(&mut b, 1.0);
        b
    };
    let (west, east) = (block(0), block(1));
    let cw = w.corners_w();
    for j in 0..9 {
        assert_eq!(west[8 + 9 * j], east[9 * j], "seam corner row {j}");
        for i in 0..9 {
            assert_eq!(east[i + 9 * j], smooth.elevation[(8 + i) + cw * j]);
        }
    }
}

// ---------------------------------------------------------------- codes and orientations

#[test]
fn cell_code_packs_l_r_t_b_two_bits_each_minus_one_as_3() {
    assert_eq!(pack_code(-1, 0, 0, 0), 0xC0);
    assert_eq!(pack_code(0, 1, 0, 0), 0x10);
    assert_eq!(pack_code(0, 0, -1, 0), 0x0C);
    assert_eq!(pack_code(0, 0, 0, 1), 0x01);
    assert_eq!(pack_code(-1, -1, -1, -1), 0xFF);
    assert_eq!((encode_crossing(-1), decode_crossing(3), decode_crossing(2)), (3, Some(-1), None));
}

#[test]
fn reference_check_codes_f0_cc_c1_c0_are_west_to_east_north_south_none() {
    assert_eq!(orientation_of(0xF0), Some(Orientation::WestToEast));
    assert_eq!(orientation_of(0xCC), Some(Orientation::WestToNorth));
    assert_eq!(orientation_of(0xC1), Some(Orientation::WestToSouth));
    assert_eq!(orientation_of(0xC0), Some(Orientation::WestToNone));
    // …stored as orientations 0, 4, 8, 12 in the reference's enum.
    assert_eq!([0xF0u8, 0xCC, 0xC1, 0xC0].map(|c| orientation_of(c).unwrap() as u8), [0, 4, 8, 12]);
    assert_eq!(Orientation::WestToNorth.name(), "west-to-north");
}

#[test]
fn twenty_orientations_8_terminal_and_12_two_crossing_each_from_exactly_one_code() {
    let crossings = |c: u8| (0..4).filter(|k| (c >> (2 * k)) & 3 != 0).count();
    let mut seen = std::collections::BTreeMap::new();
    for c in 0..=255u8 {
        if let Some(o) = orientation_of(c) {
            assert!(seen.insert(o, c).is_none(), "{o:?} from two codes");
        }
    }
    assert_eq!(seen.len(), 20);
    let one = seen.values().filter(|&&c| crossings(c) == 1).count();
    let two = seen.values().filter(|&&c| crossings(c) == 2).count();
    assert_eq!((one, two), (8, 12));
    // Of the 24 two-crossing codes (6 edge pairs × 4 sign pairs), 12 are illegal.
    let valid = |c: u8| (0..4).all(|k| (c >> (2 * k)) & 3 != 2);
    let two_crossing: Vec<u8> = (0..=255u8).filter(|&c| valid(c) && crossings(c) == 2).collect();
    assert_eq!(two_crossing.len(), 24);
    assert_eq!(two_crossing.iter().filter(|&&c| !is_legal(c)).count(), 12);
    assert_eq!(cell_kind(0), CellKind::Empty);
}

#[test]
fn a_two_crossing_code_is_legal_only_when_high_ground_stays_on_one_side() {
    // L −1 enters from the west; L +1 leaves to the west. Two entries (L −1, T +1) is illegal;
    // entry + exit (L −1, T −1) is west-to-north.
    assert!(!is_legal(pack_code(-1, 0, 1, 0)));
    assert_eq!(orientation_of(pack_code(-1, 0, -1, 0)), Some(Orientation::WestToNorth));
    assert_eq!(orientation_of(pack_code(0, 1, 0, 0)), Some(Orientation::EastToNone));
    assert_eq!(orientation_of(pack_code(0, -1, 0, 0)), Some(Orientation::NoneToEast));
    assert_eq!(orientation_of(pack_code(0, 0, 1, 1)), Some(Orientation::NorthToSouth));
    assert!(!is_legal(pack_code(-1, -1, -1, 0)), "three crossings are never legal");
}

#[test]
fn every_legal_code_is_at_most_0x50_or_one_of_c0_c1_cc_f0() {
    for c in 0..=255u8 {
        if is_legal(c) {
            assert!(c <= 0x50 || [0xC0, 0xC1, 0xCC, 0xF0].contains(&c), "legal code {c:#04x}");
        }
    }
}

#[test]
fn a_ramp_rising_east_places_north_to_south_cliffs_high_ground_on_the_left() {
    // T and B both cross +1 in cell column 4: enters from the north, leaves to the south.
    let p = place_cliffs(ChunkWindow::new(0, 0, 1, 1), &ramp_settings(), &ramp(), None);
    assert_eq!(p.cliffs.len(), 8);
    for (cy, c) in p.cliffs.iter().enumerate() {
        assert_eq!((c.cell_x, c.cell_y, c.code, c.orientation), (4, cy as i64, 0x05, Orientation::NorthToSouth));
    }
}

// ---------------------------------------------------------------- repair sweep

fn set(e: &mut ChunkEdges, cx: usize, cy: usize, l: i8, r: i8, t: i8, b: i8) {
    for (edge, v) in [(Edge::L, l), (Edge::R, r), (Edge::T, t), (Edge::B, b)] {
        e.set(cx, cy, edge, v);
    }
}

#[test]
fn repair_clears_the_first_clearable_edge_in_l_t_r_b_order() {
    // Two entries: L −1 (west) and T +1 (north). L is interior, so L is cleared.
    let mut e = ChunkEdges::default();
    set(&mut e, 3, 3, -1, 0, 1, 0);
    assert_eq!(fix_impossible_cells(&mut e).cleared_edges, 1);
    assert_eq!(e.code(3, 3), pack_code(0, 0, 1, 0));
    // Three crossings: L then T are cleared, R stays.
    let mut e = ChunkEdges::default();
    set(&mut e, 3, 3, -1, 1, 1, 0);
    assert_eq!(fix_impossible_cells(&mut e).cleared_edges, 2);
    assert_eq!(e.code(3, 3), pack_code(0, 1, 0, 0));
}

#[test]
fn repair_never_clears_an_edge_on_the_chunks_outer_boundary() {
    // Cell (0, 3): L is on the chunk's west boundary, so T is cleared instead.
    let mut e = ChunkEdges::default();
    set(&mut e, 0, 3, -1, 0, 1, 0);
    fix_impossible_cells(&mut e);
    assert_eq!(e.code(0, 3), pack_code(-1, 0, 0, 0));
}

#[test]
fn repair_restarts_once_with_corner_cells_outer_edges_cleared_when_a_corner_is_stuck() {
    // Cell (0, 0): L +1 and T −1 both leave (two exits) and both are on the boundary: stuck.
    let mut e = ChunkEdges::default();
    set(&mut e, 0, 0, 1, 0, -1, 0);
    // A boundary edge elsewhere that the restart must not touch, and corner (7, 7)'s outer edge.
    e.set(3, 0, Edge::T, 1);
    e.set(7, 7, Edge::B, -1);
    let out = fix_impossible_cells(&mut e);
    assert!(out.restarted);
    assert_eq!(out.abandoned_from, None);
    assert_eq!(e.code(0, 0), 0);
    assert_eq!(e.get(7, 7, Edge::B), 0, "all eight corner outer edges are cleared on the restart");
    assert_eq!(e.get(3, 0, Edge::T), 1, "other boundary edges are kept");
    // Without a stuck cell there is no restart.
    let mut e = ChunkEdges::default();
    e.set(7, 7, Edge::B, -1);
    assert!(!fix_impossible_cells(&mut e).restarted);
    assert_eq!(e.get(7, 7, Edge::B), -1);
}

fn edges_strategy() -> impl Strategy<Value = ChunkEdges> {
    (prop::collection::vec(-1i8..=1, 72), prop::collection::vec(-1i8..=1, 72)).prop_map(|(v, h)| {
        let mut e = ChunkEdges::default();
        e.vertical.copy_from_slice(&v);
        e.horizontal.copy_from_slice(&h);
        e
    })
}

proptest! {
    #[test]
    fn repair_leaves_every_cell_legal_and_keeps_non_corner_boundary_edges(mut e in edges_strategy()) {
        let before = e.clone();
        let out = fix_impossible_cells(&mut e);
        prop_assert_eq!(out.abandoned_from, None, "a restart with the corners cleared always succeeds on 8 × 8");
        for cy in 0..8 {
            for cx in 0..8 {
                prop_assert!(is_legal(e.code(cx, cy)));
                for edge in CLEAR_ORDER {
                    let corner = (cx == 0 || cx == 7) && (cy == 0 || cy == 7);
                    if ChunkEdges::on_chunk_boundary(cx, cy, edge) && !(corner && out.restarted) {
                        prop_assert_eq!(e.get(cx, cy, edge), before.get(cx, cy, edge));
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------- water rejection

#[test]
fn a_cliff_whose_4x4_footprint_touches_water_is_not_placed() {
    let w = ChunkWindow::new(0, 0, 1, 1);
    let dry = place_cliffs(w, &ramp_settings(), &ramp(), None);
    assert!(dry.cliffs.iter().any(|c| (c.cell_x, c.cell_y) == (4, 2)));
    // One wet tile on the far corner (19, 11) of cell (4, 2)'s footprint, tiles 16..20 × 8..12…
    let mask = WaterMask::from_fn(0, 0, 64, 64, false, |x, y| (x, y) == (19, 11));
    let wet = place_cliffs(w, &ramp_settings(), &ramp(), Some(&mask));
    assert!(wet.cliffs.iter().all(|c| (c.cell_x, c.cell_y) != (4, 2)));
    assert_eq!(wet.stats.rejected_by_water, 1);
    assert_eq!(wet.cliffs.len(), dry.cliffs.len() - 1);
    // …but a wet tile just outside it, (20, 11), rejects nothing.
    let mask = WaterMask::from_fn(0, 0, 64, 64, false, |x, y| (x, y) == (20, 11));
    assert_eq!(place_cliffs(w, &ramp_settings(), &ramp(), Some(&mask)).cliffs, dry.cliffs);
}

#[test]
fn island_cliffs_never_stand_on_the_blueprints_water() {
    let bp = forged(11, 256);
    let s = CliffSettings::for_blueprint(CliffPreset::Island, &bp);
    let region = MapRegion::whole(&bp);
    let p = place_for_region(&s, Some(&bp), None, &region).unwrap();
    assert!(p.stats.placed > 0, "the island preset traces some relief");
    // Checked against the blueprint's own water columns (the world's per-column rule), not the
    // placer's mask: no tile of a placed cliff's 4 × 4 footprint is wet.
    let src = isla::world::WorldSource::new(std::sync::Arc::new(bp.clone()));
    let top = src.layout.top_m();
    let n = bp.map_size as i64;
    let mut tiles_checked = 0;
    for c in &p.cliffs {
        for dx in 0..4 {
            for dy in 0..4 {
                let (x, y) = (c.cell_x * 4 + dx, c.cell_y * 4 + dy);
                assert!((0..n).contains(&x) && (0..n).contains(&y), "cliff {c:?} off the map");
                let wet = isla::world::water_column(&bp, &src.water, x as u32, y as u32, top).is_some();
                assert!(!wet, "cliff {c:?} stands on the water column at {x},{y}");
                tiles_checked += 1;
            }
        }
    }
    assert!(tiles_checked > 0);
    // And the check can fail: the island has wet columns next to its cliffs' cells.
    assert!(
        (0..n).any(|x| (0..n).any(|y| isla::world::water_column(&bp, &src.water, x as u32, y as u32, top).is_some()))
    );
}

// ---------------------------------------------------------------- chunk-local, tiling, threads

fn tiled(window: ChunkWindow, tile: u32, s: &CliffSettings, f: &(impl FieldSource + ?Sized)) -> Vec<PlacedCliff> {
    let mut all = Vec::new();
    for ty in (0..window.chunks_h).step_by(tile as usize) {
        for tx in (0..window.chunks_w).step_by(tile as usize) {
            let w = ChunkWindow::new(
                window.chunk_x0 + tx as i32,
                window.chunk_y0 + ty as i32,
                tile.min(window.chunks_w - tx),
                tile.min(window.chunks_h - ty),
            );
            all.extend(place_cliffs(w, s, f, None).cliffs);
        }
    }
    all.sort_by_key(|c| (c.cell_y, c.cell_x));
    all
}

#[test]
fn any_tiling_of_a_window_gives_byte_identical_placements_to_the_whole() {
    for preset in [CliffPreset::Nauvis, CliffPreset::Vulcanus] {
        let s = CliffSettings::preset(preset, 77);
        let f = PresetFields::new(&s, None).unwrap();
        let window = ChunkWindow::new(-3, 2, 6, 5);
        let whole = place_cliffs(window, &s, &f, None);
        assert!(whole.stats.placed > 10, "{preset:?} places something to compare");
        let whole_bytes = CliffPlacement::cliffs_to_bytes(&whole.cliffs);
        for tile in [1, 2, 4] {
            assert_eq!(
                CliffPlacement::cliffs_to_bytes(&tiled(window, tile, &s, &f)),
                whole_bytes,
                "{preset:?} tile {tile}"
            );
        }
    }
}

#[test]
fn placement_is_the_same_on_1_2_and_8_rayon_threads() {
    let bp = forged(3, 128);
    let run = |threads: usize, preset: CliffPreset| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let s = CliffSettings::for_blueprint(preset, &bp);
            let mut p = place_for_region(&s, Some(&bp), None, &MapRegion::whole(&bp)).unwrap();
            p.stats.elapsed_ms = 0.0;
            p
        })
    };
    for preset in CliffPreset::ALL {
        let one = run(1, preset);
        assert_eq!(one, run(2, preset), "{preset:?}");
        assert_eq!(one, run(8, preset), "{preset:?}");
    }
}

#[test]
fn stats_count_placed_cliffs_per_orientation() {
    let s = CliffSettings::preset(CliffPreset::Vulcanus, 5);
    let p = place_cliffs(ChunkWindow::new(0, 0, 8, 8), &s, &PresetFields::new(&s, None).unwrap(), None);
    assert_eq!(p.stats.placed_per_orientation.iter().sum::<u32>(), p.stats.placed);
    assert_eq!(p.stats.placed as usize, p.cliffs.len());
    for o in Orientation::ALL {
        let n = p.cliffs.iter().filter(|c| c.orientation == o).count() as u32;
        assert_eq!(p.stats.placed_per_orientation[o as usize], n);
    }
    assert!(p.stats.placed_per_orientation.iter().filter(|&&n| n > 0).count() > 4);
}

// ---------------------------------------------------------------- map layers

#[test]
fn region_parses_x_y_w_h_and_refuses_bad_input() {
    assert_eq!(MapRegion::parse("10,-20,30,40"), Ok(MapRegion::new(10, -20, 30, 40)));
    assert!(MapRegion::parse("1,2,3").is_err());
    assert!(MapRegion::parse("1,2,0,4").is_err());
    assert!(MapRegion::parse("a,2,3,4").is_err());
    assert_eq!(MapRegion::new(0, 0, 100, 64).scaled(4).image_size(), (25, 16));
}

#[test]
fn layer_list_parses_names_and_refuses_unknown_ones() {
    let l = MapLayers::parse("terrain,cliffs-by-orientation,grid").unwrap();
    assert!(l.terrain && l.chunk_grid && l.cliffs == Some(CliffColouring::ByOrientation) && !l.towns);
    assert!(MapLayers::parse("terrain,bogus").is_err());
    assert_eq!(MapLayers::parse("all").unwrap(), MapLayers::ALL);
}

#[test]
fn cliff_layer_paints_each_cliffs_4x4_footprint_in_the_reference_colour_144_119_87() {
    let region = MapRegion::new(0, 0, 32, 32);
    let p = place_with_fields(&ramp_settings(), &ramp(), None, None, &region);
    let mut img = RgbaImage::filled(32, 32, [0, 0, 0]);
    paint_cliffs(&mut img, &region, &p, CliffColouring::Reference);
    for y in 0..32 {
        for x in 0..32 {
            let want = if (16..20).contains(&x) { [144, 119, 87, 255] } else { [0, 0, 0, 255] };
            assert_eq!(img.pixel(x, y), want, "pixel ({x}, {y})");
        }
    }
    let mut by_orientation = RgbaImage::filled(32, 32, [0, 0, 0]);
    paint_cliffs(&mut by_orientation, &region, &p, CliffColouring::ByOrientation);
    let c = orientation_colour(Orientation::NorthToSouth);
    assert_eq!(by_orientation.pixel(17, 5), [c[0], c[1], c[2], 255]);
}

#[test]
fn water_is_shaded_by_true_depth_shallow_lighter_than_deep() {
    let lum = |c: [u8; 3]| c.iter().map(|&v| v as u32).sum::<u32>();
    assert!(lum(water_depth_colour(1.0)) > lum(water_depth_colour(20.0)));
    assert!(lum(water_depth_colour(20.0)) > lum(water_depth_colour(80.0)));
}

#[test]
fn terrain_layer_draws_water_where_the_world_says_water_and_tints_land() {
    let bp = forged(4, 128);
    let region = MapRegion::whole(&bp);
    let mut img = RgbaImage::filled(128, 128, [0, 0, 0]);
    paint_terrain(&mut img, &region, &bp);
    let mask = WaterMask::from_blueprint(&bp);
    let (mut wet, mut dry) = (0, 0);
    for y in 0..128u32 {
        for x in 0..128u32 {
            let [r, _, b, _] = img.pixel(x, y);
            if mask.is_water(x as i64, y as i64) {
                assert!(b > r, "water at ({x}, {y}) is blue");
                wet += 1;
            } else {
                dry += 1;
            }
        }
    }
    assert!(wet > 0 && dry > 0);
}

#[test]
fn chunk_grid_draws_a_line_every_32_tiles() {
    let region = MapRegion::new(-8, 0, 80, 8);
    let mut img = RgbaImage::filled(80, 8, [0, 0, 0]);
    paint_chunk_grid(&mut img, &region);
    let lit: Vec<u32> = (0..80).filter(|&x| img.pixel(x, 3) != [0, 0, 0, 255]).collect();
    assert_eq!(lit, vec![8, 40, 72], "tiles 0, 32, 64");
}

#[test]
fn camera_marker_sits_at_the_position_and_its_cone_looks_along_yaw() {
    let region = MapRegion::new(0, 0, 64, 64);
    let cam = CameraMarker { x_tiles: 32.0, y_tiles: 32.0, yaw_rad: 0.0, fov_rad: 1.2, range_tiles: 20.0 };
    let mut img = RgbaImage::filled(64, 64, [0, 0, 0]);
    paint_camera(&mut img, &region, &cam);
    assert_ne!(img.pixel(32, 32), [0, 0, 0, 255], "the marker");
    assert_ne!(img.pixel(32, 20), [0, 0, 0, 255], "yaw 0 looks north (−y)");
    assert_eq!(img.pixel(32, 44), [0, 0, 0, 255], "nothing behind");
    let east = CameraMarker { yaw_rad: -std::f32::consts::FRAC_PI_2, ..cam };
    let mut img = RgbaImage::filled(64, 64, [0, 0, 0]);
    paint_camera(&mut img, &region, &east);
    assert_ne!(img.pixel(44, 32), [0, 0, 0, 255], "yaw −π/2 looks east (+x)");
}

#[test]
fn the_map_composes_chosen_layers_deterministically_and_writes_a_png() {
    let bp = forged(8, 128);
    let req = MapRequest {
        blueprint: Some(&bp),
        water: None,
        settings: CliffSettings::for_blueprint(CliffPreset::Island, &bp),
        region: MapRegion::new(16, 8, 100, 90),
        layers: MapLayers::ALL,
        camera: Some(CameraMarker { x_tiles: 60.0, y_tiles: 50.0, yaw_rad: 0.5, fov_rad: 1.0, range_tiles: 30.0 }),
    };
    let a = render_map(&req).unwrap();
    let b = render_map(&req).unwrap();
    assert_eq!((a.image.width, a.image.height), (100, 90));
    assert_eq!(a.image, b.image);
    assert_eq!(a.stats().unwrap().corner_evaluations, (4 * 8 + 1) * (4 * 8 + 1), "window of 4 × 4 chunks");
    let dir = std::env::temp_dir().join(format!("isla-cliffs-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("map.png");
    write_png(&path, &a.image).unwrap();
    let back = image::open(&path).unwrap().to_rgba8();
    assert_eq!((back.width(), back.height()), (100, 90));
    assert_eq!(back.into_raw(), a.image.pixels);
    std::fs::remove_dir_all(&dir).unwrap();
    // Nauvis needs no blueprint; island does.
    let nauvis = MapRequest { blueprint: None, settings: CliffSettings::preset(CliffPreset::Nauvis, 1), ..req };
    assert!(render_map(&nauvis).is_ok());
    let island_without = MapRequest { blueprint: None, ..req };
    assert!(render_map(&island_without).is_err());
}
