//! Tangent-space quaternion maps (`qmap::tangent`):
//!
//! 1. The GPU bake equals the CPU bake per texel, every plain format, with and without a twist.
//! 2. Texel-exact decode: on random normal maps and random vertex frames, unmirrored and
//!    mirrored (the texel the frame reads is chosen here: filtering and repeat addressing are the
//!    GPU's, checked by `tests/unit/gpu/render.rs` across the sphere's u seam), the frame a stored texel decodes to has the normal normal mapping gives,
//!    `normalize(t·mx + b·my + n·mz)`, within the stored format's bound (plain formats: the
//!    format's rotation bound; BC5 / BC7, lossy: each texel's own stored-vs-exact rotation
//!    angle), and keeps the twist's tangent.
//! 3. On the GPU, a flat quad pair — one half mirrored, UVs running over 3 tiles — drawn in
//!    `quatmap-tangent` mode with a constant random normal map has, at every covered pixel, the
//!    normal and handedness the reference mode draws with the same normal map, within the
//!    rgba16f bound (constant content: what it checks is the mirrored half, and that tiled UVs
//!    draw; non-constant content under repeat addressing is the sphere test's).

use crate::common;

use glam::{DQuat, DVec3, Mat4, Vec2, Vec3, Vec4};
use qtangent::gpu::{Renderer, DEBUG_POISON};
use qtangent::lab::fixtures::{twist_levels, Twist};
use qtangent::mesh::Primitive;
use qtangent::qmap::stored::Encoding;
use qtangent::qmap::EncodedMap;
use qtangent::qmap::MapOptions;
use qtangent::qmap::MapSpace;
use qtangent::qmap::{tangent, MapFormat, NormalMap};
use qtangent::render::{FrameSource, MapSource, MaterialUniforms, SceneMaterial};
use qtangent::Format;
use rand::Rng;

const U: f32 = common::U;

/// The f32 slack of the crate's chain from a normal-map texel to the frame `tangent::apply`
/// returns, in units of the f32 unit roundoff U (radians), against a reference computed in f64
/// from the same f32 inputs (first order; a rotation of a quaternion whose 4-vector is off by
/// δ is at most 2δ, and no rotated vector moves further):
/// - the bake (`texel_rotation`): m normalised, direction within U; `arc_from_z`, w = 1 + m.z
///   rounded (relative U, and w / |q| ≤ 1) and q normalised (U): 4-vector 2U, rotation 4U; the
///   product with the twist (0, 0, s, c), two products and a sum a component: 4-vector 4U,
///   rotation 8U; normalised, 2U — 15U;
/// - the decode: `r / |r|` and `Quat::normalize` in `apply`, 2U each; `Mat3::from_quat`, each
///   column's components from three rounded terms (|·| ≤ 2): within 7U as a vector — 11U;
/// - `apply`'s sum t·z.x + c·z.y + n·z.z, three products and two sums a component: 3U·√3 ≈ 6U;
///   its c = cross(n, t) in f32, 2U·√3 ≈ 4U where the reference has h·cross(n, t) in f64 — 10U;
/// - the twist's (sin, cos)(φ/2) in f32, each within U: the tangent only, rotation 2U.
///
/// 38U in all, about 1.3e-4°. (The earlier 1e-3° was 7.7 times that; what it could not cover
/// was glam's f32 `Quat::from_rotation_arc` in the test's reference, which returns the identity
/// for any m within √(8U) = 0.04° of Z — now f64, where that cut-off is 3e-8 rad.)
const SLACK_DEG: f32 = (15.0 + 11.0 + 10.0 + 2.0) * U * (180.0 / std::f32::consts::PI);

use crate::common::context;
use crate::draw::{self, Readback};

/// A random normal map of `w × h` (unnormalised vectors as unpacked, z > 0: tilts up to ~70°).
fn random_normal_map(rng: &mut impl Rng, w: u32, h: u32) -> NormalMap {
    let texels = (0..w * h)
        .map(|_| {
            Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(0.35..1.0),
            )
        })
        .collect();
    NormalMap {
        width: w,
        height: h,
        texels,
    }
}

/// The angle (degrees) between an f32 vector and an f64 reference, in f64: no rounding of its own
/// at the sizes measured here.
fn angle_deg(a: Vec3, b: DVec3) -> f32 {
    let a = a.as_dvec3();
    a.cross(b).length().atan2(a.dot(b)).to_degrees() as f32
}

