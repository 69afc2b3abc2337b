//! `maps`: the table that decides between quaternion maps and the normal maps they replace.
//!
//! For FlightHelmet, the duck, the default scene and the bumpy swirl disc (a normal map and an
//! anisotropy direction: a tilt and a twist per texel), side by side: the reference (f32 vertex
//! frames with the normal map as 8-bit RGBA), the reference with its normal map stored as BC5,
//! and every map kind (object space, tangent space) in every stored format. Per column:
//!
//! - bytes per texel, and the frame's bytes on the GPU (vertex frame + frame textures, mips
//!   included);
//! - per-texel error of the decoded normal and tangent against an f32 bake (mean, p99, max, over
//!   texels inside triangles);
//! - rendered PSNR and maximum error against the reference at two sizes.
//!
//! Then the bake's time per stage, compression included, for FlightHelmet's materials at 2048²
//! and 4096² (the normal maps resized to the map size for the latter), with the two BC
//! encoders side by side (Intel's ISPC kernels, the default, and `block_compression`'s portable
//! port): Mtexel/s and the per-texel angle error of what each wrote.
//!
//! ```sh
//! cargo run --release --example maps                  # everything (several minutes on 2 cores)
//! cargo run --release --example maps -- --quick       # one size, no 4096² timing
//! ```
//!
//! Benchmark output only: nothing here is asserted (the tests do that).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use glam::Vec3;
use image::RgbaImage;
use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, Renderer, View};
use qtangent::lab::disc;
use qtangent::lab::maps::{self as lab_maps, frame_angles, AngleStats};
use qtangent::measure::angle_deg;
use qtangent::qmap::Encoding;
use qtangent::qmap::MapSpace;
use qtangent::qmap::RasterBackend;
use qtangent::qmap::{self, BakeMesh, MapFormat, NormalMap, QuatMap, TexelKind};
use qtangent::qmap::{Baker, MapOptions, ObjectInput, Repack};
use qtangent::qmap::{Bc7Quality, BcEncoder};
use qtangent::qmap::{CpuRaster, EncodedMap};
use qtangent::render::FrameSource;
use qtangent::render::{self, ImageDiff};
use qtangent::render::{MapSource, RenderScene};
use qtangent::Format;

#[path = "common/cli.rs"]
mod cli;
#[path = "common/console.rs"]
mod console;

#[derive(Parser)]
#[command(
    about = "Quaternion maps against the normal maps they replace: bytes, per-texel error, rendered PSNR, bake time"
)]
struct Args {
    /// The shared assets folder (gltf/FlightHelmet, obj/duck.obj); default $QTANGENT_ASSETS, else
    /// ../shared/assets beside the crate.
    #[arg(long)]
    assets: Option<PathBuf>,
    /// Render sizes, WIDTHxHEIGHT, comma-separated.
    #[arg(long, default_value = "960x540,1920x1080")]
    sizes: String,
    /// BC7 effort for the maps (the `bake` default is basic).
    #[arg(long, default_value = "basic")]
    bc7_quality: String,
    /// One render size and no 4096² timing.
    #[arg(long)]
    quick: bool,
    /// Only the bake-time table.
    #[arg(long)]
    timing_only: bool,
    /// No bake-time table.
    #[arg(long)]
    no_timing: bool,
    /// Only the scenes whose name contains this (e.g. `disc`).
    #[arg(long)]
    only: Option<String>,
}

type Error = Box<dyn std::error::Error>;

fn main() -> std::process::ExitCode {
    console::main("maps", run)
}

/// One column of the table.
#[derive(Clone, Copy, PartialEq)]
enum Column {
    /// Reference mode with the normal and anisotropy textures as stored: 8-bit RGBA (`false`)
    /// or BC5 at every level, as engines ship them (`true`, `RenderScene::engine_textures`).
    Reference { bc5: bool },
    /// A quaternion map of a kind in a format.
    Map(MapSpace, MapFormat),
}

impl Column {
    fn label(self) -> String {
        match self {
            Column::Reference { bc5: false } => "reference (textures RGBA8)".into(),
            Column::Reference { bc5: true } => "reference, BC5 normal + BC5 direction".into(),
            Column::Map(s, f) => format!("{} {}", s.name(), f.name()),
        }
    }
}

