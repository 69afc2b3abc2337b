//! Views a glTF file in Bevy: packed files through `bevy_qtangent`, any other as Bevy loads it.
//!
//! ```sh
//! cargo run --release --example viewer -- FILE                          # a window
//! cargo run --release --example viewer -- FILE --screenshot OUT.png     # headless, one image
//! ```
//!
//! The work is `bevy_qtangent::viewer`; `--help` lists the options.

fn main() -> std::process::ExitCode {
    bevy_qtangent::viewer::main(std::env::args().skip(1).collect())
}
