//! What can go wrong writing, reading or decoding a KTX 2.0 file: [`Ktx2Error`] (its
//! `malformed: …` variants for files that contradict the spec), with [`Section`] for the part a
//! truncated file lacks. Messages are one line; [`Ktx2Error::InFile`] and [`Ktx2Error::Io`] name the file.

use std::fmt;
use std::path::{Path, PathBuf};

use super::TexelFormat;

/// What can go wrong writing, reading or decoding a KTX 2.0 file. Every message is one line.
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
    /// A level's byte count (uncompressed, for a supercompressed level) does not match its size
    /// and format.
    #[error(
        "level {level} is {len} bytes, a {width}×{height} {} level needs {expected}",
        format_name(*.vk_format)
    )]
    LevelSize {
        /// The level.
        level: usize,
        /// Bytes given, or the file's uncompressedByteLength.
        len: u64,
        /// Bytes needed.
        expected: u64,
        /// The level's width.
        width: u32,
        /// The level's height.
        height: u32,
        /// The texel format's Vulkan number.
        vk_format: u32,
    },
    /// A key/value entry that KTX 2.0 does not allow.
    #[error("key/value entry {key:?}: {problem}")]
    Key {
        /// The key.
        key: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A key/value entry, or all of them, beyond what KTX 2.0's 32-bit lengths can hold.
    #[error("too large for KTX 2.0's 32-bit lengths: {bytes} bytes of key/value data{}",
        key.as_ref().map(|k| format!(" in entry {k:?}")).unwrap_or_default())]
    KeyValuesTooLarge {
        /// The entry, or `None` for the whole section.
        key: Option<String>,
        /// Its bytes.
        bytes: usize,
    },
    /// The identifier is missing.
    #[error("not a KTX 2.0 file: the first 12 bytes are not the KTX 2.0 identifier")]
    NotKtx2,
    /// A part of the file runs past its end.
    #[error("truncated: {what} ends at byte {end} but the file has {len}")]
    Truncated {
        /// The part.
        what: Section,
        /// Where it would end.
        end: u64,
        /// The file's length.
        len: usize,
    },
    /// A vkFormat that is not one of the [`TexelFormat`]s a texture is read in.
    #[error(
        "vkFormat {vk_format} ({}) is not one of the eight formats qtangent reads a texture in",
        vk_format_name(*.vk_format)
    )]
    UnsupportedFormat {
        /// The file's vkFormat.
        vk_format: u32,
    },
    /// A vkFormat that images are not decoded from.
    #[error(
        "vkFormat {vk_format} ({}) is not a format qtangent decodes to an image (uncompressed \
         8-, 16- and 32-bit R, RG, RGB, RGBA and BGR(A), BC1–BC7 are)",
        vk_format_name(*.vk_format)
    )]
    UnsupportedImageFormat {
        /// The file's vkFormat.
        vk_format: u32,
    },
    /// Basis Universal data: supercompressionScheme 1 (BasisLZ), or a DFD colour model of
    /// ETC1S or UASTC.
    #[error(
        "Basis Universal ({kind}) textures are not supported: they must be transcoded to BC7 or \
         an uncompressed format first"
    )]
    BasisUniversal {
        /// `BasisLZ/ETC1S`, `UASTC`, `UASTC HDR 4x4` or `UASTC HDR 6x6`.
        kind: &'static str,
    },
    /// vkFormat 0 (undefined) that is not Basis Universal.
    #[error("vkFormat 0 (VK_FORMAT_UNDEFINED) {} is not supported", match .color_model {
        Some(m) => format!("with DFD colour model {m}"),
        None => "without a readable DFD colour model".into(),
    })]
    UndefinedFormat {
        /// The colour model of the DFD's first Basic block, when there is one.
        color_model: Option<u8>,
    },
    /// A supercompression scheme qtangent does not read (schemes 0, 2 and 3 are read; scheme 1
    /// is [`BasisUniversal`](Self::BasisUniversal)).
    #[error(
        "supercompression scheme {scheme} ({}) is not supported: qtangent reads schemes 0 \
         (none), 2 (Zstandard) and 3 (ZLIB)",
        scheme_name(*.scheme)
    )]
    UnsupportedScheme {
        /// The scheme's number.
        scheme: u32,
    },
    /// A 1D (for a texture; an image reads it as one row), 3D, array or cube texture.
    #[error(
        "{}: qtangent reads 2D textures (pixelDepth 0, faceCount 1; an image layerCount 0)",
        shape(*.pixel_height, *.pixel_depth, *.layer_count, *.face_count)
    )]
    NotTwoD {
        /// pixelHeight (0: a 1D texture).
        pixel_height: u32,
        /// pixelDepth (> 0: a 3D texture).
        pixel_depth: u32,
        /// layerCount (> 0: an array texture).
        layer_count: u32,
        /// faceCount (6: a cube map).
        face_count: u32,
    },
    /// An image of more than 16384 × 16384 texels (the most qtangent decodes).
    #[error("{width}×{height} texels is over the limit of 16384×16384 for an image")]
    TooManyTexels {
        /// pixelWidth.
        width: u32,
        /// pixelHeight.
        height: u32,
    },
    /// A level too large for this machine's memory to address.
    #[error("level {level} is {bytes} bytes, more than this machine can address")]
    LevelTooLarge {
        /// The level.
        level: usize,
        /// Its (uncompressed) bytes.
        bytes: u64,
    },
    // How a file contradicts the spec (or, for a map, what qtangent writes): "malformed: …".
    /// The header's typeSize is not the format's.
    #[error("malformed: typeSize is {type_size}, {format} has {}", format.type_size())]
    TypeSize {
        /// The file's typeSize.
        type_size: u32,
        /// The format.
        format: TexelFormat,
    },
    /// levelCount 0 ("generate the mips") for a block-compressed format.
    #[error("malformed: levelCount is 0, not allowed for {0}")]
    ZeroLevelCount(TexelFormat),
    /// Supercompression global data without BasisLZ.
    #[error("malformed: sgdByteLength is {0} without BasisLZ supercompression")]
    SgdLength(u64),
    /// Key/value data away from the end of the DFD.
    #[error(
        "malformed: the key/value data starts at byte {offset}, not where the DFD ends ({dfd_end})"
    )]
    KvdOffset {
        /// kvdByteOffset.
        offset: u32,
        /// dfdByteOffset + dfdByteLength.
        dfd_end: u64,
    },
    /// A DFD of another length than the format's.
    #[error(
        "malformed: the data format descriptor is not {format}'s: it is {len} bytes, {format}'s is \
         {expected} (one Basic block)"
    )]
    DfdLength {
        /// The format.
        format: TexelFormat,
        /// dfdByteLength.
        len: usize,
        /// The format's DFD length.
        expected: usize,
    },
    /// A DFD byte that the format fixes, with another value.
    #[error(
        "malformed: the data format descriptor is not {format}'s: byte {byte} ({field}) is {found}, not \
         {expected}"
    )]
    DfdByte {
        /// The format.
        format: TexelFormat,
        /// Offset in the DFD section.
        byte: usize,
        /// The field the byte belongs to.
        field: &'static str,
        /// The file's byte.
        found: u8,
        /// The format's.
        expected: u8,
    },
    /// DFD blocks that do not tile the DFD section.
    #[error("malformed: the data format descriptor's blocks do not fill its {0} bytes")]
    DfdBlocks(usize),
    /// A Basic DFD block whose texel block size is not the format's.
    #[error(
        "malformed: the data format descriptor's texelBlockDimension is {found:?}, {}'s is {expected:?}",
        format_name(*.vk_format)
    )]
    DfdBlockSize {
        /// The file's vkFormat.
        vk_format: u32,
        /// texelBlockDimension0..3 as stored (size − 1).
        found: [u8; 4],
        /// The format's.
        expected: [u8; 4],
    },
    /// An uncompressed level whose uncompressedByteLength is not its byteLength.
    #[error("malformed: level {level} has uncompressedByteLength {uncompressed} but byteLength {length}")]
    UncompressedLength {
        /// The level.
        level: usize,
        /// uncompressedByteLength.
        uncompressed: u64,
        /// byteLength.
        length: u64,
    },
    /// An uncompressed level off the format's alignment.
    #[error(
        "malformed: level {level} starts at byte {offset}, not a multiple of {align} (mipPadding)"
    )]
    Alignment {
        /// The level.
        level: usize,
        /// byteOffset.
        offset: u64,
        /// lcm(bytes per block, 4).
        align: u64,
    },
    /// Key/value data that its well-formed entries do not fill.
    #[error("malformed: the key/value data is {kvd_len} bytes but its well-formed entries fill {filled}")]
    KvdFill {
        /// kvdByteLength.
        kvd_len: u32,
        /// Bytes the entries fill.
        filled: u64,
    },
    /// A supercompressed level claiming more bytes than its data can expand to.
    #[error(
        "malformed: {stored} bytes of {} data cannot expand to level {level}'s {expected} bytes (at most \
         {ratio}:1)",
        scheme_name(*.scheme)
    )]
    CannotExpand {
        /// The level.
        level: usize,
        /// The supercompression scheme.
        scheme: u32,
        /// byteLength.
        stored: u64,
        /// uncompressedByteLength.
        expected: u64,
        /// The scheme's largest expansion.
        ratio: u64,
    },
    /// Supercompressed data that does not decompress.
    #[error("malformed: level {level}'s {} data does not decompress: {error}", scheme_name(*.scheme))]
    Decompress {
        /// The level.
        level: usize,
        /// The supercompression scheme.
        scheme: u32,
        /// The decompressor's error.
        error: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Supercompressed data that decompresses to another length than uncompressedByteLength.
    #[error(
        "malformed: level {level}'s {} data decompresses to {}, uncompressedByteLength is {expected}",
        scheme_name(*.scheme),
        match .got { Some(n) => format!("{n} bytes"), None => "more".into() }
    )]
    DecompressedLength {
        /// The level.
        level: usize,
        /// The supercompression scheme.
        scheme: u32,
        /// Bytes it gave, `None` for more than `expected`.
        got: Option<usize>,
        /// uncompressedByteLength.
        expected: u64,
    },
    /// The `ktx2` crate's reader refused the file.
    #[cfg(feature = "ktx2")]
    #[error("the ktx2 crate rejects the file: {0}")]
    Parse(::ktx2::ParseError),
    /// Reading or writing the file failed.
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// "read", "write" or "remove".
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

