//! The one KTX 2.0 reader under [`read()`](super::read()) (textures) and the image decoder: the
//! header through [`::ktx2::Header`], every section's extent checked against the file's length
//! before anything is read from it, then [`::ktx2::Reader`] for the DFD, key/values and levels,
//! and the levels' supercompression undone. What each caller accepts (formats, shapes, the DFD)
//! it checks itself between the steps:
//!
//! 1. [`header`]: the identifier, the 80 bytes, the `ktx2` crate's header;
//! 2. [`check_scheme`], [`check_layers`]: what both callers refuse;
//! 3. [`Container::new`]: the level index, DFD, key/value data and supercompression global data
//!    inside the file;
//! 4. the caller's DFD check (the `ktx2` crate's DFD parser panics on a texelBlockDimension
//!    byte of 255, so no DFD reaches it unchecked);
//! 5. [`Container::check_level`] for each level: inside the file, its size, and for a
//!    supercompressed level an uncompressedByteLength its bytes can expand to;
//! 6. [`Container::reader`], then [`Container::level`] for the texels.

use std::borrow::Cow;

use ::ktx2::{Header, LevelIndex, Reader};

use super::supercompression::{self, ZLIB, ZSTD};
use super::{check_level_len, Ktx2Error, Section, HEADER_LEN, IDENTIFIER, LEVEL_ENTRY_LEN};

/// The header of `bytes`.
///
/// # Errors
/// [`Ktx2Error::NotKtx2`] when the bytes it has differ from the identifier,
/// [`Truncated`](Ktx2Error::Truncated) when the header is cut, [`Parse`](Ktx2Error::Parse) for
/// a pixelWidth or faceCount of 0.
pub(super) fn header(bytes: &[u8]) -> Result<Header, Ktx2Error> {
    let n = bytes.len().min(IDENTIFIER.len());
    if bytes[..n] != IDENTIFIER[..n] {
        return Err(Ktx2Error::NotKtx2);
    }
    let head: &[u8; HEADER_LEN] = bytes
        .get(..HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or(Ktx2Error::Truncated {
            what: Section::Header,
            end: HEADER_LEN as u64,
            len: bytes.len(),
        })?;
    Header::from_bytes(head).map_err(Ktx2Error::Parse)
}

/// The header's supercompressionScheme as a number (0: none).
pub(super) fn scheme(h: &Header) -> u32 {
    h.supercompression_scheme.map_or(0, |s| s.value())
}

/// Refuses supercompression other than none, Zstandard and ZLIB; BasisLZ by name.
pub(super) fn check_scheme(h: &Header) -> Result<(), Ktx2Error> {
    match scheme(h) {
        0 | ZSTD | ZLIB => Ok(()),
        1 => Err(Ktx2Error::BasisUniversal {
            kind: "BasisLZ/ETC1S",
        }),
        scheme => Err(Ktx2Error::UnsupportedScheme { scheme }),
    }
}

/// Refuses 3D and cube textures, arrays unless `arrays` are read (and, when `one_d` is refused,
/// 1D textures).
pub(super) fn check_layers(h: &Header, one_d: OneD, arrays: Arrays) -> Result<(), Ktx2Error> {
    let one_d_refused = h.pixel_height == 0 && one_d == OneD::Refused;
    let array_refused = h.layer_count > 0 && arrays == Arrays::Refused;
    if one_d_refused || h.pixel_depth > 0 || array_refused || h.face_count != 1 {
        return Err(Ktx2Error::NotTwoD {
            pixel_height: h.pixel_height,
            pixel_depth: h.pixel_depth,
            layer_count: h.layer_count,
            face_count: h.face_count,
        });
    }
    Ok(())
}

/// Whether a 1D texture (pixelHeight 0) is read, as one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OneD {
    /// Read as one row.
    OneRow,
    /// Refused.
    Refused,
}

/// Whether array textures (layerCount > 0) are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Arrays {
    /// Read, every layer of every level.
    Read,
    /// Refused.
    Refused,
}

/// A file whose sections lie inside it.
pub(super) struct Container<'a> {
    bytes: &'a [u8],
    /// The header.
    pub(super) header: Header,
    /// The level index: max(levelCount, 1) entries, level 0 first.
    pub(super) index: Vec<LevelIndex>,
    /// The DFD section, dfdTotalSize first.
    pub(super) dfd: &'a [u8],
}

/// `start..start + len` as a range of `bytes`, or the error naming `what`.
fn extent(bytes: &[u8], what: Section, start: u64, len: u64) -> Result<&[u8], Ktx2Error> {
    let end = start.saturating_add(len);
    usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(start, end)| bytes.get(start..end))
        .ok_or(Ktx2Error::Truncated {
            what,
            end,
            len: bytes.len(),
        })
}

