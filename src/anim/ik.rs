//! Two-bone leg IK for foot locking ([`crate::anim::BlendMethod::Locked`]).

use glam::{Mat4, Quat, Vec3};

use super::{Skeleton, Transform};

/// The leg that ends at `foot`, as `[hip, knee, ankle, foot]` for [`place_foot`]: the foot and
/// the unbranched chain of ancestors above it (each with the one child), up to three of them.
/// Three: thigh, shin, ankle (the Fox's hind legs). Two: `ankle = foot` (upper arm, forearm,
/// hand: its fore legs). Fewer — a foot hanging straight off the pelvis, as in a skeleton
/// whose feet are animated by translation — `None`: nothing to bend.
pub(super) fn leg_of(skeleton: &Skeleton, foot: usize) -> Option<[usize; 4]> {
    let parent = |n: usize| skeleton.parents.get(n).copied().flatten();
    let children = |n: usize| skeleton.parents.iter().filter(|p| **p == Some(n)).count();
    let mut path = vec![foot];
    let mut n = foot;
    while path.len() < 4 {
        match parent(n) {
            Some(p) if children(p) == 1 => {
                path.push(p);
                n = p;
            }
            _ => break,
        }
    }
    match path.len() {
        4 => Some([path[3], path[2], path[1], path[0]]),
        3 => Some([path[2], path[1], path[0], path[0]]),
        _ => None,
    }
}

/// Rotation part of a node's world matrix (the Fox's skeleton has no scale; a scaled one
/// keeps its scale, as only rotations are rewritten).
fn world_rotation(world: &[Mat4], node: usize) -> Quat {
    world
        .get(node)
        .map_or(Quat::IDENTITY, |m| m.to_scale_rotation_translation().1)
}

/// Two-bone IK: turns the hip and knee of `leg = [hip, knee, ankle, foot]` (world matrices of
/// the current pose in `world`) so the foot lands on `target` (model space) with the ankle's
/// world orientation unchanged, writing the new local rotations into `local`. The knee stays in
/// the plane it bends in now; beyond the leg's reach the leg straightens towards the target.
pub(super) fn place_foot(
    skeleton: &Skeleton,
    world: &[Mat4],
    leg: [usize; 4],
    target: Vec3,
    local: &mut [Transform],
) {
    let [hip, knee, ankle, foot] = leg;
    let pos = |n: usize| world[n].w_axis.truncate();
    let (h, k, a) = (pos(hip), pos(knee), pos(ankle));
    // The ankle goes where the foot's offset from it puts the foot on the target.
    let goal = target - (pos(foot) - a);
    let (l1, l2) = ((k - h).length(), (a - k).length());
    let to_goal = goal - h;
    let reach = to_goal.length();
    if l1 <= 1e-6 || l2 <= 1e-6 || reach <= 1e-6 {
        return;
    }
    let dir = to_goal / reach;
    let d = reach.clamp((l1 - l2).abs() + 1e-4 * (l1 + l2), (l1 + l2) * (1.0 - 1e-4));
    // Law of cosines: the angle at the hip between the goal and the thigh.
    let cos_hip = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
    let sin_hip = (1.0 - cos_hip * cos_hip).sqrt();
    // The bend side: the current knee's offset across the hip→goal line.
    let across = (k - h) - dir * (k - h).dot(dir);
    let side = if across.length_squared() > 1e-12 {
        across.normalize()
    } else {
        dir.any_orthonormal_vector()
    };
    let new_knee = h + (dir * cos_hip + side * sin_hip) * l1;
    let new_ankle = h + dir * d;
    let turn_hip = crate::quat::rotation_arc((k - h) / l1, (new_knee - h) / l1);
    let shin = turn_hip * (a - k);
    let turn_knee = crate::quat::rotation_arc(shin / l2, (new_ankle - new_knee) / l2);
    let r_hip = (turn_hip * world_rotation(world, hip)).normalize();
    let r_knee = (turn_knee * turn_hip * world_rotation(world, knee)).normalize();
    let r_ankle = world_rotation(world, ankle);
    let parent = skeleton
        .parents
        .get(hip)
        .copied()
        .flatten()
        .map_or(Quat::IDENTITY, |p| world_rotation(world, p));
    local[hip].rotation = (parent.inverse() * r_hip).normalize();
    local[knee].rotation = (r_hip.inverse() * r_knee).normalize();
    local[ankle].rotation = (r_knee.inverse() * r_ankle).normalize();
}
