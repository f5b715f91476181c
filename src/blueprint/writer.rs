//! The writer: refuses a model the reader would refuse (same error types), lays sections out in
//! one fixed order so equal models give equal bytes, and replaces files atomically.

use super::error::{BlueprintError, ErrorKind};
use super::model::*;
use byteorder::{ByteOrder, LittleEndian as LE, WriteBytesExt};
use std::path::Path;

fn model_err(kind: ErrorKind, tag: &[u8; 4]) -> BlueprintError {
    BlueprintError::new(kind, Some(*tag), 0)
}

/// Refuse a model the reader would refuse (the same error kinds), checking in one fixed order:
/// the map size, `PRMS`, the grids, `TOWN`, the water, `ROAD`, `RIVR`, `DIAL`.
fn validate(bp: &Blueprint) -> Result<(), BlueprintError> {
    let n = bp.map_size;
    if !(MIN_MAP_SIZE..=MAX_MAP_SIZE).contains(&n) {
        return Err(BlueprintError::new(ErrorKind::MapSizeOutOfRange { size: n }, None, 1));
    }
    validate_params(&bp.params)?;
    validate_grids(bp)?;
    if let Some(towns) = &bp.towns {
        validate_towns(towns)?;
    }
    if let Some(w) = &bp.water {
        validate_water(w, n)?;
    }
    if let Some(r) = &bp.roads {
        validate_roads(r, n, bp.towns.as_ref().map_or(0, Vec::len))?;
    }
    if let Some(r) = &bp.rivers {
        validate_rivers(r, n, bp.params.metres_per_pixel)?;
    }
    if let Some(d) = &bp.dials {
        validate_dials(d)?;
    }
    Ok(())
}

/// `DIAL`: at most [`MAX_DIALS`], keys well-formed and unique, floats finite.
fn validate_dials(d: &DialRecord) -> Result<(), BlueprintError> {
    let bad = |index: usize, problem: String| model_err(ErrorKind::InvalidDial { index, problem }, b"DIAL");
    if d.dials.len() > MAX_DIALS {
        return Err(bad(MAX_DIALS, format!("the record lists {} dials, at most {MAX_DIALS}", d.dials.len())));
    }
    for (index, (key, value)) in d.dials.iter().enumerate() {
        if !is_dial_key(key.as_bytes()) {
            return Err(bad(index, format!("key is not 1..={MAX_DIAL_KEY_LEN} of a-z 0-9 _ .")));
        }
        if d.dials[..index].iter().any(|(k, _)| k == key) {
            return Err(bad(index, format!("key '{key}' appears twice")));
        }
        if let DialValue::Float(v) = value
            && !v.is_finite()
        {
            return Err(bad(index, format!("'{key}' is {v}, it must be finite")));
        }
    }
    Ok(())
}

/// `PRMS`: scales finite and positive, the crater radius not negative, every value finite.
fn validate_params(p: &Params) -> Result<(), BlueprintError> {
    if !(p.metres_per_raw.is_finite() && p.metres_per_raw > 0.0) {
        return Err(model_err(ErrorKind::InvalidParameter { name: "metresPerRaw", value: p.metres_per_raw }, b"PRMS"));
    }
    if !(p.metres_per_pixel.is_finite() && p.metres_per_pixel > 0.0) {
        return Err(model_err(
            ErrorKind::InvalidParameter { name: "metresPerPixel", value: p.metres_per_pixel },
            b"PRMS",
        ));
    }
    if !(p.crater_radius.is_finite() && p.crater_radius >= 0.0) {
        return Err(model_err(ErrorKind::InvalidParameter { name: "craterRadius", value: p.crater_radius }, b"PRMS"));
    }
    for (name, v) in [("seaLevelRaw", p.sea_level_raw), ("craterX", p.crater_x), ("craterY", p.crater_y)] {
        if !v.is_finite() {
            return Err(model_err(ErrorKind::InvalidParameter { name, value: v }, b"PRMS"));
        }
    }
    Ok(())
}

/// A grid section of `len` cells, refused unless it has one per cell of a map of side `n`.
fn grid_len(len: usize, n: u32, tag: &[u8; 4]) -> Result<(), BlueprintError> {
    let cells = n as u64 * n as u64;
    if len as u64 != cells {
        Err(model_err(ErrorKind::WrongLength { expected: cells, found: len as u64 }, tag))
    } else {
        Ok(())
    }
}

