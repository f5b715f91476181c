//! Blueprint wire format (SPEC §1): round trips, every refusal with its own message, atomic writes.

use isla::blueprint::testing::IslandBuilder;
use isla::blueprint::*;
use proptest::prelude::*;

const N: u32 = 32;

pub(crate) fn sample(n: u32) -> Blueprint {
    let cells = (n * n) as usize;
    let heights_raw: Vec<f32> = (0..cells).map(|i| (i % 97) as f32 / 97.0).collect();
    // The ocean is every cell below the sea level (0.1), at that level.
    let island = IslandBuilder::new(n, heights_raw)
        .seed(-42)
        .sea_level_raw(0.1)
        .metres_per_raw(251.0)
        .metres_per_pixel(4.0)
        .crater(10.0, 12.0, 5.0)
        .biomes((0..cells).map(|i| (i % 10) as u8).collect())
        .towns(vec![
            Town { x: 3.0, y: 4.0, tier: TownTier::City, is_highway_node: true },
            Town { x: 8.0, y: 9.0, tier: TownTier::Town, is_highway_node: false },
        ])
        .ocean_below_sea(vec![WaterBody {
            id: 1,
            kind: WaterType::Ocean,
            salinity: Salinity::Salt,
            surface_level_raw: 0.1,
            pixel_count: 10,
            centroid_x: 1.0,
            centroid_y: 2.0,
        }])
        .build();
    Blueprint {
        curve: Some(CurveMeta { version: 4, body: vec![0u8; 84] }),
        detail: Some(DetailMeta {
            relief_amp_m: 1.0,
            relief_freq_islands: 2.0,
            relief_seed_offset: 3,
            edge_amp_m: 4.0,
            edge_freq_islands: 5.0,
            edge_seed_offset: 6,
            edge_max_shift_m: 7.0,
        }),
        // Every field distinct, so a swapped or dropped field fails the round trips.
        erosion: Some(ErosionMeta {
            droplet_count: 1_000,
            lifetime: 30,
            brush_radius: 3,
            seed_offset: 17,
            carve_cap_m: 1.5,
            deposit_cap_m: 0.75,
            sea_margin_m: 2.25,
            inertia: 0.05,
            capacity_factor: 4.0,
            min_slope_m: 0.01,
            erode_rate: 0.3,
            deposit_rate: 0.2,
            evaporation: 0.015,
            gravity: 9.5,
            crater_core_factor: 0.6,
            crater_feather_factor: 0.9,
            crater_mode: 1,
        }),
        rivers: Some(sample_rivers()),
        roads: Some(sample_roads()),
        dials: Some(DialRecord {
            dials: vec![
                ("seed".into(), DialValue::Int(-3)),
                ("shape.axis_x".into(), DialValue::Float(0.55)),
                ("erosion.enabled".into(), DialValue::Bool(true)),
                ("roads.turn_m".into(), DialValue::Float(7.5)),
            ],
        }),
        ..island
    }
}

/// A `ROAD` network with every field distinct: a highway with a bridge, a road without.
fn sample_roads() -> RoadNetwork {
    RoadNetwork {
        roads: vec![
            Road {
                tier: RoadTier::Highway,
                from_town: 0,
                to_town: 1,
                points: vec![[1.0, 2.0], [3.5, 4.0], [6.0, 5.5], [8.0, 9.0]],
                bridges: vec![[1, 2]],
            },
            Road {
                tier: RoadTier::Road,
                from_town: 1,
                to_town: NO_TOWN,
                points: vec![[8.0, 9.0], [12.0, 9.5]],
                bridges: vec![],
            },
        ],
    }
}

/// A `RIVR` network with every field distinct (two rivers, the second a tributary of the first).
fn sample_rivers() -> RiverNetwork {
    let pt = |x: f32, y: f32, w: f32, q: f32| RiverPoint { x, y, width_m: w, discharge_m3s: q };
    RiverNetwork {
        dials: RiverDialsMeta {
            trunks: 3,
            lake_rivers: 2,
            tributaries: 4,
            main_min_area: 0.002,
            tributary_min_area: 0.0003,
            stem_min_area: 0.00001,
            endorheic_min_area: 0.004,
            mouth_separation: 0.06,
            min_length_m: 600.0,
            width_scale: 1.25,
            depth_scale: 0.75,
            min_depth_m: 0.4,
            sea_margin_m: 0.2,
        },
        rivers: vec![
            River {
                body_id: 7,
                order: 1,
                mouth_body_id: 1,
                source: [3.0, 4.0],
                mouth: [9.0, 12.0],
                length_m: 41.5,
                course: vec![pt(3.0, 4.0, 8.0, 0.01), pt(6.0, 8.0, 10.0, 0.02), pt(9.0, 12.0, 12.0, 0.03)],
            },
            River {
                body_id: 8,
                order: 2,
                mouth_body_id: 7,
                source: [1.0, 8.0],
                mouth: [6.0, 8.0],
                length_m: 20.0,
                course: vec![pt(1.0, 8.0, 6.0, 0.004), pt(6.0, 8.0, 7.0, 0.005)],
            },
        ],
    }
}

fn err_of(bytes: &[u8]) -> BlueprintError {
    read_bytes(bytes).expect_err("must be refused")
}

/// Byte offset of the section header with this tag in a file the writer produced.
pub(crate) fn section_at(bytes: &[u8], tag: &[u8; 4]) -> usize {
    let s = list_sections(bytes).unwrap();
    s.iter().find(|s| s.tag.as_bytes() == tag).unwrap().offset as usize
}

#[test]
fn round_trip_preserves_every_section() {
    let bp = sample(N);
    let bytes = to_bytes(&bp).unwrap();
    let back = read_bytes(&bytes).unwrap();
    assert_eq!(back, bp);
    assert_eq!(to_bytes(&back).unwrap(), bytes, "write(read(file)) is byte-identical");
}

