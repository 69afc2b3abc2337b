//! Bad input: every case is an `Err` whose message names the file, the mesh/primitive where
//! there is one, and the problem — never a panic. The glTF files are written by the tests.

use crate::common::write_text as obj;
use std::path::{Path, PathBuf};

use qtangent::gltf::{AccessorLayout, AccessorType, BufferUri, Builder, ComponentType};
use qtangent::mesh::{self, ErrorKind, MeshError};
use qtangent::WarningKind;
use serde_json::{json, Value};

/// A one-triangle glTF: JSON plus `name.bin` written into `dir`. `edit` may change the JSON
/// (accessor 0 POSITION, 1 NORMAL, 2 TEXCOORD_0, 3 indices; buffer views in the same order).
struct Tri {
    positions: Vec<f32>,
    normals: Vec<f32>,
    uvs: Vec<f32>,
    indices: Vec<u32>,
}

impl Default for Tri {
    fn default() -> Self {
        Self {
            positions: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            normals: vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            uvs: vec![0.0, 1.0, 1.0, 1.0, 0.0, 0.0],
            indices: vec![0, 1, 2],
        }
    }
}

impl Tri {
    fn write(&self, dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
        let mut b = Builder::default();
        let float = AccessorLayout::float;
        let int = AccessorLayout {
            component: ComponentType::UnsignedInt,
            kind: AccessorType::Scalar,
            normalized: false,
        };
        let parts: [(&[u8], AccessorLayout); 4] = [
            (
                bytemuck::cast_slice(&self.positions),
                float(AccessorType::Vec3),
            ),
            (
                bytemuck::cast_slice(&self.normals),
                float(AccessorType::Vec3),
            ),
            (bytemuck::cast_slice(&self.uvs), float(AccessorType::Vec2)),
            (bytemuck::cast_slice(&self.indices), int),
        ];
        for (bytes, layout) in parts {
            b.accessor(bytes, layout, None);
        }
        let bin = format!("{name}.bin");
        let mut doc = b.to_gltf(BufferUri::File(&bin));
        doc["meshes"] = json!([{"name": "Tri", "primitives": [{
            "attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2},
            "indices": 3
        }]}]);
        doc["nodes"] = json!([{"mesh": 0}]);
        doc["scenes"] = json!([{"nodes": [0]}]);
        doc["scene"] = json!(0);
        edit(&mut doc);
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, doc.to_string()).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join(bin), b.bin()).unwrap_or_else(|e| panic!("{e}"));
        path
    }
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("cannot make a temporary folder: {e}"))
}

/// Loads and prepares; returns the error, checking its message names the file (and the
/// primitive when `primitive` is set) and contains `problem`.
fn expect_error(path: &Path, primitive: bool, problem: &str) -> MeshError {
    let result = mesh::load(path).and_then(|scene| scene.prepare().map(|_| ()));
    let Err(e) = result else {
        panic!(
            "{}: loaded without error, expected '{problem}'",
            path.display()
        )
    };
    let msg = e.to_string();
    println!("{msg}");
    let file = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or_default();
    assert!(
        msg.contains(file),
        "message does not name the file {file}: {msg}"
    );
    assert!(!msg.contains('\n'), "message is one line: {msg}");
    if primitive {
        assert!(
            msg.contains("mesh 'Tri' primitive 0") || msg.contains("primitive 0"),
            "message does not name the primitive: {msg}"
        );
    }
    assert!(
        msg.contains(problem),
        "message does not say '{problem}': {msg}"
    );
    e
}

/// [`expect_error`], whose kind must match the pattern `$kind`; gives the error.
macro_rules! expect_kind {
    ($path:expr, $primitive:expr, $problem:expr, $kind:pat) => {{
        let e = expect_error($path, $primitive, $problem);
        assert!(matches!(e.kind, $kind), "{}: {:?}", $problem, e.kind);
        e
    }};
}

#[test]
fn the_test_gltf_itself_loads() {
    let dir = tempdir();
    let path = Tri::default().write(dir.path(), "good", |_| {});
    let scene = mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(prepared.len(), 1);
    assert_eq!(prepared[0].stats.triangles, 1);
}

