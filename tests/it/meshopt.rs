//! Compressed files from the tools people run load, and hold what the same file uncompressed
//! holds: gltfpack writes each asset plain (quantised, uncompressed), with `-c` (the lossless
//! codecs only) and with `-cc` (the filters too); glTF-Transform writes Draco
//! (KHR_draco_mesh_compression), decoded here by `draco-core` and checked against Google's own
//! decoder, and meshopt. Packed files survive `gltf-transform copy`; gltfpack drops their
//! frames, which is why it goes first.

use std::ffi::OsStr;
use std::path::Path;

use crate::common;
use qtangent::mesh::{self, Scene};

/// The shared assets and a temporary folder; `None` (recorded) without the assets.
fn assets_and_folder() -> Option<(std::path::PathBuf, tempfile::TempDir)> {
    let assets = common::assets_dir()?;
    Some((assets, tempfile::tempdir().expect("temporary folder")))
}

/// `src` through gltfpack with `flags` into `dir/name`, loaded.
fn packed(src: &Path, dir: &Path, name: &str, flags: &[&str]) -> Option<Scene> {
    let out = dir.join(name);
    let mut args: Vec<&OsStr> = vec![OsStr::new("-i"), src.as_os_str(), OsStr::new("-o")];
    args.push(out.as_os_str());
    args.extend(flags.iter().map(OsStr::new));
    common::judges::gltfpack(&args)?;
    Some(mesh::load(&out).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// The triangles of `indices`, each turned to start at its smallest index: the meshopt index
/// codec keeps every triangle and its winding but may start it at another corner.
fn triangles(indices: &[u32]) -> Vec<[u32; 3]> {
    indices
        .chunks_exact(3)
        .map(|t| {
            let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
            [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
        })
        .collect()
}

/// Every primitive of `a` equals `b`'s, field by field (positions, UVs, indices, skin
/// attributes, as loaded), and so do the skins and the animations.
fn assert_same(what: &str, a: &Scene, b: &Scene) {
    let (pa, pb): (Vec<_>, Vec<_>) = (a.primitives().collect(), b.primitives().collect());
    assert_eq!(pa.len(), pb.len(), "{what}: primitives");
    for ((_, x), (_, y)) in pa.iter().zip(&pb) {
        let l = &x.label;
        assert_eq!(x.positions, y.positions, "{what}: {l}: positions");
        assert_eq!(x.normals, y.normals, "{what}: {l}: normals");
        assert_eq!(x.tangents, y.tangents, "{what}: {l}: tangents");
        assert_eq!(x.uvs, y.uvs, "{what}: {l}: UVs");
        assert_eq!(x.joints, y.joints, "{what}: {l}: joints");
        assert_eq!(x.weights, y.weights, "{what}: {l}: weights");
        assert_eq!(
            triangles(&x.indices),
            triangles(&y.indices),
            "{what}: {l}: triangles"
        );
        assert_eq!(x.material, y.material, "{what}: {l}: material");
    }
    assert_eq!(a.skins, b.skins, "{what}: skins");
    assert!(a.animations == b.animations, "{what}: animations differ");
}

/// `b` has `a`'s primitives, vertices and triangles (its data may differ: a lossy filter), and
/// every primitive prepares.
fn assert_same_counts(what: &str, a: &Scene, b: &Scene) {
    let (pa, pb): (Vec<_>, Vec<_>) = (a.primitives().collect(), b.primitives().collect());
    assert_eq!(pa.len(), pb.len(), "{what}: primitives");
    for ((_, x), (_, y)) in pa.iter().zip(&pb) {
        let l = &x.label;
        assert_eq!(
            x.positions.len(),
            y.positions.len(),
            "{what}: {l}: vertices"
        );
        assert_eq!(x.indices.len(), y.indices.len(), "{what}: {l}: indices");
    }
    b.prepare().unwrap_or_else(|e| panic!("{what}: {e}"));
}

#[test]
fn gltfpack_meshopt_files_load_and_decode_to_the_uncompressed_data() {
    let Some((assets, dir)) = assets_and_folder() else {
        return;
    };
    for (name, src) in [
        ("fox", assets.join("gltf/Fox.glb")),
        ("helmet", assets.join("gltf/FlightHelmet/FlightHelmet.gltf")),
    ] {
        let Some(plain) = packed(&src, dir.path(), &format!("{name}.glb"), &[]) else {
            return;
        };
        // The vertex and index codecs are lossless: what `-c` decodes to is the plain file's
        // quantised data, bit for bit (and its animation keys too).
        let c = packed(&src, dir.path(), &format!("{name}-c.glb"), &["-c"]).expect("gltfpack");
        assert_same(&format!("{name} -c"), &plain, &c);
        // The same as .gltf: the compressed bytes in a .bin, the fallback buffer with no URI.
        let c_gltf =
            packed(&src, dir.path(), &format!("{name}-c.gltf"), &["-c"]).expect("gltfpack");
        assert_same(&format!("{name} -c .gltf"), &plain, &c_gltf);
        // `-cc` adds the lossy filters (octahedral normals and tangents, quaternion and
        // exponential animation keys) and quantises on its own terms, so its data is not the
        // plain file's: the same primitives, vertices and triangles, and every frame prepares.
        let cc = packed(&src, dir.path(), &format!("{name}-cc.glb"), &["-cc"]).expect("gltfpack");
        assert_same_counts(&format!("{name} -cc"), &plain, &cc);
        assert_eq!(plain.animations.len(), cc.animations.len(), "{name} -cc");
    }
}

/// The order that works, tested: gltfpack first (here `-c`, compressed), then `pack`. The packed
/// file validates with no error and its frames are the compressed file's, within the format's
/// bound.
#[test]
fn a_gltfpack_c_file_through_pack_validates_and_keeps_its_frames() {
    let Some((assets, dir)) = assets_and_folder() else {
        return;
    };
    let src = assets.join("gltf/FlightHelmet/FlightHelmet.gltf");
    let Some(scene) = packed(&src, dir.path(), "helmet-c.glb", &["-c"]) else {
        return;
    };
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    let format = qtangent::Format::Smallest3x4;
    let options = qtangent::pack::PackOptions {
        format,
        ..Default::default()
    };
    let out = qtangent::pack::pack(&scene, &prepared, &Default::default(), &options)
        .unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("helmet-c-packed.glb");
    std::fs::write(&path, &out.glb).expect("writes");
    if let Some(report) = common::judges::validate_gltf(&path) {
        report.assert_no_errors();
    }
    let back = mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let back = back.prepare().unwrap_or_else(|e| panic!("{e}"));
    let errors = common::frame_errors(&out.primitives, &back);
    common::assert_within_format_bound("FlightHelmet -c packed", format, &errors);
}

/// glTF 2.0: a primitive without NORMAL is shaded flat. gltfpack welds the Fox's 1728 corners
/// (its file has no normals) into 434 vertices; loaded, every corner's normal is perpendicular
/// to its triangle's edges, and the vertices split back to one per corner and face.
#[test]
fn a_welded_file_without_normals_is_shaded_flat() {
    let Some((assets, dir)) = assets_and_folder() else {
        return;
    };
    let Some(fox) = packed(&assets.join("gltf/Fox.glb"), dir.path(), "fox.glb", &[]) else {
        return;
    };
    let (_, prim) = fox.primitives().next().expect("a primitive");
    assert!(prim.normals.is_none() && prim.positions.len() == 434);
    let p = prim.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.frames.len(), 1728, "every corner its face's vertex");
    for tri in p.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|k| p.positions[tri[k] as usize]);
        let (e1, e2) = (b - a, c - a);
        // A unit normal from one f32 cross product and normalisation: each component of
        // e1 × e2 is off by about 4ε·|e1||e2| (two products and a difference), a tilt of
        // 4ε·|e1||e2| / |e1 × e2| radians, the slimmer the triangle the more; its dot with an
        // edge is off by that tilt times the edge's length, and the dot itself adds ε·|e|.
        // Twice that sum, for the normalisation and the dot's own rounding.
        let tilt = 4.0 * f32::EPSILON * e1.length() * e2.length() / e1.cross(e2).length();
        for &v in tri {
            let n = p.frames[v as usize].normal;
            for e in [e1, c - b, -e2] {
                let bound = 2.0 * (tilt + f32::EPSILON) * e.length();
                assert!(n.dot(e).abs() <= bound, "{n} · {e} beyond {bound}");
            }
        }
    }
}

