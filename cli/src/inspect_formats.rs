//! `qtangent inspect --formats`: what each qtangent format does to a mesh's frames (glTF or
//! OBJ), and the frame check against each format's bound.
//!
//! Per primitive: vertices (file → after splitting), triangles, normal and tangent sources,
//! degenerate-UV triangles, mirrored-triangle fraction, split vertices, fallback frames (vertices
//! whose frame had to be made up: a zero normal, or no UV direction to build a tangent from),
//! and for each format the mean and max angular error (degrees, over normal, tangent and
//! bitangent) of the frames decoded from an interleaved vertex stream, against the format's
//! bound, and the bytes per vertex saved against 28 B of f32 normal + tangent. A file `pack`
//! wrote reads its frames from `_QTANGENT`: its own format's row is the frame check (the
//! frames it holds, encoded again, within that format's bound).

use std::fmt::Write as _;
use std::path::Path;

use qtangent::mesh::{self, Prepared};
use qtangent::Format;
use serde_json::{json, Value};

/// Bytes of the f32 normal + tangent (3 + 4 floats) that a qtangent replaces: what
/// `bytes_saved` is counted against (negative where a format costs more).
const F32_NORMAL_TANGENT_BYTES: i64 = 28;

/// `writeln!` into a String (which cannot fail).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// The report of `path`'s frames under every format: one JSON object, and its text. Warnings
/// go to stderr.
pub fn report(path: &Path, json_out: bool) -> Result<(String, bool), String> {
    let scene = mesh::load(path).map_err(|e| e.to_string())?;
    for w in &scene.warnings {
        eprintln!("qtangent inspect: warning: {}: {w}", scene.source.display());
    }
    let prepared = scene.prepare().map_err(|e| e.to_string())?;
    let primitives: Vec<Value> = prepared.iter().map(primitive_report).collect();
    let within = primitives
        .iter()
        .flat_map(|p| p["encodings"].as_array().cloned().unwrap_or_default())
        .all(|e| e["within_bound"] == true);
    let report = json!({
        "file": scene.source.display().to_string(),
        "warnings": scene.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "meshes": scene.meshes.len(),
        "instances": scene.meshes.iter().map(|m| m.instances.len()).sum::<usize>(),
        "materials": scene.materials.len(),
        "skins": scene.skins.len(),
        "primitives": primitives,
        "within_bounds": within,
    });
    let mut out = String::new();
    if json_out {
        outln!(out, "{report}");
    } else {
        print_text(&report, &mut out);
    }
    Ok((out, within))
}

/// The largest share of a primitive's frames whose normal may face away from its triangles
/// ([`facing_away`]) before the check fails. Frames that are not this mesh's (random bytes,
/// zeros, another layout) face away about half the time. Authored normals mostly face their own
/// triangles, but not all: packed, FlightHelmet's MetalParts has 89 of 13 636 facing away
/// (0.65 %), LeatherParts 68 of 12 534 (0.54 %), RubberWood 0.18 %, the duck 2 of 2 528; the
/// other assets none. 10 % is 15 times the worst of those and a fifth of what bytes that are not
/// frames give.
const FACING_AWAY_SHARE: f64 = 0.10;

/// How many of `p`'s frames have a normal facing away from the area-weighted normal of the
/// triangles around their vertex (dot < 0; vertices whose triangles have no area are not
/// counted).
fn facing_away(p: &Prepared) -> usize {
    let mut around = vec![glam::Vec3::ZERO; p.positions.len()];
    for t in p.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
        let (Some(pa), Some(pb), Some(pc)) =
            (p.positions.get(a), p.positions.get(b), p.positions.get(c))
        else {
            continue;
        };
        // Twice the area times the unit normal.
        let n = (*pb - *pa).cross(*pc - *pa);
        for v in [a, b, c] {
            around[v] += n;
        }
    }
    p.frames
        .iter()
        .zip(&around)
        .filter(|(f, n)| n.length_squared() > 0.0 && f.normal.dot(**n) < 0.0)
        .count()
}

/// The frame check of a file's `_QTANGENT` primitives, added to `report` (inspect's structure
/// report) as each primitive's `frame_check`: the frames the file holds, decoded by qtangent's
/// loader (as every reader decodes them), must be unit frames that the same format encodes again
/// within its bound, the handedness kept (NaN or zero-length quaternions fail here), and at most [`FACING_AWAY_SHARE`] of them may face away from their
/// triangles (what tells frames from bytes that merely decode: every 4-byte pattern is a valid
/// smallest3x4 quaternion). Returns whether every check passed; a file the loader refuses fails every
/// check, with the loader's error.
pub fn frame_checks(path: &Path, report: &mut Value) -> bool {
    let Some(prims) = report.get_mut("primitives").and_then(Value::as_array_mut) else {
        return true;
    };
    let checked = |p: &Value| {
        p["frames"]["format"]
            .as_str()
            .and_then(|n| n.parse::<Format>().ok())
    };
    if !prims.iter().any(|p| checked(p).is_some()) {
        return true;
    }
    let prepared = mesh::load(path)
        .map_err(|e| e.to_string())
        .and_then(|scene| scene.prepare().map_err(|e| e.to_string()));
    let mut all = true;
    for p in prims.iter_mut() {
        let Some(format) = checked(p) else {
            continue;
        };
        let label = format!(
            "mesh '{}' primitive {}",
            p["mesh"].as_str().unwrap_or_default(),
            p["primitive"]
        );
        let check = match &prepared {
            Err(e) => json!({ "error": e }),
            Ok(list) => match list.iter().find(|q| q.label == label) {
                None => json!({ "error": "the loader made no triangles of it" }),
                Some(q) => {
                    let e = q.vertex_stream(format).errors_against(&q.frames);
                    let away = facing_away(q);
                    let within = e.max() <= format.max_error_deg()
                        && e.handedness_errors == 0
                        && away as f64 <= FACING_AWAY_SHARE * q.frames.len() as f64;
                    json!({
                        "frames": q.frames.len(),
                        "max_error_deg": e.max(),
                        "bound_deg": format.max_error_deg(),
                        "handedness_errors": e.handedness_errors,
                        "facing_away": away,
                        "within_bound": within,
                    })
                }
            },
        };
        all &= check["within_bound"] == true;
        p["frame_check"] = check;
    }
    all
}

