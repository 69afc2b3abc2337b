//! Block compression of quaternion maps: BC5 UNORM for a tangent-space map's normal (x, y),
//! BC5 SNORM for rotations kept as (x, y) (a tilt past the horizon, a twist layer), BC7 UNORM for
//! (x, y, z) or whole object-space quaternions. CPU only, on all cores; BC7 by Binomial's bc7e
//! ([`BcEncoder::Bc7e`], the default) or bc7f ([`BcEncoder::Bc7f`]) through `ctt`'s encoder
//! crates, or by Intel's ISPC texture compressor itself ([`BcEncoder::Ispc`], `intel_tex_2`'s
//! prebuilt kernels) or `block_compression`'s Rust port of it ([`BcEncoder::Portable`]); BC5
//! by Intel's kernel (or the port). The tests
//! (`tests/unit/qmap/bc.rs`) judge the result by the angle of the decoded frame, not by RGB error.
//!
//! # Formats
//!
//! - **BC5 SNORM** (`VK_FORMAT_BC5_SNORM_BLOCK`, wgpu `Bc5RgSnorm`), 1 B/texel: the (x, y) of a
//!   tangent-space rotation r whose z is 0 (the shortest arc from +Z to the normal). The shader
//!   rebuilds `w = sqrt(max(0, 1 − x² − y²))`. Each half-block is a BC4 block: two endpoints and
//!   a 3-bit index per texel into a palette interpolated between them (D3D11 functional spec
//!   §19.5.3). Zero is exactly representable, so a flat normal stays flat (BC5 UNORM cannot
//!   store 0: it lies between 127/255 and 128/255).
//! - **BC5 UNORM** (`VK_FORMAT_BC5_UNORM_BLOCK`, wgpu `Bc5RgUnorm`), 1 B/texel: a normal's
//!   (x, y) as n·½ + ½, the lattice of the 8-bit normal map a tangent-space map is baked from
//!   and what engines ship a normal map as (z ≥ 0 rebuilt). [`encode_bc5_unorm`] hands the
//!   kernels round(255·v) and aims the refinement at 255·v. **Contract**: every decoded
//!   component within `½ + range/14` of 255·v in bytes, `range` the spread of the block's
//!   rounded bytes (tested in `tests/unit/qmap/bc/unorm.rs`).
//! - **BC7 UNORM** (`Bc7RgbaUnorm`), 1 B/texel: v·½ + ½ per channel. Three channels (x, y, z of
//!   a tangent-space rotation, alpha 255) or four (an object-space quaternion, hemisphere-aligned
//!   between neighbours). Background texels are don't-care ([`encode_bc7`]'s `care`).
//!
//! # BC5 SNORM through an unorm encoder
//!
//! Each component is quantised to the snorm byte s = round(127·v) ∈ [−127, 127] and handed to
//! the BC5 (unorm) encoder as the unorm byte u = s + 128 ∈ [1, 255]. The encoder's endpoints are
//! the block's smallest and largest u, so they lie in [1, 255] too. Flipping the top bit of the
//! two endpoint bytes of each BC4 half turns unorm byte e (e/255) into the snorm byte e − 128
//! ((e − 128)/127): the palette is linear in the endpoints and the flip keeps their order (which
//! picks the 8- or 6-value mode), so the snorm decode of the flipped block is
//! `(unorm decode · 255 − 128)/127`, exactly the content. Only the 6-value mode's fixed entries
//! differ: unorm 0 and 1 become snorm −1 and +1, where the content would be −128/127 and +1;
//! the encoder uses that mode only for constant blocks, with index 1, so it never emits them.
//!
//! **Contract** (asserted by the tests): every decoded BC5 component is within
//! `(½ + range/14)/127` of the input, where `range` is the spread of the block's snorm bytes
//! (½ for the byte quantisation, range/14 half a palette step: the kernels pick the nearest of
//! eight evenly spaced entries between the block's extremes, and the endpoint refinement that
//! follows them, [`bc4`], keeps new endpoints only within that bound and never makes a block's
//! squared error larger).
//!
//! # Accuracy and speed
//!
//! Angle errors measured by `tests/unit/qmap/bc.rs` on 256² smooth random fields (plane waves of
//! 16–128 texel wavelength), worst of ten seeds, degrees; encode speed at 2048² on two x86-64
//! cores (twice the rate per CPU-second measured on a shared machine), Mtexel/s. For scale:
//! 8-bit snorm storage of the same quaternions is off by at most 0.9°.
//!
//! | data                           | format           | mean | p99 |  max | Mtexel/s |
//! |--------------------------------|------------------|-----:|----:|-----:|---------:|
//! | normals ≤ 60° from +Z, (x, y)  | BC5 SNORM        | 0.67 | 2.0 |  3.5 |  ~13     |
//! | object-space quaternions       | BC7 UltraFast    | 2.1  | 6.7 | 12.3 |  4.5     |
//! |                                | BC7 Fast         | 2.1  | 5.7 |  9.1 |  0.45    |
//! |                                | BC7 Basic        | 2.0  | 4.8 |  8.6 |  0.26    |
//! | tangent-space (x, y, z)        | BC7 UltraFast    | 2.1  | 7.8 | 15.1 | 16       |
//! |                                | BC7 Fast         | 1.6  | 3.7 |  6.7 |  0.75    |
//! |                                | BC7 Basic        | 1.5  | 3.6 |  5.9 |  0.36    |
//!
//! BC5's figures are with the endpoint refinement ([`bc4`]; the kernels alone: 0.83°, 2.4°,
//! 3.6°, ~80 Mtexel/s), which is most of its time; both speeds are the portable port's before
//! the refinement became a descent (issue 42: Intel's ISPC kernel alone about 220 Mtexel/s on a
//! 2048² field, with the refinement 17 on FlightHelmet's levels). The other speeds above are the
//! portable port's. The ISPC kernels write blocks of the same angle
//! error (the tests hold both to the bounds; on their fields the errors agree to the texel) and
//! run BC7 several times faster. On FlightHelmet's object-space maps at 2048² (all materials,
//! every mip, two cores; the lab's `maps` bake-time table, docs/PERFORMANCE.md) BC7 Basic
//! encodes, Mtexel/s and per-texel normal error mean / p99: bc7e 7.9, 0.571° / 2.51°; bc7f
//! 25.9, 0.732° / 2.81°; ISPC 4.5, 0.635° / 2.57°; the port 0.57, the same as ISPC. bc7e has
//! the smallest error there, hence the default; on the tests' synthetic fields it equals ISPC on
//! quaternions and is a little further on three channels (each encoder has its own bounds).
//! Background blocks (no cared-for texel) are not encoded but copied from one encoded constant
//! block.
//!
//! # Sizes
//!
//! A GPU takes a BC texture whose level 0 is a multiple of 4 on both sides ([`check_size`],
//! which the callers apply to level 0). Every level is encoded whatever its size: the last
//! block row and column are padded by repeating the edge texels, which is what the mips of such
//! a map need (12 → 6 → 3 → 1; 2×2, 1×1 and 2×1 levels take one block). A side of 0 is
//! [`BcError::Size`].