/// The fuzz corpus keeps a valid seed with every section the reader knows, `RIVR`, `ROAD` and
/// `DIAL` included (docs/RELIABILITY.md): it is this sample, written. `ISLA_BLESS=1` rewrites it.
#[test]
fn the_fuzz_seed_with_every_section_is_the_sample() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/valid-every-section.dat");
    let bytes = to_bytes(&sample(N)).unwrap();
    if std::env::var_os("ISLA_BLESS").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    let on_disk = std::fs::read(&path).expect("fuzz/seeds/valid-every-section.dat (ISLA_BLESS=1 writes it)");
    assert_eq!(on_disk, bytes, "the seed is stale: ISLA_BLESS=1 cargo test --test format rewrites it");
    let tags: Vec<String> = list_sections(&on_disk).unwrap().iter().map(|s| s.tag.to_string()).collect();
    for t in ["RIVR", "ROAD", "TOWN", "WSRF", "DIAL"] {
        assert!(tags.iter().any(|x| x == t), "{t} missing from the seed: {tags:?}");
    }
    assert!(on_disk.len() <= 20_000, "the reader target reads at most 20,000 bytes");
}

#[test]
fn header_is_version_size_seed_little_endian() {
    let bytes = to_bytes(&sample(N)).unwrap();
    assert_eq!(bytes[0], 2);
    assert_eq!(&bytes[1..5], &32u32.to_le_bytes());
    assert_eq!(&bytes[5..9], &(-42i32).to_le_bytes());
    // First section is PRMS with its 26-byte payload.
    assert_eq!(&bytes[9..13], b"PRMS");
    assert_eq!(&bytes[13..21], &26u64.to_le_bytes());
    assert_eq!(tags::WSRF, 0x46525357, "SPEC: \"WSRF\" = 0x46525357");
}

#[test]
fn grids_are_x_outer_y_inner() {
    let mut bp = sample(N);
    bp.heights_raw.iter_mut().for_each(|h| *h = 0.0);
    let i = bp.index(3, 5);
    assert_eq!(i, 3 * 32 + 5);
    bp.heights_raw[i] = 1.5;
    let bytes = to_bytes(&bp).unwrap();
    let hgts = section_at(&bytes, b"HGTS") + 12;
    let at = hgts + 4 * (3 * 32 + 5);
    assert_eq!(&bytes[at..at + 4], &1.5f32.to_le_bytes());
    assert_eq!(read_bytes(&bytes).unwrap().height_raw(3, 5), 1.5);
}

#[test]
fn water_level_quantisation_matches_spec() {
    assert_eq!(water_level::encode(0.0), 1);
    assert_eq!(water_level::decode(0), None, "0 is the no-water sentinel");
    assert_eq!(water_level::encode(1.0), 32769);
    assert_eq!(water_level::decode(32769), Some(1.0));
    let l = 0.123_456f32;
    assert!((water_level::decode(water_level::encode(l)).unwrap() - l).abs() <= 0.5 / 32768.0);
}

#[test]
fn refuses_empty_file() {
    let e = err_of(&[]);
    assert_eq!(e.kind, ErrorKind::Empty);
    assert!(e.to_string().contains("empty"), "{e}");
}

#[test]
fn refuses_truncated_header() {
    let e = err_of(&[2, 32, 0]);
    assert_eq!(e.kind, ErrorKind::TruncatedHeader { len: 3 });
}

#[test]
fn refuses_other_versions_naming_them() {
    let mut bytes = to_bytes(&sample(N)).unwrap();
    bytes[0] = 1;
    let e = err_of(&bytes);
    assert_eq!(e.kind, ErrorKind::UnsupportedVersion { found: 1 });
    assert!(e.to_string().contains("version 1") && e.to_string().contains("legacy"), "{e}");
    bytes[0] = 7;
    assert!(err_of(&bytes).to_string().contains("version 7"));
}

#[test]
fn refuses_map_size_out_of_range() {
    for size in [0u32, 31, 16385, u32::MAX] {
        let mut bytes = to_bytes(&sample(N)).unwrap();
        bytes[1..5].copy_from_slice(&size.to_le_bytes());
        assert_eq!(err_of(&bytes).kind, ErrorKind::MapSizeOutOfRange { size });
    }
}

#[test]
fn refuses_section_running_past_end_without_allocating_it() {
    let mut bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"HGTS");
    bytes[at + 4..at + 12].copy_from_slice(&u64::MAX.to_le_bytes());
    let e = err_of(&bytes);
    assert!(matches!(e.kind, ErrorKind::SectionPastEnd { length: u64::MAX, .. }), "{e:?}");
    assert_eq!(e.section_name(), "HGTS");
    assert!(e.to_string().contains("HGTS"), "{e}");
}

#[test]
fn refuses_cut_short_section_header() {
    let mut bytes = to_bytes(&sample(N)).unwrap();
    bytes.extend_from_slice(b"XY");
    assert_eq!(err_of(&bytes).kind, ErrorKind::TruncatedSectionHeader { remaining: 2 });
}

#[test]
fn refuses_grid_of_wrong_length() {
    let mut bp = sample(N);
    bp.map_size = 33; // grids are for 32²: the header now says otherwise
    let mut bytes = to_bytes(&sample(N)).unwrap();
    bytes[1..5].copy_from_slice(&33u32.to_le_bytes());
    let e = err_of(&bytes);
    assert!(matches!(e.kind, ErrorKind::WrongLength { expected, .. } if expected == 4 * 33 * 33), "{e:?}");
    assert_eq!(e.section_name(), "HGTS");
    // The writer refuses the same inconsistent model.
    assert!(matches!(to_bytes(&bp).unwrap_err().kind, ErrorKind::WrongLength { .. }));
}

#[test]
fn refuses_non_finite_heights_naming_the_pixel() {
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut bytes = to_bytes(&sample(N)).unwrap();
        let at = section_at(&bytes, b"HGTS") + 12 + 4 * (2 * 32 + 7);
        bytes[at..at + 4].copy_from_slice(&bad.to_le_bytes());
        let e = err_of(&bytes);
        assert!(matches!(e.kind, ErrorKind::NonFiniteHeight { x: 2, y: 7, .. }), "{e:?}");
        assert_eq!(e.offset as usize, at);
        let mut bp = sample(N);
        bp.heights_raw[5] = bad;
        assert!(matches!(to_bytes(&bp).unwrap_err().kind, ErrorKind::NonFiniteHeight { .. }));
    }
}

