//! Drawing a scene for a test: one-mesh scenes, uploads with Snorm16x4 vertex frames, and the
//! renderer's debug read-backs of one view at one size. Every helper panics naming what failed.

use glam::{Mat4, Vec3};
use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, Output, Renderer, Shot, View};
use qtangent::mesh::Prepared;
use qtangent::qmap::MapOptions;
use qtangent::render::{Camera, FrameSource, Lighting};
use qtangent::render::{MapSource, RenderScene, SceneMaterial, SceneMesh, SceneObject};
use qtangent::Format;

/// A scene of one mesh with one material, drawn once with the model matrix `model`; its map
/// made as `map` says.
pub fn single_scene(
    name: &str,
    mesh: Prepared,
    material: SceneMaterial,
    map: MapSource,
    model: Mat4,
) -> RenderScene {
    RenderScene {
        name: name.into(),
        meshes: vec![SceneMesh {
            mesh,
            material: 0,
            map,
        }],
        materials: vec![material],
        objects: vec![SceneObject {
            mesh: 0,
            model,
            skin: None,
        }],
        warnings: Vec::new(),
        source: None,
    }
}

/// `scene` uploaded with Snorm16x4 vertex frames and its maps made as `options` says.
pub fn upload(
    renderer: &Renderer,
    ctx: &GpuContext,
    scene: &RenderScene,
    options: &MapOptions,
) -> GpuScene {
    renderer
        .upload(ctx, scene, &[Format::Snorm16x4], options, &mut ())
        .unwrap_or_else(|e| panic!("{}: upload: {e}", scene.name))
}

/// The view of the quad pairs ([`super::quad_pair`]): the camera fitted to a sphere of radius
/// 1.2 about the origin, square, at `yaw_deg` about +Y and level; one white light.
pub fn quad_pair_view(yaw_deg: f32) -> View {
    View {
        camera: Camera::fit(Vec3::ZERO, 1.2, 1.0, yaw_deg, 0.0),
        lighting: Lighting::single(Vec3::new(0.3, 0.4, 0.8), Vec3::ONE),
        anisotropy_override: None,
        background: Vec3::ZERO,
    }
}

/// The renderer's debug targets of one view at one size, read back.
pub struct Readback<'a> {
    pub ctx: &'a GpuContext,
    pub renderer: &'a Renderer,
    pub view: View,
    /// Width and height, pixels.
    pub size: (u32, u32),
}

impl<'a> Readback<'a> {
    pub fn new(ctx: &'a GpuContext, renderer: &'a Renderer, view: View, size: (u32, u32)) -> Self {
        Self {
            ctx,
            renderer,
            view,
            size,
        }
    }

    /// The quad pairs ([`super::quad_pair`]) seen by [`quad_pair_view`] at `yaw_deg`, 96 × 96
    /// pixels (the pair fills about half of them).
    pub fn quad_pair(ctx: &'a GpuContext, renderer: &'a Renderer, yaw_deg: f32) -> Self {
        Self::new(ctx, renderer, quad_pair_view(yaw_deg), (96, 96))
    }

    /// The shading frame of every pixel ([`Output::Frame`]): (n, handedness) and (anisotropy
    /// tangent, strength).
    pub fn frame(&self, gpu: &GpuScene, source: FrameSource) -> [Vec<[f32; 4]>; 2] {
        self.targets(gpu, source, Output::Frame)
    }

    /// The linear radiance and the world position of every pixel ([`Output::Shading`]).
    pub fn shading(&self, gpu: &GpuScene, source: FrameSource) -> [Vec<[f32; 4]>; 2] {
        self.targets(gpu, source, Output::Shading)
    }

    fn targets(&self, gpu: &GpuScene, source: FrameSource, output: Output) -> [Vec<[f32; 4]>; 2] {
        let shot = Shot {
            view: &self.view,
            source,
            size: glam::UVec2::new(self.size.0, self.size.1),
        };
        self.renderer
            .render_debug(self.ctx, gpu, &shot, output)
            .unwrap_or_else(|e| panic!("{}: {output:?}: {e}", source))
    }
}
