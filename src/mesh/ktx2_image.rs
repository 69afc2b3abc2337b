//! glTF images stored as KTX 2.0 files, decoded to an [`image::DynamicImage`] the way a PNG is
//! (CPU only): level 0 of a 2D texture, uncompressed or BC1–BC7, optionally Zstandard- or
//! ZLIB-supercompressed.
//!
//! Spec: KTX 2.0 <https://registry.khronos.org/KTX/specs/2.0/ktxspec.v2.html>; format numbers
//! are Vulkan's `VkFormat` values. The 80-byte header, the level index and the DFD's colour
//! model are read here (not with the `ktx2` crate, which panics on some crafted DFDs); every
//! offset and length is checked against the byte count before it is used, so a truncated or
//! crafted file gives an error, never a panic or an allocation its bytes cannot back.
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
//! - BC1 RGB formats are opaque: the 3-colour mode's fourth entry is black with alpha 255, as
//!   Vulkan specifies; the BC1 RGBA formats keep it transparent (alpha 0).
//! - Sizes that are not a multiple of 4 are decoded from the padded blocks and cropped.
//! - A 1D texture (pixelHeight 0) decodes as one row.
//!
//! BC blocks are decoded by the `bcdec_rs` crate; Zstandard by `ruzstd` and ZLIB by `flate2`
//! (both pure Rust).
//!
//! # Refused
//!
//! With a one-line message, without the file name (the caller adds it): Basis Universal
//! (supercompressionScheme 1, BasisLZ/ETC1S, or a DFD colour model of ETC1S or UASTC, LDR or
//! HDR), any other vkFormat 0, any vkFormat not listed above (ETC2/EAC, ASTC and PVRTC are
//! named), 3D textures, cube maps, array textures, and supercompression schemes other than 0
//! (none), 2 (Zstandard) and 3 (ZLIB).
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
//! uncompressedByteLength may be at most what its stored bytes can expand to (32768 : 1 for
//! Zstandard, 1032 : 1 for deflate, derived where the constants are defined), so no buffer is
//! made larger than the file can back; `ruzstd` itself refuses frames whose window exceeds its
//! default of 128 MiB (it reserves the declared window up front, touching it only as data
//! decodes).

use std::borrow::Cow;
use std::io::Read;

use image::{DynamicImage, ImageBuffer, Rgba};

/// The 12 bytes every KTX 2.0 file starts with: `«KTX 20»\r\n\x1A\n`.
const IDENTIFIER: [u8; 12] = [
    0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, b'\r', b'\n', 0x1A, b'\n',
];
/// The header: identifier, nine u32 fields, then the index (four u32, two u64).
const HEADER_LEN: usize = 80;
/// A level index entry: byteOffset, byteLength, uncompressedByteLength (u64 each).
const LEVEL_ENTRY_LEN: u64 = 24;
/// Largest level 0 decoded: 16384 × 16384 texels (1 GiB as RGBA8, 4 GiB as RGBA32F).
const MAX_TEXELS: u64 = 16384 * 16384;
/// Largest output a Zstandard stream can give per input byte. A block holds at most 128 KiB of
/// content (`Block_Maximum_Size`, RFC 8878 §3.1.1.2.4) and costs at least 4 bytes (its 3-byte
/// header and, for an RLE block, the 1 repeated byte), so no frame expands more than
/// 131072 / 4 = 32768 : 1; frame headers and skippable frames only lower the ratio.
const MAX_ZSTD_RATIO: u64 = 32768;
/// Largest output a ZLIB stream can give per input byte: deflate's limit of 258 bytes (one
/// longest match) per 2 bits (a 1-bit length code and a 1-bit distance code in a dynamic Huffman
/// block) is 1032 : 1; the block headers and the zlib header and checksum only lower it.
const MAX_DEFLATE_RATIO: u64 = 1032;
/// What to do with a Basis Universal texture.
const BASIS_HINT: &str = "transcode to BC7 or an uncompressed format with `ktx transcode`";

/// Data Format Descriptor colour models (Khronos Data Format spec) of Basis Universal data.
const MODEL_ETC1S: u8 = 163;
const MODEL_UASTC: u8 = 166;
const MODEL_UASTC_HDR_4X4: u8 = 167;
const MODEL_UASTC_HDR_6X6: u8 = 168;

