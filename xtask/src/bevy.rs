//! The Bevy integration (`integrations/bevy`, a workspace of its own, its own target folder):
//! formatting, clippy, then its tests in release, which draw packed files headless on the machine's
//! Vulkan adapter (lavapipe) with the `pack` tool the root workspace's tests built.

use std::path::{Path, PathBuf};

/// The integration's folder, from the project root.
pub const DIR: &str = "integrations/bevy";

/// The integration's target folder for the test command: `$QTANGENT_BEVY_TARGET`, else
/// `qtangent/bevy-target` in the user's cache folder (`$XDG_CACHE_HOME`, else `~/.cache`), so
/// that a clean clone on the same machine (CI's) finds Bevy built; the integration's own
/// `target/` where there is no home folder. Bevy takes half an hour to build cold here.
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("QTANGENT_BEVY_TARGET") {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    cache.map_or_else(
        || root.join(DIR).join("target"),
        |c| c.join("qtangent").join("bevy-target"),
    )
}

/// Checks the integration's formatting and lints and runs its tests (`cargo test --release`), with `env`
/// (the not-run record) and `QTANGENT_PACK`: the root workspace's release `qtangent` command,
/// which `cargo test --release --workspace` built (the lab's programs beside it too).
pub fn test(root: &Path, env: &[(&str, &str)]) -> Result<(), String> {
    let manifest = root.join(DIR).join("Cargo.toml");
    let manifest = manifest.to_string_lossy();
    let target = target_dir(root);
    let target = target.to_string_lossy();
    eprintln!("xtask: the Bevy integration builds in {target}");
    super::cargo(
        root,
        &["fmt", "--manifest-path", &manifest, "--", "--check"],
    )
    .map_err(|e| format!("{e}: run `cargo fmt --manifest-path {manifest}`"))?;
    let pack = root
        .join("target/release")
        .join(format!("qtangent{}", std::env::consts::EXE_SUFFIX));
    if !pack.is_file() {
        return Err(format!(
            "{} was not built (cargo test --release --workspace builds it)",
            pack.display()
        ));
    }
    let pack = pack.to_string_lossy().into_owned();
    let mut env = env.to_vec();
    env.push(("QTANGENT_PACK", &pack));
    super::cargo_env(
        root,
        // One test at a time: each drives the whole software adapter, and one of them times
        // frames.
        &[
            "test",
            "--release",
            "--manifest-path",
            &manifest,
            "--target-dir",
            &target,
            "--",
            "--test-threads=1",
        ],
        &env,
    )
}

/// Builds the integration's viewer (`cargo build --release --example viewer`) in its target
/// folder; returns the binary's path.
pub fn viewer(root: &Path) -> Result<PathBuf, String> {
    let manifest = root.join(DIR).join("Cargo.toml");
    let target = target_dir(root);
    super::cargo(
        root,
        &[
            "build",
            "--release",
            "--example",
            "viewer",
            "--manifest-path",
            &manifest.to_string_lossy(),
            "--target-dir",
            &target.to_string_lossy(),
        ],
    )?;
    Ok(target
        .join("release/examples")
        .join(format!("viewer{}", std::env::consts::EXE_SUFFIX)))
}
