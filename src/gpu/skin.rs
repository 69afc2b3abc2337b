//! Batch skinning on the GPU (`shaders/skin.wgsl`): one dispatch skins every instance of a
//! batch — many meshes and/or many copies of one mesh, each with its own bone palette — by
//! linear-blend or dual-quaternion skinning, writing positions and packed qtangents that the
//! lit renderer draws directly ([`output_layout`]).
//!
//! The CPU side (bones, the packed layout, the f64 reference) is [`crate::skin`].

use std::ops::Range;

use super::kit::{self, Access};
use super::wgsl::Stage;
use super::{GpuContext, GpuError, StageNeeds};

/// What GPU skinning needs of a device (`shaders/skin.wgsl`, `shaders/skin_matrix.wgsl`):
/// compute shaders; one uniform and four storage buffers in one bind group.
pub(crate) const NEEDS: StageNeeds = StageNeeds {
    compute: true,
    storage_buffers_per_shader_stage: 4,
    uniform_buffers_per_shader_stage: 1,
    bind_groups: 1,
    ..StageNeeds::none("GPU skinning")
};
use crate::anim::Transform;
use crate::skin::{Bone, Influences, Rig, SkinMethod, SkinVertices, SkinnedVertex, OUTPUT_WORDS};
use crate::Format;

/// `@workgroup_size` of `skin` in `shaders/skin.wgsl` and of `skin_matrix` in
/// `shaders/skin_matrix.wgsl` (both dispatched by [`SkinBuffers`]).
const WORKGROUP: u32 = 64;

/// Mirrors `Params` in `shaders/skin_batch.wgsl` (both skinning kernels).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    vertex_count: u32,
    instance_count: u32,
    row_stride: u32,
    pad: u32,
}

/// Mirrors `Instance` in `shaders/skin_batch.wgsl` (both skinning kernels).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuInstance {
    output_base: u32,
    vertex_base: u32,
    bone_base: u32,
    bone_count: u32,
}

const OUTPUT_ATTRIBUTES: [wgpu::VertexAttribute; 2] = [
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x3,
        offset: 0,
        shader_location: 0,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Snorm16x4,
        offset: 12,
        shader_location: 2,
    },
];

/// The skinned output as a vertex buffer: position `Float32x3` at location 0 and the qtangent
/// `Snorm16x4` at location 2 (20 bytes a vertex), as `mesh.wgsl`'s `vs_vec4f` reads it with
/// `QTANGENT_FORMAT` set to snorm16x4; UVs come from a second buffer (`Float32x2` at location 1).
#[must_use]
pub fn output_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: (OUTPUT_WORDS * 4) as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &OUTPUT_ATTRIBUTES,
    }
}

/// The compiled kernel: a pipeline per method, influence count and input format, made on first
/// use and kept.
pub struct SkinPipeline {
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    pipelines: kit::PipelineCache<PipelineKey, wgpu::ComputePipeline>,
}

/// What a skinning pipeline is specialised for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct PipelineKey {
    method: SkinMethod,
    influences: Influences,
    format: Format,
}

/// Where one instance of a batch reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceRange {
    /// Index of its mesh in the batch's mesh list.
    pub mesh: usize,
    /// Its vertices in the output buffer.
    pub output: Range<u32>,
    /// Its palette in the bone buffer.
    pub bones: Range<u32>,
}

/// A batch uploaded and bound: set bones, dispatch, draw or read back, any number of times.
pub struct SkinBatch {
    /// The method the batch dispatches with (see [`SkinBatch::set_method`]).
    method: SkinMethod,
    /// Influences per vertex the meshes were packed with.
    influences: Influences,
    /// The format of the input qtangents (every mesh's).
    format: Format,
    core: SkinBuffers,
    /// One pipeline per method, in [`SkinMethod::ALL`] order.
    pipelines: [wgpu::ComputePipeline; 2],
}

