//! KTX2 images: files made here by a test-only writer (checked against the `ktx2` crate's
//! reader, with DFDs from that crate's generator and vkFormat numbers from its constants)
//! decoded and compared with what went in: exact bytes for uncompressed (here) and
//! supercompressed levels, the BC specs' palette formulas for hand-built BC1/BC4/BC5/BC6H
//! blocks, and an independent encoder (`block_compression`) for BC1/BC3/BC5/BC7 within each
//! format's error (`bc.rs`). Malformed files — every truncation, crafted sizes, random byte
//! flips — give errors, never panics (`malformed.rs`).

// Test data is built with casts of values known to be in range, and the float checks are
// meant to be exact.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    clippy::float_cmp
)]

mod bc;
mod malformed;

use ::ktx2::Format;
use block_compression::{encode::compress_rgba8, CompressionVariant};
use image::DynamicImage;
use rand::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{decode_image as decode, is_ktx2};
use crate::ktx2::{Ktx2Error, Section, TexelFormat};

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
    let (basic, type_size) = ::ktx2::dfd::Basic::from_format(format).expect("a DFD for the format");
    let block_bytes = usize::from(basic.bytes_planes[0]);
    dfd_section(basic, type_size, block_bytes)
}

fn dfd_section(
    basic: ::ktx2::dfd::Basic,
    type_size: u32,
    block_bytes: usize,
) -> (Vec<u8>, u32, usize) {
    let block = ::ktx2::dfd::Block::Basic(basic).to_vec();
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
fn write_and_decode(file: &Ktx2) -> Result<DynamicImage, Ktx2Error> {
    let bytes = file.bytes();
    let reader = ::ktx2::Reader::new(&bytes[..]).expect("the ktx2 crate reads the test file");
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

/// Decodes a valid file that must decode to a `file.width` × `file.height` (1 for a 1D file)
/// image of the type `pick` takes (`DynamicImage::as_rgba8`, `as_rgba16`, `as_rgba32f`).
fn decoded_as<T: Clone>(file: &Ktx2, pick: impl Fn(&DynamicImage) -> Option<&T>) -> T {
    let img = decoded(file);
    let size = (file.width, file.height.max(1));
    assert_eq!(
        (img.width(), img.height()),
        size,
        "vkFormat {}",
        file.vk_format
    );
    let Some(picked) = pick(&img) else {
        panic!("vkFormat {}: decoded as {:?}", file.vk_format, img.color())
    };
    picked.clone()
}

/// The error for `bytes`, checked to be one line.
fn error_of(bytes: &[u8]) -> Ktx2Error {
    match decode(bytes) {
        Ok(img) => panic!(
            "expected an error, decoded a {}×{} image",
            img.width(),
            img.height()
        ),
        Err(e) => {
            let message = e.to_string();
            assert!(
                !message.contains('\n') && !message.contains('\r'),
                "{message}"
            );
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
    assert!(matches!(error_of(b"\x89PNG\r\n\x1a\n"), Ktx2Error::NotKtx2));
}

#[test]
fn rgba8_round_trips_exactly() {
    // 5 × 3: not a multiple of anything, rows tightly packed.
    let src = random_bytes(5 * 3 * 4, 1);
    for format in [Format::R8G8B8A8_UNORM, Format::R8G8B8A8_SRGB] {
        let rgba = decoded_as(
            &Ktx2::new(format, 5, 3, src.clone()),
            DynamicImage::as_rgba8,
        );
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
        let rgba = decoded_as(
            &Ktx2::new(format, w, h, src.clone()),
            DynamicImage::as_rgba8,
        );
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
    let rgba = decoded_as(
        &Ktx2::new(Format::R16G16B16A16_SNORM, 2, 1, bytes),
        DynamicImage::as_rgba16,
    );
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
fn every_supported_format_decodes_and_a_short_level_is_named() {
    // An 8 × 4 level of each (2 blocks for BC) decodes to the documented image type, and a level
    // one byte short is a level-size error naming the format: a texture format by its name,
    // any other as Vulkan (and the ktx2 crate) names it.
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
        let (vk, n) = (format.value(), level.len() as u64);
        assert!(
            matches!(e, Ktx2Error::LevelSize { level: 0, len, expected, width: 8, height: 4,
                vk_format } if len == n - 1 && expected == n && vk_format == vk),
            "{e:?}"
        );
        let named = TexelFormat::from_vk_format(vk)
            .map_or(format!("VK_FORMAT_{name}"), |f| f.name().to_string());
        assert!(
            e.to_string().contains(&format!("a 8×4 {named} level")),
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
        let vk = format.value();
        assert!(
            matches!(e, Ktx2Error::UnsupportedImageFormat { vk_format } if vk_format == vk),
            "{format:?}: {e:?}"
        );
        let message = e.to_string();
        assert!(
            message.starts_with(&format!("vkFormat {vk} (VK_FORMAT_{format:?})")),
            "{message}"
        );
    }
}

#[test]
fn unorm16_round_trips_to_rgba16() {
    let src = random_bytes(3 * 2 * 8, 5);
    let rgba = decoded_as(
        &Ktx2::new(Format::R16G16B16A16_UNORM, 3, 2, src.clone()),
        DynamicImage::as_rgba16,
    );
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
    let rgba = decoded_as(
        &Ktx2::new(Format::R16G16B16A16_SFLOAT, 2, 1, halves.clone()),
        DynamicImage::as_rgba32f,
    );
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
    let rgba = decoded_as(
        &Ktx2::new(Format::R32G32B32A32_SFLOAT, 1, 2, floats.clone()),
        DynamicImage::as_rgba32f,
    );
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
// Shared by the block-compression and malformed-file tests.

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
