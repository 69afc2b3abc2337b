//! Textures as an engine ships them, the reference each quaternion-map format is compared with
//! at equal bytes: a KHR_materials_anisotropy texture through BC5 (`bc5_direction_chain`) and a
//! scene's normal and anisotropy textures together (`RenderScene::engine_textures`).
//!
//! The oracles are independent of the code under test: the mip levels come from the `image`
//! crate's triangle filter (the filter the renderer documents), and the BC5 bound is the
//! per-component contract of `qmap::bc` worked out here per block.

use image::{imageops, Rgba, RgbaImage};
use qtangent::qmap::normal_map::bc5_direction_chain;
use qtangent::render::{MaterialUniforms, RenderScene, SceneMaterial};
use qtangent::WarningKind;
use rand::Rng;

/// A smooth direction field (R, G = the unit direction at angle `a·x + b·y + c`, as
/// KHR_materials_anisotropy encodes it, `(d + 1) / 2`) with a random strength in B and random
/// alpha, `side`².
fn anisotropy_texture(rng: &mut impl Rng, side: u32) -> RgbaImage {
    let (a, b, c): (f32, f32, f32) = (
        rng.random_range(-0.2..0.2),
        rng.random_range(-0.2..0.2),
        rng.random_range(0.0..std::f32::consts::TAU),
    );
    RgbaImage::from_fn(side, side, |x, y| {
        let angle = a * x as f32 + b * y as f32 + c;
        let byte = |v: f32| ((v + 1.0) * 0.5 * 255.0).round() as u8;
        Rgba([
            byte(angle.cos()),
            byte(angle.sin()),
            rng.random(),
            rng.random(),
        ])
    })
}

/// The levels the renderer samples: each the one above halved with a triangle filter, to 1×1.
fn triangle_mips(img: &RgbaImage) -> Vec<RgbaImage> {
    let mut levels = vec![img.clone()];
    while levels.last().is_some_and(|l| l.dimensions() != (1, 1)) {
        let l = levels.last().expect("one level at least");
        let (w, h) = ((l.width() / 2).max(1), (l.height() / 2).max(1));
        levels.push(imageops::resize(l, w, h, imageops::FilterType::Triangle));
    }
    levels
}

/// Every level of a BC5 direction chain: the levels of the uncompressed texture's triangle
/// chain, strength (B) and alpha exactly, and the direction (R, G), stored as BC5 UNORM of its
/// bytes, within BC5's contract per component in bytes — half a byte plus half a palette step
/// (the block's spread over 14; `qmap::bc`'s module docs) — plus the 8-bit write-back of the
/// result, half a byte.
#[test]
fn bc5_direction_chain_keeps_the_strength_and_holds_the_direction() {
    crate::common::for_seeds("bc5 direction chain", 3, |seed, rng| {
        let texture = anisotropy_texture(rng, 64);
        let chain = bc5_direction_chain(&texture).expect("64² is block-sized");
        let want = triangle_mips(&texture);
        assert_eq!(chain.len(), want.len(), "seed {seed:#x}: 64² has 7 levels");
        for (k, (got, want)) in chain.iter().zip(&want).enumerate() {
            assert_eq!(
                got.dimensions(),
                want.dimensions(),
                "seed {seed:#x} level {k}"
            );
            let (w, h) = want.dimensions();
            for by in (0..h).step_by(4) {
                for bx in (0..w).step_by(4) {
                    let texels: Vec<(u32, u32)> = (by..(by + 4).min(h))
                        .flat_map(|y| (bx..(bx + 4).min(w)).map(move |x| (x, y)))
                        .collect();
                    for c in 0..2 {
                        let bytes: Vec<f32> = texels
                            .iter()
                            .map(|&(x, y)| f32::from(want.get_pixel(x, y)[c]))
                            .collect();
                        let range = bytes.iter().copied().fold(f32::MIN, f32::max)
                            - bytes.iter().copied().fold(f32::MAX, f32::min);
                        // + 1e-3: f32 rounding of the decode, far below a byte.
                        let bound = 0.5 + range / 14.0 + 0.5 + 1e-3;
                        for &(x, y) in &texels {
                            let (g, e) = (got.get_pixel(x, y)[c], want.get_pixel(x, y)[c]);
                            assert!(
                                (f32::from(g) - f32::from(e)).abs() <= bound,
                                "seed {seed:#x} level {k} texel ({x}, {y}) channel {c}: byte {g} against {e} (bound {bound})"
                            );
                        }
                    }
                }
            }
            for (x, y, p) in got.enumerate_pixels() {
                let e = want.get_pixel(x, y);
                assert_eq!(
                    [p[2], p[3]],
                    [e[2], e[3]],
                    "seed {seed:#x} level {k} texel ({x}, {y}): strength and alpha are not BC5's"
                );
            }
        }
    });
}

/// `engine_textures` compresses both kinds of texture at every level, leaves the original
/// scene alone, and keeps (with a warning naming the material and the texture) one BC cannot
/// store.
#[test]
fn engine_textures_compress_what_bc_can_store_and_warn_about_the_rest() {
    let mut rng = <rand_pcg::Pcg64 as rand::SeedableRng>::seed_from_u64(0x5eed_e261_7e00);
    let normal = RgbaImage::from_fn(16, 16, |x, y| {
        Rgba([128 + x as u8, 128 + y as u8, 250, 255])
    });
    let mut both = SceneMaterial::plain("both", MaterialUniforms::default());
    both.normal = Some(normal.clone());
    both.anisotropy = Some(anisotropy_texture(&mut rng, 16));
    let mut odd = SceneMaterial::plain("odd", MaterialUniforms::default());
    odd.anisotropy = Some(anisotropy_texture(&mut rng, 6));
    let scene = RenderScene {
        name: "textures".into(),
        meshes: Vec::new(),
        materials: vec![both.clone(), odd.clone()],
        objects: Vec::new(),
        warnings: Vec::new(),
        source: None,
    };
    let engine = scene.engine_textures();
    assert_eq!(
        scene.materials,
        vec![both.clone(), odd.clone()],
        "the source scene is not touched"
    );
    let m = &engine.materials[0];
    // 16² has five levels: level 0 in the field, four below it as stored.
    assert_eq!(m.normal_mips.as_ref().map(Vec::len), Some(4));
    assert_eq!(m.anisotropy_mips.as_ref().map(Vec::len), Some(4));
    assert_ne!(m.normal, both.normal, "the normal map went through BC5");
    let direction = |i: &RgbaImage| i.pixels().map(|p| [p[0], p[1]]).collect::<Vec<_>>();
    assert_ne!(
        m.anisotropy.as_ref().map(direction),
        both.anisotropy.as_ref().map(direction),
        "the direction went through BC5"
    );
    let strength = |i: &RgbaImage| i.pixels().map(|p| p[2]).collect::<Vec<_>>();
    assert_eq!(
        m.anisotropy.as_ref().map(strength),
        both.anisotropy.as_ref().map(strength),
        "the strength is not BC5's"
    );
    assert_eq!(
        engine.materials[1], odd,
        "6² is not block-sized: kept as it is"
    );
    assert_eq!(engine.warnings.len(), 1, "{:?}", engine.warnings);
    let w = &engine.warnings[0];
    assert_eq!(w.place(), "material 'odd'");
    assert!(
        matches!(
            w.kind(),
            WarningKind::TextureNotBlockSized {
                texture: "anisotropy texture",
                width: 6,
                height: 6
            }
        ),
        "{w}"
    );
}