impl<'a> Container<'a> {
    /// Checks, in file order, that the level index, the DFD, the key/value data and the
    /// supercompression global data lie inside `bytes`.
    ///
    /// # Errors
    /// [`Ktx2Error::Truncated`] naming the first that does not.
    pub(super) fn new(bytes: &'a [u8], header: Header) -> Result<Self, Ktx2Error> {
        let count = u64::from(header.level_count.max(1));
        let index_len = count * LEVEL_ENTRY_LEN as u64;
        let index = extent(bytes, Section::LevelIndex, HEADER_LEN as u64, index_len)?;
        let index = index
            .chunks_exact(LEVEL_ENTRY_LEN)
            .map(|entry| {
                let mut bytes = [0; LEVEL_ENTRY_LEN];
                bytes.copy_from_slice(entry); // chunks_exact: every entry is LEVEL_ENTRY_LEN long
                LevelIndex::from_bytes(&bytes)
            })
            .collect();
        let i = header.index;
        let dfd = extent(
            bytes,
            Section::Dfd,
            i.dfd_byte_offset.into(),
            i.dfd_byte_length.into(),
        )?;
        let (kvd_at, kvd_len) = (i.kvd_byte_offset.into(), i.kvd_byte_length.into());
        extent(bytes, Section::KeyValues, kvd_at, kvd_len)?;
        extent(bytes, Section::Sgd, i.sgd_byte_offset, i.sgd_byte_length)?;
        Ok(Self {
            bytes,
            header,
            index,
            dfd,
        })
    }

    /// The supercompressionScheme (0: none).
    pub(super) fn scheme(&self) -> u32 {
        scheme(&self.header)
    }

    /// Checks level `p`: that it lies inside the file, that it is `expected` bytes (its
    /// byteLength, or for a supercompressed level its uncompressedByteLength, which its stored
    /// bytes must be able to expand to). `size` and `vk_format` name the level in errors.
    ///
    /// # Errors
    /// [`Ktx2Error::Truncated`], [`LevelSize`](Ktx2Error::LevelSize),
    /// [`Ktx2Error::CannotExpand`].
    pub(super) fn check_level(
        &self,
        p: usize,
        expected: u64,
        size: (u32, u32),
        vk_format: u32,
    ) -> Result<(), Ktx2Error> {
        let entry = self.index[p];
        extent(
            self.bytes,
            Section::Level(p),
            entry.byte_offset,
            entry.byte_length,
        )?;
        let scheme = self.scheme();
        let len = if scheme == 0 {
            entry.byte_length
        } else {
            entry.uncompressed_byte_length
        };
        check_level_len(p, len, expected, size, vk_format)?;
        if scheme != 0 {
            supercompression::check_ratio(p, scheme, entry.byte_length, expected)?;
        }
        Ok(())
    }

    /// Checks that every level lies inside the file (what [`Container::reader`] needs of the
    /// levels a caller does not read).
    ///
    /// # Errors
    /// [`Ktx2Error::Truncated`].
    pub(super) fn check_extents(&self) -> Result<(), Ktx2Error> {
        for (p, entry) in self.index.iter().enumerate() {
            let (at, len) = (entry.byte_offset, entry.byte_length);
            extent(self.bytes, Section::Level(p), at, len)?;
        }
        Ok(())
    }

    /// The `ktx2` crate's reader of the file. Call it only once the DFD is checked.
    ///
    /// # Errors
    /// [`Ktx2Error::Parse`] for what that reader refuses beyond the checks above.
    pub(super) fn reader(&self) -> Result<Reader<&'a [u8]>, Ktx2Error> {
        Reader::new(self.bytes).map_err(Ktx2Error::Parse)
    }

    /// The texels of level `p` (checked by [`Container::check_level`]): its bytes, or for a
    /// supercompressed level its data decompressed to uncompressedByteLength.
    ///
    /// # Errors
    /// [`Ktx2Error::LevelTooLarge`] for a level that does not fit in memory,
    /// [`Ktx2Error::Decompress`], [`Ktx2Error::DecompressedLength`].
    pub(super) fn level<'r>(
        reader: &'r Reader<&'a [u8]>,
        p: usize,
    ) -> Result<Cow<'r, [u8]>, Ktx2Error> {
        let scheme = scheme(&reader.header());
        let Some(level) = reader.levels().nth(p) else {
            return Err(Ktx2Error::Truncated {
                what: Section::LevelIndex,
                end: (HEADER_LEN + LEVEL_ENTRY_LEN * (p + 1)) as u64,
                len: reader.data().len(),
            });
        };
        if scheme == 0 {
            return Ok(level.data.into());
        }
        let bytes = level.uncompressed_byte_length;
        let expected =
            usize::try_from(bytes).map_err(|_| Ktx2Error::LevelTooLarge { level: p, bytes })?;
        let texels = supercompression::expand(p, scheme, level.data, expected)?;
        Ok(texels.into())
    }
}
