//! `qtangent bake`: quaternion maps, one texture per material storing a tangent frame (object
//! space) or the rotation of the vertex frame (tangent space) per texel (see `qtangent::qmap`),
//! written as KTX2 with all mips (or OpenEXR for float formats) plus PNGs to look at.
//!
//! ```text
//! qtangent bake [MESH] --maps tangent|object --map-format <name> [--map-size 2048]
//!     [--container ktx2|exr] [-o DIR] [--normal-map PNG] [--padding 16]
//!     [--keep-handedness] [--cpu] [--json]
//! ```
//!
//! - `--maps tangent` (default): the rotation r that turns the interpolated vertex frame into
//!   the texel's frame (`qmap::tangent`), baked from the material's normal map at its size (and
//!   mips); mirrored, overlapping and tiling UVs need nothing. Materials without a normal map
//!   get no tangent-space map (it would be the identity), with a warning.
//! - `--maps object`: the whole frame in object space, rasterised from the mesh's frames and
//!   UVs at `--map-size` (needs unique UVs).
//! - `--map-format`: rgba16f, snorm16, snorm8, rgba32f, bc5, bc7. Default: the compressed one —
//!   bc5 for tangent-space maps (x, y; w rebuilt), bc7 for object-space maps. bc5 cannot hold
//!   an object-space map (an error naming the flag); BC needs sides that are multiples of 4.
//! - `--bc-encoder`: bc7e (default; Binomial's bc7e for BC7, Intel's ISPC kernel for BC5),
//!   bc7f (Binomial's bc7f for BC7), ispc (Intel's ISPC kernels, prebuilt SIMD) or portable
//!   (`block_compression`'s Rust port of Intel's kernels).
//! - `--container ktx2` (default): `NAME.ktx2`, every mip level, the format's vkFormat, a data
//!   format descriptor and key/values `qtangent.kind`, `qtangent.format`, `qtangent.decode`;
//!   with `--keep-handedness` (object space) also `NAME.handedness.ktx2` (R8 SNORM).
//!   `--container exr`: float formats only (`qmap::io`).
//! - No MESH: the embedded default, a procedural torus (`torus(1.0, 0.4, 96, 48)`) with the
//!   procedural swirl normal map (`NormalMap::default_swirl`), written as `default.*`.
//! - MESH (.gltf, .glb, .obj): one map per material that has primitives with UVs, named after
//!   the material. The normal map is `--normal-map` (for every map, scale 1), else the
//!   material's normal texture with its scale, else none.
//! - For each map, in `-o DIR` (default `qmaps`, created if missing; an existing file is
//!   refused): the map file, `NAME.preview.png` and, for object-space maps,
//!   `NAME.handedness.png`. Files are written under a temporary name and renamed.
//! - Object space: a `--map-size` whose bake would not fit in memory (about 100 bytes a texel,
//!   measured) is refused before any work, naming the largest size that fits; the memory is the
//!   machine's available memory or its cgroup limit, or `QTANGENT_MEMORY` (bytes).
//! - stdout: a summary per map, or with `--json` one JSON document. stderr: the adapter
//!   (where a GPU is used), warnings, a progress bar on a terminal. Refusals exit with status 2
//!   before any work, other errors with 1; both print one line, `qtangent bake: <error>`.

use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use qtangent::gpu::GpuContext;
use qtangent::mesh::{self, ImageSource, Scene};
use qtangent::qmap::{
    self, BakeJob, Baked, Baker, BcEncoder, Container, MapFormat, MapOptions, MapSpace,
    NormalSource, OutputFile, RasterBackend,
};
use serde_json::{json, Value};

use crate::console;
use crate::{names, Verbosity};

/// `writeln!` into a String (which cannot fail).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

type Error = Box<dyn std::error::Error>;

