//! Morph targets, kept. glTF morphs a vertex attribute by adding weighted deltas to it, and a
//! target's NORMAL and TANGENT deltas need a NORMAL and TANGENT in the primitive to add to (the
//! validator's MESH_PRIMITIVE_MORPH_TARGET_NO_BASE_ACCESSOR). A quaternion does not morph by
//! addition in any reader, so a primitive with morph targets stores its frames as every reader
//! morphs them: NORMAL, and TANGENT where a material reads tangents, in place of `_QTANGENT`,
//! and its targets' deltas copied through the vertex splits and the GPU order. Such a primitive
//! is read by the engines' own loaders, which take morphing data as f32 (Bevy's, through the
//! gltf crate, panics on quantised targets), so its positions are the grid's indices as f32 (the
//! mesh's dequantising node scales every primitive), its NORMAL and TANGENT f32, its position
//! deltas f32 in grid units, NORMAL and TANGENT deltas f32, UV deltas of TEXCOORD_0 f32 in the
//! material's UV grid units; other deltas (COLOR_n, TEXCOORD_n for n > 0) byte for byte as the
//! source stores them. A target's TANGENT deltas leave with the TANGENT nothing reads. `mesh.weights`, node `weights`
//! and the `weights` animation channels stay (moved with the mesh to its dequantising node).

use glam::Vec3;
use serde_json::{json, Map, Value};

use super::{PackErrorKind, Writer};
use crate::gltf::read::as_usize;
use crate::gltf::Target;
use crate::mesh::Prepared;
use crate::{Warning, WarningKind};

