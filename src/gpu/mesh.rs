//! The mesh vertex stage (`shaders/mesh.wgsl`): vertex-buffer layouts for interleaved qtangent
//! streams ([`crate::mesh::vertex`]), the uniforms the vertex function reads, and a readback
//! pipeline that renders every vertex's world-space frame into float targets so tests can
//! compare the vertex-shader decode with the CPU's.

use glam::{Mat3, Mat4, Vec3};
use wgpu::util::DeviceExt;

use super::wgsl::{self, Stage};
use super::{GpuContext, GpuError};
use crate::format::Fetch;
use crate::mesh::vertex::{self, VertexStream};
use crate::Format;

/// The wgpu vertex format that carries a qtangent format.
#[must_use]
pub(crate) const fn qtangent_vertex_format(format: Format) -> wgpu::VertexFormat {
    match format.info().fetch {
        Fetch::Float32x4 => wgpu::VertexFormat::Float32x4,
        Fetch::Float16x4 => wgpu::VertexFormat::Float16x4,
        Fetch::Snorm16x4 => wgpu::VertexFormat::Snorm16x4,
        Fetch::Uint32x2 => wgpu::VertexFormat::Uint32x2,
        Fetch::Uint32 => wgpu::VertexFormat::Uint32,
    }
}

const fn attributes(q: wgpu::VertexFormat) -> [wgpu::VertexAttribute; 3] {
    [
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: vertex::POSITION_OFFSET as u64,
            shader_location: 0,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x2,
            offset: vertex::UV_OFFSET as u64,
            shader_location: 1,
        },
        wgpu::VertexAttribute {
            format: q,
            offset: vertex::QTANGENT_OFFSET as u64,
            shader_location: 2,
        },
    ]
}

const ATTRIBUTES: [[wgpu::VertexAttribute; 3]; Format::ALL.len()] = {
    let mut out = [attributes(wgpu::VertexFormat::Uint32); Format::ALL.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = attributes(qtangent_vertex_format(Format::ALL[i]));
        i += 1;
    }
    out
};

/// The vertex-buffer layout of an interleaved stream in `format`: position `Float32x3` at
/// location 0, UV `Float32x2` at 1, the qtangent at 2 (the format's vertex fetch).
#[must_use]
pub fn vertex_layout(format: Format) -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: vertex::stride(format) as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &ATTRIBUTES[format.code() as usize],
    }
}

/// The vertex entry point of `shaders/mesh.wgsl` ([`super::Wgsl::Mesh`]) that takes `format`'s
/// attribute (`vs_vec4f`, `vs_vec2u` or `vs_u32`); set the `QTANGENT_FORMAT` override to the
/// format's code (the generated `FORMAT_*` constant, [`format_constant`]).
#[must_use]
pub fn vertex_entry_point(format: Format) -> &'static str {
    match wgsl::fetch_type(format.info().fetch).1 {
        "vec4f" => "vs_vec4f",
        "vec2u" => "vs_vec2u",
        _ => "vs_u32",
    }
}

/// The pipeline constant selecting `format` in qtangent's WGSL: `("QTANGENT_FORMAT", code)`.
#[must_use]
pub fn format_constant(format: Format) -> (&'static str, f64) {
    ("QTANGENT_FORMAT", f64::from(format.code()))
}

/// `MeshUniforms` in `shaders/mesh.wgsl`, field for field (208 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MeshUniforms {
    /// Object to world.
    pub model: Mat4,
    /// Inverse transpose of `model`'s upper 3×3, in a mat4 (no vec3/mat3 in uniforms).
    pub normal_matrix: Mat4,
    /// World to clip.
    pub view_proj: Mat4,
    /// `sign(det(model))`: a mirroring model matrix flips every frame's handedness.
    pub model_handedness: f32,
    /// Padding to 16 bytes.
    pub pad: [f32; 3],
}

const _: () = assert!(std::mem::size_of::<MeshUniforms>() == 208);

