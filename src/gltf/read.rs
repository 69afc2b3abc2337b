//! The one glTF reader of buffers and accessors, for the loader, `pack` and `compare`.
//!
//! [`read_buffers`] loads every buffer (the GLB chunk, `data:` URIs, files beside the document).
//! [`describe`] reads an accessor's JSON; [`Reader::accessor`] also checks that every byte it
//! reads — its elements, with the view's stride, and its sparse indices and values — lies inside
//! its buffer view and buffer, so the reads after it cannot fail on a range. [`Reader::bytes`]
//! gives the elements tightly packed, [`Reader::floats`] and [`Reader::unsigned`] as numbers:
//!
//! - integers `normalized` follow glTF 2.0 §3.11: byte `max(c / 127, −1)`, unsigned byte
//!   `c / 255`, short `max(c / 32767, −1)`, unsigned short `c / 65535`; integers that are not
//!   normalised are read as their value (KHR_mesh_quantization: the dequantisation lives in a
//!   node transform or a KHR_texture_transform);
//! - a sparse accessor's values replace its base elements at its indices;
//! - an accessor with no buffer view is zeros (glTF 2.0 §3.6.2.4), before any sparse values.
//!
//! Every byte of a buffer view comes through [`Reader::view`]: a view compressed with
//! EXT_meshopt_compression or KHR_meshopt_compression comes back decoded
//! ([`super::meshopt`]); its fallback buffer is read as empty. A decoder of compressed
//! primitives (KHR_draco_mesh_compression) would supply an accessor's elements where
//! [`Reader::bytes`] reads them.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

use super::names::{AccessorLayout, AccessorType, ComponentType};
use super::uri::{decode_data_uri, resolve, Resolved};
use super::{AccessorError, ReadError};

/// Most elements one accessor may hold: 2²⁷, about 1.5 GB of f32 triples. An accessor with no
/// buffer view can claim any count; this keeps what it makes a reader allocate bounded.
pub(crate) const MAX_ELEMENTS: usize = 1 << 27;

/// A JSON number as an index or size.
pub(crate) fn as_usize(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// Reads every buffer of the document `json`: the GLB binary chunk `bin` for a buffer with no
/// URI, `data:` URIs, and files, resolved against `base` (`None`: the document came from
/// memory, and external files are refused). A file must be a regular file (a device such as
/// `/dev/zero` would be read forever). Each buffer must hold its `byteLength`.
///
/// # Errors
/// The first buffer that cannot be read, named.
pub(crate) fn read_buffers(
    json: &Value,
    bin: Option<&[u8]>,
    base: Option<&Path>,
) -> Result<Vec<Vec<u8>>, ReadError> {
    let mut bin = bin;
    let mut buffers = Vec::new();
    for (buffer, b) in json["buffers"].as_array().into_iter().flatten().enumerate() {
        let data = match b.get("uri").and_then(Value::as_str) {
            // A meshopt fallback: its views are decoded from another buffer.
            None if super::meshopt::is_fallback(json, buffer) => {
                buffers.push(Vec::new());
                continue;
            }
            // Only the first buffer is the GLB's binary chunk.
            None if buffer == 0 => bin.take().ok_or(ReadError::NoBinChunk { buffer })?.to_vec(),
            None => return Err(ReadError::NoBinChunk { buffer }),
            Some(uri) => read_uri(buffer, uri, base)?,
        };
        let expected = as_usize(&b["byteLength"]).unwrap_or(0);
        if data.len() < expected {
            return Err(ReadError::ShortBuffer {
                buffer,
                expected,
                actual: data.len(),
            });
        }
        buffers.push(data);
    }
    Ok(buffers)
}

/// Buffer `buffer`'s bytes from its URI.
fn read_uri(buffer: usize, uri: &str, base: Option<&Path>) -> Result<Vec<u8>, ReadError> {
    let bad = |problem| ReadError::BufferUri {
        buffer,
        problem: Box::new(problem),
    };
    if uri.starts_with("data:") {
        return decode_data_uri(uri).map_err(bad);
    }
    let Some(base) = base else {
        return Err(ReadError::ExternalFromMemory {
            buffer,
            uri: uri.into(),
        });
    };
    let Resolved::File(path) = resolve(uri, base).map_err(bad)? else {
        return decode_data_uri(uri).map_err(bad);
    };
    if !path.is_file() {
        return Err(ReadError::MissingFile {
            buffer,
            uri: uri.into(),
            path,
        });
    }
    std::fs::read(&path).map_err(|error| ReadError::Io { buffer, error })
}

/// Where data starts: a buffer view and a byte offset into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    /// The buffer view.
    pub(crate) view: usize,
    /// `byteOffset` into it.
    pub(crate) offset: usize,
}

