//! Tangent-space quaternion maps: per texel the rotation r that turns the interpolated vertex
//! frame into the texel's frame, `frame = vertex frame ⊗ r`. CPU reference; the GPU baker
//! (`shaders/bake_tangent.wgsl`, [`crate::gpu::bake_tangent`]) mirrors [`texel_rotation`]
//! operation for operation.
//!
//! # The rotation
//!
//! r acts in glTF's tangent-space basis (x = tangent, y = bitangent, z = normal), the basis a
//! normal map's texels are written in:
//!
//! - **Normal-map content**: r is the shortest arc from +Z to the mapped normal m, so
//!   `r·Z = m` and the decoded normal is normal mapping's `t·mx + b·my + n·mz`. Its z is 0.
//! - **A twist** φ about the normal (a tangent field, e.g. brushed or spun metal) is applied
//!   after the tilt: `r = arc(Z → m) ⊗ rot_z(φ)`. The normal is unchanged; the tangent turns.
//! - **Hemisphere**: r is baked with w ≥ 0. For normal-map content w = cos(θ/2) for a tilt θ, so
//!   w ≥ cos 45° ≈ 0.707 for every normal of the upper hemisphere, and neighbouring texels never
//!   disagree: no hemisphere problem, and w can be rebuilt (BC5). A twist beyond ±90° brings w
//!   near 0, where neighbours can disagree; a twisted map is hemisphere-aligned after the bake (the object-space maps'
//!   flood fill, [`super::post::choose_hemispheres`]) and stored with four channels, and a
//!   field that winds (the spun plate winds once about its centre) keeps one seam ray where r
//!   turns into −r, which the seam-robust sampler repairs.
//! - **Handedness** is not in the map: it comes from the vertex. The map's y axis is the
//!   bitangent b = h·cross(n, t); in the right-handed basis [t, cross(n, t), n] the decoder
//!   uses r' = (h·x, y, h·z, w) — the rotation conjugated by the reflection y → −y. So one
//!   texel serves mirrored and unmirrored triangles alike, and overlapping, mirrored and tiling
//!   UVs need no repack.
//!
//! # Rebuilding w (the three-component idea of "Quaternion Tricks")
//!
//! With w ≥ 0, w = √(1 − x² − y² − z²) is rebuilt from x, y, z, so normal-map content needs only
//! (x, y) — two channels, BC5. The rebuild is well conditioned near the identity: an error ε in
//! (x, y) moves w by ε·tan(θ/2) and turns the normal by at most 2ε/cos(θ/2)·… ≈ 2ε at small tilts
//! and 2√2·ε at θ = 90° (a normal on the horizon). Beyond 90° (normals below the surface, which
//! no normal map stores) the error grows as 1/cos(θ/2) and diverges at θ = 180°, where w = 0 and
//! the arc's axis is undefined. A BC5 normal map, which rebuilds z = √(1 − x² − y²), is
//! conditioned as 1/cos θ instead: it diverges at the horizon.

use glam::{Vec3, Vec4};

use super::normal_map::NormalMap;
use super::texel::{arc_from_z, quat_mul};
use super::{MapFormat, MapLevel, MapStats, QuatMap, TexelKind};

/// A tangent-space map's twist φ (radians) about the normal, per level and texel (row-major), as
/// `super::anisotropy::DirectionField::twist_levels` makes them from a KHR_materials_anisotropy
/// texture: the tangent fields no normal map can say. A missing entry is 0.
#[derive(Clone, Copy)]
pub(crate) struct TwistField<'a>(pub(crate) &'a [Vec<f32>]);

impl TwistField<'_> {
    /// φ at texel `i` of level `level`.
    #[must_use]
    pub(crate) fn at(&self, level: usize, i: usize) -> f32 {
        self.0
            .get(level)
            .and_then(|l| l.get(i))
            .copied()
            .unwrap_or(0.0)
    }
}

