//! Scenes to render: meshes with their materials, where each mesh's quaternion map comes from,
//! and the objects that place meshes in the world. CPU only: images are decoded here, maps are
//! baked by whoever uploads the scene ([`crate::gpu::render`]).

use std::f32::consts::{PI, TAU};
use std::path::{Path, PathBuf};

use glam::{Mat3, Mat4, Quat, Vec2, Vec3, Vec4};
use image::RgbaImage;

use super::MaterialUniforms;
use crate::mesh::{self, procedural, MeshError, Prepared, TextureRef};
use crate::qmap::anisotropy::DirectionField;
use crate::qmap::stored::EncodedMap;
use crate::qmap::MapSpace;
use crate::qmap::{
    self, texel, BakeMesh, BakeSettings, MapFormat, NormalMap, QuatMap, Raster, TexelKind,
};

/// A material ready for upload: constant factors and decoded 8-bit textures.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneMaterial {
    /// Name for messages and tables.
    pub name: String,
    /// The factors the shader reads.
    pub uniforms: MaterialUniforms,
    /// Base colour, sRGB-encoded.
    pub base_color: Option<RgbaImage>,
    /// glTF metallic-roughness: G roughness, B metallic (linear).
    pub metallic_roughness: Option<RgbaImage>,
    /// Tangent-space normal map, `(v + 1) / 2` per channel (linear), unscaled: the scale is
    /// [`MaterialUniforms::normal_scale`].
    pub normal: Option<RgbaImage>,
    /// The normal texture's levels below level 0 as stored (`None`: made from `normal` by the
    /// renderer's triangle filter). A BC5 normal map has every level compressed
    /// ([`crate::qmap::normal_map::bc5_round_trip_chain`]).
    pub normal_mips: Option<Vec<RgbaImage>>,
    /// An authored tangent-space quaternion map ([`crate::qmap::tangent`]) — a tangent field no
    /// normal map can say — used by the `quatmap-tangent` mode instead of one baked from
    /// `normal`.
    pub tangent_map: Option<Box<QuatMap>>,
    /// KHR_materials_anisotropy's texture (RG direction, B strength; linear), its factors in
    /// [`MaterialUniforms::anisotropy`] and [`MaterialUniforms::anisotropy_rotation`]. Both
    /// kinds of quaternion map carry its direction ([`SceneMaterial::direction_field`]).
    pub anisotropy: Option<RgbaImage>,
    /// The tangent-space map a packed file embeds ([`crate::mesh::Material::tangent_map`]),
    /// used as stored: not baked again.
    pub packed_tangent_map: Option<Box<EncodedMap>>,
}

impl SceneMaterial {
    /// A textureless material.
    #[must_use]
    pub fn plain(name: &str, uniforms: MaterialUniforms) -> Self {
        Self {
            name: name.to_owned(),
            uniforms,
            base_color: None,
            metallic_roughness: None,
            normal: None,
            normal_mips: None,
            tangent_map: None,
            anisotropy: None,
            packed_tangent_map: None,
        }
    }

    /// The anisotropy direction the maps carry: the texture's, turned by the material's
    /// rotation, oriented and with axial mips ([`DirectionField`]); `None` without a texture
    /// (then the shader turns the tangent by the rotation itself).
    #[must_use]
    pub fn direction_field(&self) -> Option<DirectionField> {
        self.anisotropy
            .as_ref()
            .map(|t| DirectionField::from_texture(t, self.uniforms.anisotropy_rotation_radians()))
    }

    /// The normal map as the bake reads it ([`NormalMap::from_image`] with the material's
    /// scale).
    #[must_use]
    pub fn bake_normal_map(&self) -> Option<NormalMap> {
        self.normal.as_ref().map(|img| {
            NormalMap::from_image(
                &image::DynamicImage::ImageRgba8(img.clone()),
                self.uniforms.normal_scale,
            )
        })
    }
}

/// Where a mesh's quaternion map comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum MapSource {
    /// Baked from the mesh's frames and its material's normal map, `size`² texels.
    Bake {
        /// Map side in texels.
        size: u32,
    },
    /// Made in code: frames no normal map can express (a tangent field).
    Authored(Box<QuatMap>),
    /// Embedded in the file the mesh came from (a packed file's
    /// [`crate::mesh::Primitive::object_map`]), with its own UVs (one per prepared vertex) when
    /// they are not the mesh's; used as stored.
    Packed {
        /// The stored map.
        map: Box<EncodedMap>,
        /// The map's UVs when it reads another set than the mesh's own.
        uvs: Option<Vec<Vec2>>,
    },
    /// No map: the mesh has no usable UVs. In quaternion-map mode it is drawn with qtangent
    /// vertex frames instead (and the render says so).
    None,
}

