//! `pack`: a GLB carrying qtangents (and quaternion maps) that qtangent reads back and draws as
//! it draws the source.
//!
//! - **Frames within the format's bound**: every vertex's frame decoded from the written
//!   `_QTANGENT` against the frame packed, for every format: at most [`Format::max_error_deg`]
//!   (the bound each encoder's docs derive and `tests/it/encodings.rs` checks on a million
//!   frames). FlightHelmet at 4 bytes: the target, ≤ 0.2°.
//! - **The picture equals the source's**: the packed file and its source drawn in the same mode
//!   must agree to ≥ 60 dB (the figure: an RMS difference of 0.26 levels of 255, i.e. a
//!   few single-level rounding flips at most). Each mode is one whose inputs pack keeps exactly:
//!   qtangent mode in the packed format (the renderer re-encodes the decoded frame: each
//!   quantising encoder picks the code closest to its input, which for a decoded value is its
//!   own code or, after the frame's normalisation, a neighbour — measured: identical pictures
//!   for smallest3x4 and f16x4, 87.6 dB for snorm16x4, one level on 0.03% of the pixels),
//!   quatmap-tangent with snorm16x4 (its vertex frame is snorm16x4: 89.2 dB), quatmap (the map
//!   is the renderer's own bake, stored once and read back as stored: identical).
//! - **Carried over**: nodes, skins and animations of the Fox and SimpleSkin read back equal.
//!
//! The textured test mesh is written by the test (a torus with the swirl normal map).

use std::path::{Path, PathBuf};

use image::RgbaImage;
use qtangent::gltf;
use qtangent::gpu::{Renderer, View};
use qtangent::measure::FrameErrors;
use qtangent::mesh::{self, Primitive};
use qtangent::pack::{self, MapKind, PackOptions};
use qtangent::qmap::MapOptions;
use qtangent::qmap::NormalMap;
use qtangent::qmap::SceneMaps;
use qtangent::render;
use qtangent::render::FrameSource;
use qtangent::render::RenderScene;
use qtangent::Format;
use serde_json::json;

use crate::common::{self, context};

/// The round-trip bound (see the module docs).
pub(super) const MIN_ROUND_TRIP_PSNR_DB: f64 = 60.0;
/// The target for 4-byte frames on FlightHelmet.
const FOUR_BYTE_TARGET_DEG: f64 = 0.2;

/// `pack` without quantisation: positions, UVs, weights and rotations written as f32, so the
/// tests that need them exact can ask for it.
fn float() -> PackOptions {
    PackOptions {
        position_bits: None,
        uv_bits: None,
        ..PackOptions::default()
    }
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("cannot make a temporary folder: {e}"))
}

fn png_data_uri(img: &RgbaImage) -> String {
    let mut bytes = Vec::new();
    img.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .unwrap_or_else(|e| panic!("PNG: {e}"));
    qtangent::lab::gltf_json::data_uri("image/png", &bytes)
}

/// A glTF of `prim` (POSITION, NORMAL, TEXCOORD_0, indices) with a material whose normal
/// texture is `normal` (embedded as a PNG data URI), placed by a node with a rotation; its
/// buffer a data URI too.
pub(super) fn write_textured_gltf(
    dir: &Path,
    name: &str,
    prim: &Primitive,
    normal: &RgbaImage,
) -> PathBuf {
    let normals = prim.normals.as_ref().expect("the test mesh has normals");
    let uvs = prim.uvs.as_ref().expect("the test mesh has UVs");
    let mut b = gltf::Builder::default();
    let vertex = Some(gltf::Target::ArrayBuffer);
    let positions: Vec<[f32; 3]> = prim.positions.iter().map(|v| v.to_array()).collect();
    let normals: Vec<[f32; 3]> = normals.iter().map(|v| v.to_array()).collect();
    let uvs: Vec<[f32; 2]> = uvs.iter().map(|v| v.to_array()).collect();
    let attributes = json!({
        "POSITION": b.positions(&positions),
        "NORMAL": b.floats(&normals, vertex),
        "TEXCOORD_0": b.floats(&uvs, vertex),
    });
    let indices = b.indices(&prim.indices);
    let mut doc = b.to_gltf(qtangent::lab::gltf_json::BufferUri::DataUri);
    doc["images"] = json!([{"uri": png_data_uri(normal)}]);
    doc["textures"] = json!([{"source": 0}]);
    doc["materials"] = json!([{
        "name": "swirl",
        "pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.6, 0.5, 1.0], "metallicFactor": 1.0, "roughnessFactor": 0.3},
        "normalTexture": {"index": 0}
    }]);
    doc["meshes"] = json!([{"name": "Torus", "primitives": [{
        "attributes": attributes,
        "indices": indices,
        "material": 0
    }]}]);
    doc["nodes"] = json!([{"mesh": 0, "rotation": [0.5, 0.0, 0.0, 0.8660254]}]);
    doc["scenes"] = json!([{"nodes": [0]}]);
    doc["scene"] = json!(0);
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, doc.to_string()).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// The test's textured source: a torus with the swirl normal map.
fn torus_source(dir: &Path) -> PathBuf {
    let torus = Primitive::torus(0.75, 0.3, 48, 24);
    write_textured_gltf(dir, "torus", &torus, &NormalMap::default_swirl().to_rgba8())
}