use std::num::NonZeroUsize;
use std::sync::{Mutex, PoisonError};

#[cfg(feature = "bc-encode")]
use block_compression::encode::compress_rgba8;
#[cfg(feature = "bc-encode")]
use block_compression::{BC7Settings, CompressionVariant};
#[cfg(feature = "bc-encode")]
use intel_tex_2::{bc5 as ispc_bc5, bc7 as ispc_bc7, RgSurface, RgbaSurface};

use crate::ktx2::bc::{decode_level, BcFormat};

pub(crate) mod bc4;

/// Bytes of one 4×4 block, BC5 and BC7 alike.
pub(crate) const BLOCK_BYTES: usize = 16;

/// Block rows per unit of parallel work: small, so that threads share uneven content evenly.
const BAND_ROWS: usize = 4;

/// A level cannot be block-compressed or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BcError {
    /// A side is 0, or ≥ 4 and not a multiple of 4.
    #[error(
        "a {width}×{height} map cannot be block-compressed: BC needs sides that are multiples \
         of 4 (pad the map or choose another format)"
    )]
    Size {
        /// Width of the level.
        width: u32,
        /// Height of the level.
        height: u32,
    },
    /// The texel slice does not hold width × height texels.
    #[error("{given} texels given for a {width}×{height} level")]
    Texels {
        /// Texels given.
        given: usize,
        /// Width of the level.
        width: u32,
        /// Height of the level.
        height: u32,
    },
    /// The care mask does not hold width × height flags.
    #[error("{given} care flags given for a {width}×{height} level")]
    Care {
        /// Flags given.
        given: usize,
        /// Width of the level.
        width: u32,
        /// Height of the level.
        height: u32,
    },
    /// The block bytes do not match the level size.
    #[error("{given} bytes of blocks given for a {width}×{height} level, which needs {needed}")]
    Blocks {
        /// Bytes given.
        given: usize,
        /// Width of the level.
        width: u32,
        /// Height of the level.
        height: u32,
        /// `level_bytes` of the level.
        needed: usize,
    },
    /// BC7 stores 3 or 4 channels.
    #[error("BC7 stores 3 or 4 channels, not {0}")]
    Channels(u8),
    /// The crate was built without its `bc-encode` feature: BC maps can be read and decoded,
    /// not made.
    #[error(
        "this build of qtangent has no BC encoder (its `bc-encode` feature is off): choose \
         rgba16f (which `pack` and the readers take), or build with `bc-encode`"
    )]
    NoEncoder,
}

