// qmap.wgsl — sampling quaternion maps (src/qmap: the bake; src/gpu/qmap.rs: upload and the
// sampling test's pipeline). Compiled after qtangent.wgsl, whose Frame, quat_to_mat3 and
// frame_from_quat it uses.
//
// A quaternion map is two textures sampled at the same uv with the same sampler:
//  - q_tex (Rgba16Float, Rgba16Snorm, Rgba8Snorm or Rgba32Float): per texel the unit quaternion
//    (x, y, z, w) of the rotation [t, cross(n, t), n], object space;
//  - h_tex (R8Snorm): the handedness, +1 or -1, and 0 for background texels.
// A two-layer BC5 map (MAP_DECODE_BC5_PAIR in object space, MAP_DECODE_BC5_NORMAL_TWIST in
// tangent space, whose q_tex is the normal's (x, y) instead) holds the swing's (x, y) in q_tex and the twist's
// (z, w) in h_tex (Bc5RgSnorm); its handedness comes from the vertex (tangent space) or the UV
// winding (object space).
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
//    (tests/unit/qmap/padding.rs).
//  - Handedness: the filtered plane is a weighted vote of ±1 (background 0); its sign is the
//    handedness, >= 0 counting as +1. Only the bitangent depends on it.
// Accuracy against a CPU filter of the same texel values: tests/unit/gpu/sample.rs derives the
// bound from the sampler's sub-texel precision and measures it.

// How a filtered sample becomes a quaternion (src/qmap/format.rs: MapDecode; the codes are
// generated): MAP_DECODE_DIRECT the sample is q (rgba16f, snorm16, snorm8, rgba32f);
// MAP_DECODE_UNORM BC7 UNORM, q = 2c − 1; MAP_DECODE_BC5_XY BC5 SNORM of a tangent-space map's
// (x, y), w = √(1 − x² − y²) (w ≥ 0 by the map's contract; filtered (x, y) of unit texels lies in
// the unit disc, so w is real and q unit); MAP_DECODE_BC5_ZW BC5 SNORM of a twist alone,
// q = (0, 0, r, g) (src/qmap/stored.rs: EncodedMap::twist_only; four-channel filtering rules, so
// seam-robust sampling applies); MAP_DECODE_BC5_PAIR two BC5 SNORM textures, the swing's (x, y) (w rebuilt)
// and the twist's (z, w), q = swing ⊗ twist (the twist can wind: seam-robust sampling applies);
// MAP_DECODE_BC5_NORMAL_TWIST the same with the normal's (x, y) in the first (z ≥ 0 rebuilt, the
// swing the arc from +Z to it): a tangent-space map whose first layer is a BC5 normal map;
// MAP_DECODE_BC5_NORMAL a BC5 UNORM normal map, n·½ + ½ (a tangent-space bc5 map of a tilt, on
// its 8-bit source's lattice).
override MAP_DECODE: u32 = MAP_DECODE_DIRECT;
// Seam-robust sampling of four-component maps (qmap_robust); gpu::MapFilter::Linear turns it off
// to give the plain sampler's result (the sampling tests compare the two).
override QMAP_ROBUST: bool = true;
// Below this |q|², the texels under the filter disagree (a hemisphere conflict: q and −q of
// nearby rotations cancel). Aligned texels blended half and half keep |q| = cos(α/4) for
// rotations α apart (unit quaternions α/2 apart): |q|² = 0.854 at a 90° hard edge, and aligned
// neighbours up to about 103° apart stay above 0.81; a conflict of weight w against 1 − w
// leaves |q| ≈ |1 − 2w|, so 0.81 catches every conflict whose minor side weighs 5 % or more (a
// smaller one moves the result by less than 0.05 of the angle between them).
const QMAP_CONFLICT_LEN2: f32 = 0.81;

// Whether the map is two textures (MAP_DECODE_BC5_PAIR, MAP_DECODE_BC5_NORMAL_TWIST): the
// second holds the twist's (z, w).
fn qmap_two_layers() -> bool {
    return MAP_DECODE == MAP_DECODE_BC5_PAIR || MAP_DECODE == MAP_DECODE_BC5_NORMAL_TWIST;
}