#[test]
fn unreadable_truncated_and_invalid_files() {
    let dir = tempdir();
    let missing = dir.path().join("missing.gltf");
    expect_kind!(&missing, false, "cannot read file", ErrorKind::Io { .. });

    let good = Tri::default().write(dir.path(), "good", |_| {});
    let text = std::fs::read_to_string(&good).unwrap_or_default();
    let cut = dir.path().join("cut.gltf");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap_or_else(|e| panic!("{e}"));
    expect_kind!(&cut, false, "truncated", ErrorKind::Truncated(_));

    let glb = dir.path().join("cut.glb");
    let mut bytes = b"glTF".to_vec();
    bytes.extend_from_slice(&2u32.to_le_bytes());
    bytes.extend_from_slice(&1000u32.to_le_bytes()); // claims 1000 bytes, has 12
    std::fs::write(&glb, bytes).unwrap_or_else(|e| panic!("{e}"));
    expect_kind!(&glb, false, "GLB", ErrorKind::Truncated(_));

    let bad = dir.path().join("bad.gltf");
    std::fs::write(&bad, "{ this is not json }").unwrap_or_else(|e| panic!("{e}"));
    expect_kind!(&bad, false, "invalid JSON", ErrorKind::InvalidJson(_));

    let dangling = Tri::default().write(dir.path(), "dangling", |d| {
        d["meshes"][0]["primitives"][0]["indices"] = json!(9)
    });
    expect_kind!(&dangling, false, "invalid glTF", ErrorKind::InvalidGltf(_));

    let other = dir.path().join("mesh.ply");
    std::fs::write(&other, "ply").unwrap_or_else(|e| panic!("{e}"));
    expect_error(&other, false, "unknown mesh format");
}

#[test]
fn missing_and_short_buffers() {
    let dir = tempdir();
    let path = Tri::default().write(dir.path(), "nobin", |_| {});
    std::fs::remove_file(dir.path().join("nobin.bin")).unwrap_or_else(|e| panic!("{e}"));
    expect_kind!(
        &path,
        false,
        "'nobin.bin' is missing",
        ErrorKind::MissingBuffer { .. }
    );

    let path = Tri::default().write(dir.path(), "short", |d| {
        let n = d["buffers"][0]["byteLength"].as_u64().unwrap_or_default();
        d["buffers"][0]["byteLength"] = json!(n + 64);
    });
    expect_kind!(
        &path,
        false,
        "byteLength says",
        ErrorKind::ShortBuffer { .. }
    );
}

#[test]
fn accessor_out_of_bounds_and_wrong_type() {
    let dir = tempdir();
    // POSITION claims 4 vertices, its view holds 3.
    let path = Tri::default().write(dir.path(), "oob", |d| d["accessors"][0]["count"] = json!(4));
    expect_kind!(
        &path,
        true,
        "POSITION accessor 0 is out of bounds",
        ErrorKind::AccessorOutOfBounds { .. }
    );
    // A view that runs past the end of the buffer.
    let path = Tri::default().write(dir.path(), "view", |d| {
        d["bufferViews"][3]["byteOffset"] = json!(4096)
    });
    expect_error(&path, true, "out of bounds");
    // NORMAL as VEC2.
    let path = Tri::default().write(dir.path(), "type", |d| {
        d["accessors"][1]["type"] = json!("VEC2")
    });
    expect_kind!(
        &path,
        true,
        "NORMAL accessor 1 is",
        ErrorKind::AccessorType { .. }
    );
}

#[test]
fn index_out_of_range() {
    let dir = tempdir();
    let path = Tri {
        indices: vec![0, 1, 7],
        ..Default::default()
    }
    .write(dir.path(), "index", |_| {});
    let problem = "index 7 at position 2 is out of range (3 vertices)";
    expect_kind!(
        &path,
        true,
        problem,
        ErrorKind::IndexOutOfRange { index: 7, .. }
    );
}

/// NaN and infinity in positions and UVs (normals and tangents are repaired instead:
/// tests/it/gltf_inputs.rs).
#[test]
fn nan_and_infinite_values() {
    let dir = tempdir();
    let cases = [
        (
            "POSITION",
            Tri {
                positions: vec![0.0, 0.0, 0.0, f32::NAN, 0.0, 0.0, 0.0, 1.0, 0.0],
                ..Default::default()
            },
        ),
        (
            "TEXCOORD_0",
            Tri {
                uvs: vec![0.0, 1.0, 1.0, f32::NEG_INFINITY, 0.0, 0.0],
                ..Default::default()
            },
        ),
    ];
    for (i, (attribute, tri)) in cases.into_iter().enumerate() {
        let path = tri.write(dir.path(), &format!("nonfinite{i}"), |_| {});
        let problem = format!("{attribute} of vertex 1 is");
        expect_kind!(&path, true, &problem, ErrorKind::NonFinite { .. });
    }
}

