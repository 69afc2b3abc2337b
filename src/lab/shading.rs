//! The BRDF of `shaders/lit.wgsl`, in f32 and in the same order of operations: the CPU
//! reference the render tests compare the GPU's radiance with.
//!
//! glTF 2.0 metallic-roughness (appendix B): `c_diff = base · (1 − metallic)`,
//! `f0 = mix(0.04, base, metallic)`, Schlick's Fresnel, Lambert diffuse weighted by `1 − F`, and
//! GGX specular with the height-correlated Smith visibility. The GGX lobe is the anisotropic one
//! (Burley 2012; Filament's `D_GGX_Anisotropic` / `V_SmithGGXCorrelated_Anisotropic`), with
//! KHR_materials_anisotropy's roughnesses `α_t = mix(α, 1, s²)`, `α_b = α` for strength `s`; at
//! `s = 0` it is the isotropic lobe exactly. The ambient term is a sky/ground hemisphere: its
//! irradiance for the diffuse part, its radiance in the mirror direction times Karis' analytic
//! environment-BRDF fit for the specular part.
//!
//! Besides, the map decoder's twist halving ([`halve_twist`], `qmap_halve_twist` in
//! `shaders/qmap.wgsl`), which the map tables and tests apply to decoded texels.

use glam::{Vec2, Vec3, Vec4};

use crate::qmap::texel::quat_mul;

#[cfg(test)]
use crate::render::MaterialUniforms;
use crate::render::SceneUniforms;

/// π in f32.
pub(crate) const PI: f32 = std::f32::consts::PI;

/// Smallest perceptual roughness used: below it α⁴ underflows the GGX denominator's precision
/// in f32 (Filament's floor for f32 shading).
pub(crate) const MIN_ROUGHNESS: f32 = 0.045;

/// Smallest n·v used: grazing views would divide by ~0 in the visibility term.
pub(crate) const MIN_N_DOT_V: f32 = 1e-4;

/// What the shading of one point needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Surface {
    /// World position.
    pub(crate) position: Vec3,
    /// Unit shading normal (after the normal map).
    pub(crate) normal: Vec3,
    /// Unit tangent perpendicular to `normal`: the direction along which anisotropic
    /// materials are rougher.
    pub(crate) tangent: Vec3,
    /// Linear base colour.
    pub(crate) base_color: Vec3,
    /// Metallic in [0, 1].
    pub(crate) metallic: f32,
    /// Perceptual roughness in [0, 1].
    pub(crate) roughness: f32,
    /// Anisotropy strength in [0, 1].
    pub(crate) anisotropy: f32,
}

impl Surface {
    /// A surface with a material's constant factors (no textures).
    #[must_use]
    #[cfg(test)]
    pub(crate) fn with_material(
        position: Vec3,
        normal: Vec3,
        tangent: Vec3,
        material: &MaterialUniforms,
        anisotropy_override: f32,
    ) -> Self {
        Self {
            position,
            normal,
            tangent,
            base_color: material.base_color.truncate(),
            metallic: material.metallic,
            roughness: material.roughness,
            anisotropy: if anisotropy_override >= 0.0 {
                anisotropy_override
            } else {
                material.anisotropy
            },
        }
    }
}

#[cfg(test)]
pub(crate) use crate::qmap::anisotropy::direction_of as anisotropy_direction;

/// A unit vector perpendicular to unit `n`, for a tangent that vanished (`perpendicular` in WGSL).
#[must_use]
#[cfg(test)]
pub(crate) fn perpendicular(n: Vec3) -> Vec3 {
    let a = if n.x.abs() > 0.9 { Vec3::Y } else { Vec3::X };
    a.cross(n).normalize()
}

/// `t` made perpendicular to unit `n` and unit by Gram–Schmidt, [`perpendicular`] when it is
/// (nearly) parallel to `n` (`orthonormal_tangent` in WGSL).
#[must_use]
#[cfg(test)]
pub(crate) fn orthonormal_tangent(n: Vec3, t: Vec3) -> Vec3 {
    let p = t - n * n.dot(t);
    let len2 = p.dot(p);
    if len2 < 1e-12 {
        return perpendicular(n);
    }
    p * (1.0 / len2.sqrt())
}

