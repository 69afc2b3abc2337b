//! Shared test helpers: the one GPU context, the adapter-quirk table, seeded random cases whose
//! seed is printed on failure, the shared assets, failure pictures and the tools.
#![allow(dead_code)]

#[path = "../../../examples/common/frames.rs"]
pub mod frames;
pub mod judges;
pub mod not_run;
#[path = "../../../examples/common/pictures.rs"]
pub mod pictures;
pub mod quirks;
pub mod seeds;
#[path = "../../../examples/common/table_frames.rs"]
pub mod table_frames;

pub use seeds::for_seeds;

/// The one GPU context every test shares (made on first use with [`GpuContext::new`], the
/// tools' adapter choice). Panics with the adapter error, which says how to install lavapipe:
/// GPU tests never skip.
pub fn context() -> &'static qtangent::gpu::GpuContext {
    static CONTEXT: std::sync::OnceLock<qtangent::gpu::GpuContext> = std::sync::OnceLock::new();
    CONTEXT.get_or_init(|| {
        let ctx = qtangent::gpu::GpuContext::new()
            .unwrap_or_else(|e| panic!("GPU tests need an adapter: {e}"));
        eprintln!("tests: GPU adapter {}", ctx);
        ctx
    })
}

use glam::{Quat, Vec3};
use rand::Rng;

/// A uniformly random unit vector.
pub fn unit_vec3(rng: &mut impl Rng) -> Vec3 {
    table_frames::random_rotation(rng) * Vec3::Z
}

/// A uniformly random rotation.
pub fn rotation(rng: &mut impl Rng) -> Quat {
    table_frames::random_rotation(rng)
}

/// f32 unit roundoff: half an ulp of 1.0.
pub const U: f32 = f32::EPSILON / 2.0;

/// The folder of the real test meshes (README "Real assets"): `$QTANGENT_ASSETS`, else
/// `../shared/assets` next to the repository. When it does not exist: under CI (`CI` set) the
/// test fails; elsewhere `None`, recorded as a test that did not run ([`not_run::did_not_run`]).
pub fn assets_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("QTANGENT_ASSETS").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets"),
        std::path::PathBuf::from,
    );
    if dir.is_dir() {
        return Some(dir);
    }
    let reason = format!(
        "the assets folder {} does not exist (README \"Real assets\": where to get them; set \
         QTANGENT_ASSETS to the folder holding gltf/ and obj/)",
        dir.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{reason}");
    not_run::did_not_run(&reason);
    None
}

/// FlightHelmet from the assets folder: every material's primitives as one bake mesh
/// ([`qtangent::qmap::BakeJob::from_scene`]), with the material's normal map decoded. Panics
/// (naming what) if anything fails to load.
pub fn flight_helmet_materials(
    dir: &std::path::Path,
) -> Vec<(String, qtangent::qmap::BakeMesh, qtangent::qmap::NormalMap)> {
    let path = dir.join("gltf/FlightHelmet/FlightHelmet.gltf");
    let scene = qtangent::mesh::load(&path).expect("FlightHelmet loads");
    let mut warnings = Vec::new();
    let jobs = qtangent::qmap::BakeJob::from_scene(&scene, None, &mut warnings).expect("jobs");
    assert!(warnings.is_empty(), "{warnings:?}");
    jobs.iter()
        .map(|job| {
            let name = job
                .material_name
                .clone()
                .expect("every FlightHelmet primitive has a material");
            let mesh = job.bake_mesh(&scene).expect("prepare");
            let nm = job
                .normal
                .load(&path)
                .expect("normal map decodes")
                .expect("every FlightHelmet material has a normal map");
            (name, mesh, nm)
        })
        .collect()
}

