//! A typed glTF writer for tests, over [`GltfBuild`]: meshes with any of POSITION, NORMAL, TANGENT, TEXCOORD_0,
//! JOINTS_0 and WEIGHTS_0, nodes with TRS transforms, skins, and materials with a normal map
//! written as a PNG next to the file. Written to be valid (the validator test checks it is):
//! POSITION `min`/`max`, 4-byte aligned views with their targets.

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use serde_json::{json, Value};

use super::gltf_build::GltfBuild;

/// One primitive's attributes (f32, JOINTS_0 as u16) and u32 indices.
#[derive(Debug, Clone, Default)]
pub struct GltfPrimitive {
    /// POSITION.
    pub positions: Vec<Vec3>,
    /// NORMAL.
    pub normals: Option<Vec<Vec3>>,
    /// TANGENT (w = ±1).
    pub tangents: Option<Vec<Vec4>>,
    /// TEXCOORD_0.
    pub uvs: Option<Vec<Vec2>>,
    /// JOINTS_0.
    pub joints: Option<Vec<[u16; 4]>>,
    /// WEIGHTS_0.
    pub weights: Option<Vec<[f32; 4]>>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Index into [`GltfFile::normal_maps`] (one material per normal map).
    pub material: Option<usize>,
}

impl GltfPrimitive {
    /// A prepared primitive's vertices, with its frames as NORMAL and TANGENT (w the
    /// handedness), so loading the file gives back the same frames.
    pub fn from_prepared(p: &qtangent::mesh::Prepared) -> Self {
        let skin = |i: usize| {
            p.joints
                .first()
                .zip(p.weights.first())
                .map(|(j, w)| (j[i], w[i]))
        };
        let has_skin = skin(0).is_some();
        Self {
            positions: p.positions.clone(),
            normals: Some(p.frames.iter().map(|f| f.normal).collect()),
            tangents: Some(
                p.frames
                    .iter()
                    .map(|f| f.tangent.extend(f.handedness()))
                    .collect(),
            ),
            uvs: Some(p.uvs.clone()),
            joints: has_skin.then(|| p.joints[0].clone()),
            weights: has_skin.then(|| p.weights[0].clone()),
            indices: p.indices.clone(),
            material: None,
        }
    }
}

impl GltfPrimitive {
    /// The same primitive using material `index`.
    pub fn with_material(self, index: usize) -> Self {
        Self {
            material: Some(index),
            ..self
        }
    }
}

/// A node: a TRS transform, a mesh and a skin, children.
#[derive(Debug, Clone)]
pub struct GltfNode {
    /// Index into [`GltfFile::meshes`].
    pub mesh: Option<usize>,
    /// Index into [`GltfFile::skins`].
    pub skin: Option<usize>,
    /// Translation.
    pub translation: Vec3,
    /// Rotation.
    pub rotation: Quat,
    /// Scale.
    pub scale: Vec3,
    /// Child nodes.
    pub children: Vec<usize>,
}

impl Default for GltfNode {
    fn default() -> Self {
        Self {
            mesh: None,
            skin: None,
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
            children: Vec::new(),
        }
    }
}

/// A skin: joint nodes and their inverse bind matrices.
#[derive(Debug, Clone, Default)]
pub struct GltfSkin {
    /// Node of each joint.
    pub joints: Vec<usize>,
    /// One per joint.
    pub inverse_bind: Vec<Mat4>,
}

/// A whole file.
#[derive(Debug, Clone, Default)]
pub struct GltfFile {
    /// Meshes, each a list of primitives.
    pub meshes: Vec<Vec<GltfPrimitive>>,
    /// Nodes; the scene holds every node that is no other node's child.
    pub nodes: Vec<GltfNode>,
    /// Skins.
    pub skins: Vec<GltfSkin>,
    /// Material `i` has normal map `i`, written as `NAME-normal-i.png` next to the file.
    pub normal_maps: Vec<image::RgbaImage>,
}

impl GltfFile {
    /// One mesh of one primitive, drawn by one node at the origin.
    pub fn single(primitive: GltfPrimitive) -> Self {
        Self {
            meshes: vec![vec![primitive]],
            nodes: vec![GltfNode {
                mesh: Some(0),
                ..GltfNode::default()
            }],
            ..Self::default()
        }
    }

    /// The same file with one more material, whose normal map is `map`.
    pub fn with_normal_map(mut self, map: image::RgbaImage) -> Self {
        self.normal_maps.push(map);
        self
    }