/// `qtangent bake`'s flags.
#[derive(clap::Args, Debug)]
pub struct BakeArgs {
    /// A .gltf, .glb or .obj file. Without it: a procedural torus with a procedural normal map.
    mesh: Option<PathBuf>,
    /// A tangent-space normal map (PNG or JPEG, glTF +Y convention) for every map, instead of
    /// the materials' own.
    #[arg(long, value_name = "IMAGE")]
    normal_map: Option<PathBuf>,
    /// Generate missing tangents with the MikkTSpace reference code, bit for bit as a baker using
    /// mikktspace.c saw them, instead of meshoptimizer's compatible generator (within 0.03°).
    #[arg(long)]
    exact_mikktspace: bool,
    /// Object space: the map's width and height in texels (1 to 16384, and within the GPU's
    /// texture limit). Tangent-space maps have their normal map's size.
    #[arg(long, default_value_t = 2048)]
    map_size: u32,
    /// Rings of padding grown around the UV islands beyond the one-texel fringe (object space;
    /// the default keeps a 4-texel margin at mip 2).
    #[arg(long, default_value_t = MapOptions::default().padding)]
    padding: u32,
    /// Map kind: tangent (rotation of the vertex frame) or object (the whole frame).
    #[arg(long, default_value = "tangent", value_parser = names::<MapSpace>(["tangent", "object"]))]
    maps: MapSpace,
    /// Storage format: rgba16f, snorm16, snorm8, rgba32f, bc5, bc7, bc5x2 (default: bc5 for
    /// tangent, bc7 for object; bc5x2 for a tangent-space map with a twist).
    #[arg(long, value_parser = names::<MapFormat>(MapFormat::ALL.map(MapFormat::name)))]
    map_format: Option<MapFormat>,
    /// BC5/BC7 encoder: bc7e (the default: Binomial's bc7e for BC7, Intel's ISPC kernel for BC5), bc7f (Binomial's bc7f for BC7: faster, larger error), ispc (Intel's ISPC kernels for both) or portable (`block_compression`'s Rust port of them, several times slower)
    #[arg(long, default_value_t = MapOptions::default().encoder,
          value_parser = names::<BcEncoder>(BcEncoder::ALL.map(BcEncoder::name)))]
    bc_encoder: BcEncoder,
    /// File container: ktx2 (every format, the default) or exr (OpenEXR: rgba16f, snorm16,
    /// snorm8, rgba32f).
    #[arg(long, default_value = "ktx2", value_parser = names::<Container>(Container::ALL.map(Container::name)))]
    container: Container,
    /// Object space: keep the handedness plane (NAME.handedness.ktx2) for renderers that cannot
    /// derive it from the UV winding, or for maps whose handedness does not follow the UVs.
    #[arg(long)]
    keep_handedness: bool,
    /// The folder to write the maps into (created if missing).
    #[arg(short, long, value_name = "DIR", default_value = "qmaps")]
    output: PathBuf,
    /// Bake on the CPU (the reference), without wgpu.
    #[arg(long)]
    cpu: bool,
    /// Print one JSON document on stdout instead of text (and no progress bar).
    #[arg(long)]
    json: bool,
}

type Args = BakeArgs;

impl Args {
    /// The stored format: `--map-format`, or the kind's compressed default.
    fn stored(&self) -> MapFormat {
        self.map_format
            .unwrap_or_else(|| MapFormat::default_for(self.maps))
    }

