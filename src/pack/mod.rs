//! Writing glTF: a GLB whose primitives carry the qtangent as the application-specific attribute
//! `_QTANGENT` in place of NORMAL and TANGENT, with optional quaternion maps as KTX2 images, all
//! named by the `QTANGENT_frames` extension ([`extension`]; docs/GLTF.md has its schema).
//!
//! [`pack`] takes a loaded [`Scene`], its prepared primitives (the frames to store) and the
//! maps to embed, and re-reads the source file as JSON so that everything qtangent does not model
//! is carried over as written: materials (emissive, occlusion, alpha, their extensions), nodes,
//! skins, animations, cameras, extras. What changes:
//!
//! - every triangle primitive is rewritten: POSITION (f32, with min/max), TEXCOORD_0 (f32, as
//!   loaded: quantised UVs dequantised, a material's KHR_texture_transform applied), `_QTANGENT`,
//!   JOINTS_n/WEIGHTS_n, indices as a triangle list, vertices split where the frames need it
//!   ([`Primitive::prepare`](crate::mesh::Primitive::prepare)); other attributes (TEXCOORD_1,
//!   COLOR_0, `_CUSTOM`) are copied through the split; with [`PackOptions::keep_normals`],
//!   f32 NORMAL and TANGENT too;
//! - primitives the loader skipped (points, lines) and morph targets are dropped, with a warning;
//! - one buffer, the GLB's binary chunk; every image is embedded;
//! - KHR_mesh_quantization, Draco and meshopt leave `extensionsUsed` (nothing uses them any
//!   more); KHR_texture_transform leaves the textures whose transform is now in the UVs.
//!
//! CPU only: maps are made by the caller (`qtangent::gpu::maps::for_pack` on a device).

pub mod extension;

mod bin;
mod source;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::Vec2;
use serde_json::{json, Map, Value};

use self::bin::{Bin, Elements, ARRAY_BUFFER};
use self::source::{as_usize, Source};
use crate::mesh::{Prepared, Primitive, Scene};
use crate::qmap::stored::EncodedMap;
use crate::Format;

/// What [`pack`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackOptions {
    /// The `_QTANGENT` format (default snorm16x4: 8 bytes, 0.004°, a plain normalised `vec4`
    /// to any shader).
    pub format: Format,
    /// Keep f32 NORMAL and TANGENT beside `_QTANGENT`, so viewers that do not know the
    /// extension still light the model.
    pub keep_normals: bool,
}

impl Default for PackOptions {
    fn default() -> Self {
        Self {
            format: Format::Snorm16x4,
            keep_normals: false,
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
    /// ([`crate::qmap::tangent`]): tiles, needs no unique UVs, turns the vertex qtangent.
    Tangent,
    /// An object-space map per primitive with UVs ([`crate::qmap`]): the whole frame per texel.
    Object,
}

crate::names::named!(MapKind, "map kind", { None => "none", Tangent => "tangent", Object => "object" });

/// An object-space map for one primitive, and the UVs it was baked in when they are not the
/// primitive's own (a repacked atlas: written as the next free TEXCOORD set).
#[derive(Debug, Clone)]
pub struct ObjectMapOut {
    /// The stored map.
    pub map: EncodedMap,
    /// One UV per prepared vertex, when the map has its own layout.
    pub uvs: Option<Vec<Vec2>>,
}

/// The quaternion maps to embed.
#[derive(Debug, Clone, Default)]
pub struct PackMaps {
    /// Per material ([`Scene::materials`] index): its tangent-space map.
    pub tangent: Vec<Option<EncodedMap>>,
    /// Per primitive, in [`Scene::primitives`] order: its object-space map.
    pub object: Vec<Option<ObjectMapOut>>,
}

/// A packed file and what went into it.
#[derive(Debug, Clone)]
pub struct Packed {
    /// The GLB.
    pub glb: Vec<u8>,
    /// Figures and warnings.
    pub report: PackReport,
}

/// Figures about a packed file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackReport {
    /// Primitives written.
    pub primitives: usize,
    /// Vertices in the source's primitives.
    pub vertices_in: usize,
    /// Vertices written (after frame splits).
    pub vertices: usize,
    /// Bytes a vertex's `_QTANGENT` takes in the file (the format padded to 4).
    pub frame_bytes_per_vertex: usize,
    /// Bytes of embedded KTX2 maps.
    pub map_bytes: usize,
    /// Maps embedded: (what, bytes).
    pub maps: Vec<(String, usize)>,
    /// Things dropped or changed, one line each.
    pub warnings: Vec<String>,
}

/// A file could not be packed.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", file.display())]
pub struct PackError {
    /// The file being packed.
    pub file: PathBuf,
    /// What went wrong.
    pub problem: String,
}

impl PackError {
    fn input(file: &Path, problem: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            problem: problem.into(),
        }
    }
}

