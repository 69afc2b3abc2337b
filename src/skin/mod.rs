//! Skinning with quaternion bones, CPU side (no wgpu): bones, the packed vertex layout the GPU
//! kernel reads. (The f64 reference the kernel is tested against is lab equipment:
//! `lab::skin_reference`.)
//!
//! A **bone** is a similarity transform `p ↦ s·R(q)·p + t` stored as a unit quaternion, a
//! translation and a uniform scale (32 bytes, [`Bone`]). glTF gives skin matrices
//! `placement · joint_world · inverse_bind`; [`Bone::from_mat4`] decomposes them and rejects
//! shear or non-uniform scale, which neither method below can represent.
//!
//! Two methods ([`SkinMethod`]), both weights renormalised (`wᵢ / Σw`):
//!
//! - **Linear blend (LBS)**: `A = Σ wᵢ sᵢ R(qᵢ)`, `p' = A·p + Σ wᵢ tᵢ`. The frame is rotated by
//!   the rotation of `A`: its polar factor, the rotation nearest to `A` (Frobenius norm). Where
//!   the bones agree that is their common rotation; where they disagree, `A` is no longer a
//!   rotation (it shrinks: the candy wrapper) and "transform n by the cofactor of A and t by A"
//!   (what engines with f32 normal + tangent do) gives a normal and tangent that are no longer
//!   perpendicular — the lab's `lbs_vector_frame_error` measures how far apart the two answers are. A
//!   quaternion frame must stay a rotation, so the polar factor is the choice: it is the
//!   rotation that best fits the deformation, and it keeps the frame orthonormal by
//!   construction.
//! - **Dual quaternion (DQS)**: each bone as a unit dual quaternion `q + ε·½(t,0)·q`; the blend
//!   `Σ wᵢ σᵢ (qᵢ + ε dᵢ)` with `σᵢ = sign(qᵢ·q₀)` — antipodality decided against the **first**
//!   influence, so the blend never takes the long way round — normalised by its real part's
//!   length. Uniform scales blend linearly and apply before the rigid part:
//!   `p' = DQ(s̄·p)`, exact for one influence. The frame is rotated by the blended real part.
//!
//! The frame of a vertex is its [`QTangent`]: the output quaternion is `r · q` with the
//! reflection (the sign of w) carried over unchanged, so mirrored UVs survive skinning
//! (ozz-animation issue #164 is what happens when they do not).

use glam::{Mat4, Quat, Vec3};

use crate::format::decode_snorm16x4;
use crate::frame::QTangent;
use crate::Format;

mod rig;

pub use rig::Rig;

/// Bones in one palette at most: joint indices are stored as one byte.
pub const MAX_JOINTS: usize = 256;

/// Influences per vertex at most (glTF `JOINTS_0/1`, `WEIGHTS_0/1`).
pub(crate) const MAX_INFLUENCES: usize = 8;

/// Words (u32) of the packed vertex before the qtangent: the position (3 × f32).
#[cfg(any(test, feature = "gpu"))]
const POSITION_WORDS: usize = 3;

/// Words of a skinned output vertex: position (3 × f32) and the qtangent (Snorm16x4): 20 bytes,
/// drawn directly as a vertex buffer.
#[cfg(feature = "gpu")]
pub(crate) const OUTPUT_WORDS: usize = 5;

/// Linear-blend or dual-quaternion skinning, chosen per batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum SkinMethod {
    /// Linear blend of matrices built from the quaternion bones; frames by the polar rotation.
    Linear,
    /// Dual-quaternion blend; frames by the blended real part.
    DualQuaternion,
}

crate::names::named!(SkinMethod, "skinning method", { Linear => "lbs", DualQuaternion => "dqs" });

impl SkinMethod {
    /// The WGSL code (the `SKIN_METHOD` override of `shaders/skin.wgsl`): the position in
    /// [`SkinMethod::ALL`].
    #[must_use]
    #[cfg(feature = "pipeline")]
    pub(crate) const fn code(self) -> u32 {
        self as u32
    }
}

/// Influences per vertex a batch is packed with: 4 (one word of joints and one of weights) or
/// 8 (two of each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Influences {
    /// Up to 4 (`JOINTS_0` only): 28 bytes a vertex.
    Four,
    /// Up to 8 (`JOINTS_0` and `JOINTS_1`): 36 bytes a vertex.
    Eight,
}

