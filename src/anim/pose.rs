//! The node hierarchy (local → model transforms) and order-independent pose blending.

use glam::{Mat4, Quat, Vec3, Vec4};

use super::Transform;

/// The node tree of a glTF scene: parents, rest transforms, and an order in which every parent
/// comes before its children.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Skeleton {
    /// Node names (`node N` when unnamed).
    pub(crate) names: Vec<String>,
    /// Parent of each node (always a valid index; `None` for a root).
    pub(crate) parents: Vec<Option<usize>>,
    /// Local transform of each node as the file gives it (the rest pose).
    pub(crate) rest: Vec<Transform>,
    /// Every node index once, parents before children (depth first from each root in index
    /// order).
    pub(crate) order: Vec<usize>,
}

impl Skeleton {
    /// A skeleton of nodes `i` named `names[i]`, with parent `parents[i]` (a parent outside
    /// the nodes counts as none) and rest pose `rest[i]` (see [`crate::mesh::Scene::skeleton`]).
    pub(crate) fn new(
        names: Vec<String>,
        mut parents: Vec<Option<usize>>,
        rest: Vec<Transform>,
    ) -> Self {
        let n = names.len();
        for p in &mut parents {
            *p = p.filter(|&p| p < n);
        }
        let order = hierarchy_order(&mut parents);
        Self {
            names,
            parents,
            rest,
            order,
        }
    }

    /// Index of the node named `name`.
    #[must_use]
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Node-to-world matrices of a pose (local transforms indexed by node):
    /// `world[i] = world[parent(i)] · local[i].to_mat4()`, and `local[i].to_mat4()` for a root.
    /// For [`Skeleton::rest`] this is the file's rest pose, matching
    /// [`crate::mesh::Skin::joint_world`] and [`crate::mesh::Instance::world`] to f32 rounding.
    ///
    /// # Panics
    /// If `local` has fewer entries than the skeleton has nodes.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn world_matrices(&self, local: &[Transform]) -> Vec<Mat4> {
        let mut out = Vec::with_capacity(self.parents.len());
        self.world_matrices_into(local, &mut out);
        out
    }

    /// [`Skeleton::world_matrices`] into `out` (resized to the node count; no allocation once it
    /// has the capacity, so a per-frame caller can keep one `Vec`).
    ///
    /// # Panics
    /// If `local` has fewer entries than the skeleton has nodes.
    pub(crate) fn world_matrices_into(&self, local: &[Transform], out: &mut Vec<Mat4>) {
        let n = self.parents.len();
        assert!(
            local.len() >= n,
            "pose has {} transforms, the skeleton {n} nodes",
            local.len()
        );
        out.clear();
        out.resize(n, Mat4::IDENTITY);
        for &i in &self.order {
            let m = local[i].to_mat4();
            out[i] = match self.parents[i] {
                Some(p) => out[p] * m,
                None => m,
            };
        }
    }
}

/// Every node once, parents first: depth first from each root in index order. A node no root
/// reaches sits in (or below) a cycle: the lowest-index one becomes a root (`parents` updated)
/// until every node is listed. `parents` must hold only in-range indices.
fn hierarchy_order(parents: &mut [Option<usize>]) -> Vec<usize> {
    let n = parents.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = *p {
            children[p].push(i);
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = Vec::new();
    let mut visit = |root: usize, order: &mut Vec<usize>, seen: &mut [bool]| {
        stack.push(root);
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue; // only in a cycle being broken: back at its new root
            }
            order.push(i);
            stack.extend(children[i].iter().rev().filter(|&&c| !seen[c]));
        }
    };
    for root in (0..n).filter(|&i| parents[i].is_none()) {
        visit(root, &mut order, &mut seen);
    }
    for i in 0..n {
        if !seen[i] {
            parents[i] = None;
            visit(i, &mut order, &mut seen);
        }
    }
    order
}

/// Below this length the weighted quaternion sum is treated as zero (the layers cancel). The
/// sum of K unit quaternions with weights summing to 1 carries rounding of about K·ε; at a
/// length of 1e-3 that already turns its direction by K·1e-4 rad, so the dominant layer is the
/// better answer.
const MIN_ROTATION_SUM: f32 = 1e-3;

