//! The f64 skinning reference the kernel is tested against: linear blend with the polar
//! factor, dual quaternions, and the frame-angle measure (see the [`crate::skin`] module docs for the
//! methods).

use glam::{DMat3, DQuat, DVec3, Mat4, Quat, Vec3, Vec4};

#[cfg(test)]
use crate::format::{sign_w::signed_w, SNORM16_W_BIAS};
use crate::frame::QTangent;
use crate::skin::{
    Bone, PackedInfluences, SkinMethod, SkinVertices, SkinnedVertex, MAX_INFLUENCES,
};

/// Skinning of one vertex in f64: the reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reference {
    /// Skinned position.
    pub(crate) position: DVec3,
    /// Skinned frame: the blend's rotation times the input's, its reflection unchanged.
    pub(crate) frame: DQuat,
}

// What only the lab reads of the skinning types (kept here, out of the product's `skin`).
impl PackedInfluences {
    /// The influences with a non-zero weight: joint index and renormalised weight in f64.
    pub(crate) fn iter_f64(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        let w = self.weights_f64();
        (0..MAX_INFLUENCES)
            .filter(|&k| self.weights[k] > 0)
            .map(move |k| (usize::from(self.joints[k]), w[k]))
    }

    /// The renormalised weights in f64 (what the kernel computes in f32).
    #[must_use]
    pub(crate) fn weights_f64(&self) -> [f64; MAX_INFLUENCES] {
        let total: f64 = self.weights.iter().map(|&w| f64::from(w)).sum();
        self.weights.map(|w| f64::from(w) / total)
    }
}

impl SkinVertices {
    /// A copy whose every rest position is moved by `f` (frames and influences kept): another
    /// instance of the same rig with its own shape.
    #[must_use]
    pub(crate) fn map_positions(&self, f: impl FnMut(Vec3) -> Vec3) -> Self {
        let mut copy = self.clone();
        copy.positions = self.positions.iter().copied().map(f).collect();
        copy
    }

    /// The rest frame of vertex `v`, as the kernel decodes it.
    ///
    /// # Panics
    /// If `v >= len()`.
    #[must_use]
    pub(crate) fn qtangent(&self, v: usize) -> QTangent {
        let n = self.format.bytes();
        self.format.decode(&self.encoded[v * n..(v + 1) * n])
    }

    /// The rest position of vertex `v`.
    ///
    /// # Panics
    /// If `v >= len()`.
    #[must_use]
    pub(crate) fn position(&self, v: usize) -> Vec3 {
        self.positions[v]
    }
}

impl Bone {
    /// The rotation.
    #[must_use]
    pub(crate) fn rotation(&self) -> Quat {
        Quat::from_array(self.rotation)
    }

    /// The translation.
    #[must_use]
    pub(crate) fn translation(&self) -> Vec3 {
        Vec4::from_array(self.translation_scale).truncate()
    }

    /// The bone as a matrix.
    #[must_use]
    pub(crate) fn to_mat4(self) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::splat(self.scale()),
            self.rotation(),
            self.translation(),
        )
    }
}

fn dquat(b: &Bone) -> DQuat {
    DQuat::from_array(b.rotation.map(f64::from)).normalize()
}