/// The bind group layout of both skinning kernels (this one and [`super::skin_matrix`]):
/// 0 params (uniform), 1 packed vertices, 2 instance table, 3 palette (read-only storage),
/// 4 output (read-write storage).
pub(crate) fn batch_layout(
    device: &wgpu::Device,
    label: &str,
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let compute = wgpu::ShaderStages::COMPUTE;
    kit::layouts(
        device,
        label,
        &[
            kit::uniform_entry(0, compute),
            kit::storage_entry(1, compute, Access::Read),
            kit::storage_entry(2, compute, Access::Read),
            kit::storage_entry(3, compute, Access::Read),
            kit::storage_entry(4, compute, Access::ReadWrite),
        ],
    )
}

/// The influence count that holds every mesh's vertices, after checking the batch is not
/// empty and every mesh has vertices and joints.
pub(crate) fn batch_influences(
    meshes: &[&SkinVertices],
    instances: &[usize],
) -> Result<Influences, GpuError> {
    if instances.is_empty() {
        return Err(GpuError::Empty {
            what: "the skinning batch's instances",
        });
    }
    if let Some(m) = meshes.iter().find(|m| m.is_empty() || m.joint_count == 0) {
        return Err(GpuError::Invalid {
            what: m.label.clone(),
            reason: "a skinned mesh needs vertices and joints",
        });
    }
    Ok(Influences::for_count(
        meshes.iter().map(|m| m.max_influences()).max().unwrap_or(1),
    ))
}

/// What a kernel's batch needs beyond the shared structure.
pub(crate) struct BatchDesc<'a> {
    /// `skin` or `skin_matrix`: buffer labels and messages.
    pub(crate) label: &'a str,
    /// Every mesh packed, one after the other.
    pub(crate) words: &'a [u32],
    /// Words of one packed vertex.
    pub(crate) words_per_vertex: usize,
    /// Bytes of one output vertex.
    pub(crate) output_vertex_bytes: u64,
    /// One palette entry in the bind-pose identity, as bytes (the palette's initial value).
    pub(crate) identity_bone: &'a [u8],
}