/// An accessor's sparse part (glTF 2.0 §3.6.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sparse {
    /// Elements replaced.
    pub(crate) count: usize,
    /// The indices of the elements replaced, tightly packed.
    pub(crate) indices: Placed,
    /// The indices' type (unsigned byte, short or int).
    pub(crate) index_type: ComponentType,
    /// The values, tightly packed.
    pub(crate) values: Placed,
}

/// An accessor as its JSON describes it ([`describe`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Accessor {
    /// Its index in the file.
    pub(crate) index: usize,
    /// How its elements are stored.
    pub(crate) layout: AccessorLayout,
    /// Elements.
    pub(crate) count: usize,
    /// Its elements' place; `None`: zeros.
    pub(crate) place: Option<Placed>,
    /// Its sparse part.
    pub(crate) sparse: Option<Sparse>,
}

/// Accessor `a` of the document `json`, from its JSON alone (no buffer is read): its layout,
/// count and where its data lies.
///
/// # Errors
/// No such accessor, or a field missing or not what glTF allows.
pub(crate) fn describe(json: &Value, a: usize) -> Result<Accessor, AccessorError> {
    let accessors = json["accessors"].as_array().map_or(&[][..], Vec::as_slice);
    let acc = accessors.get(a).ok_or(AccessorError::NoAccessor {
        count: accessors.len(),
    })?;
    let component = field(acc, "componentType", |v| {
        v.as_u64().and_then(ComponentType::from_code)
    })?;
    let kind = field(acc, "type", |v| v.as_str()?.parse::<AccessorType>().ok())?;
    let count = field(acc, "count", as_usize)?;
    let place = |v: &Value, what| -> Result<Option<Placed>, AccessorError> {
        match v.get("bufferView") {
            None => Ok(None),
            Some(view) => Ok(Some(Placed {
                view: as_usize(view).ok_or_else(|| bad_field(what, view))?,
                offset: optional(v, "byteOffset")?,
            })),
        }
    };
    let sparse = match acc.get("sparse") {
        None => None,
        Some(s) => {
            let missing = || AccessorError::Field {
                field: "sparse bufferView",
                found: "missing".into(),
            };
            Some(Sparse {
                count: field(s, "count", as_usize)?,
                indices: place(&s["indices"], "sparse indices bufferView")?.ok_or_else(missing)?,
                index_type: field(&s["indices"], "componentType", |v| {
                    v.as_u64().and_then(ComponentType::from_code)
                })?,
                values: place(&s["values"], "sparse values bufferView")?.ok_or_else(missing)?,
            })
        }
    };
    Ok(Accessor {
        index: a,
        layout: AccessorLayout {
            component,
            kind,
            normalized: acc.get("normalized").and_then(Value::as_bool) == Some(true),
        },
        count,
        place: place(acc, "bufferView")?,
        sparse,
    })
}

