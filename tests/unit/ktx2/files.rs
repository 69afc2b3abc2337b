//! The KTX2 writer (`crate::ktx2`, crate-internal) against the KTX 2.0 spec's bytes written out here and against
//! the independent `ktx2` crate (its reader and its DFD generator); the reader against every
//! truncation, patched headers and random byte flips, which must give errors, never panics, and
//! against supercompressed files made here (Zstandard by the C library, ZLIB by `flate2`).
//! The format table's numbers are checked in the crate (`tests/unit/ktx2/format.rs`).

use crate::common;

use ::ktx2::dfd::{Basic, Block};
use ::ktx2::{ColorModel, Format, Reader};
use common::for_seeds;
use qtangent::ktx2::{
    read, read_file, write, write_file, Ktx2Error, Ktx2Texture, Section, TexelFormat,
};
use rand::{Rng, RngCore};

/// The `KTXwriter` value as stored: "qtangent <version>" and its NUL.
const WRITER_NUL: &str = concat!("qtangent ", env!("CARGO_PKG_VERSION"), "\0");

/// The 12-byte KTX 2.0 identifier, as the spec lists it.
const IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// Per format: vkFormat (Vulkan), typeSize (KTX spec), block edge, bytes per block, level
/// alignment lcm(bytes per block, 4), and the `ktx2` crate's name for the format.
const TABLE: [(TexelFormat, u32, u32, u32, u32, usize, Format); 9] = [
    (TexelFormat::R8Snorm, 10, 1, 1, 1, 4, Format::R8_SNORM),
    (
        TexelFormat::Rgba8Unorm,
        37,
        1,
        1,
        4,
        4,
        Format::R8G8B8A8_UNORM,
    ),
    (
        TexelFormat::Rgba8Snorm,
        38,
        1,
        1,
        4,
        4,
        Format::R8G8B8A8_SNORM,
    ),
    (
        TexelFormat::Rgba16Snorm,
        92,
        2,
        1,
        8,
        8,
        Format::R16G16B16A16_SNORM,
    ),
    (
        TexelFormat::Rgba16Float,
        97,
        2,
        1,
        8,
        8,
        Format::R16G16B16A16_SFLOAT,
    ),
    (
        TexelFormat::Rgba32Float,
        109,
        4,
        1,
        16,
        16,
        Format::R32G32B32A32_SFLOAT,
    ),
    (
        TexelFormat::Bc5Unorm,
        141,
        1,
        4,
        16,
        16,
        Format::BC5_UNORM_BLOCK,
    ),
    (
        TexelFormat::Bc5Snorm,
        142,
        1,
        4,
        16,
        16,
        Format::BC5_SNORM_BLOCK,
    ),
    (
        TexelFormat::Bc7Unorm,
        145,
        1,
        4,
        16,
        16,
        Format::BC7_UNORM_BLOCK,
    ),
];

fn row(format: TexelFormat) -> (TexelFormat, u32, u32, u32, u32, usize, Format) {
    TABLE
        .into_iter()
        .find(|r| r.0 == format)
        .expect("every format is in TABLE")
}

