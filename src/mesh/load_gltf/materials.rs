//! Materials and textures: image sources, the PBR factors, normal maps, KHR_materials_anisotropy,
//! and the material's KHR_texture_transform ([`texture_transform`]).

use std::fmt;

use glam::Vec4;

use super::texture_transform::{self, Slot};
use super::File;
use crate::gltf::names::{
    EXT_TEXTURE_WEBP, KHR_MATERIALS_ANISOTROPY, KHR_TEXTURE_BASISU, KHR_TEXTURE_TRANSFORM,
    MSFT_TEXTURE_DDS, QTANGENT_FRAMES,
};
use crate::gltf::uri::{resolve, Resolved};
use crate::mesh::{ErrorKind, ImageSource, Material, TextureRef};
use crate::{Warning, WarningKind};

/// Where image `image`'s bytes are: a file (a `file:` URI, or a relative path percent-decoded
/// against the document's folder), a data URI, or a slice of a buffer view (shared).
pub(super) fn image_source(
    file: &File<'_>,
    image: &gltf::Image<'_>,
) -> Result<ImageSource, ErrorKind> {
    Ok(match image.source() {
        gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
            ImageSource::DataUri(uri.into())
        }
        gltf::image::Source::Uri { uri, .. } => {
            let path = file.base.map_or_else(
                || uri.into(),
                |base| match resolve(uri, base) {
                    Ok(Resolved::File(path)) => path,
                    // Other schemes stay a path, which fails with a message when decoded.
                    _ => base.join(uri),
                },
            );
            ImageSource::File(path)
        }
        gltf::image::Source::View { view, mime_type } => {
            let bytes = file.reader.view(view.index()).map_err(|detail| {
                ErrorKind::AccessorOutOfBounds {
                    attribute: format!("image {}", image.index()),
                    accessor: view.index(),
                    detail: Box::new(detail),
                }
            })?;
            ImageSource::Embedded {
                mime: mime_type.to_owned(),
                bytes: bytes.bytes.as_ref().into(),
            }
        }
    })
}

/// A texture names an image that does not exist.
#[derive(Debug)]
pub(super) struct MissingImage {
    texture: usize,
    image: usize,
}

impl fmt::Display for MissingImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "texture {} names image {}, which does not exist",
            self.texture, self.image
        )
    }
}

/// The image a texture samples: its `KHR_texture_basisu` source where it has one (a KTX2
/// image), else its own, else an `EXT_texture_webp` or `MSFT_texture_dds` source. `Ok(None)`
/// for a texture with no image at all (valid glTF: an extension the file uses may supply one).
pub(super) fn texture_image(
    t: &gltf::Texture<'_>,
    images: &[ImageSource],
) -> Result<Option<ImageSource>, MissingImage> {
    let extension_source = |name: &str| {
        t.extension_value(name)
            .and_then(|v| v.get("source"))
            .and_then(gltf::json::Value::as_u64)
    };
    // A quaternion map of a packed file names its KTX2 image the way KHR_texture_basisu does.
    let basisu = extension_source(KHR_TEXTURE_BASISU).or_else(|| extension_source(QTANGENT_FRAMES));
    let index = match (basisu, t.source()) {
        (Some(i), _) => usize::try_from(i).unwrap_or(usize::MAX),
        (None, Some(image)) => image.index(),
        (None, None) => {
            match extension_source(EXT_TEXTURE_WEBP).or_else(|| extension_source(MSFT_TEXTURE_DDS))
            {
                Some(i) => usize::try_from(i).unwrap_or(usize::MAX),
                None => return Ok(None),
            }
        }
    };
    images.get(index).cloned().map(Some).ok_or(MissingImage {
        texture: t.index(),
        image: index,
    })
}

/// A texture as the material sees it: its reference (none when the texture has no image, with a
/// warning) and its [`Slot`] for the material's UV transform.
struct Read {
    texture: Option<TextureRef>,
    slot: Slot,
}

/// One texture info of a material, as the file gives it.
struct Info<'a> {
    texture: gltf::Texture<'a>,
    tex_coord: u32,
    /// `normalTexture.scale` (1 for other textures).
    scale: f32,
    /// The info's KHR_texture_transform.
    transform: Option<gltf::json::Value>,
    /// Which texture of the material, for messages.
    which: &'static str,
}

impl<'a> Info<'a> {
    /// A base colour or metallic-roughness texture info.
    fn of(i: &gltf::texture::Info<'a>, which: &'static str) -> Self {
        Self {
            transform: i.extension_value(KHR_TEXTURE_TRANSFORM).cloned(),
            tex_coord: i.tex_coord(),
            texture: i.texture(),
            scale: 1.0,
            which,
        }
    }
}

