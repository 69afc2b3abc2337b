//! Skinning throughput: the quaternion kernel (`shaders/skin.wgsl`: LBS and DQS on 28 or 36 B
//! vertices with a packed qtangent, 20 B out) against the matrix-palette baseline engines use
//! (`shaders/skin_matrix.wgsl`: f32 normal + tangent, 64 or 88 B in, 40 B out), on the same
//! meshes and poses, next to a buffer-to-buffer copy measured in the same run (the bandwidth
//! bound, bytes read + bytes written).
//!
//! `cargo run --release -p qtangent-lab --bin skin_bench [-- --instances 1024,16384 --vertices 1000 --runs 15]`
//!
//! Each instance is a procedural cylinder (`--vertices` vertices, `--bones` bones along its
//! axis, each vertex weighted to its 4 — or, for the 8-influence rows, 8 — nearest bones) with
//! its own random pose: a random placement times bends of up to 45° at every bone, scales
//! 0.9–1.1. By default every instance has its own mesh (scaled radius, jittered positions), so each
//! instance's input is read from memory, not from a cache another instance filled; `--meshes`
//! shares fewer. One dispatch skins every instance. GPU time from timestamp queries around the
//! compute pass where the adapter has them, otherwise the host clock around a synchronised
//! submit; 3 warm-up runs, the median of `--runs`. Bytes per vertex count the vertex read and
//! the output write; palettes (32 B a bone for quaternions, 64 B for matrices) are shared by
//! an instance's vertices and not counted. Nothing here asserts a time.

use std::f32::consts::TAU;
use std::time::Instant;

use clap::Parser;
use glam::{Quat, Vec3};
use qtangent::gpu::GpuContext;
use qtangent::gpu::SkinPipeline;
use qtangent::lab::skin_matrix::{input_words, time_matrix_skinning, with_positions};
use qtangent::skin::{Bone, Influences, SkinMethod, SkinVertices};
use qtangent::{QTangent, TangentFrame};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[path = "../../../examples/common/console.rs"]
mod console;
#[path = "../../../examples/common/table_frames.rs"]
mod table_frames;
#[path = "../../../examples/common/timing.rs"]
mod timing;
use timing::{clock, copy_bandwidth, median_dispatch_seconds};

#[derive(Parser)]
#[command(about = "Quaternion (LBS, DQS) against matrix-palette skinning; prints a table")]
struct Args {
    /// Instances per batch; a comma-separated list runs every size in one go (sizes the
    /// device's buffer limits refuse are skipped with a note).
    #[arg(long, value_delimiter = ',', default_value = "1024")]
    instances: Vec<usize>,
    /// Vertices per instance.
    #[arg(long, default_value_t = 1000)]
    vertices: usize,
    /// Bones per instance (at most 256).
    #[arg(long, default_value_t = 32)]
    bones: usize,
    /// Distinct meshes the instances cycle through (default: one per instance).
    #[arg(long)]
    meshes: Option<usize>,
    /// Timed runs per row after 3 warm-up runs (the median is printed).
    #[arg(long, default_value_t = 15)]
    runs: usize,
    /// Seed of the meshes and poses.
    #[arg(long, default_value_t = 0x5c1e)]
    seed: u64,
}

fn main() -> std::process::ExitCode {
    console::quiet_mesa();
    console::finish("skin_bench", run())
}

