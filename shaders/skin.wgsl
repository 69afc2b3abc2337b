// skin.wgsl — batch skinning with quaternion bones: one dispatch skins every instance of a batch
// (many meshes and/or many copies of one mesh, each with its own bone palette).
//
// After the generated header, qtangent.wgsl (quat_to_mat3, quat_mul, the per-format decode) and
// skin_batch.wgsl (params, instance table, binary search). CPU side: src/skin/mod.rs (bones,
// packed layout, the f64 reference this kernel is tested against), src/gpu/skin.rs (buffers).
//
// Input vertex (u32 words): x y z (f32 bits), the qtangent in QTANGENT_FORMAT (its bytes, padded
// to whole words: 1, 2 or 4 words), then INFLUENCES/4 words of joint indices (u8 each) and
// INFLUENCES/4 words of weights (unorm8 each). With snorm16x4: 28 bytes with 4 influences, 36
// with 8.
// Output vertex: x y z (f32 bits), q.xy q.zw (snorm16): 20 bytes, a vertex buffer as it stands.
// Bones: unit quaternion + translation + uniform scale, converted here (matrix for LBS, dual
// quaternion for DQS) per influence.

// SKIN_METHOD_LBS, linear blend, or SKIN_METHOD_DQS, dual quaternion (codes generated from
// src/skin/mod.rs: SkinMethod). Chosen per batch (one pipeline each).
override SKIN_METHOD: u32 = SKIN_METHOD_LBS;
// 4 or 8 influences per vertex.
override INFLUENCES: u32 = 4u;
// The format of the input qtangents (codes generated from the format table).
override QTANGENT_FORMAT: u32 = FORMAT_SNORM16X4;

// Most refinement steps of the LBS polar rotation (see polar_rotation): Newton from the blended
// quaternion usually converges in two or three.
const POLAR_MAX_STEPS: u32 = 12u;
// A step smaller than this (radians) ends the refinement: 1e-6 rad = 0.00006°, near f32
// resolution of the cross products and far below the 0.01° the tests allow.
const POLAR_DONE: f32 = 1e-6;
// The packed w bias is SNORM16_W_BIAS of the generated header (src/format/sign_w.rs): one
// snorm16 step, so w never rounds to 0 and the handedness survives.

struct Bone {
    rotation: vec4<f32>,
    // xyz: translation, w: uniform scale.
    translation_scale: vec4<f32>,
}

@group(0) @binding(1) var<storage, read> vertices: array<u32>;
@group(0) @binding(3) var<storage, read> bones: array<Bone>;
@group(0) @binding(4) var<storage, read_write> skinned: array<u32>;

// Rotates v by unit quaternion q.
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// The rotation nearest to a (its polar factor), refined from the warm start by Newton's method on
// f(R) = trace(Rᵀ a), which the polar factor maximises. With B = Rᵀa and S = sym(B), turning R
// by φ in its own axes changes f by φ·g − ½ φᵀHφ, where g = vee(B − Bᵀ) = Rᵀ Σ cross(R_c, a_c)
// and H = trace(S)·I − S, so the step is φ = H⁻¹g: quadratic convergence wherever H is positive
// definite (any two singular values of a sum to more than zero: every blend with det a > 0 near
// the answer). Elsewhere it takes the gradient step of Müller et al. 2016 ("A Robust Method to
// Extract the Rotational Part of Deformations"), φ = g / |trace(S)|. Gradient steps alone crawl
// when a is flat (the candy wrapper's middle: singular values 1, 0.09, 0.09), hence Newton.
// a should have columns of length ~1.
fn polar_rotation(a: mat3x3<f32>, start: vec4<f32>) -> vec4<f32> {
    var q = start;
    for (var step = 0u; step < POLAR_MAX_STEPS; step++) {
        let r = quat_to_mat3(q);
        let rt = transpose(r);
        let g = rt * (cross(r[0], a[0]) + cross(r[1], a[1]) + cross(r[2], a[2]));
        let b = rt * a;
        let s = 0.5 * (b + transpose(b));
        let tr = s[0][0] + s[1][1] + s[2][2];
        let h = mat3x3<f32>(vec3<f32>(tr, 0.0, 0.0), vec3<f32>(0.0, tr, 0.0), vec3<f32>(0.0, 0.0, tr)) - s;
        // H is symmetric: its inverse is the adjugate (rows = columns) over the determinant.
        let adj = mat3x3<f32>(cross(h[1], h[2]), cross(h[2], h[0]), cross(h[0], h[1]));
        let det = dot(h[0], adj[0]);
        var phi: vec3<f32>;
        if (det > 1e-6 && h[0][0] > 0.0 && h[0][0] * h[1][1] - h[0][1] * h[1][0] > 0.0) {
            phi = (adj * g) / det;
        } else {
            phi = g / (abs(tr) + 1e-9);
        }
        var angle = length(phi);
        if (angle < POLAR_DONE) {
            break;
        }
        // No step beyond 1 rad: a nearly singular H cannot throw the estimate around.
        if (angle > 1.0) {
            phi = phi / angle;
            angle = 1.0;
        }
        let half = 0.5 * angle;
        // Body-axes turn: R ← R·exp(φ), q ← q·(axis sin, cos).
        q = normalize(quat_mul(q, vec4<f32>(phi * (sin(half) / angle), cos(half))));
    }
    return q;
}

