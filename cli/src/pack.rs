//! `qtangent pack`: meshes to GLB (or `.gltf`) with qtangent frames, one file or many.
//!
//! Every output is planned and checked before any work (`output.rs`), written whole, and read
//! back: its frames decoded against those packed, within the format's bound, or the output is
//! removed and the file counts as failed. `-j N` packs N files at a time; a failure does not stop
//! the others; one summary line ends the run, and `--report FILE.json` keeps each file's figures.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use qtangent::pack::{self, MapKind, PackOptions};
use qtangent::Format;
use serde_json::json;

use crate::output::{self, Job};
use crate::{names, Verbosity};

/// `qtangent pack`'s flags.
#[derive(Args, Debug)]
pub struct PackArgs {
    /// .gltf, .glb or .obj files, folders (searched recursively for them), or glob patterns
    /// (`'assets/**/*.gltf'`, quoted so the command expands them).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// One input: the file to write, .glb or .gltf (its extension decides). Several inputs or a
    /// folder: the folder to write .glb files into, mirroring each input's layout.
    #[arg(short, long)]
    output: PathBuf,
    /// The vertex frame format (`_QTANGENT`): smallest3x4 (4 bytes), smallest3x6, f16x3,
    /// snorm16x4, f16x4, f32x4.
    #[arg(long, default_value = "smallest3x4", value_parser = names::<Format>(Format::ALL.map(Format::name)))]
    frames: Format,
    /// Quaternion maps to embed: none, tangent (per material with a normal map or anisotropy)
    /// or object (per primitive). Made on the GPU (or the CPU's software adapter).
    #[arg(long, default_value = "none", value_parser = names::<MapKind>(MapKind::ALL.map(MapKind::name)))]
    maps: MapKind,
    /// With --maps tangent: keep the source's normal maps (viewers without QTANGENT_frames still
    /// show the bumps) or drop those the maps replace (the smallest file).
    #[arg(long, default_value = "keep", value_parser = ["keep", "drop"])]
    normal_maps: String,
    /// Bits of a quantised position (1 to 16; KHR_mesh_quantization).
    #[arg(long, default_value_t = 14, value_parser = clap::value_parser!(u8).range(1..=16))]
    position_bits: u8,
    /// Bits of a quantised UV (1 to 16).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u8).range(1..=16))]
    uv_bits: u8,
    /// Keep positions, UVs, weights and rotations f32 (no quantisation).
    #[arg(long)]
    float: bool,
    /// Compression: none, or meshopt (EXT_meshopt_compression, on what the qtangent readers
    /// alone read).
    #[arg(long, default_value = "none", value_parser = ["none", "meshopt"])]
    compress: String,
    /// Keep f32 NORMAL and TANGENT beside the frames, for viewers that do not know the extension.
    #[arg(long)]
    keep_normals: bool,
    /// Keep vertex attributes nothing reads (UV sets no texture samples).
    #[arg(long)]
    keep_attributes: bool,
    /// Store frames on flat-shaded sources too (glTF without NORMAL, no tangent read).
    #[arg(long)]
    flat_frames: bool,
    /// Refuse to write a file when a repair would make it draw differently from its source.
    #[arg(long)]
    strict: bool,
    /// Generate missing tangents with the MikkTSpace reference code, bit for bit as a baker using
    /// mikktspace.c saw them, instead of meshoptimizer's compatible generator (within 0.03°).
    #[arg(long)]
    exact_mikktspace: bool,
    /// Files packed at a time (each holds its scene in memory).
    #[arg(short = 'j', long = "jobs", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: u16,
    /// Write each file's sizes, frame error, warnings and time to this JSON file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Allow an output to overwrite its input.
    #[arg(long)]
    force: bool,
}

/// What became of one file.
struct Outcome {
    job: Job,
    source_bytes: u64,
    output_bytes: u64,
    /// The largest normal, tangent and bitangent angle read back (None: no frame stored).
    frame_error: Option<[f64; 3]>,
    warnings: Vec<String>,
    seconds: f64,
    error: Option<String>,
}

impl PackArgs {
    fn options(&self) -> PackOptions {
        PackOptions {
            format: self.frames,
            keep_normals: self.keep_normals,
            position_bits: (!self.float).then_some(self.position_bits),
            uv_bits: (!self.float).then_some(self.uv_bits),
            meshopt: self.compress == "meshopt",
            drop_normal_maps: self.normal_maps == "drop",
            keep_attributes: self.keep_attributes,
            strict: self.strict,
            flat_frames: self.flat_frames,
        }
    }
}

