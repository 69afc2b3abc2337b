//! KHR_materials_anisotropy in the renderer and in both kinds of quaternion map.
//!
//! 1. **The rotation test** (after Khronos' AnisotropyRotationTest): a plate whose vertex
//!    tangents are tilted 30° about the normal, the tilt undone three ways — by
//!    `anisotropyRotation` = −30°, by a texture whose direction is −30°, and by −10° of rotation
//!    plus −20° of texture. In every frame source (f32 reference, qtangent, object-space map,
//!    tangent-space map) every panel must stretch its highlight along the untilted tangent; a
//!    control panel with the tilt left in must be 30° off (so the check can fail). The shading
//!    with that direction is checked against the CPU BRDF.
//! 2. **The swirl disc** ([`qtangent::lab::disc`]) minified to mip levels 2 and 3: the
//!    quaternion maps' anisotropy direction, against a supersampled truth of the analytic field,
//!    is at most half as wrong as the RG map's filtered the way engines filter it (written
//!    canonical, y ≥ 0, as a tool writing from an angle does), at the mean and at the 99th
//!    percentile (over pixels whose truth is one direction).
//!
//! Needs a GPU adapter (lavapipe is enough); without one it fails saying how to install it.

use std::f32::consts::PI;

use glam::{Vec2, Vec3, Vec4};
use image::RgbaImage;
use qtangent::gpu::{GpuScene, Renderer, View};
use qtangent::lab::disc::{self, RgLayout};
use qtangent::lab::shading::{self, Surface};
use qtangent::lab::shapes::plate;
use qtangent::mesh::{self, Prepared};
use qtangent::qmap::MapFormat;
use qtangent::qmap::MapOptions;
use qtangent::render::{FrameSource, MaterialUniforms};
use qtangent::render::{MapSource, RenderScene, SceneMaterial};
use qtangent::Format;

use crate::common::context;
use crate::draw::{self, Readback};

const SOURCES: [FrameSource; 4] = [
    FrameSource::Reference,
    FrameSource::QTangent(Format::Snorm16x4),
    FrameSource::QuatMap,
    FrameSource::QuatMapTangent,
];

/// The plate with its vertex tangents turned by `tilt_deg` about the normal, from the tangent
/// towards the bitangent; returns it and the untilted world tangent and bitangent.
fn tilted_plate(tilt_deg: f32) -> (Prepared, Vec3, Vec3) {
    let p = plate(disc::PLATE_SIZE);
    let flat = p.clone().prepare().expect("the plate prepares");
    let f = flat.frames[0];
    let (t, b) = (f.tangent, f.normal.cross(f.tangent) * f.handedness());
    let (s, c) = tilt_deg.to_radians().sin_cos();
    let tilted = (t * c + b * s).extend(f.handedness());
    let prepared = mesh::Primitive {
        tangents: Some(vec![tilted; p.positions.len()]),
        ..p
    }
    .prepare()
    .expect("the tilted plate prepares");
    (prepared, t, b)
}

/// A 4 × 4 anisotropy texture of the constant direction `deg` (from the tangent towards the
/// bitangent) and strength byte `b`.
fn direction_texture(deg: f32, b: u8) -> RgbaImage {
    let (s, c) = deg.to_radians().sin_cos();
    let q = |x: f32| ((x * 0.5 + 0.5) * 255.0).round() as u8;
    RgbaImage::from_pixel(4, 4, image::Rgba([q(c), q(s), b, 255]))
}

struct Panel {
    name: &'static str,
    tilt_deg: f32,
    rotation_deg: f32,
    texture: Option<RgbaImage>,
    /// Expected angle between the highlight direction and the untilted tangent.
    expect_deg: f32,
    /// Expected strength (material strength × texture B).
    strength: f32,
}

fn panel_scene(p: &Panel) -> RenderScene {
    let (mesh, _, _) = tilted_plate(p.tilt_deg);
    let mut uniforms = MaterialUniforms {
        base_color: Vec4::new(0.9, 0.9, 0.92, 1.0),
        metallic: 1.0,
        roughness: 0.3,
        anisotropy: 0.8,
        ..MaterialUniforms::default()
    };
    uniforms.set_anisotropy_rotation(p.rotation_deg.to_radians());
    let material = SceneMaterial {
        anisotropy: p.texture.clone(),
        ..SceneMaterial::plain(p.name, uniforms)
    };
    draw::single_scene(
        p.name,
        mesh,
        material,
        MapSource::Bake { size: 64 },
        glam::Mat4::IDENTITY,
    )
}

