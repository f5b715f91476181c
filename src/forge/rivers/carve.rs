//! Carving (steps 3 and 4): each course's bed profile and channel, its water body and level, and
//! the record written to `RIVR`.

#![allow(clippy::needless_range_loop)]

use super::*;

/// The profile of one planned course: cut at its outlet or at the first channel of a river
/// carved before it (a confluence), then width, depth, a monotone clamped bed and a monotone
/// water level. Points on a lake the river passes through ("crossings") carry the lake's level and
/// are neither carved nor wetted. `None` when the course is too short or cannot be made
/// consistent (a later lake higher than an earlier one).
pub(super) fn profile(st: &Stage<'_>, ids: &[u16], p: &Plan, carved: &[Carved], ch: &Channels) -> Option<Carved> {
    let (cells, mouth) = cut_course(st, ids, p, carved, ch)?;
    // The kept cells are a run of the plan's cells: index them by the plan's position.
    let offset = p.cells.iter().position(|&c| c == cells[0]).expect("a kept cell is a plan cell");
    let mut shape = channel_shape(st, ids, p, &cells, offset);
    for b in shape.bed.iter_mut() {
        *b = b.max(mouth.floor_bed);
    }
    let surface = water_line(st, ids, &cells, &shape, mouth.floor_surface);
    if !consistent(st, ids, &cells, &shape.bed, &surface) {
        return None;
    }
    Some(Carved {
        cells,
        // A main course that ends in another river is that river's tributary.
        order: if mouth.joined { 2 } else { p.order },
        mouth_body: mouth.body,
        bed: shape.bed,
        surface,
        half_width_px: shape.half,
        area_px: shape.area,
        mouth_level: mouth.level,
        body_id: 0,
    })
}

/// What a course flows into where it ends: the body, the floors its bed and level keep above,
/// the level there, and whether it joined a river carved before it.
struct Mouth {
    body: u16,
    floor_bed: f32,
    floor_surface: f32,
    level: f32,
    joined: bool,
}

/// A course's channel before its bed is held at the mouth's floor: bed, half-width (pixels),
/// drained area (pixels) and depth (metres) at each point.
struct Channel {
    bed: Vec<f32>,
    half: Vec<f32>,
    area: Vec<u32>,
    depth: Vec<f32>,
}

/// The plan's cells up to its outlet or its confluence with a river carved before it, trimmed to
/// start and end on dry ground, and what it flows into; `None` for a tributary that never reached
/// its parent's channel or a course too short to keep.
fn cut_course(st: &Stage<'_>, ids: &[u16], p: &Plan, carved: &[Carved], ch: &Channels) -> Option<(Vec<usize>, Mouth)> {
    let (d, sea, mpr) = (st.d, st.inp.sea, st.inp.mpr);
    let mut cells = Vec::with_capacity(p.cells.len());
    // Floors from what the river flows into: bed and level.
    let level = st.level_of(p.mouth_body);
    let mut mouth = Mouth {
        body: p.mouth_body,
        floor_bed: sea + d.sea_margin_m / mpr,
        floor_surface: f32::MIN,
        level,
        joined: false,
    };
    if mouth.body > OCEAN_BODY_ID {
        mouth.floor_bed = mouth.floor_bed.max(mouth.level + d.sea_margin_m / mpr);
    }
    for &c in &p.cells {
        if st.outlet[c] {
            break;
        }
        cells.push(c);
        if ch.owner[c] != 0 {
            let j = &carved[ch.owner[c] as usize - 1];
            let pt = ch.point[c] as usize;
            mouth.body = j.body_id;
            mouth.floor_bed = mouth.floor_bed.max(j.bed[pt]);
            mouth.floor_surface = j.surface[pt];
            mouth.level = mouth.floor_surface;
            mouth.joined = true;
            break;
        }
    }
    if !mouth.joined && p.parent.is_some() {
        return None; // a tributary that never reached its parent's channel
    }
    // A course must start and end on dry ground.
    while cells.last().is_some_and(|&c| ids[c] != 0) {
        cells.pop();
    }
    let start = cells.iter().position(|&c| ids[c] == 0)?;
    cells.drain(..start);
    let min_px = if p.order > 1 { 0.5 } else { 1.0 } * d.min_length_m / st.inp.mpp;
    if cells.len() < 2 || course_length_px(st.inp.n, &cells) < min_px {
        return None;
    }
    Some((cells, mouth))
}

