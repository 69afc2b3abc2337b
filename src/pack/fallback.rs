//! The fallback policy for the source's normal maps when a material gets a tangent-space
//! quaternion map (`pack --maps tangent`): kept (the default: viewers without `QTANGENT_frames`
//! still show the bumps) or dropped for the smallest file (`--normal-maps drop`). Dropping
//! removes the material's `normalTexture`, then every texture no material names any more, then
//! every image no texture names, renumbering what is left, before the images are embedded.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::gltf::names::{
    EXT_MESHOPT_COMPRESSION, EXT_MESH_GPU_INSTANCING, EXT_TEXTURE_WEBP, KHR_DRACO_MESH_COMPRESSION,
    KHR_MESHOPT_COMPRESSION, KHR_MESH_QUANTIZATION, KHR_TEXTURE_BASISU, KHR_TEXTURE_TRANSFORM,
    MSFT_TEXTURE_DDS, QTANGENT_FRAMES,
};
use crate::gltf::read::as_usize;

/// Every texture index a material (its JSON) names: the `index` of each texture info.
fn texture_refs(v: &Value, out: &mut BTreeSet<usize>) {
    match v {
        Value::Object(obj) => {
            if let Some(i) = obj.get("index").and_then(as_usize) {
                out.insert(i);
            }
            obj.values().for_each(|c| texture_refs(c, out));
        }
        Value::Array(list) => list.iter().for_each(|c| texture_refs(c, out)),
        _ => {}
    }
}

/// Renumbers every texture info's `index` under `v` through `new`.
fn renumber(v: &mut Value, new: &[Option<usize>]) {
    match v {
        Value::Object(obj) => {
            if let Some(i) = obj.get("index").and_then(as_usize) {
                if let Some(Some(n)) = new.get(i) {
                    obj.insert("index".into(), (*n).into());
                }
            }
            obj.values_mut().for_each(|c| renumber(c, new));
        }
        Value::Array(list) => list.iter_mut().for_each(|c| renumber(c, new)),
        _ => {}
    }
}

/// Every image index a texture (its JSON) names: its `source` and its extensions' `source`s
/// (KHR_texture_basisu, EXT_texture_webp, …).
fn image_refs(texture: &Value) -> Vec<usize> {
    let mut out: Vec<usize> = texture
        .get("source")
        .and_then(as_usize)
        .into_iter()
        .collect();
    for ext in texture["extensions"].as_object().into_iter().flatten() {
        out.extend(ext.1.get("source").and_then(as_usize));
    }
    out
}

/// `list[key]` without the entries `keep` rejects; returns old index → new index.
fn retain(json: &mut Value, key: &str, keep: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
    let Some(list) = json[key].as_array_mut() else {
        return Vec::new();
    };
    let mut new = Vec::with_capacity(list.len());
    let mut kept = 0;
    for i in 0..list.len() {
        if keep(i) {
            new.push(Some(kept));
            kept += 1;
        } else {
            new.push(None);
        }
    }
    let mut i = 0;
    list.retain(|_| {
        i += 1;
        new[i - 1].is_some()
    });
    new
}

/// Extensions known to name textures only from materials and images only from textures, so
/// that dropping and renumbering them is safe (any other extension in `extensionsUsed` might
/// name an image or a texture by index: then nothing is renumbered).
const KNOWN: &[&str] = &[
    KHR_TEXTURE_TRANSFORM,
    KHR_TEXTURE_BASISU,
    EXT_TEXTURE_WEBP,
    MSFT_TEXTURE_DDS,
    "EXT_texture_avif",
    KHR_MESH_QUANTIZATION,
    EXT_MESHOPT_COMPRESSION,
    KHR_MESHOPT_COMPRESSION,
    KHR_DRACO_MESH_COMPRESSION,
    "KHR_lights_punctual",
    "KHR_materials_variants",
    EXT_MESH_GPU_INSTANCING,
    QTANGENT_FRAMES,
];

