//! Standard CRC-32 (zlib / ANSI: reflected polynomial 0xEDB88320, init and final XOR 0xFFFFFFFF).
//!
//! The reference game hashes a string noise seed (`seed1 = 'nauvis_offset_x'`) to a u32 with this
//! exact function (the reference's cliff notes: its shipped lookup table starts 0, 0x77073096, 0xEE0E612C).

/// The reflected zlib polynomial.
const POLY: u32 = 0xEDB8_8320;

/// The byte-at-a-time lookup table, built at compile time.
const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// CRC-32 of `bytes`, as zlib's `crc32(0, bytes, len)` computes it.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c = TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

/// The lookup table's first entries, exposed so a test can pin them against zlib's.
pub fn table_entry(i: u8) -> u32 {
    TABLE[i as usize]
}
