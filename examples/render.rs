//! `render`: draws a scene lit with its tangent frames from one of four sources — f32 vertex
//! attributes + normal map (reference), a qtangent vertex attribute + normal map, an
//! object-space quaternion map, or the qtangent vertex frame turned by a tangent-space
//! quaternion map — headless, to PNG. `--mode all` renders all four, writes difference
//! heatmaps against the reference and a side-by-side sheet, and prints PSNR, maximum error,
//! bytes and frame times. Maps are baked on the GPU and stored as `--map-format` (default: the
//! compressed one, BC5 or BC7), or loaded from `--maps DIR` (KTX2 files `bake` wrote).
//!
//! ```sh
//! cargo run --release --example render                       # the embedded default scene, all modes
//! cargo run --release --example render -- ../shared/assets/gltf/FlightHelmet/FlightHelmet.gltf \
//!     --mode all --size 1280x720 -o renders/helmet.png
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::builder::TypedValueParser as _;
use clap::Parser;
use image::RgbaImage;
use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, MapReport, Renderer, View};
use qtangent::qmap::Bc7Quality;
use qtangent::qmap::MapFormat;
use qtangent::qmap::MapOptions;
use qtangent::render::FrameSource;
use qtangent::render::{self, ImageDiff};
use qtangent::Format;

#[path = "common/console.rs"]
mod console;

#[derive(Parser, Debug)]
#[command(about = "Render a scene lit with reference, qtangent or quaternion-map tangent frames")]
struct Args {
    /// A glTF (.gltf/.glb) or OBJ file, or `default` for the embedded default scene.
    #[arg(default_value = "default")]
    scene: String,
    /// reference | qtangent | quatmap | quatmap-tangent | all.
    #[arg(long, default_value = "all", value_parser = ["reference", "qtangent", "quatmap", "quatmap-tangent", "all"])]
    mode: String,
    /// Stored format of both kinds of quaternion map: rgba16f, snorm16, snorm8, rgba32f, bc5,
    /// bc7 (default: the compressed one — bc5 for tangent-space maps, bc7 for those with a twist
    /// and for object-space maps; bc5 asked of those is stored as bc7, with a note).
    #[arg(long, value_parser = map_format_parser())]
    map_format: Option<MapFormat>,
    /// Keep the object-space maps' handedness plane instead of deriving the handedness from the
    /// UV winding.
    #[arg(long)]
    keep_handedness: bool,
    /// BC7 encoder effort for the maps baked here: ultrafast (about 1 s per 2048² map on two
    /// cores), veryfast, fast, basic (the default of every tool, what ships; about 16 s), slow.
    #[arg(long, default_value_t = MapOptions::default().bc7, value_parser = bc7_parser())]
    bc7_quality: Bc7Quality,
    /// A folder of KTX2 maps written by `bake` (`<material>.ktx2`): used for the materials it
    /// has, instead of baking.
    #[arg(long, value_name = "DIR")]
    maps: Option<PathBuf>,
    /// The qtangent vertex format (qtangent mode and `all`).
    #[arg(long, default_value = "snorm16x4", value_parser = format_parser())]
    format: Format,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    size: (u32, u32),
    /// Output PNG. With `--mode all`, `-reference`, `-qtangent`, `-quatmap`, `-quatmap-tangent`,
    /// `-diff-qtangent`, `-diff-quatmap`, `-diff-quatmap-tangent` and `-sheet` are inserted
    /// before the extension.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Camera yaw about +Y, degrees (0 looks from +Z).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true)]
    yaw: f32,
    /// Camera pitch above the horizon, degrees.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    pitch: f32,
    /// Camera distance as a multiple of the fitted distance (1 = the scene fills the view).
    #[arg(long, default_value_t = 1.0)]
    zoom_out: f32,
    /// Sun yaw, degrees (default: 40° left of the camera).
    #[arg(long, allow_negative_numbers = true)]
    sun_yaw: Option<f32>,
    /// Sun elevation, degrees.
    #[arg(long, default_value_t = 50.0, allow_negative_numbers = true)]
    sun_pitch: f32,
    /// Exposure before tone mapping.
    #[arg(long, default_value_t = 1.0)]
    exposure: f32,
    /// Force every material's anisotropy strength to this value (0 to 1).
    #[arg(long)]
    aniso: Option<f32>,
    /// Side of every baked quaternion map (default: one texel per normal-map texel, at least
    /// 256; the default scene uses 512).
    #[arg(long)]
    map_size: Option<u32>,
    /// Frames to time per mode (0: no timing).
    #[arg(long, default_value_t = 5)]
    frames: u32,
}

fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    clap::builder::PossibleValuesParser::new(Format::ALL.map(Format::name))
        .try_map(|s| s.parse::<Format>().map_err(|e| e.to_string()))
}

fn map_format_parser() -> impl clap::builder::TypedValueParser<Value = MapFormat> {
    clap::builder::PossibleValuesParser::new(MapFormat::ALL.map(MapFormat::name))
        .try_map(|s| s.parse::<MapFormat>().map_err(|e| e.to_string()))
}

fn bc7_parser() -> impl clap::builder::TypedValueParser<Value = Bc7Quality> {
    clap::builder::PossibleValuesParser::new(Bc7Quality::ALL.map(Bc7Quality::name))
        .try_map(|s| s.parse::<Bc7Quality>().map_err(|e| e.to_string()))
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("size {s:?} is not WIDTHxHEIGHT"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|e| format!("size {s:?}: {v:?} is not a whole number ({e})"))
    };
    let (w, h) = (parse(w)?, parse(h)?);
    if w == 0 || h == 0 {
        return Err(format!("size {s:?}: both sides must be at least 1"));
    }
    Ok((w, h))
}

fn main() -> ExitCode {
    console::quiet_mesa();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("render: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `dir/stem-suffix.png` for `path` = `dir/stem.ext`.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "render".into(), |s| s.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}-{suffix}.png"))
}

