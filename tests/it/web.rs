//! qtangent on the web (docs/WEB.md): three.js, with `web/`'s QTangentPlugin, in Debian's
//! headless chromium (WebGL2 on SwiftShader), driven by `web/test/run.mjs` through
//! puppeteer-core. One test, one browser: the JavaScript decoders against the Rust ones bit for
//! bit; FlightHelmet, the Fox and the anisotropic disc packed by `pack` and drawn by three.js
//! through the plugin against three.js' picture of their sources; a glTF-Transform round trip;
//! the viewer in every mode. `cargo xtask test` installs chromium and `web/`'s pinned packages;
//! under CI a missing one fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Quat, Vec3};
use qtangent::{Format, QTangent};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::common::{self, not_run::did_not_run};

/// `web/` and its installed packages, node and a chromium; `None` (recorded) outside CI when
/// one is missing, a panic under CI.
fn web_dir() -> Option<PathBuf> {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let chromium = std::env::var_os("QTANGENT_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(PathBuf::from))
        .any(|p| p.is_file());
    let missing = if !node {
        Some("node not found (apt-get install nodejs npm)")
    } else if !web
        .join("node_modules/puppeteer-core/package.json")
        .is_file()
        || !web.join("node_modules/three/package.json").is_file()
    {
        Some("web/'s packages are not installed (`cargo xtask test` runs `npm ci` in web/)")
    } else if !chromium {
        Some("no chromium (apt-get install chromium; `cargo xtask test` installs it as root)")
    } else {
        None
    };
    match missing {
        None => Some(web),
        Some(why) if std::env::var_os("CI").is_some() => panic!("under CI: {why}"),
        Some(why) => {
            did_not_run(why);
            None
        }
    }
}

/// The frames the decoders are checked on: seeded random rotations, the 24 axis-aligned
/// rotations and frames with w near 0 (where f16x3's rebuild and the sign-of-w formats' bias
/// act), each both handed.
fn test_frames() -> Vec<QTangent> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0x7765_6232);
    let mut rotations: Vec<Quat> = (0..400).map(|_| common::rotation(&mut rng)).collect();
    let axes = [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z];
    for n in axes {
        for t in axes {
            if n.dot(t).abs() < 0.5 {
                let m = glam::Mat3::from_cols(t, n.cross(t), n);
                rotations.push(Quat::from_mat3(&m));
            }
        }
    }
    for w in [0.0, 1e-7, 1e-5, 3e-5, 1e-3, -1e-6] {
        let axis = common::unit_vec3(&mut rng);
        let xyz = axis * (1.0f32 - w * w).sqrt();
        rotations.push(Quat::from_xyzw(xyz.x, xyz.y, xyz.z, w).normalize());
    }
    rotations.push(Quat::from_xyzw(0.5, 0.5, 0.5, 0.5));
    rotations.push(Quat::from_xyzw(rng.random_range(-1.0..1.0), 0.0, 0.0, 0.0).normalize());
    rotations
        .into_iter()
        .flat_map(|rotation| {
            [false, true].map(|reflected| QTangent {
                rotation,
                reflected,
            })
        })
        .collect()
}

/// The `_QTANGENT` accessor of the first primitive of the GLB at `path`: componentType, item
/// size and `normalized`.
fn qtangent_layout(path: &Path) -> (u64, u64, bool) {
    let bytes = std::fs::read(path).expect("packed GLB");
    let len = u32::from_le_bytes(bytes[12..16].try_into().expect("chunk length")) as usize;
    let doc: Value = serde_json::from_slice(&bytes[20..20 + len]).expect("GLB JSON");
    let a = &doc["accessors"][doc["meshes"][0]["primitives"][0]["attributes"]["_QTANGENT"]
        .as_u64()
        .expect("_QTANGENT") as usize];
    let size = match a["type"].as_str() {
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        other => panic!("_QTANGENT type {other:?}"),
    };
    (
        a["componentType"].as_u64().expect("componentType"),
        size,
        a["normalized"].as_bool().unwrap_or(false),
    )
}

/// The Rust side of the decoder check: each format's row (its accessor as `pack` writes it) and
/// every test frame encoded, decoded and turned into a frame, as f32 bits.
fn decoder_table(assets: &Path, dir: &Path) -> Value {
    let torus = assets.join("obj/duck.obj");
    let formats: Vec<Value> = Format::ALL
        .iter()
        .enumerate()
        .map(|(code, &f)| {
            let (component_type, item_size, normalized) =
                qtangent_layout(&common::pack(&torus, dir, f, "none"));
            json!({
                "name": f.name(), "bytes": f.bytes(), "maxErrorDeg": f.max_error_deg(),
                "componentType": component_type, "itemSize": item_size,
                "normalized": normalized, "code": code,
            })
        })
        .collect();
    json!({ "formats": formats, "frames": frame_rows(&test_frames()) })
}

/// Every frame encoded in every format, decoded and turned into a frame by Rust, as f32 bits.
fn frame_rows(test_frames: &[QTangent]) -> Vec<Value> {
    let bits = |v: Vec3| v.to_array().map(f32::to_bits).to_vec();
    let mut frames = Vec::new();
    for f in Format::ALL {
        for q in test_frames {
            let mut bytes = Vec::new();
            f.encode_into(q, &mut bytes);
            let d = f.decode(&bytes);
            let fr = d.to_frame();
            frames.push(json!({
                "format": f.name(),
                "bytes": bytes.iter().map(|b| format!("{b:02x}")).collect::<String>(),
                "q": d.rotation.to_array().map(f32::to_bits),
                "reflected": d.reflected,
                "n": bits(fr.normal), "t": bits(fr.tangent), "b": bits(fr.bitangent),
            }));
        }
    }
    frames
}

/// Runs the tool `example` with `args`, panicking with its output unless it succeeds.
fn run_tool(example: &str, args: &[&str]) {
    // `pack` is the command's; the other tools are lab programs.
    let out = if example == "pack" {
        common::run_command(&[&["pack"][..], args].concat())
    } else {
        common::run_tool(example, args)
    };
    assert!(
        out.status.success(),
        "{example} {}: {}",
        args.join(" "),
        common::stderr(&out)
    );
}

