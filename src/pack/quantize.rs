//! Quantised vertex data, as gltfpack writes it (KHR_mesh_quantization):
//!
//! - **Positions** on one grid for the whole file: `bits` per axis over the longest side of the
//!   box of every position written, as unsigned 16-bit integers. One grid keeps the seams
//!   between meshes closed and lets one transform dequantise everything: each node that places
//!   a mesh gets a child node holding the mesh and the grid's translation and uniform scale (a
//!   uniform scale turns no normal), and each skin's inverse bind matrices are multiplied by it
//!   (glTF ignores a skinned mesh's node). A coordinate moves at most half a step,
//!   `extent / (2ᵇ − 1) / 2`.
//! - **UVs** on a grid per material: `bits` per axis over the box of the UVs of every primitive
//!   using the material, as unsigned normalised 16-bit integers holding the grid index, and a
//!   KHR_texture_transform (offset and scale) on every texture of the material that reads UV
//!   set 0. UVs stay f32 where qtangent's loader would not undo the grid ([`uv_grids`]).
//! - **Weights** as unsigned normalised bytes, a vertex's sets together summing to exactly 255
//!   (core glTF).
//! - **Rotations** of animations as normalised 16-bit integers, but for cubic splines (core
//!   glTF).
//!
//! `PackReport::position_error` and `PackReport::uv_error` are the largest distances measured
//! between a value and its dequantised copy.

use glam::{Mat4, Vec2, Vec3};
use serde_json::{json, Value};

use super::unread::{reads_set, set_read};
use super::{PackErrorKind, Writer};
use crate::gltf::names::KHR_TEXTURE_TRANSFORM;
use crate::gltf::read::as_usize;
use crate::gltf::{AccessorLayout, AccessorType, ComponentType, Target};
use crate::mesh::{Prepared, Scene};

/// The most bits a quantised position or UV takes (stored as 16-bit integers).
pub(super) const MAX_BITS: u8 = 16;

/// A box's lower corner and, on each axis, the step of a grid of `2ᵇ − 1` steps over that
/// side (0 for a side of zero length: callers choose); `None` without values, or with one not
/// finite.
fn grid<const N: usize>(
    values: impl Iterator<Item = [f32; N]>,
    bits: u8,
) -> Option<([f32; N], [f32; N])> {
    let (lo, hi) = values.fold(
        ([f32::INFINITY; N], [f32::NEG_INFINITY; N]),
        |(lo, hi), v| {
            (
                std::array::from_fn(|k| lo[k].min(v[k])),
                std::array::from_fn(|k| hi[k].max(v[k])),
            )
        },
    );
    if !lo.iter().chain(&hi).all(|v| v.is_finite()) {
        return None;
    }
    let levels = ((1u32 << bits) - 1) as f32;
    let step = std::array::from_fn(|k| {
        let side = hi[k] - lo[k];
        if side > 0.0 {
            side / levels
        } else {
            0.0
        }
    });
    Some((lo, step))
}

/// Grid indices of `v` on the grid at `lo` with `step`, clamped to `bits`.
fn quantise<const N: usize>(v: [f32; N], lo: [f32; N], step: [f32; N], bits: u8) -> [u16; N] {
    let top = ((1u32 << bits) - 1) as f32;
    std::array::from_fn(|k| ((v[k] - lo[k]) / step[k]).round().clamp(0.0, top) as u16)
}

/// The file's one position grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PositionGrid {
    offset: Vec3,
    step: f32,
    bits: u8,
}

impl PositionGrid {
    /// The grid over every position of `prepared`, or `None` when there is none (or one is not
    /// finite).
    pub(super) fn new(prepared: &[Prepared], bits: u8) -> Option<Self> {
        let all = prepared.iter().flat_map(|p| &p.positions);
        let (lo, steps) = grid(all.map(|p| p.to_array()), bits)?;
        // One step for every axis: the longest side's (a flat side, step 0, has no say: a flat
        // mesh keeps its grid; 1 only when every side is flat).
        let step = steps.into_iter().fold(0.0f32, f32::max);
        let step = if step > 0.0 { step } else { 1.0 };
        Some(Self {
            offset: Vec3::from(lo),
            step,
            bits,
        })
    }

