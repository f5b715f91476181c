//! Towns on flat dry land: candidates on a coarse grid, kept where the rendered ground is dry,
//! above the beach, flat and on the mainland (the largest 4-connected dry landmass, so every town
//! can be reached by road); the flattest first, with a minimum spacing; tiers by rank.

use super::crater::Crater;
use crate::blueprint::{Town, TownTier};

/// The town dials.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TownDials {
    /// Most towns placed (the capitol, two cities, four towns, then villages).
    pub max_towns: u32,
    /// Steepest rendered slope a town accepts on a 1024² map (metres per metre; the bar scales
    /// up on smaller maps, whose slopes are steeper).
    pub max_slope: f32,
    /// Lowest rendered height above sea for a town, metres.
    pub min_above_sea_m: f32,
    /// Least distance between two towns, as a fraction of the map's side (at least 6 px).
    pub spacing: f32,
}

impl Default for TownDials {
    fn default() -> Self {
        Self { max_towns: 14, max_slope: 0.06, min_above_sea_m: 3.0, spacing: 0.125 }
    }
}

/// Towns in pixel index coordinates (`x`, `y` as in every grid).
#[allow(clippy::too_many_arguments)]
pub fn place(
    dials: &TownDials,
    n: usize,
    render: &[f32],
    body_ids: &[u16],
    crater: Option<&Crater>,
    sea: f32,
    mpr: f32,
    mpp: f32,
) -> Vec<Town> {
    // The island's shape is size-independent, so its slopes grow as the map shrinks: the
    // flatness bar scales with it (the 1024² island is the reference).
    let max_slope = dials.max_slope * (1024.0 / n as f32).max(1.0);
    let mainland = mainland(n, render, body_ids, sea);
    let step = (n / 40).max(4);
    let reach = (step / 4).max(1);
    let mut candidates: Vec<(f32, usize, usize)> = Vec::new();
    for x in (step..n.saturating_sub(step)).step_by(step) {
        for y in (step..n.saturating_sub(step)).step_by(step) {
            let i = x * n + y;
            if body_ids[i] != 0 || (render[i] - sea) * mpr < dials.min_above_sea_m || !mainland[i] {
                continue;
            }
            if crater.is_some_and(|c| c.distance(x, y) < c.radius_px * 1.2) {
                continue;
            }
            let mut slope = 0f32;
            let mut wet = false;
            for (dx, dy) in [(reach, 0), (0, reach)] {
                for (a, b) in [(i + dx * n + dy, i), (i, i - dx * n - dy)] {
                    slope = slope.max((render[a] - render[b]).abs() * mpr / (reach as f32 * mpp));
                    wet |= body_ids[a] != 0 || body_ids[b] != 0;
                }
            }
            if !wet && slope < max_slope {
                candidates.push((slope, x, y));
            }
        }
    }
    // Flattest first; ties by position (deterministic).
    candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let spacing = (n as f32 * dials.spacing).max(6.0);
    let mut towns: Vec<Town> = Vec::new();
    for (_, x, y) in candidates {
        if towns.len() >= dials.max_towns as usize {
            break;
        }
        if towns.iter().all(|t| ((t.x - x as f32).powi(2) + (t.y - y as f32).powi(2)).sqrt() >= spacing) {
            let tier = match towns.len() {
                0 => TownTier::Capitol,
                1..=2 => TownTier::City,
                3..=6 => TownTier::Town,
                _ => TownTier::Village,
            };
            towns.push(Town { x: x as f32, y: y as f32, tier, is_highway_node: tier as u8 >= TownTier::City as u8 });
        }
    }
    towns
}

/// The largest 4-connected region of dry land (no water body, at or above sea); ties by the
/// region found first in scan order.
fn mainland(n: usize, render: &[f32], body_ids: &[u16], sea: f32) -> Vec<bool> {
    let dry = |i: usize| body_ids[i] == 0 && render[i] >= sea;
    let mut label = vec![0u32; n * n];
    let (mut best, mut best_size, mut next) = (0u32, 0usize, 0u32);
    let mut stack = Vec::new();
    for s in 0..n * n {
        if label[s] != 0 || !dry(s) {
            continue;
        }
        next += 1;
        label[s] = next;
        stack.push(s);
        let mut size = 0;
        while let Some(i) = stack.pop() {
            size += 1;
            let (x, y) = (i / n, i % n);
            let mut visit = |j: usize| {
                if label[j] == 0 && dry(j) {
                    label[j] = next;
                    stack.push(j);
                }
            };
            if x > 0 {
                visit(i - n);
            }
            if x + 1 < n {
                visit(i + n);
            }
            if y > 0 {
                visit(i - 1);
            }
            if y + 1 < n {
                visit(i + 1);
            }
        }
        if size > best_size {
            (best, best_size) = (next, size);
        }
    }
    label.iter().map(|&l| l == best && best != 0).collect()
}
