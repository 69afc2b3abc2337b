//! The lit renderer against a CPU reference, on an analytic scene: a unit sphere (its frames
//! known in closed form: n = position, t along the parallels) lit by one directional light,
//! drawn in all four frame-source modes — f32 vertex frames, qtangent vertex frames in every
//! format, an object-space quaternion map baked from the same frames, and the Snorm16x4 vertex
//! frame turned by a tangent-space map (an authored tilt-and-twist field, tiled twice) — with
//! the maps stored as rgba16f, and again stored block-compressed (BC7 object space, BC5 and BC7
//! tangent space), the CPU then filtering the texels the BC decoder gives.
//!
//! Per sampled pixel (seeded, printed on failure) the CPU casts the pixel centre's ray at the
//! mesh, interpolates the frame with the hit's barycentrics exactly as the rasteriser does
//! (perspective-correct), decodes it as the mode does (f32, the CPU decoder of the format, or a
//! bilinear sample of the map) and checks:
//!
//! 1. **The frame** the fragment stage shaded with (read back, `Output::Frame`) against the CPU
//!    frame. The GPU's interpolation point is not the pixel centre to the bit: vertices snap to
//!    the sub-pixel grid, ≥ 4 bits in Vulkan (2⁻⁴ px), so the interpolated attributes are those
//!    of a point up to 2⁻⁴ px away in x and in y. The bound is therefore 2 · 2⁻⁴ · S, S the
//!    largest change of any component between this pixel's CPU frame and its four neighbours'
//!    (measured, per pixel), plus 64 f32 roundings (normalisations and the transform). The map
//!    adds the sampler's weight snapping (sub-texel bits ≥ 4: tests/unit/gpu/sample.rs derives
//!    it) of the four texels read, times 4 for quaternion → vector.
//! 2. **The shading**: the GPU's linear radiance (`Output::Shading`) against
//!    `lab::shading::shade` evaluated on the GPU's own frame and world position, so only
//!    the BRDF's arithmetic differs: ~60 f32 operations at WGSL's accuracy (≤ 2.5 ulp for
//!    division, 2 for inverseSqrt, ≤ 22 for exp2 at |x| ≤ 9.3) compose to < 2⁸ ulp = 2⁻¹⁶
//!    relative; 2⁻¹² of the largest channel leaves 16× margin.
//!
//! Needs a GPU adapter (lavapipe is enough); without one it fails saying how to install it.

use crate::common::{self, context};
use crate::draw::{self, Readback};
use crate::gpu::kit::{self, render_target};

use glam::{DMat4, DVec3, DVec4, Mat4, Quat, Vec2, Vec3, Vec4};
use qtangent::gpu::render::DEBUG_FORMAT;
use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, Output, PreparedView, Renderer, View, DEBUG_POISON, DEPTH_FORMAT};
use qtangent::lab::shading::{self, Surface};
use qtangent::lab::shapes;
use qtangent::mesh::Prepared;
use qtangent::qmap::stored::Encoding;
use qtangent::qmap::EncodedMap;
use qtangent::qmap::MapOptions;
use qtangent::qmap::MapSpace;
use qtangent::qmap::{tangent, BakeMesh, MapFormat, NormalMap, QuatMap};
use qtangent::render::{Camera, FrameSource, Lighting, MaterialUniforms, SceneUniforms};
use qtangent::render::{MapSource, RenderScene, SceneMaterial, SceneObject};
use qtangent::Format;
use rand::Rng;

const SIZE: u32 = 256;
const MAP_W: u32 = 128;
const MAP_H: u32 = 64;
/// f32 unit roundoff.
const U: f32 = common::U;
/// Vulkan's minimum sub-pixel precision: vertices snap to 2⁻⁴ px.
const SUBPIXEL: f32 = 1.0 / 16.0;
/// The step of the filter weights on this adapter (the quirk table: Vulkan's minimum is 2⁻⁴,
/// llvmpipe's 2⁻⁸).
fn subtexel_step(ctx: &GpuContext) -> f32 {
    common::quirks::subtexel_step(ctx)
}

fn material() -> MaterialUniforms {
    MaterialUniforms {
        base_color: Vec4::new(0.8, 0.45, 0.25, 1.0),
        metallic: 0.3,
        roughness: 0.45,
        // Anisotropic, so the tangent matters to the picture.
        anisotropy: 0.7,
        ..MaterialUniforms::default()
    }
}

struct Setup {
    scene: RenderScene,
    sphere: Prepared,
    /// The object-space map's level 0 as the GPU holds it (decoded from its stored form).
    map: Vec<Vec4>,
    /// The handedness plane of the object-space map (level 0).
    plane: Vec<i8>,
    /// The tangent-space map's level 0 as the GPU holds it, and its size.
    tangent_map: Vec<Vec4>,
    /// The half step of a stored component (0 for BC: the CPU filters the decoded texels).
    half: f32,
    /// The tangent-space map is BC5: the shader filters (x, y) and rebuilds w after filtering.
    rebuild_w: bool,
    view: View,
}

