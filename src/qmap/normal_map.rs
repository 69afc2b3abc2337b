//! Tangent-space normal maps as the bake reads them: unpacked vectors `(2c − 1)` with x and y
//! multiplied by the glTF `normalTexture.scale`, in f32, sampled bilinearly with repeat
//! wrapping. The GPU baker uploads exactly these values and filters them by hand (four
//! `textureLoad`s, f32 weights), so both bakers see the same numbers.
//!
//! Convention: glTF's (OpenGL's) +Y: green is the bitangent direction, red the tangent (u)
//! direction, blue the normal.

use std::path::Path;

use glam::{Vec2, Vec3};

use super::BakeError;
use crate::mesh::ImageSource;

/// An unpacked tangent-space normal map.
#[derive(Debug, Clone, PartialEq)]
pub struct NormalMap {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Row-major vectors (not normalised: bilinear filtering comes first, then normalisation).
    pub texels: Vec<Vec3>,
}

impl NormalMap {
    /// Unpacks an image's RGB (8 or 16 bits per channel) as `2c − 1`, x and y times `scale`.
    #[must_use]
    pub(crate) fn from_image(image: &image::DynamicImage, scale: f32) -> Self {
        let rgb = image.to_rgb32f();
        let (width, height) = rgb.dimensions();
        let texels = rgb
            .pixels()
            .map(|p| {
                let v = Vec3::new(p[0], p[1], p[2]) * 2.0 - 1.0;
                Vec3::new(v.x * scale, v.y * scale, v.z)
            })
            .collect();
        Self {
            width,
            height,
            texels,
        }
    }

    /// The map as an 8-bit RGB(A) image, `round((v + 1) / 2 · 255)` per channel, alpha 255: how
    /// a procedural map is stored for a renderer. Inverse of `NormalMap::from_image` with scale
    /// 1 to within half a level (1/255 in the unpacked vector); components outside [−1, 1] clamp.
    #[must_use]
    pub(crate) fn to_rgba8(&self) -> image::RgbaImage {
        let level = |c: f32| ((c.clamp(-1.0, 1.0) + 1.0) * 0.5 * 255.0).round() as u8;
        let mut img = image::RgbaImage::new(self.width, self.height);
        for (p, v) in img.pixels_mut().zip(&self.texels) {
            *p = image::Rgba([level(v.x), level(v.y), level(v.z), 255]);
        }
        img
    }

    /// Decodes a material's normal texture (PNG or JPEG; file, data URI or embedded bytes).
    /// `mesh_file` is the mesh the reference came from, for error messages.
    ///
    /// # Errors
    /// [`BakeError::Image`] naming the image and what failed.
    pub(crate) fn load(
        source: &ImageSource,
        scale: f32,
        mesh_file: &Path,
    ) -> Result<Self, BakeError> {
        let fail = |what: String, problem: String| BakeError::Image {
            mesh: mesh_file.to_path_buf(),
            image: what,
            problem,
        };
        let name = source.to_string();
        let image = source
            .decode()
            .map_err(|e| fail(name.clone(), e.to_string()))?;
        let map = Self::from_image(&image, scale);
        if map.texels.iter().any(|v| !v.is_finite()) {
            return Err(fail(name, "the image has non-finite values".into()));
        }
        Ok(map)
    }

    /// A procedural normal map of `size`² texels from a height field `h(u, v)` (periodic on the
    /// unit square), by central differences: `normalize(−∂h/∂u, ∂h/∂v, 1)` in texel units
    /// scaled by `strength` (v grows downwards, so ∂/∂v is negated for the +Y-up convention).
    #[must_use]
    pub(crate) fn from_height(size: u32, strength: f32, h: impl Fn(f32, f32) -> f32) -> Self {
        let s = size as f32;
        let mut texels = Vec::with_capacity((size * size) as usize);
        for y in 0..size {
            for x in 0..size {
                let (u, v) = ((x as f32 + 0.5) / s, (y as f32 + 0.5) / s);
                let du = (h(u + 1.0 / s, v) - h(u - 1.0 / s, v)) * 0.5 * strength;
                let dv = (h(u, v + 1.0 / s) - h(u, v - 1.0 / s)) * 0.5 * strength;
                texels.push(Vec3::new(-du, dv, 1.0).normalize());
            }
        }
        Self {
            width: size,
            height: size,
            texels,
        }
    }

