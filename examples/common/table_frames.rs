//! The frames the encodings table is measured on, and the measure itself, shared by the tools
//! (`encodings`, `demo`, `bench`, `skin_bench`), the integration tests and the crate's unit
//! tests: seeded uniformly random frames, the 48 axis-aligned frames (mirrored ones among them)
//! and two stress sets, each where some format is at its worst.
#![allow(dead_code)] // each user takes what it needs

use glam::{Quat, Vec3};
use qtangent::measure::FrameErrors;
use qtangent::{Format, TangentFrame};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

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

/// Encodes and decodes every frame in `format` on the CPU and measures the decoded errors.
#[must_use]
pub fn measure(format: Format, frames: &[TangentFrame]) -> FrameErrors {
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
pub const TABLE_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Frames in each of the table's two stress sets.
pub const STRESS_FRAMES: usize = 10_000;

/// `count` frames whose quaternion has |w| < 1e-4 — half turns (give or take 2e-4 rad) about
/// random axes — with random handedness: where a sign-of-w format spends its bias and the seed's
/// format rebuilds w worst.
#[must_use]
pub fn near_zero_w_frames(seed: u64, count: usize) -> Vec<TangentFrame> {
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

/// `count` frames whose quaternion has two components of nearly equal magnitude near 1/√2 and
/// two small ones: where smallest-three formats store a component at the edge of their range.
#[must_use]
pub fn near_tie_frames(seed: u64, count: usize) -> Vec<TangentFrame> {
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

/// The frames the encodings table is measured on: `count` seeded random frames, the 48
/// axis-aligned frames, and the two stress sets (`near_zero_w_frames`, `near_tie_frames`,
/// `STRESS_FRAMES` each).
#[must_use]
pub fn table_frames(count: usize) -> Vec<TangentFrame> {
    let mut frames = random_frames(TABLE_SEED, count);
    frames.extend(axis_aligned_frames());
    frames.extend(near_zero_w_frames(TABLE_SEED + 1, STRESS_FRAMES));
    frames.extend(near_tie_frames(TABLE_SEED + 2, STRESS_FRAMES));
    frames
}

/// One line saying what [`table_frames`]`(count)` holds.
#[must_use]
pub fn describe_table_frames(count: usize) -> String {
    format!(
        "{count} random frames (seed {TABLE_SEED:#x}, random handedness) + 48 axis-aligned frames \
         + {STRESS_FRAMES} with |w| < 1e-4 + {STRESS_FRAMES} with two components near 1/√2"
    )
}
