//! GPU batch skinning (`shaders/skin.wgsl`) checked by readback against the f64 CPU reference
//! (`qtangent::lab::skin_reference`): random poses and weights on random and procedural meshes and
//! on the Fox, 4- and 8-influence layouts, 1000+ instances in one dispatch, LBS = DQS with one
//! influence, the candy wrapper, handedness.
//!
//! These tests need a GPU adapter; Mesa's software Vulkan (lavapipe) is enough. Without one they
//! fail with a message saying how to install it.

use crate::common;

use glam::{Mat4, Quat, Vec3};
use qtangent::gpu::GpuContext;
use qtangent::gpu::{SkinBatch, SkinPipeline};
use qtangent::lab::skin_reference::{frame_angle_deg, reference, OUTPUT_BOUND_DEG};
use qtangent::skin::{Bone, Influences, SkinMethod, SkinVertices, SkinnedVertex};
use qtangent::QTangent;
use rand::Rng;

use crate::common::context;

// Position tolerance, relative to the size of the terms the kernel sums: max over influences of
// s·|p| + |t|. Each term sᵢR(qᵢ)p + tᵢ costs ~19ε in the matrix entries (see tests/unit/gpu/decode.rs,
// the same quat_to_mat3), ~3ε in the product and sum, and the weights wᵢ/Σw ~2ε; summing ≤ 8
// terms adds ≤ 8ε: ~32ε for LBS. DQS normalises (8ε), rotates (≈ 10ε) and rebuilds the
// translation from products of unit quaternions and |t| (≈ 12ε): ~30ε. 128ε leaves room for
// fused multiply-adds and a GPU's 2.5-ulp division; the issue asks for 1e-4 relative, far looser.
const POSITION_TOL: f64 = 128.0 * f32::EPSILON as f64;

// Frame tolerance: the packed output's own rounding (OUTPUT_BOUND_DEG, 0.0070°: snorm16
// round-to-nearest plus the w bias) plus 0.01° for f32 arithmetic (the polar refinement stops
// below 1e-6 rad = 0.00006°; quaternion products cost a few ε ≈ 1e-5°), as the issue allows.
const FRAME_TOL_DEG: f64 = OUTPUT_BOUND_DEG + 0.01;

/// A random rotation within `max_angle` (radians) of the identity.
fn small_rotation(rng: &mut impl Rng, max_angle: f32) -> Quat {
    Quat::from_axis_angle(common::unit_vec3(rng), rng.random_range(0.0..=max_angle))
}

/// A random pose: a common random base rotation turned by up to 60° per bone (so the bones of
/// a vertex are within 120° of each other, as neighbouring joints of a skeleton are), random
/// translations within ±5 and scales in [0.5, 2]. Each bone's quaternion is negated at random
/// (q and −q are the same bone), so blends meet both signs and DQS's antipodality handling
/// is exercised: without it, half the blends would take the long way round.
fn random_pose(rng: &mut impl Rng, joints: usize) -> Vec<Bone> {
    let base = common::rotation(rng);
    (0..joints)
        .map(|_| {
            let t = Vec3::new(
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
            );
            let q = base * small_rotation(rng, 60f32.to_radians());
            let q = if rng.random_bool(0.5) { -q } else { q };
            Bone::new(q, t, rng.random_range(0.5..2.0))
        })
        .collect()
}

