//! Quaternion maps sampled on the GPU through `qmap_frame_level` (shaders/qmap.wgsl): after
//! hardware filtering at random sub-texel positions the decoded normal stays within a bound,
//! derived per sample below, of a CPU reference that filters the same stored texel values.
//!
//! Maps are baked on the CPU (tests/unit/qmap/padding.rs checks their padding and mips), uploaded
//! with every level, and sampled at seeded random points inside the baked triangles at integer
//! and fractional levels of detail, clamp-to-edge, linear filtering within and between levels.
//! A map whose texels are NOT hemisphere-aligned must fail the same comparison badly.
//!
//! These tests need a GPU adapter; Mesa's software Vulkan (lavapipe) is enough. Without one they
//! fail — under CI and elsewhere — with a message saying how to install it.
//!
//! # The bound (per sample)
//!
//! Bilinear filtering at texel coordinates s = uv·size − ½ reads the texels q_ij around s with
//! weights a_i·b_j: a = (1 − α, α), b = (1 − β, β), α and β the fractions of s. The hardware
//! snaps α and β to its sub-texel grid (Vulkan: `subTexelPrecisionBits` ≥ 4; WebGPU states
//! nothing): each is off by at most e = 2⁻ᵇⁱᵗˢ (half that if it rounds, all of it if it
//! truncates), plus the f32 rounding of uv·size, ≤ size·2⁻²⁴. With a' = a + α_e·(−1, 1),
//! b' = b + β_e·(−1, 1), exactly:
//!
//!   Σ a'_i b'_j q_ij − Σ a_i b_j q_ij = α_e·Dx + β_e·Dy + α_e β_e·C,
//!   Dx = Σ_j b_j (q_1j − q_0j),  Dy = Σ_i a_i (q_i1 − q_i0),  C = q_11 − q_10 − q_01 + q_00,
//!
//! so |Δq| ≤ E_w = e·|Dx| + e·|Dy| + e²·|C|, from the sample's own four texels (0 where they
//! agree: filtering a constant is exact whatever the weights). The filter's arithmetic adds
//! E_a: a filter that rounds its result to the storage precision (some hardware filters 16-bit
//! formats at 16 bits) is off by half a step per component, 2·half_step as a 4-vector, plus a
//! few f32 roundings of the weighted sum (8·2⁻²⁴). A reference quaternion of length L = |q_ref|
//! (< 1 where the texels differ) and a GPU value within E = E_w + E_a of it are at most
//! asin(E / L) apart in direction; the rotations differ by twice that, and no rotated vector
//! (n, t, b) moves further: angle ≤ 2·asin(E / L), plus the GPU's f32 decode of a unit
//! quaternion (tests/unit/gpu/decode.rs: ≤ 28 ulp per component, √3·28ε as an angle; 64ε here).
//! Where E ≥ L the bound is vacuous (counted; none occur in aligned maps inside triangles).
//!
//! Trilinear (fractional lod): the GPU blends the bilinear results A and B of levels ⌊lod⌋ and
//! ⌊lod⌋ + 1 with weight δ = fract(lod), snapped to its own precision (Vulkan:
//! `mipmapPrecisionBits`; wgpu reports neither limit). Rather than trust a number, the test
//! fits δ*: the point of the segment (1 − δ)A + δB (δ ∈ [0, 1]) nearest the GPU's filtered
//! value, checks that the GPU is within max(E_A, E_B) + E_a of it (true for the GPU's own δ,
//! hence for the nearest), and bounds the normal against that reference as above. Integer lods
//! have δ = 0 exactly and are checked against their level alone. |δ* − δ| is reported.
//!
//! The handedness plane is filtered with the same weights; the GPU's sign must match the
//! reference's wherever |h_ref| exceeds its own E (R8Snorm: half_step 1/254); closer to 0 the
//! sign is the sampler's choice (counted).
//!
//! # Measured
//!
//! lavapipe (Mesa 22.3.6, LLVM 15): 20,000 samples per map, format and lod set (torus 256²,
//! UV sphere 128², mirrored islands 128×64, overlapping quad pair 64², all with the swirl normal
//! map): the normal is within 1.5e-5° of the reference everywhere (the f32 decode), against
//! bounds of 0.04–0.6° (rgba16f, snorm16, rgba32f) and 0.9–1.7° (snorm8, whose bound is
//! mostly the allowance for a filter that rounds to 8 bits). Its weights behave as f32 (error
//! ≤ 7e-6 per unit of |Dx| + |Dy|, against the 2⁻⁸ it reports), and its lod fraction is exact
//! (δ* = δ). No bound is vacuous and no handedness undecided inside triangles. The unaligned
//! map: median 7°, 90th percentile 52°, worst 179° — 99.8 % of samples outside their bound.

