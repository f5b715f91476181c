//! Typed reader/writer errors: each names the section (when there is one), the byte offset where
//! the problem was found and what the problem is, so a modder can fix the file that produced it.

use std::fmt;

/// What went wrong, independent of where.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorKind {
    Empty,
    TruncatedHeader {
        len: usize,
    },
    UnsupportedVersion {
        found: u8,
    },
    MapSizeOutOfRange {
        size: u32,
    },
    TruncatedSectionHeader {
        remaining: usize,
    },
    SectionPastEnd {
        length: u64,
        remaining: u64,
    },
    DuplicateSection,
    MissingSection,
    WrongLength {
        expected: u64,
        found: u64,
    },
    PayloadTooShort {
        needed: u64,
        found: u64,
    },
    NonFiniteHeight {
        x: u32,
        y: u32,
        value: f32,
    },
    BiomeOutOfRange {
        x: u32,
        y: u32,
        ordinal: u8,
    },
    TownTierOutOfRange {
        index: usize,
        tier: u8,
    },
    RiverOrderOutOfRange {
        index: usize,
        order: u8,
    },
    RiverValueOutOfRange {
        what: &'static str,
        index: usize,
        value: f32,
        max: f32,
    },
    RoadTierOutOfRange {
        index: usize,
        tier: u8,
    },
    RoadPointOffMap {
        index: usize,
        point: usize,
        x: f32,
        y: f32,
    },
    RoadTownOutOfRange {
        index: usize,
        town: u16,
        towns: usize,
    },
    BridgeOutOfRange {
        index: usize,
        first: i32,
        last: i32,
        points: i32,
    },
    WaterTypeOutOfRange {
        index: usize,
        value: u8,
    },
    SalinityOutOfRange {
        index: usize,
        value: u8,
    },
    NegativeCount {
        count: i32,
    },
    NonFiniteValue {
        what: &'static str,
        index: usize,
        value: f32,
    },
    DuplicateBodyId {
        index: usize,
        id: u16,
    },
    InconsistentCount {
        count: i32,
        payload: u64,
    },
    RequiresSection {
        needs: &'static str,
    },
    UnsupportedPrmsVersion {
        found: u16,
    },
    InvalidParameter {
        name: &'static str,
        value: f32,
    },
    /// A `DIAL` entry the reader refuses: which one and why.
    InvalidDial {
        index: usize,
        problem: String,
    },
    ModelMismatch {
        what: String,
    },
    Io(String),
}

/// A blueprint error: the problem, the section it was found in and the byte offset.
#[derive(Debug, Clone, PartialEq)]
pub struct BlueprintError {
    pub kind: ErrorKind,
    /// Four-character section tag, `None` for the header and whole-file problems.
    pub section: Option<[u8; 4]>,
    /// Byte offset in the file where the problem was found.
    pub offset: u64,
}

impl BlueprintError {
    pub fn new(kind: ErrorKind, section: Option<[u8; 4]>, offset: u64) -> Self {
        Self { kind, section, offset }
    }
    pub fn section_name(&self) -> String {
        match self.section {
            Some(t) => tag_name(t),
            None => "header".to_string(),
        }
    }
}

/// Printable form of a tag: ASCII letters as they are, anything else as `\xNN`.
pub fn tag_name(tag: [u8; 4]) -> String {
    tag.iter().map(|&b| if b.is_ascii_graphic() { (b as char).to_string() } else { format!("\\x{b:02x}") }).collect()
}

impl fmt::Display for BlueprintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        write!(f, "{} at byte {}: ", self.section_name(), self.offset)?;
        match &self.kind {
            Empty => write!(f, "the file is empty"),
            TruncatedHeader { len } => {
                write!(f, "header cut short: 9 bytes needed, the file has {len}")
            }
            UnsupportedVersion { found: 1 } => {
                write!(f, "format version 1 is the legacy layout, which Isla does not read (re-export as version 2)")
            }
            UnsupportedVersion { found } => write!(f, "unsupported format version {found} (Isla reads version 2)"),
            MapSizeOutOfRange { size } => write!(f, "map size {size} is outside 32..=16384"),
            TruncatedSectionHeader { remaining } => {
                write!(f, "section header cut short: 12 bytes needed, {remaining} left in the file")
            }
            SectionPastEnd { length, remaining } => {
                write!(f, "section length {length} runs past the end of the file ({remaining} bytes left)")
            }
            DuplicateSection => write!(f, "section appears twice"),
            MissingSection => write!(f, "mandatory section is missing"),
            WrongLength { expected, found } => {
                write!(f, "payload is {found} bytes, expected exactly {expected}")
            }
            PayloadTooShort { needed, found } => {
                write!(f, "payload is {found} bytes, at least {needed} needed")
            }
            NonFiniteHeight { x, y, value } => {
                write!(f, "height at pixel ({x}, {y}) is {value}, heights must be finite")
            }
            BiomeOutOfRange { x, y, ordinal } => write!(
                f,
                "biome ordinal {ordinal} at pixel ({x}, {y}) is not a known biome (0..{})",
                super::Biome::COUNT
            ),
            TownTierOutOfRange { index, tier } => {
                write!(f, "town {index} has tier {tier}, known tiers are 0..=3")
            }
            RiverValueOutOfRange { what, index, value, max } => {
                write!(f, "river {index}: {what} is {value}, it must lie in 0..={max}")
            }
            RoadTierOutOfRange { index, tier } => {
                write!(f, "road {index} has tier {tier}, known tiers are 0 (highway) and 1 (road)")
            }
            RoadTownOutOfRange { index, town, towns } => {
                write!(f, "road {index} joins town {town}, but TOWN lists {towns} towns (0xFFFF is none)")
            }
            RoadPointOffMap { index, point, x, y } => {
                write!(f, "road {index}: point {point} at ({x}, {y}) is not on the map")
            }
            BridgeOutOfRange { index, first, last, points } => {
                write!(f, "road {index}: bridge span [{first}, {last}] is not a range of its {points} points")
            }
            RiverOrderOutOfRange { index, order } => {
                write!(f, "river {index} has order {order}, known orders are 1 (main) and 2 (tributary)")
            }
            WaterTypeOutOfRange { index, value } => {
                write!(f, "water body {index} has type {value}, known types are 0 (ocean) and 1 (lake)")
            }
            SalinityOutOfRange { index, value } => {
                write!(f, "water body {index} has salinity {value}, known values are 0 (fresh) and 1 (salt)")
            }
            NegativeCount { count } => write!(f, "record count {count} is negative"),
            NonFiniteValue { what, index, value } => write!(f, "record {index}: {what} is {value}, it must be finite"),
            DuplicateBodyId { index, id } => write!(f, "record {index}: water-body id {id} appears twice"),
            InconsistentCount { count, payload } => {
                write!(f, "record count {count} does not match the payload length {payload}")
            }
            RequiresSection { needs } => write!(f, "section is only valid together with {needs}"),
            UnsupportedPrmsVersion { found } => {
                write!(f, "PRMS version {found} is not known (Isla reads version 1 and its extensions)")
            }
            InvalidParameter { name, value } => {
                write!(f, "parameter {name} = {value} is not valid")
            }
            InvalidDial { index, problem } => write!(f, "dial {index}: {problem}"),
            ModelMismatch { what } => write!(f, "{what}"),
            Io(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for BlueprintError {}