/// Effort of the BC7 encoder: for Intel's kernels (ISPC and the port) their presets of the same
/// name (`alpha_*` for four channels, `opaque_*` for three, as below); for bc7e its
/// `params_init_*` preset of the same name; for bc7f `ctt`'s mapping to its flags (UltraFast
/// `DefaultFastest`, VeryFast `DefaultFaster`, Fast `DefaultFast`, Basic `Default`, Slow
/// `DefaultPartiallyAnalytical`). Slower presets try more modes and partitions; errors and
/// speeds are in the module docs. On smooth fields VeryFast ≈ Fast and Slow ≈ Basic in error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Bc7Quality {
    /// `alpha_ultrafast` / `opaque_ultra_fast`. Four channels (modes 4–6): 10× Fast's speed,
    /// about its mean error, 1.35× its largest. Three (mode 6 only): 20×, twice the largest.
    UltraFast,
    /// `alpha_very_fast` / `opaque_very_fast`: 1.5–2× Fast's speed.
    VeryFast,
    /// `alpha_fast` / `opaque_fast`.
    Fast,
    /// `alpha_basic` / `opaque_basic`: all modes. The default.
    #[default]
    Basic,
    /// `alpha_slow` / `opaque_slow`: about a third of Basic's speed.
    Slow,
}

crate::names::named!(Bc7Quality, "BC7 quality", {
    UltraFast => "ultrafast",
    VeryFast => "veryfast",
    Fast => "fast",
    Basic => "basic",
    Slow => "slow",
});

/// Which BC5/BC7 encoder runs. The maps table (`cargo run --release -p qtangent-lab --bin maps`)
/// shows them side by side, speed and angle error of what each wrote. bc7e and bc7f are BC7
/// encoders only: with either, BC5 runs on Intel's ISPC kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BcEncoder {
    /// Intel's ISPC kernels themselves (`intel_tex_2`, prebuilt SIMD code), on every core. BC5's
    /// time is mostly the endpoint refinement that follows either kernel (`bc4`).
    Ispc,
    /// `block_compression`'s scalar Rust port of Intel's kernels, on every core: no native
    /// code, the reference the ISPC kernels are measured against.
    Portable,
    /// Binomial's bc7e (ISPC, prebuilt, through `ctt`'s `ctt-bc7enc-rdo`) for BC7, with its
    /// non-perceptual metric (every channel weighs the same, as a quaternion's do). The
    /// default: on FlightHelmet's object-space maps at 2048² it writes the smallest angle error
    /// of the four at 2–3× the ISPC kernels' speed at equal effort (docs/MAPS.md).
    #[default]
    Bc7e,
    /// Binomial's bc7f (Basis Universal's analytical BC7 encoder, through `ctt-bc7f`) for BC7:
    /// the fastest, with a larger angle error.
    Bc7f,
}

crate::names::named!(BcEncoder, "BC encoder", {
    Ispc => "ispc",
    Portable => "portable",
    Bc7e => "bc7e",
    Bc7f => "bc7f",
});

impl Bc7Quality {
    #[cfg(feature = "bc-encode")]
    fn settings(self, alpha: bool) -> BC7Settings {
        match (self, alpha) {
            (Bc7Quality::UltraFast, true) => BC7Settings::alpha_ultrafast(),
            (Bc7Quality::VeryFast, true) => BC7Settings::alpha_very_fast(),
            (Bc7Quality::Fast, true) => BC7Settings::alpha_fast(),
            (Bc7Quality::Basic, true) => BC7Settings::alpha_basic(),
            (Bc7Quality::Slow, true) => BC7Settings::alpha_slow(),
            (Bc7Quality::UltraFast, false) => BC7Settings::opaque_ultra_fast(),
            (Bc7Quality::VeryFast, false) => BC7Settings::opaque_very_fast(),
            (Bc7Quality::Fast, false) => BC7Settings::opaque_fast(),
            (Bc7Quality::Basic, false) => BC7Settings::opaque_basic(),
            (Bc7Quality::Slow, false) => BC7Settings::opaque_slow(),
        }
    }