/// The files the browser draws, in `dir`: FlightHelmet (its source folder linked, packed at 4
/// bytes with BC5 tangent-space maps, quantised and not, compressed), the Fox (posed), the disc
/// with KHR_materials_anisotropy (a twist alone: BC5 of (z, w)), the bumpy disc (a tilt and a
/// twist: two BC5 layers), the duck with an object-space map (BC7), the Fox in every format, the
/// lab's morphing grid.
fn fixtures(assets: &Path, dir: &Path) {
    let p = |name: &str| dir.join(name).to_string_lossy().into_owned();
    std::os::unix::fs::symlink(assets.join("gltf/Fox.glb"), dir.join("fox-source.glb"))
        .expect("a link to the Fox");
    std::os::unix::fs::symlink(assets.join("gltf/FlightHelmet"), dir.join("helmet-src"))
        .expect("link FlightHelmet");
    let asset = |rel: &str| assets.join(rel).to_string_lossy().into_owned();
    let (helmet, fox, duck) = (
        asset("gltf/FlightHelmet/FlightHelmet.gltf"),
        asset("gltf/Fox.glb"),
        asset("obj/duck.obj"),
    );
    for (folder, extra) in [("disc", None), ("bumps", Some("--bumps"))] {
        let d = p(folder);
        let args = ["--gltf", &d, "--gltf-texture", "png", "--texture", "256"];
        run_tool("aniso", &[&args[..], extra.as_slice()].concat());
    }
    let (disc, bumps) = (p("disc/swirl_disc.gltf"), p("bumps/swirl_disc_bumps.gltf"));
    let s3 = ["--frames", "smallest3x4"];
    let tangent = ["--maps", "tangent"];
    // Where a source has no TANGENT (the Fox, the discs, the duck), three.js alone shades it
    // flat (no NORMAL) or derives tangents whose bitangent runs the other way along v, which
    // mirrors the anisotropy (8.99 dB on the disc against the frames qtangent makes): its
    // reference is the source with the frames qtangent's loader makes, as f32 NORMAL and TANGENT.
    let reference = vec!["--frames", "f32x4", "--float", "--keep-normals"];
    let packs: [(&str, &str, Vec<&str>); 12] = [
        ("helmet.glb", &helmet, [&s3[..], &tangent].concat()),
        (
            "helmet-float.glb",
            &helmet,
            [&s3[..], &tangent, &["--float"]].concat(),
        ),
        (
            "helmet-meshopt.glb",
            &helmet,
            [&s3[..], &tangent, &["--compress", "meshopt"]].concat(),
        ),
        // The Fox's frames stored (it has no NORMAL: by default it is written without frames,
        // `fox-default.glb`), so that the plugin decodes a skinned mesh.
        ("fox.glb", &fox, [&s3[..], &["--flat-frames"]].concat()),
        ("fox-default.glb", &fox, Vec::new()),
        ("fox-reference.glb", &fox, reference.clone()),
        ("disc.glb", &disc, [&s3[..], &tangent].concat()),
        ("disc-reference.glb", &disc, reference.clone()),
        ("bumps.glb", &bumps, [&s3[..], &tangent].concat()),
        ("bumps-reference.glb", &bumps, reference.clone()),
        ("duck.glb", &duck, [&s3[..], &["--maps", "object"]].concat()),
        ("duck-reference.glb", &duck, reference),
    ];
    for (out, source, extra) in packs {
        let o = p(out);
        run_tool("pack", &[&[source, "-o", o.as_str()][..], &extra].concat());
    }
    corpus_fixtures(dir);
    let instanced = instanced_gltf(dir);
    let instanced = instanced.to_str().expect("utf-8 path");
    let instanced_packs = [
        ("instanced.glb", s3.to_vec()),
        (
            "instanced-reference.glb",
            vec!["--frames", "f32x4", "--keep-normals"],
        ),
    ];
    for (out, extra) in instanced_packs {
        let o = p(out);
        run_tool(
            "pack",
            &[&[instanced, "-o", o.as_str()][..], &extra].concat(),
        );
    }
    // The Fox in every format: each GLSL decoder runs (smallest3x4 is fox.glb).
    for f in Format::ALL {
        let o = p(&format!("fox-{}.glb", f.name()));
        run_tool(
            "pack",
            &[
                fox.as_str(),
                "-o",
                o.as_str(),
                "--frames",
                f.name(),
                "--flat-frames",
            ],
        );
    }
}

/// The lab corpus' files the browser draws, in `dir`: the morphing grid packed with the
/// defaults; the ribbed scene with BC5 maps (quantised and `--float`) and its reference; the
/// packed ribbed scene and FlightHelmet (`helmet.glb`, packed before) with BC5 normal maps.
fn corpus_fixtures(dir: &Path) {
    let p = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let s3 = ["--frames", "smallest3x4"];
    let tangent = ["--maps", "tangent"];
    // The lab's morphing grid (two targets, a weights animation), packed with the defaults:
    // its frames as NORMAL, which three.js morphs itself.
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).expect("corpus folder");
    qtangent::lab::content::corpus(&corpus, &[]).expect("the lab corpus");
    let morph = corpus.join("morph.gltf").to_string_lossy().into_owned();
    run_tool("pack", &[morph.as_str(), "-o", p("morph.glb").as_str()]);
    // The ribbed scene (ribs and wrinkles at 512²): with BC5 maps (f32 positions and UVs too),
    // against the source with the frames qtangent makes (it has no TANGENT).
    let ribbed = corpus.join("ribbed.gltf").to_string_lossy().into_owned();
    let ribbed_packs: [(&str, Vec<&str>); 3] = [
        ("ribbed.glb", [&s3[..], &tangent].concat()),
        (
            "ribbed-float.glb",
            [&s3[..], &tangent, &["--float"]].concat(),
        ),
        (
            "ribbed-reference.glb",
            vec!["--frames", "f32x4", "--float", "--keep-normals"],
        ),
    ];
    for (out, extra) in ribbed_packs {
        let o = p(out);
        run_tool(
            "pack",
            &[&[ribbed.as_str(), "-o", o.as_str()][..], &extra].concat(),
        );
    }
    // The packed files with their normal maps as engines ship them, KTX2 BC5 (the lab's engine
    // copies; the maps and everything else kept): the same file with BC5 normal maps, what the
    // maps must match at equal bytes.
    let sources = [
        "ribbed.glb",
        "helmet.glb",
        "ribbed-float.glb",
        "helmet-float.glb",
    ]
    .map(|f| dir.join(f));
    qtangent::lab::content::corpus(dir, &sources).expect("the BC5 normal-map copies");
}

/// A torus drawn three times through EXT_mesh_gpu_instancing (positions, normals, UVs, indices;
/// no material), written as `instanced.gltf` with its buffer embedded: three.js makes an
/// InstancedMesh of it, an object the parser does not associate with its primitive.
fn instanced_gltf(dir: &Path) -> PathBuf {
    let torus = qtangent::mesh::Primitive::torus(0.75, 0.3, 48, 24);
    let normals = torus.normals.as_ref().expect("the torus has normals");
    let uvs = torus.uvs.as_ref().expect("the torus has UVs");
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut push = |bytes: Vec<u8>| {
        views.push(json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len() }));
        bin.extend_from_slice(&bytes);
    };
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let flat3 = |v: &[Vec3]| v.iter().flat_map(|p| p.to_array()).collect::<Vec<f32>>();
    push(f32s(&flat3(&torus.positions)));
    push(f32s(&flat3(normals)));
    push(f32s(
        &uvs.iter().flat_map(|p| p.to_array()).collect::<Vec<f32>>(),
    ));
    push(torus.indices.iter().flat_map(|i| i.to_le_bytes()).collect());
    push(f32s(&[-2.2, 0.0, 0.0, 0.0, 0.0, 0.0, 2.2, 0.0, 0.0]));
    let (lo, hi) = torus.positions.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let n = torus.positions.len();
    let instancing = json!({ "EXT_mesh_gpu_instancing": { "attributes": { "TRANSLATION": 4 } } });
    let attributes = json!({ "POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2 });
    let doc = json!({
        "asset": { "version": "2.0" },
        "extensionsUsed": ["EXT_mesh_gpu_instancing"],
        "scene": 0, "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0, "extensions": instancing }],
        "meshes": [{ "name": "torus", "primitives": [{ "attributes": attributes, "indices": 3 }] }],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
              "min": lo.to_array(), "max": hi.to_array() },
            { "bufferView": 1, "componentType": 5126, "count": n, "type": "VEC3" },
            { "bufferView": 2, "componentType": 5126, "count": n, "type": "VEC2" },
            { "bufferView": 3, "componentType": 5125, "count": torus.indices.len(), "type": "SCALAR" },
            { "bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC3" },
        ],
        "bufferViews": views,
        "buffers": [{ "byteLength": bin.len(),
                      "uri": format!("data:application/octet-stream;base64,{}", base64(&bin)) }],
    });
    common::write_text(dir, "instanced.gltf", &doc.to_string())
}

