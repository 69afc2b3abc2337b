//! The lit renderer (`shaders/lit.wgsl`): uploads a [`RenderScene`] (vertex streams for every frame
//! source, material textures, quaternion maps baked on the GPU) and draws it with the shading
//! frame from the [`FrameSource`] asked for, into an offscreen image or any colour view (the
//! `viewer` example's window). Tests read back the shading frame or the linear radiance
//! instead of the picture ([`Output`]).

use std::collections::HashMap;
use std::sync::Mutex;

use glam::Vec3;
use image::RgbaImage;
use wgpu::util::DeviceExt;

use super::mesh::{vertex_entry_point, vertex_layout, MeshUniforms};
use super::qmap::{upload as upload_map, upload_encoded, GpuQuatMap};
use super::skin::{self, SkinBatch};
use super::{shaders, GpuContext, GpuError};
use crate::encoding::Format;
use crate::qmap::normal_map::mip_chain;
use crate::qmap::stored::StoredFormat;
use crate::qmap::{self, MapStats, QuatMap};
use crate::render::scene::{MapSource, RenderScene};
use crate::render::{Camera, FrameSource, Lighting, MapOptions, MaterialUniforms};

/// The headless picture's format: 8-bit sRGB, so the PNG holds what a display would show.
pub const IMAGE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth buffer format.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Format of the debug targets.
pub const DEBUG_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
/// The qtangent format a mesh without a quaternion map falls back to in quaternion-map mode.
pub const FALLBACK_FORMAT: Format = Format::Snorm16x4;
/// Value the debug targets are cleared to: no component of a unit vector or of a world position
/// on screen is −7·10⁹, so a pixel nothing wrote is recognisable.
pub const DEBUG_POISON: f32 = -7.0e9;

/// What the fragment stage writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Output {
    /// The tone-mapped picture into one target of this format (sRGB formats encode).
    Color(wgpu::TextureFormat),
    /// Two [`DEBUG_FORMAT`] targets: world (n, handedness) of the shading frame, and (t,
    /// strength) of the anisotropic lobe: its direction (the frame's tangent turned by the
    /// material's KHR_materials_anisotropy direction) and strength.
    Frame,
    /// Two [`DEBUG_FORMAT`] targets: linear radiance (rgb, 1) and world position (xyz, 1).
    Shading,
}

/// How a scene is seen: camera, lights, the anisotropy switch and the background.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// The camera.
    pub camera: Camera,
    /// The lights.
    pub lighting: Lighting,
    /// `Some(s)`: every material's `anisotropyStrength` becomes `s` (its texture's B still
    /// scales it; 0 turns anisotropy off).
    pub anisotropy_override: Option<f32>,
    /// Linear background colour.
    pub background: Vec3,
}

impl View {
    /// The demo's view of `scene`: camera fitted at `yaw` / `pitch` for `aspect`, studio
    /// lighting with the sun 40° left of the camera and 50° up.
    #[must_use]
    pub fn fitted(scene: &RenderScene, aspect: f32, yaw_deg: f32, pitch_deg: f32) -> Self {
        let (center, radius) = scene.bounds();
        Self {
            camera: Camera::fit(center, radius, aspect, yaw_deg, pitch_deg),
            lighting: Lighting::studio(center, radius, yaw_deg - 40.0, 50.0),
            anisotropy_override: None,
            background: Vec3::new(0.018, 0.02, 0.024),
        }
    }
}

/// Pushes `w` unless it is there already (a warning every map upload repeats).
fn warn_once(warnings: &mut Vec<String>, w: &str) {
    if !warnings.iter().any(|x| x == w) {
        warnings.push(w.to_string());
    }
}

/// Bytes a mode needs on the GPU for a scene: what `render --mode all` reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModeCost {
    /// Vertex buffer bytes (positions, UVs and whatever carries the frame).
    pub vertex_bytes: u64,
    /// Of those, the bytes that carry the frame (0 for the quaternion map).
    pub frame_vertex_bytes: u64,
    /// Texture bytes that carry the frame, mips included: normal maps for the vertex-frame
    /// modes, quaternion + handedness textures for the map.
    pub frame_texture_bytes: u64,
}

struct GpuMesh {
    reference: wgpu::Buffer,
    /// Position + UV (+ the map's UV when `map_uv`).
    position_uv: wgpu::Buffer,
    map_uv: bool,
    qtangent: HashMap<Format, wgpu::Buffer>,
    index: wgpu::Buffer,
    index_count: u32,
    vertex_count: u64,
    material: usize,
    map: Option<(GpuQuatMap, wgpu::BindGroup)>,
    /// Index into [`GpuScene::tangent_maps`] (its material's map), if the material has one.
    tangent_map: Option<usize>,
}

struct GpuObject {
    mesh: usize,
    model: glam::Mat4,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// GPU-skinned vertices drawn instead of the mesh's own: a [`skin::output_layout`] buffer
    /// and the byte offset of this object's first vertex.
    skinned: Option<(wgpu::Buffer, u64)>,
}