/// One mesh: prepared vertices (frames, UVs), its material and its quaternion map.
#[derive(Debug, Clone)]
pub struct SceneMesh {
    /// The prepared primitive.
    pub mesh: Prepared,
    /// Index into [`RenderScene::materials`].
    pub material: usize,
    /// Its quaternion map.
    pub map: MapSource,
}

/// A mesh placed in the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneObject {
    /// Index into [`RenderScene::meshes`].
    pub mesh: usize,
    /// Object to world.
    pub model: Mat4,
    /// The glTF skin (index into [`crate::mesh::Scene::skins`]) when the object is skinned:
    /// [`crate::gpu::render::GpuScene::set_skinned`] draws it posed; without that, in its bind
    /// pose.
    pub skin: Option<usize>,
}

/// What a render draws.
#[derive(Debug, Clone)]
pub struct RenderScene {
    /// Name for messages and tables.
    pub name: String,
    /// Meshes.
    pub meshes: Vec<SceneMesh>,
    /// Materials.
    pub materials: Vec<SceneMaterial>,
    /// Instances.
    pub objects: Vec<SceneObject>,
    /// Things the loader skipped or approximated.
    pub warnings: Vec<String>,
    /// The loaded file that [`SceneObject::skin`] indexes ([`crate::mesh::Scene::skins`],
    /// its nodes and animations), kept by [`RenderScene::load`] so an app that skins or animates
    /// the scene need not load the file again; `None` for scenes made in code
    /// ([`RenderScene::default_scene`], [`crate::render::disc::scene`]).
    pub source: Option<mesh::Scene>,
}

/// A scene could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The mesh file failed to load or prepare.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// A texture failed to decode.
    #[error("{file}: material '{material}': {image}: {problem}")]
    Image {
        /// The mesh file.
        file: PathBuf,
        /// The material.
        material: String,
        /// The image (path or description).
        image: String,
        /// What failed.
        problem: String,
    },
    /// Nothing to draw.
    #[error("{file}: {problem}")]
    Empty {
        /// The mesh file.
        file: PathBuf,
        /// Why.
        problem: String,
    },
}

/// Side of one checker square of [`RenderScene::add_ground`]'s texture, in texels (8 × 8 squares
/// in a 128² texture).
const CHECKER_TEXELS: u32 = 16;

impl RenderScene {
    /// Adds a checkered ground for animated scenes: a square of half-size `half` at height `y`
    /// (normal +Y, tangent +X), its texture repeating every `period` units (two squares a
    /// period), in a plain rough material of its own. Returns the new object's index.
    ///
    /// # Errors
    /// [`SceneError::Empty`] naming the scene when the sizes are not positive and finite.
    pub fn add_ground(&mut self, half: f32, y: f32, period: f32) -> Result<usize, SceneError> {
        let bad = !(half.is_finite() && period.is_finite() && y.is_finite())
            || half <= 0.0
            || period <= 0.0;
        if bad {
            return Err(SceneError::Empty {
                file: PathBuf::from(&self.name),
                problem: format!("a ground of half-size {half} at height {y} with period {period}"),
            });
        }
        let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(glam::Vec2::from);
        let ground = mesh::Primitive {
            label: "ground".into(),
            positions: corners
                .iter()
                .map(|c| Vec3::new(c.x * half, y, c.y * half))
                .collect(),
            normals: Some(vec![Vec3::Y; 4]),
            uvs: Some(
                corners
                    .iter()
                    .map(|&c| (c + 1.0) * (half / period))
                    .collect(),
            ),
            indices: vec![0, 2, 1, 0, 3, 2],
            ..Default::default()
        };
        let ground = ground
            .prepare()
            .map_err(|kind| MeshError::at(Path::new(&self.name), "ground", kind))?;
        self.materials.push(SceneMaterial {
            base_color: Some(RgbaImage::from_fn(128, 128, |x, y| {
                let [a, b] = [[150, 146, 138, 255], [96, 100, 104, 255]];
                image::Rgba(if (x / CHECKER_TEXELS + y / CHECKER_TEXELS) % 2 == 0 {
                    a
                } else {
                    b
                })
            })),
            ..SceneMaterial::plain(
                "ground",
                MaterialUniforms {
                    base_color: Vec4::ONE,
                    metallic: 0.0,
                    roughness: 0.8,
                    ..MaterialUniforms::default()
                },
            )
        });
        self.meshes.push(SceneMesh {
            mesh: ground,
            material: self.materials.len() - 1,
            map: MapSource::None,
        });
        self.objects.push(SceneObject {
            mesh: self.meshes.len() - 1,
            model: Mat4::IDENTITY,
            skin: None,
        });
        Ok(self.objects.len() - 1)
    }
}

