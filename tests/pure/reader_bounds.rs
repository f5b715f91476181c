//! How much heap the reader holds at once (SPEC §1.3 rule 4, docs/RELIABILITY.md): measured with
//! a counting global allocator that keeps a count per thread, so the tests running beside one
//! another in this binary do not disturb each other's figures.

use crate::format::{sample, section_at};
use isla::blueprint::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the bytes each thread has allocated and not freed, and the most it held at once.
/// `realloc` is left to the default (allocate, copy, free), so a growing buffer counts its old
/// and new block together, as the fuzz targets' allocator does.
struct PerThread;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(d: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + d;
        live.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

unsafe impl GlobalAlloc for PerThread {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            add(l.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        add(-(l.size() as isize));
    }
}

#[global_allocator]
static ALLOC: PerThread = PerThread;

/// Run `f` and return its result with the most heap this thread held at once beyond what it
/// held before (the result itself included, while it is alive).
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let out = f();
    (out, (PEAK.with(Cell::get) - before).max(0) as usize)
}

fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("isla-bounds-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Rename the section tagged `from` to `to` in place.
fn rename(bytes: &mut [u8], from: &[u8; 4], to: &[u8; 4]) {
    let at = section_at(bytes, from);
    bytes[at..at + 4].copy_from_slice(to);
}

/// The most `read_file` may hold at once for a file at or above the positioned-read threshold
/// (docs/RELIABILITY.md; the fuzz target `blueprint_file` checks the same): 1.1 × the file +
/// 64 KiB, plus 5 × the record tables (`TOWN`, `WBTB`, `RIVR`, `ROAD`, `DIAL`), whose payload is held
/// while it is decoded into records up to 4.3 × their bytes in memory.
fn bound(bytes: &[u8]) -> usize {
    let tables: u64 = list_sections(bytes)
        .unwrap()
        .iter()
        .filter(|s| ["TOWN", "WBTB", "RIVR", "ROAD", "DIAL"].contains(&s.tag.as_str()))
        .map(|s| s.payload_bytes)
        .sum();
    bytes.len() + bytes.len() / 10 + (64 << 10) + 5 * tables as usize
}

/// Three large files, each with whether its model is about its size: an 800² island with every
/// section (5.8 MB, grids 93 % of it), the same with `WSRF` renamed `TCRV` (a 1.3 MB curve body,
/// which must become the model's without a copy), and a 32² island followed by 4 MiB of empty
/// unknown sections (350,000 headers, which the framing must not keep).
fn large_files() -> Vec<(&'static str, Vec<u8>, bool)> {
    let big = to_bytes(&sample(800)).unwrap();
    let mut renamed = big.clone();
    rename(&mut renamed, b"TCRV", b"ZCRV");
    rename(&mut renamed, b"WSRF", b"TCRV");
    let mut many = to_bytes(&sample(32)).unwrap();
    let mut i = 0u32;
    while (many.len() as u64) < DIRECT_READ_MIN_BYTES + 1000 {
        many.extend_from_slice(&(0x5A00_0000 | i).to_le_bytes());
        many.extend_from_slice(&0u64.to_le_bytes());
        i += 1;
    }
    vec![("island-800", big, true), ("grid-as-tcrv", renamed, true), ("many-unknown", many, false)]
}

/// `read_file` on a file above the threshold holds about the file, never the file and its model
/// at once: where the model is about the file's size, reading it whole and then decoding
/// (`read_bytes` of `fs::read`) breaks the bound. Figures with `-- --nocapture`.
#[test]
fn read_file_holds_about_the_file_size_at_most() {
    for (name, bytes, large_model) in large_files() {
        assert!(bytes.len() as u64 >= DIRECT_READ_MIN_BYTES);
        let path = temp_file(name, &bytes);
        let (read, peak) = peak_during(|| read_file(&path));
        let (_, whole) = peak_during(|| read_bytes(&std::fs::read(&path).unwrap()));
        std::fs::remove_file(&path).unwrap();
        let bp = read.unwrap_or_else(|e| panic!("{name}: {e}"));
        let ratio = |p: usize| p as f64 / bytes.len() as f64;
        eprintln!(
            "{name}: {} bytes; read_file peak {peak} ({:.3} x), read whole then decode {whole} ({:.3} x), bound {}",
            bytes.len(),
            ratio(peak),
            ratio(whole),
            bound(&bytes)
        );
        assert!(peak <= bound(&bytes), "{name}: read_file held {peak} bytes (bound {})", bound(&bytes));
        if large_model {
            assert!(whole > bound(&bytes), "{name}: the bound would admit reading the file whole first");
        }
        assert!(!bp.heights_raw.is_empty());
    }
}

/// A record count (or a river's or road's point or bridge count) that promises more than the
/// payload holds is refused before anything is allocated for the records: `read_bytes` then
/// holds no more than the grids it decoded (less than the file) and 64 KiB.
#[test]
fn counts_promising_more_records_allocate_nothing_for_them() {
    let bytes = to_bytes(&sample(32)).unwrap();
    let river = 2 + RIVR_DIALS_LEN + 4;
    let road = 2 + 4;
    for (tag, at) in [
        (b"TOWN", 0),
        (b"WBTB", 0),
        (b"RIVR", river - 4),
        (b"RIVR", river + 25),
        (b"ROAD", 2),
        (b"ROAD", road + 5),
        (b"ROAD", road + 9),
        (b"DIAL", 2),
    ] {
        let mut b = bytes.clone();
        let p = section_at(&b, tag) + SECTION_HEADER_LEN + at;
        b[p..p + 4].copy_from_slice(&1_000_000i32.to_le_bytes());
        let (read, peak) = peak_during(|| read_bytes(&b));
        let e = read.expect_err("a count past the payload is refused");
        assert_eq!(e.section_name().as_bytes(), tag, "{e}");
        assert!(peak <= b.len() + (64 << 10), "{e}: read_bytes held {peak} bytes for a {}-byte file", b.len());
    }
}