fn columns() -> Vec<Column> {
    let mut c = vec![
        Column::Reference { bc5: false },
        Column::Reference { bc5: true },
    ];
    for space in [MapSpace::Tangent, MapSpace::Object] {
        for f in MapFormat::ALL {
            if !(space == MapSpace::Object && f == MapFormat::Bc5) {
                c.push(Column::Map(space, f));
            }
        }
    }
    c
}

/// What a column measured on one asset.
#[derive(Default, Clone)]
struct Row {
    bytes_per_texel: String,
    frame_bytes: u64,
    normal: Option<AngleStats>,
    tangent: Option<AngleStats>,
    renders: Vec<ImageDiff>,
    note: String,
}

fn run(args: &Args) -> Result<(), Error> {
    let assets = args.assets.clone().unwrap_or_else(cli::assets_dir);
    let mut sizes = cli::parse_sizes(args.sizes.trim())?;
    if args.quick {
        sizes.truncate(1);
    }
    let bc7: Bc7Quality = args
        .bc7_quality
        .parse()
        .map_err(|e| format!("--bc7-quality {}: {e}", args.bc7_quality))?;
    let ctx = GpuContext::new()?;
    let renderer = Renderer::new(&ctx)?;
    println!(
        "# Quaternion maps against normal maps ({})\n",
        ctx.describe()
    );
    println!(
        "BC7 effort: {}. Renders against the reference (f32 vertex frames, RGBA8 normal map).\n",
        bc7.name()
    );
    let scenes: Vec<(String, RenderScene)> = vec![
        (
            "FlightHelmet".into(),
            RenderScene::load(&assets.join("gltf/FlightHelmet/FlightHelmet.gltf"))?,
        ),
        (
            "duck".into(),
            RenderScene::load(&assets.join("obj/duck.obj"))?,
        ),
        (
            "default scene".into(),
            qtangent::lab::content::default_scene()?,
        ),
        (
            "bumpy swirl disc (normal map + anisotropy)".into(),
            disc::scene(512, disc::RgLayout::Canonical, disc::Relief::Bumps)?,
        ),
    ];
    for (name, scene) in &scenes {
        if args.timing_only {
            break;
        }
        if args
            .only
            .as_ref()
            .is_some_and(|o| !name.contains(o.as_str()))
        {
            continue;
        }
        eprintln!("maps: {name}");
        let rows = measure(&ctx, &renderer, scene, &sizes, bc7)?;
        print_table(name, scene, &sizes, &rows);
    }
    if !args.no_timing {
        timing(&ctx, &assets, args.quick, bc7)?;
    }
    Ok(())
}

