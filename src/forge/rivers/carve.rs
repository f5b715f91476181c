//! Carving (steps 3 and 4): each course's bed profile and channel, its water body and level, and
//! the record written to `RIVR`.

#![allow(clippy::needless_range_loop)]

use super::*;

/// The profile of one planned course: cut at its outlet or at the first channel of a river
/// carved before it (a confluence), then width, depth, a monotone clamped bed and a monotone
/// water level. Points on a lake the river passes through ("crossings") carry the lake's level and
/// are neither carved nor wetted. `None` when the course is too short or cannot be made
/// consistent (a later lake higher than an earlier one).
#[allow(clippy::too_many_arguments)]
pub(super) fn profile(
    d: &RiverDials,
    inp: &Inputs<'_>,
    ids: &[u16],
    outlet: &[bool],
    levels: &[f32],
    p: &Plan,
    carved: &[Carved],
    owner: &[u32],
    owner_point: &[u32],
) -> Option<Carved> {
    let n = inp.n;
    let (sea, mpr, mpp) = (inp.sea, inp.mpr, inp.mpp);
    let level_of = |id: u16| levels.get(id as usize).copied().filter(|l| l.is_finite()).unwrap_or(sea);
    let mut cells = Vec::with_capacity(p.cells.len());
    let mut mouth_body = p.mouth_body;
    // Floors from what the river flows into: bed and level.
    let mut floor_bed = sea + d.sea_margin_m / mpr;
    let mut floor_surface = f32::MIN;
    let mut mouth_level = level_of(mouth_body);
    if mouth_body > OCEAN_BODY_ID {
        floor_bed = floor_bed.max(mouth_level + d.sea_margin_m / mpr);
    }
    let mut joined = false;
    for &c in &p.cells {
        if outlet[c] {
            break;
        }
        cells.push(c);
        if owner[c] != 0 {
            let j = &carved[owner[c] as usize - 1];
            let pt = owner_point[c] as usize;
            mouth_body = j.body_id;
            floor_bed = floor_bed.max(j.bed[pt]);
            floor_surface = j.surface[pt];
            mouth_level = floor_surface;
            joined = true;
            break;
        }
    }
    if !joined && p.parent.is_some() {
        return None; // a tributary that never reached its parent's channel
    }
    // A course must start and end on dry ground.
    while cells.last().is_some_and(|&c| ids[c] != 0) {
        cells.pop();
    }
    let start = cells.iter().position(|&c| ids[c] == 0)?;
    cells.drain(..start);
    let min_px = if p.order > 1 { 0.5 } else { 1.0 } * d.min_length_m / mpp;
    if cells.len() < 2 || course_length_px(n, &cells) < min_px {
        return None;
    }
    let m = cells.len();
    // The kept cells are a run of the plan's cells: index them by the plan's position.
    let offset = p.cells.iter().position(|&c| c == cells[0]).expect("a kept cell is a plan cell");
    let (mut bed, mut surface, mut half, mut area) = (vec![0f32; m], vec![0f32; m], vec![0f32; m], vec![0u32; m]);
    let mut depth = vec![0f32; m];
    let acc_km2 = |a: u32| a as f32 * mpp * mpp * 1e-6;
    let min_depth = d.min_depth_m / mpr;
    let (mut a_run, mut prev_bed) = (0u32, f32::INFINITY);
    for (i, &c) in cells.iter().enumerate() {
        // The drained area never shrinks downstream (a re-routed reach leaves the D8 network).
        a_run = a_run.max(p.area[offset + i]);
        area[i] = a_run;
        let size = (acc_km2(a_run) / REFERENCE_AREA_KM2).sqrt().min(2.0);
        depth[i] = ((DEPTH_HEAD_M + DEPTH_PER_SIZE_M * size) * d.depth_scale).max(d.min_depth_m + 0.1);
        half[i] = ((HALF_WIDTH_HEAD_M + HALF_WIDTH_PER_SIZE_M * size) * d.width_scale / mpp).max(1.5);
        let step = if i == 0 { 0.0 } else { course_length_px(n, &cells[i - 1..=i]) * mpp };
        // Under the routing surface, not the terrain: through a pit the bed runs at the level the
        // pit fills to (the pit stays, as a pool) instead of cutting a canyon through its rim.
        let own = if ids[c] != 0 { level_of(ids[c]) - min_depth } else { p.ground[offset + i] - depth[i] / mpr };
        bed[i] = own.min(prev_bed - MIN_BED_SLOPE * step / mpr);
        prev_bed = bed[i];
    }
    for b in bed.iter_mut() {
        *b = b.max(floor_bed);
    }
    // Level: from the source down, never above the channel's water line, equal to a crossed
    // lake's level on it; then the smallest non-increasing envelope over that (so upstream of a
    // lake it never dips under the lake), held at what it flows into; on the WSRF grid, rounded up.
    let mut prev = f32::INFINITY;
    for i in 0..m {
        let own = if ids[cells[i]] != 0 {
            level_of(ids[cells[i]])
        } else {
            (bed[i] + (WATER_SHARE * depth[i]).max(d.min_depth_m) / mpr).min(prev)
        };
        surface[i] = own;
        prev = own;
    }
    let mut env = floor_surface;
    for i in (0..m).rev() {
        env = env.max(surface[i]);
        surface[i] = (env * water_level::STEPS_PER_RAW).ceil() / water_level::STEPS_PER_RAW;
    }
    // Consistency: a crossing must stand at its lake's level (a later, higher lake lifted it) and
    // every point at least the minimum depth over its bed.
    for i in 0..m {
        let c = cells[i];
        if ids[c] != 0 && surface[i] > level_of(ids[c]) + 1.5 / water_level::STEPS_PER_RAW {
            return None;
        }
        if surface[i] < bed[i] + min_depth * 0.999 {
            return None;
        }
    }
    Some(Carved {
        cells,
        // A main course that ends in another river is that river's tributary.
        order: if joined { 2 } else { p.order },
        mouth_body,
        bed,
        surface,
        half_width_px: half,
        area_px: area,
        mouth_level,
        body_id: 0,
    })
}