/// Packs `source` with maps made as the renderer makes them under `options`.
fn pack_file(
    source: &Path,
    out: &Path,
    format: Format,
    maps: MapKind,
    options: &MapOptions,
) -> pack::PackReport {
    let ctx = context();
    let scene = RenderScene::load(source).unwrap_or_else(|e| panic!("{e}"));
    let maps = pack_maps(ctx, &scene, maps, options);
    let prepared: Vec<_> = scene.meshes.iter().map(|m| m.mesh.clone()).collect();
    let loaded = scene
        .source
        .as_ref()
        .expect("a loaded scene keeps its file");
    let packed = pack::pack(loaded, &prepared, &maps, &PackOptions { format, ..float() })
        .unwrap_or_else(|e| panic!("pack: {e}"));
    std::fs::write(out, &packed.glb).unwrap_or_else(|e| panic!("{e}"));
    packed.report
}

/// The maps `pack` embeds, made as the renderer makes them under `options`.
fn pack_maps(
    ctx: &qtangent::gpu::GpuContext,
    scene: &RenderScene,
    kind: MapKind,
    options: &MapOptions,
) -> SceneMaps {
    use qtangent::qmap::MapKinds;
    let kinds = match kind {
        MapKind::None => return SceneMaps::default(),
        MapKind::Tangent => MapKinds::Tangent,
        MapKind::Object => MapKinds::Object,
    };
    let baker = qtangent::qmap::Baker::new(ctx.raster_backend(), options);
    SceneMaps::new(scene, &baker, kinds, &mut ()).unwrap_or_else(|e| panic!("maps: {e}"))
}

/// `scene` drawn in `mode` at 320 × 240 from the default view, maps stored as `options` says.
pub(super) fn draw(scene: &RenderScene, mode: FrameSource, options: &MapOptions) -> RgbaImage {
    let ctx = context();
    let renderer = Renderer::new(ctx).expect("renderer");
    let formats: Vec<Format> = match mode {
        FrameSource::QTangent(f) => vec![f],
        _ => vec![],
    };
    let gpu = renderer
        .upload(ctx, scene, &formats, options, &mut ())
        .unwrap_or_else(|e| panic!("{}: upload: {e}", scene.name));
    let view = View::fitted(scene, 320.0 / 240.0, 30.0, 20.0);
    renderer
        .render_image(ctx, &gpu, &view, mode, 320, 240)
        .unwrap_or_else(|e| panic!("{}: render: {e}", scene.name))
}

