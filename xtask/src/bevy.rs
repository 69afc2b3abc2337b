//! The Bevy integration (`integrations/bevy`, a workspace of its own, its own target folder):
//! formatting, clippy, its dependency tree (no encoder, no window), then its tests in release, which draw
//! packed files headless on the machine's Vulkan adapter (lavapipe) with the `pack` tool the root
//! workspace's tests built, then `cargo package` with its verification build.

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
    // Lints, warnings denied, every target (the tests and the viewer example too). A check
    // build of its own: about 4 minutes cold on two cores, seconds after.
    super::cargo(
        root,
        &[
            "clippy",
            "--manifest-path",
            &manifest,
            "--target-dir",
            &target,
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
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
    no_encoder_in_tree(root, &manifest)?;
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
    )?;
    package(root, &manifest, &target)
}

/// Crates a library user of the plugin must not build: qtangent's BC encoders (maps are read,
/// not made) and a windowing stack (the viewer is an example; an app brings its own).
const NOT_IN_TREE: &[&str] = &[
    "intel_tex_2",
    "block_compression",
    "ctt-bc7enc-rdo",
    "ctt-bc7f",
    "winit",
];

/// The plugin's own dependency tree (normal dependencies: what an app that adds it builds) holds
/// none of [`NOT_IN_TREE`].
fn no_encoder_in_tree(root: &Path, manifest: &str) -> Result<(), String> {
    let out = std::process::Command::new("cargo")
        .current_dir(root)
        .args([
            "tree",
            "--manifest-path",
            manifest,
            "--edges",
            "normal",
            "--prefix",
            "none",
        ])
        .output()
        .map_err(|e| format!("cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree --manifest-path {manifest} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let tree = String::from_utf8_lossy(&out.stdout);
    let found: Vec<&str> = NOT_IN_TREE
        .iter()
        .copied()
        .filter(|name| tree.lines().any(|l| l.split(' ').next() == Some(*name)))
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "bevy_qtangent's dependency tree holds {}: a map reader must build no encoder and no window",
            found.join(", ")
        ))
    }
}

/// `cargo package` with its verification build (the packaged crate alone, with only its own
/// features, in the integration's target folder). qtangent is not on crates.io, so the package's
/// `qtangent` dependency is patched to this checkout for the verification.
fn package(root: &Path, manifest: &str, target: &str) -> Result<(), String> {
    let patch = format!("patch.crates-io.qtangent.path={:?}", root.to_string_lossy());
    super::cargo(
        root,
        &[
            "package",
            "--manifest-path",
            manifest,
            "--target-dir",
            target,
            "--allow-dirty",
            "--config",
            &patch,
        ],
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
