//! What object-space maps no longer need, and where they no longer draw lines:
//!
//! 1. **Derived handedness.** The handedness the fragment stage derives from the UV winding
//!    (`qmap::texel::winding_handedness`, mirrored by `derived_handedness` in
//!    `shaders/lit.wgsl`) equals the baked handedness plane on every covered texel of
//!    FlightHelmet (every material) and of a mirrored quad pair — except on triangles whose
//!    corners disagree (the file's tangents flip inside them, so the plane changes sign inside
//!    one triangle and no per-triangle rule can follow it): FlightHelmet has two, 45 texels of
//!    132,287 in RubberWoodMat at 512², counted and bounded. (`tests/unit/gpu/render.rs` checks the
//!    GPU's derivation against the plane on the sphere, pixel by pixel.)
//! 2. **Seam-robust sampling.** On a map whose texels alternate sign in a checkerboard (q, −q:
//!    the same rotations, every neighbour pair a hemisphere conflict) the plain hardware filter
//!    returns near-zero quaternions and wrong frames between texels, while `qmap_robust` returns
//!    the CPU's aligned blend within the filter bound.

use crate::common;

use glam::{Quat, Vec2, Vec3, Vec4};
use qtangent::gpu as gq;
use qtangent::qmap::texel::winding_handedness;
use qtangent::qmap::{
    self, BakeMesh, BakeSettings, MapFormat, MapLevel, MapStats, QuatMap, TexelKind,
};
use rand::Rng;

/// Compares the derived handedness with the plane on every covered texel of a CPU bake of
/// `prims` (concatenated as `BakeMesh::from_prepared` does). Returns (covered, mirrored).
fn check_derived(label: &str, bake: &BakeMesh, size: u32) -> (usize, usize) {
    let settings = BakeSettings {
        width: size,
        height: size,
        padding: 0,
        format: MapFormat::Rgba32Float,
    };
    let map = qmap::bake_cpu(bake, None, &settings, &mut ()).expect("bakes");
    let level = &map.levels[0];
    let (mut covered, mut mirrored, mut split, mut wrong) = (0, 0, 0, Vec::new());
    for (k, kind) in map.kind.iter().enumerate() {
        if *kind != TexelKind::Covered {
            continue;
        }
        let t = map.triangle[k] as usize;
        let idx = [0, 1, 2].map(|c| bake.indices[3 * t + c] as usize);
        let h = winding_handedness(idx.map(|v| bake.uvs[v]));
        let plane = f32::from(level.handedness[k]);
        covered += 1;
        if plane < 0.0 {
            mirrored += 1;
        }
        // A triangle whose corners disagree on the handedness (the file's tangents flip inside
        // it) has no one handedness: its plane changes sign inside the triangle. Counted apart.
        let corners = idx.map(|v| bake.frames[v].handedness());
        if corners.iter().any(|&c| c != corners[0]) {
            split += 1;
            continue;
        }
        if h != plane {
            wrong.push((k % size as usize, k / size as usize, t, plane));
        }
    }
    // Split triangles are a defect of the data, and rare: FlightHelmet has 2 (45 texels at 512²).
    assert!(
        split * 2000 <= covered,
        "{label}: {split} of {covered} covered texels lie on triangles whose corners disagree"
    );
    if split > 0 {
        eprintln!("{label}: {split} covered texels on triangles whose corners disagree on the handedness (not compared)");
    }
    assert!(
        wrong.is_empty(),
        "{label}: derived handedness differs from the plane on {} of {covered} covered texels, e.g. {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    (covered, mirrored)
}

#[test]
fn derived_handedness_equals_the_plane_on_flight_helmet() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let (mut total, mut total_mirrored) = (0, 0);
    for (name, bake, _) in common::flight_helmet_materials(&dir) {
        let (c, mi) = check_derived(&name, &bake, 512);
        eprintln!("{name}: {c} covered texels, {mi} mirrored: all equal");
        total += c;
        total_mirrored += mi;
    }
    assert!(total > 100_000, "only {total} covered texels");
    eprintln!("FlightHelmet: {total} covered texels ({total_mirrored} mirrored) — derived = plane");
}

