//! A typed glTF writer for tests, over the library's [`Builder`]: meshes with any of POSITION, NORMAL, TANGENT, TEXCOORD_0,
//! JOINTS_0 and WEIGHTS_0, nodes with TRS transforms, skins, and materials with a normal map
//! written as a PNG next to the file. Written to be valid (the validator test checks it is):
//! POSITION `min`/`max`, 4-byte aligned views with their targets.

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use qtangent::gltf::{AccessorLayout, AccessorType, Builder, ComponentType, Target};
use qtangent::lab::gltf_json::BufferUri;
use serde_json::{json, Value};

/// One primitive's attributes (f32, JOINTS_0 as u16) and u32 indices.
#[derive(Debug, Clone, Default)]
pub(crate) struct GltfPrimitive {
    /// POSITION.
    pub(crate) positions: Vec<Vec3>,
    /// NORMAL.
    pub(crate) normals: Option<Vec<Vec3>>,
    /// TANGENT (w = ±1).
    pub(crate) tangents: Option<Vec<Vec4>>,
    /// TEXCOORD_0.
    pub(crate) uvs: Option<Vec<Vec2>>,
    /// JOINTS_0.
    pub(crate) joints: Option<Vec<[u16; 4]>>,
    /// WEIGHTS_0.
    pub(crate) weights: Option<Vec<[f32; 4]>>,
    /// Triangle list.
    pub(crate) indices: Vec<u32>,
    /// Index into [`GltfFile::normal_maps`] (one material per normal map).
    pub(crate) material: Option<usize>,
}

impl GltfPrimitive {
    /// A prepared primitive's vertices, with its frames as NORMAL and TANGENT (w the
    /// handedness), so loading the file gives back the same frames.
    pub(crate) fn from_prepared(p: &qtangent::mesh::Prepared) -> Self {
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
    pub(crate) fn with_material(self, index: usize) -> Self {
        Self {
            material: Some(index),
            ..self
        }
    }
}

/// A node: a TRS transform, a mesh and a skin, children.
#[derive(Debug, Clone)]
pub(crate) struct GltfNode {
    /// Index into [`GltfFile::meshes`].
    pub(crate) mesh: Option<usize>,
    /// Index into [`GltfFile::skins`].
    pub(crate) skin: Option<usize>,
    /// Translation.
    pub(crate) translation: Vec3,
    /// Rotation.
    pub(crate) rotation: Quat,
    /// Scale.
    pub(crate) scale: Vec3,
    /// Child nodes.
    pub(crate) children: Vec<usize>,
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
pub(crate) struct GltfSkin {
    /// Node of each joint.
    pub(crate) joints: Vec<usize>,
    /// One per joint.
    pub(crate) inverse_bind: Vec<Mat4>,
}

/// A whole file.
#[derive(Debug, Clone, Default)]
pub(crate) struct GltfFile {
    /// Meshes, each a list of primitives.
    pub(crate) meshes: Vec<Vec<GltfPrimitive>>,
    /// Nodes; the scene holds every node that is no other node's child.
    pub(crate) nodes: Vec<GltfNode>,
    /// Skins.
    pub(crate) skins: Vec<GltfSkin>,
    /// Material `i` has normal map `i`, written as `NAME-normal-i.png` next to the file.
    pub(crate) normal_maps: Vec<image::RgbaImage>,
}

impl GltfFile {
    /// One mesh of one primitive, drawn by one node at the origin.
    pub(crate) fn single(primitive: GltfPrimitive) -> Self {
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
    pub(crate) fn with_normal_map(mut self, map: image::RgbaImage) -> Self {
        self.normal_maps.push(map);
        self
    }

    /// Writes `NAME.gltf`, `NAME.bin` and the normal maps into `dir`; returns the glTF's path.
    pub(crate) fn write(&self, dir: &Path, name: &str) -> PathBuf {
        self.write_with(dir, name, |_| {})
    }

    /// As [`GltfFile::write`], letting `edit` change the JSON first (to break it on purpose).
    pub(crate) fn write_with(
        &self,
        dir: &Path,
        name: &str,
        edit: impl FnOnce(&mut Value),
    ) -> PathBuf {
        let mut b = Builder::default();
        b.json["asset"]["generator"] = json!("qtangent tests");
        let meshes: Vec<Value> = self
            .meshes
            .iter()
            .enumerate()
            .map(|(m, prims)| {
                let out: Vec<Value> = prims.iter().map(|p| primitive(&mut b, p)).collect();
                json!({"name": format!("mesh{m}"), "primitives": out})
            })
            .collect();
        let skins: Vec<Value> = self
            .skins
            .iter()
            .map(|s| {
                let m: Vec<[f32; 16]> = s.inverse_bind.iter().map(Mat4::to_cols_array).collect();
                json!({"joints": s.joints, "inverseBindMatrices": b.floats(&m, None)})
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
        let doc = &mut b.json;
        doc["scene"] = json!(0);
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
        // The edit sees the whole file, buffer included.
        let bin = format!("{name}.bin");
        let mut doc = b.to_gltf(BufferUri::File(&bin));
        edit(&mut doc);
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(dir.join(&bin), b.bin())
            .unwrap_or_else(|e| panic!("cannot write {bin}: {e}"));
        std::fs::write(&path, doc.to_string())
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }
}

/// One primitive's accessors (f32 attributes, JOINTS_0 as u16, u32 indices) and JSON.
fn primitive(b: &mut Builder, p: &GltfPrimitive) -> Value {
    let vertex = Some(Target::ArrayBuffer);
    let positions: Vec<[f32; 3]> = p.positions.iter().map(|v| v.to_array()).collect();
    let mut attributes = json!({"POSITION": b.positions(&positions)});
    let layout = |component, kind| AccessorLayout {
        component,
        kind,
        normalized: false,
    };
    let float = |kind| layout(ComponentType::Float, kind);
    let optional: [(&str, Option<&[u8]>, AccessorLayout); 5] = [
        ("NORMAL", raw(&p.normals), float(AccessorType::Vec3)),
        ("TANGENT", raw(&p.tangents), float(AccessorType::Vec4)),
        ("TEXCOORD_0", raw(&p.uvs), float(AccessorType::Vec2)),
        (
            "JOINTS_0",
            raw(&p.joints),
            layout(ComponentType::UnsignedShort, AccessorType::Vec4),
        ),
        ("WEIGHTS_0", raw(&p.weights), float(AccessorType::Vec4)),
    ];
    for (name, bytes, layout) in optional {
        if let Some(bytes) = bytes {
            attributes[name] = json!(b.accessor(bytes, layout, vertex));
        }
    }
    let indices = b.accessor(
        bytemuck::cast_slice(&p.indices),
        layout(ComponentType::UnsignedInt, AccessorType::Scalar),
        Some(Target::ElementArrayBuffer),
    );
    let mut prim = json!({"attributes": attributes, "indices": indices});
    if let Some(material) = p.material {
        prim["material"] = json!(material);
    }
    prim
}

/// An optional attribute's bytes.
fn raw<T: bytemuck::Pod>(v: &Option<Vec<T>>) -> Option<&[u8]> {
    v.as_deref().map(bytemuck::cast_slice)
}

/// A tangent-space normal map of `size`² texels: bumps in a grid, RGB = (n + 1)/2, the way glTF
/// stores them (+Y up in the image).
pub(crate) fn bumpy_normal_map(size: u32) -> image::RgbaImage {
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