/// The rotation angle (radians) between two quaternions' rotations, sign-insensitive, in f64.
fn quat_angle(a: Vec4, b: Vec4) -> f64 {
    let (a, b) = (
        DQuat::from_vec4(a.as_dvec4()).normalize(),
        DQuat::from_vec4(b.as_dvec4()).normalize(),
    );
    let r = a.conjugate() * b;
    2.0 * r.xyz().length().atan2(r.w.abs())
}

#[test]
fn gpu_bake_equals_cpu_bake_per_texel() {
    let ctx = context();
    common::for_seeds("tangent bake gpu = cpu", 2, |seed, rng| {
        // Odd sizes: no accidental row-stride agreement.
        let levels = vec![
            random_normal_map(rng, 37, 23),
            random_normal_map(rng, 18, 11),
        ];
        let twist_field = |uv: Vec2| 3.0 * (uv.x - 0.5) + 2.0 * (uv.y - 0.5);
        for twist in [false, true] {
            let texels = if twist {
                twist_levels(&levels, &twist_field)
            } else {
                Vec::new()
            };
            let tw = twist.then_some(tangent::TwistField(&texels));
            for format in MapFormat::UNCOMPRESSED {
                let cpu = tangent::bake_cpu(&levels, tw, format);
                // The GPU bake itself: `RasterBackend::bake_tangent` of a CPU adapter (lavapipe)
                // runs the CPU bake, which would compare it with itself.
                let gpu = crate::gpu::bake_tangent::bake_gpu(ctx, &levels, tw, format)
                    .unwrap_or_else(|e| panic!("seed {seed:#x}: GPU bake: {e}"));
                // Both run the same f32 operations; the GPU may fuse or reorder (a few ulps) and
                // round the result to the other side of a step: one step (two half steps) per
                // component, plus 16 f32 roundings. With a twist WGSL's sin / cos are allowed an
                // absolute error of 2⁻¹¹ (on [−π, π]); the product with (0, 0, s, c) moves each
                // component by at most √2 of that, and normalisation at most doubles it.
                let mut tol = 2.0 * format.half_step() + 16.0 * U;
                if twist {
                    tol += 2.0 * std::f32::consts::SQRT_2 * 2f32.powi(-11);
                }
                let mut worst = 0.0f32;
                for (k, (lc, lg)) in cpu.levels.iter().zip(&gpu.levels).enumerate() {
                    assert_eq!((lc.width, lc.height), (lg.width, lg.height));
                    for (i, (c, g)) in lc.quats.iter().zip(&lg.quats).enumerate() {
                        // Twisted maps are hemisphere-aligned after the bake; where a pair of
                        // neighbours is nearly perpendicular the two fills may pick opposite
                        // signs: q and −q are one rotation.
                        let d = (*c - *g)
                            .abs()
                            .max_element()
                            .min((*c + *g).abs().max_element());
                        assert!(
                            d <= tol,
                            "seed {seed:#x} {format} twist {twist}: level {k} texel {i}: CPU {c} GPU {g}, {d:e} > {tol:e}"
                        );
                        worst = worst.max(d / tol);
                    }
                }
                eprintln!("{format} twist {twist}: worst texel difference {worst:.3} of its bound");
            }
        }
    });
}

