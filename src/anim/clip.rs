//! Animation clips: glTF animation channels and their sampling, with the semantics of glTF 2.0
//! §3.11 (Animations) and appendix C (Interpolation): the time is clamped to a channel's key
//! range, STEP holds the last key at or before it, LINEAR lerps vectors and slerps rotations
//! along the shorter arc, CUBICSPLINE is the Hermite spline with tangents scaled by the key
//! interval, rotations normalised after it.

use glam::{Quat, Vec4};

use super::Transform;

/// How a channel interpolates between keyframes (glTF `sampler.interpolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
pub(crate) enum Interpolation {
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
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
pub(crate) enum Property {
    /// `translation` (xyz of the values).
    Translation,
    /// `rotation` (unit quaternion xyzw).
    Rotation,
    /// `scale` (xyz of the values).
    Scale,
}

/// One animated property of one node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Channel {
    /// Target node index (into [`crate::mesh::Scene::nodes`]).
    pub(crate) node: usize,
    /// Which property.
    pub(crate) property: Property,
    /// Interpolation.
    pub(crate) interpolation: Interpolation,
    /// Key times in seconds: not empty, finite, at least 0, strictly increasing (the loader
    /// checks all four).
    pub(crate) times: Vec<f32>,
    /// Key values: one per key (STEP/LINEAR) or three per key (CUBICSPLINE: in-tangent, value,
    /// out-tangent, as glTF stores them). Vec3 properties use xyz and w = 0. Rotation values are
    /// unit quaternions (xyzw; the loader normalises them), rotation tangents are as the file
    /// gives them.
    pub(crate) values: Vec<Vec4>,
}

/// A named animation: channels over a common time range.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Name in the file, or `animation N`.
    pub name: String,
    /// Largest last key time over the channels (seconds); the clip runs over `[0, duration]`.
    /// 0 when it has no channels, or only keys at time 0.
    pub duration: f32,
    /// Channels in file order.
    pub(crate) channels: Vec<Channel>,
}

/// Below this angle (radians, between the two quaternions as 4-vectors) slerp falls back to
/// nlerp: over an arc φ the two differ by at most φ³/62 rad (measured over s in [0, 1]), here
/// 1.6e-8, under f32's half ulp of 1 (6e-8); slerp's `sin φ` divisor is exact 0 at φ = 0.
const NLERP_BELOW: f32 = 1e-2;

impl Channel {
    /// The channel's value at time `t`: xyz (w = 0) for translation and scale, a unit quaternion
    /// (xyzw) for rotation.
    ///
    /// `t` is clamped to the key range (before the first key: the first value; after the last:
    /// the last; NaN counts as before). Between keys k and k+1 (times tₖ ≤ t < tₖ₊₁, found by
    /// binary search), with s = (t − tₖ)/(tₖ₊₁ − tₖ):
    /// - STEP: key k's value;
    /// - LINEAR: `vₖ + s·(vₖ₊₁ − vₖ)`; rotations slerp along the shorter arc (vₖ₊₁ negated
    ///   when `vₖ · vₖ₊₁ < 0`), nlerp below an arc of 1e-2 rad where the two agree to f32
    ///   rounding;
    /// - CUBICSPLINE: `(2s³−3s²+1)·vₖ + (s³−2s²+s)·td·bₖ + (−2s³+3s²)·vₖ₊₁ + (s³−s²)·td·aₖ₊₁`
    ///   with td = tₖ₊₁ − tₖ, bₖ key k's out-tangent, aₖ₊₁ key k+1's in-tangent; rotations are
    ///   normalised afterwards (a zero result, which needs contrived tangents, gives vₖ).
    ///
    /// A channel with no keys gives the property's identity (zero translation, identity
    /// rotation, unit scale).
    ///
    /// # Panics
    /// If `values` holds fewer entries than `times` needs (one or three per key); loaded
    /// channels always hold exactly that many.
    #[must_use]
    pub(crate) fn sample(&self, t: f32) -> Vec4 {
        let times = &self.times;
        let (Some(&first), Some(&last)) = (times.first(), times.last()) else {
            return match self.property {
                Property::Translation => Vec4::ZERO,
                Property::Rotation => Vec4::W,
                Property::Scale => Vec4::new(1.0, 1.0, 1.0, 0.0),
            };
        };
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let value = |k: usize| {
            if cubic {
                self.values[3 * k + 1]
            } else {
                self.values[k]
            }
        };
        if t.is_nan() || t <= first {
            return value(0);
        }
        if t >= last {
            return value(times.len() - 1);
        }
        // first < t < last, so 1 ≤ partition point ≤ len − 1: tₖ ≤ t < tₖ₊₁.
        let k = times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (times[k], times[k + 1]);
        let td = t1 - t0;
        let s = ((t - t0) / td).clamp(0.0, 1.0);
        match self.interpolation {
            Interpolation::Step => value(k),
            Interpolation::Linear if self.property == Property::Rotation => {
                slerp(value(k), value(k + 1), s)
            }
            Interpolation::Linear => value(k).lerp(value(k + 1), s),
            Interpolation::CubicSpline => {
                let (p0, p1) = (value(k), value(k + 1));
                let m0 = self.values[3 * k + 2] * td;
                let m1 = self.values[3 * (k + 1)] * td;
                let (s2, s3) = (s * s, s * s * s);
                let v = (2.0 * s3 - 3.0 * s2 + 1.0) * p0
                    + (s3 - 2.0 * s2 + s) * m0
                    + (-2.0 * s3 + 3.0 * s2) * p1
                    + (s3 - s2) * m1;
                if self.property == Property::Rotation {
                    v.try_normalize().unwrap_or(p0)
                } else {
                    v
                }
            }
        }
    }

