//! The matrix-palette skinning baseline (`shaders/skin_matrix.wgsl`, the skinning benchmark's
//! reference point) checked by readback against an f64 evaluation on the same f32 inputs, for
//! small seeded batches of random meshes, instances and poses, with 4 and 8 influences.
//!
//! These tests need a GPU adapter; Mesa's software Vulkan (lavapipe) is enough.

use crate::common;

use glam::{DVec3, Vec3};
use qtangent::gpu::GpuError;
use qtangent::lab::skin_matrix::{self, MatrixSkinPipeline, MatrixSkinnedVertex, MatrixVertex};
use qtangent::lab::skin_reference::reference_lbs;
use qtangent::skin::{Bone, Influences, SkinVertices};
use qtangent::QTangent;
use rand::Rng;

use crate::common::context;

/// f32 unit roundoff.
const U: f64 = f32::EPSILON as f64 / 2.0;
/// One ulp of 1.0.
const EPS: f64 = f32::EPSILON as f64;

/// γₙ = n·u / (1 − n·u): the relative bound on n f32 roundings in a row (Higham, "Accuracy and
/// Stability of Numerical Algorithms", §3.1).
fn gamma(n: usize) -> f64 {
    n as f64 * U / (1.0 - n as f64 * U)
}

// How far the kernel may be from the f64 evaluation of the same f32 inputs.
//
// The kernel forms M = Σₖ wₖ Mₖ entry by entry (K products and K − 1 sums; the first addition
// is to zero, exact) and then M·x over 4 terms (4 products, 3 sums). WGSL rounds +, − and ×
// correctly and may fuse a·b + c (one rounding fewer), and any order of the sums obeys the same
// bound, so each component of M·x is within γ_{K+4} · Σⱼ Σₖ |wₖ Mₖᵢⱼ xⱼ| (`magnitude`) of the
// exact value: rigorous, no margin. The normal and tangent are then normalised: a perturbation
// Δ of v turns v/|v| by at most 2|Δ|/|v| per component, and WGSL's normalize (x / sqrt(x·x),
// sqrt inherited from 1/inverseSqrt: 2 + 2.5 ulp, division 2.5 ulp, the dot product ~1) adds at
// most 8 ulp of 1.0 per component — the allowance the decode test derives for the same call.
const NORMALIZE_TOL: f64 = 8.0 * EPS;

/// Per-component `Σⱼ Σₖ |wₖ Mₖᵢⱼ xⱼ|` for `x = (v, w)`: what the rounding bound scales with.
fn magnitude(
    palette: &[glam::Mat4],
    vertex: &MatrixVertex,
    influences: Influences,
    v: Vec3,
    w: f32,
) -> DVec3 {
    let x = v.extend(w).as_dvec4().abs();
    let mut out = DVec3::ZERO;
    for k in 0..influences.count() {
        if vertex.weights[k] == 0.0 {
            continue;
        }
        let m = palette[usize::from(vertex.joints[k]).min(palette.len() - 1)].as_dmat4();
        let abs = glam::DMat4::from_cols(
            m.x_axis.abs(),
            m.y_axis.abs(),
            m.z_axis.abs(),
            m.w_axis.abs(),
        );
        out += (abs * x).truncate() * f64::from(vertex.weights[k]).abs();
    }
    out
}

fn random_bones(rng: &mut impl Rng, count: usize) -> Vec<Bone> {
    (0..count)
        .map(|_| {
            Bone::new(
                common::rotation(rng),
                common::unit_vec3(rng) * rng.random_range(0.0..3.0f32),
                rng.random_range(0.5..2.0f32),
            )
        })
        .collect()
}

