//! Fuzz `blueprint::read_file` on real files, most of them above the positioned-read threshold
//! (`DIRECT_READ_MIN_BYTES`, 4 MiB), where the framing is walked with positioned reads and the
//! grids are read straight into their buffers. Each input picks a base (`file_input`: two forged
//! islands and a small island behind a 4 MiB unknown section), rearranges its sections, cuts it
//! inside a chosen section (header, payload start or end, or anywhere along it) and patches section
//! headers (tags and lengths) and payloads at offsets taken from the parsed framing; the file is
//! written to disk and read both ways.
//!
//! What must hold, for every input:
//! - `read_file` and `read_bytes` agree: the same model (compared as written back), or the same
//!   error; and the writer writes back whatever they accept (it validates as the reader does);
//! - neither panics;
//! - `read_file` never holds more heap at once than `file_input::read_file_bound` (a counting
//!   global allocator tracks the peak): above the threshold 1.1 × the file + 64 KiB (plus an
//!   allowance for the record tables' in-memory form), which reading the whole file before
//!   decoding it would exceed; below it 2 × the file + 1 MiB.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

mod counting;
mod file_input;

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

fn path() -> &'static std::path::Path {
    static PATH: OnceLock<std::path::PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("isla-fuzz-file-{}.dat", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let Some(built) = file_input::build(data) else { return };
    let _ = file_input::check(path(), &built.file);
});
