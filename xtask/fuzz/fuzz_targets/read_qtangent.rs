//! `_QTANGENT` reading from arbitrary bytes. Raw elements: the first byte picks a format, the
//! rest are its elements, and every element decodes to a quaternion (never a panic) whose frame
//! is either refused or finite and unit-length. Whole files, seeded with `pack`'s output in
//! every format: the accessor read by its declared format or, without the extension, by its
//! layout, must load or fail with an error, never panic, hang or abort.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use qtangent::{mesh, Format};

fuzz_target!(|bytes: &[u8]| {
    if let Some((&pick, rest)) = bytes.split_first() {
        let format = Format::ALL[usize::from(pick) % Format::ALL.len()];
        for element in rest.chunks_exact(format.bytes()).take(256) {
            let q = format.decode(element);
            if let Ok(frame) = q.try_to_frame() {
                for v in [frame.normal, frame.tangent, frame.bitangent] {
                    assert!(v.is_finite(), "{}: {v} from {element:?}", format.name());
                    assert!((v.length() - 1.0).abs() < 1e-3, "{}: {v} from {element:?}", format.name());
                }
            }
        }
    }
    let Ok(scene) = mesh::load_bytes(Path::new("fuzz.glb"), bytes, None) else { return };
    let _ = scene.prepare();
});
