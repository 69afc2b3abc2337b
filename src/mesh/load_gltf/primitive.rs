//! Primitives: attributes and indices read through checked accessors; strips and fans to lists.

use glam::{Vec2, Vec3, Vec4};
use gltf::mesh::{Mode, Semantic};

use super::accessor::{
    check_accessor, Expect, INDICES, JOINTS, MAX_ELEMENTS, NORMAL, POSITION, TANGENT, TEXCOORD,
    WEIGHTS,
};
use crate::mesh::{ErrorKind, Primitive};

pub(super) fn read_primitive(
    prim: &gltf::Primitive<'_>,
    buffers: &[gltf::buffer::Data],
    doc: &gltf::Document,
    images: &[crate::mesh::ImageSource],
    label: String,
    budget: &mut usize,
) -> Result<Primitive, ErrorKind> {
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
        return Err(ErrorKind::UnsupportedMode(format!("{mode:?}")));
    }
    let checked = |semantic: Semantic, name: &str, expect: &Expect| -> Result<bool, ErrorKind> {
        match prim.get(&semantic) {
            Some(acc) => check_accessor(&acc, name, expect, buffers).map(|()| true),
            None => Ok(false),
        }
    };
    if !checked(Semantic::Positions, "POSITION", &POSITION)? {
        return Err(ErrorKind::NoPositions);
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
        check_accessor(&acc, "indices", &INDICES, buffers)?;
    }

    let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    // The checks above make every read below Some; a None would be a gltf crate change.
    let missing = |what: &str| ErrorKind::Gltf(format!("the gltf crate could not read {what}"));
    let positions: Vec<Vec3> = reader
        .read_positions()
        .ok_or_else(|| missing("POSITION"))?
        .map(Vec3::from)
        .collect();
    // Absent attributes read as None; present ones were checked above, so they read fully.
    let normals = reader.read_normals().map(|r| r.map(Vec3::from).collect());
    let tangents = reader.read_tangents().map(|r| r.map(Vec4::from).collect());
    let uvs = reader
        .read_tex_coords(0)
        .map(|r| r.into_f32().map(Vec2::from).collect());
    let joints = (0..joint_sets)
        .map(|s| {
            Ok(reader
                .read_joints(s)
                .ok_or_else(|| missing("JOINTS"))?
                .into_u16()
                .collect())
        })
        .collect::<Result<Vec<_>, ErrorKind>>()?;
    let weights = (0..weight_sets)
        .map(|s| {
            Ok(reader
                .read_weights(s)
                .ok_or_else(|| missing("WEIGHTS"))?
                .into_f32()
                .collect())
        })
        .collect::<Result<Vec<_>, ErrorKind>>()?;
    let list: Vec<u32> = match reader.read_indices() {
        Some(read) => read.into_u32().collect(),
        None => (0..u32::try_from(positions.len()).unwrap_or(u32::MAX)).collect(),
    };
    let indices = match mode {
        Mode::TriangleStrip => strip_to_list(&list),
        Mode::TriangleFan => fan_to_list(&list),
        _ => list,
    };
    let qtangents = super::qtangent::read_qtangents(prim, buffers, positions.len())?;
    let object_map = super::qtangent::object_map(prim, doc, images, buffers, positions.len())?;
    Ok(Primitive {
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
    })
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
