// qmap_sample.wgsl — the quaternion-map sampling test's compute entry point (src/gpu/qmap.rs:
// sample_frames). Compiled after qtangent.wgsl and qmap.wgsl, whose functions it calls.
//
// points[i] = (u, v, lod, 0). results[4i .. 4i + 4] = (n, handedness), (t, filtered
// handedness), (b, 0), filtered quaternion before normalisation: 64 bytes, SampledFrame in
// src/gpu/qmap.rs. Invocations are numbered row-major over a 2D dispatch (i = gid.y * row + gid.x,
// row = the dispatch's x size in invocations) so large batches fit the per-dimension limit.

@group(0) @binding(0) var qmap_quats: texture_2d<f32>;
@group(0) @binding(1) var qmap_handedness: texture_2d<f32>;
@group(0) @binding(2) var qmap_sampler: sampler;
@group(0) @binding(3) var<storage, read> qmap_points: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> qmap_results: array<vec4<f32>>;

const QMAP_WORKGROUP: u32 = 64u;

@compute @workgroup_size(QMAP_WORKGROUP)
fn qmap_sample(@builtin(global_invocation_id) gid: vec3<u32>,
               @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.y * (groups.x * QMAP_WORKGROUP) + gid.x;
    if i >= arrayLength(&qmap_points) { return; }
    let p = qmap_points[i];
    // The frame through the lighting shaders' function; the raw samples again (the same
    // deterministic fetches) so the test can check the filter and the decode apart.
    let f = qmap_frame_level(qmap_quats, qmap_handedness, qmap_sampler, p.xy, p.z);
    let q = qmap_sample_level(qmap_quats, qmap_handedness, qmap_sampler, p.xy, p.z);
    let h = textureSampleLevel(qmap_handedness, qmap_sampler, p.xy, p.z).r;
    qmap_results[4u * i] = vec4<f32>(f.n, f.handedness);
    qmap_results[4u * i + 1u] = vec4<f32>(f.t, h);
    qmap_results[4u * i + 2u] = vec4<f32>(f.b, 0.0);
    qmap_results[4u * i + 3u] = q;
}
