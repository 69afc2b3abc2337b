//! Reading a [`Ktx2Texture`]: a 2D texture in one of the eight [`TexelFormat`]s, through the
//! one reader (`container.rs`) with the checks of a file qtangent writes — the DFD byte for
//! byte the format's own (but for primaries, transfer, flags and the samples' LINEAR bit), the
//! header's typeSize, levels on their mipPadding, key/values right after the DFD and filling
//! their section. Supercompressed (Zstandard, ZLIB) levels are decompressed.

use std::borrow::Cow;
use std::path::Path;

use ::ktx2::{Header, Reader};

use super::container::{self, Arrays, Container, OneD};
use super::format::{DFD_SAMPLES, DFD_SAMPLE_LEN, LINEAR};
use super::{full_mip_count, level_size, Ktx2Error, Ktx2Texture, TexelFormat};

/// Checks the DFD fields the spec says must match the format (all but primaries, transfer,
/// flags and the samples' LINEAR bit) against the DFD the writer makes for `format`.
fn check_dfd(format: TexelFormat, found: &[u8]) -> Result<(), Ktx2Error> {
    let expected = format.dfd();
    if found.len() != expected.len() {
        return Err(Ktx2Error::DfdLength {
            format,
            len: found.len(),
            expected: expected.len(),
        });
    }
    for (byte, (&found, &expected)) in found.iter().zip(&expected).enumerate() {
        let (free, field) = match byte {
            12 => (0, "colorModel"),
            13..=15 => (0xFF, ""),
            16..=19 => (0, "texelBlockDimension"),
            20..=27 => (0, "bytesPlane"),
            DFD_SAMPLES.. if (byte - DFD_SAMPLES) % DFD_SAMPLE_LEN == 3 => {
                (LINEAR, "channelType/qualifiers")
            }
            DFD_SAMPLES.. => (0, "sample"),
            _ => (0, "dfdTotalSize or block header"),
        };
        if (found ^ expected) & !free != 0 {
            return Err(Ktx2Error::DfdByte {
                format,
                byte,
                field,
                found,
                expected,
            });
        }
    }
    Ok(())
}

/// The texture's format and level count from its header, with what a texture refuses: other
/// formats, shapes than 2D, typeSizes than the format's, more levels than the size allows, and
/// levelCount 0 for a block format.
fn texture_header(h: &Header) -> Result<(TexelFormat, usize), Ktx2Error> {
    container::check_scheme(h)?;
    let vk_format = h.format.map_or(0, |f| f.value());
    let format =
        TexelFormat::from_vk_format(vk_format).ok_or(Ktx2Error::UnsupportedFormat { vk_format })?;
    container::check_layers(h, OneD::Refused, Arrays::Read)?;
    if h.type_size != format.type_size() {
        let type_size = h.type_size;
        return Err(Ktx2Error::TypeSize { type_size, format });
    }
    let (width, height) = (h.pixel_width, h.pixel_height);
    let max = full_mip_count(width, height);
    match h.level_count {
        0 if format.block_size() != (1, 1) => Err(Ktx2Error::ZeroLevelCount(format)),
        0 => Ok((format, 1)),
        n if n > max => Err(Ktx2Error::LevelCount {
            count: u64::from(n),
            max,
            width,
            height,
        }),
        n => Ok((format, n as usize)),
    }
}

/// Checks what the sections of a file qtangent writes are: no supercompression global data,
/// and the key/value data right after the DFD.
fn check_sections(h: &Header) -> Result<(), Ktx2Error> {
    let i = h.index;
    if i.sgd_byte_length != 0 {
        return Err(Ktx2Error::SgdLength(i.sgd_byte_length));
    }
    let dfd_end = u64::from(i.dfd_byte_offset) + u64::from(i.dfd_byte_length);
    if i.kvd_byte_length != 0 && u64::from(i.kvd_byte_offset) != dfd_end {
        return Err(Ktx2Error::KvdOffset {
            offset: i.kvd_byte_offset,
            dfd_end,
        });
    }
    Ok(())
}

