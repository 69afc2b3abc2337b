//! Quaternion operations glam does not already provide, after the articles
//! "Quaternions: How" and "Quaternion Tricks" (Eric Brown, *Physics For Games*) and "Angular
//! velocity from two known orientations", with the robustness those articles leave out.
//!
//! Everything here is CPU-only and uses glam types. Quaternions are `(x, y, z, w)` with `w` the
//! scalar part, and rotations compose right to left (`q2 * q1` applies `q1` first), as in glam.

use glam::{Mat3, Quat, Vec3};

/// Below this `|θ|⁴/24` (the first Taylor term dropped), [`integrate`] uses the small-angle
/// series. "Quaternions: How" names it `MACHINE_SMALL_FLOAT`; `f32::EPSILON` is the value that makes the
/// dropped term invisible next to 1.
const INTEGRATE_TAYLOR_LIMIT: f32 = f32::EPSILON;

/// Below this half-angle (radians) [`angular_velocity`] uses the Taylor series of `x / sin x`
/// ("Angular velocity from two known orientations": "a Taylor series approximation if θ < 1e-4").
const SINC_TAYLOR_LIMIT: f32 = 1e-4;

/// Advances orientation `q` by angular velocity `omega` (radians per second, world axes) over
/// `dt` seconds: `q' = Δq · q` with `Δq = (cos|θ|, θ̂ sin|θ|)`, `θ = ω·dt/2`.
///
/// Uses the three-term Taylor branch of "Quaternions: How" when `|θ|⁴/24 < f32::EPSILON`, where `sin` and `cos`
/// lose relative precision. The result is renormalised, so repeated integration does not drift
/// off the unit sphere (the article leaves that to the caller).
///
/// Identity: `integrate(q0, angular_velocity(q0, q1, dt), dt) ≈ ±q1` (tested to 1e-5 per component).
#[must_use]
pub fn integrate(q: Quat, omega: Vec3, dt: f32) -> Quat {
    let theta = omega * (dt * 0.5);
    let mag_sq = theta.length_squared();
    let (w, s) = if mag_sq * mag_sq / 24.0 < INTEGRATE_TAYLOR_LIMIT {
        (1.0 - mag_sq / 2.0, 1.0 - mag_sq / 6.0)
    } else {
        let mag = mag_sq.sqrt();
        (mag.cos(), mag.sin() / mag)
    };
    let dq = Quat::from_xyzw(theta.x * s, theta.y * s, theta.z * s, w);
    (dq * q).normalize()
}

/// The constant angular velocity (radians per second, world axes) that turns `q0` into `q1`
/// in `dt` seconds along the shortest path ("Angular velocity from two known orientations").
///
/// That article takes `θ = acos(q0·q1)`, which loses half its digits for small rotations (acos is
/// flat near 1). This uses the relative rotation `r = q1 · q0⁻¹` and `θ = atan2(|r.xyz|, r.w)`,
/// accurate at every angle, and the Taylor series of `θ / sin θ` below 1e-4 as the article does.
/// `q0` and `q1` must be unit quaternions; `dt` must be non-zero.
///
/// Identity: `integrate(q0, angular_velocity(q0, q1, dt), dt) ≈ ±q1`.
///
/// ```
/// use glam::{Quat, Vec3};
/// use qtangent::quat::{angular_velocity, integrate};
/// let (q0, q1) = (Quat::from_rotation_y(0.2), Quat::from_rotation_x(1.0));
/// let omega = angular_velocity(q0, q1, 0.5);
/// assert!(integrate(q0, omega, 0.5).dot(q1).abs() > 1.0 - 1e-6);
/// ```
#[must_use]
pub fn angular_velocity(q0: Quat, q1: Quat, dt: f32) -> Vec3 {
    let mut r = q1 * q0.conjugate();
    // Shortest path: q and -q are the same rotation; pick the one with a non-negative scalar.
    if r.w < 0.0 {
        r = -r;
    }
    let v = Vec3::new(r.x, r.y, r.z);
    let sin_half = v.length();
    let half = sin_half.atan2(r.w);
    // half / sin(half), with the series 1 + x²/6 where the division would lose precision.
    let inv_sinc = if half < SINC_TAYLOR_LIMIT {
        1.0 + half * half / 6.0
    } else {
        half / sin_half
    };
    v * (2.0 * inv_sinc / dt)
}

