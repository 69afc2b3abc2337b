//! Bake quaternion maps: one texture per material storing a tangent frame (object space) or the
//! rotation of the vertex frame (tangent space) per texel (see `qtangent::qmap`), written as
//! KTX2 with all mips (or OpenEXR for float formats) plus PNGs to look at.
//!
//! ```text
//! cargo run --release --example bake -- [MESH] --kind tangent|object --format <name>
//!     [--container ktx2|exr] [-o DIR] [--normal-map PNG] [--size 2048] [--padding 4]
//!     [--keep-handedness] [--cpu] [--json]
//! ```
//!
//! - `--kind tangent` (default): the rotation r that turns the interpolated vertex frame into
//!   the texel's frame (`qmap::tangent`), baked from the material's normal map at its size (and
//!   mips); mirrored, overlapping and tiling UVs need nothing. Materials without a normal map
//!   get no tangent-space map (it would be the identity), with a warning.
//! - `--kind object`: the whole frame in object space, rasterised from the mesh's frames and
//!   UVs at `--size` (needs unique UVs).
//! - `--format`: rgba16f, snorm16, snorm8, rgba32f, bc5, bc7. Default: the compressed one —
//!   bc5 for tangent-space maps (x, y; w rebuilt), bc7 for object-space maps. bc5 cannot hold
//!   an object-space map (an error naming the flag); BC needs sides that are multiples of 4.
//! - `--container ktx2` (default): `NAME.ktx2`, every mip level, the format's vkFormat, a data
//!   format descriptor and key/values `qtangent.kind`, `qtangent.format`, `qtangent.decode`;
//!   with `--keep-handedness` (object space) also `NAME.handedness.ktx2` (R8 SNORM). Without it
//!   the renderer derives the handedness from the UV winding. `--container exr`: float formats
//!   only (`qmap::io`).
//!
//! - No MESH: the embedded default, a procedural torus (`torus(1.0, 0.4, 96, 48)`) with the
//!   procedural swirl normal map (`NormalMap::default_swirl`), written as `default.*`.
//! - MESH (.gltf, .glb, .obj): one map per material that has primitives with UVs, named after
//!   the material (primitives without a material make one map named after the file). The normal
//!   map is `--normal-map` (for every map, scale 1), else the material's normal texture with its
//!   scale, else none (the map holds the interpolated vertex frames). Primitives without UVs are
//!   skipped with a warning.
//! - For each map, in `-o DIR` (default `qmaps`, created if missing): the map file (above),
//!   `NAME.preview.png` (the decoded normal as `n · ½ + ½`: object space, or the tangent-space
//!   normal r·Z; background transparent) and, for object-space maps, `NAME.handedness.png`
//!   (255 = +1, 0 = −1 mirrored, 128 = background).
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
use qtangent::qmap::anisotropy::{self, DirectionField};
use qtangent::qmap::io::{self, PreviewAxis};
use qtangent::qmap::stored::{file_stem, EncodedMap, MapSpace, StoredFormat};
use qtangent::qmap::{self, BakeMesh, BakeSettings, NormalMap, QuatMap};
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
    /// Map kind: tangent (rotation of the vertex frame) or object (the whole frame).
    #[arg(long, default_value = "tangent", value_parser = ["tangent", "object"])]
    kind: String,
    /// Storage format: rgba16f, snorm16, snorm8, rgba32f, bc5, bc7 (default: bc5 for tangent,
    /// bc7 for object).
    #[arg(long, value_parser = format_parser())]
    format: Option<StoredFormat>,
    /// File container: ktx2 (every format) or exr (rgba16f, snorm16, snorm8, rgba32f).
    #[arg(long, default_value = "ktx2", value_parser = ["ktx2", "exr"])]
    container: String,
    /// Object space: keep the handedness plane (NAME.handedness.ktx2) for renderers that cannot
    /// derive it from the UV winding, or for maps whose handedness does not follow the UVs.
    #[arg(long)]
    keep_handedness: bool,
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

fn format_parser() -> impl clap::builder::TypedValueParser<Value = StoredFormat> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(StoredFormat::ALL.map(StoredFormat::name)).try_map(
        |name: String| {
            StoredFormat::from_name(&name).ok_or_else(|| format!("unknown map format '{name}'"))
        },
    )
}

impl Args {
    fn space(&self) -> MapSpace {
        MapSpace::from_name(&self.kind).unwrap_or(MapSpace::Tangent)
    }

    /// The stored format: `--format`, or the kind's compressed default.
    fn stored(&self) -> StoredFormat {
        self.format
            .unwrap_or_else(|| StoredFormat::default_for(self.space(), false))
    }

