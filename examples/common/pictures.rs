//! Pictures a person reads: a difference heatmap of two renders, and sheets of images side by
//! side or stacked. Included by the command (`cli/`), the examples and the lab
//! (`#[path = "<relative path>/examples/common/pictures.rs"] mod pictures;`) and
//! by the tests' helpers, which write the same heatmap beside a failing comparison.

#![allow(dead_code)] // each user takes what it needs

use image::{Rgba, RgbaImage};

/// Images that cannot be combined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PictureError {
    /// Two images differ in size where they must not (width × height of each).
    Size((u32, u32), (u32, u32)),
    /// No images were given.
    NoImages,
}

impl std::fmt::Display for PictureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Size(a, b) => write!(
                f,
                "images differ in size: {}×{} and {}×{}",
                a.0, a.1, b.0, b.1
            ),
            Self::NoImages => write!(f, "no images"),
        }
    }
}

impl std::error::Error for PictureError {}

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
/// [`PictureError::Size`] when the sizes differ.
pub fn heatmap(a: &RgbaImage, b: &RgbaImage) -> Result<RgbaImage, PictureError> {
    if a.dimensions() != b.dimensions() {
        return Err(PictureError::Size(a.dimensions(), b.dimensions()));
    }
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
/// [`PictureError`] when heights differ or there are no images.
pub fn side_by_side(images: &[&RgbaImage], gap: u32) -> Result<RgbaImage, PictureError> {
    let Some(first) = images.first() else {
        return Err(PictureError::NoImages);
    };
    let h = first.height();
    if let Some(bad) = images.iter().find(|i| i.height() != h) {
        return Err(PictureError::Size(first.dimensions(), bad.dimensions()));
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
/// [`PictureError::NoImages`] when there are none.
pub fn stacked(images: &[&RgbaImage], gap: u32) -> Result<RgbaImage, PictureError> {
    if images.is_empty() {
        return Err(PictureError::NoImages);
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
