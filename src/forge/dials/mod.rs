//! Every dial of [`ForgeDials`] by name (SPEC §2 "Dials"): one table gives each dial its key,
//! type, unit, range, one-line meaning and its place in the struct, and everything else reads
//! that table — the dials file (`isla forge --dials FILE.toml`, [`parse_toml`]), the full default
//! file (`isla forge --print-dials`, [`to_toml`]), the blueprint's `DIAL` record ([`record`],
//! [`from_record`]) and `isla diff`'s list of the dials that differ.
//!
//! Keys are `table.name` (`shape.axis_x`) or bare for the three top-level dials (`seed`, `size`,
//! `metres_per_pixel`). An optional stage has an `enabled` switch (`erosion.enabled`); a stage
//! that is off records only that switch. A key that is absent takes its default.

mod table;

pub use table::DIALS;

use super::{ErosionDials, ForgeDials};
use crate::blueprint::{DialRecord, DialValue};
use std::collections::BTreeMap;
use std::path::Path;

/// A dial's type and the values it accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Bool,
    Int { lo: i64, hi: i64 },
    Float { lo: f32, hi: f32 },
}

impl Kind {
    /// The range as the refusals and the default file write it.
    pub fn range(&self) -> String {
        match *self {
            Kind::Bool => "true or false".to_string(),
            Kind::Int { lo, hi } => format!("{lo}..={hi}"),
            Kind::Float { lo, hi } => format!("{lo:?}..={hi:?}"),
        }
    }
}

/// One dial: its key, type and range, unit, meaning, and where it lives in [`ForgeDials`].
pub struct Dial {
    pub key: &'static str,
    pub kind: Kind,
    /// Empty for a pure number or a switch.
    pub unit: &'static str,
    pub help: &'static str,
    /// The value in `d`; `None` when the dial's stage is off.
    pub(super) get: fn(&ForgeDials) -> Option<DialValue>,
    /// Set the value (already checked against the kind); nothing when the stage is off.
    pub(super) set: fn(&mut ForgeDials, DialValue),
}

impl Dial {
    /// The dial's value in `d`, `None` when its stage is off.
    pub fn get(&self, d: &ForgeDials) -> Option<DialValue> {
        (self.get)(d)
    }

    fn is_switch(&self) -> bool {
        self.key.ends_with(".enabled")
    }

    /// The dial's default (for a map of 256², which only `erosion.droplet_count`'s "auto" hides).
    pub fn default_value(&self) -> DialValue {
        let d = if self.is_switch() { ForgeDials::new(7, 256) } else { all_stages_on(7, 256) };
        self.get(&d).expect("every stage is on")
    }

    /// `v` if it is of the dial's type and in its range (an integer is taken for a float dial);
    /// else why not, in words.
    pub fn check(&self, v: DialValue) -> Result<DialValue, String> {
        let out_of_range =
            |shown: String| format!("{} = {shown} is outside {}{}", self.key, self.kind.range(), self.unit_note());
        match (self.kind, v) {
            (Kind::Bool, DialValue::Bool(_)) => Ok(v),
            (Kind::Int { lo, hi }, DialValue::Int(i)) if (lo..=hi).contains(&i) => Ok(v),
            (Kind::Int { .. }, DialValue::Int(i)) => Err(out_of_range(i.to_string())),
            (Kind::Float { lo, hi }, DialValue::Float(x)) if x.is_finite() && lo <= x && x <= hi => Ok(v),
            (Kind::Float { .. }, DialValue::Float(x)) => Err(out_of_range(format!("{x:?}"))),
            (Kind::Float { .. }, DialValue::Int(i)) => self.check(DialValue::Float(i as f32)),
            (kind, v) => Err(format!("{} must be {}, not {}", self.key, expected(kind), type_name(v))),
        }
    }

    fn unit_note(&self) -> String {
        if self.unit.is_empty() { String::new() } else { format!(" ({})", self.unit) }
    }
}

fn expected(kind: Kind) -> String {
    match kind {
        Kind::Bool => "true or false".into(),
        Kind::Int { .. } => format!("a whole number in {}", kind.range()),
        Kind::Float { .. } => format!("a number in {}", kind.range()),
    }
}

fn type_name(v: DialValue) -> &'static str {
    match v {
        DialValue::Bool(_) => "a boolean",
        DialValue::Int(_) => "an integer",
        DialValue::Float(_) => "a float",
    }
}

/// The defaults with every optional stage on (erosion's own defaults for the size).
fn all_stages_on(seed: i32, size: u32) -> ForgeDials {
    let mut d = ForgeDials::new(seed, size);
    d.erosion = Some(ErosionDials::new(size));
    d
}

/// One droplet per eight pixels: what `erosion.droplet_count = 0` asks for.
pub(super) fn auto_droplets(size: u32) -> u32 {
    ErosionDials::new(size).droplet_count
}

