//! Primitives written without frames: where a glTF source has no NORMAL and nothing reads a
//! tangent, glTF asks every reader for flat normals made from the positions, and that is what
//! three.js (`flatShading`, from the posed triangle), Bevy (`compute_flat_normals`) and
//! qtangent's own loader do with the source. Stored frames would be per-corner facets a skinned
//! pose turns apart from the posed triangle (three.js drew the packed Fox at 44 dB against its
//! source, gltfpack's frameless Fox at 55 dB: `cargo xtask gltfpack-table`), and the corners
//! that share a position, UV and skin could not be welded (the Fox: 1728 corners, 434
//! vertices). So such a primitive is written as the source is: no `_QTANGENT`, its identical
//! corners welded, and read by the engines' own loaders (f32 positions; UVs Bevy's loader
//! reads, [`Writer::uv_attribute`]). [`PackOptions::flat_frames`] keeps the frames.

use std::collections::HashMap;

use serde_json::Value;

use super::{PackErrorKind, PackOptions, Writer};
use crate::gltf::names::QTANGENT_ATTRIBUTE;
use crate::gltf::read::as_usize;
use crate::mesh::{Prepared, Primitive};
use crate::qmap::SceneMap;

/// Attributes [`Writer::weld`] keys from the prepared primitive rather than the source.
const PREPARED: [&str; 4] = ["POSITION", "NORMAL", "TANGENT", "TEXCOORD_0"];

impl Writer<'_> {
    /// Whether primitive `src` (loaded as `loaded`, `morphing` or not, with the object map
    /// `object`) is written without frames: see the module docs.
    pub(super) fn frameless(
        &self,
        src: &Value,
        loaded: &Primitive,
        object: Option<&SceneMap>,
        options: &PackOptions,
        morphing: bool,
    ) -> bool {
        let has = |name: &str| src["attributes"].get(name).is_some();
        // `flat_normals`: the loader shades it flat (glTF without NORMAL; an OBJ without `vn`
        // is shaded smooth, which a reader of the packed file would not do).
        // A file qtangent wrote stores its frames as `_QTANGENT`, without NORMAL: they stay.
        loaded.flat_normals
            && loaded.normals.is_none()
            && loaded.qtangents.is_none()
            && !has(QTANGENT_ATTRIBUTE)
            && !options.flat_frames
            && !options.keep_normals
            && !morphing
            && object.is_none()
            && !has("NORMAL")
            && !has("TANGENT")
            && !self.tangents_read(src, loaded)
    }

    /// `p` with its corners that agree in every attribute written (position, UV set 0, skin,
    /// and the source's other attributes) merged into one vertex, in first-use order.
    pub(super) fn weld(&mut self, src: &Value, p: &Prepared) -> Result<Prepared, PackErrorKind> {
        let mut others = Vec::new();
        for (name, a) in src["attributes"].as_object().into_iter().flatten() {
            let skin = name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_");
            if let Some(a) = as_usize(a).filter(|_| !skin && !PREPARED.contains(&name.as_str())) {
                let (acc, raw) = self.source.accessor(a)?;
                others.push((acc.layout.element_bytes(), raw));
            }
        }
        let key = |v: usize| -> Vec<u8> {
            let mut k = Vec::with_capacity(64);
            k.extend(
                p.positions[v]
                    .to_array()
                    .iter()
                    .flat_map(|x| x.to_bits().to_le_bytes()),
            );
            if let Some(uv) = p.uvs.get(v) {
                k.extend(uv.to_array().iter().flat_map(|x| x.to_bits().to_le_bytes()));
            }
            for set in &p.joints {
                k.extend(set[v].iter().flat_map(|j| j.to_le_bytes()));
            }
            for set in &p.weights {
                k.extend(set[v].iter().flat_map(|w| w.to_bits().to_le_bytes()));
            }
            let s = p.source_vertex[v] as usize;
            for (element, raw) in &others {
                k.extend_from_slice(raw.get(s * element..(s + 1) * element).unwrap_or_default());
            }
            k
        };
        let mut first: HashMap<Vec<u8>, u32> = HashMap::new();
        let mut kept: Vec<usize> = Vec::new();
        let mut remap = vec![0u32; p.positions.len()];
        for (v, slot) in remap.iter_mut().enumerate() {
            *slot = *first.entry(key(v)).or_insert_with(|| {
                kept.push(v);
                (kept.len() - 1) as u32
            });
        }
        fn pick<T: Copy>(kept: &[usize], list: &[T]) -> Vec<T> {
            kept.iter().map(|&v| list[v]).collect()
        }
        let kept = &kept[..];
        Ok(Prepared {
            label: p.label.clone(),
            positions: pick(kept, &p.positions),
            uvs: if p.uvs.len() == p.positions.len() {
                pick(kept, &p.uvs)
            } else {
                p.uvs.clone()
            },
            frames: pick(kept, &p.frames),
            indices: p.indices.iter().map(|&i| remap[i as usize]).collect(),
            source_vertex: pick(kept, &p.source_vertex),
            joints: p.joints.iter().map(|s| pick(kept, s)).collect(),
            weights: p.weights.iter().map(|s| pick(kept, s)).collect(),
            stats: p.stats,
        })
    }
}
