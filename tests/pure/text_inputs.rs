//! The inputs users write by hand — view strings, suite files, saved-views files and dials files —
//! fed arbitrary text and mutated valid documents through the real parsers. The rule (SPEC §8,
//! §2 "Dials"): any input is accepted or refused with one line, never a panic. A refusal of a
//! file names the file.
//!
//! Each property runs `PROPTEST_CASES` inputs (default [`DEFAULT_CASES`]); a longer run is
//! `PROPTEST_CASES=100000 cargo test --no-default-features --test pure text_inputs`.

use isla::forge::ForgeDials;
use isla::forge::dials;
use isla::suite::Suite;
use isla::view::View;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const DEFAULT_CASES: u32 = 600;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CASES);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

const VIEW: &str =
    "isla:v1;from=1250,160,3150;at=1356,90,3036;sun=20,300;off=fog,water;on=lod-colours;shading=normals;lod=off";

/// A suite beside the default island that uses every key a suite file has.
fn suite_text() -> String {
    format!(
        "blueprint = \"default.dat\"\nreferences = \"refs\"\nwidth = 320\nheight = 180\nview_distance = 2000\n\
         [tolerance]\nmin_similarity = 0.97\ndelta_e = 10\nmax_changed = 0.02\nmax_mean_delta_e = 1.5\n\n\
         [[view]]\nname = \"overview\"\npreset = \"overview\"\noff = [\"fog\"]\non = [\"wireframe\"]\n\
         shading = \"normals\"\nlod = \"off\"\nsun_elevation = 20\nsun_azimuth = 300\n\n\
         [[view]]\nname = \"river\"\nlook_from = [900, 170, 2750]\nlook_at = [1750, 110, 2150]\nwidth = 64\n\
         height = 36\n[view.tolerance]\ndelta_e = 5\n\n[[view]]\nname = \"saved\"\nview = \"{VIEW}\"\n"
    )
}

/// A saved-views file as `fly`'s V key writes it.
fn views_text() -> String {
    format!(
        "blueprint = \"default.dat\"\n\n[[view]]\nname = \"view-1\"\nview = \"{VIEW}\"\n\n[[view]]\nname = \"view-2\"\nview = \"isla:v1;from=1,2,3;at=4,5,6\"\n"
    )
}

/// Tokens a hand-written file is likely to get wrong, spliced in by the mutator.
const TOKENS: &[&str] = &[
    "\"",
    "'",
    "=",
    "[",
    "]",
    "[[view]]",
    "[tolerance]",
    "\n",
    ";",
    ",",
    "-",
    ".",
    "#",
    "{",
    "}",
    "1e39",
    "-1e39",
    "nan",
    "inf",
    "-0",
    "0",
    "99999999999999999999",
    "4294967296",
    "-2147483649",
    "isla:v1",
    "isla:v2;",
    "from=",
    "at=",
    "sun=",
    "off=",
    "on=",
    "lod=",
    "shading=",
    "name = ",
    "view = ",
    "seed = ",
    "size = ",
    "\u{0}",
    "é",
    "\t",
    "\\u0000",
    "\"\"\"",
    "true",
    "[1,2]",
    "1.5",
];

/// An edit: (operation, position, token index, a character).
type Edit = (u8, usize, usize, char);

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((0u8..4, any::<usize>(), any::<usize>(), any::<char>()), 1..8)
}

/// `text` with `edits` applied at character positions: delete a run, insert a character, splice
/// in a token, or replace a character.
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut c: Vec<char> = text.chars().collect();
    for &(op, pos, tok, ch) in edits {
        let at = if c.is_empty() { 0 } else { pos % (c.len() + 1) };
        match op {
            0 => {
                let end = (at + 1 + tok % 6).min(c.len());
                c.drain(at.min(end)..end);
            }
            1 => c.insert(at, ch),
            2 => {
                let t: Vec<char> = TOKENS[tok % TOKENS.len()].chars().collect();
                c.splice(at..at, t);
            }
            _ => {
                if at < c.len() {
                    c[at] = ch;
                }
            }
        }
    }
    c.into_iter().collect()
}

fn one_line(what: &str, input: &str, msg: &str) {
    assert!(!msg.is_empty(), "{what}: an empty refusal for {input:?}");
    // One clean line: no newline, and no other control character a terminal would act on.
    assert!(!msg.chars().any(char::is_control), "{what}: a refusal not on one clean line for {input:?}:\n{msg}");
}

fn check_view(input: &str) {
    match input.parse::<View>() {
        // An accepted view prints as a string that reads back as itself.
        Ok(v) => assert_eq!(v.to_string().parse::<View>().as_ref(), Ok(&v), "{input:?}"),
        Err(e) => one_line("view string", input, &e.to_string()),
    }
}

fn check_suite(path: &Path, input: &str) {
    if let Err(e) = Suite::parse(path, input) {
        let msg = e.to_string();
        one_line("suite file", input, &msg);
        assert!(msg.starts_with(&path.display().to_string()), "the refusal names the file: {msg}");
    }
}

fn check_dials(input: &str) {
    match dials::parse_toml("d.toml", input) {
        // Accepted values build dials, which the forge's own check accepts or refuses in a line.
        Ok(values) => {
            if let Err(e) = dials::check(&dials::build(&values)) {
                one_line("dials", input, &e.to_string());
            }
        }
        Err(e) => {
            let msg = e.to_string();
            one_line("dials file", input, &msg);
            assert!(msg.contains("d.toml"), "the refusal names the file: {msg}");
        }
    }
}

/// The seeds are valid, so a mutator that starts from them starts from a document that parses.
#[test]
fn the_seed_documents_parse() {
    VIEW.parse::<View>().unwrap();
    Suite::parse(&repo("blueprints/x.toml"), &suite_text()).unwrap();
    Suite::parse(&repo("blueprints/default.views.toml"), &views_text()).unwrap();
    dials::parse_toml("d.toml", &dials::to_toml(&ForgeDials::new(7, 256))).unwrap();
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_text_as_a_view_string_is_accepted_or_refused_in_one_line(s in any::<String>()) {
        check_view(&s);
        check_view(&format!("isla:v1;{s}"));
    }

    #[test]
    fn mutated_view_strings_are_accepted_or_refused_in_one_line(e in edits()) {
        check_view(&mutate(VIEW, &e));
    }

    #[test]
    fn any_text_as_a_suite_file_is_accepted_or_refused_in_one_line(s in any::<String>()) {
        check_suite(&repo("blueprints/x.toml"), &s);
    }

    #[test]
    fn mutated_suite_files_are_accepted_or_refused_in_one_line(e in edits()) {
        check_suite(&repo("blueprints/x.toml"), &mutate(&suite_text(), &e));
    }

    #[test]
    fn mutated_saved_views_files_are_accepted_or_refused_in_one_line(e in edits()) {
        check_suite(&repo("blueprints/default.views.toml"), &mutate(&views_text(), &e));
    }

    #[test]
    fn any_text_as_a_dials_file_is_accepted_or_refused_in_one_line(s in any::<String>()) {
        check_dials(&s);
    }

    #[test]
    fn mutated_dials_files_are_accepted_or_refused_in_one_line(e in edits()) {
        check_dials(&mutate(&dials::to_toml(&ForgeDials::new(7, 256)), &e));
    }
}
