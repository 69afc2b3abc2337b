//! The GPU baker's raster stage (`shaders/bake.wgsl`).

use super::{GpuContext, GpuError};
use crate::qmap::{BakeMesh, BakeSettings, NormalMap, Progress, Raster};

/// Rasterises `mesh` into a quaternion map on the GPU: the same [`Raster`] as
/// [`crate::qmap::raster_cpu`], to be finished by [`crate::qmap::finish`].
///
/// # Errors
/// [`GpuError::TooLarge`] when the size exceeds the adapter's texture limit, [`GpuError::Input`]
/// for a mesh that fails [`BakeMesh::validate`], other [`GpuError`]s from wgpu.
pub fn raster_gpu(
    ctx: &GpuContext,
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    settings: &BakeSettings,
    progress: Progress<'_>,
) -> Result<Raster, GpuError> {
    let _ = (ctx, mesh, normal_map, settings, progress);
    Err(GpuError::Input("GPU baking is not written yet".into()))
}
