//! The batch-decode stage (`shaders/decode.wgsl`): packed frames in, (n, t, b) out.

use super::context::{GpuContext, GpuError, StageNeeds};
use super::kit::{self, Access};
use super::mesh::format_constant;
use super::wgsl::Stage;
use crate::frame::TangentFrame;
use crate::Format;

/// One decoded frame as the shader writes it: three `vec4<f32>`, 48 bytes, no `vec3` in the
/// storage layout (WGSL twin: the three stores in `store()` of `shaders/decode.wgsl`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuFrame {
    /// Unit normal.
    pub normal: [f32; 3],
    /// +1 or −1.
    pub handedness: f32,
    /// Unit tangent.
    pub(crate) tangent: [f32; 3],
    /// Written as 0.
    pub(crate) pad0: f32,
    /// Unit bitangent, `cross(n, t) · handedness`.
    pub bitangent: [f32; 3],
    /// Written as 0.
    pub(crate) pad1: f32,
}

const _: () = assert!(std::mem::size_of::<GpuFrame>() == 48);

impl GpuFrame {
    /// The frame's three vectors (the handedness is in the bitangent's direction).
    #[must_use]
    pub fn to_frame(&self) -> TangentFrame {
        TangentFrame::from_arrays(self.normal, self.tangent, self.bitangent)
    }
}

/// Mirrors `Params` in `shaders/decode.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    count: u32,
    row_stride: u32,
    pad: [u32; 2],
}

/// `@workgroup_size` of `decode` in `shaders/decode.wgsl`.
const WORKGROUP: u32 = 64;

/// The compiled decode stage: one compute pipeline per format (the `QTANGENT_FORMAT` override).
pub struct DecodePipeline {
    layout: wgpu::BindGroupLayout,
    /// In [`Format::ALL`] order.
    pipelines: [wgpu::ComputePipeline; Format::ALL.len()],
}

/// A batch uploaded and bound, ready to dispatch any number of times (the benchmark reuses it).
pub(crate) struct DecodeBatch {
    groups: [u32; 2],
    /// The decoded frames, 48 bytes each.
    pub(crate) output: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    pipeline: wgpu::ComputePipeline,
}

/// What the batch decode needs of a device: compute shaders; one uniform and two storage
/// buffers in one bind group (`shaders/decode.wgsl`).
pub(crate) const NEEDS: StageNeeds = StageNeeds {
    compute: true,
    storage_buffers_per_shader_stage: 2,
    uniform_buffers_per_shader_stage: 1,
    bind_groups: 1,
    ..StageNeeds::none("batch decode")
};

