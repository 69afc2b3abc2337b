//! The sign-of-w formats — [`super::Format::F32x4`], [`super::Format::F16x4`] and
//! [`super::Format::Snorm16x4`]: the QTangent of Crytek's layout, the reflection carried by the
//! sign of w, with w kept at least a bias matched to the storage (so it never rounds to ±0 and
//! loses the sign). Filament's int32 path sets a bias too small for 16-bit storage; here each
//! storage gets its own.

use glam::{DVec4, Quat, Vec4};
use half::f16;

use super::search::{best_rounding, cost_of_deg, frame_cost, target_matrix, wide_codes};
use crate::frame::QTangent;

/// w bias for f32 storage: 2⁻⁶⁴ is a normal f32 (no denormal flushing can zero it), and moving w
/// by it rotates the frame by at most 2·2⁻⁶⁴ rad, far below f32 resolution.
const F32_W_BIAS: f32 = 5.421_011e-20;
/// w bias for f16 storage: 2⁻¹⁴, the smallest normal f16. A smaller |w| could be a subnormal,
/// which a GPU may flush to ±0, losing the sign. Costs at most 2·2⁻¹⁴ rad = 0.007° of rotation.
const F16_W_BIAS: f32 = F16_MIN_NORMAL;
/// w bias for snorm16 storage: one step, 1/32767, so w never quantises to 0 (Filament's int32
/// path uses a bias too small for 16 bits). Costs at most 2/32767 rad = 0.0035° of rotation.
pub(crate) const SNORM16_W_BIAS: f32 = 1.0 / 32767.0;

/// The rotation with `w ≥ bias`, negated when reflected: the QTangent packing contract.
pub(crate) fn signed_w(q: &QTangent, bias: f32) -> Vec4 {
    let mut v = Vec4::from(q.rotation);
    if v.w < 0.0 {
        v = -v;
    }
    if v.w < bias {
        // Push w up to the bias and shrink xyz to keep |q| = 1.
        let scale = (1.0 - bias * bias).sqrt() / v.truncate().length().max(f32::MIN_POSITIVE);
        v = (v.truncate() * scale).extend(bias);
    }
    if q.reflected {
        -v
    } else {
        v
    }
}

/// Handedness from the sign of w: the decode side of [`signed_w`].
fn from_signed_w(v: Vec4) -> QTangent {
    QTangent {
        rotation: Quat::from_vec4(v),
        reflected: v.w < 0.0,
    }
}

// ---------------------------------------------------------------------------------------------
// F32x4

/// Encodes as four f32 (16 B): `(x, y, z, w)` with `w ≥ 2⁻⁶⁴`, negated when reflected.
///
/// Error bound: 0.01° (measured: f32 rounding of the quaternion and of the matrix, ~1e-5°).
/// Handedness: the sign of w, which the bias keeps away from zero.
#[must_use]
pub(super) fn encode_f32x4(q: &QTangent) -> [f32; 4] {
    signed_w(q, F32_W_BIAS).to_array()
}

/// Decodes [`encode_f32x4`]: reflected when `w < 0`.
#[must_use]
pub(super) fn decode_f32x4(v: [f32; 4]) -> QTangent {
    from_signed_w(Vec4::from_array(v))
}

// ---------------------------------------------------------------------------------------------
// F16x4

/// Smallest normal f16, 2⁻¹⁴. Encoders never write f16 subnormals: GPUs may flush them to zero
/// in `unpack2x16float`, and then the GPU decode would no longer match the CPU decode.
pub(super) const F16_MIN_NORMAL: f32 = 6.103_515_6e-5;

/// The nearest f16 that is zero or normal.
pub(super) fn f16_no_subnormal(x: f32) -> f16 {
    if x.abs() < F16_MIN_NORMAL {
        if x.abs() < F16_MIN_NORMAL / 2.0 {
            f16::ZERO
        } else {
            f16::from_f32(F16_MIN_NORMAL.copysign(x))
        }
    } else {
        f16::from_f32(x)
    }
}

