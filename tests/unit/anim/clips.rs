//! Skeletal animation on the CPU: glTF clips loaded from small in-memory files and sampled with
//! glTF 2.0 semantics (STEP, LINEAR with slerp, CUBICSPLINE), the node hierarchy, pose blending,
//! the Fox's three clips and rest pose, and malformed animations (an `Err` naming the animation
//! and channel, never a panic).
//!
//! Every expected value is worked by hand in the comment next to it; tolerances are a few ulps of
//! the magnitudes involved, derived where they are used.

use crate::common;

use std::path::Path;

use glam::{Mat4, Quat, Vec3, Vec4};
use qtangent::anim::{blend_poses, Clip, Interpolation, Property, Transform};
use qtangent::mesh::{self, MeshError, Scene};
use qtangent::{gltf, WarningKind};
use serde_json::{json, Value};

/// f32 machine epsilon (one ulp of 1.0).
const EPS: f32 = f32::EPSILON;

/// sin 45° = cos 45° = √½, the components of a 90° rotation quaternion.
const H: f32 = std::f32::consts::FRAC_1_SQRT_2;

#[track_caller]
fn assert_close(actual: Vec4, expected: Vec4, tol: f32, what: &str) {
    let diff = (actual - expected).abs().max_element();
    assert!(
        diff <= tol,
        "{what}: got {actual}, expected {expected}: difference {diff:e}, allowed {tol:e}"
    );
}

#[track_caller]
fn assert_mat_close(actual: Mat4, expected: Mat4, tol: f32, what: &str) {
    for c in 0..4 {
        assert_close(
            actual.col(c),
            expected.col(c),
            tol,
            &format!("{what} column {c}"),
        );
    }
}

fn v3(x: f32, y: f32, z: f32) -> Vec4 {
    Vec4::new(x, y, z, 0.0)
}

// ---------------------------------------------------------------------------------------------
// In-memory glTF files

/// Accessors in one buffer, written as a `data:` URI by the library's writer. Accessor 0 is a
/// triangle's POSITION (every file needs a mesh).
struct Builder(gltf::Builder);

impl Builder {
    fn new() -> Self {
        let mut b = Self(gltf::Builder::default());
        b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
        b
    }

    /// An accessor of `layout` over `bytes` in a view of its own; returns its index.
    fn accessor(&mut self, bytes: &[u8], layout: gltf::AccessorLayout) -> usize {
        self.0.accessor(bytes, layout, None)
    }

    /// A float accessor of type `ty` (`SCALAR`, `VEC3`, `VEC4`).
    fn floats(&mut self, data: &[f32], ty: &str) -> usize {
        let kind = ty.parse().unwrap_or_else(|e| panic!("{e}"));
        self.accessor(
            bytemuck::cast_slice(data),
            gltf::AccessorLayout::float(kind),
        )
    }

    /// The glTF JSON: one mesh on node 0, then `nodes` and `animations` as given.
    fn document(&self, nodes: Value, animations: Value) -> Value {
        let mut doc = self.0.to_gltf(qtangent::lab::gltf_json::BufferUri::DataUri);
        doc["meshes"] = json!([{"primitives": [{"attributes": {"POSITION": 0}}]}]);
        doc["nodes"] = nodes;
        doc["scenes"] = json!([{"nodes": [0]}]);
        doc["scene"] = json!(0);
        doc["animations"] = animations;
        doc
    }
}

fn load(doc: &Value) -> Result<Scene, MeshError> {
    let bytes = serde_json::to_vec(doc).expect("test JSON serialises");
    mesh::load_bytes(Path::new("anim.gltf"), &bytes, None)
}

#[track_caller]
fn load_ok(doc: &Value) -> Scene {
    load(doc).unwrap_or_else(|e| panic!("{e}"))
}

/// Keys for one channel: times, flat values (3 or 4 floats per value), the glTF path.
struct Keys<'a> {
    path: &'a str,
    times: &'a [f32],
    values: &'a [f32],
}

/// A file with one node and one animation "Clip" with a channel per `keys`, all interpolated
/// with `interpolation`.
fn clip_file(interpolation: &str, keys: &[Keys<'_>]) -> Value {
    let mut b = Builder::new();
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let input = b.floats(k.times, "SCALAR");
        let ty = if k.path == "rotation" { "VEC4" } else { "VEC3" };
        let output = b.floats(k.values, ty);
        samplers.push(json!({"input": input, "output": output, "interpolation": interpolation}));
        channels.push(json!({"sampler": i, "target": {"node": 0, "path": k.path}}));
    }
    b.document(
        json!([{"mesh": 0, "name": "body"}]),
        json!([{"name": "Clip", "samplers": samplers, "channels": channels}]),
    )
}