// `s` the sample of q_tex, `s2` of the second texture (used by two-layer maps only).
fn qmap_decode_sample(s: vec4<f32>, s2: vec4<f32>) -> vec4<f32> {
    switch MAP_DECODE {
        case MAP_DECODE_BC5_PAIR: {
            // swing (x, y, 0, w rebuilt) ⊗ twist (0, 0, z, w): src/qmap/tangent.rs
            // join_swing_twist.
            let swing = vec4<f32>(s.xy, 0.0, sqrt(max(0.0, 1.0 - dot(s.xy, s.xy))));
            return quat_mul(swing, vec4<f32>(0.0, 0.0, s2.xy));
        }
        case MAP_DECODE_BC5_NORMAL_TWIST: {
            // n = (x, y, z ≥ 0 rebuilt), swing = the arc from +Z to n, ⊗ twist (0, 0, z, w):
            // src/qmap/tangent.rs join_normal_twist.
            let nz = sqrt(max(0.0, 1.0 - dot(s.xy, s.xy)));
            let swing = normalize(vec4<f32>(-s.y, s.x, 0.0, 1.0 + nz));
            return quat_mul(swing, vec4<f32>(0.0, 0.0, s2.xy));
        }
        case MAP_DECODE_UNORM: {
            return s * 2.0 - vec4<f32>(1.0);
        }
        case MAP_DECODE_BC5_XY: {
            return vec4<f32>(s.xy, 0.0, sqrt(max(0.0, 1.0 - dot(s.xy, s.xy))));
        }
        case MAP_DECODE_BC5_NORMAL: {
            // A BC5 UNORM normal map: n = (2s − 1, z ≥ 0 rebuilt), q = the arc from +Z to n
            // (join_normal_twist with no twist).
            let n = s.xy * 2.0 - 1.0;
            let nz = sqrt(max(0.0, 1.0 - dot(n, n)));
            return normalize(vec4<f32>(-n.y, n.x, 0.0, 1.0 + nz));
        }
        case MAP_DECODE_BC5_ZW: {
            return vec4<f32>(0.0, 0.0, s.xy);
        }
        default: {
            return s;
        }
    }
}

fn qmap_texel(q_tex: texture_2d<f32>, z_tex: texture_2d<f32>, p: vec2<i32>, dims: vec2<i32>,
              level: i32, repeat: bool) -> vec4<f32> {
    var c: vec2<i32>;
    if repeat {
        c = ((p % dims) + dims) % dims;
    } else {
        c = clamp(p, vec2<i32>(0), dims - vec2<i32>(1));
    }
    var s2 = vec4<f32>(0.0);
    if qmap_two_layers() {
        s2 = textureLoad(z_tex, c, level);
    }
    return qmap_decode_sample(textureLoad(q_tex, c, level), s2);
}

// The decoded, filtered sample at uv and an explicit level of detail; `z_tex` is the second
// texture (read only by a two-layer map).
fn qmap_sample_level(q_tex: texture_2d<f32>, z_tex: texture_2d<f32>, s: sampler, uv: vec2<f32>,
                     lod: f32) -> vec4<f32> {
    var s2 = vec4<f32>(0.0);
    if qmap_two_layers() {
        s2 = textureSampleLevel(z_tex, s, uv, lod);
    }
    return qmap_decode_sample(textureSampleLevel(q_tex, s, uv, lod), s2);
}

