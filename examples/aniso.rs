//! `aniso`: the swirl-disc table — does a filtered anisotropy direction stay right under
//! minification?
//!
//! The disc ([`qtangent::lab::disc`]) is rendered straight down at sizes that read the
//! 1024² anisotropy texture at mip levels 1–4, by:
//!
//! - the reference with the KHR_materials_anisotropy RG map filtered as engines filter it
//!   (trilinear, box-filtered mips), written canonical (y ≥ 0) and oriented;
//! - the tangent-space and the object-space quaternion maps (both baked from the canonical RG
//!   map), compressed (the defaults: BC5 of (z, w) in tangent space, BC7 in object space) and
//!   rgba16f.
//!
//! Each is compared with a supersampled ground truth of the analytic field: the mean and p99
//! axial error of the rendered anisotropy direction, and the PSNR of the picture (pixels fully
//! on the plate). A sheet of pictures and direction-error heatmaps goes to `--out`.
//!
//! ```sh
//! cargo run --release --example aniso                 # the README table (about a minute)
//! cargo run --release --example aniso -- --quick      # 512² texture, two sizes
//! cargo run --release --example aniso -- --gltf DIR   # the disc as a glTF with a KTX2 texture
//! cargo run --release --example aniso -- --gltf DIR --bumps   # ... with a normal map too
//! ```
//!
//! Benchmark output only: `tests/unit/gpu/aniso.rs` asserts the claim.

use std::path::PathBuf;

use clap::Parser;
use glam::Vec3;
use image::RgbaImage;
use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, MapReport, Output, Renderer, View};
use qtangent::lab::disc::{self, RgLayout};
use qtangent::qmap::MapFormat;
use qtangent::qmap::MapOptions;
use qtangent::render;
use qtangent::render::FrameSource;
use qtangent::render::RenderScene;
use qtangent::Format;

#[path = "common/console.rs"]
mod console;
#[path = "common/pictures.rs"]
mod pictures;

#[derive(Parser)]
#[command(about = "The swirl disc: anisotropy direction error and PSNR under minification")]
struct Args {
    /// Render sizes (square), comma-separated; each reads the texture at mip log2(texture/size).
    #[arg(long, default_value = "512,256,128,64")]
    sizes: String,
    /// Side of the anisotropy texture.
    #[arg(long, default_value_t = disc::TEXTURE_SIZE)]
    texture: u32,
    /// Folder for the sheet and heatmaps.
    #[arg(long, default_value = "target/aniso")]
    out: PathBuf,
    /// 512² texture, sizes 128 and 32.
    #[arg(long)]
    quick: bool,
    /// Only write the disc as a glTF 2.0 file using KHR_materials_anisotropy
    /// (`swirl_disc.gltf`, `.bin` and its texture) into this folder, and exit.
    #[arg(long, value_name = "DIR")]
    gltf: Option<PathBuf>,
    /// How `--gltf` stores the anisotropy texture: png, ktx2 (R8G8B8A8_UNORM) or bc7 (KTX2).
    #[arg(long, default_value = "ktx2", value_parser = ["png", "ktx2", "bc7"])]
    gltf_texture: String,
    /// How `--gltf` writes the RG directions: canonical (y ≥ 0) or oriented.
    #[arg(long, default_value = "oriented", value_parser = ["canonical", "oriented"])]
    gltf_layout: String,
    /// With `--gltf`: the bumpy disc (`swirl_disc_bumps.gltf`), a normal map under the grooves,
    /// so a tangent-space quaternion map holds a tilt and a twist.
    #[arg(long, requires = "gltf")]
    bumps: bool,
}

type Error = Box<dyn std::error::Error>;

/// One column of the table: a label, which upload and which frame source.
struct Config {
    label: String,
    upload: usize,
    source: FrameSource,
}

