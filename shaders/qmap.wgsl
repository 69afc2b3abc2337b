// qmap.wgsl — sampling quaternion maps (src/qmap: the bake; src/gpu/qmap.rs: upload and the
// sampling test's pipeline). Compiled after qtangent.wgsl, whose Frame, quat_to_mat3 and
// frame_from_quat it uses.
//
// A quaternion map is two textures sampled at the same uv with the same sampler:
//  - q_tex (Rgba16Float, Rgba16Snorm, Rgba8Snorm or Rgba32Float): per texel the unit quaternion
//    (x, y, z, w) of the rotation [t, cross(n, t), n], object space;
//  - h_tex (R8Snorm): the handedness, +1 or -1, and 0 for background texels.
//
// Contract (what the bake guarantees and the functions below rely on):
//  - The map is HEMISPHERE-ALIGNED: neighbouring texels, and each mip texel with its children,
//    have dot(q_a, q_b) >= 0. q and -q are the same rotation, but hardware filtering is a
//    weighted sum, and a sum of q and -q cancels: halfway between them it is ~0 and its
//    direction is noise. Aligned, the sum stays close to length 1 (for the small angles
//    between neighbouring texels).
//  - So the filtered value is NOT unit length: bilinear / trilinear filtering of unit vectors
//    lands inside the sphere. frame_from_quat normalises it (nlerp), which is the right
//    rotation to within the filter's own error; quat_to_mat3 of an unnormalised q would scale
//    every axis by |q|².
//  - Background texels are (0, 0, 0, 0) with handedness 0: a weighted sum ignores them (after
//    normalisation), but a footprint made only of background has no frame. The bake's fringe
//    and padding keep background out of reach of every point inside a triangle at mip 0
//    (tests/qmap_padding.rs).
//  - Handedness: the filtered plane is a weighted vote of ±1 (background 0); its sign is the
//    handedness, >= 0 counting as +1. Only the bitangent depends on it.
// Accuracy against a CPU filter of the same texel values: tests/gpu_qmap_sample.rs derives the
// bound from the sampler's sub-texel precision and measures it.

// The frame of a filtered quaternion map sample: q as the sampler returned it (any length but 0),
// h the filtered handedness plane.
fn qmap_decode(q: vec4<f32>, h: f32) -> Frame {
    return frame_from_quat(q, select(-1.0, 1.0, h >= 0.0));
}

// The frame at uv, sampled at an explicit level of detail (trilinear with a sampler whose
// mipmap filter is linear). Usable in every shader stage (compute, vertex, fragment).
fn qmap_frame_level(q_tex: texture_2d<f32>, h_tex: texture_2d<f32>, s: sampler, uv: vec2<f32>,
                    lod: f32) -> Frame {
    let q = textureSampleLevel(q_tex, s, uv, lod);
    let h = textureSampleLevel(h_tex, s, uv, lod).r;
    return qmap_decode(q, h);
}

// The frame at uv with the level of detail from screen-space derivatives: fragment stage only
// (textureSample needs implicit derivatives), and only in uniform control flow.
fn qmap_frame(q_tex: texture_2d<f32>, h_tex: texture_2d<f32>, s: sampler, uv: vec2<f32>) -> Frame {
    let q = textureSample(q_tex, s, uv);
    let h = textureSample(h_tex, s, uv).r;
    return qmap_decode(q, h);
}

// ---- The sampling test's compute entry point (src/gpu/qmap.rs: sample_frames). ----
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
    let q = textureSampleLevel(qmap_quats, qmap_sampler, p.xy, p.z);
    let h = textureSampleLevel(qmap_handedness, qmap_sampler, p.xy, p.z).r;
    qmap_results[4u * i] = vec4<f32>(f.n, f.handedness);
    qmap_results[4u * i + 1u] = vec4<f32>(f.t, h);
    qmap_results[4u * i + 2u] = vec4<f32>(f.b, 0.0);
    qmap_results[4u * i + 3u] = q;
}
