//! `qmap_apply_tangent` (shaders/qmap.wgsl), the tangent-space map's rotation applied to the
//! vertex frame in qtangent's renderer and in `bevy_qtangent`'s fragment shader, run on the
//! device for the rotations a filtered sample can hold, length 0 included: a zero rotation
//! leaves the vertex frame as it is instead of giving NaN (a black pixel). Outputs are poisoned
//! (NaN) before the dispatch.

use std::f32::consts::FRAC_1_SQRT_2;

use crate::common::context;
use crate::Wgsl;

/// Rotations as a sampled map gives them (x, y, z, w), none normalised.
const ROTATIONS: [[f32; 4]; 5] = [
    [0.0, 0.0, 0.0, 1.0],
    [0.0, 0.0, 0.0, 0.0],
    // |r|² = 1e-40, below the guard (and a subnormal f32 squared: 0).
    [1e-20, 0.0, 0.0, 0.0],
    // A quarter turn about the normal, at half length (a filtered sample is not unit).
    [0.0, 0.0, 0.5 * FRAC_1_SQRT_2, 0.5 * FRAC_1_SQRT_2],
    // The same turn with w < 0 (−r is the same rotation).
    [0.0, 0.0, -FRAC_1_SQRT_2, -FRAC_1_SQRT_2],
];

const ENTRY: &str = "
@group(0) @binding(0) var<storage, read> rotations: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> frames: array<vec4<f32>>;

@compute @workgroup_size(1)
fn apply_tangent(@builtin(global_invocation_id) id: vec3<u32>) {
    let f = qmap_apply_tangent(vec3<f32>(0.0, 0.0, 1.0), vec3<f32>(1.0, 0.0, 0.0), -1.0,
                               rotations[id.x]);
    frames[2u * id.x] = vec4<f32>(f.n, f.handedness);
    frames[2u * id.x + 1u] = vec4<f32>(f.t, 0.0);
}
";

#[test]
fn a_zero_rotation_leaves_the_vertex_frame_and_turns_stay_exact() {
    use wgpu::util::DeviceExt;
    let ctx = context();
    let device = &ctx.device;
    let source = format!("{}\n{ENTRY}", Wgsl::Qmap.source());
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("qmap_apply_tangent test"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("qmap_apply_tangent test"),
        layout: None,
        module: &module,
        entry_point: Some("apply_tangent"),
        compilation_options: Default::default(),
        cache: None,
    });
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("rotations"),
        contents: bytemuck::cast_slice(&ROTATIONS),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let poison = vec![f32::NAN; ROTATIONS.len() * 8];
    let output = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("frames"),
        contents: bytemuck::cast_slice(&poison),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: input.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: output.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(ROTATIONS.len() as u32, 1, 1);
    }
    ctx.queue.submit([encoder.finish()]);
    let bytes = ctx
        .read_buffer(&output, (poison.len() * 4) as u64, "frames")
        .unwrap_or_else(|e| panic!("{e}"));
    let out: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&bytes);
    // Expected, worked by hand: the vertex frame (n = +z, t = +x, h = −1) for the identity and
    // the zero rotations; a quarter turn about n takes t to the bitangent h·cross(n, t) = −y
    // (the map's y axis, docs of qmap_apply_tangent). Within 4 f32 ulps
    // of 1 (quat_to_mat3's products and sums, each correctly rounded).
    let unturned = ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
    let turned = ([0.0, 0.0, 1.0], [0.0, -1.0, 0.0]);
    let expected = [unturned, unturned, unturned, turned, turned];
    for (k, (r, (n, t))) in ROTATIONS.iter().zip(expected).enumerate() {
        let (got_n, got_t) = (out[2 * k], out[2 * k + 1]);
        let close =
            |a: [f32; 4], b: [f32; 3]| (0..3).all(|i| (a[i] - b[i]).abs() <= 4.0 * f32::EPSILON);
        assert!(
            close(got_n, n) && close(got_t, t) && got_n[3] == -1.0,
            "r = {r:?}: n {got_n:?}, t {got_t:?}; expected n {n:?}, t {t:?}, h −1"
        );
    }
}
