//! The glTF extension handler: runs inside Bevy's glTF loader, after bevy_pbr's own handler.
//!
//! - `on_root`: reads each material's tangent-space quaternion map (GPU mode).
//! - `on_material`: a material whose textures carry the quantised UV grid's
//!   KHR_texture_transform on other textures than the base colour (which alone Bevy reads) gets
//!   that transform as its `uv_transform`.
//! - `on_gltf_primitive`: a primitive with `_QTANGENT` is read here, quantised attributes and
//!   meshopt-compressed views included (Bevy's loader reads neither), into a mesh with the
//!   packed frame as a vertex attribute (GPU mode) or with NORMAL and TANGENT decoded on the
//!   CPU (CPU mode). Bevy computes flat normals for any triangle mesh without NORMAL, so the
//!   loader gets a point-list stand-in, replaced by the real mesh under the same label in
//!   `on_gltf_mesh`.
//! - `on_spawn_mesh_and_material`: GPU mode gives those primitives the plugin's material.

use std::collections::{HashMap, HashSet};

use bevy::asset::{LoadContext, RenderAssetUsages};
use bevy::ecs::world::EntityWorldMut;
use bevy::gltf::extensions::{ErasedGltfExtensionHandler, GltfExtensionHandler};
use bevy::gltf::{GltfLoaderSettings, GltfMaterial, GltfMesh};
use bevy::math::Affine2;
use bevy::mesh::{Indices, Mesh, MeshVertexAttribute, PrimitiveTopology, VertexAttributeValues};
use bevy::pbr::{MeshMaterial3d, StandardMaterial};
use bevy::prelude::{Handle, error, warn};
use bevy::tasks::ConditionalSendFuture;
use gltf::Semantic;
use qtangent::Format;

use crate::accessor::{self, Views};
use crate::map::{self, EXTENSION, MaterialMap};
use crate::material::{DebugView, frame_attribute};
use crate::{Mode, QTangentExtension, QTangentMaterial};

/// One load's state (Bevy clones the registered handler for every load).
#[derive(Clone)]
pub(crate) struct Handler {
    mode: Mode,
    debug: DebugView,
    /// The file, for messages.
    file: String,
    /// Each material's map, by material index (GPU mode).
    maps: HashMap<usize, MaterialMap>,
    /// Primitives read here, by (mesh, primitive) index.
    with_frames: HashSet<(usize, usize)>,
    /// The meshes read here, by label, until `on_gltf_mesh` puts them in place of the stand-ins.
    pending: Vec<(String, Mesh)>,
    views: Views,
    /// The materials' JSON, by index (from `on_root`).
    materials: Vec<serde_json::Value>,
    /// Whether any primitive has `_QTANGENT`.
    has_frames: bool,
}

impl Handler {
    pub(crate) fn new(mode: Mode, debug: DebugView) -> Self {
        Self {
            mode,
            debug,
            file: String::new(),
            maps: HashMap::new(),
            with_frames: HashSet::new(),
            pending: Vec::new(),
            views: Views::default(),
            materials: Vec::new(),
            has_frames: false,
        }
    }

    /// The plugin's material for `std` (the material bevy_pbr made) and the map of material
    /// `index`.
    fn material(&self, mut base: StandardMaterial, index: Option<usize>) -> QTangentMaterial {
        let map = index.and_then(|i| self.maps.get(&i));
        let mut extension = QTangentExtension {
            debug: self.debug,
            ..Default::default()
        };
        if let Some(m) = map {
            // The map replaces the normal map (it is baked into it).
            base.normal_map_texture = None;
            extension.map = Some(m.map.clone());
            extension.twist = m.twist.clone();
            extension.decode = m.decode;
            extension.axial = m.axial;
            extension.uv_b = m.uv_b;
        }
        QTangentMaterial { base, extension }
    }

    /// Adds the plugin's material for material `label` (`{label}/qtangent`), when this file
    /// has frames the plugin draws with it: GPU mode, or a debug view.
    fn add_material(
        &self,
        load_context: &mut LoadContext<'_>,
        label: &str,
        std: StandardMaterial,
        index: Option<usize>,
    ) {
        if self.has_frames && (self.mode == Mode::Gpu || self.debug != DebugView::Lit) {
            let m = self.material(std, index);
            load_context.add_labeled_asset(format!("{label}/qtangent"), m);
        }
    }

