//! The lit shader's module, bind group layouts, samplers and pipelines (one per frame source,
//! output, vertex layout and map decode, built on first use).

use super::super::kit;
use super::super::mesh::{format_constant, vertex_entry_point, vertex_layout, MeshUniforms};
use super::super::qmap::GpuQuatMap;
use super::super::skin;
use super::super::wgsl::{PixelFrame, Stage};
use super::super::{GpuContext, GpuError, StageNeeds};
use crate::gpu::kit::PipelineCache;

/// What the lit renderer needs of a device (`shaders/lit.wgsl`): four bind groups (object,
/// scene, material, map), six sampled textures and two uniform buffers in the fragment stage,
/// two vertex buffers, and two colour targets for the debug outputs.
pub(crate) const NEEDS: StageNeeds = StageNeeds {
    sampled_textures_per_shader_stage: 6,
    uniform_buffers_per_shader_stage: 2,
    bind_groups: 4,
    vertex_buffers: 2,
    color_attachments: 2,
    ..StageNeeds::none("lit renderer")
};
use super::{Output, Renderer, DEBUG_FORMAT, DEPTH_FORMAT, FALLBACK_FORMAT};
use crate::render::FrameSource;
use crate::Format;

/// What a pipeline is specialised for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct PipelineKey {
    /// Where the pixel's frame comes from.
    pub(super) source: FrameSource,
    /// What the fragment stage writes.
    pub(super) output: Output,
    /// The quaternion map has a UV layout of its own (a second UV set in the stream).
    pub(super) map_uv: bool,
    /// Positions and snorm16x4 qtangents from a skinning batch's output
    /// ([`skin::output_layout`]), UVs from the position + UV stream.
    pub(super) skinned: bool,
    /// How the drawn map is decoded (`MAP_DECODE`, `MAP_DERIVED_HANDEDNESS`, `MAP_AXIAL`).
    pub(super) shading: MapShading,
}

impl PipelineKey {
    /// The key of a draw; the map's UV set matters only where it is read (the object-space map,
    /// or a skinned stream's stride).
    pub(super) fn new(
        source: FrameSource,
        output: Output,
        map_uv: bool,
        skinned: bool,
        shading: MapShading,
    ) -> Self {
        Self {
            source,
            output,
            map_uv: map_uv && (source == FrameSource::QuatMap || skinned),
            skinned,
            shading,
        }
    }
}

/// How a drawn quaternion map is decoded: the overrides of `shaders/qmap.wgsl` and
/// `shaders/lit.wgsl` that depend on the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct MapShading {
    /// [`crate::qmap::stored::EncodedMap::decode`].
    pub(crate) decode: crate::qmap::MapDecode,
    /// Object-space handedness from the UV winding (no plane).
    pub(crate) derived_handedness: bool,
    /// A tangent-space map with a doubled (axial) twist (`MAP_AXIAL`).
    pub(crate) axial_twist: bool,
}

impl MapShading {
    /// The decode of `map`.
    pub(super) fn of(map: &GpuQuatMap) -> Self {
        Self {
            decode: map.decode,
            derived_handedness: !map.plane,
            axial_twist: map.axial_twist,
        }
    }
}

/// A uniform block read at a dynamic offset: one [`MeshUniforms`] slot of a
/// [`super::PreparedView`]'s object buffer per draw.
fn dynamic_uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<MeshUniforms>() as u64),
        },
        count: None,
    }
}

/// A uniform block seen by both stages.
fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    kit::uniform_entry(binding, wgpu::ShaderStages::VERTEX_FRAGMENT)
}

/// A filterable texture of the fragment stage.
fn texture_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    kit::texture_entry(binding, wgpu::ShaderStages::FRAGMENT, true)
}

/// A filtering sampler of the fragment stage.
fn sampler_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    kit::sampler_entry(binding, wgpu::ShaderStages::FRAGMENT, true)
}

const REFERENCE_ATTRIBUTES: [wgpu::VertexAttribute; 4] = wgpu::vertex_attr_array![
    0 => Float32x3, 1 => Float32x2, 2 => Float32x3, 3 => Float32x4
];
const POSITION_UV_ATTRIBUTES: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x2];
const SKINNED_UV_ATTRIBUTES: [wgpu::VertexAttribute; 1] = [wgpu::VertexAttribute {
    format: wgpu::VertexFormat::Float32x2,
    offset: 12,
    shader_location: 1,
}];
const MAP_UV_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x2, 2 => Float32x2];

