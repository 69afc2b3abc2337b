//! Tangent-frame quaternion formats: encode/decode pairs with stated size and error bound.
//!
//! Every format stores a [`QTangent`] (a rotation and a reflection flag). Error bounds are the
//! largest angle, in degrees, between a decoded normal, tangent or bitangent and the
//! (orthonormalised) source vector; they are measured on 1,000,000 random frames plus the
//! axis-aligned mirrored frames by `cargo run --release --example encodings`, and asserted by
//! `tests/it/encodings.rs`. Decoders return the quaternion as the GPU sees it (possibly not unit);
//! [`QTangent::to_frame`] normalises it, as `tangent_frame` in `shaders/qtangent.wgsl` does.
//!
//! | format | bytes | max error | handedness |
//! |---|---|---|---|
//! | [`Format::F32x4`] | 16 | 0.01° | sign of w |
//! | [`Format::F16x4`] | 8 | 0.05° | sign of w |
//! | [`Format::Snorm16x4`] | 8 | 0.004° | sign of w |
//! | [`Format::F16x3`] | 6 | 3.34° (the seed's format) | bit 14 of x |
//! | [`Format::Smallest3x6`] | 6 | 0.007° | own bit |
//! | [`Format::Smallest3x4`] | 4 | 0.25° | own bit |
//!
//! Quantising encoders (all but `F32x4` and the seed's `F16x3`) try rounding every stored
//! component both down and up and keep the combination whose decoded quaternion is closest to the
//! input rotation: the decoded rotation error bounds the error of every decoded vector.

use std::f32::consts::{FRAC_1_SQRT_2, SQRT_2};

use glam::{DMat3, DQuat, DVec4, Quat, Vec4};
use half::f16;

use crate::frame::QTangent;

/// A name that [`std::str::FromStr`] does not know, for every named enum of the crate
/// ([`Format`], [`crate::qmap::MapFormat`], [`crate::qmap::stored::StoredFormat`], …). Its
/// message names what was parsed, the name, and the valid names:
/// `unknown format 'f16' (valid: f32x4, f16x4, …)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseNameError {
    /// What was being parsed: `format`, `map format`, `map kind`, ….
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// Every valid name, in the type's order.
    pub valid: Vec<&'static str>,
}

// Written by hand, not derived with thiserror: the core builds on glam, half and bytemuck alone.
impl std::fmt::Display for ParseNameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, name) = (self.what, &self.name);
        write!(
            f,
            "unknown {what} '{name}' (valid: {})",
            self.valid.join(", ")
        )
    }
}

impl std::error::Error for ParseNameError {}

impl ParseNameError {
    /// The value among `all` whose `name` is `name` (exactly), or the error listing the valid
    /// names. The [`std::str::FromStr`] implementations of the crate's named enums use it.
    ///
    /// # Errors
    /// [`ParseNameError`] when no value has that name.
    pub fn find<T: Copy, const N: usize>(
        what: &'static str,
        name: &str,
        all: [T; N],
        name_of: impl Fn(T) -> &'static str,
    ) -> Result<T, Self> {
        all.into_iter()
            .find(|&v| name_of(v) == name)
            .ok_or_else(|| Self {
                what,
                name: name.to_string(),
                valid: all.into_iter().map(name_of).collect(),
            })
    }
}

/// A tangent-frame storage format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Four f32 (16 B). See [`encode_f32x4`].
    F32x4,
    /// Four f16 (8 B), reflection in the sign of w. See [`encode_f16x4`].
    F16x4,
    /// Four snorm16 (8 B), the Crytek/Filament QTangent. See [`encode_snorm16x4`].
    Snorm16x4,
    /// Three f16 with w reconstructed (6 B): the seed's format. See [`encode_f16x3`].
    F16x3,
    /// Smallest three, 15:15:15 + 2-bit index + handedness bit (6 B). See [`encode_smallest3x6`].
    Smallest3x6,
    /// Smallest three, 3 × 812 levels + 2-bit index + handedness bit (4 B). See [`encode_smallest3x4`].
    Smallest3x4,
}

impl Format {
    /// Every format, in table order.
    pub const ALL: [Format; 6] = [
        Format::F32x4,
        Format::F16x4,
        Format::Snorm16x4,
        Format::F16x3,
        Format::Smallest3x6,
        Format::Smallest3x4,
    ];

