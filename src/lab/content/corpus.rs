//! glTF files made here for what the real assets (FlightHelmet, the Fox, SimpleSkin) lack, so
//! that `pack` is judged on the shapes real files take: a morphing mesh with a `weights`
//! animation (POSITION, NORMAL, TANGENT and TEXCOORD_0 deltas, two primitives), a scene whose
//! primitives share vertex data (27 primitives on 10 position/index sets, nine of them on one),
//! an untextured torus that still carries UVs, and a torus drawn three times through
//! EXT_mesh_gpu_instancing. Every file is written through the crate's one glTF writer, as a
//! `.gltf` with its `.bin`; each is valid glTF (the corpus test asks Khronos' validator).

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use serde_json::{json, Value};

use crate::gltf::{Builder, Target};
use crate::lab::LabError;
use crate::mesh::Primitive;

/// The corpus files, by name (`morph.gltf`, …), as `write` writes them.
const FILES: [&str; 6] = [
    "morph.gltf",
    "shared.gltf",
    "untextured-torus.gltf",
    "instanced.gltf",
    "ribbed.gltf",
    "lamp.gltf",
];

/// Writes every corpus file (`morph.gltf`, `shared.gltf`, `untextured-torus.gltf`,
/// `instanced.gltf`, `ribbed.gltf`, `lamp.gltf`) into `dir` (which must exist); returns their
/// paths.
///
/// # Errors
/// [`LabError::Write`] naming a file that cannot be written.
pub(super) fn write(dir: &Path) -> Result<Vec<PathBuf>, LabError> {
    let docs = [
        morph(),
        shared(),
        untextured_torus(),
        instanced(),
        super::ribbed::ribbed(),
        super::lamp::lamp(),
    ];
    FILES
        .iter()
        .zip(docs)
        .map(|(name, b)| {
            let path = dir.join(name);
            b.write_gltf(&path)?;
            Ok(path)
        })
        .collect()
}

/// `img` as a PNG image embedded in the buffer, and a texture of it; returns the texture's
/// index.
pub(super) fn png_texture(b: &mut Builder, name: &str, img: &image::RgbaImage) -> usize {
    let mut png = Vec::new();
    // Encoding an RGBA8 image into memory cannot fail.
    let _ = img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png);
    let view = b.view(&png, None, None);
    let image = b.push(
        "images",
        json!({ "name": name, "bufferView": view, "mimeType": "image/png" }),
    );
    b.push("textures", json!({ "source": image }))
}

/// Adds `p` (with its UVs) as mesh `name` of one primitive drawn with `material`, under a root
/// node of that name whose other fields are `place`'s (translation, rotation).
pub(super) fn object(b: &mut Builder, name: &str, p: &Primitive, material: usize, place: Value) {
    let (attributes, indices) = primitive_accessors(b, p, true);
    let mesh = b.push(
        "meshes",
        json!({ "name": name, "primitives": [
            { "attributes": attributes, "indices": indices, "material": material }
        ] }),
    );
    let mut node = json!({ "name": name, "mesh": mesh });
    if let (Some(n), Some(extra)) = (node.as_object_mut(), place.as_object()) {
        n.extend(extra.clone());
    }
    root(b, node);
}

/// A builder with an empty scene.
pub(super) fn document() -> Builder {
    Builder::new(json!({
        "asset": { "version": "2.0", "generator": "qtangent lab corpus" },
        "scene": 0, "scenes": [{ "nodes": [] }], "nodes": [], "meshes": [],
    }))
}

/// Adds a root node holding `node`'s JSON; returns its index.
pub(super) fn root(b: &mut Builder, node: Value) -> usize {
    let n = b.push("nodes", node);
    if let Some(list) = b.json["scenes"][0]["nodes"].as_array_mut() {
        list.push(json!(n));
    }
    n
}

fn vec3s(v: &[Vec3]) -> Vec<[f32; 3]> {
    v.iter().map(|p| p.to_array()).collect()
}

