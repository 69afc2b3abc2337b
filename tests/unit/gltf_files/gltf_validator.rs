//! Khronos' glTF-Validator as a judge (`common::judges::validate_gltf`, through `xtask/npm/validate.mjs`):
//! first that the helper can fail — files with known errors report them with the expected code,
//! a minimal valid file reports none — then that every file the `pack` tool writes validates
//! without errors, for every format and map kind, from glTF and from OBJ input.
//!
//! Outside CI, without node or the npm packages (`cargo xtask test` installs them), each test
//! prints a note and passes; under CI that is a failure.

use std::path::{Path, PathBuf};

use qtangent::lab::shapes;
use qtangent::Format;

use crate::common;
use crate::common::judges::validate_gltf;
use crate::common::judges::Report;
use crate::gltf_files::gltf_write::{bumpy_normal_map, GltfFile, GltfPrimitive};

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("cannot make a temporary folder: {e}"))
}

/// A unit cube with normals, tangents (MikkTSpace's, so w = ±1 and unit vectors), UVs and a
/// material with a 16² normal map: every part of a file `pack` reads.
fn textured_cube() -> GltfFile {
    let prepared = shapes::cube()
        .prepare()
        .unwrap_or_else(|e| panic!("the cube prepares: {e}"));
    GltfFile::single(GltfPrimitive::from_prepared(&prepared).with_material(0))
        .with_normal_map(bumpy_normal_map(16))
}

#[test]
fn a_minimal_valid_gltf_has_no_errors() {
    let dir = tempdir();
    let path = textured_cube().write(dir.path(), "cube");
    let Some(report) = validate_gltf(&path) else {
        return;
    };
    println!("{}", report.describe());
    report.assert_no_errors();
    // Nothing hidden behind the counts: the messages are all there.
    let listed = report.messages.len() as u64;
    assert_eq!(
        listed,
        report.errors + report.warnings + report.infos + report.hints,
        "{}",
        report.describe()
    );
}

/// The validator catches what it should, and the helper passes it on: each file breaks one
/// rule and must report at least one error with that rule's code.
#[test]
fn files_with_known_errors_report_them() {
    let dir = tempdir();
    let cube = textured_cube();
    // An index past the end of the vertices (24).
    let mut past_the_end = cube.clone();
    past_the_end.meshes[0][0].indices[4] = 99;
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, &GltfFile, &str, Edit); 3] = [
        // POSITION (accessor 0) claims more vertices than its buffer view holds.
        ("oob", &cube, "ACCESSOR_TOO_LONG", |doc| {
            doc["accessors"][0]["count"] = serde_json::json!(1000);
        }),
        ("index", &past_the_end, "ACCESSOR_INDEX_OOB", |_| {}),
        // The buffer says it is longer than its file.
        ("short", &cube, "BUFFER_BYTE_LENGTH_MISMATCH", |doc| {
            let n = doc["buffers"][0]["byteLength"].as_u64().unwrap_or(0);
            doc["buffers"][0]["byteLength"] = serde_json::json!(n + 64);
        }),
    ];
    for (name, file, code, edit) in cases {
        let path = file.write_with(dir.path(), name, edit);
        let Some(report) = validate_gltf(&path) else {
            return;
        };
        println!("{}", report.describe());
        assert!(
            report.errors >= 1,
            "{name}: no error\n{}",
            report.describe()
        );
        let hits = report.with_code(code);
        assert!(
            hits.iter().any(|m| m.severity == 0),
            "{name}: no error with code {code}\n{}",
            report.describe()
        );
    }
}

