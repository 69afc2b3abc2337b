//! `qtangent render`: draws a scene lit with its tangent frames from one of four sources — f32 vertex
//! attributes + normal map (reference), a qtangent vertex attribute + normal map, an
//! object-space quaternion map, or the qtangent vertex frame turned by a tangent-space
//! quaternion map — headless, to PNG. `--mode all` renders all four, writes difference
//! heatmaps against the reference and a side-by-side sheet, and prints PSNR, maximum error,
//! bytes and frame times. Maps are baked through the device (`GpuContext::raster_backend`: the
//! GPU, or the CPU on a CPU adapter) and stored as `--map-format` (default: the compressed one,
//! BC5 or BC7), or loaded from `--maps-dir DIR` (KTX2 files `qtangent bake` wrote).
//!
//! ```sh
//! qtangent render                       # the embedded default scene, all modes
//! qtangent render ../shared/assets/gltf/FlightHelmet/FlightHelmet.gltf \
//!     --mode all --size 1280x720 -o renders/helmet.png
//! ```
//!
//! Refusals (flags, `-o` not a .png) exit with status 2 before any work; a scene that does not
//! load or draw exits with 1; both print one line, `qtangent render: <error>`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use image::RgbaImage;
use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, MapReport, Renderer, Shot, View};
use qtangent::qmap::MapFormat;
use qtangent::render::RenderScene;
use qtangent::render::{self, ImageDiff};
use qtangent::render::{FrameSource, Lighting};
use qtangent::Format;

use crate::{files, names, pictures, scene, size_arg, Verbosity};

/// `qtangent render`'s flags.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    scene: scene::SceneArgs,
    /// reference | qtangent | quatmap | quatmap-tangent | all.
    #[arg(long, default_value = "all", value_parser = ["reference", "qtangent", "quatmap", "quatmap-tangent", "all"])]
    mode: String,
    /// The qtangent vertex frame format (qtangent mode and `all`): smallest3x4, smallest3x6,
    /// f16x3, snorm16x4, f16x4, f32x4.
    #[arg(long, default_value = "snorm16x4", value_parser = names::<Format>(Format::ALL.map(Format::name)))]
    frames: Format,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = size_arg)]
    size: (u32, u32),
    /// The picture to write, .png (default: renders/<scene>.png). With `--mode all`, `-reference`, `-qtangent`, `-quatmap`, `-quatmap-tangent`,
    /// `-diff-qtangent`, `-diff-quatmap`, `-diff-quatmap-tangent` and `-sheet` are inserted
    /// before the extension; for a scene with normal or anisotropy textures also
    /// `-reference-bc5` and `-diff-reference-bc5`, the reference drawn with those textures BC5
    /// as engines ship them.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Camera eye and target, EX,EY,EZ,TX,TY,TZ in the scene's units, instead of `--yaw`,
    /// `--pitch` and `--zoom-out` (the vertical field of view stays 40°; every run prints its
    /// camera this way, so another renderer can draw the same view). The eye must be within 89°
    /// of the target's horizon.
    #[arg(long, value_parser = camera_arg, allow_hyphen_values = true, conflicts_with_all = ["yaw", "pitch", "zoom_out"])]
    camera: Option<([f32; 3], [f32; 3])>,
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
    /// Frames to time per mode (0: no timing).
    #[arg(long, default_value_t = 5)]
    time_frames: u32,
}

type Args = RenderArgs;

