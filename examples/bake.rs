//! Bake quaternion maps: one texture per material storing the whole tangent frame per texel
//! (see `qtangent::qmap`), written as OpenEXR with all mips plus two PNGs to look at.
//!
//! ```text
//! cargo run --release --example bake -- [MESH] [--normal-map PNG] [--size 2048] [--padding 4]
//!     [--format rgba16f|snorm16|snorm8|rgba32f] [-o DIR] [--cpu] [--json]
//! ```
//!
//! - No MESH: the embedded default, a procedural torus (`torus(1.0, 0.4, 96, 48)`) with the
//!   procedural swirl normal map (`NormalMap::default_swirl`), written as `default.*`.
//! - MESH (.gltf, .glb, .obj): one map per material that has primitives with UVs, named after
//!   the material (primitives without a material make one map named after the file). The normal
//!   map is `--normal-map` (for every map, scale 1), else the material's normal texture with its
//!   scale, else none (the map holds the interpolated vertex frames). Primitives without UVs are
//!   skipped with a warning.
//! - For each map, in `-o DIR` (default `qmaps`, created if missing): `NAME.exr` (RGBA =
//!   quaternion x, y, z, w and a `handedness` channel, every mip level; see `qmap::io`),
//!   `NAME.preview.png` (the decoded object-space normal as `n · ½ + ½`, background
//!   transparent) and `NAME.handedness.png` (255 = +1, 0 = −1 mirrored, 128 = background).
//!   Files are written under a temporary name and renamed, so none is ever left half written.
//! - The raster stage runs on the GPU (wgpu; lavapipe works) unless `--cpu`; everything after
//!   it (hemisphere choice, padding, mips) runs on the CPU either way.
//! - stdout: a summary per map (texel counts, seam statistics, time per stage, files), or with
//!   `--json` one JSON document. stderr: the adapter, warnings, a progress bar on a terminal.
//!   Errors print one line, `bake: <error>`, and exit with status 1.

use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use qtangent::gpu::GpuContext;
use qtangent::mesh::{self, ImageSource, MeshError, Prepared, Scene};
use qtangent::qmap::io::{self, PreviewAxis};
use qtangent::qmap::{self, BakeMesh, BakeSettings, MapFormat, NormalMap, QuatMap};
use serde_json::{json, Value};

/// `writeln!` into a String (which cannot fail).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

type Error = Box<dyn std::error::Error>;

#[derive(Parser)]
#[command(
    about = "Bake quaternion maps (a tangent frame per texel) from a mesh's frames and \
                   normal maps, as OpenEXR with mips plus PNG previews"
)]
struct Args {
    /// A .gltf, .glb or .obj file. Without it: a procedural torus with a procedural normal map.
    mesh: Option<PathBuf>,
    /// A tangent-space normal map (PNG or JPEG, glTF +Y convention) for every map, instead of
    /// the materials' own.
    #[arg(long, value_name = "IMAGE")]
    normal_map: Option<PathBuf>,
    /// Map width and height in texels (1 to 16384, and within the GPU's texture limit).
    #[arg(long, default_value_t = 2048)]
    size: u32,
    /// Rings of padding grown around the UV islands beyond the one-texel fringe.
    #[arg(long, default_value_t = 4)]
    padding: u32,
    /// Storage format of the quaternions.
    #[arg(long, default_value = "rgba16f", value_parser = format_parser())]
    format: MapFormat,
    /// Output folder (created if missing).
    #[arg(short = 'o', long = "out", value_name = "DIR", default_value = "qmaps")]
    out: PathBuf,
    /// Bake on the CPU (the reference), without wgpu.
    #[arg(long)]
    cpu: bool,
    /// Print one JSON document on stdout instead of text (and no progress bar).
    #[arg(long)]
    json: bool,
}

fn format_parser() -> impl clap::builder::TypedValueParser<Value = MapFormat> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(MapFormat::ALL.map(MapFormat::name)).try_map(
        |name: String| {
            MapFormat::from_name(&name).ok_or_else(|| format!("unknown map format '{name}'"))
        },
    )
}

