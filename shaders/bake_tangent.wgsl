// Tangent-space quaternion-map bake (src/gpu/bake_tangent.rs; CPU reference
// src/qmap/tangent.rs: texel_rotation, mirrored operation for operation). One invocation per
// texel of one level: the normal-map vector (as unpacked, 2c − 1 with xy × scale) and the twist
// angle φ come in as (x, y, z, φ); out goes the rotation arc(Z → normalize(m)) ⊗ rot_z(φ),
// normalised with w ≥ 0, packed in the map's format as MapFormat::pack writes it.
// Uses qtangent.wgsl's quat_mul and bake.wgsl's arc_from_z and pack_quat (MAP_FORMAT override),
// compiled before it.

struct TangentParams {
    count: u32,
    // Invocations per dispatch row (groups.x · workgroup size): index = id.y · row + id.x.
    row: u32,
    _pad: vec2<u32>,
}

@group(0) @binding(0) var<uniform> tparams: TangentParams;
@group(0) @binding(1) var<storage, read> tinput: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> toutput: array<vec4<u32>>;

fn texel_rotation(m: vec3<f32>, phi: f32) -> vec4<f32> {
    let mm = dot(m, m);
    var r = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    if mm > 1e-12 {
        r = arc_from_z(m / sqrt(mm));
    }
    if phi != 0.0 {
        let h = 0.5 * phi;
        r = quat_mul(r, vec4<f32>(0.0, 0.0, sin(h), cos(h)));
    }
    r = r / sqrt(dot(r, r));
    if r.w < 0.0 {
        r = -r;
    }
    return r;
}

const TANGENT_WORKGROUP: u32 = 64u;

@compute @workgroup_size(TANGENT_WORKGROUP)
fn bake_tangent(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.y * tparams.row + id.x;
    if i >= tparams.count {
        return;
    }
    let v = tinput[i];
    toutput[i] = pack_quat(texel_rotation(v.xyz, v.w));
}
