//! Framing: the file's header and its section table, split without interpreting payloads, and
//! the `Section` view every section parser works on.

use crate::blueprint::error::{BlueprintError, ErrorKind, tag_name};
use crate::blueprint::model::*;
use byteorder::{ByteOrder, LittleEndian as LE};

/// A section's four-byte tag, as it stands in the file.
pub(super) type Tag = [u8; 4];

/// Every section this reader understands; anything else is skipped with a warning.
pub(super) const KNOWN_TAGS: [u32; 13] = [
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
    tags::DIAL,
];

/// One framed section as the parsers see it.
pub(super) struct Section<'a> {
    pub(super) tag: Tag,
    /// Offset of the payload's first byte in the file.
    pub(super) offset: u64,
    /// Payload length as framed. The payload bytes may be absent (empty) where a file read
    /// decoded the grid straight into its buffer or skipped an unknown section unread.
    pub(super) length: u64,
    pub(super) payload: &'a [u8],
}

impl Section<'_> {
    pub(super) fn err(&self, kind: ErrorKind) -> BlueprintError {
        BlueprintError::new(kind, Some(self.tag), self.offset)
    }
    pub(super) fn err_at(&self, kind: ErrorKind, at: usize) -> BlueprintError {
        BlueprintError::new(kind, Some(self.tag), self.offset + at as u64)
    }
    pub(super) fn exact(&self, expected: u64) -> Result<(), BlueprintError> {
        if self.length != expected {
            return Err(self.err(ErrorKind::WrongLength { expected, found: self.length }));
        }
        Ok(())
    }
    pub(super) fn at_least(&self, needed: usize) -> Result<(), BlueprintError> {
        if self.length < needed as u64 {
            return Err(self.err(ErrorKind::PayloadTooShort { needed: needed as u64, found: self.length }));
        }
        Ok(())
    }
    /// A table of variable-length records at payload offset `at`: `i32 count`, then `count`
    /// records of at least `min_record` bytes each. The count is checked against the bytes left
    /// before anything is allocated. The count, and the offset just after it.
    pub(super) fn count_at(&self, at: usize, min_record: usize) -> Result<(usize, usize), BlueprintError> {
        let count = LE::read_i32(&self.payload[at..]);
        if count < 0 {
            return Err(self.err_at(ErrorKind::NegativeCount { count }, at));
        }
        let at = at + 4;
        let needed = at as u64 + count as u64 * min_record as u64;
        if needed > self.payload.len() as u64 {
            return Err(self.err(ErrorKind::PayloadTooShort { needed, found: self.length }));
        }
        Ok((count as usize, at))
    }
    /// A record table: `i32 count` then `count` records of `record_len` bytes, nothing more.
    pub(super) fn counted(&self, record_len: usize) -> Result<usize, BlueprintError> {
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

/// A framed section: where its payload is and how long it is.
#[derive(Debug, Clone, Copy)]
pub(super) struct Head {
    pub(super) tag: Tag,
    pub(super) offset: u64,
    pub(super) length: u64,
}

/// Reads `buf.len()` bytes at a byte offset: from a slice or from a file.
pub(super) type ReadAt<'a> = dyn FnMut(u64, &mut [u8]) -> Result<(), BlueprintError> + 'a;

/// Unknown sections are each reported up to this many, then summed up in one warning, so a file
/// of many tiny unknown sections cannot make the warning list outgrow the file.
const MAX_UNKNOWN_WARNINGS: usize = 64;

/// A file's framing: the header fields, the known sections (at most one of each of the 13 tags)
/// and the warnings for the unknown ones, which are skipped. Nothing kept here grows with the
/// number of sections: a file of many tiny unknown sections costs only the duplicate check's
/// transient list of their tags (4 bytes for each 12-byte header, freed before any payload is
/// read).
pub(super) struct Framing {
    pub(super) map_size: u32,
    pub(super) seed: i32,
    /// The file's length (where a missing section is reported).
    pub(super) len: u64,
    pub(super) known: Vec<Head>,
    pub(super) warnings: Vec<Warning>,
}

fn is_known(tag: Tag) -> bool {
    KNOWN_TAGS.contains(&LE::read_u32(&tag))
}

/// Walk the section headers from the first, handing each well-framed one to `visit`, up to byte
/// `until` or the first framing error (a short header, a length past the end, or an error from
/// `visit` or `read_at`). Returns the header offset it stopped at and that error.
fn walk(
    len: u64,
    until: u64,
    read_at: &mut ReadAt<'_>,
    visit: &mut dyn FnMut(Head) -> Result<(), BlueprintError>,
) -> (u64, Option<BlueprintError>) {
    let mut pos = HEADER_LEN as u64;
    while pos < until {
        let remaining = len - pos;
        if remaining < SECTION_HEADER_LEN as u64 {
            let e = BlueprintError::new(ErrorKind::TruncatedSectionHeader { remaining: remaining as usize }, None, pos);
            return (pos, Some(e));
        }
        let mut h = [0u8; SECTION_HEADER_LEN];
        if let Err(e) = read_at(pos, &mut h) {
            return (pos, Some(e));
        }
        let tag: Tag = h[0..4].try_into().expect("4 bytes");
        let length = LE::read_u64(&h[4..12]);
        let payload_start = pos + SECTION_HEADER_LEN as u64;
        let left = len - payload_start;
        if length > left {
            let e = BlueprintError::new(ErrorKind::SectionPastEnd { length, remaining: left }, Some(tag), pos + 4);
            return (pos, Some(e));
        }
        if let Err(e) = visit(Head { tag, offset: payload_start, length }) {
            return (pos, Some(e));
        }
        pos = payload_start + length;
    }
    (pos, None)
}

fn duplicate(h: Head) -> BlueprintError {
    BlueprintError::new(ErrorKind::DuplicateSection, Some(h.tag), h.offset - SECTION_HEADER_LEN as u64)
}

/// Walk the header and the section headers of a file of `len` bytes, reading through `read_at`
/// (a slice or a file), without touching payloads; `listing`, when given, receives every section
/// in file order. Every framing error is decided here, so the in-memory and the file paths report
/// exactly the same errors: the first in file order, as one walk that stopped at the first
/// problem would find it.
pub(super) fn frame(
    len: u64,
    read_at: &mut ReadAt<'_>,
    mut listing: Option<&mut Vec<Head>>,
) -> Result<Framing, BlueprintError> {
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

    // The walk keeps the known sections (a second one of a known tag stops it) and counts the
    // unknown ones; a repeated unknown tag is looked for afterwards, among the sections before
    // where the walk stopped.
    let mut known: Vec<Head> = Vec::new();
    let mut warnings = Vec::new();
    let mut unknown = 0usize;
    let (stop, error) = walk(len, len, read_at, &mut |h| {
        if let Some(list) = listing.as_deref_mut() {
            list.push(h);
        }
        if !is_known(h.tag) {
            unknown += 1;
            if unknown <= MAX_UNKNOWN_WARNINGS {
                warnings.push(Warning {
                    section: tag_name(h.tag),
                    offset: h.offset - SECTION_HEADER_LEN as u64,
                    message: format!("unknown section skipped ({} bytes)", h.length),
                });
            }
        } else if known.iter().any(|k| k.tag == h.tag) {
            return Err(duplicate(h));
        } else {
            known.push(h);
        }
        Ok(())
    });
    if let Some(e) = first_unknown_duplicate(len, stop, read_at, unknown)? {
        return Err(e);
    }
    if let Some(e) = error {
        return Err(e);
    }
    if unknown > MAX_UNKNOWN_WARNINGS {
        warnings.push(Warning {
            section: "*".into(),
            offset: 0,
            message: format!("{} more unknown sections skipped", unknown - MAX_UNKNOWN_WARNINGS),
        });
    }
    Ok(Framing { map_size, seed, len, known, warnings })
}

/// The first unknown section, before byte `until`, whose tag an earlier one already had: the
/// `unknown` tags are listed (4 bytes each), sorted, and only when some tag repeats are the
/// sections walked again to find which repeat comes first.
fn first_unknown_duplicate(
    len: u64,
    until: u64,
    read_at: &mut ReadAt<'_>,
    unknown: usize,
) -> Result<Option<BlueprintError>, BlueprintError> {
    if unknown < 2 {
        return Ok(None);
    }
    let mut tags: Vec<u32> = Vec::with_capacity(unknown);
    let (_, e) = walk(len, until, read_at, &mut |h| {
        if !is_known(h.tag) && tags.len() < unknown {
            tags.push(LE::read_u32(&h.tag));
        }
        Ok(())
    });
    if let Some(e) = e {
        return Err(e);
    }
    tags.sort_unstable();
    // The tags that repeat, each once, moved to the front.
    let mut repeated = 0;
    let mut i = 0;
    while i < tags.len() {
        let mut j = i + 1;
        while j < tags.len() && tags[j] == tags[i] {
            j += 1;
        }
        if j - i > 1 {
            tags[repeated] = tags[i];
            repeated += 1;
        }
        i = j;
    }
    if repeated == 0 {
        return Ok(None);
    }
    let twice = &tags[..repeated];
    let mut seen = vec![false; repeated];
    let (_, found) = walk(len, until, read_at, &mut |h| {
        if let Ok(k) = twice.binary_search(&LE::read_u32(&h.tag))
            && !is_known(h.tag)
        {
            if seen[k] {
                return Err(duplicate(h));
            }
            seen[k] = true;
        }
        Ok(())
    });
    Ok(found)
}

/// Frame a file held in memory: the framing and every known section with its payload bytes.
pub(super) fn frame_slice(bytes: &[u8]) -> Result<(Framing, Vec<Section<'_>>), BlueprintError> {
    let framing = frame(bytes.len() as u64, &mut slice_reader(bytes), None)?;
    let sections = framing
        .known
        .iter()
        .map(|h| Section {
            tag: h.tag,
            offset: h.offset,
            length: h.length,
            payload: &bytes[h.offset as usize..(h.offset + h.length) as usize],
        })
        .collect();
    Ok((framing, sections))
}

/// Reads from a slice (the framing has checked every range it asks for against the length).
pub(super) fn slice_reader(bytes: &[u8]) -> impl FnMut(u64, &mut [u8]) -> Result<(), BlueprintError> + '_ {
    |at, buf| {
        buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
        Ok(())
    }
}