impl Influences {
    /// 4 or 8.
    #[must_use]
    pub const fn count(self) -> usize {
        match self {
            Influences::Four => 4,
            Influences::Eight => 8,
        }
    }

    /// Words of one packed input vertex whose qtangent is in `format`: the position, the
    /// qtangent's bytes rounded up to whole words, and the joints and weights.
    #[must_use]
    #[cfg(any(test, feature = "gpu"))]
    pub(crate) const fn words(self, format: Format) -> usize {
        POSITION_WORDS + format.bytes().div_ceil(4) + self.count() / 2
    }

    /// The smallest that holds `n` influences.
    #[must_use]
    pub const fn for_count(n: usize) -> Self {
        if n <= 4 {
            Influences::Four
        } else {
            Influences::Eight
        }
    }
}

/// What can be wrong with skinning input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SkinError {
    /// A skin matrix is not a rotation, a uniform scale and a translation.
    #[error("joint {joint}: the skin matrix is not a similarity (rotation × uniform scale + translation): {problem}")]
    NotSimilarity {
        /// Joint index in the palette.
        joint: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// Attribute arrays of different lengths, no weights, too many joints…
    #[error("{label}: {problem}")]
    Input {
        /// The mesh/primitive.
        label: String,
        /// What is wrong.
        problem: String,
    },
}

/// One bone: `p ↦ scale · rotation · p + translation`. `shaders/skin.wgsl`'s `Bone`, field for
/// field (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Bone {
    /// Unit quaternion, xyzw.
    pub(crate) rotation: [f32; 4],
    /// Translation xyz, uniform scale in w.
    pub(crate) translation_scale: [f32; 4],
}

/// Relative tolerance of [`Bone::from_mat4`] for unequal column lengths and non-perpendicular
/// columns: 1e-4, far above f32 rounding of a composed matrix (~10 ulps = 1e-6) and far below a
/// visible non-uniform scale.
pub(crate) const SIMILARITY_TOLERANCE: f32 = 1e-4;

impl Bone {
    /// The identity bone.
    pub const IDENTITY: Bone = Bone {
        rotation: [0.0, 0.0, 0.0, 1.0],
        translation_scale: [0.0, 0.0, 0.0, 1.0],
    };

    /// A bone from its parts (the rotation is normalised).
    #[must_use]
    pub fn new(rotation: Quat, translation: Vec3, scale: f32) -> Self {
        Bone {
            rotation: rotation.normalize().to_array(),
            translation_scale: translation.extend(scale).to_array(),
        }
    }

    /// The uniform scale.
    #[must_use]
    #[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
    pub(crate) fn scale(&self) -> f32 {
        self.translation_scale[3]
    }

    /// Decomposes an affine matrix (the bottom row is ignored) into a bone.
    ///
    /// # Errors
    /// [`SkinError::NotSimilarity`] (naming `joint`) for non-finite values, a reflection or
    /// zero scale, column lengths that differ or columns that are not perpendicular by more than
    /// `SIMILARITY_TOLERANCE` (relative).
    pub fn from_mat4(m: Mat4, joint: usize) -> Result<Self, SkinError> {
        let err = |problem: String| SkinError::NotSimilarity { joint, problem };
        if !m.is_finite() {
            return Err(err("it has NaN or infinite values".into()));
        }
        let cols = [
            m.x_axis.truncate(),
            m.y_axis.truncate(),
            m.z_axis.truncate(),
        ];
        let lengths = cols.map(Vec3::length);
        let scale = (lengths[0] + lengths[1] + lengths[2]) / 3.0;
        if scale <= f32::MIN_POSITIVE {
            return Err(err("its scale is zero".into()));
        }
        if lengths
            .iter()
            .any(|l| (l - scale).abs() > SIMILARITY_TOLERANCE * scale)
        {
            return Err(err(format!(
                "non-uniform scale (column lengths {:.6}, {:.6}, {:.6})",
                lengths[0], lengths[1], lengths[2]
            )));
        }
        let s2 = scale * scale;
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            if cols[a].dot(cols[b]).abs() > SIMILARITY_TOLERANCE * s2 {
                return Err(err(format!(
                    "shear (columns {a} and {b} are not perpendicular)"
                )));
            }
        }
        if cols[0].cross(cols[1]).dot(cols[2]) < 0.0 {
            return Err(err("it mirrors (negative determinant)".into()));
        }
        let r = glam::Mat3::from_cols(cols[0] / scale, cols[1] / scale, cols[2] / scale);
        Ok(Bone::new(Quat::from_mat3(&r), m.w_axis.truncate(), scale))
    }
}

