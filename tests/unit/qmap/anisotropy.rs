//! glTF files that use KHR_materials_anisotropy and KTX2 textures, as the loaders read them: the
//! swirl disc written by `lab::disc::write_gltf`, then edited.
//!
//! - The extension's values reach the material (strength, rotation, texture); out-of-range,
//!   non-numeric and dangling values are one-line errors naming the file and the material; a
//!   texture on another UV set, and a texture transform, are warnings.
//! - The anisotropy texture as KTX2: uncompressed (R8G8B8A8_UNORM, decoded exactly), BC7 (as an
//!   independent BC7 decoder, `block_compression`'s, decodes it), Zstandard-supercompressed
//!   (exactly), truncated (an error naming the image), and Basis Universal (refused with a
//!   message that says so).
//! - `qmap::anisotropy`: the direction field's rules (orientation, axial mips, the twist).

use crate::common;

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3, Vec4};
use qtangent::lab::disc::{self, RgLayout, TextureFile};
use qtangent::mesh;
use qtangent::qmap::anisotropy::{self, DirectionField};
use qtangent::qmap::{MapFormat, Raster, TexelKind};
use qtangent::render::RenderScene;

const SIZE: u32 = 32;

fn written(file: TextureFile) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = disc::write_gltf(
        dir.path(),
        SIZE,
        RgLayout::Canonical,
        file,
        disc::Relief::Flat,
    )
    .expect("writes");
    (dir, path)
}

fn edit_json(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("reads");
    assert!(text.contains(from), "the written glTF lacks {from:?}");
    std::fs::write(path, text.replace(from, to)).expect("writes");
}

fn ktx2_path(gltf: &Path) -> PathBuf {
    gltf.with_file_name("swirl_disc_anisotropy.ktx2")
}

#[test]
fn the_extension_reaches_the_material() {
    let (_dir, path) = written(TextureFile::Png);
    edit_json(
        &path,
        r#""anisotropyRotation":0.0"#,
        r#""anisotropyRotation":0.75"#,
    );
    edit_json(
        &path,
        r#""anisotropyStrength":1.0"#,
        r#""anisotropyStrength":0.6"#,
    );
    let loaded = mesh::load(&path).expect("loads");
    let a = loaded.materials[0]
        .anisotropy
        .as_ref()
        .expect("KHR_materials_anisotropy is read");
    assert_eq!((a.strength, a.rotation), (0.6, 0.75));
    assert!(a.texture.is_some());
    let scene = RenderScene::load(&path).expect("scene loads");
    let m = &scene.materials[0];
    assert_eq!(m.uniforms.anisotropy, 0.6);
    assert!((m.uniforms.anisotropy_rotation_radians() - 0.75).abs() < 1e-6);
    // The texture as written: the disc's canonical map, decoded from the PNG exactly.
    assert_eq!(
        m.anisotropy.as_ref().expect("texture decoded"),
        &disc::texture(SIZE, RgLayout::Canonical)
    );
}

#[test]
fn bad_extension_values_are_one_line_errors_naming_the_material() {
    for (from, to, needle) in [
        (
            r#""anisotropyStrength":1.0"#,
            r#""anisotropyStrength":1.5"#,
            "anisotropyStrength is 1.5, outside [0, 1]",
        ),
        (
            r#""anisotropyStrength":1.0"#,
            r#""anisotropyStrength":-0.1"#,
            "outside [0, 1]",
        ),
        (
            r#""anisotropyRotation":0.0"#,
            r#""anisotropyRotation":"a quarter""#,
            "anisotropyRotation is \"a quarter\", not a finite number",
        ),
        (
            r#""anisotropyTexture":{"index":0}"#,
            r#""anisotropyTexture":{"index":7}"#,
            "names texture 7, which does not exist",
        ),
        (
            r#""anisotropyTexture":{"index":0}"#,
            r#""anisotropyTexture":{"texCoord":0}"#,
            "anisotropyTexture has no index",
        ),
    ] {
        let (_dir, path) = written(TextureFile::Png);
        edit_json(&path, from, to);
        let e = RenderScene::load(&path).expect_err(to).to_string();
        assert!(!e.contains('\n'), "{e}");
        for part in [
            path.display().to_string().as_str(),
            "material 'swirl disc'",
            "KHR_materials_anisotropy",
            needle,
        ] {
            assert!(e.contains(part), "{to}: {e:?} lacks {part:?}");
        }
    }
}

