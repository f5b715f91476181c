//! The far field keeps the island's detail (SPEC §3 "Far-field textures"): coarse tiles shade
//! per pixel from their colour and normal textures, so level of detail looks like full detail.

use crate::common::render_shot;

/// The default island from 2.5 km (levels 2–3), level of detail on against `--lod off`, by
/// CIELAB ΔE per pixel (`isla::compare::delta_e`). At this size: per-vertex colour and normals
/// (before the textures) read mean 2.00 and 5.4 % of pixels over ΔE 10; the textures on the
/// uncarved terrain 1.058 / 2.93 % (fails here); on the carved surface 0.809 / 2.08 % (960 × 540:
/// 1.97 / 5.3 %, 1.044 / 2.78 %, 0.735 / 1.71 %).
#[test]
fn the_far_field_matches_full_detail_in_colour() {
    let pose = ["--look-from=2048,2500,3400", "--look-at=2048,0,2000", "--no-fog"];
    let bp = "blueprints/default.dat";
    let on = render_shot(bp, (320, 180), &pose, "far-field-on.png");
    let off = render_shot(bp, (320, 180), &[&pose[..], &["--lod", "off"]].concat(), "far-field-off.png");
    let de = isla::compare::delta_e(&off, &on);
    let mean = de.iter().map(|&e| e as f64).sum::<f64>() / de.len() as f64;
    let over = de.iter().filter(|&&e| e > 10.0).count() as f64 / de.len() as f64;
    eprintln!("far field against full detail: mean ΔE {mean:.3}, {:.2} % of pixels over ΔE 10", over * 100.0);
    assert!(mean <= 0.9, "mean ΔE {mean:.3} against full detail");
    assert!(over <= 0.023, "{:.2} % of pixels differ from full detail by ΔE > 10", over * 100.0);
}

