//! The plugin in Bevy, headless on the machine's Vulkan adapter (lavapipe in CI): packed files
//! drawn through `bevy_qtangent` against their sources drawn by Bevy's own loader and
//! StandardMaterial, with the same camera and light (the viewer example, `--screenshot`).
//!
//! Needs the real assets (`QTANGENT_ASSETS`) and the `qtangent` command (`QTANGENT_PACK`, the
//! root workspace's `target/release/qtangent`, beside which the lab's `aniso` and `corpus`
//! programs are built); `cargo xtask test` sets both. Without them a test records that
//! it did not run; under CI it fails.

#[path = "../../../tests/it/common/not_run.rs"]
#[allow(dead_code)]
mod not_run;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of real assets, or `None` (recorded; a failure under CI).
fn assets() -> Option<PathBuf> {
    needed("QTANGENT_ASSETS", "no QTANGENT_ASSETS (the real assets)")
}

/// The `qtangent` command, which packs.
fn pack_tool() -> Option<PathBuf> {
    needed("QTANGENT_PACK", "no QTANGENT_PACK (the qtangent command)")
}

/// qtangent's lab program `name` (`lab/src/bin/`), built beside the command.
fn lab_tool(name: &str) -> PathBuf {
    let command = pack_tool().expect("checked by the caller");
    let tool = command.with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        tool.is_file(),
        "{} not built (beside the command: `cargo build --release -p qtangent-lab`)",
        tool.display()
    );
    tool
}

fn needed(var: &str, reason: &str) -> Option<PathBuf> {
    match std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.exists())
    {
        Some(p) => Some(p),
        None => {
            assert!(
                std::env::var_os("CI").is_none(),
                "{reason}: under CI every test runs"
            );
            not_run::did_not_run(reason);
            None
        }
    }
}

/// qtangent's `aniso` tool.
fn aniso_tool() -> PathBuf {
    lab_tool("aniso")
}

/// A folder for this test's files.
fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `qtangent pack SOURCE -o OUT ARGS…`.
fn pack(source: &Path, out: &Path, args: &[&str]) {
    let tool = pack_tool().expect("checked by the caller");
    let status = Command::new(tool)
        .arg("pack")
        .arg(source)
        .arg("-o")
        .arg(out)
        .args(args)
        .status()
        .expect("pack runs");
    assert!(status.success(), "pack {} failed", source.display());
}

/// The viewer example next to this test binary (cargo builds examples for `cargo test`).
fn viewer_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let bin = dir
        .join("examples")
        .join(format!("viewer{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.is_file(), "{} not built", bin.display());
    bin
}

/// What one viewer run printed.
struct Run {
    camera: String,
    frame_ms: Option<f64>,
    /// The "frame bytes:" line: bytes of the frame attributes and per vertex.
    bytes: String,
}

/// Runs the viewer headless on `file` with `args`, writing `out`.
fn view(file: &Path, out: &Path, args: &[&str]) -> Run {
    let output = Command::new(viewer_binary())
        .arg(file)
        .arg("--screenshot")
        .arg(out)
        .args(args)
        // No window: a display in the environment must not change what the test draws.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("the viewer runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "viewer {} {args:?} failed:\n{stdout}\n{stderr}",
        file.display()
    );
    // Bevy logs a failed pipeline or an unread attribute as an error or a warning; none is
    // expected from these files.
    let problems: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("ERROR") || (l.contains("WARN") && !benign(l)))
        .collect();
    assert!(
        problems.is_empty(),
        "viewer {} {args:?} logged:\n{}",
        file.display(),
        problems.join("\n")
    );
    let field = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::trim)
            .map(String::from)
    };
    Run {
        camera: field("camera:").expect("the viewer prints its camera"),
        frame_ms: field("frame time:").and_then(|f| f.split_whitespace().next()?.parse().ok()),
        bytes: field("frame bytes:").unwrap_or_default(),
    }
}

/// Warnings that say nothing about the picture: the software adapter, and `_QTANGENT` left
/// unread by Bevy's own loader in the runs without the plugin.
fn benign(line: &str) -> bool {
    [
        "software rendering",
        "llvmpipe",
        "lavapipe",
        "Unknown vertex attribute _QTANGENT",
        "GPU: ",
    ]
    .iter()
    .any(|s| line.contains(s))
}

/// RGB of a PNG.
fn rgb(path: &Path) -> image::RgbImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgb8()
}

/// A pixel the reference `a` lights (a channel at 32 or more) that `b` draws black (every channel
/// at 2 or less) is a NaN or a zero-length frame in `b`'s shading (issue 39: one such pixel in
/// the GPU mode with a map): none may be. The clear colour is grey (43, 44, 47), so a silhouette
/// moved by a sub-pixel is not black.
fn assert_no_black_where_lit(a: &image::RgbImage, b: &image::RgbImage) {
    let holes: Vec<(u32, u32)> = a
        .enumerate_pixels()
        .filter(|(x, y, p)| {
            let q = b.get_pixel(*x, *y);
            p.0.iter().any(|&c| c >= 32) && q.0.iter().all(|&c| c <= 2)
        })
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(
        holes.is_empty(),
        "{} pixels lit in the reference are black (NaN or zero-length frames), the first at {:?}",
        holes.len(),
        holes.first()
    );
}

/// PSNR (dB) of `b` against `a` over every channel of every pixel; checks first that `b` has
/// no black hole where `a` is lit ([`assert_no_black_where_lit`]).
fn psnr(a: &image::RgbImage, b: &image::RgbImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    assert_no_black_where_lit(a, b);
    let n = a.as_raw().len() as f64;
    let se: f64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum();
    if se == 0.0 {
        return f64::INFINITY;
    }
    10.0 * (255.0f64 * 255.0 / (se / n)).log10()
}

