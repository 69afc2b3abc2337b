//! The GPU baker's raster stage against the CPU reference, texel by texel.
//!
//! Where both bake a texel from the same triangle, the packed quaternions may differ by one
//! quantisation step per component plus [`F32_SLACK`]: both run the same f32 operations, so the
//! values before packing differ only by the GPU's own rounding: fused multiply-adds, and
//! division and square root that Vulkan allows to be off by up to 3 ulps. The chain from
//! corner frames to packed quaternion is about 60 dependent operations, each well conditioned
//! (every normalisation divides by a length near 1; `quat_from_axes` divides by the root of
//! its largest term, ≥ 1), so 60 × 3 ulps, doubled for a different branch of
//! `quat_from_axes` near its switch points: 2⁻¹⁷ (= 128 ulps of 1). That is far below a step
//! of the 16- and 8-bit formats (f16 2⁻¹¹ at worst), where rounding may then land one step
//! apart; for rgba32f it is the whole tolerance.
//! Which triangle (if any) bakes a texel may differ only where the decision is a tie the two
//! sides are allowed to break differently:
//! - coverage: the texel centre within 1/16 texel of a triangle's edge. Vulkan rasterisers snap
//!   corners to at least 4 sub-texel bits (each corner moves ≤ 1/32 per axis, an edge ≤ √2/32 <
//!   1/16); the CPU snaps to 8 bits like lavapipe.
//! - fringe: two triangles (or a triangle and the radius) at distances that agree to the f32
//!   rounding of the distance computation, 16 ulps of the map size, plus the 24-bit depth
//!   buffer's resolution (2⁻²⁴ · 4 texels).

use crate::common;

use glam::{DVec2, Vec2};
use qtangent::gpu::{GpuContext, GpuError};
use qtangent::lab::shapes;
use qtangent::qmap::texel::{self, FRINGE_RADIUS, MIN_AREA2};
use qtangent::qmap::{
    self, BakeError, BakeMesh, BakeSettings, MapFormat, NormalMap, Raster, RasterStages, TexelKind,
};
use qtangent::TangentFrame;

use crate::common::context;

/// Bound on the difference of one quaternion component before packing (see the module docs).
const F32_SLACK: f32 = 7.629_394_5e-6; // 2⁻¹⁷

/// Snapping slack for coverage decisions, texels (see the module docs).
const EDGE_SLACK: f64 = 1.0 / 16.0;

/// Distance from `c` to the boundary of triangle `p` (f64), and whether `c` is inside.
fn edge_distance(p: &[Vec2; 3], c: DVec2) -> f64 {
    let q = p.map(|v| v.as_dvec2());
    (0..3)
        .map(|i| {
            let (a, b) = (q[i], q[(i + 1) % 3]);
            let e = b - a;
            let s = ((c - a).dot(e) / e.dot(e)).clamp(0.0, 1.0);
            (c - (a + e * s)).length()
        })
        .fold(f64::INFINITY, f64::min)
}

struct Compared {
    same: usize,
    coverage_ties: usize,
    fringe_ties: usize,
    worst_steps: f32,
}

