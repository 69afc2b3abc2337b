//! The lab's checks of a GPU stage against the CPU pass what matches and fail what a kernel left
//! unwritten or NaN: `skin_reference::skinning_error` and `readback::frames_diff` (the comparison
//! behind `vertex_stage_diff`), on outputs made here rather than read back.

use glam::{Mat4, Quat, Vec3, Vec4};
use qtangent::gpu::MeshUniforms;
use qtangent::lab::readback::{frames_diff, VertexFrames};
use qtangent::lab::shapes;
use qtangent::lab::skin_reference::skinning_error;
use qtangent::skin::{Bone, SkinMethod, SkinVertices, SkinnedVertex};
use qtangent::{Format, TangentFrame};

/// Two vertices, one of them mirrored, each bound to joint 0 alone.
fn two_vertices() -> SkinVertices {
    let frame = |normal: Vec3, tangent: Vec3, bitangent: Vec3| {
        TangentFrame {
            normal,
            tangent,
            bitangent,
        }
        .to_qtangent()
    };
    // The second is mirrored: its bitangent is −(n × t).
    let frames = [
        frame(Vec3::Z, Vec3::X, Vec3::Y),
        frame(Vec3::Y, Vec3::X, Vec3::Z),
    ];
    let positions = [Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)];
    let joints = vec![vec![[0u16; 4]; 2]];
    let weights = vec![vec![[1.0f32, 0.0, 0.0, 0.0]; 2]];
    SkinVertices::new("two vertices", &positions, &frames, &joints, &weights, 1)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// What a kernel writes for `mesh` under the identity pose: the rest positions and the rest
/// frames packed as snorm16.
fn identity_output(mesh: &SkinVertices) -> Vec<SkinnedVertex> {
    (0..2)
        .map(|v| {
            let mut bytes = Vec::new();
            Format::Snorm16x4.encode_into(&mesh.qtangent(v), &mut bytes);
            SkinnedVertex {
                position: mesh.position(v).to_array(),
                qtangent: bytemuck::pod_read_unaligned(&bytes),
            }
        })
        .collect()
}

#[test]
fn skinning_error_passes_a_match_and_propagates_nan() {
    let mesh = two_vertices();
    let bones = [Bone::IDENTITY];
    let good = identity_output(&mesh);
    for method in [SkinMethod::Linear, SkinMethod::DualQuaternion] {
        let e = skinning_error(method, &bones, &mesh, &good).expect("the blend has a rotation");
        // An exact position, and the frame within the snorm16 encoder's own bound.
        assert_eq!(e.position, 0.0, "{method:?}");
        assert!(e.frame_deg <= e.frame_bound_deg, "{method:?}: {e:?}");
        // A NaN position in either vertex makes the error NaN, which fails any bound.
        for v in 0..2 {
            let mut bad = good.clone();
            bad[v].position[1] = f32::NAN;
            let e = skinning_error(method, &bones, &mesh, &bad).expect("rotation");
            assert!(e.position.is_nan(), "{method:?} vertex {v}: {e:?}");
        }
        // A vertex the kernel never wrote (the 0xff poison: −1 in every snorm16 word) decodes
        // to a 120° turn about (1, 1, 1), unrelated to the frame: far outside the bound.
        let mut poisoned = good.clone();
        poisoned[1].qtangent = [-1; 4];
        let e = skinning_error(method, &bones, &mesh, &poisoned).expect("rotation");
        assert!(e.frame_deg > 10.0, "{method:?}: {e:?}");
    }
    // A palette that turns the mesh: the reference follows it.
    let turn = [Bone::new(Quat::from_rotation_z(0.5), Vec3::ZERO, 1.0)];
    let e = skinning_error(SkinMethod::Linear, &turn, &mesh, &good).expect("rotation");
    assert!(e.position > 0.1 && e.frame_deg > 20.0, "{e:?}");
}

#[test]
fn the_vertex_stage_comparison_propagates_nan() {
    let p = shapes::cube().prepare().unwrap_or_else(|e| panic!("{e}"));
    let stream = p.vertex_stream(Format::Snorm16x4);
    let uniforms = MeshUniforms::new(Mat4::from_rotation_y(0.5), Mat4::IDENTITY);
    let (normals, tangents): (Vec<Vec3>, Vec<Vec4>) = (0..stream.vertex_count)
        .map(|i| uniforms.world_frame(&stream.qtangent(i).to_frame()))
        .unzip();
    let exact = VertexFrames { normals, tangents };
    assert_eq!(frames_diff(&exact, &stream, &uniforms), 0.0);
    // A NaN in any component of either vector, of the first or the last vertex.
    let last = stream.vertex_count - 1;
    for (v, c) in [(0, 0), (0, 2), (last, 1)] {
        let mut n = exact.clone();
        n.normals[v][c] = f32::NAN;
        assert!(
            frames_diff(&n, &stream, &uniforms).is_nan(),
            "normal {v}.{c}"
        );
        let mut t = exact.clone();
        t.tangents[v][c] = f32::NAN;
        assert!(
            frames_diff(&t, &stream, &uniforms).is_nan(),
            "tangent {v}.{c}"
        );
    }
    // An unwritten vertex reads as the −7 clear value: a difference of at least 6.
    let mut unwritten = exact.clone();
    unwritten.normals[last] = Vec3::splat(-7.0);
    unwritten.tangents[last] = Vec4::splat(-7.0);
    assert!(frames_diff(&unwritten, &stream, &uniforms) >= 6.0);
}