/// A skinned cylinder along +y (height 2, radius 0.3) of `n` vertices in rings of up to 32,
/// with `bones` bones evenly along its axis; each vertex is weighted to its `influences` nearest
/// bones by `1 / (1 + (d / spacing)²)`. Frames: normal radial, tangent around the axis; the half
/// of each ring with `cos φ < 0` is mirrored (as mirrored UVs would make it), so both handedness
/// paths run.
fn cylinder(n: usize, bones: usize, influences: usize) -> Result<SkinVertices, String> {
    let label = format!("cylinder of {n} vertices, {bones} bones, {influences} influences");
    let segments = n.clamp(1, 32);
    let rings = n.div_ceil(segments);
    let (height, radius) = (2.0, 0.3);
    let spacing = height / bones as f32;
    let k = influences.min(bones);
    let mut positions = Vec::with_capacity(n);
    let mut frames: Vec<QTangent> = Vec::with_capacity(n);
    let sets = influences.div_ceil(4);
    let mut joints = vec![Vec::with_capacity(n); sets];
    let mut weights = vec![Vec::with_capacity(n); sets];
    let mut order: Vec<usize> = (0..bones).collect();
    for i in 0..n {
        let (ring, col) = (i / segments, i % segments);
        let phi = TAU * col as f32 / segments as f32;
        let y = height * ring as f32 / (rings.max(2) - 1) as f32;
        let normal = Vec3::new(phi.cos(), 0.0, phi.sin());
        let tangent = Vec3::new(-phi.sin(), 0.0, phi.cos());
        positions.push(normal * radius + Vec3::Y * y);
        let handedness = if phi.cos() < 0.0 { -1.0 } else { 1.0 };
        let frame = TangentFrame::from_normal_tangent(normal, tangent.extend(handedness))
            .map_err(|e| format!("{label}: vertex {i}: {e}"))?;
        frames.push(frame.to_qtangent());
        let bone_y = |b: usize| spacing * (b as f32 + 0.5);
        order.sort_by(|&a, &b| (bone_y(a) - y).abs().total_cmp(&(bone_y(b) - y).abs()));
        let (mut js, mut ws) = ([[0u16; 4]; 2], [[0f32; 4]; 2]);
        for (slot, &b) in order[..k].iter().enumerate() {
            let d = (bone_y(b) - y) / spacing;
            js[slot / 4][slot % 4] = b as u16;
            ws[slot / 4][slot % 4] = 1.0 / (1.0 + d * d);
        }
        for s in 0..sets {
            joints[s].push(js[s]);
            weights[s].push(ws[s]);
        }
    }
    SkinVertices::new(&label, &positions, &frames, &joints, &weights, bones)
        .map_err(|e| e.to_string())
}

/// A copy of `template` with its own positions: the radius scaled by 0.8–1.2 and every vertex
/// moved by up to 0.01, so no two instances read the same bytes. Frames and influences are the
/// template's (copied, so building a million-vertex batch stays cheap).
fn variant(template: &SkinVertices, rng: &mut impl Rng, label: String) -> SkinVertices {
    let radius = rng.random_range(0.8..1.2f32);
    let mut v = with_positions(template, |p| {
        let jitter = Vec3::new(rng.random(), rng.random(), rng.random()) * 0.01;
        Vec3::new(p.x * radius, p.y, p.z * radius) + jitter
    });
    v.label = label;
    v
}

/// One instance's pose: a random placement (any rotation, within 50 units of the origin)
/// times, at each bone, a bend of up to 45° about a random axis through the bone's rest point
/// on the cylinder's axis and a uniform scale of 0.9–1.1 about it.
fn pose(rng: &mut impl Rng, bones: usize, out: &mut Vec<Bone>) {
    let placement = table_frames::random_rotation(rng);
    let offset = (Vec3::new(rng.random(), rng.random(), rng.random()) * 2.0 - 1.0) * 50.0;
    let spacing = 2.0 / bones as f32;
    for b in 0..bones {
        let axis = (table_frames::random_rotation(rng) * Vec3::Z).normalize();
        let bend = Quat::from_axis_angle(axis, rng.random_range(0.0..45f32.to_radians()));
        let scale = rng.random_range(0.9..1.1f32);
        let centre = Vec3::Y * spacing * (b as f32 + 0.5);
        // p ↦ s·R·(p − c) + c, then the placement: (P·R)·s·p + P·(c − s·R·c) + offset.
        let local_t = centre - bend * centre * scale;
        out.push(Bone::new(
            placement * bend,
            placement * local_t + offset,
            scale,
        ));
    }
}

