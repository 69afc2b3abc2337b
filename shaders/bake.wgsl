// Quaternion-map bake: the mesh rasterised in UV space (UV → clip position), one fragment per
// texel, in two passes over the same triangle data (vertex pulling from storage buffers):
//
//   vs_cover + fs_cover   texels whose centre a triangle covers. Triangles are drawn in
//                         descending order, so the lowest-numbered one is written last and
//                         wins overlaps; every covering fragment adds 1 to the count target and
//                         sets the stencil.
//   vs_fringe + fs_fringe texels within the fringe radius of a triangle that no triangle
//                         covers (stencil 0): each triangle's bounding box grown by the radius,
//                         the exact distance computed here, the nearest triangle winning through
//                         the depth test (depth = distance / 4; ties keep the lower number).
//
// Barycentrics are computed here from the texel centre, not interpolated by the rasteriser, so
// every number matches the CPU reference (src/qmap/texel.rs, mirrored function for function)
// to f32 rounding. Frames are interpolated as vectors and orthonormalised, the normal map's
// perturbation is applied as a rotation, and the quaternion is packed in the map's format.

// The map format texels are packed in (src/qmap/format.rs: MapFormat; codes generated).
override MAP_FORMAT: u32 = MAP_FORMAT_RGBA16F;

struct BakeUniforms {
    // Map size in texels.
    size: vec2<f32>,
    tri_count: u32,
    has_normal_map: u32,
    // texel::MIN_AREA2 and texel::FRINGE_RADIUS.
    min_area2: f32,
    fringe_radius: f32,
    _pad: vec2<f32>,
}

struct BakeVertex {
    uv: vec2<f32>,
    _pad: vec2<f32>,
    normal: vec4<f32>,
    tangent: vec4<f32>,
    bitangent: vec4<f32>,
}

@group(0) @binding(0) var<uniform> bake: BakeUniforms;
@group(0) @binding(1) var<storage, read> vertices: array<BakeVertex>;
@group(0) @binding(2) var<storage, read> indices: array<u32>;
// Unpacked normal-map vectors (2c − 1, xy × scale), filtered by hand.
@group(0) @binding(3) var normal_map: texture_2d<f32>;

// FLAG_COVERED, FLAG_FRINGE and FLAG_MIRRORED are in the generated header (src/gpu/wgsl.rs:
// BAKE_FLAGS), shared with the readback in src/gpu/bake.rs.

struct BakeTri {
    p0: vec2<f32>,
    p1: vec2<f32>,
    p2: vec2<f32>,
}

fn corner(t: u32, k: u32) -> BakeVertex {
    return vertices[indices[3u * t + k]];
}

fn triangle_points(t: u32) -> BakeTri {
    return BakeTri(corner(t, 0u).uv * bake.size, corner(t, 1u).uv * bake.size, corner(t, 2u).uv * bake.size);
}

fn area2(p: BakeTri) -> f32 {
    let e0 = p.p1 - p.p0;
    let e1 = p.p2 - p.p0;
    return e0.x * e1.y - e0.y * e1.x;
}

fn barycentric(p: BakeTri, c: vec2<f32>) -> vec3<f32> {
    let e0 = p.p1 - p.p0;
    let e1 = p.p2 - p.p0;
    let d = c - p.p0;
    let den = e0.x * e1.y - e0.y * e1.x;
    let l1 = (d.x * e1.y - d.y * e1.x) / den;
    let l2 = (e0.x * d.y - e0.y * d.x) / den;
    return vec3<f32>(1.0 - l1 - l2, l1, l2);
}

struct Closest {
    l: vec3<f32>,
    dist: f32,
}

fn closest_barycentric(p: BakeTri, c: vec2<f32>) -> Closest {
    let l = barycentric(p, c);
    if l.x >= 0.0 && l.y >= 0.0 && l.z >= 0.0 {
        return Closest(l, 0.0);
    }
    var pts = array<vec2<f32>, 3>(p.p0, p.p1, p.p2);
    var best = vec3<f32>(0.0);
    var best_d2 = 3.0e38;
    for (var i = 0u; i < 3u; i++) {
        let j = (i + 1u) % 3u;
        let a = pts[i];
        let e = pts[j] - a;
        let s = clamp(dot(c - a, e) / dot(e, e), 0.0, 1.0);
        let q = a + e * s;
        let d2 = dot(c - q, c - q);
        if d2 < best_d2 {
            best_d2 = d2;
            var b = vec3<f32>(0.0);
            b[i] = 1.0 - s;
            b[j] = s;
            best = b;
        }
    }
    return Closest(best, sqrt(best_d2));
}

