//! `animate`: the Fox speeding up from a walk to a run and back, blended without foot sliding
//! ("Blending a Walk/Run cycle", [`qtangent::anim::Locomotion`]), skinned on the GPU every frame with quaternion
//! bones (`shaders/skin.wgsl`) and lit with the skinned qtangent frames — headless, to PNG
//! frames and an animated GIF, plus a sheet comparing linear-blend and dual-quaternion skinning.
//!
//! ```sh
//! cargo run --release --example animate                 # the Fox from the shared assets
//! cargo run --release --example animate -- Fox.glb --seconds 4 --size 480x270 -o renders/fox
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use glam::Vec3;
use image::RgbaImage;
use qtangent::anim::{slide_summary, speed_ramp, BlendMethod, LocoFrame};
use qtangent::gpu::GpuContext;
use qtangent::gpu::{Renderer, View};
use qtangent::gpu::{RigBatch, SkinPipeline};
use qtangent::render;
use qtangent::render::{Camera, FrameSource, Lighting};
use qtangent::render::{MapSource, RenderScene};
use qtangent::skin::{Rig, SkinMethod};
use qtangent::{mesh, Format};

#[path = "common/console.rs"]
mod console;

#[path = "common/fox.rs"]
mod fox;

#[derive(Parser, Debug)]
#[command(about = "Render the Fox blending from walk to run and back, skinned on the GPU")]
struct Args {
    /// A glTF with `Walk` and `Run` clips and the Fox's foot bones (default: the Fox from
    /// $QTANGENT_ASSETS/gltf/Fox.glb, else ../shared/assets/gltf/Fox.glb).
    file: Option<PathBuf>,
    /// Skinning method of the sequence: dqs | lbs.
    #[arg(long, default_value = "dqs")]
    method: SkinMethod,
    /// Locomotion blend: locked (ours: the article's steps 1–3 at the asked speed, planted feet
    /// pinned by leg IK) | events | unified (the article: step 4, steps 1–3) | naive (plain blend).
    #[arg(long, default_value = "locked")]
    blend: BlendMethod,
    /// Length of the walk → run → walk schedule, seconds.
    #[arg(long, default_value_t = 8.0)]
    seconds: f32,
    /// Frames per second of the simulation and the PNG sequence.
    #[arg(long, default_value_t = 30.0)]
    fps: f32,
    /// Frame size, WIDTHxHEIGHT.
    #[arg(long, default_value = "640x360", value_parser = parse_size)]
    size: (u32, u32),
    /// Width of the animated GIF (its height follows); 0 for no GIF.
    #[arg(long, default_value_t = 360)]
    gif_width: u32,
    /// Every how many frames the GIF takes one.
    #[arg(long, default_value_t = 2)]
    gif_step: usize,
    /// Output folder: frame-NNNN.png, the GIF and the LBS/DQS sheet go there.
    #[arg(short, long, default_value = "renders/fox-walkrun")]
    output: PathBuf,
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT"))?;
    let parse = |v: &str| {
        v.parse::<u32>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("'{v}' in '{s}' is not a positive integer"))
    };
    Ok((parse(w)?, parse(h)?))
}

fn main() -> ExitCode {
    console::quiet_mesa();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("animate: {e}");
            ExitCode::FAILURE
        }
    }
}

fn default_fox() -> PathBuf {
    std::env::var_os("QTANGENT_ASSETS")
        .map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets"),
            PathBuf::from,
        )
        .join("gltf/Fox.glb")
}