fn primitive_report(p: &Prepared) -> Value {
    let s = &p.stats;
    let encodings: Vec<Value> = Format::ALL
        .iter()
        .map(|&format| {
            let e = p.vertex_stream(format).errors_against(&p.frames);
            json!({
                "format": format.name(),
                "bytes": format.bytes(),
                "bytes_saved": F32_NORMAL_TANGENT_BYTES - format.bytes() as i64,
                "mean_error_deg": (e.normal.mean() + e.tangent.mean() + e.bitangent.mean()) / 3.0,
                "max_error_deg": e.max(),
                "handedness_errors": e.handedness_errors,
                "bound_deg": format.max_error_deg(),
                "within_bound": e.max() <= format.max_error_deg() && e.handedness_errors == 0,
            })
        })
        .collect();
    json!({
        "name": p.label,
        "vertices_in_file": s.vertices_in,
        "vertices": s.vertices,
        "triangles": s.triangles,
        "normals": s.normals.name(),
        "normal_fallbacks": s.normal_fallbacks,
        "tangents": s.tangents.name(),
        "degenerate_uv_triangles": s.degenerate_uv_triangles,
        "mirrored_triangles": s.mirrored_triangles,
        "mirrored_fraction": s.mirrored_triangles as f64 / s.triangles.max(1) as f64,
        "split_vertices": s.split_vertices,
        "mirror_split_vertices": s.mirror_split_vertices,
        "fallback_frames": s.fallback_frames,
        "skinned": !p.joints.is_empty(),
        "encodings": encodings,
    })
}

fn print_text(r: &Value, out: &mut String) {
    outln!(
        out,
        "{}: {} meshes, {} instances, {} materials, {} skins",
        r["file"].as_str().unwrap_or_default(),
        r["meshes"],
        r["instances"],
        r["materials"],
        r["skins"]
    );
    for p in r["primitives"].as_array().into_iter().flatten() {
        outln!(out, "\n{}", p["name"].as_str().unwrap_or_default());
        outln!(
            out,
            "  vertices {} (file {}, +{} split, {} at mirror seams), triangles {}",
            p["vertices"],
            p["vertices_in_file"],
            p["split_vertices"],
            p["mirror_split_vertices"],
            p["triangles"]
        );
        outln!(
            out,
            "  normals {}{}, tangents {}",
            p["normals"].as_str().unwrap_or_default(),
            match p["normal_fallbacks"].as_u64() {
                Some(0) | None => String::new(),
                Some(n) => format!(" ({n} fell back to +Z)"),
            },
            p["tangents"].as_str().unwrap_or_default()
        );
        outln!(
            out,
            "  degenerate-UV triangles {}, mirrored triangles {} ({:.1}%), fallback frames {}{}",
            p["degenerate_uv_triangles"],
            p["mirrored_triangles"],
            p["mirrored_fraction"].as_f64().unwrap_or_default() * 100.0,
            p["fallback_frames"],
            if p["skinned"].as_bool() == Some(true) {
                ", skinned"
            } else {
                ""
            }
        );
        outln!(
            out,
            "  {:<16} {:>5} {:>6} {:>12} {:>12} {:>10}",
            "format",
            "bytes",
            "saved",
            "mean error",
            "max error",
            "bound"
        );
        for e in p["encodings"].as_array().into_iter().flatten() {
            let handedness = e["handedness_errors"].as_u64().unwrap_or_default();
            outln!(
                out,
                "  {:<16} {:>5} {:>6} {:>11.5}° {:>11.5}° {:>8.3}° {}{}",
                e["format"].as_str().unwrap_or_default(),
                e["bytes"].as_u64().unwrap_or_default(),
                e["bytes_saved"].as_i64().unwrap_or_default(),
                e["mean_error_deg"].as_f64().unwrap_or(f64::NAN),
                e["max_error_deg"].as_f64().unwrap_or(f64::NAN),
                e["bound_deg"].as_f64().unwrap_or(f64::NAN),
                if e["within_bound"] == true {
                    "ok"
                } else {
                    "OVER THE BOUND"
                },
                if handedness > 0 {
                    format!("  {handedness} HANDEDNESS ERRORS")
                } else {
                    String::new()
                }
            );
        }
    }
}