/// The f16 values just below and just above `x` (both zero or normal; equal when exact).
fn f16_neighbours(x: f32) -> [f16; 2] {
    if x.abs() < F16_MIN_NORMAL {
        return [f16::ZERO, f16::from_f32(F16_MIN_NORMAL.copysign(x))];
    }
    let h = f16::from_f32(x);
    let hv = h.to_f32();
    if hv == x {
        return [h, h];
    }
    // One step of the magnitude: up when x lies further from zero than h, down otherwise.
    // |x| ≥ 2⁻¹⁴ is representable, so the step never lands on a subnormal.
    let bits = h.to_bits();
    let mag = bits & 0x7fff;
    let mag = if x.abs() > hv.abs() { mag + 1 } else { mag - 1 };
    [h, f16::from_bits((bits & 0x8000) | mag)]
}

fn f16x4_to_vec4(h: [f16; 4]) -> Vec4 {
    Vec4::new(h[0].to_f32(), h[1].to_f32(), h[2].to_f32(), h[3].to_f32())
}

/// Encodes as four f16 (8 B, `Float16x4` / two `unpack2x16float` words): the QTangent of
/// Crytek's layout in half floats.
///
/// Error bound: 0.05°. An f16 in [0.5, 1) has a step of 2⁻¹¹, so each component is off by at most
/// 2⁻¹², and the rotation by about 2·√3·2⁻¹² rad = 0.048° before the floor/ceil search.
/// Handedness: the sign of w; w is kept at least 2⁻¹⁴ ([`F16_W_BIAS`]) so it can never round
/// to ±0 or become a subnormal.
#[must_use]
pub(super) fn encode_f16x4(q: &QTangent) -> [f16; 4] {
    let v = signed_w(q, F16_W_BIAS);
    // |w| ≥ 2⁻¹⁴ is itself an f16, so both of w's neighbours keep |w| ≥ 2⁻¹⁴ and its sign.
    let candidates: [[f16; 2]; 4] = std::array::from_fn(|k| f16_neighbours(v[k]));
    let c = &candidates;
    best_rounding(
        [&c[0], &c[1], &c[2], &c[3]],
        &target_matrix(q.rotation),
        f16x4_to_vec4,
    )
    .0
}

/// Decodes [`encode_f16x4`]: reflected when `w < 0`.
#[must_use]
pub(super) fn decode_f16x4(h: [f16; 4]) -> QTangent {
    from_signed_w(f16x4_to_vec4(h))
}

// ---------------------------------------------------------------------------------------------
// Snorm16x4

fn snorm16_to_f32(v: i16) -> f32 {
    // As WGSL unpack2x16snorm and Vulkan's Snorm16 vertex fetch: max(v / 32767, -1).
    (v as f32 / 32767.0).max(-1.0)
}

fn snorm16x4_to_vec4(v: [i16; 4]) -> Vec4 {
    Vec4::new(
        snorm16_to_f32(v[0]),
        snorm16_to_f32(v[1]),
        snorm16_to_f32(v[2]),
        snorm16_to_f32(v[3]),
    )
}