/// `n` random vertices (positions in ±2, random frames, half of them mirrored) with 1 to
/// `max_influences` distinct random joints of `joints` and random weights.
fn random_mesh(
    rng: &mut impl Rng,
    label: &str,
    n: usize,
    joints: u16,
    max_influences: usize,
) -> SkinVertices {
    let mut positions = Vec::with_capacity(n);
    let mut frames = Vec::with_capacity(n);
    let sets = max_influences.div_ceil(4);
    let mut js = vec![vec![[0u16; 4]; n]; sets];
    let mut ws = vec![vec![[0f32; 4]; n]; sets];
    for v in 0..n {
        positions.push(Vec3::new(
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
        ));
        frames.push(QTangent {
            rotation: common::rotation(rng),
            reflected: rng.random_bool(0.5),
        });
        let k = rng.random_range(1..=max_influences);
        let mut chosen: Vec<u16> = Vec::with_capacity(k);
        while chosen.len() < k {
            let j = rng.random_range(0..joints);
            if !chosen.contains(&j) {
                chosen.push(j);
            }
        }
        for (slot, j) in chosen.into_iter().enumerate() {
            js[slot / 4][v][slot % 4] = j;
            ws[slot / 4][v][slot % 4] = rng.random_range(0.05..1.0);
        }
    }
    SkinVertices::new(label, &positions, &frames, &js, &ws, usize::from(joints))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The shared GPU context and a skinning pipeline on it.
fn skinning() -> (&'static GpuContext, SkinPipeline) {
    let ctx = context();
    (
        ctx,
        SkinPipeline::new(ctx).unwrap_or_else(|e| panic!("{e}")),
    )
}

/// A [`random_mesh`] and a [`random_pose`] of its `joints` joints.
fn random_case(
    rng: &mut impl Rng,
    label: &str,
    vertices: usize,
    joints: u16,
    max_influences: usize,
) -> (SkinVertices, Vec<Bone>) {
    let mesh = random_mesh(rng, label, vertices, joints, max_influences);
    (mesh, random_pose(rng, usize::from(joints)))
}

/// Runs `batch` with `bones` (poisoned output first) and reads it back.
fn run(ctx: &GpuContext, batch: &SkinBatch, bones: &[Bone]) -> Vec<SkinnedVertex> {
    batch
        .set_bones(ctx, bones)
        .unwrap_or_else(|e| panic!("{e}"));
    batch.buffers().poison(ctx);
    batch.run(ctx).unwrap_or_else(|e| panic!("{e}"));
    batch.read(ctx).unwrap_or_else(|e| panic!("{e}"))
}

/// Worst errors of a comparison, for the messages.
#[derive(Default, Debug)]
struct Worst {
    position_rel: f64,
    frame_deg: f64,
    vertices: usize,
}

/// Compares every output vertex of `batch` with the f64 reference; panics naming the first
/// vertex out of tolerance.
fn check(
    what: &str,
    batch: &SkinBatch,
    meshes: &[&SkinVertices],
    bones: &[Bone],
    got: &[SkinnedVertex],
) -> Worst {
    let mut worst = Worst::default();
    for (i, inst) in batch.buffers().instances().iter().enumerate() {
        let mesh = meshes[inst.mesh];
        let palette = &bones[inst.bones.start as usize..inst.bones.end as usize];
        for v in 0..mesh.len() {
            let out = &got[inst.output.start as usize + v];
            let inf = &mesh.influences[v];
            let r = reference(batch.method(), palette, mesh, v).unwrap_or_else(|| {
                panic!(
                    "{what}: instance {i} vertex {v}: the reference has no rotation for this blend"
                )
            });
            // Size of the summed terms (see POSITION_TOL).
            let size = inf
                .joints
                .iter()
                .zip(inf.weights)
                .filter(|(_, w)| *w > 0)
                .map(|(&j, _)| {
                    let b = &palette[usize::from(j)];
                    f64::from(b.scale() * mesh.positions[v].length() + b.translation().length())
                })
                .fold(0.0, f64::max);
            let p = glam::DVec3::from_array(out.position.map(f64::from));
            let rel = (p - r.position).length() / size;
            let f = out.frame();
            let angle = frame_angle_deg(f.rotation.as_dquat(), r.frame);
            assert!(
                rel <= POSITION_TOL,
                "{what} ({}): instance {i} vertex {v}: position {p} vs reference {} ({rel:e} relative to {size}; tolerance {POSITION_TOL:e})",
                batch.method().name(),
                r.position
            );
            assert!(
                angle <= FRAME_TOL_DEG,
                "{what} ({}): instance {i} vertex {v}: frame off by {angle}° (tolerance {FRAME_TOL_DEG}°); influences {inf:?}",
                batch.method().name()
            );
            assert_eq!(
                f.reflected,
                mesh.qtangent(v).reflected,
                "{what} ({}): instance {i} vertex {v}: the handedness changed",
                batch.method().name()
            );
            worst.position_rel = worst.position_rel.max(rel);
            worst.frame_deg = worst.frame_deg.max(angle);
            worst.vertices += 1;
        }
    }
    assert_eq!(
        worst.vertices,
        got.len(),
        "{what}: every output vertex belongs to an instance"
    );
    worst
}

/// `meshes` skinned on the GPU by `method`, one instance per entry of `instances` (a mesh
/// index) posed by `bones` ([`run`]), and compared with the f64 reference ([`check`], `what`
/// naming the case in every message); gives the batch, for its layout, and the worst errors,
/// printed.
fn skin_and_check(
    ctx: &GpuContext,
    pipeline: &SkinPipeline,
    meshes: &[&SkinVertices],
    instances: &[usize],
    bones: &[Bone],
    method: SkinMethod,
    what: &str,
) -> (SkinBatch, Worst) {
    let batch = pipeline
        .batch(ctx, meshes, instances, method)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = run(ctx, &batch, bones);
    let w = check(what, &batch, meshes, bones, &got);
    eprintln!(
        "{what} {}: {} vertices, worst position {:.2e} relative, frame {:.5}°",
        method.name(),
        w.vertices,
        w.position_rel,
        w.frame_deg
    );
    (batch, w)
}

#[test]
fn random_poses_and_weights_match_the_f64_reference_with_4_and_8_influences() {
    let (ctx, pipeline) = skinning();
    common::for_seeds("random skinning", 4, |seed, rng| {
        for (max_influences, layout) in [(4, Influences::Four), (8, Influences::Eight)] {
            let (mesh, bones) = random_case(rng, "random mesh", 4000, 40, max_influences);
            let what = format!("seed {seed:#x}, {max_influences} influences");
            for method in SkinMethod::ALL {
                let (batch, _) =
                    skin_and_check(ctx, &pipeline, &[&mesh], &[0], &bones, method, &what);
                assert_eq!(batch.influences(), layout, "{what}");
            }
        }
    });
}

/// The kernel reads its input frames in every vertex format: each batch, skinned by both
/// methods, matches the f64 reference of the same decoded input (`SkinVertices::qtangent`) within
/// the same tolerances as snorm16x4 — the input format changes what the rest frame is, not how
/// the kernel skins it. The output is snorm16x4 whatever the input.
#[test]
fn every_input_format_is_skinned_like_the_reference() {
    let (ctx, pipeline) = skinning();
    common::for_seeds("skinning every format", 1, |seed, rng| {
        let (mesh, bones) = random_case(rng, "random mesh", 1000, 24, 4);
        for format in qtangent::Format::ALL {
            let mesh = mesh.clone().with_format(format);
            assert_eq!(mesh.format(), format);
            let what = format!("seed {seed:#x}, {format}");
            for method in SkinMethod::ALL {
                let (batch, _) =
                    skin_and_check(ctx, &pipeline, &[&mesh], &[0], &bones, method, &what);
                assert_eq!(batch.format(), format, "{what}");
            }
        }
        // One batch reads one format.
        let a = mesh.clone();
        let b = mesh.clone().with_format(qtangent::Format::Smallest3x4);
        let e = pipeline
            .batch(ctx, &[&a, &b], &[0, 1], SkinMethod::Linear)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("smallest3x4") && e.contains("snorm16x4"), "{e}");
    });
}