#[test]
fn another_uv_set_and_a_texture_transform_are_warnings() {
    let (_dir, path) = written(TextureFile::Png);
    edit_json(
        &path,
        r#""anisotropyTexture":{"index":0}"#,
        r#""anisotropyTexture":{"index":0,"texCoord":1,"extensions":{"KHR_texture_transform":{"scale":[2,2]}}}"#,
    );
    let scene = RenderScene::load(&path).expect("loads");
    assert!(
        scene.warnings.iter().any(|w| *w.kind()
            == qtangent::WarningKind::TextureOnOtherSet {
                texture: "anisotropy",
                set: 1
            }),
        "{:?}",
        scene.warnings
    );
    let w: Vec<String> = scene.warnings.iter().map(ToString::to_string).collect();
    let w = w.join("\n");
    assert!(w.contains("KHR_texture_transform is not supported"), "{w}");
    assert!(w.contains("anisotropy texture reads UV set 1"), "{w}");
    assert!(scene.materials[0].anisotropy.is_none());
}

#[test]
fn uncompressed_ktx2_texture_decodes_exactly() {
    let (_dir, path) = written(TextureFile::Ktx2Rgba8);
    let scene = RenderScene::load(&path).expect("loads");
    assert_eq!(
        scene.materials[0].anisotropy.as_ref().expect("decoded"),
        &disc::texture(SIZE, RgLayout::Canonical)
    );
}

#[test]
fn bc7_ktx2_texture_decodes_as_bc7_decodes() {
    let (_dir, path) = written(TextureFile::Ktx2Bc7);
    let scene = RenderScene::load(&path).expect("loads");
    let got = scene.materials[0].anisotropy.as_ref().expect("decoded");
    // The same blocks read by the texture reader (`qtangent::ktx2`) and decoded by an
    // independent BC7 decoder, `block_compression`'s (the crate decodes with `bcdec_rs`): BC7's
    // interpolation is integer by the spec, so two decoders agree to the bit.
    let tex = qtangent::ktx2::read_file(&ktx2_path(&path)).expect("reads");
    assert_eq!(tex.format, qtangent::ktx2::TexelFormat::Bc7Unorm);
    let blocks_x = SIZE.div_ceil(4) as usize;
    for (i, g) in got.pixels().enumerate() {
        let (x, y) = (i % SIZE as usize, i / SIZE as usize);
        let b = (y / 4 * blocks_x + x / 4) * 16;
        let mut rgba = [0u8; 64];
        block_compression::decode::decode_block_bc7(&tex.levels[0][b..b + 16], &mut rgba, 16);
        let t = (y % 4 * 4 + x % 4) * 4;
        assert_eq!(g.0, rgba[t..t + 4], "texel {i}");
    }
}

/// Rewrites the disc's uncompressed KTX2 texture in place: level 0 Zstandard-compressed
/// (supercompressionScheme 2; the level index's byteLength the compressed size,
/// uncompressedByteLength the original).
fn supercompress(ktx2: &Path) {
    let mut bytes = std::fs::read(ktx2).expect("reads");
    let le64 = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let (offset, length) = (le64(&bytes, 80) as usize, le64(&bytes, 88) as usize);
    assert_eq!(offset + length, bytes.len(), "one level, last in the file");
    let compressed = zstd::encode_all(&bytes[offset..], 3).expect("zstd");
    bytes[44..48].copy_from_slice(&2u32.to_le_bytes());
    bytes[88..96].copy_from_slice(&(compressed.len() as u64).to_le_bytes());
    bytes[96..104].copy_from_slice(&(length as u64).to_le_bytes());
    bytes.truncate(offset);
    bytes.extend_from_slice(&compressed);
    std::fs::write(ktx2, bytes).expect("writes");
}

#[test]
fn zstd_supercompressed_ktx2_texture_decodes_exactly() {
    let (_dir, path) = written(TextureFile::Ktx2Rgba8);
    supercompress(&ktx2_path(&path));
    let scene = RenderScene::load(&path).expect("loads");
    assert_eq!(
        scene.materials[0].anisotropy.as_ref().expect("decoded"),
        &disc::texture(SIZE, RgLayout::Canonical)
    );
}

fn load_error(path: &Path) -> String {
    let e = RenderScene::load(path).expect_err("must fail").to_string();
    assert!(!e.contains('\n'), "{e}");
    assert!(e.contains("material 'swirl disc'"), "{e}");
    assert!(e.contains("swirl_disc_anisotropy.ktx2"), "{e}");
    e
}

#[test]
fn truncated_ktx2_texture_is_an_error_naming_it() {
    let (_dir, path) = written(TextureFile::Ktx2Rgba8);
    let ktx2 = ktx2_path(&path);
    let bytes = std::fs::read(&ktx2).expect("reads");
    for cut in [20, 90, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&ktx2, &bytes[..cut]).expect("writes");
        let e = load_error(&path);
        assert!(e.contains("truncated"), "cut at {cut}: {e}");
    }
}

