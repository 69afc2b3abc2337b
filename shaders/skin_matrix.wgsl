// skin_matrix.wgsl — the baseline the quaternion kernel (skin.wgsl) is measured against: batch
// linear-blend skinning in the layout engines use (Bevy's mesh attributes, rend3's skinning
// pass): f32 position, normal and tangent, u16 joints, f32 weights, a mat4x4 palette.
//
// Appended to qtangent.wgsl (uses none of it; kept for the one-module-per-stage rule). CPU side:
// src/gpu/skin_matrix.rs (packing, palette, buffers and the f64 reference this is tested
// against). Same batch structure as skin.wgsl — instance table, binary search, one 2D dispatch —
// so the two differ only in layout and per-vertex arithmetic.
//
// Input vertex (u32 words): x y z, nx ny nz, tx ty tz tw (f32 bits), INFLUENCES/2 words of joint
// indices (u16 pairs), INFLUENCES words of weights (f32 bits, summing to 1: not renormalised
// here, as engines do not). 64 bytes with 4 influences, 88 with 8.
// Output vertex: x y z, nx ny nz, tx ty tz tw (f32 bits): 40 bytes.
// Palette: one column-major mat4x4<f32> per bone (64 bytes), built on the CPU.

// 4 or 8 influences per vertex.
override INFLUENCES: u32 = 4u;

struct MatrixParams {
    // Output vertices in the batch (sum over instances).
    vertex_count: u32,
    instance_count: u32,
    // Threads per row of the 2D dispatch (groups in x · 64).
    row_stride: u32,
    pad: u32,
}

struct MatrixInstance {
    // First output vertex; an instance runs to the next one's output_base.
    output_base: u32,
    // First input vertex of the instance's mesh.
    vertex_base: u32,
    // First matrix of the instance's palette.
    bone_base: u32,
    // Matrices in the palette (joint indices are clamped below it).
    bone_count: u32,
}

@group(0) @binding(0) var<uniform> params: MatrixParams;
@group(0) @binding(1) var<storage, read> vertices: array<u32>;
@group(0) @binding(2) var<storage, read> instances: array<MatrixInstance>;
@group(0) @binding(3) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<u32>;

// The instance that owns output vertex g: the last whose output_base ≤ g (binary search).
fn find_matrix_instance(g: u32) -> u32 {
    var lo = 0u;
    var hi = params.instance_count;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (instances[mid].output_base <= g) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

fn word_f32(i: u32) -> f32 {
    return bitcast<f32>(vertices[i]);
}

@compute @workgroup_size(64)
fn skin_matrix(@builtin(global_invocation_id) id: vec3<u32>) {
    let g = id.x + id.y * params.row_stride;
    if (g >= params.vertex_count) {
        return;
    }
    let inst = instances[find_matrix_instance(g)];
    let base = (inst.vertex_base + (g - inst.output_base)) * (10u + INFLUENCES / 2u + INFLUENCES);
    let p = vec3<f32>(word_f32(base), word_f32(base + 1u), word_f32(base + 2u));
    let n = vec3<f32>(word_f32(base + 3u), word_f32(base + 4u), word_f32(base + 5u));
    let t = vec4<f32>(word_f32(base + 6u), word_f32(base + 7u), word_f32(base + 8u),
        word_f32(base + 9u));
    let last = max(inst.bone_count, 1u) - 1u;

    // M = Σ w M_joint: the blended skin matrix.
    var m = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < INFLUENCES; k++) {
        let w = word_f32(base + 10u + INFLUENCES / 2u + k);
        if (w == 0.0) {
            continue;
        }
        let joint = (vertices[base + 10u + k / 2u] >> ((k % 2u) * 16u)) & 0xffffu;
        m += palette[inst.bone_base + min(joint, last)] * w;
    }

    // The usual engine shortcut: the normal by M itself (not its inverse transpose), which is
    // right only while M is a rotation times a uniform scale.
    let out_p = (m * vec4<f32>(p, 1.0)).xyz;
    let out_n = normalize((m * vec4<f32>(n, 0.0)).xyz);
    let out_t = normalize((m * vec4<f32>(t.xyz, 0.0)).xyz);

    let o = g * 10u;
    skinned[o] = bitcast<u32>(out_p.x);
    skinned[o + 1u] = bitcast<u32>(out_p.y);
    skinned[o + 2u] = bitcast<u32>(out_p.z);
    skinned[o + 3u] = bitcast<u32>(out_n.x);
    skinned[o + 4u] = bitcast<u32>(out_n.y);
    skinned[o + 5u] = bitcast<u32>(out_n.z);
    skinned[o + 6u] = bitcast<u32>(out_t.x);
    skinned[o + 7u] = bitcast<u32>(out_t.y);
    skinned[o + 8u] = bitcast<u32>(out_t.z);
    skinned[o + 9u] = bitcast<u32>(t.w);
}