/// `HGTS` and `BIOM`: one value per cell, heights finite, biomes known.
fn validate_grids(bp: &Blueprint) -> Result<(), BlueprintError> {
    let n = bp.map_size;
    grid_len(bp.heights_raw.len(), n, b"HGTS")?;
    if let Some(i) = bp.heights_raw.iter().position(|h| !h.is_finite()) {
        let (x, y) = ((i / n as usize) as u32, (i % n as usize) as u32);
        return Err(model_err(ErrorKind::NonFiniteHeight { x, y, value: bp.heights_raw[i] }, b"HGTS"));
    }
    grid_len(bp.biomes.len(), n, b"BIOM")?;
    if let Some(i) = bp.biomes.iter().position(|&b| b >= Biome::COUNT) {
        let (x, y) = ((i / n as usize) as u32, (i % n as usize) as u32);
        return Err(model_err(ErrorKind::BiomeOutOfRange { x, y, ordinal: bp.biomes[i] }, b"BIOM"));
    }
    Ok(())
}

/// `TOWN`: every position finite.
fn validate_towns(towns: &[Town]) -> Result<(), BlueprintError> {
    for (index, t) in towns.iter().enumerate() {
        for (what, value) in [("town x", t.x), ("town y", t.y)] {
            if !value.is_finite() {
                return Err(model_err(ErrorKind::NonFiniteValue { what, index, value }, b"TOWN"));
            }
        }
    }
    Ok(())
}

/// `WBTB` ids unique and values finite, then `WBID` and `WSRF` one value per cell.
fn validate_water(w: &Water, n: u32) -> Result<(), BlueprintError> {
    if let Some(bodies) = &w.bodies {
        let mut ids = std::collections::HashSet::new();
        for (index, b) in bodies.iter().enumerate() {
            if !ids.insert(b.id) {
                return Err(model_err(ErrorKind::DuplicateBodyId { index, id: b.id }, b"WBTB"));
            }
            for (what, value) in
                [("surface level", b.surface_level_raw), ("centroid x", b.centroid_x), ("centroid y", b.centroid_y)]
            {
                if !value.is_finite() {
                    return Err(model_err(ErrorKind::NonFiniteValue { what, index, value }, b"WBTB"));
                }
            }
        }
    }
    grid_len(w.body_ids.len(), n, b"WBID")?;
    if let Some(s) = &w.surface {
        grid_len(s.len(), n, b"WSRF")?;
    }
    Ok(())
}

/// `ROAD`: towns among the `towns` there are, points on a map of side `n`, bridges within the
/// points.
fn validate_roads(r: &RoadNetwork, n: u32, towns: usize) -> Result<(), BlueprintError> {
    let side = n as f32;
    for (index, road) in r.roads.iter().enumerate() {
        if let Some(&town) = [road.from_town, road.to_town].iter().find(|&&t| t != NO_TOWN && t as usize >= towns) {
            return Err(model_err(ErrorKind::RoadTownOutOfRange { index, town, towns }, b"ROAD"));
        }
        if let Some((point, p)) =
            road.points.iter().enumerate().find(|(_, p)| !p.iter().all(|c| c.is_finite() && (0.0..=side).contains(c)))
        {
            return Err(model_err(ErrorKind::RoadPointOffMap { index, point, x: p[0], y: p[1] }, b"ROAD"));
        }
        let points = road.points.len() as i32;
        if let Some(s) = road.bridges.iter().find(|s| s[0] > s[1] || s[1] as i64 >= points as i64) {
            let (first, last) = (s[0] as i32, s[1] as i32);
            return Err(model_err(ErrorKind::BridgeOutOfRange { index, first, last, points }, b"ROAD"));
        }
    }
    Ok(())
}

