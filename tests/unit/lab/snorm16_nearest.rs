//! The round-to-nearest snorm16 encoder (`lab::skin_reference::encode_snorm16x4_nearest`: what
//! the skinning kernel writes; not a table format, so not reachable through `Format`).

use glam::Vec3;

use crate::common::table_frames::{axis_aligned_frames, random_rotation, table_frames};
use crate::format::decode_snorm16x4;
use crate::lab::skin_reference::{encode_snorm16x4_nearest, SNORM16_NEAREST_BOUND_DEG};
use crate::testing::{for_seeds, quat_angle};
use crate::{QTangent, TangentFrame};

/// The frame of unit normal `n`, unit tangent `t` ⟂ `n` and handedness `h` (the callers'
/// frames are orthonormal by construction).
fn frame(n: Vec3, t: Vec3, h: f32) -> QTangent {
    TangentFrame {
        normal: n,
        tangent: t,
        bitangent: n.cross(t) * h,
    }
    .to_qtangent()
}

/// The round-to-nearest snorm16 encoder (what the skinning kernel writes): within its derived
/// bound on seeded random frames, the 48 axis-aligned frames and the table's stress sets, with
/// the handedness kept, and the same codes as the search where no rounding choice exists.
#[test]
fn nearest_stays_within_its_bound() {
    assert_eq!(
        encode_snorm16x4_nearest(&frame(Vec3::Z, Vec3::X, 1.0)),
        [0, 0, 0, 32767]
    );
    // w = 0 is pushed to one step, on the reflection's side.
    assert_eq!(
        encode_snorm16x4_nearest(&frame(Vec3::NEG_Z, Vec3::X, -1.0)),
        [-32767, 0, 0, -1]
    );
    let mut worst = 0.0f64;
    let mut check = |q: &QTangent, what: &str| {
        let back = decode_snorm16x4(encode_snorm16x4_nearest(q));
        let angle = quat_angle(q.rotation.normalize(), back.rotation.normalize()).to_degrees();
        assert!(
            angle <= SNORM16_NEAREST_BOUND_DEG,
            "{what}: {q:?} decodes {angle}° away (bound {SNORM16_NEAREST_BOUND_DEG}°)"
        );
        assert_eq!(
            back.reflected, q.reflected,
            "{what}: {q:?} lost its handedness"
        );
        worst = worst.max(angle);
    };
    for f in table_frames(200_000) {
        check(&f.to_qtangent(), "table frame");
    }
    for f in axis_aligned_frames() {
        check(&f.to_qtangent(), "axis-aligned frame");
    }
    for_seeds("snorm16 nearest", 4, |_, rng| {
        use rand::Rng;
        for _ in 0..50_000 {
            let q = QTangent {
                rotation: random_rotation(rng),
                reflected: rng.random_bool(0.5),
            };
            check(&q, "random frame");
        }
    });
    eprintln!("snorm16 nearest: worst {worst:.5}° (bound {SNORM16_NEAREST_BOUND_DEG:.5}°)");
}
