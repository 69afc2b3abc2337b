//! `_QTANGENT`: the frames of a file qtangent wrote (`pack`), decoded into
//! [`Primitive::qtangents`](crate::mesh::Primitive::qtangents). The format is the primitive's
//! `QTANGENT_frames.format` ([`crate::pack::extension`]); without it, only the two
//! unambiguous layouts are accepted (FLOAT VEC4: f32x4; normalised SHORT VEC4: snorm16x4).

use glam::Vec2;
use gltf::mesh::Semantic;

use super::accessor::{check_accessor, check_range, TEXCOORD};
use crate::frame::QTangent;
use crate::mesh::{ErrorKind, ImageSource, PackedMap};
use crate::pack::extension::{self, component, layout};
use crate::Format;

/// The decoded `_QTANGENT` of `prim`, `None` when it has none.
pub(super) fn read_qtangents(
    prim: &gltf::Primitive<'_>,
    buffers: &[gltf::buffer::Data],
    vertices: usize,
) -> Result<Option<Vec<QTangent>>, ErrorKind> {
    let name = extension::ATTRIBUTE;
    let Some(acc) = prim.get(&Semantic::Extras(name[1..].to_string())) else {
        return Ok(None);
    };
    let bad = |problem: String| ErrorKind::InvalidGltf(format!("{name}: {problem}"));
    let component_type = match acc.data_type() {
        gltf::accessor::DataType::I8 => component::BYTE,
        gltf::accessor::DataType::U8 => component::UNSIGNED_BYTE,
        gltf::accessor::DataType::I16 => component::SHORT,
        gltf::accessor::DataType::U16 => component::UNSIGNED_SHORT,
        gltf::accessor::DataType::U32 => component::UNSIGNED_INT,
        gltf::accessor::DataType::F32 => component::FLOAT,
    };
    let kind = match acc.dimensions() {
        gltf::accessor::Dimensions::Vec2 => "VEC2",
        gltf::accessor::Dimensions::Vec3 => "VEC3",
        gltf::accessor::Dimensions::Vec4 => "VEC4",
        other => return Err(bad(format!("accessor {} is {other:?}", acc.index()))),
    };
    let named = prim
        .extension_value(extension::NAME)
        .and_then(|e| e.get("format"))
        .map(|f| {
            f.as_str()
                .ok_or_else(|| bad(format!("{}.format is not a string", extension::NAME)))
                .and_then(|s| s.parse::<Format>().map_err(|e| bad(e.to_string())))
        })
        .transpose()?;
    let format = match named {
        Some(f) => f,
        None if component_type == component::FLOAT && kind == "VEC4" => Format::F32x4,
        None if component_type == component::SHORT && kind == "VEC4" && acc.normalized() => {
            Format::Snorm16x4
        }
        None => {
            return Err(bad(format!(
                "accessor {} could be several formats and the primitive has no {}.format",
                acc.index(),
                extension::NAME
            )))
        }
    };
    let want = layout(format);
    if (component_type, kind, acc.normalized()) != (want.component_type, want.kind, want.normalized)
    {
        return Err(bad(format!(
            "accessor {} is {kind} componentType {component_type}{}, but {} is stored as {} componentType {}{}",
            acc.index(),
            if acc.normalized() { " normalized" } else { "" },
            format.name(),
            want.kind,
            want.component_type,
            if want.normalized { " normalized" } else { "" },
        )));
    }
    if acc.count() != vertices {
        return Err(ErrorKind::CountMismatch {
            attribute: name.into(),
            count: acc.count(),
            positions: vertices,
        });
    }
    if acc.sparse().is_some() {
        return Err(bad(format!("accessor {} is sparse", acc.index())));
    }
    let view = acc
        .view()
        .ok_or_else(|| bad(format!("accessor {} has no buffer view", acc.index())))?;
    let element = acc.size();
    check_range(&view, acc.offset(), acc.count(), element, buffers).map_err(|d| {
        ErrorKind::AccessorOutOfBounds {
            attribute: name.into(),
            accessor: acc.index(),
            detail: d,
        }
    })?;
    let data = &buffers[view.buffer().index()].0[view.offset()..view.offset() + view.length()];
    let stride = view.stride().unwrap_or(element);
    let bytes = format.bytes();
    (0..acc.count())
        .map(|v| {
            let start = acc.offset() + v * stride;
            let q = format.decode(&data[start..start + bytes]);
            q.try_to_frame()
                .map(|_| q)
                .map_err(|e| bad(format!("vertex {v} is not a rotation ({e})")))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The texture index a `QTANGENT_frames` texture reference (`{"index": t}`) names, and its
/// image (the texture's own `QTANGENT_frames.source`, [`super::materials::texture_image`]).
fn map_image(
    doc: &gltf::Document,
    reference: &gltf::json::Value,
    what: &str,
    images: &[ImageSource],
) -> Result<ImageSource, ErrorKind> {
    let bad =
        |problem: String| ErrorKind::InvalidGltf(format!("{}.{what}: {problem}", extension::NAME));
    let index = reference
        .get("index")
        .and_then(gltf::json::Value::as_u64)
        .ok_or_else(|| bad("no texture index".into()))?;
    let texture = usize::try_from(index)
        .ok()
        .and_then(|i| doc.textures().nth(i))
        .ok_or_else(|| bad(format!("texture {index} does not exist")))?;
    super::materials::texture_image(&texture, images)
        .map_err(bad)?
        .ok_or_else(|| bad(format!("texture {index} has no image")))
}

/// A material's `QTANGENT_frames.tangentMap`.
pub(super) fn tangent_map(
    doc: &gltf::Document,
    m: &gltf::Material<'_>,
    images: &[ImageSource],
) -> Result<Option<ImageSource>, ErrorKind> {
    m.extension_value(extension::NAME)
        .and_then(|e| e.get("tangentMap"))
        .map(|r| map_image(doc, r, "tangentMap", images))
        .transpose()
}

/// A primitive's `QTANGENT_frames.objectMap`, with the UV set it reads when that is not 0.
pub(super) fn object_map(
    prim: &gltf::Primitive<'_>,
    doc: &gltf::Document,
    images: &[ImageSource],
    buffers: &[gltf::buffer::Data],
    vertices: usize,
) -> Result<Option<PackedMap>, ErrorKind> {
    let Some(reference) = prim
        .extension_value(extension::NAME)
        .and_then(|e| e.get("objectMap"))
    else {
        return Ok(None);
    };
    let image = map_image(doc, reference, "objectMap", images)?;
    let tex_coord = reference
        .get("texCoord")
        .and_then(gltf::json::Value::as_u64)
        .map_or(0, |s| u32::try_from(s).unwrap_or(u32::MAX));
    let uvs = if tex_coord == 0 {
        None
    } else {
        let name = format!("TEXCOORD_{tex_coord}");
        let acc = prim.get(&Semantic::TexCoords(tex_coord)).ok_or_else(|| {
            ErrorKind::InvalidGltf(format!(
                "{}.objectMap reads {name}, which the primitive does not have",
                extension::NAME
            ))
        })?;
        check_accessor(&acc, &name, &TEXCOORD, buffers)?;
        if acc.count() != vertices {
            return Err(ErrorKind::CountMismatch {
                attribute: name,
                count: acc.count(),
                positions: vertices,
            });
        }
        let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
        let uvs: Vec<Vec2> = reader
            .read_tex_coords(tex_coord)
            .map(|r| r.into_f32().map(Vec2::from).collect())
            .unwrap_or_default();
        if let Some(v) = uvs.iter().position(|uv| !uv.is_finite()) {
            return Err(ErrorKind::NonFinite {
                attribute: name,
                vertex: v,
                value: f32::NAN,
            });
        }
        Some(uvs)
    };
    Ok(Some(PackedMap {
        image,
        tex_coord,
        uvs,
    }))
}