fn main() {
    let args = Args::parse();
    let mut ui = Ui::new(!args.json && std::io::stderr().is_terminal());
    let result = run(&args, &mut ui);
    ui.bar.finish_and_clear();
    if let Err(e) = result {
        eprintln!("bake: {e}");
        std::process::exit(1);
    }
}

/// Where a map's normal map comes from.
#[derive(Clone)]
enum NormalSource {
    /// None: the map holds the interpolated vertex frames.
    None,
    /// The embedded default's procedural swirl.
    Swirl,
    /// `--normal-map` or a material's texture, with its scale.
    Image(ImageSource, f32),
}

/// One map to bake.
struct Job {
    /// Output file stem (sanitised, unique).
    name: String,
    /// What the map is of, for messages: `file: material 'X'`.
    label: String,
    /// The same without the file, for the summary.
    what: String,
    /// The material's name, if any.
    material: Option<String>,
    /// The primitives, prepared.
    prims: Vec<Prim>,
    normal: NormalSource,
}

/// A primitive to prepare: either from the scene (by index into `Scene::primitives()`) or the
/// procedural default.
enum Prim {
    Scene(usize),
    Default(Box<mesh::Primitive>),
}

/// Stderr output that keeps out of the progress bar's way.
struct Ui {
    bar: ProgressBar,
    warnings: Vec<String>,
}

impl Ui {
    fn new(show_bar: bool) -> Self {
        let bar = if show_bar {
            let style =
                ProgressStyle::with_template("{msg:<32!} [{bar:24}] {pos:>7}/{len:<7} {elapsed}")
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
        }
    }

    fn warn(&mut self, w: String) {
        self.bar.suspend(|| eprintln!("bake: warning: {w}"));
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
    map_stats: qmap::MapStats,
    levels: usize,
    times: [Duration; 4],
    files: [PathBuf; 3],
}

fn run(args: &Args, ui: &mut Ui) -> Result<(), Error> {
    let settings = BakeSettings {
        width: args.size,
        height: args.size,
        padding: args.padding,
        format: args.format,
    };
    qmap::check_settings(&settings)?;

    // The GPU first: without one, nothing else is worth doing.
    let ctx = if args.cpu {
        None
    } else {
        Some(GpuContext::new()?)
    };

    let t = Instant::now();
    let (scene, source, jobs) = match &args.mesh {
        None => default_job(args),
        Some(path) => {
            let scene = mesh::load(path)?;
            for w in &scene.warnings {
                ui.warn(format!("{}: {w}", scene.source.display()));
            }
            let jobs = mesh_jobs(&scene, args, ui)?;
            (Some(scene), path.display().to_string(), jobs)
        }
    };
    let load_time = t.elapsed();

    std::fs::create_dir_all(&args.out).map_err(|e| qmap::BakeError::Write {
        path: args.out.clone(),
        problem: format!("cannot create the folder: {e}"),
    })?;

    let mut normal_maps: Vec<(ImageSource, f32, NormalMap)> = Vec::new();
    let mut reports = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        reports.push(bake_one(
            job,
            scene.as_ref(),
            args,
            &settings,
            ctx.as_ref(),
            &mut normal_maps,
            ui,
        )?);
        // Keep a decoded normal map only while a later map still uses it.
        normal_maps.retain(|(src, scale, _)| {
            jobs[k + 1..]
                .iter()
                .any(|j| matches!(&j.normal, NormalSource::Image(s, c) if s == src && c == scale))
        });
    }
    ui.bar.finish_and_clear();