/// `RIVR`: orders known, values finite, coordinates on a map of side `n` and widths within its
/// extent at `metres_per_pixel`.
fn validate_rivers(r: &RiverNetwork, n: u32, metres_per_pixel: f32) -> Result<(), BlueprintError> {
    for (index, v) in r.rivers.iter().enumerate() {
        if !(1..=2).contains(&v.order) {
            return Err(model_err(ErrorKind::RiverOrderOutOfRange { index, order: v.order }, b"RIVR"));
        }
        let fixed = [v.source[0], v.source[1], v.mouth[0], v.mouth[1], v.length_m];
        let points = v.course.iter().flat_map(|p| [p.x, p.y, p.width_m, p.discharge_m3s]);
        if let Some(value) = fixed.into_iter().chain(points).find(|f| !f.is_finite()) {
            return Err(model_err(ErrorKind::NonFiniteValue { what: "river value", index, value }, b"RIVR"));
        }
        let side = n as f32;
        let extent_m = side * metres_per_pixel;
        let coords = [v.source[0], v.source[1], v.mouth[0], v.mouth[1]]
            .into_iter()
            .chain(v.course.iter().flat_map(|q| [q.x, q.y]))
            .map(|c| ("river coordinate", c, side));
        let widths = v.course.iter().map(|q| ("river width", q.width_m, extent_m));
        if let Some((what, value, max)) = coords.chain(widths).find(|(_, c, max)| !(0.0..=*max).contains(c)) {
            return Err(model_err(ErrorKind::RiverValueOutOfRange { what, index, value, max }, b"RIVR"));
        }
    }
    Ok(())
}