impl Args {
    /// Checks the numbers the parser lets through.
    fn check(&self) -> Result<(), String> {
        if let Some(o) = &self.output {
            let png = o.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
            if !png {
                return Err(format!(
                    "-o {}: render writes PNG pictures: name a .png file",
                    o.display()
                ));
            }
            if o.is_dir() {
                return Err(format!("-o {}: a folder; name a .png file", o.display()));
            }
        }
        self.scene.check()?;
        crate::check_picture_size("--size", self.size)?;
        if let Some(a) = self.aniso {
            if !(0.0..=1.0).contains(&a) {
                return Err(format!("--aniso {a} is outside 0 to 1"));
            }
        }
        if !(self.zoom_out.is_finite() && self.zoom_out > 0.0) {
            return Err(format!(
                "--zoom-out {} must be a positive number",
                self.zoom_out
            ));
        }
        if !(self.exposure.is_finite() && self.exposure > 0.0) {
            return Err(format!(
                "--exposure {} must be a positive number",
                self.exposure
            ));
        }
        Ok(())
    }

    /// `--output`, or `renders/<scene>.png`.
    fn output(&self) -> PathBuf {
        self.output.clone().unwrap_or_else(|| {
            let stem = if self.scene.is_default() {
                "default".to_string()
            } else {
                self.scene
                    .scene
                    .file_stem()
                    .map_or_else(|| "render".into(), |s| s.to_string_lossy().into_owned())
            };
            PathBuf::from("renders").join(format!("{stem}.png"))
        })
    }

    /// The frame sources `--mode` asks for; `all`: the reference first.
    fn sources(&self) -> Vec<FrameSource> {
        match self.mode.as_str() {
            "reference" => vec![FrameSource::Reference],
            "qtangent" => vec![FrameSource::QTangent(self.frames)],
            "quatmap" => vec![FrameSource::QuatMap],
            "quatmap-tangent" => vec![FrameSource::QuatMapTangent],
            _ => vec![
                FrameSource::Reference,
                FrameSource::QTangent(self.frames),
                FrameSource::QuatMap,
                FrameSource::QuatMapTangent,
            ],
        }
    }

    /// The camera fitted to `scene` at the asked angles and zoom (or `--camera`'s eye and
    /// target), the studio sun, exposure and anisotropy override.
    fn view(&self, scene: &RenderScene) -> View {
        let (width, height) = self.size;
        let aspect = width as f32 / height as f32;
        let mut view = View::fitted(scene, aspect, self.yaw, self.pitch);
        view.camera.distance *= self.zoom_out;
        if let Some((eye, target)) = self.camera {
            // The orbit angles of the eye about the target: the inverse of the camera's
            // direction (cos p · sin y, sin p, cos p · cos y).
            let d = glam::Vec3::from(eye) - glam::Vec3::from(target);
            view.camera.target = target.into();
            view.camera.distance = d.length();
            view.camera.yaw_deg = d.x.atan2(d.z).to_degrees();
            view.camera.pitch_deg = (d.y / d.length()).asin().to_degrees();
        }
        let (c, r) = scene.bounds();
        // The near and far planes hold a sphere about the target (`Camera::scene_radius`):
        // widened to hold the scene's sphere too when `--camera` looks somewhere else.
        view.camera.scene_radius = view
            .camera
            .scene_radius
            .max(c.distance(view.camera.target) + r);
        let sun_yaw = self.sun_yaw.unwrap_or(view.camera.yaw_deg - 40.0);
        view.lighting = Lighting::studio(c, r, sun_yaw, self.sun_pitch);
        view.lighting.exposure = self.exposure;
        view.anisotropy_override = self.aniso;
        view
    }
}

/// Runs `qtangent render`: `Err` for a refusal (before any work), `Ok(false)` for a failure
/// (printed here).
pub fn run(args: &Args, say: Verbosity) -> Result<bool, String> {
    args.check()?;
    match render(args, say) {
        Ok(()) => Ok(true),
        Err(e) => {
            eprintln!("qtangent render: {e}");
            Ok(false)
        }
    }
}

