//! glTF (JSON or GLB) from arbitrary bytes, with no base folder (external files are refused):
//! loading, preparing (normals, MikkTSpace tangents, seam splitting) and encoding every vertex
//! format must return `Ok` or `Err`, never panic, hang or abort.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use qtangent::{mesh, Format};

fuzz_target!(|bytes: &[u8]| {
    let Ok(scene) = mesh::load_bytes(Path::new("fuzz.gltf"), bytes, None) else { return };
    let Ok(prepared) = scene.prepare() else { return };
    for p in &prepared {
        for format in Format::ALL {
            let _ = p.vertex_stream(format);
        }
    }
});
