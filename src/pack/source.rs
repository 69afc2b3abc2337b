//! The file being packed, read again as JSON (so everything the loader does not model — extras,
//! other extensions, cameras, emissive and occlusion textures — is carried over as written) with
//! its buffers, for copying the accessors and images that stay.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::bin::{component_bytes, type_components};
use super::PackError;
use crate::mesh::ImageSource;

/// A glTF document as JSON with its buffers.
pub struct Source {
    /// The JSON, as written.
    pub json: Value,
    /// Every buffer's bytes.
    pub buffers: Vec<Vec<u8>>,
    /// Where relative URIs resolve (the file's folder).
    pub base: PathBuf,
}

/// An accessor's elements, tightly packed.
pub struct Raw {
    /// `count × element` bytes.
    pub data: Vec<u8>,
    /// Bytes per element.
    pub element: usize,
    /// `componentType`.
    pub component_type: u32,
    /// `type`.
    pub kind: String,
    /// `normalized`.
    pub normalized: bool,
}

impl Source {
    /// Reads a `.gltf` or `.glb` file and its buffers (the loader has already accepted it).
    ///
    /// # Errors
    /// [`PackError::Input`] naming the file for anything unreadable.
    pub fn read(path: &Path) -> Result<Self, PackError> {
        let fail = |problem: String| PackError::input(path, problem);
        let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        let (json_bytes, blob) = if bytes.starts_with(b"glTF") {
            let glb = gltf::Glb::from_slice(&bytes).map_err(|e| fail(format!("GLB: {e}")))?;
            (
                glb.json.into_owned(),
                glb.bin.map(std::borrow::Cow::into_owned),
            )
        } else {
            (bytes, None)
        };
        let json: Value =
            serde_json::from_slice(&json_bytes).map_err(|e| fail(format!("invalid JSON: {e}")))?;
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let mut buffers = Vec::new();
        for (i, b) in json["buffers"].as_array().into_iter().flatten().enumerate() {
            let data = match b["uri"].as_str() {
                None => blob
                    .clone()
                    .ok_or_else(|| fail(format!("buffer {i} has no uri and no GLB chunk")))?,
                Some(uri) => read_uri(uri, &base).map_err(|e| fail(format!("buffer {i}: {e}")))?,
            };
            buffers.push(data);
        }
        Ok(Self {
            json,
            buffers,
            base,
        })
    }

    /// A document made in code (OBJ input): no buffers.
    #[must_use]
    pub fn synthetic(file: &Path, json: Value) -> Self {
        Self {
            json,
            buffers: Vec::new(),
            base: file.parent().unwrap_or(Path::new(".")).to_path_buf(),
        }
    }

    /// The bytes of buffer view `v`: `(bytes, byteStride)`.
    fn view(&self, v: usize) -> Result<(&[u8], Option<usize>), String> {
        let view = &self.json["bufferViews"][v];
        let buffer = as_usize(&view["buffer"]).ok_or(format!("bufferView {v} has no buffer"))?;
        let offset = as_usize(&view["byteOffset"]).unwrap_or(0);
        let length =
            as_usize(&view["byteLength"]).ok_or(format!("bufferView {v} has no length"))?;
        let data = self
            .buffers
            .get(buffer)
            .and_then(|b| b.get(offset..offset.checked_add(length)?))
            .ok_or(format!("bufferView {v} lies outside buffer {buffer}"))?;
        Ok((data, as_usize(&view["byteStride"])))
    }

