//! Skeletal animation on the CPU (no wgpu): node transforms ([`Transform`]), glTF animation
//! clips ([`Clip`]: STEP, LINEAR, CUBICSPLINE on translation, rotation and scale), the local →
//! model hierarchy (a skeleton, inside the crate), and the walk/run locomotion blend of
//! "Blending a Walk/Run cycle" ([`Locomotion`], whose docs describe the method, played by a
//! [`Player`]) with its gait analysis ([`Gait`]; the foot-slide measure is the lab's). A loaded
//! scene makes its blend ([`crate::mesh::Scene::locomotion`]).
//!
//! The GPU side is [`crate::skin`] (bones as quaternion + translation + uniform scale) and
//! [`crate::gpu::SkinPipeline`] (the compute kernel).

pub(crate) mod blend;
mod clip;
mod error;
pub(crate) mod gait;
mod ik;
mod player;
mod pose;
mod slide;

pub use blend::{BlendMethod, Locomotion};
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(unused_imports))]
pub(crate) use clip::Channel;
pub use clip::Clip;
#[cfg(feature = "gltf")]
pub(crate) use clip::{Interpolation, Property};
pub use error::LocomotionError;
pub(crate) use gait::Footfall;
pub use gait::Gait;
pub(crate) use gait::GaitSettings;
pub use player::{LocoFrame, Player};
pub(crate) use pose::{blend_poses, Skeleton};
pub use slide::speed_ramp;
pub(crate) use slide::ContactRule;

use glam::{Mat4, Quat, Vec3};

/// A node's local transform as glTF stores it: `T · R · S`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Translation.
    pub(crate) translation: Vec3,
    /// Unit rotation.
    pub(crate) rotation: Quat,
    /// Per-axis scale.
    pub(crate) scale: Vec3,
}

impl Transform {
    /// No translation, rotation or scale.
    pub(crate) const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// `T · R · S` as a matrix.
    #[must_use]
    pub(crate) fn to_mat4(self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../tests/unit/anim/mod.rs"]
mod tests;
