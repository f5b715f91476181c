//! Corrupting a valid file section by section (SPEC §1.7: refuse with one line naming the
//! section and the byte, never panic, never misread).
//!
//! Each corruption stays inside one *region*: the file header, one section's 12-byte header, or
//! one section's payload — every section of the format tests' sample, the small ones (`PRMS`,
//! `TOWN`, `WBTB`, `TCRV`, `TDTL`, `EROS`, `RIVR`, `ROAD`, `DIAL`) as much as the grids. The offsets come
//! from the parsed framing. The rule each outcome is judged by ("refuse or equal"):
//!
//! - **Refused**: the error prints as one line, `SECTION at byte OFFSET: …`, with the offset inside
//!   the file. A corrupted *payload* is refused by its own section, at an offset inside that
//!   payload — or, for `PRMS`, by `RIVR`, whose widths are bounded by the map's extent in metres
//!   (`metresPerPixel`).
//! - **Accepted, a section dropped on purpose**: a changed version of `TDTL`, `EROS`, `RIVR`,
//!   `ROAD` or `DIAL` skips that section, and a tag changed to one the reader does not know skips it as
//!   unknown. Then the model *equals* the original less that section (exactly what reading the
//!   file without it gives), with one warning more.
//! - **Accepted otherwise**: "equal" cannot mean the original here — a changed height or body id
//!   is valid data. It means the model is exactly what the corrupted bytes say: it passes the
//!   writer's validation and writes back to exactly the corrupted file (nothing misread, clamped
//!   or dropped), except that a `TOWN` highway flag reads any non-zero byte as `true` and writes
//!   back 1. A corrupted *section length* that is accepted must round-trip, and come with a
//!   warning (a `TCRV` body of zeros cut short exposes a well-framed unknown section) unless the
//!   new length frames a valid file: a `TCRV` body (any length) that now ends where a later
//!   section starts writes back to exactly the corrupted bytes, and a `TDTL` or `EROS` grown over
//!   the sections after it reads as the original's metadata (bytes past a known layout are
//!   ignored, SPEC §1.4).
//! - **Refusal required**: a changed `PRMS` version, or a changed record count of `TOWN`, `WBTB`,
//!   `RIVR`, `ROAD` or `DIAL` (their version unchanged), is always refused.
//!
//! An exhaustive sweep tries four values at every byte of every header and small section (and
//! the first and last 64 bytes of each grid); a proptest corrupts one to four bytes of one
//! region of a chosen section at random.

use crate::format::{remove_section, sample};
use isla::blueprint::*;
use proptest::prelude::*;

const N: u32 = 32;

/// A place corruptions are confined to.
#[derive(Debug, Clone)]
struct Region {
    /// The section's tag (`header` for the file header).
    tag: String,
    /// The section header's offset (0 for the file header).
    head: usize,
    in_header: bool,
    start: usize,
    end: usize,
}

fn original() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| to_bytes(&sample(N)).unwrap())
}

/// The file header, then each section's header and payload.
fn regions(bytes: &[u8]) -> Vec<Region> {
    let mut out = vec![Region { tag: "header".into(), head: 0, in_header: true, start: 0, end: HEADER_LEN }];
    for s in list_sections(bytes).unwrap() {
        let (head, payload) = (s.offset as usize, s.offset as usize + SECTION_HEADER_LEN);
        let end = payload + s.payload_bytes as usize;
        out.push(Region { tag: s.tag.clone(), head, in_header: true, start: head, end: payload });
        out.push(Region { tag: s.tag, head, in_header: false, start: payload, end });
    }
    out
}

/// The bytes the writer gives for what the reader read from `file`: `TOWN`'s highway flags as
/// 0 or 1.
fn canonical(file: &[u8]) -> Vec<u8> {
    let mut out = file.to_vec();
    if let Some(t) = list_sections(file).unwrap().iter().find(|s| s.tag == "TOWN") {
        let p = t.offset as usize + SECTION_HEADER_LEN;
        for k in 0..(t.payload_bytes as usize).saturating_sub(4) / TOWN_RECORD_LEN {
            let at = p + 4 + k * TOWN_RECORD_LEN + 9;
            out[at] = (out[at] != 0) as u8;
        }
    }
    out
}

/// Payload ranges (from the payload's start) that must be refused when changed: versions read as
/// a format promise and record counts.
fn must_refuse(tag: &str) -> &'static [(usize, usize)] {
    match tag {
        "PRMS" => &[(0, 2)],
        "TOWN" | "WBTB" => &[(0, 4)],
        "RIVR" => &[(2 + RIVR_DIALS_LEN, 2 + RIVR_DIALS_LEN + 4)],
        "ROAD" | "DIAL" => &[(2, 6)],
        _ => &[],
    }
}

/// Whether `file`'s section at `r` is a `TDTL` or `EROS` whose payload grew past the original's
/// and still reads as the original's metadata: SPEC §1.4 reads a known version by its layout and
/// ignores the bytes past it.
fn read_by_layout(r: &Region, file: &[u8], bp: &Blueprint) -> bool {
    let payload = |bytes: &[u8]| {
        list_sections(bytes).ok()?.into_iter().find(|s| s.offset as usize == r.head).map(|s| s.payload_bytes)
    };
    let grew = matches!((payload(file), payload(original())), (Some(now), Some(was)) if now > was);
    let orig = read_bytes(original()).expect("the original reads");
    grew && match r.tag.as_str() {
        "TDTL" => bp.detail == orig.detail,
        "EROS" => bp.erosion == orig.erosion,
        _ => false,
    }
}

