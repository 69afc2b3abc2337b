//! `qtangent inspect`: what a glTF file holds, read from its JSON and the headers of its images,
//! as a table or (`--json`) one JSON object: its extensions; per primitive its vertices,
//! triangles, attributes (layout, count, bytes) and frames (`_QTANGENT`'s format and bound, or
//! NORMAL/TANGENT, or none), its maps; materials and their textures (image format, size, bytes
//! on disk and on the GPU); totals. An OBJ holds none of this: it is refused with a hint.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use qtangent::Format;
use serde_json::{json, Value};

/// `qtangent inspect`'s flags.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// A .gltf or .glb file (.obj too with --formats).
    input: PathBuf,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// Instead of the file's structure: each primitive's frames (sources, mirrored triangles,
    /// split and fallback vertices) and what every qtangent format does to them, against its
    /// bound; exits 1 if a format exceeds its bound. On a packed file, its own format's row is
    /// the check of the frames it holds.
    #[arg(long)]
    formats: bool,
}

/// A glTF document and its buffers (`None` where a buffer cannot be read: a data URI, a
/// missing file, the meshopt fallback).
struct Doc {
    json: Value,
    buffers: Vec<Option<Vec<u8>>>,
    bytes: u64,
    binary: bool,
}

fn read_doc(path: &Path) -> Result<Doc, String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let bytes = std::fs::read(path).map_err(|e| fail(&e))?;
    let binary = bytes.starts_with(b"glTF");
    let (json, bin): (Value, Option<Vec<u8>>) = if binary {
        let word = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let len = word(12).ok_or_else(|| fail(&"a GLB cut short"))?;
        let text = bytes
            .get(20..20 + len)
            .ok_or_else(|| fail(&"a GLB cut short"))?;
        let at = 20 + len;
        let bin = word(at).and_then(|n| bytes.get(at + 8..at + 8 + n).map(<[u8]>::to_vec));
        let json = serde_json::from_slice(text).map_err(|e| fail(&e))?;
        (json, bin)
    } else {
        let json = serde_json::from_slice(&bytes).map_err(|e| {
            fail(&format!(
                "not glTF JSON ({e}); qtangent inspect reads .gltf and .glb files"
            ))
        })?;
        (json, None)
    };
    if json["asset"]["version"]
        .as_str()
        .is_some_and(|v| !v.starts_with('2'))
    {
        return Err(fail(&format!(
            "glTF {} is not supported (glTF 2.0 is)",
            json["asset"]["version"].as_str().unwrap_or("?")
        )));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let buffers = json["buffers"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(k, b)| match b["uri"].as_str() {
            None if k == 0 => bin.clone(),
            Some(u) if !u.starts_with("data:") => std::fs::read(dir.join(u)).ok(),
            _ => None,
        })
        .collect();
    Ok(Doc {
        json,
        buffers,
        bytes: crate::output::bytes_on_disk(path),
        binary,
    })
}

const fn component_bytes(code: u64) -> u64 {
    match code {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        _ => 4,
    }
}

fn components(kind: &str) -> u64 {
    match kind {
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        _ => 1,
    }
}

/// An accessor's layout in words (`u16×3`, `unorm8×4`, `f32×2`) and its bytes (elements padded
/// to 4 bytes, as vertex attributes are).
fn layout(acc: &Value, vertex: bool) -> (String, u64) {
    let code = acc["componentType"].as_u64().unwrap_or(5126);
    let n = components(acc["type"].as_str().unwrap_or("SCALAR"));
    let normalized = acc["normalized"].as_bool().unwrap_or(false);
    let name = match (code, normalized) {
        (5120, true) => "snorm8",
        (5120, false) => "i8",
        (5121, true) => "unorm8",
        (5121, false) => "u8",
        (5122, true) => "snorm16",
        (5122, false) => "i16",
        (5123, true) => "unorm16",
        (5123, false) => "u16",
        (5125, _) => "u32",
        _ => "f32",
    };
    let element = component_bytes(code) * n;
    let element = if vertex {
        element.next_multiple_of(4)
    } else {
        element
    };
    let count = acc["count"].as_u64().unwrap_or(0);
    let bytes = element.saturating_mul(count);
    let shown = if n == 1 {
        name.to_string()
    } else {
        format!("{name}×{n}")
    };
    (shown, bytes)
}

