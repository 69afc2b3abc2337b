//! The procedural torus, the embedded default mesh of the tools and the examples
//! (`Primitive::torus`): exact normals and UVs (glTF convention, v down), no tangents, so
//! [`Primitive::prepare`] runs MikkTSpace on it; `u` runs along the tangent and `1 − v` along
//! `cross(normal, tangent)` (handedness +1). The lab's shapes (`lab::shapes`) build on its
//! helpers.

use std::f32::consts::TAU;

use glam::{Vec2, Vec3};

use super::Primitive;

/// A primitive of `label` from positions, normals, UVs and indices.
pub(crate) fn primitive(
    label: &str,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    indices: Vec<u32>,
) -> Primitive {
    Primitive {
        label: label.to_owned(),
        positions,
        normals: Some(normals),
        uvs: Some(uvs),
        indices,
        ..Default::default()
    }
}

/// Point on a torus around +Y with major radius `major`, minor radius `minor`, at major angle
/// `phi` and minor angle `psi`; returns (position, normal). The tangent is
/// `(−sin phi, 0, −cos phi)`.
#[must_use]
pub(crate) fn torus_point(major: f32, minor: f32, phi: f32, psi: f32) -> (Vec3, Vec3) {
    let n = Vec3::new(psi.cos() * phi.cos(), psi.sin(), -psi.cos() * phi.sin());
    let centre = Vec3::new(phi.cos(), 0.0, -phi.sin()) * major;
    (centre + n * minor, n)
}

impl Primitive {
    /// A torus: vertex `(i, j)` (`i` in `0..=rings` around the tube, `j` in `0..=segments` around
    /// the axis) is index `i * (segments + 1) + j`, at `torus_point(major, minor, 2π j / segments,
    /// −2π i / rings)` with UV `(j / segments, i / rings)` (the minus sign makes `1 − v` run along
    /// `cross(n, t)`, handedness +1).
    ///
    /// # Panics
    /// If `segments < 3`, `rings < 3`, or not `0 < minor < major`.
    #[must_use]
    pub fn torus(major: f32, minor: f32, segments: u32, rings: u32) -> Self {
        assert!(
            segments >= 3 && rings >= 3,
            "a torus needs at least 3 segments and 3 rings"
        );
        assert!(
            0.0 < minor && minor < major,
            "a torus needs 0 < minor < major"
        );
        let (mut p, mut n, mut uv) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..=rings {
            for j in 0..=segments {
                let (u, v) = (j as f32 / segments as f32, i as f32 / rings as f32);
                let (pos, normal) = torus_point(major, minor, u * TAU, -v * TAU);
                p.push(pos);
                n.push(normal);
                uv.push(Vec2::new(u, v));
            }
        }
        let idx = grid_triangles(rings, segments).flatten().collect();
        primitive("procedural torus", p, n, uv, idx)
    }
}

/// The triangles of a grid of `rows` × `cols` quads over `(rows + 1) × (cols + 1)` vertices in
/// row order: each quad `a b / c d` (a at row i, column j) as `a c b` and `b c d`.
pub(crate) fn grid_triangles(rows: u32, cols: u32) -> impl Iterator<Item = [u32; 3]> {
    let row = cols + 1;
    (0..rows).flat_map(move |i| {
        (0..cols).flat_map(move |j| {
            let (a, b) = (i * row + j, i * row + j + 1);
            let (c, d) = (a + row, b + row);
            [[a, c, b], [b, c, d]]
        })
    })
}
