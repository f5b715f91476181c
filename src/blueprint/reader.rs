//! The validating reader. It works on the whole file in memory (one allocation of the file's own
//! size); every other allocation is for a section whose length has already been checked against
//! both the map size and the bytes actually present, so no length field can make it allocate more
//! than the file holds.

use super::error::{BlueprintError, ErrorKind};
use super::model::*;
use byteorder::{ByteOrder, LittleEndian as LE};
use std::path::Path;

/// Files at least this large are read section by section by [`read_file`].
pub const DIRECT_READ_MIN_BYTES: u64 = 4 << 20;

/// Read and validate a blueprint file. I/O problems come back as a header-level error that names
/// the path.
///
/// Large files are not read into one buffer: the framing walks the section headers with
/// positioned reads, the four grids (`HGTS`, `BIOM`, `WBID`, `WSRF`) are read straight into their
/// final, uninitialised buffers when their lengths are right, the other known sections into small
/// buffers, and unknown sections are skipped unread. The framing and the validation are the same
/// functions as [`read_bytes`]'s, so both give the same model or the same error (a test checks).
pub fn read_file(path: &Path) -> Result<Blueprint, BlueprintError> {
    let io =
        |e: std::io::Error| BlueprintError::new(ErrorKind::Io(format!("cannot read {}: {e}", path.display())), None, 0);
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    #[cfg(all(unix, target_endian = "little"))]
    if len >= DIRECT_READ_MIN_BYTES {
        return direct::read(&file, len, &io);
    }
    let _ = len;
    read_bytes(&std::fs::read(path).map_err(io)?)
}

#[cfg(all(unix, target_endian = "little"))]
mod direct {
    use super::*;
    use std::os::unix::fs::FileExt;
    use std::os::unix::io::AsRawFd;

    /// Read `n` values of a plain-number type straight from the file into a new buffer, without
    /// zero-filling it first (the bytes on disk are little-endian, as is this host).
    fn grid<T: Copy>(file: &std::fs::File, at: u64, n: usize) -> std::io::Result<Vec<T>> {
        let bytes = n * std::mem::size_of::<T>();
        let mut v: Vec<T> = Vec::with_capacity(n);
        let ptr = v.as_mut_ptr() as *mut u8;
        let mut done = 0usize;
        while done < bytes {
            // SAFETY: writes at most `bytes - done` bytes into the buffer's spare capacity,
            // through a raw pointer (no reference to uninitialised memory is formed).
            let r = unsafe {
                libc::pread(
                    file.as_raw_fd(),
                    ptr.add(done) as *mut libc::c_void,
                    bytes - done,
                    (at + done as u64) as libc::off_t,
                )
            };
            if r < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if r == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            done += r as usize;
        }
        // SAFETY: all `bytes` bytes were written above; T is f32, u16 or u8 (any bit pattern).
        unsafe { v.set_len(n) };
        Ok(v)
    }

    pub(super) fn read(
        file: &std::fs::File,
        len: u64,
        io: &dyn Fn(std::io::Error) -> BlueprintError,
    ) -> Result<Blueprint, BlueprintError> {
        let (map_size, seed, heads) = frame(len, &mut |at, buf| file.read_exact_at(buf, at).map_err(io))?;
        let cells = map_size as usize * map_size as usize;
        let mut grids = Grids::default();
        let mut owned: Vec<(usize, Vec<u8>)> = Vec::new();
        for (i, h) in heads.iter().enumerate() {
            let t = LE::read_u32(&h.tag);
            let exact = match t {
                tags::HGTS => h.length == 4 * cells as u64,
                tags::BIOM => h.length == cells as u64,
                tags::WBID | tags::WSRF => h.length == 2 * cells as u64,
                _ => false,
            };
            if exact {
                match t {
                    tags::HGTS => grids.heights = Some(grid(file, h.offset, cells).map_err(io)?),
                    tags::BIOM => grids.biomes = Some(grid(file, h.offset, cells).map_err(io)?),
                    tags::WBID => grids.body_ids = Some(grid(file, h.offset, cells).map_err(io)?),
                    _ => grids.surface = Some(grid(file, h.offset, cells).map_err(io)?),
                }
            } else if KNOWN_TAGS.contains(&t) {
                // Small sections, and grids of the wrong length (their error needs no bytes, but
                // reading them keeps this path the same as the in-memory one): at most the file.
                let mut buf = vec![0u8; h.length as usize];
                file.read_exact_at(&mut buf, h.offset).map_err(io)?;
                owned.push((i, buf));
            }
        }
        let mut sections: Vec<Section<'_>> =
            heads.iter().map(|h| Section { tag: h.tag, offset: h.offset, length: h.length, payload: &[] }).collect();
        for (i, buf) in &owned {
            sections[*i].payload = buf;
        }
        parse(map_size, seed, sections, grids)
    }
}

