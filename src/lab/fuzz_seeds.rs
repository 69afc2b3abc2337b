//! The glTF seed corpus of the mesh-loader fuzz targets (`xtask/fuzz/`): small files written
//! with the crate's one glTF writer, each a feature of the format the loader must handle.
//! `examples/fuzz_seeds.rs` writes them with its OBJ texts; `cargo xtask fuzz` runs it before
//! fuzzing.

use serde_json::json;

use crate::gltf::{BufferUri, Builder, Target, WriteError};

/// The attributes of a seed: POSITION and what else it has.
struct Attributes<'a> {
    positions: &'a [[f32; 3]],
    normals: Option<&'a [[f32; 3]]>,
    uvs: Option<&'a [[f32; 2]]>,
    tangents: Option<&'a [[f32; 4]]>,
}

/// Handwritten glTF seeds, buffers embedded as data URIs (and one GLB): a bare triangle, a
/// strip, a fan, and an indexed quad with every attribute the loader reads.
pub fn gltf_seeds() -> Result<Vec<(&'static str, Vec<u8>)>, WriteError> {
    let tri = [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]];
    let quad = [[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]];
    let normals = [[0., 0., 1.]; 4];
    let uvs = [[0., 1.], [1., 1.], [1., 0.], [0., 0.]];
    let tangents = [[1., 0., 0., 1.]; 4];
    let only = |positions| Attributes {
        positions,
        normals: None,
        uvs: None,
        tangents: None,
    };
    let full = Attributes {
        positions: &quad,
        normals: Some(&normals),
        uvs: Some(&uvs),
        tangents: Some(&tangents),
    };
    let gltf = |b: Builder| b.to_gltf(BufferUri::DataUri).to_string().into_bytes();
    Ok(vec![
        ("triangle.gltf", gltf(seed(4, &only(&tri), None))),
        (
            "strip.gltf",
            gltf(seed(
                5,
                &Attributes {
                    uvs: Some(&uvs),
                    ..only(&quad)
                },
                None,
            )),
        ),
        (
            "fan.gltf",
            gltf(seed(
                6,
                &Attributes {
                    normals: Some(&normals),
                    ..only(&quad)
                },
                Some(&[0, 1, 2, 3]),
            )),
        ),
        (
            "indexed.gltf",
            gltf(seed(4, &full, Some(&[0, 1, 2, 0, 2, 3]))),
        ),
        (
            "indexed.glb",
            seed(4, &full, Some(&[0, 1, 2, 0, 2, 3])).to_glb()?,
        ),
    ])
}

/// A document with one node (translated), one mesh and one primitive of `mode` with a
/// material: the attributes as f32, the indices (if any) as u16.
fn seed(mode: u32, a: &Attributes<'_>, indices: Option<&[u32]>) -> Builder {
    let mut b = Builder::default();
    let vertex = Some(Target::ArrayBuffer);
    let mut attributes = json!({ "POSITION": b.positions(a.positions) });
    if let Some(n) = a.normals {
        attributes["NORMAL"] = json!(b.floats(n, vertex));
    }
    if let Some(uv) = a.uvs {
        attributes["TEXCOORD_0"] = json!(b.floats(uv, vertex));
    }
    if let Some(t) = a.tangents {
        attributes["TANGENT"] = json!(b.floats(t, vertex));
    }
    let mut primitive = json!({ "attributes": attributes, "mode": mode, "material": 0 });
    if let Some(indices) = indices {
        primitive["indices"] = json!(b.indices(indices));
    }
    b.push(
        "meshes",
        json!({ "name": "seed", "primitives": [primitive] }),
    );
    b.push("nodes", json!({ "mesh": 0, "translation": [1, 0, 0] }));
    b.push(
        "materials",
        json!({ "pbrMetallicRoughness": { "metallicFactor": 0.5 } }),
    );
    b.json["scene"] = json!(0);
    b.json["scenes"] = json!([{ "nodes": [0] }]);
    b
}
