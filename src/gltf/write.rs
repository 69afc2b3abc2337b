//! The one glTF writer: a JSON document and one binary buffer, whose buffer views and accessors
//! are appended one by one, each view on a 4-byte boundary (glTF 2.0 §3.6.2.4: every accessor
//! offset a multiple of its component size, every vertex attribute element aligned to 4 bytes),
//! written as a `.glb` (the lab adds the `.gltf` form its files and the tests use:
//! `lab::gltf_json`). `pack`, the swirl disc, the tests and the fuzz seeds write through it.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::glb;
use super::meshopt::{codec_turned, encode, Encoding};
use super::names::EXT_MESHOPT_COMPRESSION;
use super::names::{AccessorLayout, AccessorType, ComponentType, Target};
use super::WriteError;

/// A glTF document under construction with its binary buffer (its use is shown by the test
/// `a_triangle_written_by_the_builder_is_a_glb` in `tests/unit/gltf_files/mod.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Builder {
    /// The document. Its `bufferViews` and `accessors` grow through the builder; `buffers` is
    /// written with the file ([`Builder::to_glb`]).
    pub json: Value,
    /// The binary buffer: buffer 0 of what is written.
    pub(crate) bin: Vec<u8>,
    /// Bytes of the EXT_meshopt_compression fallback buffer (buffer 1, not written), once
    /// [`Builder::compress_meshopt`] has run.
    fallback: usize,
    /// Vertex and index accessors written so far, by target, layout and bytes: the same data
    /// written twice is one accessor (primitives that share vertex data in a source share it in
    /// what is written).
    shared: HashMap<SharedKey, usize>,
}

/// Rewrites every JSON number that is an f32 (as the writer's f32 values are, once widened)
/// as the shortest decimal that reads back as the same f32: `0.2` where the widened value
/// prints as `0.20000000298023224`. Readers parse numbers into f32 (or into f64 and then f32),
/// so they get the same value from fewer bytes. Accessor bounds are left alone: the validator
/// compares them with the data.
fn shortest_f32(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let Some(x) = n.as_f64() else { return };
            let single = x as f32;
            if f64::from(single) != x || !single.is_finite() {
                return;
            }
            let short = single.to_string().parse::<f64>().ok();
            if let Some(short) = short.and_then(serde_json::Number::from_f64) {
                *n = short;
            }
        }
        Value::Array(list) => list.iter_mut().for_each(shortest_f32),
        Value::Object(obj) => obj.values_mut().for_each(shortest_f32),
        _ => {}
    }
}

/// JSON a compressed view adds besides its extension object: the extension's name and the
/// fallback buffer's share (`"extensions":{"EXT_meshopt_compression":…}`, about 45 bytes).
const MESHOPT_VIEW_JSON_BYTES: usize = 45;

/// Views [`Builder::merge_views`] merges into one: their key (target, stride, layout) and the
/// views, in order.
type ViewGroup = (String, Vec<usize>);

/// What makes two vertex or index accessors the same: target, layout and bytes.
type SharedKey = (u32, AccessorLayout, Vec<u8>);

impl Default for Builder {
    /// An empty glTF 2.0 document.
    fn default() -> Self {
        Self::new(json!({ "asset": { "version": "2.0" } }))
    }
}

impl Builder {
    /// A builder that extends `json` (which must hold `asset`): its `buffers`, `bufferViews` and
    /// `accessors` are replaced by the builder's, so whatever named the old ones must be
    /// rewritten.
    #[must_use]
    pub(crate) fn new(mut json: Value) -> Self {
        if let Some(doc) = json.as_object_mut() {
            doc.remove("buffers");
            doc.insert("bufferViews".into(), json!([]));
            doc.insert("accessors".into(), json!([]));
        }
        Self {
            json,
            bin: Vec::new(),
            fallback: 0,
            shared: HashMap::new(),
        }
    }

    /// Appends `item` to the top-level array `key` (made when missing); returns its index.
    pub(crate) fn push(&mut self, key: &str, item: Value) -> usize {
        if let Some(list) = self.json[key].as_array_mut() {
            list.push(item);
            return list.len() - 1;
        }
        self.json[key] = json!([item]);
        0
    }