#[test]
fn refuses_unknown_biome_ordinal() {
    let mut bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"BIOM") + 12 + 40;
    bytes[at] = 10;
    let e = err_of(&bytes);
    assert!(matches!(e.kind, ErrorKind::BiomeOutOfRange { ordinal: 10, x: 1, y: 8 }), "{e:?}");
}

#[test]
fn refuses_water_type_out_of_range() {
    let mut bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"WBTB") + 12 + 4 + 2;
    bytes[at] = 2;
    assert_eq!(err_of(&bytes).kind, ErrorKind::WaterTypeOutOfRange { index: 0, value: 2 });
}

#[test]
fn refuses_negative_or_inconsistent_counts() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"WBTB") + 12;
    let mut neg = bytes.clone();
    neg[at..at + 4].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(err_of(&neg).kind, ErrorKind::NegativeCount { count: -1 });
    let mut big = bytes.clone();
    big[at..at + 4].copy_from_slice(&1_000_000i32.to_le_bytes());
    assert!(matches!(err_of(&big).kind, ErrorKind::InconsistentCount { count: 1_000_000, .. }));
    let town = section_at(&bytes, b"TOWN") + 12;
    let mut t = bytes.clone();
    t[town..town + 4].copy_from_slice(&3i32.to_le_bytes());
    assert!(matches!(err_of(&t).kind, ErrorKind::InconsistentCount { count: 3, .. }));
}

#[test]
fn refuses_town_tier_out_of_range() {
    let mut bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"TOWN") + 12 + 4 + 8;
    bytes[at] = 4;
    assert_eq!(err_of(&bytes).kind, ErrorKind::TownTierOutOfRange { index: 0, tier: 4 });
}

pub(crate) fn remove_section(bytes: &[u8], tag: &[u8; 4]) -> Vec<u8> {
    let s = list_sections(bytes).unwrap();
    let s = s.iter().find(|s| s.tag.as_bytes() == tag).unwrap();
    let (a, b) = (s.offset as usize, s.offset as usize + 12 + s.payload_bytes as usize);
    [&bytes[..a], &bytes[b..]].concat()
}

pub(crate) fn section_bytes(bytes: &[u8], tag: &[u8; 4]) -> Vec<u8> {
    let s = list_sections(bytes).unwrap();
    let s = s.iter().find(|s| s.tag.as_bytes() == tag).unwrap();
    bytes[s.offset as usize..s.offset as usize + 12 + s.payload_bytes as usize].to_vec()
}

#[test]
fn refuses_duplicated_section() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let dup = [bytes.clone(), section_bytes(&bytes, b"BIOM")].concat();
    let e = err_of(&dup);
    assert_eq!(e.kind, ErrorKind::DuplicateSection);
    assert_eq!(e.section_name(), "BIOM");
}

#[test]
fn refuses_missing_mandatory_sections() {
    let bytes = to_bytes(&sample(N)).unwrap();
    for tag in [b"PRMS", b"HGTS", b"BIOM"] {
        let e = err_of(&remove_section(&bytes, tag));
        assert_eq!(e.kind, ErrorKind::MissingSection);
        assert_eq!(e.section_name().as_bytes(), tag);
    }
}

#[test]
fn refuses_water_tables_without_wbid() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let no_wbid = remove_section(&bytes, b"WBID");
    let e = err_of(&no_wbid);
    assert_eq!(e.kind, ErrorKind::RequiresSection { needs: "WBID" });
    let only_wsrf = remove_section(&no_wbid, b"WBTB");
    assert_eq!(err_of(&only_wsrf).section_name(), "WSRF");
}

#[test]
fn skips_unknown_section_with_a_warning() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let mut extra = bytes.clone();
    extra.extend_from_slice(b"ZZZZ");
    extra.extend_from_slice(&5u64.to_le_bytes());
    extra.extend_from_slice(&[1, 2, 3, 4, 5]);
    let bp = read_bytes(&extra).unwrap();
    assert_eq!(bp.warnings.len(), 1);
    assert_eq!(bp.warnings[0].section, "ZZZZ");
    let mut clean = bp.clone();
    clean.warnings.clear();
    assert_eq!(clean, sample(N));
}

#[test]
fn prms_extension_is_skipped_and_prefix_read() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let prms = section_bytes(&bytes, b"PRMS");
    let mut longer = prms.clone();
    longer[4..12].copy_from_slice(&30u64.to_le_bytes());
    longer.extend_from_slice(&[9, 9, 9, 9]);
    let rest = remove_section(&bytes, b"PRMS");
    let file = [&rest[..9], &longer[..], &rest[9..]].concat();
    let bp = read_bytes(&file).unwrap();
    assert_eq!(bp.params, sample(N).params);
    assert_eq!(bp.warnings.len(), 1);
}

#[test]
fn unknown_detail_or_erosion_version_is_skipped_whole() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"TDTL") + 12;
    let mut v1 = bytes.clone();
    v1[at..at + 2].copy_from_slice(&1u16.to_le_bytes());
    let bp = read_bytes(&v1).unwrap();
    assert_eq!(bp.detail, None, "metadata left empty, never misread");
    assert!(bp.warnings[0].message.contains("version 1"));

    // The sample carries an EROS section: appending a second one of an unknown version needs a
    // file without it.
    let mut eros = to_bytes(&Blueprint { erosion: None, ..sample(N) }).unwrap();
    eros.extend_from_slice(b"EROS");
    eros.extend_from_slice(&4u64.to_le_bytes());
    eros.extend_from_slice(&[9, 0, 1, 2]);
    let bp = read_bytes(&eros).unwrap();
    assert_eq!(bp.erosion, None);
    assert!(bp.warnings[0].message.contains("EROS version 9"));
}

#[test]
fn truncating_any_valid_file_never_panics() {
    let bytes = to_bytes(&sample(N)).unwrap();
    for len in 0..bytes.len() {
        let _ = read_bytes(&bytes[..len]);
    }
}

