//! glTF 2.0 (`.gltf` with external or data-URI buffers, and `.glb`): the document through the
//! `gltf` crate, buffers and accessors through the files layer's reader ([`crate::gltf`]).
//!
//! The JSON is fixed up where gltf-json requires what glTF makes optional ([`patch`]), the
//! required extensions are checked by qtangent's own rules ([`extensions`]), and the crate
//! validates the rest; each accessor's type is checked against what its attribute allows
//! ([`accessor`]) before the reader checks its byte ranges and reads it (any
//! KHR_mesh_quantization type, sparse, zero-filled). [`primitive`] converts strips and fans to
//! lists and skips points and lines, [`nodes`] walks the node tree for world transforms and
//! skins, [`materials`] reads materials and their textures with their KHR_texture_transform
//! ([`texture_transform`]), [`qtangent`] the `QTANGENT_frames` parts of a packed file, and
//! [`animation`] the animations (checking their key times and values, so sampling never sees a
//! NaN or an out-of-order key). This file holds the entry point and the document checks.

mod accessor;
mod animation;
mod extensions;
mod materials;
mod nodes;
mod patch;
mod primitive;
mod qtangent;
mod texture_transform;

use std::collections::HashMap;
use std::path::Path;

use glam::Mat4;
use serde_json::Value;

use self::animation::{check_animation_indices, read_animation};
use self::materials::{image_source, material};
use self::nodes::{node_parents, node_world_matrices, read_nodes, read_skin};
use self::primitive::{read_primitive, Outcome, Skip};
use crate::gltf::read::{read_buffers, Reader, MAX_ELEMENTS};
use crate::gltf::{glb, ReadError};
use crate::mesh::{repair, ErrorKind, ImageSource, Instance, Mesh, MeshError, Scene};
use crate::{Warning, WarningKind};

/// One file being read: its document (the gltf crate's view, validated, and the JSON the
/// files layer's reader reads), its buffers' reader, where its external files are, and its
/// images.
pub(super) struct File<'a> {
    pub(super) doc: &'a gltf::Document,
    pub(super) json: &'a Value,
    pub(super) reader: Reader<'a>,
    pub(super) base: Option<&'a Path>,
    pub(super) images: Vec<ImageSource>,
}

