//! The frame comparison behind the gltfpack table (`qtangent::lab::frame_diff::compare_frames`,
//! `qtangent diff`): a file against itself is exact; a copy that is shuffled, quantised
//! (the dequantisation in its node transform, or for a skinned mesh in its inverse bind
//! matrices, with the mesh node moved, which glTF ignores) and has known frame perturbations
//! gives back exactly the errors put in, worked out here from the perturbations alone; the
//! tolerance is a hard boundary; the frame bytes are read from the file.

use std::path::Path;

use glam::{Quat, Vec2, Vec3, Vec4};
use qtangent::lab::frame_diff::{
    compare_frames, frame_attribute_bytes, FrameDiff, Tolerance, WorldVertices,
};
use qtangent::lab::shapes;
use qtangent::mesh::{self, Prepared};
use rand::seq::SliceRandom;
use rand::Rng;

use crate::common::{self, for_seeds};
use crate::gltf_files::gltf_write::{
    bumpy_normal_map, GltfFile, GltfNode, GltfPrimitive, GltfSkin,
};

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("cannot make a temporary folder: {e}"))
}

fn prepared(p: &mesh::Primitive) -> Prepared {
    p.prepare()
        .unwrap_or_else(|e| panic!("{} prepares: {e}", p.label))
}

fn world(path: &Path) -> WorldVertices {
    let scene = mesh::load(path).unwrap_or_else(|e| panic!("{e}"));
    WorldVertices::from_scene(&scene).unwrap_or_else(|e| panic!("{e}"))
}

/// The angle error allowed on a frame vector that went through the same computation in both
/// files but for the perturbation: each of n, t and b passes through at most 32 f32 roundings in
/// all (rotating by a quaternion, writing and reading f32, normalising, orthonormalising against
/// the normal, the node matrix, normalising again — about 16 on each side), and a rounding of
/// relative size ε/2 in one component turns a unit vector by at most ε/2 rad: 16ε rad. The
/// measured angle itself is computed in f64 (`atan2(|a×b|, a·b)`), exact to far less.
const ROUNDING_DEG: f64 = 16.0 * f32::EPSILON as f64 * 180.0 / std::f64::consts::PI;

/// The torus and the mirrored quad pair (handedness −1 vertices and mirror-seam splits, whose
/// twins share position and UV), as one file with a rotated, scaled, moved node.
fn two_primitive_file() -> GltfFile {
    let torus = prepared(&qtangent::mesh::Primitive::torus(1.0, 0.4, 24, 12));
    let quads = prepared(&shapes::mirrored_quad_pair());
    GltfFile {
        meshes: vec![vec![
            GltfPrimitive::from_prepared(&torus),
            GltfPrimitive::from_prepared(&quads).with_material(0),
        ]],
        nodes: vec![GltfNode {
            mesh: Some(0),
            translation: Vec3::new(0.5, -2.0, 3.0),
            rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7),
            scale: Vec3::splat(2.5),
            ..GltfNode::default()
        }],
        ..GltfFile::default()
    }
    .with_normal_map(bumpy_normal_map(8))
}

/// A file against itself: every vertex matched to itself (the mirror-seam twins by their
/// frames), zero error, handedness kept, nothing unmatched — with exact matching and with the
/// tolerance of gltfpack's default quantisation.
#[test]
fn a_file_against_itself_is_exact() {
    let dir = tempdir();
    let path = two_primitive_file().write(dir.path(), "self");
    let v = world(&path);
    let twins = (0..v.len())
        .filter(|&i| (0..i).any(|j| v.positions[j] == v.positions[i] && v.uvs[j] == v.uvs[i]))
        .count();
    // The quad pair's two seam vertices are split (MESHES.md): twins in position and UV.
    assert_eq!(twins, 2, "the test mesh has two mirror-seam twins");
    for tolerance in [Tolerance::EXACT, Tolerance::for_quantisation(&v, 14, 12)] {
        let d = compare_frames(&v, &v, tolerance);
        let identity: Vec<Option<u32>> = (0..v.len() as u32).map(Some).collect();
        assert_eq!(d.matches, identity, "{tolerance:?}");
        assert_eq!((d.unmatched, d.uncovered), (0, 0), "{tolerance:?}");
        assert_eq!(d.errors.max(), 0.0, "{tolerance:?}");
        assert_eq!(d.handedness_kept(), 1.0);
        assert_eq!(d.errors.frames, v.len() as u64);
    }
}