type Tag = [u8; 4];

/// Every section this reader understands; anything else is skipped with a warning.
const KNOWN_TAGS: [u32; 12] = [
    tags::PRMS,
    tags::HGTS,
    tags::BIOM,
    tags::TOWN,
    tags::WBID,
    tags::WBTB,
    tags::WSRF,
    tags::TCRV,
    tags::TDTL,
    tags::EROS,
    tags::RIVR,
    tags::ROAD,
];

/// Unknown sections are each reported up to this many, then summed up in one warning, so a file
/// of many tiny unknown sections cannot make the warning list outgrow the file.
const MAX_UNKNOWN_WARNINGS: usize = 64;

struct Section<'a> {
    tag: Tag,
    /// Offset of the payload's first byte in the file.
    offset: u64,
    /// Payload length as framed. The payload bytes may be absent (empty) where a file read
    /// decoded the grid straight into its buffer or skipped an unknown section unread.
    length: u64,
    payload: &'a [u8],
}

impl Section<'_> {
    fn err(&self, kind: ErrorKind) -> BlueprintError {
        BlueprintError::new(kind, Some(self.tag), self.offset)
    }
    fn err_at(&self, kind: ErrorKind, at: usize) -> BlueprintError {
        BlueprintError::new(kind, Some(self.tag), self.offset + at as u64)
    }
    fn exact(&self, expected: u64) -> Result<(), BlueprintError> {
        if self.length != expected {
            return Err(self.err(ErrorKind::WrongLength { expected, found: self.length }));
        }
        Ok(())
    }
    fn at_least(&self, needed: usize) -> Result<(), BlueprintError> {
        if self.length < needed as u64 {
            return Err(self.err(ErrorKind::PayloadTooShort { needed: needed as u64, found: self.length }));
        }
        Ok(())
    }
    /// A record table: `i32 count` then `count` records of `record_len` bytes, nothing more.
    fn counted(&self, record_len: usize) -> Result<usize, BlueprintError> {
        self.at_least(4)?;
        let count = LE::read_i32(self.payload);
        if count < 0 {
            return Err(self.err(ErrorKind::NegativeCount { count }));
        }
        let expected = 4u64 + count as u64 * record_len as u64;
        if expected != self.length {
            return Err(self.err(ErrorKind::InconsistentCount { count, payload: self.length }));
        }
        Ok(count as usize)
    }
}

/// Split the file into its header and framed sections without interpreting payloads.
/// A framed section: where its payload is and how long it is.
#[derive(Debug, Clone, Copy)]
struct Head {
    tag: Tag,
    offset: u64,
    length: u64,
}

/// Reads `buf.len()` bytes at a byte offset: from a slice or from a file.
type ReadAt<'a> = dyn FnMut(u64, &mut [u8]) -> Result<(), BlueprintError> + 'a;

