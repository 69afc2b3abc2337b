//! Bake jobs: the quaternion maps a loaded [`Scene`] asks for, one per material, and what each
//! needs — its primitives, its normal map, its anisotropy texture, its output name.
//!
//! ```no_run
//! use qtangent::qmap::{BakeJob, Baker, MapOptions, MapSpace, RasterBackend};
//!
//! let scene = qtangent::mesh::load("helmet.gltf")?;
//! let mut warnings = Vec::new(); // a `Listener`: what is wrong but not fatal, one line each
//! let jobs = BakeJob::from_scene(&scene, None, &mut warnings)?;
//! let options = MapOptions::default();
//! let baker = Baker::new(RasterBackend::CPU, &options);
//! for job in &jobs {
//!     if let Some(done) = job.bake(&scene, &baker, MapSpace::Object, 1024, &mut warnings)? {
//!         println!("{}: {} texels covered", job.name, done.baked.map.stats.covered);
//!     }
//! }
//! for w in &warnings {
//!     eprintln!("warning: {w}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Nothing here prints: what is wrong but not fatal goes to the listener, one line each.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::report::Listener;
use crate::{Warning, WarningKind};

use image::RgbaImage;

use super::anisotropy::DirectionField;
use super::stored::file_stem;
use super::MapSpace;
use super::{BakeError, BakeMesh, Baked, Baker, NormalMap, ObjectInput, Repack, TangentInput};
use crate::mesh::{ErrorKind, ImageSource, MeshError, Prepared, Scene};

/// Where a map's normal map comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum NormalSource {
    /// None: the map holds the interpolated vertex frames.
    None,
    /// The procedural swirl ([`NormalMap::default_swirl`]).
    Swirl,
    /// An image (a material's normal texture, or one given for every map), with its
    /// `normalTexture.scale`.
    Image {
        /// The image.
        image: ImageSource,
        /// The normal scale (1 for an image given by hand).
        scale: f32,
    },
}

/// A name for reports: `none`, `procedural swirl (256²)`, or the [`ImageSource`]'s name with
/// ` (scale S)` when the scale is not 1.
impl std::fmt::Display for NormalSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NormalSource::None => f.write_str("none"),
            NormalSource::Swirl => f.write_str("procedural swirl (256²)"),
            NormalSource::Image { image, scale } if *scale == 1.0 => write!(f, "{image}"),
            NormalSource::Image { image, scale } => write!(f, "{image} (scale {scale})"),
        }
    }
}

impl NormalSource {
    /// Decodes the normal map for the object-space raster (`NormalMap::load`); `None` for
    /// [`NormalSource::None`]. `mesh_file` names the mesh in errors.
    ///
    /// # Errors
    /// [`BakeError::Image`] when the image cannot be read or decoded.
    pub fn load(&self, mesh_file: &Path) -> Result<Option<NormalMap>, BakeError> {
        match self {
            NormalSource::None => Ok(None),
            NormalSource::Swirl => Ok(Some(NormalMap::default_swirl())),
            NormalSource::Image { image, scale } => {
                NormalMap::load(image, *scale, mesh_file).map(Some)
            }
        }
    }

    /// The normal map as a renderer uploads it — 8-bit RGBA — with its scale, for the
    /// tangent-space bake ([`NormalMap::levels_from_rgba8`]); `None` for
    /// [`NormalSource::None`].
    ///
    /// # Errors
    /// [`BakeError::Image`] when the image cannot be read or decoded.
    pub(crate) fn decode_rgba8(
        &self,
        mesh_file: &Path,
    ) -> Result<Option<(RgbaImage, f32)>, BakeError> {
        match self {
            NormalSource::None => Ok(None),
            NormalSource::Swirl => Ok(Some((NormalMap::default_swirl().to_rgba8(), 1.0))),
            NormalSource::Image { image, scale } => {
                Ok(Some((decode_image(image, mesh_file)?.to_rgba8(), *scale)))
            }
        }
    }
}

/// A material's KHR_materials_anisotropy texture, whose direction becomes the map's tangent.
#[derive(Debug, Clone, PartialEq)]
pub struct AnisotropySource {
    /// The anisotropy texture (RG the direction).
    pub image: ImageSource,
    /// `anisotropyRotation`, radians.
    pub(crate) rotation: f32,
}

