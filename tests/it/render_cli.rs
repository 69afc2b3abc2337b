//! `qtangent render` as a user runs it: the default scene in all modes writes its pictures
//! and prints the tables; bad input is one line on stderr and no picture, exit status 2 for a
//! refusal before any work (flags, a missing file) and 1 for a failure while working.
//! Needs a GPU adapter for the successful run (lavapipe is enough).

use crate::common;

use std::process::Output;

use common::{cli, stderr};

fn render(args: &[&str]) -> Output {
    common::run_tool("qtangent render", args)
}

#[test]
fn default_scene_writes_every_picture_and_the_tables() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out_png = dir.path().join("scene.png");
    let out = render(&cli(
        "--size 320x180 --time-frames 1 -o {}",
        &[out_png.to_str().expect("utf-8 path")],
    ));
    assert!(out.status.success(), "render failed: {}", stderr(&out));
    for suffix in [
        "reference",
        "qtangent",
        "quatmap",
        "quatmap-tangent",
        "diff-qtangent",
        "diff-quatmap",
        "diff-quatmap-tangent",
        "sheet",
    ] {
        let p = dir.path().join(format!("scene-{suffix}.png"));
        let img = image::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(img.width() > 0, "{} is empty", p.display());
    }
    common::assert_stdout_has(
        &out,
        &[
            "PSNR",
            "quatmap",
            "quatmap-tangent",
            "qtangent snorm16x4",
            "frame time",
            // The spun plate's map is a twist alone: BC5 of (z, w), like the normal maps' (x, y).
            "Maps stored as: object-space bc7; tangent-space bc5.",
        ],
    );
}

#[test]
fn bad_input_is_one_line_with_the_status_of_its_kind() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_owned();
    let (missing, broken, png) = (path("nope.gltf"), path("broken.gltf"), path("x.png"));
    std::fs::write(&broken, b"{ not json").expect("write");
    let (o, out_png) = (png.as_str(), std::path::Path::new(&png));
    let jpeg = path("x.jpg");
    let cases: [(&str, &[&str], i32, &str); 6] = [
        ("{} -o {}", &[&missing, o], 2, "nope.gltf"),
        ("{} -o {}", &[&broken, o], 1, "broken.gltf"),
        ("--aniso 2 -o {}", &[o], 2, "--aniso"),
        ("--map-size 0 -o {}", &[o], 2, "--map-size"),
        ("--zoom-out 0 -o {}", &[o], 2, "--zoom-out"),
        ("-o {}", &[&jpeg], 2, ".png"),
    ];
    for (line, paths, status, want) in cases {
        let args = cli(line, paths);
        let (_, err) = common::run_failing("qtangent render", &args, status, want);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("qtangent render: "), "{err}");
        assert!(!out_png.exists(), "{args:?} wrote a picture");
        assert!(
            !std::path::Path::new(&jpeg).exists(),
            "{args:?} wrote a picture"
        );
    }
    // Clap rejects a malformed size before anything runs (status 2, its convention).
    let out = render(&cli("--size 0x5", &[]));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("at least 1"), "{}", stderr(&out));
}

