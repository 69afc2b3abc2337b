//! `ribbed.gltf`: glossy surfaces with fine ribs and wrinkles in 512² tangent-space normal maps,
//! the content where a map's filtering shows (ring highlights on ribs that are a few texels wide,
//! wrinkles at every scale). Three objects in a row, each its own material: a sphere with ribs
//! around it (latitude rings), a flat panel with diagonal ribs (metallic) and a torus with
//! wrinkles. The normal maps are PNGs embedded in the `.bin`; the file has NORMAL and UVs but no
//! TANGENT, so each loader makes MikkTSpace tangents (the readers' tests draw the source with the
//! frames qtangent makes, as the swirl disc's do).

use std::f32::consts::TAU;

use glam::{Quat, Vec3};
use serde_json::json;

use crate::gltf::Builder;
use crate::lab::shapes;
use crate::mesh::Primitive;
use crate::qmap::NormalMap;

/// The normal maps' size: the clear-coat test scene's, where the readers lost most.
const SIZE: u32 = 512;
/// Ribs across the UV square: 512 / 32 = 16 texels a rib, so a rib covers a few pixels when the
/// object fills a third of a 960-pixel-wide picture: the mips decide what is drawn.
const RIBS: f32 = 32.0;
/// The ribs' steepest slope, ∂h/∂u: tan 35°.
const RIB_SLOPE: f32 = 0.7;
/// The wrinkles' steepest slope bound (the sum of the waves' slopes, each ∝ its amplitude times
/// its frequency): tan 31°.
const WRINKLE_SLOPE: f32 = 0.6;
/// Waves summed into the wrinkles, and their seed.
const WAVES: usize = 24;
const SEED: u64 = 0x5249_4242_4544;

/// Ribs along `u` (so each rib runs along `v`): the height `a · c³` with c = ½ + ½ cos 2πku,
/// narrow ridges between flat grooves, scaled so its steepest slope is [`RIB_SLOPE`].
fn ribs(u: f32) -> f32 {
    // d/du of c³ = 3c² · (−½ sin 2πku) · 2πk, and |sin 2πku| = 2√(c(1−c)): the slope is
    // 2πk · 3c²√(c(1−c)), whose maximum over c ∈ [0, 1] (at c = 5/6) is 2πk · 0.7765.
    let peak = 0.7765 * TAU * RIBS;
    let c = 0.5 + 0.5 * (TAU * RIBS * u).cos();
    RIB_SLOPE / peak * c * c * c
}

/// A splitmix64 step: the wrinkles' seeded numbers, in [0, 1).
fn next(state: &mut u64) -> f32 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
}

/// Wrinkles: [`WAVES`] seeded plane waves with integer frequencies of 3 to 40 cycles along each
/// axis (so the map tiles), amplitudes ∝ 1/frequency^1.5 (fine wrinkles on coarse folds),
/// scaled so that the sum of their slopes is [`WRINKLE_SLOPE`].
fn wrinkles() -> impl Fn(f32, f32) -> f32 {
    let mut state = SEED;
    let waves: Vec<(f32, f32, f32, f32)> = (0..WAVES)
        .map(|_| {
            let pick =
                |s: &mut u64| (3.0 + next(s) * 37.0).floor() * next(s).round().mul_add(2.0, -1.0);
            let (ku, kv) = (pick(&mut state), pick(&mut state));
            let phase = next(&mut state) * TAU;
            let f = ku.hypot(kv);
            (ku, kv, phase, f.powf(-1.5))
        })
        .collect();
    let slope: f32 = waves.iter().map(|w| w.3 * TAU * w.0.hypot(w.1)).sum();
    let scale = WRINKLE_SLOPE / slope;
    move |u, v| {
        waves
            .iter()
            .map(|&(ku, kv, phase, a)| a * scale * (TAU * (ku * u + kv * v) + phase).sin())
            .sum()
    }
}

/// The normal map of `h` as an embedded PNG image; returns the texture's index.
fn normal_texture(b: &mut Builder, name: &str, h: impl Fn(f32, f32) -> f32) -> usize {
    let image = NormalMap::from_height(SIZE, SIZE as f32, h).to_rgba8();
    super::corpus::png_texture(b, name, &image)
}

/// `ribbed.gltf`'s document: the sphere, the panel and the torus with their normal maps.
pub(super) fn ribbed() -> Builder {
    let mut b = super::corpus::document();
    let rib_v = normal_texture(&mut b, "ribs", |u, _| ribs(u));
    // The panel's ribs run diagonally: along u + v, so neither axis of the texel grid.
    let rib_diagonal = normal_texture(&mut b, "diagonal ribs", |u, v| ribs(0.5 * (u + v)));
    let wrinkled = normal_texture(&mut b, "wrinkles", wrinkles());
    let material =
        |b: &mut Builder, name: &str, texture, colour: [f32; 3], metal: f32, rough: f32| {
            b.push(
                "materials",
                json!({
                    "name": name,
                    "pbrMetallicRoughness": {
                        "baseColorFactor": [colour[0], colour[1], colour[2], 1.0],
                        "metallicFactor": metal,
                        "roughnessFactor": rough,
                    },
                    "normalTexture": { "index": texture },
                }),
            )
        };
    let glossy = material(&mut b, "ribbed glossy", rib_v, [0.6, 0.1, 0.08], 0.0, 0.25);
    let metal = material(
        &mut b,
        "ribbed metal",
        rib_diagonal,
        [0.9, 0.8, 0.6],
        1.0,
        0.3,
    );
    let leather = material(&mut b, "wrinkled", wrinkled, [0.25, 0.3, 0.45], 0.0, 0.4);
    // The sphere's u runs around its axis: ribs along u are meridians; turned 90° about z, its
    // axis lies along x and the meridian ribs read as rings seen from the front.
    let sphere = shapes::uv_sphere(128, 64);
    let torus = Primitive::torus(0.7, 0.3, 128, 64);
    let objects: [(&str, Primitive, usize, Vec3, Quat); 3] = [
        (
            "ribbed sphere",
            sphere,
            glossy,
            Vec3::new(-2.2, 0.0, 0.0),
            Quat::from_rotation_z(TAU / 4.0),
        ),
        (
            "ribbed panel",
            super::corpus::grid(16),
            metal,
            Vec3::ZERO,
            Quat::from_rotation_y(-TAU / 16.0),
        ),
        (
            "wrinkled torus",
            torus,
            leather,
            Vec3::new(2.2, 0.0, 0.0),
            Quat::from_rotation_x(TAU / 6.0),
        ),
    ];
    for (name, p, material, at, turn) in objects {
        let place = json!({ "translation": at.to_array(), "rotation": turn.to_array() });
        super::corpus::object(&mut b, name, &p, material, place);
    }
    b
}