fn heat(truth: &disc::Truth, tangents: &[[f32; 4]]) -> RgbaImage {
    RgbaImage::from_fn(truth.width, truth.height, |x, y| {
        let i = (y * truth.width + x) as usize;
        match truth.direction[i] {
            Some((psi, s, _)) if s >= disc::MIN_JUDGED_STRENGTH => {
                let t = tangents[i];
                let e = if t.iter().all(|c| c.is_finite()) {
                    disc::axial_error_deg(t[2].atan2(t[0]), psi)
                } else {
                    90.0
                };
                // 0° black to 20° and beyond white-hot.
                let [r, g, b] = pictures::heat_color((e / 20.0).min(1.0));
                image::Rgba([r, g, b, 255])
            }
            _ => image::Rgba([40, 40, 40, 255]),
        }
    })
}

fn main() -> std::process::ExitCode {
    console::main("aniso", run)
}

fn run(args: &Args) -> Result<(), Error> {
    let (texture, sizes) = texture_and_sizes(args)?;
    if let Some(dir) = &args.gltf {
        return write_gltf(args, dir, texture);
    }
    std::fs::create_dir_all(&args.out)?;
    let ctx = GpuContext::new()?;
    let renderer = Renderer::new(&ctx)?;
    println!(
        "# The swirl disc: anisotropy direction under minification ({})\n",
        ctx.describe()
    );
    let table = Table::new(&ctx, &renderer, texture)?;
    println!(
        "Texture {texture}²; direction error over pixels whose true strength is ≥ {} (coherent: and whose rays agree, coherence ≥ {}); PSNR over pixels wholly on the plate.\n",
        disc::MIN_JUDGED_STRENGTH,
        disc::COHERENT
    );
    println!(
        "| size | mip | frame source | direction mean | p99 | mean, coherent | p99, coherent | PSNR |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &size in &sizes {
        table.rows(size, &args.out)?;
    }
    println!(
        "\nSheets (top: truth, RG canonical, tangent-space {}, object-space {}; bottom: direction error, black 0° to white 20°) in {}",
        table.compressed[0],
        table.compressed[1],
        args.out.display()
    );
    Ok(())
}

/// The texture side and the render sizes: `--quick`'s, or `--texture` and `--sizes`.
fn texture_and_sizes(args: &Args) -> Result<(u32, Vec<u32>), Error> {
    if args.quick {
        return Ok((512, vec![128, 32]));
    }
    let sizes = args
        .sizes
        .split(',')
        .map(|s| s.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("--sizes: {e}"))?;
    Ok((args.texture, sizes))
}

/// `--gltf DIR`: the disc as a glTF file, its texture as `--gltf-texture` and `--gltf-layout`
/// say.
fn write_gltf(args: &Args, dir: &std::path::Path, texture: u32) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = match args.gltf_texture.as_str() {
        "png" => disc::TextureFile::Png,
        "bc7" => disc::TextureFile::Ktx2Bc7,
        _ => disc::TextureFile::Ktx2Rgba8,
    };
    let layout = if args.gltf_layout == "canonical" {
        RgLayout::Canonical
    } else {
        RgLayout::Oriented
    };
    let relief = if args.bumps {
        disc::Relief::Bumps
    } else {
        disc::Relief::Flat
    };
    let path = disc::write_gltf(dir, texture, layout, file, relief)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// The disc uploaded three ways and the columns drawn from them.
struct Table<'a> {
    ctx: &'a GpuContext,
    renderer: &'a Renderer,
    texture: u32,
    /// The disc with its RG map written canonical: the ground truth's scene.
    canonical: RenderScene,
    /// Canonical with compressed maps, canonical with rgba16f maps, oriented.
    uploads: Vec<GpuScene>,
    configs: Vec<Config>,
    /// The compressed maps' formats, tangent and object space, as the renderer chose them.
    compressed: [String; 2],
    view: View,
}

