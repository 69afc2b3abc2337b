//! KHR_materials_anisotropy's direction field, made ready for quaternion maps. CPU only.
//!
//! # The extension's direction
//!
//! The anisotropy texture holds, per texel, a direction in tangent space, `d = rg · 2 − 1`
//! (x along the tangent, y along the bitangent), and a strength in `b`. The material turns it by
//! `anisotropyRotation` (radians, counter-clockwise from the tangent towards the bitangent) and
//! scales the strength by `anisotropyStrength`. Without a texture, d = (1, 0) and b = 1.
//!
//! A **zero-length** RG (|d|² < [`MIN_DIRECTION_LEN2`]: only float or 16-bit textures can store
//! it; 8-bit RG has no exact zero) is undefined in the spec. qtangent reads it as d = (1, 0), the
//! direction the extension gives when there is no texture at all: the tangent, turned by the
//! rotation (`shaders/lit.wgsl`: `anisotropy_direction`, and [`direction_of`]).
//!
//! # Why the RG map cannot be filtered, and what the quaternion map does instead
//!
//! The direction is **axial**: d and −d are the same groove (the BRDF depends on (t·h)² and
//! (b·h)² only). A texture is free to store either, and bilinear filtering or a box-filtered mip
//! between a d and a −d neighbour averages towards zero, whose direction is noise — the 2D form
//! of the q / −q problem.
//!
//! The bake resolves it in two steps, the way the hemisphere rule resolves q / −q:
//!
//! 1. **Mips are axial means**: each level's texel is the strength-weighted mean of its children
//!    in the doubled-angle plane (`s·(cos 2φ, sin 2φ)`), where d and −d are the same point; its
//!    strength is the children's mean strength.
//! 2. **Orientation**: every level is given a sign per texel — d or −d — so that neighbours
//!    agree, by a maximum spanning tree over the texel grid (edges weighted by how well the two
//!    axes agree and how strong they are), so the unavoidable seams of fields that cannot be
//!    oriented (half-turn singularities) fall where the field is weak or incoherent. A coarser
//!    level takes the sign closest to the mean of its oriented children, so levels agree too.
//!
//! The field becomes a twist φ = atan2(d.y, d.x) about the normal
//! ([`super::tangent::texel_rotation`]):
//!
//! - in the **tangent-space map** doubled, 2φ ([`DirectionField::axial_twist_levels`]): d and −d
//!   give q and −q, so the orientation does not matter to it and the hemisphere rule is all it
//!   needs; the decoder halves the twist (`qmap_halve_twist` in `shaders/qmap.wgsl`);
//! - in the **object-space map** as it is, turned into each texel's frame ([`turn_raster`]): the
//!   frame's rotation cannot be halved, so there the orientation is what keeps neighbours
//!   together. The quaternion of a twist winds half as fast as the direction, so a field that
//!   turns once round a point (circles, spirals) turns q into −q: one seam ray, which the
//!   hemisphere alignment and the seam-robust sampler handle.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::{Vec2, Vec3};
use image::RgbaImage;

/// Below this |rg · 2 − 1|², the texture's direction is taken as absent: d = (1, 0).
pub(crate) const MIN_DIRECTION_LEN2: f32 = 1e-8;

/// The direction and strength of one texel of the anisotropy texture (0–1 a channel), turned
/// by `rotation` = (cos θ, sin θ) of `anisotropyRotation`: the unit direction in tangent space and
/// the texture's strength `b` (before `anisotropyStrength`). Mirrors `anisotropy_direction` in
/// `shaders/lit.wgsl`.
#[must_use]
pub(crate) fn direction_of(texel: Vec3, rotation: Vec2) -> (Vec2, f32) {
    let mut d = Vec2::new(texel.x, texel.y) * 2.0 - Vec2::ONE;
    let len2 = d.dot(d);
    d = if len2 < MIN_DIRECTION_LEN2 {
        Vec2::X
    } else {
        d * (1.0 / len2.sqrt())
    };
    let turned = Vec2::new(
        rotation.x * d.x - rotation.y * d.y,
        rotation.y * d.x + rotation.x * d.y,
    );
    (turned, texel.z)
}