/// `--camera`: the camera a run prints (eye and target), handed back, draws the same picture;
/// a camera that is not six finite numbers with the eye away from the target, or that comes with
/// the orbit flags, is refused before any work (clap's status 2).
#[test]
fn the_printed_camera_draws_the_same_picture() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
    let (a_path, b_path) = (a.to_str().expect("utf-8"), b.to_str().expect("utf-8"));
    let base = "--mode reference --size 160x90 --time-frames 0";
    let camera_of = |out: &Output| -> String {
        assert!(out.status.success(), "render failed: {}", stderr(out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("camera: "))
            .and_then(|l| l.split_whitespace().next())
            .expect("a camera line")
            .to_string()
    };
    let first = render(&cli(
        &format!("{base} --yaw 60 --pitch -10 --zoom-out 1.3 -o {{}}"),
        &[a_path],
    ));
    let camera = camera_of(&first);
    let second = render(&cli(
        &format!("{base} --camera {{}} -o {{}}"),
        &[&camera, b_path],
    ));
    let again = camera_of(&second);
    let numbers =
        |c: &str| -> Vec<f32> { c.split(',').map(|x| x.parse().expect("a number")).collect() };
    for (x, y) in numbers(&camera).into_iter().zip(numbers(&again)) {
        // The eye goes through the orbit angles and back: f32 rounding, a few ulps of 10.
        assert!(
            (x - y).abs() <= 1e-5 * x.abs().max(1.0),
            "{camera} then {again}"
        );
    }
    let picture = |p: &std::path::Path| image::open(p).expect("a picture").to_rgba8();
    let d = qtangent::render::diff(&picture(&a), &picture(&b), None).expect("same size");
    // The same view up to that rounding: no edge moves by a thousandth of a pixel, so only
    // pixels at exact coverage ties can change; 60 dB is the renderer's round-trip bound.
    assert!(d.psnr_db >= 60.0, "the printed camera drew {d}");
    // The same eye looking the same way at a target a fifth of the way to the scene: the same
    // view, so the same picture (same bound). The near and far planes hold the scene, not only a
    // sphere about the target, which would clip everything beyond it.
    let n = numbers(&camera);
    let near_target: Vec<String> = (0..3)
        .map(|i| n[i] + 0.2 * (n[i + 3] - n[i]))
        .chain(n[..3].iter().copied())
        .map(|x| x.to_string())
        .collect();
    let near_target = [&near_target[3..], &near_target[..3]].concat().join(",");
    let c = dir.path().join("c.png");
    let third = render(&cli(
        &format!("{base} --camera {{}} -o {{}}"),
        &[&near_target, c.to_str().expect("utf-8")],
    ));
    camera_of(&third);
    let d = qtangent::render::diff(&picture(&a), &picture(&c), None).expect("same size");
    assert!(d.psnr_db >= 60.0, "--camera {near_target} drew {d}");
    // Straight down (and anything steeper than the orbit's ±89°) is refused, not moved.
    for bad in [
        "1,2,3",
        "1,2,3,1,2,3",
        "a,b,c,d,e,f",
        "1,2,3,inf,0,0",
        "0,5,0,0,0,0",
        "0.01,-5,0,0,0,0",
    ] {
        let out = render(&cli(
            &format!("{base} --camera {{}} -o {{}}"),
            &[bad, b_path],
        ));
        assert_eq!(
            out.status.code(),
            Some(2),
            "--camera {bad}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("--camera"), "{}", stderr(&out));
    }
    let out = render(&cli(
        &format!("{base} --camera {{}} --yaw 10 -o {{}}"),
        &[&camera, b_path],
    ));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
}

/// A tangent-space map for the default scene's copper material: a flat normal map's rotations
/// (a tilt of 0.32°: 8-bit 128 is 0.5 + 1/510), BC5, 8×8 with mips.
fn flat_map() -> qtangent::qmap::EncodedMap {
    use qtangent::qmap::{Baker, Bc7Quality, MapFormat, MapOptions, RasterBackend, TangentInput};
    let flat = image::RgbaImage::from_pixel(8, 8, image::Rgba([128, 128, 255, 255]));
    let options = MapOptions {
        format: Some(MapFormat::Bc5),
        bc7: Bc7Quality::UltraFast,
        ..MapOptions::default()
    };
    let input = TangentInput {
        what: "copper",
        normal_map: Some(&flat),
        normal_scale: 1.0,
        ..TangentInput::default()
    };
    Baker::new(RasterBackend::CPU, &options)
        .tangent(&input, &mut ())
        .expect("bakes")
        .expect("a normal map makes a map")
        .stored
}

/// An object-space map of a small torus that keeps its handedness plane, written as
/// `dir/torus.ktx2` and `dir/torus.handedness.ktx2`: the files written, map first.
fn object_map_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    use qtangent::qmap::{
        BakeMesh, Baker, MapFormat, MapOptions, ObjectInput, RasterBackend, Repack,
    };
    let prim = qtangent::mesh::Primitive::torus(1.0, 0.4, 16, 8)
        .prepare()
        .expect("prepares");
    let options = MapOptions {
        format: Some(MapFormat::Rgba16Float),
        keep_handedness: true,
        ..MapOptions::default()
    };
    let input = ObjectInput {
        mesh: BakeMesh::from_prepared("torus", &[&prim]),
        normal_map: None,
        direction: None,
        size: 16,
        repack: Repack::Never,
    };
    let baked = Baker::new(RasterBackend::CPU, &options)
        .object(input, &mut ())
        .expect("bakes");
    baked
        .stored
        .write_ktx2(&dir.join("torus.ktx2"), None)
        .expect("writes")
}

