//! glTF images stored as KTX 2.0 files, decoded to an [`image::DynamicImage`] the way a PNG is
//! (CPU only): level 0 of a 2D texture, uncompressed or BC1–BC7, optionally Zstandard- or
//! ZLIB-supercompressed, read by the one reader (`container.rs`).
//!
//! Format numbers are Vulkan's `VkFormat` values.
//!
//! # Output
//!
//! | vkFormat | output |
//! | --- | --- |
//! | 8-bit R, RG, RGB, BGR, RGBA, BGRA: UNORM, SRGB, SNORM | [`DynamicImage::ImageRgba8`] |
//! | 16-bit R, RG, RGB, RGBA: UNORM, SNORM | [`DynamicImage::ImageRgba16`] |
//! | 16-bit and 32-bit R, RG, RGB, RGBA: SFLOAT | [`DynamicImage::ImageRgba32F`] |
//! | BC1, BC2, BC3, BC7 (UNORM, SRGB); BC4, BC5 (UNORM, SNORM) | [`DynamicImage::ImageRgba8`] |
//! | BC6H (UFLOAT, SFLOAT) | [`DynamicImage::ImageRgba32F`] |
//!
//! - Missing channels are filled as a GPU samples them: G and B = 0, A = 1 (255, 65535, 1.0).
//!   R8 (and BC4) becomes (r, 0, 0, 255), R8G8 (and BC5) (r, g, 0, 255), R8G8B8 (r, g, b, 255).
//! - BGR and BGRA formats are reordered to RGB(A).
//! - sRGB formats: the stored bytes are returned unchanged (not linearised); the caller treats
//!   base colour as sRGB-encoded bytes anyway, exactly as it does a PNG's.
//! - SNORM formats map a stored value s to an unsigned one with the glTF normal-map convention:
//!   round((clamp(s / 127, −1, 1) + 1) / 2 · 255) for 8 bits (−128 reads as −127, 0 as 128,
//!   127 as 255), and likewise with 32767 and 65535 for 16 bits. Signed BC4/BC5 are decoded to
//!   signed bytes first and mapped the same way.
//! - BC blocks go through the crate's one BC decoder (`bc.rs`); sizes that are not a multiple
//!   of 4 are decoded from the padded blocks and cropped.
//! - A 1D texture (pixelHeight 0) decodes as one row.
//!
//! # Refused
//!
//! Basis Universal (supercompressionScheme 1, BasisLZ/ETC1S, or a DFD colour model of ETC1S or
//! UASTC, LDR or HDR) by name, any other vkFormat 0, any vkFormat not listed above (named as
//! Vulkan names it: ETC2, EAC, ASTC, PVRTC, …), 3D textures, cube maps, array textures,
//! supercompression schemes other than 0 (none), 2 (Zstandard) and 3 (ZLIB), and a Basic DFD
//! block whose texelBlockDimension is not the format's.
//!
//! # Not read
//!
//! Levels other than 0 (levelCount 0, "generate mips", still stores level 0), the key/value data
//! (so `KTXorientation` is not applied: rows are taken top-down, the KTX default `rd`, which is
//! what glTF's texture coordinates expect) and `KTXswizzle`, and the DFD's transfer function,
//! primaries and premultiplied-alpha flag.
//!
//! # Limits
//!
//! Level 0 may have at most 16384 × 16384 texels, and must be exactly the size its dimensions
//! and format give (stored, or after decompression). A supercompressed level's
//! uncompressedByteLength may be at most what its stored bytes can expand to
//! (`supercompression.rs`), so no buffer is made larger than the file can back; `ruzstd` itself
//! refuses frames whose window exceeds its default of 128 MiB (it reserves the declared window
//! up front, touching it only as data decodes).

mod formats;
#[cfg(test)]
#[path = "../../../tests/unit/ktx2/image/mod.rs"]
mod tests;

use image::{DynamicImage, ImageBuffer, Rgba};

use super::bc::{self, BcFormat};
use super::container::{self, Arrays, Container, OneD};
use super::{Ktx2Error, IDENTIFIER};
use formats::Layout;

/// Largest level 0 decoded: 16384 × 16384 texels (1 GiB as RGBA8, 4 GiB as RGBA32F).
const MAX_TEXELS: u64 = 16384 * 16384;