/// A skinning batch's buffers: its instance table, palettes, output, bind group and dispatch
/// size — the structure both skinning kernels share, so a comparison of the two measures their
/// layouts and arithmetic (`SkinBatch::buffers`).
pub(crate) struct SkinBuffers {
    instances: Vec<InstanceRange>,
    /// Bones (all palettes).
    pub(crate) bone_count: u32,
    groups: [u32; 2],
    pub(crate) palette: wgpu::Buffer,
    pub(crate) output: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

/// Where each instance of a batch reads and writes, as the kernel's table and as ranges.
struct InstanceTable {
    gpu: Vec<GpuInstance>,
    ranges: Vec<InstanceRange>,
    /// Output vertices of every instance.
    vertices: u64,
    /// Palette entries of every instance.
    bones: u64,
}

impl InstanceTable {
    /// One entry per element of `instances` (an index into `meshes`, whose packed vertices
    /// `desc.words` holds in order), each with a palette of its mesh's `joint_count` entries.
    fn new(
        meshes: &[&SkinVertices],
        instances: &[usize],
        desc: &BatchDesc<'_>,
    ) -> Result<Self, GpuError> {
        let mut vertex_base = Vec::with_capacity(meshes.len());
        let mut first = 0u64;
        for m in meshes {
            vertex_base.push(first);
            first += m.len() as u64;
        }
        if desc.words.len() as u64 != first * desc.words_per_vertex as u64 {
            return Err(GpuError::Count {
                what: format!("{}: packed words for {first} vertices", desc.label),
                found: desc.words.len() as u64,
                expected: first * desc.words_per_vertex as u64,
            });
        }
        let mut table = Self {
            gpu: Vec::with_capacity(instances.len()),
            ranges: Vec::with_capacity(instances.len()),
            vertices: 0,
            bones: 0,
        };
        for (i, &mesh) in instances.iter().enumerate() {
            let m = meshes.get(mesh).ok_or_else(|| GpuError::OutOfRange {
                what: format!("the mesh of skinning instance {i}"),
                index: mesh,
                len: meshes.len(),
            })?;
            let (out, bone) = (table.vertices, table.bones);
            let (n, b) = (m.len() as u64, m.joint_count as u64);
            let needed = (out + n).max(bone + b).max(first);
            if needed > u64::from(u32::MAX) {
                return Err(GpuError::TooLarge {
                    what: format!(
                        "a skinning batch of {} instances (vertices and bones, counted)",
                        instances.len()
                    ),
                    needed,
                    limit: u64::from(u32::MAX),
                    limit_name: "u32 vertex and bone indices",
                });
            }
            table.gpu.push(GpuInstance {
                output_base: out as u32,
                vertex_base: vertex_base[mesh] as u32,
                bone_base: bone as u32,
                bone_count: b as u32,
            });
            table.ranges.push(InstanceRange {
                mesh,
                output: out as u32..(out + n) as u32,
                bones: bone as u32..(bone + b) as u32,
            });
            table.vertices += n;
            table.bones += b;
        }
        Ok(table)
    }
}

impl SkinBuffers {
    /// Lays out one instance per entry of `instances` (an index into `meshes`, whose packed
    /// vertices `desc.words` holds in order), each with a palette of its mesh's `joint_count`
    /// entries, and uploads everything.
    pub(crate) fn new(
        ctx: &GpuContext,
        layout: &wgpu::BindGroupLayout,
        meshes: &[&SkinVertices],
        instances: &[usize],
        desc: &BatchDesc<'_>,
    ) -> Result<Self, GpuError> {
        let label = desc.label;
        let table = InstanceTable::new(meshes, instances, desc)?;
        let (out, bone) = (table.vertices, table.bones);
        let input_bytes = desc.words.len() as u64 * 4;
        let output_bytes = out * desc.output_vertex_bytes;
        let palette_bytes = bone * desc.identity_bone.len() as u64;
        ctx.check_storage_size(&format!("the {label} vertices"), input_bytes)?;
        ctx.check_storage_size(&format!("the {label} output"), output_bytes)?;
        ctx.check_storage_size(&format!("the {label} palettes"), palette_bytes)?;
        ctx.check_storage_size(
            "the instance table (16 B an instance)",
            table.gpu.len() as u64 * 16,
        )?;
        let groups = ctx.dispatch_grid(
            out,
            WORKGROUP,
            &format!("a {label} dispatch of {out} vertices"),
        )?;
        let params = Params {
            vertex_count: out as u32,
            instance_count: table.gpu.len() as u32,
            row_stride: groups[0] * WORKGROUP,
            pad: 0,
        };
        ctx.scoped(&format!("uploading a {label} batch"), || {
            let device = &ctx.device;
            let init = |what: &str, contents: &[u8], usage| {
                kit::buffer(device, &format!("{label} {what}"), contents, usage)
            };
            let storage = wgpu::BufferUsages::STORAGE;
            let uniform = init(
                "params",
                bytemuck::bytes_of(&params),
                wgpu::BufferUsages::UNIFORM,
            );
            let input = init("vertices", bytemuck::cast_slice(desc.words), storage);
            let instances = init("instances", bytemuck::cast_slice(&table.gpu), storage);
            let identity = desc.identity_bone.repeat(bone as usize);
            let palette = init("palette", &identity, storage | wgpu::BufferUsages::COPY_DST);
            let output = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&format!("{label} output")),
                size: output_bytes,
                usage: storage
                    | wgpu::BufferUsages::VERTEX
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let resources = [&uniform, &input, &instances, &palette, &output];
            let resources = resources.map(wgpu::Buffer::as_entire_binding);
            let bind_group = kit::bind_group(device, label, layout, &resources);
            SkinBuffers {
                instances: table.ranges,
                bone_count: bone as u32,
                groups,
                palette,
                output,
                bind_group,
            }
        })
    }

