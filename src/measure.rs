//! Measuring formats: seeded random frames, the axis-aligned mirrored frames, and the angular
//! error of decoded frames against their sources.

use std::fmt::Write as _;

use glam::{Quat, Vec3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::encoding::Format;
use crate::frame::TangentFrame;

/// A uniformly distributed random rotation (Shoemake, "Uniform random rotations", Graphics
/// Gems III, 1992).
pub fn random_rotation(rng: &mut impl Rng) -> Quat {
    let (u1, u2, u3): (f32, f32, f32) = (rng.random(), rng.random(), rng.random());
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let tau = std::f32::consts::TAU;
    Quat::from_xyzw(
        a * (tau * u2).sin(),
        a * (tau * u2).cos(),
        b * (tau * u3).sin(),
        b * (tau * u3).cos(),
    )
    .normalize()
}

/// `count` frames with uniformly random orientation and random handedness, from `seed`.
#[must_use]
pub fn random_frames(seed: u64, count: usize) -> Vec<TangentFrame> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let q = random_rotation(&mut rng);
            let h = if rng.random::<bool>() { 1.0 } else { -1.0 };
            frame_from_rotation(q, h)
        })
        .collect()
}

fn frame_from_rotation(q: Quat, handedness: f32) -> TangentFrame {
    let (t, n) = (q * Vec3::X, q * Vec3::Z);
    TangentFrame {
        normal: n,
        tangent: t,
        bitangent: n.cross(t) * handedness,
    }
}

/// The 48 axis-aligned frames (24 rotations × both handednesses), among them the mirrored
/// n = ±z, t = ±x frames whose quaternion has w = 0: where a sign-of-w format can lose the sign.
#[must_use]
pub fn axis_aligned_frames() -> Vec<TangentFrame> {
    let axes = [
        Vec3::X,
        Vec3::NEG_X,
        Vec3::Y,
        Vec3::NEG_Y,
        Vec3::Z,
        Vec3::NEG_Z,
    ];
    let mut out = Vec::with_capacity(48);
    for n in axes {
        for t in axes {
            if n.dot(t) != 0.0 {
                continue;
            }
            for h in [1.0, -1.0] {
                out.push(TangentFrame {
                    normal: n,
                    tangent: t,
                    bitangent: n.cross(t) * h,
                });
            }
        }
    }
    out
}

/// Angle between two vectors in degrees, computed in f64 (`atan2(|a×b|, a·b)`, accurate at
/// every angle).
#[must_use]
pub fn angle_deg(a: Vec3, b: Vec3) -> f64 {
    let (a, b) = (a.as_dvec3(), b.as_dvec3());
    a.cross(b).length().atan2(a.dot(b)).to_degrees()
}

/// Running mean and maximum of an angular error.
#[derive(Debug, Clone, Copy, Default)]
pub struct ErrorStat {
    sum: f64,
    /// Largest error seen (degrees).
    pub max: f64,
    count: u64,
}

impl ErrorStat {
    /// Adds one sample. A NaN sample makes `max` NaN, so it cannot pass a bound unnoticed.
    pub fn add(&mut self, deg: f64) {
        self.sum += deg;
        self.count += 1;
        if deg.is_nan() || self.max.is_nan() {
            self.max = f64::NAN;
        } else if deg > self.max {
            self.max = deg;
        }
    }

    /// Mean error (degrees); 0 with no samples.
    #[must_use]
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }
}

/// Errors of decoded frames against their sources.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameErrors {
    /// Normal error (degrees).
    pub normal: ErrorStat,
    /// Tangent error (degrees).
    pub tangent: ErrorStat,
    /// Bitangent error (degrees). For a format that does not store handedness, measured with
    /// the source's handedness applied (as a caller that keeps it elsewhere would).
    pub bitangent: ErrorStat,
    /// Frames whose decoded handedness differs from the source's.
    pub handedness_errors: u64,
    /// Frames compared.
    pub frames: u64,
}

