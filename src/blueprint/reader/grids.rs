//! The grids (`HGTS`, `BIOM`, `WBID`, `WSRF`): decoded with one copy, or taken as a file read
//! already decoded them, then checked cell by cell.

use super::frame::Section;
use super::sections::parse_bodies;
use crate::blueprint::error::{BlueprintError, ErrorKind};
use crate::blueprint::model::*;
use byteorder::{ByteOrder, LittleEndian as LE};

/// What a file read put straight into the model's own buffers: the grids (each only when its
/// length was right) and the `TCRV` payload (its body is the payload less the version).
#[derive(Default)]
pub(super) struct ReadAhead {
    pub(super) heights: Option<Vec<f32>>,
    pub(super) biomes: Option<Vec<u8>>,
    pub(super) body_ids: Option<Vec<u16>>,
    pub(super) surface: Option<Vec<u16>>,
    pub(super) curve: Option<Vec<u8>>,
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

/// Decode a `u16` grid (`WBID`, `WSRF`).
fn read_u16s(p: &[u8]) -> Vec<u16> {
    decode_grid(p, LE::read_u16)
}

/// `HGTS`: one `f32` per cell, every one finite.
pub(super) fn parse_heights(s: &Section<'_>, n: u32, read_ahead: Option<Vec<f32>>) -> Result<Vec<f32>, BlueprintError> {
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

/// `BIOM`: one byte per cell, every one a known biome.
pub(super) fn parse_biomes(s: &Section<'_>, n: u32, read_ahead: Option<Vec<u8>>) -> Result<Vec<u8>, BlueprintError> {
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

/// The water: `WBID` (the body of each cell) with its table `WBTB` and its levels `WSRF`, each a
/// grid of the map's size; neither of the other two may stand without `WBID`.
pub(super) fn parse_water(
    sections: &[Section<'_>],
    map_size: u32,
    grids: &mut ReadAhead,
) -> Result<Option<Water>, BlueprintError> {
    let find = |t: u32| super::find_section(sections, t);
    let cells = map_size as usize * map_size as usize;
    let Some(s) = find(tags::WBID) else {
        for (t, name) in [(tags::WBTB, "WBID"), (tags::WSRF, "WBID")] {
            if let Some(s) = find(t) {
                return Err(s.err(ErrorKind::RequiresSection { needs: name }));
            }
        }
        return Ok(None);
    };
    s.exact(2 * cells as u64)?;
    let bodies = find(tags::WBTB).map(parse_bodies).transpose()?;
    let wsrf = find(tags::WSRF);
    if let Some(w) = wsrf {
        w.exact(2 * cells as u64)?;
    }
    let body_ids = grids.body_ids.take().unwrap_or_else(|| read_u16s(s.payload));
    let surface = wsrf.map(|w| grids.surface.take().unwrap_or_else(|| read_u16s(w.payload)));
    Ok(Some(Water { body_ids, bodies, surface }))
}