#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
/// Bones for a palette of skin matrices (`placement · joint_world · inverse_bind`).
///
/// # Errors
/// [`SkinError::NotSimilarity`] for the first matrix that is not a similarity.
pub(crate) fn bones_from_matrices(matrices: &[Mat4]) -> Result<Vec<Bone>, SkinError> {
    matrices
        .iter()
        .enumerate()
        .map(|(j, m)| Bone::from_mat4(*m, j))
        .collect()
}

#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
/// Skin matrices of a glTF skin for a posed skeleton: `placement · world[joint] · inverse_bind`.
/// `world` holds node-to-world matrices indexed by node
/// ([`crate::anim::Skeleton::world_matrices`]).
///
/// # Errors
/// [`SkinError::Input`] naming the skin when it has a different number of joints and inverse
/// bind matrices, or a joint node `world` does not hold.
pub(crate) fn skin_matrices(
    skin: &crate::mesh::Skin,
    world: &[Mat4],
    placement: Mat4,
) -> Result<Vec<Mat4>, SkinError> {
    rig::check_skin(skin, world.len())?;
    Ok(skin
        .joints
        .iter()
        .zip(&skin.inverse_bind)
        .map(|(&node, ibm)| placement * world[node] * *ibm)
        .collect())
}

/// Why a vertex's influences cannot be packed.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub(crate) enum InfluenceError {
    /// A weight below zero, NaN or infinite.
    #[error("weight {weight} for joint {joint} is negative or not finite")]
    Weight { joint: u16, weight: f32 },
    /// A joint index the skin (or the packed layout's byte) does not have.
    #[error("joint index {joint} is out of range (the skin has {joint_count} joints; the packed layout takes at most {MAX_JOINTS})")]
    Joint { joint: u16, joint_count: usize },
    /// Every weight is zero.
    #[error("every weight is zero")]
    AllZero,
}

/// One vertex's influences after packing: joint indices and weights in 1/255 units (summing to
/// 255 exactly), largest first, zero-weight slots last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PackedInfluences {
    /// Joint index per slot.
    pub(crate) joints: [u8; MAX_INFLUENCES],
    /// Weight per slot, unorm8.
    pub(crate) weights: [u8; MAX_INFLUENCES],
}

impl PackedInfluences {
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    /// Influences with a non-zero weight.
    #[must_use]
    pub(crate) fn count(&self) -> usize {
        self.weights.iter().filter(|&&w| w > 0).count()
    }