/// The normal and tangent of texel `i` of `level0` (decoded from storage) on the frame
/// (n, t, h), and the expected normal from the normal-map vector `m`.
/// `exact`: the unquantised rotations; `bound_deg`: the format's bound, or `None` for a lossy
/// block format, whose error depends on the content: then each texel's bound is the rotation
/// angle between its stored and its exact rotation (no vector the rotation turns moves
/// further), so a decode, mirroring or tiling mistake shows as an error beyond it. Returns the
/// worst normal and tangent errors (degrees) and the largest share of [`SLACK_DEG`] used.
fn check_texels(
    stored: &EncodedMap,
    exact: &[Vec4],
    nm: &NormalMap,
    twist: Option<Twist<'_>>,
    bound_deg: Option<f32>,
    rng: &mut impl Rng,
    seed: u64,
) -> (f32, f32, f32) {
    let decoded = stored.decode_level(0).expect("level 0 decodes");
    let (w, h_px) = (nm.width, nm.height);
    let mut worst = (0.0f32, 0.0f32, f32::MIN);
    for h in [1.0f32, -1.0] {
        // A random vertex frame with handedness h.
        let q = common::rotation(rng);
        let (n, t) = (q * Vec3::Z, q * Vec3::X);
        for _ in 0..1200 {
            let (x, y) = (rng.random_range(0..w), rng.random_range(0..h_px));
            let k = (y * w + x) as usize;
            let r = decoded[k];
            let (n2, t2) = tangent::apply(n, t, h, r / r.length());
            let bound_deg = bound_deg
                .unwrap_or_else(|| quat_angle(r, exact[k]).to_degrees() as f32 + SLACK_DEG);
            // The reference, in f64 from the f32 frame the crate is given.
            let (nd, td, bd) = (
                n.as_dvec3(),
                t.as_dvec3(),
                n.as_dvec3().cross(t.as_dvec3()) * f64::from(h),
            );
            // A vector of the (t, b, n) basis in object space.
            let world = |v: DVec3| td * v.x + bd * v.y + nd * v.z;
            // The angle of a decoded axis from its reference, within the bound.
            let judge = |axis: &str, got: Vec3, want: DVec3| {
                let e = angle_deg(got, want);
                assert!(
                    e <= bound_deg,
                    "seed {seed:#x} {} h {h}: texel ({x}, {y}): {axis} off by {e}° > {bound_deg}°",
                    stored.format
                );
                e
            };
            let m = nm.texels[k].as_dvec3().normalize();
            let e_n = judge("normal", n2, world(m));
            // The tangent: the arc's image of t, turned by the twist about the new normal.
            let phi = twist.map_or(0.0, |f| {
                f(Vec2::new(
                    (x as f32 + 0.5) / w as f32,
                    (y as f32 + 0.5) / h_px as f32,
                ))
            });
            let arc = DQuat::from_rotation_arc(DVec3::Z, m);
            let tw = DQuat::from_rotation_z(f64::from(phi));
            // In the (t, b, n) basis, b = h·cross(n, t), as the normal map's own.
            let e_t = judge("tangent", t2, world(arc * tw * DVec3::X));
            // How much of the slack the error beyond the format's (or texel's) bound uses.
            let used = (e_n.max(e_t) - (bound_deg - SLACK_DEG)) / SLACK_DEG;
            worst = (worst.0.max(e_n), worst.1.max(e_t), worst.2.max(used));
        }
    }
    worst
}

#[test]
fn decoded_normal_is_normal_mapping_unmirrored_mirrored_and_tiled() {
    common::for_seeds("tangent decode", 3, |seed, rng| {
        // Smooth content for the block formats (a random field per texel is not what a normal
        // map holds); 64² is 16² blocks.
        let nm = NormalMap::from_height(64, rng.random_range(2.0..6.0), {
            let (a, b, c) = (
                rng.random_range(0.0..6.3),
                rng.random_range(1..4) as f32,
                rng.random_range(1..4) as f32,
            );
            move |u, v| {
                (std::f32::consts::TAU * (b * u + a)).sin() * (std::f32::consts::TAU * c * v).cos()
            }
        });
        let twist_field = |uv: Vec2| 2.0 * (std::f32::consts::TAU * uv.x).sin();
        for twist in [false, true] {
            let tw: Option<Twist<'_>> = twist.then_some(&twist_field);
            let texels = twist_levels(std::slice::from_ref(&nm), &twist_field);
            let map = tangent::bake_cpu(
                std::slice::from_ref(&nm),
                twist.then_some(tangent::TwistField(&texels)),
                MapFormat::Rgba32Float,
            );
            for format in MapFormat::ALL {
                if format == MapFormat::Bc5 && twist {
                    continue;
                }
                let stored = EncodedMap::encode(&map, &Encoding::new(MapSpace::Tangent, format))
                    .expect("stores");
                // Plain formats: the stored rotation is within the format's bound of r, and no
                // rotated vector moves further; f32 slack. Block formats: per texel (above).
                let bound = format.max_error_deg().map(|e| e + SLACK_DEG);
                let exact = &map.levels[0].quats;
                let (e_n, e_t, used) = check_texels(&stored, exact, &nm, tw, bound, rng, seed);
                eprintln!("{format} twist {twist}: worst normal {e_n:.3e}°, tangent {e_t:.3e}° (bound {bound:?}°), slack used {used:.3}");
            }
        }
    });
}