#[test]
fn mismatched_attribute_counts() {
    let dir = tempdir();
    let tri = Tri {
        uvs: vec![0.0, 1.0, 1.0, 1.0],
        ..Default::default()
    };
    let path = tri.write(dir.path(), "counts", |_| {});
    expect_kind!(
        &path,
        true,
        "TEXCOORD_0 has 2 entries but POSITION has 3",
        ErrorKind::CountMismatch { .. }
    );
}

/// Points, lines and primitives whose indices make no triangle are skipped (tests/it/
/// gltf_inputs.rs checks the warnings); with nothing else in the file, that is the error.
#[test]
fn no_triangles_at_all() {
    let dir = tempdir();
    for (mode, name) in [
        (0, "POINTS"),
        (1, "LINES"),
        (2, "LINE_LOOP"),
        (3, "LINE_STRIP"),
    ] {
        let path = Tri::default().write(dir.path(), &format!("mode{mode}"), |d| {
            d["meshes"][0]["primitives"][0]["mode"] = json!(mode)
        });
        let problem = format!("no triangles at all: 1 primitive(s) skipped ({name})");
        expect_kind!(&path, false, &problem, ErrorKind::NoTrianglesAtAll(_));
    }
    // A strip of two indices makes no triangle.
    let path = Tri {
        indices: vec![0, 1],
        ..Default::default()
    }
    .write(dir.path(), "strip2", |d| {
        d["meshes"][0]["primitives"][0]["mode"] = json!(5)
    });
    expect_error(
        &path,
        false,
        "no triangles at all: 1 primitive(s) skipped (no triangles)",
    );
    let path = Tri::default().write(dir.path(), "nomesh", |d| {
        d["meshes"] = json!([]);
        d["nodes"] = json!([{}]);
    });
    expect_error(&path, false, "no triangles at all: no meshes");
}

/// Four indices in a triangle list: the glTF-Validator only warns, so the fourth is dropped
/// with a warning.
#[test]
fn partial_triangles_lose_the_extra_indices() {
    let dir = tempdir();
    let path = Tri {
        indices: vec![0, 1, 2, 0],
        ..Default::default()
    }
    .write(dir.path(), "partial", |_| {});
    let scene = mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.meshes[0].primitives[0].indices, vec![0, 1, 2]);
    assert!(
        scene.warnings.iter().any(|w| w.kind()
            == &WarningKind::PartialTriangleDropped {
                indices: 4,
                dropped: 1
            }
            && w.to_string()
                == "mesh 'Tri' primitive 0: 4 indices do not make whole triangles; the last 1 ignored"),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn strips_and_fans_become_lists() {
    let dir = tempdir();
    // Four vertices of a unit square: a strip 0 1 2 3 and a fan 0 1 2 3 over the same points.
    let square = Tri {
        positions: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0],
        normals: [0.0, 0.0, 1.0].repeat(4),
        uvs: vec![0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0],
        indices: vec![0, 1, 2, 3],
    };
    let strip = square.write(dir.path(), "strip", |d| {
        d["meshes"][0]["primitives"][0]["mode"] = json!(5)
    });
    let scene = mesh::load(&strip).unwrap_or_else(|e| panic!("{e}"));
    // glTF 2.0 §3.7.2.1: strip triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}): (0 1 2), (1 3 2),
    // both counter-clockwise.
    assert_eq!(
        scene.meshes[0].primitives[0].indices,
        vec![0, 1, 2, 1, 3, 2]
    );
    let fan = square.write(dir.path(), "fan", |d| {
        d["meshes"][0]["primitives"][0]["mode"] = json!(6)
    });
    let scene = mesh::load(&fan).unwrap_or_else(|e| panic!("{e}"));
    // Fan triangles (1 2 0) and (2 3 0).
    assert_eq!(
        scene.meshes[0].primitives[0].indices,
        vec![1, 2, 0, 2, 3, 0]
    );
}

#[test]
fn node_transforms_and_cycles() {
    let dir = tempdir();
    let path = Tri::default().write(dir.path(), "nodes", |d| {
        d["nodes"] = json!([
            {"children": [1], "translation": [1.0, 2.0, 3.0]},
            {"mesh": 0, "scale": [2.0, 2.0, 2.0]}
        ]);
    });
    let scene = mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let world = scene.meshes[0].instances[0].world;
    let expected = glam::Mat4::from_translation(glam::Vec3::new(1.0, 2.0, 3.0))
        * glam::Mat4::from_scale(glam::Vec3::splat(2.0));
    assert_eq!(world, expected);
    let cycle = Tri::default().write(dir.path(), "cycle", |d| {
        d["nodes"] = json!([{"children": [1]}, {"mesh": 0, "children": [0]}]);
    });
    // The gltf crate may reject the cycle itself or leave it to the loader; either way an error.
    let e = mesh::load(&cycle)
        .err()
        .unwrap_or_else(|| panic!("a node cycle loaded"));
    assert!(e.to_string().contains("cycle.gltf"), "{e}");
}

