//! KTX 2.0 from arbitrary bytes, seeded with the maps `bake` writes in every map format (and
//! their handedness planes): reading a map (the container, its level index, data format
//! descriptor, key/value data, supercompression and levels, then the map's own keys) must
//! return `Ok` or `Err`, never panic, hang or abort. The reader takes a path, so each input is
//! written to one file in the temporary folder first.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use qtangent::EncodedMap;

fuzz_target!(|bytes: &[u8]| {
    thread_local! {
        static PATH: PathBuf =
            std::env::temp_dir().join(format!("qtangent-fuzz-{}.ktx2", std::process::id()));
    }
    PATH.with(|path| {
        if std::fs::write(path, bytes).is_ok() {
            let _ = EncodedMap::read_ktx2(path);
        }
    });
});
