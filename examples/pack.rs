//! Pack a mesh for shipping: a GLB whose primitives carry position, UVs and the qtangent
//! (`_QTANGENT`) in place of NORMAL and TANGENT, optionally with quaternion maps as KTX2
//! images, everything else (materials, nodes, skins, animations) carried over.
//!
//! `cargo run --release --example pack -- MESH -o OUT.glb [--format smallest3x4|snorm16x4|…]
//! [--maps tangent|object|none] [--keep-normals] [--position-bits 14] [--uv-bits 12] [--float]
//! [--compress none|meshopt] [--normal-maps keep|drop] [--keep-attributes] [--strict] [--flat-frames]`
//!
//! The file is read back once written: the frames decoded from it are measured against the
//! frames packed (they must be within the format's bound), and the sizes are reported. Maps
//! are made as the renderer makes them (`render --mode quatmap|quatmap-tangent`), so a packed
//! file draws as its source does. Library: [`qtangent::pack`], [`qtangent::render::SceneMaps`];
//! the extension: docs/GLTF.md.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use qtangent::measure::FrameErrors;
use qtangent::mesh::{Prepared, Scene};
use qtangent::pack::{self, MapKind, PackOptions};

use qtangent::render::SceneMaps;
use qtangent::Format;

/// Bytes of the f32 normal + tangent (3 + 4 floats) that a qtangent replaces.
const F32_NORMAL_TANGENT_BYTES: usize = 28;

#[path = "common/cli.rs"]
mod cli;
#[path = "common/console.rs"]
mod console;
#[path = "common/files.rs"]
mod files;
#[path = "common/pack_load.rs"]
mod pack_load;

#[derive(Parser)]
#[command(about = "Write a GLB with qtangent vertex frames (and quaternion maps)")]
struct Args {
    /// A .gltf, .glb or .obj file.
    mesh: PathBuf,
    /// The GLB to write.
    #[arg(short, long)]
    output: PathBuf,
    /// The `_QTANGENT` format: f32x4, f16x4, snorm16x4, f16x3, smallest3x6, smallest3x4 (the
    /// earlier names smallest3-6B, smallest3-4B and f16x3-seed are accepted too).
    #[arg(long, default_value = "smallest3x4", value_parser = cli::names::<Format>(Format::ALL.map(Format::name)))]
    format: Format,
    /// Quaternion maps to embed: none, tangent (per material) or object (per primitive).
    #[arg(long, default_value = "none", value_parser = cli::names::<MapKind>(MapKind::ALL.map(MapKind::name)))]
    maps: MapKind,
    /// Keep f32 NORMAL and TANGENT as well, for viewers that do not know the extension.
    #[arg(long)]
    keep_normals: bool,
    /// Bits of a quantised position (1 to 16; KHR_mesh_quantization, one grid for the file).
    #[arg(long, default_value_t = 14, value_parser = clap::value_parser!(u8).range(1..=16))]
    position_bits: u8,
    /// Bits of a quantised UV (1 to 16; a grid per material, KHR_texture_transform).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u8).range(1..=16))]
    uv_bits: u8,
    /// Keep positions, UVs, weights and rotations as f32 (no quantisation).
    #[arg(long)]
    float: bool,
    /// Compression: none, or meshopt (EXT_meshopt_compression).
    #[arg(long, default_value = "none", value_parser = ["none", "meshopt"])]
    compress: String,
    /// With `--maps tangent`: keep the source's normal maps (viewers without QTANGENT_frames
    /// still show the bumps) or drop those the maps replace (the smallest file).
    #[arg(long, default_value = "keep", value_parser = ["keep", "drop"])]
    normal_maps: String,
    /// Keep vertex attributes nothing reads (UV sets no texture samples); by default they are
    /// dropped, with a warning counting them.
    #[arg(long)]
    keep_attributes: bool,
    /// Refuse to write the file when a repair would make it draw differently from the source
    /// (supplied tangents orthonormalised, primitives or meshes dropped).
    #[arg(long)]
    strict: bool,
    /// Store frames on primitives whose source has no normals and whose material reads no
    /// tangent too; by default they are written without (readers make flat normals, as for
    /// the source) and their identical corners welded.
    #[arg(long)]
    flat_frames: bool,
}

fn main() -> ExitCode {
    console::main("pack", run)
}

/// The output rules, before any work: a `.glb` name, not a folder, not the input.
fn check_output(args: &Args) -> Result<(), String> {
    let out = &args.output;
    let glb = out
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if out.is_dir() {
        return Err(format!(
            "-o {}: is a folder; name the file to write, e.g. -o {}",
            out.display(),
            out.join("out.glb").display()
        ));
    }
    if !glb {
        return Err(format!(
            "-o {}: this tool writes GLB: name the output .glb (`qtangent pack` also writes .gltf)",
            out.display()
        ));
    }
    let same = match (args.mesh.canonicalize(), out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => args.mesh == *out,
    };
    if same {
        return Err(format!(
            "-o {}: would overwrite the input; name another output",
            out.display()
        ));
    }
    Ok(())
}

