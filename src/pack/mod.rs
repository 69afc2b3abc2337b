//! Writing glTF: a GLB whose primitives carry the qtangent as the application-specific attribute
//! `_QTANGENT` in place of NORMAL and TANGENT, with optional quaternion maps as KTX2 images, all
//! named by the `QTANGENT_frames` extension (docs/GLTF.md has its schema).
//!
//! [`pack`] takes a loaded [`Scene`], its prepared primitives (the frames to store) and the
//! maps to embed ([`SceneMaps`], from `qmap`: maps of one's own, or baked from the file's normal
//! maps), and re-reads the source file as JSON so that everything qtangent does not model
//! is carried over as written: materials (emissive, occlusion, alpha, their extensions), nodes,
//! skins, animations, cameras, extras. What changes:
//!
//! - every triangle primitive is rewritten: POSITION (quantised on one grid for the file,
//!   KHR_mesh_quantization, or f32; with min/max), TEXCOORD_0 (as loaded — quantised UVs
//!   dequantised, a material's KHR_texture_transform applied — then quantised on a grid per
//!   material, or f32), `_QTANGENT`, JOINTS_n/WEIGHTS_n, indices as a triangle list, vertices
//!   split where the frames need it ([`Primitive::prepare`](crate::mesh::Primitive::prepare))
//!   and ordered for the GPU (`order.rs`); other attributes (TEXCOORD_1, COLOR_0, `_CUSTOM`)
//!   are copied through the split; with [`PackOptions::keep_normals`], f32 NORMAL and TANGENT
//!   too (`quantize.rs` has the grids, and the nodes and inverse binds that undo them);
//! - primitives the loader skipped (points, lines) are dropped, with a warning; morphing
//!   primitives keep their targets (`morph.rs`);
//! - one buffer, the GLB's binary chunk (with [`PackOptions::meshopt`], the views only the
//!   qtangent readers read compressed, `compressible.rs`, and a fallback buffer the file does
//!   not carry); every image is embedded (with
//!   [`PackOptions::drop_normal_maps`], not those the tangent-space maps replace: `fallback.rs`);
//! - Draco and meshopt input leave `extensionsUsed`; KHR_texture_transform leaves the textures
//!   whose transform is now in the UVs (and comes back with the UV grid's).
//!
//! CPU only, and no renderer: maps are made by the caller (`SceneMaps::new`, with the `render`
//! feature, bakes a scene's maps the way the `qtangent` command does, with the GPU as the baker's
//! raster backend where there is one; without maps `pack` needs no renderer).
//!
//! With the crate's default features (no `render`):
//!
//! ```
//! use qtangent::mesh;
//! use qtangent::pack::{self, PackOptions};
//! use qtangent::qmap::SceneMaps;
//! use qtangent::Format;
//!
//! let dir = tempfile::tempdir()?;
//! let obj = dir.path().join("quad.obj");
//! std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
//!     vn 0 0 1\nf 1/1/1 2/2/1 3/3/1\nf 1/1/1 3/3/1 4/4/1\n")?;
//! let scene = mesh::load(&obj)?;
//! let prepared = scene.prepare()?;
//! let options = PackOptions { format: Format::Smallest3x4, ..PackOptions::default() };
//! let packed = pack::pack(&scene, &prepared, &SceneMaps::default(), &options)?;
//! assert_eq!(&packed.glb[..4], b"glTF");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod compressible;
mod error;
mod fallback;
mod frameless;
mod instancing;
mod lists;
mod morph;
mod order;
mod quantize;
mod source;
mod textures;
mod unread;

pub(crate) use self::error::PackErrorKind;

pub use crate::gltf::error::WriteError;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde_json::{json, Map, Value};

