//! `animate`: the Fox speeding up from a walk to a run and back, blended without foot sliding
//! ("Blending a Walk/Run cycle", [`qtangent::anim::Locomotion`]), skinned on the GPU every frame with quaternion
//! bones (`shaders/skin.wgsl`) and lit with the skinned qtangent frames — headless, to PNG
//! frames and an animated GIF, plus a sheet comparing linear-blend and dual-quaternion skinning.
//!
//! ```sh
//! cargo run --release -p qtangent-lab --bin animate                 # the Fox from the shared assets
//! cargo run --release -p qtangent-lab --bin animate -- Fox.glb --seconds 4 --size 480x270 -o renders/fox
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use glam::Vec3;
use image::RgbaImage;
use qtangent::anim::{speed_ramp, BlendMethod, LocoFrame, Locomotion};
use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, Renderer, View};
use qtangent::gpu::{RigBatch, SkinPipeline};
use qtangent::lab::walkrun::foot_slide_by_method;
use qtangent::render;
use qtangent::render::{Camera, FrameSource, Lighting};
use qtangent::render::{MapSource, RenderScene};
use qtangent::skin::SkinMethod;
use qtangent::{mesh, Format};

#[path = "../../../examples/common/cli.rs"]
mod cli;
#[path = "../../../examples/common/console.rs"]
mod console;
#[path = "../../../examples/common/files.rs"]
mod files;
#[path = "../../../examples/common/fox.rs"]
mod fox;
#[path = "../../../examples/common/pictures.rs"]
mod pictures;
#[path = "../../../examples/common/scene.rs"]
mod scene;

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
    #[arg(long, default_value = "640x360", value_parser = cli::parse_size)]
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

impl Args {
    /// Checks the numbers the parser lets through.
    fn check(&self) -> Result<(), String> {
        if !(self.fps.is_finite() && (1.0..=1000.0).contains(&self.fps)) {
            return Err(format!("--fps {} must be between 1 and 1000", self.fps));
        }
        if !(self.seconds.is_finite() && self.seconds > 0.0 && self.seconds <= 600.0) {
            return Err(format!(
                "--seconds {} must be more than 0 and at most 600",
                self.seconds
            ));
        }
        Ok(())
    }
}

fn main() -> ExitCode {
    console::main("animate", run)
}

/// Skins the batch for one simulated frame: bones of every skinned object from the frame's
/// pose, uploaded, dispatched, waited for.
fn pose_batch(ctx: &GpuContext, rig: &mut RigBatch, frame: &LocoFrame) -> Result<(), String> {
    rig.pose(ctx, &frame.local, frame.placement)
        .map_err(|e| e.to_string())?;
    rig.batch().run(ctx).map_err(|e| e.to_string())
}

/// The Fox's clips and the sequence simulated from them.
struct Sequence {
    loco: Locomotion,
    /// The desired speed of every frame (walk → run → walk).
    speeds: Vec<f32>,
    /// Seconds a frame.
    dt: f32,
    frames: Vec<LocoFrame>,
}

/// Everything drawn: the device, the renderer, the uploaded scene and its skinning batch, and
/// the camera that follows the animal.
struct Stage {
    ctx: GpuContext,
    renderer: Renderer,
    scene: GpuScene,
    rig: RigBatch,
    follow: Follow,
    /// The frame source of every picture: the skinned qtangent frames.
    source: FrameSource,
}

impl Stage {
    /// Skins the batch for `frame` and draws it at `size`.
    fn picture(&mut self, frame: &LocoFrame, size: (u32, u32)) -> Result<RgbaImage, String> {
        pose_batch(&self.ctx, &mut self.rig, frame)?;
        self.renderer
            .render_image(
                &self.ctx,
                &self.scene,
                &self.follow.view(frame),
                self.source,
                size.0,
                size.1,
            )
            .map_err(|e| e.to_string())
    }
}

/// A side view that follows the animal, a little from the front.
struct Follow {
    base: Camera,
    /// The animal's bind-pose centre and radius.
    center: Vec3,
    radius: f32,
    yaw: f32,
}

impl Follow {
    fn new(loco: &Locomotion, (center, radius): (Vec3, f32), aspect: f32) -> Self {
        let forward = loco.gaits()[0].forward();
        let side = loco.up().cross(forward).normalize_or(Vec3::X);
        let look = (side * 0.85 + forward * 0.5).normalize();
        let yaw = look.x.atan2(look.z).to_degrees();
        Self {
            base: Camera::fit(center, radius * 1.1, aspect, yaw, 10.0),
            center,
            radius,
            yaw,
        }
    }

