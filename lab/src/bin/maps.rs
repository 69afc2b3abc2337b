//! `maps`: the table that decides between quaternion maps and the normal maps they replace.
//!
//! For FlightHelmet, the duck, the default scene, the lab corpus' ribbed scene and brushed lamp,
//! and the bumpy swirl disc (the lamp and the disc: a normal map and an anisotropy direction, a
//! tilt and a twist per texel), side by side: the reference (f32 vertex frames with the normal
//! map as 8-bit RGBA), the reference with its normal map stored as BC5, and every map kind
//! (object space, tangent space) in every stored format. Per column:
//!
//! - bytes per texel, and the frame's bytes on the GPU (vertex frame + frame textures, mips
//!   included);
//! - per-texel error of the decoded normal and tangent against an f32 bake (mean, p99, max, over
//!   texels inside triangles);
//! - rendered PSNR and maximum error against the reference at two sizes.
//!
//! Then the bake's time per stage, compression included, for FlightHelmet's materials at 2048²
//! and 4096² (the normal maps resized to the map size for the latter), with the BC encoders side
//! by side (BC7: bc7e, the default, bc7f, Intel's ISPC kernels and `block_compression`'s
//! portable port of them; BC5: Intel's kernel and the port): Mtexel/s and the per-texel angle
//! error of what each wrote.
//!
//! ```sh
//! cargo run --release -p qtangent-lab --bin maps                  # everything (several minutes on 2 cores)
//! cargo run --release -p qtangent-lab --bin maps -- --quick       # one size, no 4096² timing
//! ```
//!
//! Benchmark output only: nothing here is asserted (the tests do that).

use std::path::PathBuf;

use clap::Parser;
use qtangent::gpu::{GpuContext, Renderer};
use qtangent::lab::{disc, maps};
use qtangent::qmap::Bc7Quality;
use qtangent::render::RenderScene;

#[path = "../../../examples/common/cli.rs"]
mod cli;
#[path = "../../../examples/common/console.rs"]
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
    println!("# Quaternion maps against normal maps ({})\n", ctx);
    println!(
        "BC7 effort: {}. Renders against the reference (f32 vertex frames, RGBA8 normal map).\n",
        bc7.name()
    );
    // The lab corpus' ribbed scene (ribs and wrinkles at 512², where BC5 normal maps are hardest
    // to beat) and brushed lamp (a normal map and an anisotropy texture on curved parts),
    // written to a scratch folder.
    let corpus = std::env::temp_dir().join(format!("qtangent-maps-{}", std::process::id()));
    std::fs::create_dir_all(&corpus)?;
    qtangent::lab::content::corpus(&corpus, &[])?;
    let ribbed = RenderScene::load(&corpus.join("ribbed.gltf"));
    let lamp = RenderScene::load(&corpus.join("lamp.gltf"));
    let _ = std::fs::remove_dir_all(&corpus);
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
        ("ribbed (lab corpus)".into(), ribbed?),
        (
            "brushed lamp (lab corpus; normal maps + anisotropy)".into(),
            lamp?,
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
        let console = &mut console::Console::new("maps");
        print!(
            "{}",
            maps::scene_table(&ctx, &renderer, name, scene, &sizes, bc7, console)?
        );
    }
    if !args.no_timing {
        let helmet = RenderScene::load(&assets.join("gltf/FlightHelmet/FlightHelmet.gltf"))?;
        let sides: &[u32] = if args.quick { &[2048] } else { &[2048, 4096] };
        maps::bake_timing(&ctx, "FlightHelmet", &helmet, sides, bc7, |text| {
            print!("{text}");
        })?;
    }
    Ok(())
}
