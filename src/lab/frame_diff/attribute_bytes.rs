//! What a glTF file spends on tangent frames, read from its accessors (and how large it is): the `NORMAL`, `TANGENT`
//! and `_QTANGENT` attributes of every mesh primitive, each element padded to 4 bytes, as glTF
//! 2.0 §3.6.2.4 requires of vertex attributes (`byteStride` and offsets multiples of 4: an
//! `i8×3` normal takes 4 bytes a vertex).

use std::path::Path;

use serde_json::Value;

use crate::gltf::names::QTANGENT_ATTRIBUTE;
use crate::gltf::read::{as_usize, describe};
use crate::gltf::uri::{resolve, Resolved};
use crate::gltf::{glb, AccessorLayout, ComponentType};
use crate::mesh::{ErrorKind, MeshError};

/// The frame attributes of one file (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FrameAttributeBytes {
    /// Vertices (`POSITION` elements) over every primitive of every mesh in the file.
    pub(crate) vertices: u64,
    /// Bytes of the frame attributes over those primitives, each element padded to 4.
    pub(crate) bytes: u64,
    /// Each distinct layout of the frame attributes of a primitive, in file order, e.g.
    /// `NORMAL snorm8x3 + TANGENT snorm8x4`, or `none`.
    pub(crate) layouts: Vec<String>,
    /// The size of the file and of the external files its buffers and images name.
    pub(crate) file_bytes: u64,
    /// Of those, the bytes of images: external image files and the buffer views images use.
    pub(crate) image_bytes: u64,
}

impl FrameAttributeBytes {
    /// Frame bytes per vertex, averaged over the vertices (0 for a file without vertices).
    #[must_use]
    pub(crate) fn per_vertex(&self) -> f64 {
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
pub(crate) fn frame_attribute_bytes(path: &Path) -> Result<FrameAttributeBytes, MeshError> {
    let file_err = |kind| MeshError::file(path, kind);
    let bytes = std::fs::read(path).map_err(|error| {
        file_err(ErrorKind::Io {
            what: "file".into(),
            error,
        })
    })?;
    let parts = glb::split(&bytes).map_err(|e| file_err(ErrorKind::Truncated(e.to_string())))?;
    let root: Value = serde_json::from_slice(parts.json)
        .map_err(|e| file_err(ErrorKind::InvalidJson(e.to_string())))?;
    let (file_bytes, image_bytes) = file_sizes(&root, path, bytes.len() as u64);
    let mut out = FrameAttributeBytes {
        file_bytes,
        image_bytes,
        ..FrameAttributeBytes::default()
    };
    for (m, mesh) in list(&root, "meshes").iter().enumerate() {
        for (p, prim) in list(mesh, "primitives").iter().enumerate() {
            let label = format!(
                "mesh '{}' primitive {p}",
                mesh.get("name")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("mesh {m}"), str::to_owned)
            );
            let layout = primitive_layout(&root, prim, &mut out)
                .map_err(|kind| MeshError::at(path, &label, kind))?;
            if !out.layouts.contains(&layout) {
                out.layouts.push(layout);
            }
        }
    }
    Ok(out)
}

/// `v[key]` as a list (empty when missing).
fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The bytes of the file (`bytes`) and of the external files its buffers and images name, and
/// of those the bytes of images (external files and the buffer views images use).
fn file_sizes(root: &Value, path: &Path, bytes: u64) -> (u64, u64) {
    // External files resolve next to this one; `data:` URIs are inside it already.
    let base = path.parent().unwrap_or(Path::new("."));
    let external = |item: &Value| {
        let uri = item.get("uri").and_then(Value::as_str)?;
        match resolve(uri, base).ok()? {
            Resolved::File(file) => std::fs::metadata(file).ok().map(|m| m.len()),
            Resolved::Data => None,
        }
    };
    let mut file_bytes = bytes
        + list(root, "buffers")
            .iter()
            .filter_map(external)
            .sum::<u64>();
    let mut image_bytes = 0;
    let views = list(root, "bufferViews");
    for image in list(root, "images") {
        let in_view = image
            .get("bufferView")
            .and_then(as_usize)
            .and_then(|v| views.get(v))
            .and_then(|v| v.get("byteLength").and_then(Value::as_u64));
        let outside = external(image);
        image_bytes += outside.or(in_view).unwrap_or(0);
        file_bytes += outside.unwrap_or(0);
    }
    (file_bytes, image_bytes)
}

/// Adds one primitive's vertices and frame-attribute bytes to `out`; returns its layout
/// (`NORMAL snorm8x3 + TANGENT snorm8x4`, or `none`).
fn primitive_layout(
    root: &Value,
    prim: &Value,
    out: &mut FrameAttributeBytes,
) -> Result<String, ErrorKind> {
    let mut parts = Vec::new();
    let attributes = prim.get("attributes").and_then(Value::as_object);
    for (name, index) in attributes.into_iter().flatten() {
        if !["POSITION", "NORMAL", "TANGENT", QTANGENT_ATTRIBUTE].contains(&name.as_str()) {
            continue;
        }
        let a = as_usize(index).ok_or_else(|| {
            ErrorKind::InvalidGltf(format!(
                "{name} names accessor {index}, which does not exist"
            ))
        })?;
        let accessor = describe(root, a).map_err(|detail| ErrorKind::AccessorOutOfBounds {
            attribute: name.clone(),
            accessor: a,
            detail: Box::new(detail),
        })?;
        let count = accessor.count as u64;
        if name == "POSITION" {
            out.vertices += count;
            continue;
        }
        out.bytes += count * accessor.layout.vertex_stride() as u64;
        parts.push(format!("{name} {}", short_name(accessor.layout)));
    }
    Ok(if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(" + ")
    })
}

/// A vector layout's short name: `f32x3`, `i16x4`, `snorm8x3`, `unorm16x2`.
fn short_name(layout: AccessorLayout) -> String {
    let bits = 8 * layout.component.bytes();
    let base = match (layout.component, layout.normalized) {
        (ComponentType::Float, _) => "f",
        (ComponentType::Byte | ComponentType::Short, true) => "snorm",
        (ComponentType::UnsignedByte | ComponentType::UnsignedShort, true) => "unorm",
        (ComponentType::Byte | ComponentType::Short, false) => "i",
        (_, false) | (ComponentType::UnsignedInt, true) => "u",
    };
    format!("{base}{bits}x{}", layout.kind.components())
}
