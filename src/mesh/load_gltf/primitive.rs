//! Primitives: attributes and indices read through checked accessors (any KHR_mesh_quantization
//! component type, [`super::quantized`]); strips and fans to lists; points, lines and primitives
//! with nothing to draw skipped.

use glam::{Vec2, Vec3, Vec4};
use gltf::mesh::{Mode, Semantic};

use super::accessor::{
    check_attribute, Expect, INDICES, JOINTS, MAX_ELEMENTS, NORMAL, POSITION, TANGENT, TEXCOORD,
    WEIGHTS,
};
use super::quantized::{is_all_zeros, read_f32};
use crate::mesh::{ErrorKind, Primitive};

/// What became of one glTF primitive.
pub(super) enum Outcome {
    /// An indexed triangle list, read (not yet repaired or validated).
    Triangles(Box<Primitive>),
    /// Nothing to draw here: the reason, short (`LINES`, `no POSITION`, `no triangles`).
    Skipped(String),
}

/// glTF's name for a primitive mode, as messages use it.
pub(super) fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Points => "POINTS",
        Mode::Lines => "LINES",
        Mode::LineLoop => "LINE_LOOP",
        Mode::LineStrip => "LINE_STRIP",
        Mode::Triangles => "TRIANGLES",
        Mode::TriangleStrip => "TRIANGLE_STRIP",
        Mode::TriangleFan => "TRIANGLE_FAN",
    }
}

