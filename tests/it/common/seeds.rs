//! Seeded random cases whose seed is printed on failure, and the angle between two rotations in
//! f64: shared by the integration tests (`common`) and the crate's unit tests (`src/testing.rs`
//! includes this file by path), so it needs only glam and rand.

use glam::Quat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// Base seed for every random test; case `i` uses `BASE_SEED + i`.
pub const BASE_SEED: u64 = 0x5eed_0000_0000_0000;

/// Runs `case` `n` times, each with its own seeded generator. A panic inside a case is
/// re-raised with the seed that reproduces it.
pub fn for_seeds(name: &str, n: u64, mut case: impl FnMut(u64, &mut Pcg64Mcg)) {
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
pub fn quat_angle(a: Quat, b: Quat) -> f64 {
    let r = (a.conjugate() * b).normalize().as_dquat();
    2.0 * r.xyz().length().atan2(r.w.abs())
}