    /// Quantises weights to unorm8 so they sum to exactly 255 (largest remainder), after keeping
    /// the [`MAX_INFLUENCES`] largest and merging repeated joints. Returns the influences and how
    /// many non-zero influences were dropped beyond 8. The weight error is at most 1/255 of the
    /// vertex's total (half a step for rounding, one step where the largest-remainder rule
    /// moves a weight).
    ///
    /// # Errors
    /// [`InfluenceError`] for negative or non-finite weights, joints ≥ [`MAX_JOINTS`] or ≥
    /// `joint_count`, and a vertex whose weights are all zero.
    pub(crate) fn quantise(
        influences: &[(u16, f32)],
        joint_count: usize,
    ) -> Result<(Self, usize), InfluenceError> {
        let mut merged: Vec<(u16, f32)> = Vec::with_capacity(influences.len());
        for &(j, w) in influences {
            if !w.is_finite() || w < 0.0 {
                return Err(InfluenceError::Weight {
                    joint: j,
                    weight: w,
                });
            }
            if w == 0.0 {
                continue;
            }
            if usize::from(j) >= joint_count.min(MAX_JOINTS) {
                return Err(InfluenceError::Joint {
                    joint: j,
                    joint_count,
                });
            }
            match merged.iter_mut().find(|(mj, _)| *mj == j) {
                Some(m) => m.1 += w,
                None => merged.push((j, w)),
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let dropped = merged.len().saturating_sub(MAX_INFLUENCES);
        merged.truncate(MAX_INFLUENCES);
        let total: f64 = merged.iter().map(|(_, w)| f64::from(*w)).sum();
        if total <= 0.0 {
            return Err(InfluenceError::AllZero);
        }
        // Largest remainder: floor everything, then hand the missing steps to the largest
        // fractional parts.
        let exact: Vec<f64> = merged
            .iter()
            .map(|(_, w)| f64::from(*w) / total * 255.0)
            .collect();
        let mut q: Vec<u32> = exact.iter().map(|e| e.floor() as u32).collect();
        let missing = 255 - q.iter().sum::<u32>();
        let mut order: Vec<usize> = (0..q.len()).collect();
        order.sort_by(|&a, &b| {
            (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor()))
        });
        for &k in order.iter().take(missing as usize) {
            q[k] += 1;
        }
        let mut out = PackedInfluences::default();
        let mut slot = 0;
        for (k, (j, _)) in merged.iter().enumerate() {
            if q[k] > 0 {
                out.joints[slot] = *j as u8;
                out.weights[slot] = q[k] as u8;
                slot += 1;
            }
        }
        Ok((out, dropped))
    }
}

/// A skinned mesh's vertices in the packed layout: rest position, qtangent (in any [`Format`];
/// [`Format::Snorm16x4`] unless `SkinVertices::with_format` says otherwise) and up to eight
/// influences per vertex. What `crate::gpu::skin` uploads; the kernel reads every format and
/// writes snorm16x4.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinVertices {
    /// `mesh 'Fox' primitive 0`, for messages.
    pub label: String,
    /// Rest positions.
    pub(crate) positions: Vec<Vec3>,
    /// The format the rest frames are uploaded in.
    pub(crate) format: Format,
    /// The rest frames as given.
    frames: Vec<QTangent>,
    /// The rest frames encoded in `format`, `format.bytes()` each: what the kernel reads.
    pub(crate) encoded: Vec<u8>,
    /// Influences per vertex.
    pub(crate) influences: Vec<PackedInfluences>,
    /// Joints in the palette the influences index.
    pub(crate) joint_count: usize,
    /// Non-zero influences dropped beyond `MAX_INFLUENCES` (summed over vertices).
    pub(crate) dropped_influences: usize,
}

impl SkinVertices {
    /// Packs vertices. `joints` and `weights` are the glTF sets (`JOINTS_0`, `JOINTS_1`, …),
    /// each one entry per vertex.
    ///
    /// # Errors
    /// [`SkinError::Input`] naming `label` (and the vertex) for mismatched lengths, no weight
    /// sets, bad weights or joints (weights are quantised to bytes summing to 255), non-finite positions.
    pub fn new(
        label: &str,
        positions: &[Vec3],
        frames: &[QTangent],
        joints: &[Vec<[u16; 4]>],
        weights: &[Vec<[f32; 4]>],
        joint_count: usize,
    ) -> Result<Self, SkinError> {
        let err = |problem: String| SkinError::Input {
            label: label.to_owned(),
            problem,
        };
        let n = positions.len();
        if frames.len() != n {
            return Err(err(format!("{} frames for {n} positions", frames.len())));
        }
        if joints.is_empty() || weights.is_empty() {
            return Err(err("no JOINTS_0/WEIGHTS_0: the mesh is not skinned".into()));
        }
        if joints.len() != weights.len() {
            return Err(err(format!(
                "{} JOINTS sets but {} WEIGHTS sets",
                joints.len(),
                weights.len()
            )));
        }
        if let Some(set) = joints.iter().position(|s| s.len() != n) {
            return Err(err(format!(
                "JOINTS_{set} has {} entries for {n} vertices",
                joints[set].len()
            )));
        }
        if let Some(set) = weights.iter().position(|s| s.len() != n) {
            return Err(err(format!(
                "WEIGHTS_{set} has {} entries for {n} vertices",
                weights[set].len()
            )));
        }
        let mut influences = Vec::with_capacity(n);
        let mut dropped_influences = 0;
        let mut scratch = Vec::with_capacity(4 * joints.len());
        for v in 0..n {
            if !positions[v].is_finite() {
                return Err(err(format!(
                    "vertex {v}: position {} is not finite",
                    positions[v]
                )));
            }
            scratch.clear();
            for (js, ws) in joints.iter().zip(weights) {
                scratch.extend(js[v].iter().copied().zip(ws[v].iter().copied()));
            }
            let (packed, dropped) = PackedInfluences::quantise(&scratch, joint_count)
                .map_err(|p| err(format!("vertex {v}: {p}")))?;
            dropped_influences += dropped;
            influences.push(packed);
        }
        Ok(SkinVertices {
            label: label.to_owned(),
            positions: positions.to_vec(),
            format: Format::Snorm16x4,
            frames: frames.to_vec(),
            encoded: encode(Format::Snorm16x4, frames),
            influences,
            joint_count,
            dropped_influences,
        })
    }

