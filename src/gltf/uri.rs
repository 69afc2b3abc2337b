//! URIs in glTF files: `data:` URIs (the one place base64 is encoded and decoded) and references
//! to files beside the document (`file:` URIs and relative, percent-encoded paths).

use std::path::{Path, PathBuf};

use base64::Engine;

use super::ReadError;

/// Where a URI's bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// In the URI itself (`data:`; decode with [`decode_data_uri`]).
    Data,
    /// In a file: a `file:` URI's path, or a relative path percent-decoded against the base.
    File(PathBuf),
}

/// Where `uri` points, relative paths resolved against `base`.
///
/// # Errors
/// A scheme other than `data:` or `file:`, or percent-encoding that is not UTF-8.
pub(crate) fn resolve(uri: &str, base: &Path) -> Result<Resolved, ReadError> {
    if uri.starts_with("data:") {
        return Ok(Resolved::Data);
    }
    if let Some(rest) = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("file:"))
    {
        return Ok(Resolved::File(PathBuf::from(rest)));
    }
    if uri.contains(':') {
        return Err(ReadError::UriScheme { uri: uri.into() });
    }
    let decoded = urlencoding::decode(uri).map_err(|error| ReadError::UriEncoding {
        uri: uri.into(),
        error,
    })?;
    Ok(Resolved::File(base.join(&*decoded)))
}

/// The bytes of a base64 `data:` URI (padding optional, surrounding whitespace ignored).
///
/// # Errors
/// Not a base64 data URI, or not valid base64.
pub(crate) fn decode_data_uri(uri: &str) -> Result<Vec<u8>, ReadError> {
    let payload = uri
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(";base64,"))
        .map(|(_, p)| p)
        .ok_or(ReadError::NotBase64)?;
    BASE64.decode(payload.trim()).map_err(ReadError::Base64)
}

/// Standard base64 that writes padding and reads it or its absence (the lab's `data_uri`
/// writes with it).
pub(crate) const BASE64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

#[cfg(test)]
#[path = "../../tests/unit/gltf/uri.rs"]
mod tests;
