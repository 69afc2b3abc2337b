//! Materials and textures: image sources, the PBR factors, normal maps, KHR_materials_anisotropy,
//! and the material's KHR_texture_transform ([`texture_transform`]).

use std::path::Path;

use glam::Vec4;

use super::texture_transform::{self, Slot, KHR_TEXTURE_TRANSFORM};
use crate::mesh::{ErrorKind, ImageSource, Material, TextureRef};

/// Where image `image`'s bytes are: a file, a data URI, or a slice of a buffer (shared).
pub(super) fn image_source(
    image: &gltf::Image<'_>,
    base: Option<&Path>,
    buffers: &[gltf::buffer::Data],
) -> Result<ImageSource, ErrorKind> {
    Ok(match image.source() {
        gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
            ImageSource::DataUri(uri.into())
        }
        gltf::image::Source::Uri { uri, .. } => {
            ImageSource::File(base.map_or_else(|| uri.into(), |b| b.join(uri)))
        }
        gltf::image::Source::View { view, mime_type } => {
            let data = buffers
                .get(view.buffer().index())
                .map_or(&[][..], |d| &d.0[..]);
            let bytes = view
                .offset()
                .checked_add(view.length())
                .and_then(|end| data.get(view.offset()..end))
                .ok_or_else(|| ErrorKind::AccessorOutOfBounds {
                    attribute: format!("image {}", image.index()),
                    accessor: view.index(),
                    detail: "its buffer view is outside the buffer".into(),
                })?;
            ImageSource::Embedded {
                mime: mime_type.to_owned(),
                bytes: bytes.into(),
            }
        }
    })
}

/// The image a texture samples: its `KHR_texture_basisu` source where it has one (a KTX2
/// image), else its own, else an `EXT_texture_webp` or `MSFT_texture_dds` source. `Ok(None)`
/// for a texture with no image at all (valid glTF: an extension the file uses may supply one).
pub(super) fn texture_image(
    t: &gltf::Texture<'_>,
    images: &[ImageSource],
) -> Result<Option<ImageSource>, String> {
    let extension_source = |name: &str| {
        t.extension_value(name)
            .and_then(|v| v.get("source"))
            .and_then(gltf::json::Value::as_u64)
    };
    // A quaternion map of a packed file names its KTX2 image the way KHR_texture_basisu does.
    let basisu = extension_source("KHR_texture_basisu")
        .or_else(|| extension_source(crate::pack::extension::NAME));
    let index = match (basisu, t.source()) {
        (Some(i), _) => usize::try_from(i).unwrap_or(usize::MAX),
        (None, Some(image)) => image.index(),
        (None, None) => {
            match extension_source("EXT_texture_webp")
                .or_else(|| extension_source("MSFT_texture_dds"))
            {
                Some(i) => usize::try_from(i).unwrap_or(usize::MAX),
                None => return Ok(None),
            }
        }
    };
    images.get(index).cloned().map(Some).ok_or_else(|| {
        format!(
            "texture {} names image {index}, which does not exist",
            t.index()
        )
    })
}

/// A texture as the material sees it: its reference (none when the texture has no image, with a
/// warning) and its [`Slot`] for the material's UV transform.
struct Read {
    texture: Option<TextureRef>,
    slot: Slot,
}

/// Reads one texture info: the texture's image, its UV set (the KHR_texture_transform
/// `texCoord` override honoured) and its transform. `ext` is the info's KHR_texture_transform.
#[allow(clippy::too_many_arguments)]
fn read_texture(
    t: &gltf::Texture<'_>,
    tex_coord: u32,
    scale: f32,
    ext: Option<&gltf::json::Value>,
    which: &'static str,
    material: &str,
    images: &[ImageSource],
    warnings: &mut Vec<String>,
) -> Result<Read, ErrorKind> {
    let bad = |e: String| ErrorKind::InvalidGltf(format!("material '{material}': {e}"));
    let (transform, tex_coord) = match ext {
        Some(ext) => {
            let (transform, over) = texture_transform::parse(ext, material, which)?;
            (Some(transform), over.unwrap_or(tex_coord))
        }
        None => (None, tex_coord),
    };
    let image = texture_image(t, images).map_err(bad)?;
    if image.is_none() {
        warnings.push(format!(
            "material '{material}': the {which} texture ({}) has no image qtangent can read; drawn without it",
            t.index()
        ));
    }
    Ok(Read {
        texture: image.map(|image| TextureRef {
            image,
            tex_coord,
            scale,
        }),
        slot: Slot {
            which,
            tex_coord,
            transform,
        },
    })
}

