//! KTX 2.0 textures: a writer made to the Khronos KTX 2.0 specification, and a reader over the
//! [`ktx2`] crate (which only reads). CPU only.
//!
//! Specs: KTX 2.0 <https://registry.khronos.org/KTX/specs/2.0/ktxspec.v2.html> and, for the data
//! format descriptor (DFD), the Khronos Data Format Specification 1.3, filled in as KTX-Software's
//! `createdfd.c` fills it.
//!
//! # The file
//!
//! 2D textures only (pixelDepth 0, layerCount 0, faceCount 1), one of the eight
//! [`TexelFormat`]s, no supercompression (scheme 0). Numbers are little-endian.
//!
//! - bytes 0–11: the identifier `«KTX 20»\r\n\x1A\n` ([`IDENTIFIER`]);
//! - bytes 12–47, u32 each: vkFormat, typeSize (1 for 8-bit and block formats, 2 for 16-bit,
//!   4 for 32-bit), pixelWidth, pixelHeight, pixelDepth 0, layerCount 0, faceCount 1,
//!   levelCount, supercompressionScheme 0;
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
//! max(1, w >> p) × max(1, h >> p) texels and always a whole number of blocks.
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
//! recommends; [`key_value_text`] reads text with or without it. The exceptions are the keys the
//! spec reserves that apply to a 2D texture — `KTXorientation`, `KTXswizzle`, `KTXwriter`,
//! `KTXwriterScParams` — whose values the spec makes NUL-terminated UTF-8: the writer appends the
//! NUL when it is missing (so they read back with it) and refuses other values. Any other key
//! starting `KTX` or `ktx` is reserved and refused. `KTXwriter` = [`WRITER`] is added unless the
//! caller gives one.
//!
//! [`read()`] checks the header, every section's extent, the level sizes and alignment and the
//! DFD's format-defining fields before it hands the bytes to [`::ktx2::Reader`]; checking the
//! DFD first also spares that reader a panic (ktx2 0.5 panics on a texelBlockDimension of 255).

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

/// The 12 bytes every KTX 2.0 file starts with: `«KTX 20»\r\n\x1A\n`.
pub const IDENTIFIER: [u8; 12] = [
    0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, b'\r', b'\n', 0x1A, b'\n',
];

/// The `KTXwriter` value [`write()`] adds (it stores it with a NUL).
pub const WRITER: &str = concat!("qtangent ", env!("CARGO_PKG_VERSION"));

/// Reserved keys that apply to a 2D texture; the spec makes their values NUL-terminated UTF-8.
pub const TEXT_KEYS: [&str; 4] = [
    "KTXorientation",
    "KTXswizzle",
    "KTXwriter",
    "KTXwriterScParams",
];

const HEADER_LEN: usize = 80;
const LEVEL_ENTRY_LEN: usize = 24;
/// Offset of the first sample in the DFD (dfdTotalSize, block header, 16 fixed bytes).
#[cfg(feature = "ktx2")]
const DFD_SAMPLES: usize = 28;
const SAMPLE_LEN: usize = 16;
const MODEL_RGBSDA: u8 = 1;
const MODEL_BC5: u8 = 132;
const MODEL_BC7: u8 = 134;
const PRIMARIES_BT709: u8 = 1;
const TRANSFER_LINEAR: u8 = 1;
/// Sample qualifier bits, in the byte that also holds the 4-bit channelType.
#[cfg(feature = "ktx2")]
const LINEAR: u8 = 0x10;
const SIGNED: u8 = 0x40;
const FLOAT: u8 = 0x80;

/// The texel formats qtangent writes, with their Vulkan numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexelFormat {
    /// `VK_FORMAT_R8_SNORM` (10): the optional handedness plane.
    R8Snorm,
    /// `VK_FORMAT_R8G8B8A8_UNORM` (37): an 8-bit material texture (e.g. an anisotropy map).
    Rgba8Unorm,
    /// `VK_FORMAT_R8G8B8A8_SNORM` (38).
    Rgba8Snorm,
    /// `VK_FORMAT_R16G16B16A16_SNORM` (92).
    Rgba16Snorm,
    /// `VK_FORMAT_R16G16B16A16_SFLOAT` (97).
    Rgba16Float,
    /// `VK_FORMAT_R32G32B32A32_SFLOAT` (109).
    Rgba32Float,
    /// `VK_FORMAT_BC5_SNORM_BLOCK` (142): two channels, 16 bytes a 4 × 4 block.
    Bc5Snorm,
    /// `VK_FORMAT_BC7_UNORM_BLOCK` (145): 16 bytes a 4 × 4 block.
    Bc7Unorm,
}

