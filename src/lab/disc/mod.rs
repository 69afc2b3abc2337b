//! The swirl disc: a KHR_materials_anisotropy test asset made in code (after Khronos'
//! AnisotropyDiscTest), and the supersampled ground truth its renders are judged against. CPU
//! only: `lab/src/bin/aniso.rs` renders it and prints the table, `tests/unit/gpu/aniso.rs` checks it.
//!
//! # The disc
//!
//! A flat metal plate (`crate::lab::shapes::plate`) whose anisotropy texture holds, in the tangent
//! plane's (t, b) basis with p = (u − ½, −(v − ½)) (glTF UVs run down while b points up):
//!
//! - r < `CIRCLES`: grooves in **circles** about the centre;
//! - r < `SPIRAL`: a **spiral**, the circle turned by 45°;
//! - r < `BAND`: a **fading band** of radial grooves whose strength falls from 1 to 0;
//! - beyond: isotropic.
//!
//! # The bumpy disc
//!
//! [`Relief::Bumps`] gives the plate a normal map as well (`normal_map`: a grid of bumps
//! tilting the normal by up to about 24°), so the tangent-space quaternion map holds a tilt *and*
//! a twist per texel — the content it exists for, and the case two-channel formats cannot hold.
//!
//! # The RG map as engines get it
//!
//! The direction is axial, so a tool may write d or −d. [`RgLayout::Canonical`] writes the one
//! with y ≥ 0 (what a tool writing from an angle in [0°, 180°) gives); [`RgLayout::Oriented`]
//! orients it first, as the quaternion bake does (a tool that goes to that trouble). Engines
//! filter either as a vector: the canonical map flips sign along the x axis of every circle;
//! the oriented one only where the field cannot be oriented. Neither's box-filtered mips are
//! axial means.
//!
//! # The truth
//!
//! `truth` casts `samples²` rays through every pixel, evaluates the analytic field (never a
//! texture, never filtered) and the CPU BRDF (`lab::shading`) at each hit, and keeps the
//! mean radiance (tone-mapped and sRGB-encoded like the GPU's target) and the strength-weighted
//! axial mean of the world-space direction.

use std::f32::consts::{FRAC_PI_4, PI};

use glam::{Mat4, Vec2, Vec3, Vec4};
use image::RgbaImage;

use crate::lab::shading;
use crate::lab::shapes::plate;
use crate::lab::LabError;
use crate::mesh::MeshError;
use crate::qmap::anisotropy::DirectionField;
use crate::qmap::NormalMap;
use crate::render::{Camera, Lighting, MaterialUniforms};
use crate::render::{MapSource, RenderScene, SceneError, SceneMaterial, SceneMesh, SceneObject};

#[cfg(feature = "gpu")]
mod table;
#[cfg(feature = "gpu")]
pub use table::{disc_table, DiscSheet};

/// Radius (in UV) of the circles.
pub(crate) const CIRCLES: f32 = 0.16;
/// Outer radius of the spiral.
pub(crate) const SPIRAL: f32 = 0.32;
/// Outer radius of the fading band.
pub(crate) const BAND: f32 = 0.46;
/// Side of the plate, world units.
pub(crate) const PLATE_SIZE: f32 = 2.0;

/// The analytic field at `uv`: the oriented unit direction in (t, b) and the strength.
#[must_use]
pub(crate) fn field(uv: Vec2) -> (Vec2, f32) {
    let p = Vec2::new(uv.x - 0.5, 0.5 - uv.y);
    let r = p.length();
    let a = p.y.atan2(p.x);
    let along = |angle: f32| Vec2::new(angle.cos(), angle.sin());
    if r < CIRCLES {
        (along(a + 0.5 * PI), 1.0)
    } else if r < SPIRAL {
        (along(a + 0.5 * PI + FRAC_PI_4), 1.0)
    } else if r < BAND {
        let t = (r - SPIRAL) / (BAND - SPIRAL);
        (along(a), 0.5 + 0.5 * (PI * t).cos())
    } else {
        (Vec2::X, 0.0)
    }
}

/// Whether the disc has a normal map as well as its anisotropy texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relief {
    /// A flat plate: the anisotropy direction only.
    Flat,
    /// A grid of bumps (`normal_map`) under the grooves.
    Bumps,
}

/// Bumps across the plate, each way.
const BUMPS: f32 = 8.0;
/// The bumps' largest slope, ∂h/∂u: tan 24.2°.
const BUMP_SLOPE: f32 = 0.45;

