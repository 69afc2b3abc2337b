//! The textures `pack` writes: each quaternion map as a KTX2 image with a core PNG fallback
//! (the KHR_texture_basisu pattern), the tangent-space maps on their materials, and the
//! KHR_texture_transform the loader already applied to the UVs taken off.

use serde_json::{json, Map, Value};

use super::{PackErrorKind, Writer};
use crate::gltf::names::{KHR_TEXTURE_BASISU, QTANGENT_FRAMES};
use crate::mesh::Scene;
use crate::qmap::stored::EncodedMap;
use crate::qmap::SceneMaps;
use crate::{Warning, WarningKind};

/// The core `source` of every quaternion-map texture, for loaders that require one (the
/// KHR_texture_basisu pattern; the map itself is the texture's `QTANGENT_frames.source`): a 1×1
/// PNG of the flat normal (128, 128, 255, 255), 70 bytes, written once.
pub(crate) const FALLBACK_PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x68, 0x68, 0xf8, 0xff,
    0x1f, 0x00, 0x06, 0x82, 0x02, 0xff, 0x6c, 0xe0, 0x43, 0x23, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

impl Writer<'_> {
    /// Embeds a map as a KTX2 image with a texture whose extension names it and whose core
    /// `source` is the [`FALLBACK_PNG`]; returns the texture's index.
    pub(super) fn map_texture(
        &mut self,
        map: &EncodedMap,
        what: &str,
        repeat: bool,
    ) -> Result<usize, PackErrorKind> {
        let (main, _) = map.to_ktx2();
        let bytes = crate::ktx2::write(&main).map_err(|error| PackErrorKind::Ktx2 {
            what: what.to_string(),
            error,
        })?;
        self.report.map_bytes += bytes.len();
        self.report.maps.push((what.to_string(), bytes.len()));
        let view = self.out.view(&bytes, None, None);
        let image = self.out.push(
            "images",
            json!({
                "bufferView": view,
                "mimeType": "image/ktx2",
                "name": what,
            }),
        );
        // LINEAR / LINEAR_MIPMAP_LINEAR; REPEAT (tangent-space maps tile) or CLAMP_TO_EDGE.
        let wrap = if repeat { 10497 } else { 33071 };
        let sampler = self.out.push(
            "samplers",
            json!({
                "magFilter": 9729,
                "minFilter": 9987,
                "wrapS": wrap,
                "wrapT": wrap,
            }),
        );
        let fallback = match self.fallback {
            Some(i) => i,
            None => {
                let view = self.out.view(&FALLBACK_PNG, None, None);
                let name = "fallback for quaternion maps (QTANGENT_frames)";
                let i = self.out.push(
                    "images",
                    json!({ "bufferView": view, "mimeType": "image/png", "name": name }),
                );
                *self.fallback.insert(i)
            }
        };
        Ok(self.out.push(
            "textures",
            json!({
                "sampler": sampler,
                "source": fallback,
                "name": what,
                "extensions": { QTANGENT_FRAMES: { "source": image } },
            }),
        ))
    }

    /// Tangent-space maps on their materials; KHR_texture_transform dropped where the loader
    /// applied it to the UVs.
    pub(super) fn materials(
        &mut self,
        scene: &Scene,
        maps: &SceneMaps,
    ) -> Result<(), PackErrorKind> {
        for (j, m) in scene.materials.iter().enumerate() {
            if m.uv_transform.is_some() {
                strip_transforms(&mut self.out.json["materials"][j]);
            }
            if let Some(Some(map)) = maps.tangent.get(j) {
                let texture = self.map_texture(
                    &map.map,
                    &format!("material '{}' tangent-space map", m.name),
                    true,
                )?;
                let material = &mut self.out.json["materials"][j];
                if !material["extensions"].is_object() {
                    material["extensions"] = json!({});
                }
                material["extensions"][QTANGENT_FRAMES] =
                    json!({ "tangentMap": { "index": texture } });
            }
            self.uv_transforms(j);
            self.volume_thickness(j);
        }
        Ok(())
    }
}

