//! KTX 2.0 textures: a writer made to the Khronos KTX 2.0 specification, and one reader over the
//! [`ktx2`] crate (which only reads) for maps and for glTF textures. CPU only.
//!
//! Specs: KTX 2.0 <https://registry.khronos.org/KTX/specs/2.0/ktxspec.v2.html> and, for the data
//! format descriptor (DFD), the Khronos Data Format Specification 1.3, filled in as KTX-Software's
//! `createdfd.c` fills it.
//!
//! # The file qtangent writes
//!
//! 2D textures (pixelDepth 0, faceCount 1), plain (layerCount 0) or arrays of layers (a
//! two-layer BC5 map: `qmap::MapFormat::Bc5Pair`), one of the eight [`TexelFormat`]s, no
//! supercompression (scheme 0). Numbers are little-endian.
//!
//! - bytes 0–11: the identifier `«KTX 20»\r\n\x1A\n`;
//! - bytes 12–47, u32 each: vkFormat, typeSize (1 for 8-bit and block formats, 2 for 16-bit,
//!   4 for 32-bit), pixelWidth, pixelHeight, pixelDepth 0, layerCount (0, or the
//!   number of layers of an array), faceCount 1, levelCount, supercompressionScheme 0;
//! - bytes 48–79, the index: dfdByteOffset, dfdByteLength, kvdByteOffset, kvdByteLength (u32),
//!   sgdByteOffset 0, sgdByteLength 0 (u64);
//! - from byte 80, the level index, level 0 (largest) first: byteOffset, byteLength,
//!   uncompressedByteLength = byteLength (u64 each);
//! - the DFD: dfdTotalSize (u32), then one Basic descriptor block (below);
//! - right after it, the key/value data (below);
//! - the levels, stored from the smallest to level 0, each starting on a multiple of
//!   lcm(bytes per texel block, 4) with zero bytes before it (mipPadding).
//!
//! A level is its rows of texels (of 4 × 4 blocks for BC5 and BC7), tightly packed; level p is
//! max(1, w >> p) × max(1, h >> p) texels and always a whole number of blocks. In an array
//! texture each level holds layer 0's image, then layer 1's, and so on (the spec's order).
//!
//! # The data format descriptor
//!
//! One Basic block (vendorId 0, descriptorType 0, versionNumber 2, 24 + 16 · samples bytes):
//! colorModel RGBSDA (1), or BC5 (132) / BC7 (134) for the block formats; primaries BT.709 (1);
//! transfer LINEAR (1); flags 0 (straight alpha); texelBlockDimension = block size − 1;
//! bytesPlane0 = bytes per block. One sample per channel: R, G, B, A = channel 0, 1, 2, 15 at
//! consecutive bit offsets; BC5 red and green = channel 0 and 1, 64 bits each at bits 0 and 64;
//! BC7 one 128-bit colour sample. Qualifiers SIGNED (0x40) for snorm and float, FLOAT (0x80) for
//! float; sampleLower / sampleUpper −127 / 127 (snorm8), −32767 / 32767 (snorm16), −1.0 / 1.0 as
//! f32 bits (floats), i32::MIN / i32::MAX (BC5 snorm), 0 / u32::MAX (BC7 unorm).
//!
//! # Key/value data
//!
//! Entries (keyAndValueByteLength u32, key, NUL, value, zero padding to 4 bytes) are written
//! sorted by key bytes, which for UTF-8 is the code-point order the spec asks for. Values are
//! written byte for byte as given: the spec lets a value be any bytes, so the writer cannot tell
//! text from binary and does not guess — pass text with its NUL (`b"text\0"`), as the spec
//! recommends; `Ktx2Texture::key_value_text` reads text with or without it. The exceptions
//! are the keys the spec reserves that apply to a 2D texture — `KTXorientation`, `KTXswizzle`,
//! `KTXwriter`, `KTXwriterScParams` — whose values the spec makes NUL-terminated UTF-8: the
//! writer appends the NUL when it is missing (so they read back with it) and refuses other
//! values. Any other key starting `KTX` or `ktx` is reserved and refused. `KTXwriter` =
//! `qtangent <version>` is added unless the caller gives one.
//!
//! # Reading
//!
//! One reader (`container.rs`) serves `read()` (a `Ktx2Texture` in one of the eight
//! formats: maps, handedness planes, material textures) and the glTF loader's KTX2 images
//! (`image/`: level 0 of any uncompressed or BC1–BC7 format, as an [`::image::DynamicImage`]).
//! It checks the identifier and the header (parsed by [`::ktx2::Header`]), then every section's
//! extent, then the DFD — against the format's own DFD for a texture; for an image, the
//! texelBlockDimension of every Basic block against the format's block — before it hands the
//! bytes to [`::ktx2::Reader`] (ktx2 0.5 panics on a texelBlockDimension of 255). Levels
//! supercompressed with Zstandard (`ruzstd`) or ZLIB (`flate2`) are decompressed, never to more
//! than their stored bytes can expand to; Basis Universal is refused by name. BC blocks are
//! decoded by the crate's one BC decoder (`bc.rs`, over `bcdec_rs`).