    /// The grid indices of `p`.
    fn quantise(&self, p: Vec3) -> [u16; 3] {
        quantise(
            p.to_array(),
            self.offset.to_array(),
            [self.step; 3],
            self.bits,
        )
    }

    /// The position grid indices `q` stand for.
    fn dequantise(&self, q: [u16; 3]) -> Vec3 {
        Vec3::new(q[0].into(), q[1].into(), q[2].into()) * self.step + self.offset
    }

    /// The grid's step: one grid unit in the mesh's units.
    pub(super) fn step(&self) -> f32 {
        self.step
    }

    /// The grid's corner: the mesh-space position of grid index 0.
    pub(super) fn offset(&self) -> Vec3 {
        self.offset
    }

    /// Grid indices to the mesh's space: translation by the box's corner after a uniform scale
    /// by the step.
    fn matrix(&self) -> Mat4 {
        Mat4::from_translation(self.offset) * Mat4::from_scale(Vec3::splat(self.step))
    }
}

/// How a material's quantised UVs are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum UvStorage {
    /// UVs in [0, 1]: unsigned normalised 16-bit values read as the UV itself (core glTF, no
    /// transform), rounded to multiples of the largest power of two no coarser than the grid
    /// `bits` would lay over the UVs' box (the low bits zero, which meshoptimizer's codec
    /// compresses away; every UV within half of gltfpack's step).
    Unit {
        /// The multiple, in stored units (1/65535).
        multiple: u16,
    },
    /// UVs in [−1, 1]: signed normalised 16-bit values read as the UV itself
    /// (KHR_mesh_quantization, no transform), rounded as [`UvStorage::Unit`]'s.
    SignedUnit {
        /// The multiple, in stored units (1/32767).
        multiple: u16,
    },
    /// Grid indices over the UVs' box, read through a KHR_texture_transform (offset, scale) on
    /// the material's set-0 textures: only where base colour is the one core texture reading
    /// set 0, since Bevy's loader applies transforms to base colour alone. The smallest
    /// compressed, so it is chosen wherever it is read right.
    Grid,
}

/// A material's UV grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct UvGrid {
    offset: Vec2,
    step: Vec2,
    bits: u8,
    storage: UvStorage,
}

impl UvGrid {
    /// The stored 16-bit values of `uv` (a signed value's bits for [`UvStorage::SignedUnit`]).
    fn quantise(&self, uv: Vec2) -> [u16; 2] {
        match self.storage {
            UvStorage::Grid => quantise(
                uv.to_array(),
                self.offset.to_array(),
                self.step.to_array(),
                self.bits,
            ),
            UvStorage::Unit { multiple } => uv.to_array().map(|c| {
                let unit = f32::from(multiple);
                ((c * 65535.0 / unit).round() * unit).clamp(0.0, 65535.0) as u16
            }),
            UvStorage::SignedUnit { multiple } => uv.to_array().map(|c| {
                let unit = f32::from(multiple);
                let v = ((c * 32767.0 / unit).round() * unit).clamp(-32767.0, 32767.0);
                (v as i16) as u16
            }),
        }
    }

    /// The UV the stored values `q` stand for.
    fn dequantise(&self, q: [u16; 2]) -> Vec2 {
        match self.storage {
            UvStorage::Grid => Vec2::new(q[0].into(), q[1].into()) * self.step + self.offset,
            UvStorage::Unit { .. } => Vec2::new(q[0].into(), q[1].into()) / 65535.0,
            UvStorage::SignedUnit { .. } => {
                Vec2::new(f32::from(q[0] as i16), f32::from(q[1] as i16)) / 32767.0
            }
        }
    }