    /// The embedded default's normal map: a swirl of ridges and a grid of bumps, 256².
    #[must_use]
    pub fn default_swirl() -> Self {
        use std::f32::consts::TAU;
        Self::from_height(256, 6.0, |u, v| {
            let ridges = (TAU * (8.0 * u + 2.0 * (TAU * v).sin())).sin();
            let bumps = (TAU * 6.0 * u).sin() * (TAU * 3.0 * v).sin();
            0.5 * ridges + 0.5 * bumps
        })
    }

    /// Bilinear sample at `uv` (texel centres at `(i + ½) / size`), repeat wrapping, unnormalised.
    /// Mirrors `sample_normal_map` in `shaders/bake.wgsl`.
    #[must_use]
    pub(crate) fn sample(&self, uv: Vec2) -> Vec3 {
        let s = Vec2::new(
            uv.x * self.width as f32 - 0.5,
            uv.y * self.height as f32 - 0.5,
        );
        let i0 = s.floor();
        let f = s - i0;
        let wrap = |i: f32, n: u32| (i as i64).rem_euclid(i64::from(n)) as usize;
        let (x0, y0) = (wrap(i0.x, self.width), wrap(i0.y, self.height));
        let (x1, y1) = (wrap(i0.x + 1.0, self.width), wrap(i0.y + 1.0, self.height));
        let at = |x: usize, y: usize| self.texels[y * self.width as usize + x];
        let top = at(x0, y0) * (1.0 - f.x) + at(x1, y0) * f.x;
        let bottom = at(x0, y1) * (1.0 - f.x) + at(x1, y1) * f.x;
        top * (1.0 - f.y) + bottom * f.y
    }

    /// A flat normal map's full mip chain, `w × h` down to 1 × 1: every texel (0, 0, 1). The
    /// levels of a tangent-space map that only twists (an anisotropy direction, a brushed
    /// field).
    #[must_use]
    pub(crate) fn flat_levels(w: u32, h: u32) -> Vec<Self> {
        let (mut w, mut h) = (w.max(1), h.max(1));
        let mut levels = Vec::new();
        loop {
            levels.push(Self {
                width: w,
                height: h,
                texels: vec![Vec3::Z; (w * h) as usize],
            });
            if w == 1 && h == 1 {
                return levels;
            }
            w = (w / 2).max(1);
            h = (h / 2).max(1);
        }
    }

    /// The map's mip levels below this one, down to 1 × 1: each level the previous halved
    /// (rounded down, at least 1) with the 2 × 2 box filter `normal_mip_chain` gives the
    /// renderer's 8-bit levels, here on the unpacked vectors (the filter is linear, so the
    /// `scale` applied before filtering is the scale applied after).
    #[must_use]
    pub(crate) fn coarser_levels(&self) -> Vec<Self> {
        let mut levels: Vec<Self> = Vec::new();
        loop {
            let last = levels.last().unwrap_or(self);
            if last.width == 1 && last.height == 1 {
                return levels;
            }
            let next = last.halved();
            levels.push(next);
        }
    }

    /// This map at half size (rounded down, at least 1), each texel the mean of the 2 × 2 texels
    /// it covers ([`box_half`]).
    fn halved(&self) -> Self {
        let (w, h) = (self.width as usize, self.height as usize);
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let texels = (0..nh)
            .flat_map(|y| (0..nw).map(move |x| (x, y)))
            .map(|(x, y)| {
                let [x0, x1] = box_half(w, x);
                let [y0, y1] = box_half(h, y);
                let at = |x: usize, y: usize| self.texels[y * w + x];
                (at(x0, y0) + at(x1, y0) + at(x0, y1) + at(x1, y1)) * 0.25
            })
            .collect();
        Self {
            width: nw as u32,
            height: nh as u32,
            texels,
        }
    }

