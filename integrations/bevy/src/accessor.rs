//! Reading glTF accessors as `pack` writes them, which Bevy's loader does not: quantised
//! attributes (KHR_mesh_quantization: integer positions, normalised integer UVs and weights),
//! `_QTANGENT` in every format, and buffer views compressed with EXT_meshopt_compression
//! (decoded by meshoptimizer itself).

use std::collections::HashMap;

use gltf::Accessor;
use gltf::accessor::{DataType, Dimensions};

/// Buffer views decoded from EXT_meshopt_compression, by view index, for one load.
#[derive(Default, Clone)]
pub(crate) struct Views {
    decoded: HashMap<usize, Vec<u8>>,
}

impl Views {
    /// The bytes of buffer view `view` (decoded when compressed).
    fn bytes<'a>(
        &'a mut self,
        view: &gltf::buffer::View,
        buffers: &'a [Vec<u8>],
    ) -> Result<&'a [u8], String> {
        if let Some(ext) = view
            .extension_value("EXT_meshopt_compression")
            .or_else(|| view.extension_value("KHR_meshopt_compression"))
        {
            let bytes = match self.decoded.entry(view.index()) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(
                    meshopt_view(ext, buffers)
                        .map_err(|err| format!("buffer view {}: {err}", view.index()))?,
                ),
            };
            return Ok(bytes);
        }
        let buffer = buffers.get(view.buffer().index()).ok_or_else(|| {
            format!(
                "buffer view {}: no buffer {}",
                view.index(),
                view.buffer().index()
            )
        })?;
        buffer
            .get(view.offset()..view.offset() + view.length())
            .ok_or_else(|| {
                format!(
                    "buffer view {} ({} bytes at {}) is past the end of buffer {} ({} bytes)",
                    view.index(),
                    view.length(),
                    view.offset(),
                    view.buffer().index(),
                    buffer.len()
                )
            })
    }

    /// Each element's bytes (`accessor.size()` of them), tightly packed.
    pub(crate) fn elements(
        &mut self,
        accessor: &Accessor,
        buffers: &[Vec<u8>],
    ) -> Result<Vec<u8>, String> {
        let what = || format!("accessor {}", accessor.index());
        if accessor.sparse().is_some() {
            return Err(format!("{}: sparse accessors are not read", what()));
        }
        let Some(view) = accessor.view() else {
            return Err(format!("{}: no buffer view", what()));
        };
        let size = accessor.size();
        let stride = view.stride().unwrap_or(size);
        let count = accessor.count();
        let bytes = self.bytes(&view, buffers)?;
        let start = accessor.offset();
        let end = count
            .checked_sub(1)
            .map(|last| {
                last.checked_mul(stride)
                    .and_then(|b| b.checked_add(start))
                    .and_then(|b| b.checked_add(size))
            })
            .unwrap_or(Some(start));
        if end.is_none_or(|e| e > bytes.len()) {
            return Err(format!(
                "{}: {count} elements of {size} bytes every {stride} from {start} overrun its view of {} bytes",
                what(),
                bytes.len()
            ));
        }
        let mut out = Vec::with_capacity(count * size);
        for i in 0..count {
            let at = start + i * stride;
            out.extend_from_slice(&bytes[at..at + size]);
        }
        Ok(out)
    }

    /// The accessor's components as f32, as glTF defines them (normalised integers divided by
    /// their maximum, signed ones clamped at −1; other integers as they are).
    pub(crate) fn floats(
        &mut self,
        accessor: &Accessor,
        buffers: &[Vec<u8>],
    ) -> Result<Vec<f32>, String> {
        let bytes = self.elements(accessor, buffers)?;
        let normalized = accessor.normalized();
        let size = accessor.data_type().size();
        Ok(bytes
            .chunks_exact(size)
            .map(|c| match accessor.data_type() {
                DataType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                DataType::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f32,
                DataType::I8 if normalized => (f32::from(c[0] as i8) / 127.0).max(-1.0),
                DataType::I8 => f32::from(c[0] as i8),
                DataType::U8 if normalized => f32::from(c[0]) / 255.0,
                DataType::U8 => f32::from(c[0]),
                DataType::I16 => {
                    let v = f32::from(i16::from_le_bytes([c[0], c[1]]));
                    if normalized {
                        (v / 32767.0).max(-1.0)
                    } else {
                        v
                    }
                }
                DataType::U16 => {
                    let v = f32::from(u16::from_le_bytes([c[0], c[1]]));
                    if normalized { v / 65535.0 } else { v }
                }
            })
            .collect())
    }

    /// The accessor's elements as `N` floats each; an error for another element size.
    pub(crate) fn vectors<const N: usize>(
        &mut self,
        accessor: &Accessor,
        buffers: &[Vec<u8>],
    ) -> Result<Vec<[f32; N]>, String> {
        let n = accessor.dimensions().multiplicity();
        if n != N {
            return Err(format!(
                "accessor {} has {n} components an element; {N} are read",
                accessor.index()
            ));
        }
        let floats = self.floats(accessor, buffers)?;
        Ok(floats
            .chunks_exact(N)
            .map(|c| std::array::from_fn(|i| c[i]))
            .collect())
    }
}

