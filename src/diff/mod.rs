//! What changed between two blueprints (`isla diff A B`, SPEC §9): per section equal, changed or
//! absent (payload bytes compared in bounded chunks), and on the models the heights, the water,
//! the rivers, the roads, the towns and the dials that differ; [`picture`] draws the changes
//! over the map.
//!
//! The models come from [`blueprint::read_file`], which reads a large file with positioned reads
//! straight into its grids and a small one whole, so a diff holds about the two files and no more.
//! Bevy-free.

mod picture;
mod text;

pub use picture::{LINE_A, LINE_B, LOWERED, RAISED, WATER_GAINED, WATER_LOST, picture};

use crate::blueprint::{self, Blueprint, BlueprintError, DialValue, Road, WaterType};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// A section's state between A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionState {
    Equal,
    Changed,
    /// In B only.
    AbsentInA,
    /// In A only.
    AbsentInB,
}

impl SectionState {
    pub fn name(self) -> &'static str {
        match self {
            SectionState::Equal => "equal",
            SectionState::Changed => "changed",
            SectionState::AbsentInA => "absent in A",
            SectionState::AbsentInB => "absent in B",
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SectionDiff {
    pub tag: String,
    pub state: SectionState,
}

/// `HGTS` compared pixel by pixel (maps of one size).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HeightsDiff {
    pub changed_pixels: u64,
    /// Share of the map's pixels whose height changed (any bit).
    pub changed_share: f64,
    /// Largest rise (B above A) and fall (B below A) in metres, with a pixel where each is.
    pub largest_rise_m: f32,
    pub rise_at: [u32; 2],
    pub largest_fall_m: f32,
    pub fall_at: [u32; 2],
}

/// A water body (the ocean or a lake; rivers are compared as rivers).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BodyRef {
    pub id: u16,
    pub kind: &'static str,
    pub pixels: i32,
    pub level_m: f32,
    pub centroid: [f32; 2],
}

/// One body in both, its level changed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Relevel {
    pub a_id: u16,
    pub b_id: u16,
    pub a_level_m: f32,
    pub b_level_m: f32,
    pub change_m: f32,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WaterDiff {
    /// Pixels wet (`WBID` ≠ 0) in B and dry in A, and the other way round.
    pub wet_gained: u64,
    pub wet_lost: u64,
    pub added: Vec<BodyRef>,
    pub removed: Vec<BodyRef>,
    pub relevelled: Vec<Relevel>,
}

/// A river or road on one side.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LineRef {
    /// A river's body id, a road's index in `ROAD`.
    pub id: u32,
    pub length_m: f32,
    pub from: [f32; 2],
    pub to: [f32; 2],
}

/// One river or road in both, its course changed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Reroute {
    pub a: LineRef,
    pub b: LineRef,
    pub length_change_m: f32,
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct LinesDiff {
    pub a_count: usize,
    pub b_count: usize,
    pub added: Vec<LineRef>,
    pub removed: Vec<LineRef>,
    pub rerouted: Vec<Reroute>,
    pub unchanged: usize,
    /// Total length in A and in B, metres.
    pub a_length_m: f64,
    pub b_length_m: f64,
}