fn save(img: &RgbaImage, path: &Path) -> Result<(), String> {
    // Write next to the target and rename, so a failed run never leaves half a PNG.
    let tmp = path.with_extension("png.partial");
    img.save_with_format(&tmp, image::ImageFormat::Png)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Skins the batch for one simulated frame: bones of every skinned object from the frame's
/// pose, uploaded, dispatched, waited for.
fn pose_batch(ctx: &GpuContext, rig: &mut RigBatch, frame: &LocoFrame) -> Result<(), String> {
    rig.pose(ctx, &frame.local, frame.placement)
        .map_err(|e| e.to_string())?;
    rig.batch().run(ctx).map_err(|e| e.to_string())
}

#[allow(clippy::too_many_lines)]
fn run(args: &Args) -> Result<(), String> {
    let start = Instant::now();
    if !(args.fps.is_finite() && (1.0..=1000.0).contains(&args.fps)) {
        return Err(format!("--fps {} must be between 1 and 1000", args.fps));
    }
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.seconds <= 600.0) {
        return Err(format!(
            "--seconds {} must be more than 0 and at most 600",
            args.seconds
        ));
    }
    let path = args.file.clone().unwrap_or_else(default_fox);
    let loaded = mesh::load(&path).map_err(|e| e.to_string())?;
    let loco = fox::locomotion(&loaded).map_err(|e| format!("{}: {e}", path.display()))?;
    let [walk, run_gait] = loco.gaits();
    println!(
        "{}: walk {:.1} u/s ({:.2} s cycle), run {:.1} u/s ({:.2} s cycle)",
        path.display(),
        walk.speed(),
        loco.clips()[0].duration,
        run_gait.speed(),
        loco.clips()[1].duration
    );

    // The render scene: the file's meshes (no quaternion maps: skinned frames come from the
    // vertices) and a checkered ground to show the feet against.
    let mut scene = RenderScene::load(&path).map_err(|e| e.to_string())?;
    for m in &mut scene.meshes {
        m.map = MapSource::None;
    }
    let (center, radius) = scene.bounds();
    let floor = scene
        .meshes
        .iter()
        .flat_map(|m| m.mesh.positions.iter())
        .map(|p| p.y)
        .fold(f32::INFINITY, f32::min);
    let (v_walk, v_run) = (walk.speed(), run_gait.speed());
    let speeds = speed_ramp(v_walk, v_run, args.seconds, args.fps);
    if speeds.is_empty() {
        return Err("--seconds × --fps gives no frames".into());
    }
    let dt = 1.0 / args.fps;
    let blend = args.blend;
    let frames = loco.simulate(blend, &speeds, dt);
    let travelled = frames
        .last()
        .map_or(0.0, |f| f.placement.w_axis.truncate().length());
    let half = travelled + 16.0 * radius;
    qtangent::lab::content::add_ground(&mut scene, half, floor, 2.0 * radius)
        .map_err(|e| e.to_string())?;

    let ctx = GpuContext::new().map_err(|e| e.to_string())?;
    println!("adapter: {}", ctx.describe());
    let renderer = Renderer::new(&ctx).map_err(|e| e.to_string())?;
    let mut gpu_scene = renderer
        .upload(
            &ctx,
            &scene,
            &[Format::Snorm16x4],
            &qtangent::qmap::MapOptions::default(),
            &mut (),
        )
        .map_err(|e| e.to_string())?;

    // One skinning batch for every skinned object.
    let objects = scene.objects.iter().enumerate();
    let rig = Rig::new(
        &loaded,
        objects.filter_map(|(k, o)| o.skin.map(|s| (k, &scene.meshes[o.mesh].mesh, s))),
    )
    .map_err(|e| e.to_string())?;
    for w in &rig.warnings {
        eprintln!("animate: warning: {w}");
    }
    if rig.is_empty() {
        return Err(format!("{}: no skinned mesh to animate", path.display()));
    }
    let pipeline = SkinPipeline::new(&ctx).map_err(|e| e.to_string())?;
    let method = args.method;
    let mut rig = RigBatch::new(&ctx, &pipeline, rig, method).map_err(|e| e.to_string())?;
    for (i, object) in rig.rig().objects().enumerate() {
        gpu_scene
            .set_skinned(object, rig.batch(), i)
            .map_err(|e| e.to_string())?;
    }
    let batch = rig.batch();
    println!(
        "skinning {} vertices ({} influences, {} B a vertex) with {} bones a frame",
        batch.buffers().vertex_count(),
        batch.influences.count(),
        batch.bytes_per_vertex(),
        batch.buffers().bone_count()
    );

    // A side view that follows the animal, a little from the front.
    let forward = walk.forward();
    let side = loco.up().cross(forward).normalize_or(Vec3::X);
    let look = (side * 0.85 + forward * 0.5).normalize();
    let yaw = look.x.atan2(look.z).to_degrees();
    let (w, h) = args.size;
    let aspect = w as f32 / h as f32;
    let base = Camera::fit(center, radius * 1.1, aspect, yaw, 10.0);
    let view_at = |frame: &LocoFrame| {
        let target = frame.placement.transform_point3(center);
        let mut camera = base;
        camera.target = target;
        camera.scene_radius = radius * 12.0;
        View {
            camera,
            lighting: Lighting::studio(target, radius * 1.5, yaw - 50.0, 45.0),
            anisotropy_override: None,
            background: Vec3::new(0.018, 0.02, 0.024),
        }
    };

    std::fs::create_dir_all(&args.output).map_err(|e| format!("{}: {e}", args.output.display()))?;
    let (mut skin_time, mut render_time) = (Duration::ZERO, Duration::ZERO);
    let mut gif_frames = Vec::new();
    let source = FrameSource::QTangent(Format::Snorm16x4);
    for (n, frame) in frames.iter().enumerate() {
        let t = Instant::now();
        pose_batch(&ctx, &mut rig, frame)?;
        skin_time += t.elapsed();
        let t = Instant::now();
        let img = renderer
            .render_image(&ctx, &gpu_scene, &view_at(frame), source, w, h)
            .map_err(|e| e.to_string())?;
        render_time += t.elapsed();
        save(&img, &args.output.join(format!("frame-{n:04}.png")))?;
        if args.gif_width > 0 && n % args.gif_step.max(1) == 0 {
            let gh = (args.gif_width as f32 / aspect).round().max(1.0) as u32;
            gif_frames.push(image::imageops::resize(
                &img,
                args.gif_width,
                gh,
                image::imageops::FilterType::Triangle,
            ));
        }
        if n % 30 == 0 {
            eprint!(
                "\rframe {n}/{} (b = {:.2}, {:.1} u/s)   ",
                frames.len(),
                frame.blend,
                frame.speed
            );
        }
    }
    eprintln!();
    println!(
        "{} frames ({} {}) in {}: skinning {:.2} ms a frame (upload + dispatch + wait), rendering + readback {:.1} ms",
        frames.len(),
        method.name(),
        blend.name(),
        args.output.display(),
        skin_time.as_secs_f64() * 1e3 / frames.len() as f64,
        render_time.as_secs_f64() * 1e3 / frames.len() as f64
    );

    if !gif_frames.is_empty() {
        let path = args.output.join("walkrun.gif");
        let delay_ms = (1000.0 * args.gif_step.max(1) as f32 / args.fps).round() as u32;
        write_gif(&path, gif_frames, delay_ms)?;
        println!("wrote {}", path.display());
    }

    // LBS against DQS at four moments: walk, speeding up, run, slowing down.
    let picks: Vec<usize> = [0.1, 0.35, 0.55, 0.8]
        .iter()
        .map(|f| ((frames.len() as f32 * f) as usize).min(frames.len() - 1))
        .collect();
    let mut rows = Vec::new();
    for m in SkinMethod::ALL {
        rig.batch_mut().set_method(m);
        let mut row = Vec::new();
        for &n in &picks {
            pose_batch(&ctx, &mut rig, &frames[n])?;
            row.push(
                renderer
                    .render_image(&ctx, &gpu_scene, &view_at(&frames[n]), source, w / 2, h / 2)
                    .map_err(|e| e.to_string())?,
            );
        }
        rows.push(row);
    }
    let mut diffs = Vec::new();
    for (a, b) in rows[0].iter().zip(&rows[1]) {
        let d = render::diff(a, b, None).map_err(|e| e.to_string())?;
        println!(
            "  LBS vs DQS: PSNR {:.1} dB, max error {}",
            d.psnr_db, d.max_error
        );
        diffs.push(render::heatmap(a, b).map_err(|e| e.to_string())?);
    }
    let line = |imgs: &[RgbaImage]| render::side_by_side(&imgs.iter().collect::<Vec<_>>(), 4);
    let sheet = render::stacked(
        &[
            &line(&rows[0]).map_err(|e| e.to_string())?,
            &line(&rows[1]).map_err(|e| e.to_string())?,
            &line(&diffs).map_err(|e| e.to_string())?,
        ],
        4,
    )
    .map_err(|e| e.to_string())?;
    let sheet_path = args.output.join("lbs-vs-dqs.png");
    save(&sheet, &sheet_path)?;
    println!(
        "wrote {} (rows: LBS, DQS, difference ×16)",
        sheet_path.display()
    );

    // Foot sliding of the three blends over the same schedule.
    println!("foot slide while in contact (units/s; walk speed {v_walk:.1}):");
    println!("  {:<8} {:>8} {:>8}", "blend", "mean", "max");
    for b in BlendMethod::ALL {
        let f = loco.simulate(b, &speeds, dt);
        let (mean, max) = slide_summary(&loco.foot_slide(&f, dt));
        println!("  {:<8} {mean:>8.2} {max:>8.2}", b.name());
    }
    println!("done in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

fn write_gif(path: &Path, frames: Vec<RgbaImage>, delay_ms: u32) -> Result<(), String> {
    use image::codecs::gif::{GifEncoder, Repeat};
    let tmp = path.with_extension("gif.partial");
    let file = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut encoder = GifEncoder::new_with_speed(std::io::BufWriter::new(file), 20);
    encoder
        .set_repeat(Repeat::Infinite)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let delay = image::Delay::from_numer_denom_ms(delay_ms, 1);
    encoder
        .encode_frames(
            frames
                .into_iter()
                .map(|f| image::Frame::from_parts(f, 0, 0, delay)),
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
    drop(encoder);
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}
