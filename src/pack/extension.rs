//! The `QTANGENT_frames` glTF extension: how a packed file names its qtangent format and its
//! quaternion maps (docs/GLTF.md has the JSON schema and the decoding rules). Shared by the
//! writer ([`crate::pack`]) and the loader, which reads packed files back.

use crate::encoding::Format;

/// The extension's name, in `extensionsUsed` and in the `extensions` objects of primitives,
/// materials and textures.
pub const NAME: &str = "QTANGENT_frames";

/// The application-specific vertex attribute holding one qtangent per vertex.
pub const ATTRIBUTE: &str = "_QTANGENT";

/// glTF accessor component types (glTF 2.0 §3.6.2.2).
pub mod component {
    /// `BYTE`.
    pub const BYTE: u32 = 5120;
    /// `UNSIGNED_BYTE`.
    pub const UNSIGNED_BYTE: u32 = 5121;
    /// `SHORT`.
    pub const SHORT: u32 = 5122;
    /// `UNSIGNED_SHORT`.
    pub const UNSIGNED_SHORT: u32 = 5123;
    /// `UNSIGNED_INT`.
    pub const UNSIGNED_INT: u32 = 5125;
    /// `FLOAT`.
    pub const FLOAT: u32 = 5126;
}

/// How a format's bytes sit in a glTF accessor. glTF has no half floats and no signed 32-bit
/// integers, and application-specific attributes may not use unsigned component types, so
/// every format but `f32x4` is stored as `SHORT` components: its exact bytes (the encoder's
/// little-endian output, [`Format::encode_into`]), read back as bit patterns. `snorm16x4`
/// alone is also a meaningful normalised accessor (the quaternion itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The accessor's `componentType`.
    pub component_type: u32,
    /// The accessor's `type`: `VEC2`, `VEC3` or `VEC4`.
    pub kind: &'static str,
    /// The accessor's `normalized`.
    pub normalized: bool,
    /// Bytes between elements: the format's bytes rounded up to 4 (glTF aligns every vertex
    /// attribute element to 4 bytes).
    pub stride: usize,
}

/// The accessor layout of `format`'s `_QTANGENT`.
#[must_use]
pub fn layout(format: Format) -> Layout {
    let (component_type, kind, normalized) = match format {
        Format::F32x4 => (component::FLOAT, "VEC4", false),
        Format::Snorm16x4 => (component::SHORT, "VEC4", true),
        Format::F16x4 => (component::SHORT, "VEC4", false),
        Format::F16x3 | Format::Smallest3x6 => (component::SHORT, "VEC3", false),
        Format::Smallest3x4 => (component::SHORT, "VEC2", false),
    };
    Layout {
        component_type,
        kind,
        normalized,
        stride: format.bytes().next_multiple_of(4),
    }
}
