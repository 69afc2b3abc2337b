//! Reading KTX 2.0 files: our own check of the DFD's format-defining fields, then the `ktx2`
//! crate's reader (which panics on some crafted DFDs, hence the check first).

use std::path::Path;

use super::*;

/// Checks the DFD fields the spec says must match the format (all but primaries, transfer,
/// flags and the samples' LINEAR bit) against the DFD [`write()`] makes for `format`.
fn check_dfd(format: TexelFormat, found: &[u8]) -> Result<(), Ktx2Error> {
    let expected = format.dfd();
    let what = format!("the data format descriptor is not {format}'s");
    if found.len() != expected.len() {
        let (n, e) = (found.len(), expected.len());
        malformed!("{what}: it is {n} bytes, {format}'s is {e} (one Basic block)");
    }
    for (i, (&f, &e)) in found.iter().zip(&expected).enumerate() {
        let (free, field) = match i {
            12 => (0, "colorModel"),
            13..=15 => (0xFF, ""),
            16..=19 => (0, "texelBlockDimension"),
            20..=27 => (0, "bytesPlane"),
            28.. if (i - DFD_SAMPLES) % SAMPLE_LEN == 3 => (LINEAR, "channelType/qualifiers"),
            28.. => (0, "sample"),
            _ => (0, "dfdTotalSize or block header"),
        };
        if (f ^ e) & !free != 0 {
            malformed!("{what}: byte {i} ({field}) is {f}, not {e}");
        }
    }
    Ok(())
}

