//! The encodings table's equipment (the frames themselves are made in `measure`, where the
//! formats' own tests use them): seeded random frames, the axis-aligned mirrored frames, the
//! table's frame set with its two stress sets, and the CPU round trip of every frame through a
//! format.

#[cfg(feature = "random")]
use glam::Quat;
#[cfg(feature = "random")]
use rand::Rng;

use crate::frame::TangentFrame;
use crate::measure::{self, FrameErrors};
use crate::Format;

/// A uniformly distributed random rotation (Shoemake, "Uniform random rotations", Graphics
/// Gems III, 1992).
#[cfg(feature = "random")]
pub fn random_rotation(rng: &mut impl Rng) -> Quat {
    measure::random_rotation(rng)
}

/// `count` frames with uniformly random orientation and random handedness, from `seed`.
#[cfg(feature = "random")]
#[must_use]
pub fn random_frames(seed: u64, count: usize) -> Vec<TangentFrame> {
    measure::random_frames(seed, count)
}

/// The 48 axis-aligned frames (24 rotations × both handednesses), among them the mirrored
/// n = ±z, t = ±x frames whose quaternion has w = 0: where a sign-of-w format can lose the sign.
#[must_use]
pub fn axis_aligned_frames() -> Vec<TangentFrame> {
    measure::axis_aligned_frames()
}

/// Encodes and decodes every frame in `format` on the CPU and measures the decoded errors.
#[must_use]
pub fn measure(format: Format, frames: &[TangentFrame]) -> FrameErrors {
    measure::measure(format, frames)
}

/// The frames the encodings table is measured on: `count` seeded random frames, the 48
/// axis-aligned frames, and two stress sets (quaternions with |w| < 1e-4, and with two
/// components near 1/√2).
#[cfg(feature = "random")]
#[must_use]
pub fn table_frames(count: usize) -> Vec<TangentFrame> {
    measure::table_frames(count)
}

/// One line saying what `table_frames(count)` holds.
#[must_use]
pub fn describe_table_frames(count: usize) -> String {
    measure::describe_table_frames(count)
}
