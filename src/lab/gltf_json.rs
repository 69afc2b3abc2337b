//! `.gltf` files from the one glTF writer ([`Builder`]): the document with its buffer beside it
//! or inside it as a `data:` URI. The lab's files (the swirl disc) and the tests write `.gltf`
//! this way; the product writes `.glb` (`Builder::to_glb`), and `qtangent pack` splits that GLB
//! when asked for a `.gltf`.

use std::path::Path;

use base64::Engine;
use serde_json::Value;

use crate::gltf::uri::BASE64;
use crate::gltf::{Builder, WriteError};

/// Where a `.gltf`'s buffer goes ([`Builder::to_gltf`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BufferUri<'a> {
    /// Inside the document, as a base64 `data:` URI.
    DataUri,
    /// In a file of this (relative) URI, which the caller writes with [`Builder::bin`].
    File(&'a str),
}

/// A `data:` URI holding `bytes` as base64 (with padding), of MIME type `mime`:
/// `data:image/png;base64,iVBORw0…`.
#[must_use]
pub(crate) fn data_uri(mime: &str, bytes: &[u8]) -> String {
    format!("data:{mime};base64,{}", BASE64.encode(bytes))
}

impl Builder {
    /// The document as a `.gltf` whose buffer is at `buffer` (when there is one).
    #[must_use]
    pub(crate) fn to_gltf(&self, buffer: BufferUri<'_>) -> Value {
        self.finished(Some(match buffer {
            BufferUri::DataUri => data_uri("application/octet-stream", &self.bin),
            BufferUri::File(uri) => uri.to_string(),
        }))
    }

    /// The binary buffer written so far (the tests write it beside a `.gltf` of their own).
    #[cfg(test)]
    #[must_use]
    pub(crate) fn bin(&self) -> &[u8] {
        &self.bin
    }

    /// Writes `path` (a `.gltf`) and its buffer beside it, named as `path` with `.bin`.
    ///
    /// # Errors
    /// [`WriteError::Io`] naming the file.
    pub(crate) fn write_gltf(&self, path: &Path) -> Result<(), WriteError> {
        let bin = path.with_extension("bin");
        let name = bin.file_name().map(|n| n.to_string_lossy().into_owned());
        let doc = self.to_gltf(BufferUri::File(name.as_deref().unwrap_or("buffer.bin")));
        let write = |path: &Path, bytes: &[u8]| {
            std::fs::write(path, bytes).map_err(|error| WriteError::Io {
                path: path.to_path_buf(),
                error,
            })
        };
        if !self.bin.is_empty() {
            write(&bin, &self.bin)?;
        }
        write(path, doc.to_string().as_bytes())
    }
}