/// The tangent-space rotation of one texel: `arc(Z → normalize(m)) ⊗ rot_z(phi)`, normalised,
/// with w ≥ 0. `m` is the normal-map vector as unpacked (need not be unit; (nearly) zero gives
/// the identity tilt). Mirrors `texel_rotation` in `shaders/bake_tangent.wgsl`.
#[must_use]
pub(crate) fn texel_rotation(m: Vec3, phi: f32) -> Vec4 {
    let mm = m.dot(m);
    let mut r = if mm > 1e-12 {
        arc_from_z(m / mm.sqrt())
    } else {
        Vec4::W
    };
    if phi != 0.0 {
        let (s, c) = (0.5 * phi).sin_cos();
        r = quat_mul(r, Vec4::new(0.0, 0.0, s, c));
    }
    r /= r.dot(r).sqrt();
    if r.w < 0.0 {
        r = -r;
    }
    r
}

/// The rotation a decoder applies for handedness `h` (±1) in the basis [t, cross(n, t), n]:
/// (h·x, y, h·z, w), r conjugated by the reflection of y when h = −1.
#[must_use]
#[cfg(test)]
pub(crate) fn for_handedness(r: Vec4, h: f32) -> Vec4 {
    Vec4::new(h * r.x, r.y, h * r.z, r.w)
}

/// Rebuilds w ≥ 0 from (x, y, z): `√max(0, 1 − x² − y² − z²)`. Exact for unit r with w ≥ 0.
#[must_use]
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
pub(crate) fn rebuild_w(x: f32, y: f32, z: f32) -> Vec4 {
    Vec4::new(x, y, z, (1.0 - x * x - y * y - z * z).max(0.0).sqrt())
}

/// The frame a tangent-space rotation gives on a vertex frame (n, t unit and perpendicular,
/// handedness h): returns (normal, tangent). `normal = t·m.x + c·m.y + n·m.z` with
/// `m = r'·Z`, `c = cross(n, t)`; the tangent likewise from `r'·X`. For normal-map content the
/// normal equals `normalize(t·mx + b·my + n·mz)` (b = h·c) exactly in exact arithmetic.
#[must_use]
#[cfg(test)]
pub(crate) fn apply(n: Vec3, t: Vec3, h: f32, r: Vec4) -> (Vec3, Vec3) {
    // A rotation of length 0 (or NaN) leaves the frame as it is (shaders/qmap.wgsl does the same).
    let len2 = r.length_squared();
    if len2.is_nan() || len2 < 1e-24 {
        return (n, t);
    }
    let r = for_handedness(r, h);
    let m = glam::Mat3::from_quat(glam::Quat::from_vec4(r).normalize());
    let c = n.cross(t);
    let z = m.z_axis;
    let x = m.x_axis;
    (t * z.x + c * z.y + n * z.z, t * x.x + c * x.y + n * x.z)
}

/// Bakes a tangent-space map from a normal map's mip chain (`levels[0]` full size, each next
/// level half the size, rounded down, at least 1) and an optional twist field: level k's
/// texels are [`texel_rotation`] of level k's normal-map texels, quantised to `format`. Every
/// texel is covered (a normal map has no background); handedness planes are +1 (unused).
///
/// # Panics
/// If `levels` is empty.
#[must_use]
pub(crate) fn bake_cpu(
    levels: &[NormalMap],
    twist: Option<TwistField<'_>>,
    format: MapFormat,
) -> QuatMap {
    let out: Vec<MapLevel> = levels
        .iter()
        .enumerate()
        .map(|(level, nm)| {
            let (w, h) = (nm.width, nm.height);
            let texel = |i: usize, m: Vec3| {
                let phi = twist.map_or(0.0, |f| f.at(level, i));
                format.quantize(texel_rotation(m, phi))
            };
            // Every core takes a band of texels: they are independent.
            let mut quats = vec![Vec4::ZERO; nm.texels.len()];
            let threads = std::thread::available_parallelism().map_or(1, usize::from);
            let band = nm.texels.len().div_ceil(threads).max(1);
            std::thread::scope(|scope| {
                for (k, chunk) in quats.chunks_mut(band).enumerate() {
                    let texel = &texel;
                    let texels = &nm.texels;
                    scope.spawn(move || {
                        for (j, q) in chunk.iter_mut().enumerate() {
                            let i = k * band + j;
                            *q = texel(i, texels[i]);
                        }
                    });
                }
            });
            MapLevel {
                width: w,
                height: h,
                quats,
                handedness: vec![1; (w * h) as usize],
            }
        })
        .collect();
    finish(out, twist.is_some(), format)
}