/// The loaded clip of [`clip_file`], checked for property and interpolation order.
fn load_clip(interpolation: &str, keys: &[Keys<'_>]) -> Clip {
    let scene = load_ok(&clip_file(interpolation, keys));
    assert_eq!(scene.animations.len(), 1);
    let clip = scene.animations[0].clone();
    assert_eq!(clip.name, "Clip");
    assert_eq!(clip.channels.len(), keys.len());
    for (c, k) in clip.channels.iter().zip(keys) {
        let property = match k.path {
            "translation" => Property::Translation,
            "rotation" => Property::Rotation,
            _ => Property::Scale,
        };
        assert_eq!(c.property, property);
        assert_eq!(c.node, 0);
    }
    clip
}

// ---------------------------------------------------------------------------------------------
// Sampling

#[test]
fn step_holds_the_last_key_at_or_before_t() {
    // 90° about Z: (0, 0, sin 45°, cos 45°).
    let q90 = [0.0, 0.0, H, H];
    let clip = load_clip(
        "STEP",
        &[
            Keys {
                path: "translation",
                times: &[0.5, 1.0, 2.0],
                values: &[0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            },
            Keys {
                path: "rotation",
                times: &[0.5, 1.0, 2.0],
                values: &[[0.0, 0.0, 0.0, 1.0], q90, [1.0, 0.0, 0.0, 0.0]].concat(),
            },
            Keys {
                path: "scale",
                times: &[0.5, 1.0, 2.0],
                values: &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 0.5, 3.0, 1.0],
            },
        ],
    );
    assert_eq!(clip.channels[0].interpolation, Interpolation::Step);
    // Duration: the last key time, 2.
    assert_eq!(clip.duration, 2.0);
    let [tr, rot, sc] = [&clip.channels[0], &clip.channels[1], &clip.channels[2]];
    // (t, key whose value holds): before the first key and at it → key 0; between keys → the
    // earlier key; at a key → that key; at and after the last → the last.
    let cases = [
        (-1.0, 0),
        (0.0, 0),
        (0.5, 0),
        (0.99, 0),
        (1.0, 1),
        (1.999, 1),
        (2.0, 2),
        (7.0, 2),
        (f32::NAN, 0),
    ];
    let translations = [v3(0.0, 0.0, 0.0), v3(1.0, 2.0, 3.0), v3(4.0, 5.0, 6.0)];
    let rotations = [Vec4::W, Vec4::from(q90), Vec4::X];
    let scales = [v3(1.0, 1.0, 1.0), v3(2.0, 2.0, 2.0), v3(0.5, 3.0, 1.0)];
    for (t, k) in cases {
        // STEP copies a key: translation and scale exactly. Rotations were normalised on load:
        // (0, 0, √½, √½) rounded to f32 has length 1 within an ulp, so normalising moves each
        // component by at most a couple of ulps of 1.
        assert_eq!(tr.sample(t), translations[k], "translation at t = {t}");
        assert_eq!(sc.sample(t), scales[k], "scale at t = {t}");
        assert_close(
            rot.sample(t),
            rotations[k],
            2.0 * EPS,
            &format!("rotation at t = {t}"),
        );
    }
}

#[test]
fn linear_lerps_translation_and_scale() {
    let clip = load_clip(
        "LINEAR",
        &[
            Keys {
                path: "translation",
                times: &[1.0, 3.0],
                values: &[0.0, 0.0, 0.0, 2.0, -4.0, 8.0],
            },
            Keys {
                path: "scale",
                times: &[0.0, 2.0],
                values: &[1.0, 1.0, 1.0, 3.0, 1.0, 0.5],
            },
        ],
    );
    assert_eq!(clip.duration, 3.0);
    let (tr, sc) = (&clip.channels[0], &clip.channels[1]);
    // Translation keys (0,0,0) at t = 1 and (2,-4,8) at t = 3: s = (t − 1)/2.
    //   t = 2   → s = 0.5  → (1, −2, 4)
    //   t = 1.5 → s = 0.25 → (0.5, −1, 2)
    //   t ≤ 1 → the first key, t ≥ 3 → the last.
    // Every value is a small dyadic rational, exact in f32 whichever lerp formula is used;
    // the tolerance allows 2 ulps of the largest magnitude (8) in case of a different rounding.
    let tol = 2.0 * 8.0 * EPS;
    let cases = [
        (2.0, v3(1.0, -2.0, 4.0)),
        (1.5, v3(0.5, -1.0, 2.0)),
        (1.0, v3(0.0, 0.0, 0.0)),
        (0.0, v3(0.0, 0.0, 0.0)),
        (-3.0, v3(0.0, 0.0, 0.0)),
        (3.0, v3(2.0, -4.0, 8.0)),
        (10.0, v3(2.0, -4.0, 8.0)),
    ];
    for (t, want) in cases {
        assert_close(tr.sample(t), want, tol, &format!("translation at t = {t}"));
    }
    // Scale keys (1,1,1) at 0 and (3,1,0.5) at 2: s = t/2.
    //   t = 0.5 → s = 0.25 → (1 + 0.25·2, 1, 1 − 0.25·0.5) = (1.5, 1, 0.875)
    //   t = 1   → s = 0.5  → (2, 1, 0.75)
    // Magnitudes ≤ 3: 2 ulps of 3.
    let tol = 2.0 * 3.0 * EPS;
    let cases = [
        (0.5, v3(1.5, 1.0, 0.875)),
        (1.0, v3(2.0, 1.0, 0.75)),
        (-1.0, v3(1.0, 1.0, 1.0)),
        (2.5, v3(3.0, 1.0, 0.5)),
    ];
    for (t, want) in cases {
        assert_close(sc.sample(t), want, tol, &format!("scale at t = {t}"));
    }
}

#[test]
fn linear_slerps_rotation_along_the_shorter_arc() {
    // Keys: identity at t = 0 and 90° about Z, (0, 0, sin 45°, cos 45°), at t = 1. Slerp turns
    // at a constant rate, so at s the rotation is 90°·s about Z: (0, 0, sin(45°·s), cos(45°·s)).
    //   s = 0.5  → 45°   about Z: (0, 0, sin 22.5°, cos 22.5°)  = (0, 0, 0.38268343, 0.92387953)
    //   s = 0.25 → 22.5° about Z: (0, 0, sin 11.25°, cos 11.25°) = (0, 0, 0.19509032, 0.98078528)
    // (nlerp would give (0, 0, 0.1768, 0.9268)/0.9435 = (0, 0, 0.1874, 0.9823) at s = 0.25, off
    // by 8e-3: the s = 0.25 case tells slerp from nlerp.)
    // The second file stores the end key as its negation (0, 0, −sin 45°, −cos 45°), the same
    // rotation: the shorter arc flips it and gives the same values.
    let half = Vec4::new(0.0, 0.0, 0.382_683_43, 0.923_879_5);
    let quarter = Vec4::new(0.0, 0.0, 0.195_090_32, 0.980_785_28);
    // Tolerance: the expected values are the f32 nearest the true ones (½ ulp); the angle
    // (atan2), two sines, the weighted sum and the normalisation each add a few ulps of 1;
    // 8 ulps of 1 covers them.
    let tol = 8.0 * EPS;
    for end in [[0.0, 0.0, H, H], [0.0, 0.0, -H, -H]] {
        let clip = load_clip(
            "LINEAR",
            &[Keys {
                path: "rotation",
                times: &[0.0, 1.0],
                values: &[[0.0, 0.0, 0.0, 1.0], end].concat(),
            }],
        );
        let rot = &clip.channels[0];
        let what = format!("end key {end:?}");
        assert_close(rot.sample(0.5), half, tol, &format!("{what}, s = 0.5"));
        assert_close(rot.sample(0.25), quarter, tol, &format!("{what}, s = 0.25"));
        assert_close(rot.sample(-1.0), Vec4::W, tol, &format!("{what}, before"));
        // After the last key: the key as stored (normalised), not flipped.
        assert_close(
            rot.sample(2.0),
            Vec4::from(end),
            tol,
            &format!("{what}, after"),
        );
        assert_eq!(rot.sample_quat(0.5), Quat::from_vec4(rot.sample(0.5)));
    }

    // Half a turn about X, identity → (1, 0, 0, 0): the keys are orthogonal (dot 0, no flip);
    // halfway is 90° about X: (sin 45°, 0, 0, cos 45°).
    let clip = load_clip(
        "LINEAR",
        &[Keys {
            path: "rotation",
            times: &[0.0, 2.0],
            values: &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0],
        }],
    );
    assert_close(
        clip.channels[0].sample(1.0),
        Vec4::new(H, 0.0, 0.0, H),
        tol,
        "180° about X, halfway",
    );

    // A tiny arc (the nlerp fallback): 1e-3 rad about Z, key (0, 0, sin 5e-4, cos 5e-4) =
    // (0, 0, 4.9999998e-4, 0.99999988), written as the nearest f32 (0.9999999). Halfway is 5e-4 rad: (0, 0, sin 2.5e-4, cos 2.5e-4) =
    // (0, 0, 2.4999999e-4, 0.99999997). nlerp differs from slerp here by φ³/62 ≈ 2e-12 (φ the
    // 5e-4 arc between the quaternions): the tolerance is rounding only, 8 ulps of 1.
    let clip = load_clip(
        "LINEAR",
        &[Keys {
            path: "rotation",
            times: &[0.0, 1.0],
            values: &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 4.999_999_8e-4, 0.999_999_9],
        }],
    );
    assert_close(
        clip.channels[0].sample(0.5),
        Vec4::new(0.0, 0.0, 2.499_999_9e-4, 0.999_999_97),
        tol,
        "1e-3 rad about Z, halfway",
    );
}