/// Standard base64 with padding (RFC 4648), for the instanced file's embedded buffer.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for k in 0..4 {
            out.push(if k <= c.len() {
                A[(n >> (18 - 6 * k)) as usize & 63] as char
            } else {
                '='
            });
        }
    }
    out
}

/// What the browser draws and compares (cases.json): the files [`fixtures`] writes, and
/// FlightHelmet and the ribbed scene from `one`'s cameras (qtangent's renderer's, 40°).
fn cases(one: &[OneCamera; 2]) -> Value {
    let helmet_view = json!({ "dir": [0.3, 0.25, 1.0], "distance": 3.2, "light": [1, 2, 3] });
    let gpu = json!({ "mode": "gpu" });
    let disc_view = json!({ "dir": [0.0, 0.9, 1.0], "distance": 2.2, "light": [0.3, 1, 0.2] });
    // Every format drawn in both modes, each compared with the other.
    let fox_formats: Vec<Value> = Format::ALL
        .iter()
        .flat_map(|f| {
            let (file, gpu_name) = (format!("fox-{}.glb", f.name()), format!("gpu-{}", f.name()));
            [
                json!({ "name": gpu_name, "file": file, "plugin": { "mode": "gpu" } }),
                json!({ "name": format!("decode-{}", f.name()), "file": file,
                        "plugin": { "mode": "decode" }, "against": gpu_name }),
            ]
        })
        .collect();
    let fox_view = json!({ "dir": [1.0, 0.4, 0.6], "distance": 3.0, "light": [1, 2, 3] });
    let morph_view = json!({ "dir": [0.3, 0.5, 1.0], "distance": 2.2, "light": [1, 2, 3] });
    let mut cases = json!({
        "renders": [
            { "name": "helmet", "source": "helmet-src/FlightHelmet.gltf", "view": helmet_view,
              "timing": ["gpu"],
              "variants": [
                { "name": "gpu", "file": "helmet.glb", "plugin": gpu },
                // The same file with BC5 normal maps instead of the maps (three.js rebuilds z).
                { "name": "bc5-normal-maps", "file": "helmet-bc5-normal-maps.glb",
                  "plugin": { "mode": "gpu", "maps": false } },
                { "name": "decode", "file": "helmet.glb", "plugin": { "mode": "decode" }, "against": "gpu" },
                { "name": "float-gpu", "file": "helmet-float.glb", "plugin": gpu },
                { "name": "float-frames-only", "file": "helmet-float.glb", "plugin": { "mode": "gpu", "maps": false } },
                { "name": "meshopt-gpu", "file": "helmet-meshopt.glb", "plugin": gpu, "against": "gpu" },
                { "name": "gpu-bc5-decoded", "file": "helmet.glb", "against": "gpu",
                  "plugin": { "mode": "gpu", "textureCompression": false } },
                { "name": "transformed-gpu", "file": "helmet-transformed.glb", "roundTrip": "helmet.glb",
                  "plugin": gpu, "against": "gpu" },
              ] },
            { "name": "fox", "source": "fox-reference.glb", "time": 0.5, "view": fox_view,
              "variants": [
                { "name": "gpu", "file": "fox.glb", "plugin": gpu },
                { "name": "decode", "file": "fox.glb", "plugin": { "mode": "decode" }, "against": "gpu" },
              ] },
            // The Fox as pack writes it by default (no NORMAL in the source: no frames, corners
            // welded) against the source itself: three.js shades both flat, from the posed
            // triangles.
            { "name": "fox-default", "source": "fox-source.glb", "time": 0.5, "view": fox_view,
              "variants": [
                { "name": "gpu", "file": "fox-default.glb", "plugin": gpu },
              ] },
            { "name": "fox-formats", "source": "fox-reference.glb", "time": 0.5, "view": fox_view,
              "variants": fox_formats },
            // EXT_mesh_gpu_instancing: three instances, each drawn with the file's frames.
            { "name": "instanced", "source": "instanced-reference.glb",
              "view": { "dir": [0.2, 1.0, 0.8], "distance": 2.4, "light": [1, 2, 3] },
              "variants": [
                { "name": "gpu", "file": "instanced.glb", "plugin": gpu },
                { "name": "decode", "file": "instanced.glb", "plugin": { "mode": "decode" }, "against": "gpu" },
                { "name": "flat", "file": "instanced.glb", "plugin": null },
              ] },
            { "name": "disc", "source": "disc-reference.glb", "view": disc_view,
              "variants": [
                { "name": "gpu", "file": "disc.glb", "plugin": gpu },
                { "name": "frames-only", "file": "disc.glb", "plugin": { "mode": "gpu", "maps": false } },
                { "name": "no-direction", "file": "disc.glb", "anisotropyMap": false,
                  "plugin": { "mode": "gpu", "maps": false } },
              ] },
            { "name": "bumps", "source": "bumps-reference.glb", "view": disc_view,
              "variants": [
                { "name": "gpu", "file": "bumps.glb", "plugin": gpu },
                { "name": "frames-only", "file": "bumps.glb", "plugin": { "mode": "gpu", "maps": false } },
              ] },
            // The normals alone: three.js turns the anisotropy by a tangent the normal map does
            // not turn; the map turns both (docs/WEB.md).
            { "name": "bumps-isotropic", "source": "bumps-reference.glb", "view": disc_view, "anisotropy": 0,
              "variants": [
                { "name": "gpu", "file": "bumps.glb", "plugin": gpu },
                { "name": "frames-only", "file": "bumps.glb", "plugin": { "mode": "gpu", "maps": false } },
                { "name": "no-bumps", "file": "disc.glb", "plugin": { "mode": "gpu", "maps": false } },
              ] },
            // Morph targets: the source as three.js draws it against the packed file, posed by
            // the weights animation at rest (t = 0) and at weight 1 on the bump (t = 1).
            // Ribs and wrinkles at 512² (the lab corpus' ribbed.gltf): the maps, and the packed
            // frames with the file's own PNG normal maps (`frames-only`: the plugin's maps off).
            { "name": "ribbed", "source": "ribbed-reference.glb",
              "view": { "dir": [0.0, 0.3, 1.0], "distance": 3.4, "light": [1, 2, 3] },
              "variants": [
                { "name": "gpu", "file": "ribbed.glb", "plugin": gpu },
                { "name": "float-gpu", "file": "ribbed-float.glb", "plugin": gpu },
                { "name": "frames-only", "file": "ribbed.glb", "plugin": { "mode": "gpu", "maps": false } },
                { "name": "bc5-normal-maps", "file": "ribbed-bc5-normal-maps.glb",
                  "plugin": { "mode": "gpu", "maps": false } },
              ] },
            { "name": "morph-rest", "source": "corpus/morph.gltf", "time": 0.0, "view": morph_view,
              "variants": [ { "name": "gpu", "file": "morph.glb", "plugin": gpu } ] },
            { "name": "morph", "source": "corpus/morph.gltf", "time": 1.0, "view": morph_view,
              "variants": [ { "name": "gpu", "file": "morph.glb", "plugin": gpu } ] },
            { "name": "duck", "source": "duck-reference.glb",
              "view": { "dir": [1.0, 0.5, 0.8], "distance": 2.6, "light": [1, 2, 3] },
              "variants": [
                { "name": "gpu", "file": "duck.glb", "plugin": gpu },
                { "name": "frames-only", "file": "duck.glb", "plugin": { "mode": "gpu", "maps": false } },
                // three.js alone: no NORMAL, so flat.
                { "name": "flat", "file": "duck.glb", "plugin": null },
              ] },
        ],
        "viewer": viewer_cases(),
        "functions": "helmet.glb",
    });
    if let Some(renders) = cases["renders"].as_array_mut() {
        renders.extend(one_camera_cases(one));
    }
    cases
}