/// Packs `source` with `maps` and draws both with what that file's frames are (the qtangents in
/// `format`, or the maps); they must agree to the round-trip bound.
/// Every texture of the packed file at `path` has a core `source`, as loaders that validate
/// every texture require; a quaternion map's is a 1×1 PNG of the flat normal (read by the
/// `image` crate, not by qtangent), its map being the texture's `QTANGENT_frames.source`.
fn assert_textures_have_core_sources(name: &str, path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{e}"));
    let parts = gltf::glb::split(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value = serde_json::from_slice(parts.json).expect("JSON");
    let bin = parts.bin.expect("a binary chunk");
    for (t, texture) in json["textures"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let source = texture["source"]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}: texture {t} has no core source: {texture}"));
        if texture["extensions"][gltf::names::QTANGENT_FRAMES].is_null() {
            continue;
        }
        let image = &json["images"][source as usize];
        assert_eq!(
            image["mimeType"], "image/png",
            "{name}: texture {t}'s fallback"
        );
        let view = &json["bufferViews"][image["bufferView"].as_u64().expect("a view") as usize];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        let end = start + view["byteLength"].as_u64().expect("a length") as usize;
        let png = image::load_from_memory(&bin[start..end])
            .unwrap_or_else(|e| panic!("{name}: texture {t}'s fallback: {e}"))
            .to_rgba8();
        assert_eq!(png.dimensions(), (1, 1), "{name}: texture {t}'s fallback");
        assert_eq!(
            png.get_pixel(0, 0).0,
            [128, 128, 255, 255],
            "{name}: texture {t}"
        );
    }
}

fn assert_round_trip(source: &Path, format: Format, maps: MapKind) {
    let mode = match maps {
        MapKind::None => FrameSource::QTangent(format),
        MapKind::Tangent => FrameSource::QuatMapTangent,
        MapKind::Object => FrameSource::QuatMap,
    };
    let dir = tempdir();
    let out = dir.path().join("packed.glb");
    let options = MapOptions::default();
    let report = pack_file(source, &out, format, maps, &options);
    let name = format!(
        "pack-{}-{}-{}",
        source
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("source"),
        maps.name(),
        mode.to_string().replace(' ', "-")
    );
    if maps != MapKind::None {
        assert!(!report.maps.is_empty(), "{name}: no map was embedded");
    }
    let a = RenderScene::load(source).unwrap_or_else(|e| panic!("{e}"));
    let b = RenderScene::load(&out).unwrap_or_else(|e| panic!("{name}: reading back: {e}"));
    if maps != MapKind::None {
        let embedded = b.materials.iter().any(|m| m.packed_tangent_map.is_some())
            || b.meshes
                .iter()
                .any(|m| matches!(m.map, qtangent::render::MapSource::Packed { .. }));
        assert!(
            embedded,
            "{name}: the packed file's maps were not read back"
        );
    }
    assert_textures_have_core_sources(&name, &out);
    let expected = draw(&a, mode, &options);
    let actual = draw(&b, mode, &options);
    let d = render::diff(&actual, &expected, None).expect("same size");
    eprintln!("{name}: packed vs source: {d}");
    if d.psnr_db < MIN_ROUND_TRIP_PSNR_DB {
        let where_ = common::write_failure_images(&name, &actual, &expected);
        panic!("{name}: the packed file draws differently: {d} (bound {MIN_ROUND_TRIP_PSNR_DB} dB); {where_}");
    }
}

#[test]
fn packed_qtangents_draw_as_the_source() {
    let dir = tempdir();
    let source = torus_source(dir.path());
    for format in [Format::Snorm16x4, Format::Smallest3x4, Format::F16x4] {
        assert_round_trip(&source, format, MapKind::None);
    }
}

/// The torus packed with each kind of map (tangent space with snorm16x4 qtangents, object
/// space with smallest3x4) draws as the source.
#[test]
fn packed_tangent_and_object_maps_draw_as_the_source() {
    let dir = tempdir();
    let source = torus_source(dir.path());
    for (format, maps) in [
        (Format::Snorm16x4, MapKind::Tangent),
        (Format::Smallest3x4, MapKind::Object),
    ] {
        assert_round_trip(&source, format, maps);
    }
}

