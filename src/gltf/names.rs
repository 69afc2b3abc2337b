//! Names and codes the glTF reader ([`super::read`]) and writer ([`super::write`]) share: accessor
//! component types and types (glTF 2.0 §3.6.2), buffer-view targets, the extension names the
//! loader and `pack` use, and qtangent's own `QTANGENT_frames` extension (docs/GLTF.md).

use crate::Format;

/// qtangent's extension, in `extensionsUsed` and in the `extensions` objects of primitives,
/// materials and textures of a packed file (docs/GLTF.md has its schema).
pub(crate) const QTANGENT_FRAMES: &str = "QTANGENT_frames";
/// The application-specific vertex attribute holding one qtangent per vertex.
pub(crate) const QTANGENT_ATTRIBUTE: &str = "_QTANGENT";

// The Khronos and vendor extensions the loader reads, refuses or drops, and `pack` writes
// through: quantised attributes; texture transforms, anisotropy and the KTX2, WebP and DDS
// image sources; the two mesh compressions (Draco primitives, meshopt buffer views, in its EXT
// and KHR editions); per-instance node attributes.
pub(crate) const KHR_MESH_QUANTIZATION: &str = "KHR_mesh_quantization";
pub(crate) const KHR_TEXTURE_TRANSFORM: &str = "KHR_texture_transform";
pub(crate) const KHR_MATERIALS_ANISOTROPY: &str = "KHR_materials_anisotropy";
pub(crate) const KHR_TEXTURE_BASISU: &str = "KHR_texture_basisu";
pub(crate) const EXT_TEXTURE_WEBP: &str = "EXT_texture_webp";
pub(crate) const MSFT_TEXTURE_DDS: &str = "MSFT_texture_dds";
pub(crate) const KHR_DRACO_MESH_COMPRESSION: &str = "KHR_draco_mesh_compression";
pub(crate) const EXT_MESHOPT_COMPRESSION: &str = "EXT_meshopt_compression";
pub(crate) const KHR_MESHOPT_COMPRESSION: &str = "KHR_meshopt_compression";
pub(crate) const EXT_MESH_GPU_INSTANCING: &str = "EXT_mesh_gpu_instancing";

/// An accessor's `componentType` (glTF 2.0 §3.6.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ComponentType {
    /// `BYTE` (5120): i8.
    Byte,
    /// `UNSIGNED_BYTE` (5121): u8.
    UnsignedByte,
    /// `SHORT` (5122): i16.
    Short,
    /// `UNSIGNED_SHORT` (5123): u16.
    UnsignedShort,
    /// `UNSIGNED_INT` (5125): u32.
    UnsignedInt,
    /// `FLOAT` (5126): f32.
    Float,
}

crate::names::named!(ComponentType, "component type", {
    Byte => "BYTE",
    UnsignedByte => "UNSIGNED_BYTE",
    Short => "SHORT",
    UnsignedShort => "UNSIGNED_SHORT",
    UnsignedInt => "UNSIGNED_INT",
    Float => "FLOAT",
});

impl ComponentType {
    /// The code a file writes.
    #[must_use]
    pub(crate) const fn code(self) -> u32 {
        match self {
            Self::Byte => 5120,
            Self::UnsignedByte => 5121,
            Self::Short => 5122,
            Self::UnsignedShort => 5123,
            Self::UnsignedInt => 5125,
            Self::Float => 5126,
        }
    }

    /// The type a file's code names, if any.
    #[must_use]
    pub(crate) fn from_code(code: u64) -> Option<Self> {
        Self::ALL.into_iter().find(|c| u64::from(c.code()) == code)
    }

    /// Bytes per component.
    #[must_use]
    pub(crate) const fn bytes(self) -> usize {
        match self {
            Self::Byte | Self::UnsignedByte => 1,
            Self::Short | Self::UnsignedShort => 2,
            Self::UnsignedInt | Self::Float => 4,
        }
    }
}

/// An accessor's `type`: how many components an element has (glTF 2.0 §3.6.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessorType {
    /// One component.
    Scalar,
    /// Two.
    Vec2,
    /// Three.
    Vec3,
    /// Four.
    Vec4,
    /// A 2 × 2 matrix, column-major.
    Mat2,
    /// 3 × 3.
    Mat3,
    /// 4 × 4.
    Mat4,
}

crate::names::named!(AccessorType, "accessor type", {
    Scalar => "SCALAR",
    Vec2 => "VEC2",
    Vec3 => "VEC3",
    Vec4 => "VEC4",
    Mat2 => "MAT2",
    Mat3 => "MAT3",
    Mat4 => "MAT4",
});

impl AccessorType {
    /// Components per element (16 for `MAT4`).
    #[must_use]
    pub(crate) const fn components(self) -> usize {
        let (columns, rows) = self.shape();
        columns * rows
    }

    /// Columns and rows: `(1, n)` for a vector or scalar, `(n, n)` for a matrix.
    pub(crate) const fn shape(self) -> (usize, usize) {
        match self {
            Self::Scalar => (1, 1),
            Self::Vec2 => (1, 2),
            Self::Vec3 => (1, 3),
            Self::Vec4 => (1, 4),
            Self::Mat2 => (2, 2),
            Self::Mat3 => (3, 3),
            Self::Mat4 => (4, 4),
        }
    }

