//! Tangent frames: orthonormalisation keeps the normal, degenerate input is an error, and the
//! frame → quaternion → frame round trip holds to f32 rounding.

use crate::common;

use crate::common::table_frames::{axis_aligned_frames, random_frames};
use common::{for_seeds, rotation, unit_vec3, U};
use glam::{Vec3, Vec4};
use qtangent::measure::angle_deg;
use qtangent::{FrameError, TangentFrame};
use rand::Rng;

#[test]
fn orthonormalises_keeping_the_normal_and_handedness() {
    let mut worst = 0.0f64;
    for_seeds(
        "orthonormalises_keeping_the_normal_and_handedness",
        20_000,
        |seed, rng| {
            let q = rotation(rng);
            let (n, t) = (q * Vec3::Z, q * Vec3::X);
            let h = if rng.random::<bool>() { 1.0 } else { -1.0 };
            // Skew the tangent towards the normal, scale everything, tilt the bitangent.
            let skew = rng.random_range(-0.9..0.9);
            let t_in = (t + n * skew) * rng.random_range(0.1..10.0);
            let n_in = n * rng.random_range(0.1..10.0);
            let b_in = n.cross(t) * h + unit_vec3(rng) * 0.3;
            let f = TangentFrame::new(n_in, t_in, b_in)
                .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
            // The normal keeps its direction: only normalised (one sqrt, a division: a few ulps).
            let n_err = angle_deg(n_in, f.normal).to_radians();
            assert!(
                n_err <= 8.0 * f64::from(U),
                "seed {seed:#x}: normal moved {n_err:e} rad"
            );
            // Orthonormal to f32 rounding of a Gram–Schmidt step on magnitudes ≤ 1 (~10u).
            for (name, v) in [("n", f.normal), ("t", f.tangent), ("b", f.bitangent)] {
                assert!(
                    (v.length() - 1.0).abs() <= 10.0 * U,
                    "seed {seed:#x}: |{name}| = {}",
                    v.length()
                );
            }
            assert!(
                f.normal.dot(f.tangent).abs() <= 10.0 * U,
                "seed {seed:#x}: n·t = {}",
                f.normal.dot(f.tangent)
            );
            assert_eq!(f.handedness(), h, "seed {seed:#x}: handedness lost");
            // The tangent stays in the plane of the input normal and tangent, on the same side:
            // within `tangent_bound_rad` of t.
            let (turned, bound) = (
                angle_deg(f.tangent, t).to_radians(),
                tangent_bound_rad(n, t, skew),
            );
            assert!(
                turned <= bound,
                "seed {seed:#x}: tangent turned {turned:e} rad > {bound:e} rad"
            );
            worst = worst.max(turned / bound);
        },
    );
    println!("tangent: worst turn {worst:.3} of its bound");
}

/// How far (radians) `TangentFrame::new` may turn the tangent away from `t` when given
/// `n_in = n·s₂` and `t_in = (t + skew·n)·s` (f32, s and s₂ positive), to first order in the f32
/// unit roundoff U:
///
/// - `tilt`: t is no exact perpendicular of n (both are f32 images of a rotation), and Gram–Schmidt
///   of (n, t + skew·n) in exact arithmetic gives the perpendicular part of t, asin(|n̂·t̂|) away;
/// - building t_in rounds three times (`n·skew`, the sum, the scaling): an error of at most
///   U·(|skew|·|n| + 2·|t + skew·n|)·s, of which the perpendicular part turns the result by at
///   most that over s·|t|;
/// - n_in = n·s₂ rounds each component (direction within U): the projection axis moves by U,
///   which tilts the result out of n's plane by U and moves the removed part skew·n by |skew|·U;
/// - the Gram–Schmidt in f64 is exact to ~1e-16; the result rounded to f32, U.
fn tangent_bound_rad(n: Vec3, t: Vec3, skew: f32) -> f64 {
    let (n, t) = (n.as_dvec3(), t.as_dvec3());
    let skew = f64::from(skew);
    let tilt = (n.dot(t).abs() / (n.length() * t.length())).asin();
    let t_in = (t + n * skew).length();
    tilt + f64::from(U) * ((skew.abs() * n.length() + 2.0 * t_in) / t.length() + skew.abs() + 2.0)
}

#[test]
fn gltf_style_tangent_w_gives_handedness() {
    let f = TangentFrame::from_normal_tangent(Vec3::Z, Vec4::new(1.0, 0.0, 0.0, -1.0)).unwrap();
    assert_eq!(f.bitangent, Vec3::NEG_Y);
    assert_eq!(f.handedness(), -1.0);
    let f = TangentFrame::from_normal_tangent(Vec3::Z, Vec4::new(1.0, 0.0, 0.0, 1.0)).unwrap();
    assert_eq!(f.bitangent, Vec3::Y);
}

