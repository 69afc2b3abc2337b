//! Bakes quaternion maps from a mesh: the library calls behind `qtangent bake`, and nothing
//! else (no flags, no report). One tangent-space map per material with a normal map, stored in
//! the compressed default (BC5, or BC7 where a material's anisotropy adds a twist), written as
//! KTX2 with all mips plus a PNG preview.
//!
//! ```sh
//! cargo run --release --example bake -- MESH [DIR]     # DIR defaults to qmaps
//! ```
//!
//! The command (`qtangent bake`, `cli/src/bake.rs`) makes the same calls with every option
//! (object-space maps, formats, sizes, OpenEXR, a JSON report, progress).

use std::path::PathBuf;

use qtangent::mesh;
use qtangent::qmap::{BakeJob, Baker, Container, MapOptions, MapSpace, RasterBackend};

const USAGE: &str = "usage: bake MESH [DIR]: tangent-space quaternion maps of MESH's materials \
     (.gltf, .glb, .obj) written into DIR (default qmaps) as KTX2 with PNG previews";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return std::process::ExitCode::SUCCESS;
    }
    if let Some(option) = args.iter().find(|a| a.starts_with('-')) {
        eprintln!("bake: {option}: unknown option (--help shows the usage)");
        return std::process::ExitCode::from(2);
    }
    if args.is_empty() || args.len() > 2 {
        eprintln!("{USAGE}");
        return std::process::ExitCode::from(2);
    }
    let dir = PathBuf::from(args.get(1).map_or("qmaps", String::as_str));
    match bake(&PathBuf::from(&args[0]), &dir) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bake: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn bake(path: &std::path::Path, dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let scene = mesh::load(path)?;
    // Warnings (a primitive without UVs, say) are collected; a tool would print them.
    let mut warnings: Vec<qtangent::Warning> = scene.warnings.clone();
    let jobs = BakeJob::from_scene(&scene, None, &mut warnings)?;
    let options = MapOptions::default();
    // The CPU raster: no GPU needed (`GpuContext::raster_backend` picks the device's).
    let baker = Baker::new(RasterBackend::CPU, &options);
    std::fs::create_dir_all(dir)?;
    for job in &jobs {
        // `None`: the material has no normal map, so its tangent-space map would be the identity.
        let Some(done) = job.bake(&scene, &baker, MapSpace::Tangent, 0, &mut warnings)? else {
            continue;
        };
        for file in job.write(dir, &done.baked, Container::Ktx2)? {
            println!("{}", file.path.display());
        }
    }
    for w in &warnings {
        eprintln!("bake: warning: {w}");
    }
    Ok(())
}