#[test]
fn atomic_write_replaces_whole_file_and_leaves_no_temporary() {
    let dir = std::env::temp_dir().join(format!("isla-format-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("island.dat");
    write_file_atomic(&path, &sample(N)).unwrap();
    let mut bigger = sample(64);
    bigger.seed = 9;
    write_file_atomic(&path, &bigger).unwrap();
    assert_eq!(read_file(&path).unwrap(), bigger);
    let leftovers: Vec<_> =
        std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).filter(|e| e.file_name() != "island.dat").collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // An invalid model is refused before anything touches the disk.
    let mut bad = sample(N);
    bad.biomes[0] = 200;
    assert!(write_file_atomic(&path, &bad).is_err());
    assert_eq!(read_file(&path).unwrap(), bigger);
    std::fs::remove_dir_all(&dir).unwrap();
}

prop_compose! {
    fn arb_blueprint()(seed in any::<i32>(), n in 32u32..40, hs in proptest::collection::vec(0f32..2.0, 40 * 40),
                       bs in proptest::collection::vec(0u8..10, 40 * 40), wet in any::<bool>(), sea in 0f32..1.0) -> Blueprint {
        let cells = (n * n) as usize;
        let island = IslandBuilder::new(n, hs[..cells].to_vec())
            .seed(seed).sea_level_raw(sea).metres_per_raw(251.0).metres_per_pixel(2.0).biomes(bs[..cells].to_vec());
        // Wet: the ocean below sea level, with an empty body table.
        let island = if wet { island.ocean_below_sea(vec![]) } else { island };
        island.build()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn read_of_write_is_identity(bp in arb_blueprint()) {
        let bytes = to_bytes(&bp).unwrap();
        let back = read_bytes(&bytes).unwrap();
        prop_assert_eq!(&back, &bp);
        prop_assert_eq!(to_bytes(&back).unwrap(), bytes);
    }
}

#[test]
fn refuses_non_finite_body_levels_and_town_positions() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"WBTB") + 12 + 4 + 4;
    let mut nan = bytes.clone();
    nan[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = err_of(&nan);
    assert!(matches!(e.kind, ErrorKind::NonFiniteValue { what: "surface level", index: 0, .. }), "{e:?}");
    assert_eq!(e.offset as usize, at);
    let t = section_at(&bytes, b"TOWN") + 12 + 4;
    let mut inf = bytes.clone();
    inf[t..t + 4].copy_from_slice(&f32::INFINITY.to_le_bytes());
    assert!(matches!(err_of(&inf).kind, ErrorKind::NonFiniteValue { what: "town x", .. }));
    let mut bp = sample(N);
    bp.water.as_mut().unwrap().bodies.as_mut().unwrap()[0].surface_level_raw = f32::NAN;
    assert!(matches!(to_bytes(&bp).unwrap_err().kind, ErrorKind::NonFiniteValue { .. }), "the writer refuses it too");
}

#[test]
fn refuses_duplicate_water_body_ids() {
    let mut bp = sample(N);
    let body = bp.water.as_ref().unwrap().bodies.as_ref().unwrap()[0];
    bp.water.as_mut().unwrap().bodies.as_mut().unwrap().push(body);
    assert!(matches!(to_bytes(&bp).unwrap_err().kind, ErrorKind::DuplicateBodyId { index: 1, id: 1 }));
    // Build the file by hand: the same record twice.
    let bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"WBTB");
    let rec = &bytes[at + 16..at + 36];
    let mut wbtb = b"WBTB".to_vec();
    wbtb.extend_from_slice(&44u64.to_le_bytes());
    wbtb.extend_from_slice(&2i32.to_le_bytes());
    wbtb.extend_from_slice(rec);
    wbtb.extend_from_slice(rec);
    let file = [remove_section(&bytes, b"WBTB"), wbtb].concat();
    assert!(matches!(err_of(&file).kind, ErrorKind::DuplicateBodyId { index: 1, id: 1 }));
}