/// The shared assets against themselves (FlightHelmet: six meshes; the Fox: skinned, generated
/// normals; SimpleSkin: skinned, no UVs): every vertex matched with zero error.
#[test]
fn assets_against_themselves_are_exact() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    for rel in [
        "gltf/FlightHelmet/FlightHelmet.gltf",
        "gltf/Fox.glb",
        "gltf/SimpleSkin.gltf",
    ] {
        let v = world(&dir.join(rel));
        assert!(!v.is_empty(), "{rel} draws nothing");
        let d = compare_frames(&v, &v, Tolerance::EXACT);
        println!(
            "{rel}: {} vertices, unmatched {}, uncovered {}, max error {}°",
            v.len(),
            d.unmatched,
            d.uncovered,
            d.errors.max()
        );
        assert_eq!((d.unmatched, d.uncovered), (0, 0), "{rel}");
        assert_eq!(d.errors.max(), 0.0, "{rel}");
        assert_eq!(d.errors.handedness_errors, 0, "{rel}");
    }
}

/// What was done to one vertex of the candidate.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Perturbation {
    /// Tangent turned about the normal: t and b move by the angle, n not at all.
    AboutNormal,
    /// Normal turned about the tangent: n and b move by the angle, t not at all.
    AboutTangent,
    /// Handedness flipped (tangent w negated): b turns by 180°.
    Flip,
    /// Untouched.
    None,
}

/// The expected mean and max of one vector's error: `angle` for the vertices in `moved`, 0 for
/// the rest, 180° for the flipped ones when `flips_count`.
fn expected(kinds: &[Perturbation], moved: &[(Perturbation, f64)]) -> (f64, f64) {
    let each = |k: &Perturbation| {
        moved
            .iter()
            .find(|(m, _)| m == k)
            .map_or(0.0, |&(_, angle)| angle)
    };
    let sum: f64 = kinds.iter().map(each).sum();
    let max = kinds.iter().map(each).fold(0.0, f64::max);
    (sum / kinds.len() as f64, max)
}

/// gltfpack's treatment, done by hand: the torus shuffled, positions quantised to 14 bits over
/// its bounding box with the dequantisation in the node (scale and offset folded into the
/// source's own rotated, scaled node), UVs to 12 bits, and each vertex's frame perturbed in a
/// known way (seeded: the kind per vertex, the angles per seed). A triangle the candidate adds
/// far away is unmatched, one the source has that the candidate lacks is uncovered. The
/// expected means and maxima are worked out from the perturbations alone.
#[test]
fn a_shuffled_quantised_perturbed_copy_gives_the_errors_put_in() {
    for_seeds("frame_diff shuffled copy", 4, |seed, rng| {
        let src = prepared(&qtangent::mesh::Primitive::torus(1.0, 0.4, 24, 12));
        let n = src.positions.len();
        let node = GltfNode {
            translation: Vec3::new(-1.0, 0.25, 4.0),
            rotation: Quat::from_euler(glam::EulerRot::ZXY, 0.4, 0.9, -0.2),
            scale: Vec3::splat(1.5),
            ..GltfNode::default()
        };
        let source = GltfFile {
            meshes: vec![
                vec![GltfPrimitive::from_prepared(&src)],
                vec![far_triangle(Vec3::new(-40.0, 0.0, 0.0))],
            ],
            nodes: vec![
                GltfNode {
                    mesh: Some(0),
                    ..node.clone()
                },
                far_node(1),
            ],
            ..GltfFile::default()
        };
        let (candidate, p) = perturbed_copy(&src, &node, rng);
        let dir = tempdir();
        let s = world(&source.write(dir.path(), "source"));
        let c = world(&candidate.write(dir.path(), "candidate"));
        let tolerance = Tolerance::for_quantisation(&s, 14, 12);
        let d = compare_frames(&s, &c, tolerance);

        println!(
            "seed {seed:#x}: n {:.4}/{:.4}, t {:.4}/{:.4}, b {:.4}/{:.4}, kept {:.4}, unmatched {}, uncovered {}",
            d.errors.normal.mean(),
            d.errors.normal.max,
            d.errors.tangent.mean(),
            d.errors.tangent.max,
            d.errors.bitangent.mean(),
            d.errors.bitangent.max,
            d.handedness_kept(),
            d.unmatched,
            d.uncovered
        );
        // Every torus vertex found its own source; the far triangles found nothing.
        for (k, &s_index) in p.order.iter().enumerate() {
            assert_eq!(d.matches[k], Some(s_index as u32), "candidate vertex {k}");
        }
        assert_eq!(d.matches[n..], [None, None, None]);
        assert_eq!((d.unmatched, d.uncovered), (3, 3));
        assert_eq!(d.errors.frames, n as u64);
        check_errors_put_in(seed, &d, &p);
    });
}