/// The viewer's pages: FlightHelmet packed, in every mode, and the plain source.
fn viewer_cases() -> Vec<Value> {
    ["file", "qtangent", "maps", "difference"]
        .iter()
        .map(|m| json!({ "name": format!("helmet-{m}"), "file": "helmet.glb", "mode": m }))
        .chain([
            json!({ "name": "plain-gltf", "file": "helmet-src/FlightHelmet.gltf", "mode": "file" }),
        ])
        .collect()
}

/// The `*-camera` cases: the source and the `--float` pack (qtangent's renderer draws f32
/// positions and UVs) from the camera `render` printed, at its 40° field of view; and the
/// `*-camera-normals` cases, the same drawn as debug normals (the frame stage, lights aside),
/// with the `--float` pack's BC5 normal-map copy beside the map.
fn one_camera_cases(one: &[OneCamera; 2]) -> Vec<Value> {
    one.iter()
        .flat_map(|o| {
            let (source, file) = match o.name {
                "helmet" => ("helmet-src/FlightHelmet.gltf", "helmet"),
                _ => ("ribbed-reference.glb", "ribbed"),
            };
            let view = json!({ "eye": o.camera[..3], "target": o.camera[3..], "fov": 40,
                               "light": [1, 2, 3] });
            let map = json!({ "name": "float-gpu", "file": format!("{file}-float.glb"),
                              "plugin": { "mode": "gpu" } });
            [
                json!({ "name": format!("{}-camera", o.name), "source": source,
                        "view": view, "variants": [map] }),
                json!({ "name": format!("{}-camera-normals", o.name), "source": source,
                        "view": view, "debugNormal": true, "variants": [
                            map,
                            { "name": "bc5-normal-maps",
                              "file": format!("{file}-float-bc5-normal-maps.glb"),
                              "plugin": { "mode": "gpu", "maps": false } },
                        ] }),
            ]
        })
        .collect()
}

/// The variant `name` of render `case` in the driver's result.
fn variant<'a>(result: &'a Value, case: &str, name: &str) -> &'a Value {
    result["renders"]
        .as_array()
        .and_then(|r| r.iter().find(|c| c["name"] == case))
        .and_then(|c| c["variants"].as_array())
        .and_then(|v| v.iter().find(|v| v["name"] == name))
        .unwrap_or_else(|| panic!("no {case} {name} in the result"))
}

/// PSNR over the whole picture (∞ for identical pictures, which JSON writes as null).
fn psnr(v: &Value) -> f64 {
    v["psnr"]["all"].as_f64().unwrap_or(f64::INFINITY)
}

/// PSNR of a variant against the variant it names in `against` (∞, JSON's null, when identical).
fn against(v: &Value) -> f64 {
    v["against"]["all"].as_f64().unwrap_or(f64::INFINITY)
}

/// Runs `web/test/run.mjs` on the fixtures in `dir`; its result (also written beside the
/// pictures in `target/test-output/web/`).
fn run_browser(web: &Path, dir: &Path, three: Three) -> Value {
    let out_dir = common::test_output_dir().join(match three {
        Three::Newest => "web",
        Three::Oldest => "web-oldest-three",
        Three::NodeMaterials => "web-webgpu-renderer",
    });
    let mut command = Command::new("node");
    command
        .arg(web.join("test/run.mjs"))
        .arg(dir)
        .arg(&out_dir)
        .env_remove("QTANGENT_THREE")
        .env_remove("QTANGENT_SKIP_VARIANTS")
        .env_remove("QTANGENT_RENDERER");
    if three == Three::NodeMaterials {
        command.env("QTANGENT_RENDERER", "webgpu");
    }
    if three == Three::Oldest {
        // The engine copies' KTX2 BC5 normal maps are three.js' own to read, and KTX2Loader reads
        // raw BC formats only from r180: the oldest release skips those variants (the plugin
        // reads its maps itself).
        command
            .env("QTANGENT_THREE", "three-oldest")
            .env("QTANGENT_SKIP_VARIANTS", ENGINE_VARIANT);
    }
    let run = command.output().expect("run node");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "web/test/run.mjs failed ({}): {}{}",
        run.status,
        stdout,
        String::from_utf8_lossy(&run.stderr)
    );
    let result: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("run.mjs printed no result ({e}): {stdout}"));
    std::fs::write(out_dir.join("result.json"), result.to_string()).expect("write result");
    eprintln!("web: pictures and figures in {}", out_dir.display());
    result
}

/// The decoders (bit for bit), the BC5 decoder (against WebGLRenderer's upload: not in the
/// node-material run, `nodes`), and the console.
fn assert_decoders_and_console(result: &Value, frames: usize, nodes: bool) {
    let d = &result["decoders"];
    assert_eq!(d["mismatches"], 0, "JavaScript against Rust: {d}");
    assert_eq!(d["checked"], frames);
    if nodes {
        assert_eq!(result["bc5"], Value::Null);
        assert_eq!(result["messages"], json!([]), "console messages");
        return;
    }
    // The package's BC5 decoder (for devices without RGTC) against the GPU's on 256 seeded
    // random blocks: within one snorm step, 1/127. The Khronos Data Format Specification's
    // palette is exact in f32; a hardware decoder may round it to the format's precision
    // (SwiftShader: up to 0.0067). A wrong index, endpoint, mode or row is off by far more.
    let worst = result["bc5"]["worst"].as_f64().expect("bc5 check");
    assert!(
        worst <= 1.0 / 127.0,
        "BC5: JavaScript against the GPU, {worst}"
    );
    // UNORM (a tangent map's normal layout) the same way: within one unorm step, 1/255, the
    // format's precision a hardware decoder may round the palette to.
    let worst = result["bc5Unorm"]["worst"]
        .as_f64()
        .expect("bc5 unorm check");
    assert!(
        worst <= 1.0 / 255.0,
        "BC5 UNORM: JavaScript against the GPU, {worst}"
    );
    // No console error or warning from three.js, the plugin or the pages.
    assert_eq!(result["messages"], json!([]), "console messages");
}

/// The pictures that must be identical, and the bytes on the GPU. `nodes`: the node-material
/// run, whose plugin decodes every frame on load (its `gpu` variants decode too).
fn assert_identical_pictures(result: &Value, nodes: bool) {
    // Decoding in the vertex shader draws what decoding on load draws, in every format: the
    // GLSL decoder mirrors the JavaScript one, and the f32 frames they give differ by less than
    // an 8-bit output step. (Not in the node-material run: both of its variants decode on load,
    // so the comparison could not fail there.)
    if !nodes {
        for f in Format::ALL {
            let v = variant(result, "fox-formats", &format!("decode-{}", f.name()));
            assert_eq!(
                against(v),
                f64::INFINITY,
                "{}: GPU decode against decode on load",
                f.name()
            );
        }
        for (case, what) in [
            ("fox", "the Fox"),
            ("helmet", "FlightHelmet"),
            ("instanced", "instanced"),
        ] {
            let v = variant(result, case, "decode");
            assert_eq!(
                against(v),
                f64::INFINITY,
                "{what}: GPU decode against decode on load"
            );
        }
    }
    // The lossless steps draw the identical picture: EXT_meshopt_compression (the codecs are
    // lossless) and a glTF-Transform round trip with the extension registered.
    for v in ["meshopt-gpu", "transformed-gpu"] {
        assert_eq!(against(variant(result, "helmet", v)), f64::INFINITY, "{v}");
    }
    // 4 bytes a vertex on the GPU (smallest3x4), against 28 for NORMAL + TANGENT.
    for case in ["helmet", "fox"] {
        let (g, d) = (
            variant(result, case, "gpu"),
            variant(result, case, "decode"),
        );
        let gpu = if nodes { 28 } else { 4 };
        assert_eq!(g["bytes"]["framesPerVertex"], gpu, "{case}: {}", g["bytes"]);
        assert_eq!(d["bytes"]["framesPerVertex"], 28, "{case}: {}", d["bytes"]);
    }
}

