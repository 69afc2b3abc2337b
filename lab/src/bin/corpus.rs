//! Write the glTF corpus made here (`qtangent::lab::content::corpus`): a morphing mesh with a weights
//! animation, primitives sharing vertex data, an untextured torus with UVs, an instanced torus.
//! `cargo xtask gltfpack-table` packs them beside the real assets; the corpus test packs and
//! validates them.
//!
//! `cargo run --release -p qtangent-lab --bin corpus -- DIR` writes `DIR/<name>.gltf` and `.bin`;
//! `corpus DIR --bc5-normal-maps FILE.glb...` writes instead each GLB with its normal maps as
//! engines ship them (KTX2 BC5), `DIR/<stem>-bc5-normal-maps.glb`: the readers' tests' yardstick.

use std::path::PathBuf;
use std::process::ExitCode;

#[path = "../../../examples/common/console.rs"]
mod console;

const USAGE: &str = "usage: corpus DIR   (writes the lab's glTF corpus into DIR)
       corpus DIR --bc5-normal-maps FILE.glb...   (each FILE with its normal maps as KTX2 BC5 \
UNORM, as engines ship them, as DIR/<stem>-bc5-normal-maps.glb)";

fn main() -> ExitCode {
    if console::asked_for_help(USAGE) {
        return ExitCode::SUCCESS;
    }
    let dir = match console::positional(1) {
        Ok(Some(dir)) => PathBuf::from(dir),
        Ok(None) => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("corpus: {e}");
            return ExitCode::from(2);
        }
    };
    let copies: Vec<PathBuf> = match std::env::args().nth(2).as_deref() {
        None => Vec::new(),
        Some("--bc5-normal-maps") if std::env::args().nth(3).is_some() => {
            std::env::args().skip(3).map(PathBuf::from).collect()
        }
        Some(other) => {
            eprintln!("corpus: {other}: unexpected (--help shows the usage)");
            return ExitCode::from(2);
        }
    };
    let written = std::fs::create_dir_all(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))
        .and_then(|()| qtangent::lab::content::corpus(&dir, &copies).map_err(|e| e.to_string()));
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
