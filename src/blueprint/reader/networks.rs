//! The networks: `RIVR` and `ROAD`, counted lists of counted lists, every count checked against
//! the bytes left before anything is allocated for it.

use super::frame::Section;
use super::sections::versioned;
use crate::blueprint::error::{BlueprintError, ErrorKind};
use crate::blueprint::model::*;
use byteorder::{ByteOrder, LittleEndian as LE};

/// `RIVR` v1: the dials, then a counted list of rivers, each with a counted list of points. Every
/// count is checked against the bytes left before anything is allocated for it.
pub(super) fn parse_rivers(
    s: &Section<'_>,
    map_size: u32,
    params: &Params,
    warnings: &mut Vec<Warning>,
) -> Result<Option<RiverNetwork>, BlueprintError> {
    let Some(b) = versioned(s, RIVR_VERSION, 2 + RIVR_DIALS_LEN + 4, warnings)? else {
        return Ok(None);
    };
    let dials = river_dials(b);
    // Offsets below are within the payload (which starts with the 2-byte version).
    let p = s.payload;
    // A river needs at least its fixed record, so the count cannot promise more than the bytes.
    let (count, mut at) = s.count_at(2 + RIVR_DIALS_LEN, RIVER_RECORD_LEN)?;
    let side = map_size as f32;
    let check = RiverChecks { s, side, extent_m: side * params.metres_per_pixel };
    let mut rivers = Vec::with_capacity(count);
    for i in 0..count {
        rivers.push(parse_river(&check, i, &mut at)?);
    }
    if at != p.len() {
        return Err(s.err(ErrorKind::InconsistentCount { count: count as i32, payload: s.length }));
    }
    Ok(Some(RiverNetwork { dials, rivers }))
}

/// The `RIVR` dials: the body after the version, before the river count.
fn river_dials(b: &[u8]) -> RiverDialsMeta {
    let f = |i: usize| LE::read_f32(&b[6 + 4 * i..]);
    RiverDialsMeta {
        trunks: LE::read_u16(&b[0..]),
        lake_rivers: LE::read_u16(&b[2..]),
        tributaries: LE::read_u16(&b[4..]),
        main_min_area: f(0),
        tributary_min_area: f(1),
        stem_min_area: f(2),
        endorheic_min_area: f(3),
        mouth_separation: f(4),
        min_length_m: f(5),
        width_scale: f(6),
        depth_scale: f(7),
        min_depth_m: f(8),
        sea_margin_m: f(9),
    }
}

/// The checks a river's values go through, reported against its `RIVR` section. Points lie on
/// the map (pixel index coordinates) and widths within its extent: a river is drawn by walking
/// its points, so a far-away point must not be able to stall a reader's map.
struct RiverChecks<'s, 'a> {
    s: &'s Section<'a>,
    /// The map's side (px): the largest coordinate.
    side: f32,
    /// The map's extent (m): the widest river.
    extent_m: f32,
}

impl RiverChecks<'_, '_> {
    /// The payload ends before byte `needed`.
    fn short(&self, needed: usize) -> BlueprintError {
        self.s.err(ErrorKind::PayloadTooShort { needed: needed as u64, found: self.s.length })
    }

    /// `v` of river `index` (at payload offset `off`), when it is finite.
    fn finite(&self, what: &'static str, index: usize, v: f32, off: usize) -> Result<f32, BlueprintError> {
        if v.is_finite() { Ok(v) } else { Err(self.s.err_at(ErrorKind::NonFiniteValue { what, index, value: v }, off)) }
    }

    /// `v` of river `index` (at payload offset `off`), when it is finite and within `0..=hi`.
    fn within(&self, what: &'static str, index: usize, v: f32, hi: f32, off: usize) -> Result<f32, BlueprintError> {
        let v = self.finite(what, index, v, off)?;
        if (0.0..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(self.s.err_at(ErrorKind::RiverValueOutOfRange { what, index, value: v, max: hi }, off))
        }
    }
}