    /// Checks the flags against each other before any work.
    fn check(&self) -> Result<(), String> {
        let (space, stored) = (self.maps, self.stored());
        if !(1..=qmap::MAX_MAP_SIZE).contains(&self.map_size) {
            return Err(format!(
                "map size {0}×{0} is out of range (1 to {1} texels a side)",
                self.map_size,
                qmap::MAX_MAP_SIZE
            ));
        }
        if space == MapSpace::Object && stored == MapFormat::Bc5 {
            return Err("--map-format bc5 holds two channels, (x, y) of a tangent-space rotation; an object-space map needs all four: use --map-format bc7 (or --maps tangent)".into());
        }
        if self.container == Container::Exr && stored.is_compressed() {
            return Err(format!(
                "--container exr holds float maps; --map-format {stored} is block-compressed: use --container ktx2"
            ));
        }
        if self.keep_handedness && stored == MapFormat::Bc5Pair {
            return Err("--map-format bc5x2 stores (z, w) where the handedness plane would go: drop --keep-handedness (the handedness comes from the UV winding) or use --map-format bc7".into());
        }
        if self.keep_handedness && space == MapSpace::Tangent {
            return Err("--keep-handedness is for object-space maps; a tangent-space map takes its handedness from the vertex".into());
        }
        if space == MapSpace::Object && stored.is_compressed() && !self.map_size.is_multiple_of(4) {
            return Err(format!(
                "--map-size {}: BC needs a map side that is a multiple of 4",
                self.map_size
            ));
        }
        if space == MapSpace::Object {
            check_memory(self.map_size)?;
        }
        for (flag, path) in [("", &self.mesh), ("--normal-map ", &self.normal_map)] {
            if let Some(path) = path {
                crate::files::must_be_file(flag, path)?;
            }
        }
        Ok(())
    }
}

/// Bytes an object-space bake of `size`² texels takes at its peak, measured: 2048² took 393 MB
/// on the CPU raster and 1024² 105 MB (96 bytes a texel between them: the raster, the hemisphere
/// and padding passes, the mips, the encoded map and the previews), 463 MB through lavapipe's
/// raster; 100 bytes a texel and 128 MB for the device cover both.
fn bake_bytes(size: u32) -> u64 {
    const PER_TEXEL: u64 = 100;
    const BASE: u64 = 128 << 20;
    BASE + PER_TEXEL * u64::from(size) * u64::from(size)
}

/// The memory a bake may use: `$QTANGENT_MEMORY` (bytes), else the least of the machine's
/// available memory (`MemAvailable`) and the cgroup's limit; `None` where neither can be read.
fn available_memory() -> Result<Option<u64>, String> {
    if let Some(v) = std::env::var_os("QTANGENT_MEMORY") {
        let text = v.to_string_lossy();
        return text.trim().parse().map(Some).map_err(|_| {
            format!("QTANGENT_MEMORY={text}: the memory a bake may use, in bytes (a whole number)")
        });
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    });
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok());
    Ok(match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}

/// Refuses a map size whose bake would not fit in memory, naming the largest that would (a
/// multiple of 4, as BC needs), before any work: the kernel would otherwise kill the run.
fn check_memory(size: u32) -> Result<(), String> {
    let Some(available) = available_memory()? else {
        return Ok(());
    };
    let needed = bake_bytes(size);
    if needed <= available {
        return Ok(());
    }
    let texels = available.saturating_sub(bake_bytes(0)) / (bake_bytes(1) - bake_bytes(0));
    let fits = ((texels as f64).sqrt() as u32) / 4 * 4;
    let advice = if fits >= 4 {
        format!("--map-size {fits} fits")
    } else {
        "no object-space map fits: free memory first".to_string()
    };
    Err(format!(
        "--map-size {size}: an object-space bake of {size}² texels needs about {:.1} GB and {:.1} GB is available; {advice}",
        needed as f64 / 1e9,
        available as f64 / 1e9
    ))
}