/// Below this `|from + to|²` (an angle above ~174°) the half-vector `(from + to)/|from + to|`
/// amplifies f32 rounding by `2/|from + to|`, so [`rotation_arc`] goes through a midpoint.
const NEAR_ANTIPARALLEL_SQ: f32 = 0.01;

/// The construction of "Quaternion Tricks" (trick #2): `R = H·A` with `H` the normalised half-way vector.
fn half_vector_arc(from: Vec3, to: Vec3) -> Quat {
    let h = (from + to).normalize();
    // w = A·H, xyz = A × H: the article's product H·A written out.
    let c = from.cross(h);
    Quat::from_xyzw(c.x, c.y, c.z, from.dot(h))
}

/// The shortest rotation taking unit vector `from` to unit vector `to` ("Quaternion Tricks", trick #2):
/// `R = H·A` with `H` the normalised half-way vector.
///
/// The article divides by `|from + to|`, which is zero for antiparallel inputs and loses precision
/// near them (a `dot < -1 + ε` test, as in glam, misses inputs a few ulps off unit length and
/// returns NaN). Here, when `|from + to|² < 0.01`, the turn is split at a midpoint `c`
/// perpendicular to `from` in the plane of `from` and `to` — two well-conditioned arcs about the
/// same axis, so the product is still the shortest rotation. For exactly antiparallel inputs
/// that plane is undefined and `c` is [`Vec3::any_orthonormal_vector`]: a half turn about an
/// axis perpendicular to `from` (every such axis is a valid answer).
///
/// Identity: `rotation_arc(a, b) * a ≈ b` to ~40 ulps (tested against glam's
/// `Quat::from_rotation_arc`, and at and near antiparallel inputs).
///
/// ```
/// use glam::Vec3;
/// let a = Vec3::new(0.6, 0.8, 0.0);
/// let q = qtangent::quat::rotation_arc(a, -a); // antiparallel: the article's formula divides by zero
/// assert!((q * a + a).length() < 1e-6);
/// ```
#[must_use]
pub fn rotation_arc(from: Vec3, to: Vec3) -> Quat {
    if (from + to).length_squared() >= NEAR_ANTIPARALLEL_SQ {
        return half_vector_arc(from, to);
    }
    let perp = to - from * from.dot(to);
    // Below 1e-4 the perpendicular part is rounding noise, not a direction in the plane.
    let c = if perp.length_squared() > 1e-8 {
        perp.normalize()
    } else {
        from.any_orthonormal_vector()
    };
    (half_vector_arc(c, to) * half_vector_arc(from, c)).normalize()
}

/// `MatrixFromQuaternion` of "Quaternions: How": a 3×3 matrix from any quaternion, unit or not.
///
/// For a non-unit `q` the matrix is `|q|² · R(q/|q|)`: the rotation with a uniform scale,
/// because every term is quadratic in `q` and the diagonal keeps all four squares rather than
/// the `1 - 2(y² + z²)` form that assumes `|q| = 1`. Quadratic also means `q` and `-q` give the
/// same matrix. The shader function `quat_to_mat3` in `shaders/qtangent.wgsl` is the same
/// arithmetic in the same order.
#[must_use]
pub(crate) fn quat_to_mat3(q: Quat) -> Mat3 {
    let (x2, y2, z2, w2) = (q.x * q.x, q.y * q.y, q.z * q.z, q.w * q.w);
    let (two_x, two_y, two_w) = (2.0 * q.x, 2.0 * q.y, 2.0 * q.w);
    let xy = two_x * q.y;
    let xz = two_x * q.z;
    let yz = two_y * q.z;
    let wx = two_w * q.x;
    let wy = two_w * q.y;
    let wz = two_w * q.z;
    // glam is column-major: each Vec3 below is one column (m00 m10 m20), (m01 m11 m21), ...
    Mat3::from_cols(
        Vec3::new(w2 + x2 - y2 - z2, xy + wz, xz - wy),
        Vec3::new(xy - wz, w2 - x2 + y2 - z2, yz + wx),
        Vec3::new(xz + wy, yz - wx, w2 - x2 - y2 + z2),
    )
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../tests/unit/quat.rs"]
mod tests;
