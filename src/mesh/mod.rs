//! Meshes in: glTF 2.0 and OBJ loading, generated normals, MikkTSpace tangents, mirror-seam
//! splitting and qtangent vertex streams. CPU only (no wgpu): the GPU side is
//! [`crate::gpu::vertex_layout`].
//!
//! The pipeline for one primitive:
//!
//! 1. [`load`] reads a file into a [`Scene`]: every primitive as an indexed triangle list with its
//!    attributes checked (finite, in range, matching counts), node transforms, skins and material
//!    references kept, and glTF nodes and animations read for [`crate::anim`].
//! 2. [`Primitive::prepare`] fills in what is missing — angle-weighted smooth normals and MikkTSpace
//!    tangents — and splits vertices where triangles of opposite handedness meet,
//!    giving a [`Prepared`] primitive whose every vertex has a well-defined [`TangentFrame`](crate::TangentFrame).
//! 3. [`Prepared::vertex_stream`] encodes the frames in any [`Format`](crate::Format) and interleaves them with
//!    position and UV ([`VertexStream`]).
//!
//! Texture coordinates are kept in glTF's convention everywhere (origin at the image's top-left,
//! v down, as wgpu samples); the OBJ loader flips `v` on the way in.

mod error;
#[cfg(feature = "gltf")]
mod load_gltf;
#[cfg(feature = "obj")]
mod load_obj;
pub(crate) mod normals;
#[cfg(any(feature = "gltf", feature = "obj"))]
mod repair;
pub(crate) mod tangents;
pub(crate) mod torus;
pub(crate) mod vertex;

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2, Vec3, Vec4};

#[cfg(feature = "gltf")]
pub use crate::gltf::error::AccessorError;
pub(crate) use error::ImageError;
pub use error::{ErrorKind, MeshError};
pub use tangents::{Prepared, PrimitiveStats, Source};
pub use vertex::VertexStream;

use crate::anim::{Locomotion, LocomotionError, Skeleton};

/// Everything read from one mesh file.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// The file it came from (for messages).
    pub source: PathBuf,
    /// Meshes in file order.
    pub meshes: Vec<Mesh>,
    /// Materials referenced by [`Primitive::material`].
    pub materials: Vec<Material>,
    /// Skins referenced by [`Instance::skin`].
    pub skins: Vec<Skin>,
    /// Every glTF node in file order (`Instance::node`, `Skin::joints` and
    /// `Channel::node` index it). Empty for OBJ.
    pub nodes: Vec<Node>,
    /// glTF animations in file order (see [`crate::anim`]). Empty for OBJ.
    pub animations: Vec<crate::anim::Clip>,
    /// Things that were wrong but not fatal (a missing `.mtl` file, say), each naming where.
    pub warnings: Vec<crate::Warning>,
}

/// One mesh: a list of primitives that share placement.
#[derive(Debug, Clone, Default)]
pub struct Mesh {
    /// The mesh's name in the file, or `mesh N`.
    pub name: String,
    /// Primitives (glTF) or objects/groups (OBJ). Empty when the loader skipped every one
    /// (points and lines); [`Primitive::source_index`] maps the rest to the file.
    pub primitives: Vec<Primitive>,
    /// Where the scene places this mesh: one entry per node that uses it. Empty for a mesh that
    /// no node uses; OBJ meshes get one identity instance.
    pub instances: Vec<Instance>,
    /// The mesh's default morph weights (`mesh.weights`; empty without targets or weights:
    /// all 0), one per target of each of its primitives.
    pub weights: Vec<f32>,
}

/// A placement of a mesh by a node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Instance {
    /// Index of the node in the file.
    pub(crate) node: usize,
    /// Node-to-world matrix (the node's matrix times all its ancestors').
    pub world: Mat4,
    /// Index into [`Scene::skins`] when the node is skinned.
    pub skin: Option<usize>,
}

/// A glTF node: its place in the hierarchy and its local (rest) transform.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Name in the file, or `node N`.
    pub name: String,
    /// Index of the node whose `children` list it is in; `None` for a root. The loader rejects
    /// files where a node has two parents or sits in a cycle.
    pub parent: Option<usize>,
    /// Translation, rotation and scale as the file gives them, or decomposed from the node's
    /// `matrix` (any shear is lost, with a warning in [`Scene::warnings`]). Rotations are kept
    /// as written (not renormalised), so `local.to_mat4()` reproduces the matrix the loader
    /// uses for [`Instance::world`] and [`Skin::joint_world`].
    pub local: crate::anim::Transform,
}