/// Walk the header and the section headers of a file of `len` bytes, reading through `read_at`
/// (a slice or a file), without touching payloads. Every framing error is decided here, so the
/// in-memory and the file paths report exactly the same errors.
fn frame(len: u64, read_at: &mut ReadAt<'_>) -> Result<(u32, i32, Vec<Head>), BlueprintError> {
    if len == 0 {
        return Err(BlueprintError::new(ErrorKind::Empty, None, 0));
    }
    let mut first = [0u8; 1];
    read_at(0, &mut first)?;
    // Dispatch on the first byte before anything else so a legacy file gets the right message.
    if first[0] != FORMAT_VERSION {
        return Err(BlueprintError::new(ErrorKind::UnsupportedVersion { found: first[0] }, None, 0));
    }
    if len < HEADER_LEN as u64 {
        return Err(BlueprintError::new(ErrorKind::TruncatedHeader { len: len as usize }, None, 0));
    }
    let mut header = [0u8; HEADER_LEN];
    read_at(0, &mut header)?;
    let map_size = LE::read_u32(&header[1..5]);
    if !(MIN_MAP_SIZE..=MAX_MAP_SIZE).contains(&map_size) {
        return Err(BlueprintError::new(ErrorKind::MapSizeOutOfRange { size: map_size }, None, 1));
    }
    let seed = LE::read_i32(&header[5..9]);

    let mut heads = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut pos = HEADER_LEN as u64;
    while pos < len {
        let remaining = len - pos;
        if remaining < SECTION_HEADER_LEN as u64 {
            return Err(BlueprintError::new(
                ErrorKind::TruncatedSectionHeader { remaining: remaining as usize },
                None,
                pos,
            ));
        }
        let mut h = [0u8; SECTION_HEADER_LEN];
        read_at(pos, &mut h)?;
        let tag: Tag = h[0..4].try_into().expect("4 bytes");
        let length = LE::read_u64(&h[4..12]);
        let payload_start = pos + SECTION_HEADER_LEN as u64;
        let left = len - payload_start;
        if length > left {
            return Err(BlueprintError::new(ErrorKind::SectionPastEnd { length, remaining: left }, Some(tag), pos + 4));
        }
        if !seen.insert(tag) {
            return Err(BlueprintError::new(ErrorKind::DuplicateSection, Some(tag), pos));
        }
        heads.push(Head { tag, offset: payload_start, length });
        pos = payload_start + length;
    }
    Ok((map_size, seed, heads))
}

fn frame_slice(bytes: &[u8]) -> Result<(u32, i32, Vec<Section<'_>>), BlueprintError> {
    let (map_size, seed, heads) = frame(bytes.len() as u64, &mut |at, buf| {
        buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
        Ok(())
    })?;
    let sections = heads
        .into_iter()
        .map(|h| Section {
            tag: h.tag,
            offset: h.offset,
            length: h.length,
            payload: &bytes[h.offset as usize..(h.offset + h.length) as usize],
        })
        .collect();
    Ok((map_size, seed, sections))
}

/// Parse and validate a blueprint held in memory.
pub fn read_bytes(bytes: &[u8]) -> Result<Blueprint, BlueprintError> {
    let (map_size, seed, sections) = frame_slice(bytes)?;
    parse(map_size, seed, sections, Grids::default())
}

/// Grids a file read decoded straight into their buffers (each only when its length was right).
#[derive(Default)]
struct Grids {
    heights: Option<Vec<f32>>,
    biomes: Option<Vec<u8>>,
    body_ids: Option<Vec<u16>>,
    surface: Option<Vec<u16>>,
}