/// A DFD sample: channelType, bitOffset, bitLength.
type Sample = (u8, u16, u16);

/// What the specs fix for a format (see the module docs for the DFD fields).
struct Spec {
    vk: u32,
    name: &'static str,
    /// Texel block edge: 1, or 4 for BC.
    block: u32,
    bytes_per_block: u32,
    type_size: u32,
    model: u8,
    qualifiers: u8,
    lower: u32,
    upper: u32,
    samples: &'static [Sample],
}

impl TexelFormat {
    /// Every format, in Vulkan number order.
    pub const ALL: [TexelFormat; 8] = [
        Self::R8Snorm,
        Self::Rgba8Unorm,
        Self::Rgba8Snorm,
        Self::Rgba16Snorm,
        Self::Rgba16Float,
        Self::Rgba32Float,
        Self::Bc5Snorm,
        Self::Bc7Unorm,
    ];

    #[rustfmt::skip]
    const fn spec(self) -> Spec {
        const R8: [Sample; 1] = [(0, 0, 8)];
        const RGBA8: [Sample; 4] = [(0, 0, 8), (1, 8, 8), (2, 16, 8), (15, 24, 8)];
        const RGBA16: [Sample; 4] = [(0, 0, 16), (1, 16, 16), (2, 32, 16), (15, 48, 16)];
        const RGBA32: [Sample; 4] = [(0, 0, 32), (1, 32, 32), (2, 64, 32), (15, 96, 32)];
        const BC5: [Sample; 2] = [(0, 0, 64), (1, 64, 64)];
        const BC7: [Sample; 1] = [(0, 0, 128)];
        const S: u8 = SIGNED;
        const SF: u8 = SIGNED | FLOAT;
        const F_M1: i64 = (-1.0f32).to_bits() as i64;
        const F_P1: i64 = 1.0f32.to_bits() as i64;
        const I_MIN: i64 = i32::MIN as i64;
        const I_MAX: i64 = i32::MAX as i64;
        const U_MAX: i64 = u32::MAX as i64;
        const RGBSDA: u8 = MODEL_RGBSDA;
        #[allow(clippy::too_many_arguments)]
        const fn s(vk: u32, name: &'static str, block: u32, bytes_per_block: u32,
            type_size: u32, model: u8, qualifiers: u8, lower: i64, upper: i64,
            samples: &'static [Sample]) -> Spec {
            let (lower, upper) = (lower as u32, upper as u32); // two's complement for negatives
            Spec { vk, name, block, bytes_per_block, type_size, model, qualifiers, lower, upper,
                samples }
        }
        use TexelFormat as F;
        // vkFormat, name, block edge, bytes per block, typeSize, colorModel, qualifiers,
        // sampleLower, sampleUpper, samples.
        match self {
            F::R8Snorm => s(10, "r8snorm", 1, 1, 1, RGBSDA, S, -127, 127, &R8),
            F::Rgba8Unorm => s(37, "rgba8unorm", 1, 4, 1, RGBSDA, 0, 0, 255, &RGBA8),
            F::Rgba8Snorm => s(38, "rgba8snorm", 1, 4, 1, RGBSDA, S, -127, 127, &RGBA8),
            F::Rgba16Snorm => s(92, "rgba16snorm", 1, 8, 2, RGBSDA, S, -32767, 32767, &RGBA16),
            F::Rgba16Float => s(97, "rgba16float", 1, 8, 2, RGBSDA, SF, F_M1, F_P1, &RGBA16),
            F::Rgba32Float => s(109, "rgba32float", 1, 16, 4, RGBSDA, SF, F_M1, F_P1, &RGBA32),
            F::Bc5Snorm => s(142, "bc5snorm", 4, 16, 1, MODEL_BC5, S, I_MIN, I_MAX, &BC5),
            F::Bc7Unorm => s(145, "bc7unorm", 4, 16, 1, MODEL_BC7, 0, 0, U_MAX, &BC7),
        }
    }

    /// The `VkFormat` number, as the header's vkFormat holds it.
    #[must_use]
    pub const fn vk_format(self) -> u32 {
        self.spec().vk
    }

