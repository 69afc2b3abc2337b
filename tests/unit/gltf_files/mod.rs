//! Tests that write glTF files with the crate's one writer (`gltf::Builder`, crate-internal) and
//! judge what reads them: the loader's inputs and errors, `pack`'s output (Khronos validator,
//! gltfpack), `bake` and `frame_diff` on written files. They live with the crate's unit tests
//! because the writer is not public API.

mod bake_cli;
pub(crate) mod gltf_build;
mod gltf_inputs;
mod gltf_validator;
pub(crate) mod gltf_write;
mod mesh_errors;
mod pack;
mod pack_corpus;
mod pack_frameless;
mod pack_quantised;

/// The writer's smallest use: a triangle, its indices, a mesh, a node, a scene, as a GLB.
#[test]
fn a_triangle_written_by_the_builder_is_a_glb() {
    use crate::gltf::Builder;

    let mut b = Builder::default();
    let position = b.positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let indices = b.indices(&[0, 1, 2]);
    let mesh = b.push(
        "meshes",
        serde_json::json!({"primitives": [{"attributes": {"POSITION": position}, "indices": indices}]}),
    );
    let node = b.push("nodes", serde_json::json!({ "mesh": mesh }));
    b.json["scenes"] = serde_json::json!([{ "nodes": [node] }]);
    let glb = b.to_glb().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&glb[..4], b"glTF");
    let scene = crate::mesh::load_bytes(std::path::Path::new("triangle.glb"), &glb, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.primitives().count(), 1);
}