/// Judge reading `file`, which differs from the original only inside `r`, by the module's rule.
fn judge(r: &Region, file: &[u8]) -> Result<(), String> {
    let orig = original();
    let changed: Vec<usize> = (r.start..r.end).filter(|&i| file[i] != orig[i]).collect();
    if changed.is_empty() {
        return Ok(());
    }
    let hit = |a: usize, b: usize| changed.iter().any(|&i| (r.start + a..r.start + b).contains(&i));
    let version_changed =
        !r.in_header && ["TDTL", "EROS", "RIVR", "ROAD", "DIAL"].contains(&r.tag.as_str()) && hit(0, 2);
    let ctx = format!("{} {} bytes {changed:?}", r.tag, if r.in_header { "header" } else { "payload" });
    match read_bytes(file) {
        Err(e) => {
            let line = e.to_string();
            let named = e.section_name();
            if line.contains('\n') || !line.starts_with(&format!("{named} at byte {}: ", e.offset)) {
                return Err(format!("{ctx}: not one line naming section and byte: {line:?}"));
            }
            if e.offset > file.len() as u64 {
                return Err(format!("{ctx}: offset past the file: {line}"));
            }
            if !r.in_header {
                let by_rivr = r.tag == "PRMS" && named == "RIVR";
                let refuser = regions(file).into_iter().find(|x| !x.in_header && x.tag == named);
                let inside = refuser.is_some_and(|x| (x.start as u64..=x.end as u64).contains(&e.offset));
                if !(named == r.tag || by_rivr) || !inside {
                    return Err(format!("{ctx}: refused by another section or outside its payload: {line}"));
                }
            }
            Ok(())
        }
        Ok(bp) => {
            let fail = |why: &str| Err(format!("{ctx}: accepted, but {why}"));
            if !r.in_header && !version_changed && must_refuse(&r.tag).iter().any(|&(a, b)| hit(a, b)) {
                return fail("a version or a record count changed");
            }
            let Ok(written) = to_bytes(&bp) else { return fail("the writer refuses the model") };
            let tag_only = r.in_header && r.tag != "header" && changed.iter().all(|&i| i < r.head + 4);
            if version_changed || tag_only {
                let Ok(expected) = read_bytes(&remove_section(orig, r.tag.as_bytes().try_into().unwrap())) else {
                    return fail("the file without this section is refused");
                };
                let mut got = bp.clone();
                got.warnings.clear();
                if got != expected || bp.warnings.len() != expected.warnings.len() + 1 {
                    return fail("the model is not the original less this section, with one warning");
                }
                return Ok(());
            }
            if r.in_header && r.tag != "header" {
                let again = read_bytes(&written).map_err(|e| format!("{ctx}: the rewrite is refused: {e}"))?;
                if to_bytes(&again).ok().as_deref() != Some(&written[..]) {
                    return fail("a changed length does not round-trip");
                }
                // Silently accepted only where the new length frames a valid file: a `TCRV` body
                // (kept as read, any length) that now ends where a later section starts writes
                // back exactly; a `TDTL` or `EROS` payload grown over the sections after it is read
                // by its version's layout, the rest ignored (SPEC §1.4).
                if bp.warnings.is_empty() && written != canonical(file) && !read_by_layout(r, file, &bp) {
                    return fail("a changed length gave no warning and does not write back to the corrupted bytes");
                }
                return Ok(());
            }
            if !bp.warnings.is_empty() || written != canonical(file) {
                return fail("the model does not write back to the corrupted bytes");
            }
            Ok(())
        }
    }
}

/// Every byte of every header and small section, and the ends of each grid, at four values.
#[test]
fn corrupting_any_byte_of_any_section_is_refused_or_read_exactly() {
    let orig = original();
    let mut tried = 0;
    let mut refused = std::collections::BTreeMap::<String, (usize, usize)>::new();
    for r in regions(orig) {
        let grid = !r.in_header && ["HGTS", "BIOM", "WBID", "WSRF"].contains(&r.tag.as_str());
        let positions: Vec<usize> =
            if grid { (r.start..r.start + 64).chain(r.end - 64..r.end).collect() } else { (r.start..r.end).collect() };
        for i in positions {
            for v in [0x00, 0xFF, orig[i] ^ 0x01, orig[i] ^ 0x80] {
                let mut file = orig.to_vec();
                file[i] = v;
                if let Err(why) = judge(&r, &file) {
                    panic!("{why}");
                }
                tried += 1;
                let e = refused.entry(format!("{} {}", r.tag, if r.in_header { "head" } else { "body" })).or_default();
                e.0 += 1;
                e.1 += read_bytes(&file).is_err() as usize;
            }
        }
    }
    eprintln!("{tried} corruptions; tried and refused per region: {refused:?}");
    assert!(tried > 3000, "{tried}");
    // Every section with checks on its values refuses some of its corruptions (they are reached;
    // TCRV, TDTL, EROS, WBID and WSRF hold plain data).
    for t in ["PRMS", "TOWN", "WBTB", "RIVR", "ROAD", "HGTS", "BIOM"] {
        let (n, bad) = refused[&format!("{t} body")];
        assert!(bad > 0, "{t}: none of {n} corruptions refused");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    /// One to four bytes of one region (a header or a payload, of a section chosen uniformly, so
    /// the small sections get as many as the grids), at random offsets and values.
    #[test]
    fn corrupting_bytes_of_one_section_is_refused_or_read_exactly(
        which in any::<prop::sample::Index>(),
        hits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..=4),
    ) {
        let orig = original();
        let rs = regions(orig);
        let r = which.get(&rs);
        let mut file = orig.to_vec();
        for (at, v) in &hits {
            file[r.start + at.index(r.end - r.start)] = *v;
        }
        if let Err(why) = judge(r, &file) {
            prop_assert!(false, "{}", why);
        }
    }
}
