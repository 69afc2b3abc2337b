//! `cargo xtask <command>`: the project's two commands and their helpers. std only, so it builds
//! in seconds.
//!
//! - `cargo xtask test`  — sets up a Vulkan adapter if needed, checks formatting and file sizes
//!   (`sizes.rs`), builds and unit-tests the crate without default features (no wgpu), runs
//!   clippy (warnings denied, `missing_docs` and `too_many_lines` included) and `cargo doc`
//!   (warnings denied), installs the pinned glTF judges (`npm.rs`), then runs every test
//!   (release), printing how long each step took, and ends with one line counting the tests
//!   that did not run and why (`not_run.rs`).
//! - `cargo xtask demo`  — sets up a Vulkan adapter if needed, then runs the demo, `qtangent
//!   bake` on its embedded default (a tangent-space BC5 map in KTX2), `qtangent render` on the
//!   default scene in all four modes (compressed maps), FlightHelmet baked to KTX2 and rendered
//!   from those files, the swirl disc (KHR_materials_anisotropy with a KTX2 texture) written as
//!   glTF, rendered, and its table (`lab/src/bin/aniso.rs`), and the `animate` tool on the Fox —
//!   FlightHelmet and the Fox from the shared assets.
//! - `cargo xtask aniso [ARGS]` — the swirl-disc table (`lab/src/bin/aniso.rs`).
//! - `cargo xtask animate [ARGS]` — the Fox's walk/run blend skinned on the GPU
//!   (`lab/src/bin/animate.rs`).
//! - `cargo xtask render [ARGS]` — `qtangent render`, the lit renderer (`cli/src/render.rs`).
//! - `cargo xtask bake [ARGS]` — `qtangent bake`, the quaternion-map baker (`cli/src/bake.rs`).
//! - `cargo xtask bench` — mesh preparation (`prepare-bench` alone), pack against gltfpack
//!   (`pack-bench` alone, `pack_bench.rs`), the BC encoders (the `maps` tool's bake-time table),
//!   then the GPU/CPU decode benchmark.
//! - `cargo xtask skin-bench [ARGS]` — the skinning benchmark (quaternion against matrix
//!   palette, `lab/src/bin/skin_bench.rs`).
//! - `cargo xtask gpu-bundle` — builds the benchmark and gathers it with the Vulkan loader in
//!   `.gpu/` and `.gl/` for a machine with a GPU but no toolchain (see docs/PERFORMANCE.md).
//! - `cargo xtask fuzz [SECONDS [TARGET…]]` — fuzzes the glTF and OBJ loaders, compressed glTF
//!   (meshopt, Draco), `_QTANGENT` reading and KTX2 reading (`xtask/fuzz/`) with cargo-fuzz,
//!   SECONDS each (default 60), all targets or those named, after writing seed corpora.
//! - `cargo xtask npm` — installs the pinned glTF judges (glTF-Validator, gltfpack) into
//!   `target/npm` (`npm.rs`; `cargo xtask test` does this before the tests).
//! - `cargo xtask gltfpack-table` — gltfpack and `pack` on FlightHelmet and the Fox, measured
//!   by `qtangent diff` (`gltfpack_table.rs`, docs/GLTFPACK.md).
//! - `cargo xtask web [FILE|FOLDER] [--port N]` — the three.js viewer (`web/viewer.html`) on
//!   loopback, after installing `web/`'s pinned packages (`web.rs`; docs/WEB.md).

mod bevy;
mod corpus_renders;
mod corpus_table;
mod gltfpack_table;
#[path = "../../examples/common/quiet_mesa.rs"]
mod mesa;
mod not_run;
mod npm;
mod pack_bench;
mod sizes;
mod web;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