impl MeshUniforms {
    /// Uniforms for a model matrix (invertible) and a view-projection matrix.
    #[must_use]
    pub fn new(model: Mat4, view_proj: Mat4) -> Self {
        let m3 = Mat3::from_mat4(model);
        Self {
            model,
            normal_matrix: Mat4::from_mat3(m3.inverse().transpose()),
            view_proj,
            model_handedness: if m3.determinant() < 0.0 { -1.0 } else { 1.0 },
            pad: [0.0; 3],
        }
    }

    /// The world-space normal and tangent (w = handedness) the vertex function computes from
    /// an object-space frame, in the same f32 operations (CPU reference for the readback test).
    #[must_use]
    pub fn world_frame(&self, f: &crate::TangentFrame) -> (Vec3, glam::Vec4) {
        let n = (self.normal_matrix * f.normal.extend(0.0))
            .truncate()
            .normalize();
        let t = (self.model * f.tangent.extend(0.0)).truncate().normalize();
        (n, t.extend(f.handedness() * self.model_handedness))
    }
}

/// Width of the readback target: 256 texels × 16 bytes = 4096 bytes a row, a multiple of wgpu's
/// 256-byte copy alignment.
pub const READBACK_WIDTH: u32 = 256;

/// World-space frames of every vertex as the vertex stage computed them: entry `i` is vertex
/// `i`; entries past the vertex count (the rest of the last grid row) hold the −7 poison.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexFrames {
    /// World normal per vertex (the target's xyz).
    pub normals: Vec<Vec3>,
    /// World tangent per vertex, w = handedness.
    pub tangents: Vec<glam::Vec4>,
}

/// Renders a vertex stream as points, one pixel per vertex, through the real vertex entry point
/// with `GRID_WIDTH` set, and reads back the world n and t each vertex passed on.
///
/// The targets are cleared to −7 first, so a vertex the GPU never wrote reads as an impossible
/// normal.
///
/// # Errors
/// [`GpuError::TooLarge`] when the grid exceeds the device's texture size;
/// [`GpuError::Empty`] for an empty stream; [`GpuError::Wgpu`] / [`GpuError::Readback`].
pub fn read_vertex_frames(
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
    let device = &ctx.device;
    let size = wgpu::Extent3d {
        width: READBACK_WIDTH,
        height,
        depth_or_array_layers: 1,
    };
    let bytes_per_row = READBACK_WIDTH * 16;
    let buffer_size = u64::from(bytes_per_row) * u64::from(height);
    let (readbacks, _) = ctx.scoped("rendering the vertex-frame readback", || {
        let module = Stage::Mesh.module(device);
        let uniform_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh uniforms"),
            contents: bytemuck::bytes_of(uniforms),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh vertices"),
            contents: &stream.bytes,
            usage: wgpu::BufferUsages::VERTEX,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mesh"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("mesh"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform_buffer.as_entire_binding(),
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("mesh readback"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let constants = [
            format_constant(stream.format),
            ("GRID_WIDTH", f64::from(READBACK_WIDTH)),
            ("GRID_HEIGHT", f64::from(height)),
        ];
        let target = wgpu::ColorTargetState {
            format: wgpu::TextureFormat::Rgba32Float,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        };
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("mesh readback"),
            layout: Some(&pipeline_layout),
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
        let textures = [0, 1].map(|_| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some("vertex frame target"),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba32Float,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        });
        let views = textures
            .each_ref()
            .map(|t| t.create_view(&Default::default()));
        let readbacks = [0, 1].map(|_| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("vertex frame readback"),
                size: buffer_size,
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
            encoder.copy_texture_to_buffer(
                texture.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(bytes_per_row),
                        rows_per_image: Some(height),
                    },
                },
                size,
            );
        }
        ctx.queue.submit([encoder.finish()]);
        (readbacks, textures)
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
        .map(glam::Vec4::from)
        .collect();
    Ok(VertexFrames { normals, tangents })
}
