// lit.wgsl — lighting for the demo scenes (src/gpu/render/), compiled after qtangent.wgsl,
// mesh.wgsl (vertex functions, MeshUniforms at group 0) and qmap.wgsl (qmap_frame).
//
// The shading frame of a pixel comes from one of three sources (src/render/mod.rs:
// FrameSource), chosen per pipeline:
//  (a) reference: f32 normal + tangent vertex attributes (vs_reference), interpolated, and the
//      normal map;
//  (b) qtangent: the quaternion vertex attribute decoded by mesh.wgsl's vs_vec4f / vs_vec2u /
//      vs_u32, interpolated, and the normal map;
//  (c) quaternion map: position and UV only (vs_position_uv; vs_position_uv2 adds the map's
//      own UV set where the mesh's UVs overlap); the frame is sampled per pixel (qmap_frame),
//      the normal map already baked into it.
//  (d) tangent-space quaternion map: the qtangent vertex frame (vs_vec4f, Snorm16x4), interpolated,
//      turned per pixel by the map's rotation (qmap_apply_tangent) sampled at the mesh's own UVs
//      with repeat addressing; no normal map is read (it is baked into the map).
// (a) and (b) run the same fragment code (FRAME_SOURCE_VERTEX); (c) is FRAME_SOURCE_OBJECT_MAP,
// (d) FRAME_SOURCE_TANGENT_MAP (codes generated from src/render/mod.rs: PixelFrame).
//
// The BRDF is mirrored in f32 by src/lab/shading.rs, which the tests compare with.

// Interpolated vertex frame + normal map, object-space quaternion map, or vertex frame ⊗
// tangent-space quaternion map.
override FRAME_SOURCE: u32 = FRAME_SOURCE_VERTEX;
// Object-space maps: false, handedness from the map's plane; true, derived from the UV winding
// (derived_handedness).
override MAP_DERIVED_HANDEDNESS: bool = false;
// Tangent-space maps: true when the map's twist is stored doubled (axial: an anisotropy
// direction, d ≡ −d); qmap_halve_twist recovers the rotation.
override MAP_AXIAL: bool = false;

const PI: f32 = 3.141592653589793;
// Smallest perceptual roughness used (α⁴ stays representable in the GGX denominator).
const MIN_ROUGHNESS: f32 = 0.045;
// Smallest n·v used (the visibility term divides by it at grazing angles).
const MIN_N_DOT_V: f32 = 1e-4;
const MAX_LIGHTS: u32 = 4u;

struct Light {
    // w = 0: unit direction towards the light; w = 1: world position (inverse-square falloff).
    position: vec4<f32>,
    // Linear RGB colour × intensity.
    color: vec4<f32>,
}

struct SceneUniforms {
    camera_position: vec4<f32>,
    sky: vec4<f32>,
    ground: vec4<f32>,
    exposure: f32,
    light_count: u32,
    // >= 0 replaces every material's anisotropy strength.
    anisotropy_override: f32,
    _pad: f32,
    lights: array<Light, MAX_LIGHTS>,
}

struct MaterialUniforms {
    base_color: vec4<f32>,
    metallic: f32,
    roughness: f32,
    normal_scale: f32,
    anisotropy: f32,
    has_normal_map: f32,
    alpha_cutoff: f32,
    // (cos θ, sin θ) of anisotropyRotation.
    anisotropy_rotation: vec2<f32>,
    has_anisotropy_texture: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

@group(1) @binding(0) var<uniform> scene: SceneUniforms;

@group(2) @binding(0) var<uniform> material: MaterialUniforms;
@group(2) @binding(1) var base_color_tex: texture_2d<f32>;
@group(2) @binding(2) var metal_rough_tex: texture_2d<f32>;
@group(2) @binding(3) var normal_tex: texture_2d<f32>;
@group(2) @binding(4) var material_sampler: sampler;
// KHR_materials_anisotropy: RG the direction (rg · 2 − 1 in tangent space), B the strength.
@group(2) @binding(5) var anisotropy_tex: texture_2d<f32>;

@group(3) @binding(0) var map_quats: texture_2d<f32>;
@group(3) @binding(1) var map_handedness: texture_2d<f32>;
@group(3) @binding(2) var map_sampler: sampler;

// ---- Vertex functions for (a) and (c); (b) uses mesh.wgsl's. ----

@vertex
fn vs_reference(
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) normal: vec3<f32>,
    @location(3) tangent: vec4<f32>,
) -> VertexOut {
    let f = Frame(normal, tangent.xyz, cross(normal, tangent.xyz) * tangent.w, tangent.w);
    return mesh_vertex(index, position, uv, f);
}