/// A tangent-space map from its baked levels: hemispheres aligned when it has a `twist` (see
/// the module docs), every texel covered, the statistics of level 0. What both bakers end with.
///
/// # Panics
/// If `levels` is empty.
#[must_use]
pub(crate) fn finish(mut levels: Vec<MapLevel>, twist: bool, format: MapFormat) -> QuatMap {
    if twist {
        align(&mut levels);
    }
    let (w, h) = (levels[0].width, levels[0].height);
    let n = (w * h) as usize;
    let (neighbour_pairs, hemisphere_conflicts) =
        super::post::count_conflicts(w, h, &levels[0].quats, |_| true);
    QuatMap {
        format,
        kind: vec![TexelKind::Covered; n],
        triangle: vec![u32::MAX; n],
        stats: MapStats {
            width: w,
            height: h,
            covered: n,
            neighbour_pairs,
            hemisphere_conflicts,
            covered_pairs: neighbour_pairs,
            covered_conflicts: hemisphere_conflicts,
            ..MapStats::default()
        },
        levels,
    }
}

/// Aligns the hemispheres of every level (the flood fill of [`super::post::choose_hemispheres`]
/// over all texels): what a twisted map needs before four-channel filtering.
pub(crate) fn align(levels: &mut [MapLevel]) {
    for l in levels {
        let all = vec![true; l.quats.len()];
        super::post::choose_hemispheres(l.width, l.height, &mut l.quats, &all);
    }
}

/// A rotation as swing ⊗ twist: the twist t = normalize(r.z, r.w) about z and the swing
/// s = r ⊗ conj(t), whose z is 0 and w ≥ 0 (the shortest arc from +Z to the normal, what a
/// normal map says). Returns ((s.x, s.y), (t.z, t.w)): the two layers of
/// [`MapFormat::Bc5Pair`](super::MapFormat::Bc5Pair). A rotation whose (z, w) is 0 (a 180° tilt)
/// has twist (0, 1). −r gives the same swing and −t.
#[must_use]
pub(crate) fn swing_twist(r: Vec4) -> ([f32; 2], [f32; 2]) {
    let tl2 = r.z * r.z + r.w * r.w;
    let t = if tl2 < 1e-24 {
        Vec4::W
    } else {
        Vec4::new(0.0, 0.0, r.z, r.w) * (1.0 / tl2.sqrt())
    };
    let s = quat_mul(r, Vec4::new(0.0, 0.0, -t.z, t.w));
    ([s.x, s.y], [t.z, t.w])
}

/// The rotation of a swing's (x, y) and a twist's (z, w) ([`swing_twist`]): the swing's w
/// rebuilt, then swing ⊗ twist (unnormalised when the twist is). Mirrors the
/// `MAP_DECODE_BC5_PAIR` case of `qmap_decode_sample` in `shaders/qmap.wgsl`.
#[must_use]
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
pub(crate) fn join_swing_twist(swing: [f32; 2], twist: [f32; 2]) -> Vec4 {
    let s = rebuild_w(swing[0], swing[1], 0.0);
    quat_mul(s, Vec4::new(0.0, 0.0, twist[0], twist[1]))
}

