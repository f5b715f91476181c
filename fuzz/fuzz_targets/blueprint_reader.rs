//! Fuzz the blueprint reader: any bytes must give a model or a typed error — never a panic, and
//! never more heap held at once than 2 × the input's length + 1 MiB (a counting global allocator
//! tracks the peak while `read_bytes` runs, whatever the header's lengths claim). Whatever the
//! reader accepts, the writer must write back and the reader accept again, byte-stable.
#![no_main]

use libfuzzer_sys::fuzz_target;
mod counting;

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

fuzz_target!(|data: &[u8]| {
    let (read, peak) = counting::peak_during(|| isla::blueprint::read_bytes(data));
    let bound = 2 * data.len() + (1 << 20);
    assert!(peak <= bound, "read_bytes held {peak} bytes for {} input bytes (bound {bound})", data.len());
    let Ok(bp) = read else { return };
    let bytes = isla::blueprint::to_bytes(&bp).expect("a model the reader accepted must write");
    let again = isla::blueprint::read_bytes(&bytes).expect("a file the writer wrote must read");
    assert_eq!(isla::blueprint::to_bytes(&again).expect("rewrite"), bytes, "write(read(write(x))) is stable");
});
