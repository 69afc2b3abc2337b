//! Supercompressed, refused, truncated, crafted and fuzzed KTX2 images: exact decodes or typed
//! errors, never panics or allocations the file cannot back.

use ::ktx2::{ColorModel, Format};
use block_compression::{BC7Settings, CompressionVariant};
use rand::{Rng, RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{
    decode, decoded, dfd_of, dfd_section, encode, error_of, ramp, random_bytes, Ktx2, Ktx2Error,
    Section, SUPPORTED,
};

// ---------------------------------------------------------------------------------------------
// Supercompression.

#[test]
fn zstd_and_zlib_levels_decode_exactly() {
    // RGBA8 with runs (so the streams really compress) and BC7 blocks: each must decode exactly
    // as its uncompressed twin.
    let mut rgba = random_bytes(16 * 16 * 4, 8);
    rgba[..512].fill(17);
    let rgba_file = Ktx2::new(Format::R8G8B8A8_SRGB, 16, 16, rgba.clone());
    let src = ramp(12, 8);
    let bc7 = encode(
        CompressionVariant::BC7(BC7Settings::alpha_basic()),
        &src,
        12,
        8,
    );
    let bc7_file = Ktx2::new(Format::BC7_SRGB_BLOCK, 12, 8, bc7);
    for plain in [rgba_file, bc7_file] {
        let want = decoded(&plain);
        for packed in [plain.clone().zstd(), plain.clone().zlib()] {
            assert!(packed.levels[0].0.len() < plain.levels[0].0.len());
            let got = decoded(&packed);
            assert_eq!(got, want, "scheme {}", packed.scheme);
        }
    }
    assert_eq!(
        decoded(&Ktx2::new(Format::R8G8B8A8_SRGB, 16, 16, rgba.clone()).zstd())
            .into_rgba8()
            .as_raw(),
        &rgba
    );
}

#[test]
fn zstd_streamed_and_multi_frame_levels_decode_exactly() {
    // zstd's streaming encoder writes no content size and declares its level's window (2 MiB
    // at level 3) however small the level; and a level may be several frames.
    use std::io::Write;
    let rgba = random_bytes(16 * 16 * 4, 14);
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.include_checksum(true).unwrap();
    enc.write_all(&rgba).unwrap();
    let streamed = enc.finish().unwrap();
    let two_frames = [
        zstd::bulk::compress(&rgba[..500], 3).unwrap(),
        zstd::bulk::compress(&rgba[500..], 3).unwrap(),
    ]
    .concat();
    for data in [streamed, two_frames] {
        let mut file = Ktx2::new(Format::R8G8B8A8_UNORM, 16, 16, rgba.clone());
        file.scheme = 2;
        file.levels[0].0 = data;
        assert_eq!(decoded(&file).into_rgba8().as_raw(), &rgba);
    }
}

#[test]
fn supercompressed_sizes_are_checked() {
    let rgba = vec![5u8; 8 * 8 * 4];
    // (bytes it decompressed to, None for more; uncompressedByteLength) of a length error.
    let lengths = |e: &Ktx2Error| match e {
        Ktx2Error::DecompressedLength {
            level: 0,
            got,
            expected,
            ..
        } => Some((*got, *expected)),
        _ => None,
    };
    for pack in [Ktx2::zstd, Ktx2::zlib] {
        let good = pack(Ktx2::new(Format::R8G8B8A8_UNORM, 8, 8, rgba.clone()));
        let with_stream = |stream: Vec<u8>| {
            let mut file = good.clone();
            file.levels[0].0 = stream;
            error_of(&file.bytes())
        };

        // uncompressedByteLength other than the level's size.
        let mut file = good.clone();
        file.levels[0].1 += 4;
        let e = error_of(&file.bytes());
        assert!(
            matches!(
                e,
                Ktx2Error::LevelSize {
                    level: 0,
                    len: 260,
                    expected: 256,
                    ..
                }
            ),
            "{e:?}"
        );

        // A stream holding fewer bytes than the level needs, and one holding more.
        let short = pack(Ktx2::new(
            Format::R8G8B8A8_UNORM,
            8,
            4,
            rgba[..128].to_vec(),
        ));
        let e = with_stream(short.levels[0].0.clone());
        assert_eq!(lengths(&e), Some((Some(128), 256)), "{e:?}");
        let long = pack(Ktx2::new(Format::R8G8B8A8_UNORM, 8, 16, vec![5u8; 512]));
        let e = with_stream(long.levels[0].0.clone());
        assert_eq!(lengths(&e), Some((None, 256)), "{e:?}");
        assert!(e.to_string().contains("decompresses to more"), "{e}");

        // A corrupt stream.
        let mut corrupt = good.levels[0].0.clone();
        corrupt.iter_mut().skip(2).for_each(|b| *b ^= 0x5A);
        let e = with_stream(corrupt);
        let undecodable = matches!(e, Ktx2Error::Decompress { level: 0, .. });
        assert!(undecodable || lengths(&e).is_some(), "{e:?}");
    }
}

#[test]
fn a_level_claiming_more_than_its_bytes_can_expand_to_is_refused() {
    // 16384² RGBA32F (4 GiB) from 9 bytes of Zstandard data is refused before any buffer is
    // made (9 · 32768 bytes at most).
    let mut file = Ktx2::new(Format::R32G32B32A32_SFLOAT, 1, 1, vec![0; 16]).zstd();
    (file.width, file.height) = (16384, 16384);
    file.levels[0] = (
        vec![0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0, 0],
        16384 * 16384 * 16,
    );
    let e = error_of(&file.bytes());
    assert!(
        matches!(
            e,
            Ktx2Error::CannotExpand {
                stored: 9,
                ratio: 32768,
                ..
            }
        ),
        "{e:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Refusals.

/// A file whose DFD is a Basic block with colour model `model` and vkFormat 0.
fn undefined_format(model: ColorModel, scheme: u32) -> Ktx2 {
    let (mut basic, _) = ::ktx2::dfd::Basic::from_format(Format::BC7_UNORM_BLOCK).unwrap();
    basic.color_model = Some(model);
    let (dfd, _, block_bytes) = dfd_section(basic, 1, 16);
    let mut file = Ktx2::new(Format::BC7_UNORM_BLOCK, 4, 4, vec![0; 16]);
    file.vk_format = 0;
    file.dfd = dfd;
    file.block_bytes = block_bytes;
    file.scheme = scheme;
    file
}

#[test]
fn basis_universal_is_refused_naming_it() {
    // BasisLZ/ETC1S: supercompressionScheme 1, vkFormat 0 (DFD colour model ETC1S).
    let e = error_of(&undefined_format(ColorModel::ETC1S, 1).bytes());
    assert!(
        matches!(
            e,
            Ktx2Error::BasisUniversal {
                kind: "BasisLZ/ETC1S"
            }
        ),
        "{e:?}"
    );
    // The library names no tool (the command-line tools add that advice).
    assert_eq!(
        e.to_string(),
        "Basis Universal (BasisLZ/ETC1S) textures are not supported: they must be transcoded \
         to BC7 or an uncompressed format first"
    );
    // UASTC: vkFormat 0, colour model 166, with no supercompression or Zstandard.
    for scheme in [0, 2] {
        let e = error_of(&undefined_format(ColorModel::UASTC, scheme).bytes());
        assert!(
            matches!(e, Ktx2Error::BasisUniversal { kind: "UASTC" }),
            "{e:?}"
        );
    }
    assert_eq!(ColorModel::UASTC.value(), 166);
    assert_eq!(ColorModel::ETC1S.value(), 163);

    // Any other vkFormat 0 is unsupported, and not called Basis.
    let e = error_of(&undefined_format(ColorModel::RGBSDA, 0).bytes());
    assert!(
        matches!(
            e,
            Ktx2Error::UndefinedFormat {
                color_model: Some(1)
            }
        ),
        "{e:?}"
    );
    assert!(!e.to_string().contains("Basis"), "{e}");
    // With no readable DFD.
    let mut file = undefined_format(ColorModel::RGBSDA, 0);
    file.dfd.truncate(8);
    let e = error_of(&file.bytes());
    assert!(
        matches!(e, Ktx2Error::UndefinedFormat { color_model: None }),
        "{e:?}"
    );
}

#[test]
fn other_textures_and_formats_are_refused_naming_them() {
    let base = Ktx2::new(Format::R8G8B8A8_UNORM, 2, 2, vec![0; 16]);
    let with = |f: &dyn Fn(&mut Ktx2)| {
        let mut file = base.clone();
        f(&mut file);
        error_of(&file.bytes())
    };
    type Edit<'a> = &'a dyn Fn(&mut Ktx2);
    let shapes: [(Edit, &str); 4] = [
        (&|f| f.depth = 2, "a 3D texture (pixelDepth 2)"),
        (&|f| f.faces = 6, "a cube map (faceCount 6)"),
        (&|f| f.faces = 2, "faceCount 2"),
        (&|f| f.layers = 3, "an array texture (layerCount 3)"),
    ];
    for (edit, what) in shapes {
        let e = with(edit);
        assert!(matches!(e, Ktx2Error::NotTwoD { .. }), "{e:?}");
        assert!(e.to_string().starts_with(what), "{e}");
    }
    // What the ktx2 crate's header parser refuses.
    let e = with(&|f| f.faces = 0);
    assert!(
        matches!(e, Ktx2Error::Parse(::ktx2::ParseError::ZeroFaceCount)),
        "{e:?}"
    );
    let e = with(&|f| f.width = 0);
    assert!(
        matches!(e, Ktx2Error::Parse(::ktx2::ParseError::ZeroWidth)),
        "{e:?}"
    );
    let e = with(&|f| f.scheme = 4);
    assert!(
        matches!(e, Ktx2Error::UnsupportedScheme { scheme: 4 }),
        "{e:?}"
    );
    // Other formats (ETC2, EAC, ASTC, PVRTC, packed, integer): every one the ktx2 crate knows is
    // refused by name in `every_supported_format_decodes_and_a_short_level_is_named`.
}

#[test]
fn level_sizes_are_checked() {
    // Level 0 one byte short of 2 × 2 RGBA8 (a texture format, named as such), and a BC7 sRGB
    // level (named as Vulkan names it) sized for 4 × 4 in an 8 × 4 file.
    let e = error_of(&Ktx2::new(Format::R8G8B8A8_UNORM, 2, 2, vec![0; 15]).bytes());
    assert_eq!(
        e.to_string(),
        "level 0 is 15 bytes, a 2×2 rgba8unorm level needs 16"
    );
    let e = error_of(&Ktx2::new(Format::BC7_SRGB_BLOCK, 8, 4, vec![0; 16]).bytes());
    assert_eq!(
        e.to_string(),
        "level 0 is 16 bytes, a 8×4 VK_FORMAT_BC7_SRGB_BLOCK level needs 32"
    );
    // 5 × 5 BC1 covers 2 × 2 blocks.
    let e = error_of(&Ktx2::new(Format::BC1_RGB_UNORM_BLOCK, 5, 5, vec![0; 8]).bytes());
    assert!(
        matches!(
            e,
            Ktx2Error::LevelSize {
                len: 8,
                expected: 32,
                ..
            }
        ),
        "{e:?}"
    );
    // A Basic DFD block whose texelBlockDimension is not the format's (4 × 4 for RGBA8; 255
    // would make the ktx2 crate's parser panic) is refused before that parser sees it.
    for dims in [[3, 3, 0, 0], [255, 0, 0, 0], [0, 0, 0, 255]] {
        let mut file = Ktx2::new(Format::R8G8B8A8_UNORM, 2, 2, vec![0; 16]);
        file.dfd[16..20].copy_from_slice(&dims);
        let e = error_of(&file.bytes());
        assert!(
            matches!(e, Ktx2Error::DfdBlockSize { found, .. }
                if found == dims),
            "{e:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Truncated, crafted and fuzzed files.

#[test]
fn every_truncation_is_an_error() {
    // Uncompressed with three levels, and Zstandard- and ZLIB-compressed: cut at every length
    // (inside the header, the level index, the DFD, the smaller levels and level 0). The error
    // names the first section the cut reaches: level 0 is stored last, and checked first.
    let mut multi = Ktx2::new(Format::R8G8B8A8_UNORM, 4, 4, random_bytes(64, 9));
    multi.levels.push((vec![1; 16], 16));
    multi.levels.push((vec![2; 4], 4));
    multi.level_count = 3;
    let src = ramp(12, 8);
    let bc7 = encode(
        CompressionVariant::BC7(BC7Settings::alpha_basic()),
        &src,
        12,
        8,
    );
    let files = [
        multi,
        Ktx2::new(Format::BC7_UNORM_BLOCK, 12, 8, bc7.clone()).zstd(),
        Ktx2::new(Format::BC7_UNORM_BLOCK, 12, 8, bc7).zlib(),
    ];
    for file in &files {
        let bytes = file.bytes();
        assert!(decode(&bytes).is_ok());
        let index_end = 80 + 24 * file.levels.len();
        let dfd_end = index_end + file.dfd.len();
        let offset = u64::from_le_bytes(bytes[80..88].try_into().unwrap());
        let len = u64::from_le_bytes(bytes[88..96].try_into().unwrap());
        for cut in 0..bytes.len() {
            let (what, end) = match cut {
                ..80 => (Section::Header, 80),
                _ if cut < index_end => (Section::LevelIndex, index_end as u64),
                _ if cut < dfd_end => (Section::Dfd, dfd_end as u64),
                _ => (Section::Level(0), offset + len),
            };
            let e = error_of(&bytes[..cut]);
            assert!(
                matches!(e, Ktx2Error::Truncated { what: w, end: n, len: l }
                    if w == what && n == end && l == cut),
                "cut {cut}: {e:?}, expected {what} ending at {end}"
            );
        }
    }
}

#[test]
fn crafted_sizes_fail_fast() {
    // 100000 × 100000 RGBA32F: refused from the header alone.
    let mut file = Ktx2::new(Format::R32G32B32A32_SFLOAT, 1, 1, vec![0; 16]);
    (file.width, file.height) = (100_000, 100_000);
    let e = error_of(&file.bytes());
    assert!(
        matches!(
            e,
            Ktx2Error::TooManyTexels {
                width: 100_000,
                height: 100_000
            }
        ),
        "{e:?}"
    );

    // 16384² (within the limit) claiming 4 GiB of level 0 in a 150-byte file.
    let mut file = Ktx2::new(Format::R32G32B32A32_SFLOAT, 1, 1, vec![0; 16]);
    (file.width, file.height) = (16384, 16384);
    let mut bytes = file.bytes();
    let four_gib = 16384u64 * 16384 * 16;
    bytes[88..96].copy_from_slice(&four_gib.to_le_bytes());
    let level0 = |e: &Ktx2Error| {
        matches!(
            e,
            Ktx2Error::Truncated {
                what: Section::Level(0),
                ..
            }
        ) || matches!(e, Ktx2Error::LevelSize { level: 0, .. })
    };
    let offset = u64::from_le_bytes(bytes[80..88].try_into().unwrap());
    let e = error_of(&bytes);
    assert!(
        matches!(e, Ktx2Error::Truncated { what: Section::Level(0), end, .. }
            if end == offset + four_gib),
        "{e:?}"
    );

    // Offsets and lengths near u64::MAX, and a huge levelCount.
    bytes[80..88].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(level0(&error_of(&bytes)));
    bytes[88..96].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(level0(&error_of(&bytes)));
    bytes[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = error_of(&bytes);
    assert!(
        matches!(
            e,
            Ktx2Error::Truncated {
                what: Section::LevelIndex,
                ..
            }
        ),
        "{e:?}"
    );
    // DFD offset and length pointing anywhere, with vkFormat 0 and one level.
    bytes[12..16].copy_from_slice(&0u32.to_le_bytes());
    bytes[40..44].copy_from_slice(&1u32.to_le_bytes());
    for (offset, len) in [(u32::MAX, u32::MAX), (u32::MAX, 0), (100, u32::MAX), (4, 2)] {
        bytes[48..52].copy_from_slice(&offset.to_le_bytes());
        bytes[52..56].copy_from_slice(&len.to_le_bytes());
        let e = error_of(&bytes);
        assert!(
            matches!(
                e,
                Ktx2Error::Truncated {
                    what: Section::Dfd,
                    ..
                }
            ) || matches!(e, Ktx2Error::UndefinedFormat { color_model: None }),
            "DFD at {offset}, {len} bytes: {e:?}"
        );
    }
    // Every check above is arithmetic on the header: nothing is allocated for the claimed size.
}

#[test]
fn random_blocks_decode_without_panicking() {
    // Arbitrary bytes are valid BC blocks of every format (reserved BC6H and BC7 modes decode
    // to zeros): 16 × 16 texels of random blocks per format, for 20 seeds.
    let formats = SUPPORTED
        .into_iter()
        .filter(|f| format!("{f:?}").starts_with("BC"));
    for seed in 0..20 {
        for format in formats.clone() {
            let (_, _, block_bytes) = dfd_of(format);
            let data = random_bytes(16 * block_bytes, 1000 + seed);
            let img = decoded(&Ktx2::new(format, 16, 16, data));
            assert_eq!(
                (img.width(), img.height()),
                (16, 16),
                "{format:?} seed {seed}"
            );
        }
    }
}

/// Seed for the fuzz loop; case `i` uses `FUZZ_SEED + i`.
const FUZZ_SEED: u64 = 0x5eed_4b54_5832_0000;

#[test]
fn random_corruption_never_panics() {
    // Valid files of each path (8-bit, float, BC, BC6H, zstd, zlib), mutated at random: byte
    // flips anywhere, header and level-index fields set to random or edge values, truncation.
    // decode must return (Ok or Err), never panic; a panic prints the seed that reproduces it.
    let src = ramp(12, 8);
    let bc7 = encode(
        CompressionVariant::BC7(BC7Settings::alpha_basic()),
        &src,
        12,
        8,
    );
    let bc1 = encode(CompressionVariant::BC1, &src, 12, 8);
    let valid: Vec<Vec<u8>> = [
        Ktx2::new(Format::R8G8B8A8_UNORM, 6, 5, random_bytes(120, 10)),
        Ktx2::new(Format::R16G16B16A16_SFLOAT, 3, 3, random_bytes(72, 11)),
        Ktx2::new(Format::BC7_UNORM_BLOCK, 12, 8, bc7.clone()),
        Ktx2::new(Format::BC6H_SFLOAT_BLOCK, 8, 8, random_bytes(64, 12)),
        Ktx2::new(Format::BC1_RGB_UNORM_BLOCK, 12, 8, bc1.clone()).zstd(),
        Ktx2::new(Format::BC7_UNORM_BLOCK, 12, 8, bc7).zlib(),
        Ktx2::new(Format::R8G8_SNORM, 8, 8, random_bytes(128, 13)).zstd(),
    ]
    .iter()
    .map(Ktx2::bytes)
    .collect();
    let edges: [u64; 8] = [0, 1, 4, 80, 0xFFFF, u64::from(u32::MAX), u64::MAX, 1 << 40];
    let cases = 3000;
    let mut errors = 0;
    for i in 0..cases {
        let seed = FUZZ_SEED + i;
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut bytes = valid[rng.random_range(0..valid.len())].clone();
        for _ in 0..rng.random_range(1..=4) {
            match rng.random_range(0..3) {
                0 => {
                    let at = rng.random_range(0..bytes.len());
                    bytes[at] ^= 1 << rng.random_range(0..8);
                }
                1 => {
                    // A header u32 field (vkFormat .. kvdByteLength) or a level 0 u64 field.
                    let value = edges[rng.random_range(0..edges.len())];
                    if rng.random_bool(0.5) {
                        let at = 12 + 4 * rng.random_range(0..13);
                        bytes[at..at + 4].copy_from_slice(&(value as u32).to_le_bytes());
                    } else {
                        let at = 80 + 8 * rng.random_range(0..3);
                        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
                    }
                }
                _ => {
                    let at = rng.random_range(80..bytes.len());
                    let end = (at + 8).min(bytes.len());
                    rng.fill_bytes(&mut bytes[at..end]);
                }
            }
        }
        if rng.random_bool(0.25) {
            let keep = rng.random_range(0..bytes.len());
            bytes.truncate(keep);
        }
        let result = std::panic::catch_unwind(|| decode(&bytes));
        match result {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                errors += 1;
                let message = e.to_string();
                assert!(!message.contains('\n'), "seed {seed:#x}: {message}");
            }
            Err(panic) => {
                eprintln!("random_corruption_never_panics: decode panicked for seed {seed:#x}");
                std::panic::resume_unwind(panic);
            }
        }
    }
    // Most mutations must be caught (a flip inside texel data still decodes).
    eprintln!("{errors} of {cases} corrupted files were errors");
    assert!(
        errors > cases / 4,
        "only {errors} of {cases} corrupted files were errors"
    );
}