const USAGE: &str = "usage: cargo xtask <test|demo|bake|render|animate|aniso|bench|prepare-bench|pack-bench|skin-bench|gpu-bundle|fuzz|npm|gltfpack-table|web> [ARGS...]
  test        set up a Vulkan adapter if needed (lavapipe); check formatting and that no src/
              file is over 800 lines; build and unit-test the crate with --no-default-features;
              clippy --all-targets -D warnings; cargo doc (with and without the lab) with warnings denied; install the
              pinned glTF judges (npm, when node is present; required under CI); then cargo
              test --release --workspace [ARGS]; then the Bevy integration (integrations/bevy:
              its formatting, clippy and its tests, in its own workspace and target folder); and count
              the tests that did not run
  demo        set up a Vulkan adapter if needed, then run the demo (ARGS: frame count), the
              embed example (qtangent on an application's own device), bake
              the embedded default tangent-space map (BC5, KTX2) into qmaps/, render the
              default scene in all four modes into renders/ (pictures, heatmaps, PSNR, cost),
              bake FlightHelmet (shared assets) into qmaps/FlightHelmet/ and render it from
              those KTX2 files, write the swirl disc (KHR_materials_anisotropy, KTX2 texture)
              into renders/swirl_disc/, render it, print its table (sheets in renders/aniso/),
              then animate the Fox into renders/fox-walkrun/
  render      set up a Vulkan adapter if needed, then run `qtangent render` (ARGS passed on)
  animate     set up a Vulkan adapter if needed, then run the animate tool (ARGS passed on)
  bake        set up a Vulkan adapter if needed, then run `qtangent bake` (ARGS passed on)
  aniso       set up a Vulkan adapter if needed, then print the swirl-disc table (ARGS passed on)
  bench       mesh preparation, pack against gltfpack, the BC encoders on FlightHelmet's maps
              (the maps tool's bake-time table), then the decode benchmark (ARGS passed on to it)
  prepare-bench  mesh preparation alone (ARGS: RUNS)
  pack-bench  pack against gltfpack per file and as a batch (-j 2): wall time, peak memory
              (ARGS: RUNS)
  skin-bench  run the skinning benchmark (ARGS passed on, e.g. --instances 1024,16384)
  gpu-bundle  build the benchmark into .gpu/ and fetch the Vulkan loader into .gl/
  fuzz        fuzz the loaders, compressed glTF, _QTANGENT and KTX2 for SECONDS each (default 60), all or the TARGETs named (installs cargo-fuzz)
  npm         install the pinned glTF validator and gltfpack (xtask/npm/) into target/npm
  web         the three.js viewer (web/viewer.html) on http://127.0.0.1:8080: [FILE.glb|FOLDER] [--port N]
  gltfpack-table  run gltfpack and pack on FlightHelmet and the Fox (shared assets) and print
              the frame-error table of docs/GLTFPACK.md";

fn main() -> ExitCode {
    mesa::quiet_mesa();
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
            test(&root, &rest)
        }
        "demo" => {
            ensure_vulkan();
            example(&root, "demo", &strs(&rest))
                .and_then(|()| example(&root, "embed", &[]))
                .and_then(|()| command(&root, &["bake"]))
                .and_then(|()| command(&root, &["render"]))
                .and_then(|()| helmet_from_ktx2(&root))
                .and_then(|()| swirl_disc(&root))
                .and_then(|()| animate_fox(&root))
        }
        "bake" | "render" => {
            ensure_vulkan();
            command(&root, &[&[cmd.as_str()], &strs(&rest)[..]].concat())
        }
        "bench" => {
            ensure_vulkan();
            // Mesh preparation, pack against gltfpack, the BC encoders on FlightHelmet's maps
            // (all CPU), then the decode benchmark with ARGS.
            // The pack table needs node (gltfpack), the encoder table FlightHelmet: without
            // them each says why and the benchmark goes on.
            let optional = |what: &str, r: Result<(), String>| {
                if let Err(e) = r {
                    eprintln!("xtask: bench: {what} not measured: {e}");
                }
                Ok(())
            };
            example(&root, "prepare_bench", &[])
                .and_then(|()| {
                    let r = pack_bench::run(&root, &assets_dir(&root), &[]);
                    optional("pack against gltfpack", r)
                })
                .and_then(|()| {
                    let r = example(&root, "maps", &["--timing-only", "--quick"]);
                    optional("the BC encoders on FlightHelmet", r)
                })
                .and_then(|()| example(&root, "bench", &strs(&rest)))
        }
        "prepare-bench" => example(&root, "prepare_bench", &strs(&rest)),
        "pack-bench" => pack_bench::run(&root, &assets_dir(&root), &rest),
        "animate" | "aniso" | "skin-bench" => {
            ensure_vulkan();
            example(&root, &cmd.replace('-', "_"), &strs(&rest))
        }
        "gpu-bundle" => gpu_bundle(&root),
        "npm" => npm::install(&root),
        "web" => web::serve(&root, &strs(&rest)),
        "gltfpack-table" => gltfpack_table::run_table(&root, &assets_dir(&root)),
        "fuzz" => match rest.first().map(|s| s.parse::<u64>()) {
            None => fuzz(&root, 60, &[]),
            Some(Ok(seconds)) => fuzz(&root, seconds, &rest[1..]),
            Some(Err(_)) => Err(format!("fuzz: SECONDS must be a whole number\n{USAGE}")),
        },
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

/// The project's test command, step by step, each timed: formatting, file sizes, the crate
/// without default features (no wgpu: the quaternion core alone), clippy with warnings denied
/// (which makes the crate's `missing_docs` and `too_many_lines` lints errors), the docs with
/// warnings denied, then every test in release on the adapter `ensure_vulkan` set up, ending
/// with one line counting the tests that did not run and why (`not_run.rs`).
fn test(root: &Path, rest: &[String]) -> Result<(), String> {
    let step = |name: &str, f: &dyn Fn() -> Result<(), String>| -> Result<(), String> {
        let t = std::time::Instant::now();
        eprintln!("xtask: test step: {name}");
        let r = f();
        eprintln!(
            "xtask: test step: {name}: {} in {:.1} s",
            if r.is_ok() { "ok" } else { "FAILED" },
            t.elapsed().as_secs_f64()
        );
        r
    };
    let all = std::time::Instant::now();
    step("format", &|| {
        cargo(root, &["fmt", "--all", "--", "--check"])
            .map_err(|e| format!("{e}: run `cargo fmt --all`"))
    })?;
    step("file sizes", &|| sizes::check(root))?;
    step("no default features", &|| no_default_features(root))?;
    step("clippy", &|| {
        cargo(
            root,
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        )
    })?;
    // The lab's docs too (not published, but read by whoever works on the tools), first, so the
    // public API's are what target/doc holds at the end.
    step("docs", &|| {
        for features in [&["--features", "lab,render"][..], &["--features", "render"]] {
            let args = [&["doc", "--no-deps", "--package", "qtangent"][..], features].concat();
            cargo_env(root, &args, &[("RUSTDOCFLAGS", "-D warnings")])?;
        }
        Ok(())
    })?;
    // The glTF validator and gltfpack for the tests (npm, pinned); their folder goes to the
    // tests as `QTANGENT_NPM`.
    let judges = std::cell::RefCell::new(None);
    step("npm judges", &|| {
        *judges.borrow_mut() = npm::ensure(root)?;
        Ok(())
    })?;
    // web/'s packages and chromium for the browser test (tests/it/web.rs).
    step("web packages and chromium", &|| web::ensure(root))?;
    let judges = judges
        .into_inner()
        .map(|d| d.to_string_lossy().into_owned());
    let record = not_run::Record::new()?;
    let record_path = record.path();
    let mut env: Vec<(&str, &str)> = judges.iter().map(|d| (npm::ENV, d.as_str())).collect();
    env.push((not_run::ENV, &record_path));
    let tests = step("tests", &|| {
        cargo_env(
            root,
            &[&["test", "--release", "--workspace"], &strs(rest)[..]].concat(),
            &env,
        )
    })
    // What the README's first line does: the command installed (into target/install, reusing the
    // release build), then run from there.
    .and_then(|()| step("install", &|| install(root)))
    // Bevy's plugin: a workspace of its own (integrations/bevy), drawn headless in Bevy.
    .and_then(|()| step("bevy integration", &|| bevy::test(root, &env)));
    if tests.is_ok() {
        eprintln!(
            "xtask: test: every step passed in {:.1} s",
            all.elapsed().as_secs_f64()
        );
    }
    eprintln!("{}", record.summary());
    tests
}

/// `cargo install --path cli` as the README says (into `target/install`, with the workspace's
/// lock file and target folder, so the release build is reused), then the installed
/// `qtangent --version` must name the version in `cli/Cargo.toml`.
fn install(root: &Path) -> Result<(), String> {
    let prefix = root.join("target/install");
    let prefix_arg = prefix.to_string_lossy();
    let target = root.join("target");
    let target_arg = target.to_string_lossy();
    cargo(
        root,
        &[
            "install",
            "--path",
            "cli",
            "--locked",
            "--force",
            "--root",
            &prefix_arg,
            "--target-dir",
            &target_arg,
        ],
    )?;
    let exe = prefix
        .join("bin")
        .join(format!("qtangent{}", std::env::consts::EXE_SUFFIX));
    let out = Command::new(&exe)
        .arg("--version")
        .output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let version = String::from_utf8_lossy(&out.stdout);
    let manifest = std::fs::read_to_string(root.join("cli/Cargo.toml"))
        .map_err(|e| format!("cli/Cargo.toml: {e}"))?;
    let declared = manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = "))
        .map(|v| v.trim().trim_matches('"'))
        .ok_or("cli/Cargo.toml names no version")?;
    let want = format!("qtangent {declared}");
    if out.status.success() && version.trim() == want {
        Ok(())
    } else {
        Err(format!(
            "{} --version printed {:?}, not {want:?}",
            exe.display(),
            version.trim()
        ))
    }
}

/// The crate without default features (the quaternion core alone, no wgpu), built and
/// unit-tested; the CPU pipeline with every file format; the KTX2 reader alone; the default
/// features (no renderer) with warnings denied and their doc tests.
fn no_default_features(root: &Path) -> Result<(), String> {
    cargo(
        root,
        &["build", "--package", "qtangent", "--no-default-features"],
    )?;
    cargo(
        root,
        &[
            "test",
            "--package",
            "qtangent",
            "--no-default-features",
            "--lib",
        ],
    )?;
    // The CPU asset pipeline with every file format but no GPU: builds without wgpu; and
    // the KTX2 reader alone, what the Bevy integration builds (warnings denied: they would
    // show in every Bevy build).
    cargo(
        root,
        &[
            "check",
            "--package",
            "qtangent",
            "--no-default-features",
            "--features",
            "gltf,obj,exr,ktx2,jpeg",
        ],
    )?;
    // The KTX2 reader alone, what the Bevy integration builds, the CPU core alone (no file
    // format), and the library as a user's crate builds it (default features: no renderer, no
    // lab), warnings denied (they would show in every such build; no crate-wide allow hides dead
    // code without the renderer); the default build's doc tests (the pack example among them)
    // run without the renderer.
    for features in [
        &["--no-default-features", "--features", "ktx2"][..],
        &["--no-default-features", "--features", "pipeline"],
        &[],
    ] {
        let args = [
            &[
                "rustc",
                "--package",
                "qtangent",
                "--lib",
                "--profile",
                "check",
            ][..],
            features,
            &["--", "-D", "warnings"],
        ]
        .concat();
        cargo(root, &args)?;
    }
    cargo(root, &["test", "--package", "qtangent", "--doc", "pack"])
}

/// What to do when a real asset is missing: where they come from and how to name their folder.
const ASSETS_HINT: &str = "the real assets (FlightHelmet, the Fox, SimpleSkin from \
    github.com/KhronosGroup/glTF-Sample-Assets; OBJ files from pybullet_data) are not in the \
    repository: README.md \"Real assets\" says which files to get; set QTANGENT_ASSETS to the \
    folder holding their gltf/ and obj/";

/// The shared assets folder: `$QTANGENT_ASSETS`, else `../shared/assets`.
fn assets_dir(root: &Path) -> PathBuf {
    std::env::var_os("QTANGENT_ASSETS").map_or_else(|| root.join("../shared/assets"), PathBuf::from)
}

/// The shared asset `rel` for the demo step `what`, as a path argument; `None`, with a note
/// saying where the assets come from, when the folder does not hold it.
fn demo_asset(root: &Path, rel: &str, what: &str) -> Option<String> {
    let path = assets_dir(root).join(rel);
    if path.is_file() {
        Some(path.to_string_lossy().into_owned())
    } else {
        eprintln!(
            "xtask: {} not found; skipping {what} ({ASSETS_HINT})",
            path.display()
        );
        None
    }
}

/// A demo step: FlightHelmet's tangent-space maps baked to KTX2 (BC5, the `bake` defaults) in
/// `qmaps/FlightHelmet/`, then rendered in all modes with those files loaded (`--maps-dir`), when
/// the shared assets hold it; a note otherwise.
fn helmet_from_ktx2(root: &Path) -> Result<(), String> {
    let Some(helmet) = demo_asset(root, "gltf/FlightHelmet/FlightHelmet.gltf", "FlightHelmet")
    else {
        return Ok(());
    };
    // Shipped form: 4-byte qtangents and BC5 tangent-space maps in one validator-clean GLB,
    // drawn back from that file alone.
    let packed = "packed/FlightHelmet.glb";
    command(
        root,
        &[
            "pack",
            &helmet,
            "-o",
            packed,
            "--frames",
            "smallest3x4",
            "--maps",
            "tangent",
        ],
    )?;
    command(
        root,
        &[
            "render",
            packed,
            "--mode",
            "quatmap-tangent",
            "--size",
            "960x540",
            "-o",
            "renders/flighthelmet-packed.png",
        ],
    )?;
    let dir = "qmaps/FlightHelmet";
    command(root, &["bake", &helmet, "-o", dir])?;
    command(
        root,
        &[
            "render",
            &helmet,
            "--maps-dir",
            dir,
            "--size",
            "960x540",
            "-o",
            "renders/flighthelmet.png",
        ],
    )
}

/// `cargo run --release --package qtangent-cli -- ARGS`: the `qtangent` command.
fn command(root: &Path, args: &[&str]) -> Result<(), String> {
    cargo(
        root,
        &[
            &["run", "--release", "--package", "qtangent-cli", "--"],
            args,
        ]
        .concat(),
    )
}

/// `cargo run --release --example NAME -- ARGS` for the crate's examples (`embed`, `bake`,
/// `encode`), else `cargo run --release -p qtangent-lab --bin NAME -- ARGS`: a lab program
/// (`lab/src/bin/`).
fn example(root: &Path, name: &str, args: &[&str]) -> Result<(), String> {
    let target: &[&str] = if name == "embed" {
        // embed compares pictures with the renderer, which is not a default feature.
        &["--features", "render", "--example", name]
    } else if ["bake", "encode"].contains(&name) {
        &["--example", name]
    } else {
        &["--package", "qtangent-lab", "--bin", name]
    };
    cargo(
        root,
        &[&["run", "--release"], target, &["--"], args].concat(),
    )
}

/// The KHR_materials_anisotropy step of the demo: the swirl disc written as a glTF with a KTX2
/// anisotropy texture into `renders/swirl_disc/`, rendered from that file in all four modes, then
/// the swirl-disc table (direction error and PSNR under minification) with its sheets in
/// `renders/aniso/`.
fn swirl_disc(root: &Path) -> Result<(), String> {
    example(root, "aniso", &["--gltf", "renders/swirl_disc"])?;
    command(
        root,
        &[
            "render",
            "renders/swirl_disc/swirl_disc.gltf",
            "--pitch",
            "60",
            "--yaw",
            "20",
            "--size",
            "960x540",
            "-o",
            "renders/swirl_disc.png",
        ],
    )?;
    example(root, "aniso", &["--out", "renders/aniso"])
}

/// The demo's last step: the Fox's walk/run blend skinned on the GPU (`lab/src/bin/animate.rs`),
/// when the shared assets hold the Fox; a note otherwise (the Fox is not ours to embed).
fn animate_fox(root: &Path) -> Result<(), String> {
    let Some(fox) = demo_asset(root, "gltf/Fox.glb", "the animated Fox") else {
        return Ok(());
    };
    example(root, "animate", &[&fox])
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn project_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

fn cargo(root: &Path, args: &[&str]) -> Result<(), String> {
    cargo_env(root, args, &[])
}

fn cargo_env(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.args(args).envs(env.iter().copied()).current_dir(root);
    run(cmd, &format!("cargo {}", args.join(" ")))
}

/// Runs `cmd`, failing with `what` when it cannot start or does not succeed.
fn run(mut cmd: Command, what: &str) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("could not run `{what}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{what}` failed ({status})"))
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
    match apt_install(PACKAGES) {
        Ok(()) if has_lavapipe() => eprintln!("xtask: lavapipe installed"),
        Ok(()) => eprintln!(
            "xtask: installed {}, but no lavapipe found",
            PACKAGES.join(" ")
        ),
        Err(e) => eprintln!("xtask: {e}; the GPU tests will say what they see"),
    }
}

/// Installs Debian `packages` with apt-get, as root or through passwordless sudo.
fn apt_install(packages: &[&str]) -> Result<(), String> {
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
        return Err(format!(
            "cannot install `{}` here ({}); install it and run again",
            packages.join(" "),
            if has_apt {
                "not root and no passwordless sudo"
            } else {
                "no apt-get"
            },
        ));
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
    if run(&["apt-get", "update", "-qq"])
        && run(&[&["apt-get", "install", "-y", "-qq"], packages].concat())
    {
        Ok(())
    } else {
        Err(format!(
            "installing `{}` with apt-get failed",
            packages.join(" ")
        ))
    }
}

/// The recipe of shared/GPU.md: the benchmark binaries (decode, bake, render, skinning) in
/// .gpu/, the amd64 Vulkan loader in .gl/.
fn gpu_bundle(root: &Path) -> Result<(), String> {
    cargo(
        root,
        &[
            "build",
            "--release",
            "--package",
            "qtangent-lab",
            "--package",
            "qtangent-cli",
        ],
    )?;
    let gpu = root.join(".gpu");
    std::fs::create_dir_all(&gpu).map_err(|e| format!("{}: {e}", gpu.display()))?;
    for name in ["bench", "bake_bench", "qtangent", "skin_bench"] {
        let bin = root.join("target/release").join(name);
        std::fs::copy(&bin, gpu.join(name))
            .map_err(|e| format!("copying {}: {e}", bin.display()))?;
        // The release profile keeps debug info (about 90 MB a program); stripped, the four and
        // FlightHelmet travel in about 50 MB, inside the 64 MiB a device call carries.
        let stripped = Command::new("strip")
            .arg(gpu.join(name))
            .status()
            .is_ok_and(|s| s.success());
        if !stripped {
            eprintln!(
                "xtask: could not strip .gpu/{name} (is binutils installed?); it stays large"
            );
        }
    }
    // bake_bench's mesh: FlightHelmet (about 7 MB) from the shared assets, when they are here.
    let assets = std::env::var_os("QTANGENT_ASSETS")
        .map_or_else(|| root.join("../shared/assets"), PathBuf::from)
        .join("gltf/FlightHelmet");
    if let Ok(entries) = std::fs::read_dir(&assets) {
        let to = gpu.join("FlightHelmet");
        std::fs::create_dir_all(&to).map_err(|e| format!("{}: {e}", to.display()))?;
        for e in entries.flatten() {
            std::fs::copy(e.path(), to.join(e.file_name()))
                .map_err(|err| format!("copying {}: {err}", e.path().display()))?;
        }
    } else {
        eprintln!(
            "xtask: {} not found; bake_bench will need a mesh argument",
            assets.display()
        );
    }
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
    // NVIDIA's Vulkan driver is libGLX_nvidia.so.0, which needs libglvnd's libGLdispatch:
    // with the loader alone, it reports "Could not get 'vkCreateInstance'" and finds no adapter.
    apt(&[
        "download",
        "libvulkan1",
        "libglvnd0",
        "libgl1",
        "libglx0",
        "libegl1",
        "libgles2",
        "libopengl0",
    ])?;
    println!(
        "xtask: .gpu/bench, .gpu/bake_bench (+ .gpu/FlightHelmet), .gpu/qtangent (render), .gpu/skin_bench and .gl/ (the Vulkan loader, libglvnd) ready; see docs/PERFORMANCE.md for the run"
    );
    Ok(())
}

/// The fuzz targets in `xtask/fuzz/fuzz_targets/`, with their libFuzzer options. `-max_len`
/// admits the largest seed (Fox.glb is 160 KiB); `-timeout` turns a hang into a failure.
const FUZZ_TARGETS: &[(&str, &[&str])] = &[
    (
        "load_gltf",
        &[
            "-max_len=262144",
            "-timeout=10",
            "-dict=xtask/fuzz/gltf.dict",
        ],
    ),
    ("load_obj", &["-max_len=262144", "-timeout=10"]),
    (
        "load_compressed_gltf",
        &[
            "-max_len=65536",
            "-timeout=10",
            "-dict=xtask/fuzz/gltf.dict",
        ],
    ),
    (
        "read_qtangent",
        &[
            "-max_len=262144",
            "-timeout=10",
            "-dict=xtask/fuzz/gltf.dict",
        ],
    ),
    ("read_ktx2", &["-max_len=65536", "-timeout=10"]),
];

/// Seeds larger than this are not copied from the assets folder (the `-max_len` above).
const SEED_MAX_BYTES: u64 = 262_144;
/// The same for `load_compressed_gltf`, whose `-max_len` is 64 KiB (the SimpleSkin copies and
/// the packed quads; the Fox's copies are larger).
const COMPRESSED_SEED_MAX_BYTES: u64 = 65_536;

/// `cargo xtask fuzz`: installs cargo-fuzz if missing, writes the seed corpora under
/// `xtask/fuzz/corpus/` (gitignored), then fuzzes each target for `seconds` with debug
/// assertions and overflow checks on. Fails if any target fails (crash, hang, out of memory);
/// the input is then in `xtask/fuzz/artifacts/<target>/`.
fn fuzz(root: &Path, seconds: u64, only: &[String]) -> Result<(), String> {
    if let Some(unknown) = only
        .iter()
        .find(|t| !FUZZ_TARGETS.iter().any(|(n, _)| n == t))
    {
        let names: Vec<&str> = FUZZ_TARGETS.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "fuzz: no target '{unknown}' (targets: {})",
            names.join(", ")
        ));
    }
    let cargo_bin = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let has_fuzz = Command::new(&cargo_bin)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_fuzz {
        eprintln!("xtask: cargo-fuzz not found; installing it (a few minutes)");
        cargo(root, &["install", "cargo-fuzz"])?;
    }
    let fuzz_dir = root.join("xtask/fuzz");
    write_seeds(root, &fuzz_dir)?;
    let mut summary = Vec::new();
    let mut failed = Vec::new();
    let chosen = FUZZ_TARGETS
        .iter()
        .filter(|(n, _)| only.is_empty() || only.iter().any(|t| t == n));
    for (target, options) in chosen {
        let corpus = format!("xtask/fuzz/corpus/{target}");
        let time = format!("-max_total_time={seconds}");
        let mut child = Command::new(&cargo_bin)
            .args([
                "fuzz",
                "run",
                "--fuzz-dir",
                "xtask/fuzz",
                "--debug-assertions",
                target,
                &corpus,
            ])
            .arg("--")
            .arg(&time)
            .args(*options)
            .env("RUSTC_BOOTSTRAP", "1")
            .current_dir(root)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("could not run {cargo_bin} fuzz: {e}"))?;
        // libFuzzer reports on stderr: pass it through, keeping its final count ("Done N runs
        // in S second(s)"), or after a crash its last progress line ("#N ... exec/s: E").
        let (mut done, mut progress) = (None, None);
        if let Some(stderr) = child.stderr.take() {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{line}");
                if line.starts_with("Done ") {
                    done = Some(line);
                } else if line.starts_with('#') && line.contains("exec/s") {
                    progress = Some(line);
                }
            }
        }
        let status = child
            .wait()
            .map_err(|e| format!("cargo fuzz run {target}: {e}"))?;
        let files =
            std::fs::read_dir(fuzz_dir.join("corpus").join(target)).map_or(0, Iterator::count);
        let done = done.unwrap_or_else(|| match progress {
            Some(p) => format!("stopped early, last progress: {p}"),
            None => "stopped before fuzzing".into(),
        });
        summary.push(format!("{target}: {done}; corpus {files} files"));
        if !status.success() {
            failed.push(format!(
                "{target} ({status}; input in xtask/fuzz/artifacts/{target}/)"
            ));
        }
    }
    for line in &summary {
        println!("xtask: {line}");
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("fuzzing failed: {}", failed.join(", ")))
    }
}

