//! Skeletal animation on the CPU (no wgpu): node transforms, glTF animation clips (STEP, LINEAR,
//! CUBICSPLINE on translation, rotation and scale), the local → model hierarchy, order-independent
//! pose blending, and the walk/run locomotion blend of "Blending a Walk/Run cycle" ([`blend`]: [`Locomotion`],
//! played by a [`Player`]), with its parts in their own modules: the gait analysis of one clip
//! ([`gait`]), two-bone leg IK for locked feet and the foot-slide measure ([`slide`]).
//!
//! The GPU side is [`crate::skin`] (bones as quaternion + translation + uniform scale) and
//! [`crate::gpu::skin`] (the compute kernel).

mod blend;
mod clip;
mod error;
mod gait;
mod ik;
mod player;
mod pose;
mod slide;

pub use blend::{BlendMethod, ClipKind, Locomotion, RootMotion};
pub use clip::{Channel, Clip, Interpolation, Property};
pub use error::LocomotionError;
pub(crate) use gait::GaitSettings;
pub use gait::{Contact, FootGait, Footfall, Gait};
pub use player::{LocoFrame, Player};
pub(crate) use pose::blend_poses;
pub use pose::Skeleton;
pub(crate) use slide::{foot_slide, ContactRule};
pub use slide::{slide_summary, speed_ramp, FootSlide};

use glam::{Mat4, Quat, Vec3};

/// A node's local transform as glTF stores it: `T · R · S`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Translation.
    pub translation: Vec3,
    /// Unit rotation.
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Transform {
    /// No translation, rotation or scale.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// `T · R · S` as a matrix.
    #[must_use]
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes `m` (translation, rotation, scale; any shear is lost).
    #[must_use]
    pub fn from_mat4(m: Mat4) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Self {
            translation,
            rotation,
            scale,
        }
    }
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

#[cfg(all(test, feature = "default"))]
mod tests;
