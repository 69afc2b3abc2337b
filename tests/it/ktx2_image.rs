//! `ktx2_image`: KTX2 files made here by a test-only writer (checked against the `ktx2` crate's
//! reader, with DFDs from that crate's generator and vkFormat numbers from its constants)
//! decoded and compared with what went in: exact bytes for uncompressed and supercompressed
//! levels, the BC specs' palette formulas for hand-built BC1/BC4/BC5/BC6H blocks, and an
//! independent encoder (`block_compression`) for BC1/BC3/BC5/BC7 within each format's error.
//! Malformed files — every truncation, crafted sizes, random byte flips — give errors, never
//! panics.

// Test data is built with casts of values known to be in range, and the float checks are
// meant to be exact.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    clippy::float_cmp
)]

use block_compression::{encode::compress_rgba8, BC7Settings, CompressionVariant};
use image::DynamicImage;
use ktx2::{ColorModel, Format};
use qtangent::mesh::ktx2_image::{decode, is_ktx2};
use rand::{Rng, RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The 12-byte KTX 2.0 identifier, as the spec lists it.
const IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

// ---------------------------------------------------------------------------------------------
// A test-only KTX2 writer.

/// A KTX2 file's fields; [`Ktx2::bytes`] lays them out as the KTX 2.0 spec does: header, level
/// index, DFD, no key/value or supercompression global data, then the levels from the smallest
/// to level 0, each aligned (for scheme 0) to lcm(texel block bytes, 4).
#[derive(Clone)]
struct Ktx2 {
    vk_format: u32,
    type_size: u32,
    width: u32,
    height: u32,
    depth: u32,
    layers: u32,
    faces: u32,
    level_count: u32,
    scheme: u32,
    /// The whole DFD section, dfdTotalSize first.
    dfd: Vec<u8>,
    /// Level 0 first: the stored bytes and uncompressedByteLength.
    levels: Vec<(Vec<u8>, u64)>,
    /// Bytes in a texel block (bytesPlane0 of the DFD).
    block_bytes: usize,
}

/// The DFD section for `format` (dfdTotalSize and the `ktx2` crate's Basic block), typeSize,
/// and the bytes of one texel block.
fn dfd_of(format: Format) -> (Vec<u8>, u32, usize) {
    let (basic, type_size) = ktx2::dfd::Basic::from_format(format).expect("a DFD for the format");
    let block_bytes = usize::from(basic.bytes_planes[0]);
    dfd_section(basic, type_size, block_bytes)
}

fn dfd_section(
    basic: ktx2::dfd::Basic,
    type_size: u32,
    block_bytes: usize,
) -> (Vec<u8>, u32, usize) {
    let block = ktx2::dfd::Block::Basic(basic).to_vec();
    let total = u32::try_from(block.len() + 4).unwrap();
    let mut dfd = total.to_le_bytes().to_vec();
    dfd.extend_from_slice(&block);
    (dfd, type_size, block_bytes)
}

impl Ktx2 {
    /// A 2D texture of `format` with level 0 = `level0` stored uncompressed.
    fn new(format: Format, width: u32, height: u32, level0: Vec<u8>) -> Ktx2 {
        let (dfd, type_size, block_bytes) = dfd_of(format);
        let len = level0.len() as u64;
        Ktx2 {
            vk_format: format.value(),
            type_size,
            width,
            height,
            depth: 0,
            layers: 0,
            faces: 1,
            level_count: 1,
            scheme: 0,
            dfd,
            levels: vec![(level0, len)],
            block_bytes,
        }
    }

    /// The same texture with level 0 Zstandard-compressed (by the C library, level 19).
    fn zstd(mut self) -> Ktx2 {
        let (raw, len) = self.levels.remove(0);
        let packed = zstd::bulk::compress(&raw, 19).expect("zstd compresses");
        self.levels.insert(0, (packed, len));
        self.scheme = 2;
        self
    }

    /// The same texture with level 0 ZLIB-compressed (by `flate2`).
    fn zlib(mut self) -> Ktx2 {
        use std::io::Write;
        let (raw, len) = self.levels.remove(0);
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&raw).unwrap();
        self.levels.insert(0, (enc.finish().unwrap(), len));
        self.scheme = 3;
        self
    }

    fn bytes(&self) -> Vec<u8> {
        let n = self.levels.len();
        let mut out = vec![0u8; 80 + 24 * n];
        let dfd_offset = out.len();
        out.extend_from_slice(&self.dfd);
        let align = if self.scheme == 0 {
            lcm(self.block_bytes.max(1), 4)
        } else {
            1
        };
        let mut index = vec![(0u64, 0u64, 0u64); n];
        for i in (0..n).rev() {
            out.resize(out.len().next_multiple_of(align), 0);
            let (data, uncompressed) = &self.levels[i];
            index[i] = (out.len() as u64, data.len() as u64, *uncompressed);
            out.extend_from_slice(data);
        }
        out[..12].copy_from_slice(&IDENTIFIER);
        let fields = [
            self.vk_format,
            self.type_size,
            self.width,
            self.height,
            self.depth,
            self.layers,
            self.faces,
            self.level_count,
            self.scheme,
            u32::try_from(dfd_offset).unwrap(),
            u32::try_from(self.dfd.len()).unwrap(),
            0, // kvdByteOffset
            0, // kvdByteLength
        ];
        for (i, v) in fields.iter().enumerate() {
            out[12 + 4 * i..16 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        // sgdByteOffset and sgdByteLength (bytes 64..80) stay 0.
        for (i, (offset, len, uncompressed)) in index.iter().enumerate() {
            let at = 80 + 24 * i;
            out[at..at + 8].copy_from_slice(&offset.to_le_bytes());
            out[at + 8..at + 16].copy_from_slice(&len.to_le_bytes());
            out[at + 16..at + 24].copy_from_slice(&uncompressed.to_le_bytes());
        }
        out
    }
}

fn lcm(a: usize, b: usize) -> usize {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    a / gcd(a, b) * b
}

/// Writes `file`, checks the `ktx2` crate reads back its header and level 0, and decodes it.
fn write_and_decode(file: &Ktx2) -> Result<DynamicImage, String> {
    let bytes = file.bytes();
    let reader = ktx2::Reader::new(&bytes[..]).expect("the ktx2 crate reads the test file");
    let h = reader.header();
    assert_eq!(h.format.map_or(0, |f| f.value()), file.vk_format);
    assert_eq!((h.pixel_width, h.pixel_height), (file.width, file.height));
    assert_eq!(h.level_count, file.level_count);
    let level0 = reader.levels().next().expect("level 0");
    assert_eq!(level0.data, &file.levels[0].0[..]);
    assert_eq!(level0.uncompressed_byte_length, file.levels[0].1);
    decode(&bytes)
}

/// Decodes a valid file that must decode.
fn decoded(file: &Ktx2) -> DynamicImage {
    write_and_decode(file).unwrap_or_else(|e| panic!("decode failed: {e}"))
}

/// The error for `bytes`, checked to be one line starting `KTX2: `.
fn error_of(bytes: &[u8]) -> String {
    match decode(bytes) {
        Ok(img) => panic!(
            "expected an error, decoded a {}×{} image",
            img.width(),
            img.height()
        ),
        Err(e) => {
            assert!(e.starts_with("KTX2: "), "{e}");
            assert!(!e.contains('\n') && !e.contains('\r'), "{e}");
            e
        }
    }
}

/// `n` bytes from a seeded generator.
fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

// ---------------------------------------------------------------------------------------------
// Identification and uncompressed formats.

#[test]
fn is_ktx2_checks_the_identifier() {
    let file = Ktx2::new(Format::R8G8B8A8_UNORM, 1, 1, vec![1, 2, 3, 4]).bytes();
    assert!(is_ktx2(&file));
    assert!(is_ktx2(&IDENTIFIER));
    assert!(!is_ktx2(&IDENTIFIER[..11]));
    assert!(!is_ktx2(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
    let mut ktx1 = IDENTIFIER;
    ktx1[5..7].copy_from_slice(b"11");
    assert!(!is_ktx2(&ktx1));
    assert!(error_of(b"\x89PNG\r\n\x1a\n").contains("not a KTX 2.0 file"));
}

#[test]
fn rgba8_round_trips_exactly() {
    // 5 × 3: not a multiple of anything, rows tightly packed.
    let src = random_bytes(5 * 3 * 4, 1);
    for format in [Format::R8G8B8A8_UNORM, Format::R8G8B8A8_SRGB] {
        let img = decoded(&Ktx2::new(format, 5, 3, src.clone()));
        let DynamicImage::ImageRgba8(rgba) = img else {
            panic!("{format:?}: not RGBA8")
        };
        assert_eq!((rgba.width(), rgba.height()), (5, 3));
        // sRGB bytes are returned as stored, not linearised.
        assert_eq!(rgba.as_raw(), &src, "{format:?}");
    }
}

#[test]
fn bgra8_and_bgr8_are_reordered() {
    let src = random_bytes(4 * 2 * 4, 2);
    for format in [Format::B8G8R8A8_UNORM, Format::B8G8R8A8_SRGB] {
        let img = decoded(&Ktx2::new(format, 4, 2, src.clone())).into_rgba8();
        for (px, s) in img.pixels().zip(src.chunks_exact(4)) {
            assert_eq!(px.0, [s[2], s[1], s[0], s[3]], "{format:?}");
        }
    }
    let src = random_bytes(3 * 3 * 3, 3);
    for format in [Format::B8G8R8_UNORM, Format::B8G8R8_SRGB] {
        let img = decoded(&Ktx2::new(format, 3, 3, src.clone())).into_rgba8();
        for (px, s) in img.pixels().zip(src.chunks_exact(3)) {
            assert_eq!(px.0, [s[2], s[1], s[0], 255], "{format:?}");
        }
    }
}

#[test]
fn r8_rg8_rgb8_expand_to_rgba8() {
    // Missing G and B read 0, missing A 255 (what a GPU samples).
    let (w, h) = (3u32, 2u32);
    let texels = (w * h) as usize;
    let cases: [(Format, usize); 6] = [
        (Format::R8_UNORM, 1),
        (Format::R8_SRGB, 1),
        (Format::R8G8_UNORM, 2),
        (Format::R8G8_SRGB, 2),
        (Format::R8G8B8_UNORM, 3),
        (Format::R8G8B8_SRGB, 3),
    ];
    for (format, channels) in cases {
        let src = random_bytes(texels * channels, 4);
        let img = decoded(&Ktx2::new(format, w, h, src.clone()));
        let DynamicImage::ImageRgba8(rgba) = img else {
            panic!("{format:?}: not RGBA8")
        };
        for (px, s) in rgba.pixels().zip(src.chunks_exact(channels)) {
            let mut want = [0, 0, 0, 255];
            want[..channels].copy_from_slice(s);
            assert_eq!(px.0, want, "{format:?}");
        }
    }
}

/// The glTF normal-map convention for SNORM8, in f64: round((clamp(s / 127, −1, 1) + 1) / 2 · 255).
fn snorm8_to_unorm(s: i8) -> u8 {
    let x = (f64::from(s) / 127.0).clamp(-1.0, 1.0);
    (f64::midpoint(x, 1.0) * 255.0).round() as u8
}

#[test]
fn snorm8_maps_with_the_normal_map_convention() {
    // Every byte value once, as R8_SNORM (16 × 16) and as the four channels of RGBA8_SNORM.
    let all: Vec<u8> = (0..=255).collect();
    let img = decoded(&Ktx2::new(Format::R8_SNORM, 16, 16, all.clone())).into_rgba8();
    for (px, &b) in img.pixels().zip(&all) {
        let s = i8::from_le_bytes([b]);
        assert_eq!(px.0, [snorm8_to_unorm(s), 0, 0, 255], "s = {s}");
    }
    assert_eq!(snorm8_to_unorm(-128), 0);
    assert_eq!(snorm8_to_unorm(0), 128);
    assert_eq!(snorm8_to_unorm(127), 255);

    let img = decoded(&Ktx2::new(Format::R8G8B8A8_SNORM, 8, 8, all.clone())).into_rgba8();
    for (px, s) in img.pixels().zip(all.chunks_exact(4)) {
        let want: Vec<u8> = s
            .iter()
            .map(|&b| snorm8_to_unorm(i8::from_le_bytes([b])))
            .collect();
        assert_eq!(px.0.to_vec(), want);
    }
    let img = decoded(&Ktx2::new(Format::R8G8_SNORM, 16, 8, all.clone())).into_rgba8();
    for (px, s) in img.pixels().zip(all.chunks_exact(2)) {
        let [r, g] = [s[0], s[1]].map(|b| snorm8_to_unorm(i8::from_le_bytes([b])));
        assert_eq!(px.0, [r, g, 0, 255]);
    }
}

#[test]
fn snorm16_maps_with_the_normal_map_convention() {
    // round((clamp(s / 32767, −1, 1) + 1) / 2 · 65535), in f64.
    let values: [i16; 8] = [-32768, -32767, 0, 32767, 1, -1, 16384, -16384];
    let want = values.map(|s| {
        let x = (f64::from(s) / 32767.0).clamp(-1.0, 1.0);
        (f64::midpoint(x, 1.0) * 65535.0).round() as u16
    });
    assert_eq!(want[..4], [0, 0, 32768, 65535]);
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let img = decoded(&Ktx2::new(Format::R16G16B16A16_SNORM, 2, 1, bytes));
    let DynamicImage::ImageRgba16(rgba) = img else {
        panic!("not RGBA16")
    };
    assert_eq!(rgba.as_raw(), &want.to_vec());
}

/// Every vkFormat the decoder supports, by the `ktx2` crate's names and numbers.
const SUPPORTED: [Format; 50] = [
    Format::R8_UNORM,
    Format::R8_SNORM,
    Format::R8_SRGB,
    Format::R8G8_UNORM,
    Format::R8G8_SNORM,
    Format::R8G8_SRGB,
    Format::R8G8B8_UNORM,
    Format::R8G8B8_SNORM,
    Format::R8G8B8_SRGB,
    Format::B8G8R8_UNORM,
    Format::B8G8R8_SNORM,
    Format::B8G8R8_SRGB,
    Format::R8G8B8A8_UNORM,
    Format::R8G8B8A8_SNORM,
    Format::R8G8B8A8_SRGB,
    Format::B8G8R8A8_UNORM,
    Format::B8G8R8A8_SNORM,
    Format::B8G8R8A8_SRGB,
    Format::R16_UNORM,
    Format::R16_SNORM,
    Format::R16_SFLOAT,
    Format::R16G16_UNORM,
    Format::R16G16_SNORM,
    Format::R16G16_SFLOAT,
    Format::R16G16B16_UNORM,
    Format::R16G16B16_SNORM,
    Format::R16G16B16_SFLOAT,
    Format::R16G16B16A16_UNORM,
    Format::R16G16B16A16_SNORM,
    Format::R16G16B16A16_SFLOAT,
    Format::R32_SFLOAT,
    Format::R32G32_SFLOAT,
    Format::R32G32B32_SFLOAT,
    Format::R32G32B32A32_SFLOAT,
    Format::BC1_RGB_UNORM_BLOCK,
    Format::BC1_RGB_SRGB_BLOCK,
    Format::BC1_RGBA_UNORM_BLOCK,
    Format::BC1_RGBA_SRGB_BLOCK,
    Format::BC2_UNORM_BLOCK,
    Format::BC2_SRGB_BLOCK,
    Format::BC3_UNORM_BLOCK,
    Format::BC3_SRGB_BLOCK,
    Format::BC4_UNORM_BLOCK,
    Format::BC4_SNORM_BLOCK,
    Format::BC5_UNORM_BLOCK,
    Format::BC5_SNORM_BLOCK,
    Format::BC6H_UFLOAT_BLOCK,
    Format::BC6H_SFLOAT_BLOCK,
    Format::BC7_UNORM_BLOCK,
    Format::BC7_SRGB_BLOCK,
];

#[test]
fn every_supported_format_decodes_and_is_named_as_vulkan_names_it() {
    // An 8 × 4 level of each (2 blocks for BC) decodes to the documented image type, and a level
    // one byte short names the format as the ktx2 crate does: the decoder's number → name table
    // agrees with Vulkan's for all 50.
    for format in SUPPORTED {
        let (_, _, block_bytes) = dfd_of(format);
        let name = format!("{format:?}");
        let blocks = if name.starts_with("BC") { 2 } else { 32 };
        let level = random_bytes(blocks * block_bytes, u64::from(format.value()));
        let img = decoded(&Ktx2::new(format, 8, 4, level.clone()));
        assert_eq!((img.width(), img.height()), (8, 4), "{name}");
        let float = name.contains("FLOAT");
        let sixteen = name.starts_with("R16") && !float;
        match img {
            DynamicImage::ImageRgba32F(_) => assert!(float, "{name}"),
            DynamicImage::ImageRgba16(_) => assert!(sixteen, "{name}"),
            DynamicImage::ImageRgba8(_) => assert!(!float && !sixteen, "{name}"),
            _ => panic!("{name}: unexpected image type"),
        }
        let short = Ktx2::new(format, 8, 4, level[1..].to_vec()).bytes();
        let e = error_of(&short);
        assert!(
            e.contains(&format!("8×4 VK_FORMAT_{name} level is {}", level.len())),
            "{e}"
        );
    }
    // Every other format the ktx2 crate knows is refused as unsupported.
    for &format in Format::ALL {
        if SUPPORTED.contains(&format) {
            continue;
        }
        let mut file = Ktx2::new(Format::R8G8B8A8_UNORM, 2, 2, vec![0; 16]);
        file.vk_format = format.value();
        let e = error_of(&file.bytes());
        assert!(
            e.contains(&format!("vkFormat {} ", format.value())) && e.contains("not supported"),
            "{format:?}: {e}"
        );
    }
}

#[test]
fn unorm16_round_trips_to_rgba16() {
    let src = random_bytes(3 * 2 * 8, 5);
    let img = decoded(&Ktx2::new(Format::R16G16B16A16_UNORM, 3, 2, src.clone()));
    let DynamicImage::ImageRgba16(rgba) = img else {
        panic!("not RGBA16")
    };
    let want: Vec<u16> = src
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(rgba.as_raw(), &want);
}

#[test]
fn float_formats_decode_to_rgba32f() {
    // Halves chosen exactly representable, so the f32 values are exact: 0.5, −2, 1024, 65504
    // (the largest half), 2⁻²⁴ (the smallest subnormal), −0.
    let values = [
        0.5f32,
        -2.0,
        1024.0,
        65504.0,
        2f32.powi(-24),
        -0.0,
        3.25,
        -0.125,
    ];
    let halves: Vec<u8> = values
        .iter()
        .flat_map(|&v| half::f16::from_f32(v).to_le_bytes())
        .collect();
    let img = decoded(&Ktx2::new(
        Format::R16G16B16A16_SFLOAT,
        2,
        1,
        halves.clone(),
    ));
    let DynamicImage::ImageRgba32F(rgba) = img else {
        panic!("not RGBA32F")
    };
    assert_eq!(
        rgba.as_raw()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>(),
        values.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );

    // RG16F: B = 0, A = 1.
    let img = decoded(&Ktx2::new(Format::R16G16_SFLOAT, 4, 1, halves)).into_rgba32f();
    for (px, v) in img.pixels().zip(values.chunks_exact(2)) {
        assert_eq!(px.0, [v[0], v[1], 0.0, 1.0]);
    }

    let floats: Vec<u8> = [1.0e-30f32, -7.5, 1.0e30, 0.1, 2.0, 3.0, 4.0, 5.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let img = decoded(&Ktx2::new(
        Format::R32G32B32A32_SFLOAT,
        1,
        2,
        floats.clone(),
    ));
    let DynamicImage::ImageRgba32F(rgba) = img else {
        panic!("not RGBA32F")
    };
    let want: Vec<f32> = floats
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(rgba.as_raw(), &want);
}

#[test]
fn only_level_0_is_read() {
    // A 4 × 4 texture with its full chain (4², 2², 1²): level 0 is stored last, found by the
    // level index. levelCount 0 ("generate mips") still stores level 0.
    let l0 = random_bytes(4 * 4 * 4, 6);
    let mut file = Ktx2::new(Format::R8G8B8A8_UNORM, 4, 4, l0.clone());
    file.levels.push((vec![7; 2 * 2 * 4], 16));
    file.levels.push((vec![9; 4], 4));
    file.level_count = 3;
    assert_eq!(decoded(&file).into_rgba8().as_raw(), &l0);

    let mut file = Ktx2::new(Format::R8G8B8A8_UNORM, 4, 4, l0.clone());
    file.level_count = 0;
    assert_eq!(decoded(&file).into_rgba8().as_raw(), &l0);
}

#[test]
fn a_1d_texture_decodes_as_one_row() {
    let src = random_bytes(7 * 4, 7);
    let img = decoded(&Ktx2::new(Format::R8G8B8A8_UNORM, 7, 0, src.clone()));
    assert_eq!((img.width(), img.height()), (7, 1));
    assert_eq!(img.into_rgba8().as_raw(), &src);
}

// ---------------------------------------------------------------------------------------------
// Block-compressed formats: hand-built blocks against the specs' formulas.

/// RGB565 expanded to 8 bits per channel by bit replication, as the BC1 spec does.
fn rgb565(c: u16) -> [u8; 3] {
    let (r, g, b) = ((c >> 11) & 31, (c >> 5) & 63, c & 31);
    [
        ((r << 3) | (r >> 2)) as u8,
        ((g << 2) | (g >> 4)) as u8,
        ((b << 3) | (b >> 2)) as u8,
    ]
}

/// A BC1 block: endpoints c0, c1 and the 2-bit index of each of the 16 texels (row by row, texel
/// 0 in the lowest bits).
fn bc1_block(c0: u16, c1: u16, indices: [u8; 16]) -> [u8; 8] {
    let bits = indices
        .iter()
        .enumerate()
        .fold(0u32, |acc, (i, &x)| acc | (u32::from(x) << (2 * i)));
    let mut b = [0u8; 8];
    b[..2].copy_from_slice(&c0.to_le_bytes());
    b[2..4].copy_from_slice(&c1.to_le_bytes());
    b[4..].copy_from_slice(&bits.to_le_bytes());
    b
}

/// The BC1 palette (Khronos Data Format spec, BC1): c0 > c1 gives c0, c1, (2·c0 + c1) / 3,
/// (c0 + 2·c1) / 3; otherwise c0, c1, (c0 + c1) / 2 and black, transparent unless `opaque`.
/// The endpoints the tests use make every division exact, so no rounding convention matters.
fn bc1_palette(c0: u16, c1: u16, opaque: bool) -> [[u8; 4]; 4] {
    let (a, b) = (rgb565(c0), rgb565(c1));
    let mix = |wa: u32, wb: u32, d: u32| {
        let mut px = [0, 0, 0, 255];
        for c in 0..3 {
            let num = wa * u32::from(a[c]) + wb * u32::from(b[c]);
            assert_eq!(num % d, 0, "the test's endpoints interpolate exactly");
            px[c] = (num / d) as u8;
        }
        px
    };
    let [r0, g0, b0] = a;
    let [r1, g1, b1] = b;
    if c0 > c1 {
        [
            [r0, g0, b0, 255],
            [r1, g1, b1, 255],
            mix(2, 1, 3),
            mix(1, 2, 3),
        ]
    } else {
        [
            [r0, g0, b0, 255],
            [r1, g1, b1, 255],
            mix(1, 1, 2),
            [0, 0, 0, if opaque { 255 } else { 0 }],
        ]
    }
}

#[test]
fn bc1_hand_built_blocks_decode_to_the_spec_palette() {
    // Two blocks side by side in a 7 × 3 texture (8 × 4 of blocks, cropped): a 4-colour block
    // (white, black: thirds 170 and 85) and a 3-colour one ((0, 0, 132), (132, 130, 0): midpoint
    // (66, 65, 66), then black).
    let blocks = [(0xFFFF_u16, 0x0000_u16), (0x0010, 0x8400)];
    let indices: [u8; 16] = std::array::from_fn(|i| (i % 4) as u8);
    let data: Vec<u8> = blocks
        .iter()
        .flat_map(|&(c0, c1)| bc1_block(c0, c1, indices))
        .collect();
    for (format, opaque) in [
        (Format::BC1_RGB_UNORM_BLOCK, true),
        (Format::BC1_RGB_SRGB_BLOCK, true),
        (Format::BC1_RGBA_UNORM_BLOCK, false),
        (Format::BC1_RGBA_SRGB_BLOCK, false),
    ] {
        let img = decoded(&Ktx2::new(format, 7, 3, data.clone()));
        let DynamicImage::ImageRgba8(rgba) = img else {
            panic!("{format:?}: not RGBA8")
        };
        assert_eq!((rgba.width(), rgba.height()), (7, 3));
        for (x, y, px) in rgba.enumerate_pixels() {
            let (c0, c1) = blocks[x as usize / 4];
            let index = indices[(y % 4 * 4 + x % 4) as usize];
            let want = bc1_palette(c0, c1, opaque)[usize::from(index)];
            assert_eq!(px.0, want, "{format:?} texel ({x}, {y})");
        }
    }
}

/// A BC4 block: endpoints r0, r1 (bytes) and the 3-bit index of each texel.
fn bc4_block(r0: u8, r1: u8, indices: [u8; 16]) -> [u8; 8] {
    let bits = indices
        .iter()
        .enumerate()
        .fold(0u64, |acc, (i, &x)| acc | (u64::from(x) << (3 * i)));
    let mut b = [0u8; 8];
    b[0] = r0;
    b[1] = r1;
    b[2..].copy_from_slice(&bits.to_le_bytes()[..6]);
    b
}

/// The BC4 palette (Khronos Data Format spec, BC4) over endpoint values read as unsigned or
/// signed: r0 > r1 gives r0, r1 and the six sevenths between; otherwise r0, r1, the four fifths
/// between, then the minimum and maximum (0 and 255, or −127 and 127). The tests' endpoints
/// make every division exact.
fn bc4_palette(r0: i32, r1: i32, snorm: bool) -> [i32; 8] {
    let mix = |wa: i32, wb: i32, d: i32| {
        let num = wa * r0 + wb * r1;
        assert_eq!(num % d, 0, "the test's endpoints interpolate exactly");
        num / d
    };
    if r0 > r1 {
        [
            r0,
            r1,
            mix(6, 1, 7),
            mix(5, 2, 7),
            mix(4, 3, 7),
            mix(3, 4, 7),
            mix(2, 5, 7),
            mix(1, 6, 7),
        ]
    } else {
        let (lo, hi) = if snorm { (-127, 127) } else { (0, 255) };
        [
            r0,
            r1,
            mix(4, 1, 5),
            mix(3, 2, 5),
            mix(2, 3, 5),
            mix(1, 4, 5),
            lo,
            hi,
        ]
    }
}

#[test]
fn bc4_and_bc5_hand_built_blocks_decode_to_the_spec_palette() {
    // Per signedness, two endpoint pairs: an 8-value block and a 6-value one, with exact
    // interpolants (unsigned 210/0 and 0/250; signed 70/−70 and −100/100).
    let indices: [u8; 16] = std::array::from_fn(|i| (i % 8) as u8);
    for snorm in [false, true] {
        let pairs: [(i32, i32); 2] = if snorm {
            [(70, -70), (-100, 100)]
        } else {
            [(210, 0), (0, 250)]
        };
        let byte = |v: i32| if snorm { (v as i8) as u8 } else { v as u8 };
        let to_unorm = |v: i32| {
            if snorm {
                snorm8_to_unorm(v as i8)
            } else {
                v as u8
            }
        };
        let block = |(r0, r1): (i32, i32)| bc4_block(byte(r0), byte(r1), indices);
        let want = |pair: (i32, i32), i: usize| to_unorm(bc4_palette(pair.0, pair.1, snorm)[i]);

        // BC4: the two blocks side by side in an 8 × 4 texture.
        let data: Vec<u8> = pairs.iter().flat_map(|&p| block(p)).collect();
        let format = if snorm {
            Format::BC4_SNORM_BLOCK
        } else {
            Format::BC4_UNORM_BLOCK
        };
        let img = decoded(&Ktx2::new(format, 8, 4, data));
        let DynamicImage::ImageRgba8(rgba) = img else {
            panic!("{format:?}: not RGBA8")
        };
        for (x, y, px) in rgba.enumerate_pixels() {
            let i = usize::from(indices[(y * 4 + x % 4) as usize]);
            let r = want(pairs[x as usize / 4], i);
            assert_eq!(px.0, [r, 0, 0, 255], "{format:?} texel ({x}, {y})");
        }

        // BC5: one 4 × 4 block, red from the first pair, green from the second.
        let data = [block(pairs[0]), block(pairs[1])].concat();
        let format = if snorm {
            Format::BC5_SNORM_BLOCK
        } else {
            Format::BC5_UNORM_BLOCK
        };
        let img = decoded(&Ktx2::new(format, 4, 4, data)).into_rgba8();
        for (x, y, px) in img.enumerate_pixels() {
            let i = usize::from(indices[(y * 4 + x) as usize]);
            let (r, g) = (want(pairs[0], i), want(pairs[1], i));
            assert_eq!(px.0, [r, g, 0, 255], "{format:?} texel ({x}, {y})");
        }
    }
}

/// The half-float bits BC6H mode 11 decodes an endpoint `e` (10 bits) to when its weight is
/// 0 (Direct3D 11 BC6H spec, `unquantize` and `finish_unquantize`): unsigned
/// u = ((e << 16) + 0x8000) >> 10, then u · 31 / 64; signed (e sign-extended)
/// u = ((|e| << 15) + 0x4000) >> 9, then |u| · 31 / 32 with the sign in bit 15. (0 maps to 0;
/// the extreme codes, not used here, map to the largest value.)
fn bc6h_mode11_half(e: u32, signed: bool) -> u16 {
    if e == 0 {
        0
    } else if signed {
        let v = if e & 0x200 != 0 {
            e as i32 - 0x400
        } else {
            e as i32
        };
        let m = v.unsigned_abs();
        let u = ((m << 15) + 0x4000) >> 9;
        let bits = (u * 31) >> 5;
        (if v < 0 { 0x8000 | bits } else { bits }) as u16
    } else {
        let u = ((e << 16) + 0x8000) >> 10;
        ((u * 31) >> 6) as u16
    }
}

#[test]
fn bc6h_hand_built_block_decodes_to_floats() {
    // Mode 11 (5 mode bits 00011): one region, endpoints rw, gw, bw, rx, gx, bx of 10 bits each
    // from bit 5, then 63 index bits (all 0 here: every texel is endpoint w). rw = 0x300 is 768
    // unsigned and −256 signed, so UFLOAT and SFLOAT decode the same bits differently.
    let (rw, gw, bw) = (0x300u32, 100u32, 0u32);
    let mut bits: u128 = 0b00011;
    for (i, e) in [rw, gw, bw, rw, gw, bw].iter().enumerate() {
        bits |= u128::from(*e) << (5 + 10 * i);
    }
    let block = bits.to_le_bytes().to_vec();
    for (format, signed) in [
        (Format::BC6H_UFLOAT_BLOCK, false),
        (Format::BC6H_SFLOAT_BLOCK, true),
    ] {
        // 3 × 2: one block, cropped.
        let img = decoded(&Ktx2::new(format, 3, 2, block.clone()));
        let DynamicImage::ImageRgba32F(rgba) = img else {
            panic!("{format:?}: not RGBA32F")
        };
        assert_eq!((rgba.width(), rgba.height()), (3, 2));
        let want = [rw, gw, bw].map(|e| half::f16::from_bits(bc6h_mode11_half(e, signed)).to_f32());
        assert_eq!(want[2], 0.0);
        for px in rgba.pixels() {
            assert_eq!(px.0, [want[0], want[1], want[2], 1.0], "{format:?}");
        }
    }
    // The two readings of 0x300: 323.75 (2⁸ · (1 + 271/1024)) and a negative value.
    assert_eq!(
        half::f16::from_bits(bc6h_mode11_half(0x300, false)).to_f32(),
        323.75
    );
    assert!(half::f16::from_bits(bc6h_mode11_half(0x300, true)).to_f32() < 0.0);
}

// ---------------------------------------------------------------------------------------------
// Block-compressed formats: an independent encoder's blocks against the source image.

/// The source: every channel a ramp along t = x + y, so each block's colours lie on one line
/// in RGB (which a BC1 palette can follow) and the channels differ (so a swap shows):
/// (40 + 4t, 200 − 4t, 100 + 2t, 255 − 6t). Across a 4 × 4 block t spans 6, so R and G span
/// Δ = 24, B 12 and alpha 36.
fn ramp(width: u32, height: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let t = x + y;
            let px = [40 + 4 * t, 200 - 4 * t, 100 + 2 * t, 255 - 6 * t];
            v.extend(px.map(|c| u8::try_from(c).expect("the ramp stays in 0..=255")));
        }
    }
    v
}

/// `src` (`w` × `h`) padded to whole blocks by repeating its last column and row, encoded
/// with `block_compression`.
fn encode(variant: CompressionVariant, src: &[u8], w: u32, h: u32) -> Vec<u8> {
    let (pw, ph) = (w.div_ceil(4) * 4, h.div_ceil(4) * 4);
    let mut padded = Vec::new();
    for y in 0..ph {
        for x in 0..pw {
            let at = ((y.min(h - 1) * w + x.min(w - 1)) * 4) as usize;
            padded.extend_from_slice(&src[at..at + 4]);
        }
    }
    let mut blocks = vec![0u8; variant.blocks_byte_size(pw, ph)];
    compress_rgba8(variant, &padded, &mut blocks, pw, ph, pw * 4);
    blocks
}

/// Largest absolute difference per channel between the decoded image and `src`.
fn max_error(img: &image::RgbaImage, src: &[u8]) -> [u8; 4] {
    let mut worst = [0u8; 4];
    for (px, s) in img.pixels().zip(src.chunks_exact(4)) {
        for c in 0..4 {
            worst[c] = worst[c].max(px.0[c].abs_diff(s[c]));
        }
    }
    worst
}

#[test]
fn bc1_bc2_bc3_bc5_bc7_from_an_independent_encoder_match_the_source() {
    // Tolerances per channel, for a near-optimal encoder on the ramp (per block R and G span
    // Δ = 24, B 12, alpha 36), each with 1 more for the decoder's integer rounding:
    // - BC1, BC2 and BC3 colour: 4 palette entries spaced Δ/3 give ±Δ/6, plus RGB565 endpoint
    //   quantisation (expanded 5-bit values are 8 or 9 apart: ±4.5; 6-bit 4 or 5: ±2.5):
    //   R 4 + 4.5 + 1 → 9, G 4 + 2.5 + 1 → 7, B 2 + 4.5 + 1 → 7.
    // - BC2 alpha: 4 bits stored as is and expanded to a multiple of 17; this encoder truncates
    //   (stores floor(15a / 255)), so the decoded alpha is up to 16 below the source → 16.
    // - BC3 alpha and BC5 R, G: 8 entries between 8-bit endpoints, ±Δ/14, + 0.5 endpoint
    //   rounding + 1: alpha 2.6 + 1.5 → 4; R, G 1.7 + 1.5 → 3.
    // - BC7 (the 4-bit-index modes a smooth block takes, 7-bit endpoints + p-bit): ±Δ/30
    //   (0.8, alpha 1.2) + endpoint quantisation ±1 + 1 → 3.
    let cases: [(CompressionVariant, Format, [u8; 4]); 5] = [
        (
            CompressionVariant::BC1,
            Format::BC1_RGBA_UNORM_BLOCK,
            [9, 7, 7, 0],
        ),
        (
            CompressionVariant::BC2,
            Format::BC2_UNORM_BLOCK,
            [9, 7, 7, 16],
        ),
        (
            CompressionVariant::BC3,
            Format::BC3_UNORM_BLOCK,
            [9, 7, 7, 4],
        ),
        (
            CompressionVariant::BC5,
            Format::BC5_UNORM_BLOCK,
            [3, 3, 0, 0],
        ),
        (
            CompressionVariant::BC7(BC7Settings::alpha_slow()),
            Format::BC7_UNORM_BLOCK,
            [3, 3, 3, 3],
        ),
    ];
    for (w, h) in [(12u32, 8u32), (10, 6)] {
        let src = ramp(w, h);
        for &(variant, format, tolerance) in &cases {
            let blocks = encode(variant, &src, w, h);
            let img = decoded(&Ktx2::new(format, w, h, blocks));
            let DynamicImage::ImageRgba8(rgba) = img else {
                panic!("{format:?}: not RGBA8")
            };
            assert_eq!((rgba.width(), rgba.height()), (w, h));
            // What the format does not store reads as the GPU fills it: BC1 (its 4-colour
            // blocks here) A = 255; BC5 B = 0, A = 255.
            let expected: Vec<u8> = match format {
                Format::BC1_RGBA_UNORM_BLOCK => src
                    .chunks_exact(4)
                    .flat_map(|p| [p[0], p[1], p[2], 255])
                    .collect(),
                Format::BC5_UNORM_BLOCK => src
                    .chunks_exact(4)
                    .flat_map(|p| [p[0], p[1], 0, 255])
                    .collect(),
                _ => src.clone(),
            };
            let err = max_error(&rgba, &expected);
            eprintln!("{format:?} {w}×{h}: max error per channel {err:?}");
            for c in 0..4 {
                assert!(
                    err[c] <= tolerance[c],
                    "{format:?} {w}×{h}: channel {c} off by {} (tolerance {})",
                    err[c],
                    tolerance[c]
                );
            }
        }
    }
}

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
    for pack in [Ktx2::zstd, Ktx2::zlib] {
        let good = pack(Ktx2::new(Format::R8G8B8A8_UNORM, 8, 8, rgba.clone()));

        // uncompressedByteLength other than the level's size.
        let mut file = good.clone();
        file.levels[0].1 += 4;
        let e = error_of(&file.bytes());
        assert!(e.contains("uncompressedByteLength 260 bytes"), "{e}");

        // A stream holding fewer bytes than the level needs.
        let short = pack(Ktx2::new(
            Format::R8G8B8A8_UNORM,
            8,
            4,
            rgba[..128].to_vec(),
        ));
        let mut file = good.clone();
        file.levels[0].0 = short.levels[0].0.clone();
        let e = error_of(&file.bytes());
        assert!(e.contains("decompresses to 128 bytes"), "{e}");

        // A stream holding more.
        let long = pack(Ktx2::new(Format::R8G8B8A8_UNORM, 8, 16, vec![5u8; 512]));
        let mut file = good.clone();
        file.levels[0].0 = long.levels[0].0.clone();
        let e = error_of(&file.bytes());
        assert!(
            e.contains("decompresses to more than uncompressedByteLength (256 bytes)"),
            "{e}"
        );

        // A corrupt stream.
        let mut file = good.clone();
        file.levels[0].0.iter_mut().skip(2).for_each(|b| *b ^= 0x5A);
        let e = error_of(&file.bytes());
        assert!(e.contains("level 0"), "{e}");
    }

    // A level claiming more than its bytes can expand to: 16384² RGBA32F (4 GiB) from 9 bytes of
    // Zstandard data is refused before any buffer is made (9 · 32768 bytes at most).
    let mut file = Ktx2::new(Format::R32G32B32A32_SFLOAT, 1, 1, vec![0; 16]).zstd();
    (file.width, file.height) = (16384, 16384);
    file.levels[0] = (
        vec![0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0, 0],
        16384 * 16384 * 16,
    );
    let e = error_of(&file.bytes());
    assert!(e.contains("cannot expand"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Refusals.

/// A file whose DFD is a Basic block with colour model `model` and vkFormat 0.
fn undefined_format(model: ColorModel, scheme: u32) -> Ktx2 {
    let (mut basic, _) = ktx2::dfd::Basic::from_format(Format::BC7_UNORM_BLOCK).unwrap();
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
    assert_eq!(
        e,
        "KTX2: Basis Universal (BasisLZ/ETC1S) textures are not supported: transcode to BC7 or an uncompressed format with `ktx transcode`"
    );
    // UASTC: vkFormat 0, colour model 166, with no supercompression or Zstandard.
    for scheme in [0, 2] {
        let e = error_of(&undefined_format(ColorModel::UASTC, scheme).bytes());
        assert!(e.contains("Basis Universal (UASTC)"), "{e}");
        assert!(e.contains("ktx transcode"), "{e}");
    }
    assert_eq!(ColorModel::UASTC.value(), 166);
    assert_eq!(ColorModel::ETC1S.value(), 163);

    // Any other vkFormat 0 is unsupported, and not called Basis.
    let e = error_of(&undefined_format(ColorModel::RGBSDA, 0).bytes());
    assert!(
        e.contains("vkFormat 0") && e.contains("colour model 1"),
        "{e}"
    );
    assert!(!e.contains("Basis"), "{e}");
    // With no readable DFD.
    let mut file = undefined_format(ColorModel::RGBSDA, 0);
    file.dfd.truncate(8);
    let e = error_of(&file.bytes());
    assert!(e.contains("vkFormat 0") && e.contains("DFD"), "{e}");
}

#[test]
fn other_textures_and_formats_are_refused_naming_them() {
    let base = Ktx2::new(Format::R8G8B8A8_UNORM, 2, 2, vec![0; 16]);
    let with = |f: &dyn Fn(&mut Ktx2)| {
        let mut file = base.clone();
        f(&mut file);
        error_of(&file.bytes())
    };
    let e = with(&|f| f.depth = 2);
    assert!(
        e.contains("3D textures") && e.contains("pixelDepth 2"),
        "{e}"
    );
    let e = with(&|f| f.faces = 6);
    assert!(e.contains("cube maps"), "{e}");
    let e = with(&|f| f.faces = 0);
    assert!(e.contains("faceCount 0"), "{e}");
    let e = with(&|f| f.layers = 3);
    assert!(
        e.contains("array textures") && e.contains("layerCount 3"),
        "{e}"
    );
    let e = with(&|f| f.width = 0);
    assert!(e.contains("pixelWidth 0"), "{e}");
    let e = with(&|f| f.scheme = 4);
    assert!(e.contains("supercompressionScheme 4"), "{e}");

    for (format, family) in [
        (Format::ETC2_R8G8B8A8_UNORM_BLOCK, "ETC2"),
        (Format::EAC_R11_UNORM_BLOCK, "EAC"),
        (Format::ASTC_4x4_SRGB_BLOCK, "ASTC"),
        (Format::ASTC_6x6_SFLOAT_BLOCK, "ASTC"),
        (Format::PVRTC1_4BPP_UNORM_BLOCK, "PVRTC"),
    ] {
        let n = format.value();
        let e = with(&|f| f.vk_format = n);
        assert!(e.contains(&format!("vkFormat {n} ({family})")), "{e}");
    }
    for format in [
        Format::E5B9G9R9_UFLOAT_PACK32,
        Format::R8G8B8A8_UINT,
        Format::R5G6B5_UNORM_PACK16,
    ] {
        let n = format.value();
        let e = with(&|f| f.vk_format = n);
        assert!(e.contains(&format!("vkFormat {n} is not supported")), "{e}");
    }
}

#[test]
fn level_sizes_are_checked() {
    // Level 0 one byte short of 2 × 2 RGBA8, and a BC7 level sized for 4 × 4 in an 8 × 4 file.
    let e = error_of(&Ktx2::new(Format::R8G8B8A8_UNORM, 2, 2, vec![0; 15]).bytes());
    assert_eq!(
        e,
        "KTX2: level 0 holds 15 bytes, a 2×2 VK_FORMAT_R8G8B8A8_UNORM level is 16"
    );
    let e = error_of(&Ktx2::new(Format::BC7_UNORM_BLOCK, 8, 4, vec![0; 16]).bytes());
    assert!(e.contains("VK_FORMAT_BC7_UNORM_BLOCK level is 32"), "{e}");
    // 5 × 5 BC1 covers 2 × 2 blocks.
    let e = error_of(&Ktx2::new(Format::BC1_RGB_UNORM_BLOCK, 5, 5, vec![0; 8]).bytes());
    assert!(e.contains("level is 32"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Truncated, crafted and fuzzed files.

#[test]
fn every_truncation_is_an_error() {
    // Uncompressed with three levels, and Zstandard- and ZLIB-compressed: cut at every length
    // (inside the header, the level index, the DFD, the smaller levels and level 0).
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
        for cut in 0..bytes.len() {
            let e = error_of(&bytes[..cut]);
            if cut < 12 {
                assert!(e.contains("not a KTX 2.0 file"), "cut {cut}: {e}");
            } else if cut < 80 {
                assert_eq!(
                    e,
                    format!("KTX2: truncated: the header needs 80 bytes, the file has {cut}")
                );
            } else if cut < 80 + 24 * file.levels.len() {
                assert!(
                    e.contains("truncated: the level index needs"),
                    "cut {cut}: {e}"
                );
            } else {
                let offset = u64::from_le_bytes(bytes[80..88].try_into().unwrap());
                let len = u64::from_le_bytes(bytes[88..96].try_into().unwrap());
                assert_eq!(
                    e,
                    format!("KTX2: truncated: level 0 needs {len} bytes at offset {offset}, the file has {cut}")
                );
            }
        }
    }
}

#[test]
fn crafted_sizes_fail_fast() {
    // 100000 × 100000 RGBA32F: refused from the header alone.
    let mut file = Ktx2::new(Format::R32G32B32A32_SFLOAT, 1, 1, vec![0; 16]);
    (file.width, file.height) = (100_000, 100_000);
    let e = error_of(&file.bytes());
    assert!(e.contains("100000×100000 texels is over the limit"), "{e}");

    // 16384² (within the limit) claiming 4 GiB of level 0 in a 150-byte file.
    let mut file = Ktx2::new(Format::R32G32B32A32_SFLOAT, 1, 1, vec![0; 16]);
    (file.width, file.height) = (16384, 16384);
    let mut bytes = file.bytes();
    bytes[88..96].copy_from_slice(&(16384u64 * 16384 * 16).to_le_bytes());
    let e = error_of(&bytes);
    assert!(
        e.contains("truncated: level 0 needs 4294967296 bytes"),
        "{e}"
    );

    // Offsets and lengths near u64::MAX, and a huge levelCount.
    bytes[80..88].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(error_of(&bytes).contains("truncated"));
    bytes[88..96].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(error_of(&bytes).contains("truncated"));
    bytes[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(error_of(&bytes).contains("level index"));
    // DFD offset and length pointing anywhere, with vkFormat 0.
    bytes[12..16].copy_from_slice(&0u32.to_le_bytes());
    for (offset, len) in [(u32::MAX, u32::MAX), (u32::MAX, 0), (100, u32::MAX), (4, 2)] {
        bytes[48..52].copy_from_slice(&offset.to_le_bytes());
        bytes[52..56].copy_from_slice(&len.to_le_bytes());
        assert!(error_of(&bytes).contains("vkFormat 0"));
    }
    // Every check above is arithmetic on the header: nothing is allocated for the claimed size.
}

#[test]
fn random_blocks_decode_without_panicking() {
    // Arbitrary bytes are valid BC blocks of every format (reserved BC6H and BC7 modes decode
    // to zeros): 16 × 16 texels of random blocks per format, for 20 seeds.
    let formats = [
        Format::BC1_RGB_UNORM_BLOCK,
        Format::BC1_RGBA_UNORM_BLOCK,
        Format::BC2_UNORM_BLOCK,
        Format::BC3_UNORM_BLOCK,
        Format::BC4_UNORM_BLOCK,
        Format::BC4_SNORM_BLOCK,
        Format::BC5_UNORM_BLOCK,
        Format::BC5_SNORM_BLOCK,
        Format::BC6H_UFLOAT_BLOCK,
        Format::BC6H_SFLOAT_BLOCK,
        Format::BC7_UNORM_BLOCK,
    ];
    for seed in 0..20 {
        for format in formats {
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
                assert!(
                    e.starts_with("KTX2: ") && !e.contains('\n'),
                    "seed {seed:#x}: {e}"
                );
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
