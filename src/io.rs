//! Small file helpers every layer may use: the atomic replace and PNG encoding. It sits below all
//! other modules and knows nothing about blueprints, chunks or Bevy.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The temporary file an atomic write goes through: same folder (so the rename is atomic),
/// hidden name carrying the process id.
pub fn temp_path_for(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Replace `path` with `bytes` atomically: write a temporary file in the same folder, flush and
/// sync it, then rename it over the target. A crash at any point leaves either the old file or
/// the new one, never a half-written one.
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_path_for(path);
    // Test knob: `ISLA_SLOW_WRITE_MS` sleeps between 1 MiB chunks, simulating a slow disk so a
    // test can kill a writer mid-write and check that the old file survives.
    let pause = std::env::var("ISLA_SLOW_WRITE_MS").ok().and_then(|v| v.parse::<u64>().ok());
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        for chunk in bytes.chunks(1 << 20) {
            f.write_all(chunk)?;
            if let Some(ms) = pause {
                f.flush()?;
                std::thread::sleep(std::time::Duration::from_millis(ms));
            }
        }
        f.flush()?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// PNG bytes of an RGBA8 image (`width × height × 4` bytes, rows top to bottom).
pub fn encode_png_rgba(pixels: &[u8], width: u32, height: u32) -> anyhow::Result<Vec<u8>> {
    encode_png(pixels, width, height, image::ExtendedColorType::Rgba8)
}

/// PNG bytes of an RGB8 image.
pub fn encode_png_rgb(pixels: &[u8], width: u32, height: u32) -> anyhow::Result<Vec<u8>> {
    encode_png(pixels, width, height, image::ExtendedColorType::Rgb8)
}

fn encode_png(pixels: &[u8], width: u32, height: u32, kind: image::ExtendedColorType) -> anyhow::Result<Vec<u8>> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out).write_image(pixels, width, height, kind)?;
    Ok(out)
}

/// Encode and write a PNG atomically.
pub fn write_png_atomic(path: &Path, png_bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    write_bytes_atomic(path, png_bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Check, before any work, that a file can be written at `path`: its folder exists and takes a
/// new file, and `path` is not a folder. The error is the reason alone ("no folder …"); the caller
/// names the flag. The check writes and removes one hidden probe file, so it tests the real
/// permission, not the mode bits.
pub fn check_writable_file(path: &Path) -> Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err("an empty path".into());
    }
    if path.is_dir() {
        return Err("that is a folder, not a file".into());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(if dir.exists() {
            format!("{} is not a folder", dir.display())
        } else {
            format!("no folder {}", dir.display())
        });
    }
    probe_folder(dir)
}

/// Check, before any work, that a folder can be written at `dir`: either it is a folder that takes
/// a new file, or it does not exist yet and its nearest existing ancestor is such a folder (the
/// command will create the rest).
pub fn check_writable_dir(dir: &Path) -> Result<(), String> {
    if dir.as_os_str().is_empty() {
        return Err("an empty path".into());
    }
    let mut at = dir;
    loop {
        if at.exists() {
            if !at.is_dir() {
                return Err(format!("{} is not a folder", at.display()));
            }
            return probe_folder(at);
        }
        match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => at = p,
            _ => return probe_folder(Path::new(".")),
        }
    }
}

/// Create and remove a hidden file in `dir`: the one test of "can I write here" that sees
/// read-only mounts, ACLs and quotas alike.
fn probe_folder(dir: &Path) -> Result<(), String> {
    let probe = dir.join(format!(".isla-write-check.{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(f) => {
            drop(f);
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("cannot write in {}: {e}", dir.display())),
    }
}

/// `text` on one line: each control character (a newline or NUL that a hand-written file slipped
/// into a quoted value, say) written as its escape, so a refusal that quotes input stays one
/// line.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect(),
    )
}

/// A hand-written text file read whole, refused (one line naming it) when it cannot be read or
/// is over `max` bytes — `what` names the kind of file in that line ("a suite file").
pub fn read_text_bounded(path: &Path, max: u64, what: &str) -> Result<String, String> {
    let shown = path.display();
    let len = std::fs::metadata(path).map_err(|e| format!("{shown}: cannot read: {e}"))?.len();
    if len > max {
        return Err(format!("{shown}: {len} bytes; {what} is at most {max}"));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))
}

/// A TOML error in `text` as one line: `SOURCE:LINE:COL: message`, or `SOURCE: message` where
/// the parser gives no place.
pub fn toml_refusal(source: &str, text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().lines().next().unwrap_or("malformed TOML").trim_end().to_string();
    match e.span() {
        Some(s) => {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("{source}:{line}:{col}: {msg}")
        }
        None => format!("{source}: {msg}"),
    }
}
