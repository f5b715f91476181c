//! SPEC §3 "Roads", issue 27: the road network as the world server carves it, walked column by
//! column. These tests read the carved surface (`WorldSource::surface_y_m`, the same data
//! `isla chunk` prints), not the planned profiles, so a step where two roadbeds meet shows.

use isla::blueprint::RoadTier;
use isla::world::WorldSource;
use std::sync::{Arc, OnceLock};

fn world(name: &str) -> &'static WorldSource {
    static DEFAULT: OnceLock<WorldSource> = OnceLock::new();
    static SMALL: OnceLock<WorldSource> = OnceLock::new();
    let cell = if name == "default" { &DEFAULT } else { &SMALL };
    cell.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("blueprints/{name}.dat"));
        WorldSource::new(Arc::new(isla::blueprint::read_file(&path).unwrap()))
    })
}

/// One step of a walk: where, the rise over the run, and the tier walked (`at` and `tier` are
/// read through `Debug`, in the failure messages).
#[allow(dead_code)]
#[derive(Debug, Clone, Copy)]
struct Step {
    at: [i64; 2],
    grade: f32,
    tier: RoadTier,
}

/// Walk every road of the blueprint along its points, sampling the carved surface about every
/// `every` columns of arc (the "every 8th point" at one point a column; a road bending
/// back on itself carries more points a column) where the column is a road column, and return
/// the steps between consecutive
/// samples: the rise over the run along the road (its arc length, so a hairpin's two legs are
/// not read as a cliff between them), bridge spans left out (their deck is drawn apart).
fn walk(src: &WorldSource, every: usize) -> Vec<Step> {
    let bp = &src.blueprint;
    let Some(net) = &bp.roads else { return Vec::new() };
    let mpp = bp.params.metres_per_pixel;
    let mut out = Vec::new();
    for r in &net.roads {
        let on_bridge = |i: usize| r.bridges.iter().any(|b| (b[0] as usize..=b[1] as usize).contains(&(i)));
        let mut arc = vec![0f32; r.points.len()];
        for i in 1..arc.len() {
            let (a, b) = (r.points[i - 1], r.points[i]);
            arc[i] = arc[i - 1] + (b[0] - a[0]).hypot(b[1] - a[1]) * mpp;
        }
        let mut last: Option<(f32, f32)> = None;
        let mut next_m = 0.0;
        for (i, p) in r.points.iter().enumerate() {
            if arc[i] < next_m {
                continue;
            }
            next_m = arc[i] + every as f32 * mpp;
            let c = [p[0].floor() as i64, p[1].floor() as i64];
            if on_bridge(i) || src.road_at(c[0], c[1]).is_none() {
                last = None;
                continue;
            }
            let y = src.surface_y_m(c[0], c[1]);
            if let Some((sq, yq)) = last {
                let run = arc[i] - sq;
                if run > 0.0 {
                    out.push(Step { at: c, grade: (y - yq).abs() / run, tier: r.tier });
                }
            }
            last = Some((arc[i], y));
        }
    }
    out
}

/// The steepest steps of a walk, for the failure message.
fn worst(steps: &[Step], n: usize) -> Vec<Step> {
    let mut s = steps.to_vec();
    s.sort_by(|a, b| b.grade.total_cmp(&a.grade));
    s.truncate(n);
    s
}

/// Issue 27's must-show: walking the carved surface along every road of the default island,
/// every 8 columns of arc, no step between sampled road columns is steeper than 15 % (the
/// steepest tier allows 12 %; the rest is the column grid against the centreline). Measured
/// 2026-12-02: 13.2 % with the roads joined; 54 % without (at (344, 654)), 53 % at the city
/// near (700, 475) and 46 % at the crossing near (339, 759). `small.dat` (16 m columns) still
/// steps 32 % where its roads share a corridor (residue 23 m): not yet asserted (issue 27).
#[test]
fn no_step_along_the_carved_roads_is_steeper_than_fifteen_percent() {
    for name in ["default"] {
        let steps = walk(world(name), 8);
        assert!(steps.len() > 100, "{name}: {} steps walked", steps.len());
        let w = worst(&steps, 6);
        eprintln!("{name}: {:?}; {} steps, steepest {:?}", world(name).roads.joins, steps.len(), w);
        assert!(w[0].grade <= 0.15, "{name}: steps steeper than 15 %: {w:?}");
    }
}

/// Issue 27: every town has a flat square sized by its tier, carved at one height (within
/// 0.25 m) and paved with road material; the roads into the town ramp to it.
#[test]
fn every_town_has_a_flat_paved_square() {
    let src = world("default");
    let bp = &src.blueprint;
    let towns = bp.towns.as_ref().expect("the default island has towns");
    assert_eq!(src.roads.squares.len(), towns.len(), "one square a town");
    for (t, sq) in towns.iter().zip(&src.roads.squares) {
        let half = isla::world::roads::town_square_half_m(t.tier) / bp.params.metres_per_pixel;
        assert_eq!(sq.half_px, half);
        let (mut lo, mut hi, mut columns) = (f32::MAX, f32::MIN, 0);
        let r = half.floor() as i64 - 1;
        let (cx, cy) = (t.x.floor() as i64, t.y.floor() as i64);
        for x in cx - r..=cx + r {
            for y in cy - r..=cy + r {
                if src.water_at(x as u32, y as u32, 1e4).is_some() {
                    continue;
                }
                let h = src.surface_y_m(x, y);
                (lo, hi, columns) = (lo.min(h), hi.max(h), columns + 1);
                assert!(src.road_at(x, y).is_some(), "town at ({}, {}): column ({x}, {y}) is not paved", t.x, t.y);
            }
        }
        assert!(columns > 0);
        assert!(hi - lo <= 0.25, "town at ({}, {}): its square spans {lo:.2}..{hi:.2} m", t.x, t.y);
    }
}

/// SPEC §3 "Joins": two roads are in contact at every pair of their points (bridge spans aside)
/// closer than their half-widths plus the wider shoulder — all of them, found here by brute
/// force from SPEC's widths, and no others. (cargo-mutants: the cell search and the reach were
/// unguarded by the walk.)
#[test]
fn the_contacts_are_every_close_pair_of_points_and_no_other() {
    use isla::world::roads::{road_width_m, shoulder_m};
    let src = world("default");
    let roads = &src.roads.roads;
    let mpp = src.blueprint.params.metres_per_pixel;
    let mut want = Vec::new();
    for (a, ra) in roads.iter().enumerate() {
        for (b, rb) in roads.iter().enumerate().skip(a + 1) {
            let reach_px = (road_width_m(ra.tier) / 2.0
                + road_width_m(rb.tier) / 2.0
                + shoulder_m(ra.tier).max(shoulder_m(rb.tier)))
                / mpp;
            for (i, p) in ra.points.iter().enumerate().filter(|(i, _)| !ra.bridge[*i]) {
                for (j, q) in rb.points.iter().enumerate().filter(|(j, _)| !rb.bridge[*j]) {
                    if (p[0] - q[0]).hypot(p[1] - q[1]) <= reach_px {
                        want.push((a as u32, i as u32, b as u32, j as u32));
                    }
                }
            }
        }
    }
    want.sort_unstable();
    let got = isla::world::joins::contacts(roads, mpp);
    assert!(want.len() > 1000, "{} contacts on the default island", want.len());
    assert_eq!(got.len(), want.len(), "contacts found against every close pair");
    assert!(got == want, "the same pairs");
}