/// A tangent-space rotation as its normal and its twist: ((n.x, n.y), (t.z, t.w)) with
/// n = r·Z and t the twist of [`swing_twist`] — the two layers of a tangent-space
/// [`MapFormat::Bc5Pair`](super::MapFormat::Bc5Pair) map, the first exactly what a BC5 normal
/// map holds. A tangent-space normal map's normal has n.z ≥ 0 (blue ≥ ½), so
/// (x, y) alone determines it (a normal tilted past the horizon does not fit: the bake stores
/// such a map as BC7, `tilts_past_horizon`); it holds the tilt θ as sin θ where the swing's
/// (x, y) holds sin(θ/2): for small tilts twice the resolution in the same 8-bit texel, equal
/// near 65°, coarser beyond (the step in θ grows as 1/cos θ against 2/cos(θ/2)).
#[must_use]
pub(crate) fn normal_twist(r: Vec4) -> ([f32; 2], [f32; 2]) {
    let (s, t) = swing_twist(r);
    // The swing (s.x, s.y, 0, w ≥ 0) turns +Z to n = (2·w·s.y, −2·w·s.x, 1 − 2(s.x² + s.y²)).
    let w = (1.0 - s[0] * s[0] - s[1] * s[1]).max(0.0).sqrt();
    ([2.0 * w * s[1], -2.0 * w * s[0]], t)
}

/// The rotation of a normal's (x, y) and a twist's (z, w) ([`normal_twist`]): n.z ≥ 0 rebuilt,
/// the swing the shortest arc from +Z to n, `normalize(−n.y, n.x, 0, 1 + n.z)`, then
/// swing ⊗ twist (unnormalised when the twist is). Mirrors the `MAP_DECODE_BC5_NORMAL_TWIST`
/// case of `qmap_decode_sample` in `shaders/qmap.wgsl`.
#[must_use]
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
pub(crate) fn join_normal_twist(normal: [f32; 2], twist: [f32; 2]) -> Vec4 {
    let [x, y] = normal;
    let z = (1.0 - x * x - y * y).max(0.0).sqrt();
    let s = Vec4::new(-y, x, 0.0, 1.0 + z).normalize_or(Vec4::W);
    quat_mul(s, Vec4::new(0.0, 0.0, twist[0], twist[1]))
}

/// Texels (all levels) of a tangent-space map whose normal r·Z is tilted past the horizon
/// (n.z = 1 − 2(x² + y²) < 0): what a normal map with blue below ½ says, and what the first
/// layer of a tangent-space `bc5x2` map (the normal's (x, y), z ≥ 0 rebuilt) cannot hold.
#[must_use]
pub(crate) fn tilts_past_horizon(map: &QuatMap) -> usize {
    // Unit quaternions: n.z < 0 ⇔ x² + y² > ½ (in proportion to |q|² for unnormalised ones).
    map.levels
        .iter()
        .flat_map(|l| &l.quats)
        .filter(|q| q.x * q.x + q.y * q.y > 0.5 * q.length_squared())
        .count()
}

/// Whether a tangent-space map has tilt content (x or y ≠ 0 somewhere: a normal map's): a map
/// with a twist *and* a tilt needs four channels; one with either alone fits two (BC5 of (x, y)
/// with w rebuilt, or of (z, w) with x = y = 0).
#[must_use]
pub(crate) fn has_tilt(map: &QuatMap) -> bool {
    // As has_twist: one step of snorm8 is far above f32 noise; a pure twist has x = y = 0 exactly.
    map.levels.iter().any(|l| {
        l.quats
            .iter()
            .any(|q| q.x.abs().max(q.y.abs()) > 0.5 / 127.0)
    })
}

/// Whether a tangent-space map has twist content (z ≠ 0 somewhere): such a map cannot be stored
/// as (x, y) alone (BC5).
#[must_use]
pub(crate) fn has_twist(map: &QuatMap) -> bool {
    // One step of the coarsest format (snorm8: 1/127) is far above f32 noise in z, which pure
    // normal-map content makes exactly 0 (arc_from_z writes z = 0).
    map.levels
        .iter()
        .any(|l| l.quats.iter().any(|q| q.z.abs() > 0.5 / 127.0))
}