    /// Position in [`Format::ALL`].
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Bytes per frame.
    #[must_use]
    pub const fn bytes(self) -> usize {
        match self {
            Format::F32x4 => 16,
            Format::F16x4 | Format::Snorm16x4 => 8,
            Format::F16x3 | Format::Smallest3x6 => 6,
            Format::Smallest3x4 => 4,
        }
    }

    /// Short name, as in tables and on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Format::F32x4 => "f32x4",
            Format::F16x4 => "f16x4",
            Format::Snorm16x4 => "snorm16x4",
            Format::F16x3 => "f16x3-seed",
            Format::Smallest3x6 => "smallest3-6B",
            Format::Smallest3x4 => "smallest3-4B",
        }
    }

    /// The format with this [`Format::name`] (as `name.parse::<Format>()` does).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The documented maximum angular error (degrees) of a decoded normal, tangent or bitangent
    /// (each derived in the encoder's docs and checked on a million frames by the tests).
    #[must_use]
    pub const fn max_error_deg(self) -> f64 {
        match self {
            Format::F32x4 => 0.01,
            Format::F16x4 => 0.05,
            Format::Snorm16x4 => 0.004,
            Format::F16x3 => 3.34,
            Format::Smallest3x6 => 0.007,
            Format::Smallest3x4 => 0.25,
        }
    }

    /// Encodes one frame into `out` (exactly [`Format::bytes`] bytes appended, little-endian).
    pub fn encode_into(self, q: &QTangent, out: &mut Vec<u8>) {
        match self {
            Format::F32x4 => {
                for c in encode_f32x4(q) {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
            Format::F16x4 => {
                for c in encode_f16x4(q) {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
            Format::Snorm16x4 => {
                for c in encode_snorm16x4(q) {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
            Format::F16x3 => {
                for c in encode_f16x3(q) {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
            Format::Smallest3x6 => out.extend_from_slice(&encode_smallest3x6(q).to_le_bytes()[..6]),
            Format::Smallest3x4 => out.extend_from_slice(&encode_smallest3x4(q).to_le_bytes()),
        }
    }

    /// Decodes one frame from exactly [`Format::bytes`] bytes.
    ///
    /// # Panics
    /// If `bytes.len() != self.bytes()` (a caller bug, not a data error).
    #[must_use]
    pub fn decode(self, bytes: &[u8]) -> QTangent {
        assert_eq!(
            bytes.len(),
            self.bytes(),
            "{} frame must be {} bytes",
            self.name(),
            self.bytes()
        );
        let u16_at = |i: usize| u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]);
        match self {
            Format::F32x4 => decode_f32x4(std::array::from_fn(|i| {
                f32::from_le_bytes([
                    bytes[4 * i],
                    bytes[4 * i + 1],
                    bytes[4 * i + 2],
                    bytes[4 * i + 3],
                ])
            })),
            Format::F16x4 => decode_f16x4(std::array::from_fn(|i| f16::from_bits(u16_at(i)))),
            Format::Snorm16x4 => decode_snorm16x4(std::array::from_fn(|i| u16_at(i) as i16)),
            Format::F16x3 => decode_f16x3(std::array::from_fn(|i| f16::from_bits(u16_at(i)))),
            Format::Smallest3x6 => {
                let mut b = [0u8; 8];
                b[..6].copy_from_slice(bytes);
                decode_smallest3x6(u64::from_le_bytes(b))
            }
            Format::Smallest3x4 => {
                decode_smallest3x4(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            }
        }
    }

    /// Packs frames tightly (stride [`Format::bytes`]) into little-endian `u32` words, the last
    /// one zero-padded: the layout the GPU decoder reads.
    #[must_use]
    pub fn pack(self, frames: &[QTangent]) -> Vec<u32> {
        let mut bytes = Vec::with_capacity(frames.len() * self.bytes() + 3);
        for q in frames {
            self.encode_into(q, &mut bytes);
        }
        bytes.resize(bytes.len().div_ceil(4) * 4, 0);
        bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    }

    /// Decodes frame `index` of a stream made by [`Format::pack`].
    ///
    /// # Panics
    /// If the stream is too short for `index` (a caller bug).
    #[must_use]
    pub fn unpack(self, words: &[u32], index: usize) -> QTangent {
        let bytes: &[u8] = bytemuck::cast_slice(words);
        let start = index * self.bytes();
        self.decode(&bytes[start..start + self.bytes()])
    }
}

/// w bias for f32 storage: 2⁻⁶⁴ is a normal f32 (no denormal flushing can zero it), and moving w
/// by it rotates the frame by at most 2·2⁻⁶⁴ rad, far below f32 resolution.
pub const F32_W_BIAS: f32 = 5.421_011e-20;
/// w bias for f16 storage: 2⁻¹⁴, the smallest normal f16. A smaller |w| could be a subnormal,
/// which a GPU may flush to ±0, losing the sign. Costs at most 2·2⁻¹⁴ rad = 0.007° of rotation.
pub const F16_W_BIAS: f32 = F16_MIN_NORMAL;
/// w bias for snorm16 storage: one step, 1/32767, so w never quantises to 0 (Filament's int32
/// path uses a bias too small for 16 bits). Costs at most 2/32767 rad = 0.0035° of rotation.
pub const SNORM16_W_BIAS: f32 = 1.0 / 32767.0;

/// The rotation with `w ≥ bias`, negated when reflected: the QTangent packing contract.
fn signed_w(q: &QTangent, bias: f32) -> Vec4 {
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

/// The rotation matrix of `q` in f64: the reference the rounding search measures against.
fn target_matrix(q: Quat) -> DMat3 {
    DMat3::from_quat(q.as_dquat().normalize())
}

/// Decoded-frame error of a candidate: the largest squared distance between a column of its
/// rotation (t, cross(n, t), n) and the target's. The columns are unit vectors, so this is the
/// squared chord of the largest vector angle: minimising it minimises the worst decoded vector.
fn frame_cost(decoded: Vec4, target: &DMat3) -> f64 {
    let d = decoded.as_dvec4();
    let len = d.length();
    // Zero or NaN: never the best candidate.
    if len.is_nan() || len == 0.0 {
        return f64::INFINITY;
    }
    let m = DMat3::from_quat(DQuat::from_vec4(d / len));
    (m.x_axis - target.x_axis)
        .length_squared()
        .max((m.y_axis - target.y_axis).length_squared())
        .max((m.z_axis - target.z_axis).length_squared())
}

/// Tries every combination of the per-component `candidates` and keeps the one whose decoded
/// frame is nearest `target` ([`frame_cost`]); returns it with its cost.
fn best_rounding<T: Copy, const N: usize>(
    candidates: [&[T]; N],
    target: &DMat3,
    decode: impl Fn([T; N]) -> Vec4,
) -> ([T; N], f64) {
    let total: usize = candidates.iter().map(|c| c.len()).product();
    let mut best = std::array::from_fn(|k| candidates[k][0]);
    let mut best_cost = f64::INFINITY;
    for combo in 0..total {
        let mut rest = combo;
        let pick: [T; N] = std::array::from_fn(|k| {
            let c = candidates[k][rest % candidates[k].len()];
            rest /= candidates[k].len();
            c
        });
        let cost = frame_cost(decode(pick), target);
        if cost < best_cost {
            best_cost = cost;
            best = pick;
        }
    }
    (best, best_cost)
}

/// [`frame_cost`] of a decoded-vector error of `deg` degrees (the squared chord).
fn cost_of_deg(deg: f64) -> f64 {
    let chord = 2.0 * (deg.to_radians() / 2.0).sin();
    chord * chord
}

/// Five codes around `x`: its rounding and two steps either side, clamped to `[lo, hi]`. The
/// second pass of a search, for the rare inputs that floor/ceil cannot bring under the bound.
fn wide_codes(x: f64, lo: f64, hi: f64) -> [f64; 5] {
    let r = x.round();
    std::array::from_fn(|d| (r + d as f64 - 2.0).clamp(lo, hi))
}

// ---------------------------------------------------------------------------------------------
// F32x4

/// Encodes as four f32 (16 B): `(x, y, z, w)` with `w ≥ 2⁻⁶⁴`, negated when reflected.
///
/// Error bound: 0.01° (measured: f32 rounding of the quaternion and of the matrix, ~1e-5°).
/// Handedness: the sign of w, which the bias keeps away from zero.
#[must_use]
pub fn encode_f32x4(q: &QTangent) -> [f32; 4] {
    signed_w(q, F32_W_BIAS).to_array()
}

/// Decodes [`encode_f32x4`]: reflected when `w < 0`.
#[must_use]
pub fn decode_f32x4(v: [f32; 4]) -> QTangent {
    from_signed_w(Vec4::from_array(v))
}

// ---------------------------------------------------------------------------------------------
// F16x4

/// Smallest normal f16, 2⁻¹⁴. Encoders never write f16 subnormals: GPUs may flush them to zero
/// in `unpack2x16float`, and then the GPU decode would no longer match the CPU decode.
const F16_MIN_NORMAL: f32 = 6.103_515_6e-5;

/// The nearest f16 that is zero or normal.
fn f16_no_subnormal(x: f32) -> f16 {
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
pub fn encode_f16x4(q: &QTangent) -> [f16; 4] {
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
pub fn decode_f16x4(h: [f16; 4]) -> QTangent {
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
pub fn encode_snorm16x4(q: &QTangent) -> [i16; 4] {
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

/// Bound of [`encode_snorm16x4_nearest`] (degrees): 4/32767 rad = 0.0070°. Rounding each of
/// the four components to the nearest step moves the quaternion by at most √4 · ½ step =
/// 1/32767, which turns the rotation by at most twice that; raising w to the bias (one step)
/// turns it by at most another 2/32767 rad.
pub const SNORM16_NEAREST_BOUND_DEG: f64 = 4.0 / 32767.0 * (180.0 / std::f64::consts::PI);

/// Encodes as four snorm16 by rounding each component to the nearest step, as WGSL's
/// `pack2x16snorm` does (`floor(0.5 + 32767·x)`): what `shaders/skin.wgsl` writes, and the fast
/// way in for data where [`encode_snorm16x4`]'s rounding search costs too much (it can take
/// milliseconds for a frame with w near 0; this takes nanoseconds).
///
/// Error bound: [`SNORM16_NEAREST_BOUND_DEG`] (0.0070°, against 0.004° with the search).
/// Handedness: the sign of w, kept at least one step from 0 ([`SNORM16_W_BIAS`]). Decode with
/// [`decode_snorm16x4`].
#[must_use]
pub fn encode_snorm16x4_nearest(q: &QTangent) -> [i16; 4] {
    let v = signed_w(q, SNORM16_W_BIAS);
    // |w| ≥ 1/32767 rounds to at least one step on its side.
    v.to_array()
        .map(|x| (0.5 + 32767.0 * x.clamp(-1.0, 1.0)).floor() as i16)
}

/// Above this decoded error after floor/ceil, [`encode_snorm16x4`] searches ±2 steps.
const SNORM16_SECOND_PASS_DEG: f64 = 0.0033;

/// Decodes [`encode_snorm16x4`]: reflected when `w < 0`.
#[must_use]
pub fn decode_snorm16x4(v: [i16; 4]) -> QTangent {
    from_signed_w(snorm16x4_to_vec4(v))
}

// ---------------------------------------------------------------------------------------------
// F16x3, the seed's format

/// Bit 14 of an f16 is the top bit of its exponent, set only for |x| ≥ 2; a quaternion
/// component never is, so the seed's format has a free bit per component. x's carries the
/// handedness.
pub const F16X3_HANDEDNESS_BIT: u16 = 0x4000;

/// Encodes as three f16 (6 B): `(x, y, z)` of the quaternion with `w ≥ 0`, rounded to nearest
/// (below 2⁻¹⁴ to 0 or ±2⁻¹⁴, never a subnormal) — the seed's format ("Quaternion Tricks",
/// trick #3), kept so its error can be shown.
///
/// Error bound: 3.34°, reached near w = 0 (measured: 2.97° over the encodings table's frames;
/// the seed's own figure is 2.6°). `w = sqrt(1 − x² − y² − z²)` has an infinite slope there: f16 rounding
/// of x, y, z (at most 2⁻¹² each, |x| + |y| + |z| ≤ √3) moves `1 − x² − y² − z²` by up to
/// 2·√3·2⁻¹², so w by up to sqrt(2·√3·2⁻¹²) = 0.0291, a rotation of 2·0.0291 rad = 3.33°.
/// Handedness: the seed does not say where it goes. Here it takes bit 14 of x
/// ([`F16X3_HANDEDNESS_BIT`]), which is always 0 for |x| < 2, so it costs no precision; decoders
/// clear it before reading x.
#[must_use]
pub fn encode_f16x3(q: &QTangent) -> [f16; 3] {
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
pub fn decode_f16x3(h: [f16; 3]) -> QTangent {
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

// ---------------------------------------------------------------------------------------------
// Smallest three

/// Quantisation step of a smallest-three component with `levels` codes over [−1/√2, 1/√2]:
/// `√2 / (levels − 1)` in f32. The shader holds the same values as literals (`S3_STEP_15` for
/// 32768 levels, `S3_STEP_812` for 812); `tests/it/shaders.rs` checks they are bit-identical.
#[must_use]
pub fn smallest3_step(levels: u32) -> f32 {
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
    // square root is well conditioned (unlike the seed's reconstruction of w near 0).
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
const S3X6_LEVELS: u32 = 1 << 15;
/// Codes per component of [`Format::Smallest3x4`]: 812³ = 535,387,328 ≤ 2²⁹, the most equal
/// levels three components can share in 29 bits (10:10:9 bits would give 1024, 1024 and 512,
/// whose coarse third component sets the worst case).
pub const S3X4_LEVELS: u32 = 812;

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
pub fn encode_smallest3x6(q: &QTangent) -> u64 {
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
pub fn decode_smallest3x6(bits: u64) -> QTangent {
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
pub fn encode_smallest3x4(q: &QTangent) -> u32 {
    // Second pass above 0.2°: 0.05° under the bound.
    let (index, c) = s3_encode(q.rotation, S3X4_LEVELS, 0.2);
    (c[0] + S3X4_LEVELS * (c[1] + S3X4_LEVELS * c[2]))
        | (index << 29)
        | (u32::from(q.reflected) << 31)
}

/// Decodes [`encode_smallest3x4`].
#[must_use]
pub fn decode_smallest3x4(bits: u32) -> QTangent {
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

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses a [`Format::name`] (`f32x4`, `f16x4`, `snorm16x4`, `f16x3-seed`, `smallest3-6B`,
/// `smallest3-4B`).
impl std::str::FromStr for Format {
    type Err = ParseNameError;

    /// Accepts [`Format::name`], and `smallest3x4`, `smallest3x6` and `f16x3` for the names
    /// with a dash (the `pack` tool's spelling).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let alias = match s {
            "smallest3x4" => Some(Format::Smallest3x4),
            "smallest3x6" => Some(Format::Smallest3x6),
            "f16x3" => Some(Format::F16x3),
            _ => None,
        };
        alias.map_or_else(
            || ParseNameError::find("format", s, Self::ALL, Self::name),
            Ok,
        )
    }
}

/// Unit tests that run in the core build (`--no-default-features`): every format round-trips
/// the 48 axis-aligned frames (24 rotations × both handednesses) within its documented bound
/// and keeps the handedness; names parse back.
#[cfg(test)]
mod tests {
    use super::Format;
    use crate::measure::{angle_deg, axis_aligned_frames};

    #[test]
    fn every_format_round_trips_axis_aligned_frames_within_its_bound() {
        let frames = axis_aligned_frames();
        assert_eq!(frames.len(), 48);
        for format in Format::ALL {
            for (i, f) in frames.iter().enumerate() {
                let mut bytes = Vec::new();
                format.encode_into(&f.to_qtangent(), &mut bytes);
                assert_eq!(bytes.len(), format.bytes(), "{format}: frame {i}: bytes");
                let back = format.decode(&bytes).to_frame();
                assert_eq!(back.handedness(), f.handedness(), "{format}: frame {i}");
                for (a, b) in [
                    (f.normal, back.normal),
                    (f.tangent, back.tangent),
                    (f.bitangent, back.bitangent),
                ] {
                    let e = angle_deg(a, b);
                    assert!(
                        e <= format.max_error_deg(),
                        "{format}: frame {i}: {e}° > {}°",
                        format.max_error_deg()
                    );
                }
            }
        }
    }

    #[test]
    fn names_parse_back_and_unknown_names_list_the_valid_ones() {
        for format in Format::ALL {
            assert_eq!(format.name().parse::<Format>(), Ok(format));
        }
        let e = "f15x4".parse::<Format>().unwrap_err().to_string();
        assert!(e.starts_with("unknown format 'f15x4' (valid: "), "{e}");
        assert!(e.contains("snorm16x4"), "{e}");
    }
}
