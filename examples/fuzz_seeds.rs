//! Write the handwritten seed corpora of the mesh-loader fuzz targets (`xtask/fuzz/`): small glTF
//! files written with the crate's glTF writer and OBJ texts (`qtangent::lab::fuzz_seeds`), each
//! a feature of the format the loaders must handle. `cargo xtask fuzz` runs this before fuzzing.
//!
//! `cargo run --release --example fuzz_seeds -- DIR` writes `DIR/load_gltf/seed-*` and
//! `DIR/load_obj/seed-*`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use qtangent::lab::fuzz_seeds::{gltf_seeds, OBJ_SEEDS};

fn main() -> ExitCode {
    let dir = std::env::args_os().nth(1).map(PathBuf::from);
    let written = dir.ok_or_else(|| "usage: fuzz_seeds DIR".to_string());
    if let Err(e) = written.and_then(|dir| write(&dir)) {
        eprintln!("fuzz_seeds: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn write(dir: &Path) -> Result<(), String> {
    let put = |target: &str, name: &str, bytes: &[u8]| -> Result<(), String> {
        let dir = dir.join(target);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(format!("seed-{name}"));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))
    };
    for (name, bytes) in gltf_seeds().map_err(|e| e.to_string())? {
        put("load_gltf", name, &bytes)?;
    }
    for (name, text) in OBJ_SEEDS {
        put("load_obj", name, text.as_bytes())?;
    }
    Ok(())
}
