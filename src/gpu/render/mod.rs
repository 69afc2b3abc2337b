//! The lit renderer (`shaders/lit.wgsl`): uploads a [`RenderScene`] (vertex streams for every
//! frame source, material textures, quaternion maps baked through the device) and draws it with
//! the shading frame from the [`FrameSource`] asked for, into an offscreen image or any colour view
//! (`qtangent view`'s window). Tests read back the shading frame or the linear radiance
//! instead of the picture ([`Output`]).
//!
//! One concern a file:
//! - `pipeline`: the shader, bind group layouts, samplers and the pipelines (built on first use);
//! - `upload`: [`Renderer::upload`] of a scene's vertex streams, textures and quaternion maps;
//! - `draw`: [`Renderer::prepare_view`], [`Renderer::draw`] and the headless targets
//!   ([`Renderer::render_image`]; the lab reads the debug targets back, `lab::readback`);
//! - `cost`: what each mode costs in bytes ([`ModeCost`]) and time ([`Renderer::time_frames`]).
//!
//! Drawing is two steps: [`Renderer::prepare_view`] writes a view's uniforms (camera, lights,
//! every object's matrices) into buffers of its own, a [`PreparedView`]; [`Renderer::draw`]
//! only records commands that read them. Any number of views of one scene can therefore be
//! recorded into one command encoder and submitted together (split screen, several cameras):
//! each draw sees its own view.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::Vec3;

use super::qmap::GpuQuatMap;
use super::skin::SkinBatch;
use super::GpuError;
use crate::qmap::MapFormat;
use crate::qmap::MapStats;
use crate::qmap::{MapOrigin, SceneMap};
use crate::render::RenderScene;
use crate::render::{Camera, FrameSource, Lighting};
use crate::Format;

mod cost;
mod draw;
pub(crate) mod pipeline;
mod upload;

pub use cost::ModeCost;
pub use draw::PreparedView;
pub(crate) use pipeline::MapShading;
use pipeline::PipelineKey;

/// The headless picture's format: 8-bit sRGB, so the PNG holds what a display would show.
pub(crate) const IMAGE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth buffer format.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Format of the debug targets.
pub(crate) const DEBUG_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
/// The qtangent format a mesh without a quaternion map falls back to in quaternion-map mode.
pub(crate) const FALLBACK_FORMAT: Format = Format::Snorm16x4;
/// Value the debug targets are cleared to: no component of a unit vector or of a world position
/// on screen is −7·10⁹, so a pixel nothing wrote is recognisable.
pub(crate) const DEBUG_POISON: f32 = -7.0e9;

/// What the fragment stage writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Output {
    /// The tone-mapped picture into one target of this format (sRGB formats encode).
    Color(wgpu::TextureFormat),
    /// Two `DEBUG_FORMAT` targets: world (n, handedness) of the shading frame, and (t,
    /// strength) of the anisotropic lobe: its direction (the frame's tangent turned by the
    /// material's KHR_materials_anisotropy direction) and strength.
    Frame,
    /// Two `DEBUG_FORMAT` targets: linear radiance (rgb, 1) and world position (xyz, 1).
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

/// One picture to render: the view, where the pixels' frames come from, and the target size.
#[derive(Debug, Clone, Copy)]
pub struct Shot<'a> {
    /// Camera, lights and background.
    pub view: &'a View,
    /// Where each pixel's tangent frame comes from.
    pub source: FrameSource,
    /// Target width and height in pixels.
    pub size: glam::UVec2,
}

/// What an upload made of one material's or mesh's quaternion map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapReport {
    /// The material's name or the mesh's label.
    pub name: String,
    /// The stored format of its map; `None`: it has none (a mesh then draws with its
    /// qtangent vertex frames, Snorm16x4, in quaternion-map mode).
    pub format: Option<MapFormat>,
    /// The bake's statistics, for maps baked by the upload or authored.
    pub(crate) stats: Option<MapStats>,
    /// Where the map came from (`None` without one).
    pub origin: Option<MapOrigin>,
}

impl MapReport {
    fn of(name: &str, map: Option<&SceneMap>) -> Self {
        Self {
            name: name.to_string(),
            format: map.map(|m| m.map.format),
            stats: map.and_then(|m| m.stats),
            origin: map.map(|m| m.origin.clone()),
        }
    }
}