impl AnisotropySource {
    /// Decodes the texture into its direction field, with the texture's size.
    ///
    /// # Errors
    /// [`BakeError::Image`] when the image cannot be read or decoded.
    pub(crate) fn direction_field(
        &self,
        mesh_file: &Path,
    ) -> Result<(DirectionField, (u32, u32)), BakeError> {
        let img = decode_image(&self.image, mesh_file)?;
        Ok((
            DirectionField::from_texture(&img.to_rgba8(), self.rotation),
            (img.width(), img.height()),
        ))
    }
}

fn decode_image(image: &ImageSource, mesh_file: &Path) -> Result<image::DynamicImage, BakeError> {
    image.decode().map_err(|problem| BakeError::Image {
        mesh: mesh_file.to_path_buf(),
        image: image.to_string(),
        problem: problem.to_string(),
    })
}

/// One map to bake: a material's primitives (or those without a material) and its textures.
#[derive(Debug, Clone, PartialEq)]
pub struct BakeJob {
    /// Output file stem: the material's name made safe for file names (`file_stem`), unique
    /// among the scene's jobs (compared case-insensitively; `-2`, `-3`, … appended).
    pub name: String,
    /// What the map is of, for messages: `FILE: material 'X'`.
    pub label: String,
    /// The same without the file: `material 'X'` or `primitives without a material`.
    pub what: String,
    /// Index into [`Scene::materials`], if the primitives have a material.
    pub material: Option<usize>,
    /// The material's name, if any.
    pub material_name: Option<String>,
    /// Indices into [`Scene::primitives`] (file order), every one with UVs.
    pub primitives: Vec<usize>,
    /// The normal map.
    pub normal: NormalSource,
    /// The anisotropy texture, where the material has one.
    pub anisotropy: Option<AnisotropySource>,
}

impl BakeJob {
    /// One job per material that has primitives with UVs, in order of first use; primitives
    /// with no material make one job named after the file. The normal map is `normal_map` when
    /// given (for every job, scale 1), else the material's normal texture with its scale, else
    /// none. Primitives without UVs are skipped, and textures reading a UV set other than 0
    /// ignored, with a warning each to `listener`.
    ///
    /// # Errors
    /// [`BakeError::Mesh`] when no primitive has UVs:
    /// `FILE: no primitive has UVs (TEXCOORD_0); nothing to bake` (after the warnings).
    pub fn from_scene(
        scene: &Scene,
        normal_map: Option<&Path>,
        listener: &mut dyn Listener,
    ) -> Result<Vec<BakeJob>, BakeError> {
        let file = scene.source.display().to_string();
        let stem = scene
            .source
            .file_stem()
            .map_or_else(|| "mesh".to_string(), |s| s.to_string_lossy().into_owned());
        // (material, primitives with UVs, primitives seen)
        let mut groups: Vec<(Option<usize>, Vec<usize>, usize)> = Vec::new();
        for (i, (_, p)) in scene.primitives().enumerate() {
            let g = match groups.iter().position(|g| g.0 == p.material) {
                Some(g) => g,
                None => {
                    groups.push((p.material, Vec::new(), 0));
                    groups.len() - 1
                }
            };
            groups[g].2 += 1;
            if p.uvs.is_none() {
                listener.warning(Warning::new(
                    format!("{file}: {}", p.label),
                    WarningKind::PrimitiveWithoutUvs,
                ));
            } else {
                groups[g].1.push(i);
            }
        }
        let mut used_names: Vec<String> = Vec::new();
        let mut jobs = Vec::new();
        for (material, primitives, seen) in groups {
            let mat = material.and_then(|m| scene.materials.get(m));
            let what = match mat {
                Some(m) => format!("material '{}'", m.name),
                None => "primitives without a material".to_string(),
            };
            if primitives.is_empty() {
                listener.warning(Warning::new(
                    format!("{file}: {what}"),
                    WarningKind::MaterialWithoutUvs { primitives: seen },
                ));
                continue;
            }
            let normal = if let Some(p) = normal_map {
                NormalSource::Image {
                    image: ImageSource::File(p.to_path_buf()),
                    scale: 1.0,
                }
            } else {
                match mat.and_then(|m| m.normal_texture.as_ref()) {
                    Some(t) if t.tex_coord != 0 => {
                        listener.warning(Warning::new(
                            format!("{file}: {what}"),
                            WarningKind::BakeTextureOnOtherSet {
                                texture: "normal",
                                set: t.tex_coord,
                            },
                        ));
                        NormalSource::None
                    }
                    Some(t) => NormalSource::Image {
                        image: t.image.clone(),
                        scale: t.scale,
                    },
                    None => NormalSource::None,
                }
            };
            let anisotropy = anisotropy_source(mat, &format!("{file}: {what}"), listener);
            let base = mat.map_or(stem.as_str(), |m| m.name.as_str());
            jobs.push(BakeJob {
                name: unique_name(&file_stem(base), &mut used_names),
                label: format!("{file}: {what}"),
                what,
                material: mat.and(material),
                material_name: mat.map(|m| m.name.clone()),
                primitives,
                normal,
                anisotropy,
            });
        }
        if jobs.is_empty() {
            return Err(BakeError::Mesh {
                label: file,
                problem: "no primitive has UVs (TEXCOORD_0); nothing to bake".into(),
            });
        }
        Ok(jobs)
    }

