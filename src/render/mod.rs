//! Lit scenes, CPU side: what the GPU renderer ([`crate::gpu::Renderer`], `shaders/lit.wgsl`)
//! draws, and everything about it that needs no GPU.
//!
//! - [`FrameSource`]: where a pixel's tangent frame comes from — f32 vertex attributes and the
//!   normal map (the reference), a qtangent vertex attribute and the normal map, or a
//!   quaternion map.
//! - [`RenderScene`]: meshes, materials with decoded textures, where each mesh's quaternion map
//!   comes from, and the objects that place them; [`RenderScene::load`] reads any file the
//!   loaders read.
//! - `SceneMaps::new`: a scene's maps ([`crate::qmap::SceneMaps`]) as the renderer draws them
//!   and `pack` embeds them, made by the one [`crate::qmap::Baker`].
//! - [`Camera`] (orbit, fitted to the scene's bounds) and [`Lighting`] (directional and point
//!   lights, a sky/ground ambient term), with the uniform blocks the shaders read.
//! - [`diff`]: PSNR and maximum error between two renders (the difference pictures are the
//!   tools', `examples/common/pictures.rs`).
//!
//! The BRDF in f32, mirroring `shaders/lit.wgsl` line for line, is the CPU reference the
//! renderer's tests compare the GPU with; it is not part of the API.

pub(crate) mod compare;
#[cfg(feature = "ktx2")]
pub(crate) mod maps;
pub(crate) mod scene;

pub use compare::{diff, ImageDiff, ImageDiffError};
pub use scene::{MapSource, RenderScene, SceneError, SceneMaterial, SceneMesh, SceneObject};

use glam::{Mat4, Vec3, Vec4};

use crate::Format;

/// Where the tangent frame of a pixel comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameSource {
    /// f32 normal + tangent + handedness vertex attributes (28 bytes a vertex), interpolated,
    /// then the normal map: what engines do today.
    Reference,
    /// A qtangent vertex attribute in `Format`, decoded in the vertex shader, then the normal
    /// map.
    QTangent(Format),
    /// An object-space quaternion map sampled per pixel: position and UV are the only vertex
    /// attributes, and no normal map is read (it is baked into the map).
    QuatMap,
    /// A tangent-space quaternion map (`crate::qmap::tangent`): the Snorm16x4 qtangent vertex
    /// frame turned per pixel by the map's rotation; no normal map is read.
    QuatMapTangent,
}

impl FrameSource {
    /// `reference`, `qtangent`, `quatmap` or `quatmap-tangent` (the `--mode` names).
    #[must_use]
    pub fn mode_name(self) -> &'static str {
        match self {
            Self::Reference => "reference",
            Self::QTangent(_) => "qtangent",
            Self::QuatMap => "quatmap",
            Self::QuatMapTangent => "quatmap-tangent",
        }
    }
}

/// A label for tables: `reference`, `qtangent snorm16x4`, `quatmap`.
impl std::fmt::Display for FrameSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::QTangent(format) => f.pad(&format!("qtangent {}", format.name())),
            other => f.pad(other.mode_name()),
        }
    }
}

/// Most lights one draw evaluates ([`SceneUniforms::lights`]).
pub(crate) const MAX_LIGHTS: usize = 4;

/// A light as the shaders read it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct LightUniform {
    /// w = 0: xyz is the unit direction *towards* the light (directional);
    /// w = 1: xyz is the light's world position (point light, inverse-square falloff).
    pub(crate) position: Vec4,
    /// Linear RGB radiance scale (colour × intensity); w unused.
    pub(crate) color: Vec4,
}

/// `SceneUniforms` in `shaders/lit.wgsl`, field for field (48 + 32 × `MAX_LIGHTS` bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct SceneUniforms {
    /// World-space camera position (w = 1).
    pub(crate) camera_position: Vec4,
    /// Ambient radiance from above (+Y), linear RGB; w unused.
    pub(crate) sky: Vec4,
    /// Ambient radiance from below, linear RGB; w unused.
    pub(crate) ground: Vec4,
    /// Exposure multiplier applied before tone mapping.
    pub(crate) exposure: f32,
    /// Number of valid entries in `lights`.
    pub(crate) light_count: u32,
    /// ≥ 0: every material's anisotropy strength is replaced by this; < 0: the materials' own.
    pub(crate) anisotropy_override: f32,
    /// Padding.
    pub(crate) pad: f32,
    /// The lights; entries past `light_count` are ignored.
    pub(crate) lights: [LightUniform; MAX_LIGHTS],
}

const _: () = assert!(std::mem::size_of::<SceneUniforms>() == 64 + 32 * MAX_LIGHTS);

