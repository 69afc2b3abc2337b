//! Writing quaternion maps: OpenEXR (RGBA + handedness, all mips) and 8-bit PNG previews. CPU
//! only.
//!
//! # The EXR file
//!
//! One layer, tiled 64 × 64, ZIP-compressed (lossless), with every level of the map as an
//! OpenEXR mip level (`ROUND_DOWN`: level k+1 is ⌊size/2⌋, down to 1 × 1, as the bake's
//! makes them). Channels:
//!
//! | channel      | holds                              | type                                   |
//! |--------------|------------------------------------|----------------------------------------|
//! | `R G B A`    | quaternion x, y, z, w              | f16 for `rgba16f`, f32 for the others  |
//! | `handedness` | +1, −1; 0 for background           | f16                                    |
//!
//! Every stored value is exactly the texel's quantised value: an f16 map's values are f16, and
//! the snorm formats' values (k/32767, k/127) and f32 are exact in f32. The layer attribute
//! [`FORMAT_ATTRIBUTE`] names the [`MapFormat`], so [`read_exr`] gives back the same map.
//!
//! # PNG previews
//!
//! [`preview_rgba8`] shows one decoded axis of the frame per texel (normal by default) as
//! `rgb = axis · ½ + ½` (object space), with background transparent black;
//! [`handedness_gray8`] shows the handedness plane as gray levels. Both are level-sized and
//! aligned with the UV layout (row 0 at the top, v = 0).
//!
//! Writers never leave a partial file: they write a hidden temporary file next to the target
//! and rename it into place, removing it on failure.

use std::path::Path;
#[cfg(all(test, feature = "exr"))]
use std::path::PathBuf;

#[cfg(feature = "exr")]
use exr::math::{RoundingMode, Vec2};
#[cfg(feature = "exr")]
use exr::prelude::{
    f16, AnyChannel, AnyChannels, AttributeValue, Blocks, Compression, Encoding, FlatSamples,
    Image, Layer, LayerAttributes, Levels, LineOrder, SmallVec, Text, WritableImage,
};
#[cfg(all(test, feature = "exr"))]
use exr::prelude::{ReadChannels, ReadLayers};
use glam::{Vec3, Vec4};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};

use super::{BakeError, MapLevel};
#[cfg(feature = "exr")]
use super::{MapFormat, QuatMap};

/// Name of the EXR layer attribute (text) that holds [`MapFormat::name`].
#[cfg(feature = "exr")]
pub(crate) const FORMAT_ATTRIBUTE: &str = "qtangentMapFormat";

/// Name of the handedness channel.
#[cfg(feature = "exr")]
pub(crate) const HANDEDNESS_CHANNEL: &str = "handedness";

/// EXR tile size (texels a side) for every level.
#[cfg(feature = "exr")]
pub(crate) const TILE_SIZE: usize = 64;

/// Writes to a hidden temporary file in `path`'s folder with `write`, then renames it to
/// `path`; the temporary file is removed when `write` or the rename fails.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), BakeError> {
    let fail = |problem: String| BakeError::Write {
        path: path.to_path_buf(),
        problem,
    };
    let name = path
        .file_name()
        .ok_or_else(|| fail("not a file name".into()))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(|e| e.to_string()));
    if let Err(problem) = result {
        // The write failed already; a temporary file that cannot be removed adds nothing.
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(problem));
    }
    Ok(())
}