#[test]
fn derived_handedness_equals_the_plane_on_a_mirrored_quad_pair() {
    // Two quads side by side, the right one's UVs mirrored in u, each in its own half of the
    // UV square (so both are covered).
    let v = Vec2::new;
    let prim = common::quad_pair(
        [v(0.0, 1.0), v(0.5, 1.0), v(0.5, 0.0), v(0.0, 0.0)],
        [v(1.0, 1.0), v(0.5, 1.0), v(0.5, 0.0), v(1.0, 0.0)],
    );
    let prepared = prim.prepare().expect("prepares");
    let bake = BakeMesh::from_prepared("mirrored quad pair", &[&prepared]);
    let (covered, mirrored) = check_derived("mirrored quad pair", &bake, 64);
    // Half the texels each way.
    assert!(covered >= 64 * 60 && mirrored >= covered / 2 - 64 && mirrored <= covered / 2 + 64);
}

use crate::common::context;

/// A 32 × 32 rgba32f map of a smooth rotation field, every other texel negated (checkerboard):
/// each texel is the right rotation, every neighbour pair a hemisphere conflict.
fn checkerboard() -> (QuatMap, Vec<Vec4>) {
    let n = 32u32;
    let mut smooth = Vec::new();
    let mut signed = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let q = Quat::from_euler(
                glam::EulerRot::YXZ,
                0.4 * (x as f32 / n as f32 * 6.0).sin(),
                0.3 * (y as f32 / n as f32 * 5.0).cos(),
                0.02 * (x + y) as f32,
            );
            let v = Vec4::from(q);
            smooth.push(v);
            signed.push(if (x + y) % 2 == 0 { v } else { -v });
        }
    }
    let len = (n * n) as usize;
    let level = MapLevel {
        width: n,
        height: n,
        quats: signed,
        handedness: vec![1; len],
    };
    let map = QuatMap {
        format: MapFormat::Rgba32Float,
        levels: vec![level],
        kind: vec![TexelKind::Covered; len],
        triangle: vec![0; len],
        stats: MapStats::default(),
    };
    (map, smooth)
}

#[test]
fn seam_robust_sampler_passes_the_checkerboard_where_the_plain_one_fails() {
    let ctx = context();
    let (map, smooth) = checkerboard();
    let gpu_map = qtangent::gpu::qmap::upload_map(ctx, &map).unwrap_or_else(|e| panic!("{e}"));
    let n = 32.0f32;
    common::for_seeds("checkerboard", 1, |seed, rng| {
        // Points between texel centres, away from the clamped border.
        let points: Vec<(Vec2, f32)> = (0..4000)
            .map(|_| {
                (
                    Vec2::new(
                        rng.random_range(1.5..n - 1.5),
                        rng.random_range(1.5..n - 1.5),
                    ) / n,
                    0.0,
                )
            })
            .collect();
        // The CPU's aligned bilinear blend of the smooth field (the sign-free truth), and the
        // checkerboard's signed weight sum there: the length of what the hardware filter
        // returns, up to the small differences between neighbouring rotations.
        let expected = |uv: Vec2| {
            let s = uv * n - Vec2::splat(0.5);
            let (i, f) = (s.floor(), s - s.floor());
            let at = |dx: f32, dy: f32| smooth[((i.y + dy) * n + i.x + dx) as usize];
            let w = [
                (1.0 - f.x) * (1.0 - f.y),
                f.x * (1.0 - f.y),
                (1.0 - f.x) * f.y,
                f.x * f.y,
            ];
            let q = at(0.0, 0.0) * w[0]
                + at(1.0, 0.0) * w[1]
                + at(0.0, 1.0) * w[2]
                + at(1.0, 1.0) * w[3];
            let parity = if (i.x + i.y) as i32 % 2 == 0 {
                1.0
            } else {
                -1.0
            };
            let signed = parity * (w[0] - w[1] - w[2] + w[3]);
            (Quat::from_vec4(q).normalize() * Vec3::Z, signed.abs())
        };
        let run = |filter| {
            gq::sample_frames(ctx, &gpu_map, &points, filter)
                .unwrap_or_else(|e| panic!("sampling: {e}"))
        };
        let (plain, robust) = (run(gq::MapFilter::Linear), run(gq::MapFilter::LinearRobust));
        // atan2 of |a × b| and a · b: exact near 0, where acos(a · b) is off by √(2ε).
        let angle = |a: Vec3, b: Vec3| a.cross(b).length().atan2(a.dot(b)).to_degrees();
        let (mut plain_bad, mut hand, mut worst) = (0, 0, 0.0f32);
        for ((p, g0), g1) in points.iter().zip(&plain).zip(&robust) {
            let (want, signed) = expected(p.0);
            if angle(Vec3::from_array(g0.normal), want) > 5.0 {
                plain_bad += 1;
            }
            let e = angle(Vec3::from_array(g1.normal), want);
            // |signed| < 0.85: the filtered length is below 0.9 (the rotations here are ≤ 5°
            // apart, which changes it by < 0.01, and 8-bit weight snapping by < 0.02), so
            // |q|² < 0.81 and the hand blend runs: exact weights and texels on both sides, f32
            // rounding only (≤ 1e-3°). Otherwise the minority weight w ≤ 0.075 and the hardware
            // result stands: off by at most 2·asin((2w·sin(α/2) + E_w)/0.8) for rotations α = 5°
            // apart and weight snapping E_w ≤ 2·2⁻⁸·2 (neighbour differences of 2 here): 3°.
            let bound = if signed < 0.85 { 1e-3 } else { 3.0 };

            if signed < 0.85 {
                hand += 1;
            }
            assert!(
                e <= bound,
                "seed {seed:#x}: robust sample at {} (signed weight {signed}) is {e}° from the aligned blend > {bound}°",
                p.0
            );
            worst = worst.max(e);
        }
        // Between texels of a checkerboard footprints cancel: many plain samples are off.
        assert!(
            plain_bad > points.len() / 4,
            "the plain sampler was off by > 5° at only {plain_bad} of {} points: the test map is not hard enough",
            points.len()
        );
        assert!(
            hand > points.len() / 2,
            "only {hand} points took the hand blend"
        );
        eprintln!(
            "checkerboard: plain filter off by > 5° at {plain_bad} of {} points; robust: {hand} hand-blended, worst {worst:.2e}°",
            points.len()
        );
    });
}