    /// The normal maps of an 8-bit normal texture's mip chain (`mip_chain`), each unpacked
    /// with `scale` as `NormalMap::from_image` does: what a renderer samples at each level,
    /// so a tangent-space map baked from these levels filters like the normal map it replaces.
    #[must_use]
    pub(crate) fn levels_from_rgba8(image: &image::RgbaImage, scale: f32) -> Vec<Self> {
        normal_mip_chain(image)
            .into_iter()
            .map(|l| Self::from_image(&image::DynamicImage::ImageRgba8(l), scale))
            .collect()
    }
}

/// An 8-bit normal texture as a shipping engine stores it, BC5, every level of the renderer's
/// mip chain (`normal_mip_chain`) compressed: red and green block-compressed as BC5 UNORM of
/// their bytes (`super::bc`, the 8-bit source's lattice) and decoded again (x, y as `2c − 1`), blue rebuilt as `z = √(1 − x² − y²)`, everything
/// written back as 8-bit RGBA (alpha 255) — what a renderer that samples a BC5 normal map sees,
/// up to the 8-bit rounding of the result. Level 0 first.
///
/// # Errors
/// [`super::bc::BcError`] for a level 0 BC cannot take (not a multiple of 4).
#[cfg(feature = "render")]
pub(crate) fn bc5_round_trip_chain(
    img: &image::RgbaImage,
) -> Result<Vec<image::RgbaImage>, super::bc::BcError> {
    bc5_chain(img, Bc5Rest::NormalZ)
}

/// A KHR_materials_anisotropy texture as an engine ships its direction, BC5: every level of
/// the renderer's mip chain (`mip_chain`, the same filter the uncompressed texture gets) with
/// red and green (the direction, `2c − 1`) through BC5 UNORM of their bytes and back, as
/// [`bc5_round_trip_chain`] does for a normal map; blue (the strength) and alpha kept as they
/// are. Level 0 first.
///
/// # Errors
/// [`super::bc::BcError`] for a level 0 BC cannot take (not a multiple of 4).
#[cfg(feature = "render")]
pub(crate) fn bc5_direction_chain(
    img: &image::RgbaImage,
) -> Result<Vec<image::RgbaImage>, super::bc::BcError> {
    bc5_chain(img, Bc5Rest::Keep)
}

/// What a BC5 round trip writes to blue and alpha, which BC5 does not store.
#[cfg(feature = "render")]
#[derive(Clone, Copy)]
enum Bc5Rest {
    /// A normal map: blue `z = √(1 − x² − y²)`, alpha 255.
    NormalZ,
    /// Blue and alpha of the level as they were (an anisotropy texture's strength).
    Keep,
}

#[cfg(feature = "render")]
fn bc5_chain(
    img: &image::RgbaImage,
    rest: Bc5Rest,
) -> Result<Vec<image::RgbaImage>, super::bc::BcError> {
    let (w, h) = img.dimensions();
    super::bc::check_size(w, h)?;
    let levels = match rest {
        Bc5Rest::NormalZ => normal_mip_chain(img),
        Bc5Rest::Keep => mip_chain(img),
    };
    levels.iter().map(|l| bc5_level(l, rest)).collect()
}

