//! `qtangent`, the command, run as a user runs it: `--help` and `--version`, `pack` on one file
//! and on a folder with a bad file among good ones (`-j 2`, `--report`), `.gltf` output, and
//! every refusal of the output rules (message, exit status, no stray file). The meshes are
//! written here (an OBJ cube; a broken glTF), so the tests need no assets.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "../../tests/it/common/not_run.rs"]
mod not_run;

/// Khronos' validator's error count for `file` (`xtask/npm/validate.mjs` over the judges
/// `cargo xtask test` installs: `$QTANGENT_NPM`, else `target/npm`), or `None` where node or the
/// validator is missing: recorded as not run, and a failure under CI.
fn validator_errors(file: &Path) -> Option<u64> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let npm =
        std::env::var_os("QTANGENT_NPM").map_or_else(|| root.join("target/npm"), PathBuf::from);
    let missing = if npm
        .join("node_modules/gltf-validator/package.json")
        .is_file()
    {
        None
    } else {
        Some(format!(
            "the glTF validator is not installed in {} (`cargo xtask test` installs it)",
            npm.display()
        ))
    };
    let run = || {
        Command::new("node")
            .arg(root.join("xtask/npm/validate.mjs"))
            .arg(file)
            .arg(&npm)
            .output()
            .map_err(|e| format!("node: {e}"))
    };
    let report = match missing.map_or_else(run, Err) {
        Ok(o) if o.status.success() => o.stdout,
        Ok(o) => panic!("validate.mjs failed: {}", text(&o)),
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "under CI: {why}");
            not_run::did_not_run(&why);
            return None;
        }
    };
    let report: Value = serde_json::from_slice(&report).expect("the validator's JSON");
    report["issues"]["numErrors"].as_u64()
}