/// A mesh of `n` random vertices (positions in [−2, 2]³, random frames, a quarter mirrored),
/// each with 1 to `max_influences` random joints of `joint_count`; vertex 0 has exactly
/// `max_influences` distinct joints (when the palette holds that many), so the batch needs them.
fn random_mesh(
    rng: &mut impl Rng,
    label: &str,
    n: usize,
    joint_count: usize,
    max_influences: usize,
) -> SkinVertices {
    let positions: Vec<Vec3> = (0..n)
        .map(|_| Vec3::new(rng.random(), rng.random(), rng.random()) * 4.0 - 2.0)
        .collect();
    let frames: Vec<QTangent> = (0..n)
        .map(|_| QTangent {
            rotation: common::rotation(rng),
            reflected: rng.random_bool(0.25),
        })
        .collect();
    let sets = max_influences.div_ceil(4);
    let mut joints = vec![vec![[0u16; 4]; n]; sets];
    let mut weights = vec![vec![[0f32; 4]; n]; sets];
    for v in 0..n {
        let count = if v == 0 && joint_count >= max_influences {
            max_influences
        } else {
            rng.random_range(1..=max_influences)
        };
        for k in 0..count {
            let joint = if v == 0 {
                k
            } else {
                rng.random_range(0..joint_count)
            };
            joints[k / 4][v][k % 4] = joint as u16;
            weights[k / 4][v][k % 4] = rng.random_range(0.05..1.0);
        }
    }
    SkinVertices::new(label, &positions, &frames, &joints, &weights, joint_count)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn matrix_skinning_matches_the_f64_evaluation() {
    let ctx = context();
    let pipeline = MatrixSkinPipeline::new(ctx).unwrap_or_else(|e| panic!("{e}"));
    common::for_seeds("matrix skinning", 6, |seed, rng| {
        let max_influences = if seed % 2 == 0 { 4 } else { 8 };
        let meshes: Vec<SkinVertices> = (0..3)
            .map(|i| {
                let n = rng.random_range(1..=300);
                let joints = rng.random_range(8..=40);
                random_mesh(rng, &format!("mesh {i}"), n, joints, max_influences)
            })
            .collect();
        let refs: Vec<&SkinVertices> = meshes.iter().collect();
        let instances: Vec<usize> = (0..7).map(|_| rng.random_range(0..meshes.len())).collect();
        let batch = pipeline
            .batch(ctx, &refs, &instances)
            .unwrap_or_else(|e| panic!("{e}"));
        let influences = Influences::for_count(max_influences);
        assert_eq!(batch.influences, influences);
        assert_eq!(
            batch.bytes_per_vertex(),
            if max_influences == 4 { 104 } else { 128 }
        );
        let bones = random_bones(rng, batch.buffers().bone_count as usize);
        batch
            .set_bones(ctx, &bones)
            .unwrap_or_else(|e| panic!("{e}"));
        batch.buffers().poison(ctx);
        batch.run(ctx).unwrap_or_else(|e| panic!("{e}"));
        let out = batch.read(ctx).unwrap_or_else(|e| panic!("{e}"));
        // One output vertex per vertex of each instance's mesh.
        let expected: usize = instances.iter().map(|&m| meshes[m].len()).sum();
        assert_eq!(out.len(), expected);

        let mut worst = Worst::default();
        for (i, range) in batch.buffers().instances().iter().enumerate() {
            let mesh = &meshes[range.mesh];
            let bones = &bones[range.bones.start as usize..range.bones.end as usize];
            let palette = skin_matrix::palette(bones);
            let vertices = MatrixVertex::from_skin(mesh);
            for (v, vertex) in vertices.iter().enumerate() {
                let gpu = &out[range.output.start as usize + v];
                let what = format!("instance {i} ({}) vertex {v}", mesh.label);
                let skinned = Skinned {
                    gpu,
                    palette: &palette,
                    vertex,
                    influences,
                    what: &what,
                };
                let tol = skinned.check_against_f64(&mut worst);
                skinned.check_against_quaternion_lbs(bones, mesh, v, tol, &mut worst);
            }
        }
        eprintln!(
            "seed {seed:#x}, {max_influences} influences: worst position error {:.2} u of its magnitude, \
             worst direction error {:.2} ulp, worst distance to quaternion LBS {:.2} ulp of scale",
            worst.position / U,
            worst.direction / EPS,
            worst.quaternion / EPS
        );
    });
}

/// The largest errors seen, each relative to what bounds it.
#[derive(Default)]
struct Worst {
    position: f64,
    direction: f64,
    quaternion: f64,
}

/// One vertex as the kernel skinned it, with what it was skinned from.
struct Skinned<'a> {
    gpu: &'a MatrixSkinnedVertex,
    palette: &'a [glam::Mat4],
    vertex: &'a MatrixVertex,
    influences: Influences,
    what: &'a str,
}

