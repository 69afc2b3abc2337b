//! Drawing: a view prepared into buffers of its own ([`PreparedView`]), the draw that reads it,
//! and headless targets read back as an image or as debug data.

use glam::UVec2;
use image::RgbaImage;

use super::super::mesh::MeshUniforms;
use super::super::{kit, GpuContext, GpuError};
use super::pipeline::PipelineKey;
use super::{
    GpuMesh, GpuScene, MapShading, Output, Renderer, Shot, View, DEBUG_FORMAT, DEBUG_POISON,
    DEPTH_FORMAT, FALLBACK_FORMAT, IMAGE_FORMAT,
};
use crate::render::FrameSource;
use crate::Format;

/// One view of one [`GpuScene`] ready to draw ([`Renderer::prepare_view`]): its scene uniforms
/// (camera position, lights) and every object's matrices for its camera, in buffers no other
/// view shares.
///
/// Contract: [`Renderer::draw`] only reads it, so several prepared views of one scene can be
/// drawn in one command encoder and one submission, each with its own camera (split screen,
/// mirrors, shadow views). It is tied to the scene it was prepared for (drawing another scene
/// with it is an error) and to the camera and aspect it was prepared with: when the camera,
/// lights or target size change, prepare a new one. It holds its buffers alive by itself; drop
/// it whenever (commands already recorded keep what they use).
#[derive(Debug)]
pub struct PreparedView {
    /// [`GpuScene::id`] of the scene it was prepared for.
    scene_id: u64,
    /// Objects of that scene: slot `objects` holds the skinned objects' identity model.
    objects: usize,
    /// Bytes between two objects' uniform slots (the device's offset alignment).
    stride: u32,
    scene_group: wgpu::BindGroup,
    object_group: wgpu::BindGroup,
}

