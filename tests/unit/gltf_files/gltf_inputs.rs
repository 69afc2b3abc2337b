//! Valid glTF (and OBJ) that the loaders must take: KHR_mesh_quantization, points and lines
//! beside triangles, zero or non-finite normals, the compression extensions (refused by name),
//! OBJ errors with line numbers, an empty scene, `_`-prefixed attributes, KHR_texture_transform.
//! Every file is written by the test.

use crate::common::write_text as obj;
use std::path::Path;

use glam::{Vec2, Vec3, Vec4};
use qtangent::mesh::{self, ErrorKind, Scene, TextureTransform};
use qtangent::WarningKind;
use serde_json::{json, Value};

use crate::common::U;
use crate::gltf_files::gltf_build::GltfBuild;

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("cannot make a temporary folder: {e}"))
}

fn load(path: &Path) -> Scene {
    let scene = mesh::load(path).unwrap_or_else(|e| panic!("{e}"));
    scene
        .prepare()
        .unwrap_or_else(|e| panic!("{}: prepare: {e}", path.display()));
    scene
}

fn load_err(path: &Path) -> String {
    match mesh::load(path) {
        Ok(_) => panic!("{} loaded, expected an error", path.display()),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "one line: {msg}");
            let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("?");
            assert!(msg.contains(file), "names the file: {msg}");
            msg
        }
    }
}

/// The scene's warnings, one line each as the tools print them.
fn lines(scene: &Scene) -> Vec<String> {
    scene.warnings.iter().map(ToString::to_string).collect()
}

/// Panics (listing the warnings) unless one of the scene's warnings contains `needle`.
fn assert_warning(scene: &Scene, needle: &str) {
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.to_string().contains(needle)),
        "no warning contains {needle:?}: {:?}",
        scene.warnings
    );
}

/// A 3×3 grid on the saddle z = 0.5 + 0.2·x·y, x ∈ [−1.3, 2.1], y ∈ [0.4, 1.9]: positions,
/// analytic unit normals (−0.2y, −0.2x, 1)/‖·‖ and tangents ∂P/∂x = (1, 0, 0.2y)/‖·‖ with w
/// alternating ±1, UVs in [0.1, 0.9], and 8 triangles.
struct Patch {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    tangents: Vec<Vec4>,
    uvs: Vec<Vec2>,
    indices: Vec<u16>,
}

fn patch() -> Patch {
    let mut p = Patch {
        positions: Vec::new(),
        normals: Vec::new(),
        tangents: Vec::new(),
        uvs: Vec::new(),
        indices: Vec::new(),
    };
    for j in 0..3 {
        for i in 0..3 {
            let (x, y) = (-1.3 + 1.7 * i as f32, 0.4 + 0.75 * j as f32);
            p.positions.push(Vec3::new(x, y, 0.5 + 0.2 * x * y));
            p.normals
                .push(Vec3::new(-0.2 * y, -0.2 * x, 1.0).normalize());
            let w = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
            p.tangents
                .push(Vec3::new(1.0, 0.0, 0.2 * y).normalize().extend(w));
            p.uvs
                .push(Vec2::new(0.1 + 0.4 * i as f32, 0.1 + 0.4 * j as f32));
        }
    }
    for j in 0..2u16 {
        for i in 0..2u16 {
            let v = j * 3 + i;
            p.indices.extend([v, v + 1, v + 4, v, v + 4, v + 3]);
        }
    }
    p
}

/// A component type of KHR_mesh_quantization.
#[derive(Clone, Copy, Debug)]
struct Quant {
    component: u32,
    normalized: bool,
    qmax: f64,
    signed: bool,
    bytes: usize,
}

const I8N: Quant = Quant {
    component: 5120,
    normalized: true,
    qmax: 127.0,
    signed: true,
    bytes: 1,
};
const U8: Quant = Quant {
    component: 5121,
    normalized: false,
    qmax: 255.0,
    signed: false,
    bytes: 1,
};
const I16: Quant = Quant {
    component: 5122,
    normalized: false,
    qmax: 32767.0,
    signed: true,
    bytes: 2,
};
const I16N: Quant = Quant {
    normalized: true,
    ..I16
};
const U16: Quant = Quant {
    component: 5123,
    normalized: false,
    qmax: 65535.0,
    signed: false,
    bytes: 2,
};
const U16N: Quant = Quant {
    normalized: true,
    ..U16
};

impl Quant {
    fn encode(self, q: &[i64]) -> Vec<u8> {
        q.iter()
            .flat_map(|&v| match (self.bytes, self.signed) {
                (1, true) => (v as i8).to_le_bytes().to_vec(),
                (1, false) => (v as u8).to_le_bytes().to_vec(),
                (_, true) => (v as i16).to_le_bytes().to_vec(),
                (_, false) => (v as u16).to_le_bytes().to_vec(),
            })
            .collect()
    }

    /// What the loader reads for `q` (glTF 2.0 §3.11), as f32.
    fn decode(self, q: i64) -> f32 {
        if self.normalized {
            (q as f32 / self.qmax as f32).max(-1.0)
        } else {
            q as f32
        }
    }
}