use self::quantize::{PositionGrid, UvGrid};
use self::source::Source;
use crate::gltf::names::{
    EXT_MESH_GPU_INSTANCING, KHR_DRACO_MESH_COMPRESSION, KHR_TEXTURE_BASISU, KHR_TEXTURE_TRANSFORM,
    QTANGENT_ATTRIBUTE, QTANGENT_FRAMES,
};
use crate::gltf::read::as_usize;
use crate::gltf::{AccessorLayout, AccessorType, Builder, ComponentType, Target};
use crate::mesh::{Prepared, Primitive, Scene};
use crate::qmap::{SceneMap, SceneMaps};
use crate::{Format, Warning, WarningKind};

/// What [`pack`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackOptions {
    /// The `_QTANGENT` format (default smallest3x4: 4 bytes, the cost of gltfpack's 8-bit
    /// normal alone, 0.25° bound; snorm16x4 is 8 bytes, 0.004°, a plain normalised `vec4` to
    /// any shader).
    pub format: Format,
    /// Keep f32 NORMAL and TANGENT beside `_QTANGENT`, so viewers that do not know the
    /// extension still light the model.
    pub keep_normals: bool,
    /// Quantise positions to this many bits (1 to 16) on one grid for the file
    /// (KHR_mesh_quantization; `None`: f32). Default 14, gltfpack's.
    pub position_bits: Option<u8>,
    /// Quantise UVs to this many bits (1 to 16) on a grid per material, dequantised by
    /// KHR_texture_transform (`None`: f32). Default 12, gltfpack's.
    pub uv_bits: Option<u8>,
    /// Compress the vertex and index data of the primitives with `_QTANGENT` with
    /// meshoptimizer (EXT_meshopt_compression), with an uncompressed fallback buffer the file
    /// does not carry. What engines' own loaders read (animations, inverse binds, morphing and
    /// frameless primitives) stays plain: Bevy's loader cannot decode it.
    pub meshopt: bool,
    /// With tangent-space maps: drop the source's normal maps those maps replace, and the
    /// images only they used (the smallest file). By default they are kept, so viewers that do
    /// not know `QTANGENT_frames` still show the bumps.
    pub drop_normal_maps: bool,
    /// Keep vertex attributes nothing reads: UV sets no texture of the primitive's material
    /// (nor a quaternion map) samples. By default they are dropped, as gltfpack drops them,
    /// with a warning counting them.
    pub keep_attributes: bool,
    /// Refuse to write a file when a warning says it draws differently from the source
    /// (supplied tangents orthonormalised, primitives or meshes dropped): the error names the
    /// first.
    pub strict: bool,
    /// Store frames on primitives whose source has no NORMAL and whose material reads no
    /// tangent too. By default those are written as the source is, without frames and with
    /// their identical corners welded: every reader then makes the flat normals glTF asks for,
    /// from the posed triangles, as it does for the source (`frameless.rs`).
    pub flat_frames: bool,
}

impl Default for PackOptions {
    fn default() -> Self {
        Self {
            format: Format::Smallest3x4,
            keep_normals: false,
            position_bits: Some(14),
            uv_bits: Some(12),
            meshopt: false,
            drop_normal_maps: false,
            keep_attributes: false,
            strict: false,
            flat_frames: false,
        }
    }
}

/// Which quaternion maps a packed file carries (`pack --maps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MapKind {
    /// None: the qtangents and the material's own normal maps.
    #[default]
    None,
    /// A tangent-space map per material with a normal map or anisotropy
    /// (`crate::qmap::tangent`): tiles, needs no unique UVs, turns the vertex qtangent.
    Tangent,
    /// An object-space map per primitive with UVs ([`crate::qmap`]): the whole frame per texel.
    Object,
}

crate::names::named!(MapKind, "map kind", { None => "none", Tangent => "tangent", Object => "object" });

/// A packed file and what went into it.
#[derive(Debug, Clone)]
pub struct Packed {
    /// The GLB.
    pub glb: Vec<u8>,
    /// Figures and warnings.
    pub report: PackReport,
    /// The primitives as written, in [`Scene::primitives`] order: their vertices in the order
    /// the file holds them (optimised for the GPU's vertex cache and fetch; vertices no
    /// triangle uses dropped), positions and UVs before quantisation.
    pub primitives: Vec<Prepared>,
    /// Whether each of [`Packed::primitives`] was written without frames
    /// ([`PackOptions::flat_frames`]): its readers make flat normals, and a loader reading the
    /// file splits its welded corners again.
    pub frameless: Vec<bool>,
}