/// A skin: the joints (node indices) and their inverse bind matrices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skin {
    /// Skin name, or `skin N`.
    pub name: String,
    /// Node index of each joint; `JOINTS_n` values index this list.
    pub joints: Vec<usize>,
    /// One per joint (identity when the file gives none).
    pub inverse_bind: Vec<Mat4>,
    /// Node-to-world matrix of each joint in the file's rest pose.
    pub joint_world: Vec<Mat4>,
}

/// Where a texture's pixels live. Images are not decoded at load time; embedded bytes are
/// shared (not copied) between the textures that use one image.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageSource {
    /// A file next to the mesh (path resolved against the mesh's folder).
    File(PathBuf),
    /// A `data:` URI, kept undecoded.
    DataUri(std::sync::Arc<str>),
    /// Bytes inside the file (a GLB buffer view).
    Embedded {
        /// MIME type the file declares, e.g. `image/png`.
        mime: String,
        /// The encoded image.
        bytes: std::sync::Arc<[u8]>,
    },
}

/// A name for messages: the file's path, `data: URI image` or `embedded image/png image`.
impl std::fmt::Display for ImageSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(path) => f.pad(&path.display().to_string()),
            Self::DataUri(_) => f.pad("data: URI image"),
            Self::Embedded { mime, .. } => f.pad(&format!("embedded {mime} image")),
        }
    }
}

impl ImageSource {
    /// Decodes the image: PNG, JPEG or GIF (guessed from the bytes), or KTX2 (level 0:
    /// uncompressed, BC1–BC7, Zstandard or ZLIB supercompressed; Basis Universal is refused —
    /// [`crate::ktx2`]).
    ///
    /// # Errors
    /// What failed (unreadable file, bad base64, undecodable or empty image), without the name
    /// (see `ImageSource`'s `Display`).
    pub(crate) fn decode(&self) -> Result<image::DynamicImage, ImageError> {
        let decode = |bytes: &[u8]| {
            #[cfg(feature = "ktx2")]
            if crate::ktx2::is_ktx2(bytes) {
                return crate::ktx2::decode_image(bytes).map_err(ImageError::Ktx2);
            }
            #[cfg(not(feature = "ktx2"))]
            if bytes.starts_with(b"\xABKTX 20\xBB") {
                return Err(ImageError::FeatureOff {
                    what: "a KTX2 image",
                    feature: "ktx2",
                });
            }
            image::load_from_memory(bytes).map_err(ImageError::Decode)
        };
        let image = match self {
            Self::Embedded { bytes, .. } => decode(bytes),
            _ => decode(&self.bytes()?),
        }?;
        if image.width() == 0 || image.height() == 0 {
            return Err(ImageError::Empty);
        }
        Ok(image)
    }

    /// The encoded bytes (a file read, a data URI decoded, embedded bytes copied).
    ///
    /// # Errors
    /// An unreadable file or bad base64, without the name (see `ImageSource`'s `Display`).
    pub(crate) fn bytes(&self) -> Result<Vec<u8>, ImageError> {
        match self {
            Self::File(path) => std::fs::read(path).map_err(ImageError::Io),
            #[cfg(feature = "gltf")]
            Self::DataUri(uri) => {
                crate::gltf::uri::decode_data_uri(uri).map_err(ImageError::DataUri)
            }
            #[cfg(not(feature = "gltf"))]
            Self::DataUri(_) => Err(ImageError::FeatureOff {
                what: "a data: URI image",
                feature: "gltf",
            }),
            Self::Embedded { bytes, .. } => Ok(bytes.to_vec()),
        }
    }
}

/// A texture reference from a material.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureRef {
    /// The image.
    pub(crate) image: ImageSource,
    /// Which UV set it reads (0 is the only one loaded).
    pub tex_coord: u32,
    /// glTF `normalTexture.scale` (1 for other textures).
    pub(crate) scale: f32,
}

