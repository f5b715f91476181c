//! The file target's inputs and checks, shared by `blueprint_file` (the fuzz target) and
//! `file_coverage` (which runs the same mutator over pseudo-random inputs and counts the sections
//! reached): a base file, its sections rearranged, cut inside a chosen section and its section
//! headers and payloads patched, every position taken from the parsed framing.
//!
//! The bases, each with every section the reader knows (`EROS` added by hand where the forge
//! leaves it out):
//! - a forged 704² island (4.46 MB) and a forged 736² one (4.88 MB): the grids straddle the
//!   positioned-read threshold (`DIRECT_READ_MIN_BYTES`, 4 MiB) at different points;
//! - the format tests' sample (32², every section; `fuzz/seeds/valid-every-section.dat`) after a
//!   4 MiB unknown section, so every one of its sections, the small ones included, lies past the
//!   threshold and a cut anywhere in it is read with positioned reads.
//!
//! Because a chosen section can also be moved to the end (or the front), a cut in any section of
//! any base can land above the threshold.

use isla::blueprint::*;
use std::sync::OnceLock;

/// The three bases, written.
pub fn bases() -> &'static [Vec<u8>] {
    static BASES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    BASES.get_or_init(|| {
        let forged = |seed: i32, size: u32| {
            let mut bp = isla::forge::forge(&isla::forge::ForgeDials::new(seed, size), |_| {}).expect("forge a base");
            bp.erosion.get_or_insert(erosion_meta());
            let bytes = to_bytes(&bp).expect("write a base");
            assert!(bytes.len() as u64 > DIRECT_READ_MIN_BYTES, "a forged base crosses the threshold");
            bytes
        };
        let sample = include_bytes!("../seeds/valid-every-section.dat");
        let pad_len = DIRECT_READ_MIN_BYTES as usize + 4096;
        let mut padded = sample[..HEADER_LEN].to_vec();
        padded.extend_from_slice(b"ZPAD");
        padded.extend_from_slice(&(pad_len as u64).to_le_bytes());
        padded.resize(padded.len() + pad_len, 0);
        padded.extend_from_slice(&sample[HEADER_LEN..]);
        vec![forged(7, 704), forged(7, 736), padded]
    })
}

/// `EROS` metadata for the forged bases (the forge writes none with erosion off): plain values.
fn erosion_meta() -> ErosionMeta {
    ErosionMeta {
        droplet_count: 1_000,
        lifetime: 30,
        brush_radius: 3,
        seed_offset: 17,
        carve_cap_m: 1.5,
        deposit_cap_m: 0.75,
        sea_margin_m: 2.25,
        inertia: 0.05,
        capacity_factor: 4.0,
        min_slope_m: 0.01,
        erode_rate: 0.3,
        deposit_rate: 0.2,
        evaporation: 0.015,
        gravity: 9.5,
        crater_core_factor: 0.6,
        crater_feather_factor: 0.9,
        crater_mode: 1,
    }
}

/// Where a cut landed: the section (as tagged before any patch) and whether in its header.
/// `file_coverage` counts these; the fuzz target has no use for them.
#[allow(dead_code)]
#[derive(Debug, Clone)]
pub struct Cut {
    pub tag: String,
    pub in_header: bool,
}

/// A file made from the fuzzer's bytes, and where it was cut (if it was).
#[allow(dead_code)]
pub struct Built {
    pub file: Vec<u8>,
    pub cut: Option<Cut>,
}

/// Byte ranges of one section in a file: header start, payload start, payload end.
#[derive(Clone, Copy)]
struct Span {
    head: usize,
    payload: usize,
    end: usize,
}

fn spans(bytes: &[u8]) -> Vec<(String, Span)> {
    list_sections(bytes)
        .expect("a base and its rearrangements frame")
        .into_iter()
        .map(|s| {
            let head = s.offset as usize;
            (
                s.tag,
                Span {
                    head,
                    payload: head + SECTION_HEADER_LEN,
                    end: head + SECTION_HEADER_LEN + s.payload_bytes as usize,
                },
            )
        })
        .collect()
}

/// The tags the reader knows, in the order of SPEC §1.3.
const KNOWN: [&[u8; 4]; 13] = [
    b"PRMS", b"HGTS", b"BIOM", b"TOWN", b"WBID", b"WBTB", b"WSRF", b"TCRV", b"TDTL", b"EROS", b"RIVR", b"ROAD", b"DIAL",
];

