//! Buffer views compressed with EXT_meshopt_compression (or KHR_meshopt_compression, its
//! ratified form with the same bitstream), decoded by meshoptimizer itself (the `meshopt` crate)
//! for [`super::read::Reader::view`]: the vertex codec (`ATTRIBUTES`), the index codecs
//! (`TRIANGLES`, `INDICES`) and the filters that undo a lossy pre-transform (`OCTAHEDRAL`,
//! `QUATERNION`, `EXPONENTIAL`, and KHR's `COLOR`).
//!
//! meshoptimizer's decoders are safe for untrusted input (they may decode garbage, never read or
//! write out of bounds), but they assert their size arguments; every one is checked here first,
//! against what the extension's specification allows, so a bad file is an error, never an abort.

use serde_json::Value;

use super::error::AccessorError;
use super::names::{EXT_MESHOPT_COMPRESSION, KHR_MESHOPT_COMPRESSION};
use super::read::{as_usize, MAX_ELEMENTS};

/// The meshopt extension object of a buffer view or a buffer, if it has one (EXT's where it
/// names both, which [`decode`] refuses for a view).
pub(crate) fn extension(item: &Value) -> Option<&Value> {
    let e = item.get("extensions")?;
    e.get(EXT_MESHOPT_COMPRESSION)
        .or_else(|| e.get(KHR_MESHOPT_COMPRESSION))
}

/// Whether buffer `b` of `json` is a meshopt fallback: marked so, or (the mark is optional)
/// without a URI, the parent of compressed views only, and no compressed view's source. Its
/// bytes are never read: its views decode from other buffers.
pub(crate) fn is_fallback(json: &Value, b: usize) -> bool {
    let buffer = &json["buffers"][b];
    if extension(buffer).is_some_and(|e| e["fallback"].as_bool() == Some(true)) {
        return true;
    }
    let views: Vec<&Value> = json["bufferViews"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let mut parent_of = views
        .iter()
        .filter(|v| as_usize(&v["buffer"]) == Some(b))
        .peekable();
    let source_of_any = views
        .iter()
        .filter_map(|v| extension(v))
        .any(|e| as_usize(&e["buffer"]) == Some(b));
    buffer.get("uri").is_none()
        && !source_of_any
        && parent_of.peek().is_some()
        && parent_of.all(|v| extension(v).is_some())
}

/// How a compressed view was encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Attributes,
    Triangles,
    Indices,
}

/// The lossy pre-transform the decoder undoes after the codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
    Color,
}

