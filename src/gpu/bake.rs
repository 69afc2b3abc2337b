//! The GPU baker's raster stage (`shaders/bake.wgsl`): two render passes over the mesh in UV
//! space that produce the same [`Raster`] as [`crate::qmap::raster_cpu`], to be finished by
//! the CPU code both bakers share (`src/qmap/post.rs`: the coarser levels, hemisphere rule, padding).
//!
//! Targets: `Rgba32Uint` (the packed quaternion words), `Rg32Uint` (triangle, flags),
//! `R16Float` (covering triangles, summed by blending; exact up to 2048) and
//! `Depth24PlusStencil8` (stencil: covered; depth: fringe distance). The quaternion target is
//! cleared to a poison pattern and the flags to 0, so a texel the passes did not write reads as
//! background, never as a stale quaternion.

use glam::Vec4;

use super::kit::{self, Access};
use super::wgsl::Stage;
use super::{GpuContext, GpuError, StageNeeds};

/// What the object-space bake needs of a device (`shaders/bake.wgsl`, a raster pass): storage
/// buffers in the vertex stage; one uniform buffer, two storage buffers and one sampled texture
/// (the normal map) in one group.
pub(crate) const NEEDS: StageNeeds = StageNeeds {
    vertex_storage: true,
    storage_buffers_per_shader_stage: 2,
    uniform_buffers_per_shader_stage: 1,
    sampled_textures_per_shader_stage: 1,
    bind_groups: 1,
    ..StageNeeds::none("object-space map bake")
};
use crate::qmap::tangent::TwistField;
use crate::qmap::texel::{FRINGE_RADIUS, MIN_AREA2};
use crate::qmap::{
    BakeError, BakeMesh, BakeSettings, LevelInputs, MapFormat, NormalMap, QuatMap, Raster,
    RasterBackend, RasterStages, TexelKind,
};
use crate::report::Listener;

/// `BakeUniforms` in `shaders/bake.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct BakeUniforms {
    size: [f32; 2],
    tri_count: u32,
    has_normal_map: u32,
    min_area2: f32,
    fringe_radius: f32,
    pad: [f32; 2],
}

/// `BakeVertex` in `shaders/bake.wgsl` (64 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct BakeVertex {
    uv: [f32; 2],
    pad: [f32; 2],
    normal: [f32; 4],
    tangent: [f32; 4],
    bitangent: [f32; 4],
}

/// The texel flags the shader writes; the WGSL constants are generated from [`BAKE_FLAGS`].
const FLAG_COVERED: u32 = 1;
const FLAG_FRINGE: u32 = 2;
const FLAG_MIRRORED: u32 = 4;
/// The flags by their WGSL names.
pub(crate) const BAKE_FLAGS: [(&str, u32); 3] = [
    ("FLAG_COVERED", FLAG_COVERED),
    ("FLAG_FRINGE", FLAG_FRINGE),
    ("FLAG_MIRRORED", FLAG_MIRRORED),
];
const QUAT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Uint;
const INFO_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg32Uint;
const COUNT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R16Float;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24PlusStencil8;
/// Cleared into the quaternion target: no packing of a unit quaternion in any format.
const POISON: u32 = 0x7fc0_dead;

/// The `MAP_FORMAT` override of `shaders/bake.wgsl`: the code of the raster format.
pub(crate) fn format_code(format: MapFormat) -> f64 {
    f64::from(format.raster().code())
}

impl GpuContext {
    /// The raster and tangent-space bake this device's bakes should use
    /// ([`crate::qmap::Baker::new`]): the GPU's own, or on a CPU adapter (lavapipe,
    /// SwiftShader) the CPU's on every core — the same texels ([`crate::qmap::RasterBackend::CPU`] and
    /// the CPU tangent-space bake are the references the GPU stages are tested against), several
    /// times faster there than the software rasteriser's passes and copies (FlightHelmet at
    /// 2048², six object-space maps on two cores: 2.4 s against 12.1 s; the tangent-space
    /// rotations 1.1 s against 7.3 s). The renderer, `pack` and `bake` bake through it; the
    /// `GpuContext` itself is always the GPU.
    #[must_use]
    pub fn raster_backend(&self) -> RasterBackend<'_> {
        if self.is_cpu_adapter() {
            RasterBackend::CPU
        } else {
            RasterBackend(self)
        }
    }
}

/// The device's GPU raster, whatever the adapter (on a CPU adapter
/// [`GpuContext::raster_backend`] chooses the CPU's instead): for measuring one against the other.
impl<'a> From<&'a GpuContext> for RasterBackend<'a> {
    fn from(ctx: &'a GpuContext) -> Self {
        RasterBackend(ctx)
    }
}