// Seam-robust filtering: `q` is the hardware-filtered (decoded) quaternion at uv and `lod` the
// level of detail it was sampled at. Where |q|² shows a hemisphere conflict, the four texels of
// the nearest level are fetched, each aligned to the hemisphere of the one with the largest
// bilinear weight, and blended by hand; elsewhere q is returned as it is. `repeat`: the map's
// address mode (tangent-space maps tile; object-space maps clamp). `z_tex`: the second texture
// of a two-layer map.
fn qmap_robust(q_tex: texture_2d<f32>, z_tex: texture_2d<f32>, uv: vec2<f32>, q: vec4<f32>,
               lod: f32, repeat: bool) -> vec4<f32> {
    // BC5 maps of a tilt rebuild w ≥ 0: they have no hemisphere to conflict over.
    if !QMAP_ROBUST || MAP_DECODE == MAP_DECODE_BC5_XY || MAP_DECODE == MAP_DECODE_BC5_NORMAL
        || dot(q, q) >= QMAP_CONFLICT_LEN2 {
        return q;
    }
    let levels = i32(textureNumLevels(q_tex));
    let level = clamp(i32(round(lod)), 0, levels - 1);
    let dims = vec2<i32>(textureDimensions(q_tex, level));
    let st = uv * vec2<f32>(dims) - vec2<f32>(0.5);
    let i0 = vec2<i32>(floor(st));
    let f = st - floor(st);
    let a = qmap_texel(q_tex, z_tex, i0, dims, level, repeat);
    let b = qmap_texel(q_tex, z_tex, i0 + vec2<i32>(1, 0), dims, level, repeat);
    let c = qmap_texel(q_tex, z_tex, i0 + vec2<i32>(0, 1), dims, level, repeat);
    let d = qmap_texel(q_tex, z_tex, i0 + vec2<i32>(1, 1), dims, level, repeat);
    let wa = (1.0 - f.x) * (1.0 - f.y);
    let wb = f.x * (1.0 - f.y);
    let wc = (1.0 - f.x) * f.y;
    let wd = f.x * f.y;
    var strongest = a;
    var best = wa;
    if wb > best { best = wb; strongest = b; }
    if wc > best { best = wc; strongest = c; }
    if wd > best { best = wd; strongest = d; }
    let align = vec4<f32>(
        select(-1.0, 1.0, dot(a, strongest) >= 0.0),
        select(-1.0, 1.0, dot(b, strongest) >= 0.0),
        select(-1.0, 1.0, dot(c, strongest) >= 0.0),
        select(-1.0, 1.0, dot(d, strongest) >= 0.0),
    );
    return a * (wa * align.x) + b * (wb * align.y) + c * (wc * align.z) + d * (wd * align.w);
}

// The level of detail hardware sampling picks at uv for a texture of `dims` texels (isotropic:
// the longer of the two screen-space footprints). Fragment stage only (derivatives).
fn qmap_lod(uv: vec2<f32>, dims: vec2<f32>) -> f32 {
    let dx = dpdx(uv) * dims;
    let dy = dpdy(uv) * dims;
    return 0.5 * log2(max(max(dot(dx, dx), dot(dy, dy)), 1e-12));
}

// The frame of a filtered quaternion map sample: q as the sampler returned it, decoded (any
// length but 0), h the filtered handedness plane.
fn qmap_decode(q: vec4<f32>, h: f32) -> Frame {
    return frame_from_quat(q, select(-1.0, 1.0, h >= 0.0));
}

// The frame at uv, sampled at an explicit level of detail (trilinear with a sampler whose
// mipmap filter is linear), seam-robust. Usable in every shader stage (compute, vertex,
// fragment).
fn qmap_frame_level(q_tex: texture_2d<f32>, h_tex: texture_2d<f32>, s: sampler, uv: vec2<f32>,
                    lod: f32) -> Frame {
    let q = qmap_sample_level(q_tex, h_tex, s, uv, lod);
    let h = textureSampleLevel(h_tex, s, uv, lod).r;
    return qmap_decode(qmap_robust(q_tex, h_tex, uv, q, lod, false), h);
}

// The map's quaternion at uv with the level of detail from screen-space derivatives, decoded
// and seam-robust: fragment stage only, and only in uniform control flow. `z_tex`: the second
// texture (read only by a two-layer map).
fn qmap_quat(q_tex: texture_2d<f32>, z_tex: texture_2d<f32>, s: sampler, uv: vec2<f32>,
             repeat: bool) -> vec4<f32> {
    return qmap_quat_bias(q_tex, z_tex, s, uv, repeat, 0.0);
}