/// One level of a [`DirectionField`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DirectionLevel {
    /// Width in texels.
    pub(crate) width: u32,
    /// Height in texels.
    pub(crate) height: u32,
    /// Oriented unit directions in tangent space (x tangent, y bitangent), row-major; neighbours
    /// agree in sign except across the field's seams. Zero where the field has no direction
    /// (zero strength, or children that cancel).
    pub(crate) dirs: Vec<Vec2>,
    /// Strength in [0, 1] (the texture's b, or a mean of it).
    pub(crate) strength: Vec<f32>,
}

/// An axial direction field with its mip chain, oriented (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct DirectionField {
    /// Level 0 first, down to 1 × 1.
    pub(crate) levels: Vec<DirectionLevel>,
}

impl DirectionField {
    /// The field of a KHR_materials_anisotropy texture turned by `rotation` radians
    /// (`anisotropyRotation`), per [`direction_of`].
    ///
    /// # Panics
    /// If the image is empty.
    #[must_use]
    pub(crate) fn from_texture(img: &RgbaImage, rotation: f32) -> Self {
        let (s, c) = rotation.sin_cos();
        let (w, h) = img.dimensions();
        assert!(w > 0 && h > 0, "an empty anisotropy texture");
        let (mut axial, mut strength) = (Vec::new(), Vec::new());
        for p in img.pixels() {
            let t = Vec3::new(
                f32::from(p.0[0]) / 255.0,
                f32::from(p.0[1]) / 255.0,
                f32::from(p.0[2]) / 255.0,
            );
            let (d, b) = direction_of(t, Vec2::new(c, s));
            axial.push(d);
            strength.push(b);
        }
        Self::from_axial(w, h, &axial, &strength)
    }

    /// The field from level-0 directions (either sign; zero for none) and strengths: axial mips,
    /// then every level oriented.
    ///
    /// # Panics
    /// If the slices are not `w × h` long.
    #[must_use]
    pub(crate) fn from_axial(w: u32, h: u32, dirs: &[Vec2], strength: &[f32]) -> Self {
        let n = (w as usize) * (h as usize);
        assert!(dirs.len() == n && strength.len() == n, "a {w}×{h} field");
        // Doubled-angle vectors weighted by strength: the axial mean is their mean.
        let doubled = |d: Vec2, s: f32| {
            let d = d.normalize_or_zero();
            Vec2::new(d.x * d.x - d.y * d.y, 2.0 * d.x * d.y) * s.max(0.0)
        };
        let mut levels_doubled: Vec<(u32, u32, Vec<Vec2>, Vec<f32>)> = vec![(
            w,
            h,
            dirs.iter()
                .zip(strength)
                .map(|(&d, &s)| doubled(d, s))
                .collect(),
            strength.iter().map(|s| s.clamp(0.0, 1.0)).collect(),
        )];
        while let Some((pw, ph, pd, ps)) = levels_doubled.last() {
            if *pw == 1 && *ph == 1 {
                break;
            }
            let (cw, ch) = ((pw / 2).max(1), (ph / 2).max(1));
            let (mut d, mut s) = (Vec::new(), Vec::new());
            for y in 0..ch {
                for x in 0..cw {
                    let (mut sum_d, mut sum_s, mut k) = (Vec2::ZERO, 0.0, 0.0);
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (fx, fy) = ((2 * x + dx).min(pw - 1), (2 * y + dy).min(ph - 1));
                        let i = (fy * pw + fx) as usize;
                        sum_d += pd[i];
                        sum_s += ps[i];
                        k += 1.0;
                    }
                    d.push(sum_d / k);
                    s.push(sum_s / k);
                }
            }
            levels_doubled.push((cw, ch, d, s));
        }
        // Back from the doubled angle, then oriented level by level.
        let mut levels: Vec<DirectionLevel> = Vec::new();
        for (lw, lh, d2, s) in levels_doubled {
            let axial: Vec<Vec2> = d2.iter().map(|&v| halve_angle(v)).collect();
            let dirs = match levels.last() {
                None => orient(lw, lh, &axial, &d2),
                Some(parent) => orient_from_finer(parent, lw, lh, &axial),
            };
            levels.push(DirectionLevel {
                width: lw,
                height: lh,
                dirs,
                strength: s,
            });
        }
        Self { levels }
    }

    /// The level to sample for a map level of `w × h` texels: the smallest at least that size,
    /// else level 0.
    #[must_use]
    pub(crate) fn level_for(&self, w: u32, h: u32) -> &DirectionLevel {
        self.levels
            .iter()
            .rev()
            .find(|l| l.width >= w && l.height >= h)
            .unwrap_or(&self.levels[0])
    }

    /// The twist φ = atan2(d.y, d.x) of every texel of the level of size `w × h` (0 where the
    /// field has no direction): the field's own level where one has that size, else
    /// [`DirectionField::level_for`] sampled bilinearly (oriented vectors) at the texel centres
    /// with repeat addressing.
    #[must_use]
    pub(crate) fn twist_level(&self, w: u32, h: u32) -> Vec<f32> {
        let level = self.level_for(w, h);
        if (level.width, level.height) == (w, h) {
            return level.dirs.iter().map(|d| twist_of(*d)).collect();
        }
        let mut out = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let uv = Vec2::new((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
                out.push(twist_of(level.sample(uv)));
            }
        }
        out
    }

    /// The twist of every level of a map whose level sizes are `sizes`.
    #[must_use]
    pub(crate) fn twist_levels(&self, sizes: &[(u32, u32)]) -> Vec<Vec<f32>> {
        sizes.iter().map(|&(w, h)| self.twist_level(w, h)).collect()
    }

    /// [`DirectionField::twist_levels`] doubled: the twist of an **axial** tangent-space map
    /// (`crate::qmap::stored::EncodedMap::axial_twist`), 2φ, the same for d and −d — so the
    /// orientation does not matter to it, and a field that turns once round a point (circles)
    /// gives rotations that turn twice, back to where they started: no seam.
    #[must_use]
    pub(crate) fn axial_twist_levels(&self, sizes: &[(u32, u32)]) -> Vec<Vec<f32>> {
        let mut levels = self.twist_levels(sizes);
        for phi in levels.iter_mut().flatten() {
            *phi *= 2.0;
        }
        levels
    }
}

