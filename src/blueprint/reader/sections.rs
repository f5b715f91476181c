//! The small sections: `PRMS`, `TOWN`, `WBTB` and the versioned metadata (`TCRV`, `TDTL`,
//! `EROS`).

use super::frame::Section;
use crate::blueprint::error::{BlueprintError, ErrorKind};
use crate::blueprint::model::*;
use byteorder::{ByteOrder, LittleEndian as LE};

/// `PRMS`: the known version and its six parameters, each checked; a longer body is a later
/// extension, skipped with a warning.
pub(super) fn parse_params(s: &Section<'_>, warnings: &mut Vec<Warning>) -> Result<Params, BlueprintError> {
    s.at_least(2)?;
    let version = LE::read_u16(s.payload);
    if version != PRMS_VERSION {
        return Err(s.err(ErrorKind::UnsupportedPrmsVersion { found: version }));
    }
    s.at_least(PRMS_LEN)?;
    // A file read holds only the known prefix: the extension's size comes from the framing.
    if s.length > PRMS_LEN as u64 {
        warnings.push(Warning {
            section: "PRMS".into(),
            offset: s.offset + PRMS_LEN as u64,
            message: format!("{} bytes of a later extension skipped", s.length - PRMS_LEN as u64),
        });
    }
    let f = |i: usize| LE::read_f32(&s.payload[2 + 4 * i..]);
    let p = Params {
        sea_level_raw: f(0),
        metres_per_raw: f(1),
        metres_per_pixel: f(2),
        crater_x: f(3),
        crater_y: f(4),
        crater_radius: f(5),
    };
    let checks: [(&'static str, f32, bool); 6] = [
        ("seaLevelRaw", p.sea_level_raw, p.sea_level_raw.is_finite()),
        ("metresPerRaw", p.metres_per_raw, p.metres_per_raw.is_finite() && p.metres_per_raw > 0.0),
        ("metresPerPixel", p.metres_per_pixel, p.metres_per_pixel.is_finite() && p.metres_per_pixel > 0.0),
        ("craterX", p.crater_x, p.crater_x.is_finite()),
        ("craterY", p.crater_y, p.crater_y.is_finite()),
        ("craterRadius", p.crater_radius, p.crater_radius.is_finite() && p.crater_radius >= 0.0),
    ];
    for (i, (name, value, ok)) in checks.into_iter().enumerate() {
        if !ok {
            return Err(s.err_at(ErrorKind::InvalidParameter { name, value }, 2 + 4 * i));
        }
    }
    Ok(p)
}

/// `TCRV`: the height-curve metadata, kept as its version and body bytes; `read_ahead` is the
/// whole payload when a file read already holds it (its body then becomes the model's, uncopied).
pub(super) fn parse_curve(s: &Section<'_>, read_ahead: Option<Vec<u8>>) -> Result<CurveMeta, BlueprintError> {
    s.at_least(2)?;
    Ok(match read_ahead {
        Some(mut payload) => {
            let version = LE::read_u16(&payload);
            payload.drain(..2);
            CurveMeta { version, body: payload }
        }
        None => CurveMeta { version: LE::read_u16(s.payload), body: s.payload[2..].to_vec() },
    })
}

/// `TOWN`: a record table of towns, positions finite and tiers known.
pub(super) fn parse_towns(s: &Section<'_>) -> Result<Vec<Town>, BlueprintError> {
    let count = s.counted(TOWN_RECORD_LEN)?;
    let mut towns = Vec::with_capacity(count);
    for i in 0..count {
        let at = 4 + i * TOWN_RECORD_LEN;
        let r = &s.payload[at..at + TOWN_RECORD_LEN];
        let tier = TownTier::from_ordinal(r[8])
            .ok_or_else(|| s.err_at(ErrorKind::TownTierOutOfRange { index: i, tier: r[8] }, at + 8))?;
        let (x, y) = (LE::read_f32(&r[0..]), LE::read_f32(&r[4..]));
        for (what, v, off) in [("town x", x, 0), ("town y", y, 4)] {
            if !v.is_finite() {
                return Err(s.err_at(ErrorKind::NonFiniteValue { what, index: i, value: v }, at + off));
            }
        }
        towns.push(Town { x, y, tier, is_highway_node: r[9] != 0 });
    }
    Ok(towns)
}

/// `WBTB`: a record table of water bodies, ids unique, kinds known and levels finite.
pub(super) fn parse_bodies(s: &Section<'_>) -> Result<Vec<WaterBody>, BlueprintError> {
    let count = s.counted(WATER_BODY_RECORD_LEN)?;
    let mut bodies = Vec::with_capacity(count);
    let mut ids = std::collections::HashSet::new();
    for i in 0..count {
        let at = 4 + i * WATER_BODY_RECORD_LEN;
        let r = &s.payload[at..at + WATER_BODY_RECORD_LEN];
        let kind = match r[2] {
            0 => WaterType::Ocean,
            1 => WaterType::Lake,
            v => {
                return Err(s.err_at(ErrorKind::WaterTypeOutOfRange { index: i, value: v }, at + 2));
            }
        };
        let salinity = match r[3] {
            0 => Salinity::Fresh,
            1 => Salinity::Salt,
            v => return Err(s.err_at(ErrorKind::SalinityOutOfRange { index: i, value: v }, at + 3)),
        };
        let id = LE::read_u16(&r[0..]);
        if !ids.insert(id) {
            return Err(s.err_at(ErrorKind::DuplicateBodyId { index: i, id }, at));
        }
        let (level, cx, cy) = (LE::read_f32(&r[4..]), LE::read_f32(&r[12..]), LE::read_f32(&r[16..]));
        for (what, v, off) in [("surface level", level, 4), ("centroid x", cx, 12), ("centroid y", cy, 16)] {
            if !v.is_finite() {
                return Err(s.err_at(ErrorKind::NonFiniteValue { what, index: i, value: v }, at + off));
            }
        }
        bodies.push(WaterBody {
            id,
            kind,
            salinity,
            surface_level_raw: level,
            pixel_count: LE::read_i32(&r[8..]),
            centroid_x: cx,
            centroid_y: cy,
        });
    }
    Ok(bodies)
}

/// A versioned metadata body: an unknown version is skipped whole with a warning (never misread).
pub(super) fn versioned<'a>(
    s: &Section<'a>,
    known: u16,
    len: usize,
    warnings: &mut Vec<Warning>,
) -> Result<Option<&'a [u8]>, BlueprintError> {
    s.at_least(2)?;
    let version = LE::read_u16(s.payload);
    let name = crate::blueprint::error::tag_name(s.tag);
    if version != known {
        warnings.push(Warning {
            section: name.clone(),
            offset: s.offset,
            message: format!(
                "{name} version {version} is not the known version {known}; section skipped, metadata left empty"
            ),
        });
        return Ok(None);
    }
    s.at_least(len)?;
    Ok(Some(&s.payload[2..]))
}

