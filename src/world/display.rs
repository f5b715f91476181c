//! Which nodes are on screen while the level-of-detail tree streams (SPEC §3 "Swaps"): the
//! target wherever every node that replaces a displayed one is built, else what was displayed —
//! so streaming never opens a hole — with at most a given number of replacements a frame. A pure
//! rule: the app's world server applies it each frame; tests reach it without Bevy.
//!
//! The crack rule across the old screen and the new target: no two nodes on screen that share a
//! border are two levels or more apart (a replacement that would make such a pair waits), and
//! each node's [`border_pins`] say which of its borders meet a coarser or a finer node, so its
//! border vertices morph fully to the coarser surface (or not at all) whatever the camera's
//! distance says. Within one selection the distances already agree; a node kept from the last
//! screen is where they do not.

use super::lod::{LodTree, NodeId};
use std::collections::HashSet;

/// The nodes to show this frame: the target where every part of it is built, else what was on
/// screen. A partition of the world whenever `displayed` was one.
pub fn display_set(
    tree: &LodTree,
    target: &[NodeId],
    resident: &dyn Fn(NodeId) -> bool,
    kept: &dyn Fn(NodeId) -> bool,
    displayed: &HashSet<NodeId>,
    max_swaps: usize,
) -> Vec<NodeId> {
    let target_set: HashSet<NodeId> = target.iter().copied().collect();
    let ancestors = |set: &mut HashSet<NodeId>, nodes: &mut dyn Iterator<Item = NodeId>| {
        for mut n in nodes {
            while n.level < tree.top_level {
                n = n.parent();
                if !set.insert(n) {
                    break;
                }
            }
        }
    };
    let mut target_inner = HashSet::new();
    ancestors(&mut target_inner, &mut target.iter().copied());
    let mut old_inner = HashSet::new();
    ancestors(&mut old_inner, &mut displayed.iter().copied());
    let mut ctx = Ctx { tree, target_set, target_inner, old_inner, resident, kept, displayed, hold: HashSet::new() };
    // What every replacement built this frame gives, each waiting as the crack rule asks: the
    // screen a budget of swaps moves towards. Its holds stand under a budget too, so a budget
    // never makes a replacement the unbounded screen would not.
    let (unbounded, _) = settle(&mut ctx, usize::MAX);
    if max_swaps == 0 {
        return unbounded;
    }
    let (first, budget_spent) = ctx.run(max_swaps);
    let (out, _) = settle(&mut ctx, max_swaps);
    // Waiting for builds ends (every replacement gets built); waiting under a spent swap budget
    // might not (two neighbours, each waiting on the other, one swap a frame). So when the budget
    // was spent and waiting would leave the screen as it was, the replacements go ahead.
    let unchanged = out.len() == displayed.len() && out.iter().all(|n| displayed.contains(n));
    if budget_spent && unchanged {
        return first;
    }
    out
}

/// The screen `ctx` gives with `budget` swaps, its holds grown until no replacement puts a new
/// node two levels or more from a neighbour (or no hold helps); and whether the budget was spent.
fn settle(ctx: &mut Ctx, budget: usize) -> (Vec<NodeId>, bool) {
    let (mut out, mut spent) = ctx.run(budget);
    for _ in 0..16 {
        let mut grew = false;
        for (a, b) in gaps(ctx.tree, &out) {
            for n in [a, b] {
                if !ctx.displayed.contains(&n) {
                    for h in swap_chain(ctx.tree, n) {
                        grew |= ctx.hold.insert(h);
                    }
                }
            }
        }
        if !grew {
            break;
        }
        (out, spent) = ctx.run(budget);
    }
    (out, spent)
}

/// The nodes at which a replacement may have brought `n` on screen: `n` and every ancestor (a
/// replacement happens at the highest node whose whole cover is built). Holding them makes the
/// visit descend to `n`'s region and keep what was on screen there — the old node that held it,
/// kept whole, or the old nodes inside it; the replacements of their other descendants still go
/// ahead at those descendants.
fn swap_chain(tree: &LodTree, n: NodeId) -> Vec<NodeId> {
    let mut chain = vec![n];
    let mut a = n;
    while a.level < tree.top_level {
        a = a.parent();
        chain.push(a);
    }
    chain
}