    /// The accessor layout of the stored values.
    fn layout(&self) -> AccessorLayout {
        let component = match self.storage {
            UvStorage::SignedUnit { .. } => ComponentType::Short,
            _ => ComponentType::UnsignedShort,
        };
        AccessorLayout {
            component,
            kind: AccessorType::Vec2,
            normalized: true,
        }
    }

    /// Whether the stored values are signed (KHR_mesh_quantization's normalised shorts).
    pub(super) fn signed(&self) -> bool {
        matches!(self.storage, UvStorage::SignedUnit { .. })
    }

    /// Whether the stored values need the grid's KHR_texture_transform.
    pub(super) fn transformed(&self) -> bool {
        self.storage == UvStorage::Grid
    }

    /// A stored (normalised) unit in UV units: the grid transform's scale, or 1.
    pub(super) fn scale(&self) -> [f32; 2] {
        match self.storage {
            UvStorage::Grid => (self.step * f32::from(u16::MAX)).to_array(),
            _ => [1.0; 2],
        }
    }

    /// The KHR_texture_transform that turns the stored value (`q / 65535`, normalised) into
    /// the UV: scale `step · 65535`, offset the box's corner.
    pub(super) fn transform(&self) -> Value {
        let scale = self.step * f32::from(u16::MAX);
        json!({ "offset": self.offset.to_array(), "scale": scale.to_array() })
    }
}

/// A material (its JSON) without its base colour texture.
fn base_colour_aside(material: &Value) -> Value {
    let mut m = material.clone();
    if let Some(pbr) = m
        .get_mut("pbrMetallicRoughness")
        .and_then(Value::as_object_mut)
    {
        pbr.remove("baseColorTexture");
    }
    m
}

/// Puts the UV grid's transform on every texture of a material (its JSON) that reads UV set 0
/// (none of them has one of its own: [`uv_grids`] gives no grid then).
fn add_transform(v: &mut Value, grid: &UvGrid) {
    match v {
        Value::Object(obj) => {
            if obj.contains_key("index") {
                if set_read(obj) == 0 {
                    let ext = obj.entry("extensions").or_insert_with(|| json!({}));
                    if !ext.is_object() {
                        *ext = json!({});
                    }
                    if let Some(ext) = ext.as_object_mut() {
                        ext.insert(KHR_TEXTURE_TRANSFORM.into(), grid.transform());
                    }
                }
                return;
            }
            obj.values_mut().for_each(|c| add_transform(c, grid));
        }
        Value::Array(list) => list.iter_mut().for_each(|c| add_transform(c, grid)),
        _ => {}
    }
}

/// Whether a texture of a material (its JSON) reading UV set 0 has a KHR_texture_transform of
/// its own.
fn own_transform_on_set_0(v: &Value) -> bool {
    match v {
        Value::Object(obj) => {
            if obj.contains_key("index") {
                return set_read(obj) == 0
                    && obj
                        .get("extensions")
                        .and_then(|e| e.get(KHR_TEXTURE_TRANSFORM))
                        .is_some();
            }
            obj.values().any(own_transform_on_set_0)
        }
        Value::Array(list) => list.iter().any(own_transform_on_set_0),
        _ => false,
    }
}

