//! The main job for now (`cargo xtask demo`): print the encodings table, then decode a batch of
//! every format on the GPU and compare it with the CPU decode and with the source frames.
//!
//! `cargo run --release --example demo [-- FRAMES]` (default 1,000,000).

use std::time::Instant;

use qtangent::gpu::{DecodePipeline, GpuContext};
use qtangent::measure::{self, max_component_diff, FrameErrors};
use qtangent::{Format, QTangent};

fn main() {
    if let Err(e) = run() {
        eprintln!("demo: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let count = match std::env::args().nth(1) {
        None => 1_000_000,
        Some(a) => a
            .parse::<usize>()
            .map_err(|e| format!("FRAMES must be a whole number ({a:?}: {e})"))?,
    };
    let frames = measure::table_frames(count);
    println!(
        "qtangent encodings: {}\n",
        measure::describe_table_frames(count)
    );
    let rows: Vec<_> = Format::ALL
        .iter()
        .map(|&f| (f, measure::measure(f, &frames)))
        .collect();
    print!("{}", measure::table(&rows));

    let ctx = GpuContext::new()?;
    let pipeline = DecodePipeline::new(&ctx)?;
    println!(
        "\nGPU decode on {}: {} frames per format",
        ctx.describe(),
        frames.len()
    );
    println!("| format       | GPU vs CPU decode (max abs diff) | GPU vs source (max °) | handedness errors | GPU wall time |");
    println!("|--------------|----------------------------------|-----------------------|-------------------|---------------|");
    let qtangents: Vec<QTangent> = frames.iter().map(|f| f.to_qtangent()).collect();
    for format in Format::ALL {
        let packed = format.pack(&qtangents);
        let start = Instant::now();
        let gpu = pipeline.decode(&ctx, format, &packed, frames.len())?;
        let wall = start.elapsed();
        let mut diff = 0.0f32;
        let mut errors = FrameErrors::default();
        for (i, (g, source)) in gpu.iter().zip(&frames).enumerate() {
            let g = g.to_frame();
            let cpu = format.unpack(&packed, i).to_frame();
            let d = max_component_diff(&g, &cpu);
            diff = if d.is_nan() { f32::NAN } else { diff.max(d) };
            errors.add(source, &g);
        }
        println!(
            "| {:<12} | {:>32.3e} | {:>21.6} | {:>17} | {:>10.1} ms |",
            format.name(),
            diff,
            errors.max(),
            errors.handedness_errors,
            wall.as_secs_f64() * 1e3
        );
    }
    println!("\n(wall time includes upload, dispatch and readback; see `--example bench` for throughput)");
    Ok(())
}
