//! `walkrun`: the walk/run blend of "Blending a Walk/Run cycle" (Eric Brown) on the
//! Fox. Prints the gait analysis of its Walk and Run clips (up and forward axes, ground speeds,
//! strides, footfalls) and the foot slide of the three blend methods over a walk → run → walk
//! speed ramp: the horizontal world speed of each foot while it is down, mean and max.
//!
//! ```sh
//! cargo run --release -p qtangent-lab --bin walkrun                       # $QTANGENT_ASSETS/gltf/Fox.glb
//! cargo run --release -p qtangent-lab --bin walkrun -- path/to/Fox.glb --fps 60 --seconds 8
//! cargo run --release -p qtangent-lab --bin walkrun -- --events b_RightFoot02_022,b_RightHand_08
//! ```
//!
//! Errors (a missing file, no Walk/Run clip, a foot bone missing) exit with status 1 and one
//! line on stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use qtangent::lab::walkrun;
use qtangent::mesh;

#[path = "../../../examples/common/cli.rs"]
mod cli;
#[path = "../../../examples/common/console.rs"]
mod console;

#[path = "../../../examples/common/fox.rs"]
mod fox;

#[derive(Parser, Debug)]
#[command(
    about = "Blend the Fox's Walk and Run clips (after \"Blending a Walk/Run cycle\") and measure foot slide"
)]
struct Args {
    /// The Fox (.glb); default `$QTANGENT_ASSETS/gltf/Fox.glb`, else
    /// `../shared/assets/gltf/Fox.glb` next to the crate.
    fox: Option<PathBuf>,
    /// Simulation frames per second.
    #[arg(long, default_value_t = 60.0)]
    fps: f32,
    /// Length of the walk → run → walk ramp (1/8 hold, 3/8 up, 1/8 hold, 3/8 down).
    #[arg(long, default_value_t = 8.0)]
    seconds: f32,
    /// Footfall-event feet, comma-separated bone names (default: the hind feet).
    #[arg(long, value_delimiter = ',')]
    events: Vec<String>,
}

fn main() -> ExitCode {
    console::main("walkrun", run)
}

fn run(args: &Args) -> Result<(), String> {
    if !(args.fps.is_finite() && args.fps >= 1.0) {
        return Err(format!("--fps {} must be at least 1", args.fps));
    }
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.seconds * args.fps >= 2.0) {
        return Err(format!(
            "--seconds {} must give at least two frames at {} fps",
            args.seconds, args.fps
        ));
    }
    let path = args.fox.clone().unwrap_or_else(fox::default_path);
    let scene = mesh::load(&path).map_err(|e| e.to_string())?;
    let loco = fox::locomotion_of(&path, &scene)?;
    let report = walkrun::report(loco, &args.events, args.fps, args.seconds)
        .map_err(|e| format!("--events: {e}"))?;
    println!("{}", path.display());
    print!("{report}");
    Ok(())
}