impl DecodePipeline {
    /// Compiles `decode.wgsl` and builds a pipeline per format.
    ///
    /// # Errors
    /// [`GpuError::MissingLimit`] / [`GpuError::MissingCapability`] for a device short of
    /// `NEEDS`; [`GpuError::Wgpu`] if the shader or a pipeline fails validation.
    pub fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let doing = "compiling shaders/decode.wgsl";
        ctx.compile(&NEEDS, Stage::Decode, doing, |device, module| {
            let compute = wgpu::ShaderStages::COMPUTE;
            let (layout, pipeline_layout) = kit::layouts(
                device,
                "decode",
                &[
                    kit::uniform_entry(0, compute),
                    kit::storage_entry(1, compute, Access::Read),
                    kit::storage_entry(2, compute, Access::ReadWrite),
                ],
            );
            let pipelines = Format::ALL.map(|format| {
                let constants = [format_constant(format)];
                kit::compute_pipeline(device, &pipeline_layout, &module, "decode", &constants)
            });
            Self { layout, pipelines }
        })
    }

    /// Uploads `count` frames packed by [`Format::pack`] and binds them with an output buffer.
    ///
    /// # Errors
    /// [`GpuError::Empty`] for an empty batch, [`GpuError::Count`] for a stream shorter than
    /// `count` frames;
    /// [`GpuError::TooLarge`] beyond the device's buffer or dispatch limits; [`GpuError::Wgpu`].
    pub(crate) fn prepare(
        &self,
        ctx: &GpuContext,
        format: Format,
        packed: &[u32],
        count: usize,
    ) -> Result<DecodeBatch, GpuError> {
        let needed = count * format.bytes();
        if count == 0 || packed.len() * 4 < needed {
            return Err(if count == 0 {
                GpuError::Empty {
                    what: "the decode batch",
                }
            } else {
                GpuError::Count {
                    what: format!("bytes of a stream of {count} {format} frames"),
                    found: packed.len() as u64 * 4,
                    expected: needed as u64,
                }
            });
        }
        let output_bytes = count as u64 * std::mem::size_of::<GpuFrame>() as u64;
        let input_bytes = packed.len() as u64 * 4;
        ctx.check_storage_size("the packed input", input_bytes)?;
        ctx.check_storage_size("the decoded output (48 B a frame)", output_bytes)?;
        let [x, y] = ctx.dispatch_grid(
            count as u64,
            WORKGROUP,
            &format!("a dispatch of {count} frames"),
        )?;
        let params = Params {
            count: count as u32,
            row_stride: x * WORKGROUP,
            pad: [0; 2],
        };
        let pipeline = self.pipelines[format.code() as usize].clone();
        ctx.scoped("uploading a decode batch", || {
            let device = &ctx.device;
            let uniform = kit::buffer(
                device,
                "decode params",
                bytemuck::bytes_of(&params),
                wgpu::BufferUsages::UNIFORM,
            );
            let input = kit::buffer(
                device,
                "decode input",
                bytemuck::cast_slice(packed),
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            );
            let output = kit::poisoned_output(device, &ctx.queue, "decode output", output_bytes);
            let bind_group = kit::bind_group(
                device,
                "decode",
                &self.layout,
                &[
                    uniform.as_entire_binding(),
                    input.as_entire_binding(),
                    output.as_entire_binding(),
                ],
            );
            DecodeBatch {
                groups: [x, y],
                output,
                bind_group,
                pipeline,
            }
        })
    }

    /// Decodes `count` packed frames on the GPU and reads them back. The output buffer is
    /// poisoned with NaN first, so a frame the shader did not write fails any comparison.
    ///
    /// # Errors
    /// [`GpuError::Empty`] for an empty batch, [`GpuError::Count`] for a stream shorter than
    /// `count` frames; [`GpuError::TooLarge`] beyond the device's buffer or dispatch limits;
    /// [`GpuError::Wgpu`]; readback failures.
    pub fn decode(
        &self,
        ctx: &GpuContext,
        format: Format,
        packed: &[u32],
        count: usize,
    ) -> Result<Vec<GpuFrame>, GpuError> {
        let batch = self.prepare(ctx, format, packed, count)?;
        batch.poison(ctx);
        batch.run(ctx)?;
        batch.read(ctx)
    }
}

impl DecodeBatch {
    /// Fills the output with all-ones words (NaN as f32).
    pub(crate) fn poison(&self, ctx: &GpuContext) {
        kit::poison(&ctx.queue, &self.output);
    }

    /// Records the dispatch, with timestamps at the pass's start and end (query indices
    /// `first`, `first + 1`) when given.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<(&wgpu::QuerySet, u32)>,
    ) {
        kit::record_dispatch(
            encoder,
            "decode",
            &self.pipeline,
            &self.bind_group,
            self.groups,
            timestamps,
        );
    }

    /// Dispatches once and waits.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`].
    pub(crate) fn run(&self, ctx: &GpuContext) -> Result<(), GpuError> {
        ctx.scoped("decoding on the GPU", || {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            self.encode(&mut encoder, None);
            ctx.queue.submit([encoder.finish()]);
        })?;
        ctx.wait()
    }

    /// Reads the decoded frames back.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] or [`GpuError::Readback`].
    pub(crate) fn read(&self, ctx: &GpuContext) -> Result<Vec<GpuFrame>, GpuError> {
        let bytes = ctx.read_buffer(&self.output, self.output.size(), "decoded frames")?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}