    /// The channel's value at `t` as a quaternion ([`Channel::sample`]'s xyzw).
    #[must_use]
    #[cfg(test)]
    pub(crate) fn sample_quat(&self, t: f32) -> Quat {
        Quat::from_vec4(self.sample(t))
    }
}

/// Shortest-arc slerp of unit quaternions (as xyzw 4-vectors): `b` is negated when `a · b < 0`,
/// the arc φ between them is measured as `2·atan2(|a − b|, |a + b|)` (accurate at every angle,
/// unlike `acos(a · b)` near 0), and below [`NLERP_BELOW`] the result is nlerp. The result is
/// normalised.
fn slerp(a: Vec4, b: Vec4, s: f32) -> Vec4 {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let phi = 2.0 * (a - b).length().atan2((a + b).length());
    let v = if phi < NLERP_BELOW {
        a.lerp(b, s)
    } else {
        let sin = phi.sin();
        a * (((1.0 - s) * phi).sin() / sin) + b * ((s * phi).sin() / sin)
    };
    v.try_normalize().unwrap_or(a)
}

impl Clip {
    /// Writes the clip's animated properties at time `t` (clamped to `[0, duration]`; NaN reads
    /// as 0) into `pose` (local transforms indexed by node); properties no channel drives are
    /// left as they are, so start from the rest pose ([`super::Skeleton::rest`]). Each channel
    /// is sampled by [`Channel::sample`], so it is also clamped to its own key range. Channels
    /// whose node is outside `pose` are skipped; when two channels drive the same property the
    /// later one wins.
    ///
    /// # Panics
    /// As [`Channel::sample`] (never for loaded clips).
    pub(crate) fn sample(&self, t: f32, pose: &mut [Transform]) {
        let t = if t >= 0.0 { t.min(self.duration) } else { 0.0 };
        for channel in &self.channels {
            let Some(node) = pose.get_mut(channel.node) else {
                continue;
            };
            let v = channel.sample(t);
            match channel.property {
                Property::Translation => node.translation = v.truncate(),
                Property::Rotation => node.rotation = Quat::from_vec4(v),
                Property::Scale => node.scale = v.truncate(),
            }
        }
    }

    /// The channels that drive node `node`, in file order.
    #[cfg(test)]
    pub(crate) fn node_channels(&self, node: usize) -> impl Iterator<Item = &Channel> {
        self.channels.iter().filter(move |c| c.node == node)
    }
    #[cfg(test)]
    /// The clip named `name` in `clips` (e.g. [`crate::mesh::Scene::animations`]).
    #[must_use]
    pub(crate) fn find<'a>(clips: &'a [Clip], name: &str) -> Option<&'a Clip> {
        clips.iter().find(|c| c.name == name)
    }
}