/// True when `bytes` starts with the KTX2 identifier «KTX 20»\r\n\x1A\n.
#[must_use]
pub fn is_ktx2(bytes: &[u8]) -> bool {
    bytes.starts_with(&IDENTIFIER)
}

/// Decodes level 0 of a 2D KTX2 texture to an image.
///
/// See the module docs for the output image type of each format, how missing channels, sRGB
/// and SNORM data are treated, and what is refused.
///
/// # Errors
///
/// One line, starting `KTX2: ` and without the file name (the caller adds it), e.g.
/// "KTX2: Basis Universal (BasisLZ/ETC1S) textures are not supported: transcode to BC7 or an
/// uncompressed format with `ktx transcode`" or "KTX2: truncated: level 0 needs 65536 bytes at
/// offset 208, the file has 1000".
pub fn decode(bytes: &[u8]) -> Result<DynamicImage, String> {
    decode_level0(bytes).map_err(|e| format!("KTX2: {}", e.replace(['\r', '\n'], " ")))
}

/// How a format's texels are stored.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// `channels` bytes a texel; B and R swapped when `bgr`; SNORM when `snorm`, else UNORM or
    /// sRGB (whose bytes are kept).
    Int8 {
        channels: usize,
        bgr: bool,
        snorm: bool,
    },
    /// `channels` little-endian u16 (UNORM) or i16 (SNORM) a texel.
    Int16 { channels: usize, snorm: bool },
    /// `channels` little-endian binary16 floats a texel.
    Half { channels: usize },
    /// `channels` little-endian binary32 floats a texel.
    Float { channels: usize },
    /// 4 × 4 texel blocks decoded to 8 bits a channel.
    Block(Bc),
    /// BC6H: 16-byte 4 × 4 blocks of RGB floats, unsigned or `signed`.
    Bc6h { signed: bool },
}

/// The block-compressed formats.
#[derive(Debug, Clone, Copy)]
enum Bc {
    /// BC1; `opaque` for the RGB formats (alpha always 255).
    Bc1 {
        opaque: bool,
    },
    Bc2,
    Bc3,
    Bc4 {
        snorm: bool,
    },
    Bc5 {
        snorm: bool,
    },
    Bc7,
}

impl Bc {
    /// Bytes in one 4 × 4 block.
    fn block_bytes(self) -> usize {
        match self {
            Bc::Bc1 { .. } | Bc::Bc4 { .. } => 8,
            _ => 16,
        }
    }
}

// Short constructors for the table below.
const fn int8(channels: usize, bgr: bool, snorm: bool) -> Layout {
    Layout::Int8 {
        channels,
        bgr,
        snorm,
    }
}
const fn int16(channels: usize, snorm: bool) -> Layout {
    Layout::Int16 { channels, snorm }
}
const fn half(channels: usize) -> Layout {
    Layout::Half { channels }
}
const fn float(channels: usize) -> Layout {
    Layout::Float { channels }
}
const fn bc1(opaque: bool) -> Layout {
    Layout::Block(Bc::Bc1 { opaque })
}
const fn bc4(snorm: bool) -> Layout {
    Layout::Block(Bc::Bc4 { snorm })
}
const fn bc5(snorm: bool) -> Layout {
    Layout::Block(Bc::Bc5 { snorm })
}
const fn bc6h(signed: bool) -> Layout {
    Layout::Bc6h { signed }
}