/// A part of a KTX 2.0 file, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The 80-byte header.
    Header,
    /// The level index.
    LevelIndex,
    /// The data format descriptor.
    Dfd,
    /// The key/value data.
    KeyValues,
    /// The supercompression global data.
    Sgd,
    /// A level's data.
    Level(usize),
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Section::Header => f.write_str("the header"),
            Section::LevelIndex => f.write_str("the level index"),
            Section::Dfd => f.write_str("the data format descriptor"),
            Section::KeyValues => f.write_str("the key/value data"),
            Section::Sgd => f.write_str("the supercompression global data"),
            Section::Level(p) => write!(f, "level {p}"),
        }
    }
}

impl Ktx2Error {
    /// This error with `path` in its message (an [`Io`](Self::Io) error names it already).
    pub(super) fn in_file(self, path: &Path) -> Self {
        match self {
            Self::Io { .. } | Self::InFile { .. } => self,
            error => Self::InFile {
                path: path.to_path_buf(),
                error: Box::new(error),
            },
        }
    }
}

/// `VK_FORMAT_…` as the `ktx2` crate names the number (without it: `vkFormat N`).
fn vk_format_name(v: u32) -> String {
    #[cfg(not(feature = "ktx2"))]
    return format!("vkFormat {v}");
    #[cfg(feature = "ktx2")]
    match ::ktx2::Format::new(v).map(|f| format!("{f:?}")) {
        None => "VK_FORMAT_UNDEFINED".into(),
        Some(name) if name.starts_with("Format(") => "unknown to the ktx2 crate".into(),
        Some(name) => format!("VK_FORMAT_{name}"),
    }
}

/// A [`TexelFormat`]'s name, or the `VK_FORMAT_…` name of any other number.
fn format_name(v: u32) -> String {
    TexelFormat::from_vk_format(v).map_or_else(|| vk_format_name(v), |f| f.name().into())
}

/// The name of supercompression scheme `scheme`.
pub(super) fn scheme_name(scheme: u32) -> &'static str {
    ["none", "BasisLZ", "Zstandard", "ZLIB"]
        .get(scheme as usize)
        .copied()
        .unwrap_or("unknown")
}

/// The texture's shape in words, for [`Ktx2Error::NotTwoD`].
fn shape(height: u32, depth: u32, layers: u32, faces: u32) -> String {
    match (height, depth, layers, faces) {
        (_, 1.., ..) => format!("a 3D texture (pixelDepth {depth})"),
        (_, _, 1.., _) => format!("an array texture (layerCount {layers})"),
        (.., 6) => "a cube map (faceCount 6)".into(),
        (.., 2..) => format!("faceCount {faces}"),
        (0, ..) => "a 1D texture (pixelHeight 0)".into(),
        _ => "a 2D texture".into(),
    }
}