impl DirectionLevel {
    /// The oriented direction at `uv`, bilinear over the four nearest texel centres with repeat
    /// addressing (not renormalised; zero where they cancel).
    #[must_use]
    pub(crate) fn sample(&self, uv: Vec2) -> Vec2 {
        let (w, h) = (self.width as i64, self.height as i64);
        let st = uv * Vec2::new(w as f32, h as f32) - Vec2::splat(0.5);
        let (x0, y0) = (st.x.floor() as i64, st.y.floor() as i64);
        let f = st - st.floor();
        let at = |x: i64, y: i64| self.dirs[(y.rem_euclid(h) * w + x.rem_euclid(w)) as usize];
        at(x0, y0) * ((1.0 - f.x) * (1.0 - f.y))
            + at(x0 + 1, y0) * (f.x * (1.0 - f.y))
            + at(x0, y0 + 1) * ((1.0 - f.x) * f.y)
            + at(x0 + 1, y0 + 1) * (f.x * f.y)
    }
}

/// The twist of an oriented direction: atan2(d.y, d.x), 0 for none.
#[must_use]
pub(crate) fn twist_of(d: Vec2) -> f32 {
    if d.length_squared() < 1e-12 {
        0.0
    } else {
        d.y.atan2(d.x)
    }
}

/// The unit axis of a doubled-angle vector (either sign), zero for (nearly) zero.
fn halve_angle(v: Vec2) -> Vec2 {
    let len = v.length();
    if len < 1e-6 {
        return Vec2::ZERO;
    }
    let a = 0.5 * v.y.atan2(v.x);
    Vec2::new(a.cos(), a.sin())
}

/// An edge of the orientation tree, ordered by weight (a max-heap).
#[derive(PartialEq)]
struct Edge(f32, usize, usize);

impl Eq for Edge {}

