//! A skinning rig: the skinned meshes of a loaded [`mesh::Scene`](crate::mesh::Scene) packed
//! for the skinning kernel, and the step from an animation pose (local node transforms, as
//! [`crate::anim`] produces them) to the bones each mesh needs. The GPU side is
//! [`crate::gpu::RigBatch`].

#[cfg(any(test, feature = "gpu"))]
use glam::Mat4;

#[cfg(any(test, feature = "gpu"))]
use super::{bones_from_matrices, skin_matrices, Bone};
use super::{SkinError, SkinVertices, MAX_INFLUENCES};
use crate::anim::Skeleton;
#[cfg(any(test, feature = "gpu"))]
use crate::anim::Transform;
use crate::mesh::{Prepared, Scene, Skin};

/// One skinned mesh of a [`Rig`]: an object drawn posed by one glTF skin.
#[derive(Debug, Clone)]
pub(crate) struct RigMesh {
    /// The caller's id of the object this mesh draws: what was passed to [`Rig::new`] (for
    /// example an index into [`crate::render::RenderScene::objects`]), or the running number
    /// of [`Rig::from_scene`].
    pub(crate) object: usize,
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    /// Index into the scene's [`Scene::skins`] (and `Rig::skins`).
    pub(crate) skin: usize,
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    /// The packed skinned vertices (bind pose), `joint_count` the skin's joints.
    pub(crate) vertices: SkinVertices,
}

/// The skinned meshes of a scene, each with its skin, and the scene's node hierarchy: turns a
/// pose into the bones of every mesh, in mesh order (`Rig::bones`).
#[derive(Debug, Clone)]
pub struct Rig {
    #[cfg_attr(not(any(test, feature = "gpu")), allow(dead_code))]
    skeleton: Skeleton,
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    skins: Vec<Skin>,
    meshes: Vec<RigMesh>,
    /// Things worth telling the user that do not stop skinning (influences dropped beyond
    /// `MAX_INFLUENCES`), one line each. The library does not print them.
    pub warnings: Vec<crate::Warning>,
}

impl Rig {
    /// A rig of the given skinned objects of `scene`: `(object id, its prepared primitive, its
    /// skin index into scene.skins)` each. The object ids are the caller's (`RigMesh::object`);
    /// a renderer's scene that already prepared its primitives passes them here.
    ///
    /// # Errors
    /// [`SkinError::Input`] for a skin index the scene does not have, a skin whose joints and
    /// inverse bind matrices differ in number or whose joints are not nodes of the scene, and
    /// what `SkinVertices::from_prepared` rejects.
    pub fn new<'p>(
        scene: &Scene,
        objects: impl IntoIterator<Item = (usize, &'p Prepared, usize)>,
    ) -> Result<Self, SkinError> {
        let source = scene.source.display().to_string();
        let mut meshes = Vec::new();
        let mut warnings = Vec::new();
        for (object, prepared, skin) in objects {
            let Some(s) = scene.skins.get(skin) else {
                return Err(SkinError::Input {
                    label: source,
                    problem: format!(
                        "object {object} names skin {skin}, but the file has {}",
                        scene.skins.len()
                    ),
                });
            };
            check_skin(s, scene.nodes.len())?;
            let vertices = SkinVertices::from_prepared(prepared, s.joints.len()).map_err(|e| {
                SkinError::Input {
                    label: source.clone(),
                    problem: e.to_string(),
                }
            })?;
            if vertices.dropped_influences > 0 {
                warnings.push(crate::Warning::new(
                    &vertices.label,
                    crate::WarningKind::InfluencesDropped {
                        count: vertices.dropped_influences,
                        max: MAX_INFLUENCES,
                    },
                ));
            }
            meshes.push(RigMesh {
                object,
                skin,
                vertices,
            });
        }
        Ok(Self {
            skeleton: scene.skeleton(),
            skins: scene.skins.clone(),
            meshes,
            warnings,
        })
    }
    #[cfg(test)]
    /// A rig of every skinned mesh instance of `scene` (each primitive of each node that uses
    /// a mesh with a skin), prepared here. [`RigMesh::object`] numbers them from 0 in file
    /// order (meshes, their primitives, the primitive's skinned instances).
    ///
    /// # Errors
    /// [`SkinError::Input`] for a primitive that does not prepare, then as [`Rig::new`].
    pub(crate) fn from_scene(scene: &Scene) -> Result<Self, SkinError> {
        let mut prepared = Vec::new();
        for m in &scene.meshes {
            for p in &m.primitives {
                let skins: Vec<usize> = m.instances.iter().filter_map(|i| i.skin).collect();
                if skins.is_empty() {
                    continue;
                }
                let ready = p.prepare().map_err(|kind| SkinError::Input {
                    label: p.label.clone(),
                    problem: kind.to_string(),
                })?;
                prepared.push((ready, skins));
            }
        }
        let objects = prepared
            .iter()
            .flat_map(|(p, skins)| skins.iter().map(move |&s| (p, s)))
            .enumerate()
            .map(|(k, (p, s))| (k, p, s));
        Self::new(scene, objects)
    }