/// Figures about a packed file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackReport {
    /// Primitives written.
    pub primitives: usize,
    /// Vertices in the source's primitives.
    pub vertices_in: usize,
    /// Vertices written (after frame splits, and welds of frameless primitives).
    pub vertices: usize,
    /// Primitives written without frames ([`PackOptions::flat_frames`]).
    pub frameless: usize,
    /// Bytes a vertex's `_QTANGENT` takes in the file (the format padded to 4).
    pub frame_bytes_per_vertex: usize,
    /// Bytes of embedded KTX2 maps.
    pub(crate) map_bytes: usize,
    /// The largest distance between a position and its quantised copy, in the mesh's units
    /// (0 for f32).
    pub position_error: f32,
    /// The largest distance between a UV and its quantised copy (0 for f32).
    pub uv_error: f32,
    /// Source images dropped with the normal maps ([`PackOptions::drop_normal_maps`]).
    pub normal_maps_dropped: usize,
    /// Maps embedded: (what, bytes).
    pub maps: Vec<(String, usize)>,
    /// Things dropped or changed, each naming where.
    pub warnings: Vec<Warning>,
}

/// A file could not be packed.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", file.display())]
pub struct PackError {
    /// The file being packed.
    pub(crate) file: PathBuf,
    /// What went wrong.
    pub(crate) kind: PackErrorKind,
}

/// How a primitive's frames are written ([`Writer::frame_attributes`]).
#[derive(Debug, Clone, Copy)]
struct Frames {
    /// It has morph targets: NORMAL (and TANGENT) f32, no `_QTANGENT` (`morph.rs`).
    morphing: bool,
    /// No frame at all (`frameless.rs`).
    frameless: bool,
    /// UV set 0 is read by a texture or map.
    uvs_read: bool,
    /// A material of the primitive reads tangents.
    tangents_read: bool,
}

/// Writes `scene` as a GLB carrying `prepared`'s frames in `options.format` and `maps`.
/// `prepared` holds one entry per primitive of `scene`, in [`Scene::primitives`] order (as
/// [`Scene::prepare`] returns them); `maps` is indexed the same way (its tangent-space maps by
/// material: entries past the file's materials are not written): `SceneMaps::new` (the `render`
/// feature) to bake what the file's normal maps hold, or [`SceneMaps::default`] for none.
///
/// # Errors
/// [`PackError`] naming the file: the source cannot be read again, `prepared` does not match
/// the scene, an accessor or image the file names cannot be read.
pub fn pack(
    scene: &Scene,
    prepared: &[Prepared],
    maps: &SceneMaps,
    options: &PackOptions,
) -> Result<Packed, PackError> {
    let file = scene.source.as_path();
    let fail = |kind| PackError {
        file: file.to_path_buf(),
        kind,
    };
    if prepared.len() != scene.primitives().count() {
        return Err(fail(PackErrorKind::PreparedCount {
            prepared: prepared.len(),
            scene: scene.primitives().count(),
        }));
    }
    let is_gltf = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"));
    let source = if is_gltf {
        Source::read(file).map_err(fail)?
    } else {
        Source::synthetic(file, scene)
    };
    for (what, bits) in [("position", options.position_bits), ("UV", options.uv_bits)] {
        if let Some(bits) = bits.filter(|b| !(1..=quantize::MAX_BITS).contains(b)) {
            return Err(fail(PackErrorKind::Bits { what, bits }));
        }
    }
    let mut w = Writer {
        source: &source,
        out: Builder::new(source.json.clone()),
        copied: HashMap::new(),
        report: PackReport {
            frame_bytes_per_vertex: AccessorLayout::of_format(options.format).vertex_stride(),
            ..PackReport::default()
        },
        fallback: None,
        position_grid: options
            .position_bits
            .and_then(|bits| PositionGrid::new(prepared, bits)),
        uv_grids: options.uv_bits.map_or_else(Vec::new, |bits| {
            let tangent: Vec<bool> = maps.tangent.iter().map(Option::is_some).collect();
            // Signed UVs need KHR_mesh_quantization, which quantised positions require anyway.
            let signed = options.position_bits.is_some();
            quantize::uv_grids(&source.json, scene, prepared, &tangent, bits, signed)
        }),
        quantise: options.position_bits.is_some() || options.uv_bits.is_some(),
        rotations: HashMap::new(),
        written: vec![None; prepared.len()],
        frameless: vec![false; prepared.len()],
        index_accessors: vec![None; prepared.len()],
        tangent_mapped: maps.tangent.iter().map(Option::is_some).collect(),
        uv_transforms: scene.materials.iter().map(|m| m.uv_transform).collect(),
        unread: Vec::new(),
        repaired_tangents: (0, 0.0),
        basisu: false,
        image_origin: (0..source.json["images"].as_array().map_or(0, Vec::len)).collect(),
    };
    if options.drop_normal_maps {
        let replaced: Vec<usize> = (0..scene.materials.len())
            .filter(|&m| maps.tangent.get(m).is_some_and(Option::is_some))
            .collect();
        w.image_origin = fallback::drop_normal_maps(&mut w.out.json, &replaced);
        w.report.normal_maps_dropped =
            source.json["images"].as_array().map_or(0, Vec::len) - w.image_origin.len();
    }
    w.images().map_err(fail)?;
    w.skins_and_animations().map_err(fail)?;
    w.meshes(scene, prepared, maps, options).map_err(fail)?;
    w.dequantising_nodes().map_err(fail)?;
    w.materials(scene, maps).map_err(fail)?;
    w.finish(options.meshopt, options.strict).map_err(fail)
}

