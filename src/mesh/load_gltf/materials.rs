//! Materials and textures: image sources, the PBR factors, normal maps, KHR_materials_anisotropy.

use std::path::Path;

use glam::Vec4;

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
/// image), else its own.
pub(super) fn texture_image(
    t: &gltf::Texture<'_>,
    images: &[ImageSource],
) -> Result<ImageSource, String> {
    let basisu = t
        .extension_value("KHR_texture_basisu")
        .and_then(|v| v.get("source"))
        .and_then(gltf::json::Value::as_u64);
    // A quaternion map of a packed file names its KTX2 image the same way.
    let basisu = basisu.or_else(|| {
        t.extension_value(crate::pack::extension::NAME)
            .and_then(|v| v.get("source"))
            .and_then(gltf::json::Value::as_u64)
    });
    let index = match (basisu, t.source()) {
        (Some(i), _) => usize::try_from(i).unwrap_or(usize::MAX),
        (None, Some(image)) => image.index(),
        (None, None) => return Err(format!("texture {} has no image", t.index())),
    };
    images.get(index).cloned().ok_or_else(|| {
        format!(
            "texture {} names image {index}, which does not exist",
            t.index()
        )
    })
}

/// Reads a material's KHR_materials_anisotropy (raw JSON: the gltf crate has no type for it).
/// Out-of-range or non-numeric values are errors naming the material; a texture transform is
/// warned about and ignored.
pub(super) fn anisotropy(
    doc: &gltf::Document,
    ext: &gltf::json::Value,
    name: &str,
    images: &[ImageSource],
    warnings: &mut Vec<String>,
) -> Result<crate::mesh::Anisotropy, ErrorKind> {
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
    let texture = match ext.get("anisotropyTexture") {
        None => None,
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
            if info
                .get("extensions")
                .and_then(|e| e.get("KHR_texture_transform"))
                .is_some()
            {
                warnings.push(format!(
                    "material '{name}': the anisotropy texture's KHR_texture_transform is not supported; drawn untransformed"
                ));
            }
            Some(TextureRef {
                image: texture_image(&t, images).map_err(bad)?,
                tex_coord,
                scale: 1.0,
            })
        }
    };
    Ok(crate::mesh::Anisotropy {
        strength,
        rotation,
        texture,
    })
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
    let texture =
        |t: gltf::Texture<'_>, tex_coord: u32, scale: f32| -> Result<TextureRef, ErrorKind> {
            Ok(TextureRef {
                image: texture_image(&t, images)
                    .map_err(|e| ErrorKind::InvalidGltf(format!("material '{name}': {e}")))?,
                tex_coord,
                scale,
            })
        };
    let anisotropy = m
        .extension_value("KHR_materials_anisotropy")
        .map(|ext| anisotropy(doc, ext, &name, images, warnings))
        .transpose()?;
    Ok(Material {
        base_color: Vec4::from(pbr.base_color_factor()),
        base_color_texture: pbr
            .base_color_texture()
            .map(|i| texture(i.texture(), i.tex_coord(), 1.0))
            .transpose()?,
        normal_texture: m
            .normal_texture()
            .map(|n| texture(n.texture(), n.tex_coord(), n.scale()))
            .transpose()?,
        metallic_roughness_texture: pbr
            .metallic_roughness_texture()
            .map(|i| texture(i.texture(), i.tex_coord(), 1.0))
            .transpose()?,
        metallic: pbr.metallic_factor(),
        roughness: pbr.roughness_factor(),
        anisotropy,
        name,
        uv_transform: None,
        tangent_map: super::qtangent::tangent_map(doc, m, images)?,
    })
}
