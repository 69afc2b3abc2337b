//! Quaternion maps on the CPU: the map formats' bounds, the mirrored maths against glam, and the
//! CPU reference baker against frame fields known independently of it (an analytic torus, a
//! flat quad under a normal map).

use std::f32::consts::TAU;

use glam::{Mat3, Quat, Vec2, Vec3, Vec4};
use qtangent::lab::shapes;
use qtangent::qmap::{self, texel, BakeMesh, BakeSettings, MapFormat, NormalMap, TexelKind};
use qtangent::{QTangent, TangentFrame};
use rand::{Rng, SeedableRng};

/// Angle between two vectors in degrees (f64 inside, as `measure::angle_deg`).
fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    qtangent::measure::angle_deg(a, b) as f32
}

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

fn rng() -> rand_pcg::Pcg64 {
    rand_pcg::Pcg64::seed_from_u64(SEED)
}

fn random_unit_quat(r: &mut impl Rng) -> Quat {
    loop {
        let v = Vec4::new(
            r.random_range(-1.0..1.0),
            r.random_range(-1.0..1.0),
            r.random_range(-1.0..1.0),
            r.random_range(-1.0..1.0),
        );
        let l = v.length();
        if l > 0.1 && l <= 1.0 {
            return Quat::from_vec4(v / l);
        }
    }
}

/// The frame a stored texel decodes to.
fn decode(q: Vec4, h: i8) -> TangentFrame {
    QTangent {
        rotation: Quat::from_vec4(q),
        reflected: h < 0,
    }
    .to_frame()
}

#[test]
fn map_formats_stay_within_their_stated_bounds() {
    let mut r = rng();
    for format in MapFormat::UNCOMPRESSED {
        let mut worst = 0.0f32;
        for i in 0..20_000 {
            let q = random_unit_quat(&mut r);
            let stored = format.quantize(Vec4::from(q));
            // Per component: at most half a step (with the f32 rounding half_step includes).
            let d = (stored - Vec4::from(q)).abs().max_element();
            assert!(
                d <= format.half_step(),
                "{format} sample {i} (seed {SEED:#x}): component off by {d}"
            );
            let a = decode(Vec4::from(q), 1);
            let b = decode(stored, 1);
            let e = angle_deg(a.normal, b.normal)
                .max(angle_deg(a.tangent, b.tangent))
                .max(angle_deg(a.bitangent, b.bitangent));
            worst = worst.max(e);
        }
        // The f32 decode itself adds up to a few ulps of a unit vector (≈1e-5°).
        let bound = format.max_error_deg().expect("uncompressed") + 1e-4;
        println!("{format}: worst {worst:.5}°, bound {bound:.5}°");
        assert!(
            worst <= bound,
            "{format}: {worst}° > {bound}° (seed {SEED:#x})"
        );
        // The bound is not vacuous: it is within 4× of what is reached (f32 aside).
        if format != MapFormat::Rgba32Float {
            assert!(
                worst > bound / 4.0,
                "{format}: bound {bound}° is loose ({worst}°)"
            );
        }
    }
}

#[test]
fn snorm_packing_is_wgsl_rounding() {
    // WGSL pack2x16snorm: floor(0.5 + 32767 · clamp(e, −1, 1)); ±1 are ±32767.
    let w = MapFormat::Rgba16Snorm.pack(Vec4::new(-1.0, 1.0, 0.5 / 32767.0, -0.5 / 32767.0));
    assert_eq!(w[0] & 0xffff, (-32767i32 as u32) & 0xffff);
    assert_eq!(w[0] >> 16, 32767);
    assert_eq!(w[1] & 0xffff, 1, "+½ step rounds up");
    assert_eq!(w[1] >> 16, 0, "−½ step rounds up to 0");
    let w = MapFormat::Rgba8Snorm.pack(Vec4::new(-1.0, 1.0, 0.0, 2.0));
    assert_eq!(w[0], 0x7f00_7f81);
}