/// `TDTL`: the detail-noise metadata, when its version is known.
pub(super) fn parse_detail(s: &Section<'_>, warnings: &mut Vec<Warning>) -> Result<Option<DetailMeta>, BlueprintError> {
    Ok(versioned(s, TDTL_VERSION, TDTL_LEN, warnings)?.map(|b| DetailMeta {
        relief_amp_m: LE::read_f32(&b[0..]),
        relief_freq_islands: LE::read_f32(&b[4..]),
        relief_seed_offset: LE::read_i32(&b[8..]),
        edge_amp_m: LE::read_f32(&b[12..]),
        edge_freq_islands: LE::read_f32(&b[16..]),
        edge_seed_offset: LE::read_i32(&b[20..]),
        edge_max_shift_m: LE::read_f32(&b[24..]),
    }))
}

/// `EROS`: the erosion metadata, when its version is known.
pub(super) fn parse_erosion(
    s: &Section<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Option<ErosionMeta>, BlueprintError> {
    Ok(versioned(s, EROS_VERSION, EROS_LEN, warnings)?.map(|b| {
        let f = |i: usize| LE::read_f32(&b[16 + 4 * i..]);
        ErosionMeta {
            droplet_count: LE::read_i32(&b[0..]),
            lifetime: LE::read_i32(&b[4..]),
            brush_radius: LE::read_i32(&b[8..]),
            seed_offset: LE::read_i32(&b[12..]),
            carve_cap_m: f(0),
            deposit_cap_m: f(1),
            sea_margin_m: f(2),
            inertia: f(3),
            capacity_factor: f(4),
            min_slope_m: f(5),
            erode_rate: f(6),
            deposit_rate: f(7),
            evaporation: f(8),
            gravity: f(9),
            crater_core_factor: f(10),
            crater_feather_factor: f(11),
            crater_mode: b[64],
        }
    }))
}