/// The bumpy disc's tangent-space normal map, `size`², 8 bits (`(n + 1) / 2`): the height
/// `a · sin(2πku) · sin(2πkv)` with k = 8 bumps and a slope of at most 0.45 (24°) whatever
/// the size.
#[must_use]
pub(crate) fn normal_map(size: u32) -> RgbaImage {
    use std::f32::consts::TAU;
    let a = BUMP_SLOPE / (TAU * BUMPS);
    // from_height's strength scales the height's change over one texel: `size` makes it ∂h/∂u.
    NormalMap::from_height(size, size as f32, |u, v| {
        a * (TAU * BUMPS * u).sin() * (TAU * BUMPS * v).sin()
    })
    .to_rgba8()
}

/// How an RG direction map stores the axial direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RgLayout {
    /// d with y ≥ 0 (x ≥ 0 on the axis): what a tool writing from an angle in [0°, 180°) gives.
    Canonical,
    /// Oriented so neighbours agree, by the quaternion bake's own orientation
    /// (`crate::qmap::anisotropy`): the best an RG map can be, with seams only where the
    /// field cannot be oriented.
    Oriented,
}

impl RgLayout {}

/// The disc's KHR_materials_anisotropy texture, `size`²: RG = d · ½ + ½, B = strength, 8 bits,
/// each texel the field at its centre; oriented as the quaternion bake orients it
/// ([`DirectionField`]'s level 0) for [`RgLayout::Oriented`].
#[must_use]
pub(crate) fn texture(size: u32, layout: RgLayout) -> RgbaImage {
    let q = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
    let oriented =
        (layout == RgLayout::Oriented).then(|| DirectionField::from_fn(size, size, &field));
    RgbaImage::from_fn(size, size, |x, y| {
        let uv = Vec2::new(
            (x as f32 + 0.5) / size as f32,
            (y as f32 + 0.5) / size as f32,
        );
        let (mut d, s) = field(uv);
        match &oriented {
            Some(f) => {
                let o = f.levels[0].dirs[(y * size + x) as usize];
                if o.dot(d) < 0.0 {
                    d = -d;
                }
            }
            None => {
                if d.y < 0.0 || (d.y == 0.0 && d.x < 0.0) {
                    d = -d;
                }
            }
        }
        image::Rgba([q(d.x * 0.5 + 0.5), q(d.y * 0.5 + 0.5), q(s), 255])
    })
}

/// The disc's material: polished aluminium, fully anisotropic where the texture says so, with
/// the bumps' normal map (of the texture's size) for [`Relief::Bumps`].
#[must_use]
pub(crate) fn material(texture: RgbaImage, relief: Relief) -> SceneMaterial {
    let normal = (relief == Relief::Bumps).then(|| normal_map(texture.width()));
    SceneMaterial {
        anisotropy: Some(texture),
        normal,
        ..SceneMaterial::plain(
            "swirl disc",
            MaterialUniforms {
                base_color: Vec4::new(0.92, 0.92, 0.93, 1.0),
                metallic: 1.0,
                roughness: 0.3,
                anisotropy: 1.0,
                has_anisotropy_texture: 1.0,
                has_normal_map: if relief == Relief::Bumps { 1.0 } else { 0.0 },
                normal_scale: 1.0,
                ..MaterialUniforms::default()
            },
        )
    }
}

/// The disc as a scene: one plate of side `PLATE_SIZE` at the origin facing +Y, its
/// object-space map baked at the texture's size, flat or with bumps.
///
/// # Errors
/// [`SceneError::Mesh`] if the plate fails to prepare (fixed data: it does not).
pub fn scene(
    texture_size: u32,
    layout: RgLayout,
    relief: Relief,
) -> Result<RenderScene, SceneError> {
    let p = plate(PLATE_SIZE);
    let prepared = p
        .prepare()
        .map_err(|kind| MeshError::at(std::path::Path::new("swirl disc"), &p.label, kind))?;
    Ok(RenderScene {
        name: "swirl disc".into(),
        meshes: vec![SceneMesh {
            mesh: prepared,
            material: 0,
            map: MapSource::Bake { size: texture_size },
        }],
        materials: vec![material(texture(texture_size, layout), relief)],
        objects: vec![SceneObject {
            mesh: 0,
            model: Mat4::IDENTITY,
            skin: None,
        }],
        warnings: Vec::new(),
        source: None,
    })
}