/// Runs `qtangent pack`; `Err` for a refusal before any work, `Ok(false)` when a file failed.
pub fn run(args: &PackArgs, say: Verbosity) -> Result<bool, String> {
    if args.normal_maps == "drop" && args.maps != MapKind::Tangent {
        return Err(
            "--normal-maps drop needs --maps tangent (the maps that replace the normal maps)"
                .into(),
        );
    }
    if let Some(report) = &args.report {
        if report.extension().and_then(|e| e.to_str()) != Some("json") || report.is_dir() {
            return Err(format!(
                "--report {}: the report is a .json file",
                report.display()
            ));
        }
    }
    let jobs = output::plan(&args.inputs, &args.output, args.force)?;
    let started = Instant::now();
    let gpu = if args.maps == MapKind::None {
        None
    } else {
        let ctx = qtangent::gpu::GpuContext::new().map_err(|e| e.to_string())?;
        if say >= Verbosity::Normal {
            eprintln!("qtangent pack: maps made on {ctx}");
        }
        Some(ctx)
    };
    let outcomes = pack_all(&jobs, args, gpu.as_ref(), say);
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    let (source, written) = outcomes
        .iter()
        .filter(|o| o.error.is_none())
        .fold((0, 0), |(s, w), o| (s + o.source_bytes, w + o.output_bytes));
    if say >= Verbosity::Normal || failed > 0 {
        eprintln!(
            "qtangent pack: {} file(s): {} packed, {failed} failed; {} → {} ({}) in {:.1} s",
            outcomes.len(),
            outcomes.len() - failed,
            kb(source),
            kb(written),
            ratio(source, written),
            started.elapsed().as_secs_f64()
        );
    }
    if let Some(path) = &args.report {
        // The files are written already: a report that cannot be is a failure of the run (1),
        // not a refusal (2).
        if let Err(e) = write_report(path, &outcomes, source, written) {
            eprintln!("qtangent pack: --report: {e}");
            return Ok(false);
        }
    }
    Ok(failed == 0)
}

fn kb(bytes: u64) -> String {
    format!("{:.1} kB", bytes as f64 / 1000.0)
}

fn ratio(source: u64, written: u64) -> String {
    if source == 0 {
        return "—".into();
    }
    format!("{:.0}%", 100.0 * written as f64 / source as f64)
}

/// Packs every job, `args.jobs` at a time, printing a line as each ends; outcomes in job order.
fn pack_all(
    jobs: &[Job],
    args: &PackArgs,
    gpu: Option<&qtangent::gpu::GpuContext>,
    say: Verbosity,
) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let workers = usize::from(args.jobs).min(jobs.len()).max(1);
    let live = say >= Verbosity::Normal && std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(k) else { break };
                let outcome = pack_one(job, args, gpu, live && workers == 1);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                print_outcome(&outcome, n, jobs.len(), say);
                if let Ok(mut slots) = slots.lock() {
                    slots[k] = Some(outcome);
                }
            });
        }
    });
    slots
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

fn print_outcome(o: &Outcome, n: usize, of: usize, say: Verbosity) {
    let counter = if of > 1 {
        format!("[{n}/{of}] ")
    } else {
        String::new()
    };
    let (input, output) = (o.job.input.display(), o.job.output.display());
    if let Some(e) = &o.error {
        // The library's errors name the file already.
        if e.starts_with(&input.to_string()) {
            eprintln!("qtangent pack: {counter}{e}");
        } else {
            eprintln!("qtangent pack: {counter}{input}: {e}");
        }
        return;
    }
    if say >= Verbosity::Normal {
        for w in &o.warnings {
            eprintln!("qtangent pack: warning: {input}: {w}");
        }
        eprintln!(
            "qtangent pack: {counter}{input} → {output}: {} → {} ({})",
            kb(o.source_bytes),
            kb(o.output_bytes),
            ratio(o.source_bytes, o.output_bytes)
        );
    }
    if say >= Verbosity::Verbose {
        match o.frame_error {
            Some([n, t, b]) => eprintln!(
                "qtangent pack: {input}: frames read back: normal {n:.4}°, tangent {t:.4}°, bitangent {b:.4}° at most"
            ),
            None => eprintln!("qtangent pack: {input}: no frames stored (flat-shaded source)"),
        }
    }
}

/// One file: loaded, packed, read back from memory, written. A failure (a panic in the library
/// included) is kept as the file's error and touches no file: the output is written last, whole.
fn pack_one(
    job: &Job,
    args: &PackArgs,
    gpu: Option<&qtangent::gpu::GpuContext>,
    show: bool,
) -> Outcome {
    let started = Instant::now();
    let mut outcome = Outcome {
        job: job.clone(),
        source_bytes: output::bytes_on_disk(&job.input),
        output_bytes: 0,
        frame_error: None,
        warnings: Vec::new(),
        seconds: 0.0,
        error: None,
    };
    let mut live = Live::new(&job.input, show);
    let packed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pack_file(job, args, gpu, &mut outcome, &mut live)
    }))
    .unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no message");
        Err(format!(
            "qtangent failed on this file (a bug: please report it): {why}"
        ))
    });
    live.end();
    outcome.warnings.extend(live.warnings);
    if let Err(e) = packed {
        outcome.output_bytes = 0;
        outcome.error = Some(e);
    }
    outcome.seconds = started.elapsed().as_secs_f64();
    outcome
}

