//! # qtangent
//!
//! Tangent frames (normal, tangent, bitangent) as quaternions: compact vertex encodings with
//! measured error bounds, quaternion maps that carry a whole frame per texel, glTF + KTX2 files
//! that hold both, and GPU stages (wgpu + WGSL) that decode, light and skin them, each checked
//! against a CPU reference by readback.
//!
//! The jobs and where they start (the most used types are also at the crate root):
//!
//! | job | start at |
//! |---|---|
//! | encode a mesh's frames | [`mesh::load`], [`mesh::Prepared::vertex_stream`], [`Format`] |
//! | decode them in your WGSL | [`Wgsl`], [`gpu::vertex_layout`], [`gpu::DecodePipeline`] |
//! | bake and store a quaternion map | [`qmap::Baker`] with [`qmap::MapOptions`], [`qmap::EncodedMap::write_ktx2`] |
//! | sample it | [`gpu::upload_encoded`], [`gpu::sample_frames`], `qmap_frame` in [`Wgsl::Qmap`] |
//! | pack a glTF | [`pack::pack`] with [`qmap::SceneMaps`] |
//! | skin a batch | [`skin::SkinVertices`], [`skin::Bone`], [`gpu::SkinPipeline`] |
//! | draw and compare (`render` feature) | `gpu::Renderer`, `render::RenderScene`, `render::diff` |
//! | animate | [`mesh::Scene::locomotion`], [`anim::Player`] |
//!
//! The modules, bottom layer first (a module never imports one above it):
//!
//! - core: [`quat`] (quaternion operations after "Quaternions: How", "Quaternion Tricks" and
//!   "Angular velocity from two known orientations", made robust), the frame types at the root
//!   ([`TangentFrame`], [`QTangent`]), [`Format`] (six vertex formats, one table row each) and
//!   [`measure`] (angles and seeded frames);
//! - files: `gltf` and `ktx2` (crate-internal: the one glTF accessor reader and writer, under
//!   the loader, [`pack`] and the tests, and the one KTX2 reader and writer, under
//!   [`qmap::EncodedMap::write_ktx2`] and [`qmap::EncodedMap::read_ktx2`]; [`ktx2`] keeps
//!   only their error types and the texel formats those name);
//! - CPU preparation: [`mesh`] (loading, normals, MikkTSpace, seam splits, vertex streams),
//!   [`anim`] (clips, poses, the walk/run blend), [`qmap`] (the bake, BC5/BC7, stored maps) and
//!   [`skin`] (bones and the f64 reference);
//! - products: `render` (the `render` feature: what a lit scene is and how two renders compare) and [`pack`] (GLB
//!   out);
//! - [`gpu`]: the only code that uses wgpu, one stage a file, one WGSL file a stage.
//!
//! Long operations report progress and typed warnings to a [`Listener`]; errors are one
//! `thiserror` enum per domain. The `lab` cargo feature adds `lab`, the equipment qtangent's
//! own tests, tools and benchmarks use (docs/ARCHITECTURE.md says why it is a feature).
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
// No crate-wide allow hides dead code: items only the renderer or the lab reads are gated on
// `render` (or carry a narrow `allow` naming their reader), and `cargo xtask test` denies
// warnings for the default features, `ktx2` alone and `pipeline` alone (clippy: the workspace's
// full set). The unit tests that need the whole pipeline are
// `cfg(all(test, feature = "default", feature = "render"))`, so a test build without both
// leaves their helpers unused: allowed there alone.
#![cfg_attr(
    all(test, not(all(feature = "default", feature = "render"))),
    allow(dead_code)
)]
#![warn(unreachable_pub)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "pipeline")]
pub mod anim;
mod format;
mod frame;
#[cfg(feature = "gltf")]
mod gltf;
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
#[cfg(feature = "render")]
pub mod render;
#[cfg(feature = "pipeline")]
mod report;
#[cfg(feature = "pipeline")]
pub mod skin;
#[cfg(all(test, feature = "default", feature = "render"))]
mod testing;
#[cfg(feature = "pipeline")]
mod wgsl;

// The crate's unit tests that need the whole pipeline share the integration tests' helpers
// (`tests/it/common`), and name the crate as the integration tests do.
#[cfg(test)]
extern crate self as qtangent;
#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../tests/it/common/mod.rs"]
#[allow(unreachable_pub, unused_imports)]
mod common;
#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../tests/unit/gltf_files/mod.rs"]
mod gltf_files;
// CPU reference bakes for the map tests: `qmap::bake_cpu` is crate-internal.
#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../tests/unit/bake.rs"]
mod test_bake;
// Drawing a scene for the renderer's unit tests: the debug read-backs are crate-internal.
#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../tests/unit/draw.rs"]
#[allow(unreachable_pub)]
mod draw;

pub use format::Format;
pub use frame::{FrameError, QTangent, TangentFrame};
#[cfg(feature = "gpu")]
pub use gpu::{GpuContext, SkinPipeline};
pub use names::ParseNameError;
#[cfg(feature = "pipeline")]
pub use qmap::{Baker, EncodedMap, MapOptions};
#[cfg(feature = "pipeline")]
pub use report::{Listener, Progress, Warning, WarningKind};
#[cfg(feature = "pipeline")]
pub use skin::{Bone, SkinVertices};
#[cfg(feature = "pipeline")]
pub use wgsl::Wgsl;

// The README's snippets and those of docs/*.md compile and run as doc tests (docs/BEVY.md's,
// which need Bevy, in integrations/bevy).
#[cfg(all(doctest, feature = "gpu", feature = "gltf"))]
#[doc = include_str!("../README.md")]
struct ReadmeSnippets;

/// Every `docs/*.md` but BEVY.md as doc tests (a block without a language is Rust to rustdoc,
/// so the docs tag their text blocks).
#[cfg(all(doctest, feature = "gpu", feature = "gltf"))]
mod doc_snippets {
    macro_rules! docs {
        ($($name:ident = $file:literal),* $(,)?) => {
            $(
                #[doc = include_str!(concat!("../docs/", $file))]
                struct $name;
            )*
        };
    }
    docs! {
        Architecture = "ARCHITECTURE.md",
        Formats = "FORMATS.md",
        Gltf = "GLTF.md",
        Gltfpack = "GLTFPACK.md",
        Maps = "MAPS.md",
        Meshes = "MESHES.md",
        Performance = "PERFORMANCE.md",
        Rendering = "RENDERING.md",
        Skinning = "SKINNING.md",
        Testing = "TESTING.md",
        Web = "WEB.md",
    }
}
