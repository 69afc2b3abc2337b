//! Which accessors `--compress meshopt` may compress: those only the qtangent readers read.
//!
//! The three.js plugin and the Bevy plugin read a primitive with `_QTANGENT` themselves,
//! meshopt-compressed views included; everything else in the file (animations, inverse bind
//! matrices, morphing primitives and their targets, instance transforms) is read by the engine's
//! own loader, and Bevy's cannot decode EXT_meshopt_compression: an animation in a compressed
//! view fails the whole load, and a morphing primitive's compressed data panics it (measured
//! with `cargo xtask gltfpack-table`, docs/GLTFPACK.md). So those stay plain.

use std::collections::HashSet;

use serde_json::Value;

use crate::gltf::names::QTANGENT_ATTRIBUTE;

/// The accessors of `json` that primitives with `_QTANGENT` and no morph targets read (their
/// attributes and indices), less any that anything else reads.
pub(super) fn plugin_read(json: &Value) -> HashSet<usize> {
    let mut ours = HashSet::new();
    let mut others = HashSet::new();
    let index = |v: &Value| v.as_u64().map(|a| a as usize);
    let primitives = json["meshes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["primitives"].as_array().into_iter().flatten());
    for p in primitives {
        let attributes = p["attributes"].as_object();
        let read_here = attributes.is_some_and(|a| a.contains_key(QTANGENT_ATTRIBUTE))
            && p.get("targets").is_none();
        let set = if read_here { &mut ours } else { &mut others };
        set.extend(
            attributes
                .into_iter()
                .flatten()
                .filter_map(|(_, a)| index(a)),
        );
        set.extend(index(&p["indices"]));
        for target in p["targets"].as_array().into_iter().flatten() {
            let accessors = target.as_object().into_iter().flatten();
            others.extend(accessors.filter_map(|(_, a)| index(a)));
        }
    }
    for sampler in json["animations"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["samplers"].as_array().into_iter().flatten())
    {
        others.extend(index(&sampler["input"]));
        others.extend(index(&sampler["output"]));
    }
    for skin in json["skins"].as_array().into_iter().flatten() {
        others.extend(index(&skin["inverseBindMatrices"]));
    }
    for node in json["nodes"].as_array().into_iter().flatten() {
        let instancing = &node["extensions"]["EXT_mesh_gpu_instancing"]["attributes"];
        others.extend(
            instancing
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(_, a)| index(a)),
        );
    }
    ours.retain(|a| !others.contains(a));
    ours
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::plugin_read;

    #[test]
    fn only_what_the_plugins_alone_read_is_compressible() {
        let json = json!({
            "meshes": [
                { "primitives": [
                    { "attributes": { "POSITION": 0, "_QTANGENT": 1, "JOINTS_0": 2 }, "indices": 3 },
                    // Morphing: Bevy's loader reads it, targets included.
                    { "attributes": { "POSITION": 4, "_QTANGENT": 5 }, "targets": [{ "POSITION": 6 }] },
                    // No frames: the engine's own loader; it shares the indices of the first.
                    { "attributes": { "POSITION": 7 }, "indices": 3 },
                ] },
            ],
            "animations": [{ "samplers": [{ "input": 8, "output": 9 }] }],
            "skins": [{ "inverseBindMatrices": 10 }],
            "nodes": [{ "extensions": { "EXT_mesh_gpu_instancing": { "attributes": { "TRANSLATION": 11 } } } }],
        });
        let mut got: Vec<usize> = plugin_read(&json).into_iter().collect();
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2]);
    }
}
