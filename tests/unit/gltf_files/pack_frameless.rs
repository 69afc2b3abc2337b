//! A primitive whose source has no NORMAL and whose material reads no tangent is written as
//! the source is, without frames and with its identical corners welded (`src/pack/frameless.rs`):
//! every reader makes the flat normals glTF asks for. `--flat-frames` stores them.

use std::path::Path;

use glam::{Mat3, Vec3};
use serde_json::{json, Value};

use crate::common::judges::validate_gltf;
use crate::gltf::{glb, Builder};
use crate::mesh;
use crate::pack::{self, PackOptions, Packed};
use crate::qmap::SceneMaps;

/// A regular octahedron (vertices ±x, ±y, ±z) as a non-indexed triangle list with POSITION
/// alone: 8 faces, 24 corners on 6 positions, counter-clockwise from outside. Face `k`'s signs
/// are the bits of `k`; its outward normal is (sx, sy, sz)/√3.
fn octahedron(path: &Path) {
    let mut corners = Vec::new();
    for k in 0..8u32 {
        let s = |bit: u32| if k & (1 << bit) == 0 { 1.0 } else { -1.0 };
        let (sx, sy, sz) = (s(0), s(1), s(2));
        let (a, b, c) = ([sx, 0.0, 0.0], [0.0, sy, 0.0], [0.0, 0.0, sz]);
        // (b − a) × (c − a) = (sy·sz, sx·sz, sx·sy): outward where sx·sy·sz > 0.
        if sx * sy * sz > 0.0 {
            corners.extend([a, b, c]);
        } else {
            corners.extend([a, c, b]);
        }
    }
    let mut b = Builder::default();
    let position = b.positions(&corners);
    let mesh = b.push(
        "meshes",
        json!({ "name": "octahedron", "primitives": [{ "attributes": { "POSITION": position } }] }),
    );
    let node = b.push("nodes", json!({ "mesh": mesh }));
    b.json["scenes"] = json!([{ "nodes": [node] }]);
    b.json["scene"] = json!(0);
    let bytes = b.to_glb().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn packed(path: &Path, options: &PackOptions) -> Packed {
    let scene = mesh::load(path).unwrap_or_else(|e| panic!("{e}"));
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    pack::pack(&scene, &prepared, &SceneMaps::default(), options)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_of(glb_bytes: &[u8]) -> Value {
    let parts = glb::split(glb_bytes).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_slice(parts.json).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn flat_sources_are_written_without_frames() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let source = dir.path().join("octahedron.glb");
    octahedron(&source);

    let out = packed(&source, &PackOptions::default());
    assert_eq!(out.frameless, vec![true]);
    assert_eq!(out.report.frameless, 1);
    let json = json_of(&out.glb);
    let primitive = &json["meshes"][0]["primitives"][0];
    let attributes: Vec<&String> = primitive["attributes"]
        .as_object()
        .map(|a| a.keys().collect())
        .unwrap_or_default();
    assert_eq!(attributes, ["POSITION"], "{primitive}");
    assert!(primitive.get("extensions").is_none(), "{primitive}");
    let used = json["extensionsUsed"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!used.contains(&json!("QTANGENT_frames")), "{used:?}");
    // Read by the engines' own loaders: f32 positions (Bevy's reads no other), 6 welded.
    let position = &json["accessors"][primitive["attributes"]["POSITION"]
        .as_u64()
        .unwrap_or(u64::MAX) as usize];
    assert_eq!(position["componentType"], 5126, "{position}");
    assert_eq!(position["count"], 6, "{position}");
    let written = dir.path().join("octahedron-packed.glb");
    std::fs::write(&written, &out.glb).unwrap_or_else(|e| panic!("{e}"));
    if let Some(report) = validate_gltf(&written) {
        let errors: Vec<&String> = report
            .messages
            .iter()
            .filter(|m| m.severity == 0)
            .map(|m| &m.code)
            .collect();
        assert!(errors.is_empty(), "validator: {errors:?}");
    }

    // Read back, the loader makes the flat normals: each corner's, turned to world space, is
    // its face's (the face is the one its world centroid points at). Bound: a 14-bit grid over
    // the 2-unit box moves a vertex at most δ = (√3/2)·2/(2¹⁴ − 1); a vertex moved δ off its
    // face tilts it at most δ/h, h = √(3/2) the face's height, so three vertices tilt it at
    // most 3δ/h = 2.6e-4 rad (0.015°).
    let back = mesh::load(&written).unwrap_or_else(|e| panic!("{e}"));
    let world = back.meshes[0].instances[0].world;
    let normal_matrix = Mat3::from_mat4(world).inverse().transpose();
    let prepared = back.prepare().unwrap_or_else(|e| panic!("{e}"));
    let p = &prepared[0];
    assert_eq!(p.indices.len(), 24);
    let delta = 3f32.sqrt() / 2.0 * 2.0 / f32::from(u16::MAX >> 2);
    let bound = 3.0 * delta / 1.5f32.sqrt();
    for tri in p.indices.chunks_exact(3) {
        let centroid: Vec3 = tri
            .iter()
            .map(|&i| world.transform_point3(p.positions[i as usize]))
            .sum::<Vec3>()
            / 3.0;
        let expected = centroid.signum() / 3f32.sqrt();
        for &i in tri {
            let n = (normal_matrix * p.frames[i as usize].normal).normalize();
            // atan2 of the cross and dot products: acos of an f32 dot product cannot tell
            // angles under 3.5e-4 rad apart.
            let angle = n.cross(expected).length().atan2(n.dot(expected));
            assert!(
                angle <= bound,
                "corner {i}: {angle} rad from its face's normal"
            );
        }
    }

    // Asked for, the frames are stored: `_QTANGENT`, the 24 corners split by face.
    let options = PackOptions {
        flat_frames: true,
        ..PackOptions::default()
    };
    let kept = packed(&source, &options);
    assert_eq!(kept.frameless, vec![false]);
    let json = json_of(&kept.glb);
    let attributes = &json["meshes"][0]["primitives"][0]["attributes"];
    assert!(attributes.get("_QTANGENT").is_some(), "{attributes}");
    let count = &json["accessors"][attributes["POSITION"].as_u64().unwrap_or(0) as usize]["count"];
    assert_eq!(count, 24);

    // That file packed again with the defaults (to change its format, say): its frames are
    // `_QTANGENT` without NORMAL, and they stay.
    let again = dir.path().join("octahedron-frames.glb");
    std::fs::write(&again, &kept.glb).unwrap_or_else(|e| panic!("{e}"));
    let repacked = packed(&again, &PackOptions::default());
    assert_eq!(repacked.frameless, vec![false]);
    let json = json_of(&repacked.glb);
    let attributes = &json["meshes"][0]["primitives"][0]["attributes"];
    assert!(attributes.get("_QTANGENT").is_some(), "{attributes}");
}

/// The Fox (no NORMAL, a base colour texture, a skin): its 1728 corners welded into as many
/// vertices as it has distinct (position, UV, joints, weights), counted here from the loaded
/// source.
#[test]
fn the_fox_is_welded_into_its_distinct_corners() {
    let Some(assets) = crate::common::assets_dir() else {
        return;
    };
    let path = assets.join("gltf/Fox.glb");
    let scene = mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let (_, source) = scene.primitives().next().expect("the Fox has a primitive");
    let mut distinct = std::collections::HashSet::new();
    for v in 0..source.positions.len() {
        let mut key: Vec<u32> = source.positions[v].to_array().map(f32::to_bits).to_vec();
        if let Some(uvs) = &source.uvs {
            key.extend(uvs[v].to_array().map(f32::to_bits));
        }
        for set in &source.joints {
            key.extend(set[v].map(u32::from));
        }
        for set in &source.weights {
            key.extend(set[v].map(f32::to_bits));
        }
        distinct.insert(key);
    }
    let out = packed(&path, &PackOptions::default());
    assert_eq!(out.frameless, vec![true]);
    assert_eq!(out.report.vertices, distinct.len());
    assert!(distinct.len() < source.positions.len());
}