#[test]
fn maps_load_from_ktx2_files() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let maps = dir.path().join("maps");
    std::fs::create_dir(&maps).expect("maps folder");
    let map = flat_map();
    map.write_ktx2(&maps.join("copper.ktx2"), None)
        .expect("writes");
    // A file whose name is not the material's is found by its `qtangent.material` key (how
    // `bake` names a map whose stem another material took).
    map.write_ktx2(&maps.join("glazed_ceramic-2.ktx2"), Some("glazed ceramic"))
        .expect("writes");
    let out_png = dir.path().join("flat.png");
    let out = render(&cli(
        "--mode quatmap-tangent --size 160x90 --maps-dir {} -o {}",
        &[
            maps.to_str().expect("utf-8"),
            out_png.to_str().expect("utf-8"),
        ],
    ));
    let err = stderr(&out);
    assert!(out.status.success(), "render failed: {err}");
    assert!(
        err.contains("qtangent render: copper: tangent-space map loaded from")
            && err.contains("copper.ktx2"),
        "{err}"
    );
    assert!(
        err.contains("qtangent render: glazed ceramic: tangent-space map loaded from")
            && err.contains("glazed_ceramic-2.ktx2"),
        "{err}"
    );
    assert!(out_png.exists());
}

#[test]
fn bad_map_files_are_one_line_with_the_status_of_their_kind() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out_png = dir.path().join("x.png");
    let o = out_png.to_str().expect("utf-8 path");
    let written = flat_map()
        .write_ktx2(&dir.path().join("good.ktx2"), None)
        .expect("writes");
    let good = std::fs::read(&written[0]).expect("reads");
    // Truncated.
    let truncated = dir.path().join("truncated");
    std::fs::create_dir(&truncated).expect("folder");
    std::fs::write(truncated.join("copper.ktx2"), &good[..good.len() / 2]).expect("write");
    // Another vkFormat: the handedness plane's R8 where a map should be.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).expect("folder");
    let torus = object_map_files(dir.path());
    std::fs::copy(&torus[1], other.join("copper.ktx2")).expect("copies the plane");
    let not_a_folder = dir.path().join("file");
    std::fs::write(&not_a_folder, b"").expect("write");
    // Status 1: found while loading the maps; 2: refused before any work.
    for (folder, status, want) in [
        (&truncated, 1, "truncated"),
        (&other, 1, "vkFormat 10"),
        (&not_a_folder, 2, "not a folder"),
    ] {
        let args = cli(
            "--maps-dir {} --size 64x36 -o {}",
            &[folder.to_str().expect("utf-8"), o],
        );
        let (_, err) = common::run_failing("qtangent render", &args, status, want);
        // The error is the last line, one line naming the problem.
        let last = err.trim_end().lines().last().unwrap_or_default();
        assert!(
            last.starts_with("qtangent render: ") && last.contains(want),
            "{folder:?}: the last line does not say {want:?}: {err}"
        );
        assert!(!out_png.exists(), "{folder:?} wrote a picture");
    }
}

/// The PSNR column of `render --mode all`'s table for `mode`.
fn psnr_of(stdout: &str, mode: &str) -> f64 {
    let row = stdout
        .lines()
        .find(|l| l.starts_with(&format!("| {mode} |")))
        .unwrap_or_else(|| panic!("no {mode} row in:\n{stdout}"));
    let cell = row.split('|').nth(2).expect("a PSNR cell").trim();
    if cell == "inf" {
        f64::INFINITY
    } else {
        cell.parse()
            .unwrap_or_else(|e| panic!("{mode}: PSNR {cell:?}: {e}"))
    }
}

