//! `qtangent diff`: how far a rewritten file's frames are from its source's (gltfpack's output,
//! `pack`'s, any optimiser's), matched vertex by vertex in world space within the tolerance of
//! the candidate's quantisation (`qtangent::lab::frame_diff`, docs/GLTFPACK.md).

use std::path::PathBuf;

use clap::Args;
use qtangent::lab::frame_diff::{diff_files, DiffOutput, Matching};

/// `qtangent diff`'s flags.
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The original file (.gltf, .glb, .obj).
    source: PathBuf,
    /// The rewritten file.
    candidate: PathBuf,
    /// Bits the candidate's positions were quantised to (gltfpack's -vp, pack's --position-bits).
    #[arg(long, default_value_t = 14)]
    position_bits: u32,
    /// Bits the candidate's UVs were quantised to (gltfpack's -vt, pack's --uv-bits).
    #[arg(long, default_value_t = 12)]
    uv_bits: u32,
    /// Match positions and UVs exactly (a file against itself).
    #[arg(long, conflicts_with = "float")]
    exact: bool,
    /// The candidate stores f32 positions and UVs (pack --float): allow rounding only.
    #[arg(long)]
    float: bool,
    /// Also list the N matched vertices with the largest error (the text report only).
    #[arg(long, value_name = "N", default_value_t = 0)]
    worst: usize,
    /// Print one markdown table row labelled LABEL instead of the report (as `cargo xtask
    /// gltfpack-table` collects them).
    #[arg(long, value_name = "LABEL")]
    row: Option<String>,
    /// With --row: print the table's header first.
    #[arg(long, requires = "row")]
    header: bool,
}

/// Runs `qtangent diff`: the report on stdout; `Err` (status 2) for a file that is missing,
/// `Ok(false)` (status 1) for one that does not load or when no vertex matched.
pub fn run(args: &DiffArgs) -> Result<bool, String> {
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
    let output = match &args.row {
        Some(label) => DiffOutput::Row {
            label: label.clone(),
            header: args.header,
        },
        None => DiffOutput::Report { worst: args.worst },
    };
    for file in [&args.source, &args.candidate] {
        crate::files::must_be_file("", file)?;
    }
    let (text, matched) = match diff_files(&args.source, &args.candidate, matching, &output) {
        Ok(done) => done,
        Err(e) => {
            eprintln!("qtangent diff: {e}");
            return Ok(false);
        }
    };
    // A reader that stops early (`| head`) is not an error.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
    if matched == 0 {
        eprintln!(
            "qtangent diff: {} and {} share no vertex (positions and UVs within the matching tolerance): nothing was compared",
            args.source.display(),
            args.candidate.display()
        );
    }
    Ok(matched > 0)
}
