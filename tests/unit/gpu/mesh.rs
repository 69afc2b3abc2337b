//! The mesh vertex stage checked by readback: every vertex of a loaded mesh is drawn as a point
//! through the real vertex entry point of each format, its world-space n and t are written to
//! float targets, and compared with the CPU decode of the same bytes moved to world space.
//!
//! Needs a GPU adapter (lavapipe is enough); without one the tests fail with a message saying
//! how to install it.

use crate::common;

use glam::{Mat4, Quat, Vec3};
use qtangent::gpu::GpuContext;
use qtangent::gpu::MeshUniforms;
use qtangent::lab::readback::read_vertex_frames;
use qtangent::lab::shapes;
use qtangent::mesh::{self, Prepared};
use qtangent::Format;

use crate::common::context;

// A model matrix with a rotation, a non-uniform scale and a mirror (det < 0), so the normal
// matrix, the tangent transform and the handedness flip are all exercised. Its singular values
// are 1.5, 1 and 0.75: condition number 2.
fn model() -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::new(-1.0, 1.5, 0.75),
        Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7),
        Vec3::new(0.25, -1.0, 2.0),
    )
}
const MODEL_CONDITION: f32 = 2.0;

// Per-component tolerance between the GPU's and the CPU's world n and t, derived:
//  - the decoded object-space frames differ by ≤ 28ε per component (tests/unit/gpu/decode.rs);
//  - M·v (three products, two sums; either side may fuse) adds ≤ 3ε relative to Σ|m||v|;
//  - both differences are magnified by at most cond(M) when the result is normalised, for
//    |Δv| ≤ √3 · (28 + 3)ε;
//  - normalize: sum of squares, sqrt (4.5 ulp in WGSL), division (2.5 ulp) → 8ε;
//  - a point has one vertex, clip w = 1, so interpolation passes the value through unchanged.
const EPS: f32 = f32::EPSILON;
fn tolerance() -> f32 {
    MODEL_CONDITION * 3f32.sqrt() * 31.0 * EPS + 8.0 * EPS
}

fn check(ctx: &GpuContext, p: &Prepared) {
    let uniforms = MeshUniforms::new(model(), Mat4::IDENTITY);
    let tol = tolerance();
    for format in Format::ALL {
        let stream = p.vertex_stream(format);
        let gpu = read_vertex_frames(ctx, &stream, &uniforms)
            .unwrap_or_else(|e| panic!("{} {}: {e}", p.label, format.name()));
        assert!(gpu.normals.len() >= stream.vertex_count);
        let mut worst = 0.0f32;
        for i in 0..stream.vertex_count {
            let cpu = stream.qtangent(i).to_frame();
            let (n, t) = uniforms.world_frame(&cpu);
            let d = (gpu.normals[i] - n).abs().max_element().max(
                (gpu.tangents[i].truncate() - t.truncate())
                    .abs()
                    .max_element(),
            );
            assert!(
                d <= tol,
                "{} {} vertex {i}: GPU n {:?} t {:?}, CPU n {n:?} t {t:?}: differ by {d:e} > {tol:e}",
                p.label,
                format.name(),
                gpu.normals[i],
                gpu.tangents[i]
            );
            assert_eq!(
                gpu.tangents[i].w,
                t.w,
                "{} {} vertex {i}: handedness",
                p.label,
                format.name()
            );
            worst = worst.max(d);
        }
        println!(
            "{} {}: worst GPU-CPU component difference {:.1} ε",
            p.label,
            format.name(),
            worst / EPS
        );
    }
}

#[test]
fn vertex_stage_decode_matches_cpu_on_procedural_meshes() {
    let ctx = context();
    for prim in [
        shapes::mirrored_quad_pair(),
        qtangent::mesh::Primitive::torus(1.0, 0.3, 48, 24),
        shapes::cube(),
    ] {
        let p = prim
            .prepare()
            .unwrap_or_else(|e| panic!("{}: {e}", prim.label));
        check(ctx, &p);
    }
}

#[test]
fn vertex_stage_decode_matches_cpu_on_loaded_meshes() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let ctx = context();
    for file in ["gltf/Fox.glb", "obj/duck.obj"] {
        let scene = mesh::load(dir.join(file)).unwrap_or_else(|e| panic!("{e}"));
        for p in scene.prepare().unwrap_or_else(|e| panic!("{e}")) {
            check(ctx, &p);
        }
    }
}

#[test]
fn mirroring_model_flips_handedness_and_unwritten_vertices_fail() {
    let ctx = context();
    let p = shapes::mirrored_quad_pair()
        .prepare()
        .unwrap_or_else(|e| panic!("{e}"));
    let stream = p.vertex_stream(Format::Snorm16x4);
    let plain = read_vertex_frames(
        ctx,
        &stream,
        &MeshUniforms::new(Mat4::IDENTITY, Mat4::IDENTITY),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mirrored = read_vertex_frames(
        ctx,
        &stream,
        &MeshUniforms::new(Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)), Mat4::IDENTITY),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for i in 0..stream.vertex_count {
        assert_eq!(plain.tangents[i].w, p.frames[i].handedness(), "vertex {i}");
        assert_eq!(
            mirrored.tangents[i].w,
            -p.frames[i].handedness(),
            "vertex {i}"
        );
    }
    // The grid has more texels than vertices; the ones no vertex covers must still hold the
    // poison, which is what makes a vertex the GPU skipped fail the comparisons above.
    assert!(plain.normals.len() > stream.vertex_count);
    for i in stream.vertex_count..plain.normals.len() {
        assert_eq!(plain.normals[i], Vec3::splat(-7.0), "texel {i}");
        assert_eq!(plain.tangents[i], glam::Vec4::splat(-7.0), "texel {i}");
    }
}
