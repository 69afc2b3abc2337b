//! The four frame sources on real meshes and the default scene: the qtangent vertex frame and
//! both kinds of quaternion map must light a surface like 28 bytes of f32 normal + tangent and
//! the normal map do. Maps here are stored as rgba16f (the block formats have their own test
//! below and their figures in the `maps` table).
//!
//! **The bound: PSNR ≥ 40 dB against the reference**, the figure for "looks the same":
//! an RMS difference of 255 / 10² = 2.55 levels of 255. What each mode can lose:
//! - qtangent (snorm16x4, 0.004° at most) changes a normal by far less than one level can show:
//!   measured 84–90 dB, mostly single-level rounding flips.
//! - the quaternion map replaces "interpolate the vertex frame, then apply the bilinearly
//!   filtered normal map" by "bilinearly filter frames baked at texel centres": the same to first
//!   order, different by the curvature of the frame field and the normal map across a texel
//!   (second order), which a specular highlight magnifies; and where the view minifies the
//!   map, its mips average frames where the normal map's average colours. Measured at the
//!   render tool's default view (1280×720): 41.1 dB on FlightHelmet, 46 dB on the duck. The
//!   differences sit on UV-island edges and busy normal-map detail (the heatmap); the same
//!   helmet at 960×540, more minified, measures 40.1 dB. The 40 dB bound was set beforehand and
//!   was not moved; the margin on FlightHelmet is small and the README says so.
//! - the tangent-space map keeps the interpolated vertex frame and filters the rotation the
//!   normal map's texel makes instead of the texel itself: the same to first order again, but
//!   with the frame field's curvature gone from the difference (the vertex frame is the
//!   reference's own) and mips made from the normal map's own mips. **Bound: 50 dB** (an RMS of
//!   0.8 levels), the target for the uncompressed tangent-space map.
//! - **BC5**: a tangent-space map stored as BC5 must be within 0.5 dB of the reference drawn
//!   with its normal map stored as BC5 (both against the RGBA8 reference): the target,
//!   at the bytes of the normal map it replaces.
//!
//! On failure the pictures are written to `target/test-output/` (`*-actual.png`,
//! `*-expected.png`, `*-difference.png`). Needs a GPU adapter (lavapipe is enough) and the
//! shared assets (`QTANGENT_ASSETS`; required under CI).

use crate::common;

use image::RgbaImage;
use qtangent::gpu::GpuContext;
use qtangent::gpu::{Renderer, View};
use qtangent::qmap::MapFormat;
use qtangent::qmap::MapOptions;
use qtangent::render;
use qtangent::render::FrameSource;
use qtangent::render::RenderScene;
use qtangent::Format;

/// The `render` tool's default view and size: what the README's pictures show.
const W: u32 = 1280;
const H: u32 = 720;
/// The equivalence bound (see the module docs).
const MIN_PSNR_DB: f64 = 40.0;
/// The tangent-space map's bound (see the module docs).
const MIN_TANGENT_PSNR_DB: f64 = 50.0;

use crate::common::context;

const MODES: [FrameSource; 4] = [
    FrameSource::Reference,
    FrameSource::QTangent(Format::Snorm16x4),
    FrameSource::QuatMap,
    FrameSource::QuatMapTangent,
];

fn plain_maps() -> MapOptions {
    MapOptions {
        format: Some(MapFormat::Rgba16Float),
        ..MapOptions::default()
    }
}

/// Renders `scene` in the four modes at `w × h` from the default camera, maps rgba16f.
fn render_modes(
    ctx: &GpuContext,
    scene: &RenderScene,
    w: u32,
    h: u32,
) -> (Vec<RgbaImage>, qtangent::gpu::GpuScene, View) {
    render_modes_with(ctx, scene, w, h, &plain_maps())
}

