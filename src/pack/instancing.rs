//! EXT_mesh_gpu_instancing under quantised positions: a node that instances its mesh hands the
//! extension to its dequantising child with each instance rewritten, so the instance transforms
//! still apply next to the vertex, after the dequantisation.

use glam::Vec3;
use serde_json::{json, Value};

use super::quantize::PositionGrid;
use super::{PackErrorKind, Writer};
use crate::gltf::names::EXT_MESH_GPU_INSTANCING;
use crate::gltf::read::as_usize;

impl Writer<'_> {
    /// Node `n`'s EXT_mesh_gpu_instancing moves to its dequantising `child` (the instance
    /// transforms then apply after the dequantisation D, as they must, next to the vertex): each
    /// instance `I = T·R·S` becomes `D⁻¹·I·D`, which keeps R and S and translates by
    /// `(t + R·S·o − o) / s` for D = translate(o)·scale(s), so the child places every instance
    /// where the node did.
    pub(super) fn instances_to_child(
        &mut self,
        n: usize,
        child: usize,
        grid: &PositionGrid,
    ) -> Result<(), PackErrorKind> {
        let ext = self.out.json["nodes"][n]
            .get_mut("extensions")
            .and_then(Value::as_object_mut)
            .and_then(|e| e.remove(EXT_MESH_GPU_INSTANCING));
        let Some(mut ext) = ext.filter(|e| e["attributes"].is_object()) else {
            return Ok(());
        };
        if self.out.json["nodes"][n]["extensions"]
            .as_object()
            .is_some_and(serde_json::Map::is_empty)
        {
            if let Some(node) = self.out.json["nodes"][n].as_object_mut() {
                node.remove("extensions");
            }
        }
        // The source's accessors (the node's own, before `skins_and_animations` copied them).
        let source =
            &self.source.json["nodes"][n]["extensions"][EXT_MESH_GPU_INSTANCING]["attributes"];
        let read3 = |w: &Self, key: &str| -> Result<Option<Vec<Vec3>>, PackErrorKind> {
            match as_usize(&source[key]) {
                Some(a) => Ok(Some(
                    w.source_floats::<3>(a, None)?
                        .unwrap_or_default()
                        .into_iter()
                        .map(Vec3::from)
                        .collect(),
                )),
                None => Ok(None),
            }
        };
        let translations = read3(self, "TRANSLATION")?;
        let scales = read3(self, "SCALE")?;
        let rotations = match as_usize(&source["ROTATION"]) {
            Some(a) => Some(self.source_floats::<4>(a, None)?.unwrap_or_default()),
            None => None,
        };
        let count = [
            translations.as_ref().map(Vec::len),
            scales.as_ref().map(Vec::len),
            rotations.as_ref().map(Vec::len),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
        let moved: Vec<[f32; 3]> = (0..count)
            .map(|i| {
                let t = translations
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .copied()
                    .unwrap_or(Vec3::ZERO);
                let s = scales
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .copied()
                    .unwrap_or(Vec3::ONE);
                let r = rotations
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .map_or(glam::Quat::IDENTITY, |q| {
                        glam::Quat::from_array(*q).normalize()
                    });
                ((t + r * (s * grid.offset()) - grid.offset()) / grid.step()).to_array()
            })
            .collect();
        let a = self.out.floats(&moved, None);
        ext["attributes"]["TRANSLATION"] = json!(a);
        self.out.json["nodes"][child]["extensions"] = json!({ EXT_MESH_GPU_INSTANCING: ext });
        Ok(())
    }
}