/// Positions quantised the way gltfpack does it: the integers in the mesh, the dequantisation
/// in the node (translation `t`, uniform scale `s`), world = t + s·decode(q).
struct Quantised {
    q: Vec<[i64; 3]>,
    t: Vec3,
    s: f32,
    /// World units per integer step.
    step: f64,
}

fn quantise_positions(p: &[Vec3], quant: Quant) -> Quantised {
    let lo = p.iter().fold(Vec3::splat(f32::MAX), |a, &b| a.min(b));
    let hi = p.iter().fold(Vec3::splat(f32::MIN), |a, &b| a.max(b));
    // Signed types centre the box on 0, unsigned put its corner there; the widening by 1e-6
    // keeps every rounded integer inside the type's range after s is rounded to f32.
    let (t, reach) = if quant.signed {
        ((lo + hi) * 0.5, f64::from((hi - lo).max_element()) * 0.5)
    } else {
        (lo, f64::from((hi - lo).max_element()))
    };
    let reach = reach * (1.0 + 1e-6);
    let s = if quant.normalized {
        reach as f32
    } else {
        (reach / quant.qmax) as f32
    };
    let step = if quant.normalized {
        f64::from(s) / quant.qmax
    } else {
        f64::from(s)
    };
    let q = p
        .iter()
        .map(|&v| {
            let d = (v - t).as_dvec3() / step;
            let q = [d.x.round() as i64, d.y.round() as i64, d.z.round() as i64];
            for c in q {
                let min = if quant.signed { -quant.qmax } else { 0.0 };
                assert!((min..=quant.qmax).contains(&(c as f64)), "{c} out of range");
            }
            q
        })
        .collect();
    Quantised { q, t, s, step }
}

fn quantise_unit(v: &[f32], quant: Quant) -> Vec<i64> {
    v.iter()
        .map(|&c| (f64::from(c) * quant.qmax).round() as i64)
        .collect()
}

/// Angle between two vectors, radians, in f64 (atan2 of |a × b| and a · b).
fn angle(a: Vec3, b: Vec3) -> f64 {
    let (a, b) = (a.as_dvec3(), b.as_dvec3());
    a.cross(b).length().atan2(a.dot(b))
}

/// The same patch five ways — positions int16 and uint16, normalised and not, and uint16 with
/// one vertex supplied by a sparse part — plus int8 normalised and uint8 positions; int8
/// normalised normals and tangents and uint16 normalised UVs shared by all.
#[test]
fn quantised_attributes_dequantise_through_the_node_transform() {
    let dir = tempdir();
    let patch = patch();
    let mut b = GltfBuild::default();
    b.json["extensionsUsed"] = json!(["KHR_mesh_quantization"]);
    b.json["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    // Normals and tangents int8 normalised, UVs uint16 normalised; every element padded to 4
    // bytes (a VEC3 of bytes is 3).
    let mut unit = |data: Vec<f32>, quant: Quant, ty: &str, dims: usize| {
        let q = quantise_unit(&data, quant);
        let elems: Vec<Vec<u8>> = q.chunks(dims).map(|c| quant.encode(c)).collect();
        let view = b.strided_view(&elems, (dims * quant.bytes).next_multiple_of(4));
        b.push(
            "accessors",
            json!({"bufferView": view, "componentType": quant.component, "normalized": true,
                   "count": elems.len(), "type": ty}),
        )
    };
    let normals = unit(
        patch.normals.iter().flat_map(|v| v.to_array()).collect(),
        I8N,
        "VEC3",
        3,
    );
    let tangents = unit(
        patch.tangents.iter().flat_map(|v| v.to_array()).collect(),
        I8N,
        "VEC4",
        4,
    );
    let uvs = unit(
        patch.uvs.iter().flat_map(|v| v.to_array()).collect(),
        U16N,
        "VEC2",
        2,
    );
    let indices = b.indices(&patch.indices);

    let expected = quantised_meshes(&mut b, &patch, [normals, tangents, uvs, indices]);
    let path = b.write_gltf(dir.path(), "quantised");
    let scene = load(&path);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);

    check_dequantised_positions(&scene, &patch, &expected);

    // int8 normalised normals and tangents: every component is within half a step, 0.5/127,
    // of the original (plus U from the division), so the error vector has length at most
    // √3·0.5/127 and, against a unit vector, the angle at most asin(√3/254) ≈ 0.39°.
    let bound = (3f64.sqrt() / 254.0).asin() + 1e-6;
    let prim = &scene.meshes[0].primitives[0];
    let normals = prim.normals.as_ref().expect("normals");
    let tangents = prim.tangents.as_ref().expect("tangents");
    let read_uvs = prim.uvs.as_ref().expect("uvs");
    for i in 0..9 {
        let a = angle(normals[i], patch.normals[i]);
        assert!(a <= bound, "normal {i}: {a} rad > {bound}");
        let a = angle(tangents[i].truncate(), patch.tangents[i].truncate());
        assert!(a <= bound, "tangent {i}: {a} rad > {bound}");
        assert_eq!(tangents[i].w, patch.tangents[i].w, "handedness {i}");
        // uint16 normalised: within half a step, 0.5/65535, plus U from the division.
        let err = (read_uvs[i] - patch.uvs[i]).abs().max_element();
        assert!(err <= 0.5 / 65535.0 + U, "uv {i}: error {err:e}");
    }
}

