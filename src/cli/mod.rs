//! The binary's command line: the grammar ([`args`]), one function per command ([`commands`]),
//! and the two kinds of failure. The library never sees clap.

pub mod args;
pub mod commands;
pub mod film;
pub mod suite;

use args::Command;
use std::process::ExitCode;

/// A failure the user caused (bad input): one line, exit code 2.
pub struct BadInput(pub anyhow::Error);

pub fn bad(msg: impl Into<String>) -> BadInput {
    BadInput(anyhow::anyhow!(msg.into()))
}

/// An output file the command will write, checked before any work: a path the user cannot write
/// is their mistake (exit 2), found in milliseconds rather than after a render or a forge.
pub fn writable_file(flag: &str, path: &std::path::Path) -> Result<(), BadInput> {
    isla::io::check_writable_file(path).map_err(|e| bad(format!("{flag} {}: {e}", path.display())))
}

/// An output folder, checked the same way (it may not exist yet; its nearest ancestor must).
pub fn writable_dir(flag: &str, dir: &std::path::Path) -> Result<(), BadInput> {
    isla::io::check_writable_dir(dir).map_err(|e| bad(format!("{flag} {}: {e}", dir.display())))
}

/// How a command failed: bad input (exit 2) or an internal failure (exit 1, said as such).
pub enum Failure {
    Bad(BadInput),
    Other(anyhow::Error),
}

impl From<BadInput> for Failure {
    fn from(b: BadInput) -> Self {
        Failure::Bad(b)
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

/// The renderer a command asks for, made the one this process draws with before any work; a
/// renderer that cannot be had (or, for a window, cannot present) is bad input.
fn select_renderer(cmd: &Command) -> Result<(), BadInput> {
    let (choice, window) = match cmd {
        Command::Fly(a) => (a.renderer.renderer, true),
        Command::Shot(a) => (a.renderer.renderer, false),
        Command::Flight(a) => (a.renderer.renderer, false),
        Command::Suite(a) => (a.renderer.renderer, false),
        Command::Film(a) => (a.renderer.renderer, false),
        _ => return Ok(()),
    };
    if window && !choice.presents() {
        return Err(bad(format!(
            "--renderer {choice} draws off-screen only (it has no window surface): use it with shot, suite, film or flight"
        )));
    }
    choice.select().map_err(bad)?;
    Ok(())
}

/// Run one command.
pub fn dispatch(cmd: Command) -> Result<ExitCode, Failure> {
    select_renderer(&cmd)?;
    match cmd {
        Command::Fly(a) => commands::fly(a),
        Command::Forge(a) => commands::forge(a),
        Command::Info(a) => commands::info(a),
        Command::Diff(a) => commands::diff(a),
        Command::Shot(a) => commands::shot(a),
        Command::Map(a) => commands::map(a),
        Command::Chunk(a) => commands::chunk(a),
        Command::Flight(a) => commands::flight(a),
        Command::Suite(a) => suite::suite(a),
        Command::Film(a) => film::film(a),
    }
}

/// The exit code and the one line a failure prints.
pub fn report(result: Result<ExitCode, Failure>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(Failure::Bad(BadInput(e))) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
        // A renderer too slow to return a frame is named as such, not as an internal failure.
        Err(Failure::Other(e)) if e.chain().any(|c| c.is::<isla::app::shot::SlowRenderer>()) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
        Err(Failure::Other(e)) => {
            eprintln!("error: internal failure: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Panics (for example "no Vulkan adapter") become one readable line unless a backtrace is asked
/// for with `RUST_BACKTRACE`.
pub fn install_panic_hook() {
    if std::env::var_os("RUST_BACKTRACE").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let msg = (payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info.location().map(|l| format!(" ({}:{})", l.file(), l.line())).unwrap_or_default();
        eprintln!("error: internal failure: {msg}{at}");
        if msg.contains("GPU") {
            eprintln!("hint: no Vulkan adapter was found; scripts/system-packages installs Mesa's software driver");
        }
    }));
}
