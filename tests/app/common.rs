//! Helpers both app test modules use: the binary, paths, and the one `isla shot` runner.

use std::path::PathBuf;
use std::process::Command;

/// The `isla` binary under test.
pub fn isla() -> Command {
    Command::new(env!("CARGO_BIN_EXE_isla"))
}

/// A path in the repository.
pub fn repo(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// The folder tests write their images to (created).
pub fn out_dir() -> PathBuf {
    let d = repo("target/test-output");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A fresh folder `name` under the test output holding a copy of the small island as `file`:
/// the folder and the blueprint's path (for tests that write beside a blueprint).
pub fn small_island_in(name: &str, file: &str) -> (PathBuf, PathBuf) {
    let dir = out_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bp = dir.join(file);
    std::fs::copy(repo("blueprints/small.dat"), &bp).unwrap();
    (dir, bp)
}

pub fn luma(p: &image::Rgb<u8>) -> f32 {
    0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32
}

/// `isla shot BLUEPRINT` at `size` with `args`, written as `name` under the test output; the
/// picture, after asserting the shot succeeded.
pub fn render_shot(blueprint: &str, size: (u32, u32), args: &[&str], name: &str) -> image::RgbImage {
    let out = out_dir().join(name);
    let (w, h) = (size.0.to_string(), size.1.to_string());
    let run = isla()
        .args(["shot", blueprint, "--width", &w, "--height", &h, "--out"])
        .arg(&out)
        .args(args)
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert!(run.status.success(), "isla shot {name}: {}", String::from_utf8_lossy(&run.stderr));
    image::open(&out).unwrap().to_rgb8()
}
