//! `walkrun`: the walk/run blend of "Blending a Walk/Run cycle" (Eric Brown) on the
//! Fox. Prints the gait analysis of its Walk and Run clips (up and forward axes, ground speeds,
//! strides, footfalls) and the foot slide of the three blend methods over a walk → run → walk
//! speed ramp: the horizontal world speed of each foot while it is down, mean and max.
//!
//! ```sh
//! cargo run --release --example walkrun                       # $QTANGENT_ASSETS/gltf/Fox.glb
//! cargo run --release --example walkrun -- path/to/Fox.glb --fps 60 --seconds 8
//! cargo run --release --example walkrun -- --events b_RightFoot02_022,b_RightHand_08
//! ```
//!
//! Errors (a missing file, no Walk/Run clip, a foot bone missing) exit with status 1 and one
//! line on stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use qtangent::anim::{slide_summary, speed_ramp, BlendMethod, ClipKind, Locomotion, RootMotion};
use qtangent::mesh;

#[path = "common/cli.rs"]
mod cli;
#[path = "common/console.rs"]
mod console;

#[path = "common/fox.rs"]
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
    let loco = with_event_feet(fox::locomotion_of(&path, &scene)?, &args.events)?;
    println!("{}", path.display());
    print_gaits(&loco);
    print_events(&loco);
    print_foot_slide(&loco, args);
    Ok(())
}

/// `loco` with the footfall events of the feet named by `--events` (none: as it is).
fn with_event_feet(loco: Locomotion, events: &[String]) -> Result<Locomotion, String> {
    if events.is_empty() {
        return Ok(loco);
    }
    let names: Vec<&str> = loco
        .gait(ClipKind::Walk)
        .feet
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    let picked = events
        .iter()
        .map(|e| {
            names
                .iter()
                .position(|n| n == e)
                .ok_or_else(|| format!("--events: `{e}` is not one of the feet {names:?}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    loco.with_event_feet(&picked).map_err(|e| e.to_string())
}

/// The gait analysis of both clips: axes, speeds, strides, each foot's stances, footfalls.
fn print_gaits(loco: &Locomotion) {
    let [walk, run] = loco.gaits();
    println!(
        "up {}  forward: walk {} run {}",
        loco.up(),
        walk.forward(),
        run.forward()
    );
    for g in [walk, run] {
        println!(
            "\n{:<6} cycle {:.4} s  ground speed {:.2} units/s  stride {:.2} units",
            g.clip,
            g.duration,
            g.speed(),
            g.stride()
        );
        println!(
            "  {:<18} {:>7} {:>7} {:>7}  {:>6}  stances (touch-down → lift-off, s; sweep)",
            "foot", "lowest", "highest", "thresh", "duty"
        );
        for f in &g.feet {
            let stances: Vec<String> = f
                .contacts
                .iter()
                .map(|c| format!("{:.3}→{:.3} ({:.1})", c.start, c.end, c.sweep.length()))
                .collect();
            println!(
                "  {:<18} {:>7.2} {:>7.2} {:>7.2}  {:>5.0}%  {}",
                f.name,
                f.lowest,
                f.highest,
                f.threshold,
                100.0 * f.duty_factor(g.duration),
                stances.join(", ")
            );
        }
        let order: Vec<String> = g
            .footfalls()
            .iter()
            .map(|f| format!("{} {:.2}", g.feet[f.foot].name, f.time / g.duration))
            .collect();
        println!("  footfall order (cycle fraction): {}", order.join(" → "));
    }
}

/// The event feet and their footfall times in each clip.
fn print_events(loco: &Locomotion) {
    let [walk, run] = loco.gaits();
    let names: Vec<&str> = loco
        .event_feet()
        .iter()
        .map(|&i| walk.feet[i].name.as_str())
        .collect();
    println!("\nevent feet: {}", names.join(", "));
    for (c, g) in [(ClipKind::Walk, walk), (ClipKind::Run, run)] {
        let ev: Vec<String> = loco
            .events(c)
            .iter()
            .zip(loco.event_foot())
            .map(|(t, &f)| format!("{} {:.3} s ({:.2})", g.feet[f].name, t, t / g.duration))
            .collect();
        println!("  {:<6} {}", g.clip, ev.join(" → "));
    }
}

/// Foot slide over the walk → run → walk ramp: every blend method, and each clip alone, for
/// both targets of the root motion.
fn print_foot_slide(loco: &Locomotion, args: &Args) {
    let [walk, run] = loco.gaits();
    let dt = 1.0 / args.fps;
    let speeds = speed_ramp(walk.speed(), run.speed(), args.seconds, args.fps);
    println!(
        "\nfoot slide over the ramp ({} frames at {} fps, {:.2} → {:.2} → {:.2} units/s): \
         horizontal foot speed while down, units/s, mean / max (steps counted)",
        speeds.len(),
        args.fps,
        walk.speed(),
        run.speed(),
        walk.speed()
    );
    let feet: Vec<&str> = walk.feet.iter().map(|f| f.name.as_str()).collect();
    for root in RootMotion::ALL {
        let loco = loco.clone().with_root_motion(root);
        println!("\n  target bone: {} root motion", root.name());
        print!("  {:<8}", "method");
        for f in &feet {
            print!(" {f:>24}");
        }
        println!(" {:>16}", "all feet");
        let mut rows = Vec::new();
        for method in BlendMethod::ALL {
            let frames = loco.simulate(method, &speeds, dt);
            rows.push((method.name(), loco.foot_slide(&frames, dt)));
        }
        // Baselines: each clip alone at its own speed (the clips' own slide).
        for (name, v) in [("walk", walk.speed()), ("run", run.speed())] {
            let frames = loco.simulate(BlendMethod::Unified, &vec![v; speeds.len()], dt);
            rows.push((name, loco.foot_slide(&frames, dt)));
        }
        for (name, slides) in &rows {
            print!("  {name:<8}");
            for s in slides {
                let cell = format!("{:.1} / {:.1} ({})", s.mean, s.max, s.contact_frames);
                print!(" {cell:>24}");
            }
            let (mean, max) = slide_summary(slides);
            println!(" {:>16}", format!("{mean:.1} / {max:.1}"));
        }
    }
    println!("  (walk, run: each clip alone at its own speed, for reference)");
}
