//! The `frame_diff` tool's job in one call: both files loaded and compared, and the result as a
//! text report or as one row of the gltfpack table (`cargo xtask gltfpack-table`).

use std::fmt::Write as _;
use std::path::Path;

use super::{compare_frames, FrameDiff, FrameDiffError, Tolerance, WorldVertices};
use crate::measure::ErrorStat;
use crate::mesh;

/// How far a candidate vertex may lie from its source vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// Bit-for-bit equal positions and UVs (a file against itself).
    Exact,
    /// The candidate stores f32 positions and UVs (qtangent's `pack`): rounding only.
    Float,
    /// The candidate's positions and UVs were quantised to these bits (gltfpack's `-vp` and
    /// `-vt`; its defaults are 14 and 12).
    Quantised {
        /// Position bits.
        position_bits: u32,
        /// UV bits.
        uv_bits: u32,
    },
}

/// What [`frame_diff`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffOutput {
    /// The text report, listing the `worst` matched vertices with the largest error.
    Report {
        /// How many of the worst vertices to list (0 for none).
        worst: usize,
    },
    /// One markdown table row labelled `label`, after the table's header when `header`.
    Row {
        /// The row's first cell.
        label: String,
        /// Whether the header and alignment rows come first.
        header: bool,
    },
}

/// The markdown table's header and alignment row.
const HEADER: &str = "| file | size (MB) | without images (kB) | vertices | frame B/vertex | frame attributes | n mean / max (°) | t mean / max (°) | b mean / max (°) | handedness kept | unmatched / uncovered |\n|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|";

/// How far the rewritten file `candidate`'s tangent frames are from those of `source`, the file
/// it was made from (see the module docs for how vertices are matched), with the candidate's
/// frame bytes per vertex and its size read from the file (`?` where it is not glTF): the text
/// `output` asks for, lines ending in `\n`.
///
/// # Errors
/// A file that does not load or prepare, or whose vertices cannot be placed in world space.
pub fn frame_diff(
    source: &Path,
    candidate: &Path,
    matching: Matching,
    output: &DiffOutput,
) -> Result<String, FrameDiffError> {
    let s = WorldVertices::from_scene(&mesh::load(source)?)?;
    let c = WorldVertices::from_scene(&mesh::load(candidate)?)?;
    let tolerance = match matching {
        Matching::Exact => Tolerance::EXACT,
        Matching::Float => Tolerance::for_float(&s),
        Matching::Quantised {
            position_bits,
            uv_bits,
        } => Tolerance::for_quantisation(&s, position_bits, uv_bits),
    };
    let diff = compare_frames(&s, &c, tolerance);
    let bytes = Bytes::read(candidate);
    let mut out = String::new();
    match output {
        DiffOutput::Row { label, header } => {
            if *header {
                let _ = writeln!(out, "{HEADER}");
            }
            let _ = writeln!(out, "{}", row(label, &diff, &bytes));
        }
        DiffOutput::Report { worst } => {
            let files = (source, candidate);
            report(&mut out, files, matching, tolerance, &diff, &bytes);
            worst_vertices(&mut out, &diff, (&s, &c), *worst);
        }
    }
    Ok(out)
}

/// The candidate's frame bytes, formatted for the table and the report (`None` for a file
/// whose JSON cannot be read, as an OBJ).
struct Bytes(Option<super::FrameAttributeBytes>);

impl Bytes {
    #[cfg(feature = "gltf")]
    fn read(path: &Path) -> Self {
        Self(super::frame_attribute_bytes(path).ok())
    }

    #[cfg(not(feature = "gltf"))]
    fn read(_: &Path) -> Self {
        Self(None)
    }
}

fn row(label: &str, d: &FrameDiff, bytes: &Bytes) -> String {
    let pair = |s: &ErrorStat| format!("{:.3} / {:.3}", s.mean(), s.max);
    let (size, data, per_vertex, layouts) = bytes.0.as_ref().map_or_else(
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

fn report(
    out: &mut String,
    (source, candidate): (&Path, &Path),
    matching: Matching,
    t: Tolerance,
    d: &FrameDiff,
    bytes: &Bytes,
) {
    let _ = writeln!(
        out,
        "source    {}: {} vertices drawn",
        source.display(),
        d.source_vertices
    );
    let _ = writeln!(
        out,
        "candidate {}: {} vertices drawn",
        candidate.display(),
        d.candidate_vertices
    );
    if let Some(b) = &bytes.0 {
        let _ = writeln!(
            out,
            "          {} bytes ({} without images); frames {:.2} B/vertex: {}",
            b.file_bytes,
            b.file_bytes.saturating_sub(b.image_bytes),
            b.per_vertex(),
            b.layouts.join("; ")
        );
    }
    let how = match matching {
        Matching::Exact => " (exact)".to_string(),
        Matching::Float => " (f32 positions and UVs)".to_string(),
        Matching::Quantised {
            position_bits,
            uv_bits,
        } => format!(" ({position_bits}-bit positions, {uv_bits}-bit UVs)"),
    };
    let _ = writeln!(
        out,
        "tolerance position {:.3e}, uv {:.3e}{how}",
        t.position, t.uv
    );
    let _ = writeln!(
        out,
        "matched   {} of {} candidate vertices ({} unmatched); {} source vertices uncovered",
        d.errors.frames, d.candidate_vertices, d.unmatched, d.uncovered
    );
    for (name, s) in [
        ("normal", &d.errors.normal),
        ("tangent", &d.errors.tangent),
        ("bitangent", &d.errors.bitangent),
    ] {
        let _ = writeln!(out, "{name:<9} mean {:.4}°  max {:.4}°", s.mean(), s.max);
    }
    let _ = writeln!(
        out,
        "handedness kept {:.3}% ({} of {} changed)",
        100.0 * d.handedness_kept(),
        d.errors.handedness_errors,
        d.errors.frames
    );
}

/// The `n` matched vertices with the largest error, with both frames.
fn worst_vertices(
    out: &mut String,
    d: &FrameDiff,
    (source, candidate): (&WorldVertices, &WorldVertices),
    n: usize,
) {
    for w in d.worst(source, candidate, n) {
        let (s, c) = (&source.frames[w.source], &candidate.frames[w.candidate]);
        let _ = writeln!(
            out,
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