/// glTF's KHR_texture_transform: `uv' = T(offset) · R(rotation) · S(scale) · uv`.
///
/// The rotation is the one the extension's worked example, its sample model
/// (TextureTransformTest) and the implementations it lists use: after scaling,
/// `u' = cos·u + sin·v`, `v' = −sin·u + cos·v` — counter-clockwise in UV space with v pointing
/// down, so the image turns clockwise. The GLSL listing in the extension's text has the
/// transposed matrix, a known erratum (KhronosGroup/glTF issue 1563): with it the example
/// (`offset [0, 1]`, `rotation π/2`, `scale [0.5, 0.5]`: "only the lower left quadrant of the
/// source image, rotated clockwise 90°") would sample outside the image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureTransform {
    /// `offset`.
    pub offset: Vec2,
    /// `rotation`, radians (counter-clockwise in UV space as the extension defines it).
    pub rotation: f32,
    /// `scale`.
    pub scale: Vec2,
}

#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
impl TextureTransform {
    /// No transform: offset 0, rotation 0, scale 1 (the extension's defaults).
    pub(crate) const IDENTITY: Self = Self {
        offset: Vec2::ZERO,
        rotation: 0.0,
        scale: Vec2::ONE,
    };

    /// The transformed UV (the extension's matrix, applied in f32).
    #[must_use]
    pub(crate) fn apply(&self, uv: Vec2) -> Vec2 {
        let (s, c) = self.rotation.sin_cos();
        let p = uv * self.scale;
        // Column-major [c, −s, s, c]: see the type's docs for why not the GLSL listing's.
        Vec2::new(c * p.x + s * p.y, -s * p.x + c * p.y) + self.offset
    }
}

/// The parts of a material later stages need.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Material name, or `material N`.
    pub name: String,
    /// Linear RGBA base colour factor.
    pub base_color: Vec4,
    /// Base colour texture.
    pub base_color_texture: Option<TextureRef>,
    /// Tangent-space normal map.
    pub normal_texture: Option<TextureRef>,
    /// glTF metallic-roughness texture (B = metal, G = roughness).
    pub metallic_roughness_texture: Option<TextureRef>,
    /// Metallic factor.
    pub metallic: f32,
    /// Roughness factor.
    pub roughness: f32,
    /// KHR_materials_anisotropy, when the material uses it.
    pub(crate) anisotropy: Option<Anisotropy>,
    /// The KHR_texture_transform every texture of the material that qtangent reads shares. The
    /// loader has applied it to the UVs of every primitive that uses the material, so nothing
    /// downstream applies it again (a writer carrying the material over drops it).
    pub uv_transform: Option<TextureTransform>,
    /// The tangent-space quaternion map a packed file embeds for this material
    /// (`QTANGENT_frames.tangentMap`): a KTX2 image qtangent wrote.
    pub(crate) tangent_map: Option<ImageSource>,
}

/// A material's KHR_materials_anisotropy: the strength and direction of an anisotropic GGX
/// lobe (`crate::qmap::anisotropy` has the direction's rules).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Anisotropy {
    /// `anisotropyStrength` in [0, 1] (multiplies the texture's blue channel).
    pub(crate) strength: f32,
    /// `anisotropyRotation`, radians counter-clockwise from the tangent towards the bitangent.
    pub(crate) rotation: f32,
    /// `anisotropyTexture`: RG the direction (`rg · 2 − 1`, tangent space), B the strength.
    pub(crate) texture: Option<TextureRef>,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: String::new(),
            base_color: Vec4::ONE,
            base_color_texture: None,
            normal_texture: None,
            metallic_roughness_texture: None,
            metallic: 1.0,
            roughness: 1.0,
            anisotropy: None,
            uv_transform: None,
            tangent_map: None,
        }
    }
}