/// Compares the rasters as the module docs say; panics with the texel on any difference that
/// is not an allowed tie.
fn compare(label: &str, mesh: &BakeMesh, cpu: &Raster, gpu: &Raster) -> Compared {
    let (w, h) = (cpu.width, cpu.height);
    let tris: Vec<_> = (0..mesh.triangle_count())
        .map(|i| mesh.triangle(i, w, h))
        .filter(|t| texel::area2(&t.p).abs() > MIN_AREA2)
        .collect();
    let eps_d = 16.0 * f64::from(w.max(h)) * f64::from(f32::EPSILON) / 2.0 + 4.0 * 2f64.powi(-24);
    // Is the centre of texel k within the snapping slack of some triangle's edge?
    let near_edge = |c: DVec2| {
        tris.iter().any(|t| {
            let lo = t.p[0].min(t.p[1]).min(t.p[2]).as_dvec2() - EDGE_SLACK;
            let hi = t.p[0].max(t.p[1]).max(t.p[2]).as_dvec2() + EDGE_SLACK;
            c.x >= lo.x
                && c.y >= lo.y
                && c.x <= hi.x
                && c.y <= hi.y
                && edge_distance(&t.p, c) <= EDGE_SLACK
        })
    };
    let dist = |tri: u32, c: DVec2| {
        let t = mesh.triangle(tri as usize, w, h);
        f64::from(texel::closest_barycentric(&t.p, c.as_vec2()).1)
    };
    let step = 2.0 * cpu.format.half_step();
    let mut out = Compared {
        same: 0,
        coverage_ties: 0,
        fringe_ties: 0,
        worst_steps: 0.0,
    };
    for k in 0..cpu.quats.len() {
        let (x, y) = (k % w as usize, k / w as usize);
        let c = DVec2::new(x as f64 + 0.5, y as f64 + 0.5);
        let at = || format!("{label}: texel ({x}, {y})");
        let (kc, kg) = (cpu.kind[k], gpu.kind[k]);
        if cpu.coverage[k] != gpu.coverage[k] {
            assert!(
                near_edge(c),
                "{}: coverage CPU {} GPU {}, centre not near any edge",
                at(),
                cpu.coverage[k],
                gpu.coverage[k]
            );
        }
        if kc == kg && cpu.triangle[k] == gpu.triangle[k] {
            if kc == TexelKind::Background {
                continue;
            }
            assert_eq!(cpu.handedness[k], gpu.handedness[k], "{}: handedness", at());
            let (a, b) = (cpu.quats[k], gpu.quats[k]);
            let d = (a - b).abs().max_element().min((a + b).abs().max_element());
            let steps = d / step;
            assert!(
                d <= step + F32_SLACK,
                "{}: quaternion CPU {a} GPU {b} differ by {d} ({steps} steps of {step}; allowed one step + {F32_SLACK})",
                at()
            );
            out.worst_steps = out.worst_steps.max(steps);
            out.same += 1;
            continue;
        }
        if kc == TexelKind::Covered || kg == TexelKind::Covered {
            assert!(
                near_edge(c),
                "{}: CPU {kc:?} (triangle {}) vs GPU {kg:?} (triangle {}), centre not near any edge",
                at(),
                cpu.triangle[k],
                gpu.triangle[k]
            );
            out.coverage_ties += 1;
            continue;
        }
        // Fringe on at least one side, covered on neither.
        let dc = if kc == TexelKind::Fringe {
            dist(cpu.triangle[k], c)
        } else {
            f64::from(FRINGE_RADIUS)
        };
        let dg = if kg == TexelKind::Fringe {
            dist(gpu.triangle[k], c)
        } else {
            f64::from(FRINGE_RADIUS)
        };
        assert!(
            (dc - dg).abs() <= eps_d,
            "{}: fringe CPU {kc:?} triangle {} at {dc} vs GPU {kg:?} triangle {} at {dg} (slack {eps_d})",
            at(),
            cpu.triangle[k],
            gpu.triangle[k]
        );
        out.fringe_ties += 1;
    }
    assert_eq!(
        cpu.degenerate_triangles, gpu.degenerate_triangles,
        "{label}"
    );
    assert_eq!(cpu.triangles, gpu.triangles, "{label}");
    out
}

fn check(
    ctx: &GpuContext,
    label: &str,
    mesh: &BakeMesh,
    nm: Option<&NormalMap>,
    settings: BakeSettings,
) {
    let cpu = qmap::raster_cpu(mesh, nm, &settings, &mut ()).expect("CPU raster");
    // The GPU raster itself, whatever the adapter (`GpuContext::raster_backend` of a CPU
    // adapter is the CPU raster, which would compare it with itself).
    let gpu = crate::gpu::bake::raster_gpu(ctx, mesh, nm, &settings, &mut ()).expect("GPU raster");
    let label = format!(
        "{label} {}×{} {}",
        settings.width, settings.height, settings.format
    );
    let r = compare(&label, mesh, &cpu, &gpu);
    let covered = cpu
        .kind
        .iter()
        .filter(|k| **k == TexelKind::Covered)
        .count();
    println!(
        "{label}: {} texels agree (worst {:.2} steps of the format), {} coverage ties, {} fringe ties, {covered} covered",
        r.same, r.worst_steps, r.coverage_ties, r.fringe_ties
    );
    // The comparison saw real work: most of what the CPU covered was compared texel by texel.
    assert!(
        covered > 0 && r.same >= covered * 9 / 10,
        "{label}: too few texels compared"
    );
}

/// Bake settings of a `width`×`height` map, the rest default.
fn sized(width: u32, height: u32) -> BakeSettings {
    BakeSettings {
        width,
        height,
        ..BakeSettings::default()
    }
}

fn prepared(p: &qtangent::mesh::Primitive, label: &str) -> BakeMesh {
    let prep = p.prepare().expect("prepare");
    BakeMesh::from_prepared(label, &[&prep])
}

#[test]
fn gpu_raster_matches_cpu_on_procedural_meshes() {
    let ctx = context();
    let torus = prepared(&qtangent::mesh::Primitive::torus(1.0, 0.4, 64, 32), "torus");
    let swirl = NormalMap::default_swirl();
    for format in MapFormat::UNCOMPRESSED {
        check(
            ctx,
            "torus + swirl",
            &torus,
            Some(&swirl),
            BakeSettings {
                width: 256,
                height: 256,
                padding: 4,
                format,
            },
        );
    }
    let sphere = prepared(&shapes::uv_sphere(32, 16), "uv sphere");
    check(ctx, "uv sphere", &sphere, None, sized(160, 96));
    let quads = prepared(&shapes::mirrored_quad_pair(), "mirrored quads");
    check(
        ctx,
        "mirrored quad pair",
        &quads,
        Some(&swirl),
        sized(64, 64),
    );
}

