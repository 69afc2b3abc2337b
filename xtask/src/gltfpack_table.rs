//! `cargo xtask gltfpack-table`: gltfpack (default settings, `-vn 16`, `-c`, `-cc`),
//! glTF-Transform's `optimize`, and qtangent's `pack` (quantised as gltfpack quantises, with and
//! without `--compress meshopt`, with tangent-space maps and their normal-map fallbacks kept or
//! dropped, and f32 for reference) on FlightHelmet and the Fox from the shared assets. Each
//! output is measured against its source by `qtangent diff` (`cli/src/diff.rs`; file size with and
//! without images, frame bytes per vertex read from the written file's accessors, the n/t/b
//! angle errors, handedness kept, unmatched vertices, the largest position and UV moves), then
//! judged: Khronos' validator (its error count), and `gltf-transform copy` (whether the copy
//! loads in qtangent and keeps the file's frames). Printed as one markdown table
//! (docs/GLTFPACK.md), then the corpus table (`corpus_table.rs`).

use std::path::Path;
use std::process::Command;

use crate::npm;

/// The assets measured, relative to the assets folder.
const ASSETS: &[(&str, &str)] = &[
    ("FlightHelmet", "gltf/FlightHelmet/FlightHelmet.gltf"),
    ("Fox", "gltf/Fox.glb"),
];

/// One candidate: its label, the tool and its arguments, and how `frame_diff` matches it.
struct Run {
    label: &'static str,
    /// The output's name after the asset's: `Fox-<file>.glb`.
    file: &'static str,
    tool: Tool,
    args: &'static [&'static str],
    /// `frame_diff`'s matching flags: the quantisation bits, or `--float` for f32.
    matching: &'static [&'static str],
    /// Only for assets with normal maps (the tangent-space map rows).
    needs_normal_maps: bool,
    /// More arguments after `args`.
    extra: &'static [&'static str],
}

enum Tool {
    Gltfpack,
    GltfTransform,
    Pack,
}

/// gltfpack's and `pack`'s default quantisation (-vp 14, -vt 12), and glTF-Transform's
/// `optimize` (its `quantize` step: 14-bit positions, 12-bit UVs).
const QUANTISED: &[&str] = &["--position-bits", "14", "--uv-bits", "12"];

const fn run(
    label: &'static str,
    file: &'static str,
    tool: Tool,
    args: &'static [&'static str],
) -> Run {
    Run {
        label,
        file,
        tool,
        args,
        matching: QUANTISED,
        needs_normal_maps: false,
        extra: &[],
    }
}

/// `pack --frames smallest3x4 --maps tangent --compress meshopt` and `extra`, for assets with
/// normal maps.
const fn maps_run(label: &'static str, file: &'static str, extra: &'static [&'static str]) -> Run {
    Run {
        needs_normal_maps: true,
        extra,
        ..run(
            label,
            file,
            Tool::Pack,
            &[
                "--frames",
                "smallest3x4",
                "--maps",
                "tangent",
                "--compress",
                "meshopt",
            ],
        )
    }
}

const RUNS: &[Run] = &[
    run("gltfpack", "gltfpack", Tool::Gltfpack, &[]),
    run(
        "gltfpack -vn 16",
        "gltfpack-vn16",
        Tool::Gltfpack,
        &["-vn", "16"],
    ),
    run("gltfpack -c", "gltfpack-c", Tool::Gltfpack, &["-c"]),
    run("gltfpack -cc", "gltfpack-cc", Tool::Gltfpack, &["-cc"]),
    run(
        "gltf-transform optimize",
        "gltf-transform-optimize",
        Tool::GltfTransform,
        &["optimize"],
    ),
    Run {
        label: "pack --frames smallest3x4 --maps none --float",
        file: "pack-smallest3x4-float",
        tool: Tool::Pack,
        args: &["--frames", "smallest3x4", "--maps", "none", "--float"],
        matching: &["--float"],
        needs_normal_maps: false,
        extra: &[],
    },
    run(
        "pack --frames smallest3x4 --maps none",
        "pack-smallest3x4",
        Tool::Pack,
        &["--frames", "smallest3x4", "--maps", "none"],
    ),
    // The frames stored where the source has no NORMAL (the Fox); elsewhere the default's file.
    run(
        "pack --frames smallest3x4 --maps none --flat-frames",
        "pack-smallest3x4-flat-frames",
        Tool::Pack,
        &["--frames", "smallest3x4", "--maps", "none", "--flat-frames"],
    ),
    run(
        "pack --frames snorm16x4 --maps none",
        "pack-snorm16x4",
        Tool::Pack,
        &["--frames", "snorm16x4", "--maps", "none"],
    ),
    run(
        "pack --frames smallest3x4 --maps none --compress meshopt",
        "pack-smallest3x4-meshopt",
        Tool::Pack,
        &[
            "--frames",
            "smallest3x4",
            "--maps",
            "none",
            "--compress",
            "meshopt",
        ],
    ),
    maps_run(
        "pack --frames smallest3x4 --maps tangent --compress meshopt (normal maps kept)",
        "pack-smallest3x4-tangent-meshopt",
        &[],
    ),
    maps_run(
        "pack --frames smallest3x4 --maps tangent --compress meshopt --normal-maps drop",
        "pack-smallest3x4-tangent-meshopt-drop",
        &["--normal-maps", "drop"],
    ),
];

/// The judges' columns, after `frame_diff`'s.
const JUDGE_HEADER: [&str; 2] = [
    " validator errors | after `gltf-transform copy` |",
    "---:|---|",
];