#[test]
fn cubic_spline_matches_the_hermite_formula_by_hand() {
    // Keys at t = 1 and t = 3 (td = 2), stored as (in-tangent, value, out-tangent) per key:
    //   key 0: a₀ = (100,100,100) (unused by the interval), p₀ = (0, 1, 0), b₀ = (1, 0, 2)
    //   key 1: a₁ = (0, 3, −1), p₁ = (2, 1, 4), b₁ = (−100,−100,−100) (unused)
    // glTF appendix C: m₀ = td·b₀ = (2, 0, 4), m₁ = td·a₁ = (0, 6, −2) and
    //   v(s) = (2s³−3s²+1)p₀ + (s³−2s²+s)m₀ + (−2s³+3s²)p₁ + (s³−s²)m₁.
    // t = 1.5, s = 0.25: h00 = 2/64 − 3/16 + 1 = 0.84375, h10 = 1/64 − 2/16 + 1/4 = 0.140625,
    //   h01 = −2/64 + 3/16 = 0.15625, h11 = 1/64 − 1/16 = −0.046875:
    //   x = 0.140625·2 + 0.15625·2                      = 0.59375
    //   y = 0.84375·1 + 0.15625·1 − 0.046875·6          = 0.71875
    //   z = 0.140625·4 + 0.15625·4 + 0.046875·2         = 1.28125
    // t = 2, s = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = −0.125:
    //   x = 0.125·2 + 0.5·2 = 1.25, y = 0.5 + 0.5 − 0.125·6 = 0.25,
    //   z = 0.125·4 + 0.5·4 + 0.125·2 = 2.75
    // The same keys drive translation and scale.
    let values = [
        100.0, 100.0, 100.0, 0.0, 1.0, 0.0, 1.0, 0.0, 2.0, // key 0
        0.0, 3.0, -1.0, 2.0, 1.0, 4.0, -100.0, -100.0, -100.0, // key 1
    ];
    // Rotation: keys at t = 0 and t = 2 (td = 2), all (x, y, z, w):
    //   key 0: a₀ = 0, p₀ = (0, 0, 0, 1), b₀ = (0, 0, 0.5, 0); key 1: a₁ = 0, p₁ = (0, 0, 0.6, 0.8)
    //   (unit: 0.36 + 0.64 = 1), b₁ = 0.
    // t = 1, s = 0.5: m₀ = (0, 0, 1, 0), m₁ = 0:
    //   v = 0.5·(0,0,0,1) + 0.125·(0,0,1,0) + 0.5·(0,0,0.6,0.8) = (0, 0, 0.425, 0.9),
    //   |v| = √(0.180625 + 0.81) = 0.99530146, normalised (0, 0, 0.42700631, 0.90424865).
    let rotation_values = [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.5, 0.0, // key 0
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.6, 0.8, 0.0, 0.0, 0.0, 0.0, // key 1
    ];
    let clip = load_clip(
        "CUBICSPLINE",
        &[
            Keys {
                path: "translation",
                times: &[1.0, 3.0],
                values: &values,
            },
            Keys {
                path: "rotation",
                times: &[0.0, 2.0],
                values: &rotation_values,
            },
            Keys {
                path: "scale",
                times: &[1.0, 3.0],
                values: &values,
            },
        ],
    );
    assert_eq!(clip.duration, 3.0);
    assert_eq!(clip.channels[0].interpolation, Interpolation::CubicSpline);
    // Three values per key kept as stored.
    assert_eq!(clip.channels[0].values.len(), 6);
    // Every term above is a small dyadic rational, exact in f32; 2 ulps of the largest term
    // (m₁ = 6) allow another evaluation order.
    let tol = 2.0 * 6.0 * EPS;
    let cases = [
        (1.5, v3(0.59375, 0.71875, 1.28125)),
        (2.0, v3(1.25, 0.25, 2.75)),
        (1.0, v3(0.0, 1.0, 0.0)),
        (0.0, v3(0.0, 1.0, 0.0)),
        (3.0, v3(2.0, 1.0, 4.0)),
        (9.0, v3(2.0, 1.0, 4.0)),
    ];
    for channel in [&clip.channels[0], &clip.channels[2]] {
        for (t, want) in cases {
            let what = format!("{:?} at t = {t}", channel.property);
            assert_close(channel.sample(t), want, tol, &what);
        }
    }
    let rot = &clip.channels[1];
    // 0.6 and 0.8 are rounded to f32 (½ ulp), the key is renormalised on load (≈ 1 ulp), the
    // spline sum and normalisation a few more: 8 ulps of 1.
    let tol = 8.0 * EPS;
    assert_close(
        rot.sample(1.0),
        Vec4::new(0.0, 0.0, 0.427_006_3, 0.904_248_65),
        tol,
        "rotation at s = 0.5",
    );
    assert_close(
        rot.sample(2.0),
        Vec4::new(0.0, 0.0, 0.6, 0.8),
        tol,
        "rotation at t = 2",
    );
    assert_close(
        rot.sample(-0.5),
        Vec4::W,
        tol,
        "rotation before the first key",
    );
}

#[test]
fn clip_sample_writes_driven_properties_only() {
    let clip = load_clip(
        "LINEAR",
        &[Keys {
            path: "translation",
            times: &[0.0, 2.0],
            values: &[0.0, 0.0, 0.0, 4.0, 0.0, 0.0],
        }],
    );
    let rest = Transform {
        translation: Vec3::new(9.0, 9.0, 9.0),
        rotation: Quat::from_xyzw(0.0, 0.0, H, H),
        scale: Vec3::splat(2.0),
    };
    let mut pose = vec![rest; 2];
    // t = 1: s = 0.5, translation (2, 0, 0); rotation and scale stay the rest pose's; node 1 is
    // not animated. Past the duration, t clamps to 2: (4, 0, 0).
    clip.sample(1.0, &mut pose);
    assert_eq!(pose[0].translation, Vec3::new(2.0, 0.0, 0.0));
    assert_eq!(pose[0].rotation, rest.rotation);
    assert_eq!(pose[0].scale, rest.scale);
    assert_eq!(pose[1], rest);
    clip.sample(100.0, &mut pose);
    assert_eq!(pose[0].translation, Vec3::new(4.0, 0.0, 0.0));
    clip.sample(f32::NAN, &mut pose);
    assert_eq!(pose[0].translation, Vec3::ZERO);
    // A pose too short for the channel's node: the channel is skipped, no panic.
    clip.sample(1.0, &mut []);
    assert_eq!(clip.node_channels(0).count(), 1);
    assert_eq!(clip.node_channels(1).count(), 0);
    let clips = [clip];
    assert!(Clip::find(&clips, "Clip").is_some());
    assert!(Clip::find(&clips, "Walk").is_none());
}

