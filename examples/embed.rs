//! qtangent inside an application that owns its wgpu device, as an engine would.
//!
//! The application makes its own instance, adapter and device (below, `create_device`; an
//! engine has these already) and hands them to qtangent with [`GpuContext::from_device`], which
//! prints nothing and leaves the device's error handler alone. Then, on that device:
//!
//! 1. a batch decode of a mesh's qtangents (`Snorm16x4`), checked against the CPU decode;
//! 2. a skinning batch (dual-quaternion, two bones), checked against the CPU reference;
//! 3. a tangent-space quaternion-map draw of the default scene inside the application's own
//!    render pass, into its own colour and depth targets, compared with the reference mode.
//!
//! `cargo run --release --example embed [-- OUT.png]` (default `renders/embed.png`).

use std::error::Error;

use glam::{Quat, Vec3};
use qtangent::gpu::DecodePipeline;
use qtangent::gpu::GpuContext;
use qtangent::gpu::SkinPipeline;
use qtangent::gpu::{Output, Renderer, View, DEPTH_FORMAT};
use qtangent::mesh::Primitive;
use qtangent::render::{self, FrameSource};
use qtangent::skin::{Bone, SkinMethod, SkinVertices};
use qtangent::{Format, QTangent};

#[path = "common/console.rs"]
mod console;
#[path = "common/files.rs"]
mod files;
#[path = "common/frames.rs"]
mod frames;
use frames::max_abs_diff;
#[path = "common/pass.rs"]
mod pass;
#[path = "common/pictures.rs"]
mod pictures;

/// The picture's size.
const WIDTH: u32 = 480;
const HEIGHT: u32 = 320;
/// The colour target's format, as an engine's swapchain might be.
const COLOR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

const USAGE: &str =
    "usage: cargo run --release --example embed [-- OUT.png]  (default renders/embed.png)";

fn main() -> std::process::ExitCode {
    if console::asked_for_help(USAGE) {
        return std::process::ExitCode::SUCCESS;
    }
    console::quiet_mesa();
    console::finish("embed", run())
}

fn run() -> Result<(), Box<dyn Error>> {
    let out = console::positional(1)?.unwrap_or_else(|| "renders/embed.png".into());
    let (adapter, device, queue) = pollster::block_on(create_device())?;
    println!("application's adapter: {}", adapter.get_info().name);
    let ctx = GpuContext::from_device(adapter, device, queue)?;
    decode_batch(&ctx)?;
    skin_batch(&ctx)?;
    map_draw(&ctx, &out)?;
    Ok(())
}

/// The application's own device: any adapter, the features it wants (here BC sampling when
/// there is one, so compressed maps are sampled as stored), default limits.
async fn create_device() -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), Box<dyn Error>> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::PRIMARY,
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    });
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .map_err(|e| {
            format!("no adapter ({e}); lavapipe is enough: apt-get install mesa-vulkan-drivers")
        })?;
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("application"),
            required_features: adapter.features() & wgpu::Features::TEXTURE_COMPRESSION_BC,
            ..Default::default()
        })
        .await?;
    Ok((adapter, device, queue))
}

/// A torus's frames packed as `Snorm16x4`, decoded on the GPU and compared with the CPU decode
/// of the same words (`Format::unpack`): both run the same operations, so every component
/// agrees within 58 ε (the bound `tests/unit/gpu/decode.rs` derives for the bitangent, the
/// loosest), and the handedness is equal.
fn decode_batch(ctx: &GpuContext) -> Result<(), Box<dyn Error>> {
    let prim = Primitive::torus(1.0, 0.4, 64, 32).prepare()?;
    let format = Format::Snorm16x4;
    let qtangents: Vec<QTangent> = prim.frames.iter().map(|f| f.to_qtangent()).collect();
    let packed = format.pack(&qtangents);
    let pipeline = DecodePipeline::new(ctx)?;
    let gpu = pipeline.decode(ctx, format, &packed, qtangents.len())?;
    let tolerance = 58.0 * f32::EPSILON;
    let mut worst = 0.0f32;
    for (i, g) in gpu.iter().enumerate() {
        let (got, cpu) = (g.to_frame(), format.unpack(&packed, i).to_frame());
        let d = [
            max_abs_diff(got.normal, cpu.normal),
            max_abs_diff(got.tangent, cpu.tangent),
            max_abs_diff(got.bitangent, cpu.bitangent),
        ];
        // NaN is checked too: the output is poisoned before the dispatch.
        let bad = d.iter().any(|x| x.is_nan() || *x > tolerance);
        worst = d.into_iter().fold(worst, f32::max);
        if bad || got.handedness() != cpu.handedness() {
            return Err(format!("decode: frame {i}: GPU {got:?} against CPU {cpu:?}").into());
        }
    }
    println!(
        "batch decode: {} frames, GPU against CPU worst component difference {worst:.2e} \
         (allowed {tolerance:.2e})",
        gpu.len()
    );
    Ok(())
}

