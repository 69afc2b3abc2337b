//! Comparing two renders: PSNR, the largest per-pixel error, and a difference heatmap a person
//! can read.

use image::{Rgba, RgbaImage};

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
    /// No images were given.
    #[error("no images")]
    NoImages,
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

/// Full scale of [`heatmap`]: a difference of this many 8-bit levels (or more) is white.
pub const HEATMAP_FULL_SCALE: u8 = 16;

/// The heatmap's colour for `t` in [0, 1]: black → blue → magenta → orange → white.
#[must_use]
pub fn heat_color(t: f32) -> [u8; 3] {
    const STOPS: [[f32; 3]; 5] = [
        [0.0, 0.0, 0.0],
        [0.1, 0.2, 0.9],
        [0.85, 0.1, 0.7],
        [1.0, 0.6, 0.1],
        [1.0, 1.0, 1.0],
    ];
    let x = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f32;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f32;
    let c = |k: usize| STOPS[i][k] + (STOPS[i + 1][k] - STOPS[i][k]) * f;
    [0, 1, 2].map(|k| (c(k) * 255.0).round() as u8)
}

/// A heatmap of the largest channel difference per pixel: black where the images agree, white
/// at [`HEATMAP_FULL_SCALE`] levels or more ([`heat_color`]).
///
/// # Errors
/// [`ImageDiffError::Size`] when the sizes differ.
pub fn heatmap(a: &RgbaImage, b: &RgbaImage) -> Result<RgbaImage, ImageDiffError> {
    same_size(a, b)?;
    let mut out = RgbaImage::new(a.width(), a.height());
    for ((pa, pb), po) in a.pixels().zip(b.pixels()).zip(out.pixels_mut()) {
        let d = (0..3).map(|c| pa[c].abs_diff(pb[c])).max().unwrap_or(0);
        let [r, g, bl] = heat_color(f32::from(d) / f32::from(HEATMAP_FULL_SCALE));
        *po = Rgba([r, g, bl, 255]);
    }
    Ok(out)
}

/// Images side by side in one row, with a `gap`-pixel dark gutter; all must have the same
/// height.
///
/// # Errors
/// [`ImageDiffError`] when heights differ or there are no images.
pub fn side_by_side(images: &[&RgbaImage], gap: u32) -> Result<RgbaImage, ImageDiffError> {
    let Some(first) = images.first() else {
        return Err(ImageDiffError::NoImages);
    };
    let h = first.height();
    if let Some(bad) = images.iter().find(|i| i.height() != h) {
        return Err(ImageDiffError::Size {
            first: first.dimensions(),
            second: bad.dimensions(),
        });
    }
    let w: u32 = images.iter().map(|i| i.width()).sum::<u32>() + gap * (images.len() as u32 - 1);
    let mut out = RgbaImage::from_pixel(w, h, Rgba([24, 24, 24, 255]));
    let mut x = 0;
    for img in images {
        image::imageops::replace(&mut out, *img, i64::from(x), 0);
        x += img.width() + gap;
    }
    Ok(out)
}

/// Images stacked top to bottom, left-aligned, with a `gap`-pixel dark gutter.
///
/// # Errors
/// [`ImageDiffError::NoImages`] when there are none.
pub fn stacked(images: &[&RgbaImage], gap: u32) -> Result<RgbaImage, ImageDiffError> {
    if images.is_empty() {
        return Err(ImageDiffError::NoImages);
    }
    let w = images.iter().map(|i| i.width()).max().unwrap_or(0);
    let h: u32 = images.iter().map(|i| i.height()).sum::<u32>() + gap * (images.len() as u32 - 1);
    let mut out = RgbaImage::from_pixel(w, h, Rgba([24, 24, 24, 255]));
    let mut y = 0;
    for img in images {
        image::imageops::replace(&mut out, *img, 0, i64::from(y));
        y += img.height() + gap;
    }
    Ok(out)
}