/// The fraction of pixels that are not the clear colour of the first pixel: how much of the
/// picture the model covers (a blank picture would compare equal to another blank one).
fn coverage(a: &image::RgbImage) -> f64 {
    let clear = *a.get_pixel(0, 0);
    a.pixels().filter(|&&p| p != clear).count() as f64 / f64::from(a.width() * a.height())
}

/// The folder for test `name` and the real asset `rel`, when the assets and the pack tool are
/// there (recorded otherwise; a failure under CI).
fn asset_test(name: &str, rel: &str) -> Option<(PathBuf, PathBuf)> {
    let (assets, _) = (assets()?, pack_tool()?);
    Some((out_dir(name), assets.join(rel)))
}

#[test]
fn flight_helmet_packed_draws_as_its_source() {
    let Some((dir, source)) = asset_test("helmet", "gltf/FlightHelmet/FlightHelmet.gltf") else {
        return;
    };
    let packed = dir.join("FlightHelmet.glb");
    pack(
        &source,
        &packed,
        &["--frames", "smallest3x4", "--maps", "tangent"],
    );
    let packed_float = dir.join("FlightHelmet-float.glb");
    pack(
        &source,
        &packed_float,
        &["--frames", "smallest3x4", "--maps", "tangent", "--float"],
    );
    // Frame time over 20 frames each, one after the other in this run (lavapipe: about a
    // second a frame at this size).
    let frames = "20";
    let reference = view(
        &source,
        &dir.join("source.png"),
        &["--mode", "standard", "--frames", frames],
    );
    let camera = ["--camera", reference.camera.as_str()];
    let gpu = view(
        &packed,
        &dir.join("plugin.png"),
        &[&camera[..], &["--frames", frames]].concat(),
    );
    let cpu = view(
        &packed,
        &dir.join("cpu.png"),
        &[&camera[..], &["--mode", "cpu"]].concat(),
    );
    let float = view(&packed_float, &dir.join("plugin-float.png"), &camera);
    // The same file with BC5 normal maps (KTX2, equal bytes to the maps) instead of the maps:
    // its frames decoded on the CPU into StandardMaterial, as `cpu.png`.
    let bc5 = bc5_normal_maps(&dir, &packed);
    view(
        &bc5,
        &dir.join("bc5-normal-maps.png"),
        &[&camera[..], &["--mode", "cpu"]].concat(),
    );
    let a = rgb(&dir.join("source.png"));
    let covered = coverage(&a);
    let db = |name: &str| psnr(&a, &rgb(&dir.join(name)));
    let (db_gpu, db_cpu, db_float) = (db("plugin.png"), db("cpu.png"), db("plugin-float.png"));
    let db_bc5 = db("bc5-normal-maps.png");
    let ms = |r: &Run| r.frame_ms.unwrap_or(f64::NAN);
    println!(
        "FlightHelmet in Bevy (960×540, MSAA 4), against the source through StandardMaterial:"
    );
    println!("| picture | PSNR (dB) | frame time (ms) | frame bytes |");
    println!("|---|---:|---:|---|");
    println!(
        "| source: NORMAL + TANGENT, normal maps, StandardMaterial | — | {:.1} | {} |",
        ms(&reference),
        reference.bytes
    );
    println!(
        "| packed (smallest3x4, BC5 tangent maps), plugin | {db_gpu:.2} | {:.1} | {} |",
        ms(&gpu),
        gpu.bytes
    );
    println!(
        "| packed `--float`, plugin | {db_float:.2} | — | {} |",
        float.bytes
    );
    println!(
        "| packed, CPU decode (StandardMaterial, normal maps) | {db_cpu:.2} | — | {} |",
        cpu.bytes
    );
    println!(
        "| packed with BC5 normal maps (KTX2) instead of the maps, CPU decode | {db_bc5:.2} | — | — |"
    );
    println!(
        "coverage {:.1}%; frame time plugin / StandardMaterial: {:.3}",
        100.0 * covered,
        ms(&gpu) / ms(&reference)
    );
    assert!(
        covered > 0.05,
        "the helmet covers {:.1}% of the picture",
        100.0 * covered
    );
    // Target ≥ 50 dB: met by the CPU decode (the same vertex frames, the file's normal maps).
    assert!(
        db_cpu >= 50.0,
        "CPU decode {db_cpu:.2} dB against the source"
    );
    // Not met by the quaternion maps: 49.68 dB measured (49.71 with the SNORM normal layout) (50.13 with --float, so the quantisation
    // costs little; the BC5 maps against Bevy's MikkTSpace normal mapping, and Bevy's PNG
    // normal maps having no mips at all, cost the rest: docs/BEVY.md). This floor, 0.5 dB under
    // the measurement, catches a regression; it is not the target.
    assert!(db_gpu >= 49.21, "plugin {db_gpu:.2} dB against the source");
    // Issue 41's yardstick, met (49.68 against 49.53 dB, measured last): the maps at least as close
    // to the source as the same file with BC5 normal maps (equal bytes).
    assert!(
        db_gpu >= db_bc5,
        "plugin {db_gpu:.2} dB, the same file with BC5 normal maps {db_bc5:.2} dB"
    );
}

