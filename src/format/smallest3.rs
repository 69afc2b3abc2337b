//! The smallest-three formats, [`super::Format::Smallest3x6`] and [`super::Format::Smallest3x4`]:
//! the three smaller components of the quaternion (the largest dropped, made positive and rebuilt,
//! so the square root is always well conditioned), its index, and a handedness bit of its own.

use std::f32::consts::{FRAC_1_SQRT_2, SQRT_2};

use glam::{Quat, Vec4};

use super::search::{best_rounding, cost_of_deg, target_matrix, wide_codes};
use crate::frame::QTangent;

/// Quantisation step of a smallest-three component with `levels` codes over [−1/√2, 1/√2]:
/// `√2 / (levels − 1)` in f32. The generated WGSL header holds the same values (`S3_STEP_15` for
/// 32768 levels, `S3_STEP_812` for 812; `src/gpu/wgsl.rs`); `tests/unit/gpu/wgsl.rs` checks they
/// are bit-identical.
#[must_use]
pub(crate) fn smallest3_step(levels: u32) -> f32 {
    SQRT_2 / (levels - 1) as f32
}

fn s3_component(u: u32, levels: u32) -> f32 {
    u as f32 * smallest3_step(levels) - FRAC_1_SQRT_2
}

/// Rebuilds the quaternion from the dropped component's index and the three stored codes.
fn s3_rebuild(index: u32, codes: [u32; 3], levels: u32) -> Vec4 {
    let a = s3_component(codes[0], levels);
    let b = s3_component(codes[1], levels);
    let c = s3_component(codes[2], levels);
    // The dropped component was the largest in magnitude, made positive: at least 1/2, so the
    // square root is well conditioned (unlike [`super::Format::F16x3`]'s reconstruction of w near 0).
    let largest = (1.0 - (a * a + b * b + c * c)).max(0.0).sqrt();
    match index {
        0 => Vec4::new(largest, a, b, c),
        1 => Vec4::new(a, largest, b, c),
        2 => Vec4::new(a, b, largest, c),
        _ => Vec4::new(a, b, c, largest),
    }
}

/// Picks the dropped index and the codes whose decoded frame is nearest the input: every index
/// whose other three components fit in ±1/√2 (the largest always does; near ties, others do
/// too), each with every floor/ceil choice of its three codes.
fn s3_encode(q: Quat, levels: u32, second_pass_deg: f64) -> (u32, [u32; 3]) {
    let target = target_matrix(q);
    let v = Vec4::from(q);
    let largest = (0..4).fold(
        0,
        |best, k| if v[k].abs() > v[best].abs() { k } else { best },
    );
    // (index, scaled codes before rounding) for every index that qualifies.
    let mut options: Vec<(u32, [f64; 3])> = Vec::with_capacity(4);
    for index in 0..4usize {
        let v = if v[index] < 0.0 { -v } else { v };
        let mut others = (0..4).filter(|&k| k != index).map(|k| v[k]);
        let kept: [f32; 3] = std::array::from_fn(|_| others.next().unwrap_or(0.0));
        // The largest always qualifies (codes are clamped to the range should rounding put a
        // kept component a hair past 1/√2).
        if index != largest && (v[index] < 0.5 || kept.iter().any(|c| c.abs() > FRAC_1_SQRT_2)) {
            continue;
        }
        let scaled = std::array::from_fn(|k| {
            (f64::from(kept[k]) + std::f64::consts::FRAC_1_SQRT_2)
                / f64::from(smallest3_step(levels))
        });
        options.push((index as u32, scaled));
    }
    let max = |_: usize| f64::from(levels - 1);
    let search = |wide: bool| {
        let mut best = (0u32, [0u32; 3], f64::INFINITY);
        for &(index, scaled) in &options {
            let (codes, cost) = if wide {
                let c: [[u32; 5]; 3] =
                    std::array::from_fn(|k| wide_codes(scaled[k], 0.0, max(k)).map(|x| x as u32));
                best_rounding([&c[0], &c[1], &c[2]], &target, |c| {
                    s3_rebuild(index, c, levels)
                })
            } else {
                let c: [[u32; 2]; 3] = std::array::from_fn(|k| {
                    [
                        scaled[k].floor().clamp(0.0, max(k)) as u32,
                        scaled[k].ceil().clamp(0.0, max(k)) as u32,
                    ]
                });
                best_rounding([&c[0], &c[1], &c[2]], &target, |c| {
                    s3_rebuild(index, c, levels)
                })
            };
            if cost < best.2 {
                best = (index, codes, cost);
            }
        }
        best
    };
    let first = search(false);
    let best = if first.2 > cost_of_deg(second_pass_deg) {
        search(true)
    } else {
        first
    };
    (best.0, best.1)
}

