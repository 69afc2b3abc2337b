//! `pack`'s default output, quantised as gltfpack quantises (KHR_mesh_quantization: 14-bit
//! positions on one grid, 12-bit UVs on a grid per material), and with `--compress meshopt`
//! (EXT_meshopt_compression):
//!
//! - **Bounds**: every position within half a grid step (`√3/2` of a step, the grid's step the
//!   longest side of the box of the file's positions over `2¹⁴ − 1`) of the source's, every UV
//!   within half a step on each axis (the material's UV box's side over `2¹² − 1`), each in
//!   world space through the node the file adds; weights within one step of 1/255; the frames
//!   within their format's bound.
//! - **Lossless compression**: every accessor of the compressed file decodes to the bytes of the
//!   same file written uncompressed, and draws the identical picture.
//! - **Judges**: the Khronos validator finds no error in either.

use std::path::Path;

use glam::Vec3;
use qtangent::gltf;
use qtangent::gpu::{Renderer, View};
use qtangent::mesh::{self, Scene};
use qtangent::pack::{self, PackOptions, Packed};
use qtangent::qmap::{MapKinds, SceneMaps};
use qtangent::qmap::{MapOptions, NormalMap};
use qtangent::render::{self, FrameSource, RenderScene};
use qtangent::Format;

use crate::common::{self, context};

/// f32 rounding of the dequantisation (`q · step + offset`, then the node's and the loader's
/// matrices: a handful of roundings, each within ε/2 of the largest coordinate `M`): 8ε·M, as
/// the frame comparison allows (`Tolerance::for_quantisation`).
fn rounding(largest: f32) -> f32 {
    8.0 * f32::EPSILON * largest
}

/// The test's source, written into `dir`: a torus with the swirl normal map.
fn torus_source(dir: &Path) -> std::path::PathBuf {
    let torus = mesh::Primitive::torus(0.75, 0.3, 48, 24);
    let normal = NormalMap::default_swirl().to_rgba8();
    super::pack::write_textured_gltf(dir, "torus", &torus, &normal)
}

/// `scene` packed in `format` with the defaults, compressed or not.
fn packed(scene: &Scene, format: Format, meshopt: bool) -> Packed {
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    let options = PackOptions {
        format,
        meshopt,
        ..PackOptions::default()
    };
    pack::pack(scene, &prepared, &SceneMaps::default(), &options)
        .unwrap_or_else(|e| panic!("pack: {e}"))
}

fn json_of(glb: &[u8]) -> serde_json::Value {
    let parts = gltf::glb::split(glb).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_slice(parts.json).unwrap_or_else(|e| panic!("{e}"))
}

/// Every accessor of `glb`, decoded by the one reader (meshopt views included).
fn accessor_bytes(glb: &[u8]) -> Vec<Vec<u8>> {
    let parts = gltf::glb::split(glb).unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value =
        serde_json::from_slice(parts.json).unwrap_or_else(|e| panic!("{e}"));
    let buffers =
        crate::gltf::read::read_buffers(&json, parts.bin, None).unwrap_or_else(|e| panic!("{e}"));
    let r = crate::gltf::read::Reader::new(&json, &buffers);
    let count = json["accessors"].as_array().map_or(0, Vec::len);
    (0..count)
        .map(|a| {
            let acc = r
                .accessor(a)
                .unwrap_or_else(|e| panic!("accessor {a}: {e}"));
            r.bytes(&acc)
                .unwrap_or_else(|e| panic!("accessor {a}: {e}"))
        })
        .collect()
}

/// Where each vertex of each primitive of `scene` lands through its first instance, and its
/// UV; `prepared` gives the values (the source's, or the file's own read back).
fn placed(scene: &Scene, prepared: &[mesh::Prepared]) -> Vec<(Vec3, glam::Vec2)> {
    let mut out = Vec::new();
    for ((m, _), p) in scene.primitives().zip(prepared) {
        let world = m
            .instances
            .first()
            .map_or(glam::Mat4::IDENTITY, |i| i.world);
        for (x, uv) in p.positions.iter().zip(&p.uvs) {
            out.push((world.transform_point3(*x), *uv));
        }
    }
    out
}

