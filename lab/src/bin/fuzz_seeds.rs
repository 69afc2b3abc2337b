//! Write the handwritten seed corpora of the fuzz targets (`xtask/fuzz/`): small glTF files
//! written with the crate's glTF writer (`qtangent::lab::content::gltf_seeds`) and OBJ texts,
//! each a feature of the format the loaders must handle; a small torus packed by `pack` in every
//! `_QTANGENT` format (`read_qtangent`) and with `--compress meshopt` (`load_compressed_gltf`);
//! and its object-space map baked and written as KTX2 in every map format (`read_ktx2`).
//! `cargo xtask fuzz` runs this before fuzzing, then adds gltfpack's and glTF-Transform's
//! compressed files where the npm judges are installed.
//!
//! `cargo run --release -p qtangent-lab --bin fuzz_seeds -- DIR` writes `DIR/<target>/seed-*`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use qtangent::lab::content::gltf_seeds;
use qtangent::mesh;
use qtangent::pack::{self, PackOptions};
use qtangent::qmap::SceneMaps;
use qtangent::qmap::{BakeMesh, Baker, MapFormat, MapOptions, ObjectInput, RasterBackend, Repack};
use qtangent::Format;

#[path = "../../../examples/common/console.rs"]
mod console;

const USAGE: &str =
    "usage: cargo run --release -p qtangent-lab --bin fuzz_seeds -- DIR  (writes DIR/<target>/seed-*)";

fn main() -> ExitCode {
    if console::asked_for_help(USAGE) {
        return ExitCode::SUCCESS;
    }
    let dir = console::positional(1).map(|d| d.map(PathBuf::from));
    let written = dir.and_then(|d| d.ok_or_else(|| USAGE.to_string()));
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
    let tmp = tempfile::tempdir().map_err(|e| format!("a temporary folder: {e}"))?;
    // The indexed quad (normals, UVs, tangents) the glTF seeds hold, packed.
    let (_, full) = gltf_seeds()
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|(name, _)| *name == "indexed.gltf")
        .ok_or("no indexed.gltf seed")?;
    let source = tmp.path().join("quad.gltf");
    std::fs::write(&source, full).map_err(|e| format!("{}: {e}", source.display()))?;
    let scene = mesh::load(&source).map_err(|e| e.to_string())?;
    let prepared = scene.prepare().map_err(|e| e.to_string())?;
    for format in Format::ALL {
        for meshopt in [false, true] {
            let options = PackOptions {
                format,
                meshopt,
                ..PackOptions::default()
            };
            let packed = pack::pack(&scene, &prepared, &SceneMaps::default(), &options)
                .map_err(|e| e.to_string())?;
            let name = format!(
                "quad-{}{}.glb",
                format.name(),
                if meshopt { "-meshopt" } else { "" }
            );
            let target = if meshopt {
                "load_compressed_gltf"
            } else {
                "read_qtangent"
            };
            put(target, &name, &packed.glb)?;
        }
    }
    // Object-space maps of a small torus in every map format, as `bake` writes them.
    let torus = mesh::Primitive::torus(1.0, 0.4, 8, 4)
        .prepare()
        .map_err(|e| e.to_string())?;
    for format in MapFormat::ALL {
        let options = MapOptions {
            format: Some(format),
            keep_handedness: true,
            ..MapOptions::default()
        };
        let input = ObjectInput {
            mesh: BakeMesh::from_prepared("torus", &[&torus]),
            normal_map: None,
            direction: None,
            size: 8,
            repack: Repack::Never,
        };
        let Ok(baked) = Baker::new(RasterBackend::CPU, &options).object(input, &mut ()) else {
            continue; // a format object-space maps do not take
        };
        let path = tmp.path().join(format!("torus-{}.ktx2", format.name()));
        let files = baked
            .stored
            .write_ktx2(&path, None)
            .map_err(|e| e.to_string())?;
        for file in files {
            let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let name = file
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            put("read_ktx2", &name, &bytes)?;
        }
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