impl LinesDiff {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.rerouted.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct TownsDiff {
    pub a_count: usize,
    pub b_count: usize,
    /// Positions (pixels) of the towns only in B, only in A.
    pub added: Vec<[f32; 2]>,
    pub removed: Vec<[f32; 2]>,
    /// Towns at the same place with another tier.
    pub retiered: usize,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DialDiff {
    pub key: String,
    pub a: DialValue,
    pub b: DialValue,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Diff {
    /// Same header and every section's payload byte for byte.
    pub equal: bool,
    pub a_map_size: u32,
    pub b_map_size: u32,
    pub a_seed: i32,
    pub b_seed: i32,
    pub sections: Vec<SectionDiff>,
    /// `None` when the map sizes differ.
    pub heights: Option<HeightsDiff>,
    pub water: Option<WaterDiff>,
    pub rivers: LinesDiff,
    pub roads: LinesDiff,
    pub towns: TownsDiff,
    /// The dials that differ; `None` when a side has no `DIAL` record (`dials_note` says which).
    pub dials: Option<Vec<DialDiff>>,
    pub dials_note: Option<String>,
}

/// A file that cannot be compared: which one and why (bad input, exit 2).
#[derive(Debug)]
pub struct DiffError(pub String);

impl std::fmt::Display for DiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DiffError {}

/// Both blueprints, read and checked, and their comparison.
pub struct Compared {
    pub a: Blueprint,
    pub b: Blueprint,
    pub diff: Diff,
}

/// Compare the blueprint files `a` and `b`.
pub fn diff_files(a: &Path, b: &Path) -> Result<Compared, DiffError> {
    fn named(p: &Path) -> impl Fn(BlueprintError) -> DiffError + '_ {
        move |e| DiffError(format!("{}: {e}", p.display()))
    }
    let (sa, sb) =
        (blueprint::list_file_sections(a).map_err(named(a))?, blueprint::list_file_sections(b).map_err(named(b))?);
    let (ba, bb) =
        rayon::join(|| blueprint::read_file(a).map_err(named(a)), || blueprint::read_file(b).map_err(named(b)));
    let (ba, bb) = (ba?, bb?);
    let sections = compare_sections(a, &sa, b, &sb)?;
    let diff = diff_models(&ba, &bb, sections);
    Ok(Compared { a: ba, b: bb, diff })
}

/// Each tag of either file: equal (same payload bytes), changed, or absent on one side. The
/// payloads are compared 1 MiB at a time.
fn compare_sections(
    a: &Path,
    sa: &[blueprint::SectionInfo],
    b: &Path,
    sb: &[blueprint::SectionInfo],
) -> Result<Vec<SectionDiff>, DiffError> {
    let io = |p: &Path, e: std::io::Error| DiffError(format!("{}: cannot read: {e}", p.display()));
    let (mut fa, mut fb) =
        (std::fs::File::open(a).map_err(|e| io(a, e))?, std::fs::File::open(b).map_err(|e| io(b, e))?);
    let mut out = Vec::new();
    let mut tags: Vec<&str> = sa.iter().map(|s| s.tag.as_str()).collect();
    tags.extend(sb.iter().map(|s| s.tag.as_str()).filter(|t| !sa.iter().any(|s| s.tag == *t)));
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    for tag in tags {
        // Framing refuses a repeated tag, so each side has at most one.
        let state = match (sa.iter().find(|s| s.tag == tag), sb.iter().find(|s| s.tag == tag)) {
            (Some(x), Some(y)) if x.payload_bytes != y.payload_bytes => SectionState::Changed,
            (Some(x), Some(y)) => {
                let head = blueprint::SECTION_HEADER_LEN as u64;
                fa.seek(SeekFrom::Start(x.offset + head)).map_err(|e| io(a, e))?;
                fb.seek(SeekFrom::Start(y.offset + head)).map_err(|e| io(b, e))?;
                let mut left = x.payload_bytes;
                let mut same = true;
                while left > 0 && same {
                    let k = left.min(ba.len() as u64) as usize;
                    fa.read_exact(&mut ba[..k]).map_err(|e| io(a, e))?;
                    fb.read_exact(&mut bb[..k]).map_err(|e| io(b, e))?;
                    same = ba[..k] == bb[..k];
                    left -= k as u64;
                }
                if same { SectionState::Equal } else { SectionState::Changed }
            }
            (Some(_), None) => SectionState::AbsentInB,
            (None, _) => SectionState::AbsentInA,
        };
        out.push(SectionDiff { tag: tag.to_string(), state });
    }
    Ok(out)
}

/// The comparison of two models whose sections compared as `sections`.
pub fn diff_models(a: &Blueprint, b: &Blueprint, sections: Vec<SectionDiff>) -> Diff {
    let same_size = a.map_size == b.map_size;
    let (dials, dials_note) = match (&a.dials, &b.dials) {
        (Some(ra), Some(rb)) => (
            Some(
                crate::forge::dials::differing(ra, rb).into_iter().map(|(key, a, b)| DialDiff { key, a, b }).collect(),
            ),
            None,
        ),
        (None, None) => (None, Some("neither has a DIAL record".to_string())),
        (None, _) => (None, Some("A has no DIAL record".to_string())),
        (_, None) => (None, Some("B has no DIAL record".to_string())),
    };
    let equal = a.map_size == b.map_size && a.seed == b.seed && sections.iter().all(|s| s.state == SectionState::Equal);
    Diff {
        equal,
        a_map_size: a.map_size,
        b_map_size: b.map_size,
        a_seed: a.seed,
        b_seed: b.seed,
        sections,
        heights: same_size.then(|| heights(a, b)),
        water: same_size.then(|| water(a, b)),
        rivers: rivers(a, b),
        roads: roads(a, b),
        towns: towns(a, b),
        dials,
        dials_note,
    }
}

/// Per row of the map: changed pixels, and the largest rise and fall (raw) with their pixels.
fn heights(a: &Blueprint, b: &Blueprint) -> HeightsDiff {
    let n = a.n();
    let (mpr_a, mpr_b) = (a.params.metres_per_raw, b.params.metres_per_raw);
    // Per row: changed pixels, then the largest rise and fall (metres) with their pixel index.
    type Row = (u64, (f32, usize), (f32, usize));
    let rows: Vec<Row> = a
        .heights_raw
        .par_chunks(n)
        .zip(b.heights_raw.par_chunks(n))
        .enumerate()
        .map(|(x, (ra, rb))| {
            let (mut changed, mut rise, mut fall) = (0u64, (0f32, 0usize), (0f32, 0usize));
            for (y, (&ha, &hb)) in ra.iter().zip(rb).enumerate() {
                if ha.to_bits() != hb.to_bits() {
                    changed += 1;
                    let d = hb * mpr_b - ha * mpr_a;
                    if d > rise.0 {
                        rise = (d, x * n + y);
                    }
                    if -d > fall.0 {
                        fall = (-d, x * n + y);
                    }
                }
            }
            (changed, rise, fall)
        })
        .collect();
    let mut out = (0u64, (0f32, 0usize), (0f32, 0usize));
    for (c, r, f) in rows {
        out.0 += c;
        if r.0 > out.1.0 {
            out.1 = r;
        }
        if f.0 > out.2.0 {
            out.2 = f;
        }
    }
    let at = |i: usize| [(i / n) as u32, (i % n) as u32];
    HeightsDiff {
        changed_pixels: out.0,
        changed_share: out.0 as f64 / (n * n) as f64,
        largest_rise_m: out.1.0,
        rise_at: at(out.1.1),
        largest_fall_m: out.2.0,
        fall_at: at(out.2.1),
    }
}

/// The ocean and the lakes of a side (its rivers' bodies left out), by id.
fn still_bodies(bp: &Blueprint) -> Vec<BodyRef> {
    let first_river = bp.first_river_body_id();
    let mpr = bp.params.metres_per_raw;
    let sea = bp.params.sea_level_raw;
    bp.water
        .as_ref()
        .and_then(|w| w.bodies.as_ref())
        .map(|bodies| {
            bodies
                .iter()
                .filter(|b| b.id < first_river)
                .map(|b| BodyRef {
                    id: b.id,
                    kind: if b.kind == WaterType::Ocean { "ocean" } else { "lake" },
                    pixels: b.pixel_count,
                    level_m: (b.surface_level_raw - sea) * mpr,
                    centroid: [b.centroid_x, b.centroid_y],
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Wet pixels gained and lost; the ocean and lakes matched by the pixels they share (the most
/// shared first), so a renumbered lake is the same lake.
fn water(a: &Blueprint, b: &Blueprint) -> WaterDiff {
    let n = a.n();
    fn ids(bp: &Blueprint) -> &[u16] {
        bp.water.as_ref().map_or(&[], |w| &w.body_ids[..])
    }
    let (ia, ib) = (ids(a), ids(b));
    let (ra, rb) = (a.first_river_body_id(), b.first_river_body_id());
    let still = |id: u16, first_river: u16| id != 0 && id < first_river;
    type Tally = (u64, u64, HashMap<(u16, u16), u64>);
    let (gained, lost, shared) = (0..n)
        .into_par_iter()
        .map(|x| {
            let mut t: Tally = (0, 0, HashMap::new());
            for y in 0..n {
                let i = x * n + y;
                let (pa, pb) = (ia.get(i).copied().unwrap_or(0), ib.get(i).copied().unwrap_or(0));
                t.0 += (pa == 0 && pb != 0) as u64;
                t.1 += (pa != 0 && pb == 0) as u64;
                if still(pa, ra) && still(pb, rb) {
                    *t.2.entry((pa, pb)).or_default() += 1;
                }
            }
            t
        })
        .reduce(
            || (0, 0, HashMap::new()),
            |mut p, q| {
                p.0 += q.0;
                p.1 += q.1;
                for (k, v) in q.2 {
                    *p.2.entry(k).or_default() += v;
                }
                p
            },
        );
    let (ba, bb) = (still_bodies(a), still_bodies(b));
    let mut pairs: Vec<((u16, u16), u64)> = shared.into_iter().collect();
    pairs.sort_by(|p, q| q.1.cmp(&p.1).then(p.0.cmp(&q.0)));
    let (mut used_a, mut used_b) = (Vec::new(), Vec::new());
    let mut relevelled = Vec::new();
    for ((ida, idb), _) in pairs {
        if used_a.contains(&ida) || used_b.contains(&idb) {
            continue;
        }
        used_a.push(ida);
        used_b.push(idb);
        let (Some(x), Some(y)) = (ba.iter().find(|b| b.id == ida), bb.iter().find(|b| b.id == idb)) else { continue };
        // Half a WSRF step (≈ 3.8 mm at 251 m per raw): below that a level is the same level.
        let step_m = 0.5 / blueprint::water_level::STEPS_PER_RAW * a.params.metres_per_raw;
        if (y.level_m - x.level_m).abs() >= step_m {
            relevelled.push(Relevel {
                a_id: ida,
                b_id: idb,
                a_level_m: x.level_m,
                b_level_m: y.level_m,
                change_m: y.level_m - x.level_m,
            });
        }
    }
    WaterDiff {
        wet_gained: gained,
        wet_lost: lost,
        added: bb.iter().filter(|b| !used_b.contains(&b.id)).cloned().collect(),
        removed: ba.iter().filter(|b| !used_a.contains(&b.id)).cloned().collect(),
        relevelled,
    }
}

/// Rivers matched by the pixels their courses share (the most shared first, at least a fifth of
/// the shorter course): same points = unchanged, else re-routed; the rest added or removed.
fn rivers(a: &Blueprint, b: &Blueprint) -> LinesDiff {
    let course = |bp: &Blueprint| -> Vec<(LineRef, Vec<[f32; 2]>)> {
        bp.rivers
            .as_ref()
            .map(|net| {
                net.rivers
                    .iter()
                    .map(|r| {
                        let pts: Vec<[f32; 2]> = r.course.iter().map(|p| [p.x, p.y]).collect();
                        (LineRef { id: r.body_id as u32, length_m: r.length_m, from: r.source, to: r.mouth }, pts)
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (la, lb) = (course(a), course(b));
    let mut cells: HashMap<(i32, i32), Vec<usize>> = HashMap::new();
    for (j, (_, pts)) in lb.iter().enumerate() {
        for p in pts {
            let v = cells.entry((p[0].round() as i32, p[1].round() as i32)).or_default();
            if v.last() != Some(&j) {
                v.push(j);
            }
        }
    }
    let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
    for (i, (_, pts)) in la.iter().enumerate() {
        let mut hits: HashMap<usize, usize> = HashMap::new();
        let mut seen = std::collections::HashSet::new();
        for p in pts {
            let c = (p[0].round() as i32, p[1].round() as i32);
            if seen.insert(c) {
                for &j in cells.get(&c).into_iter().flatten() {
                    *hits.entry(j).or_default() += 1;
                }
            }
        }
        for (j, h) in hits {
            let shorter = la[i].1.len().min(lb[j].1.len()).max(1);
            if h * 5 >= shorter {
                pairs.push((h, i, j));
            }
        }
    }
    pairs.sort_by(|p, q| q.0.cmp(&p.0).then((p.1, p.2).cmp(&(q.1, q.2))));
    let matched = greedy(&pairs);
    lines(&la, &lb, &matched)
}

/// Roads matched by their ends (the towns they join, either way round): same points =
/// unchanged, else re-routed; the rest added or removed.
fn roads(a: &Blueprint, b: &Blueprint) -> LinesDiff {
    let list = |bp: &Blueprint| -> Vec<(LineRef, Vec<[f32; 2]>)> {
        let mpp = bp.params.metres_per_pixel;
        bp.roads
            .as_ref()
            .map(|net| {
                net.roads
                    .iter()
                    .enumerate()
                    .map(|(k, r): (usize, &Road)| {
                        let (from, to) = (r.points[0], *r.points.last().expect("a road has points"));
                        (LineRef { id: k as u32, length_m: r.length_px() * mpp, from, to }, r.points.clone())
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (la, lb) = (list(a), list(b));
    let key = |l: &LineRef| {
        let r = |p: [f32; 2]| ((p[0] * 2.0).round() as i64, (p[1] * 2.0).round() as i64);
        let (p, q) = (r(l.from), r(l.to));
        if p <= q { (p, q) } else { (q, p) }
    };
    let mut pairs = Vec::new();
    for (i, (x, _)) in la.iter().enumerate() {
        for (j, (y, _)) in lb.iter().enumerate() {
            if key(x) == key(y) {
                pairs.push((1, i, j));
            }
        }
    }
    let matched = greedy(&pairs);
    lines(&la, &lb, &matched)
}

/// Pairs `(score, i, j)` sorted best first, each `i` and `j` taken once.
fn greedy(pairs: &[(usize, usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &(_, i, j) in pairs {
        if !out.iter().any(|&(x, y)| x == i || y == j) {
            out.push((i, j));
        }
    }
    out
}

fn lines(la: &[(LineRef, Vec<[f32; 2]>)], lb: &[(LineRef, Vec<[f32; 2]>)], matched: &[(usize, usize)]) -> LinesDiff {
    let mut d = LinesDiff {
        a_count: la.len(),
        b_count: lb.len(),
        // `+ 0.0`: an empty sum is −0.0.
        a_length_m: la.iter().map(|l| l.0.length_m as f64).sum::<f64>() + 0.0,
        b_length_m: lb.iter().map(|l| l.0.length_m as f64).sum::<f64>() + 0.0,
        ..Default::default()
    };
    for &(i, j) in matched {
        if la[i].1 == lb[j].1 {
            d.unchanged += 1;
        } else {
            d.rerouted.push(Reroute {
                a: la[i].0.clone(),
                b: lb[j].0.clone(),
                length_change_m: lb[j].0.length_m - la[i].0.length_m,
            });
        }
    }
    d.removed = (0..la.len()).filter(|i| !matched.iter().any(|m| m.0 == *i)).map(|i| la[i].0.clone()).collect();
    d.added = (0..lb.len()).filter(|j| !matched.iter().any(|m| m.1 == *j)).map(|j| lb[j].0.clone()).collect();
    d
}

fn towns(a: &Blueprint, b: &Blueprint) -> TownsDiff {
    let (ta, tb) = (a.towns.as_deref().unwrap_or(&[]), b.towns.as_deref().unwrap_or(&[]));
    let at = |t: &blueprint::Town| [t.x, t.y];
    let find = |list: &[blueprint::Town], t: &blueprint::Town| list.iter().find(|u| at(u) == at(t)).copied();
    TownsDiff {
        a_count: ta.len(),
        b_count: tb.len(),
        added: tb.iter().filter(|t| find(ta, t).is_none()).map(at).collect(),
        removed: ta.iter().filter(|t| find(tb, t).is_none()).map(at).collect(),
        retiered: ta.iter().filter(|t| find(tb, t).is_some_and(|u| u.tier != t.tier)).count(),
    }
}