/// The glTF-Transform functions keep the frames; the round trip validates.
fn assert_gltf_transform(result: &Value, transformed: &Path) {
    if let Some(report) = common::judges::validate_gltf(transformed) {
        report.assert_no_errors();
    }
    // Every common glTF-Transform function keeps every `_QTANGENT`, its format and layout and
    // the maps, writes no frame the file did not hold, and adds no texture (docs/WEB.md).
    let f = &result["functions"];
    for row in f["rows"].as_array().expect("functions") {
        let all = |n: &Value| format!("{n}/{n}");
        assert_eq!(row["ok"], true, "{row}");
        let primitives = all(&f["before"]["primitives"]);
        assert_eq!(row["qtangent"].as_str(), Some(primitives.as_str()), "{row}");
        assert_eq!(row["format"], row["qtangent"], "{row}");
        assert_eq!(row["layout"], row["qtangent"], "{row}");
        assert_eq!(row["invented"], 0, "{row}");
        assert_eq!(row["maps"], f["before"]["maps"], "{row}");
        let (after, before) = (row["textures"].as_u64(), f["before"]["textures"].as_u64());
        assert!(after <= before, "{row}: textures");
    }
    eprintln!("web: glTF-Transform functions {f}");
}

/// The targets, and the maps that have none against what drawing them wrongly would give.
/// `engine`: the engine copies were drawn (not on the oldest three.js).
fn assert_targets(result: &Value, engine: bool) {
    // The frames alone, 4 bytes at 0.19°, with the source's PNG normal maps: the renderer's own
    // round-trip target, 60 dB (docs/GLTF.md).
    let frames_only = psnr(variant(result, "helmet", "float-frames-only"));
    assert!(
        frames_only >= 60.0,
        "helmet frames alone {frames_only:.2} dB"
    );
    // 4-byte frames and BC5 maps against the source: 50 dB, the issue's target (met where the
    // positions and UVs stay f32; the default quantisation, gltfpack's grid, is reported).
    let maps = psnr(variant(result, "helmet", "float-gpu"));
    assert!(
        maps >= 50.0,
        "helmet, 4-byte frames and BC5 maps: {maps:.2} dB"
    );
    // The Fox posed, its frames packed: 50 dB, the issue's target.
    let fox = psnr(variant(result, "fox", "gpu"));
    assert!(fox >= 50.0, "the Fox: {fox:.2} dB");
    // The Fox packed with the defaults (no frames: three.js shades it flat, as it shades the
    // source) against the source: the same 50 dB.
    let fox_default = psnr(variant(result, "fox-default", "gpu"));
    eprintln!("web: the Fox packed by default {fox_default:.2} dB against its source");
    assert!(
        fox_default >= 50.0,
        "the Fox packed by default: {fox_default:.2} dB against the source"
    );
    // The morphing grid at weight 1 on its bump, as three.js morphs the packed file and the
    // source: 50 dB, the Fox's bound (issue 39 compares it with the pair at rest: printed).
    let (posed, rest) = (
        psnr(variant(result, "morph", "gpu")),
        psnr(variant(result, "morph-rest", "gpu")),
    );
    eprintln!("web: morph at weight 1 {posed:.2} dB, at rest {rest:.2} dB");
    assert!(
        posed >= 50.0,
        "the morphing grid at weight 1: {posed:.2} dB"
    );
    // FlightHelmet packed with the defaults (quantised, BC5 maps): 50 dB, issue 41's target
    // (met since the BC5 map holds the normal's (x, y): 50.27 dB; 50.32 in BC5 UNORM).
    let helmet = psnr(variant(result, "helmet", "gpu"));
    assert!(
        helmet >= 50.0,
        "helmet packed with the defaults: {helmet:.2} dB"
    );
    // Ribs and wrinkles. The issue's target, the BC5 maps within 1 dB of the same file drawn
    // with its PNG normal maps, is not met (53.84 against 61.17 dB: BC5's own error, which a
    // BC5 normal map has too, 53.53, docs/MAPS.md); printed, with a regression floor: 0.6 dB
    // under the figure measured last (SwiftShader draws the same pixels each run; 0.6 dB is
    // the allowance the project gives a BC5 encoder change, the bc5x2 goal).
    let (ribbed, png) = (
        psnr(variant(result, "ribbed", "gpu")),
        psnr(variant(result, "ribbed", "frames-only")),
    );
    eprintln!("web: ribbed, BC5 maps {ribbed:.2} dB, PNG normal maps {png:.2} dB");
    assert!(
        ribbed >= 53.84 - 0.6,
        "ribbed: the BC5 maps {ribbed:.2} dB (PNG normal maps {png:.2} dB)"
    );
    // The same packed files with BC5 normal maps instead of the maps (equal bytes): issue 41's
    // yardstick, met on both since the normal layout is BC5 UNORM on the normal map's lattice
    // (FlightHelmet 50.32 against 49.99 dB, the ribbed scene 53.84 against 53.53).
    for case in ["helmet", "ribbed"].into_iter().filter(|_| engine) {
        let (map, bc5) = (
            psnr(variant(result, case, "gpu")),
            psnr(variant(result, case, "bc5-normal-maps")),
        );
        eprintln!("web: {case}, BC5 maps {map:.2} dB, BC5 normal maps {bc5:.2} dB");
        assert!(
            map >= bc5,
            "{case}: the BC5 maps {map:.2} dB, the same file with BC5 normal maps {bc5:.2} dB"
        );
    }
    // Each map is closer to its reference than the picture without what the map adds: the
    // twist map's directions against none (the vertex tangent's), the bumpy map's normals
    // against no bumps, the object-space map against flat shading. A map decoded wrongly (a
    // swapped layer, an unhalved twist, a wrong basis) falls below them.
    for (case, map, without) in [
        ("disc", "gpu", "no-direction"),
        ("bumps-isotropic", "gpu", "no-bumps"),
        ("duck", "gpu", "flat"),
        ("instanced", "gpu", "flat"),
    ] {
        let (m, w) = (
            psnr(variant(result, case, map)),
            psnr(variant(result, case, without)),
        );
        assert!(m > w, "{case}: the map {m:.2} dB, without it {w:.2} dB");
    }
}

/// The viewer: every picture mode shows the model (more than 5% of the canvas is not
/// background: FlightHelmet covers about 29% of it); the difference mode draws without error.
fn assert_viewer(result: &Value) {
    for v in result["viewer"].as_array().expect("viewer") {
        assert_eq!(v["error"], Value::Null, "viewer {v}");
        let covered = v["covered"].as_f64().unwrap_or(0.0);
        if v["name"] != "helmet-difference" {
            assert!(covered > 0.05, "viewer {}: {covered:.3} covered", v["name"]);
        }
    }
}