/// A required field, parsed.
fn field<T>(
    v: &Value,
    name: &'static str,
    parse: impl Fn(&Value) -> Option<T>,
) -> Result<T, AccessorError> {
    match v.get(name) {
        None => Err(AccessorError::Field {
            field: name,
            found: "missing".into(),
        }),
        Some(x) => parse(x).ok_or_else(|| bad_field(name, x)),
    }
}

/// An optional byte offset or size (0 when absent).
fn optional(v: &Value, name: &'static str) -> Result<usize, AccessorError> {
    v.get(name)
        .map_or(Ok(0), |x| as_usize(x).ok_or_else(|| bad_field(name, x)))
}

fn bad_field(field: &'static str, found: &Value) -> AccessorError {
    AccessorError::Field {
        field,
        found: found.to_string(),
    }
}

/// A buffer view's bytes ([`Reader::view`]).
#[derive(Debug, Clone)]
pub(crate) struct View<'a> {
    /// Its `byteLength` bytes.
    pub(crate) bytes: Cow<'a, [u8]>,
    /// Its `byteStride`, if it has one.
    pub(crate) stride: Option<usize>,
}

/// Reads accessors and buffer views of one document from its buffers ([`read_buffers`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reader<'a> {
    json: &'a Value,
    buffers: &'a [Vec<u8>],
}

impl<'a> Reader<'a> {
    /// A reader of `json`'s accessors over `buffers`.
    pub(crate) fn new(json: &'a Value, buffers: &'a [Vec<u8>]) -> Self {
        Self { json, buffers }
    }

    /// The bytes of buffer view `v` and its stride: every byte of a view is read here (see the
    /// module docs).
    ///
    /// # Errors
    /// No such view or buffer, or a view that runs past its buffer.
    pub(crate) fn view(&self, v: usize) -> Result<View<'a>, AccessorError> {
        let views = self.json["bufferViews"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let view = views.get(v).ok_or(AccessorError::NoView {
            view: v,
            count: views.len(),
        })?;
        let length = field(view, "byteLength", as_usize)?;
        let stride = view.get("byteStride").and_then(as_usize);
        if super::meshopt::extension(view).is_some() {
            let bytes = super::meshopt::decode(v, view, length, self.buffers)?;
            return Ok(View {
                bytes: Cow::Owned(bytes),
                stride,
            });
        }
        let buffer = field(view, "buffer", as_usize)?;
        let offset = optional(view, "byteOffset")?;
        let data = self
            .buffers
            .get(buffer)
            .ok_or(AccessorError::NoBuffer { view: v, buffer })?;
        let end = offset.checked_add(length).ok_or(AccessorError::Overflow)?;
        let bytes = data.get(offset..end).ok_or(AccessorError::PastBuffer {
            view: v,
            end,
            buffer,
            have: data.len(),
        })?;
        Ok(View {
            bytes: Cow::Borrowed(bytes),
            stride,
        })
    }

    /// Accessor `a`, described ([`describe`]) and checked: at least one element, at most
    /// [`MAX_ELEMENTS`], and every byte it reads inside its view and buffer.
    ///
    /// # Errors
    /// What [`describe`] refuses, and the first range that does not fit.
    pub(crate) fn accessor(&self, a: usize) -> Result<Accessor, AccessorError> {
        let acc = describe(self.json, a)?;
        if acc.count == 0 {
            return Err(AccessorError::ZeroCount);
        }
        if acc.count > MAX_ELEMENTS {
            return Err(AccessorError::TooLarge {
                count: acc.count,
                max: MAX_ELEMENTS,
            });
        }
        let element = acc.layout.element_bytes();
        if let Some(place) = acc.place {
            self.check_range(place, acc.count, element, Stride::View)?;
        }
        if let Some(s) = acc.sparse {
            if s.count == 0 {
                return Err(AccessorError::ZeroSparseCount);
            }
            if !is_unsigned(s.index_type) {
                return Err(AccessorError::SparseIndexType(s.index_type));
            }
            self.check_range(s.indices, s.count, s.index_type.bytes(), Stride::Tight)
                .map_err(|e| AccessorError::SparseIndices(Box::new(e)))?;
            self.check_range(s.values, s.count, element, Stride::Tight)
                .map_err(|e| AccessorError::SparseValues(Box::new(e)))?;
        }
        Ok(acc)
    }

