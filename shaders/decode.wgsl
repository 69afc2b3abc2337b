// decode.wgsl — batch decode of packed tangent frames (the GPU twin of Format::unpack +
// QTangent::to_frame). Compiled after qtangent.wgsl, whose functions it uses.
//
// One entry point per format. Each invocation decodes one frame and writes three vec4s:
// (n, handedness), (t, 0), (b, 0) — 48 bytes, matching GpuFrame in src/gpu/decode.rs.
// Frames are numbered row-major over a 2D dispatch: i = gid.y * row_stride + gid.x, so batches
// larger than 65535 workgroups still fit the per-dimension dispatch limit.

struct Params {
    count: u32,
    row_stride: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> packed: array<u32>;
@group(0) @binding(2) var<storage, read_write> frames: array<vec4<f32>>;

fn store(i: u32, f: Frame) {
    frames[3u * i] = vec4<f32>(f.n, f.handedness);
    frames[3u * i + 1u] = vec4<f32>(f.t, 0.0);
    frames[3u * i + 2u] = vec4<f32>(f.b, 0.0);
}

// The 48 bits of 6-byte record i as (low 32 bits, high 16 bits). Records start at byte 6i: on a
// word boundary for even i, half-way into one for odd i. Shifts are never 32 (WGSL takes shift
// amounts modulo 32), hence the two branches.
fn load48(i: u32) -> vec2<u32> {
    let w = (3u * i) / 2u;
    if (i & 1u) == 0u {
        return vec2<u32>(packed[w], packed[w + 1u] & 0xffffu);
    }
    return vec2<u32>((packed[w] >> 16u) | (packed[w + 1u] << 16u), packed[w + 1u] >> 16u);
}

const WORKGROUP: u32 = 64u;

@compute @workgroup_size(WORKGROUP)
fn decode_f32x4(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * params.row_stride + gid.x;
    if i >= params.count { return; }
    let q = unpack_f32x4(packed[4u * i], packed[4u * i + 1u], packed[4u * i + 2u], packed[4u * i + 3u]);
    store(i, tangent_frame(q));
}

@compute @workgroup_size(WORKGROUP)
fn decode_f16x4(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * params.row_stride + gid.x;
    if i >= params.count { return; }
    store(i, tangent_frame(unpack_f16x4(packed[2u * i], packed[2u * i + 1u])));
}

@compute @workgroup_size(WORKGROUP)
fn decode_snorm16x4(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * params.row_stride + gid.x;
    if i >= params.count { return; }
    store(i, tangent_frame(unpack_snorm16x4(packed[2u * i], packed[2u * i + 1u])));
}

@compute @workgroup_size(WORKGROUP)
fn decode_f16x3(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * params.row_stride + gid.x;
    if i >= params.count { return; }
    let r = load48(i);
    store(i, frame_f16x3(r.x, r.y));
}

@compute @workgroup_size(WORKGROUP)
fn decode_smallest3x6(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * params.row_stride + gid.x;
    if i >= params.count { return; }
    let r = load48(i);
    store(i, frame_smallest3x6(r.x, r.y));
}

@compute @workgroup_size(WORKGROUP)
fn decode_smallest3x4(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * params.row_stride + gid.x;
    if i >= params.count { return; }
    store(i, frame_smallest3x4(packed[i]));
}
