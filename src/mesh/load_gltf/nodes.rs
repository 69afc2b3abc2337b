//! The node walk: parents, world matrices, local transforms, and skins.

use glam::{Mat4, Quat, Vec3};

use super::accessor::{checked, MAT4};
use super::File;
use crate::anim::Transform;
use crate::gltf::read::Reader;
use crate::mesh::{ErrorKind, Node, Skin};
use crate::{Warning, WarningKind};

/// The parent of every node (validation has checked every `children` index). A node listed as
/// the child of two nodes is an error.
pub(super) fn node_parents(doc: &gltf::Document) -> Result<Vec<Option<usize>>, ErrorKind> {
    let mut parent = vec![None; doc.nodes().len()];
    for n in doc.nodes() {
        for c in n.children() {
            if let Some(p) = parent[c.index()].replace(n.index()) {
                return Err(ErrorKind::InvalidGltf(format!(
                    "node {} has two parents (nodes {p} and {})",
                    c.index(),
                    n.index()
                )));
            }
        }
    }
    Ok(parent)
}

/// Node-to-world matrix of every node (glTF nodes form a forest: each has at most one parent,
/// and no cycles; `parent` is [`node_parents`]). Matrices that are not finite are an error, and
/// so is a cycle.
pub(super) fn node_world_matrices(
    doc: &gltf::Document,
    parent: &[Option<usize>],
) -> Result<Vec<Mat4>, ErrorKind> {
    let count = doc.nodes().len();
    let mut world: Vec<Option<Mat4>> = vec![None; count];
    let mut stack: Vec<(gltf::Node<'_>, Mat4)> = doc
        .nodes()
        .filter(|n| parent.get(n.index()).is_some_and(Option::is_none))
        .map(|n| (n, Mat4::IDENTITY))
        .collect();
    while let Some((node, parent_world)) = stack.pop() {
        let m = parent_world * Mat4::from_cols_array_2d(&node.transform().matrix());
        if !m.is_finite() {
            return Err(ErrorKind::InvalidGltf(format!(
                "node {}: its transform (with its parents') is not finite",
                node.index()
            )));
        }
        world[node.index()] = Some(m);
        stack.extend(node.children().map(|c| (c, m)));
    }
    // With one parent at most, a node no root reaches hangs below a cycle.
    if let Some(n) = world.iter().position(Option::is_none) {
        return Err(ErrorKind::InvalidGltf(format!(
            "node {n} is part of (or below) a cycle"
        )));
    }
    Ok(world
        .into_iter()
        .map(|m| m.unwrap_or(Mat4::IDENTITY))
        .collect())
}

/// Every node's name, parent and local transform. Run after [`node_world_matrices`], which has
/// rejected non-finite transforms. A `matrix` is decomposed; one that translation, rotation and
/// scale cannot reproduce (shear, a projective row, a zero-length axis) gets a warning.
pub(super) fn read_nodes(
    doc: &gltf::Document,
    parents: &[Option<usize>],
    warnings: &mut Vec<Warning>,
) -> Vec<Node> {
    doc.nodes()
        .map(|n| {
            let i = n.index();
            let (t, r, s) = n.transform().decomposed();
            let mut local = Transform {
                translation: Vec3::from(t),
                rotation: Quat::from_array(r),
                scale: Vec3::from(s),
            };
            if let gltf::scene::Transform::Matrix { matrix } = n.transform() {
                let m = Mat4::from_cols_array_2d(&matrix);
                if !local.rotation.is_finite() || !local.scale.is_finite() {
                    // The gltf crate divides each axis by its length: a zero axis gives NaN.
                    local.rotation = Quat::IDENTITY;
                    local.scale = local.scale.map(|x| if x.is_finite() { x } else { 0.0 });
                    warnings.push(Warning::new(
                        format!("node {i}"),
                        WarningKind::MatrixWithZeroAxis,
                    ));
                } else {
                    // Decomposing rounds each element by a few ulps of the largest; 1e-4 of
                    // it is far above that and far below any shear worth mentioning.
                    let linear = m.to_cols_array()[..12]
                        .iter()
                        .fold(0.0f32, |a, x| a.max(x.abs()));
                    if !local
                        .to_mat4()
                        .abs_diff_eq(m, 1e-4 * linear.max(f32::MIN_POSITIVE))
                    {
                        warnings.push(Warning::new(format!("node {i}"), WarningKind::MatrixNotTrs));
                    }
                }
            }
            Node {
                name: n.name().map_or_else(|| format!("node {i}"), str::to_owned),
                parent: parents.get(i).copied().flatten(),
                local,
            }
        })
        .collect()
}

/// A skin's joints and inverse bind matrices (identity when the file gives none), with the
/// joints' world matrices in the rest pose (`world`, from [`node_world_matrices`]).
pub(super) fn read_skin(
    file: &File<'_>,
    skin: &gltf::Skin<'_>,
    world: &[Mat4],
) -> Result<Skin, ErrorKind> {
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    let attribute = format!("skin {} inverseBindMatrices", skin.index());
    let inverse_bind = match skin.inverse_bind_matrices() {
        Some(acc) => {
            let acc = checked(file, acc.index(), "inverseBindMatrices", &MAT4)?;
            if acc.count != joints.len() {
                return Err(ErrorKind::CountMismatch {
                    attribute,
                    count: acc.count,
                    positions: joints.len(),
                });
            }
            let m: Vec<Mat4> = file
                .read(&acc, Reader::floats::<16>, "inverseBindMatrices")?
                .iter()
                .map(Mat4::from_cols_array)
                .collect();
            for (i, m) in m.iter().enumerate() {
                if let Some(&value) = m.to_cols_array().iter().find(|x| !x.is_finite()) {
                    return Err(ErrorKind::NonFinite {
                        attribute,
                        vertex: i,
                        value,
                    });
                }
            }
            m
        }
        None => vec![Mat4::IDENTITY; joints.len()],
    };
    Ok(Skin {
        name: skin
            .name()
            .map_or_else(|| format!("skin {}", skin.index()), str::to_owned),
        joint_world: joints
            .iter()
            .map(|j| world.get(*j).copied().unwrap_or(Mat4::IDENTITY))
            .collect(),
        joints,
        inverse_bind,
    })
}