/// The axial angle between two vectors of the plate (degrees, 0–90), as atan2(|a × b|, |a · b|)
/// in f64: exact for f32 inputs and blind to their lengths. (`acos(|a · b|)` in f32 is not: near
/// 0° it turns a dot product δ below 1 — lengths 1 ± a few ulps from a shader's `normalize` —
/// into √(2δ), 0.09° for δ = 20U.)
fn axial_deg(a: Vec3, b: Vec3) -> f32 {
    let (a, b) = (a.as_dvec3(), b.as_dvec3());
    a.cross(b).length().atan2(a.dot(b).abs()).to_degrees() as f32
}

/// f32 unit roundoff.
const U: f32 = crate::common::U;

/// The f32 rounding of the highlight direction, in units of U (radians), counted to first order
/// over every frame source at once (a quaternion whose 4-vector is off by δ turns vectors at
/// most 2δ further; WGSL's `+`, `−`, `×` round correctly, its division is within 2.5 ulps, so
/// a `normalize` turns a vector by up to 5U):
/// - the CPU's inputs: the tilted tangent t·cos + b·sin, 3U; `prepare`'s f64 Gram–Schmidt
///   rounded to f32, U; the f32 (sin, cos) of the tilt and of the rotation, U each — 6U;
/// - the vertex frame: `tangent_frame`'s normalisation 5U and matrix column 5U, the
///   interpolation of a constant attribute 3U — 13U;
/// - the fragment frame: n normalised 5U, the tangent's Gram–Schmidt 5U and scaling U,
///   b = cross(n, t)·h 4U — 15U;
/// - the map sources: the bake's interpolation 3U, quaternion from axes 10U, product with the
///   twist 8U, normalisation 2U; the sample's normalisation 5U, matrix column 5U, the axial
///   twist's halving 4U, the sum 3U — 40U;
/// - the direction: the texture's d normalised U, turned by (cos, sin) 3U, t·d.x + b·d.y 3U,
///   normalised 5U — 12U.
///
/// 86U, 2.9e-4°. (The earlier 0.06° term was about 200 times that; with the measure by
/// `acos` it was not safe either, see [`axial_deg`].)
const F32_DIRECTION_ROUNDINGS: f32 = 6.0 + 13.0 + 15.0 + 40.0 + 12.0;

/// The rotation test's panels: the tilt undone by the rotation, by the texture, by both, and
/// a control panel with the tilt left in. Texture B = 204 (0.8) on textured panels, material
/// strength 0.8 everywhere.
fn rotation_panels() -> [Panel; 5] {
    let panel = |name, rotation_deg, texture| Panel {
        name,
        tilt_deg: 30.0,
        rotation_deg,
        texture,
        expect_deg: 0.0,
        strength: 0.8,
    };
    let textured = |name, rotation_deg, texture_deg| Panel {
        strength: 0.8 * 0.8,
        ..panel(
            name,
            rotation_deg,
            Some(direction_texture(texture_deg, 204)),
        )
    };
    [
        Panel {
            tilt_deg: 0.0,
            ..panel("untilted", 0.0, None)
        },
        panel("rotation −30°", -30.0, None),
        textured("texture −30°", 0.0, -30.0),
        textured("rotation −10° + texture −20°", -10.0, -20.0),
        Panel {
            expect_deg: 30.0,
            ..panel("control: tilted, not undone", 0.0, None)
        },
    ]
}

