//! `isla`: the command line. With no arguments it flies over the default island. This file
//! parses and dispatches; each command lives in `cli::commands`.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Like any Unix filter: `isla info X | head` ends quietly when the reader goes away, instead
    // of a write to the closed pipe panicking as an internal failure.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    cli::install_panic_hook();
    let parsed = match cli::args::Cli::try_parse() {
        Ok(parsed) => parsed,
        // --help and --version: print as clap does, success.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        // Bad arguments: one line and exit code 2, like every other refusal.
        Err(e) => {
            let text = e.to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let first = lines.next().unwrap_or("invalid arguments");
            // "…were not provided:" names what on the next line: keep it on the one line.
            match (first.ends_with(':'), lines.next()) {
                (true, Some(next)) => eprintln!("{first} {next}"),
                _ => eprintln!("{first}"),
            }
            return ExitCode::from(2);
        }
    };
    let command = parsed.command.unwrap_or(cli::args::Command::Fly(parsed.fly));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cli::dispatch(command))) {
        Ok(result) => cli::report(result),
        // A panic is an internal failure; the hook has printed it as one line.
        Err(_) => ExitCode::from(1),
    }
}