/// A flat quad pair: the left quad's UVs run left to right, the right quad's right to left
/// (mirrored), each spanning 3 tiles.
fn quad_pair() -> Primitive {
    let v = Vec2::new;
    common::quad_pair(
        [v(0.0, 3.0), v(3.0, 3.0), v(3.0, 0.0), v(0.0, 0.0)],
        [v(3.0, 3.0), v(0.0, 3.0), v(0.0, 0.0), v(3.0, 0.0)],
    )
}

#[test]
fn quad_pair_mirrored_and_tiled_draws_the_reference_normal() {
    let ctx = context();
    let renderer = Renderer::new(ctx).expect("renderer");
    common::for_seeds("tangent quad pair", 3, |seed, rng| {
        // A constant normal map: filtering is exact, so the two modes differ only by storage.
        let m = [
            rng.random_range(40..216u8),
            rng.random_range(40..216u8),
            rng.random_range(200..=255u8),
        ];
        let image = image::RgbaImage::from_pixel(8, 8, image::Rgba([m[0], m[1], m[2], 255]));
        let mesh = quad_pair().prepare().expect("quad pair prepares");
        let mirrored = mesh.frames.iter().filter(|f| f.handedness() < 0.0).count();
        assert_eq!(mirrored, 4, "the right quad's frames are mirrored");
        let material = SceneMaterial {
            normal: Some(image),
            ..SceneMaterial::plain(
                "constant",
                MaterialUniforms {
                    has_normal_map: 1.0,
                    ..MaterialUniforms::default()
                },
            )
        };
        let scene =
            draw::single_scene("quad pair", mesh, material, MapSource::None, Mat4::IDENTITY);
        let options = MapOptions::stored(MapFormat::Rgba16Float);
        let gpu = draw::upload(&renderer, ctx, &scene, &options);
        let readback = Readback::quad_pair(ctx, &renderer, 0.0);
        let [n_ref, _] = readback.frame(&gpu, FrameSource::Reference);
        let [n_tan, t_tan] = readback.frame(&gpu, FrameSource::QuatMapTangent);
        // rgba16f: the stored rotation is within 2·asin(2·2⁻¹²) of r; the Snorm16x4 vertex frame
        // adds its own bound (the reference uses f32 frames); 64 f32 roundings of slack.
        let bound = (MapFormat::Rgba16Float
            .max_error_deg()
            .expect("uncompressed")
            + Format::Snorm16x4.max_error_deg() as f32)
            .to_radians()
            + 64.0 * U;
        let (mut covered, mut mirrored_px, mut worst) = (0, 0, 0.0f32);
        for k in 0..n_ref.len() {
            if n_ref[k][0] == DEBUG_POISON {
                assert_eq!(n_tan[k][0], DEBUG_POISON, "pixel {k}: coverage differs");
                continue;
            }
            let a = Vec4::from_array(n_ref[k]).truncate();
            let b = Vec4::from_array(n_tan[k]).truncate();
            let e = angle_deg(a, b.as_dvec3()).to_radians();
            assert!(
                e <= bound,
                "seed {seed:#x}: pixel {k}: normal {b} vs reference {a}: {e:e} rad > {bound:e}"
            );
            assert_eq!(n_ref[k][3], n_tan[k][3], "pixel {k}: handedness");
            // The tangent: the reference re-orthogonalises t against the mapped normal, the map
            // turns it by the shortest arc (they differ by less than the tilt, docs/MAPS.md), so
            // only its frame invariants are checked: unit and perpendicular to the normal after
            // the shader's normalisation and Gram–Schmidt (a few f32 roundings: 64·u).
            let tt = Vec4::from_array(t_tan[k]).truncate();
            assert!(
                (tt.length() - 1.0).abs() <= 64.0 * U && tt.dot(b).abs() <= 64.0 * U,
                "pixel {k}: tangent {tt} is not a unit vector perpendicular to {b}"
            );
            covered += 1;
            if n_ref[k][3] < 0.0 {
                mirrored_px += 1;
            }
            worst = worst.max(e);
        }
        assert!(
            covered > 2000 && mirrored_px > 1000,
            "{covered} covered, {mirrored_px} mirrored"
        );
        eprintln!("quad pair: {covered} pixels ({mirrored_px} mirrored), worst normal difference {worst:e} rad of {bound:e}");
    });
}
