//! The judges: Khronos' glTF-Validator, meshoptimizer's gltfpack and glTF-Transform's CLI (with
//! Google's Draco decoder, draco3dgltf), npm packages pinned by
//! `xtask/npm/package.json` and `package-lock.json` and installed with `npm ci` into
//! `target/npm/` (a folder of the project, never a global install). Tests find it through
//! `QTANGENT_NPM`, which `cargo xtask test` exports to the test step.
//!
//! Under CI (`CI` set) a missing node or npm, or a failed install, is an error; elsewhere it is a
//! note, and the tests that need node record that they did not run (`not_run.rs` counts them).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming the install folder, for the tests and `validate.mjs`.
pub const ENV: &str = "QTANGENT_NPM";

/// The packages `package.json` pins, each checked for after an install.
const PACKAGES: &[&str] = &["gltf-validator", "gltfpack", "@gltf-transform/cli"];

/// The lowest node major version the packages accept (gltfpack's `engines`: `node >= 18`).
const MIN_NODE_MAJOR: u32 = 18;

/// Where the packages are installed: `target/npm` under the project root.
pub fn install_dir(root: &Path) -> PathBuf {
    root.join("target/npm")
}

/// True when running under CI (`CI` set, as `.ci/run` does).
fn under_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// Installs the pinned packages into [`install_dir`] unless that folder already holds exactly
/// the pinned versions (then it returns at once). `Ok(Some(dir))`: installed; `Ok(None)`: node
/// or npm is missing, or the install failed, outside CI (a note is printed); `Err` for the same
/// under CI.
pub fn ensure(root: &Path) -> Result<Option<PathBuf>, String> {
    match install_into(root) {
        Ok(dir) => Ok(Some(dir)),
        Err(e) if under_ci() => Err(format!("npm judges: {e}")),
        Err(e) => {
            eprintln!(
                "xtask: note: {e}; the tests that run the glTF validator or gltfpack will not \
                 run, and the test command counts them at the end (under CI this is a failure)"
            );
            Ok(None)
        }
    }
}

/// `cargo xtask npm`: [`ensure`], failing (outside CI too) when the judges could not be
/// installed.
pub fn install(root: &Path) -> Result<(), String> {
    let dir = ensure(root)?.ok_or("the glTF judges are not installed (see the note above)")?;
    println!("xtask: the glTF judges are in {}", dir.display());
    Ok(())
}

fn install_into(root: &Path) -> Result<PathBuf, String> {
    let spec = root.join("xtask/npm");
    let dir = install_dir(root);
    let node = node_major()?;
    if node < MIN_NODE_MAJOR {
        return Err(format!(
            "node {node} is too old (gltfpack needs node {MIN_NODE_MAJOR} or newer)"
        ));
    }
    let files = ["package.json", "package-lock.json"];
    let read = |p: PathBuf| std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()));
    let wanted: Vec<Vec<u8>> = files
        .iter()
        .map(|f| read(spec.join(f)))
        .collect::<Result<_, _>>()?;
    if installed(&dir, &files, &wanted) {
        return Ok(dir);
    }
    let npm_ok = Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !npm_ok {
        return Err("npm not found (install node and npm: apt-get install nodejs npm)".into());
    }
    eprintln!(
        "xtask: installing the pinned glTF judges ({}) into {}",
        PACKAGES.join(", "),
        dir.display()
    );
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (file, bytes) in files.iter().zip(&wanted) {
        let to = dir.join(file);
        std::fs::write(&to, bytes).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    ci(&dir)?;
    if !installed(&dir, &files, &wanted) {
        return Err(format!(
            "`npm ci` in {} succeeded but {} are not all there",
            dir.display(),
            PACKAGES.join(" and ")
        ));
    }
    Ok(dir)
}

/// `npm ci` in `dir`: exactly the lock file's versions (it fails if package.json disagrees).
pub fn ci(dir: &Path) -> Result<(), String> {
    let mut cmd = Command::new("npm");
    cmd.args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir);
    crate::run(cmd, &format!("npm ci in {}", dir.display()))
}

/// True when `dir` holds the pinned manifest and lock file and every package is installed.
fn installed(dir: &Path, files: &[&str], wanted: &[Vec<u8>]) -> bool {
    let same = files
        .iter()
        .zip(wanted)
        .all(|(f, w)| std::fs::read(dir.join(f)).is_ok_and(|have| have == *w));
    same && PACKAGES.iter().all(|p| {
        dir.join("node_modules")
            .join(p)
            .join("package.json")
            .is_file()
    })
}

/// The major version of `node` on the PATH.
fn node_major() -> Result<u32, String> {
    let out = Command::new("node")
        .arg("--version")
        .output()
        .map_err(|_| "node not found (install node and npm: apt-get install nodejs npm)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    // `v20.20.2`
    text.trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .filter(|_| out.status.success())
        .ok_or_else(|| format!("`node --version` printed {:?}", text.trim()))
}

/// `node <dir>/node_modules/gltfpack/cli.js ARGS`, failing with gltfpack's output.
pub fn gltfpack(dir: &Path, args: &[&str]) -> Result<(), String> {
    node(&dir.join("node_modules/gltfpack/cli.js"), args).map(|_| ())
}

/// `node <dir>/node_modules/@gltf-transform/cli/bin/cli.js ARGS`, failing with its output.
pub fn gltf_transform(dir: &Path, args: &[&str]) -> Result<(), String> {
    node(
        &dir.join("node_modules/@gltf-transform/cli/bin/cli.js"),
        args,
    )
    .map(|_| ())
}

/// `node SCRIPT ARGS`'s standard output, failing with its output.
pub fn node(script: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("node")
        .arg(script)
        .args(args)
        .output()
        .map_err(|e| format!("could not run node {}: {e}", script.display()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{} {} failed ({}): {}{}",
            script.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