/// Per-texel errors of every stored format of both kinds against the f32 bakes, per material /
/// mesh, pooled over the scene: (column → (normal, tangent)).
fn texel_errors(
    ctx: &GpuContext,
    scene: &RenderScene,
    bc7: Bc7Quality,
) -> Result<Vec<(Column, AngleStats, AngleStats, String)>, Error> {
    let mut pooled: Vec<(Column, Vec<f64>, Vec<f64>)> = Vec::new();
    let mut notes: Vec<(Column, String)> = Vec::new();
    let mut push =
        |c: Column, n: Vec<f64>, t: Vec<f64>| match pooled.iter_mut().find(|(k, _, _)| *k == c) {
            Some((_, a, b)) => {
                a.extend(n);
                b.extend(t);
            }
            None => pooled.push((c, n, t)),
        };
    // Tangent space: per material with a normal map, the f32 bake of its mip chain, texels
    // inside the triangles of its meshes (their UVs rasterised at the map's size).
    for (mi, m) in scene.materials.iter().enumerate() {
        let Some(normal) = &m.normal else { continue };
        let levels = lab_maps::normal_map_levels(normal, m.uniforms.normal_scale);
        let exact = ctx
            .raster_backend()
            .bake_tangent(&levels, None, MapFormat::Rgba32Float)?;
        let mask = coverage(scene, mi, exact.width(), exact.height())?;
        for f in MapFormat::ALL {
            let c = Column::Map(MapSpace::Tangent, f);
            match EncodedMap::encode(
                &exact,
                &encoding(MapSpace::Tangent, f, bc7, BcEncoder::default()),
            ) {
                Ok(stored) => {
                    let (n, t) = frame_angles(&stored, &exact.levels[0].quats, &mask)?;
                    push(c, n, t);
                }
                Err(e) => notes.push((c, e.to_string())),
            }
        }
        // The normal map itself: RGBA8 is the source (0 by definition); BC5 against it.
        if let Ok(bc5) =
            lab_maps::bc5_round_trip_chain(normal).map(|mut chain| chain.swap_remove(0))
        {
            let mut errs = Vec::new();
            for ((a, b), inside) in normal.pixels().zip(bc5.pixels()).zip(&mask) {
                if *inside {
                    // As the renderer unpacks it: 2c − 1, x and y × the material's scale, the
                    // direction measured (the tangent columns' normal likewise).
                    let scale = m.uniforms.normal_scale;
                    let v = |p: &image::Rgba<u8>| {
                        Vec3::new(
                            (f32::from(p[0]) / 127.5 - 1.0) * scale,
                            (f32::from(p[1]) / 127.5 - 1.0) * scale,
                            f32::from(p[2]) / 127.5 - 1.0,
                        )
                    };
                    errs.push(angle_deg(v(a), v(b)));
                }
            }
            push(Column::Reference { bc5: true }, errs, Vec::new());
        }
    }
    // Object space: per mesh with a map to bake, the f32 bake as the renderer makes it; texels
    // inside triangles.
    for (i, sm) in scene.meshes.iter().enumerate() {
        let MapSource::Bake { size } = sm.map else {
            continue;
        };
        let f32_options = MapOptions::stored(MapFormat::Rgba32Float);
        let baker = qtangent::qmap::Baker::new(ctx.raster_backend(), &f32_options);
        let exact = lab_maps::bake_object(scene, i, size, &baker, &mut ())?.map;
        let mask: Vec<bool> = exact
            .kind
            .iter()
            .map(|k| *k == TexelKind::Covered)
            .collect();
        for f in MapFormat::ALL {
            let c = Column::Map(MapSpace::Object, f);
            if f == MapFormat::Bc5 {
                continue;
            }
            let stored = EncodedMap::encode(
                &exact,
                &encoding(MapSpace::Object, f, bc7, BcEncoder::default()),
            )?;
            let (n, t) = frame_angles(&stored, &exact.levels[0].quats, &mask)?;
            push(c, n, t);
        }
    }
    Ok(pooled
        .into_iter()
        .map(|(c, n, t)| {
            let note = notes
                .iter()
                .find(|(k, _)| *k == c)
                .map_or_else(String::new, |(_, s)| s.clone());
            (c, AngleStats::of(n), AngleStats::of(t), note)
        })
        .collect())
}

/// Texels of a `w × h` map inside the UV triangles of the meshes using material `mi` (UVs
/// outside [0, 1] clipped).
fn coverage(scene: &RenderScene, mi: usize, w: u32, h: u32) -> Result<Vec<bool>, Error> {
    let prims: Vec<_> = scene
        .meshes
        .iter()
        .filter(|m| m.material == mi)
        .map(|m| &m.mesh)
        .collect();
    let mut mask = vec![false; (w * h) as usize];
    if prims.is_empty() {
        return Ok(mask);
    }
    let bake = BakeMesh::from_prepared("coverage", &prims);
    let settings = qmap::BakeSettings {
        width: w,
        height: h,
        padding: 0,
        format: MapFormat::Rgba8Snorm,
    };
    let raster = CpuRaster.raster(&bake, None, &settings, &mut ())?;
    for (m, k) in mask.iter_mut().zip(&raster.kind) {
        *m = *k == TexelKind::Covered;
    }
    Ok(mask)
}

/// Renders a scene's uploads at every size, for one column each.
struct Renders<'a> {
    ctx: &'a GpuContext,
    renderer: &'a Renderer,
    scene: &'a RenderScene,
    sizes: &'a [(u32, u32)],
}

impl Renders<'_> {
    /// `gpu` drawn with `source` at every size.
    fn all(&self, gpu: &GpuScene, source: FrameSource) -> Result<Vec<RgbaImage>, Error> {
        self.sizes
            .iter()
            .map(|&(w, h)| {
                let view = View::fitted(self.scene, w as f32 / h as f32, 30.0, 20.0);
                Ok(self
                    .renderer
                    .render_image(self.ctx, gpu, &view, source, w, h)?)
            })
            .collect()
    }

    /// `scene` uploaded with `options`, the objects with an authored map hidden: they carry a
    /// tangent field only the maps draw (the default scene's spun plate), so PSNR is measured
    /// without them.
    fn upload(
        &self,
        scene: &RenderScene,
        options: &MapOptions,
        warnings: &mut Vec<qtangent::Warning>,
    ) -> Result<GpuScene, Error> {
        let mut gpu =
            self.renderer
                .upload(self.ctx, scene, &[Format::Snorm16x4], options, warnings)?;
        for k in gpu.report().authored_objects.clone() {
            gpu.hide(k);
        }
        Ok(gpu)
    }
}