/// The torus with the swirl normal map, packed quantised and compressed: within its bounds,
/// the compression lossless, both files valid.
#[test]
fn the_quantised_torus_is_within_its_bounds_and_compresses_losslessly() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let source = torus_source(dir.path());
    let scene = mesh::load(&source).unwrap_or_else(|e| panic!("{e}"));
    let format = Format::Smallest3x4;
    let plain = packed(&scene, format, false);
    let squeezed = packed(&scene, format, true);
    assert!(
        squeezed.glb.len() < plain.glb.len(),
        "meshopt: {} bytes against {} uncompressed",
        squeezed.glb.len(),
        plain.glb.len()
    );
    let json = json_of(&plain.glb);
    let prim = &json["meshes"][0]["primitives"][0]["attributes"];
    let acc = |name: &str| &json["accessors"][prim[name].as_u64().expect(name) as usize];
    assert_eq!(acc("POSITION")["componentType"], 5123, "positions: u16");
    assert_eq!(acc("TEXCOORD_0")["componentType"], 5123, "UVs: u16");
    assert_eq!(acc("TEXCOORD_0")["normalized"], true, "UVs: normalised");
    assert!(json["extensionsRequired"]
        .as_array()
        .is_some_and(|l| l.iter().any(|e| e == "KHR_mesh_quantization")));
    // The torus's UVs lie in [0, 1]: stored as the UVs themselves, with no transform that a
    // loader applying transforms to base colour alone (Bevy's) would miss.
    assert!(json["materials"][0]["normalTexture"]["extensions"]["KHR_texture_transform"].is_null());
    // Compressed: the same accessors, byte for byte; a fallback buffer the file does not carry.
    let cjson = json_of(&squeezed.glb);
    assert_eq!(
        cjson["buffers"][1]["extensions"]["EXT_meshopt_compression"]["fallback"],
        true
    );
    assert!(cjson["buffers"][1].get("uri").is_none());
    for (name, a) in prim.as_object().into_iter().flatten() {
        let view = cjson["accessors"][a.as_u64().unwrap_or(0) as usize]["bufferView"]
            .as_u64()
            .unwrap_or(0) as usize;
        assert!(
            !cjson["bufferViews"][view]["extensions"]["EXT_meshopt_compression"].is_null(),
            "{name} is not compressed"
        );
    }
    assert_eq!(accessor_bytes(&squeezed.glb), accessor_bytes(&plain.glb));
    // The bounds, in world space through the file's nodes.
    let written = &plain.primitives;
    let back = mesh::load_bytes(Path::new("quantised.glb"), &plain.glb, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let back_prepared = back.prepare().unwrap_or_else(|e| panic!("{e}"));
    let want = placed(&scene, written);
    let got = placed(&back, &back_prepared);
    assert_eq!(want.len(), got.len(), "vertices");
    let (lo, hi) = written[0].positions.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let step = (hi - lo).max_element() / 16383.0;
    let largest = lo.abs().max(hi.abs()).max_element();
    // The node's rotation keeps lengths: half a step on each axis, √3/2 of a step in all.
    let position_bound = 3f32.sqrt() / 2.0 * step + rounding(largest);
    let (ulo, uhi) = written[0].uvs.iter().fold(
        (
            glam::Vec2::splat(f32::INFINITY),
            glam::Vec2::splat(f32::NEG_INFINITY),
        ),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let uv_bound = (uhi - ulo) / 4095.0 / 2.0 + rounding(ulo.abs().max(uhi.abs()).max_element());
    for (i, ((p, uv), (q, vu))) in want.iter().zip(&got).enumerate() {
        assert!(
            p.distance(*q) <= position_bound,
            "vertex {i}: {p} → {q}, bound {position_bound}"
        );
        let d = (*uv - *vu).abs();
        assert!(
            d.x <= uv_bound.x && d.y <= uv_bound.y,
            "vertex {i}: UV {uv} → {vu}, bound {uv_bound}"
        );
    }
    assert!(plain.report.position_error <= position_bound);
    let errors = common::frame_errors(written, &back_prepared);
    common::assert_within_format_bound("quantised torus", format, &errors);
    // The judges.
    for (what, glb) in [("quantised", &plain.glb), ("meshopt", &squeezed.glb)] {
        let path = dir.path().join(format!("{what}.glb"));
        std::fs::write(&path, glb).expect("writes");
        if let Some(report) = common::judges::validate_gltf(&path) {
            report.assert_no_errors();
        }
    }
}

/// `scene` drawn with its qtangents in `format` at 320 × 240 from the default view.
fn draw(scene: &RenderScene, format: Format) -> image::RgbaImage {
    let ctx = context();
    let renderer = Renderer::new(ctx).expect("renderer");
    let options = MapOptions::default();
    let gpu = renderer
        .upload(ctx, scene, &[format], &options, &mut ())
        .unwrap_or_else(|e| panic!("{}: upload: {e}", scene.name));
    let view = View::fitted(scene, 320.0 / 240.0, 30.0, 20.0);
    renderer
        .render_image(ctx, &gpu, &view, FrameSource::QTangent(format), 320, 240)
        .unwrap_or_else(|e| panic!("{}: render: {e}", scene.name))
}

/// Pixels whose 3 × 3 neighbourhood in `img` spans at most `levels` in every channel: away
/// from silhouettes and steep shading, where a sub-pixel shift changes a pixel by at most
/// `levels` times the shift.
pub(super) fn smooth(img: &image::RgbaImage, levels: u8) -> Vec<bool> {
    let (w, h) = img.dimensions();
    let mut mask = vec![false; (w * h) as usize];
    for y in 1..h.saturating_sub(1) {
        for x in 1..w.saturating_sub(1) {
            let c = img.get_pixel(x, y).0;
            let calm = (0..9).all(|k| {
                let n = img.get_pixel(x + k % 3 - 1, y + k / 3 - 1).0;
                (0..3).all(|ch| n[ch].abs_diff(c[ch]) <= levels)
            });
            mask[(y * w + x) as usize] = calm;
        }
    }
    mask
}

/// The packed torus, quantised and compressed, draws as its source: identically to the same
/// file uncompressed (the compression is lossless), and as the source to the round-trip bound of
/// `pack.rs` (60 dB) over the pixels away from silhouettes and steep shading (3 × 3
/// neighbourhoods spanning at most 16 levels), where a silhouette's sub-pixel move cannot flip
/// a pixel between surface and background.
///
/// Not a bound on single pixels: positions move at most 6.4·10⁻⁵ (half a step of 2.1 / 16383)
/// and UVs 1.2·10⁻⁴ (half a step of 1/4095), under 0.06 pixel at the fitted view's ~100 pixels a
/// unit, yet the renderer turns even a 16-bit grid's 0.004-pixel moves into flips of up to 4
/// levels on 0.3–0.7% of these pixels (measured: 72 dB for 16-bit positions, 75 dB for 16-bit
/// UVs; 14 and 12 bits: 67 and 64 dB) — the shading, not the shift, sets the size of a flip.
#[test]
fn the_quantised_compressed_torus_draws_as_its_source() {
    const CALM_LEVELS: u8 = 16;
    const MIN_PSNR_DB: f64 = super::pack::MIN_ROUND_TRIP_PSNR_DB;
    let dir = tempfile::tempdir().expect("temporary folder");
    let source = torus_source(dir.path());
    let scene = mesh::load(&source).unwrap_or_else(|e| panic!("{e}"));
    let format = Format::Snorm16x4;
    let mut pictures = Vec::new();
    for meshopt in [false, true] {
        let path = dir.path().join(format!("torus-{meshopt}.glb"));
        std::fs::write(&path, packed(&scene, format, meshopt).glb).expect("writes");
        let loaded = RenderScene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        pictures.push(draw(&loaded, format));
    }
    let original = draw(
        &RenderScene::load(&source).unwrap_or_else(|e| panic!("{e}")),
        format,
    );
    let same = render::diff(&pictures[1], &pictures[0], None).expect("same size");
    assert_eq!(same.differing, 0, "meshopt against uncompressed: {same}");
    let mask = smooth(&original, CALM_LEVELS);
    let compared = mask.iter().filter(|&&m| m).count();
    let d = render::diff(&pictures[1], &original, Some(&mask)).expect("same size");
    eprintln!("quantised + meshopt against the source, {compared} calm pixels: {d}");
    // The background is calm too; make sure the torus is a good part of what is compared.
    assert!(compared > 320 * 240 / 2, "only {compared} pixels compared");
    if d.psnr_db < MIN_PSNR_DB {
        let where_ = common::write_failure_images("pack-quantised", &pictures[1], &original);
        panic!("the quantised torus draws differently: {d} (bound {MIN_PSNR_DB} dB); {where_}");
    }
}

/// `--normal-maps drop` with tangent-space maps: the source's normal map leaves the file (its
/// texture and its image, nothing else names them), the file is smaller by at least the
/// image, validates, and draws in quatmap-tangent mode exactly as the file that keeps it.
#[test]
fn dropped_normal_maps_leave_the_file_and_the_picture_unchanged() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let source = torus_source(dir.path());
    let ctx = context();
    let scene = RenderScene::load(&source).unwrap_or_else(|e| panic!("{e}"));
    let map_options = MapOptions::default();
    let baker = qtangent::qmap::Baker::new(ctx.raster_backend(), &map_options);
    let maps = SceneMaps::new(&scene, &baker, MapKinds::Tangent, &mut ())
        .unwrap_or_else(|e| panic!("maps: {e}"));
    let prepared: Vec<_> = scene.meshes.iter().map(|m| m.mesh.clone()).collect();
    let loaded = scene
        .source
        .as_ref()
        .expect("a loaded scene keeps its file");
    let mut files = Vec::new();
    for drop_normal_maps in [false, true] {
        let options = PackOptions {
            drop_normal_maps,
            ..PackOptions::default()
        };
        let out = pack::pack(loaded, &prepared, &maps, &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            out.report.normal_maps_dropped,
            usize::from(drop_normal_maps)
        );
        let path = dir
            .path()
            .join(format!("torus-drop-{drop_normal_maps}.glb"));
        std::fs::write(&path, &out.glb).expect("writes");
        if let Some(report) = common::judges::validate_gltf(&path) {
            report.assert_no_errors();
        }
        let json = json_of(&out.glb);
        let material = &json["materials"][0];
        assert_eq!(material.get("normalTexture").is_some(), !drop_normal_maps);
        assert!(!material["extensions"]["QTANGENT_frames"]["tangentMap"].is_null());
        files.push((path, out.glb.len()));
    }
    let png = {
        let mut bytes = Vec::new();
        NormalMap::default_swirl()
            .to_rgba8()
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .expect("PNG");
        bytes.len()
    };
    assert!(
        files[1].1 + png <= files[0].1 + 8,
        "dropped: {} bytes, kept: {} bytes, the PNG {png} bytes",
        files[1].1,
        files[0].1
    );
    let pictures: Vec<_> = files
        .iter()
        .map(|(path, _)| {
            let s = RenderScene::load(path).unwrap_or_else(|e| panic!("{e}"));
            let ctx = context();
            let renderer = Renderer::new(ctx).expect("renderer");
            let gpu = renderer
                .upload(ctx, &s, &[], &map_options, &mut ())
                .unwrap_or_else(|e| panic!("upload: {e}"));
            let view = View::fitted(&s, 320.0 / 240.0, 30.0, 20.0);
            renderer
                .render_image(ctx, &gpu, &view, FrameSource::QuatMapTangent, 320, 240)
                .unwrap_or_else(|e| panic!("render: {e}"))
        })
        .collect();
    let d = render::diff(&pictures[1], &pictures[0], None).expect("same size");
    if d.differing != 0 {
        let where_ =
            common::write_failure_images("pack-drop-normal-maps", &pictures[1], &pictures[0]);
        panic!("dropping the normal map changed the picture: {d}; {where_}");
    }
}

