//! Prints the encodings table: bytes, mean and max angular error of the decoded normal, tangent
//! and bitangent, and handedness errors, one row per format, over 1,000,000 seeded random frames
//! plus the axis-aligned frames and two stress sets (see `examples/common/table_frames.rs`).
//!
//! `cargo run --release -p qtangent-lab --bin encodings [-- FRAMES]`

#[path = "../../../examples/common/console.rs"]
mod console;
#[path = "../../../examples/common/frames.rs"]
mod frames;
#[path = "../../../examples/common/table_frames.rs"]
mod table_frames;
use frames::table;
use qtangent::Format;
use table_frames::{describe_table_frames, measure, table_frames};

const USAGE: &str =
    "usage: cargo run --release -p qtangent-lab --bin encodings [-- FRAMES]  (default 1000000)";

fn main() {
    if console::asked_for_help(USAGE) {
        return;
    }
    let count = match console::positional(1).map(|a| a.map(|a| a.parse::<usize>())) {
        Ok(None) => 1_000_000,
        Ok(Some(Ok(n))) => n,
        Ok(Some(Err(e))) => {
            eprintln!("encodings: FRAMES must be a whole number: {e}");
            std::process::exit(2);
        }
        Err(e) => {
            eprintln!("encodings: {e}");
            std::process::exit(2);
        }
    };
    let frames = table_frames(count);
    println!("{}\n", describe_table_frames(count));
    let rows: Vec<_> = Format::ALL
        .iter()
        .map(|&f| (f, measure(f, &frames)))
        .collect();
    print!("{}", table(&rows));
}
