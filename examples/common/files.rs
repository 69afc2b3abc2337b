//! How the tools write files: whole or not at all. Included by the tools
//! (`#[path = "<relative path>/examples/common/files.rs"] mod files;`).

#![allow(dead_code)] // each tool uses what it needs

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Folders being written into, and files written but not yet whole as a set (a `.gltf`'s
/// `.bin` before its `.gltf`): what [`remove_partial_files`] clears on Ctrl-C.
static WATCHED: Mutex<(Vec<PathBuf>, Vec<PathBuf>)> = Mutex::new((Vec::new(), Vec::new()));

/// Folders this run made for its outputs: removed by [`remove_partial_files`] when empty.
static MADE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Records that this run makes the folder `dir` (it did not exist), so an interrupted run
/// removes it again if nothing was written into it.
pub fn made_dir(dir: &Path) {
    MADE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(dir.to_path_buf());
}

/// Records that outputs are written into `dir`, so an interrupted run removes its temporary
/// files there ([`remove_partial_files`]).
pub fn watch_dir(dir: &Path) {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let mut w = WATCHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !w.0.iter().any(|d| d == dir) {
        w.0.push(dir.to_path_buf());
    }
}

/// Records `file` as written but not whole until [`settled`] is called for it: an interrupted
/// run removes it.
pub fn unsettled(file: &Path) {
    let mut w = WATCHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    w.1.push(file.to_path_buf());
}

/// `file` is part of a whole output now ([`unsettled`]).
pub fn settled(file: &Path) {
    let mut w = WATCHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    w.1.retain(|f| f != file);
}

/// Whether `name` is one of this process's temporary files: `.NAME.PID.partial` (the tools')
/// or `.NAME.PID.tmp` (the library's).
fn is_ours(name: &str) -> bool {
    let pid = std::process::id();
    name.starts_with('.')
        && (name.ends_with(&format!(".{pid}.partial")) || name.ends_with(&format!(".{pid}.tmp")))
}

/// Removes this process's temporary files from the watched folders and the unsettled files:
/// what an interrupted run (Ctrl-C) leaves is nothing. Returns how many were removed.
pub fn remove_partial_files() -> usize {
    let w = WATCHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut removed = 0;
    for dir in &w.0 {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            if is_ours(&e.file_name().to_string_lossy()) && std::fs::remove_file(e.path()).is_ok() {
                removed += 1;
            }
        }
    }
    for f in &w.1 {
        if std::fs::remove_file(f).is_ok() {
            removed += 1;
        }
    }
    // Only empty folders go (remove_dir refuses any other), innermost first.
    let made = MADE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for dir in made.iter().rev() {
        let _ = std::fs::remove_dir(dir);
    }
    removed
}

/// Refuses `path` unless it is a file: `FLAG PATH: no such file` (or `not a file`); `flag` is
/// the option naming it with its trailing space, or "" for a positional argument.
pub fn must_be_file(flag: &str, path: &Path) -> Result<(), String> {
    if path.is_file() {
        return Ok(());
    }
    let what = if path.exists() {
        "not a file"
    } else {
        "no such file"
    };
    Err(format!("{flag}{}: {what}", path.display()))
}

/// Writes `path` through `write` into a temporary file beside it, then renames it, so a failed
/// run never leaves half a file; makes the folder first. Errors name the file.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> Result<(), String>,
) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    watch_dir(path.parent().unwrap_or(Path::new(".")));
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