/// Runs every tool on every asset into `target/gltfpack-table/` and prints the table.
pub fn run_table(root: &Path, assets: &Path) -> Result<(), String> {
    let judges = npm::ensure(root)?.ok_or(
        "gltfpack-table needs node and npm (apt-get install nodejs npm) for gltfpack and glTF-Transform; see the note above",
    )?;
    let out = root.join("target/gltfpack-table");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    crate::cargo(root, &["build", "--release", "--package", "qtangent-cli"])?;
    let mut table = Vec::new();
    for (i, (name, rel)) in ASSETS.iter().enumerate() {
        let source = assets.join(rel);
        if !source.is_file() {
            return Err(format!(
                "{} not found ({})",
                source.display(),
                crate::ASSETS_HINT
            ));
        }
        let has_normal_maps = std::fs::read(&source)
            .is_ok_and(|b| String::from_utf8_lossy(&b).contains("normalTexture"));
        let source = source.to_string_lossy().into_owned();
        let label = format!("{name}: source");
        let mut diff = vec![source.as_str(), &source, "--exact", "--row", &label];
        if i == 0 {
            diff.push("--header");
        }
        let rows = frame_diff(root, &diff)?;
        table.push(with_judges(&rows, &judge(root, &judges, &source, &out)));
        for run in RUNS
            .iter()
            .filter(|r| has_normal_maps || !r.needs_normal_maps)
        {
            let file = out.join(format!("{name}-{}.glb", run.file));
            let file = file.to_string_lossy().into_owned();
            match run.tool {
                Tool::Gltfpack => {
                    let args = [&["-i", source.as_str(), "-o", &file], run.args].concat();
                    npm::gltfpack(&judges, &args)?;
                }
                Tool::GltfTransform => {
                    let args = [run.args, &[source.as_str(), &file]].concat();
                    npm::gltf_transform(&judges, &args)?;
                }
                Tool::Pack => {
                    let args =
                        [&["pack", source.as_str(), "-o", &file], run.args, run.extra].concat();
                    crate::command(root, &args)?;
                }
            }
            let label = format!("{name}: {}", run.label);
            let args = [&[source.as_str(), &file, "--row", &label], run.matching].concat();
            let row = frame_diff(root, &args).unwrap_or_else(|e| {
                format!(
                    "| {label} | does not load in qtangent: {} |\n",
                    first_line(&e)
                )
            });
            table.push(with_judges(&row, &judge(root, &judges, &file, &out)));
        }
    }
    println!("\n{}", table.concat());
    crate::corpus_table::run(root, assets, &judges)
}

/// `rows` (frame_diff's header lines, if any, and its row) with `judged` appended to the row
/// and the judges' header to the header lines.
fn with_judges(rows: &str, judged: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = rows.lines().collect();
    let header = lines.len().saturating_sub(1);
    for (k, line) in lines.iter().enumerate() {
        out.push_str(line);
        if k < header {
            out.push_str(JUDGE_HEADER[k.min(1)]);
        } else {
            out.push_str(judged);
        }
        out.push('\n');
    }
    out
}

/// The judges' cells for `file`: the validator's error count, and what `gltf-transform copy`
/// makes of it (loads in qtangent with the same frames, or not).
fn judge(root: &Path, judges: &Path, file: &str, out: &Path) -> String {
    let validate = root.join("xtask/npm/validate.mjs");
    let dir = judges.to_string_lossy();
    let errors = npm::node(&validate, &[file, &dir])
        .ok()
        .and_then(|report| num_errors(&report))
        .map_or_else(|| "?".to_string(), |n| n.to_string());
    let copy = out.join("copy.glb");
    let copy = copy.to_string_lossy();
    let after = match npm::gltf_transform(judges, &["copy", file, &copy]) {
        Err(e) => format!("copy fails: {}", first_line(&e)),
        Ok(()) => match frame_diff(root, &[file, &copy, "--exact", "--row", "copy"]) {
            Err(e) => format!("does not load: {}", first_line(&e)),
            Ok(row) => kept(&row),
        },
    };
    format!(" {errors} | {after} |")
}

/// "frames kept" when a copy's row (against the file it copies) has every vertex matched and
/// no angle, else what changed.
fn kept(row: &str) -> String {
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    // | label | size | data | vertices | B/v | layouts | n | t | b | handedness | un/uncovered |
    let max = |cell: &str| -> f64 {
        cell.rsplit('/')
            .next()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(f64::NAN)
    };
    let worst = (7..=9)
        .map(|k| cells.get(k).map_or(f64::NAN, |c| max(c)))
        .fold(0.0f64, f64::max);
    let unmatched = cells.get(11).copied().unwrap_or("?");
    let layouts = cells.get(6).copied().unwrap_or("?");
    if worst == 0.0 && unmatched == "0 / 0" {
        format!("frames kept ({layouts})")
    } else {
        format!("frames changed: {worst:.3}° max, unmatched / uncovered {unmatched} ({layouts})")
    }
}

/// The `numErrors` of a validator report (xtask reads no JSON otherwise, so no parser).
pub(crate) fn num_errors(report: &str) -> Option<u64> {
    let at = report.find("\"numErrors\"")? + "\"numErrors\"".len();
    let rest = report[at..].trim_start().strip_prefix(':')?.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

pub(crate) fn first_line(e: &str) -> &str {
    e.lines().find(|l| !l.trim().is_empty()).unwrap_or(e)
}

/// `qtangent diff ARGS`'s standard output (its rows), failing with its error.
pub(crate) fn frame_diff(root: &Path, args: &[&str]) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(&cargo)
        .args([
            "run",
            "--quiet",
            "--release",
            "--package",
            "qtangent-cli",
            "--",
            "diff",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| format!("could not run {cargo}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "qtangent diff {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