/// The normal map's perturbation of an interpolated frame (`n` unit, `t` unit and ⟂ `n`, `h` =
/// ±1): `m` is the sampled texel (0 to 1 a channel), `scale` glTF's `normalTexture.scale`
/// (`normal_mapped` in WGSL).
#[must_use]
#[cfg(test)]
pub(crate) fn normal_mapped(n: Vec3, t: Vec3, h: f32, m: Vec3, scale: f32) -> Vec3 {
    let v = m * 2.0 - Vec3::ONE;
    let b = n.cross(t) * h;
    (t * (v.x * scale) + b * (v.y * scale) + n * v.z).normalize()
}

fn pow5(x: f32) -> f32 {
    let x2 = x * x;
    x2 * x2 * x
}

/// Anisotropic GGX normal distribution (`d_ggx_aniso` in WGSL).
#[must_use]
pub(crate) fn d_ggx_aniso(nh: f32, th: f32, bh: f32, at: f32, ab: f32) -> f32 {
    let a2 = at * ab;
    let v = Vec3::new(ab * th, at * bh, a2 * nh);
    let v2 = v.dot(v);
    let w2 = a2 / v2;
    a2 * w2 * w2 * (1.0 / PI)
}

/// Height-correlated anisotropic Smith visibility, `G / (4 n·v n·l)`, for roughness `(αt, αb)`
/// and the view and light directions in the shading frame, `(t·v, b·v, n·v)` and
/// `(t·l, b·l, n·l)` (`v_smith_aniso(at, ab, tv, bv, tl, bl, nv, nl)` in WGSL).
#[must_use]
pub(crate) fn v_smith_aniso(alpha: Vec2, view: Vec3, light: Vec3) -> f32 {
    let lambda_v = light.z * (view * alpha.extend(1.0)).length();
    let lambda_l = view.z * (light * alpha.extend(1.0)).length();
    0.5 / (lambda_v + lambda_l)
}

/// Reflected radiance towards `v` from light arriving along `l` with radiance `light`
/// (`brdf_light` in WGSL). Zero when the light is behind the surface.
#[must_use]
pub(crate) fn brdf_light(s: &Surface, v: Vec3, l: Vec3, light: Vec3) -> Vec3 {
    let nl = s.normal.dot(l);
    if nl <= 0.0 {
        return Vec3::ZERO;
    }
    let nv = s.normal.dot(v).max(MIN_N_DOT_V);
    let h = (v + l).normalize();
    let nh = s.normal.dot(h).max(0.0);
    let vh = v.dot(h).max(0.0);
    let b = s.normal.cross(s.tangent);
    let r = s.roughness.clamp(MIN_ROUGHNESS, 1.0);
    let alpha = r * r;
    let at = alpha + (1.0 - alpha) * (s.anisotropy * s.anisotropy);
    let ab = alpha;
    let d = d_ggx_aniso(nh, s.tangent.dot(h), b.dot(h), at, ab);
    let vis = v_smith_aniso(
        Vec2::new(at, ab),
        Vec3::new(s.tangent.dot(v), b.dot(v), nv),
        Vec3::new(s.tangent.dot(l), b.dot(l), nl),
    );
    let f0 = Vec3::splat(0.04) + (s.base_color - Vec3::splat(0.04)) * s.metallic;
    let f = f0 + (Vec3::ONE - f0) * pow5(1.0 - vh);
    let c_diff = s.base_color * (1.0 - s.metallic);
    let diffuse = (Vec3::ONE - f) * c_diff * (1.0 / PI);
    let specular = f * (d * vis);
    (diffuse + specular) * light * nl
}

/// The hemisphere ambient's radiance from direction `d` (`hemisphere` in WGSL).
#[must_use]
pub(crate) fn hemisphere(scene: &SceneUniforms, d: Vec3) -> Vec3 {
    let k = 0.5 + 0.5 * d.y;
    scene.ground.truncate() + (scene.sky.truncate() - scene.ground.truncate()) * k
}

