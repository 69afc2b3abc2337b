//! The document's extension lists and generator after packing.

use serde_json::{json, Value};

use super::textures::uses_key;
use crate::gltf::names::{
    EXT_MESHOPT_COMPRESSION, KHR_DRACO_MESH_COMPRESSION, KHR_MESHOPT_COMPRESSION,
    KHR_MESH_QUANTIZATION, KHR_TEXTURE_TRANSFORM, QTANGENT_FRAMES,
};

/// Extensions whose work the packed file no longer needs.
const DROPPED_EXTENSIONS: [&str; 4] = [
    KHR_MESH_QUANTIZATION,
    KHR_DRACO_MESH_COMPRESSION,
    EXT_MESHOPT_COMPRESSION,
    KHR_MESHOPT_COMPRESSION,
];

/// The document's `extensionsUsed` and `extensionsRequired` after packing: the source's, less
/// those whose work is done (quantisation, compression and KHR_texture_transform the loader
/// undid), plus `QTANGENT_frames` where a primitive or material carries it, KHR_texture_transform
/// where a material has one, KHR_mesh_quantization (`quantised`) and EXT_meshopt_compression
/// (`compressed`), the last two required; the generator; empty lists removed.
pub(super) fn extension_lists(out: &mut Value, quantised: bool, compressed: bool) {
    out["asset"]["generator"] = json!(concat!("qtangent pack ", env!("CARGO_PKG_VERSION")));
    let transform_used = uses_key(&out["materials"], KHR_TEXTURE_TRANSFORM);
    let frames_used =
        uses_key(&out["meshes"], QTANGENT_FRAMES) || uses_key(&out["materials"], QTANGENT_FRAMES);
    for key in ["extensionsUsed", "extensionsRequired"] {
        if let Some(list) = out.get_mut(key).and_then(Value::as_array_mut) {
            list.retain(|e| {
                let e = e.as_str().unwrap_or("");
                !DROPPED_EXTENSIONS.contains(&e)
                    && (e != KHR_TEXTURE_TRANSFORM || transform_used)
                    && e != QTANGENT_FRAMES
            });
        }
    }
    let listed = |out: &Value, e: &str| {
        out["extensionsUsed"]
            .as_array()
            .is_some_and(|l| l.iter().any(|x| x == e))
    };
    let mut used = Vec::new();
    if frames_used {
        used.push(QTANGENT_FRAMES);
    }
    if transform_used && !listed(out, KHR_TEXTURE_TRANSFORM) {
        used.push(KHR_TEXTURE_TRANSFORM);
    }
    let mut required = Vec::new();
    if quantised {
        required.push(KHR_MESH_QUANTIZATION);
    }
    if compressed {
        required.push(EXT_MESHOPT_COMPRESSION);
    }
    for (key, add) in [("extensionsUsed", &used), ("extensionsRequired", &required)] {
        if !out[key].is_array() {
            out[key] = json!([]);
        }
        let also = if key == "extensionsUsed" {
            &required[..]
        } else {
            &[]
        };
        if let Some(list) = out[key].as_array_mut() {
            list.extend(add.iter().chain(also).map(|e| json!(e)));
        }
    }
    if let Some(obj) = out.as_object_mut() {
        for key in [
            "extensionsUsed",
            "extensionsRequired",
            "images",
            "samplers",
            "textures",
        ] {
            if obj
                .get(key)
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                obj.remove(key);
            }
        }
    }
}