/// Data Format Descriptor colour models (Khronos Data Format spec) of Basis Universal data.
const BASIS_MODELS: [(u8, &str); 4] = [
    (163, "BasisLZ/ETC1S"),
    (166, "UASTC"),
    (167, "UASTC HDR 4x4"),
    (168, "UASTC HDR 6x6"),
];

/// True when `bytes` starts with the KTX2 identifier «KTX 20»\r\n\x1A\n.
#[must_use]
pub(crate) fn is_ktx2(bytes: &[u8]) -> bool {
    bytes.starts_with(&IDENTIFIER)
}

/// Decodes level 0 of a 2D (or 1D) KTX2 texture to an image.
///
/// See the module docs for the output image type of each format, how missing channels, sRGB
/// and SNORM data are treated, and what is refused.
///
/// # Errors
/// [`Ktx2Error::NotKtx2`], [`Truncated`](Ktx2Error::Truncated),
/// [`BasisUniversal`](Ktx2Error::BasisUniversal),
/// [`UndefinedFormat`](Ktx2Error::UndefinedFormat),
/// [`UnsupportedImageFormat`](Ktx2Error::UnsupportedImageFormat),
/// [`UnsupportedScheme`](Ktx2Error::UnsupportedScheme), [`NotTwoD`](Ktx2Error::NotTwoD),
/// [`TooManyTexels`](Ktx2Error::TooManyTexels), [`LevelSize`](Ktx2Error::LevelSize),
/// the `malformed: …` variants, [`Parse`](Ktx2Error::Parse); never a panic, and no
/// buffer larger than the file's bytes can back.
pub(crate) fn decode_image(bytes: &[u8]) -> Result<DynamicImage, Ktx2Error> {
    let header = container::header(bytes)?;
    container::check_scheme(&header)?;
    container::check_layers(&header, OneD::OneRow, Arrays::Refused)?;
    let (width, height) = (header.pixel_width, header.pixel_height.max(1));
    if u64::from(width) * u64::from(height) > MAX_TEXELS {
        return Err(Ktx2Error::TooManyTexels { width, height });
    }
    let vk_format = header.format.map_or(0, |f| f.value());
    let layout = match vk_format {
        0 => None,
        v => Some(formats::layout(v).ok_or(Ktx2Error::UnsupportedImageFormat { vk_format })?),
    };
    let c = Container::new(bytes, header)?;
    let basic_blocks = basic_blocks(c.dfd);
    let Some(layout) = layout else {
        return Err(undefined_format(basic_blocks.as_deref()));
    };
    check_block_size(basic_blocks, vk_format, layout)?;
    let expected = layout.level_bytes(width, height);
    c.check_level(0, expected, (width, height), vk_format)?;
    c.check_extents()?;
    let reader = c.reader()?;
    let level = Container::level(&reader, 0)?;
    to_image(&level, layout, width, height).ok_or(Ktx2Error::LevelSize {
        level: 0,
        len: level.len() as u64,
        expected,
        width,
        height,
        vk_format,
    })
}

/// The bodies (from colorModel on) of the DFD's Khronos Basic blocks, walking the blocks as
/// the `ktx2` crate will; `None` when the blocks do not tile the DFD.
fn basic_blocks(dfd: &[u8]) -> Option<Vec<&[u8]>> {
    let mut blocks = Vec::new();
    let mut rest = dfd.get(4..)?; // after dfdTotalSize
    while !rest.is_empty() {
        // vendorId (17 bits) | descriptorType (15 bits), versionNumber, descriptorBlockSize.
        let word = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
        let size = usize::from(u16::from_le_bytes(rest.get(6..8)?.try_into().ok()?));
        let block = rest.get(8..size)?;
        if word == 0 {
            blocks.push(block);
        }
        rest = &rest[size..];
    }
    Some(blocks)
}

/// The error for vkFormat 0: Basis Universal when the first Basic block's colour model is one
/// of its models, else [`Ktx2Error::UndefinedFormat`].
fn undefined_format(basic_blocks: Option<&[&[u8]]>) -> Ktx2Error {
    let color_model = basic_blocks.and_then(|b| b.first()?.first().copied());
    match BASIS_MODELS.iter().find(|(m, _)| Some(*m) == color_model) {
        Some(&(_, kind)) => Ktx2Error::BasisUniversal { kind },
        None => Ktx2Error::UndefinedFormat { color_model },
    }
}

