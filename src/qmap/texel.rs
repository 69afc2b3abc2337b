//! The per-texel maths of the bake, in f32, operation for operation the same as
//! `shaders/bake.wgsl` (the GPU baker) so that the CPU reference and the GPU agree to f32
//! rounding (and any fused multiply-adds the GPU compiler makes), far below one step of any
//! [`super::MapFormat`].
//!
//! Frames are interpolated as vectors (n, t, b), never as quaternions; the quaternion is made
//! once per texel, after the normal map's perturbation.

use glam::{Vec2, Vec3, Vec4};

use super::normal_map::NormalMap;
use crate::TangentFrame;

/// A triangle of the bake in texel units (`uv · size`), with its corner frames.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BakeTriangle {
    /// Corner positions in texel units: texel (x, y) has its centre at (x + ½, y + ½).
    pub(crate) p: [Vec2; 3],
    /// Corner frames (object space).
    pub(crate) frames: [TangentFrame; 3],
}

/// Twice the signed area of the triangle in texel², as [`barycentric`] computes it. Triangles
/// with `|area2| <= MIN_AREA2` are skipped by both bakers (their barycentrics are not finite).
#[must_use]
pub(crate) fn area2(p: &[Vec2; 3]) -> f32 {
    let e0 = p[1] - p[0];
    let e1 = p[2] - p[0];
    e0.x * e1.y - e0.y * e1.x
}

/// Triangles smaller than this (twice the area, texel²) are degenerate for the bake: 2⁻²⁰
/// texel², a millionth of a texel, far below anything a texel centre can land in.
pub(crate) const MIN_AREA2: f32 = 9.536_743e-7;

/// Texels farther than this (in texels) from every triangle are not in the fringe: any texel
/// that bilinear filtering of a point inside a triangle can touch is within √2 (the diagonal of
/// the 2×2 footprint), so 1.5 covers it with a margin for rounding.
pub(crate) const FRINGE_RADIUS: f32 = 1.5;

/// Barycentric coordinates of `c` in the triangle (unclamped). Mirrors `barycentric` in
/// `shaders/bake.wgsl`.
#[must_use]
pub(crate) fn barycentric(p: &[Vec2; 3], c: Vec2) -> Vec3 {
    let e0 = p[1] - p[0];
    let e1 = p[2] - p[0];
    let d = c - p[0];
    let den = e0.x * e1.y - e0.y * e1.x;
    let l1 = (d.x * e1.y - d.y * e1.x) / den;
    let l2 = (e0.x * d.y - e0.y * d.x) / den;
    Vec3::new(1.0 - l1 - l2, l1, l2)
}

/// Barycentrics of the point of the triangle closest to `c`, and its distance from `c` (0 when
/// `c` is inside). Mirrors `closest_barycentric` in `shaders/bake.wgsl`.
#[must_use]
pub(crate) fn closest_barycentric(p: &[Vec2; 3], c: Vec2) -> (Vec3, f32) {
    let l = barycentric(p, c);
    if l.x >= 0.0 && l.y >= 0.0 && l.z >= 0.0 {
        return (l, 0.0);
    }
    let mut best = Vec3::ZERO;
    let mut best_d2 = f32::INFINITY;
    for i in 0..3 {
        let j = (i + 1) % 3;
        let a = p[i];
        let e = p[j] - a;
        let s = ((c - a).dot(e) / e.dot(e)).clamp(0.0, 1.0);
        let q = a + e * s;
        let d2 = (c - q).dot(c - q);
        if d2 < best_d2 {
            best_d2 = d2;
            let mut b = Vec3::ZERO;
            b[i] = 1.0 - s;
            b[j] = s;
            best = b;
        }
    }
    (best, best_d2.sqrt())
}

/// glam's `Vec3::any_orthonormal_pair` tangent, with the sign taken as `z >= 0` (so −0 counts as
/// positive, as in WGSL). Mirrors `any_tangent` in `shaders/bake.wgsl`.
#[must_use]
pub(crate) fn any_tangent(n: Vec3) -> Vec3 {
    let sign = if n.z >= 0.0 { 1.0 } else { -1.0 };
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x)
}

/// The quaternion (x, y, z, w) of the rotation whose matrix has columns `x`, `y`, `z`
/// (orthonormal, right-handed): glam's `Quat::from_rotation_axes` (DirectXMath's branch
/// structure). Mirrors `quat_from_axes` in `shaders/bake.wgsl`.
#[must_use]
pub(crate) fn quat_from_axes(x: Vec3, y: Vec3, z: Vec3) -> Vec4 {
    let (m00, m01, m02) = (x.x, x.y, x.z);
    let (m10, m11, m12) = (y.x, y.y, y.z);
    let (m20, m21, m22) = (z.x, z.y, z.z);
    if m22 <= 0.0 {
        let dif10 = m11 - m00;
        let omm22 = 1.0 - m22;
        if dif10 <= 0.0 {
            let four_xsq = omm22 - dif10;
            let inv = 0.5 / four_xsq.sqrt();
            Vec4::new(
                four_xsq * inv,
                (m01 + m10) * inv,
                (m02 + m20) * inv,
                (m12 - m21) * inv,
            )
        } else {
            let four_ysq = omm22 + dif10;
            let inv = 0.5 / four_ysq.sqrt();
            Vec4::new(
                (m01 + m10) * inv,
                four_ysq * inv,
                (m12 + m21) * inv,
                (m20 - m02) * inv,
            )
        }
    } else {
        let sum10 = m11 + m00;
        let opm22 = 1.0 + m22;
        if sum10 <= 0.0 {
            let four_zsq = opm22 - sum10;
            let inv = 0.5 / four_zsq.sqrt();
            Vec4::new(
                (m02 + m20) * inv,
                (m12 + m21) * inv,
                four_zsq * inv,
                (m01 - m10) * inv,
            )
        } else {
            let four_wsq = opm22 + sum10;
            let inv = 0.5 / four_wsq.sqrt();
            Vec4::new(
                (m12 - m21) * inv,
                (m20 - m02) * inv,
                (m01 - m10) * inv,
                four_wsq * inv,
            )
        }
    }
}