fn save(img: &RgbaImage, path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // Write next to the target and rename, so a failed run never leaves half a PNG.
    let tmp = path.with_extension("png.partial");
    img.save_with_format(&tmp, image::ImageFormat::Png)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

#[allow(clippy::too_many_lines)]
fn run(args: &Args) -> Result<(), String> {
    let start = Instant::now();
    let mut scene =
        qtangent::lab::content::scene_from_arg(&args.scene).map_err(|e| e.to_string())?;
    if let Some(size) = args.map_size {
        if !(1..=16384).contains(&size) {
            return Err(format!("--map-size {size} is outside 1 to 16384"));
        }
        scene.set_bake_size(size);
    }
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(a) = args.aniso {
        if !(0.0..=1.0).contains(&a) {
            return Err(format!("--aniso {a} is outside 0 to 1"));
        }
    }
    if !(args.zoom_out.is_finite() && args.zoom_out > 0.0) {
        return Err(format!(
            "--zoom-out {} must be a positive number",
            args.zoom_out
        ));
    }
    if !(args.exposure.is_finite() && args.exposure > 0.0) {
        return Err(format!(
            "--exposure {} must be a positive number",
            args.exposure
        ));
    }
    let (width, height) = args.size;
    let output = args.output.clone().unwrap_or_else(|| {
        let stem = if args.scene == "default" {
            "default".to_string()
        } else {
            Path::new(&args.scene)
                .file_stem()
                .map_or_else(|| "render".into(), |s| s.to_string_lossy().into_owned())
        };
        PathBuf::from("renders").join(format!("{stem}.png"))
    });

    let ctx = GpuContext::new().map_err(|e| e.to_string())?;
    let renderer = Renderer::new(&ctx).map_err(|e| e.to_string())?;
    if let Some(dir) = &args.maps {
        if !dir.is_dir() {
            return Err(format!("--maps {}: not a folder", dir.display()));
        }
    }
    let options = MapOptions {
        format: args.map_format,
        keep_handedness: args.keep_handedness,
        maps_dir: args.maps.clone(),
        bc7: args.bc7_quality,
        ..MapOptions::default()
    };
    let gpu = renderer
        .upload(
            &ctx,
            &scene,
            &[args.format],
            &options,
            &mut console::Console::with_progress("render"),
        )
        .map_err(|e| format!("{}: {e}", scene.name))?;
    print_map_origins(gpu.report());
    for m in gpu
        .report()
        .object_maps
        .iter()
        .filter(|m| m.format.is_none())
    {
        eprintln!(
            "note: {} has no quaternion map; quatmap mode draws it with {} vertex frames",
            m.name,
            qtangent::gpu::FALLBACK_FORMAT.name()
        );
    }
    let aspect = width as f32 / height as f32;
    let mut view = View::fitted(&scene, aspect, args.yaw, args.pitch);
    view.camera.distance *= args.zoom_out;
    if let Some(y) = args.sun_yaw {
        let (c, r) = scene.bounds();
        view.lighting = qtangent::render::Lighting::studio(c, r, y, args.sun_pitch);
    } else {
        let (c, r) = scene.bounds();
        view.lighting = qtangent::render::Lighting::studio(c, r, args.yaw - 40.0, args.sun_pitch);
    }
    view.lighting.exposure = args.exposure;
    view.anisotropy_override = args.aniso;

    println!(
        "{}: {} meshes, {} objects, {} vertices, {} triangles drawn; {}×{} on {}",
        scene.name,
        scene.meshes.len(),
        scene.objects.len(),
        gpu.vertex_count(),
        gpu.triangles_drawn(),
        width,
        height,
        ctx.describe()
    );
    let sources: Vec<FrameSource> = match args.mode.as_str() {
        "reference" => vec![FrameSource::Reference],
        "qtangent" => vec![FrameSource::QTangent(args.format)],
        "quatmap" => vec![FrameSource::QuatMap],
        "quatmap-tangent" => vec![FrameSource::QuatMapTangent],
        _ => vec![
            FrameSource::Reference,
            FrameSource::QTangent(args.format),
            FrameSource::QuatMap,
            FrameSource::QuatMapTangent,
        ],
    };
    let mut images = Vec::new();
    for &s in &sources {
        let img = renderer
            .render_image(&ctx, &gpu, &view, s, width, height)
            .map_err(|e| format!("rendering {} in {} mode: {e}", scene.name, s.label()))?;
        images.push(img);
    }
    if sources.len() == 1 {
        save(&images[0], &output)?;
    } else {
        for (s, img) in sources.iter().zip(&images) {
            save(img, &with_suffix(&output, s.mode_name()))?;
        }
        report_all(
            args,
            &renderer,
            &ctx,
            &mut { gpu },
            &view,
            &sources,
            &images,
            &output,
        )?;
    }
    println!("done in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn report_all(
    args: &Args,
    renderer: &Renderer,
    ctx: &GpuContext,
    gpu: &mut GpuScene,
    view: &View,
    sources: &[FrameSource],
    images: &[RgbaImage],
    output: &Path,
) -> Result<(), String> {
    let (width, height) = args.size;
    let reference = &images[0];
    let mut heatmaps = Vec::new();
    let mut diffs: Vec<(FrameSource, ImageDiff, Option<ImageDiff>)> = Vec::new();
    let authored = gpu.report().authored_objects.clone();
    let has_authored = !authored.is_empty();
    // With the authored-map objects hidden, the modes must agree: render those pictures too.
    let without: Option<Vec<RgbaImage>> = if has_authored {
        for &k in &authored {
            gpu.hide(k);
        }
        let mut v = Vec::new();
        for &s in sources {
            v.push(
                renderer
                    .render_image(ctx, gpu, view, s, width, height)
                    .map_err(|e| e.to_string())?,
            );
        }
        gpu.show_all();
        Some(v)
    } else {
        None
    };
    for (k, (&s, img)) in sources.iter().zip(images).enumerate().skip(1) {
        let d = render::diff(reference, img, None).map_err(|e| e.to_string())?;
        let d_without = match &without {
            Some(v) => Some(render::diff(&v[0], &v[k], None).map_err(|e| e.to_string())?),
            None => None,
        };
        let heat = render::heatmap(reference, img).map_err(|e| e.to_string())?;
        save(
            &heat,
            &with_suffix(output, &format!("diff-{}", s.mode_name())),
        )?;
        heatmaps.push(heat);
        diffs.push((s, d, d_without));
    }
    // The sheet: the three pictures on top, the two heatmaps under the last two, at half size.
    let half = |i: &RgbaImage| {
        image::imageops::resize(
            i,
            (i.width() / 2).max(1),
            (i.height() / 2).max(1),
            image::imageops::FilterType::Triangle,
        )
    };
    let top: Vec<RgbaImage> = images.iter().map(half).collect();
    let blank = RgbaImage::from_pixel(
        top[0].width(),
        top[0].height(),
        image::Rgba([24, 24, 24, 255]),
    );
    let mut bottom_imgs = vec![blank];
    bottom_imgs.extend(heatmaps.iter().map(half));
    let row = |v: &[RgbaImage]| render::side_by_side(&v.iter().collect::<Vec<_>>(), 8);
    let sheet = render::stacked(
        &[
            &row(&top).map_err(|e| e.to_string())?,
            &row(&bottom_imgs).map_err(|e| e.to_string())?,
        ],
        8,
    )
    .map_err(|e| e.to_string())?;
    save(&sheet, &with_suffix(output, "sheet"))?;

    println!(
        "\nAgainst the reference (heatmap: black = equal, white ≥ {} levels of 255):",
        render::HEATMAP_FULL_SCALE
    );
    if has_authored {
        println!("| mode | PSNR (dB) | max error | pixels differing | without the authored-map objects: PSNR (dB) | max error |");
        println!("|---|---:|---:|---:|---:|---:|");
    } else {
        println!("| mode | PSNR (dB) | max error | pixels differing |");
        println!("|---|---:|---:|---:|");
    }
    for (s, d, dw) in &diffs {
        let pct = 100.0 * d.differing as f64 / d.pixels.max(1) as f64;
        let base = format!(
            "| {} | {:.2} | {} | {:.2}% |",
            s.label(),
            d.psnr_db,
            d.max_error,
            pct
        );
        match dw {
            Some(w) => println!("{base} {:.2} | {} |", w.psnr_db, w.max_error),
            None => println!("{base}"),
        }
    }
    if has_authored {
        println!("(The authored map carries a tangent field the vertex frames do not have: there the modes differ by design.)");
    }
    let formats = |v: &[MapReport]| {
        let mut names: Vec<&str> = v
            .iter()
            .filter_map(|m| m.format.map(MapFormat::name))
            .collect();
        names.sort_unstable();
        names.dedup();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    println!(
        "\nMaps stored as: object-space {}; tangent-space {}.",
        formats(&gpu.report().object_maps),
        formats(&gpu.report().tangent_maps)
    );
    println!("\nCost on the GPU ({} vertices):", gpu.vertex_count());
    println!("| mode | vertex buffers | of which frame | frame textures (mips incl.) | frame time ({}×{}) |", width, height);
    println!("|---|---:|---:|---:|---:|");
    for &s in sources {
        let c = gpu.cost(s).unwrap_or_default();
        let t = if args.frames == 0 {
            "–".to_string()
        } else {
            let d = renderer
                .time_frames(
                    ctx,
                    gpu,
                    &qtangent::gpu::Shot {
                        view,
                        source: s,
                        size: glam::UVec2::new(width, height),
                    },
                    args.frames,
                )
                .map_err(|e| e.to_string())?;
            format!("{:.1} ms", d.as_secs_f64() * 1e3)
        };
        println!(
            "| {} | {} | {} | {} | {t} |",
            s.label(),
            kib(c.vertex_bytes),
            kib(c.frame_vertex_bytes),
            kib(c.frame_texture_bytes)
        );
    }
    if args.frames > 0 {
        println!(
            "(frame time: wall clock of submit + wait, mean of {} frames after a warm-up, on {})",
            args.frames, ctx.info.name
        );
    }
    Ok(())
}

/// Names the maps loaded from the maps folder.
fn print_map_origins(report: &qtangent::gpu::UploadReport) {
    let kinds = [
        ("tangent", &report.tangent_maps),
        ("object", &report.object_maps),
    ];
    for (kind, maps) in kinds {
        for m in maps.iter() {
            if let Some(qtangent::render::MapOrigin::Loaded(path)) = &m.origin {
                let name = &m.name;
                eprintln!(
                    "render: {name}: {kind}-space map loaded from {}",
                    path.display()
                );
            }
        }
    }
}