/// The frames a primitive carries: `_QTANGENT`'s format (by the extension, else by the
/// accessor's layout) and bound, NORMAL and TANGENT, or none.
fn frames(doc: &Doc, prim: &Value) -> Value {
    let attrs = &prim["attributes"];
    let ext = &prim["extensions"]["QTANGENT_frames"];
    if let Some(a) = attrs["_QTANGENT"].as_u64() {
        let acc = &doc.json["accessors"][a as usize];
        let named = ext["format"]
            .as_str()
            .and_then(|f| f.parse::<Format>().ok());
        let by_layout = Format::from_gltf_layout(
            acc["componentType"].as_u64().unwrap_or(0) as u32,
            components(acc["type"].as_str().unwrap_or("")) as usize,
            acc["normalized"].as_bool().unwrap_or(false),
        );
        return match named.or(by_layout) {
            Some(f) => json!({
                "kind": "qtangent", "format": f.name(), "bytes": f.bytes(),
                "bound_deg": f.max_error_deg(),
                "named_by": if named.is_some() { "QTANGENT_frames" } else { "accessor layout" },
            }),
            None => json!({ "kind": "qtangent", "format": null }),
        };
    }
    match (
        attrs.get("NORMAL").is_some(),
        attrs.get("TANGENT").is_some(),
    ) {
        (true, true) => json!({ "kind": "NORMAL and TANGENT" }),
        (true, false) => json!({ "kind": "NORMAL (readers make tangents)" }),
        _ => json!({ "kind": "none (readers make flat normals)" }),
    }
}

/// One primitive's row.
fn primitive(doc: &Doc, mesh: &Value, m: usize, p: usize, prim: &Value) -> Value {
    let accessors = &doc.json["accessors"];
    let mut attributes = Vec::new();
    let mut bytes = 0;
    for (name, a) in prim["attributes"].as_object().into_iter().flatten() {
        let acc = &accessors[a.as_u64().unwrap_or(u64::MAX) as usize];
        let (shown, b) = layout(acc, true);
        bytes = u64::saturating_add(bytes, b);
        attributes
            .push(json!({ "name": name, "layout": shown, "count": acc["count"], "bytes": b }));
    }
    let vertices = prim["attributes"]["POSITION"]
        .as_u64()
        .and_then(|a| accessors[a as usize]["count"].as_u64())
        .unwrap_or(0);
    let (indices, triangles) = match prim["indices"].as_u64() {
        Some(a) => {
            let acc = &accessors[a as usize];
            let (shown, b) = layout(acc, false);
            bytes = u64::saturating_add(bytes, b);
            let count = acc["count"].as_u64().unwrap_or(0);
            (
                json!({ "layout": shown, "count": count, "bytes": b }),
                count / 3,
            )
        }
        None => (Value::Null, vertices / 3),
    };
    let mut maps = Vec::new();
    if let Some(t) = prim["extensions"]["QTANGENT_frames"]["objectMap"]["index"].as_u64() {
        maps.push(json!({ "kind": "object", "texture": t }));
    }
    let material = prim["material"].as_u64();
    if let Some(t) = material.and_then(|k| {
        doc.json["materials"][k as usize]["extensions"]["QTANGENT_frames"]["tangentMap"]["index"]
            .as_u64()
    }) {
        maps.push(json!({ "kind": "tangent", "texture": t }));
    }
    json!({
        "mesh": mesh["name"].as_str().map_or_else(|| format!("mesh {m}"), String::from),
        "primitive": p,
        "vertices": vertices,
        "triangles": triangles,
        "frames": frames(doc, prim),
        "attributes": attributes,
        "indices": indices,
        "targets": prim["targets"].as_array().map_or(0, Vec::len),
        "maps": maps,
        "material": material,
        "bytes": bytes,
    })
}