/// One triangle far from the torus, in one file only.
fn far_triangle(at: Vec3) -> GltfPrimitive {
    GltfPrimitive {
        positions: vec![at, at + Vec3::X, at + Vec3::Y],
        normals: Some(vec![Vec3::Z; 3]),
        tangents: Some(vec![Vec4::new(1.0, 0.0, 0.0, 1.0); 3]),
        uvs: Some(vec![Vec2::ZERO, Vec2::X, Vec2::Y]),
        indices: vec![0, 1, 2],
        ..GltfPrimitive::default()
    }
}

/// A node at the origin placing `mesh`.
fn far_node(mesh: usize) -> GltfNode {
    GltfNode {
        mesh: Some(mesh),
        ..GltfNode::default()
    }
}

/// What [`perturbed_copy`] did: each source vertex's perturbation, the two angles, and the
/// candidate's order (candidate vertex k is source vertex `order[k]`).
struct Perturbed {
    kinds: Vec<Perturbation>,
    angle_n: f64,
    angle_t: f64,
    order: Vec<usize>,
}

/// The candidate of [`a_shuffled_quantised_perturbed_copy_gives_the_errors_put_in`]: `src`
/// shuffled, positions quantised to 14 bits with the dequantisation folded into `node`, UVs to
/// 12 bits, frames perturbed (seeded), and a far triangle of its own.
fn perturbed_copy(src: &Prepared, node: &GltfNode, rng: &mut impl Rng) -> (GltfFile, Perturbed) {
    let n = src.positions.len();
    // The perturbations, per source vertex.
    let angle_n = rng.random_range(0.5..20.0f64);
    let angle_t = rng.random_range(0.5..20.0f64);
    let kinds: Vec<Perturbation> = (0..n)
        .map(|_| match rng.random_range(0..4) {
            0 => Perturbation::AboutNormal,
            1 => Perturbation::AboutTangent,
            2 => Perturbation::Flip,
            _ => Perturbation::None,
        })
        .collect();
    // Candidate vertex k is source vertex order[k].
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    let mut new_index = vec![0u32; n];
    for (k, &s) in order.iter().enumerate() {
        new_index[s] = k as u32;
    }
    let (lo, hi) = src.positions.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let step = (hi - lo).max_element() / f32::from(u16::MAX >> 2); // 2¹⁴ − 1
    let mut cand = GltfPrimitive {
        normals: Some(Vec::new()),
        tangents: Some(Vec::new()),
        uvs: Some(Vec::new()),
        indices: src.indices.iter().map(|&i| new_index[i as usize]).collect(),
        ..GltfPrimitive::default()
    };
    for &s in &order {
        let f = &src.frames[s];
        let (mut normal, mut tangent, mut w) = (f.normal, f.tangent, f.handedness());
        match kinds[s] {
            Perturbation::AboutNormal => {
                tangent = Quat::from_axis_angle(normal, angle_t.to_radians() as f32) * tangent;
            }
            Perturbation::AboutTangent => {
                normal = Quat::from_axis_angle(tangent, angle_n.to_radians() as f32) * normal;
            }
            Perturbation::Flip => w = -w,
            Perturbation::None => {}
        }
        cand.positions
            .push(((src.positions[s] - lo) / step).round());
        let uv = (src.uvs[s] * 4095.0).round() / 4095.0;
        cand.uvs.get_or_insert_with(Vec::new).push(uv);
        cand.normals.get_or_insert_with(Vec::new).push(normal);
        cand.tangents
            .get_or_insert_with(Vec::new)
            .push(tangent.extend(w));
    }
    // world = node · (lo + step · q): the dequantisation folded into the source's node.
    let candidate = GltfFile {
        meshes: vec![vec![cand], vec![far_triangle(Vec3::new(40.0, 0.0, 0.0))]],
        nodes: vec![
            GltfNode {
                mesh: Some(0),
                translation: node.translation + node.rotation * (node.scale * lo),
                scale: node.scale * step,
                ..node.clone()
            },
            far_node(1),
        ],
        ..GltfFile::default()
    };
    let perturbed = Perturbed {
        kinds,
        angle_n,
        angle_t,
        order,
    };
    (candidate, perturbed)
}

