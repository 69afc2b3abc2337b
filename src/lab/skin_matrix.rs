//! The matrix-palette skinning baseline (`shaders/skin_matrix.wgsl`): what the quaternion kernel
//! (`crate::gpu::skin`) is measured against in `lab/src/bin/skin_bench.rs`.
//!
//! The layout engines use (Bevy's mesh attributes, rend3's skinning pass): per vertex an f32
//! position, normal and tangent (w = handedness), u16 joints and f32 weights — 64 bytes with 4
//! influences, 88 with 8 — and one `mat4x4<f32>` per bone (64 bytes, built on the CPU from the
//! same [`Bone`]s). Linear blend `M = Σ wᵢ Mᵢ`; position `M·(p, 1)`; normal and tangent by `M`
//! itself, normalised (the usual shortcut: right while `M` is a rotation times a uniform scale,
//! see `crate::lab::skin_reference::lbs_vector_frame_error` for where it is not); output f32 position, normal
//! and tangent, 40 bytes. So it moves 104 bytes a vertex with 4 influences where the quaternion
//! layout moves 48.
//!
//! The batch structure is `crate::gpu::skin`'s (instance table, binary search, one 2D dispatch for
//! every instance), so a comparison of the two measures the layout and the per-vertex arithmetic
//! only. Vertices come from the same [`SkinVertices`] (frames decoded from their qtangents,
//! weights the unorm8 ones as f32), so both kernels skin the same data.

#[cfg(test)]
use glam::{DMat4, DVec3};
use glam::{Mat4, Vec3, Vec4};

use crate::gpu::skin::{batch_influences, batch_layout, BatchDesc, SkinBuffers};
use crate::gpu::wgsl::Stage;
use crate::gpu::{GpuContext, GpuError};
use crate::skin::{Bone, Influences, SkinVertices, MAX_INFLUENCES};

/// Words (u32) of an output vertex: position, normal (3 × f32 each) and tangent (4 × f32).
pub(crate) const OUTPUT_WORDS: usize = 10;

/// Words (u32) of a packed input vertex: 10 of position, normal and tangent, `count / 2` of u16
/// joints and `count` of f32 weights: 16 (64 bytes) with [`Influences::Four`], 22 (88 bytes) with
/// `Eight`.
#[must_use]
pub const fn input_words(influences: Influences) -> usize {
    10 + influences.count() / 2 + influences.count()
}

/// A skinned vertex as the kernel writes it: `shaders/skin_matrix.wgsl`'s output, 40 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct MatrixSkinnedVertex {
    /// Skinned position.
    pub(crate) position: [f32; 3],
    /// Skinned normal, unit.
    pub(crate) normal: [f32; 3],
    /// Skinned tangent, unit xyz; w the input's handedness (±1), copied.
    pub(crate) tangent: [f32; 4],
}

const _: () = assert!(std::mem::size_of::<MatrixSkinnedVertex>() == OUTPUT_WORDS * 4);

/// One input vertex of the baseline layout, unpacked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MatrixVertex {
    /// Rest position.
    pub(crate) position: Vec3,
    /// Rest normal, unit.
    pub(crate) normal: Vec3,
    /// Rest tangent, unit xyz; w the handedness (±1).
    pub(crate) tangent: Vec4,
    /// Joint per slot (unused slots 0).
    pub(crate) joints: [u16; MAX_INFLUENCES],
    /// Weight per slot, summing to 1 (unused slots 0).
    pub(crate) weights: [f32; MAX_INFLUENCES],
}

impl MatrixVertex {
    /// The vertices of `mesh` in the baseline layout: normal and tangent decoded from the
    /// qtangents (as the quaternion kernel decodes them), handedness −1 for mirrored frames,
    /// weights the unorm8 weights over their total, as f32.
    #[must_use]
    pub(crate) fn from_skin(mesh: &SkinVertices) -> Vec<MatrixVertex> {
        (0..mesh.len())
            .map(|v| {
                let q = mesh.qtangent(v);
                let frame = q.to_frame();
                let inf = &mesh.influences[v];
                let total: u32 = inf.weights.iter().map(|&w| u32::from(w)).sum();
                let total = total.max(1) as f32;
                MatrixVertex {
                    position: mesh.positions[v],
                    normal: frame.normal,
                    tangent: frame.tangent.extend(if q.reflected { -1.0 } else { 1.0 }),
                    joints: inf.joints.map(u16::from),
                    weights: inf.weights.map(|w| f32::from(w) / total),
                }
            })
            .collect()
    }
}