#[test]
fn the_fox_packed_and_posed_draws_as_bevy_draws_it() {
    let Some((dir, source)) = asset_test("fox", "gltf/Fox.glb") else {
        return;
    };
    // Its frames stored (the Fox has no NORMAL: by default pack writes it without frames, for
    // Bevy's own flat normals, `fox-default.glb` below), so that the plugin decodes and skins
    // them.
    let packed = dir.join("fox.glb");
    pack(
        &source,
        &packed,
        &["--frames", "smallest3x4", "--flat-frames"],
    );
    // The Run animation at a fixed time, through Bevy's skinning in both pictures.
    let pose = ["--animation", "2", "--time", "0.4"];
    let reference = view(
        &source,
        &dir.join("bevy.png"),
        &[&["--mode", "standard"][..], &pose].concat(),
    );
    let camera = ["--camera", reference.camera.as_str()];
    let plugin = view(
        &packed,
        &dir.join("plugin.png"),
        &[&camera[..], &pose].concat(),
    );
    // The same with `--compress meshopt`: the plugin decodes the compressed vertex data; the
    // animations and inverse binds, which Bevy's loader reads and cannot decode, stay plain.
    let compressed = dir.join("fox-meshopt.glb");
    pack(
        &source,
        &compressed,
        &[
            "--frames",
            "smallest3x4",
            "--flat-frames",
            "--compress",
            "meshopt",
        ],
    );
    let default = dir.join("fox-default.glb");
    pack(&source, &default, &[]);
    view(
        &default,
        &dir.join("default.png"),
        &[&camera[..], &pose].concat(),
    );
    let plugin_meshopt = view(
        &compressed,
        &dir.join("plugin-meshopt.png"),
        &[&camera[..], &pose].concat(),
    );
    let a = rgb(&dir.join("bevy.png"));
    assert_no_black_where_lit(&a, &rgb(&dir.join("plugin-meshopt.png")));
    let covered = coverage(&a);
    let db = psnr(&a, &rgb(&dir.join("plugin.png")));
    let db_meshopt = psnr(&a, &rgb(&dir.join("plugin-meshopt.png")));
    let db_default = psnr(&a, &rgb(&dir.join("default.png")));
    println!("The Fox in Bevy, animation 2 (Run) at 0.4 s, against Fox.glb as Bevy loads it:");
    println!("| picture | PSNR (dB) | frame bytes |");
    println!("|---|---:|---|");
    println!(
        "| Fox.glb, Bevy's loader (flat normals it computes, no tangents) | — | {} |",
        reference.bytes
    );
    println!(
        "| packed (smallest3x4, --flat-frames, quantised), plugin | {db:.2} | {} |",
        plugin.bytes
    );
    println!(
        "| packed with --compress meshopt, plugin | {db_meshopt:.2} | {} |",
        plugin_meshopt.bytes
    );
    println!("| packed with the defaults (no frames: Bevy's flat normals) | {db_default:.2} | — |");
    println!("coverage {:.1}%", 100.0 * covered);
    assert!(
        covered > 0.02,
        "the Fox covers {:.1}% of the picture",
        100.0 * covered
    );
    // Target: ≥ 50 dB (docs/BEVY.md). The Fox is faceted and has no NORMAL: Bevy's flat normals
    // and the ones qtangent generates before packing are the same facets. Compression is
    // lossless: the same bound.
    assert!(db >= 50.0, "plugin {db:.2} dB against Bevy's Fox");
    assert!(
        db_meshopt >= 50.0,
        "meshopt: plugin {db_meshopt:.2} dB against Bevy's Fox"
    );
    assert!(
        db_default >= 50.0,
        "default: {db_default:.2} dB against Bevy's Fox"
    );
}

/// A strip bent over a half cylinder whose UVs mirror at its middle (u = |x|), as a symmetric
/// character's are: NORMAL and TEXCOORD_0, no TANGENT, a flat normal map. The vertices on the
/// mirror line are shared by both halves. Written as FOLDER/mirror.gltf with its .bin and .png.
fn write_mirrored_strip(dir: &Path) -> PathBuf {
    let (nx, ny) = (8usize, 4usize);
    let mut bin = Vec::new();
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    for j in 0..=ny {
        for i in 0..=nx {
            let s = 2.0 * i as f32 / nx as f32 - 1.0;
            let a = s * std::f32::consts::FRAC_PI_2 * 0.8;
            positions.push([a.sin(), j as f32 / ny as f32, a.cos()]);
            normals.push([a.sin(), 0.0, a.cos()]);
            uvs.push([s.abs(), j as f32 / ny as f32]);
        }
    }
    let mut indices: Vec<u16> = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let v = |i: usize, j: usize| (j * (nx + 1) + i) as u16;
            indices.extend([
                v(i, j),
                v(i + 1, j),
                v(i + 1, j + 1),
                v(i, j),
                v(i + 1, j + 1),
                v(i, j + 1),
            ]);
        }
    }
    let n = positions.len();
    for p in &positions {
        p.iter().for_each(|c| bin.extend(c.to_le_bytes()));
    }
    for p in &normals {
        p.iter().for_each(|c| bin.extend(c.to_le_bytes()));
    }
    for p in &uvs {
        p.iter().for_each(|c| bin.extend(c.to_le_bytes()));
    }
    indices.iter().for_each(|i| bin.extend(i.to_le_bytes()));
    std::fs::write(dir.join("mirror.bin"), &bin).unwrap();
    image::RgbImage::from_pixel(4, 4, image::Rgb([128, 128, 255]))
        .save(dir.join("flat_normal.png"))
        .unwrap();
    let (lo, hi) = positions
        .iter()
        .fold(([f32::MAX; 3], [f32::MIN; 3]), |(lo, hi), p| {
            (
                std::array::from_fn(|k| lo[k].min(p[k])),
                std::array::from_fn(|k| hi[k].max(p[k])),
            )
        });
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2}},"indices":3,"material":0}}]}}],
"materials":[{{"pbrMetallicRoughness":{{"baseColorFactor":[0.8,0.8,0.8,1],"metallicFactor":0,"roughnessFactor":0.5}},"normalTexture":{{"index":0}}}}],
"textures":[{{"source":0}}],"images":[{{"uri":"flat_normal.png"}}],
"buffers":[{{"uri":"mirror.bin","byteLength":{len}}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{p}}},{{"buffer":0,"byteOffset":{p},"byteLength":{p}}},{{"buffer":0,"byteOffset":{o2},"byteLength":{t}}},{{"buffer":0,"byteOffset":{o3},"byteLength":{ib}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{n},"type":"VEC3","min":[{},{},{}],"max":[{},{},{}]}},
{{"bufferView":1,"componentType":5126,"count":{n},"type":"VEC3"}},{{"bufferView":2,"componentType":5126,"count":{n},"type":"VEC2"}},
{{"bufferView":3,"componentType":5123,"count":{ni},"type":"SCALAR"}}]}}"#,
        lo[0],
        lo[1],
        lo[2],
        hi[0],
        hi[1],
        hi[2],
        len = bin.len(),
        p = n * 12,
        o2 = n * 24,
        t = n * 8,
        o3 = n * 32,
        ib = indices.len() * 2,
        ni = indices.len(),
    );
    let path = dir.join("mirror.gltf");
    std::fs::write(&path, json).unwrap();
    path
}