/// Karis' analytic fit of the split-sum environment BRDF: returns (scale, bias) for
/// `f0 · scale + bias` (`env_brdf` in WGSL).
#[must_use]
pub(crate) fn env_brdf(roughness: f32, nv: f32) -> (f32, f32) {
    let c0 = [-1.0f32, -0.0275, -0.572, 0.022];
    let c1 = [1.0f32, 0.0425, 1.04, -0.04];
    let r = [
        roughness * c0[0] + c1[0],
        roughness * c0[1] + c1[1],
        roughness * c0[2] + c1[2],
        roughness * c0[3] + c1[3],
    ];
    let a004 = (r[0] * r[0]).min((-9.28 * nv).exp2()) * r[0] + r[1];
    (-1.04 * a004 + r[2], 1.04 * a004 + r[3])
}

/// Linear radiance leaving `s` towards the camera: every light plus the ambient term
/// (`shade` in WGSL).
#[must_use]
pub(crate) fn shade(s: &Surface, scene: &SceneUniforms) -> Vec3 {
    let v = (scene.camera_position.truncate() - s.position).normalize();
    let mut color = Vec3::ZERO;
    for light in scene.lights.iter().take(scene.light_count as usize) {
        let (l, radiance) = if light.position.w == 0.0 {
            (light.position.truncate(), light.color.truncate())
        } else {
            let d = light.position.truncate() - s.position;
            let dist2 = d.dot(d);
            (
                d * (1.0 / dist2.sqrt()),
                light.color.truncate() * (1.0 / dist2.max(1e-4)),
            )
        };
        color += brdf_light(s, v, l, radiance);
    }
    let nv = s.normal.dot(v).max(MIN_N_DOT_V);
    let r = s.normal * (2.0 * s.normal.dot(v)) - v;
    let f0 = Vec3::splat(0.04) + (s.base_color - Vec3::splat(0.04)) * s.metallic;
    let c_diff = s.base_color * (1.0 - s.metallic);
    let (scale, bias) = env_brdf(s.roughness.clamp(MIN_ROUGHNESS, 1.0), nv);
    color += c_diff * hemisphere(scene, s.normal)
        + hemisphere(scene, r) * (f0 * scale + Vec3::splat(bias));
    color
}

/// The tone curve of `shaders/lit.wgsl` (Narkowicz's ACES fit, clamped to [0, 1]) applied to
/// `exposure · radiance`; the render target's sRGB encoding follows.
#[must_use]
pub(crate) fn tonemap(radiance: Vec3, exposure: f32) -> Vec3 {
    let x = radiance * exposure;
    let num = x * (x * 2.51 + Vec3::splat(0.03));
    let den = x * (x * 2.43 + Vec3::splat(0.59)) + Vec3::splat(0.14);
    (num / den).clamp(Vec3::ZERO, Vec3::ONE)
}

/// The rotation of an **axial** tangent-space map's texel (one whose twist is stored doubled,
/// `EncodedMap::axial_twist`): `r = swing ⊗ rot_z(2φ)` becomes
/// `swing ⊗ rot_z(φ)`. The twist about z is split off (swing–twist: for a swing with zero z,
/// r's (z, w) is the twist's times the swing's w > 0), halved (`normalize(t + 1)`) and put back.
/// r and −r give φ and φ + π: the same groove, so the hemisphere rule needs nothing more; a
/// twist of exactly 2π (t = −1) halves to the identity, which is φ = π axially. `r` need not be
/// unit. Mirrors `qmap_halve_twist` in `shaders/qmap.wgsl`.
#[must_use]
pub(crate) fn halve_twist(r: Vec4) -> Vec4 {
    let tl2 = r.z * r.z + r.w * r.w;
    if tl2 < 1e-24 {
        return r;
    }
    let t = Vec4::new(0.0, 0.0, r.z, r.w) * (1.0 / tl2.sqrt());
    let swing = quat_mul(r, Vec4::new(0.0, 0.0, -t.z, t.w));
    let h = t + Vec4::W;
    let hl2 = h.dot(h);
    let half = if hl2 < 1e-24 {
        Vec4::W
    } else {
        h * (1.0 / hl2.sqrt())
    };
    quat_mul(swing, half)
}
