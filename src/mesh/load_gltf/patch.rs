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

use crate::mesh::ErrorKind;
use crate::{Warning, WarningKind};

/// Parses the JSON of a `.gltf` or of a `.glb`'s JSON chunk into the document (not validated)
/// and the JSON it was read from, fixed up.
///
/// # Errors
/// JSON that does not parse (truncated: [`ErrorKind::Truncated`]) or does not fit gltf-json's
/// types.
pub(super) fn parse(
    json: &[u8],
    warnings: &mut Vec<Warning>,
) -> Result<(Value, gltf::Document), ErrorKind> {
    let mut value: Value = gltf::json::deserialize::from_slice(json).map_err(deserialize)?;
    // glTF 1.0 (named scenes, `technique`s) parses as JSON and fails gltf-json's types with a
    // message about an index: say what it is instead.
    if let Some(version) = value["asset"]["version"]
        .as_str()
        .filter(|v| !v.starts_with("2."))
    {
        return Err(ErrorKind::InvalidGltf(format!(
            "glTF {version} is not supported (qtangent reads glTF 2.0; convert the file first)"
        )));
    }
    let root = if fix_up(&mut value, warnings) {
        gltf::json::deserialize::from_value(value.clone())
    } else {
        gltf::json::deserialize::from_slice(json)
    }
    .map_err(deserialize)?;
    Ok((value, gltf::Document::from_json_without_validation(root)))
}

/// serde's JSON errors: truncated at the end, else invalid JSON.
fn deserialize(e: gltf::json::Error) -> ErrorKind {
    if e.is_eof() {
        ErrorKind::Truncated(e.to_string())
    } else {
        ErrorKind::InvalidJson(e.to_string())
    }
}

/// Applies the fix-ups in the module docs; says whether anything changed.
fn fix_up(root: &mut Value, warnings: &mut Vec<Warning>) -> bool {
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
                warnings.push(Warning::new(
                    format!("animation '{name}' channel {c}"),
                    WarningKind::ChannelWithoutTarget,
                ));
            }
            c += 1;
            !untargeted
        });
        changed |= c != channels.len();
    }
    changed
}