/// One indexed triangle list with its vertex attributes, as loaded (checked, not yet prepared).
///
/// Invariants (the loaders and `Primitive::validate` enforce them): every attribute present
/// has one entry per position, every value is finite, indices are in range and come in threes,
/// there is at least one triangle, supplied normals are not zero-length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Primitive {
    /// `mesh 'Name' primitive 2` — used in messages.
    pub label: String,
    /// Object-space positions.
    pub positions: Vec<Vec3>,
    /// Supplied normals (not necessarily unit length).
    pub normals: Option<Vec<Vec3>>,
    /// Supplied glTF tangents: xyz and handedness w = ±1.
    pub tangents: Option<Vec<Vec4>>,
    /// UV set 0, glTF convention (origin top-left).
    pub uvs: Option<Vec<Vec2>>,
    /// Vertices with the same id share one smooth normal when normals are generated (the OBJ
    /// position index). `None`: every vertex is its own.
    pub smoothing_ids: Option<Vec<u32>>,
    /// When `normals` is `None`: each triangle gets its own face normal, its vertices split where
    /// triangles meet at an angle (glTF 2.0: a primitive without NORMAL is shaded flat), instead
    /// of smooth angle-weighted normals over shared vertices (OBJ without `vn`, shapes made in
    /// code). The glTF loader sets it.
    pub flat_normals: bool,
    /// When tangents are generated: with the MikkTSpace reference code (`bevy_mikktspace`, a
    /// port of Mikkelsen's `mikktspace.c`), the frames bit for bit as a normal-map baker using it
    /// saw them, instead of meshoptimizer's MikkTSpace-compatible generator (the default: the
    /// same weighting and fallbacks, within 0.03° on real meshes, 6–7× faster; docs/MESHES.md,
    /// "Tangents").
    pub exact_mikktspace: bool,
    /// `JOINTS_0`, `JOINTS_1`, … as read.
    pub joints: Vec<Vec<[u16; 4]>>,
    /// `WEIGHTS_0`, `WEIGHTS_1`, … as read (normalised integers converted to float).
    pub weights: Vec<Vec<[f32; 4]>>,
    /// Triangle list, three indices per triangle.
    pub indices: Vec<u32>,
    /// Index into [`Scene::materials`].
    pub material: Option<usize>,
    /// Supplied qtangents, one per vertex: the `_QTANGENT` attribute of a file qtangent wrote
    /// (the `pack` tool), decoded. [`Primitive::prepare`] uses them as the frames,
    /// as they are (no normals or tangents are generated).
    pub qtangents: Option<Vec<crate::frame::QTangent>>,
    /// The primitive's index in its glTF mesh (`meshes[m].primitives[i]`); `None` for OBJ
    /// groups and primitives made in code. Loaders may skip primitives (lines, points), so this
    /// is not always the position in [`Mesh::primitives`].
    pub source_index: Option<usize>,
    /// The object-space quaternion map a packed file embeds for this primitive
    /// (`QTANGENT_frames.objectMap`).
    pub object_map: Option<PackedMap>,
    /// glTF morph targets: per-vertex deltas, one entry per target, weighted by
    /// [`Mesh::weights`] (the renderer draws them at those weights).
    pub targets: Vec<MorphTarget>,
}

/// One morph target of a primitive: deltas added, times the target's weight, to the base
/// attributes (each `None` where the target leaves that attribute alone).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphTarget {
    /// POSITION deltas.
    pub positions: Option<Vec<Vec3>>,
    /// NORMAL deltas.
    pub normals: Option<Vec<Vec3>>,
    /// TANGENT deltas (xyz; the handedness is not morphed).
    pub tangents: Option<Vec<Vec3>>,
}

impl Primitive {
    /// The primitive morphed by `weights` (one per target; missing ones are 0), as glTF
    /// defines it: each attribute plus the weighted sum of its targets' deltas, normals and
    /// tangents renormalised (where a sum cancels to zero the base direction is kept). The
    /// result has no targets. Identity: `morphed(&[])` is the primitive without its targets.
    #[must_use]
    #[cfg(feature = "render")]
    pub(crate) fn morphed(&self, weights: &[f32]) -> Primitive {
        let mut out = Primitive {
            targets: Vec::new(),
            ..self.clone()
        };
        for (t, &w) in self.targets.iter().zip(weights) {
            if w == 0.0 {
                continue;
            }
            if let Some(d) = &t.positions {
                for (p, d) in out.positions.iter_mut().zip(d) {
                    *p += w * *d;
                }
            }
            if let (Some(n), Some(d)) = (out.normals.as_mut(), &t.normals) {
                for (n, d) in n.iter_mut().zip(d) {
                    *n += w * *d;
                }
            }
            if let (Some(tan), Some(d)) = (out.tangents.as_mut(), &t.tangents) {
                for (tan, d) in tan.iter_mut().zip(d) {
                    *tan += (w * *d).extend(0.0);
                }
            }
        }
        let base_normals = self.normals.iter().flatten();
        for (n, base) in out.normals.iter_mut().flatten().zip(base_normals) {
            *n = n.try_normalize().unwrap_or(*base);
        }
        let base_tangents = self.tangents.iter().flatten();
        for (t, base) in out.tangents.iter_mut().flatten().zip(base_tangents) {
            let xyz = t.truncate().try_normalize().unwrap_or(base.truncate());
            *t = xyz.extend(base.w);
        }
        out
    }
}