#[test]
fn single_key_clip_has_zero_duration() {
    let clip = load_clip(
        "LINEAR",
        &[Keys {
            path: "scale",
            times: &[0.0],
            values: &[2.0, 3.0, 4.0],
        }],
    );
    // One key at t = 0: duration 0, the value everywhere.
    assert_eq!(clip.duration, 0.0);
    for t in [-1.0, 0.0, 5.0] {
        assert_eq!(clip.channels[0].sample(t), v3(2.0, 3.0, 4.0));
    }
}

#[test]
fn weights_channels_are_skipped_with_one_warning() {
    let mut b = Builder::new();
    let times = b.floats(&[0.0, 1.0], "SCALAR");
    let weights = b.floats(&[0.0, 1.0], "SCALAR");
    let moves = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "VEC3");
    let doc = b.document(
        json!([{"mesh": 0}]),
        json!([{
            "samplers": [{"input": times, "output": weights}, {"input": times, "output": moves}],
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "weights"}},
                {"sampler": 1, "target": {"node": 0, "path": "translation"}},
                {"sampler": 0, "target": {"node": 0, "path": "weights"}}
            ]
        }]),
    );
    let scene = load_ok(&doc);
    let clip = &scene.animations[0];
    // Unnamed: `animation 0`; only the translation channel is kept, and the default
    // interpolation is LINEAR.
    assert_eq!(clip.name, "animation 0");
    assert_eq!(clip.channels.len(), 1);
    assert_eq!(clip.channels[0].interpolation, Interpolation::Linear);
    assert_eq!(clip.duration, 1.0);
    assert_eq!(scene.warnings.len(), 1, "{:?}", scene.warnings);
    assert!(matches!(
        scene.warnings[0].kind(),
        WarningKind::MorphWeightChannelsSkipped { count: 2, .. }
    ));
    let w = scene.warnings[0].to_string();
    assert!(
        w.contains("weights")
            && w.contains("animation 'animation 0' channel 0")
            && w.contains("channel 2"),
        "{w}"
    );
    assert_eq!(scene.nodes.len(), 1);
    assert_eq!(scene.nodes[0].name, "node 0");
}

// ---------------------------------------------------------------------------------------------
// Hierarchy

/// A parent (node 0) with a child (node 1) that carries the mesh. The parent is TRS or the same
/// transform as a matrix.
fn chain_file(parent_as_matrix: bool) -> Value {
    let b = Builder::new();
    // Parent: t = (1, 2, 3), 90° about Z = (0, 0, √½, √½), uniform scale 2. As a column-major
    // matrix: 2·Rz(90°) has columns (0, 2, 0), (−2, 0, 0), (0, 0, 2).
    let parent = if parent_as_matrix {
        json!({"name": "hip", "children": [1], "matrix": [
            0.0, 2.0, 0.0, 0.0,
            -2.0, 0.0, 0.0, 0.0,
            0.0, 0.0, 2.0, 0.0,
            1.0, 2.0, 3.0, 1.0
        ]})
    } else {
        json!({"name": "hip", "children": [1], "translation": [1.0, 2.0, 3.0],
               "rotation": [0.0, 0.0, H, H], "scale": [2.0, 2.0, 2.0]})
    };
    // Child: t = (1, 0, 0), 90° about X = (√½, 0, 0, √½), scale (1, 3, 1).
    let child = json!({"name": "knee", "mesh": 0, "translation": [1.0, 0.0, 0.0],
                       "rotation": [H, 0.0, 0.0, H], "scale": [1.0, 3.0, 1.0]});
    let mut doc = b.document(json!([parent, child]), json!([]));
    doc.as_object_mut().expect("object").remove("animations");
    doc
}

#[test]
fn two_node_chain_world_matrices_by_hand() {
    // Parent P = T(1,2,3)·Rz(90°)·S(2): Rz(90°) sends x → y, y → −x, so its linear part has
    //   columns (0, 2, 0), (−2, 0, 0), (0, 0, 2), translation (1, 2, 3).
    // Child C = T(1,0,0)·Rx(90°)·S(1,3,1): Rx(90°) sends y → z, z → −y, so
    //   columns (1, 0, 0), 3·(0, 0, 1) = (0, 0, 3), (0, −1, 0), translation (1, 0, 0).
    // World(child) = P·C: linear columns P·(1,0,0) = (0, 2, 0), P·(0,0,3) = (0, 0, 6),
    //   P·(0,−1,0) = (2, 0, 0); translation P·(1,0,0) + (1,2,3) = (1, 4, 3).
    let parent_world = Mat4::from_cols(
        Vec4::new(0.0, 2.0, 0.0, 0.0),
        Vec4::new(-2.0, 0.0, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 2.0, 0.0),
        Vec4::new(1.0, 2.0, 3.0, 1.0),
    );
    let child_world = Mat4::from_cols(
        Vec4::new(0.0, 2.0, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 6.0, 0.0),
        Vec4::new(2.0, 0.0, 0.0, 0.0),
        Vec4::new(1.0, 4.0, 3.0, 1.0),
    );
    // Tolerance: √½ is rounded to f32, so 1 − 2·(√½)² and 2·(√½)² are off by about an ulp of 1;
    // times scales up to 3·2 = 6 and a product of two matrices (a few more roundings): 8 ulps
    // of 6.
    let tol = 8.0 * 6.0 * EPS;
    for as_matrix in [false, true] {
        let scene = load_ok(&chain_file(as_matrix));
        let what = if as_matrix {
            "matrix parent"
        } else {
            "TRS parent"
        };
        assert!(scene.warnings.is_empty(), "{what}: {:?}", scene.warnings);
        assert_eq!(scene.nodes.len(), 2);
        assert_eq!(scene.nodes[0].parent, None);
        assert_eq!(scene.nodes[1].parent, Some(0));
        // The matrix decomposes to the TRS above (within the same rounding).
        let local = scene.nodes[0].local;
        assert_close(
            local.translation.extend(0.0),
            v3(1.0, 2.0, 3.0),
            tol,
            &format!("{what} translation"),
        );
        assert_close(
            local.scale.extend(0.0),
            v3(2.0, 2.0, 2.0),
            tol,
            &format!("{what} scale"),
        );
        assert_close(
            Vec4::from(local.rotation),
            Vec4::new(0.0, 0.0, H, H),
            8.0 * EPS,
            &format!("{what} rotation"),
        );

        let skeleton = scene.skeleton();
        assert_eq!(skeleton.names, ["hip", "knee"]);
        assert_eq!(skeleton.parents, [None, Some(0)]);
        assert_eq!(skeleton.order, [0, 1]);
        assert_eq!(skeleton.find("knee"), Some(1));
        assert_eq!(skeleton.find("tail"), None);
        let world = skeleton.world_matrices(&skeleton.rest);
        assert_mat_close(world[0], parent_world, tol, &format!("{what} parent"));
        assert_mat_close(world[1], child_world, tol, &format!("{what} child"));
        // The loader's own world matrix for the mesh's node agrees.
        let instance = scene.meshes[0].instances[0];
        assert_eq!(instance.node, 1);
        assert_mat_close(
            instance.world,
            child_world,
            tol,
            &format!("{what} instance"),
        );
        // The allocation-free variant gives the same matrices.
        let mut again = vec![Mat4::ZERO; 7];
        skeleton.world_matrices_into(&skeleton.rest, &mut again);
        assert_eq!(again, world);
    }
}

