//! A device handed in with `GpuContext::from_device` (an engine's own): qtangent's stages run on
//! it, its error handler stays the owner's, and a device short of what a stage needs gets an
//! error naming the missing limit or feature instead of a wgpu validation failure.

use std::sync::{Arc, Mutex};

use crate::common::frames::max_abs_diff;
use qtangent::gpu::DecodePipeline;
use qtangent::gpu::SkinPipeline;
use qtangent::gpu::{GpuContext, GpuError};
use qtangent::{Format, QTangent};

use crate::common::context;

/// A device of the shared context's adapter with `features` and `limits`, as an application
/// would request it.
fn own_device(
    features: wgpu::Features,
    limits: wgpu::Limits,
) -> (wgpu::Adapter, wgpu::Device, wgpu::Queue) {
    let adapter = context().adapter.clone();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("application"),
        required_features: features,
        required_limits: limits,
        ..Default::default()
    }))
    .unwrap_or_else(|e| panic!("the adapter refused the application's device: {e}"));
    (adapter, device, queue)
}

#[test]
fn a_device_handed_in_runs_the_decode_and_keeps_its_error_handler() {
    let (adapter, device, queue) = own_device(wgpu::Features::empty(), wgpu::Limits::default());
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&seen);
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        sink.lock().unwrap().push(e.to_string());
    }));
    let ctx = GpuContext::from_device(adapter, device, queue).unwrap_or_else(|e| panic!("{e}"));

    // Frames of a torus decode on the handed-in device as on the CPU (58 ε a component: the
    // bound tests/unit/gpu/decode.rs derives for the bitangent, the loosest).
    let prim = qtangent::mesh::Primitive::torus(1.0, 0.4, 32, 16)
        .prepare()
        .unwrap_or_else(|e| panic!("{e}"));
    let q: Vec<QTangent> = prim.frames.iter().map(|f| f.to_qtangent()).collect();
    let format = Format::Snorm16x4;
    let packed = format.pack(&q);
    let pipeline = DecodePipeline::new(&ctx).unwrap_or_else(|e| panic!("{e}"));
    let gpu = pipeline
        .decode(&ctx, format, &packed, q.len())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(gpu.len(), q.len());
    for (i, g) in gpu.iter().enumerate() {
        let (g, c) = (g.to_frame(), format.unpack(&packed, i).to_frame());
        // Each `<=` is false for NaN: the output is poisoned before the dispatch.
        for d in [
            max_abs_diff(g.normal, c.normal),
            max_abs_diff(g.tangent, c.tangent),
            max_abs_diff(g.bitangent, c.bitangent),
        ] {
            assert!(d <= 58.0 * f32::EPSILON, "frame {i}: GPU {g:?}, CPU {c:?}");
        }
        assert_eq!(g.handedness(), c.handedness(), "frame {i}: handedness");
    }

    // An error outside any scope reaches the application's handler: from_device left it alone.
    let _invalid = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("invalid on purpose"),
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE,
        mapped_at_creation: false,
    });
    ctx.wait().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "the application's handler saw the invalid buffer"
    );
}

#[test]
fn a_device_without_storage_buffers_is_refused_by_name() {
    // WebGL2's limits allow no storage buffers at all.
    let (adapter, device, queue) = own_device(
        wgpu::Features::empty(),
        wgpu::Limits::downlevel_webgl2_defaults(),
    );
    let ctx = GpuContext::from_device(adapter, device, queue).unwrap_or_else(|e| panic!("{e}"));
    for (stage, err) in [
        ("batch decode", DecodePipeline::new(&ctx).err()),
        ("GPU skinning", SkinPipeline::new(&ctx).err()),
    ] {
        match err {
            Some(GpuError::MissingLimit {
                stage: s,
                limit_name: "max_storage_buffers_per_shader_stage",
                has: 0,
                ..
            }) => assert_eq!(s, stage),
            other => {
                panic!("{stage}: expected a MissingLimit naming the storage buffers, got {other:?}")
            }
        }
    }
    let message = DecodePipeline::new(&ctx).err().map(|e| e.to_string());
    assert_eq!(
        message.as_deref(),
        Some(
            "batch decode needs max_storage_buffers_per_shader_stage ≥ 2 but this device allows 0"
        )
    );
}
