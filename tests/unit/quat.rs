//! Property tests of `qtangent::quat` with seeded random inputs; glam is the oracle.

use crate::common;

use common::seeds::quat_angle;
use common::{for_seeds, rotation, unit_vec3, U};
use glam::{Mat3, Quat, Vec3};
use qtangent::quat::{angular_velocity, integrate, quat_to_mat3, rotation_arc};
use rand::Rng;

const CASES: u64 = 20_000;

/// A rotation by `angle` about a random axis.
fn small_rotation(rng: &mut impl Rng, angle: f32) -> Quat {
    Quat::from_axis_angle(unit_vec3(rng), angle)
}

// Tolerance for comparing two f32 computations of the same unit-quaternion rotation that each
// take ~20 roundings of magnitude ≤ 1 (products, sums, one sqrt, sin/cos to ~1 ulp): the
// quaternions differ by at most ~20·u per component, which is a rotation of at most
// 2·|Δq| ≤ 2·√4·20·u = 80u rad.
const ROTATION_TOL: f64 = 80.0 * U as f64;

#[test]
fn integrate_matches_glam_scaled_axis() {
    for_seeds("integrate_matches_glam_scaled_axis", CASES, |seed, rng| {
        let q = rotation(rng);
        // Angular speeds from 1e-7 to 10 rad/s, so both the Taylor and the trig branch run.
        let speed = 10f32.powf(rng.random_range(-7.0..1.0));
        let omega = unit_vec3(rng) * speed;
        let dt = rng.random_range(0.001..0.3);
        let ours = integrate(q, omega, dt);
        let glam = (Quat::from_scaled_axis(omega * dt) * q).normalize();
        let angle = quat_angle(ours, glam);
        assert!(
            angle <= ROTATION_TOL,
            "seed {seed:#x}: q {q} ω {omega} dt {dt}: {angle:e} rad > {ROTATION_TOL:e}"
        );
        assert!(
            (ours.length() - 1.0).abs() <= 4.0 * U,
            "seed {seed:#x}: not unit: {}",
            ours.length()
        );
    });
}

#[test]
fn integrating_angular_velocity_gives_back_q1() {
    for_seeds(
        "integrating_angular_velocity_gives_back_q1",
        CASES,
        |seed, rng| {
            let q0 = rotation(rng);
            // From 1e-7 rad (Taylor branch of θ/sin θ) to a half turn in any direction.
            let angle = if rng.random::<bool>() {
                10f32.powf(rng.random_range(-7.0..0.0))
            } else {
                rng.random_range(0.0..std::f32::consts::PI)
            };
            let q1 = small_rotation(rng, angle) * q0;
            let q1 = if rng.random::<bool>() { -q1 } else { q1 }; // sign must not matter
            let dt = rng.random_range(0.001..2.0);
            let omega = angular_velocity(q0, q1, dt);
            let back = integrate(q0, omega, dt);
            let err = quat_angle(back, q1);
            // angular_velocity adds an atan2 (~1 ulp) and a scale by 2/dt that integrate undoes:
            // still within the ~20-rounding budget, but relative to the rotation angle ≤ π as well.
            let tol = ROTATION_TOL + f64::from(angle) * 8.0 * f64::from(U);
            assert!(
                err <= tol,
                "seed {seed:#x}: q0 {q0} q1 {q1} dt {dt}: back {back}, {err:e} rad > {tol:e}"
            );
            // And the velocity itself agrees with glam's axis-angle of q1·q0⁻¹ (shortest path).
            let (axis, glam_angle) = (q1 * q0.conjugate()).to_axis_angle();
            let glam_angle = if glam_angle > std::f32::consts::PI {
                glam_angle - std::f32::consts::TAU
            } else {
                glam_angle
            };
            let expected = axis * glam_angle / dt;
            let diff = (omega - expected).length();
            // glam's acos-based angle is the weak one near 0 (acos loses half the digits); compare
            // only where it is accurate, with its own error of ~√(2u) rad relative to the turn.
            if angle > 1e-2 {
                let tol = (2.0 * U).sqrt() * 4.0 / dt;
                assert!(
                    diff <= tol,
                    "seed {seed:#x}: ω {omega} vs glam {expected}: {diff:e} > {tol:e}"
                );
            }
        },
    );
}