impl FrameErrors {
    /// Compares one decoded frame with its source. `handedness_stored` says whether a
    /// handedness mismatch is an error of the format or a documented absence.
    pub fn add(&mut self, source: &TangentFrame, decoded: &TangentFrame, handedness_stored: bool) {
        self.frames += 1;
        self.normal.add(angle_deg(source.normal, decoded.normal));
        self.tangent.add(angle_deg(source.tangent, decoded.tangent));
        let mismatch = source.handedness() != decoded.handedness();
        self.handedness_errors += u64::from(mismatch);
        let b = if mismatch && !handedness_stored {
            -decoded.bitangent
        } else {
            decoded.bitangent
        };
        self.bitangent.add(angle_deg(source.bitangent, b));
    }

    /// Largest of the normal, tangent and bitangent maxima (NaN if any is NaN).
    #[must_use]
    pub fn max(&self) -> f64 {
        let m = [self.normal.max, self.tangent.max, self.bitangent.max];
        if m.iter().any(|x| x.is_nan()) {
            f64::NAN
        } else {
            m.into_iter().fold(0.0, f64::max)
        }
    }
}

/// Encodes and decodes every frame in `format` on the CPU and measures the decoded errors.
#[must_use]
pub fn measure(format: Format, frames: &[TangentFrame]) -> FrameErrors {
    let mut errors = FrameErrors::default();
    let mut bytes = Vec::with_capacity(16);
    for f in frames {
        bytes.clear();
        format.encode_into(&f.to_qtangent(), &mut bytes);
        let decoded = format.decode(&bytes).to_frame();
        errors.add(f, &decoded, format.stores_handedness());
    }
    errors
}

/// The encodings table: one row per format with bytes, mean/max errors and handedness errors.
#[must_use]
pub fn table(rows: &[(Format, FrameErrors)]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| format       | bytes | normal mean / max (°)  | tangent mean / max (°) | bitangent mean / max (°) | handedness errors |"
    );
    let _ = writeln!(s, "|--------------|------:|------------------------|------------------------|--------------------------|-------------------|");
    for (format, e) in rows {
        let hand = if format.stores_handedness() {
            format!("{}", e.handedness_errors)
        } else {
            format!("not stored ({} differ)", e.handedness_errors)
        };
        let pair = |st: &ErrorStat| format!("{:.6} / {:.6}", st.mean(), st.max);
        let _ = writeln!(
            s,
            "| {:<12} | {:>5} | {:<22} | {:<22} | {:<24} | {:<17} |",
            format.name(),
            format.bytes(),
            pair(&e.normal),
            pair(&e.tangent),
            pair(&e.bitangent),
            hand
        );
    }
    s
}

/// Seed of the encodings table's random frames.
pub const TABLE_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// The frames the encodings table is measured on: `count` seeded random frames followed by the
/// 48 axis-aligned frames.
#[must_use]
pub fn table_frames(count: usize) -> Vec<TangentFrame> {
    let mut frames = random_frames(TABLE_SEED, count);
    frames.extend(axis_aligned_frames());
    frames
}

/// Largest absolute difference between corresponding components of two frames' vectors. NaN
/// when either frame has a NaN, so an unwritten (poisoned) GPU result can never pass a bound.
#[must_use]
pub fn max_component_diff(a: &TangentFrame, b: &TangentFrame) -> f32 {
    let d = (a.normal - b.normal)
        .abs()
        .max_element()
        .max((a.tangent - b.tangent).abs().max_element())
        .max((a.bitangent - b.bitangent).abs().max_element());
    let any_nan = [
        a.normal,
        a.tangent,
        a.bitangent,
        b.normal,
        b.tangent,
        b.bitangent,
    ]
    .iter()
    .any(|v| v.is_nan());
    if any_nan {
        f32::NAN
    } else {
        d
    }
}
