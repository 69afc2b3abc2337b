//! Block-compressed images through the crate's one BC decoder: hand-built blocks against the
//! specs' formulas, and an independent encoder's (`block_compression`) blocks against the source
//! image.

use ::ktx2::Format;
use block_compression::{BC7Settings, CompressionVariant};
use image::DynamicImage;

use super::{decoded, decoded_as, encode, ramp, snorm8_to_unorm, Ktx2};

// ---------------------------------------------------------------------------------------------
// Hand-built blocks against the specs' formulas.

/// RGB565 expanded to 8 bits per channel by bit replication, as the BC1 spec does.
fn rgb565(c: u16) -> [u8; 3] {
    let (r, g, b) = ((c >> 11) & 31, (c >> 5) & 63, c & 31);
    [
        ((r << 3) | (r >> 2)) as u8,
        ((g << 2) | (g >> 4)) as u8,
        ((b << 3) | (b >> 2)) as u8,
    ]
}

/// The 16 texel indices, `bits` each, row by row, texel 0 in the lowest bits (little-endian).
fn packed_indices(indices: [u8; 16], bits: usize) -> [u8; 8] {
    let packed = indices
        .iter()
        .enumerate()
        .fold(0u64, |acc, (i, &x)| acc | (u64::from(x) << (bits * i)));
    packed.to_le_bytes()
}

/// A BC1 block: endpoints c0, c1 and the 2-bit index of each of the 16 texels.
fn bc1_block(c0: u16, c1: u16, indices: [u8; 16]) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..2].copy_from_slice(&c0.to_le_bytes());
    b[2..4].copy_from_slice(&c1.to_le_bytes());
    b[4..].copy_from_slice(&packed_indices(indices, 2)[..4]);
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
        let rgba = decoded_as(
            &Ktx2::new(format, 7, 3, data.clone()),
            DynamicImage::as_rgba8,
        );
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
    let mut b = [0u8; 8];
    b[0] = r0;
    b[1] = r1;
    b[2..].copy_from_slice(&packed_indices(indices, 3)[..6]);
    b
}

/// The BC4 palette (Khronos Data Format spec, BC4) over endpoint values read as unsigned or
/// signed: r0 > r1 gives r0, r1 and the six sevenths between; otherwise r0, r1, the four fifths
/// between, then the minimum and maximum (0 and 255, or −127 and 127). The tests' endpoints
/// make every division exact.
fn bc4_palette(r0: i32, r1: i32, snorm: bool) -> [i32; 8] {
    // The d − 1 values between r0 and r1, in order: ((d − k)·r0 + k·r1) / d for k = 1 .. d − 1.
    let between = |d: i32| {
        (1..d).map(move |k| {
            let num = (d - k) * r0 + k * r1;
            assert_eq!(num % d, 0, "the test's endpoints interpolate exactly");
            num / d
        })
    };
    let (lo, hi) = if snorm { (-127, 127) } else { (0, 255) };
    let palette: Vec<i32> = if r0 > r1 {
        [r0, r1].into_iter().chain(between(7)).collect()
    } else {
        [r0, r1]
            .into_iter()
            .chain(between(5))
            .chain([lo, hi])
            .collect()
    };
    palette.try_into().expect("eight entries")
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
        let rgba = decoded_as(&Ktx2::new(format, 8, 4, data), DynamicImage::as_rgba8);
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
        let rgba = decoded_as(
            &Ktx2::new(format, 3, 2, block.clone()),
            DynamicImage::as_rgba32f,
        );
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
    let slow = CompressionVariant::BC7(BC7Settings::alpha_slow());
    #[rustfmt::skip]
    let cases: [(CompressionVariant, Format, [u8; 4]); 5] = [
        (CompressionVariant::BC1, Format::BC1_RGBA_UNORM_BLOCK, [9, 7, 7, 0]),
        (CompressionVariant::BC2, Format::BC2_UNORM_BLOCK, [9, 7, 7, 16]),
        (CompressionVariant::BC3, Format::BC3_UNORM_BLOCK, [9, 7, 7, 4]),
        (CompressionVariant::BC5, Format::BC5_UNORM_BLOCK, [3, 3, 0, 0]),
        (slow, Format::BC7_UNORM_BLOCK, [3, 3, 3, 3]),
    ];
    for (w, h) in [(12u32, 8u32), (10, 6)] {
        let src = ramp(w, h);
        for &(variant, format, tolerance) in &cases {
            let blocks = encode(variant, &src, w, h);
            let rgba = decoded_as(&Ktx2::new(format, w, h, blocks), DynamicImage::as_rgba8);
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