    /// `count` elements of `element` bytes from `place` must fit its view.
    fn check_range(
        &self,
        place: Placed,
        count: usize,
        element: usize,
        stride: Stride,
    ) -> Result<(), AccessorError> {
        let view = self.view(place.view)?;
        let stride = match stride {
            Stride::View => view.stride.unwrap_or(element),
            Stride::Tight => element,
        };
        if stride < element {
            return Err(AccessorError::Stride {
                view: place.view,
                stride,
                element,
            });
        }
        let end = stride
            .checked_mul(count.saturating_sub(1))
            .and_then(|x| x.checked_add(element))
            .and_then(|x| x.checked_add(place.offset))
            .ok_or(AccessorError::Overflow)?;
        if end > view.bytes.len() {
            return Err(AccessorError::PastView {
                count,
                offset: place.offset,
                end,
                view: place.view,
                length: view.bytes.len(),
            });
        }
        Ok(())
    }

    /// `acc`'s elements tightly packed, `acc.layout.element_bytes()` each: its view's elements
    /// (or zeros), the sparse values put in.
    ///
    /// # Errors
    /// A range that does not fit (none after [`Reader::accessor`]), a sparse index past the end.
    pub(crate) fn bytes(&self, acc: &Accessor) -> Result<Vec<u8>, AccessorError> {
        let element = acc.layout.element_bytes();
        if acc.count > MAX_ELEMENTS {
            return Err(AccessorError::TooLarge {
                count: acc.count,
                max: MAX_ELEMENTS,
            });
        }
        let mut out = vec![0u8; acc.count * element];
        if let Some(place) = acc.place {
            let view = self.view(place.view)?;
            let stride = view.stride.unwrap_or(element);
            let tight = view
                .bytes
                .get(place.offset..)
                .and_then(|b| b.get(..out.len()))
                .filter(|_| stride == element);
            if let Some(src) = tight {
                // Tightly packed: one copy.
                out.copy_from_slice(src);
            } else {
                for (i, dst) in out.chunks_exact_mut(element).enumerate() {
                    let src = nth(&view.bytes, place.offset, i, stride, element)
                        .ok_or(AccessorError::Overflow)?;
                    dst.copy_from_slice(src);
                }
            }
        }
        if let Some(s) = acc.sparse {
            let indices = self.view(s.indices.view)?;
            let values = self.view(s.values.view)?;
            let width = s.index_type.bytes();
            for k in 0..s.count {
                let index = nth(&indices.bytes, s.indices.offset, k, width, width)
                    .ok_or(AccessorError::Overflow)?;
                let index = unsigned_le(index) as usize;
                let src = nth(&values.bytes, s.values.offset, k, element, element)
                    .ok_or(AccessorError::Overflow)?;
                nth_mut(&mut out, index, element)
                    .ok_or(AccessorError::SparseIndex {
                        index,
                        count: acc.count,
                    })?
                    .copy_from_slice(src);
            }
        }
        Ok(out)
    }

    /// `acc`'s elements as `N` floats each (see the module docs for integers). `N` must be the
    /// layout's component count (16 for `MAT4`).
    ///
    /// # Errors
    /// Another component count, or what [`Reader::bytes`] refuses.
    pub(crate) fn floats<const N: usize>(
        &self,
        acc: &Accessor,
    ) -> Result<Vec<[f32; N]>, AccessorError> {
        self.elements(acc, "floats", |c, bytes| {
            let normalized = acc.layout.normalized;
            component_f32(c, bytes, normalized)
        })
    }