fn any_tangent(n: vec3<f32>) -> vec3<f32> {
    let sign = select(-1.0, 1.0, n.z >= 0.0);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    return vec3<f32>(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
}

fn quat_from_axes(x: vec3<f32>, y: vec3<f32>, z: vec3<f32>) -> vec4<f32> {
    let m00 = x.x; let m01 = x.y; let m02 = x.z;
    let m10 = y.x; let m11 = y.y; let m12 = y.z;
    let m20 = z.x; let m21 = z.y; let m22 = z.z;
    if m22 <= 0.0 {
        let dif10 = m11 - m00;
        let omm22 = 1.0 - m22;
        if dif10 <= 0.0 {
            let four_xsq = omm22 - dif10;
            let inv = 0.5 / sqrt(four_xsq);
            return vec4<f32>(four_xsq * inv, (m01 + m10) * inv, (m02 + m20) * inv, (m12 - m21) * inv);
        }
        let four_ysq = omm22 + dif10;
        let inv = 0.5 / sqrt(four_ysq);
        return vec4<f32>((m01 + m10) * inv, four_ysq * inv, (m12 + m21) * inv, (m20 - m02) * inv);
    }
    let sum10 = m11 + m00;
    let opm22 = 1.0 + m22;
    if sum10 <= 0.0 {
        let four_zsq = opm22 - sum10;
        let inv = 0.5 / sqrt(four_zsq);
        return vec4<f32>((m02 + m20) * inv, (m12 + m21) * inv, four_zsq * inv, (m01 - m10) * inv);
    }
    let four_wsq = opm22 + sum10;
    let inv = 0.5 / sqrt(four_wsq);
    return vec4<f32>((m12 - m21) * inv, (m20 - m02) * inv, (m01 - m10) * inv, four_wsq * inv);
}

fn arc_from_z(m: vec3<f32>) -> vec4<f32> {
    let w = 1.0 + m.z;
    if w < 1e-6 {
        return vec4<f32>(1.0, 0.0, 0.0, 0.0);
    }
    let q = vec4<f32>(-m.y, m.x, 0.0, w);
    return q / sqrt(dot(q, q));
}

fn wrap(i: i32, n: i32) -> i32 {
    return ((i % n) + n) % n;
}

fn sample_normal_map(uv: vec2<f32>) -> vec3<f32> {
    let dims = vec2<f32>(textureDimensions(normal_map));
    let n = vec2<i32>(textureDimensions(normal_map));
    let s = vec2<f32>(uv.x * dims.x - 0.5, uv.y * dims.y - 0.5);
    let i0 = floor(s);
    let f = s - i0;
    let x0 = wrap(i32(i0.x), n.x);
    let y0 = wrap(i32(i0.y), n.y);
    let x1 = wrap(i32(i0.x + 1.0), n.x);
    let y1 = wrap(i32(i0.y + 1.0), n.y);
    let a = textureLoad(normal_map, vec2<i32>(x0, y0), 0).xyz;
    let b = textureLoad(normal_map, vec2<i32>(x1, y0), 0).xyz;
    let c = textureLoad(normal_map, vec2<i32>(x0, y1), 0).xyz;
    let d = textureLoad(normal_map, vec2<i32>(x1, y1), 0).xyz;
    let top = a * (1.0 - f.x) + b * f.x;
    let bottom = c * (1.0 - f.x) + d * f.x;
    return top * (1.0 - f.y) + bottom * f.y;
}

struct TexelQuat {
    q: vec4<f32>,
    h: f32,
}

fn texel_quat(t: u32, l: vec3<f32>, uv: vec2<f32>) -> TexelQuat {
    let v0 = corner(t, 0u);
    let v1 = corner(t, 1u);
    let v2 = corner(t, 2u);
    let ni = v0.normal.xyz * l.x + v1.normal.xyz * l.y + v2.normal.xyz * l.z;
    let ti = v0.tangent.xyz * l.x + v1.tangent.xyz * l.y + v2.tangent.xyz * l.z;
    let nn = dot(ni, ni);
    var n = v0.normal.xyz;
    if nn > 1e-12 {
        n = ni / sqrt(nn);
    }
    let tp = ti - n * dot(n, ti);
    let tt = dot(tp, tp);
    var tg: vec3<f32>;
    if tt > 1e-12 {
        tg = tp / sqrt(tt);
    } else {
        tg = any_tangent(n);
    }
    let c = cross(n, tg);
    // The corners' handedness, interpolated (texel.rs: vertex_frame).
    let h0 = select(1.0, -1.0, dot(cross(v0.normal.xyz, v0.tangent.xyz), v0.bitangent.xyz) < 0.0);
    let h1 = select(1.0, -1.0, dot(cross(v1.normal.xyz, v1.tangent.xyz), v1.bitangent.xyz) < 0.0);
    let h2 = select(1.0, -1.0, dot(cross(v2.normal.xyz, v2.tangent.xyz), v2.bitangent.xyz) < 0.0);
    let h = select(1.0, -1.0, h0 * l.x + h1 * l.y + h2 * l.z < 0.0);
    let qv = quat_from_axes(tg, c, n);
    var q = qv;
    if bake.has_normal_map != 0u {
        let s = sample_normal_map(uv);
        let m = vec3<f32>(s.x, h * s.y, s.z);
        let mm = dot(m, m);
        if mm > 1e-12 {
            q = quat_mul(qv, arc_from_z(m / sqrt(mm)));
        }
    }
    q = q / sqrt(dot(q, q));
    if q.w < 0.0 {
        q = -q;
    }
    return TexelQuat(q, h);
}

// The four words MapFormat::pack writes.
fn pack_quat(q: vec4<f32>) -> vec4<u32> {
    switch MAP_FORMAT {
        case MAP_FORMAT_SNORM16: {
            return vec4<u32>(pack2x16snorm(q.xy), pack2x16snorm(q.zw), 0u, 0u);
        }
        case MAP_FORMAT_SNORM8: {
            return vec4<u32>(pack4x8snorm(q), 0u, 0u, 0u);
        }
        case MAP_FORMAT_RGBA32F: {
            return bitcast<vec4<u32>>(q);
        }
        default: {
            return vec4<u32>(pack2x16float(q.xy), pack2x16float(q.zw), 0u, 0u);
        }
    }
}

struct BakeVaryings {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) tri: u32,
}

