//! qtangent's integration tests: one binary, a module per area, sharing one GPU context, one
//! adapter-quirk table and the asset helpers (`common`).
//!
//! GPU tests need an adapter; Mesa's software Vulkan (lavapipe) is enough, and `cargo xtask
//! test` installs it. Without one they fail with a message saying how to get it (never skip).

mod common;

mod animate_cli;
mod assets;
mod docs;
mod encodings;
mod frame_api;
mod gpu_context;
mod layers;
mod mesh_mutations;
mod meshopt;
mod render_assets;
mod render_cli;
mod tool_args;
mod web;