#[test]
fn mirrored_maths_agrees_with_glam() {
    let mut r = rng();
    for i in 0..10_000 {
        let q = random_unit_quat(&mut r);
        let m = Mat3::from_quat(q);
        let ours = texel::quat_from_axes(m.x_axis, m.y_axis, m.z_axis);
        let theirs = Vec4::from(Quat::from_mat3(&m));
        assert!(
            (ours - theirs).abs().max_element() <= 4.0 * f32::EPSILON,
            "sample {i} (seed {SEED:#x}): {ours} vs {theirs}"
        );
        let n = m.z_axis;
        let t = texel::any_tangent(n);
        // Perpendicular unit vector, as glam's any_orthonormal_pair (sign of z aside at z = −0).
        assert!(
            t.dot(n).abs() < 1e-5 && (t.length() - 1.0).abs() < 1e-5,
            "{n} → {t}"
        );
        let (gt, _) = n.any_orthonormal_pair();
        assert!((gt - t).abs().max_element() < 1e-6, "{n}: {t} vs glam {gt}");
        // arc_from_z is the shortest arc, as glam's from_rotation_arc.
        if n.z > -0.99 {
            let a = Quat::from_vec4(texel::arc_from_z(n));
            assert!((a * Vec3::Z - n).length() < 1e-5);
            let g = Quat::from_rotation_arc(Vec3::Z, n);
            assert!(Vec4::from(a).dot(Vec4::from(g)).abs() > 1.0 - 1e-6);
        }
        // Hamilton product matches glam's.
        let b = random_unit_quat(&mut r);
        let p = texel::quat_mul(Vec4::from(q), Vec4::from(b));
        assert!((p - Vec4::from(q * b)).abs().max_element() < 1e-6);
    }
}

#[test]
fn coverage_follows_the_top_left_rule() {
    // Two triangles sharing the diagonal of a 4×4 square cover each of its 16 texel centres
    // exactly once, and the shared edges through texel centres are decided one way.
    let p = [
        Vec2::new(0.0, 0.0),
        Vec2::new(4.0, 0.0),
        Vec2::new(4.0, 4.0),
        Vec2::new(0.0, 4.0),
    ];
    let a = [p[0], p[1], p[2]];
    let b = [p[0], p[2], p[3]];
    let mut count = 0;
    for y in 0..6 {
        for x in 0..6 {
            let n =
                usize::from(qmap::cpu::covers(&a, x, y)) + usize::from(qmap::cpu::covers(&b, x, y));
            let inside = x < 4 && y < 4;
            assert_eq!(n, usize::from(inside), "texel ({x}, {y})");
            count += n;
        }
    }
    assert_eq!(count, 16);
    // A triangle whose edges run through texel centres: x = 0.5 line is a left edge (kept),
    // x = 2.5 a right edge (dropped).
    let t = [
        Vec2::new(0.5, 0.0),
        Vec2::new(2.5, 0.0),
        Vec2::new(0.5, 4.0),
    ];
    assert!(qmap::cpu::covers(&t, 0, 1));
    let t2 = [
        Vec2::new(0.5, 0.0),
        Vec2::new(2.5, 0.0),
        Vec2::new(2.5, 4.0),
    ];
    assert!(!qmap::cpu::covers(&t2, 2, 3));
}