/// A directional or point light.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Light {
    /// Parallel light arriving from `towards_light` (unit vector pointing at the light).
    Directional {
        /// Unit direction from the surface towards the light.
        towards_light: Vec3,
        /// Linear RGB irradiance on a surface facing the light.
        color: Vec3,
    },
    /// A point light with inverse-square falloff.
    Point {
        /// World position.
        position: Vec3,
        /// Linear RGB intensity: irradiance at distance 1.
        color: Vec3,
    },
}

/// The lights of a render and its ambient term.
#[derive(Debug, Clone, PartialEq)]
pub struct Lighting {
    /// At most `MAX_LIGHTS` lights.
    pub(crate) lights: Vec<Light>,
    /// Ambient radiance from above.
    pub(crate) sky: Vec3,
    /// Ambient radiance from below.
    pub(crate) ground: Vec3,
    /// Exposure before tone mapping.
    pub exposure: f32,
}

/// Unit direction from yaw (about +Y, 0 = towards +Z) and pitch (above the horizon), degrees.
#[must_use]
pub(crate) fn direction_from_angles(yaw_deg: f32, pitch_deg: f32) -> Vec3 {
    let (yaw, pitch) = (yaw_deg.to_radians(), pitch_deg.to_radians());
    Vec3::new(
        pitch.cos() * yaw.sin(),
        pitch.sin(),
        pitch.cos() * yaw.cos(),
    )
}

impl Lighting {
    /// The demo's lighting for a scene of bounding sphere (`center`, `radius`): a warm sun from
    /// `sun_yaw_deg` / `sun_pitch_deg`, a cool and a warm point light on the sphere's flanks, a
    /// blue-grey sky over a brown ground.
    #[must_use]
    pub fn studio(center: Vec3, radius: f32, sun_yaw_deg: f32, sun_pitch_deg: f32) -> Self {
        let r = radius.max(1e-3);
        // Point lights at 1.6 r from the centre; intensity ∝ r² so they light every scene size alike.
        let point = |yaw: f32, pitch: f32, color: Vec3| Light::Point {
            position: center + direction_from_angles(yaw, pitch) * (1.6 * r),
            color: color * (r * r),
        };
        Self {
            lights: vec![
                Light::Directional {
                    towards_light: direction_from_angles(sun_yaw_deg, sun_pitch_deg),
                    color: Vec3::new(3.2, 3.0, 2.7),
                },
                point(sun_yaw_deg + 140.0, 15.0, Vec3::new(0.6, 1.0, 2.2)),
                point(sun_yaw_deg - 120.0, -10.0, Vec3::new(1.8, 1.0, 0.5)),
            ],
            sky: Vec3::new(0.16, 0.19, 0.26),
            ground: Vec3::new(0.07, 0.06, 0.05),
            exposure: 1.0,
        }
    }

    /// One directional light and no ambient: what the analytic tests use.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn single(towards_light: Vec3, color: Vec3) -> Self {
        Self {
            lights: vec![Light::Directional {
                towards_light: towards_light.normalize(),
                color,
            }],
            sky: Vec3::ZERO,
            ground: Vec3::ZERO,
            exposure: 1.0,
        }
    }

    /// The uniform block for a camera at `camera_position`. Lights past `MAX_LIGHTS` are
    /// dropped.
    #[must_use]
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn uniforms(
        &self,
        camera_position: Vec3,
        anisotropy_override: Option<f32>,
    ) -> SceneUniforms {
        let mut lights = [LightUniform::default(); MAX_LIGHTS];
        for (slot, light) in lights.iter_mut().zip(&self.lights) {
            *slot = match *light {
                Light::Directional {
                    towards_light,
                    color,
                } => LightUniform {
                    position: towards_light.normalize().extend(0.0),
                    color: color.extend(0.0),
                },
                Light::Point { position, color } => LightUniform {
                    position: position.extend(1.0),
                    color: color.extend(0.0),
                },
            };
        }
        SceneUniforms {
            camera_position: camera_position.extend(1.0),
            sky: self.sky.extend(0.0),
            ground: self.ground.extend(0.0),
            exposure: self.exposure,
            light_count: self.lights.len().min(MAX_LIGHTS) as u32,
            anisotropy_override: anisotropy_override.unwrap_or(-1.0),
            pad: 0.0,
            lights,
        }
    }
}