/// The reference's pictures and costs, with its normal maps as RGBA8 and as BC5.
struct Reference {
    images: Vec<RgbaImage>,
    bc5_images: Vec<RgbaImage>,
    /// Bytes of the reference's vertex frames on the GPU.
    frame_vertex_bytes: u64,
}

impl Reference {
    fn new(renders: &Renders<'_>) -> Result<Self, Error> {
        let base = renders.upload(renders.scene, &MapOptions::default(), &mut Vec::new())?;
        let images = renders.all(&base, FrameSource::Reference)?;
        let cost = base.cost(FrameSource::Reference).unwrap_or_default();
        // The normal map and the anisotropy direction BC5 at every mip, as an engine ships them.
        let bc5_scene = renders.scene.engine_textures();
        for w in &bc5_scene.warnings[renders.scene.warnings.len()..] {
            eprintln!("warning: reference with BC5 textures: {w}");
        }
        let bc5_gpu = renders.upload(&bc5_scene, &MapOptions::default(), &mut Vec::new())?;
        Ok(Self {
            images,
            bc5_images: renders.all(&bc5_gpu, FrameSource::Reference)?,
            frame_vertex_bytes: cost.frame_vertex_bytes,
        })
    }

    /// Each of `images` against the reference picture of its size.
    fn diffs(&self, images: &[RgbaImage]) -> Result<Vec<ImageDiff>, Error> {
        self.images
            .iter()
            .zip(images)
            .map(|(a, b)| render::diff(a, b, None).map_err(Error::from))
            .collect()
    }
}

fn measure(
    ctx: &GpuContext,
    renderer: &Renderer,
    scene: &RenderScene,
    sizes: &[(u32, u32)],
    bc7: Bc7Quality,
) -> Result<Vec<(Column, Row)>, Error> {
    let errors = texel_errors(ctx, scene, bc7)?;
    let renders = Renders {
        ctx,
        renderer,
        scene,
        sizes,
    };
    let reference = Reference::new(&renders)?;
    // Normal-map bytes with mips, counted per mesh as the renderer's costs count them; the
    // anisotropy texture's direction (what a quaternion map carries of it) likewise: RG8 (2 B)
    // uncompressed, BC5 (1 B) as engines ship it. Its strength (blue) is read by every column
    // alike and not counted.
    let texture_bytes = |bpt: f64, direction_bpt: f64| -> u64 {
        scene
            .meshes
            .iter()
            .map(|m| &scene.materials[m.material])
            .map(|m| {
                let bytes = |t: &Option<image::RgbaImage>, b: f64| {
                    t.as_ref()
                        .map_or(0, |t| mip_bytes(t.width(), t.height(), b))
                };
                bytes(&m.normal, bpt) + bytes(&m.anisotropy, direction_bpt)
            })
            .sum()
    };
    let has_direction = scene.materials.iter().any(|m| m.anisotropy.is_some());
    let find = |c: Column| errors.iter().find(|(k, _, _, _)| *k == c);
    let mut rows = Vec::new();
    for c in columns() {
        let mut row = Row::default();
        if let Some((_, n, t, note)) = find(c) {
            row.normal = Some(*n);
            row.tangent = (t.count > 0).then_some(*t);
            row.note.clone_from(note);
        }
        match c {
            Column::Reference { bc5 } => {
                row.bytes_per_texel = match (bc5, has_direction) {
                    (false, false) => "4".into(),
                    (true, false) => "1".into(),
                    (false, true) => "4 + 2".into(),
                    (true, true) => "1 + 1".into(),
                };
                row.frame_bytes = reference.frame_vertex_bytes
                    + if bc5 {
                        texture_bytes(1.0, 1.0)
                    } else {
                        texture_bytes(4.0, 2.0)
                    };
                let images = if bc5 {
                    &reference.bc5_images
                } else {
                    &reference.images
                };
                row.renders = reference.diffs(images)?;
                if !bc5 {
                    row.normal = Some(AngleStats::default());
                }
            }
            Column::Map(space, format) => {
                map_column(&renders, &reference, (space, format), bc7, &mut row)?;
            }
        }
        rows.push((c, row));
    }
    Ok(rows)
}