/// The bumpy swirl disc's tangent-space map (a tilt and a twist: two BC5 layers, a KTX2 array
/// texture) is embedded as `bc5x2`, read back as stored, and draws as the source.
#[test]
fn packed_two_layer_maps_read_back_and_draw_as_the_source() {
    use qtangent::lab::disc::{self, Relief, RgLayout, TextureFile};
    let dir = tempdir();
    let source = disc::write_gltf(
        dir.path(),
        128,
        RgLayout::Oriented,
        TextureFile::Png,
        Relief::Bumps,
    )
    .unwrap_or_else(|e| panic!("the bumpy disc: {e}"));
    let out = dir.path().join("packed.glb");
    let options = MapOptions::default();
    pack_file(&source, &out, Format::Snorm16x4, MapKind::Tangent, &options);
    let b = RenderScene::load(&out).unwrap_or_else(|e| panic!("reading back: {e}"));
    let stored = b.materials[0]
        .packed_tangent_map
        .as_ref()
        .expect("the packed map is read back");
    assert_eq!(stored.format, qtangent::qmap::MapFormat::Bc5Pair);
    assert_round_trip(&source, Format::Snorm16x4, MapKind::Tangent);
}

#[test]
fn the_duck_packed_with_object_maps_draws_as_the_source() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    // The duck's UVs overlap, so its map is baked in a repacked layout: TEXCOORD_1.
    assert_round_trip(
        &assets.join("obj/duck.obj"),
        Format::Snorm16x4,
        MapKind::Object,
    );
}

/// Every frame read back from a packed file against the frames packed.
fn read_back_errors(source: &Path, format: Format) -> FrameErrors {
    let dir = tempdir();
    let out = dir.path().join("packed.glb");
    let scene = mesh::load(source).unwrap_or_else(|e| panic!("{e}"));
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    let packed = pack::pack(
        &scene,
        &prepared,
        &SceneMaps::default(),
        &PackOptions {
            format,
            keep_normals: true,
            ..float()
        },
    )
    .unwrap_or_else(|e| panic!("pack: {e}"));
    assert_eq!(
        packed.report.frame_bytes_per_vertex,
        format.bytes().next_multiple_of(4),
        "{}: frame bytes",
        format.name()
    );
    std::fs::write(&out, &packed.glb).unwrap_or_else(|e| panic!("{e}"));
    let back = mesh::load(&out).unwrap_or_else(|e| panic!("{}: reading back: {e}", format.name()));
    assert!(
        back.primitives().all(|(_, p)| p.qtangents.is_some()),
        "{}: a primitive came back without _QTANGENT",
        format.name()
    );
    let back = back.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.len(), prepared.len(), "primitive count");
    let mut errors = FrameErrors::default();
    for (p, b) in packed.primitives.iter().zip(&back) {
        assert_eq!(p.frames.len(), b.frames.len(), "{}: vertex count", p.label);
        assert_eq!(p.indices, b.indices, "{}: indices", p.label);
        assert_eq!(
            p.positions, b.positions,
            "{}: positions (f32, exact)",
            p.label
        );
        for (f, g) in p.frames.iter().zip(&b.frames) {
            errors.add(f, g);
        }
    }
    errors
}

#[test]
fn every_format_reads_back_within_its_bound() {
    let dir = tempdir();
    let source = torus_source(dir.path());
    for format in Format::ALL {
        let e = read_back_errors(&source, format);
        eprintln!(
            "{}: read back max {:.4}° (bound {}°), handedness errors {}",
            format.name(),
            e.max(),
            format.max_error_deg(),
            e.handedness_errors
        );
        common::assert_within_format_bound("torus read back", format, &e);
    }
}

#[test]
fn flight_helmet_at_four_bytes_is_within_the_target() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    let e = read_back_errors(
        &assets.join("gltf/FlightHelmet/FlightHelmet.gltf"),
        Format::Smallest3x4,
    );
    eprintln!(
        "FlightHelmet smallest3x4: normal {:.4}°/{:.4}°, tangent {:.4}°/{:.4}°, bitangent {:.4}°/{:.4}° (mean/max)",
        e.normal.mean(),
        e.normal.max,
        e.tangent.mean(),
        e.tangent.max,
        e.bitangent.mean(),
        e.bitangent.max
    );
    assert!(
        e.max() <= FOUR_BYTE_TARGET_DEG,
        "4-byte frames {:.4}° off, beyond the target {FOUR_BYTE_TARGET_DEG}°",
        e.max()
    );
    assert_eq!(e.handedness_errors, 0, "handedness lost");
}