/// The torus of `shapes::torus` with its analytic frames at the vertices (not MikkTSpace's),
/// so the field is known everywhere: n from `torus_point`, t = (−sin φ, 0, −cos φ), b = n × t.
fn analytic_torus(segments: u32, rings: u32) -> (BakeMesh, impl Fn(Vec2) -> TangentFrame) {
    let (major, minor) = (1.0, 0.4);
    let prim = qtangent::mesh::Primitive::torus(major, minor, segments, rings);
    let field = move |uv: Vec2| {
        let (phi, psi) = (uv.x * TAU, -uv.y * TAU);
        let (_, n) = shapes::torus_point(major, minor, phi, psi);
        let t = Vec3::new(-phi.sin(), 0.0, -phi.cos());
        TangentFrame {
            normal: n,
            tangent: t,
            bitangent: n.cross(t),
        }
    };
    let uvs = prim.uvs.clone().expect("the torus has UVs");
    let frames = uvs.iter().map(|&uv| field(uv)).collect();
    (
        BakeMesh {
            label: "analytic torus".into(),
            uvs,
            frames,
            indices: prim.indices.clone(),
        },
        field,
    )
}

/// The f32 rounding of the CPU bake and decode of one texel, beyond the interpolation bound and
/// the format's, in units of the f32 unit roundoff U (first order; a quaternion whose 4-vector
/// is off by δ rotates at most 2δ further, and no vector it turns moves more). The field `want`
/// is evaluated in f32 too, but the bound holds for any `want`: a convex combination of the
/// corner normals is no further from any direction than the farthest corner (`a_n` is measured
/// from the same `want`), so only the baker's and decoder's own arithmetic counts:
/// - interpolation Σ lᵢ·nᵢ (lᵢ ≥ 0, Σ lᵢ = 1, |nᵢ| = 1): three products and two sums a
///   component, 3U of a vector of length ≥ cos(corner spread) ≈ 1: 3U; normalised: U;
/// - `quat_from_axes(t, cross(n, t), n)`: the f32 cross product, 2U·√3 ≈ 4U off the orthonormal
///   matrix, and the method's sums, square root and products, 3U of the 4-vector (rotation 6U):
///   10U; normalised, 2U (rotation);
/// - decode (`QTangent::to_frame`): q·(1/|q|), 2U (rotation); `quat_to_mat3`'s column from two
///   products and a sum (or four squares), within 5U;
/// - the tangent's extra: its interpolation 3U, Gram–Schmidt t − n(n·t) 5U and the projection
///   axis n off by the normal's 4U, normalised U — 13U.
///
/// Normal 23U, tangent 32U: 8e-5° and 1.1e-4°. (The earlier `+ 1e-3°` was 9 times the tangent's.)
const F32_NORMAL_DEG: f32 = (3.0 + 1.0 + F32_FRAME_TO_TEXEL_AND_BACK) * U_DEG;
const F32_TANGENT_DEG: f32 = (3.0 + 5.0 + 4.0 + 1.0 + F32_FRAME_TO_TEXEL_AND_BACK) * U_DEG;
/// `quat_from_axes`, normalisation, `to_frame`'s scaling and its matrix column: 10 + 2 + 2 + 5.
const F32_FRAME_TO_TEXEL_AND_BACK: f32 = 19.0;

/// The f32 unit roundoff as an angle in degrees.
const U_DEG: f32 = f32::EPSILON / 2.0 * (180.0 / std::f32::consts::PI);