    /// Appends `bytes` as a buffer view of their own, with `target` and `byteStride` when given;
    /// returns the view's index.
    pub(crate) fn view(
        &mut self,
        bytes: &[u8],
        target: Option<Target>,
        stride: Option<usize>,
    ) -> usize {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.bin.len(),
            "byteLength": bytes.len(),
        });
        if let Some(target) = target {
            view["target"] = json!(target.code());
        }
        if let Some(stride) = stride {
            view["byteStride"] = json!(stride);
        }
        self.bin.extend_from_slice(bytes);
        self.push("bufferViews", view)
    }

    /// Appends an accessor of `layout` over `data` (its elements tightly packed, as many as
    /// fit) in a view of its own; returns the accessor's index. A vertex attribute
    /// ([`Target::ArrayBuffer`]) pads each element to 4 bytes and writes that `byteStride`.
    /// A vertex or index accessor whose target, layout and bytes were written before is not
    /// written again: its index is returned (animation data is never shared, so that no
    /// accessor serves two kinds of use).
    pub(crate) fn accessor(
        &mut self,
        data: &[u8],
        layout: AccessorLayout,
        target: Option<Target>,
    ) -> usize {
        let element = layout.element_bytes();
        let count = data.len() / element;
        let key = target.map(|t| (t.code(), layout, data[..count * element].to_vec()));
        if let Some(&done) = key.as_ref().and_then(|k| self.shared.get(k)) {
            return done;
        }
        let view = if target == Some(Target::ArrayBuffer) {
            let stride = layout.vertex_stride();
            let mut padded = Vec::with_capacity(count * stride);
            for e in data.chunks_exact(element) {
                padded.extend_from_slice(e);
                padded.resize(padded.len() + stride - element, 0);
            }
            self.view(&padded, target, Some(stride))
        } else {
            self.view(&data[..count * element], target, None)
        };
        let mut accessor = json!({
            "bufferView": view,
            "componentType": layout.component.code(),
            "count": count,
            "type": layout.kind.name(),
        });
        if layout.normalized {
            accessor["normalized"] = json!(true);
        }
        let index = self.push("accessors", accessor);
        if let Some(key) = key {
            self.shared.insert(key, index);
        }
        index
    }

    /// An f32 accessor of `N` components an element (1 to 4: `SCALAR` to `VEC4`; 9: `MAT3`;
    /// 16: `MAT4`); returns its index.
    pub(crate) fn floats<const N: usize>(
        &mut self,
        values: &[[f32; N]],
        target: Option<Target>,
    ) -> usize {
        let kind = const {
            match N {
                1 => AccessorType::Scalar,
                2 => AccessorType::Vec2,
                3 => AccessorType::Vec3,
                4 => AccessorType::Vec4,
                9 => AccessorType::Mat3,
                16 => AccessorType::Mat4,
                _ => panic!("f32 elements have 1 to 4, 9 or 16 components"),
            }
        };
        let data: Vec<u8> = values
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        self.accessor(&data, AccessorLayout::float(kind), target)
    }

    /// A `POSITION` attribute: f32 `VEC3` with the `min` and `max` glTF requires of it; returns
    /// its index.
    pub(crate) fn positions(&mut self, positions: &[[f32; 3]]) -> usize {
        let index = self.floats(positions, Some(Target::ArrayBuffer));
        let (lo, hi) = positions.iter().fold(
            ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]),
            |(lo, hi), p| {
                (
                    std::array::from_fn(|k| lo[k].min(p[k])),
                    std::array::from_fn(|k| hi[k].max(p[k])),
                )
            },
        );
        self.json["accessors"][index]["min"] = json!(lo);
        self.json["accessors"][index]["max"] = json!(hi);
        index
    }

    /// A triangle list: `UNSIGNED_SHORT` when every index is below 65535 (the restart value),
    /// else `UNSIGNED_INT`; returns its index.
    pub(crate) fn indices(&mut self, indices: &[u32]) -> usize {
        let short = indices.iter().all(|&i| i < 65535);
        let (data, component): (Vec<u8>, _) = if short {
            let data = indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect();
            (data, ComponentType::UnsignedShort)
        } else {
            let data = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
            (data, ComponentType::UnsignedInt)
        };
        let layout = AccessorLayout {
            component,
            kind: AccessorType::Scalar,
            normalized: false,
        };
        self.accessor(&data, layout, Some(Target::ElementArrayBuffer))
    }

    /// Merges the views of vertex, index and animation accessors into one view per kind, as
    /// gltfpack writes them: one per target, `byteStride` and accessor layout (positions,
    /// UVs, frames, joints, weights, indices of each width, animation data of each layout),
    /// the accessors at their offsets inside it, in the order they were written. Views that
    /// images read, or that more than one accessor reads, stay as they are. Each merged run
    /// of triangle indices is stored as meshoptimizer's index codec decodes it (every triangle
    /// turned, winding kept, to the corner the codec starts it from), so a file holds the same
    /// bytes whether it is compressed ([`Builder::compress_meshopt`]) or not; the indices an
    /// accessor holds afterwards are [`Builder::indices_of`]. Call it once, before
    /// compressing: fewer, larger views are what keeps compression from growing a file
    /// (meshoptimizer's codecs pay a header and a tail per view). Accessors in `compressible`
    /// and the others go to views of their own, so that [`Builder::compress_meshopt`] can
    /// leave the others plain.
    pub(crate) fn merge_views(&mut self, compressible: &HashSet<usize>) {
        let views = self.json["bufferViews"].as_array().map_or(0, Vec::len);
        let accessors = self.json["accessors"].as_array().map_or(0, Vec::len);
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); views];
        for a in 0..accessors {
            if let Some(v) = self.json["accessors"][a]["bufferView"].as_u64() {
                if let Some(r) = readers.get_mut(v as usize) {
                    r.push(a);
                }
            }
        }
        for image in self.json["images"].as_array().into_iter().flatten() {
            if let Some(r) = image["bufferView"]
                .as_u64()
                .and_then(|v| readers.get_mut(v as usize))
            {
                r.push(usize::MAX);
            }
        }
        let (groups, group_of) = self.view_groups(&readers, compressible);
        let old_bin = std::mem::take(&mut self.bin);
        let old_views = std::mem::take(&mut self.json["bufferViews"]);
        let bytes_of = |v: usize| -> &[u8] {
            let view = &old_views[v];
            let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
            let length = view["byteLength"].as_u64().unwrap_or(0) as usize;
            old_bin.get(start..start + length).unwrap_or_default()
        };
        // Each old view's new view and its offset there.
        let mut moved: Vec<(usize, usize)> = vec![(0, 0); views];
        let mut emitted: Vec<Option<usize>> = vec![None; groups.len()];
        for v in 0..views {
            let Some(g) = group_of[v] else {
                let mut view = old_views[v].clone();
                let new = self.place(bytes_of(v), &mut view);
                moved[v] = (new, 0);
                continue;
            };
            if emitted[g].is_some() {
                continue;
            }
            let members = &groups[g].1;
            let mut bytes = Vec::new();
            let mut offsets = Vec::with_capacity(members.len());
            for &m in members {
                offsets.push(bytes.len());
                bytes.extend_from_slice(bytes_of(m));
            }
            let mut view = old_views[v].clone();
            if view["target"].as_u64() == Some(u64::from(Target::ElementArrayBuffer.code())) {
                let width = self.json["accessors"][readers[v][0]]["componentType"].as_u64();
                bytes = codec_turned(&bytes, if width == Some(5125) { 4 } else { 2 });
            }
            view["byteLength"] = json!(bytes.len());
            let new = self.place(&bytes, &mut view);
            for (&m, &offset) in members.iter().zip(&offsets) {
                moved[m] = (new, offset);
            }
            emitted[g] = Some(new);
        }
        for a in 0..accessors {
            let acc = &mut self.json["accessors"][a];
            if let Some(v) = acc["bufferView"].as_u64() {
                let (new, offset) = moved.get(v as usize).copied().unwrap_or((0, 0));
                let own = acc["byteOffset"].as_u64().unwrap_or(0) as usize;
                acc["bufferView"] = json!(new);
                if own + offset > 0 {
                    acc["byteOffset"] = json!(own + offset);
                }
            }
        }
        let images = self.json.get_mut("images").and_then(Value::as_array_mut);
        for image in images.into_iter().flatten() {
            if let Some(v) = image["bufferView"].as_u64() {
                image["bufferView"] = json!(moved.get(v as usize).map_or(0, |m| m.0));
            }
        }
    }

    /// The groups of views [`Builder::merge_views`] merges, each a list of views in order, and
    /// each view's group: views with one reader (`readers[v]`, `usize::MAX` for an image), an
    /// accessor at offset 0 and not sparse, grouped by target, `byteStride`, layout and whether
    /// the accessor is in `compressible`.
    fn view_groups(
        &self,
        readers: &[Vec<usize>],
        compressible: &HashSet<usize>,
    ) -> (Vec<ViewGroup>, Vec<Option<usize>>) {
        let mut groups: Vec<ViewGroup> = Vec::new();
        let mut group_of = vec![None; readers.len()];
        for (v, r) in readers.iter().enumerate() {
            let [a] = r[..] else { continue };
            if a == usize::MAX {
                continue;
            }
            let acc = &self.json["accessors"][a];
            if acc.get("sparse").is_some() || acc["byteOffset"].as_u64().unwrap_or(0) != 0 {
                continue;
            }
            let view = &self.json["bufferViews"][v];
            let key = format!(
                "{}/{}/{}/{}/{}/{}",
                view["target"],
                view["byteStride"],
                acc["componentType"],
                acc["type"],
                acc["normalized"],
                compressible.contains(&a)
            );
            let g = groups
                .iter()
                .position(|(k, _)| *k == key)
                .unwrap_or_else(|| {
                    groups.push((key, Vec::new()));
                    groups.len() - 1
                });
            groups[g].1.push(v);
            group_of[v] = Some(g);
        }
        (groups, group_of)
    }

    /// Appends `bytes` as `view` (its offset set here) to the views; returns its index.
    fn place(&mut self, bytes: &[u8], view: &mut Value) -> usize {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        view["byteOffset"] = json!(self.bin.len());
        self.bin.extend_from_slice(bytes);
        self.push("bufferViews", view.take())
    }

    /// The indices index accessor `a` holds (empty for one that is not an index accessor of
    /// this builder).
    #[must_use]
    pub(crate) fn indices_of(&self, a: usize) -> Vec<u32> {
        let acc = &self.json["accessors"][a];
        let (Some(v), Some(count)) = (acc["bufferView"].as_u64(), acc["count"].as_u64()) else {
            return Vec::new();
        };
        let view = &self.json["bufferViews"][v as usize];
        let start = (view["byteOffset"].as_u64().unwrap_or(0)
            + acc["byteOffset"].as_u64().unwrap_or(0)) as usize;
        let wide = acc["componentType"].as_u64() == Some(5125);
        let width = if wide { 4 } else { 2 };
        let bytes = self
            .bin
            .get(start..start + count as usize * width)
            .unwrap_or_default();
        bytes
            .chunks_exact(width)
            .map(|c| {
                if wide {
                    u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                } else {
                    u32::from(u16::from_le_bytes([c[0], c[1]]))
                }
            })
            .collect()
    }

    /// Compresses every buffer view that only accessors in `compressible` read and whose layout
    /// EXT_meshopt_compression allows (triangle indices; attributes of 4 to 256 bytes an
    /// element, a multiple of 4):
    /// the compressed streams go to the binary buffer, and the views move to a fallback buffer
    /// (buffer 1) the file does not carry, as the extension specifies. Images and views of
    /// other layouts stay as they are, and so does a view that compressing would not make
    /// smaller. Returns whether any view was compressed (the file then needs the extension).
    /// Call it last, once: views appended later are not compressed.
    pub(crate) fn compress_meshopt(&mut self, compressible: &HashSet<usize>) -> bool {
        let views = self.json["bufferViews"].as_array().map_or(0, Vec::len);
        let accessors = self.json["accessors"].as_array().map_or(0, Vec::len);
        // The encoding of each view that accessors of one element size read (a merged view
        // holds several, [`Builder::merge_views`]); `None` once one does not fit.
        let mut plan: Vec<Option<Option<Encoding>>> = vec![None; views];
        for a in 0..accessors {
            let Ok(acc) = super::read::describe(&self.json, a) else {
                continue;
            };
            let Some(place) = acc.place.filter(|_| acc.sparse.is_none()) else {
                continue;
            };
            let view = &self.json["bufferViews"][place.view];
            let element = acc.layout.element_bytes();
            let stride = view["byteStride"].as_u64().map_or(element, |s| s as usize);
            let length = view["byteLength"].as_u64().unwrap_or(0) as usize;
            let e = Encoding {
                stride,
                count: length / stride.max(1),
                triangles: view["target"].as_u64()
                    == Some(u64::from(Target::ElementArrayBuffer.code())),
            };
            let fits = length.is_multiple_of(stride.max(1))
                && (view.get("byteStride").is_some() || element == stride)
                && place.offset.is_multiple_of(stride.max(1))
                && (!e.triangles || e.count.is_multiple_of(3));
            let fits = fits && compressible.contains(&a);
            plan[place.view] = match plan[place.view] {
                None if fits && e.allowed() => Some(Some(e)),
                Some(Some(p)) if fits && p == e => Some(Some(e)),
                _ => Some(None),
            };
        }
        for image in self.json["images"].as_array().into_iter().flatten() {
            if let Some(v) = image["bufferView"].as_u64() {
                if let Some(p) = plan.get_mut(v as usize) {
                    *p = Some(None);
                }
            }
        }
        let old = std::mem::take(&mut self.bin);
        let mut fallback = 0;
        for (v, e) in plan.into_iter().enumerate() {
            let view = &mut self.json["bufferViews"][v];
            let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
            let length = view["byteLength"].as_u64().unwrap_or(0) as usize;
            let bytes = old.get(start..start + length).unwrap_or_default();
            self.bin.resize(self.bin.len().next_multiple_of(4), 0);
            // A view is compressed only where that makes the file smaller: the compressed
            // bytes and the extension's JSON under the view's bytes (a small view's codec
            // header, tail and JSON outweigh what it saves).
            let smaller = |e: &Encoding, packed: &Vec<u8>| {
                let json = e.json(self.bin.len(), packed.len()).to_string().len();
                packed.len() + json + MESHOPT_VIEW_JSON_BYTES < length
            };
            let compressed = e
                .flatten()
                .and_then(|e| Some((e, encode(bytes, e)?)))
                .filter(|(e, packed)| smaller(e, packed));
            match compressed {
                Some((e, packed)) => {
                    view["buffer"] = json!(1);
                    view["byteOffset"] = json!(fallback);
                    view["extensions"] =
                        json!({ EXT_MESHOPT_COMPRESSION: e.json(self.bin.len(), packed.len()) });
                    fallback = (fallback + length).next_multiple_of(4);
                    self.bin.extend_from_slice(&packed);
                }
                None => {
                    view["byteOffset"] = json!(self.bin.len());
                    self.bin.extend_from_slice(bytes);
                }
            }
        }
        self.fallback = fallback;
        fallback > 0
    }

    /// The document with its buffer (at `uri`, if any), and without the empty `bufferViews` and
    /// `accessors` lists glTF does not allow.
    pub(crate) fn finished(&self, uri: Option<String>) -> Value {
        let mut json = self.json.clone();
        if let Some(doc) = json.as_object_mut() {
            for (key, v) in doc.iter_mut() {
                if key != "accessors" {
                    shortest_f32(v);
                }
            }
            for key in ["bufferViews", "accessors"] {
                if doc
                    .get(key)
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
                {
                    doc.remove(key);
                }
            }
            if !self.bin.is_empty() {
                let mut buffer = json!({ "byteLength": self.bin.len() });
                if let Some(uri) = uri {
                    buffer["uri"] = json!(uri);
                }
                let mut buffers = vec![buffer];
                if self.fallback > 0 {
                    buffers.push(json!({
                        "byteLength": self.fallback,
                        "extensions": { EXT_MESHOPT_COMPRESSION: { "fallback": true } },
                    }));
                }
                doc.insert("buffers".into(), json!(buffers));
            }
        }
        json
    }

    /// The document and its buffer as one `.glb`.
    ///
    /// # Errors
    /// [`WriteError::TooLarge`] past the 4 GiB a GLB can hold.
    pub(crate) fn to_glb(&self) -> Result<Vec<u8>, WriteError> {
        glb::write(self.finished(None).to_string().as_bytes(), &self.bin)
    }
}

#[cfg(test)]
#[path = "../../tests/unit/gltf/write.rs"]
mod tests;