/// A quaternion map embedded in a packed file (`QTANGENT_frames`, docs/GLTF.md): a KTX2 image
/// qtangent wrote (`crate::qmap::stored::EncodedMap::from_ktx2` reads it).
#[derive(Debug, Clone, PartialEq)]
pub struct PackedMap {
    /// The KTX2 image.
    pub(crate) image: ImageSource,
    /// The UV set the map is read with (`texCoord`): 0 for the primitive's own UVs.
    pub(crate) tex_coord: u32,
    /// That set's UVs, one per vertex, when it is not set 0 (a repacked atlas).
    pub(crate) uvs: Option<Vec<Vec2>>,
}

impl Primitive {
    /// Every morph target's deltas: one per position, finite.
    fn validate_targets(&self) -> Result<(), ErrorKind> {
        let n = self.positions.len();
        for (k, t) in self.targets.iter().enumerate() {
            for (name, deltas) in [
                ("POSITION", &t.positions),
                ("NORMAL", &t.normals),
                ("TANGENT", &t.tangents),
            ] {
                let Some(d) = deltas else { continue };
                let attribute = format!("morph target {k} {name}");
                if d.len() != n {
                    return Err(ErrorKind::CountMismatch {
                        attribute,
                        count: d.len(),
                        positions: n,
                    });
                }
                check_finite(&attribute, d.iter().map(|v| v.to_array()))?;
            }
        }
        Ok(())
    }

    /// Checks the invariants listed on [`Primitive`].
    ///
    /// # Errors
    /// The first problem found, as an [`ErrorKind`].
    pub(crate) fn validate(&self) -> Result<(), ErrorKind> {
        let n = self.positions.len();
        if n == 0 {
            return Err(ErrorKind::NoPositions);
        }
        check_finite("POSITION", self.positions.iter().map(|p| p.to_array()))?;
        let counts = [
            ("NORMAL", self.normals.as_ref().map(Vec::len)),
            ("TANGENT", self.tangents.as_ref().map(Vec::len)),
            ("TEXCOORD_0", self.uvs.as_ref().map(Vec::len)),
            ("smoothing ids", self.smoothing_ids.as_ref().map(Vec::len)),
            ("_QTANGENT", self.qtangents.as_ref().map(Vec::len)),
        ];
        for (attribute, count) in counts {
            if let Some(count) = count.filter(|&c| c != n) {
                return Err(ErrorKind::CountMismatch {
                    attribute: attribute.into(),
                    count,
                    positions: n,
                });
            }
        }
        let sets = self
            .joints
            .iter()
            .map(Vec::len)
            .enumerate()
            .map(|(s, c)| (format!("JOINTS_{s}"), c));
        let sets = sets.chain(
            self.weights
                .iter()
                .map(Vec::len)
                .enumerate()
                .map(|(s, c)| (format!("WEIGHTS_{s}"), c)),
        );
        for (attribute, count) in sets {
            if count != n {
                return Err(ErrorKind::CountMismatch {
                    attribute,
                    count,
                    positions: n,
                });
            }
        }
        for (set, w) in self.weights.iter().enumerate() {
            check_finite(&format!("WEIGHTS_{set}"), w.iter().copied())?;
        }
        self.validate_targets()?;
        if let Some(normals) = &self.normals {
            check_finite("NORMAL", normals.iter().map(|v| v.to_array()))?;
            // Below this no direction survives normalisation in f32 (see frame::MIN_MAGNITUDE).
            if let Some(vertex) = normals.iter().position(|v| v.abs().max_element() < 1e-12) {
                return Err(ErrorKind::ZeroLengthNormal { vertex });
            }
        }
        if let Some(q) = &self.qtangents {
            for (vertex, q) in q.iter().enumerate() {
                if let Some(&value) = q.rotation.to_array().iter().find(|x| !x.is_finite()) {
                    return Err(ErrorKind::NonFinite {
                        attribute: "_QTANGENT".into(),
                        vertex,
                        value,
                    });
                }
            }
        }
        if let Some(tangents) = &self.tangents {
            check_finite("TANGENT", tangents.iter().map(|v| v.to_array()))?;
        }
        if let Some(uvs) = &self.uvs {
            check_finite("TEXCOORD_0", uvs.iter().map(|v| v.to_array()))?;
        }
        if !self.indices.len().is_multiple_of(3) {
            return Err(ErrorKind::PartialTriangle {
                indices: self.indices.len(),
            });
        }
        if self.indices.is_empty() {
            return Err(ErrorKind::NoTriangles);
        }
        if let Some((position, &index)) = self
            .indices
            .iter()
            .enumerate()
            .find(|(_, &i)| i as usize >= n)
        {
            return Err(ErrorKind::IndexOutOfRange {
                position,
                index,
                vertices: n,
            });
        }
        Ok(())
    }