impl RasterStages for GpuContext {
    fn describe(&self) -> String {
        format!("GPU ({self})")
    }

    fn raster(
        &self,
        level: &LevelInputs<'_>,
        listener: &mut dyn Listener,
    ) -> Result<Raster, BakeError> {
        raster_gpu(
            self,
            level.mesh,
            level.normal_map,
            &level.settings,
            listener,
        )
        .map_err(GpuError::into_bake)
    }

    /// The GPU's tangent-space bake (`shaders/bake_tangent.wgsl`), whatever the adapter: a
    /// device's own choice, the CPU bake on a CPU adapter, is [`GpuContext::raster_backend`].
    fn bake_tangent(
        &self,
        levels: &[NormalMap],
        twist: Option<TwistField<'_>>,
        format: MapFormat,
    ) -> Result<QuatMap, BakeError> {
        super::bake_tangent::bake_gpu(self, levels, twist, format).map_err(GpuError::into_bake)
    }
}

/// Fails with [`GpuError::TextureTooLarge`] when a `width × height` texture exceeds the
/// device's `max_texture_dimension_2d`.
///
/// # Errors
/// [`GpuError::TextureTooLarge`].
pub(crate) fn check_texture_size(
    ctx: &GpuContext,
    what: &str,
    width: u32,
    height: u32,
) -> Result<(), GpuError> {
    let limit = ctx.device.limits().max_texture_dimension_2d;
    if width > limit || height > limit {
        return Err(GpuError::TextureTooLarge {
            what: what.to_string(),
            width,
            height,
            limit,
        });
    }
    Ok(())
}