/// The material being read: its name, and where its warnings go.
struct Reading<'a, 'w> {
    file: &'a File<'a>,
    name: &'a str,
    warnings: &'w mut Vec<Warning>,
}

/// Reads one texture info: the texture's image, its UV set (the KHR_texture_transform
/// `texCoord` override honoured) and its transform.
fn read_texture(m: &mut Reading<'_, '_>, info: &Info<'_>) -> Result<Read, ErrorKind> {
    let (transform, tex_coord) = match &info.transform {
        Some(ext) => {
            let (transform, over) = texture_transform::parse(ext, m.name, info.which)?;
            (Some(transform), over.unwrap_or(info.tex_coord))
        }
        None => (None, info.tex_coord),
    };
    let image = texture_image(&info.texture, &m.file.images)
        .map_err(|e| ErrorKind::InvalidGltf(format!("material '{}': {e}", m.name)))?;
    if image.is_none() {
        m.warnings.push(Warning::new(
            format!("material '{}'", m.name),
            WarningKind::TextureWithoutImage {
                texture: info.which,
                index: info.texture.index(),
            },
        ));
    }
    Ok(Read {
        texture: image.map(|image| TextureRef {
            image,
            tex_coord,
            scale: info.scale,
        }),
        slot: Slot {
            which: info.which,
            tex_coord,
            transform,
        },
    })
}

/// Reads a material's KHR_materials_anisotropy (raw JSON: the gltf crate has no type for it).
/// Out-of-range or non-numeric values are errors naming the material. Returns the anisotropy and
/// its texture's [`Slot`] (for the material's UV transform).
fn anisotropy(
    m: &mut Reading<'_, '_>,
    ext: &gltf::json::Value,
) -> Result<(crate::mesh::Anisotropy, Option<Slot>), ErrorKind> {
    let name = m.name;
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
            let texture = m
                .file
                .doc
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
            let info = Info {
                texture,
                tex_coord,
                scale: 1.0,
                transform: info
                    .get("extensions")
                    .and_then(|e| e.get(KHR_TEXTURE_TRANSFORM))
                    .cloned(),
                which: "anisotropy",
            };
            let read = read_texture(m, &info).map_err(|e| match e {
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

/// Reads material `m`: its factors, its textures (with their shared UV transform), its
/// KHR_materials_anisotropy and its `QTANGENT_frames` tangent-space map.
pub(super) fn material(
    file: &File<'_>,
    m: &gltf::Material<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Material, ErrorKind> {
    let pbr = m.pbr_metallic_roughness();
    let name = m.name().map_or_else(
        || {
            m.index()
                .map_or_else(|| "default material".into(), |i| format!("material {i}"))
        },
        str::to_owned,
    );
    let mut reading = Reading {
        file,
        name: &name,
        warnings,
    };
    let mut slots = Vec::new();
    let mut read = |info: Option<Info<'_>>, reading: &mut Reading<'_, '_>| {
        let Some(info) = info else { return Ok(None) };
        let read = read_texture(reading, &info)?;
        slots.push(read.slot);
        Ok::<_, ErrorKind>(read.texture)
    };
    let base_color_texture = read(
        pbr.base_color_texture()
            .map(|i| Info::of(&i, "base colour")),
        &mut reading,
    )?;
    let normal = m.normal_texture().map(|n| Info {
        transform: n.extension_value(KHR_TEXTURE_TRANSFORM).cloned(),
        tex_coord: n.tex_coord(),
        scale: n.scale(),
        texture: n.texture(),
        which: "normal",
    });
    let normal_texture = read(normal, &mut reading)?;
    let metallic_roughness_texture = read(
        pbr.metallic_roughness_texture()
            .map(|i| Info::of(&i, "metallic-roughness")),
        &mut reading,
    )?;
    let anisotropy = match m.extension_value(KHR_MATERIALS_ANISOTROPY) {
        Some(ext) => {
            let (a, slot) = anisotropy(&mut reading, ext)?;
            slots.extend(slot);
            Some(a)
        }
        None => None,
    };
    slots.extend(super::qtangent::tangent_map_slot(m, &name)?);
    let uv_transform = texture_transform::shared(&name, &slots, reading.warnings);
    Ok(Material {
        base_color: Vec4::from(pbr.base_color_factor()),
        base_color_texture,
        normal_texture,
        metallic_roughness_texture,
        metallic: pbr.metallic_factor(),
        roughness: pbr.roughness_factor(),
        anisotropy,
        uv_transform,
        tangent_map: super::qtangent::tangent_map(file, m)?,
        name,
    })
}
