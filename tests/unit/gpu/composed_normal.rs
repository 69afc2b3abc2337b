//! The composed normal in qtangent's own renderer at `render`'s camera (512², yaw 30°, pitch 20°,
//! 40°: the one camera the readers' tests draw, issue 41): the shading normal of every pixel
//! ([`Output::Frame`]) with the tangent-space BC5 maps, and with the reference's normal maps
//! stored as BC5 (`RenderScene::engine_textures`), against the reference's (RGBA8 normal maps),
//! on FlightHelmet and the lab's ribbed scene. The figures beside the readers' (docs/MAPS.md,
//! "One camera"), lights aside.

use crate::common::{self, context};
use crate::draw::Readback;
use qtangent::gpu::{Renderer, View, DEBUG_POISON};
use qtangent::qmap::{Bc7Quality, MapFormat, MapOptions};
use qtangent::render::{FrameSource, RenderScene};

/// Mean and 95th percentile (degrees) of the angle between the normals of `a` and `b`, over the
/// pixels both cover (neither poisoned), and how many.
fn angles(a: &[[f32; 4]], b: &[[f32; 4]]) -> (f64, f64, usize) {
    let mut d: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(p, q)| p[0] != DEBUG_POISON && q[0] != DEBUG_POISON)
        .map(|(p, q)| {
            let (u, v) = (
                glam::DVec3::new(p[0].into(), p[1].into(), p[2].into()),
                glam::DVec3::new(q[0].into(), q[1].into(), q[2].into()),
            );
            // atan2 of |u × v| and u · v: exact near 0, where acos is not.
            u.cross(v).length().atan2(u.dot(v)).to_degrees()
        })
        .collect();
    d.sort_by(f64::total_cmp);
    let mean = d.iter().sum::<f64>() / d.len().max(1) as f64;
    (
        mean,
        d.get(d.len() * 95 / 100).copied().unwrap_or(f64::NAN),
        d.len(),
    )
}

#[test]
fn the_composed_normal_at_renders_camera() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary folder");
    qtangent::lab::content::corpus(dir.path(), &[]).expect("the lab corpus");
    let ctx = context();
    let renderer = Renderer::new(ctx).expect("renderer");
    // `render`'s default map: tangent-space BC5 (object-space maps at the fastest effort, not
    // drawn here).
    let options = MapOptions {
        format: Some(MapFormat::Bc5),
        bc7: Bc7Quality::UltraFast,
        ..MapOptions::default()
    };
    for (name, path) in [
        (
            "FlightHelmet",
            assets.join("gltf/FlightHelmet/FlightHelmet.gltf"),
        ),
        ("ribbed scene", dir.path().join("ribbed.gltf")),
    ] {
        let scene = RenderScene::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let view = View::fitted(&scene, 1.0, 30.0, 20.0);
        let read = Readback::new(ctx, &renderer, view, (512, 512));
        let gpu = crate::draw::upload(&renderer, ctx, &scene, &options);
        let [source, _] = read.frame(&gpu, FrameSource::Reference);
        let [map, _] = read.frame(&gpu, FrameSource::QuatMapTangent);
        let engine = crate::draw::upload(&renderer, ctx, &scene.engine_textures(), &options);
        let [bc5, _] = read.frame(&engine, FrameSource::Reference);
        let covered = source.iter().filter(|p| p[0] != DEBUG_POISON).count();
        for (what, n) in [("map", &map), ("BC5 normal maps", &bc5)] {
            let (mean, p95, pixels) = angles(&source, n);
            println!(
                "one camera, {name}, qtangent's renderer's normals, {what}: {mean:.2}° mean, {p95:.2}° p95 from the reference's ({pixels} pixels)"
            );
            // The same geometry and camera: every pixel the reference covers, the others cover.
            assert_eq!(pixels, covered, "{name}, {what}: coverage differs");
            // render's camera frames the scene: a real part of the picture.
            assert!(covered > 512 * 512 / 20, "{name}: {covered} pixels covered");
            // Per texel the BC5 map and BC5 normal maps are within a degree or so of their
            // sources (the `maps` table: 0.36° / 0.39° mean on FlightHelmet, 0.29° / 0.27° on the
            // ribbed scene); a broken frame turns normals by the bumps' own tilt, tens of
            // degrees. 2° mean sits between the two.
            assert!(
                mean < 2.0,
                "{name}, {what}: {mean:.2}° mean from the reference's normals"
            );
        }
    }
}