// Packs the skinned frame r·q with the input's handedness as snorm16x4, w kept at least
// SNORM16_W_BIAS away from 0 (src/format/sign_w.rs: signed_w, with round-to-nearest instead of
// the CPU's rounding search).
fn pack_frame(r: vec4<f32>, q_in: QTangent) -> vec2<u32> {
    let q = quat_mul(r, normalize(q_in.q));
    var v = select(q, -q, q.w < 0.0);
    if (v.w < SNORM16_W_BIAS) {
        let s = sqrt(1.0 - SNORM16_W_BIAS * SNORM16_W_BIAS) / max(length(v.xyz), 1.175494351e-38);
        v = vec4<f32>(v.xyz * s, SNORM16_W_BIAS);
    }
    if (q_in.h < 0.0) {
        v = -v;
    }
    return vec2<u32>(pack2x16snorm(v.xy), pack2x16snorm(v.zw));
}

// Words of the input qtangent: its bytes rounded up to whole words.
fn record_words() -> u32 {
    return (qtangent_format_bytes(QTANGENT_FORMAT) + 3u) / 4u;
}

// The input qtangent of the vertex at word `base`.
fn input_qtangent(base: u32) -> QTangent {
    var w = vec4<u32>(0u);
    for (var k = 0u; k < record_words(); k++) {
        w[k] = vertices[base + 3u + k];
    }
    return qtangent_record_qtangent(QTANGENT_FORMAT, w);
}

// Joint index and weight of influence k of the vertex at word `base`.
fn influence(base: u32, k: u32) -> vec2<u32> {
    let first = base + 3u + record_words();
    let joints = vertices[first + k / 4u];
    let weights = vertices[first + INFLUENCES / 4u + k / 4u];
    let shift = (k % 4u) * 8u;
    return vec2<u32>((joints >> shift) & 0xffu, (weights >> shift) & 0xffu);
}

@compute @workgroup_size(64)
fn skin(@builtin(global_invocation_id) id: vec3<u32>) {
    let g = batch_vertex(id);
    if (g >= params.vertex_count) {
        return;
    }
    let inst = find_instance(g);
    let base = input_vertex(inst, g) * (3u + record_words() + INFLUENCES / 2u);
    let p = vec3<f32>(bitcast<f32>(vertices[base]), bitcast<f32>(vertices[base + 1u]),
        bitcast<f32>(vertices[base + 2u]));
    let q_in = input_qtangent(base);
    let last = max(inst.bone_count, 1u) - 1u;

    var total = 0.0;
    for (var k = 0u; k < INFLUENCES; k++) {
        total += f32(influence(base, k).y);
    }
    let inv_total = 1.0 / max(total, 1.0);
    let first = bones[inst.bone_base + min(influence(base, 0u).x, last)].rotation;

    // One pass over the influences. Both methods blend the scale linearly and sum the rotations
    // put on the first influence's side (σ = sign(q · q_first)): LBS's warm start, DQS's real
    // part. LBS adds A = Σ w s R(q) and t = Σ w t; DQS the dual part Σ w σ ε ½ t q.
    var q_sum = vec4<f32>(0.0);
    var scale = 0.0;
    var a = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    var t = vec3<f32>(0.0);
    var dual = vec4<f32>(0.0);
    for (var k = 0u; k < INFLUENCES; k++) {
        let jw = influence(base, k);
        if (jw.y == 0u) {
            continue;
        }
        let w = f32(jw.y) * inv_total;
        let b = bones[inst.bone_base + min(jw.x, last)];
        let sw = select(w, -w, dot(b.rotation, first) < 0.0);
        q_sum += b.rotation * sw;
        scale += w * b.translation_scale.w;
        if (SKIN_METHOD == SKIN_METHOD_LBS) {
            a += quat_to_mat3(b.rotation) * (w * b.translation_scale.w);
            t += b.translation_scale.xyz * w;
        } else {
            dual += quat_mul(vec4<f32>(b.translation_scale.xyz, 0.0), b.rotation) * (0.5 * sw);
        }
    }

    var out_p: vec3<f32>;
    var rotation: vec4<f32>;
    if (SKIN_METHOD == SKIN_METHOD_LBS) {
        // LBS: the frame turns by A's polar rotation, warm-started from the blended quaternion.
        out_p = a * p + t;
        rotation = polar_rotation(a * (1.0 / max(scale, 1.175494351e-38)), normalize(q_sum));
    } else {
        // DQS: the normalised dual quaternion; the scale is applied first.
        let inv_len = 1.0 / length(q_sum);
        let c0 = q_sum * inv_len;
        let ce = dual * inv_len;
        let moved = 2.0 * (c0.w * ce.xyz - ce.w * c0.xyz + cross(c0.xyz, ce.xyz));
        out_p = quat_rotate(c0, p * scale) + moved;
        rotation = c0;
    }

    let o = g * 5u;
    skinned[o] = bitcast<u32>(out_p.x);
    skinned[o + 1u] = bitcast<u32>(out_p.y);
    skinned[o + 2u] = bitcast<u32>(out_p.z);
    let packed = pack_frame(rotation, q_in);
    skinned[o + 3u] = packed.x;
    skinned[o + 4u] = packed.y;
}
