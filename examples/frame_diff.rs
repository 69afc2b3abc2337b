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
//! source's frame are measured (`qtangent::lab::frame_diff::diff_files`). The candidate's frame bytes per
//! vertex and its size are read from the file. `--row LABEL` prints one markdown table row
//! instead of the text report (`--header` the table's header before it), as `cargo xtask
//! gltfpack-table` collects them; `--worst N` lists the N vertices with the largest error.
//! Errors exit with status 1 and one line.

use std::path::PathBuf;

use clap::Parser;
use qtangent::lab::frame_diff::{diff_files, DiffOutput, Matching};

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
    let matching = if args.exact {
        Matching::Exact
    } else if args.float {
        Matching::Float
    } else {
        Matching::Quantised {
            position_bits: args.position_bits,
            uv_bits: args.uv_bits,
        }
    };
    let output = match args.row {
        Some(label) => DiffOutput::Row {
            label,
            header: args.header,
        },
        None => DiffOutput::Report { worst: args.worst },
    };
    match diff_files(&args.source, &args.candidate, matching, &output) {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("frame_diff: {e}");
            std::process::exit(1);
        }
    }
}
