//! The validating reader. [`read_bytes`] works on a file held in memory; [`read_file`] reads a
//! large file with positioned reads, never holding it whole. Either way the framing keeps only the
//! known sections (unknown ones are counted and skipped), and every other allocation is for a
//! section whose length has already been checked against both the map size and the bytes
//! actually present, so no length field can make it allocate more than the file holds.
//!
//! - `frame`: the header and the section table (every framing error), and the `Section` view;
//! - `direct`: positioned reads of a large file straight into the grid buffers;
//! - `grids`: the four grids, decoded and checked cell by cell;
//! - `sections`: the small sections (`PRMS`, `TOWN`, `WBTB`, the versioned metadata);
//! - `networks`: `RIVR` and `ROAD`, counted lists of counted lists, and `DIAL`'s counted list.

#[cfg(all(unix, target_endian = "little"))]
mod direct;
mod frame;
mod grids;
mod networks;
mod sections;

use super::error::{BlueprintError, ErrorKind};
use super::model::*;
use byteorder::{ByteOrder, LittleEndian as LE};
use frame::{Framing, Section, frame, frame_slice, slice_reader};
use grids::{ReadAhead, parse_biomes, parse_heights, parse_water};
use networks::{parse_dials, parse_rivers, parse_roads};
use sections::{parse_curve, parse_detail, parse_erosion, parse_params, parse_towns};
use std::path::Path;

/// Files at least this large are read section by section by [`read_file`].
pub const DIRECT_READ_MIN_BYTES: u64 = 4 << 20;

/// Read and validate a blueprint file. I/O problems come back as a header-level error that names
/// the path.
///
/// Large files are not read into one buffer: the framing walks the section headers with
/// positioned reads, the four grids (`HGTS`, `BIOM`, `WBID`, `WSRF`) and the `TCRV` body are read
/// straight into their final buffers when their lengths are right, the other known sections into
/// their own buffers (`PRMS`, `TDTL` and `EROS` only as far as the reader uses them), and unknown
/// sections are skipped unread. It holds about the file's size at most, plus what the record
/// tables' decoded form needs beyond their bytes (docs/RELIABILITY.md). The framing and the validation are the same
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

/// Parse and validate a blueprint held in memory.
pub fn read_bytes(bytes: &[u8]) -> Result<Blueprint, BlueprintError> {
    let (framing, sections) = frame_slice(bytes)?;
    parse(framing, sections, ReadAhead::default())
}

/// The section tagged `tag`, if the file has one (framing refused duplicates).
fn find_section<'s, 'a>(sections: &'s [Section<'a>], tag: u32) -> Option<&'s Section<'a>> {
    sections.iter().find(|s| LE::read_u32(&s.tag) == tag)
}

/// The one validation path, after framing: each section parsed in a fixed order, so the first
/// problem in that order is the one reported.
fn parse(framing: Framing, sections: Vec<Section<'_>>, mut grids: ReadAhead) -> Result<Blueprint, BlueprintError> {
    let Framing { map_size, seed, len: file_len, mut warnings, .. } = framing;
    let find = |t: u32| find_section(&sections, t);
    let missing = |name: &[u8; 4]| BlueprintError::new(ErrorKind::MissingSection, Some(*name), file_len);

    let params = parse_params(find(tags::PRMS).ok_or_else(|| missing(b"PRMS"))?, &mut warnings)?;
    let heights_raw = parse_heights(find(tags::HGTS).ok_or_else(|| missing(b"HGTS"))?, map_size, grids.heights.take())?;
    let biomes = parse_biomes(find(tags::BIOM).ok_or_else(|| missing(b"BIOM"))?, map_size, grids.biomes.take())?;
    let towns = find(tags::TOWN).map(parse_towns).transpose()?;
    let water = parse_water(&sections, map_size, &mut grids)?;
    let curve = find(tags::TCRV).map(|s| parse_curve(s, grids.curve.take())).transpose()?;
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

    let dials = match find(tags::DIAL) {
        Some(s) => parse_dials(s, &mut warnings)?,
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
        dials,
        warnings,
    })
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
    let mut heads = Vec::new();
    frame(bytes.len() as u64, &mut slice_reader(bytes), Some(&mut heads))?;
    Ok(infos(&heads))
}

/// What `list_sections` reports of the framed sections.
fn infos(heads: &[frame::Head]) -> Vec<SectionInfo> {
    heads
        .iter()
        .map(|s| SectionInfo {
            tag: super::error::tag_name(s.tag),
            offset: s.offset - SECTION_HEADER_LEN as u64,
            payload_bytes: s.length,
        })
        .collect()
}

/// [`list_sections`] of a file, walking its section headers with positioned reads (the payloads
/// are not read), so a large file costs a few small reads.
pub fn list_file_sections(path: &Path) -> Result<Vec<SectionInfo>, BlueprintError> {
    let io =
        |e: std::io::Error| BlueprintError::new(ErrorKind::Io(format!("cannot read {}: {e}", path.display())), None, 0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let file = std::fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let mut heads = Vec::new();
        frame(len, &mut |at, buf| file.read_exact_at(buf, at).map_err(io), Some(&mut heads))?;
        Ok(infos(&heads))
    }
    #[cfg(not(unix))]
    list_sections(&std::fs::read(path).map_err(io)?)
}