#[test]
fn many_unknown_sections_give_a_bounded_warning_list() {
    let mut bytes = to_bytes(&sample(N)).unwrap();
    for i in 0..1000u32 {
        bytes.extend_from_slice(&(0x5A00_0000 | i).to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
    }
    let bp = read_bytes(&bytes).unwrap();
    assert_eq!(bp.warnings.len(), 65, "64 named, then one summary");
    assert!(bp.warnings[64].message.contains("936 more"));
}

/// Large files take `read_file`'s direct path (grids read straight into their buffers); it must
/// agree with `read_bytes` on every outcome, the errors included.
#[test]
fn direct_file_reading_agrees_with_reading_bytes() {
    let n = 800; // 800² × 9 B ≈ 5.8 MB, above DIRECT_READ_MIN_BYTES
    let good = to_bytes(&sample(n)).unwrap();
    assert!(good.len() as u64 >= DIRECT_READ_MIN_BYTES);
    let dir = std::env::temp_dir().join(format!("isla-direct-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let check = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let (a, b) = (read_file(&path), read_bytes(bytes));
        // Compared as text: an error may carry a NaN, which is never equal to itself.
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}: read_file and read_bytes disagree");
        a
    };
    assert!(check("good.dat", &good).is_ok());
    let hgts = section_at(&good, b"HGTS");
    let mut nan = good.clone();
    nan[hgts + 12 + 400..hgts + 12 + 404].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(matches!(check("nan.dat", &nan).unwrap_err().kind, ErrorKind::NonFiniteHeight { .. }));
    let biom = section_at(&good, b"BIOM");
    let mut bad_biome = good.clone();
    bad_biome[biom + 12 + 5000] = 77;
    assert!(matches!(check("biome.dat", &bad_biome).unwrap_err().kind, ErrorKind::BiomeOutOfRange { .. }));
    let mut resized = good.clone();
    resized[1..5].copy_from_slice(&801u32.to_le_bytes());
    assert!(matches!(check("size.dat", &resized).unwrap_err().kind, ErrorKind::WrongLength { .. }));
    let mut huge = good.clone();
    huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(check("huge.dat", &huge).unwrap_err().kind, ErrorKind::MapSizeOutOfRange { .. }));
    assert!(check("cut.dat", &good[..good.len() - 1000]).is_err());
    let dup = [good.clone(), section_bytes(&good, b"BIOM")].concat();
    assert_eq!(check("dup.dat", &dup).unwrap_err().kind, ErrorKind::DuplicateSection);
    let mut unknown = good.clone();
    unknown.extend_from_slice(b"ZZZZ");
    unknown.extend_from_slice(&3u64.to_le_bytes());
    unknown.extend_from_slice(b"abc");
    assert_eq!(check("unknown.dat", &unknown).unwrap().warnings.len(), 1);
    // The last header alone in the framing's window, ending exactly at the file's end: a long
    // unknown section, then an empty one.
    let mut tail = good.clone();
    tail.extend_from_slice(b"ZZZY");
    tail.extend_from_slice(&20_000u64.to_le_bytes());
    tail.extend(std::iter::repeat_n(7u8, 20_000));
    tail.extend_from_slice(b"ZZZX");
    tail.extend_from_slice(&0u64.to_le_bytes());
    assert_eq!(check("tail.dat", &tail).unwrap().warnings.len(), 2);
    // A map size whose grids would run far past the file's end: refused by the grids' lengths,
    // never read.
    let mut larger = good.clone();
    larger[1..5].copy_from_slice(&4000u32.to_le_bytes());
    assert!(matches!(check("larger.dat", &larger).unwrap_err().kind, ErrorKind::WrongLength { .. }));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `list_file_sections` (what `isla diff` lists) walks a file's headers with positioned reads
/// through a 16 KiB window; it must list what `list_sections` lists from the bytes, or refuse
/// with the same error: a whole island, one with 3,000 small unknown sections after it (headers
/// across many windows, one straddling each window's end), and the same cut inside a header.
#[test]
fn listing_a_files_sections_agrees_with_listing_its_bytes() {
    let good = to_bytes(&sample(64)).unwrap();
    let mut many = good.clone();
    for i in 0..3000u32 {
        many.extend_from_slice(&(0x5A00_0000 | i).to_le_bytes());
        let payload = (i % 7) as u64;
        many.extend_from_slice(&payload.to_le_bytes());
        many.extend(std::iter::repeat_n(0xAB, payload as usize));
    }
    let cut = many[..many.len() - 5].to_vec();
    let dir = std::env::temp_dir().join(format!("isla-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in [("good.dat", &good), ("many.dat", &many), ("cut.dat", &cut)] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let (file, mem) = (list_file_sections(&path), list_sections(bytes));
        assert_eq!(format!("{file:?}"), format!("{mem:?}"), "{name}: the file's listing and the bytes' disagree");
        if name != "cut.dat" {
            assert!(file.unwrap().len() >= 6, "{name}: a listing of the island's sections");
        }
    }
    assert!(list_sections(&cut).is_err(), "a header cut short is refused");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SPEC §1.5 `RIVR`: "a reader that predates RIVR still reads the island" — without the section
/// every other section reads the same; an unknown version is skipped whole with a warning.
#[test]
fn rivr_is_optional_and_an_unknown_version_is_skipped() {
    let bp = sample(N);
    let bytes = to_bytes(&bp).unwrap();
    let without = read_bytes(&remove_section(&bytes, b"RIVR")).unwrap();
    assert_eq!(without, Blueprint { rivers: None, ..bp.clone() });
    let at = section_at(&bytes, b"RIVR") + 12;
    let mut v2 = bytes.clone();
    v2[at..at + 2].copy_from_slice(&2u16.to_le_bytes());
    let read = read_bytes(&v2).unwrap();
    assert_eq!(read.rivers, None, "never misread");
    assert_eq!(read.water, bp.water, "the water (where rivers live) is untouched");
    assert!(read.warnings[0].message.contains("RIVR version 2"), "{:?}", read.warnings);
}

/// SPEC §1.7 for `RIVR`: a count that promises more rivers or points than the bytes hold, a bad
/// order, a non-finite point and trailing bytes are each refused, naming the section.
#[test]
fn rivr_refusals_name_the_section_and_allocate_nothing_unbounded() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let at = section_at(&bytes, b"RIVR") + 12;
    let count_at = at + 2 + RIVR_DIALS_LEN;
    let first = count_at + 4;
    let refuse = |patch: &dyn Fn(&mut Vec<u8>), what: &str| {
        let mut b = bytes.clone();
        patch(&mut b);
        let e = err_of(&b);
        let text = e.to_string();
        assert!(text.starts_with("RIVR at byte"), "{what}: {text}");
        e
    };
    refuse(&|b| b[count_at..count_at + 4].copy_from_slice(&i32::MAX.to_le_bytes()), "huge river count");
    refuse(&|b| b[count_at..count_at + 4].copy_from_slice(&(-1i32).to_le_bytes()), "negative count");
    let e = refuse(&|b| b[first + 2] = 3, "order 3");
    assert!(matches!(e.kind, ErrorKind::RiverOrderOutOfRange { index: 0, order: 3 }));
    refuse(&|b| b[first + 25..first + 29].copy_from_slice(&i32::MAX.to_le_bytes()), "huge point count");
    let e = refuse(&|b| b[first + 29..first + 33].copy_from_slice(&f32::NAN.to_le_bytes()), "NaN point");
    assert!(matches!(e.kind, ErrorKind::NonFiniteValue { what: "river point x", .. }));
    // A point far off the map (which a map would walk to) and a negative width.
    let e = refuse(&|b| b[first + 29..first + 33].copy_from_slice(&1e30f32.to_le_bytes()), "point off the map");
    assert!(matches!(e.kind, ErrorKind::RiverValueOutOfRange { what: "river point x", .. }), "{e}");
    let e = refuse(&|b| b[first + 37..first + 41].copy_from_slice(&(-1f32).to_le_bytes()), "negative width");
    assert!(matches!(e.kind, ErrorKind::RiverValueOutOfRange { what: "river width", .. }), "{e}");
    // The writer refuses what the reader would.
    let mut bad = sample(N);
    bad.rivers.as_mut().unwrap().rivers[0].course[1].x = N as f32 + 1.0;
    assert!(to_bytes(&bad).is_err());
    // One byte more in the payload than the rivers use.
    let mut long = remove_section(&bytes, b"RIVR");
    let mut sec = section_bytes(&bytes, b"RIVR");
    let len = u64::from_le_bytes(sec[4..12].try_into().unwrap()) + 1;
    sec[4..12].copy_from_slice(&len.to_le_bytes());
    sec.push(0);
    long.extend_from_slice(&sec);
    assert!(matches!(err_of(&long).kind, ErrorKind::InconsistentCount { .. }));
}

/// SPEC §1.5 `ROAD`: optional (a reader without it reads the rest), an unknown version skipped
/// whole; refusals name the section: a bad tier, a town `TOWN` does not list, a point off the
/// map, a bridge span outside the road, counts the bytes cannot hold (refused before allocating).
#[test]
fn road_section_is_optional_and_its_refusals_name_it() {
    let bp = sample(N);
    let bytes = to_bytes(&bp).unwrap();
    assert_eq!(read_bytes(&remove_section(&bytes, b"ROAD")).unwrap(), Blueprint { roads: None, ..bp.clone() });
    let at = section_at(&bytes, b"ROAD") + 12;
    let mut v2 = bytes.clone();
    v2[at..at + 2].copy_from_slice(&2u16.to_le_bytes());
    let read = read_bytes(&v2).unwrap();
    assert_eq!(read.roads, None);
    assert!(read.warnings[0].message.contains("ROAD version 2"), "{:?}", read.warnings);

    let first = at + 6; // after the version and the count
    let refuse = |patch: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes.clone();
        patch(&mut b);
        let e = err_of(&b);
        assert!(e.to_string().starts_with("ROAD at byte"), "{e}");
        e
    };
    assert!(matches!(refuse(&|b| b[first] = 7).kind, ErrorKind::RoadTierOutOfRange { index: 0, tier: 7 }));
    let e = refuse(&|b| b[first + 13..first + 17].copy_from_slice(&1e9f32.to_le_bytes()));
    assert!(matches!(e.kind, ErrorKind::RoadPointOffMap { index: 0, point: 0, .. }), "{e}");
    // The first road's bridge [1, 2] made [2, 9] (it has 4 points).
    let bridge = first + 13 + 4 * 8;
    let e = refuse(&|b| b[bridge..bridge + 8].copy_from_slice(&[2, 0, 0, 0, 9, 0, 0, 0]));
    assert!(matches!(e.kind, ErrorKind::BridgeOutOfRange { first: 2, last: 9, points: 4, .. }), "{e}");
    refuse(&|b| b[at + 2..at + 6].copy_from_slice(&i32::MAX.to_le_bytes()));
    refuse(&|b| b[first + 5..first + 9].copy_from_slice(&i32::MAX.to_le_bytes()));
    // A town the road joins must be in TOWN (two towns there; 0xFFFF is none).
    let e = refuse(&|b| b[first + 3..first + 5].copy_from_slice(&5u16.to_le_bytes()));
    assert!(matches!(e.kind, ErrorKind::RoadTownOutOfRange { index: 0, town: 5, towns: 2 }), "{e}");
    let e = err_of(&remove_section(&bytes, b"TOWN"));
    assert!(matches!(e.kind, ErrorKind::RoadTownOutOfRange { index: 0, town: 0, towns: 0 }), "{e}");
    // The writer refuses what the reader would.
    let mut bad = sample(N);
    bad.roads.as_mut().unwrap().roads[0].bridges[0] = [3, 1];
    assert!(to_bytes(&bad).is_err());
    let mut bad = sample(N);
    bad.roads.as_mut().unwrap().roads[1].to_town = 2;
    assert!(matches!(to_bytes(&bad).unwrap_err().kind, ErrorKind::RoadTownOutOfRange { index: 1, town: 2, towns: 2 }));
}

/// SPEC §1.3 rule 3: "the same tag twice (known or not)". The framing keeps no list of unknown
/// sections, so a repeated unknown tag is found afterwards; it must still be the first problem
/// in file order that is reported: before a later framing error or a later repeated known tag,
/// after an earlier one, on both read paths.
#[test]
fn a_repeated_unknown_tag_is_refused_in_file_order() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let unknown = |tag: &[u8; 4]| [&tag[..], &3u64.to_le_bytes()[..], b"abc"].concat();
    let dup_at = |file: &[u8]| {
        let e = err_of(file);
        (e.kind.clone(), e.section_name(), e.offset)
    };
    // Two of ZZZZ among other unknown sections: refused at the second.
    let tail = [unknown(b"ZZZZ"), unknown(b"ZZZY"), unknown(b"ZZZZ")].concat();
    let file = [bytes.clone(), tail.clone()].concat();
    let second = (bytes.len() + 2 * 15) as u64;
    assert_eq!(dup_at(&file), (ErrorKind::DuplicateSection, "ZZZZ".into(), second));
    // A cut-short header after it, or a second BIOM after it: still the unknown repeat.
    let cut = [file.clone(), b"XY".to_vec()].concat();
    assert_eq!(dup_at(&cut), (ErrorKind::DuplicateSection, "ZZZZ".into(), second));
    let biom = [file.clone(), section_bytes(&bytes, b"BIOM")].concat();
    assert_eq!(dup_at(&biom), (ErrorKind::DuplicateSection, "ZZZZ".into(), second));
    // A second BIOM before it: the BIOM.
    let first = [bytes.clone(), section_bytes(&bytes, b"BIOM"), tail.clone()].concat();
    assert_eq!(dup_at(&first), (ErrorKind::DuplicateSection, "BIOM".into(), bytes.len() as u64));
    // A section running past the end before the repeat: that, not the repeat.
    let past = [bytes.clone(), unknown(b"ZZZZ"), b"ZZZX".to_vec(), 99u64.to_le_bytes().to_vec(), tail].concat();
    assert!(matches!(err_of(&past).kind, ErrorKind::SectionPastEnd { length: 99, .. }));
    // Distinct unknown tags, however many, are fine.
    let many: Vec<u8> = (0..300u32).flat_map(|i| unknown(&(0x5A00_0000 | i).to_le_bytes())).collect();
    assert_eq!(read_bytes(&[bytes.clone(), many].concat()).unwrap().warnings.len(), 65);
}

