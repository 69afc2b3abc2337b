//! Bake benchmark: every material of FlightHelmet (or another mesh) at 4096² with the GPU raster
//! and with the CPU's, in one run; prints both times and their ratio.
//!
//! ```text
//! cargo run --release -p qtangent-lab --bin bake_bench -- [MESH] [--size 4096] [--runs 3]
//! ```
//!
//! MESH defaults to `$QTANGENT_ASSETS/gltf/FlightHelmet/FlightHelmet.gltf` (else
//! `../shared/assets/...` beside the crate). Each material is baked as the library bakes it
//! (`Baker::object`, rgba16f) on the device's GPU raster (`RasterBackend::from(&GpuContext)`,
//! whatever the adapter) and on the CPU's (`RasterBackend::CPU`); the times are the bakes' own
//! `raster` phase: every level rastered (on the GPU: upload, both render passes and readback per
//! level), plus the normal map's coarser levels, shared CPU work that is small beside it. Median
//! of `--runs` after one warm-up on the GPU, once on the CPU. `finish` (hemisphere rule,
//! padding, mips) is shared CPU code, shown from the warm-up. Every run bakes whole (finish and
//! store too), so a run takes about twice its raster time. Never asserted anywhere: this prints
//! a table.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use qtangent::gpu::GpuContext;
use qtangent::qmap::{BakeJob, Baked, Baker, MapFormat, MapOptions, ObjectInput, RasterBackend};
use qtangent::qmap::{BakeMesh, NormalMap, Repack};

#[path = "../../../examples/common/cli.rs"]
mod cli;
#[path = "../../../examples/common/console.rs"]
mod console;

#[derive(Parser)]
#[command(about = "Bake every material's quaternion map on the GPU and the CPU; print the times")]
struct Args {
    /// glTF/OBJ mesh (default: FlightHelmet from the shared assets).
    mesh: Option<PathBuf>,
    /// Map size (square).
    #[arg(long, default_value_t = 4096)]
    size: u32,
    /// Timed GPU runs per material after one warm-up (the median is printed).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Skip the CPU reference.
    #[arg(long)]
    no_cpu: bool,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The time of `baked`'s phase `name`.
fn phase(baked: &Baked, name: &str) -> Duration {
    baked
        .times
        .iter()
        .filter(|(p, _)| *p == name)
        .map(|(_, d)| *d)
        .sum()
}

/// One bake of `mesh` at `size`² on `backend`.
fn bake(
    backend: RasterBackend<'_>,
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    size: u32,
) -> Result<Baked, String> {
    let options = MapOptions {
        format: Some(MapFormat::Rgba16Float),
        ..MapOptions::default()
    };
    let input = ObjectInput {
        mesh: mesh.clone(),
        normal_map,
        direction: None,
        size,
        repack: Repack::Never,
    };
    Baker::new(backend, &options)
        .object(input, &mut ())
        .map_err(|e| e.to_string())
}

fn run() -> Result<(), String> {
    let args = Args::parse();
    let mesh_path = args
        .mesh
        .clone()
        .unwrap_or_else(|| cli::assets_dir().join("gltf/FlightHelmet/FlightHelmet.gltf"));
    let scene = qtangent::mesh::load(&mesh_path).map_err(|e| e.to_string())?;
    let ctx = GpuContext::new().map_err(|e| e.to_string())?;
    println!("adapter: {}", ctx);
    println!(
        "mesh: {}, map {}², format rgba16f",
        mesh_path.display(),
        args.size
    );
    // One job per material with UVs (primitives without are skipped).
    let jobs = BakeJob::from_scene(&scene, None, &mut ()).map_err(|e| e.to_string())?;
    let gpu_raster = RasterBackend::from(&ctx);
    println!();
    println!("| material | triangles | covered | normal map | GPU raster ms | CPU raster ms | CPU/GPU | finish ms |");
    println!("|---|---:|---:|---|---:|---:|---:|---:|");
    let (mut gpu_total, mut cpu_total) = (0.0, 0.0);
    for job in &jobs {
        let name = job
            .material_name
            .clone()
            .unwrap_or_else(|| "(none)".to_string());
        let mesh = job.bake_mesh(&scene).map_err(|e| e.to_string())?;
        let normal_map = job.normal.load(&mesh_path).map_err(|e| e.to_string())?;
        let nm = normal_map.as_ref();
        let warm = bake(gpu_raster, &mesh, nm, args.size)?;
        let mut times = Vec::new();
        for _ in 0..args.runs.max(1) {
            times.push(phase(&bake(gpu_raster, &mesh, nm, args.size)?, "raster"));
        }
        times.sort();
        let gpu = times[times.len() / 2];
        let cpu = if args.no_cpu {
            None
        } else {
            Some(phase(
                &bake(RasterBackend::CPU, &mesh, nm, args.size)?,
                "raster",
            ))
        };
        gpu_total += ms(gpu);
        let (cpu_ms, ratio) = match cpu {
            Some(c) => {
                cpu_total += ms(c);
                (format!("{:.0}", ms(c)), format!("{:.1}×", ms(c) / ms(gpu)))
            }
            None => ("—".into(), "—".into()),
        };
        println!(
            "| {name} | {} | {:.1}% | {} | {:.0} | {cpu_ms} | {ratio} | {:.0} |",
            mesh.indices.len() / 3,
            100.0 * warm.map.stats.covered as f64 / (f64::from(args.size) * f64::from(args.size)),
            nm.map_or("none".to_string(), |m| format!("{}×{}", m.width, m.height)),
            ms(gpu),
            ms(phase(&warm, "finish")),
        );
    }
    if !args.no_cpu {
        println!(
            "| **all** | | | | {gpu_total:.0} | {cpu_total:.0} | {:.1}× | |",
            cpu_total / gpu_total
        );
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    console::quiet_mesa();
    console::finish("bake_bench", run())
}