/// The camera of the table: straight down (pitch 89°) on the plate, which fills the image.
#[must_use]
pub(crate) fn camera() -> Camera {
    let fov_y_deg = 40.0f32;
    let half = 0.5 * PLATE_SIZE;
    Camera {
        target: Vec3::ZERO,
        yaw_deg: 0.0,
        pitch_deg: 89.0,
        // The plate's half-side at the edge of the view.
        distance: half / (0.5 * fov_y_deg.to_radians()).tan(),
        fov_y_deg,
        scene_radius: half * std::f32::consts::SQRT_2,
    }
}

/// The table's lights: a point light low over one side and a grazing sun, so the grooves draw
/// long highlights across the disc; a dim sky.
#[must_use]
pub(crate) fn lighting() -> Lighting {
    Lighting {
        lights: vec![
            crate::render::Light::Point {
                position: Vec3::new(0.6, 1.2, 0.9),
                color: Vec3::new(3.0, 2.9, 2.7),
            },
            crate::render::Light::Directional {
                towards_light: Vec3::new(-0.8, 0.45, -0.4).normalize(),
                color: Vec3::new(1.2, 1.4, 1.8),
            },
        ],
        sky: Vec3::new(0.05, 0.06, 0.08),
        ground: Vec3::new(0.02, 0.02, 0.02),
        exposure: 1.0,
    }
}

/// The supersampled truth of a render (its size is the image's).
#[derive(Debug, Clone)]
pub(crate) struct Truth {
    /// Mean radiance, tone-mapped and sRGB-encoded (background where no ray hit).
    pub(crate) image: RgbaImage,
    /// Pixels every ray of which hit the plate.
    pub(crate) inside: Vec<bool>,
    /// Per pixel the axial mean direction's angle in the XZ plane (radians, atan2(z, x)), the
    /// mean strength and the coherence (the axial mean's length over the mean strength: 1 where
    /// every ray saw one direction, less where the pixel straddles a change of direction);
    /// `None` outside.
    pub(crate) direction: Vec<Option<(f32, f32, f32)>>,
}