/// Bytes per vertex of the reference stream: position, UV, f32 normal, f32 tangent + w.
pub(super) const REFERENCE_STRIDE: u64 = 48;
/// Bytes per vertex of the quaternion-map stream: position and UV.
pub(super) const POSITION_UV_STRIDE: u64 = 20;
/// Bytes per vertex of the quaternion-map stream of a mesh whose map has its own layout
/// ([`crate::qmap::atlas`]): position, UV and the map's UV.
pub(super) const MAP_UV_STRIDE: u64 = 28;

impl Renderer {
    /// Compiles `shaders/lit.wgsl` and makes the layouts and samplers.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] if the shader or a layout is rejected.
    pub fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        ctx.compile(
            &NEEDS,
            Stage::Lit,
            "creating the lit renderer",
            |device, module| {
                let layout = |label, entries: &[wgpu::BindGroupLayoutEntry]| {
                    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some(label),
                        entries,
                    })
                };
                let object_layout = layout("lit object", &[dynamic_uniform_entry(0)]);
                let scene_layout = layout("lit scene", &[uniform_entry(0)]);
                let material_layout = layout(
                    "lit material",
                    &[
                        uniform_entry(0),
                        texture_entry(1),
                        texture_entry(2),
                        texture_entry(3),
                        sampler_entry(4),
                        texture_entry(5),
                    ],
                );
                let map_layout = layout(
                    "lit quaternion map",
                    &[texture_entry(0), texture_entry(1), sampler_entry(2)],
                );
                let pipeline_layout =
                    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("lit"),
                        bind_group_layouts: &[
                            Some(&object_layout),
                            Some(&scene_layout),
                            Some(&material_layout),
                            Some(&map_layout),
                        ],
                        immediate_size: 0,
                    });
                // glTF's default sampler: repeat, trilinear.
                let material_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
                    label: Some("lit material"),
                    address_mode_u: wgpu::AddressMode::Repeat,
                    address_mode_v: wgpu::AddressMode::Repeat,
                    mag_filter: wgpu::FilterMode::Linear,
                    min_filter: wgpu::FilterMode::Linear,
                    mipmap_filter: wgpu::MipmapFilterMode::Linear,
                    ..Default::default()
                });
                // The map's padding covers the texels a bilinear footprint reaches past an island;
                // clamping keeps the far edge out.
                let map_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
                    label: Some("lit quaternion map"),
                    address_mode_u: wgpu::AddressMode::ClampToEdge,
                    address_mode_v: wgpu::AddressMode::ClampToEdge,
                    mag_filter: wgpu::FilterMode::Linear,
                    min_filter: wgpu::FilterMode::Linear,
                    mipmap_filter: wgpu::MipmapFilterMode::Linear,
                    ..Default::default()
                });
                Self {
                    module,
                    layout: pipeline_layout,
                    object_layout,
                    scene_layout,
                    material_layout,
                    map_layout,
                    material_sampler,
                    map_sampler,
                    pipelines: PipelineCache::new(),
                }
            },
        )
    }

    /// The pipeline for `key` (built on first use and kept).
    pub(super) fn pipeline(
        &self,
        ctx: &GpuContext,
        key: PipelineKey,
    ) -> Result<wgpu::RenderPipeline, GpuError> {
        self.pipelines
            .get_or_make(key, || self.make_pipeline(ctx, key))
    }

    /// Makes the pipeline for `key`.
    fn make_pipeline(
        &self,
        ctx: &GpuContext,
        key: PipelineKey,
    ) -> Result<wgpu::RenderPipeline, GpuError> {
        let vertex = VertexInput::of(&key)?;
        let (fs_entry, formats): (&str, Vec<wgpu::TextureFormat>) = match key.output {
            Output::Color(f) => ("fs_lit", vec![f]),
            Output::Frame => ("fs_debug_frame", vec![DEBUG_FORMAT; 2]),
            Output::Shading => ("fs_debug_shading", vec![DEBUG_FORMAT; 2]),
        };
        let targets: Vec<Option<wgpu::ColorTargetState>> = formats
            .into_iter()
            .map(|format| {
                Some(wgpu::ColorTargetState {
                    format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })
            })
            .collect();
        let constants = [
            format_constant(vertex.format),
            ("FRAME_SOURCE", f64::from(PixelFrame::of(key.source).code())),
            crate::gpu::map_decode_constant(key.shading.decode),
            (
                "MAP_DERIVED_HANDEDNESS",
                f64::from(u8::from(key.shading.derived_handedness)),
            ),
            ("MAP_AXIAL", f64::from(u8::from(key.shading.axial_twist))),
        ];
        let options = wgpu::PipelineCompilationOptions {
            constants: &constants,
            ..Default::default()
        };
        let label = format!("lit {} {:?}", key.source, key.output);
        ctx.scoped(&format!("creating the {label} pipeline"), || {
            ctx.device
                .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(&label),
                    layout: Some(&self.layout),
                    vertex: wgpu::VertexState {
                        module: &self.module,
                        entry_point: Some(vertex.entry),
                        compilation_options: options.clone(),
                        buffers: &vertex.buffers,
                    },
                    fragment: Some(wgpu::FragmentState {
                        module: &self.module,
                        entry_point: Some(fs_entry),
                        compilation_options: options.clone(),
                        targets: &targets,
                    }),
                    primitive: wgpu::PrimitiveState {
                        topology: wgpu::PrimitiveTopology::TriangleList,
                        front_face: wgpu::FrontFace::Ccw,
                        // Double-sided: glTF's doubleSided is common and the back faces shade
                        // with the flipped normal.
                        cull_mode: None,
                        ..Default::default()
                    },
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: DEPTH_FORMAT,
                        depth_write_enabled: Some(true),
                        depth_compare: Some(wgpu::CompareFunction::Less),
                        stencil: wgpu::StencilState::default(),
                        bias: wgpu::DepthBiasState::default(),
                    }),
                    multisample: wgpu::MultisampleState::default(),
                    multiview_mask: None,
                    cache: None,
                })
        })
    }
}