/// Bytes per row of a texture copy, padded to wgpu's 256-byte alignment.
fn padded_row(width: u32, texel_bytes: u32) -> u32 {
    (width * texel_bytes).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
        * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// Rasterises `mesh` into a quaternion map on the GPU: the same [`Raster`] as
/// [`crate::qmap::raster_cpu`], to be finished by the shared CPU code (`src/qmap/post.rs`).
///
/// Stages (private functions of this file): `check_inputs`, `upload_inputs` (buffers, normal
/// map, bind group), `pipelines` (cover and fringe), `Targets::new`, `record_passes`,
/// `copy_to_readback`, then `unpack_raster` of what was read back.
///
/// # Errors
/// [`GpuError::TextureTooLarge`] when the map or the normal map exceeds the adapter's texture
/// limit, [`GpuError::TooLarge`] for buffers beyond its limits, [`GpuError::Bake`] for a mesh
/// that fails [`BakeMesh::validate`] or settings that fail [`crate::qmap::check_settings`],
/// other [`GpuError`]s from wgpu.
pub(crate) fn raster_gpu(
    ctx: &GpuContext,
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    settings: &BakeSettings,
    listener: &mut dyn Listener,
) -> Result<Raster, GpuError> {
    ctx.check(&NEEDS)?;
    let checked = check_inputs(ctx, mesh, normal_map, settings)?;
    listener.stage("upload", 0, 1);
    let device = &ctx.device;
    let readbacks = ctx.scoped("baking the quaternion map", || {
        let (layout, bind_group) = upload_inputs(ctx, mesh, normal_map, settings, &checked);
        let (cover, fringe) = pipelines(device, &layout, settings.format);
        let targets = Targets::new(device, settings.width, settings.height);
        let mut encoder = device.create_command_encoder(&Default::default());
        record_passes(
            &mut encoder,
            &targets,
            &bind_group,
            [&cover, &fringe],
            checked.tri_count,
        );
        let buffers = copy_to_readback(device, &mut encoder, &targets, &checked);
        ctx.queue.submit([encoder.finish()]);
        buffers
    })?;
    listener.stage("raster (GPU)", 0, 1);
    let refs: Vec<&wgpu::Buffer> = readbacks.iter().collect();
    let bytes = ctx.map_read(&refs, "the bake targets")?;
    listener.stage("readback", 0, 1);
    let r = unpack_raster(mesh, settings, &checked, &bytes)?;
    listener.stage("readback", 1, 1);
    Ok(r)
}

/// What [`check_inputs`] found: the triangle count, the vertices as the shader reads them, and
/// the padded rows and sizes of the three readback buffers (quaternions, info, coverage).
struct Checked {
    tri_count: u32,
    vertices: Vec<BakeVertex>,
    rows: [u32; 3],
    buffer_sizes: [u64; 3],
}

/// Checks the bake against the adapter's limits and the settings and mesh against their rules
/// (the adapter's texture limit first, so a size beyond it is named as such).
fn check_inputs(
    ctx: &GpuContext,
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    settings: &BakeSettings,
) -> Result<Checked, GpuError> {
    let (w, h) = (settings.width, settings.height);
    check_texture_size(ctx, "the quaternion map", w, h)?;
    crate::qmap::check_settings(settings)?;
    mesh.validate()?;
    if let Some(m) = normal_map {
        check_texture_size(ctx, "the normal map", m.width, m.height)?;
    }
    let tri_count = u32::try_from(mesh.triangle_count()).map_err(|_| GpuError::Invalid {
        what: format!("{} triangles", mesh.triangle_count()),
        reason: "more than u32 indices hold",
    })?;
    let vertices: Vec<BakeVertex> = mesh
        .uvs
        .iter()
        .zip(&mesh.frames)
        .map(|(uv, f)| BakeVertex {
            uv: uv.to_array(),
            pad: [0.0; 2],
            normal: f.normal.extend(0.0).to_array(),
            tangent: f.tangent.extend(0.0).to_array(),
            bitangent: f.bitangent.extend(0.0).to_array(),
        })
        .collect();
    let vertex_bytes: &[u8] = bytemuck::cast_slice(&vertices);
    ctx.check_storage_size("bake vertices", vertex_bytes.len() as u64)?;
    ctx.check_storage_size("bake indices", mesh.indices.len() as u64 * 4)?;
    let rows = [padded_row(w, 16), padded_row(w, 8), padded_row(w, 2)];
    let buffer_sizes = rows.map(|r| u64::from(r) * u64::from(h));
    let max_buffer = ctx.device.limits().max_buffer_size;
    if let Some(&big) = buffer_sizes.iter().find(|&&s| s > max_buffer) {
        return Err(GpuError::TooLarge {
            what: format!("the {w}×{h} bake readback"),
            needed: big,
            limit: max_buffer,
            limit_name: "max_buffer_size",
        });
    }
    Ok(Checked {
        tri_count,
        vertices,
        rows,
        buffer_sizes,
    })
}

/// The shader's inputs on the GPU — uniforms, vertices, indices, the normal map (1×1 flat
/// without one) — and the bind group layout and bind group that hold them.
fn upload_inputs(
    ctx: &GpuContext,
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    settings: &BakeSettings,
    checked: &Checked,
) -> (wgpu::BindGroupLayout, wgpu::BindGroup) {
    let device = &ctx.device;
    let (w, h) = (settings.width, settings.height);
    let uniforms = BakeUniforms {
        size: [w as f32, h as f32],
        tri_count: checked.tri_count,
        has_normal_map: u32::from(normal_map.is_some()),
        min_area2: MIN_AREA2,
        fringe_radius: FRINGE_RADIUS,
        pad: [0.0; 2],
    };
    let storage = wgpu::BufferUsages::STORAGE;
    let uniform_buffer = kit::buffer(
        device,
        "bake uniforms",
        bytemuck::bytes_of(&uniforms),
        wgpu::BufferUsages::UNIFORM,
    );
    let vertices = bytemuck::cast_slice(&checked.vertices);
    let vertex_buffer = kit::buffer(device, "bake vertices", vertices, storage);
    let indices = bytemuck::cast_slice(&mesh.indices);
    let index_buffer = kit::buffer(device, "bake indices", indices, storage);
    let (nm_w, nm_h, nm_texels) = match normal_map {
        Some(m) => (
            m.width,
            m.height,
            m.texels
                .iter()
                .flat_map(|v| [v.x, v.y, v.z, 0.0])
                .collect::<Vec<f32>>(),
        ),
        None => (1, 1, vec![0.0, 0.0, 1.0, 0.0]),
    };
    let nm_texture = kit::texture(
        device,
        &ctx.queue,
        "bake normal map",
        wgpu::TextureFormat::Rgba32Float,
        (nm_w, nm_h, 1),
        bytemuck::cast_slice(&nm_texels),
    );
    let both = wgpu::ShaderStages::VERTEX_FRAGMENT;
    let (layout, _) = kit::layouts(
        device,
        "bake",
        &[
            kit::uniform_entry(0, both),
            kit::storage_entry(1, both, Access::Read),
            kit::storage_entry(2, both, Access::Read),
            kit::texture_entry(3, wgpu::ShaderStages::FRAGMENT, false),
        ],
    );
    let nm_view = nm_texture.create_view(&Default::default());
    let bind_group = kit::bind_group(
        device,
        "bake",
        &layout,
        &[
            uniform_buffer.as_entire_binding(),
            vertex_buffer.as_entire_binding(),
            index_buffer.as_entire_binding(),
            wgpu::BindingResource::TextureView(&nm_view),
        ],
    );
    (layout, bind_group)
}

/// The bake's three colour targets: quaternions and info written, coverage counted by additive
/// blending where `count` (the cover pass) and left alone otherwise.
fn color_targets(count: bool) -> [Option<wgpu::ColorTargetState>; 3] {
    let target = |format| wgpu::ColorTargetState {
        format,
        blend: None,
        write_mask: wgpu::ColorWrites::ALL,
    };
    let add = wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    };
    let coverage = wgpu::ColorTargetState {
        blend: Some(wgpu::BlendState {
            color: add,
            alpha: wgpu::BlendComponent::REPLACE,
        }),
        write_mask: if count {
            wgpu::ColorWrites::RED
        } else {
            wgpu::ColorWrites::empty()
        },
        ..target(COUNT_FORMAT)
    };
    [
        Some(target(QUAT_FORMAT)),
        Some(target(INFO_FORMAT)),
        Some(coverage),
    ]
}