/// `src` through `gltf-transform ARGS… src out` into `dir/name`; `None` as the judges say.
fn transformed(command: &str, src: &Path, dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    let out = dir.join(name);
    let args = [OsStr::new(command), src.as_os_str(), out.as_os_str()];
    common::judges::gltf_transform(&args)?;
    Some(out)
}

/// FlightHelmet through `gltf-transform COMMAND` in a temporary folder: the source, the output
/// and the folder; `None` as the assets and the judges say.
fn helmet_through(
    command: &str,
) -> Option<(std::path::PathBuf, std::path::PathBuf, tempfile::TempDir)> {
    let (assets, dir) = assets_and_folder()?;
    let src = assets.join("gltf/FlightHelmet/FlightHelmet.gltf");
    let out = transformed(command, &src, dir.path(), &format!("helmet-{command}.glb"))?;
    Some((src, out, dir))
}

/// glTF-Transform's `draco` output of FlightHelmet (positions 14 bits, normals 10, UVs 12,
/// tangents 12, its defaults) loads, and its every primitive is what Google's own Draco decoder
/// (draco3dgltf, through glTF-Transform: `xtask/npm/undraco.mjs`) makes of it, field by field.
#[test]
fn draco_files_decode_as_googles_decoder_decodes_them() {
    let Some((_, draco, dir)) = helmet_through("draco") else {
        return;
    };
    let plain = dir.path().join("helmet-undraco.glb");
    common::judges::undraco(&draco, &plain).expect("the judges ran a moment ago");
    let text = std::fs::read(&draco).expect("reads");
    assert!(
        String::from_utf8_lossy(&text).contains("KHR_draco_mesh_compression"),
        "glTF-Transform wrote no Draco"
    );
    let ours = mesh::load(&draco).unwrap_or_else(|e| panic!("{}: {e}", draco.display()));
    let google = mesh::load(&plain).unwrap_or_else(|e| panic!("{}: {e}", plain.display()));
    assert_same("FlightHelmet draco", &google, &ours);
    ours.prepare().unwrap_or_else(|e| panic!("{e}"));
}

