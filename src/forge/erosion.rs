//! Optional droplet hydraulic erosion on the render map (off by default).
//!
//! Each droplet spawns on land (weighted toward high ground), walks downhill with inertia, erodes
//! where it is fast and under capacity and deposits where it slows or climbs, both over one cone
//! brush. Four hard governors bound it: droplet count, lifetime, a carve cap and a deposit cap,
//! both caps per cell against one net-displacement ledger and checked on exit. The flood guard:
//! below-sea cells and every water or shore cell of the classification are read-only, nothing is
//! carved below sea + margin, and the count of below-sea render pixels is compared before and
//! after (a change refuses to generate). The crater core (≥ the carve's 0.8 × radius) is never
//! touched, so erosion and the carve write disjoint cells.
//!
//! Droplets run sequentially from a PCG32 stream seeded by `seed + SEED_OFFSET`: the result does
//! not depend on the thread count.

use super::crater::{CARVE_FACTOR, Crater};
use crate::blueprint::ErosionMeta;

/// Decorrelates the droplet stream from every noise field.
pub const SEED_OFFSET: i32 = 9271;
const SPAWN_TRIES: u32 = 16;
const SPAWN_FLOOR: f32 = 0.15;
const MIN_WATER: f32 = 0.005;
const MIN_DIR: f32 = 1e-10;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ErosionDials {
    /// Governor 1: droplets in all.
    pub droplet_count: u32,
    /// Governor 2: most steps per droplet.
    pub lifetime: u32,
    /// Governor 3: most metres any cell is carved below the height the pass found.
    pub carve_cap_m: f32,
    /// Governor 4: most metres any cell is built up.
    pub deposit_cap_m: f32,
    /// Flood guard: nothing is carved below sea + this, metres.
    pub sea_margin_m: f32,
    pub brush_radius: u32,
    pub inertia: f32,
    pub capacity_factor: f32,
    /// Capacity slope floor, metres per pixel.
    pub min_slope_m: f32,
    pub erode_rate: f32,
    pub deposit_rate: f32,
    pub evaporation: f32,
    pub gravity: f32,
    /// Nothing inside this × crater radius is modified (clamped up to the carve's 0.8).
    pub crater_core_factor: f32,
    /// Erosion ramps from 0 at the core to full at this × crater radius (feather mode).
    pub crater_feather_factor: f32,
    /// Feather (true) or full strength right outside the core (false).
    pub crater_feather: bool,
}

impl ErosionDials {
    /// Defaults for a map of `size`²: one droplet per eight pixels.
    pub fn new(size: u32) -> Self {
        Self {
            droplet_count: ((size as u64 * size as u64) / 8).min(50_000_000) as u32,
            lifetime: 80,
            carve_cap_m: 6.0,
            deposit_cap_m: 3.0,
            sea_margin_m: 0.5,
            brush_radius: 2,
            inertia: 0.35,
            capacity_factor: 4.0,
            min_slope_m: 0.02,
            erode_rate: 0.15,
            deposit_rate: 0.15,
            evaporation: 0.01,
            gravity: 4.0,
            crater_core_factor: CARVE_FACTOR,
            crater_feather_factor: 1.05,
            crater_feather: true,
        }
    }
}

/// The `EROS` v3 record, as applied: the dials with the droplet stream's seed offset, the crater
/// factors clamped as the pass applies them and the feather flag as the crater mode.
impl From<&ErosionDials> for ErosionMeta {
    fn from(e: &ErosionDials) -> Self {
        let core = e.crater_core_factor.max(CARVE_FACTOR);
        ErosionMeta {
            droplet_count: e.droplet_count as i32,
            lifetime: e.lifetime as i32,
            brush_radius: e.brush_radius as i32,
            seed_offset: SEED_OFFSET,
            carve_cap_m: e.carve_cap_m,
            deposit_cap_m: e.deposit_cap_m,
            sea_margin_m: e.sea_margin_m,
            inertia: e.inertia,
            capacity_factor: e.capacity_factor,
            min_slope_m: e.min_slope_m,
            erode_rate: e.erode_rate,
            deposit_rate: e.deposit_rate,
            evaporation: e.evaporation,
            gravity: e.gravity,
            crater_core_factor: core,
            crater_feather_factor: e.crater_feather_factor.max(core),
            crater_mode: e.crater_feather as u8,
        }
    }
}