/// Stamp one river into the render map and claim its channel pixels: a parabola from the bed to
/// the rim inside the half-width, a smoothstep shoulder back to the terrain out to twice it.
#[allow(clippy::too_many_arguments)]
pub(super) fn carve(
    inp: &Inputs<'_>,
    render: &mut [f32],
    ids: &[u16],
    protected: &[bool],
    c: &Carved,
    k: u32,
    owner: &mut [u32],
    owner_point: &mut [u32],
    owner_r: &mut [f32],
    stats: &mut RiverStats,
) {
    let n = inp.n;
    for (i, &cell) in c.cells.iter().enumerate() {
        if ids[cell] != 0 {
            continue; // a lake the river passes through
        }
        let (px, py) = ((cell / n) as f32, (cell % n) as f32);
        let hw = c.half_width_px[i];
        let outer = 2.0 * hw;
        let depth_raw = c.surface[i].max(c.bed[i]) - c.bed[i];
        let rim = c.bed[i] + (depth_raw / WATER_SHARE).max(depth_raw);
        let (x0, x1) = ((px - outer).floor().max(0.0) as usize, ((px + outer).ceil() as usize).min(n - 1));
        let (y0, y1) = ((py - outer).floor().max(0.0) as usize, ((py + outer).ceil() as usize).min(n - 1));
        for x in x0..=x1 {
            for y in y0..=y1 {
                let j = x * n + y;
                let (dx, dy) = (x as f32 - px, y as f32 - py);
                let r = (dx * dx + dy * dy).sqrt();
                if r > outer || ids[j] != 0 || protected[j] || render[j] < inp.sea {
                    continue;
                }
                let old = render[j];
                let target = if r <= hw {
                    let f = r / hw;
                    c.bed[i] + (rim - c.bed[i]) * f * f
                } else {
                    let f = (r - hw) / hw;
                    let f = f * f * (3.0 - 2.0 * f);
                    rim + (old - rim) * f
                };
                // Never below the bed of this point (which is above sea + margin).
                let target = target.max(c.bed[i]);
                if target < old {
                    render[j] = target;
                    stats.carved_pixels += 1;
                    stats.max_cut_m = stats.max_cut_m.max((old - target) * inp.mpr);
                }
                if r <= hw && (owner[j] == 0 || (owner[j] == k && r < owner_r[j])) {
                    owner[j] = k;
                    owner_point[j] = i as u32;
                    owner_r[j] = r;
                }
            }
        }
    }
}

pub(super) fn to_record(inp: &Inputs<'_>, c: &Carved) -> River {
    let n = inp.n;
    let xy = |cell: usize| [(cell / n) as f32, (cell % n) as f32];
    let course: Vec<RiverPoint> = c
        .cells
        .iter()
        .zip(&c.half_width_px)
        .zip(&c.area_px)
        .map(|((&cell, &hw), &a)| {
            let [x, y] = xy(cell);
            let area_m2 = a as f64 * (inp.mpp as f64).powi(2);
            RiverPoint { x, y, width_m: 2.0 * hw * inp.mpp, discharge_m3s: (area_m2 * RUNOFF_M_PER_S) as f32 }
        })
        .collect();
    River {
        body_id: c.body_id,
        order: c.order,
        mouth_body_id: c.mouth_body,
        source: xy(c.cells[0]),
        mouth: xy(*c.cells.last().expect("non-empty course")),
        length_m: course_length_px(n, &c.cells) * inp.mpp,
        course,
    }
}