    /// bc7e's preset of the same name, non-perceptual (channel weights 1, 1, 1, 1).
    #[cfg(feature = "bc-encode")]
    fn bc7e_params(self) -> ctt_bc7enc_rdo::bindings::bc7e_compress_block_params {
        match self {
            Bc7Quality::UltraFast => ctt_bc7enc_rdo::params_init_ultrafast(false),
            Bc7Quality::VeryFast => ctt_bc7enc_rdo::params_init_veryfast(false),
            Bc7Quality::Fast => ctt_bc7enc_rdo::params_init_fast(false),
            Bc7Quality::Basic => ctt_bc7enc_rdo::params_init_basic(false),
            Bc7Quality::Slow => ctt_bc7enc_rdo::params_init_slow(false),
        }
    }

    /// bc7f's flags for the same effort, as `ctt` maps its qualities.
    #[cfg(feature = "bc-encode")]
    fn bc7f_flags(self) -> u32 {
        use ctt_bc7f::bindings as f;
        match self {
            Bc7Quality::UltraFast => f::cPackBC7FlagDefaultFastest,
            Bc7Quality::VeryFast => f::cPackBC7FlagDefaultFaster,
            Bc7Quality::Fast => f::cPackBC7FlagDefaultFast,
            Bc7Quality::Basic => f::cPackBC7FlagDefault,
            Bc7Quality::Slow => f::cPackBC7FlagDefaultPartiallyAnalytical,
        }
    }

    /// The ISPC kernels' preset of the same name.
    #[cfg(feature = "bc-encode")]
    fn ispc_settings(self, alpha: bool) -> ispc_bc7::EncodeSettings {
        match (self, alpha) {
            (Bc7Quality::UltraFast, true) => ispc_bc7::alpha_ultra_fast_settings(),
            (Bc7Quality::VeryFast, true) => ispc_bc7::alpha_very_fast_settings(),
            (Bc7Quality::Fast, true) => ispc_bc7::alpha_fast_settings(),
            (Bc7Quality::Basic, true) => ispc_bc7::alpha_basic_settings(),
            (Bc7Quality::Slow, true) => ispc_bc7::alpha_slow_settings(),
            (Bc7Quality::UltraFast, false) => ispc_bc7::opaque_ultra_fast_settings(),
            (Bc7Quality::VeryFast, false) => ispc_bc7::opaque_very_fast_settings(),
            (Bc7Quality::Fast, false) => ispc_bc7::opaque_fast_settings(),
            (Bc7Quality::Basic, false) => ispc_bc7::opaque_basic_settings(),
            (Bc7Quality::Slow, false) => ispc_bc7::opaque_slow_settings(),
        }
    }
}

// The ISPC kernels' archive is C++ built (it refers to libstdc++'s exception personality).
#[cfg(all(feature = "bc-encode", target_os = "linux", not(target_env = "musl")))]
#[link(name = "stdc++")]
unsafe extern "C" {}

/// One encoder at one setting, for whole bands of blocks.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "bc-encode"), allow(dead_code))]
enum Kernel {
    /// BC5 of the first two channels (unorm bytes).
    Bc5(BcEncoder),
    /// BC7 of four channels (`alpha`) or three with alpha 255.
    Bc7 {
        encoder: BcEncoder,
        quality: Bc7Quality,
        alpha: bool,
    },
}

impl Kernel {
    /// Without `bc-encode` the entry points return [`BcError::NoEncoder`] before any block is
    /// made, so this is never reached; it leaves `out` as it is.
    #[cfg(not(feature = "bc-encode"))]
    #[allow(clippy::unused_self)]
    fn encode(self, _blocks: &[[[u8; 4]; 16]], _out: &mut [u8]) {}

    #[cfg(feature = "bc-encode")]
    /// Encodes `blocks` (each 16 RGBA8 texels, row-major) into `out` (16 bytes each).
    fn encode(self, blocks: &[[[u8; 4]; 16]], out: &mut [u8]) {
        match self {
            Kernel::Bc5(BcEncoder::Portable) => {
                Self::portable(CompressionVariant::BC5, blocks, out)
            }
            Kernel::Bc7 {
                encoder: BcEncoder::Portable,
                quality,
                alpha,
            } => Self::portable(
                CompressionVariant::BC7(quality.settings(alpha)),
                blocks,
                out,
            ),
            Kernel::Bc5(BcEncoder::Ispc | BcEncoder::Bc7e | BcEncoder::Bc7f) => {
                let (data, width) = side_by_side::<2>(blocks);
                let surface = RgSurface {
                    data: &data,
                    width,
                    height: 4,
                    stride: width * 2,
                };
                ispc_bc5::compress_blocks_into(&surface, out);
            }
            Kernel::Bc7 {
                encoder: BcEncoder::Ispc,
                quality,
                alpha,
            } => {
                let (data, width) = side_by_side::<4>(blocks);
                let surface = RgbaSurface {
                    data: &data,
                    width,
                    height: 4,
                    stride: width * 4,
                };
                ispc_bc7::compress_blocks_into(&quality.ispc_settings(alpha), &surface, out);
            }
            Kernel::Bc7 {
                encoder: BcEncoder::Bc7e,
                quality,
                ..
            } => {
                // bc7e takes each texel as one little-endian u32 (R in the low byte) and picks
                // opaque or alpha modes per block from the block's alpha.
                let texels: Vec<u32> = blocks
                    .as_flattened()
                    .iter()
                    .map(|t| u32::from_le_bytes(*t))
                    .collect();
                let mut words = vec![0u64; blocks.len() * 2];
                ctt_bc7enc_rdo::compress_blocks(&mut words, &texels, &quality.bc7e_params());
                for (bytes, word) in out.chunks_exact_mut(8).zip(&words) {
                    bytes.copy_from_slice(&word.to_le_bytes());
                }
            }
            Kernel::Bc7 {
                encoder: BcEncoder::Bc7f,
                quality,
                ..
            } => {
                let texels = blocks.as_flattened().as_flattened();
                ctt_bc7f::compress_blocks_into(texels, out, quality.bc7f_flags());
            }
        }
    }