/// A tube along +X, its far half bound to bone 1 and its near half to bone 0 with a blend in the
/// middle, bent 60° by bone 1 and skinned with dual quaternions on the GPU; every vertex is
/// checked against the f64 CPU reference (position 128 ε relative, frame within the output
/// format's bound, as `tests/unit/gpu/skin.rs` derives).
fn skin_batch(ctx: &GpuContext) -> Result<(), Box<dyn Error>> {
    let prim = Primitive::torus(1.0, 0.3, 48, 16).prepare()?;
    let frames: Vec<QTangent> = prim.frames.iter().map(|f| f.to_qtangent()).collect();
    let (joints, weights): (Vec<[u16; 4]>, Vec<[f32; 4]>) = prim
        .positions
        .iter()
        .map(|p| {
            let w = (0.5 + p.x).clamp(0.0, 1.0);
            ([0, 1, 0, 0], [1.0 - w, w, 0.0, 0.0])
        })
        .unzip();
    let mesh = SkinVertices::new("tube", &prim.positions, &frames, &[joints], &[weights], 2)?;
    let bones = [
        Bone::IDENTITY,
        Bone::new(
            Quat::from_rotation_z(60f32.to_radians()),
            Vec3::new(0.2, 0.1, 0.0),
            1.0,
        ),
    ];
    let method = SkinMethod::DualQuaternion;
    let pipeline = SkinPipeline::new(ctx)?;
    let batch = pipeline.batch(ctx, &[&mesh], &[0], method)?;
    batch.set_bones(ctx, &bones)?;
    poison(ctx, batch.output());
    batch.run(ctx)?;
    let got = batch.read(ctx)?;
    let e = qtangent::lab::skin_reference::skinning_error(method, &bones, &mesh, &got)
        .ok_or("skin: the reference has no rotation for a vertex")?;
    let (worst_p, worst_f) = (e.position, e.frame_deg);
    // The skinning tests' tolerances, derived in tests/unit/gpu/skin.rs: 128 ε relative for
    // positions; for frames the output's snorm16 rounding plus 0.01° of f32 arithmetic.
    let (p_tol, f_tol) = (128.0 * f64::from(f32::EPSILON), e.frame_bound_deg + 0.01);
    println!(
        "skinning batch: {} vertices, dual quaternions, GPU against the CPU reference: position \
         {worst_p:.2e} relative (allowed {p_tol:.2e}), frame {worst_f:.4}° (allowed {f_tol:.4}°)",
        got.len()
    );
    if !(worst_p <= p_tol && worst_f <= f_tol) {
        return Err("skin: the GPU is outside the reference's tolerance".into());
    }
    Ok(())
}

/// The default scene drawn with its tangent-space quaternion maps inside the application's
/// render pass (its own targets, its own encoder and submission), then with reference vertex
/// frames and normal maps, and the two compared.
fn map_draw(ctx: &GpuContext, out: &str) -> Result<(), Box<dyn Error>> {
    let scene = qtangent::lab::content::default_scene()?;
    let renderer = Renderer::new(ctx)?;
    let gpu_scene = renderer.upload(
        ctx,
        &scene,
        &[Format::Snorm16x4],
        &qtangent::qmap::MapOptions::default(),
        &mut (),
    )?;
    let view = View::fitted(&scene, WIDTH as f32 / HEIGHT as f32, 30.0, 25.0);
    let draw = |source: FrameSource| -> Result<image::RgbaImage, Box<dyn Error>> {
        let color = pass::target(ctx, "application colour", COLOR, (WIDTH, HEIGHT));
        let depth = pass::target(ctx, "application depth", DEPTH_FORMAT, (WIDTH, HEIGHT));
        let color_view = color.create_view(&Default::default());
        let depth_view = depth.create_view(&Default::default());
        let prepared =
            renderer.prepare_view(ctx, &gpu_scene, &view, WIDTH as f32 / HEIGHT as f32)?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = pass::begin(
                &mut encoder,
                "application pass",
                &color_view,
                wgpu::Color::BLACK,
                &depth_view,
            );
            // The application's own draws would go here too.
            renderer.draw(
                ctx,
                &gpu_scene,
                &prepared,
                source,
                Output::Color(COLOR),
                &mut pass,
            )?;
        }
        ctx.queue.submit([encoder.finish()]);
        let bytes = ctx.read_texture(&color, "the application's colour target")?;
        image::RgbaImage::from_raw(WIDTH, HEIGHT, bytes)
            .ok_or_else(|| "the colour target read back short".into())
    };
    let mapped = draw(FrameSource::QuatMapTangent)?;
    let reference = draw(FrameSource::Reference)?;
    let d = render::diff(&mapped, &reference, None)?;
    let sheet = pictures::side_by_side(&[&mapped, &reference], 8)?;
    files::save_png(&sheet, std::path::Path::new(out))?;
    println!(
        "quaternion-map draw in the application's pass: {WIDTH}×{HEIGHT}, {:.1} dB PSNR against \
         reference frames + normal maps (the plate differs by design: its spun-metal tangent field \
         exists only in the map); {out} (map | reference)",
        d.psnr_db
    );
    Ok(())
}

/// Fills `buffer` with 0xff bytes (NaN as f32, −1 as snorm16) before a kernel writes it, so an
/// output it never wrote cannot pass a check.
fn poison(ctx: &GpuContext, buffer: &wgpu::Buffer) {
    ctx.queue
        .write_buffer(buffer, 0, &vec![0xffu8; buffer.size() as usize]);
}