/// The one validation path, after framing.
fn parse(map_size: u32, seed: i32, sections: Vec<Section<'_>>, mut grids: Grids) -> Result<Blueprint, BlueprintError> {
    let file_len = sections.last().map_or(HEADER_LEN as u64, |s| s.offset + s.length);
    let n = map_size as usize;
    let cells = n * n;
    let find = |t: u32| sections.iter().find(|s| LE::read_u32(&s.tag) == t);
    let missing = |name: &[u8; 4]| BlueprintError::new(ErrorKind::MissingSection, Some(*name), file_len);
    let mut warnings = Vec::new();

    let mut unknown = 0usize;
    for s in &sections {
        if !KNOWN_TAGS.contains(&LE::read_u32(&s.tag)) {
            unknown += 1;
            if unknown <= MAX_UNKNOWN_WARNINGS {
                warnings.push(Warning {
                    section: super::error::tag_name(s.tag),
                    offset: s.offset - SECTION_HEADER_LEN as u64,
                    message: format!("unknown section skipped ({} bytes)", s.length),
                });
            }
        }
    }
    if unknown > MAX_UNKNOWN_WARNINGS {
        warnings.push(Warning {
            section: "*".into(),
            offset: 0,
            message: format!("{} more unknown sections skipped", unknown - MAX_UNKNOWN_WARNINGS),
        });
    }

    let params = parse_params(find(tags::PRMS).ok_or_else(|| missing(b"PRMS"))?, &mut warnings)?;
    let heights_raw = parse_heights(find(tags::HGTS).ok_or_else(|| missing(b"HGTS"))?, map_size, grids.heights.take())?;
    let biomes = parse_biomes(find(tags::BIOM).ok_or_else(|| missing(b"BIOM"))?, map_size, grids.biomes.take())?;
    let towns = find(tags::TOWN).map(parse_towns).transpose()?;

    let wbid = find(tags::WBID);
    let water = match wbid {
        None => {
            for (t, name) in [(tags::WBTB, "WBID"), (tags::WSRF, "WBID")] {
                if let Some(s) = find(t) {
                    return Err(s.err(ErrorKind::RequiresSection { needs: name }));
                }
            }
            None
        }
        Some(s) => {
            s.exact(2 * cells as u64)?;
            let bodies = find(tags::WBTB).map(parse_bodies).transpose()?;
            let wsrf = find(tags::WSRF);
            if let Some(w) = wsrf {
                w.exact(2 * cells as u64)?;
            }
            let body_ids = grids.body_ids.take().unwrap_or_else(|| read_u16s(s.payload));
            let surface = wsrf.map(|w| grids.surface.take().unwrap_or_else(|| read_u16s(w.payload)));
            Some(Water { body_ids, bodies, surface })
        }
    };

    let curve = match find(tags::TCRV) {
        Some(s) => {
            s.at_least(2)?;
            Some(CurveMeta { version: LE::read_u16(s.payload), body: s.payload[2..].to_vec() })
        }
        None => None,
    };
    let detail = match find(tags::TDTL) {
        Some(s) => parse_detail(s, &mut warnings)?,
        None => None,
    };
    let erosion = match find(tags::EROS) {
        Some(s) => parse_erosion(s, &mut warnings)?,
        None => None,
    };

    let rivers = match find(tags::RIVR) {
        Some(s) => parse_rivers(s, map_size, &params, &mut warnings)?,
        None => None,
    };

    let roads = match find(tags::ROAD) {
        Some(s) => parse_roads(s, map_size, towns.as_ref().map_or(0, Vec::len), &mut warnings)?,
        None => None,
    };

    Ok(Blueprint {
        map_size,
        seed,
        params,
        heights_raw,
        biomes,
        towns,
        water,
        curve,
        detail,
        erosion,
        rivers,
        roads,
        warnings,
    })
}

/// Decode a little-endian grid into a new buffer with one copy (no zero-filling first).
fn decode_grid<T: Copy>(p: &[u8], from_le: impl Fn(&[u8]) -> T) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let n = p.len() / size;
    if cfg!(target_endian = "little") {
        let mut v: Vec<T> = Vec::with_capacity(n);
        // SAFETY: T is f32 or u16 here (every bit pattern valid, no padding); the capacity is n,
        // exactly n × size bytes are copied, and the bytes are already in T's (little-endian)
        // byte order on this host.
        unsafe {
            std::ptr::copy_nonoverlapping(p.as_ptr(), v.as_mut_ptr() as *mut u8, n * size);
            v.set_len(n);
        }
        v
    } else {
        p.chunks_exact(size).map(from_le).collect()
    }
}

fn read_u16s(p: &[u8]) -> Vec<u16> {
    decode_grid(p, LE::read_u16)
}