    /// Fails unless `n` is the batch's palette size.
    pub(crate) fn check_bone_count(&self, n: usize) -> Result<(), GpuError> {
        if n == self.bone_count as usize {
            Ok(())
        } else {
            Err(GpuError::Count {
                what: "bones given for the batch's palettes".into(),
                found: n as u64,
                expected: u64::from(self.bone_count),
            })
        }
    }

    /// Records the dispatch with `pipeline`, with timestamps at the pass's start and end
    /// (query indices `first`, `first + 1`) when given.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        timestamps: Option<(&wgpu::QuerySet, u32)>,
    ) {
        kit::record_dispatch(
            encoder,
            label,
            pipeline,
            &self.bind_group,
            self.groups,
            timestamps,
        );
    }
}

impl SkinBuffers {
    /// Where each instance reads and writes, in instance order.
    #[must_use]
    #[cfg(feature = "render")]
    pub(crate) fn instances(&self) -> &[InstanceRange] {
        &self.instances
    }

    /// The skinned vertices, instance `i` at `instances()[i].output`.
    #[must_use]
    #[cfg(feature = "render")]
    pub(crate) fn output(&self) -> &wgpu::Buffer {
        &self.output
    }

    /// Records what `record` encodes, submits it and waits.
    pub(crate) fn run(
        &self,
        ctx: &GpuContext,
        what: &str,
        record: impl FnOnce(&mut wgpu::CommandEncoder),
    ) -> Result<(), GpuError> {
        ctx.scoped(what, || {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            record(&mut encoder);
            ctx.queue.submit([encoder.finish()]);
        })?;
        ctx.wait()
    }

    /// Reads the whole output back as `T`s.
    pub(crate) fn read<T: bytemuck::Pod>(
        &self,
        ctx: &GpuContext,
        what: &str,
    ) -> Result<Vec<T>, GpuError> {
        let bytes = ctx.read_buffer(&self.output, self.output.size(), what)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}

impl SkinPipeline {
    /// Compiles `skin.wgsl`; its pipelines are made as batches need them.
    ///
    /// # Errors
    /// [`GpuError::MissingLimit`] / [`GpuError::MissingCapability`] for a device short of
    /// `NEEDS`; [`GpuError::Wgpu`] if the shader fails validation.
    pub fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let doing = "compiling shaders/skin.wgsl";
        ctx.compile(&NEEDS, Stage::Skin, doing, |device, module| {
            let (layout, pipeline_layout) = batch_layout(device, "skin");
            Self {
                layout,
                pipeline_layout,
                module,
                pipelines: kit::PipelineCache::new(),
            }
        })
    }

    /// Makes the pipeline for `key` (kept in `pipelines` by [`SkinPipeline::batch`]).
    fn make_pipeline(
        &self,
        ctx: &GpuContext,
        key: PipelineKey,
    ) -> Result<wgpu::ComputePipeline, GpuError> {
        let constants = [
            ("QTANGENT_FORMAT", f64::from(key.format.code())),
            ("SKIN_METHOD", f64::from(key.method.code())),
            ("INFLUENCES", key.influences.count() as f64),
        ];
        let label = format!(
            "skin {} {} {}",
            key.method,
            key.influences.count(),
            key.format
        );
        ctx.scoped(&format!("creating the {label} pipeline"), || {
            kit::compute_pipeline(
                &ctx.device,
                &self.pipeline_layout,
                &self.module,
                "skin",
                &constants,
            )
        })
    }