/// A scene on the GPU, ready to draw with any frame source.
pub struct GpuScene {
    meshes: Vec<GpuMesh>,
    materials: Vec<wgpu::BindGroup>,
    objects: Vec<GpuObject>,
    scene_uniforms: wgpu::Buffer,
    scene_bind_group: wgpu::BindGroup,
    dummy_map: wgpu::BindGroup,
    /// Statistics of each mesh's quaternion map (`None`: no map).
    pub map_stats: Vec<(String, Option<MapStats>)>,
    /// Per mode, what the scene costs.
    pub costs: Vec<(FrameSource, ModeCost)>,
    /// Meshes drawn with [`FALLBACK_FORMAT`] vertex frames in quaternion-map mode.
    pub fallbacks: Vec<String>,
    /// Tangent-space maps, one per material that has a normal map or an authored tangent map.
    tangent_maps: Vec<(GpuQuatMap, wgpu::BindGroup)>,
    /// Per material: the stored format of its tangent-space map, if any.
    pub tangent_map_formats: Vec<(String, Option<StoredFormat>)>,
    /// Per mesh: the stored format of its object-space map, if any.
    pub object_map_formats: Vec<(String, Option<StoredFormat>)>,
    /// What the upload approximated or fell back on (BC decoded at upload, formats that could
    /// not hold a map, maps not found in the maps folder).
    pub warnings: Vec<String>,
    /// Per object: whether it is drawn (all true after upload).
    pub visible: Vec<bool>,
    /// Per object: whether its mesh's map is authored ([`MapSource::Authored`]): frames only a
    /// quaternion map has, so the other modes differ there by design.
    pub authored: Vec<bool>,
}

/// Pipelines and layouts of the lit shader; pipelines are built on first use.
pub struct Renderer {
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    object_layout: wgpu::BindGroupLayout,
    scene_layout: wgpu::BindGroupLayout,
    material_layout: wgpu::BindGroupLayout,
    map_layout: wgpu::BindGroupLayout,
    material_sampler: wgpu::Sampler,
    map_sampler: wgpu::Sampler,
    pipelines: Mutex<HashMap<PipelineKey, wgpu::RenderPipeline>>,
}

/// What a pipeline is specialised for: frame source, output, second UV set, skinned input and
/// the map's decode (`MAP_DECODE`, `MAP_HANDEDNESS`).
type PipelineKey = (FrameSource, Output, bool, bool, MapShading);

/// How a drawn quaternion map is decoded: the overrides of `shaders/qmap.wgsl` and
/// `shaders/lit.wgsl` that depend on the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MapShading {
    /// [`crate::qmap::stored::StoredFormat::decode_code`].
    pub decode: u32,
    /// Object-space handedness from the UV winding (no plane).
    pub derived_handedness: bool,
    /// A tangent-space map with a doubled (axial) twist (`MAP_AXIAL`).
    pub axial_twist: bool,
}

impl MapShading {
    fn of(map: &GpuQuatMap) -> Self {
        Self {
            decode: if map.twist_only {
                3
            } else {
                map.stored.decode_code()
            },
            derived_handedness: !map.plane,
            axial_twist: map.axial_twist,
        }
    }
}

fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn texture_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

fn sampler_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        count: None,
    }
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
pub const REFERENCE_STRIDE: u64 = 48;
/// Bytes per vertex of the quaternion-map stream: position and UV.
pub const POSITION_UV_STRIDE: u64 = 20;
/// Bytes per vertex of the quaternion-map stream of a mesh whose map has its own layout
/// ([`crate::qmap::atlas`]): position, UV and the map's UV.
pub const MAP_UV_STRIDE: u64 = 28;

/// A uniform buffer of `size` bytes (written per frame) and its one-entry bind group.
fn uniform_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    size: usize,
    label: &str,
) -> (wgpu::Buffer, wgpu::BindGroup) {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    });
    (buffer, group)
}

fn texture_bytes_with_mips(w: u32, h: u32, texel: u64) -> u64 {
    let mut total = 0;
    let (mut w, mut h) = (w, h);
    loop {
        total += u64::from(w) * u64::from(h) * texel;
        if w == 1 && h == 1 {
            return total;
        }
        w = (w / 2).max(1);
        h = (h / 2).max(1);
    }
}

fn upload_texture(
    ctx: &GpuContext,
    label: &str,
    img: &RgbaImage,
    format: wgpu::TextureFormat,
) -> Result<wgpu::TextureView, GpuError> {
    upload_levels(ctx, label, img, None, format)
}

/// An 8-bit texture with `mips` below level 0 (`None`: [`mip_chain`]).
fn upload_levels(
    ctx: &GpuContext,
    label: &str,
    img: &RgbaImage,
    mips: Option<&[RgbaImage]>,
    format: wgpu::TextureFormat,
) -> Result<wgpu::TextureView, GpuError> {
    let (w, h) = img.dimensions();
    let limit = ctx.device.limits().max_texture_dimension_2d;
    if w > limit || h > limit {
        return Err(GpuError::TextureTooLarge {
            what: label.to_string(),
            width: w,
            height: h,
            limit,
        });
    }
    let levels = match mips {
        Some(m) => std::iter::once(img.clone())
            .chain(m.iter().cloned())
            .collect(),
        None => mip_chain(img),
    };
    let full = 32 - w.max(h).leading_zeros() as usize;
    if levels.len() > full
        || levels
            .iter()
            .enumerate()
            .any(|(k, l)| l.dimensions() != ((w >> k).max(1), (h >> k).max(1)))
    {
        return Err(GpuError::Input(format!(
            "{label}: its {} mip levels are not the chain of a {w}×{h} texture",
            levels.len()
        )));
    }
    let bytes: Vec<u8> = levels
        .iter()
        .flat_map(|l| l.as_raw().iter().copied())
        .collect();
    let texture = ctx.device.create_texture_with_data(
        &ctx.queue,
        &wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: levels.len() as u32,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::MipMajor,
        &bytes,
    );
    Ok(texture.create_view(&Default::default()))
}

