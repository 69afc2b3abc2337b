//! KHR_texture_transform applied to UVs, against the extension's own examples.

use glam::Vec2;

use crate::mesh::TextureTransform;

/// The extension's first example, worked by hand: offset (0, 1), rotation π/2, scale 0.5
/// uses "only the lower left quadrant of the source image, rotated clockwise 90°". A UV
/// scales to (u/2, v/2); (cos·u + sin·v, −sin·u + cos·v) at π/2 is (v/2, −u/2); the offset
/// makes it (v/2, 1 − u/2). So the corners (0,0), (1,0), (1,1), (0,1) go to (0,1), (0,0.5),
/// (0.5,0.5), (0.5,1): u' and v' in [0, 0.5] × [0.5, 1], the lower-left quadrant with v
/// down, and the image's top edge (v = 0) lands on its left (u' = 0), a clockwise turn.
#[test]
fn matches_the_extension_examples() {
    let t = TextureTransform {
        offset: Vec2::new(0.0, 1.0),
        rotation: std::f32::consts::FRAC_PI_2,
        scale: Vec2::splat(0.5),
    };
    for (uv, want) in [
        ((0.0, 0.0), (0.0, 1.0)),
        ((1.0, 0.0), (0.0, 0.5)),
        ((1.0, 1.0), (0.5, 0.5)),
        ((0.0, 1.0), (0.5, 1.0)),
        ((0.5, 0.5), (0.25, 0.75)),
    ] {
        let got = t.apply(Vec2::new(uv.0, uv.1));
        // cos(π/2) in f32 is −4.4e-8 rather than 0; times a scaled UV ≤ 0.5, plus the
        // U-relative rounding of each product and sum, stays below 1e-7.
        assert!(
            (got - Vec2::new(want.0, want.1)).abs().max_element() < 1e-7,
            "{uv:?} → {got}, want {want:?}"
        );
    }
    // The second example: offset (0, 1), scale (1, −1) puts the origin bottom-left.
    let flip = TextureTransform {
        offset: Vec2::new(0.0, 1.0),
        rotation: 0.0,
        scale: Vec2::new(1.0, -1.0),
    };
    assert_eq!(flip.apply(Vec2::new(0.25, 0.125)), Vec2::new(0.25, 0.875));
    assert_eq!(
        TextureTransform::IDENTITY.apply(Vec2::new(0.3, 0.7)),
        Vec2::new(0.3, 0.7)
    );
}