pub(crate) mod bc;
#[cfg(feature = "ktx2")]
mod container;
mod error;
mod format;
#[cfg(feature = "ktx2")]
mod image;
#[cfg(feature = "ktx2")]
mod read;
#[cfg(feature = "ktx2")]
mod supercompression;
mod write;

pub use error::{Ktx2Error, Section};
pub use format::TexelFormat;
#[cfg(feature = "ktx2")]
pub(crate) use image::{decode_image, is_ktx2};
#[cfg(feature = "ktx2")]
pub(crate) use read::{read, read_file};
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(unused_imports))]
pub(crate) use write::{write, write_file};

/// The 12 bytes every KTX 2.0 file starts with: `«KTX 20»\r\n\x1A\n`.
pub(crate) const IDENTIFIER: [u8; 12] = [
    0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, b'\r', b'\n', 0x1A, b'\n',
];

/// The header: identifier, nine u32 fields, then the index (four u32, two u64).
const HEADER_LEN: usize = 80;
/// A level index entry: byteOffset, byteLength, uncompressedByteLength (u64 each).
const LEVEL_ENTRY_LEN: usize = 24;

/// One texture: level 0 first, each level's bytes tightly packed rows (block rows for BC).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ktx2Texture {
    /// Format of every level.
    pub format: TexelFormat,
    /// Level 0 width in texels, at least 1.
    pub width: u32,
    /// Level 0 height in texels, at least 1.
    pub height: u32,
    /// 0 for a plain 2D texture; n ≥ 1 for an array texture of n layers (KTX2 layerCount).
    pub layers: u32,
    /// 1 to ⌊log₂ max(width, height)⌋ + 1 levels, level p holding the bytes of a
    /// max(1, w >> p) × max(1, h >> p) level of `format` (whole blocks of its block size), once
    /// per layer of an array texture, layer 0 first.
    pub levels: Vec<Vec<u8>>,
    /// Key/value entries. [`write()`] sorts them by key and stores values as given, except that it
    /// NUL-terminates the values of the spec's text keys and adds `KTXwriter` unless present
    /// (see the module docs); [`read()`] gives every entry of the file in file order, so a round
    /// trip returns them sorted, with `KTXwriter`.
    pub key_values: Vec<(String, Vec<u8>)>,
}

impl Ktx2Texture {
    /// Images per level: 1, or the number of layers of an array texture.
    #[must_use]
    pub(crate) fn images(&self) -> u64 {
        u64::from(self.layers.max(1))
    }

    /// The text value of `key`: its bytes without one trailing NUL, when they are UTF-8 with
    /// no other NUL; `None` when the key is absent or its value is not such text.
    #[must_use]
    #[cfg(feature = "ktx2")]
    pub(crate) fn key_value_text(&self, key: &str) -> Option<&str> {
        let (_, value) = self.key_values.iter().find(|(k, _)| k == key)?;
        let text = value.strip_suffix(&[0]).unwrap_or(value);
        if text.contains(&0) {
            return None;
        }
        std::str::from_utf8(text).ok()
    }
}

/// Levels in a full mip chain of a `width` × `height` texture: ⌊log₂ max(w, h)⌋ + 1 (7 for
/// 64 × 32; 0 when both sizes are 0).
#[must_use]
pub(crate) const fn full_mip_count(width: u32, height: u32) -> u32 {
    32 - (width | height).leading_zeros()
}

/// Size of level `p`: max(1, w >> p) × max(1, h >> p). `p` < 32.
fn level_size(width: u32, height: u32, p: usize) -> (u32, u32) {
    let shift = |x: u32| {
        u32::try_from(p)
            .ok()
            .and_then(|p| x.checked_shr(p))
            .unwrap_or(0)
            .max(1)
    };
    (shift(width), shift(height))
}

/// Checks that level `p`, a `size` level of vkFormat `vk_format`, is `expected` bytes: `len`.
fn check_level_len(
    p: usize,
    len: u64,
    expected: u64,
    size: (u32, u32),
    vk_format: u32,
) -> Result<(), Ktx2Error> {
    if len == expected {
        return Ok(());
    }
    let (width, height) = size;
    Err(Ktx2Error::LevelSize {
        level: p,
        len,
        expected,
        width,
        height,
        vk_format,
    })
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend(v.to_le_bytes());
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../tests/unit/ktx2/files.rs"]
mod tests;
