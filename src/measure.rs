//! Measuring formats: the angle between two directions and the angular errors of decoded frames
//! against their sources (public), and the encodings table's frames: seeded random frames, the
//! axis-aligned mirrored frames and the two stress sets (crate-internal; the tools reach them
//! through `lab::encodings`).

#[cfg(feature = "random")]
use glam::Quat;
use glam::Vec3;
#[cfg(feature = "random")]
use rand::{Rng, SeedableRng};
#[cfg(feature = "random")]
use rand_pcg::Pcg64Mcg;

use crate::frame::TangentFrame;
use crate::Format;

#[cfg(feature = "random")]
/// A uniformly distributed random rotation (Shoemake, "Uniform random rotations", Graphics
/// Gems III, 1992).
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn random_rotation(rng: &mut impl Rng) -> Quat {
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

#[cfg(feature = "random")]
/// `count` frames with uniformly random orientation and random handedness, from `seed`.
#[must_use]
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn random_frames(seed: u64, count: usize) -> Vec<TangentFrame> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let q = random_rotation(&mut rng);
            let h = if rng.random::<bool>() { 1.0 } else { -1.0 };
            frame_from_rotation(q, h)
        })
        .collect()
}

#[cfg(feature = "random")]
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
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
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn axis_aligned_frames() -> Vec<TangentFrame> {
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
    pub(crate) fn add(&mut self, deg: f64) {
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
    /// Bitangent error (degrees).
    pub bitangent: ErrorStat,
    /// Frames whose decoded handedness differs from the source's.
    pub handedness_errors: u64,
    /// Frames compared.
    pub frames: u64,
}

impl FrameErrors {
    /// Compares one decoded frame with its source.
    pub fn add(&mut self, source: &TangentFrame, decoded: &TangentFrame) {
        self.frames += 1;
        self.normal.add(angle_deg(source.normal, decoded.normal));
        self.tangent.add(angle_deg(source.tangent, decoded.tangent));
        self.bitangent
            .add(angle_deg(source.bitangent, decoded.bitangent));
        self.handedness_errors += u64::from(source.handedness() != decoded.handedness());
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
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn measure(format: Format, frames: &[TangentFrame]) -> FrameErrors {
    let mut errors = FrameErrors::default();
    let mut bytes = Vec::with_capacity(16);
    for f in frames {
        bytes.clear();
        format.encode_into(&f.to_qtangent(), &mut bytes);
        let decoded = format.decode(&bytes).to_frame();
        errors.add(f, &decoded);
    }
    errors
}

/// Seed of the encodings table's random frames.
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) const TABLE_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Frames in each of the table's two stress sets.
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) const STRESS_FRAMES: usize = 10_000;

#[cfg(feature = "random")]
/// `count` frames whose quaternion has |w| < 1e-4 — half turns (give or take 2e-4 rad) about
/// random axes — with random handedness: where a sign-of-w format spends its bias and the seed's
/// format rebuilds w worst.
#[must_use]
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn near_zero_w_frames(seed: u64, count: usize) -> Vec<TangentFrame> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let axis = random_rotation(&mut rng) * Vec3::Z;
            let angle = std::f32::consts::PI - rng.random_range(-2e-4..2e-4);
            let h = if rng.random::<bool>() { 1.0 } else { -1.0 };
            frame_from_rotation(Quat::from_axis_angle(axis, angle), h)
        })
        .collect()
}

#[cfg(feature = "random")]
/// `count` frames whose quaternion has two components of nearly equal magnitude near 1/√2 and
/// two small ones: where smallest-three formats store a component at the edge of their range.
#[must_use]
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn near_tie_frames(seed: u64, count: usize) -> Vec<TangentFrame> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut c = [0.0f32; 4];
            let i = rng.random_range(0..4usize);
            let j = (i + rng.random_range(1..4usize)) % 4;
            let a = std::f32::consts::FRAC_PI_4 + rng.random_range(-0.02..0.02);
            let sign = |r: &mut Pcg64Mcg| if r.random::<bool>() { 1.0 } else { -1.0 };
            c[i] = a.cos() * sign(&mut rng);
            c[j] = a.sin() * sign(&mut rng);
            for (k, ck) in c.iter_mut().enumerate() {
                if k != i && k != j {
                    *ck = rng.random_range(-0.05..0.05);
                }
            }
            let q = Quat::from_array(c).normalize();
            let h = if rng.random::<bool>() { 1.0 } else { -1.0 };
            frame_from_rotation(q, h)
        })
        .collect()
}

#[cfg(feature = "random")]
/// The frames the encodings table is measured on: `count` seeded random frames, the 48
/// axis-aligned frames, and the two stress sets (`near_zero_w_frames`, `near_tie_frames`,
/// `STRESS_FRAMES` each).
#[must_use]
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn table_frames(count: usize) -> Vec<TangentFrame> {
    let mut frames = random_frames(TABLE_SEED, count);
    frames.extend(axis_aligned_frames());
    frames.extend(near_zero_w_frames(TABLE_SEED + 1, STRESS_FRAMES));
    frames.extend(near_tie_frames(TABLE_SEED + 2, STRESS_FRAMES));
    frames
}

/// One line saying what [`table_frames`]`(count)` holds.
#[must_use]
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn describe_table_frames(count: usize) -> String {
    format!(
        "{count} random frames (seed {TABLE_SEED:#x}, random handedness) + 48 axis-aligned frames \
         + {STRESS_FRAMES} with |w| < 1e-4 + {STRESS_FRAMES} with two components near 1/√2"
    )
}
