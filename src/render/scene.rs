//! Scenes to render: meshes with their materials, where each mesh's quaternion map comes from,
//! and the objects that place meshes in the world. CPU only: images are decoded here, maps are
//! baked by whoever uploads the scene ([`crate::gpu::render`]).

use std::path::{Path, PathBuf};

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};
use image::RgbaImage;

use super::MaterialUniforms;
use crate::mesh::{self, MeshError, Prepared, TextureRef};
use crate::qmap::anisotropy::DirectionField;
use crate::qmap::stored::EncodedMap;
use crate::qmap::MapSpace;
use crate::qmap::{texel, NormalMap, QuatMap};
use crate::{Warning, WarningKind};

/// A material ready for upload: constant factors and decoded 8-bit textures.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneMaterial {
    /// Name for messages and tables.
    pub(crate) name: String,
    /// The factors the shader reads.
    pub uniforms: MaterialUniforms,
    /// Base colour, sRGB-encoded.
    pub(crate) base_color: Option<RgbaImage>,
    /// glTF metallic-roughness: G roughness, B metallic (linear).
    pub(crate) metallic_roughness: Option<RgbaImage>,
    /// Tangent-space normal map, `(v + 1) / 2` per channel (linear), unscaled: the scale is
    /// [`MaterialUniforms::normal_scale`].
    pub normal: Option<RgbaImage>,
    /// The normal texture's levels below level 0 as stored (`None`: made from `normal` by a
    /// 2 × 2 box filter, as engines build them: `normal_map::normal_mip_chain`). A BC5 normal map has every level compressed
    /// ([`crate::qmap::normal_map::bc5_round_trip_chain`]).
    pub(crate) normal_mips: Option<Vec<RgbaImage>>,
    /// An authored tangent-space quaternion map (`crate::qmap::tangent`) — a tangent field no
    /// normal map can say — used by the `quatmap-tangent` mode instead of one baked from
    /// `normal`.
    pub(crate) tangent_map: Option<Box<QuatMap>>,
    /// KHR_materials_anisotropy's texture (RG direction, B strength; linear), its factors in
    /// `MaterialUniforms::anisotropy` and `MaterialUniforms::anisotropy_rotation`. Both
    /// kinds of quaternion map carry its direction (`SceneMaterial::direction_field`).
    pub anisotropy: Option<RgbaImage>,
    /// The anisotropy texture's levels below level 0 as stored (`None`: made from
    /// `anisotropy` by the renderer's triangle filter), as [`SceneMaterial::normal_mips`] is
    /// for the normal texture ([`RenderScene::engine_textures`] sets both).
    pub(crate) anisotropy_mips: Option<Vec<RgbaImage>>,
    /// The tangent-space map a packed file embeds (`crate::mesh::Material::tangent_map`),
    /// used as stored: not baked again.
    pub packed_tangent_map: Option<Box<EncodedMap>>,
}

impl SceneMaterial {
    /// A textureless material.
    #[must_use]
    pub(crate) fn plain(name: &str, uniforms: MaterialUniforms) -> Self {
        Self {
            name: name.to_owned(),
            uniforms,
            base_color: None,
            metallic_roughness: None,
            normal: None,
            normal_mips: None,
            tangent_map: None,
            anisotropy: None,
            anisotropy_mips: None,
            packed_tangent_map: None,
        }
    }

    /// The anisotropy direction the maps carry: the texture's, turned by the material's
    /// rotation, oriented and with axial mips ([`DirectionField`]); `None` without a texture
    /// (then the shader turns the tangent by the rotation itself).
    #[must_use]
    pub(crate) fn direction_field(&self) -> Option<DirectionField> {
        self.anisotropy
            .as_ref()
            .map(|t| DirectionField::from_texture(t, self.uniforms.anisotropy_rotation_radians()))
    }

