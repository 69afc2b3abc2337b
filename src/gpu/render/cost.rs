//! What a mode costs: bytes on the GPU ([`ModeCost`], counted at upload) and frame time
//! ([`Renderer::time_frames`]).

use super::super::{GpuContext, GpuError};
use super::{GpuScene, Output, Renderer, Shot, IMAGE_FORMAT};
use crate::render::FrameSource;

/// Bytes a mode needs on the GPU for a scene: what `render --mode all` reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModeCost {
    /// Vertex buffer bytes (positions, UVs and whatever carries the frame).
    pub vertex_bytes: u64,
    /// Of those, the bytes that carry the frame (0 for the quaternion map).
    pub frame_vertex_bytes: u64,
    /// Texture bytes that carry the frame, mips included: normal maps for the vertex-frame
    /// modes, quaternion + handedness textures for the map.
    pub frame_texture_bytes: u64,
}

impl Renderer {
    /// Average wall time of `frames` renders of `shot` (submit and wait, no readback), after
    /// one warm-up render: what `render --mode all` reports per mode.
    ///
    /// # Errors
    /// As [`Renderer::render_image`].
    pub fn time_frames(
        &self,
        ctx: &GpuContext,
        scene: &GpuScene,
        shot: &Shot<'_>,
        frames: u32,
    ) -> Result<std::time::Duration, GpuError> {
        let output = Output::Color(IMAGE_FORMAT);
        self.render_targets(ctx, scene, shot, output)?;
        ctx.wait()?;
        let start = std::time::Instant::now();
        for _ in 0..frames.max(1) {
            self.render_targets(ctx, scene, shot, output)?;
            ctx.wait()?;
        }
        Ok(start.elapsed() / frames.max(1))
    }
}

impl GpuScene {
    /// The cost of `source` (qtangent formats the scene was not uploaded with have none).
    #[must_use]
    pub fn cost(&self, source: FrameSource) -> Option<ModeCost> {
        self.report
            .costs
            .iter()
            .find(|(s, _)| *s == source)
            .map(|(_, c)| *c)
    }
}