    /// Prepares the job's primitives ([`crate::mesh::Primitive::prepare`]: normals, MikkTSpace
    /// tangents, seam splits), in order.
    ///
    /// # Errors
    /// The first primitive that fails (or an index past the scene's primitives), named with
    /// the file.
    pub(crate) fn prepare(&self, scene: &Scene) -> Result<Vec<Prepared>, MeshError> {
        self.primitives
            .iter()
            .map(|&i| {
                let (_, p) = scene.primitives().nth(i).ok_or_else(|| {
                    let problem = format!("primitive {i} is not in this scene");
                    MeshError::at(&scene.source, &self.label, ErrorKind::Gltf(problem))
                })?;
                p.prepare()
                    .map_err(|kind| MeshError::at(&scene.source, &p.label, kind))
            })
            .collect()
    }

    /// The bake mesh of already prepared primitives ([`BakeMesh::from_prepared`]), labelled
    /// with [`BakeJob::label`].
    #[must_use]
    pub(crate) fn bake_mesh_of(&self, prepared: &[Prepared]) -> BakeMesh {
        let refs: Vec<&Prepared> = prepared.iter().collect();
        BakeMesh::from_prepared(self.label.clone(), &refs)
    }

    /// Prepares the job's primitives ([`crate::mesh::Primitive::prepare`]: normals, MikkTSpace
    /// tangents, seam splits) and concatenates them into one bake mesh labelled with
    /// [`BakeJob::label`], for a bake of one's own ([`BakeJob::bake`] does the whole job).
    ///
    /// # Errors
    /// The first primitive that fails, named with the file.
    pub fn bake_mesh(&self, scene: &Scene) -> Result<BakeMesh, MeshError> {
        Ok(self.bake_mesh_of(&self.prepare(scene)?))
    }

    /// The texture whose size a tangent-space map takes, with what it is (`normal map` or
    /// `anisotropy texture`): the normal map's image, else the anisotropy texture; `None`
    /// when the job has neither (or only the procedural swirl).
    #[must_use]
    pub(crate) fn size_texture(&self) -> Option<(&'static str, &ImageSource)> {
        match (&self.normal, &self.anisotropy) {
            (NormalSource::Image { image, .. }, _) => Some(("normal map", image)),
            (NormalSource::None, Some(a)) => Some(("anisotropy texture", &a.image)),
            _ => None,
        }
    }

    /// Checks that a block-compressed tangent-space map of this job can be stored: the texture
    /// it takes its size from (`BakeJob::size_texture`) must have sides BC can take
    /// (`super::bc::check_size`). Decodes that texture.
    ///
    /// # Errors
    /// [`BakeError::Image`] when the texture cannot be decoded; [`BakeError::Mesh`]
    /// (`LABEL: normal map IMAGE: PROBLEM`) when BC cannot take its size.
    pub fn check_block_size(&self, mesh_file: &Path) -> Result<(), BakeError> {
        let Some((what, image)) = self.size_texture() else {
            return Ok(());
        };
        let img = decode_image(image, mesh_file)?;
        super::bc::check_size(img.width(), img.height()).map_err(|e| BakeError::Mesh {
            label: self.label.clone(),
            problem: format!("{what} {image}: {e}"),
        })
    }
}

