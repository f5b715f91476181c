//! `isla diff --png`: the changes drawn over the map.

use super::Compared;
use crate::blueprint::Blueprint;
use rayon::prelude::*;

/// Colours of [`picture`].
pub const RAISED: [u8; 3] = [235, 90, 30];
pub const LOWERED: [u8; 3] = [160, 70, 230];
pub const WATER_GAINED: [u8; 3] = [40, 150, 255];
pub const WATER_LOST: [u8; 3] = [250, 215, 40];
pub const LINE_A: [u8; 3] = [150, 20, 20];
pub const LINE_B: [u8; 3] = [30, 230, 90];

/// The changes drawn over B's map (two maps of one size): the map dimmed to grey (land) and dark
/// blue (water); ground raised and lowered in two colours, stronger with the change (full at
/// 40 m; the seabed, wet on both sides, is left uncoloured); water gained and lost; the rivers and roads that changed outlined, A's course under
/// B's. One image pixel covers `ceil(N / 1024)` blueprint pixels a side (the largest change in
/// the block), so the picture is at most 1024² whatever the map.
pub fn picture(c: &Compared) -> Option<image::RgbImage> {
    let (a, b) = (&c.a, &c.b);
    if a.map_size != b.map_size {
        return None;
    }
    let n = a.n();
    let s = n.div_ceil(1024);
    let side = n.div_ceil(s);
    let mut img = image::RgbImage::new(side as u32, side as u32);
    let rows = changed_ground(a, b, s, side);
    for (py, row) in rows.iter().enumerate() {
        for (px, c) in row.iter().enumerate() {
            img.put_pixel(px as u32, py as u32, image::Rgb(*c));
        }
    }
    outline_changed_lines(c, &mut img, s);
    Some(img)
}

/// The map's pixels, `s` blueprint pixels a side each, in rows (image y = map y, south; image x =
/// map x, east): the base dimmed, the ground raised and lowered, the water gained and lost.
fn changed_ground(a: &Blueprint, b: &Blueprint, s: usize, side: usize) -> Vec<Vec<[u8; 3]>> {
    let n = a.n();
    let (mpr_a, mpr_b) = (a.params.metres_per_raw, b.params.metres_per_raw);
    let wet = |bp: &Blueprint, i: usize| bp.water.as_ref().is_some_and(|w| w.body_ids[i] != 0);
    let sea_b = b.params.sea_level_raw;
    (0..side)
        .into_par_iter()
        .map(|py| {
            (0..side)
                .map(|px| {
                    // Image x is map x (east), image y is map y (south).
                    let (mut rise, mut fall, mut gained, mut lost) = (0f32, 0f32, false, false);
                    let (mut h_sum, mut wet_b, mut count) = (0f32, 0u32, 0u32);
                    for x in px * s..((px + 1) * s).min(n) {
                        for y in py * s..((py + 1) * s).min(n) {
                            let i = x * n + y;
                            let (wa, wb) = (wet(a, i), wet(b, i));
                            // Ground only: the seabed under water on both sides is not coloured.
                            if !(wa && wb) {
                                let d = b.heights_raw[i] * mpr_b - a.heights_raw[i] * mpr_a;
                                rise = rise.max(d);
                                fall = fall.max(-d);
                            }
                            gained |= !wa && wb;
                            lost |= wa && !wb;
                            h_sum += (b.heights_raw[i] - sea_b) * mpr_b;
                            wet_b += wb as u32;
                            count += 1;
                        }
                    }
                    let h = h_sum / count.max(1) as f32;
                    let base = if wet_b * 2 > count {
                        [20, 40, 75]
                    } else {
                        let g = (70.0 + 120.0 * (h / 300.0).clamp(0.0, 1.0)) as u8;
                        [g, g, g]
                    };
                    let mix = |c: [u8; 3], t: f32| {
                        let t = t.clamp(0.0, 1.0);
                        [0, 1, 2].map(|k| (base[k] as f32 + (c[k] as f32 - base[k] as f32) * t) as u8)
                    };
                    if gained {
                        WATER_GAINED
                    } else if lost {
                        WATER_LOST
                    } else if rise >= fall && rise > 0.01 {
                        mix(RAISED, 0.3 + 0.7 * rise / 40.0)
                    } else if fall > 0.01 {
                        mix(LOWERED, 0.3 + 0.7 * fall / 40.0)
                    } else {
                        base
                    }
                })
                .collect()
        })
        .collect()
}

/// The rivers and roads that changed: A's courses (removed, or before re-routing), then B's
/// (added, or after).
fn outline_changed_lines(c: &Compared, img: &mut image::RgbImage, s: usize) {
    let (a, b) = (&c.a, &c.b);
    let courses = |bp: &Blueprint, ids: &[u32], roads: &[u32]| -> Vec<Vec<[f32; 2]>> {
        let mut out = Vec::new();
        if let Some(net) = &bp.rivers {
            out.extend(
                net.rivers
                    .iter()
                    .filter(|r| ids.contains(&(r.body_id as u32)))
                    .map(|r| r.course.iter().map(|p| [p.x, p.y]).collect()),
            );
        }
        if let Some(net) = &bp.roads {
            out.extend(
                net.roads
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| roads.contains(&(*k as u32)))
                    .map(|(_, r)| r.points.clone()),
            );
        }
        out
    };
    let d = &c.diff;
    let ids_a: Vec<u32> = d.rivers.removed.iter().chain(d.rivers.rerouted.iter().map(|r| &r.a)).map(|l| l.id).collect();
    let ids_b: Vec<u32> = d.rivers.added.iter().chain(d.rivers.rerouted.iter().map(|r| &r.b)).map(|l| l.id).collect();
    let roads_a: Vec<u32> = d.roads.removed.iter().chain(d.roads.rerouted.iter().map(|r| &r.a)).map(|l| l.id).collect();
    let roads_b: Vec<u32> = d.roads.added.iter().chain(d.roads.rerouted.iter().map(|r| &r.b)).map(|l| l.id).collect();
    for (pts, colour) in courses(a, &ids_a, &roads_a)
        .into_iter()
        .map(|p| (p, LINE_A))
        .chain(courses(b, &ids_b, &roads_b).into_iter().map(|p| (p, LINE_B)))
    {
        draw_line(img, &pts, s as f32, colour);
    }
}

/// A polyline in map pixels, one image pixel wide, on an image of `s` map pixels a pixel.
fn draw_line(img: &mut image::RgbImage, pts: &[[f32; 2]], s: f32, colour: [u8; 3]) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    for seg in pts.windows(2) {
        let (p, q) = (seg[0], seg[1]);
        let steps = ((q[0] - p[0]).abs().max((q[1] - p[1]).abs()) / s * 2.0).ceil().max(1.0) as usize;
        for k in 0..=steps {
            let t = k as f32 / steps as f32;
            let (x, y) = (((p[0] + (q[0] - p[0]) * t) / s) as i64, ((p[1] + (q[1] - p[1]) * t) / s) as i64);
            if (0..w).contains(&x) && (0..h).contains(&y) {
                img.put_pixel(x as u32, y as u32, image::Rgb(colour));
            }
        }
    }
}
