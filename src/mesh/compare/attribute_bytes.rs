//! What a glTF file spends on tangent frames, read from its accessors (and how large it is): the `NORMAL`, `TANGENT`
//! and `_QTANGENT` attributes of every mesh primitive, each element padded to 4 bytes, as glTF
//! 2.0 §3.6.2.4 requires of vertex attributes (`byteStride` and offsets multiples of 4: an
//! `i8×3` normal takes 4 bytes a vertex).

use std::path::Path;

use gltf::json::Value;

use crate::mesh::{ErrorKind, MeshError};

/// The frame attributes of one file (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameAttributeBytes {
    /// Vertices (`POSITION` elements) over every primitive of every mesh in the file.
    pub vertices: u64,
    /// Bytes of the frame attributes over those primitives, each element padded to 4.
    pub bytes: u64,
    /// Each distinct layout of the frame attributes of a primitive, in file order, e.g.
    /// `NORMAL snorm8x3 + TANGENT snorm8x4`, or `none`.
    pub layouts: Vec<String>,
    /// The size of the file and of the external files its buffers and images name.
    pub file_bytes: u64,
    /// Of those, the bytes of images: external image files and the buffer views images use.
    pub image_bytes: u64,
}

impl FrameAttributeBytes {
    /// Frame bytes per vertex, averaged over the vertices (0 for a file without vertices).
    #[must_use]
    pub fn per_vertex(&self) -> f64 {
        if self.vertices == 0 {
            0.0
        } else {
            self.bytes as f64 / self.vertices as f64
        }
    }
}

/// Reads the accessors of the `.gltf` or `.glb` file at `path` (its JSON only: no buffer is
/// read, and no extension needs to be understood), and the sizes of the file and the files it
/// names.
///
/// # Errors
/// The file cannot be read or is not glTF; an attribute names an accessor that does not exist
/// or has an invalid component type or type.
pub fn frame_attribute_bytes(path: &Path) -> Result<FrameAttributeBytes, MeshError> {
    let file_err = |kind| MeshError::file(path, kind);
    let bytes = std::fs::read(path).map_err(|error| {
        file_err(ErrorKind::Io {
            what: "file".into(),
            error,
        })
    })?;
    // The JSON itself, not the gltf crate's document: that knows `_QTANGENT` only with its
    // `extras` feature, and nothing here needs more than five fields.
    let bytes_len = bytes.len() as u64;
    let json = if bytes.starts_with(b"glTF") {
        gltf::binary::Glb::from_slice(&bytes)
            .map_err(|e| file_err(ErrorKind::Truncated(format!("GLB: {e}"))))?
            .json
            .into_owned()
    } else {
        bytes
    };
    let root: Value = gltf::json::deserialize::from_slice(&json)
        .map_err(|e| file_err(ErrorKind::InvalidJson(e.to_string())))?;
    let list = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let accessors = list(&root, "accessors");
    let mut out = FrameAttributeBytes {
        file_bytes: bytes_len,
        ..FrameAttributeBytes::default()
    };
    // External files resolve next to this one; `data:` URIs are inside it already.
    let base = path.parent().unwrap_or(Path::new("."));
    let external = |item: &Value| {
        let uri = item.get("uri").and_then(Value::as_str)?;
        if uri.starts_with("data:") {
            return None;
        }
        let name = urlencoding::decode(uri).map_or_else(|_| uri.into(), |d| d.into_owned());
        std::fs::metadata(base.join(name)).ok().map(|m| m.len())
    };
    out.file_bytes += list(&root, "buffers")
        .iter()
        .filter_map(external)
        .sum::<u64>();
    let views = list(&root, "bufferViews");
    for image in list(&root, "images") {
        let in_view = image
            .get("bufferView")
            .and_then(Value::as_u64)
            .and_then(|v| views.get(usize::try_from(v).ok()?))
            .and_then(|v| v.get("byteLength").and_then(Value::as_u64));
        let outside = external(&image);
        out.image_bytes += outside.or(in_view).unwrap_or(0);
        out.file_bytes += outside.unwrap_or(0);
    }
    for (m, mesh) in list(&root, "meshes").iter().enumerate() {
        for (p, prim) in list(mesh, "primitives").iter().enumerate() {
            let label = format!(
                "mesh '{}' primitive {p}",
                mesh.get("name")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("mesh {m}"), str::to_owned)
            );
            let bad = |what: String| MeshError::at(path, &label, ErrorKind::InvalidGltf(what));
            let mut parts = Vec::new();
            let attributes = prim.get("attributes").and_then(Value::as_object);
            for (name, index) in attributes.into_iter().flatten() {
                if !["POSITION", "NORMAL", "TANGENT", "_QTANGENT"].contains(&name.as_str()) {
                    continue;
                }
                let accessor = index
                    .as_u64()
                    .and_then(|i| accessors.get(usize::try_from(i).ok()?))
                    .ok_or_else(|| {
                        bad(format!(
                            "{name} names accessor {index}, which does not exist"
                        ))
                    })?;
                let count = accessor.get("count").and_then(Value::as_u64);
                let component = accessor
                    .get("componentType")
                    .and_then(Value::as_u64)
                    .and_then(component);
                let components = accessor
                    .get("type")
                    .and_then(Value::as_str)
                    .and_then(components);
                let (Some(count), Some((size, base)), Some(components)) =
                    (count, component, components)
                else {
                    return Err(bad(format!(
                        "{name}'s accessor {index} has no valid count, componentType or type"
                    )));
                };
                if name == "POSITION" {
                    out.vertices += count;
                    continue;
                }
                let element = size * components;
                out.bytes += count * element.next_multiple_of(4);
                let normalized = accessor.get("normalized").and_then(Value::as_bool) == Some(true);
                let base = match (normalized, base.strip_prefix('i'), base.strip_prefix('u')) {
                    (true, Some(bits), _) => format!("snorm{bits}"),
                    (true, _, Some(bits)) => format!("unorm{bits}"),
                    _ => base.to_string(),
                };
                parts.push(format!("{name} {base}x{components}"));
            }
            let layout = if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(" + ")
            };
            if !out.layouts.contains(&layout) {
                out.layouts.push(layout);
            }
        }
    }
    Ok(out)
}

/// A glTF `componentType`'s size in bytes and short name (glTF 2.0 §3.6.2.2).
fn component(code: u64) -> Option<(u64, &'static str)> {
    Some(match code {
        5120 => (1, "i8"),
        5121 => (1, "u8"),
        5122 => (2, "i16"),
        5123 => (2, "u16"),
        5125 => (4, "u32"),
        5126 => (4, "f32"),
        _ => return None,
    })
}

/// The number of components of an accessor `type` (vectors only: attributes are never matrices).
fn components(kind: &str) -> Option<u64> {
    Some(match kind {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        _ => return None,
    })
}
