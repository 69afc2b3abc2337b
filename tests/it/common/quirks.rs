//! What some adapters do better (or worse) than the Vulkan minimum the tests otherwise assume:
//! data, keyed by a lower-case substring of the adapter name, never `if`s in the tests.

use qtangent::gpu::GpuContext;

/// One adapter's known properties.
#[derive(Debug, Clone, Copy)]
pub struct Quirks {
    /// Sub-texel precision of the filter weights, bits (`subTexelPrecisionBits`).
    pub subtexel_bits: u32,
}

/// Vulkan's required minimums, for every adapter not in [`KNOWN`]: 4 sub-texel bits.
pub const MINIMUM: Quirks = Quirks { subtexel_bits: 4 };

/// Adapters known to do better than [`MINIMUM`]. lavapipe (llvmpipe) reports
/// `subTexelPrecisionBits` = 8.
pub const KNOWN: &[(&str, Quirks)] = &[("llvmpipe", Quirks { subtexel_bits: 8 })];

/// The quirks of `ctx`'s adapter: its [`KNOWN`] entry, else [`MINIMUM`].
pub fn of(ctx: &GpuContext) -> Quirks {
    let name = ctx.info.name.to_lowercase();
    KNOWN
        .iter()
        .find(|(n, _)| name.contains(n))
        .map_or(MINIMUM, |&(_, q)| q)
}

/// The step of the filter weights on `ctx`'s adapter: 2^−subtexel_bits.
pub fn subtexel_step(ctx: &GpuContext) -> f32 {
    1.0 / (1u32 << of(ctx).subtexel_bits) as f32
}