/// The largest difference of any channel of any pixel.
fn worst(a: &image::RgbImage, b: &image::RgbImage) -> u8 {
    a.as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| x.abs_diff(y))
        .max()
        .unwrap_or(0)
}

/// The material's extension survives a reflection clone (what Bevy's asset and scene tools
/// copy through) with its typed `decode`, which reflection itself does not see.
#[test]
fn the_material_extension_clones_through_reflection() {
    use bevy::reflect::PartialReflect;
    use bevy_qtangent::{MapDecode, QTangentExtension};
    let ext = QTangentExtension {
        decode: MapDecode::Unorm,
        axial: true,
        ..Default::default()
    };
    assert_ne!(MapDecode::default(), MapDecode::Unorm);
    let clone = ext
        .reflect_clone()
        .unwrap_or_else(|e| panic!("reflect_clone: {e}"))
        .take::<QTangentExtension>()
        .unwrap_or_else(|_| panic!("the clone is a QTangentExtension"));
    assert_eq!(clone.decode, MapDecode::Unorm);
    assert!(clone.axial);
}

/// Bevy's validation is one switch, which `loader_settings` turns off for the extensions a
/// packed file requires (KHR_mesh_quantization, EXT_meshopt_compression); the plugin validates
/// the rest itself. A packed file that also requires an extension nobody here reads is named in
/// one error line and left to Bevy's loader; the same file without it logs nothing (`view`).
#[test]
fn a_file_invalid_beyond_what_the_plugin_reads_is_named() {
    let Some(_) = pack_tool() else {
        return;
    };
    let dir = out_dir("invalid");
    let source = write_mirrored_strip(&dir);
    let packed = dir.join("strip.gltf");
    pack(&source, &packed, &["--frames", "smallest3x4"]);
    let text = std::fs::read_to_string(&packed).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let required = json["extensionsRequired"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        required.iter().any(|e| e == "KHR_mesh_quantization"),
        "a quantised file requires KHR_mesh_quantization: {required:?}"
    );
    // The valid file first: no error (view asserts it).
    view(&packed, &dir.join("valid.png"), &["--size", "64x64"]);
    for key in ["extensionsRequired", "extensionsUsed"] {
        json[key]
            .as_array_mut()
            .unwrap()
            .push("EXT_nobody_reads_this".into());
    }
    let bad = dir.join("strip-bad.gltf");
    std::fs::write(&bad, json.to_string()).unwrap();
    let output = Command::new(viewer_binary())
        .arg(&bad)
        .args(["--screenshot"])
        .arg(dir.join("bad.png"))
        .args(["--size", "64x64"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("the viewer runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("not a valid glTF file"))
        .collect();
    assert_eq!(errors.len(), 1, "one error line for the file:\n{stderr}");
    assert!(
        errors[0].contains("strip-bad.gltf")
            && errors[0].contains("EXT_nobody_reads_this")
            && !errors[0].contains("KHR_mesh_quantization"),
        "the error names the file and the unread extension, not the ones the plugin reads: {}",
        errors[0]
    );
}

#[test]
fn mirror_seams_stay_intact_through_the_plugin() {
    let Some(_) = pack_tool() else {
        return;
    };
    let dir = out_dir("mirror");
    let source = write_mirrored_strip(&dir);
    let size = ["--size", "480x270"];
    // One camera for every picture: in front of the strip, the mirror line in the middle.
    let camera = "0,0.5,3.2,0,0.5,0.6".to_string();
    for format in [
        "f32x4",
        "f16x4",
        "snorm16x4",
        "f16x3",
        "smallest3x6",
        "smallest3x4",
    ] {
        let packed = dir.join(format!("{format}.glb"));
        pack(&source, &packed, &["--frames", format]);
        for vector in ["tangent", "bitangent"] {
            let shot = |mode: &str| dir.join(format!("{format}-{vector}-{mode}.png"));
            let args = [
                "--debug",
                vector,
                size[0],
                size[1],
                "--camera",
                camera.as_str(),
            ];
            view(
                &packed,
                &shot("cpu"),
                &[&args[..], &["--mode", "cpu"]].concat(),
            );
            view(&packed, &shot("gpu"), &args);
            let (gpu, cpu) = (rgb(&shot("gpu")), rgb(&shot("cpu")));
            assert!(
                coverage(&cpu) > 0.1,
                "{format}: the strip covers {:.1}%",
                100.0 * coverage(&cpu)
            );
            // The GPU decode (qtangent's WGSL, this format's fetch) and the CPU decode (qtangent's
            // Rust, as NORMAL/TANGENT) of the same stored frames agree to a few ulps
            // (tests/unit/gpu/decode.rs), and both then go through the same transform,
            // interpolation and shader: a colour can differ only where a value sits on a
            // rounding boundary of the 8-bit target, by one level.
            let w = worst(&gpu, &cpu);
            assert!(
                w <= 1,
                "{format} {vector}: GPU and CPU frames differ by {w} levels"
            );
            // Across the mirror line (u = |x|) the tangent (along +u) points to −x on the left
            // half and +x on the right; the bitangent, cross(n, t) times the handedness, points
            // down on both (glTF's bitangent runs towards decreasing v: a normal map's +Y is up
            // in an image whose v runs down; the strip's v runs up), and up on a half whose
            // handedness is wrong. Red is 0.5 + 0.5 tₓ, green 0.5 + 0.5 b_y, linear, stored as
            // sRGB. On the strip |tₓ| ≥ cos(0.8 · 90°) = 0.31 (its widest bend), so red is at
            // most 0.345 linear (160 in sRGB) on the left and at least 0.655 (210) on the
            // right; b_y = −1 gives green 0, +1 gives 255. Both sample points lie on the strip,
            // not on the background (which is dark too).
            let (width, height) = gpu.dimensions();
            let clear = *cpu.get_pixel(0, 0);
            let row = height / 2;
            let on: Vec<u32> = (0..width)
                .filter(|&x| *cpu.get_pixel(x, row) != clear)
                .collect();
            assert!(on.len() > 10, "{format}: the strip misses row {row}");
            let (lo, hi) = (on[0], on[on.len() - 1]);
            let at = |x: u32| {
                let p = *gpu.get_pixel(x, row);
                assert_ne!(p, clear, "{format}: ({x}, {row}) is background");
                p
            };
            // A fifth of the strip in from each end.
            let (left, right) = (at(lo + (hi - lo) / 5), at(hi - (hi - lo) / 5));
            if vector == "tangent" {
                assert!(
                    left[0] <= 160 && right[0] >= 210,
                    "{format}: tangent red left {}, right {}",
                    left[0],
                    right[0]
                );
            } else {
                assert!(
                    left[1] <= 160 && right[1] <= 160,
                    "{format}: bitangent green left {}, right {}",
                    left[1],
                    right[1]
                );
            }
        }
    }
    bevy_tangents_beside(&dir, &source, &camera, size);
}

/// Bevy's own tangents of the strip (MikkTSpace written back through the shared vertices), as
/// `--debug tangent` draws them, beside qtangent's: how many covered pixels differ, and a
/// picture of the three side by side.
fn bevy_tangents_beside(dir: &Path, source: &Path, camera: &str, size: [&str; 2]) {
    // Bevy's own tangents (MikkTSpace written back through the shared vertices), beside
    // qtangent's: how many covered pixels differ by more than 16 levels in some channel.
    let args = ["--debug", "tangent", size[0], size[1], "--camera", camera];
    view(
        source,
        &dir.join("bevy-tangent.png"),
        &[&args[..], &["--mode", "standard"]].concat(),
    );
    let bevy = rgb(&dir.join("bevy-tangent.png"));
    let cpu = rgb(&dir.join("smallest3x4-tangent-cpu.png"));
    let gpu = rgb(&dir.join("smallest3x4-tangent-gpu.png"));
    let clear = *cpu.get_pixel(0, 0);
    let (w, h) = cpu.dimensions();
    let covered: Vec<usize> = (0..(w * h) as usize)
        .filter(|&i| cpu.as_raw()[3 * i..3 * i + 3] != clear.0)
        .collect();
    let off = covered
        .iter()
        .filter(|&&i| {
            (0..3).any(|c| cpu.as_raw()[3 * i + c].abs_diff(bevy.as_raw()[3 * i + c]) > 16)
        })
        .count();
    println!(
        "mirrored strip: every format's GPU frames within one level of its CPU frames; Bevy's own tangents differ from qtangent's on {:.1}% of covered pixels (more than 16 levels)",
        100.0 * off as f64 / covered.len() as f64
    );
    let mut sheet = image::RgbImage::new(w * 3, h);
    for (k, img) in [&bevy, &cpu, &gpu].into_iter().enumerate() {
        image::imageops::replace(&mut sheet, img, i64::from(w) * k as i64, 0);
    }
    sheet.save(dir.join("tangents.png")).unwrap();
    println!(
        "side by side (Bevy's tangents | qtangent CPU | qtangent GPU): {}",
        dir.join("tangents.png").display()
    );
}

#[test]
fn the_anisotropy_direction_comes_from_the_map() {
    let Some(_) = pack_tool() else {
        return;
    };
    let dir = out_dir("disc");
    // The swirl disc: KHR_materials_anisotropy whose texture turns the direction round the
    // centre (qtangent's `aniso` tool); no NORMAL, no TANGENT.
    let status = Command::new(aniso_tool())
        .args(["--gltf"])
        .arg(&dir)
        .args(["--gltf-texture", "png", "--texture", "256"])
        .status()
        .expect("aniso runs");
    assert!(status.success(), "aniso failed");
    let source = dir.join("swirl_disc.gltf");
    // The same disc without the direction texture: the anisotropy runs along the vertex
    // tangent everywhere (what a reader that ignored the map's twist would draw).
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&source).unwrap()).unwrap();
    let aniso = json
        .pointer_mut("/materials/0/extensions/KHR_materials_anisotropy")
        .and_then(serde_json::Value::as_object_mut)
        .expect("the disc's material has KHR_materials_anisotropy");
    assert!(aniso.remove("anisotropyTexture").is_some());
    let no_direction = dir.join("swirl_disc_no_direction.gltf");
    std::fs::write(&no_direction, json.to_string()).unwrap();
    // References: Bevy's own anisotropy (texture and vertex tangent) on qtangent's frames as
    // f32 NORMAL and TANGENT (the disc has none; Bevy would derive the tangent itself).
    let reference = ["--frames", "f32x4", "--float", "--keep-normals"];
    pack(&source, &dir.join("reference.glb"), &reference);
    pack(&no_direction, &dir.join("no-direction.glb"), &reference);
    pack(
        &source,
        &dir.join("disc.glb"),
        &["--frames", "smallest3x4", "--maps", "tangent"],
    );
    // Above the disc, looking down at it from the front.
    let camera = ["--camera", "0,2.2,2.45,0,0,0"];
    let standard = [&["--mode", "standard"][..], &camera].concat();
    view(
        &dir.join("reference.glb"),
        &dir.join("reference.png"),
        &standard,
    );
    view(
        &dir.join("no-direction.glb"),
        &dir.join("no-direction.png"),
        &standard,
    );
    view(&dir.join("disc.glb"), &dir.join("plugin.png"), &camera);
    let a = rgb(&dir.join("reference.png"));
    let covered = coverage(&a);
    let db = psnr(&a, &rgb(&dir.join("plugin.png")));
    let db_none = psnr(&a, &rgb(&dir.join("no-direction.png")));
    println!(
        "The swirl disc (KHR_materials_anisotropy) in Bevy, against Bevy's anisotropy texture:"
    );
    println!("| picture | PSNR (dB) |");
    println!("|---|---:|");
    println!("| packed, the direction from the tangent map's twist (BC5 z, w), plugin | {db:.2} |");
    println!(
        "| the direction texture removed (the vertex tangent), StandardMaterial | {db_none:.2} |"
    );
    println!("coverage {:.1}%", 100.0 * covered);
    assert!(covered > 0.1, "the disc covers {:.1}%", 100.0 * covered);
    // The map's direction must draw the texture's highlight, not the vertex tangent's: the
    // plugin's picture is closer to the reference than the picture without a direction.
    assert!(
        db > db_none,
        "plugin {db:.2} dB, no direction {db_none:.2} dB"
    );
}

/// qtangent's `corpus` tool (the lab's glTF corpus), beside `pack`.
fn corpus_tool() -> PathBuf {
    lab_tool("corpus")
}

/// `reference` (a packed GLB) copied by the `corpus` tool with its normal maps as engines ship
/// them, KTX2 BC5 UNORM with box-filtered mips (Bevy reads the KTX2 by MIME type and rebuilds z
/// for a `Bc5RgUnorm` normal map); returns the copy, `dir/<stem>-bc5-normal-maps.glb`.
fn bc5_normal_maps(dir: &Path, reference: &Path) -> PathBuf {
    let status = Command::new(corpus_tool())
        .arg(dir)
        .arg("--bc5-normal-maps")
        .arg(reference)
        .status()
        .expect("the corpus tool runs");
    assert!(
        status.success(),
        "corpus --bc5-normal-maps {} failed",
        reference.display()
    );
    let stem = reference
        .file_stem()
        .expect("a file name")
        .to_string_lossy();
    dir.join(format!("{stem}-bc5-normal-maps.glb"))
}

/// The lab's glTF corpus written into `dir` by the `corpus` tool.
fn write_corpus(dir: &Path) {
    let status = Command::new(corpus_tool())
        .arg(dir)
        .status()
        .expect("the corpus tool runs");
    assert!(status.success(), "corpus {} failed", dir.display());
}

/// The lab's morphing grid (two primitives, two targets, a weights animation), packed with the
/// defaults (its frames as NORMAL, which Bevy morphs itself), against the source as Bevy loads
/// it, posed by the animation at rest (t = 0) and at weight 1 on the bump (t = 1): 50 dB, the
/// Fox's bound, at weight 1; both figures printed (issue 39 compares them). Packed with
/// `--compress meshopt` too, which must leave what Bevy's loader reads plain: 50 dB at both.
#[test]
fn morph_targets_packed_draw_as_bevy_morphs_the_source() {
    if pack_tool().is_none() {
        return;
    }
    let dir = out_dir("morph");
    write_corpus(&dir);
    let source = dir.join("morph.gltf");
    let packed = dir.join("morph.glb");
    pack(&source, &packed, &[]);
    let compressed = dir.join("morph-meshopt.glb");
    pack(&source, &compressed, &["--compress", "meshopt"]);
    let mut figures = Vec::new();
    for (time, name) in [("0", "rest"), ("1", "weight 1")] {
        let pose = ["--animation", "0", "--time", time];
        let bevy = dir.join(format!("bevy-{time}.png"));
        let reference = view(
            &source,
            &bevy,
            &[&["--mode", "standard"][..], &pose].concat(),
        );
        let camera = ["--camera", reference.camera.as_str()];
        let plugin = dir.join(format!("plugin-{time}.png"));
        view(&packed, &plugin, &[&camera[..], &pose].concat());
        // Compressed, the morphing primitives stay plain (Bevy's loader reads them): the same
        // picture, or a failed load.
        let plugin_meshopt = dir.join(format!("plugin-meshopt-{time}.png"));
        view(&compressed, &plugin_meshopt, &[&camera[..], &pose].concat());
        let a = rgb(&bevy);
        let squeezed = psnr(&a, &rgb(&plugin_meshopt));
        assert!(
            squeezed >= 50.0,
            "{name}, meshopt: {squeezed:.2} dB against the source"
        );
        let covered = coverage(&a);
        assert!(
            covered > 0.02,
            "{name}: the grid covers {:.1}%",
            100.0 * covered
        );
        figures.push((name, psnr(&a, &rgb(&plugin))));
    }
    for (name, db) in &figures {
        println!("the morphing grid in Bevy at {name}: {db:.2} dB against the source");
    }
    let posed = figures[1].1;
    assert!(
        posed >= 50.0,
        "at weight 1: {posed:.2} dB against the source"
    );
}

/// The lab's ribbed scene (a ribbed sphere, a diagonally ribbed panel and a wrinkled torus under
/// 512² normal maps: `ribbed.gltf` of the corpus), packed with BC5 maps, against the source as
/// Bevy draws it (with the frames qtangent makes as f32 NORMAL and TANGENT: the source has no
/// TANGENT), beside the same packed file drawn with its PNG normal maps (the CPU decode into
/// StandardMaterial). Figures printed for docs/BEVY.md; the issue's target (the maps within
/// 1 dB of the PNG normal maps) is reported there, not asserted: BC5's own error keeps it out of
/// reach. The floor catches a regression.
#[test]
fn ribbed_normal_maps_packed_draw_as_their_source() {
    if pack_tool().is_none() {
        return;
    }
    let dir = out_dir("ribbed");
    write_corpus(&dir);
    let source = dir.join("ribbed.gltf");
    let reference_file = dir.join("ribbed-reference.glb");
    pack(
        &source,
        &reference_file,
        &["--frames", "f32x4", "--float", "--keep-normals"],
    );
    let packed = dir.join("ribbed.glb");
    pack(
        &source,
        &packed,
        &["--frames", "smallest3x4", "--maps", "tangent"],
    );
    let reference = view(
        &reference_file,
        &dir.join("source.png"),
        &["--mode", "standard"],
    );
    let camera = ["--camera", reference.camera.as_str()];
    view(&packed, &dir.join("plugin.png"), &camera);
    view(
        &packed,
        &dir.join("png-normal-maps.png"),
        &[&camera[..], &["--mode", "cpu"]].concat(),
    );
    let bc5 = bc5_normal_maps(&dir, &packed);
    view(
        &bc5,
        &dir.join("bc5-normal-maps.png"),
        &[&camera[..], &["--mode", "cpu"]].concat(),
    );
    let a = rgb(&dir.join("source.png"));
    let covered = coverage(&a);
    assert!(
        covered > 0.05,
        "the ribbed scene covers {:.1}%",
        100.0 * covered
    );
    let (db_map, db_png, db_bc5) = (
        psnr(&a, &rgb(&dir.join("plugin.png"))),
        psnr(&a, &rgb(&dir.join("png-normal-maps.png"))),
        psnr(&a, &rgb(&dir.join("bc5-normal-maps.png"))),
    );
    println!(
        "the ribbed scene in Bevy: BC5 maps (plugin) {db_map:.2} dB, PNG normal maps (CPU decode) {db_png:.2} dB, BC5 normal maps (KTX2) {db_bc5:.2} dB, against the source"
    );
    // Regression floor: 0.6 dB (the allowance the project gives a BC5 encoder change, the
    // bc5x2 goal) under the figure measured when the test was added; lavapipe draws the same
    // pixels each run.
    assert!(
        db_map >= RIBBED_MAP_DB - 0.6,
        "BC5 maps {db_map:.2} dB against the source (PNG normal maps {db_png:.2} dB)"
    );
    // Issue 41's yardstick, met (45.91 against 45.68 dB, measured last): the maps at least as close
    // to the source as the same file with BC5 normal maps (equal bytes).
    assert!(
        db_map >= db_bc5,
        "BC5 maps {db_map:.2} dB, the same file with BC5 normal maps {db_bc5:.2} dB"
    );
}

/// The ribbed scene's BC5 maps in Bevy against the source, measured when the test was added.
const RIBBED_MAP_DB: f64 = 45.83;

/// qtangent's renderer on `scene` at 512² (frames as the packed files store them): the camera it
/// printed (eye and target; its field of view is 40°) and its BC5 map's PSNR against its own
/// reference, parsed from its table.
fn qtangent_render(dir: &Path, scene: &Path) -> (String, f64) {
    let out = dir.join("qtangent.png");
    let run = Command::new(pack_tool().expect("checked by the caller"))
        .arg("render")
        .arg(scene)
        .args([
            "--size",
            "512x512",
            "--frames",
            "smallest3x4",
            "--time-frames",
            "0",
            "-o",
        ])
        .arg(&out)
        .output()
        .expect("qtangent render runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "render {}: {}",
        scene.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let camera = stdout
        .lines()
        .find_map(|l| l.strip_prefix("camera: "))
        .and_then(|l| l.split_whitespace().next())
        .expect("render prints its camera")
        .to_string();
    let map = stdout
        .lines()
        .find(|l| l.starts_with("| quatmap-tangent |"))
        .and_then(|l| l.split('|').nth(2))
        .and_then(|c| c.trim().parse().ok())
        .expect("render's quatmap-tangent row");
    (camera, map)
}

/// Issue 41's one-camera comparison: FlightHelmet and the ribbed scene drawn by Bevy from the
/// camera qtangent's renderer fits (512², 40°), the `--float` pack through the plugin against
/// the source through StandardMaterial, beside qtangent's renderer's own map against its own
/// reference. Printed for docs/BEVY.md, not asserted: the target (within 1 dB) is not met, and
/// the gap is Bevy's unmipmapped PNG source (docs/MAPS.md).
#[test]
fn one_camera_with_qtangents_renderer() {
    let Some(assets) = assets() else {
        return;
    };
    if pack_tool().is_none() {
        return;
    }
    let dir = out_dir("one-camera");
    write_corpus(&dir);
    let helmet = assets.join("gltf/FlightHelmet/FlightHelmet.gltf");
    let ribbed = dir.join("ribbed.gltf");
    let ribbed_reference = dir.join("ribbed-reference.glb");
    pack(
        &ribbed,
        &ribbed_reference,
        &["--frames", "f32x4", "--float", "--keep-normals"],
    );
    for (name, scene, source) in [
        ("helmet", &helmet, &helmet),
        ("ribbed", &ribbed, &ribbed_reference),
    ] {
        let (camera, qtangent) = qtangent_render(&dir, scene);
        let packed = dir.join(format!("{name}-float.glb"));
        pack(
            scene,
            &packed,
            &["--frames", "smallest3x4", "--maps", "tangent", "--float"],
        );
        let view_args = [
            "--camera",
            camera.as_str(),
            "--fov",
            "40",
            "--size",
            "512x512",
        ];
        let (a, b) = (
            dir.join(format!("{name}-source.png")),
            dir.join(format!("{name}-plugin.png")),
        );
        view(
            source,
            &a,
            &[&view_args[..], &["--mode", "standard"]].concat(),
        );
        view(&packed, &b, &view_args);
        let covered = coverage(&rgb(&a));
        let bevy = psnr(&rgb(&a), &rgb(&b));
        println!(
            "one camera, {name}: Bevy {bevy:.2} dB, qtangent's renderer {qtangent:.2} dB; gap {:.2} dB ({:.0}% covered)",
            qtangent - bevy,
            100.0 * covered
        );
        // render's camera frames the whole scene: it must fill a real part of the picture, and
        // both figures must be measured (a blank or identical picture gives no figure).
        assert!(
            covered > 0.05,
            "{name}: the scene covers {covered:.3} of the picture from render's camera"
        );
        assert!(
            bevy.is_finite() && qtangent.is_finite(),
            "{name}: {bevy} / {qtangent} dB"
        );
        // The composed normal, lights aside: Bevy's debug normals of the map and of the same
        // file with BC5 normal maps, against the source's.
        let bc5 = bc5_normal_maps(&dir, &packed);
        let normals = |file: &Path, mode: &str, out: &str| {
            let png = dir.join(format!("{name}-normal-{out}.png"));
            let args = [&view_args[..], &["--mode", mode, "--debug", "normal"]].concat();
            view(file, &png, &args);
            rgb(&png)
        };
        let src = normals(source, "standard", "source");
        for (what, n) in [
            ("map", normals(&packed, "gpu", "map")),
            ("BC5 normal maps", normals(&bc5, "cpu", "bc5")),
        ] {
            let (mean, p95) = normal_angles(&src, &n);
            println!(
                "one camera, {name}, Bevy's normals, {what}: {mean:.2}° mean, {p95:.2}° p95 from the source's"
            );
            // Both files carry the source's frames within a few tenths of a degree and its
            // normal maps within BC5's error (about a degree, MAPS.md); Bevy's source, an
            // unmipmapped PNG, aliases on ribs a few pixels wide where both files filter (3.6°
            // mean measured on the ribbed scene, 1.1° on FlightHelmet, map and BC5 normal maps
            // alike). A broken frame (a lost mirror, a swapped or unscaled channel) turns normals
            // by the bumps' own tilt, tens of degrees. 5° mean sits between the two.
            assert!(
                mean.is_finite() && mean < 5.0,
                "{name}, {what}: the composed normal is {mean:.2}° off on average"
            );
        }
    }
}

/// Mean and 95th percentile (degrees) of the angle between the debug normals of `a` and `b`,
/// over the pixels `a` draws (not its clear colour, its first pixel's). The shader writes
/// n·½ + ½ as linear colour to an sRGB target (the viewer's `Rgba8UnormSrgb`), so each byte is
/// decoded from sRGB (IEC 61966-2-1) before n = 2c − 1.
fn normal_angles(a: &image::RgbImage, b: &image::RgbImage) -> (f64, f64) {
    let clear = *a.get_pixel(0, 0);
    let linear = |c: u8| {
        let s = f64::from(c) / 255.0;
        if s <= 0.04045 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    };
    let n = |p: &image::Rgb<u8>| p.0.map(|c| linear(c).mul_add(2.0, -1.0));
    let mut angles: Vec<f64> = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, _)| **p != clear)
        .map(|(p, q)| {
            let (u, v) = (n(p), n(q));
            let dot: f64 = u.iter().zip(&v).map(|(x, y)| x * y).sum();
            let len = |w: &[f64; 3]| w.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
            (dot / (len(&u) * len(&v)))
                .clamp(-1.0, 1.0)
                .acos()
                .to_degrees()
        })
        .collect();
    angles.sort_by(f64::total_cmp);
    let mean = angles.iter().sum::<f64>() / angles.len().max(1) as f64;
    (
        mean,
        angles.get(angles.len() * 95 / 100).copied().unwrap_or(0.0),
    )
}