/// The node of `shown` (a partition of the world) covering chunk `(x, z)`, if any.
fn covering(tree: &LodTree, shown: &HashSet<NodeId>, x: i32, z: i32) -> Option<NodeId> {
    (0..=tree.top_level).map(|l| NodeId::new(l, x >> l, z >> l)).find(|n| shown.contains(n))
}

/// Which side of a node: `0` its low-x border, `1` high x, `2` low z, `3` high z.
pub const SIDES: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// The nodes across side `side` of `n` in `shown` (a partition), each once.
fn across(tree: &LodTree, shown: &HashSet<NodeId>, n: NodeId, side: usize) -> Vec<NodeId> {
    let [x0, z0, x1, z1] = n.chunk_rect();
    let per_side = tree.layout.chunks_per_side as i32;
    let (dx, dz) = SIDES[side];
    let mut out: Vec<NodeId> = Vec::new();
    let cells: Box<dyn Iterator<Item = (i32, i32)>> = match (dx, dz) {
        (-1, _) => Box::new((z0..z1.min(per_side)).map(move |z| (x0 - 1, z))),
        (1, _) => Box::new((z0..z1.min(per_side)).map(move |z| (x1, z))),
        (_, -1) => Box::new((x0..x1.min(per_side)).map(move |x| (x, z0 - 1))),
        _ => Box::new((x0..x1.min(per_side)).map(move |x| (x, z1))),
    };
    for (x, z) in cells {
        if x < 0 || z < 0 || x >= per_side || z >= per_side {
            continue;
        }
        if let Some(m) = covering(tree, shown, x, z)
            && !out.contains(&m)
        {
            out.push(m);
        }
    }
    out
}

/// Pairs of nodes on screen that share a border and are two levels or more apart (finer first).
fn gaps(tree: &LodTree, shown: &[NodeId]) -> Vec<(NodeId, NodeId)> {
    let set: HashSet<NodeId> = shown.iter().copied().collect();
    let mut out = Vec::new();
    for &n in shown {
        for side in 0..4 {
            for m in across(tree, &set, n, side) {
                if m.level >= n.level + 2 {
                    out.push((n, m));
                }
            }
        }
    }
    out
}

/// How a node's border vertices on one side morph: [`PIN_NONE`] with the camera's distance;
/// [`PIN_COARSER`] fully to the parent level's surface (a coarser node is across); [`PIN_FINER`]
/// not at all (a finer node is across, whose own border is pinned to this node's surface).
pub const PIN_NONE: u8 = 0;
pub const PIN_COARSER: u8 = 1;
pub const PIN_FINER: u8 = 2;

/// Each node of `shown`'s pins: two bits a side, side `s` (see [`SIDES`]) at bits `2s..2s+2`;
/// 0 for a node whose every neighbour is of its own level.
pub fn border_pins(tree: &LodTree, shown: &[NodeId]) -> Vec<(NodeId, u8)> {
    let set: HashSet<NodeId> = shown.iter().copied().collect();
    shown
        .iter()
        .map(|&n| {
            let mut pins = 0u8;
            for side in 0..4 {
                let levels: Vec<u8> = across(tree, &set, n, side).iter().map(|m| m.level).collect();
                let pin = if levels.iter().any(|&l| l > n.level) {
                    PIN_COARSER
                } else if levels.iter().any(|&l| l < n.level) {
                    PIN_FINER
                } else {
                    PIN_NONE
                };
                pins |= pin << (2 * side);
            }
            (n, pins)
        })
        .collect()
}