/// What the vertex stage of a pipeline reads: its entry point, buffers and qtangent format.
struct VertexInput {
    entry: &'static str,
    buffers: Vec<Option<wgpu::VertexBufferLayout<'static>>>,
    format: Format,
}

impl VertexInput {
    /// The vertex input of `key`'s frame source: the reference stream, a qtangent stream, the
    /// position + UV stream (with the map's own UVs when `map_uv`), or a skinning batch's output
    /// beside the position + UV stream (its UVs).
    fn of(key: &PipelineKey) -> Result<Self, GpuError> {
        let plain = |entry, layout, format| Self {
            entry,
            buffers: vec![Some(layout)],
            format,
        };
        let layout = |array_stride, attributes| wgpu::VertexBufferLayout {
            array_stride,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes,
        };
        if key.skinned {
            if key.source != FrameSource::QTangent(Format::Snorm16x4) {
                return Err(GpuError::Invalid {
                    what: format!("skinned meshes drawn with {}", key.source),
                    reason: "skinned meshes are drawn with their snorm16x4 frames",
                });
            }
            let stride = if key.map_uv {
                MAP_UV_STRIDE
            } else {
                POSITION_UV_STRIDE
            };
            return Ok(Self {
                entry: vertex_entry_point(Format::Snorm16x4),
                buffers: vec![
                    Some(skin::output_layout()),
                    Some(layout(stride, &SKINNED_UV_ATTRIBUTES)),
                ],
                format: Format::Snorm16x4,
            });
        }
        Ok(match key.source {
            FrameSource::Reference => plain(
                "vs_reference",
                layout(REFERENCE_STRIDE, &REFERENCE_ATTRIBUTES),
                FALLBACK_FORMAT,
            ),
            FrameSource::QTangent(f) => plain(vertex_entry_point(f), vertex_layout(f), f),
            FrameSource::QuatMap if key.map_uv => plain(
                "vs_position_uv2",
                layout(MAP_UV_STRIDE, &MAP_UV_ATTRIBUTES),
                FALLBACK_FORMAT,
            ),
            FrameSource::QuatMap => plain(
                "vs_position_uv",
                layout(POSITION_UV_STRIDE, &POSITION_UV_ATTRIBUTES),
                FALLBACK_FORMAT,
            ),
            FrameSource::QuatMapTangent => plain(
                vertex_entry_point(FALLBACK_FORMAT),
                vertex_layout(FALLBACK_FORMAT),
                FALLBACK_FORMAT,
            ),
        })
    }
}

impl PixelFrame {
    /// Where the lighting shader takes `source`'s pixel frame from.
    pub(crate) fn of(source: FrameSource) -> Self {
        match source {
            FrameSource::Reference | FrameSource::QTangent(_) => Self::Vertex,
            FrameSource::QuatMap => Self::ObjectMap,
            FrameSource::QuatMapTangent => Self::TangentMap,
        }
    }
}