/// One row of the table.
struct Row {
    instances: usize,
    influences: usize,
    method: &'static str,
    layout: &'static str,
    read: u64,
    write: u64,
    vertices: u64,
    seconds: f64,
}

const QUAT_LAYOUT: &str = "f32 pos + qtangent snorm16x4, u8 joints, unorm8 weights; quat bones";
const MATRIX_LAYOUT: &str = "f32 pos + n + t, u16 joints, f32 weights; mat4 bones";

/// Fails with a message when a skinned output holds a NaN or infinite position: the kernel did
/// not run, or ran on garbage.
fn check_finite(what: &str, positions: impl Iterator<Item = [f32; 3]>) -> Result<(), String> {
    match positions
        .enumerate()
        .find(|(_, p)| !p.iter().all(|x| x.is_finite()))
    {
        Some((i, p)) => Err(format!("{what}: vertex {i} came out as {p:?}")),
        None => Ok(()),
    }
}

/// That the `what` batch packed the influences asked for.
fn check_packing(what: &str, packed: Influences, expected: Influences) -> Result<(), String> {
    if packed == expected {
        Ok(())
    } else {
        Err(format!(
            "the {what} batch packed {packed:?}, not {expected:?}"
        ))
    }
}

/// Times every method at one batch size and influence count.
fn bench_size(
    ctx: &GpuContext,
    pipeline: &SkinPipeline,
    args: &Args,
    instances: usize,
    influences: usize,
) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let mut rng =
        Pcg64Mcg::seed_from_u64(args.seed ^ ((instances as u64) << 8) ^ influences as u64);
    let mesh_count = args.meshes.unwrap_or(instances).clamp(1, instances);
    let t = Instant::now();
    let template = cylinder(args.vertices, args.bones, influences)?;
    let meshes: Vec<SkinVertices> = (0..mesh_count)
        .map(|m| variant(&template, &mut rng, format!("cylinder {m}")))
        .collect();
    let refs: Vec<&SkinVertices> = meshes.iter().collect();
    let which: Vec<usize> = (0..instances).map(|i| i % mesh_count).collect();
    let mut bones = Vec::with_capacity(instances * args.bones);
    for _ in 0..instances {
        pose(&mut rng, args.bones, &mut bones);
    }
    let vertices = (instances * args.vertices) as u64;
    eprintln!(
        "  {instances} instances × {} vertices, {influences} influences, {mesh_count} meshes: built in {:.1} s",
        args.vertices,
        t.elapsed().as_secs_f64()
    );
    let expected = Influences::for_count(influences);
    let mut rows = Vec::new();
    let row = |method, layout, bytes: (u64, u64), seconds| Row {
        instances,
        influences,
        method,
        layout,
        read: bytes.0,
        write: bytes.1,
        vertices,
        seconds,
    };
    {
        let m = time_matrix_skinning(ctx, &refs, &which, &bones, |encode| {
            median_dispatch_seconds(ctx, args.runs, encode)
        })?;
        check_packing("matrix", m.influences, expected)?;
        let bpv = m.bytes_per_vertex;
        rows.push(row("matrix LBS", MATRIX_LAYOUT, (bpv - 40, 40), m.seconds));
    }
    let mut batch = pipeline.batch(ctx, &refs, &which, SkinMethod::Linear)?;
    check_packing("quaternion", batch.influences(), expected)?;
    batch.set_bones(ctx, &bones)?;
    for method in SkinMethod::ALL {
        batch.set_method(method);
        poison(ctx, batch.output());
        let s = median_dispatch_seconds(ctx, args.runs, &|e, ts| batch.encode(e, ts))?;
        let name = match method {
            SkinMethod::Linear => "quaternion LBS",
            SkinMethod::DualQuaternion => "quaternion DQS",
        };
        check_finite(name, batch.read(ctx)?.iter().map(|v| v.position))?;
        let bpv = batch.bytes_per_vertex();
        rows.push(row(name, QUAT_LAYOUT, (bpv - 20, 20), s));
    }
    Ok(rows)
}

