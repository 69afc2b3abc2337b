//! Interleaved vertex streams: position, UV and the qtangent in one of the Foundation formats.
//! CPU only; [`crate::gpu::vertex_layout`] describes the same bytes to wgpu.
//!
//! | bytes | attribute | wgpu format |
//! |---|---|---|
//! | 0–11 | position | `Float32x3` |
//! | 12–19 | UV (glTF convention) | `Float32x2` |
//! | 20– | qtangent | `Float32x4`, `Float16x4`, `Snorm16x4`, or `Uint32x2` / `Uint32` for the packed formats |
//!
//! WebGPU vertex strides and attribute offsets are multiples of 4, so the 6-byte formats take 8
//! bytes in an interleaved stream (2 bytes of zero padding). Their 6 bytes pay off in a packed
//! storage stream ([`Format::pack`]), not here.

use crate::frame::QTangent;
use crate::Format;

use super::Prepared;

/// Offset of the position (`Float32x3`).
#[cfg(feature = "gpu")]
pub(crate) const POSITION_OFFSET: usize = 0;
/// Offset of the UV (`Float32x2`).
#[cfg(feature = "gpu")]
pub(crate) const UV_OFFSET: usize = 12;
/// Offset of the qtangent.
pub(crate) const QTANGENT_OFFSET: usize = 20;

/// Bytes the qtangent takes in an interleaved vertex: [`Format::bytes`] rounded up to 4.
#[must_use]
pub(crate) fn attribute_bytes(format: Format) -> usize {
    format.bytes().next_multiple_of(4)
}

/// Bytes per interleaved vertex.
#[must_use]
pub(crate) fn stride(format: Format) -> usize {
    QTANGENT_OFFSET + attribute_bytes(format)
}

/// An interleaved vertex buffer and its triangle list.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexStream {
    /// The qtangent format.
    pub format: Format,
    /// Bytes per vertex (`stride`).
    pub stride: usize,
    /// Number of vertices.
    pub vertex_count: usize,
    /// `vertex_count * stride` bytes, little-endian: the vertex buffer.
    pub bytes: Vec<u8>,
    /// Triangle list: the index buffer.
    pub indices: Vec<u32>,
}

impl Prepared {
    /// Encodes every vertex into an interleaved stream (see the module docs for the layout).
    #[must_use]
    pub fn vertex_stream(&self, format: Format) -> VertexStream {
        let stride = stride(format);
        let mut bytes = Vec::with_capacity(self.frames.len() * stride);
        for ((p, uv), f) in self.positions.iter().zip(&self.uvs).zip(&self.frames) {
            let start = bytes.len();
            bytes.extend_from_slice(bytemuck::bytes_of(&p.to_array()));
            bytes.extend_from_slice(bytemuck::bytes_of(&uv.to_array()));
            format.encode_into(&f.to_qtangent(), &mut bytes);
            bytes.resize(start + stride, 0);
        }
        VertexStream {
            format,
            stride,
            vertex_count: self.frames.len(),
            bytes,
            indices: self.indices.clone(),
        }
    }
}

impl VertexStream {
    /// The qtangent of vertex `i`, decoded on the CPU.
    ///
    /// # Panics
    /// If `i >= vertex_count`.
    #[must_use]
    pub(crate) fn qtangent(&self, i: usize) -> QTangent {
        let start = i * self.stride + QTANGENT_OFFSET;
        self.format
            .decode(&self.bytes[start..start + self.format.bytes()])
    }
}

impl VertexStream {
    /// Decodes every vertex's qtangent from the stream and measures it against `frames` (the
    /// frames it was encoded from, [`Prepared::frames`]).
    ///
    /// # Panics
    /// If `frames.len() != vertex_count`.
    #[must_use]
    pub fn errors_against(&self, frames: &[crate::TangentFrame]) -> crate::measure::FrameErrors {
        assert_eq!(frames.len(), self.vertex_count, "one frame per vertex");
        let mut errors = crate::measure::FrameErrors::default();
        for (i, f) in frames.iter().enumerate() {
            errors.add(f, &self.qtangent(i).to_frame());
        }
        errors
    }
}
