//! Readback of the mesh vertex stage: renders a vertex stream as points, one pixel per vertex,
//! through the real vertex entry point of `shaders/mesh.wgsl`, and reads back the world normal
//! and tangent each vertex passed on, so tests compare the vertex-shader decode with the CPU's.
//! And the renderer's debug targets read back (`Renderer::render_debug`, with `render`).

use glam::{Vec3, Vec4};

use crate::gpu::kit;
use crate::gpu::mesh::{format_constant, vertex_entry_point, vertex_layout, MeshUniforms};
use crate::gpu::wgsl::Stage;
use crate::gpu::{GpuContext, GpuError};
use crate::mesh::vertex::VertexStream;

/// Width of the readback target: 256 texels × 16 bytes = 4096 bytes a row, a multiple of wgpu's
/// 256-byte copy alignment.
pub(crate) const READBACK_WIDTH: u32 = 256;

/// Bytes in one row of a readback target (`Rgba32Float`).
const BYTES_PER_ROW: u32 = READBACK_WIDTH * 16;

/// The targets' format: f32 so the comparison sees the vertex stage's own arithmetic.
const TARGET_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// World-space frames of every vertex as the vertex stage computed them: entry `i` is vertex
/// `i`; entries past the vertex count (the rest of the last grid row) hold the −7 poison.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VertexFrames {
    /// World normal per vertex (the target's xyz).
    pub(crate) normals: Vec<Vec3>,
    /// World tangent per vertex, w = handedness.
    pub(crate) tangents: Vec<Vec4>,
}

/// Renders `stream` as points with `GRID_WIDTH` set and reads back the world n and t each vertex
/// passed on.
///
/// The targets are cleared to −7 first, so a vertex the GPU never wrote reads as an impossible
/// normal.
///
/// # Errors
/// [`GpuError::TooLarge`] when the grid exceeds the device's texture size;
/// [`GpuError::Empty`] for an empty stream; [`GpuError::Wgpu`] / [`GpuError::Readback`].
pub(crate) fn read_vertex_frames(
    ctx: &GpuContext,
    stream: &VertexStream,
    uniforms: &MeshUniforms,
) -> Result<VertexFrames, GpuError> {
    let count = u32::try_from(stream.vertex_count).map_err(|_| GpuError::Invalid {
        what: format!("{} vertices", stream.vertex_count),
        reason: "more than a u32 draw holds",
    })?;
    if count == 0 {
        return Err(GpuError::Empty {
            what: "the vertex stream to read back",
        });
    }
    let height = count.div_ceil(READBACK_WIDTH);
    let max = ctx.device.limits().max_texture_dimension_2d;
    if height > max {
        return Err(GpuError::TooLarge {
            what: format!("readback target for {count} vertices"),
            needed: u64::from(height),
            limit: u64::from(max),
            limit_name: "max_texture_dimension_2d (rows)",
        });
    }
    let buffer_size = u64::from(BYTES_PER_ROW) * u64::from(height);
    let (readbacks, _) = ctx.scoped("rendering the vertex-frame readback", || {
        draw_points(ctx, stream, uniforms, count, height)
    })?;
    let texels = |i: usize, what: &str| -> Result<Vec<[f32; 4]>, GpuError> {
        let bytes = ctx.read_buffer(&readbacks[i], buffer_size, what)?;
        Ok(bytemuck::pod_collect_to_vec::<u8, [f32; 4]>(&bytes))
    };
    let normals = texels(0, "vertex normals")?
        .into_iter()
        .map(|t| Vec3::new(t[0], t[1], t[2]))
        .collect();
    let tangents = texels(1, "vertex tangents")?
        .into_iter()
        .map(Vec4::from)
        .collect();
    Ok(VertexFrames { normals, tangents })
}

/// The readback pipeline: the format's vertex entry point with the grid overrides, `fs_frame`
/// writing n and t to two float targets, drawn as points.
fn pipeline(
    ctx: &GpuContext,
    stream: &VertexStream,
    height: u32,
) -> (wgpu::RenderPipeline, wgpu::BindGroupLayout) {
    let device = &ctx.device;
    let module = Stage::Mesh.module(device);
    let (group, layout) = kit::layouts(
        device,
        "mesh readback",
        &[kit::uniform_entry(0, wgpu::ShaderStages::VERTEX)],
    );
    let constants = [
        format_constant(stream.format),
        ("GRID_WIDTH", f64::from(READBACK_WIDTH)),
        ("GRID_HEIGHT", f64::from(height)),
    ];
    let target = wgpu::ColorTargetState {
        format: TARGET_FORMAT,
        blend: None,
        write_mask: wgpu::ColorWrites::ALL,
    };
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("mesh readback"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some(vertex_entry_point(stream.format)),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                ..Default::default()
            },
            buffers: &[Some(vertex_layout(stream.format))],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_frame"),
            compilation_options: Default::default(),
            targets: &[Some(target.clone()), Some(target)],
        }),
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::PointList,
            ..Default::default()
        },
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    });
    (pipeline, group)
}

