//! `qtangent`, the command: `cargo install --path cli`.
//!
//! ```sh
//! qtangent pack model.gltf -o model.glb
//! qtangent pack assets/ -o packed/ -j 2 --report report.json
//! ```
//!
//! Subcommands `pack`, `bake`, `render`, `view`, `inspect` and `diff`, with one vocabulary:
//! `-o/--output` for what is written (its extension decides its kind), `--frames` the vertex
//! frame format, `--maps` a map kind, `--map-format` its storage, `--map-size` its side,
//! `--size WxH` a picture's size, `--maps-dir` a folder of baked maps, `-q/--quiet`,
//! `-v/--verbose`. Refusals come before any work (status 2); outputs are written whole or not at
//! all, Ctrl-C included; a failure while working is status 1; 0 only when everything succeeded.

/// `println!` unless `-q` ([`console::quiet`]): a report's lines, never an error.
macro_rules! out {
    ($($arg:tt)*) => {
        if !crate::console::quiet() {
            println!($($arg)*);
        }
    };
}

mod bake;
mod diff;
mod inspect;
mod inspect_formats;
mod output;
mod pack;
mod pack_load;
mod render;
mod view;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[path = "../../examples/common/cli.rs"]
mod cli;
#[path = "../../examples/common/console.rs"]
mod console;
#[path = "../../examples/common/files.rs"]
mod files;
#[path = "../../examples/common/fox.rs"]
mod fox;
#[path = "../../examples/common/pass.rs"]
mod pass;
#[path = "../../examples/common/pictures.rs"]
mod pictures;
#[path = "../../examples/common/scene.rs"]
mod scene;

pub(crate) use cli::{names, parse_size as size_arg};

/// How much the run prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// Errors and the summary of a failed run.
    Quiet,
    /// A line per file, warnings, the summary.
    Normal,
    /// And each file's frame errors.
    Verbose,
}

#[derive(Parser)]
#[command(
    name = "qtangent",
    version,
    about = "Tangent frames as quaternions: pack glTF and OBJ meshes with compact frames, bake quaternion maps, render, view, inspect and compare them",
    propagate_version = true
)]
struct Cli {
    /// Print errors only.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Print more (pack: each file's frame errors).
    #[arg(short, long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write meshes as GLB (or .gltf) with qtangent frames (`_QTANGENT`), quantised as gltfpack
    /// does; files or folders, in parallel with -j.
    Pack(pack::PackArgs),
    /// Bake quaternion maps (a tangent frame per texel) from a mesh's frames and normal maps,
    /// as KTX2 (or OpenEXR) with mips plus PNG previews.
    Bake(bake::BakeArgs),
    /// Draw a scene lit with its tangent frames from f32 attributes and normal maps (the
    /// reference), qtangent vertex frames or quaternion maps, to PNG; `--mode all` adds
    /// heatmaps, a sheet and the PSNR and cost tables.
    Render(render::RenderArgs),
    /// The render's scenes in a window: orbit, zoom, switch frame sources and formats; a
    /// skinned file walks and runs. `--screenshot OUT.png` draws headless instead.
    View(view::ViewArgs),
    /// Describe a glTF file: extensions, each primitive's attributes and frames (`_QTANGENT`'s
    /// format and bound), maps, materials and textures with their bytes on disk and on the GPU.
    Inspect(inspect::InspectArgs),
    /// How far a rewritten file's frames (pack's, gltfpack's, an optimiser's) are from its
    /// source's, vertex by vertex.
    Diff(diff::DiffArgs),
}

/// The largest picture side: wgpu's 2D texture limit on every adapter qtangent draws on
/// (`max_texture_dimension_2d` is at least 8192 by the WebGPU defaults and 16384 on desktop
/// GPUs and lavapipe); refused before any work rather than after the scene is baked.
const MAX_PICTURE_SIDE: u32 = 16384;

/// Refuses a picture size over [`MAX_PICTURE_SIDE`] a side, naming `flag`.
pub(crate) fn check_picture_size(flag: &str, (w, h): (u32, u32)) -> Result<(), String> {
    if w.max(h) > MAX_PICTURE_SIDE {
        return Err(format!(
            "{flag} {w}x{h}: a picture side is at most {MAX_PICTURE_SIDE} texels"
        ));
    }
    Ok(())
}

fn main() -> ExitCode {
    console::quiet_mesa();
    let cli = Cli::parse();
    // Ctrl-C: outputs are whole or absent, so the temporary files of the outputs in progress
    // (and a .gltf's .bin written before its .gltf) go, and the run ends with status 130.
    let interrupted = ctrlc::set_handler(|| {
        files::interrupt();
        eprintln!("qtangent: interrupted; no partial output is left");
        std::process::exit(130);
    });
    if let Err(e) = interrupted {
        eprintln!("qtangent: warning: Ctrl-C cannot be caught ({e}); an interrupted run may leave hidden temporary files");
    }
    let say = if cli.quiet {
        Verbosity::Quiet
    } else if cli.verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    };
    let name = match &cli.command {
        Command::Pack(_) => "pack",
        Command::Bake(_) => "bake",
        Command::Render(_) => "render",
        Command::View(_) => "view",
        Command::Inspect(_) => "inspect",
        Command::Diff(_) => "diff",
    };
    console::set_quiet(say == Verbosity::Quiet);
    let result = match &cli.command {
        Command::Pack(args) => pack::run(args, say),
        Command::Bake(args) => bake::run(args, say),
        Command::Render(args) => render::run(args, say),
        Command::View(args) => view::run(args, say),
        Command::Inspect(args) => inspect::run(args),
        Command::Diff(args) => diff::run(args),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("qtangent {name}: {e}");
            ExitCode::from(2)
        }
    }
}