/// Every grid framed with the wrong length (one cell short, the file otherwise consistent) is
/// refused by its own length check, naming it, on both read paths.
#[test]
fn refuses_every_grid_of_the_wrong_length() {
    for (n, name) in [(N, "small"), (800, "large")] {
        let bytes = to_bytes(&sample(n)).unwrap();
        for (tag, cell) in [(b"HGTS", 4u64), (b"BIOM", 1), (b"WBID", 2), (b"WSRF", 2)] {
            let mut sec = section_bytes(&bytes, tag);
            let len = u64::from_le_bytes(sec[4..12].try_into().unwrap()) - cell;
            sec[4..12].copy_from_slice(&len.to_le_bytes());
            sec.truncate(sec.len() - cell as usize);
            let at = section_at(&bytes, tag);
            let file = [&bytes[..at], &sec[..], &bytes[at + 12 + len as usize + cell as usize..]].concat();
            let path = std::env::temp_dir().join(format!("isla-grid-len-{}-{name}.dat", std::process::id()));
            std::fs::write(&path, &file).unwrap();
            for e in [err_of(&file), read_file(&path).expect_err("refused")] {
                assert!(matches!(e.kind, ErrorKind::WrongLength { found, .. } if found == len), "{name} {e}");
                assert_eq!(e.section_name().as_bytes(), tag, "{name}: {e}");
            }
            std::fs::remove_file(&path).unwrap();
        }
    }
}