    /// `acc`'s elements as `N` unsigned integers each (indices, joints): an unsigned byte,
    /// short or int layout of `N` components, not normalised.
    ///
    /// # Errors
    /// Another layout, or what [`Reader::bytes`] refuses.
    pub(crate) fn unsigned<const N: usize>(
        &self,
        acc: &Accessor,
    ) -> Result<Vec<[u32; N]>, AccessorError> {
        if !is_unsigned(acc.layout.component) || acc.layout.normalized {
            return Err(AccessorError::Unreadable {
                found: acc.layout,
                want: "unsigned integers",
            });
        }
        self.elements(acc, "unsigned integers", |_, bytes| unsigned_le(bytes))
    }

    /// `acc`'s elements, each component converted by `convert` from its bytes.
    fn elements<T: Copy + Default, const N: usize>(
        &self,
        acc: &Accessor,
        want: &'static str,
        convert: impl Fn(ComponentType, &[u8]) -> T,
    ) -> Result<Vec<[T; N]>, AccessorError> {
        if acc.layout.kind.components() != N {
            return Err(AccessorError::Unreadable {
                found: acc.layout,
                want,
            });
        }
        let bytes = self.bytes(acc)?;
        let component = acc.layout.component;
        let offsets = acc.layout.component_offsets();
        let size = component.bytes();
        Ok(bytes
            .chunks_exact(acc.layout.element_bytes())
            .map(|e| {
                let mut out = [T::default(); N];
                for (o, &at) in out.iter_mut().zip(&offsets) {
                    *o = convert(component, &e[at..at + size]);
                }
                out
            })
            .collect())
    }
}

/// Whether a range's elements follow the view's `byteStride` or lie tightly packed (sparse
/// indices and values).
#[derive(Clone, Copy)]
enum Stride {
    View,
    Tight,
}

fn is_unsigned(c: ComponentType) -> bool {
    matches!(
        c,
        ComponentType::UnsignedByte | ComponentType::UnsignedShort | ComponentType::UnsignedInt
    )
}

/// Element `i` (`len` bytes, `stride` apart from `offset`) of `bytes`, if it is there.
fn nth(bytes: &[u8], offset: usize, i: usize, stride: usize, len: usize) -> Option<&[u8]> {
    let start = i.checked_mul(stride)?.checked_add(offset)?;
    bytes.get(start..start.checked_add(len)?)
}

/// Element `i` of tightly packed `len`-byte elements, if it is there.
fn nth_mut(bytes: &mut [u8], i: usize, len: usize) -> Option<&mut [u8]> {
    let start = i.checked_mul(len)?;
    bytes.get_mut(start..start.checked_add(len)?)
}

/// A little-endian unsigned integer of 1 to 4 bytes.
fn unsigned_le(bytes: &[u8]) -> u32 {
    bytes.iter().rev().fold(0, |n, &b| (n << 8) | u32::from(b))
}

/// One little-endian component as `f32`: floats as they are, integers normalised by glTF 2.0
/// §3.11 when `normalized` (the most negative signed value clamps to −1), else their value.
fn component_f32(component: ComponentType, b: &[u8], normalized: bool) -> f32 {
    let scale = |value: f32, max: f32| {
        if normalized {
            (value / max).max(-1.0)
        } else {
            value
        }
    };
    match component {
        ComponentType::Float => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        ComponentType::Byte => scale(f32::from(b[0] as i8), 127.0),
        ComponentType::UnsignedByte => scale(f32::from(b[0]), 255.0),
        ComponentType::Short => scale(f32::from(i16::from_le_bytes([b[0], b[1]])), 32767.0),
        ComponentType::UnsignedShort => scale(f32::from(u16::from_le_bytes([b[0], b[1]])), 65535.0),
        // Not a normalised type in glTF; read as its value.
        ComponentType::UnsignedInt => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
    }
}

#[cfg(test)]
#[path = "../../tests/unit/gltf/read.rs"]
mod tests;