#[test]
fn torus_map_matches_the_analytic_field() {
    let (mesh, field) = analytic_torus(48, 24);
    let size = 192;
    let format = MapFormat::Rgba16Float;
    let settings = BakeSettings {
        width: size,
        height: size,
        padding: 2,
        format,
    };
    let map = qmap::bake_cpu(&mesh, None, &settings, &mut ()).expect("bake");
    let level = &map.levels[0];
    assert_eq!(
        map.stats.covered,
        (size * size) as usize,
        "the torus UVs cover the square"
    );
    let (mut worst_n, mut worst_t, mut checked, mut worst_share) = (0.0f32, 0.0f32, 0, 0.0f32);
    for y in 0..size {
        for x in 0..size {
            let k = (y * size + x) as usize;
            assert_eq!(map.kind[k], TexelKind::Covered);
            let uv = Vec2::new(
                (x as f32 + 0.5) / size as f32,
                (y as f32 + 0.5) / size as f32,
            );
            let want = field(uv);
            let got = decode(level.quats[k], level.handedness[k]);
            assert_eq!(
                level.handedness[k], 1,
                "texel ({x}, {y}): the field is right-handed"
            );
            // Bound (derived in the README): the interpolated normal lies in the spherical
            // triangle of the corner normals, so it is no further from the true normal than the
            // farthest corner normal (A_n); Gram–Schmidt moves the interpolated tangent by at most
            // A_n + A_t, so the tangent is within 2·A_t + A_n. Plus the format's bound and f32.
            let tri = map.triangle[k] as usize;
            let corners = [0, 1, 2].map(|c| mesh.frames[mesh.indices[3 * tri + c] as usize]);
            let a_n = corners
                .iter()
                .map(|c| angle_deg(c.normal, want.normal))
                .fold(0.0, f32::max);
            let a_t = corners
                .iter()
                .map(|c| angle_deg(c.tangent, want.tangent))
                .fold(0.0, f32::max);
            let format_deg = format.max_error_deg().expect("uncompressed");
            let (slack_n, slack_t) = (format_deg + F32_NORMAL_DEG, format_deg + F32_TANGENT_DEG);
            let e_n = angle_deg(got.normal, want.normal);
            let e_t = angle_deg(got.tangent, want.tangent);
            assert!(
                e_n <= a_n + slack_n,
                "texel ({x}, {y}): normal off {e_n}° > {a_n}° + {slack_n}°"
            );
            assert!(
                e_t <= 2.0 * a_t + a_n + slack_t,
                "texel ({x}, {y}): tangent off {e_t}° > 2·{a_t}° + {a_n}° + {slack_t}°"
            );
            worst_share = worst_share
                .max(e_n / (a_n + slack_n))
                .max(e_t / (2.0 * a_t + a_n + slack_t));
            worst_n = worst_n.max(e_n);
            worst_t = worst_t.max(e_t);
            checked += 1;
        }
    }
    println!("torus 48×24 at {size}²: {checked} texels, worst normal {worst_n:.3}°, tangent {worst_t:.3}°, at most {worst_share:.3} of a texel's bound");
    // One step of the tessellation is 360/48 = 7.5° around the axis; the interpolation error is
    // second order, far below it. A map that swapped axes or flipped v would be tens of degrees off.
    assert!(worst_n < 1.0 && worst_t < 1.0);
}

/// Two triangles covering the unit UV square, every corner with the same frame.
pub(super) fn flat_quad(frame: TangentFrame) -> BakeMesh {
    BakeMesh {
        label: "flat quad".into(),
        uvs: vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0),
        ],
        frames: vec![frame; 4],
        indices: vec![0, 1, 2, 0, 2, 3],
    }
}