/// Appends vertices in `shaders/skin_matrix.wgsl`'s input layout to `out`: `[x, y, z, nx, ny,
/// nz, tx, ty, tz, tw (f32 bits), joints (u16 pairs), weights (f32 bits)]`, the first
/// `influences.count()` slots of each vertex ([`input_words`] words a vertex).
pub(crate) fn pack_into(vertices: &[MatrixVertex], influences: Influences, out: &mut Vec<u32>) {
    let k = influences.count();
    out.reserve(vertices.len() * input_words(influences));
    for v in vertices {
        out.extend(v.position.to_array().map(f32::to_bits));
        out.extend(v.normal.to_array().map(f32::to_bits));
        out.extend(v.tangent.to_array().map(f32::to_bits));
        for pair in v.joints[..k].chunks(2) {
            out.push(u32::from(pair[0]) | (u32::from(pair[1]) << 16));
        }
        out.extend(v.weights[..k].iter().map(|w| w.to_bits()));
    }
}

/// The palette for `bones`: [`Bone::to_mat4`] of each (`p ↦ s·R·p + t`).
#[must_use]
pub(crate) fn palette(bones: &[Bone]) -> Vec<Mat4> {
    bones.iter().copied().map(Bone::to_mat4).collect()
}

#[cfg(test)]
/// The baseline's skinning of one vertex in f64, on the very f32 values the kernel reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MatrixReference {
    /// `M·(p, 1)`.
    pub(crate) position: DVec3,
    /// `M·(n, 0)`, not normalised: its length is how much `M` scales the normal.
    pub(crate) normal: DVec3,
    /// `M·(t.xyz, 0)`, not normalised.
    pub(crate) tangent: DVec3,
    /// The input tangent's w, which the kernel copies.
    pub(crate) handedness: f64,
}

#[cfg(test)]
/// `M = Σ wᵢ palette[jᵢ]` over the first `influences` slots in f64, joints clamped to the
/// palette as the kernel clamps them.
///
/// # Panics
/// If `palette` is empty.
#[must_use]
pub(crate) fn blended_matrix(palette: &[Mat4], v: &MatrixVertex, influences: Influences) -> DMat4 {
    let last = palette.len() - 1;
    let mut m = DMat4::ZERO;
    for k in 0..influences.count() {
        if v.weights[k] != 0.0 {
            let joint = usize::from(v.joints[k]).min(last);
            m += palette[joint].as_dmat4() * f64::from(v.weights[k]);
        }
    }
    m
}

#[cfg(test)]
/// LBS of one vertex in f64 (see [`MatrixReference`]).
///
/// # Panics
/// If `palette` is empty.
#[must_use]
pub(crate) fn reference(
    palette: &[Mat4],
    v: &MatrixVertex,
    influences: Influences,
) -> MatrixReference {
    let m = blended_matrix(palette, v, influences);
    MatrixReference {
        position: (m * v.position.as_dvec3().extend(1.0)).truncate(),
        normal: (m * v.normal.as_dvec3().extend(0.0)).truncate(),
        tangent: (m * v.tangent.truncate().as_dvec3().extend(0.0)).truncate(),
        handedness: f64::from(v.tangent.w),
    }
}

/// The compiled baseline: a pipeline per influence count.
pub(crate) struct MatrixSkinPipeline {
    layout: wgpu::BindGroupLayout,
    /// Four, Eight.
    pipelines: [wgpu::ComputePipeline; 2],
}

/// A batch uploaded and bound: set bones, dispatch, read back, any number of times.
pub(crate) struct MatrixSkinBatch {
    /// Influences per vertex the meshes were packed with.
    pub(crate) influences: Influences,
    core: SkinBuffers,
    pipeline: wgpu::ComputePipeline,
}

