//! The `QTANGENT_frames` glTF extension: how a packed file names its qtangent format and its
//! quaternion maps (docs/GLTF.md has the JSON schema and the decoding rules). Shared by the
//! writer ([`crate::pack`]) and the loader, which reads packed files back.

use crate::Format;

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
    pub const SHORT: u32 = crate::format::GLTF_SHORT;
    /// `UNSIGNED_SHORT`.
    pub const UNSIGNED_SHORT: u32 = 5123;
    /// `UNSIGNED_INT`.
    pub const UNSIGNED_INT: u32 = 5125;
    /// `FLOAT`.
    pub const FLOAT: u32 = crate::format::GLTF_FLOAT;
}

/// How a format's bytes sit in a glTF accessor (the format table's row: see
/// [`Format`]'s docs for why every format but `f32x4` is `SHORT`).
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
    let g = format.info().gltf;
    Layout {
        component_type: g.component_type,
        kind: ["SCALAR", "VEC2", "VEC3", "VEC4"][g.components - 1],
        normalized: g.normalized,
        stride: format.bytes().next_multiple_of(4),
    }
}
