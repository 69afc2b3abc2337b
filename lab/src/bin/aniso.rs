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
//! cargo run --release -p qtangent-lab --bin aniso                 # the README table (about a minute)
//! cargo run --release -p qtangent-lab --bin aniso -- --quick      # 512² texture, two sizes
//! cargo run --release -p qtangent-lab --bin aniso -- --gltf DIR   # the disc as a glTF with a KTX2 texture
//! cargo run --release -p qtangent-lab --bin aniso -- --gltf DIR --bumps   # ... with a normal map too
//! ```
//!
//! Benchmark output only: `tests/unit/gpu/aniso.rs` asserts the claim.

use std::path::PathBuf;

use clap::Parser;
use image::RgbaImage;
use qtangent::gpu::{GpuContext, Renderer};
use qtangent::lab::disc::{self, DiscSheet, RgLayout};

#[path = "../../../examples/common/console.rs"]
mod console;
#[path = "../../../examples/common/pictures.rs"]
mod pictures;

#[derive(Parser)]
#[command(about = "The swirl disc: anisotropy direction error and PSNR under minification")]
struct Args {
    /// Render sizes (square), comma-separated; each reads the texture at mip log2(texture/size).
    #[arg(long, default_value = "512,256,128,64")]
    sizes: String,
    /// Side of the anisotropy texture.
    #[arg(long, default_value_t = 1024)]
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
    let console = &mut console::Console::new("aniso");
    let legend = disc::disc_table(&ctx, &renderer, texture, &sizes, console, |sheet| {
        print!("{}", sheet.text);
        write_sheet(&sheet, &args.out)
    })?;
    println!("\n{legend} in {}", args.out.display());
    Ok(())
}

/// One size's sheet, `disc_{size}.png` in `out`: the truth and the three renders on top, their
/// direction errors as heatmaps (0° black to 20° and beyond white-hot) below.
fn write_sheet(sheet: &DiscSheet, out: &std::path::Path) -> Result<(), Error> {
    let size = sheet.size;
    let heats: Vec<RgbaImage> = sheet
        .direction_errors
        .iter()
        .map(|errors| {
            RgbaImage::from_fn(size, size, |x, y| match errors[(y * size + x) as usize] {
                Some(e) => {
                    let [r, g, b] = pictures::heat_color((e / 20.0).min(1.0));
                    image::Rgba([r, g, b, 255])
                }
                None => image::Rgba([40, 40, 40, 255]),
            })
        })
        .collect();
    let blank = RgbaImage::from_pixel(size, size, image::Rgba([0, 0, 0, 255]));
    let mut heat_row = vec![&blank];
    heat_row.extend(heats.iter());
    let rows = [
        pictures::side_by_side(&sheet.images.iter().collect::<Vec<_>>(), 4)?,
        pictures::side_by_side(&heat_row, 4)?,
    ];
    let path = out.join(format!("disc_{size}.png"));
    pictures::stacked(&rows.iter().collect::<Vec<_>>(), 4)?.save(&path)?;
    eprintln!("wrote {}", path.display());
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