impl MatrixSkinPipeline {
    /// Compiles `skin_matrix.wgsl` for 4 and 8 influences.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] if the shader or a pipeline fails validation.
    pub(crate) fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let (needs, doing) = (
            &crate::gpu::skin::NEEDS,
            "compiling shaders/skin_matrix.wgsl",
        );
        ctx.compile(needs, Stage::SkinMatrix, doing, |device, module| {
            let (layout, pipeline_layout) = batch_layout(device, "skin_matrix");
            let pipelines = [Influences::Four, Influences::Eight].map(|influences| {
                let constants = [("INFLUENCES", influences.count() as f64)];
                let entry = "skin_matrix";
                crate::gpu::kit::compute_pipeline(
                    device,
                    &pipeline_layout,
                    &module,
                    entry,
                    &constants,
                )
            });
            Self { layout, pipelines }
        })
    }

    /// Uploads `meshes` once each (in the baseline layout) and lays out one instance per entry
    /// of `instances` (an index into `meshes`), each with a palette of its mesh's `joint_count`
    /// matrices — as [`crate::gpu::SkinPipeline::batch`] does. The influence count is the
    /// smallest that holds every mesh's vertices. Matrices start as the identity; set them with
    /// [`MatrixSkinBatch::set_bones`].
    ///
    /// # Errors
    /// As [`crate::gpu::SkinPipeline::batch`]: [`GpuError::Empty`] for an empty batch or a mesh
    /// with no vertices, [`GpuError::OutOfRange`] for an instance naming no mesh;
    /// [`GpuError::TooLarge`] beyond the device's buffer or dispatch limits.
    pub(crate) fn batch(
        &self,
        ctx: &GpuContext,
        meshes: &[&SkinVertices],
        instances: &[usize],
    ) -> Result<MatrixSkinBatch, GpuError> {
        let influences = batch_influences(meshes, instances)?;
        let mut words = Vec::new();
        for m in meshes {
            pack_into(&MatrixVertex::from_skin(m), influences, &mut words);
        }
        let desc = BatchDesc {
            label: "skin_matrix",
            words: &words,
            words_per_vertex: input_words(influences),
            output_vertex_bytes: OUTPUT_WORDS as u64 * 4,
            identity_bone: bytemuck::bytes_of(&Mat4::IDENTITY),
        };
        let core = SkinBuffers::new(ctx, &self.layout, meshes, instances, &desc)?;
        Ok(MatrixSkinBatch {
            influences,
            core,
            pipeline: self.pipelines[usize::from(influences == Influences::Eight)].clone(),
        })
    }
}

impl MatrixSkinBatch {
    /// The batch's buffers (output: [`MatrixSkinnedVertex`]).
    #[must_use]
    #[cfg(test)]
    pub(crate) fn buffers(&self) -> &SkinBuffers {
        &self.core
    }

    /// Bytes each skinned vertex moves through memory: its input (64 or 88) and its output
    /// (40); palette reads are shared by a palette's vertices and not counted.
    #[must_use]
    pub(crate) fn bytes_per_vertex(&self) -> u64 {
        (input_words(self.influences) + OUTPUT_WORDS) as u64 * 4
    }

    /// Uploads every instance's palette, concatenated in instance order, as matrices
    /// (`palette`).
    ///
    /// # Errors
    /// As `MatrixSkinBatch::set_matrices`.
    pub(crate) fn set_bones(&self, ctx: &GpuContext, bones: &[Bone]) -> Result<(), GpuError> {
        self.set_matrices(ctx, &palette(bones))
    }

    /// Uploads every instance's palette, concatenated in instance order.
    ///
    /// # Errors
    /// [`GpuError::Input`] when the count is not [`MatrixSkinBatch::bone_count`] or a matrix is
    /// not finite.
    pub(crate) fn set_matrices(&self, ctx: &GpuContext, matrices: &[Mat4]) -> Result<(), GpuError> {
        self.core.check_bone_count(matrices.len())?;
        if let Some(i) = matrices.iter().position(|m| !m.is_finite()) {
            return Err(GpuError::Invalid {
                what: format!("skin matrix {i}"),
                reason: "not finite",
            });
        }
        ctx.queue
            .write_buffer(&self.core.palette, 0, bytemuck::cast_slice(matrices));
        Ok(())
    }