/// External resources are read next to the file: a missing normal map is an error (a helper
/// that did not resolve them would report nothing).
#[test]
fn a_missing_external_image_is_an_error() {
    let dir = tempdir();
    let path = textured_cube().write(dir.path(), "noimage");
    let png = dir.path().join("noimage-normal-0.png");
    std::fs::remove_file(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    let Some(report) = validate_gltf(&path) else {
        return;
    };
    println!("{}", report.describe());
    assert!(
        report
            .messages
            .iter()
            .any(|m| m.severity == 0 && m.pointer.starts_with("/images/0")),
        "the missing image is not an error\n{}",
        report.describe()
    );
}

/// The same cube as an OBJ with an MTL naming its normal map (`map_Bump`): 8 positions, the
/// face UVs, one normal per face.
fn textured_cube_obj(dir: &Path) -> PathBuf {
    let mut obj = String::from("mtllib cube.mtl\nusemtl bumpy\n");
    let prim = shapes::cube();
    for p in &prim.positions {
        obj.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for uv in prim.uvs.iter().flatten() {
        // OBJ's v runs up; the loader flips it back to glTF's.
        obj.push_str(&format!("vt {} {}\n", uv.x, 1.0 - uv.y));
    }
    for n in prim.normals.iter().flatten() {
        obj.push_str(&format!("vn {} {} {}\n", n.x, n.y, n.z));
    }
    for t in prim.indices.chunks_exact(3) {
        let v = |i: u32| format!("{0}/{0}/{0}", i + 1);
        obj.push_str(&format!("f {} {} {}\n", v(t[0]), v(t[1]), v(t[2])));
    }
    let path = dir.join("cube.obj");
    std::fs::write(&path, obj).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mtl = "newmtl bumpy\nKd 0.8 0.8 0.8\nmap_Bump cube-normal.png\n";
    std::fs::write(dir.join("cube.mtl"), mtl).unwrap_or_else(|e| panic!("cube.mtl: {e}"));
    let png = dir.join("cube-normal.png");
    bumpy_normal_map(16)
        .save(&png)
        .unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    path
}

/// Packs `source` into `dir` ([`common::pack`]) and validates the GLB, printing the report;
/// `None` without the validator (outside CI).
fn pack_and_validate(source: &Path, dir: &Path, format: Format, maps: &str) -> Option<Report> {
    let out = common::pack(source, dir, format, maps);
    let report = validate_gltf(&out)?;
    println!(
        "pack {} {} {maps}: {}",
        source.display(),
        format.name(),
        report.describe()
    );
    Some(report)
}

/// Panics listing every message of every report with errors.
fn assert_no_errors_in(reports: &[Report]) {
    let failures: Vec<String> = reports
        .iter()
        .filter(|r| r.errors > 0)
        .map(Report::describe)
        .collect();
    assert!(
        failures.is_empty(),
        "{} packed files have validator errors:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `pack` on the textured cube (glTF and OBJ) for every format and map kind: each GLB it writes
/// validates with zero errors. Every message is printed when one does not.
#[test]
fn pack_output_validates_for_every_format_and_map_kind() {
    let dir = tempdir();
    let gltf = textured_cube().write(dir.path(), "cube");
    let obj = textured_cube_obj(dir.path());
    // The inputs themselves are valid glTF (an OBJ has no validator).
    let Some(input) = validate_gltf(&gltf) else {
        return;
    };
    input.assert_no_errors();
    let mut reports = Vec::new();
    for source in [&gltf, &obj] {
        for maps in ["none", "tangent", "object"] {
            for format in Format::ALL {
                let Some(report) = pack_and_validate(source, dir.path(), format, maps) else {
                    return;
                };
                reports.push(report);
            }
        }
    }
    assert_no_errors_in(&reports);
}

/// `pack` on the shared assets: FlightHelmet (six materials with normal maps, external PNGs) and
/// the Fox (skinned, animated, no normals), in the smallest and the default format, without
/// maps and with tangent-space maps: zero validator errors.
#[test]
fn pack_output_of_the_assets_validates() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    let dir = tempdir();
    let mut reports = Vec::new();
    for rel in ["gltf/FlightHelmet/FlightHelmet.gltf", "gltf/Fox.glb"] {
        for (format, maps) in [
            (Format::Smallest3x4, "none"),
            (Format::Snorm16x4, "none"),
            (Format::Snorm16x4, "tangent"),
        ] {
            let Some(report) = pack_and_validate(&assets.join(rel), dir.path(), format, maps)
            else {
                return;
            };
            reports.push(report);
        }
    }
    assert_no_errors_in(&reports);
}

/// An OBJ whose material names a texture file that is not there (exporters leave such names
/// behind): loaded with one warning naming the material's texture and the path, the texture
/// dropped, everything else kept.
#[test]
fn an_obj_texture_file_that_is_missing_is_dropped_with_a_warning() {
    let dir = tempdir();
    let obj = textured_cube_obj(dir.path());
    let png = dir.path().join("cube-normal.png");
    std::fs::remove_file(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    let scene = qtangent::mesh::load(&obj).unwrap_or_else(|e| panic!("{e}"));
    let missing: Vec<String> = scene
        .warnings
        .iter()
        .filter(|w| {
            matches!(
                w.kind(),
                qtangent::WarningKind::TextureFileMissing {
                    texture: "normal",
                    ..
                }
            )
        })
        .map(ToString::to_string)
        .collect();
    assert_eq!(missing.len(), 1, "{:?}", scene.warnings);
    assert!(
        missing[0].contains("cube-normal.png") && missing[0].contains("bumpy"),
        "{missing:?}"
    );
    assert!(scene.materials[0].normal_texture.is_none());
    assert_eq!(scene.meshes.len(), 1);
    assert!(scene.prepare().is_ok());
}