/// Runs `qtangent bake`: `Err` for a refusal (before any work), `Ok(false)` for a failure
/// (printed here).
pub fn run(args: &Args, say: Verbosity) -> Result<bool, String> {
    args.check()?;
    if args.output.exists() && !args.output.is_dir() {
        return Err(format!(
            "-o {}: a file; bake writes several files into a folder: name a folder",
            args.output.display()
        ));
    }
    let show_bar = say > Verbosity::Quiet && !args.json && std::io::stderr().is_terminal();
    let mut ui = Ui::new(show_bar, say);
    let made = !args.output.exists();
    if made {
        // Removed again, if still empty, by a failure or Ctrl-C.
        crate::files::made_dir(&args.output);
    }
    let result = bake(args, &mut ui);
    ui.bar.finish_and_clear();
    if made {
        // A folder this run made and wrote nothing into (a failure, or no map to bake) goes:
        // remove_dir refuses any other.
        let _ = std::fs::remove_dir(&args.output);
    }
    match result {
        Ok(()) => Ok(true),
        Err(e) => {
            eprintln!("qtangent bake: {}", console::advise(e.as_ref()));
            Ok(false)
        }
    }
}

/// Stderr output that keeps out of the progress bar's way.
struct Ui {
    bar: ProgressBar,
    warnings: Vec<String>,
    say: Verbosity,
}

impl Ui {
    fn new(show_bar: bool, say: Verbosity) -> Self {
        let bar = if show_bar {
            let style = ProgressStyle::with_template(
                "{msg:<32!} [{bar:24}] {percent:>3}% {elapsed} (ETA {eta})",
            )
            .map_or_else(
                |_| ProgressStyle::default_bar(),
                |s| s.progress_chars("=> "),
            );
            ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::stderr()).with_style(style)
        } else {
            ProgressBar::hidden()
        };
        Self {
            bar,
            warnings: Vec::new(),
            say,
        }
    }

    fn warn(&mut self, w: String) {
        if self.say > Verbosity::Quiet {
            self.bar
                .suspend(|| eprintln!("qtangent bake: warning: {w}"));
        }
        self.warnings.push(w);
    }

    fn stage(&self, map: &str, stage: &str, done: u64, total: u64) {
        self.bar.set_message(format!("{map}: {stage}"));
        self.bar.set_length(total.max(1));
        self.bar.set_position(done);
    }
}