/// A map column's bytes, notes and renders: the scene's maps of `space` stored as `format`.
fn map_column(
    renders: &Renders<'_>,
    reference: &Reference,
    (space, format): (MapSpace, MapFormat),
    bc7: Bc7Quality,
    row: &mut Row,
) -> Result<(), Error> {
    row.bytes_per_texel = format!("{}", lab_maps::bytes_per_texel(format));
    let options = MapOptions {
        bc7,
        ..MapOptions::stored(format)
    };
    let mut warnings: Vec<qtangent::Warning> = Vec::new();
    let gpu = renders.upload(renders.scene, &options, &mut warnings)?;
    for w in warnings.iter().map(ToString::to_string) {
        // Only what concerns this column's kind of map: tangent-space maps are a
        // material's, object-space maps a mesh's.
        let of_material = w.starts_with("material '");
        let other_kind = of_material != (space == MapSpace::Tangent);
        if !other_kind && !row.note.contains(w.as_str()) {
            row.note.push_str(&format!(
                "{}{w}",
                if row.note.is_empty() { "" } else { "; " }
            ));
        }
    }
    let source = match space {
        MapSpace::Object => FrameSource::QuatMap,
        MapSpace::Tangent => FrameSource::QuatMapTangent,
    };
    let cost = gpu.cost(source).unwrap_or_default();
    row.frame_bytes = cost.frame_vertex_bytes + cost.frame_texture_bytes;
    row.renders = reference.diffs(&renders.all(&gpu, source)?)?;
    Ok(())
}

/// Bytes of a `w × h` texture with all mips at `bpt` bytes per texel (BC: 1, blocks rounded).
fn mip_bytes(w: u32, h: u32, bpt: f64) -> u64 {
    let (mut w, mut h, mut total) = (w, h, 0u64);
    loop {
        total += if bpt < 2.0 {
            u64::from(w.div_ceil(4) * h.div_ceil(4)) * 16
        } else {
            (f64::from(w * h) * bpt) as u64
        };
        if w == 1 && h == 1 {
            break;
        }
        (w, h) = ((w / 2).max(1), (h / 2).max(1));
    }
    total
}

fn mib(b: u64) -> String {
    format!("{:.2} MiB", b as f64 / (1024.0 * 1024.0))
}

fn stats(s: Option<AngleStats>) -> String {
    s.map_or_else(
        || "–".into(),
        |s| format!("{:.3} / {:.2} / {:.1}", s.mean, s.p99, s.max),
    )
}

fn print_table(name: &str, scene: &RenderScene, sizes: &[(u32, u32)], rows: &[(Column, Row)]) {
    println!(
        "## {name} ({} meshes, {} materials)\n",
        scene.meshes.len(),
        scene.materials.len()
    );
    let authored: Vec<&str> = scene
        .meshes
        .iter()
        .filter(|m| matches!(m.map, MapSource::Authored(_)))
        .map(|m| m.mesh.label.as_str())
        .collect();
    if !authored.is_empty() {
        println!(
            "PSNR without {} (an authored tangent field only the maps draw).\n",
            authored.join(", ")
        );
    }
    let size_cols: Vec<String> = sizes
        .iter()
        .map(|(w, h)| format!("PSNR dB / max, {w}×{h}"))
        .collect();
    println!(
        "| column | B/texel | frame bytes on GPU | normal error ° (mean / p99 / max) | tangent error ° | {} | note |",
        size_cols.join(" | ")
    );
    println!(
        "|---|---:|---:|---:|---:|{}---|",
        "---:|".repeat(sizes.len())
    );
    for (c, r) in rows {
        let renders: Vec<String> = r
            .renders
            .iter()
            .map(|d| {
                if d.psnr_db.is_infinite() {
                    "= / 0".to_string()
                } else {
                    format!("{:.2} / {}", d.psnr_db, d.max_error)
                }
            })
            .collect();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.label(),
            r.bytes_per_texel,
            mib(r.frame_bytes),
            stats(r.normal),
            stats(r.tangent),
            renders.join(" | "),
            r.note
        );
    }
    println!();
}