impl<'a> Table<'a> {
    fn new(ctx: &'a GpuContext, renderer: &'a Renderer, texture: u32) -> Result<Self, Error> {
        let canonical = disc::scene(texture, RgLayout::Canonical, disc::Relief::Flat)?;
        let oriented = disc::scene(texture, RgLayout::Oriented, disc::Relief::Flat)?;
        let formats = [Format::Snorm16x4];
        // The compressed maps at the default effort, what `bake` and `pack` ship.
        let compressed = MapOptions::default();
        let rgba16f = MapOptions::stored(MapFormat::Rgba16Float);
        let console = &mut console::Console::new("aniso");
        let uploads: Vec<GpuScene> = vec![
            renderer.upload(ctx, &canonical, &formats, &compressed, console)?,
            renderer.upload(ctx, &canonical, &formats, &rgba16f, console)?,
            renderer.upload(ctx, &oriented, &formats, &compressed, console)?,
        ];
        // The compressed maps' formats as the renderer chose them (a twist alone: BC5 of (z, w);
        // object space: BC7).
        let stored = |maps: &[MapReport]| {
            maps.first()
                .and_then(|m| m.format)
                .map_or_else(|| "none".to_string(), |f| f.name().to_string())
        };
        let report = uploads[0].report();
        let [tangent_c, object_c] = [&report.tangent_maps, &report.object_maps].map(|m| stored(m));
        let config = |label: String, upload, source| Config {
            label,
            upload,
            source,
        };
        let configs = vec![
            config(
                "RG map, canonical (reference)".into(),
                0,
                FrameSource::Reference,
            ),
            config(
                "RG map, oriented (reference)".into(),
                2,
                FrameSource::Reference,
            ),
            config(
                format!("tangent-space map, {tangent_c}"),
                0,
                FrameSource::QuatMapTangent,
            ),
            config(
                "tangent-space map, rgba16f".into(),
                1,
                FrameSource::QuatMapTangent,
            ),
            config(
                format!("object-space map, {object_c}"),
                0,
                FrameSource::QuatMap,
            ),
            config("object-space map, rgba16f".into(), 1, FrameSource::QuatMap),
        ];
        let view = View {
            camera: disc::camera(),
            lighting: disc::lighting(),
            anisotropy_override: None,
            background: Vec3::splat(0.02),
        };
        Ok(Self {
            ctx,
            renderer,
            texture,
            canonical,
            uploads,
            configs,
            compressed: [tangent_c, object_c],
            view,
        })
    }

    /// The table's rows at one render size, and its sheet in `out`.
    fn rows(&self, size: u32, out: &std::path::Path) -> Result<(), Error> {
        let samples = disc::samples_for(size, self.texture);
        let view = &self.view;
        let sampling = disc::TruthSampling {
            width: size,
            height: size,
            samples,
            background: view.background,
        };
        let truth = disc::truth(&self.canonical, &view.camera, &view.lighting, sampling);
        let mip = (self.texture as f32 / size as f32).log2();
        let mut sheet = vec![truth.image.clone()];
        let mut heats = Vec::new();
        for c in &self.configs {
            let gpu = &self.uploads[c.upload];
            let (ctx, renderer) = (self.ctx, self.renderer);
            let image = renderer.render_image(ctx, gpu, view, c.source, size, size)?;
            let [_, tangents] = renderer.render_debug(
                ctx,
                gpu,
                &qtangent::gpu::Shot {
                    view,
                    source: c.source,
                    size: glam::UVec2::new(size, size),
                },
                Output::Frame,
            )?;
            let all = disc::direction_stats(&truth, &tangents, 0.0);
            let coherent = disc::direction_stats(&truth, &tangents, disc::COHERENT);
            let diff = render::diff(&image, &truth.image, Some(&truth.inside))?;
            println!(
                "| {size}² | {mip:.0} | {} | {:.2}° | {:.2}° | {:.2}° | {:.2}° | {:.2} dB |",
                c.label,
                all.mean_deg,
                all.p99_deg,
                coherent.mean_deg,
                coherent.p99_deg,
                diff.psnr_db
            );
            if matches!(c.upload, 0) {
                sheet.push(image);
                heats.push(heat(&truth, &tangents));
            }
        }
        let mut rows: Vec<RgbaImage> = vec![pictures::side_by_side(
            &sheet.iter().collect::<Vec<_>>(),
            4,
        )?];
        let blank = RgbaImage::from_pixel(size, size, image::Rgba([0, 0, 0, 255]));
        let mut heat_row = vec![&blank];
        heat_row.extend(heats.iter());
        rows.push(pictures::side_by_side(&heat_row, 4)?);
        let out = out.join(format!("disc_{size}.png"));
        pictures::stacked(&rows.iter().collect::<Vec<_>>(), 4)?.save(&out)?;
        eprintln!("wrote {}", out.display());
        Ok(())
    }
}