/// River `i`: its fixed record at payload offset `*cursor`, then its course; moves `*cursor` past
/// both.
fn parse_river(check: &RiverChecks<'_, '_>, i: usize, cursor: &mut usize) -> Result<River, BlueprintError> {
    let (s, side) = (check.s, check.side);
    let p = s.payload;
    let mut at = *cursor;
    if p.len() < at + RIVER_RECORD_LEN {
        return Err(check.short(at + RIVER_RECORD_LEN));
    }
    let r = &p[at..at + RIVER_RECORD_LEN];
    let order = r[2];
    if !(1..=2).contains(&order) {
        return Err(s.err_at(ErrorKind::RiverOrderOutOfRange { index: i, order }, at + 2));
    }
    let g = |k: usize| LE::read_f32(&r[5 + 4 * k..]);
    let names = ["river source x", "river source y", "river mouth x", "river mouth y"];
    let mut v = [0f32; 5];
    for k in 0..4 {
        v[k] = check.within(names[k], i, g(k), side, at + 5 + 4 * k)?;
    }
    v[4] = check.finite("river length", i, g(4), at + 21)?;
    let points = LE::read_i32(&r[25..]);
    if points < 0 {
        return Err(s.err_at(ErrorKind::NegativeCount { count: points }, at + 25));
    }
    at += RIVER_RECORD_LEN;
    let need = points as usize * RIVER_POINT_LEN;
    if p.len() - at < need {
        return Err(check.short(at + need));
    }
    let mut course = Vec::with_capacity(points as usize);
    for _ in 0..points {
        let q = |k: usize| LE::read_f32(&p[at + 4 * k..]);
        let pt = RiverPoint {
            x: check.within("river point x", i, q(0), side, at)?,
            y: check.within("river point y", i, q(1), side, at + 4)?,
            width_m: check.within("river width", i, q(2), check.extent_m, at + 8)?,
            discharge_m3s: check.finite("river discharge", i, q(3), at + 12)?,
        };
        course.push(pt);
        at += RIVER_POINT_LEN;
    }
    *cursor = at;
    Ok(River {
        body_id: LE::read_u16(&r[0..]),
        order,
        mouth_body_id: LE::read_u16(&r[3..]),
        source: [v[0], v[1]],
        mouth: [v[2], v[3]],
        length_m: v[4],
        course,
    })
}

/// `ROAD` v1: a counted list of roads, each a fixed record then its points and bridge spans.
/// Every count is checked against the bytes left before anything is allocated for it.
pub(super) fn parse_roads(
    s: &Section<'_>,
    map_size: u32,
    town_count: usize,
    warnings: &mut Vec<Warning>,
) -> Result<Option<RoadNetwork>, BlueprintError> {
    let Some(_) = versioned(s, ROAD_VERSION, 2 + 4, warnings)? else {
        return Ok(None);
    };
    let p = s.payload;
    let (count, mut at) = s.count_at(2, ROAD_RECORD_LEN)?;
    let short = |needed: u64| s.err(ErrorKind::PayloadTooShort { needed, found: s.length });
    let side = map_size as f32;
    let mut roads = Vec::with_capacity(count);
    for i in 0..count {
        if p.len() - at < ROAD_RECORD_LEN {
            return Err(short((at + ROAD_RECORD_LEN) as u64));
        }
        let r = &p[at..at + ROAD_RECORD_LEN];
        let tier = RoadTier::from_ordinal(r[0])
            .ok_or_else(|| s.err_at(ErrorKind::RoadTierOutOfRange { index: i, tier: r[0] }, at))?;
        // The towns it joins index `TOWN` (none: 0xFFFF).
        let (from_town, to_town) = (LE::read_u16(&r[1..]), LE::read_u16(&r[3..]));
        for (town, off) in [(from_town, 1), (to_town, 3)] {
            if town != NO_TOWN && town as usize >= town_count {
                return Err(s.err_at(ErrorKind::RoadTownOutOfRange { index: i, town, towns: town_count }, at + off));
            }
        }
        let (points, bridges) = (LE::read_i32(&r[5..]), LE::read_i32(&r[9..]));
        for (c, off) in [(points, 5), (bridges, 9)] {
            if c < 0 {
                return Err(s.err_at(ErrorKind::NegativeCount { count: c }, at + off));
            }
        }
        at += ROAD_RECORD_LEN;
        let need = points as u64 * ROAD_POINT_LEN as u64 + bridges as u64 * ROAD_BRIDGE_LEN as u64;
        if need > (p.len() - at) as u64 {
            return Err(short(at as u64 + need));
        }
        let mut pts = Vec::with_capacity(points as usize);
        for k in 0..points as usize {
            let (x, y) = (LE::read_f32(&p[at..]), LE::read_f32(&p[at + 4..]));
            if !(x.is_finite() && y.is_finite() && (0.0..=side).contains(&x) && (0.0..=side).contains(&y)) {
                return Err(s.err_at(ErrorKind::RoadPointOffMap { index: i, point: k, x, y }, at));
            }
            pts.push([x, y]);
            at += ROAD_POINT_LEN;
        }
        let mut spans = Vec::with_capacity(bridges as usize);
        for _ in 0..bridges {
            let (first, last) = (LE::read_i32(&p[at..]), LE::read_i32(&p[at + 4..]));
            if first < 0 || first > last || last >= points {
                return Err(s.err_at(ErrorKind::BridgeOutOfRange { index: i, first, last, points }, at));
            }
            spans.push([first as u32, last as u32]);
            at += ROAD_BRIDGE_LEN;
        }
        roads.push(Road { tier, from_town, to_town, points: pts, bridges: spans });
    }
    if at != p.len() {
        return Err(s.err(ErrorKind::InconsistentCount { count: count as i32, payload: s.length }));
    }
    Ok(Some(RoadNetwork { roads }))
}