/// Extensions whose work the packed file no longer needs.
const DROPPED_EXTENSIONS: [&str; 3] = [
    "KHR_mesh_quantization",
    "KHR_draco_mesh_compression",
    "EXT_meshopt_compression",
];

/// Writes `scene` as a GLB carrying `prepared`'s frames in `options.format` and `maps`.
/// `prepared` holds one entry per primitive of `scene`, in [`Scene::primitives`] order (as
/// [`Scene::prepare`] returns them).
///
/// # Errors
/// [`PackError`] naming the file: the source cannot be read again, `prepared` does not match
/// the scene, an accessor or image the file names cannot be read.
pub fn pack(
    scene: &Scene,
    prepared: &[Prepared],
    maps: &PackMaps,
    options: &PackOptions,
) -> Result<Packed, PackError> {
    let file = scene.source.as_path();
    let fail = |problem: String| PackError::input(file, problem);
    if prepared.len() != scene.primitives().count() {
        return Err(fail(format!(
            "{} prepared primitives for {} in the scene",
            prepared.len(),
            scene.primitives().count()
        )));
    }
    let is_gltf = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"));
    let source = if is_gltf {
        Source::read(file)?
    } else {
        Source::synthetic(file, synthesize(scene))
    };
    let mut w = Writer {
        source: &source,
        out: source.json.clone(),
        bin: Bin::default(),
        copied: HashMap::new(),
        report: PackReport {
            frame_bytes_per_vertex: extension::layout(options.format).stride,
            ..PackReport::default()
        },
    };
    w.images().map_err(&fail)?;
    w.skins_and_animations().map_err(&fail)?;
    w.meshes(scene, prepared, maps, options).map_err(&fail)?;
    w.materials(scene, maps).map_err(&fail)?;
    w.finish().map_err(&fail)
}

struct Writer<'a> {
    source: &'a Source,
    out: Value,
    bin: Bin,
    /// Source accessor → written accessor.
    copied: HashMap<usize, usize>,
    report: PackReport,
}

