//! Saved views: bookmarks of a blueprint, kept beside it in `NAME.views.toml` (for
//! `blueprints/default.dat`, `blueprints/default.views.toml`). The file is a screenshot suite
//! (SPEC §8 "Suites"): a `blueprint` key and one `[[view]]` per bookmark with its `name` and its
//! whole `view` string, so `isla suite` runs a set of bookmarks as it is, and `--view NAME` on
//! `shot` and `fly` starts at one. Saving appends a view and rewrites the file atomically.

use crate::suite::{Pose, Suite, SuiteError};
use crate::view::View;
use std::path::{Path, PathBuf};

/// The saved-views file of a blueprint: beside it, its file stem plus `.views.toml`.
pub fn views_path(blueprint: &Path) -> PathBuf {
    let stem = blueprint.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "blueprint".into());
    blueprint.with_file_name(format!("{stem}.views.toml"))
}

/// The view saved under `name` beside `blueprint`. Refusals are one line naming the file.
pub fn load(blueprint: &Path, name: &str) -> Result<View, SuiteError> {
    let path = views_path(blueprint);
    if !path.is_file() {
        return Err(SuiteError(format!(
            "--view {name}: no saved views beside the blueprint ({} does not exist)",
            path.display()
        )));
    }
    let suite = Suite::load(&path)?;
    let v = suite.views.iter().find(|v| v.name == name).ok_or_else(|| {
        let names: Vec<&str> = suite.views.iter().map(|v| v.name.as_str()).collect();
        SuiteError(format!("{}: no view named '{name}' (saved: {})", path.display(), names.join(", ")))
    })?;
    match v.pose {
        Pose::Look { from, at } => Ok(View { from, at, sun: v.sun, switches: v.switches, lod: v.lod }),
        Pose::Preset(p) => Err(SuiteError(format!(
            "{}: view '{name}' is the preset {}; a saved view holds its camera (use --preset {})",
            path.display(),
            p.name(),
            p.name()
        ))),
    }
}

/// The names saved beside `blueprint`, in file order (empty without a file).
pub fn names(blueprint: &Path) -> Result<Vec<String>, SuiteError> {
    let path = views_path(blueprint);
    if !path.is_file() {
        return Ok(Vec::new());
    }
    Ok(Suite::load(&path)?.views.into_iter().map(|v| v.name).collect())
}

/// Append `view` beside `blueprint` under the first free name `view-N`, rewriting the file
/// atomically (a file that does not parse is refused, never overwritten). Returns the name and
/// the file.
pub fn save(blueprint: &Path, view: &View) -> Result<(String, PathBuf), SuiteError> {
    let path = views_path(blueprint);
    let shown = path.display().to_string();
    let existing = names(blueprint)?;
    let name = (1..).map(|n| format!("view-{n}")).find(|n| !existing.contains(n)).expect("a free name");
    let mut text = if path.is_file() {
        std::fs::read_to_string(&path).map_err(|e| SuiteError(format!("{shown}: cannot read: {e}")))?
    } else {
        let file = blueprint.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        format!(
            "# Saved views of {file} (isla fly: the B key). A screenshot suite: `isla suite {}` runs them.\nblueprint = {}\n",
            path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
            toml_string(&file)
        )
    };
    // The appended table starts on a line of its own whether or not the file ends in a newline.
    text.push_str(&format!("\n[[view]]\nname = {}\nview = {}\n", toml_string(&name), toml_string(&view.to_string())));
    // Check what would be written before writing it.
    Suite::parse(&path, &text)?;
    crate::io::write_bytes_atomic(&path, text.as_bytes())
        .map_err(|e| SuiteError(format!("{shown}: cannot write: {e}")))?;
    Ok((name, path))
}

/// A TOML basic string: quoted, with `\`, `"` and control characters escaped.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