/// An image's bytes as the file holds them: its buffer view's, or its file's.
fn image_bytes(doc: &Doc, dir: &Path, image: &Value) -> Option<Vec<u8>> {
    if let Some(v) = image["bufferView"].as_u64() {
        let view = &doc.json["bufferViews"][v as usize];
        let buffer = doc
            .buffers
            .get(view["buffer"].as_u64()? as usize)?
            .as_ref()?;
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        let len = view["byteLength"].as_u64()? as usize;
        return buffer
            .get(start..start.checked_add(len)?)
            .map(<[u8]>::to_vec);
    }
    let uri = image["uri"].as_str().filter(|u| !u.starts_with("data:"))?;
    std::fs::read(dir.join(uri)).ok()
}

/// Bytes of a `w`×`h` RGBA8 texture with its mip chain (a third more), saturating.
fn rgba8_with_mips(w: u64, h: u64) -> u64 {
    w.saturating_mul(h).saturating_mul(16) / 3
}

fn u32_le(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 4)
        .map(|w| u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
}

fn u64_le(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 8).map(|w| {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        u64::from_le_bytes(a)
    })
}

/// Format, width, height and GPU bytes of an image file's bytes, from its header: PNG and JPEG
/// as RGBA8 with a full mip chain (×4/3); KTX2 as its levels hold them (the uncompressed length
/// of each; a Basis Universal image, which a loader transcodes, as 1 byte a texel).
fn image_info(bytes: &[u8]) -> (String, u64, u64, u64) {
    if bytes.starts_with(b"\x89PNG") {
        let be = |at: usize| {
            bytes.get(at..at + 4).map_or(0, |w| {
                u64::from(u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            })
        };
        let (w, h) = (be(16), be(20));
        return ("PNG".into(), w, h, rgba8_with_mips(w, h));
    }
    if bytes.starts_with(b"\xabKTX 20\xbb") {
        let (w, h) = (
            u32_le(bytes, 20).unwrap_or(0),
            u32_le(bytes, 24).unwrap_or(0),
        );
        // A KTX2 file has at most 32 levels (16384 texels a side needs 15); more is a broken
        // header, read no further.
        let levels = u32_le(bytes, 40).unwrap_or(1).clamp(1, 32);
        let scheme = u32_le(bytes, 44).unwrap_or(0);
        let vk = u32_le(bytes, 12).unwrap_or(0);
        let gpu: u64 = (0..levels)
            .filter_map(|k| u64_le(bytes, 80 + 24 * k as usize + 16))
            .sum();
        let gpu = if scheme == 1 || gpu == 0 {
            w.saturating_mul(h).saturating_mul(4) / 3
        } else {
            gpu
        };
        // Vulkan's format codes (the KTX2 header's vkFormat).
        let name = match vk {
            141 | 142 => "KTX2 BC5",
            143 | 144 => "KTX2 BC6H",
            145 | 146 => "KTX2 BC7",
            37 | 43 => "KTX2 RGBA8",
            38 => "KTX2 RGBA8 SNORM",
            91 => "KTX2 RGBA16",
            92 => "KTX2 RGBA16 SNORM",
            97 => "KTX2 RGBA16F",
            109 => "KTX2 RGBA32F",
            0 => "KTX2 Basis Universal",
            _ => "KTX2",
        };
        let name = if name == "KTX2" {
            format!("KTX2 (vkFormat {vk})")
        } else {
            name.to_string()
        };
        return (name, w, h, gpu);
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        // The first start-of-frame marker (SOF0–SOF15 but DHT, JPG, DAC) holds the size.
        let mut at = 2;
        while at + 9 < bytes.len() {
            if bytes[at] != 0xFF {
                break;
            }
            let marker = bytes[at + 1];
            let len = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
            if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
                let h = u64::from(u16::from_be_bytes([bytes[at + 5], bytes[at + 6]]));
                let w = u64::from(u16::from_be_bytes([bytes[at + 7], bytes[at + 8]]));
                return ("JPEG".into(), w, h, rgba8_with_mips(w, h));
            }
            at += 2 + len;
        }
        return ("JPEG".into(), 0, 0, 0);
    }
    ("unknown".into(), 0, 0, 0)
}