    /// Reads primitive (`mesh`, `primitive`) into a Bevy mesh; `None` when it has no
    /// `_QTANGENT` (Bevy's loader reads it).
    fn read_primitive(
        &mut self,
        gltf_mesh: &gltf::Mesh,
        primitive: &gltf::Primitive,
        buffers: &[Vec<u8>],
        skinned: bool,
    ) -> Result<Option<Mesh>, String> {
        let Some(qt_accessor) = primitive.get(&Semantic::Extras("QTANGENT".into())) else {
            return Ok(None);
        };
        if primitive.mode() != gltf::mesh::Mode::Triangles {
            return Err(format!(
                "mode {:?}; pack writes triangle lists",
                primitive.mode()
            ));
        }
        let format = format_of(primitive, &qt_accessor)?;
        if primitive
            .extension_value(EXTENSION)
            .and_then(|e| e.get("objectMap"))
            .is_some()
        {
            warn!(
                "{}: mesh {} primitive {}: its object-space map is not read (the plugin reads tangent-space maps); drawn with its vertex frames",
                self.file,
                gltf_mesh.index(),
                primitive.index()
            );
        }
        let bytes = self.views.elements(&qt_accessor, buffers)?;
        let stored = qt_accessor.size();
        if stored < format.bytes() {
            return Err(format!(
                "_QTANGENT elements are {stored} bytes; {format} needs {}",
                format.bytes()
            ));
        }
        let records: Vec<&[u8]> = bytes
            .chunks_exact(stored)
            .map(|c| &c[..format.bytes()])
            .collect();

        let mut mesh = self.read_attributes(primitive, buffers, skinned)?;
        if !mesh.contains_attribute(Mesh::ATTRIBUTE_POSITION) {
            return Err("no POSITION".into());
        }
        let counts: Vec<usize> = mesh.attributes().map(|(_, v)| v.len()).collect();
        if counts
            .iter()
            .chain([&records.len()])
            .any(|&c| c != counts[0])
        {
            return Err(format!(
                "attributes of different lengths ({counts:?}, _QTANGENT {})",
                records.len()
            ));
        }
        match self.mode {
            Mode::Gpu => {
                let attribute = frame_attribute(format);
                mesh.insert_attribute(attribute, packed_values(format, &records));
            }
            Mode::Cpu => {
                let frames: Vec<_> = records
                    .iter()
                    .map(|r| format.decode(r).to_frame())
                    .collect();
                let normals: Vec<[f32; 3]> = frames.iter().map(|f| f.normal.to_array()).collect();
                let tangents: Vec<[f32; 4]> = frames
                    .iter()
                    .map(|f| f.tangent.extend(f.handedness()).to_array())
                    .collect();
                mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, normals);
                // TANGENT where the material reads it (a normal map, anisotropy, a debug view),
                // as Bevy's loader does: Bevy treats meshes with tangents differently (it does
                // not turn a double-sided back face's normal without a normal map).
                let material = primitive
                    .material()
                    .index()
                    .and_then(|i| self.materials.get(i));
                let needs = material.is_some_and(|m| {
                    m.get("normalTexture").is_some()
                        || m.pointer("/extensions/KHR_materials_anisotropy").is_some()
                });
                if needs || self.debug != DebugView::Lit {
                    mesh.insert_attribute(Mesh::ATTRIBUTE_TANGENT, tangents);
                }
            }
        }
        if let Some(acc) = primitive.indices() {
            let indices = accessor::integers(&acc, &self.views.elements(&acc, buffers)?)?;
            let count = mesh.count_vertices() as u32;
            if let Some(bad) = indices.iter().find(|&&i| i >= count) {
                return Err(format!("index {bad} past the {count} vertices"));
            }
            mesh.insert_indices(if count <= u32::from(u16::MAX) {
                Indices::U16(indices.into_iter().map(|i| i as u16).collect())
            } else {
                Indices::U32(indices)
            });
        }
        Ok(Some(mesh))
    }

    /// The primitive's POSITION, TEXCOORD_0/1, COLOR_0 and (on skinned nodes) JOINTS_0 and
    /// WEIGHTS_0, as f32 (and u16 joints) in a triangle-list mesh.
    fn read_attributes(
        &mut self,
        primitive: &gltf::Primitive,
        buffers: &[Vec<u8>],
        skinned: bool,
    ) -> Result<Mesh, String> {
        let mut mesh = Mesh::new(
            PrimitiveTopology::TriangleList,
            RenderAssetUsages::default(),
        );
        for (semantic, acc) in primitive.attributes() {
            let (attribute, values) = match semantic {
                Semantic::Positions => (
                    Mesh::ATTRIBUTE_POSITION,
                    VertexAttributeValues::Float32x3(self.views.vectors::<3>(&acc, buffers)?),
                ),
                Semantic::TexCoords(0) => (
                    Mesh::ATTRIBUTE_UV_0,
                    VertexAttributeValues::Float32x2(self.views.vectors::<2>(&acc, buffers)?),
                ),
                Semantic::TexCoords(1) => (
                    Mesh::ATTRIBUTE_UV_1,
                    VertexAttributeValues::Float32x2(self.views.vectors::<2>(&acc, buffers)?),
                ),
                Semantic::Colors(0) => {
                    let values = if acc.dimensions().multiplicity() == 3 {
                        self.views
                            .vectors::<3>(&acc, buffers)?
                            .into_iter()
                            .map(|[r, g, b]| [r, g, b, 1.0])
                            .collect()
                    } else {
                        self.views.vectors::<4>(&acc, buffers)?
                    };
                    (
                        Mesh::ATTRIBUTE_COLOR,
                        VertexAttributeValues::Float32x4(values),
                    )
                }
                Semantic::Joints(0) if skinned => {
                    let joints = accessor::integers(&acc, &self.views.elements(&acc, buffers)?)?;
                    let values = joints
                        .chunks_exact(4)
                        .map(|j| std::array::from_fn(|i| j[i] as u16))
                        .collect();
                    (
                        Mesh::ATTRIBUTE_JOINT_INDEX,
                        VertexAttributeValues::Uint16x4(values),
                    )
                }
                Semantic::Weights(0) if skinned => (
                    Mesh::ATTRIBUTE_JOINT_WEIGHT,
                    VertexAttributeValues::Float32x4(self.views.vectors::<4>(&acc, buffers)?),
                ),
                // NORMAL and TANGENT kept beside the frames (`pack --keep-normals`) are for
                // readers without the plugin; the frames are read instead.
                _ => continue,
            };
            mesh.insert_attribute(attribute, values);
        }
        Ok(mesh)
    }
}

