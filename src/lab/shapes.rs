//! Procedural meshes with analytically known frames, for the tests and demos (through
//! `lab::content`): a cube, a UV sphere, a pair of quads with mirrored UVs, a plate, and for the
//! tests a skinned cylinder (the torus is `Primitive::torus`, `mesh::torus`). Each comes with exact normals and UVs
//! (glTF convention, v down) and no tangents, so [`Primitive::prepare`] runs MikkTSpace on them.
//!
//! The UVs are laid out so that unmirrored surfaces have handedness +1: `u` runs along the
//! tangent and `1 − v` along `cross(normal, tangent)`.

use std::f32::consts::TAU;

use glam::{Vec2, Vec3};

#[cfg(test)]
use crate::mesh::torus::grid_triangles;
use crate::mesh::torus::primitive;
#[cfg(test)]
pub(crate) use crate::mesh::torus::torus_point;
use crate::mesh::Primitive;

/// The six faces of a cube as (normal, tangent): `u` runs along the tangent, `v` (down) along
/// `−cross(normal, tangent)`.
pub(crate) const CUBE_FACES: [(Vec3, Vec3); 6] = [
    (Vec3::X, Vec3::NEG_Z),
    (Vec3::NEG_X, Vec3::Z),
    (Vec3::Y, Vec3::X),
    (Vec3::NEG_Y, Vec3::X),
    (Vec3::Z, Vec3::X),
    (Vec3::NEG_Z, Vec3::NEG_X),
];

/// A unit cube centred on the origin: 24 vertices (4 per face, so faces keep their own normal),
/// 12 triangles wound counter-clockwise seen from outside, each face mapped to the whole
/// `[0, 1]²` UV square. Frames: `CUBE_FACES`, handedness +1.
#[must_use]
pub(crate) fn cube() -> Primitive {
    let (mut p, mut n, mut uv, mut idx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (normal, tangent) in CUBE_FACES {
        let up = normal.cross(tangent); // the bitangent: direction of 1 - v
        let base = p.len() as u32;
        for (u, v) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            p.push(normal * 0.5 + tangent * (u - 0.5) + up * (0.5 - v));
            n.push(normal);
            uv.push(Vec2::new(u, v));
        }
        // (0,0) top-left, (1,0) top-right, (1,1) bottom-right: clockwise in UV with v down is
        // counter-clockwise seen from the normal side, since (t, up, n) is right-handed.
        idx.extend([base, base + 2, base + 1, base, base + 3, base + 2]);
    }
    primitive("procedural cube", p, n, uv, idx)
}

/// Point on the unit sphere at colatitude `theta` (0 at +Y) and longitude `phi`. The tangent
/// (`dP/dphi`, normalised) is `(−sin phi, 0, −cos phi)`; with `u = phi / 2π` and
/// `v = theta / π` the bitangent `cross(n, t)` points north (towards `1 − v`).
#[must_use]
pub(crate) fn sphere_point(theta: f32, phi: f32) -> Vec3 {
    Vec3::new(
        theta.sin() * phi.cos(),
        theta.cos(),
        -theta.sin() * phi.sin(),
    )
}

/// A UV sphere of radius 1: `segments` columns of longitude, `rings` rows of latitude. The poles
/// get one vertex per column (at the column's middle longitude, so its UV is the column's), the
/// seam column is repeated (its UVs differ), and the pole rows are single triangles, so no
/// triangle is degenerate and every vertex is used.
///
/// Layout: `segments` north-pole vertices (UV `((j + ½) / segments, 0)`), then rings `i` in
/// `1..rings`, each `segments + 1` vertices at `sphere_point(π i / rings, 2π j / segments)` with
/// UV `(j / segments, i / rings)`, then `segments` south-pole vertices.
///
/// # Panics
/// If `segments < 3` or `rings < 2`.
#[must_use]
pub(crate) fn uv_sphere(segments: u32, rings: u32) -> Primitive {
    assert!(
        segments >= 3 && rings >= 2,
        "a UV sphere needs at least 3 segments and 2 rings"
    );
    let (mut p, mut uv) = (Vec::new(), Vec::new());
    let mut push = |u: f32, v: f32| {
        p.push(sphere_point(v * std::f32::consts::PI, u * TAU));
        uv.push(Vec2::new(u, v));
    };
    for j in 0..segments {
        push((j as f32 + 0.5) / segments as f32, 0.0);
    }
    for i in 1..rings {
        for j in 0..=segments {
            push(j as f32 / segments as f32, i as f32 / rings as f32);
        }
    }
    for j in 0..segments {
        push((j as f32 + 0.5) / segments as f32, 1.0);
    }
    let row = segments + 1;
    // Vertex (i, j) of ring i in 1..rings.
    let at = |i: u32, j: u32| segments + (i - 1) * row + j;
    let south = segments + (rings - 1) * row;
    let mut idx = Vec::new();
    for j in 0..segments {
        idx.extend([j, at(1, j), at(1, j + 1)]);
        for i in 1..rings - 1 {
            let (a, b, c, d) = (at(i, j), at(i, j + 1), at(i + 1, j), at(i + 1, j + 1));
            idx.extend([a, c, b, b, c, d]);
        }
        idx.extend([at(rings - 1, j), south + j, at(rings - 1, j + 1)]);
    }
    let n = p.clone();
    primitive("procedural UV sphere", p, n, uv, idx)
}