/// The UV grid of each material of `scene`: for one with a texture the loader reads (base
/// colour, normal, metallic-roughness, anisotropy, a tangent-space map, already in the file or
/// `tangent_map[m]` now) on UV set 0 — the loader applies the material's transform to the UVs
/// only then — and a primitive with UVs using it; else `None`. Nor for a material whose set-0
/// textures keep transforms of their own (the loader applied none, they differ): one grid
/// transform could not serve them all, so its UVs stay f32.
pub(super) fn uv_grids(
    json: &Value,
    scene: &Scene,
    prepared: &[Prepared],
    tangent_map: &[bool],
    bits: u8,
    signed_allowed: bool,
) -> Vec<Option<UvGrid>> {
    let on_set_0 = |t: Option<&crate::mesh::TextureRef>| t.is_some_and(|t| t.tex_coord == 0);
    scene
        .materials
        .iter()
        .enumerate()
        .map(|(m, material)| {
            let anisotropy = material
                .anisotropy
                .as_ref()
                .and_then(|a| a.texture.as_ref());
            let read = on_set_0(material.base_color_texture.as_ref())
                || on_set_0(material.normal_texture.as_ref())
                || on_set_0(material.metallic_roughness_texture.as_ref())
                || on_set_0(anisotropy)
                || material.tangent_map.is_some()
                || tangent_map.get(m).copied().unwrap_or(false);
            let own =
                material.uv_transform.is_none() && own_transform_on_set_0(&json["materials"][m]);
            if !read || own {
                return None;
            }
            let uvs = scene
                .primitives()
                .zip(prepared)
                .filter(|((_, p), _)| p.material == Some(m) && p.uvs.is_some())
                .flat_map(|(_, q)| &q.uvs);
            let (lo, step) = grid(uvs.map(|uv| uv.to_array()), bits)?;
            let levels = ((1u32 << bits) - 1) as f32;
            let hi: [f32; 2] = std::array::from_fn(|k| lo[k] + step[k] * levels);
            let within = |min: f32| lo.iter().all(|&v| v >= min) && hi.iter().all(|&v| v <= 1.0);
            // The largest power-of-two multiple of a stored unit no coarser than the grid's
            // step over the box's longest side (a flat box: the unit square's).
            let side = step.iter().fold(0.0f32, |a, &b| a.max(b)) * levels;
            let target = if side > 0.0 { side } else { 1.0 } / levels;
            let multiple = |units: f32| {
                let m = (target * units).log2().floor().clamp(0.0, 15.0);
                1u16 << (m as u32)
            };
            // A grid and its transform where every reader applies it (base colour alone on
            // set 0: Bevy's loader transforms only base colour), else the UVs themselves where
            // they fit a normalised type, else f32.
            let storage = if !reads_set(&base_colour_aside(&json["materials"][m]), 0) {
                UvStorage::Grid
            } else if within(0.0) {
                UvStorage::Unit {
                    multiple: multiple(65535.0),
                }
            } else if within(-1.0) && signed_allowed {
                UvStorage::SignedUnit {
                    multiple: multiple(32767.0),
                }
            } else {
                return None;
            };
            Some(UvGrid {
                offset: Vec2::from(lo),
                // Every UV on a flat side is the corner: any step serves; 1.
                step: Vec2::from(step.map(|s| if s > 0.0 { s } else { 1.0 })),
                bits,
                storage,
            })
        })
        .collect()
}

/// Quantised weights of one vertex, all its sets together (4 per set): the bytes sum to 255,
/// floored and the remainder given to the largest fractions first; a vertex whose weights sum
/// to nothing gets its first joint's full weight.
fn weight_bytes(w: &[f32]) -> Vec<u8> {
    let sum: f32 = w.iter().map(|v| v.max(0.0)).sum();
    let mut bytes = vec![0u8; w.len()];
    if sum <= 0.0 || !sum.is_finite() {
        if let Some(first) = bytes.first_mut() {
            *first = 255;
        }
        return bytes;
    }
    let scaled: Vec<f32> = w.iter().map(|v| v.max(0.0) / sum * 255.0).collect();
    for (b, v) in bytes.iter_mut().zip(&scaled) {
        *b = v.floor() as u8;
    }
    let given: u32 = bytes.iter().map(|&b| u32::from(b)).sum();
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by(|&a, &b| {
        let fa = scaled[a] - scaled[a].floor();
        let fb = scaled[b] - scaled[b].floor();
        fb.total_cmp(&fa)
    });
    for &k in order.iter().take(255usize.saturating_sub(given as usize)) {
        bytes[k] += 1;
    }
    bytes
}