/// One mesh per position quantisation (int16 and uint16, normalised and not, uint16 with one
/// vertex in a sparse part, int8 normalised, uint8), each placed by a node that dequantises it
/// and sharing the other accessors (`shared`: NORMAL, TANGENT, TEXCOORD_0, indices).
fn quantised_meshes(
    b: &mut GltfBuild,
    patch: &Patch,
    shared: [usize; 4],
) -> Vec<(&'static str, Quant, Quantised)> {
    let [normals, tangents, uvs, indices] = shared;
    let variants = [
        ("i16n", I16N, false),
        ("i16", I16, false),
        ("u16n", U16N, false),
        ("u16", U16, false),
        ("u16 sparse", U16, true),
        ("i8n", I8N, false),
        ("u8", U8, false),
    ];
    let mut expected = Vec::new();
    for (name, quant, sparse) in variants {
        let qp = quantise_positions(&patch.positions, quant);
        let stride = (3 * quant.bytes).next_multiple_of(4);
        let mut base = qp.q.clone();
        if sparse {
            base[4] = [0; 3]; // the sparse part supplies vertex 4
        }
        let elems: Vec<Vec<u8>> = base.iter().map(|q| quant.encode(q)).collect();
        let view = b.strided_view(&elems, stride);
        let lo: Vec<i64> = (0..3)
            .map(|c| qp.q.iter().map(|q| q[c]).min().unwrap_or(0))
            .collect();
        let hi: Vec<i64> = (0..3)
            .map(|c| qp.q.iter().map(|q| q[c]).max().unwrap_or(0))
            .collect();
        let mut acc = json!({"bufferView": view, "componentType": quant.component,
                             "count": 9, "type": "VEC3", "min": lo, "max": hi});
        if quant.normalized {
            acc["normalized"] = json!(true);
        }
        if sparse {
            let iv = b.view(&[4u8], None);
            let vv = b.view(&quant.encode(&qp.q[4]), None);
            acc["sparse"] = json!({"count": 1,
                "indices": {"bufferView": iv, "componentType": 5121},
                "values": {"bufferView": vv}});
        }
        let position = b.push("accessors", acc);
        b.mesh(
            name,
            json!([{"attributes": {"POSITION": position, "NORMAL": normals, "TANGENT": tangents,
                                   "TEXCOORD_0": uvs}, "indices": indices}]),
            json!({"translation": qp.t.to_array(), "scale": [qp.s, qp.s, qp.s]}),
        );
        expected.push((name, quant, qp));
    }
    expected
}

