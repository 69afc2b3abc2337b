//! How far a rewritten file's tangent frames are from the original's: gltfpack's output, or
//! `pack`'s, against the file it was made from.
//!
//! `cargo run --release --example frame_diff -- SOURCE CANDIDATE [--position-bits N]
//! [--uv-bits N | --float | --exact] [--worst N] [--row LABEL [--header]]`
//!
//! Both files are loaded and prepared; every candidate vertex is matched in world space (skinned
//! meshes in their bind pose) to the nearest source vertex with the same UV, within a tolerance
//! derived from the candidate's quantisation (`--position-bits`, `--uv-bits`: gltfpack's `-vp`
//! and `-vt`, defaults 14 and 12; `--float` for f32 storage, as `pack` writes; `--exact` for
//! none), and the angles of n, t and b to the
//! source's frame are measured (`qtangent::lab::frame_diff::compare_frames`). The candidate's frame bytes per
//! vertex and its size are read from the file. `--row LABEL` prints one markdown table row
//! instead of the text report (`--header` the table's header before it), as `cargo xtask
//! gltfpack-table` collects them; `--worst N` lists the N vertices with the largest error.
//! Errors exit with status 1 and one line.

use std::path::PathBuf;

use clap::Parser;
use qtangent::lab::frame_diff::{
    compare_frames, FrameAttributeBytes, FrameDiff, FrameDiffError, Tolerance, WorldVertices,
};
use qtangent::mesh;

#[derive(Parser)]
#[command(about = "Frame error of a rewritten glTF (gltfpack, pack) against its source")]
struct Args {
    /// The original file (.gltf, .glb, .obj).
    source: PathBuf,
    /// The rewritten file.
    candidate: PathBuf,
    /// Bits the candidate's positions were quantised to (gltfpack -vp).
    #[arg(long, default_value_t = 14)]
    position_bits: u32,
    /// Bits the candidate's UVs were quantised to (gltfpack -vt).
    #[arg(long, default_value_t = 12)]
    uv_bits: u32,
    /// Match positions and UVs exactly (a file against itself).
    #[arg(long, conflicts_with = "float")]
    exact: bool,
    /// The candidate stores f32 positions and UVs (qtangent's `pack`): allow rounding only.
    #[arg(long)]
    float: bool,
    /// Print one markdown table row labelled LABEL instead of the report.
    #[arg(long, value_name = "LABEL")]
    row: Option<String>,
    /// Also list the N matched vertices with the largest error (text report only).
    #[arg(long, value_name = "N", default_value_t = 0)]
    worst: usize,
    /// With --row: print the table's header first.
    #[arg(long, requires = "row")]
    header: bool,
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(&args) {
        eprintln!("frame_diff: {e}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), FrameDiffError> {
    let source = WorldVertices::from_scene(&mesh::load(&args.source)?)?;
    let candidate = WorldVertices::from_scene(&mesh::load(&args.candidate)?)?;
    let tolerance = if args.exact {
        Tolerance::EXACT
    } else if args.float {
        Tolerance::for_float(&source)
    } else {
        Tolerance::for_quantisation(&source, args.position_bits, args.uv_bits)
    };
    let diff = compare_frames(&source, &candidate, tolerance);
    let bytes = qtangent::lab::frame_diff::frame_attribute_bytes(&args.candidate).ok();
    match &args.row {
        Some(label) => {
            if args.header {
                println!("{HEADER}");
            }
            println!("{}", row(label, &diff, bytes.as_ref()));
        }
        None => {
            report(args, tolerance, &diff, bytes.as_ref());
            for w in diff.worst(&source, &candidate, args.worst) {
                let (s, c) = (&source.frames[w.source], &candidate.frames[w.candidate]);
                println!(
                    "worst     candidate {} at {} uv {}: n {:.3}° t {:.3}° b {:.3}°\n          source n {} t {} b {}\n          candidate n {} t {} b {}",
                    w.candidate,
                    candidate.positions[w.candidate],
                    candidate.uvs[w.candidate],
                    w.angles[0],
                    w.angles[1],
                    w.angles[2],
                    s.normal,
                    s.tangent,
                    s.bitangent,
                    c.normal,
                    c.tangent,
                    c.bitangent
                );
            }
        }
    }
    Ok(())
}

/// The markdown table's header and alignment row.
const HEADER: &str = "| file | size (MB) | without images (kB) | vertices | frame B/vertex | frame attributes | n mean / max (°) | t mean / max (°) | b mean / max (°) | handedness kept | unmatched / uncovered |\n|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|";

fn row(label: &str, d: &FrameDiff, bytes: Option<&FrameAttributeBytes>) -> String {
    let pair = |s: &qtangent::measure::ErrorStat| format!("{:.3} / {:.3}", s.mean(), s.max);
    let (size, data, per_vertex, layouts) = bytes.map_or_else(
        || ("?".into(), "?".into(), "?".into(), "?".into()),
        |b| {
            (
                format!("{:.2}", b.file_bytes as f64 / 1e6),
                format!(
                    "{:.0}",
                    b.file_bytes.saturating_sub(b.image_bytes) as f64 / 1e3
                ),
                format!("{:.1}", b.per_vertex()),
                b.layouts.join("; "),
            )
        },
    );
    format!(
        "| {label} | {size} | {data} | {} | {per_vertex} | {layouts} | {} | {} | {} | {:.3}% | {} / {} |",
        d.candidate_vertices,
        pair(&d.errors.normal),
        pair(&d.errors.tangent),
        pair(&d.errors.bitangent),
        100.0 * d.handedness_kept(),
        d.unmatched,
        d.uncovered
    )
}

fn report(args: &Args, t: Tolerance, d: &FrameDiff, bytes: Option<&FrameAttributeBytes>) {
    println!(
        "source    {}: {} vertices drawn",
        args.source.display(),
        d.source_vertices
    );
    println!(
        "candidate {}: {} vertices drawn",
        args.candidate.display(),
        d.candidate_vertices
    );
    if let Some(b) = bytes {
        println!(
            "          {} bytes ({} without images); frames {:.2} B/vertex: {}",
            b.file_bytes,
            b.file_bytes.saturating_sub(b.image_bytes),
            b.per_vertex(),
            b.layouts.join("; ")
        );
    }
    println!(
        "tolerance position {:.3e}, uv {:.3e}{}",
        t.position,
        t.uv,
        if args.exact {
            " (exact)".to_string()
        } else if args.float {
            " (f32 positions and UVs)".to_string()
        } else {
            format!(
                " ({}-bit positions, {}-bit UVs)",
                args.position_bits, args.uv_bits
            )
        }
    );
    println!(
        "matched   {} of {} candidate vertices ({} unmatched); {} source vertices uncovered",
        d.errors.frames, d.candidate_vertices, d.unmatched, d.uncovered
    );
    for (name, s) in [
        ("normal", &d.errors.normal),
        ("tangent", &d.errors.tangent),
        ("bitangent", &d.errors.bitangent),
    ] {
        println!("{name:<9} mean {:.4}°  max {:.4}°", s.mean(), s.max);
    }
    println!(
        "handedness kept {:.3}% ({} of {} changed)",
        100.0 * d.handedness_kept(),
        d.errors.handedness_errors,
        d.errors.frames
    );
}
