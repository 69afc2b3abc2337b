//! `lamp.gltf`: a desk lamp of brushed metal, the anisotropic content beyond the swirl disc —
//! curved surfaces whose KHR_materials_anisotropy direction texture *and* normal map both vary
//! across each triangle, so the maps hold a tilt and a twist per texel (`bc5x2`). Two parts,
//! each a surface of revolution with its own material: a bell-shaped shade of brushed steel,
//! brushed around its circumference along a helix whose angle swings with the height, under a
//! diamond knurl; and a low domed base of brass, spun in a spiral whose angle opens towards the
//! centre, under concentric grooves. 512² PNG textures embedded; NORMAL and UVs, no TANGENT. Made
//! here: the shared assets hold no anisotropic asset with a normal map.

use std::f32::consts::TAU;

use glam::{Vec2, Vec3};
use serde_json::json;

use crate::gltf::Builder;
use crate::mesh::Primitive;
use crate::qmap::NormalMap;

/// The textures' side.
const SIZE: u32 = 512;
/// Knurl ridges across the shade's UV square, each diagonal way.
const KNURL: f32 = 24.0;
/// The knurl's steepest slope, ∂h/∂u summed over both ways: tan 26.6°.
const KNURL_SLOPE: f32 = 0.5;
/// Grooves across the base's v.
const GROOVES: f32 = 20.0;
/// The grooves' steepest slope: tan 21.8°.
const GROOVE_SLOPE: f32 = 0.4;
/// Points along each profile, and segments around.
const PROFILE: u32 = 48;
const SEGMENTS: u32 = 128;