/// Position, normal, UV and index accessors of `p` (vertex data a source file would hold as
/// f32); returns the attributes and the index accessor.
pub(super) fn primitive_accessors(b: &mut Builder, p: &Primitive, uvs: bool) -> (Value, usize) {
    let vertex = Some(Target::ArrayBuffer);
    let position = b.positions(&vec3s(&p.positions));
    let mut attrs = json!({ "POSITION": position });
    if let Some(n) = &p.normals {
        attrs["NORMAL"] = json!(b.floats(&vec3s(n), vertex));
    }
    if let Some(uv) = p.uvs.as_ref().filter(|_| uvs) {
        let uv: Vec<[f32; 2]> = uv.iter().map(|v| v.to_array()).collect();
        attrs["TEXCOORD_0"] = json!(b.floats(&uv, vertex));
    }
    (attrs, b.indices(&p.indices))
}

/// A 4×4 PNG checker (the texture that makes UVs read).
fn checker_png() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(4, 4, |x, y| {
        if (x + y) % 2 == 0 {
            image::Rgba([230, 230, 230, 255])
        } else {
            image::Rgba([40, 90, 200, 255])
        }
    });
    let mut bytes = Vec::new();
    // Encoding a 4×4 image into memory cannot fail.
    let _ = img.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    );
    bytes
}

/// A material with the checker as its base colour: the only index of `materials`.
fn textured_material(b: &mut Builder) -> usize {
    let png = checker_png();
    let view = b.view(&png, None, None);
    let image = b.push(
        "images",
        json!({ "bufferView": view, "mimeType": "image/png" }),
    );
    let texture = b.push("textures", json!({ "source": image }));
    b.push(
        "materials",
        json!({ "name": "checker", "pbrMetallicRoughness": { "baseColorTexture": { "index": texture } } }),
    )
}

/// A grid of `n × n` quads over [−1, 1]² at z = 0, facing +z, UVs over [0, 1]².
pub(super) fn grid(n: u32) -> Primitive {
    let mut p = Primitive::default();
    let side = n + 1;
    for j in 0..side {
        for i in 0..side {
            let uv = Vec2::new(i as f32, j as f32) / n as f32;
            p.positions
                .push(Vec3::new(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 0.0));
        }
    }
    let uvs: Vec<Vec2> = p
        .positions
        .iter()
        .map(|q| Vec2::new((q.x + 1.0) / 2.0, (1.0 - q.y) / 2.0))
        .collect();
    p.uvs = Some(uvs);
    p.normals = Some(vec![Vec3::Z; p.positions.len()]);
    for j in 0..n {
        for i in 0..n {
            let a = j * side + i;
            p.indices
                .extend_from_slice(&[a, a + side, a + 1, a + 1, a + side, a + side + 1]);
        }
    }
    p
}

/// The morph deltas of a grid vertex at `q` (on the plane z = 0): a bump (target 0: positions
/// and normals) and a shear along x that turns the tangent (target 1: positions, normals,
/// tangents and UVs).
fn morph_deltas(q: Vec3) -> [(Vec3, Vec3, Vec3, Vec2); 2] {
    // Bump z = h·exp(−r²/s²): its normal is normalize(−∇z, 1).
    let (h, s2) = (0.5, 0.3);
    let z = h * (-(q.x * q.x + q.y * q.y) / s2).exp();
    let grad = Vec2::new(q.x, q.y) * (-2.0 * z / s2);
    let bump_normal = Vec3::new(-grad.x, -grad.y, 1.0).normalize();
    // Shear x += k·y tilts the surface nowhere (it stays in z = 0), but turns the u direction
    // of the UVs: the tangent delta, with the UVs stretched along v.
    let k = 0.4;
    let sheared_tangent = Vec3::new(1.0, 0.0, 0.0);
    let tangent_turned = Vec3::new(1.0, k, 0.0).normalize();
    [
        (
            Vec3::new(0.0, 0.0, z),
            bump_normal - Vec3::Z,
            Vec3::ZERO,
            Vec2::ZERO,
        ),
        (
            Vec3::new(k * q.y, 0.0, 0.0),
            Vec3::ZERO,
            tangent_turned - sheared_tangent,
            Vec2::new(0.0, 0.1 * q.x),
        ),
    ]
}