    /// The format whose [`vk_format`](Self::vk_format) is `v`; `None` for any other number.
    #[must_use]
    pub fn from_vk_format(v: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.vk_format() == v)
    }

    /// Short lower-case name used in messages: `r8snorm`, …, `bc7unorm`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        self.spec().name
    }

    /// Texel block width and height: (1, 1), or (4, 4) for BC5 and BC7.
    #[must_use]
    pub const fn block_size(self) -> (u32, u32) {
        (self.spec().block, self.spec().block)
    }

    /// Bytes in one texel block: typeSize · channels for the plain formats, 16 for BC5 and BC7.
    #[must_use]
    pub const fn bytes_per_block(self) -> u32 {
        self.spec().bytes_per_block
    }

    /// The header's typeSize: bytes of one component; 1 for BC5 and BC7 (`_BLOCK` formats).
    #[must_use]
    pub const fn type_size(self) -> u32 {
        self.spec().type_size
    }

    /// Bytes of a `width` × `height` level: whole blocks in each direction (a 1 × 1 BC level
    /// takes one 16-byte block) times [`bytes_per_block`](Self::bytes_per_block). 0 when a
    /// size is 0; saturates at `usize::MAX`.
    #[must_use]
    pub fn level_bytes(self, width: u32, height: u32) -> usize {
        let (bw, bh) = self.block_size();
        let blocks = u64::from(width.div_ceil(bw)) * u64::from(height.div_ceil(bh));
        let bytes = blocks.saturating_mul(u64::from(self.bytes_per_block()));
        usize::try_from(bytes).unwrap_or(usize::MAX)
    }

    /// Alignment of every level's first byte in the file, lcm(bytes per block, 4) as the
    /// spec's mipPadding makes it: 4, 4, 4, 8, 8, 16, 16, 16 in [`ALL`](Self::ALL)'s order.
    #[must_use]
    pub const fn mip_alignment(self) -> usize {
        let b = self.bytes_per_block() as usize;
        match b % 4 {
            0 => b,
            2 => 2 * b,
            _ => 4 * b,
        }
    }

    /// The whole DFD section: dfdTotalSize, then the Basic block (see the module docs).
    fn dfd(self) -> Vec<u8> {
        let spec = self.spec();
        let block_len = 24 + SAMPLE_LEN * spec.samples.len();
        let (edge, bytes) = (spec.block as u8, spec.bytes_per_block as u8);
        let mut d = Vec::with_capacity(4 + block_len);
        put_u32(&mut d, (4 + block_len) as u32); // dfdTotalSize
        put_u32(&mut d, 0); // vendorId 0 (Khronos, 17 bits), descriptorType 0 (basic, 15 bits)
        d.extend(2u16.to_le_bytes()); // versionNumber
        d.extend((block_len as u16).to_le_bytes()); // descriptorBlockSize
        d.extend([spec.model, PRIMARIES_BT709, TRANSFER_LINEAR, 0]); // flags 0: straight alpha
        d.extend([edge - 1, edge - 1, 0, 0]); // texelBlockDimension0..3
        d.extend([bytes, 0, 0, 0, 0, 0, 0, 0]); // bytesPlane0..7
        for &(channel, bit_offset, bit_length) in spec.samples {
            d.extend(bit_offset.to_le_bytes());
            d.extend([(bit_length - 1) as u8, channel | spec.qualifiers]);
            d.extend([0; 4]); // samplePosition0..3
            put_u32(&mut d, spec.lower);
            put_u32(&mut d, spec.upper);
        }
        d
    }
}

impl fmt::Display for TexelFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// Levels in a full mip chain of a `width` × `height` texture: ⌊log₂ max(w, h)⌋ + 1 (7 for
/// 64 × 32; 0 when both sizes are 0).
#[must_use]
pub const fn full_mip_count(width: u32, height: u32) -> u32 {
    32 - (width | height).leading_zeros()
}

/// Size of level `p`: max(1, w >> p) × max(1, h >> p). `p` < 32.
fn level_size(width: u32, height: u32, p: usize) -> (u32, u32) {
    ((width >> p).max(1), (height >> p).max(1))
}

/// One texture: level 0 first, each level's bytes tightly packed rows (block rows for BC).
#[derive(Debug, Clone, PartialEq)]
pub struct Ktx2Texture {
    /// Format of every level.
    pub format: TexelFormat,
    /// Level 0 width in texels, at least 1.
    pub width: u32,
    /// Level 0 height in texels, at least 1.
    pub height: u32,
    /// 1 to [`full_mip_count`] levels, level p holding
    /// [`level_bytes`](TexelFormat::level_bytes)(max(1, w >> p), max(1, h >> p)) bytes.
    pub levels: Vec<Vec<u8>>,
    /// Key/value entries. [`write()`] sorts them by key and stores values as given, except that it
    /// NUL-terminates the values of [`TEXT_KEYS`] and adds `KTXwriter` = [`WRITER`] unless
    /// present (see the module docs); [`read()`] gives every entry of the file in file order, so
    /// a round trip returns them sorted, with `KTXwriter`.
    pub key_values: Vec<(String, Vec<u8>)>,
}