/// PCG32 (O'Neill), the XSH-RR variant.
struct Pcg32 {
    state: u64,
    inc: u64,
}

impl Pcg32 {
    fn new(seed: u64, stream: u64) -> Self {
        let mut r = Self { state: 0, inc: (stream << 1) | 1 };
        r.next_u32();
        r.state = r.state.wrapping_add(seed);
        r.next_u32();
        r
    }
    fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }
    /// Uniform in [0, 1).
    fn next_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// What the pass did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ErosionStats {
    pub spawned: u32,
    pub skipped_no_land: u32,
    pub steps: u64,
    pub eroded_m3: f64,
    pub deposited_m3: f64,
    pub max_cell_carve_m: f32,
    pub max_cell_deposit_m: f32,
    pub wet_before: u64,
    pub wet_after: u64,
}

fn below_sea_count(h: &[f32], sea: f32) -> u64 {
    h.iter().filter(|&&v| v < sea).count() as u64
}

/// Cone brush, weights normalised to 1: built once per pass, apart from the droplet walk that reads it.
fn cone_brush(radius: u32) -> Vec<(i32, i32, f32)> {
    let r = radius as i32;
    let mut brush: Vec<(i32, i32, f32)> = Vec::new();
    for dx in -r..=r {
        for dy in -r..=r {
            let d = ((dx * dx + dy * dy) as f32).sqrt();
            if d <= r as f32 {
                brush.push((dx, dy, 1.0 - d / (r as f32 + 1.0)));
            }
        }
    }
    let wsum: f32 = brush.iter().map(|b| b.2).sum();
    for b in &mut brush {
        b.2 /= wsum;
    }
    brush
}

/// Crater weight: 0 inside the core, ramping to 1 at the feather radius (or 1 at once); shared by every droplet.
struct CraterWeight<'a> {
    crater: Option<&'a Crater>,
    core: f32,
    feather: f32,
    /// `ErosionDials::crater_feather`: ramp (true) or full strength right outside the core.
    ramp: bool,
}

impl<'a> CraterWeight<'a> {
    /// The core and feather radii as applied (the `EROS` record's clamped factors), worked out once per pass.
    fn new(crater: Option<&'a Crater>, meta: &ErosionMeta, ramp: bool) -> Self {
        let core = crater.map(|c| c.radius_px * meta.crater_core_factor).unwrap_or(0.0);
        let feather = crater.map(|c| c.radius_px * meta.crater_feather_factor).unwrap_or(0.0);
        Self { crater, core, feather, ramp }
    }

    /// The weight of cell `(x, y)`, 1 everywhere when there is no crater; one call per brush cell.
    fn at(&self, x: usize, y: usize) -> f32 {
        let Some(c) = self.crater else { return 1.0 };
        let d = c.distance(x, y);
        if d < self.core {
            0.0
        } else if !self.ramp || d >= self.feather || self.feather <= self.core {
            1.0
        } else {
            (d - self.core) / (self.feather - self.core)
        }
    }
}

/// Bilinear height and gradient `(h, ∂h/∂x, ∂h/∂y)` at `(x, y)` (X-outer): every droplet step samples twice.
fn sample(h: &[f32], n: usize, x: f32, y: f32) -> (f32, f32, f32) {
    let (xi, yi) = (x as usize, y as usize);
    let (fx, fy) = (x - xi as f32, y - yi as f32);
    let i = xi * n + yi;
    let (h00, h10, h01, h11) = (h[i], h[i + n], h[i + 1], h[i + n + 1]);
    let gx = (h10 - h00) * (1.0 - fy) + (h11 - h01) * fy;
    let gy = (h01 - h00) * (1.0 - fx) + (h11 - h10) * fx;
    let hv = h00 * (1.0 - fx) * (1.0 - fy) + h10 * fx * (1.0 - fy) + h01 * (1.0 - fx) * fy + h11 * fx * fy;
    (hv, gx, gy)
}

