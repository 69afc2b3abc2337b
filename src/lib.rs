//! # qtangent
//!
//! Tangent frames (normal, tangent, bitangent) as quaternions: compact vertex encodings with
//! measured error bounds, and a GPU decode path (wgpu + WGSL) checked against the CPU by readback.
//!
//! - [`quat`]: quaternion operations from the seed articles, made robust (CPU, glam types).
//! - [`frame`]: tangent frames, orthonormalisation, frame ↔ quaternion + reflection.
//! - [`encoding`]: six storage formats, each an encode/decode pair with its error bound.
//! - [`measure`]: seeded test frames and the encodings error table.
//! - [`gpu`]: headless wgpu context and the GPU decode stage (the only module that uses wgpu).

pub mod encoding;
pub mod frame;
pub mod gpu;
pub mod measure;
pub mod quat;

pub use encoding::Format;
pub use frame::{FrameError, QTangent, TangentFrame};