/// Tangent-space map size: 64 × 32 texels over the sphere's UVs (repeat addressing across the
/// u = 0 / 1 seam).
const TAN_W: u32 = 64;
const TAN_H: u32 = 32;

/// A smooth tilt-and-twist field (periodic on the unit square): normals up to ~35° off +Z and a
/// twist up to ±60°, so both the normal and the tangent move.
fn tangent_field(with_twist: bool) -> QuatMap {
    use std::f32::consts::TAU;
    let nm = NormalMap::from_height(TAN_W.max(TAN_H), 0.6, |u, v| {
        (TAU * u).sin() * (TAU * 2.0 * v).cos() + 0.5 * (TAU * (u + v)).sin()
    });
    // from_height is square; take the top half rows for a 64 × 32 level, then mips.
    let mut levels = vec![NormalMap {
        width: TAN_W,
        height: TAN_H,
        texels: nm.texels[..(TAN_W * TAN_H) as usize].to_vec(),
    }];
    while levels.last().is_some_and(|l| l.width > 1 || l.height > 1) {
        let l = levels.last().expect("a level");
        let (w, h) = ((l.width / 2).max(1), (l.height / 2).max(1));
        let mut texels = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let at = |dx: u32, dy: u32| {
                    l.texels[((2 * y + dy).min(l.height - 1) * l.width
                        + (2 * x + dx).min(l.width - 1)) as usize]
                };
                texels.push(at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1));
            }
        }
        levels.push(NormalMap {
            width: w,
            height: h,
            texels,
        });
    }
    let twist = |uv: Vec2| 1.05 * (std::f32::consts::TAU * uv.x).sin();
    let twist = qtangent::lab::fixtures::twist_levels(&levels, &twist);
    tangent::bake_cpu(
        &levels,
        with_twist.then_some(tangent::TwistField(&twist)),
        MapFormat::Rgba32Float,
    )
}

/// Level 0 of `map` stored as `format` (in `space`), decoded as the GPU samples it.
fn stored_level0(map: &QuatMap, space: MapSpace, format: MapFormat) -> Vec<Vec4> {
    let e = EncodedMap::encode(map, &Encoding::new(space, format))
        .unwrap_or_else(|e| panic!("storing the {} map as {format}: {e}", space.name()));
    e.decode_level(0).expect("level 0 decodes")
}

fn setup() -> Setup {
    let plain = MapFormat::Rgba16Float;
    setup_stored(plain, plain, true)
}

/// The sphere with its object-space map stored as `object` and its tangent-space map (with or
/// without a twist) as `tangent_format`.
fn setup_stored(object: MapFormat, tangent_format: MapFormat, twist: bool) -> Setup {
    let sphere = shapes::uv_sphere(48, 24)
        .prepare()
        .expect("sphere prepares");
    let bake = BakeMesh::from_prepared("sphere", &[&sphere]);
    let map = crate::test_bake::exact_map(&bake, MAP_W, MAP_H);
    let tmap = tangent_field(twist);
    let half = |f: MapFormat| {
        if f.is_compressed() {
            0.0
        } else {
            f.half_step()
        }
    };
    let scene = draw::single_scene(
        "analytic sphere",
        sphere.clone(),
        SceneMaterial {
            tangent_map: Some(Box::new(tmap.clone())),
            ..SceneMaterial::plain("test", material())
        },
        MapSource::Authored(Box::new(map.clone())),
        Mat4::IDENTITY,
    );
    let view = View {
        camera: Camera::fit(Vec3::ZERO, 1.0, 1.0, 25.0, 20.0),
        lighting: Lighting::single(Vec3::new(0.4, 0.7, 0.6), Vec3::splat(3.0)),
        anisotropy_override: None,
        background: Vec3::ZERO,
    };
    Setup {
        scene,
        plane: map.levels[0].handedness.clone(),
        map: stored_level0(&map, MapSpace::Object, object),
        tangent_map: stored_level0(&tmap, MapSpace::Tangent, tangent_format),
        half: half(object).max(half(tangent_format)),
        rebuild_w: tangent_format == MapFormat::Bc5,
        sphere,
        view,
    }
}

/// The ray through the centre of pixel (x, y): origin and direction, f64.
fn pixel_ray(inv: &DMat4, x: f64, y: f64) -> (DVec3, DVec3) {
    let ndc = DVec3::new(
        2.0 * x / f64::from(SIZE) - 1.0,
        1.0 - 2.0 * y / f64::from(SIZE),
        0.0,
    );
    let un = |z: f64| {
        let p = *inv * DVec4::new(ndc.x, ndc.y, z, 1.0);
        p.truncate() / p.w
    };
    let (a, b) = (un(0.0), un(1.0));
    (a, (b - a).normalize())
}