impl Ktx2Texture {
    /// A texture with no key/value entries of its own.
    #[must_use]
    pub fn new(format: TexelFormat, width: u32, height: u32, levels: Vec<Vec<u8>>) -> Self {
        let key_values = Vec::new();
        Self {
            format,
            width,
            height,
            levels,
            key_values,
        }
    }
}

/// What can go wrong writing or reading a KTX 2.0 file. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum Ktx2Error {
    /// A texture with no texels.
    #[error("texture size {width}×{height}: width and height must be at least 1")]
    ZeroSize {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
    },
    /// More mip levels than the size allows, or none.
    #[error("{count} levels for a {width}×{height} texture, which takes 1 to {max}")]
    LevelCount {
        /// Levels given.
        count: u64,
        /// Levels the size allows.
        max: u32,
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// A level's byte count does not match its size and format.
    #[error("level {level} is {len} bytes, a {width}×{height} {format} level needs {expected}")]
    LevelSize {
        /// The level.
        level: usize,
        /// Bytes given.
        len: u64,
        /// Bytes needed.
        expected: u64,
        /// The level's width.
        width: u32,
        /// The level's height.
        height: u32,
        /// The texel format.
        format: TexelFormat,
    },
    /// A key/value entry that KTX 2.0 does not allow.
    #[error("key/value entry {key:?}: {problem}")]
    Key {
        /// The key.
        key: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// Beyond what 32-bit offsets can address.
    #[error("too large for KTX 2.0's 32-bit offsets: {0}")]
    TooLarge(String),
    /// The identifier is missing.
    #[error("not a KTX 2.0 file: the first 12 bytes are not the KTX 2.0 identifier")]
    NotKtx2,
    /// A part of the file runs past its end.
    #[error("truncated: {what} ends at byte {end} but the file has {len}")]
    Truncated {
        /// The part.
        what: String,
        /// Where it would end.
        end: u64,
        /// The file's length.
        len: usize,
    },
    /// A vkFormat qtangent does not read.
    #[error("vkFormat {vk_format} ({}) is not a format qtangent reads", vk_format_name(.vk_format))]
    UnsupportedFormat {
        /// The file's vkFormat.
        vk_format: u32,
    },
    /// A supercompression scheme qtangent does not read.
    #[error(
        "supercompression scheme {scheme} ({}) is not supported: qtangent reads scheme 0 (none) \
         only",
        scheme_name(.scheme)
    )]
    Supercompressed {
        /// The scheme's number.
        scheme: u32,
    },
    /// A 3D, array or cube texture.
    #[error(
        "{0}: qtangent reads 2D textures only (pixelHeight > 0, pixelDepth 0, layerCount 0, \
         faceCount 1)"
    )]
    NotTwoD(String),
    /// The file contradicts the spec.
    #[error("malformed: {0}")]
    Malformed(String),
    /// The `ktx2` crate's reader refused the file.
    #[cfg(feature = "ktx2")]
    #[error("the ktx2 crate rejects the file: {0}")]
    Parse(::ktx2::ParseError),
    /// Reading or writing the file failed.
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// "read" or "write".
        action: &'static str,
        /// The OS error.
        error: std::io::Error,
    },
    /// Another error, in a named file.
    #[error("{}: {error}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// The error.
        error: Box<Ktx2Error>,
    },
}

impl Ktx2Error {
    /// This error with `path` in its message (an [`Io`](Self::Io) error names it already).
    fn in_file(self, path: &Path) -> Self {
        match self {
            Self::Io { .. } | Self::InFile { .. } => self,
            error => Self::InFile {
                path: path.to_path_buf(),
                error: Box::new(error),
            },
        }
    }
}

/// `return Err(Ktx2Error::Malformed(format!(…)))`.
#[cfg_attr(not(feature = "ktx2"), allow(unused_macros))]
macro_rules! malformed {
    ($($arg:tt)*) => {
        return Err(Ktx2Error::Malformed(format!($($arg)*)))
    };
}