fn position_uv_vertex(index: u32, position: vec3<f32>, uv: vec2<f32>) -> VertexOut {
    // No frame travels: the fragment stage samples it. A fixed one keeps mesh_vertex shared.
    let f = Frame(vec3<f32>(0.0, 0.0, 1.0), vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), 1.0);
    return mesh_vertex(index, position, uv, f);
}

@vertex
fn vs_position_uv(
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
) -> VertexOut {
    return position_uv_vertex(index, position, uv);
}

// (c) for a mesh whose map has its own UV layout (src/qmap/atlas.rs: the mesh's UVs overlap).
@vertex
fn vs_position_uv2(
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) map_uv: vec2<f32>,
) -> VertexOut {
    var out = position_uv_vertex(index, position, uv);
    out.map_uv = map_uv;
    return out;
}

// ---- The shading frame. ----

// A unit vector perpendicular to unit n (for a tangent that vanished).
fn perpendicular(n: vec3<f32>) -> vec3<f32> {
    let a = select(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), abs(n.x) > 0.9);
    return normalize(cross(a, n));
}

// t made perpendicular to unit n and unit (Gram–Schmidt); shading.rs: orthonormal_tangent.
fn orthonormal_tangent(n: vec3<f32>, t: vec3<f32>) -> vec3<f32> {
    let p = t - n * dot(n, t);
    let len2 = dot(p, p);
    if len2 < 1e-12 {
        return perpendicular(n);
    }
    return p * inverseSqrt(len2);
}

// The normal map's perturbation of the interpolated frame (n unit, t unit and ⟂ n, h = ±1);
// m is the sampled texel (0..1 per channel). shading.rs: normal_mapped.
fn normal_mapped(n: vec3<f32>, t: vec3<f32>, h: f32, m: vec3<f32>, scale: f32) -> vec3<f32> {
    let v = m * 2.0 - 1.0;
    let b = cross(n, t) * h;
    return normalize(t * (v.x * scale) + b * (v.y * scale) + n * v.z);
}

// The handedness of the surface at a pixel from the winding of its UVs, as the bake's frames
// have it (src/qmap/texel.rs: winding_handedness): h = −sign(UV area of the triangle in vertex
// order), so an object-space map needs no handedness plane when its frames follow the UV
// winding (MikkTSpace's do). The triangle's UV area over its screen area is the sign of the UV
// Jacobian det ∂uv/∂(x, y) (window coordinates, y down); its screen area in vertex order is
// negative for front faces there (front faces wind counter-clockwise with y up), positive for
// back faces. Mirroring model matrices turn object-space handedness into world-space the same
// way the plane's is. Fragment stage only (derivatives), in uniform control flow.
fn derived_handedness(uv: vec2<f32>, front: bool) -> f32 {
    let ux = dpdx(uv);
    let uy = dpdy(uv);
    let jacobian = ux.x * uy.y - ux.y * uy.x;
    let screen_area = select(1.0, -1.0, front);
    let uv_area = jacobian * screen_area;
    return select(-1.0, 1.0, uv_area <= 0.0) * mesh.model_handedness;
}