/// Nearest hit of the ray with the mesh: (triangle, barycentrics), Möller–Trumbore in f64.
fn cast(mesh: &Prepared, o: DVec3, d: DVec3) -> Option<(usize, DVec3)> {
    let mut best: Option<(f64, usize, DVec3)> = None;
    for (t, tri) in mesh.indices.chunks_exact(3).enumerate() {
        let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[tri[k] as usize].as_dvec3());
        let (e1, e2) = (b - a, c - a);
        let p = d.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-14 {
            continue;
        }
        let s = o - a;
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = d.dot(q) / det;
        let dist = e2.dot(q) / det;
        if u < 0.0 || v < 0.0 || u + v > 1.0 || dist <= 0.0 {
            continue;
        }
        if best.is_none_or(|(bd, _, _)| dist < bd) {
            best = Some((dist, t, DVec3::new(1.0 - u - v, u, v)));
        }
    }
    best.map(|(_, t, l)| (t, l))
}

/// Bilinear sample of level 0, clamp-to-edge (the renderer's map sampler at magnification):
/// the filtered quaternion, the filtered handedness, and the weight-snapping bound E_w.
fn sample_map(
    quats: &[Vec4],
    plane: Option<&[i8]>,
    (width, height): (u32, u32),
    repeat: bool,
    uv: Vec2,
    e: f32,
) -> (Vec4, f32, f32) {
    let s = Vec2::new(uv.x * width as f32 - 0.5, uv.y * height as f32 - 0.5);
    let f = s - s.floor();
    let index = |i: f32, n: u32| {
        if repeat {
            (i as i64).rem_euclid(i64::from(n)) as usize
        } else {
            (i.max(0.0) as u32).min(n - 1) as usize
        }
    };
    let (x0, y0) = (s.x.floor(), s.y.floor());
    let at = |dx: f32, dy: f32| {
        let k = index(y0 + dy, height) * width as usize + index(x0 + dx, width);
        (quats[k], plane.map_or(1.0, |p| f32::from(p[k])))
    };
    let (q00, h00) = at(0.0, 0.0);
    let (q10, h10) = at(1.0, 0.0);
    let (q01, h01) = at(0.0, 1.0);
    let (q11, h11) = at(1.0, 1.0);
    let a = [1.0 - f.x, f.x];
    let b = [1.0 - f.y, f.y];
    let q = q00 * (a[0] * b[0]) + q10 * (a[1] * b[0]) + q01 * (a[0] * b[1]) + q11 * (a[1] * b[1]);
    let h = h00 * (a[0] * b[0]) + h10 * (a[1] * b[0]) + h01 * (a[0] * b[1]) + h11 * (a[1] * b[1]);
    let dx = (q10 - q00) * b[0] + (q11 - q01) * b[1];
    let dy = (q01 - q00) * a[0] + (q11 - q10) * a[1];
    let c = q11 - q10 - q01 + q00;
    let ew = e * dx.length() + e * dy.length() + e * e * c.length();
    (q, h, ew)
}

/// The CPU's shading frame (n, t, E_filter, handedness) at barycentrics `l` of triangle `tri`.
fn cpu_frame(
    st: &Setup,
    source: FrameSource,
    tri: usize,
    l: DVec3,
    e: f32,
) -> (Vec3, Vec3, f32, f32) {
    let idx = &st.sphere.indices[3 * tri..3 * tri + 3];
    let l = l.as_vec3();
    let w = [l.x, l.y, l.z];
    let uv: Vec2 = (0..3).map(|k| st.sphere.uvs[idx[k] as usize] * w[k]).sum();
    // Storage: a filter that rounds to 16 bits is off by half a step a component.
    let half = st.half;
    match source {
        FrameSource::QuatMap => {
            let (q, h, ew) = sample_map(&st.map, Some(&st.plane), (MAP_W, MAP_H), false, uv, e);
            let len = q.length();
            let qn = glam::Quat::from_vec4(q / len);
            let n = (qn * Vec3::Z).normalize();
            let t = shading::orthonormal_tangent(n, qn * Vec3::X);
            (n, t, 4.0 * (ew + 2.0 * half) / len, h.signum())
        }
        FrameSource::QuatMapTangent => {
            let frames: Vec<qtangent::TangentFrame> = idx
                .iter()
                .map(|&v| {
                    let f = st.sphere.frames[v as usize];
                    let mut bytes = Vec::new();
                    Format::Snorm16x4.encode_into(&f.to_qtangent(), &mut bytes);
                    Format::Snorm16x4.decode(&bytes).to_frame()
                })
                .collect();
            let ni: Vec3 = (0..3).map(|k| frames[k].normal * w[k]).sum();
            let ti: Vec3 = (0..3).map(|k| frames[k].tangent * w[k]).sum();
            let hi: f32 = (0..3).map(|k| frames[k].handedness() * w[k]).sum();
            let n0 = ni.normalize();
            let t0 = shading::orthonormal_tangent(n0, ti);
            let h = if hi >= 0.0 { 1.0 } else { -1.0 };
            let (mut r, _, ew) = sample_map(&st.tangent_map, None, (TAN_W, TAN_H), true, uv, e);
            if st.rebuild_w {
                // As the shader (MAP_DECODE 2): (x, y) filtered, w rebuilt from them.
                r = tangent::rebuild_w(r.x, r.y, 0.0);
            }
            let len = r.length();
            let (n, t) = tangent::apply(n0, t0, h, r / len);
            let n = n.normalize();
            (
                n,
                shading::orthonormal_tangent(n, t),
                4.0 * (ew + 2.0 * half) / len,
                h,
            )
        }
        _ => {
            let frames: Vec<qtangent::TangentFrame> = idx
                .iter()
                .map(|&v| {
                    let f = st.sphere.frames[v as usize];
                    match source {
                        FrameSource::QTangent(fmt) => {
                            let mut bytes = Vec::new();
                            fmt.encode_into(&f.to_qtangent(), &mut bytes);
                            fmt.decode(&bytes).to_frame()
                        }
                        _ => f,
                    }
                })
                .collect();
            let ni: Vec3 = (0..3).map(|k| frames[k].normal * w[k]).sum();
            let ti: Vec3 = (0..3).map(|k| frames[k].tangent * w[k]).sum();
            let n = ni.normalize();
            (n, shading::orthonormal_tangent(n, ti), 0.0, 0.0)
        }
    }
}