/// The dial called `key`.
pub fn dial(key: &str) -> Option<&'static Dial> {
    DIALS.iter().find(|d| d.key == key)
}

/// A refusal: one line naming the source (the file, or the flag), the key and the allowed range.
#[derive(Debug, Clone, PartialEq)]
pub struct DialsError(pub String);

impl std::fmt::Display for DialsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::io::one_line(&self.0))
    }
}

impl std::error::Error for DialsError {}

/// Dials by key, each checked against its dial; an absent key takes its default.
pub type Values = BTreeMap<&'static str, DialValue>;

/// Check `v` for the dial `key` from `source` (a file, a flag) and set it in `values`.
pub fn set_value(values: &mut Values, source: &str, key: &str, v: DialValue) -> Result<(), DialsError> {
    let d = dial(key).ok_or_else(|| {
        DialsError(format!("{source}: unknown key '{key}' (isla forge --print-dials lists every key)"))
    })?;
    let v = d.check(v).map_err(|e| DialsError(format!("{source}: {e}")))?;
    values.insert(d.key, v);
    Ok(())
}

/// A dials file is at most this large.
pub const MAX_DIALS_FILE_BYTES: u64 = 1 << 20;

/// Read and check a dials file ([`parse_toml`]).
pub fn load_toml(path: &Path) -> Result<Values, DialsError> {
    let text = crate::io::read_text_bounded(path, MAX_DIALS_FILE_BYTES, "a dials file").map_err(DialsError)?;
    parse_toml(&path.display().to_string(), &text)
}

/// The dials a file's text gives. Refused, with one line naming `source` and the key: a TOML
/// syntax error (with its line and column), an unknown key or table, a value of the wrong type
/// or out of its range, knots that do not rise.
pub fn parse_toml(source: &str, text: &str) -> Result<Values, DialsError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| DialsError(crate::io::toml_refusal(source, text, &e)))?;
    let mut values = Values::new();
    for (k, v) in &table {
        match v {
            toml::Value::Table(inner) => {
                if !DIALS.iter().any(|d| d.key.split_once('.').is_some_and(|(t, _)| t == k)) {
                    return Err(DialsError(format!(
                        "{source}: unknown table [{k}] (isla forge --print-dials lists every key)"
                    )));
                }
                for (k2, v2) in inner {
                    set_value(
                        &mut values,
                        source,
                        &format!("{k}.{k2}"),
                        toml_value(source, &format!("{k}.{k2}"), v2)?,
                    )?;
                }
            }
            _ => {
                if k.contains('.') || dial(k).is_none() {
                    return Err(DialsError(format!(
                        "{source}: unknown key '{k}' (isla forge --print-dials lists every key)"
                    )));
                }
                set_value(&mut values, source, k, toml_value(source, k, v)?)?;
            }
        }
    }
    check_together(source, &values)?;
    Ok(values)
}

/// A TOML value as a dial value; a table, array, string or date is refused naming the key.
fn toml_value(source: &str, key: &str, v: &toml::Value) -> Result<DialValue, DialsError> {
    let what = match v {
        toml::Value::Boolean(b) => return Ok(DialValue::Bool(*b)),
        toml::Value::Integer(i) => return Ok(DialValue::Int(*i)),
        toml::Value::Float(f) => return Ok(DialValue::Float(*f as f32)),
        toml::Value::String(_) => "a string",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
        toml::Value::Datetime(_) => "a date",
    };
    match dial(key) {
        Some(d) => Err(DialsError(format!("{source}: {key} must be {}, not {what}", expected(d.kind)))),
        None => Err(DialsError(format!("{source}: unknown key '{key}' (isla forge --print-dials lists every key)"))),
    }
}

/// The value of `key` in `values`, else its default.
fn value_or_default(values: &Values, key: &str) -> DialValue {
    let d = dial(key).expect("a known key");
    values.get(d.key).copied().unwrap_or_else(|| d.default_value())
}

/// The checks between dials: the five knots rise strictly inside 0..1, the shelf span's least is
/// at most its most.
fn check_together(source: &str, values: &Values) -> Result<(), DialsError> {
    let f = |key: &str| match value_or_default(values, key) {
        DialValue::Float(x) => x,
        _ => unreachable!("a float dial"),
    };
    let knots = [
        "curve.knot_lowland",
        "curve.knot_bench_start",
        "curve.knot_bench_end",
        "curve.knot_plateau_start",
        "curve.knot_plateau_end",
    ];
    let mut below = ("0", 0.0f32);
    for k in knots {
        let v = f(k);
        if v <= below.1 {
            return Err(DialsError(format!(
                "{source}: {k} = {v:?} must be above {} = {:?} (the knots rise strictly inside 0.0..1.0)",
                below.0, below.1
            )));
        }
        below = (k, v);
    }
    if below.1 >= 1.0 {
        return Err(DialsError(format!(
            "{source}: {} = {:?} must be below 1.0 (the knots rise strictly inside 0.0..1.0)",
            below.0, below.1
        )));
    }
    let (lo, hi) = (f("curve.shelf_span_min_m"), f("curve.shelf_span_max_m"));
    if lo > hi {
        return Err(DialsError(format!(
            "{source}: curve.shelf_span_min_m = {lo:?} must be at most curve.shelf_span_max_m = {hi:?}"
        )));
    }
    Ok(())
}