    /// [`SkinVertices::new`] for a prepared primitive ([`crate::mesh::Prepared`]): its
    /// positions, frames and skin attributes, for a skin of `joint_count` joints.
    ///
    /// # Errors
    /// As [`SkinVertices::new`] (an unskinned primitive has no `JOINTS_0`).
    pub(crate) fn from_prepared(
        p: &crate::mesh::Prepared,
        joint_count: usize,
    ) -> Result<Self, SkinError> {
        let frames: Vec<QTangent> = p.frames.iter().map(|f| f.to_qtangent()).collect();
        Self::new(
            &p.label,
            &p.positions,
            &frames,
            &p.joints,
            &p.weights,
            joint_count,
        )
    }

    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    /// Vertices.
    #[must_use]
    pub(crate) fn len(&self) -> usize {
        self.positions.len()
    }

    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    /// True with no vertices.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The most influences any vertex uses.
    #[must_use]
    #[cfg(any(test, feature = "gpu"))]
    pub(crate) fn max_influences(&self) -> usize {
        self.influences
            .iter()
            .map(PackedInfluences::count)
            .max()
            .unwrap_or(0)
    }
    #[cfg(test)]
    /// The same vertices with their rest frames uploaded in `format` (encoded from the frames
    /// as given, not from another format's codes).
    #[must_use]
    pub(crate) fn with_format(mut self, format: Format) -> Self {
        self.encoded = encode(format, &self.frames);
        self.format = format;
        self
    }

    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    /// The format the rest frames are uploaded in.
    #[must_use]
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// Appends the packed words (`shaders/skin.wgsl`'s input layout) to `out`:
    /// `[x, y, z (f32 bits), the qtangent's bytes padded to whole words, joints (4 × u8 a
    /// word), weights (4 × unorm8 a word)]`: [`Influences::words`] words a vertex (28 bytes
    /// with snorm16x4 and four influences).
    ///
    /// # Errors
    /// [`SkinError::Input`] when a vertex has more influences than `influences` holds.
    #[cfg(feature = "gpu")]
    pub(crate) fn pack_into(
        &self,
        influences: Influences,
        out: &mut Vec<u32>,
    ) -> Result<(), SkinError> {
        let k = influences.count();
        if self.max_influences() > k {
            return Err(SkinError::Input {
                label: self.label.clone(),
                problem: format!(
                    "a vertex has {} influences; the batch is packed with {k}",
                    self.max_influences()
                ),
            });
        }
        out.reserve(self.len() * influences.words(self.format));
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let n = self.format.bytes();
        for ((p, q), inf) in self
            .positions
            .iter()
            .zip(self.encoded.chunks_exact(n))
            .zip(&self.influences)
        {
            out.extend(p.to_array().map(f32::to_bits));
            let mut padded = [0u8; 16];
            padded[..n].copy_from_slice(q);
            out.extend(padded[..n.div_ceil(4) * 4].chunks_exact(4).map(word));
            for c in inf.joints[..k].chunks(4) {
                out.push(word(c));
            }
            for c in inf.weights[..k].chunks(4) {
                out.push(word(c));
            }
        }
        Ok(())
    }
}

/// A skinned vertex as the kernel writes it: `shaders/skin.wgsl`'s output, 20 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SkinnedVertex {
    /// Skinned position.
    pub position: [f32; 3],
    /// Skinned frame, Snorm16x4 (the handedness in the sign of w).
    pub(crate) qtangent: [i16; 4],
}

impl SkinnedVertex {
    /// The decoded frame.
    #[must_use]
    pub fn frame(&self) -> QTangent {
        decode_snorm16x4(self.qtangent)
    }
}

/// Every frame encoded in `format`, one after the other.
fn encode(format: Format, frames: &[QTangent]) -> Vec<u8> {
    let mut out = Vec::with_capacity(frames.len() * format.bytes());
    for q in frames {
        format.encode_into(q, &mut out);
    }
    out
}