/// `DIAL` (SPEC §1.5): a count whose dials the bytes cannot hold, however the earlier dials used
/// them up, is refused as a short payload, never read past the end.
#[test]
fn a_dial_record_cut_short_is_refused_not_overrun() {
    let bp = sample(N);
    let bytes = to_bytes(&bp).unwrap();
    // Five dials promised, four present: the fifth starts at the payload's end.
    let at = section_at(&bytes, b"DIAL") + 12 + 2;
    let mut b = bytes.clone();
    b[at..at + 4].copy_from_slice(&5i32.to_le_bytes());
    let e = read_bytes(&b).unwrap_err();
    assert_eq!(e.section_name(), "DIAL");
    assert!(matches!(e.kind, ErrorKind::PayloadTooShort { .. }), "{e}");
    // An unknown type, and the first dial (`seed`, an i64 of -3) read as a bool of 253: each
    // refused naming the dial; a key given twice is refused by the writer.
    let first = at + 4;
    for (off, value, wants) in [(1 + 4, 9u8, "dial 0: 'seed' has type 9"), (1 + 4, 0, "must be 0 or 1")] {
        let mut b = bytes.clone();
        b[first + off] = value;
        let e = read_bytes(&b).unwrap_err();
        assert!(e.to_string().contains(wants), "{e}");
    }
    let mut dup = bp.clone();
    dup.dials.as_mut().unwrap().dials.push(("seed".into(), DialValue::Int(1)));
    assert!(to_bytes(&dup).unwrap_err().to_string().contains("'seed' appears twice"));
}

/// Every section's payload cut short inside a well-framed file (its length rewritten, the
/// sections after it intact) is refused naming that section, skipped whole where the section
/// is one a reader may skip, or (`TCRV`'s opaque body) read as exactly the bytes left — never
/// read past the payload. Lengths 0, 1, 3 and one short of the
/// payload. (cargo-mutants found no test that fed a section fewer bytes than its fixed part:
/// `Section::at_least` made a no-op survived.)
#[test]
fn every_section_cut_short_inside_its_frame_is_refused_naming_it() {
    let bytes = to_bytes(&sample(N)).unwrap();
    let sections = list_sections(&bytes).unwrap();
    let mut refused = 0;
    for s in &sections {
        let (head, len) = (s.offset as usize, s.payload_bytes as usize);
        let payload = head + SECTION_HEADER_LEN;
        for cut in [0, 1, 3, len.saturating_sub(1)] {
            if cut >= len {
                continue;
            }
            let mut b = bytes[..payload].to_vec();
            b[head + 4..head + 12].copy_from_slice(&(cut as u64).to_le_bytes());
            b.extend_from_slice(&bytes[payload..payload + cut]);
            b.extend_from_slice(&bytes[payload + len..]);
            match read_bytes(&b) {
                Err(e) => {
                    assert_eq!(e.section_name(), s.tag, "{} cut to {cut} bytes: {e}", s.tag);
                    refused += 1;
                }
                Ok(bp) => {
                    // `TCRV` keeps its body as opaque bytes after its version: a shorter body
                    // is another curve, read exactly. Otherwise only a section a reader may go
                    // without: then it is absent, not half read.
                    let absent = match s.tag.as_str() {
                        "TCRV" => bp.curve.as_ref().is_some_and(|c| c.body == bytes[payload + 2..payload + cut]),
                        "RIVR" => bp.rivers.is_none(),
                        "ROAD" => bp.roads.is_none(),
                        "DIAL" => bp.dials.is_none(),
                        "DETL" => bp.detail.is_none(),
                        "EROS" => bp.erosion.is_none(),
                        _ => false,
                    };
                    assert!(absent, "{} cut to {cut} bytes was read as if whole", s.tag);
                }
            }
        }
    }
    assert!(refused > 2 * sections.len(), "only {refused} refusals over {} sections", sections.len());
}