/// Every mesh of [`quantised_meshes`], placed by its node, is where the patch is, to the
/// quantisation step; the mesh keeps the integers.
fn check_dequantised_positions(
    scene: &Scene,
    patch: &Patch,
    expected: &[(&'static str, Quant, Quantised)],
) {
    for (m, (name, quant, qp)) in expected.iter().enumerate() {
        let mesh = &scene.meshes[m];
        let prim = &mesh.primitives[0];
        let world = mesh.instances[0].world;
        for (i, (&orig, &got)) in patch.positions.iter().zip(&prim.positions).enumerate() {
            let world_pos = world.transform_point3(got);
            for c in 0..3 {
                // Rounding to the nearest integer leaves |p − (t + s·decode(q))| ≤ step/2 in
                // exact arithmetic. In f32 the loader's decode (q/qmax, normalised only), the
                // scale's product and the translation's sum each round once, by at most
                // U·|value|: 3U(|t| + |s·v|) bounds them; 4U leaves room for the rounding of
                // t and s themselves when written to and read from JSON (already f32 values,
                // so exact in practice).
                let v = quant.decode(qp.q[i][c]);
                let tol = qp.step / 2.0
                    + 4.0 * f64::from(U) * f64::from(qp.t[c].abs() + (qp.s * v).abs());
                let err = f64::from((world_pos[c] - orig[c]).abs());
                assert!(
                    err <= tol,
                    "{name}: vertex {i} component {c}: {} vs {}, error {err:e} > {tol:e}",
                    world_pos[c],
                    orig[c]
                );
            }
            // The mesh itself keeps the integers as read (the node does the dequantisation).
            assert_eq!(got[0], quant.decode(qp.q[i][0]), "{name}: vertex {i}");
        }
    }
}

/// An accessor with no buffer view is all zeros (glTF 2.0 §3.6.2.4); with a sparse part, the
/// sparse values replace some of the zeros.
#[test]
fn accessors_without_a_buffer_view_read_as_zeros() {
    let dir = tempdir();
    let mut b = GltfBuild::default();
    let iv = b.view(bytemuck::cast_slice(&[1u16, 2]), None);
    let vv = b.view(
        bytemuck::cast_slice(&[1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0]),
        None,
    );
    let position = b.push(
        "accessors",
        json!({"componentType": 5126, "count": 3, "type": "VEC3",
               "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0],
               "sparse": {"count": 2, "indices": {"bufferView": iv, "componentType": 5123},
                          "values": {"bufferView": vv}}}),
    );
    let uvs = b.push(
        "accessors",
        json!({"componentType": 5126, "count": 3, "type": "VEC2"}),
    );
    b.mesh(
        "Zeros",
        json!([{"attributes": {"POSITION": position, "TEXCOORD_0": uvs}}]),
        json!({}),
    );
    let scene = load(&b.write_gltf(dir.path(), "zeros"));
    let p = &scene.meshes[0].primitives[0];
    assert_eq!(p.positions, vec![Vec3::ZERO, Vec3::X, Vec3::Y]);
    assert_eq!(p.uvs, Some(vec![Vec2::ZERO; 3]));
}

/// One triangle (float positions, accessor 0) with `mode` and indices `0 1 2` (accessor 1).
fn one_primitive(b: &mut GltfBuild, mode: u32) -> Value {
    if b.json["accessors"].as_array().is_none_or(Vec::is_empty) {
        b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3", true);
        b.indices(&[0, 1, 2]);
    }
    json!({"attributes": {"POSITION": 0}, "indices": 1, "mode": mode})
}

#[test]
fn points_and_lines_beside_triangles_are_skipped() {
    let dir = tempdir();
    let mut b = GltfBuild::default();
    // Mesh 'Mixed': LINES, TRIANGLES, POINTS; mesh 'Wire': a LINE_STRIP only.
    let prims = json!([
        one_primitive(&mut b, 1),
        one_primitive(&mut b, 4),
        one_primitive(&mut b, 0)
    ]);
    b.mesh("Mixed", prims, json!({}));
    let wire = json!([one_primitive(&mut b, 3)]);
    b.mesh("Wire", wire, json!({}));
    let path = b.write_gltf(dir.path(), "mixed");
    let scene = load(&path);
    assert_eq!(
        lines(&scene),
        vec![
            "mesh 'Mixed' primitive 0: LINES skipped (only triangles are drawn)",
            "mesh 'Mixed' primitive 2: POINTS skipped (only triangles are drawn)",
            "mesh 'Wire' primitive 0: LINE_STRIP skipped (only triangles are drawn)",
        ]
    );
    // The triangles keep their glTF primitive index; the line-only mesh stays, empty, so mesh
    // indices still match the file.
    assert_eq!(scene.meshes.len(), 2);
    assert_eq!(scene.meshes[0].primitives.len(), 1);
    assert_eq!(scene.meshes[0].primitives[0].source_index, Some(1));
    assert!(scene.meshes[1].primitives.is_empty());
    // The stages after loading take a mesh with no primitives.
    let render = qtangent::render::RenderScene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(render.meshes.len(), 1);
    let err = qtangent::qmap::BakeJob::from_scene(&scene, None, &mut ())
        .expect_err("no UVs, nothing to bake");
    assert!(err.to_string().contains("nothing to bake"), "{err}");

    // Five skipped primitives are summarised in one line.
    let mut b = GltfBuild::default();
    let mut prims: Vec<Value> = (0..5).map(|_| one_primitive(&mut b, 1)).collect();
    prims.push(one_primitive(&mut b, 4));
    b.mesh("Many", json!(prims), json!({}));
    let scene = load(&b.write_gltf(dir.path(), "many"));
    assert!(matches!(
        scene.warnings[0].kind(),
        WarningKind::PrimitivesSkipped { count: 5, .. }
    ));
    assert_eq!(
        lines(&scene),
        vec![
            "5 primitives skipped (only triangles are drawn): mesh 'Many' primitive 0 (LINES), \
             mesh 'Many' primitive 1 (LINES), mesh 'Many' primitive 2 (LINES), and 2 more"
        ]
    );

    // Nothing but lines and points.
    let mut b = GltfBuild::default();
    let prims = json!([one_primitive(&mut b, 1), one_primitive(&mut b, 0)]);
    b.mesh("Lines", prims, json!({}));
    let msg = load_err(&b.write_gltf(dir.path(), "lines"));
    assert!(
        msg.ends_with("no triangles at all: 2 primitive(s) skipped (LINES, POINTS)"),
        "{msg}"
    );
}

/// The angle-weighted normal of vertex `v`, computed here in f64 over every triangle whose
/// corner is in `group` (the vertices that share `v`'s smoothing id).
fn angle_weighted(positions: &[Vec3], indices: &[u32], group: &[u32]) -> Vec3 {
    let mut sum = glam::DVec3::ZERO;
    for tri in indices.chunks_exact(3) {
        let p = [0, 1, 2].map(|k| positions[tri[k] as usize].as_dvec3());
        let face = (p[1] - p[0]).cross(p[2] - p[0]).normalize();
        for k in 0..3 {
            if group.contains(&tri[k]) {
                let e1 = p[(k + 1) % 3] - p[k];
                let e2 = p[(k + 2) % 3] - p[k];
                sum += face * e1.angle_between(e2);
            }
        }
    }
    sum.normalize().as_vec3()
}

/// The same, weighted by area instead: a different rule, to show the bound below tells them
/// apart.
fn area_weighted(positions: &[Vec3], indices: &[u32], group: &[u32]) -> Vec3 {
    let mut sum = glam::DVec3::ZERO;
    for tri in indices
        .chunks_exact(3)
        .filter(|t| t.iter().any(|i| group.contains(i)))
    {
        let p = [0, 1, 2].map(|k| positions[tri[k] as usize].as_dvec3());
        sum += (p[1] - p[0]).cross(p[2] - p[0]);
    }
    sum.normalize().as_vec3()
}

// The regenerated normal against the f64 reference: each face normal and corner angle comes out
// of about ten f32 operations (cross product, normalisation, atan2 of a cross and a dot), each
// rounding by U relative, so each weighted term is off by at most ~20U relative; the terms here
// point within 60° of each other, so their sum's direction is off by at most ~40U, and the final
// normalisation adds 2U. 64ε (128U) is above that and far below the 1e-2-radian gap between
// angle and area weighting on this geometry (asserted).
const REGENERATED: f64 = 64.0 * f32::EPSILON as f64;

#[test]
fn zero_and_non_finite_normals_are_regenerated() {
    let dir = tempdir();
    let patch = patch();
    let mut normals = patch.normals.clone();
    normals[3] = Vec3::ZERO; // an edge vertex: three triangles of different angles
    normals[1] = Vec3::new(f32::NAN, 0.0, 1.0);
    let mut tangents = patch.tangents.clone();
    tangents[7] = Vec4::new(1.0, f32::INFINITY, 0.0, 1.0);
    let flat3: Vec<f32> = patch.positions.iter().flat_map(|p| p.to_array()).collect();
    let mut b = GltfBuild::default();
    let position = b.floats(&flat3, "VEC3", true);
    let n: Vec<f32> = normals.iter().flat_map(|p| p.to_array()).collect();
    let normal = b.floats(&n, "VEC3", false);
    let t: Vec<f32> = tangents.iter().flat_map(|p| p.to_array()).collect();
    let tangent = b.floats(&t, "VEC4", false);
    let indices = b.indices(&patch.indices);
    b.mesh(
        "Saddle",
        json!([{"attributes": {"POSITION": position, "NORMAL": normal, "TANGENT": tangent},
                "indices": indices}]),
        json!({}),
    );
    let path = b.write_gltf(dir.path(), "zero");
    let scene = load(&path);
    assert_warning(
        &scene,
        "mesh 'Saddle' primitive 0: 2 zero-length or non-finite NORMAL value(s) regenerated",
    );
    assert_warning(
        &scene,
        "mesh 'Saddle' primitive 0: 1 non-finite TANGENT value(s) ignored",
    );
    let p = &scene.meshes[0].primitives[0];
    let got = p.normals.as_ref().expect("normals");
    let idx: Vec<u32> = patch.indices.iter().map(|&i| u32::from(i)).collect();
    for v in [3u32, 1] {
        let want = angle_weighted(&patch.positions, &idx, &[v]);
        let by_area = area_weighted(&patch.positions, &idx, &[v]);
        let a = angle(got[v as usize], want);
        assert!(a <= REGENERATED, "vertex {v}: {a} rad from the reference");
        assert!(
            angle(want, by_area) > 1e-2,
            "vertex {v}: the geometry separates the rules"
        );
    }
    // The other normals are as supplied.
    assert_eq!(got[0], normals[0]);
    assert_eq!(p.tangents.as_ref().map(|t| t[7]), Some(Vec4::ZERO));
    let prepared = p.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert!(prepared.stats.fallback_frames >= 1, "the tangent fell back");

    // Primitives made in code are not repaired: validate stays strict.
    let mut made = p.clone();
    made.normals.as_mut().expect("normals")[0] = Vec3::ZERO;
    assert!(matches!(
        made.validate(),
        Err(ErrorKind::ZeroLengthNormal { vertex: 0 })
    ));

    // NaN positions stay errors.
    let mut bad = flat3.clone();
    bad[4] = f32::NAN;
    let mut b = GltfBuild::default();
    let position = b.floats(&bad, "VEC3", false);
    let indices = b.indices(&patch.indices);
    b.mesh(
        "Saddle",
        json!([{"attributes": {"POSITION": position}, "indices": indices}]),
        json!({}),
    );
    let msg = load_err(&b.write_gltf(dir.path(), "nanpos"));
    assert!(
        msg.contains("mesh 'Saddle' primitive 0: POSITION of vertex 1 is NaN"),
        "{msg}"
    );
}

/// OBJ: a zero normal is regenerated from every face around its position (the OBJ smoothing
/// ids), including a face where that position has another normal.
#[test]
fn obj_zero_normal_is_regenerated_over_its_position() {
    let dir = tempdir();
    let text = "v 0 0 0\nv 1 0 0.2\nv 1 1 0\nv 0 1 0.4\nv 2 0.5 0.6\n\
                vn 0 0 1\nvn 0 0 0\n\
                f 1//1 2//1 3//2\nf 1//1 3//2 4//1\nf 2//1 5//1 3//1\n";
    let path = obj(dir.path(), "spider.obj", text);
    let scene = load(&path);
    assert_warning(&scene, "mesh 'unnamed_object' primitive 0: 1 zero-length or non-finite NORMAL value(s) regenerated");
    let p = &scene.meshes[0].primitives[0];
    let ids = p.smoothing_ids.as_ref().expect("OBJ has smoothing ids");
    // The repaired vertex: position 3 (id 2) with normal 2.
    let normals = p.normals.as_ref().expect("normals");
    let v = (0..p.positions.len())
        .find(|&v| ids[v] == 2 && normals[v] != Vec3::Z)
        .expect("the repaired vertex");
    let group: Vec<u32> = (0..p.positions.len() as u32)
        .filter(|&u| ids[u as usize] == 2)
        .collect();
    assert_eq!(group.len(), 2, "position 3 appears with two normals");
    let want = angle_weighted(&p.positions, &p.indices, &group);
    let a = angle(normals[v], want);
    assert!(a <= REGENERATED, "{a} rad from the reference");
    let alone = angle_weighted(&p.positions, &p.indices, &[v as u32]);
    assert!(
        angle(want, alone) > 1e-2,
        "the third face matters on this geometry"
    );
}

/// Compressed data that does not decode is refused, naming the file, the mesh and primitive or
/// the view, and the compression (Draco and meshopt files that decode:
/// tests/unit/gltf_meshopt.rs, tests/it/meshopt.rs).
#[test]
fn compressed_data_that_does_not_decode_is_refused_by_name() {
    let dir = tempdir();
    let mut b = GltfBuild::default();
    b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3", true);
    b.json["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    b.json["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
    // Draco: the accessors have no buffer view; the data is in the extension's view.
    b.push(
        "accessors",
        json!({"componentType": 5126, "count": 3, "type": "VEC3",
               "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}),
    );
    b.mesh(
        "Draco",
        json!([{"attributes": {"POSITION": 1}, "extensions": {"KHR_draco_mesh_compression":
            {"bufferView": 0, "attributes": {"POSITION": 0}}}}]),
        json!({}),
    );
    // The extension's view holds the plain floats, not a Draco stream.
    let msg = load_err(&b.write_gltf(dir.path(), "draco"));
    assert!(
        msg.contains("draco.gltf")
            && msg.contains(
                "mesh 'Draco' primitive 0, Draco-compressed: the Draco stream does not decode"
            ),
        "{msg}"
    );
    // Only used, with fallback data in the accessors: it loads.
    b.json
        .as_object_mut()
        .map(|o| o.remove("extensionsRequired"));
    b.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(0);
    load(&b.write_gltf(dir.path(), "draco_fallback"));

    let mut b = GltfBuild::default();
    b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3", true);
    b.json["extensionsUsed"] = json!(["EXT_meshopt_compression"]);
    b.json["extensionsRequired"] = json!(["EXT_meshopt_compression"]);
    b.json["bufferViews"][0]["extensions"] = json!({"EXT_meshopt_compression":
        {"buffer": 0, "byteLength": 36, "byteStride": 12, "count": 3, "mode": "ATTRIBUTES"}});
    b.mesh(
        "Meshopt",
        json!([{"attributes": {"POSITION": 0}}]),
        json!({}),
    );
    // Required meshopt is read (tests/unit/gltf_meshopt.rs, tests/it/meshopt.rs); a view whose
    // bytes are not a meshopt stream (here: the plain floats) is refused, naming the view.
    let msg = load_err(&b.write_glb(dir.path(), "meshopt"));
    assert!(
        msg.contains("meshopt.glb: mesh 'Meshopt' primitive 0: POSITION accessor 0 cannot be decoded: buffer view 0, meshopt-compressed: the ATTRIBUTES stream does not decode"),
        "{msg}"
    );

    // A required extension qtangent does not implement but can load without: a warning.
    let mut b = GltfBuild::default();
    b.json["extensionsUsed"] = json!(["KHR_materials_emissive_strength", "KHR_texture_transform"]);
    b.json["extensionsRequired"] = b.json["extensionsUsed"].clone();
    let prim = one_primitive(&mut b, 4);
    b.mesh("Tri", json!([prim]), json!({}));
    let scene = load(&b.write_gltf(dir.path(), "emissive"));
    assert_eq!(
        lines(&scene),
        vec![
            "the file requires KHR_materials_emissive_strength, which qtangent does not implement; loaded without"
        ]
    );
}

#[test]
fn obj_errors_name_the_line() {
    let dir = tempdir();
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    for (name, text, needle) in [
        (
            "number.obj",
            "# a comment\nv 0 0 0\nv 1 x 0\nv 0 1 0\nf 1 2 3\n".to_string(),
            "invalid OBJ: line 3: position (v) coordinate 1 'x' is not a number",
        ),
        (
            "short.obj",
            format!("{tri}vt 0.5\nf 1 2 3\n"),
            "invalid OBJ: line 4: texture coordinate (vt) has 1 of its 2 values",
        ),
        (
            "normal.obj",
            format!("{tri}\n\nvn 0 0 one\nf 1 2 3\n"),
            "invalid OBJ: line 6: normal (vn) value 'one' is not a number",
        ),
        (
            "range.obj",
            format!("{tri}f 1 2 3\n\nf 1 2 40\n"),
            "invalid OBJ: line 6: a face refers to vertex 40, but 3 are defined before it",
        ),
        (
            "zero.obj",
            format!("{tri}f 0 1 2\n"),
            "invalid OBJ: line 4: a face refers to vertex 0, but 3 are defined before it",
        ),
        (
            "corner.obj",
            format!("{tri}f 1 2 3/a\n"),
            "invalid OBJ: line 4: face corner '3/a': texture coordinate index 'a' is not an integer",
        ),
        (
            "slashes.obj",
            format!("{tri}f 1/1/1/1 2 3\n"),
            "invalid OBJ: line 4: face corner '1/1/1/1' has more than three indices",
        ),
        (
            "weight.obj",
            "v 0 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_string(),
            "invalid OBJ: line 1: position (v) has weight w = 0",
        ),
    ] {
        let msg = load_err(&obj(dir.path(), name, &text));
        assert!(msg.ends_with(needle), "{name}: {msg}");
    }
    // What tobj accepts loads: a weight, extra vt values, relative indices; colours on every
    // vertex.
    let ok = "v 0 0 0 1\nv 1 0 0 0.5\nv 0 1 0\nvt 0 0 0\nf -3/1 -2/1 -1/1\n";
    load(&obj(dir.path(), "ok.obj", ok));
    let colours = "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nf 1 2 3\n";
    load(&obj(dir.path(), "colours.obj", colours));
    // Colours on some vertices only: tobj refuses it when the group ends, so no line is known.
    let some = "v 0 0 0\nv 1 0 0 0 1 0\nv 0 1 0\nf 1 2 3\n";
    let msg = load_err(&obj(dir.path(), "some.obj", some));
    assert!(msg.contains("colour"), "{msg}");
}

/// An empty scene (`"scenes": [{}]`), an animation channel without a target node, and
/// `_`-prefixed attributes (`_QTANGENT`, `_FOO`), in .gltf and in .glb.
#[test]
fn empty_scene_untargeted_channel_and_underscore_attributes_load() {
    let dir = tempdir();
    let mut b = GltfBuild::default();
    let prim = one_primitive(&mut b, 4);
    b.mesh("Tri", json!([prim]), json!({}));
    b.json["scenes"] = json!([{}]);
    let foo = b.floats(&[0.5; 9], "VEC3", false);
    let q: Vec<i16> = vec![0, 0, 0, 32767, 0, 0, 0, 32767, 0, 0, 0, 32767];
    let qv = b.view(bytemuck::cast_slice(&q), None);
    let qt = b.push(
        "accessors",
        json!({"bufferView": qv, "componentType": 5122, "normalized": true, "count": 3,
               "type": "VEC4"}),
    );
    b.json["meshes"][0]["primitives"][0]["attributes"]["_FOO"] = json!(foo);
    b.json["meshes"][0]["primitives"][0]["attributes"]["_QTANGENT"] = json!(qt);
    let times = b.floats(&[0.0, 1.0], "SCALAR", true);
    let values = b.floats(&[0.0; 6], "VEC3", false);
    b.push(
        "animations",
        json!({"name": "Move", "samplers": [{"input": times, "output": values}],
               "channels": [{"sampler": 0, "target": {"path": "translation"}},
                            {"sampler": 0, "target": {"node": 0, "path": "translation"}}]}),
    );
    for path in [
        b.write_gltf(dir.path(), "empty"),
        b.write_glb(dir.path(), "empty"),
    ] {
        let scene = load(&path);
        assert_eq!(scene.meshes[0].primitives.len(), 1, "{}", path.display());
        assert_eq!(
            lines(&scene),
            vec![
                "animation 'Move' channel 0: no target node (an extension may name the target); skipped"
            ]
        );
        assert_eq!(scene.animations[0].channels.len(), 1);
    }
}

/// KHR_texture_transform, worked by hand from the extension: offset (0.25, 0.5), rotation π/2,
/// scale (2, 3). A UV (0.1, 0.2) scales to (0.2, 0.6); the rotation (u, v) → (cos·u + sin·v,
/// −sin·u + cos·v) at π/2 gives (0.6, −0.2); the offset moves it to (0.85, 0.3).
#[test]
fn texture_transform_is_applied_to_the_uvs() {
    let dir = tempdir();
    let transform = json!({"KHR_texture_transform":
        {"offset": [0.25, 0.5], "rotation": std::f32::consts::FRAC_PI_2, "scale": [2.0, 3.0]}});
    let other = json!({"KHR_texture_transform": {"offset": [0.5, 0.0]}});
    let mut b = GltfBuild::default();
    b.json["extensionsUsed"] = json!(["KHR_texture_transform"]);
    b.push("images", json!({"uri": "colour.png"}));
    b.push("textures", json!({"source": 0}));
    let position = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3", true);
    let uvs = b.floats(&[0.1, 0.2, 1.0, 0.0, 0.0, 1.0], "VEC2", false);
    // Material 0: base colour and normal share the transform; the normal texture names UV set
    // 1 but the extension's texCoord overrides it with 0. Material 1: they differ.
    b.push(
        "materials",
        json!({"name": "Shared",
               "pbrMetallicRoughness": {"baseColorTexture": {"index": 0, "extensions": transform}},
               "normalTexture": {"index": 0, "texCoord": 1, "extensions": {"KHR_texture_transform":
                   {"offset": [0.25, 0.5], "rotation": std::f32::consts::FRAC_PI_2,
                    "scale": [2.0, 3.0], "texCoord": 0}}}}),
    );
    b.push(
        "materials",
        json!({"name": "Mixed",
               "pbrMetallicRoughness": {"baseColorTexture": {"index": 0, "extensions": transform},
                                        "metallicRoughnessTexture": {"index": 0, "extensions": other}}}),
    );
    b.mesh(
        "Quad",
        json!([{"attributes": {"POSITION": position, "TEXCOORD_0": uvs}, "material": 0},
               {"attributes": {"POSITION": position, "TEXCOORD_0": uvs}, "material": 1}]),
        json!({}),
    );
    let scene = load(&b.write_gltf(dir.path(), "transform"));
    let want = TextureTransform {
        offset: Vec2::new(0.25, 0.5),
        rotation: std::f32::consts::FRAC_PI_2,
        scale: Vec2::new(2.0, 3.0),
    };
    assert_eq!(scene.materials[0].uv_transform, Some(want));
    assert_eq!(
        scene.materials[0]
            .normal_texture
            .as_ref()
            .map(|t| t.tex_coord),
        Some(0),
        "texCoord override honoured"
    );
    let got = scene.meshes[0].primitives[0].uvs.as_ref().expect("uvs")[0];
    // cos(π/2) in f32 is −4.4e-8, not 0: the result is off by that times the scaled UV, 0.6,
    // plus U-relative rounding of each product and sum; 1e-6 is far above both and far below
    // any wrong order or sign (which moves the point by ≥ 0.1).
    assert!(
        (got - Vec2::new(0.85, 0.3)).abs().max_element() < 1e-6,
        "{got}"
    );
    assert_eq!(scene.materials[1].uv_transform, None);
    assert_eq!(
        scene.meshes[0].primitives[1].uvs.as_ref().expect("uvs")[0],
        Vec2::new(0.1, 0.2),
        "untransformed"
    );
    assert_warning(
        &scene,
        "material 'Mixed': its textures on UV set 0 have different KHR_texture_transforms",
    );
}

/// `BakeJob::bake`, the bake tool's one call per job: a quad whose UVs reach outside [0, 1]²
/// bakes with a warning naming both its triangles; the map's times start with `load`; a
/// tangent-space job without a normal map bakes nothing (the identity).
#[test]
fn a_bake_job_bakes_its_map_and_warns_of_uvs_outside_the_square() {
    use qtangent::qmap::{BakeJob, Baker, MapOptions, MapSpace};
    use qtangent::{Warning, WarningKind};

    let dir = tempdir();
    let mut b = GltfBuild::default();
    let positions = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
    // u from -0.5: both triangles reach outside the square.
    let uvs = [-0.5, 1.0, 1.0, 1.0, 1.0, 0.0, -0.5, 0.0];
    let p = b.floats(&positions, "VEC3", true);
    let t = b.floats(&uvs, "VEC2", false);
    let i = b.indices(&[0, 1, 2, 0, 2, 3]);
    b.json["materials"] = json!([{ "name": "plain" }]);
    let prim =
        json!([{"attributes": {"POSITION": p, "TEXCOORD_0": t}, "indices": i, "material": 0}]);
    b.mesh("Quad", prim, json!({}));
    let scene = load(&b.write_gltf(dir.path(), "outside"));
    let jobs = BakeJob::from_scene(&scene, None, &mut ()).expect("a job");
    assert_eq!(jobs.len(), 1, "one material, one job");
    let job = &jobs[0];

    let options = MapOptions::default();
    let baker = Baker::new(qtangent::qmap::RasterBackend::CPU, &options);
    let mut warnings: Vec<Warning> = Vec::new();
    let done = job
        .bake(&scene, &baker, MapSpace::Object, 16, &mut warnings)
        .unwrap_or_else(|e| panic!("{e}"))
        .expect("an object-space map");
    let outside: Vec<_> = warnings
        .iter()
        .filter(|w| matches!(w.kind(), WarningKind::OutsideUvSquare { .. }))
        .collect();
    assert_eq!(outside.len(), 1, "{warnings:?}");
    assert!(matches!(
        outside[0].kind(),
        WarningKind::OutsideUvSquare {
            triangles: 2,
            of: 2
        }
    ));
    assert_eq!(done.primitives.len(), 1);
    assert!(
        !done.baked.stored.axial_twist,
        "no direction, no axial twist"
    );
    assert_eq!(done.baked.times[0].0, "load");
    assert_eq!((done.baked.map.width(), done.baked.map.height()), (16, 16));
    assert!(
        done.baked.map.stats.covered > 0,
        "the part inside the square is baked"
    );

    let tangent = job
        .bake(&scene, &baker, MapSpace::Tangent, 16, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(tangent.is_none(), "no normal map: no tangent-space map");
}
