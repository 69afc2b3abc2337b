// qtangent.wgsl — quaternion tangent-frame decoding, shared by every qtangent GPU stage.
//
// A stage's module is a header qtangent generates from its tables (the format codes, the
// smallest-three constants, the per-format dispatch qtangent_frame_* and qtangent_record_frame),
// this file, then the stage's own files (src/gpu/wgsl.rs). Every function here mirrors a CPU
// function in src/ in the same f32 operations and order, so the GPU and CPU results agree to a few
// ulps (tests/unit/gpu/decode.rs derives the bound).
// Packed data is read from u32 words (unpack2x16float, unpack2x16snorm, bit operations), so no
// adapter needs SHADER_F16.

// Quaternion → 3×3 matrix, MatrixFromQuaternion of "Quaternions: How" (src/quat.rs: quat_to_mat3).
// No unit-length assumption: a non-unit q gives |q|² times the rotation. q and -q give the same
// matrix. Columns: x = m00 m10 m20, y = m01 m11 m21, z = m02 m12 m22.
fn quat_to_mat3(q: vec4<f32>) -> mat3x3<f32> {
    let x2 = q.x * q.x;
    let y2 = q.y * q.y;
    let z2 = q.z * q.z;
    let w2 = q.w * q.w;
    let two_x = 2.0 * q.x;
    let two_y = 2.0 * q.y;
    let two_w = 2.0 * q.w;
    let xy = two_x * q.y;
    let xz = two_x * q.z;
    let yz = two_y * q.z;
    let wx = two_w * q.x;
    let wy = two_w * q.y;
    let wz = two_w * q.z;
    return mat3x3<f32>(
        vec3<f32>(w2 + x2 - y2 - z2, xy + wz, xz - wy),
        vec3<f32>(xy - wz, w2 - x2 + y2 - z2, yz + wx),
        vec3<f32>(xz + wy, yz - wx, w2 - x2 - y2 + z2),
    );
}

// Hamilton product a ⊗ b of (x, y, z, w) quaternions, in the order of glam's scalar Quat * Quat
// (src/qmap/texel.rs: quat_mul).
fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    );
}

// A decoded tangent frame: unit normal, tangent and bitangent, and the handedness (±1).
struct Frame {
    n: vec3<f32>,
    t: vec3<f32>,
    b: vec3<f32>,
    handedness: f32,
}

// The frame of quaternion q with an explicit handedness h (±1): q is normalised, converted with
// quat_to_mat3; t = column 0, n = column 2, b = cross(n, t) * h (src/frame.rs: QTangent::to_frame).
fn frame_from_quat(q: vec4<f32>, h: f32) -> Frame {
    let u = q * (1.0 / sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w));
    let m = quat_to_mat3(u);
    let n = m[2];
    let t = m[0];
    return Frame(n, t, cross(n, t) * h, h);
}

// A frame as stored: a rotation (any length; normalised by frame_from_quat) and the handedness
// (±1). The Rust QTangent.
struct QTangent {
    q: vec4<f32>,
    h: f32,
}

// The frame of a QTangent.
fn frame_of(t: QTangent) -> Frame {
    return frame_from_quat(t.q, t.h);
}

// The QTangent convention of f32x4, f16x4 and snorm16x4: handedness is the sign of w (encoders
// keep |w| ≥ a bias matched to the storage format, so w is never ±0).
fn qtangent_sign_w(q: vec4<f32>) -> QTangent {
    return QTangent(q, select(1.0, -1.0, q.w < 0.0));
}

// The frame of a sign-of-w quaternion (f32x4, f16x4, snorm16x4 as fetched).
fn tangent_frame(q: vec4<f32>) -> Frame {
    return frame_of(qtangent_sign_w(q));
}

// ---- One function per format (src/format/ has the encoders and CPU decoders). ----
// f32x4, f16x4 and snorm16x4 arrive as vec4<f32> (the vertex fetch or unpack_* below does the
// unpacking) and go to qtangent_sign_w; the packed formats have a function of their own, named
// in their row of the format table (a QTangent), and a frame_* wrapper.

// F32x4: four f32 words.
fn unpack_f32x4(w0: u32, w1: u32, w2: u32, w3: u32) -> vec4<f32> {
    return vec4<f32>(bitcast<f32>(w0), bitcast<f32>(w1), bitcast<f32>(w2), bitcast<f32>(w3));
}