/// Reads one primitive. Points and lines, a primitive without POSITION and one whose indices
/// make no triangle are skipped (all valid glTF; the glTF-Validator only warns); a triangle
/// list whose index count is not a multiple of three loses the last one or two indices, with a
/// warning.
pub(super) fn read_primitive(
    prim: &gltf::Primitive<'_>,
    buffers: &[gltf::buffer::Data],
    doc: &gltf::Document,
    images: &[crate::mesh::ImageSource],
    label: String,
    budget: &mut usize,
    warnings: &mut Vec<String>,
) -> Result<Outcome, ErrorKind> {
    let elements = prim
        .attributes()
        .map(|(_, a)| a.count())
        .chain(prim.indices().map(|a| a.count()))
        .fold(0usize, usize::saturating_add);
    *budget = budget.checked_sub(elements).ok_or_else(|| {
        ErrorKind::TooLarge(format!(
            "the file's primitives read more than {MAX_ELEMENTS} accessor elements in all"
        ))
    })?;
    let mode = prim.mode();
    if matches!(
        mode,
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
    ) {
        return Ok(Outcome::Skipped(mode_name(mode).into()));
    }
    let checked = |semantic: Semantic, name: &str, expect: &Expect| -> Result<bool, ErrorKind> {
        match prim.get(&semantic) {
            Some(acc) => check_attribute(&acc, name, expect, buffers).map(|()| true),
            None => Ok(false),
        }
    };
    if !checked(Semantic::Positions, "POSITION", &POSITION)? {
        return Ok(Outcome::Skipped("no POSITION".into()));
    }
    checked(Semantic::Normals, "NORMAL", &NORMAL)?;
    checked(Semantic::Tangents, "TANGENT", &TANGENT)?;
    checked(Semantic::TexCoords(0), "TEXCOORD_0", &TEXCOORD)?;
    let mut joint_sets = 0;
    while checked(
        Semantic::Joints(joint_sets),
        &format!("JOINTS_{joint_sets}"),
        &JOINTS,
    )? {
        joint_sets += 1;
    }
    let mut weight_sets = 0;
    while checked(
        Semantic::Weights(weight_sets),
        &format!("WEIGHTS_{weight_sets}"),
        &WEIGHTS,
    )? {
        weight_sets += 1;
    }
    if let Some(acc) = prim.indices() {
        check_attribute(&acc, "indices", &INDICES, buffers)?;
    }

    let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    // The checks above make every read below succeed; a failure would be a gltf crate change.
    let missing = |what: &str| ErrorKind::Gltf(format!("the gltf crate could not read {what}"));
    let attribute = |semantic: Semantic| prim.get(&semantic);
    let positions: Vec<Vec3> = match attribute(Semantic::Positions) {
        Some(acc) => read_f32::<3>(&acc, buffers, "POSITION")?
            .into_iter()
            .map(Vec3::from)
            .collect(),
        None => return Err(missing("POSITION")),
    };
    let normals = attribute(Semantic::Normals)
        .map(|acc| read_f32::<3>(&acc, buffers, "NORMAL"))
        .transpose()?
        .map(|v| v.into_iter().map(Vec3::from).collect());
    let tangents = attribute(Semantic::Tangents)
        .map(|acc| read_f32::<4>(&acc, buffers, "TANGENT"))
        .transpose()?
        .map(|v| v.into_iter().map(Vec4::from).collect());
    let uvs = attribute(Semantic::TexCoords(0))
        .map(|acc| read_f32::<2>(&acc, buffers, "TEXCOORD_0"))
        .transpose()?
        .map(|v| v.into_iter().map(Vec2::from).collect());
    let joints = (0..joint_sets)
        .map(|s| {
            let acc = attribute(Semantic::Joints(s)).ok_or_else(|| missing("JOINTS"))?;
            if is_all_zeros(&acc) {
                return Ok(vec![[0; 4]; acc.count()]);
            }
            Ok(reader
                .read_joints(s)
                .ok_or_else(|| missing("JOINTS"))?
                .into_u16()
                .collect())
        })
        .collect::<Result<Vec<_>, ErrorKind>>()?;
    let weights = (0..weight_sets)
        .map(|s| {
            let acc = attribute(Semantic::Weights(s)).ok_or_else(|| missing("WEIGHTS"))?;
            read_f32::<4>(&acc, buffers, &format!("WEIGHTS_{s}"))
        })
        .collect::<Result<Vec<_>, ErrorKind>>()?;
    let list: Vec<u32> = match prim.indices() {
        Some(acc) if is_all_zeros(&acc) => vec![0; acc.count()],
        Some(_) => reader
            .read_indices()
            .ok_or_else(|| missing("indices"))?
            .into_u32()
            .collect(),
        None => (0..u32::try_from(positions.len()).unwrap_or(u32::MAX)).collect(),
    };
    let mut indices = match mode {
        Mode::TriangleStrip => strip_to_list(&list),
        Mode::TriangleFan => fan_to_list(&list),
        _ => list,
    };
    if indices.len() < 3 {
        let (count, what) = match prim.indices() {
            Some(a) => (a.count(), "indices"),
            None => (positions.len(), "vertices"),
        };
        return Ok(Outcome::Skipped(format!(
            "no triangles ({count} {what} in {})",
            mode_name(mode)
        )));
    }
    let extra = indices.len() % 3;
    if extra != 0 {
        warnings.push(format!(
            "{label}: {} indices do not make whole triangles; the last {extra} ignored",
            indices.len()
        ));
        indices.truncate(indices.len() - extra);
    }
    let qtangents = super::qtangent::read_qtangents(prim, buffers, positions.len())?;
    let object_map = super::qtangent::object_map(prim, doc, images, buffers, positions.len())?;
    Ok(Outcome::Triangles(Box::new(Primitive {
        label,
        positions,
        normals,
        tangents,
        uvs,
        smoothing_ids: None,
        joints,
        weights,
        indices,
        material: prim.material().index(),
        object_map,
        qtangents,
        source_index: Some(prim.index()),
    })))
}

/// glTF 2.0 §3.7.2.1: strip triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}), keeping one winding.
pub(super) fn strip_to_list(strip: &[u32]) -> Vec<u32> {
    (0..strip.len().saturating_sub(2))
        .flat_map(|i| [strip[i], strip[i + 1 + i % 2], strip[i + 2 - i % 2]])
        .collect()
}

/// glTF 2.0 §3.7.2.1: fan triangle i is (v_{i+1}, v_{i+2}, v_0).
pub(super) fn fan_to_list(fan: &[u32]) -> Vec<u32> {
    (0..fan.len().saturating_sub(2))
        .flat_map(|i| [fan[i + 1], fan[i + 2], fan[0]])
        .collect()
}
