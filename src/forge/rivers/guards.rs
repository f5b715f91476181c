//! The guards (step 5) run on every forge: what the river stage may not change (the ocean, the
//! below-sea pixels, the crater core) is digested before and checked after.

#![allow(clippy::needless_range_loop)]

use super::*;

/// What the guards compare against: the state before the river stage. The ocean's pixels and the
/// below-sea heights are kept as digests (a 64-bit mix of every index and value), not copies: the
/// sea is most of the map.
pub(super) struct Snapshot {
    pub(super) ocean: Option<WaterBody>,
    pub(super) ocean_digest: u64,
    pub(super) below_sea_digest: u64,
    pub(super) core: Vec<(u32, u32, u16)>,
}

/// Order-dependent 64-bit digest of `(index, value)` pairs (splitmix64 steps).
pub(super) fn digest(pairs: impl Iterator<Item = (usize, u32)>) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    pairs.fold(0x9e37_79b9_7f4a_7c15, |h, (i, v)| mix(h ^ mix(((i as u64) << 32) | v as u64)))
}

pub(super) fn ocean_digest(water: &Water) -> u64 {
    digest(water.body_ids.iter().enumerate().filter(|(_, id)| **id == OCEAN_BODY_ID).map(|(i, _)| (i, 1)))
}

/// Every below-sea pixel's height and body id.
pub(super) fn below_sea_digest(render: &[f32], ids: &[u16], sea: f32) -> u64 {
    digest(
        render
            .iter()
            .zip(ids)
            .enumerate()
            .filter(|(_, (h, _))| **h < sea)
            .flat_map(|(i, (h, id))| [(i, h.to_bits()), (i, *id as u32)]),
    )
}

impl Snapshot {
    pub(super) fn take(inp: &Inputs<'_>, render: &[f32], water: &Water) -> Self {
        let core = core_pixels(inp).into_iter().map(|i| (i as u32, render[i].to_bits(), water.body_ids[i])).collect();
        Self {
            ocean: water.ocean().copied(),
            ocean_digest: ocean_digest(water),
            below_sea_digest: below_sea_digest(render, &water.body_ids, inp.sea),
            core,
        }
    }
}

/// The crater core's pixels (the carve's extent), in scan order.
pub(super) fn core_pixels(inp: &Inputs<'_>) -> Vec<usize> {
    let n = inp.n;
    let Some(c) = inp.crater else { return Vec::new() };
    let r = c.radius_px * CARVE_FACTOR;
    let mut v = Vec::new();
    let (x0, x1) = ((c.x - r).floor().max(0.0) as usize, ((c.x + r).ceil() as usize).min(n - 1));
    let (y0, y1) = ((c.y - r).floor().max(0.0) as usize, ((c.y + r).ceil() as usize).min(n - 1));
    for x in x0..=x1 {
        for y in y0..=y1 {
            if c.distance(x, y) <= r {
                v.push(x * n + y);
            }
        }
    }
    v
}

/// What the river stage may not change (SPEC §2's guards on the maps): taken before the stage
/// and checked after it. The forge runs it on every island; it is public so that a map the stage
/// never produces (a changed ocean, sea floor or crater core, a town on water) can be handed to it.
pub struct RiverGuard(Snapshot);

impl RiverGuard {
    /// Digest the ocean, the below-sea heights and the crater core of `render` and `water`.
    pub fn take(site: &Inputs<'_>, render: &[f32], water: &Water) -> Self {
        Self(Snapshot::take(site, render, water))
    }

    /// The guards on the maps after the stage (all but the courses' own profile): rivers are the
    /// bodies from `first_river` on. A violation is an error naming the guard.
    pub fn check(
        &self,
        site: &Inputs<'_>,
        render: &[f32],
        water: &Water,
        biomes: &[u8],
        first_river: u16,
    ) -> anyhow::Result<()> {
        check_maps(site, &self.0, render, water, biomes, first_river)
    }
}

/// The guards (SPEC §2), on every run: a violation is an internal failure.
pub(super) fn check(
    inp: &Inputs<'_>,
    before: &Snapshot,
    render: &[f32],
    water: &Water,
    biomes: &[u8],
    net: &RiverNetwork,
    carved: &[Carved],
) -> anyhow::Result<()> {
    check_courses(inp, net, carved)?;
    check_maps(inp, before, render, water, biomes, net.first_body_id())
}

/// Guard 2: bed and level monotone along every course, the level at least the minimum depth up.
fn check_courses(inp: &Inputs<'_>, net: &RiverNetwork, carved: &[Carved]) -> anyhow::Result<()> {
    use anyhow::ensure;
    let min_depth = net.dials.min_depth_m / inp.mpr;
    for c in carved {
        for w in c.bed.windows(2) {
            ensure!(w[1] <= w[0], "river guard: body {}'s bed rises toward its mouth", c.body_id);
        }
        for w in c.surface.windows(2) {
            ensure!(w[1] <= w[0], "river guard: body {}'s level rises toward its mouth", c.body_id);
        }
        for (i, (&s, &b)) in c.surface.iter().zip(&c.bed).enumerate() {
            ensure!(
                s >= b + min_depth * 0.999,
                "river guard: body {} is {:.2} m deep at point {i}, under the minimum",
                c.body_id,
                (s - b) * inp.mpr
            );
        }
    }
    Ok(())
}

/// Guards 1 and 3–5, on the maps alone.
fn check_maps(
    inp: &Inputs<'_>,
    before: &Snapshot,
    render: &[f32],
    water: &Water,
    biomes: &[u8],
    first_river: u16,
) -> anyhow::Result<()> {
    use anyhow::ensure;
    let n = inp.n;
    // 1. The ocean body and every below-sea pixel as they were.
    ensure!(water.ocean().copied() == before.ocean, "river guard: the ocean body's WBTB record changed");
    ensure!(ocean_digest(water) == before.ocean_digest, "river guard: the ocean's pixels changed");
    ensure!(
        below_sea_digest(render, &water.body_ids, inp.sea) == before.below_sea_digest,
        "river guard: a below-sea pixel changed or appeared"
    );
    // 3. No town on water.
    for t in inp.towns {
        let (x, y) = ((t.x.round() as usize).min(n - 1), (t.y.round() as usize).min(n - 1));
        ensure!(water.body_ids[x * n + y] == 0, "river guard: the town at ({}, {}) is on water", t.x, t.y);
    }
    // 4. The crater core untouched.
    for &(i, h, id) in &before.core {
        let i = i as usize;
        ensure!(render[i].to_bits() == h && water.body_ids[i] == id, "river guard: the crater core changed");
    }
    // 5. Water in BIOM exactly where WBID says so, and every river pixel's level above its ground.
    let surface = water.surface.as_deref().unwrap_or(&[]);
    for i in 0..n * n {
        let id = water.body_ids[i];
        let water_biome = biomes[i] == Biome::Ocean as u8 || biomes[i] == Biome::Lake as u8;
        ensure!(water_biome == (id != 0), "river guard: BIOM and WBID disagree at pixel {i}");
    }
    for i in 0..n * n {
        if water.body_ids[i] >= first_river {
            let l = water_level::decode(surface[i]).unwrap_or(f32::NAN);
            ensure!(l > render[i], "river guard: a river pixel's level is not above its ground");
        }
    }
    Ok(())
}