impl Renderer {
    /// Prepares `view` of `scene` at `aspect` (width / height) for [`Renderer::draw`]: the
    /// scene uniforms (camera position, lights, anisotropy override) and every object's
    /// matrices are written into new buffers owned by the returned [`PreparedView`].
    ///
    /// Nothing is written to a buffer that an earlier draw reads, so views prepared one after
    /// another and drawn in one submission each keep their own camera. Objects' skinned state
    /// ([`GpuScene::set_skinned`]) and visibility ([`GpuScene::set_hidden`]) are read at draw time.
    ///
    /// # Errors
    /// [`GpuError::TooLarge`] when the scene has so many objects that their uniform slots do not
    /// fit a dynamic offset (u32) or the device's largest buffer; wgpu errors.
    pub fn prepare_view(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        view: &View,
        aspect: f32,
    ) -> Result<PreparedView, GpuError> {
        let device = &ctx.device;
        let limits = device.limits();
        let size = std::mem::size_of::<MeshUniforms>() as u64;
        let align = u64::from(limits.min_uniform_buffer_offset_alignment).max(1);
        let stride = size.div_ceil(align) * align;
        // One slot per object, and the last for skinned objects (already in world space).
        let slots = scene.objects.len() as u64 + 1;
        let bytes = slots * stride;
        let last_offset = (slots - 1) * stride;
        if u32::try_from(last_offset).is_err() || bytes > limits.max_buffer_size {
            return Err(GpuError::TooLarge {
                what: format!("the uniforms of a view of {} objects", scene.objects.len()),
                needed: bytes,
                limit: limits.max_buffer_size.min(u64::from(u32::MAX)),
                limit_name: "max_buffer_size and u32 dynamic offsets",
            });
        }
        let view_proj = view.camera.view_proj(aspect);
        let mut data = vec![0u8; bytes as usize];
        let models = scene
            .objects
            .iter()
            .map(|o| o.model)
            .chain(std::iter::once(glam::Mat4::IDENTITY));
        for (slot, model) in data.chunks_exact_mut(stride as usize).zip(models) {
            let u = MeshUniforms::new(model, view_proj);
            slot[..size as usize].copy_from_slice(bytemuck::bytes_of(&u));
        }
        let scene_uniforms = view
            .lighting
            .uniforms(view.camera.position(), view.anisotropy_override);
        ctx.scoped("preparing a view", || {
            let uniform = wgpu::BufferUsages::UNIFORM;
            let objects = kit::buffer(device, "lit view objects", &data, uniform);
            let one_object = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &objects,
                offset: 0,
                size: wgpu::BufferSize::new(size),
            });
            let object_group = kit::bind_group(
                device,
                "lit view objects",
                &self.object_layout,
                &[one_object],
            );
            let scene_bytes = bytemuck::bytes_of(&scene_uniforms);
            let uniforms = kit::buffer(device, "lit view scene", scene_bytes, uniform);
            let scene_group = kit::bind_group(
                device,
                "lit view scene",
                &self.scene_layout,
                &[uniforms.as_entire_binding()],
            );
            PreparedView {
                scene_id: scene.id,
                objects: scene.objects.len(),
                stride: stride as u32,
                scene_group,
                object_group,
            }
        })
    }

    /// Records the draw of `scene` as `view` (from [`Renderer::prepare_view`] of this scene)
    /// into `pass`, targets already begun: every visible object with the pipeline of `source`
    /// and `output` (meshes without a map use their Snorm16x4 qtangents in quaternion-map mode).
    ///
    /// It writes nothing: it only records commands that read `view`'s buffers, so any number of
    /// draws — of different views, into one pass or several, in one encoder — can go in one
    /// submission and each shows its own view. The pass must have one colour target of
    /// `output`'s format ([`Output::Color`]) or two `DEBUG_FORMAT` targets, and a
    /// [`DEPTH_FORMAT`] depth target.
    ///
    /// # Errors
    /// [`GpuError::Invalid`] when `view` was prepared for another scene, or `source` is a
    /// qtangent format the scene was not uploaded with; pipeline creation errors.
    pub fn draw(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        view: &PreparedView,
        source: FrameSource,
        output: Output,
        pass: &mut wgpu::RenderPass<'_>,
    ) -> Result<(), GpuError> {
        if view.scene_id != scene.id || view.objects != scene.objects.len() {
            return Err(GpuError::Invalid {
                what: "the prepared view".into(),
                reason: "it was prepared for another scene (prepare_view it with this one)",
            });
        }
        pass.set_bind_group(1, &view.scene_group, &[]);
        for (k, o) in scene.objects.iter().enumerate() {
            if !scene.visible.get(k).copied().unwrap_or(true) {
                continue;
            }
            let mesh = &scene.meshes[o.mesh];
            let (pipeline, slot, vertices, map) = match &o.skinned {
                // Skinned vertices are in world space already (the skin matrices place them):
                // the last slot's identity model.
                Some((skinned, start)) => {
                    let key = PipelineKey::new(
                        FrameSource::QTangent(Format::Snorm16x4),
                        output,
                        mesh.map_uv,
                        true,
                        MapShading::default(),
                    );
                    let vb = skinned.slice(*start..);
                    pass.set_vertex_buffer(1, mesh.position_uv.slice(..));
                    (self.pipeline(ctx, key)?, view.objects, vb, &scene.dummy_map)
                }
                None => {
                    let (key, vb, map) = mesh_draw(scene, mesh, source, output)?;
                    (self.pipeline(ctx, key)?, k, vb.slice(..), map)
                }
            };
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &view.object_group, &[slot as u32 * view.stride]);
            pass.set_bind_group(2, &scene.materials[mesh.material], &[]);
            pass.set_bind_group(3, map, &[]);
            pass.set_vertex_buffer(0, vertices);
            pass.set_index_buffer(mesh.index.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..mesh.index_count, 0, 0..1);
        }
        Ok(())
    }

    /// Renders into fresh targets of `size` and returns them (not yet read back). Colour targets
    /// are cleared to the view's background ([`Output::Color`]) or to [`DEBUG_POISON`].
    pub(crate) fn render_targets(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        shot: &Shot<'_>,
        output: Output,
    ) -> Result<Vec<wgpu::Texture>, GpuError> {
        let UVec2 {
            x: width,
            y: height,
        } = shot.size;
        let limit = ctx.device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > limit || height > limit {
            return Err(GpuError::TextureTooLarge {
                what: "the render target".into(),
                width,
                height,
                limit,
            });
        }
        let make = |label: &str, format| {
            crate::gpu::kit::render_target(
                &ctx.device,
                label,
                format,
                (width, height),
                wgpu::TextureUsages::empty(),
            )
        };
        let (formats, clear) = clear_targets(output, shot.view);
        let prepared = &self.prepare_view(ctx, scene, shot.view, width as f32 / height as f32)?;
        let mut result = Ok(());
        let targets = ctx.scoped("rendering the scene", || {
            let targets: Vec<wgpu::Texture> =
                formats.iter().map(|&f| make("lit target", f)).collect();
            let depth = make("lit depth", DEPTH_FORMAT);
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            {
                let views: Vec<wgpu::TextureView> = targets
                    .iter()
                    .map(|t| t.create_view(&Default::default()))
                    .collect();
                let depth_view = depth.create_view(&Default::default());
                let mut pass = kit::begin_pass(&mut encoder, "lit", &views, &depth_view, clear);
                result = self.draw(ctx, scene, prepared, shot.source, output, &mut pass);
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
        let shot = Shot {
            view,
            source,
            size: UVec2::new(width, height),
        };
        let targets = self.render_targets(ctx, scene, &shot, Output::Color(IMAGE_FORMAT))?;
        let bytes = ctx.read_texture(&targets[0], "the rendered image")?;
        let found = bytes.len() as u64;
        RgbaImage::from_raw(width, height, bytes).ok_or(GpuError::Count {
            what: "bytes of the rendered image".into(),
            found,
            expected: u64::from(width) * u64::from(height) * 4,
        })
    }
}

/// What to draw a mesh with in `source`: the pipeline key, the vertex stream and the map's bind
/// group (meshes without the map fall back to [`FALLBACK_FORMAT`] vertex frames).
fn mesh_draw<'s>(
    scene: &'s GpuScene,
    mesh: &'s GpuMesh,
    source: FrameSource,
    output: Output,
) -> Result<(PipelineKey, &'s wgpu::Buffer, &'s wgpu::BindGroup), GpuError> {
    let fallback = || {
        mesh.qtangent
            .get(&FALLBACK_FORMAT)
            .ok_or(GpuError::Invalid {
                what: format!("the {FALLBACK_FORMAT} vertex stream"),
                reason: "missing: every upload makes it",
            })
    };
    let key = |source, shading| PipelineKey::new(source, output, mesh.map_uv, false, shading);
    let plain = MapShading::default();
    let fallback_source = FrameSource::QTangent(FALLBACK_FORMAT);
    Ok(match (source, &mesh.map) {
        (FrameSource::Reference, _) => (key(source, plain), &mesh.reference, &scene.dummy_map),
        (FrameSource::QuatMapTangent, _) => match mesh.tangent_map {
            Some(k) => {
                let (gpu, bg) = &scene.tangent_maps[k];
                (key(source, MapShading::of(gpu)), fallback()?, bg)
            }
            None => (key(fallback_source, plain), fallback()?, &scene.dummy_map),
        },
        (FrameSource::QTangent(f), _) => {
            let vb = mesh.qtangent.get(&f).ok_or(GpuError::Invalid {
                what: format!("{f} vertex frames"),
                reason: "the scene was uploaded without them",
            })?;
            (key(source, plain), vb, &scene.dummy_map)
        }
        (FrameSource::QuatMap, Some((gpu, bg))) => {
            (key(source, MapShading::of(gpu)), &mesh.position_uv, bg)
        }
        (FrameSource::QuatMap, None) => {
            (key(fallback_source, plain), fallback()?, &scene.dummy_map)
        }
    })
}

/// The target formats of `output` and the colour they are cleared to.
fn clear_targets(output: Output, view: &View) -> (Vec<wgpu::TextureFormat>, wgpu::Color) {
    match output {
        Output::Color(f) => {
            let b = view.background;
            let clear = wgpu::Color {
                r: f64::from(b.x),
                g: f64::from(b.y),
                b: f64::from(b.z),
                a: 1.0,
            };
            (vec![f], clear)
        }
        Output::Frame | Output::Shading => {
            let p = f64::from(DEBUG_POISON);
            let clear = wgpu::Color {
                r: p,
                g: p,
                b: p,
                a: p,
            };
            (vec![DEBUG_FORMAT; 2], clear)
        }
    }
}
