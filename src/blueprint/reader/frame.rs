//! Framing: the file's header and its section table, split without interpreting payloads, and
//! the `Section` view every section parser works on.

use crate::blueprint::error::{BlueprintError, ErrorKind};
use crate::blueprint::model::*;
use byteorder::{ByteOrder, LittleEndian as LE};

/// A section's four-byte tag, as it stands in the file.
pub(super) type Tag = [u8; 4];

/// Every section this reader understands; anything else is skipped with a warning.
pub(super) const KNOWN_TAGS: [u32; 12] = [
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

/// Walk the header and the section headers of a file of `len` bytes, reading through `read_at`
/// (a slice or a file), without touching payloads. Every framing error is decided here, so the
/// in-memory and the file paths report exactly the same errors.
pub(super) fn frame(len: u64, read_at: &mut ReadAt<'_>) -> Result<(u32, i32, Vec<Head>), BlueprintError> {
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

/// Frame a file held in memory: the header fields and every section with its payload bytes.
pub(super) fn frame_slice(bytes: &[u8]) -> Result<(u32, i32, Vec<Section<'_>>), BlueprintError> {
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