    #[cfg(feature = "bc-encode")]
    /// `block_compression`'s encoder, block by block.
    fn portable(variant: CompressionVariant, blocks: &[[[u8; 4]; 16]], out: &mut [u8]) {
        for (block, bytes) in blocks.iter().zip(out.chunks_exact_mut(BLOCK_BYTES)) {
            compress_rgba8(variant, block.as_flattened(), bytes, 4, 4, 16);
        }
    }
}

#[cfg(feature = "bc-encode")]
/// The blocks side by side as one surface for the ISPC kernels: 4 rows of 4·n texels, the first
/// `C` channels of each; and the surface's width in texels.
fn side_by_side<const C: usize>(blocks: &[[[u8; 4]; 16]]) -> (Vec<u8>, u32) {
    let n = blocks.len();
    let mut data = vec![0u8; 16 * n * C];
    for (b, block) in blocks.iter().enumerate() {
        for (t, texel) in block.iter().enumerate() {
            let at = ((t / 4) * 4 * n + b * 4 + t % 4) * C;
            data[at..at + C].copy_from_slice(&texel[..C]);
        }
    }
    (data, 4 * n as u32)
}

/// `Ok` when the crate has its BC encoders (the `bc-encode` feature).
///
/// # Errors
/// [`BcError::NoEncoder`] without them.
pub(crate) fn encoder_built() -> Result<(), BcError> {
    if cfg!(feature = "bc-encode") {
        Ok(())
    } else {
        Err(BcError::NoEncoder)
    }
}

/// Checks that a level 0 can be block-compressed: both sides ≥ 4 and multiples of 4.
///
/// # Errors
/// [`BcError::Size`].
pub(crate) fn check_size(width: u32, height: u32) -> Result<(), BcError> {
    if width == 0 || height == 0 || !width.is_multiple_of(4) || !height.is_multiple_of(4) {
        return Err(BcError::Size { width, height });
    }
    Ok(())
}

/// Bytes of a BC5 or BC7 level: 16 per 4×4 block, partial blocks rounded up.
#[must_use]
pub(crate) fn level_bytes(width: u32, height: u32) -> usize {
    (width as usize).div_ceil(4) * (height as usize).div_ceil(4) * BLOCK_BYTES
}

/// Encodes (x, y) ∈ [−1, 1] (clamped; NaN as 0) as BC5 SNORM with `encoder`. `xy` is
/// row-major, width × height. Decoded components are within `(½ + range/14)/127` of the input
/// (module docs).
///
/// # Errors
/// [`BcError::Size`] for a side that is 0, or ≥ 4 and not a multiple of 4; [`BcError::Texels`].
pub(crate) fn encode_bc5_snorm(
    width: u32,
    height: u32,
    xy: &[[f32; 2]],
    encoder: BcEncoder,
) -> Result<Vec<u8>, BcError> {
    encoder_built()?;
    let level = Level::new(width, height, xy.len())?;
    // No block is turned down: the background argument is never used.
    let mut blocks = level.encode(Kernel::Bc5(encoder), [0; BLOCK_BYTES], |texels| {
        Some(texels.map(|i| {
            let [x, y] = xy[i].map(|v| snorm_byte(v).wrapping_add(128));
            [x, y, 0, 0]
        }))
    });
    // The encoder sees the unorm bytes s + 128; the refinement aims at the unquantised value
    // on that scale.
    level.refine_bc5(&mut blocks, |i, c| {
        let v = xy[i][c];
        let target = if v.is_nan() { 0.0 } else { v.clamp(-1.0, 1.0) } * 127.0 + 128.0;
        (target, snorm_byte(v).wrapping_add(128))
    });
    blocks
        .chunks_exact_mut(BLOCK_BYTES)
        .for_each(bc5_unorm_block_to_snorm);
    Ok(blocks)
}