impl Writer<'_> {
    /// Every image embedded in the binary chunk.
    fn images(&mut self) -> Result<(), String> {
        let count = self.out["images"].as_array().map_or(0, Vec::len);
        for i in 0..count {
            let (bytes, mime) = self.source.image(i)?;
            let view = self.bin.view(&bytes);
            let image = &mut self.out["images"][i];
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

    /// Copies accessor `a` (once; later calls return the same index).
    fn copy_accessor(&mut self, a: usize) -> Result<usize, String> {
        if let Some(&done) = self.copied.get(&a) {
            return Ok(done);
        }
        let raw = self.source.accessor(a)?;
        let src = &self.source.json["accessors"][a];
        let bounds = match (src.get("min"), src.get("max")) {
            (Some(lo), Some(hi)) => Some((lo.clone(), hi.clone())),
            _ => None,
        };
        let index = self.bin.accessor(
            &Elements {
                data: &raw.data,
                element: raw.element,
                component_type: raw.component_type,
                kind: &raw.kind,
                normalized: raw.normalized,
                target: None,
                stride: raw.element,
            },
            bounds,
        );
        if let Some(name) = src.get("name") {
            self.bin.accessors[index]["name"] = name.clone();
        }
        self.copied.insert(a, index);
        Ok(index)
    }

    /// Replaces the accessor index at `v` (if any) by its copy.
    fn remap(&mut self, v: &Value) -> Result<Option<usize>, String> {
        as_usize(v).map(|a| self.copy_accessor(a)).transpose()
    }

    /// Skins' inverse bind matrices, animation samplers, and EXT_mesh_gpu_instancing's
    /// attributes: their accessors copied.
    fn skins_and_animations(&mut self) -> Result<(), String> {
        for s in 0..self.out["skins"].as_array().map_or(0, Vec::len) {
            let v = self.out["skins"][s]["inverseBindMatrices"].clone();
            if let Some(a) = self.remap(&v)? {
                self.out["skins"][s]["inverseBindMatrices"] = json!(a);
            }
        }
        for an in 0..self.out["animations"].as_array().map_or(0, Vec::len) {
            let samplers = self.out["animations"][an]["samplers"]
                .as_array()
                .map_or(0, Vec::len);
            for s in 0..samplers {
                for key in ["input", "output"] {
                    let v = self.out["animations"][an]["samplers"][s][key].clone();
                    if let Some(a) = self.remap(&v)? {
                        self.out["animations"][an]["samplers"][s][key] = json!(a);
                    }
                }
            }
        }
        for n in 0..self.out["nodes"].as_array().map_or(0, Vec::len) {
            let attrs = self.out["nodes"][n]["extensions"]["EXT_mesh_gpu_instancing"]["attributes"]
                .as_object()
                .cloned();
            for (name, v) in attrs.into_iter().flatten() {
                if let Some(a) = self.remap(&v)? {
                    self.out["nodes"][n]["extensions"]["EXT_mesh_gpu_instancing"]["attributes"]
                        [&name] = json!(a);
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
        maps: &PackMaps,
        options: &PackOptions,
    ) -> Result<(), String> {
        let file_meshes = self.out["meshes"].as_array().map_or(0, Vec::len);
        if file_meshes != scene.meshes.len() {
            return Err(format!(
                "the file has {file_meshes} meshes but {} were loaded",
                scene.meshes.len()
            ));
        }
        let mut first = 0;
        for (m, mesh) in scene.meshes.iter().enumerate() {
            let src_prims = self.out["meshes"][m]["primitives"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let mut out_prims = Vec::new();
            let mut dropped_targets = false;
            for (i, src) in src_prims.iter().enumerate() {
                let found = mesh
                    .primitives
                    .iter()
                    .enumerate()
                    .find(|(pos, p)| p.source_index.map_or(*pos == i, |s| s == i));
                let Some((k, loaded)) = found else {
                    self.report.warnings.push(format!(
                        "mesh '{}' primitive {i}: not a triangle primitive; dropped",
                        mesh.name
                    ));
                    continue;
                };
                let flat = first + k;
                if src.get("targets").is_some() {
                    dropped_targets = true;
                }
                let object = maps.object.get(flat).and_then(Option::as_ref);
                let p = self.primitive(src, loaded, &prepared[flat], object, options)?;
                out_prims.push(p);
            }
            first += mesh.primitives.len();
            if dropped_targets {
                self.report.warnings.push(format!(
                    "mesh '{}': morph targets dropped (their normal and tangent deltas have no qtangent form)",
                    mesh.name
                ));
                if let Some(obj) = self.out["meshes"][m].as_object_mut() {
                    obj.remove("weights");
                }
            }
            self.out["meshes"][m]["primitives"] = Value::Array(out_prims);
        }
        self.drop_empty_meshes();
        Ok(())
    }

    /// Meshes left without primitives (glTF needs at least one) leave the file, and the nodes
    /// that placed them lose their `mesh` (and `skin` and `weights`, which need one).
    fn drop_empty_meshes(&mut self) {
        let Some(meshes) = self.out["meshes"].as_array().cloned() else {
            return;
        };
        let empty = |m: &Value| m["primitives"].as_array().is_none_or(Vec::is_empty);
        if !meshes.iter().any(empty) {
            return;
        }
        let mut new_index = Vec::with_capacity(meshes.len());
        let mut kept = Vec::new();
        for m in meshes {
            if empty(&m) {
                new_index.push(None);
                self.report.warnings.push(format!(
                    "mesh '{}' has no triangle primitive left; removed with its node references",
                    m["name"].as_str().unwrap_or("unnamed")
                ));
            } else {
                new_index.push(Some(kept.len()));
                kept.push(m);
            }
        }
        self.out["meshes"] = Value::Array(kept);
        for node in self.out["nodes"].as_array_mut().into_iter().flatten() {
            let Some(obj) = node.as_object_mut() else {
                continue;
            };
            let Some(old) = obj.get("mesh").and_then(as_usize) else {
                continue;
            };
            match new_index.get(old).copied().flatten() {
                Some(k) => {
                    obj.insert("mesh".into(), json!(k));
                }
                None => {
                    for key in ["mesh", "skin", "weights"] {
                        obj.remove(key);
                    }
                }
            }
        }
    }

    fn primitive(
        &mut self,
        src: &Value,
        loaded: &Primitive,
        p: &Prepared,
        object: Option<&ObjectMapOut>,
        options: &PackOptions,
    ) -> Result<Value, String> {
        let n = p.positions.len();
        self.report.primitives += 1;
        self.report.vertices_in += loaded.positions.len();
        self.report.vertices += n;
        let mut attrs = Map::new();
        let positions: Vec<[f32; 3]> = p.positions.iter().map(|v| v.to_array()).collect();
        attrs.insert("POSITION".into(), json!(self.bin.floats(&positions, true)));
        if loaded.uvs.is_some() {
            let uvs: Vec<[f32; 2]> = p.uvs.iter().map(|v| v.to_array()).collect();
            attrs.insert("TEXCOORD_0".into(), json!(self.bin.floats(&uvs, false)));
        }
        let layout = extension::layout(options.format);
        let mut q = Vec::with_capacity(n * options.format.bytes());
        for f in &p.frames {
            options.format.encode_into(&f.to_qtangent(), &mut q);
        }
        let qt = self.bin.accessor(
            &Elements {
                data: &q,
                element: options.format.bytes(),
                component_type: layout.component_type,
                kind: layout.kind,
                normalized: layout.normalized,
                target: Some(ARRAY_BUFFER),
                stride: layout.stride,
            },
            None,
        );
        attrs.insert(extension::ATTRIBUTE.into(), json!(qt));
        if options.keep_normals {
            let normals: Vec<[f32; 3]> = p.frames.iter().map(|f| f.normal.to_array()).collect();
            let tangents: Vec<[f32; 4]> = p
                .frames
                .iter()
                .map(|f| f.tangent.extend(f.handedness()).to_array())
                .collect();
            attrs.insert("NORMAL".into(), json!(self.bin.floats(&normals, false)));
            attrs.insert("TANGENT".into(), json!(self.bin.floats(&tangents, false)));
        }
        for (s, joints) in p.joints.iter().enumerate() {
            let wide = joints.iter().flatten().any(|&j| j > 255);
            let data: Vec<u8> = if wide {
                bytemuck::cast_slice(joints).to_vec()
            } else {
                joints.iter().flatten().map(|&j| j as u8).collect()
            };
            let a = self.bin.accessor(
                &Elements {
                    data: &data,
                    element: if wide { 8 } else { 4 },
                    component_type: if wide {
                        extension::component::UNSIGNED_SHORT
                    } else {
                        extension::component::UNSIGNED_BYTE
                    },
                    kind: "VEC4",
                    normalized: false,
                    target: Some(ARRAY_BUFFER),
                    stride: if wide { 8 } else { 4 },
                },
                None,
            );
            attrs.insert(format!("JOINTS_{s}"), json!(a));
        }
        for (s, weights) in p.weights.iter().enumerate() {
            attrs.insert(
                format!("WEIGHTS_{s}"),
                json!(self.bin.floats(weights, false)),
            );
        }
        // Other attributes, copied through the vertex splits.
        let mut next_uv_set = 1;
        for (name, a) in src["attributes"].as_object().into_iter().flatten() {
            if let Some(set) = name
                .strip_prefix("TEXCOORD_")
                .and_then(|s| s.parse::<u32>().ok())
            {
                next_uv_set = next_uv_set.max(set + 1);
            }
            let handled = matches!(
                name.as_str(),
                "POSITION" | "NORMAL" | "TANGENT" | "TEXCOORD_0"
            ) || name == extension::ATTRIBUTE
                || name.starts_with("JOINTS_")
                || name.starts_with("WEIGHTS_");
            let Some(a) = as_usize(a).filter(|_| !handled) else {
                continue;
            };
            let raw = self.source.accessor(a)?;
            let mut data = Vec::with_capacity(n * raw.element);
            for &v in &p.source_vertex {
                let start = v as usize * raw.element;
                let bytes = raw.data.get(start..start + raw.element).ok_or(format!(
                    "{}: {name} has fewer elements than POSITION",
                    p.label
                ))?;
                data.extend_from_slice(bytes);
            }
            let index = self.bin.accessor(
                &Elements {
                    data: &data,
                    element: raw.element,
                    component_type: raw.component_type,
                    kind: &raw.kind,
                    normalized: raw.normalized,
                    target: Some(ARRAY_BUFFER),
                    stride: raw.element.next_multiple_of(4),
                },
                None,
            );
            attrs.insert(name.clone(), json!(index));
        }
        let mut ext = json!({ "format": options.format.name() });
        if let Some(o) = object {
            let tex_coord = match &o.uvs {
                Some(uvs) => {
                    let uvs: Vec<[f32; 2]> = uvs.iter().map(|v| v.to_array()).collect();
                    let set = next_uv_set;
                    attrs.insert(
                        format!("TEXCOORD_{set}"),
                        json!(self.bin.floats(&uvs, false)),
                    );
                    set
                }
                None => 0,
            };
            let texture =
                self.map_texture(&o.map, &format!("{} object-space map", p.label), false)?;
            ext["objectMap"] = json!({ "index": texture, "texCoord": tex_coord });
        }
        let indices = self.bin.indices(&p.indices);
        let mut out = json!({ "attributes": attrs, "indices": indices, "mode": 4 });
        for key in ["material", "extras"] {
            if let Some(v) = src.get(key) {
                out[key] = v.clone();
            }
        }
        let mut extensions = src["extensions"].as_object().cloned().unwrap_or_default();
        extensions.remove("KHR_draco_mesh_compression");
        extensions.insert(extension::NAME.into(), ext);
        out["extensions"] = Value::Object(extensions);
        Ok(out)
    }

    /// Embeds a map as a KTX2 image with a texture whose source only the extension names;
    /// returns the texture's index.
    fn map_texture(&mut self, map: &EncodedMap, what: &str, repeat: bool) -> Result<usize, String> {
        let (main, _) = map.to_ktx2();
        let bytes = crate::ktx2::write(&main).map_err(|e| format!("{what}: {e}"))?;
        self.report.map_bytes += bytes.len();
        self.report.maps.push((what.to_string(), bytes.len()));
        let view = self.bin.view(&bytes);
        let image = push(
            &mut self.out,
            "images",
            json!({
                "bufferView": view,
                "mimeType": "image/ktx2",
                "name": what,
            }),
        );
        // LINEAR / LINEAR_MIPMAP_LINEAR; REPEAT (tangent-space maps tile) or CLAMP_TO_EDGE.
        let wrap = if repeat { 10497 } else { 33071 };
        let sampler = push(
            &mut self.out,
            "samplers",
            json!({
                "magFilter": 9729,
                "minFilter": 9987,
                "wrapS": wrap,
                "wrapT": wrap,
            }),
        );
        Ok(push(
            &mut self.out,
            "textures",
            json!({
                "sampler": sampler,
                "name": what,
                "extensions": { extension::NAME: { "source": image } },
            }),
        ))
    }

    /// Tangent-space maps on their materials; KHR_texture_transform dropped where the loader
    /// applied it to the UVs.
    fn materials(&mut self, scene: &Scene, maps: &PackMaps) -> Result<(), String> {
        for (j, m) in scene.materials.iter().enumerate() {
            if m.uv_transform.is_some() {
                strip_transforms(&mut self.out["materials"][j]);
            }
            if let Some(Some(map)) = maps.tangent.get(j) {
                let texture = self.map_texture(
                    map,
                    &format!("material '{}' tangent-space map", m.name),
                    true,
                )?;
                let material = &mut self.out["materials"][j];
                if !material["extensions"].is_object() {
                    material["extensions"] = json!({});
                }
                material["extensions"][extension::NAME] =
                    json!({ "tangentMap": { "index": texture } });
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Packed, String> {
        let out = &mut self.out;
        out["buffers"] = json!([{ "byteLength": self.bin.bytes.len() }]);
        out["bufferViews"] = Value::Array(std::mem::take(&mut self.bin.views));
        out["accessors"] = Value::Array(std::mem::take(&mut self.bin.accessors));
        out["asset"]["generator"] = json!(concat!("qtangent pack ", env!("CARGO_PKG_VERSION")));
        let transform_used = uses_key(&out["materials"], "KHR_texture_transform");
        for key in ["extensionsUsed", "extensionsRequired"] {
            if let Some(list) = out.get_mut(key).and_then(Value::as_array_mut) {
                list.retain(|e| {
                    let e = e.as_str().unwrap_or("");
                    !DROPPED_EXTENSIONS.contains(&e)
                        && (e != "KHR_texture_transform" || transform_used)
                        && e != extension::NAME
                });
            }
        }
        if !out["extensionsUsed"].is_array() {
            out["extensionsUsed"] = json!([]);
        }
        if let Some(list) = out["extensionsUsed"].as_array_mut() {
            list.push(json!(extension::NAME));
        }
        if let Some(obj) = out.as_object_mut() {
            for key in ["extensionsRequired", "images", "samplers", "textures"] {
                if obj
                    .get(key)
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
                {
                    obj.remove(key);
                }
            }
        }
        let json = serde_json::to_vec(&self.out).map_err(|e| format!("JSON: {e}"))?;
        let glb = gltf::Glb {
            header: gltf::binary::Header {
                magic: *b"glTF",
                version: 2,
                length: 0,
            },
            json: json.into(),
            bin: Some(std::mem::take(&mut self.bin.bytes).into()),
        };
        let glb = glb.to_vec().map_err(|e| format!("GLB: {e}"))?;
        Ok(Packed {
            glb,
            report: self.report,
        })
    }
}

/// Appends `v` to the array `root[key]` (made when missing); returns its index.
fn push(root: &mut Value, key: &str, v: Value) -> usize {
    match root[key].as_array_mut() {
        Some(list) => {
            list.push(v);
            list.len() - 1
        }
        None => {
            root[key] = json!([v]);
            0
        }
    }
}

/// Removes KHR_texture_transform from every texture reference of a material that reads UV set
/// 0 (the set the loader transformed).
fn strip_transforms(v: &mut Value) {
    match v {
        Value::Object(obj) => {
            let reads_set_0 = obj.contains_key("index")
                && obj.get("texCoord").and_then(Value::as_u64).unwrap_or(0) == 0;
            if reads_set_0 {
                if let Some(ext) = obj.get_mut("extensions").and_then(Value::as_object_mut) {
                    let own_set = ext["KHR_texture_transform"]["texCoord"]
                        .as_u64()
                        .unwrap_or(0);
                    if own_set == 0 {
                        ext.remove("KHR_texture_transform");
                    }
                }
                if obj
                    .get("extensions")
                    .and_then(Value::as_object)
                    .is_some_and(Map::is_empty)
                {
                    obj.remove("extensions");
                }
            }
            for (_, child) in obj.iter_mut() {
                strip_transforms(child);
            }
        }
        Value::Array(list) => list.iter_mut().for_each(strip_transforms),
        _ => {}
    }
}

/// Whether `key` appears as an object key anywhere under `v`.
fn uses_key(v: &Value, key: &str) -> bool {
    match v {
        Value::Object(obj) => obj.contains_key(key) || obj.values().any(|c| uses_key(c, key)),
        Value::Array(list) => list.iter().any(|c| uses_key(c, key)),
        _ => false,
    }
}

/// A glTF document for a scene that came from OBJ: its materials (factors and textures), one
/// node per mesh instance, and placeholder primitives [`pack`] fills in.
fn synthesize(scene: &Scene) -> Value {
    let mut images = Vec::new();
    let mut textures = Vec::new();
    let mut texture = |t: &crate::mesh::TextureRef| -> Value {
        let uri = match &t.image {
            crate::mesh::ImageSource::File(path) => {
                urlencoding::encode(&path.display().to_string()).into_owned()
            }
            crate::mesh::ImageSource::DataUri(uri) => uri.to_string(),
            crate::mesh::ImageSource::Embedded { .. } => String::new(),
        };
        images.push(json!({ "uri": uri }));
        textures.push(json!({ "source": images.len() - 1 }));
        json!({ "index": textures.len() - 1 })
    };
    let materials: Vec<Value> = scene
        .materials
        .iter()
        .map(|m| {
            let mut pbr = json!({
                "baseColorFactor": m.base_color.to_array(),
                "metallicFactor": m.metallic,
                "roughnessFactor": m.roughness,
            });
            if let Some(t) = &m.base_color_texture {
                pbr["baseColorTexture"] = texture(t);
            }
            if let Some(t) = &m.metallic_roughness_texture {
                pbr["metallicRoughnessTexture"] = texture(t);
            }
            let mut out = json!({ "name": m.name, "pbrMetallicRoughness": pbr });
            if let Some(t) = &m.normal_texture {
                out["normalTexture"] = texture(t);
                out["normalTexture"]["scale"] = json!(t.scale);
            }
            out
        })
        .collect();
    let meshes: Vec<Value> = scene
        .meshes
        .iter()
        .map(|m| {
            let prims: Vec<Value> = m
                .primitives
                .iter()
                .map(|p| {
                    let mut v = json!({ "attributes": {} });
                    if let Some(k) = p.material {
                        v["material"] = json!(k);
                    }
                    v
                })
                .collect();
            json!({ "name": m.name, "primitives": prims })
        })
        .collect();
    let mut nodes = Vec::new();
    for (i, m) in scene.meshes.iter().enumerate() {
        for inst in &m.instances {
            let mut node = json!({ "mesh": i, "name": m.name });
            if inst.world != glam::Mat4::IDENTITY {
                node["matrix"] = json!(inst.world.to_cols_array());
            }
            nodes.push(node);
        }
    }
    let roots: Vec<usize> = (0..nodes.len()).collect();
    let mut doc = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": roots }],
        "nodes": nodes,
        "meshes": meshes,
    });
    for (key, list) in [
        ("materials", materials),
        ("images", images),
        ("textures", textures),
    ] {
        if !list.is_empty() {
            doc[key] = Value::Array(list);
        }
    }
    doc
}