#[test]
fn three_js_draws_packed_files_through_the_plugin() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    let Some(web) = web_dir() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary folder");
    let table = decoder_table(&assets, dir.path());
    fixtures(&assets, dir.path());
    // qtangent's renderer on the sources, from the camera it fits: the view the browser draws
    // the `*-camera` cases from.
    let one = [
        ("helmet", assets.join("gltf/FlightHelmet/FlightHelmet.gltf")),
        ("ribbed", dir.path().join("corpus/ribbed.gltf")),
    ]
    .map(|(name, scene)| qtangent_one_camera(dir.path(), name, &scene));
    let cases = cases(&one);
    for (name, v) in [("frames.json", &table), ("cases.json", &cases)] {
        std::fs::write(dir.path().join(name), v.to_string()).expect("write fixture");
    }
    let mut newest = Value::Null;
    for three in [Three::Newest, Three::Oldest, Three::NodeMaterials] {
        let result = run_browser(&web, dir.path(), three);
        let revision = result["webgl"]["three"].as_str().unwrap_or_default();
        assert_eq!(
            revision,
            three.revision(),
            "the page drew with three.js r{revision}"
        );
        // The node-material run draws with WebGPURenderer on its WebGL2 backend (headless
        // Chromium here has no WebGPU adapter; the backend is the one WebGPURenderer falls back to).
        let (renderer, backend) = match three {
            Three::NodeMaterials => ("WebGPURenderer", json!("WebGL2")),
            _ => ("WebGLRenderer", Value::Null),
        };
        assert_eq!(result["renderer"], renderer);
        assert_eq!(result["webgl"]["backend"], backend);
        eprintln!("web: three.js r{revision}, {renderer}");
        assert_browser_result(&result, &table, dir.path(), &one, three);
        match three {
            Three::Newest => newest = result,
            Three::NodeMaterials => assert_node_materials_draw_as_webgl(&result, &newest),
            Three::Oldest => {}
        }
    }
}

/// WebGPURenderer's pictures (`nodes`) as close to its own picture of each source as
/// WebGLRenderer's (`webgl`, the same three.js release) to its own: every variant within 1 dB.
/// Where the plugin adds nothing (the Fox packed by default: no frames, no maps) the two
/// renderers' figures differ by 0.70 dB, three.js' own difference; 1 dB holds that with a
/// margin, and a map drawn wrongly by the node materials (a lost twist, a wrong basis, an
/// unlit anisotropy) costs several dB. The one case left out is the bumpy disc lit
/// anisotropically: three.js' two renderers turn the anisotropy of the source's normal map
/// differently (its source pictures differ by 11.8 dB; WEB.md).
fn assert_node_materials_draw_as_webgl(nodes: &Value, webgl: &Value) {
    let mut compared = 0;
    for c in nodes["renders"].as_array().expect("renders") {
        let case = c["name"].as_str().unwrap_or_default();
        if case == "bumps" {
            continue;
        }
        for v in c["variants"].as_array().expect("variants") {
            let name = v["name"].as_str().unwrap_or_default();
            let (n, w) = (psnr(v), psnr(variant(webgl, case, name)));
            assert!(
                (n - w).abs() <= 1.0,
                "{case} {name}: WebGPURenderer {n:.2} dB, WebGLRenderer {w:.2} dB"
            );
            compared += 1;
        }
    }
    // Every variant WebGLRenderer drew, WebGPURenderer drew (none skipped on r187).
    let count = |r: &Value, skip: &str| -> usize {
        r["renders"].as_array().map_or(0, |cases| {
            cases
                .iter()
                .filter(|c| c["name"] != skip)
                .map(|c| c["variants"].as_array().map_or(0, Vec::len))
                .sum()
        })
    };
    assert_eq!(compared, count(webgl, "bumps"), "variants compared");
    assert_eq!(count(nodes, ""), count(webgl, ""), "variants drawn");
}

/// The variant drawing a packed file's normal maps as engines ship them (KTX2 BC5 through
/// three.js' own KTX2Loader): the yardstick, which three.js reads only from r180.
const ENGINE_VARIANT: &str = "bc5-normal-maps";

/// The two ends of the three.js range qtangent-three supports (`web/package.json`'s peer
/// range; `three` and its `three-oldest` alias are installed side by side).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Three {
    /// `three` itself, the newest supported.
    Newest,
    /// `three-oldest`, the oldest supported.
    Oldest,
    /// `three` with WebGPURenderer (node materials, TSL) and qtangent-three/webgpu's plugin.
    NodeMaterials,
}

impl Three {
    /// `REVISION` of the release.
    fn revision(self) -> &'static str {
        match self {
            Three::Newest | Three::NodeMaterials => "187",
            Three::Oldest => "160",
        }
    }
}

/// Every assertion of the browser test on one run's result.
fn assert_browser_result(
    result: &Value,
    table: &Value,
    dir: &Path,
    one: &[OneCamera; 2],
    three: Three,
) {
    // The figures docs/WEB.md reports (printed first: a failing target still shows them all).
    for c in result["renders"].as_array().expect("renders") {
        for v in c["variants"].as_array().expect("variants") {
            eprintln!(
                "web: {} {}: {:.2} dB ({:.2} dB over the model; {:.2} dB against {}), {} B of frames a vertex",
                c["name"],
                v["name"],
                psnr(v),
                v["psnr"]["model"].as_f64().unwrap_or(f64::INFINITY),
                against(v),
                if v["against"].is_object() { "its pair" } else { "nothing" },
                v["bytes"]["framesPerVertex"]
            );
        }
    }
    eprintln!("web: frame times {}", result["timing"]);
    let nodes = three == Three::NodeMaterials;
    assert_decoders_and_console(
        result,
        table["frames"].as_array().map_or(0, Vec::len),
        nodes,
    );
    assert_identical_pictures(result, nodes);
    // glTF-Transform's functions run in node, once (the WebGL runs).
    if !nodes {
        assert_gltf_transform(result, &dir.join("helmet-transformed.glb"));
    }
    let engine = result["skipped"]
        .as_array()
        .is_none_or(|s| !s.iter().any(|v| v == ENGINE_VARIANT));
    assert_targets(result, engine);
    assert_one_camera(result, one, engine);
    // The viewer is WebGLRenderer's: the WebGL runs draw it.
    assert_eq!(result["viewer"].as_array().map(Vec::is_empty), Some(nodes));
    assert_viewer(result);
}

/// qtangent's renderer on one scene, as the browser sees it: its camera and its figures.
struct OneCamera {
    name: &'static str,
    /// Eye and target, as `render` prints them.
    camera: Vec<f64>,
    /// PSNR (dB) of the BC5 map (`quatmap-tangent`, 4-byte frames) against its reference.
    map: f64,
    /// PSNR (dB) of the reference with its normal maps BC5 as engines ship them.
    bc5: f64,
}

/// `render SCENE --mode all` at the browser's 512², frames as the packed files store them,
/// pictures written into `dir`: the camera it printed and its figures.
fn qtangent_one_camera(dir: &Path, name: &'static str, scene: &Path) -> OneCamera {
    let out = dir.join(format!("qtangent-{name}.png"));
    let args = [
        "render",
        &scene.to_string_lossy(),
        "--size",
        "512x512",
        "--frames",
        "smallest3x4",
        "--time-frames",
        "0",
        "-o",
        &out.to_string_lossy(),
    ];
    let run = common::run_command(&args);
    assert!(
        run.status.success(),
        "render {name}: {}",
        common::stderr(&run)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let camera: Vec<f64> = stdout
        .lines()
        .find_map(|l| l.strip_prefix("camera: "))
        .and_then(|l| l.split_whitespace().next())
        .map(|c| c.split(',').map(|x| x.parse().expect("a number")).collect())
        .unwrap_or_else(|| panic!("render {name} printed no camera:\n{stdout}"));
    let cell = |mode: &str| -> f64 {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(&format!("| {mode} |")))
            .unwrap_or_else(|| panic!("render {name}: no {mode} row in:\n{stdout}"));
        let cell = row.split('|').nth(2).expect("a PSNR cell").trim();
        cell.parse().unwrap_or(f64::INFINITY)
    };
    OneCamera {
        name,
        camera,
        map: cell("quatmap-tangent"),
        bc5: cell("reference, BC5 textures (engine)"),
    }
}