/// The supported vkFormats (Vulkan's numbers, which the tests take from the `ktx2` crate's
/// constants), their names without `VK_FORMAT_`, and layouts.
const FORMATS: &[(u32, &str, Layout)] = &[
    (9, "R8_UNORM", int8(1, false, false)),
    (10, "R8_SNORM", int8(1, false, true)),
    (15, "R8_SRGB", int8(1, false, false)),
    (16, "R8G8_UNORM", int8(2, false, false)),
    (17, "R8G8_SNORM", int8(2, false, true)),
    (22, "R8G8_SRGB", int8(2, false, false)),
    (23, "R8G8B8_UNORM", int8(3, false, false)),
    (24, "R8G8B8_SNORM", int8(3, false, true)),
    (29, "R8G8B8_SRGB", int8(3, false, false)),
    (30, "B8G8R8_UNORM", int8(3, true, false)),
    (31, "B8G8R8_SNORM", int8(3, true, true)),
    (36, "B8G8R8_SRGB", int8(3, true, false)),
    (37, "R8G8B8A8_UNORM", int8(4, false, false)),
    (38, "R8G8B8A8_SNORM", int8(4, false, true)),
    (43, "R8G8B8A8_SRGB", int8(4, false, false)),
    (44, "B8G8R8A8_UNORM", int8(4, true, false)),
    (45, "B8G8R8A8_SNORM", int8(4, true, true)),
    (50, "B8G8R8A8_SRGB", int8(4, true, false)),
    (70, "R16_UNORM", int16(1, false)),
    (71, "R16_SNORM", int16(1, true)),
    (76, "R16_SFLOAT", half(1)),
    (77, "R16G16_UNORM", int16(2, false)),
    (78, "R16G16_SNORM", int16(2, true)),
    (83, "R16G16_SFLOAT", half(2)),
    (84, "R16G16B16_UNORM", int16(3, false)),
    (85, "R16G16B16_SNORM", int16(3, true)),
    (90, "R16G16B16_SFLOAT", half(3)),
    (91, "R16G16B16A16_UNORM", int16(4, false)),
    (92, "R16G16B16A16_SNORM", int16(4, true)),
    (97, "R16G16B16A16_SFLOAT", half(4)),
    (100, "R32_SFLOAT", float(1)),
    (103, "R32G32_SFLOAT", float(2)),
    (106, "R32G32B32_SFLOAT", float(3)),
    (109, "R32G32B32A32_SFLOAT", float(4)),
    (131, "BC1_RGB_UNORM_BLOCK", bc1(true)),
    (132, "BC1_RGB_SRGB_BLOCK", bc1(true)),
    (133, "BC1_RGBA_UNORM_BLOCK", bc1(false)),
    (134, "BC1_RGBA_SRGB_BLOCK", bc1(false)),
    (135, "BC2_UNORM_BLOCK", Layout::Block(Bc::Bc2)),
    (136, "BC2_SRGB_BLOCK", Layout::Block(Bc::Bc2)),
    (137, "BC3_UNORM_BLOCK", Layout::Block(Bc::Bc3)),
    (138, "BC3_SRGB_BLOCK", Layout::Block(Bc::Bc3)),
    (139, "BC4_UNORM_BLOCK", bc4(false)),
    (140, "BC4_SNORM_BLOCK", bc4(true)),
    (141, "BC5_UNORM_BLOCK", bc5(false)),
    (142, "BC5_SNORM_BLOCK", bc5(true)),
    (143, "BC6H_UFLOAT_BLOCK", bc6h(false)),
    (144, "BC6H_SFLOAT_BLOCK", bc6h(true)),
    (145, "BC7_UNORM_BLOCK", Layout::Block(Bc::Bc7)),
    (146, "BC7_SRGB_BLOCK", Layout::Block(Bc::Bc7)),
];

/// The family of a known but unsupported compressed vkFormat, for the error message.
fn unsupported_family(vk_format: u32) -> Option<&'static str> {
    match vk_format {
        147..=152 => Some("ETC2"),
        153..=156 => Some("EAC"),
        157..=184 | 1_000_066_000..=1_000_066_013 | 1_000_288_000..=1_000_288_029 => Some("ASTC"),
        1_000_054_000..=1_000_054_007 => Some("PVRTC"),
        _ => None,
    }
}

/// The header fields this decoder uses.
struct Header {
    vk_format: u32,
    width: u32,
    height: u32,
    depth: u32,
    layers: u32,
    faces: u32,
    levels: u32,
    scheme: u32,
    dfd_offset: u32,
    dfd_length: u32,
}

impl Header {
    fn parse(head: &[u8; HEADER_LEN]) -> Header {
        let u32_at =
            |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        Header {
            vk_format: u32_at(12),
            width: u32_at(20),
            height: u32_at(24),
            depth: u32_at(28),
            layers: u32_at(32),
            faces: u32_at(36),
            levels: u32_at(40),
            scheme: u32_at(44),
            dfd_offset: u32_at(48),
            dfd_length: u32_at(52),
        }
    }
}

/// Reads the little-endian u64 at `at` (the caller has checked that 8 bytes are there).
fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut le = [0u8; 8];
    le.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(le)
}