/// Whether a batch of `vertices` fits the device's storage-binding limit in every layout (the
/// largest buffer: the matrix input, 88 B a vertex with 8 influences), checked before the
/// meshes are built.
fn fits(ctx: &GpuContext, vertices: u64, influences: usize) -> bool {
    let l = ctx.device.limits();
    let largest = vertices * input_words(Influences::for_count(influences)) as u64 * 4;
    largest <= l.max_storage_buffer_binding_size.min(l.max_buffer_size)
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    if args.vertices == 0 || args.bones == 0 || args.bones > qtangent::skin::MAX_JOINTS {
        return Err(format!(
            "--vertices must be ≥ 1 and --bones in 1..={}",
            qtangent::skin::MAX_JOINTS
        )
        .into());
    }
    if args.instances.contains(&0) {
        return Err("--instances must be ≥ 1".into());
    }
    let runs = args.runs.max(1);
    let ctx = GpuContext::new()?;
    let timing = clock(&ctx);
    println!("adapter: {}", ctx);
    println!(
        "instances: {:?} × {} vertices, {} bones each, meshes: {}, runs: {runs} (median after 3 warm-up runs), GPU timing: {timing}",
        args.instances,
        args.vertices,
        args.bones,
        args.meshes.map_or("one per instance".to_string(), |m| m.to_string()),
    );
    let copy = copy_bandwidth(&ctx, runs)?;
    println!(
        "buffer→buffer copy: {:.1} GB/s ({} MiB, bytes read + bytes written, host clock)",
        copy.0,
        copy.1 >> 20
    );
    let pipeline = SkinPipeline::new(&ctx)?;
    let mut rows = Vec::new();
    for &instances in &args.instances {
        for influences in [4, 8] {
            let vertices = (instances * args.vertices) as u64;
            if !fits(&ctx, vertices, influences) {
                println!(
                    "skipped: {instances} instances × {} vertices with {influences} influences exceeds this device's storage-binding limit",
                    args.vertices
                );
                continue;
            }
            rows.extend(bench_size(&ctx, &pipeline, &args, instances, influences)?);
        }
    }
    println!();
    println!("| instances | vertices | infl. | method | layout | B/vertex (read + write) | median ms | Mvertices/s | GB/s | % of copy | time / matrix | bytes / matrix |");
    println!("|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        let baseline = rows
            .iter()
            .find(|b| {
                b.instances == r.instances
                    && b.influences == r.influences
                    && b.method == "matrix LBS"
            })
            .unwrap_or(r);
        let bytes = (r.read + r.write) as f64 * r.vertices as f64;
        let gbs = bytes / r.seconds / 1e9;
        println!(
            "| {} | {} | {} | {} | {} | {} ({} + {}) | {:.3} | {:.0} | {:.1} | {:.0}% | {:.2}× | {:.2}× |",
            r.instances,
            r.vertices,
            r.influences,
            r.method,
            r.layout,
            r.read + r.write,
            r.read,
            r.write,
            r.seconds * 1e3,
            r.vertices as f64 / r.seconds / 1e6,
            gbs,
            100.0 * gbs / copy.0,
            r.seconds / baseline.seconds,
            (r.read + r.write) as f64 / (baseline.read + baseline.write) as f64,
        );
    }
    Ok(())
}

/// Fills `buffer` with 0xff bytes (NaN as f32, −1 as snorm16) before a kernel writes it, so an
/// output it never wrote cannot pass a check.
fn poison(ctx: &GpuContext, buffer: &wgpu::Buffer) {
    ctx.queue
        .write_buffer(buffer, 0, &vec![0xffu8; buffer.size() as usize]);
}