/// What every droplet of one pass reads (dials, geometry, derived constants), passed as one argument.
struct Pass<'a> {
    p: &'a ErosionDials,
    n: usize,
    locked: &'a [bool],
    brush: Vec<(i32, i32, f32)>,
    crater_w: CraterWeight<'a>,
    sea: f32,
    mpr: f32,
    mpp: f32,
    /// The highest render height (at least sea), for the spawn weighting.
    top: f32,
    /// Nothing is carved below this raw height (sea + margin).
    floor_raw: f32,
    /// A droplet stops once it reaches this coordinate (or falls below 1) on either axis.
    edge: f32,
}

/// One droplet's spawn point (land, weighted toward high ground), `None` if every try fails; the spawn's RNG calls.
fn spawn(pass: &Pass<'_>, rng: &mut Pcg32, render: &[f32]) -> Option<(f32, f32)> {
    let (n, sea, top) = (pass.n, pass.sea, pass.top);
    for _ in 0..SPAWN_TRIES {
        let sx = 1.0 + rng.next_f32() * (n - 3) as f32;
        let sy = 1.0 + rng.next_f32() * (n - 3) as f32;
        let h = render[sx as usize * n + sy as usize];
        if h < sea {
            continue;
        }
        let rel = if top > sea { ((h - sea) / (top - sea)).clamp(0.0, 1.0) } else { 0.0 };
        if rng.next_f32() < SPAWN_FLOOR + (1.0 - SPAWN_FLOOR) * rel {
            return Some((sx, sy));
        }
    }
    None
}

/// Simulate one spawned droplet's whole walk (erode, deposit, stop), apart from the spawn loop and the checks.
fn simulate_droplet(
    pass: &Pass<'_>,
    rng: &mut Pcg32,
    render: &mut [f32],
    net: &mut [f32],
    st: &mut ErosionStats,
    (mut px, mut py): (f32, f32),
) {
    let (p, n, sea, mpr, edge) = (pass.p, pass.n, pass.sea, pass.mpr, pass.edge);
    let (mut dx, mut dy, mut speed, mut water, mut sediment_m) = (0f32, 0f32, 1f32, 1f32, 0f32);
    for _ in 0..p.lifetime {
        st.steps += 1;
        let (xi, yi) = (px as usize, py as usize);
        let (h_old, gx, gy) = sample(render, n, px, py);
        dx = dx * p.inertia - gx * (1.0 - p.inertia);
        dy = dy * p.inertia - gy * (1.0 - p.inertia);
        let mut len = (dx * dx + dy * dy).sqrt();
        if len < MIN_DIR {
            let a = rng.next_f32() * std::f32::consts::TAU;
            (dx, dy, len) = (a.cos(), a.sin(), 1.0);
        }
        dx /= len;
        dy /= len;
        px += dx;
        py += dy;
        if px < 1.0 || px >= edge || py < 1.0 || py >= edge {
            break;
        }
        let (h_new, _, _) = sample(render, n, px, py);
        if h_new < sea {
            break; // reached the sea: the sediment is the ocean's now
        }
        let dh_m = (h_new - h_old) * mpr;
        let capacity_m = (-dh_m).max(p.min_slope_m) * speed * water * p.capacity_factor;
        let depositing = dh_m > 0.0 || sediment_m > capacity_m;
        let amount_m = if depositing {
            if dh_m > 0.0 { dh_m.min(sediment_m) } else { (sediment_m - capacity_m) * p.deposit_rate }
        } else {
            ((capacity_m - sediment_m) * p.erode_rate).min(-dh_m)
        };
        if amount_m > 0.0 {
            apply_brush(pass, render, net, st, (xi, yi), depositing, amount_m, &mut sediment_m);
        }
        speed = (speed * speed - dh_m * p.gravity).max(0.0).sqrt();
        water *= 1.0 - p.evaporation;
        if water < MIN_WATER {
            break;
        }
    }
}

