//! Positioned reads for large files: the framing walks the section headers through `pread`, the
//! four grids are read straight into their final, uninitialised buffers when their lengths are
//! right, the other known sections into small buffers, and unknown sections are skipped unread.

use super::frame::{KNOWN_TAGS, Section, frame};
use super::grids::Grids;
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

/// Read and validate the file of `len` bytes with positioned reads; I/O errors go through `io`.
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