fn max_abs(a: Vec3, b: Vec3) -> f32 {
    (a - b).abs().max_element()
}

#[test]
fn sphere_frames_and_shading_match_the_cpu_in_every_mode() {
    let mut sources = vec![
        FrameSource::Reference,
        FrameSource::QuatMap,
        FrameSource::QuatMapTangent,
    ];
    sources.extend(Format::ALL.map(FrameSource::QTangent));
    check_sphere(MapFormat::Rgba16Float, true, &sources);
}

/// Block-compressed maps: the CPU filters the texels the crate's BC decoder gives (BC7 decodes
/// to bytes exactly by the spec; BC5's palette is computed in f32), so the bound is the plain
/// formats' with the storage term replaced by the decoder's rounding (below). BC5 holds no
/// twist, so its tangent field is a pure tilt; its object-space map is stored as BC7. Two BC5
/// layers with a twist: the tangent-space map's normal (x, y) ⊗ twist
/// (`MAP_DECODE_BC5_NORMAL_TWIST`), decoded in WGSL against the CPU's decode of the same texels
/// (the object-space map, which keeps a handedness plane, as BC7).
#[test]
fn sphere_frames_match_the_cpu_with_block_compressed_maps() {
    let sources = [FrameSource::QuatMap, FrameSource::QuatMapTangent];
    check_sphere(MapFormat::Bc7, true, &sources);
    check_sphere(MapFormat::Bc5, false, &sources);
    check_sphere(MapFormat::Bc5Pair, true, &sources);
}

/// The sphere with both maps stored as `format` (BC5: the object-space map as BC7) and a
/// tangent field with or without its `twist`, every source in `sources` against the CPU.
fn check_sphere(format: MapFormat, twist: bool, sources: &[FrameSource]) {
    let ctx = context();
    let renderer = Renderer::new(ctx).expect("renderer");
    let (st, gpu) = upload_stored(ctx, &renderer, format, twist);
    let readback = Readback::new(ctx, &renderer, st.view.clone(), (SIZE, SIZE));
    for &source in sources {
        let check = SphereCheck {
            st: &st,
            source,
            inv: st.view.camera.view_proj(1.0).as_dmat4().inverse(),
            eye: st.view.camera.position(),
            scene_u: st.view.lighting.uniforms(st.view.camera.position(), None),
            e: subtexel_step(ctx),
            frame: readback.frame(&gpu, source),
            shading: readback.shading(&gpu, source),
        };
        common::for_seeds(
            &format!("sphere {} ({format} maps)", source),
            1,
            |seed, rng| check.sampled_pixels(seed, rng),
        );
    }
}