/// A synthetic island (the cone of `blueprint::testing::cone_island`, 512², 2 m a pixel) with
/// one straight highway 11° off the Z axis and a river beside it, written to a blueprint and
/// shot straight down from 1.3 × `range(2)` above its summit, where only levels ≥ 3 are drawn
/// (vertices every 8 or more columns; the 10 m road is 5 columns wide, about 2.5 px here). Across
/// every image column the road spans (its middle 80 %), a pixel within 3 rows of the road's
/// fitted line is asphalt: the road is one continuous line. Per-vertex colour (before the
/// textures) draws it as dashes: 66 of 137 columns without road; the textures: none of 147.
#[test]
fn a_straight_road_stays_continuous_on_the_coarse_levels() {
    use isla::blueprint::*;
    let n = 512usize;
    let mut bp = testing::cone_island(n);
    // The road: one point per pixel from (200, 100) to (260, 412) (pixel x, y).
    let (a, b) = ([200.0f32, 100.0f32], [260.0f32, 412.0f32]);
    let len = (b[0] - a[0]).hypot(b[1] - a[1]).ceil() as usize;
    let points = (0..=len).map(|i| {
        let t = i as f32 / len as f32;
        [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
    });
    let road = Road {
        tier: RoadTier::Highway,
        from_town: NO_TOWN,
        to_town: NO_TOWN,
        points: points.collect(),
        bridges: vec![],
    };
    bp.roads = Some(RoadNetwork { roads: vec![road] });
    // The river: a lake body 3 pixels wide along x = 300..303 (y 100..412), 0.5 m below its banks.
    let water = bp.water.as_mut().unwrap();
    let surface = water.surface.as_mut().unwrap();
    for x in 300..303 {
        for y in 100..412 {
            let i = x * n + y;
            let bank = bp.heights_raw[i];
            bp.heights_raw[i] = bank - 1.0 / 251.0;
            water.body_ids[i] = 2;
            surface[i] = water_level::encode(bank - 0.5 / 251.0);
        }
    }
    water.bodies.as_mut().unwrap().push(WaterBody {
        id: 2,
        kind: WaterType::Lake,
        salinity: Salinity::Fresh,
        surface_level_raw: 0.6,
        pixel_count: 3 * 312,
        centroid_x: 301.0,
        centroid_y: 256.0,
    });
    let path = crate::common::out_dir().join("road-and-river.dat");
    isla::blueprint::write_file_atomic(&path, &bp).unwrap();
    let src = isla::world::WorldSource::new(std::sync::Arc::new(bp));
    let tree = isla::world::lod::LodTree::new(&src);
    let h = src.max_height_m() + 1.3 * tree.ranges.range_m(2);
    let (cx, cz) = (230.0 * 2.0, 256.0 * 2.0);
    let from = format!("--look-from={cx},{h},{cz}");
    let at = format!("--look-at={cx},0,{cz}");
    let (w, hh) = (640u32, 360u32);
    let img =
        render_shot(path.to_str().unwrap(), (w, hh), &[&from, &at, "--no-fog", "--no-shadows"], "road-and-river.png");
    // Asphalt: grey (lit about 89, 89, 97), darker than the grass and the gravel shoulders; the
    // cut's banks facing away from the sun are dark but blue.
    let asphalt = |x: u32, y: u32| {
        let p = img.get_pixel(x, y);
        let spread = p.0.iter().max().unwrap() - p.0.iter().min().unwrap();
        spread <= 14 && crate::common::luma(p) < 120.0
    };
    let dark: Vec<(f64, f64)> = (0..hh)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| asphalt(x, y))
        .map(|(x, y)| (x as f64, y as f64))
        .collect();
    assert!(dark.len() > 100, "the road is not in view ({} dark pixels)", dark.len());
    // Least-squares line y = p + q·x through the dark pixels.
    let m = dark.len() as f64;
    let (sx, sy) = (dark.iter().map(|d| d.0).sum::<f64>(), dark.iter().map(|d| d.1).sum::<f64>());
    let sxx = dark.iter().map(|d| d.0 * d.0).sum::<f64>();
    let sxy = dark.iter().map(|d| d.0 * d.1).sum::<f64>();
    let q = (m * sxy - sx * sy) / (m * sxx - sx * sx);
    let p = (sy - q * sx) / m;
    let (x0, x1) = dark.iter().fold((f64::MAX, f64::MIN), |r, d| (r.0.min(d.0), r.1.max(d.0)));
    let (lo, hi) = ((x0 + 0.1 * (x1 - x0)) as u32, (x1 - 0.1 * (x1 - x0)) as u32);
    let gaps: Vec<u32> = (lo..=hi)
        .filter(|&x| {
            let y = p + q * x as f64;
            let ys = ((y - 3.0).max(0.0) as u32)..=((y + 3.0).min(hh as f64 - 1.0) as u32);
            !ys.into_iter().any(|y| asphalt(x, y))
        })
        .collect();
    eprintln!(
        "road from {h:.0} m: {} dark pixels, line y = {p:.1} + {q:.3} x over x {lo}..{hi}; {} columns without road: {:?}",
        dark.len(),
        gaps.len(),
        &gaps[..gaps.len().min(20)]
    );
    assert!(hi - lo > 100, "the road spans only {} columns", hi - lo);
    assert!(
        gaps.is_empty(),
        "the road breaks in {} of {} columns: {:?}",
        gaps.len(),
        hi - lo + 1,
        &gaps[..gaps.len().min(20)]
    );
}