/// Encodes two channels in [0, 1] (clamped; NaN as 0) as BC5 UNORM
/// (`VK_FORMAT_BC5_UNORM_BLOCK`) with the same kernels and endpoint refinement as
/// [`encode_bc5_snorm`]: a normal's (x, y) as `n·½ + ½`, as an engine ships a normal map
/// (a tangent-space map of a tilt, on its 8-bit source's lattice; the lab's engine-BC5 copies of
/// glTF files, whose values are the source's bytes /255). The kernels get the bytes
/// round(255·v), the refinement aims at 255·v itself. `rg` is row-major, width × height.
/// Decoded bytes are within `½ + range/14` of 255·v, `range` being the spread of the block's
/// bytes in that channel (module docs).
///
/// # Errors
/// [`BcError::Size`] as [`encode_bc5_snorm`]; [`BcError::Texels`].
pub(crate) fn encode_bc5_unorm(
    width: u32,
    height: u32,
    rg: &[[f32; 2]],
    encoder: BcEncoder,
) -> Result<Vec<u8>, BcError> {
    encoder_built()?;
    let level = Level::new(width, height, rg.len())?;
    let unit = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) } * 255.0;
    let mut blocks = level.encode(Kernel::Bc5(encoder), [0; BLOCK_BYTES], |texels| {
        Some(texels.map(|i| {
            let [r, g] = rg[i].map(|v| unit(v).round() as u8);
            [r, g, 0, 0]
        }))
    });
    level.refine_bc5(&mut blocks, |i, c| {
        let v = unit(rg[i][c]);
        (v, v.round() as u8)
    });
    Ok(blocks)
}

/// Decodes BC5 SNORM to (x, y) with the crate's one BC decoder (`bcdec_rs`), as the D3D11 /
/// Vulkan spec defines it, in f32: the palette is interpolated in f32 from endpoints
/// max(e, −127)/127, not rounded to bytes. (Hardware may interpolate at lower precision.)
///
/// # Errors
/// [`BcError::Size`] as [`encode_bc5_snorm`]; [`BcError::Blocks`].
pub(crate) fn decode_bc5_snorm(
    width: u32,
    height: u32,
    blocks: &[u8],
) -> Result<Vec<[f32; 2]>, BcError> {
    Level::for_blocks(width, height, blocks.len())?;
    let bc5 = BcFormat::Bc5 { snorm: true };
    let texels = decode_level(bc5, width, height, blocks, BcFormat::block_f32);
    Ok(texels.into_iter().map(|[x, y, ..]| [x, y]).collect())
}

/// Decodes BC5 UNORM to (r, g) ∈ [0, 1] with the crate's one BC decoder (`bcdec_rs`), in f32
/// as [`decode_bc5_snorm`] does.
///
/// # Errors
/// [`BcError::Size`] as [`encode_bc5_snorm`]; [`BcError::Blocks`].
pub(crate) fn decode_bc5_unorm(
    width: u32,
    height: u32,
    blocks: &[u8],
) -> Result<Vec<[f32; 2]>, BcError> {
    Level::for_blocks(width, height, blocks.len())?;
    let bc5 = BcFormat::Bc5 { snorm: false };
    let texels = decode_level(bc5, width, height, blocks, BcFormat::block_f32);
    Ok(texels.into_iter().map(|[x, y, ..]| [x, y]).collect())
}

/// How [`encode_bc7`] stores values: channels, which texels count, and the encoder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bc7Job<'a> {
    /// 3 uses x, y, z with alpha 255 and the opaque presets (alpha may decode as 254 where
    /// mode 6 shares its p-bit with RGB); 4 uses all and the alpha presets.
    pub(crate) channels: u8,
    /// `None`, every texel counts; `Some(mask)`, texels marked false are don't-care.
    pub(crate) care: Option<&'a [bool]>,
    /// The encoder's effort.
    pub(crate) quality: Bc7Quality,
    /// Which encoder.
    pub(crate) encoder: BcEncoder,
}

