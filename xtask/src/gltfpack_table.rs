//! `cargo xtask gltfpack-table`: gltfpack (default settings, and `-vn 16`) and qtangent's `pack`
//! (`--format smallest3x4` and `snorm16x4`, `--maps none`) on FlightHelmet and the Fox from the
//! shared assets, each output measured against its source by `examples/frame_diff.rs`: file
//! size, frame bytes per vertex read from the written file's accessors, the n/t/b angle errors,
//! handedness kept and unmatched vertices, printed as one markdown table (docs/GLTFPACK.md).

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
    /// `frame_diff`'s matching flags: gltfpack's quantisation bits, or `--float` for pack's f32.
    matching: &'static [&'static str],
}

enum Tool {
    Gltfpack,
    Pack,
}

const RUNS: &[Run] = &[
    Run {
        label: "gltfpack",
        file: "gltfpack",
        tool: Tool::Gltfpack,
        args: &[],
        // gltfpack's defaults: -vp 14, -vt 12.
        matching: &["--position-bits", "14", "--uv-bits", "12"],
    },
    Run {
        label: "gltfpack -vn 16",
        file: "gltfpack-vn16",
        tool: Tool::Gltfpack,
        args: &["-vn", "16"],
        matching: &["--position-bits", "14", "--uv-bits", "12"],
    },
    Run {
        label: "pack --format smallest3x4 --maps none",
        file: "pack-smallest3x4",
        tool: Tool::Pack,
        args: &["--format", "smallest3x4", "--maps", "none"],
        matching: &["--float"],
    },
    Run {
        label: "pack --format snorm16x4 --maps none",
        file: "pack-snorm16x4",
        tool: Tool::Pack,
        args: &["--format", "snorm16x4", "--maps", "none"],
        matching: &["--float"],
    },
];

/// Runs every tool on every asset into `target/gltfpack-table/` and prints the table.
pub fn run(root: &Path, assets: &Path) -> Result<(), String> {
    let judges = npm::ensure(root)?.ok_or(
        "gltfpack-table needs node and npm (apt-get install nodejs npm) for gltfpack; see the note above",
    )?;
    let out = root.join("target/gltfpack-table");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    crate::cargo(
        root,
        &[
            "build",
            "--release",
            "--example",
            "pack",
            "--example",
            "frame_diff",
        ],
    )?;
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
        let source = source.to_string_lossy().into_owned();
        let label = format!("{name}: source");
        let mut diff = vec![source.as_str(), &source, "--exact", "--row", &label];
        if i == 0 {
            diff.push("--header");
        }
        table.push(frame_diff(root, &diff)?);
        for run in RUNS {
            let file = out.join(format!("{name}-{}.glb", run.file));
            let file = file.to_string_lossy().into_owned();
            match run.tool {
                Tool::Gltfpack => {
                    let args = [&["-i", source.as_str(), "-o", &file], run.args].concat();
                    npm::gltfpack(&judges, &args)?;
                }
                Tool::Pack => {
                    let args = [&[source.as_str(), "-o", &file], run.args].concat();
                    crate::example(root, "pack", &args)?;
                }
            }
            let label = format!("{name}: {}", run.label);
            let args = [&[source.as_str(), &file, "--row", &label], run.matching].concat();
            table.push(frame_diff(root, &args)?);
        }
    }
    println!("\n{}", table.concat());
    Ok(())
}

/// `frame_diff ARGS`'s standard output (its rows), failing with its error.
fn frame_diff(root: &Path, args: &[&str]) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(&cargo)
        .args([
            "run",
            "--quiet",
            "--release",
            "--example",
            "frame_diff",
            "--",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| format!("could not run {cargo}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "frame_diff {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