/// One level through BC5 UNORM of its bytes and back, as an engine ships an 8-bit normal map
/// (the texels `c/255` to the encoder, so the compressed lattice is the source's; any size:
/// the encoder pads the last blocks).
#[cfg(feature = "render")]
fn bc5_level(
    img: &image::RgbaImage,
    rest: Bc5Rest,
) -> Result<image::RgbaImage, super::bc::BcError> {
    let (w, h) = img.dimensions();
    let rg: Vec<[f32; 2]> = img
        .pixels()
        .map(|p| [f32::from(p[0]) / 255.0, f32::from(p[1]) / 255.0])
        .collect();
    let blocks = super::bc::encode_bc5_unorm(w, h, &rg, super::bc::BcEncoder::default())?;
    let back = super::bc::decode_bc5_unorm(w, h, &blocks)?;
    let back = back
        .into_iter()
        .map(|[r, g]| [r * 2.0 - 1.0, g * 2.0 - 1.0]);
    let level = |c: f32| ((c.clamp(-1.0, 1.0) + 1.0) * 0.5 * 255.0).round() as u8;
    let mut out = image::RgbaImage::new(w, h);
    for ((p, [x, y]), src) in out.pixels_mut().zip(back).zip(img.pixels()) {
        *p = match rest {
            Bc5Rest::NormalZ => {
                let z = (1.0 - x * x - y * y).max(0.0).sqrt();
                image::Rgba([level(x), level(y), level(z), 255])
            }
            Bc5Rest::Keep => image::Rgba([level(x), level(y), src[2], src[3]]),
        };
    }
    Ok(out)
}

/// The two texels of a side of `m` that output texel `i` of the half-size side averages: `2i`
/// and `2i + 1`, clamped to the side (a side of 1 averages its one texel twice; an odd side's
/// last texel is left out, as a 2 × 2 box filter halving it leaves it). The box filter is what
/// engines build mips with (WebGL's `generateMipmap`, Bevy's and most tools'), so a map whose
/// levels are built the same way filters as the normal map an engine draws (docs/MAPS.md,
/// "What readers lose").
fn box_half(m: usize, i: usize) -> [usize; 2] {
    [(2 * i).min(m - 1), (2 * i + 1).min(m - 1)]
}

/// The mip chain of an 8-bit image as the renderer uploads it: level k+1 is level k resized to
/// half (rounded down, at least 1) with a triangle filter, down to 1×1; level 0 first.
#[cfg(feature = "render")]
#[must_use]
pub(crate) fn mip_chain(img: &image::RgbaImage) -> Vec<image::RgbaImage> {
    chain(img, |last| {
        let (w, h) = last.dimensions();
        image::imageops::resize(
            last,
            (w / 2).max(1),
            (h / 2).max(1),
            image::imageops::FilterType::Triangle,
        )
    })
}

/// The mip chain of an 8-bit normal texture as engines build it and the renderer uploads it:
/// level k+1 is level k halved (rounded down, at least 1) with a 2 × 2 box filter
/// ([`box_half`]; each channel the rounded mean), down to 1×1; level 0 first. The box filter is
/// what WebGL's `generateMipmap` and engines' importers use; the tangent-space maps are baked
/// from these levels, so a reader draws the map with the filtering it gives the normal map
/// (docs/MAPS.md, "What readers lose"). Other textures keep [`mip_chain`].
#[must_use]
pub(crate) fn normal_mip_chain(img: &image::RgbaImage) -> Vec<image::RgbaImage> {
    chain(img, |last| {
        let (w, h) = last.dimensions();
        image::RgbaImage::from_fn((w / 2).max(1), (h / 2).max(1), |x, y| {
            let [x0, x1] = box_half(w as usize, x as usize).map(|v| v as u32);
            let [y0, y1] = box_half(h as usize, y as usize).map(|v| v as u32);
            let p = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].map(|(x, y)| last.get_pixel(x, y).0);
            image::Rgba(std::array::from_fn(|c| {
                let sum: u32 = p.iter().map(|t| u32::from(t[c])).sum();
                ((sum + 2) / 4) as u8
            }))
        })
    })
}

/// `img` and each level `halve` makes of the one before, down to 1×1.
fn chain(
    img: &image::RgbaImage,
    halve: impl Fn(&image::RgbaImage) -> image::RgbaImage,
) -> Vec<image::RgbaImage> {
    let mut levels = vec![img.clone()];
    while let Some(last) = levels.last().filter(|l| l.dimensions() != (1, 1)) {
        let next = halve(last);
        levels.push(next);
    }
    levels
}
