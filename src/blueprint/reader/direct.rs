//! Positioned reads for large files: the framing walks the section headers through `pread` (a
//! small window at a time), the four grids are read straight into their final, uninitialised
//! buffers when their lengths are right and the `TCRV` payload into the buffer that becomes its
//! body, the other known sections into their own buffers, and unknown sections are skipped unread.

use super::frame::{Section, frame};
use super::grids::ReadAhead;
use super::parse;
use crate::blueprint::error::BlueprintError;
use crate::blueprint::model::*;
use byteorder::{ByteOrder, LittleEndian as LE};
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

/// The section headers are read through a window of this many bytes, so a file of many small
/// sections costs one read per window, not one per header.
const WINDOW: usize = 16 << 10;

/// Positioned reads through a window of [`WINDOW`] bytes.
struct Window<'f> {
    file: &'f std::fs::File,
    start: u64,
    buf: Vec<u8>,
}

impl Window<'_> {
    fn read(&mut self, at: u64, out: &mut [u8]) -> std::io::Result<()> {
        let end = at + out.len() as u64;
        if at < self.start || end > self.start + self.buf.len() as u64 {
            if out.len() > WINDOW {
                return self.file.read_exact_at(out, at);
            }
            self.buf.resize(WINDOW, 0);
            let mut filled = 0;
            while filled < WINDOW {
                match self.file.read_at(&mut self.buf[filled..], at + filled as u64) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            self.buf.truncate(filled);
            self.start = at;
            if filled < out.len() {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        }
        let from = (at - self.start) as usize;
        out.copy_from_slice(&self.buf[from..from + out.len()]);
        Ok(())
    }
}

/// Read the first `n` bytes of a payload at `at` into a buffer of their own.
fn bytes(file: &std::fs::File, at: u64, n: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n as usize];
    file.read_exact_at(&mut buf, at)?;
    Ok(buf)
}

/// Read and validate the file of `len` bytes with positioned reads; I/O errors go through `io`.
/// Nothing is read that the validation does not use: a grid of the wrong length is refused by
/// its length alone, and `PRMS`, `TDTL` and `EROS` only as far as their known fields.
pub(super) fn read(
    file: &std::fs::File,
    len: u64,
    io: &dyn Fn(std::io::Error) -> BlueprintError,
) -> Result<Blueprint, BlueprintError> {
    let framing = {
        let mut window = Window { file, start: 0, buf: Vec::new() };
        frame(len, &mut |at, buf| window.read(at, buf).map_err(io), None)?
    };
    let cells = framing.map_size as usize * framing.map_size as usize;
    let mut ahead = ReadAhead::default();
    let mut owned: Vec<(usize, Vec<u8>)> = Vec::new();
    for (i, h) in framing.known.iter().enumerate() {
        let t = LE::read_u32(&h.tag);
        let grid_len = match t {
            tags::HGTS => Some(4 * cells as u64),
            tags::BIOM => Some(cells as u64),
            tags::WBID | tags::WSRF => Some(2 * cells as u64),
            _ => None,
        };
        match (t, grid_len) {
            (_, Some(n)) if n != h.length => {}
            (tags::HGTS, _) => ahead.heights = Some(grid(file, h.offset, cells).map_err(io)?),
            (tags::BIOM, _) => ahead.biomes = Some(grid(file, h.offset, cells).map_err(io)?),
            (tags::WBID, _) => ahead.body_ids = Some(grid(file, h.offset, cells).map_err(io)?),
            (tags::WSRF, _) => ahead.surface = Some(grid(file, h.offset, cells).map_err(io)?),
            (tags::TCRV, _) => ahead.curve = Some(bytes(file, h.offset, h.length).map_err(io)?),
            (tags::PRMS | tags::TDTL | tags::EROS, _) => {
                let used = match t {
                    tags::PRMS => PRMS_LEN,
                    tags::TDTL => TDTL_LEN,
                    _ => EROS_LEN,
                };
                owned.push((i, bytes(file, h.offset, h.length.min(used as u64)).map_err(io)?));
            }
            // The record tables (TOWN, WBTB, RIVR, ROAD): their own buffers, at most the file.
            _ => owned.push((i, bytes(file, h.offset, h.length).map_err(io)?)),
        }
    }
    let mut sections: Vec<Section<'_>> = framing
        .known
        .iter()
        .map(|h| Section { tag: h.tag, offset: h.offset, length: h.length, payload: &[] })
        .collect();
    for (i, buf) in &owned {
        sections[*i].payload = buf;
    }
    parse(framing, sections, ahead)
}
