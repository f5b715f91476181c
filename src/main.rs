//! `isla`: the command line. With no arguments it flies over the default island. This file
//! parses and dispatches; each command lives in `cli::commands`.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
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
            eprintln!("{}", text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments").trim_end());
            return ExitCode::from(2);
        }
    };
    let command = parsed.command.unwrap_or(cli::args::Command::Fly(Default::default()));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cli::dispatch(command))) {
        Ok(result) => cli::report(result),
        // A panic is an internal failure; the hook has printed it as one line.
        Err(_) => ExitCode::from(1),
    }
}