/// A flat mesh (the anisotropic disc lies in y = 0): its flat side has no say in the one grid
/// step, which is the longest side's. The step used to be 1 for a side of zero length, so the
/// disc (2 units wide) was quantised to whole units: 0.71 off.
#[test]
fn a_flat_mesh_keeps_its_grid() {
    use qtangent::lab::disc::{write_gltf, Relief, RgLayout, TextureFile};
    let dir = tempfile::tempdir().expect("temporary folder");
    let source = write_gltf(
        dir.path(),
        16,
        RgLayout::Oriented,
        TextureFile::Png,
        Relief::Flat,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let scene = mesh::load(&source).unwrap_or_else(|e| panic!("{e}"));
    let plain = packed(&scene, Format::Smallest3x4, false);
    // The disc spans 2 units: 14 bits give a step of 2 / 16383; a position moves at most half
    // a step on each of the two axes the disc spans (y is exact), plus f32 rounding.
    let bound = 2.0 / 16383.0 / 2.0 * 2f32.sqrt() + rounding(1.0);
    // Read back through the loader and the file's nodes, vertex by vertex, against what was
    // packed (not the packer's own report alone).
    let back =
        mesh::load_bytes(Path::new("flat.glb"), &plain.glb, None).unwrap_or_else(|e| panic!("{e}"));
    let back_prepared = back.prepare().unwrap_or_else(|e| panic!("{e}"));
    let (want, got) = (
        placed(&scene, &plain.primitives),
        placed(&back, &back_prepared),
    );
    assert_eq!(want.len(), got.len(), "vertices");
    for (i, ((p, _), (q, _))) in want.iter().zip(&got).enumerate() {
        assert!(
            p.distance(*q) <= bound,
            "vertex {i}: {p} → {q}, bound {bound}"
        );
    }
    assert!(
        plain.report.position_error <= bound,
        "the report: {}",
        plain.report.position_error
    );
}