/// The normal, tangent and bitangent errors `d` measured are the perturbations `p` put in, to
/// the rounding of the frames' arithmetic; the flips are the handedness errors.
fn check_errors_put_in(seed: u64, d: &FrameDiff, p: &Perturbed) {
    let (kinds, angle_n, angle_t) = (&p.kinds, p.angle_n, p.angle_t);
    let n = kinds.len();
    use Perturbation::{AboutNormal, AboutTangent, Flip};
    let checks = [
        (
            "normal",
            &d.errors.normal,
            expected(kinds, &[(AboutTangent, angle_n)]),
        ),
        (
            "tangent",
            &d.errors.tangent,
            expected(kinds, &[(AboutNormal, angle_t)]),
        ),
        (
            "bitangent",
            &d.errors.bitangent,
            expected(
                kinds,
                &[
                    (AboutNormal, angle_t),
                    (AboutTangent, angle_n),
                    (Flip, 180.0),
                ],
            ),
        ),
    ];
    let deviation = checks
        .iter()
        .map(|(_, stat, (mean, max))| (stat.mean() - mean).abs().max((stat.max - max).abs()))
        .fold(0.0, f64::max);
    println!("seed {seed:#x}: largest deviation from the expected {deviation:.3e}° (allowed {ROUNDING_DEG:.3e}°)");
    for (name, stat, (mean, max)) in checks {
        assert!(
            (stat.mean() - mean).abs() <= ROUNDING_DEG && (stat.max - max).abs() <= ROUNDING_DEG,
            "{name}: measured mean {} max {}, expected {mean} {max} (± {ROUNDING_DEG})",
            stat.mean(),
            stat.max
        );
    }
    let flips = kinds.iter().filter(|&&k| k == Flip).count();
    assert_eq!(d.errors.handedness_errors, flips as u64);
    assert_eq!(d.handedness_kept(), 1.0 - flips as f64 / n as f64);
}