#[cfg(feature = "exr")]
/// Writes `map` as OpenEXR (see the module docs for the layout): all levels, R, G, B, A = the
/// quaternion's x, y, z, w (f16 for [`MapFormat::Rgba16Float`], f32 for the other formats, so
/// the stored values are exact) and `handedness` (f16 ±1, 0 = background). ZIP compression,
/// 64 × 64 tiles, mip levels rounded down.
///
/// Writes to a temporary file and renames it, so `path` is either the whole map or untouched.
///
/// # Errors
/// [`BakeError::Write`] naming `path` when the file cannot be written.
pub(crate) fn write_exr(map: &QuatMap, path: &Path) -> Result<(), BakeError> {
    let f16s = map.format == MapFormat::Rgba16Float;
    let component = |i: usize| -> Vec<FlatSamples> {
        map.levels
            .iter()
            .map(|l| {
                let v = l.quats.iter().map(|q| q[i]);
                if f16s {
                    FlatSamples::F16(v.map(f16::from_f32).collect())
                } else {
                    FlatSamples::F32(v.collect())
                }
            })
            .collect()
    };
    let hand: Vec<FlatSamples> = map
        .levels
        .iter()
        .map(|l| {
            FlatSamples::F16(
                l.handedness
                    .iter()
                    .map(|&h| f16::from_f32(f32::from(h)))
                    .collect(),
            )
        })
        .collect();
    let channel = |name: &str, level_data: Vec<FlatSamples>| AnyChannel {
        name: Text::from(name),
        sample_data: Levels::Mip {
            rounding_mode: RoundingMode::Down,
            level_data,
        },
        // Only lossy compressors read this; the data is not a colour, so no perceptual curve.
        quantize_linearly: true,
        sampling: Vec2(1, 1),
    };
    let channels = AnyChannels::sort(SmallVec::from_vec(vec![
        channel("R", component(0)),
        channel("G", component(1)),
        channel("B", component(2)),
        channel("A", component(3)),
        channel(HANDEDNESS_CHANNEL, hand),
    ]));
    let size = Vec2(map.width() as usize, map.height() as usize);
    let mut attributes = LayerAttributes {
        software_name: Some(Text::from("qtangent")),
        comments: Some(Text::from(
            "quaternion map: RGBA = unit quaternion (x, y, z, w) of the object-space rotation \
             [t, cross(n, t), n]; handedness = sign of the bitangent against cross(n, t), \
             0 = background",
        )),
        ..LayerAttributes::default()
    };
    attributes.other.insert(
        Text::from(FORMAT_ATTRIBUTE),
        AttributeValue::Text(Text::from(map.format.name())),
    );
    let encoding = Encoding {
        compression: Compression::ZIP16,
        blocks: Blocks::Tiles(Vec2(TILE_SIZE, TILE_SIZE)),
        line_order: LineOrder::Increasing,
    };
    let image = Image::from_layer(Layer::new(size, attributes, encoding, channels));
    write_atomically(path, |tmp| {
        image.write().to_file(tmp).map_err(|e| e.to_string())
    })
}

#[cfg(test)]
#[cfg(feature = "exr")]
/// A quaternion map read back from a file `write_exr` wrote.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExrMap {
    /// The format named by `FORMAT_ATTRIBUTE`.
    pub format: MapFormat,
    /// Level 0 first, down to 1 × 1.
    pub levels: Vec<MapLevel>,
}

#[cfg(test)]
#[cfg(feature = "exr")]
/// Reading a quaternion-map EXR failed.
#[derive(Debug, thiserror::Error)]
#[error("reading {}: {problem}", path.display())]
pub(crate) struct ReadExrError {
    /// The file.
    pub(crate) path: PathBuf,
    /// What is wrong.
    pub(crate) problem: String,
}

