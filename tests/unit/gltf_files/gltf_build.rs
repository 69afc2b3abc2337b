//! glTF files written by tests, over the crate's writer (`crate::gltf::Builder`): a JSON
//! document and one binary buffer, saved as `.gltf` + `.bin` or as one `.glb`, with the
//! shorthands the tests use.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};

use qtangent::gltf::{AccessorLayout, AccessorType, Builder};
use serde_json::{json, Value};

/// A document under construction and its buffer: the library's [`Builder`] (its `json`, `push`,
/// `accessor`, …) with a scene to put meshes in.
pub(crate) struct GltfBuild(pub Builder);

impl Default for GltfBuild {
    fn default() -> Self {
        Self(Builder::new(json!({
            "asset": {"version": "2.0"},
            "meshes": [], "nodes": [],
            "scenes": [{"nodes": []}], "scene": 0
        })))
    }
}

impl Deref for GltfBuild {
    type Target = Builder;
    fn deref(&self) -> &Builder {
        &self.0
    }
}

impl DerefMut for GltfBuild {
    fn deref_mut(&mut self) -> &mut Builder {
        &mut self.0
    }
}

impl GltfBuild {
    /// A buffer view over `bytes` (placed at a 4-byte boundary), with `byteStride` when given.
    pub(crate) fn view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        self.0.view(bytes, None, stride)
    }

    /// Elements of `element` bytes each, every one padded to `stride` bytes: a strided view
    /// (vertex attributes must start on 4-byte boundaries).
    pub(crate) fn strided_view(&mut self, elements: &[Vec<u8>], stride: usize) -> usize {
        let mut bytes = Vec::new();
        for e in elements {
            assert!(e.len() <= stride);
            bytes.extend_from_slice(e);
            bytes.resize(bytes.len() + stride - e.len(), 0);
        }
        self.view(&bytes, Some(stride))
    }

    /// A float accessor of `ty` (`VEC3`, …) over `data` in its own view; `POSITION` data gets
    /// `min`/`max` when `bounds` is set.
    pub(crate) fn floats(&mut self, data: &[f32], ty: &str, bounds: bool) -> usize {
        let kind: AccessorType = ty.parse().unwrap_or_else(|e| panic!("{e}"));
        let dims = kind.components();
        let accessor = self.0.accessor(
            bytemuck::cast_slice(data),
            AccessorLayout::float(kind),
            None,
        );
        if bounds {
            let pick = |k: usize, f: fn(f32, f32) -> f32| {
                data.iter().skip(k).step_by(dims).copied().fold(data[k], f)
            };
            let acc = &mut self.json["accessors"][accessor];
            acc["min"] = json!((0..dims).map(|k| pick(k, f32::min)).collect::<Vec<_>>());
            acc["max"] = json!((0..dims).map(|k| pick(k, f32::max)).collect::<Vec<_>>());
        }
        accessor
    }

    /// A `u16` index accessor.
    pub(crate) fn indices(&mut self, indices: &[u16]) -> usize {
        let wide: Vec<u32> = indices.iter().map(|&i| u32::from(i)).collect();
        self.0.indices(&wide)
    }

    /// A mesh of the given primitives with one node placing it (listed in scene 0); returns the
    /// mesh index.
    pub(crate) fn mesh(&mut self, name: &str, primitives: Value, node: Value) -> usize {
        let mesh = self.push("meshes", json!({"name": name, "primitives": primitives}));
        let mut node = node;
        node["mesh"] = json!(mesh);
        let n = self.push("nodes", node);
        if let Some(list) = self.json["scenes"][0]["nodes"].as_array_mut() {
            list.push(json!(n));
        }
        mesh
    }

    /// Writes `dir/name.gltf` and `dir/name.bin`; returns the `.gltf` path.
    pub(crate) fn write_gltf(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(format!("{name}.gltf"));
        self.0.write_gltf(&path).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    /// Writes `dir/name.glb` (JSON chunk, then the binary chunk); returns its path.
    pub(crate) fn write_glb(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(format!("{name}.glb"));
        let glb = self.0.to_glb().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, glb).unwrap_or_else(|e| panic!("{e}"));
        path
    }
}