/// Encodes values in [−1, 1] (clamped; NaN as 0) as BC7 UNORM of v·½ + ½, as `job` says.
///
/// With a care mask, in a block with some cared-for texels each don't-care texel first takes the
/// value of the nearest cared-for texel of the block (ties: the first in row order); a block
/// with none is filled with 0 (alpha 255 with three channels) and encoded once for all. So
/// background never pulls the endpoints of real content.
///
/// # Errors
/// [`BcError::Size`] as [`encode_bc5_snorm`]; [`BcError::Texels`]; [`BcError::Care`];
/// [`BcError::Channels`].
pub(crate) fn encode_bc7(
    width: u32,
    height: u32,
    values: &[[f32; 4]],
    job: Bc7Job<'_>,
) -> Result<Vec<u8>, BcError> {
    encoder_built()?;
    let level = Level::new(width, height, values.len())?;
    let alpha = match job.channels {
        3 => false,
        4 => true,
        c => return Err(BcError::Channels(c)),
    };
    let care = job.care;
    if let Some(mask) = care.filter(|m| m.len() != values.len()) {
        return Err(BcError::Care {
            given: mask.len(),
            width,
            height,
        });
    }
    let kernel = Kernel::Bc7 {
        encoder: job.encoder,
        quality: job.quality,
        alpha,
    };
    let texel = |v: [f32; 4]| {
        let c = v.map(unorm_byte);
        [c[0], c[1], c[2], if alpha { c[3] } else { 255 }]
    };
    // Background blocks are all alike: encode one, copy it.
    let mut background = [0; BLOCK_BYTES];
    kernel.encode(&[[texel([0.0; 4]); 16]], &mut background);
    Ok(level.encode(kernel, background, |texels| {
        let keep = texels.map(|i| care.is_none_or(|m| m[i]));
        if !keep.contains(&true) {
            return None;
        }
        let mut rgba = texels.map(|i| texel(values[i]));
        if keep.contains(&false) {
            fill_dont_care(&mut rgba, keep);
        }
        Some(rgba)
    }))
}

/// Decodes BC7 UNORM with the crate's one BC decoder (`bcdec_rs`; BC7 interpolation is integer
/// by the spec, so this is what a GPU returns) to c/255·2 − 1.
///
/// # Errors
/// [`BcError::Size`] as [`encode_bc5_snorm`]; [`BcError::Blocks`].
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
pub(crate) fn decode_bc7(width: u32, height: u32, blocks: &[u8]) -> Result<Vec<[f32; 4]>, BcError> {
    Level::for_blocks(width, height, blocks.len())?;
    let texels = decode_level(BcFormat::Bc7, width, height, blocks, BcFormat::block_rgba8);
    let unit = |c: u8| f32::from(c) / 255.0 * 2.0 - 1.0;
    Ok(texels.into_iter().map(|t| t.map(unit)).collect())
}

/// Turns a BC5 UNORM block whose four endpoint bytes are ≥ 1 into the BC5 SNORM block that
/// decodes to `(unorm · 255 − 128)/127` (module docs): flips the top bit of bytes 0, 1, 8, 9.
/// Its own inverse.
pub(crate) fn bc5_unorm_block_to_snorm(block: &mut [u8]) {
    for i in [0, 1, 8, 9] {
        block[i] ^= 0x80;
    }
}

/// round(127·v) as a two's-complement byte; symmetric, so −v gives −s.
fn snorm_byte(v: f32) -> u8 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(-1.0, 1.0) };
    (127.0 * v).round() as i8 as u8
}

/// round(255·(v·½ + ½)), v clamped to [−1, 1] (NaN as 0).
fn unorm_byte(v: f32) -> u8 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(-1.0, 1.0) };
    (127.5 * v + 127.5).round() as u8
}

/// Replaces each don't-care texel of a block (`keep` false) by the nearest one to keep.
fn fill_dont_care(rgba: &mut [[u8; 4]; 16], keep: [bool; 16]) {
    let dist = |a: usize, b: usize| (a % 4).abs_diff(b % 4).pow(2) + (a / 4).abs_diff(b / 4).pow(2);
    for t in (0..16).filter(|&t| !keep[t]) {
        if let Some(s) = (0..16).filter(|&s| keep[s]).min_by_key(|&s| dist(s, t)) {
            rgba[t] = rgba[s];
        }
    }
}

/// A level's size and its padding to whole blocks.
#[derive(Clone, Copy)]
struct Level {
    w: usize,
    h: usize,
    /// Padded width: a multiple of 4.
    pw: usize,
}

impl Level {
    fn size(width: u32, height: u32) -> Result<Self, BcError> {
        if width == 0 || height == 0 {
            return Err(BcError::Size { width, height });
        }
        let (w, h) = (width as usize, height as usize);
        Ok(Level {
            w,
            h,
            pw: w.div_ceil(4) * 4,
        })
    }

    fn new(width: u32, height: u32, texels: usize) -> Result<Self, BcError> {
        let level = Self::size(width, height)?;
        if texels != level.w * level.h {
            return Err(BcError::Texels {
                given: texels,
                width,
                height,
            });
        }
        Ok(level)
    }