/// Every dial of `d` against its range, and the checks between dials: what a dials file would
/// refuse, for dials built in code (the forge runs this before any stage).
pub fn check(d: &ForgeDials) -> Result<(), DialsError> {
    let mut values = Values::new();
    for (dial, v) in DIALS.iter().filter_map(|x| x.get(d).map(|v| (x, v))) {
        set_value(&mut values, "dials", dial.key, v)?;
    }
    check_together("dials", &values)
}

/// The forge's dials from checked `values` (absent keys take their defaults).
pub fn build(values: &Values) -> ForgeDials {
    let int = |key: &str| match value_or_default(values, key) {
        DialValue::Int(i) => i,
        _ => unreachable!("an integer dial"),
    };
    let (seed, size) = (int("seed") as i32, int("size") as u32);
    let mut d = all_stages_on(seed, size);
    for dial in DIALS.iter().filter(|x| !x.is_switch() && x.key != "seed" && x.key != "size") {
        if let Some(&v) = values.get(dial.key) {
            (dial.set)(&mut d, v);
        }
    }
    for dial in DIALS.iter().filter(|x| x.is_switch()) {
        (dial.set)(&mut d, value_or_default(values, dial.key));
    }
    d
}

/// The dials as the `DIAL` record keeps them: every dial in table order, a stage that is off by
/// its `enabled = false` alone.
pub fn record(d: &ForgeDials) -> DialRecord {
    DialRecord { dials: DIALS.iter().filter_map(|x| x.get(d).map(|v| (x.key.to_string(), v))).collect() }
}

/// The values a `DIAL` record gives, each checked as a file's would be; `source` names the
/// blueprint in a refusal.
pub fn from_record(source: &str, r: &DialRecord) -> Result<Values, DialsError> {
    let mut values = Values::new();
    for (k, v) in &r.dials {
        set_value(&mut values, &format!("{source}: DIAL"), k, *v)?;
    }
    check_together(&format!("{source}: DIAL"), &values)?;
    Ok(values)
}

/// Every dial's value in `d`, a stage that is off showing its defaults.
pub fn values_of(d: &ForgeDials) -> Vec<(&'static Dial, DialValue)> {
    DIALS.iter().map(|x| (x, x.get(d).unwrap_or_else(|| x.default_value()))).collect()
}

/// The dials file for `d`: every key with its value, and above it, as a TOML comment, its meaning,
/// unit and range. For `ForgeDials::new(7, 256)` it is the full default file
/// (`isla forge --print-dials`); read back with [`parse_toml`] and [`build`] it gives `d` again.
pub fn to_toml(d: &ForgeDials) -> String {
    let mut out = String::from(
        "# Isla forge dials (isla forge --dials FILE; SPEC §2 \"Dials\"). Every key is optional: an\n\
         # absent key takes the default written here. Command-line flags override the file.\n",
    );
    let mut table = "";
    for (dial, v) in values_of(d) {
        let (t, name) = dial.key.split_once('.').unwrap_or(("", dial.key));
        if t != table {
            out.push_str(&format!("\n[{t}]\n"));
            table = t;
        }
        let unit = if dial.unit.is_empty() { String::new() } else { format!(" {}", dial.unit) };
        out.push_str(&format!("# {}{unit}: {}\n{name} = {v}\n", dial.kind.range(), dial.help));
    }
    out
}

/// The dials whose values differ between two records, as `(key, a, b)`. A key a record lacks
/// takes its default, unless its stage was off there (a stage that is off records only its
/// switch): then only the switch is compared.
pub fn differing(a: &DialRecord, b: &DialRecord) -> Vec<(String, DialValue, DialValue)> {
    let side = |r: &DialRecord, key: &str| -> Option<DialValue> {
        r.get(key).or_else(|| {
            let stage_on = key
                .split_once('.')
                .is_none_or(|(t, _)| r.get(&format!("{t}.enabled")).is_none_or(|v| v == DialValue::Bool(true)));
            if stage_on { dial(key).map(|d| d.default_value()) } else { None }
        })
    };
    let mut keys: Vec<String> = DIALS.iter().map(|d| d.key.to_string()).collect();
    for r in [a, b] {
        for (k, _) in &r.dials {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    keys.into_iter()
        .filter_map(|k| match (side(a, &k), side(b, &k)) {
            (Some(va), Some(vb)) if va != vb => Some((k, va, vb)),
            _ => None,
        })
        .collect()
}
