//! The file being packed, read again as JSON (so everything the loader does not model — extras,
//! other extensions, cameras, emissive and occlusion textures — is carried over as written) with
//! its buffers, through the files layer's reader; or, for an OBJ, a document made from the
//! scene ([`Source::synthetic`]).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::PackErrorKind;
use crate::gltf::read::{as_usize, read_buffers, Accessor, Reader};
use crate::gltf::uri::{resolve, Resolved};
use crate::gltf::{glb, ReadError};
use crate::mesh::{ImageSource, Scene};

/// A glTF document as JSON with its buffers.
pub(super) struct Source {
    /// The JSON, as written.
    pub(super) json: Value,
    /// Every buffer's bytes.
    buffers: Vec<Vec<u8>>,
    /// Where relative URIs resolve (the file's folder).
    base: PathBuf,
}

impl Source {
    /// Reads a `.gltf` or `.glb` file and its buffers (the loader has already accepted it).
    ///
    /// # Errors
    /// The file, its container, JSON or buffers cannot be read.
    pub(super) fn read(path: &Path) -> Result<Self, PackErrorKind> {
        let bytes = std::fs::read(path).map_err(PackErrorKind::Io)?;
        let parts = glb::split(&bytes)?;
        let mut json: Value = serde_json::from_slice(parts.json).map_err(ReadError::Json)?;
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let mut buffers = read_buffers(&json, parts.bin, Some(&base))?;
        crate::gltf::draco::expand(&mut json, &mut buffers)?;
        Ok(Self {
            json,
            buffers,
            base,
        })
    }

    /// A document for a scene that came from OBJ: its materials (factors and textures), one
    /// node per mesh instance, and placeholder primitives `pack` fills in; no buffers.
    pub(super) fn synthetic(file: &Path, scene: &Scene) -> Self {
        Self {
            json: synthesize(scene),
            buffers: Vec::new(),
            base: file.parent().unwrap_or(Path::new(".")).to_path_buf(),
        }
    }

    /// The reader of this document's accessors.
    pub(super) fn reader(&self) -> Reader<'_> {
        Reader::new(&self.json, &self.buffers)
    }

    /// Accessor `a`, checked, and its elements tightly packed (sparse values put in; no view:
    /// zeros).
    ///
    /// # Errors
    /// What is out of range, for accessors the loader did not check (extensions').
    pub(super) fn accessor(&self, a: usize) -> Result<(Accessor, Vec<u8>), PackErrorKind> {
        let reader = self.reader();
        let error = |error| PackErrorKind::Accessor { accessor: a, error };
        let acc = reader.accessor(a).map_err(error)?;
        let bytes = reader.bytes(&acc).map_err(error)?;
        Ok((acc, bytes))
    }

    /// Image `i`'s encoded bytes and MIME type.
    ///
    /// # Errors
    /// An unreadable file, data URI or buffer view, or bytes of no known image type.
    pub(super) fn image(&self, i: usize) -> Result<(Vec<u8>, String), PackErrorKind> {
        let image = &self.json["images"][i];
        let bytes = if let Some(v) = as_usize(&image["bufferView"]) {
            let view = self
                .reader()
                .view(v)
                .map_err(|error| PackErrorKind::ImageView { image: i, error })?;
            view.bytes.into_owned()
        } else {
            let uri = image["uri"]
                .as_str()
                .ok_or(PackErrorKind::ImageWithoutSource { image: i })?;
            let source = match resolve(uri, &self.base) {
                Ok(Resolved::Data) => ImageSource::DataUri(uri.into()),
                Ok(Resolved::File(path)) => ImageSource::File(path),
                Err(error) => return Err(PackErrorKind::ImageUri { image: i, error }),
            };
            source.bytes().map_err(|error| PackErrorKind::Image {
                image: source.to_string(),
                error,
            })?
        };
        let mime = image["mimeType"]
            .as_str()
            .or_else(|| sniff_mime(&bytes))
            .ok_or(PackErrorKind::ImageType { image: i })?
            .to_string();
        Ok((bytes, mime))
    }
}

/// The MIME type of encoded image bytes, from their signature.
fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"\xABKTX 20\xBB") {
        Some("image/ktx2")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The glTF document of an OBJ scene ([`Source::synthetic`]).
fn synthesize(scene: &Scene) -> Value {
    let mut images = Vec::new();
    let mut textures = Vec::new();
    let mut texture = |t: &crate::mesh::TextureRef| -> Value {
        let uri = match &t.image {
            ImageSource::File(path) => {
                urlencoding::encode(&path.display().to_string()).into_owned()
            }
            ImageSource::DataUri(uri) => uri.to_string(),
            ImageSource::Embedded { .. } => String::new(),
        };
        images.push(json!({ "uri": uri }));
        textures.push(json!({ "source": images.len() - 1 }));
        json!({ "index": textures.len() - 1 })
    };
    let materials: Vec<Value> = scene
        .materials
        .iter()
        .map(|m| {
            let mut pbr = json!({
                "baseColorFactor": m.base_color.to_array(),
                "metallicFactor": m.metallic,
                "roughnessFactor": m.roughness,
            });
            if let Some(t) = &m.base_color_texture {
                pbr["baseColorTexture"] = texture(t);
            }
            if let Some(t) = &m.metallic_roughness_texture {
                pbr["metallicRoughnessTexture"] = texture(t);
            }
            let mut out = json!({ "name": m.name, "pbrMetallicRoughness": pbr });
            if let Some(t) = &m.normal_texture {
                out["normalTexture"] = texture(t);
                out["normalTexture"]["scale"] = json!(t.scale);
            }
            out
        })
        .collect();
    let meshes: Vec<Value> = scene
        .meshes
        .iter()
        .map(|m| {
            let prims: Vec<Value> = m
                .primitives
                .iter()
                .map(|p| {
                    let mut v = json!({ "attributes": {} });
                    if let Some(k) = p.material {
                        v["material"] = json!(k);
                    }
                    v
                })
                .collect();
            json!({ "name": m.name, "primitives": prims })
        })
        .collect();
    let mut nodes = Vec::new();
    for (i, m) in scene.meshes.iter().enumerate() {
        for inst in &m.instances {
            let mut node = json!({ "mesh": i, "name": m.name });
            if inst.world != glam::Mat4::IDENTITY {
                node["matrix"] = json!(inst.world.to_cols_array());
            }
            nodes.push(node);
        }
    }
    let roots: Vec<usize> = (0..nodes.len()).collect();
    let mut doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": roots }],
        "nodes": nodes,
        "meshes": meshes,
    });
    for (key, list) in [
        ("materials", materials),
        ("images", images),
        ("textures", textures),
    ] {
        if !list.is_empty() {
            doc[key] = Value::Array(list);
        }
    }
    doc
}
