//! Fuzz `blueprint::read_file` on files around the positioned-read threshold
//! (`DIRECT_READ_MIN_BYTES`, 4 MiB): files at or above it are read with positioned reads straight
//! into the grid buffers, smaller ones through `read_bytes`. Each input picks a base file (a forged
//! 704² island, 4.46 MB, or the same island cut short), a length around the threshold and up to 64
//! byte patches anywhere in the file; the patched file is written to disk and read both ways.
//!
//! What must hold, for every input:
//! - `read_file` and `read_bytes` agree: the same model (compared as written back), or the same
//!   error;
//! - neither panics;
//! - `read_file` never holds more than 2 × the file's length + 1 MiB of heap at once (a counting
//!   global allocator tracks the peak), whatever the header's lengths say.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

mod counting;

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

fn base() -> &'static [u8] {
    static BASE: OnceLock<Vec<u8>> = OnceLock::new();
    BASE.get_or_init(|| {
        let bp = isla::forge::forge(&isla::forge::ForgeDials::new(7, 704), |_| {}).expect("forge the base island");
        let bytes = isla::blueprint::to_bytes(&bp).expect("write the base island");
        assert!(bytes.len() as u64 > isla::blueprint::DIRECT_READ_MIN_BYTES, "the base crosses the threshold");
        bytes
    })
}

fn path() -> &'static std::path::Path {
    static PATH: OnceLock<std::path::PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("isla-fuzz-file-{}.dat", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let base = base();
    let threshold = isla::blueprint::DIRECT_READ_MIN_BYTES as i64;
    // Length: within ±64 KiB of the threshold, or the whole base (first two bytes).
    let (len_sel, rest) = match data {
        [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]), rest),
        _ => return,
    };
    let len = if len_sel & 0x8000 != 0 {
        base.len()
    } else {
        (threshold + (len_sel as i64 & 0x7fff) * 4 - 0x10000).clamp(0, base.len() as i64) as usize
    };
    let mut file = base[..len].to_vec();
    // Patches: 4-byte offset (anywhere, mostly the header), 1-byte value.
    for p in rest.chunks_exact(5).take(64) {
        let off = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
        let off = if off & 1 == 0 { (off >> 1) % 4096 } else { (off >> 1) % file.len().max(1) };
        if let Some(b) = file.get_mut(off) {
            *b = p[4];
        }
    }
    std::fs::write(path(), &file).expect("write the patched file");
    let (from_file, peak) = counting::peak_during(|| isla::blueprint::read_file(path()));
    let bound = 2 * file.len() + (1 << 20);
    assert!(peak <= bound, "read_file held {peak} bytes for a {}-byte file (bound {bound})", file.len());
    let from_bytes = isla::blueprint::read_bytes(&file);
    match (&from_file, &from_bytes) {
        // Compared through the writer: a model may hold a NaN, which is never equal to itself.
        (Ok(a), Ok(b)) => assert!(
            isla::blueprint::to_bytes(a).ok() == isla::blueprint::to_bytes(b).ok(),
            "read_file and read_bytes read different models"
        ),
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "the two paths refuse differently"),
        _ => panic!("read_file {:?} but read_bytes {:?}", from_file.is_ok(), from_bytes.is_ok()),
    }
});
