//! Towns on flat dry land: candidates on a coarse grid, kept where the rendered ground is dry,
//! above the beach and flat; the flattest first, with a minimum spacing; tiers by rank.

use super::crater::Crater;
use crate::blueprint::{Town, TownTier};

/// Steepest rendered slope a town accepts on a 1024² map (metres per metre).
const MAX_SLOPE: f32 = 0.06;
/// Lowest rendered height above sea for a town, metres.
const MIN_ABOVE_SEA_M: f32 = 3.0;
const MAX_TOWNS: usize = 14;

/// Towns in pixel index coordinates (`x`, `y` as in every grid).
pub fn place(
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
    let max_slope = MAX_SLOPE * (1024.0 / n as f32).max(1.0);
    let step = (n / 40).max(4);
    let reach = (step / 4).max(1);
    let mut candidates: Vec<(f32, usize, usize)> = Vec::new();
    for x in (step..n.saturating_sub(step)).step_by(step) {
        for y in (step..n.saturating_sub(step)).step_by(step) {
            let i = x * n + y;
            if body_ids[i] != 0 || (render[i] - sea) * mpr < MIN_ABOVE_SEA_M {
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
    let spacing = (n as f32 / 8.0).max(6.0);
    let mut towns: Vec<Town> = Vec::new();
    for (_, x, y) in candidates {
        if towns.len() >= MAX_TOWNS {
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