/// The anisotropy texture `mat` bakes with, if any; one on a UV set other than 0 is ignored with
/// a warning to `listener` naming `place`.
fn anisotropy_source(
    mat: Option<&crate::mesh::Material>,
    place: &str,
    listener: &mut dyn Listener,
) -> Option<AnisotropySource> {
    let a = mat.and_then(|m| m.anisotropy.as_ref())?;
    let t = a.texture.as_ref()?;
    if t.tex_coord != 0 {
        listener.warning(Warning::new(
            place,
            WarningKind::BakeTextureOnOtherSet {
                texture: "anisotropy",
                set: t.tex_coord,
            },
        ));
        return None;
    }
    Some(AnisotropySource {
        image: t.image.clone(),
        rotation: a.rotation,
    })
}

/// A job's map as [`BakeJob::bake`] bakes it.
#[derive(Debug, Clone)]
pub struct JobMap {
    /// The map as baked and stored; its `times` start with `load` (preparing the primitives and
    /// reading the textures).
    pub baked: Baked,
    /// The labels of the primitives it holds, in order.
    pub primitives: Vec<String>,
}

impl BakeJob {
    /// Bakes the job's map of `space` with `baker`: prepares its primitives, reads its normal
    /// map and anisotropy direction (beside `scene`'s file), and bakes — object space at
    /// `size`² in the mesh's own UVs, tangent space at its normal map's size. `Ok(None)` for a
    /// tangent-space job without a normal map, whose map would be the identity. Triangles that
    /// reach outside the UV square are a warning to `listener` (only the part inside is baked).
    ///
    /// # Errors
    /// [`BakeError::Prepare`] for a primitive that cannot be prepared, [`BakeError::Image`] for a
    /// texture that does not read, and what [`Baker::object`] / [`Baker::tangent`] report.
    pub fn bake(
        &self,
        scene: &Scene,
        baker: &Baker<'_>,
        space: MapSpace,
        size: u32,
        listener: &mut dyn Listener,
    ) -> Result<Option<JobMap>, BakeError> {
        let t = Instant::now();
        listener.stage("prepare", 0, 1);
        let prepared = self.prepare(scene)?;
        let mesh = self.bake_mesh_of(&prepared);
        let outside = mesh.triangles_outside_unit_square();
        if outside > 0 {
            let kind = WarningKind::OutsideUvSquare {
                triangles: outside,
                of: mesh.triangle_count(),
            };
            listener.warning(Warning::new(self.label.clone(), kind));
        }
        let file = &scene.source;
        let field = self
            .anisotropy
            .as_ref()
            .map(|a| a.direction_field(file))
            .transpose()?;
        let direction = field.as_ref().map(|(f, _)| f);
        let baked = match space {
            MapSpace::Object => {
                let normal_map = self.normal.load(file)?;
                let input = ObjectInput {
                    mesh,
                    normal_map: normal_map.as_ref(),
                    direction,
                    size,
                    repack: Repack::Never,
                };
                let load = t.elapsed();
                let mut baked = baker.object(input, listener)?;
                baked.times.insert(0, ("load", load));
                baked
            }
            MapSpace::Tangent => {
                let normal = self.normal.decode_rgba8(file)?;
                let input = TangentInput {
                    what: &self.label,
                    normal_map: normal.as_ref().map(|(image, _)| image),
                    normal_scale: normal.as_ref().map_or(1.0, |(_, scale)| *scale),
                    direction,
                    authored: None,
                };
                let load = t.elapsed();
                let Some(mut baked) = baker.tangent(&input, listener)? else {
                    return Ok(None);
                };
                baked.times.insert(0, ("load", load));
                baked
            }
        };
        Ok(Some(JobMap {
            baked,
            primitives: prepared.iter().map(|p| p.label.clone()).collect(),
        }))
    }
}

/// `base`, or `base-2`, `base-3`, … if taken (compared case-insensitively, for file systems
/// that fold case).
fn unique_name(base: &str, used: &mut Vec<String>) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while used.contains(&name.to_lowercase()) {
        name = format!("{base}-{k}");
        k += 1;
    }
    used.push(name.to_lowercase());
    name
}

/// The path of an output file: `dir/NAME.SUFFIX`.
fn out_path(dir: &Path, name: &str, suffix: &str) -> PathBuf {
    dir.join(format!("{name}.{suffix}"))
}