#[test]
fn gpu_raster_takes_every_level_size_of_an_object_map() {
    // An object-space bake rasters every level on its own, down to 1 × 1 (a map that is not a
    // power of two gives odd sizes): the GPU raster must take each size and agree with the CPU
    // texel by texel under the module's tie rules; where a level has texels enough to judge (16
    // a side and up), most of what it covers must also be compared.
    let ctx = context();
    let torus = prepared(&qtangent::mesh::Primitive::torus(1.0, 0.4, 64, 32), "torus");
    let swirl = NormalMap::default_swirl();
    let (mut w, mut h) = (200u32, 72u32);
    loop {
        let s = BakeSettings {
            width: w,
            height: h,
            padding: 4,
            format: MapFormat::Rgba16Float,
        };
        if w.min(h) >= 16 {
            check(ctx, "torus level", &torus, Some(&swirl), s);
        } else {
            let cpu = qmap::raster_cpu(&torus, Some(&swirl), &s, &mut ()).expect("CPU raster");
            let gpu = crate::gpu::bake::raster_gpu(ctx, &torus, Some(&swirl), &s, &mut ())
                .expect("GPU raster");
            assert_eq!((gpu.width, gpu.height), (w, h));
            compare(&format!("torus level {w}×{h}"), &torus, &cpu, &gpu);
        }
        if w == 1 && h == 1 {
            break;
        }
        (w, h) = ((w / 2).max(1), (h / 2).max(1));
    }
}

#[test]
fn gpu_raster_matches_cpu_on_overlaps_slivers_and_degenerate_triangles() {
    let ctx = context();
    let f = |n: glam::Vec3, t: glam::Vec3| TangentFrame {
        normal: n,
        tangent: t,
        bitangent: n.cross(t),
    };
    let frames = [
        f(glam::Vec3::Z, glam::Vec3::X),
        f(glam::Vec3::X, glam::Vec3::Y),
        f(glam::Vec3::Y, glam::Vec3::Z),
    ];
    let mut mesh = BakeMesh {
        label: "hand-made".into(),
        ..BakeMesh::default()
    };
    // (Texel centres of the 64² map are at (i + ½)/64: `c(i)`.)
    let c = |i: f32| (i + 0.5) / 64.0;
    let triangles: [[[f32; 2]; 3]; 6] = [
        // Two overlapping triangles, both windings.
        [[0.1, 0.1], [0.6, 0.15], [0.2, 0.7]],
        [[0.3, 0.2], [0.25, 0.8], [0.7, 0.5]],
        // A needle thinner than a texel, a triangle smaller than a texel, a zero-area one.
        [[0.75, 0.05], [0.95, 0.9], [0.752, 0.06]],
        [[0.8, 0.92], [0.805, 0.925], [0.801, 0.93]],
        [[0.1, 0.9], [0.2, 0.9], [0.3, 0.9]],
        // Edges through texel centres.
        [[c(0.0), c(60.0)], [c(10.0), c(60.0)], [c(0.0), c(63.0)]],
    ];
    for uv in triangles {
        let base = mesh.uvs.len() as u32;
        mesh.uvs.extend(uv.map(Vec2::from));
        mesh.frames.extend(frames);
        mesh.indices.extend([base, base + 1, base + 2]);
    }
    check(ctx, "hand-made", &mesh, None, sized(64, 64));
}

#[test]
fn gpu_raster_matches_cpu_on_the_duck() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let ctx = context();
    let scene = qtangent::mesh::load(dir.join("obj/duck.obj")).expect("duck loads");
    let prims: Vec<_> = scene
        .primitives()
        .map(|(_, p)| p.prepare().expect("prepare"))
        .collect();
    let refs: Vec<_> = prims.iter().collect();
    let mesh = BakeMesh::from_prepared("duck", &refs);
    check(ctx, "duck", &mesh, None, sized(512, 512));
}

#[test]
fn map_size_beyond_the_texture_limit_is_a_clear_error() {
    let ctx = context();
    let limit = ctx.device.limits().max_texture_dimension_2d;
    let mesh = prepared(&shapes::cube(), "cube");
    let settings = sized(limit + 1, 16);
    let level = qtangent::qmap::LevelInputs {
        mesh: &mesh,
        normal_map: None,
        direction: None,
        own_uvs: None,
        settings,
    };
    let e = ctx.raster(&level, &mut ()).expect_err("too large");
    let gpu_error = match &e {
        BakeError::Backend(b) => b.downcast_ref::<GpuError>(),
        _ => None,
    };
    assert!(
        matches!(gpu_error, Some(GpuError::TextureTooLarge { .. })),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains("max_texture_dimension_2d") && text.contains(&limit.to_string()),
        "{text}"
    );
}

#[test]
fn gpu_raster_matches_cpu_on_flight_helmet_with_its_normal_maps() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let ctx = context();
    for (name, mesh, nm) in common::flight_helmet_materials(&dir) {
        check(ctx, &name, &mesh, Some(&nm), sized(512, 512));
    }
}