#[cfg(test)]
#[cfg(feature = "exr")]
/// Reads a file written by `write_exr`: every level's quaternions and handedness, exactly as
/// stored, and the format. Strict: any other layout is an error.
///
/// # Errors
/// [`ReadExrError`] naming the file: unreadable, not EXR, no `FORMAT_ATTRIBUTE`, a channel
/// missing or of the wrong type, levels that are not mips, handedness other than ±1 or 0.
pub(crate) fn read_exr(path: &Path) -> Result<ExrMap, ReadExrError> {
    let fail = |problem: String| ReadExrError {
        path: path.to_path_buf(),
        problem,
    };
    let image = exr::prelude::read()
        .no_deep_data()
        .all_resolution_levels()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .pedantic()
        .from_file(path)
        .map_err(|e| fail(e.to_string()))?;
    let layer = &image.layer_data;
    let format = match layer.attributes.other.get(&Text::from(FORMAT_ATTRIBUTE)) {
        Some(AttributeValue::Text(t)) => t
            .to_string()
            .parse::<MapFormat>()
            .ok()
            .filter(|f| !f.is_compressed())
            .ok_or_else(|| fail(format!("unknown map format '{t}'")))?,
        _ => return Err(fail(format!("no {FORMAT_ATTRIBUTE} attribute"))),
    };
    let find = |name: &str| -> Result<&[FlatSamples], ReadExrError> {
        let channel = layer
            .channel_data
            .list
            .iter()
            .find(|c| c.name == *name)
            .ok_or_else(|| fail(format!("no channel '{name}'")))?;
        match &channel.sample_data {
            Levels::Mip {
                rounding_mode: RoundingMode::Down,
                level_data,
            } => Ok(level_data),
            _ => Err(fail(format!(
                "channel '{name}' does not hold mip levels rounded down"
            ))),
        }
    };
    let rgba = ["R", "G", "B", "A"].map(find);
    let hand = find(HANDEDNESS_CHANNEL)?;
    let mut rgba_levels: Vec<&[FlatSamples]> = Vec::with_capacity(4);
    for c in rgba {
        rgba_levels.push(c?);
    }
    let mut levels = Vec::with_capacity(hand.len());
    for (k, (_, level_size)) in
        exr::meta::mip_map_levels(RoundingMode::Down, layer.size).enumerate()
    {
        let channels = [0, 1, 2, 3].map(|c| &rgba_levels[c][k]);
        levels.push(exr_level(format, k, level_size, channels, &hand[k]).map_err(fail)?);
    }
    Ok(ExrMap { format, levels })
}

#[cfg(test)]
#[cfg(feature = "exr")]
/// Level `k` of a map read by [`read_exr`] from its R, G, B, A and handedness samples.
///
/// # Errors
/// The problem, for [`ReadExrError::problem`].
fn exr_level(
    format: MapFormat,
    k: usize,
    size: exr::math::Vec2<usize>,
    rgba: [&FlatSamples; 4],
    hand: &FlatSamples,
) -> Result<MapLevel, String> {
    let n = size.area();
    let want_f16 = format == MapFormat::Rgba16Float;
    let mut comps: Vec<Vec<f32>> = Vec::with_capacity(4);
    for (s, name) in rgba.into_iter().zip(["R", "G", "B", "A"]) {
        let v = match (s, want_f16) {
            (FlatSamples::F16(v), true) => v.iter().map(|x| x.to_f32()).collect(),
            (FlatSamples::F32(v), false) => v.clone(),
            _ => {
                return Err(format!(
                    "channel '{name}' has the wrong sample type for {format}"
                ))
            }
        };
        if v.len() != n {
            return Err(format!("channel '{name}' level {k} has {} values", v.len()));
        }
        comps.push(v);
    }
    let handedness = match hand {
        FlatSamples::F16(v) if v.len() == n => v
            .iter()
            .map(|h| match h.to_f32() {
                1.0 => Ok(1),
                -1.0 => Ok(-1),
                0.0 => Ok(0),
                other => Err(format!("handedness {other} in level {k}")),
            })
            .collect::<Result<Vec<i8>, _>>()?,
        _ => {
            return Err(format!(
                "channel '{HANDEDNESS_CHANNEL}' level {k} is not {n} f16 values"
            ))
        }
    };
    let quats = (0..n)
        .map(|i| Vec4::new(comps[0][i], comps[1][i], comps[2][i], comps[3][i]))
        .collect();
    Ok(MapLevel {
        width: size.width() as u32,
        height: size.height() as u32,
        quats,
        handedness,
    })
}

/// Which axis of the frame a preview shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum PreviewAxis {
    /// Column 2 of the rotation: the normal. The default: an object-space normal map.
    #[default]
    Normal,
    /// Column 0: the tangent (the direction of +u). Shows where the tangent field turns or
    /// breaks, which the normal view hides (the tests look at it; the tools write normals).
    #[cfg_attr(not(test), allow(dead_code))]
    Tangent,
}

