//! Primitives compressed with KHR_draco_mesh_compression, decoded by `draco-core` (a pure-Rust
//! Draco decoder, byte-exact with Google's C++ Draco 1.5.7) before anything reads the file's
//! accessors: each compressed primitive's indices and named attributes are decoded into a new
//! buffer, and their accessors point at it through new buffer views, so the one accessor reader
//! reads them as any other (the extension's "the accessors describe the decoded data").
//!
//! A primitive whose accessors all hold fallback data (a file that only uses the extension) is
//! read from that data, as it is. The accessor says what the decoded data becomes: its component type, whether it is
//! normalised, its count. Draco stores integers as they are (a normalised accessor reads them
//! normalised); an f32 accessor over a normalised Draco integer attribute gets the normalised
//! value.

use serde_json::{json, Value};

use super::error::ReadError;
use super::names::KHR_DRACO_MESH_COMPRESSION;
use super::read::{as_usize, MAX_ELEMENTS};
use super::ComponentType;

/// Decodes every Draco-compressed primitive of `json` from `buffers`: appends one buffer
/// holding the decoded data and points each compressed primitive's accessors at it. A file
/// without the extension is left as it is.
///
/// # Errors
/// [`ReadError::Draco`] naming the mesh and primitive, and what is wrong: the extension's
/// fields, the stream, or an attribute the stream does not hold.
pub(crate) fn expand(json: &mut Value, buffers: &mut Vec<Vec<u8>>) -> Result<(), ReadError> {
    let mut out = Vec::new();
    let mut done = std::collections::BTreeSet::new();
    let meshes = json["meshes"].as_array().map_or(0, Vec::len);
    for m in 0..meshes {
        let prims = json["meshes"][m]["primitives"]
            .as_array()
            .map_or(0, Vec::len);
        for p in 0..prims {
            let prim = json["meshes"][m]["primitives"][p].clone();
            let Some(ext) = prim["extensions"].get(KHR_DRACO_MESH_COMPRESSION) else {
                continue;
            };
            let mesh_name = json["meshes"][m]["name"]
                .as_str()
                .map_or_else(|| format!("mesh {m}"), |n| format!("mesh '{n}'"));
            let fail = |what: String| ReadError::Draco {
                primitive: format!("{mesh_name} primitive {p}"),
                what,
            };
            // Fallback data in every accessor (the extension only used, not required): read as
            // it is, uncompressed.
            let named = ext["attributes"].as_object().into_iter().flatten();
            let accessors: Vec<Option<usize>> = named
                .map(|(name, _)| as_usize(&prim["attributes"][name]))
                .chain(prim.get("indices").map(as_usize))
                .collect();
            let has_view = |a: &Option<usize>| {
                a.is_some_and(|a| json["accessors"][a].get("bufferView").is_some())
            };
            if accessors.iter().all(has_view) {
                continue;
            }
            let mesh = decode_stream(json, buffers, ext).map_err(fail)?;
            // A Draco mesh is indexed: its points are not a triangle list in order.
            let indices = as_usize(&prim["indices"])
                .ok_or_else(|| fail("the primitive has no indices".into()))?;
            let mut targets: Vec<(usize, Option<u32>)> = vec![(indices, None)];
            for (name, id) in ext["attributes"].as_object().into_iter().flatten() {
                let id = id
                    .as_u64()
                    .and_then(|i| u32::try_from(i).ok())
                    .ok_or_else(|| fail(format!("attribute {name}'s id is {id}")))?;
                let a = as_usize(&prim["attributes"][name]).ok_or_else(|| {
                    fail(format!("{name} is in the extension but not the primitive"))
                })?;
                targets.push((a, Some(id)));
            }
            for (a, id) in targets {
                if !done.insert(a) {
                    continue;
                }
                let bytes = accessor_data(json, a, id, &mesh).map_err(fail)?;
                // The file's decoded data together stays within what qtangent reads, 4 bytes an
                // element at most counted (a small stream that many primitives decode again
                // cannot grow without bound).
                if out.len().saturating_add(bytes.len()) > 4 * MAX_ELEMENTS {
                    return Err(fail(
                        "the decoded data is larger than qtangent reads".into(),
                    ));
                }
                out.resize(out.len().next_multiple_of(4), 0);
                let view = push(
                    json,
                    "bufferViews",
                    json!({
                        "buffer": buffers.len(),
                        "byteOffset": out.len(),
                        "byteLength": bytes.len(),
                    }),
                );
                out.extend_from_slice(&bytes);
                let acc = json
                    .get_mut("accessors")
                    .and_then(|l| l.get_mut(a))
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| fail(format!("accessor {a} does not exist")))?;
                acc.insert("bufferView".into(), json!(view));
                acc.remove("byteOffset");
                acc.remove("sparse");
            }
        }
    }
    if !done.is_empty() {
        push(json, "buffers", json!({ "byteLength": out.len() }));
        buffers.push(out);
    }
    Ok(())
}

/// Appends `item` to the array `key` of `json`; returns its index.
fn push(json: &mut Value, key: &str, item: Value) -> usize {
    if let Some(list) = json[key].as_array_mut() {
        list.push(item);
        return list.len() - 1;
    }
    json[key] = json!([item]);
    0
}