    /// Number of triangles.
    #[must_use]
    pub(crate) fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

fn check_finite<const N: usize>(
    attribute: &str,
    values: impl Iterator<Item = [f32; N]>,
) -> Result<(), ErrorKind> {
    for (vertex, v) in values.enumerate() {
        if let Some(&value) = v.iter().find(|x| !x.is_finite()) {
            return Err(ErrorKind::NonFinite {
                attribute: attribute.into(),
                vertex,
                value,
            });
        }
    }
    Ok(())
}

/// Loads a `.gltf`, `.glb` or `.obj` file (chosen by extension, case-insensitive).
///
/// What loads: glTF 2.0 with any KHR_mesh_quantization attribute type (read as `f32`, the
/// dequantising node transforms kept in [`Instance::world`]), sparse accessors and accessors
/// with no data (zeros), KHR_texture_transform (applied to the UVs when every texture of the
/// material on UV set 0 shares it, and kept as [`Material::uv_transform`]), an empty scene,
/// `_`-prefixed attributes, and any required extension that is not a mesh compression (with a
/// warning). Repaired, with a warning in [`Scene::warnings`]: zero-length or non-finite normals
/// (regenerated for those vertices, angle-weighted), non-finite tangents (those vertices get
/// the fallback frame). Skipped, with a warning: points and lines (glTF modes, OBJ `p`/`l`),
/// primitives without POSITION or without a whole triangle, the last one or two indices of a
/// list that is not whole triangles, animation channels without a target node. A mesh whose
/// primitives were all skipped stays in [`Scene::meshes`] with none, so mesh indices match the
/// file.
///
/// # Errors
/// A [`MeshError`] naming the file, the mesh/primitive or material where there is one, and the
/// problem: unreadable or truncated file, invalid JSON, missing or short buffer, accessor out of
/// bounds or of a type the attribute does not allow, index out of range, NaN/infinite
/// positions, UVs or weights, mismatched attribute counts, a meshopt-compressed view that does
/// not decode, a Draco-compressed primitive that does not decode, no triangles
/// at all (every primitive skipped, or no meshes), OBJ text tobj cannot parse (with its line
/// number), unknown file extension; in animations (named as `animation 'Walk' channel 3`): a
/// target node that does not exist, key times that are not finite, negative or not strictly
/// increasing, a value count that does not match the key count, NaN/infinite values,
/// zero-length rotations.
pub fn load(path: impl AsRef<Path>) -> Result<Scene, MeshError> {
    let path = path.as_ref();
    loader(path)?;
    let bytes = std::fs::read(path).map_err(|source| {
        let what = "file".into();
        MeshError::file(
            path,
            ErrorKind::Io {
                what,
                error: source,
            },
        )
    })?;
    // External buffers, images and .mtl files are resolved next to the mesh.
    load_bytes(path, &bytes, Some(path.parent().unwrap_or(Path::new("."))))
}

/// Loads a mesh file from memory, glTF (JSON or GLB) or OBJ as `name`'s extension says (as
/// [`load`] reads a path). External buffers, images and `mtllib` files are resolved against
/// `base` (none: only embedded data is allowed; OBJ materials are skipped with a warning).
/// `name` is used in messages.
///
/// # Errors
/// As [`load`].
pub fn load_bytes(name: &Path, bytes: &[u8], base: Option<&Path>) -> Result<Scene, MeshError> {
    loader(name)?(name, bytes, base)
}

/// One file format's loader from memory: name for messages, bytes, base folder.
type Loader = fn(&Path, &[u8], Option<&Path>) -> Result<Scene, MeshError>;

/// What loads a file named `name`: its extension's loader, or the error naming the extension
/// or the cargo feature that is off.
fn loader(name: &Path) -> Result<Loader, MeshError> {
    let ext = name
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        #[cfg(feature = "gltf")]
        Some("gltf" | "glb") => Ok(load_gltf::load_slice),
        #[cfg(not(feature = "gltf"))]
        Some("gltf" | "glb") => Err(MeshError::file(
            name,
            ErrorKind::FeatureOff {
                format: "glTF",
                feature: "gltf",
            },
        )),
        #[cfg(feature = "obj")]
        Some("obj") => Ok(load_obj::load_slice),
        #[cfg(not(feature = "obj"))]
        Some("obj") => Err(MeshError::file(
            name,
            ErrorKind::FeatureOff {
                format: "OBJ",
                feature: "obj",
            },
        )),
        _ => Err(MeshError::file(name, ErrorKind::UnknownExtension)),
    }
}

