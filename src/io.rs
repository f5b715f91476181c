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