impl Writer<'_> {
    /// The POSITION attribute: on the file's grid when there is one (unsigned 16-bit integers
    /// with their min/max; the grid's indices as f32 when `float`), else f32.
    pub(super) fn position_attribute(&mut self, positions: &[Vec3], float: bool) -> usize {
        let Some(grid) = self.position_grid else {
            let floats: Vec<[f32; 3]> = positions.iter().map(|v| v.to_array()).collect();
            return self.out.positions(&floats);
        };
        let q: Vec<[u16; 3]> = positions.iter().map(|&p| grid.quantise(p)).collect();
        if float {
            // The grid's indices as f32 (the node's dequantisation applies to every primitive
            // of the mesh), for readers that take only f32 where this primitive is read.
            let floats: Vec<[f32; 3]> = q.iter().map(|k| k.map(f32::from)).collect();
            for (&p, &k) in positions.iter().zip(&q) {
                let error = p.distance(grid.dequantise(k));
                self.report.position_error = self.report.position_error.max(error);
            }
            return self.out.positions(&floats);
        }
        for (&p, &k) in positions.iter().zip(&q) {
            let error = p.distance(grid.dequantise(k));
            self.report.position_error = self.report.position_error.max(error);
        }
        let layout = AccessorLayout {
            component: ComponentType::UnsignedShort,
            kind: AccessorType::Vec3,
            normalized: false,
        };
        let a = self
            .out
            .accessor(bytemuck::cast_slice(&q), layout, Some(Target::ArrayBuffer));
        let (lo, hi) = q.iter().fold(([u16::MAX; 3], [0u16; 3]), |(lo, hi), v| {
            (
                std::array::from_fn(|k| lo[k].min(v[k])),
                std::array::from_fn(|k| hi[k].max(v[k])),
            )
        });
        self.out.json["accessors"][a]["min"] = json!(lo);
        self.out.json["accessors"][a]["max"] = json!(hi);
        a
    }

    /// The TEXCOORD_0 attribute of a primitive using `material`: on the material's grid when
    /// it has one (unsigned normalised 16-bit), else f32.
    pub(super) fn uv_attribute(
        &mut self,
        material: Option<usize>,
        uvs: &[Vec2],
        engine_read: bool,
    ) -> usize {
        // Bevy's loader reads unsigned normalised UVs and f32, not signed ones: a primitive it
        // reads itself (`engine_read`: morphing, frameless) takes f32 where the grid is signed.
        let grid = self
            .uv_grid(material)
            .filter(|g| !(engine_read && g.signed()));
        let Some(grid) = grid else {
            let floats: Vec<[f32; 2]> = uvs.iter().map(|v| v.to_array()).collect();
            return self.out.floats(&floats, Some(Target::ArrayBuffer));
        };
        let q: Vec<[u16; 2]> = uvs.iter().map(|&uv| grid.quantise(uv)).collect();
        for (&uv, &k) in uvs.iter().zip(&q) {
            self.report.uv_error = self.report.uv_error.max(uv.distance(grid.dequantise(k)));
        }
        self.out.accessor(
            bytemuck::cast_slice(&q),
            grid.layout(),
            Some(Target::ArrayBuffer),
        )
    }

    /// The WEIGHTS_n attributes, one per set: unsigned normalised bytes when quantising (every
    /// vertex's sets together summing to 255), else f32.
    pub(super) fn weight_attributes(&mut self, sets: &[Vec<[f32; 4]>]) -> Vec<usize> {
        if !self.quantise {
            return sets
                .iter()
                .map(|w| self.out.floats(w, Some(Target::ArrayBuffer)))
                .collect();
        }
        let vertices = sets.first().map_or(0, Vec::len);
        let mut bytes = vec![Vec::with_capacity(vertices * 4); sets.len()];
        let mut all = Vec::with_capacity(sets.len() * 4);
        for v in 0..vertices {
            all.clear();
            all.extend(
                sets.iter()
                    .flat_map(|w| w.get(v).copied().unwrap_or([0.0; 4])),
            );
            for (set, b) in bytes.iter_mut().zip(weight_bytes(&all).chunks_exact(4)) {
                set.extend_from_slice(b);
            }
        }
        let layout = AccessorLayout {
            component: ComponentType::UnsignedByte,
            kind: AccessorType::Vec4,
            normalized: true,
        };
        bytes
            .iter()
            .map(|b| self.out.accessor(b, layout, Some(Target::ArrayBuffer)))
            .collect()
    }

    /// The KHR_texture_transform of material `m`'s UV grid on its textures reading set 0.
    pub(super) fn uv_transforms(&mut self, m: usize) {
        if let Some(Some(grid)) = self
            .uv_grids
            .get(m)
            .copied()
            .filter(|g| g.is_some_and(|g| g.transformed()))
        {
            let material = self
                .out
                .json
                .get_mut("materials")
                .and_then(|l| l.get_mut(m));
            if let Some(material) = material {
                add_transform(material, &grid);
            }
        }
    }

    /// KHR_materials_volume's `thicknessFactor` of material `m` in grid units: it is a length
    /// in the mesh's space, which the dequantising scale multiplies by the step.
    pub(super) fn volume_thickness(&mut self, m: usize) {
        let Some(grid) = self.position_grid else {
            return;
        };
        let volume = self
            .out
            .json
            .get_mut("materials")
            .and_then(|l| l.get_mut(m))
            .and_then(|m| m.get_mut("extensions"))
            .and_then(|e| e.get_mut("KHR_materials_volume"))
            .and_then(Value::as_object_mut);
        if let Some(volume) = volume {
            if let Some(t) = volume.get("thicknessFactor").and_then(Value::as_f64) {
                volume.insert("thicknessFactor".into(), json!(t / f64::from(grid.step)));
            }
        }
    }

    /// Material `m`'s UV grid, when its UVs are quantised.
    pub(super) fn uv_grid(&self, m: Option<usize>) -> Option<UvGrid> {
        m.and_then(|m| self.uv_grids.get(m).copied().flatten())
    }

    /// Inverse bind matrices of skin `s` (copied from the source, or identities for each
    /// joint when it has none), times the position grid's matrix when positions are
    /// quantised; returns the accessor.
    pub(super) fn inverse_binds(&mut self, s: usize) -> Result<Option<usize>, PackErrorKind> {
        let source = self.out.json["skins"][s]["inverseBindMatrices"].clone();
        let Some(grid) = self.position_grid else {
            return self.remap(&source);
        };
        let matrices: Vec<Mat4> = match as_usize(&source) {
            Some(a) => {
                let floats = self.source_floats::<16>(a, None)?.unwrap_or_default();
                floats.iter().map(Mat4::from_cols_array).collect()
            }
            None => {
                let joints = self.out.json["skins"][s]["joints"]
                    .as_array()
                    .map_or(0, Vec::len);
                vec![Mat4::IDENTITY; joints]
            }
        };
        let t = grid.matrix();
        let out: Vec<[f32; 16]> = matrices.iter().map(|m| (*m * t).to_cols_array()).collect();
        Ok(Some(self.out.floats(&out, None)))
    }

    /// Rotation outputs of animations as normalised 16-bit integers when quantising (the
    /// accessor `a`, an f32 VEC4); `None` when it is not one.
    pub(super) fn rotation_output(&mut self, a: usize) -> Result<Option<usize>, PackErrorKind> {
        if !self.quantise {
            return Ok(None);
        }
        if let Some(&done) = self.rotations.get(&a) {
            return Ok(Some(done));
        }
        let Some(floats) = self.source_floats::<4>(a, Some(AccessorType::Vec4))? else {
            return Ok(None);
        };
        let q: Vec<i16> = floats
            .iter()
            .flatten()
            .map(|v| (v.clamp(-1.0, 1.0) * 32767.0).round() as i16)
            .collect();
        let layout = AccessorLayout {
            component: ComponentType::Short,
            kind: AccessorType::Vec4,
            normalized: true,
        };
        let index = self.out.accessor(bytemuck::cast_slice(&q), layout, None);
        self.rotations.insert(a, index);
        Ok(Some(index))
    }

    /// Source accessor `a`'s values as f32, read once; `None` when `only` names an f32 layout
    /// it does not have.
    pub(super) fn source_floats<const N: usize>(
        &self,
        a: usize,
        only: Option<AccessorType>,
    ) -> Result<Option<Vec<[f32; N]>>, PackErrorKind> {
        let error = |error| PackErrorKind::Accessor { accessor: a, error };
        let reader = self.source.reader();
        let acc = reader.accessor(a).map_err(error)?;
        if only.is_some_and(|kind| acc.layout != AccessorLayout::float(kind)) {
            return Ok(None);
        }
        reader.floats::<N>(&acc).map(Some).map_err(error)
    }

    /// Whether node `n` can take the dequantisation itself, as gltfpack writes it, rather than
    /// through a child: no transform, children, camera or extension of its own (a light or
    /// instancing would be moved or scaled with the mesh), not a joint, and no animation
    /// channel moving it (a `weights` channel is fine).
    fn dequantises_in_place(&self, n: usize) -> bool {
        let node = &self.out.json["nodes"][n];
        let own = [
            "translation",
            "rotation",
            "scale",
            "matrix",
            "children",
            "camera",
            "extensions",
        ]
        .iter()
        .any(|k| node.get(*k).is_some());
        let joint = self.out.json["skins"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["joints"].as_array())
            .flatten()
            .any(|j| j.as_u64() == Some(n as u64));
        let animated = self.out.json["animations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["channels"].as_array())
            .flatten()
            .any(|c| {
                let pointer =
                    c["target"]["extensions"]["KHR_animation_pointer"]["pointer"].as_str();
                match pointer {
                    // A pointer into the node moves it unless it is its weights.
                    Some(p) => {
                        let prefix = format!("/nodes/{n}/");
                        p.starts_with(&prefix) && p != format!("{prefix}weights")
                    }
                    None => {
                        c["target"]["node"].as_u64() == Some(n as u64)
                            && c["target"]["path"] != "weights"
                    }
                }
            });
        !own && !joint && !animated
    }

    /// Every node placing a mesh without a skin gets the position grid's translation and scale
    /// (when positions are quantised): itself when nothing else it holds would move
    /// ([`Writer::dequantises_in_place`]), else through a child node holding the mesh and its
    /// morph weights (`weights` animation channels follow the mesh to the child).
    pub(super) fn dequantising_nodes(&mut self) -> Result<(), PackErrorKind> {
        let Some(grid) = self.position_grid else {
            return Ok(());
        };
        let count = self.out.json["nodes"].as_array().map_or(0, Vec::len);
        let mut moved = Vec::new();
        for n in 0..count {
            let node = &self.out.json["nodes"][n];
            let Some(mesh) = node.get("mesh").cloned() else {
                continue;
            };
            if node.get("skin").is_some() {
                continue;
            }
            if self.dequantises_in_place(n) {
                let node = &mut self.out.json["nodes"][n];
                node["translation"] = json!(grid.offset.to_array());
                node["scale"] = json!([grid.step, grid.step, grid.step]);
                continue;
            }
            let child = self.out.push(
                "nodes",
                json!({
                    "mesh": mesh,
                    "translation": grid.offset.to_array(),
                    "scale": [grid.step, grid.step, grid.step],
                }),
            );
            moved.push((n, child));
            self.instances_to_child(n, child, &grid)?;
            let node = &mut self.out.json["nodes"][n];
            if let Some(obj) = node.as_object_mut() {
                obj.remove("mesh");
            }
            if !node["children"].is_array() {
                node["children"] = json!([]);
            }
            if let Some(children) = node["children"].as_array_mut() {
                children.push(json!(child));
            }
        }
        self.retarget_weights(&moved);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{add_transform, own_transform_on_set_0, weight_bytes, UvGrid};
    use glam::Vec2;
    use serde_json::json;

    /// The grid's transform goes on every texture reading set 0 (its transform's `texCoord`
    /// override counted), whatever its `extensions` held, and on no other; a set-0 texture with
    /// a transform of its own is found, through an override too.
    #[test]
    fn grid_transforms_go_on_set_0_textures_only() {
        let grid = UvGrid {
            offset: Vec2::new(0.25, 0.5),
            step: Vec2::splat(1.0 / 4095.0),
            bits: 12,
            storage: super::UvStorage::Grid,
        };
        let mut m = json!({
            "occlusionTexture": {"index": 0, "extensions": 5},
            "emissiveTexture": {"index": 1, "texCoord": 1},
            "extensions": {"KHR_materials_clearcoat": {"clearcoatTexture": {"index": 2}}}
        });
        assert!(!own_transform_on_set_0(&m));
        add_transform(&mut m, &grid);
        let t = |v: &serde_json::Value| v["extensions"]["KHR_texture_transform"].clone();
        assert_eq!(t(&m["occlusionTexture"]), grid.transform());
        assert_eq!(
            t(&m["extensions"]["KHR_materials_clearcoat"]["clearcoatTexture"]),
            grid.transform()
        );
        assert!(m["emissiveTexture"].get("extensions").is_none());
        let sent_to_0 = json!({"normalTexture": {"index": 0, "texCoord": 1,
            "extensions": {"KHR_texture_transform": {"texCoord": 0, "scale": [2.0, 2.0]}}}});
        assert!(own_transform_on_set_0(&sent_to_0));
        let sent_to_1 = json!({"normalTexture": {"index": 0,
            "extensions": {"KHR_texture_transform": {"texCoord": 1, "scale": [2.0, 2.0]}}}});
        assert!(!own_transform_on_set_0(&sent_to_1));
    }

    /// Weights keep their sum: exactly 255 however they round, over one set or two together
    /// (eight influences), each byte under one step of 1/255 from its weight; a vertex whose
    /// weights sum to nothing gets its first joint's full weight.
    #[test]
    fn weights_sum_to_255() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            // xorshift64: seeded, so the weights are the same every run.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut cases: Vec<Vec<f32>> = vec![
            vec![1.0, 0.0, 0.0, 0.0],
            vec![0.25; 4],
            vec![2.0, 2.0, 0.0, 0.0],
            vec![0.25, 0.25, 0.0, 0.0, 0.25, 0.25, 0.0, 0.0],
        ];
        cases.extend((0..1000).map(|k| (0..4 * (1 + k % 2)).map(|_| next()).collect()));
        for w in cases {
            let b = weight_bytes(&w);
            let total: u32 = b.iter().map(|&v| u32::from(v)).sum();
            assert_eq!(total, 255, "{w:?} → {b:?}");
            let sum: f32 = w.iter().sum();
            for (v, q) in w.iter().zip(&b) {
                // Floor, then at most one more: under one step of 1/255 from the weight.
                let d = (f32::from(*q) / 255.0 - v / sum).abs();
                assert!(d < 1.0 / 255.0, "{w:?} → {b:?}");
            }
        }
        assert_eq!(
            weight_bytes(&[1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0]),
            [85, 85, 85, 0]
        );
        assert_eq!(weight_bytes(&[0.71, 0.29, 0.0, 0.0]), [181, 74, 0, 0]);
        assert_eq!(weight_bytes(&[0.0; 8]), [255, 0, 0, 0, 0, 0, 0, 0]);
    }
}
