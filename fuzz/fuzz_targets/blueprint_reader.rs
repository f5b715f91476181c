//! Fuzz the blueprint reader: any bytes must give a model or a typed error — never a panic, never
//! an allocation beyond the input's size (run with `-malloc_limit_mb` to enforce it). Whatever the
//! reader accepts, the writer must write back and the reader accept again, byte-stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(bp) = isla::blueprint::read_bytes(data) else { return };
    let bytes = isla::blueprint::to_bytes(&bp).expect("a model the reader accepted must write");
    let again = isla::blueprint::read_bytes(&bytes).expect("a file the writer wrote must read");
    assert_eq!(isla::blueprint::to_bytes(&again).expect("rewrite"), bytes, "write(read(write(x))) is stable");
});
