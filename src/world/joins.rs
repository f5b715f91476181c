//! Where roads meet (SPEC §3 "Roads"): junctions, crossings and the roads that share a
//! town are graded together, so the carved surface has no step where two roadbeds overlap.
//!
//! Each road's roadbed is first graded alone ([`super::roadbed`]). Two roads are **in contact** at a
//! pair of points closer than their half-widths plus the wider shoulder: there the carve of one
//! road's columns meets the other's. At every contact both roadbeds are pinned to one height, the
//! mean of the two (the height that fits both best), and each road's profile is then clamped
//! between the cones `pin ± grade · distance` of all its pins, so it ramps to every junction
//! within its own tier's grade (the clamp of a grade-limited profile between grade-limited cones
//! is grade-limited). It never drops below the road's floor (sea, bridge clearance, water
//! beside it). A few rounds of this settle the pins; what two roads still disagree by at a
//! contact is the **residue**, reported by the world server's log and `isla info`.

use super::roadbed::{CarvedRoad, road_width_m, shoulder_m};

/// Rounds of pinning: each round halves what two roads disagree by at a contact.
const ROUNDS: usize = 12;

/// How the roads met.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct JoinStats {
    /// Pairs of points (of two different roads) in contact.
    pub contacts: usize,
    /// Road points pinned to a junction height.
    pub pinned_points: usize,
    /// The largest difference (m) left between two roadbeds at a contact.
    pub residue_m: f32,
}

/// A contact: road `a`'s point `i` and road `b`'s point `j` (`a < b`).
pub type Contact = (u32, u32, u32, u32);

/// The contacts between the roads, sorted (bridge spans left out: their decks are drawn apart).
pub fn contacts(roads: &[CarvedRoad], mpp: f32) -> Vec<Contact> {
    let reach_px = |a: &CarvedRoad, b: &CarvedRoad| {
        (road_width_m(a.tier) / 2.0 + road_width_m(b.tier) / 2.0 + shoulder_m(a.tier).max(shoulder_m(b.tier))) / mpp
    };
    let cell = roads.iter().flat_map(|a| roads.iter().map(|b| reach_px(a, b))).fold(1.0f32, f32::max);
    let mut grid: std::collections::HashMap<(i32, i32), Vec<(u32, u32)>> = std::collections::HashMap::new();
    for (ri, r) in roads.iter().enumerate() {
        for (pi, p) in r.points.iter().enumerate() {
            if !r.bridge[pi] {
                let key = ((p[0] / cell).floor() as i32, (p[1] / cell).floor() as i32);
                grid.entry(key).or_default().push((ri as u32, pi as u32));
            }
        }
    }
    let mut out = Vec::new();
    for (ri, r) in roads.iter().enumerate() {
        for (pi, p) in r.points.iter().enumerate() {
            if r.bridge[pi] {
                continue;
            }
            let (cx, cy) = ((p[0] / cell).floor() as i32, (p[1] / cell).floor() as i32);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for &(rj, pj) in grid.get(&(cx + dx, cy + dy)).map_or(&[][..], |v| &v[..]) {
                        // Each unordered pair once, and never a road with itself.
                        if rj as usize <= ri {
                            continue;
                        }
                        let q = roads[rj as usize].points[pj as usize];
                        if (p[0] - q[0]).hypot(p[1] - q[1]) <= reach_px(r, &roads[rj as usize]) {
                            out.push((ri as u32, pi as u32, rj, pj));
                        }
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// Arc length (m) along a road's points.
fn arc_m(r: &CarvedRoad, mpp: f32) -> Vec<f32> {
    let mut s = vec![0f32; r.points.len()];
    for i in 1..s.len() {
        let (a, b) = (r.points[i - 1], r.points[i]);
        s[i] = s[i - 1] + (b[0] - a[0]).hypot(b[1] - a[1]) * mpp;
    }
    s
}

/// Clamp `bed` between the cones `pin ± grade · |s − s_pin|` of its pins (where they agree;
/// where two pins ask for more than the grade allows, the middle), then hold it above `floor`.
pub(super) fn ramp_to_pins(bed: &mut [f32], s: &[f32], pins: &[Option<f32>], grade: f32, floor: &[f32]) {
    // In f64: the cones chain one addition a point, and the roadbed must stay within the grade
    // to the last bit a test can see.
    let m = bed.len();
    let g = grade as f64;
    let (mut upper, mut lower) = (vec![f64::INFINITY; m], vec![f64::NEG_INFINITY; m]);
    for i in 0..m {
        if let Some(h) = pins[i] {
            upper[i] = h as f64;
            lower[i] = h as f64;
        }
    }
    for i in 1..m {
        let d = g * (s[i] - s[i - 1]) as f64;
        upper[i] = upper[i].min(upper[i - 1] + d);
        lower[i] = lower[i].max(lower[i - 1] - d);
    }
    for i in (0..m.saturating_sub(1)).rev() {
        let d = g * (s[i + 1] - s[i]) as f64;
        upper[i] = upper[i].min(upper[i + 1] + d);
        lower[i] = lower[i].max(lower[i + 1] - d);
    }
    for i in 0..m {
        let b = bed[i] as f64;
        let b = if lower[i] <= upper[i] { b.clamp(lower[i], upper[i]) } else { 0.5 * (lower[i] + upper[i]) };
        bed[i] = (b as f32).max(floor[i]);
    }
}

/// Grade the roads together where they meet (see the module comment); returns how they met.
pub fn join_roads(roads: &mut [CarvedRoad], mpp: f32) -> JoinStats {
    let found = contacts(roads, mpp);
    if found.is_empty() {
        return JoinStats::default();
    }
    let arcs: Vec<Vec<f32>> = roads.iter().map(|r| arc_m(r, mpp)).collect();
    // Each road's profile graded alone: every round ramps from it, so pins never compound.
    let alone: Vec<Vec<f32>> = roads.iter().map(|r| r.bed_m.clone()).collect();
    let mut pinned = 0;
    for _ in 0..ROUNDS {
        let mut sums: Vec<Vec<(f32, u32)>> = roads.iter().map(|r| vec![(0.0, 0); r.points.len()]).collect();
        for &(a, i, b, j) in &found {
            let h = 0.5 * (roads[a as usize].bed_m[i as usize] + roads[b as usize].bed_m[j as usize]);
            for (r, p) in [(a, i), (b, j)] {
                let e = &mut sums[r as usize][p as usize];
                *e = (e.0 + h, e.1 + 1);
            }
        }
        pinned = 0;
        for (k, r) in roads.iter_mut().enumerate() {
            let pins: Vec<Option<f32>> = sums[k].iter().map(|&(h, n)| (n > 0).then(|| h / n as f32)).collect();
            pinned += pins.iter().filter(|p| p.is_some()).count();
            let mut bed = alone[k].clone();
            ramp_to_pins(&mut bed, &arcs[k], &pins, r.tier.grade_limit(), &r.floor_m);
            r.bed_m = bed;
        }
    }
    let residue_m = found
        .iter()
        .map(|&(a, i, b, j)| (roads[a as usize].bed_m[i as usize] - roads[b as usize].bed_m[j as usize]).abs())
        .fold(0.0, f32::max);
    JoinStats { contacts: found.len(), pinned_points: pinned, residue_m }
}