/// Encodes as four snorm16 (8 B, `Snorm16x4` / two `unpack2x16snorm` words): the Crytek/Filament
/// QTangent layout.
///
/// Error bound: 0.004°, measured (worst 0.0037° over the encodings table's frames). Each
/// component is off by up to half a step, δ = 1/65534, a rotation of up to 2·√4·δ rad = 0.0035°
/// away from w ≈ 0. At w ≈ 0 the bias alone costs that much, and x, y, z add up to ~2·√2·δ more
/// in quadrature (0.0043°): there the encoder also scans the scale of the stored quaternion
/// (the decoder normalises it) and ±2 steps, judged by the decoded frame.
/// Handedness: the sign of w; w is kept at least one step, 1/32767 ([`SNORM16_W_BIAS`]), so it
/// never quantises to 0.
#[must_use]
pub(super) fn encode_snorm16x4(q: &QTangent) -> [i16; 4] {
    let v = signed_w(q, SNORM16_W_BIAS);
    let scaled = v.as_dvec4() * 32767.0;
    let code = |x: f64| x.clamp(-32767.0, 32767.0) as i16;
    // w stays at least one step from 0, on its side: the reflection lives in its sign.
    let keep = |x: i16| if v.w < 0.0 { x.min(-1) } else { x.max(1) };
    let target = target_matrix(q.rotation);
    let c: [[i16; 2]; 4] = std::array::from_fn(|k| {
        let (lo, hi) = (code(scaled[k].floor()), code(scaled[k].ceil()));
        if k == 3 {
            [keep(lo), keep(hi)]
        } else {
            [lo, hi]
        }
    });
    let (best, cost) = best_rounding([&c[0], &c[1], &c[2], &c[3]], &target, snorm16x4_to_vec4);
    if cost <= cost_of_deg(SNORM16_SECOND_PASS_DEG) {
        return best;
    }
    // Mostly frames with w at the bias, whose error (up to 2/32767 rad of rotation) no rounding
    // can remove. The decoder normalises, so the quaternion may be stored at any scale: a larger
    // one shrinks the bias's share of w and gives the lattice more chances to point the right
    // way. Scan every scale whose largest code lies between the rounded one and 32767, then take
    // the best ±2-step rounding around the best scale.
    let top = scaled.abs().max_element();
    let round_at = |t: DVec4| {
        [
            code(t.x.round()),
            code(t.y.round()),
            code(t.z.round()),
            keep(code(t.w.round())),
        ]
    };
    let mut best_scaled = (scaled, f64::INFINITY);
    for m in (top.round() as i32).max(1)..=32767 {
        let t = scaled * (f64::from(m) / top);
        let cost = frame_cost(snorm16x4_to_vec4(round_at(t)), &target);
        if cost < best_scaled.1 {
            best_scaled = (t, cost);
        }
    }
    let t = best_scaled.0;
    let c: [[i16; 5]; 4] = std::array::from_fn(|k| {
        let codes = wide_codes(t[k], -32767.0, 32767.0).map(code);
        if k == 3 {
            codes.map(keep)
        } else {
            codes
        }
    });
    let (wide, wide_cost) = best_rounding([&c[0], &c[1], &c[2], &c[3]], &target, snorm16x4_to_vec4);
    if wide_cost < cost {
        wide
    } else {
        best
    }
}

/// Above this decoded error after floor/ceil, [`encode_snorm16x4`] searches ±2 steps.
const SNORM16_SECOND_PASS_DEG: f64 = 0.0033;

/// Decodes [`encode_snorm16x4`]: reflected when `w < 0`.
#[must_use]
pub(crate) fn decode_snorm16x4(v: [i16; 4]) -> QTangent {
    from_signed_w(snorm16x4_to_vec4(v))
}

// ---------------------------------------------------------------------------------------------
// The byte form the format table holds (little-endian components).

pub(super) fn write_f32x4(q: &QTangent, out: &mut Vec<u8>) {
    for c in encode_f32x4(q) {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

pub(super) fn read_f32x4(bytes: &[u8]) -> QTangent {
    decode_f32x4(std::array::from_fn(|i| {
        f32::from_le_bytes([
            bytes[4 * i],
            bytes[4 * i + 1],
            bytes[4 * i + 2],
            bytes[4 * i + 3],
        ])
    }))
}

pub(super) fn write_f16x4(q: &QTangent, out: &mut Vec<u8>) {
    for c in encode_f16x4(q) {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

pub(super) fn read_f16x4(bytes: &[u8]) -> QTangent {
    decode_f16x4(std::array::from_fn(|i| f16::from_bits(u16_at(bytes, i))))
}

pub(super) fn write_snorm16x4(q: &QTangent, out: &mut Vec<u8>) {
    for c in encode_snorm16x4(q) {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

pub(super) fn read_snorm16x4(bytes: &[u8]) -> QTangent {
    decode_snorm16x4(std::array::from_fn(|i| u16_at(bytes, i) as i16))
}

/// The little-endian u16 at index `i` (bytes `2i`, `2i + 1`).
pub(super) fn u16_at(bytes: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]])
}