/// gltfpack's (`-c`, `-cc`) and glTF-Transform's (`draco`, `meshopt`) compressed copies of the
/// Fox and SimpleSkin for `load_compressed_gltf`, written into `corpus/tools/`; none (with a
/// note) where the npm judges are not installed.
fn compressed_seeds(root: &Path, assets: &Path, corpus: &Path) -> Vec<(&'static str, PathBuf)> {
    let Ok(Some(judges)) = npm::ensure(root) else {
        eprintln!("xtask: note: no npm judges, so no gltfpack or glTF-Transform seeds");
        return Vec::new();
    };
    let out = corpus.join("tools");
    let _ = std::fs::create_dir_all(&out);
    let mut seeds = Vec::new();
    for (name, rel) in [
        ("Fox", "gltf/Fox.glb"),
        ("SimpleSkin", "gltf/SimpleSkin.gltf"),
    ] {
        let src = assets.join(rel);
        let src = src.to_string_lossy();
        for (tag, flag) in [("c", "-c"), ("cc", "-cc")] {
            let file = out.join(format!("{name}-gltfpack-{tag}.glb"));
            let f = file.to_string_lossy().into_owned();
            if npm::gltfpack(&judges, &["-i", &src, "-o", &f, flag]).is_ok() {
                seeds.push(("load_compressed_gltf", file));
            }
        }
        for command in ["draco", "meshopt"] {
            let file = out.join(format!("{name}-gltf-transform-{command}.glb"));
            let f = file.to_string_lossy().into_owned();
            if npm::gltf_transform(&judges, &[command, &src, &f]).is_ok() {
                seeds.push(("load_compressed_gltf", file));
            }
        }
    }
    seeds
}