#[test]
fn skins_nodes_and_animations_are_carried_over() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    for rel in ["gltf/Fox.glb", "gltf/SimpleSkin.gltf"] {
        let source = assets.join(rel);
        let scene = mesh::load(&source).unwrap_or_else(|e| panic!("{e}"));
        let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
        // Frames stored on the Fox too (it has no NORMAL), so that the vertices read back are
        // the ones written, split as they were.
        let options = PackOptions {
            flat_frames: true,
            ..float()
        };
        let packed = pack::pack(&scene, &prepared, &SceneMaps::default(), &options)
            .unwrap_or_else(|e| panic!("{rel}: pack: {e}"));
        let back = mesh::load_bytes(Path::new("packed.glb"), &packed.glb, None)
            .unwrap_or_else(|e| panic!("{rel}: reading back: {e}"));
        assert_eq!(back.nodes, scene.nodes, "{rel}: nodes");
        assert_eq!(back.skins, scene.skins, "{rel}: skins");
        assert_eq!(back.animations, scene.animations, "{rel}: animations");
        let inst =
            |s: &mesh::Scene| -> Vec<_> { s.meshes.iter().map(|m| m.instances.clone()).collect() };
        assert_eq!(inst(&back), inst(&scene), "{rel}: instances");
        let back = back.prepare().unwrap_or_else(|e| panic!("{e}"));
        for (p, b) in packed.primitives.iter().zip(&back) {
            assert_eq!(p.joints, b.joints, "{rel}: joints");
            assert_eq!(p.weights, b.weights, "{rel}: weights (f32 written, exact)");
        }
    }
}

#[test]
fn the_pack_tool_reports_and_refuses_bad_input() {
    let dir = tempdir();
    let source = torus_source(dir.path());
    let out = dir.path().join("out.glb");
    let (src, dst) = (source.to_string_lossy(), out.to_string_lossy());
    let ok = common::run_command(&["pack", &src, "-o", &dst, "--frames", "smallest3x4", "-v"]);
    let text = common::stderr(&ok);
    assert!(ok.status.success(), "pack failed: {text}");
    assert!(text.contains(&format!("→ {dst}: ")), "report: {text}");
    assert!(text.contains("frames read back: normal"), "report: {text}");
    assert!(out.is_file(), "no output");
    let missing = dir.path().join("no-such-mesh.gltf");
    let y = dir.path().join("y.glb");
    let (missing, y) = (missing.to_string_lossy(), y.to_string_lossy());
    let cases: [(&[&str], &str); 6] = [
        (
            &["pack", &src, "-o", &y, "--frames", "f16"],
            "unknown format 'f16'",
        ),
        (&["pack", &src, "-o", &y, "--position-bits", "17"], "17"),
        (&["pack", &src, "-o", &y, "--compress", "zstd"], "zstd"),
        (
            &["pack", &src, "-o", &y, "--normal-maps", "drop"],
            "--normal-maps drop needs --maps tangent",
        ),
        (
            &["pack", &src, "-o", &y, "--maps", "both"],
            "unknown map kind 'both'",
        ),
        (&["pack", &missing, "-o", &y], "no-such-mesh.gltf"),
    ];
    for (args, says) in cases {
        let bad = common::run_command(args);
        let err = common::stderr(&bad);
        assert!(!bad.status.success(), "{args:?}: exited 0");
        assert!(
            err.contains(says),
            "{args:?}: stderr does not say '{says}': {err}"
        );
        assert!(!Path::new(&*y).exists(), "a failed run left y.glb");
    }
}

/// The packed torus (no maps) in `format`: its prepared source and the GLB.
fn packed_torus(format: Format) -> (Vec<mesh::Prepared>, Vec<u8>) {
    let dir = tempdir();
    let scene = mesh::load(torus_source(dir.path())).unwrap_or_else(|e| panic!("{e}"));
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    let options = PackOptions {
        format,
        keep_normals: true,
        ..float()
    };
    let packed = pack::pack(&scene, &prepared, &SceneMaps::default(), &options)
        .unwrap_or_else(|e| panic!("pack: {e}"));
    (packed.primitives, packed.glb)
}