    /// The scalar or vector type of `components` (1 to 4).
    #[must_use]
    pub(crate) const fn vector(components: usize) -> Option<Self> {
        match components {
            1 => Some(Self::Scalar),
            2 => Some(Self::Vec2),
            3 => Some(Self::Vec3),
            4 => Some(Self::Vec4),
            _ => None,
        }
    }
}

/// How an accessor's elements are stored: component type, type and `normalized`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AccessorLayout {
    /// `componentType`.
    pub component: ComponentType,
    /// `type`.
    pub kind: AccessorType,
    /// `normalized`: integers read as fractions (glTF 2.0 §3.11).
    pub normalized: bool,
}

impl AccessorLayout {
    /// An f32 layout of `kind`.
    #[must_use]
    pub(crate) const fn float(kind: AccessorType) -> Self {
        Self {
            component: ComponentType::Float,
            kind,
            normalized: false,
        }
    }

    /// Bytes per element. A matrix of 1- or 2-byte components pads each column to 4 bytes
    /// (glTF 2.0 §3.6.2.4): `MAT3` of bytes is 12 bytes, of shorts 24.
    #[must_use]
    pub(crate) const fn element_bytes(self) -> usize {
        let (columns, rows) = self.kind.shape();
        let column = rows * self.component.bytes();
        if columns == 1 {
            column
        } else {
            columns * column.next_multiple_of(4)
        }
    }

    /// The byte offset of each component in an element, column by column (see
    /// [`AccessorLayout::element_bytes`] for the padding of matrix columns).
    pub(crate) fn component_offsets(self) -> Vec<usize> {
        let (columns, rows) = self.kind.shape();
        let size = self.component.bytes();
        let column = self.element_bytes() / columns;
        (0..columns)
            .flat_map(|c| (0..rows).map(move |r| c * column + r * size))
            .collect()
    }

    /// Bytes between vertices of a vertex attribute of this layout: the element rounded up to 4
    /// (glTF 2.0 §3.6.2.4 aligns every vertex attribute element to 4 bytes).
    #[must_use]
    pub(crate) const fn vertex_stride(self) -> usize {
        self.element_bytes().next_multiple_of(4)
    }

    /// The layout of `format`'s `_QTANGENT` (the format table's glTF column; see [`Format`]'s
    /// docs for why every format but `f32x4` is `SHORT`).
    pub(crate) fn of_format(format: Format) -> Self {
        let g = format.info().gltf;
        Self {
            // The table holds FLOAT and SHORT only (a unit test reads every row back).
            component: ComponentType::from_code(u64::from(g.component_type))
                .unwrap_or(ComponentType::Short),
            kind: AccessorType::vector(g.components).unwrap_or(AccessorType::Vec4),
            normalized: g.normalized,
        }
    }

    /// `VEC3 FLOAT`, `VEC4 SHORT normalized`: the layout as messages name it.
    pub(crate) fn describe(self) -> String {
        let normalized = if self.normalized { " normalized" } else { "" };
        format!("{} {}{normalized}", self.kind, self.component)
    }
}

/// A buffer view's `target`: what the GPU binds it as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// `ARRAY_BUFFER` (34962): vertex attributes.
    ArrayBuffer,
    /// `ELEMENT_ARRAY_BUFFER` (34963): indices.
    ElementArrayBuffer,
}

impl Target {
    /// The code a file writes.
    #[must_use]
    pub(crate) const fn code(self) -> u32 {
        match self {
            Self::ArrayBuffer => 34962,
            Self::ElementArrayBuffer => 34963,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AccessorLayout, AccessorType, ComponentType};
    use crate::Format;

    /// Every format's table row names a layout this module knows, with the format's own bytes
    /// (padded to 4 as a vertex attribute).
    #[test]
    fn every_format_has_its_own_layout() {
        for format in Format::ALL {
            let g = format.info().gltf;
            let layout = AccessorLayout::of_format(format);
            assert_eq!(
                u64::from(layout.component.code()),
                u64::from(g.component_type)
            );
            assert_eq!(layout.kind.components(), g.components, "{format}");
            assert_eq!(layout.normalized, g.normalized, "{format}");
            assert_eq!(layout.element_bytes(), format.bytes(), "{format}");
            assert_eq!(layout.vertex_stride(), format.bytes().next_multiple_of(4));
        }
    }

    /// glTF 2.0 §3.6.2.4's matrix padding and the codes of §3.6.2.2.
    #[test]
    fn element_sizes_and_codes() {
        let of = |component, kind| {
            AccessorLayout {
                component,
                kind,
                normalized: false,
            }
            .element_bytes()
        };
        assert_eq!(of(ComponentType::Byte, AccessorType::Mat2), 8);
        assert_eq!(of(ComponentType::Byte, AccessorType::Mat3), 12);
        assert_eq!(of(ComponentType::Short, AccessorType::Mat3), 24);
        assert_eq!(of(ComponentType::Short, AccessorType::Mat2), 8);
        assert_eq!(of(ComponentType::Float, AccessorType::Mat4), 64);
        assert_eq!(of(ComponentType::Byte, AccessorType::Vec3), 3);
        for c in ComponentType::ALL {
            assert_eq!(ComponentType::from_code(u64::from(c.code())), Some(c));
        }
        assert_eq!(ComponentType::from_code(5124), None);
    }
}
