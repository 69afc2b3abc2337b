//! Bad input: every case is an `Err` whose message names the file, the mesh/primitive where
//! there is one, and the problem — never a panic. The glTF files are written by the tests.

use crate::common::write_text as obj;
use std::path::{Path, PathBuf};

use qtangent::gltf::{AccessorLayout, AccessorType, Builder, ComponentType};
use qtangent::lab::gltf_json::BufferUri;
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
    /// The default triangle with these indices.
    fn with_indices(indices: &[u32]) -> Self {
        Self {
            indices: indices.to_vec(),
            ..Self::default()
        }
    }

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

/// What a case's error kind must be: a test of [`ErrorKind`], or `None` for any kind.
type Kind = Option<fn(&ErrorKind) -> bool>;

/// A [`Kind`] that accepts the kinds matching the pattern.
macro_rules! kind {
    ($kind:pat) => {
        Some((|k: &ErrorKind| matches!(k, $kind)) as fn(&ErrorKind) -> bool)
    };
}

/// [`expect_error`], whose kind `kind` must accept.
fn expect_kind(path: &Path, primitive: bool, problem: &str, kind: Kind) {
    let e = expect_error(path, primitive, problem);
    if let Some(kind) = kind {
        assert!(kind(&e.kind), "{problem}: {:?}", e.kind);
    }
}

/// A bad input file: a [`Tri`] written with a JSON edit (named without its extension), or bytes.
enum File {
    Tri(Tri, fn(&mut Value)),
    Bytes(Vec<u8>),
}

/// The default [`Tri`] with `edit` applied to its JSON.
fn edit(edit: fn(&mut Value)) -> File {
    File::Tri(Tri::default(), edit)
}

/// A file of this text.
fn text(text: impl Into<String>) -> File {
    File::Bytes(text.into().into_bytes())
}

/// The first primitive of the first mesh of a [`Tri`]'s JSON.
fn prim(doc: &mut Value) -> &mut Value {
    &mut doc["meshes"][0]["primitives"][0]
}

/// A GLB header (magic, version 2) whose length field says `length`, and nothing after it.
fn glb_header(length: u32) -> Vec<u8> {
    [
        b"glTF".as_slice(),
        &2u32.to_le_bytes(),
        &length.to_le_bytes(),
    ]
    .concat()
}

/// Writes `text` as the OBJ file `name` into `dir` and loads it, which must succeed.
fn load_obj(dir: &Path, name: &str, text: &str) -> mesh::Scene {
    mesh::load(obj(dir, name, text)).unwrap_or_else(|e| panic!("{e}"))
}

/// One bad input a line: the file's name, the file, whether the message must name the primitive,
/// what it must say, and the error's kind ([`expect_kind`]).
type Case<'a> = (&'a str, File, bool, &'a str, Kind);

/// Writes each case's file into `dir` and expects its error ([`expect_kind`]).
fn expect_cases<'a>(dir: &Path, cases: impl IntoIterator<Item = Case<'a>>) {
    for (name, file, primitive, problem, kind) in cases {
        let path = match file {
            File::Tri(tri, edit) => tri.write(dir, name, edit),
            File::Bytes(bytes) => {
                let path = dir.join(name);
                std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
                path
            }
        };
        expect_kind(&path, primitive, problem, kind);
    }
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
    expect_kind(
        &missing,
        false,
        "cannot read file",
        kind!(ErrorKind::Io { .. }),
    );
    let good = Tri::default().write(dir.path(), "good", |_| {});
    let json = std::fs::read_to_string(&good).unwrap_or_default();
    #[rustfmt::skip]
    let cases = [
        ("cut.gltf", text(&json[..json.len() / 2]), false, "truncated", kind!(ErrorKind::Truncated(_))),
        // A GLB header that claims 1000 bytes, of which the file has 12.
        ("cut.glb", File::Bytes(glb_header(1000)), false, "GLB", kind!(ErrorKind::Truncated(_))),
        ("bad.gltf", text("{ this is not json }"), false, "invalid JSON", kind!(ErrorKind::InvalidJson(_))),
        // glTF 1.0: named scenes would fail gltf-json's types with a message about an index.
        ("old.gltf", text(r#"{"asset": {"version": "1.0"}, "scene": "s", "scenes": {"s": {"nodes": []}}}"#), false, "glTF 1.0 is not supported", kind!(ErrorKind::InvalidGltf(_))),
        ("dangling", edit(|d| prim(d)["indices"] = json!(9)), false, "invalid glTF", kind!(ErrorKind::InvalidGltf(_))),
        ("mesh.ply", text("ply"), false, "unknown mesh format", None),
    ];
    expect_cases(dir.path(), cases);
}

#[test]
fn missing_and_short_buffers() {
    let dir = tempdir();
    let path = Tri::default().write(dir.path(), "nobin", |_| {});
    std::fs::remove_file(dir.path().join("nobin.bin")).unwrap_or_else(|e| panic!("{e}"));
    let missing = kind!(ErrorKind::MissingBuffer { .. });
    expect_kind(&path, false, "'nobin.bin' is missing", missing);
    let longer = edit(|d| {
        let n = d["buffers"][0]["byteLength"].as_u64().unwrap_or_default();
        d["buffers"][0]["byteLength"] = json!(n + 64);
    });
    let short = kind!(ErrorKind::ShortBuffer { .. });
    expect_cases(
        dir.path(),
        [("short", longer, false, "byteLength says", short)],
    );
}

#[test]
fn accessor_out_of_bounds_and_wrong_type() {
    // POSITION claims 4 vertices, its view holds 3; a view runs past the end of the buffer;
    // NORMAL is a VEC2.
    #[rustfmt::skip]
    let cases = [
        ("oob", edit(|d| d["accessors"][0]["count"] = json!(4)), true, "POSITION accessor 0 is out of bounds", kind!(ErrorKind::AccessorOutOfBounds { .. })),
        ("view", edit(|d| d["bufferViews"][3]["byteOffset"] = json!(4096)), true, "out of bounds", None),
        ("type", edit(|d| d["accessors"][1]["type"] = json!("VEC2")), true, "NORMAL accessor 1 is", kind!(ErrorKind::AccessorType { .. })),
    ];
    expect_cases(tempdir().path(), cases);
}

#[test]
fn index_out_of_range() {
    let dir = tempdir();
    let tri = Tri::with_indices(&[0, 1, 7]);
    let problem = "index 7 at position 2 is out of range (3 vertices)";
    let kind = kind!(ErrorKind::IndexOutOfRange { index: 7, .. });
    expect_cases(
        dir.path(),
        [("index", File::Tri(tri, |_| {}), true, problem, kind)],
    );
}

/// NaN and infinity in positions and UVs (normals and tangents are repaired instead:
/// tests/unit/gltf_files/gltf_inputs.rs).
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
        expect_kind(&path, true, &problem, kind!(ErrorKind::NonFinite { .. }));
    }
}

