//! GPU decode checked by readback: every format, 1,000,000+ frames, compared with the CPU
//! decode (same f32 math) and with the source frames (the format's bound).
//!
//! These tests need a GPU adapter; Mesa's software Vulkan (lavapipe) is enough. Without one they
//! fail — under CI and elsewhere — with a message saying how to install it.

use crate::common::frames::{max_abs_diff, max_component_diff};
use crate::common::table_frames::table_frames;
use qtangent::gpu::{DecodePipeline, GpuError};
use qtangent::measure::FrameErrors;
use qtangent::{Format, QTangent};

use crate::common::context;

// How far the GPU decode may differ from the CPU decode, per vector component.
//
// Both run the same operations in the same order (shaders/qtangent.wgsl mirrors src/). WGSL
// makes +, −, × correctly rounded (a GPU may still fuse a·b + c, which changes one rounding),
// but allows 2.5 ulp for division and the error of 1/inverseSqrt (2 + 2.5 ulp) for sqrt, where
// the CPU rounds correctly. With ε = 2⁻²³ (an ulp of 1.0, at least the ulp of every value in
// [−1, 1]):
//  - normalising q: Σq² (1ε, fusing), sqrt (4.5ε), 1/x (2.5ε)        →  8ε relative on u = q/|q|
//  - matrix entries are quadratic in u: 2·8ε, plus ~3ε of products and sums        → 19ε
//  - a component rebuilt with sqrt (smallest three, and the rebuilt w of "Quaternion Tricks"): 4.5ε on a value ≤ 1, which
//    moves the quadratic entries by 2·4.5ε                                          →  9ε
//  n and t (matrix columns): 19ε + 9ε = 28ε; b = cross(n, t): two products of terms with 28ε
//  each, and a difference: 2·28ε + 1.5ε ≈ 58ε.
const EPS: f32 = f32::EPSILON;
const GPU_CPU_TOL_NT: f32 = 28.0 * EPS;
const GPU_CPU_TOL_B: f32 = 58.0 * EPS;

#[test]
fn gpu_decode_matches_cpu_and_source_for_every_format() {
    let ctx = context();
    let pipeline = DecodePipeline::new(ctx).unwrap_or_else(|e| panic!("{e}"));
    // 1,000,000 seeded random frames, the 48 axis-aligned ones and the two stress sets (see
    // `examples/common/table_frames.rs`; seeds there).
    let frames = table_frames(1_000_000);
    let qt: Vec<QTangent> = frames.iter().map(|f| f.to_qtangent()).collect();
    for format in Format::ALL {
        let packed = format.pack(&qt);
        let gpu = pipeline
            .decode(ctx, format, &packed, frames.len())
            .unwrap_or_else(|e| panic!("{}: {e}", format.name()));
        assert_eq!(
            gpu.len(),
            frames.len(),
            "{}: frames read back",
            format.name()
        );
        // GPU vs source: the format's bound plus the angle the GPU/CPU difference can add
        // (a component difference d on each of three components turns a unit vector by ≤ √3·d).
        let bound = format.max_error_deg() + f64::from(3f32.sqrt() * GPU_CPU_TOL_B).to_degrees();
        let mut errors = FrameErrors::default();
        let mut worst_nt = 0.0f32;
        let mut worst_b = 0.0f32;
        for (i, (g, source)) in gpu.iter().zip(&frames).enumerate() {
            let g = g.to_frame();
            let cpu = format.unpack(&packed, i).to_frame();
            let (n, t) = (
                max_abs_diff(g.normal, cpu.normal),
                max_abs_diff(g.tangent, cpu.tangent),
            );
            let b = max_abs_diff(g.bitangent, cpu.bitangent);
            // `x <= tol` is false for NaN, so an unwritten (poisoned) frame fails.
            assert!(
                n <= GPU_CPU_TOL_NT && t <= GPU_CPU_TOL_NT && b <= GPU_CPU_TOL_B,
                "{} frame {i}: GPU {g:?} vs CPU {cpu:?}: n/t diff {n:e}/{t:e} (≤ {GPU_CPU_TOL_NT:e}), b diff {b:e} (≤ {GPU_CPU_TOL_B:e})",
                format.name()
            );
            worst_nt = worst_nt.max(n).max(t);
            worst_b = worst_b.max(b);
            let before = errors.max();
            errors.add(source, &g);
            // Checked per frame (not only on the total) so a failure names the frame.
            assert!(
                errors.max() <= bound,
                "{} frame {i}: source {source:?}, GPU {g:?}: error rose from {before}° to {}° > {bound}°",
                format.name(),
                errors.max()
            );
        }
        assert_eq!(
            errors.handedness_errors,
            0,
            "{}: handedness errors on the GPU",
            format.name()
        );
        println!(
            "{:<12} GPU vs CPU max diff n/t {worst_nt:.2e} b {worst_b:.2e}; vs source max {:.6}°",
            format.name(),
            errors.max()
        );
    }
}

