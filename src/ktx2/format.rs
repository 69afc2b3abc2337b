//! The nine texel formats qtangent writes, one row each: Vulkan number, block size, typeSize and
//! the data format descriptor (DFD) the KTX 2.0 file holds for it (module docs of
//! [`super`]).

use super::put_u32;

const SAMPLE_LEN: usize = 16;
const MODEL_RGBSDA: u8 = 1;
const MODEL_BC5: u8 = 132;
const MODEL_BC7: u8 = 134;
const PRIMARIES_BT709: u8 = 1;
const TRANSFER_LINEAR: u8 = 1;
/// Sample qualifier bits, in the byte that also holds the 4-bit channelType.
const SIGNED: u8 = 0x40;
const FLOAT: u8 = 0x80;
/// Offset of the first sample in the DFD (dfdTotalSize, block header, 16 fixed bytes).
#[cfg(feature = "ktx2")]
pub(super) const DFD_SAMPLES: usize = 28;
/// Bytes of one DFD sample.
#[cfg(feature = "ktx2")]
pub(super) const DFD_SAMPLE_LEN: usize = SAMPLE_LEN;
/// The sample qualifier bit a reader ignores: LINEAR (0x10) only matters for a non-linear
/// transfer function.
#[cfg(feature = "ktx2")]
pub(super) const LINEAR: u8 = 0x10;

/// The texel formats qtangent writes, with their Vulkan numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexelFormat {
    /// `VK_FORMAT_R8_SNORM` (10): the optional handedness plane.
    R8Snorm,
    /// `VK_FORMAT_R8G8B8A8_UNORM` (37): an 8-bit material texture (e.g. an anisotropy map).
    Rgba8Unorm,
    /// `VK_FORMAT_R8G8B8A8_SNORM` (38).
    Rgba8Snorm,
    /// `VK_FORMAT_R16G16B16A16_SNORM` (92).
    Rgba16Snorm,
    /// `VK_FORMAT_R16G16B16A16_SFLOAT` (97).
    Rgba16Float,
    /// `VK_FORMAT_R32G32B32A32_SFLOAT` (109).
    Rgba32Float,
    /// `VK_FORMAT_BC5_UNORM_BLOCK` (141): two channels, 16 bytes a 4 × 4 block; what engines
    /// ship a normal map's (x, y) in (the lab's engine-BC5 copies; the maps are SNORM).
    Bc5Unorm,
    /// `VK_FORMAT_BC5_SNORM_BLOCK` (142): two channels, 16 bytes a 4 × 4 block.
    Bc5Snorm,
    /// `VK_FORMAT_BC7_UNORM_BLOCK` (145): 16 bytes a 4 × 4 block.
    Bc7Unorm,
}

crate::names::named!(TexelFormat, "texel format", {
    R8Snorm => "r8snorm",
    Rgba8Unorm => "rgba8unorm",
    Rgba8Snorm => "rgba8snorm",
    Rgba16Snorm => "rgba16snorm",
    Rgba16Float => "rgba16float",
    Rgba32Float => "rgba32float",
    Bc5Unorm => "bc5unorm",
    Bc5Snorm => "bc5snorm",
    Bc7Unorm => "bc7unorm",
});

/// A DFD sample: channelType, bitOffset, bitLength.
type Sample = (u8, u16, u16);

/// What the specs fix for a format (see the module docs of [`super`] for the DFD fields).
struct Spec {
    vk: u32,
    /// Texel block edge: 1, or 4 for BC.
    block: u32,
    bytes_per_block: u32,
    type_size: u32,
    model: u8,
    qualifiers: u8,
    /// sampleLower and sampleUpper, two's complement for negatives.
    bounds: [i64; 2],
    samples: &'static [Sample],
}

impl TexelFormat {
    #[rustfmt::skip]
    const fn spec(self) -> Spec {
        const R8: &[Sample] = &[(0, 0, 8)];
        const RGBA8: &[Sample] = &[(0, 0, 8), (1, 8, 8), (2, 16, 8), (15, 24, 8)];
        const RGBA16: &[Sample] = &[(0, 0, 16), (1, 16, 16), (2, 32, 16), (15, 48, 16)];
        const RGBA32: &[Sample] = &[(0, 0, 32), (1, 32, 32), (2, 64, 32), (15, 96, 32)];
        const BC5: &[Sample] = &[(0, 0, 64), (1, 64, 64)];
        const BC7: &[Sample] = &[(0, 0, 128)];
        const S: u8 = SIGNED;
        const SF: u8 = SIGNED | FLOAT;
        const F: [i64; 2] = [(-1.0f32).to_bits() as i64, 1.0f32.to_bits() as i64];
        const I32: [i64; 2] = [i32::MIN as i64, i32::MAX as i64];
        const U32: [i64; 2] = [0, u32::MAX as i64];
        const RGBSDA: u8 = MODEL_RGBSDA;
        use TexelFormat as T;
        // (vkFormat, block edge, bytes per block, typeSize), colorModel, qualifiers,
        // [sampleLower, sampleUpper], samples.
        let ((vk, block, bytes_per_block, type_size), model, qualifiers, bounds, samples) =
            match self {
                T::R8Snorm => ((10, 1, 1, 1), RGBSDA, S, [-127, 127], R8),
                T::Rgba8Unorm => ((37, 1, 4, 1), RGBSDA, 0, [0, 255], RGBA8),
                T::Rgba8Snorm => ((38, 1, 4, 1), RGBSDA, S, [-127, 127], RGBA8),
                T::Rgba16Snorm => ((92, 1, 8, 2), RGBSDA, S, [-32767, 32767], RGBA16),
                T::Rgba16Float => ((97, 1, 8, 2), RGBSDA, SF, F, RGBA16),
                T::Rgba32Float => ((109, 1, 16, 4), RGBSDA, SF, F, RGBA32),
                T::Bc5Unorm => ((141, 4, 16, 1), MODEL_BC5, 0, U32, BC5),
                T::Bc5Snorm => ((142, 4, 16, 1), MODEL_BC5, S, I32, BC5),
                T::Bc7Unorm => ((145, 4, 16, 1), MODEL_BC7, 0, U32, BC7),
            };
        Spec { vk, block, bytes_per_block, type_size, model, qualifiers, bounds, samples }
    }