/// A glTF using KHR_materials_anisotropy with its texture in KTX2 (the swirl disc, written by
/// `aniso --gltf`) renders in every mode: the quaternion maps within the targets of the
/// reference (≥ 40 dB object space, ≥ 50 dB tangent space, maps stored rgba16f), and a highlight
/// that `--aniso 0` visibly changes. A BC7 KTX2 texture renders too.
#[test]
fn anisotropic_gltf_with_ktx2_textures_renders_in_every_mode() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let d = dir.path().to_str().expect("utf-8 path");
    let out = common::run_tool("aniso", &["--gltf", d, "--texture", "256"]);
    assert!(out.status.success(), "aniso --gltf: {}", stderr(&out));
    let gltf = dir.path().join("swirl_disc.gltf");
    let gltf = gltf.to_str().expect("utf-8 path");
    let all = dir.path().join("all.png");
    let stdout = render_disc(
        "{} --mode all --map-format rgba16f -o {}",
        &[gltf, all.to_str().expect("utf-8 path")],
    );
    let (object, tangent) = (
        psnr_of(&stdout, "quatmap"),
        psnr_of(&stdout, "quatmap-tangent"),
    );
    assert!(object >= 40.0, "object-space map {object} dB:\n{stdout}");
    assert!(tangent >= 50.0, "tangent-space map {tangent} dB:\n{stdout}");
    let iso = dir.path().join("iso.png");
    render_disc(
        "{} --mode reference --aniso 0 -o {}",
        &[gltf, iso.to_str().expect("utf-8 path")],
    );
    let open = |p: &std::path::Path| {
        image::open(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .to_rgba8()
    };
    let diff = qtangent::render::diff(
        &open(&dir.path().join("all-reference.png")),
        &open(&iso),
        None,
    )
    .expect("same size");
    // "Visibly": a mean squared error of more than one level in a hundred (30 dB); measured 23.
    assert!(
        diff.psnr_db < 30.0,
        "--aniso 0 barely changes the picture: {} dB",
        diff.psnr_db
    );

    let bc7 = tempfile::tempdir().expect("temporary folder");
    let b = bc7.path().to_str().expect("utf-8 path");
    let out = common::run_tool(
        "aniso",
        &["--gltf", b, "--texture", "256", "--gltf-texture", "bc7"],
    );
    assert!(out.status.success(), "aniso --gltf bc7: {}", stderr(&out));
    let gltf = bc7.path().join("swirl_disc.gltf");
    let png = bc7.path().join("bc7.png");
    let stdout = render_disc(
        "{} --mode all -o {}",
        &[
            gltf.to_str().expect("utf-8 path"),
            png.to_str().expect("utf-8 path"),
        ],
    );
    assert!(
        stdout.contains("tangent-space bc5"),
        "the tangent-space map of a twist alone is stored bc5 (of z, w):\n{stdout}"
    );
}

/// `render` with the [`cli`] line `line` and `paths`, viewing the swirl disc from above
/// (200×200, pitch 89°, one frame); asserts that it succeeds and returns its stdout.
fn render_disc(line: &str, paths: &[&str]) -> String {
    let view = "--size 200x200 --pitch 89 --yaw 0 --time-frames 0";
    let args = [cli(line, paths), cli(view, &[])].concat();
    let out = render(&args);
    assert!(out.status.success(), "render {args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The bumpy swirl disc with `texture`² textures written into `dir` by `aniso --gltf --bumps`;
/// the path of its glTF file.
fn bumpy_disc(dir: &std::path::Path, texture: &str) -> String {
    let d = dir.to_str().expect("utf-8 path");
    let out = common::run_tool("aniso", &["--gltf", d, "--texture", texture, "--bumps"]);
    assert!(
        out.status.success(),
        "aniso --gltf --bumps: {}",
        stderr(&out)
    );
    let gltf = dir.join("swirl_disc_bumps.gltf");
    gltf.to_str().expect("utf-8 path").to_owned()
}

/// The bumpy swirl disc (a normal map under the anisotropy grooves: a tilt and a twist per
/// texel) stores its tangent-space map as two BC5 layers by default, and that map renders
/// closer to the reference than BC7's four channels at the same content — the measurement that
/// chose the default (docs/MAPS.md: 40.4 against 33.1 dB at this size).
#[test]
fn tilt_and_twist_maps_default_to_two_bc5_layers_and_beat_bc7() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let gltf = bumpy_disc(dir.path(), "256");
    let gltf = gltf.as_str();
    let tangent_psnr = |format: Option<&str>| {
        let png = dir
            .path()
            .join(format!("{}.png", format.unwrap_or("default")));
        let png = png.to_str().expect("utf-8 path");
        let stdout = match format {
            Some(f) => render_disc("{} --mode all --map-format {} -o {}", &[gltf, f, png]),
            None => render_disc("{} --mode all -o {}", &[gltf, png]),
        };
        (psnr_of(&stdout, "quatmap-tangent"), stdout)
    };
    let (pair, stdout) = tangent_psnr(None);
    assert!(
        stdout.contains("tangent-space bc5x2"),
        "a tilt and a twist are stored as two BC5 layers by default:\n{stdout}"
    );
    // The reference with both textures BC5, as an engine ships them (the comparison at equal
    // bytes): its row, its picture and its heatmap. BC5 changes the textures, so the picture is
    // not the reference's (a finite PSNR); how much it changes them is
    // tests/unit/qmap/engine.rs's to check.
    let engine = psnr_of(&stdout, "reference, BC5 textures (engine)");
    assert!(
        engine.is_finite(),
        "the BC5 textures drew the reference unchanged:\n{stdout}"
    );
    for suffix in ["reference-bc5", "diff-reference-bc5"] {
        let p = dir.path().join(format!("default-{suffix}.png"));
        assert!(p.is_file(), "{} not written:\n{stdout}", p.display());
    }
    let (bc7, _) = tangent_psnr(Some("bc7"));
    // 3 dB: half the mean squared error, the least a default should win by (measured 7.2 dB).
    assert!(
        pair >= bc7 + 3.0,
        "bc5x2 {pair} dB against bc7 {bc7} dB:\n{stdout}"
    );
}

/// The goal for compressed normal + twist content, on the bumpy swirl disc (a normal map under
/// the anisotropy grooves) at its 512² textures, drawn by `render --mode all` at 640×480 from
/// the default view: the tangent-space map stored as two BC5 layers (2 B/texel) renders within
/// 0.6 dB of the same map stored rgba16f (8 B/texel). Measured on lavapipe (Mesa 22.3, which
/// decodes BC5 to 8 bits; CI's adapter), 46.61 against 47.15 dB (0.54);
/// before the BC5 endpoints were refined (`src/qmap/bc/bc4.rs`), 44.94 (2.21). Since the normal
/// maps' levels are box-filtered (issue 41), 46.15 against 46.75 dB (0.60): met at its edge.
#[test]
fn tilt_and_twist_bc5_pair_renders_within_0_6_db_of_rgba16f() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let gltf = bumpy_disc(dir.path(), "512");
    let gltf = gltf.as_str();
    let tangent_psnr = |format: &str| {
        let png = dir.path().join(format!("{format}.png"));
        let png = png.to_str().expect("utf-8 path");
        let line = "{} --mode all --map-format {} --size 640x480 --time-frames 0 -o {}";
        let args = cli(line, &[gltf, format, png]);
        let out = render(&args);
        assert!(out.status.success(), "render {args:?}: {}", stderr(&out));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        (psnr_of(&stdout, "quatmap-tangent"), stdout)
    };
    let (pair, stdout) = tangent_psnr("bc5x2");
    let (exact, _) = tangent_psnr("rgba16f");
    eprintln!("bumpy disc, quatmap-tangent: bc5x2 {pair:.2} dB, rgba16f {exact:.2} dB");
    assert!(
        pair >= exact - 0.6,
        "bc5x2 {pair} dB against rgba16f {exact} dB (goal: within 0.6 dB):\n{stdout}"
    );
}