#[test]
fn angular_velocity_small_angle_is_exact_to_f32() {
    // The article's acos(q0·q1) ("Angular velocity from two known orientations") gives 0 for every rotation below ~3e-4 rad in f32 (q0·q1 rounds to
    // 1); atan2 on the relative quaternion keeps full relative precision. q0 is the identity or
    // a half turn about an axis, so q1 = Δ·q0 and q1·q0⁻¹ are exact permutations and sign
    // changes of Δ's components: the only errors are Δ's own (sin/cos, ~1 ulp each) and
    // angular_velocity's length, atan2, division and scaling (~5 roundings) — 8u relative.
    let exact_q0 = [
        Quat::IDENTITY,
        Quat::from_xyzw(1.0, 0.0, 0.0, 0.0),
        Quat::from_xyzw(0.0, 1.0, 0.0, 0.0),
        Quat::from_xyzw(0.0, 0.0, 1.0, 0.0),
    ];
    for_seeds(
        "angular_velocity_small_angle_is_exact_to_f32",
        CASES,
        |seed, rng| {
            let q0 = exact_q0[rng.random_range(0..4)];
            let axis = unit_vec3(rng);
            let angle = 10f32.powf(rng.random_range(-7.0..-3.0));
            let delta = Quat::from_axis_angle(axis, angle);
            let q1 = delta * q0;
            let omega = angular_velocity(q0, q1, 1.0);
            // Compare with Δ's own axis·angle in f64 (atan2 of its parts: what Δ really holds).
            let d = glam::DVec3::new(delta.x.into(), delta.y.into(), delta.z.into());
            let held = d.normalize() * 2.0 * d.length().atan2(delta.w.into());
            let rel = (omega.as_dvec3() - held).length() / held.length();
            let tol = 8.0 * f64::from(U);
            assert!(
                rel <= tol,
                "seed {seed:#x}: angle {angle:e}: ω {omega}, relative error {rel:e} > {tol:e}"
            );
        },
    );
}

#[test]
fn rotation_arc_takes_a_to_b_like_glam() {
    for_seeds("rotation_arc_takes_a_to_b_like_glam", CASES, |seed, rng| {
        let a = unit_vec3(rng);
        let b = unit_vec3(rng);
        let q = rotation_arc(a, b);
        let glam = Quat::from_rotation_arc(a, b);
        // The half-vector construction: ~10 roundings to q; rotating a adds ~10 more, all on
        // magnitudes ≤ 2 — but 1/|a + b| amplifies rounding by 2/|a + b|, which rotation_arc
        // caps by splitting the turn once |a + b| < 0.1.
        let amp = 2.0 / (a + b).length().max(0.1);
        let tol = 40.0 * U * amp;
        let moved = q * a;
        assert!(
            (moved - b).length() <= tol,
            "seed {seed:#x}: a {a} b {b}: q·a = {moved}, off by {:e} > {tol:e}",
            (moved - b).length()
        );
        assert!(
            quat_angle(q.normalize(), glam) as f32 <= 2.0 * tol,
            "seed {seed:#x}: differs from glam {glam}: {q}"
        );
    });
}

#[test]
fn rotation_arc_antiparallel_is_a_half_turn() {
    for_seeds(
        "rotation_arc_antiparallel_is_a_half_turn",
        CASES,
        |seed, rng| {
            let a = unit_vec3(rng);
            // Exactly antiparallel, and off it by 1e-7 to 1e-1 rad: the band the article's formula gets wrong.
            let off = 10f32.powf(rng.random_range(-7.0..-1.0));
            for b in [-a, (-a + unit_vec3(rng) * off).normalize()] {
                let q = rotation_arc(a, b);
                assert!(q.is_finite(), "seed {seed:#x}: a {a} b {b}: {q}");
                assert!(
                    (q.length() - 1.0).abs() <= 4.0 * U,
                    "seed {seed:#x}: not unit {q}"
                );
                // Two quarter-ish turns of ~20 roundings each on magnitudes ≤ 2 (see above),
                // with |a + c| and |c + b| ≈ √2, so no amplification: 2·40u·√2 ≤ 120u.
                let moved = q * a;
                let tol = 120.0 * U;
                assert!(
                    (moved - b).length() <= tol,
                    "seed {seed:#x}: a {a} b {b}: q·a = {moved}, off by {:e}",
                    (moved - b).length()
                );
            }
        },
    );
    // Axis-aligned: the formula of "Quaternion Tricks" would divide 0 by 0 here.
    for a in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::NEG_X] {
        let q = rotation_arc(a, -a);
        assert!(q.is_finite() && (q * a + a).length() <= 4.0 * U, "{a}: {q}");
    }
}

#[test]
fn quat_to_mat3_matches_glam_and_scales_by_norm_squared() {
    for_seeds(
        "quat_to_mat3_matches_glam_and_scales_by_norm_squared",
        CASES,
        |seed, rng| {
            let q = rotation(rng);
            let s = rng.random_range(0.1f32..10.0);
            let ours = quat_to_mat3(q * s);
            let expected = Mat3::from_quat(q) * (s * s);
            // Each entry sums four products ≤ s²: ~6 roundings of magnitude ≤ 2s² on each side.
            let tol = 24.0 * U * s * s;
            let diff = (ours - expected)
                .to_cols_array()
                .iter()
                .fold(0.0f32, |m, d| m.max(d.abs()));
            assert!(
                diff <= tol,
                "seed {seed:#x}: q {q} scale {s}: max entry diff {diff:e} > {tol:e}"
            );
            // q and -q give the same matrix, exactly (every term is quadratic).
            assert_eq!(quat_to_mat3(q), quat_to_mat3(-q), "seed {seed:#x}");
        },
    );
}