fn render_modes_with(
    ctx: &GpuContext,
    scene: &RenderScene,
    w: u32,
    h: u32,
    options: &MapOptions,
) -> (Vec<RgbaImage>, qtangent::gpu::GpuScene, View) {
    let renderer = Renderer::new(ctx).expect("renderer");
    let gpu = renderer
        .upload(ctx, scene, &[Format::Snorm16x4], options, &mut ())
        .unwrap_or_else(|e| panic!("{}: upload failed: {e}", scene.name));
    let view = View::fitted(scene, w as f32 / h as f32, 30.0, 20.0);
    let images = MODES
        .iter()
        .map(|&s| {
            renderer
                .render_image(ctx, &gpu, &view, s, w, h)
                .unwrap_or_else(|e| panic!("{}: {} render failed: {e}", scene.name, s))
        })
        .collect();
    (images, gpu, view)
}

fn background_fraction(img: &RgbaImage) -> f64 {
    let bg = img.get_pixel(0, 0);
    img.pixels().filter(|p| *p == bg).count() as f64 / f64::from(img.width() * img.height())
}

fn assert_equivalent(name: &str, images: &[RgbaImage]) {
    for (k, s) in MODES.iter().enumerate().skip(1) {
        let d = render::diff(&images[k], &images[0], None).expect("same size");
        eprintln!("{name}: {} vs reference: {d}", s);
        let bound = if *s == FrameSource::QuatMapTangent {
            MIN_TANGENT_PSNR_DB
        } else {
            MIN_PSNR_DB
        };
        if d.psnr_db < bound {
            let where_ = common::write_failure_images(
                &format!("{name}-{}", s.mode_name()),
                &images[k],
                &images[0],
            );
            panic!(
                "{name}: {} differs from the reference: {d} (bound {bound} dB); {where_}",
                s
            );
        }
    }
}

fn asset(rel: &str) -> Option<std::path::PathBuf> {
    common::assets_dir().map(|d| d.join(rel))
}

/// The asset `rel` drawn in every mode ([`render_modes`], W×H), each checked against the
/// reference ([`assert_equivalent`], failure pictures named `name`); `None` (recorded) without
/// the assets folder.
fn looks_the_same_in_every_mode(rel: &str, name: &str) -> Option<Vec<RgbaImage>> {
    let scene = RenderScene::load(&asset(rel)?).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (images, _, _) = render_modes(context(), &scene, W, H);
    assert_equivalent(name, &images);
    Some(images)
}

#[test]
fn flight_helmet_looks_the_same_in_every_mode() {
    let path = "gltf/FlightHelmet/FlightHelmet.gltf";
    if let Some(images) = looks_the_same_in_every_mode(path, "flight-helmet") {
        assert!(
            background_fraction(&images[0]) < 0.95,
            "the helmet covers almost nothing"
        );
    }
}

#[test]
fn the_duck_looks_the_same_in_every_mode() {
    looks_the_same_in_every_mode("obj/duck.obj", "duck");
}

#[test]
fn every_gltf_asset_renders_in_every_mode() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let ctx = context();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("gltf"))
        .expect("gltf folder")
        .flatten()
        .map(|e| e.path())
        .flat_map(|p| {
            if p.is_dir() {
                std::fs::read_dir(&p)
                    .map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>())
                    .unwrap_or_default()
            } else {
                vec![p]
            }
        })
        .filter(|p| p.extension().is_some_and(|e| e == "gltf" || e == "glb"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 3,
        "expected the shared glTF assets, found {files:?}"
    );
    for path in files {
        let scene = RenderScene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let (images, _, _) = render_modes(ctx, &scene, 320, 180);
        for (img, s) in images.iter().zip(MODES) {
            let bg = background_fraction(img);
            eprintln!(
                "{}: {} covers {:.1}% of the image",
                path.display(),
                s,
                100.0 * (1.0 - bg)
            );
            assert!(
                bg < 0.99,
                "{}: {} drew (almost) nothing; {}",
                path.display(),
                s,
                common::write_failure_images(&format!("asset-{}", s.mode_name()), img, img)
            );
        }
    }
}