/// Writes `text` to `dir/name` (an OBJ, say); returns the path.
pub fn write_text(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// Where tests write pictures for a person to look at: `target/test-output/`.
pub fn test_output_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-output");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Writes `<name>-actual.png`, `<name>-expected.png` and `<name>-difference.png` (the heatmap
/// of `examples/common/pictures.rs`) into [`test_output_dir`]; returns a line naming
/// them, for the failure message.
pub fn write_failure_images(
    name: &str,
    actual: &image::RgbaImage,
    expected: &image::RgbaImage,
) -> String {
    let dir = test_output_dir();
    let paths = ["actual", "expected", "difference"].map(|k| dir.join(format!("{name}-{k}.png")));
    let _ = actual.save(&paths[0]);
    let _ = expected.save(&paths[1]);
    if let Ok(h) = pictures::heatmap(actual, expected) {
        let _ = h.save(&paths[2]);
    }
    format!(
        "see {}, {} and {}",
        paths[0].display(),
        paths[1].display(),
        paths[2].display()
    )
}

/// The built program `name`: an example of the crate (`bake`, `embed`, `encode`), else a lab
/// program (`lab/src/bin/`), as cargo reports it ([`example_exe`]).
pub fn tool_exe(name: &str) -> std::path::PathBuf {
    if ["bake", "embed", "encode"].contains(&name) {
        example_exe(name)
    } else {
        built("qtangent-lab", "--bin", name)
    }
}

/// The built example `name`, as cargo reports it: `cargo build --example NAME
/// --message-format=json` (release when this test binary is optimised, like the test command's
/// `--release`) names the executable in its `compiler-artifact` message, so no `target/` path
/// is guessed (`CARGO_TARGET_DIR`, `--target` and profiles all work). Cargo has built the
/// examples already for `cargo test`, so this is a freshness check; each name is asked once.
pub fn example_exe(name: &str) -> std::path::PathBuf {
    built("qtangent", "--example", name)
}

/// The built `qtangent` command (`cli/`), as [`example_exe`] finds an example.
pub fn command_exe() -> std::path::PathBuf {
    built("qtangent-cli", "--bin", "qtangent")
}

/// Runs the `qtangent` command ([`command_exe`]) with `args` and returns its output.
pub fn run_command(args: &[&str]) -> std::process::Output {
    std::process::Command::new(command_exe())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run qtangent: {e}"))
}

/// The executable of target `name` (`kind`: `--example` or `--bin`) of `package`, built.
fn built(package: &str, kind: &str, name: &str) -> std::path::PathBuf {
    static FOUND: std::sync::Mutex<Vec<(String, std::path::PathBuf)>> =
        std::sync::Mutex::new(Vec::new());
    let mut found = FOUND
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let key = format!("{package} {kind} {name}");
    if let Some((_, path)) = found.iter().find(|(n, _)| *n == key) {
        return path.clone();
    }
    let mut cmd = std::process::Command::new(env!("CARGO"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).args([
        "build",
        "--quiet",
        "--package",
        package,
        kind,
        name,
        "--message-format=json",
    ]);
    if !cfg!(debug_assertions) {
        cmd.arg("--release");
    }
    // The crate's examples need the renderer, which is not a default feature.
    if package == "qtangent" {
        cmd.args(["--features", "render"]);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo to build {name}: {e}"));
    assert!(
        out.status.success(),
        "cargo could not build {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(std::path::PathBuf::from))
        .unwrap_or_else(|| panic!("cargo built {name} but named no executable"));
    found.push((key, path.clone()));
    path
}

/// Runs the built program `name` ([`tool_exe`]; `qtangent SUB`: the command's subcommand SUB)
/// with `args` and returns its output.
pub fn run_tool(name: &str, args: &[&str]) -> std::process::Output {
    // `qtangent SUB`: the command's subcommand SUB.
    let mut cmd = match name.strip_prefix("qtangent ") {
        Some(sub) => {
            let mut cmd = std::process::Command::new(command_exe());
            cmd.arg(sub);
            cmd
        }
        None => std::process::Command::new(tool_exe(name)),
    };
    cmd.args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {name}: {e}"))
}

/// A tool's arguments as a user types them: `line` split at white space, each `{}` in it
/// replaced by the next of `paths`, whole (a path may hold a space). Panics unless there is one
/// path for every `{}`.
pub fn cli<'a>(line: &'a str, paths: &[&'a str]) -> Vec<&'a str> {
    let mut paths = paths.iter();
    let args = line
        .split_whitespace()
        .map(|word| match word {
            "{}" => *paths
                .next()
                .unwrap_or_else(|| panic!("more {{}} than paths in {line:?}")),
            _ => word,
        })
        .collect();
    assert!(paths.next().is_none(), "more paths than {{}} in {line:?}");
    args
}

/// Runs the example `name` with `args`, which must fail as a user should see it: exit status
/// `status`, stderr naming `needle`, no panic. Returns the run and its stderr for the caller's
/// further checks.
pub fn run_failing(
    name: &str,
    args: &[&str],
    status: i32,
    needle: &str,
) -> (std::process::Output, String) {
    let out = run_tool(name, args);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(status),
        "{name} {args:?}: status {:?}, stderr {err}",
        out.status
    );
    assert!(
        err.contains(needle),
        "{name} {args:?}: stderr does not name {needle:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{name} {args:?} panicked: {err}");
    (out, err)
}

/// Runs `qtangent pack` on `source` with `--frames` and `--maps`, writing
/// `STEM-EXT-FORMAT-MAPS.glb` into `dir`; panics with its output unless it succeeds. Returns
/// the GLB's path.
pub fn pack(
    source: &std::path::Path,
    dir: &std::path::Path,
    format: qtangent::Format,
    maps: &str,
) -> std::path::PathBuf {
    let name = |s: Option<&std::ffi::OsStr>| s.and_then(|s| s.to_str()).unwrap_or("").to_owned();
    let (stem, ext) = (name(source.file_stem()), name(source.extension()));
    let out = dir.join(format!("{stem}-{ext}-{}-{maps}.glb", format.name()));
    let args = [
        "pack",
        source.to_str().unwrap_or_default(),
        "-o",
        out.to_str().unwrap_or_default(),
        "--frames",
        format.name(),
        "--maps",
        maps,
    ];
    let run = run_command(&args);
    assert!(
        run.status.success(),
        "pack {} failed ({}): {}",
        args.join(" "),
        run.status,
        stderr(&run)
    );
    out
}

/// The frame errors of `got` against `want`, primitive by primitive and vertex by vertex (the
/// same primitives with the same vertices: asserted).
pub fn frame_errors(
    want: &[qtangent::mesh::Prepared],
    got: &[qtangent::mesh::Prepared],
) -> qtangent::measure::FrameErrors {
    assert_eq!(want.len(), got.len(), "primitives");
    let mut errors = qtangent::measure::FrameErrors::default();
    for (p, q) in want.iter().zip(got) {
        assert_eq!(p.frames.len(), q.frames.len(), "{}: vertices", p.label);
        for (a, b) in p.frames.iter().zip(&q.frames) {
            errors.add(a, b);
        }
    }
    errors
}

/// Asserts that the frame errors `e` of `format`, measured on `what`, are within the format's
/// documented bound ([`qtangent::Format::max_error_deg`]) and flip no handedness.
pub fn assert_within_format_bound(
    what: &str,
    format: qtangent::Format,
    e: &qtangent::measure::FrameErrors,
) {
    assert!(
        e.max() <= format.max_error_deg(),
        "{what} {}: {:.4}° beyond the bound {}°",
        format.name(),
        e.max(),
        format.max_error_deg()
    );
    assert_eq!(
        e.handedness_errors,
        0,
        "{what} {}: handedness lost",
        format.name()
    );
}

/// A process's stderr as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts that a process's stdout holds each of `needles`, showing the whole of it when not.
pub fn assert_stdout_has(out: &std::process::Output, needles: &[&str]) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    for needle in needles {
        assert!(
            stdout.contains(needle),
            "stdout lacks {needle:?}:\n{stdout}"
        );
    }
}

/// Two unit quads side by side in the z = 0 plane facing +Z (x from −1 to 0 and 0 to 1, y from
/// −0.5 to 0.5), corners counter-clockwise from the bottom left, with the UVs given per quad
/// (mirror one quad's to get mirrored frames).
pub fn quad_pair(left: [glam::Vec2; 4], right: [glam::Vec2; 4]) -> qtangent::mesh::Primitive {
    let p = |x: f32, y: f32| Vec3::new(x, y, 0.0);
    qtangent::mesh::Primitive {
        label: "quad pair".into(),
        positions: vec![
            p(-1.0, -0.5),
            p(0.0, -0.5),
            p(0.0, 0.5),
            p(-1.0, 0.5),
            p(0.0, -0.5),
            p(1.0, -0.5),
            p(1.0, 0.5),
            p(0.0, 0.5),
        ],
        normals: Some(vec![Vec3::Z; 8]),
        uvs: Some(left.into_iter().chain(right).collect()),
        indices: vec![0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7],
        ..Default::default()
    }
}