    /// The view of `frame`: camera and lights on the animal where the frame puts it.
    fn view(&self, frame: &LocoFrame) -> View {
        let target = frame.placement.transform_point3(self.center);
        let mut camera = self.base;
        camera.target = target;
        camera.scene_radius = self.radius * 12.0;
        View {
            camera,
            lighting: Lighting::studio(target, self.radius * 1.5, self.yaw - 50.0, 45.0),
            anisotropy_override: None,
            background: Vec3::new(0.018, 0.02, 0.024),
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let start = Instant::now();
    args.check()?;
    let path = args.file.clone().unwrap_or_else(fox::default_path);
    let loaded = mesh::load(&path).map_err(|e| e.to_string())?;
    let loco = fox::locomotion_of(&path, &loaded)?;
    let [walk, run_gait] = loco.gaits();
    println!(
        "{}: walk {:.1} u/s ({:.2} s cycle), run {:.1} u/s ({:.2} s cycle)",
        path.display(),
        walk.speed(),
        loco.clips()[0].duration,
        run_gait.speed(),
        loco.clips()[1].duration
    );
    let speeds = speed_ramp(walk.speed(), run_gait.speed(), args.seconds, args.fps);
    if speeds.is_empty() {
        return Err("--seconds × --fps gives no frames".into());
    }
    let dt = 1.0 / args.fps;
    // The blend played over the schedule: frame n shows time n·dt, after advancing at
    // speeds[n] (frame 0 is the start state).
    let mut player = loco.clone().into_player(args.blend);
    let frames: Vec<LocoFrame> = speeds
        .iter()
        .enumerate()
        .map(|(n, &v)| {
            player.advance(v, if n == 0 { 0.0 } else { dt });
            player.frame().clone()
        })
        .collect();
    let sequence = Sequence {
        loco,
        speeds,
        dt,
        frames,
    };
    let mut stage = stage(args, &path, &loaded, &sequence)?;
    std::fs::create_dir_all(&args.output).map_err(|e| format!("{}: {e}", args.output.display()))?;
    render_sequence(args, &mut stage, &sequence.frames)?;
    lbs_against_dqs(args, &mut stage, &sequence.frames)?;
    print_foot_slide(&sequence);
    println!("done in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The render scene (the file's meshes without quaternion maps: skinned frames come from the
/// vertices; and a checkered ground to show the feet against, long enough for the whole run)
/// uploaded, with one skinning batch for every skinned object.
fn stage(
    args: &Args,
    path: &Path,
    loaded: &mesh::Scene,
    sequence: &Sequence,
) -> Result<Stage, String> {
    let mut scene = RenderScene::load(path).map_err(|e| e.to_string())?;
    for m in &mut scene.meshes {
        m.map = MapSource::None;
    }
    let bounds = scene.bounds();
    let floor = scene
        .meshes
        .iter()
        .flat_map(|m| m.mesh.positions.iter())
        .map(|p| p.y)
        .fold(f32::INFINITY, f32::min);
    let travelled = sequence
        .frames
        .last()
        .map_or(0.0, |f| f.placement.w_axis.truncate().length());
    let half = travelled + 16.0 * bounds.1;
    qtangent::lab::content::add_ground(&mut scene, half, floor, 2.0 * bounds.1)
        .map_err(|e| e.to_string())?;

    let ctx = GpuContext::new().map_err(|e| console::advise(&e))?;
    println!("adapter: {}", ctx);
    let renderer = Renderer::new(&ctx).map_err(|e| e.to_string())?;
    let format = Format::Snorm16x4;
    let mut gpu_scene = renderer
        .upload(
            &ctx,
            &scene,
            &[format],
            &qtangent::qmap::MapOptions::default(),
            &mut (),
        )
        .map_err(|e| e.to_string())?;
    let rig = scene::skinned_rig("animate", loaded, &scene)?;
    if rig.objects().next().is_none() {
        return Err(format!("{}: no skinned mesh to animate", path.display()));
    }
    let pipeline = SkinPipeline::new(&ctx).map_err(|e| e.to_string())?;
    let rig = RigBatch::new(&ctx, &pipeline, rig, args.method).map_err(|e| e.to_string())?;
    for (i, object) in rig.rig().objects().enumerate() {
        gpu_scene
            .set_skinned(object, rig.batch(), i)
            .map_err(|e| e.to_string())?;
    }
    let batch = rig.batch();
    // All instances' vertices and palettes: where the last range ends.
    let last = batch.instances().last();
    let (vertices, bones) = last.map_or((0, 0), |i| (i.output.end, i.bones.end));
    println!(
        "skinning {} vertices ({} influences, {} B a vertex) with {} bones a frame",
        vertices,
        batch.influences().count(),
        batch.bytes_per_vertex(),
        bones
    );
    let (w, h) = args.size;
    Ok(Stage {
        ctx,
        renderer,
        scene: gpu_scene,
        rig,
        follow: Follow::new(&sequence.loco, bounds, w as f32 / h as f32),
        source: FrameSource::QTangent(format),
    })
}

/// The PNG frames and the GIF, with the time spent skinning and rendering.
fn render_sequence(args: &Args, stage: &mut Stage, frames: &[LocoFrame]) -> Result<(), String> {
    let (mut skin_time, mut render_time) = (Duration::ZERO, Duration::ZERO);
    let mut gif_frames = Vec::new();
    let (w, h) = args.size;
    let aspect = w as f32 / h as f32;
    for (n, frame) in frames.iter().enumerate() {
        let t = Instant::now();
        pose_batch(&stage.ctx, &mut stage.rig, frame)?;
        skin_time += t.elapsed();
        let t = Instant::now();
        let img = stage
            .renderer
            .render_image(
                &stage.ctx,
                &stage.scene,
                &stage.follow.view(frame),
                stage.source,
                w,
                h,
            )
            .map_err(|e| e.to_string())?;
        render_time += t.elapsed();
        files::save_png(&img, &args.output.join(format!("frame-{n:04}.png")))?;
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
        args.method.name(),
        args.blend.name(),
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
    Ok(())
}

/// LBS against DQS at four moments (walk, speeding up, run, slowing down): a sheet of both and
/// their difference, and the PSNR of each pair.
fn lbs_against_dqs(args: &Args, stage: &mut Stage, frames: &[LocoFrame]) -> Result<(), String> {
    let picks: Vec<usize> = [0.1, 0.35, 0.55, 0.8]
        .iter()
        .map(|f| ((frames.len() as f32 * f) as usize).min(frames.len() - 1))
        .collect();
    let (w, h) = args.size;
    let mut rows = Vec::new();
    for m in SkinMethod::ALL {
        stage.rig.batch_mut().set_method(m);
        let row = picks
            .iter()
            .map(|&n| stage.picture(&frames[n], (w / 2, h / 2)))
            .collect::<Result<Vec<_>, _>>()?;
        rows.push(row);
    }
    let mut diffs = Vec::new();
    for (a, b) in rows[0].iter().zip(&rows[1]) {
        let d = render::diff(a, b, None).map_err(|e| e.to_string())?;
        println!(
            "  LBS vs DQS: PSNR {:.1} dB, max error {}",
            d.psnr_db, d.max_error
        );
        diffs.push(pictures::heatmap(a, b).map_err(|e| e.to_string())?);
    }
    let line = |imgs: &[RgbaImage]| pictures::side_by_side(&imgs.iter().collect::<Vec<_>>(), 4);
    let sheet = pictures::stacked(
        &[
            &line(&rows[0]).map_err(|e| e.to_string())?,
            &line(&rows[1]).map_err(|e| e.to_string())?,
            &line(&diffs).map_err(|e| e.to_string())?,
        ],
        4,
    )
    .map_err(|e| e.to_string())?;
    let sheet_path = args.output.join("lbs-vs-dqs.png");
    files::save_png(&sheet, &sheet_path)?;
    println!(
        "wrote {} (rows: LBS, DQS, difference ×16)",
        sheet_path.display()
    );
    Ok(())
}

/// Foot sliding of the blends over the same schedule.
fn print_foot_slide(sequence: &Sequence) {
    let Sequence {
        loco, speeds, dt, ..
    } = sequence;
    let v_walk = loco.gaits()[0].speed();
    println!("foot slide while in contact (units/s; walk speed {v_walk:.1}):");
    println!("  {:<8} {:>8} {:>8}", "blend", "mean", "max");
    for (b, mean, max) in foot_slide_by_method(loco, speeds, *dt) {
        println!("  {:<8} {mean:>8.2} {max:>8.2}", b.name());
    }
}

/// Writes the animated GIF ([`files::write_atomically`]), looping, `delay_ms` a frame.
fn write_gif(path: &Path, frames: Vec<RgbaImage>, delay_ms: u32) -> Result<(), String> {
    use image::codecs::gif::{GifEncoder, Repeat};
    files::write_atomically(path, |out| {
        let mut encoder = GifEncoder::new_with_speed(out, 20);
        encoder
            .set_repeat(Repeat::Infinite)
            .map_err(|e| e.to_string())?;
        let delay = image::Delay::from_numer_denom_ms(delay_ms, 1);
        encoder
            .encode_frames(
                frames
                    .into_iter()
                    .map(|f| image::Frame::from_parts(f, 0, 0, delay)),
            )
            .map_err(|e| e.to_string())
    })
}