/// The packed file being written: the source's document, its accessors and views rewritten.
struct Writer<'a> {
    source: &'a Source,
    out: Builder,
    /// Source accessor → written accessor.
    copied: HashMap<usize, usize>,
    report: PackReport,
    /// The image of [`textures::FALLBACK_PNG`], once a map texture needed it.
    fallback: Option<usize>,
    /// The file's position grid, when positions are quantised.
    position_grid: Option<PositionGrid>,
    /// Each material's UV grid, when UVs are quantised and it has a texture reading set 0.
    uv_grids: Vec<Option<UvGrid>>,
    /// Whether weights and animation rotations are quantised (with positions or UVs).
    quantise: bool,
    /// Source rotation accessor → written quantised accessor.
    rotations: HashMap<usize, usize>,
    /// The primitives as written ([`Packed::primitives`]), each filled in when written.
    written: Vec<Option<Prepared>>,
    /// Whether each primitive was written without frames ([`Packed::frameless`]).
    frameless: Vec<bool>,
    /// Each written primitive's index accessor (its indices are turned when the views merge).
    index_accessors: Vec<Option<usize>>,
    /// Whether each material gets a tangent-space map (which reads UV set 0).
    tangent_mapped: Vec<bool>,
    /// Each material's KHR_texture_transform the loader applied to its UVs.
    uv_transforms: Vec<Option<crate::mesh::TextureTransform>>,
    /// Attributes dropped because nothing reads them: name → primitives.
    unread: Vec<(String, usize)>,
    /// Supplied tangents the preparation turned (more than 0.01°), and the largest turn in
    /// degrees.
    repaired_tangents: (usize, f32),
    /// Whether a texture's Basis Universal KTX2 image moved from its core `source` to
    /// KHR_texture_basisu (which the file then requires).
    basisu: bool,
    /// The source's image each written image is (all of them, unless normal maps were
    /// dropped).
    image_origin: Vec<usize>,
}

