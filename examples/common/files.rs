//! How the tools write files: whole or not at all. Included by the tools
//! (`#[path = "common/files.rs"] mod files;`).

#![allow(dead_code)] // each tool uses what it needs

use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes `path` through `write` into a temporary file beside it, then renames it, so a failed
/// run never leaves half a file; makes the folder first. Errors name the file.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> Result<(), String>,
) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let name = path
        .file_name()
        .ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.partial", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let written = std::fs::File::create(&tmp)
        .map_err(|e| e.to_string())
        .and_then(|file| {
            let mut out = BufWriter::new(file);
            write(&mut out)?;
            out.flush().map_err(|e| e.to_string())
        })
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| e.to_string()));
    written.map_err(|e| {
        // The write failed already; a temporary file that cannot be removed adds nothing.
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

/// Writes `bytes` to `path` ([`write_atomically`]).
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_atomically(path, |out| out.write_all(bytes).map_err(|e| e.to_string()))
}

/// Writes `img` to `path` as PNG ([`write_atomically`]).
pub fn save_png(img: &image::RgbaImage, path: &Path) -> Result<(), String> {
    write_atomically(path, |out| {
        img.write_to(out, image::ImageFormat::Png)
            .map_err(|e| e.to_string())
    })
}