/// Writes the seed corpora: small handwritten meshes (written by qtangent's own glTF writer,
/// `lab/src/bin/fuzz_seeds.rs`), and the shared conformance assets (`$QTANGENT_ASSETS`, default
/// `../shared/assets` beside the project; missing files skipped).
fn write_seeds(root: &Path, fuzz_dir: &Path) -> Result<(), String> {
    let corpus = fuzz_dir.join("corpus");
    let corpus_arg = corpus.to_string_lossy();
    example(root, "fuzz_seeds", &[&corpus_arg])?;
    let write = |target: &str, name: &str, bytes: &[u8]| -> Result<(), String> {
        let dir = corpus.join(target);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(format!("seed-{name}"));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))
    };
    let assets = std::env::var_os("QTANGENT_ASSETS")
        .map_or_else(|| PathBuf::from("../shared/assets"), PathBuf::from);
    let assets = root.join(assets);
    let mut shared = vec![
        ("load_gltf", assets.join("gltf/Fox.glb")),
        ("load_gltf", assets.join("gltf/SimpleSkin.gltf")),
    ];
    shared.extend(compressed_seeds(root, &assets, &corpus));
    if let Ok(dir) = std::fs::read_dir(assets.join("obj")) {
        let mut objs: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("obj")))
            .collect();
        objs.sort();
        shared.extend(objs.into_iter().map(|p| ("load_obj", p)));
    }
    let mut copied = 0;
    for (target, path) in shared {
        // The target's own -max_len: a longer seed would be cut.
        let limit = if target == "load_compressed_gltf" {
            COMPRESSED_SEED_MAX_BYTES
        } else {
            SEED_MAX_BYTES
        };
        let small = std::fs::metadata(&path).is_ok_and(|m| m.len() <= limit);
        if let (true, Ok(bytes)) = (small, std::fs::read(&path)) {
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            write(target, &name, &bytes)?;
            copied += 1;
        }
    }
    eprintln!(
        "xtask: seed corpora written ({copied} files from {})",
        assets.display()
    );
    Ok(())
}
