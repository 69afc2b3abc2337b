//! The GLB container (glTF 2.0 §4.4): a 12-byte header (`glTF`, version 2, length), a JSON chunk,
//! and an optional binary chunk, each chunk its length, its type and its bytes padded to 4.

use super::{ReadError, WriteError};

const HEADER: usize = 12;
const JSON: u32 = u32::from_le_bytes(*b"JSON");
const BIN: u32 = u32::from_le_bytes(*b"BIN\0");

/// Whether `bytes` start like a GLB (otherwise they are read as JSON).
pub(crate) fn is_glb(bytes: &[u8]) -> bool {
    bytes.starts_with(b"glTF")
}

/// A glTF document's JSON and, from a GLB, its binary chunk.
#[derive(Debug, Clone)]
pub(crate) struct Parts<'a> {
    /// The JSON text.
    pub(crate) json: &'a [u8],
    /// The GLB binary chunk (none for `.gltf`, or a GLB without one).
    pub(crate) bin: Option<&'a [u8]>,
}

/// Splits a `.glb` into its chunks, or takes a `.gltf` as JSON.
///
/// # Errors
/// A GLB header or chunk that does not fit the file.
pub(crate) fn split(bytes: &[u8]) -> Result<Parts<'_>, ReadError> {
    if !is_glb(bytes) {
        return Ok(Parts {
            json: bytes,
            bin: None,
        });
    }
    let (Some(version), Some(length)) = (word(bytes, 4), word(bytes, 8)) else {
        return Err(ReadError::GlbHeader { bytes: bytes.len() });
    };
    if version != 2 {
        return Err(ReadError::GlbVersion { version });
    }
    if (length as usize) < HEADER {
        return Err(ReadError::GlbLengthBelowHeader { length });
    }
    if length as usize > bytes.len() {
        return Err(ReadError::GlbLengthPastEnd {
            length,
            actual: bytes.len(),
        });
    }
    let bytes = &bytes[..length as usize];
    let mut chunks = Vec::new();
    let mut at = HEADER;
    while at < bytes.len() {
        let chunk = chunks.len();
        let past = |end: u64| ReadError::GlbChunk { chunk, end, length };
        let (Some(size), Some(kind)) = (word(bytes, at), word(bytes, at + 4)) else {
            return Err(past(at as u64 + 8));
        };
        let start = at + 8;
        let end = start as u64 + u64::from(size);
        let data = bytes
            .get(start..start.saturating_add(size as usize))
            .ok_or_else(|| past(end))?;
        chunks.push((kind, data));
        at = (start + size as usize).next_multiple_of(4);
    }
    match chunks.as_slice() {
        [(JSON, json), rest @ ..] => Ok(Parts {
            json,
            bin: rest.first().filter(|(k, _)| *k == BIN).map(|&(_, b)| b),
        }),
        _ => Err(ReadError::GlbNoJson),
    }
}

/// The little-endian `u32` at `at`, if the bytes reach.
fn word(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at.checked_add(4)?)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// A GLB of `json` (padded with spaces) and `bin` (padded with zeros; no chunk when empty).
///
/// # Errors
/// [`WriteError::TooLarge`] past 4 GiB.
pub(crate) fn write(json: &[u8], bin: &[u8]) -> Result<Vec<u8>, WriteError> {
    let json_padded = json.len().next_multiple_of(4);
    let bin_padded = bin.len().next_multiple_of(4);
    let bin_chunk = if bin.is_empty() { 0 } else { 8 + bin_padded };
    let total = HEADER + 8 + json_padded + bin_chunk;
    let too_large = || WriteError::TooLarge {
        bytes: total as u64,
    };
    let word = |n: usize| u32::try_from(n).map(u32::to_le_bytes);
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&word(total).map_err(|_| too_large())?);
    out.extend_from_slice(&word(json_padded).map_err(|_| too_large())?);
    out.extend_from_slice(&JSON.to_le_bytes());
    out.extend_from_slice(json);
    out.resize(HEADER + 8 + json_padded, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&word(bin_padded).map_err(|_| too_large())?);
        out.extend_from_slice(&BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{split, write};
    use crate::gltf::ReadError;

    #[test]
    fn written_glbs_split_back() {
        for (json, bin) in [
            (&b"{}"[..], &b"abcde"[..]),
            (b"{\"a\":1}", b""),
            (b"{}", b"1234"),
        ] {
            let glb = write(json, bin).unwrap_or_default();
            assert_eq!(glb.len() % 4, 0);
            let parts = split(&glb).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                std::str::from_utf8(parts.json).map(str::trim_end),
                std::str::from_utf8(json)
            );
            let back = parts.bin.unwrap_or_default();
            assert_eq!(back.get(..bin.len()), Some(bin));
            assert!(back[bin.len()..].iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn broken_headers_and_chunks_are_errors() {
        let header = |length: u32| {
            let mut b = b"glTF".to_vec();
            b.extend_from_slice(&2u32.to_le_bytes());
            b.extend_from_slice(&length.to_le_bytes());
            b
        };
        assert!(matches!(
            split(b"glTF\x02"),
            Err(ReadError::GlbHeader { .. })
        ));
        assert!(matches!(
            split(&header(4)),
            Err(ReadError::GlbLengthBelowHeader { length: 4 })
        ));
        assert!(matches!(
            split(&header(1000)),
            Err(ReadError::GlbLengthPastEnd { .. })
        ));
        let mut chunk = header(24);
        chunk.extend_from_slice(&100u32.to_le_bytes());
        chunk.extend_from_slice(b"JSON{}  ");
        assert!(matches!(
            split(&chunk),
            Err(ReadError::GlbChunk { chunk: 0, .. })
        ));
        let mut bin_first = header(24);
        bin_first.extend_from_slice(&4u32.to_le_bytes());
        bin_first.extend_from_slice(b"BIN\0abcd");
        assert!(matches!(split(&bin_first), Err(ReadError::GlbNoJson)));
    }
}