/// sRGB encoding of a linear value in [0, 1] to 8 bits (the render target's).
fn srgb8(x: f32) -> u8 {
    let s = if x <= 0.003_130_8 {
        12.92 * x
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    };
    (s.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// How [`truth`] samples a render: its size, rays a pixel side on a regular grid, and the
/// linear colour of pixels no ray hits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TruthSampling {
    /// Width in pixels.
    width: u32,
    /// Height in pixels.
    height: u32,
    /// Rays a pixel side: `samples²` rays a pixel ([`samples_for`] picks it from the texture).
    samples: u32,
    /// Linear colour of pixels no ray hits.
    background: Vec3,
}

impl TruthSampling {
    /// A `size`² render across a `texture`² texture ([`samples_for`] rays a pixel side) on
    /// `background`.
    pub(crate) fn square(size: u32, texture: u32, background: Vec3) -> Self {
        Self {
            width: size,
            height: size,
            samples: samples_for(size, texture),
            background,
        }
    }
}

/// One pixel's truth: its mean radiance, whether every ray hit the plate, and its direction
/// (see [`Truth::direction`]).
struct PixelTruth {
    radiance: Vec3,
    inside: bool,
    direction: Option<(f32, f32, f32)>,
}

/// What every ray of one truth shares: the plate's frame and material, the camera's inverse
/// and the lights.
struct Tracer {
    sampling: TruthSampling,
    inverse: Mat4,
    normal: Vec3,
    tangent: Vec3,
    bitangent: Vec3,
    material: MaterialUniforms,
    uniforms: crate::render::SceneUniforms,
}

impl Tracer {
    /// Where the ray through film point `(fx, fy)` (pixels) meets the plate, with its UV; `None`
    /// where it misses.
    fn hit(&self, fx: f32, fy: f32) -> Option<(Vec3, Vec2)> {
        let (w, h) = (self.sampling.width as f32, self.sampling.height as f32);
        let ndc = Vec2::new(2.0 * fx / w - 1.0, 1.0 - 2.0 * fy / h);
        let near = self.inverse.project_point3(ndc.extend(0.0));
        let far = self.inverse.project_point3(ndc.extend(1.0));
        let ray = far - near;
        if ray.y.abs() < 1e-9 {
            return None;
        }
        let s = -near.y / ray.y;
        let p = near + ray * s;
        let uv = Vec2::new(p.x / PLATE_SIZE + 0.5, p.z / PLATE_SIZE + 0.5);
        if s < 0.0 || uv.cmplt(Vec2::ZERO).any() || uv.cmpgt(Vec2::ONE).any() {
            return None;
        }
        Some((p, uv))
    }

    /// Pixel `(px, py)`: `samples²` rays, the analytic [`field`] at each hit.
    fn pixel(&self, px: f32, py: f32) -> PixelTruth {
        let samples = self.sampling.samples;
        let (mut sum, mut hits, mut axial, mut strength) = (Vec3::ZERO, 0u32, Vec2::ZERO, 0.0f32);
        for sy in 0..samples {
            for sx in 0..samples {
                let fx = px + (sx as f32 + 0.5) / samples as f32;
                let fy = py + (sy as f32 + 0.5) / samples as f32;
                let Some((position, uv)) = self.hit(fx, fy) else {
                    continue;
                };
                let (d, st) = field(uv);
                let world = (self.tangent * d.x + self.bitangent * d.y).normalize();
                let surface = shading::Surface {
                    position,
                    normal: self.normal,
                    tangent: world,
                    base_color: self.material.base_color.truncate(),
                    metallic: self.material.metallic,
                    roughness: self.material.roughness,
                    anisotropy: (self.material.anisotropy * st).clamp(0.0, 1.0),
                };
                sum += shading::shade(&surface, &self.uniforms);
                hits += 1;
                let psi = world.z.atan2(world.x);
                axial += Vec2::new((2.0 * psi).cos(), (2.0 * psi).sin()) * st;
                strength += st;
            }
        }
        let all = samples * samples;
        let radiance = (sum + self.sampling.background * (all - hits) as f32) / all as f32;
        let direction = (hits == all).then(|| {
            let coherence = if strength > 0.0 {
                axial.length() / strength
            } else {
                0.0
            };
            (
                0.5 * axial.y.atan2(axial.x),
                strength / all as f32,
                coherence,
            )
        });
        PixelTruth {
            radiance,
            inside: hits == all,
            direction,
        }
    }
}

/// The truth of the disc `scene` (as [`scene`] made it) seen by `camera` under `lighting`,
/// sampled as `sampling` says, rows shared among the machine's threads.
///
/// # Panics
/// If the scene has no mesh.
#[must_use]
pub(crate) fn truth(
    scene: &RenderScene,
    camera: &Camera,
    lighting: &Lighting,
    sampling: TruthSampling,
) -> Truth {
    let frame = scene.meshes[0].mesh.frames[0];
    let (width, height) = (sampling.width, sampling.height);
    let tracer = Tracer {
        sampling,
        inverse: camera.view_proj(width as f32 / height as f32).inverse(),
        normal: frame.normal,
        tangent: frame.tangent,
        bitangent: frame.normal.cross(frame.tangent) * frame.handedness(),
        material: scene.materials[scene.meshes[0].material].uniforms,
        uniforms: lighting.uniforms(camera.position(), None),
    };
    let w = width as usize;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let rows_per = (height as usize).div_ceil(threads).max(1);
    let mut pixels: Vec<Option<PixelTruth>> = (0..w * height as usize).map(|_| None).collect();
    std::thread::scope(|scope| {
        for (k, chunk) in pixels.chunks_mut(rows_per * w).enumerate() {
            let tracer = &tracer;
            scope.spawn(move || {
                for (j, out) in chunk.iter_mut().enumerate() {
                    let i = k * rows_per * w + j;
                    *out = Some(tracer.pixel((i % w) as f32, (i / w) as f32));
                }
            });
        }
    });
    let pixels: Vec<PixelTruth> = pixels.into_iter().flatten().collect();
    let image = RgbaImage::from_fn(width, height, |x, y| {
        let r = pixels[(y * width + x) as usize].radiance;
        let c = shading::tonemap(r, lighting.exposure);
        image::Rgba([srgb8(c.x), srgb8(c.y), srgb8(c.z), 255])
    });
    Truth {
        image,
        inside: pixels.iter().map(|p| p.inside).collect(),
        direction: pixels.iter().map(|p| p.direction).collect(),
    }
}

/// Rays a pixel side for a render of `width` pixels across a texture of `texture` texels: at
/// least two a texel (so every texel under the pixel is seen), at least 6, at most 32.
#[must_use]
pub(crate) fn samples_for(width: u32, texture: u32) -> u32 {
    (2 * texture.div_ceil(width.max(1))).clamp(6, 32)
}

/// The axial angle between two directions in the XZ plane given as angles, in degrees (0–90).
#[must_use]
pub(crate) fn axial_error_deg(a: f32, b: f32) -> f32 {
    let d = 2.0 * (a - b);
    0.5 * d.sin().atan2(d.cos()).abs().to_degrees()
}

/// How a render's anisotropy direction compares with the truth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DirectionStats {
    /// Pixels judged: inside, with a mean strength of at least [`MIN_JUDGED_STRENGTH`].
    pub(crate) pixels: usize,
    /// Mean axial error, degrees.
    pub(crate) mean_deg: f32,
    /// 99th percentile, degrees.
    pub(crate) p99_deg: f32,
}