#[test]
fn unwritten_output_is_poison_and_fails_comparison() {
    let ctx = context();
    let pipeline = DecodePipeline::new(ctx).unwrap_or_else(|e| panic!("{e}"));
    let qt: Vec<QTangent> = table_frames(1000).iter().map(|f| f.to_qtangent()).collect();
    let packed = Format::F16x4.pack(&qt);
    let batch = pipeline
        .prepare(ctx, Format::F16x4, &packed, qt.len())
        .unwrap_or_else(|e| panic!("{e}"));
    batch.poison(ctx);
    // Read without running the shader: every value must be the poison, and the comparison the
    // decode test uses must reject it.
    let unwritten = batch.read(ctx).unwrap_or_else(|e| panic!("{e}"));
    assert!(unwritten
        .iter()
        .all(|f| f.normal[0].is_nan() && f.bitangent[2].is_nan()));
    let cpu = Format::F16x4.unpack(&packed, 0).to_frame();
    let d = max_component_diff(&unwritten[0].to_frame(), &cpu);
    assert!(
        d.is_nan() || d > GPU_CPU_TOL_B,
        "a poisoned frame passed the comparison: {d}"
    );
    // And after running, none is left.
    batch.run(ctx).unwrap_or_else(|e| panic!("{e}"));
    let written = batch.read(ctx).unwrap_or_else(|e| panic!("{e}"));
    assert!(written
        .iter()
        .all(|f| !f.normal[0].is_nan() && f.handedness.abs() == 1.0));
}

#[test]
fn bad_batches_are_errors_not_panics() {
    let ctx = context();
    let pipeline = DecodePipeline::new(ctx).unwrap_or_else(|e| panic!("{e}"));
    let packed = Format::F32x4.pack(&[QTangent {
        rotation: glam::Quat::IDENTITY,
        reflected: false,
    }]);
    assert!(matches!(
        pipeline.decode(ctx, Format::F32x4, &packed, 0),
        Err(GpuError::Empty { .. })
    ));
    let short = pipeline.decode(ctx, Format::F32x4, &packed, 2);
    assert!(
        matches!(
            &short,
            Err(GpuError::Count {
                found: 16,
                expected: 32,
                ..
            })
        ),
        "{short:?}"
    );
}

#[test]
fn wgpu_validation_errors_are_returned() {
    let ctx = context();
    let result = ctx.scoped("compiling a broken shader", || {
        ctx.device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("broken"),
                source: wgpu::ShaderSource::Wgsl("fn f() -> u32 { return 1.5; }".into()),
            })
    });
    match result {
        Err(GpuError::Wgpu { what, message }) => {
            assert_eq!(what, "compiling a broken shader");
            assert!(!message.is_empty());
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a broken shader compiled without error"),
    }
    // The device is still usable afterwards.
    DecodePipeline::new(ctx).unwrap_or_else(|e| panic!("{e}"));
}