impl Writer<'_> {
    /// The morph targets of source primitive `src` for the written primitive `p` (whose
    /// `source_vertex` maps each written vertex to the source's) with the attributes `base`;
    /// `None` when it has none.
    ///
    /// # Errors
    /// A target's accessor cannot be read, or holds fewer elements than the primitive's
    /// vertices.
    pub(super) fn morph_targets(
        &mut self,
        src: &Value,
        material: Option<usize>,
        p: &Prepared,
        base: &Map<String, Value>,
    ) -> Result<Option<Value>, PackErrorKind> {
        let Some(targets) = src["targets"].as_array() else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(targets.len());
        for target in targets {
            let mut attrs = Map::new();
            for (name, a) in target.as_object().into_iter().flatten() {
                // A delta whose base attribute was not written (an unread UV set) goes with it.
                let Some(a) = as_usize(a).filter(|_| base.contains_key(name)) else {
                    continue;
                };
                let index = match name.as_str() {
                    "POSITION" => self.position_deltas(a, p)?,
                    "TEXCOORD_0" => self.uv_deltas(a, material, p)?,
                    "NORMAL" | "TANGENT" => self.direction_deltas(a, p, name)?,
                    _ => self.through_splits(a, p, name)?,
                };
                attrs.insert(name.clone(), json!(index));
            }
            if attrs.is_empty() {
                // Every delta of this target left with its attribute; glTF wants a target to
                // hold one at least (and every primitive of the mesh the same number): zero
                // position deltas.
                let zeros = vec![[0.0f32; 3]; p.source_vertex.len()];
                attrs.insert("POSITION".into(), json!(self.out.positions(&zeros)));
            }
            out.push(Value::Object(attrs));
        }
        Ok(Some(Value::Array(out)))
    }

    /// POSITION deltas in the position grid's units, f32, with the min and max glTF asks of a
    /// POSITION accessor.
    fn position_deltas(&mut self, a: usize, p: &Prepared) -> Result<usize, PackErrorKind> {
        let deltas = self.source_vertex_floats::<3>(a, p, "POSITION")?;
        let step = self.position_grid.map_or(1.0, |g| g.step());
        let deltas: Vec<[f32; 3]> = deltas
            .into_iter()
            .map(|d| (Vec3::from(d) / step).to_array())
            .collect();
        Ok(self.out.positions(&deltas))
    }

    /// TEXCOORD_0 deltas in the units of the material's stored UVs (the grid's transform scales
    /// the morphed UV; UVs stored as themselves: UV units), f32.
    fn uv_deltas(
        &mut self,
        a: usize,
        material: Option<usize>,
        p: &Prepared,
    ) -> Result<usize, PackErrorKind> {
        let deltas = self.source_vertex_floats::<2>(a, p, "TEXCOORD_0")?;
        let scale = self.uv_grid(material).map_or([1.0; 2], |g| g.scale());
        // The loader applied the material's transform to the base UVs: its linear part turns
        // and scales the deltas alike.
        let transform = material.and_then(|m| self.uv_transforms.get(m).copied().flatten());
        let deltas: Vec<[f32; 2]> = deltas
            .into_iter()
            .map(|d| {
                let d = glam::Vec2::from(d);
                let d = transform.map_or(d, |t| t.apply(d) - t.apply(glam::Vec2::ZERO));
                [d.x / scale[0], d.y / scale[1]]
            })
            .collect();
        Ok(self.out.floats(&deltas, Some(Target::ArrayBuffer)))
    }

    /// NORMAL or TANGENT deltas (VEC3), f32.
    fn direction_deltas(
        &mut self,
        a: usize,
        p: &Prepared,
        name: &str,
    ) -> Result<usize, PackErrorKind> {
        let deltas = self.source_vertex_floats::<3>(a, p, name)?;
        Ok(self.out.floats(&deltas, Some(Target::ArrayBuffer)))
    }

    /// Source accessor `a` as f32 at each written vertex's source vertex.
    fn source_vertex_floats<const N: usize>(
        &self,
        a: usize,
        p: &Prepared,
        name: &str,
    ) -> Result<Vec<[f32; N]>, PackErrorKind> {
        let error = |error| PackErrorKind::Accessor { accessor: a, error };
        let reader = self.source.reader();
        let acc = reader.accessor(a).map_err(error)?;
        let values = reader.floats::<N>(&acc).map_err(error)?;
        p.source_vertex
            .iter()
            .map(|&v| {
                values
                    .get(v as usize)
                    .copied()
                    .ok_or_else(|| PackErrorKind::ShortAttribute {
                        primitive: p.label.clone(),
                        attribute: format!("morph target {name}"),
                    })
            })
            .collect()
    }

    /// Source accessor `a` (attribute `name`) copied byte for byte through the vertex splits
    /// and the GPU order: each written vertex takes its source vertex's element.
    ///
    /// # Errors
    /// The accessor cannot be read, or is shorter than the source's vertices.
    pub(super) fn through_splits(
        &mut self,
        a: usize,
        p: &Prepared,
        name: &str,
    ) -> Result<usize, PackErrorKind> {
        let (acc, raw) = self.source.accessor(a)?;
        let element = acc.layout.element_bytes();
        let mut data = Vec::with_capacity(p.source_vertex.len() * element);
        for &v in &p.source_vertex {
            let start = v as usize * element;
            let bytes =
                raw.get(start..start + element)
                    .ok_or_else(|| PackErrorKind::ShortAttribute {
                        primitive: p.label.clone(),
                        attribute: name.to_string(),
                    })?;
            data.extend_from_slice(bytes);
        }
        Ok(self
            .out
            .accessor(&data, acc.layout, Some(Target::ArrayBuffer)))
    }

    /// NORMAL (and TANGENT, when `tangents_read`: a material of the primitive has a normal map,
    /// anisotropy or a tangent-space map) of a morphing primitive's prepared frames, f32.
    pub(super) fn morph_base_frames(
        &mut self,
        p: &Prepared,
        tangents_read: bool,
        attrs: &mut Map<String, Value>,
    ) {
        let vertex = Some(Target::ArrayBuffer);
        let (normals, tangents) = normals_and_tangents(p);
        attrs.insert("NORMAL".into(), json!(self.out.floats(&normals, vertex)));
        if tangents_read {
            attrs.insert("TANGENT".into(), json!(self.out.floats(&tangents, vertex)));
        }
    }

    /// Meshes left without primitives (glTF needs at least one) leave the file, and the nodes
    /// that placed them lose their `mesh` (and `skin` and `weights`, which need one).
    pub(super) fn drop_empty_meshes(&mut self) {
        let Some(meshes) = self.out.json["meshes"].as_array().cloned() else {
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
                self.report.warnings.push(Warning::new(
                    format!("mesh '{}'", m["name"].as_str().unwrap_or("unnamed")),
                    WarningKind::EmptyMeshRemoved,
                ));
            } else {
                new_index.push(Some(kept.len()));
                kept.push(m);
            }
        }
        self.out.json["meshes"] = Value::Array(kept);
        let mut emptied = Vec::new();
        let nodes = self.out.json.get_mut("nodes").and_then(Value::as_array_mut);
        for (n, node) in nodes.into_iter().flatten().enumerate() {
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
                    emptied.push(n);
                }
            }
        }
        self.drop_weights_channels(&emptied);
    }

    /// `weights` channels aimed at `nodes` (which lost their mesh) leave, and animations left
    /// without a channel with them (glTF asks one at least).
    pub(super) fn drop_weights_channels(&mut self, nodes: &[usize]) {
        if nodes.is_empty() {
            return;
        }
        let Some(animations) = self
            .out
            .json
            .get_mut("animations")
            .and_then(Value::as_array_mut)
        else {
            return;
        };
        for a in animations.iter_mut() {
            if let Some(channels) = a.get_mut("channels").and_then(Value::as_array_mut) {
                channels.retain(|c| {
                    let node = as_usize(&c["target"]["node"]);
                    !(c["target"]["path"] == "weights" && node.is_some_and(|n| nodes.contains(&n)))
                });
            }
        }
        animations.retain(|a| a["channels"].as_array().is_some_and(|c| !c.is_empty()));
    }

    /// Node `weights` and `weights` animation channels move from each node in `moved` (old
    /// node, its dequantising child) to the child, which now holds the mesh.
    pub(super) fn retarget_weights(&mut self, moved: &[(usize, usize)]) {
        for &(node, child) in moved {
            let weights = self.out.json["nodes"][node]
                .as_object_mut()
                .and_then(|n| n.remove("weights"));
            if let Some(w) = weights {
                self.out.json["nodes"][child]["weights"] = w;
            }
        }
        let animations = self
            .out
            .json
            .get_mut("animations")
            .and_then(Value::as_array_mut);
        for channel in animations
            .into_iter()
            .flatten()
            .filter_map(|a| a.get_mut("channels").and_then(Value::as_array_mut))
            .flatten()
        {
            let Some(target) = channel.get_mut("target").filter(|t| t.is_object()) else {
                continue;
            };
            // KHR_animation_pointer names the node in a JSON pointer.
            let pointer = target
                .get_mut("extensions")
                .and_then(|e| e.get_mut("KHR_animation_pointer"))
                .and_then(|p| p.get_mut("pointer"));
            if let Some(pointer) = pointer {
                let moved_to = pointer.as_str().and_then(|text| {
                    moved.iter().find_map(|&(n, child)| {
                        (text == format!("/nodes/{n}/weights"))
                            .then(|| format!("/nodes/{child}/weights"))
                    })
                });
                if let Some(moved_to) = moved_to {
                    *pointer = json!(moved_to);
                }
                continue;
            }
            if target["path"] != "weights" {
                continue;
            }
            let Some(node) = as_usize(&target["node"]) else {
                continue;
            };
            if let Some(&(_, child)) = moved.iter().find(|(n, _)| *n == node) {
                target["node"] = json!(child);
            }
        }
    }
}

/// The glTF NORMAL and TANGENT (xyz and handedness) of `p`'s frames.
pub(super) fn normals_and_tangents(p: &Prepared) -> (Vec<[f32; 3]>, Vec<[f32; 4]>) {
    let normals = p.frames.iter().map(|f| f.normal.to_array()).collect();
    let tangents = p
        .frames
        .iter()
        .map(|f| f.tangent.extend(f.handedness()).to_array())
        .collect();
    (normals, tangents)
}
