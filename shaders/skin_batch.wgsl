// skin_batch.wgsl — the batch structure both skinning kernels share (skin.wgsl, the quaternion
// kernel, and skin_matrix.wgsl, the matrix-palette baseline), so a comparison of the two measures
// their layouts and arithmetic only. Appended after qtangent.wgsl and before either kernel; the
// CPU side is BatchCore in src/gpu/skin.rs. Bindings 1 (vertices), 3 (palette) and 4 (output)
// are the kernel's own.

struct Params {
    // Output vertices in the batch (sum over instances).
    vertex_count: u32,
    instance_count: u32,
    // Threads per row of the 2D dispatch (groups in x · 64).
    row_stride: u32,
    pad: u32,
}

struct Instance {
    // First output vertex; an instance runs to the next one's output_base.
    output_base: u32,
    // First input vertex of the instance's mesh.
    vertex_base: u32,
    // First entry of the instance's palette.
    bone_base: u32,
    // Entries in the palette (joint indices are clamped below it).
    bone_count: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(2) var<storage, read> instances: array<Instance>;

// The output vertex of invocation `id` (2D dispatch folded by row_stride); vertex_count or more
// for the padding invocations past the end, which do nothing.
fn batch_vertex(id: vec3<u32>) -> u32 {
    return id.x + id.y * params.row_stride;
}

// The instance that owns output vertex g: the last whose output_base ≤ g (binary search).
fn find_instance(g: u32) -> Instance {
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
    return instances[lo];
}

// The input vertex (index into the packed meshes) output vertex g of `inst` reads.
fn input_vertex(inst: Instance, g: u32) -> u32 {
    return inst.vertex_base + (g - inst.output_base);
}