/// Levels in a full chain: ⌊log₂ max(w, h)⌋ + 1, the bit length of max(w, h).
fn full_mip_count(w: u32, h: u32) -> u32 {
    u32::BITS - w.max(h).leading_zeros()
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn le64(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

fn set32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Bytes of level `p`, computed here from the spec's formula: max(1, size >> p) texels, whole
/// blocks, bytes per block.
fn level_len(format: TexelFormat, w: u32, h: u32, p: usize) -> usize {
    let (_, _, _, edge, bytes, _, _) = row(format);
    let (lw, lh) = ((w >> p).max(1), (h >> p).max(1));
    (lw.div_ceil(edge) * lh.div_ceil(edge) * bytes) as usize
}

fn random_texture(rng: &mut impl Rng, f: TexelFormat, w: u32, h: u32, n: usize) -> Ktx2Texture {
    let levels = (0..n)
        .map(|p| {
            let mut level = vec![0; level_len(f, w, h, p)];
            rng.fill_bytes(&mut level);
            level
        })
        .collect();
    Ktx2Texture::new(f, w, h, levels)
}

/// A generator with a fixed seed, for tests that need random bytes but not many cases.
fn seeded() -> rand_pcg::Pcg64Mcg {
    rand::SeedableRng::seed_from_u64(common::seeds::BASE_SEED)
}

fn kv(key: &str, value: &[u8]) -> (String, Vec<u8>) {
    (key.to_owned(), value.to_vec())
}

fn written(tex: &Ktx2Texture) -> Vec<u8> {
    write(tex).unwrap_or_else(|e| panic!("write {}×{} {}: {e}", tex.width, tex.height, tex.format))
}

/// Every format, full chains and single levels, round trips through our reader and reads
/// the same through the `ktx2` crate: header, levels, key/values and the DFD its generator
/// makes for the format.
#[test]
fn every_format_round_trips_and_the_ktx2_crate_reads_it() {
    for_seeds("ktx2 round trip", 3, |_, rng| {
        for (f, vk, type_size, ..) in TABLE {
            let shapes = [(64, 32, 7), (64, 32, 1), (13, 7, 4), (1, 1, 1), (5, 300, 9)];
            for (w, h, n) in shapes {
                let mut tex = random_texture(rng, f, w, h, n);
                let mut zeta = vec![0; rng.random_range(0..20)];
                rng.fill_bytes(&mut zeta);
                tex.key_values = vec![
                    kv("zeta", &zeta),
                    kv("qtangent.format", b"rgba16f\0"),
                    kv("KTXorientation", b"rd\0"),
                ];
                let bytes = written(&tex);
                let expected_kv = vec![
                    kv("KTXorientation", b"rd\0"),
                    kv("KTXwriter", WRITER_NUL.as_bytes()),
                    kv("qtangent.format", b"rgba16f\0"),
                    kv("zeta", &zeta),
                ];
                let back = read(&bytes).unwrap_or_else(|e| panic!("read {w}×{h} {f}: {e}"));
                let expected = Ktx2Texture {
                    key_values: expected_kv.clone(),
                    ..tex.clone()
                };
                assert_eq!(back, expected, "{w}×{h} {f}, {n} levels");

                let reader = Reader::new(&bytes[..]).unwrap_or_else(|e| panic!("{f}: {e}"));
                let head = reader.header();
                assert_eq!(head.format.map(|format| format.value()), Some(vk));
                assert_eq!(head.type_size, type_size);
                assert_eq!((head.pixel_width, head.pixel_height), (w, h));
                assert_eq!(
                    (head.pixel_depth, head.layer_count, head.face_count),
                    (0, 0, 1)
                );
                assert_eq!(head.level_count, n as u32);
                assert_eq!(head.supercompression_scheme, None);
                let levels: Vec<_> = reader.levels().collect();
                assert_eq!(levels.len(), n);
                for (p, level) in levels.iter().enumerate() {
                    assert_eq!(level.data, &tex.levels[p][..], "{f} level {p}");
                    assert_eq!(level.uncompressed_byte_length, tex.levels[p].len() as u64);
                }
                let crate_kv: Vec<_> = reader.key_value_data().map(|(k, v)| kv(k, v)).collect();
                assert_eq!(crate_kv, expected_kv);
                assert_eq!(reader.writer(), Some(WRITER_NUL));
                let (basic, _) = Basic::from_format(row(f).6).unwrap();
                assert_eq!(reader.dfd_blocks(), &[Block::Basic(basic)], "{f} DFD");
            }
        }
    });
}

/// Array textures (a two-layer BC5 map is one): each level holds every layer, layer 0 first;
/// our reader gives the same texture back and the `ktx2` crate reads the header's layerCount
/// and each level's bytes as written.
#[test]
fn array_textures_round_trip_and_the_ktx2_crate_reads_them() {
    for_seeds("ktx2 arrays", 3, |_, rng| {
        for f in [
            TexelFormat::Bc5Snorm,
            TexelFormat::Rgba8Snorm,
            TexelFormat::Bc7Unorm,
        ] {
            for (w, h, n, layers) in [(64, 32, 7, 2), (16, 16, 1, 3), (8, 4, 4, 1)] {
                let single = random_texture(rng, f, w, h, n);
                let levels = (0..n)
                    .map(|p| {
                        let mut level = vec![0; level_len(f, w, h, p) * layers as usize];
                        rng.fill_bytes(&mut level);
                        level
                    })
                    .collect();
                let tex = Ktx2Texture {
                    layers,
                    levels,
                    ..single
                };
                let bytes = written(&tex);
                let back =
                    read(&bytes).unwrap_or_else(|e| panic!("read {w}×{h}×{layers} {f}: {e}"));
                assert_eq!(back.layers, layers);
                assert_eq!(back.levels, tex.levels, "{w}×{h}×{layers} {f}");
                let reader = Reader::new(&bytes[..]).unwrap_or_else(|e| panic!("{f}: {e}"));
                assert_eq!(reader.header().layer_count, layers);
                let crate_levels: Vec<_> = reader.levels().map(|l| l.data.to_vec()).collect();
                assert_eq!(crate_levels, tex.levels, "{f}: the ktx2 crate's levels");
                // A level one layer short is refused, naming the level.
                let mut short = tex.clone();
                let cut = short.levels[0].len() / layers as usize;
                let keep = short.levels[0].len() - cut;
                short.levels[0].truncate(keep);
                assert!(matches!(write(&short), Err(Ktx2Error::LevelSize { .. })));
            }
        }
    });
}

/// An rgba16float 4×2 texture, one level, no keys of its own: every byte of the file.
#[test]
fn header_index_dfd_and_kvd_are_the_spec_bytes() {
    let level: Vec<u8> = (0..64).collect();
    let bytes = written(&Ktx2Texture::new(
        TexelFormat::Rgba16Float,
        4,
        2,
        vec![level.clone()],
    ));
    assert_eq!(bytes[..12], IDENTIFIER);
    // The only entry: "KTXwriter" NUL value, padded to 4.
    let entry = 10 + WRITER_NUL.len();
    let kvd_len = 4 + entry.next_multiple_of(4);
    let level_at = (196 + kvd_len).next_multiple_of(8);
    // vkFormat, typeSize, width, height, depth, layers, faces, levels, scheme,
    // dfdByteOffset (80 + 24), dfdByteLength, kvdByteOffset (104 + 92), kvdByteLength.
    let header = [97, 2, 4, 2, 0, 0, 1, 1, 0, 104, 92, 196, kvd_len as u32];
    for (i, v) in header.into_iter().enumerate() {
        assert_eq!(le32(&bytes, 12 + 4 * i), v, "header word {i}");
    }
    assert_eq!(
        [le64(&bytes, 64), le64(&bytes, 72)],
        [0, 0],
        "sgdByteOffset, sgdByteLength"
    );
    assert_eq!(
        [le64(&bytes, 80), le64(&bytes, 88), le64(&bytes, 96)],
        [level_at, 64, 64]
    );
    #[rustfmt::skip]
    let dfd: [u8; 92] = [
        92, 0, 0, 0,                     // dfdTotalSize
        0, 0, 0, 0,                      // vendorId 0, descriptorType 0
        2, 0, 88, 0,                     // versionNumber 2, descriptorBlockSize 24 + 4 · 16
        1, 1, 1, 0,                      // RGBSDA, BT709, LINEAR, straight alpha
        0, 0, 0, 0,                      // texelBlockDimension 1×1×1×1
        8, 0, 0, 0, 0, 0, 0, 0,          // bytesPlane0 = 8
        0, 0, 15, 0xC0, 0, 0, 0, 0,      // R: bit 0, 16 bits, SIGNED | FLOAT, position 0
        0x00, 0x00, 0x80, 0xBF, 0x00, 0x00, 0x80, 0x3F, // -1.0f, 1.0f
        16, 0, 15, 0xC1, 0, 0, 0, 0,     // G
        0x00, 0x00, 0x80, 0xBF, 0x00, 0x00, 0x80, 0x3F,
        32, 0, 15, 0xC2, 0, 0, 0, 0,     // B
        0x00, 0x00, 0x80, 0xBF, 0x00, 0x00, 0x80, 0x3F,
        48, 0, 15, 0xCF, 0, 0, 0, 0,     // A (channel 15)
        0x00, 0x00, 0x80, 0xBF, 0x00, 0x00, 0x80, 0x3F,
    ];
    assert_eq!(bytes[104..196], dfd);
    let mut kvd = (entry as u32).to_le_bytes().to_vec();
    kvd.extend(b"KTXwriter\0");
    kvd.extend(WRITER_NUL.as_bytes());
    kvd.resize(kvd_len, 0);
    assert_eq!(bytes[196..196 + kvd_len], kvd[..]);
    assert!(
        bytes[196 + kvd_len..level_at].iter().all(|&b| b == 0),
        "mipPadding"
    );
    assert_eq!(bytes[level_at..], level[..]);
}

#[test]
fn dfds_of_the_block_and_snorm_formats_are_the_spec_bytes() {
    #[rustfmt::skip]
    let cases: [(TexelFormat, &[u8], ColorModel); 4] = [
        (TexelFormat::Bc5Snorm, &[
            60, 0, 0, 0, 0, 0, 0, 0, 2, 0, 56, 0,
            132, 1, 1, 0, 3, 3, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0,  // BC5, 4×4 blocks of 16 bytes
            0, 0, 63, 0x40, 0, 0, 0, 0,                         // red: bits 0..64, SIGNED
            0x00, 0x00, 0x00, 0x80, 0xFF, 0xFF, 0xFF, 0x7F,     // i32::MIN, i32::MAX
            64, 0, 63, 0x41, 0, 0, 0, 0,                        // green: bits 64..128
            0x00, 0x00, 0x00, 0x80, 0xFF, 0xFF, 0xFF, 0x7F,
        ], ColorModel::BC5),
        (TexelFormat::Bc7Unorm, &[
            44, 0, 0, 0, 0, 0, 0, 0, 2, 0, 40, 0,
            134, 1, 1, 0, 3, 3, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0,  // BC7
            0, 0, 127, 0, 0, 0, 0, 0,                           // colour: 128 bits, unsigned
            0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF,                 // 0, u32::MAX
        ], ColorModel::BC7),
        (TexelFormat::R8Snorm, &[
            44, 0, 0, 0, 0, 0, 0, 0, 2, 0, 40, 0,
            1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 7, 0x40, 0, 0, 0, 0,                          // R: 8 bits, SIGNED
            0x81, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0,              // -127, 127
        ], ColorModel::RGBSDA),
        (TexelFormat::Rgba16Snorm, &[
            92, 0, 0, 0, 0, 0, 0, 0, 2, 0, 88, 0,
            1, 1, 1, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 15, 0x40, 0, 0, 0, 0, 0x01, 0x80, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0, // -32767, 32767
            16, 0, 15, 0x41, 0, 0, 0, 0, 0x01, 0x80, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0,
            32, 0, 15, 0x42, 0, 0, 0, 0, 0x01, 0x80, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0,
            48, 0, 15, 0x4F, 0, 0, 0, 0, 0x01, 0x80, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0,
        ], ColorModel::RGBSDA),
    ];
    for_seeds("ktx2 dfd bytes", 1, |_, rng| {
        for (f, dfd, model) in cases {
            let bytes = written(&random_texture(rng, f, 8, 8, 1));
            let at = le32(&bytes, 48) as usize;
            assert_eq!(le32(&bytes, 52) as usize, dfd.len(), "{f} dfdByteLength");
            assert_eq!(&bytes[at..at + dfd.len()], dfd, "{f} DFD");
            let reader = Reader::new(&bytes[..]).unwrap();
            assert_eq!(reader.color_model(), Some(model), "{f}");
        }
    });
}

/// Levels sit smallest first, each on lcm(bytes per block, 4) with zero padding before it, the
/// first right after the key/value data and level 0 last, ending the file.
#[test]
fn levels_are_stored_smallest_first_on_aligned_offsets() {
    for_seeds("ktx2 level order", 2, |_, rng| {
        for (f, .., align, _) in TABLE {
            for (w, h) in [(13, 7), (64, 32), (3, 17)] {
                let n = full_mip_count(w, h) as usize;
                let tex = random_texture(rng, f, w, h, n);
                let bytes = written(&tex);
                let mut end = (le32(&bytes, 56) + le32(&bytes, 60)) as usize; // kvd end
                for p in (0..n).rev() {
                    let entry = 80 + 24 * p;
                    let (offset, length) = (le64(&bytes, entry), le64(&bytes, entry + 8));
                    assert_eq!(length, level_len(f, w, h, p), "{f} level {p}");
                    assert_eq!(offset, end.next_multiple_of(align), "{w}×{h} {f} level {p}");
                    assert!(bytes[end..offset].iter().all(|&b| b == 0), "mipPadding");
                    assert_eq!(bytes[offset..offset + length], tex.levels[p][..]);
                    end = offset + length;
                }
                assert_eq!(end, bytes.len(), "level 0 ends the file");
            }
        }
    });
}

/// Entries are sorted by key bytes (code points: "é" after "z"), each is
/// keyAndValueByteLength, key, NUL, value, zero padding to 4, and together they fill
/// kvdByteLength. Values stay as given; KTXswizzle gets its NUL.
#[test]
fn key_values_are_sorted_padded_and_stored_as_given() {
    let mut tex = random_texture(&mut seeded(), TexelFormat::Rgba8Snorm, 4, 4, 1);
    tex.key_values = vec![
        kv("zz", b"1234567"),
        kv("é", b"\0\x01\xFF"),
        kv("a", b""),
        kv("KTXswizzle", b"rg01"),
        kv("Z", b"text\0"),
        kv("ab", b"12"),
    ];
    let bytes = written(&tex);
    let (start, len) = (le32(&bytes, 56) as usize, le32(&bytes, 60) as usize);
    let mut at = start;
    let mut entries = Vec::new();
    while at < start + len {
        let n = le32(&bytes, at) as usize;
        let body = &bytes[at + 4..at + 4 + n];
        let nul = body.iter().position(|&b| b == 0).unwrap();
        entries.push(kv(
            std::str::from_utf8(&body[..nul]).unwrap(),
            &body[nul + 1..],
        ));
        let next = (at + 4 + n).next_multiple_of(4);
        assert!(
            bytes[at + 4 + n..next].iter().all(|&b| b == 0),
            "valuePadding"
        );
        at = next;
    }
    assert_eq!(at, start + len, "the entries fill kvdByteLength");
    let expected = vec![
        kv("KTXswizzle", b"rg01\0"),
        kv("KTXwriter", WRITER_NUL.as_bytes()),
        kv("Z", b"text\0"),
        kv("a", b""),
        kv("ab", b"12"),
        kv("zz", b"1234567"),
        kv("é", b"\0\x01\xFF"),
    ];
    assert_eq!(entries, expected);
    assert_eq!(read(&bytes).unwrap().key_values, expected);
}

#[test]
fn key_value_text_reads_text_with_or_without_its_nul() {
    // Each entry, and the text it reads as (none where it is not UTF-8 or holds a NUL inside).
    let entries: [(&str, &[u8], Option<&str>); 5] = [
        ("KTXwriter", b"qtangent bake 7\0", Some("qtangent bake 7")),
        ("plain", b"abc", Some("abc")),
        ("binary", b"a\0b", None),
        ("latin1", b"\xE9t\xE9\0", None),
        ("empty", b"", Some("")),
    ];
    let mut tex = random_texture(&mut seeded(), TexelFormat::R8Snorm, 2, 2, 2);
    tex.key_values = entries.iter().map(|&(k, v, _)| kv(k, v)).collect();
    let back = read(&written(&tex)).unwrap();
    let writers = back
        .key_values
        .iter()
        .filter(|(k, _)| k == "KTXwriter")
        .count();
    assert_eq!(writers, 1, "a KTXwriter given is kept, not doubled");
    for (key, _, text) in entries {
        assert_eq!(back.key_value_text(key), text, "{key}");
    }
    assert_eq!(back.key_value_text("absent"), None);
    let plain = read(&written(&Ktx2Texture {
        layers: 0,
        key_values: vec![],
        ..tex
    }))
    .unwrap();
    assert_eq!(
        plain.key_value_text("KTXwriter"),
        Some(WRITER_NUL.trim_end_matches('\0'))
    );
}

#[test]
fn write_refuses_bad_textures() {
    let rng = &mut seeded();
    let mut bc5 = random_texture(rng, TexelFormat::Bc5Snorm, 16, 16, 3);
    bc5.levels[2] = vec![0; 100];
    let e = write(&bc5).unwrap_err();
    assert_eq!(
        e.to_string(),
        "level 2 is 100 bytes, a 4×4 bc5snorm level needs 16"
    );
    bc5.levels[2] = vec![0; 16];
    bc5.levels[0].pop();
    assert!(matches!(
        write(&bc5),
        Err(Ktx2Error::LevelSize {
            level: 0,
            len: 255,
            ..
        })
    ));

    let zero = Ktx2Texture::new(TexelFormat::R8Snorm, 0, 4, vec![vec![]]);
    let e = write(&zero).unwrap_err();
    assert_eq!(
        e.to_string(),
        "texture size 0×4: width and height must be at least 1"
    );
    let flat = Ktx2Texture::new(TexelFormat::Bc7Unorm, 4, 0, vec![vec![0; 16]]);
    assert!(matches!(write(&flat), Err(Ktx2Error::ZeroSize { .. })));

    let mut eight = random_texture(rng, TexelFormat::Rgba16Float, 64, 32, 7);
    eight.levels.push(vec![0; 8]);
    let e = write(&eight).unwrap_err();
    assert_eq!(
        e.to_string(),
        "8 levels for a 64×32 texture, which takes 1 to 7"
    );
    let none = Ktx2Texture::new(TexelFormat::Rgba16Float, 64, 32, vec![]);
    assert!(matches!(
        write(&none),
        Err(Ktx2Error::LevelCount {
            count: 0,
            max: 7,
            ..
        })
    ));

    let base = random_texture(rng, TexelFormat::Rgba8Snorm, 4, 4, 3);
    let bad_keys: [&[(&str, &[u8])]; 9] = [
        &[("KTXfoo", b"x\0")],
        &[("ktxbar", b"x\0")],
        &[("KTXglFormat", &[0; 12])],
        &[("KTXanimData", b"\0\0\0\0")],
        &[("", b"x")],
        &[("a\0b", b"x")],
        &[("\u{FEFF}key", b"x")],
        &[("k", b"1"), ("k", b"2")],
        &[("KTXorientation", b"r\xFFd\0")],
    ];
    for entries in bad_keys {
        let key_values = entries.iter().map(|(k, v)| kv(k, v)).collect();
        let tex = Ktx2Texture {
            layers: 0,
            key_values,
            ..base.clone()
        };
        match write(&tex) {
            Err(Ktx2Error::Key { key, .. }) => assert_eq!(key, entries[0].0),
            other => panic!("{entries:?}: expected a key error, got {other:?}"),
        }
    }
    let twice = [kv("KTXwriter", b"a\0"), kv("KTXwriter", b"b\0")];
    let tex = Ktx2Texture {
        layers: 0,
        key_values: twice.to_vec(),
        ..base
    };
    assert!(matches!(write(&tex), Err(Ktx2Error::Key { .. })));
}

/// Every prefix of a file is a truncation error naming where the cut section ends.
#[test]
fn every_prefix_is_a_truncation_error() {
    for_seeds("ktx2 prefixes", 2, |_, rng| {
        let textures = [
            random_texture(rng, TexelFormat::Bc5Snorm, 8, 8, 4),
            random_texture(rng, TexelFormat::R8Snorm, 5, 3, 3),
        ];
        for tex in textures {
            let bytes = written(&tex);
            for cut in 0..bytes.len() {
                match read(&bytes[..cut]) {
                    Err(Ktx2Error::Truncated { what, end, len }) => {
                        assert_eq!(len, cut, "{}", tex.format);
                        assert!(end > cut as u64, "{}: cut at {cut}, end {end}", tex.format);
                        // The first section the cut reaches (level 0 is stored last).
                        let dfd_at = le32(&bytes, 48) as usize;
                        let first = match cut {
                            ..80 => Section::Header,
                            _ if cut < dfd_at => Section::LevelIndex,
                            _ if cut < le32(&bytes, 56) as usize => Section::Dfd,
                            _ if cut < (le32(&bytes, 56) + le32(&bytes, 60)) as usize => {
                                Section::KeyValues
                            }
                            _ => Section::Level(0),
                        };
                        assert_eq!(what, first, "{}: cut at {cut}", tex.format);
                    }
                    other => panic!("{} cut at {cut}: {other:?}", tex.format),
                }
            }
            let n = bytes.len();
            let e = read(&bytes[..n - 1]).unwrap_err();
            let message = format!(
                "truncated: level 0 ends at byte {n} but the file has {}",
                n - 1
            );
            assert_eq!(e.to_string(), message);
            let e = read(&bytes[..40]).unwrap_err();
            assert_eq!(
                e.to_string(),
                "truncated: the header ends at byte 80 but the file has 40"
            );
            assert_eq!(read(&bytes).unwrap(), read(&bytes).unwrap());
        }
    });
}

/// An 8×4 rgba8snorm texture with 4 levels, its file, and what [`read`] makes of the file with
/// the u32 at byte `at` set to `v`.
fn patchable() -> (
    Ktx2Texture,
    Vec<u8>,
    impl Fn(usize, u32) -> Result<Ktx2Texture, Ktx2Error>,
) {
    let tex = random_texture(&mut seeded(), TexelFormat::Rgba8Snorm, 8, 4, 4);
    let good = written(&tex);
    let file = good.clone();
    let patched = move |at: usize, v: u32| {
        let mut b = good.clone();
        set32(&mut b, at, v);
        read(&b)
    };
    (tex, file, patched)
}

fn message(r: Result<Ktx2Texture, Ktx2Error>) -> String {
    r.unwrap_err().to_string()
}

/// A valid file with one header field patched: the reader names the problem.
#[test]
fn patched_headers_are_refused() {
    let (_, good, patched) = patchable();
    // Found by the read_ktx2 fuzz target: a header whose layers × a level's bytes pass u64
    // overflowed the expected size (and one with levels past 32 shifted the size past u32).
    for (at, v) in [(20, u32::MAX), (24, u32::MAX), (32, u32::MAX), (40, 40)] {
        let mut huge = good.clone();
        for &(a, x) in &[(20, u32::MAX), (24, u32::MAX), (32, u32::MAX)] {
            if a <= at {
                set32(&mut huge, a, x);
            }
        }
        set32(&mut huge, at, v);
        assert!(read(&huge).is_err(), "byte {at} = {v}");
    }

    assert_eq!(
        message(patched(12, 44)),
        "vkFormat 44 (VK_FORMAT_B8G8R8A8_UNORM) is not one of the eight formats qtangent reads a \
         texture in"
    );
    assert_eq!(
        message(patched(12, 0)),
        "vkFormat 0 (VK_FORMAT_UNDEFINED) is not one of the eight formats qtangent reads a \
         texture in"
    );
    assert!(matches!(
        patched(12, 999_999),
        Err(Ktx2Error::UnsupportedFormat { vk_format: 999_999 })
    ));
    assert_eq!(
        message(patched(44, 4)),
        "supercompression scheme 4 (unknown) is not supported: qtangent reads schemes 0 (none), \
         2 (Zstandard) and 3 (ZLIB)"
    );
    assert!(matches!(
        patched(44, 1),
        Err(Ktx2Error::BasisUniversal {
            kind: "BasisLZ/ETC1S"
        })
    ));
    // Zstandard is read, but these levels are not Zstandard data.
    assert!(matches!(
        patched(44, 2),
        Err(Ktx2Error::Decompress {
            level: 0,
            scheme: 2,
            ..
        })
    ));
    for (at, v, what) in [
        (24, 0, "a 1D texture"),
        (28, 1, "a 3D texture"),
        (36, 6, "a cube map (faceCount 6)"),
    ] {
        match patched(at, v) {
            Err(e @ Ktx2Error::NotTwoD { .. }) => {
                assert!(e.to_string().starts_with(what), "{e}");
            }
            other => panic!("byte {at} = {v}: {other:?}"),
        }
    }
    // layerCount 1 is an array of one layer: the same levels; layerCount 2 needs levels twice
    // as long as these.
    assert_eq!(
        patched(32, 1).map(|t| (t.layers, t.levels.len())).ok(),
        Some((1, 4))
    );
    assert!(
        matches!(patched(32, 2), Err(Ktx2Error::LevelSize { .. })),
        "layerCount 2"
    );
    assert_eq!(
        message(patched(16, 2)),
        "malformed: typeSize is 2, rgba8snorm has 1"
    );
    assert_eq!(
        message(patched(40, 5)),
        "5 levels for a 8×4 texture, which takes 1 to 4"
    );
    assert!(
        matches!(patched(20, 0), Err(Ktx2Error::Parse(_))),
        "width 0"
    );
    assert!(matches!(patched(0, 0), Err(Ktx2Error::NotKtx2)));
    assert!(matches!(
        read(b"\x89PNG\r\n\x1a\n"),
        Err(Ktx2Error::NotKtx2)
    ));
    assert!(matches!(read(&[0x89; 100]), Err(Ktx2Error::NotKtx2)));
}

/// A valid file with its level count or a level index entry patched.
#[test]
fn patched_levels_are_refused() {
    let (tex, good, patched) = patchable();
    // levelCount 0 means "level 0 only, generate the rest": allowed but for block formats.
    assert_eq!(patched(40, 0).unwrap().levels, tex.levels[..1]);
    let bc7 = written(&random_texture(
        &mut seeded(),
        TexelFormat::Bc7Unorm,
        8,
        8,
        2,
    ));
    let mut b = bc7.clone();
    set32(&mut b, 40, 0);
    assert!(matches!(
        read(&b),
        Err(Ktx2Error::ZeroLevelCount(TexelFormat::Bc7Unorm))
    ));

    // Level 1's index entry: byteOffset at 104, byteLength at 112, uncompressed at 120.
    assert_eq!(
        message(patched(112, 33)),
        "level 1 is 33 bytes, a 4×2 rgba8snorm level needs 32"
    );
    assert!(matches!(
        patched(120, 31),
        Err(Ktx2Error::UncompressedLength {
            level: 1,
            uncompressed: 31,
            length: 32
        })
    ));
    let offset = le32(&good, 104);
    let e = message(patched(104, offset + 1));
    assert!(
        e.contains("level 1 starts at byte") && e.contains("not a multiple of 4"),
        "{e}"
    );
    assert!(matches!(patched(72, 8), Err(Ktx2Error::SgdLength(8))));
}

/// A file with its DFD or a key/value entry patched.
#[test]
fn patched_dfds_and_key_values_are_refused() {
    let (_, good, _) = patchable();
    // The DFD must be the format's: an rgba16snorm file relabelled rgba16float (same sizes)
    // fails on the sample qualifiers (SIGNED, not SIGNED | FLOAT).
    let snorm = written(&random_texture(
        &mut seeded(),
        TexelFormat::Rgba16Snorm,
        4,
        4,
        3,
    ));
    let mut b = snorm.clone();
    set32(&mut b, 12, 97);
    let e = read(&b).unwrap_err().to_string();
    assert!(
        e.starts_with("malformed: the data format descriptor is not rgba16float's"),
        "{e}"
    );
    assert!(e.contains("channelType/qualifiers"), "{e}");
    // A texelBlockDimension of 255 makes ktx2 0.5's reader panic; ours must refuse it first.
    let dfd_at = le32(&snorm, 48) as usize;
    for byte in [16, 17, 18, 19] {
        let mut b = snorm.clone();
        b[dfd_at + byte] = 255;
        assert!(
            matches!(
                read(&b),
                Err(Ktx2Error::DfdByte {
                    field: "texelBlockDimension",
                    ..
                })
            ),
            "DFD byte {byte}"
        );
    }
    // A key/value entry whose length runs past kvdByteLength.
    let kvd_at = le32(&good, 56) as usize;
    let mut b = good.clone();
    set32(&mut b, kvd_at, 1000);
    assert!(
        matches!(read(&b), Err(Ktx2Error::KvdFill { .. })),
        "kvd entry length"
    );
}

/// `bytes` (a file [`write`] made) with every level supercompressed: Zstandard (scheme 2, the C
/// library at level 19) or ZLIB (scheme 3, `flate2`), stored smallest first with no padding
/// (the spec's alignment for supercompressed levels is 1), byteLength the compressed size and
/// uncompressedByteLength the level's.
fn supercompressed(bytes: &[u8], scheme: u32) -> Vec<u8> {
    use std::io::Write;
    let n = le32(bytes, 40).max(1) as usize;
    let kvd_end = (le32(bytes, 56) + le32(bytes, 60)) as usize;
    let mut out = bytes[..kvd_end].to_vec();
    set32(&mut out, 44, scheme);
    for p in (0..n).rev() {
        let entry = 80 + 24 * p;
        let (offset, length) = (le64(bytes, entry), le64(bytes, entry + 8));
        let level = &bytes[offset..offset + length];
        let packed = if scheme == 2 {
            zstd::bulk::compress(level, 19).expect("zstd compresses")
        } else {
            let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
            enc.write_all(level).expect("in memory");
            enc.finish().expect("in memory")
        };
        let at = out.len() as u64;
        out[entry..entry + 8].copy_from_slice(&at.to_le_bytes());
        out[entry + 8..entry + 16].copy_from_slice(&(packed.len() as u64).to_le_bytes());
        out.extend(packed);
    }
    out
}

/// Supercompressed files read back as the texture that was written; a level whose data expands
/// to another length, or claims more than its bytes can expand to, is an error.
#[test]
fn supercompressed_levels_are_read() {
    for_seeds("ktx2 supercompressed", 2, |_, rng| {
        for f in TexelFormat::ALL {
            let mut tex = random_texture(rng, f, 13, 7, 4);
            tex.key_values = vec![kv("KTXwriter", b"test\0")];
            let bytes = written(&tex);
            for scheme in [2, 3] {
                let packed = supercompressed(&bytes, scheme);
                let back = read(&packed).unwrap_or_else(|e| panic!("{f} scheme {scheme}: {e}"));
                assert_eq!(back, tex, "{f} scheme {scheme}");
            }
        }
    });
    let tex = random_texture(&mut seeded(), TexelFormat::Rgba8Snorm, 8, 4, 1);
    for scheme in [2, 3] {
        let packed = supercompressed(&written(&tex), scheme);
        // uncompressedByteLength 4 more than the level: a level-size error.
        let mut b = packed.clone();
        b[96..104].copy_from_slice(&132u64.to_le_bytes());
        assert!(matches!(
            read(&b),
            Err(Ktx2Error::LevelSize {
                level: 0,
                len: 132,
                expected: 128,
                ..
            })
        ));
        // The data of a 4×4 level in the 8×4 one: too short once decompressed.
        let short = random_texture(&mut seeded(), TexelFormat::Rgba8Snorm, 4, 4, 1);
        let short = supercompressed(&written(&short), scheme);
        let (at, len) = (le64(&short, 80), le64(&short, 88));
        let mut b = packed[..le64(&packed, 80)].to_vec();
        b[88..96].copy_from_slice(&(len as u64).to_le_bytes());
        b.extend(&short[at..at + len]);
        assert!(
            matches!(
                read(&b),
                Err(Ktx2Error::DecompressedLength {
                    got: Some(64),
                    expected: 128,
                    ..
                })
            ),
            "scheme {scheme}: {:?}",
            read(&b)
        );
        // A byteLength of 0 cannot expand to anything.
        let mut b = packed.clone();
        b[88..96].copy_from_slice(&0u64.to_le_bytes());
        assert!(matches!(read(&b), Err(Ktx2Error::CannotExpand { .. })));
    }
}

/// Random byte flips anywhere in valid files: the reader returns, it never panics.
#[test]
fn flipped_bytes_never_panic() {
    for_seeds("ktx2 flipped bytes", 300, |seed, rng| {
        let f = TexelFormat::ALL[rng.random_range(0..TexelFormat::ALL.len())];
        let (w, h) = (rng.random_range(1..20), rng.random_range(1..20));
        let n = rng.random_range(1..=full_mip_count(w, h) as usize);
        let mut bytes = written(&random_texture(rng, f, w, h, n));
        let header_only = seed % 2 == 0;
        for _ in 0..rng.random_range(1..6) {
            let at = rng.random_range(
                0..if header_only {
                    200.min(bytes.len())
                } else {
                    bytes.len()
                },
            );
            bytes[at] = rng.random();
        }
        // Whatever is read is consistent: every level has its size.
        if let Ok(tex) = read(&bytes) {
            for (p, level) in tex.levels.iter().enumerate() {
                assert_eq!(level.len(), level_len(tex.format, tex.width, tex.height, p));
            }
        }
    });
}

#[test]
fn write_file_and_read_file_never_leave_partial_files() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("map.ktx2");
    let mut tex = random_texture(&mut seeded(), TexelFormat::Bc5Snorm, 16, 8, 5);
    tex.key_values = vec![kv("KTXwriter", b"test\0")];
    write_file(&path, &tex).unwrap();
    assert_eq!(read_file(&path).unwrap(), tex);
    let e = write_file(
        &path,
        &Ktx2Texture {
            layers: 0,
            width: 13,
            ..tex.clone()
        },
    )
    .unwrap_err();
    assert!(matches!(e, Ktx2Error::InFile { .. }), "{e}");
    assert_eq!(
        read_file(&path).unwrap(),
        tex,
        "a refused write leaves the file untouched"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["map.ktx2"], "no temporary file left");

    let bad = Ktx2Texture {
        layers: 0,
        levels: vec![vec![0; 3]],
        ..tex.clone()
    };
    let other = dir.path().join("bad.ktx2");
    let e = write_file(&other, &bad).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: level 0 is 3 bytes", other.display())),
        "{e}"
    );
    assert!(!other.exists());

    let missing = dir.path().join("no such folder").join("x.ktx2");
    let e = write_file(&missing, &tex).unwrap_err();
    assert!(matches!(e, Ktx2Error::Io { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("cannot write {}:", missing.display())),
        "{e}"
    );
    let e = read_file(&missing).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("cannot read {}:", missing.display())),
        "{e}"
    );

    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let e = read_file(&path).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: truncated: level 0 ends at byte",
            path.display()
        )),
        "{e}"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["map.ktx2"]);
}