/// The depth-stencil state of a pass: the cover pass marks the stencil where a triangle covers a
/// texel centre and ignores depth; the fringe pass runs only where the stencil is 0 and keeps
/// the nearest fringe by depth.
fn depth_stencil(cover: bool) -> wgpu::DepthStencilState {
    let face = wgpu::StencilFaceState {
        compare: if cover {
            wgpu::CompareFunction::Always
        } else {
            wgpu::CompareFunction::Equal
        },
        fail_op: wgpu::StencilOperation::Keep,
        depth_fail_op: wgpu::StencilOperation::Keep,
        pass_op: if cover {
            wgpu::StencilOperation::Replace
        } else {
            wgpu::StencilOperation::Keep
        },
    };
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(!cover),
        depth_compare: Some(if cover {
            wgpu::CompareFunction::Always
        } else {
            wgpu::CompareFunction::Less
        }),
        stencil: wgpu::StencilState {
            front: face,
            back: face,
            read_mask: 0xff,
            write_mask: 0xff,
        },
        bias: wgpu::DepthBiasState::default(),
    }
}

/// The cover pipeline (stencil 1 where a triangle covers a texel centre, coverage counted) and
/// the fringe pipeline (only where the stencil is 0, nearest fringe by depth), for maps of
/// `format`.
fn pipelines(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    format: MapFormat,
) -> (wgpu::RenderPipeline, wgpu::RenderPipeline) {
    let module = Stage::Bake.module(device);
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("bake"),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    let constants = [("MAP_FORMAT", format_code(format))];
    let options = wgpu::PipelineCompilationOptions {
        constants: &constants,
        ..Default::default()
    };
    let pipeline = |vs: &str, fs: &str, cover: bool| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(vs),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some(vs),
                compilation_options: options.clone(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some(fs),
                compilation_options: options.clone(),
                targets: &color_targets(cover),
            }),
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                cull_mode: None,
                ..Default::default()
            },
            depth_stencil: Some(depth_stencil(cover)),
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
    };
    (
        pipeline("vs_cover", "fs_cover", true),
        pipeline("vs_fringe", "fs_fringe", false),
    )
}

/// The bake's render targets: quaternions, info and coverage (copied out), and the
/// depth-stencil.
struct Targets {
    textures: [wgpu::Texture; 3],
    depth: wgpu::Texture,
}

impl Targets {
    /// Targets of `w × h`.
    fn new(device: &wgpu::Device, w: u32, h: u32) -> Self {
        let texture = |label, format| {
            kit::render_target(device, label, format, (w, h), wgpu::TextureUsages::empty())
        };
        let textures = [
            texture("bake quaternions", QUAT_FORMAT),
            texture("bake info", INFO_FORMAT),
            texture("bake coverage", COUNT_FORMAT),
        ];
        let depth = texture("bake depth-stencil", DEPTH_FORMAT);
        Self { textures, depth }
    }
}