/// Default side of a baked map when the material has no normal map, and the smallest baked:
/// 512² resolves the vertex-frame interpolation of the shared meshes to within the 40 dB the
/// render tests ask for (256² does not on the duck: 35 dB).
pub const MIN_BAKE_SIZE: u32 = 512;
/// Padding rings of the maps the renderer bakes. Minified, a map is read from its mips, where
/// level k has 2⁻ᵏ of the padding: 16 rings keep a 4-texel margin at level 2 (a quarter of the
/// normal map's resolution), so island edges read their own frames rather than a neighbour
/// island's or background.
pub const RENDER_PADDING: u32 = 16;
/// Largest side chosen automatically (the bake itself allows more).
pub const MAX_AUTO_BAKE_SIZE: u32 = 4096;

/// The map side for a normal map of `w × h`: its larger side rounded up to a power of two,
/// within [[`MIN_BAKE_SIZE`], [`MAX_AUTO_BAKE_SIZE`]]: one map texel per normal-map texel.
#[must_use]
pub fn bake_size_for(normal: Option<(u32, u32)>) -> u32 {
    normal.map_or(MIN_BAKE_SIZE, |(w, h)| {
        w.max(h)
            .next_power_of_two()
            .clamp(MIN_BAKE_SIZE, MAX_AUTO_BAKE_SIZE)
    })
}

fn has_uv_area(p: &Prepared) -> bool {
    p.indices.chunks_exact(3).any(|t| {
        let [a, b, c] = [0, 1, 2].map(|k| p.uvs[t[k] as usize]);
        texel::area2(&[a, b, c]).abs() > 1e-12
    })
}