/// The far-field pages (`isla::app::far_field`): the coarse tiles of a level share a page's
/// material until its layers are taken (4, then 8), each tile's tag holds its own layer and its
/// place on the level's grid, a despawned tile frees its layer for the next, an empty page goes
/// once another page of its level has room (one is kept as a spare), and the slots of a replaced
/// island free nothing in the new island's pages.
#[test]
fn coarse_tiles_share_a_page_and_free_their_layers() {
    use bevy::prelude::*;
    use isla::app::far_field::{FIRST_PAGE_LAYERS, FarFieldPages, LayerWrites, place};
    use isla::app::terrain::{LodExt, LodMaterial, terrain_base};
    use isla::mesh::far_field::TileTexture;

    const LEVEL: u8 = 3;
    let cols = 32i64 << LEVEL;
    let textures = |tx: i64, tz: i64| {
        let tex = |side: u32, spacing: i64| TileTexture {
            origin: [tx * cols, tz * cols],
            spacing,
            side,
            colour: vec![[9; 4]; (side * side) as usize],
            normal: vec![[128; 4]; (side * side) as usize],
        };
        [tex(129, cols / 128), tex(65, cols / 64)]
    };
    let mut world = World::new();
    world.insert_resource(FarFieldPages::default());
    world.insert_resource(LayerWrites::default());
    let mut images = Assets::<Image>::default();
    let mut materials = Assets::<LodMaterial>::default();
    let ext = LodExt::new(Vec4::ZERO, Vec4::ONE, ([0.5; 3], [0.2; 3]), 0.0, None);
    let level = materials.add(LodMaterial { base: terrain_base(), extension: ext });
    // Place tile (tx, tz): its entity, material and tag's layer; the tag's tile index checked.
    let mut place_tile = |world: &mut World, tx: i64, tz: i64| {
        world.resource_scope(|world, mut pages: Mut<FarFieldPages>| {
            let mut writes = world.resource_mut::<LayerWrites>();
            let (m, tag, slot) =
                place(&mut pages, &mut writes, &level, LEVEL, textures(tx, tz), 4.0, &mut images, &mut materials)
                    .expect("the level's material exists");
            assert_eq!([(tag.0 >> 4) & 0x3ff, (tag.0 >> 14) & 0x3ff], [tx as u32, tz as u32], "tile index in the tag");
            assert_eq!(tag.0 >> 24, 0, "no border pins until the world server sets them");
            let id = m.0.id();
            let layer = tag.0 & 15;
            (world.spawn((m, tag, slot)).id(), id, layer)
        })
    };
    let pages_alive = |world: &World| world.resource::<FarFieldPages>().page_count();

    let n = FIRST_PAGE_LAYERS as usize;
    let first: Vec<_> = (0..n as i64).map(|i| place_tile(&mut world, i % 3, i / 3 + 20)).collect();
    assert!(first.iter().all(|t| t.1 == first[0].1), "one page's tiles share one material");
    let mut layers: Vec<u32> = first.iter().map(|t| t.2).collect();
    layers.sort();
    assert_eq!(layers, (0..FIRST_PAGE_LAYERS).collect::<Vec<_>>(), "each tile its own layer");
    assert_eq!(world.resource::<LayerWrites>().len(), 4 * n, "four layers written a tile");
    assert_eq!(pages_alive(&world), 1);

    // The page is full: the next tile opens a second, twice as large.
    let extra = place_tile(&mut world, 7, 7);
    assert_ne!(extra.1, first[0].1);
    assert_eq!(pages_alive(&world), 2);
    let layer_bytes = 2 * 4 * (129 * 129 + 65 * 65) as u64;
    let bytes = world.resource::<FarFieldPages>().bytes_per_level(7);
    assert_eq!(bytes[LEVEL as usize], (n as u64 + 2 * n as u64) * layer_bytes);
    assert_eq!(bytes.iter().sum::<u64>(), bytes[LEVEL as usize], "counted on the tiles' level");

    // A freed layer goes to the next tile, in the fullest page with room.
    world.despawn(first[1].0);
    let again = place_tile(&mut world, 8, 8);
    assert_eq!((again.1, again.2), (first[0].1, first[1].2), "the freed layer of the fuller page");

    // The second page empties while the first is full: it stays, the level's only room.
    world.despawn(extra.0);
    assert_eq!(pages_alive(&world), 2);
    // The first page has room again, the second holds one tile: when it empties, it goes.
    let second = place_tile(&mut world, 9, 9);
    assert_eq!(second.1, extra.1);
    world.despawn(first[2].0);
    world.despawn(second.0);
    assert_eq!(pages_alive(&world), 1);

    // A new island: the old island's tiles free nothing in its pages.
    let old = world.remove_resource::<FarFieldPages>().unwrap();
    world.insert_resource(FarFieldPages::after(Some(&old)));
    let fresh = place_tile(&mut world, 1, 1);
    let before = world.resource::<FarFieldPages>().bytes_per_level(7);
    for t in &first[3..] {
        world.despawn(t.0);
    }
    world.despawn(again.0);
    assert_eq!(world.resource::<FarFieldPages>().bytes_per_level(7), before);
    assert_eq!(pages_alive(&world), 1);
    // Its first page fills with distinct layers (no old slot was handed back into it).
    let more: Vec<_> = (1..n as i64).map(|i| place_tile(&mut world, i, 2)).collect();
    let mut layers: Vec<u32> = more.iter().chain([&fresh]).map(|t| t.2).collect();
    layers.sort();
    assert_eq!(layers, (0..FIRST_PAGE_LAYERS).collect::<Vec<_>>(), "the new island's page, layer by layer");
    assert!(more.iter().all(|t| t.1 == fresh.1));
    for t in &more {
        world.despawn(t.0);
    }
    world.despawn(fresh.0);
    assert_eq!(pages_alive(&world), 1, "a level's last page stays as its spare");
}
