//! Helpers for the crate's own unit tests: seeded random cases whose seed is printed on failure,
//! and angle measures in f64.

use glam::Quat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// Base seed of every seeded unit test; case `i` uses `BASE_SEED + i`.
pub(crate) const BASE_SEED: u64 = 0x5eed_0000_0000_0000;

/// Runs `case` `n` times, each with its own seeded generator. A panic inside a case is re-raised
/// with the seed that reproduces it.
pub(crate) fn for_seeds(name: &str, n: u64, mut case: impl FnMut(u64, &mut Pcg64Mcg)) {
    for i in 0..n {
        let seed = BASE_SEED + i;
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case(seed, &mut rng)));
        if let Err(e) = result {
            eprintln!("{name}: failed for seed {seed:#x} (case {i})");
            std::panic::resume_unwind(e);
        }
    }
}

/// Rotation angle (radians) between two unit quaternions, sign-insensitive, in f64.
pub(crate) fn quat_angle(a: Quat, b: Quat) -> f64 {
    let r = (a.conjugate() * b).normalize().as_dquat();
    2.0 * r.xyz().length().atan2(r.w.abs())
}

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