#[test]
fn inconsistent_hierarchy_does_not_panic() {
    // Node 0 → parent 9 (out of range: a root); nodes 1 → 2 → 3 → 1 form a cycle; node 4 hangs
    // below it. Every node must appear once, after its (possibly reset) parent.
    let node = |parent: Option<usize>| mesh::Node {
        name: String::new(),
        parent,
        local: Transform::IDENTITY,
    };
    let scene = Scene {
        nodes: vec![
            node(Some(9)),
            node(Some(3)),
            node(Some(1)),
            node(Some(2)),
            node(Some(2)),
        ],
        ..Scene::default()
    };
    let skeleton = scene.skeleton();
    let mut sorted = skeleton.order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 1, 2, 3, 4]);
    assert_eq!(skeleton.parents[0], None);
    for (pos, &i) in skeleton.order.iter().enumerate() {
        if let Some(p) = skeleton.parents[i] {
            let parent_pos = skeleton.order.iter().position(|&x| x == p);
            assert!(
                parent_pos < Some(pos),
                "node {i} listed before its parent {p}"
            );
        }
    }
    // The lowest-index node of the cycle (1) became a root.
    assert_eq!(skeleton.parents[1], None);
    let world = skeleton.world_matrices(&skeleton.rest);
    assert!(world.iter().all(|m| *m == Mat4::IDENTITY));
}

// ---------------------------------------------------------------------------------------------
// Blending

fn trs(t: [f32; 3], q: Quat, s: [f32; 3]) -> Transform {
    Transform {
        translation: Vec3::from(t),
        rotation: q,
        scale: Vec3::from(s),
    }
}

#[test]
fn blend_two_layers_by_hand() {
    // Weights 1 and 3 normalise to 0.25 and 0.75.
    //   translation 0.25·(0,0,0) + 0.75·(4,8,−4) = (3, 6, −3)
    //   scale       0.25·(1,1,1) + 0.75·(3,1,1)  = (2.5, 1, 1)
    //   rotation    identity and 90° about Z, reference identity (both dots ≥ 0, no flips):
    //     0.25·(0,0,0,1) + 0.75·(0,0,√½,√½) = (0, 0, 0.53033009, 0.78033009),
    //     length 0.94348558 → (0, 0, 0.56209665, 0.82707155).
    let a = [trs([0.0; 3], Quat::IDENTITY, [1.0; 3])];
    let b = [trs(
        [4.0, 8.0, -4.0],
        Quat::from_xyzw(0.0, 0.0, H, H),
        [3.0, 1.0, 1.0],
    )];
    let reference = [Transform::IDENTITY];
    let mut out = [Transform::IDENTITY];
    blend_poses(&[(&a, 1.0), (&b, 3.0)], &reference, &mut out);
    // Magnitudes ≤ 8, a few roundings (normalising weights, two products, a sum): 4 ulps of 8.
    let tol = 4.0 * 8.0 * EPS;
    assert_close(
        out[0].translation.extend(0.0),
        v3(3.0, 6.0, -3.0),
        tol,
        "translation",
    );
    assert_close(out[0].scale.extend(0.0), v3(2.5, 1.0, 1.0), tol, "scale");
    // Unit quantities, the sum and its normalisation: 8 ulps of 1.
    assert_close(
        Vec4::from(out[0].rotation),
        Vec4::new(0.0, 0.0, 0.562_096_65, 0.827_071_55),
        8.0 * EPS,
        "rotation",
    );

    // A negative weight counts as 0: layer b alone.
    blend_poses(&[(&a, -2.0), (&b, 0.5)], &reference, &mut out);
    assert_close(
        out[0].translation.extend(0.0),
        v3(4.0, 8.0, -4.0),
        tol,
        "a clamped",
    );
    // No positive weight (or no layers at all): a copy of the reference.
    let reference = [trs([7.0; 3], Quat::from_xyzw(1.0, 0.0, 0.0, 0.0), [5.0; 3])];
    blend_poses(&[(&a, 0.0), (&b, -1.0)], &reference, &mut out);
    assert_eq!(out, reference);
    blend_poses(&[], &reference, &mut out);
    assert_eq!(out, reference);
}

#[test]
fn blend_is_independent_of_layer_order() {
    common::for_seeds("blend_is_independent_of_layer_order", 50, |_, rng| {
        use rand::Rng;
        const NODES: usize = 6;
        let pose = |rng: &mut rand_pcg::Pcg64Mcg| -> Vec<Transform> {
            (0..NODES)
                .map(|_| Transform {
                    translation: common::unit_vec3(rng) * rng.random_range(0.0..1.0f32),
                    rotation: common::rotation(rng),
                    scale: Vec3::new(
                        rng.random_range(0.5..2.0),
                        rng.random_range(0.5..2.0),
                        rng.random_range(0.5..2.0),
                    ),
                })
                .collect()
        };
        let poses: Vec<Vec<Transform>> = (0..4).map(|_| pose(rng)).collect();
        let reference = pose(rng);
        let weights: Vec<f32> = (0..4).map(|_| rng.random_range(0.0..1.0)).collect();
        let layers: Vec<(&[Transform], f32)> = poses
            .iter()
            .zip(&weights)
            .map(|(p, &w)| (p.as_slice(), w))
            .collect();
        let mut first = vec![Transform::IDENTITY; NODES];
        blend_poses(&layers, &reference, &mut first);
        // Every permutation of the four layers (24) gives the same pose. Only the summation
        // order changes: four terms, each rounded to ½ ulp of its magnitude (≤ 1 for
        // translations and rotations, ≤ 2 for scales), so two orders differ by at most about
        // 4 ulps of 2 = 9.5e-7 < 1e-6.
        let mut perm = [0, 1, 2, 3];
        for _ in 0..24 {
            next_permutation(&mut perm);
            let shuffled: Vec<(&[Transform], f32)> = perm.iter().map(|&k| layers[k]).collect();
            let mut out = vec![Transform::IDENTITY; NODES];
            blend_poses(&shuffled, &reference, &mut out);
            for (a, b) in first.iter().zip(&out) {
                assert_close(
                    a.translation.extend(0.0),
                    b.translation.extend(0.0),
                    1e-6,
                    "translation",
                );
                assert_close(a.scale.extend(0.0), b.scale.extend(0.0), 1e-6, "scale");
                assert_close(
                    Vec4::from(a.rotation),
                    Vec4::from(b.rotation),
                    1e-6,
                    "rotation",
                );
                assert!((a.rotation.length() - 1.0).abs() < 4.0 * EPS);
            }
        }
    });
}