fn vk_format_name(v: &u32) -> String {
    #[cfg(not(feature = "ktx2"))]
    return format!("vkFormat {v}");
    #[cfg(feature = "ktx2")]
    match ::ktx2::Format::new(*v).map(|f| format!("{f:?}")) {
        None => "VK_FORMAT_UNDEFINED".into(),
        Some(name) if name.starts_with("Format(") => "unknown to the ktx2 crate".into(),
        Some(name) => format!("VK_FORMAT_{name}"),
    }
}

fn scheme_name(scheme: &u32) -> &'static str {
    ["none", "BasisLZ", "Zstandard", "ZLIB"]
        .get(*scheme as usize)
        .copied()
        .unwrap_or("unknown")
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend(v.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend(v.to_le_bytes());
}

#[cfg(feature = "ktx2")]
fn le_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// Checks that level `p` of a `width` × `height` texture is `len` bytes.
fn check_level_len(
    format: TexelFormat,
    size: (u32, u32),
    p: usize,
    len: u64,
) -> Result<(), Ktx2Error> {
    let (width, height) = level_size(size.0, size.1, p);
    let expected = format.level_bytes(width, height) as u64;
    if len != expected {
        return Err(Ktx2Error::LevelSize {
            level: p,
            len,
            expected,
            width,
            height,
            format,
        });
    }
    Ok(())
}

/// Checks a key against the spec's rules; returns the value to store (NUL-terminated for
/// [`TEXT_KEYS`]).
fn checked_entry<'a>(key: &str, value: &'a [u8]) -> Result<Cow<'a, [u8]>, Ktx2Error> {
    let bad = |problem| {
        Err(Ktx2Error::Key {
            key: key.to_owned(),
            problem,
        })
    };
    if key.is_empty() {
        return bad("keys must not be empty");
    }
    if key.contains('\0') || key.starts_with('\u{FEFF}') {
        return bad("a key must not contain NUL or start with a byte order mark");
    }
    if !TEXT_KEYS.contains(&key) {
        if key.starts_with("KTX") || key.starts_with("ktx") {
            return bad(
                "keys starting KTX or ktx are reserved; of the spec's keys only \
                KTXorientation, KTXswizzle, KTXwriter and KTXwriterScParams apply to a 2D texture",
            );
        }
        return Ok(Cow::Borrowed(value));
    }
    let text = value.strip_suffix(&[0]).unwrap_or(value);
    if text.contains(&0) || std::str::from_utf8(text).is_err() {
        return bad("the spec makes this value a NUL-terminated UTF-8 string");
    }
    Ok(Cow::Owned([text, &[0]].concat()))
}

/// The key/value section: entries sorted by key, each padded to 4 bytes.
fn key_value_data(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, Ktx2Error> {
    let mut sorted = Vec::with_capacity(entries.len() + 1);
    for (key, value) in entries {
        sorted.push((key.as_str(), checked_entry(key, value)?));
    }
    if !sorted.iter().any(|(key, _)| *key == "KTXwriter") {
        sorted.push(("KTXwriter", Cow::Owned([WRITER.as_bytes(), &[0]].concat())));
    }
    // str's order is byte order, which for UTF-8 is the code-point order the spec asks for.
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        let key = pair[0].0.to_owned();
        return Err(Ktx2Error::Key {
            key,
            problem: "appears twice (keys must be unique)",
        });
    }
    let mut out = Vec::new();
    for (key, value) in sorted {
        let len = key.len() + 1 + value.len();
        let too_large = |_| Ktx2Error::TooLarge(format!("key/value entry {key:?} is {len} bytes"));
        put_u32(&mut out, u32::try_from(len).map_err(too_large)?);
        out.extend(key.as_bytes());
        out.push(0);
        out.extend(value.iter());
        out.resize(out.len().next_multiple_of(4), 0); // valuePadding
    }
    Ok(out)
}

