//! What each accessor the loader reads may be (type and component types), checked before it is
//! read through the files layer's reader ([`crate::gltf::read`]), which checks its byte ranges.

use crate::gltf::read::{describe, Accessor, Reader};
use crate::gltf::{AccessorError, AccessorType, ComponentType};
use crate::mesh::ErrorKind;

use super::File;

/// What an accessor may be: its type, its component types, and that said in messages.
pub(super) struct Expect {
    pub(super) kind: AccessorType,
    pub(super) components: &'static [ComponentType],
    pub(super) describe: &'static str,
}

const fn expect(
    kind: AccessorType,
    components: &'static [ComponentType],
    describe: &'static str,
) -> Expect {
    Expect {
        kind,
        components,
        describe,
    }
}

use AccessorType::{Mat4, Scalar, Vec2, Vec3, Vec4};
use ComponentType::{Byte, Float, Short, UnsignedByte, UnsignedInt, UnsignedShort};

/// Float, or byte or short of either sign.
pub(super) const FLOAT_BYTE_SHORT: &[ComponentType] =
    &[Float, Byte, UnsignedByte, Short, UnsignedShort];

// KHR_mesh_quantization's table: POSITION and TEXCOORD_n take float or any (un)signed byte or
// short, normalised or not; NORMAL and TANGENT float or normalised byte or short (a normal that
// is not normalised is read as its integer value and renormalised like any other).
pub(super) const POSITION: Expect = expect(Vec3, FLOAT_BYTE_SHORT, "VEC3 float, byte or short");
pub(super) const NORMAL: Expect = expect(Vec3, &[Float, Byte, Short], "VEC3 float, byte or short");
pub(super) const TANGENT: Expect = expect(Vec4, &[Float, Byte, Short], "VEC4 float, byte or short");
/// A morph target's POSITION, NORMAL or TANGENT deltas (KHR_mesh_quantization allows byte and
/// short, normalised or not).
pub(super) const MORPH: Expect = expect(Vec3, FLOAT_BYTE_SHORT, "VEC3 float, byte or short");
pub(super) const TEXCOORD: Expect = expect(Vec2, FLOAT_BYTE_SHORT, "VEC2 float, byte or short");
pub(super) const JOINTS: Expect = expect(
    Vec4,
    &[UnsignedByte, UnsignedShort],
    "VEC4 unsigned byte or unsigned short",
);
pub(super) const WEIGHTS: Expect = expect(
    Vec4,
    &[Float, UnsignedByte, UnsignedShort],
    "VEC4 float, unsigned byte or unsigned short",
);
pub(super) const INDICES: Expect = expect(
    Scalar,
    &[UnsignedByte, UnsignedShort, UnsignedInt],
    "SCALAR unsigned byte, short or int",
);
pub(super) const MAT4: Expect = expect(Mat4, &[Float], "MAT4 float");
// Animation samplers: key times, translation and scale values, rotation values.
pub(super) const TIMES: Expect = expect(Scalar, &[Float], "SCALAR float");
pub(super) const VEC3_OUTPUT: Expect = expect(Vec3, &[Float], "VEC3 float");
pub(super) const ROTATION_OUTPUT: Expect = expect(
    Vec4,
    FLOAT_BYTE_SHORT,
    "VEC4 float or normalized byte or short",
);

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
        detail: Box::new(detail),
    }
}

impl<'a> File<'a> {
    /// A [`checked`] accessor read by `read` (the reader's `floats`, `unsigned` or `bytes`),
    /// a failure named by `attribute`.
    pub(super) fn read<T>(
        &self,
        acc: &Accessor,
        read: impl FnOnce(&Reader<'a>, &Accessor) -> Result<T, AccessorError>,
        attribute: &str,
    ) -> Result<T, ErrorKind> {
        read(&self.reader, acc).map_err(unreadable(attribute, acc.index))
    }
}
