//! Constructors the lab's tables and the tests build their inputs with, kept out of the product
//! modules whose types they make (nothing in the product builds these).

use glam::Vec2;

use crate::ktx2::{Ktx2Texture, TexelFormat};
use crate::qmap::{DirectionField, MapFormat, MapOptions, NormalMap};

/// A twist field given as a function of UV: the angle φ (radians) about the normal.
pub(crate) type Twist<'a> = &'a (dyn Fn(Vec2) -> f32 + Sync);

/// `f` at every texel centre of every level of `levels` (a normal map's mip chain): what
/// [`crate::qmap::tangent::TwistField`] holds, for twists the tests and the lab's scenes
/// author as functions.
#[must_use]
pub(crate) fn twist_levels(levels: &[NormalMap], f: Twist<'_>) -> Vec<Vec<f32>> {
    levels
        .iter()
        .map(|nm| {
            let (w, h) = (nm.width, nm.height);
            (0..h)
                .flat_map(|y| {
                    (0..w).map(move |x| {
                        f(Vec2::new(
                            (x as f32 + 0.5) / w as f32,
                            (y as f32 + 0.5) / h as f32,
                        ))
                    })
                })
                .collect()
        })
        .collect()
}

impl MapOptions {
    /// The defaults with maps stored as `format`.
    #[must_use]
    pub(crate) fn stored(format: MapFormat) -> Self {
        Self {
            format: Some(format),
            ..Self::default()
        }
    }
}

impl DirectionField {
    /// The field of `f(uv) = (direction, strength)` sampled at the centres of a `w × h` grid
    /// (directions need not be unit or oriented; they are normalised).
    ///
    /// # Panics
    /// If `w` or `h` is 0.
    #[must_use]
    pub(crate) fn from_fn(w: u32, h: u32, f: &dyn Fn(Vec2) -> (Vec2, f32)) -> Self {
        assert!(w > 0 && h > 0, "an empty direction field");
        let (mut axial, mut strength) = (Vec::new(), Vec::new());
        for y in 0..h {
            for x in 0..w {
                let uv = Vec2::new((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
                let (d, s) = f(uv);
                axial.push(d.normalize_or_zero());
                strength.push(s);
            }
        }
        Self::from_axial(w, h, &axial, &strength)
    }
}

impl Ktx2Texture {
    /// A plain 2D texture with no key/value entries of its own.
    #[must_use]
    pub(crate) fn new(format: TexelFormat, width: u32, height: u32, levels: Vec<Vec<u8>>) -> Self {
        Self {
            format,
            width,
            height,
            layers: 0,
            levels,
            key_values: Vec::new(),
        }
    }
}