#[test]
fn bad_obj_files() {
    let dir = tempdir();
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    expect_error(
        &obj(dir.path(), "range.obj", &format!("{tri}f 1 2 9\n")),
        false,
        "range.obj",
    );
    let nan = obj(
        dir.path(),
        "nan.obj",
        "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    let problem = "POSITION of vertex 1 is NaN";
    expect_kind!(&nan, true, problem, ErrorKind::NonFinite { .. });
    let lines = obj(dir.path(), "lines.obj", &format!("{tri}l 1 2 3\np 1\n"));
    let problem = "no triangles at all: 2 point and line elements skipped, and no faces";
    expect_kind!(&lines, false, problem, ErrorKind::NoTrianglesAtAll(_));
    let mixed = mesh::load(obj(
        dir.path(),
        "mixed.obj",
        &format!("{tri}f 1 2 3\nl 1 2\n"),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        mixed.meshes[0].primitives[0].indices.len(),
        3,
        "the line is not a triangle"
    );
    assert!(
        mixed.warnings.iter().any(
            |w| w.kind() == &WarningKind::PointsAndLinesSkipped { count: 1 }
                && w.to_string().contains("1 point and line elements skipped")
        ),
        "{:?}",
        mixed.warnings
    );
    expect_error(
        &obj(
            dir.path(),
            "uvrange.obj",
            &format!("{tri}vt 0 0\nf 1/1 2/5 3/1\n"),
        ),
        false,
        "uvrange.obj",
    );
}

#[test]
fn missing_mtl_is_a_warning() {
    let dir = tempdir();
    let path = obj(
        dir.path(),
        "warn.obj",
        "mtllib nothere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n",
    );
    let scene = mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.warnings.len(), 1, "{:?}", scene.warnings);
    assert!(
        scene.warnings[0].to_string().contains("nothere.mtl"),
        "{:?}",
        scene.warnings
    );
    assert_eq!(scene.prepare().map(|p| p.len()).unwrap_or_default(), 1);
}

/// The `inspect` example (built by `cargo test` next to this test's binary) exits with status 1
/// and a one-line message on bad input, and prints JSON on good input.
#[test]
fn inspect_exits_non_zero_with_one_line() {
    let dir = tempdir();
    let bad = Tri {
        indices: vec![0, 1, 7],
        ..Default::default()
    }
    .write(dir.path(), "bad", |_| {});
    let bad = bad.to_string_lossy();
    let (out, stderr) = crate::common::run_failing("inspect", &[&bad], 1, "bad.gltf");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("out of range"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout for a bad file");

    let good = Tri::default().write(dir.path(), "good", |_| {});
    let out = crate::common::run_example("inspect", &[&good.to_string_lossy(), "--json"]);
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("inspect --json is not JSON: {e}"));
    assert_eq!(report["primitives"][0]["triangles"], 1);
    assert_eq!(
        report["primitives"][0]["encodings"]
            .as_array()
            .map(Vec::len),
        Some(6)
    );
}

/// Inputs that panicked inside the gltf crate (1.4.1) before the loader checked for them; found
/// by tests/it/mesh_mutations.rs.
#[test]
fn gltf_crate_panics_are_errors() {
    let dir = tempdir();
    // gltf-json's POSITION min/max hook indexes the accessor list before validating the index.
    let path = Tri::default().write(dir.path(), "posindex", |d| {
        d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(7);
    });
    expect_error(&path, false, "accessor 7 does not exist");
    // Image::source unwraps mimeType when the image lives in a buffer view.
    let path = Tri::default().write(dir.path(), "mime", |d| {
        d["images"] = json!([{"bufferView": 0}]);
    });
    expect_error(&path, false, "images[0] has a bufferView but no mimeType");
    let path = Tri::default().write(dir.path(), "noimage", |d| d["images"] = json!([{}]));
    expect_error(&path, false, "images[0] has neither a uri nor a bufferView");
}

/// Found in review: inputs that made a loader panic, read forever or allocate without bound.
#[test]
fn hostile_references_and_sizes() {
    let dir = tempdir();
    // A sparse POSITION accessor with no buffer view claims a billion vertices.
    let path = Tri::default().write(dir.path(), "sparse", |d| {
        d["accessors"][0] = json!({
            "componentType": 5126, "count": 1_000_000_000u64, "type": "VEC3",
            "sparse": {"count": 1, "indices": {"bufferView": 3, "componentType": 5125},
                       "values": {"bufferView": 0}}
        });
    });
    expect_kind!(&path, false, "too large", ErrorKind::TooLarge(_));
    // Invalid percent-encoding in a buffer URI (the gltf crate unwraps its decode).
    let path = Tri::default().write(dir.path(), "percent", |d| {
        d["buffers"][0]["uri"] = json!("%FF.bin")
    });
    expect_error(&path, false, "buffer 0 URI '%FF.bin'");
    // Devices are not buffers: /dev/zero would be read forever.
    let path = Tri::default().write(dir.path(), "devzero", |d| {
        d["buffers"][0]["uri"] = json!("file:///dev/zero")
    });
    expect_kind!(
        &path,
        false,
        "not a regular file",
        ErrorKind::MissingBuffer { .. }
    );
    let path = Tri::default().write(dir.path(), "http", |d| {
        d["buffers"][0]["uri"] = json!("https://example.com/a.bin")
    });
    expect_error(&path, false, "scheme other than data: or file:");
    // A GLB whose length field is smaller than its own header.
    let glb = dir.path().join("tiny.glb");
    let mut bytes = b"glTF".to_vec();
    bytes.extend_from_slice(&2u32.to_le_bytes());
    bytes.extend_from_slice(&4u32.to_le_bytes());
    std::fs::write(&glb, bytes).unwrap_or_else(|e| panic!("{e}"));
    expect_kind!(&glb, false, "less than the header", ErrorKind::Truncated(_));
    // OBJ: a negative index past the start, and an mtllib that is a device.
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n";
    expect_error(
        &obj(
            dir.path(),
            "negative.obj",
            &format!("{tri}f 1/-3 2/1 3/1\n"),
        ),
        false,
        "line 5: a face refers to texture coordinate -3, but 1 are defined before it",
    );
    let normals = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//-3 2//1 3//1\n";
    expect_error(
        &obj(dir.path(), "negative_normal.obj", normals),
        false,
        "a face refers to normal -3, but 1 are defined before it",
    );
    let scene = mesh::load(obj(
        dir.path(),
        "dev.obj",
        &format!("mtllib /dev/zero\n{tri}f 1 2 3\n"),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        scene
            .warnings
            .iter()
            .map(ToString::to_string)
            .any(|w| w.contains("/dev/zero") && w.contains("not a regular file")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn node_graphs_that_are_not_forests_and_infinite_transforms() {
    let dir = tempdir();
    let no_scene_cycle = Tri::default().write(dir.path(), "cycle2", |d| {
        d.as_object_mut().map(|o| {
            o.remove("scenes");
            o.remove("scene")
        });
        d["nodes"] = json!([{"children": [1]}, {"mesh": 0, "children": [0]}]);
    });
    expect_error(&no_scene_cycle, false, "cycle");
    let two_parents = Tri::default().write(dir.path(), "parents", |d| {
        d["nodes"] = json!([{"children": [2]}, {"children": [2]}, {"mesh": 0}]);
        d["scenes"] = json!([{"nodes": [0, 1]}]);
    });
    expect_error(&two_parents, false, "node 2 has two parents");
    let huge = Tri::default().write(dir.path(), "huge", |d| {
        d["nodes"] = json!([{"mesh": 0, "scale": [1e39, 1.0, 1.0]}])
    });
    expect_error(&huge, false, "node 0: its transform");
    // Two scenes sharing a root is valid glTF.
    let shared = Tri::default().write(dir.path(), "shared", |d| {
        d["scenes"] = json!([{"nodes": [0]}, {"nodes": [0]}]);
        d.as_object_mut().map(|o| o.remove("scene"));
    });
    assert!(mesh::load(&shared).is_ok());
}

/// glTF 2.0 §3.7.2.1: without normals, supplied tangents must be ignored.
#[test]
fn tangents_without_normals_are_ignored() {
    let mut p = qtangent::mesh::procedural::mirrored_quad_pair();
    p.tangents = Some(vec![glam::Vec4::new(0.0, 1.0, 0.0, 1.0); 6]);
    let with_normals = p.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        with_normals.stats.tangents,
        qtangent::mesh::Source::Supplied
    );
    p.normals = None;
    let without = p.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(without.stats.tangents, qtangent::mesh::Source::Generated);
}
