// qtangent_pbr.wgsl — Bevy's forward PBR with qtangent frames (bevy_qtangent's material).
//
// Vertex: the `_QTANGENT` attribute (location 8, in the format's own bytes) decoded by qtangent's
// WGSL (`qtangent::frames`, the crate's shaders/qtangent.wgsl) into Bevy's world normal and
// tangent, through Bevy's skinning for skinned meshes; meshes with NORMAL/TANGENT instead pass
// them through as Bevy's own vertex shader does.
// Fragment: Bevy's StandardMaterial input; where the material has a tangent-space quaternion map,
// the interpolated vertex frame turned by the map's rotation (`qtangent::qmap`, the crate's
// shaders/qmap.wgsl: seam-robust sampling, the axial twist halved) in place of normal mapping,
// with the map's tangent as the anisotropy direction; then Bevy's lighting.

#import bevy_pbr::{
    mesh_functions,
    forward_io::{VertexOutput, FragmentOutput},
    view_transformations::position_world_to_clip,
    pbr_fragment::pbr_input_from_standard_material,
    pbr_functions::{alpha_discard, apply_pbr_lighting, main_pass_post_lighting_processing},
    pbr_bindings,
    pbr_types,
}
#ifdef SKINNED
#import bevy_pbr::skinning
#endif
#ifdef QTANGENT_FORMAT
#import qtangent::frames::{qtangent_frame_vec4f, qtangent_frame_vec2u, qtangent_frame_u32}
#endif
#ifdef QTANGENT_MAP
#import qtangent::qmap::{qmap_quat, qmap_halve_twist, qmap_apply_tangent}
#endif

struct Vertex {
    @builtin(instance_index) instance_index: u32,
    @location(0) position: vec3<f32>,
#ifndef QTANGENT_FORMAT
#ifdef VERTEX_NORMALS
    @location(1) normal: vec3<f32>,
#endif
#ifdef VERTEX_TANGENTS
    @location(4) tangent: vec4<f32>,
#endif
#endif
#ifdef VERTEX_UVS_A
    @location(2) uv: vec2<f32>,
#endif
#ifdef VERTEX_UVS_B
    @location(3) uv_b: vec2<f32>,
#endif
#ifdef VERTEX_COLORS
    @location(5) color: vec4<f32>,
#endif
#ifdef SKINNED
    @location(6) joint_indices: vec4<u32>,
    @location(7) joint_weights: vec4<f32>,
#endif
#ifdef QTANGENT_FETCH_VEC4F
    @location(8) qtangent: vec4<f32>,
#else ifdef QTANGENT_FETCH_VEC2U
    @location(8) qtangent: vec2<u32>,
#else ifdef QTANGENT_FETCH_U32
    @location(8) qtangent: u32,
#endif
}