/// The colour model of the DFD's first descriptor block when it is a Khronos basic block
/// (vendorId 0, descriptorType 0) that lies inside the file and the DFD; `None` otherwise.
fn dfd_color_model(bytes: &[u8], header: &Header) -> Option<u8> {
    let start = usize::try_from(header.dfd_offset).ok()?;
    let end = start.checked_add(usize::try_from(header.dfd_length).ok()?)?;
    let dfd = bytes.get(start..end)?;
    // dfdTotalSize (u32), then the block: vendorId (17 bits) | descriptorType (15 bits) (u32),
    // versionNumber (u16), descriptorBlockSize (u16), colorModel (u8), ...
    let word = u32::from_le_bytes(dfd.get(4..8)?.try_into().ok()?);
    let block_size = u16::from_le_bytes(dfd.get(10..12)?.try_into().ok()?);
    if word != 0 || block_size < 24 {
        return None;
    }
    dfd.get(12).copied()
}

/// The error for Basis Universal data with DFD colour model `model`, if it is one.
fn basis_error(model: u8) -> Option<String> {
    let kind = match model {
        MODEL_ETC1S => "BasisLZ/ETC1S",
        MODEL_UASTC => "UASTC",
        MODEL_UASTC_HDR_4X4 => "UASTC HDR 4x4",
        MODEL_UASTC_HDR_6X6 => "UASTC HDR 6x6",
        _ => return None,
    };
    Some(format!(
        "Basis Universal ({kind}) textures are not supported: {BASIS_HINT}"
    ))
}

/// [`decode`] without the `KTX2: ` prefix.
fn decode_level0(bytes: &[u8]) -> Result<DynamicImage, String> {
    if !is_ktx2(bytes) {
        return Err("not a KTX 2.0 file (its first 12 bytes are not the KTX2 identifier)".into());
    }
    let head: &[u8; HEADER_LEN] = bytes
        .get(..HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| {
            format!(
                "truncated: the header needs {HEADER_LEN} bytes, the file has {}",
                bytes.len()
            )
        })?;
    let h = Header::parse(head);
    refuse_basis(bytes, &h)?;
    let (width, height) = texture_2d(&h)?;
    let (name, layout) = format_of(h.vk_format)?;
    if !matches!(h.scheme, 0 | 2 | 3) {
        return Err(format!(
            "supercompressionScheme {} is not supported (0 none, 2 Zstandard and 3 ZLIB are)",
            h.scheme
        ));
    }
    let level_len = level_byte_length(layout, width, height);
    let level = level0(bytes, &h, level_len).map_err(|e| match e {
        LevelError::Size { what, got } => format!(
            "level 0 {what} {got} bytes, a {width}×{height} VK_FORMAT_{name} level is {level_len}"
        ),
        LevelError::Other(message) => message,
    })?;
    to_image(&level, layout, width, height)
}

/// Refuses Basis Universal data (supercompressionScheme 1, or a DFD colour model of ETC1S or
/// UASTC) and any other vkFormat 0.
fn refuse_basis(bytes: &[u8], h: &Header) -> Result<(), String> {
    if h.scheme == 1 {
        return Err(format!(
            "Basis Universal (BasisLZ/ETC1S) textures are not supported: {BASIS_HINT}"
        ));
    }
    let model = dfd_color_model(bytes, h);
    if let Some(message) = model.and_then(basis_error) {
        return Err(message);
    }
    if h.vk_format == 0 {
        return Err(match model {
            Some(m) => format!(
                "vkFormat 0 (VK_FORMAT_UNDEFINED) with DFD colour model {m} is not supported"
            ),
            None => {
                "vkFormat 0 (VK_FORMAT_UNDEFINED) without a readable DFD is not supported".into()
            }
        });
    }
    Ok(())
}

/// Level 0's width and height (1 for a 1D texture) when the header is a 2D texture (pixelDepth
/// 0, layerCount 0, faceCount 1) of at most [`MAX_TEXELS`].
fn texture_2d(h: &Header) -> Result<(u32, u32), String> {
    if h.depth > 0 {
        return Err(format!(
            "3D textures are not supported (pixelDepth {})",
            h.depth
        ));
    }
    if h.faces == 6 {
        return Err("cube maps are not supported (faceCount 6)".into());
    }
    if h.faces != 1 {
        return Err(format!("malformed: faceCount {} (must be 1 or 6)", h.faces));
    }
    if h.layers > 0 {
        return Err(format!(
            "array textures are not supported (layerCount {})",
            h.layers
        ));
    }
    if h.width == 0 {
        return Err("malformed: pixelWidth 0".into());
    }
    let (width, height) = (h.width, h.height.max(1));
    if u64::from(width) * u64::from(height) > MAX_TEXELS {
        return Err(format!(
            "{width}×{height} texels is over the limit of 16384×16384"
        ));
    }
    Ok((width, height))
}