impl Skinned<'_> {
    /// The kernel's position, normal, tangent and handedness against the f64 evaluation of the
    /// same f32 inputs. Returns the position's tolerance, per component.
    fn check_against_f64(&self, worst: &mut Worst) -> DVec3 {
        let (gpu, palette, vertex, influences, what) = (
            self.gpu,
            self.palette,
            self.vertex,
            self.influences,
            self.what,
        );
        let k = influences.count();
        let r = skin_matrix::reference(palette, vertex, influences);
        // Position: γ_{K+4} · magnitude, per component.
        let mag = magnitude(palette, vertex, influences, vertex.position, 1.0);
        let tol = mag * gamma(k + 4);
        let e = self.check_position("f64", r.position, tol, mag);
        worst.position = worst.position.max(e);

        // Normal and tangent directions: 2 · |Δv| / |v| + the normalize's own error.
        for (name, got, exact, input) in [
            ("normal", gpu.normal, r.normal, vertex.normal),
            (
                "tangent",
                [gpu.tangent[0], gpu.tangent[1], gpu.tangent[2]],
                r.tangent,
                vertex.tangent.truncate(),
            ),
        ] {
            let delta = magnitude(palette, vertex, influences, input, 0.0).length() * gamma(k + 4);
            let tol = 2.0 * delta / exact.length() + NORMALIZE_TOL;
            let d = (DVec3::from_array(got.map(f64::from)) - exact.normalize())
                .abs()
                .max_element();
            assert!(
                d <= tol,
                "{what}: {name} {got:?} vs f64 {:?}: difference {d:e} > allowed {tol:e} (|M·{name}| = {})",
                exact.normalize(),
                exact.length()
            );
            worst.direction = worst.direction.max(d);
        }
        assert_eq!(
            f64::from(gpu.tangent[3]),
            r.handedness,
            "{what}: tangent w (handedness) must be copied"
        );
        tol
    }

    /// The same pose as the quaternion kernel's: positions agree with its f64 LBS reference up
    /// to how the f32 palette was built from the bones (quaternion → matrix, ~4 roundings on
    /// entries ≤ 2 in size, times the scale; the f32 weights q/255, one rounding): ≤ 10 u of
    /// Σₖ wₖ (sₖ |p|₁ + |tₖ|) per component, allowed 16 ulp of it (a consistency check, not a
    /// precision one) on top of `tol`. (Nothing where the blend has no rotation: random poses
    /// make a few.)
    fn check_against_quaternion_lbs(
        &self,
        bones: &[Bone],
        mesh: &SkinVertices,
        v: usize,
        tol: DVec3,
        worst: &mut Worst,
    ) {
        let vertex = self.vertex;
        let Some(q) = reference_lbs(
            bones,
            &mesh.influences[v],
            mesh.positions[v],
            mesh.qtangent(v),
        ) else {
            return;
        };
        let mut scale = DVec3::ZERO;
        for s in 0..self.influences.count() {
            if vertex.weights[s] > 0.0 {
                let b = &bones[usize::from(vertex.joints[s])];
                scale += (DVec3::splat(
                    f64::from(b.scale()) * vertex.position.as_dvec3().abs().element_sum(),
                ) + b.translation().as_dvec3().abs())
                    * f64::from(vertex.weights[s]);
            }
        }
        let tol_q = scale * (16.0 * EPS) + tol;
        let e = self.check_position("the quaternion LBS reference", q.position, tol_q, scale);
        worst.quaternion = worst.quaternion.max(e);
    }

    /// The kernel's position within `tol` of `reference` (per component; `<=` is false for NaN:
    /// an unwritten, poisoned vertex fails here). Returns the largest difference relative to
    /// `scale`.
    fn check_position(&self, against: &str, reference: DVec3, tol: DVec3, scale: DVec3) -> f64 {
        let got = self.gpu.position;
        let d = (DVec3::from_array(got.map(f64::from)) - reference).abs();
        assert!(
            d.cmple(tol).all(),
            "{}: position {got:?} vs {against} {reference:?}: difference {d:?} > allowed {tol:?}",
            self.what
        );
        (d / scale.max(DVec3::splat(1e-30))).max_element()
    }
}

#[test]
fn matrix_batch_rejects_bad_input() {
    let ctx = context();
    let pipeline = MatrixSkinPipeline::new(ctx).unwrap_or_else(|e| panic!("{e}"));
    let mut rng =
        <rand_pcg::Pcg64Mcg as rand::SeedableRng>::seed_from_u64(common::seeds::BASE_SEED);
    let mesh = random_mesh(&mut rng, "mesh", 10, 8, 4);
    assert!(matches!(
        pipeline.batch(ctx, &[&mesh], &[]),
        Err(GpuError::Empty { .. })
    ));
    assert!(matches!(
        pipeline.batch(ctx, &[&mesh], &[0, 1]),
        Err(GpuError::OutOfRange {
            index: 1,
            len: 1,
            ..
        })
    ));
    let batch = pipeline
        .batch(ctx, &[&mesh], &[0, 0])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(batch.buffers().bone_count, 16);
    assert!(matches!(
        batch.set_bones(ctx, &[Bone::IDENTITY; 15]),
        Err(GpuError::Count {
            found: 15,
            expected: 16,
            ..
        })
    ));
    let mut bad = vec![glam::Mat4::IDENTITY; 16];
    bad[3].w_axis.x = f32::NAN;
    assert!(matches!(
        batch.set_matrices(ctx, &bad),
        Err(GpuError::Invalid { what, .. }) if what.contains("matrix 3")
    ));
    // Identity bones: the rest pose, exactly.
    batch
        .set_bones(ctx, &[Bone::IDENTITY; 16])
        .unwrap_or_else(|e| panic!("{e}"));
    batch.buffers().poison(ctx);
    batch.run(ctx).unwrap_or_else(|e| panic!("{e}"));
    let out = batch.read(ctx).unwrap_or_else(|e| panic!("{e}"));
    for (i, o) in out.iter().enumerate() {
        let v = i % mesh.len();
        // The bound above for the identity palette: γ₈ · |pᵢ| ≤ 8 u · 2 = 8 ulp of 1.0.
        let d = (Vec3::from_array(o.position) - mesh.positions[v])
            .abs()
            .max_element();
        assert!(d <= 8.0 * f32::EPSILON, "vertex {i}: moved by {d:e}");
    }
}