    let adapter = ctx.as_ref().map(GpuContext::describe);
    let mut out = String::new();
    if args.json {
        let doc = json!({
            "mode": if args.cpu { "cpu" } else { "gpu" },
            "adapter": adapter,
            "source": source,
            "load_ms": ms(load_time),
            "out_dir": args.out.display().to_string(),
            "settings": {
                "size": args.size,
                "padding": args.padding,
                "format": args.format.name(),
                "max_error_deg": args.format.max_error_deg(),
            },
            "warnings": &ui.warnings,
            "maps": reports.iter().map(report_json).collect::<Vec<_>>(),
        });
        outln!(out, "{doc}");
    } else {
        print_text(
            &mut out,
            args,
            adapter.as_deref(),
            &source,
            load_time,
            &reports,
        );
    }
    // A closed pipe (`bake | head`) is not an error worth a message.
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}").into())
        }
        _ => Ok(()),
    }
}

/// The embedded default: one procedural torus with the swirl (or `--normal-map`).
fn default_job(args: &Args) -> (Option<Scene>, String, Vec<Job>) {
    let torus = mesh::procedural::torus(1.0, 0.4, 96, 48);
    let normal = match &args.normal_map {
        Some(p) => NormalSource::Image(ImageSource::File(p.clone()), 1.0),
        None => NormalSource::Swirl,
    };
    let job = Job {
        name: "default".into(),
        label: "default torus".into(),
        what: "procedural torus".into(),
        material: None,
        prims: vec![Prim::Default(Box::new(torus))],
        normal,
    };
    (None, "default torus".into(), vec![job])
}

/// One job per material that has primitives with UVs, in order of first use; primitives with
/// no material make one job named after the file.
fn mesh_jobs(scene: &Scene, args: &Args, ui: &mut Ui) -> Result<Vec<Job>, Error> {
    let file = scene.source.display().to_string();
    let stem = scene
        .source
        .file_stem()
        .map_or_else(|| "mesh".to_string(), |s| s.to_string_lossy().into_owned());
    // (material, primitives with UVs, primitives seen)
    let mut groups: Vec<(Option<usize>, Vec<usize>, usize)> = Vec::new();
    for (i, (_, p)) in scene.primitives().enumerate() {
        let g = match groups.iter().position(|g| g.0 == p.material) {
            Some(g) => g,
            None => {
                groups.push((p.material, Vec::new(), 0));
                groups.len() - 1
            }
        };
        groups[g].2 += 1;
        if p.uvs.is_none() {
            ui.warn(format!(
                "{file}: {} has no UVs (TEXCOORD_0); skipped",
                p.label
            ));
        } else {
            groups[g].1.push(i);
        }
    }
    let mut used_names: Vec<String> = Vec::new();
    let mut jobs = Vec::new();
    for (material, prims, seen) in groups {
        let mat = material.and_then(|m| scene.materials.get(m));
        let what = match mat {
            Some(m) => format!("material '{}'", m.name),
            None => "primitives without a material".to_string(),
        };
        if prims.is_empty() {
            ui.warn(format!(
                "{file}: {what}: none of its {seen} primitives has UVs; no map"
            ));
            continue;
        }
        let normal = if let Some(p) = &args.normal_map {
            NormalSource::Image(ImageSource::File(p.clone()), 1.0)
        } else {
            match mat.and_then(|m| m.normal_texture.as_ref()) {
                Some(t) if t.tex_coord != 0 => {
                    ui.warn(format!(
                        "{file}: {what}: its normal texture reads TEXCOORD_{}, which is not \
                         loaded; baking the vertex frames without it",
                        t.tex_coord
                    ));
                    NormalSource::None
                }
                Some(t) => NormalSource::Image(t.image.clone(), t.scale),
                None => NormalSource::None,
            }
        };
        let base = mat.map_or(stem.as_str(), |m| m.name.as_str());
        let name = unique_name(&sanitize(base), &mut used_names);
        jobs.push(Job {
            name,
            label: format!("{file}: {what}"),
            what,
            material: mat.map(|m| m.name.clone()),
            prims: prims.into_iter().map(Prim::Scene).collect(),
            normal,
        });
    }
    if jobs.is_empty() {
        return Err(format!("{file}: no primitive has UVs (TEXCOORD_0); nothing to bake").into());
    }
    Ok(jobs)
}