/// What one baked map reports.
struct Report {
    job_name: String,
    label: String,
    what: String,
    material: Option<String>,
    primitives: Vec<String>,
    normal_map: Option<String>,
    /// The anisotropy texture whose direction the map carries.
    anisotropy: Option<String>,
    /// How the map is stored (per map: a twist makes a tangent-space map BC7).
    format: MapFormat,
    map_stats: qmap::MapStats,
    levels: usize,
    width: u32,
    height: u32,
    /// (stage, time), in order.
    times: Vec<(&'static str, Duration)>,
    /// The files written, with their roles.
    files: Vec<OutputFile>,
}

fn bake(args: &Args, ui: &mut Ui) -> Result<(), Error> {
    let options = MapOptions {
        format: args.map_format,
        keep_handedness: args.keep_handedness,
        padding: args.padding,
        encoder: args.bc_encoder,
        ..MapOptions::default()
    };

    // The GPU first: without one, nothing else is worth doing.
    let ctx = if args.cpu {
        None
    } else {
        let ctx = GpuContext::new()?;
        if ui.say > Verbosity::Quiet {
            eprintln!("qtangent bake: adapter: {ctx}");
        }
        Some(ctx)
    };
    // The device's own choice: on a CPU adapter (lavapipe) the CPU raster, which is faster there.
    let backend = ctx
        .as_ref()
        .map_or(RasterBackend::CPU, GpuContext::raster_backend);
    let device = Device {
        raster: match &ctx {
            None => "CPU raster".to_string(),
            Some(c) if c.info.device_type == wgpu::DeviceType::Cpu => {
                format!("CPU raster (the adapter, {}, is a CPU)", c)
            }
            Some(c) => format!("GPU raster on {}", c),
        },
        adapter: ctx.as_ref().map(GpuContext::to_string),
    };

    let t = Instant::now();
    let (scene, source, jobs) = load_jobs(args, ui)?;
    let load_time = t.elapsed();
    // A tangent-space map has its normal map's size: with a block format, every normal map
    // must be one BC can take, checked before anything is baked or written (so a failing run
    // leaves no partial set of maps).
    if args.maps == MapSpace::Tangent && args.stored().is_compressed() {
        for job in &jobs {
            job.check_block_size(&scene.source).map_err(|e| match e {
                qmap::BakeError::Mesh { .. } => format!("{e} (--map-format {})", args.stored()),
                e => e.to_string(),
            })?;
        }
    }

    std::fs::create_dir_all(&args.output).map_err(|e| qmap::BakeError::Write {
        path: args.output.clone(),
        problem: format!("cannot create the folder: {e}"),
    })?;
    crate::files::watch_dir(&args.output);

    let baker = Baker::new(backend, &options);
    let mut reports = Vec::new();
    for job in &jobs {
        if let Some(r) = bake_one(job, &scene, args, &baker, ui)? {
            reports.push(r);
        }
    }
    ui.bar.finish_and_clear();
    report(args, ui, &device, &source, load_time, &reports)
}

/// Where the raster ran: said in the report, and the adapter (none with `--cpu`).
struct Device {
    raster: String,
    adapter: Option<String>,
}

/// The scene, the name of its source and the maps to bake: `MESH`'s, or the default job's.
fn load_jobs(args: &Args, ui: &mut Ui) -> Result<(Scene, String, Vec<BakeJob>), Error> {
    let Some(path) = &args.mesh else {
        return Ok(default_job(args));
    };
    let mut scene = mesh::load(path)?;
    if args.exact_mikktspace {
        crate::scene::exact_mikktspace(&mut scene);
    }
    for w in &scene.warnings {
        ui.warn(format!("{}: {w}", scene.source.display()));
    }
    let mut warnings = Vec::new();
    let jobs = BakeJob::from_scene(&scene, args.normal_map.as_deref(), &mut warnings);
    for w in warnings {
        ui.warn(w.to_string());
    }
    Ok((scene, path.display().to_string(), jobs?))
}

/// Prints the report on stdout: one JSON document (`--json`) or text.
fn report(
    args: &Args,
    ui: &Ui,
    device: &Device,
    source: &str,
    load_time: Duration,
    reports: &[Report],
) -> Result<(), Error> {
    let mut out = String::new();
    if args.json {
        let doc = json!({
            "mode": if args.cpu { "cpu" } else { "gpu" },
            "adapter": device.adapter,
            "raster": device.raster,
            "source": source,
            "load_ms": ms(load_time),
            "output": args.output.display().to_string(),
            "settings": {
                "maps": args.maps.name(),
                "map_size": args.map_size,
                "padding": args.padding,
                "map_format": args.stored().name(),
                "container": args.container.name(),
                "max_error_deg": args.stored().max_error_deg(),
            },
            "warnings": &ui.warnings,
            "maps": reports.iter().map(report_json).collect::<Vec<_>>(),
        });
        outln!(out, "{doc}");
    } else if ui.say > Verbosity::Quiet {
        print_text(&mut out, args, device, source, load_time, reports);
    }
    // A closed pipe (`bake | head`) is not an error worth a message.
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}").into())
        }
        _ => Ok(()),
    }
}

/// The embedded default: one procedural torus with the swirl (or `--normal-map`), as a scene of
/// one primitive.
fn default_job(args: &Args) -> (Scene, String, Vec<BakeJob>) {
    let torus = mesh::Primitive::torus(1.0, 0.4, 96, 48);
    let scene = Scene {
        source: PathBuf::from("default torus"),
        meshes: vec![mesh::Mesh {
            name: "torus".into(),
            primitives: vec![torus],
            instances: Vec::new(),
            weights: Vec::new(),
        }],
        ..Scene::default()
    };
    let normal = match &args.normal_map {
        Some(p) => NormalSource::Image {
            image: ImageSource::File(p.clone()),
            scale: 1.0,
        },
        None => NormalSource::Swirl,
    };
    let job = BakeJob {
        name: "default".into(),
        label: "default torus".into(),
        what: "procedural torus".into(),
        material: None,
        material_name: None,
        primitives: vec![0],
        normal,
        anisotropy: None,
    };
    (scene, "default torus".into(), vec![job])
}