#[test]
fn every_vertex_with_eight_influences() {
    let (ctx, pipeline) = skinning();
    common::for_seeds("eight influences", 2, |seed, rng| {
        // 8 distinct joints on every vertex: JOINTS_0 and JOINTS_1 both full.
        let n = 2000;
        let joints: Vec<Vec<[u16; 4]>> = (0..2)
            .map(|set| {
                (0..n)
                    .map(|v| std::array::from_fn(|k| ((v + 4 * set + k) % 24) as u16))
                    .collect()
            })
            .collect();
        let weights: Vec<Vec<[f32; 4]>> = (0..2)
            .map(|_| {
                (0..n)
                    .map(|_| std::array::from_fn(|_| rng.random_range(0.05..1.0)))
                    .collect()
            })
            .collect();
        let positions: Vec<Vec3> = (0..n).map(|_| common::unit_vec3(rng) * 1.5).collect();
        let frames: Vec<QTangent> = (0..n)
            .map(|v| QTangent {
                rotation: common::rotation(rng),
                reflected: v % 3 == 0,
            })
            .collect();
        let mesh = SkinVertices::new("eight", &positions, &frames, &joints, &weights, 24)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            mesh.influences.iter().all(|i| i.count() == 8),
            "every vertex keeps its 8 influences"
        );
        let bones = random_pose(rng, 24);
        let what = format!("seed {seed:#x}, 8 influences");
        for method in SkinMethod::ALL {
            let (batch, _) = skin_and_check(ctx, &pipeline, &[&mesh], &[0], &bones, method, &what);
            assert_eq!(batch.influences(), Influences::Eight, "{what}");
        }
    });
}