// Texel units → clip space (v grows downwards in UV and in framebuffer rows).
fn to_clip(p: vec2<f32>) -> vec4<f32> {
    return vec4<f32>(p.x / bake.size.x * 2.0 - 1.0, 1.0 - p.y / bake.size.y * 2.0, 0.0, 1.0);
}

const OFFSCREEN: vec4<f32> = vec4<f32>(-2.0, -2.0, 0.0, 1.0);

// A vertex of triangle t (points p) at `corner` (texel units); every vertex of a degenerate
// triangle goes off screen, so it covers nothing.
fn bake_vertex(t: u32, p: BakeTri, corner: vec2<f32>) -> BakeVaryings {
    var out: BakeVaryings;
    out.tri = t;
    out.clip = select(to_clip(corner), OFFSCREEN, abs(area2(p)) <= bake.min_area2);
    return out;
}

@vertex
fn vs_cover(@builtin(vertex_index) vi: u32) -> BakeVaryings {
    let t = bake.tri_count - 1u - vi / 3u;
    let p = triangle_points(t);
    var pts = array<vec2<f32>, 3>(p.p0, p.p1, p.p2);
    return bake_vertex(t, p, pts[vi % 3u]);
}

struct BakeTargets {
    @location(0) quat: vec4<u32>,
    // (triangle, flags)
    @location(1) info: vec2<u32>,
    // Covering triangles, added up by blending.
    @location(2) count: f32,
}

fn flags_for(h: f32, kind: u32) -> u32 {
    return kind | select(0u, FLAG_MIRRORED, h < 0.0);
}

@fragment
fn fs_cover(in: BakeVaryings) -> BakeTargets {
    let c = in.clip.xy;
    let l = barycentric(triangle_points(in.tri), c);
    let r = texel_quat(in.tri, l, c / bake.size);
    return BakeTargets(pack_quat(r.q), vec2<u32>(in.tri, flags_for(r.h, FLAG_COVERED)), 1.0);
}

@vertex
fn vs_fringe(@builtin(vertex_index) vi: u32) -> BakeVaryings {
    let t = vi / 6u;
    let p = triangle_points(t);
    // The bounding box grown by the radius and one texel more, so no texel centre within the
    // radius is lost to the rasteriser's edge rules; fs_fringe does the exact test.
    let grow = bake.fringe_radius + 1.0;
    let lo = min(min(p.p0, p.p1), p.p2) - vec2<f32>(grow);
    let hi = max(max(p.p0, p.p1), p.p2) + vec2<f32>(grow);
    var corners = array<vec2<f32>, 6>(
        lo, vec2<f32>(hi.x, lo.y), vec2<f32>(lo.x, hi.y),
        vec2<f32>(lo.x, hi.y), vec2<f32>(hi.x, lo.y), hi,
    );
    return bake_vertex(t, p, corners[vi % 6u]);
}

struct FringeTargets {
    @location(0) quat: vec4<u32>,
    @location(1) info: vec2<u32>,
    @location(2) count: f32,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn fs_fringe(in: BakeVaryings) -> FringeTargets {
    let c = in.clip.xy;
    let cl = closest_barycentric(triangle_points(in.tri), c);
    if cl.dist > bake.fringe_radius {
        discard;
    }
    let r = texel_quat(in.tri, cl.l, c / bake.size);
    return FringeTargets(
        pack_quat(r.q),
        vec2<u32>(in.tri, flags_for(r.h, FLAG_FRINGE)),
        0.0,
        cl.dist * 0.25,
    );
}
