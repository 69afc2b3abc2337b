//! The smallest use of the library: a mesh's tangent frames as 4-byte quaternions, ready for a
//! vertex buffer. CPU only (no wgpu: the `gltf` and `obj` features are enough).
//!
//! ```sh
//! cargo run --release --example encode -- MESH     # .gltf, .glb or .obj
//! ```
//!
//! Per primitive it prints the vertex count, the interleaved vertex buffer (position, UV and the
//! 4-byte frame), and the largest angle between a source frame and the frame decoded back,
//! against the format's bound.

use qtangent::mesh;
use qtangent::Format;

const USAGE: &str = "usage: encode MESH: each primitive's frames of MESH (.gltf, .glb, .obj) \
     as 4-byte quaternions (smallest3x4), with the bytes and the angle error";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return std::process::ExitCode::SUCCESS;
    }
    if let Some(option) = args.iter().find(|a| a.starts_with('-')) {
        eprintln!("encode: {option}: unknown option (--help shows the usage)");
        return std::process::ExitCode::from(2);
    }
    let [path] = args.as_slice() else {
        eprintln!("{USAGE}");
        return std::process::ExitCode::from(2);
    };
    match encode(std::path::Path::new(path)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("encode: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn encode(path: &std::path::Path) -> Result<(), qtangent::mesh::MeshError> {
    // Load (glTF or OBJ), then prepare: normals and MikkTSpace tangents where the file has none,
    // vertices split where the handedness flips, unused vertices dropped.
    let scene = mesh::load(path)?;
    for w in &scene.warnings {
        eprintln!("encode: warning: {w}");
    }
    let format = Format::Smallest3x4;
    for prepared in scene.prepare()? {
        let stream = prepared.vertex_stream(format);
        // What a renderer uploads: `stream.bytes` (`stream.stride` bytes a vertex: position,
        // UV, then the frame's `format.bytes()`) and `stream.indices`.
        let errors = stream.errors_against(&prepared.frames);
        println!(
            "{}: {} vertices of {} bytes ({} of them the frame), {} indices; max error {:.3}° (bound {}°)",
            prepared.label,
            stream.vertex_count,
            stream.stride,
            format.bytes(),
            stream.indices.len(),
            errors.max(),
            format.max_error_deg()
        );
    }
    Ok(())
}