#[test]
fn a_batch_of_1024_instances_of_two_meshes_in_one_dispatch() {
    let (ctx, pipeline) = skinning();
    common::for_seeds("1024 instances", 1, |seed, rng| {
        let a = random_mesh(rng, "mesh a", 300, 16, 4);
        let b = random_mesh(rng, "mesh b", 173, 30, 8);
        let instances: Vec<usize> = (0..1024).map(|i| usize::from(i % 3 == 0)).collect();
        let palettes: Vec<Bone> = instances
            .iter()
            .flat_map(|&m| random_pose(rng, if m == 0 { 16 } else { 30 }))
            .collect();
        let what = format!("seed {seed:#x}, 1024 instances");
        for method in SkinMethod::ALL {
            let meshes = [&a, &b];
            let (batch, _) = skin_and_check(
                ctx, &pipeline, &meshes, &instances, &palettes, method, &what,
            );
            assert_eq!(batch.buffers().instances().len(), 1024, "{what}");
        }
    });
}

#[test]
fn one_influence_makes_lbs_and_dqs_the_same_rigid_transform() {
    let (ctx, pipeline) = skinning();
    common::for_seeds("one influence", 3, |seed, rng| {
        let (mesh, bones) = random_case(rng, "rigid", 3000, 12, 1);
        let outputs: Vec<Vec<SkinnedVertex>> = SkinMethod::ALL
            .iter()
            .map(|&m| {
                let batch = pipeline
                    .batch(ctx, &[&mesh], &[0], m)
                    .unwrap_or_else(|e| panic!("{e}"));
                run(ctx, &batch, &bones)
            })
            .collect();
        for v in 0..mesh.len() {
            // The closed form of one bone, written out here: p' = s·R·p + t, q' = R·q.
            let b = &bones[usize::from(mesh.influences[v].joints[0])];
            let p = mesh.positions[v].as_dvec3();
            let r = b.rotation().as_dquat().normalize();
            let expected = r * (p * f64::from(b.scale())) + b.translation().as_dvec3();
            let q = mesh.qtangent(v);
            let frame = r * q.rotation.as_dquat().normalize();
            let size = f64::from(b.scale()) * p.length() + b.translation().as_dvec3().length();
            for (m, out) in SkinMethod::ALL.iter().zip(&outputs) {
                let got = glam::DVec3::from_array(out[v].position.map(f64::from));
                assert!(
                    (got - expected).length() <= POSITION_TOL * size,
                    "seed {seed:#x} vertex {v} {}: {got} vs s·R·p + t = {expected}",
                    m.name()
                );
                let f = out[v].frame();
                assert!(
                    frame_angle_deg(f.rotation.as_dquat(), frame) <= FRAME_TOL_DEG,
                    "seed {seed:#x} vertex {v} {}",
                    m.name()
                );
                assert_eq!(f.reflected, q.reflected);
            }
            // And the two methods agree with each other to the sum of their tolerances.
            let (l, d) = (outputs[0][v], outputs[1][v]);
            let dp =
                (glam::Vec3::from_array(l.position) - glam::Vec3::from_array(d.position)).length();
            assert!(
                f64::from(dp) <= 2.0 * POSITION_TOL * size,
                "seed {seed:#x} vertex {v}: LBS and DQS differ by {dp}"
            );
            assert!(
                frame_angle_deg(l.frame().rotation.as_dquat(), d.frame().rotation.as_dquat())
                    <= 2.0 * FRAME_TOL_DEG
            );
        }
    });
}

