//! # qtangent
//!
//! Tangent frames (normal, tangent, bitangent) as quaternions: compact vertex encodings with
//! measured error bounds, and a GPU decode path (wgpu + WGSL) checked against the CPU by readback.
//!
//! - [`quat`]: quaternion operations from the articles "Quaternions: How", "Quaternion Tricks" and "Angular velocity from two known orientations", made robust (CPU, glam types).
//! - [`frame`]: tangent frames, orthonormalisation, frame ↔ quaternion + reflection.
//! - [`Format`]: six vertex formats, one table row each: an encode/decode pair with its error
//!   bound, its name, its GPU fetch and WGSL decode, its glTF accessor.
//! - [`measure`]: seeded test frames and the encodings error table.
//! - [`mesh`]: glTF/OBJ loading, generated normals, MikkTSpace tangents, mirror-seam splitting,
//!   interleaved qtangent vertex streams.
//! - [`qmap`]: quaternion maps: per-texel frames baked from a mesh and its normal map, with the
//!   hemisphere rule that makes them filterable, seam padding, mips, EXR/PNG output (CPU; the GPU
//!   baker is [`gpu::bake`]); object-space and tangent-space kinds, block compression (BC5,
//!   BC7) judged by angle, and the stored form the renderer and KTX2 files hold.
//! - [`gltf`]: glTF 2.0 files: the one accessor reader and the one writer (JSON, GLB, buffers)
//!   the loader, `pack` and the tools share.
//! - [`ktx2`]: a KTX 2.0 writer (to the Khronos spec) and reader (over the `ktx2` crate).
//! - [`render`]: lit scenes (CPU side): frame sources, camera and lights, the BRDF reference,
//!   the default scene, image comparison (the renderer is [`gpu::render`]).
//! - [`anim`]: skeletal animation (CPU): glTF clips, the node hierarchy, pose blending, the
//!   walk/run locomotion blend.
//! - [`skin`]: skinning with quaternion bones (CPU side): bone conversion, the packed vertex
//!   layout, the f64 reference for linear-blend and dual-quaternion skinning of positions and
//!   qtangent frames (the kernel is [`gpu::skin`]).
//! - [`gpu`]: headless wgpu context and the GPU stages: batch decode, mesh vertex stage,
//!   quaternion-map bake and sampling (the only module that uses wgpu).
//!
//! ```
//! use glam::Vec3;
//! use qtangent::{Format, TangentFrame};
//!
//! // A mirrored frame (bitangent = -cross(n, t)) whose quaternion has w = 0.
//! let frame = TangentFrame::new(Vec3::NEG_Z, Vec3::X, Vec3::Y)?;
//! assert_eq!(frame.handedness(), -1.0);
//!
//! let mut bytes = Vec::new();
//! Format::Snorm16x4.encode_into(&frame.to_qtangent(), &mut bytes);
//! assert_eq!(bytes.len(), 8);
//! let back = Format::Snorm16x4.decode(&bytes).to_frame();
//! assert_eq!(back.handedness(), -1.0); // the w bias keeps the sign
//! let err = qtangent::measure::angle_deg(frame.normal, back.normal);
//! assert!(err <= Format::Snorm16x4.max_error_deg());
//! # Ok::<(), qtangent::FrameError>(())
//! ```

#![warn(missing_docs)]
#![warn(unreachable_pub)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "pipeline")]
pub mod anim;
mod format;
pub mod frame;
#[cfg(feature = "gltf")]
pub mod gltf;
#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(feature = "pipeline")]
pub mod ktx2;
#[cfg(feature = "lab")]
pub mod lab;
pub mod measure;
#[cfg(feature = "pipeline")]
pub mod mesh;
mod names;
#[cfg(feature = "gltf")]
pub mod pack;
#[cfg(feature = "pipeline")]
pub mod qmap;
pub mod quat;
#[cfg(feature = "pipeline")]
pub mod render;
#[cfg(feature = "pipeline")]
mod report;
#[cfg(feature = "pipeline")]
pub mod skin;
#[cfg(all(test, feature = "random"))]
mod testing;

// The crate's unit tests that need the whole pipeline share the integration tests' helpers
// (`tests/it/common`), and name the crate as the integration tests do.
#[cfg(all(test, feature = "default"))]
extern crate self as qtangent;
#[cfg(all(test, feature = "default"))]
#[path = "../tests/it/common/mod.rs"]
#[allow(unreachable_pub, unused_imports)]
mod common;

pub use format::Format;
pub use names::ParseNameError;
#[cfg(feature = "pipeline")]
pub use report::{Listener, Progress, Warning, WarningKind};

// The README's snippets compile and run as doc tests.
#[cfg(all(doctest, feature = "gpu", feature = "gltf"))]
#[doc = include_str!("../README.md")]
struct ReadmeSnippets;
pub use frame::{FrameError, QTangent, TangentFrame};