// qmap_quat with the level of detail moved by `bias` levels (negative: finer), as
// textureSampleBias moves it.
fn qmap_quat_bias(q_tex: texture_2d<f32>, z_tex: texture_2d<f32>, s: sampler, uv: vec2<f32>,
                  repeat: bool, bias: f32) -> vec4<f32> {
    var s2 = vec4<f32>(0.0);
    if qmap_two_layers() {
        s2 = textureSampleBias(z_tex, s, uv, bias);
    }
    let q = qmap_decode_sample(textureSampleBias(q_tex, s, uv, bias), s2);
    let lod = max(qmap_lod(uv, vec2<f32>(textureDimensions(q_tex))) + bias, 0.0);
    return qmap_robust(q_tex, z_tex, uv, q, lod, repeat);
}

// The frame of an object-space map at uv with the level of detail from screen-space derivatives,
// moved by QMAP_OBJECT_LOD_BIAS (generated: one level finer, whose levels below 0 hold the
// normal map one level coarser, so the mesh's own frame variation keeps twice the density and
// the normal map is filtered as its own mips filter it; src/qmap/mod.rs, OBJECT_LOD_SHIFT):
// fragment stage only (implicit derivatives), and only in uniform control flow.
fn qmap_frame(q_tex: texture_2d<f32>, h_tex: texture_2d<f32>, s: sampler, uv: vec2<f32>) -> Frame {
    let q = qmap_quat_bias(q_tex, h_tex, s, uv, false, QMAP_OBJECT_LOD_BIAS);
    let h = textureSampleBias(h_tex, s, uv, QMAP_OBJECT_LOD_BIAS).r;
    return qmap_decode(q, h);
}

// The rotation of an axial tangent-space map's texel, whose twist about z is stored doubled
// (mirrored on the CPU by src/lab/shading.rs: halve_twist): r = swing ⊗ rot_z(2φ) → swing ⊗ rot_z(φ). r and −r give φ
// and φ + π, the same groove. r need not be unit.
fn qmap_halve_twist(r: vec4<f32>) -> vec4<f32> {
    let tl2 = r.z * r.z + r.w * r.w;
    if tl2 < 1e-24 {
        return r;
    }
    let t = vec4<f32>(0.0, 0.0, r.z, r.w) * (1.0 / sqrt(tl2));
    let swing = quat_mul(r, vec4<f32>(0.0, 0.0, -t.z, t.w));
    let h = t + vec4<f32>(0.0, 0.0, 0.0, 1.0);
    let hl2 = dot(h, h);
    var half = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    if hl2 >= 1e-24 {
        half = h * (1.0 / sqrt(hl2));
    }
    return quat_mul(swing, half);
}

// A tangent-space map's rotation applied to a vertex frame (src/qmap/tangent.rs: apply): n, t
// unit and perpendicular, h the vertex handedness, r the sampled rotation (any length but 0).
// In the basis [t, cross(n, t), n] the map's rotation is r' = (h·x, y, h·z, w) (its y axis is the
// bitangent h·cross(n, t)). Returns the frame with the same handedness. A rotation of length 0
// (a filtered sample whose texels cancel, which the map's contract rules out but a compressed or
// foreign map can hold) leaves the vertex frame as it is: normalising it would give NaN, a black
// pixel (src/qmap/tangent.rs: apply does the same).
fn qmap_apply_tangent(n: vec3<f32>, t: vec3<f32>, h: f32, r: vec4<f32>) -> Frame {
    let len2 = dot(r, r);
    if !(len2 >= 1e-24) {
        return Frame(n, t, cross(n, t) * h, h);
    }
    let rr = vec4<f32>(h * r.x, r.y, h * r.z, r.w);
    let m = quat_to_mat3(rr * (1.0 / sqrt(len2)));
    let c = cross(n, t);
    let n2 = t * m[2].x + c * m[2].y + n * m[2].z;
    let t2 = t * m[0].x + c * m[0].y + n * m[0].z;
    return Frame(n2, t2, cross(n2, t2) * h, h);
}