    /// Uploads `meshes` once each and lays out one instance per entry of `instances` (an index
    /// into `meshes`), each with a palette of its mesh's `joint_count` bones. The influence
    /// count is the smallest that holds every mesh's vertices; every mesh must upload its
    /// frames in the same format (`SkinVertices::with_format`). Bones start as the identity
    /// (the bind pose); set them with [`SkinBatch::set_bones`].
    ///
    /// # Errors
    /// [`GpuError::Empty`] for an empty batch or a mesh with no vertices,
    /// [`GpuError::OutOfRange`] for an instance naming no mesh, [`GpuError::Invalid`] for meshes
    /// in different formats; [`GpuError::TooLarge`] beyond the device's buffer
    /// or dispatch limits.
    pub fn batch(
        &self,
        ctx: &GpuContext,
        meshes: &[&SkinVertices],
        instances: &[usize],
        method: SkinMethod,
    ) -> Result<SkinBatch, GpuError> {
        let influences = batch_influences(meshes, instances)?;
        let format = meshes.first().map_or(Format::Snorm16x4, |m| m.format());
        if let Some(m) = meshes.iter().find(|m| m.format() != format) {
            return Err(GpuError::Invalid {
                what: format!(
                    "{}: frames in {}, the batch's first mesh's {format}",
                    m.label,
                    m.format()
                ),
                reason: "a batch reads one format",
            });
        }
        let mut words = Vec::new();
        for m in meshes {
            m.pack_into(influences, &mut words)?;
        }
        let desc = BatchDesc {
            label: "skin",
            words: &words,
            words_per_vertex: influences.words(format),
            output_vertex_bytes: OUTPUT_WORDS as u64 * 4,
            identity_bone: bytemuck::bytes_of(&Bone::IDENTITY),
        };
        let core = SkinBuffers::new(ctx, &self.layout, meshes, instances, &desc)?;
        let pipeline = |method| {
            let key = PipelineKey {
                method,
                influences,
                format,
            };
            self.pipelines
                .get_or_make(key, || self.make_pipeline(ctx, key))
        };
        let pipelines = [pipeline(SkinMethod::ALL[0])?, pipeline(SkinMethod::ALL[1])?];
        Ok(SkinBatch {
            method,
            influences,
            format,
            core,
            pipelines,
        })
    }
}

impl SkinBatch {
    /// The batch's buffers, which the renderer draws from.
    #[must_use]
    #[cfg(feature = "render")]
    pub(crate) fn buffers(&self) -> &SkinBuffers {
        &self.core
    }

    /// Where each instance reads and writes, in instance order.
    #[must_use]
    pub fn instances(&self) -> &[InstanceRange] {
        &self.core.instances
    }

    /// The skinned vertices (in [`output_layout`]), instance `i` at `instances()[i].output`.
    #[must_use]
    pub fn output(&self) -> &wgpu::Buffer {
        &self.core.output
    }

    /// Bytes each skinned vertex moves through memory: its packed input (28 or 36) and its
    /// output (20); bone reads are shared by a palette's vertices and not counted.
    #[must_use]
    pub fn bytes_per_vertex(&self) -> u64 {
        (self.influences.words(self.format) + OUTPUT_WORDS) as u64 * 4
    }

    /// The method the next dispatches use.
    #[must_use]
    pub fn method(&self) -> SkinMethod {
        self.method
    }

    /// Influences per vertex the meshes were packed with.
    #[must_use]
    pub fn influences(&self) -> Influences {
        self.influences
    }
    #[cfg(test)]
    /// The format of the input qtangents (every mesh's).
    #[must_use]
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// Switches the method the next dispatches use (the buffers stay).
    pub fn set_method(&mut self, method: SkinMethod) {
        self.method = method;
    }

    /// Uploads every instance's palette, concatenated in instance order. Rotations are
    /// normalised on the way (the kernel's quaternion → matrix assumes unit length, and a
    /// hand-built [`Bone`] need not be).
    ///
    /// # Errors
    /// [`GpuError::Count`] when the count is not where the last of [`SkinBatch::instances`]' bone
    /// ranges ends, [`GpuError::Invalid`]
    /// when a bone is not
    /// finite, has a (near) zero rotation or a scale ≤ 0 (a mirroring scale would flip positions
    /// but not the frames' handedness).
    pub fn set_bones(&self, ctx: &GpuContext, bones: &[Bone]) -> Result<(), GpuError> {
        self.core.check_bone_count(bones.len())?;
        let mut unit = Vec::with_capacity(bones.len());
        for (i, b) in bones.iter().enumerate() {
            let q = glam::Vec4::from_array(b.rotation);
            let ok = q.is_finite()
                && glam::Vec4::from_array(b.translation_scale).is_finite()
                && q.length_squared() > 1e-12
                && b.scale() > 0.0;
            if !ok {
                return Err(GpuError::Invalid {
                    what: format!("bone {i} ({b:?})"),
                    reason: "not finite, a zero rotation or a scale that is not positive",
                });
            }
            unit.push(Bone {
                rotation: q.normalize().to_array(),
                translation_scale: b.translation_scale,
            });
        }
        ctx.queue
            .write_buffer(&self.core.palette, 0, bytemuck::cast_slice(&unit));
        Ok(())
    }

