//! glTF 2.0 (`.gltf` with external or data-URI buffers, and `.glb`) through the `gltf` crate.
//!
//! The JSON is fixed up where gltf-json requires what glTF makes optional ([`patch`]), the
//! required extensions are checked by qtangent's own rules ([`extensions`]), and the crate
//! validates the rest; this module checks what it does not before reading (accessor types and
//! byte ranges, so its readers never see an out-of-bounds or mistyped accessor: [`accessor`]),
//! reads vertex attributes of any KHR_mesh_quantization type ([`quantized`]), converts strips
//! and fans to lists and skips points and lines ([`primitive`]), walks the node tree for world
//! transforms and skins ([`nodes`]), reads materials and their textures ([`materials`]) with
//! their KHR_texture_transform ([`texture_transform`]), and reads animations (checking their
//! key times and values, so sampling never sees a NaN or an out-of-order key: [`animation`]).
//! This file holds the entry point, the document checks and buffer loading.

mod accessor;
mod animation;
mod extensions;
mod materials;
mod nodes;
mod patch;
mod primitive;
mod qtangent;
mod quantized;
mod texture_transform;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::Mat4;

use self::accessor::MAX_ELEMENTS;
use self::animation::{check_animation_indices, read_animation};
use self::materials::{image_source, material};
use self::nodes::{node_parents, node_world_matrices, read_nodes, read_skin};
use self::primitive::{read_primitive, Outcome};
use crate::mesh::{repair, ErrorKind, Instance, Mesh, MeshError, Scene};