/// Checks every level: inside the file, its size, and when stored uncompressed its
/// uncompressedByteLength and its alignment (mipPadding).
fn check_levels(c: &Container, format: TexelFormat, count: usize) -> Result<(), Ktx2Error> {
    let (width, height) = (c.header.pixel_width, c.header.pixel_height);
    let align = format.mip_alignment() as u64;
    let images = u64::from(c.header.layer_count.max(1));
    for p in 0..count {
        let size = level_size(width, height, p);
        // Saturating: a header whose layers × level bytes pass u64 expects more than any file
        // holds, and the level check below refuses it.
        let expected = (format.level_bytes(size.0, size.1) as u64).saturating_mul(images);
        c.check_level(p, expected, size, format.vk_format())?;
        let entry = c.index[p];
        if c.scheme() != 0 {
            continue;
        }
        let (offset, length) = (entry.byte_offset, entry.byte_length);
        if entry.uncompressed_byte_length != length {
            let uncompressed = entry.uncompressed_byte_length;
            return Err(Ktx2Error::UncompressedLength {
                level: p,
                uncompressed,
                length,
            });
        }
        if offset % align != 0 {
            return Err(Ktx2Error::Alignment {
                level: p,
                offset,
                align,
            });
        }
    }
    Ok(())
}

/// The key/value entries, in file order; they must fill kvdByteLength (the `ktx2` crate's
/// iterator skips malformed entries).
fn key_values(reader: &Reader<&[u8]>) -> Result<Vec<(String, Vec<u8>)>, Ktx2Error> {
    let mut key_values = Vec::new();
    let mut filled = 0u64;
    for (key, value) in reader.key_value_data() {
        filled += 4 + ((key.len() + 1 + value.len()) as u64).next_multiple_of(4);
        key_values.push((key.to_owned(), value.to_vec()));
    }
    let kvd_len = reader.header().index.kvd_byte_length;
    if filled != u64::from(kvd_len) {
        return Err(Ktx2Error::KvdFill { kvd_len, filled });
    }
    Ok(key_values)
}

/// Reads a KTX 2.0 file that holds a 2D [`TexelFormat`] texture, uncompressed or with Zstandard
/// or ZLIB supercompression.
///
/// Checks, in this order, the identifier and header (supercompression, format, texture type,
/// typeSize, level count: 1 to ⌊log₂ max(width, height)⌋ + 1, levelCount 0 meaning one level
/// and refused for block formats), the extents of the level index, DFD, key/value data and
/// supercompression global data (which must be empty), the DFD against the format, and each
/// level's extent, size and (uncompressed) alignment; then reads levels and key/values through
/// [`::ktx2::Reader`], and checks that the key/value entries fill kvdByteLength.
///
/// # Errors
/// [`Ktx2Error::NotKtx2`], [`Truncated`](Ktx2Error::Truncated) when a section runs past the
/// end, [`UnsupportedFormat`](Ktx2Error::UnsupportedFormat),
/// [`BasisUniversal`](Ktx2Error::BasisUniversal),
/// [`UnsupportedScheme`](Ktx2Error::UnsupportedScheme), [`NotTwoD`](Ktx2Error::NotTwoD),
/// [`LevelCount`](Ktx2Error::LevelCount), [`LevelSize`](Ktx2Error::LevelSize),
/// the `malformed: …` variants of [`Ktx2Error`], [`Parse`](Ktx2Error::Parse). It never panics.
pub(crate) fn read(bytes: &[u8]) -> Result<Ktx2Texture, Ktx2Error> {
    let header = container::header(bytes)?;
    let (format, count) = texture_header(&header)?;
    let c = Container::new(bytes, header)?;
    check_sections(&header)?;
    check_dfd(format, c.dfd)?;
    check_levels(&c, format, count)?;
    let reader = c.reader()?;
    let levels = (0..count)
        .map(|p| Container::level(&reader, p).map(Cow::into_owned))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Ktx2Texture {
        format,
        width: header.pixel_width,
        height: header.pixel_height,
        layers: header.layer_count,
        levels,
        key_values: key_values(&reader)?,
    })
}

/// Reads the KTX 2.0 file at `path` (see [`read()`]).
///
/// # Errors
/// [`Ktx2Error::Io`] when the file cannot be read; those of [`read()`] as
/// [`InFile`](Ktx2Error::InFile), naming `path`.
pub(crate) fn read_file(path: &Path) -> Result<Ktx2Texture, Ktx2Error> {
    let bytes = std::fs::read(path).map_err(|error| Ktx2Error::Io {
        path: path.to_path_buf(),
        action: "read",
        error,
    })?;
    read(&bytes).map_err(|e| e.in_file(path))
}