/// `MaterialUniforms` in `shaders/lit.wgsl` (64 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MaterialUniforms {
    /// Linear RGBA base colour factor (multiplies the base colour texture).
    pub(crate) base_color: Vec4,
    /// Metallic factor (multiplies the texture's B).
    pub(crate) metallic: f32,
    /// Perceptual roughness factor (multiplies the texture's G).
    pub(crate) roughness: f32,
    /// glTF `normalTexture.scale`: multiplies the normal map's x and y.
    pub normal_scale: f32,
    /// Anisotropy strength in [0, 1] (KHR_materials_anisotropy's `anisotropyStrength`, times
    /// the texture's B where there is one): α along the anisotropy direction grows to
    /// `mix(α, 1, strength²)`.
    pub(crate) anisotropy: f32,
    /// 1 when the material has a normal map (0: the interpolated frame is used as is); 2 for a
    /// two-channel (BC5) normal map, whose z the shader rebuilds from the filtered (x, y) as
    /// engines sampling BC5 do ([`NORMAL_MAP_TWO_CHANNEL`]).
    pub(crate) has_normal_map: f32,
    /// Alpha-mask cutoff; fragments with alpha below it are discarded (0 for opaque/blend).
    pub(crate) alpha_cutoff: f32,
    /// (cos θ, sin θ) of KHR_materials_anisotropy's `anisotropyRotation` θ: the anisotropy
    /// direction turned from the tangent towards the bitangent.
    pub(crate) anisotropy_rotation: [f32; 2],
    /// 1 when the material has an anisotropy texture (RG direction, B strength).
    pub(crate) has_anisotropy_texture: f32,
    /// Padding.
    pub(crate) pad: [f32; 3],
}

const _: () = assert!(std::mem::size_of::<MaterialUniforms>() == 64);

/// [`MaterialUniforms::has_normal_map`] for a BC5 normal map: the shader samples (x, y) and
/// rebuilds `z = √(1 − x² − y²)` after filtering (Bevy's two-component normal maps, Unity's and
/// Unreal's BC5 normals), instead of filtering a z stored per texel and normalising.
pub(crate) const NORMAL_MAP_TWO_CHANNEL: f32 = 2.0;

impl MaterialUniforms {
    /// The uniforms' `anisotropyRotation` in radians.
    #[must_use]
    pub(crate) fn anisotropy_rotation_radians(&self) -> f32 {
        self.anisotropy_rotation[1].atan2(self.anisotropy_rotation[0])
    }

    /// Sets `anisotropyRotation` (radians).
    pub(crate) fn set_anisotropy_rotation(&mut self, radians: f32) {
        let (s, c) = radians.sin_cos();
        self.anisotropy_rotation = [c, s];
    }
}

impl Default for MaterialUniforms {
    fn default() -> Self {
        Self {
            base_color: Vec4::ONE,
            metallic: 0.0,
            roughness: 0.5,
            normal_scale: 1.0,
            anisotropy: 0.0,
            has_normal_map: 0.0,
            alpha_cutoff: 0.0,
            anisotropy_rotation: [1.0, 0.0],
            has_anisotropy_texture: 0.0,
            pad: [0.0; 3],
        }
    }
}

/// An orbit camera: it looks at `target` from `distance` away, at `yaw` about +Y and `pitch`
/// above the horizon (degrees).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// The point looked at.
    pub target: Vec3,
    /// Degrees about +Y; 0 looks from +Z towards −Z.
    pub yaw_deg: f32,
    /// Degrees above the horizon, clamped to ±89 when used.
    pub pitch_deg: f32,
    /// Distance from the target.
    pub distance: f32,
    /// Vertical field of view, degrees.
    pub(crate) fov_y_deg: f32,
    /// Radius of the scene's bounding sphere: sets the near and far planes.
    pub scene_radius: f32,
}

impl Camera {
    /// A camera at `yaw` / `pitch` whose view holds the sphere (`center`, `radius`) with a 5%
    /// margin for an image of `aspect` = width / height.
    #[must_use]
    pub fn fit(center: Vec3, radius: f32, aspect: f32, yaw_deg: f32, pitch_deg: f32) -> Self {
        let fov_y_deg = 40.0f32;
        let half_y = (fov_y_deg.to_radians() * 0.5).tan();
        // The narrower of the two half-angles decides.
        let half = half_y.min(half_y * aspect.max(1e-3)).atan();
        let radius = radius.max(1e-6);
        Self {
            target: center,
            yaw_deg,
            pitch_deg,
            distance: 1.05 * radius / half.sin(),
            fov_y_deg,
            scene_radius: radius,
        }
    }

    /// World-space eye position.
    #[must_use]
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn position(&self) -> Vec3 {
        self.target
            + direction_from_angles(self.yaw_deg, self.pitch_deg.clamp(-89.0, 89.0)) * self.distance
    }

    /// World to clip (right-handed, depth 0 at near to 1 at far, wgpu's convention).
    #[must_use]
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn view_proj(&self, aspect: f32) -> Mat4 {
        let eye = self.position();
        let view = Mat4::look_at_rh(eye, self.target, Vec3::Y);
        let near = (self.distance - 1.5 * self.scene_radius).max(self.distance * 1e-3);
        let far = self.distance + 1.5 * self.scene_radius;
        Mat4::perspective_rh(self.fov_y_deg.to_radians(), aspect, near, far) * view
    }
}