/// Next lexicographic permutation (wrapping to the first).
fn next_permutation(p: &mut [usize]) {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        p.reverse();
        return;
    };
    let j = (i..p.len())
        .rev()
        .find(|&j| p[j] > p[i - 1])
        .expect("p[i] > p[i - 1]");
    p.swap(i - 1, j);
    p[i..].reverse();
}

#[test]
fn blend_of_antipodal_quaternions_is_that_rotation() {
    // q = 60° about (0, 1, 0): (0, sin 30°, 0, cos 30°) = (0, 0.5, 0, 0.8660254). Layers q and
    // −q (the same rotation) with weights 0.3 and 0.7, reference identity: q · r = 0.866 > 0
    // keeps q, (−q) · r < 0 flips −q to q, so the sum is 0.3q + 0.7q = q. Either layer order.
    let q = Quat::from_xyzw(0.0, 0.5, 0.0, 0.866_025_4);
    let a = [trs([0.0; 3], q, [1.0; 3])];
    let b = [trs([0.0; 3], -q, [1.0; 3])];
    let reference = [Transform::IDENTITY];
    for layers in [
        [(&a[..], 0.3), (&b[..], 0.7)],
        [(&b[..], 0.7), (&a[..], 0.3)],
    ] {
        let mut out = [Transform::IDENTITY];
        blend_poses(&layers, &reference, &mut out);
        // Sum and normalisation of unit quantities: 4 ulps of 1.
        assert_close(
            Vec4::from(out[0].rotation),
            Vec4::from(q),
            4.0 * EPS,
            "q and −q",
        );
    }
}

#[test]
fn blend_of_layers_half_a_turn_apart_is_finite() {
    // Identity and 180° about Z = (0, 0, 1, 0), equal weights, reference identity: dots 1 and
    // 0 (no flip), sum 0.5·(0,0,0,1) + 0.5·(0,0,1,0) = (0, 0, 0.5, 0.5) → (0, 0, √½, √½), 90°
    // about Z (nlerp's midpoint).
    let half_turn = Quat::from_xyzw(0.0, 0.0, 1.0, 0.0);
    let a = [trs([0.0; 3], Quat::IDENTITY, [1.0; 3])];
    let b = [trs([0.0; 3], half_turn, [1.0; 3])];
    let reference = [Transform::IDENTITY];
    let mut out = [Transform::IDENTITY];
    blend_poses(&[(&a, 1.0), (&b, 1.0)], &reference, &mut out);
    assert_close(
        Vec4::from(out[0].rotation),
        Vec4::new(0.0, 0.0, H, H),
        4.0 * EPS,
        "identity and half turn",
    );

    // The true singularity: 180° about Z and its negation, both at 180° from the reference
    // (dot 0, so neither flips): the terms cancel exactly. The fallback picks one layer's
    // rotation (the same one in either order), never NaN.
    let c = [trs([0.0; 3], -half_turn, [1.0; 3])];
    let mut results = Vec::new();
    for layers in [
        [(&b[..], 0.5), (&c[..], 0.5)],
        [(&c[..], 0.5), (&b[..], 0.5)],
    ] {
        blend_poses(&layers, &reference, &mut out);
        let r = out[0].rotation;
        assert!(r.is_finite(), "{r}");
        // ±(0, 0, 1, 0): the same rotation as both layers.
        assert!((r.dot(half_turn).abs() - 1.0).abs() <= 2.0 * EPS, "{r}");
        results.push(r);
    }
    assert_eq!(results[0], results[1]);
    // Unequal weights: the heavier layer's rotation.
    blend_poses(&[(&b, 0.5), (&c, 0.5 + 1e-7)], &reference, &mut out);
    assert!((out[0].rotation.dot(half_turn).abs() - 1.0).abs() <= 2.0 * EPS);
}

// ---------------------------------------------------------------------------------------------
// The Fox