    /// The `VkFormat` number, as the header's vkFormat holds it.
    #[must_use]
    pub(crate) const fn vk_format(self) -> u32 {
        self.spec().vk
    }

    /// The format whose [`vk_format`](Self::vk_format) is `v`; `None` for any other number.
    #[must_use]
    pub(crate) fn from_vk_format(v: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.vk_format() == v)
    }

    /// Texel block width and height: (1, 1), or (4, 4) for BC5 and BC7.
    #[must_use]
    pub(crate) const fn block_size(self) -> (u32, u32) {
        (self.spec().block, self.spec().block)
    }

    /// Bytes in one texel block: typeSize · channels for the plain formats, 16 for BC5 and BC7.
    #[must_use]
    pub(crate) const fn bytes_per_block(self) -> u32 {
        self.spec().bytes_per_block
    }

    /// The header's typeSize: bytes of one component; 1 for BC5 and BC7 (`_BLOCK` formats).
    #[must_use]
    pub(crate) const fn type_size(self) -> u32 {
        self.spec().type_size
    }

    /// Bytes of a `width` × `height` level: whole blocks in each direction (a 1 × 1 BC level
    /// takes one 16-byte block) times [`bytes_per_block`](Self::bytes_per_block). 0 when a
    /// size is 0; saturates at `usize::MAX`.
    #[must_use]
    pub(crate) fn level_bytes(self, width: u32, height: u32) -> usize {
        let (bw, bh) = self.block_size();
        let blocks = u64::from(width.div_ceil(bw)) * u64::from(height.div_ceil(bh));
        let bytes = blocks.saturating_mul(u64::from(self.bytes_per_block()));
        usize::try_from(bytes).unwrap_or(usize::MAX)
    }

    /// Alignment of every level's first byte in the file, lcm(bytes per block, 4) as the
    /// spec's mipPadding makes it: 4, 4, 4, 8, 8, 16, 16, 16, 16 in [`ALL`](Self::ALL)'s order.
    #[must_use]
    pub(crate) const fn mip_alignment(self) -> usize {
        let b = self.bytes_per_block() as usize;
        match b % 4 {
            0 => b,
            2 => 2 * b,
            _ => 4 * b,
        }
    }

    /// The whole DFD section: dfdTotalSize, then the Basic block (see the module docs of
    /// [`super`]).
    pub(super) fn dfd(self) -> Vec<u8> {
        let spec = self.spec();
        let block_len = 24 + SAMPLE_LEN * spec.samples.len();
        let (edge, bytes) = (spec.block as u8, spec.bytes_per_block as u8);
        let [lower, upper] = spec.bounds.map(|b| b as u32); // two's complement for negatives
        let mut d = Vec::with_capacity(4 + block_len);
        put_u32(&mut d, (4 + block_len) as u32); // dfdTotalSize
        put_u32(&mut d, 0); // vendorId 0 (Khronos, 17 bits), descriptorType 0 (basic, 15 bits)
        d.extend(2u16.to_le_bytes()); // versionNumber
        d.extend((block_len as u16).to_le_bytes()); // descriptorBlockSize
        d.extend([spec.model, PRIMARIES_BT709, TRANSFER_LINEAR, 0]); // flags 0: straight alpha
        d.extend([edge - 1, edge - 1, 0, 0]); // texelBlockDimension0..3
        d.extend([bytes, 0, 0, 0, 0, 0, 0, 0]); // bytesPlane0..7
        for &(channel, bit_offset, bit_length) in spec.samples {
            d.extend(bit_offset.to_le_bytes());
            d.extend([(bit_length - 1) as u8, channel | spec.qualifiers]);
            d.extend([0; 4]); // samplePosition0..3
            put_u32(&mut d, lower);
            put_u32(&mut d, upper);
        }
        d
    }
}

#[cfg(all(test, feature = "ktx2"))]
#[path = "../../tests/unit/ktx2/format.rs"]
mod tests;