/// Every image: what it is and its bytes on disk and on the GPU.
fn images(doc: &Doc, dir: &Path) -> Vec<Value> {
    doc.json["images"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(k, image)| {
            let bytes = image_bytes(doc, dir, image).unwrap_or_default();
            let (format, w, h, gpu) = image_info(&bytes);
            json!({
                "image": k, "name": image["name"], "format": format, "width": w, "height": h,
                "disk_bytes": bytes.len(), "gpu_bytes": gpu,
            })
        })
        .collect()
}

/// A texture reference's image: the extension's (QTANGENT_frames, KHR_texture_basisu), else
/// the core source.
fn texture_image(doc: &Doc, texture: u64) -> Option<u64> {
    let t = &doc.json["textures"][texture as usize];
    t["extensions"]["QTANGENT_frames"]["source"]
        .as_u64()
        .or_else(|| t["extensions"]["KHR_texture_basisu"]["source"].as_u64())
        .or_else(|| t["source"].as_u64())
}

/// Every `…Texture`/`…Map` slot of a material (its extensions' included): (slot, texture).
fn material_slots(v: &Value, path: &str, out: &mut Vec<(String, u64)>) {
    if let Some(obj) = v.as_object() {
        for (k, c) in obj {
            let here = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            match c["index"].as_u64() {
                Some(t) if k.ends_with("Texture") || k.ends_with("Map") => out.push((here, t)),
                _ => material_slots(c, &here, out),
            }
        }
    }
}

fn materials(doc: &Doc) -> Vec<Value> {
    doc.json["materials"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(k, m)| {
            let mut slots = Vec::new();
            material_slots(m, "", &mut slots);
            let textures: Vec<Value> = slots
                .into_iter()
                .map(|(slot, t)| json!({ "slot": slot, "texture": t, "image": texture_image(doc, t) }))
                .collect();
            json!({ "material": k, "name": m["name"], "textures": textures })
        })
        .collect()
}

/// The whole report as JSON.
fn report(path: &Path, doc: &Doc) -> Value {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut prims = Vec::new();
    for (m, mesh) in doc.json["meshes"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (p, prim) in mesh["primitives"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            prims.push(primitive(doc, mesh, m, p, prim));
        }
    }
    let images = images(doc, dir);
    let sum = |list: &[Value], key: &str| {
        list.iter()
            .filter_map(|v| v[key].as_u64())
            .fold(0u64, u64::saturating_add)
    };
    let list = |key: &str| doc.json[key].as_array().cloned().unwrap_or_default();
    json!({
        "file": path.to_string_lossy(),
        "container": if doc.binary { "GLB" } else { "glTF JSON" },
        "bytes": doc.bytes,
        "generator": doc.json["asset"]["generator"],
        "extensions_used": list("extensionsUsed"),
        "extensions_required": list("extensionsRequired"),
        "primitives": prims,
        "materials": materials(doc),
        "images": images,
        "totals": {
            "primitives": prims.len(),
            "vertices": sum(&prims, "vertices"),
            "triangles": sum(&prims, "triangles"),
            "vertex_and_index_bytes": sum(&prims, "bytes"),
            "image_disk_bytes": sum(&images, "disk_bytes"),
            "image_gpu_bytes": sum(&images, "gpu_bytes"),
            "animations": list("animations").len(),
            "skins": list("skins").len(),
            "nodes": list("nodes").len(),
        },
    })
}

fn kb(bytes: u64) -> String {
    format!("{:.1} kB", bytes as f64 / 1000.0)
}

