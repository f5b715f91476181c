//! How far the file target's mutator reaches (docs/RELIABILITY.md; `scripts/fuzz-smoke coverage
//! N`): `file_input::build` on N pseudo-random inputs (a fixed xorshift seed, so the figure is
//! reproducible; `cargo run --release --bin file_coverage -- N [SEED]` in `fuzz/`), each file read
//! under the fuzz target's own checks (`file_input::check`: both paths agree, the heap bound), and
//! per section, on the positioned-read path (files of 4 MiB or more) and below it:
//! - `cut`: inputs cut inside it (in brackets: inside its 12-byte header);
//! - `parsed`: inputs whose parser for it ran and accepted it;
//! - `refused`: refusals that name it after framing (its parser, or a missing section);
//! - `framing`: framing refusals that name it (past the end, twice).
//!
//! "Parser ran" is read off the outcome: the reader parses the known sections in one fixed order
//! (PRMS HGTS BIOM TOWN WBID WBTB WSRF TCRV TDTL EROS RIVR ROAD DIAL, `reader::parse`) and stops at the
//! first refusal, so a refusal by section X after framing means each section present before X in
//! that order was parsed and accepted; an accepted file had every section it frames parsed.
//! Not a fuzz target: it runs without cargo-fuzz and its sanitizers.

mod counting;
mod file_input;

use isla::blueprint::{DIRECT_READ_MIN_BYTES, ErrorKind, list_sections};
use std::collections::BTreeMap;

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

const ORDER: [&str; 13] =
    ["PRMS", "HGTS", "BIOM", "TOWN", "WBID", "WBTB", "WSRF", "TCRV", "TDTL", "EROS", "RIVR", "ROAD", "DIAL"];

#[derive(Default, Clone)]
struct Counts {
    cut: usize,
    cut_header: usize,
    parsed: usize,
    refused: usize,
    framing: usize,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(1000, |a| a.parse().expect("N: a number of inputs"));
    let mut state: u64 = args.next().map_or(0x9E37_79B9_7F4A_7C15, |a| a.parse().expect("SEED: a number"));
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let path = std::env::temp_dir().join(format!("isla-file-coverage-{}.dat", std::process::id()));
    file_input::bases();
    let t = std::time::Instant::now();
    // [direct, in memory]
    let mut table: [BTreeMap<&str, Counts>; 2] = Default::default();
    let mut totals = [[0usize; 4]; 2]; // inputs, accepted, refused at framing, refused after
    // The largest read_file peak on the positioned path: as a share of the file, of the bound.
    let mut worst = (0f64, 0f64);
    for _ in 0..n {
        let len = 8 + (next() % 48) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let built = file_input::build(&data).expect("8 bytes or more");
        let direct = (built.file.len() as u64 >= DIRECT_READ_MIN_BYTES) as usize;
        let path_table = &mut table[1 - direct];
        let tot = &mut totals[1 - direct];
        tot[0] += 1;
        if let Some(c) = &built.cut
            && let Some(k) = ORDER.iter().find(|t| **t == c.tag)
        {
            let c_k = path_table.entry(k).or_default();
            c_k.cut += 1;
            c_k.cut_header += c.in_header as usize;
        }
        let (outcome, peak) = file_input::check(&path, &built.file);
        if direct == 1 {
            let ratio = peak as f64 / built.file.len() as f64;
            let of_bound = peak as f64 / file_input::read_file_bound(&built.file) as f64;
            worst = (worst.0.max(ratio), worst.1.max(of_bound));
        }
        let present: Vec<String> =
            list_sections(&built.file).map(|s| s.into_iter().map(|s| s.tag).collect()).unwrap_or_default();
        let is_present = |t: &str| present.iter().any(|p| p == t);
        match outcome {
            Ok(_) => {
                tot[1] += 1;
                for t in ORDER.iter().filter(|t| is_present(t)) {
                    path_table.entry(t).or_default().parsed += 1;
                }
            }
            Err(e) => {
                let name = e.section_name();
                let framing = matches!(
                    e.kind,
                    ErrorKind::Empty
                        | ErrorKind::TruncatedHeader { .. }
                        | ErrorKind::UnsupportedVersion { .. }
                        | ErrorKind::MapSizeOutOfRange { .. }
                        | ErrorKind::TruncatedSectionHeader { .. }
                        | ErrorKind::SectionPastEnd { .. }
                        | ErrorKind::DuplicateSection
                );
                let Some(at) = ORDER.iter().position(|t| *t == name) else {
                    tot[if framing { 2 } else { 3 }] += 1;
                    continue;
                };
                if framing {
                    tot[2] += 1;
                    path_table.entry(ORDER[at]).or_default().framing += 1;
                } else {
                    tot[3] += 1;
                    path_table.entry(ORDER[at]).or_default().refused += 1;
                    for t in ORDER[..at].iter().filter(|t| is_present(t)) {
                        path_table.entry(t).or_default().parsed += 1;
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_file(&path);
    println!("{n} inputs in {:.1} s (file_input::build, then read_file and read_bytes)", t.elapsed().as_secs_f64());
    println!("largest read_file peak at or above 4 MiB: {:.3} x the file, {:.3} x its bound", worst.0, worst.1);
    for (i, name) in ["positioned reads (>= 4 MiB)", "read whole (< 4 MiB)"].iter().enumerate() {
        let [inputs, ok, framing, after] = totals[i];
        println!("\n{name}: {inputs} inputs, {ok} accepted, {framing} refused in framing, {after} refused after");
        println!("| section | cut (in its header) | parsed | refused | framing |");
        println!("|---|---|---|---|---|");
        for t in ORDER {
            let c = table[i].get(t).cloned().unwrap_or_default();
            println!("| {t} | {} ({}) | {} | {} | {} |", c.cut, c.cut_header, c.parsed, c.refused, c.framing);
        }
    }
}
