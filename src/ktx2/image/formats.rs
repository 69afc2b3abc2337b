//! The vkFormats KTX2 images are decoded from, one row each, and the texel unpacking of the
//! uncompressed ones.

use crate::ktx2::bc::BcFormat;

/// How a format's texels are stored.
#[derive(Debug, Clone, Copy)]
pub(super) enum Layout {
    /// `channels` bytes a texel; B and R swapped when `bgr`; SNORM when `snorm`, else UNORM or
    /// sRGB (whose bytes are kept).
    Int8 {
        channels: usize,
        bgr: bool,
        snorm: bool,
    },
    /// `channels` little-endian u16 (UNORM) or i16 (SNORM) a texel.
    Int16 { channels: usize, snorm: bool },
    /// `channels` little-endian binary16 floats a texel.
    Half { channels: usize },
    /// `channels` little-endian binary32 floats a texel.
    Float { channels: usize },
    /// 4 × 4 texel blocks.
    Block(BcFormat),
}

impl Layout {
    /// Texel block edge: 1, or 4 for the block formats.
    pub(super) const fn block_edge(self) -> u8 {
        match self {
            Layout::Block(_) => 4,
            _ => 1,
        }
    }

    /// Bytes in a `width` × `height` level (at most 16 × 16384² for the sizes the decoder
    /// takes, so no overflow).
    pub(super) fn level_bytes(self, width: u32, height: u32) -> u64 {
        let texels = u64::from(width) * u64::from(height);
        match self {
            Layout::Int8 { channels, .. } => texels * channels as u64,
            Layout::Int16 { channels, .. } | Layout::Half { channels } => {
                texels * 2 * channels as u64
            }
            Layout::Float { channels } => texels * 4 * channels as u64,
            Layout::Block(bc) => bc.level_bytes(width, height),
        }
    }
}

// Short constructors for the table below.
const fn int8(channels: usize, bgr: bool, snorm: bool) -> Layout {
    Layout::Int8 {
        channels,
        bgr,
        snorm,
    }
}
const fn int16(channels: usize, snorm: bool) -> Layout {
    Layout::Int16 { channels, snorm }
}
const fn half(channels: usize) -> Layout {
    Layout::Half { channels }
}
const fn float(channels: usize) -> Layout {
    Layout::Float { channels }
}
const fn bc1(opaque: bool) -> Layout {
    Layout::Block(BcFormat::Bc1 { opaque })
}
const fn bc4(snorm: bool) -> Layout {
    Layout::Block(BcFormat::Bc4 { snorm })
}
const fn bc5(snorm: bool) -> Layout {
    Layout::Block(BcFormat::Bc5 { snorm })
}
const fn bc6h(signed: bool) -> Layout {
    Layout::Block(BcFormat::Bc6h { signed })
}