/// The name (without `VK_FORMAT_`) and layout of a supported vkFormat.
fn format_of(vk_format: u32) -> Result<(&'static str, Layout), String> {
    FORMATS
        .iter()
        .find(|(vk, _, _)| *vk == vk_format)
        .map(|&(_, name, layout)| (name, layout))
        .ok_or_else(|| match unsupported_family(vk_format) {
            Some(family) => format!(
                "vkFormat {vk_format} ({family}) is not supported: re-encode the texture as BC1–BC7 or an uncompressed format"
            ),
            None => format!(
                "vkFormat {vk_format} is not supported (supported: 8-bit R/RG/RGB/BGR/RGBA/BGRA UNORM/SNORM/SRGB, 16-bit UNORM/SNORM/SFLOAT, 32-bit SFLOAT, BC1–BC7)"
            ),
        })
}

/// Why [`level0`] failed.
enum LevelError {
    /// The level's stored (`what` = "holds") or uncompressed size is `got`, not the size its
    /// dimensions and format give (the caller names those).
    Size { what: &'static str, got: u64 },
    /// Anything else, as the message.
    Other(String),
}

impl From<String> for LevelError {
    fn from(message: String) -> Self {
        LevelError::Other(message)
    }
}

/// Level 0's bytes, decompressed for schemes 2 and 3, checked to be exactly `level_len` bytes.
fn level0<'a>(bytes: &'a [u8], h: &Header, level_len: u64) -> Result<Cow<'a, [u8]>, LevelError> {
    // The level index: max(levelCount, 1) entries from byte 80, level 0 first.
    let file_len = bytes.len() as u64;
    let index_len = u64::from(h.levels.max(1)) * LEVEL_ENTRY_LEN;
    if HEADER_LEN as u64 + index_len > file_len {
        return Err(format!(
            "truncated: the level index needs {index_len} bytes at offset {HEADER_LEN}, the file has {file_len}"
        )
        .into());
    }
    let offset = u64_at(bytes, HEADER_LEN);
    let stored_len = u64_at(bytes, HEADER_LEN + 8);
    let uncompressed_len = u64_at(bytes, HEADER_LEN + 16);
    let data = usize::try_from(offset)
        .ok()
        .zip(usize::try_from(stored_len).ok())
        .and_then(|(start, len)| bytes.get(start..start.checked_add(len)?))
        .ok_or_else(|| {
            format!(
                "truncated: level 0 needs {stored_len} bytes at offset {offset}, the file has {file_len}"
            )
        })?;
    if h.scheme == 0 {
        if stored_len != level_len {
            return Err(LevelError::Size {
                what: "holds",
                got: stored_len,
            });
        }
        return Ok(data.into());
    }
    if uncompressed_len != level_len {
        return Err(LevelError::Size {
            what: "has uncompressedByteLength",
            got: uncompressed_len,
        });
    }
    let (method, ratio) = if h.scheme == 2 {
        ("Zstandard", MAX_ZSTD_RATIO)
    } else {
        ("ZLIB", MAX_DEFLATE_RATIO)
    };
    if level_len > stored_len.saturating_mul(ratio) {
        return Err(format!(
            "malformed: {stored_len} bytes of {method} data cannot expand to level 0's {level_len} bytes (at most {ratio}:1)"
        )
        .into());
    }
    let expected = usize::try_from(level_len)
        .map_err(|_| format!("level 0's {level_len} bytes do not fit in memory"))?;
    let out = if h.scheme == 2 {
        unzstd(data, expected)?
    } else {
        unzlib(data, expected)?
    };
    if out.len() > expected {
        return Err(format!(
            "level 0's {method} data decompresses to more than uncompressedByteLength ({level_len} bytes)"
        )
        .into());
    }
    if out.len() < expected {
        return Err(format!(
            "level 0's {method} data decompresses to {} bytes, uncompressedByteLength is {level_len}",
            out.len()
        )
        .into());
    }
    Ok(out.into())
}

