//! `cargo xtask <command>`: the project's two commands and their helpers. std only, so it builds
//! in seconds.
//!
//! - `cargo xtask test`  — sets up a Vulkan adapter if needed, then runs every test (release).
//! - `cargo xtask demo`  — sets up a Vulkan adapter if needed, then runs the demo.
//! - `cargo xtask bench` — the GPU/CPU decode benchmark.
//! - `cargo xtask gpu-bundle` — builds the benchmark and gathers it with the Vulkan loader in
//!   `.gpu/` and `.gl/` for a machine with a GPU but no toolchain (see docs/PERFORMANCE.md).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <test|demo|bench|gpu-bundle> [ARGS...]
  test        set up a Vulkan adapter if needed (lavapipe), then cargo test --release --workspace [ARGS]
  demo        set up a Vulkan adapter if needed, then run the demo (ARGS: frame count)
  bench       run the decode benchmark (ARGS passed on)
  gpu-bundle  build the benchmark into .gpu/ and fetch the Vulkan loader into .gl/";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(cmd) = args.next() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest: Vec<String> = args.collect();
    let root = project_root();
    let result = match cmd.as_str() {
        "test" => {
            ensure_vulkan();
            cargo(&root, &["fmt", "--all", "--", "--check"])
                .map_err(|e| format!("{e}: run `cargo fmt --all`"))
                .and_then(|()| {
                    cargo(
                        &root,
                        &[&["test", "--release", "--workspace"], &strs(&rest)[..]].concat(),
                    )
                })
        }
        "demo" | "bench" => {
            ensure_vulkan();
            cargo(
                &root,
                &[
                    &["run", "--release", "--example", cmd.as_str(), "--"],
                    &strs(&rest)[..],
                ]
                .concat(),
            )
        }
        "gpu-bundle" => gpu_bundle(&root),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn project_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

fn cargo(root: &Path, args: &[&str]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(&cargo)
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|e| format!("could not run {cargo}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

/// Directories where Vulkan ICD manifests live (the Vulkan loader's defaults).
const ICD_DIRS: &[&str] = &[
    "/usr/share/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
];
/// Where Debian and others put the Vulkan loader.
const LOADER_PATHS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
    "/usr/lib/aarch64-linux-gnu/libvulkan.so.1",
    "/usr/lib64/libvulkan.so.1",
    "/usr/lib/libvulkan.so.1",
];
const PACKAGES: &[&str] = &["mesa-vulkan-drivers", "libvulkan1"];

/// The Vulkan loader and lavapipe's ICD manifest (`lvp_icd*.json`). Another vendor's manifest
/// is not enough: containers often carry NVIDIA's without a GPU behind it. With a real GPU
/// present as well, qtangent still picks the real one (discrete and integrated rank first).
fn has_lavapipe() -> bool {
    let loader = LOADER_PATHS.iter().any(|p| Path::new(p).exists());
    let lvp = ICD_DIRS.iter().any(|d| {
        std::fs::read_dir(d)
            .map(|mut it| {
                it.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("lvp_icd")))
            })
            .unwrap_or(false)
    });
    loader && lvp
}

/// Makes sure lavapipe is installed, so the GPU tests have an adapter on any machine: on Linux
/// without it, installs it with apt-get when running as root or with passwordless sudo, and
/// otherwise says what to install. Never fails by itself: the GPU tests report a missing adapter.
fn ensure_vulkan() {
    if !cfg!(target_os = "linux") || has_lavapipe() {
        return;
    }
    eprintln!(
        "xtask: no Vulkan loader/driver found; installing Mesa's software Vulkan (lavapipe): {}",
        PACKAGES.join(" ")
    );
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let sudo = !root
        && Command::new("sudo")
            .args(["-n", "true"])
            .status()
            .is_ok_and(|s| s.success());
    let has_apt = Command::new("apt-get")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_apt || !(root || sudo) {
        eprintln!(
            "xtask: cannot install it here ({}). Install the packages `{}` (Debian/Ubuntu), or your \
             distribution's Mesa Vulkan drivers, and run again.",
            if has_apt { "not root and no passwordless sudo" } else { "no apt-get" },
            PACKAGES.join(" ")
        );
        return;
    }
    let run = |args: &[&str]| {
        let mut cmd = if root {
            Command::new(args[0])
        } else {
            Command::new("sudo")
        };
        if !root {
            cmd.arg("-n").arg(args[0]);
        }
        cmd.args(&args[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    let ok = run(&["apt-get", "update", "-qq"])
        && run(&[&["apt-get", "install", "-y", "-qq"], PACKAGES].concat());
    if ok && has_lavapipe() {
        eprintln!("xtask: lavapipe installed");
    } else {
        eprintln!(
            "xtask: installing {} failed; the GPU tests will say what they see",
            PACKAGES.join(" ")
        );
    }
}

/// The recipe of shared/GPU.md: the benchmark binary in .gpu/, the amd64 Vulkan loader in .gl/.
fn gpu_bundle(root: &Path) -> Result<(), String> {
    cargo(root, &["build", "--release", "--example", "bench"])?;
    let gpu = root.join(".gpu");
    std::fs::create_dir_all(&gpu).map_err(|e| format!("{}: {e}", gpu.display()))?;
    let bin = root.join("target/release/examples/bench");
    std::fs::copy(&bin, gpu.join("bench"))
        .map_err(|e| format!("copying {}: {e}", bin.display()))?;
    let gl = root.join(".gl");
    std::fs::create_dir_all(&gl).map_err(|e| format!("{}: {e}", gl.display()))?;
    let lists = "/tmp/qtangent-amd64-lists";
    std::fs::create_dir_all(format!("{lists}/partial")).map_err(|e| format!("{lists}: {e}"))?;
    let apt = |args: &[&str]| -> Result<(), String> {
        let o = [
            "-oAPT::Architecture=amd64",
            "-oAPT::Architectures=amd64",
            &format!("-oDir::State::Lists={lists}"),
        ];
        let status = Command::new("apt-get")
            .args(o)
            .args(args)
            .current_dir(&gl)
            .status()
            .map_err(|e| format!("apt-get: {e}"))?;
        status
            .success()
            .then_some(())
            .ok_or(format!("apt-get {} failed", args.join(" ")))
    };
    apt(&["update", "-qq"])?;
    apt(&["download", "libvulkan1"])?;
    println!(
        "xtask: .gpu/bench and .gl/libvulkan1*.deb ready; see docs/PERFORMANCE.md for the run"
    );
    Ok(())
}