/// The sphere of [`check_sphere`] set up and uploaded, with both maps stored as `format` (BC5:
/// the object-space map as BC7); checks that the upload kept those formats.
fn upload_stored(
    ctx: &GpuContext,
    renderer: &Renderer,
    format: MapFormat,
    twist: bool,
) -> (Setup, GpuScene) {
    // BC5 cannot hold an object-space map, nor two BC5 layers this one's handedness plane
    // (an authored map keeps it): the object-space map is BC7 for both.
    let object = if matches!(format, MapFormat::Bc5 | MapFormat::Bc5Pair) {
        MapFormat::Bc7
    } else {
        format
    };
    let mut st = setup_stored(object, format, twist);
    if format.is_compressed() {
        // The GPU may round what it decodes and filters to the format's own steps (D3D lets a
        // BC4/BC5 decoder round its palette; lavapipe filters 8-bit formats at 8 bits): half a
        // BC5 SNORM step, 0.5/127 a component, which also covers BC7's unorm byte (half of
        // 2/255 in [−1, 1]).
        st.half = 0.5 / 127.0;
    }
    let mut warnings = Vec::new();
    let gpu = renderer
        .upload(
            ctx,
            &st.scene,
            &Format::ALL, // The BC7 effort the CPU side (stored_level0) encodes with.
            &MapOptions {
                bc7: qtangent::qmap::Bc7Quality::Basic,
                ..MapOptions::stored(format)
            },
            &mut warnings,
        )
        .expect("upload");
    assert_eq!(
        gpu.report().tangent_maps[0].format,
        Some(format),
        "{warnings:?}"
    );
    assert_eq!(
        gpu.report().object_maps[0].format,
        Some(object),
        "{warnings:?}"
    );
    (st, gpu)
}

/// One frame source of the sphere as the GPU drew it, and what the CPU needs to check its
/// pixels.
struct SphereCheck<'a> {
    st: &'a Setup,
    source: FrameSource,
    /// The inverse of the view-projection matrix (pixel rays).
    inv: DMat4,
    eye: Vec3,
    scene_u: SceneUniforms,
    /// The filter weights' step ([`subtexel_step`]).
    e: f32,
    /// [`Output::Frame`]: (n, handedness) and (t, strength).
    frame: [Vec<[f32; 4]>; 2],
    /// [`Output::Shading`]: radiance and world position.
    shading: [Vec<[f32; 4]>; 2],
}

impl SphereCheck<'_> {
    /// 4000 seeded pixels: the frame and the shading of every one on the sphere and facing the
    /// camera; more than 1000 of them must be checked.
    fn sampled_pixels(&self, seed: u64, rng: &mut impl Rng) {
        let mut checked = 0;
        let mut worst_frame = 0.0f32;
        let mut worst_shade = 0.0f32;
        for _ in 0..4000 {
            let (x, y) = (rng.random_range(1..SIZE - 1), rng.random_range(1..SIZE - 1));
            let Some((frame, shade)) = self.pixel(seed, x, y) else {
                continue;
            };
            worst_frame = worst_frame.max(frame);
            worst_shade = worst_shade.max(shade);
            checked += 1;
        }
        assert!(checked > 1000, "only {checked} pixels checked");
        eprintln!(
            "{}: {checked} pixels; worst frame error {:.2e} of its bound, worst radiance error {:.2e} of its bound",
            self.source,
            worst_frame,
            worst_shade
        );
    }

    /// Checks pixel (x, y) (1: the frame, 2: the shading); `None` where it is off the sphere or
    /// near the silhouette, else the frame's and the radiance's errors as parts of their bounds.
    fn pixel(&self, seed: u64, x: u32, y: u32) -> Option<(f32, f32)> {
        let (st, source, label) = (self.st, self.source, self.source.to_string());
        let (o, d) = pixel_ray(&self.inv, f64::from(x) + 0.5, f64::from(y) + 0.5);
        let (tri, l) = cast(&st.sphere, o, d)?;
        let (n_cpu, t_cpu, e_filter, h_cpu) = cpu_frame(st, source, tri, l, self.e);
        let k = (y * SIZE + x) as usize;
        let [normals, tangents] = &self.frame;
        let g = normals[k];
        assert!(
            g[0] != DEBUG_POISON,
            "seed {seed:#x}: pixel ({x}, {y}) is on the sphere but the GPU wrote nothing"
        );
        // Stay away from the silhouette: there a neighbour may miss the sphere and the map's
        // level of detail grows.
        let [radiance, world] = &self.shading;
        let wp = Vec3::new(world[k][0], world[k][1], world[k][2]);
        let v = (self.eye - wp).normalize();
        if n_cpu.dot(v) < 0.5 {
            return None;
        }
        let s = self.neighbour_change(x, y, n_cpu, t_cpu);
        let bound = 2.0 * SUBPIXEL * s + e_filter + 64.0 * U;
        let n_gpu = Vec3::new(g[0], g[1], g[2]);
        let t_gpu = Vec3::new(tangents[k][0], tangents[k][1], tangents[k][2]);
        let err = max_abs(n_gpu, n_cpu).max(max_abs(t_gpu, t_cpu));
        assert!(
            err <= bound,
            "seed {seed:#x} {label}: pixel ({x}, {y}) frame differs by {err:e} > bound {bound:e} \
             (S = {s:e}, filter {e_filter:e}); GPU n {n_gpu} t {t_gpu}, CPU n {n_cpu} t {t_cpu}",
        );
        // The handedness: derived from the UV winding (object-space maps have no plane here) or
        // the vertex's, against the map's plane and the vertex frames.
        if h_cpu != 0.0 {
            assert_eq!(
                g[3], h_cpu,
                "seed {seed:#x} {label}: pixel ({x}, {y}) handedness"
            );
        }
        // 2: the BRDF on the GPU's own inputs.
        let surface = Surface::with_material(wp, n_gpu, t_gpu, &material(), -1.0);
        let want = shading::shade(&surface, &self.scene_u);
        let got = Vec3::new(radiance[k][0], radiance[k][1], radiance[k][2]);
        let tol = (2.0f32).powi(-12) * want.max_element().max(got.max_element()) + 64.0 * U;
        let diff = max_abs(got, want);
        assert!(
            diff <= tol,
            "seed {seed:#x} {label}: pixel ({x}, {y}) radiance {got} vs CPU {want}: {diff:e} > {tol:e}",
        );
        Some((err / bound, diff / tol))
    }

    /// S: the largest change of the CPU frame (n, t) from pixel (x, y) to the four neighbouring
    /// pixels' centres.
    fn neighbour_change(&self, x: u32, y: u32, n: Vec3, t: Vec3) -> f32 {
        let mut s = 0.0f32;
        for (dx, dy) in [(-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0)] {
            let (o, d) = pixel_ray(&self.inv, f64::from(x) + 0.5 + dx, f64::from(y) + 0.5 + dy);
            if let Some((t2, l2)) = cast(&self.st.sphere, o, d) {
                let (n2, tt2, _, _) = cpu_frame(self.st, self.source, t2, l2, self.e);
                s = s.max(max_abs(n2, n)).max(max_abs(tt2, t));
            }
        }
        s
    }
}