    /// Accessor `a`'s elements (sparse substitutions applied; no view: zeros).
    ///
    /// # Errors
    /// What is out of range, for accessors the loader did not check (extensions').
    pub fn accessor(&self, a: usize) -> Result<Raw, String> {
        let acc = &self.json["accessors"][a];
        let component_type = acc["componentType"].as_u64().unwrap_or(0);
        let kind = acc["type"].as_str().unwrap_or("").to_string();
        let element = component_bytes(component_type) * type_components(&kind);
        let count = as_usize(&acc["count"]).unwrap_or(0);
        if element == 0 {
            return Err(format!("accessor {a} has an unknown type"));
        }
        let total = count
            .checked_mul(element)
            .ok_or(format!("accessor {a} is too large"))?;
        let mut data = vec![0u8; total];
        if let Some(v) = as_usize(&acc["bufferView"]) {
            let (bytes, stride) = self.view(v)?;
            let stride = stride.unwrap_or(element);
            let offset = as_usize(&acc["byteOffset"]).unwrap_or(0);
            for (i, out) in data.chunks_exact_mut(element).enumerate() {
                let at = offset + i * stride;
                let src = bytes
                    .get(at..at + element)
                    .ok_or(format!("accessor {a} reads past bufferView {v}"))?;
                out.copy_from_slice(src);
            }
        }
        let sparse = &acc["sparse"];
        if let Some(n) = as_usize(&sparse["count"]) {
            let ix = &sparse["indices"];
            let (ibytes, _) = self.view(as_usize(&ix["bufferView"]).unwrap_or(usize::MAX))?;
            let isize = component_bytes(ix["componentType"].as_u64().unwrap_or(0));
            let ioff = as_usize(&ix["byteOffset"]).unwrap_or(0);
            let vals = &sparse["values"];
            let (vbytes, _) = self.view(as_usize(&vals["bufferView"]).unwrap_or(usize::MAX))?;
            let voff = as_usize(&vals["byteOffset"]).unwrap_or(0);
            for k in 0..n {
                let at = ioff + k * isize;
                let raw = ibytes
                    .get(at..at + isize)
                    .ok_or(format!("accessor {a}: sparse indices out of range"))?;
                let index = raw
                    .iter()
                    .rev()
                    .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
                let src = vbytes
                    .get(voff + k * element..voff + (k + 1) * element)
                    .ok_or(format!("accessor {a}: sparse values out of range"))?;
                data.get_mut(index * element..(index + 1) * element)
                    .ok_or(format!("accessor {a}: sparse index {index} out of range"))?
                    .copy_from_slice(src);
            }
        }
        Ok(Raw {
            data,
            element,
            component_type: u32::try_from(component_type).unwrap_or(0),
            kind,
            normalized: acc["normalized"].as_bool().unwrap_or(false),
        })
    }

    /// Image `i`'s encoded bytes and MIME type.
    ///
    /// # Errors
    /// An unreadable file or data URI.
    pub fn image(&self, i: usize) -> Result<(Vec<u8>, String), String> {
        let image = &self.json["images"][i];
        let bytes = if let Some(v) = as_usize(&image["bufferView"]) {
            self.view(v)?.0.to_vec()
        } else {
            let uri = image["uri"]
                .as_str()
                .ok_or(format!("image {i} has neither uri nor bufferView"))?;
            read_uri(uri, &self.base)?
        };
        let mime = image["mimeType"]
            .as_str()
            .map(str::to_string)
            .or_else(|| sniff_mime(&bytes).map(str::to_string))
            .ok_or(format!("image {i}: not PNG, JPEG, WebP or KTX2"))?;
        Ok((bytes, mime))
    }
}

/// The MIME type of encoded image bytes, from their signature.
#[must_use]
pub fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
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

/// A `data:` URI's bytes, or a file's next to the document (percent-decoded), read as the
/// loader reads images ([`ImageSource::bytes`]).
fn read_uri(uri: &str, base: &Path) -> Result<Vec<u8>, String> {
    let source = if uri.starts_with("data:") {
        ImageSource::DataUri(uri.into())
    } else {
        let decoded = urlencoding::decode(uri).map_err(|e| format!("URI '{uri}': {e}"))?;
        ImageSource::File(base.join(&*decoded))
    };
    source
        .bytes()
        .map_err(|e| format!("{}: {e}", source.describe()))
}

/// A JSON number as an index or size.
#[must_use]
pub fn as_usize(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|n| usize::try_from(n).ok())
}
