//! Vertex order for the GPU, as gltfpack writes it: triangles reordered for the post-transform
//! vertex cache, then vertices renumbered in the order the triangles first use them (fewer
//! memory fetches, and the deltas meshopt's vertex codec compresses are small), both through
//! meshoptimizer (`meshopt`). Vertices no triangle uses are dropped. Each triangle's corners
//! are then turned (winding kept) as meshoptimizer's index codec stores them, so a file written
//! with `--compress meshopt` and one without hold the same triangles byte for byte. The triangles
//! themselves and every vertex's values are unchanged.

use glam::Vec2;

use crate::mesh::Prepared;

/// `p` and its per-vertex `extra` values (the object-space map's UVs) in the optimised order.
pub(super) fn optimised(p: &Prepared, extra: Option<&[Vec2]>) -> (Prepared, Option<Vec<Vec2>>) {
    let count = p.positions.len();
    let cached = meshopt::optimize_vertex_cache(&p.indices, count);
    // remap[old] = new, or u32::MAX for a vertex no triangle uses.
    let remap = meshopt::optimize_vertex_fetch_remap(&cached, count);
    let kept = remap.iter().filter(|&&r| r != u32::MAX).count();
    let out = Prepared {
        label: p.label.clone(),
        positions: order_vec(&p.positions, &remap, kept),
        uvs: order_vec(&p.uvs, &remap, kept),
        frames: order_vec(&p.frames, &remap, kept),
        indices: codec_rotation(cached.iter().map(|&i| remap[i as usize]).collect(), kept),
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

/// `indices` as meshoptimizer's index codec decodes them: the same triangles in the same order,
/// each turned to the corner the codec starts it from (`indices` unchanged if the codec fails,
/// which it does not for a triangle list).
fn codec_rotation(indices: Vec<u32>, vertices: usize) -> Vec<u32> {
    let decoded = meshopt::encode_index_buffer(&indices, vertices)
        .and_then(|e| meshopt::decode_index_buffer::<u32>(&e, indices.len()));
    decoded.unwrap_or(indices)
}