/// Decodes compressed buffer view `view` (its JSON `json`, `byteLength` `view_length`) from
/// `buffers`: `count` elements of `byteStride` bytes, which must be the view's `byteLength`.
///
/// # Errors
/// [`AccessorError::Meshopt`] naming what the extension object or the stream gets wrong.
pub(crate) fn decode(
    view: usize,
    json: &Value,
    view_length: usize,
    buffers: &[Vec<u8>],
) -> Result<Vec<u8>, AccessorError> {
    let fail = |problem: String| AccessorError::Meshopt { view, problem };
    let names = &json["extensions"];
    let ext = match (
        names.get(EXT_MESHOPT_COMPRESSION),
        names.get(KHR_MESHOPT_COMPRESSION),
    ) {
        (Some(_), Some(_)) => {
            return Err(fail(
                "it names both EXT_ and KHR_meshopt_compression".into(),
            ));
        }
        (Some(ext), None) | (None, Some(ext)) => ext,
        (None, None) => return Err(fail("it is not compressed".into())),
    };
    let view_stride = json.get("byteStride").and_then(as_usize);
    let number = |key: &str| {
        as_usize(&ext[key]).ok_or_else(|| fail(format!("{key} is {}", json_or_missing(&ext[key]))))
    };
    let (buffer, length, stride, count) = (
        number("buffer")?,
        number("byteLength")?,
        number("byteStride")?,
        number("count")?,
    );
    let offset = match ext.get("byteOffset") {
        None => 0,
        Some(_) => number("byteOffset")?,
    };
    let mode = match ext["mode"].as_str() {
        Some("ATTRIBUTES") => Mode::Attributes,
        Some("TRIANGLES") => Mode::Triangles,
        Some("INDICES") => Mode::Indices,
        _ => return Err(fail(format!("mode is {}", json_or_missing(&ext["mode"])))),
    };
    let filter = match ext.get("filter").map(Value::as_str) {
        None | Some(Some("NONE")) => Filter::None,
        Some(Some("OCTAHEDRAL")) => Filter::Octahedral,
        Some(Some("QUATERNION")) => Filter::Quaternion,
        Some(Some("EXPONENTIAL")) => Filter::Exponential,
        Some(Some("COLOR")) => Filter::Color,
        _ => return Err(fail(format!("filter is {}", ext["filter"]))),
    };
    check_layout(mode, filter, stride, count).map_err(|p| fail(p.into()))?;
    if let Some(s) = view_stride.filter(|&s| s != stride) {
        return Err(fail(format!(
            "the view's byteStride {s} is not the extension's {stride}"
        )));
    }
    // At most 2^27 × 256 = 2^35 bytes: checked, for targets where that overflows `usize`.
    let decoded_len = count
        .checked_mul(stride)
        .ok_or_else(|| fail(format!("{count} elements of {stride} bytes overflow")))?;
    if decoded_len != view_length {
        return Err(fail(format!(
            "{count} elements of {stride} bytes are {decoded_len} bytes, but the view's byteLength is {view_length}"
        )));
    }
    let data = buffers
        .get(buffer)
        .ok_or_else(|| fail(format!("buffer {buffer} does not exist")))?;
    let source = offset
        .checked_add(length)
        .and_then(|end| data.get(offset..end))
        .ok_or_else(|| {
            fail(format!(
                "bytes {offset}..{offset}+{length} run past buffer {buffer}'s {}",
                data.len()
            ))
        })?;
    check_source_length(mode, count, decoded_len, source.len()).map_err(fail)?;
    // Words, so the filters' 16- and 32-bit reads are aligned; `count * stride` is a multiple of
    // 4 in every mode but 16-bit indices, which round up and are cut back below.
    let mut words = vec![0u32; decoded_len.div_ceil(4)];
    let code = run_codec(mode, &mut words, count, stride, source);
    if code != 0 {
        return Err(fail(format!(
            "the {} stream does not decode (meshoptimizer error {code})",
            match mode {
                Mode::Attributes => "ATTRIBUTES",
                Mode::Triangles => "TRIANGLES",
                Mode::Indices => "INDICES",
            }
        )));
    }
    run_filter(filter, &mut words, count, stride);
    let mut bytes: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
    bytes.truncate(decoded_len);
    Ok(bytes)
}

/// The least compressed bytes that can decode to `count` elements (`decoded_len` bytes), so a
/// small file cannot ask for a large allocation: the index codecs' own minimums
/// (meshoptimizer refuses less: a header byte, a byte a triangle or an index, and its tail), and
/// for attributes one byte per 4096 decoded — looser than the codec's best case, 64 decoded
/// bytes a byte in version 0 and about 1024 in version 1 (groups of zeros in a few bits).
fn check_source_length(
    mode: Mode,
    count: usize,
    decoded_len: usize,
    have: usize,
) -> Result<(), String> {
    let least = match mode {
        Mode::Attributes => 1 + decoded_len / 4096,
        Mode::Triangles => 1 + count / 3 + 16,
        Mode::Indices => 1 + count + 4,
    };
    if have < least {
        return Err(format!(
            "{have} compressed bytes cannot hold {decoded_len} decoded bytes (at least {least})"
        ));
    }
    Ok(())
}