/// A surface of revolution about +Y through `profile` (radius, height), listed from bottom to
/// top: u runs once around (the seam column repeated), v along the profile by arc length, the
/// normal outwards from the profile's slope, triangles counter-clockwise seen from outside.
fn lathe(profile: &[(f32, f32)]) -> Primitive {
    let n = profile.len();
    let mut arc = vec![0.0f32];
    for w in profile.windows(2) {
        let s = arc[arc.len() - 1] + (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1);
        arc.push(s);
    }
    let total = arc[n - 1];
    let mut p = Primitive::default();
    let (mut normals, mut uvs) = (Vec::new(), Vec::new());
    for (k, &(r, y)) in profile.iter().enumerate() {
        let (a, b) = (profile[k.saturating_sub(1)], profile[(k + 1).min(n - 1)]);
        // Going up the profile by (dr, dy), the outward normal in the (r, y) plane is (dy, −dr).
        let (nr, ny) = (b.1 - a.1, a.0 - b.0);
        let len = nr.hypot(ny);
        for i in 0..=SEGMENTS {
            let phi = TAU * i as f32 / SEGMENTS as f32;
            let (c, s) = (phi.cos(), phi.sin());
            p.positions.push(Vec3::new(r * c, y, r * s));
            normals.push(Vec3::new(nr * c, ny, nr * s) / len);
            // v = 0 at the top of the texture is the top of the part.
            uvs.push(Vec2::new(i as f32 / SEGMENTS as f32, 1.0 - arc[k] / total));
        }
    }
    let row = SEGMENTS + 1;
    for k in 0..n as u32 - 1 {
        for i in 0..SEGMENTS {
            let (a, b) = (k * row + i, (k + 1) * row + i);
            p.indices.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    p.normals = Some(normals);
    p.uvs = Some(uvs);
    p
}

/// A KHR_materials_anisotropy texture of the direction at `angle(u, v)` radians from the
/// tangent (RG = d·½ + ½, B = strength 1), each texel the angle at its centre. The angles stay
/// inside (0, π), so the stored direction never flips sign between neighbours.
fn direction_texture(angle: impl Fn(f32, f32) -> f32) -> image::RgbaImage {
    let q = |x: f32| ((x * 0.5 + 0.5).clamp(0.0, 1.0) * 255.0).round() as u8;
    image::RgbaImage::from_fn(SIZE, SIZE, |x, y| {
        let (u, v) = (
            (x as f32 + 0.5) / SIZE as f32,
            (y as f32 + 0.5) / SIZE as f32,
        );
        let a = angle(u, v);
        image::Rgba([q(a.cos()), q(a.sin()), 255, 255])
    })
}

/// `lamp.gltf`'s document: the shade and the base, each with a normal map and an anisotropy
/// texture.
pub(super) fn lamp() -> Builder {
    let mut b = super::corpus::document();
    b.json["extensionsUsed"] = json!(["KHR_materials_anisotropy"]);
    // Knurl: ridges along u + v and u − v, the sum's slope at most KNURL_SLOPE.
    let knurl_a = KNURL_SLOPE / (2.0 * TAU * KNURL);
    let knurl = NormalMap::from_height(SIZE, SIZE as f32, |u, v| {
        knurl_a * ((TAU * KNURL * (u + v)).sin() + (TAU * KNURL * (u - v)).sin())
    })
    .to_rgba8();
    let groove_a = GROOVE_SLOPE / (TAU * GROOVES);
    let grooves = NormalMap::from_height(SIZE, SIZE as f32, |_, v| {
        groove_a * (TAU * GROOVES * v).sin()
    })
    .to_rgba8();
    // The shade's helix: 0.5 rad from the circumference, swinging by ±0.35 three times up the
    // shade; the base's spiral: from 0.3 rad at the rim to 1.2 at the centre.
    let helix = direction_texture(|_, v| 0.5 + 0.35 * (TAU * 3.0 * v).sin());
    let spiral = direction_texture(|_, v| 0.3 + 0.9 * v);
    let textures = [
        ("knurl", &knurl),
        ("helix brushing", &helix),
        ("grooves", &grooves),
        ("spiral brushing", &spiral),
    ]
    .map(|(name, img)| super::corpus::png_texture(&mut b, name, img));
    let material = |b: &mut Builder,
                    name: &str,
                    [normal, direction]: [usize; 2],
                    colour: [f32; 3],
                    rough: f32| {
        b.push(
            "materials",
            json!({
                "name": name,
                "pbrMetallicRoughness": {
                    "baseColorFactor": [colour[0], colour[1], colour[2], 1.0],
                    "metallicFactor": 1.0,
                    "roughnessFactor": rough,
                },
                "normalTexture": { "index": normal },
                "extensions": { "KHR_materials_anisotropy": {
                    "anisotropyStrength": 0.8,
                    "anisotropyTexture": { "index": direction },
                } },
            }),
        )
    };
    let steel = material(
        &mut b,
        "brushed steel",
        [textures[0], textures[1]],
        [0.86, 0.87, 0.9],
        0.35,
    );
    let brass = material(
        &mut b,
        "spun brass",
        [textures[2], textures[3]],
        [0.8, 0.62, 0.36],
        0.4,
    );
    // The shade: a bell from its rim (radius 0.95 at height 0.55) up to its neck (0.22 at 1.25).
    let shade: Vec<(f32, f32)> = (0..PROFILE)
        .map(|k| {
            let t = k as f32 / (PROFILE - 1) as f32;
            (0.22 + 0.73 * (1.0 - t).powf(1.6), 0.55 + 0.7 * t)
        })
        .collect();
    // The base: a low dome from its rim (0.7 at height 0) to a small opening at the top.
    let base: Vec<(f32, f32)> = (0..PROFILE)
        .map(|k| {
            let t = k as f32 / (PROFILE - 1) as f32;
            (
                0.02 + 0.68 * (1.0 - t),
                0.14 * (1.0 - (1.0 - t) * (1.0 - t)),
            )
        })
        .collect();
    for (name, profile, material) in [("shade", shade, steel), ("base", base, brass)] {
        super::corpus::object(&mut b, name, &lathe(&profile), material, json!({}));
    }
    b
}
