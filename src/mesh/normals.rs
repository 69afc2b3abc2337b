//! Smooth vertex normals for meshes that have none, weighted by the corner angle (Thürmer and
//! Wüthrich, "Computing vertex normals from polygonal facets", 1998): a vertex's normal is the
//! sum of its triangles' unit normals, each times the triangle's angle at that vertex, so the
//! result does not depend on how a flat region is triangulated.

use glam::Vec3;

/// The unit normal of triangle `p` (counter-clockwise front), `None` where it has (nearly) no
/// area.
#[must_use]
pub(crate) fn face_normal(p: [Vec3; 3]) -> Option<Vec3> {
    (p[1] - p[0]).cross(p[2] - p[0]).try_normalize()
}

/// Angle-weighted normals, one per vertex, and how many vertices got the fallback.
///
/// Vertices with the same `smoothing_ids` entry share one normal (OBJ: the position index);
/// with `None` every vertex is its own group, so vertices the file split (hard edges) stay
/// split. Triangles with (near) zero area add nothing. A vertex whose triangles are all
/// degenerate, or whose weighted normals cancel, gets the fallback normal +Z and is counted;
/// such a vertex only touches zero-area triangles or a sheet folded onto itself.
///
/// `indices` must be in range (as [`super::Primitive::validate`] makes them).
#[must_use]
pub(crate) fn angle_weighted(
    positions: &[Vec3],
    indices: &[u32],
    smoothing_ids: Option<&[u32]>,
) -> (Vec<Vec3>, usize) {
    let group = |v: u32| smoothing_ids.map_or(v, |ids| ids[v as usize]) as usize;
    let groups = smoothing_ids.map_or(positions.len(), |ids| {
        ids.iter().max().map_or(0, |&m| m as usize + 1)
    });
    let mut sum = vec![Vec3::ZERO; groups];
    for tri in indices.chunks_exact(3) {
        let p = [0, 1, 2].map(|k| positions[tri[k] as usize]);
        let Some(face) = face_normal(p) else {
            continue;
        };
        for k in 0..3 {
            let e1 = p[(k + 1) % 3] - p[k];
            let e2 = p[(k + 2) % 3] - p[k];
            // atan2(|e1 × e2|, e1 · e2) is accurate at every angle, unlike acos of a dot product.
            let angle = e1.cross(e2).length().atan2(e1.dot(e2));
            sum[group(tri[k])] += face * angle;
        }
    }
    let mut fallbacks = 0;
    let normals = (0..positions.len())
        .map(|v| {
            sum[group(v as u32)].try_normalize().unwrap_or_else(|| {
                fallbacks += 1;
                Vec3::Z
            })
        })
        .collect();
    (normals, fallbacks)
}
