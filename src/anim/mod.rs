//! Skeletal animation on the CPU (no wgpu): node transforms, glTF animation clips (STEP, LINEAR,
//! CUBICSPLINE on translation, rotation and scale), the local → model hierarchy, order-independent
//! pose blending, and the walk/run locomotion blend of "Blending a Walk/Run cycle" ([`blend`]: [`Locomotion`],
//! played by a [`Player`]), with its parts in their own modules: the gait analysis of one clip
//! ([`gait`]), two-bone leg IK for locked feet and the foot-slide measure ([`slide`]).
//!
//! The GPU side is [`crate::skin`] (bones as quaternion + translation + uniform scale) and
//! [`crate::gpu::skin`] (the compute kernel).

pub mod blend;
pub mod clip;
pub mod error;
pub mod gait;
mod ik;
pub mod player;
pub mod pose;
pub mod slide;

pub use blend::{BlendMethod, ClipKind, Locomotion, RootMotion};
pub use clip::{Channel, Clip, Interpolation, Property};
pub use error::LocomotionError;
pub use gait::{Contact, FootGait, Footfall, Gait, GaitSettings};
pub use player::{LocoFrame, Player, FOOT_RELEASE_FRACTION, FOOT_RELEASE_SECONDS};
pub use pose::{blend_poses, Skeleton};
pub use slide::{foot_slide, slide_summary, speed_ramp, ContactRule, FootSlide};

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