/// Pixels whose true mean strength is below this are not judged: their direction barely
/// changes the highlight.
pub(crate) const MIN_JUDGED_STRENGTH: f32 = 0.1;

/// Coherence at or above which a pixel's true direction is one direction: the rays under the
/// pixel agree to within about ±13° (the mean of cos 2δ over a uniform spread of ±13° is 0.95).
pub(crate) const COHERENT: f32 = 0.95;

/// The direction error of a render's debug frame (`tangents`: the second target of
/// `Output::Frame`, (t, strength) per pixel) against `truth`, over the pixels inside with a
/// true mean strength of at least [`MIN_JUDGED_STRENGTH`] and a coherence of at least
/// `min_coherence` (0: all of them; [`COHERENT`]: those whose truth is one direction).
#[must_use]
pub(crate) fn direction_stats(
    truth: &Truth,
    tangents: &[[f32; 4]],
    min_coherence: f32,
) -> DirectionStats {
    let mut errors: Vec<f32> = truth
        .direction
        .iter()
        .zip(tangents)
        .filter_map(|(d, t)| {
            let (psi, strength, coherence) = (*d)?;
            if strength < MIN_JUDGED_STRENGTH || coherence < min_coherence {
                return None;
            }
            // A pixel the render left without a direction is as wrong as can be.
            if !t.iter().all(|c| c.is_finite()) || t[0].hypot(t[2]) < 1e-6 {
                return Some(90.0);
            }
            Some(axial_error_deg(t[2].atan2(t[0]), psi))
        })
        .collect();
    errors.sort_by(f32::total_cmp);
    let n = errors.len();
    DirectionStats {
        pixels: n,
        mean_deg: if n == 0 {
            0.0
        } else {
            errors.iter().sum::<f32>() / n as f32
        },
        p99_deg: if n == 0 {
            0.0
        } else {
            errors[((n - 1) as f32 * 0.99).round() as usize]
        },
    }
}

/// How [`write_gltf`] stores the disc's anisotropy texture.
#[cfg(feature = "gltf")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureFile {
    /// `swirl_disc_anisotropy.png`.
    Png,
    /// `swirl_disc_anisotropy.ktx2`, `VK_FORMAT_R8G8B8A8_UNORM` with no mips.
    Ktx2Rgba8,
    /// `swirl_disc_anisotropy.ktx2`, `VK_FORMAT_BC7_UNORM_BLOCK` with no mips.
    Ktx2Bc7,
}