// World-space shading frame: n (unit), t (unit, ⟂ n), b = cross(n, t) * h.
fn shading_frame(in: VertexOut, front: bool) -> Frame {
    var n: vec3<f32>;
    var t: vec3<f32>;
    var h: f32;
    if FRAME_SOURCE == FRAME_SOURCE_OBJECT_MAP {
        // Object-space frame from the map, moved to world space like mesh_vertex does.
        let f = qmap_frame(map_quats, map_handedness, map_sampler, in.map_uv);
        n = normalize((mesh.normal_matrix * vec4<f32>(f.n, 0.0)).xyz);
        t = orthonormal_tangent(n, normalize((mesh.model * vec4<f32>(f.t, 0.0)).xyz));
        h = f.handedness * mesh.model_handedness;
        // Derivatives in uniform control flow (FRAME_SOURCE and MAP_DERIVED_HANDEDNESS are
        // overrides).
        let derived = derived_handedness(in.map_uv, front);
        if MAP_DERIVED_HANDEDNESS {
            h = derived;
        }
    } else if FRAME_SOURCE == FRAME_SOURCE_TANGENT_MAP {
        // The vertex frame turned by the tangent-space map's rotation, at the mesh's UVs.
        var r = qmap_quat(map_quats, map_handedness, map_sampler, in.uv, true);
        if MAP_AXIAL {
            r = qmap_halve_twist(r);
        }
        let n0 = normalize(in.normal);
        let t0 = orthonormal_tangent(n0, in.tangent.xyz);
        h = select(-1.0, 1.0, in.tangent.w >= 0.0);
        let f = qmap_apply_tangent(n0, t0, h, r);
        n = normalize(f.n);
        t = orthonormal_tangent(n, f.t);
    } else {
        n = normalize(in.normal);
        t = orthonormal_tangent(n, in.tangent.xyz);
        h = select(-1.0, 1.0, in.tangent.w >= 0.0);
        if material.has_normal_map > 0.5 {
            var m = textureSample(normal_tex, material_sampler, in.uv).xyz;
            if material.has_normal_map > 1.5 {
                // A two-channel (BC5) normal map: z rebuilt from the filtered (x, y), as engines
                // sampling BC5 do (src/render/mod.rs: NORMAL_MAP_TWO_CHANNEL).
                let xy = m.xy * 2.0 - 1.0;
                m.z = sqrt(max(0.0, 1.0 - dot(xy, xy))) * 0.5 + 0.5;
            }
            n = normal_mapped(n, t, h, m, material.normal_scale);
            t = orthonormal_tangent(n, t);
        }
    }
    if !front {
        // Double-sided: the back of a surface shades with the flipped normal.
        n = -n;
    }
    return Frame(n, t, cross(n, t) * h, h);
}

// ---- The BRDF (shading.rs mirrors each function). ----

struct Surface {
    position: vec3<f32>,
    normal: vec3<f32>,
    tangent: vec3<f32>,
    base_color: vec3<f32>,
    metallic: f32,
    roughness: f32,
    anisotropy: f32,
}

fn pow5(x: f32) -> f32 {
    let x2 = x * x;
    return x2 * x2 * x;
}

fn d_ggx_aniso(nh: f32, th: f32, bh: f32, at: f32, ab: f32) -> f32 {
    let a2 = at * ab;
    let v = vec3<f32>(ab * th, at * bh, a2 * nh);
    let v2 = dot(v, v);
    let w2 = a2 / v2;
    return a2 * w2 * w2 * (1.0 / PI);
}

fn v_smith_aniso(at: f32, ab: f32, tv: f32, bv: f32, tl: f32, bl: f32, nv: f32, nl: f32) -> f32 {
    let lambda_v = nl * length(vec3<f32>(at * tv, ab * bv, nv));
    let lambda_l = nv * length(vec3<f32>(at * tl, ab * bl, nl));
    return 0.5 / (lambda_v + lambda_l);
}