@vertex
fn vertex(v: Vertex) -> VertexOutput {
    var out: VertexOutput;
    let mesh_world_from_local = mesh_functions::get_world_from_local(v.instance_index);
#ifdef SKINNED
    let world_from_local = skinning::skin_model(v.joint_indices, v.joint_weights, v.instance_index);
#else
    let world_from_local = mesh_world_from_local;
#endif

#ifdef QTANGENT_FORMAT
    // The frame in the mesh's space: normal = column 2 and tangent = column 0 of the rotation,
    // the handedness as Bevy's tangent w.
#ifdef QTANGENT_FETCH_VEC4F
    let f = qtangent_frame_vec4f(#{QTANGENT_FORMAT}u, v.qtangent);
#else ifdef QTANGENT_FETCH_VEC2U
    let f = qtangent_frame_vec2u(#{QTANGENT_FORMAT}u, v.qtangent);
#else ifdef QTANGENT_FETCH_U32
    let f = qtangent_frame_u32(#{QTANGENT_FORMAT}u, v.qtangent);
#endif
    let local_normal = f.n;
    let local_tangent = vec4<f32>(f.t, f.handedness);
#else
#ifdef VERTEX_NORMALS
    let local_normal = v.normal;
#else
    let local_normal = vec3<f32>(0.0, 0.0, 1.0);
#endif
#ifdef VERTEX_TANGENTS
    let local_tangent = v.tangent;
#else
    let local_tangent = vec4<f32>(1.0, 0.0, 0.0, 1.0);
#endif
#endif

#ifdef SKINNED
    out.world_normal = skinning::skin_normals(world_from_local, local_normal);
#else
    out.world_normal = mesh_functions::mesh_normal_local_to_world(local_normal, v.instance_index);
#endif
#ifdef VERTEX_TANGENTS
    out.world_tangent = mesh_functions::mesh_tangent_local_to_world(
        world_from_local, local_tangent, v.instance_index);
#endif
    out.world_position = mesh_functions::mesh_position_local_to_world(
        world_from_local, vec4<f32>(v.position, 1.0));
    out.position = position_world_to_clip(out.world_position.xyz);
#ifdef VERTEX_UVS_A
    out.uv = v.uv;
#endif
#ifdef VERTEX_UVS_B
    out.uv_b = v.uv_b;
#endif
#ifdef VERTEX_COLORS
    out.color = v.color;
#endif
#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = v.instance_index;
#endif
#ifdef VISIBILITY_RANGE_DITHER
    out.visibility_range_dither = mesh_functions::get_visibility_range_dither_level(
        v.instance_index, mesh_world_from_local[3]);
#endif
    return out;
}

#ifdef QTANGENT_MAP
@group(#{MATERIAL_BIND_GROUP}) @binding(100) var qt_map: texture_2d<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(101) var qt_sampler: sampler;
@group(#{MATERIAL_BIND_GROUP}) @binding(102) var qt_twist: texture_2d<f32>;
#endif

// t made perpendicular to unit n and unit length (n itself turned a quarter when t is parallel).
fn perpendicular_tangent(n: vec3<f32>, t: vec3<f32>) -> vec3<f32> {
    let p = t - n * dot(n, t);
    let len2 = dot(p, p);
    if len2 < 1e-12 {
        let a = select(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), abs(n.x) > 0.9);
        return normalize(cross(n, a));
    }
    return p * inverseSqrt(len2);
}

@fragment
fn fragment(in: VertexOutput, @builtin(front_facing) is_front: bool) -> FragmentOutput {
    var pbr_input = pbr_input_from_standard_material(in, is_front);
    pbr_input.material.base_color = alpha_discard(pbr_input.material, pbr_input.material.base_color);
    let double_sided = (pbr_input.material.flags & pbr_types::STANDARD_MATERIAL_FLAGS_DOUBLE_SIDED_BIT) != 0u;
#ifdef VERTEX_TANGENTS
    var tangent = perpendicular_tangent(normalize(pbr_input.N), in.world_tangent.xyz);
#else
    var tangent = perpendicular_tangent(normalize(pbr_input.N), vec3<f32>(1.0, 0.0, 0.0));
#endif

#ifdef QTANGENT_MAP
#ifdef QTANGENT_MAP_UV_B
    let map_uv = (pbr_bindings::material.uv_transform * vec3<f32>(in.uv_b, 1.0)).xy;
#else
    let map_uv = (pbr_bindings::material.uv_transform * vec3<f32>(in.uv, 1.0)).xy;
#endif
    // Sampled in uniform control flow (its level of detail comes from derivatives).
    var r = qmap_quat(qt_map, qt_twist, qt_sampler, map_uv, true);
#ifdef QTANGENT_MAP_AXIAL
    r = qmap_halve_twist(r);
#endif
    // The interpolated vertex frame, orthonormalised, turned by the map (what qtangent's own
    // renderer does: shaders/lit.wgsl, FRAME_SOURCE_TANGENT_MAP).
    let n0 = normalize(in.world_normal);
    let t0 = perpendicular_tangent(n0, in.world_tangent.xyz);
    let h = select(-1.0, 1.0, in.world_tangent.w >= 0.0);
    let frame = qmap_apply_tangent(n0, t0, h, r);
    let n_front = normalize(frame.n);
    tangent = perpendicular_tangent(n_front, frame.t);
    var n = n_front;
    if double_sided && !is_front {
        n = -n;
    }
    pbr_input.N = n;
#ifdef STANDARD_MATERIAL_ANISOTROPY
    // The map's tangent is the anisotropy direction. With a direction texture, pack baked the
    // texture (turned by the material's rotation) into the map: d = (1, 0); without one, the
    // rotation turns the map's tangent (qtangent's shaders/lit.wgsl, shade_fragment). Back faces
    // use the front face's bitangent. The strength is Bevy's (times the texture's blue).
    let bitangent = cross(n_front, tangent) * h;
    var d = pbr_bindings::material.anisotropy_rotation;
    if (pbr_input.material.flags & pbr_types::STANDARD_MATERIAL_FLAGS_ANISOTROPY_TEXTURE_BIT) != 0u {
        d = vec2<f32>(1.0, 0.0);
    }
    let anisotropy_t = normalize(tangent * d.x + bitangent * d.y);
    pbr_input.anisotropy_T = anisotropy_t;
    pbr_input.anisotropy_B = normalize(cross(n, anisotropy_t));
#endif
#else
#ifdef QTANGENT_FORMAT
#ifndef STANDARD_MATERIAL_NORMAL_MAP
    // Bevy turns a double-sided back face's normal only for meshes without tangents (or in its
    // normal mapping); the decoded frame always has one.
    if double_sided && !is_front {
        pbr_input.N = -pbr_input.N;
        pbr_input.world_normal = -pbr_input.world_normal;
    }
#endif
#endif
#endif

    var out: FragmentOutput;
#ifdef QTANGENT_DEBUG_NORMAL
    out.color = vec4<f32>(0.5 + 0.5 * normalize(pbr_input.N), 1.0);
#else ifdef QTANGENT_DEBUG_TANGENT
    out.color = vec4<f32>(0.5 + 0.5 * tangent, 1.0);
#else ifdef QTANGENT_DEBUG_BITANGENT
    // The bitangent with the frame's handedness: cross(n, t) · h (Bevy's B = w · cross(N, T)).
#ifdef VERTEX_TANGENTS
    let handedness = select(-1.0, 1.0, in.world_tangent.w >= 0.0);
#else
    let handedness = 1.0;
#endif
    out.color = vec4<f32>(0.5 + 0.5 * cross(normalize(pbr_input.N), tangent) * handedness, 1.0);
#else
    // As Bevy's pbr.wgsl: unlit materials (KHR_materials_unlit) keep their base colour.
    if (pbr_input.material.flags & pbr_types::STANDARD_MATERIAL_FLAGS_UNLIT_BIT) == 0u {
        out.color = apply_pbr_lighting(pbr_input);
    } else {
        out.color = pbr_input.material.base_color;
    }
    out.color = main_pass_post_lighting_processing(pbr_input, out.color);
#endif
    return out;
}