/// Bake time per stage for FlightHelmet's materials, at 2048² and (unless `quick`) 4096².
fn timing(
    ctx: &GpuContext,
    assets: &std::path::Path,
    quick: bool,
    bc7: Bc7Quality,
) -> Result<(), Error> {
    let scene = RenderScene::load(&assets.join("gltf/FlightHelmet/FlightHelmet.gltf"))?;
    println!(
        "## Bake time, FlightHelmet, all materials ({} cores)\n",
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    println!("Tangent-space maps come from the normal map alone (its mips, the rotation per texel, compression); object-space maps rasterise the mesh (on {}), then hemispheres, padding and mips (CPU), then compression.\n", ctx.info.name);
    println!("BC5 and BC7 are encoded on every core by Intel's ISPC kernels (`ispc`, the default) and by `block_compression`'s portable Rust port of them (`portable`); Mtexel/s counts every mip level's texels; the per-texel error is against the f32 bake over texels inside triangles (object space) or every texel (tangent space).\n");
    println!("| size | kind → format (encoder) | stages (summed over materials) | total |");
    println!("|---|---|---|---:|");
    let sides: &[u32] = if quick { &[2048] } else { &[2048, 4096] };
    for &side in sides {
        let timing = BakeTiming {
            ctx,
            scene: &scene,
            side,
        };
        // Each encoder side by side: the ISPC kernels (the default) and the portable port.
        for encoder in BcEncoder::ALL {
            timing.tangent(bc7, encoder)?;
        }
        // Object space → BC7, at this effort and at UltraFast.
        let qualities = if bc7 == Bc7Quality::UltraFast {
            vec![bc7]
        } else {
            vec![bc7, Bc7Quality::UltraFast]
        };
        for quality in qualities {
            for encoder in BcEncoder::ALL {
                timing.object(quality, encoder)?;
            }
        }
    }
    println!();
    Ok(())
}

/// One size's rows of the bake-time table.
struct BakeTiming<'a> {
    ctx: &'a GpuContext,
    scene: &'a RenderScene,
    /// Side of every map, texels.
    side: u32,
}

impl BakeTiming<'_> {
    /// Tangent space → BC5 at `side`²: the rotations on the GPU (here lavapipe) and on the CPU
    /// (every core), the total with the faster.
    fn tangent(&self, bc7: Bc7Quality, encoder: BcEncoder) -> Result<(), Error> {
        let (ctx, scene, side) = (self.ctx, self.scene, self.side);
        let mut t = [Duration::ZERO; 4];
        let mut pool = Pooled::default();
        for m in &scene.materials {
            let Some(normal) = &m.normal else { continue };
            let img = if normal.width() == side {
                normal.clone()
            } else {
                image::imageops::resize(normal, side, side, image::imageops::FilterType::Triangle)
            };
            let levels = timed(&mut t[0], || {
                lab_maps::normal_map_levels(&img, m.uniforms.normal_scale)
            });
            timed(&mut t[1], || {
                RasterBackend::bake_tangent(ctx, &levels, None, MapFormat::Rgba32Float)
            })?;
            let map = timed(&mut t[2], || {
                CpuRaster.bake_tangent(&levels, None, MapFormat::Rgba32Float)
            })?;
            let how = encoding(MapSpace::Tangent, MapFormat::Bc5, bc7, encoder);
            let all = vec![true; map.levels[0].quats.len()];
            pool.store(&map, &how, &all, &mut t[3])?;
        }
        let (texels, n, tn) = pool.stats();
        let total = (t[0] + t[1].min(t[2]) + t[3]).as_secs_f64();
        let [mips, gpu, cpu, bc5] = t.map(|d| d.as_secs_f64());
        let (rate, name, n, tn) = (
            texels as f64 / bc5 / 1e6,
            encoder.name(),
            stats(Some(n)),
            stats(Some(tn)),
        );
        println!(
            "| {side}² | tangent → bc5 ({name}) | mips {mips:.2} s, rotations on the GPU {gpu:.2} s or on the CPU {cpu:.2} s, BC5 {bc5:.2} s ({rate:.0} Mtexel/s); per-texel error ° normal {n}, tangent {tn} | {total:.2} s |"
        );
        Ok(())
    }

    /// Object space → BC7 at `side`² and effort `quality`: raster, finish and compression times,
    /// and the per-texel error against the f32 bake, inside triangles.
    fn object(&self, quality: Bc7Quality, encoder: BcEncoder) -> Result<(), Error> {
        let (ctx, scene, side) = (self.ctx, self.scene, self.side);
        let mut o = [Duration::ZERO; 3];
        let mut pool = Pooled::default();
        for (i, sm) in scene.meshes.iter().enumerate() {
            if !matches!(sm.map, MapSource::Bake { .. }) {
                continue;
            }
            let (bake, normal_map) = lab_maps::bake_input(scene, i);
            let normal_map = normal_map.map(|nm| resize_normal_map(&nm, side));
            // The f32 bake as the renderer's baker makes it (every level rastered where the
            // device rasters fastest), timed by its own phases; stored below.
            let options = MapOptions {
                format: Some(MapFormat::Rgba32Float),
                padding: lab_maps::bake_settings(side).padding,
                ..MapOptions::default()
            };
            let input = ObjectInput {
                mesh: bake,
                normal_map: normal_map.as_ref(),
                direction: None,
                size: side,
                repack: Repack::Never,
            };
            let baked = Baker::new(ctx.raster_backend(), &options).object(input, &mut ())?;
            for (phase, d) in &baked.times {
                match *phase {
                    "raster" => o[0] += *d,
                    "finish" => o[1] += *d,
                    _ => {}
                }
            }
            let map = baked.map;
            let how = encoding(MapSpace::Object, MapFormat::Bc7, quality, encoder);
            let mask: Vec<bool> = map.kind.iter().map(|k| *k == TexelKind::Covered).collect();
            pool.store(&map, &how, &mask, &mut o[2])?;
        }
        let (texels, n, t) = pool.stats();
        let total = o.iter().sum::<Duration>().as_secs_f64();
        let [raster, finish, bc7] = o.map(|d| d.as_secs_f64());
        let (rate, n, t) = (texels as f64 / bc7 / 1e6, stats(Some(n)), stats(Some(t)));
        let (quality, name) = (quality.name(), encoder.name());
        let raster_on = ctx.raster_backend().describe();
        println!(
            "| {side}² | object → bc7 {quality} ({name}) | raster, every level ({raster_on}) {raster:.2} s, finish {finish:.2} s, BC7 {bc7:.2} s ({rate:.2} Mtexel/s); per-texel error ° normal {n}, tangent {t} | {total:.2} s |"
        );
        Ok(())
    }
}