/// The primitive's `_QTANGENT` format: named by its `QTANGENT_frames.format`, or, where a tool
/// dropped the extension, by the accessor's layout.
fn format_of(primitive: &gltf::Primitive, qt_accessor: &gltf::Accessor) -> Result<Format, String> {
    let (component, n, normalized) = accessor::layout(qt_accessor);
    let named = primitive
        .extension_value(EXTENSION)
        .and_then(|e| e.get("format"))
        .and_then(|f| f.as_str());
    let format = match named {
            Some(name) => name
                .parse::<Format>()
                .map_err(|e| format!("QTANGENT_frames.format: {e}"))?,
            None => Format::from_gltf_layout(component, n, normalized).ok_or_else(|| {
                format!(
                    "_QTANGENT is componentType {component} × {n} (normalized {normalized}): no qtangent format"
                )
            })?,
        };
    Ok(format)
}

/// The frames' bytes as the vertex attribute of `format` ([`frame_attribute`]).
fn packed_values(format: Format, records: &[&[u8]]) -> VertexAttributeValues {
    let word = |r: &[u8], i: usize| {
        let mut b = [0u8; 4];
        let take = r.len().saturating_sub(4 * i).min(4);
        b[..take].copy_from_slice(&r[4 * i..4 * i + take]);
        u32::from_le_bytes(b)
    };
    let short = |r: &[u8], i: usize| [r[2 * i], r[2 * i + 1]];
    match format {
        Format::F32x4 => VertexAttributeValues::Float32x4(
            records
                .iter()
                .map(|r| std::array::from_fn(|i| f32::from_bits(word(r, i))))
                .collect(),
        ),
        Format::F16x4 => VertexAttributeValues::Float16x4(
            records
                .iter()
                .map(|r| std::array::from_fn(|i| half::f16::from_le_bytes(short(r, i))))
                .collect(),
        ),
        Format::Snorm16x4 => VertexAttributeValues::Snorm16x4(
            records
                .iter()
                .map(|r| std::array::from_fn(|i| i16::from_le_bytes(short(r, i))))
                .collect(),
        ),
        Format::F16x3 | Format::Smallest3x6 => VertexAttributeValues::Uint32x2(
            records.iter().map(|r| [word(r, 0), word(r, 1)]).collect(),
        ),
        Format::Smallest3x4 => {
            VertexAttributeValues::Uint32(records.iter().map(|r| word(r, 0)).collect())
        }
    }
}

