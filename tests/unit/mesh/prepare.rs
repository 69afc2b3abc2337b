//! Mesh preparation on procedural meshes whose frames are known analytically: generated normals,
//! MikkTSpace tangents, fallback frames, mirror-seam splitting and the interleaved stream.

use std::f32::consts::{PI, TAU};

use glam::{Vec2, Vec3};
use qtangent::lab::shapes;
use qtangent::measure::angle_deg;
use qtangent::mesh::{normals, vertex, Primitive, Source};
use qtangent::{Format, TangentFrame};

const EPS: f32 = f32::EPSILON;

/// Angle (radians) between two directions.
fn angle(a: Vec3, b: Vec3) -> f32 {
    angle_deg(a, b).to_radians() as f32
}

/// Asserts a frame is orthonormal with b = cross(n, t)·h: every computed frame goes through
/// TangentFrame's f64 Gram–Schmidt and is rounded to f32 once, so 4ε covers it.
fn assert_orthonormal(f: &TangentFrame, what: &str) {
    let tol = 4.0 * EPS;
    for (name, v) in [("n", f.normal), ("t", f.tangent), ("b", f.bitangent)] {
        assert!(
            (v.length() - 1.0).abs() <= tol,
            "{what}: |{name}| = {}",
            v.length()
        );
    }
    assert!(
        f.normal.dot(f.tangent).abs() <= tol,
        "{what}: n·t = {}",
        f.normal.dot(f.tangent)
    );
    let b = f.normal.cross(f.tangent) * f.handedness();
    assert!(
        (b - f.bitangent).abs().max_element() <= tol,
        "{what}: b {:?} vs cross(n, t)·h {b:?}",
        f.bitangent
    );
}

#[test]
fn cube_frames_are_the_face_axes() {
    let cube = shapes::cube();
    let p = cube.prepare().unwrap_or_else(|e| panic!("{e}"));
    let s = p.stats;
    assert_eq!((s.vertices_in, s.vertices, s.triangles), (24, 24, 12));
    assert_eq!(
        (
            s.split_vertices,
            s.mirrored_triangles,
            s.degenerate_uv_triangles,
            s.fallback_frames
        ),
        (0, 0, 0, 0)
    );
    assert_eq!(
        (s.normals, s.tangents),
        (Source::Supplied, Source::Generated)
    );
    // Positions are ±0.5 and UVs 0 or 1, so every difference MikkTSpace forms is exact; only
    // its normalisations round (≤ 2ε each, a few in sequence): 4ε per component.
    for (v, f) in p.frames.iter().enumerate() {
        let (n, t) = shapes::CUBE_FACES[v / 4];
        assert!(
            (f.normal - n).abs().max_element() <= 4.0 * EPS,
            "vertex {v}: n {:?} vs {n:?}",
            f.normal
        );
        assert!(
            (f.tangent - t).abs().max_element() <= 4.0 * EPS,
            "vertex {v}: t {:?} vs {t:?}",
            f.tangent
        );
        assert_eq!(f.handedness(), 1.0, "vertex {v}");
        assert_orthonormal(f, &format!("vertex {v}"));
    }
    // The procedural cube is wound counter-clockwise seen from outside.
    for tri in cube.indices.chunks_exact(3) {
        let q = [0, 1, 2].map(|k| cube.positions[tri[k] as usize]);
        let face = (q[1] - q[0]).cross(q[2] - q[0]);
        assert!(
            face.dot(shapes::CUBE_FACES[tri[0] as usize / 4].0) > 0.0,
            "triangle {tri:?}"
        );
    }
}

#[test]
fn generated_normals_honour_splits_and_smoothing_ids() {
    let cube = shapes::cube();
    // No ids: the cube's 24 vertices are split per face, so each gets its face normal exactly
    // (unit axis vectors: cross products of ±1-length axis edges, normalised exactly).
    let (n, fallbacks) = normals::angle_weighted(&cube.positions, &cube.indices, None);
    assert_eq!(fallbacks, 0);
    for (v, n) in n.iter().enumerate() {
        assert_eq!(*n, shapes::CUBE_FACES[v / 4].0, "vertex {v}");
    }
    // Ids that weld the 8 corners: each corner sees three faces, each with a total corner angle
    // of 90°, so its normal is the diagonal (±1, ±1, ±1)/√3 — up to f32 sums of angles (atan2,
    // ≤ 2ε relative each) and one normalisation: 8ε per component.
    let ids: Vec<u32> = cube
        .positions
        .iter()
        .map(|p| u32::from(p.x > 0.0) | u32::from(p.y > 0.0) << 1 | u32::from(p.z > 0.0) << 2)
        .collect();
    let (n, _) = normals::angle_weighted(&cube.positions, &cube.indices, Some(&ids));
    for (v, n) in n.iter().enumerate() {
        let expected = cube.positions[v].signum() / 3f32.sqrt();
        assert!(
            (*n - expected).abs().max_element() <= 8.0 * EPS,
            "vertex {v}: {n:?} vs {expected:?}"
        );
    }
}