/// gltfpack's skinned meshes: the positions quantised in mesh space and the dequantisation
/// multiplied into the inverse bind matrices, the mesh node moved (glTF ignores a skinned
/// mesh's node, and so must the comparison: were it used, nothing would match). Every vertex
/// matches its source in the bind pose with only rounding error.
#[test]
fn skinned_copy_with_the_dequantisation_in_the_inverse_binds_matches() {
    let (length, bones) = (2.0, 3u16);
    let src = prepared(&shapes::skinned_cylinder(0.3, length, 12, 6, bones));
    let inverse_bind = shapes::skinned_cylinder_inverse_bind(length, bones);
    // Joint j sits at y_j: the chain's nodes, each one span above its parent.
    let span = length / f32::from(bones - 1);
    let joints = |first: usize| -> Vec<GltfNode> {
        (0..usize::from(bones))
            .map(|j| GltfNode {
                translation: if j == 0 { Vec3::ZERO } else { Vec3::Y * span },
                children: if j + 1 < usize::from(bones) {
                    vec![first + j + 1]
                } else {
                    Vec::new()
                },
                ..GltfNode::default()
            })
            .collect()
    };
    let file = |prim: GltfPrimitive, node_at: Vec3, inverse_bind: Vec<glam::Mat4>| {
        let mut nodes = vec![GltfNode {
            mesh: Some(0),
            skin: Some(0),
            translation: node_at,
            ..GltfNode::default()
        }];
        nodes.extend(joints(1));
        GltfFile {
            meshes: vec![vec![prim]],
            nodes,
            skins: vec![GltfSkin {
                joints: (1..=usize::from(bones)).collect(),
                inverse_bind,
            }],
            ..GltfFile::default()
        }
    };
    let (lo, hi) = src.positions.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let step = (hi - lo).max_element() / 16383.0; // 14 bits
    let dequantise = glam::Mat4::from_translation(lo) * glam::Mat4::from_scale(Vec3::splat(step));
    let mut cand = GltfPrimitive::from_prepared(&src);
    cand.positions = src
        .positions
        .iter()
        .map(|&p| ((p - lo) / step).round())
        .collect();
    let dir = tempdir();
    let s = world(
        &file(
            GltfPrimitive::from_prepared(&src),
            Vec3::new(5.0, 0.0, 0.0),
            inverse_bind.clone(),
        )
        .write(dir.path(), "skinned-source"),
    );
    let c = world(
        &file(
            cand,
            Vec3::new(-7.0, 3.0, 1.0),
            inverse_bind.iter().map(|ib| *ib * dequantise).collect(),
        )
        .write(dir.path(), "skinned-candidate"),
    );
    // The source's bind pose is its mesh (joint_world · inverse_bind = I): the node is ignored.
    // The blend Σ wᵢ·I / Σ wᵢ and the matrix-vector product round at most 8 times, each time
    // by at most ε/2 of a sum bounded by 2|p|: 8ε·|p|.
    for (i, (a, b)) in s.positions.iter().zip(&src.positions).enumerate() {
        let allowed = 8.0 * f32::EPSILON * b.length();
        assert!(
            (*a - *b).length() <= allowed,
            "vertex {i}: bind pose {a} ≠ mesh {b} (allowed {allowed})"
        );
    }
    let d = compare_frames(&s, &c, Tolerance::for_quantisation(&s, 14, 12));
    let identity: Vec<Option<u32>> = (0..s.len() as u32).map(Some).collect();
    assert_eq!(d.matches, identity);
    assert_eq!((d.unmatched, d.uncovered), (0, 0));
    assert!(
        d.errors.max() <= ROUNDING_DEG,
        "max error {}°",
        d.errors.max()
    );
    assert_eq!(d.errors.handedness_errors, 0);
}

/// The tolerance is a hard boundary: a vertex moved by 0.99 of it is matched, one moved by 1.01
/// of it is not (and its source is then uncovered).
#[test]
fn the_tolerance_is_a_boundary() {
    let torus = prepared(&qtangent::mesh::Primitive::torus(1.0, 0.4, 24, 12));
    let v = WorldVertices {
        positions: torus.positions.clone(),
        uvs: torus.uvs.clone(),
        frames: torus.frames.clone(),
    };
    let t = Tolerance::for_quantisation(&v, 14, 12);
    let mut moved = v.clone();
    moved.positions[10] += Vec3::X * (0.99 * t.position);
    moved.uvs[20] += Vec2::Y * (0.99 * t.uv);
    moved.positions[30] += Vec3::Z * (1.01 * t.position);
    moved.uvs[40] += Vec2::X * (1.01 * t.uv);
    let d = compare_frames(&v, &moved, t);
    assert_eq!(d.matches[10], Some(10));
    assert_eq!(d.matches[20], Some(20));
    assert_eq!(d.matches[30], None);
    assert_eq!(d.matches[40], None);
    assert_eq!((d.unmatched, d.uncovered), (2, 2));
}

