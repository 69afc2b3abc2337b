// mesh.wgsl — the vertex stage for qtangent meshes (after the generated header and
// qtangent.wgsl).
//
// Vertex buffer (src/mesh/vertex.rs): position Float32x3 @ location 0, UV Float32x2 @ 1, the
// qtangent @ 2 in the format QTANGENT_FORMAT names, through the entry point of the type its vertex
// fetch gives (src/gpu/mesh.rs: vertex_entry_point). The vertex function decodes the quaternion
// into a tangent frame, moves it to world space and passes world n and t (t.w = handedness) to
// the fragment stage: the quaternion itself never leaves this stage.
//
// Readback mode (tests): with the override GRID_WIDTH > 0 every vertex becomes a point at pixel
// (vertex_index % GRID_WIDTH, vertex_index / GRID_WIDTH) of a GRID_WIDTH × GRID_HEIGHT target
// with clip w = 1, and fs_frame writes its world n and t there. The decode and the transform are
// the same code either way; with GRID_WIDTH = 0 (the default) the branch folds away.

override QTANGENT_FORMAT: u32 = FORMAT_SNORM16X4;
override GRID_WIDTH: u32 = 0u;
override GRID_HEIGHT: u32 = 1u;

// Bevy's rule: no vec3 in uniform structs; the normal matrix travels as a mat4x4.
struct MeshUniforms {
    // Object to world.
    model: mat4x4<f32>,
    // Inverse transpose of model's upper 3×3 (in the upper 3×3; the rest unused).
    normal_matrix: mat4x4<f32>,
    // World to clip.
    view_proj: mat4x4<f32>,
    // sign(det(model)): a mirroring model matrix flips the handedness of every frame.
    model_handedness: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

@group(0) @binding(0) var<uniform> mesh: MeshUniforms;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    // World-space unit normal.
    @location(1) normal: vec3<f32>,
    // World-space unit tangent; w = handedness (±1): bitangent = cross(normal, tangent.xyz) * w.
    @location(2) tangent: vec4<f32>,
    // World-space position (lighting: view and point-light vectors).
    @location(3) world: vec3<f32>,
    // Where a quaternion map is sampled: the UV, or a second UV set when the map has its own
    // layout (lit.wgsl: vs_position_uv2).
    @location(4) map_uv: vec2<f32>,
}

fn mesh_vertex(index: u32, position: vec3<f32>, uv: vec2<f32>, f: Frame) -> VertexOut {
    var out: VertexOut;
    let world = mesh.model * vec4<f32>(position, 1.0);
    if GRID_WIDTH > 0u {
        // max(…, 1): with GRID_WIDTH = 0 the branch is dead, but a constant divisor of 0 is
        // still a pipeline-creation error.
        let row = max(GRID_WIDTH, 1u);
        let x = f32(index % row);
        let y = f32(index / row);
        out.clip = vec4<f32>(
            (2.0 * x + 1.0) / f32(GRID_WIDTH) - 1.0,
            1.0 - (2.0 * y + 1.0) / f32(GRID_HEIGHT),
            0.5,
            1.0
        );
    } else {
        out.clip = mesh.view_proj * world;
    }
    out.uv = uv;
    out.map_uv = uv;
    out.world = world.xyz;
    out.normal = normalize((mesh.normal_matrix * vec4<f32>(f.n, 0.0)).xyz);
    out.tangent = vec4<f32>(
        normalize((mesh.model * vec4<f32>(f.t, 0.0)).xyz),
        f.handedness * mesh.model_handedness
    );
    return out;
}

// f32x4, f16x4 and snorm16x4 arrive as vec4<f32> (Float32x4, Float16x4, Snorm16x4: the
// fixed-function fetch does the unpacking, giving the same values as unpack2x16float /
// unpack2x16snorm); w carries the sign.
@vertex
fn vs_vec4f(
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) q: vec4<f32>,
) -> VertexOut {
    return mesh_vertex(index, position, uv, qtangent_frame_vec4f(QTANGENT_FORMAT, q));
}

// The 6-byte formats as Uint32x2: 6 bytes and 2 of padding.
@vertex
fn vs_vec2u(
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) q: vec2<u32>,
) -> VertexOut {
    return mesh_vertex(index, position, uv, qtangent_frame_vec2u(QTANGENT_FORMAT, q));
}

// The 4-byte format as Uint32.
@vertex
fn vs_u32(
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) q: u32,
) -> VertexOut {
    return mesh_vertex(index, position, uv, qtangent_frame_u32(QTANGENT_FORMAT, q));
}

struct FrameTargets {
    @location(0) normal: vec4<f32>,
    @location(1) tangent: vec4<f32>,
}

// Readback: the world frame as it reaches the fragment stage, into two Rgba32Float targets.
@fragment
fn fs_frame(in: VertexOut) -> FrameTargets {
    return FrameTargets(vec4<f32>(in.normal, 0.0), in.tangent);
}