/// Bytes in a `width` × `height` level of `layout` (at most 16 × 16384² for the sizes that
/// pass [`MAX_TEXELS`], so no overflow).
fn level_byte_length(layout: Layout, width: u32, height: u32) -> u64 {
    let texels = u64::from(width) * u64::from(height);
    match layout {
        Layout::Int8 { channels, .. } => texels * channels as u64,
        Layout::Int16 { channels, .. } | Layout::Half { channels } => texels * 2 * channels as u64,
        Layout::Float { channels } => texels * 4 * channels as u64,
        Layout::Block(bc) => {
            u64::from(width.div_ceil(4)) * u64::from(height.div_ceil(4)) * bc.block_bytes() as u64
        }
        Layout::Bc6h { .. } => u64::from(width.div_ceil(4)) * u64::from(height.div_ceil(4)) * 16,
    }
}

/// Decompresses Zstandard frames into exactly `expected` bytes at most (`ruzstd`).
fn unzstd(data: &[u8], expected: usize) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; expected];
    let mut decoder = ruzstd::decoding::FrameDecoder::new();
    match decoder.decode_all(data, &mut out) {
        Ok(n) => {
            out.truncate(n);
            Ok(out)
        }
        Err(ruzstd::decoding::errors::FrameDecoderError::TargetTooSmall) => Err(format!(
            "level 0's Zstandard data decompresses to more than uncompressedByteLength ({expected} bytes)"
        )),
        Err(e) => Err(format!("level 0's Zstandard data is malformed: {e}")),
    }
}

/// Decompresses a ZLIB stream, reading at most `expected` + 1 bytes of output (`flate2`).
fn unzlib(data: &[u8], expected: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(expected);
    flate2::read::ZlibDecoder::new(data)
        .take(expected as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("level 0's ZLIB data is malformed: {e}"))?;
    Ok(out)
}

/// Maps an 8-bit SNORM value to UNORM: round((clamp(s / 127, −1, 1) + 1) / 2 · 255), in
/// integers: with n = s + 127 in 0..=254, round(n · 255 / 254) = (n · 255 + 127) / 254 (the one
/// tie, n = 127, rounds up to 128 as `f32::round` does).
fn snorm8(byte: u8) -> u8 {
    let s = i16::from(i8::from_le_bytes([byte])).max(-127);
    let n = u32::from((s + 127).unsigned_abs());
    u8::try_from((n * 255 + 127) / 254).unwrap_or(u8::MAX)
}

/// Maps a 16-bit SNORM value to UNORM: round((clamp(s / 32767, −1, 1) + 1) / 2 · 65535) =
/// (n · 65535 + 32767) / 65534 with n = s + 32767 (as [`snorm8`]).
fn snorm16(lo: u8, hi: u8) -> u16 {
    let s = i32::from(i16::from_le_bytes([lo, hi])).max(-32767);
    let n = u64::from((s + 32767).unsigned_abs());
    u16::try_from((n * 65535 + 32767) / 65534).unwrap_or(u16::MAX)
}

/// Unpacks texels of `channels` values of `size` bytes each into RGBA, missing channels taken
/// from `fill`, B and R swapped when `bgr`.
fn unpack<T: Copy>(
    data: &[u8],
    size: usize,
    channels: usize,
    bgr: bool,
    fill: [T; 4],
    read: impl Fn(&[u8]) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(data.len() / (size * channels) * 4);
    for texel in data.chunks_exact(size * channels) {
        let mut rgba = fill;
        for (dst, value) in rgba.iter_mut().zip(texel.chunks_exact(size)) {
            *dst = read(value);
        }
        if bgr {
            rgba.swap(0, 2);
        }
        out.extend_from_slice(&rgba);
    }
    out
}

