//! Cell codes and the 20 cliff orientations (SPEC §6). A cell's four edge crossings pack into one
//! byte, `L<<6 | R<<4 | T<<2 | B` (−1 encoded as 3); the orientation table is *derived* from the
//! enter/leave rule rather than transcribed, so the reference's four check codes test it.
//!
//! Convention (fixed by 0xF0 → west-to-east etc.): walking along a cliff, high ground is on the
//! left. Per edge: L −1 enters from the west, L +1 leaves to the west; R +1 enters from the east,
//! R −1 leaves to the east; T +1 enters from the north, T −1 leaves to the north; B −1 enters
//! from the south, B +1 leaves to the south.

/// A side of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    West,
    East,
    North,
    South,
}

/// The 20 orientations, in the reference game's enum order (its cliff notes: codes 0xC0, 0xC1,
/// 0xCC, 0xF0 store orientations 12, 8, 4, 0), so `as u8` is its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[repr(u8)]
pub enum Orientation {
    WestToEast = 0,
    NorthToSouth = 1,
    EastToWest = 2,
    SouthToNorth = 3,
    WestToNorth = 4,
    NorthToEast = 5,
    EastToSouth = 6,
    SouthToWest = 7,
    WestToSouth = 8,
    NorthToWest = 9,
    EastToNorth = 10,
    SouthToEast = 11,
    WestToNone = 12,
    NoneToEast = 13,
    EastToNone = 14,
    NoneToWest = 15,
    NorthToNone = 16,
    NoneToSouth = 17,
    SouthToNone = 18,
    NoneToNorth = 19,
}

impl Orientation {
    pub const COUNT: usize = 20;
    pub const ALL: [Orientation; 20] = {
        use Orientation::*;
        [
            WestToEast,
            NorthToSouth,
            EastToWest,
            SouthToNorth,
            WestToNorth,
            NorthToEast,
            EastToSouth,
            SouthToWest,
            WestToSouth,
            NorthToWest,
            EastToNorth,
            SouthToEast,
            WestToNone,
            NoneToEast,
            EastToNone,
            NoneToWest,
            NorthToNone,
            NoneToSouth,
            SouthToNone,
            NoneToNorth,
        ]
    };
    /// The orientation entering at `from` and leaving at `to` (either may be absent, not both).
    pub const fn from_sides(from: Option<Side>, to: Option<Side>) -> Option<Orientation> {
        orientation_const(from, to)
    }
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 20] = [
            "west-to-east",
            "north-to-south",
            "east-to-west",
            "south-to-north",
            "west-to-north",
            "north-to-east",
            "east-to-south",
            "south-to-west",
            "west-to-south",
            "north-to-west",
            "east-to-north",
            "south-to-east",
            "west-to-none",
            "none-to-east",
            "east-to-none",
            "none-to-west",
            "north-to-none",
            "none-to-south",
            "south-to-none",
            "none-to-north",
        ];
        NAMES[self as usize]
    }
}

/// Two bits of one edge: 0 none, 1 for +1, 3 for −1.
#[inline]
pub fn encode_crossing(c: i8) -> u8 {
    (c as u8) & 3
}

/// The inverse of [`encode_crossing`]; the unused value 2 decodes to `None`.
#[inline]
pub fn decode_crossing(bits: u8) -> Option<i8> {
    match bits & 3 {
        0 => Some(0),
        1 => Some(1),
        3 => Some(-1),
        _ => None,
    }
}

/// `code = L<<6 | R<<4 | T<<2 | B`.
#[inline]
pub fn pack_code(l: i8, r: i8, t: i8, b: i8) -> u8 {
    encode_crossing(l) << 6 | encode_crossing(r) << 4 | encode_crossing(t) << 2 | encode_crossing(b)
}

/// What a code says about a cell: no crossing, a cliff, or an impossible crossing pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    Empty,
    Cliff(Orientation),
    Illegal,
}

/// Derive a code's meaning from the enter/leave rule (used once to build [`CODE_TABLE`]).
const fn classify(code: u8) -> CellKind {
    // Per edge, in L, R, T, B order: (side, which sign enters).
    const EDGES: [(Side, i8); 4] = [(Side::West, -1), (Side::East, 1), (Side::North, 1), (Side::South, -1)];
    let mut entry: Option<Side> = None;
    let mut exit: Option<Side> = None;
    let mut k = 0;
    while k < 4 {
        let bits = (code >> (6 - 2 * k)) & 3;
        let c: i8 = match bits {
            0 => 0,
            1 => 1,
            3 => -1,
            _ => return CellKind::Illegal,
        };
        if c != 0 {
            let (side, enters) = EDGES[k];
            if c == enters {
                if entry.is_some() {
                    return CellKind::Illegal;
                }
                entry = Some(side);
            } else {
                if exit.is_some() {
                    return CellKind::Illegal;
                }
                exit = Some(side);
            }
        }
        k += 1;
    }
    match (entry, exit) {
        (None, None) => CellKind::Empty,
        _ => match orientation_const(entry, exit) {
            Some(o) => CellKind::Cliff(o),
            None => CellKind::Illegal,
        },
    }
}

/// The side pair → orientation map behind [`Orientation::from_sides`].
const fn orientation_const(from: Option<Side>, to: Option<Side>) -> Option<Orientation> {
    use Orientation::*;
    use Side::*;
    match (from, to) {
        (Some(West), Some(East)) => Some(WestToEast),
        (Some(North), Some(South)) => Some(NorthToSouth),
        (Some(East), Some(West)) => Some(EastToWest),
        (Some(South), Some(North)) => Some(SouthToNorth),
        (Some(West), Some(North)) => Some(WestToNorth),
        (Some(North), Some(East)) => Some(NorthToEast),
        (Some(East), Some(South)) => Some(EastToSouth),
        (Some(South), Some(West)) => Some(SouthToWest),
        (Some(West), Some(South)) => Some(WestToSouth),
        (Some(North), Some(West)) => Some(NorthToWest),
        (Some(East), Some(North)) => Some(EastToNorth),
        (Some(South), Some(East)) => Some(SouthToEast),
        (Some(West), None) => Some(WestToNone),
        (None, Some(East)) => Some(NoneToEast),
        (Some(East), None) => Some(EastToNone),
        (None, Some(West)) => Some(NoneToWest),
        (Some(North), None) => Some(NorthToNone),
        (None, Some(South)) => Some(NoneToSouth),
        (Some(South), None) => Some(SouthToNone),
        (None, Some(North)) => Some(NoneToNorth),
        _ => None,
    }
}

/// All 256 codes, classified at compile time.
pub const CODE_TABLE: [CellKind; 256] = {
    let mut t = [CellKind::Empty; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = classify(c as u8);
        c += 1;
    }
    t
};

#[inline]
pub fn cell_kind(code: u8) -> CellKind {
    CODE_TABLE[code as usize]
}

/// The orientation a code places, or `None` (empty or illegal).
#[inline]
pub fn orientation_of(code: u8) -> Option<Orientation> {
    match CODE_TABLE[code as usize] {
        CellKind::Cliff(o) => Some(o),
        _ => None,
    }
}

/// Legal = empty or a placeable cliff; what the repair sweep drives every cell towards.
#[inline]
pub fn is_legal(code: u8) -> bool {
    !matches!(CODE_TABLE[code as usize], CellKind::Illegal)
}
