//! The node hierarchy (local → model transforms) and order-independent pose blending.

use glam::Mat4;

use super::Transform;

/// The node tree of a glTF scene: parents, rest transforms, and an order in which every parent
/// comes before its children.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    /// Node names (`node N` when unnamed).
    pub names: Vec<String>,
    /// Parent of each node.
    pub parents: Vec<Option<usize>>,
    /// Local transform of each node as the file gives it (the rest pose).
    pub rest: Vec<Transform>,
    /// Node indices, parents before children.
    pub order: Vec<usize>,
}

impl Skeleton {
    /// The skeleton of a loaded scene (all its nodes).
    #[must_use]
    pub fn from_scene(scene: &crate::mesh::Scene) -> Self {
        let _ = scene;
        unimplemented!("anim::pose::Skeleton::from_scene")
    }

    /// Index of the node named `name`.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Node-to-world matrices of a pose (local transforms indexed by node).
    #[must_use]
    pub fn world_matrices(&self, local: &[Transform]) -> Vec<Mat4> {
        let _ = local;
        unimplemented!("anim::pose::Skeleton::world_matrices")
    }
}

/// Blends poses: `out[i] = Σ wₖ · layers[k][i]`, weights normalised to sum 1. Translation and
/// scale blend linearly; rotations by nlerp where every layer's quaternion is first put on the
/// hemisphere of `reference[i]`'s rotation (a fixed reference, usually the rest pose), so the
/// result does not depend on the order of the layers.
pub fn blend_poses(layers: &[(&[Transform], f32)], reference: &[Transform], out: &mut [Transform]) {
    let _ = (layers, reference, out);
    unimplemented!("anim::pose::blend_poses")
}
