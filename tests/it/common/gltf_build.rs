//! glTF files written by tests: a JSON document built with `serde_json` and one binary buffer,
//! saved as `.gltf` + `.bin` or as one `.glb`.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// A document under construction and its buffer.
pub struct GltfBuild {
    /// The JSON (`buffers` is filled in when written).
    pub doc: Value,
    /// Buffer 0.
    pub bin: Vec<u8>,
}

impl Default for GltfBuild {
    fn default() -> Self {
        Self {
            doc: json!({
                "asset": {"version": "2.0"},
                "bufferViews": [], "accessors": [], "meshes": [], "nodes": [],
                "scenes": [{"nodes": []}], "scene": 0
            }),
            bin: Vec::new(),
        }
    }
}

impl GltfBuild {
    /// Appends `item` to the top-level array `key` (made if missing); returns its index.
    pub fn push(&mut self, key: &str, item: Value) -> usize {
        if self.doc[key].is_null() {
            self.doc[key] = json!([]);
        }
        let list = self.doc[key]
            .as_array_mut()
            .unwrap_or_else(|| panic!("{key} is not an array"));
        list.push(item);
        list.len() - 1
    }

    /// A buffer view over `bytes` (placed at a 4-byte boundary), with `byteStride` when given.
    pub fn view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(s) = stride {
            view["byteStride"] = json!(s);
        }
        self.bin.extend_from_slice(bytes);
        self.push("bufferViews", view)
    }

    /// Elements of `element` bytes each, every one padded to `stride` bytes: a strided view
    /// (vertex attributes must start on 4-byte boundaries).
    pub fn strided_view(&mut self, elements: &[Vec<u8>], stride: usize) -> usize {
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
    pub fn floats(&mut self, data: &[f32], ty: &str, bounds: bool) -> usize {
        let view = self.view(bytemuck::cast_slice(data), None);
        let dims = match ty {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            _ => 4,
        };
        let mut acc = json!({"bufferView": view, "componentType": 5126, "count": data.len() / dims, "type": ty});
        if bounds {
            let pick = |k: usize, f: fn(f32, f32) -> f32| {
                data.iter().skip(k).step_by(dims).copied().fold(data[k], f)
            };
            acc["min"] = json!((0..dims).map(|k| pick(k, f32::min)).collect::<Vec<_>>());
            acc["max"] = json!((0..dims).map(|k| pick(k, f32::max)).collect::<Vec<_>>());
        }
        self.push("accessors", acc)
    }

    /// A `u16` index accessor.
    pub fn indices(&mut self, indices: &[u16]) -> usize {
        let view = self.view(bytemuck::cast_slice(indices), None);
        self.push(
            "accessors",
            json!({"bufferView": view, "componentType": 5123, "count": indices.len(), "type": "SCALAR"}),
        )
    }

    /// A mesh of the given primitives with one node placing it (listed in scene 0); returns the
    /// mesh index.
    pub fn mesh(&mut self, name: &str, primitives: Value, node: Value) -> usize {
        let mesh = self.push("meshes", json!({"name": name, "primitives": primitives}));
        let mut node = node;
        node["mesh"] = json!(mesh);
        let n = self.push("nodes", node);
        if let Some(list) = self.doc["scenes"][0]["nodes"].as_array_mut() {
            list.push(json!(n));
        }
        mesh
    }

    fn finished(&self, uri: Option<String>) -> (Value, Vec<u8>) {
        let mut bin = self.bin.clone();
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        let mut doc = self.doc.clone();
        let mut buffer = json!({"byteLength": bin.len()});
        if let Some(uri) = uri {
            buffer["uri"] = json!(uri);
        }
        doc["buffers"] = json!([buffer]);
        (doc, bin)
    }

    /// Writes `dir/name.gltf` and `dir/name.bin`; returns the `.gltf` path.
    pub fn write_gltf(&self, dir: &Path, name: &str) -> PathBuf {
        let (doc, bin) = self.finished(Some(format!("{name}.bin")));
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, doc.to_string()).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join(format!("{name}.bin")), bin).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    /// Writes `dir/name.glb` (JSON chunk, then the binary chunk); returns its path.
    pub fn write_glb(&self, dir: &Path, name: &str) -> PathBuf {
        let (doc, bin) = self.finished(None);
        let mut json = doc.to_string().into_bytes();
        while json.len() % 4 != 0 {
            json.push(b' ');
        }
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        let path = dir.join(format!("{name}.glb"));
        std::fs::write(&path, out).unwrap_or_else(|e| panic!("{e}"));
        path
    }
}
