//! Tangent frames (normal, tangent, bitangent) and the quaternion that holds one.
//!
//! Convention (as in glTF, Crytek and Filament): tangent space has x = tangent, y = bitangent,
//! z = normal, and `bitangent = cross(normal, tangent) · handedness` with handedness ±1. A frame
//! with handedness −1 (mirrored UVs) is a reflection, which no quaternion can hold; the rotation
//! `[t, cross(n, t), n]` is stored instead and the reflection travels as a separate sign.

use glam::{DVec3, Mat3, Quat, Vec3, Vec4};

use crate::quat::quat_to_mat3;

/// Why a frame could not be built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameError {
    /// A component is NaN or infinite.
    NonFinite(&'static str),
    /// A vector is (nearly) zero, so it has no direction.
    ZeroLength(&'static str),
    /// The tangent is (nearly) parallel to the normal, so no tangent direction is left.
    TangentParallelToNormal,
    /// The bitangent lies (nearly) in the normal–tangent plane, so it gives no handedness.
    NoHandedness,
}

// Written by hand, not derived with thiserror: the core builds on glam, half and bytemuck alone.
impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NonFinite(what) => write!(f, "the {what} has a NaN or infinite component"),
            Self::ZeroLength(what) => write!(f, "the {what} has zero length"),
            Self::TangentParallelToNormal => f.write_str("the tangent is parallel to the normal"),
            Self::NoHandedness => f.write_str(
                "the bitangent lies in the normal-tangent plane, so the handedness is undefined",
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// Smallest accepted largest-component magnitude of an input vector: inputs are unit-ish
/// directions, and one this short has lost its direction to f32 rounding of whatever made it.
const MIN_MAGNITUDE: f32 = 1e-12;
/// Smallest accepted sine between the tangent and the normal (and between the bitangent and the
/// normal–tangent plane). f32 inputs carry a relative rounding of up to 2⁻²⁴ = 6e-8, so at a
/// sine s the direction left after Gram–Schmidt is uncertain by ~6e-8/s rad: 6e-5 rad (0.003°)
/// at 1e-3. Below that the input does not really say which way the tangent points.
const MIN_SINE: f64 = 1e-3;

/// An orthonormal tangent frame: unit normal, unit tangent perpendicular to it, and a bitangent
/// equal to `cross(normal, tangent) · handedness`.
///
/// Build one from untrusted vectors with [`TangentFrame::new`] or
/// [`TangentFrame::from_normal_tangent`], which orthonormalise and reject degenerate input. The
/// fields are public for reading and for frames already known to be orthonormal (decoded ones);
/// [`TangentFrame::to_qtangent`] assumes they are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TangentFrame {
    /// Unit surface normal (tangent-space z).
    pub normal: Vec3,
    /// Unit tangent, perpendicular to the normal (tangent-space x).
    pub tangent: Vec3,
    /// Unit bitangent, `cross(normal, tangent) · handedness` (tangent-space y).
    pub bitangent: Vec3,
}

/// A tangent frame as a rotation and a reflection flag: what every format in
/// [`crate::Format`] stores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QTangent {
    /// Unit quaternion rotating tangent space (x = t, y = cross(n, t), z = n) into object space.
    pub rotation: Quat,
    /// True when the frame is mirrored: `bitangent = -cross(normal, tangent)`.
    pub reflected: bool,
}

/// A finite, non-zero input vector scaled so its largest component is ±1, in f64: no later
/// square can overflow (a finite f32 as large as 1e20 still has a direction) or underflow.
fn check(v: Vec3, name: &'static str) -> Result<DVec3, FrameError> {
    if !v.is_finite() {
        return Err(FrameError::NonFinite(name));
    }
    let m = v.abs().max_element();
    if m < MIN_MAGNITUDE {
        return Err(FrameError::ZeroLength(name));
    }
    Ok(v.as_dvec3() / f64::from(m))
}

impl TangentFrame {
    /// The frame of three vectors as a GPU stage writes them, taken as they are.
    #[cfg(feature = "gpu")]
    pub(crate) fn from_arrays(normal: [f32; 3], tangent: [f32; 3], bitangent: [f32; 3]) -> Self {
        Self {
            normal: Vec3::from_array(normal),
            tangent: Vec3::from_array(tangent),
            bitangent: Vec3::from_array(bitangent),
        }
    }

    /// Builds an orthonormal frame from possibly non-orthonormal vectors.
    ///
    /// The normal is kept exactly (only normalised); the tangent is made perpendicular to it
    /// (Gram–Schmidt); the bitangent is replaced by `±cross(n, t)`, the sign taken from the side
    /// of the normal–tangent plane the given bitangent lies on.
    ///
    /// # Errors
    /// [`FrameError`] for a NaN/infinite or zero-length input, a tangent parallel to the normal,
    /// or a bitangent in the normal–tangent plane.
    pub fn new(normal: Vec3, tangent: Vec3, bitangent: Vec3) -> Result<Self, FrameError> {
        let b = check(bitangent, "bitangent")?;
        let (n, t) = Self::orthonormal_pair(normal, tangent)?;
        let side = n.cross(t).dot(b);
        if side.abs() < MIN_SINE * b.length() {
            return Err(FrameError::NoHandedness);
        }
        Ok(Self::from_orthonormal(n, t, side.signum()))
    }

