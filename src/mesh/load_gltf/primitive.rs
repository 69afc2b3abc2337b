//! Primitives: attributes and indices read through checked accessors (any KHR_mesh_quantization
//! component type, [`super::accessor`]); strips and fans to lists; points, lines and primitives
//! with nothing to draw skipped.

use std::fmt;

use glam::{Vec2, Vec3, Vec4};
use gltf::mesh::{Mode, Semantic};

use super::accessor::{
    checked, Expect, INDICES, JOINTS, MORPH, NORMAL, POSITION, TANGENT, TEXCOORD, WEIGHTS,
};
use super::File;
use crate::gltf::read::Reader;
use crate::gltf::read::{Accessor, MAX_ELEMENTS};
use crate::mesh::{ErrorKind, Primitive};
use crate::{Warning, WarningKind};

/// What became of one glTF primitive.
pub(super) enum Outcome {
    /// An indexed triangle list, read (not yet repaired or validated).
    Triangles(Box<Primitive>),
    /// Nothing to draw here.
    Skipped(Skip),
}

/// Why a primitive was skipped.
#[derive(Debug, Clone, Copy)]
pub(super) enum Skip {
    /// Points or lines.
    Mode(Mode),
    /// No POSITION attribute.
    NoPosition,
    /// Indices (or vertices, without indices) that make no triangle in `mode`.
    NoTriangles {
        count: usize,
        indexed: bool,
        mode: Mode,
    },
}

impl Skip {
    /// The kind of reason, without its figures: `LINES`, `no POSITION`, `no triangles`.
    pub(super) fn kind(self) -> &'static str {
        match self {
            Self::Mode(mode) => mode_name(mode),
            Self::NoPosition => "no POSITION",
            Self::NoTriangles { .. } => "no triangles",
        }
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NoTriangles {
                count,
                indexed,
                mode,
            } => {
                let what = if indexed { "indices" } else { "vertices" };
                write!(f, "no triangles ({count} {what} in {})", mode_name(mode))
            }
            other => f.write_str(other.kind()),
        }
    }
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

/// A primitive's accessors, checked.
struct Accessors {
    position: Accessor,
    normal: Option<Accessor>,
    tangent: Option<Accessor>,
    uv: Option<Accessor>,
    joints: Vec<Accessor>,
    weights: Vec<Accessor>,
    indices: Option<Accessor>,
}

/// Reads one primitive. Points and lines, a primitive without POSITION and one whose indices
/// make no triangle are skipped (all valid glTF; the glTF-Validator only warns); a triangle
/// list whose index count is not a multiple of three loses the last one or two indices, with a
/// warning.
pub(super) fn read_primitive(
    file: &File<'_>,
    prim: &gltf::Primitive<'_>,
    label: String,
    budget: &mut usize,
    warnings: &mut Vec<Warning>,
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
        return Ok(Outcome::Skipped(Skip::Mode(mode)));
    }
    let Some(accessors) = accessors(file, prim)? else {
        return Ok(Outcome::Skipped(Skip::NoPosition));
    };
    let positions = vectors::<3, Vec3>(file, Some(accessors.position), "POSITION")?;
    let positions = positions.unwrap_or_default();
    let list: Vec<u32> = match &accessors.indices {
        Some(acc) => file
            .read(acc, Reader::unsigned::<1>, "indices")?
            .into_iter()
            .flatten()
            .collect(),
        None => (0..u32::try_from(positions.len()).unwrap_or(u32::MAX)).collect(),
    };
    let mut indices = match mode {
        Mode::TriangleStrip => strip_to_list(&list),
        Mode::TriangleFan => fan_to_list(&list),
        _ => list,
    };
    if indices.len() < 3 {
        return Ok(Outcome::Skipped(Skip::NoTriangles {
            count: accessors.indices.map_or(positions.len(), |a| a.count),
            indexed: accessors.indices.is_some(),
            mode,
        }));
    }
    let dropped = indices.len() % 3;
    if dropped != 0 {
        warnings.push(Warning::new(
            &label,
            WarningKind::PartialTriangleDropped {
                indices: indices.len(),
                dropped,
            },
        ));
        indices.truncate(indices.len() - dropped);
    }
    let mut p = vertices(file, &accessors, positions)?;
    p.targets = targets(file, prim)?;
    p.qtangents = super::qtangent::read_qtangents(file, prim, p.positions.len())?;
    p.object_map = super::qtangent::object_map(file, prim, p.positions.len())?;
    Ok(Outcome::Triangles(Box::new(Primitive {
        label,
        indices,
        material: prim.material().index(),
        source_index: Some(prim.index()),
        ..p
    })))
}