/// Width, depth and bed along the kept cells (`offset`: where they start in the plan), the bed
/// monotone toward the mouth by [`MIN_BED_SLOPE`].
fn channel_shape(st: &Stage<'_>, ids: &[u16], p: &Plan, cells: &[usize], offset: usize) -> Channel {
    let (d, n, mpr, mpp) = (st.d, st.inp.n, st.inp.mpr, st.inp.mpp);
    let m = cells.len();
    let mut ch = Channel { bed: vec![0f32; m], half: vec![0f32; m], area: vec![0u32; m], depth: vec![0f32; m] };
    let acc_km2 = |a: u32| a as f32 * mpp * mpp * 1e-6;
    let min_depth = d.min_depth_m / mpr;
    let (mut a_run, mut prev_bed) = (0u32, f32::INFINITY);
    for (i, &c) in cells.iter().enumerate() {
        // The drained area never shrinks downstream (a re-routed reach leaves the D8 network).
        a_run = a_run.max(p.area[offset + i]);
        ch.area[i] = a_run;
        let size = (acc_km2(a_run) / REFERENCE_AREA_KM2).sqrt().min(2.0);
        ch.depth[i] = ((DEPTH_HEAD_M + DEPTH_PER_SIZE_M * size) * d.depth_scale).max(d.min_depth_m + 0.1);
        ch.half[i] = ((HALF_WIDTH_HEAD_M + HALF_WIDTH_PER_SIZE_M * size) * d.width_scale / mpp).max(1.5);
        let step = if i == 0 { 0.0 } else { course_length_px(n, &cells[i - 1..=i]) * mpp };
        // Under the routing surface, not the terrain: through a pit the bed runs at the level the
        // pit fills to (the pit stays, as a pool) instead of cutting a canyon through its rim.
        let own = if ids[c] != 0 { st.level_of(ids[c]) - min_depth } else { p.ground[offset + i] - ch.depth[i] / mpr };
        ch.bed[i] = own.min(prev_bed - MIN_BED_SLOPE * step / mpr);
        prev_bed = ch.bed[i];
    }
    ch
}

/// The water level along the course. From the source down, never above the channel's water
/// line, equal to a crossed lake's level on it; then the smallest non-increasing envelope over
/// that (so upstream of a lake it never dips under the lake), held at `floor` (what it flows
/// into); on the WSRF grid, rounded up.
fn water_line(st: &Stage<'_>, ids: &[u16], cells: &[usize], ch: &Channel, floor: f32) -> Vec<f32> {
    let (d, mpr) = (st.d, st.inp.mpr);
    let mut surface = vec![0f32; cells.len()];
    let mut prev = f32::INFINITY;
    for (i, &c) in cells.iter().enumerate() {
        let own = if ids[c] != 0 {
            st.level_of(ids[c])
        } else {
            (ch.bed[i] + (WATER_SHARE * ch.depth[i]).max(d.min_depth_m) / mpr).min(prev)
        };
        surface[i] = own;
        prev = own;
    }
    let mut env = floor;
    for s in surface.iter_mut().rev() {
        env = env.max(*s);
        *s = (env * water_level::STEPS_PER_RAW).ceil() / water_level::STEPS_PER_RAW;
    }
    surface
}

/// Consistency: a crossing must stand at its lake's level (a later, higher lake lifted it) and
/// every point at least the minimum depth over its bed.
fn consistent(st: &Stage<'_>, ids: &[u16], cells: &[usize], bed: &[f32], surface: &[f32]) -> bool {
    let min_depth = st.d.min_depth_m / st.inp.mpr;
    for ((&c, &b), &s) in cells.iter().zip(bed).zip(surface) {
        if ids[c] != 0 && s > st.level_of(ids[c]) + 1.5 / water_level::STEPS_PER_RAW {
            return false;
        }
        if s < b + min_depth * 0.999 {
            return false;
        }
    }
    true
}

/// Stamp one river into the render map and claim its channel pixels: a parabola from the bed to
/// the rim inside the half-width, a smoothstep shoulder back to the terrain out to twice it that
/// never lowers a column by more than the channel's rim-to-bed depth, tapered by the same
/// smoothstep (so a river falling down a riser cuts a chute, not a notch).
pub(super) fn carve(st: &Stage<'_>, render: &mut [f32], ids: &[u16], c: &Carved, k: u32, ch: &mut Channels) {
    let (inp, protected) = (st.inp, &st.protected);
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
                    // Never lower than the channel itself needs: at most its rim-to-bed depth,
                    // tapered by the same smoothstep. On flat ground the blend is shallower than
                    // that; on a riser it would cut the riser back into a notch, so the shoulder
                    // stops and the channel falls down the riser as a steep chute.
                    (rim + (old - rim) * f).max(old - (rim - c.bed[i]) * (1.0 - f))
                };
                // Never below the bed of this point (which is above sea + margin).
                let target = target.max(c.bed[i]);
                if target < old {
                    render[j] = target;
                    ch.cut_from.entry(j as u32).or_insert(old);
                }
                if r <= hw && (ch.owner[j] == 0 || (ch.owner[j] == k && r < ch.r[j])) {
                    ch.owner[j] = k;
                    ch.point[j] = i as u32;
                    ch.r[j] = r;
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