/// What the loader gets in place of a mesh read here: the same vertices as points, so it
/// computes no flat normals (and skinned bounds where it wants them), replaced in `on_gltf_mesh`.
fn stand_in(mesh: &Mesh) -> Mesh {
    let mut s = Mesh::new(PrimitiveTopology::PointList, RenderAssetUsages::MAIN_WORLD);
    for (attribute, values) in mesh.attributes() {
        if [
            Mesh::ATTRIBUTE_POSITION.id,
            Mesh::ATTRIBUTE_JOINT_INDEX.id,
            Mesh::ATTRIBUTE_JOINT_WEIGHT.id,
        ]
        .contains(&attribute.id)
        {
            s.insert_attribute(*attribute, values.clone());
        }
    }
    s
}

impl GltfExtensionHandler for Handler {
    fn dyn_clone(&self) -> Box<dyn ErasedGltfExtensionHandler> {
        Box::new(self.clone())
    }

    fn on_root(
        &mut self,
        load_context: &mut LoadContext<'_>,
        gltf: &gltf::Gltf,
        settings: &GltfLoaderSettings,
    ) {
        self.file = load_context.path().to_string();
        if settings
            .convert_coordinates
            .is_some_and(|c| c.rotate_meshes)
        {
            warn!(
                "{}: GltfConvertCoordinates::rotate_meshes is not applied to the meshes the plugin reads",
                self.file
            );
        }
        let json = gltf.document.as_json();
        // `loader_settings` turns Bevy's validation off for the required extensions the plugin
        // reads (Bevy's switch is one for the whole document); everything else is checked here.
        let errors = if settings.validate {
            Vec::new()
        } else {
            validation_errors(json)
        };
        if let Some(first) = errors.first() {
            error!(
                "{}: not a valid glTF file ({} problem{}, the first: {first}); the plugin leaves it to Bevy's loader",
                self.file,
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            );
            self.has_frames = false;
            return;
        }
        self.materials = json
            .materials
            .iter()
            .map(|m| serde_json::to_value(m).unwrap_or_default())
            .collect();
        self.has_frames = json
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .any(|p| {
                p.attributes.keys().any(|k| {
                    matches!(k, gltf::json::validation::Checked::Valid(Semantic::Extras(s)) if s == "QTANGENT")
                })
            });
        let default_label = bevy::gltf::GltfAssetLabel::DefaultMaterial.to_string();
        if let Some(std) = load_context
            .get_labeled(format!("{default_label}/std").as_str())
            .and_then(|a| a.get::<StandardMaterial>())
            .cloned()
        {
            self.add_material(load_context, &default_label, std, None);
        }
        if self.mode != Mode::Gpu {
            return;
        }
        for m in 0..json.materials.len() {
            match map::material_map(load_context, json, gltf.blob.as_deref(), m) {
                Ok(Some(map)) => {
                    self.maps.insert(m, map);
                }
                Ok(None) => {}
                Err(e) => warn!(
                    "{}: material {m}: {e}; drawn with its vertex frames and normal map",
                    self.file
                ),
            }
        }
    }

    fn on_material(
        &mut self,
        load_context: &mut LoadContext<'_>,
        gltf_material: &gltf::Material,
        _material: Handle<GltfMaterial>,
        _material_asset: &GltfMaterial,
        material_label: &str,
    ) {
        let label = format!("{material_label}/std");
        let Some(mut std) = load_context
            .get_labeled(label.as_str())
            .and_then(|a| a.get::<StandardMaterial>())
            .cloned()
        else {
            return;
        };
        // Bevy takes the material's UV transform from the base colour texture alone; pack puts
        // the quantised grid's transform on every texture of the material that reads set 0.
        let value = gltf_material.index().and_then(|i| self.materials.get(i));
        let transform = value
            .filter(|v| {
                v.pointer("/pbrMetallicRoughness/baseColorTexture")
                    .is_none()
            })
            .and_then(|v| {
                [
                    v.get("normalTexture"),
                    v.get("occlusionTexture"),
                    v.get("emissiveTexture"),
                    v.pointer("/pbrMetallicRoughness/metallicRoughnessTexture"),
                    v.pointer(&format!("/extensions/{EXTENSION}/tangentMap")),
                ]
                .into_iter()
                .flatten()
                .filter(|i| {
                    i.get("texCoord")
                        .and_then(serde_json::Value::as_u64)
                        .unwrap_or(0)
                        == 0
                })
                .find_map(map::texture_transform)
            });
        // Only in files with frames: others are Bevy's as it reads them.
        let identity = std.uv_transform == Affine2::IDENTITY;
        if let Some(t) = transform.filter(|_| self.has_frames && identity) {
            std.uv_transform = t;
            load_context.add_labeled_asset(label, std.clone());
        }
        self.add_material(load_context, material_label, std, gltf_material.index());
    }