#[test]
fn flat_quad_map_is_the_vertex_frame_times_the_normal_map() {
    let mut r = rng();
    let size = 32u32;
    // A normal map of random tangent-space directions (z ≥ 0.3), one per texel.
    let texels: Vec<Vec3> = (0..size * size)
        .map(|_| loop {
            let v = Vec3::new(
                r.random_range(-1.0..1.0),
                r.random_range(-1.0..1.0),
                r.random_range(0.3..1.0),
            );
            if v.length() <= 1.0 {
                break v.normalize();
            }
        })
        .collect();
    let normal_map = NormalMap {
        width: size,
        height: size,
        texels: texels.clone(),
    };
    for mirrored in [false, true] {
        for format in [
            MapFormat::Rgba16Float,
            MapFormat::Rgba16Snorm,
            MapFormat::Rgba8Snorm,
        ] {
            let rot = random_unit_quat(&mut r);
            let m = Mat3::from_quat(rot);
            let h = if mirrored { -1.0 } else { 1.0 };
            let frame = TangentFrame {
                normal: m.z_axis,
                tangent: m.x_axis,
                bitangent: m.y_axis * h,
            };
            let settings = BakeSettings {
                width: size,
                height: size,
                padding: 0,
                format,
            };
            let map = qmap::bake_cpu(&flat_quad(frame), Some(&normal_map), &settings, &mut ())
                .expect("bake");
            let level = &map.levels[0];
            let mut worst = 0.0f32;
            for (k, t) in texels.iter().enumerate() {
                // Independent expectation: the tangent-space vector m (with y along the
                // bitangent) in object space is t·mx + b·my + n·mz; the whole frame is the
                // vertex rotation times glam's shortest arc from +Z to (mx, h·my, mz).
                let want_n =
                    (frame.tangent * t.x + frame.bitangent * t.y + frame.normal * t.z).normalize();
                let local = Vec3::new(t.x, h * t.y, t.z);
                let want_q = rot * Quat::from_rotation_arc(Vec3::Z, local);
                let want = QTangent {
                    rotation: want_q,
                    reflected: mirrored,
                }
                .to_frame();
                let got = decode(level.quats[k], level.handedness[k]);
                assert_eq!(f32::from(level.handedness[k]), h, "texel {k}");
                // The sample lands on the texel centre up to f32 rounding of (x + ½)/size·size
                // (≤ 2 ulp of 32: 8e-6 of a texel), so the bilinear mix adds < 1e-5 rad; the
                // format bound and f32 decode (1e-4°) cover the rest.
                let bound = format.max_error_deg().expect("uncompressed") + 2e-3;
                let e = angle_deg(got.normal, want_n)
                    .max(angle_deg(got.normal, want.normal))
                    .max(angle_deg(got.tangent, want.tangent))
                    .max(angle_deg(got.bitangent, want.bitangent));
                assert!(
                    e <= bound,
                    "{format} mirrored={mirrored} texel {k}: {e}° > {bound}° (seed {SEED:#x})"
                );
                worst = worst.max(e);
            }
            println!("flat quad {format} mirrored={mirrored}: worst {worst:.4}°");
        }
    }
}

#[test]
fn overlaps_are_counted_and_the_lowest_triangle_wins() {
    // The same quad twice with different frames: every texel is covered twice; triangle 0/1
    // (the first quad) wins.
    let a = flat_quad(TangentFrame {
        normal: Vec3::Z,
        tangent: Vec3::X,
        bitangent: Vec3::Y,
    });
    let b = flat_quad(TangentFrame {
        normal: Vec3::X,
        tangent: Vec3::Y,
        bitangent: Vec3::Z,
    });
    let mut mesh = a.clone();
    mesh.uvs.extend(&b.uvs);
    mesh.frames.extend(&b.frames);
    mesh.indices.extend(b.indices.iter().map(|i| i + 4));
    let settings = BakeSettings {
        width: 16,
        height: 16,
        padding: 1,
        format: MapFormat::Rgba16Float,
    };
    let map = qmap::bake_cpu(&mesh, None, &settings, &mut ()).expect("bake");
    assert_eq!(map.stats.overlapping, 256);
    assert!(map.triangle.iter().all(|&t| t < 2));
    let f = decode(map.levels[0].quats[0], map.levels[0].handedness[0]);
    assert!(angle_deg(f.normal, Vec3::Z) < 0.1);
}

#[test]
fn degenerate_triangles_are_skipped_and_counted() {
    let mut mesh = flat_quad(TangentFrame {
        normal: Vec3::Z,
        tangent: Vec3::X,
        bitangent: Vec3::Y,
    });
    // Zero-area triangle (three collinear UVs).
    mesh.uvs.extend([
        Vec2::new(0.1, 0.1),
        Vec2::new(0.2, 0.2),
        Vec2::new(0.3, 0.3),
    ]);
    mesh.frames.extend([mesh.frames[0]; 3]);
    mesh.indices.extend([4, 5, 6]);
    let settings = BakeSettings {
        width: 8,
        height: 8,
        ..BakeSettings::default()
    };
    let map = qmap::bake_cpu(&mesh, None, &settings, &mut ()).expect("bake");
    assert_eq!(map.stats.degenerate_triangles, 1);
    assert_eq!(map.stats.triangles, 2);
}