/// Build a file from the fuzzer's bytes:
/// - byte 0: the base; bytes 1–3: the layout (as written, a section moved to the end, moved to
///   the front, two swapped, or one resized);
/// - bytes 4–6: the cut: none, or in a chosen section's header, the first or last 8 KiB of its
///   payload, or anywhere along it;
/// - byte 7: how many section-header patches follow (0–4);
/// - then those section-header patches, 6 bytes each (section, what, value): its tag set to a
///   known or an unknown one, its length set to 0, 2⁶⁴−1, itself ± a little, exactly what is left
///   of the file (and one more), another section's length, itself + 2³², or any 32-bit value; or
///   one of its 12 bytes xor-ed;
/// - then up to 32 payload patches of 4 bytes (section, offset in its payload, value).
pub fn build(data: &[u8]) -> Option<Built> {
    let (head, rest) = data.split_at_checked(8)?;
    let base = &bases()[head[0] as usize % bases().len()];
    let mut file = arrange(base, head[1], head[2], head[3]);
    let sp = spans(&file);
    let cut = cut(&mut file, &sp, u16::from_le_bytes([head[4], head[5]]), head[6]);
    let (headers, payloads) = rest.split_at(rest.len().min(head[7] as usize % 5 * 6) / 6 * 6);
    for p in headers.chunks_exact(6) {
        patch_header(&mut file, &sp, p);
    }
    for p in payloads.chunks_exact(4).take(32) {
        let (_, s) = sp[p[0] as usize % sp.len()];
        let len = s.end - s.payload;
        let off = s.payload + u16::from_le_bytes([p[1], p[2]]) as usize % len.max(1);
        if len > 0
            && let Some(b) = file.get_mut(off)
        {
            *b = p[3];
        }
    }
    Some(Built { file, cut })
}

/// The base with its sections in another order, or one resized: `op % 5` = as written, section
/// `a` moved to the end, moved to the front, sections `a` and `b` swapped, or section `a`'s
/// payload made 0 or 1 bytes long, one byte shorter or one longer (`b % 4`), the file framed
/// consistently around it (so its own parser meets the wrong length).
fn arrange(base: &[u8], op: u8, a: u8, b: u8) -> Vec<u8> {
    let sp = spans(base);
    let mut order: Vec<usize> = (0..sp.len()).collect();
    let (a, b) = (a as usize % sp.len(), b as usize);
    let mut resized = None;
    match op % 5 {
        0 => return base.to_vec(),
        1 => {
            let s = order.remove(a);
            order.push(s);
        }
        2 => {
            let s = order.remove(a);
            order.insert(0, s);
        }
        3 => order.swap(a, b % sp.len()),
        _ => resized = Some(a),
    }
    let mut out = Vec::with_capacity(base.len() + 1);
    out.extend_from_slice(&base[..HEADER_LEN]);
    for i in order {
        let s = sp[i].1;
        if resized != Some(i) {
            out.extend_from_slice(&base[s.head..s.end]);
            continue;
        }
        let payload = &base[s.payload..s.end];
        let len = match b % 4 {
            0 => 0,
            1 => 1,
            2 => payload.len().saturating_sub(1),
            _ => payload.len() + 1,
        };
        out.extend_from_slice(&base[s.head..s.payload - 8]);
        out.extend_from_slice(&(len as u64).to_le_bytes());
        out.extend_from_slice(&payload[..len.min(payload.len())]);
        out.resize(out.len() + len.saturating_sub(payload.len()), 0);
    }
    out
}

/// Cut the file inside section `which` (`sel`'s top bit: no cut): in its header, the first or
/// the last 8 KiB of its payload, or at a fraction of its whole span.
fn cut(file: &mut Vec<u8>, sp: &[(String, Span)], sel: u16, which: u8) -> Option<Cut> {
    if sel & 0x8000 != 0 {
        return None;
    }
    let (tag, s) = &sp[which as usize % sp.len()];
    let v = (sel & 0x1fff) as usize;
    let at = match (sel >> 13) & 3 {
        0 => s.head + v % SECTION_HEADER_LEN,
        1 => s.payload + v,
        2 => s.end.saturating_sub(1 + v),
        _ => s.head + v * (s.end - s.head) / 0x2000,
    };
    let at = at.clamp(s.head, s.end.saturating_sub(1).max(s.head));
    file.truncate(at);
    Some(Cut { tag: tag.clone(), in_header: at < s.payload })
}