fn bake_one(
    job: &BakeJob,
    scene: &Scene,
    args: &Args,
    baker: &Baker<'_>,
    ui: &mut Ui,
) -> Result<Option<Report>, Error> {
    // Prepare the primitives (normals, MikkTSpace tangents, seam splits), read the normal map
    // and the anisotropy direction, bake.
    let mut listener = JobListener { ui, job: &job.name };
    let Some(done) = job.bake(scene, baker, args.maps, args.map_size, &mut listener)? else {
        listener.ui.warn(format!(
            "{}: no normal map; a tangent-space map would be the identity, so none is written",
            job.label
        ));
        return Ok(None);
    };
    let baked = done.baked;
    let ui = listener.ui;
    let space = args.maps;
    if space == MapSpace::Object && baked.map.stats.covered == 0 {
        ui.warn(format!(
            "{}: no texel centre is inside a triangle (UVs degenerate, outside [0, 1]², or \
             triangles smaller than a texel)",
            job.label
        ));
    }
    let t = Instant::now();
    let files = write(job, args, &baked, ui)?;
    let mut times = baked.times;
    times.push(("write", t.elapsed()));
    ui.stage(&job.name, "written", 1, 1);
    let map = &baked.map;
    Ok(Some(Report {
        job_name: job.name.clone(),
        label: job.label.clone(),
        what: job.what.clone(),
        material: job.material_name.clone(),
        primitives: done.primitives,
        normal_map: (job.normal != NormalSource::None).then(|| job.normal.to_string()),
        anisotropy: job.anisotropy.as_ref().map(|a| a.image.to_string()),
        format: baked.stored.format,
        map_stats: map.stats,
        levels: map.levels.len(),
        width: map.stats.width,
        height: map.stats.height,
        times,
        files,
    }))
}

/// Writes a baked map in the container asked for, with its previews.
fn write(job: &BakeJob, args: &Args, baked: &Baked, ui: &mut Ui) -> Result<Vec<OutputFile>, Error> {
    ui.stage(&job.name, "write", 0, 1);
    // Only a tangent-space map with an anisotropy direction stores its twist doubled.
    if args.container == Container::Exr && baked.stored.axial_twist {
        ui.warn(format!(
            "{}: the EXR holds the anisotropy twist doubled (axial: halve it to decode, \
             which KTX2 records as qtangent.twist = axial); EXR carries no such flag",
            job.label
        ));
    }
    let files = job.write(&args.output, baked, args.container)?;
    Ok(files)
}

/// The progress bar and warnings of one job, as the library reports them.
struct JobListener<'a> {
    ui: &'a mut Ui,
    job: &'a str,
}