fn dvec(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

/// The polar factor of `a` (the rotation nearest to it) by Higham's Newton iteration
/// `X ← ½(X + X⁻ᵀ)` in f64, to convergence. `None` when `a` is (near) singular or its polar
/// factor is a reflection (`det a ≤ 0`: no rotation fits it).
#[must_use]
pub(crate) fn polar_rotation(a: DMat3) -> Option<DMat3> {
    let scale = a.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if scale.is_nan() || scale <= 0.0 || a.determinant() <= 1e-12 * scale.powi(3) {
        return None;
    }
    let mut x = a * (1.0 / scale);
    for _ in 0..100 {
        let next = (x + x.inverse().transpose()) * 0.5;
        let delta = (next - x)
            .to_cols_array()
            .iter()
            .fold(0.0f64, |m, d| m.max(d.abs()));
        x = next;
        if delta < 1e-15 {
            break;
        }
    }
    Some(x)
}

/// The blended matrix `A = Σ wᵢ sᵢ R(qᵢ)` and translation of LBS, in f64.
fn lbs_blend(bones: &[Bone], inf: &PackedInfluences) -> Option<(DMat3, DVec3)> {
    let mut a = DMat3::ZERO;
    let mut t = DVec3::ZERO;
    for (joint, w) in inf.iter_f64() {
        let b = bones.get(joint)?;
        a += DMat3::from_quat(dquat(b)) * (w * f64::from(b.scale()));
        t += dvec(b.translation()) * w;
    }
    Some((a, t))
}

/// `r · q` with the reflection kept: the skinned frame.
fn rotate_frame(r: DQuat, q: QTangent) -> DQuat {
    (r * q.rotation.as_dquat().normalize()).normalize()
}

/// LBS of one vertex in f64: `None` when the blended matrix has no rotation (see
/// [`polar_rotation`]) or an influence names a bone `bones` does not have.
#[must_use]
pub(crate) fn reference_lbs(
    bones: &[Bone],
    inf: &PackedInfluences,
    p: Vec3,
    q: QTangent,
) -> Option<Reference> {
    let (a, t) = lbs_blend(bones, inf)?;
    let r = DQuat::from_mat3(&polar_rotation(a)?).normalize();
    Some(Reference {
        position: a * dvec(p) + t,
        frame: rotate_frame(r, q),
    })
}

/// DQS of one vertex in f64 (see the module docs). `None` when the blended real part is zero or
/// an influence names a bone `bones` does not have.
#[must_use]
pub(crate) fn reference_dqs(
    bones: &[Bone],
    inf: &PackedInfluences,
    p: Vec3,
    q: QTangent,
) -> Option<Reference> {
    let first = dquat(bones.get(usize::from(inf.joints[0]))?);
    let (mut real, mut dual) = (
        DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
    );
    let mut scale = 0.0;
    for (joint, w) in inf.iter_f64() {
        let b = bones.get(joint)?;
        let r = dquat(b);
        let t = dvec(b.translation());
        let d = DQuat::from_xyzw(t.x, t.y, t.z, 0.0) * r * 0.5;
        let wk = if r.dot(first) < 0.0 { -w } else { w };
        real += r * wk;
        dual += d * wk;
        scale += w * f64::from(b.scale());
    }
    let len = real.length();
    if len.is_nan() || len <= 1e-12 {
        return None;
    }
    let (c0, ce) = (real * (1.0 / len), dual * (1.0 / len));
    // Translation of a unit dual quaternion: 2 · dual · conj(real).
    let t = ce * c0.conjugate() * 2.0;
    Some(Reference {
        position: c0 * (dvec(p) * scale) + DVec3::new(t.x, t.y, t.z),
        frame: rotate_frame(c0, q),
    })
}

/// The reference for either method: vertex `v` of `mesh` skinned by `bones` (its palette).
/// `None` where the blend has no rotation (the bones' rotations cancel).
///
/// # Panics
/// If `v >= mesh.len()`.
#[must_use]
pub(crate) fn reference(
    method: SkinMethod,
    bones: &[Bone],
    mesh: &SkinVertices,
    v: usize,
) -> Option<Reference> {
    let (inf, p, q) = (&mesh.influences[v], mesh.positions[v], mesh.qtangent(v));
    match method {
        SkinMethod::Linear => reference_lbs(bones, inf, p, q),
        SkinMethod::DualQuaternion => reference_dqs(bones, inf, p, q),
    }
}

/// How far LBS's frame (the polar rotation of `A` applied to the frame) is from transforming the
/// normal by the cofactor of `A` and the tangent by `A` (the f32 normal + tangent layout's
/// answer): the two angles in degrees (normal, tangent). Zero where the bones agree; `None` as
/// for [`reference_lbs`].
#[must_use]
#[cfg(test)]
pub(crate) fn lbs_vector_frame_error(
    bones: &[Bone],
    inf: &PackedInfluences,
    q: QTangent,
) -> Option<(f64, f64)> {
    let (a, _) = lbs_blend(bones, inf)?;
    let r = DQuat::from_mat3(&polar_rotation(a)?).normalize();
    let m = DMat3::from_quat(q.rotation.as_dquat().normalize());
    let (n, t) = (m.z_axis, m.x_axis);
    let cof = a.inverse().transpose() * a.determinant();
    let n_vec = (cof * n).normalize();
    let t_vec = (a * t).normalize();
    let angle = |u: DVec3, v: DVec3| u.cross(v).length().atan2(u.dot(v)).to_degrees();
    Some((angle(r * n, n_vec), angle(r * t, t_vec)))
}

/// Angle in degrees between the rotations of two frames (q and −q are the same rotation).
#[must_use]
pub(crate) fn frame_angle_deg(a: DQuat, b: DQuat) -> f64 {
    // atan2 of the relative rotation keeps its digits at small angles, where acos would not.
    let r = a.normalize().conjugate() * b.normalize();
    2.0 * DVec3::new(r.x, r.y, r.z)
        .length()
        .atan2(r.w.abs())
        .to_degrees()
}

/// Bound of [`encode_snorm16x4_nearest`] (degrees): 4/32767 rad = 0.0070°. Rounding each of
/// the four components to the nearest step moves the quaternion by at most √4 · ½ step =
/// 1/32767, which turns the rotation by at most twice that; raising w to the bias (one step)
/// turns it by at most another 2/32767 rad.
pub(crate) const SNORM16_NEAREST_BOUND_DEG: f64 = 4.0 / 32767.0 * (180.0 / std::f64::consts::PI);

/// Encodes as four snorm16 by rounding each component to the nearest step, as WGSL's
/// `pack2x16snorm` does (`floor(0.5 + 32767·x)`): what `shaders/skin.wgsl` writes, and the fast
/// way in for data where the format encoder's rounding search (`Format::Snorm16x4`) costs too much (it can take
/// milliseconds for a frame with w near 0; this takes nanoseconds).
///
/// Error bound: [`SNORM16_NEAREST_BOUND_DEG`] (0.0070°, against 0.004° with the search).
/// Handedness: the sign of w, kept at least one step from 0 (`SNORM16_W_BIAS`). Decode with
/// `format::decode_snorm16x4`.
#[must_use]
#[cfg(test)] // the CPU mirror of the skinning kernel's packing, whose bound its test establishes
pub(crate) fn encode_snorm16x4_nearest(q: &QTangent) -> [i16; 4] {
    let v = signed_w(q, SNORM16_W_BIAS);
    // |w| ≥ 1/32767 rounds to at least one step on its side.
    v.to_array()
        .map(|x| (0.5 + 32767.0 * x.clamp(-1.0, 1.0)).floor() as i16)
}

/// How far the kernel's packed output frame may be from the exact `r · q` (degrees): it rounds
/// to the nearest snorm16 step (as the CPU reference packs its frames), so its
/// bound, 4/32767 rad = 0.0070° (the CPU encoder's rounding search does better,
/// [`crate::Format::max_error_deg`]; a kernel cannot afford it).
pub(crate) const OUTPUT_BOUND_DEG: f64 = SNORM16_NEAREST_BOUND_DEG;

/// How far a skinned batch's output is from the f64 reference: the largest position error
/// relative to the rest position's distance from the origin plus one, and the largest frame
/// angle (degrees), over every vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkinningError {
    /// Largest `|p − reference| / (|rest position| + 1)`.
    pub position: f64,
    /// Largest angle between an output frame and the reference's (degrees).
    pub frame_deg: f64,
    /// What the output's own rounding allows the frame: 4/32767 rad = 0.0070° (it is packed to
    /// the nearest snorm16 step).
    pub frame_bound_deg: f64,
}

