//! Rooms that fit: no file in `src/` over [`MAX_LINES`] lines. (Functions over 100 lines are
//! clippy's `too_many_lines`, enabled in `Cargo.toml` with its threshold in `clippy.toml`.)

use std::path::{Path, PathBuf};

/// The most lines a file in `src/` may have.
pub const MAX_LINES: usize = 800;

/// Fails naming every file under `root/src` longer than [`MAX_LINES`], longest first.
pub fn check(root: &Path) -> Result<(), String> {
    let mut files = Vec::new();
    collect(&root.join("src"), &mut files)?;
    let mut over = Vec::new();
    for file in files {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let lines = text.lines().count();
        if lines > MAX_LINES {
            let shown = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            over.push((lines, shown));
        }
    }
    if over.is_empty() {
        return Ok(());
    }
    over.sort_by(|a, b| b.cmp(a));
    let list: Vec<String> = over
        .iter()
        .map(|(n, f)| format!("{f} ({n} lines)"))
        .collect();
    Err(format!(
        "{} over {MAX_LINES} lines: {}; split them by concern",
        if over.len() == 1 {
            "a file in src/ is"
        } else {
            "files in src/ are"
        },
        list.join(", ")
    ))
}

/// Every file under `dir`, recursively.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}
