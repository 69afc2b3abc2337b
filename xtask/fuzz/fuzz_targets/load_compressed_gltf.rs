//! glTF whose buffers are compressed (EXT_meshopt_compression / KHR_meshopt_compression views,
//! KHR_draco_mesh_compression primitives) from arbitrary bytes, seeded with `pack --compress
//! meshopt` output and gltfpack's and glTF-Transform's compressed files: loading (the meshopt
//! and Draco decoders included), preparing and encoding every vertex format must return `Ok`
//! or `Err`, never panic, hang or abort.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use qtangent::{mesh, Format};

fuzz_target!(|bytes: &[u8]| {
    let Ok(scene) = mesh::load_bytes(Path::new("fuzz.glb"), bytes, None) else { return };
    let Ok(prepared) = scene.prepare() else { return };
    for p in &prepared {
        for format in Format::ALL {
            let _ = p.vertex_stream(format);
        }
    }
});
