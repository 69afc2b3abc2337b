//! Vertex order for the GPU, as gltfpack writes it: triangles reordered for the post-transform
//! vertex cache by meshoptimizer (`meshopt`), in the strip-like order gltfpack's `-cc` uses (a
//! little worse for the cache than the plain order and a few percent smaller compressed:
//! FlightHelmet's mesh data 653 kB → 625 kB), then vertices renumbered in the order the triangles
//! first use them (fewer memory fetches, and the deltas meshopt's vertex codec compresses are
//! small). Vertices no triangle uses are dropped. The writer then turns each triangle's corners
//! (winding kept) as meshoptimizer's index codec stores the file's merged index view
//! (`Builder::merge_views`), whether the file is compressed or not, so a file written with
//! `--compress meshopt` and one without hold the same bytes. The triangles themselves and every vertex's values are unchanged.

use glam::Vec2;

use crate::mesh::Prepared;

/// `p` and its per-vertex `extra` values (the object-space map's UVs) in the optimised order.
pub(super) fn optimised(p: &Prepared, extra: Option<&[Vec2]>) -> (Prepared, Option<Vec<Vec2>>) {
    let count = p.positions.len();
    let cached = meshopt::optimize_vertex_cache_strip(&p.indices, count);
    let (remap, kept) = first_use(&cached, count);
    let out = Prepared {
        label: p.label.clone(),
        positions: order_vec(&p.positions, &remap, kept),
        uvs: order_vec(&p.uvs, &remap, kept),
        frames: order_vec(&p.frames, &remap, kept),
        indices: cached.iter().map(|&i| remap[i as usize]).collect(),
        source_vertex: order_vec(&p.source_vertex, &remap, kept),
        joints: p
            .joints
            .iter()
            .map(|j| order_vec(j, &remap, kept))
            .collect(),
        weights: p
            .weights
            .iter()
            .map(|w| order_vec(w, &remap, kept))
            .collect(),
        stats: p.stats,
    };
    (out, extra.map(|e| order_vec(e, &remap, kept)))
}

/// Each of `count` vertices' new number, in the order `indices` first use them (what
/// meshoptimizer's `optimizeVertexFetchRemap` computes; the crate's wrapper shortens the table to
/// the vertices used, which loses the entries of unused ones), `u32::MAX` for a vertex no
/// triangle uses; and how many are used. Indices past `count` are ignored (the prepared
/// primitive has none).
fn first_use(indices: &[u32], count: usize) -> (Vec<u32>, usize) {
    let mut remap = vec![u32::MAX; count];
    let mut next = 0u32;
    for &i in indices {
        if let Some(r) = remap.get_mut(i as usize) {
            if *r == u32::MAX {
                *r = next;
                next += 1;
            }
        }
    }
    (remap, next as usize)
}

/// `values` moved to their new places (`remap`), those without one dropped; an attribute
/// shorter than the vertex count (UVs of a primitive without them) stays as it is.
fn order_vec<T: Copy>(values: &[T], remap: &[u32], kept: usize) -> Vec<T> {
    if values.len() != remap.len() {
        return values.to_vec();
    }
    let mut out: Vec<Option<T>> = vec![None; kept];
    for (v, &r) in values.iter().zip(remap) {
        if let Some(slot) = out.get_mut(r as usize) {
            *slot = Some(*v);
        }
    }
    out.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::optimised;
    use crate::mesh::Primitive;

    /// Vertices no triangle uses — the first one, and a tail — leave; every triangle keeps its
    /// corners' values and its winding.
    #[test]
    fn unused_vertices_leave_and_triangles_keep_their_corners() {
        let torus = Primitive::torus(1.0, 0.4, 4, 3)
            .prepare()
            .unwrap_or_else(|e| panic!("{e}"));
        let mut p = torus.clone();
        // Renumber so that vertex 0 and the last two are used by no triangle.
        let n = p.positions.len() as u32;
        let shift = |i: u32| i + 1;
        p.indices = torus.indices.iter().map(|&i| shift(i)).collect();
        fn pad<T: Copy>(v: &mut Vec<T>) {
            let first = v[0];
            v.insert(0, first);
            v.push(first);
            v.push(first);
        }
        pad(&mut p.positions);
        pad(&mut p.uvs);
        pad(&mut p.frames);
        pad(&mut p.source_vertex);
        let (out, _) = optimised(&p, None);
        assert_eq!(
            out.positions.len(),
            n as usize,
            "the three unused vertices left"
        );
        let corners = |q: &crate::mesh::Prepared| -> Vec<[[u32; 3]; 3]> {
            let mut t: Vec<[[u32; 3]; 3]> = q
                .indices
                .chunks_exact(3)
                .map(|t| {
                    let c =
                        [0, 1, 2].map(|k| q.positions[t[k] as usize].to_array().map(f32::to_bits));
                    // Turned to start at the smallest corner: the same triangle, the same winding.
                    let m = (0..3).min_by_key(|&k| c[k]).unwrap_or(0);
                    [c[m], c[(m + 1) % 3], c[(m + 2) % 3]]
                })
                .collect();
            t.sort_unstable();
            t
        };
        assert_eq!(corners(&out), corners(&torus));
    }
}