/// Draws every vertex into the two poisoned targets and copies them into readback buffers
/// (returned with the textures, which must live until the copy is done).
fn draw_points(
    ctx: &GpuContext,
    stream: &VertexStream,
    uniforms: &MeshUniforms,
    count: u32,
    height: u32,
) -> ([wgpu::Buffer; 2], [wgpu::Texture; 2]) {
    let device = &ctx.device;
    let (pipeline, group) = pipeline(ctx, stream, height);
    let uniform_buffer = kit::buffer(
        device,
        "mesh uniforms",
        bytemuck::bytes_of(uniforms),
        wgpu::BufferUsages::UNIFORM,
    );
    let vertices = kit::buffer(
        device,
        "mesh vertices",
        &stream.bytes,
        wgpu::BufferUsages::VERTEX,
    );
    let bind_group = kit::bind_group(
        device,
        "mesh readback",
        &group,
        &[uniform_buffer.as_entire_binding()],
    );
    let textures = [0, 1].map(|_| {
        kit::render_target(
            device,
            "vertex frame target",
            TARGET_FORMAT,
            (READBACK_WIDTH, height),
            wgpu::TextureUsages::empty(),
        )
    });
    let views = textures
        .each_ref()
        .map(|t| t.create_view(&Default::default()));
    let readbacks = [0, 1].map(|_| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("vertex frame readback"),
            size: u64::from(BYTES_PER_ROW) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        // Poison: −7 is no component of a unit vector, so an unwritten texel fails.
        let poison = wgpu::Color {
            r: -7.0,
            g: -7.0,
            b: -7.0,
            a: -7.0,
        };
        let attachments = views.each_ref().map(|view| {
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(poison),
                    store: wgpu::StoreOp::Store,
                },
            })
        });
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("vertex frame readback"),
            color_attachments: &attachments,
            ..Default::default()
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.draw(0..count, 0..1);
    }
    for (texture, buffer) in textures.iter().zip(&readbacks) {
        kit::copy_to_buffer(&mut encoder, texture, buffer, BYTES_PER_ROW);
    }
    ctx.queue.submit([encoder.finish()]);
    (readbacks, textures)
}

/// The largest component difference between the world normal and tangent the vertex stage
/// computed for each vertex of `stream` (`read_vertex_frames`) and the CPU decode of the same
/// bytes moved to world space by `uniforms` (`frames_diff`, NaN-propagating). A vertex the
/// GPU never wrote reads as the −7 clear value, far outside any bound.
///
/// # Errors
/// As `read_vertex_frames`.
pub fn vertex_stage_diff(
    ctx: &GpuContext,
    stream: &VertexStream,
    uniforms: &MeshUniforms,
) -> Result<f32, GpuError> {
    let gpu = read_vertex_frames(ctx, stream, uniforms)?;
    Ok(frames_diff(&gpu, stream, uniforms))
}

/// The comparison of [`vertex_stage_diff`]: NaN as soon as any component the GPU wrote is not
/// finite (`f32::max` and `Vec3::max_element` would drop a NaN), so it cannot pass a bound.
pub(crate) fn frames_diff(
    gpu: &VertexFrames,
    stream: &VertexStream,
    uniforms: &MeshUniforms,
) -> f32 {
    let mut diff = 0.0f32;
    for i in 0..stream.vertex_count {
        let (normal, tangent) = (gpu.normals[i], gpu.tangents[i]);
        if !(normal.is_finite() && tangent.is_finite()) {
            return f32::NAN;
        }
        let (n, t) = uniforms.world_frame(&stream.qtangent(i).to_frame());
        let d = (normal - n)
            .abs()
            .max_element()
            .max((tangent - t).abs().max_element());
        diff = diff.max(d);
    }
    diff
}

impl crate::gpu::MeshUniforms {
    /// The world-space normal and tangent (w = handedness) the vertex function computes from
    /// an object-space frame, in the same f32 operations (CPU reference for the readback test).
    #[must_use]
    pub(crate) fn world_frame(&self, f: &crate::TangentFrame) -> (glam::Vec3, glam::Vec4) {
        let n = (self.normal_matrix * f.normal.extend(0.0))
            .truncate()
            .normalize();
        let t = (self.model * f.tangent.extend(0.0)).truncate().normalize();
        (n, t.extend(f.handedness() * self.model_handedness))
    }
}

/// The renderer's debug targets read back: the render tests' and the disc table's way to see the
/// frames and shading the draw computed, per pixel.
#[cfg(feature = "render")]
impl crate::gpu::Renderer {
    /// Renders a debug output ([`Output::Frame`](crate::gpu::Output::Frame) or
    /// [`Output::Shading`](crate::gpu::Output::Shading)) of `shot` and reads
    /// back its two targets, row-major, one `[f32; 4]` per pixel; pixels no triangle covered hold
    /// `DEBUG_POISON`. The tests' and the lab's readback; a renderer of its own draws these
    /// outputs into its targets with `Renderer::draw`.
    ///
    /// # Errors
    /// [`GpuError::Invalid`] for [`Output::Color`](crate::gpu::Output::Color); as
    /// `Renderer::render_image`.
    pub(crate) fn render_debug(
        &self,
        ctx: &GpuContext,
        scene: &crate::gpu::GpuScene,
        shot: &crate::gpu::Shot<'_>,
        output: crate::gpu::Output,
    ) -> Result<[Vec<[f32; 4]>; 2], GpuError> {
        if matches!(output, crate::gpu::Output::Color(_)) {
            return Err(GpuError::Invalid {
                what: "render_debug's output".into(),
                reason: "it takes Output::Frame or Output::Shading",
            });
        }
        let targets = self.render_targets(ctx, scene, shot, output)?;
        let read = |i: usize| -> Result<Vec<[f32; 4]>, GpuError> {
            let bytes = ctx.read_texture(&targets[i], "a debug target")?;
            Ok(bytemuck::pod_collect_to_vec::<u8, [f32; 4]>(&bytes))
        };
        Ok([read(0)?, read(1)?])
    }
}
