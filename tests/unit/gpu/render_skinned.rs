//! The renderer's skinned draw path (`GpuScene::set_skinned`): a scene drawn from a skinning
//! batch's output — every object rigidly skinned to one bone equal to its model matrix — must
//! shade the same frames at the same pixels as the scene drawn from its own qtangent vertex
//! streams. Covers the skinned vertex layout (positions + Snorm16x4 at stride 20), UVs from the
//! position + UV stream at stride 20 (the default scene) and 28 (the duck, whose map is repacked
//! with a second UV set), and the identity model the skinned draw uses.
//! Needs a GPU adapter (lavapipe is enough); the duck needs the shared assets.

use crate::common;
use crate::draw::{self, Readback};

use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, Renderer, View, DEBUG_POISON};
use qtangent::gpu::{SkinBatch, SkinPipeline};
use qtangent::lab::skin_reference::OUTPUT_BOUND_DEG;
use qtangent::render::FrameSource;
use qtangent::render::RenderScene;
use qtangent::skin::{Bone, SkinMethod, SkinVertices};
use qtangent::{Format, QTangent};

const W: u32 = 320;
const H: u32 = 180;

// Per pixel, the shaded normal and tangent of the two draws may differ by:
// - the vertex frames: the unskinned draw decodes the CPU-encoded Snorm16x4 frame (≤ its bound
//   from the exact one); the skinned draw packs the exact frame by round-to-nearest
//   (≤ OUTPUT_BOUND_DEG), turns it by the bone and packs it again (≤ OUTPUT_BOUND_DEG more);
// - the fragment stage interpolates and re-orthonormalises the frame and applies the same normal
//   map to both; a rotation of the interpolated frame by δ turns the mapped normal by δ, and
//   Gram–Schmidt of a tangent turned by δ against a normal turned by δ stays within 2δ;
// - 0.01° for f32 interpolation, normalisation and the two matrix paths (model matrix in the
//   vertex shader against R·p + t in the kernel).
fn frame_tolerance_deg() -> f64 {
    2.0 * (Format::Snorm16x4.max_error_deg() + 2.0 * OUTPUT_BOUND_DEG) + 0.01
}

// Pixels that may disagree: covered by one draw and not the other, or covered by triangles on
// two sides of a frame discontinuity (a UV seam, a hard edge). Both come from the positions
// differing by f32 rounding (≤ 128 ε of the scene's size, ≈ 3e-5 of it): a pixel centre that
// close to an edge. Along a few thousand pixels of edges in a 320 × 180 image that is ≲ 10
// pixels; 0.2 % of the covered pixels (≈ 40) leaves room for both kinds.
const OUTLIER_FRACTION: f64 = 0.002;

fn angle_deg(a: [f32; 4], b: [f32; 4]) -> f64 {
    let (a, b) = (
        glam::Vec3::new(a[0], a[1], a[2]).as_dvec3(),
        glam::Vec3::new(b[0], b[1], b[2]).as_dvec3(),
    );
    a.cross(b).length().atan2(a.dot(b)).to_degrees()
}

fn check_scene(ctx: &GpuContext, name: &str, scene: &RenderScene, expect_map_uv: bool) {
    let renderer = Renderer::new(ctx).unwrap_or_else(|e| panic!("{e}"));
    let mut gpu = draw::upload(
        &renderer,
        ctx,
        scene,
        &qtangent::qmap::MapOptions::default(),
    );
    let view = View::fitted(scene, W as f32 / H as f32, 30.0, 20.0);
    let source = FrameSource::QTangent(Format::Snorm16x4);
    let readback = Readback::new(ctx, &renderer, view, (W, H));
    let plain = readback.frame(&gpu, source);
    let batch = rigid_batch(ctx, name, scene);
    for k in 0..scene.objects.len() {
        gpu.set_skinned(k, &batch, k)
            .unwrap_or_else(|e| panic!("{name}: object {k}: {e}"));
    }
    let skinned = readback.frame(&gpu, source);
    compare_draws(name, &plain, &skinned);
    // The unskinned draw of the same GpuScene must come back once the objects are released.
    for k in 0..scene.objects.len() {
        gpu.clear_skinned(k);
    }
    let again = readback.frame(&gpu, source);
    assert!(
        again[0] == plain[0],
        "{name}: clear_skinned restores the plain draw"
    );
    check_uv_stream(name, scene, &gpu, expect_map_uv);
}

