//! GPU side: a wgpu context ([`GpuContext`], headless or your own device) and the stages, one
//! file each with its WGSL file in `shaders/`: batch decode ([`DecodePipeline`]), the mesh vertex
//! stage ([`vertex_layout`], [`MeshUniforms`]), the quaternion-map bake (a
//! [`crate::qmap::RasterBackend`]) and sampling ([`upload_encoded`], [`sample_frames`]), skinning
//! ([`SkinPipeline`], [`RigBatch`]) and, with the `render` feature, the lit renderer
//! (`Renderer`). The only part of the
//! crate that uses wgpu; CPU modules never depend on it.

pub(crate) mod bake;
pub(crate) mod bake_tangent;
pub(crate) mod context;
pub(crate) mod decode;
pub(crate) mod kit;
pub(crate) mod mesh;
pub(crate) mod qmap;
#[cfg(feature = "render")]
pub(crate) mod render;
pub(crate) mod skin;
pub(crate) mod wgsl;

pub(crate) use context::StageNeeds;
pub use context::{GpuContext, GpuError};
pub use decode::{DecodePipeline, GpuFrame};
pub use mesh::{format_constant, vertex_entry_point, vertex_layout, MeshUniforms};
pub use qmap::{
    map_decode_constant, sample_frames, upload_encoded, GpuQuatMap, MapFilter, SampledFrame,
};
#[cfg(all(test, feature = "render"))]
pub(crate) use render::DEBUG_POISON;
#[cfg(feature = "render")]
pub use render::{
    GpuScene, MapReport, ModeCost, Output, PreparedView, Renderer, Shot, UploadReport, View,
    DEPTH_FORMAT,
};
pub use skin::{output_layout, InstanceRange, RigBatch, SkinBatch, SkinPipeline};

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../tests/unit/gpu/mod.rs"]
mod tests;