/// The frame bytes come from the file's accessors, padded to 4: f32 normal + tangent = 28 B;
/// an i8×3 normal (edited in) takes 4, a `_QTANGENT` of i16×2 another 4; sizes include the
/// external buffer and image.
#[test]
fn frame_bytes_are_read_from_the_accessors() {
    let dir = tempdir();
    let file = two_primitive_file();
    let path = file.write(dir.path(), "bytes");
    let b = frame_attribute_bytes(&path).unwrap_or_else(|e| panic!("{e}"));
    let v = world(&path);
    assert_eq!(b.vertices, v.len() as u64, "one instance: drawn = stored");
    assert_eq!(b.per_vertex(), 28.0);
    assert_eq!(b.layouts, ["NORMAL f32x3 + TANGENT f32x4"]);
    let size = |name: &str| {
        std::fs::metadata(dir.path().join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .len()
    };
    let png = size("bytes-normal-0.png");
    assert_eq!(b.file_bytes, size("bytes.gltf") + size("bytes.bin") + png);
    assert_eq!(b.image_bytes, png);

    let edited = file.write_with(dir.path(), "edited", |doc| {
        // Primitive 0's NORMAL as normalised i8×3; primitive 1 gains a `_QTANGENT` (i16×2).
        let normal = doc["meshes"][0]["primitives"][0]["attributes"]["NORMAL"].clone();
        let n = normal.as_u64().unwrap_or_default() as usize;
        doc["accessors"][n]["componentType"] = serde_json::json!(5120);
        doc["accessors"][n]["normalized"] = serde_json::json!(true);
        let mut q = doc["accessors"][n].clone();
        q["componentType"] = serde_json::json!(5122);
        q["type"] = serde_json::json!("VEC2");
        q["normalized"] = serde_json::json!(false);
        let count = doc["meshes"][0]["primitives"][1]["attributes"]["POSITION"].as_u64();
        let quads = count.map_or(0, |p| {
            doc["accessors"][p as usize]["count"].as_u64().unwrap_or(0)
        });
        q["count"] = serde_json::json!(quads);
        let accessors = doc["accessors"].as_array_mut().expect("accessors");
        accessors.push(q);
        let index = accessors.len() - 1;
        doc["meshes"][0]["primitives"][1]["attributes"]["_QTANGENT"] = serde_json::json!(index);
    });
    let e = frame_attribute_bytes(&edited).unwrap_or_else(|e| panic!("{e}"));
    let (torus, quads) = (
        prepared(&qtangent::mesh::Primitive::torus(1.0, 0.4, 24, 12))
            .positions
            .len() as u64,
        prepared(&shapes::mirrored_quad_pair()).positions.len() as u64,
    );
    assert_eq!(e.vertices, torus + quads);
    assert_eq!(e.bytes, torus * (4 + 16) + quads * (12 + 16 + 4));
    assert_eq!(
        e.layouts,
        [
            "NORMAL snorm8x3 + TANGENT f32x4",
            "NORMAL f32x3 + TANGENT f32x4 + _QTANGENT i16x2"
        ]
    );
}

/// Near-twins — two source vertices at one position whose UVs differ by less than a
/// quantisation step but whose tangents differ by 50° (FlightHelmet has such pairs) — are told
/// apart by their frames: each quantised copy matches its own twin, even the one whose UV
/// rounded nearer the other.
#[test]
fn near_twins_are_told_apart_by_their_frames() {
    let torus = prepared(&qtangent::mesh::Primitive::torus(1.0, 0.4, 24, 12));
    let mut source = WorldVertices {
        positions: torus.positions.clone(),
        uvs: torus.uvs.clone(),
        frames: torus.frames.clone(),
    };
    let t = Tolerance::for_quantisation(&source, 14, 12);
    // Vertex 7's twin: the same position, the UV 0.4 of a tolerance away, the tangent turned.
    let f = source.frames[7];
    let turn = Quat::from_axis_angle(f.normal, 50f32.to_radians());
    let twin = qtangent::TangentFrame {
        normal: f.normal,
        tangent: turn * f.tangent,
        bitangent: turn * f.bitangent,
    };
    source.positions.push(source.positions[7]);
    source.uvs.push(source.uvs[7] + Vec2::X * (0.4 * t.uv));
    source.frames.push(twin);
    let twin_index = source.len() as u32 - 1;
    // The copy of vertex 7 lands nearer the twin's UV, the twin's copy nearer vertex 7's.
    let mut candidate = source.clone();
    candidate.uvs[7] = source.uvs[7] + Vec2::X * (0.3 * t.uv);
    candidate.uvs[twin_index as usize] = source.uvs[7] + Vec2::X * (0.1 * t.uv);
    let d = compare_frames(&source, &candidate, t);
    assert_eq!(d.matches[7], Some(7));
    assert_eq!(d.matches[twin_index as usize], Some(twin_index));
    assert_eq!(d.errors.max(), 0.0);
}

/// `pack`'s output against its source, as `cargo xtask gltfpack-table` measures it: every vertex
/// matched within the tolerance of pack's default quantisation (14-bit positions on one grid
/// over the longest side of the file's box, which the world box's diagonal bounds; 12-bit UVs on
/// a grid per material, whose sides the UV box's longest side bounds), every frame within its format's bound
/// (`Format::max_error_deg`, derived in docs/FORMATS.md), handedness kept, and the frame bytes
/// read from the GLB are the `_QTANGENT` element padded to 4.
#[test]
fn pack_output_matches_its_source_within_the_format_bound() {
    let dir = tempdir();
    let source = two_primitive_file().write(dir.path(), "packme");
    let s = world(&source);
    for format in qtangent::Format::ALL {
        let out = common::pack(&source, dir.path(), format, "none");
        let c = world(&out);
        let d = compare_frames(&s, &c, Tolerance::for_quantisation(&s, 14, 12));
        println!(
            "{}: max {:.5}° (bound {}°), unmatched {}, uncovered {}",
            format.name(),
            d.errors.max(),
            format.max_error_deg(),
            d.unmatched,
            d.uncovered
        );
        assert_eq!((d.unmatched, d.uncovered), (0, 0), "{}", format.name());
        common::assert_within_format_bound("pack's output", format, &d.errors);
        let b = frame_attribute_bytes(&out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.per_vertex(), format.bytes().next_multiple_of(4) as f64);
    }
}

/// Skinned files (the Fox, SimpleSkin) quantised, compressed or not: the dequantisation goes
/// into the inverse bind matrices, so every vertex of the Fox (whose rest pose is its bind pose)
/// lands within the quantisation's tolerance of its source (`Tolerance::for_quantisation`, as
/// `cargo xtask gltfpack-table` measures gltfpack), frames within the format's bound; weights
/// move less than one step of 1/255 (floored, then at most one more). SimpleSkin rests bent,
/// where a weight's step moves a vertex by the step times the bend: its weights are checked,
/// not its places.
#[test]
fn skinned_files_quantise_into_their_inverse_binds() {
    use qtangent::pack::{self, PackOptions};
    use qtangent::qmap::SceneMaps;
    let Some(assets) = common::assets_dir() else {
        return;
    };
    let format = qtangent::Format::Smallest3x4;
    for rel in ["gltf/Fox.glb", "gltf/SimpleSkin.gltf"] {
        let scene = mesh::load(assets.join(rel)).unwrap_or_else(|e| panic!("{e}"));
        let source = WorldVertices::from_scene(&scene).unwrap_or_else(|e| panic!("{e}"));
        for meshopt in [false, true] {
            let prepared = scene.prepare().unwrap_or_else(|e| panic!("{e}"));
            // The Fox has no NORMAL: its frames are stored only when asked (by default readers
            // make its flat normals, `pack_corpus::flat_sources_are_written_without_frames`).
            let options = PackOptions {
                format,
                meshopt,
                flat_frames: true,
                ..PackOptions::default()
            };
            let out = pack::pack(&scene, &prepared, &SceneMaps::default(), &options)
                .unwrap_or_else(|e| panic!("{rel}: pack: {e}"));
            let back = mesh::load_bytes(Path::new("packed.glb"), &out.glb, None)
                .unwrap_or_else(|e| panic!("{rel}: {e}"));
            let world = WorldVertices::from_scene(&back).unwrap_or_else(|e| panic!("{e}"));
            if rel.contains("Fox") {
                let t = Tolerance::for_quantisation(&source, 14, 12);
                let d = compare_frames(&source, &world, t);
                assert_eq!(
                    (d.unmatched, d.uncovered),
                    (0, 0),
                    "{rel} (meshopt {meshopt})"
                );
                common::assert_within_format_bound(rel, format, &d.errors);
            }
            let back = back.prepare().unwrap_or_else(|e| panic!("{e}"));
            for (p, b) in out.primitives.iter().zip(&back) {
                assert_eq!(p.joints, b.joints, "{rel}: joints");
                for (w, v) in p.weights.iter().flatten().zip(b.weights.iter().flatten()) {
                    let sum: f32 = w.iter().sum();
                    for k in 0..4 {
                        assert!(
                            (w[k] / sum - v[k]).abs() < 1.0 / 255.0 + 1e-6,
                            "{rel}: weights {w:?} → {v:?}"
                        );
                    }
                }
            }
        }
    }
}