#[test]
fn every_pixel_of_the_sphere_is_written_and_nothing_else() {
    let ctx = context();
    let st = setup();
    let renderer = Renderer::new(ctx).expect("renderer");
    let gpu = draw::upload(&renderer, ctx, &st.scene, &MapOptions::default());
    let inv = st.view.camera.view_proj(1.0).as_dmat4().inverse();
    let [normals, _] = Readback::new(ctx, &renderer, st.view.clone(), (SIZE, SIZE))
        .frame(&gpu, FrameSource::QuatMap);
    let mut mismatches = 0;
    for y in 0..SIZE {
        for x in 0..SIZE {
            let (o, d) = pixel_ray(&inv, f64::from(x) + 0.5, f64::from(y) + 0.5);
            let hit = cast(&st.sphere, o, d).is_some();
            let written = normals[(y * SIZE + x) as usize][0] != DEBUG_POISON;
            // Pixels whose centre lies within rounding of a silhouette edge may go either way.
            if hit != written {
                mismatches += 1;
            }
        }
    }
    // The silhouette is ~π·200 px long; a pixel centre within 2⁻⁴ px of it (the sub-pixel
    // snap) can flip: at most a few percent of the silhouette's pixels.
    assert!(
        mismatches <= 40,
        "{mismatches} pixels disagree with the CPU ray cast on coverage"
    );
}

/// Fresh `SIZE`² targets for [`Output::Shading`]: two [`DEBUG_FORMAT`] colour targets and a
/// [`DEPTH_FORMAT`] depth target.
fn shading_targets(ctx: &GpuContext) -> ([wgpu::Texture; 2], wgpu::Texture) {
    let make = |label: &str, format| {
        render_target(
            &ctx.device,
            label,
            format,
            (SIZE, SIZE),
            wgpu::TextureUsages::empty(),
        )
    };
    (
        [
            make("view radiance", DEBUG_FORMAT),
            make("view position", DEBUG_FORMAT),
        ],
        make("view depth", DEPTH_FORMAT),
    )
}

/// Records into `encoder` one pass that clears `targets` to [`DEBUG_POISON`] and draws `view`
/// of `gpu` with [`Output::Shading`]; returns what the draw returned.
fn record_shading(
    ctx: &GpuContext,
    renderer: &Renderer,
    gpu: &GpuScene,
    view: &PreparedView,
    source: FrameSource,
    encoder: &mut wgpu::CommandEncoder,
    targets: &([wgpu::Texture; 2], wgpu::Texture),
) -> Result<(), qtangent::gpu::GpuError> {
    let p = f64::from(DEBUG_POISON);
    let views: Vec<wgpu::TextureView> = targets
        .0
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();
    let depth = targets.1.create_view(&Default::default());
    let poison = wgpu::Color {
        r: p,
        g: p,
        b: p,
        a: p,
    };
    let mut pass = kit::begin_pass(encoder, "one view", &views, &depth, poison);
    renderer.draw(ctx, gpu, view, source, Output::Shading, &mut pass)
}