    fn for_blocks(width: u32, height: u32, bytes: usize) -> Result<Self, BcError> {
        let level = Self::size(width, height)?;
        let needed = level_bytes(width, height);
        if bytes != needed {
            return Err(BcError::Blocks {
                given: bytes,
                width,
                height,
                needed,
            });
        }
        Ok(level)
    }

    /// The blocks `kernel` makes of what `prepare(texels)` makes of each block's 16 texel
    /// indices (row-major, edges repeated), a band of block rows at a time on all cores; a block
    /// `prepare` turns down (`None`) is `background`.
    fn encode(
        self,
        kernel: Kernel,
        background: [u8; BLOCK_BYTES],
        prepare: impl Fn([usize; 16]) -> Option<[[u8; 4]; 16]> + Sync,
    ) -> Vec<u8> {
        let blocks_x = self.pw / 4;
        let mut out = vec![0u8; blocks_x * self.h.div_ceil(4) * BLOCK_BYTES];
        for_each_band(&mut out, blocks_x * BLOCK_BYTES, |first_row, band| {
            let prepared: Vec<Option<[[u8; 4]; 16]>> = (0..band.len() / BLOCK_BYTES)
                .map(|i| {
                    let (x0, y0) = (i % blocks_x * 4, (first_row + i / blocks_x) * 4);
                    prepare(std::array::from_fn(|t| self.source(x0 + t % 4, y0 + t / 4)))
                })
                .collect();
            let content: Vec<[[u8; 4]; 16]> = prepared.iter().flatten().copied().collect();
            let mut encoded = vec![0u8; content.len() * BLOCK_BYTES];
            if !content.is_empty() {
                kernel.encode(&content, &mut encoded);
            }
            // The k-th prepared block's bytes are the k-th of `encoded`.
            let mut k = 0;
            for (block, p) in band.chunks_exact_mut(BLOCK_BYTES).zip(&prepared) {
                if p.is_some() {
                    block.copy_from_slice(&encoded[k * BLOCK_BYTES..(k + 1) * BLOCK_BYTES]);
                    k += 1;
                } else {
                    block.copy_from_slice(&background);
                }
            }
        });
        out
    }

    /// Refines the endpoints of every BC4 half of the BC5 UNORM `blocks` ([`bc4::refine`]), on
    /// all cores, keeping the contract (module docs): each decoded value stays within
    /// ½ + range/14 bytes of its input, `range` the spread of the block's bytes in that
    /// channel. `texel(i, c)` is texel i's channel c as (the value aimed at, on the unorm byte
    /// scale; the byte the encoder was given).
    fn refine_bc5(self, blocks: &mut [u8], texel: impl Fn(usize, usize) -> (f32, u8) + Sync) {
        let blocks_x = self.pw / 4;
        for_each_band(blocks, blocks_x * BLOCK_BYTES, |first_row, band| {
            for (i, block) in band.chunks_exact_mut(BLOCK_BYTES).enumerate() {
                let (x0, y0) = (i % blocks_x * 4, (first_row + i / blocks_x) * 4);
                let texels: [usize; 16] =
                    std::array::from_fn(|t| self.source(x0 + t % 4, y0 + t / 4));
                for (c, half) in block.chunks_exact_mut(8).enumerate() {
                    let values: [(f32, u8); 16] = std::array::from_fn(|t| texel(texels[t], c));
                    let (lo, hi) = values.iter().fold((u8::MAX, u8::MIN), |(lo, hi), &(_, b)| {
                        (lo.min(b), hi.max(b))
                    });
                    let range = f32::from(hi) - f32::from(lo);
                    bc4::refine(half, &values.map(|v| v.0), 0.5 + range / 14.0);
                }
            }
        });
    }

    /// The texel whose value the padded texel (x, y) holds: edge repetition.
    fn source(self, x: usize, y: usize) -> usize {
        y.min(self.h - 1) * self.w + x.min(self.w - 1)
    }
}

/// Runs `work(first_block_row, band)` on bands of [`BAND_ROWS`] block rows of `out` (each
/// `row_len` long), on every core; threads take the next band when done (uneven blocks).
fn for_each_band<T: Send>(out: &mut [T], row_len: usize, work: impl Fn(usize, &mut [T]) + Sync) {
    let band_len = BAND_ROWS * row_len;
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(out.len().div_ceil(band_len));
    let bands = Mutex::new(out.chunks_mut(band_len).enumerate());
    let next = || bands.lock().unwrap_or_else(PoisonError::into_inner).next();
    let run = || {
        while let Some((i, band)) = next() {
            work(i * BAND_ROWS, band);
        }
    };
    if threads <= 1 {
        run();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(run);
            }
        });
    }
}