/// An index or joint accessor's components (its elements' `bytes`) as u32: unsigned integers
/// only.
pub(crate) fn integers(accessor: &Accessor, bytes: &[u8]) -> Result<Vec<u32>, String> {
    let ty = accessor.data_type();
    if !matches!(ty, DataType::U8 | DataType::U16 | DataType::U32) || accessor.normalized() {
        return Err(format!(
            "accessor {} holds {ty:?} components; unsigned integers are read",
            accessor.index()
        ));
    }
    Ok(bytes
        .chunks_exact(ty.size())
        .map(|b| match ty {
            DataType::U8 => u32::from(b[0]),
            DataType::U16 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        })
        .collect())
}

/// The accessor's layout as the glTF JSON writes it: (componentType, components, normalized).
pub(crate) fn layout(accessor: &Accessor) -> (u32, usize, bool) {
    let component = match accessor.data_type() {
        DataType::I8 => 5120,
        DataType::U8 => 5121,
        DataType::I16 => 5122,
        DataType::U16 => 5123,
        DataType::U32 => 5125,
        DataType::F32 => 5126,
    };
    let n = match accessor.dimensions() {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 => 4,
        Dimensions::Mat2 => 4,
        Dimensions::Mat3 => 9,
        Dimensions::Mat4 => 16,
    };
    (component, n, accessor.normalized())
}

/// Decodes one EXT_meshopt_compression buffer view (its extension object `ext`): the vertex
/// codec (`ATTRIBUTES`) and the index codecs (`TRIANGLES`, `INDICES`), without a filter (what
/// `pack --compress meshopt` writes).
fn meshopt_view(ext: &serde_json::Value, buffers: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    let field = |k: &str| {
        ext.get(k)
            .and_then(serde_json::Value::as_u64)
            .map(|v| v as usize)
    };
    let (Some(buffer), Some(length), Some(stride), Some(count)) = (
        field("buffer"),
        field("byteLength"),
        field("byteStride"),
        field("count"),
    ) else {
        return Err("EXT_meshopt_compression lacks buffer, byteLength, byteStride or count".into());
    };
    let offset = field("byteOffset").unwrap_or(0);
    let mode = ext.get("mode").and_then(|m| m.as_str()).unwrap_or("");
    let filter = ext.get("filter").and_then(|m| m.as_str()).unwrap_or("NONE");
    if filter != "NONE" {
        return Err(format!(
            "meshopt filter {filter} is not read (pack writes none)"
        ));
    }
    let source = buffers
        .get(buffer)
        .and_then(|b| b.get(offset..offset.checked_add(length)?))
        .ok_or_else(|| format!("compressed bytes {offset}+{length} are outside buffer {buffer}"))?;
    let size_ok = match mode {
        "ATTRIBUTES" => stride % 4 == 0 && (4..=256).contains(&stride),
        "TRIANGLES" => (stride == 2 || stride == 4) && count % 3 == 0,
        "INDICES" => stride == 2 || stride == 4,
        m => {
            return Err(format!(
                "meshopt mode '{m}' is not ATTRIBUTES, TRIANGLES or INDICES"
            ));
        }
    };
    if !size_ok {
        return Err(format!(
            "meshopt mode {mode} with byteStride {stride} and count {count}"
        ));
    }
    // The decoded view is count × byteStride bytes, its byteLength (checked: a count from the
    // file must not size the output on its own).
    let view_length = count
        .checked_mul(stride)
        .ok_or("count × byteStride overflows")?;
    if view_length > (1 << 30) {
        return Err(format!(
            "a decoded view of {view_length} bytes is refused (over 1 GiB)"
        ));
    }
    let mut out = vec![0u8; view_length];
    // SAFETY: `out` holds count × stride bytes, as each decoder writes; the source slice is
    // valid for its length. meshoptimizer's decoders never read past `source` (they are made
    // for untrusted input) and assert only the size arguments checked above.
    let rc = unsafe {
        let dst = out.as_mut_ptr().cast();
        match mode {
            "ATTRIBUTES" => meshopt::ffi::meshopt_decodeVertexBuffer(
                dst,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
            "TRIANGLES" => meshopt::ffi::meshopt_decodeIndexBuffer(
                dst,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
            _ => meshopt::ffi::meshopt_decodeIndexSequence(
                dst,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
        }
    };
    if rc != 0 {
        return Err(format!("meshoptimizer could not decode the view ({rc})"));
    }
    Ok(out)
}
