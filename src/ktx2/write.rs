//! The writer: a [`Ktx2Texture`] as the KTX 2.0 file the module docs of [`super`] lay out.

use std::borrow::Cow;
use std::path::Path;

use super::{
    check_level_len, full_mip_count, level_size, put_u32, Ktx2Error, Ktx2Texture, HEADER_LEN,
    IDENTIFIER, LEVEL_ENTRY_LEN,
};

/// The `KTXwriter` value [`write()`] adds (it stores it with a NUL).
const WRITER: &str = concat!("qtangent ", env!("CARGO_PKG_VERSION"));

/// Reserved keys that apply to a 2D texture; the spec makes their values NUL-terminated UTF-8.
const TEXT_KEYS: [&str; 4] = [
    "KTXorientation",
    "KTXswizzle",
    "KTXwriter",
    "KTXwriterScParams",
];

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
        let bytes = key.len() + 1 + value.len();
        let too_large = |_| Ktx2Error::KeyValuesTooLarge {
            key: Some(key.to_owned()),
            bytes,
        };
        put_u32(&mut out, u32::try_from(bytes).map_err(too_large)?);
        out.extend(key.as_bytes());
        out.push(0);
        out.extend(value.iter());
        out.resize(out.len().next_multiple_of(4), 0); // valuePadding
    }
    Ok(out)
}

/// Checks the texture's size, level count and level lengths.
fn check(tex: &Ktx2Texture) -> Result<(), Ktx2Error> {
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
        let size = level_size(width, height, p);
        let expected = tex.format.level_bytes(size.0, size.1) as u64 * tex.images();
        check_level_len(
            p,
            level.len() as u64,
            expected,
            size,
            tex.format.vk_format(),
        )?;
    }
    Ok(())
}

/// The KTX 2.0 file for `tex` (layout in the module docs of [`super`]).
///
/// # Errors
/// [`Ktx2Error::ZeroSize`], [`LevelCount`](Ktx2Error::LevelCount) (not 1 to
/// ⌊log₂ max(width, height)⌋ + 1), [`LevelSize`](Ktx2Error::LevelSize),
/// [`Key`](Ktx2Error::Key) (a reserved, empty, duplicate or malformed key),
/// [`KeyValuesTooLarge`](Ktx2Error::KeyValuesTooLarge).
pub(crate) fn write(tex: &Ktx2Texture) -> Result<Vec<u8>, Ktx2Error> {
    check(tex)?;
    let dfd = tex.format.dfd();
    let kvd = key_value_data(&tex.key_values)?;
    let dfd_offset = HEADER_LEN + LEVEL_ENTRY_LEN * tex.levels.len();
    let kvd_offset = dfd_offset + dfd.len();
    let kvd_len = u32::try_from(kvd.len()).map_err(|_| Ktx2Error::KeyValuesTooLarge {
        key: None,
        bytes: kvd.len(),
    })?;
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
    for v in [vk, ts, tex.width, tex.height, 0, tex.layers, 1, n, 0] {
        put_u32(&mut out, v);
    }
    let (dfd_at, dfd_len, kvd_at) = (dfd_offset as u32, dfd.len() as u32, kvd_offset as u32);
    for v in [dfd_at, dfd_len, kvd_at, kvd_len] {
        put_u32(&mut out, v);
    }
    out.extend([0; 16]); // sgdByteOffset, sgdByteLength (u64 each)
    for (level, &offset) in tex.levels.iter().zip(&offsets) {
        // byteOffset, byteLength, uncompressedByteLength.
        for v in [offset, level.len(), level.len()] {
            out.extend((v as u64).to_le_bytes());
        }
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
pub(crate) fn write_file(path: &Path, tex: &Ktx2Texture) -> Result<(), Ktx2Error> {
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
