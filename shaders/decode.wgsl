// decode.wgsl — batch decode of packed tangent frames (the GPU twin of Format::unpack +
// QTangent::to_frame). Compiled after the generated header and qtangent.wgsl, whose functions it
// uses.
//
// One entry point; the QTANGENT_FORMAT override picks the format (a pipeline per format, the
// switch folds away). Each invocation decodes one frame and writes three vec4s: (n, handedness),
// (t, 0), (b, 0) — 48 bytes, matching GpuFrame in src/gpu/decode.rs. Frames are numbered
// row-major over a 2D dispatch: i = gid.y * row_stride + gid.x, so batches larger than 65535
// workgroups still fit the per-dimension dispatch limit.

override QTANGENT_FORMAT: u32 = FORMAT_SNORM16X4;

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

// The `bytes` bytes of record i (records packed tightly from byte 0; `bytes` even) as
// little-endian words, unused high bytes zero. A record starts on a word boundary or half-way
// into one; a shift is never 32 (WGSL takes shift amounts modulo 32), and no word past the
// record's last byte is read.
fn load_record(i: u32, bytes: u32) -> vec4<u32> {
    let start = i * bytes;
    let w = start / 4u;
    let shift = (start % 4u) * 8u;
    var out = vec4<u32>(0u);
    for (var k = 0u; k < 4u; k++) {
        if 4u * k >= bytes {
            break;
        }
        var v = packed[w + k] >> shift;
        // Bytes this word still needs from the next one.
        if shift != 0u && 4u * k + (4u - shift / 8u) < bytes {
            v |= packed[w + k + 1u] << (32u - shift);
        }
        let left = bytes - 4u * k;
        if left < 4u {
            v &= (1u << (8u * left)) - 1u;
        }
        out[k] = v;
    }
    return out;
}

const WORKGROUP: u32 = 64u;

@compute @workgroup_size(WORKGROUP)
fn decode(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * params.row_stride + gid.x;
    if i >= params.count { return; }
    let w = load_record(i, qtangent_format_bytes(QTANGENT_FORMAT));
    store(i, qtangent_record_frame(QTANGENT_FORMAT, w));
}
