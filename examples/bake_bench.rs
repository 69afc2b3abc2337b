//! Bake benchmark: every material of FlightHelmet (or another mesh) at 4096² on the GPU and with
//! the CPU reference, in one run; prints both times and their ratio.
//!
//! ```text
//! cargo run --release --example bake_bench -- [MESH] [--size 4096] [--runs 3]
//! ```
//!
//! MESH defaults to `$QTANGENT_ASSETS/gltf/FlightHelmet/FlightHelmet.gltf` (else
//! `../shared/assets/...` beside the crate). GPU times are host-clock times around upload + both render passes +
//! readback, after a synchronising wait, median of `--runs` after one warm-up; the CPU
//! reference is single-threaded and timed once. `finish` (hemisphere rule, padding, mips) is
//! shared CPU code and timed separately. Never asserted anywhere: this prints a table.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use qtangent::gpu::GpuContext;
use qtangent::qmap::RasterBackend;
use qtangent::qmap::{self, BakeJob, BakeSettings};

#[path = "common/cli.rs"]
mod cli;
#[path = "common/console.rs"]
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

fn run() -> Result<(), String> {
    let args = Args::parse();
    let mesh_path = args
        .mesh
        .clone()
        .unwrap_or_else(|| cli::assets_dir().join("gltf/FlightHelmet/FlightHelmet.gltf"));
    let scene = qtangent::mesh::load(&mesh_path).map_err(|e| e.to_string())?;
    let ctx = GpuContext::new().map_err(|e| e.to_string())?;
    println!("adapter: {}", ctx.describe());
    println!(
        "mesh: {}, map {}², format rgba16f",
        mesh_path.display(),
        args.size
    );
    // One job per material with UVs (primitives without are skipped, as the warnings say).
    let jobs = BakeJob::from_scene(&scene, None).jobs;
    let settings = BakeSettings {
        width: args.size,
        height: args.size,
        ..BakeSettings::default()
    };
    println!();
    println!("| material | triangles | covered | normal map | GPU raster ms | CPU raster ms | CPU/GPU | CPU bake, every level, ms |");
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
        ctx.raster(&mesh, nm, &settings, &mut ())
            .map_err(|e| e.to_string())?;
        let mut times = Vec::new();
        for _ in 0..args.runs.max(1) {
            let t = Instant::now();
            ctx.raster(&mesh, nm, &settings, &mut ())
                .map_err(|e| e.to_string())?;
            times.push(t.elapsed());
        }
        times.sort();
        let gpu = times[times.len() / 2];
        // The whole CPU bake (every level rastered, padding, the hemisphere rule), for the
        // covered share and its time next to level 0's raster.
        let t = Instant::now();
        let map = qmap::bake_cpu(&mesh, nm, &settings, &mut ()).map_err(|e| e.to_string())?;
        let whole = t.elapsed();
        let cpu = if args.no_cpu {
            None
        } else {
            let t = Instant::now();
            qmap::CpuRaster
                .raster(&mesh, nm, &settings, &mut ())
                .map_err(|e| e.to_string())?;
            Some(t.elapsed())
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
            mesh.triangle_count(),
            100.0 * map.stats.covered as f64 / (f64::from(args.size) * f64::from(args.size)),
            nm.map_or("none".to_string(), |m| format!("{}×{}", m.width, m.height)),
            ms(gpu),
            ms(whole),
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