/// Checks that the DFD's blocks tile it and every Basic block's texelBlockDimension is the
/// format's (1 × 1 or 4 × 4) — which also keeps a 255, on which the `ktx2` crate's DFD parser
/// panics, from reaching it.
fn check_block_size(
    basic_blocks: Option<Vec<&[u8]>>,
    vk_format: u32,
    layout: Layout,
) -> Result<(), Ktx2Error> {
    let edge = layout.block_edge() - 1;
    let expected = [edge, edge, 0, 0];
    let blocks = basic_blocks.ok_or(Ktx2Error::DfdBlocks(0))?;
    for block in blocks {
        let found = block.get(4..8).and_then(|d| d.try_into().ok());
        if found != Some(expected) {
            return Err(Ktx2Error::DfdBlockSize {
                vk_format,
                found: found.unwrap_or_default(),
                expected,
            });
        }
    }
    Ok(())
}

/// Level 0's bytes as an image; `None` where they do not make `width` × `height` texels (the
/// caller checks the level's length against [`Layout::level_bytes`] first, so they do).
fn to_image(data: &[u8], layout: Layout, width: u32, height: u32) -> Option<DynamicImage> {
    use formats::{snorm16, snorm8, unpack};
    let image = match layout {
        Layout::Int8 {
            channels,
            bgr,
            snorm,
        } => {
            let read: fn(&[u8]) -> u8 = if snorm { |b| snorm8(b[0]) } else { |b| b[0] };
            let px = unpack(data, 1, channels, bgr, [0, 0, 0, u8::MAX], read);
            DynamicImage::ImageRgba8(buffer(width, height, px)?)
        }
        Layout::Int16 { channels, snorm } => {
            let read: fn(&[u8]) -> u16 = if snorm {
                |b| snorm16(b[0], b[1])
            } else {
                |b| u16::from_le_bytes([b[0], b[1]])
            };
            let px = unpack(data, 2, channels, false, [0, 0, 0, u16::MAX], read);
            DynamicImage::ImageRgba16(buffer(width, height, px)?)
        }
        Layout::Half { channels } => {
            let px = unpack(data, 2, channels, false, [0.0, 0.0, 0.0, 1.0], |b| {
                half::f16::from_le_bytes([b[0], b[1]]).to_f32()
            });
            DynamicImage::ImageRgba32F(buffer(width, height, px)?)
        }
        Layout::Float { channels } => {
            let px = unpack(data, 4, channels, false, [0.0, 0.0, 0.0, 1.0], |b| {
                f32::from_le_bytes([b[0], b[1], b[2], b[3]])
            });
            DynamicImage::ImageRgba32F(buffer(width, height, px)?)
        }
        Layout::Block(bc @ BcFormat::Bc6h { .. }) => {
            let px = bc::decode_level(bc, width, height, data, BcFormat::block_f32);
            DynamicImage::ImageRgba32F(buffer(width, height, px.into_flattened())?)
        }
        Layout::Block(bc) => {
            let mut px = bc::decode_level(bc, width, height, data, BcFormat::block_rgba8);
            if let BcFormat::Bc4 { snorm: true } | BcFormat::Bc5 { snorm: true } = bc {
                let channels = if matches!(bc, BcFormat::Bc4 { .. }) {
                    1
                } else {
                    2
                };
                px.iter_mut()
                    .for_each(|t| t[..channels].iter_mut().for_each(|c| *c = snorm8(*c)));
            }
            DynamicImage::ImageRgba8(buffer(width, height, px.into_flattened())?)
        }
    };
    Some(image)
}

/// An image buffer from `width` × `height` RGBA texels; `None` for another number.
fn buffer<T: image::Primitive>(
    width: u32,
    height: u32,
    px: Vec<T>,
) -> Option<ImageBuffer<Rgba<T>, Vec<T>>>
where
    Rgba<T>: image::Pixel<Subpixel = T>,
{
    ImageBuffer::from_raw(width, height, px)
}