impl RenderScene {
    /// Centre and radius of a sphere holding every object's transformed vertices: the centre of
    /// their bounding box and the largest distance from it.
    #[must_use]
    pub fn bounds(&self) -> (Vec3, f32) {
        let world = || {
            self.objects.iter().flat_map(|o| {
                self.meshes[o.mesh]
                    .mesh
                    .positions
                    .iter()
                    .map(move |&p| o.model.transform_point3(p))
            })
        };
        let (lo, hi) = world().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), w| (lo.min(w), hi.max(w)),
        );
        if !lo.is_finite() || !hi.is_finite() {
            return (Vec3::ZERO, 1.0);
        }
        let center = (lo + hi) * 0.5;
        let radius = world().map(|w| w.distance(center)).fold(0.0f32, f32::max);
        (center, radius.max(1e-6))
    }

    /// Sets the side of every map baked from a normal map ([`MapSource::Bake`]) to `size`.
    pub fn set_bake_size(&mut self, size: u32) {
        for m in &mut self.meshes {
            if let MapSource::Bake { size: s } = &mut m.map {
                *s = size;
            }
        }
    }

    /// The bake input of mesh `i`: its frames and UVs, and its material's normal map.
    #[must_use]
    pub fn bake_input(&self, i: usize) -> (BakeMesh, Option<NormalMap>) {
        let m = &self.meshes[i];
        let label = format!("{}: {}", self.name, m.mesh.label);
        let bake = BakeMesh::from_prepared(label, &[&m.mesh]);
        (bake, self.materials[m.material].bake_normal_map())
    }

    /// Bake settings for a map of `size`² in the renderer's format (rgba16f) with
    /// [`RENDER_PADDING`] rings of padding.
    #[must_use]
    pub fn bake_settings(size: u32) -> BakeSettings {
        BakeSettings {
            width: size,
            height: size,
            padding: RENDER_PADDING,
            format: MapFormat::Rgba16Float,
        }
    }

    /// What the tools' SCENE argument names: `default` is [`RenderScene::default_scene`], anything
    /// else a file for [`RenderScene::load`].
    ///
    /// # Errors
    /// As those two.
    pub fn from_arg(arg: &str) -> Result<Self, SceneError> {
        if arg == "default" {
            Self::default_scene()
        } else {
            Self::load(Path::new(arg))
        }
    }

    /// Loads a glTF or OBJ file: every primitive of every mesh instance, with its material's
    /// textures decoded. Skinned meshes are drawn in their bind pose (skinning is not applied).
    /// Primitives without UVs get no quaternion map ([`MapSource::None`]).
    /// The loaded file is kept in [`RenderScene::source`].
    ///
    /// # Errors
    /// [`SceneError::Mesh`] for files the loaders reject or primitives that fail to prepare,
    /// [`SceneError::Image`] for textures that do not decode, [`SceneError::Empty`] for a file
    /// with nothing to draw.
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        let loaded = mesh::load(path)?;
        let mut warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
        let texture =
            |material: &str, t: &Option<TextureRef>| -> Result<Option<RgbaImage>, SceneError> {
                let Some(t) = t else { return Ok(None) };
                if t.tex_coord != 0 {
                    return Ok(None);
                }
                t.image
                    .decode()
                    .map(|i| Some(i.to_rgba8()))
                    .map_err(|problem| SceneError::Image {
                        file: path.to_path_buf(),
                        material: material.to_owned(),
                        image: t.image.describe(),
                        problem: problem.to_string(),
                    })
            };
        let mut materials = Vec::new();
        for m in &loaded.materials {
            let aniso_texture = m.anisotropy.as_ref().and_then(|a| a.texture.clone());
            for (what, t) in [
                ("base colour", &m.base_color_texture),
                ("metallic-roughness", &m.metallic_roughness_texture),
                ("normal", &m.normal_texture),
                ("anisotropy", &aniso_texture),
            ] {
                if t.as_ref().is_some_and(|t| t.tex_coord != 0) {
                    warnings.push(format!(
                        "material '{}': the {what} texture reads UV set {}; only set 0 is loaded, so it is not drawn",
                        m.name,
                        t.as_ref().map_or(0, |t| t.tex_coord)
                    ));
                }
            }
            let mut uniforms = MaterialUniforms {
                base_color: m.base_color,
                metallic: m.metallic,
                roughness: m.roughness,
                normal_scale: m.normal_texture.as_ref().map_or(1.0, |t| t.scale),
                has_normal_map: f32::from(u8::from(
                    m.normal_texture.as_ref().is_some_and(|t| t.tex_coord == 0),
                )),
                anisotropy: m.anisotropy.as_ref().map_or(0.0, |a| a.strength),
                ..MaterialUniforms::default()
            };
            uniforms.set_anisotropy_rotation(m.anisotropy.as_ref().map_or(0.0, |a| a.rotation));
            materials.push(SceneMaterial {
                name: m.name.clone(),
                uniforms,
                base_color: texture(&m.name, &m.base_color_texture)?,
                metallic_roughness: texture(&m.name, &m.metallic_roughness_texture)?,
                normal: texture(&m.name, &m.normal_texture)?,
                normal_mips: None,
                tangent_map: None,
                anisotropy: texture(&m.name, &aniso_texture)?,
                packed_tangent_map: m
                    .tangent_map
                    .as_ref()
                    .map(|image| packed_map(path, &m.name, image, MapSpace::Tangent))
                    .transpose()?,
            });
        }
        let default_material = materials.len();
        let mut used_default = false;
        let mut meshes = Vec::new();
        let mut objects = Vec::new();
        for m in &loaded.meshes {
            for p in &m.primitives {
                let prepared = p
                    .prepare()
                    .map_err(|kind| MeshError::at(path, &p.label, kind))?;
                let material = p.material.unwrap_or_else(|| {
                    used_default = true;
                    default_material
                });
                let map = if let Some(packed) = &p.object_map {
                    MapSource::Packed {
                        map: packed_map(path, &m.name, &packed.image, MapSpace::Object)?,
                        uvs: packed.uvs.as_ref().map(|uvs| {
                            prepared
                                .source_vertex
                                .iter()
                                .map(|&v| uvs[v as usize])
                                .collect()
                        }),
                    }
                } else if p.uvs.is_none() || !has_uv_area(&prepared) {
                    warnings.push(format!(
                        "{}: no UVs, so no quaternion map: quatmap mode draws it with qtangent vertex frames",
                        p.label
                    ));
                    MapSource::None
                } else {
                    // One map texel per texel of the finer of the normal map and the
                    // anisotropy texture, whose directions the map also carries.
                    let sized = materials.get(material).and_then(|m: &SceneMaterial| {
                        [m.normal.as_ref(), m.anisotropy.as_ref()]
                            .into_iter()
                            .flatten()
                            .map(RgbaImage::dimensions)
                            .max_by_key(|&(w, h)| w.max(h))
                    });
                    MapSource::Bake {
                        size: bake_size_for(sized),
                    }
                };
                let index = meshes.len();
                meshes.push(SceneMesh {
                    mesh: prepared,
                    material,
                    map,
                });
                if m.instances.is_empty() {
                    objects.push(SceneObject {
                        mesh: index,
                        model: Mat4::IDENTITY,
                        skin: None,
                    });
                }
                for inst in &m.instances {
                    // glTF: a skinned mesh ignores its node's transform; without skinning, its
                    // bind-pose vertices are drawn as they are.
                    let model = if inst.skin.is_some() {
                        Mat4::IDENTITY
                    } else {
                        inst.world
                    };
                    if Mat3::from_mat4(model).determinant().abs() < 1e-20 || !model.is_finite() {
                        warnings.push(format!(
                            "{}: node {} has a singular or non-finite transform; instance skipped",
                            p.label, inst.node
                        ));
                        continue;
                    }
                    objects.push(SceneObject {
                        mesh: index,
                        model,
                        skin: inst.skin,
                    });
                }
            }
        }
        if used_default {
            materials.push(SceneMaterial::plain(
                "default",
                MaterialUniforms {
                    base_color: Vec4::new(0.8, 0.8, 0.8, 1.0),
                    metallic: 0.0,
                    roughness: 0.5,
                    ..MaterialUniforms::default()
                },
            ));
        }
        if objects.is_empty() {
            return Err(SceneError::Empty {
                file: path.to_path_buf(),
                problem: "no mesh instance to draw".into(),
            });
        }
        if loaded.skins.iter().any(|_| true) {
            warnings.push("skinned meshes are drawn in their bind pose".into());
        }
        Ok(Self {
            name: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            meshes,
            materials,
            objects,
            warnings,
            source: Some(loaded),
        })
    }

    /// The loaded file this scene was made from ([`RenderScene::source`]): what
    /// [`SceneObject::skin`] indexes; `None` for scenes made in code.
    #[must_use]
    pub fn loaded(&self) -> Option<&mesh::Scene> {
        self.source.as_ref()
    }

    /// The embedded default scene: a copper torus with a swirl-and-bumps normal map, a glazed
    /// sphere with a hammered normal map (both baked into quaternion maps), on a floor plate of
    /// spun metal whose quaternion map is authored in code — a circular tangent field under an
    /// anisotropic BRDF, the highlight a normal map cannot make.
    ///
    /// # Errors
    /// [`SceneError::Mesh`] if a procedural mesh fails to prepare (fixed data: it does not;
    /// `tests/it/render_assets.rs` builds the scene).
    pub fn default_scene() -> Result<Self, SceneError> {
        let file = Path::new("default scene");
        let prepare = |p: mesh::Primitive| {
            p.prepare()
                .map_err(|kind| SceneError::Mesh(MeshError::at(file, &p.label, kind)))
        };
        let swirl = NormalMap::default_swirl().to_rgba8();
        let hammered = NormalMap::from_height(256, 3.0, |u, v| {
            // Overlapping dimples: a cosine bump on a jittered grid, periodic in u and v.
            let (gu, gv) = (16.0f32, 8.0f32);
            let (cu, cv) = ((u * gu).fract() - 0.5, (v * gv).fract() - 0.5);
            let r = (cu * cu + cv * cv).sqrt() * 2.0;
            let dimple = if r < 1.0 {
                -(1.0 + (PI * r).cos()) * 0.5
            } else {
                0.0
            };
            dimple + 0.15 * (TAU * (3.0 * u + v)).sin()
        })
        .to_rgba8();
        let materials = vec![
            SceneMaterial {
                normal: Some(swirl),
                ..SceneMaterial::plain(
                    "copper",
                    MaterialUniforms {
                        base_color: Vec4::new(0.95, 0.64, 0.54, 1.0),
                        metallic: 1.0,
                        roughness: 0.32,
                        has_normal_map: 1.0,
                        ..MaterialUniforms::default()
                    },
                )
            },
            SceneMaterial {
                normal: Some(hammered),
                ..SceneMaterial::plain(
                    "glazed ceramic",
                    MaterialUniforms {
                        base_color: Vec4::new(0.10, 0.32, 0.62, 1.0),
                        metallic: 0.0,
                        roughness: 0.22,
                        has_normal_map: 1.0,
                        ..MaterialUniforms::default()
                    },
                )
            },
            SceneMaterial {
                tangent_map: Some(Box::new(spun_metal_tangent_map(512))),
                ..SceneMaterial::plain(
                    "spun aluminium",
                    MaterialUniforms {
                        base_color: Vec4::new(0.91, 0.92, 0.92, 1.0),
                        metallic: 1.0,
                        roughness: 0.28,
                        anisotropy: 0.85,
                        ..MaterialUniforms::default()
                    },
                )
            },
        ];
        let plate = prepare(plate(2.6))?;
        let meshes = vec![
            SceneMesh {
                mesh: prepare(procedural::torus(0.75, 0.3, 96, 48))?,
                material: 0,
                map: MapSource::Bake { size: 512 },
            },
            SceneMesh {
                mesh: prepare(procedural::uv_sphere(96, 48))?,
                material: 1,
                map: MapSource::Bake { size: 512 },
            },
            SceneMesh {
                map: MapSource::Authored(Box::new(spun_metal_map(&plate, 512))),
                mesh: plate,
                material: 2,
            },
        ];
        let objects = vec![
            SceneObject {
                mesh: 0,
                // Standing up, facing the default camera, turned a little.
                model: Mat4::from_rotation_translation(
                    Quat::from_rotation_y(0.5) * Quat::from_rotation_x(1.35),
                    Vec3::new(-1.05, 0.1, -0.2),
                ),
                skin: None,
            },
            SceneObject {
                mesh: 1,
                model: Mat4::from_scale_rotation_translation(
                    Vec3::splat(0.75),
                    Quat::from_rotation_y(-0.6),
                    Vec3::new(1.0, 0.0, 0.15),
                ),
                skin: None,
            },
            SceneObject {
                mesh: 2,
                model: Mat4::from_translation(Vec3::new(0.0, -0.8, 0.0)),
                skin: None,
            },
        ];
        Ok(Self {
            name: "default scene".into(),
            meshes,
            materials,
            objects,
            warnings: Vec::new(),
            source: None,
        })
    }
}

