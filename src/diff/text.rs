//! `isla diff`'s text: one line per part (SPEC §9).

use super::{Diff, LinesDiff, WaterDiff};

impl Diff {
    /// The text `isla diff` prints: one line per part, the parts that did not change said so.
    pub fn text(&self, a: &str, b: &str) -> Vec<String> {
        let mut out = vec![format!(
            "diff {a} ({}², seed {}) {b} ({}², seed {}): {}",
            self.a_map_size,
            self.a_seed,
            self.b_map_size,
            self.b_seed,
            if self.equal { "equal" } else { "they differ" }
        )];
        let sections: Vec<String> = self.sections.iter().map(|s| format!("{} {}", s.tag, s.state.name())).collect();
        out.push(format!("  sections: {}", sections.join(", ")));
        out.push(self.heights_line());
        if let Some(w) = &self.water {
            out.push(water_line(w));
        }
        for (name, l) in [("rivers", &self.rivers), ("roads", &self.roads)] {
            out.push(lines_line(name, l));
        }
        let t = &self.towns;
        out.push(format!(
            "  towns: {} → {}; {} added, {} removed, {} with another tier",
            t.a_count,
            t.b_count,
            t.added.len(),
            t.removed.len(),
            t.retiered
        ));
        out.push(self.dials_line());
        out
    }

    fn heights_line(&self) -> String {
        match &self.heights {
            Some(h) if h.changed_pixels == 0 => "  heights: equal".into(),
            Some(h) => format!(
                "  heights: {:.2}% of pixels changed ({}), largest rise {:.2} m at ({}, {}), largest fall {:.2} m at ({}, {})",
                100.0 * h.changed_share,
                h.changed_pixels,
                h.largest_rise_m,
                h.rise_at[0],
                h.rise_at[1],
                h.largest_fall_m,
                h.fall_at[0],
                h.fall_at[1]
            ),
            None => format!("  heights: not compared (the maps are {}² and {}²)", self.a_map_size, self.b_map_size),
        }
    }

    fn dials_line(&self) -> String {
        match (&self.dials, &self.dials_note) {
            (Some(d), _) if d.is_empty() => "  dials: equal".into(),
            (Some(d), _) => {
                let list: Vec<String> = d.iter().map(|x| format!("{} {} → {}", x.key, x.a, x.b)).collect();
                format!("  dials: {} differ: {}", d.len(), list.join(", "))
            }
            (None, note) => format!("  dials: not compared ({})", note.as_deref().unwrap_or("no record")),
        }
    }
}

/// The water line: wet pixels gained and lost, bodies added, removed and re-levelled.
fn water_line(w: &WaterDiff) -> String {
    let relevel: Vec<String> =
        w.relevelled.iter().take(6).map(|r| format!("#{}→#{} {:+.2} m", r.a_id, r.b_id, r.change_m)).collect();
    format!(
        "  water: wet pixels +{} −{}; bodies {} added, {} removed, {} re-levelled{}",
        w.wet_gained,
        w.wet_lost,
        w.added.len(),
        w.removed.len(),
        w.relevelled.len(),
        if relevel.is_empty() { String::new() } else { format!(" ({})", relevel.join(", ")) }
    )
}

/// A rivers or roads line: counts and lengths, added, removed and re-routed.
fn lines_line(name: &str, l: &LinesDiff) -> String {
    let rer: Vec<String> =
        l.rerouted.iter().take(6).map(|r| format!("{}→{} {:+.0} m", r.a.id, r.b.id, r.length_change_m)).collect();
    format!(
        "  {name}: {} → {} ({:.1} → {:.1} km); {} added, {} removed, {} re-routed{}, {} unchanged",
        l.a_count,
        l.b_count,
        l.a_length_m / 1e3,
        l.b_length_m / 1e3,
        l.added.len(),
        l.removed.len(),
        l.rerouted.len(),
        if rer.is_empty() { String::new() } else { format!(" ({})", rer.join(", ")) },
        l.unchanged
    )
}