/// What a bake-time row pools over the scene's maps: texels stored, and the per-texel angle
/// errors of the stored normal and tangent against the f32 bake.
#[derive(Default)]
struct Pooled {
    texels: usize,
    normals: Vec<f64>,
    tangents: Vec<f64>,
}

impl Pooled {
    /// Stores `map` as `how` (the time added to `time`) and pools its texels and the errors of
    /// level 0's texels in `mask`.
    fn store(
        &mut self,
        map: &QuatMap,
        how: &Encoding,
        mask: &[bool],
        time: &mut Duration,
    ) -> Result<(), Error> {
        let stored = timed(time, || EncodedMap::encode(map, how))?;
        self.texels += map.levels.iter().map(|l| l.quats.len()).sum::<usize>();
        let (n, t) = frame_angles(&stored, &map.levels[0].quats, mask)?;
        self.normals.extend(n);
        self.tangents.extend(t);
        Ok(())
    }

    /// Texels stored, and the statistics of the normal and tangent errors.
    fn stats(self) -> (usize, AngleStats, AngleStats) {
        let (n, t) = (AngleStats::of(self.normals), AngleStats::of(self.tangents));
        (self.texels, n, t)
    }
}

/// How a map of `space` is stored as `format`, BC7 at effort `bc7`, by `encoder`.
fn encoding(space: MapSpace, format: MapFormat, bc7: Bc7Quality, encoder: BcEncoder) -> Encoding {
    Encoding {
        bc7,
        encoder,
        ..Encoding::new(space, format)
    }
}

/// `f()`, its wall-clock time added to `total`.
fn timed<T>(total: &mut Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let value = f();
    *total += start.elapsed();
    value
}

/// A normal map resampled to `side`² (bilinear, repeat), for timing at a size the asset lacks.
fn resize_normal_map(nm: &NormalMap, side: u32) -> NormalMap {
    if nm.width == side && nm.height == side {
        return nm.clone();
    }
    let texels = (0..side * side)
        .map(|i| {
            let (x, y) = (i % side, i / side);
            lab_maps::sample_normal_map(
                nm,
                glam::Vec2::new(
                    (x as f32 + 0.5) / side as f32,
                    (y as f32 + 0.5) / side as f32,
                ),
            )
        })
        .collect();
    NormalMap {
        width: side,
        height: side,
        texels,
    }
}