/// The output of one mesh's batch (`got[v]` is vertex `v` of `mesh`, skinned by `method` with
/// the palette `bones`) against the f64 reference. A non-finite output makes the error NaN, so
/// a poisoned vertex the kernel never wrote cannot pass a bound. `None` where a vertex's blend
/// has no rotation (the bones' rotations cancel) or an influence names a bone `bones` lacks.
///
/// # Panics
/// If `got` and `mesh` differ in length.
#[must_use]
pub fn skinning_error(
    method: SkinMethod,
    bones: &[Bone],
    mesh: &SkinVertices,
    got: &[SkinnedVertex],
) -> Option<SkinningError> {
    assert_eq!(
        got.len(),
        mesh.len(),
        "{}: one output per vertex",
        mesh.label
    );
    // The larger, NaN winning.
    let worse = |m: f64, x: f64| if x.is_nan() || x > m { x } else { m };
    let mut e = SkinningError {
        position: 0.0,
        frame_deg: 0.0,
        frame_bound_deg: OUTPUT_BOUND_DEG,
    };
    for (v, out) in got.iter().enumerate() {
        let r = reference(method, bones, mesh, v)?;
        let p = DVec3::from_array(out.position.map(f64::from));
        let size = f64::from(mesh.position(v).length()) + 1.0;
        e.position = worse(e.position, (p - r.position).length() / size);
        let angle = frame_angle_deg(out.frame().rotation.as_dquat(), r.frame);
        e.frame_deg = worse(e.frame_deg, angle);
    }
    Some(e)
}