/// Split screen: two views of one scene (two spheres, so every object's uniform slot is read)
/// recorded into ONE command encoder — the first view's pass, then the second's — and sent in
/// ONE submission, each into its own targets, read back and compared with the same view
/// rendered alone ([`Renderer::render_debug`], its own submission).
///
/// Tolerance: none, bit for bit. Both renders run the same pipeline on the same vertex data
/// and textures into targets of the same size, with uniforms computed by the same code from
/// the same view; Vulkan's invariance rules (repeatability: the same inputs and state give the
/// same fragments and values) make the results identical. A renderer that writes a view's
/// uniforms while recording (the old `draw`, `queue.write_buffer` per draw) draws both views
/// with the last camera: the first view's targets would then hold the second view, which the
/// test also shows differs from the first in most covered pixels.
#[test]
fn two_views_in_one_submission_each_match_the_view_alone() {
    let ctx = context();
    let mut st = setup();
    st.scene.objects = vec![
        SceneObject {
            mesh: 0,
            model: Mat4::from_scale_rotation_translation(
                Vec3::splat(0.6),
                Quat::from_rotation_y(0.7),
                Vec3::new(-0.9, 0.0, 0.0),
            ),
            skin: None,
        },
        SceneObject {
            mesh: 0,
            model: Mat4::from_translation(Vec3::new(0.8, 0.1, -0.3)),
            skin: None,
        },
    ];
    let renderer = Renderer::new(ctx).expect("renderer");
    let gpu = draw::upload(&renderer, ctx, &st.scene, &MapOptions::default());
    // Square targets: aspect 1, as render_debug uses for SIZE × SIZE.
    let views = [
        View::fitted(&st.scene, 1.0, 30.0, 15.0),
        View::fitted(&st.scene, 1.0, -75.0, 40.0),
    ];
    for source in [FrameSource::Reference, FrameSource::QuatMap] {
        let alone: Vec<[Vec<[f32; 4]>; 2]> = views
            .iter()
            .map(|v| Readback::new(ctx, &renderer, v.clone(), (SIZE, SIZE)).shading(&gpu, source))
            .collect();
        // The views differ: the world positions of most covered pixels are not the same.
        let covered = |p: &[f32; 4]| p[0] != DEBUG_POISON;
        let both = alone[0][1]
            .iter()
            .zip(&alone[1][1])
            .filter(|(a, b)| covered(a) && covered(b))
            .count();
        let same = alone[0][1]
            .iter()
            .zip(&alone[1][1])
            .filter(|(a, b)| covered(a) && a == b)
            .count();
        let seen = alone[0][1].iter().filter(|p| covered(p)).count();
        assert!(
            seen > (SIZE * SIZE / 8) as usize && same * 100 < seen,
            "{}: the two views are not different enough to test anything ({seen} pixels \
             covered, {both} by both, {same} identical)",
            source
        );
        let prepared: Vec<PreparedView> = views
            .iter()
            .map(|v| renderer.prepare_view(ctx, &gpu, v, 1.0).expect("prepare"))
            .collect();
        let targets = [shading_targets(ctx), shading_targets(ctx)];
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for (p, t) in prepared.iter().zip(&targets) {
            record_shading(ctx, &renderer, &gpu, p, source, &mut encoder, t).expect("draw");
        }
        ctx.queue.submit([encoder.finish()]);
        for (k, (t, want)) in targets.iter().zip(&alone).enumerate() {
            for (i, what) in ["radiance", "world position"].into_iter().enumerate() {
                let bytes = ctx.read_texture(&t.0[i], what).expect("readback");
                let got: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&bytes);
                let differ: Vec<usize> = (0..got.len())
                    .filter(|&j| got[j].map(f32::to_bits) != want[i][j].map(f32::to_bits))
                    .collect();
                assert!(
                    differ.is_empty(),
                    "{}: view {k} drawn beside the other differs from it alone in {what} at \
                     {} pixels (first at {:?}: {:?} vs {:?})",
                    source,
                    differ.len(),
                    differ.first().map(|&j| (j as u32 % SIZE, j as u32 / SIZE)),
                    differ.first().map(|&j| got[j]),
                    differ.first().map(|&j| want[i][j]),
                );
            }
        }
    }
}