// Tolerances (degrees). An 8-bit RG direction: each component within ½ of 1/255 in [0, 1],
// 1/255 in [−1, 1], moves a unit vector by at most √2/255 rad = 0.32°. An rgba16f map: each
// component of q within 2⁻¹¹ relative (half a step of f16's 10-bit mantissa, values ≤ 1), so
// |Δq| ≤ 2·2⁻¹¹ and the rotation by at most 2|Δq| = 2⁻⁹ rad = 0.11°. Snorm16x4 vertex
// frames: 1/32767 a component, under 0.01°. f32 rounding, `F32_DIRECTION_ROUNDINGS` U (above).
const TOL_DEG: f32 = 0.32 + 0.11 + 0.01 + F32_DIRECTION_ROUNDINGS * U * (180.0 / PI);
// Strength: the texture's B in an 8-bit UNORM texture decodes to b/255 exactly to within
// f32 rounding (Vulkan: UNORM conversion within 1 ulp... 2⁻²³ relative), times an f32 factor.
const TOL_STRENGTH: f32 = 1e-5;

#[test]
fn rotation_undone_three_ways_gives_one_highlight_direction_in_every_frame_source() {
    let ctx = context();
    let renderer = Renderer::new(ctx).expect("renderer");
    let view = View {
        camera: disc::camera(),
        lighting: disc::lighting(),
        anisotropy_override: None,
        background: Vec3::ZERO,
    };
    let readback = Readback::new(ctx, &renderer, view, (24, 24));
    let mut report = Vec::new();
    for p in &rotation_panels() {
        let scene = panel_scene(p);
        let gpu = draw::upload(
            &renderer,
            ctx,
            &scene,
            &MapOptions::stored(MapFormat::Rgba16Float),
        );
        for source in SOURCES {
            let worst = check_panel(&readback, &scene, &gpu, p, source);
            report.push(format!(
                "{:<32} {:<20} worst {worst:.3}° off {:.0}°",
                p.name,
                source.to_string(),
                p.expect_deg
            ));
            assert!(
                worst <= TOL_DEG,
                "{}: {}: the highlight direction is up to {worst:.3}° from {}° off the untilted tangent (tolerance {TOL_DEG}°)\n{}",
                p.name,
                source,
                p.expect_deg,
                report.join("\n")
            );
        }
    }
    println!("{}", report.join("\n"));
}

/// Checks one panel drawn with one frame source, pixel by pixel: the anisotropy strength, and
/// the radiance against the CPU BRDF with the GPU's own frame and direction. Returns the worst
/// difference of the highlight direction's angle to the untilted tangent from the expected one.
fn check_panel(
    readback: &Readback<'_>,
    scene: &RenderScene,
    gpu: &GpuScene,
    p: &Panel,
    source: FrameSource,
) -> f32 {
    let (_, untilted_t, _) = tilted_plate(0.0);
    let view = &readback.view;
    let uniforms = view
        .lighting
        .uniforms(view.camera.position(), view.anisotropy_override);
    let [frame, tangent] = readback.frame(gpu, source);
    let [radiance, world] = readback.shading(gpu, source);
    let mut worst = 0.0f32;
    let mut covered = 0;
    for i in 0..tangent.len() {
        let [tx, ty, tz, strength] = tangent[i];
        if !(tx.is_finite() && ty.is_finite() && tz.is_finite()) {
            continue;
        }
        covered += 1;
        let t = Vec3::new(tx, ty, tz);
        let off = axial_deg(t, untilted_t);
        worst = worst.max((off - p.expect_deg).abs());
        assert!(
            (strength - p.strength).abs() <= TOL_STRENGTH,
            "{}: {}: pixel {i}: strength {strength}, expected {}",
            p.name,
            source,
            p.strength
        );
        // The BRDF with the GPU's own frame and direction: only arithmetic differs
        // (tests/unit/gpu/render.rs derives 2⁻¹² of the largest channel).
        let n = Vec3::new(frame[i][0], frame[i][1], frame[i][2]);
        let m = &scene.materials[0].uniforms;
        let s = Surface {
            position: Vec3::new(world[i][0], world[i][1], world[i][2]),
            normal: n,
            tangent: t,
            base_color: m.base_color.truncate(),
            metallic: m.metallic,
            roughness: m.roughness,
            anisotropy: strength,
        };
        let cpu = shading::shade(&s, &uniforms);
        let gpu_rad = Vec3::new(radiance[i][0], radiance[i][1], radiance[i][2]);
        let tol = cpu.max_element().max(gpu_rad.max_element()) * 2f32.powi(-12);
        assert!(
            (cpu - gpu_rad).abs().max_element() <= tol,
            "{}: {}: pixel {i}: radiance {gpu_rad} on the GPU, {cpu} on the CPU",
            p.name,
            source
        );
    }
    assert!(
        covered > tangent.len() / 2,
        "{}: {}: only {covered} pixels drawn",
        p.name,
        source
    );
    worst
}