/// Each reader within 1 dB of qtangent's renderer, both against their own picture of the
/// source, from one camera (issue 41): printed for docs/WEB.md.
fn assert_one_camera(result: &Value, one: &[OneCamera; 2], engine: bool) {
    for o in one {
        let three = psnr(variant(result, &format!("{}-camera", o.name), "float-gpu"));
        eprintln!(
            "web: one camera, {}: three.js {three:.2} dB, qtangent's renderer {:.2} dB (its engine BC5 normal maps {:.2}); gap {:.2} dB",
            o.name,
            o.map,
            o.bc5,
            o.map - three
        );
        // Every figure measured: render's rows parsed (a missing or unparsable cell reads as
        // infinite) and the browser's picture not identical to the source's.
        assert!(
            [three, o.map, o.bc5].iter().all(|d| d.is_finite()),
            "one camera, {}: {three} / {} / {} dB",
            o.name,
            o.map,
            o.bc5
        );
        for v in ["float-gpu", ENGINE_VARIANT]
            .into_iter()
            .filter(|v| engine || *v != ENGINE_VARIANT)
        {
            let n = &variant(result, &format!("{}-camera-normals", o.name), v)["normals"];
            let (mean, p95) = (
                n["mean"].as_f64().unwrap_or(f64::NAN),
                n["p95"].as_f64().unwrap_or(f64::NAN),
            );
            eprintln!(
                "web: one camera, {}, three.js' normals, {v}: {mean:.2}° mean, {p95:.2}° p95 from the source's",
                o.name
            );
            // Both files carry the source's frames within a few tenths of a degree and its
            // normal maps within BC5's error (about a degree, docs/MAPS.md); a broken frame (a
            // lost mirror, a swapped or unscaled channel) turns normals by the bumps' own tilt,
            // tens of degrees. 5° mean sits between the two; NaN (no pixels) fails.
            assert!(
                mean < 5.0,
                "one camera, {}, {v}: the composed normal is {mean:.2}° off on average",
                o.name
            );
        }
    }
}

/// `web/serve.mjs` (`cargo xtask web`), the viewer's server, as a user starts it: `--help`, and
/// a missing file, a bad port, an unknown option and a port in use asked for each refused in one
/// line with status 2; the default port taken, it serves on another and says where.
#[test]
fn the_viewer_server_says_what_is_wrong_in_one_line() {
    use std::io::BufRead as _;
    let Some(web) = web_dir() else {
        return;
    };
    let serve = web.join("serve.mjs");
    let run = |args: &[&str]| {
        Command::new("node")
            .arg(&serve)
            .args(args)
            .output()
            .expect("node runs")
    };
    let help = run(&["--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--port"));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = taken.local_addr().expect("its address").port().to_string();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let missing = dir.path().join("missing.glb");
    let missing = missing.to_string_lossy();
    for (args, says) in [
        (vec![&*missing], "no such file or folder"),
        (vec!["--port", "x"], "--port x"),
        (vec!["--bogus"], "unknown option"),
        (vec!["--port", &port], "choose another with --port"),
    ] {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(
            err.trim().lines().count(),
            1,
            "{args:?}: not one line: {err}"
        );
    }
    // The default port (8080) held here, or by something else already: either way taken.
    let _default = std::net::TcpListener::bind("127.0.0.1:8080");
    let mut child = Command::new("node")
        .arg(&serve)
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node runs");
    let mut line = String::new();
    let read = child
        .stdout
        .take()
        .map(|out| std::io::BufReader::new(out).read_line(&mut line));
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        matches!(read, Some(Ok(n)) if n > 0),
        "the server printed nothing"
    );
    assert!(
        line.starts_with("qtangent viewer: http://127.0.0.1:") && !line.contains(":8080/"),
        "{line}"
    );
}

/// `web/test/fixtures/frames.json`, what `npm test` checks the JavaScript decoders and format
/// table against: every Rust format's row (its `_QTANGENT` layout from `Format::from_gltf_layout`)
/// and, per format, the first 32 seeded rotations and every special one of [`test_frames`],
/// both handed, decoded by Rust.
fn npm_fixture() -> Value {
    let layouts: Vec<(u32, usize, bool)> = [5126u32, 5122]
        .into_iter()
        .flat_map(|c| [2usize, 3, 4].map(move |n| (c, n)))
        .flat_map(|(c, n)| [false, true].map(move |b| (c, n, b)))
        .collect();
    let formats: Vec<Value> = Format::ALL
        .iter()
        .enumerate()
        .map(|(code, &f)| {
            let (component_type, item_size, normalized) = layouts
                .iter()
                .copied()
                .find(|&(c, n, b)| Format::from_gltf_layout(c, n, b) == Some(f))
                .expect("every format has a layout");
            json!({
                "name": f.name(), "bytes": f.bytes(), "maxErrorDeg": f.max_error_deg(),
                "componentType": component_type, "itemSize": item_size,
                "normalized": normalized, "code": code,
            })
        })
        .collect();
    let frames: Vec<QTangent> = test_frames()
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i / 2 < 32 || i / 2 >= 400)
        .map(|(_, q)| q)
        .collect();
    json!({ "formats": formats, "frames": frame_rows(&frames) })
}

/// Runs `npm ARGS…` in `dir`, panicking with its output unless it succeeds; its stdout.
fn npm(dir: &Path, args: &[&str]) -> String {
    let run = Command::new("npm")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("npm runs");
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "npm {args:?} in {} failed ({}): {stdout}{}",
        dir.display(),
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

/// qtangent-three's own tests (`npm test`, node, no browser: the decoders bit for bit against
/// the fixture, the format table, the glTF-Transform extension written and read back, every
/// shader patch), on the newest three.js the package supports and again on the oldest
/// (`npm run test:oldest`); and the fixture is what today's Rust decoders give
/// (`QTANGENT_BLESS=1` rewrites it after a deliberate change).
#[test]
fn npm_test_passes_on_the_oldest_and_newest_three_js() {
    let fixture_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/test/fixtures/frames.json");
    let expected = npm_fixture();
    if std::env::var_os("QTANGENT_BLESS").is_some() {
        std::fs::write(&fixture_path, format!("{expected}\n")).expect("write the fixture");
    }
    let committed: Value = serde_json::from_str(
        &std::fs::read_to_string(&fixture_path).expect("web/test/fixtures/frames.json"),
    )
    .expect("the fixture is JSON");
    assert!(
        committed == expected,
        "web/test/fixtures/frames.json is not what the Rust formats give today: rerun this test \
         with QTANGENT_BLESS=1 after a deliberate change to a format"
    );
    let Some(web) = web_dir() else {
        return;
    };
    for (script, release) in [
        (&["test"][..], "r187"),
        (&["run", "test:oldest"][..], "r160"),
    ] {
        let out = npm(&web, script);
        assert!(
            out.contains(&format!("npm test: passed on three.js {release}")),
            "npm {script:?}: {out}"
        );
        assert!(
            out.contains("bit for bit") && out.contains("checks passed"),
            "{out}"
        );
    }
}

/// The package as a user gets it: `npm pack`'s tarball installed into a scratch project (with
/// the peers and TypeScript from the registry), every export of every entry point imported in
/// node and checked by name, and `tsc` on an example using every declaration
/// (`web/test/types/example.ts`, whose `@ts-expect-error` lines must be refused).
#[test]
fn the_package_installs_from_its_tarball_and_its_types_check() {
    let Some(web) = web_dir() else {
        return;
    };
    let scratch = tempfile::tempdir().expect("temporary folder");
    let dir = scratch.path();
    let packed = npm(
        &web,
        &["pack", "--pack-destination", &dir.to_string_lossy()],
    );
    let tarball = dir.join(packed.lines().last().unwrap_or_default().trim());
    assert!(tarball.is_file(), "npm pack wrote {}", tarball.display());
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(web.join("package.json")).expect("web/package.json"),
    )
    .expect("package.json is JSON");
    let dev = |name: &str| {
        manifest["devDependencies"][name]
            .as_str()
            .expect(name)
            .to_owned()
    };
    let project = json!({
        "name": "scratch", "private": true, "type": "module",
        "dependencies": {
            "qtangent-three": format!("file:{}", tarball.display()),
            "three": dev("three"),
            "@gltf-transform/core": dev("@gltf-transform/core"),
            "typescript": dev("typescript"),
            "@types/three": dev("@types/three"),
        },
    });
    std::fs::write(dir.join("package.json"), project.to_string()).expect("write package.json");
    npm(
        dir,
        &["install", "--no-audit", "--no-fund", "--prefer-offline"],
    );
    // The licences travel with the package (`files`).
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let installed = dir.join("node_modules/qtangent-three").join(licence);
        assert!(installed.is_file(), "{} is not in the tarball", licence);
    }
    import_every_export(dir);
    type_check_example_and_readme(&web, dir);
    type_check_under_node10(dir);
}