/// The primitive's accessors, each checked; `None` without POSITION.
fn accessors(file: &File<'_>, prim: &gltf::Primitive<'_>) -> Result<Option<Accessors>, ErrorKind> {
    let get = |semantic: Semantic, name: &str, expect: &Expect| {
        prim.get(&semantic)
            .map(|acc| checked(file, acc.index(), name, expect))
            .transpose()
    };
    let Some(position) = get(Semantic::Positions, "POSITION", &POSITION)? else {
        return Ok(None);
    };
    let sets = |semantic: fn(u32) -> Semantic, name: &str, expect: &Expect| {
        let mut sets = Vec::new();
        while let Some(acc) = get(
            semantic(sets.len() as u32),
            &format!("{name}_{}", sets.len()),
            expect,
        )? {
            sets.push(acc);
        }
        Ok::<_, ErrorKind>(sets)
    };
    Ok(Some(Accessors {
        position,
        normal: get(Semantic::Normals, "NORMAL", &NORMAL)?,
        tangent: get(Semantic::Tangents, "TANGENT", &TANGENT)?,
        uv: get(Semantic::TexCoords(0), "TEXCOORD_0", &TEXCOORD)?,
        joints: sets(Semantic::Joints, "JOINTS", &JOINTS)?,
        weights: sets(Semantic::Weights, "WEIGHTS", &WEIGHTS)?,
        indices: prim
            .indices()
            .map(|acc| checked(file, acc.index(), "indices", &INDICES))
            .transpose()?,
    }))
}

/// The vertex attributes of a primitive (indices, material and the qtangent extension's parts
/// are the caller's).
fn vertices(file: &File<'_>, a: &Accessors, positions: Vec<Vec3>) -> Result<Primitive, ErrorKind> {
    let normals = vectors::<3, Vec3>(file, a.normal, "NORMAL")?;
    let tangents = vectors::<4, Vec4>(file, a.tangent, "TANGENT")?;
    let uvs = vectors::<2, Vec2>(file, a.uv, "TEXCOORD_0")?;
    let joints = a
        .joints
        .iter()
        .enumerate()
        .map(|(s, acc)| {
            let sets = file.read(acc, Reader::unsigned::<4>, &format!("JOINTS_{s}"))?;
            // JOINTS_n is unsigned byte or short (checked): every value fits in u16.
            Ok(sets.into_iter().map(|j| j.map(|x| x as u16)).collect())
        })
        .collect::<Result<Vec<_>, ErrorKind>>()?;
    let weights = a
        .weights
        .iter()
        .enumerate()
        .map(|(s, acc)| file.read(acc, Reader::floats::<4>, &format!("WEIGHTS_{s}")))
        .collect::<Result<Vec<_>, ErrorKind>>()?;
    Ok(Primitive {
        flat_normals: normals.is_none(),
        positions,
        normals,
        tangents,
        uvs,
        joints,
        weights,
        ..Primitive::default()
    })
}

/// The primitive's morph targets: POSITION, NORMAL and TANGENT deltas (float, or byte and short,
/// normalised or not, as KHR_mesh_quantization allows), read as floats; other target attributes
/// are not read.
fn targets(
    file: &File<'_>,
    prim: &gltf::Primitive<'_>,
) -> Result<Vec<crate::mesh::MorphTarget>, ErrorKind> {
    let mut out = Vec::new();
    for (k, target) in prim.morph_targets().enumerate() {
        let read =
            |name: &str, acc: Option<gltf::Accessor<'_>>| -> Result<Option<Vec<Vec3>>, ErrorKind> {
                let Some(acc) = acc else {
                    return Ok(None);
                };
                let attribute = format!("morph target {k} {name}");
                let acc = checked(file, acc.index(), &attribute, &MORPH)?;
                vectors::<3, Vec3>(file, Some(acc), &attribute)
            };
        out.push(crate::mesh::MorphTarget {
            positions: read("POSITION", target.positions())?,
            normals: read("NORMAL", target.normals())?,
            tangents: read("TANGENT", target.tangents())?,
        });
    }
    Ok(out)
}

/// An optional attribute's elements as glam vectors of `N` floats.
fn vectors<const N: usize, T: From<[f32; N]>>(
    file: &File<'_>,
    acc: Option<Accessor>,
    attribute: &str,
) -> Result<Option<Vec<T>>, ErrorKind> {
    acc.map(|acc| {
        Ok(file
            .read(&acc, Reader::floats::<N>, attribute)?
            .into_iter()
            .map(T::from)
            .collect())
    })
    .transpose()
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