#[test]
fn fox_clips_and_rest_pose() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let scene = mesh::load(dir.join("gltf/Fox.glb")).unwrap_or_else(|e| panic!("{e}"));
    // Durations: the largest sampler input `max` in each animation, read from the file's JSON
    // with Python: 3.4166667, 0.7083333, 1.1583333 s. Given here to 4 decimals, so they must
    // match within half the last digit (5e-5).
    let expected = [("Survey", 3.4167), ("Walk", 0.7083), ("Run", 1.1583)];
    let names: Vec<&str> = scene.animations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    for (clip, (name, duration)) in scene.animations.iter().zip(expected) {
        assert!(
            (clip.duration - duration).abs() <= 5e-5,
            "{name}: duration {} s, expected {duration} s",
            clip.duration
        );
        // The file animates translations and rotations only, LINEAR, one channel per node
        // property (21 channels each).
        assert_eq!(clip.channels.len(), 21, "{name}");
        assert!(clip
            .channels
            .iter()
            .all(|c| c.interpolation == Interpolation::Linear && c.node < scene.nodes.len()));
        assert_eq!(Clip::find(&scene.animations, name), Some(clip));
    }
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);

    let skeleton = scene.skeleton();
    assert_eq!(skeleton.names.len(), 26);
    assert_eq!(skeleton.find("b_Hip_01"), Some(4));
    let world = skeleton.world_matrices(&skeleton.rest);
    // Rest pose == the loader's Skin::joint_world. Both multiply the same parent chains; they
    // differ only in turning each node's TRS into a matrix (the gltf crate's formula vs
    // glam's): at most ~2 ulps of 1 in each rotation entry. Down a chain of D nodes the
    // rotation parts drift by D·2 ulps, which moves translations by that much relative to
    // their size, bounded by the largest element (67, a translation). The Fox's chains are at
    // most 9 nodes long (depth 8, read with Python): 9·2 ulps of the largest element, 1.4e-4.
    // (Measured: 3.8e-6, half an ulp of 67.)
    let skin = &scene.skins[0];
    assert_eq!(skin.joints.len(), 24);
    let largest = skin
        .joint_world
        .iter()
        .flat_map(|m| m.to_cols_array())
        .fold(0.0f32, |a, x| a.max(x.abs()));
    let tol = 9.0 * 2.0 * largest * EPS;
    for (j, (&node, &want)) in skin.joints.iter().zip(&skin.joint_world).enumerate() {
        assert_mat_close(
            world[node],
            want,
            tol,
            &format!("joint {j} ({})", skeleton.names[node]),
        );
    }
    for instance in &scene.meshes[0].instances {
        assert_mat_close(world[instance.node], instance.world, tol, "fox instance");
    }

    // Every clip samples to finite, unit-rotation poses across its range.
    let mut pose = skeleton.rest.clone();
    let mut matrices = Vec::new();
    for clip in &scene.animations {
        for step in 0..=20 {
            let t = clip.duration * step as f32 / 20.0;
            clip.sample(t, &mut pose);
            for (i, p) in pose.iter().enumerate() {
                assert!(
                    p.translation.is_finite() && (p.rotation.length() - 1.0).abs() < 1e-5,
                    "{} node {i} at t = {t}: {p:?}",
                    clip.name
                );
            }
            skeleton.world_matrices_into(&pose, &mut matrices);
            assert!(matrices.iter().all(|m| m.is_finite()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed animations

/// A file with animation "Walk": channel 0 a valid translation, channel 1 from `times`,
/// `values` (VEC3 for translation/scale, VEC4 for rotation), `path` and `interpolation`. `edit`
/// may change the JSON (accessor of channel 1: input 3, output 4).
fn walk_file(
    times: &[f32],
    values: &[f32],
    path: &str,
    interpolation: &str,
    edit: impl FnOnce(&mut Value),
) -> Value {
    let mut b = Builder::new();
    let good_times = b.floats(&[0.0, 1.0], "SCALAR");
    let good_values = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "VEC3");
    let input = b.floats(times, "SCALAR");
    let ty = if path == "rotation" { "VEC4" } else { "VEC3" };
    let output = b.floats(values, ty);
    assert_eq!((input, output), (3, 4));
    let mut doc = b.document(
        json!([{"mesh": 0}]),
        json!([{
            "name": "Walk",
            "samplers": [
                {"input": good_times, "output": good_values},
                {"input": input, "output": output, "interpolation": interpolation}
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 0, "path": path}}
            ]
        }]),
    );
    edit(&mut doc);
    doc
}

/// Loads `doc`, expecting an error that names the file, `place` and every one of `problem`.
#[track_caller]
fn expect_error(doc: &Value, place: &str, problem: &[&str]) {
    let result = std::panic::catch_unwind(|| load(doc));
    let Ok(result) = result else {
        panic!("loading panicked (expected an error naming {place})");
    };
    let err = match result {
        Ok(_) => panic!("loaded; expected an error naming {place} and {problem:?}"),
        Err(e) => e.to_string(),
    };
    assert!(err.starts_with("anim.gltf: "), "{err}");
    assert!(err.contains(place), "'{err}' does not name {place}");
    for p in problem {
        assert!(err.contains(p), "'{err}' does not say {p}");
    }
}

const WALK1: &str = "animation 'Walk' channel 1";
const XYZ2: [f32; 6] = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
const XYZ3: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0];

/// One malformed channel 1 of [`walk_file`] a line: its times, values, path, interpolation and
/// JSON edit, and what the error (which names [`WALK1`]) must say.
type Walk<'a> = (
    &'a [f32],
    &'a [f32],
    &'a str,
    &'a str,
    fn(&mut Value),
    &'a [&'a str],
);

/// Channel 1 of [`walk_file`]'s JSON.
fn channel1(doc: &mut Value) -> &mut Value {
    &mut doc["animations"][0]["channels"][1]
}

/// [`walk_file`]'s edit that changes nothing.
fn none(_: &mut Value) {}

/// Loads each case's [`walk_file`], expecting its error ([`expect_error`]).
fn expect_walk_errors(cases: &[Walk]) {
    for &(times, values, path, interpolation, edit, problem) in cases {
        expect_error(
            &walk_file(times, values, path, interpolation, edit),
            WALK1,
            problem,
        );
    }
}

#[test]
fn malformed_key_times_are_errors() {
    #[rustfmt::skip]
    let cases: &[Walk] = &[
        // Equal consecutive times.
        (&[0.0, 1.0, 1.0], &XYZ3, "translation", "LINEAR", none, &["key 2 time 1", "strictly increase"]),
        // Decreasing.
        (&[0.0, 2.0, 1.0], &XYZ3, "scale", "STEP", none, &["key 2 time 1 is not after key 1 time 2"]),
        // Negative start.
        (&[-0.5, 1.0], &XYZ2, "translation", "LINEAR", none, &["first key time -0.5 is negative"]),
        // NaN and infinite times.
        (&[0.0, f32::NAN], &XYZ2, "translation", "LINEAR", none, &["time of key 1 is NaN"]),
        (&[f32::INFINITY, 1.0], &XYZ2, "translation", "LINEAR", none, &["time of key 0 is inf"]),
        // No keys at all.
        (&[0.0], &XYZ2[..3], "translation", "LINEAR", |d| d["accessors"][3]["count"] = json!(0), &["input accessor 3", "count is 0"]),
    ];
    expect_walk_errors(cases);
}

#[test]
fn malformed_key_values_are_errors() {
    // A CUBICSPLINE tangent: key 0's out-tangent is the third VEC3.
    let mut tangents = [0.0f32; 18];
    tangents[8] = f32::NAN;
    #[rustfmt::skip]
    let cases: &[Walk] = &[
        (&[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, f32::NAN, 1.0], "translation", "LINEAR", none, &["value of key 1 is NaN"]),
        (&[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, f32::NEG_INFINITY], "rotation", "LINEAR", none, &["value of key 1 is -inf"]),
        (&[0.0, 1.0], &tangents, "translation", "CUBICSPLINE", none, &["out-tangent of key 0 is NaN"]),
        // A zero rotation cannot be normalised.
        (&[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], "rotation", "LINEAR", none, &["rotation of key 1 has zero length"]),
    ];
    expect_walk_errors(cases);
}