/// Drops the `normalTexture` of each material in `materials`, the textures no material names
/// after that, and the images only those textures used; returns the source index of each
/// image left. Textures and images stay as they are (only the references leave) when the file
/// uses an extension outside [`KNOWN`] and the `KHR_materials_*` family, which could name them
/// by index elsewhere.
pub(super) fn drop_normal_maps(json: &mut Value, materials: &[usize]) -> Vec<usize> {
    for &m in materials {
        let material = json
            .get_mut("materials")
            .and_then(|l| l.get_mut(m))
            .and_then(Value::as_object_mut);
        if let Some(obj) = material {
            obj.remove("normalTexture");
        }
    }
    let images = json["images"].as_array().map_or(0, Vec::len);
    let unknown = json["extensionsUsed"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|e| {
            let e = e.as_str().unwrap_or("");
            !KNOWN.contains(&e) && !e.starts_with("KHR_materials_")
        });
    if unknown {
        return (0..images).collect();
    }
    let mut used = BTreeSet::new();
    texture_refs(&json["materials"], &mut used);
    // Only the textures nothing names any more leave, and only the images they alone used (an
    // image named elsewhere, by a kept texture or another extension, stays).
    let textures_list = json["textures"].as_array().cloned().unwrap_or_default();
    let (gone, kept): (Vec<_>, Vec<_>) = textures_list
        .iter()
        .enumerate()
        .partition(|(t, _)| !used.contains(t));
    let kept_images: BTreeSet<usize> = kept.iter().flat_map(|(_, t)| image_refs(t)).collect();
    let dropped_images: BTreeSet<usize> = gone
        .iter()
        .flat_map(|(_, t)| image_refs(t))
        .filter(|i| !kept_images.contains(i))
        .collect();
    let textures = retain(json, "textures", |t| used.contains(&t));
    renumber(&mut json["materials"], &textures);
    let new = retain(json, "images", |i| !dropped_images.contains(&i));
    for texture in json["textures"].as_array_mut().into_iter().flatten() {
        if let Some(s) = texture.get("source").and_then(as_usize) {
            texture["source"] = new.get(s).copied().flatten().into();
        }
        let exts = texture.get_mut("extensions").and_then(Value::as_object_mut);
        for (_, ext) in exts.into_iter().flatten() {
            if let Some(s) = ext.get("source").and_then(as_usize) {
                ext["source"] = new.get(s).copied().flatten().into();
            }
        }
    }
    (0..new.len()).filter(|&i| new[i].is_some()).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A normal map shared with nothing leaves with its texture and image; one another
    /// material also uses stays; indices after them are renumbered.
    #[test]
    fn only_what_nothing_else_names_is_dropped() {
        let mut doc = json!({
            "materials": [
                {"normalTexture": {"index": 0}, "pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}},
                {"normalTexture": {"index": 2}},
                {"occlusionTexture": {"index": 2}, "emissiveTexture": {"index": 3}}
            ],
            "textures": [{"source": 0}, {"source": 1}, {"source": 2}, {"source": 3}],
            "images": [{"uri": "n0.png"}, {"uri": "c.png"}, {"uri": "n1.png"}, {"uri": "e.png"},
                       {"uri": "named-by-another-extension.png"}]
        });
        let kept = super::drop_normal_maps(&mut doc, &[0, 1]);
        assert_eq!(kept, [1, 2, 3, 4]);
        assert_eq!(
            doc["images"],
            json!([{"uri": "c.png"}, {"uri": "n1.png"}, {"uri": "e.png"},
                   {"uri": "named-by-another-extension.png"}])
        );
        assert_eq!(
            doc["textures"],
            json!([{"source": 0}, {"source": 1}, {"source": 2}])
        );
        assert_eq!(
            doc["materials"],
            json!([
                {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
                {},
                {"occlusionTexture": {"index": 1}, "emissiveTexture": {"index": 2}}
            ])
        );
        // A file with an extension that could name images or textures by index elsewhere:
        // the references leave, nothing is renumbered.
        let mut other = json!({
            "extensionsUsed": ["EXT_lights_image_based"],
            "materials": [{"normalTexture": {"index": 0}}],
            "textures": [{"source": 0}],
            "images": [{"uri": "n0.png"}]
        });
        assert_eq!(super::drop_normal_maps(&mut other, &[0]), [0]);
        assert_eq!(other["textures"], json!([{"source": 0}]));
        assert_eq!(other["materials"], json!([{}]));
    }
}
