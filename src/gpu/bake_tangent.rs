//! The GPU baker of tangent-space quaternion maps (`shaders/bake_tangent.wgsl`): one compute
//! dispatch over every level turns normal-map vectors (and twist angles) into packed rotations, the
//! same texels as [`crate::qmap::tangent::bake_cpu`] to f32 rounding. The output buffer is
//! poisoned first (all-ones words: no packing of a unit quaternion in any format), so a texel the
//! kernel did not write never passes for a rotation.

use super::bake::format_code;
use super::kit::{self, Access};
use super::wgsl::Stage;
use super::{GpuContext, GpuError, StageNeeds};
use crate::qmap::tangent::TwistField;
use crate::qmap::{MapFormat, MapLevel, NormalMap, QuatMap};

const WORKGROUP: u32 = 64;

/// `TangentParams` in the WGSL.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    count: u32,
    row: u32,
    pad: [u32; 2],
}

/// The kernel's input for every texel of every level, concatenated level after level:
/// (m.x, m.y, m.z, φ).
fn inputs(levels: &[NormalMap], twist: Option<TwistField<'_>>) -> Result<Vec<[f32; 4]>, GpuError> {
    let mut input = Vec::new();
    for (k, nm) in levels.iter().enumerate() {
        let (w, h) = (nm.width, nm.height);
        if nm.texels.len() != (w as usize) * (h as usize) || nm.texels.is_empty() {
            return Err(GpuError::Count {
                what: format!("texels of normal-map level {k} ({w}×{h})"),
                found: nm.texels.len() as u64,
                expected: u64::from(w) * u64::from(h),
            });
        }
        input.extend(nm.texels.iter().enumerate().map(|(i, m)| {
            let phi = twist.map_or(0.0, |f| f.at(k, i));
            [m.x, m.y, m.z, phi]
        }));
    }
    Ok(input)
}

/// Runs the kernel once over `input` (every level at once) and reads the packed words back.
fn run_kernel(
    ctx: &GpuContext,
    input: &[[f32; 4]],
    format: MapFormat,
) -> Result<Vec<[u32; 4]>, GpuError> {
    let count = input.len();
    let bytes = count as u64 * 16;
    ctx.check_storage_size("the tangent-map bake (16 B a texel)", bytes)?;
    let [gx, gy] = ctx.dispatch_grid(count as u64, WORKGROUP, "the tangent-map bake")?;
    let params = Params {
        count: count as u32,
        row: gx * WORKGROUP,
        pad: [0; 2],
    };
    let output = ctx.scoped("baking a tangent-space quaternion map", || {
        let device = &ctx.device;
        let compute = wgpu::ShaderStages::COMPUTE;
        let (layout, pipeline_layout) = kit::layouts(
            device,
            "bake_tangent",
            &[
                kit::uniform_entry(0, compute),
                kit::storage_entry(1, compute, Access::Read),
                kit::storage_entry(2, compute, Access::ReadWrite),
            ],
        );
        let module = Stage::BakeTangent.module(device);
        let constants = [("MAP_FORMAT", format_code(format))];
        let pipeline = kit::compute_pipeline(
            device,
            &pipeline_layout,
            &module,
            "bake_tangent",
            &constants,
        );
        let uniform = kit::buffer(
            device,
            "bake_tangent params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let input = kit::buffer(
            device,
            "bake_tangent input",
            bytemuck::cast_slice(input),
            wgpu::BufferUsages::STORAGE,
        );
        let output = kit::poisoned_output(device, &ctx.queue, "bake_tangent output", bytes);
        let bind_group = kit::bind_group(
            device,
            "bake_tangent",
            &layout,
            &[
                uniform.as_entire_binding(),
                input.as_entire_binding(),
                output.as_entire_binding(),
            ],
        );
        kit::submit_dispatch(
            device,
            &ctx.queue,
            "bake_tangent",
            &pipeline,
            &bind_group,
            [gx, gy],
        );
        output
    })?;
    let bytes = ctx.read_buffer(&output, bytes, "the baked tangent-space map")?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

/// What the tangent-space bake needs of a device: compute shaders; one uniform and two storage
/// buffers in one bind group (`shaders/bake_tangent.wgsl`).
pub(crate) const NEEDS: StageNeeds = StageNeeds {
    compute: true,
    storage_buffers_per_shader_stage: 2,
    uniform_buffers_per_shader_stage: 1,
    bind_groups: 1,
    ..StageNeeds::none("tangent-space map bake")
};

/// Bakes a tangent-space map on the GPU from a normal map's mip chain and an optional twist
/// field: the same map as [`crate::qmap::tangent::bake_cpu`] (texels equal to one step of
/// `format` where f32 rounding lands a value on the other side of a rounding boundary).
///
/// # Errors
/// [`GpuError::Empty`] for no levels, [`GpuError::Count`] for a level whose texel count is not
/// its size;
/// [`GpuError::TooLarge`] beyond the device's buffer limits; wgpu and readback errors.
pub(crate) fn bake_gpu(
    ctx: &GpuContext,
    levels: &[NormalMap],
    twist: Option<TwistField<'_>>,
    format: MapFormat,
) -> Result<QuatMap, GpuError> {
    ctx.check(&NEEDS)?;
    if levels.is_empty() {
        return Err(GpuError::Empty {
            what: "the normal-map levels of a tangent-space map",
        });
    }
    // As few dispatches as the device's storage binding limit allows (usually one for every
    // level): one pipeline each, one upload, one readback.
    let input = inputs(levels, twist)?;
    let per_run = (ctx.device.limits().max_storage_buffer_binding_size / 16).max(1) as usize;
    let mut words = Vec::with_capacity(input.len());
    for chunk in input.chunks(per_run) {
        words.extend(run_kernel(ctx, chunk, format)?);
    }
    let mut at = 0;
    let mut out = Vec::with_capacity(levels.len());
    for nm in levels {
        let n = nm.texels.len();
        out.push(MapLevel {
            width: nm.width,
            height: nm.height,
            quats: words[at..at + n]
                .iter()
                .map(|&w| format.unpack(w))
                .collect(),
            handedness: vec![1; n],
        });
        at += n;
    }
    Ok(crate::qmap::tangent::finish(out, twist.is_some(), format))
}
