//! The crossing rule (SPEC §6, the reference game's `crossesCliff`): whether the cliff band boundary
//! nearest below the higher corner lies strictly between an edge's two corners, and which way.

/// Signed crossing of the edge from corner `a` to corner `b`: `+1` when the ground rises across a
/// band boundary from `a` to `b`, `−1` when it falls, `0` for none.
///
/// - none if `a < 0` or `b < 0`;
/// - `boundary = e0 + interval·floor((max(a, b) − e0)/interval)`; none if `boundary < e0`;
/// - `dA = a − boundary`, `dB = b − boundary`; only when the corners' average cliffiness is
///   above 0.5: `+1` when `dA < 0 < dB`, `−1` when `dA > 0 > dB`.
#[inline]
pub fn crosses_cliff(a: f32, b: f32, cliffiness_avg: f32, elevation_0: f32, interval: f32) -> i8 {
    if a < 0.0 || b < 0.0 {
        return 0;
    }
    let boundary = elevation_0 + interval * ((a.max(b) - elevation_0) / interval).floor();
    if boundary < elevation_0 {
        return 0;
    }
    let (da, db) = (a - boundary, b - boundary);
    if cliffiness_avg > 0.5 {
        if da < 0.0 && db > 0.0 {
            return 1;
        }
        if da > 0.0 && db < 0.0 {
            return -1;
        }
    }
    0
}