/// The report as text: a header, the extensions, a table of primitives, one of materials and
/// their textures, the totals.
/// `writeln!` into a String (which cannot fail).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

fn print(out: &mut String, r: &Value) {
    let names = |v: &Value| {
        let list: Vec<&str> = v
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        }
    };
    outln!(
        out,
        "{}: {} ({}), {}",
        r["file"].as_str().unwrap_or(""),
        kb(r["bytes"].as_u64().unwrap_or(0)),
        r["container"].as_str().unwrap_or(""),
        r["generator"].as_str().map_or_else(
            || "no generator named".to_string(),
            |g| format!("generator \"{g}\"")
        )
    );
    outln!(out, "extensions used: {}", names(&r["extensions_used"]));
    outln!(
        out,
        "extensions required: {}",
        names(&r["extensions_required"])
    );
    print_primitives(out, r);
    print_frame_checks(out, r);
    print_materials(out, r);
    let t = &r["totals"];
    outln!(out,
        "\ntotals: {} primitive(s), {} vertices, {} triangles; vertex and index data {}; images {} on disk, {} on the GPU; {} node(s), {} skin(s), {} animation(s)",
        t["primitives"], t["vertices"], t["triangles"],
        kb(t["vertex_and_index_bytes"].as_u64().unwrap_or(0)),
        kb(t["image_disk_bytes"].as_u64().unwrap_or(0)),
        kb(t["image_gpu_bytes"].as_u64().unwrap_or(0)),
        t["nodes"], t["skins"], t["animations"]
    );
}

/// A frame check's last word: ok, or which part failed.
fn verdict(c: &Value) -> &'static str {
    let over = c["max_error_deg"]
        .as_f64()
        .zip(c["bound_deg"].as_f64())
        .is_none_or(|(m, b)| {
            !matches!(
                m.partial_cmp(&b),
                Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
            )
        });
    if c["within_bound"] == true {
        "ok"
    } else if over || c["handedness_errors"].as_u64() != Some(0) {
        "OVER THE BOUND"
    } else {
        "FAILED: these are not the mesh's frames"
    }
}

/// The frame check of each `_QTANGENT` primitive (`inspect_formats::frame_checks`).
fn print_frame_checks(out: &mut String, r: &Value) {
    let checked: Vec<&Value> = r["primitives"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| !p["frame_check"].is_null())
        .collect();
    if checked.is_empty() {
        return;
    }
    outln!(
        out,
        "
frame check (the frames `_QTANGENT` holds, decoded and encoded again in its format):"
    );
    for p in checked {
        let c = &p["frame_check"];
        let name = format!(
            "{} / {}",
            p["mesh"].as_str().unwrap_or_default(),
            p["primitive"]
        );
        match c["error"].as_str() {
            Some(e) => outln!(out, "  {name}: FAILED: {e}"),
            None => outln!(
                out,
                "  {name}: {} frames, max {:.4}° against the bound {}°, {} facing away from their triangles{}: {}",
                c["frames"],
                c["max_error_deg"].as_f64().unwrap_or(f64::NAN),
                c["bound_deg"],
                c["facing_away"],
                match c["handedness_errors"].as_u64() {
                    Some(0) | None => String::new(),
                    Some(n) => format!(", {n} handedness errors"),
                },
                verdict(c)
            ),
        }
    }
}