/// Spread one step's carve or deposit over the brush around `(xi, yi)`: where the caps and flood guard apply.
#[allow(clippy::too_many_arguments)]
fn apply_brush(
    pass: &Pass<'_>,
    render: &mut [f32],
    net: &mut [f32],
    st: &mut ErosionStats,
    (xi, yi): (usize, usize),
    depositing: bool,
    amount_m: f32,
    sediment_m: &mut f32,
) {
    let (p, n, sea, mpr, mpp, floor_raw) = (pass.p, pass.n, pass.sea, pass.mpr, pass.mpp, pass.floor_raw);
    for &(bx, by, w) in &pass.brush {
        let (cx, cy) = (xi as i32 + bx, yi as i32 + by);
        if cx < 0 || cy < 0 || cx >= n as i32 || cy >= n as i32 {
            continue;
        }
        let (cx, cy) = (cx as usize, cy as usize);
        let i = cx * n + cy;
        let h = render[i];
        if pass.locked[i] || h < sea {
            continue; // water, shore and below-sea cells are read-only both ways
        }
        let wc = pass.crater_w.at(cx, cy);
        if wc <= 0.0 {
            continue;
        }
        if depositing {
            let give = (amount_m * w * wc).min((p.deposit_cap_m + net[i]).max(0.0));
            if give <= 0.0 {
                continue;
            }
            render[i] = h + give / mpr;
            net[i] -= give;
            st.max_cell_deposit_m = st.max_cell_deposit_m.max(-net[i]);
            *sediment_m -= give;
            st.deposited_m3 += (give * mpp * mpp) as f64;
        } else {
            let by_sea = ((h - floor_raw) * mpr).max(0.0);
            let by_cap = (p.carve_cap_m - net[i]).max(0.0);
            let take = (amount_m * w * wc).min(by_sea).min(by_cap);
            if take <= 0.0 {
                continue;
            }
            render[i] = (h - take / mpr).max(floor_raw);
            net[i] += take;
            st.max_cell_carve_m = st.max_cell_carve_m.max(net[i]);
            *sediment_m += take;
            st.eroded_m3 += (take * mpp * mpp) as f64;
        }
    }
}

/// Erode the render map in place. `locked[i]` marks cells the pass must never modify (water, shore).
#[allow(clippy::too_many_arguments)]
pub fn erode(
    p: &ErosionDials,
    seed: i32,
    n: usize,
    render: &mut [f32],
    locked: &[bool],
    crater: Option<&Crater>,
    sea: f32,
    mpr: f32,
    mpp: f32,
) -> anyhow::Result<ErosionStats> {
    let mut st = ErosionStats { wet_before: below_sea_count(render, sea), ..Default::default() };
    if n < 8 || p.droplet_count == 0 || p.lifetime == 0 {
        st.wet_after = st.wet_before;
        return Ok(st);
    }
    let meta = ErosionMeta::from(p);
    let mut rng = Pcg32::new(seed.wrapping_add(SEED_OFFSET) as u32 as u64, 0x1517_A0E5);
    let mut net = vec![0f32; n * n];
    let pass = Pass {
        p,
        n,
        locked,
        brush: cone_brush(p.brush_radius),
        crater_w: CraterWeight::new(crater, &meta, p.crater_feather),
        sea,
        mpr,
        mpp,
        top: render.iter().copied().fold(sea, f32::max),
        floor_raw: sea + p.sea_margin_m / mpr,
        edge: (n - 2) as f32,
    };
    for _ in 0..p.droplet_count {
        let Some(start) = spawn(&pass, &mut rng, render) else {
            st.skipped_no_land += 1;
            continue;
        };
        st.spawned += 1;
        simulate_droplet(&pass, &mut rng, render, &mut net, &mut st, start);
    }
    anyhow::ensure!(
        st.max_cell_carve_m <= p.carve_cap_m * (1.0 + 1e-5),
        "erosion: CARVE-CAP VIOLATION: a cell was carved {} m against a cap of {} m; refusing to generate",
        st.max_cell_carve_m,
        p.carve_cap_m
    );
    anyhow::ensure!(
        st.max_cell_deposit_m <= p.deposit_cap_m * (1.0 + 1e-5),
        "erosion: DEPOSIT-CAP VIOLATION: a cell was built up {} m against a cap of {} m; refusing to generate",
        st.max_cell_deposit_m,
        p.deposit_cap_m
    );
    st.wet_after = below_sea_count(render, sea);
    anyhow::ensure!(
        st.wet_after == st.wet_before,
        "erosion: FLOOD-GUARD VIOLATION: below-sea render pixels {} -> {}; refusing to generate",
        st.wet_before,
        st.wet_after
    );
    Ok(st)
}