/// The candy wrapper: a cylinder of radius 1 along y, its two joints at the ends, the top one
/// twisted by 170° about the axis. Every bone is a rotation about y, so DQS keeps every ring at
/// radius 1 (a blend of coaxial rotations is a rotation); LBS's ring at weight f has radius
/// |(1 − f) + f·e^{iθ}| = √((1−f)² + f² + 2f(1−f)cos θ) (cos 85° = 0.087 in the middle).
#[test]
fn dual_quaternions_keep_the_volume_of_a_twisted_cylinder_where_lbs_collapses() {
    let (ctx, pipeline) = skinning();
    let (radius, length, segments, rings) = (1.0f32, 4.0f32, 48u32, 32u32);
    let prim = qtangent::lab::shapes::skinned_cylinder(radius, length, segments, rings, 2);
    let prepared = prim.prepare().unwrap_or_else(|e| panic!("{e}"));
    let mesh = SkinVertices::from_prepared(&prepared, 2).unwrap_or_else(|e| panic!("{e}"));
    let theta = 170f32.to_radians();
    let ibm = qtangent::lab::shapes::skinned_cylinder_inverse_bind(length, 2);
    // Joint 1 at the top, twisted: skin matrix = world · inverse bind = T(y₁)·R·T(−y₁) = R.
    let matrices = [
        Mat4::IDENTITY * ibm[0],
        Mat4::from_translation(Vec3::Y * length) * Mat4::from_rotation_y(theta) * ibm[1],
    ];
    let bones = qtangent::skin::bones_from_matrices(&matrices).unwrap_or_else(|e| panic!("{e}"));
    let mut volumes = Vec::new();
    for method in SkinMethod::ALL {
        let batch = pipeline
            .batch(ctx, &[&mesh], &[0], method)
            .unwrap_or_else(|e| panic!("{e}"));
        let got = run(ctx, &batch, &bones);
        check("candy wrapper", &batch, &[&mesh], &bones, &got);
        let (mut volume, mut expected_volume, mut rest_volume, mut slack) =
            (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (v, inf) in mesh.influences.iter().enumerate() {
            // The weight of the top joint as packed (unorm8).
            let f = f64::from(
                inf.joints
                    .iter()
                    .zip(inf.weights)
                    .filter(|(j, _)| **j == 1)
                    .map(|(_, w)| w)
                    .sum::<u8>(),
            ) / 255.0;
            let p = Vec3::from_array(got[v].position);
            let r = f64::from(p.x.hypot(p.z));
            let c = f64::from(theta.cos());
            let expected = match method {
                SkinMethod::Linear => {
                    f64::from(radius) * ((1.0 - f).powi(2) + f * f + 2.0 * f * (1.0 - f) * c).sqrt()
                }
                SkinMethod::DualQuaternion => f64::from(radius),
            };
            // f32 rounding of positions of size ~4 (see POSITION_TOL).
            assert!(
                (r - expected).abs() <= POSITION_TOL * 8.0,
                "{}: vertex {v} (f = {f}) at radius {r}, expected {expected}",
                method.name()
            );
            // The normal stays radial: it turns with the surface. The radial direction itself
            // comes from the position, whose error (the bound above) turns it by up to
            // asin(error / r): 0.07° where LBS has squeezed the ring to r = 0.087. And the input
            // frame was packed by round-to-nearest snorm16 before skinning: that bound adds once
            // more.
            let n = got[v].frame().to_frame().normal;
            let radial = Vec3::new(p.x, 0.0, p.z).normalize();
            let angle = f64::from(n.angle_between(radial).to_degrees());
            let tol =
                FRAME_TOL_DEG + OUTPUT_BOUND_DEG + (POSITION_TOL * 8.0 / r).asin().to_degrees();
            assert!(
                angle <= tol,
                "{}: vertex {v}: normal {n} is {angle}° off radial {radial} (tolerance {tol}°)",
                method.name()
            );
            // Volume of the ring band by its mean radius² (the cylinder is open): π r² per row.
            // |r² − e²| ≤ (2e + δ)·δ with δ the radius bound above.
            let delta = POSITION_TOL * 8.0;
            volume += r * r;
            expected_volume += expected * expected;
            slack += (2.0 * expected + delta) * delta;
            rest_volume += f64::from(radius * radius);
        }
        assert!(
            (volume - expected_volume).abs() <= slack,
            "{}: volume {volume} against the closed form's {expected_volume} (± {slack})",
            method.name()
        );
        volumes.push((method, volume / rest_volume, expected_volume / rest_volume));
    }
    // The closed forms themselves: DQS keeps every ring (ratio 1), LBS's rings at f shrink by
    // |(1 − f) + f e^{iθ}|² < 1 for 0 < f < 1, so it keeps less.
    for (m, ratio, closed_form) in &volumes {
        eprintln!(
            "candy wrapper at 170°: {} keeps {:.1}% of the volume (closed form {:.1}%)",
            m.name(),
            ratio * 100.0,
            closed_form * 100.0
        );
    }
    assert_eq!(volumes[1].2, 1.0, "DQS's closed form keeps every ring");
    assert!(
        volumes[0].2 < 1.0,
        "LBS's closed form shrinks the middle rings"
    );
}

#[test]
fn bad_bones_and_batches_are_errors() {
    let (ctx, pipeline) = skinning();
    let mut rng = rand_pcg::Pcg64Mcg::new(7);
    let mesh = random_mesh(&mut rng, "mesh 'm' primitive 0", 10, 4, 4);
    let batch = pipeline
        .batch(ctx, &[&mesh], &[0, 0], SkinMethod::Linear)
        .unwrap_or_else(|e| panic!("{e}"));
    let e = batch
        .set_bones(ctx, &[Bone::IDENTITY; 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("bones") && e.contains("3, where 8"), "{e}");
    let mut bad = [Bone::IDENTITY; 8];
    bad[5].translation_scale[1] = f32::NAN;
    let e = batch.set_bones(ctx, &bad).unwrap_err().to_string();
    assert!(e.contains("bone 5"), "{e}");
    let mut mirrored = [Bone::IDENTITY; 8];
    mirrored[2].translation_scale[3] = -1.0;
    let e = batch.set_bones(ctx, &mirrored).unwrap_err().to_string();
    assert!(e.contains("bone 2") && e.contains("scale"), "{e}");
    assert!(pipeline
        .batch(ctx, &[&mesh], &[], SkinMethod::Linear)
        .is_err());
    let e = pipeline
        .batch(ctx, &[&mesh], &[1], SkinMethod::Linear)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("instance 0") && e.contains("index 1, but there are 1"),
        "{e}"
    );
    // Influences that name a joint outside the skin, and weights that are all zero.
    let p = [Vec3::ZERO];
    let f = [QTangent {
        rotation: Quat::IDENTITY,
        reflected: false,
    }];
    let e = SkinVertices::new(
        "mesh 'm' primitive 0",
        &p,
        &f,
        &[vec![[0, 9, 0, 0]]],
        &[vec![[0.5, 0.5, 0.0, 0.0]]],
        4,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("mesh 'm' primitive 0") && e.contains("vertex 0") && e.contains("joint index 9"),
        "{e}"
    );
    let e = SkinVertices::new("m", &p, &f, &[vec![[0, 1, 0, 0]]], &[vec![[0.0; 4]]], 4)
        .unwrap_err()
        .to_string();
    assert!(e.contains("every weight is zero"), "{e}");
    let e = SkinVertices::new(
        "m",
        &p,
        &f,
        &[vec![[0, 1, 0, 0]]],
        &[vec![[f32::NAN, 1.0, 0.0, 0.0]]],
        4,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("not finite"), "{e}");
    let e = Bone::from_mat4(Mat4::from_scale(Vec3::new(1.0, 2.0, 1.0)), 3)
        .unwrap_err()
        .to_string();
    assert!(e.contains("joint 3") && e.contains("non-uniform"), "{e}");
}

/// The Fox (1728 vertices, 24 joints, 4 influences): its bind pose, frames of its Walk and Run
/// clips and random poses of its skeleton, against the reference.
#[test]
fn the_fox_skinned_in_its_clips_matches_the_reference() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let path = dir.join("gltf/Fox.glb");
    let scene = qtangent::mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let skeleton = scene.skeleton();
    let (m, prim) = scene
        .primitives()
        .next()
        .unwrap_or_else(|| panic!("{}: no primitive", path.display()));
    let skin = &scene.skins[m.instances[0]
        .skin
        .unwrap_or_else(|| panic!("the Fox is skinned"))];
    let prepared = prim.prepare().unwrap_or_else(|e| panic!("{e}"));
    let mesh =
        SkinVertices::from_prepared(&prepared, skin.joints.len()).unwrap_or_else(|e| panic!("{e}"));
    let (ctx, pipeline) = skinning();
    let mut poses: Vec<(String, Vec<qtangent::anim::Transform>)> =
        vec![("bind pose".into(), skeleton.rest.clone())];
    for clip in &scene.animations {
        for t in [0.0, 0.37 * clip.duration, 0.81 * clip.duration] {
            let mut local = skeleton.rest.clone();
            clip.sample(t, &mut local);
            poses.push((format!("{} at {t:.3} s", clip.name), local));
        }
    }
    assert!(poses.len() >= 7, "the Fox has Survey, Walk and Run");
    common::for_seeds("fox random pose", 2, |_, rng| {
        let mut local = skeleton.rest.clone();
        for t in &mut local {
            t.rotation *= small_rotation(rng, 40f32.to_radians());
        }
        poses.push(("random pose".into(), local));
    });
    for method in SkinMethod::ALL {
        let batch = pipeline
            .batch(ctx, &[&mesh], &[0], method)
            .unwrap_or_else(|e| panic!("{e}"));
        for (what, local) in &poses {
            let world = skeleton.world_matrices(local);
            let placement = Mat4::from_translation(Vec3::new(30.0, 0.0, -12.0));
            let matrices = qtangent::skin::skin_matrices(skin, &world, placement)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let bones = qtangent::skin::bones_from_matrices(&matrices)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let got = run(ctx, &batch, &bones);
            let w = check(&format!("Fox, {what}"), &batch, &[&mesh], &bones, &got);
            eprintln!(
                "Fox {what} {}: worst {:.2e} / {:.5}°",
                method.name(),
                w.position_rel,
                w.frame_deg
            );
            if method == SkinMethod::Linear {
                // How far LBS's rotated frame is from "n by the cofactor, t by the matrix" (the
                // README quotes these): printed, not asserted — a property of the pose.
                let (mut n_max, mut t_max, mut sum) = (0.0f64, 0.0f64, 0.0f64);
                for v in 0..mesh.len() {
                    let inf = &mesh.influences[v];
                    if let Some((n, t)) = qtangent::lab::skin_reference::lbs_vector_frame_error(
                        &bones,
                        inf,
                        mesh.qtangent(v),
                    ) {
                        n_max = n_max.max(n);
                        t_max = t_max.max(t);
                        sum += n;
                    }
                }
                eprintln!(
                    "Fox {what}: LBS frame vs transformed vectors: normal mean {:.3}° max {n_max:.3}°, tangent max {t_max:.3}°",
                    sum / mesh.len() as f64
                );
            }
        }
    }
}
