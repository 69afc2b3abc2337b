//! Supercompressed levels: Zstandard (scheme 2, `ruzstd`) and ZLIB (scheme 3, `flate2`), both
//! pure Rust, decompressed into exactly the level's uncompressedByteLength — never into a buffer
//! larger than the stored bytes can expand to.

use std::io::Read;

use super::Ktx2Error;

/// Zstandard.
pub(super) const ZSTD: u32 = 2;
/// ZLIB (deflate with the zlib header and checksum).
pub(super) const ZLIB: u32 = 3;

/// Largest output a Zstandard stream can give per input byte. A block holds at most 128 KiB of
/// content (`Block_Maximum_Size`, RFC 8878 §3.1.1.2.4) and costs at least 4 bytes (its 3-byte
/// header and, for an RLE block, the 1 repeated byte), so no frame expands more than
/// 131072 / 4 = 32768 : 1; frame headers and skippable frames only lower the ratio.
const MAX_ZSTD_RATIO: u64 = 32768;
/// Largest output a ZLIB stream can give per input byte: deflate's limit of 258 bytes (one
/// longest match) per 2 bits (a 1-bit length code and a 1-bit distance code in a dynamic Huffman
/// block) is 1032 : 1; the block headers and the zlib header and checksum only lower it.
const MAX_DEFLATE_RATIO: u64 = 1032;

/// Checks that `stored` bytes of `scheme` (2 or 3) data can expand to level `level`'s
/// `expected` bytes.
pub(super) fn check_ratio(
    level: usize,
    scheme: u32,
    stored: u64,
    expected: u64,
) -> Result<(), Ktx2Error> {
    let ratio = if scheme == ZSTD {
        MAX_ZSTD_RATIO
    } else {
        MAX_DEFLATE_RATIO
    };
    if expected > stored.saturating_mul(ratio) {
        return Err(Ktx2Error::CannotExpand {
            level,
            scheme,
            stored,
            expected,
            ratio,
        });
    }
    Ok(())
}

/// Level `level`'s `data` of `scheme` (2 or 3) decompressed: exactly `expected` bytes, which
/// [`check_ratio`] has allowed.
pub(super) fn expand(
    level: usize,
    scheme: u32,
    data: &[u8],
    expected: usize,
) -> Result<Vec<u8>, Ktx2Error> {
    let fail = |error| Ktx2Error::Decompress {
        level,
        scheme,
        error,
    };
    let out = if scheme == ZSTD {
        unzstd(data, expected).map_err(fail)?
    } else {
        unzlib(data, expected).map_err(fail)?
    };
    match out {
        Some(out) if out.len() == expected => Ok(out),
        got => Err(Ktx2Error::DecompressedLength {
            level,
            scheme,
            got: got.map(|out| out.len()),
            expected: expected as u64,
        }),
    }
}

type BoxedError = Box<dyn std::error::Error + Send + Sync>;

/// Decompresses Zstandard frames into at most `expected` bytes; `None` when there are more.
fn unzstd(data: &[u8], expected: usize) -> Result<Option<Vec<u8>>, BoxedError> {
    use ruzstd::decoding::errors::FrameDecoderError;
    let mut out = vec![0u8; expected];
    let mut decoder = ruzstd::decoding::FrameDecoder::new();
    match decoder.decode_all(data, &mut out) {
        Ok(n) => {
            out.truncate(n);
            Ok(Some(out))
        }
        Err(FrameDecoderError::TargetTooSmall) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Decompresses a ZLIB stream, reading at most `expected` + 1 bytes of output; `None` when
/// there are more than `expected`.
fn unzlib(data: &[u8], expected: usize) -> Result<Option<Vec<u8>>, BoxedError> {
    let mut out = Vec::with_capacity(expected);
    flate2::read::ZlibDecoder::new(data)
        .take(expected as u64 + 1)
        .read_to_end(&mut out)?;
    Ok((out.len() <= expected).then_some(out))
}