    /// The scene's node hierarchy (every node; poses index it).
    #[must_use]
    #[cfg(test)]
    pub(crate) fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// The skinned meshes, in the order [`Rig::bones`] lists their palettes.
    #[must_use]
    #[cfg(any(test, feature = "gpu"))]
    pub(crate) fn meshes(&self) -> &[RigMesh] {
        &self.meshes
    }

    /// The object id of each mesh, in mesh order.
    pub fn objects(&self) -> impl Iterator<Item = usize> + '_ {
        self.meshes.iter().map(|m| m.object)
    }
    #[cfg(test)]
    /// Bones of every palette together: the sum of the meshes' skin joints.
    #[must_use]
    pub(crate) fn bone_count(&self) -> usize {
        self.meshes
            .iter()
            .map(|m| self.skins[m.skin].joints.len())
            .sum()
    }

    /// The bones of every mesh for the pose `local` (one local transform per scene node) with
    /// the character placed by `placement` (world from the skeleton's root space): mesh by
    /// mesh, each its skin's `placement · joint_world · inverse_bind` as a quaternion bone.
    ///
    /// # Errors
    /// [`SkinError::Input`] when `local` has fewer transforms than the scene has nodes, or a
    /// skin matrix is not a similarity (naming the skin).
    #[cfg(test)]
    pub(crate) fn bones(
        &self,
        local: &[Transform],
        placement: Mat4,
    ) -> Result<Vec<Bone>, SkinError> {
        let mut out = Vec::with_capacity(self.bone_count());
        self.bones_into(local, placement, &mut Vec::new(), &mut out)?;
        Ok(out)
    }

    /// [`Rig::bones`] into `out` (cleared first), with `world` as scratch for the node world
    /// matrices: no allocation once both have grown.
    ///
    /// # Errors
    /// As [`Rig::bones`].
    #[cfg(any(test, feature = "gpu"))]
    pub(crate) fn bones_into(
        &self,
        local: &[Transform],
        placement: Mat4,
        world: &mut Vec<Mat4>,
        out: &mut Vec<Bone>,
    ) -> Result<(), SkinError> {
        out.clear();
        let nodes = self.skeleton.parents.len();
        if local.len() < nodes {
            return Err(SkinError::Input {
                label: "pose".to_owned(),
                problem: format!(
                    "{} local transforms for a scene of {nodes} nodes",
                    local.len()
                ),
            });
        }
        self.skeleton.world_matrices_into(local, world);
        for m in &self.meshes {
            let skin = &self.skins[m.skin];
            let matrices = skin_matrices(skin, world, placement)?;
            let bones = bones_from_matrices(&matrices).map_err(|e| SkinError::Input {
                label: format!("skin '{}'", skin.name),
                problem: e.to_string(),
            })?;
            out.extend(bones);
        }
        Ok(())
    }
}

/// A skin that can be posed: as many inverse bind matrices as joints, every joint one of the
/// `nodes` nodes.
pub(super) fn check_skin(skin: &Skin, nodes: usize) -> Result<(), SkinError> {
    let err = |problem: String| SkinError::Input {
        label: format!("skin '{}'", skin.name),
        problem,
    };
    if skin.joints.len() != skin.inverse_bind.len() {
        return Err(err(format!(
            "{} joints but {} inverse bind matrices",
            skin.joints.len(),
            skin.inverse_bind.len()
        )));
    }
    if let Some((j, &node)) = skin.joints.iter().enumerate().find(|&(_, &n)| n >= nodes) {
        return Err(err(format!(
            "joint {j} is node {node}, but there are {nodes} nodes"
        )));
    }
    Ok(())
}