/// The cube welded to its 8 corners, without normals or UVs.
fn welded_cube() -> Primitive {
    let cube = shapes::cube();
    let corner =
        |p: Vec3| u32::from(p.x > 0.0) | u32::from(p.y > 0.0) << 1 | u32::from(p.z > 0.0) << 2;
    let mut positions = vec![Vec3::ZERO; 8];
    for p in &cube.positions {
        positions[corner(*p) as usize] = *p;
    }
    Primitive {
        label: "welded cube".into(),
        positions,
        indices: cube
            .indices
            .iter()
            .map(|&v| corner(cube.positions[v as usize]))
            .collect(),
        ..Primitive::default()
    }
}

#[test]
fn a_normal_less_welded_mesh_is_shaded_flat_when_asked() {
    // glTF's rule (the loader sets `flat_normals`): every corner of every triangle takes its
    // face's normal, an axis here (cross products of axis edges, normalised exactly), so each
    // of the 8 corners splits into one vertex per face it touches: 24 in all.
    let cube = shapes::cube();
    let flat = Primitive {
        flat_normals: true,
        ..welded_cube()
    }
    .prepare()
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(flat.frames.len(), 24, "one vertex per corner and face");
    assert_eq!(flat.stats.normals, Source::Generated);
    for (t, tri) in flat.indices.chunks_exact(3).enumerate() {
        let face = shapes::CUBE_FACES[cube.indices[3 * t] as usize / 4].0;
        for &v in tri {
            assert_eq!(
                flat.frames[v as usize].normal, face,
                "triangle {t} vertex {v}"
            );
            assert_orthonormal(&flat.frames[v as usize], "flat");
        }
    }
    // Without the flag the same mesh is smooth: 8 vertices, each on its corner's diagonal
    // (within the 8ε of the smoothing test above).
    let smooth = welded_cube().prepare().unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(smooth.frames.len(), 8);
    for (v, f) in smooth.frames.iter().enumerate() {
        let expected = smooth.positions[v].signum() / 3f32.sqrt();
        assert!(
            (f.normal - expected).abs().max_element() <= 8.0 * EPS,
            "vertex {v}"
        );
    }
}

#[test]
fn generated_normals_on_a_sphere_are_within_the_triangle_circumradius() {
    let sphere = shapes::uv_sphere(32, 16);
    let (n, fallbacks) = normals::angle_weighted(&sphere.positions, &sphere.indices, None);
    assert_eq!(fallbacks, 0);
    // A triangle inscribed in the unit sphere has its face normal at angular distance ρ from each
    // of its vertices, where sin ρ = its circumradius. An angle-weighted average of face normals
    // that all lie within ρ_max of the vertex lies within ρ_max too (a cone is convex). Poles are
    // repeated per column, so there each vertex sees only its own column's triangle: same bound.
    let mut rho_max = 0.0f32;
    for tri in sphere.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|k| sphere.positions[tri[k] as usize]);
        let (ab, ac, bc) = ((b - a).length(), (c - a).length(), (c - b).length());
        let area2 = (b - a).cross(c - a).length();
        rho_max = rho_max.max((ab * ac * bc / (2.0 * area2)).asin());
    }
    // f32 slack: positions carry 6e-8 rounding; the face normals come from cross products of
    // edges ≥ 0.02 long, so each face normal's direction is good to ~1e-5 rad.
    let bound = rho_max + 1e-5;
    for (v, n) in n.iter().enumerate() {
        let a = angle(*n, sphere.positions[v]);
        assert!(
            a <= bound,
            "vertex {v}: {a} rad from the radial direction, bound {bound}"
        );
    }
}

