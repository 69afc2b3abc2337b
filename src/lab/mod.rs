//! Lab equipment: what qtangent's own tests, tools and benchmarks use that is not part of the
//! API — content made in code (the default scene and its spun-metal plate, a checkered ground),
//! the swirl disc of KHR_materials_anisotropy with its supersampled ground truth and its own glTF
//! file, GPU readbacks of intermediate results, the matrix-palette skinning baseline and the walk/run
//! measurement (gaits, footfall events, foot slide) and the fuzz targets' seed files. Behind
//! the `lab` cargo feature; it may change in any release.
//!
//! It lives in the crate, rather than in a crate of its own, because it reaches what the API
//! keeps private (stage internals, the WGSL modules); a feature keeps it out of every build that
//! does not ask for it, and out of the documented surface.

#[cfg(feature = "pipeline")]
pub mod content;
#[cfg(feature = "pipeline")]
pub mod disc;
pub mod encodings;
#[cfg(feature = "pipeline")]
pub mod frame_diff;
#[cfg(feature = "gltf")]
pub mod fuzz_seeds;
#[cfg(feature = "pipeline")]
pub mod map_angles;
#[cfg(feature = "pipeline")]
pub mod maps;
#[cfg(feature = "gpu")]
pub mod readback;
#[cfg(feature = "gpu")]
pub mod skin_matrix;
#[cfg(feature = "pipeline")]
pub mod skin_reference;
#[cfg(feature = "gpu")]
pub mod timing;
#[cfg(feature = "pipeline")]
pub mod walkrun;

#[cfg(all(test, feature = "default"))]
#[path = "../../tests/unit/lab/mod.rs"]
mod tests;