/// A prepared view belongs to the scene it was prepared for: drawing another scene with it is
/// refused (its object slots would not match that scene's objects).
#[test]
fn a_view_prepared_for_one_scene_is_refused_for_another() {
    let ctx = context();
    let st = setup();
    let renderer = Renderer::new(ctx).expect("renderer");
    let upload = || draw::upload(&renderer, ctx, &st.scene, &MapOptions::default());
    let (first, second) = (upload(), upload());
    let prepared = renderer
        .prepare_view(ctx, &first, &st.view, 1.0)
        .expect("prepare");
    let targets = shading_targets(ctx);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let source = FrameSource::Reference;
    let e = record_shading(
        ctx,
        &renderer,
        &second,
        &prepared,
        source,
        &mut encoder,
        &targets,
    )
    .expect_err("a view of another scene must be refused")
    .to_string();
    assert!(e.contains("another scene"), "{e}");
    record_shading(
        ctx,
        &renderer,
        &first,
        &prepared,
        source,
        &mut encoder,
        &targets,
    )
    .expect("its own scene draws");
    ctx.queue.submit([encoder.finish()]);
    ctx.wait().expect("the submission completes");
}

#[test]
fn the_spun_metal_map_is_aligned_except_along_one_ray() {
    let plate = qtangent::lab::shapes::plate(2.0)
        .prepare()
        .expect("plate prepares");
    let size = 128;
    let map = qtangent::lab::content::spun_metal_map(&plate, size);
    // The tangent field winds once around the centre, so q turns into −q going round: the
    // hemisphere rule must leave conflicts, but only where the seam ray crosses the rows or
    // columns — at most one per row and one per column.
    assert!(
        map.stats.hemisphere_conflicts > 0,
        "a winding field must conflict somewhere"
    );
    assert!(
        map.stats.hemisphere_conflicts <= 2 * size as usize,
        "{} conflicts: more than a seam ray's",
        map.stats.hemisphere_conflicts
    );
    // Every texel's tangent runs along the circle about the centre.
    let l = &map.levels[0];
    for y in (0..size).step_by(7) {
        for x in (0..size).step_by(5) {
            let c = Vec2::new(
                (x as f32 + 0.5) / size as f32 - 0.5,
                (y as f32 + 0.5) / size as f32 - 0.5,
            );
            if c.length() < 2.0 / size as f32 {
                continue;
            }
            let q = glam::Quat::from_vec4(l.quats[(y * size + x) as usize]).normalize();
            let t = q * Vec3::X;
            // Plate frame: tangent +X (u), normal +Y, so UV direction (a, b) is (a, 0, b)·h.
            let radial = Vec3::new(c.x, 0.0, c.y).normalize();
            // f16 storage: angle error ≤ MapFormat::max_error_deg; sin of it bounds the dot.
            let tol = MapFormat::Rgba16Float
                .max_error_deg()
                .expect("uncompressed")
                .to_radians()
                .sin()
                + 8.0 * U;
            assert!(
                t.dot(radial).abs() <= tol,
                "texel ({x}, {y}): tangent {t} is not perpendicular to the radius {radial}"
            );
        }
    }
}

#[test]
fn normal_mapping_mirror_tilts_towards_tangent_and_bitangent() {
    let (n, t) = (Vec3::Z, Vec3::X);
    // A texel of (0.5, 0.5, 1) unpacks to (0, 0, 1): the normal itself.
    let flat = shading::normal_mapped(n, t, 1.0, Vec3::new(0.5, 0.5, 1.0), 1.0);
    assert!(
        max_abs(flat, n) <= 4.0 * U,
        "flat texel moved the normal: {flat}"
    );
    // (1, 0.5, 0.5) unpacks to (1, 0, 0): along the tangent; scale 0 removes it again.
    let along_t = shading::normal_mapped(n, t, 1.0, Vec3::new(1.0, 0.5, 0.5), 1.0);
    assert!(max_abs(along_t, t) <= 4.0 * U, "{along_t}");
    // Green tilts towards the bitangent h·cross(n, t): +Y for h = 1, −Y for h = −1.
    let g = Vec3::new(0.5, 1.0, 0.5);
    assert!(max_abs(shading::normal_mapped(n, t, 1.0, g, 1.0), Vec3::Y) <= 4.0 * U);
    assert!(max_abs(shading::normal_mapped(n, t, -1.0, g, 1.0), Vec3::NEG_Y) <= 4.0 * U);
    // A tangent parallel to the normal falls back to a perpendicular one.
    let p = shading::orthonormal_tangent(n, Vec3::Z * 2.0);
    assert!(
        p.dot(n).abs() <= 4.0 * U && (p.length() - 1.0).abs() <= 4.0 * U,
        "{p}"
    );
}

/// A frame source's label (its `Display`): the mode name, with the format for qtangent vertex
/// frames; padded like a string so the tools' tables align.
#[test]
fn frame_source_labels() {
    assert_eq!(FrameSource::Reference.to_string(), "reference");
    assert_eq!(
        FrameSource::QTangent(Format::Smallest3x4).to_string(),
        format!("qtangent {}", Format::Smallest3x4.name())
    );
    assert_eq!(
        format!("[{:<17}]", FrameSource::QuatMapTangent),
        "[quatmap-tangent  ]"
    );
    assert_eq!(format!("[{:>8}]", FrameSource::QuatMap), "[ quatmap]");
}
