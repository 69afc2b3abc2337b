//! Write the glTF corpus made here (`qtangent::lab::content::corpus`): a morphing mesh with a weights
//! animation, primitives sharing vertex data, an untextured torus with UVs, an instanced torus.
//! `cargo xtask gltfpack-table` packs them beside the real assets; the corpus test packs and
//! validates them.
//!
//! `cargo run --release --example corpus -- DIR` writes `DIR/<name>.gltf` and `.bin`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let arg = std::env::args_os().nth(1);
    if arg.as_ref().is_none_or(|a| a == "--help" || a == "-h") {
        eprintln!("usage: corpus DIR   (writes the lab's glTF corpus into DIR)");
        return if arg.is_some() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let dir = PathBuf::from(arg.unwrap_or_default());
    let written = std::fs::create_dir_all(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))
        .and_then(|()| qtangent::lab::content::corpus(&dir).map_err(|e| e.to_string()));
    match written {
        Ok(files) => {
            for f in files {
                println!("{}", f.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("corpus: {e}");
            ExitCode::FAILURE
        }
    }
}