fn brdf_light(s: Surface, v: vec3<f32>, l: vec3<f32>, light: vec3<f32>) -> vec3<f32> {
    let nl = dot(s.normal, l);
    if nl <= 0.0 {
        return vec3<f32>(0.0);
    }
    let nv = max(dot(s.normal, v), MIN_N_DOT_V);
    let h = normalize(v + l);
    let nh = max(dot(s.normal, h), 0.0);
    let vh = max(dot(v, h), 0.0);
    let b = cross(s.normal, s.tangent);
    let r = clamp(s.roughness, MIN_ROUGHNESS, 1.0);
    let alpha = r * r;
    let at = alpha + (1.0 - alpha) * (s.anisotropy * s.anisotropy);
    let ab = alpha;
    let d = d_ggx_aniso(nh, dot(s.tangent, h), dot(b, h), at, ab);
    let vis = v_smith_aniso(at, ab, dot(s.tangent, v), dot(b, v), dot(s.tangent, l), dot(b, l), nv, nl);
    let f0 = vec3<f32>(0.04) + (s.base_color - vec3<f32>(0.04)) * s.metallic;
    let f = f0 + (vec3<f32>(1.0) - f0) * pow5(1.0 - vh);
    let c_diff = s.base_color * (1.0 - s.metallic);
    let diffuse = (vec3<f32>(1.0) - f) * c_diff * (1.0 / PI);
    let specular = f * (d * vis);
    return (diffuse + specular) * light * nl;
}

fn hemisphere(d: vec3<f32>) -> vec3<f32> {
    let k = 0.5 + 0.5 * d.y;
    return scene.ground.xyz + (scene.sky.xyz - scene.ground.xyz) * k;
}

// Karis' analytic environment BRDF: (scale, bias) for f0 * scale + bias.
fn env_brdf(roughness: f32, nv: f32) -> vec2<f32> {
    let c0 = vec4<f32>(-1.0, -0.0275, -0.572, 0.022);
    let c1 = vec4<f32>(1.0, 0.0425, 1.04, -0.04);
    let r = roughness * c0 + c1;
    let a004 = min(r.x * r.x, exp2(-9.28 * nv)) * r.x + r.y;
    return vec2<f32>(-1.04 * a004 + r.z, 1.04 * a004 + r.w);
}

fn shade(s: Surface) -> vec3<f32> {
    let v = normalize(scene.camera_position.xyz - s.position);
    var color = vec3<f32>(0.0);
    for (var i = 0u; i < min(scene.light_count, MAX_LIGHTS); i++) {
        let light = scene.lights[i];
        var l: vec3<f32>;
        var radiance: vec3<f32>;
        if light.position.w == 0.0 {
            l = light.position.xyz;
            radiance = light.color.xyz;
        } else {
            let d = light.position.xyz - s.position;
            let dist2 = dot(d, d);
            l = d * (1.0 / sqrt(dist2));
            radiance = light.color.xyz * (1.0 / max(dist2, 1e-4));
        }
        color += brdf_light(s, v, l, radiance);
    }
    let nv = max(dot(s.normal, v), MIN_N_DOT_V);
    let r = s.normal * (2.0 * dot(s.normal, v)) - v;
    let f0 = vec3<f32>(0.04) + (s.base_color - vec3<f32>(0.04)) * s.metallic;
    let c_diff = s.base_color * (1.0 - s.metallic);
    let env = env_brdf(clamp(s.roughness, MIN_ROUGHNESS, 1.0), nv);
    color += c_diff * hemisphere(s.normal) + hemisphere(r) * (f0 * env.x + vec3<f32>(env.y));
    return color;
}

// Narkowicz's ACES fit, clamped; the sRGB target encodes the result.
fn tonemap(radiance: vec3<f32>, exposure: f32) -> vec3<f32> {
    let x = radiance * exposure;
    let num = x * (x * 2.51 + vec3<f32>(0.03));
    let den = x * (x * 2.43 + vec3<f32>(0.59)) + vec3<f32>(0.14);
    return clamp(num / den, vec3<f32>(0.0), vec3<f32>(1.0));
}

struct Shaded {
    radiance: vec3<f32>,
    alpha: f32,
    frame: Frame,
    // The direction the anisotropic lobe is stretched along (unit, ⟂ n).
    anisotropy_tangent: vec3<f32>,
    anisotropy: f32,
}