/// The supported vkFormats (Vulkan's numbers, which the tests take from the `ktx2` crate's
/// constants) and their layouts; the names are the `ktx2` crate's (in the error messages).
#[rustfmt::skip]
const FORMATS: [(u32, Layout); 50] = [
    (9, int8(1, false, false)),     // R8_UNORM
    (10, int8(1, false, true)),     // R8_SNORM
    (15, int8(1, false, false)),    // R8_SRGB
    (16, int8(2, false, false)),    // R8G8_UNORM
    (17, int8(2, false, true)),     // R8G8_SNORM
    (22, int8(2, false, false)),    // R8G8_SRGB
    (23, int8(3, false, false)),    // R8G8B8_UNORM
    (24, int8(3, false, true)),     // R8G8B8_SNORM
    (29, int8(3, false, false)),    // R8G8B8_SRGB
    (30, int8(3, true, false)),     // B8G8R8_UNORM
    (31, int8(3, true, true)),      // B8G8R8_SNORM
    (36, int8(3, true, false)),     // B8G8R8_SRGB
    (37, int8(4, false, false)),    // R8G8B8A8_UNORM
    (38, int8(4, false, true)),     // R8G8B8A8_SNORM
    (43, int8(4, false, false)),    // R8G8B8A8_SRGB
    (44, int8(4, true, false)),     // B8G8R8A8_UNORM
    (45, int8(4, true, true)),      // B8G8R8A8_SNORM
    (50, int8(4, true, false)),     // B8G8R8A8_SRGB
    (70, int16(1, false)),          // R16_UNORM
    (71, int16(1, true)),           // R16_SNORM
    (76, half(1)),                  // R16_SFLOAT
    (77, int16(2, false)),          // R16G16_UNORM
    (78, int16(2, true)),           // R16G16_SNORM
    (83, half(2)),                  // R16G16_SFLOAT
    (84, int16(3, false)),          // R16G16B16_UNORM
    (85, int16(3, true)),           // R16G16B16_SNORM
    (90, half(3)),                  // R16G16B16_SFLOAT
    (91, int16(4, false)),          // R16G16B16A16_UNORM
    (92, int16(4, true)),           // R16G16B16A16_SNORM
    (97, half(4)),                  // R16G16B16A16_SFLOAT
    (100, float(1)),                // R32_SFLOAT
    (103, float(2)),                // R32G32_SFLOAT
    (106, float(3)),                // R32G32B32_SFLOAT
    (109, float(4)),                // R32G32B32A32_SFLOAT
    (131, bc1(true)),               // BC1_RGB_UNORM_BLOCK
    (132, bc1(true)),               // BC1_RGB_SRGB_BLOCK
    (133, bc1(false)),              // BC1_RGBA_UNORM_BLOCK
    (134, bc1(false)),              // BC1_RGBA_SRGB_BLOCK
    (135, Layout::Block(BcFormat::Bc2)), // BC2_UNORM_BLOCK
    (136, Layout::Block(BcFormat::Bc2)), // BC2_SRGB_BLOCK
    (137, Layout::Block(BcFormat::Bc3)), // BC3_UNORM_BLOCK
    (138, Layout::Block(BcFormat::Bc3)), // BC3_SRGB_BLOCK
    (139, bc4(false)),              // BC4_UNORM_BLOCK
    (140, bc4(true)),               // BC4_SNORM_BLOCK
    (141, bc5(false)),              // BC5_UNORM_BLOCK
    (142, bc5(true)),               // BC5_SNORM_BLOCK
    (143, bc6h(false)),             // BC6H_UFLOAT_BLOCK
    (144, bc6h(true)),              // BC6H_SFLOAT_BLOCK
    (145, Layout::Block(BcFormat::Bc7)), // BC7_UNORM_BLOCK
    (146, Layout::Block(BcFormat::Bc7)), // BC7_SRGB_BLOCK
];

/// The layout of a supported vkFormat.
pub(super) fn layout(vk_format: u32) -> Option<Layout> {
    FORMATS
        .iter()
        .find(|(vk, _)| *vk == vk_format)
        .map(|&(_, layout)| layout)
}

/// Maps an 8-bit SNORM value to UNORM: round((clamp(s / 127, −1, 1) + 1) / 2 · 255), in
/// integers: with n = s + 127 in 0..=254, round(n · 255 / 254) = (n · 255 + 127) / 254 (the one
/// tie, n = 127, rounds up to 128 as `f32::round` does).
pub(super) fn snorm8(byte: u8) -> u8 {
    let s = i16::from(i8::from_le_bytes([byte])).max(-127);
    let n = u32::from((s + 127).unsigned_abs());
    u8::try_from((n * 255 + 127) / 254).unwrap_or(u8::MAX)
}

/// Maps a 16-bit SNORM value to UNORM: round((clamp(s / 32767, −1, 1) + 1) / 2 · 65535) =
/// (n · 65535 + 32767) / 65534 with n = s + 32767 (as [`snorm8`]).
pub(super) fn snorm16(lo: u8, hi: u8) -> u16 {
    let s = i32::from(i16::from_le_bytes([lo, hi])).max(-32767);
    let n = u64::from((s + 32767).unsigned_abs());
    u16::try_from((n * 65535 + 32767) / 65534).unwrap_or(u16::MAX)
}

/// Unpacks texels of `channels` values of `size` bytes each into RGBA, missing channels taken
/// from `fill`, B and R swapped when `bgr`.
pub(super) fn unpack<T: Copy>(
    data: &[u8],
    size: usize,
    channels: usize,
    bgr: bool,
    fill: [T; 4],
    read: impl Fn(&[u8]) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(data.len() / (size * channels) * 4);
    for texel in data.chunks_exact(size * channels) {
        let mut rgba = fill;
        for (dst, value) in rgba.iter_mut().zip(texel.chunks_exact(size)) {
            *dst = read(value);
        }
        if bgr {
            rgba.swap(0, 2);
        }
        out.extend_from_slice(&rgba);
    }
    out
}