/// `--camera`'s value: six finite numbers, eye then target, apart.
fn camera_arg(v: &str) -> Result<([f32; 3], [f32; 3]), String> {
    let n: Vec<f32> = v
        .split(',')
        .map(|x| x.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{v}: six numbers, EX,EY,EZ,TX,TY,TZ"))?;
    let [ex, ey, ez, tx, ty, tz] = n[..] else {
        return Err(format!("{v}: six numbers, eye then target"));
    };
    if !n.iter().all(|x| x.is_finite()) {
        return Err(format!("{v}: the numbers must be finite"));
    }
    if [ex, ey, ez] == [tx, ty, tz] {
        return Err(format!("{v}: the eye is the target"));
    }
    // The orbit camera keeps its pitch within ±89° (straight up or down has no "up" to roll
    // by): refused rather than moved.
    let d = glam::Vec3::new(ex - tx, ey - ty, ez - tz);
    let pitch = (d.y / d.length()).clamp(-1.0, 1.0).asin().to_degrees();
    if pitch.abs() > 89.0 {
        return Err(format!(
            "{v}: the eye is {pitch:.2}° from the horizon as seen from the target; the camera keeps within ±89°"
        ));
    }
    Ok(([ex, ey, ez], [tx, ty, tz]))
}

/// The view's eye and target as `--camera` takes them.
fn camera_text(view: &View) -> String {
    let c = &view.camera;
    let (y, p) = (
        c.yaw_deg.to_radians(),
        c.pitch_deg.clamp(-89.0, 89.0).to_radians(),
    );
    let eye =
        c.target + c.distance * glam::Vec3::new(p.cos() * y.sin(), p.sin(), p.cos() * y.cos());
    [eye, c.target]
        .iter()
        .flat_map(|v| v.to_array())
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// `dir/stem-suffix.png` for `path` = `dir/stem.ext`.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "render".into(), |s| s.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}-{suffix}.png"))
}

/// The pictures of a run, written only once every one of them is made (a failure on the way
/// writes none).
type Pending = Vec<(PathBuf, RgbaImage)>;

/// Writes every picture of `pending` and says so.
fn write_all(pending: Pending) -> Result<(), String> {
    for (path, img) in &pending {
        files::save_png(img, path)?;
        out!("wrote {}", path.display());
    }
    Ok(())
}

fn kib(bytes: u64) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

/// The device, the renderer and the view every picture of a run shares.
struct Shots<'a> {
    ctx: &'a GpuContext,
    renderer: &'a Renderer,
    view: &'a View,
    size: (u32, u32),
}

impl Shots<'_> {
    /// The picture of `gpu` drawn with `source`.
    fn take(&self, gpu: &GpuScene, source: FrameSource) -> Result<RgbaImage, String> {
        let (width, height) = self.size;
        self.renderer
            .render_image(self.ctx, gpu, self.view, source, width, height)
            .map_err(|e| e.to_string())
    }
}