// F16x4: two words, (x | y << 16) and (z | w << 16), each half an IEEE binary16.
fn unpack_f16x4(w0: u32, w1: u32) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(w0), unpack2x16float(w1));
}

// Snorm16x4: two words of snorm16 pairs; unpack2x16snorm is max(v / 32767, -1).
fn unpack_snorm16x4(w0: u32, w1: u32) -> vec4<f32> {
    return vec4<f32>(unpack2x16snorm(w0), unpack2x16snorm(w1));
}

// F16x3 (the format of "Quaternion Tricks", trick #3): x, y, z as f16 in the low 48 bits of
// q = (lo, hi), w rebuilt as sqrt(max(0, 1 - x² - y² - z²)). Handedness in bit 14 of x (the top
// exponent bit, always 0 for |x| < 2), cleared before unpacking.
fn qtangent_f16x3(q: vec2<u32>) -> QTangent {
    let xy = unpack2x16float(q.x & ~0x4000u);
    let z = unpack2x16float(q.y).x;
    let w = sqrt(max(0.0, 1.0 - (xy.x * xy.x + xy.y * xy.y + z * z)));
    return QTangent(vec4<f32>(xy, z, w), select(1.0, -1.0, (q.x & 0x4000u) != 0u));
}

fn frame_f16x3(q: vec2<u32>) -> Frame {
    return frame_of(qtangent_f16x3(q));
}

// The smallest-three steps (S3_STEP_15 for 32768 levels, S3_STEP_812 for 812), S3_LEVELS_4B and
// S3_HALF_RANGE (1/√2 as f32) are in the generated header: the very f32 values the CPU decoder
// uses (src/format/smallest3.rs).

// Rebuilds the quaternion from the dropped (largest, positive) component's index and the three
// smaller components a, b, c in index order.
fn s3_rebuild(index: u32, a: f32, b: f32, c: f32) -> vec4<f32> {
    let largest = sqrt(max(0.0, 1.0 - (a * a + b * b + c * c)));
    switch index {
        case 0u: { return vec4<f32>(largest, a, b, c); }
        case 1u: { return vec4<f32>(a, largest, b, c); }
        case 2u: { return vec4<f32>(a, b, largest, c); }
        default: { return vec4<f32>(a, b, c, largest); }
    }
}

// Smallest-three, 6 bytes: bits 0–14, 15–29, 30–44 the components, 45–46 the index, 47 the
// handedness, in the low 48 bits of q = (lo, hi).
fn qtangent_smallest3x6(q: vec2<u32>) -> QTangent {
    let lo = q.x;
    let hi = q.y;
    let a = f32(lo & 0x7fffu) * S3_STEP_15 - S3_HALF_RANGE;
    let b = f32((lo >> 15u) & 0x7fffu) * S3_STEP_15 - S3_HALF_RANGE;
    let c = f32((lo >> 30u) | ((hi & 0x1fffu) << 2u)) * S3_STEP_15 - S3_HALF_RANGE;
    let r = s3_rebuild((hi >> 13u) & 3u, a, b, c);
    return QTangent(r, select(1.0, -1.0, ((hi >> 15u) & 1u) == 1u));
}

fn frame_smallest3x6(q: vec2<u32>) -> Frame {
    return frame_of(qtangent_smallest3x6(q));
}

// Smallest-three, 4 bytes: bits 0–28 the mixed-radix number c0 + 812·(c1 + 812·c2), 29–30 the
// index, 31 the handedness.
fn qtangent_smallest3x4(v: u32) -> QTangent {
    let packed = v & 0x1fffffffu;
    let a = f32(packed % S3_LEVELS_4B) * S3_STEP_812 - S3_HALF_RANGE;
    let b = f32((packed / S3_LEVELS_4B) % S3_LEVELS_4B) * S3_STEP_812 - S3_HALF_RANGE;
    let c = f32(packed / (S3_LEVELS_4B * S3_LEVELS_4B)) * S3_STEP_812 - S3_HALF_RANGE;
    let q = s3_rebuild((v >> 29u) & 3u, a, b, c);
    return QTangent(q, select(1.0, -1.0, (v >> 31u) == 1u));
}

fn frame_smallest3x4(v: u32) -> Frame {
    return frame_of(qtangent_smallest3x4(v));
}