    /// Records the dispatch, with timestamps at the pass's start and end (query indices
    /// `first`, `first + 1`) when given.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<(&wgpu::QuerySet, u32)>,
    ) {
        self.core.encode(
            encoder,
            "skin",
            &self.pipelines[self.method.code() as usize],
            timestamps,
        );
    }

    /// Dispatches once and waits.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`].
    pub fn run(&self, ctx: &GpuContext) -> Result<(), GpuError> {
        self.core.run(ctx, "skinning on the GPU", |encoder| {
            self.encode(encoder, None);
        })
    }

    /// Reads every skinned vertex back.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] or [`GpuError::Readback`].
    pub fn read(&self, ctx: &GpuContext) -> Result<Vec<SkinnedVertex>, GpuError> {
        self.core.read(ctx, "skinned vertices")
    }
}

/// A [`Rig`] on the GPU: one [`SkinBatch`] with an instance per rig mesh (instance `i` is
/// `rig.meshes()[i]`), posed from animation poses ([`RigBatch::pose`]). Owns the rig and the
/// scratch buffers, so posing allocates nothing once warm.
pub struct RigBatch {
    rig: Rig,
    batch: SkinBatch,
    world: Vec<glam::Mat4>,
    bones: Vec<Bone>,
}

impl RigBatch {
    /// Uploads every mesh of `rig` to one batch skinned with `method`.
    ///
    /// # Errors
    /// [`GpuError::Empty`] for a rig with no mesh, then as [`SkinPipeline::batch`].
    pub fn new(
        ctx: &GpuContext,
        pipeline: &SkinPipeline,
        rig: Rig,
        method: SkinMethod,
    ) -> Result<Self, GpuError> {
        if rig.meshes().is_empty() {
            return Err(GpuError::Empty {
                what: "the rig's skinned meshes",
            });
        }
        let meshes: Vec<&SkinVertices> = rig.meshes().iter().map(|m| &m.vertices).collect();
        let instances: Vec<usize> = (0..meshes.len()).collect();
        let batch = pipeline.batch(ctx, &meshes, &instances, method)?;
        Ok(Self {
            rig,
            batch,
            world: Vec::new(),
            bones: Vec::new(),
        })
    }

    /// The rig.
    #[must_use]
    pub fn rig(&self) -> &Rig {
        &self.rig
    }

    /// The batch (draw its output; instance `i` is the rig's mesh `i`).
    #[must_use]
    pub fn batch(&self) -> &SkinBatch {
        &self.batch
    }

    /// The batch, to change its method ([`SkinBatch::set_method`]).
    pub fn batch_mut(&mut self) -> &mut SkinBatch {
        &mut self.batch
    }

    /// Uploads the bones of the pose `local` placed by `placement` (`Rig::bones`); the next
    /// [`SkinBatch::run`] or [`SkinBatch::encode`] skins with them.
    ///
    /// # Errors
    /// [`GpuError::Skin`] with what `Rig::bones` or [`SkinBatch::set_bones`] rejects.
    pub fn pose(
        &mut self,
        ctx: &GpuContext,
        local: &[Transform],
        placement: glam::Mat4,
    ) -> Result<(), GpuError> {
        self.rig
            .bones_into(local, placement, &mut self.world, &mut self.bones)?;
        self.batch.set_bones(ctx, &self.bones)
    }
}