/// A map embedded in a packed file: its KTX2 image read.
fn packed_map(
    file: &Path,
    owner: &str,
    image: &mesh::ImageSource,
    space: MapSpace,
) -> Result<Box<EncodedMap>, SceneError> {
    let fail = |problem: String| SceneError::Image {
        file: file.to_path_buf(),
        material: owner.to_owned(),
        image: image.describe(),
        problem,
    };
    let bytes = image.bytes().map_err(|e| fail(e.to_string()))?;
    #[cfg(feature = "ktx2")]
    {
        let tex = crate::ktx2::read(&bytes).map_err(|e| fail(e.to_string()))?;
        let map = EncodedMap::from_ktx2(&image.describe(), &tex, None)
            .map_err(|e| fail(e.to_string()))?;
        if map.space != space {
            return Err(fail(format!(
                "a {} quaternion map where a {} one belongs",
                map.space.name(),
                space.name()
            )));
        }
        Ok(Box::new(map))
    }
    #[cfg(not(feature = "ktx2"))]
    {
        let _ = (bytes, space);
        Err(fail(
            "a quaternion map (KTX2): enable qtangent's `ktx2` cargo feature".into(),
        ))
    }
}

/// A square plate of side `size` in the y = 0 plane facing +Y, UV `[0, 1]²` (u along +X, v
/// along +Z), as a 16 × 16 grid so the vertex interpolation has vertices to work with.
#[must_use]
pub fn plate(size: f32) -> mesh::Primitive {
    let n = 16u32;
    let (mut p, mut nor, mut uv, mut idx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for j in 0..=n {
        for i in 0..=n {
            let (u, v) = (i as f32 / n as f32, j as f32 / n as f32);
            p.push(Vec3::new((u - 0.5) * size, 0.0, (v - 0.5) * size));
            nor.push(Vec3::Y);
            uv.push(Vec2::new(u, v));
        }
    }
    for j in 0..n {
        for i in 0..n {
            let a = j * (n + 1) + i;
            let (b, c, d) = (a + 1, a + n + 1, a + n + 2);
            // Counter-clockwise seen from +Y.
            idx.extend([a, c, b, b, c, d]);
        }
    }
    mesh::Primitive {
        label: "procedural plate".into(),
        positions: p,
        normals: Some(nor),
        uvs: Some(uv),
        indices: idx,
        ..Default::default()
    }
}

/// The spun-metal map: every texel's frame is the plate's own frame turned about its normal so
/// the tangent runs along the circle about the UV centre (a lathe's brushing). A normal map
/// cannot say this — it has no tangent — and vertex tangents would need a vertex per texel.
///
/// The tangent field winds once around the centre, so its quaternions cannot be continuous
/// there (q turns into −q going round); the hemisphere rule leaves one seam ray where
/// neighbours are opposite, and filtering across it still gives ±q — the same rotation —
/// except on a sliver a fraction of a texel wide (`tests/it/render.rs` checks the map).
///
/// # Panics
/// If `plate` has no vertices.
#[must_use]
pub fn spun_metal_map(plate: &Prepared, size: u32) -> QuatMap {
    let f = plate.frames[0];
    let base = texel::quat_from_axes(f.tangent, f.normal.cross(f.tangent), f.normal);
    let h = f.handedness();
    let format = MapFormat::Rgba16Float;
    let mut raster = Raster::empty(size, size, format);
    for y in 0..size {
        for x in 0..size {
            let c = Vec2::new(
                (x as f32 + 0.5) / size as f32 - 0.5,
                (y as f32 + 0.5) / size as f32 - 0.5,
            );
            // The circle's direction at c, as an angle in the frame's (t, cross(n, t)) plane.
            // glTF UVs: the bitangent h·cross(n, t) points towards −v, so a UV direction
            // (du, dv) is (du, −h·dv) there.
            let theta = (-h * c.y).atan2(c.x) + 0.5 * PI;
            let (s, co) = (0.5 * theta).sin_cos();
            let turn = Vec4::new(0.0, 0.0, s, co);
            let mut q = texel::quat_mul(base, turn);
            q /= q.dot(q).sqrt();
            if q.w < 0.0 {
                q = -q;
            }
            let k = (y * size + x) as usize;
            raster.quats[k] = format.quantize(q);
            raster.handedness[k] = if h < 0.0 { -1 } else { 1 };
            raster.kind[k] = TexelKind::Covered;
            raster.triangle[k] = 0;
            raster.coverage[k] = 1;
        }
    }
    raster.triangles = plate.indices.len() / 3;
    qmap::finish(&raster, 0, &mut ())
}

/// The spun-metal tangent field as a twist about the normal, φ(uv): the angle, in the tangent
/// plane's (t, b) basis, that turns the tangent (+u) onto the circle about the UV centre. glTF
/// UVs run downwards while b points up the texture, so a UV direction (du, dv) is (du, −dv)
/// there.
#[must_use]
pub fn spun_metal_twist(uv: Vec2) -> f32 {
    let c = uv - Vec2::splat(0.5);
    (-c.y).atan2(c.x) + 0.5 * PI
}

/// The spun-metal map authored in tangent space ([`crate::qmap::tangent`]): the identity tilt
/// (the plate is flat) with [`spun_metal_twist`], `size`² with mips, rgba32f (stored as the
/// renderer's map format asks). The same circle as [`spun_metal_map`], without a unique-UV
/// requirement and without the handedness plane.
#[must_use]
pub fn spun_metal_tangent_map(size: u32) -> QuatMap {
    let levels = NormalMap::flat_levels(size, size);
    qmap::tangent::bake_cpu(
        &levels,
        Some(qmap::tangent::TwistField::Uv(&spun_metal_twist)),
        MapFormat::Rgba32Float,
    )
}