    /// Builds a frame from a normal and a glTF-style tangent whose `w` is the handedness (±1;
    /// only its sign is used).
    ///
    /// # Errors
    /// As [`TangentFrame::new`]; a `w` that is NaN, infinite or zero is [`FrameError::NoHandedness`].
    pub fn from_normal_tangent(normal: Vec3, tangent: Vec4) -> Result<Self, FrameError> {
        let (n, t) = Self::orthonormal_pair(normal, tangent.truncate())?;
        if !tangent.w.is_finite() || tangent.w == 0.0 {
            return Err(FrameError::NoHandedness);
        }
        Ok(Self::from_orthonormal(n, t, f64::from(tangent.w.signum())))
    }

    /// Unit normal and unit tangent perpendicular to it, by Gram–Schmidt in f64 (exact for the
    /// given f32 inputs to ~1e-16, so the only uncertainty left is the inputs' own).
    fn orthonormal_pair(normal: Vec3, tangent: Vec3) -> Result<(DVec3, DVec3), FrameError> {
        let n = check(normal, "normal")?.normalize();
        let t = check(tangent, "tangent")?;
        let t_perp = t - n * n.dot(t);
        if t_perp.length() < MIN_SINE * t.length() {
            return Err(FrameError::TangentParallelToNormal);
        }
        Ok((n, t_perp.normalize()))
    }

    fn from_orthonormal(n: DVec3, t: DVec3, handedness: f64) -> Self {
        Self {
            normal: n.as_vec3(),
            tangent: t.as_vec3(),
            bitangent: (n.cross(t) * handedness).as_vec3(),
        }
    }

    /// +1 for a right-handed frame, −1 for a mirrored one.
    #[must_use]
    pub fn handedness(&self) -> f32 {
        if self.normal.cross(self.tangent).dot(self.bitangent) < 0.0 {
            -1.0
        } else {
            1.0
        }
    }

    /// The rotation `[t, cross(n, t), n]` and the reflection flag. The frame must be orthonormal
    /// (as [`TangentFrame::new`] makes it); for anything else the quaternion is meaningless.
    #[must_use]
    pub fn to_qtangent(&self) -> QTangent {
        let m = Mat3::from_cols(self.tangent, self.normal.cross(self.tangent), self.normal);
        QTangent {
            rotation: Quat::from_mat3(&m).normalize(),
            reflected: self.handedness() < 0.0,
        }
    }
}

impl QTangent {
    /// [`QTangent::to_frame`] for quaternions from outside (decoded bytes of unknown origin):
    /// a NaN/infinite or (near) zero quaternion is an error instead of a NaN frame, and one
    /// whose squared length leaves f32 (components past 10¹⁹, as raw f32x4 bytes can hold) is
    /// scaled down first instead of giving a zero frame.
    ///
    /// # Errors
    /// [`FrameError::NonFinite`] or [`FrameError::ZeroLength`], naming "quaternion".
    pub fn try_to_frame(&self) -> Result<TangentFrame, FrameError> {
        let q = Vec4::from(self.rotation);
        if !q.is_finite() {
            return Err(FrameError::NonFinite("quaternion"));
        }
        let largest = q.abs().max_element();
        if largest < MIN_MAGNITUDE {
            return Err(FrameError::ZeroLength("quaternion"));
        }
        let squared = q.length_squared();
        if squared.is_finite() && squared >= f32::MIN_POSITIVE {
            return Ok(self.to_frame());
        }
        // Components so large (or small) that their squares leave f32: the same rotation,
        // scaled to a largest component of 1 first.
        let scaled = QTangent {
            rotation: glam::Quat::from_vec4(q / largest),
            reflected: self.reflected,
        };
        Ok(scaled.to_frame())
    }

    /// The frame this rotation and reflection stand for: tangent = column 0, normal = column 2
    /// of the rotation matrix, bitangent = `cross(n, t) · (reflected ? −1 : 1)`.
    ///
    /// Mirrors `tangent_frame` in `shaders/qtangent.wgsl`: the quaternion is normalised first,
    /// then converted with the matrix formula of "Quaternions: How", in the same f32 operations. A zero or NaN
    /// quaternion gives a NaN frame; use [`QTangent::try_to_frame`] on data from outside.
    #[must_use]
    pub fn to_frame(&self) -> TangentFrame {
        let q = self.rotation;
        let inv_len = 1.0 / (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
        let m = quat_to_mat3(q * inv_len);
        let h = if self.reflected { -1.0 } else { 1.0 };
        TangentFrame {
            normal: m.z_axis,
            tangent: m.x_axis,
            bitangent: m.z_axis.cross(m.x_axis) * h,
        }
    }
}