    /// Records the dispatch, with timestamps at the pass's start and end (query indices
    /// `first`, `first + 1`) when given.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<(&wgpu::QuerySet, u32)>,
    ) {
        self.core
            .encode(encoder, "skin_matrix", &self.pipeline, timestamps);
    }
    #[cfg(test)]
    /// Dispatches once and waits.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`].
    pub(crate) fn run(&self, ctx: &GpuContext) -> Result<(), GpuError> {
        self.core.run(ctx, "matrix skinning on the GPU", |encoder| {
            self.encode(encoder, None);
        })
    }

    /// Reads every skinned vertex back.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] or [`GpuError::Readback`].
    pub(crate) fn read(&self, ctx: &GpuContext) -> Result<Vec<MatrixSkinnedVertex>, GpuError> {
        self.core.read(ctx, "matrix-skinned vertices")
    }
}

/// What [`time_matrix_skinning`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatrixTiming {
    /// Influences per vertex the meshes were packed with.
    pub influences: Influences,
    /// Bytes each skinned vertex moves through memory: its input (64 or 88) and its output
    /// (40); palette reads are shared by a palette's vertices and not counted.
    pub bytes_per_vertex: u64,
    /// What `time` returned.
    pub seconds: f64,
}

/// The baseline's one dispatch over a batch, for a benchmark to time: `meshes` uploaded once
/// each, one instance per entry of `instances` (an index into `meshes`) with its palette in
/// `bones` (every instance's, concatenated in instance order), as
/// [`crate::gpu::SkinPipeline::batch`] lays a batch out. `time` gets the function that records
/// the dispatch (with timestamps at its pass's start and end, query indices `first`,
/// `first + 1`, when given) and returns its seconds. The output is poisoned before and read back
/// after: every skinned position must be finite.
///
/// # Errors
/// As [`crate::gpu::SkinPipeline::batch`] and `SkinBatch::set_bones`; what `time` returns;
/// [`GpuError::Invalid`] for a skinned position that is not finite.
pub fn time_matrix_skinning(
    ctx: &GpuContext,
    meshes: &[&SkinVertices],
    instances: &[usize],
    bones: &[Bone],
    time: impl FnOnce(
        &dyn Fn(&mut wgpu::CommandEncoder, Option<(&wgpu::QuerySet, u32)>),
    ) -> Result<f64, GpuError>,
) -> Result<MatrixTiming, GpuError> {
    let batch = MatrixSkinPipeline::new(ctx)?.batch(ctx, meshes, instances)?;
    batch.set_bones(ctx, bones)?;
    batch.core.poison(ctx);
    let seconds = time(&|e, ts| batch.encode(e, ts))?;
    if let Some(i) = batch
        .read(ctx)?
        .iter()
        .position(|v| !v.position.iter().all(|x| x.is_finite()))
    {
        return Err(GpuError::Invalid {
            what: format!("matrix-skinned vertex {i}'s position"),
            reason: "not finite",
        });
    }
    Ok(MatrixTiming {
        influences: batch.influences,
        bytes_per_vertex: batch.bytes_per_vertex(),
        seconds,
    })
}

/// A copy of `template` whose every rest position is moved by `f` (frames and influences kept,
/// not packed again): another instance of the same rig with its own shape, cheap enough for a
/// benchmark's million-vertex batch of distinct instances.
#[must_use]
pub fn with_positions(template: &SkinVertices, f: impl FnMut(Vec3) -> Vec3) -> SkinVertices {
    template.map_positions(f)
}

impl crate::gpu::skin::SkinBuffers {
    /// Fills the output with all-ones words (NaN as f32), so a vertex the kernel does not
    /// write fails any comparison.
    pub(crate) fn poison(&self, ctx: &crate::gpu::GpuContext) {
        crate::gpu::kit::poison(&ctx.queue, &self.output);
    }
}