/// A file stem from a material name: ASCII letters, digits, `-`, `_` and `.` kept, anything
/// else `_`; no leading dot; at most 100 bytes; `map` when nothing is left.
fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    let s = s.trim_start_matches('.').trim_end_matches('.').to_string();
    if s.is_empty() || s.chars().all(|c| c == '_') {
        "map".into()
    } else {
        s
    }
}

/// `base`, or `base-2`, `base-3`, … if taken (compared case-insensitively, for file systems
/// that fold case).
fn unique_name(base: &str, used: &mut Vec<String>) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while used.contains(&name.to_lowercase()) {
        name = format!("{base}-{k}");
        k += 1;
    }
    used.push(name.to_lowercase());
    name
}

fn bake_one(
    job: &Job,
    scene: Option<&Scene>,
    args: &Args,
    settings: &BakeSettings,
    ctx: Option<&GpuContext>,
    normal_maps: &mut Vec<(ImageSource, f32, NormalMap)>,
    ui: &mut Ui,
) -> Result<Report, Error> {
    // Load: prepare the primitives (normals, MikkTSpace tangents, seam splits), decode the
    // normal map.
    let t = Instant::now();
    ui.stage(&job.name, "prepare", 0, 1);
    let mut prepared: Vec<Prepared> = Vec::with_capacity(job.prims.len());
    for prim in &job.prims {
        prepared.push(match prim {
            Prim::Scene(i) => {
                let scene = scene.ok_or("internal: a scene primitive without a scene")?;
                let (_, p) = scene
                    .primitives()
                    .nth(*i)
                    .ok_or("internal: primitive index out of range")?;
                p.prepare()
                    .map_err(|kind| MeshError::at(&scene.source, &p.label, kind))?
            }
            Prim::Default(p) => p
                .prepare()
                .map_err(|kind| format!("{}: {kind}", job.label))?,
        });
    }
    let refs: Vec<&Prepared> = prepared.iter().collect();
    let bake_mesh = BakeMesh::from_prepared(job.label.clone(), &refs);
    let outside = bake_mesh
        .indices
        .chunks_exact(3)
        .filter(|t| {
            t.iter().any(|&v| {
                bake_mesh
                    .uvs
                    .get(v as usize)
                    .is_some_and(|uv| !(0.0..=1.0).contains(&uv.x) || !(0.0..=1.0).contains(&uv.y))
            })
        })
        .count();
    if outside > 0 {
        ui.warn(format!(
            "{}: {outside} of {} triangles reach outside the [0, 1]² UV square; only the part \
             inside is baked",
            job.label,
            bake_mesh.triangle_count()
        ));
    }
    let mesh_file = scene.map_or_else(|| PathBuf::from(&job.label), |s| s.source.clone());
    let swirl;
    let (normal_map, normal_name): (Option<&NormalMap>, Option<String>) = match &job.normal {
        NormalSource::None => (None, None),
        NormalSource::Swirl => {
            swirl = NormalMap::default_swirl();
            (Some(&swirl), Some("procedural swirl (256²)".to_string()))
        }
        NormalSource::Image(src, scale) => {
            let name = match src {
                ImageSource::File(p) => p.display().to_string(),
                ImageSource::DataUri(_) => "data: URI image".to_string(),
                ImageSource::Embedded { mime, .. } => format!("embedded {mime} image"),
            };
            let name = if *scale == 1.0 {
                name
            } else {
                format!("{name} (scale {scale})")
            };
            let i = match normal_maps
                .iter()
                .position(|(s, k, _)| s == src && k == scale)
            {
                Some(i) => i,
                None => {
                    let m = NormalMap::load(src, *scale, &mesh_file)?;
                    normal_maps.push((src.clone(), *scale, m));
                    normal_maps.len() - 1
                }
            };
            (Some(&normal_maps[i].2), Some(name))
        }
    };
    let load = t.elapsed();

    // Raster: GPU or CPU.
    let t = Instant::now();
    let mut progress = |stage: &'static str, done: u64, total: u64| {
        ui.stage(&job.name, stage, done, total);
    };
    let raster = match ctx {
        Some(ctx) => {
            qtangent::gpu::bake::raster_gpu(ctx, &bake_mesh, normal_map, settings, &mut progress)?
        }
        None => qmap::raster_cpu(&bake_mesh, normal_map, settings, &mut progress)?,
    };
    let raster_time = t.elapsed();

    // Finish: hemispheres, padding, mips, statistics (CPU for both).
    let t = Instant::now();
    let map: QuatMap = qmap::finish(&raster, settings.padding, &mut progress);
    let finish_time = t.elapsed();
    drop(raster);
    if map.stats.covered == 0 {
        ui.warn(format!(
            "{}: no texel centre is inside a triangle (UVs degenerate, outside [0, 1]², or \
             triangles smaller than a texel)",
            job.label
        ));
    }

    // Write.
    let t = Instant::now();
    let files = [
        args.out.join(format!("{}.exr", job.name)),
        args.out.join(format!("{}.preview.png", job.name)),
        args.out.join(format!("{}.handedness.png", job.name)),
    ];
    ui.stage(&job.name, "write EXR", 0, 3);
    io::write_exr(&map, &files[0])?;
    ui.stage(&job.name, "write preview", 1, 3);
    io::write_preview(&map.levels[0], PreviewAxis::Normal, &files[1])?;
    ui.stage(&job.name, "write handedness", 2, 3);
    io::write_handedness_png(&map.levels[0], &files[2])?;
    ui.stage(&job.name, "written", 3, 3);
    let write = t.elapsed();

    Ok(Report {
        job_name: job.name.clone(),
        label: job.label.clone(),
        what: job.what.clone(),
        material: job.material.clone(),
        primitives: prepared.iter().map(|p| p.label.clone()).collect(),
        normal_map: normal_name,
        map_stats: map.stats,
        levels: map.levels.len(),
        times: [load, raster_time, finish_time, write],
        files,
    })
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
        "width": s.width,
        "height": s.height,
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
        "time_ms": {
            "load": ms(r.times[0]),
            "raster": ms(r.times[1]),
            "finish": ms(r.times[2]),
            "write": ms(r.times[3]),
        },
        "files": {
            "exr": r.files[0].display().to_string(),
            "preview": r.files[1].display().to_string(),
            "handedness": r.files[2].display().to_string(),
        },
    })
}

