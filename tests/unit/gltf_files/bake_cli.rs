//! `qtangent bake` as a user runs it: files written and equal to the library's bake, the
//! JSON report, per-material maps from a glTF file, and one-line errors: status 2 for a refusal
//! before any work, 1 for a failure while working. The thin `bake` example makes the same map. The CLI
//! tests bake with `--cpu` so they do not depend on the GPU raster; `gpu_bake_matches_cpu`
//! runs the device's path (the GPU raster, or the CPU raster on a CPU adapter, which the
//! report must say) and fails (never skips) without an adapter.
//!
//! The command is built by `cargo test --workspace` (or `cargo build --release -p
//! qtangent-cli`); `common::command_exe` finds it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{cli, stderr};
use glam::Vec4;
use qtangent::mesh::Primitive;
use qtangent::qmap::ExrMap;
use qtangent::qmap::{self, BakeMesh, BakeSettings, MapFormat, NormalMap, RasterStages};
use serde_json::{json, Value};

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("cannot make a temporary folder: {e}"))
}

fn bake(args: &[&str]) -> Output {
    common::run_tool("qtangent bake", args)
}

/// Runs `bake --json` and returns the report, asserting success.
fn bake_json(args: &[&str]) -> Value {
    let out = bake(&[args, &["--json"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "bake --json is not JSON: {e}\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// A failing run: `status` (2: refused before any work, 1: failed while working), one line on
/// stderr starting `qtangent bake: ` and containing `needle`, no panic, nothing on stdout.
fn expect_failure(args: &[&str], status: i32, needle: &str) -> String {
    let (out, err) = common::run_failing("qtangent bake", args, status, needle);
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("qtangent bake: "), "{err}");
    assert!(out.stdout.is_empty(), "nothing on stdout for a failure");
    err
}

/// The files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// What the CLI's default bake is: the same torus and normal map through the library.
fn library_default(size: u32, format: MapFormat) -> qmap::QuatMap {
    let prepared = Primitive::torus(1.0, 0.4, 96, 48)
        .prepare()
        .unwrap_or_else(|e| panic!("{e}"));
    let mesh = BakeMesh::from_prepared("default torus", &[&prepared]);
    let settings = BakeSettings {
        width: size,
        height: size,
        padding: 4,
        format,
    };
    qmap::bake_cpu(&mesh, Some(&NormalMap::default_swirl()), &settings, &mut ())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn read_exr(path: &Path) -> ExrMap {
    qtangent::qmap::read_exr(path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn default_cpu_bake_writes_the_library_map() {
    let dir = tempdir();
    let out_dir = dir.path().join("maps");
    let out_str = out_dir.to_string_lossy().into_owned();
    let report = bake_json(&cli(
        "--maps object --container exr --map-format rgba16f --cpu --map-size 64 -o {}",
        &[&out_str],
    ));
    assert_eq!(report["mode"], "cpu");
    assert_eq!(report["adapter"], Value::Null);
    let maps = report["maps"].as_array().expect("maps is an array");
    assert_eq!(maps.len(), 1);
    let m = &maps[0];
    assert_eq!(m["name"], "default");
    assert_eq!(
        (m["width"].as_u64(), m["height"].as_u64()),
        (Some(64), Some(64))
    );
    assert_eq!(m["levels"], 7);
    assert!(m["covered"].as_u64().unwrap_or_default() > 0, "{m}");
    for key in ["load", "raster", "finish", "store", "write"] {
        assert!(m["time_ms"][key].as_f64().is_some(), "time_ms.{key}: {m}");
    }
    assert_eq!(
        listing(&out_dir),
        [
            "default.exr",
            "default.handedness.png",
            "default.preview.png"
        ]
    );

    // The EXR holds exactly what the library bakes, every level.
    let want = library_default(64, MapFormat::Rgba16Float);
    let exr_path = PathBuf::from(m["files"]["exr"].as_str().expect("exr path"));
    let got = read_exr(&exr_path);
    assert_eq!(got.format, MapFormat::Rgba16Float);
    assert_eq!(got.levels, want.levels);
    assert_eq!(m["covered"].as_u64(), Some(want.stats.covered as u64));
    assert_eq!(
        m["hemisphere_conflicts"].as_u64(),
        Some(want.stats.hemisphere_conflicts as u64)
    );

    // The PNGs are level-sized; the torus is one island of handedness +1.
    let preview = image::open(m["files"]["preview"].as_str().expect("preview path"))
        .unwrap_or_else(|e| panic!("{e}"))
        .to_rgba8();
    assert_eq!(preview.dimensions(), (64, 64));
    assert!(preview.pixels().all(|p| p[3] == 255));
    let hand = image::open(m["files"]["handedness"].as_str().expect("handedness path"))
        .unwrap_or_else(|e| panic!("{e}"))
        .to_luma8();
    assert_eq!(hand.dimensions(), (64, 64));
    assert!(hand.pixels().all(|p| p[0] == 255));
}

#[test]
fn text_summary_names_the_stages_and_files() {
    let dir = tempdir();
    let out_str = dir.path().to_string_lossy().into_owned();
    let out = bake(&cli(
        "--maps object --container exr --cpu --map-size 16 --map-format snorm8 -o {}",
        &[&out_str],
    ));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "16×16 snorm8",
        "covered",
        "hemisphere conflicts",
        "raster",
        "finish",
        "default.exr",
    ] {
        assert!(text.contains(needle), "'{needle}' missing from:\n{text}");
    }
    let got = read_exr(&dir.path().join("default.exr"));
    assert_eq!(got.format, MapFormat::Rgba8Snorm);
    assert_eq!(
        got.levels,
        library_default(16, MapFormat::Rgba8Snorm).levels
    );
}

/// One primitive of a test glTF: positions, UVs, indices, material.
type TestPrim = (
    Vec<[f32; 3]>,
    Option<Vec<[f32; 2]>>,
    Vec<u32>,
    Option<usize>,
);

/// A glTF with a data-URI buffer, one mesh of `prims` (normals +Z), written by the library's
/// writer.
fn write_gltf(path: &Path, materials: &[&str], prims: &[TestPrim]) {
    let mut b = qtangent::gltf::Builder::default();
    let vertex = Some(qtangent::gltf::Target::ArrayBuffer);
    let mut primitives = Vec::new();
    for (positions, uvs, indices, material) in prims {
        let normals = vec![[0.0f32, 0.0, 1.0]; positions.len()];
        let mut attributes = json!({
            "POSITION": b.positions(positions),
            "NORMAL": b.floats(&normals, vertex),
        });
        if let Some(uvs) = uvs {
            attributes["TEXCOORD_0"] = json!(b.floats(uvs, vertex));
        }
        let mut prim = json!({"attributes": attributes, "indices": b.indices(indices)});
        if let Some(m) = material {
            prim["material"] = json!(m);
        }
        primitives.push(prim);
    }
    let mut doc = b.to_gltf(qtangent::lab::gltf_json::BufferUri::DataUri);
    doc["materials"] = materials.iter().map(|m| json!({"name": m})).collect();
    doc["meshes"] = json!([{"name": "Parts", "primitives": primitives}]);
    doc["nodes"] = json!([{"mesh": 0}]);
    doc["scenes"] = json!([{"nodes": [0]}]);
    doc["scene"] = json!(0);
    std::fs::write(path, doc.to_string()).unwrap_or_else(|e| panic!("{e}"));
}

/// A unit quad over UV `[u0, u1] × [0, 1]` (two counter-clockwise triangles seen from +Z).
fn quad(u0: f32, u1: f32) -> (Vec<[f32; 3]>, Vec<[f32; 2]>, Vec<u32>) {
    let positions = vec![
        [u0, 0.0, 0.0],
        [u1, 0.0, 0.0],
        [u1, 1.0, 0.0],
        [u0, 1.0, 0.0],
    ];
    let uvs = positions.iter().map(|p| [p[0], 1.0 - p[1]]).collect();
    (positions, uvs, vec![0, 1, 2, 0, 2, 3])
}

#[test]
fn one_map_per_material_with_uvs() {
    let dir = tempdir();
    let mesh_path = dir.path().join("parts.gltf");
    let (lp, luv, li) = quad(0.0, 0.5);
    let (rp, ruv, ri) = quad(0.5, 1.0);
    let tri = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    write_gltf(
        &mesh_path,
        // Both sanitise to `Metal_1`: the second map becomes `Metal_1-2`.
        &["Metal/1", "Metal:1"],
        &[
            (lp, Some(luv), li, Some(0)),
            (rp, Some(ruv), ri, Some(1)),
            (tri.clone(), None, vec![0, 1, 2], Some(0)),
            (tri, None, vec![0, 1, 2], None),
        ],
    );
    let out_dir = dir.path().join("out");
    let mesh_str = mesh_path.to_string_lossy();
    let out = bake(&cli(
        "{} --maps object --container exr --map-format rgba16f --cpu --map-size 32 -o {} --json",
        &[&mesh_str, &out_dir.to_string_lossy()],
    ));
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    // Two primitives without UVs, and the material-less group left empty.
    assert!(
        err.contains("mesh 'Parts' primitive 2: no UVs")
            && err.contains("mesh 'Parts' primitive 3: no UVs")
            && err.contains("primitives without a material: none of its 1 primitives has UVs"),
        "{err}"
    );
    assert_eq!(report["warnings"].as_array().map(Vec::len), Some(3));
    let maps = report["maps"].as_array().expect("maps");
    let names: Vec<&str> = maps.iter().filter_map(|m| m["name"].as_str()).collect();
    assert_eq!(names, ["Metal_1", "Metal_1-2"]);
    for m in maps {
        assert_eq!(
            m["normal_map"],
            Value::Null,
            "no normal texture: vertex frames"
        );
        assert_eq!(m["primitives"].as_array().map(Vec::len), Some(1));
        // Each quad covers half the map; the other half gets fringe and padding.
        assert_eq!(m["covered"].as_u64(), Some(16 * 32), "{m}");
        assert!(m["fringe"].as_u64().unwrap_or_default() > 0, "{m}");
        assert!(m["padded"].as_u64().unwrap_or_default() > 0, "{m}");
        let exr = read_exr(Path::new(m["files"]["exr"].as_str().expect("exr")));
        // A flat quad with normal +Z: every written texel decodes n = +Z.
        let l0 = &exr.levels[0];
        for (q, h) in l0.quats.iter().zip(&l0.handedness) {
            if *h != 0 {
                let n = qmap::decode_axis(*q, qmap::PreviewAxis::Normal).expect("non-zero");
                assert!((n.z - 1.0).abs() < 1e-3, "{n}");
            } else {
                assert_eq!(*q, Vec4::ZERO);
            }
        }
    }
    assert_eq!(listing(&out_dir).len(), 6);

    // In KTX2 each map names its material: `Metal_1-2.ktx2` is found as material "Metal:1".
    let ktx_dir = dir.path().join("ktx");
    let out = bake(&cli(
        "{} --maps object --map-format rgba16f --cpu --map-size 32 -o {}",
        &[&mesh_str, &ktx_dir.to_string_lossy()],
    ));
    assert!(out.status.success(), "{}", stderr(&out));
    for (file, material) in [("Metal_1.ktx2", "Metal/1"), ("Metal_1-2.ktx2", "Metal:1")] {
        let tex = qtangent::ktx2::read_file(&ktx_dir.join(file)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            tex.key_value_text(qtangent::qmap::stored::KEY_MATERIAL),
            Some(material),
            "{file}"
        );
    }
}

#[test]
fn errors_are_one_line_with_the_status_of_their_kind() {
    let dir = tempdir();
    let out_dir = dir.path().join("out");
    let out_str = out_dir.to_string_lossy().into_owned();
    let o = out_str.as_str();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    // Not a PNG: the error names the image.
    let fake = path("fake-normals.png");
    std::fs::write(&fake, "this is not a PNG").unwrap_or_else(|e| panic!("{e}"));
    let (missing, absent) = (path("no-such-mesh.gltf"), path("absent.png"));
    let cases: [(&str, &[&str], i32, &str); 5] = [
        ("{} --cpu -o {}", &[&missing, o], 2, "no-such-mesh.gltf"),
        ("--cpu --map-size 0 -o {}", &[o], 2, "map size 0×0"),
        ("--cpu --map-size 40000 -o {}", &[o], 2, "16384"),
        (
            "--cpu --map-size 16 --normal-map {} -o {}",
            &[&fake, o],
            1,
            "fake-normals.png",
        ),
        (
            "--cpu --normal-map {} -o {}",
            &[&absent, o],
            2,
            "absent.png",
        ),
    ];
    for (line, paths, status, needle) in cases {
        expect_failure(&cli(line, paths), status, needle);
    }
    // Nothing half-written is left behind.
    assert!(listing(&out_dir).is_empty(), "{:?}", listing(&out_dir));

    // The output folder cannot be made: a file is in the way (refused before any work), or a
    // file is in the way of a folder above it (found when the folder is made).
    let blocker = dir.path().join("blocker");
    std::fs::write(&blocker, "").unwrap_or_else(|e| panic!("{e}"));
    expect_failure(
        &cli("--cpu --map-size 8 -o {}", &[&blocker.to_string_lossy()]),
        2,
        "blocker",
    );
    expect_failure(
        &cli(
            "--cpu --map-size 8 -o {}",
            &[&blocker.join("maps").to_string_lossy()],
        ),
        1,
        "blocker",
    );

    // A mesh whose primitives all lack UVs has nothing to bake.
    let no_uvs = dir.path().join("no-uvs.gltf");
    let tri = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    write_gltf(&no_uvs, &[], &[(tri, None, vec![0, 1, 2], None)]);
    let out = bake(&cli(
        "{} --cpu -o {}",
        &[&no_uvs.to_string_lossy(), &out_str],
    ));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("nothing to bake"), "{}", stderr(&out));
}

#[test]
fn bad_format_is_rejected_with_the_valid_names() {
    let out = bake(&cli("--cpu --map-format bogus", &[]));
    assert!(!out.status.success());
    let err = stderr(&out);
    for name in ["rgba16f", "snorm16", "snorm8", "rgba32f", "bc5", "bc7"] {
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn normal_map_option_is_used() {
    let dir = tempdir();
    let png = dir.path().join("flat-ish.png");
    // A gentle slope in x: every texel (160, 128, 240).
    image::RgbImage::from_pixel(4, 4, image::Rgb([160, 128, 240]))
        .save(&png)
        .unwrap_or_else(|e| panic!("{e}"));
    let report = bake_json(&cli(
        "--maps object --container exr --map-format rgba16f --cpu --map-size 16 --normal-map {} -o {}",
        &[
            &png.to_string_lossy(),
            &dir.path().join("out").to_string_lossy(),
        ],
    ));
    let m = &report["maps"][0];
    assert_eq!(m["normal_map"].as_str(), Some(&*png.to_string_lossy()));
    let got = read_exr(Path::new(m["files"]["exr"].as_str().expect("exr")));
    assert_ne!(
        got.levels,
        library_default(16, MapFormat::Rgba16Float).levels
    );
}

/// The angle of the rotation between the frames of two (not necessarily unit) quaternions,
/// sign-insensitive, in f64: the 4-vector angle by atan2, which keeps its precision near 0
/// (acos of a dot near 1 does not).
fn rotation_deg(p: Vec4, q: Vec4) -> f64 {
    let (p, q) = (p.as_dvec4().normalize(), q.as_dvec4().normalize());
    let q = if p.dot(q) < 0.0 { -q } else { q };
    let half = 2.0 * (p - q).length().atan2((p + q).length());
    (2.0 * half).to_degrees()
}

/// The bake through the CLI with a device agrees with the CPU bake: same covered count and
/// handedness, every level-0 texel within `2 · max_error_deg + 0.01°`. Each baker's stored
/// texel is within [`MapFormat::max_error_deg`] of its own exact frame (the bound's
/// derivation), and the two exact frames differ by f32 rounding only (far below 0.01°; see
/// `tests/unit/gpu/bake.rs`, which holds the GPU raster itself to that on any adapter).
/// Compared sign-insensitively: q and −q are the same frame. The report names the raster the
/// device chose: the CPU's on a CPU adapter (lavapipe), the GPU's elsewhere. Fails without an
/// adapter.
#[test]
fn gpu_bake_matches_cpu() {
    let dir = tempdir();
    let report = bake_json(&cli(
        "--maps object --container exr --map-format rgba16f --map-size 64 -o {}",
        &[&dir.path().join("gpu").to_string_lossy()],
    ));
    assert_eq!(report["mode"], "gpu");
    let adapter = report["adapter"].as_str().expect("an adapter");
    // `GpuContext::describe`: "name (backend, device type)"; a CPU adapter rasters on the CPU.
    let raster = report["raster"].as_str().expect("the raster");
    let on_cpu = adapter.contains(", Cpu");
    let want = if on_cpu {
        "CPU raster (the adapter"
    } else {
        "GPU raster on"
    };
    assert!(raster.starts_with(want), "{adapter}: {raster}");
    let m = &report["maps"][0];
    let want = library_default(64, MapFormat::Rgba16Float);
    assert_eq!(
        m["covered"].as_u64(),
        Some(want.stats.covered as u64),
        "{m}"
    );
    let got = read_exr(Path::new(m["files"]["exr"].as_str().expect("exr")));
    assert_eq!(got.levels.len(), want.levels.len());
    let bound = f64::from(
        MapFormat::Rgba16Float
            .max_error_deg()
            .expect("uncompressed"),
    );
    // On a CPU adapter both are the CPU raster: the same exact frames, so each stored texel is
    // within the format's own bound of the library's (+ 1e-4° of f64 rounding in the angle).
    let tol = if on_cpu {
        bound + 1e-4
    } else {
        2.0 * bound + 0.01
    };
    let (a, b) = (&got.levels[0], &want.levels[0]);
    assert_eq!(a.handedness, b.handedness);
    for (i, (p, q)) in a.quats.iter().zip(&b.quats).enumerate() {
        let deg = rotation_deg(*p, *q);
        assert!(deg <= tol, "texel {i}: {p} vs {q}: {deg}° > {tol}°");
    }
}

/// The default bake: a tangent-space map of the embedded default's swirl, BC5, in KTX2 — the
/// exact bytes the library stores (the CPU bake and the BC5 encoder are deterministic).
#[test]
fn default_bake_is_a_tangent_space_bc5_ktx2() {
    use qtangent::qmap::EncodedMap;
    use qtangent::qmap::{MapFormat, MapSpace};
    let dir = tempdir();
    let out_dir = dir.path().join("maps");
    let report = bake_json(&cli("--cpu -o {}", &[&out_dir.to_string_lossy()]));
    assert_eq!(report["settings"]["maps"], "tangent");
    assert_eq!(report["settings"]["map_format"], "bc5");
    assert_eq!(report["settings"]["container"], "ktx2");
    assert_eq!(
        listing(&out_dir),
        ["default.ktx2", "default.preview.png"],
        "no handedness plane for a tangent-space map"
    );
    let m = &report["maps"][0];
    for key in ["load", "mips", "bake", "store", "write"] {
        assert!(m["time_ms"][key].as_f64().is_some(), "time_ms.{key}: {m}");
    }
    let path = PathBuf::from(m["files"]["ktx2"].as_str().expect("ktx2 path"));
    let tex = qtangent::ktx2::read_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let got = EncodedMap::from_ktx2("default.ktx2", &tex, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((got.space, got.format), (MapSpace::Tangent, MapFormat::Bc5));
    // The swirl is 256²: nine levels.
    assert_eq!((got.width, got.height, got.levels.len()), (256, 256, 9));
    let levels = NormalMap::levels_from_rgba8(&NormalMap::default_swirl().to_rgba8(), 1.0);
    let map = qtangent::qmap::bake::CpuRaster
        .bake_tangent(&levels, None, MapFormat::Rgba32Float)
        .expect("bakes");
    let want = EncodedMap::encode(
        &map,
        &qtangent::qmap::stored::Encoding::new(MapSpace::Tangent, MapFormat::Bc5),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.levels, want.levels);
}

/// Object space in KTX2 with the handedness plane kept: two KTX2 files, the plane R8 SNORM.
#[test]
fn object_space_ktx2_keeps_the_plane_when_asked() {
    let dir = tempdir();
    let out_dir = dir.path().join("maps");
    let report = bake_json(&cli(
        "--cpu --maps object --map-format snorm8 --keep-handedness --map-size 32 -o {}",
        &[&out_dir.to_string_lossy()],
    ));
    let m = &report["maps"][0];
    let plane = qtangent::ktx2::read_file(Path::new(
        m["files"]["handedness_ktx2"].as_str().expect("plane path"),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plane.format, qtangent::ktx2::TexelFormat::R8Snorm);
    assert_eq!(plane.levels.len(), 6);
    assert_eq!(
        listing(&out_dir),
        [
            "default.handedness.ktx2",
            "default.handedness.png",
            "default.ktx2",
            "default.preview.png"
        ]
    );
}

/// Flags that cannot work together fail before any work, in one line naming the flag.
#[test]
fn impossible_flag_combinations_name_the_flag() {
    let dir = tempdir();
    let out_str = dir.path().join("out").to_string_lossy().into_owned();
    // A normal map BC cannot take: 250² (the tangent-space map has the normal map's size).
    let png = dir.path().join("odd.png");
    image::RgbImage::from_pixel(250, 250, image::Rgb([128, 128, 255]))
        .save(&png)
        .unwrap_or_else(|e| panic!("{e}"));
    let (png, o) = (png.to_string_lossy(), out_str.as_str());
    // Status 2: refused from the flags alone; 1: the normal map's size is known once read.
    let cases: [(&str, &[&str], i32, &str); 5] = [
        (
            "--cpu --maps object --map-format bc5 -o {}",
            &[o],
            2,
            "--map-format bc5",
        ),
        (
            "--cpu --container exr --map-format bc7 -o {}",
            &[o],
            2,
            "--container exr",
        ),
        (
            "--cpu --maps tangent --keep-handedness -o {}",
            &[o],
            2,
            "--keep-handedness",
        ),
        (
            "--cpu --maps object --map-size 250 -o {}",
            &[o],
            2,
            "multiple of 4",
        ),
        ("--cpu --normal-map {} -o {}", &[&png, o], 1, "250×250"),
    ];
    for (line, paths, status, needle) in cases {
        expect_failure(&cli(line, paths), status, needle);
    }
    // Nothing half-written is left behind.
    assert!(listing(&dir.path().join("out")).is_empty());
}

/// A material with KHR_materials_anisotropy: `bake` turns its direction into the tangent-space
/// map's twist, stored doubled (axial) and, without a normal map, as BC5 of (z, w); every texel's
/// decoded tangent runs along the texture's direction. With a normal map too the map needs four
/// channels: BC7 by default, and `--map-format bc5` warns and stores BC7.
#[test]
fn anisotropy_texture_becomes_the_tangent_space_maps_twist() {
    use qtangent::lab::disc::{self, RgLayout, TextureFile};
    let dir = tempdir();
    let size = 64;
    let gltf = disc::write_gltf(
        dir.path(),
        size,
        RgLayout::Canonical,
        TextureFile::Png,
        disc::Relief::Flat,
    )
    .expect("writes the disc");
    let out_dir = dir.path().join("maps");
    let out_str = out_dir.to_string_lossy().into_owned();
    let gltf_str = gltf.to_string_lossy().into_owned();
    let report = bake_json(&cli("{} -o {}", &[&gltf_str, &out_str]));
    let m = &report["maps"][0];
    assert_eq!(m["format"], "bc5", "{m}");
    assert!(
        m["anisotropy_texture"]
            .as_str()
            .is_some_and(|t| t.ends_with("swirl_disc_anisotropy.png")),
        "{m}"
    );
    let path = PathBuf::from(m["files"]["ktx2"].as_str().expect("ktx2 path"));
    let tex = qtangent::ktx2::read_file(&path).expect("reads");
    assert_eq!(tex.format, qtangent::ktx2::TexelFormat::Bc5Snorm);
    assert_eq!(tex.key_value_text("qtangent.channels"), Some("zw"));
    assert_eq!(tex.key_value_text("qtangent.twist"), Some("axial"));
    let map = qtangent::qmap::EncodedMap::from_ktx2("disc", &tex, None).expect("a map");
    assert!(map.twist_only && map.axial_twist);
    let quats = map.decode_level(0).expect("decodes");
    let texture = disc::texture(size, RgLayout::Canonical);
    let (mut sum, mut worst, mut n) = (0.0f32, 0.0f32, 0);
    for (q, p) in quats.iter().zip(texture.pixels()) {
        // (0, 0, z, w): the normal is exactly +Z.
        assert_eq!((q.x, q.y), (0.0, 0.0));
        if p.0[2] < 255 {
            continue; // judged where the disc is fully anisotropic
        }
        let d = glam::Vec2::new(f32::from(p.0[0]), f32::from(p.0[1])) / 127.5 - glam::Vec2::ONE;
        let r = qtangent::lab::shading::halve_twist(*q);
        let t = glam::Quat::from_vec4(r.normalize()) * glam::Vec3::X;
        // The map's frame is [t, b, n] in tangent space (x tangent, y bitangent): its tangent's
        // (x, y) is the direction, either sign.
        let e = glam::Vec2::new(t.x, t.y)
            .normalize()
            .dot(d.normalize())
            .abs()
            .min(1.0)
            .acos()
            .to_degrees();
        sum += e;
        worst = worst.max(e);
        n += 1;
    }
    // BC5: each channel's endpoints are 8-bit snorm (1/127 apart) and its 8 interpolated values
    // 1/7 of the block's range apart; on a smooth block (z, w) moves by ~1/254, the doubled
    // twist by as much in radians and the twist by half: 0.11°; the 8-bit RG texture adds
    // 0.32°. Blocks that straddle the disc's changes of direction (45° within a block) take
    // BC5's interpolation error: the mean is judged, the worst printed.
    let mean = sum / n as f32;
    assert!(
        mean < 1.0,
        "mean tangent error {mean:.2}° (worst {worst:.1}°) over {n} texels"
    );

    // With a normal map as well (a tilt and a twist): four channels, two BC5 layers.
    let normal = dir.path().join("bumps.png");
    qtangent::qmap::NormalMap::from_height(size, 2.0, |u, v| {
        (std::f32::consts::TAU * u).sin() * (std::f32::consts::TAU * v).cos()
    })
    .to_rgba8()
    .save(&normal)
    .expect("writes the normal map");
    let normal_str = normal.to_string_lossy().into_owned();
    let paths = [&*gltf_str, &normal_str, &out_str];
    let report = bake_json(&cli("{} --normal-map {} -o {}", &paths));
    assert_eq!(report["maps"][0]["format"], "bc5x2", "{report}");
    let out = bake(&cli("{} --normal-map {} --map-format bc5 -o {}", &paths));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bc5 holds two numbers a texel, not a tilt and a twist")
            && err.contains("stored as bc5x2"),
        "{err}"
    );
}

/// An object-space map too large for the memory the bake may use is refused before any work,
/// naming the size that fits: `QTANGENT_MEMORY` = 1 GB, so 16384² (about 27 GB at the measured
/// 100 bytes a texel, cli/src/bake.rs: `bake_bytes`) is refused and the largest multiple of 4
/// with 100·s² + 128 MiB ≤ 1 GB, s = 2940, is named.
#[test]
fn a_map_too_large_for_memory_is_refused_naming_the_size_that_fits() {
    let dir = tempdir();
    let out_dir = dir.path().join("out");
    let exe = crate::common::command_exe();
    let out = std::process::Command::new(exe)
        .args([
            "bake",
            "--maps",
            "object",
            "--cpu",
            "--map-size",
            "16384",
            "-o",
        ])
        .arg(&out_dir)
        .env("QTANGENT_MEMORY", "1000000000")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--map-size 2940 fits"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!out_dir.exists(), "the output folder was made");
}

/// The thin `bake` example (`examples/bake.rs`) makes the same library calls as `qtangent bake`:
/// on FlightHelmet (six materials with normal maps) both write the same files, byte for byte.
#[test]
fn the_bake_example_writes_what_the_command_writes() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    let helmet = assets.join("gltf/FlightHelmet/FlightHelmet.gltf");
    let helmet = helmet.to_string_lossy();
    let dir = tempdir();
    let (by_command, by_example) = (dir.path().join("command"), dir.path().join("example"));
    let out = bake(&cli(
        "{} --cpu -o {}",
        &[&helmet, &by_command.to_string_lossy()],
    ));
    assert!(out.status.success(), "{}", stderr(&out));
    let out = common::run_tool("bake", &[&helmet, &by_example.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names = listing(&by_command);
    assert!(
        names.len() >= 12,
        "a map and a preview per material: {names:?}"
    );
    assert_eq!(names, listing(&by_example));
    for name in names {
        let read = |d: &Path| std::fs::read(d.join(&name)).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            read(&by_command) == read(&by_example),
            "{name} differs between the command and the example"
        );
    }
}