pub(super) fn load_slice(
    name: &Path,
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<Scene, MeshError> {
    let file_err = |kind| MeshError::file(name, kind);
    let parts = glb::split(bytes).map_err(|e| file_err(ErrorKind::Truncated(e.to_string())))?;
    let mut warnings = Vec::new();
    let (mut json, doc) = patch::parse(parts.json, &mut warnings).map_err(file_err)?;
    extensions::check_required(doc.as_json(), &mut warnings).map_err(file_err)?;
    check_animation_indices(doc.as_json())
        .map_err(|(label, kind)| MeshError::at(name, &label, kind))?;
    validate(&doc).map_err(file_err)?;
    let mut buffers =
        read_buffers(&json, parts.bin, base).map_err(|e| file_err(buffer_error(e)))?;
    crate::gltf::draco::expand(&mut json, &mut buffers).map_err(|e| file_err(buffer_error(e)))?;
    let mut file = File {
        doc: &doc,
        json: &json,
        reader: Reader::new(&json, &buffers),
        base,
        images: Vec::new(),
    };
    file.images = doc
        .images()
        .map(|i| image_source(&file, &i))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;
    let materials = doc
        .materials()
        .map(|m| material(&file, &m, &mut warnings))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;
    let parents = node_parents(&doc).map_err(file_err)?;
    let world = node_world_matrices(&doc, &parents).map_err(file_err)?;
    let nodes = read_nodes(&doc, &parents, &mut warnings);
    let skins = doc
        .skins()
        .map(|skin| read_skin(&file, &skin, &world))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;
    let mut budget = MAX_ELEMENTS;
    let scene = Scene {
        meshes: read_meshes(name, &file, &materials, &world, &mut budget, &mut warnings)?,
        animations: read_animations(name, &file, &mut budget, &mut warnings)?,
        source: name.to_path_buf(),
        materials,
        skins,
        nodes,
        warnings,
    };
    Ok(scene)
}

/// Every mesh with its triangle primitives (repaired and validated) and its instances. A mesh
/// whose primitives were all skipped stays, with none.
///
/// # Errors
/// A primitive that cannot be read, no meshes, or no triangle in any of them.
fn read_meshes(
    name: &Path,
    file: &File<'_>,
    materials: &[crate::mesh::Material],
    world: &[Mat4],
    budget: &mut usize,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<Mesh>, MeshError> {
    let mut instances_of: HashMap<usize, Vec<Instance>> = HashMap::new();
    for n in file.doc.nodes() {
        if let Some(mesh) = n.mesh() {
            instances_of
                .entry(mesh.index())
                .or_default()
                .push(Instance {
                    node: n.index(),
                    world: world.get(n.index()).copied().unwrap_or(Mat4::IDENTITY),
                    skin: n.skin().map(|s| s.index()),
                });
        }
    }
    let mut meshes = Vec::new();
    let mut skipped: Vec<(String, Skip)> = Vec::new();
    for mesh in file.doc.meshes() {
        let mesh_name = mesh
            .name()
            .map_or_else(|| format!("mesh {}", mesh.index()), str::to_owned);
        let mut primitives = Vec::new();
        for prim in mesh.primitives() {
            let label = format!("mesh '{mesh_name}' primitive {}", prim.index());
            let at = |kind| MeshError::at(name, &label, kind);
            let mut p =
                match read_primitive(file, &prim, label.clone(), budget, warnings).map_err(at)? {
                    Outcome::Triangles(p) => *p,
                    Outcome::Skipped(why) => {
                        skipped.push((label, why));
                        continue;
                    }
                };
            let transform = p
                .material
                .and_then(|m| materials.get(m))
                .and_then(|m| m.uv_transform);
            if let (Some(t), Some(uvs)) = (transform, &mut p.uvs) {
                uvs.iter_mut().for_each(|uv| *uv = t.apply(*uv));
            }
            warnings.extend(repair::repair(&mut p).warnings(&label));
            p.validate().map_err(at)?;
            primitives.push(p);
        }
        meshes.push(Mesh {
            name: mesh_name,
            primitives,
            instances: instances_of.remove(&mesh.index()).unwrap_or_default(),
            weights: mesh.weights().map(<[f32]>::to_vec).unwrap_or_default(),
        });
    }
    if meshes.is_empty() {
        return Err(MeshError::file(name, ErrorKind::NoMeshes));
    }
    if meshes.iter().all(|m| m.primitives.is_empty()) {
        let mut kinds: Vec<&str> = Vec::new();
        for (_, why) in &skipped {
            if !kinds.contains(&why.kind()) {
                kinds.push(why.kind());
            }
        }
        return Err(MeshError::file(
            name,
            ErrorKind::NoTrianglesAtAll(format!(
                "{} primitive(s) skipped ({})",
                skipped.len(),
                kinds.join(", ")
            )),
        ));
    }
    warnings.extend(skipped_warnings(&skipped));
    Ok(meshes)
}

/// Every animation; morph target weight channels are skipped with one warning.
fn read_animations(
    name: &Path,
    file: &File<'_>,
    budget: &mut usize,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<crate::anim::Clip>, MeshError> {
    let mut skipped = Vec::new();
    let animations = file
        .doc
        .animations()
        .map(|a| read_animation(name, file, &a, budget, &mut skipped))
        .collect::<Result<Vec<_>, _>>()?;
    if !skipped.is_empty() {
        let count = skipped.len();
        skipped.truncate(3);
        warnings.push(Warning::new(
            "",
            WarningKind::MorphWeightChannelsSkipped {
                count,
                first: skipped,
            },
        ));
    }
    Ok(animations)
}

/// Warnings for skipped primitives: one each for up to three, else one naming the first three
/// and counting the rest.
fn skipped_warnings(skipped: &[(String, Skip)]) -> Vec<Warning> {
    if skipped.len() <= 3 {
        return skipped
            .iter()
            .map(|(label, why)| {
                Warning::new(
                    label,
                    WarningKind::PrimitiveSkipped {
                        why: why.to_string(),
                    },
                )
            })
            .collect();
    }
    let first = skipped[..3]
        .iter()
        .map(|(label, why)| format!("{label} ({why})"))
        .collect();
    vec![Warning::new(
        "",
        WarningKind::PrimitivesSkipped {
            count: skipped.len(),
            first,
        },
    )]
}

/// A buffer the files layer could not read, as the loader's [`ErrorKind`].
fn buffer_error(e: ReadError) -> ErrorKind {
    match e {
        ReadError::MissingFile { buffer, uri, path } => ErrorKind::MissingBuffer {
            buffer,
            uri,
            path: path.display().to_string(),
        },
        ReadError::ShortBuffer {
            buffer,
            expected,
            actual,
        } => ErrorKind::ShortBuffer {
            buffer,
            expected,
            actual,
        },
        ReadError::Io { buffer, error } => ErrorKind::Io {
            what: format!("buffer {buffer}"),
            error,
        },
        ReadError::NoBinChunk { .. } => ErrorKind::InvalidGltf(e.to_string()),
        other => ErrorKind::Gltf(other.to_string()),
    }
}

/// The gltf crate's validation (every index in range, required fields present, which its API
/// relies on), except for what glTF allows and gltf-json does not (listed in the filter below),
/// and that a POSITION accessor without `min`/`max` is accepted: the spec wants them, but many
/// exporters leave them out and nothing here needs them.
fn validate(doc: &gltf::Document) -> Result<(), ErrorKind> {
    use gltf::json::validation::{Error, Validate};
    let root = doc.as_json();
    // gltf-json 1.4.1's POSITION min/max hook indexes `accessors` before the index checks run,
    // so an out-of-range POSITION index would panic inside it: check those first.
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (semantic, index) in &prim.attributes {
                if index.value() >= root.accessors.len() {
                    return Err(ErrorKind::InvalidGltf(format!(
                        "meshes[{m}].primitives[{p}].attributes.{}: accessor {} does not exist ({} accessors)",
                        match semantic {
                            gltf::json::validation::Checked::Valid(s) => s.to_string(),
                            gltf::json::validation::Checked::Invalid => "?".into(),
                        },
                        index.value(),
                        root.accessors.len()
                    )));
                }
            }
        }
    }
    // gltf 1.4.1's Image::source unwraps mimeType (with bufferView) and uri (without), which
    // its validation does not require.
    for (i, image) in root.images.iter().enumerate() {
        let problem = match (&image.buffer_view, &image.mime_type, &image.uri) {
            (Some(_), None, _) => "has a bufferView but no mimeType",
            (None, _, None) => "has neither a uri nor a bufferView",
            _ => continue,
        };
        return Err(ErrorKind::InvalidGltf(format!("images[{i}] {problem}")));
    }
    let mut errors = Vec::new();
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        let path = path().as_str().to_owned();
        let missing = error == Error::Missing;
        // POSITION's bounds (see above); an accessor without a buffer view (all zeros, glTF
        // 2.0 §3.6.2.4); a primitive without POSITION (skipped with a warning: the spec makes
        // it optional); the required extensions, which `extensions::check_required` judged.
        let bounds = missing && (path.ends_with(".min") || path.ends_with(".max"));
        let zeros = missing && path.starts_with("accessors[") && path.ends_with(".bufferView");
        let no_position = missing && path.contains(".attributes") && path.ends_with("POSITION\"]");
        let required = path.starts_with("extensionsRequired");
        if !(bounds || zeros || no_position || required) {
            errors.push(format!("{path}: {error}"));
        }
    });
    if errors.is_empty() {
        return Ok(());
    }
    let more = errors.len().saturating_sub(3);
    errors.truncate(3);
    if more > 0 {
        errors.push(format!("and {more} more"));
    }
    Err(ErrorKind::InvalidGltf(errors.join("; ")))
}