/// The GPU's derived handedness (`derived_handedness` in `shaders/lit.wgsl`) against the plane
/// and the vertex frames, pixel by pixel, on a mirrored quad pair seen from the front and from
/// the back, with an identity and with a mirroring model matrix: every case the derivation's
/// signs (UV Jacobian, facing, model handedness) have to get right.
#[test]
fn gpu_derived_handedness_matches_plane_and_vertices_front_back_and_mirrored() {
    use crate::draw::{self, Readback};
    use glam::Mat4;
    use qtangent::gpu::{Renderer, DEBUG_POISON};
    use qtangent::qmap::MapFormat;
    use qtangent::qmap::MapOptions;
    use qtangent::render::{FrameSource, MapSource, MaterialUniforms, SceneMaterial};
    let ctx = context();
    let renderer = Renderer::new(ctx).expect("renderer");
    // The halves' UV islands 6 texels apart at 64², so the plane's filter never mixes them.
    let v = Vec2::new;
    let mesh = common::quad_pair(
        [v(0.0, 1.0), v(0.45, 1.0), v(0.45, 0.0), v(0.0, 0.0)],
        [v(1.0, 1.0), v(0.55, 1.0), v(0.55, 0.0), v(1.0, 0.0)],
    )
    .prepare()
    .expect("prepares");
    let plain = MapFormat::Rgba16Float;
    for (model, yaw) in [
        (Mat4::IDENTITY, 0.0),
        (Mat4::IDENTITY, 180.0),
        (Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)), 0.0),
        (Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)), 180.0),
    ] {
        let scene = draw::single_scene(
            "quad pair",
            mesh.clone(),
            SceneMaterial::plain("plain", MaterialUniforms::default()),
            MapSource::Bake { size: 64 },
            model,
        );
        let upload = |keep_handedness| {
            let options = MapOptions {
                keep_handedness,
                ..MapOptions::stored(plain)
            };
            draw::upload(&renderer, ctx, &scene, &options)
        };
        let (derived, plane) = (upload(false), upload(true));
        let readback = Readback::quad_pair(ctx, &renderer, yaw);
        let frame = |gpu, source| {
            let [frame, _] = readback.frame(gpu, source);
            frame
        };
        let d = frame(&derived, FrameSource::QuatMap);
        let p = frame(&plane, FrameSource::QuatMap);
        let r = frame(&derived, FrameSource::Reference);
        let (mut covered, mut negative) = (0, 0);
        for k in 0..r.len() {
            if r[k][0] == DEBUG_POISON {
                continue;
            }
            covered += 1;
            // Handedness is exactly ±1 in all three (a sign, not a filtered value).
            assert!(
                d[k][3] == p[k][3] && d[k][3] == r[k][3],
                "yaw {yaw}, model det {}: pixel {k}: derived {} plane {} vertices {}",
                model.determinant(),
                d[k][3],
                p[k][3],
                r[k][3]
            );
            if d[k][3] < 0.0 {
                negative += 1;
            }
        }
        // Both halves on screen, each about half the covered pixels.
        assert!(
            covered > 2000 && negative > covered / 3 && negative < 2 * covered / 3,
            "yaw {yaw}: {covered} covered, {negative} with handedness −1"
        );
    }
}
