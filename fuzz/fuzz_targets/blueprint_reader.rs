//! Fuzz the blueprint reader: any bytes must give a model or a typed error — never a panic, and
//! never more heap held at once than 2 × the input's length + 1 MiB (a counting global allocator
//! tracks the peak while `read_bytes` runs, whatever the header's lengths claim). Whatever the
//! reader accepts, the writer must write back and the reader accept again, byte-stable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fuzz_target!(|data: &[u8]| {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let read = isla::blueprint::read_bytes(data);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let bound = 2 * data.len() + (1 << 20);
    assert!(peak <= bound, "read_bytes held {peak} bytes for {} input bytes (bound {bound})", data.len());
    let Ok(bp) = read else { return };
    let bytes = isla::blueprint::to_bytes(&bp).expect("a model the reader accepted must write");
    let again = isla::blueprint::read_bytes(&bytes).expect("a file the writer wrote must read");
    assert_eq!(isla::blueprint::to_bytes(&again).expect("rewrite"), bytes, "write(read(write(x))) is stable");
});