/// Records the two passes: the cover pass clears the targets (quaternions to [`POISON`], info
/// to no triangle and no flags, coverage to 0) and draws every triangle; the fringe pass loads
/// them and draws each triangle's fringe quads.
fn record_passes(
    encoder: &mut wgpu::CommandEncoder,
    targets: &Targets,
    bind_group: &wgpu::BindGroup,
    [cover, fringe]: [&wgpu::RenderPipeline; 2],
    tri_count: u32,
) {
    let views = targets
        .textures
        .each_ref()
        .map(|t| t.create_view(&Default::default()));
    let depth_view = targets.depth.create_view(&Default::default());
    let poison = f64::from(POISON);
    let clears = [
        wgpu::Color {
            r: poison,
            g: poison,
            b: poison,
            a: poison,
        },
        wgpu::Color {
            r: f64::from(u32::MAX),
            g: 0.0,
            b: 0.0,
            a: 0.0,
        },
        wgpu::Color::TRANSPARENT,
    ];
    for first in [true, false] {
        let attachments: Vec<_> = views
            .iter()
            .zip(clears)
            .map(|(view, clear)| {
                Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: clear_first(first, clear),
                        store: wgpu::StoreOp::Store,
                    },
                })
            })
            .collect();
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(if first { "bake cover" } else { "bake fringe" }),
            color_attachments: &attachments,
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: clear_first(first, 1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: Some(wgpu::Operations {
                    load: clear_first(first, 0),
                    store: wgpu::StoreOp::Store,
                }),
            }),
            ..Default::default()
        });
        pass.set_bind_group(0, bind_group, &[]);
        if first {
            pass.set_pipeline(cover);
            pass.set_stencil_reference(1);
            pass.draw(0..3 * tri_count, 0..1);
        } else {
            pass.set_pipeline(fringe);
            pass.set_stencil_reference(0);
            pass.draw(0..6 * tri_count, 0..1);
        }
    }
}

/// Records copies of the three colour targets into new mappable buffers (rows padded to
/// [`padded_row`]) and returns the buffers.
fn copy_to_readback(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    targets: &Targets,
    checked: &Checked,
) -> Vec<wgpu::Buffer> {
    let buffers: Vec<wgpu::Buffer> = checked
        .buffer_sizes
        .iter()
        .map(|&s| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("bake readback"),
                size: s,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
        .collect();
    for ((texture, buffer), row) in targets.textures.iter().zip(&buffers).zip(checked.rows) {
        kit::copy_to_buffer(encoder, texture, buffer, row);
    }
    buffers
}

/// The [`Raster`] from the read-back targets: coverage counts, and for texels the passes marked
/// covered or fringe, their quaternion, triangle and handedness.
///
/// # Errors
/// [`GpuError::Readback`] for a texel marked written that still holds [`POISON`].
fn unpack_raster(
    mesh: &BakeMesh,
    settings: &BakeSettings,
    checked: &Checked,
    bytes: &[Vec<u8>],
) -> Result<Raster, GpuError> {
    let (w, h) = (settings.width, settings.height);
    // Whole buffers as words (rows are padded to 256 bytes, a multiple of every texel size).
    let quat_words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[0]);
    let info_words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[1]);
    let counts: Vec<u16> = bytemuck::pod_collect_to_vec(&bytes[2]);
    let mut r = Raster::empty(w, h, settings.format);
    let (w_us, rows) = (w as usize, checked.rows.map(|r| r as usize));
    for y in 0..h as usize {
        let q_row = &quat_words[y * rows[0] / 4..][..w_us * 4];
        let i_row = &info_words[y * rows[1] / 4..][..w_us * 2];
        let c_row = &counts[y * rows[2] / 2..][..w_us];
        for x in 0..w_us {
            let k = y * w_us + x;
            let count = half::f16::from_bits(c_row[x]).to_f32();
            r.coverage[k] = count.min(f32::from(u16::MAX)) as u16;
            let flags = i_row[2 * x + 1];
            let kind = if flags & FLAG_COVERED != 0 {
                TexelKind::Covered
            } else if flags & FLAG_FRINGE != 0 {
                TexelKind::Fringe
            } else {
                continue;
            };
            let words = [0, 1, 2, 3].map(|i| q_row[4 * x + i]);
            if words[0] == POISON {
                return Err(GpuError::Readback {
                    what: "the bake targets".into(),
                    message: format!(
                        "texel ({x}, {y}) is marked as written but holds the poison pattern"
                    ),
                });
            }
            let q: Vec4 = settings.format.unpack(words);
            r.quats[k] = q;
            r.kind[k] = kind;
            r.triangle[k] = i_row[2 * x];
            r.handedness[k] = if flags & FLAG_MIRRORED != 0 { -1 } else { 1 };
        }
    }
    r.degenerate_triangles = (0..mesh.triangle_count())
        .filter(|&i| crate::qmap::texel::area2(&mesh.triangle(i, w, h).p).abs() <= MIN_AREA2)
        .count();
    r.triangles = mesh.triangle_count() - r.degenerate_triangles;
    Ok(r)
}

/// The first pass clears a target to `clear`; the second loads what the first wrote.
fn clear_first<T>(first: bool, clear: T) -> wgpu::LoadOp<T> {
    if first {
        wgpu::LoadOp::Clear(clear)
    } else {
        wgpu::LoadOp::Load
    }
}
