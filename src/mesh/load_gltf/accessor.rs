//! What each accessor the loader reads may be (type and component types), checked before it is
//! read through the files layer's reader ([`crate::gltf::read`]), which checks its byte ranges.

use crate::gltf::read::{describe, Accessor};
use crate::gltf::{AccessorError, AccessorType, ComponentType};
use crate::mesh::ErrorKind;

use super::File;

/// What an accessor may be.
pub(super) struct Expect {
    pub(super) kind: AccessorType,
    pub(super) components: &'static [ComponentType],
    pub(super) describe: &'static str,
}

use ComponentType::{Byte, Float, Short, UnsignedByte, UnsignedInt, UnsignedShort};

/// Float, or byte or short of either sign.
pub(super) const FLOAT_BYTE_SHORT: &[ComponentType] =
    &[Float, Byte, UnsignedByte, Short, UnsignedShort];

// KHR_mesh_quantization's table: POSITION and TEXCOORD_n take float or any (un)signed byte or
// short, normalised or not; NORMAL and TANGENT float or normalised byte or short (a normal that
// is not normalised is read as its integer value and renormalised like any other).
pub(super) const POSITION: Expect = Expect {
    kind: AccessorType::Vec3,
    components: FLOAT_BYTE_SHORT,
    describe: "VEC3 float, byte or short",
};
pub(super) const NORMAL: Expect = Expect {
    kind: AccessorType::Vec3,
    components: &[Float, Byte, Short],
    describe: "VEC3 float, byte or short",
};
pub(super) const TANGENT: Expect = Expect {
    kind: AccessorType::Vec4,
    components: &[Float, Byte, Short],
    describe: "VEC4 float, byte or short",
};
pub(super) const TEXCOORD: Expect = Expect {
    kind: AccessorType::Vec2,
    components: FLOAT_BYTE_SHORT,
    describe: "VEC2 float, byte or short",
};
pub(super) const JOINTS: Expect = Expect {
    kind: AccessorType::Vec4,
    components: &[UnsignedByte, UnsignedShort],
    describe: "VEC4 unsigned byte or unsigned short",
};
pub(super) const WEIGHTS: Expect = Expect {
    kind: AccessorType::Vec4,
    components: &[Float, UnsignedByte, UnsignedShort],
    describe: "VEC4 float, unsigned byte or unsigned short",
};
pub(super) const INDICES: Expect = Expect {
    kind: AccessorType::Scalar,
    components: &[UnsignedByte, UnsignedShort, UnsignedInt],
    describe: "SCALAR unsigned byte, short or int",
};
pub(super) const MAT4: Expect = Expect {
    kind: AccessorType::Mat4,
    components: &[Float],
    describe: "MAT4 float",
};

/// Accessor `index`, read for `attribute` (named in messages): its type checked against
/// `expect`, then its count and every byte range it reads ([`crate::gltf::read::Reader`]). An
/// accessor with neither a buffer view nor a sparse part is all zeros (glTF 2.0 §3.6.2.4).
pub(super) fn checked(
    file: &File<'_>,
    index: usize,
    attribute: &str,
    expect: &Expect,
) -> Result<Accessor, ErrorKind> {
    let acc = describe(file.json, index).map_err(unreadable(attribute, index))?;
    if acc.layout.kind != expect.kind || !expect.components.contains(&acc.layout.component) {
        return Err(ErrorKind::AccessorType {
            attribute: attribute.to_owned(),
            accessor: index,
            found: acc.layout.describe(),
            expected: expect.describe,
        });
    }
    read(file, index, attribute)
}

/// Accessor `index`, read for `attribute` whatever its type: its count and every byte range it
/// reads checked.
pub(super) fn read(file: &File<'_>, index: usize, attribute: &str) -> Result<Accessor, ErrorKind> {
    file.reader
        .accessor(index)
        .map_err(unreadable(attribute, index))
}

/// The error for `attribute`'s accessor `accessor`, which the reader refused.
fn unreadable(attribute: &str, accessor: usize) -> impl Fn(AccessorError) -> ErrorKind + '_ {
    move |detail| ErrorKind::AccessorOutOfBounds {
        attribute: attribute.to_owned(),
        accessor,
        detail,
    }
}

impl File<'_> {
    /// A [`checked`] accessor's elements as `N` floats each.
    pub(super) fn floats<const N: usize>(
        &self,
        acc: &Accessor,
        attribute: &str,
    ) -> Result<Vec<[f32; N]>, ErrorKind> {
        self.reader
            .floats(acc)
            .map_err(unreadable(attribute, acc.index))
    }

    /// A [`checked`] accessor's elements as `N` unsigned integers each.
    pub(super) fn unsigned<const N: usize>(
        &self,
        acc: &Accessor,
        attribute: &str,
    ) -> Result<Vec<[u32; N]>, ErrorKind> {
        self.reader
            .unsigned(acc)
            .map_err(unreadable(attribute, acc.index))
    }

    /// A [`checked`] accessor's elements, tightly packed.
    pub(super) fn bytes(&self, acc: &Accessor, attribute: &str) -> Result<Vec<u8>, ErrorKind> {
        self.reader
            .bytes(acc)
            .map_err(unreadable(attribute, acc.index))
    }
}