/// What the extension allows of a mode's stride, count and filter (and what meshoptimizer
/// asserts): attributes 4 to 256 bytes in steps of 4; indices 2 or 4 bytes, triangles in threes,
/// unfiltered; octahedral and colour filters 4 or 8 bytes, quaternions 8.
fn check_layout(
    mode: Mode,
    filter: Filter,
    stride: usize,
    count: usize,
) -> Result<(), &'static str> {
    if count == 0 || count > MAX_ELEMENTS {
        return Err("count must be 1 to 2^27");
    }
    match mode {
        Mode::Attributes if stride == 0 || stride > 256 || !stride.is_multiple_of(4) => {
            Err("ATTRIBUTES needs a byteStride of 4 to 256, a multiple of 4")
        }
        Mode::Triangles | Mode::Indices if stride != 2 && stride != 4 => {
            Err("TRIANGLES and INDICES need a byteStride of 2 or 4")
        }
        Mode::Triangles if !count.is_multiple_of(3) => {
            Err("TRIANGLES needs a count divisible by 3")
        }
        Mode::Triangles | Mode::Indices if filter != Filter::None => {
            Err("TRIANGLES and INDICES take no filter")
        }
        _ => match filter {
            Filter::Octahedral | Filter::Color if stride != 4 && stride != 8 => {
                Err("OCTAHEDRAL and COLOR need a byteStride of 4 or 8")
            }
            Filter::Quaternion if stride != 8 => Err("QUATERNION needs a byteStride of 8"),
            _ => Ok(()),
        },
    }
}