fn render(args: &Args, say: Verbosity) -> Result<(), String> {
    let start = Instant::now();
    let scene = args.scene.load()?;
    if say > Verbosity::Quiet {
        for w in &scene.warnings {
            eprintln!("qtangent render: warning: {w}");
        }
    }
    let output = args.output();
    let options = args.scene.map_options()?;
    let (ctx, renderer, mut gpu) =
        scene::open("qtangent render", &scene, &[args.frames], &options)?;
    let view = args.view(&scene);
    let (width, height) = args.size;
    out!(
        "{}; {width}×{height} on {}",
        scene::summary(&scene, &gpu),
        ctx
    );
    out!(
        "camera: {} (--camera; vertical field of view 40°)",
        camera_text(&view)
    );
    let shots = Shots {
        ctx: &ctx,
        renderer: &renderer,
        view: &view,
        size: args.size,
    };
    let sources = args.sources();
    let mut images = Vec::new();
    for &s in &sources {
        let img = shots
            .take(&gpu, s)
            .map_err(|e| format!("rendering {} in {} mode: {e}", scene.name, s))?;
        images.push(img);
    }
    let mut pending = Pending::new();
    if sources.len() == 1 {
        pending.extend(images.into_iter().map(|img| (output.clone(), img)));
    } else {
        let mut pictures: Vec<(String, String, RgbaImage)> = sources
            .iter()
            .zip(images)
            .map(|(s, img)| (s.mode_name().to_string(), s.to_string(), img))
            .collect();
        if let Some(img) = engine_reference(&shots, &scene)? {
            pictures.push((
                "reference-bc5".into(),
                "reference, BC5 textures (engine)".into(),
                img,
            ));
        }
        for (name, _, img) in &pictures {
            pending.push((with_suffix(&output, name), img.clone()));
        }
        report_all(
            args,
            &shots,
            &mut gpu,
            (&sources, &pictures),
            &output,
            &mut pending,
        )?;
    }
    write_all(pending)?;
    out!("done in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The reference drawn with the scene's normal and anisotropy textures BC5-compressed at every
/// level, as an engine ships them (`RenderScene::engine_textures`): what each quaternion-map
/// format is to beat at equal bytes. `None` for a scene without such textures.
fn engine_reference(shots: &Shots<'_>, scene: &RenderScene) -> Result<Option<RgbaImage>, String> {
    if !scene
        .materials
        .iter()
        .any(|m| m.normal.is_some() || m.anisotropy.is_some())
    {
        return Ok(None);
    }
    let engine = scene.engine_textures();
    for w in &engine.warnings[scene.warnings.len()..] {
        eprintln!("qtangent render: warning: reference with BC5 textures: {w}");
    }
    let options = qtangent::MapOptions::default();
    let gpu = shots
        .renderer
        .upload(shots.ctx, &engine, &[], &options, &mut ())
        .map_err(|e| format!("uploading {} with BC5 textures: {e}", scene.name))?;
    shots.take(&gpu, FrameSource::Reference).map(Some)
}

/// One picture against the reference: the whole picture, and the picture without the objects
/// whose maps are authored (where the scene has some).
struct ModeDiff {
    label: String,
    all: ImageDiff,
    without_authored: Option<ImageDiff>,
}

/// `--mode all`: heatmaps against the reference, the sheet, the PSNR table, the stored map
/// formats and the cost table.
fn report_all(
    args: &Args,
    shots: &Shots<'_>,
    gpu: &mut GpuScene,
    (sources, pictures): (&[FrameSource], &[(String, String, RgbaImage)]),
    output: &Path,
    pending: &mut Pending,
) -> Result<(), String> {
    let without = render_without_authored(shots, gpu, sources)?;
    let reference = &pictures[0].2;
    let mut heatmaps = Vec::new();
    let mut diffs = Vec::new();
    for (k, (name, label, img)) in pictures.iter().enumerate().skip(1) {
        let all = render::diff(reference, img, None).map_err(|e| e.to_string())?;
        // The pictures past the modes (the engine reference) have no hidden-objects twin.
        let without_authored = match without.as_ref().filter(|v| k < v.len()) {
            Some(v) => Some(render::diff(&v[0], &v[k], None).map_err(|e| e.to_string())?),
            None => None,
        };
        let heat = pictures::heatmap(reference, img).map_err(|e| e.to_string())?;
        pending.push((with_suffix(output, &format!("diff-{name}")), heat.clone()));
        heatmaps.push(heat);
        diffs.push(ModeDiff {
            label: label.clone(),
            all,
            without_authored,
        });
    }
    let images: Vec<RgbaImage> = pictures.iter().map(|(_, _, i)| i.clone()).collect();
    pending.push((with_suffix(output, "sheet"), sheet(&images, &heatmaps)?));
    print_diffs(&diffs, without.is_some());
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
    out!(
        "\nMaps stored as: object-space {}; tangent-space {}.",
        formats(&gpu.report().object_maps),
        formats(&gpu.report().tangent_maps)
    );
    print_costs(args, shots, gpu, sources)
}

/// With the authored-map objects hidden, the modes must agree: the pictures of every source
/// without them, or `None` where the scene has none.
fn render_without_authored(
    shots: &Shots<'_>,
    gpu: &mut GpuScene,
    sources: &[FrameSource],
) -> Result<Option<Vec<RgbaImage>>, String> {
    let authored = gpu.report().authored_objects.clone();
    if authored.is_empty() {
        return Ok(None);
    }
    gpu.set_hidden(&authored);
    let pictures: Result<Vec<RgbaImage>, String> =
        sources.iter().map(|&s| shots.take(gpu, s)).collect();
    gpu.set_hidden(&[]);
    pictures.map(Some)
}

/// The sheet: the pictures on top, the heatmaps under all but the first, at half size.
fn sheet(images: &[RgbaImage], heatmaps: &[RgbaImage]) -> Result<RgbaImage, String> {
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
    let row = |v: &[RgbaImage]| pictures::side_by_side(&v.iter().collect::<Vec<_>>(), 8);
    pictures::stacked(
        &[
            &row(&top).map_err(|e| e.to_string())?,
            &row(&bottom_imgs).map_err(|e| e.to_string())?,
        ],
        8,
    )
    .map_err(|e| e.to_string())
}

/// The table of PSNR and errors against the reference.
fn print_diffs(diffs: &[ModeDiff], has_authored: bool) {
    out!(
        "\nAgainst the reference (heatmap: black = equal, white ≥ {} levels of 255):",
        pictures::HEATMAP_FULL_SCALE
    );
    if has_authored {
        out!("| mode | PSNR (dB) | max error | pixels differing | without the authored-map objects: PSNR (dB) | max error |");
        out!("|---|---:|---:|---:|---:|---:|");
    } else {
        out!("| mode | PSNR (dB) | max error | pixels differing |");
        out!("|---|---:|---:|---:|");
    }
    for ModeDiff {
        label,
        all: d,
        without_authored,
    } in diffs
    {
        let pct = 100.0 * d.differing as f64 / d.pixels.max(1) as f64;
        let base = format!(
            "| {} | {:.2} | {} | {:.2}% |",
            label, d.psnr_db, d.max_error, pct
        );
        match without_authored {
            Some(w) => out!("{base} {:.2} | {} |", w.psnr_db, w.max_error),
            None if has_authored => out!("{base} – | – |"),
            None => out!("{base}"),
        }
    }
    if has_authored {
        out!("(The authored map carries a tangent field the vertex frames do not have: there the modes differ by design.)");
    }
}

/// The table of bytes on the GPU and frame times per mode.
fn print_costs(
    args: &Args,
    shots: &Shots<'_>,
    gpu: &GpuScene,
    sources: &[FrameSource],
) -> Result<(), String> {
    let (width, height) = args.size;
    out!("\nCost on the GPU ({} vertices):", gpu.report().vertices);
    out!("| mode | vertex buffers | of which frame | frame textures (mips incl.) | frame time ({}×{}) |", width, height);
    out!("|---|---:|---:|---:|---:|");
    for &s in sources {
        let c = gpu.cost(s).unwrap_or_default();
        let t = if args.time_frames == 0 {
            "–".to_string()
        } else {
            let shot = Shot {
                view: shots.view,
                source: s,
                size: glam::UVec2::new(width, height),
            };
            let d = shots
                .renderer
                .time_frames(shots.ctx, gpu, &shot, args.time_frames)
                .map_err(|e| e.to_string())?;
            format!("{:.1} ms", d.as_secs_f64() * 1e3)
        };
        out!(
            "| {} | {} | {} | {} | {t} |",
            s,
            kib(c.vertex_bytes),
            kib(c.frame_vertex_bytes),
            kib(c.frame_texture_bytes)
        );
    }
    if args.time_frames > 0 {
        out!(
            "(frame time: wall clock of submit + wait, mean of {} frames after a warm-up, on {})",
            args.time_frames,
            shots.ctx.info.name
        );
    }
    Ok(())
}