impl qtangent::Listener for JobListener<'_> {
    fn progress(&mut self, p: qtangent::Progress<'_>) {
        self.ui.stage(self.job, p.stage, p.done, p.total);
    }

    fn warning(&mut self, w: qtangent::Warning) {
        self.ui.warn(w.to_string());
    }
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn pct(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

fn report_json(r: &Report) -> Value {
    let s = &r.map_stats;
    let texels = s.width as usize * s.height as usize;
    json!({
        "name": r.job_name,
        "label": r.label,
        "material": r.material,
        "primitives": r.primitives,
        "normal_map": r.normal_map,
        "anisotropy_texture": r.anisotropy,
        "format": r.format.name(),
        "width": r.width,
        "height": r.height,
        "levels": r.levels,
        "triangles": s.triangles,
        "degenerate_triangles": s.degenerate_triangles,
        "texels": texels,
        "covered": s.covered,
        "covered_fraction": s.covered as f64 / texels.max(1) as f64,
        "overlapping": s.overlapping,
        "fringe": s.fringe,
        "padded": s.padded,
        "seam_texels_padded": s.fringe + s.padded,
        "background": s.background,
        "mirrored": s.mirrored,
        "neighbour_pairs": s.neighbour_pairs,
        "hemisphere_conflicts": s.hemisphere_conflicts,
        "conflict_fraction": s.conflict_fraction(),
        "covered_pairs": s.covered_pairs,
        "covered_conflicts": s.covered_conflicts,
        "time_ms": r.times.iter().map(|(k, d)| (k.to_string(), json!(ms(*d)))).collect::<serde_json::Map<_, _>>(),
        "files": r.files.iter().map(|f| (f.role.to_string(), json!(f.path.display().to_string()))).collect::<serde_json::Map<_, _>>(),
    })
}

fn print_text(
    out: &mut String,
    args: &Args,
    device: &Device,
    source: &str,
    load: Duration,
    reports: &[Report],
) {
    let mode = &device.raster;
    let size = match args.maps {
        MapSpace::Object => format!("{n}×{n} ", n = args.map_size),
        MapSpace::Tangent => String::new(),
    };
    outln!(
        out,
        "{source}: {} {}-space map{} of {size}{} in {}, {mode}; loaded in {:.1} ms",
        reports.len(),
        args.maps.name(),
        if reports.len() == 1 { "" } else { "s" },
        {
            // Per map: a material's anisotropy makes its tangent-space map BC7.
            let mut names: Vec<&str> = reports.iter().map(|r| r.format.name()).collect();
            names.sort_unstable();
            names.dedup();
            if names.is_empty() {
                args.stored().name().to_string()
            } else {
                names.join(", ")
            }
        },
        args.container,
        ms(load),
    );
    for r in reports {
        print_map_text(out, args, r);
    }
}

/// One map's lines of the text report.
fn print_map_text(out: &mut String, args: &Args, r: &Report) {
    {
        let s = &r.map_stats;
        let texels = s.width as usize * s.height as usize;
        outln!(
            out,
            "\n{}: {} ({}×{}, {}{}{} levels), normal map: {}",
            r.job_name,
            r.what,
            r.width,
            r.height,
            // Tangent-space maps rasterise nothing: every texel is the normal map's.
            if args.maps == MapSpace::Object {
                format!("{} triangles, ", s.triangles)
            } else {
                String::new()
            },
            if s.degenerate_triangles > 0 {
                format!("{} degenerate skipped, ", s.degenerate_triangles)
            } else {
                String::new()
            },
            r.levels,
            r.normal_map
                .as_deref()
                .unwrap_or("none (interpolated vertex frames)")
        );
        if let Some(a) = &r.anisotropy {
            outln!(
                out,
                "  aniso   direction from {a} (KHR_materials_anisotropy), stored {}",
                r.format
            );
        }
        outln!(
            out,
            "  texels  covered {} ({:.1}%), fringe {}, padded {}, overlapping {}, mirrored {}, \
             background {}",
            s.covered,
            pct(s.covered, texels),
            s.fringe,
            s.padded,
            s.overlapping,
            s.mirrored,
            s.background
        );
        outln!(
            out,
            "  seams   hemisphere conflicts {} of {} neighbour pairs ({:.3}%); between covered \
             texels {} of {}",
            s.hemisphere_conflicts,
            s.neighbour_pairs,
            100.0 * s.conflict_fraction(),
            s.covered_conflicts,
            s.covered_pairs
        );
        outln!(
            out,
            "  time    {}",
            r.times
                .iter()
                .map(|(k, d)| format!("{k} {:.1} ms", ms(*d)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        outln!(
            out,
            "  files   {}",
            r.files
                .iter()
                .map(|f| f.path.display().to_string())
                .collect::<Vec<_>>()
                .join("  ")
        );
    }
}
