//! [`super::Format::F16x3`]: the 6-byte format of "Quaternion Tricks" (trick #3, tangent-space
//! compression), x, y, z as f16 and w rebuilt — kept so its error near w = 0 can be shown.

use glam::{Quat, Vec4};
use half::f16;

use super::sign_w::{f16_no_subnormal, u16_at};
use crate::frame::QTangent;

/// Bit 14 of an f16 is the top bit of its exponent, set only for |x| ≥ 2; a quaternion
/// component never is, so the format has a free bit per component. x's carries the
/// handedness.
const F16X3_HANDEDNESS_BIT: u16 = 0x4000;

/// Encodes as three f16 (6 B): `(x, y, z)` of the quaternion with `w ≥ 0`, rounded to nearest
/// (below 2⁻¹⁴ to 0 or ±2⁻¹⁴, never a subnormal) — the format of "Quaternion Tricks" (
/// trick #3), kept so its error can be shown.
///
/// Error bound: 3.34°, reached near w = 0 (measured: 2.97° over the encodings table's frames;
/// the article's own figure is 2.6°). `w = sqrt(1 − x² − y² − z²)` has an infinite slope there: f16 rounding
/// of x, y, z (at most 2⁻¹² each, |x| + |y| + |z| ≤ √3) moves `1 − x² − y² − z²` by up to
/// 2·√3·2⁻¹², so w by up to sqrt(2·√3·2⁻¹²) = 0.0291, a rotation of 2·0.0291 rad = 3.33°.
/// Handedness: the article does not say where it goes. Here it takes bit 14 of x
/// ([`F16X3_HANDEDNESS_BIT`]), which is always 0 for |x| < 2, so it costs no precision; decoders
/// clear it before reading x.
#[must_use]
pub(super) fn encode_f16x3(q: &QTangent) -> [f16; 3] {
    let mut v = Vec4::from(q.rotation);
    if v.w < 0.0 {
        v = -v;
    }
    let x = f16_no_subnormal(v.x).to_bits() | if q.reflected { F16X3_HANDEDNESS_BIT } else { 0 };
    [
        f16::from_bits(x),
        f16_no_subnormal(v.y),
        f16_no_subnormal(v.z),
    ]
}

/// Decodes [`encode_f16x3`]: handedness from bit 14 of x, then
/// `w = sqrt(max(0, 1 − x² − y² − z²))`.
#[must_use]
pub(super) fn decode_f16x3(h: [f16; 3]) -> QTangent {
    let xb = h[0].to_bits();
    let (x, y, z) = (
        f16::from_bits(xb & !F16X3_HANDEDNESS_BIT).to_f32(),
        h[1].to_f32(),
        h[2].to_f32(),
    );
    let w = (1.0 - (x * x + y * y + z * z)).max(0.0).sqrt();
    QTangent {
        rotation: Quat::from_xyzw(x, y, z, w),
        reflected: xb & F16X3_HANDEDNESS_BIT != 0,
    }
}

pub(super) fn write(q: &QTangent, out: &mut Vec<u8>) {
    for c in encode_f16x3(q) {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

pub(super) fn read(bytes: &[u8]) -> QTangent {
    decode_f16x3(std::array::from_fn(|i| f16::from_bits(u16_at(bytes, i))))
}