/// Checks MikkTSpace tangents on a surface of revolution around +Y whose `u` runs around the
/// axis in `segments` columns: every triangle's tangent is a chord of a horizontal circle
/// spanning one column, so it is horizontal and within Δφ/2 = π/segments of the analytic tangent
/// at each of its corners. Projecting into a vertex's tangent plane and averaging keeps it in
/// that cone (see the torus/sphere derivation in the README), so the vertex tangent is within
/// π/segments of the analytic one. f32 slack: 1e-5 rad, as for the normals.
fn check_revolution_tangents(
    label: &str,
    p: &Primitive,
    segments: u32,
    skip: impl Fn(usize) -> bool,
) {
    // The procedural mesh is wound counter-clockwise seen from outside.
    let normals = p.normals.as_deref().unwrap_or_default();
    for tri in p.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|k| p.positions[tri[k] as usize]);
        assert!(
            (b - a).cross(c - a).dot(normals[tri[0] as usize]) > 0.0,
            "{label}: triangle {tri:?} faces inwards"
        );
    }
    let prepared = p.prepare().unwrap_or_else(|e| panic!("{label}: {e}"));
    let s = prepared.stats;
    let irregular = [s.split_vertices, s.mirrored_triangles];
    let repaired = [s.degenerate_uv_triangles, s.fallback_frames];
    assert_eq!(
        irregular,
        [0, 0],
        "{label}: split vertices, mirrored triangles"
    );
    assert_eq!(
        repaired,
        [0, 0],
        "{label}: degenerate-UV triangles, fallback frames"
    );
    let bound = PI / segments as f32 + 1e-5;
    let mut worst = 0.0f32;
    for (v, f) in prepared.frames.iter().enumerate() {
        assert_orthonormal(f, &format!("{label} vertex {v}"));
        assert_eq!(f.handedness(), 1.0, "{label} vertex {v}");
        if skip(v) {
            continue;
        }
        let phi = p.uvs.as_ref().map_or(0.0, |uv| uv[v].x) * TAU;
        let expected = Vec3::new(-phi.sin(), 0.0, -phi.cos());
        let a = angle(f.tangent, expected);
        worst = worst.max(a);
        assert!(
            a <= bound,
            "{label} vertex {v}: tangent {a} rad from analytic, bound {bound}"
        );
    }
    println!("{label}: worst tangent angle {worst:.5} rad, bound {bound:.5}");
}

#[test]
fn uv_sphere_tangents_follow_the_longitude() {
    let (segments, rings) = (32, 16);
    let sphere = shapes::uv_sphere(segments, rings);
    let (s, row) = (segments as usize, (segments + 1) as usize);
    // Pole vertices have no analytic tangent (dP/dφ = 0 there): only checked for validity.
    let is_pole = |v: usize| v < s || v >= s + row * (rings as usize - 1);
    check_revolution_tangents("UV sphere", &sphere, segments, is_pole);
}

#[test]
fn torus_tangents_follow_the_major_circle() {
    let segments = 48;
    check_revolution_tangents(
        "torus",
        &Primitive::torus(1.0, 0.3, segments, 24),
        segments,
        |_| false,
    );
}

#[test]
fn mirrored_quad_pair_splits_the_seam() {
    let prim = shapes::mirrored_quad_pair();
    let p = prim.prepare().unwrap_or_else(|e| panic!("{e}"));
    let s = p.stats;
    // Two shared seam vertices (x = 1), each needed with both handednesses.
    assert_eq!(
        (
            s.vertices_in,
            s.vertices,
            s.split_vertices,
            s.mirror_split_vertices
        ),
        (6, 8, 2, 2)
    );
    assert_eq!((s.triangles, s.mirrored_triangles), (4, 2));
    for (tri_index, tri) in p.indices.chunks_exact(3).enumerate() {
        let right = tri_index >= 2; // triangles 2 and 3 are the mirrored quad
        for &v in tri {
            let f = p.frames[v as usize];
            let (t, h) = if right {
                (Vec3::NEG_X, -1.0)
            } else {
                (Vec3::X, 1.0)
            };
            // Exact inputs (unit squares, UVs 0 or 1): 4ε as for the cube.
            assert!(
                (f.tangent - t).abs().max_element() <= 4.0 * EPS,
                "triangle {tri_index} vertex {v}: {:?}",
                f.tangent
            );
            assert!((f.normal - Vec3::Z).abs().max_element() <= 4.0 * EPS);
            assert!(
                (f.bitangent - Vec3::Y).abs().max_element() <= 4.0 * EPS,
                "b is +Y on both sides"
            );
            assert_eq!(f.handedness(), h);
        }
    }
    // Every split vertex repeats its source's position and UV.
    for (v, &src) in p.source_vertex.iter().enumerate() {
        assert_eq!(p.positions[v], prim.positions[src as usize]);
        assert_eq!(Some(p.uvs[v]), prim.uvs.as_ref().map(|uv| uv[src as usize]));
    }
}