/// A file a bake wrote, with its role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// `ktx2` or `exr` (the map), `handedness_ktx2` (the handedness plane), `preview` (the
    /// decoded normal as PNG), `handedness` (the handedness plane as PNG).
    pub role: &'static str,
    /// Where it is.
    pub path: PathBuf,
}

/// Writes an encoded map as `dir/NAME.ktx2` and, when it keeps the handedness plane,
/// `dir/NAME.handedness.ktx2` ([`super::EncodedMap::write_ktx2`], which records the material
/// name in both).
///
/// # Errors
/// [`BakeError::Ktx2`] when a file cannot be encoded or written.
pub(crate) fn write_ktx2(
    dir: &Path,
    name: &str,
    encoded: &super::stored::EncodedMap,
    material: Option<&str>,
) -> Result<Vec<OutputFile>, BakeError> {
    let written = encoded.write_ktx2(&out_path(dir, name, "ktx2"), material)?;
    let roles = ["ktx2", "handedness_ktx2"];
    let files = roles
        .into_iter()
        .zip(written)
        .map(|(role, path)| OutputFile { role, path })
        .collect();
    Ok(files)
}

#[cfg(feature = "exr")]
/// Writes a map as `dir/NAME.exr` ([`super::io::write_exr`]: float formats, every level).
///
/// # Errors
/// [`BakeError::Write`].
pub(crate) fn write_exr(
    dir: &Path,
    name: &str,
    map: &super::QuatMap,
) -> Result<Vec<OutputFile>, BakeError> {
    let path = out_path(dir, name, "exr");
    super::io::write_exr(map, &path)?;
    Ok(vec![OutputFile { role: "exr", path }])
}

/// Writes the PNG previews of level 0: `dir/NAME.preview.png` (the decoded normal, `n·½ + ½`)
/// and, for object-space maps, `dir/NAME.handedness.png` (255 = +1, 0 = −1, 128 = background).
///
/// # Errors
/// [`BakeError::Write`].
pub(crate) fn write_previews(
    dir: &Path,
    name: &str,
    map: &super::QuatMap,
    space: MapSpace,
) -> Result<Vec<OutputFile>, BakeError> {
    let mut files = Vec::new();
    let path = out_path(dir, name, "preview.png");
    super::io::write_preview(&map.levels[0], super::io::PreviewAxis::Normal, &path)?;
    files.push(OutputFile {
        role: "preview",
        path,
    });
    if space == MapSpace::Object {
        let path = out_path(dir, name, "handedness.png");
        super::io::write_handedness_png(&map.levels[0], &path)?;
        files.push(OutputFile {
            role: "handedness",
            path,
        });
    }
    Ok(files)
}

impl BakeJob {
    /// Writes the job's baked map into `dir` in `container` — `NAME.ktx2` (the stored map, with
    /// `NAME.handedness.ktx2` when it keeps the plane; the material's name recorded) or
    /// `NAME.exr` (the float map) — and its PNG previews; each file under a temporary name,
    /// then renamed.
    ///
    /// # Errors
    /// [`BakeError::Ktx2`] or [`BakeError::Write`] naming the file.
    pub fn write(
        &self,
        dir: &Path,
        baked: &super::Baked,
        container: Container,
    ) -> Result<Vec<OutputFile>, BakeError> {
        let mut files = match container {
            #[cfg(feature = "exr")]
            Container::Exr => write_exr(dir, &self.name, &baked.map)?,
            #[cfg(not(feature = "exr"))]
            Container::Exr => {
                return Err(BakeError::Write {
                    path: out_path(dir, &self.name, "exr"),
                    problem: "EXR output needs qtangent's `exr` cargo feature".into(),
                })
            }
            Container::Ktx2 => write_ktx2(
                dir,
                &self.name,
                &baked.stored,
                self.material_name.as_deref(),
            )?,
        };
        files.extend(write_previews(
            dir,
            &self.name,
            &baked.map,
            baked.stored.space,
        )?);
        Ok(files)
    }
}

/// The file a map is written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Container {
    /// KTX 2.0: every format, every mip level, the qtangent key/values. The default.
    #[default]
    Ktx2,
    /// OpenEXR: float formats only (`super::io::write_exr`).
    Exr,
}

crate::names::named!(Container, "container", { Ktx2 => "ktx2", Exr => "exr" });