fn run(args: &Args) -> Result<(), String> {
    check_output(args)?;
    let drop_normal_maps = args.normal_maps == "drop";
    if drop_normal_maps && args.maps != MapKind::Tangent {
        return Err(
            "--normal-maps drop needs --maps tangent (the maps that replace the normal maps)"
                .into(),
        );
    }
    let (scene, prepared, maps) = load(args)?;
    for w in &scene.warnings {
        eprintln!("pack: warning: {}: {w}", scene.source.display());
    }
    let options = PackOptions {
        format: args.format,
        keep_normals: args.keep_normals,
        position_bits: (!args.float).then_some(args.position_bits),
        uv_bits: (!args.float).then_some(args.uv_bits),
        meshopt: args.compress == "meshopt",
        drop_normal_maps,
        keep_attributes: args.keep_attributes,
        strict: args.strict,
        flat_frames: args.flat_frames,
    };
    let packed = pack::pack(&scene, &prepared, &maps, &options).map_err(|e| e.to_string())?;
    for w in &packed.report.warnings {
        eprintln!("pack: warning: {}: {w}", scene.source.display());
    }
    files::write_bytes(&args.output, &packed.glb)?;
    // A file that does not read back as written is removed: no output is better than a wrong one.
    check_written(args, &packed).inspect_err(|_| {
        let _ = std::fs::remove_file(&args.output);
    })
}

/// Reads the written file back and reports it: the frames it holds against those packed, within
/// the format's bound.
fn check_written(args: &Args, packed: &pack::Packed) -> Result<(), String> {
    let drop_normal_maps = args.normal_maps == "drop";
    // Read it back: the frames the file holds, against the frames packed.
    let errors = pack_load::read_back(&args.output, packed)?;
    let r = &packed.report;
    println!(
        "pack: {} → {}: {} bytes; {} primitives, {} vertices ({} in the source)",
        args.mesh.display(),
        args.output.display(),
        packed.glb.len(),
        r.primitives,
        r.vertices,
        r.vertices_in
    );
    if r.frameless > 0 {
        println!(
            "pack: {} primitive(s) without frames: no NORMAL in the source and no tangent read, so readers make flat normals as they do for the source (--flat-frames stores them)",
            r.frameless
        );
    }
    if r.frameless < r.primitives {
        print_frames(args, r, &errors);
    }
    if !args.float {
        println!(
            "pack: quantised: positions {} bits, largest error {:.3e} (mesh units); UVs {} bits, largest error {:.3e}",
            args.position_bits, r.position_error, args.uv_bits, r.uv_error
        );
    }
    if drop_normal_maps {
        println!(
            "pack: normal maps: {} source images dropped (the tangent-space maps replace them)",
            r.normal_maps_dropped
        );
    }
    for (what, bytes) in &r.maps {
        println!("pack: map: {what}: {bytes} bytes (KTX2)");
    }
    if errors.max() > args.format.max_error_deg() {
        return Err(format!(
            "the frames read back are {:.4}° off, beyond {}'s bound of {}°",
            errors.max(),
            args.format.name(),
            args.format.max_error_deg()
        ));
    }
    Ok(())
}

/// The scene, its prepared primitives and the maps to embed (made on the GPU when asked for).
fn load(args: &Args) -> Result<(Scene, Vec<Prepared>, SceneMaps), String> {
    let ctx = if args.maps == MapKind::None {
        None
    } else {
        let ctx = qtangent::gpu::GpuContext::new().map_err(|e| e.to_string())?;
        eprintln!("pack: {}", ctx);
        Some(ctx)
    };
    let console = &mut console::Console::with_progress("pack");
    pack_load::load(&args.mesh, args.maps, ctx.as_ref(), console)
}

/// The frames line: the format, its bytes, and the frames read back against those packed.
fn print_frames(args: &Args, r: &pack::PackReport, errors: &FrameErrors) {
    println!(
        "pack: frames: {} ({} bytes a vertex, against {} for f32 NORMAL + TANGENT); read back: normal {:.4}° mean / {:.4}° max, tangent {:.4}° / {:.4}°, bitangent {:.4}° / {:.4}° (bound {}°)",
        args.format.name(),
        r.frame_bytes_per_vertex,
        F32_NORMAL_TANGENT_BYTES,
        errors.normal.mean(),
        errors.normal.max,
        errors.tangent.mean(),
        errors.tangent.max,
        errors.bitangent.mean(),
        errors.bitangent.max,
        args.format.max_error_deg()
    );
}