/// Reads a KTX 2.0 file that holds a 2D [`TexelFormat`] texture without supercompression.
///
/// Checks, in file order, the identifier and header (format, scheme, texture type, typeSize,
/// level count: 1 to [`full_mip_count`], levelCount 0 meaning one level and refused for BC),
/// the extents of the level index, DFD, key/value data and levels, the DFD against the format
/// and each level's size and alignment; then reads levels and key/values through
/// [`::ktx2::Reader`], and checks that the key/value entries fill kvdByteLength.
///
/// # Errors
/// [`Ktx2Error::Truncated`] when a section runs past the end, [`NotKtx2`](Ktx2Error::NotKtx2),
/// [`UnsupportedFormat`](Ktx2Error::UnsupportedFormat),
/// [`Supercompressed`](Ktx2Error::Supercompressed), [`NotTwoD`](Ktx2Error::NotTwoD),
/// [`LevelCount`](Ktx2Error::LevelCount), [`LevelSize`](Ktx2Error::LevelSize),
/// [`Malformed`](Ktx2Error::Malformed), [`Parse`](Ktx2Error::Parse). It never panics.
pub fn read(bytes: &[u8]) -> Result<Ktx2Texture, Ktx2Error> {
    let len = bytes.len();
    let truncated = |what: &str, end: u64| Ktx2Error::Truncated {
        what: what.into(),
        end,
        len,
    };
    let head: &[u8; HEADER_LEN] = bytes
        .get(..HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| truncated("the header", HEADER_LEN as u64))?;
    if head[..12] != IDENTIFIER {
        return Err(Ktx2Error::NotKtx2);
    }
    let h = ::ktx2::Header::from_bytes(head).map_err(Ktx2Error::Parse)?;
    if let Some(scheme) = h.supercompression_scheme {
        return Err(Ktx2Error::Supercompressed {
            scheme: scheme.value(),
        });
    }
    let vk_format = h.format.map_or(0, |f| f.value());
    let format =
        TexelFormat::from_vk_format(vk_format).ok_or(Ktx2Error::UnsupportedFormat { vk_format })?;
    let not_2d = match (h.pixel_height, h.pixel_depth, h.layer_count, h.face_count) {
        (0, ..) => "a 1D texture (pixelHeight 0)".to_owned(),
        (_, depth @ 1.., ..) => format!("a 3D texture (pixelDepth {depth})"),
        (_, _, layers @ 1.., _) => format!("an array texture (layerCount {layers})"),
        (.., faces) if faces != 1 => format!("faceCount {faces}"),
        _ => String::new(),
    };
    if !not_2d.is_empty() {
        return Err(Ktx2Error::NotTwoD(not_2d));
    }
    if h.type_size != format.type_size() {
        malformed!(
            "typeSize is {}, {format} has {}",
            h.type_size,
            format.type_size()
        );
    }
    let (width, height) = (h.pixel_width, h.pixel_height);
    let max = full_mip_count(width, height);
    let count = match h.level_count {
        0 if format.block_size() != (1, 1) => {
            malformed!("levelCount is 0, not allowed for {format}")
        }
        0 => 1,
        n if n > max => {
            let count = u64::from(n);
            return Err(Ktx2Error::LevelCount {
                count,
                max,
                width,
                height,
            });
        }
        n => n as usize,
    };

    let index_end = HEADER_LEN + LEVEL_ENTRY_LEN * count;
    let index = bytes
        .get(HEADER_LEN..index_end)
        .ok_or_else(|| truncated("the level index", index_end as u64))?;
    let idx = h.index;
    if idx.sgd_byte_length != 0 {
        malformed!(
            "sgdByteLength is {} without supercompression",
            idx.sgd_byte_length
        );
    }
    let dfd_end = u64::from(idx.dfd_byte_offset) + u64::from(idx.dfd_byte_length);
    let dfd = bytes
        .get(idx.dfd_byte_offset as usize..usize::try_from(dfd_end).unwrap_or(usize::MAX))
        .ok_or_else(|| truncated("the data format descriptor", dfd_end))?;
    // Before the ktx2 reader sees it: that reader panics on some malformed DFDs.
    check_dfd(format, dfd)?;
    let kvd_end = u64::from(idx.kvd_byte_offset) + u64::from(idx.kvd_byte_length);
    if kvd_end > len as u64 {
        return Err(truncated("the key/value data", kvd_end));
    }
    if idx.kvd_byte_length != 0 && u64::from(idx.kvd_byte_offset) != dfd_end {
        let k = idx.kvd_byte_offset;
        malformed!("the key/value data starts at byte {k}, not where the DFD ends ({dfd_end})");
    }
    let align = format.mip_alignment() as u64;
    for p in 0..count {
        let field = |k: usize| le_u64(index, p * LEVEL_ENTRY_LEN + 8 * k);
        let (Some(offset), Some(length), Some(unpacked)) = (field(0), field(1), field(2)) else {
            return Err(truncated("the level index", index_end as u64));
        };
        check_level_len(format, (width, height), p, length)?;
        if unpacked != length {
            malformed!("level {p} has uncompressedByteLength {unpacked} but byteLength {length}");
        }
        if offset % align != 0 {
            malformed!("level {p} starts at byte {offset}, not a multiple of {align} (mipPadding)");
        }
        let end = offset.saturating_add(length);
        if end > len as u64 {
            return Err(truncated(&format!("level {p}"), end));
        }
    }

    let reader = ::ktx2::Reader::new(bytes).map_err(Ktx2Error::Parse)?;
    let levels = reader.levels().map(|level| level.data.to_vec()).collect();
    let mut key_values = Vec::new();
    let mut filled = 0u64;
    for (key, value) in reader.key_value_data() {
        filled += 4 + ((key.len() + 1 + value.len()) as u64).next_multiple_of(4);
        key_values.push((key.to_owned(), value.to_vec()));
    }
    // The ktx2 iterator skips malformed entries; the spec makes the entries fill kvdByteLength.
    if filled != u64::from(idx.kvd_byte_length) {
        let kvd_len = idx.kvd_byte_length;
        malformed!(
            "the key/value data is {kvd_len} bytes but its well-formed entries fill {filled}"
        );
    }
    Ok(Ktx2Texture {
        format,
        width,
        height,
        levels,
        key_values,
    })
}

/// Reads the KTX 2.0 file at `path` (see [`read()`]).
///
/// # Errors
/// [`Ktx2Error::Io`] when the file cannot be read; those of [`read()`] as
/// [`InFile`](Ktx2Error::InFile), naming `path`.
pub fn read_file(path: &Path) -> Result<Ktx2Texture, Ktx2Error> {
    let bytes = std::fs::read(path).map_err(|error| Ktx2Error::Io {
        path: path.to_path_buf(),
        action: "read",
        error,
    })?;
    read(&bytes).map_err(|e| e.in_file(path))
}
