//! What the loader targets share.

use std::path::Path;

use qtangent::{mesh, Format};

/// Loads `bytes` as the file `name` (no base folder: external files are refused), prepares
/// what loads (normals, MikkTSpace tangents, seam splitting) and encodes every vertex format:
/// each step returns `Ok` or `Err`, never panics, hangs or aborts.
pub fn load_prepare_encode(name: &str, bytes: &[u8]) {
    let Ok(scene) = mesh::load_bytes(Path::new(name), bytes, None) else { return };
    let Ok(prepared) = scene.prepare() else { return };
    for p in &prepared {
        for format in Format::ALL {
            let _ = p.vertex_stream(format);
        }
    }
}