fn parse_params(s: &Section<'_>, warnings: &mut Vec<Warning>) -> Result<Params, BlueprintError> {
    s.at_least(2)?;
    let version = LE::read_u16(s.payload);
    if version != PRMS_VERSION {
        return Err(s.err(ErrorKind::UnsupportedPrmsVersion { found: version }));
    }
    s.at_least(PRMS_LEN)?;
    if s.payload.len() > PRMS_LEN {
        warnings.push(Warning {
            section: "PRMS".into(),
            offset: s.offset + PRMS_LEN as u64,
            message: format!("{} bytes of a later extension skipped", s.payload.len() - PRMS_LEN),
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

fn parse_heights(s: &Section<'_>, n: u32, read_ahead: Option<Vec<f32>>) -> Result<Vec<f32>, BlueprintError> {
    let cells = n as u64 * n as u64;
    s.exact(4 * cells)?;
    let h = read_ahead.unwrap_or_else(|| decode_grid(s.payload, LE::read_f32));
    // A branch-free fold per block vectorises (a plain all() stops at every element to test);
    // the position is looked for only when something is wrong.
    let all_finite = h.chunks(4096).all(|c| c.iter().fold(true, |ok, v| ok & v.is_finite()));
    if !all_finite && let Some(i) = h.iter().position(|v| !v.is_finite()) {
        let (x, y) = ((i / n as usize) as u32, (i % n as usize) as u32);
        return Err(s.err_at(ErrorKind::NonFiniteHeight { x, y, value: h[i] }, 4 * i));
    }
    Ok(h)
}

fn parse_biomes(s: &Section<'_>, n: u32, read_ahead: Option<Vec<u8>>) -> Result<Vec<u8>, BlueprintError> {
    s.exact(n as u64 * n as u64)?;
    let b = read_ahead.unwrap_or_else(|| s.payload.to_vec());
    let largest = b.chunks(4096).map(|c| c.iter().fold(0u8, |m, &v| m.max(v))).max().unwrap_or(0);
    if largest >= Biome::COUNT
        && let Some(i) = b.iter().position(|&v| v >= Biome::COUNT)
    {
        let (x, y) = ((i / n as usize) as u32, (i % n as usize) as u32);
        return Err(s.err_at(ErrorKind::BiomeOutOfRange { x, y, ordinal: b[i] }, i));
    }
    Ok(b)
}

fn parse_towns(s: &Section<'_>) -> Result<Vec<Town>, BlueprintError> {
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

fn parse_bodies(s: &Section<'_>) -> Result<Vec<WaterBody>, BlueprintError> {
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
fn versioned<'a>(
    s: &Section<'a>,
    known: u16,
    len: usize,
    warnings: &mut Vec<Warning>,
) -> Result<Option<&'a [u8]>, BlueprintError> {
    s.at_least(2)?;
    let version = LE::read_u16(s.payload);
    let name = super::error::tag_name(s.tag);
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

fn parse_detail(s: &Section<'_>, warnings: &mut Vec<Warning>) -> Result<Option<DetailMeta>, BlueprintError> {
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

fn parse_erosion(s: &Section<'_>, warnings: &mut Vec<Warning>) -> Result<Option<ErosionMeta>, BlueprintError> {
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

/// `RIVR` v1: the dials, then a counted list of rivers, each with a counted list of points. Every
/// count is checked against the bytes left before anything is allocated for it.
fn parse_rivers(
    s: &Section<'_>,
    map_size: u32,
    params: &Params,
    warnings: &mut Vec<Warning>,
) -> Result<Option<RiverNetwork>, BlueprintError> {
    let Some(b) = versioned(s, RIVR_VERSION, 2 + RIVR_DIALS_LEN + 4, warnings)? else {
        return Ok(None);
    };
    let f = |i: usize| LE::read_f32(&b[6 + 4 * i..]);
    let dials = RiverDialsMeta {
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
    };
    // Offsets below are within the payload (which starts with the 2-byte version).
    let p = s.payload;
    let mut at = 2 + RIVR_DIALS_LEN;
    let count = LE::read_i32(&p[at..]);
    if count < 0 {
        return Err(s.err_at(ErrorKind::NegativeCount { count }, at));
    }
    at += 4;
    let short = |needed: usize| s.err(ErrorKind::PayloadTooShort { needed: needed as u64, found: s.length });
    let finite = |what: &'static str, index: usize, v: f32, off: usize| {
        if v.is_finite() { Ok(v) } else { Err(s.err_at(ErrorKind::NonFiniteValue { what, index, value: v }, off)) }
    };
    // Points lie on the map (pixel index coordinates) and widths within its extent: a river is
    // drawn by walking its points, so a far-away point must not be able to stall a reader's map.
    let side = map_size as f32;
    let extent_m = side * params.metres_per_pixel;
    let within = |what: &'static str, index: usize, v: f32, hi: f32, off: usize| {
        let v = finite(what, index, v, off)?;
        if (0.0..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(s.err_at(ErrorKind::RiverValueOutOfRange { what, index, value: v, max: hi }, off))
        }
    };
    // A river needs at least its fixed record, so the count cannot promise more than the bytes.
    if (count as u64) * RIVER_RECORD_LEN as u64 > (p.len() - at) as u64 {
        return Err(short(at + count as usize * RIVER_RECORD_LEN));
    }
    let mut rivers = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        if p.len() < at + RIVER_RECORD_LEN {
            return Err(short(at + RIVER_RECORD_LEN));
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
            v[k] = within(names[k], i, g(k), side, at + 5 + 4 * k)?;
        }
        v[4] = finite("river length", i, g(4), at + 21)?;
        let points = LE::read_i32(&r[25..]);
        if points < 0 {
            return Err(s.err_at(ErrorKind::NegativeCount { count: points }, at + 25));
        }
        at += RIVER_RECORD_LEN;
        let need = points as usize * RIVER_POINT_LEN;
        if p.len() - at < need {
            return Err(short(at + need));
        }
        let mut course = Vec::with_capacity(points as usize);
        for _ in 0..points {
            let q = |k: usize| LE::read_f32(&p[at + 4 * k..]);
            let pt = RiverPoint {
                x: within("river point x", i, q(0), side, at)?,
                y: within("river point y", i, q(1), side, at + 4)?,
                width_m: within("river width", i, q(2), extent_m, at + 8)?,
                discharge_m3s: finite("river discharge", i, q(3), at + 12)?,
            };
            course.push(pt);
            at += RIVER_POINT_LEN;
        }
        rivers.push(River {
            body_id: LE::read_u16(&r[0..]),
            order,
            mouth_body_id: LE::read_u16(&r[3..]),
            source: [v[0], v[1]],
            mouth: [v[2], v[3]],
            length_m: v[4],
            course,
        });
    }
    if at != p.len() {
        return Err(s.err(ErrorKind::InconsistentCount { count, payload: s.length }));
    }
    Ok(Some(RiverNetwork { dials, rivers }))
}

/// `ROAD` v1: a counted list of roads, each a fixed record then its points and bridge spans.
/// Every count is checked against the bytes left before anything is allocated for it.
fn parse_roads(
    s: &Section<'_>,
    map_size: u32,
    town_count: usize,
    warnings: &mut Vec<Warning>,
) -> Result<Option<RoadNetwork>, BlueprintError> {
    let Some(_) = versioned(s, ROAD_VERSION, 2 + 4, warnings)? else {
        return Ok(None);
    };
    let p = s.payload;
    let mut at = 2;
    let count = LE::read_i32(&p[at..]);
    if count < 0 {
        return Err(s.err_at(ErrorKind::NegativeCount { count }, at));
    }
    at += 4;
    let short = |needed: u64| s.err(ErrorKind::PayloadTooShort { needed, found: s.length });
    if count as u64 * ROAD_RECORD_LEN as u64 > (p.len() - at) as u64 {
        return Err(short(at as u64 + count as u64 * ROAD_RECORD_LEN as u64));
    }
    let side = map_size as f32;
    let mut roads = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
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
        return Err(s.err(ErrorKind::InconsistentCount { count, payload: s.length }));
    }
    Ok(Some(RoadNetwork { roads }))
}

/// Where a section sits in a file, for `isla info`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SectionInfo {
    pub tag: String,
    /// Offset of the section header.
    pub offset: u64,
    pub payload_bytes: u64,
}

/// The header fields and the section table of a file, after the framing checks only.
pub fn list_sections(bytes: &[u8]) -> Result<Vec<SectionInfo>, BlueprintError> {
    let (_, _, sections) = frame_slice(bytes)?;
    Ok(sections
        .iter()
        .map(|s| SectionInfo {
            tag: super::error::tag_name(s.tag),
            offset: s.offset - SECTION_HEADER_LEN as u64,
            payload_bytes: s.length,
        })
        .collect())
}