fn section(out: &mut Vec<u8>, tag: u32, payload: &[u8]) {
    out.extend_from_slice(&tag.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
}

/// Serialise a model. Equal models give equal bytes.
pub fn to_bytes(bp: &Blueprint) -> Result<Vec<u8>, BlueprintError> {
    validate(bp)?;
    let cells = bp.n() * bp.n();
    let mut out = Vec::with_capacity(HEADER_LEN + 7 * cells + 256);
    out.push(FORMAT_VERSION);
    out.extend_from_slice(&bp.map_size.to_le_bytes());
    out.extend_from_slice(&bp.seed.to_le_bytes());

    write_params(&mut out, &bp.params);
    write_heights(&mut out, &bp.heights_raw);
    write_biomes(&mut out, &bp.biomes);
    if let Some(towns) = &bp.towns {
        write_towns(&mut out, towns);
    }
    if let Some(w) = &bp.water {
        write_body_ids(&mut out, &w.body_ids);
        if let Some(bodies) = &w.bodies {
            write_bodies(&mut out, bodies);
        }
        if let Some(s) = &w.surface {
            write_surface(&mut out, s);
        }
    }
    if let Some(c) = &bp.curve {
        write_curve(&mut out, c);
    }
    if let Some(d) = &bp.detail {
        write_detail(&mut out, d);
    }
    if let Some(e) = &bp.erosion {
        write_erosion(&mut out, e);
    }
    if let Some(r) = &bp.rivers {
        write_rivers(&mut out, r);
    }
    if let Some(r) = &bp.roads {
        write_roads(&mut out, r);
    }
    if let Some(d) = &bp.dials {
        write_dials(&mut out, d);
    }
    Ok(out)
}

/// A little-endian u16 grid as one section: `WBID` and `WSRF` share this layout, so it is written once.
fn write_u16_grid(out: &mut Vec<u8>, tag: u32, grid: &[u16]) {
    let mut b = vec![0u8; 2 * grid.len()];
    LE::write_u16_into(grid, &mut b);
    section(out, tag, &b);
}

/// `PRMS`: the version and the six scalar parameters; one encoder per section, as the reader's `parse_params`.
fn write_params(out: &mut Vec<u8>, pr: &Params) {
    let mut p = Vec::with_capacity(PRMS_LEN);
    p.write_u16::<LE>(PRMS_VERSION).unwrap();
    for v in [pr.sea_level_raw, pr.metres_per_raw, pr.metres_per_pixel, pr.crater_x, pr.crater_y, pr.crater_radius] {
        p.write_f32::<LE>(v).unwrap();
    }
    section(out, tags::PRMS, &p);
}

/// `HGTS`: the N² raw heights as little-endian f32s; its own encoder, as the reader's `parse_heights`.
fn write_heights(out: &mut Vec<u8>, heights_raw: &[f32]) {
    let mut h = vec![0u8; 4 * heights_raw.len()];
    LE::write_f32_into(heights_raw, &mut h);
    section(out, tags::HGTS, &h);
}

/// `BIOM`: the N² biome ordinals, one byte each, as they are; its own encoder, as the reader's `parse_biomes`.
fn write_biomes(out: &mut Vec<u8>, biomes: &[u8]) {
    section(out, tags::BIOM, biomes);
}

/// `TOWN`: the count, then one record per town; its own encoder, as the reader's `parse_towns`.
fn write_towns(out: &mut Vec<u8>, towns: &[Town]) {
    let mut t = Vec::with_capacity(4 + towns.len() * TOWN_RECORD_LEN);
    t.write_i32::<LE>(towns.len() as i32).unwrap();
    for town in towns {
        t.write_f32::<LE>(town.x).unwrap();
        t.write_f32::<LE>(town.y).unwrap();
        t.push(town.tier as u8);
        t.push(town.is_highway_node as u8);
    }
    section(out, tags::TOWN, &t);
}

/// `WBID`: the N² water body ids; its own encoder, as the reader's `WBID` arm of `parse`.
fn write_body_ids(out: &mut Vec<u8>, body_ids: &[u16]) {
    write_u16_grid(out, tags::WBID, body_ids);
}

/// `WBTB`: the count, then one record per water body; its own encoder, as the reader's `parse_bodies`.
fn write_bodies(out: &mut Vec<u8>, bodies: &[WaterBody]) {
    let mut b = Vec::with_capacity(4 + bodies.len() * WATER_BODY_RECORD_LEN);
    b.write_i32::<LE>(bodies.len() as i32).unwrap();
    for body in bodies {
        b.write_u16::<LE>(body.id).unwrap();
        b.push(body.kind as u8);
        b.push(body.salinity as u8);
        b.write_f32::<LE>(body.surface_level_raw).unwrap();
        b.write_i32::<LE>(body.pixel_count).unwrap();
        b.write_f32::<LE>(body.centroid_x).unwrap();
        b.write_f32::<LE>(body.centroid_y).unwrap();
    }
    section(out, tags::WBTB, &b);
}

/// `WSRF`: the N² quantised water surface levels; its own encoder, as the reader's `WSRF` arm of `parse`.
fn write_surface(out: &mut Vec<u8>, surface: &[u16]) {
    write_u16_grid(out, tags::WSRF, surface);
}

/// `TCRV`: the curve version, then its body bytes as kept; its own encoder, as the reader's `TCRV` arm.
fn write_curve(out: &mut Vec<u8>, c: &CurveMeta) {
    let mut b = Vec::with_capacity(2 + c.body.len());
    b.write_u16::<LE>(c.version).unwrap();
    b.extend_from_slice(&c.body);
    section(out, tags::TCRV, &b);
}

/// `TDTL` v2: the detail pass as applied; its own encoder, as the reader's `parse_detail`.
fn write_detail(out: &mut Vec<u8>, d: &DetailMeta) {
    let mut b = Vec::with_capacity(TDTL_LEN);
    b.write_u16::<LE>(TDTL_VERSION).unwrap();
    b.write_f32::<LE>(d.relief_amp_m).unwrap();
    b.write_f32::<LE>(d.relief_freq_islands).unwrap();
    b.write_i32::<LE>(d.relief_seed_offset).unwrap();
    b.write_f32::<LE>(d.edge_amp_m).unwrap();
    b.write_f32::<LE>(d.edge_freq_islands).unwrap();
    b.write_i32::<LE>(d.edge_seed_offset).unwrap();
    b.write_f32::<LE>(d.edge_max_shift_m).unwrap();
    section(out, tags::TDTL, &b);
}

/// `EROS` v3: the erosion pass as applied; its own encoder, as the reader's `parse_erosion`.
fn write_erosion(out: &mut Vec<u8>, e: &ErosionMeta) {
    let mut b = Vec::with_capacity(EROS_LEN);
    b.write_u16::<LE>(EROS_VERSION).unwrap();
    for v in [e.droplet_count, e.lifetime, e.brush_radius, e.seed_offset] {
        b.write_i32::<LE>(v).unwrap();
    }
    for v in [
        e.carve_cap_m,
        e.deposit_cap_m,
        e.sea_margin_m,
        e.inertia,
        e.capacity_factor,
        e.min_slope_m,
        e.erode_rate,
        e.deposit_rate,
        e.evaporation,
        e.gravity,
        e.crater_core_factor,
        e.crater_feather_factor,
    ] {
        b.write_f32::<LE>(v).unwrap();
    }
    b.push(e.crater_mode);
    section(out, tags::EROS, &b);
}

/// `RIVR` v1: the river network; its own encoder, as the reader's `parse_rivers`.
fn write_rivers(out: &mut Vec<u8>, r: &RiverNetwork) {
    let points: usize = r.rivers.iter().map(|v| v.course.len()).sum();
    let mut b =
        Vec::with_capacity(2 + RIVR_DIALS_LEN + 4 + r.rivers.len() * RIVER_RECORD_LEN + points * RIVER_POINT_LEN);
    b.write_u16::<LE>(RIVR_VERSION).unwrap();
    let d = &r.dials;
    for v in [d.trunks, d.lake_rivers, d.tributaries] {
        b.write_u16::<LE>(v).unwrap();
    }
    for v in [
        d.main_min_area,
        d.tributary_min_area,
        d.stem_min_area,
        d.endorheic_min_area,
        d.mouth_separation,
        d.min_length_m,
        d.width_scale,
        d.depth_scale,
        d.min_depth_m,
        d.sea_margin_m,
    ] {
        b.write_f32::<LE>(v).unwrap();
    }
    b.write_i32::<LE>(r.rivers.len() as i32).unwrap();
    for v in &r.rivers {
        b.write_u16::<LE>(v.body_id).unwrap();
        b.push(v.order);
        b.write_u16::<LE>(v.mouth_body_id).unwrap();
        for f in [v.source[0], v.source[1], v.mouth[0], v.mouth[1], v.length_m] {
            b.write_f32::<LE>(f).unwrap();
        }
        b.write_i32::<LE>(v.course.len() as i32).unwrap();
        for p in &v.course {
            for f in [p.x, p.y, p.width_m, p.discharge_m3s] {
                b.write_f32::<LE>(f).unwrap();
            }
        }
    }
    section(out, tags::RIVR, &b);
}

/// `ROAD` v1: the road network; its own encoder, as the reader's `parse_roads`.
fn write_roads(out: &mut Vec<u8>, r: &RoadNetwork) {
    let mut b = Vec::new();
    b.write_u16::<LE>(ROAD_VERSION).unwrap();
    b.write_i32::<LE>(r.roads.len() as i32).unwrap();
    for road in &r.roads {
        b.push(road.tier as u8);
        b.write_u16::<LE>(road.from_town).unwrap();
        b.write_u16::<LE>(road.to_town).unwrap();
        b.write_i32::<LE>(road.points.len() as i32).unwrap();
        b.write_i32::<LE>(road.bridges.len() as i32).unwrap();
        for p in &road.points {
            b.write_f32::<LE>(p[0]).unwrap();
            b.write_f32::<LE>(p[1]).unwrap();
        }
        for s in &road.bridges {
            b.write_i32::<LE>(s[0] as i32).unwrap();
            b.write_i32::<LE>(s[1] as i32).unwrap();
        }
    }
    section(out, tags::ROAD, &b);
}

/// `DIAL` v1: the dials as applied; its own encoder, as the reader's `parse_dials`.
fn write_dials(out: &mut Vec<u8>, d: &DialRecord) {
    let mut b = Vec::new();
    b.write_u16::<LE>(DIAL_VERSION).unwrap();
    b.write_i32::<LE>(d.dials.len() as i32).unwrap();
    for (key, value) in &d.dials {
        b.push(key.len() as u8);
        b.extend_from_slice(key.as_bytes());
        b.push(value.type_code());
        match *value {
            DialValue::Bool(v) => b.push(v as u8),
            DialValue::Int(v) => b.write_i64::<LE>(v).unwrap(),
            DialValue::Float(v) => b.write_f32::<LE>(v).unwrap(),
        }
    }
    section(out, tags::DIAL, &b);
}

/// Write a blueprint atomically: serialise, write a temporary file in the same folder, flush and
/// sync it, then rename it over the target. A crash at any point leaves either the old file or the
/// new one, never a half-written blueprint.
pub fn write_file_atomic(path: &Path, bp: &Blueprint) -> Result<(), BlueprintError> {
    let bytes = to_bytes(bp)?;
    crate::io::write_bytes_atomic(path, &bytes)
        .map_err(|e| BlueprintError::new(ErrorKind::Io(format!("cannot write {}: {e}", path.display())), None, 0))
}
