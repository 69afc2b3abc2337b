//! The document read, with the JSON fixed up first where gltf-json 1.4.1 requires what glTF 2.0
//! makes optional:
//!
//! - `scene.nodes` (an empty scene, `"scenes": [{}]`): an empty list is filled in;
//! - `animation.channels[i].target.node` (the spec lets an extension name the target instead):
//!   the channel is dropped, with a warning naming the animation and channel.
//!
//! Both `.gltf` and the JSON chunk of a `.glb` go through here. A document that needs no fix-up
//! is deserialised from its own bytes, so serde's messages keep their line and column.

use gltf::json::Value;

use super::gltf_error;
use crate::mesh::ErrorKind;

/// Parses `.gltf` or `.glb` bytes into a document (not validated) and the GLB binary chunk.
///
/// # Errors
/// A broken GLB container, or JSON that does not parse or does not fit gltf-json's types.
pub(super) fn parse(bytes: &[u8], warnings: &mut Vec<String>) -> Result<gltf::Gltf, ErrorKind> {
    let (json, blob) = if bytes.starts_with(b"glTF") {
        let glb = gltf::binary::Glb::from_slice(bytes).map_err(gltf_error)?;
        (glb.json, glb.bin.map(std::borrow::Cow::into_owned))
    } else {
        (std::borrow::Cow::Borrowed(bytes), None)
    };
    let deserialize = |e: gltf::json::Error| gltf_error(gltf::Error::Deserialize(e));
    let mut value: Value = gltf::json::deserialize::from_slice(&json).map_err(deserialize)?;
    let root = if fix_up(&mut value, warnings) {
        gltf::json::deserialize::from_value(value)
    } else {
        gltf::json::deserialize::from_slice(&json)
    }
    .map_err(deserialize)?;
    Ok(gltf::Gltf {
        document: gltf::Document::from_json_without_validation(root),
        blob,
    })
}

/// Applies the fix-ups in the module docs; says whether anything changed.
fn fix_up(root: &mut Value, warnings: &mut Vec<String>) -> bool {
    let mut changed = false;
    if let Some(scenes) = root.get_mut("scenes").and_then(Value::as_array_mut) {
        for scene in scenes.iter_mut().filter_map(Value::as_object_mut) {
            if !scene.contains_key("nodes") {
                scene.insert("nodes".into(), Value::Array(Vec::new()));
                changed = true;
            }
        }
    }
    let animations = root.get_mut("animations").and_then(Value::as_array_mut);
    for (a, anim) in animations.into_iter().flatten().enumerate() {
        let name = anim
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("animation {a}"), str::to_owned);
        let Some(channels) = anim.get_mut("channels").and_then(Value::as_array_mut) else {
            continue;
        };
        let mut c = 0;
        channels.retain(|channel| {
            let untargeted = channel
                .get("target")
                .and_then(Value::as_object)
                .is_some_and(|t| !t.contains_key("node"));
            if untargeted {
                warnings.push(format!(
                    "animation '{name}' channel {c}: no target node (an extension may name the target); skipped"
                ));
            }
            c += 1;
            !untargeted
        });
        changed |= c != channels.len();
    }
    changed
}