#[test]
fn degenerate_input_is_an_error() {
    let (x, y, z) = (Vec3::X, Vec3::Y, Vec3::Z);
    let cases: [(&str, Vec3, Vec3, Vec3, FrameError); 8] = [
        (
            "zero normal",
            Vec3::ZERO,
            x,
            y,
            FrameError::ZeroLength("normal"),
        ),
        (
            "zero tangent",
            z,
            Vec3::ZERO,
            y,
            FrameError::ZeroLength("tangent"),
        ),
        (
            "zero bitangent",
            z,
            x,
            Vec3::ZERO,
            FrameError::ZeroLength("bitangent"),
        ),
        (
            "NaN normal",
            Vec3::new(f32::NAN, 0.0, 1.0),
            x,
            y,
            FrameError::NonFinite("normal"),
        ),
        (
            "infinite tangent",
            z,
            Vec3::new(f32::INFINITY, 0.0, 0.0),
            y,
            FrameError::NonFinite("tangent"),
        ),
        (
            "parallel tangent",
            z,
            z * 3.0,
            y,
            FrameError::TangentParallelToNormal,
        ),
        (
            "antiparallel tangent",
            z,
            -z,
            y,
            FrameError::TangentParallelToNormal,
        ),
        (
            "bitangent in the n-t plane",
            z,
            x,
            x + z,
            FrameError::NoHandedness,
        ),
    ];
    for (what, n, t, b, expected) in cases {
        assert_eq!(TangentFrame::new(n, t, b), Err(expected), "{what}");
    }
    for w in [0.0, f32::NAN, f32::INFINITY] {
        let r = TangentFrame::from_normal_tangent(z, x.extend(w));
        let ok = match w {
            w if w.is_infinite() => r.is_err(),
            _ => r == Err(FrameError::NoHandedness),
        };
        assert!(ok, "tangent.w = {w}: {r:?}");
    }
    // Large but finite vectors still have a direction (their squares would overflow f32).
    let f = TangentFrame::from_normal_tangent(Vec3::splat(1e20), Vec4::new(3e38, 0.0, 0.0, 1.0))
        .unwrap();
    let s = 1.0 / 3f32.sqrt();
    assert!((f.normal - Vec3::splat(s)).length() <= 4.0 * U, "{f:?}");
    assert!((f.tangent.length() - 1.0).abs() <= 4.0 * U, "{f:?}");
    let f = TangentFrame::new(z * 1e30, x * 1e-10, y * 3e38).unwrap();
    assert_eq!((f.normal, f.tangent, f.bitangent), (z, x, y));
    // Nearly parallel: a tangent 1e-4 rad off the normal carries too little direction
    // (threshold sine 1e-3); one 2e-3 rad off is accepted and exact.
    let tilt = |a: f32| Vec3::new(a.sin(), 0.0, a.cos());
    assert_eq!(
        TangentFrame::new(z, tilt(1e-4), y),
        Err(FrameError::TangentParallelToNormal)
    );
    let f = TangentFrame::new(z, tilt(2e-3), y).unwrap();
    assert!((f.tangent - x).length() <= 4.0 * U, "{f:?}");
    // The messages say what is wrong.
    assert_eq!(
        FrameError::TangentParallelToNormal.to_string(),
        "the tangent is parallel to the normal"
    );
}

#[test]
fn quaternion_round_trip_is_exact_to_f32() {
    let mut frames = random_frames(7, 100_000);
    frames.extend(axis_aligned_frames());
    for (i, f) in frames.iter().enumerate() {
        let back = f.to_qtangent().to_frame();
        // glam's from_mat3 (~10 roundings), normalise, and the seed's matrix (~6) on unit
        // magnitudes: ≤ ~32u of rotation, 2·32u rad on a vector; the bitangent's cross adds 2u.
        let tol = (66.0 * f64::from(U)).to_degrees();
        for (name, a, b) in [
            ("n", f.normal, back.normal),
            ("t", f.tangent, back.tangent),
            ("b", f.bitangent, back.bitangent),
        ] {
            let e = angle_deg(a, b);
            assert!(
                e <= tol,
                "frame {i} ({f:?}): {name} off by {e:e}° > {tol:e}°"
            );
        }
        assert_eq!(f.handedness(), back.handedness(), "frame {i}: handedness");
    }
}

#[test]
fn decoded_garbage_is_an_error_when_checked() {
    use qtangent::{Format, QTangent};
    // All-ones bytes are NaN as f32 and f16; all-zero bytes a zero quaternion.
    for format in [Format::F32x4, Format::F16x4] {
        for (byte, error) in [
            (0xff, FrameError::NonFinite("quaternion")),
            (0, FrameError::ZeroLength("quaternion")),
        ] {
            let garbage = format.decode(&vec![byte; format.bytes()]);
            assert_eq!(
                garbage.try_to_frame(),
                Err(error),
                "{} bytes {byte:#x}",
                format.name()
            );
        }
    }
    // A real quaternion passes.
    let q = QTangent {
        rotation: glam::Quat::IDENTITY,
        reflected: false,
    };
    assert!(q.try_to_frame().is_ok());
    // Found by the read_qtangent fuzz target: f32x4 bytes holding components near 10³¹, whose
    // squares overflow f32, gave a zero frame. Scaled first, they are the rotation they stand
    // for: here the axis of the largest component turned half a turn, as (1, 0, 0, 0) is.
    let huge = QTangent {
        rotation: glam::Quat::from_xyzw(7.9e31, 1.0e24, 4.8e22, 1.8e28),
        reflected: false,
    };
    let unit = QTangent {
        rotation: glam::Quat::from_xyzw(1.0, 0.0, 0.0, 0.0),
        reflected: false,
    };
    let (a, b) = (
        huge.try_to_frame().unwrap_or_else(|e| panic!("{e}")),
        unit.to_frame(),
    );
    // The other components are at most 1.8·10²⁸ / 7.9·10³¹ of the largest: the rotation is
    // (1, 0, 0, 0) turned by at most twice that (a unit quaternion's angle is twice its
    // components' tilt), plus f32 rounding.
    let tilt = 2.0 * 1.8e28 / 7.9e31;
    for (x, y) in [
        (a.normal, b.normal),
        (a.tangent, b.tangent),
        (a.bitangent, b.bitangent),
    ] {
        assert!(x.is_finite() && (x.length() - 1.0).abs() < 1e-6, "{x}");
        assert!(x.angle_between(y) <= tilt * 1.01 + 1e-6, "{x} against {y}");
    }
}