/// Blends poses: `out[i] = Σ wₖ · layers[k][i]` with the weights normalised to sum 1.
///
/// - Weights: negative, NaN and infinite weights count as 0; when none is positive, `out` is a
///   copy of `reference`. Weights are divided by the largest before summing, so huge ones do
///   not overflow.
/// - Translation and scale: the weighted sum (a lerp for two layers).
/// - Rotation: `normalise(Σ wₖ · sign(qₖ · r) · qₖ)` with `r = reference[i].rotation`
///   (sign(0) = +1). Each layer's quaternion is first put on the hemisphere of the fixed `r`
///   (usually the rest pose) rather than of the first layer, so the result does not depend on
///   the order of the layers: every term is fixed before summing, and a permutation changes
///   only f32 rounding of the sum. For two layers within 90° of `r` this is exactly nlerp along
///   the shorter arc. The price: layers more than 180° apart when measured through `r` blend
///   the long way round, so `r` should be near the poses being blended.
/// - Degenerate rotation sum: nlerp has a singularity where the terms cancel ("Quaternions: How",
///   whose `QuatBlend` leaves it open: the blend axis is undefined at 180°). After the sign step this needs
///   every layer at 180° from `r` (`qₖ · r = 0`), e.g. q and −q with q ⊥ r. When the sum's length
///   is below 1e-3, the rotation of the highest-weight layer is used instead (ties broken by
///   comparing the quaternions with their sign fixed so the first non-zero component of
///   (w, x, y, z) is positive, so the choice is order-independent too; `reference[i]`'s rotation
///   if that has zero length). No NaN comes out for finite inputs.
///
/// # Panics
/// If `reference` or a layer has fewer entries than `out`.
pub(crate) fn blend_poses(
    layers: &[(&[Transform], f32)],
    reference: &[Transform],
    out: &mut [Transform],
) {
    let n = out.len();
    assert!(
        reference.len() >= n,
        "reference has {} transforms, out {n}",
        reference.len()
    );
    for (k, (layer, _)) in layers.iter().enumerate() {
        assert!(
            layer.len() >= n,
            "layer {k} has {} transforms, out {n}",
            layer.len()
        );
    }
    let max = layers.iter().map(|&(_, w)| usable(w)).fold(0.0, f32::max);
    let total: f32 = if max > 0.0 {
        layers.iter().map(|&(_, w)| usable(w) / max).sum()
    } else {
        0.0
    };
    // 0 or at least 1 (the largest weight counts 1).
    if total <= 0.0 {
        out.copy_from_slice(&reference[..n]);
        return;
    }
    let weight = |w: f32| usable(w) / max / total;
    for (i, o) in out.iter_mut().enumerate() {
        let r = Vec4::from(reference[i].rotation);
        let mut translation = Vec3::ZERO;
        let mut scale = Vec3::ZERO;
        let mut rotation = Vec4::ZERO;
        for &(layer, w) in layers {
            let w = weight(w);
            let t = &layer[i];
            translation += w * t.translation;
            scale += w * t.scale;
            let q = Vec4::from(t.rotation);
            rotation += if q.dot(r) < 0.0 { -w } else { w } * q;
        }
        let len = rotation.length();
        let rotation = if len >= MIN_ROTATION_SUM {
            Quat::from_vec4(rotation / len)
        } else {
            dominant_rotation(layers, i).unwrap_or(reference[i].rotation)
        };
        *o = Transform {
            translation,
            rotation,
            scale,
        };
    }
}

/// A layer weight as blended: negative, NaN and infinite weights count as 0.
fn usable(w: f32) -> f32 {
    if w > 0.0 && w.is_finite() {
        w
    } else {
        0.0
    }
}

/// The rotation of node `i` in the highest-weight layer, sign-canonical (first non-zero of
/// w, x, y, z positive) and normalised; equal weights are ordered by that canonical quaternion.
/// `None` when there are no layers or that rotation has zero length.
fn dominant_rotation(layers: &[(&[Transform], f32)], i: usize) -> Option<Quat> {
    let canonical = |q: Quat| {
        let first = [q.w, q.x, q.y, q.z].into_iter().find(|&c| c != 0.0);
        let q = if first.is_some_and(|c| c < 0.0) {
            -q
        } else {
            q
        };
        [q.w, q.x, q.y, q.z]
    };
    let key = |&(layer, w): &(&[Transform], f32)| (usable(w), canonical(layer[i].rotation));
    layers
        .iter()
        .map(key)
        .max_by(|a, b| {
            a.0.total_cmp(&b.0).then_with(|| {
                a.1.iter()
                    .zip(&b.1)
                    .map(|(x, y)| x.total_cmp(y))
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
        })
        .and_then(|(_, [w, x, y, z])| Vec4::new(x, y, z, w).try_normalize())
        .map(Quat::from_vec4)
}