/// The unit vector `axis` of the rotation `q` (x, y, z, w; normalised first, so a filtered or
/// quantised texel decodes the same way a shader's nlerp does). `None` for a zero quaternion
/// (background).
#[must_use]
pub(crate) fn decode_axis(q: Vec4, axis: PreviewAxis) -> Option<Vec3> {
    let len2 = q.length_squared();
    if len2 < 1e-12 {
        return None;
    }
    let q = q / len2.sqrt();
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    Some(match axis {
        PreviewAxis::Normal => Vec3::new(
            2.0 * (x * z + w * y),
            2.0 * (y * z - w * x),
            1.0 - 2.0 * (x * x + y * y),
        ),
        PreviewAxis::Tangent => Vec3::new(
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + w * z),
            2.0 * (x * z - w * y),
        ),
    })
}

/// An 8-bit picture of one level for people: each texel's decoded `axis` (see [`decode_axis`])
/// in object space as `rgb = round((axis · ½ + ½) · 255)`, alpha 255; background texels
/// (handedness 0) transparent black (0, 0, 0, 0). Same size and orientation as the level, so it
/// lies over the UV layout. The colours do not depend on the sign of q, so hemisphere flips do
/// not show.
#[must_use]
pub(crate) fn preview_rgba8(level: &MapLevel, axis: PreviewAxis) -> image::RgbaImage {
    let mut out = image::RgbaImage::new(level.width, level.height);
    for (px, (q, h)) in out
        .pixels_mut()
        .zip(level.quats.iter().zip(&level.handedness))
    {
        if *h == 0 {
            continue;
        }
        if let Some(v) = decode_axis(*q, axis) {
            let c = |x: f32| ((x.clamp(-1.0, 1.0) * 0.5 + 0.5) * 255.0).round() as u8;
            *px = image::Rgba([c(v.x), c(v.y), c(v.z), 255]);
        }
    }
    out
}

/// The handedness plane as 8-bit gray: 255 for +1, 0 for −1 (mirrored), 128 for background.
#[must_use]
pub(crate) fn handedness_gray8(level: &MapLevel) -> image::GrayImage {
    let mut out = image::GrayImage::new(level.width, level.height);
    for (px, h) in out.pixels_mut().zip(&level.handedness) {
        *px = image::Luma([match h.signum() {
            1 => 255,
            -1 => 0,
            _ => 128,
        }]);
    }
    out
}

/// Encodes 8-bit pixels as PNG with `compression`.
fn write_png(
    path: &Path,
    pixels: &[u8],
    (width, height): (u32, u32),
    color: image::ExtendedColorType,
    compression: CompressionType,
) -> Result<(), BakeError> {
    use image::ImageEncoder as _;
    write_atomically(path, |tmp| {
        let file = std::fs::File::create(tmp).map_err(|e| e.to_string())?;
        let mut w = std::io::BufWriter::new(file);
        PngEncoder::new_with_quality(&mut w, compression, FilterType::Adaptive)
            .write_image(pixels, width, height, color)
            .map_err(|e| e.to_string())?;
        std::io::Write::flush(&mut w).map_err(|e| e.to_string())
    })
}

/// Writes `preview_rgba8` of `level` as PNG (through a temporary file, like [`write_exr`]).
///
/// # Errors
/// [`BakeError::Write`] naming `path`.
pub(crate) fn write_preview(
    level: &MapLevel,
    axis: PreviewAxis,
    path: &Path,
) -> Result<(), BakeError> {
    let img = preview_rgba8(level, axis);
    // zlib's fastest level: a 2048² preview in 0.2 s and 4.3 MB, against 1.5 s and 2.6 MB at
    // the default level.
    write_png(
        path,
        img.as_raw(),
        img.dimensions(),
        image::ExtendedColorType::Rgba8,
        CompressionType::Fast,
    )
}

/// Writes [`handedness_gray8`] of `level` as PNG (through a temporary file, like
/// [`write_exr`]).
///
/// # Errors
/// [`BakeError::Write`] naming `path`.
pub(crate) fn write_handedness_png(level: &MapLevel, path: &Path) -> Result<(), BakeError> {
    let img = handedness_gray8(level);
    // Mostly flat: the default level costs little here and shrinks it threefold.
    write_png(
        path,
        img.as_raw(),
        img.dimensions(),
        image::ExtendedColorType::L8,
        CompressionType::Default,
    )
}
