//! Helpers for the crate's own unit tests: seeded random cases whose seed is printed on failure
//! and the angle between two rotations (both from `tests/it/common/seeds.rs`, which the
//! integration tests share), and the GPU context.

// `tests/it/common` is in the unit tests' build (src/lib.rs).
use crate::common::seeds;

pub(crate) use seeds::{for_seeds, quat_angle};

/// The one GPU context the crate's unit tests share (made on first use with
/// [`GpuContext::new`](crate::gpu::GpuContext::new)). Panics with the adapter error: GPU tests
/// never skip.
#[cfg(feature = "gpu")]
pub(crate) fn gpu() -> &'static crate::gpu::GpuContext {
    static CONTEXT: std::sync::OnceLock<crate::gpu::GpuContext> = std::sync::OnceLock::new();
    CONTEXT.get_or_init(|| {
        crate::gpu::GpuContext::new().unwrap_or_else(|e| panic!("GPU tests need an adapter: {e}"))
    })
}