impl Renderer {
    /// Compiles `shaders/lit.wgsl` and makes the layouts and samplers.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] if the shader or a layout is rejected.
    pub fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let device = &ctx.device;
        ctx.scoped("creating the lit renderer", || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("lit.wgsl"),
                source: wgpu::ShaderSource::Wgsl(shaders::LIT.into()),
            });
            let layout = |label, entries: &[wgpu::BindGroupLayoutEntry]| {
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(label),
                    entries,
                })
            };
            let object_layout = layout("lit object", &[uniform_entry(0)]);
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
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
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
                pipelines: Mutex::new(HashMap::new()),
            }
        })
    }

    /// The pipeline for `source` and `output`; `map_uv` selects the quaternion-map vertex layout
    /// with a second UV set. `skinned`: positions and Snorm16x4 qtangents from a skinning
    /// batch's output ([`skin::output_layout`]) with UVs from the position + UV stream (whose
    /// stride `map_uv` gives); `source` must then be `QTangent(Snorm16x4)`.
    fn pipeline(
        &self,
        ctx: &GpuContext,
        source: FrameSource,
        output: Output,
        map_uv: bool,
        skinned: bool,
        shading: MapShading,
    ) -> Result<wgpu::RenderPipeline, GpuError> {
        let key = (
            source,
            output,
            map_uv && (source == FrameSource::QuatMap || skinned),
            skinned,
            shading,
        );
        if let Some(p) = self
            .pipelines
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            return Ok(p);
        }
        let reference_layout = wgpu::VertexBufferLayout {
            array_stride: REFERENCE_STRIDE,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &REFERENCE_ATTRIBUTES,
        };
        let position_uv_layout = wgpu::VertexBufferLayout {
            array_stride: POSITION_UV_STRIDE,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &POSITION_UV_ATTRIBUTES,
        };
        let map_uv_layout = wgpu::VertexBufferLayout {
            array_stride: MAP_UV_STRIDE,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &MAP_UV_ATTRIBUTES,
        };
        // UVs at offset 12 of the position + UV stream, beside a skinned stream.
        let skinned_uv_layout = wgpu::VertexBufferLayout {
            array_stride: if key.2 {
                MAP_UV_STRIDE
            } else {
                POSITION_UV_STRIDE
            },
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &SKINNED_UV_ATTRIBUTES,
        };
        let skinned_buffers = [Some(skin::output_layout()), Some(skinned_uv_layout)];
        let (entry, buffer, frame_source) = match source {
            FrameSource::QTangent(Format::Snorm16x4) if skinned => {
                ("vs_quat", skin::output_layout(), 0.0)
            }
            _ if skinned => {
                return Err(GpuError::Input(format!(
                    "skinned meshes are drawn with {} frames, not {}",
                    Format::Snorm16x4.name(),
                    source.label()
                )))
            }
            FrameSource::Reference => ("vs_reference", reference_layout, 0.0),
            FrameSource::QTangent(f) => (vertex_entry_point(f), vertex_layout(f), 0.0),
            FrameSource::QuatMap if key.2 => ("vs_position_uv2", map_uv_layout, 1.0),
            FrameSource::QuatMap => ("vs_position_uv", position_uv_layout, 1.0),
            FrameSource::QuatMapTangent => (
                vertex_entry_point(FALLBACK_FORMAT),
                vertex_layout(FALLBACK_FORMAT),
                2.0,
            ),
        };
        let (fs_entry, formats): (&str, Vec<wgpu::TextureFormat>) = match output {
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
        let plain_buffer = Some(buffer);
        let constants = [
            ("FRAME_SOURCE", frame_source),
            ("MAP_DECODE", f64::from(shading.decode)),
            (
                "MAP_HANDEDNESS",
                if shading.derived_handedness { 1.0 } else { 0.0 },
            ),
            ("MAP_AXIAL", if shading.axial_twist { 1.0 } else { 0.0 }),
        ];
        let label = format!("lit {} {output:?}", source.label());
        let pipeline = ctx.scoped(&format!("creating the {label} pipeline"), || {
            ctx.device
                .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(&label),
                    layout: Some(&self.layout),
                    vertex: wgpu::VertexState {
                        module: &self.module,
                        entry_point: Some(entry),
                        compilation_options: Default::default(),
                        buffers: if skinned {
                            &skinned_buffers
                        } else {
                            std::slice::from_ref(&plain_buffer)
                        },
                    },
                    fragment: Some(wgpu::FragmentState {
                        module: &self.module,
                        entry_point: Some(fs_entry),
                        compilation_options: wgpu::PipelineCompilationOptions {
                            constants: &constants,
                            ..Default::default()
                        },
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
        })?;
        if let Ok(mut m) = self.pipelines.lock() {
            m.insert(key, pipeline.clone());
        }
        Ok(pipeline)
    }

    /// Uploads `scene`: a reference stream, a position+UV stream and a qtangent stream per
    /// format in `formats` (plus [`FALLBACK_FORMAT`]) for every mesh; material textures with
    /// mips; quaternion maps — authored ones as they are, the rest baked on the GPU
    /// ([`super::bake::raster_gpu`] then [`qmap::finish`]) with `progress` told each stage.
    ///
    /// # Errors
    /// [`GpuError::Input`] for a mesh whose material index is out of range, errors of the bake
    /// and of the uploads (textures beyond the device's limits among them).
    pub fn upload(
        &self,
        ctx: &GpuContext,
        scene: &RenderScene,
        formats: &[Format],
        progress: &mut dyn FnMut(&str),
    ) -> Result<GpuScene, GpuError> {
        self.upload_with(ctx, scene, formats, &MapOptions::default(), progress)
    }

    /// [`Renderer::upload`] with the maps stored (or loaded) as `options` says: both kinds of
    /// quaternion map through [`super::maps`], each mesh's object-space map and each material's
    /// tangent-space map, uploaded as stored ([`upload_encoded`]). What was approximated is in
    /// [`GpuScene::warnings`].
    ///
    /// # Errors
    /// As [`Renderer::upload`], and maps that cannot be stored as asked or fail to load.
    #[allow(clippy::too_many_lines)]
    pub fn upload_with(
        &self,
        ctx: &GpuContext,
        scene: &RenderScene,
        formats: &[Format],
        options: &MapOptions,
        progress: &mut dyn FnMut(&str),
    ) -> Result<GpuScene, GpuError> {
        let device = &ctx.device;
        let mut formats: Vec<Format> = formats.to_vec();
        if !formats.contains(&FALLBACK_FORMAT) {
            formats.push(FALLBACK_FORMAT);
        }
        // Materials.
        let solid = |label: &str, rgba: [u8; 4], format| {
            upload_texture(
                ctx,
                label,
                &RgbaImage::from_pixel(1, 1, image::Rgba(rgba)),
                format,
            )
        };
        let white_srgb = solid("white", [255; 4], wgpu::TextureFormat::Rgba8UnormSrgb)?;
        let white = solid("white", [255; 4], wgpu::TextureFormat::Rgba8Unorm)?;
        let flat = solid(
            "flat normal",
            [128, 128, 255, 255],
            wgpu::TextureFormat::Rgba8Unorm,
        )?;
        let mut materials = Vec::new();
        let mut normal_texture_bytes = Vec::new();
        for m in &scene.materials {
            let tex =
                |what: &str, img: &Option<RgbaImage>, format, fallback: &wgpu::TextureView| {
                    img.as_ref().map_or_else(
                        || Ok(fallback.clone()),
                        |i| {
                            // Only the normal texture may come with its own stored mips.
                            let mips = if what == "normal map" {
                                m.normal_mips.as_deref()
                            } else {
                                None
                            };
                            upload_levels(
                                ctx,
                                &format!("material '{}' {what}", m.name),
                                i,
                                mips,
                                format,
                            )
                        },
                    )
                };
            let [base, mr, normal, aniso] = [
                (
                    "base colour",
                    &m.base_color,
                    wgpu::TextureFormat::Rgba8UnormSrgb,
                    &white_srgb,
                ),
                (
                    "metallic-roughness",
                    &m.metallic_roughness,
                    wgpu::TextureFormat::Rgba8Unorm,
                    &white,
                ),
                (
                    "normal map",
                    &m.normal,
                    wgpu::TextureFormat::Rgba8Unorm,
                    &flat,
                ),
                (
                    "anisotropy texture",
                    &m.anisotropy,
                    wgpu::TextureFormat::Rgba8Unorm,
                    &white,
                ),
            ]
            .map(|(what, img, format, fallback)| tex(what, img, format, fallback));
            let (base, mr, normal, aniso) = (base?, mr?, normal?, aniso?);
            normal_texture_bytes.push(
                m.normal
                    .as_ref()
                    .map_or(0, |n| texture_bytes_with_mips(n.width(), n.height(), 4)),
            );
            let mut uniforms: MaterialUniforms = m.uniforms;
            if m.normal.is_none() {
                uniforms.has_normal_map = 0.0;
            }
            uniforms.has_anisotropy_texture = f32::from(u8::from(m.anisotropy.is_some()));
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("material uniforms"),
                contents: bytemuck::bytes_of(&uniforms),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            materials.push(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("lit material"),
                layout: &self.material_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&base),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::TextureView(&mr),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: wgpu::BindingResource::TextureView(&normal),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: wgpu::BindingResource::Sampler(&self.material_sampler),
                    },
                    wgpu::BindGroupEntry {
                        binding: 5,
                        resource: wgpu::BindingResource::TextureView(&aniso),
                    },
                ],
            }));
        }
        let map_bind_group = |map: &GpuQuatMap, sampler: &wgpu::Sampler| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("lit quaternion map"),
                layout: &self.map_layout,
                entries: &map.entries(sampler),
            })
        };
        let identity_map = QuatMap {
            format: qmap::MapFormat::Rgba16Float,
            levels: vec![qmap::MapLevel {
                width: 1,
                height: 1,
                quats: vec![glam::Vec4::W],
                handedness: vec![1],
            }],
            kind: vec![qmap::TexelKind::Covered],
            triangle: vec![0],
            stats: MapStats::default(),
        };
        let dummy = upload_map(ctx, &identity_map)?;
        let dummy_map = map_bind_group(&dummy, &self.map_sampler);
        let mut warnings = Vec::new();
        // Tangent-space maps, one per material that has a normal map or an authored one; they
        // tile, so they are sampled with repeat addressing like the material's textures.
        let mut tangent_maps = Vec::new();
        let mut tangent_map_bytes = Vec::new();
        let mut tangent_map_formats = Vec::new();
        let mut material_tangent = Vec::new();
        for m in &scene.materials {
            let stored =
                super::maps::tangent_map(ctx, m, options, progress, &mut |w| warnings.push(w))?;
            tangent_map_formats.push((m.name.clone(), stored.as_ref().map(|s| s.format)));
            material_tangent.push(match stored {
                Some(stored) => {
                    progress(&format!(
                        "material '{}': {}×{} tangent-space map, {}",
                        m.name, stored.width, stored.height, stored.format
                    ));
                    let gpu = upload_encoded(ctx, &stored, &mut |w| warn_once(&mut warnings, w))?;
                    let bg = map_bind_group(&gpu, &self.material_sampler);
                    tangent_map_bytes.push(stored.texture_bytes());
                    tangent_maps.push((gpu, bg));
                    Some(tangent_maps.len() - 1)
                }
                None => None,
            });
        }
        let mut object_map_formats = Vec::new();
        // Meshes.
        let mut meshes = Vec::new();
        let mut map_stats = Vec::new();
        let mut fallbacks = Vec::new();
        let mut costs: HashMap<FrameSource, ModeCost> = HashMap::new();
        for (i, sm) in scene.meshes.iter().enumerate() {
            let p = &sm.mesh;
            if sm.material >= scene.materials.len() {
                return Err(GpuError::Input(format!(
                    "{}: material {} of {}",
                    p.label,
                    sm.material,
                    scene.materials.len()
                )));
            }
            let n = p.positions.len() as u64;
            let mut reference = Vec::with_capacity(p.positions.len() * REFERENCE_STRIDE as usize);
            let mut position_uv =
                Vec::with_capacity(p.positions.len() * POSITION_UV_STRIDE as usize);
            for ((pos, uv), f) in p.positions.iter().zip(&p.uvs).zip(&p.frames) {
                let head: [f32; 5] = [pos.x, pos.y, pos.z, uv.x, uv.y];
                position_uv.extend_from_slice(bytemuck::cast_slice(&head));
                reference.extend_from_slice(bytemuck::cast_slice(&head));
                let frame: [f32; 7] = [
                    f.normal.x,
                    f.normal.y,
                    f.normal.z,
                    f.tangent.x,
                    f.tangent.y,
                    f.tangent.z,
                    f.handedness(),
                ];
                reference.extend_from_slice(bytemuck::cast_slice(&frame));
            }
            let buffer = |label: &str, bytes: &[u8], usage| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: bytes,
                    usage,
                })
            };
            let vertex = wgpu::BufferUsages::VERTEX;
            let mut qtangent = HashMap::new();
            for &f in &formats {
                let stream = p.vertex_stream(f);
                let add = costs.entry(FrameSource::QTangent(f)).or_default();
                add.vertex_bytes += stream.bytes.len() as u64;
                add.frame_vertex_bytes += n * crate::mesh::vertex::attribute_bytes(f) as u64;
                add.frame_texture_bytes += normal_texture_bytes[sm.material];
                qtangent.insert(f, buffer("qtangent vertices", &stream.bytes, vertex));
            }
            let r = costs.entry(FrameSource::Reference).or_default();
            r.vertex_bytes += reference.len() as u64;
            r.frame_vertex_bytes += n * 28;
            r.frame_texture_bytes += normal_texture_bytes[sm.material];
            let label = p.label.clone();
            let object = super::maps::object_map(ctx, scene, i, options, progress, &mut |w| {
                warnings.push(w);
            })?;
            let map_uvs = object.as_ref().and_then(|o| o.map_uvs.clone());
            if let Some(uvs) = &map_uvs {
                position_uv.clear();
                for ((pos, uv), m) in p.positions.iter().zip(&p.uvs).zip(uvs) {
                    let v: [f32; 7] = [pos.x, pos.y, pos.z, uv.x, uv.y, m.x, m.y];
                    position_uv.extend_from_slice(bytemuck::cast_slice(&v));
                }
            }
            let q = costs.entry(FrameSource::QuatMap).or_default();
            let map = match object {
                Some(m) => {
                    q.vertex_bytes += position_uv.len() as u64;
                    q.frame_texture_bytes += m.map.texture_bytes();
                    map_stats.push((label.clone(), Some(m.stats)));
                    object_map_formats.push((label.clone(), Some(m.map.format)));
                    let gpu = upload_encoded(ctx, &m.map, &mut |w| warn_once(&mut warnings, w))?;
                    let bg = map_bind_group(&gpu, &self.map_sampler);
                    Some((gpu, bg))
                }
                None => {
                    let fb = n * crate::mesh::vertex::stride(FALLBACK_FORMAT) as u64;
                    q.vertex_bytes += fb;
                    q.frame_vertex_bytes +=
                        n * crate::mesh::vertex::attribute_bytes(FALLBACK_FORMAT) as u64;
                    q.frame_texture_bytes += normal_texture_bytes[sm.material];
                    map_stats.push((label.clone(), None));
                    object_map_formats.push((label.clone(), None));
                    fallbacks.push(label.clone());
                    None
                }
            };
            // Tangent-space mode: the Snorm16x4 vertex frame and the material's map (or, without
            // one, its normal map as in qtangent mode).
            let t = costs.entry(FrameSource::QuatMapTangent).or_default();
            let stride = crate::mesh::vertex::stride(FALLBACK_FORMAT) as u64;
            t.vertex_bytes += n * stride;
            t.frame_vertex_bytes +=
                n * crate::mesh::vertex::attribute_bytes(FALLBACK_FORMAT) as u64;
            let tangent_map = material_tangent[sm.material];
            t.frame_texture_bytes += match tangent_map {
                Some(k) => tangent_map_bytes[k],
                None => normal_texture_bytes[sm.material],
            };
            let index_bytes: &[u8] = bytemuck::cast_slice(&p.indices);
            meshes.push(GpuMesh {
                reference: buffer("reference vertices", &reference, vertex),
                position_uv: buffer("position+uv vertices", &position_uv, vertex),
                map_uv: map_uvs.is_some(),
                qtangent,
                index: buffer("indices", index_bytes, wgpu::BufferUsages::INDEX),
                index_count: p.indices.len() as u32,
                vertex_count: n,
                material: sm.material,
                map,
                tangent_map,
            });
        }
        let mut objects = Vec::new();
        let mut authored = Vec::new();
        for o in &scene.objects {
            if o.mesh >= meshes.len() {
                return Err(GpuError::Input(format!(
                    "object refers to mesh {} of {}",
                    o.mesh,
                    meshes.len()
                )));
            }
            let (uniforms, bind_group) = uniform_group(
                device,
                &self.object_layout,
                std::mem::size_of::<MeshUniforms>(),
                "lit object",
            );
            authored.push(matches!(scene.meshes[o.mesh].map, MapSource::Authored(_)));
            objects.push(GpuObject {
                mesh: o.mesh,
                model: o.model,
                uniforms,
                bind_group,
                skinned: None,
            });
        }
        let (scene_uniforms, scene_bind_group) = uniform_group(
            device,
            &self.scene_layout,
            std::mem::size_of::<crate::render::SceneUniforms>(),
            "lit scene",
        );
        let mut costs: Vec<(FrameSource, ModeCost)> = costs.into_iter().collect();
        costs.sort_by_key(|(s, _)| match s {
            FrameSource::Reference => 0,
            FrameSource::QTangent(f) => 1 + f.index(),
            FrameSource::QuatMap => 100,
            FrameSource::QuatMapTangent => 101,
        });
        Ok(GpuScene {
            meshes,
            materials,
            objects,
            scene_uniforms,
            scene_bind_group,
            dummy_map,
            map_stats,
            costs,
            fallbacks,
            tangent_maps,
            tangent_map_formats,
            object_map_formats,
            warnings,
            visible: vec![true; authored.len()],
            authored,
        })
    }

    /// Records the draw of `scene` into `pass` targets already begun: writes the uniforms for
    /// `view` at `aspect`, then draws every object with the pipeline of `source` and `output`
    /// (meshes without a map use [`FALLBACK_FORMAT`] in quaternion-map mode).
    ///
    /// # Errors
    /// [`GpuError::Input`] when `source` is a qtangent format the scene was not uploaded with;
    /// pipeline creation errors.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        view: &View,
        aspect: f32,
        source: FrameSource,
        output: Output,
        pass: &mut wgpu::RenderPass<'_>,
    ) -> Result<(), GpuError> {
        let view_proj = view.camera.view_proj(aspect);
        let uniforms = view
            .lighting
            .uniforms(view.camera.position(), view.anisotropy_override);
        ctx.queue
            .write_buffer(&scene.scene_uniforms, 0, bytemuck::bytes_of(&uniforms));
        pass.set_bind_group(1, &scene.scene_bind_group, &[]);
        for (k, o) in scene.objects.iter().enumerate() {
            if !scene.visible.get(k).copied().unwrap_or(true) {
                continue;
            }
            let mesh = &scene.meshes[o.mesh];
            if let Some((skinned, offset)) = &o.skinned {
                // Skinned vertices are in world space already (the skin matrices place them).
                let u = MeshUniforms::new(glam::Mat4::IDENTITY, view_proj);
                ctx.queue
                    .write_buffer(&o.uniforms, 0, bytemuck::bytes_of(&u));
                let pipeline = self.pipeline(
                    ctx,
                    FrameSource::QTangent(Format::Snorm16x4),
                    output,
                    mesh.map_uv,
                    true,
                    MapShading::default(),
                )?;
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &o.bind_group, &[]);
                pass.set_bind_group(2, &scene.materials[mesh.material], &[]);
                pass.set_bind_group(3, &scene.dummy_map, &[]);
                pass.set_vertex_buffer(0, skinned.slice(*offset..));
                pass.set_vertex_buffer(1, mesh.position_uv.slice(..));
                pass.set_index_buffer(mesh.index.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..mesh.index_count, 0, 0..1);
                continue;
            }
            let u = MeshUniforms::new(o.model, view_proj);
            ctx.queue
                .write_buffer(&o.uniforms, 0, bytemuck::bytes_of(&u));
            let fallback = || {
                mesh.qtangent
                    .get(&FALLBACK_FORMAT)
                    .ok_or_else(|| GpuError::Input("the fallback vertex stream is missing".into()))
            };
            let mut shading = MapShading::default();
            let (src, vb, map) = match (source, &mesh.map) {
                (FrameSource::Reference, _) => (source, &mesh.reference, &scene.dummy_map),
                (FrameSource::QuatMapTangent, _) => match mesh.tangent_map {
                    Some(k) => {
                        let (gpu, bg) = &scene.tangent_maps[k];
                        shading = MapShading::of(gpu);
                        (source, fallback()?, bg)
                    }
                    None => (
                        FrameSource::QTangent(FALLBACK_FORMAT),
                        fallback()?,
                        &scene.dummy_map,
                    ),
                },
                (FrameSource::QTangent(f), _) => {
                    let vb = mesh.qtangent.get(&f).ok_or_else(|| {
                        GpuError::Input(format!(
                            "the scene was uploaded without {} vertex streams",
                            f.name()
                        ))
                    })?;
                    (source, vb, &scene.dummy_map)
                }
                (FrameSource::QuatMap, Some((gpu, bg))) => {
                    shading = MapShading::of(gpu);
                    (source, &mesh.position_uv, bg)
                }
                (FrameSource::QuatMap, None) => (
                    FrameSource::QTangent(FALLBACK_FORMAT),
                    fallback()?,
                    &scene.dummy_map,
                ),
            };
            let pipeline = self.pipeline(ctx, src, output, mesh.map_uv, false, shading)?;
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &o.bind_group, &[]);
            pass.set_bind_group(2, &scene.materials[mesh.material], &[]);
            pass.set_bind_group(3, map, &[]);
            pass.set_vertex_buffer(0, vb.slice(..));
            pass.set_index_buffer(mesh.index.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..mesh.index_count, 0, 0..1);
        }
        Ok(())
    }

    /// Renders into fresh targets of `width × height` and returns them (not yet read back),
    /// with the depth texture. Colour targets are cleared to the view's background
    /// ([`Output::Color`]) or to [`DEBUG_POISON`].
    #[allow(clippy::too_many_arguments)]
    fn render_targets(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        view: &View,
        source: FrameSource,
        output: Output,
        width: u32,
        height: u32,
    ) -> Result<Vec<wgpu::Texture>, GpuError> {
        let limit = ctx.device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > limit || height > limit {
            return Err(GpuError::TextureTooLarge {
                what: "the render target".into(),
                width,
                height,
                limit,
            });
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let make = |label: &str, format| {
            ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        };
        let (formats, clear) = match output {
            Output::Color(f) => {
                let b = view.background;
                (
                    vec![f],
                    wgpu::Color {
                        r: f64::from(b.x),
                        g: f64::from(b.y),
                        b: f64::from(b.z),
                        a: 1.0,
                    },
                )
            }
            Output::Frame | Output::Shading => {
                let p = f64::from(DEBUG_POISON);
                (
                    vec![DEBUG_FORMAT; 2],
                    wgpu::Color {
                        r: p,
                        g: p,
                        b: p,
                        a: p,
                    },
                )
            }
        };
        let aspect = width as f32 / height as f32;
        let mut result = Ok(());
        let targets = ctx.scoped("rendering the scene", || {
            let targets: Vec<wgpu::Texture> =
                formats.iter().map(|&f| make("lit target", f)).collect();
            let depth = make("lit depth", DEPTH_FORMAT);
            let views: Vec<wgpu::TextureView> = targets
                .iter()
                .map(|t| t.create_view(&Default::default()))
                .collect();
            let depth_view = depth.create_view(&Default::default());
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            {
                let attachments: Vec<Option<wgpu::RenderPassColorAttachment>> = views
                    .iter()
                    .map(|v| {
                        Some(wgpu::RenderPassColorAttachment {
                            view: v,
                            depth_slice: None,
                            resolve_target: None,
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Clear(clear),
                                store: wgpu::StoreOp::Store,
                            },
                        })
                    })
                    .collect();
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("lit"),
                    color_attachments: &attachments,
                    depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                        view: &depth_view,
                        depth_ops: Some(wgpu::Operations {
                            load: wgpu::LoadOp::Clear(1.0),
                            store: wgpu::StoreOp::Store,
                        }),
                        stencil_ops: None,
                    }),
                    ..Default::default()
                });
                result = self.draw(ctx, scene, view, aspect, source, output, &mut pass);
            }
            ctx.queue.submit([encoder.finish()]);
            targets
        })?;
        result?;
        Ok(targets)
    }

    /// Renders the picture headlessly and reads it back as an sRGB-encoded 8-bit image.
    ///
    /// # Errors
    /// [`GpuError::TextureTooLarge`] for a size of 0 or beyond the device's limit; wgpu and
    /// readback errors.
    pub fn render_image(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        view: &View,
        source: FrameSource,
        width: u32,
        height: u32,
    ) -> Result<RgbaImage, GpuError> {
        let targets = self.render_targets(
            ctx,
            scene,
            view,
            source,
            Output::Color(IMAGE_FORMAT),
            width,
            height,
        )?;
        let bytes = ctx.read_texture(&targets[0], "the rendered image")?;
        RgbaImage::from_raw(width, height, bytes)
            .ok_or_else(|| GpuError::Input("the rendered image has the wrong size".into()))
    }

    /// Renders a debug output ([`Output::Frame`] or [`Output::Shading`]) and reads back its
    /// two targets, row-major, one `[f32; 4]` per pixel; pixels no triangle covered hold
    /// [`DEBUG_POISON`].
    ///
    /// # Errors
    /// [`GpuError::Input`] for [`Output::Color`]; as [`Renderer::render_image`].
    #[allow(clippy::too_many_arguments)]
    pub fn render_debug(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        view: &View,
        source: FrameSource,
        output: Output,
        width: u32,
        height: u32,
    ) -> Result<[Vec<[f32; 4]>; 2], GpuError> {
        if matches!(output, Output::Color(_)) {
            return Err(GpuError::Input(
                "render_debug takes Frame or Shading".into(),
            ));
        }
        let targets = self.render_targets(ctx, scene, view, source, output, width, height)?;
        let read = |i: usize| -> Result<Vec<[f32; 4]>, GpuError> {
            let bytes = ctx.read_texture(&targets[i], "a debug target")?;
            Ok(bytemuck::pod_collect_to_vec::<u8, [f32; 4]>(&bytes))
        };
        Ok([read(0)?, read(1)?])
    }

    /// Average wall time of `frames` renders of `width × height` (submit and wait, no
    /// readback), after one warm-up render: what `render --mode all` reports per mode.
    ///
    /// # Errors
    /// As [`Renderer::render_image`].
    #[allow(clippy::too_many_arguments)]
    pub fn time_frames(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        view: &View,
        source: FrameSource,
        width: u32,
        height: u32,
        frames: u32,
    ) -> Result<std::time::Duration, GpuError> {
        let output = Output::Color(IMAGE_FORMAT);
        self.render_targets(ctx, scene, view, source, output, width, height)?;
        ctx.wait()?;
        let start = std::time::Instant::now();
        for _ in 0..frames.max(1) {
            self.render_targets(ctx, scene, view, source, output, width, height)?;
            ctx.wait()?;
        }
        Ok(start.elapsed() / frames.max(1))
    }
}