/// The framing's and the tables' edges, exactly (each once a surviving mutant of
/// `frame.rs`): where a too-long section is reported, a file of the header alone, the warning
/// list at exactly its bound, a table one record too long for its payload, and tables that are
/// empty or fill their payload exactly.
#[test]
fn the_framings_and_tables_edges_are_exact() {
    let bp = sample(N);
    let bytes = to_bytes(&bp).unwrap();
    // A section running past the end is reported at its length field.
    let at = section_at(&bytes, b"HGTS");
    let mut past = bytes.clone();
    past[at + 4..at + 12].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(err_of(&past).offset, at as u64 + 4);
    // The header alone is whole: what it lacks is its sections.
    let e = err_of(&bytes[..HEADER_LEN]);
    assert!(!matches!(e.kind, ErrorKind::TruncatedHeader { .. }), "{e}");
    // Exactly 64 unknown sections: each named at its header, no summary; 65: one summary.
    for (extra, warnings) in [(64u32, 64usize), (65, 65)] {
        let mut b = bytes.clone();
        let first = b.len() as u64;
        for i in 0..extra {
            b.extend_from_slice(&(0x5A00_0000 | i).to_le_bytes());
            b.extend_from_slice(&0u64.to_le_bytes());
        }
        let read = read_bytes(&b).unwrap();
        assert_eq!(read.warnings.len(), warnings, "{extra} unknown sections");
        for (i, w) in read.warnings.iter().take(64).enumerate() {
            assert_eq!(w.offset, first + 12 * i as u64, "warning {i}: {w:?}");
        }
        if extra == 65 {
            assert!(read.warnings[64].message.contains("1 more"), "{:?}", read.warnings[64]);
        }
    }
    // Exactly two unknown sections, one tag: the second is the repeat (SPEC §1.3 rule 3).
    let mut b = bytes.clone();
    for _ in 0..2 {
        b.extend_from_slice(b"ZZZZ");
        b.extend_from_slice(&0u64.to_le_bytes());
    }
    let e = err_of(&b);
    assert_eq!(e.section_name(), "ZZZZ", "{e}");
    assert_eq!((&e.kind, e.offset), (&ErrorKind::DuplicateSection, bytes.len() as u64 + 12), "{e}");
    // A road table promising one road more than its payload can hold at 13 bytes a road.
    let road = section_at(&bytes, b"ROAD");
    let len = list_sections(&bytes).unwrap().iter().find(|s| s.tag == "ROAD").unwrap().payload_bytes as usize;
    let count = (len - 6) / ROAD_RECORD_LEN + 1;
    let mut b = bytes.clone();
    b[road + 14..road + 18].copy_from_slice(&(count as i32).to_le_bytes());
    let e = err_of(&b);
    assert_eq!(e.section_name(), "ROAD");
    assert_eq!(
        e.kind,
        ErrorKind::PayloadTooShort { needed: (6 + count * ROAD_RECORD_LEN) as u64, found: len as u64 },
        "{e}"
    );
    // Empty tables, one of them (no dials) filling its payload exactly, read back as written.
    let mut empty = bp.clone();
    empty.roads.as_mut().unwrap().roads.clear();
    empty.rivers.as_mut().unwrap().rivers.clear();
    empty.dials = Some(DialRecord { dials: Vec::new() });
    let read = read_bytes(&to_bytes(&empty).unwrap()).unwrap();
    assert_eq!(read, empty);
}

/// A refusal names the byte it is about (SPEC §1: "the place"), in every small section and for
/// the second record of a table, not only the first; a warning likewise. And two bad heights in
/// one block are still seen. (Without this test these offsets were asserted nowhere, and
/// `metresPerRaw` 0 or `metresPerPixel` −1 were accepted by surviving mutants.)
#[test]
fn each_refusal_points_at_the_byte_it_names() {
    // Two water bodies, so the second record is read from its own place.
    let mut bp = sample(N);
    let bodies = bp.water.as_mut().unwrap().bodies.as_mut().unwrap();
    bodies.push(WaterBody { id: 2, kind: WaterType::Lake, pixel_count: 0, ..bodies[0] });
    let bytes = to_bytes(&bp).unwrap();
    let patch = |tag: &[u8; 4], at: usize, v: &[u8]| {
        let mut b = bytes.clone();
        let p = section_at(&b, tag) + 12 + at;
        b[p..p + v.len()].copy_from_slice(v);
        (err_of(&b), p as u64)
    };
    // PRMS: metresPerRaw 0, metresPerPixel −1 (index 1 and 2 of the six floats after the version).
    for (i, value, name) in [(1usize, 0.0f32, "metresPerRaw"), (2, -1.0, "metresPerPixel"), (2, 0.0, "metresPerPixel")]
    {
        let (e, p) = patch(b"PRMS", 2 + 4 * i, &value.to_le_bytes());
        assert!(matches!(e.kind, ErrorKind::InvalidParameter { name: n, .. } if n == name), "{e}");
        assert_eq!(e.offset, p, "{name}");
    }
    // TOWN: the second town's y not finite; WBTB: the second body's kind out of range.
    let (e, p) = patch(b"TOWN", 4 + TOWN_RECORD_LEN + 4, &f32::NAN.to_le_bytes());
    assert!(matches!(e.kind, ErrorKind::NonFiniteValue { what: "town y", index: 1, .. }), "{e}");
    assert_eq!(e.offset, p);
    let (e, p) = patch(b"WBTB", 4 + WATER_BODY_RECORD_LEN + 2, &[7]);
    assert_eq!(e.kind, ErrorKind::WaterTypeOutOfRange { index: 1, value: 7 });
    assert_eq!(e.offset, p);
    // RIVR: the second river's order, source x and length (the first river has three points).
    let r1 = 2 + RIVR_DIALS_LEN + 4 + RIVER_RECORD_LEN + 3 * RIVER_POINT_LEN;
    let (e, p) = patch(b"RIVR", r1 + 2, &[9]);
    assert_eq!(e.kind, ErrorKind::RiverOrderOutOfRange { index: 1, order: 9 });
    assert_eq!(e.offset, p);
    for at in [r1 + 5, r1 + 21] {
        let (e, p) = patch(b"RIVR", at, &f32::NAN.to_le_bytes());
        assert_eq!((e.section_name(), e.offset), ("RIVR".to_string(), p), "{e}");
    }
    // HGTS: two heights not finite in one block; the first is named.
    let mut b = bytes.clone();
    let h = section_at(&b, b"HGTS") + 12;
    for k in [3usize, 9] {
        b[h + 4 * k..h + 4 * k + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    }
    let e = err_of(&b);
    assert!(matches!(e.kind, ErrorKind::NonFiniteHeight { x: 0, y: 3, .. }), "{e}");
    assert_eq!(e.offset, (h + 12) as u64);
    // PRMS longer than this version's: the warning points at the first byte skipped.
    let prms = section_bytes(&bytes, b"PRMS");
    let mut longer = prms.clone();
    longer[4..12].copy_from_slice(&((PRMS_LEN + 4) as u64).to_le_bytes());
    longer.extend_from_slice(&[9, 9, 9, 9]);
    let rest = remove_section(&bytes, b"PRMS");
    let file = [&rest[..HEADER_LEN], &longer[..], &rest[HEADER_LEN..]].concat();
    let bp = read_bytes(&file).unwrap();
    assert_eq!(bp.warnings[0].offset, (HEADER_LEN + 12 + PRMS_LEN) as u64, "{:?}", bp.warnings);
}