/// The Draco mesh of an extension object: its buffer view's bytes decoded.
fn decode_stream(
    json: &Value,
    buffers: &[Vec<u8>],
    ext: &Value,
) -> Result<draco_core::Mesh, String> {
    let v = as_usize(&ext["bufferView"]).ok_or("no bufferView")?;
    let view = &json["bufferViews"][v];
    let b = as_usize(&view["buffer"]).ok_or_else(|| format!("buffer view {v} has no buffer"))?;
    let start = as_usize(&view["byteOffset"]).unwrap_or(0);
    let length = as_usize(&view["byteLength"])
        .ok_or_else(|| format!("buffer view {v} has no byteLength"))?;
    let bytes = buffers
        .get(b)
        .and_then(|data| data.get(start..start.checked_add(length)?))
        .ok_or_else(|| format!("buffer view {v} runs past buffer {b}"))?;
    let mut buffer = draco_core::DecoderBuffer::new(bytes);
    let mut mesh = draco_core::Mesh::new();
    draco_core::MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .map_err(|e| format!("the Draco stream does not decode: {e}"))?;
    Ok(mesh)
}

/// Accessor `a`'s data from the decoded mesh: the faces' corners for the indices (`id`
/// `None`), else attribute `id` at every point, in the accessor's layout (tightly packed).
fn accessor_data(
    json: &Value,
    a: usize,
    id: Option<u32>,
    mesh: &draco_core::Mesh,
) -> Result<Vec<u8>, String> {
    let acc = &json["accessors"][a];
    let count = as_usize(&acc["count"]).ok_or_else(|| format!("accessor {a} has no count"))?;
    let component = acc["componentType"]
        .as_u64()
        .and_then(ComponentType::from_code)
        .ok_or_else(|| format!("accessor {a}'s componentType is {}", acc["componentType"]))?;
    let components = acc["type"]
        .as_str()
        .and_then(|t| t.parse::<super::AccessorType>().ok())
        .map(super::AccessorType::components)
        .ok_or_else(|| format!("accessor {a}'s type is {}", acc["type"]))?;
    if count.saturating_mul(components) > MAX_ELEMENTS {
        return Err(format!(
            "accessor {a} has {count} elements, more than qtangent reads"
        ));
    }
    let values: Vec<f32> = match id {
        None => {
            let faces = mesh.faces();
            if faces.len().saturating_mul(3) != count {
                return Err(format!(
                    "the indices accessor {a} counts {count}, the stream has {} triangles",
                    faces.len()
                ));
            }
            let corners: Vec<u32> = faces.iter().flatten().map(|p| p.0).collect();
            if corners.iter().any(|&i| i as usize >= mesh.num_points()) {
                return Err("a triangle names a point the stream does not have".into());
            }
            return Ok(match component {
                ComponentType::UnsignedByte if corners.iter().all(|&i| i <= 0xff) => {
                    corners.iter().map(|&i| i as u8).collect()
                }
                ComponentType::UnsignedShort if corners.iter().all(|&i| i <= 0xffff) => corners
                    .iter()
                    .flat_map(|&i| (i as u16).to_le_bytes())
                    .collect(),
                ComponentType::UnsignedInt => {
                    corners.iter().flat_map(|i| i.to_le_bytes()).collect()
                }
                _ => {
                    return Err(format!(
                        "the indices do not fit accessor {a}'s {}",
                        component.name()
                    ))
                }
            });
        }
        Some(id) => {
            let attr = mesh
                .attribute_by_unique_id(id)
                .ok_or_else(|| format!("the stream has no attribute {id}"))?;
            if mesh.num_points() != count {
                return Err(format!(
                    "accessor {a} counts {count}, the stream has {} points",
                    mesh.num_points()
                ));
            }
            let mut raw = attr.read_f32s(count, components);
            if component == ComponentType::Float && attr.normalized() {
                // glTF's normalisation: signed values clamped at −1 (the type's minimum is one
                // past −max).
                let max = integer_max(attr.data_type());
                raw.iter_mut().for_each(|v| *v = (*v / max).max(-1.0));
            }
            raw
        }
    };
    Ok(encode(&values, component))
}

/// The largest value of a Draco integer type, for normalising (1 for floats).
fn integer_max(t: draco_core::DataType) -> f32 {
    use draco_core::DataType as D;
    match t {
        D::Int8 => 127.0,
        D::Uint8 => 255.0,
        D::Int16 => 32767.0,
        D::Uint16 => 65535.0,
        D::Int32 => 2_147_483_647.0,
        D::Uint32 => 4_294_967_295.0,
        _ => 1.0,
    }
}

/// `values` in `component`'s little-endian form: floats as they are, integers rounded and
/// clamped to the type (Draco hands them over as they were stored).
fn encode(values: &[f32], component: ComponentType) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * component.bytes());
    for &v in values {
        match component {
            ComponentType::Float => out.extend_from_slice(&v.to_le_bytes()),
            ComponentType::Byte => out.push(v.round().clamp(-128.0, 127.0) as i8 as u8),
            ComponentType::UnsignedByte => out.push(v.round().clamp(0.0, 255.0) as u8),
            ComponentType::Short => {
                out.extend_from_slice(&(v.round().clamp(-32768.0, 32767.0) as i16).to_le_bytes());
            }
            ComponentType::UnsignedShort => {
                out.extend_from_slice(&(v.round().clamp(0.0, 65535.0) as u16).to_le_bytes());
            }
            ComponentType::UnsignedInt => {
                out.extend_from_slice(&(v.round().max(0.0) as u32).to_le_bytes());
            }
        }
    }
    out
}
