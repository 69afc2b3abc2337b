//! The mesh vertex stage (`shaders/mesh.wgsl`): vertex-buffer layouts for interleaved qtangent
//! streams ([`crate::mesh::VertexStream`]) and the uniforms the vertex function reads. The readback
//! of every vertex's world frame that tests compare with the CPU lives in `lab::readback`.

use super::wgsl;
use crate::format::Fetch;
use crate::mesh::vertex;
use crate::Format;
use glam::{Mat3, Mat4};

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

/// The vertex entry point of `shaders/mesh.wgsl` ([`crate::Wgsl::Mesh`]) that takes `format`'s
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
    pub(crate) model: Mat4,
    /// Inverse transpose of `model`'s upper 3×3, in a mat4 (no vec3/mat3 in uniforms).
    pub(crate) normal_matrix: Mat4,
    /// World to clip.
    pub(crate) view_proj: Mat4,
    /// `sign(det(model))`: a mirroring model matrix flips every frame's handedness.
    pub(crate) model_handedness: f32,
    /// Padding to 16 bytes.
    pub(crate) pad: [f32; 3],
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
}