    fn on_gltf_primitive(
        &mut self,
        _load_context: &mut LoadContext<'_>,
        _gltf_document: &gltf::Gltf,
        gltf_mesh: &gltf::Mesh,
        gltf_primitive: &gltf::Primitive,
        buffer_data: &[Vec<u8>],
        _custom_vertex_attributes: &bevy::platform::collections::HashMap<
            Box<str>,
            MeshVertexAttribute,
        >,
        gltf_mesh_on_skinned_nodes: bool,
        _gltf_mesh_on_non_skinned_nodes: bool,
        user_mesh: &mut Option<Mesh>,
    ) -> impl ConditionalSendFuture<Output = ()> {
        match self.read_primitive(
            gltf_mesh,
            gltf_primitive,
            buffer_data,
            gltf_mesh_on_skinned_nodes,
        ) {
            Ok(Some(mut mesh)) => {
                if gltf_mesh_on_skinned_nodes && let Err(e) = mesh.generate_skinned_mesh_bounds() {
                    warn!(
                        "{}: mesh {} primitive {}: skinned bounds: {e}",
                        self.file,
                        gltf_mesh.index(),
                        gltf_primitive.index()
                    );
                }
                *user_mesh = Some(stand_in(&mesh));
                let label = format!(
                    "Mesh{}/Primitive{}",
                    gltf_mesh.index(),
                    gltf_primitive.index()
                );
                self.pending.push((label, mesh));
                self.with_frames
                    .insert((gltf_mesh.index(), gltf_primitive.index()));
            }
            Ok(None) => {}
            Err(e) => warn!(
                "{}: mesh {} ({}) primitive {}: {e}; left to Bevy's loader",
                self.file,
                gltf_mesh.index(),
                gltf_mesh.name().unwrap_or("unnamed"),
                gltf_primitive.index()
            ),
        }
        async {}
    }

    fn on_gltf_mesh(
        &mut self,
        load_context: &mut LoadContext<'_>,
        _gltf_mesh: &gltf::Mesh,
        _mesh: Handle<GltfMesh>,
    ) {
        for (label, mesh) in self.pending.drain(..) {
            load_context.add_labeled_asset(label, mesh);
        }
    }

    fn on_spawn_mesh_and_material(
        &mut self,
        load_context: &mut LoadContext<'_>,
        primitive: &gltf::Primitive,
        mesh: &gltf::Mesh,
        _material: &gltf::Material,
        entity: &mut EntityWorldMut,
        material_label: &str,
    ) {
        let ours = self
            .with_frames
            .contains(&(mesh.index(), primitive.index()));
        if !ours || (self.mode == Mode::Cpu && self.debug == DebugView::Lit) {
            return;
        }
        let handle =
            load_context.get_label_handle::<QTangentMaterial>(format!("{material_label}/qtangent"));
        entity
            .remove::<MeshMaterial3d<StandardMaterial>>()
            .insert(MeshMaterial3d(handle));
    }
}

/// The required extensions the plugin reads, which Bevy's `gltf` crate calls unsupported.
const READ_EXTENSIONS: [&str; 3] = [
    "KHR_mesh_quantization",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
];

/// What the `gltf` crate's validation (the one Bevy's loader runs) finds wrong with `root`,
/// as `path: problem`, except the required extensions the plugin reads ([`READ_EXTENSIONS`]).
pub(crate) fn validation_errors(root: &gltf::json::Root) -> Vec<String> {
    use gltf::json::validation::{Error, Validate};
    let mut errors = Vec::new();
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        let path = path();
        let read = matches!(error, Error::Unsupported)
            && root.extensions_required.iter().enumerate().any(|(i, ext)| {
                READ_EXTENSIONS.contains(&ext.as_str())
                    && path.as_str()
                        == gltf::json::Path::new()
                            .field("extensionsRequired")
                            .index(i)
                            .value_str(ext)
                            .as_str()
            });
        if !read {
            errors.push(format!("{}: {error}", path.as_str()));
        }
    });
    errors
}