impl Scene {
    /// The skeleton of a loaded scene: all of [`Scene::nodes`], with their local
    /// transforms as the rest pose.
    ///
    /// The loader rejects nodes with two parents and cycles; should the data still be
    /// inconsistent, a parent index out of range makes the node a root, and a cycle is broken by
    /// making its lowest-index node a root (`parents` says so), so [`Skeleton::order`](crate::anim::Skeleton::order) always
    /// lists every node once with its parent first.
    #[must_use]
    pub(crate) fn skeleton(&self) -> Skeleton {
        Skeleton::new(
            self.nodes.iter().map(|n| n.name.clone()).collect(),
            self.nodes.iter().map(|n| n.parent).collect(),
            self.nodes.iter().map(|n| n.local).collect(),
        )
    }

    /// The walk/run blend of the clips named `walk` and `run`, with the feet named `feet`: finds
    /// them by name and calls `Locomotion::new`.
    ///
    /// # Errors
    /// [`LocomotionError::MissingClip`] / [`LocomotionError::MissingNode`] naming what is
    /// missing, then as `Locomotion::new`.
    pub fn locomotion(
        &self,
        walk: &str,
        run: &str,
        feet: &[&str],
    ) -> Result<Locomotion, LocomotionError> {
        let source = self.source.display().to_string();
        let clip = |name: &str| {
            self.animations
                .iter()
                .find(|c| c.name == name)
                .ok_or_else(|| LocomotionError::MissingClip {
                    scene: source.clone(),
                    name: name.to_owned(),
                    available: if self.animations.is_empty() {
                        "no animations".to_owned()
                    } else {
                        self.animations
                            .iter()
                            .map(|c| format!("`{}`", c.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                })
        };
        let (walk, run) = (clip(walk)?, clip(run)?);
        let skeleton = self.skeleton();
        let feet = feet
            .iter()
            .map(|&name| {
                skeleton
                    .find(name)
                    .ok_or_else(|| LocomotionError::MissingNode {
                        scene: source.clone(),
                        name: name.to_owned(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Locomotion::new(&skeleton, walk, run, &feet)
    }

    /// Every primitive with its mesh, in file order.
    pub fn primitives(&self) -> impl Iterator<Item = (&Mesh, &Primitive)> {
        self.meshes
            .iter()
            .flat_map(|m| m.primitives.iter().map(move |p| (m, p)))
    }

    /// Prepares every primitive (see [`Primitive::prepare`]), several at a time on the machine's
    /// cores (each primitive on one), in file order.
    ///
    /// # Errors
    /// The first primitive in file order that fails, named with the file.
    pub fn prepare(&self) -> Result<Vec<Prepared>, MeshError> {
        let all: Vec<&Primitive> = self.primitives().map(|(_, p)| p).collect();
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(all.len());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || {
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = all.get(i) else {
                    return done;
                };
                let r = p.prepare();
                done.push((
                    i,
                    r.map_err(|kind| MeshError::at(&self.source, &p.label, kind)),
                ));
            }
        };
        let mut results: Vec<(usize, Result<Prepared, MeshError>)> = if threads <= 1 {
            work()
        } else {
            std::thread::scope(|s| {
                // A thread the system refuses (`pack -j` already runs many) is work done here.
                let handles: Vec<_> = (1..threads)
                    .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
                    .collect();
                let mut done = work();
                for h in handles {
                    done.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
                }
                done
            })
        };
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, r)| r).collect()
    }
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../tests/unit/mesh/mod.rs"]
mod tests;
