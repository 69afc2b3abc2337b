// skin_matrix.wgsl — the baseline the quaternion kernel (skin.wgsl) is measured against: batch
// linear-blend skinning in the layout engines use (Bevy's mesh attributes, rend3's skinning
// pass): f32 position, normal and tangent, u16 joints, f32 weights, a mat4x4 palette.
//
// Appended to qtangent.wgsl (uses none of it; kept for the one-module-per-stage rule) and
// skin_batch.wgsl (params, instance table, binary search: the structure skin.wgsl uses). CPU side:
// src/lab/skin_matrix.rs (packing, palette, buffers and the f64 reference this is tested
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

@group(0) @binding(1) var<storage, read> vertices: array<u32>;
@group(0) @binding(3) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<u32>;

fn word_f32(i: u32) -> f32 {
    return bitcast<f32>(vertices[i]);
}

@compute @workgroup_size(64)
fn skin_matrix(@builtin(global_invocation_id) id: vec3<u32>) {
    let g = batch_vertex(id);
    if (g >= params.vertex_count) {
        return;
    }
    let inst = find_instance(g);
    let base = input_vertex(inst, g) * (10u + INFLUENCES / 2u + INFLUENCES);
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