/// Reads a material's KHR_materials_anisotropy (raw JSON: the gltf crate has no type for it).
/// Out-of-range or non-numeric values are errors naming the material. Returns the anisotropy and
/// its texture's [`Slot`] (for the material's UV transform).
fn anisotropy(
    doc: &gltf::Document,
    ext: &gltf::json::Value,
    name: &str,
    images: &[ImageSource],
    warnings: &mut Vec<String>,
) -> Result<(crate::mesh::Anisotropy, Option<Slot>), ErrorKind> {
    let bad = |what: String| {
        ErrorKind::InvalidGltf(format!(
            "material '{name}': KHR_materials_anisotropy: {what}"
        ))
    };
    let number = |key: &str, default: f32| -> Result<f32, ErrorKind> {
        match ext.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .map(|x| x as f32)
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad(format!("{key} is {v}, not a finite number"))),
        }
    };
    let strength = number("anisotropyStrength", 0.0)?;
    if !(0.0..=1.0).contains(&strength) {
        return Err(bad(format!(
            "anisotropyStrength is {strength}, outside [0, 1]"
        )));
    }
    let rotation = number("anisotropyRotation", 0.0)?;
    let (texture, slot) = match ext.get("anisotropyTexture") {
        None => (None, None),
        Some(info) => {
            let index = info
                .get("index")
                .and_then(gltf::json::Value::as_u64)
                .ok_or_else(|| bad("anisotropyTexture has no index".into()))?;
            let t = doc
                .textures()
                .nth(usize::try_from(index).unwrap_or(usize::MAX))
                .ok_or_else(|| {
                    bad(format!(
                        "anisotropyTexture names texture {index}, which does not exist"
                    ))
                })?;
            let tex_coord = match info.get("texCoord") {
                None => 0,
                Some(v) => v
                    .as_u64()
                    .and_then(|c| u32::try_from(c).ok())
                    .ok_or_else(|| bad(format!("anisotropyTexture.texCoord is {v}")))?,
            };
            let ext = info
                .get("extensions")
                .and_then(|e| e.get(KHR_TEXTURE_TRANSFORM));
            let read = read_texture(
                &t,
                tex_coord,
                1.0,
                ext,
                "anisotropy",
                name,
                images,
                warnings,
            )
            .map_err(|e| match e {
                ErrorKind::InvalidGltf(m) => bad(m),
                other => other,
            })?;
            (read.texture, Some(read.slot))
        }
    };
    Ok((
        crate::mesh::Anisotropy {
            strength,
            rotation,
            texture,
        },
        slot,
    ))
}

pub(super) fn material(
    doc: &gltf::Document,
    m: &gltf::Material<'_>,
    images: &[ImageSource],
    warnings: &mut Vec<String>,
) -> Result<Material, ErrorKind> {
    let pbr = m.pbr_metallic_roughness();
    let name = m.name().map_or_else(
        || {
            m.index()
                .map_or_else(|| "default material".into(), |i| format!("material {i}"))
        },
        str::to_owned,
    );
    let mut slots = Vec::new();
    let take = |read: Option<Read>, slots: &mut Vec<Slot>| {
        read.and_then(|r| {
            slots.push(r.slot);
            r.texture
        })
    };
    let info = |i: gltf::texture::Info<'_>, which, warnings: &mut Vec<String>| {
        let ext = i.extension_value(KHR_TEXTURE_TRANSFORM);
        read_texture(
            &i.texture(),
            i.tex_coord(),
            1.0,
            ext,
            which,
            &name,
            images,
            warnings,
        )
    };
    let base = pbr
        .base_color_texture()
        .map(|i| info(i, "base colour", warnings))
        .transpose()?;
    let base_color_texture = take(base, &mut slots);
    let normal = m
        .normal_texture()
        .map(|n| {
            let ext = n.extension_value(KHR_TEXTURE_TRANSFORM);
            read_texture(
                &n.texture(),
                n.tex_coord(),
                n.scale(),
                ext,
                "normal",
                &name,
                images,
                warnings,
            )
        })
        .transpose()?;
    let normal_texture = take(normal, &mut slots);
    let mr = pbr
        .metallic_roughness_texture()
        .map(|i| info(i, "metallic-roughness", warnings))
        .transpose()?;
    let metallic_roughness_texture = take(mr, &mut slots);
    let anisotropy = match m.extension_value("KHR_materials_anisotropy") {
        Some(ext) => {
            let (a, slot) = anisotropy(doc, ext, &name, images, warnings)?;
            slots.extend(slot);
            Some(a)
        }
        None => None,
    };
    let uv_transform = texture_transform::shared(&name, &slots, warnings);
    Ok(Material {
        base_color: Vec4::from(pbr.base_color_factor()),
        base_color_texture,
        normal_texture,
        metallic_roughness_texture,
        metallic: pbr.metallic_factor(),
        roughness: pbr.roughness_factor(),
        anisotropy,
        name,
        uv_transform,
        tangent_map: super::qtangent::tangent_map(doc, m, images)?,
    })
}