pub(super) fn load_slice(
    name: &Path,
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<Scene, MeshError> {
    let file_err = |kind| MeshError::file(name, kind);
    // gltf 1.4.1 subtracts the 12-byte header from the GLB length field unchecked.
    if let Some(length) = bytes.strip_prefix(b"glTF").and_then(|b| b.get(4..8)) {
        let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]);
        if length < 12 {
            return Err(file_err(ErrorKind::Truncated(format!(
                "GLB header says the file is {length} bytes, less than the header itself"
            ))));
        }
    }
    let mut warnings = Vec::new();
    let gltf = patch::parse(bytes, &mut warnings).map_err(file_err)?;
    extensions::check_required(gltf.document.as_json(), &mut warnings).map_err(file_err)?;
    check_animation_indices(gltf.document.as_json())
        .map_err(|(label, kind)| MeshError::at(name, &label, kind))?;
    validate(&gltf.document).map_err(file_err)?;
    let buffers = load_buffers(&gltf, base).map_err(file_err)?;
    let doc = &gltf.document;

    let images = doc
        .images()
        .map(|i| image_source(&i, base, &buffers))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;
    let materials = doc
        .materials()
        .map(|m| material(doc, &m, &images, &mut warnings))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;

    let parents = node_parents(doc).map_err(file_err)?;
    let world = node_world_matrices(doc, &parents).map_err(file_err)?;
    let nodes = read_nodes(doc, &parents, &mut warnings);
    let skins = doc
        .skins()
        .map(|skin| read_skin(&skin, &buffers, &world))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;

    let mut instances_of: HashMap<usize, Vec<Instance>> = HashMap::new();
    for n in doc.nodes() {
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
    let mut budget = MAX_ELEMENTS;
    let mut skipped: Vec<(String, String)> = Vec::new();
    for mesh in doc.meshes() {
        let mesh_name = mesh
            .name()
            .map_or_else(|| format!("mesh {}", mesh.index()), str::to_owned);
        let mut primitives = Vec::new();
        for prim in mesh.primitives() {
            let label = format!("mesh '{mesh_name}' primitive {}", prim.index());
            let at = |kind| MeshError::at(name, &label, kind);
            let mut p = match read_primitive(
                &prim,
                &buffers,
                doc,
                &images,
                label.clone(),
                &mut budget,
                &mut warnings,
            )
            .map_err(at)?
            {
                Outcome::Triangles(p) => *p,
                Outcome::Skipped(what) => {
                    skipped.push((label, what));
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
        let instances = instances_of.remove(&mesh.index()).unwrap_or_default();
        meshes.push(Mesh {
            name: mesh_name,
            primitives,
            instances,
        });
    }
    if meshes.is_empty() {
        return Err(file_err(ErrorKind::NoMeshes));
    }
    if meshes.iter().all(|m| m.primitives.is_empty()) {
        let mut kinds: Vec<&str> = Vec::new();
        for (_, what) in &skipped {
            let kind = what.split(" (").next().unwrap_or(what);
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        return Err(file_err(ErrorKind::NoTrianglesAtAll(format!(
            "{} primitive(s) skipped ({})",
            skipped.len(),
            kinds.join(", ")
        ))));
    }
    warnings.extend(skipped_warnings(&skipped));
    let mut skipped = Vec::new();
    let animations = doc
        .animations()
        .map(|a| read_animation(name, doc.as_json(), &a, &buffers, &mut budget, &mut skipped))
        .collect::<Result<Vec<_>, _>>()?;
    if !skipped.is_empty() {
        let count = skipped.len();
        let more = count.saturating_sub(3);
        skipped.truncate(3);
        if more > 0 {
            skipped.push(format!("and {more} more"));
        }
        warnings.push(format!(
            "{count} morph target weights animation channel(s) skipped (not supported): {}",
            skipped.join(", ")
        ));
    }
    Ok(Scene {
        source: name.to_path_buf(),
        meshes,
        materials,
        skins,
        nodes,
        animations,
        warnings,
    })
}

/// Warnings for skipped primitives: one each for up to three, else one line naming the first
/// three and counting the rest. `(label, what)` pairs, `what` a mode name (`LINES`) or a short
/// reason (`no POSITION`).
fn skipped_warnings(skipped: &[(String, String)]) -> Vec<String> {
    const WHY: &str = "only triangles are drawn";
    if skipped.len() <= 3 {
        return skipped
            .iter()
            .map(|(label, what)| format!("{label}: {what} skipped ({WHY})"))
            .collect();
    }
    let first: Vec<String> = skipped[..3]
        .iter()
        .map(|(label, what)| format!("{label} ({what})"))
        .collect();
    vec![format!(
        "{} primitives skipped ({WHY}): {}, and {} more",
        skipped.len(),
        first.join(", "),
        skipped.len() - 3
    )]
}

/// The gltf crate's error as an [`ErrorKind`] (serde's JSON errors: truncated at the end, else
/// invalid JSON).
fn gltf_error(e: gltf::Error) -> ErrorKind {
    match e {
        gltf::Error::Io(error) => ErrorKind::Io {
            what: "file".into(),
            error,
        },
        gltf::Error::Deserialize(e) if e.is_eof() => ErrorKind::Truncated(e.to_string()),
        gltf::Error::Deserialize(e) => ErrorKind::InvalidJson(e.to_string()),
        gltf::Error::Binary(e) => ErrorKind::Truncated(format!("GLB: {e}")),
        gltf::Error::BufferLength {
            buffer,
            expected,
            actual,
        } => ErrorKind::ShortBuffer {
            buffer,
            expected,
            actual,
        },
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

/// Reads every buffer. External files are resolved first, the way the gltf crate will (`file:`
/// URIs as paths, relative URIs percent-decoded against `base`), and must be regular files, so
/// a missing one is named, and a device or FIFO (`/dev/zero`) is refused rather than read
/// forever. Other schemes are refused.
fn load_buffers(
    gltf: &gltf::Gltf,
    base: Option<&Path>,
) -> Result<Vec<gltf::buffer::Data>, ErrorKind> {
    for buffer in gltf.document.buffers() {
        let index = buffer.index();
        match buffer.source() {
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {}
            gltf::buffer::Source::Uri(uri) => {
                let Some(base) = base else {
                    return Err(ErrorKind::Gltf(format!(
                        "buffer {index} refers to the external file '{uri}', but the data came from memory"
                    )));
                };
                let path = if let Some(rest) = uri
                    .strip_prefix("file://")
                    .or_else(|| uri.strip_prefix("file:"))
                {
                    PathBuf::from(rest)
                } else if uri.contains(':') {
                    return Err(ErrorKind::Gltf(format!(
                        "buffer {index} URI '{uri}' has a scheme other than data: or file:"
                    )));
                } else {
                    let decoded = urlencoding::decode(uri).map_err(|e| {
                        ErrorKind::InvalidGltf(format!("buffer {index} URI '{uri}': {e}"))
                    })?;
                    base.join(&*decoded)
                };
                if !path.is_file() {
                    return Err(ErrorKind::MissingBuffer {
                        buffer: index,
                        uri: uri.to_owned(),
                        path: path.display().to_string(),
                    });
                }
            }
            gltf::buffer::Source::Bin if gltf.blob.is_none() => {
                return Err(ErrorKind::InvalidGltf(format!(
                    "buffer {index} refers to the GLB binary chunk, but the file has none"
                )));
            }
            gltf::buffer::Source::Bin => {}
        }
    }
    gltf::import_buffers(&gltf.document, base, gltf.blob.clone()).map_err(|e| match e {
        gltf::Error::Io(error) => ErrorKind::Io {
            what: "a buffer".into(),
            error,
        },
        other => gltf_error(other),
    })
}