#[test]
fn malformed_counts_and_targets_are_errors() {
    #[rustfmt::skip]
    let cases: &[Walk] = &[
        // LINEAR: one value per key; three keys, two values.
        (&[0.0, 1.0, 2.0], &XYZ2, "translation", "LINEAR", none, &["2 output values for 3 key times", "LINEAR needs 3"]),
        // CUBICSPLINE: three per key.
        (&[0.0, 1.0], &XYZ2, "scale", "CUBICSPLINE", none, &["2 output values for 2 key times", "CUBICSPLINE needs 6"]),
        // Target node out of range (the gltf crate would panic reading it).
        (&[0.0, 1.0], &XYZ2, "translation", "LINEAR", |d| channel1(d)["target"]["node"] = json!(99), &["target node 99 does not exist (1 nodes)"]),
        // An unknown path (the gltf crate would panic reading it).
        (&[0.0, 1.0], &XYZ2, "translation", "LINEAR", |d| channel1(d)["target"]["path"] = json!("position"), &["target path"]),
        // Times as VEC3, rotation as VEC3, output past the end of its buffer view.
        (&[0.0, 1.0, 2.0], &XYZ2, "translation", "LINEAR", |d| { d["accessors"][3]["type"] = json!("VEC3"); d["accessors"][3]["count"] = json!(1); },
            &["input accessor 3 is VEC3 FLOAT, expected SCALAR float"]),
        (&[0.0, 1.0], &XYZ2, "rotation", "LINEAR", |d| { d["accessors"][4]["type"] = json!("VEC3"); d["accessors"][4]["count"] = json!(2); },
            &["output accessor 4 is VEC3 FLOAT, expected VEC4"]),
        (&[0.0, 1.0], &XYZ2, "translation", "LINEAR", |d| { d["accessors"][4]["count"] = json!(200); d["accessors"][3]["count"] = json!(200); },
            &["accessor 3 is out of bounds"]),
        // Integer rotations must be normalized (5122: SHORT).
        (&[0.0, 1.0], &[0.0; 4], "rotation", "LINEAR", |d| { d["accessors"][4]["componentType"] = json!(5122); d["accessors"][4]["count"] = json!(2); },
            &["not normalized"]),
        // A sampler, input accessor or interpolation that does not exist.
        (&[0.0, 1.0], &XYZ2, "translation", "LINEAR", |d| channel1(d)["sampler"] = json!(5), &["sampler 5 does not exist (2 samplers)"]),
        (&[0.0, 1.0], &XYZ2, "translation", "LINEAR", |d| d["animations"][0]["samplers"][1]["input"] = json!(50),
            &["sampler 1 input accessor 50 does not exist (5 accessors)"]),
        (&[0.0, 1.0], &XYZ2, "translation", "BEZIER", none, &["interpolation is not LINEAR, STEP or CUBICSPLINE"]),
    ];
    expect_walk_errors(cases);
}

#[test]
fn normalized_short_rotations_are_read_as_unit_quaternions() {
    // SHORT normalized: 32767 → 1.0. Keys identity and 90° about Z given as (0, 0, 23170,
    // 23170) (23170/32767 = 0.70711386, so the key is renormalised on load to (0, 0, √½, √½)).
    let mut b = Builder::new();
    let times = b.floats(&[0.0, 1.0], "SCALAR");
    let shorts: [i16; 8] = [0, 0, 0, 32767, 0, 0, 23170, 23170];
    let short4 = gltf::AccessorLayout {
        component: gltf::ComponentType::Short,
        kind: gltf::AccessorType::Vec4,
        normalized: false,
    };
    let out = b.accessor(bytemuck::cast_slice(&shorts), short4);
    let mut doc = b.document(
        json!([{"mesh": 0}]),
        json!([{"samplers": [{"input": times, "output": out}],
                "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}]),
    );
    doc["accessors"][out]["normalized"] = json!(true);
    let scene = load_ok(&doc);
    let rot = &scene.animations[0].channels[0];
    // Key values: exact identity, and (0, 0, √½, √½) to normalisation rounding (2 ulps).
    assert_close(rot.sample(0.0), Vec4::W, 2.0 * EPS, "key 0");
    assert_close(
        rot.sample(1.0),
        Vec4::new(0.0, 0.0, H, H),
        2.0 * EPS,
        "key 1",
    );
}

#[test]
fn matrix_nodes_that_trs_cannot_reproduce_get_warnings() {
    let b = Builder::new();
    // Node 0: a shear (x' = x + y), column-major. Node 1: scale 0 along x (a collapsed axis),
    // otherwise identity, with translation (5, 0, 0).
    let doc = b.document(
        json!([
            {"mesh": 0, "matrix": [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0,
                                   0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]},
            {"matrix": [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
                        0.0, 0.0, 1.0, 0.0, 5.0, 0.0, 0.0, 1.0]}
        ]),
        json!([]),
    );
    let scene = load_ok(&doc);
    assert_eq!(scene.warnings.len(), 2, "{:?}", scene.warnings);
    let (w0, w1) = (&scene.warnings[0], &scene.warnings[1]);
    assert_eq!(
        (w0.place(), w0.kind()),
        ("node 0", &WarningKind::MatrixNotTrs)
    );
    assert_eq!(
        (w1.place(), w1.kind()),
        ("node 1", &WarningKind::MatrixWithZeroAxis)
    );
    assert!(w0.to_string().starts_with("node 0:") && w0.to_string().contains("shear"));
    assert!(w1.to_string().starts_with("node 1:") && w1.to_string().contains("zero-length"));
    // The collapsed node keeps what is known: translation (5, 0, 0), scale (0, 1, 1), and an
    // identity rotation — finite, so its pose reproduces the matrix exactly here.
    let local = scene.nodes[1].local;
    assert_eq!(local.translation, Vec3::new(5.0, 0.0, 0.0));
    assert_eq!(local.scale, Vec3::new(0.0, 1.0, 1.0));
    assert_eq!(local.rotation, Quat::IDENTITY);
    assert!(scene.nodes.iter().all(|n| n.local.rotation.is_finite()));
}

/// The skinning rig of the Fox: one skinned mesh, and its bones for a pose are the skin
/// matrices `placement · world · inverse_bind` of that pose as quaternion bones.
#[test]
fn fox_rig_bones_are_the_skin_matrices() {
    use qtangent::skin::{bones_from_matrices, skin_matrices, Rig, SkinMethod};
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let scene = mesh::load(dir.join("gltf/Fox.glb")).unwrap_or_else(|e| panic!("{e}"));
    let rig = Rig::from_scene(&scene).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rig.meshes().len(), 1, "the Fox has one skinned primitive");
    assert_eq!(rig.objects().collect::<Vec<_>>(), [0]);
    let skin = &scene.skins[rig.meshes()[0].skin];
    assert_eq!(rig.bone_count(), skin.joints.len());
    assert!(rig.warnings.is_empty(), "{:?}", rig.warnings);
    let skeleton = rig.skeleton();
    let walk = scene.animations.iter().find(|c| c.name == "Walk").unwrap();
    let mut local = skeleton.rest.clone();
    walk.sample(0.3, &mut local);
    let placement = Mat4::from_translation(Vec3::new(5.0, 0.0, -2.0));
    let got = rig
        .bones(&local, placement)
        .unwrap_or_else(|e| panic!("{e}"));
    let matrices = skin_matrices(skin, &skeleton.world_matrices(&local), placement).unwrap();
    assert_eq!(got, bones_from_matrices(&matrices).unwrap());
    // Too short a pose is an error, not a panic.
    let e = rig.bones(&local[..1], placement).unwrap_err();
    assert!(e.to_string().contains("local transforms"), "{e}");
    // The skinning methods parse by name.
    assert_eq!("dqs".parse::<SkinMethod>(), Ok(SkinMethod::DualQuaternion));
    let e = "slerp".parse::<SkinMethod>().unwrap_err().to_string();
    assert!(e.contains("lbs, dqs"), "{e}");
}