    /// Writes `NAME.gltf`, `NAME.bin` and the normal maps into `dir`; returns the glTF's path.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        self.write_with(dir, name, |_| {})
    }

    /// As [`GltfFile::write`], letting `edit` change the JSON first (to break it on purpose).
    pub fn write_with(&self, dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
        let mut blob = GltfBuild::default();
        const FLOAT: u32 = 5126;
        const ARRAY: Option<u32> = Some(34962);
        let mut meshes = Vec::new();
        for (m, prims) in self.meshes.iter().enumerate() {
            let mut out = Vec::new();
            for p in prims {
                let n = p.positions.len();
                let pos = add(
                    &mut blob,
                    bytemuck::cast_slice(&p.positions),
                    n,
                    "VEC3",
                    FLOAT,
                    ARRAY,
                );
                let (lo, hi) = p.positions.iter().fold(
                    (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
                    |(lo, hi), &v| (lo.min(v), hi.max(v)),
                );
                blob.doc["accessors"][pos]["min"] = json!(lo.to_array());
                blob.doc["accessors"][pos]["max"] = json!(hi.to_array());
                let mut attributes = json!({"POSITION": pos});
                let optional: [(&str, Option<&[u8]>, &str, u32); 5] = [
                    ("NORMAL", raw(&p.normals), "VEC3", FLOAT),
                    ("TANGENT", raw(&p.tangents), "VEC4", FLOAT),
                    ("TEXCOORD_0", raw(&p.uvs), "VEC2", FLOAT),
                    ("JOINTS_0", raw(&p.joints), "VEC4", 5123),
                    ("WEIGHTS_0", raw(&p.weights), "VEC4", FLOAT),
                ];
                for (name, bytes, kind, component) in optional {
                    if let Some(bytes) = bytes {
                        attributes[name] = json!(add(&mut blob, bytes, n, kind, component, ARRAY));
                    }
                }
                let indices = add(
                    &mut blob,
                    bytemuck::cast_slice(&p.indices),
                    p.indices.len(),
                    "SCALAR",
                    5125,
                    Some(34963),
                );
                let mut prim = json!({"attributes": attributes, "indices": indices});
                if let Some(material) = p.material {
                    prim["material"] = json!(material);
                }
                out.push(prim);
            }
            meshes.push(json!({"name": format!("mesh{m}"), "primitives": out}));
        }
        let skins: Vec<Value> = self
            .skins
            .iter()
            .map(|s| {
                let m: Vec<[f32; 16]> = s.inverse_bind.iter().map(Mat4::to_cols_array).collect();
                let ibm = add(
                    &mut blob,
                    bytemuck::cast_slice(&m),
                    m.len(),
                    "MAT4",
                    FLOAT,
                    None,
                );
                json!({"joints": s.joints, "inverseBindMatrices": ibm})
            })
            .collect();
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|n| {
                let mut node = json!({
                    "translation": n.translation.to_array(),
                    "rotation": n.rotation.to_array(),
                    "scale": n.scale.to_array(),
                });
                if let Some(mesh) = n.mesh {
                    node["mesh"] = json!(mesh);
                }
                if let Some(skin) = n.skin {
                    node["skin"] = json!(skin);
                }
                if !n.children.is_empty() {
                    node["children"] = json!(n.children);
                }
                node
            })
            .collect();
        let roots: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| !self.nodes.iter().any(|n| n.children.contains(&i)))
            .collect();
        let doc = &mut blob.doc;
        doc["asset"] = json!({"version": "2.0", "generator": "qtangent tests"});
        doc["scenes"] = json!([{"nodes": roots}]);
        doc["nodes"] = json!(nodes);
        doc["meshes"] = json!(meshes);
        if !self.skins.is_empty() {
            doc["skins"] = json!(skins);
        }
        if !self.normal_maps.is_empty() {
            let count = self.normal_maps.len();
            doc["materials"] = (0..count)
                .map(|i| json!({"name": format!("material{i}"), "normalTexture": {"index": i}}))
                .collect();
            doc["textures"] = (0..count)
                .map(|i| json!({"source": i, "sampler": 0}))
                .collect();
            doc["images"] = (0..count)
                .map(|i| json!({"uri": format!("{name}-normal-{i}.png")}))
                .collect();
            doc["samplers"] = json!([{}]);
            for (i, map) in self.normal_maps.iter().enumerate() {
                let path = dir.join(format!("{name}-normal-{i}.png"));
                map.save(&path)
                    .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            }
        }
        // GltfBuild adds the buffer on writing; the edit sees the whole file.
        let path = blob.write_gltf(dir, name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        edit(&mut doc);
        std::fs::write(&path, doc.to_string())
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }
}

/// An optional attribute's bytes.
fn raw<T: bytemuck::Pod>(v: &Option<Vec<T>>) -> Option<&[u8]> {
    v.as_deref().map(bytemuck::cast_slice)
}

/// Appends `bytes` as a view with `target` and an accessor over it; returns the accessor.
fn add(
    blob: &mut GltfBuild,
    bytes: &[u8],
    count: usize,
    kind: &str,
    component: u32,
    target: Option<u32>,
) -> usize {
    let view = blob.view(bytes, None);
    if let Some(t) = target {
        blob.doc["bufferViews"][view]["target"] = json!(t);
    }
    blob.push(
        "accessors",
        json!({"bufferView": view, "componentType": component, "count": count, "type": kind}),
    )
}

/// A tangent-space normal map of `size`² texels: bumps in a grid, RGB = (n + 1)/2, the way glTF
/// stores them (+Y up in the image).
pub fn bumpy_normal_map(size: u32) -> image::RgbaImage {
    image::RgbaImage::from_fn(size, size, |x, y| {
        let (u, v) = (
            (x as f32 + 0.5) / size as f32 * std::f32::consts::TAU * 2.0,
            (y as f32 + 0.5) / size as f32 * std::f32::consts::TAU * 2.0,
        );
        let n = Vec3::new(0.4 * u.cos(), 0.4 * v.sin(), 1.0).normalize();
        let byte = |c: f32| ((c * 0.5 + 0.5) * 255.0).round() as u8;
        image::Rgba([byte(n.x), byte(n.y), byte(n.z), 255])
    })
}
