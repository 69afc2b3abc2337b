//! The main job for now (`cargo xtask demo`): print the encodings table, decode a batch of every
//! format on the GPU and compare it with the CPU decode and with the source frames, then run the
//! procedural meshes through the mesh vertex stage and compare its decode with the CPU's.
//!
//! `cargo run --release -p qtangent-lab --bin demo [-- FRAMES]` (default 1,000,000).

use std::time::Instant;

use qtangent::gpu::{DecodePipeline, GpuContext};
use qtangent::measure::FrameErrors;
use qtangent::{Format, QTangent};

#[path = "../../../examples/common/console.rs"]
mod console;
#[path = "../../../examples/common/frames.rs"]
mod frames;
#[path = "../../../examples/common/table_frames.rs"]
mod table_frames;

const USAGE: &str =
    "usage: cargo run --release -p qtangent-lab --bin demo [-- FRAMES]  (default 1000000)";

fn main() -> std::process::ExitCode {
    if console::asked_for_help(USAGE) {
        return std::process::ExitCode::SUCCESS;
    }
    console::quiet_mesa();
    console::finish("demo", run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let count = match console::positional(1)? {
        None => 1_000_000,
        Some(a) => a
            .parse::<usize>()
            .map_err(|e| format!("FRAMES must be a whole number ({a:?}: {e})"))?,
    };
    let frames = table_frames::table_frames(count);
    println!(
        "qtangent encodings: {}\n",
        table_frames::describe_table_frames(count)
    );
    let rows: Vec<_> = Format::ALL
        .iter()
        .map(|&f| (f, table_frames::measure(f, &frames)))
        .collect();
    print!("{}", frames::table(&rows));

    let ctx = GpuContext::new()?;
    let pipeline = DecodePipeline::new(&ctx)?;
    println!(
        "\nGPU decode on {}: {} frames per format",
        ctx,
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
            let d = frames::max_component_diff(&g, &cpu);
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
    println!("\n(wall time includes upload, dispatch and readback; see `cargo xtask bench` for throughput)");
    meshes(&ctx)
}

/// The mesh path on the embedded procedural meshes: MikkTSpace frames, seam splits, and the
/// vertex stage's decode read back and compared with the CPU (`qtangent inspect --formats` does the
/// CPU part for any glTF/OBJ file).
fn meshes(ctx: &GpuContext) -> Result<(), Box<dyn std::error::Error>> {
    use qtangent::gpu::MeshUniforms;
    use qtangent::lab::readback::vertex_stage_diff;

    println!("\nMeshes through the vertex stage (world n and t read back, compared with the CPU):");
    println!("| mesh                          | vertices (file → split) | mirrored triangles | worst GPU-CPU diff, all formats | worst error (not f16x3) |");
    println!("|-------------------------------|-------------------------|--------------------|---------------------------------|------------------------------|");
    let model =
        glam::Mat4::from_rotation_y(0.5) * glam::Mat4::from_scale(glam::Vec3::new(1.0, 2.0, 1.0));
    let uniforms = MeshUniforms::new(model, glam::Mat4::IDENTITY);
    for prim in qtangent::lab::content::demo_meshes() {
        let p = prim.prepare().map_err(|e| format!("{}: {e}", prim.label))?;
        let (mut diff, mut error) = (0.0f32, 0.0f64);
        for format in Format::ALL {
            let stream = p.vertex_stream(format);
            if format != Format::F16x3 {
                error = error.max(stream.errors_against(&p.frames).max());
            }
            let d = vertex_stage_diff(ctx, &stream, &uniforms)?;
            diff = if d.is_nan() || diff.is_nan() {
                f32::NAN
            } else {
                diff.max(d)
            };
        }
        let s = p.stats;
        println!(
            "| {:<29} | {:>23} | {:>18} | {:>31.3e} | {:>27.4}° |",
            p.label,
            format!("{} → {}", s.vertices_in, s.vertices),
            format!("{} / {}", s.mirrored_triangles, s.triangles),
            diff,
            error
        );
    }
    Ok(())
}
