//! Attributes nothing reads leave the file, as gltfpack leaves them out: a UV set no texture of
//! the primitive's material (nor of a material a KHR_materials_variants mapping gives it), no
//! tangent-space map of its material and no object-space map of its own samples, and (set 0)
//! from which no reader derives tangents (a material with a normal map, anisotropy or a
//! tangent-space map reads them: three.js and Bevy derive an anisotropic material's tangents
//! from set 0 when the file stores none they read).
//! [`PackOptions::keep_attributes`](super::PackOptions::keep_attributes) keeps them.

use serde_json::Value;

use super::textures::uses_key;
use super::{PackOptions, Writer};
use crate::gltf::names::KHR_TEXTURE_TRANSFORM;
use crate::gltf::read::as_usize;
use crate::mesh::Primitive;
use crate::qmap::SceneMap;
use crate::{Warning, WarningKind};

/// UV sets a primitive may carry that the check covers (TEXCOORD_0 to TEXCOORD_7); later sets
/// are kept.
pub(super) const SETS: usize = 8;

/// The materials of source primitive `src`: its own, and those its KHR_materials_variants
/// mappings give it.
fn materials_of(src: &Value, loaded: &Primitive) -> Vec<usize> {
    let mut materials: Vec<usize> = loaded.material.into_iter().collect();
    let variants = src["extensions"]["KHR_materials_variants"]["mappings"].as_array();
    materials.extend(
        variants
            .into_iter()
            .flatten()
            .filter_map(|m| as_usize(&m["material"])),
    );
    materials
}

impl Writer<'_> {
    /// Whether each UV set (0 to 7) of source primitive `src` is read by something.
    pub(super) fn uv_sets_read(
        &self,
        src: &Value,
        loaded: &Primitive,
        object: Option<&SceneMap>,
        options: &PackOptions,
    ) -> Vec<bool> {
        if options.keep_attributes {
            return vec![true; SETS];
        }
        let materials = materials_of(src, loaded);
        let mut read: Vec<bool> = (0..SETS as u64)
            .map(|set| {
                let textured = materials
                    .iter()
                    .any(|&m| reads_set(&self.out.json["materials"][m], set));
                // A reader without stored tangents derives them from set 0's UVs (three.js'
                // and Bevy's anisotropy do, texture or not): a material that reads tangents
                // reads those UVs.
                let mapped = set == 0
                    && (materials.iter().any(|&m| self.reads_tangents(m)) || object.is_some());
                textured || mapped
            })
            .collect();
        // glTF numbers UV sets without gaps: a set below one that stays, stays.
        for set in (0..SETS - 1).rev() {
            read[set] |= read[set + 1];
        }
        read
    }

    /// Whether any material of source primitive `src` (its own, and those its
    /// KHR_materials_variants mappings give it) reads tangents ([`Writer::reads_tangents`]).
    pub(super) fn tangents_read(&self, src: &Value, loaded: &Primitive) -> bool {
        materials_of(src, loaded)
            .iter()
            .any(|&m| self.reads_tangents(m))
    }

    /// Whether material `m` reads tangents: a normal map, anisotropy, or a tangent-space
    /// quaternion map (in the file or made now).
    pub(super) fn reads_tangents(&self, m: usize) -> bool {
        let material = &self.out.json["materials"][m];
        uses_key(material, "normalTexture")
            || uses_key(material, "clearcoatNormalTexture")
            || material["extensions"]
                .get("KHR_materials_anisotropy")
                .is_some()
            || material["extensions"]
                .get(crate::gltf::names::QTANGENT_FRAMES)
                .is_some()
            || self.tangent_mapped.get(m).copied().unwrap_or(false)
    }

    /// Counts a primitive's attribute `name` dropped unread.
    pub(super) fn unread(&mut self, name: &str) {
        match self.unread.iter_mut().find(|(n, _)| n == name) {
            Some((_, count)) => *count += 1,
            None => self.unread.push((name.to_string(), 1)),
        }
    }

    /// One warning per attribute dropped unread, with the primitives it left.
    pub(super) fn warn_unread(&mut self) {
        for (attribute, primitives) in std::mem::take(&mut self.unread) {
            self.report.warnings.push(Warning::new(
                attribute.clone(),
                WarningKind::UnreadAttributeDropped { primitives },
            ));
        }
    }
}

/// A supplied tangent that turns by more than this when orthonormalised is counted (0.01°: far
/// below any format's bound, far above f32 rounding).
const TURN_COUNTED_DEGREES: f32 = 0.01;

impl Writer<'_> {
    /// Measures how far the written frames' tangents `p` turned from the tangents `loaded`
    /// supplied (at each written vertex's source vertex), for the one orthonormalisation
    /// warning of the file.
    pub(super) fn measure_tangent_repairs(
        &mut self,
        loaded: &Primitive,
        p: &crate::mesh::Prepared,
    ) {
        if p.stats.tangents != crate::mesh::Source::Supplied {
            return;
        }
        let Some(supplied) = loaded.tangents.as_ref() else {
            return;
        };
        for (f, &v) in p.frames.iter().zip(&p.source_vertex) {
            let Some(t) = supplied.get(v as usize).map(|t| t.truncate()) else {
                continue;
            };
            let t = t.normalize_or_zero();
            if t == glam::Vec3::ZERO {
                continue;
            }
            let degrees = t.dot(f.tangent).clamp(-1.0, 1.0).acos().to_degrees();
            if degrees > TURN_COUNTED_DEGREES {
                self.repaired_tangents.0 += 1;
                self.repaired_tangents.1 = self.repaired_tangents.1.max(degrees);
            }
        }
    }

    /// The orthonormalisation warning, when a tangent turned.
    pub(super) fn warn_tangent_repairs(&mut self) {
        let (count, largest_degrees) = self.repaired_tangents;
        if count > 0 {
            self.report.warnings.push(Warning::new(
                "supplied tangents".to_string(),
                WarningKind::TangentsOrthonormalised {
                    count,
                    largest_degrees,
                },
            ));
        }
    }
}

/// Whether a warning reports what makes a packed file draw differently from its source in
/// some reader (what [`PackOptions::strict`](super::PackOptions::strict) refuses): supplied tangents turned, a primitive or
/// a mesh dropped.
pub(super) fn changes_drawing(kind: &WarningKind) -> bool {
    matches!(
        kind,
        WarningKind::TangentsOrthonormalised { .. }
            | WarningKind::PrimitiveDropped
            | WarningKind::EmptyMeshRemoved
    )
}

/// The UV set a texture reference (its JSON object) reads: its KHR_texture_transform's
/// `texCoord` override, else its own `texCoord`, else 0.
pub(super) fn set_read(obj: &serde_json::Map<String, Value>) -> u64 {
    let own = obj.get("texCoord").and_then(Value::as_u64).unwrap_or(0);
    obj.get("extensions")
        .and_then(|e| e.get(KHR_TEXTURE_TRANSFORM))
        .and_then(|t| t.get("texCoord"))
        .and_then(Value::as_u64)
        .unwrap_or(own)
}

/// Whether a material (its JSON) has a texture reading UV set `set`.
pub(super) fn reads_set(v: &Value, set: u64) -> bool {
    match v {
        Value::Object(obj) if obj.contains_key("index") => set_read(obj) == set,
        Value::Object(obj) => obj.values().any(|c| reads_set(c, set)),
        Value::Array(list) => list.iter().any(|c| reads_set(c, set)),
        _ => false,
    }
}