/// Runs the mode's codec from `source` into `out` (at least `count * stride` bytes); 0 on
/// success, meshoptimizer's error code otherwise.
fn run_codec(mode: Mode, out: &mut [u32], count: usize, stride: usize, source: &[u8]) -> i32 {
    assert!(
        count
            .checked_mul(stride)
            .is_some_and(|n| n <= out.len() * 4),
        "a caller bug: too small"
    );
    let destination = out.as_mut_ptr().cast();
    // SAFETY: `out` holds at least `count * stride` bytes (asserted above) and `source` is a
    // live slice of `source.len()` bytes; `check_layout` gave the decoders only the strides and
    // counts they accept (they assert them). meshoptimizer documents these decoders as safe for
    // untrusted input: they never read past `source` nor write past `count * stride` bytes.
    unsafe {
        match mode {
            Mode::Attributes => meshopt::ffi::meshopt_decodeVertexBuffer(
                destination,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
            Mode::Triangles => meshopt::ffi::meshopt_decodeIndexBuffer(
                destination,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
            Mode::Indices => meshopt::ffi::meshopt_decodeIndexSequence(
                destination,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
        }
    }
}

/// Undoes `filter` in place on `count` elements of `stride` bytes.
fn run_filter(filter: Filter, words: &mut [u32], count: usize, stride: usize) {
    let f = match filter {
        Filter::None => return,
        Filter::Octahedral => meshopt::ffi::meshopt_decodeFilterOct,
        Filter::Quaternion => meshopt::ffi::meshopt_decodeFilterQuat,
        Filter::Exponential => meshopt::ffi::meshopt_decodeFilterExp,
        Filter::Color => meshopt::ffi::meshopt_decodeFilterColor,
    };
    assert!(
        count
            .checked_mul(stride)
            .is_some_and(|n| n <= words.len() * 4),
        "a caller bug: too small"
    );
    // SAFETY: `words` is 4-byte aligned and holds `count * stride` bytes (asserted); the stride
    // is one `check_layout` allows for this filter, as the filter asserts.
    unsafe { f(words.as_mut_ptr().cast(), count, stride) }
}

/// A JSON value for a message, or `missing`.
fn json_or_missing(v: &Value) -> String {
    if v.is_null() {
        "missing".into()
    } else {
        v.to_string()
    }
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../tests/unit/gltf_meshopt.rs"]
mod tests;

/// How a buffer view is compressed ([`encode`]): `count` elements of `stride` bytes, triangle
/// indices or vertex-codec attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Encoding {
    /// Bytes an element (a multiple of 4 up to 256 for attributes; 2 or 4 for indices).
    pub(crate) stride: usize,
    /// Elements (a multiple of 3 for triangles).
    pub(crate) count: usize,
    /// Triangle indices (`TRIANGLES`), else `ATTRIBUTES`.
    pub(crate) triangles: bool,
}

impl Encoding {
    /// Whether the extension's specification allows this encoding (anything else stays
    /// uncompressed).
    pub(crate) fn allowed(&self) -> bool {
        if self.triangles {
            matches!(self.stride, 2 | 4) && self.count.is_multiple_of(3)
        } else {
            self.stride.is_multiple_of(4) && (4..=256).contains(&self.stride)
        }
    }

    /// The view's EXT_meshopt_compression object for `length` compressed bytes at `offset` of
    /// buffer 0.
    pub(crate) fn json(&self, offset: usize, length: usize) -> Value {
        serde_json::json!({
            "buffer": 0,
            "byteOffset": offset,
            "byteLength": length,
            "byteStride": self.stride,
            "mode": if self.triangles { "TRIANGLES" } else { "ATTRIBUTES" },
            "count": self.count,
        })
    }
}

/// Triangle indices (`width` bytes each, 2 or 4, little-endian) as meshoptimizer's index codec
/// decodes them: the same triangles in the same order, each turned (winding kept) to the
/// corner the codec starts it from. Once turned, the codec gives them back byte for byte.
/// Bytes that are not whole triangles come back as they are.
pub(crate) fn codec_turned(bytes: &[u8], width: usize) -> Vec<u8> {
    let indices = indices_of(bytes, width);
    if indices.is_empty() || !indices.len().is_multiple_of(3) {
        return bytes.to_vec();
    }
    let vertices = indices.iter().max().map_or(0, |&m| m as usize + 1);
    let Ok(decoded) = meshopt::encode_index_buffer(&indices, vertices)
        .and_then(|e| meshopt::decode_index_buffer::<u32>(&e, indices.len()))
    else {
        return bytes.to_vec();
    };
    if width == 2 {
        decoded
            .iter()
            .flat_map(|&i| (i as u16).to_le_bytes())
            .collect()
    } else {
        decoded.iter().flat_map(|i| i.to_le_bytes()).collect()
    }
}

/// Little-endian indices of `width` bytes (2, else 4).
fn indices_of(bytes: &[u8], width: usize) -> Vec<u32> {
    if width == 2 {
        bytes
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
            .collect()
    } else {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
}

/// `bytes` (`count × stride`, an [`Encoding`] that is [`Encoding::allowed`]) compressed by
/// meshoptimizer: the index codec for triangles, else the vertex codec at version 0, the one
/// EXT_meshopt_compression decoders read; `None` for bytes or an encoding that do not fit
/// (the view then stays uncompressed).
pub(crate) fn encode(bytes: &[u8], e: Encoding) -> Option<Vec<u8>> {
    if !e.allowed() || Some(bytes.len()) != e.count.checked_mul(e.stride) {
        return None;
    }
    if e.triangles {
        let indices = indices_of(bytes, e.stride);
        let vertices = indices.iter().max().map_or(0, |&m| m as usize + 1);
        // The crate's encoder cannot fail: it sizes its output by the bound. Triangles the
        // codec would turn (not yet `codec_turned`) stay uncompressed: the file's bytes must be
        // what a reader decodes.
        let encoded = meshopt::encode_index_buffer(&indices, vertices).ok()?;
        let decoded = meshopt::decode_index_buffer::<u32>(&encoded, indices.len()).ok()?;
        return (decoded == indices).then_some(encoded);
    }
    // SAFETY: a pure function of its two sizes.
    let bound = unsafe { meshopt::ffi::meshopt_encodeVertexBufferBound(e.count, e.stride) };
    let mut out = vec![0u8; bound];
    // SAFETY: `out` holds the bound for `count` elements of `stride` bytes, which `bytes` holds
    // (checked above); the stride is a multiple of 4 up to 256, as the encoder asserts.
    let size = unsafe {
        meshopt::ffi::meshopt_encodeVertexBufferLevel(
            out.as_mut_ptr(),
            out.len(),
            bytes.as_ptr().cast(),
            e.count,
            e.stride,
            2,
            0,
        )
    };
    out.truncate(size);
    Some(out)
}