/// Hamilton product `a ⊗ b` of (x, y, z, w) quaternions. Mirrors `quat_mul` in the WGSL.
#[must_use]
pub(crate) fn quat_mul(a: Vec4, b: Vec4) -> Vec4 {
    Vec4::new(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    )
}

/// The shortest rotation taking +Z to the unit vector `m`: `normalize(cross(Z, m), 1 + m.z)`;
/// for `m` within 1e-6 of −Z (no unique shortest arc) the half turn about +X. Mirrors
/// `arc_from_z` in the WGSL.
#[must_use]
pub(crate) fn arc_from_z(m: Vec3) -> Vec4 {
    let w = 1.0 + m.z;
    if w < 1e-6 {
        return Vec4::new(1.0, 0.0, 0.0, 0.0);
    }
    let q = Vec4::new(-m.y, m.x, 0.0, w);
    q / q.dot(q).sqrt()
}

/// The frame at barycentrics `l`: interpolated n, t, b made orthonormal (n normalised, t by
/// Gram–Schmidt, with [`any_tangent`] when t is (nearly) parallel to n; b = ±cross(n, t), the
/// sign that of the corners' handedness interpolated). Returns (quaternion of the rotation [t, cross(n, t), n],
/// handedness ±1).
#[must_use]
pub(crate) fn vertex_frame(frames: &[TangentFrame; 3], l: Vec3) -> (Vec4, f32) {
    let ni = frames[0].normal * l.x + frames[1].normal * l.y + frames[2].normal * l.z;
    let ti = frames[0].tangent * l.x + frames[1].tangent * l.y + frames[2].tangent * l.z;
    let nn = ni.dot(ni);
    let n = if nn > 1e-12 {
        ni / nn.sqrt()
    } else {
        frames[0].normal
    };
    let tp = ti - n * n.dot(ti);
    let tt = tp.dot(tp);
    let t = if tt > 1e-12 {
        tp / tt.sqrt()
    } else {
        any_tangent(n)
    };
    let c = n.cross(t);
    // The corners' handedness, interpolated: where all three agree (every triangle of a
    // well-formed mesh) exactly theirs, however much the frames turn across the triangle.
    let hc = frames.map(|f| {
        if f.normal.cross(f.tangent).dot(f.bitangent) < 0.0 {
            -1.0
        } else {
            1.0
        }
    });
    let hi = hc[0] * l.x + hc[1] * l.y + hc[2] * l.z;
    let h = if hi < 0.0 { -1.0 } else { 1.0 };
    (quat_from_axes(t, c, n), h)
}

/// The baked quaternion of one texel: the vertex frame at barycentrics `l` rotated by the normal
/// map's perturbation `q_frame ⊗ arc(+Z → m')`, where `m'` is the normal-map vector sampled at
/// `uv` with its y multiplied by the handedness (tangent-space y is the bitangent, which is
/// `h · cross(n, t)`). Normalised, with w ≥ 0. Returns (quaternion, handedness).
#[must_use]
pub(crate) fn texel_quat(
    frames: &[TangentFrame; 3],
    l: Vec3,
    normal_map: Option<&NormalMap>,
    uv: Vec2,
) -> (Vec4, f32) {
    let (qv, h) = vertex_frame(frames, l);
    let mut q = qv;
    if let Some(map) = normal_map {
        let s = map.sample(uv);
        let m = Vec3::new(s.x, h * s.y, s.z);
        let mm = m.dot(m);
        if mm > 1e-12 {
            q = quat_mul(qv, arc_from_z(m / mm.sqrt()));
        }
    }
    q /= q.dot(q).sqrt();
    if q.w < 0.0 {
        q = -q;
    }
    (q, h)
}

/// The handedness a renderer derives from the UV winding, without a handedness plane: the sign
/// of the triangle's UV area in vertex order, `h = −sign(area2(uv))` (0 counts as +1). Vertex
/// frames have the bitangent along −∂P/∂v (glTF's v runs down the image while a normal map's
/// green runs up), so a triangle whose UVs run counter-clockwise in glTF's (u right, v down)
/// picture of its vertex order has h = +1; a mirrored one −1. The triangle's own orientation
/// (its vertex order) decides, not the shading normal, so folded triangles whose geometry faces
/// against their normals (FlightHelmet has a few) agree with the frames too.
///
/// Mirrors `derived_handedness` in `shaders/lit.wgsl`, which finds the same sign from
/// screen-space UV derivatives and the rasteriser's facing: the UV Jacobian's sign is the UV
/// area's over the screen area's, and the screen area's sign (in vertex order) is what
/// `front_facing` reports.
#[must_use]
#[cfg(test)]
pub(crate) fn winding_handedness(uv: [Vec2; 3]) -> f32 {
    if area2(&uv) <= 0.0 {
        1.0
    } else {
        -1.0
    }
}