/// `glb` with its JSON changed by `edit` (the binary chunk kept), as a tool would write it back.
fn rewritten(glb: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let parts = gltf::glb::split(glb).unwrap_or_else(|e| panic!("{e}"));
    let mut json: serde_json::Value =
        serde_json::from_slice(parts.json).unwrap_or_else(|e| panic!("{e}"));
    edit(&mut json);
    let text = serde_json::to_vec(&json).unwrap_or_else(|e| panic!("{e}"));
    gltf::glb::write(&text, parts.bin.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"))
}

/// What glTF-Transform does to an extension it does not know when it writes a file back: the
/// primitives' `QTANGENT_frames` and its entries in `extensionsUsed` / `extensionsRequired` go.
fn drop_qtangent_frames(json: &mut serde_json::Value) {
    for mesh in json["meshes"].as_array_mut().into_iter().flatten() {
        for prim in mesh["primitives"].as_array_mut().into_iter().flatten() {
            if let Some(ext) = prim.get_mut("extensions").and_then(|e| e.as_object_mut()) {
                ext.remove(gltf::names::QTANGENT_FRAMES);
            }
        }
    }
    for list in ["extensionsUsed", "extensionsRequired"] {
        if let Some(names) = json.get_mut(list).and_then(|l| l.as_array_mut()) {
            names.retain(|n| n != gltf::names::QTANGENT_FRAMES);
        }
    }
}

/// The `_QTANGENT` accessor of the first primitive.
fn qtangent_accessor(json: &mut serde_json::Value) -> &mut serde_json::Value {
    let index = json["meshes"][0]["primitives"][0]["attributes"][gltf::names::QTANGENT_ATTRIBUTE]
        .as_u64()
        .expect("a _QTANGENT attribute") as usize;
    &mut json["accessors"][index]
}

/// A packed file whose `QTANGENT_frames` a tool dropped still reads back, in every format,
/// within the format's bound: no two formats share an accessor layout, so the layout names
/// the format (docs/GLTF.md, "Decoding `_QTANGENT`").
#[test]
fn frames_survive_a_tool_that_drops_the_extension() {
    for format in Format::ALL {
        let (prepared, glb) = packed_torus(format);
        let glb = rewritten(&glb, drop_qtangent_frames);
        assert!(
            !String::from_utf8_lossy(&glb).contains(gltf::names::QTANGENT_FRAMES),
            "{}: the extension is still there",
            format.name()
        );
        let back = mesh::load_bytes(Path::new("rewritten.glb"), &glb, None)
            .unwrap_or_else(|e| panic!("{}: {e}", format.name()));
        let back = back.prepare().unwrap_or_else(|e| panic!("{e}"));
        let errors = common::frame_errors(&prepared, &back);
        common::assert_within_format_bound("torus, extension dropped", format, &errors);
    }
}

/// A `_QTANGENT` accessor a tool changed is refused with one line that names the accessor, what
/// it is, what the format needs and the likely cause — with the extension (the declared format
/// no longer matches) and without it (no format has the layout).
#[test]
fn a_changed_qtangent_accessor_is_refused_with_its_likely_cause() {
    let (_, glb) = packed_torus(Format::Snorm16x4);
    // A tool that dequantised the normalised shorts into floats, extension kept.
    let kept = rewritten(&glb, |json| {
        let acc = qtangent_accessor(json);
        acc["normalized"] = serde_json::Value::Bool(false);
    });
    // …and one that also dropped the extension, leaving a layout no format has.
    let dropped = rewritten(&glb, |json| {
        drop_qtangent_frames(json);
        let acc = qtangent_accessor(json);
        acc["type"] = serde_json::Value::from("VEC2");
        acc["normalized"] = serde_json::Value::Bool(true);
    });
    for (what, glb, says) in [
        (
            "extension kept",
            kept,
            "but snorm16x4 is stored as VEC4 SHORT normalized",
        ),
        (
            "extension dropped",
            dropped,
            "which is no qtangent format's layout",
        ),
    ] {
        let e = mesh::load_bytes(Path::new("changed.glb"), &glb, None)
            .map(|_| ())
            .expect_err(what)
            .to_string();
        assert!(
            e.contains("changed.glb")
                && e.contains("_QTANGENT: accessor")
                && e.contains(says)
                && e.contains("run gltfpack or glTF-Transform before pack"),
            "{what}: {e}"
        );
        assert!(!e.contains('\n'), "{what}: more than one line: {e}");
    }
}