/// The pin that holds a point of node `n` at world `(x, z)` metres: [`PIN_NONE`] off its
/// border or on an unpinned side, else its side's pin (a corner on two sides takes
/// [`PIN_COARSER`] over [`PIN_FINER`]). `chunk_m` is a chunk's side in metres. The vertex shader
/// (`terrain_lod.wgsl`, `pin_at`) does the same.
pub fn pin_at(n: NodeId, pins: u8, chunk_m: f32, x: f32, z: f32) -> u8 {
    if pins == 0 {
        return PIN_NONE;
    }
    let [x0, z0, x1, z1] = n.chunk_rect().map(|c| c as f32 * chunk_m);
    // Within a centimetre, as the shader compares them (positions and corners are exact
    // multiples of a column here, but the GPU's transform may round).
    let near = |a: f32, b: f32| (a - b).abs() < 0.01;
    let on = [near(x, x0), near(x, x1), near(z, z0), near(z, z1)];
    let side_pins = (0..4).filter(|&s| on[s]).map(|s| (pins >> (2 * s)) & 3);
    side_pins.fold(PIN_NONE, |held, pin| match (held, pin) {
        (PIN_COARSER, _) | (_, PIN_COARSER) => PIN_COARSER,
        (PIN_FINER, _) | (_, PIN_FINER) => PIN_FINER,
        _ => PIN_NONE,
    })
}

/// The morph factor a border pin leaves a vertex of node `n` at world `(x, z)` metres: `k` from
/// the camera's distance, 1 where [`pin_at`] says [`PIN_COARSER`], 0 where it says
/// [`PIN_FINER`].
pub fn pinned_morph(n: NodeId, pins: u8, chunk_m: f32, x: f32, z: f32, k: f32) -> f32 {
    match pin_at(n, pins, chunk_m, x, z) {
        PIN_COARSER => 1.0,
        PIN_FINER => 0.0,
        _ => k,
    }
}

struct Ctx<'a> {
    tree: &'a LodTree,
    target_set: HashSet<NodeId>,
    target_inner: HashSet<NodeId>,
    old_inner: HashSet<NodeId>,
    /// Built, fresh or stale: what may stay on screen.
    resident: &'a dyn Fn(NodeId) -> bool,
    kept: &'a dyn Fn(NodeId) -> bool,
    displayed: &'a HashSet<NodeId>,
    /// Nodes whose replacement waits this frame (the crack rule across the old screen).
    hold: HashSet<NodeId>,
}

impl Ctx<'_> {
    /// One visit of the tree with `budget` swaps: the screen, and whether the budget was spent.
    fn run(&self, budget: usize) -> (Vec<NodeId>, bool) {
        let mut out = Vec::new();
        let mut swaps = budget;
        self.visit(self.tree.root(), &mut swaps, &mut out);
        (out, swaps == 0)
    }

    /// The target's nodes covering `n`, if every one of them is built.
    fn cover(&self, n: NodeId, out: &mut Vec<NodeId>) -> bool {
        if !self.tree.exists(n) {
            return true;
        }
        if self.target_set.contains(&n) {
            if (self.resident)(n) {
                out.push(n);
                return true;
            }
            return false;
        }
        if self.target_inner.contains(&n) {
            return n.children().into_iter().all(|c| self.cover(c, out));
        }
        false
    }
    fn visit(&self, n: NodeId, swaps: &mut usize, out: &mut Vec<NodeId>) {
        if !self.tree.exists(n) {
            return;
        }
        let has_old = self.displayed.contains(&n) || self.old_inner.contains(&n);
        let mut cover = Vec::new();
        if self.cover(n, &mut cover) {
            let changes = cover.iter().any(|c| !self.displayed.contains(c));
            // A held replacement waits; a region with nothing on screen before never does.
            if !changes || !has_old || (*swaps > 0 && !self.hold.contains(&n)) {
                if changes && has_old {
                    *swaps -= 1;
                }
                out.extend(cover);
                return;
            }
        }
        if self.displayed.contains(&n) && (self.kept)(n) {
            out.push(n);
            return;
        }
        if n.level > 0 && (self.old_inner.contains(&n) || self.target_inner.contains(&n)) {
            for c in n.children() {
                self.visit(c, swaps, out);
            }
        }
    }
}