/// Issue 41's normal + direction on content beyond the disc: the lab corpus' brushed lamp
/// (`lamp.gltf`: a knurled steel shade brushed along a swinging helix, a grooved brass base
/// spun in a spiral; curved parts, 512² textures), drawn by `render --mode all` at 640×360: the
/// default `bc5x2` map against the same map stored rgba16f, and the engine's BC5 normal + BC5
/// direction textures. The goal (within 0.6 dB of rgba16f) is not met — 44.08 against 50.01 dB
/// here, 44.68 against 49.06 at 960×540 (docs/MAPS.md; the engine's pair 45.17): printed, with a
/// regression floor 0.6 dB (the allowance the project gives a BC5 encoder change) under the
/// figure measured when the test was added.
#[test]
fn the_brushed_lamp_bc5x2_against_rgba16f() {
    let dir = tempfile::tempdir().expect("temporary folder");
    qtangent::lab::content::corpus(dir.path(), &[]).expect("the lab corpus");
    let lamp = dir.path().join("lamp.gltf");
    let lamp = lamp.to_str().expect("utf-8 path");
    let run = |format: &str| {
        let png = dir.path().join(format!("{format}.png"));
        let png = png.to_str().expect("utf-8 path");
        let line = "{} --mode all --map-format {} --size 640x360 --time-frames 0 -o {}";
        let args = cli(line, &[lamp, format, png]);
        let out = render(&args);
        assert!(out.status.success(), "render {args:?}: {}", stderr(&out));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        (psnr_of(&stdout, "quatmap-tangent"), stdout)
    };
    let (pair, stdout) = run("bc5x2");
    let (exact, _) = run("rgba16f");
    let engine = psnr_of(&stdout, "reference, BC5 textures (engine)");
    eprintln!(
        "brushed lamp, quatmap-tangent: bc5x2 {pair:.2} dB, rgba16f {exact:.2} dB, the engine's BC5 pair {engine:.2} dB"
    );
    assert!(
        pair >= LAMP_BC5X2_DB - 0.6,
        "bc5x2 {pair} dB (rgba16f {exact} dB):\n{stdout}"
    );
}

/// The lamp's bc5x2 figure at 640×360 when the test was added (lavapipe).
const LAMP_BC5X2_DB: f64 = 44.08;