fn pack_file(
    job: &Job,
    args: &PackArgs,
    gpu: Option<&qtangent::gpu::GpuContext>,
    outcome: &mut Outcome,
    live: &mut Live,
) -> Result<(), String> {
    live.stage("loading");
    let (scene, prepared, maps) =
        crate::pack_load::load(&job.input, args.maps, args.exact_mikktspace, gpu, live)?;
    live.stage("packing");
    outcome
        .warnings
        .extend(scene.warnings.iter().map(ToString::to_string));
    let packed =
        pack::pack(&scene, &prepared, &maps, &args.options()).map_err(|e| e.to_string())?;
    outcome
        .warnings
        .extend(packed.report.warnings.iter().map(ToString::to_string));
    // Read back before anything is written: the frames the file holds against those packed.
    live.stage("reading back");
    let errors = crate::pack_load::read_back(&job.output, &packed)?;
    if errors.frames > 0 {
        outcome.frame_error = Some([errors.normal.max, errors.tangent.max, errors.bitangent.max]);
        if errors.max() > args.frames.max_error_deg() {
            return Err(format!(
                "the frames read back are {:.4}° off, beyond {}'s bound of {}°",
                errors.max(),
                args.frames.name(),
                args.frames.max_error_deg()
            ));
        }
    }
    live.stage("writing");
    output::write(job, &packed.glb)?;
    outcome.output_bytes = output::bytes_on_disk(&job.output);
    Ok(())
}

/// What a file's work shows while it runs: on a terminal, one line rewritten in place (the file,
/// the stage, its percent and the time left in it), when one file is packed at a time and the
/// run is not quiet; nothing otherwise (the line after each file says how it ended). It keeps the
/// bake's warnings for the file's report.
struct Live {
    file: String,
    show: bool,
    stage: String,
    started: Instant,
    warnings: Vec<String>,
}

impl Live {
    fn new(file: &Path, show: bool) -> Self {
        Self {
            file: file.display().to_string(),
            show,
            stage: String::new(),
            started: Instant::now(),
            warnings: Vec::new(),
        }
    }

    /// A stage of this tool's own (loading, packing, writing, reading back), without a count.
    fn stage(&mut self, stage: &str) {
        qtangent::Listener::progress(
            self,
            qtangent::Progress {
                stage,
                done: 0,
                total: 1,
            },
        );
    }

    /// Clears the line.
    fn end(&self) {
        if self.show {
            eprint!("\r\x1b[2K");
        }
    }
}

impl qtangent::Listener for Live {
    fn progress(&mut self, p: qtangent::Progress<'_>) {
        if !self.show {
            return;
        }
        if p.stage != self.stage {
            self.stage = p.stage.to_string();
            self.started = Instant::now();
        }
        let fraction = p.done as f64 / p.total.max(1) as f64;
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = if fraction > 0.0 && fraction < 1.0 {
            format!(", {:.0} s left", elapsed / fraction - elapsed)
        } else {
            String::new()
        };
        let percent = if p.total > 1 {
            format!(" {:.0}%", 100.0 * fraction)
        } else {
            String::new()
        };
        eprint!(
            "\r\x1b[2Kqtangent pack: {}: {}{percent}{left}",
            self.file, p.stage
        );
    }

    fn warning(&mut self, w: qtangent::Warning) {
        self.warnings.push(w.to_string());
    }
}

/// `--report`: one JSON object, each file's figures and the totals, written whole.
fn write_report(
    path: &Path,
    outcomes: &[Outcome],
    source: u64,
    written: u64,
) -> Result<(), String> {
    let files: Vec<_> = outcomes
        .iter()
        .map(|o| {
            json!({
                "input": o.job.input.to_string_lossy(),
                "output": o.job.output.to_string_lossy(),
                "ok": o.error.is_none(),
                "error": o.error,
                "source_bytes": o.source_bytes,
                "output_bytes": o.output_bytes,
                "frame_error_deg": o.frame_error.map(|[n, t, b]| json!({
                    "normal": n, "tangent": t, "bitangent": b,
                })),
                "warnings": o.warnings,
                "seconds": o.seconds,
            })
        })
        .collect();
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    let report = json!({
        "tool": "qtangent pack",
        "version": env!("CARGO_PKG_VERSION"),
        "files": files,
        "summary": {
            "files": outcomes.len(),
            "packed": outcomes.len() - failed,
            "failed": failed,
            "source_bytes": source,
            "output_bytes": written,
        },
    });
    let text = serde_json::to_vec_pretty(&report).map_err(|e| e.to_string())?;
    output::write_whole(path, &text)
}