/// `morph.gltf`: one mesh of two primitives (a textured 8 × 8 grid and an untextured 4 × 4
/// one beside it) with two morph targets each, `mesh.weights` (0.3, 0), and an animation of
/// the weights over two seconds.
fn morph() -> Builder {
    let mut b = document();
    let material = textured_material(&mut b);
    let vertex = Some(Target::ArrayBuffer);
    let mut primitives = Vec::new();
    for (n, offset, textured) in [(8, 0.0, true), (4, 2.5, false)] {
        let mut p = grid(n);
        for q in &mut p.positions {
            q.x += offset;
        }
        let tangents: Vec<[f32; 4]> = vec![[1.0, 0.0, 0.0, 1.0]; p.positions.len()];
        let (mut attrs, indices) = primitive_accessors(&mut b, &p, true);
        attrs["TANGENT"] = json!(b.floats(&tangents, vertex));
        let deltas: Vec<[(Vec3, Vec3, Vec3, Vec2); 2]> = p
            .positions
            .iter()
            .map(|q| morph_deltas(*q - Vec3::X * offset))
            .collect();
        let mut targets = Vec::new();
        for t in 0..2 {
            let pos: Vec<[f32; 3]> = deltas.iter().map(|d| d[t].0.to_array()).collect();
            let nor: Vec<[f32; 3]> = deltas.iter().map(|d| d[t].1.to_array()).collect();
            let mut target = json!({
                "POSITION": b.positions(&pos),
                "NORMAL": b.floats(&nor, vertex),
            });
            if t == 1 {
                let tan: Vec<[f32; 3]> = deltas.iter().map(|d| d[t].2.to_array()).collect();
                let uv: Vec<[f32; 2]> = deltas.iter().map(|d| d[t].3.to_array()).collect();
                target["TANGENT"] = json!(b.floats(&tan, vertex));
                target["TEXCOORD_0"] = json!(b.floats(&uv, vertex));
            }
            targets.push(target);
        }
        let mut prim = json!({ "attributes": attrs, "indices": indices, "targets": targets });
        if textured {
            prim["material"] = json!(material);
        }
        primitives.push(prim);
    }
    let mesh = b.push(
        "meshes",
        json!({ "name": "morphing grid", "primitives": primitives, "weights": [0.3, 0.0] }),
    );
    let node = root(
        &mut b,
        json!({ "name": "morph", "mesh": mesh, "translation": [0.0, 0.0, 0.5] }),
    );
    let times = b.floats(&[[0.0f32], [1.0], [2.0]], None);
    b.json["accessors"][times]["min"] = json!([0.0]);
    b.json["accessors"][times]["max"] = json!([2.0]);
    let weights = b.floats(&[[0.0f32], [0.0], [1.0], [0.0], [0.5], [1.0]], None);
    b.push(
        "animations",
        json!({
            "name": "morph",
            "samplers": [{ "input": times, "output": weights, "interpolation": "LINEAR" }],
            "channels": [{ "sampler": 0, "target": { "node": node, "path": "weights" } }],
        }),
    );
    b
}

