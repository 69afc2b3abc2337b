//! Write the handwritten seed corpora of the mesh-loader fuzz targets (`xtask/fuzz/`): small glTF
//! files written with the crate's glTF writer (`qtangent::lab::content::gltf_seeds`) and OBJ texts, each
//! a feature of the format the loaders must handle. `cargo xtask fuzz` runs this before fuzzing.
//!
//! `cargo run --release --example fuzz_seeds -- DIR` writes `DIR/load_gltf/seed-*` and
//! `DIR/load_obj/seed-*`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use qtangent::lab::content::gltf_seeds;

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

/// Handwritten OBJ seeds: each a feature of the format the loader must handle.
const OBJ_SEEDS: &[(&str, &str)] = &[
    ("triangle.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"),
    (
        "quad-uv-normal.obj",
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n\
         f 1/1/1 2/2/1 3/3/1 4/4/1\n",
    ),
    (
        "groups-negative.obj",
        "# two objects, relative indices, smoothing groups\nmtllib missing.mtl\no a\n\
         v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\ns 1\nf -3 -2 -1\ng b\nv 0 0 1\nv 1 0 1\n\
         v 0 1 1\nvt 0 0\nvt 1 0\nvt 0 1\ns off\nf -3/-3 -2/-2 -1/-1\nl 1 2\np 3\n",
    ),
    (
        "pentagon-normals.obj",
        "v 1 0 0\nv 0.31 0.95 0\nv -0.81 0.59 0\nv -0.81 -0.59 0\nv 0.31 -0.95 0\nvn 0 0 1\n\
         f 1//1 2//1 3//1 4//1 5//1\n",
    ),
    (
        "mirrored-uv.obj",
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 0 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
         f 1/1 2/2 3/3\nf 1/1 3/3 4/4\nf 1/1 4/4 6/3\nf 1/1 6/3 5/2\n",
    ),
];
