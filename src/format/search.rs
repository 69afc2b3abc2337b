//! The rounding search every quantising encoder shares: try the candidate codes of each stored
//! component and keep the combination whose *decoded frame* is nearest the input rotation.

use glam::{DMat3, DQuat, Quat, Vec4};

/// The rotation matrix of `q` in f64: the reference the rounding search measures against.
pub(super) fn target_matrix(q: Quat) -> DMat3 {
    DMat3::from_quat(q.as_dquat().normalize())
}

/// Decoded-frame error of a candidate: the largest squared distance between a column of its
/// rotation (t, cross(n, t), n) and the target's. The columns are unit vectors, so this is the
/// squared chord of the largest vector angle: minimising it minimises the worst decoded vector.
pub(super) fn frame_cost(decoded: Vec4, target: &DMat3) -> f64 {
    let d = decoded.as_dvec4();
    let len = d.length();
    // Zero or NaN: never the best candidate.
    if len.is_nan() || len == 0.0 {
        return f64::INFINITY;
    }
    let m = DMat3::from_quat(DQuat::from_vec4(d / len));
    (m.x_axis - target.x_axis)
        .length_squared()
        .max((m.y_axis - target.y_axis).length_squared())
        .max((m.z_axis - target.z_axis).length_squared())
}

/// Tries every combination of the per-component `candidates` and keeps the one whose decoded
/// frame is nearest `target` ([`frame_cost`]); returns it with its cost.
pub(super) fn best_rounding<T: Copy, const N: usize>(
    candidates: [&[T]; N],
    target: &DMat3,
    decode: impl Fn([T; N]) -> Vec4,
) -> ([T; N], f64) {
    let total: usize = candidates.iter().map(|c| c.len()).product();
    let mut best = std::array::from_fn(|k| candidates[k][0]);
    let mut best_cost = f64::INFINITY;
    for combo in 0..total {
        let mut rest = combo;
        let pick: [T; N] = std::array::from_fn(|k| {
            let c = candidates[k][rest % candidates[k].len()];
            rest /= candidates[k].len();
            c
        });
        let cost = frame_cost(decode(pick), target);
        if cost < best_cost {
            best_cost = cost;
            best = pick;
        }
    }
    (best, best_cost)
}

/// [`frame_cost`] of a decoded-vector error of `deg` degrees (the squared chord).
pub(super) fn cost_of_deg(deg: f64) -> f64 {
    let chord = 2.0 * (deg.to_radians() / 2.0).sin();
    chord * chord
}

/// Five codes around `x`: its rounding and two steps either side, clamped to `[lo, hi]`. The
/// second pass of a search, for the rare inputs that floor/ceil cannot bring under the bound.
pub(super) fn wide_codes(x: f64, lo: f64, hi: f64) -> [f64; 5] {
    let r = x.round();
    std::array::from_fn(|d| (r + d as f64 - 2.0).clamp(lo, hi))
}