/// Removes KHR_texture_transform from every texture reference of a material that reads UV set
/// 0 (the set the loader transformed).
fn strip_transforms(v: &mut Value) {
    match v {
        Value::Object(obj) => {
            // The set the texture reads, its transform's `texCoord` override included (the
            // loader's view).
            if obj.contains_key("index") && super::unread::set_read(obj) == 0 {
                if let Some(ext) = obj.get_mut("extensions").and_then(Value::as_object_mut) {
                    ext.remove("KHR_texture_transform");
                }
                // A transform that sent the texture to set 0 leaves; the texture still reads
                // set 0.
                if obj.get("texCoord").is_some() {
                    obj.insert("texCoord".into(), json!(0));
                }
                if obj
                    .get("extensions")
                    .and_then(Value::as_object)
                    .is_some_and(Map::is_empty)
                {
                    obj.remove("extensions");
                }
            }
            for (_, child) in obj.iter_mut() {
                strip_transforms(child);
            }
        }
        Value::Array(list) => list.iter_mut().for_each(strip_transforms),
        _ => {}
    }
}

/// Whether `key` appears as an object key anywhere under `v`.
pub(super) fn uses_key(v: &Value, key: &str) -> bool {
    match v {
        Value::Object(obj) => obj.contains_key(key) || obj.values().any(|c| uses_key(c, key)),
        Value::Array(list) => list.iter().any(|c| uses_key(c, key)),
        _ => false,
    }
}

impl Writer<'_> {
    /// Image `i` (`bytes` of type `mime`) as the packed file carries it: a KTX2 image that a
    /// texture names as its core `source` (which glTF allows only for PNG and JPEG: the
    /// validator's TEXTURE_INVALID_IMAGE_MIME_TYPE) moves to KHR_texture_basisu when it is
    /// Basis Universal (vkFormat 0, as that extension asks), else is decoded and stored as a PNG
    /// (level 0, as every loader reads it), with a warning. Other images come back unchanged.
    ///
    /// # Errors
    /// A KTX2 image that does not decode.
    pub(super) fn core_ktx2(
        &mut self,
        i: usize,
        bytes: Vec<u8>,
        mime: String,
    ) -> Result<(Vec<u8>, String), PackErrorKind> {
        if mime != "image/ktx2" {
            return Ok((bytes, mime));
        }
        let textures = self.out.json["textures"].as_array().map_or(0, Vec::len);
        let core: Vec<usize> = (0..textures)
            .filter(|&t| self.out.json["textures"][t]["source"].as_u64() == Some(i as u64))
            .collect();
        if core.is_empty() {
            return Ok((bytes, mime));
        }
        // KTX2's vkFormat: the u32 after the 12-byte identifier; 0 for Basis Universal.
        let basis = bytes.get(12..16) == Some(&[0, 0, 0, 0][..]);
        if basis {
            for t in core {
                let texture = &mut self.out.json["textures"][t];
                if let Some(obj) = texture.as_object_mut() {
                    obj.remove("source");
                }
                if !texture["extensions"].is_object() {
                    texture["extensions"] = json!({});
                }
                if texture["extensions"].get(KHR_TEXTURE_BASISU).is_none() {
                    texture["extensions"][KHR_TEXTURE_BASISU] = json!({ "source": i });
                }
            }
            self.basisu = true;
            return Ok((bytes, mime));
        }
        let image = crate::ktx2::decode_image(&bytes).map_err(|error| PackErrorKind::Ktx2 {
            what: format!("image {i}"),
            error,
        })?;
        let mut png = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .map_err(|e| PackErrorKind::Image {
                image: format!("image {i}"),
                error: crate::mesh::ImageError::Decode(e),
            })?;
        self.report.warnings.push(Warning::new(
            format!("image {i}"),
            WarningKind::Ktx2ImageAsPng,
        ));
        Ok((png, "image/png".into()))
    }
}