#[test]
fn mismatched_attribute_counts() {
    let tri = Tri {
        uvs: vec![0.0, 1.0, 1.0, 1.0],
        ..Default::default()
    };
    let problem = "TEXCOORD_0 has 2 entries but POSITION has 3";
    let kind = kind!(ErrorKind::CountMismatch { .. });
    expect_cases(
        tempdir().path(),
        [("counts", File::Tri(tri, |_| {}), true, problem, kind)],
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
            prim(d)["mode"] = json!(mode)
        });
        let problem = format!("no triangles at all: 1 primitive(s) skipped ({name})");
        expect_kind(
            &path,
            false,
            &problem,
            kind!(ErrorKind::NoTrianglesAtAll(_)),
        );
    }
    // A strip of two indices makes no triangle.
    let two = Tri::with_indices(&[0, 1]);
    #[rustfmt::skip]
    let cases = [
        ("strip2", File::Tri(two, |d| prim(d)["mode"] = json!(5)), false, "no triangles at all: 1 primitive(s) skipped (no triangles)", None),
        ("nomesh", edit(|d| { d["meshes"] = json!([]); d["nodes"] = json!([{}]); }), false, "no triangles at all: no meshes", None),
    ];
    expect_cases(dir.path(), cases);
}

/// Four indices in a triangle list: the glTF-Validator only warns, so the fourth is dropped
/// with a warning.
#[test]
fn partial_triangles_lose_the_extra_indices() {
    let dir = tempdir();
    let path = Tri::with_indices(&[0, 1, 2, 0]).write(dir.path(), "partial", |_| {});
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
    // glTF 2.0 §3.7.2.1: strip triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}): (0 1 2), (1 3 2),
    // both counter-clockwise. Fan triangles (1 2 0) and (2 3 0).
    let lists = [
        ("strip", 5, [0, 1, 2, 1, 3, 2]),
        ("fan", 6, [1, 2, 0, 2, 3, 0]),
    ];
    for (name, mode, list) in lists {
        let path = square.write(dir.path(), name, |d| prim(d)["mode"] = json!(mode));
        let scene = mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(scene.meshes[0].primitives[0].indices, list, "{name}");
    }
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
    #[rustfmt::skip]
    let cases = [
        ("range.obj", text(format!("{tri}f 1 2 9\n")), false, "range.obj", None),
        ("nan.obj", text("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n"), true, "POSITION of vertex 1 is NaN", kind!(ErrorKind::NonFinite { .. })),
        ("lines.obj", text(format!("{tri}l 1 2 3\np 1\n")), false, "no triangles at all: 2 point and line elements skipped, and no faces", kind!(ErrorKind::NoTrianglesAtAll(_))),
        ("uvrange.obj", text(format!("{tri}vt 0 0\nf 1/1 2/5 3/1\n")), false, "uvrange.obj", None),
    ];
    expect_cases(dir.path(), cases);
    let mixed = load_obj(dir.path(), "mixed.obj", &format!("{tri}f 1 2 3\nl 1 2\n"));
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
}

