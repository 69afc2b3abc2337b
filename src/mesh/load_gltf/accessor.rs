//! Accessor checks: types, counts and byte ranges, before the `gltf` crate's readers run.

use gltf::accessor::{DataType, Dimensions};

use crate::mesh::ErrorKind;

/// What an attribute's accessor may be.
pub(super) struct Expect {
    pub(super) dims: Dimensions,
    pub(super) types: &'static [DataType],
    pub(super) describe: &'static str,
}

/// Float, or byte or short of either sign.
pub(super) const FLOAT_BYTE_SHORT: &[DataType] = &[
    DataType::F32,
    DataType::I8,
    DataType::U8,
    DataType::I16,
    DataType::U16,
];

// KHR_mesh_quantization's table: POSITION and TEXCOORD_n take float or any (un)signed byte or
// short, normalised or not; NORMAL and TANGENT float or normalised byte or short (a normal that
// is not normalised is read as its integer value and renormalised like any other).
pub(super) const POSITION: Expect = Expect {
    dims: Dimensions::Vec3,
    types: FLOAT_BYTE_SHORT,
    describe: "VEC3 float, byte or short",
};
pub(super) const NORMAL: Expect = Expect {
    dims: Dimensions::Vec3,
    types: &[DataType::F32, DataType::I8, DataType::I16],
    describe: "VEC3 float, byte or short",
};
pub(super) const TANGENT: Expect = Expect {
    dims: Dimensions::Vec4,
    types: &[DataType::F32, DataType::I8, DataType::I16],
    describe: "VEC4 float, byte or short",
};
pub(super) const TEXCOORD: Expect = Expect {
    dims: Dimensions::Vec2,
    types: FLOAT_BYTE_SHORT,
    describe: "VEC2 float, byte or short",
};
pub(super) const JOINTS: Expect = Expect {
    dims: Dimensions::Vec4,
    types: &[DataType::U8, DataType::U16],
    describe: "VEC4 unsigned byte or unsigned short",
};
pub(super) const WEIGHTS: Expect = Expect {
    dims: Dimensions::Vec4,
    types: &[DataType::F32, DataType::U8, DataType::U16],
    describe: "VEC4 float, unsigned byte or unsigned short",
};
pub(super) const INDICES: Expect = Expect {
    dims: Dimensions::Scalar,
    types: &[DataType::U8, DataType::U16, DataType::U32],
    describe: "SCALAR unsigned byte, short or int",
};
pub(super) const MAT4: Expect = Expect {
    dims: Dimensions::Mat4,
    types: &[DataType::F32],
    describe: "MAT4 float",
};

/// Checks a vertex attribute's or index accessor's type and byte ranges as [`check_accessor`]
/// does, except that an accessor with neither a buffer view nor a sparse part is accepted: glTF
/// 2.0 §3.6.2.4 makes it all zeros (the readers in [`super::quantized`] and
/// [`super::primitive`] give zeros for it).
pub(super) fn check_attribute(
    acc: &gltf::Accessor<'_>,
    attribute: &str,
    expect: &Expect,
    buffers: &[gltf::buffer::Data],
) -> Result<(), ErrorKind> {
    if super::quantized::is_all_zeros(acc) {
        return check_type(acc, attribute, expect);
    }
    check_accessor(acc, attribute, expect, buffers)
}

fn check_type(acc: &gltf::Accessor<'_>, attribute: &str, expect: &Expect) -> Result<(), ErrorKind> {
    if acc.dimensions() != expect.dims || !expect.types.contains(&acc.data_type()) {
        return Err(ErrorKind::AccessorType {
            attribute: attribute.to_owned(),
            accessor: acc.index(),
            found: format!("{:?} {:?}", acc.dimensions(), acc.data_type()),
            expected: expect.describe,
        });
    }
    if acc.count() == 0 {
        return Err(ErrorKind::AccessorOutOfBounds {
            attribute: attribute.to_owned(),
            accessor: acc.index(),
            detail: "count is 0".into(),
        });
    }
    Ok(())
}

/// Checks an accessor's type and that every byte it (and its sparse part) reads is inside its
/// buffer view and buffer, so the gltf crate's readers neither panic nor return `None`.
pub(super) fn check_accessor(
    acc: &gltf::Accessor<'_>,
    attribute: &str,
    expect: &Expect,
    buffers: &[gltf::buffer::Data],
) -> Result<(), ErrorKind> {
    let oob = |detail: String| ErrorKind::AccessorOutOfBounds {
        attribute: attribute.to_owned(),
        accessor: acc.index(),
        detail,
    };
    check_type(acc, attribute, expect)?;
    let elem = acc.size();
    let Some(view) = acc.view() else {
        if acc.sparse().is_none() {
            return Err(oob(
                "it has no buffer view (all-zero accessors are not supported)".into(),
            ));
        }
        return check_sparse(acc, elem, buffers, &oob);
    };
    check_range(&view, acc.offset(), acc.count(), elem, buffers).map_err(oob)?;
    check_sparse(acc, elem, buffers, &oob)
}

pub(super) fn check_sparse(
    acc: &gltf::Accessor<'_>,
    elem: usize,
    buffers: &[gltf::buffer::Data],
    oob: &dyn Fn(String) -> ErrorKind,
) -> Result<(), ErrorKind> {
    let Some(sparse) = acc.sparse() else {
        return Ok(());
    };
    if sparse.count() == 0 {
        return Err(oob("sparse count is 0".into()));
    }
    let indices = sparse.indices();
    check_range(
        &indices.view(),
        indices.offset(),
        sparse.count(),
        indices.index_type().size(),
        buffers,
    )
    .map_err(|d| oob(format!("sparse indices: {d}")))?;
    let values = sparse.values();
    check_range(
        &values.view(),
        values.offset(),
        sparse.count(),
        elem,
        buffers,
    )
    .map_err(|d| oob(format!("sparse values: {d}")))
}

/// `count` elements of `elem` bytes at `offset` into `view` (with its stride) must fit the view,
/// and the view must fit its buffer.
pub(super) fn check_range(
    view: &gltf::buffer::View<'_>,
    offset: usize,
    count: usize,
    elem: usize,
    buffers: &[gltf::buffer::Data],
) -> Result<(), String> {
    let stride = view.stride().unwrap_or(elem);
    if stride < elem {
        return Err(format!(
            "buffer view {} stride {stride} is less than the element size {elem}",
            view.index()
        ));
    }
    let end = stride
        .checked_mul(count - 1)
        .and_then(|x| x.checked_add(elem))
        .and_then(|x| x.checked_add(offset))
        .ok_or_else(|| "byte range overflows".to_owned())?;
    if end > view.length() {
        return Err(format!(
            "{count} elements from byte {offset} need {end} bytes, buffer view {} has {}",
            view.index(),
            view.length()
        ));
    }
    let buffer = view.buffer().index();
    let have = buffers.get(buffer).map_or(0, |b| b.len());
    let view_end = view
        .offset()
        .checked_add(view.length())
        .ok_or("byte range overflows")?;
    if view_end > have {
        return Err(format!(
            "buffer view {} ends at byte {view_end}, buffer {buffer} has {have}",
            view.index()
        ));
    }
    Ok(())
}

/// Most accessor elements one file may make the loader read (summed over every primitive, as
/// primitives may share accessors): 2²⁷, about 1.5 GB of f32 triples. A small file can name a
/// huge sparse accessor or reuse one large accessor in many primitives; this keeps it bounded.
pub(super) const MAX_ELEMENTS: usize = 1 << 27;