/// glTF-Transform's `meshopt` (quantised, EXT_meshopt_compression with its filters) output
/// loads with every primitive, vertex and triangle of the source.
#[test]
fn gltf_transform_meshopt_files_load() {
    let Some((src, out, _dir)) = helmet_through("meshopt") else {
        return;
    };
    let source = mesh::load(&src).unwrap_or_else(|e| panic!("{e}"));
    let squeezed = mesh::load(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    assert_same_counts("FlightHelmet, glTF-Transform meshopt", &source, &squeezed);
}

/// A packed file (quantised, meshopt-compressed) put through `gltf-transform copy`, which
/// drops the `QTANGENT_frames` extension it does not know: it still loads, its `_QTANGENT`
/// read by its layout, every frame within the format's bound of the frames packed. Through
/// gltfpack instead, the frames are gone ("ignoring custom attribute _QTANGENT"): the file loads
/// with frames the loader makes, which is why gltfpack goes before `pack` (docs/GLTF.md).
#[test]
fn a_packed_file_survives_gltf_transform_copy_but_not_gltfpack() {
    let Some((assets, dir)) = assets_and_folder() else {
        return;
    };
    let src = assets.join("gltf/FlightHelmet/FlightHelmet.gltf");
    let scene = mesh::load(&src).unwrap_or_else(|e| panic!("{e}"));
    let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
    for format in [qtangent::Format::Smallest3x4, qtangent::Format::Snorm16x4] {
        let options = qtangent::pack::PackOptions {
            format,
            meshopt: true,
            ..Default::default()
        };
        let out = qtangent::pack::pack(&scene, &prepared, &Default::default(), &options)
            .unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join(format!("helmet-{}.glb", format.name()));
        std::fs::write(&path, &out.glb).expect("writes");
        let Some(copied) = transformed("copy", &path, dir.path(), "copied.glb") else {
            return;
        };
        let text = String::from_utf8_lossy(&std::fs::read(&copied).expect("reads")).into_owned();
        assert!(
            !text.contains("QTANGENT_frames"),
            "glTF-Transform kept the extension"
        );
        let back = mesh::load(&copied).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            back.primitives().all(|(_, p)| p.qtangents.is_some()),
            "a frame was lost"
        );
        let back = back.prepare().unwrap_or_else(|e| panic!("{e}"));
        let errors = common::frame_errors(&out.primitives, &back);
        common::assert_within_format_bound("FlightHelmet packed, then copied", format, &errors);
        let Some(through) = packed(&path, dir.path(), "through-gltfpack.glb", &[]) else {
            return;
        };
        assert!(
            through.primitives().all(|(_, p)| p.qtangents.is_none()),
            "gltfpack kept _QTANGENT: the tool order in docs/GLTF.md is out of date"
        );
        through.prepare().unwrap_or_else(|e| panic!("{e}"));
    }
}
