//! KHR_texture_transform on the textures qtangent reads (base colour, normal,
//! metallic-roughness, KHR_materials_anisotropy's texture).
//!
//! qtangent draws every texture of a material with the material's one UV set 0, so a transform
//! is applied to the UVs at load time, once per material: when every one of those textures that
//! reads UV set 0 has the same transform (none counts as the identity), that transform becomes
//! [`Material::uv_transform`](crate::mesh::Material::uv_transform) and the loader applies it to
//! the UVs of every primitive that uses the material. gltfpack writes its UV dequantisation
//! this way (one transform repeated on every texture). When they differ none is applied, with a
//! warning naming the material. The extension's `texCoord` overrides the texture's own.

use glam::Vec2;
use gltf::json::Value;

use crate::gltf::names::KHR_TEXTURE_TRANSFORM;
use crate::mesh::{ErrorKind, TextureTransform};
use crate::{Warning, WarningKind};

/// One texture of a material: which one (for messages), the UV set it reads after the
/// extension's `texCoord` override, and its transform.
pub(super) struct Slot {
    pub(super) which: &'static str,
    pub(super) tex_coord: u32,
    pub(super) transform: Option<TextureTransform>,
}

/// Reads a texture info's KHR_texture_transform (`ext` is the extension's object): the
/// transform, and the `texCoord` it overrides the texture's with, if it has one.
///
/// # Errors
/// A value of the wrong type or not finite, naming the material and the texture.
pub(super) fn parse(
    ext: &Value,
    material: &str,
    which: &str,
) -> Result<(TextureTransform, Option<u32>), ErrorKind> {
    let bad = |what: String| {
        ErrorKind::InvalidGltf(format!(
            "material '{material}': {which} texture's {KHR_TEXTURE_TRANSFORM}: {what}"
        ))
    };
    let number = |v: &Value, key: &str| -> Result<f32, ErrorKind> {
        v.as_f64()
            .map(|x| x as f32)
            .filter(|x| x.is_finite())
            .ok_or_else(|| bad(format!("{key} is {v}, not a finite number")))
    };
    let pair = |key: &str, default: Vec2| -> Result<Vec2, ErrorKind> {
        match ext.get(key) {
            None => Ok(default),
            Some(Value::Array(a)) if a.len() == 2 => {
                Ok(Vec2::new(number(&a[0], key)?, number(&a[1], key)?))
            }
            Some(v) => Err(bad(format!("{key} is {v}, not two numbers"))),
        }
    };
    let transform = TextureTransform {
        offset: pair("offset", Vec2::ZERO)?,
        rotation: ext
            .get("rotation")
            .map_or(Ok(0.0), |v| number(v, "rotation"))?,
        scale: pair("scale", Vec2::ONE)?,
    };
    let tex_coord = match ext.get("texCoord") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|c| u32::try_from(c).ok())
                .ok_or_else(|| bad(format!("texCoord is {v}, not a set index")))?,
        ),
    };
    Ok((transform, tex_coord))
}

/// The transform to apply to the UVs of the material's primitives (see the module docs), with
/// warnings for transforms that differ or sit on a UV set other than 0.
pub(super) fn shared(
    material: &str,
    slots: &[Slot],
    warnings: &mut Vec<Warning>,
) -> Option<TextureTransform> {
    let place = || format!("material '{material}'");
    for s in slots
        .iter()
        .filter(|s| s.tex_coord != 0 && s.transform.is_some())
    {
        warnings.push(Warning::new(
            place(),
            WarningKind::TextureTransformOnOtherSet {
                texture: s.which,
                set: s.tex_coord,
            },
        ));
    }
    let on_set0: Vec<&Slot> = slots.iter().filter(|s| s.tex_coord == 0).collect();
    let first = on_set0.first()?;
    let all = |s: &&Slot| s.transform.unwrap_or(TextureTransform::IDENTITY);
    let shared = all(first);
    if on_set0.iter().all(|s| all(s) == shared) {
        return (shared != TextureTransform::IDENTITY).then_some(shared);
    }
    let transforms: Vec<String> = on_set0
        .iter()
        .map(|s| match s.transform {
            None => format!("{} none", s.which),
            Some(t) => format!(
                "{} offset [{}, {}] rotation {} scale [{}, {}]",
                s.which, t.offset.x, t.offset.y, t.rotation, t.scale.x, t.scale.y
            ),
        })
        .collect();
    warnings.push(Warning::new(
        place(),
        WarningKind::TextureTransformsDiffer { transforms },
    ));
    None
}