/// The table of primitives.
fn print_primitives(out: &mut String, r: &Value) {
    outln!(
        out,
        "\n| mesh / primitive | vertices | triangles | frames | maps | attributes | bytes |"
    );
    outln!(out, "|---|---:|---:|---|---|---|---:|");
    for p in r["primitives"].as_array().into_iter().flatten() {
        let f = &p["frames"];
        let frames = match f["format"].as_str() {
            Some(name) => format!(
                "`_QTANGENT` {name} ({} B, bound {}°; named by {})",
                f["bytes"],
                f["bound_deg"],
                f["named_by"].as_str().unwrap_or("")
            ),
            None => f["kind"].as_str().unwrap_or("").to_string(),
        };
        let maps: Vec<String> = p["maps"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| {
                format!(
                    "{} (texture {})",
                    m["kind"].as_str().unwrap_or(""),
                    m["texture"]
                )
            })
            .collect();
        let mut attrs: Vec<String> = p["attributes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                format!(
                    "{} {}",
                    a["name"].as_str().unwrap_or(""),
                    a["layout"].as_str().unwrap_or("")
                )
            })
            .collect();
        if let Some(layout) = p["indices"]["layout"].as_str() {
            attrs.push(format!("indices {layout}"));
        }
        let targets = p["targets"].as_u64().unwrap_or(0);
        if targets > 0 {
            attrs.push(format!("{targets} morph target(s)"));
        }
        outln!(
            out,
            "| {} / {} | {} | {} | {frames} | {} | {} | {} |",
            p["mesh"].as_str().unwrap_or(""),
            p["primitive"],
            p["vertices"],
            p["triangles"],
            if maps.is_empty() {
                "none".into()
            } else {
                maps.join(", ")
            },
            attrs.join(", "),
            kb(p["bytes"].as_u64().unwrap_or(0))
        );
    }
}

/// The table of materials and their textures.
fn print_materials(out: &mut String, r: &Value) {
    let images = r["images"].as_array().cloned().unwrap_or_default();
    let image = |k: &Value| -> String {
        k.as_u64().and_then(|k| images.get(k as usize)).map_or_else(
            || "no image".into(),
            |i| {
                format!(
                    "{} {}×{}, {} on disk, {} on the GPU",
                    i["format"].as_str().unwrap_or(""),
                    i["width"],
                    i["height"],
                    kb(i["disk_bytes"].as_u64().unwrap_or(0)),
                    kb(i["gpu_bytes"].as_u64().unwrap_or(0))
                )
            },
        )
    };
    let materials = r["materials"].as_array().cloned().unwrap_or_default();
    if !materials.is_empty() {
        outln!(out, "\n| material | textures |\n|---|---|");
        for m in &materials {
            let textures: Vec<String> = m["textures"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    format!(
                        "{}: {}",
                        t["slot"].as_str().unwrap_or(""),
                        image(&t["image"])
                    )
                })
                .collect();
            let name = m["name"]
                .as_str()
                .map_or_else(|| format!("material {}", m["material"]), String::from);
            outln!(
                out,
                "| {name} | {} |",
                if textures.is_empty() {
                    "none".into()
                } else {
                    textures.join("; ")
                }
            );
        }
    }
}

/// Runs `qtangent inspect`; `Err` for a file that cannot be read.
pub fn run(args: &InspectArgs) -> Result<bool, String> {
    let path = &args.input;
    crate::files::must_be_file("", path)?;
    if args.formats {
        return match crate::inspect_formats::report(path, args.json) {
            Ok((out, within)) => {
                // A reader that stops early (`| head`) is not an error.
                let _ = std::io::stdout().write_all(out.as_bytes());
                Ok(within)
            }
            Err(e) => {
                eprintln!("qtangent inspect: {e}");
                Ok(false)
            }
        };
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if ext.as_deref() == Some("obj") {
        return Err(format!(
            "{}: an OBJ file holds no glTF structure to inspect: `--formats` shows its frames, or `qtangent pack {} -o out.glb` first",
            path.display(),
            path.display()
        ));
    }
    // A file that exists but does not read is a failure (status 1), not a refusal.
    let doc = match read_doc(path) {
        Ok(doc) => doc,
        Err(e) => {
            eprintln!("qtangent inspect: {e}");
            return Ok(false);
        }
    };
    let mut r = report(path, &doc);
    let frames_ok = crate::inspect_formats::frame_checks(path, &mut r);
    let mut out = String::new();
    if args.json {
        out = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
        out.push('\n');
    } else {
        print(&mut out, &r);
    }
    // A reader that stops early (`| head`) is not an error.
    let _ = std::io::stdout().write_all(out.as_bytes());
    Ok(frames_ok)
}