/// `tsc` with `moduleResolution: node10` (TypeScript's `node`, which reads no `exports`) on
/// every entry point: `typesVersions` maps the subpaths to their declarations. The three.js
/// entries are imported as types only and with `skipLibCheck`: @types/three itself resolves
/// `three/addons/…` and `three/webgpu` only under node16, nodenext or bundler.
fn type_check_under_node10(dir: &Path) {
    let code = "import { FORMATS, formatByName, decodeFrames } from 'qtangent-three';\n\
        import { formatByLayout, type FormatName } from 'qtangent-three/formats';\n\
        import { decodeQTangent } from 'qtangent-three/decode';\n\
        import { QTANGENT_FRAMES, QTangentFrames } from 'qtangent-three/gltf-transform';\n\
        import type { QTangentPlugin, MapDecode } from 'qtangent-three/three';\n\
        import type { QTangentPlugin as NodePlugin } from 'qtangent-three/webgpu';\n\
        const name: FormatName = 'smallest3x4';\n\
        const bytes: number = FORMATS.length + (formatByName(name)?.bytes ?? 0) + (formatByLayout(5122, 4, true)?.bytes ?? 0);\n\
        // @ts-expect-error: a number is not an extension name\n\
        const wrong: typeof QTANGENT_FRAMES = 3;\n\
        export { bytes, wrong, decodeFrames, decodeQTangent, QTangentFrames };\n\
        export type { QTangentPlugin, NodePlugin, MapDecode };\n";
    std::fs::write(dir.join("node10.ts"), code).expect("write node10.ts");
    let config = json!({
        "compilerOptions": {
            "target": "ES2022", "lib": ["ESNext", "DOM"], "module": "ESNext",
            "moduleResolution": "node10", "strict": true, "noEmit": true,
            "skipLibCheck": true, "types": [],
        },
        "files": ["node10.ts"],
    });
    tsc(
        dir,
        "tsconfig.node10.json",
        &config,
        "with moduleResolution node10 on every entry point",
    );
}

/// Writes `config` as `name` in `dir` and runs the installed `tsc -p` on it, panicking with its
/// output (and `what` it checked) unless it passes.
fn tsc(dir: &Path, name: &str, config: &Value, what: &str) {
    std::fs::write(dir.join(name), config.to_string()).expect("write tsconfig");
    let tsc = Command::new(dir.join("node_modules/.bin/tsc"))
        .args(["-p", name])
        .current_dir(dir)
        .output()
        .expect("tsc runs");
    assert!(
        tsc.status.success(),
        "tsc {what}: {}{}",
        String::from_utf8_lossy(&tsc.stdout),
        String::from_utf8_lossy(&tsc.stderr)
    );
}

/// Every export of every entry point of the package installed in `dir`, imported in node and
/// checked by name against the declarations' list.
fn import_every_export(dir: &Path) {
    // Every export, by entry point, as the declarations name them.
    let exports = [
        ("qtangent-three", "FORMATS FLOAT SHORT formatByLayout formatByName decodeFrames decodeQTangent halfToFloat toFrame"),
        ("qtangent-three/formats", "FORMATS FLOAT SHORT formatByLayout formatByName"),
        ("qtangent-three/decode", "decodeFrames decodeQTangent halfToFloat toFrame"),
        ("qtangent-three/three", "EXTENSION MapDecode GLSL_DECODE GLSL_MAP QTangentPlugin patchShader decodeBc5 gpuBytes"),
        ("qtangent-three/webgpu", "QTangentPlugin"),
        ("qtangent-three/gltf-transform", "QTANGENT_FRAMES QTangentPrimitive QTangentMaterial QTangentFrames"),
    ];
    let mut script = String::from("import assert from 'node:assert/strict';\n");
    for (i, (entry, names)) in exports.iter().enumerate() {
        script += &format!(
            "const m{i} = await import('{entry}');\nassert.deepEqual(Object.keys(m{i}).sort(), {:?}.split(' ').sort(), '{entry}');\nfor (const k of Object.keys(m{i})) assert.notEqual(m{i}[k], undefined, '{entry} ' + k);\n",
            names
        );
    }
    script += "console.log('imported every export');\n";
    std::fs::write(dir.join("check.mjs"), script).expect("write check.mjs");
    let run = Command::new("node")
        .arg("check.mjs")
        .current_dir(dir)
        .output()
        .expect("node runs");
    assert!(
        run.status.success(),
        "importing the installed package failed: {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

/// `tsc` in `dir` (the package installed) on `web/test/types/example.ts` and the README's
/// JavaScript snippets (as JavaScript, against the declarations); the decoder snippet, which
/// needs no file or browser, also runs and prints what it says.
fn type_check_example_and_readme(web: &Path, dir: &Path) {
    for file in ["tsconfig.json", "example.ts"] {
        std::fs::copy(web.join("test/types").join(file), dir.join(file)).expect("copy");
    }
    let readme = std::fs::read_to_string(web.join("README.md")).expect("web/README.md");
    let snippets: Vec<&str> = readme
        .split("```js\n")
        .skip(1)
        .filter_map(|s| s.split("```").next())
        .collect();
    assert!(
        snippets.len() >= 3,
        "the README's js snippets: {}",
        snippets.len()
    );
    let mut files = vec![json!("example.ts")];
    for (i, code) in snippets.iter().enumerate() {
        let name = format!("readme-{i}.mjs");
        std::fs::write(dir.join(&name), code).expect("write snippet");
        files.push(json!(name));
    }
    let mut config: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("tsconfig.json")).expect("tsconfig.json"),
    )
    .expect("tsconfig.json is JSON");
    config["files"] = Value::Array(files);
    config["compilerOptions"]["allowJs"] = json!(true);
    config["compilerOptions"]["checkJs"] = json!(true);
    tsc(
        dir,
        "tsconfig.json",
        &config,
        "on the example and the README's snippets against the installed declarations",
    );
    let (i, decoders) = snippets
        .iter()
        .enumerate()
        .find(|(_, c)| c.contains("decodeFrames("))
        .expect("the README's decoder snippet");
    let printed = decoders
        .lines()
        .find_map(|l| l.split("// ").nth(1))
        .expect("the snippet says what it prints");
    let run = Command::new("node")
        .arg(format!("readme-{i}.mjs"))
        .current_dir(dir)
        .output()
        .expect("node runs");
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).trim(),
        printed.trim(),
        "the README's decoder snippet: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}