#[test]
fn missing_mtl_is_a_warning() {
    let dir = tempdir();
    let text =
        "mtllib nothere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n";
    let scene = load_obj(dir.path(), "warn.obj", text);
    assert_eq!(scene.warnings.len(), 1, "{:?}", scene.warnings);
    assert!(
        scene.warnings[0].to_string().contains("nothere.mtl"),
        "{:?}",
        scene.warnings
    );
    assert_eq!(scene.prepare().map(|p| p.len()).unwrap_or_default(), 1);
}

/// `qtangent inspect --formats` exits with status 1 and a one-line message on a file that does
/// not load, and prints JSON on good input: every format's row within its bound.
#[test]
fn inspect_exits_non_zero_with_one_line() {
    let dir = tempdir();
    let bad = Tri::with_indices(&[0, 1, 7]).write(dir.path(), "bad", |_| {});
    let bad = bad.to_string_lossy();
    let (out, stderr) =
        crate::common::run_failing("qtangent inspect", &["--formats", &bad], 1, "bad.gltf");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("out of range"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout for a bad file");

    let good = Tri::default().write(dir.path(), "good", |_| {});
    let out = crate::common::run_tool(
        "qtangent inspect",
        &["--formats", &good.to_string_lossy(), "--json"],
    );
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
    assert_eq!(report["within_bounds"], true);
}

/// Inputs that panicked inside the gltf crate (1.4.1) before the loader checked for them; found
/// by tests/it/mesh_mutations.rs.
#[test]
fn gltf_crate_panics_are_errors() {
    #[rustfmt::skip]
    let cases = [
        // gltf-json's POSITION min/max hook indexes the accessor list before validating the index.
        ("posindex", edit(|d| prim(d)["attributes"]["POSITION"] = json!(7)), false, "accessor 7 does not exist", None),
        // Image::source unwraps mimeType when the image lives in a buffer view.
        ("mime", edit(|d| d["images"] = json!([{"bufferView": 0}])), false, "images[0] has a bufferView but no mimeType", None),
        ("noimage", edit(|d| d["images"] = json!([{}])), false, "images[0] has neither a uri nor a bufferView", None),
    ];
    expect_cases(tempdir().path(), cases);
}

/// Found in review: inputs that made a loader panic, read forever or allocate without bound.
#[test]
fn hostile_references_and_sizes() {
    let dir = tempdir();
    // A sparse POSITION accessor with no buffer view claims a billion vertices.
    let sparse = edit(|d| {
        d["accessors"][0] = json!({
            "componentType": 5126, "count": 1_000_000_000u64, "type": "VEC3",
            "sparse": {"count": 1, "indices": {"bufferView": 3, "componentType": 5125},
                       "values": {"bufferView": 0}}
        });
    });
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n";
    let normals = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//-3 2//1 3//1\n";
    #[rustfmt::skip]
    let cases = [
        ("sparse", sparse, false, "too large", kind!(ErrorKind::TooLarge(_))),
        // Invalid percent-encoding in a buffer URI (the gltf crate unwraps its decode).
        ("percent", edit(|d| d["buffers"][0]["uri"] = json!("%FF.bin")), false, "buffer 0 URI '%FF.bin'", None),
        // Devices are not buffers: /dev/zero would be read forever.
        ("devzero", edit(|d| d["buffers"][0]["uri"] = json!("file:///dev/zero")), false, "not a regular file", kind!(ErrorKind::MissingBuffer { .. })),
        ("http", edit(|d| d["buffers"][0]["uri"] = json!("https://example.com/a.bin")), false, "scheme other than data: or file:", None),
        // A GLB whose length field is smaller than its own header.
        ("tiny.glb", File::Bytes(glb_header(4)), false, "less than the header", kind!(ErrorKind::Truncated(_))),
        // OBJ: a negative index past the start.
        ("negative.obj", text(format!("{tri}f 1/-3 2/1 3/1\n")), false, "line 5: a face refers to texture coordinate -3, but 1 are defined before it", None),
        ("negative_normal.obj", text(normals), false, "a face refers to normal -3, but 1 are defined before it", None),
    ];
    expect_cases(dir.path(), cases);
    // OBJ: an mtllib that is a device.
    let scene = load_obj(
        dir.path(),
        "dev.obj",
        &format!("mtllib /dev/zero\n{tri}f 1 2 3\n"),
    );
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
    let no_scene_cycle = edit(|d| {
        d.as_object_mut().map(|o| {
            o.remove("scenes");
            o.remove("scene")
        });
        d["nodes"] = json!([{"children": [1]}, {"mesh": 0, "children": [0]}]);
    });
    let two_parents = edit(|d| {
        d["nodes"] = json!([{"children": [2]}, {"children": [2]}, {"mesh": 0}]);
        d["scenes"] = json!([{"nodes": [0, 1]}]);
    });
    #[rustfmt::skip]
    let cases = [
        ("cycle2", no_scene_cycle, false, "cycle", None),
        ("parents", two_parents, false, "node 2 has two parents", None),
        ("huge", edit(|d| d["nodes"] = json!([{"mesh": 0, "scale": [1e39, 1.0, 1.0]}])), false, "node 0: its transform", None),
    ];
    expect_cases(dir.path(), cases);
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
    let mut p = qtangent::lab::shapes::mirrored_quad_pair();
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
