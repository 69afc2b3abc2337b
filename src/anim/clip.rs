//! Animation clips: glTF animation channels and their sampling.

use glam::{Quat, Vec3, Vec4};

use super::Transform;

/// How a channel interpolates between keyframes (glTF `sampler.interpolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold the previous key's value.
    Step,
    /// Lerp for translation and scale; shortest-path slerp for rotation (glTF spec).
    Linear,
    /// Cubic Hermite spline with in/out tangents per key (glTF spec appendix C); rotations are
    /// normalised after interpolation.
    CubicSpline,
}

/// Which part of a node's transform a channel drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Property {
    /// `translation` (xyz of the values).
    Translation,
    /// `rotation` (unit quaternion xyzw).
    Rotation,
    /// `scale` (xyz of the values).
    Scale,
}

/// One animated property of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// Target node index (into [`crate::mesh::Scene::nodes`]).
    pub node: usize,
    /// Which property.
    pub property: Property,
    /// Interpolation.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing, finite.
    pub times: Vec<f32>,
    /// Key values: one per key (STEP/LINEAR) or three per key (CUBICSPLINE: in-tangent, value,
    /// out-tangent, as glTF stores them). Vec3 properties use xyz and w = 0.
    pub values: Vec<Vec4>,
}

/// A named animation: channels over a common time range.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Name in the file, or `animation N`.
    pub name: String,
    /// Last key time of any channel (seconds); the first is taken as 0.
    pub duration: f32,
    /// Channels in file order.
    pub channels: Vec<Channel>,
}

impl Channel {
    /// The channel's value at time `t` (clamped to the key range): xyz for translation/scale,
    /// a unit quaternion (xyzw) for rotation.
    #[must_use]
    pub fn sample(&self, t: f32) -> Vec4 {
        let _ = t;
        unimplemented!("anim::clip::Channel::sample")
    }
}

impl Clip {
    /// Writes the clip's animated properties at time `t` (clamped to `[0, duration]`) into
    /// `pose` (local transforms indexed by node); properties no channel drives are left as they
    /// are, so start from the rest pose ([`super::Skeleton::rest`]).
    pub fn sample(&self, t: f32, pose: &mut [Transform]) {
        let _ = (t, pose, Vec3::ZERO, Quat::IDENTITY);
        unimplemented!("anim::clip::Clip::sample")
    }
}