/// One section-header patch (`p`: section, what, four value bytes), where the header is still in
/// the (cut) file.
fn patch_header(file: &mut [u8], sp: &[(String, Span)], p: &[u8]) {
    let (_, s) = sp[p[0] as usize % sp.len()];
    if s.payload > file.len() {
        return;
    }
    let v = u32::from_le_bytes([p[2], p[3], p[4], p[5]]);
    let h = s.head;
    let length = u64::from_le_bytes(file[h + 4..h + 12].try_into().expect("8 bytes"));
    let left = (file.len() - s.payload) as u64;
    let new_length = match p[1] % 12 {
        0 => {
            file[h..h + 4].copy_from_slice(KNOWN[v as usize % KNOWN.len()]);
            return;
        }
        1 => {
            // An unknown tag: 'Z' and three fuzzer bytes (no known tag starts with Z).
            file[h..h + 4].copy_from_slice(&[b'Z', p[2], p[3], p[4]]);
            return;
        }
        2 => {
            file[h + (v as usize % SECTION_HEADER_LEN)] ^= p[5] | 1;
            return;
        }
        3 => 0,
        4 => u64::MAX,
        5 => length.wrapping_add((p[2] as i8) as u64),
        6 => left,
        7 => left + 1,
        8 => sp[p[2] as usize % sp.len()].1.end as u64 - sp[p[2] as usize % sp.len()].1.payload as u64,
        9 => length + (1 << 32),
        10 => length.wrapping_sub(SECTION_HEADER_LEN as u64 * (1 + p[2] as u64 % 4)),
        _ => v as u64,
    };
    file[h + 4..h + 12].copy_from_slice(&new_length.to_le_bytes());
}

/// The most heap `read_file` may hold at once for this file (docs/RELIABILITY.md):
/// - at or above the positioned-read threshold: 1.1 × the file + 64 KiB, plus 5 × the record
///   tables (`TOWN`, `WBTB`, `RIVR`, `ROAD`, `DIAL`) as framed: a table's payload is held while it is
///   decoded, into records that in memory may be up to 4.3 × their bytes (an empty road: 56 bytes
///   for its 13);
/// - below it (the file is read whole, then decoded): 2 × the file + 1 MiB.
pub fn read_file_bound(file: &[u8]) -> usize {
    let len = file.len();
    if (len as u64) < DIRECT_READ_MIN_BYTES {
        return 2 * len + (1 << 20);
    }
    let tables: u64 = list_sections(file)
        .map(|s| {
            s.iter()
                .filter(|s| ["TOWN", "WBTB", "RIVR", "ROAD", "DIAL"].contains(&s.tag.as_str()))
                .map(|s| s.payload_bytes)
                .sum()
        })
        .unwrap_or(0);
    len + len / 10 + (64 << 10) + 5 * tables as usize
}

/// Read `file` (written to `path`) both ways; panic unless they agree, `read_file` kept within
/// [`read_file_bound`] and the writer takes back what was accepted. Returns `read_file`'s outcome
/// and its peak heap.
pub fn check(path: &std::path::Path, file: &[u8]) -> (Result<Blueprint, BlueprintError>, usize) {
    std::fs::write(path, file).expect("write the patched file");
    let (from_file, peak) = crate::counting::peak_during(|| read_file(path));
    let bound = read_file_bound(file);
    assert!(peak <= bound, "read_file held {peak} bytes for a {}-byte file (bound {bound})", file.len());
    let from_bytes = read_bytes(file);
    match (&from_file, &from_bytes) {
        // Compared through the writer: a model may hold a NaN, which is never equal to itself.
        (Ok(a), Ok(b)) => {
            let written = to_bytes(a).unwrap_or_else(|e| panic!("the writer refuses a model read_file accepted: {e}"));
            assert!(to_bytes(b).ok() == Some(written), "read_file and read_bytes read different models");
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "the two paths refuse differently"),
        _ => panic!("read_file {:?} but read_bytes {:?}", from_file.is_ok(), from_bytes.is_ok()),
    }
    (from_file, peak)
}
