//! glTF whose buffers are compressed (EXT_meshopt_compression / KHR_meshopt_compression views,
//! KHR_draco_mesh_compression primitives) from arbitrary bytes, seeded with `pack --compress
//! meshopt` output and gltfpack's and glTF-Transform's compressed files: loading — the meshopt
//! and Draco decoders, and every accessor read through them — must return `Ok` or `Err`, never
//! panic, hang or abort. (Preparing what loads is `load_gltf`'s work; left out here, the target
//! runs several times faster.)
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use qtangent::mesh;

fuzz_target!(|bytes: &[u8]| {
    let _ = mesh::load_bytes(Path::new("fuzz.glb"), bytes, None);
});