/// Every object of `scene` rigidly skinned to one bone, its model matrix: the batch posed and
/// run (its output poisoned first).
fn rigid_batch(ctx: &GpuContext, name: &str, scene: &RenderScene) -> SkinBatch {
    let meshes: Vec<SkinVertices> = scene
        .objects
        .iter()
        .map(|o| {
            let p = &scene.meshes[o.mesh].mesh;
            let frames: Vec<QTangent> = p.frames.iter().map(|f| f.to_qtangent()).collect();
            let n = p.positions.len();
            SkinVertices::new(
                &p.label,
                &p.positions,
                &frames,
                &[vec![[0; 4]; n]],
                &[vec![[1.0, 0.0, 0.0, 0.0]; n]],
                1,
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"))
        })
        .collect();
    let refs: Vec<&SkinVertices> = meshes.iter().collect();
    let instances: Vec<usize> = (0..refs.len()).collect();
    let bones: Vec<Bone> = scene
        .objects
        .iter()
        .enumerate()
        .map(|(k, o)| Bone::from_mat4(o.model, k).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect();
    let pipeline = SkinPipeline::new(ctx).unwrap_or_else(|e| panic!("{e}"));
    let batch = pipeline
        .batch(ctx, &refs, &instances, SkinMethod::DualQuaternion)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    batch
        .set_bones(ctx, &bones)
        .unwrap_or_else(|e| panic!("{e}"));
    batch.buffers().poison(ctx);
    batch.run(ctx).unwrap_or_else(|e| panic!("{e}"));
    batch
}

/// The plain and the skinned draw's frames agree pixel by pixel, but for
/// [`OUTLIER_FRACTION`] of the covered pixels.
fn compare_draws(name: &str, plain: &[Vec<[f32; 4]>; 2], skinned: &[Vec<[f32; 4]>; 2]) {
    let tol = frame_tolerance_deg();
    let covered = |p: [f32; 4]| p[0] != DEBUG_POISON;
    let (mut both, mut outliers, mut worst) = (0usize, 0usize, 0.0f64);
    for i in 0..plain[0].len() {
        match (covered(plain[0][i]), covered(skinned[0][i])) {
            (true, true) => {
                both += 1;
                let a = angle_deg(plain[0][i], skinned[0][i])
                    .max(angle_deg(plain[1][i], skinned[1][i]));
                if a > tol || plain[0][i][3] != skinned[0][i][3] {
                    outliers += 1;
                } else {
                    worst = worst.max(a);
                }
            }
            (false, false) => {}
            _ => outliers += 1,
        }
    }
    eprintln!(
        "{name}: {both} pixels covered by both draws, {outliers} outliers, worst frame difference {worst:.5}° (tolerance {tol:.4}°)"
    );
    assert!(
        both > 1000,
        "{name}: the scene covers almost nothing ({both} pixels)"
    );
    assert!(
        outliers as f64 <= OUTLIER_FRACTION * both as f64,
        "{name}: {outliers} of {both} pixels differ (frames beyond {tol}°, handedness or coverage)"
    );
}

/// The quaternion-map mode's vertex bytes tell which UV stream the meshes have: 28 B a vertex
/// with a repacked map's second UV set, 20 without.
fn check_uv_stream(name: &str, scene: &RenderScene, gpu: &GpuScene, expect_map_uv: bool) {
    let vertices: u64 = scene
        .meshes
        .iter()
        .map(|m| m.mesh.positions.len() as u64)
        .sum();
    let quatmap = gpu
        .cost(FrameSource::QuatMap)
        .unwrap_or_else(|| panic!("{name}: no quatmap cost"));
    assert_eq!(
        quatmap.vertex_bytes > 20 * vertices,
        expect_map_uv,
        "{name}: {} quatmap vertex bytes for {vertices} vertices",
        quatmap.vertex_bytes
    );
}

#[test]
fn the_default_scene_skinned_rigidly_matches_its_plain_draw() {
    let scene = qtangent::lab::content::default_scene().unwrap_or_else(|e| panic!("{e}"));
    check_scene(common::context(), "default scene", &scene, false);
}

#[test]
fn the_duck_skinned_rigidly_matches_its_plain_draw() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let scene = RenderScene::load(&dir.join("obj/duck.obj")).unwrap_or_else(|e| panic!("{e}"));
    check_scene(common::context(), "duck", &scene, true);
}
