//! The crate's one BC decoder: BC1–BC7 blocks to texels, over `bcdec_rs` (a maintained pure-Rust
//! port of bcdec). KTX2 images (`image/`) and quaternion maps (`qmap::bc`) decode through it;
//! `block_compression` stays the encoder.
//!
//! Per block the decoder gives 16 texels, row by row, as RGBA: 8-bit with
//! [`BcFormat::block_rgba8`] (what the D3D11 / Vulkan specs define for BC1–BC3 and BC7; BC4
//! and BC5 palettes rounded to bytes, SNORM ones as two's-complement bytes), or f32 with
//! [`BcFormat::block_f32`] (BC4 and BC5 palettes interpolated in f32 from endpoints e/255
//! (UNORM) or max(e, −127)/127 (SNORM), −128 and −127 both −1; BC6H's floats; the others'
//! bytes / 255).
//! Channels a format lacks read as a GPU samples them: G = B = 0, A = 1.
//!
//! BC1 RGB formats are opaque: the 3-colour mode's fourth entry is black with alpha 255, as
//! Vulkan specifies; the RGBA formats keep it transparent.
//!
//! One difference from the D3D11 functional spec: bcdec picks the BC4 SNORM mode by comparing
//! the endpoints after −128 becomes −127, the spec the raw bytes, so the one endpoint pair
//! (−127, −128) decodes in six-value mode (entries −1 and +1) where the spec has eight (all
//! −1). `qmap::bc`'s encoder never writes −128.

/// A block-compressed format as the decoder reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// Maps use BC5 and BC7; the image decoder (feature `ktx2`) all of them.
#[cfg_attr(not(feature = "ktx2"), allow(dead_code))]
pub(crate) enum BcFormat {
    /// BC1; `opaque` for the RGB formats (alpha always 255).
    Bc1 {
        /// The RGB formats: the 3-colour mode's black is opaque.
        opaque: bool,
    },
    /// BC2: BC1 colour with 4-bit alpha.
    Bc2,
    /// BC3: BC1 colour with BC4 alpha.
    Bc3,
    /// BC4: one channel.
    Bc4 {
        /// SNORM rather than UNORM.
        snorm: bool,
    },
    /// BC5: two BC4 channels.
    Bc5 {
        /// SNORM rather than UNORM.
        snorm: bool,
    },
    /// BC6H: RGB half floats.
    Bc6h {
        /// SFLOAT rather than UFLOAT.
        signed: bool,
    },
    /// BC7: RGBA.
    Bc7,
}

/// Texel edge of a block.
const EDGE: usize = 4;

impl BcFormat {
    /// Bytes in one 4 × 4 block: 8 for BC1 and BC4, 16 for the others.
    pub(crate) const fn block_bytes(self) -> usize {
        match self {
            Self::Bc1 { .. } | Self::Bc4 { .. } => 8,
            _ => 16,
        }
    }

    /// Bytes of a `width` × `height` level: whole blocks in each direction.
    pub(crate) fn level_bytes(self, width: u32, height: u32) -> u64 {
        let blocks = u64::from(width.div_ceil(4)) * u64::from(height.div_ceil(4));
        blocks * self.block_bytes() as u64
    }

