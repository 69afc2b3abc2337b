//! BC5 UNORM (`encode_bc5_unorm` / `decode_bc5_unorm`), the layout of a tangent `bc5` map of a
//! tilt (`n·½ + ½`) and of the engine-BC5 yardstick: the per-component contract on smooth normal
//! fields with both encoders, values on the 8-bit lattice kept exactly where a block is flat,
//! NaN and out-of-range input, and malformed sizes refused. The decoder against an independent one: `bc4_float_decoder_matches_block_compression`.

use super::{normal_field, BcEncoder, BcError, Pcg64, ENCODERS, N, SEED};
use qtangent::qmap::bc::{decode_bc5_unorm, encode_bc5_unorm, BLOCK_BYTES};
use rand::SeedableRng;

/// Smooth normal fields stored as `n·½ + ½`, both encoders: every decoded component within
/// `½ + range/14` bytes of 255·v, `range` the spread of the block's rounded bytes in that
/// channel (`qmap::bc`'s module docs: half a byte for the lattice, half a palette step of the
/// block's span).
#[test]
fn bc5_unorm_normal_fields_keep_the_contract() {
    for seed in SEED..SEED + 3 {
        let normals = normal_field(&mut Pcg64::seed_from_u64(seed), N, N);
        let rg: Vec<[f32; 2]> = normals
            .iter()
            .map(|n| [n.x.mul_add(0.5, 0.5), n.y.mul_add(0.5, 0.5)])
            .collect();
        for encoder in ENCODERS {
            let blocks = encode_bc5_unorm(N as u32, N as u32, &rg, encoder).expect("valid size");
            assert_eq!(blocks.len(), N * N / 16 * BLOCK_BYTES);
            let back = decode_bc5_unorm(N as u32, N as u32, &blocks).expect("own output");
            let mut worst = 0.0f32;
            for b in 0..(N / 4) * (N / 4) {
                let texels: [usize; 16] = std::array::from_fn(|t| {
                    (b / (N / 4) * 4 + t / 4) * N + b % (N / 4) * 4 + t % 4
                });
                for c in 0..2 {
                    let bytes = texels.map(|i| (rg[i][c] * 255.0).round());
                    let range = bytes.iter().copied().fold(f32::MIN, f32::max)
                        - bytes.iter().copied().fold(f32::MAX, f32::min);
                    // + 1e-3: f32 rounding of values ≤ 255 (ulp 1.5e-5) through the decode.
                    let limit = 0.5 + range / 14.0 + 1e-3;
                    for &i in &texels {
                        let e = (back[i][c] - rg[i][c]).abs() * 255.0;
                        worst = worst.max(e / limit);
                        assert!(
                            e <= limit,
                            "{encoder}: seed {seed:#x} texel {i} channel {c}: {e} bytes > {limit}"
                        );
                    }
                }
            }
            println!("BC5 UNORM normals, {encoder} (seed {seed:#x}): worst error {worst:.3} of the contract");
        }
    }
}

/// Flat blocks on the 8-bit lattice come back exactly (a normal map's flat regions are its
/// bytes, not a neighbour of them); NaN reads as 0 and values outside [0, 1] are clamped.
#[test]
fn bc5_unorm_lattice_nan_and_clamping() {
    for encoder in ENCODERS {
        for k in [0u8, 1, 127, 128, 200, 254, 255] {
            let v = f32::from(k) / 255.0;
            let blocks = encode_bc5_unorm(8, 4, &[[v, 1.0 - v]; 32], encoder).expect("8×4");
            let back = decode_bc5_unorm(8, 4, &blocks).expect("own output");
            for [r, g] in back {
                // 1e-6: one f32 rounding of e/255.
                assert!(
                    (r - v).abs() < 1e-6 && (g - (1.0 - v)).abs() < 1e-6,
                    "{encoder}: byte {k}: ({r}, {g})"
                );
            }
        }
        let odd = [[f32::NAN, 2.0], [-1.0, f32::INFINITY]];
        for [a, b] in odd {
            let blocks = encode_bc5_unorm(4, 4, &[[a, b]; 16], encoder).expect("4×4");
            let back = decode_bc5_unorm(4, 4, &blocks).expect("own output");
            let want = [a, b].map(|v| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) });
            assert!(
                back.iter().all(|t| *t == want),
                "{encoder}: ({a}, {b}) gave {:?}, not {want:?}",
                back[0]
            );
        }
    }
}

/// Malformed sizes and texel counts are errors (tiny levels: `tiny_mips_are_padded_by_edge_repetition`).
#[test]
fn bc5_unorm_malformed_input() {
    assert!(matches!(
        encode_bc5_unorm(0, 4, &[], BcEncoder::Portable),
        Err(BcError::Size { .. })
    ));
    assert!(matches!(
        encode_bc5_unorm(4, 4, &[[0.5; 2]; 15], BcEncoder::Portable),
        Err(BcError::Texels { given: 15, .. })
    ));
    assert!(matches!(
        decode_bc5_unorm(8, 8, &[0; 63]),
        Err(BcError::Blocks {
            given: 63,
            needed: 64,
            ..
        })
    ));
}