impl GpuScene {
    /// Draws object `object` from now on with the vertices instance `instance` of `batch`
    /// skins, in every mode (skinned frames are Snorm16x4 qtangents lit with the normal map;
    /// quaternion maps hold bind-pose frames and are not used). The batch's instance must be
    /// the object's mesh: the same vertices in the same order.
    ///
    /// # Errors
    /// [`GpuError::Input`] for an object or instance out of range, or a vertex count that
    /// differs from the mesh's.
    pub fn set_skinned(
        &mut self,
        object: usize,
        batch: &SkinBatch,
        instance: usize,
    ) -> Result<(), GpuError> {
        let range = batch.instances().get(instance).ok_or_else(|| {
            GpuError::Input(format!(
                "skinning instance {instance} does not exist (the batch has {})",
                batch.instances().len()
            ))
        })?;
        let count = self.objects.len();
        let o = self.objects.get_mut(object).ok_or_else(|| {
            GpuError::Input(format!(
                "object {object} does not exist (the scene has {count})"
            ))
        })?;
        let vertices = self.meshes[o.mesh].vertex_count;
        if u64::from(range.output.end - range.output.start) != vertices {
            return Err(GpuError::Input(format!(
                "object {object} has {vertices} vertices; skinning instance {instance} has {}",
                range.output.end - range.output.start
            )));
        }
        o.skinned = Some((
            batch.output().clone(),
            u64::from(range.output.start) * crate::skin::OUTPUT_WORDS as u64 * 4,
        ));
        Ok(())
    }

    /// Draws object `object` with its own (unskinned) vertices again.
    pub fn clear_skinned(&mut self, object: usize) {
        if let Some(o) = self.objects.get_mut(object) {
            o.skinned = None;
        }
    }

    /// The cost of `source` (qtangent formats the scene was not uploaded with have none).
    #[must_use]
    pub fn cost(&self, source: FrameSource) -> Option<ModeCost> {
        self.costs
            .iter()
            .find(|(s, _)| *s == source)
            .map(|(_, c)| *c)
    }

    /// Total vertices.
    #[must_use]
    pub fn vertex_count(&self) -> u64 {
        self.meshes.iter().map(|m| m.vertex_count).sum()
    }

    /// Total triangles drawn per frame.
    #[must_use]
    pub fn triangles_drawn(&self) -> u64 {
        self.objects
            .iter()
            .map(|o| u64::from(self.meshes[o.mesh].index_count / 3))
            .sum()
    }
}