impl Writer<'_> {
    /// Every image embedded in the binary chunk.
    fn images(&mut self) -> Result<(), PackErrorKind> {
        let count = self.out.json["images"].as_array().map_or(0, Vec::len);
        for i in 0..count {
            let origin = self.image_origin.get(i).copied().unwrap_or(i);
            let (bytes, mime) = self.source.image(origin)?;
            let (bytes, mime) = self.core_ktx2(i, bytes, mime)?;
            let view = self.out.view(&bytes, None, None);
            let image = &mut self.out.json["images"][i];
            let mut embedded = json!({ "bufferView": view, "mimeType": mime });
            for key in ["name", "extensions", "extras"] {
                if let Some(v) = image.get(key) {
                    embedded[key] = v.clone();
                }
            }
            *image = embedded;
        }
        Ok(())
    }

    /// Copies accessor `a` (once; later calls return the same index), with its name and
    /// bounds.
    fn copy_accessor(&mut self, a: usize) -> Result<usize, PackErrorKind> {
        if let Some(&done) = self.copied.get(&a) {
            return Ok(done);
        }
        let (acc, bytes) = self.source.accessor(a)?;
        let index = self.out.accessor(&bytes, acc.layout, None);
        let src = &self.source.json["accessors"][a];
        let bounds = src.get("min").is_some() && src.get("max").is_some();
        let keys: &[&str] = if bounds {
            &["min", "max", "name"]
        } else {
            &["name"]
        };
        for &key in keys {
            if let Some(v) = src.get(key) {
                self.out.json["accessors"][index][key] = v.clone();
            }
        }
        self.copied.insert(a, index);
        Ok(index)
    }

    /// Replaces the accessor index at `v` (if any) by its copy.
    fn remap(&mut self, v: &Value) -> Result<Option<usize>, PackErrorKind> {
        as_usize(v).map(|a| self.copy_accessor(a)).transpose()
    }

    /// Skins' inverse bind matrices, animation samplers, and EXT_mesh_gpu_instancing's
    /// attributes: their accessors copied.
    fn skins_and_animations(&mut self) -> Result<(), PackErrorKind> {
        let out = |w: &Self, key: &str| w.out.json[key].as_array().map_or(0, Vec::len);
        for s in 0..out(self, "skins") {
            if let Some(a) = self.inverse_binds(s)? {
                self.out.json["skins"][s]["inverseBindMatrices"] = json!(a);
            }
        }
        for an in 0..out(self, "animations") {
            let samplers = self.out.json["animations"][an]["samplers"]
                .as_array()
                .map_or(0, Vec::len);
            let rotations: Vec<usize> = self.out.json["animations"][an]["channels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["target"]["path"] == "rotation")
                .filter_map(|c| as_usize(&c["sampler"]))
                .collect();
            for s in 0..samplers {
                for key in ["input", "output"] {
                    let v = self.out.json["animations"][an]["samplers"][s][key].clone();
                    // A cubic spline's tangents may pass ±1: those keys stay f32.
                    let cubic = self.out.json["animations"][an]["samplers"][s]["interpolation"]
                        == "CUBICSPLINE";
                    let rotation = match as_usize(&v) {
                        Some(a) if key == "output" && rotations.contains(&s) && !cubic => {
                            self.rotation_output(a)?
                        }
                        _ => None,
                    };
                    if let Some(a) = rotation.map_or_else(|| self.remap(&v), |a| Ok(Some(a)))? {
                        self.out.json["animations"][an]["samplers"][s][key] = json!(a);
                    }
                }
            }
        }
        for n in 0..out(self, "nodes") {
            let attrs = self.out.json["nodes"][n]["extensions"][EXT_MESH_GPU_INSTANCING]
                ["attributes"]
                .as_object()
                .cloned();
            for (name, v) in attrs.into_iter().flatten() {
                if let Some(a) = self.remap(&v)? {
                    self.out.json["nodes"][n]["extensions"][EXT_MESH_GPU_INSTANCING]
                        ["attributes"][&name] = json!(a);
                }
            }
        }
        Ok(())
    }

    /// Every mesh's primitives rewritten from the prepared frames.
    fn meshes(
        &mut self,
        scene: &Scene,
        prepared: &[Prepared],
        maps: &SceneMaps,
        options: &PackOptions,
    ) -> Result<(), PackErrorKind> {
        let file_meshes = self.out.json["meshes"].as_array().map_or(0, Vec::len);
        if file_meshes != scene.meshes.len() {
            return Err(PackErrorKind::MeshCount {
                file: file_meshes,
                loaded: scene.meshes.len(),
            });
        }
        let mut first = 0;
        for (m, mesh) in scene.meshes.iter().enumerate() {
            let src_prims = self.out.json["meshes"][m]["primitives"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let mut out_prims = Vec::new();
            for (i, src) in src_prims.iter().enumerate() {
                let found = mesh
                    .primitives
                    .iter()
                    .enumerate()
                    .find(|(pos, p)| p.source_index.map_or(*pos == i, |s| s == i));
                let Some((k, loaded)) = found else {
                    self.report.warnings.push(Warning::new(
                        format!("mesh '{}' primitive {i}", mesh.name),
                        WarningKind::PrimitiveDropped,
                    ));
                    continue;
                };
                let flat = first + k;
                let object = maps.object.get(flat).and_then(Option::as_ref);
                let p = self.primitive(src, loaded, (flat, &prepared[flat]), object, options)?;
                out_prims.push(p);
            }
            first += mesh.primitives.len();
            self.out.json["meshes"][m]["primitives"] = Value::Array(out_prims);
        }
        self.drop_empty_meshes();
        Ok(())
    }

    /// One primitive rewritten: its prepared vertices and frames, its other attributes copied
    /// through the splits, its object-space map, the source's material, extras and extensions.
    fn primitive(
        &mut self,
        src: &Value,
        loaded: &Primitive,
        (flat, p): (usize, &Prepared),
        object: Option<&SceneMap>,
        options: &PackOptions,
    ) -> Result<Value, PackErrorKind> {
        let map_uvs = object.and_then(|o| o.map_uvs.as_deref());
        let morphing = src["targets"].as_array().is_some_and(|t| !t.is_empty());
        let frameless = self.frameless(src, loaded, object, options, morphing);
        let welded;
        let p = if frameless {
            self.report.frameless += 1;
            if let Some(slot) = self.frameless.get_mut(flat) {
                *slot = true;
            }
            welded = self.weld(src, p)?;
            &welded
        } else {
            p
        };
        let (written, map_uvs) = order::optimised(p, map_uvs);
        let p = &written;
        self.measure_tangent_repairs(loaded, p);
        self.report.primitives += 1;
        self.report.vertices_in += loaded.positions.len();
        self.report.vertices += p.positions.len();
        let read = self.uv_sets_read(src, loaded, object, options);
        let tangents_read = morphing && self.tangents_read(src, loaded);
        let how = Frames {
            morphing,
            frameless,
            uvs_read: read[0],
            tangents_read,
        };
        let mut attrs = self.frame_attributes(loaded, p, options, how);
        let next_uv_set = self.copy_attributes(src, p, &mut attrs, &read)?;
        let targets = self.morph_targets(src, loaded.material, p, &attrs)?;
        let mut ext = json!({ "format": options.format.name() });
        // A morphing primitive's frames are NORMAL and TANGENT (`morph.rs`): no object map.
        if let Some(o) = object.filter(|_| targets.is_none()) {
            let tex_coord = match &map_uvs {
                Some(uvs) => {
                    let uvs: Vec<[f32; 2]> = uvs.iter().map(|v| v.to_array()).collect();
                    let uvs = self.out.floats(&uvs, Some(Target::ArrayBuffer));
                    attrs.insert(format!("TEXCOORD_{next_uv_set}"), json!(uvs));
                    next_uv_set
                }
                None => 0,
            };
            let texture =
                self.map_texture(&o.map, &format!("{} object-space map", p.label), false)?;
            ext["objectMap"] = json!({ "index": texture, "texCoord": tex_coord });
            // On the mesh's quantised UVs, the map needs their transform too.
            match self.uv_grid(loaded.material) {
                Some(grid) if tex_coord == 0 && loaded.uvs.is_some() && grid.transformed() => {
                    ext["objectMap"]["extensions"] =
                        json!({ KHR_TEXTURE_TRANSFORM: grid.transform() });
                }
                _ => {}
            }
        }
        let indices = self.out.indices(&p.indices);
        // Mode 4 (triangles) is glTF's default: no `mode`.
        let mut out = json!({ "attributes": attrs, "indices": indices });
        if let Some(targets) = targets.clone() {
            out["targets"] = targets;
        }
        for key in ["material", "extras"] {
            if let Some(v) = src.get(key) {
                out[key] = v.clone();
            }
        }
        let mut extensions = src["extensions"].as_object().cloned().unwrap_or_default();
        extensions.remove(KHR_DRACO_MESH_COMPRESSION);
        extensions.remove(QTANGENT_FRAMES);
        if targets.is_none() && !frameless {
            extensions.insert(QTANGENT_FRAMES.into(), ext);
        }
        if !extensions.is_empty() {
            out["extensions"] = Value::Object(extensions);
        }
        if let Some(slot) = self.written.get_mut(flat) {
            *slot = Some(written);
        }
        if let Some(slot) = self.index_accessors.get_mut(flat) {
            *slot = Some(indices);
        }
        Ok(out)
    }

    /// The attributes written from the prepared primitive: POSITION, TEXCOORD_0 (when the
    /// source has UVs), `_QTANGENT`, NORMAL and TANGENT when kept, JOINTS_n and WEIGHTS_n.
    fn frame_attributes(
        &mut self,
        loaded: &Primitive,
        p: &Prepared,
        options: &PackOptions,
        how: Frames,
    ) -> Map<String, Value> {
        let Frames {
            morphing,
            frameless,
            uvs_read,
            tangents_read,
        } = how;
        let vertex = Some(Target::ArrayBuffer);
        let mut attrs = Map::new();
        // A morphing or frameless primitive is read by the engines' own loaders, which take f32
        // positions (Bevy's, through the gltf crate, panics on quantised morph targets):
        // `morph.rs`, `frameless.rs`.
        let engine_read = morphing || frameless;
        let position = self.position_attribute(&p.positions, engine_read);
        attrs.insert("POSITION".into(), json!(position));
        if loaded.uvs.is_some() && !uvs_read {
            self.unread("TEXCOORD_0");
        }
        if loaded.uvs.is_some() && uvs_read {
            let uvs = self.uv_attribute(loaded.material, &p.uvs, engine_read);
            attrs.insert("TEXCOORD_0".into(), json!(uvs));
        }
        if frameless {
            // No frame: readers make flat normals (`frameless.rs`).
        } else if morphing {
            // `tangents_read`: a material of the primitive reads tangents (`unread.rs`).
            self.morph_base_frames(p, tangents_read, &mut attrs);
        } else {
            let q = encode_frames(options.format, &p.frames);
            let layout = AccessorLayout::of_format(options.format);
            let qt = self.out.accessor(&q, layout, vertex);
            attrs.insert(QTANGENT_ATTRIBUTE.into(), json!(qt));
        }
        if options.keep_normals && !morphing && !frameless {
            let (normals, tangents) = morph::normals_and_tangents(p);
            attrs.insert("NORMAL".into(), json!(self.out.floats(&normals, vertex)));
            attrs.insert("TANGENT".into(), json!(self.out.floats(&tangents, vertex)));
        }
        for (s, joints) in p.joints.iter().enumerate() {
            let wide = joints.iter().flatten().any(|&j| j > 255);
            let (data, component): (Vec<u8>, _) = if wide {
                (
                    bytemuck::cast_slice(joints).to_vec(),
                    ComponentType::UnsignedShort,
                )
            } else {
                let bytes = joints.iter().flatten().map(|&j| j as u8).collect();
                (bytes, ComponentType::UnsignedByte)
            };
            let layout = AccessorLayout {
                component,
                kind: AccessorType::Vec4,
                normalized: false,
            };
            let a = self.out.accessor(&data, layout, vertex);
            attrs.insert(format!("JOINTS_{s}"), json!(a));
        }
        for (s, a) in self.weight_attributes(&p.weights).into_iter().enumerate() {
            attrs.insert(format!("WEIGHTS_{s}"), json!(a));
        }
        attrs
    }

    /// The source's other attributes (TEXCOORD_1, COLOR_0, `_CUSTOM`, …) copied through the
    /// vertex splits into `attrs`; returns the first UV set the source does not use.
    fn copy_attributes(
        &mut self,
        src: &Value,
        p: &Prepared,
        attrs: &mut Map<String, Value>,
        read: &[bool],
    ) -> Result<u32, PackErrorKind> {
        let mut next_uv_set = 1;
        for (name, a) in src["attributes"].as_object().into_iter().flatten() {
            let handled = matches!(
                name.as_str(),
                "POSITION" | "NORMAL" | "TANGENT" | "TEXCOORD_0" | QTANGENT_ATTRIBUTE
            ) || name.starts_with("JOINTS_")
                || name.starts_with("WEIGHTS_");
            let Some(a) = as_usize(a).filter(|_| !handled) else {
                continue;
            };
            let set = name
                .strip_prefix("TEXCOORD_")
                .and_then(|s| s.parse::<usize>().ok());
            // Sets past those the check covers are kept.
            if set.is_some_and(|s| !read.get(s).copied().unwrap_or(true)) {
                self.unread(name);
                continue;
            }
            if let Some(set) = set {
                next_uv_set = next_uv_set.max(set as u32 + 1);
            }
            let index = self.through_splits(a, p, name)?;
            attrs.insert(name.clone(), json!(index));
        }
        Ok(next_uv_set)
    }

    /// The warnings counted over the file (refused when `strict` and one changes what a reader
    /// draws), the views merged (and compressed), the extension lists and the generator
    /// brought up to date, empty lists removed; the GLB.
    fn finish(mut self, meshopt: bool, strict: bool) -> Result<Packed, PackErrorKind> {
        self.warn_unread();
        self.warn_tangent_repairs();
        if strict {
            let changes = self
                .report
                .warnings
                .iter()
                .find(|w| unread::changes_drawing(w.kind()));
            if let Some(w) = changes {
                return Err(PackErrorKind::Strict(w.clone()));
            }
        }
        let compressible = if meshopt {
            compressible::plugin_read(&self.out.json)
        } else {
            HashSet::new()
        };
        self.out.merge_views(&compressible);
        for (slot, a) in self.written.iter_mut().zip(&self.index_accessors) {
            if let (Some(p), Some(a)) = (slot.as_mut(), a) {
                p.indices = self.out.indices_of(*a);
            }
        }
        let compressed = meshopt && self.out.compress_meshopt(&compressible);
        let quantised = self.position_grid.is_some();
        lists::extension_lists(&mut self.out.json, quantised, compressed);
        if self.basisu {
            for key in ["extensionsUsed", "extensionsRequired"] {
                let listed = self.out.json[key]
                    .as_array()
                    .is_some_and(|l| l.iter().any(|e| e == KHR_TEXTURE_BASISU));
                if !listed {
                    self.out.push(key, json!(KHR_TEXTURE_BASISU));
                }
            }
        }
        Ok(Packed {
            glb: self.out.to_glb()?,
            report: self.report,
            frameless: (self.written.iter().zip(&self.frameless))
                .filter(|(w, _)| w.is_some())
                .map(|(_, &f)| f)
                .collect(),
            primitives: self.written.into_iter().flatten().collect(),
        })
    }
}

/// The frames encoded in `format`, one after another, on every core for a large primitive (the
/// best-rounding search of the smallest-three formats is a tenth of packing 4 M triangles).
fn encode_frames(format: Format, frames: &[crate::frame::TangentFrame]) -> Vec<u8> {
    crate::mesh::tangents::par_chunks(frames, |part| {
        let mut out = Vec::with_capacity(part.len() * format.bytes());
        for f in part {
            format.encode_into(&f.to_qtangent(), &mut out);
        }
        out
    })
}