    /// The normal map as the bake reads it ([`NormalMap::from_image`] with the material's
    /// scale).
    #[must_use]
    pub(crate) fn bake_normal_map(&self) -> Option<NormalMap> {
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
    pub warnings: Vec<Warning>,
    /// The loaded file that [`SceneObject::skin`] indexes ([`crate::mesh::Scene::skins`],
    /// its nodes and animations), kept by [`RenderScene::load`] so an app that skins or animates
    /// the scene need not load the file again; `None` for scenes made in code
    /// (the tools' default scene, the swirl disc).
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

/// Default side of a baked map when the material has no normal map, and the smallest baked:
/// 512² resolves the vertex-frame interpolation of the shared meshes to within the 40 dB the
/// render tests ask for (256² does not on the duck: 35 dB).
pub(crate) const MIN_BAKE_SIZE: u32 = 512;
/// Largest side chosen automatically (the bake itself allows more).
pub(crate) const MAX_AUTO_BAKE_SIZE: u32 = 4096;

/// The map side for a normal map of `w × h`: its larger side rounded up to a power of two,
/// within [[`MIN_BAKE_SIZE`], [`MAX_AUTO_BAKE_SIZE`]]: one map texel per normal-map texel.
#[must_use]
pub(crate) fn bake_size_for(normal: Option<(u32, u32)>) -> u32 {
    normal.map_or(MIN_BAKE_SIZE, |(w, h)| {
        w.max(h)
            .next_power_of_two()
            .clamp(MIN_BAKE_SIZE, MAX_AUTO_BAKE_SIZE)
    })
}

/// The warning of [`RenderScene::engine_textures`] for a texture BC cannot store.
fn not_block_sized(material: &str, texture: &'static str, img: &RgbaImage) -> Warning {
    Warning::new(
        format!("material '{material}'"),
        WarningKind::TextureNotBlockSized {
            texture,
            width: img.width(),
            height: img.height(),
        },
    )
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

    /// The scene as an engine ships it: no quaternion maps ([`MapSource::None`]), and its
    /// materials' normal and anisotropy textures BC5 at every mip level — the normal map's
    /// (x, y), its z rebuilt after filtering as engines sampling BC5 rebuild it
    /// (`render::NORMAL_MAP_TWO_CHANNEL`), and the anisotropy texture's direction
    /// (red, green; its strength in blue is kept), each compressed and decoded again, 1 byte a
    /// texel each. Drawn with [`super::FrameSource::Reference`] it is what each quaternion map
    /// format replaces at equal bytes. A texture whose sides are not multiples of 4 (which BC
    /// cannot store) is kept as it is, with a [`WarningKind::TextureNotBlockSized`] in the new
    /// scene's warnings.
    #[must_use]
    pub fn engine_textures(&self) -> Self {
        type Chain = fn(&RgbaImage) -> Result<Vec<RgbaImage>, crate::qmap::bc::BcError>;
        let mut scene = self.clone();
        for m in &mut scene.meshes {
            m.map = MapSource::None;
        }
        for m in &mut scene.materials {
            // Each texture, its chain, its name, and the flag a BC5 copy sets: a BC5 normal map
            // has its z rebuilt after filtering.
            let textures: [(_, _, Chain, _, Option<&mut f32>); 2] = [
                (
                    &mut m.normal,
                    &mut m.normal_mips,
                    crate::qmap::normal_map::bc5_round_trip_chain,
                    "normal map",
                    Some(&mut m.uniforms.has_normal_map),
                ),
                (
                    &mut m.anisotropy,
                    &mut m.anisotropy_mips,
                    crate::qmap::normal_map::bc5_direction_chain,
                    "anisotropy texture",
                    None,
                ),
            ];
            for (image, mips, chain, texture, two_channel) in textures {
                let Some(img) = image.as_ref() else { continue };
                match chain(img) {
                    Ok(mut levels) => {
                        *image = Some(levels.remove(0));
                        *mips = Some(levels);
                        if let Some(flag) = two_channel {
                            *flag = super::NORMAL_MAP_TWO_CHANNEL;
                        }
                    }
                    Err(_) => scene.warnings.push(not_block_sized(&m.name, texture, img)),
                }
            }
        }
        scene
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
        Self::from_loaded(path, mesh::load(path)?)
    }

    /// [`RenderScene::load`] of a file already loaded from `path` (with its primitives' options
    /// set, say [`mesh::Primitive::exact_mikktspace`]).
    ///
    /// # Errors
    /// As [`RenderScene::load`], but for reading the file.
    pub fn from_loaded(path: &Path, loaded: mesh::Scene) -> Result<Self, SceneError> {
        let mut warnings = loaded.warnings.clone();
        let mut materials = loaded
            .materials
            .iter()
            .map(|m| scene_material(path, m, &mut warnings))
            .collect::<Result<Vec<_>, _>>()?;
        let default_material = materials.len();
        let mut used_default = false;
        let mut meshes = Vec::new();
        let mut objects = Vec::new();
        for m in &loaded.meshes {
            for p in &m.primitives {
                // Drawn at the mesh's default morph weights (`mesh.weights`), as glTF asks.
                let posed = p.morphed(&m.weights);
                let prepared = posed
                    .prepare()
                    .map_err(|kind| MeshError::at(path, &p.label, kind))?;
                let material = p.material.unwrap_or_else(|| {
                    used_default = true;
                    default_material
                });
                let map = map_source(path, m, p, &prepared, materials.get(material))?;
                if map == MapSource::None {
                    warnings.push(Warning::new(&p.label, WarningKind::NoQuaternionMap));
                }
                objects.extend(instances(m, &p.label, meshes.len(), &mut warnings));
                meshes.push(SceneMesh {
                    mesh: prepared,
                    material,
                    map,
                });
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
        if !loaded.skins.is_empty() {
            warnings.push(Warning::new(
                path.display().to_string(),
                WarningKind::SkinnedInBindPose,
            ));
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
}

/// A loaded material with its UV-set-0 textures decoded; textures reading another set are left
/// out with a warning.
fn scene_material(
    path: &Path,
    m: &mesh::Material,
    warnings: &mut Vec<Warning>,
) -> Result<SceneMaterial, SceneError> {
    let texture = |t: &Option<TextureRef>| -> Result<Option<RgbaImage>, SceneError> {
        let Some(t) = t.as_ref().filter(|t| t.tex_coord == 0) else {
            return Ok(None);
        };
        t.image
            .decode()
            .map(|i| Some(i.to_rgba8()))
            .map_err(|problem| SceneError::Image {
                file: path.to_path_buf(),
                material: m.name.clone(),
                image: t.image.to_string(),
                problem: problem.to_string(),
            })
    };
    let aniso_texture = m.anisotropy.as_ref().and_then(|a| a.texture.clone());
    for (what, t) in [
        ("base colour", &m.base_color_texture),
        ("metallic-roughness", &m.metallic_roughness_texture),
        ("normal", &m.normal_texture),
        ("anisotropy", &aniso_texture),
    ] {
        if let Some(t) = t.as_ref().filter(|t| t.tex_coord != 0) {
            warnings.push(Warning::new(
                format!("material '{}'", m.name),
                WarningKind::TextureOnOtherSet {
                    texture: what,
                    set: t.tex_coord,
                },
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
    Ok(SceneMaterial {
        name: m.name.clone(),
        uniforms,
        base_color: texture(&m.base_color_texture)?,
        metallic_roughness: texture(&m.metallic_roughness_texture)?,
        normal: texture(&m.normal_texture)?,
        normal_mips: None,
        tangent_map: None,
        anisotropy: texture(&aniso_texture)?,
        anisotropy_mips: None,
        packed_tangent_map: m
            .tangent_map
            .as_ref()
            .map(|image| packed_map(path, &m.name, image, MapSpace::Tangent))
            .transpose()?,
    })
}

/// Where a loaded primitive's quaternion map comes from: the file's own object map, none
/// without UV area, else a bake one texel per texel of the finer of the material's normal map
/// and anisotropy texture (whose directions the map also carries).
fn map_source(
    path: &Path,
    m: &mesh::Mesh,
    p: &mesh::Primitive,
    prepared: &Prepared,
    material: Option<&SceneMaterial>,
) -> Result<MapSource, SceneError> {
    if let Some(packed) = &p.object_map {
        return Ok(MapSource::Packed {
            map: packed_map(path, &m.name, &packed.image, MapSpace::Object)?,
            uvs: packed.uvs.as_ref().map(|uvs| {
                prepared
                    .source_vertex
                    .iter()
                    .map(|&v| uvs[v as usize])
                    .collect()
            }),
        });
    }
    if p.uvs.is_none() || !has_uv_area(prepared) {
        return Ok(MapSource::None);
    }
    let sized = material.and_then(|m| {
        [m.normal.as_ref(), m.anisotropy.as_ref()]
            .into_iter()
            .flatten()
            .map(RgbaImage::dimensions)
            .max_by_key(|&(w, h)| w.max(h))
    });
    Ok(MapSource::Bake {
        size: bake_size_for(sized),
    })
}

/// The objects drawing scene mesh `index` (primitive `label` of `m`): one per instance (an
/// identity one for a mesh no node places), skipping singular transforms with a warning.
fn instances(
    m: &mesh::Mesh,
    label: &str,
    index: usize,
    warnings: &mut Vec<Warning>,
) -> Vec<SceneObject> {
    if m.instances.is_empty() {
        return vec![SceneObject {
            mesh: index,
            model: Mat4::IDENTITY,
            skin: None,
        }];
    }
    let mut objects = Vec::new();
    for inst in &m.instances {
        // glTF: a skinned mesh ignores its node's transform; without skinning, its bind-pose
        // vertices are drawn as they are.
        let model = if inst.skin.is_some() {
            Mat4::IDENTITY
        } else {
            inst.world
        };
        if Mat3::from_mat4(model).determinant().abs() < 1e-20 || !model.is_finite() {
            warnings.push(Warning::new(
                label,
                WarningKind::InstanceSkipped { node: inst.node },
            ));
            continue;
        }
        objects.push(SceneObject {
            mesh: index,
            model,
            skin: inst.skin,
        });
    }
    objects
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
        image: image.to_string(),
        problem,
    };
    let bytes = image.bytes().map_err(|e| fail(e.to_string()))?;
    #[cfg(feature = "ktx2")]
    {
        let tex = crate::ktx2::read(&bytes).map_err(|e| fail(e.to_string()))?;
        let map = EncodedMap::from_ktx2(&image.to_string(), &tex, None)
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