fn qtangent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qtangent"))
        .args(args)
        .output()
        .expect("qtangent runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A unit cube as OBJ (positions, UVs, normals; 12 triangles).
fn cube(path: &Path) {
    let mut obj = String::new();
    for z in [-0.5f32, 0.5] {
        for y in [-0.5f32, 0.5] {
            for x in [-0.5f32, 0.5] {
                obj.push_str(&format!("v {x} {y} {z}\n"));
            }
        }
    }
    for uv in ["0 0", "1 0", "1 1", "0 1"] {
        obj.push_str(&format!("vt {uv}\n"));
    }
    for n in ["-1 0 0", "1 0 0", "0 -1 0", "0 1 0", "0 0 -1", "0 0 1"] {
        obj.push_str(&format!("vn {n}\n"));
    }
    // Each face: its four corners (1-based), counter-clockwise from outside, and its normal.
    let faces = [
        ([1, 5, 7, 3], 1),
        ([2, 4, 8, 6], 2),
        ([1, 2, 6, 5], 3),
        ([3, 7, 8, 4], 4),
        ([1, 3, 4, 2], 5),
        ([5, 6, 8, 7], 6),
    ];
    for (c, n) in faces {
        obj.push_str(&format!(
            "f {}/1/{n} {}/2/{n} {}/3/{n}\nf {}/1/{n} {}/3/{n} {}/4/{n}\n",
            c[0], c[1], c[2], c[0], c[2], c[3]
        ));
    }
    std::fs::write(path, obj).expect("writes the cube");
}

/// The cube written as `DIR/cube.obj` and packed quietly into `DIR/cube.glb`: (source, GLB).
fn packed_cube(dir: &Path) -> (PathBuf, PathBuf) {
    let source = dir.join("cube.obj");
    cube(&source);
    let glb = dir.join("cube.glb");
    let o = qtangent(&[
        "pack",
        &source.to_string_lossy(),
        "-o",
        &glb.to_string_lossy(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    (source, glb)
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("reads the folder").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn help_and_version() {
    let v = qtangent(&["--version"]);
    assert!(v.status.success());
    assert_eq!(
        String::from_utf8_lossy(&v.stdout).trim(),
        format!("qtangent {}", env!("CARGO_PKG_VERSION"))
    );
    let dir = tempfile::tempdir().expect("temporary folder");
    let subcommands = ["pack", "bake", "render", "view", "inspect", "diff"];
    let top = String::from_utf8_lossy(&qtangent(&["--help"]).stdout).into_owned();
    for sub in subcommands {
        assert!(top.contains(sub), "--help does not list {sub}: {top}");
        for flag in ["--help", "--version"] {
            // Run where a tool that mistook the flag for a file would leave something.
            let o = Command::new(env!("CARGO_BIN_EXE_qtangent"))
                .args([sub, flag])
                .current_dir(dir.path())
                .output()
                .expect("qtangent runs");
            assert!(o.status.success(), "{sub} {flag}: {}", text(&o));
            assert!(!o.stdout.is_empty(), "{sub} {flag} printed nothing");
        }
    }
    assert_eq!(
        files_under(dir.path()),
        Vec::<PathBuf>::new(),
        "--help wrote files"
    );
    // One vocabulary: each subcommand's help names the shared flags it takes.
    let shared: [(&str, &[&str]); 6] = [
        (
            "pack",
            &["--output", "--frames", "--maps", "--jobs", "--report"],
        ),
        (
            "bake",
            &["--output", "--maps", "--map-format", "--map-size"],
        ),
        (
            "render",
            &[
                "--output",
                "--frames",
                "--map-format",
                "--map-size",
                "--maps-dir",
                "--size",
            ],
        ),
        (
            "view",
            &[
                "--frames",
                "--map-format",
                "--map-size",
                "--maps-dir",
                "--size",
                "--screenshot",
            ],
        ),
        ("inspect", &["--json", "--formats"]),
        ("diff", &["--help"]),
    ];
    for (sub, flags) in shared {
        let help = String::from_utf8_lossy(&qtangent(&[sub, "--help"]).stdout).into_owned();
        for flag in flags.iter().chain(&["--quiet", "--verbose"]) {
            assert!(help.contains(flag), "{sub} --help lacks {flag}");
        }
        // The words that meant other things before the one vocabulary.
        for old in [
            "--kind",
            "--format ",
            "--out ",
            "--maps <DIR>",
            "--frames <FRAMES>  Frames to time",
        ] {
            assert!(!help.contains(old), "{sub} --help still has {old:?}");
        }
    }
}

/// `view --screenshot` draws headless (no window, no display) and writes a whole PNG; a
/// screenshot that is no .png is refused before any work, and a file that does not load fails
/// with status 1 and one line, writing nothing.
#[test]
fn view_screenshot_is_headless_and_refusals_write_nothing() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let shot = dir.path().join("shot.png");
    let o = qtangent(&[
        "view",
        "--screenshot",
        &shot.to_string_lossy(),
        "--size",
        "96x64",
        "--map-size",
        "64",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let img = image::open(&shot).expect("a PNG");
    assert_eq!((img.width(), img.height()), (96, 64));
    // Not all background: the scene is drawn (the corner pixel is the clear colour).
    let rgba = img.to_rgba8();
    let corner = *rgba.get_pixel(0, 0);
    assert!(
        rgba.pixels().any(|p| *p != corner),
        "the screenshot is blank"
    );

    // -q: errors only, so nothing at all for a run that succeeds (the bake's stages, the maps'
    // origins and the summary included).
    let quiet = dir.path().join("quiet.png");
    let o = qtangent(&[
        "view",
        "-q",
        "--screenshot",
        &quiet.to_string_lossy(),
        "--size",
        "32x32",
        "--map-size",
        "64",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(text(&o), "", "view -q printed something");
    assert!(quiet.is_file());

    // No display: the window cannot open, said in one line pointing at --screenshot, before the
    // scene is loaded or baked.
    let o = Command::new(env!("CARGO_BIN_EXE_qtangent"))
        .arg("view")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("qtangent runs");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        err.contains("--screenshot") && err.trim_end().lines().count() == 1,
        "{err}"
    );
    assert!(
        !err.contains("bake") && o.stdout.is_empty(),
        "loaded before the window: {err}"
    );

    let jpg = dir.path().join("shot.jpg");
    let o = qtangent(&["view", "--screenshot", &jpg.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--screenshot"), "{}", text(&o));
    let broken = dir.path().join("broken.gltf");
    std::fs::write(&broken, "{ not json").expect("writes");
    let out = dir.path().join("broken.png");
    let o = qtangent(&[
        "view",
        &broken.to_string_lossy(),
        "--screenshot",
        &out.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.starts_with("qtangent view: ") && err.contains("broken.gltf"),
        "{err}"
    );
    assert!(!out.exists() && !jpg.exists());
}

#[test]
fn one_file_packs_to_glb_and_to_gltf() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let source = dir.path().join("cube.obj");
    cube(&source);
    let glb = dir.path().join("out/cube.glb");
    let o = qtangent(&[
        "pack",
        &source.to_string_lossy(),
        "-o",
        &glb.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let bytes = std::fs::read(&glb).expect("the GLB is written");
    assert_eq!(&bytes[..4], b"glTF");
    assert!(text(&o).contains("kB →"), "no size line: {}", text(&o));
    // .gltf: the JSON and its .bin beside it, nothing else.
    let gltf = dir.path().join("gltf/cube.gltf");
    let o = qtangent(&[
        "pack",
        &source.to_string_lossy(),
        "-o",
        &gltf.to_string_lossy(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(o.stderr.is_empty(), "-q printed: {}", text(&o));
    assert_eq!(
        files_under(&dir.path().join("gltf")),
        vec![dir.path().join("gltf/cube.bin"), gltf.clone()]
    );
    let json: Value =
        serde_json::from_slice(&std::fs::read(&gltf).expect("reads")).expect("JSON, not GLB");
    assert_eq!(json["buffers"][0]["uri"], "cube.bin");
    if let Some(errors) = validator_errors(&gltf) {
        assert_eq!(errors, 0, "the validator's errors on {}", gltf.display());
    }
}

/// Every refusal: one line naming the flag, exit status 2, nothing written.
#[test]
fn refusals_come_first_and_write_nothing() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let source = dir.path().join("cube.obj");
    cube(&source);
    let src = source.to_string_lossy().into_owned();
    let existing = dir.path().join("existing");
    std::fs::create_dir(&existing).expect("a folder");
    // A file without an extension: not a folder for several outputs.
    let plain = dir.path().join("plainfile");
    std::fs::write(&plain, "x").expect("writes");
    let plain = plain.to_string_lossy().into_owned();
    // A .gltf whose buffer has another stem: packed as a.gltf + a.bin, then renamed m.gltf.
    let a_gltf = dir.path().join("a.gltf");
    let o = qtangent(&["pack", &src, "-o", &a_gltf.to_string_lossy(), "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let m_gltf = dir.path().join("m.gltf");
    std::fs::rename(&a_gltf, &m_gltf).expect("renames");
    let m_gltf = m_gltf.to_string_lossy().into_owned();
    let glb = dir.path().join("cube.glb").to_string_lossy().into_owned();
    let o = qtangent(&["pack", &src, "-o", &glb, "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![src.clone(), "-o".into(), out("noext")], "no extension"),
        (vec![src.clone(), "-o".into(), out("x.png")], ".png is not"),
        (
            vec![
                src.clone(),
                "-o".into(),
                existing.to_string_lossy().into_owned(),
            ],
            "is a folder",
        ),
        (
            vec![glb.clone(), "-o".into(), glb.clone()],
            "would overwrite",
        ),
        // m.gltf reads a.bin: writing a.gltf would overwrite that buffer.
        (vec![m_gltf.clone(), "-o".into(), out("a.gltf")], "which"),
        (
            vec![out("missing.gltf"), "-o".into(), out("a.glb")],
            "no such file",
        ),
        (
            vec![src.clone(), src.clone(), "-o".into(), out("one.glb")],
            "takes a folder",
        ),
        (
            vec![src.clone(), src.clone(), "-o".into(), plain.clone()],
            "takes a folder",
        ),
        (
            vec![
                src.clone(),
                "-o".into(),
                out("r.glb"),
                "--report".into(),
                out("r.txt"),
            ],
            "--report",
        ),
    ];
    let before = files_under(dir.path());
    // With --force the input itself may be the output: packed again in place, whole.
    let o = qtangent(&["pack", &glb, "-o", &glb, "--force", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(&std::fs::read(&glb).expect("the GLB")[..4], b"glTF");
    assert_eq!(files_under(dir.path()), before, "--force left another file");
    for (args, says) in cases {
        let mut all = vec!["pack".to_string()];
        all.extend(args.iter().cloned());
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let o = qtangent(&refs);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(says), "{args:?}: {t}");
        assert_eq!(t.trim().lines().count(), 1, "{args:?}: not one line: {t}");
        assert_eq!(files_under(dir.path()), before, "{args:?} wrote a file");
    }
}

/// A folder with a bad file among good ones, packed two at a time: the good ones are written
/// (mirroring the folder), the bad one is named, the exit status says one failed, and the
/// report holds every file.
#[test]
fn a_folder_packs_in_parallel_and_one_bad_file_does_not_stop_the_others() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(assets.join("sub")).expect("folders");
    cube(&assets.join("a.obj"));
    cube(&assets.join("sub/b.obj"));
    std::fs::write(assets.join("sub/broken.gltf"), "{ not json").expect("writes");
    std::fs::write(assets.join("notes.txt"), "not a mesh").expect("writes");
    let packed = dir.path().join("packed");
    let report = dir.path().join("report.json");
    let o = qtangent(&[
        "pack",
        &assets.to_string_lossy(),
        "-o",
        &packed.to_string_lossy(),
        "-j",
        "2",
        "--report",
        &report.to_string_lossy(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("broken.gltf"), "{t}");
    assert!(t.contains("3 file(s): 2 packed, 1 failed"), "{t}");
    assert_eq!(
        files_under(&packed),
        vec![packed.join("a.glb"), packed.join("sub/b.glb")]
    );
    // Written inside the folder it packs, a second run does not take its outputs as inputs.
    let inside = assets.join("packed");
    for run in 0..2 {
        let o = qtangent(&[
            "pack",
            &assets.to_string_lossy(),
            "-o",
            &inside.to_string_lossy(),
            "-q",
        ]);
        assert_eq!(o.status.code(), Some(1), "run {run}: {}", text(&o));
        assert!(
            text(&o).contains("3 file(s): 2 packed, 1 failed"),
            "run {run}: {}",
            text(&o)
        );
    }
    let r: Value = serde_json::from_slice(&std::fs::read(&report).expect("the report"))
        .expect("the report is JSON");
    assert_eq!(r["summary"]["files"], 3);
    assert_eq!(r["summary"]["failed"], 1);
    let files = r["files"].as_array().expect("files");
    for f in files {
        for key in [
            "input",
            "output",
            "ok",
            "source_bytes",
            "output_bytes",
            "warnings",
            "seconds",
        ] {
            assert!(f.get(key).is_some(), "{key} missing from {f}");
        }
        let ok = f["ok"].as_bool().expect("ok is a bool");
        assert_eq!(f["error"].is_null(), ok, "{f}");
        if ok {
            assert!(f["output_bytes"].as_u64() > Some(0), "{f}");
            let frames = &f["frame_error_deg"];
            // smallest3x4's bound (docs/FORMATS.md): 0.25°.
            assert!(frames["normal"].as_f64().is_some_and(|n| n <= 0.25), "{f}");
        }
    }
}

/// `inspect` on a packed cube: the frames' format and bound, the counts, the extensions; as
/// text and as JSON. An OBJ and a glTF 1.0 file are refused in one line.
#[test]
fn inspect_describes_a_packed_file() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (source, glb) = packed_cube(dir.path());
    let o = qtangent(&["inspect", &glb.to_string_lossy(), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    let p = &r["primitives"][0];
    assert_eq!(p["frames"]["format"], "smallest3x4", "{p}");
    assert_eq!(p["frames"]["bound_deg"], 0.25, "{p}");
    // Six faces of four corners (their normals differ), two triangles each.
    assert_eq!(r["totals"]["vertices"], 24, "{r}");
    assert_eq!(r["totals"]["triangles"], 12, "{r}");
    assert!(
        r["extensions_used"]
            .as_array()
            .is_some_and(|l| l.contains(&Value::from("QTANGENT_frames"))),
        "{r}"
    );
    let attrs: Vec<&str> = p["attributes"]
        .as_array()
        .expect("attributes")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert!(
        attrs.contains(&"_QTANGENT") && attrs.contains(&"POSITION"),
        "{attrs:?}"
    );
    let o = qtangent(&["inspect", &glb.to_string_lossy()]);
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        t.contains("`_QTANGENT` smallest3x4 (4 B, bound 0.25°"),
        "{t}"
    );
    assert!(t.contains("24 vertices, 12 triangles"), "{t}");
    // The frame check: the 24 frames re-encode within smallest3x4's bound.
    let c = &p["frame_check"];
    assert_eq!(c["frames"], 24, "{p}");
    assert_eq!(c["within_bound"], true, "{p}");
    assert!(t.contains("frame check") && t.contains(": ok"), "{t}");

    let old = dir.path().join("old.gltf");
    std::fs::write(&old, r#"{"asset": {"version": "1.0"}}"#).expect("writes");
    // The OBJ is refused by its name, before reading (2); the glTF 1.0 file fails once read (1).
    for (file, status, says) in [(&source, 2, "OBJ"), (&old, 1, "glTF 1.0 is not supported")] {
        let o = qtangent(&["inspect", &file.to_string_lossy()]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(status), "{t}");
        assert!(t.contains(says), "{t}");
        assert_eq!(t.trim().lines().count(), 1, "{t}");
    }
}

/// `diff` of a packed cube against its OBJ: every vertex matched, the normal within
/// smallest3x4's bound (0.25°, docs/FORMATS.md); a missing file is one line and status 2.
#[test]
fn diff_measures_a_packed_file_against_its_source() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (source, glb) = packed_cube(dir.path());
    let o = qtangent(&["diff", &source.to_string_lossy(), &glb.to_string_lossy()]);
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        t.contains("matched   24 of 24 candidate vertices (0 unmatched)"),
        "{t}"
    );
    let normal_max: f64 = t
        .lines()
        .find(|l| l.starts_with("normal"))
        .and_then(|l| l.rsplit("max ").next())
        .and_then(|v| v.trim().trim_end_matches('°').parse().ok())
        .unwrap_or_else(|| panic!("no normal line: {t}"));
    assert!(normal_max <= 0.25, "{t}");
    // A file against itself, as a table row with its header: nothing unmatched, no error.
    let src = source.to_string_lossy();
    let o = qtangent(&["diff", &src, &src, "--exact", "--row", "self", "--header"]);
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 3, "{t}");
    assert!(lines[0].starts_with("| file |"), "{t}");
    assert!(
        lines[2].starts_with("| self |") && lines[2].contains("| 0 / 0 |"),
        "{t}"
    );
    assert!(lines[2].contains("| 0.000 / 0.000 |"), "{t}");
    let missing = dir.path().join("missing.glb");
    let o = qtangent(&[
        "diff",
        &source.to_string_lossy(),
        &missing.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(text(&o).trim().lines().count(), 1, "{}", text(&o));
}

/// A dense height-field grid as OBJ, (n + 1)² vertices with UVs and no normals (so they and the
/// MikkTSpace tangents are generated): a file that takes a moment to pack.
fn grid(path: &Path, n: usize) {
    let mut obj = String::new();
    for j in 0..=n {
        for i in 0..=n {
            let (u, v) = (i as f32 / n as f32, j as f32 / n as f32);
            let h = 0.1 * (6.0 * u).sin() * (5.0 * v).cos();
            obj.push_str(&format!("v {u} {v} {h}\nvt {u} {v}\n"));
        }
    }
    for j in 0..n {
        for i in 0..n {
            let a = j * (n + 1) + i + 1;
            let (b, c) = (a + 1, a + n + 1);
            let d = c + 1;
            obj.push_str(&format!(
                "f {a}/{a} {b}/{b} {d}/{d}\nf {a}/{a} {d}/{d} {c}/{c}\n"
            ));
        }
    }
    std::fs::write(path, obj).expect("writes the grid");
}

/// `--exact-mikktspace` (pack, bake, render, view): the same grid packed with f32 frames by
/// the default tangent generator (meshoptimizer's MikkTSpace-compatible one) and by the
/// MikkTSpace reference code: every vertex matched, the handedness kept, tangents within a
/// quarter of an 8-bit normal-map step (0.112°: the library's bound between the two,
/// `tests/unit/mesh/generators.rs`), and both spellings in `--help`.
#[test]
fn exact_mikktspace_packs_within_a_quarter_step_of_the_default() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let source = dir.path().join("grid.obj");
    grid(&source, 40);
    let src = source.to_string_lossy();
    let out = |name: &str, extra: &[&str]| {
        let glb = dir.path().join(name);
        let glb_s = glb.to_string_lossy().into_owned();
        let args = [
            &[
                "pack", &*src, "-o", &glb_s, "-q", "--frames", "f32x4", "--float",
            ][..],
            extra,
        ]
        .concat();
        let o = qtangent(&args);
        assert!(o.status.success(), "{}", text(&o));
        glb_s
    };
    let (fast, exact) = (
        out("fast.glb", &[]),
        out("exact.glb", &["--exact-mikktspace"]),
    );
    let o = qtangent(&["diff", &exact, &fast]);
    let t = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        t.contains("(0 unmatched)") && t.contains("handedness kept 100.000%"),
        "{t}"
    );
    let tangent_max: f64 = t
        .lines()
        .find(|l| l.starts_with("tangent"))
        .and_then(|l| l.rsplit("max ").next())
        .and_then(|v| v.trim().trim_end_matches('°').parse().ok())
        .unwrap_or_else(|| panic!("no tangent line: {t}"));
    assert!(tangent_max <= 0.449 / 4.0, "{t}");
    for tool in ["pack", "bake", "render", "view"] {
        let help = text(&qtangent(&[tool, "--help"]));
        assert!(
            help.contains("--exact-mikktspace"),
            "{tool} --help:\n{help}"
        );
    }
}

/// Ctrl-C in the middle of a batch: status 130, and what is left is whole — every output a
/// complete file, no hidden temporary file (one planted under the run's own temporary name, as
/// if it were being written when the signal came, is removed too).
#[cfg(unix)]
#[test]
fn ctrl_c_leaves_only_whole_outputs() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let (inputs, out) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(&inputs).expect("makes the folder");
    // 40 grids of 121² vertices: about 40 ms each to pack here, seconds for the batch.
    for k in 0..40 {
        grid(&inputs.join(format!("g{k:02}.obj")), 120);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_qtangent"))
        .args(["pack", &inputs.to_string_lossy(), "-o"])
        .arg(format!("{}/", out.display()))
        .args(["--frames", "smallest3x4", "-q"])
        .spawn()
        .expect("qtangent starts");
    // Once the run writes into the folder (it watches it from its first output on), plant a
    // temporary file under its name pattern, then interrupt.
    let start = std::time::Instant::now();
    while !out.is_dir() || std::fs::read_dir(&out).map_or(0, Iterator::count) < 3 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no outputs appeared"
        );
        assert!(
            child.try_wait().expect("waits").is_none(),
            "the batch ended before Ctrl-C"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let planted = out.join(format!(".g99.glb.{}.partial", child.id()));
    std::fs::write(&planted, b"half a file").expect("plants");
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(kill.success());
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(130), "{status:?}");
    let left = files_under(&out);
    assert!(!planted.exists(), "the temporary file was left");
    assert!(
        left.len() < 40,
        "the batch was not interrupted: {} outputs",
        left.len()
    );
    for f in &left {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        assert!(!name.starts_with('.'), "a hidden file is left: {name}");
        // A whole GLB: its header's length is the file's.
        let bytes = std::fs::read(f).expect("reads");
        assert!(bytes.starts_with(b"glTF"), "{name} is not a GLB");
        let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        assert_eq!(declared as usize, bytes.len(), "{name} is cut short");
    }
}

/// A glob pattern passed on unexpanded (quoted in a shell) is expanded by the command: several
/// inputs mirrored from the folder before the wildcard; a pattern that matches nothing is
/// refused before any work.
#[test]
fn glob_patterns_are_expanded() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let inputs = dir.path().join("in");
    std::fs::create_dir_all(inputs.join("sub")).expect("makes folders");
    cube(&inputs.join("a.obj"));
    cube(&inputs.join("sub/b.obj"));
    std::fs::write(inputs.join("notes.txt"), "not a mesh").expect("writes");
    let out = dir.path().join("out");
    let pattern = format!("{}/**/*.obj", inputs.display());
    let o = qtangent(&["pack", &pattern, "-o", &format!("{}/", out.display()), "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        files_under(&out),
        vec![out.join("a.glb"), out.join("sub/b.glb")],
        "mirrored from {}",
        inputs.display()
    );
    // Twice, with the output folder inside what the pattern matches (folders and files, each
    // file matched twice: by itself and under its folder): the first run's outputs are not
    // inputs, and a file matched twice is packed once.
    let packed = inputs.join("packed");
    let everything = format!("{}/**/*", inputs.display());
    for _ in 0..2 {
        let o = qtangent(&[
            "pack",
            &everything,
            "-o",
            &format!("{}/", packed.display()),
            "-q",
            "--force",
        ]);
        assert!(o.status.success(), "{}", text(&o));
        assert_eq!(
            files_under(&packed),
            vec![packed.join("a.glb"), packed.join("sub/b.glb")]
        );
    }
    let none = format!("{}/*.gltf", inputs.display());
    let o = qtangent(&[
        "pack",
        &none,
        "-o",
        &format!("{}/", dir.path().join("none").display()),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("no file or folder matches"),
        "{}",
        text(&o)
    );
    assert!(!dir.path().join("none").exists());
}

/// The `_QTANGENT` frames of the cube packed as `format` (positions f32), overwritten by
/// `fill(vertex, bytes of the frame)`, written as `DIR/NAME.glb`; its path.
fn cube_with_frames(
    dir: &Path,
    name: &str,
    format: &str,
    fill: &dyn Fn(usize, &mut [u8]),
) -> PathBuf {
    let source = dir.join(format!("{name}.obj"));
    cube(&source);
    let glb = dir.join(format!("{name}-packed.glb"));
    let o = qtangent(&[
        "pack",
        &source.to_string_lossy(),
        "-o",
        &glb.to_string_lossy(),
        "--frames",
        format,
        "--float",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let mut bytes = std::fs::read(&glb).expect("reads");
    let word =
        |b: &[u8], at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize;
    let json_len = word(&bytes, 12);
    let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("the GLB's JSON");
    let accessor = json["meshes"][0]["primitives"][0]["attributes"]["_QTANGENT"]
        .as_u64()
        .expect("a _QTANGENT accessor") as usize;
    let a = &json["accessors"][accessor];
    let view = &json["bufferViews"][a["bufferView"].as_u64().expect("a view") as usize];
    let size = match format {
        "f32x4" => 16,
        "smallest3x4" => 4,
        other => panic!("no frame size for {other}"),
    };
    let stride = view["byteStride"].as_u64().map_or(size, |s| s as usize);
    let start = 20
        + json_len
        + 8
        + view["byteOffset"].as_u64().unwrap_or(0) as usize
        + a["byteOffset"].as_u64().unwrap_or(0) as usize;
    for v in 0..a["count"].as_u64().expect("a count") as usize {
        let at = start + v * stride;
        fill(v, &mut bytes[at..at + size]);
    }
    let out = dir.join(format!("{name}.glb"));
    std::fs::write(&out, &bytes).expect("writes");
    out
}

/// `inspect`'s frame check fails (status 1) on streams that decode but are not the mesh's frames:
/// f32x4 of NaN (no unit frame), and smallest3x4 — where every 4-byte pattern is a valid
/// quaternion — of zeros (one frame for every face of the cube: 3 of 6 faces' normals face
/// away from it at least) and of seeded random bytes (about half face away). The cube's own
/// frames pass (above).
#[test]
fn inspect_frame_check_fails_on_streams_that_hold_no_frames() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let random: Vec<u8> = (0..24 * 4)
        .map(|_| {
            // xorshift64*, seeded: the same bytes every run.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect();
    type Fill<'a> = &'a dyn Fn(usize, &mut [u8]);
    let cases: [(&str, &str, Fill); 3] = [
        ("nan", "f32x4", &|_, b| {
            for c in b.chunks_exact_mut(4) {
                c.copy_from_slice(&f32::NAN.to_le_bytes());
            }
        }),
        ("zeros", "smallest3x4", &|_, b| b.fill(0)),
        ("random", "smallest3x4", &|v, b| {
            b.copy_from_slice(&random[4 * v..4 * v + 4])
        }),
    ];
    for (name, format, fill) in cases {
        let file = cube_with_frames(dir.path(), name, format, fill);
        let o = qtangent(&["inspect", &file.to_string_lossy()]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {t}");
        assert!(t.contains("frame check"), "{name}: {t}");
        assert!(
            t.contains("FAILED") || t.contains("OVER THE BOUND"),
            "{name}: {t}"
        );
    }
}

/// A `.gltf` output whose name needs percent-encoding in its buffer URI (a space, a `%`) reads
/// back: its `.bin` is found.
#[test]
fn a_gltf_named_with_a_space_and_a_percent_reads_back() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let source = dir.path().join("cube.obj");
    cube(&source);
    let out = dir.path().join("my cube 100%.gltf");
    let o = qtangent(&[
        "pack",
        &source.to_string_lossy(),
        "-o",
        &out.to_string_lossy(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(dir.path().join("my cube 100%.bin").is_file());
    let o = qtangent(&["inspect", &out.to_string_lossy(), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(r["totals"]["vertices"], 24, "{r}");
    if let Some(errors) = validator_errors(&out) {
        assert_eq!(errors, 0, "the validator finds errors in {}", out.display());
    }
}