use glam::{DQuat, DVec3, DVec4, Vec2, Vec3, Vec4};
use qtangent::gpu::qmap as gq;
use qtangent::gpu::{GpuContext, GpuError};
use qtangent::gpu::{GpuQuatMap, SampledFrame};
use qtangent::lab::shapes;
use qtangent::qmap::{
    BakeMesh, BakeSettings, MapFormat, MapLevel, MapStats, NormalMap, QuatMap, TexelKind,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::common::context;
use crate::test_bake::{bake, from_primitive};

const SEED: u64 = 0x5eed_0000_0a4a_9000;

/// Sub-texel bits of the filter weights on this adapter (the quirk table in `common::quirks`).
fn subtexel_bits(ctx: &GpuContext) -> u32 {
    crate::common::quirks::of(ctx).subtexel_bits
}

/// f32 decode of a unit quaternion on the GPU, as an angle (see the module docs).
const DECODE_RAD: f64 = 64.0 * f32::EPSILON as f64;
/// A few f32 roundings of the filter's weighted sum of unit 4-vectors.
const FILTER_F32: f64 = 8.0 / (1u64 << 24) as f64;

/// The mirrored quad pair with each quad on its own island: the left quad (handedness +1) in
/// u ∈ [0.05, 0.45], the right one (u running back, handedness −1) in [0.55, 0.95] — a mirror
/// image, as a symmetric character's halves are laid out when they do not share texels.
fn mirrored_islands() -> BakeMesh {
    let mut mesh = from_primitive(&shapes::mirrored_quad_pair());
    mesh.label = "mirrored quad pair, one island per quad".into();
    let mut right = vec![false; mesh.uvs.len()];
    for t in mesh.indices.chunks(3) {
        if t.iter()
            .any(|&v| mesh.frames[v as usize].handedness() < 0.0)
        {
            t.iter().for_each(|&v| right[v as usize] = true);
        }
    }
    for (uv, r) in mesh.uvs.iter_mut().zip(right) {
        let u0 = if r { 0.55 } else { 0.05 };
        *uv = Vec2::new(u0 + 0.4 * uv.x, 0.05 + 0.9 * uv.y);
    }
    mesh
}

/// The maps the filtering test samples: (mesh, map, format is varied by the caller).
fn meshes() -> Vec<(BakeMesh, u32, u32)> {
    vec![
        (
            from_primitive(&qtangent::mesh::Primitive::torus(1.0, 0.35, 96, 48)),
            256,
            256,
        ),
        (from_primitive(&shapes::uv_sphere(48, 24)), 128, 128),
        (mirrored_islands(), 128, 64),
        // Overlapping islands: both quads map onto the same square; the lower triangle wins.
        (from_primitive(&shapes::mirrored_quad_pair()), 64, 64),
    ]
}

/// How a sample's level of detail is drawn.
type LodFn<'a> = &'a dyn Fn(&mut Pcg64) -> f32;

/// `x <= bound`, false for NaN (so a poisoned, unwritten result never passes).
fn within(x: f64, bound: f64) -> bool {
    x <= bound
}

/// `n` seeded points inside the baked triangles (triangle chosen by UV area, uniform inside),
/// each with a level of detail from `lods`.
fn points_inside(mesh: &BakeMesh, n: usize, lods: LodFn, seed: u64) -> Vec<(Vec2, f32)> {
    let mut r = Pcg64::seed_from_u64(seed);
    let tri = |i: usize| [0, 1, 2].map(|k| mesh.uvs[mesh.indices[3 * i + k] as usize].as_dvec2());
    let mut cdf = Vec::with_capacity(mesh.triangle_count());
    let mut total = 0.0;
    for i in 0..mesh.triangle_count() {
        let t = tri(i);
        total += ((t[1] - t[0]).perp_dot(t[2] - t[0])).abs();
        cdf.push(total);
    }
    (0..n)
        .map(|_| {
            let pick = r.random::<f64>() * total;
            let i = cdf.partition_point(|&c| c < pick).min(cdf.len() - 1);
            let t = tri(i);
            let (a, b): (f64, f64) = (r.random(), r.random());
            let (a, b) = if a + b > 1.0 {
                (1.0 - a, 1.0 - b)
            } else {
                (a, b)
            };
            let uv = t[0] + (t[1] - t[0]) * a + (t[2] - t[0]) * b;
            (uv.as_vec2(), lods(&mut r))
        })
        .collect()
}

/// Bilinear filtering of one level at `uv` (clamp-to-edge) in f64, with the bound on what the
/// hardware's weights may change (module docs).
struct Bilinear {
    /// Filtered quaternion (not unit).
    q: DVec4,
    /// Filtered handedness.
    h: f64,
    /// E_w of the quaternion.
    eq: f64,
    /// E_w of the handedness.
    eh: f64,
    /// The footprint's texel indices.
    texels: [usize; 4],
    /// |Dx| + |Dy| of the quaternion: how fast the map changes here, per texel.
    slope: f64,
}

fn bilinear(level: &MapLevel, uv: Vec2, e: f64) -> Bilinear {
    bilinear_at(level, uv, e, 0.5)
}

/// [`bilinear`] with texel centres at `i + centre` instead of `i + ½` (a deliberately wrong
/// reference, to show the bound catches a half-texel error).
fn bilinear_at(level: &MapLevel, uv: Vec2, e: f64, centre: f64) -> Bilinear {
    let (w, h) = (level.width as usize, level.height as usize);
    let s = uv.as_dvec2() * glam::DVec2::new(w as f64, h as f64) - centre;
    let (fx, fy) = (s.x - s.x.floor(), s.y - s.y.floor());
    let cx = |x: f64| x.clamp(0.0, (w - 1) as f64) as usize;
    let cy = |y: f64| y.clamp(0.0, (h - 1) as f64) as usize;
    let (x0, x1, y0, y1) = (
        cx(s.x.floor()),
        cx(s.x.floor() + 1.0),
        cy(s.y.floor()),
        cy(s.y.floor() + 1.0),
    );
    let texels = [y0 * w + x0, y0 * w + x1, y1 * w + x0, y1 * w + x1];
    let q = texels.map(|k| level.quats[k].as_dvec4());
    let hd = texels.map(|k| f64::from(level.handedness[k]));
    let (a, b) = ([1.0 - fx, fx], [1.0 - fy, fy]);
    let weights = [a[0] * b[0], a[1] * b[0], a[0] * b[1], a[1] * b[1]];
    let filter4 = |v: [DVec4; 4]| -> (DVec4, f64, f64) {
        let f = v[0] * weights[0] + v[1] * weights[1] + v[2] * weights[2] + v[3] * weights[3];
        let dx = (v[1] - v[0]) * b[0] + (v[3] - v[2]) * b[1];
        let dy = (v[2] - v[0]) * a[0] + (v[3] - v[1]) * a[1];
        let c = v[3] - v[1] - v[2] + v[0];
        let slope = dx.length() + dy.length();
        (f, e * slope + e * e * c.length(), slope)
    };
    let (fq, eq, slope) = filter4(q);
    let (fh, eh, _) = filter4(hd.map(|v| DVec4::new(v, 0.0, 0.0, 0.0)));
    Bilinear {
        q: fq,
        h: fh.x,
        eq,
        eh,
        texels,
        slope,
    }
}

/// One sample compared with the reference.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    /// Angle between the GPU's and the reference's normal, degrees.
    normal_deg: f64,
    /// The same for the tangent.
    tangent_deg: f64,
    /// The bound on both, degrees (180 when vacuous).
    bound_deg: f64,
    /// |q_gpu − q_ref| and its bound E.
    dq: f64,
    dq_bound: f64,
    /// |h_gpu − h_ref| and its bound.
    dh: f64,
    dh_bound: f64,
    /// The GPU's handedness agrees with the reference's sign (None: |h_ref| too close to 0).
    handedness_ok: Option<bool>,
    /// Fractional lods: (fitted δ*, nominal δ, |B − A|).
    fit: Option<(f64, f64, f64)>,
    /// Largest per-component difference between the GPU's frame and the CPU's f32 decode of
    /// the GPU's own filtered quaternion (checks qmap_frame_level's decode apart from the
    /// filter).
    decode_diff: f32,
    /// Whether the lod-0 footprint holds a background texel.
    background_at_lod0: bool,
    /// |Dx| + |Dy| at the (first) level sampled.
    slope: f64,
    /// The GPU's handedness.
    handedness: f32,
}

fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// n and t of a (non-zero) quaternion, f64.
fn axes(q: DVec4) -> (DVec3, DVec3) {
    let r = DQuat::from_vec4(q.normalize());
    (r * DVec3::Z, r * DVec3::X)
}

/// The CPU twin of `frame_from_quat` in shaders/qtangent.wgsl, f32, same operations.
fn frame_from_quat_f32(q: Vec4, h: f32) -> (Vec3, Vec3, Vec3) {
    let u = q * (1.0 / (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt());
    let m = qtangent::quat::quat_to_mat3(glam::Quat::from_vec4(u));
    let (n, t) = (m.z_axis, m.x_axis);
    (n, t, n.cross(t) * h)
}

/// Compares every GPU sample with the CPU reference filter of `map`'s stored values. `e` is
/// the weight error (module docs).
fn evaluate(map: &QuatMap, points: &[(Vec2, f32)], gpu: &[SampledFrame], e: f64) -> Vec<Sample> {
    evaluate_at(map, points, gpu, e, 0.5)
}

/// [`evaluate`] against a reference whose texel centres sit at `i + centre`.
fn evaluate_at(
    map: &QuatMap,
    points: &[(Vec2, f32)],
    gpu: &[SampledFrame],
    e: f64,
    centre: f64,
) -> Vec<Sample> {
    let last = map.levels.len() - 1;
    let e_a = 2.0 * f64::from(map.format.half_step()) + FILTER_F32;
    let e_a_h = 0.5 / 127.0 + FILTER_F32;
    points
        .iter()
        .zip(gpu)
        .map(|(&(uv, lod), g)| {
            let lod = f64::from(lod).clamp(0.0, last as f64);
            let l = lod.floor() as usize;
            let delta = lod - l as f64;
            let size = f64::from(map.width().max(map.height()));
            let e = e + size * f64::from(f32::EPSILON);
            let a = bilinear_at(&map.levels[l], uv, e, centre);
            let gq = g.filtered_quat().as_dvec4();
            let gh = f64::from(g.filtered_handedness);
            let (q_ref, eq, h_ref, eh, fit) = if delta == 0.0 || l == last {
                (a.q, a.eq + e_a, a.h, a.eh + e_a_h, None)
            } else {
                let b = bilinear_at(&map.levels[l + 1], uv, e, centre);
                let d = b.q - a.q;
                let sep = d.length();
                let fitted = if sep > 1e-12 {
                    ((gq - a.q).dot(d) / (sep * sep)).clamp(0.0, 1.0)
                } else {
                    delta
                };
                // The handedness is blended with the GPU's own δ too: fit it the same way.
                let dhb = b.h - a.h;
                let fitted_h = if dhb.abs() > 1e-12 {
                    ((gh - a.h) / dhb).clamp(0.0, 1.0)
                } else {
                    delta
                };
                (
                    a.q + d * fitted,
                    a.eq.max(b.eq) + e_a,
                    a.h + dhb * fitted_h,
                    a.eh.max(b.eh) + e_a_h,
                    Some((fitted, delta, sep)),
                )
            };
            let len = q_ref.length();
            let bound = if eq < len {
                2.0 * (eq / len).asin() + DECODE_RAD
            } else {
                std::f64::consts::PI
            };
            let (n_ref, t_ref) = axes(q_ref);
            let f = g.to_frame();
            let n_gpu = f.normal.as_dvec3();
            let t_gpu = f.tangent.as_dvec3();
            let handedness_ok = (h_ref.abs() > eh).then(|| {
                let want = if h_ref > 0.0 { 1.0 } else { -1.0 };
                g.handedness == want
            });
            let (n32, t32, b32) = frame_from_quat_f32(g.filtered_quat(), g.handedness);
            let decode_diff = crate::common::frames::max_abs_diff(n32, f.normal)
                .max(crate::common::frames::max_abs_diff(t32, f.tangent))
                .max(crate::common::frames::max_abs_diff(b32, f.bitangent));
            let lod0 = bilinear(&map.levels[0], uv, 0.0);
            Sample {
                normal_deg: angle(n_gpu, n_ref).to_degrees(),
                tangent_deg: angle(t_gpu, t_ref).to_degrees(),
                bound_deg: bound.to_degrees(),
                dq: (gq - q_ref).length(),
                dq_bound: eq,
                dh: (gh - h_ref).abs(),
                dh_bound: eh,
                handedness_ok,
                fit,
                decode_diff,
                background_at_lod0: lod0
                    .texels
                    .iter()
                    .any(|&k| map.kind[k] == TexelKind::Background),
                slope: a.slope,
                handedness: g.handedness,
            }
        })
        .collect()
}

// The GPU's decode of its own filtered quaternion against the CPU's f32 decode of the same
// value (tests/unit/gpu/decode.rs derives these: n, t ≤ 28 ulp of 1; b ≤ 58).
const DECODE_TOL: f32 = 58.0 * f32::EPSILON;

/// Asserts every sample against its bound and returns a one-line summary.
fn check(
    what: &str,
    seed: u64,
    points: &[(Vec2, f32)],
    samples: &[Sample],
    e_assumed: f64,
) -> String {
    let mut worst_ratio: f64 = 0.0;
    let (mut worst_n, mut worst_bound, mut vacuous, mut ambiguous) = (0.0f64, 0.0f64, 0, 0);
    let mut bounds: Vec<f64> = Vec::new();
    let (mut fit_err, mut fit_count) = (0.0f64, 0);
    // |Δq| against its bound, and |Δq| / (|Dx| + |Dy|): the weight error the GPU behaves as if
    // it had (where the map changes enough to tell; f32 rounding included).
    let (mut dq_ratio, mut implied_e, mut implied_n) = (0.0f64, 0.0f64, 0);
    for (i, (s, p)) in samples.iter().zip(points).enumerate() {
        let at = || {
            format!(
                "{what}, sample {i} at uv {} lod {} (seed {seed:#x})",
                p.0, p.1
            )
        };
        assert!(
            !s.background_at_lod0,
            "{}: the lod-0 footprint holds background",
            at()
        );
        // `x <= bound` is false for NaN: an unwritten (poisoned) result fails here.
        for (what, off, bound) in [
            ("filtered quaternion", s.dq, s.dq_bound),
            ("filtered handedness", s.dh, s.dh_bound),
            (
                "qmap_frame_level's decode (from the CPU's)",
                f64::from(s.decode_diff),
                f64::from(DECODE_TOL),
            ),
        ] {
            assert!(
                off <= bound,
                "{}: {what} off by {off:.3e} > bound {bound:.3e}",
                at()
            );
        }
        assert!(
            s.normal_deg <= s.bound_deg && s.tangent_deg <= s.bound_deg,
            "{}: normal {:.5}° / tangent {:.5}° from the reference, bound {:.5}°",
            at(),
            s.normal_deg,
            s.tangent_deg,
            s.bound_deg
        );
        assert_ne!(s.handedness_ok, Some(false), "{}: handedness sign", at());
        if s.bound_deg >= 180.0 {
            vacuous += 1;
        } else {
            bounds.push(s.bound_deg);
            worst_ratio = worst_ratio.max(s.normal_deg / s.bound_deg);
            worst_bound = worst_bound.max(s.bound_deg);
        }
        if s.handedness_ok.is_none() {
            ambiguous += 1;
        }
        worst_n = worst_n.max(s.normal_deg);
        dq_ratio = dq_ratio.max(s.dq / s.dq_bound);
        if s.fit.is_none() && s.slope > 1e-2 {
            implied_e = implied_e.max(s.dq / s.slope);
            implied_n += 1;
        }
        if let Some((fitted, delta, sep)) = s.fit {
            // Only where the two levels differ by much more than the filter's own error is δ*
            // determined; report those.
            if sep > 20.0 * s.dq_bound {
                fit_err = fit_err.max((fitted - delta).abs());
                fit_count += 1;
            }
        }
    }
    bounds.sort_by(f64::total_cmp);
    let median = bounds.get(bounds.len() / 2).copied().unwrap_or(f64::NAN);
    let mut line = format!(
        "{what}: {} samples, normal error max {worst_n:.2e}° (bound median {median:.4}°, max {worst_bound:.4}°, worst error/bound {worst_ratio:.1e}), |Δq|/E max {dq_ratio:.1e}, vacuous {vacuous}, handedness undecided {ambiguous} (mirrored {})",
        samples.len(),
        samples.iter().filter(|s| s.handedness < 0.0).count()
    );
    if implied_n > 0 {
        line += &format!(
            ", weight error seen ≤ {implied_e:.1e} (assumed {:.1e})",
            e_assumed
        );
    }
    if fit_count > 0 {
        line += &format!(", max |δ* − δ| {fit_err:.4} over {fit_count} determined samples");
    }
    line
}

fn upload_or_skip(ctx: &GpuContext, map: &QuatMap) -> Option<GpuQuatMap> {
    let missing = gq::required_features(map.format) - ctx.device.features();
    if !missing.is_empty() {
        // Only the formats that need a feature may be skipped; rgba16f and snorm8 never are.
        assert!(
            !matches!(map.format, MapFormat::Rgba16Float | MapFormat::Rgba8Snorm),
            "{} needs no feature",
            map.format
        );
        crate::common::not_run::did_not_run(&format!(
            "{} maps: the device lacks {missing:?} (the adapter has it: {})",
            map.format,
            ctx.adapter.features().contains(missing)
        ));
        return None;
    }
    Some(
        gq::upload_map(ctx, map)
            .unwrap_or_else(|e| panic!("uploading the {} map: {e}", map.format)),
    )
}

const N: usize = 20_000;

#[test]
fn filtered_frames_stay_within_the_derived_bound_of_the_cpu_filter() {
    let ctx = context();
    let e = (-f64::from(subtexel_bits(ctx))).exp2();
    println!(
        "{}: sub-texel precision assumed {} bits",
        ctx,
        subtexel_bits(ctx)
    );
    let swirl = NormalMap::default_swirl();
    let lod_sets: [(&str, LodFn); 3] = [
        ("lod 0", &|_| 0.0),
        ("integer lods 0-3", &|r| r.random_range(0..4) as f32),
        ("fractional lods 0-4", &|r| r.random_range(0.0..4.0)),
    ];
    for (m, (mesh, w, h)) in meshes().into_iter().enumerate() {
        for format in MapFormat::UNCOMPRESSED {
            let s = BakeSettings {
                width: w,
                height: h,
                padding: 4,
                format,
            };
            let map = bake(&mesh, Some(&swirl), &s);
            if mesh.label.contains("one island per quad") {
                // The case is there for its mirrored island.
                assert!(map.stats.mirrored > 0, "{}: no mirrored texels", mesh.label);
            }
            let Some(gpu_map) = upload_or_skip(ctx, &map) else {
                continue;
            };
            for (k, (name, lods)) in lod_sets.iter().enumerate() {
                let seed = SEED + (m * 100 + k) as u64;
                let points = points_inside(&mesh, N, lods, seed);
                let gpu = gq::sample_frames(ctx, &gpu_map, &points, gq::MapFilter::Linear)
                    .unwrap_or_else(|e| panic!("{}: {e}", mesh.label));
                assert_eq!(gpu.len(), points.len());
                let samples = evaluate(&map, &points, &gpu, e);
                let what = format!("{} {w}×{h} {format}, {name}", mesh.label);
                println!("{}", check(&what, seed, &points, &samples, e));
            }
        }
    }
}

/// The swirl normal map baked onto a torus, 256² rgba16f: the map the two "the bound catches
/// it" tests break on purpose.
fn swirl_torus() -> (BakeMesh, QuatMap) {
    let swirl = NormalMap::default_swirl();
    let mesh = from_primitive(&qtangent::mesh::Primitive::torus(1.0, 0.35, 96, 48));
    let s = BakeSettings {
        width: 256,
        height: 256,
        padding: 4,
        format: MapFormat::Rgba16Float,
    };
    let map = bake(&mesh, Some(&swirl), &s);
    (mesh, map)
}

/// `sampled` (the swirl torus' map, or a broken copy) sampled on the GPU, filtered linearly at
/// level 0, at `N` seeded points inside `mesh`'s triangles: the points and what the GPU gave.
fn sample_at_lod0(
    ctx: &GpuContext,
    mesh: &BakeMesh,
    sampled: &QuatMap,
    seed: u64,
) -> (Vec<(Vec2, f32)>, Vec<SampledFrame>) {
    let points = points_inside(mesh, N, &|_| 0.0, seed);
    let gpu_map = gq::upload_map(ctx, sampled).unwrap_or_else(|e| panic!("{e}"));
    let gpu = gq::sample_frames(ctx, &gpu_map, &points, gq::MapFilter::Linear)
        .unwrap_or_else(|e| panic!("{e}"));
    (points, gpu)
}

#[test]
fn a_half_texel_error_in_the_reference_fails_the_bound() {
    // The bound is tight enough to catch the classic bug: a reference (or a sampler) that puts
    // texel centres at integers instead of at i + ½. Same GPU samples, shifted CPU reference:
    // most samples must fall outside.
    let ctx = context();
    let e = (-f64::from(subtexel_bits(ctx))).exp2();
    let (mesh, map) = swirl_torus();
    let seed = SEED + 8;
    let (points, gpu) = sample_at_lod0(ctx, &mesh, &map, seed);
    let right = evaluate(&map, &points, &gpu, e);
    let shifted = evaluate_at(&map, &points, &gpu, e, 0.0);
    let fails = |v: &[Sample]| v.iter().filter(|s| !within(s.dq, s.dq_bound)).count();
    println!(
        "half-texel shifted reference: {} of {} samples outside the bound (correct reference: {})",
        fails(&shifted),
        points.len(),
        fails(&right)
    );
    assert_eq!(fails(&right), 0, "seed {seed:#x}");
    assert!(
        fails(&shifted) > points.len() / 2,
        "a half-texel shift went unnoticed (seed {seed:#x})"
    );
}

/// `map` with every other texel (a checkerboard, on every level) negated: the same rotations,
/// no longer hemisphere-aligned.
fn unaligned(map: &QuatMap) -> QuatMap {
    let mut m = map.clone();
    for level in &mut m.levels {
        let w = level.width as usize;
        for (k, q) in level.quats.iter_mut().enumerate() {
            if (k % w + k / w) % 2 == 1 {
                *q = -*q;
            }
        }
    }
    m
}

#[test]
fn without_hemisphere_alignment_filtering_fails_badly() {
    // The rule the bake enforces matters: negate every other texel (q and −q are the same
    // rotation, so every texel still decodes right on its own) and the filtered frames between
    // texels go wrong by tens of degrees — far outside the bound the aligned map meets.
    let ctx = context();
    let e = (-f64::from(subtexel_bits(ctx))).exp2();
    let (mesh, map) = swirl_torus();
    let broken = unaligned(&map);
    let seed = SEED + 7;
    let (points, gpu) = sample_at_lod0(ctx, &mesh, &broken, seed);
    // Judged against the aligned map's reference (the frames the surface has):
    let against_truth = evaluate(&map, &points, &gpu, e);
    let mut errors: Vec<f64> = against_truth.iter().map(|s| s.normal_deg).collect();
    errors.sort_by(f64::total_cmp);
    let outside = against_truth
        .iter()
        .filter(|s| !within(s.normal_deg, s.bound_deg))
        .count();
    let pct = |p: f64| errors[((errors.len() - 1) as f64 * p) as usize];
    println!(
        "unaligned torus map: {outside} of {} samples outside the aligned bound; normal error median {:.2}°, 90th percentile {:.2}°, max {:.2}°",
        errors.len(),
        pct(0.5),
        pct(0.9),
        pct(1.0)
    );
    assert!(
        outside > errors.len() / 4 && pct(0.9) > 10.0 && pct(1.0) > 90.0,
        "the unaligned map filtered almost as well as the aligned one (seed {seed:#x})"
    );
    // The GPU itself is not at fault: it filters the unaligned values as the CPU does, within
    // the same derived bound wherever that bound is not vacuous.
    let against_data = evaluate(&broken, &points, &gpu, e);
    for (i, s) in against_data.iter().enumerate() {
        assert!(
            s.dq <= s.dq_bound,
            "sample {i} (seed {seed:#x}): the GPU's filter of the unaligned map is {:.3e} from the CPU's (bound {:.3e})",
            s.dq,
            s.dq_bound
        );
    }
    let vacuous = against_data.iter().filter(|s| s.bound_deg >= 180.0).count();
    println!("  against the CPU filter of the unaligned values: all within E; {vacuous} samples' angle bounds vacuous (|q_ref| ≤ E)");
}

#[test]
fn nearest_sampling_at_texel_centres_returns_every_stored_texel_of_every_level() {
    // Upload check through the real shader: with nearest filtering at each texel's centre and
    // the level's integer lod, the sampler returns the stored value — exactly for the float
    // formats, to the GPU's snorm conversion (a few ulps) for the snorm ones.
    let ctx = context();
    let swirl = NormalMap::default_swirl();
    let mesh = mirrored_islands();
    for format in MapFormat::UNCOMPRESSED {
        let s = BakeSettings {
            width: 64,
            height: 32,
            padding: 2,
            format,
        };
        let map = bake(&mesh, Some(&swirl), &s);
        let Some(gpu_map) = upload_or_skip(ctx, &map) else {
            continue;
        };
        assert_eq!(gpu_map.quats.mip_level_count() as usize, map.levels.len());
        assert_eq!(gq::texture_format(format), gpu_map.quats.format());
        let mut points = Vec::new();
        let mut want = Vec::new();
        for (k, level) in map.levels.iter().enumerate() {
            for y in 0..level.height {
                for x in 0..level.width {
                    let uv = Vec2::new(
                        (x as f32 + 0.5) / level.width as f32,
                        (y as f32 + 0.5) / level.height as f32,
                    );
                    points.push((uv, k as f32));
                    let i = (y * level.width + x) as usize;
                    want.push((level.quats[i], level.handedness[i], k, x, y));
                }
            }
        }
        let gpu = gq::sample_frames(ctx, &gpu_map, &points, gq::MapFilter::Nearest)
            .unwrap_or_else(|e| panic!("{format}: {e}"));
        let tol = match format {
            MapFormat::Rgba16Float | MapFormat::Rgba32Float => 0.0,
            MapFormat::Rgba16Snorm | MapFormat::Rgba8Snorm => 4.0 * f32::EPSILON,
            MapFormat::Bc5 | MapFormat::Bc7 | MapFormat::Bc5Pair => {
                unreachable!("UNCOMPRESSED holds no block format")
            }
        };
        for (g, (q, hd, k, x, y)) in gpu.iter().zip(&want) {
            let d = (g.filtered_quat() - *q).abs().max_element();
            assert!(
                d <= tol,
                "{format} level {k} texel ({x}, {y}): sampled {} but stored {q} (diff {d:e})",
                g.filtered_quat()
            );
            assert_eq!(
                g.filtered_handedness,
                f32::from(*hd),
                "{format} level {k} texel ({x}, {y}): handedness"
            );
            if *hd != 0 {
                assert_eq!(g.handedness, f32::from(*hd));
            }
        }
        println!(
            "{format}: {} texels over {} levels read back through the sampler",
            points.len(),
            map.levels.len()
        );
    }
}

#[test]
fn bad_maps_and_batches_are_errors_not_panics() {
    let ctx = context();
    let level = |w: u32, h: u32| MapLevel {
        width: w,
        height: h,
        quats: vec![Vec4::W; (w * h) as usize],
        handedness: vec![1; (w * h) as usize],
    };
    let map = |levels: Vec<MapLevel>, format| QuatMap {
        format,
        kind: vec![TexelKind::Covered; levels[0].quats.len()],
        triangle: vec![0; levels[0].quats.len()],
        levels,
        stats: MapStats::default(),
    };
    // Wider than the device allows: named with the limit.
    let limit = ctx.device.limits().max_texture_dimension_2d;
    let wide = gq::upload_map(ctx, &map(vec![level(limit + 1, 1)], MapFormat::Rgba8Snorm));
    match &wide {
        Err(e @ GpuError::TextureTooLarge { limit: l, .. }) => {
            assert_eq!(*l, limit);
            assert!(e.to_string().contains("max_texture_dimension_2d"), "{e}");
        }
        other => panic!("a {}-wide map: {:?}", limit + 1, other.as_ref().err()),
    }
    // A level of the wrong size.
    let bad = gq::upload_map(
        ctx,
        &map(vec![level(8, 8), level(4, 3)], MapFormat::Rgba16Float),
    );
    assert!(
        matches!(&bad, Err(GpuError::Invalid { what, .. }) if what.contains("level 1")),
        "{:?}",
        bad.as_ref().err()
    );
    // No points.
    let good = gq::upload_map(
        ctx,
        &map(vec![level(2, 2), level(1, 1)], MapFormat::Rgba16Float),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        gq::sample_frames(ctx, &good, &[], gq::MapFilter::Linear),
        Err(GpuError::Empty { .. })
    ));
    // A format the device cannot filter is a clear error naming the feature.
    for format in [MapFormat::Rgba16Snorm, MapFormat::Rgba32Float] {
        let need = gq::required_features(format);
        let r = gq::check_filterable(ctx, format);
        if ctx.device.features().contains(need) {
            assert!(r.is_ok());
        } else {
            let msg = r.expect_err("missing feature accepted").to_string();
            assert!(msg.contains(&format!("{need:?}")), "{msg}");
            let up = gq::upload_map(ctx, &map(vec![level(1, 1)], format));
            assert!(matches!(up, Err(GpuError::MissingFeature { .. })));
        }
    }
    // The handedness plane's format and the map formats.
    assert_eq!(gq::HANDEDNESS_FORMAT, wgpu::TextureFormat::R8Snorm);
    for format in MapFormat::UNCOMPRESSED {
        let tf = gq::texture_format(format);
        assert_eq!(
            tf.block_copy_size(None),
            Some(format.bytes_per_texel() as u32)
        );
    }
}