#[test]
fn basis_universal_ktx2_texture_is_refused_saying_so() {
    let (_dir, path) = written(TextureFile::Ktx2Rgba8);
    let ktx2 = ktx2_path(&path);
    let mut bytes = std::fs::read(&ktx2).expect("reads");
    // BasisLZ: vkFormat UNDEFINED (0), supercompressionScheme 1.
    bytes[12..16].copy_from_slice(&0u32.to_le_bytes());
    bytes[44..48].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&ktx2, &bytes).expect("writes");
    let e = load_error(&path);
    assert!(e.contains("Basis Universal (BasisLZ/ETC1S)"), "{e}");
    // The library names no tool; the command-line tools add that advice.
    assert!(!e.contains("ktx transcode"), "{e}");
    // The same file referenced through KHR_texture_basisu, as real Basis assets do.
    edit_json(
        &path,
        r#""textures":[{"source":0}]"#,
        r#""textures":[{"extensions":{"KHR_texture_basisu":{"source":0}}}]"#,
    );
    let e = load_error(&path);
    assert!(e.contains("Basis Universal"), "{e}");
}

#[test]
fn orientation_makes_a_circle_field_agree_except_at_its_centre() {
    // Circles about the centre, written canonically (flipped on half of every circle).
    let n = 64u32;
    let field = DirectionField::from_fn(n, n, &|uv: Vec2| {
        let p = uv - Vec2::splat(0.5);
        let d = Vec2::new(-p.y, p.x);
        (if d.y < 0.0 { -d } else { d }, 1.0)
    });
    for (k, level) in field.levels.iter().enumerate() {
        let (w, h) = (level.width as usize, level.height as usize);
        let mut disagree = 0;
        for y in 0..h {
            for x in 0..w {
                let a = level.dirs[y * w + x];
                for (nx, ny) in [(x + 1, y), (x, y + 1)] {
                    if nx < w && ny < h && a.dot(level.dirs[ny * w + nx]) < 0.0 {
                        disagree += 1;
                    }
                }
            }
        }
        // A circle field can be oriented everywhere: only the texels next to the centre, where
        // neighbours point 90°–180° apart, may disagree (at most the 4 pairs round the centre
        // and the 4 beside them).
        assert!(
            disagree <= 8,
            "level {k} ({w}×{h}): {disagree} pairs disagree"
        );
    }
}

#[test]
fn mips_are_axial_means_whatever_the_signs() {
    // One direction, stored with random signs: every level must say that direction, at the
    // texels' strength; a vector box filter would cancel to noise.
    common::for_seeds("axial mips", 4, |seed, rng| {
        use rand::Rng;
        let angle: f32 = rng.random_range(-3.0..3.0);
        let d = Vec2::new(angle.cos(), angle.sin());
        let (w, h) = (16u32, 8u32);
        let dirs: Vec<Vec2> = (0..w * h)
            .map(|_| if rng.random_bool(0.5) { d } else { -d })
            .collect();
        let field = DirectionField::from_axial(w, h, &dirs, &vec![0.7; (w * h) as usize]);
        for (k, l) in field.levels.iter().enumerate() {
            for (i, (got, s)) in l.dirs.iter().zip(&l.strength).enumerate() {
                // f32: the doubled angle's atan2 and cos/sin, a few ulps of a unit vector.
                assert!(
                    got.dot(d).abs() > 1.0 - 1e-5,
                    "seed {seed:#x}: level {k} texel {i}: {got} is not ±{d}"
                );
                assert!((s - 0.7).abs() < 1e-6, "seed {seed:#x}: strength {s}");
            }
        }
    });
}

#[test]
fn turning_a_raster_puts_its_tangent_on_the_direction_for_either_handedness() {
    let field = DirectionField::from_fn(4, 4, &|_| (Vec2::new(0.6, 0.8), 1.0));
    for h in [1i8, -1] {
        let mut raster = Raster::empty(4, 4, MapFormat::Rgba32Float);
        for k in 0..16 {
            // The identity frame: t = +X, n = +Z, b = h·cross(n, t) = h·Y.
            raster.quats[k] = Vec4::W;
            raster.handedness[k] = h;
            raster.kind[k] = TexelKind::Covered;
        }
        anisotropy::turn_raster(&mut raster, &field, None);
        for q in &raster.quats {
            let t = glam::Quat::from_vec4(*q) * Vec3::X;
            // The direction (0.6, 0.8) in (t, b): 0.6 X + 0.8 h Y.
            let want = Vec3::new(0.6, 0.8 * f32::from(h), 0.0);
            assert!(
                (t - want).length() < 1e-6,
                "h {h}: tangent {t}, want {want}"
            );
            let n = glam::Quat::from_vec4(*q) * Vec3::Z;
            assert!((n - Vec3::Z).length() < 1e-6, "the normal moved: {n}");
        }
    }
}