/// Two unit quads side by side in the z = 0 plane, normal +Z, sharing the edge x = 1. The left
/// quad's `u` runs with +x (tangent +X, handedness +1); the right quad's `u` runs back (tangent
/// −X, handedness −1): a mirror seam, as on a symmetric character. The two shared vertices have
/// the same UV on both sides, so the file-level mesh has 6 vertices and `prepare` must split 2.
#[must_use]
pub(crate) fn mirrored_quad_pair() -> Primitive {
    let mut p = Vec::new();
    let mut uv = Vec::new();
    for y in [0.0, 1.0] {
        for x in [0.0, 1.0, 2.0] {
            p.push(Vec3::new(x, y, 0.0));
            let u = if x <= 1.0 { x } else { 2.0 - x };
            uv.push(Vec2::new(u, 1.0 - y));
        }
    }
    // 0 1 2 bottom row, 3 4 5 top row; counter-clockwise seen from +Z.
    let idx = vec![0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4];
    primitive(
        "procedural mirrored quad pair",
        p,
        vec![Vec3::Z; 6],
        uv,
        idx,
    )
}

#[cfg(test)]
/// An open cylinder of `radius` along +y from 0 to `length`, skinned to a chain of `bones`
/// joints spaced evenly along the axis (joint `j` at `y = j·length/(bones − 1)`): each vertex
/// blends the two joints around it linearly in y (`JOINTS_0 = [j, j+1, 0, 0]`, `WEIGHTS_0 =
/// [1−f, f, 0, 0]`). Normals point away from the axis; `u` runs around it (tangent = the
/// direction of increasing angle), `v` along it. The skin's inverse bind matrices are
/// [`skinned_cylinder_inverse_bind`]. With two joints and the second twisted about y, linear
/// blending collapses the middle (the candy wrapper) and dual quaternions do not.
///
/// # Panics
/// If `segments < 3`, `rings < 1`, `bones < 2` or the sizes are not positive.
#[must_use]
pub(crate) fn skinned_cylinder(
    radius: f32,
    length: f32,
    segments: u32,
    rings: u32,
    bones: u16,
) -> Primitive {
    assert!(
        segments >= 3 && rings >= 1 && bones >= 2,
        "a skinned cylinder needs 3 segments, 1 ring and 2 bones"
    );
    assert!(
        radius > 0.0 && length > 0.0,
        "a skinned cylinder needs a positive radius and length"
    );
    let (mut p, mut n, mut uv, mut joints, mut weights) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let spans = f32::from(bones - 1);
    for i in 0..=rings {
        let v = i as f32 / rings as f32;
        let along = v * spans;
        let j = (along.floor() as u16).min(bones - 2);
        let f = along - f32::from(j);
        for s in 0..=segments {
            let u = s as f32 / segments as f32;
            let (sin, cos) = (u * TAU).sin_cos();
            let normal = Vec3::new(cos, 0.0, -sin);
            p.push(normal * radius + Vec3::Y * (v * length));
            n.push(normal);
            uv.push(Vec2::new(u, 1.0 - v));
            joints.push([j, j + 1, 0, 0]);
            weights.push([1.0 - f, f, 0.0, 0.0]);
        }
    }
    // The cylinder's rows run the other way round the axis: the grid's triangles reversed.
    let idx = grid_triangles(rings, segments)
        .flat_map(|[a, b, c]| [a, c, b])
        .collect();
    Primitive {
        joints: vec![joints],
        weights: vec![weights],
        ..primitive("procedural skinned cylinder", p, n, uv, idx)
    }
}

#[cfg(test)]
/// The inverse bind matrices of [`skinned_cylinder`]'s joints: translations by `−y_j`.
#[must_use]
pub(crate) fn skinned_cylinder_inverse_bind(length: f32, bones: u16) -> Vec<glam::Mat4> {
    (0..bones)
        .map(|j| {
            glam::Mat4::from_translation(Vec3::new(
                0.0,
                -length * f32::from(j) / f32::from(bones - 1),
                0.0,
            ))
        })
        .collect()
}

/// A square plate of side `size` in the y = 0 plane facing +Y, UV `[0, 1]²` (u along +X, v
/// along +Z), as a 16 × 16 grid so the vertex interpolation has vertices to work with.
#[must_use]
pub(crate) fn plate(size: f32) -> Primitive {
    let n = 16u32;
    let (mut p, mut nor, mut uv, mut idx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for j in 0..=n {
        for i in 0..=n {
            let (u, v) = (i as f32 / n as f32, j as f32 / n as f32);
            p.push(Vec3::new((u - 0.5) * size, 0.0, (v - 0.5) * size));
            nor.push(Vec3::Y);
            uv.push(Vec2::new(u, v));
        }
    }
    for j in 0..n {
        for i in 0..n {
            let a = j * (n + 1) + i;
            let (b, c, d) = (a + 1, a + n + 1, a + n + 2);
            // Counter-clockwise seen from +Y.
            idx.extend([a, c, b, b, c, d]);
        }
    }
    Primitive {
        label: "procedural plate".into(),
        positions: p,
        normals: Some(nor),
        uvs: Some(uv),
        indices: idx,
        ..Default::default()
    }
}
