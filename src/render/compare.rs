//! Comparing two renders: PSNR and the largest per-pixel error (the pictures made from them are
//! the tools', `examples/common/pictures.rs`).

use image::RgbaImage;

/// Differences between two 8-bit RGBA images over their RGB channels (alpha is ignored).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageDiff {
    /// Peak signal-to-noise ratio in dB, `10 log10(255² / MSE)` over every compared channel;
    /// `f64::INFINITY` for identical images.
    pub psnr_db: f64,
    /// Largest absolute difference of any channel of any compared pixel, in 8-bit levels.
    pub max_error: u8,
    /// Pixels compared.
    pub pixels: usize,
    /// Compared pixels with any channel different.
    pub differing: usize,
}

impl std::fmt::Display for ImageDiff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = 100.0 * self.differing as f64 / self.pixels.max(1) as f64;
        if self.psnr_db.is_infinite() {
            write!(f, "identical over {} pixels", self.pixels)
        } else {
            write!(
                f,
                "PSNR {:.2} dB, max error {} levels, {:.2}% of {} pixels differ",
                self.psnr_db, self.max_error, pct, self.pixels
            )
        }
    }
}

/// Two images that cannot be compared or combined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageDiffError {
    /// The images differ in size.
    #[error("images differ in size: {}×{} and {}×{}", .first.0, .first.1, .second.0, .second.1)]
    Size {
        /// Width and height of the first.
        first: (u32, u32),
        /// Width and height of the second.
        second: (u32, u32),
    },
    /// The mask does not have one entry per pixel.
    #[error("the mask has {entries} entries for {pixels} pixels")]
    Mask {
        /// Entries in the mask.
        entries: usize,
        /// Pixels in the images.
        pixels: usize,
    },
}

fn same_size(a: &RgbaImage, b: &RgbaImage) -> Result<(), ImageDiffError> {
    if a.dimensions() == b.dimensions() {
        Ok(())
    } else {
        Err(ImageDiffError::Size {
            first: a.dimensions(),
            second: b.dimensions(),
        })
    }
}

/// Compares `a` and `b` over the pixels where `mask` is true (all pixels when `None`).
///
/// # Errors
/// [`ImageDiffError`] when the sizes differ, or the mask does not have one entry per pixel.
pub fn diff(
    a: &RgbaImage,
    b: &RgbaImage,
    mask: Option<&[bool]>,
) -> Result<ImageDiff, ImageDiffError> {
    same_size(a, b)?;
    let n = a.width() as usize * a.height() as usize;
    if let Some(m) = mask {
        if m.len() != n {
            return Err(ImageDiffError::Mask {
                entries: m.len(),
                pixels: n,
            });
        }
    }
    let mut sum_sq = 0u64;
    let mut max_error = 0u8;
    let mut pixels = 0usize;
    let mut differing = 0usize;
    for (i, (pa, pb)) in a.pixels().zip(b.pixels()).enumerate() {
        if mask.is_some_and(|m| !m[i]) {
            continue;
        }
        pixels += 1;
        let mut any = false;
        for c in 0..3 {
            let d = pa[c].abs_diff(pb[c]);
            sum_sq += u64::from(d) * u64::from(d);
            max_error = max_error.max(d);
            any |= d != 0;
        }
        differing += usize::from(any);
    }
    let mse = sum_sq as f64 / (3 * pixels.max(1)) as f64;
    let psnr_db = if sum_sq == 0 {
        f64::INFINITY
    } else {
        10.0 * (255.0f64 * 255.0 / mse).log10()
    };
    Ok(ImageDiff {
        psnr_db,
        max_error,
        pixels,
        differing,
    })
}