/// `shared.gltf`: 10 position/index sets (tori of different sizes) and 27 primitives on them:
/// sets 1–9 drawn twice each by meshes of their own (another material each time), and nine
/// primitives of one mesh on set 0, each with a material of its own (untextured).
fn shared() -> Builder {
    let mut b = document();
    let sets: Vec<(Value, usize)> = (0..10)
        .map(|k| {
            let t = Primitive::torus(0.5 + 0.05 * k as f32, 0.15, 24 + 2 * k, 12);
            primitive_accessors(&mut b, &t, true)
        })
        .collect();
    let material = |b: &mut Builder, k: usize| {
        let c = [
            0.2 + 0.08 * (k % 10) as f32,
            0.5,
            0.9 - 0.08 * (k % 10) as f32,
            1.0,
        ];
        b.push(
            "materials",
            json!({ "name": format!("colour {k}"), "pbrMetallicRoughness": { "baseColorFactor": c } }),
        )
    };
    let mut k = 0;
    let mut nine = Vec::new();
    for _ in 0..9 {
        let m = material(&mut b, k);
        k += 1;
        let (attrs, indices) = sets[0].clone();
        nine.push(json!({ "attributes": attrs, "indices": indices, "material": m }));
    }
    let mesh = b.push(
        "meshes",
        json!({ "name": "nine on one set", "primitives": nine }),
    );
    root(&mut b, json!({ "mesh": mesh }));
    for (s, (attrs, indices)) in sets.iter().enumerate().skip(1) {
        for copy in 0..2 {
            let m = material(&mut b, k);
            k += 1;
            let prim = json!({ "attributes": attrs, "indices": indices, "material": m });
            let mesh = b.push(
                "meshes",
                json!({ "name": format!("set {s} copy {copy}"), "primitives": [prim] }),
            );
            let at = [1.5 * s as f32, 1.5 * copy as f32, 0.0];
            root(&mut b, json!({ "mesh": mesh, "translation": at }));
        }
    }
    b
}

/// `untextured-torus.gltf`: positions, normals and UVs, a material with no texture (the UVs
/// nothing reads).
fn untextured_torus() -> Builder {
    let mut b = document();
    let t = Primitive::torus(1.0, 0.4, 96, 48);
    let (attrs, indices) = primitive_accessors(&mut b, &t, true);
    let m = b.push(
        "materials",
        json!({ "name": "plain", "pbrMetallicRoughness": { "baseColorFactor": [0.8, 0.3, 0.2, 1.0] } }),
    );
    let mesh = b.push(
        "meshes",
        json!({ "name": "torus", "primitives": [{ "attributes": attrs, "indices": indices, "material": m }] }),
    );
    root(&mut b, json!({ "mesh": mesh }));
    b
}

/// `instanced.gltf`: a torus drawn three times through EXT_mesh_gpu_instancing (translations,
/// rotations, a uniform and a non-uniform scale), with the checker on it, under a node that
/// moves it.
fn instanced() -> Builder {
    let mut b = document();
    let t = Primitive::torus(0.75, 0.3, 48, 24);
    let material = textured_material(&mut b);
    let (attrs, indices) = primitive_accessors(&mut b, &t, true);
    let translations = b.floats(
        &[[-2.2f32, 0.0, 0.0], [0.0, 0.0, 0.0], [2.2, 0.0, 0.0]],
        None,
    );
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let rotations = b.floats(
        &[
            [0.0f32, 0.0, 0.0, 1.0],
            [0.0, half, 0.0, half],
            [half, 0.0, 0.0, half],
        ],
        None,
    );
    let scales = b.floats(&[[1.0f32; 3], [0.5, 0.5, 0.5], [1.5, 1.0, 0.75]], None);
    let mesh = b.push(
        "meshes",
        json!({ "name": "torus", "primitives": [{ "attributes": attrs, "indices": indices, "material": material }] }),
    );
    let attributes = json!({ "TRANSLATION": translations, "ROTATION": rotations, "SCALE": scales });
    let instancing = json!({ "EXT_mesh_gpu_instancing": { "attributes": attributes } });
    let place = json!({ "mesh": mesh, "extensions": instancing, "translation": [0.0, 1.0, 0.0] });
    root(&mut b, place);
    b.json["extensionsUsed"] = json!(["EXT_mesh_gpu_instancing"]);
    b
}