/// What a scene's upload made: its maps, what each frame source costs, and the objects whose
/// map is authored.
#[derive(Debug, Clone, Default)]
pub struct UploadReport {
    /// Per material, in [`RenderScene::materials`] order: its tangent-space map.
    pub tangent_maps: Vec<MapReport>,
    /// Per mesh, in [`RenderScene::meshes`] order: its object-space map.
    pub object_maps: Vec<MapReport>,
    /// Per frame source, the bytes it needs on the GPU.
    pub(crate) costs: Vec<(FrameSource, ModeCost)>,
    /// Objects whose mesh's map is authored ([`crate::render::MapSource::Authored`]):
    /// frames only a quaternion map has, so the other modes differ there by design.
    pub authored_objects: Vec<usize>,
    /// Vertices uploaded, over every mesh.
    pub vertices: u64,
    /// Triangles drawn per frame with every object shown.
    pub triangles: u64,
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
    /// GPU-skinned vertices drawn instead of the mesh's own: a [`super::skin::output_layout`]
    /// buffer and the byte offset of this object's first vertex.
    skinned: Option<(wgpu::Buffer, u64)>,
}

/// A scene on the GPU, ready to draw with any frame source ([`Renderer::prepare_view`], then
/// [`Renderer::draw`]).
pub struct GpuScene {
    meshes: Vec<GpuMesh>,
    materials: Vec<wgpu::BindGroup>,
    objects: Vec<GpuObject>,
    /// Unique among the scenes of this process: what a [`PreparedView`] was prepared for.
    id: u64,
    dummy_map: wgpu::BindGroup,
    /// Tangent-space maps, one per material that has a normal map or an authored tangent map.
    tangent_maps: Vec<(GpuQuatMap, wgpu::BindGroup)>,
    /// What the upload made.
    report: UploadReport,
    /// Per object: whether it is drawn.
    visible: Vec<bool>,
}

/// A fresh [`GpuScene::id`].
fn next_scene_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
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
    pipelines: crate::gpu::kit::PipelineCache<PipelineKey, wgpu::RenderPipeline>,
}

impl GpuScene {
    /// What the upload made: maps, costs, authored objects.
    #[must_use]
    pub fn report(&self) -> &UploadReport {
        &self.report
    }

    /// Draws every object but those in `hidden` (indices past the last object are ignored);
    /// `&[]` draws them all again.
    pub fn set_hidden(&mut self, hidden: &[usize]) {
        self.visible.fill(true);
        for &o in hidden {
            if let Some(v) = self.visible.get_mut(o) {
                *v = false;
            }
        }
    }

    /// Draws object `object` from now on with the vertices instance `instance` of `batch`
    /// skins, in every mode (skinned frames are Snorm16x4 qtangents lit with the normal map;
    /// quaternion maps hold bind-pose frames and are not used). The batch's instance must be
    /// the object's mesh: the same vertices in the same order.
    ///
    /// # Errors
    /// [`GpuError::OutOfRange`] for an object or instance out of range, [`GpuError::Count`] for
    /// a vertex count that differs from the mesh's.
    pub fn set_skinned(
        &mut self,
        object: usize,
        batch: &SkinBatch,
        instance: usize,
    ) -> Result<(), GpuError> {
        let range = batch
            .buffers()
            .instances()
            .get(instance)
            .ok_or(GpuError::OutOfRange {
                what: "skinning instance".into(),
                index: instance,
                len: batch.buffers().instances().len(),
            })?;
        let count = self.objects.len();
        let o = self.objects.get_mut(object).ok_or(GpuError::OutOfRange {
            what: "object".into(),
            index: object,
            len: count,
        })?;
        let vertices = self.meshes[o.mesh].vertex_count;
        if u64::from(range.output.end - range.output.start) != vertices {
            return Err(GpuError::Count {
                what: format!("vertices of skinning instance {instance} for object {object}"),
                found: u64::from(range.output.end - range.output.start),
                expected: vertices,
            });
        }
        o.skinned = Some((
            batch.buffers().output().clone(),
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
}