/// Writes the disc as a glTF 2.0 file using KHR_materials_anisotropy into `dir`:
/// `swirl_disc.gltf`, `swirl_disc.bin` (positions, normals, UVs, indices; no tangents, so a
/// loader makes them) and the anisotropy texture (`size`², written as `layout` says) as `file`
/// says; for [`Relief::Bumps`] `swirl_disc_bumps.gltf` with the normal map as
/// `swirl_disc_normal.png` as well. Returns the `.gltf` path.
///
/// # Errors
/// [`LabError`]: an encoder's error, or a file that cannot be written, named.
#[cfg(feature = "gltf")]
pub fn write_gltf(
    dir: &std::path::Path,
    size: u32,
    layout: RgLayout,
    file: TextureFile,
    relief: Relief,
) -> Result<std::path::PathBuf, LabError> {
    use crate::gltf::{Builder, Target};
    use serde_json::json;
    let p = plate(PLATE_SIZE);
    let mut b = Builder::new(json!({
        "asset": { "version": "2.0", "generator": "qtangent swirl disc" },
        "extensionsUsed": ["KHR_materials_anisotropy"],
    }));
    let vertex = Some(Target::ArrayBuffer);
    let positions: Vec<[f32; 3]> = p.positions.iter().map(|v| v.to_array()).collect();
    let normals: Vec<[f32; 3]> = p.normals.iter().flatten().map(|v| v.to_array()).collect();
    let uvs: Vec<[f32; 2]> = p.uvs.iter().flatten().map(|v| v.to_array()).collect();
    let attributes = json!({
        "POSITION": b.positions(&positions),
        "NORMAL": b.floats(&normals, vertex),
        "TEXCOORD_0": b.floats(&uvs, vertex),
    });
    let indices = b.indices(&p.indices);
    let mesh = b.push(
        "meshes",
        json!({ "name": "swirl disc", "primitives": [
            { "attributes": attributes, "indices": indices, "material": 0 }
        ] }),
    );
    let node = b.push("nodes", json!({ "mesh": mesh, "name": "swirl disc" }));
    b.json["scene"] = json!(0);
    b.json["scenes"] = json!([{ "nodes": [node] }]);
    let m = &material(RgbaImage::new(1, 1), Relief::Flat).uniforms;
    let c = m.base_color;
    let material = b.push(
        "materials",
        json!({
            "name": "swirl disc",
            "pbrMetallicRoughness": {
                "baseColorFactor": [c.x, c.y, c.z, 1.0],
                "metallicFactor": m.metallic,
                "roughnessFactor": m.roughness,
            },
            "extensions": { "KHR_materials_anisotropy": {
                "anisotropyStrength": m.anisotropy,
                "anisotropyRotation": 0.0,
                "anisotropyTexture": { "index": 0 },
            } },
        }),
    );
    b.push("textures", json!({ "source": 0 }));
    let (name, mime, bytes) = texture_file(size, layout, file)?;
    b.push("images", json!({ "uri": name, "mimeType": mime }));
    let write_error = |path: std::path::PathBuf, error| crate::gltf::WriteError::Io { path, error };
    let image = dir.join(name);
    std::fs::write(&image, bytes).map_err(|e| write_error(image, e))?;
    let mut stem = "swirl_disc";
    if relief == Relief::Bumps {
        stem = "swirl_disc_bumps";
        let name = "swirl_disc_normal.png";
        let texture = b.push("textures", json!({ "source": 1 }));
        b.push("images", json!({ "uri": name, "mimeType": "image/png" }));
        b.json["materials"][material]["normalTexture"] = json!({ "index": texture });
        let image = dir.join(name);
        normal_map(size)
            .save(&image)
            .map_err(|error| LabError::Png { file: name, error })?;
    }
    let path = dir.join(format!("{stem}.gltf"));
    b.write_gltf(&path)?;
    Ok(path)
}

/// The anisotropy texture's file: its name, MIME type and bytes.
#[cfg(feature = "gltf")]
fn texture_file(
    size: u32,
    layout: RgLayout,
    file: TextureFile,
) -> Result<(&'static str, &'static str, Vec<u8>), LabError> {
    let image = texture(size, layout);
    let ktx2 = |format, data| {
        let tex = crate::ktx2::Ktx2Texture::new(format, size, size, vec![data]);
        crate::ktx2::write(&tex).map_err(LabError::Ktx2)
    };
    Ok(match file {
        TextureFile::Png => {
            let mut png = Vec::new();
            image::DynamicImage::ImageRgba8(image)
                .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                .map_err(|error| LabError::Png {
                    file: "swirl_disc_anisotropy.png",
                    error,
                })?;
            ("swirl_disc_anisotropy.png", "image/png", png)
        }
        TextureFile::Ktx2Rgba8 => (
            "swirl_disc_anisotropy.ktx2",
            "image/ktx2",
            ktx2(crate::ktx2::TexelFormat::Rgba8Unorm, image.into_raw())?,
        ),
        TextureFile::Ktx2Bc7 => {
            let values: Vec<[f32; 4]> = image
                .pixels()
                .map(|px| px.0.map(|c| f32::from(c) / 255.0))
                .collect();
            let job = crate::qmap::bc::Bc7Job {
                channels: 3,
                care: None,
                quality: crate::qmap::bc::Bc7Quality::Basic,
                encoder: crate::qmap::bc::BcEncoder::default(),
            };
            let blocks =
                crate::qmap::bc::encode_bc7(size, size, &values, job).map_err(LabError::Bc7)?;
            let bytes = ktx2(crate::ktx2::TexelFormat::Bc7Unorm, blocks)?;
            ("swirl_disc_anisotropy.ktx2", "image/ktx2", bytes)
        }
    })
}