// KHR_materials_anisotropy's direction in tangent space (x tangent, y bitangent): the texel's
// normalize(rg · 2 − 1) — (1, 0) where it is (nearly) zero, which the spec leaves undefined —
// turned by rotation = (cos θ, sin θ). src/qmap/anisotropy.rs: direction_of.
fn anisotropy_direction(texel: vec3<f32>, rotation: vec2<f32>) -> vec2<f32> {
    var d = texel.xy * 2.0 - vec2<f32>(1.0);
    let len2 = dot(d, d);
    if len2 < 1e-8 {
        d = vec2<f32>(1.0, 0.0);
    } else {
        d = d * (1.0 / sqrt(len2));
    }
    return vec2<f32>(rotation.x * d.x - rotation.y * d.y, rotation.y * d.x + rotation.x * d.y);
}

// The world-space anisotropy direction from the shading frame f and a tangent-space direction d.
// Back faces use the front face's bitangent (f.b was flipped with n): the Khronos sample viewer
// negates t and b together there, the same groove.
fn anisotropy_tangent(f: Frame, front: bool, d: vec2<f32>) -> vec3<f32> {
    let b = select(-f.b, f.b, front);
    return normalize(f.t * d.x + b * d.y);
}

fn shade_fragment(in: VertexOut, front: bool) -> Shaded {
    let f = shading_frame(in, front);
    let base = material.base_color * textureSample(base_color_tex, material_sampler, in.uv);
    let mr = textureSample(metal_rough_tex, material_sampler, in.uv);
    let at = textureSample(anisotropy_tex, material_sampler, in.uv).rgb;
    // The strength: anisotropyStrength (or the override) times the texture's B.
    var strength = select(material.anisotropy, scene.anisotropy_override, scene.anisotropy_override >= 0.0);
    // The direction: the rotation alone without a texture; with one, the texture turned by it —
    // except in the quaternion-map sources, whose maps were baked with it (the map's tangent is
    // the direction).
    var d = material.anisotropy_rotation;
    if material.has_anisotropy_texture > 0.5 {
        strength *= at.b;
        if FRAME_SOURCE == FRAME_SOURCE_VERTEX {
            d = anisotropy_direction(at, material.anisotropy_rotation);
        } else {
            d = vec2<f32>(1.0, 0.0);
        }
    }
    var s: Surface;
    s.position = in.world;
    s.normal = f.n;
    s.tangent = anisotropy_tangent(f, front, d);
    s.base_color = base.rgb;
    s.metallic = material.metallic * mr.b;
    s.roughness = material.roughness * mr.g;
    s.anisotropy = clamp(strength, 0.0, 1.0);
    return Shaded(shade(s), base.a, f, s.tangent, s.anisotropy);
}

// The picture: tone-mapped radiance into an sRGB target.
@fragment
fn fs_lit(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let s = shade_fragment(in, front);
    if s.alpha < material.alpha_cutoff {
        discard;
    }
    return vec4<f32>(tonemap(s.radiance, scene.exposure), 1.0);
}

// Tests: the shading frame into two Rgba32Float targets: (n, handedness), (t, strength) where t is
// the anisotropy direction (the frame's tangent turned by the material's direction) and strength
// the anisotropy strength.
struct DebugFrame {
    @location(0) normal: vec4<f32>,
    @location(1) tangent: vec4<f32>,
}

@fragment
fn fs_debug_frame(in: VertexOut, @builtin(front_facing) front: bool) -> DebugFrame {
    let s = shade_fragment(in, front);
    return DebugFrame(vec4<f32>(s.frame.n, s.frame.handedness), vec4<f32>(s.anisotropy_tangent, s.anisotropy));
}

// Tests: linear radiance before tone mapping, and the world position it was shaded at.
struct DebugShading {
    @location(0) radiance: vec4<f32>,
    @location(1) world: vec4<f32>,
}

@fragment
fn fs_debug_shading(in: VertexOut, @builtin(front_facing) front: bool) -> DebugShading {
    let s = shade_fragment(in, front);
    return DebugShading(vec4<f32>(s.radiance, 1.0), vec4<f32>(in.world, 1.0));
}