#[test]
fn a_mesh_without_uvs_gets_valid_frames_from_its_normals() {
    let mut sphere = shapes::uv_sphere(12, 6);
    sphere.uvs = None;
    let p = sphere.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.stats.tangents, Source::FromNormal);
    assert_eq!(p.stats.fallback_frames, p.frames.len());
    for (v, f) in p.frames.iter().enumerate() {
        assert_orthonormal(f, &format!("vertex {v}"));
        assert!(
            (f.normal - sphere.positions[v]).abs().max_element() <= 4.0 * EPS,
            "vertex {v}"
        );
        assert_eq!(f.handedness(), 1.0);
    }
}

#[test]
fn degenerate_uv_triangles_are_counted_and_get_fallback_frames() {
    let mut quad = shapes::mirrored_quad_pair();
    // A fan triangle off the left quad whose new vertex repeats vertex 3's UV: zero UV area.
    quad.positions.push(Vec3::new(-1.0, 1.0, 0.0));
    if let Some(n) = quad.normals.as_mut() {
        n.push(Vec3::Z);
    }
    let uv3 = quad.uvs.as_ref().map_or(Vec2::ZERO, |uv| uv[3]);
    if let Some(uv) = quad.uvs.as_mut() {
        uv.push(uv3 + Vec2::new(0.0, 1e-9));
    }
    quad.indices.extend([0, 3, 6]);
    let p = quad.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.stats.degenerate_uv_triangles, 1);
    for (v, f) in p.frames.iter().enumerate() {
        assert_orthonormal(f, &format!("vertex {v}"));
    }
    // Vertex 6 touches only the degenerate triangle: MikkTSpace has nothing to give it, so its
    // frame is the documented one built from the normal.
    let v6 = p
        .source_vertex
        .iter()
        .position(|&s| s == 6)
        .unwrap_or(usize::MAX);
    let expected = qtangent::mesh::tangents::frame_from_normal(Vec3::Z, 1.0);
    assert_eq!(p.frames.get(v6), Some(&expected));
    assert!(p.stats.fallback_frames >= 1);
}

#[test]
fn vertex_stream_interleaves_position_uv_and_qtangent() {
    let p = Primitive::torus(1.0, 0.3, 12, 8)
        .prepare()
        .unwrap_or_else(|e| panic!("{e}"));
    for format in Format::ALL {
        let s = p.vertex_stream(format);
        assert_eq!(
            s.stride,
            20 + format.bytes().next_multiple_of(4),
            "{}",
            format.name()
        );
        assert_eq!(s.stride % 4, 0, "WebGPU strides are multiples of 4");
        assert_eq!(s.bytes.len(), s.stride * p.frames.len());
        for v in 0..s.vertex_count {
            let at = |o: usize| {
                f32::from_le_bytes(
                    s.bytes[v * s.stride + o..][..4]
                        .try_into()
                        .unwrap_or_default(),
                )
            };
            assert_eq!(Vec3::new(at(0), at(4), at(8)), p.positions[v]);
            assert_eq!(Vec2::new(at(12), at(16)), p.uvs[v]);
            let start = v * s.stride + vertex::QTANGENT_OFFSET;
            let mut expected = Vec::new();
            format.encode_into(&p.frames[v].to_qtangent(), &mut expected);
            assert_eq!(
                &s.bytes[start..start + format.bytes()],
                &expected[..],
                "{} vertex {v}",
                format.name()
            );
            assert!(
                s.bytes[start + format.bytes()..(v + 1) * s.stride]
                    .iter()
                    .all(|&b| b == 0),
                "padding is zero"
            );
        }
        // Decoded from the stream, every frame is within the format's bound.
        let e = s.errors_against(&p.frames);
        crate::common::assert_within_format_bound(&p.label, format, &e);
    }
}

/// A primitive whose triangles use part of its vertex pool (OBJ groups and glTF primitives
/// share one) keeps those vertices alone, each still naming its file vertex.
#[test]
fn only_the_vertices_a_primitive_uses_are_kept() {
    let mut cube = shapes::cube();
    // The first face alone: two triangles over four of the 24 vertices.
    cube.indices.truncate(6);
    let used: std::collections::BTreeSet<u32> = cube.indices.iter().copied().collect();
    let p = cube.prepare().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.frames.len(), used.len());
    assert_eq!(p.stats.vertices, used.len());
    assert_eq!(p.stats.fallback_frames, 0);
    let kept: std::collections::BTreeSet<u32> = p.source_vertex.iter().copied().collect();
    assert_eq!(kept, used);
    for (k, &i) in p.indices.iter().enumerate() {
        assert_eq!(p.source_vertex[i as usize], cube.indices[k], "corner {k}");
        assert_eq!(
            p.positions[i as usize],
            cube.positions[cube.indices[k] as usize]
        );
    }
}
