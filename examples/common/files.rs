//! How the tools write files: whole or not at all. Included by the tools
//! (`#[path = "<relative path>/examples/common/files.rs"] mod files;`).

#![allow(dead_code)] // each tool uses what it needs

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

/// Held (read) by every write from its temporary file's creation to its rename, and by a set of
/// files written as one (a `.gltf` and its `.bin`); taken (write) by [`interrupt`], so Ctrl-C
/// comes between whole outputs, never inside one.
static WRITING: RwLock<()> = RwLock::new(());

/// A guard under which writes are not interrupted: hold it across files that are whole only
/// together, and write them with [`write_bytes_held`].
pub fn writing() -> RwLockReadGuard<'static, ()> {
    WRITING
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Ctrl-C: waits for the writes under way to end (each whole), removes what
/// [`remove_partial_files`] removes, and holds the lock, so no new write starts, until the
/// process exits.
pub fn interrupt() -> usize {
    let guard = WRITING
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let removed = remove_partial_files();
    std::mem::forget(guard);
    removed
}

/// Folders being written into: where [`remove_partial_files`] looks on Ctrl-C.
static WATCHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

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
    if !w.iter().any(|d| d == dir) {
        w.push(dir.to_path_buf());
    }
}

/// Whether `name` is one of this process's temporary files: `.NAME.PID.partial` (the tools')
/// or `.NAME.PID.tmp` (the library's).
fn is_ours(name: &str) -> bool {
    let pid = std::process::id();
    name.starts_with('.')
        && (name.ends_with(&format!(".{pid}.partial")) || name.ends_with(&format!(".{pid}.tmp")))
}

/// Removes this process's temporary files from the watched folders, and the folders this run
/// made that are empty: what an interrupted run (Ctrl-C) leaves is nothing. Returns how many were removed.
pub fn remove_partial_files() -> usize {
    let w = WATCHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut removed = 0;
    for dir in w.iter() {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            if is_ours(&e.file_name().to_string_lossy()) && std::fs::remove_file(e.path()).is_ok() {
                removed += 1;
            }
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
    let _writing = writing();
    write_held(path, write)
}

/// [`write_atomically`] for a caller that holds [`writing`].
fn write_held(
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

/// Writes `bytes` to `path` ([`write_atomically`]) for a caller that holds [`writing`].
pub fn write_bytes_held(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_held(path, |out| out.write_all(bytes).map_err(|e| e.to_string()))
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