/// Codes per component of [`Format::Smallest3x6`]: 15 bits.
pub(crate) const S3X6_LEVELS: u32 = 1 << 15;
/// Codes per component of [`Format::Smallest3x4`]: 812³ = 535,387,328 ≤ 2²⁹, the most equal
/// levels three components can share in 29 bits (10:10:9 bits would give 1024, 1024 and 512,
/// whose coarse third component sets the worst case).
pub(crate) const S3X4_LEVELS: u32 = 812;

/// Encodes as smallest-three in 48 bits (6 B, the low six bytes of the returned `u64`):
/// bits 0–14, 15–29, 30–44 the three smaller components in index order, each
/// `(c + 1/√2) / step` rounded, `step = √2 / 32767`; bits 45–46 the index of the dropped
/// component (made positive) in `(x, y, z, w)`; bit 47 set when reflected.
///
/// Error bound: 0.007°, measured (worst 0.0048° over the encodings table's frames). Each stored
/// component is off by up to δ = step/2 = 2.2e-5 and the rebuilt one by `Σ cᵢδᵢ / L`, up to 3δ
/// at (½, ½, ½, ½); the two are perpendicular to q, so plain rounding can turn the frame by
/// 2·√(3δ² + 9δ²) rad = 0.0086°. The encoder keeps the best of every floor/ceil choice (and of
/// every index that can be dropped, and ±2 steps where that is not enough), judged by the
/// decoded frame, which is what holds the measured worst near half of that.
/// Handedness: its own bit, independent of the quaternion's sign.
#[must_use]
pub(super) fn encode_smallest3x6(q: &QTangent) -> u64 {
    // Second pass above 0.004°: ~0.003° under the bound.
    let (index, c) = s3_encode(q.rotation, S3X6_LEVELS, 0.004);
    u64::from(c[0])
        | u64::from(c[1]) << 15
        | u64::from(c[2]) << 30
        | u64::from(index) << 45
        | u64::from(q.reflected) << 47
}

/// Decodes [`encode_smallest3x6`] (bits above 47 are ignored).
#[must_use]
pub(super) fn decode_smallest3x6(bits: u64) -> QTangent {
    let field = |shift: u32, width: u32| ((bits >> shift) & ((1u64 << width) - 1)) as u32;
    let codes = [field(0, 15), field(15, 15), field(30, 15)];
    QTangent {
        rotation: Quat::from_vec4(s3_rebuild(field(45, 2), codes, S3X6_LEVELS)),
        reflected: field(47, 1) == 1,
    }
}

/// Encodes as smallest-three in 32 bits (4 B): bits 0–28 the three smaller components as one
/// mixed-radix number `c₀ + 812·(c₁ + 812·c₂)`, each code `(c + 1/√2) / step` rounded with
/// `step = √2 / 811`; bits 29–30 the dropped index; bit 31 set when reflected.
///
/// Error bound: 0.25°, measured (worst 0.194° over the encodings table's frames). δ = step/2 =
/// 8.7e-4, so plain rounding can turn the frame by 2·√(3δ² + 9δ²) rad = 0.35° (see
/// [`encode_smallest3x6`]); the same search as there keeps the worst under the bound.
/// Handedness: its own bit.
#[must_use]
pub(super) fn encode_smallest3x4(q: &QTangent) -> u32 {
    // Second pass above 0.2°: 0.05° under the bound.
    let (index, c) = s3_encode(q.rotation, S3X4_LEVELS, 0.2);
    (c[0] + S3X4_LEVELS * (c[1] + S3X4_LEVELS * c[2]))
        | (index << 29)
        | (u32::from(q.reflected) << 31)
}

/// Decodes [`encode_smallest3x4`].
#[must_use]
pub(super) fn decode_smallest3x4(bits: u32) -> QTangent {
    let packed = bits & ((1 << 29) - 1);
    let codes = [
        packed % S3X4_LEVELS,
        packed / S3X4_LEVELS % S3X4_LEVELS,
        packed / (S3X4_LEVELS * S3X4_LEVELS),
    ];
    QTangent {
        rotation: Quat::from_vec4(s3_rebuild((bits >> 29) & 3, codes, S3X4_LEVELS)),
        reflected: bits >> 31 == 1,
    }
}

pub(super) fn write_6(q: &QTangent, out: &mut Vec<u8>) {
    out.extend_from_slice(&encode_smallest3x6(q).to_le_bytes()[..6]);
}

pub(super) fn read_6(bytes: &[u8]) -> QTangent {
    let mut b = [0u8; 8];
    b[..6].copy_from_slice(bytes);
    decode_smallest3x6(u64::from_le_bytes(b))
}

pub(super) fn write_4(q: &QTangent, out: &mut Vec<u8>) {
    out.extend_from_slice(&encode_smallest3x4(q).to_le_bytes());
}

pub(super) fn read_4(bytes: &[u8]) -> QTangent {
    decode_smallest3x4(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}
