//! Mesh preparation throughput: `Primitive::prepare` (normals supplied, tangents generated,
//! mirror splits, frames) with meshoptimizer's MikkTSpace-compatible generator (the default) and
//! with the MikkTSpace reference port (`exact_mikktspace`), beside the two generators called
//! alone on the same mesh: meshoptimizer's `generateTangents` (`Compatible`) and
//! `bevy_mikktspace`. Tori of about 0.25, 1 and 4 M triangles with normals and UVs, in one
//! process; the median of RUNS (each after one warm-up at the smallest size), and the peak
//! resident memory of each `prepare` (Linux: the high-water mark reset before it).
//!
//! `cargo run --release -p qtangent-lab --bin prepare_bench [-- RUNS]` (default 3; `cargo xtask
//! bench` runs it). Prints Markdown tables; nothing asserts a time.

use std::time::Instant;

use glam::{Vec2, Vec3};
use qtangent::mesh::Primitive;

#[path = "../../../examples/common/console.rs"]
mod console;
#[path = "../../../examples/common/timing.rs"]
mod timing;

const USAGE: &str = "usage: cargo run --release -p qtangent-lab --bin prepare_bench [-- RUNS]";

fn main() -> std::process::ExitCode {
    if console::asked_for_help(USAGE) {
        return std::process::ExitCode::SUCCESS;
    }
    console::finish("prepare_bench", run())
}

/// The tori: (segments, rings) with 2 · segments · rings triangles.
const SIZES: [(u32, u32); 3] = [(500, 250), (1000, 500), (2000, 1000)];

/// MikkTSpace over an indexed mesh, as `Primitive::prepare` feeds it (`(u, 1 − v)`).
struct Mikk<'a> {
    p: &'a Primitive,
    normals: &'a [Vec3],
    uvs: &'a [Vec2],
    out: Vec<[f32; 4]>,
}

impl bevy_mikktspace::Geometry for Mikk<'_> {
    fn num_faces(&self) -> usize {
        self.p.indices.len() / 3
    }
    fn num_vertices_of_face(&self, _: usize) -> usize {
        3
    }
    fn position(&self, f: usize, v: usize) -> [f32; 3] {
        self.p.positions[self.p.indices[f * 3 + v] as usize].to_array()
    }
    fn normal(&self, f: usize, v: usize) -> [f32; 3] {
        self.normals[self.p.indices[f * 3 + v] as usize].to_array()
    }
    fn tex_coord(&self, f: usize, v: usize) -> [f32; 2] {
        let uv = self.uvs[self.p.indices[f * 3 + v] as usize];
        [uv.x, 1.0 - uv.y]
    }
    fn set_tangent(&mut self, t: Option<bevy_mikktspace::TangentSpace>, f: usize, v: usize) {
        self.out[f * 3 + v] = t.map_or([0.0; 4], |t| t.tangent_encoded());
    }
}

/// Peak resident memory since the last [`reset_peak`], MiB (Linux; NaN elsewhere).
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// Resets the peak resident memory to the current (Linux `clear_refs` 5).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Median seconds of `f` over `runs` runs.
fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    timing::median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn run() -> Result<(), String> {
    let runs: usize = match console::positional(1)? {
        None => 3,
        Some(a) => a.parse().map_err(|e| format!("RUNS ({a:?}): {e}"))?,
    };
    println!(
        "# Mesh preparation (tori with normals and UVs; median of {runs} runs, M triangles/s)\n"
    );
    println!("| triangles | prepare (default: meshoptimizer) | prepare --exact-mikktspace | meshoptimizer generateTangents alone | bevy_mikktspace alone | prepare / generateTangents | peak memory, prepare (MiB) |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    // One warm-up of everything at the smallest size.
    let warm = Primitive::torus(1.0, 0.35, 100, 50);
    let _ = warm.prepare();
    for (segments, rings) in SIZES {
        let p = Primitive::torus(1.0, 0.35, segments, rings);
        let exact = Primitive {
            exact_mikktspace: true,
            ..p.clone()
        };
        let triangles = p.indices.len() / 3;
        let normals = p.normals.clone().ok_or("the torus has normals")?;
        let uvs = p.uvs.clone().ok_or("the torus has UVs")?;
        let flipped: Vec<[f32; 2]> = uvs.iter().map(|uv| [uv.x, 1.0 - uv.y]).collect();
        let rate = |s: f64| triangles as f64 / s / 1e6;
        reset_peak();
        let base = peak_mib();
        let prepare = time(runs, || {
            let _ = std::hint::black_box(p.prepare());
        });
        let peak = peak_mib() - base;
        let prepare_exact = time(runs, || {
            let _ = std::hint::black_box(exact.prepare());
        });
        let meshopt = time(runs, || {
            std::hint::black_box(meshopt::generate_tangents(
                Some(&p.indices),
                bytemuck::cast_slice(&p.positions),
                bytemuck::cast_slice(&normals),
                &flipped,
                meshopt::TangentOptions::Compatible,
            ));
        });
        let mikk = time(runs, || {
            let mut m = Mikk {
                p: &p,
                normals: &normals,
                uvs: &uvs,
                out: vec![[0.0; 4]; p.indices.len()],
            };
            let _ = bevy_mikktspace::generate_tangents(&mut m);
            std::hint::black_box(m.out);
        });
        println!(
            "| {:.2} M | {:.2} | {:.2} | {:.2} | {:.2} | {:.2}× | {:.0} (above {:.0} before) |",
            triangles as f64 / 1e6,
            rate(prepare),
            rate(prepare_exact),
            rate(meshopt),
            rate(mikk),
            meshopt / prepare,
            peak,
            base,
        );
    }
    println!(
        "\n`prepare / generateTangents`: the share of meshoptimizer's generator-alone throughput that the whole preparation reaches (issue 42's target: ≥ 0.5×). Peak memory: the growth of the resident high-water mark over the mesh's own memory while `prepare` ran."
    );
    Ok(())
}