/// Level 0's bytes (exactly [`level_byte_length`] of them) as an image.
fn to_image(data: &[u8], layout: Layout, width: u32, height: u32) -> Result<DynamicImage, String> {
    Ok(match layout {
        Layout::Int8 {
            channels,
            bgr,
            snorm,
        } => {
            let px = if snorm {
                unpack(data, 1, channels, bgr, [0, 0, 0, u8::MAX], |b| snorm8(b[0]))
            } else {
                unpack(data, 1, channels, bgr, [0, 0, 0, u8::MAX], |b| b[0])
            };
            DynamicImage::ImageRgba8(buffer(width, height, px)?)
        }
        Layout::Int16 { channels, snorm } => {
            let px = if snorm {
                unpack(data, 2, channels, false, [0, 0, 0, u16::MAX], |b| {
                    snorm16(b[0], b[1])
                })
            } else {
                unpack(data, 2, channels, false, [0, 0, 0, u16::MAX], |b| {
                    u16::from_le_bytes([b[0], b[1]])
                })
            };
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
        Layout::Bc6h { signed } => {
            let px = blocks(
                data,
                16,
                width,
                height,
                [0.0, 0.0, 0.0, 1.0],
                |block, texels| {
                    let mut rgb = [0f32; 48];
                    bcdec_rs::bc6h_float(block, &mut rgb, 12, signed);
                    for (dst, src) in texels.iter_mut().zip(rgb.chunks_exact(3)) {
                        dst[..3].copy_from_slice(src);
                    }
                },
            );
            DynamicImage::ImageRgba32F(buffer(width, height, px)?)
        }
        Layout::Block(bc) => {
            let px = blocks(
                data,
                bc.block_bytes(),
                width,
                height,
                [0, 0, 0, u8::MAX],
                |block, texels| decode_block_rgba8(bc, block, texels),
            );
            DynamicImage::ImageRgba8(buffer(width, height, px)?)
        }
    })
}

/// Decodes one 8- or 16-byte block of `bc` (not BC6H) into 16 RGBA8 texels, row by row.
fn decode_block_rgba8(bc: Bc, block: &[u8], texels: &mut [[u8; 4]; 16]) {
    let mut rgba = [0u8; 64];
    match bc {
        Bc::Bc1 { opaque } => {
            bcdec_rs::bc1(block, &mut rgba, 16);
            if opaque {
                rgba.chunks_exact_mut(4).for_each(|t| t[3] = u8::MAX);
            }
        }
        Bc::Bc2 => bcdec_rs::bc2(block, &mut rgba, 16),
        Bc::Bc3 => bcdec_rs::bc3(block, &mut rgba, 16),
        Bc::Bc7 => bcdec_rs::bc7(block, &mut rgba, 16),
        Bc::Bc4 { snorm } => {
            let mut r = [0u8; 16];
            bcdec_rs::bc4(block, &mut r, 4, snorm);
            for (t, &v) in texels.iter_mut().zip(&r) {
                t[0] = if snorm { snorm8(v) } else { v };
            }
            return;
        }
        Bc::Bc5 { snorm } => {
            let mut rg = [0u8; 32];
            bcdec_rs::bc5(block, &mut rg, 8, snorm);
            for (t, v) in texels.iter_mut().zip(rg.chunks_exact(2)) {
                t[0] = if snorm { snorm8(v[0]) } else { v[0] };
                t[1] = if snorm { snorm8(v[1]) } else { v[1] };
            }
            return;
        }
    }
    for (t, v) in texels.iter_mut().zip(rgba.chunks_exact(4)) {
        t.copy_from_slice(v);
    }
}

/// Decodes `data`, ceil(width / 4) × ceil(height / 4) blocks of `block_bytes` each in row order,
/// with `decode_block` (which sets the 16 texels of a block, row by row, starting from `fill`)
/// into RGBA texels, cropping the blocks' padding on the right and bottom.
fn blocks<T: Copy>(
    data: &[u8],
    block_bytes: usize,
    width: u32,
    height: u32,
    fill: [T; 4],
    mut decode_block: impl FnMut(&[u8], &mut [[T; 4]; 16]),
) -> Vec<T> {
    let (w, h) = (width as usize, height as usize);
    let blocks_x = w.div_ceil(4);
    let mut out = vec![fill[0]; w * h * 4];
    for (i, block) in data.chunks_exact(block_bytes).enumerate() {
        let (bx, by) = (i % blocks_x * 4, i / blocks_x * 4);
        let mut texels = [fill; 16];
        decode_block(block, &mut texels);
        for (row, y) in texels.chunks_exact(4).zip(by..h.min(by + 4)) {
            for (texel, x) in row.iter().zip(bx..w.min(bx + 4)) {
                let at = (y * w + x) * 4;
                out[at..at + 4].copy_from_slice(texel);
            }
        }
    }
    out
}

/// An image buffer from `width` × `height` RGBA texels (which the callers produce exactly; the
/// error cannot happen).
fn buffer<T: image::Primitive>(
    width: u32,
    height: u32,
    px: Vec<T>,
) -> Result<ImageBuffer<Rgba<T>, Vec<T>>, String>
where
    Rgba<T>: image::Pixel<Subpixel = T>,
{
    let len = px.len();
    ImageBuffer::from_raw(width, height, px)
        .ok_or_else(|| format!("internal: {len} channel values for {width}×{height} RGBA texels"))
}