fn print_text(
    out: &mut String,
    args: &Args,
    adapter: Option<&str>,
    source: &str,
    load: Duration,
    reports: &[Report],
) {
    let mode = match adapter {
        Some(a) => format!("GPU raster on {a}"),
        None => "CPU raster".to_string(),
    };
    outln!(
        out,
        "{source}: {} map{} of {n}×{n} {}, {mode}; loaded in {:.1} ms",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        args.format,
        ms(load),
        n = args.size,
    );
    for r in reports {
        let s = &r.map_stats;
        let texels = s.width as usize * s.height as usize;
        outln!(
            out,
            "\n{}: {} ({} triangles{}, {} levels), normal map: {}",
            r.job_name,
            r.what,
            s.triangles,
            if s.degenerate_triangles > 0 {
                format!(" + {} degenerate skipped", s.degenerate_triangles)
            } else {
                String::new()
            },
            r.levels,
            r.normal_map
                .as_deref()
                .unwrap_or("none (interpolated vertex frames)")
        );
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
            "  time    load {:.1} ms, raster {:.1} ms, finish {:.1} ms (hemispheres, padding, \
             mips), write {:.1} ms",
            ms(r.times[0]),
            ms(r.times[1]),
            ms(r.times[2]),
            ms(r.times[3])
        );
        outln!(
            out,
            "  files   {}",
            r.files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join("  ")
        );
    }
}