    /// One block's 16 texels as 8-bit RGBA (module docs). BC6H, which has no 8-bit reading,
    /// gives its floats clamped to [0, 1] in bytes.
    pub(crate) fn block_rgba8(self, block: &[u8]) -> [[u8; 4]; 16] {
        let mut texels = [[0, 0, 0, u8::MAX]; 16];
        let mut rgba = [0u8; 64];
        match self {
            Self::Bc1 { opaque } => {
                bcdec_rs::bc1(block, &mut rgba, 4 * EDGE);
                if opaque {
                    rgba.chunks_exact_mut(4).for_each(|t| t[3] = u8::MAX);
                }
            }
            Self::Bc2 => bcdec_rs::bc2(block, &mut rgba, 4 * EDGE),
            Self::Bc3 => bcdec_rs::bc3(block, &mut rgba, 4 * EDGE),
            Self::Bc7 => bcdec_rs::bc7(block, &mut rgba, 4 * EDGE),
            Self::Bc4 { snorm } => {
                let mut r = [0u8; 16];
                bcdec_rs::bc4(block, &mut r, EDGE, snorm);
                texels.iter_mut().zip(r).for_each(|(t, r)| t[0] = r);
                return texels;
            }
            Self::Bc5 { snorm } => {
                let mut rg = [0u8; 32];
                bcdec_rs::bc5(block, &mut rg, 2 * EDGE, snorm);
                for (t, v) in texels.iter_mut().zip(rg.chunks_exact(2)) {
                    t[..2].copy_from_slice(v);
                }
                return texels;
            }
            Self::Bc6h { .. } => {
                let floats = self.block_f32(block);
                return floats.map(|t| t.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8));
            }
        }
        for (t, v) in texels.iter_mut().zip(rgba.chunks_exact(4)) {
            t.copy_from_slice(v);
        }
        texels
    }

    /// One block's 16 texels as f32 RGBA (module docs).
    pub(crate) fn block_f32(self, block: &[u8]) -> [[f32; 4]; 16] {
        let mut texels = [[0.0, 0.0, 0.0, 1.0]; 16];
        match self {
            Self::Bc4 { snorm } => {
                let mut r = [0f32; 16];
                bcdec_rs::bc4_float(block, &mut r, EDGE, snorm);
                texels.iter_mut().zip(r).for_each(|(t, r)| t[0] = r);
            }
            Self::Bc5 { snorm } => {
                let mut rg = [0f32; 32];
                bcdec_rs::bc5_float(block, &mut rg, 2 * EDGE, snorm);
                for (t, v) in texels.iter_mut().zip(rg.chunks_exact(2)) {
                    t[..2].copy_from_slice(v);
                }
            }
            Self::Bc6h { signed } => {
                let mut rgb = [0f32; 48];
                bcdec_rs::bc6h_float(block, &mut rgb, 3 * EDGE, signed);
                for (t, v) in texels.iter_mut().zip(rgb.chunks_exact(3)) {
                    t[..3].copy_from_slice(v);
                }
            }
            _ => {
                let bytes = self.block_rgba8(block);
                return bytes.map(|t| t.map(|c| f32::from(c) / 255.0));
            }
        }
        texels
    }
}

/// Decodes a `width` × `height` level of `bc` blocks — `data` holds ⌈width / 4⌉ × ⌈height / 4⌉
/// of them, row by row — with `block` ([`BcFormat::block_rgba8`] or [`BcFormat::block_f32`])
/// into row-major texels, cropping the blocks' padding on the right and bottom.
///
/// # Panics
/// When `data` is not [`BcFormat::level_bytes`] long (the callers check it first).
pub(crate) fn decode_level<T: Copy + Default>(
    bc: BcFormat,
    width: u32,
    height: u32,
    data: &[u8],
    block: impl Fn(BcFormat, &[u8]) -> [[T; 4]; 16],
) -> Vec<[T; 4]> {
    assert_eq!(
        data.len() as u64,
        bc.level_bytes(width, height),
        "a {width}×{height} level of {bc:?} blocks"
    );
    let (w, h) = (width as usize, height as usize);
    let blocks_x = w.div_ceil(EDGE);
    let mut out = vec![[T::default(); 4]; w * h];
    for (i, bytes) in data.chunks_exact(bc.block_bytes()).enumerate() {
        let (bx, by) = (i % blocks_x * EDGE, i / blocks_x * EDGE);
        let texels = block(bc, bytes);
        for (row, y) in texels.chunks_exact(EDGE).zip(by..h.min(by + EDGE)) {
            for (texel, x) in row.iter().zip(bx..w.min(bx + EDGE)) {
                out[y * w + x] = *texel;
            }
        }
    }
    out
}