/// The KTX 2.0 file for `tex` (layout in the module docs).
///
/// # Errors
/// [`Ktx2Error::ZeroSize`], [`LevelCount`](Ktx2Error::LevelCount) (not 1 to
/// [`full_mip_count`]), [`LevelSize`](Ktx2Error::LevelSize), [`Key`](Ktx2Error::Key) (a
/// reserved, empty, duplicate or malformed key), [`TooLarge`](Ktx2Error::TooLarge).
pub fn write(tex: &Ktx2Texture) -> Result<Vec<u8>, Ktx2Error> {
    let (width, height) = (tex.width, tex.height);
    if width == 0 || height == 0 {
        return Err(Ktx2Error::ZeroSize { width, height });
    }
    let max = full_mip_count(width, height);
    if tex.levels.is_empty() || tex.levels.len() > max as usize {
        let count = tex.levels.len() as u64;
        return Err(Ktx2Error::LevelCount {
            count,
            max,
            width,
            height,
        });
    }
    for (p, level) in tex.levels.iter().enumerate() {
        check_level_len(tex.format, (width, height), p, level.len() as u64)?;
    }
    let dfd = tex.format.dfd();
    let kvd = key_value_data(&tex.key_values)?;
    let dfd_offset = HEADER_LEN + LEVEL_ENTRY_LEN * tex.levels.len();
    let kvd_offset = dfd_offset + dfd.len();
    let kvd_len = u32::try_from(kvd.len())
        .map_err(|_| Ktx2Error::TooLarge(format!("{} bytes of key/value data", kvd.len())))?;
    // Smallest level first (the spec's order: a stream shows a coarse image early), each on
    // the format's alignment.
    let mut offsets = vec![0; tex.levels.len()];
    let mut end = kvd_offset + kvd.len();
    for (p, level) in tex.levels.iter().enumerate().rev() {
        offsets[p] = end.next_multiple_of(tex.format.mip_alignment());
        end = offsets[p] + level.len();
    }

    let mut out = Vec::with_capacity(end);
    out.extend(IDENTIFIER);
    let (vk, ts, n) = (
        tex.format.vk_format(),
        tex.format.type_size(),
        tex.levels.len() as u32,
    );
    // vkFormat, typeSize, pixelWidth, pixelHeight, pixelDepth, layerCount, faceCount,
    // levelCount, supercompressionScheme.
    for v in [vk, ts, width, height, 0, 0, 1, n, 0] {
        put_u32(&mut out, v);
    }
    let (dfd_at, dfd_len, kvd_at) = (dfd_offset as u32, dfd.len() as u32, kvd_offset as u32);
    for v in [dfd_at, dfd_len, kvd_at, kvd_len] {
        put_u32(&mut out, v);
    }
    put_u64(&mut out, 0); // sgdByteOffset
    put_u64(&mut out, 0); // sgdByteLength
    for (level, &offset) in tex.levels.iter().zip(&offsets) {
        put_u64(&mut out, offset as u64);
        put_u64(&mut out, level.len() as u64); // byteLength
        put_u64(&mut out, level.len() as u64); // uncompressedByteLength
    }
    out.extend(dfd);
    out.extend(kvd);
    for (level, &offset) in tex.levels.iter().zip(&offsets).rev() {
        out.resize(offset, 0); // mipPadding
        out.extend(level);
    }
    Ok(out)
}

/// Writes `tex` to `path` (see [`write()`]). The bytes go to a hidden temporary file beside
/// `path` that is then renamed over it, so `path` is either the whole file or untouched; the
/// temporary file is removed when writing or renaming fails.
///
/// # Errors
/// Those of [`write()`], naming `path`, and [`Ktx2Error::Io`].
pub fn write_file(path: &Path, tex: &Ktx2Texture) -> Result<(), Ktx2Error> {
    let bytes = write(tex).map_err(|e| e.in_file(path))?;
    let io = |error| Ktx2Error::Io {
        path: path.to_path_buf(),
        action: "write",
        error,
    };
    let not_a_file = || std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name");
    let name = path.file_name().ok_or_else(|| io(not_a_file()))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    if let Err(error) = std::fs::write(&tmp, &bytes).and_then(|()| std::fs::rename(&tmp, path)) {
        // The write failed already; a temporary file that cannot be removed adds nothing.
        let _ = std::fs::remove_file(&tmp);
        return Err(io(error));
    }
    Ok(())
}

/// The reader (over the `ktx2` crate).
#[cfg(feature = "ktx2")]
mod read;
#[cfg(feature = "ktx2")]
pub use read::{read, read_file};

/// The text value of `key`: its bytes without one trailing NUL, when they are UTF-8 with no
/// other NUL; `None` when the key is absent or its value is not such text.
#[must_use]
pub fn key_value_text<'a>(tex: &'a Ktx2Texture, key: &str) -> Option<&'a str> {
    let (_, value) = tex.key_values.iter().find(|(k, _)| k == key)?;
    let text = value.strip_suffix(&[0]).unwrap_or(value);
    if text.contains(&0) {
        return None;
    }
    std::str::from_utf8(text).ok()
}
