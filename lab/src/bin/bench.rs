//! Decode throughput: GPU batch decode (timestamp queries where the adapter has them, otherwise
//! the host clock around a synchronised submit) and single-threaded CPU decode of the same
//! packed data, for every format, next to a buffer-to-buffer copy measured in the same run.
//!
//! `cargo run --release -p qtangent-lab --bin bench [-- FRAMES [RUNS]]` (defaults: the largest power of two
//! up to 2²⁴ frames that the device's buffer limits allow, and 15).
//! Prints a Markdown table; medians of RUNS after warm-up. Never run on zeros: the frames are
//! seeded random rotations with random handedness.

use std::time::Instant;

use qtangent::gpu::{DecodePipeline, GpuContext};
use qtangent::{Format, QTangent, TangentFrame};

#[path = "../../../examples/common/console.rs"]
mod console;
#[path = "../../../examples/common/table_frames.rs"]
mod table_frames;
#[path = "../../../examples/common/timing.rs"]
mod timing;
use table_frames::random_frames;
use timing::{clock, copy_bandwidth, median, median_dispatch_seconds};

const USAGE: &str = "usage: cargo run --release -p qtangent-lab --bin bench [-- FRAMES [RUNS]]";

fn main() -> std::process::ExitCode {
    if console::asked_for_help(USAGE) {
        return std::process::ExitCode::SUCCESS;
    }
    console::quiet_mesa();
    console::finish("bench", run())
}

fn arg(n: usize, default: usize) -> Result<usize, String> {
    match console::positional(n)? {
        None => Ok(default),
        Some(a) => a
            .parse()
            .map_err(|e| format!("argument {n} ({a:?}) must be a whole number: {e}")),
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = GpuContext::new()?;
    // Default: the largest power of two up to 2²⁴ frames whose 48 B/frame output fits the
    // device's storage-binding limit (lavapipe: 128 MiB → 2²¹).
    let limit = ctx
        .device
        .limits()
        .max_storage_buffer_binding_size
        .min(ctx.device.limits().max_buffer_size);
    let fit = 1usize << (limit / 48).clamp(1, 1 << 24).ilog2();
    let frames = arg(1, fit)?;
    let runs = arg(2, 15)?.max(1);
    let pipeline = DecodePipeline::new(&ctx)?;
    let timing = clock(&ctx);
    println!("adapter: {}", ctx);
    println!("frames: {frames}, runs: {runs} (median after 3 warm-up runs), GPU timing: {timing}");
    println!("CPU: single thread, Format::unpack + QTangent::to_frame per frame\n");

    let copy = copy_bandwidth(&ctx, runs)?;
    println!(
        "buffer→buffer copy: {:.1} GB/s ({} MiB, bytes read + bytes written, host clock)\n",
        copy.0,
        copy.1 >> 20
    );

    let source: Vec<QTangent> = random_frames(0xbe4c, frames)
        .iter()
        .map(TangentFrame::to_qtangent)
        .collect();
    println!("| format | B/frame | GPU ms | GPU Mframes/s | GPU GB/s (in+out) | % of copy | CPU ms | CPU Mframes/s | CPU GB/s (in+out) |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for format in Format::ALL {
        let packed = format.pack(&source);
        let (gpu_s, bytes) = qtangent::lab::time_decode_dispatch(
            &ctx,
            &pipeline,
            format,
            &packed,
            frames,
            |encode| median_dispatch_seconds(&ctx, runs, encode),
        )?;
        let bytes = bytes as f64;

        let mut out = vec![
            TangentFrame {
                normal: glam::Vec3::ZERO,
                tangent: glam::Vec3::ZERO,
                bitangent: glam::Vec3::ZERO
            };
            frames
        ];
        let cpu_runs = runs.div_ceil(3).max(3);
        let cpu_s = median(
            (0..cpu_runs)
                .map(|_| {
                    let t = Instant::now();
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = format.unpack(&packed, i).to_frame();
                    }
                    std::hint::black_box(&out);
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        );
        // The CPU writes 36 B a frame (three Vec3); count what it really moves.
        let cpu_bytes = (packed.len() * 4 + frames * 36) as f64;
        println!(
            "| {} | {} | {:.3} | {:.0} | {:.1} | {:.0}% | {:.1} | {:.1} | {:.2} |",
            format.name(),
            format.bytes(),
            gpu_s * 1e3,
            frames as f64 / gpu_s / 1e6,
            bytes / gpu_s / 1e9,
            100.0 * bytes / gpu_s / 1e9 / copy.0,
            cpu_s * 1e3,
            frames as f64 / cpu_s / 1e6,
            cpu_bytes / cpu_s / 1e9
        );
    }
    Ok(())
}