impl PartialOrd for Edge {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Edge {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Signs for `axial` (w × h) so that neighbours agree: Prim's maximum spanning tree over the
/// 4-neighbour grid, edge weight = |d_a · d_b| × the smaller doubled-angle magnitude (coherent
/// strength), each texel taking the sign that agrees with the texel that reached it.
fn orient(w: u32, h: u32, axial: &[Vec2], doubled: &[Vec2]) -> Vec<Vec2> {
    let (w, h) = (w as usize, h as usize);
    let n = w * h;
    let mut out = axial.to_vec();
    let mut done = vec![false; n];
    let weight = |a: usize, b: usize| {
        axial[a].dot(axial[b]).abs() * doubled[a].length().min(doubled[b].length())
    };
    let mut heap = BinaryHeap::new();
    for start in 0..n {
        if done[start] {
            continue;
        }
        done[start] = true;
        let push = |heap: &mut BinaryHeap<Edge>, k: usize| {
            heap.extend(super::post::neighbours4(k, w, h).map(|m| Edge(weight(k, m), k, m)));
        };
        push(&mut heap, start);
        while let Some(Edge(_, from, to)) = heap.pop() {
            if done[to] {
                continue;
            }
            done[to] = true;
            if out[to].dot(out[from]) < 0.0 {
                out[to] = -out[to];
            }
            push(&mut heap, to);
        }
    }
    out
}

/// Signs for a coarser level: each texel agrees with the mean of its oriented children in
/// `finer`; where they cancel (a singularity), with its decided 4-neighbours.
fn orient_from_finer(finer: &DirectionLevel, w: u32, h: u32, axial: &[Vec2]) -> Vec<Vec2> {
    let mut out = axial.to_vec();
    let mut undecided = false;
    let mut decided = vec![true; out.len()];
    for y in 0..h {
        for x in 0..w {
            let mut mean = Vec2::ZERO;
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (fx, fy) = (
                    (2 * x + dx).min(finer.width - 1),
                    (2 * y + dy).min(finer.height - 1),
                );
                let i = (fy * finer.width + fx) as usize;
                mean += finer.dirs[i] * finer.strength[i].max(1e-3);
            }
            let i = (y * w + x) as usize;
            let agree = out[i].dot(mean);
            if agree.abs() < 1e-4 * mean.length().max(1e-12) || mean.length_squared() < 1e-12 {
                decided[i] = false;
                undecided = true;
            } else if agree < 0.0 {
                out[i] = -out[i];
            }
        }
    }
    if undecided {
        // Texels whose children cancel (a singularity) follow their decided neighbours.
        let (wi, hi) = (w as i64, h as i64);
        for y in 0..hi {
            for x in 0..wi {
                let i = (y * wi + x) as usize;
                if decided[i] {
                    continue;
                }
                let mut sum = Vec2::ZERO;
                for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let (nx, ny) = (x + dx, y + dy);
                    if (0..wi).contains(&nx) && (0..hi).contains(&ny) {
                        let k = (ny * wi + nx) as usize;
                        if decided[k] {
                            sum += out[k];
                        }
                    }
                }
                if out[i].dot(sum) < 0.0 {
                    out[i] = -out[i];
                }
            }
        }
    }
    out
}

/// Turns every non-background texel of an object-space raster so that its tangent runs along
/// the field: `q ⊗ rot_z(h·φ)`, φ the field's twist at the texel's UV (`source_uvs[k]` where the
/// map has a layout of its own, else the texel centre) and h its handedness — the direction is
/// (cos φ, sin φ) in (t, b) with b = h·cross(n, t), so h·φ in the quaternion's own basis
/// [t, cross(n, t), n]. Texels where the field has no direction keep their tangent. The result
/// is quantised to the raster's format again.
pub(crate) fn turn_raster(
    raster: &mut super::Raster,
    field: &DirectionField,
    source_uvs: Option<&[Option<Vec2>]>,
) {
    let (w, h) = (raster.width, raster.height);
    let level = field.level_for(w, h);
    for k in 0..raster.quats.len() {
        if raster.kind[k] == super::TexelKind::Background {
            continue;
        }
        let uv = match source_uvs {
            Some(uvs) => match uvs.get(k).copied().flatten() {
                Some(uv) => uv,
                None => continue,
            },
            None => {
                let (x, y) = (k as u32 % w, k as u32 / w);
                Vec2::new((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32)
            }
        };
        let d = level.sample(uv);
        if d.length_squared() < 1e-12 {
            continue;
        }
        let phi = f32::from(raster.handedness[k]).signum() * twist_of(d);
        let (s, c) = (0.5 * phi).sin_cos();
        let mut q = super::texel::quat_mul(raster.quats[k], glam::Vec4::new(0.0, 0.0, s, c));
        q /= q.length();
        raster.quats[k] = raster.format.quantize(q);
    }
}
