//! GPU side: a headless wgpu context and one module per GPU stage, each with its WGSL file in
//! `shaders/`. The only part of the crate that uses wgpu; CPU modules never depend on it.

pub mod bake;
pub mod bake_tangent;
mod context;
pub mod decode;
pub(crate) mod kit;
pub mod mesh;
pub mod qmap;
pub mod render;
pub mod skin;
pub(crate) mod wgsl;

pub use context::{GpuContext, GpuError, StageNeeds, REQUESTED_FEATURES};
pub use decode::{DecodeBatch, DecodePipeline, GpuFrame};
pub use mesh::vertex_entry_point;
pub use wgsl::Wgsl;