/// The claim of the README's swirl-disc table, at a size a test can afford: a 256² texture
/// read at mip 2 (64² render) and mip 3 (32²).
#[test]
fn swirl_disc_quaternion_maps_at_most_halve_the_rg_maps_direction_error() {
    let ctx = context();
    let renderer = Renderer::new(ctx).expect("renderer");
    let texture = 256;
    let canonical = disc::scene(texture, RgLayout::Canonical, disc::Relief::Flat).expect("disc");
    let oriented = disc::scene(texture, RgLayout::Oriented, disc::Relief::Flat).expect("disc");
    let upload = |scene: &RenderScene| {
        draw::upload(
            &renderer,
            ctx,
            scene,
            &MapOptions::stored(MapFormat::Rgba16Float),
        )
    };
    let (gpu_c, gpu_o) = (upload(&canonical), upload(&oriented));
    let view = View {
        camera: disc::camera(),
        lighting: disc::lighting(),
        anisotropy_override: None,
        background: Vec3::splat(0.02),
    };
    let mut table = Vec::new();
    let mut failures = Vec::new();
    for size in [64u32, 32] {
        let sampling = disc::TruthSampling::square(size, texture, view.background);
        let truth = disc::truth(&canonical, &view.camera, &view.lighting, sampling);
        let readback = Readback::new(ctx, &renderer, view.clone(), (size, size));
        let stats = |gpu, source| {
            let [_, t] = readback.frame(gpu, source);
            disc::direction_stats(&truth, &t, disc::COHERENT)
        };
        let rg_c = stats(&gpu_c, FrameSource::Reference);
        let rg_o = stats(&gpu_o, FrameSource::Reference);
        for (name, source) in [
            ("tangent-space map", FrameSource::QuatMapTangent),
            ("object-space map", FrameSource::QuatMap),
        ] {
            let q = stats(&gpu_c, source);
            table.push(format!(
                "{size}²: {name}: mean {:.3}° p99 {:.3}° (RG canonical {:.3}° / {:.3}°, oriented {:.3}° / {:.3}°; {} px)",
                q.mean_deg, q.p99_deg, rg_c.mean_deg, rg_c.p99_deg, rg_o.mean_deg, rg_o.p99_deg, q.pixels
            ));
            assert!(q.pixels > 100, "{size}²: only {} pixels judged", q.pixels);
            // The target is against the RG map as tools write it (canonical); the oriented one,
            // which no tool is obliged to write, is printed for the README (the object-space
            // map's p99 at mip 3 is about 0.55× of it, not 0.5×).
            if q.mean_deg > 0.5 * rg_c.mean_deg || q.p99_deg > 0.5 * rg_c.p99_deg {
                failures.push(format!("{size}²: {name}"));
            }
        }
    }
    println!("{}", table.join("\n"));
    assert!(
        failures.is_empty(),
        "not at most half the RG map's error: {}\n{}",
        failures.join(", "),
        table.join("\n")
    );
}

#[test]
fn zero_length_direction_reads_as_the_tangent_turned_by_the_rotation() {
    let rot = Vec2::new(0.6, 0.8);
    let (d, s) = shading::anisotropy_direction(Vec3::new(0.5, 0.5, 0.25), rot);
    assert_eq!((d, s), (rot, 0.25));
    // An 8-bit texel nearest zero is a direction (1/255 off 0.5 in both channels): 45° + θ.
    let (d, _) = shading::anisotropy_direction(Vec3::new(128.0 / 255.0, 128.0 / 255.0, 1.0), rot);
    let expect = Vec2::new(0.6 - 0.8, 0.8 + 0.6) / 2f32.sqrt();
    assert!((d - expect).length() < 1e-6, "{d} vs {expect}");
}
