//! Which nodes are on screen while the level-of-detail tree streams (SPEC §3 "Swaps"): the
//! target wherever every node that replaces a displayed one is built, else what was displayed —
//! so streaming never opens a hole — with at most a given number of replacements a frame. A pure
//! rule: the app's world server applies it each frame; tests reach it without Bevy.

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
    let ctx = Ctx { tree, target_set, target_inner, old_inner, resident, kept, displayed };
    let mut out = Vec::new();
    let mut swaps = if max_swaps == 0 { usize::MAX } else { max_swaps };
    ctx.visit(tree.root(), &mut swaps, &mut out);
    out
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
}

impl Ctx<'_> {
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
            if !changes || !has_old || *swaps > 0 {
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
