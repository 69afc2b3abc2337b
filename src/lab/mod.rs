//! Lab equipment: what qtangent's own tests, tools and benchmarks use that is not part of the
//! API. Each measurement tool takes its table from one or two calls here and only parses its
//! arguments, prints and draws: the swirl-disc table (`disc::disc_table`, and the disc as a
//! glTF file), the `maps` tables (`maps::scene_table`, `maps::bake_timing`), the frame
//! comparison behind the gltfpack table (`frame_diff::diff_files`), the walk/run report and the
//! foot slide of every blend (`walkrun`), the matrix-palette skinning baseline and the decode
//! batch timed (`skin_matrix::time_matrix_skinning`, [`time_decode_dispatch`]). Besides: content
//! made in code (the default scene and its spun-metal plate, a checkered ground, the demo's
//! shapes), the vertex-stage and skinning checks against the CPU (`readback`,
//! `skin_reference`) and the fuzz targets' glTF seeds. Behind the `lab` cargo feature; it may
//! change in any release.
//!
//! It lives in the crate, rather than in a crate of its own, because it reaches what the API
//! keeps private (stage internals, the WGSL modules); a feature keeps it out of every build that
//! does not ask for it, and out of the documented surface. Equipment that needs only the public
//! API lives with the tools (`examples/common/`: benchmark timing, the encodings table's frames,
//! pictures).

#[cfg(feature = "render")]
pub mod content;
#[cfg(feature = "render")]
pub mod disc;
#[cfg(feature = "render")]
pub(crate) mod fixtures;
#[cfg(feature = "pipeline")]
pub mod frame_diff;
// The `.gltf` form the lab's content and the tests write (the glTF writer's own unit tests too).
#[cfg(all(feature = "gltf", any(test, feature = "render")))]
pub(crate) mod gltf_json;
#[cfg(feature = "render")]
pub mod maps;
#[cfg(feature = "gpu")]
pub mod readback;
#[cfg(feature = "render")]
pub(crate) mod shading;
#[cfg(feature = "render")]
pub(crate) mod shapes;
#[cfg(feature = "gpu")]
pub mod skin_matrix;
#[cfg(feature = "pipeline")]
pub mod skin_reference;
#[cfg(feature = "pipeline")]
pub mod walkrun;

/// What stops a measurement tool's lab call: one error for the lab's tables, scenes and files.
#[cfg(feature = "pipeline")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LabError {
    /// A texture cannot be encoded as PNG (or written).
    #[error("{file}: {error}")]
    Png {
        /// The texture's file name.
        file: &'static str,
        /// What failed.
        error: image::ImageError,
    },
    /// The swirl disc's texture cannot be compressed to BC7.
    #[error("swirl_disc_anisotropy.ktx2: {0}")]
    Bc7(crate::qmap::BcError),
    /// The swirl disc's texture cannot be written as KTX2.
    #[error("swirl_disc_anisotropy.ktx2: {0}")]
    Ktx2(crate::ktx2::Ktx2Error),
    /// A file cannot be written.
    #[cfg(feature = "gltf")]
    #[error(transparent)]
    Write(#[from] crate::pack::WriteError),
    /// A GLB cannot be copied with its normal maps as BC5 (`content::corpus`).
    #[error("{}: {problem}", file.display())]
    Copy {
        /// The GLB.
        file: std::path::PathBuf,
        /// What stopped the copy.
        problem: String,
    },
    /// A scene cannot be made.
    #[cfg(feature = "render")]
    #[error(transparent)]
    Scene(#[from] crate::render::SceneError),
    /// An upload or a render failed.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    /// A render cannot be compared with its reference.
    #[cfg(feature = "render")]
    #[error(transparent)]
    Diff(#[from] crate::render::ImageDiffError),
    /// A bake or a store failed.
    #[error(transparent)]
    Bake(#[from] crate::qmap::BakeError),
    /// A file did not load or prepare.
    #[error(transparent)]
    Mesh(#[from] crate::mesh::MeshError),
    /// A vertex cannot be placed in world space.
    #[error("{}: {label}: vertex {vertex}: {problem}", file.display())]
    Vertex {
        /// The scene's file.
        file: std::path::PathBuf,
        /// The primitive (`mesh 'Name' primitive 0`).
        label: String,
        /// The prepared vertex.
        vertex: usize,
        /// What is wrong: a joint outside the skin, weights summing to zero, a singular matrix.
        problem: String,
    },
}

/// The batch decode's one dispatch, for a benchmark to time: `count` frames packed by
/// [`crate::Format::pack`] in `format` are uploaded and bound once, then `time` gets the
/// function that records the dispatch (with timestamps at its pass's start and end, query
/// indices `first`, `first + 1`, when given) and returns its seconds. Returns those seconds
/// and the bytes one dispatch moves (packed input + decoded output).
///
/// # Errors
/// As `DecodePipeline::decode`, and what `time` returns.
#[cfg(feature = "gpu")]
pub fn time_decode_dispatch(
    ctx: &crate::gpu::GpuContext,
    pipeline: &crate::gpu::DecodePipeline,
    format: crate::Format,
    packed: &[u32],
    count: usize,
    time: impl FnOnce(
        &dyn Fn(&mut wgpu::CommandEncoder, Option<(&wgpu::QuerySet, u32)>),
    ) -> Result<f64, crate::gpu::GpuError>,
) -> Result<(f64, u64), crate::gpu::GpuError> {
    let batch = pipeline.prepare(ctx, format, packed, count)?;
    let seconds = time(&|e, ts| batch.encode(e, ts))?;
    // The packed input as uploaded (whole words), and the decoded output.
    let input_bytes = std::mem::size_of_val(packed) as u64;
    Ok((seconds, input_bytes + batch.output.size()))
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../tests/unit/lab/mod.rs"]
mod tests;
