//! `qmap::io`: EXR round trips over every level and format, previews and handedness images.

use glam::{Vec3, Vec4};
use qtangent::mesh::Primitive;
use qtangent::qmap::io::*;
use qtangent::qmap::{bake_cpu, BakeMesh, BakeSettings, MapFormat, MapLevel, NormalMap, QuatMap};

fn torus_map(format: MapFormat, width: u32, height: u32) -> QuatMap {
    let prepared = Primitive::torus(1.0, 0.4, 24, 12)
        .prepare()
        .expect("the procedural torus prepares");
    let mesh = BakeMesh::from_prepared("torus", &[&prepared]);
    let settings = BakeSettings {
        width,
        height,
        padding: 2,
        format,
    };
    let normal_map = NormalMap::default_swirl();
    bake_cpu(&mesh, Some(&normal_map), &settings, &mut ()).expect("the torus bakes")
}

/// Every level of every format comes back bit for bit (the f32 comparison is exact, and the
/// map has background texels, mirrored signs and non-square levels down to 1 × 1).
#[test]
fn exr_round_trips_exactly() {
    let dir = tempfile::tempdir().expect("temp dir");
    for format in MapFormat::UNCOMPRESSED {
        let map = torus_map(format, 40, 24);
        assert!(map.levels.len() > 3);
        let path = dir.path().join(format!("{format}.exr"));
        write_exr(&map, &path).expect("write");
        let back = read_exr(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.format, format);
        assert_eq!(back.levels.len(), map.levels.len(), "{format}");
        for (k, (a, b)) in map.levels.iter().zip(&back.levels).enumerate() {
            assert_eq!(
                (a.width, a.height),
                (b.width, b.height),
                "{format} level {k}"
            );
            assert_eq!(a.handedness, b.handedness, "{format} level {k}");
            for (i, (p, q)) in a.quats.iter().zip(&b.quats).enumerate() {
                assert_eq!(
                    p.to_array().map(f32::to_bits),
                    q.to_array().map(f32::to_bits),
                    "{format} level {k} texel {i}"
                );
            }
        }
        // Nothing but the map is left in the folder.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().starts_with('.'))
            .collect();
        assert!(names.is_empty(), "temporary files left: {names:?}");
    }
}

#[test]
fn write_failure_names_the_file_and_leaves_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let map = torus_map(MapFormat::Rgba16Float, 8, 8);
    let path = dir.path().join("missing-folder").join("m.exr");
    let e = write_exr(&map, &path).expect_err("no such folder");
    assert!(e.to_string().contains("m.exr"), "{e}");
    let e = write_preview(
        &map.levels[0],
        PreviewAxis::Normal,
        &path.with_extension("png"),
    )
    .expect_err("no such folder");
    assert!(e.to_string().contains("m.png"), "{e}");
    let e = read_exr(&dir.path().join("nothing.exr")).expect_err("no file");
    assert!(e.to_string().contains("nothing.exr"), "{e}");
}

#[test]
fn previews_decode_the_frame() {
    let q = glam::Quat::from_rotation_arc(Vec3::Z, Vec3::X);
    let level = MapLevel {
        width: 3,
        height: 1,
        quats: vec![Vec4::from(q), -Vec4::from(q), Vec4::ZERO],
        handedness: vec![1, -1, 0],
    };
    // Components within one step: 0 maps to 127.5, which rounds either way.
    let near = |got: [u8; 4], want: [u8; 4]| {
        assert!(
            got.iter().zip(want).all(|(&g, w)| g.abs_diff(w) <= 1),
            "{got:?} vs {want:?}"
        );
    };
    let img = preview_rgba8(&level, PreviewAxis::Normal);
    // n = +X whatever the sign of q.
    near(img.get_pixel(0, 0).0, [255, 128, 128, 255]);
    near(img.get_pixel(1, 0).0, [255, 128, 128, 255]);
    assert_eq!(img.get_pixel(2, 0).0, [0, 0, 0, 0]);
    // The arc from Z to X turns X to −Z.
    let img = preview_rgba8(&level, PreviewAxis::Tangent);
    near(img.get_pixel(0, 0).0, [128, 128, 0, 255]);
    let gray = handedness_gray8(&level);
    assert_eq!(gray.as_raw(), &vec![255, 0, 128]);
    for axis in [PreviewAxis::Normal, PreviewAxis::Tangent] {
        let m = glam::Mat3::from_quat(q);
        let want = if axis == PreviewAxis::Normal {
            m.z_axis
        } else {
            m.x_axis
        };
        let got = decode_axis(Vec4::from(q) * 3.0, axis).expect("not zero");
        assert!((got - want).length() < 1e-6, "{axis:?}: {got} vs {want}");
    }
}