    /// Checks the flags against each other before any work.
    fn check(&self) -> Result<(), String> {
        let (space, stored) = (self.space(), self.stored());
        if space == MapSpace::Object && stored == StoredFormat::Bc5 {
            return Err("--format bc5 holds two channels, (x, y) of a tangent-space rotation; an object-space map needs all four: use --format bc7 (or --kind tangent)".into());
        }
        if self.container == "exr" && stored.is_compressed() {
            return Err(format!(
                "--container exr holds float maps; --format {stored} is block-compressed: use --container ktx2"
            ));
        }
        if self.keep_handedness && space == MapSpace::Tangent {
            return Err("--keep-handedness is for object-space maps; a tangent-space map takes its handedness from the vertex".into());
        }
        if space == MapSpace::Object && stored.is_compressed() && self.size % 4 != 0 {
            return Err(format!(
                "--size {}: BC needs a map side that is a multiple of 4",
                self.size
            ));
        }
        Ok(())
    }
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
    /// KHR_materials_anisotropy's texture and `anisotropyRotation` (radians): its direction
    /// becomes the map's tangent (a twist of the tangent-space map).
    anisotropy: Option<(ImageSource, f32)>,
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
    /// The anisotropy texture whose direction the map carries.
    anisotropy: Option<String>,
    /// How the map is stored (per map: a twist makes a tangent-space map BC7).
    format: StoredFormat,
    map_stats: qmap::MapStats,
    levels: usize,
    width: u32,
    height: u32,
    /// (stage, time), in order.
    times: Vec<(&'static str, Duration)>,
    /// (role, file): `ktx2` or `exr` (the map), `handedness_ktx2`, `preview`, `handedness`.
    files: Vec<(&'static str, PathBuf)>,
}

fn run(args: &Args, ui: &mut Ui) -> Result<(), Error> {
    args.check()?;
    let settings = BakeSettings {
        width: args.size,
        height: args.size,
        padding: args.padding,
        format: qtangent::gpu::maps::bake_format(args.stored()),
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
    check_normal_map_sizes(&jobs, scene.as_ref(), args)?;

    std::fs::create_dir_all(&args.out).map_err(|e| qmap::BakeError::Write {
        path: args.out.clone(),
        problem: format!("cannot create the folder: {e}"),
    })?;

    let mut normal_maps: Vec<(ImageSource, f32, NormalMap)> = Vec::new();
    let mut reports = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        if let Some(r) = bake_one(
            job,
            scene.as_ref(),
            args,
            &settings,
            ctx.as_ref(),
            &mut normal_maps,
            ui,
        )? {
            reports.push(r);
        }
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
                "kind": args.space().name(),
                "size": args.size,
                "padding": args.padding,
                "format": args.stored().name(),
                "container": args.container,
                "max_error_deg": match args.stored() {
                    StoredFormat::Plain(f) => Some(f.max_error_deg()),
                    _ => None,
                },
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

/// A tangent-space map has its normal map's size: with a block format, every normal map must
/// be one BC can take, checked before anything is baked or written (so a failing run leaves no
/// partial set of maps).
fn check_normal_map_sizes(jobs: &[Job], scene: Option<&Scene>, args: &Args) -> Result<(), Error> {
    if args.space() != MapSpace::Tangent || !args.stored().is_compressed() {
        return Ok(());
    }
    for job in jobs {
        // A tangent-space map has the normal map's size, or the anisotropy texture's without one.
        let src = match (&job.normal, &job.anisotropy) {
            (NormalSource::Image(src, _), _) | (NormalSource::None, Some((src, _))) => src,
            _ => continue,
        };
        let mesh_file = scene.map_or_else(|| PathBuf::from(&job.label), |s| s.source.clone());
        let img = src.decode().map_err(|e| qmap::BakeError::Image {
            mesh: mesh_file.clone(),
            image: src.describe(),
            problem: e,
        })?;
        if let Err(e) = qtangent::qmap::bc::check_size(img.width(), img.height()) {
            let what = if matches!(job.normal, NormalSource::Image(..)) {
                "normal map"
            } else {
                "anisotropy texture"
            };
            return Err(format!(
                "{}: {what} {}: {e} (--format {})",
                job.label,
                src.describe(),
                args.stored()
            )
            .into());
        }
    }
    Ok(())
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
        anisotropy: None,
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
        let anisotropy = match mat.and_then(|m| m.anisotropy.as_ref()) {
            Some(a) => match &a.texture {
                Some(t) if t.tex_coord != 0 => {
                    ui.warn(format!(
                        "{file}: {what}: its anisotropy texture reads TEXCOORD_{}, which is not \
                         loaded; the map keeps the vertex tangent",
                        t.tex_coord
                    ));
                    None
                }
                Some(t) => Some((t.image.clone(), a.rotation)),
                None => None,
            },
            None => None,
        };
        let base = mat.map_or(stem.as_str(), |m| m.name.as_str());
        let name = unique_name(&file_stem(base), &mut used_names);
        jobs.push(Job {
            name,
            label: format!("{file}: {what}"),
            what,
            material: mat.map(|m| m.name.clone()),
            prims: prims.into_iter().map(Prim::Scene).collect(),
            normal,
            anisotropy,
        });
    }
    if jobs.is_empty() {
        return Err(format!("{file}: no primitive has UVs (TEXCOORD_0); nothing to bake").into());
    }
    Ok(jobs)
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
) -> Result<Option<Report>, Error> {
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
    // The tangent kind reads the normal map as the renderer uploads it: 8-bit RGBA and its mips.
    let (normal_image, normal_scale) = match (&job.normal, args.space()) {
        (_, MapSpace::Object) | (NormalSource::None, _) => (None, 1.0),
        (NormalSource::Swirl, _) => (Some(NormalMap::default_swirl().to_rgba8()), 1.0),
        (NormalSource::Image(src, scale), _) => {
            let img = src.decode().map_err(|e| qmap::BakeError::Image {
                mesh: mesh_file.clone(),
                image: src.describe(),
                problem: e,
            })?;
            (Some(img.to_rgba8()), *scale)
        }
    };
    // KHR_materials_anisotropy: the direction field (oriented, axial mips) the map's tangent
    // follows.
    let field = match &job.anisotropy {
        Some((src, rotation)) => {
            let img = src.decode().map_err(|e| qmap::BakeError::Image {
                mesh: mesh_file.clone(),
                image: src.describe(),
                problem: e,
            })?;
            Some((
                DirectionField::from_texture(&img.to_rgba8(), *rotation),
                (img.width(), img.height()),
            ))
        }
        None => None,
    };
    if args.space() == MapSpace::Tangent && normal_image.is_none() && field.is_none() {
        ui.warn(format!(
            "{}: no normal map; a tangent-space map would be the identity, so none is written",
            job.label
        ));
    }
    let load = t.elapsed();
    let mut times = vec![("load", load)];

    let space = args.space();
    // A tangent-space map with a twist (the anisotropy direction) and a tilt (a normal map)
    // needs four channels; BC5 holds either alone ((z, w) for a twist, EncodedMap::twist_only).
    let four = space == MapSpace::Tangent && field.is_some() && normal_image.is_some();
    let stored = match (args.format, four) {
        (Some(StoredFormat::Bc5), true) => {
            ui.warn(format!(
                "{}: bc5 cannot hold the anisotropy direction (a twist) with the normal map (a \
                 tilt); stored as bc7",
                job.label
            ));
            StoredFormat::Bc7
        }
        (Some(f), _) => f,
        (None, four) => StoredFormat::default_for(space, four),
    };
    let mut progress = |stage: &'static str, done: u64, total: u64| {
        ui.stage(&job.name, stage, done, total);
    };
    let t = Instant::now();
    let map: QuatMap = match space {
        MapSpace::Object => {
            // Raster (GPU or CPU), then finish: hemispheres, padding, mips, statistics (CPU).
            let raster = match ctx {
                Some(ctx) => qtangent::gpu::bake::raster_gpu(
                    ctx,
                    &bake_mesh,
                    normal_map,
                    settings,
                    &mut progress,
                )?,
                None => qmap::raster_cpu(&bake_mesh, normal_map, settings, &mut progress)?,
            };
            let mut raster = raster;
            if let Some((field, _)) = &field {
                anisotropy::turn_raster(&mut raster, field, None);
            }
            let raster_time = t.elapsed();
            let t = Instant::now();
            let map = qmap::finish(&raster, settings.padding, &mut progress);
            times.push(("raster", raster_time));
            times.push(("finish", t.elapsed()));
            map
        }
        MapSpace::Tangent => {
            // Every level of the normal map's mip chain (as a renderer uploads it) turned into
            // rotations: no raster, no UV layout.
            // The anisotropy direction, where the material has one, is the twist.
            let levels = match (normal_image, &field) {
                (Some(image), _) => NormalMap::levels_from_rgba8(&image, normal_scale),
                (None, Some((_, (w, h)))) => NormalMap::flat_levels(*w, *h),
                (None, None) => return Ok(None),
            };
            // Axial: stored doubled (EncodedMap::axial_twist).
            let twist = field.as_ref().map(|(f, _)| {
                let sizes: Vec<(u32, u32)> = levels.iter().map(|l| (l.width, l.height)).collect();
                f.axial_twist_levels(&sizes)
            });
            let twist = twist.as_deref().map(qmap::tangent::TwistField::Texels);
            let mips_time = t.elapsed();
            let t = Instant::now();
            progress("tangent-space bake", 0, 1);
            let map = match ctx {
                Some(ctx) => {
                    qtangent::gpu::bake_tangent::bake_gpu(ctx, &levels, twist, settings.format)?
                }
                None => qmap::tangent::bake_cpu(&levels, twist, settings.format),
            };
            progress("tangent-space bake", 1, 1);
            times.push(("mips", mips_time));
            times.push(("bake", t.elapsed()));
            map
        }
    };
    if space == MapSpace::Object && map.stats.covered == 0 {
        ui.warn(format!(
            "{}: no texel centre is inside a triangle (UVs degenerate, outside [0, 1]², or \
             triangles smaller than a texel)",
            job.label
        ));
    }

    // Store (block compression included) and write.
    let t = Instant::now();
    ui.stage(&job.name, "store", 0, 1);
    let mut files = Vec::new();
    if args.container == "exr" {
        if space == MapSpace::Tangent && field.is_some() {
            ui.warn(format!(
                "{}: the EXR holds the anisotropy twist doubled (axial: halve it to decode, which \
                 KTX2 records as qtangent.twist = axial); EXR carries no such flag",
                job.label
            ));
        }
        times.push(("store", t.elapsed()));
        let t = Instant::now();
        let path = args.out.join(format!("{}.exr", job.name));
        io::write_exr(&map, &path)?;
        files.push(("exr", path));
        write_previews(&map, space, job, args, &mut files)?;
        times.push(("write", t.elapsed()));
    } else {
        let mut encoded = EncodedMap::encode(
            &map,
            space,
            stored,
            args.keep_handedness,
            qtangent::gpu::maps::BC7_QUALITY,
        )
        .map_err(|e| format!("{}: {e}", job.label))?;
        encoded.axial_twist = space == MapSpace::Tangent && field.is_some();
        times.push(("store", t.elapsed()));
        let t = Instant::now();
        ui.stage(&job.name, "write KTX2", 0, 1);
        let (mut main, mut plane) = encoded.to_ktx2();
        if let Some(material) = &job.material {
            let key = (
                qtangent::qmap::stored::KEY_MATERIAL.to_string(),
                [material.as_bytes(), &[0]].concat(),
            );
            main.key_values.push(key.clone());
            if let Some(p) = &mut plane {
                p.key_values.push(key);
            }
        }
        let path = args.out.join(format!("{}.ktx2", job.name));
        qtangent::ktx2::write_file(&path, &main)?;
        files.push(("ktx2", path));
        if let Some(plane) = plane {
            let path = args.out.join(format!("{}.handedness.ktx2", job.name));
            qtangent::ktx2::write_file(&path, &plane)?;
            files.push(("handedness_ktx2", path));
        }
        write_previews(&map, space, job, args, &mut files)?;
        times.push(("write", t.elapsed()));
    }
    ui.stage(&job.name, "written", 1, 1);

    Ok(Some(Report {
        job_name: job.name.clone(),
        label: job.label.clone(),
        what: job.what.clone(),
        material: job.material.clone(),
        primitives: prepared.iter().map(|p| p.label.clone()).collect(),
        normal_map: normal_name,
        anisotropy: job.anisotropy.as_ref().map(|(src, _)| src.describe()),
        format: stored,
        map_stats: map.stats,
        levels: map.levels.len(),
        width: map.width(),
        height: map.height(),
        times,
        files,
    }))
}

/// The PNG previews: the decoded normal, and for object-space maps the handedness plane.
fn write_previews(
    map: &QuatMap,
    space: MapSpace,
    job: &Job,
    args: &Args,
    files: &mut Vec<(&'static str, PathBuf)>,
) -> Result<(), Error> {
    let preview = args.out.join(format!("{}.preview.png", job.name));
    io::write_preview(&map.levels[0], PreviewAxis::Normal, &preview)?;
    files.push(("preview", preview));
    if space == MapSpace::Object {
        let hand = args.out.join(format!("{}.handedness.png", job.name));
        io::write_handedness_png(&map.levels[0], &hand)?;
        files.push(("handedness", hand));
    }
    Ok(())
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
        "files": r.files.iter().map(|(k, f)| (k.to_string(), json!(f.display().to_string()))).collect::<serde_json::Map<_, _>>(),
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
    let size = match args.space() {
        MapSpace::Object => format!("{n}×{n} ", n = args.size),
        MapSpace::Tangent => String::new(),
    };
    outln!(
        out,
        "{source}: {} {}-space map{} of {size}{} in {}, {mode}; loaded in {:.1} ms",
        reports.len(),
        args.space().name(),
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
            if args.space() == MapSpace::Object {
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
                .map(|(_, f)| f.display().to_string())
                .collect::<Vec<_>>()
                .join("  ")
        );
    }
}