/// `DIAL` v1: `i32 count`, then per dial `u8 keyLength` · the key · `u8 type` · the value (a `u8`
/// 0/1, an `i64` or an `f32`). The count is checked against the bytes left (every dial takes at
/// least 4) and against [`MAX_DIALS`] before anything is allocated; keys are unique.
pub(super) fn parse_dials(s: &Section<'_>, warnings: &mut Vec<Warning>) -> Result<Option<DialRecord>, BlueprintError> {
    let Some(_) = versioned(s, DIAL_VERSION, 2 + 4, warnings)? else {
        return Ok(None);
    };
    let p = s.payload;
    let (count, mut at) = s.count_at(2, 4)?;
    let short = |needed: u64| s.err(ErrorKind::PayloadTooShort { needed, found: s.length });
    if count > MAX_DIALS {
        let problem = format!("the record lists {count} dials, at most {MAX_DIALS}");
        return Err(s.err_at(ErrorKind::InvalidDial { index: MAX_DIALS, problem }, 2));
    }
    let mut dials: Vec<(String, DialValue)> = Vec::with_capacity(count);
    for index in 0..count {
        let bad = |problem: String, off: usize| s.err_at(ErrorKind::InvalidDial { index, problem }, off);
        if at >= p.len() {
            return Err(short(at as u64 + 4));
        }
        let key_len = p[at] as usize;
        if p.len() - at < 1 + key_len + 1 {
            return Err(short((at + 1 + key_len + 1) as u64));
        }
        let key = &p[at + 1..at + 1 + key_len];
        if !is_dial_key(key) {
            return Err(bad(format!("key is not 1..={MAX_DIAL_KEY_LEN} of a-z 0-9 _ ."), at));
        }
        let key = std::str::from_utf8(key).expect("ASCII").to_string();
        if dials.iter().any(|(k, _)| *k == key) {
            return Err(bad(format!("key '{key}' appears twice"), at));
        }
        at += 1 + key_len;
        let ty = p[at];
        let len = match ty {
            0 => 1,
            1 => 8,
            2 => 4,
            _ => return Err(bad(format!("'{key}' has type {ty}, known types are 0 (bool), 1 (i64), 2 (f32)"), at)),
        };
        at += 1;
        if p.len() - at < len {
            return Err(short((at + len) as u64));
        }
        let value = match ty {
            0 if p[at] <= 1 => DialValue::Bool(p[at] == 1),
            0 => return Err(bad(format!("'{key}' is a bool of value {}, it must be 0 or 1", p[at]), at)),
            1 => DialValue::Int(LE::read_i64(&p[at..])),
            _ => {
                let v = LE::read_f32(&p[at..]);
                if !v.is_finite() {
                    return Err(bad(format!("'{key}' is {v}, it must be finite"), at));
                }
                DialValue::Float(v)
            }
        };
        at += len;
        dials.push((key, value));
    }
    if at != p.len() {
        return Err(s.err(ErrorKind::InconsistentCount { count: count as i32, payload: s.length }));
    }
    Ok(Some(DialRecord { dials }))
}
