//! `_QTANGENT`: the frames of a file qtangent wrote (`pack`), decoded into
//! [`Primitive::qtangents`](crate::mesh::Primitive::qtangents). The format is the primitive's
//! `QTANGENT_frames.format` (docs/GLTF.md); without it (a tool that rewrote the file dropped
//! the extension), the accessor's layout, which no two formats share.

use glam::Vec2;
use gltf::mesh::Semantic;

use super::accessor::{checked, read, TEXCOORD};
use super::texture_transform::{self, Slot};
use super::File;
use crate::frame::QTangent;
use crate::gltf::names::{
    AccessorLayout, KHR_TEXTURE_TRANSFORM, QTANGENT_ATTRIBUTE, QTANGENT_FRAMES,
};
use crate::gltf::read::Reader;
use crate::mesh::{ErrorKind, ImageSource, PackedMap};
use crate::Format;

/// The decoded `_QTANGENT` of `prim`, `None` when it has none.
pub(super) fn read_qtangents(
    file: &File<'_>,
    prim: &gltf::Primitive<'_>,
    vertices: usize,
) -> Result<Option<Vec<QTangent>>, ErrorKind> {
    let name = QTANGENT_ATTRIBUTE;
    let Some(acc) = prim.get(&Semantic::Extras(name[1..].to_string())) else {
        return Ok(None);
    };
    let bad = |problem: String| ErrorKind::InvalidGltf(format!("{name}: {problem}"));
    let acc = read(file, acc.index(), name)?;
    let named = prim
        .extension_value(QTANGENT_FRAMES)
        .and_then(|e| e.get("format"))
        .map(|f| {
            f.as_str()
                .ok_or_else(|| bad(format!("{QTANGENT_FRAMES}.format is not a string")))
                .and_then(|s| s.parse::<Format>().map_err(|e| bad(e.to_string())))
        })
        .transpose()?;
    let found = acc.layout;
    // A tool that converts accessors (quantising, compressing) without knowing the attribute.
    const CAUSE: &str = "a tool rewrote the attribute after pack; run gltfpack or glTF-Transform before pack, not after";
    let format = match named {
        Some(f) => f,
        None => Format::ALL
            .into_iter()
            .find(|&f| AccessorLayout::of_format(f) == found)
            .ok_or_else(|| {
                bad(format!(
                    "accessor {} is {}, which is no qtangent format's layout, and the primitive has no {QTANGENT_FRAMES}.format ({CAUSE})",
                    acc.index,
                    found.describe(),
                ))
            })?,
    };
    let want = AccessorLayout::of_format(format);
    if found != want {
        return Err(bad(format!(
            "accessor {} is {}, but {} is stored as {} ({CAUSE})",
            acc.index,
            found.describe(),
            format.name(),
            want.describe(),
        )));
    }
    if acc.count != vertices {
        return Err(ErrorKind::CountMismatch {
            attribute: name.into(),
            count: acc.count,
            positions: vertices,
        });
    }
    file.read(&acc, Reader::bytes, name)?
        .chunks_exact(want.element_bytes())
        .enumerate()
        .map(|(v, bytes)| {
            let q = format.decode(bytes);
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
    file: &File<'_>,
    reference: &gltf::json::Value,
    what: &str,
) -> Result<ImageSource, ErrorKind> {
    let bad =
        |problem: String| ErrorKind::InvalidGltf(format!("{}.{what}: {problem}", QTANGENT_FRAMES));
    let index = reference
        .get("index")
        .and_then(gltf::json::Value::as_u64)
        .ok_or_else(|| bad("no texture index".into()))?;
    let texture = usize::try_from(index)
        .ok()
        .and_then(|i| file.doc.textures().nth(i))
        .ok_or_else(|| bad(format!("texture {index} does not exist")))?;
    super::materials::texture_image(&texture, &file.images)
        .map_err(|e| bad(e.to_string()))?
        .ok_or_else(|| bad(format!("texture {index} has no image")))
}

/// A material's `QTANGENT_frames.tangentMap`.
pub(super) fn tangent_map(
    file: &File<'_>,
    m: &gltf::Material<'_>,
) -> Result<Option<ImageSource>, ErrorKind> {
    m.extension_value(QTANGENT_FRAMES)
        .and_then(|e| e.get("tangentMap"))
        .map(|r| map_image(file, r, "tangentMap"))
        .transpose()
}

/// The map reference `key` (`tangentMap`, `objectMap`) of a `QTANGENT_frames` object.
fn map_reference<'a>(
    ext: Option<&'a gltf::json::Value>,
    key: &str,
) -> Option<&'a gltf::json::Value> {
    ext?.get(key)
}

/// A texture reference's `texCoord` (0 when absent; past u32, a set no file has).
fn tex_coord(r: &gltf::json::Value) -> u32 {
    r.get("texCoord")
        .and_then(gltf::json::Value::as_u64)
        .map_or(0, |s| u32::try_from(s).unwrap_or(u32::MAX))
}

/// The UV slot of a material's `QTANGENT_frames.tangentMap` (its `texCoord` and its
/// KHR_texture_transform, as `pack` writes for quantised UVs), for the material's shared UV
/// transform; `None` without one.
///
/// # Errors
/// A transform value of the wrong type or not finite, naming the material.
pub(super) fn tangent_map_slot(
    m: &gltf::Material<'_>,
    material: &str,
) -> Result<Option<Slot>, ErrorKind> {
    let Some(r) = map_reference(m.extension_value(QTANGENT_FRAMES), "tangentMap") else {
        return Ok(None);
    };
    let tex_coord = tex_coord(r);
    let ext = r
        .get("extensions")
        .and_then(|e| e.get(KHR_TEXTURE_TRANSFORM));
    let (transform, tex_coord) = match ext {
        Some(ext) => {
            let (t, set) = texture_transform::parse(ext, material, "tangentMap")?;
            (Some(t), set.unwrap_or(tex_coord))
        }
        None => (None, tex_coord),
    };
    Ok(Some(Slot {
        which: "tangentMap",
        tex_coord,
        transform,
    }))
}

/// A primitive's `QTANGENT_frames.objectMap`, with the UV set it reads when that is not 0.
pub(super) fn object_map(
    file: &File<'_>,
    prim: &gltf::Primitive<'_>,
    vertices: usize,
) -> Result<Option<PackedMap>, ErrorKind> {
    let Some(reference) = map_reference(prim.extension_value(QTANGENT_FRAMES), "objectMap") else {
        return Ok(None);
    };
    let image = map_image(file, reference, "objectMap")?;
    let tex_coord = tex_coord(reference);
    let uvs = if tex_coord == 0 {
        None
    } else {
        let name = format!("TEXCOORD_{tex_coord}");
        let acc = prim.get(&Semantic::TexCoords(tex_coord)).ok_or_else(|| {
            ErrorKind::InvalidGltf(format!(
                "{}.objectMap reads {name}, which the primitive does not have",
                QTANGENT_FRAMES
            ))
        })?;
        let acc = checked(file, acc.index(), &name, &TEXCOORD)?;
        if acc.count != vertices {
            return Err(ErrorKind::CountMismatch {
                attribute: name,
                count: acc.count,
                positions: vertices,
            });
        }
        let uvs: Vec<Vec2> = file
            .read(&acc, Reader::floats::<2>, &name)?
            .into_iter()
            .map(Vec2::from)
            .collect();
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