#[test]
fn default_scene_agrees_except_where_only_a_map_can_draw() {
    let ctx = context();
    let scene = qtangent::lab::content::default_scene().expect("the default scene builds");
    let renderer = Renderer::new(ctx).expect("renderer");
    let mut gpu = renderer
        .upload(ctx, &scene, &[Format::Snorm16x4], &plain_maps(), &mut ())
        .expect("upload");
    let (w, h) = (640, 360);
    let view = View::fitted(&scene, w as f32 / h as f32, 30.0, 20.0);
    let render = |gpu: &qtangent::gpu::GpuScene| -> Vec<RgbaImage> {
        MODES
            .iter()
            .map(|&s| {
                renderer
                    .render_image(ctx, gpu, &view, s, w, h)
                    .expect("render")
            })
            .collect()
    };
    let all = render(&gpu);
    let authored = gpu.report().authored_objects.clone();
    assert_eq!(authored.len(), 1, "one authored map");
    // Without the spun plate the modes must agree.
    gpu.set_hidden(&authored);
    let without = render(&gpu);
    assert_equivalent("default-scene-without-plate", &without);
    // With it, the map's circular tangent field must change the picture: the reference's
    // anisotropic highlight runs along the vertex tangent instead. A difference of 32 levels is
    // far beyond anything the equivalence above allows where the frames agree.
    let d = render::diff(&all[2], &all[0], None).expect("same size");
    assert!(
        d.max_error >= 32 && d.psnr_db < MIN_PSNR_DB,
        "the spun plate's map made no visible difference: {d}; {}",
        common::write_failure_images("default-scene-plate", &all[2], &all[0])
    );
    let q = render::diff(&all[1], &all[0], None).expect("same size");
    assert!(
        q.psnr_db >= MIN_PSNR_DB,
        "qtangent differs on the default scene: {q}"
    );
}

/// FlightHelmet with its maps as shipped: tangent-space BC5 (1 B/texel) against the reference
/// drawn with its normal maps stored as BC5 (`RenderScene::engine_textures`), both measured against the RGBA8
/// reference. The target: no more than 0.5 dB below.
#[test]
fn flight_helmet_bc5_tangent_maps_match_bc5_normal_maps() {
    let Some(path) = asset("gltf/FlightHelmet/FlightHelmet.gltf") else {
        return;
    };
    let ctx = context();
    let scene = RenderScene::load(&path).expect("FlightHelmet loads");
    let renderer = Renderer::new(ctx).expect("renderer");
    let view = View::fitted(&scene, W as f32 / H as f32, 30.0, 20.0);
    // The object-space maps (BC7, baked too though not drawn here) at the fastest effort: what is
    // measured is the tangent-space BC5 maps, which the effort does not touch.
    let options = MapOptions {
        format: Some(MapFormat::Bc5),
        bc7: qtangent::qmap::Bc7Quality::UltraFast,
        ..MapOptions::default()
    };
    let gpu = renderer
        .upload(ctx, &scene, &[Format::Snorm16x4], &options, &mut ())
        .expect("upload");
    let maps = &gpu.report().tangent_maps;
    assert!(
        maps.iter().all(|m| m.format == Some(MapFormat::Bc5)),
        "{maps:?}"
    );
    let render = |gpu: &qtangent::gpu::GpuScene, s| {
        renderer
            .render_image(ctx, gpu, &view, s, W, H)
            .expect("render")
    };
    let reference = render(&gpu, FrameSource::Reference);
    let tangent = render(&gpu, FrameSource::QuatMapTangent);
    // Every mip compressed, as an engine ships a BC5 normal map.
    let bc5_scene = scene.engine_textures();
    assert!(
        bc5_scene.warnings.len() == scene.warnings.len(),
        "FlightHelmet's normal maps are BC-sized: {:?}",
        &bc5_scene.warnings[scene.warnings.len()..]
    );
    let bc5_gpu = renderer
        .upload(ctx, &bc5_scene, &[Format::Snorm16x4], &options, &mut ())
        .expect("upload");
    let bc5_reference = render(&bc5_gpu, FrameSource::Reference);
    let d_map = render::diff(&tangent, &reference, None).expect("same size");
    let d_bc5 = render::diff(&bc5_reference, &reference, None).expect("same size");
    eprintln!("flight-helmet: tangent-space BC5 {d_map}; reference with BC5 normal maps {d_bc5}");
    if d_map.psnr_db < d_bc5.psnr_db - 0.5 {
        let where_ = common::write_failure_images("flight-helmet-bc5", &tangent, &reference);
        panic!(
            "tangent-space BC5 maps: {d_map}, more than 0.5 dB below BC5 normal maps ({d_bc5}); {where_}"
        );
    }
}