#[test]
fn bad_bake_input_is_a_clear_error() {
    let good = flat_quad(TangentFrame {
        normal: Vec3::Z,
        tangent: Vec3::X,
        bitangent: Vec3::Y,
    });
    let s = BakeSettings::default();
    let check = |mesh: &BakeMesh, settings: &BakeSettings, want: &str| {
        let e = qmap::bake_cpu(mesh, None, settings, &mut ())
            .expect_err("bad input must fail")
            .to_string();
        assert!(e.contains(want), "{e:?} should mention {want:?}");
    };
    let mut m = good.clone();
    m.indices.push(99);
    check(&m, &s, "not a whole");
    m.indices.extend([99, 99]);
    check(&m, &s, "index 99 is out of range");
    let mut m = good.clone();
    m.uvs[2].x = f32::NAN;
    check(&m, &s, "non-finite UV");
    let mut m = good.clone();
    m.frames.pop();
    check(&m, &s, "4 UVs but 3 frames");
    check(&good, &BakeSettings { width: 0, ..s }, "out of range");
    check(
        &good,
        &BakeSettings {
            height: 40_000,
            ..s
        },
        "out of range",
    );
}

/// An object-space bake warns about triangles whose UVs have no area (a CAD export's collapsed
/// UVs, 995 of 2258 triangles on the Laikago leg): the map holds no frame of theirs. Three
/// triangles, one with its three UVs on a line: exactly one of three is named; without it,
/// no such warning.
#[test]
fn object_bake_warns_about_triangles_without_uv_area() {
    use qtangent::qmap::{Baker, MapOptions, ObjectInput, Repack};
    use qtangent::{Warning, WarningKind};
    let uvs = [
        [(0.1, 0.1), (0.4, 0.1), (0.1, 0.4)],
        [(0.5, 0.5), (0.9, 0.5), (0.5, 0.9)],
        [(0.25, 0.5), (0.375, 0.625), (0.5, 0.75)], // collinear (exact in f32): no area
    ];
    let bake = |triangles: &[[(f32, f32); 3]]| {
        let mut mesh = BakeMesh {
            label: "three triangles".into(),
            ..BakeMesh::default()
        };
        for t in triangles {
            for &(u, v) in t {
                mesh.indices.push(mesh.uvs.len() as u32);
                mesh.uvs.push(Vec2::new(u, v));
                mesh.frames.push(TangentFrame {
                    normal: Vec3::Z,
                    tangent: Vec3::X,
                    bitangent: Vec3::Y,
                });
            }
        }
        let options = MapOptions {
            format: Some(MapFormat::Rgba16Float),
            ..MapOptions::default()
        };
        let input = ObjectInput {
            mesh,
            normal_map: None,
            direction: None,
            size: 64,
            repack: Repack::Never,
        };
        let mut warnings: Vec<Warning> = Vec::new();
        Baker::new(qtangent::qmap::RasterBackend::CPU, &options)
            .object(input, &mut warnings)
            .expect("a valid mesh bakes");
        warnings
            .into_iter()
            .filter(|w| matches!(w.kind(), WarningKind::NoUvArea { .. }))
            .collect::<Vec<_>>()
    };
    let warned = bake(&uvs);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert_eq!(warned[0].place(), "three triangles");
    assert_eq!(
        warned[0].kind(),
        &WarningKind::NoUvArea {
            triangles: 1,
            of: 3
        }
    );
    assert!(
        warned[0].to_string().contains("1 of 3 triangles"),
        "{}",
        warned[0]
    );
    assert!(bake(&uvs[..2]).is_empty(), "two triangles with area warn");
}
