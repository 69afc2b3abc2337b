//! A unique UV layout for meshes whose UVs overlap.
//!
//! A quaternion map stores object-space frames, so it needs what a lightmap needs: every point
//! of the surface its own texels. Colour and normal maps are often laid out with overlapping
//! UVs — the two mirrored halves of a character sharing one set of texels, the COLLADA duck's
//! 94% — and a map baked there holds one half's frames for both: the other half lights wrong.
//!
//! [`unique_layout`] repacks such a mesh: its connected parts (triangles sharing vertices) keep
//! their UV shapes and get separate places in a new square, shelf-packed with a gutter wide
//! enough for the bake's padding. The map is then baked in the new layout and sampled with it
//! (a second UV set in the vertex stream), while the normal map is read at the original UVs:
//! [`resample_normal_map`] moves it into the new layout first, so the bake itself is unchanged.

use glam::{Vec2, Vec3};

use super::{texel, BakeError, BakeMesh, BakeSettings, MapFormat, NormalMap};

/// Fraction of covered texels (at [`OVERLAP_PROBE_SIZE`]²) covered more than once above which
/// a mesh gets a unique layout. A few texels along shared edges are covered twice by the
/// top-left rule's neighbours' fringes, never by real overlap; 1% is far above that noise and
/// far below a mirrored half (≈ 50%).
pub(crate) const OVERLAP_THRESHOLD: f64 = 0.01;
/// Map side used to measure the overlap.
pub(crate) const OVERLAP_PROBE_SIZE: u32 = 256;

/// The fraction of covered texels covered by more than one triangle, at
/// [`OVERLAP_PROBE_SIZE`]².
///
/// # Errors
/// As [`super::raster_cpu`] (a mesh that fails [`BakeMesh::validate`]).
pub(crate) fn overlap_fraction(mesh: &BakeMesh) -> Result<f64, BakeError> {
    let settings = BakeSettings {
        width: OVERLAP_PROBE_SIZE,
        height: OVERLAP_PROBE_SIZE,
        padding: 0,
        format: MapFormat::Rgba16Float,
    };
    let r = super::raster_cpu(mesh, None, &settings, &mut ())?;
    let covered = r.coverage.iter().filter(|&&c| c > 0).count();
    let multiple = r.coverage.iter().filter(|&&c| c > 1).count();
    Ok(multiple as f64 / covered.max(1) as f64)
}

/// Connected parts of a mesh: triangles sharing a vertex index belong together. Returns the
/// part of every vertex (`u32::MAX` for vertices no triangle uses) and the number of parts.
#[must_use]
pub(crate) fn parts(mesh: &BakeMesh) -> (Vec<u32>, usize) {
    let n = mesh.uvs.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for t in mesh.indices.chunks_exact(3) {
        for k in 1..3 {
            let (a, b) = (
                root(&mut parent, t[0] as usize),
                root(&mut parent, t[k] as usize),
            );
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut used = vec![false; n];
    for &i in &mesh.indices {
        used[i as usize] = true;
    }
    let mut number = vec![u32::MAX; n];
    let mut part = vec![u32::MAX; n];
    let mut count = 0u32;
    for v in 0..n {
        if !used[v] {
            continue;
        }
        let r = root(&mut parent, v);
        if number[r] == u32::MAX {
            number[r] = count;
            count += 1;
        }
        part[v] = number[r];
    }
    (part, count as usize)
}

/// New UVs in `[0, 1]²` where no two parts ([`parts`]) overlap: each part's UVs are translated
/// (never scaled or turned relative to the others, so texel density stays even) and the whole
/// layout scaled to the unit square. Parts are shelf-packed tallest first with a gutter of
/// `gutter_texels` at a map of `size`² between them. Unused vertices keep their UVs.
#[must_use]
pub(crate) fn unique_layout(mesh: &BakeMesh, size: u32, gutter_texels: u32) -> Vec<Vec2> {
    let (part, count) = parts(mesh);
    let mut lo = vec![Vec2::splat(f32::INFINITY); count];
    let mut hi = vec![Vec2::splat(f32::NEG_INFINITY); count];
    for (v, &p) in part.iter().enumerate() {
        if p != u32::MAX {
            lo[p as usize] = lo[p as usize].min(mesh.uvs[v]);
            hi[p as usize] = hi[p as usize].max(mesh.uvs[v]);
        }
    }
    let ext: Vec<Vec2> = lo
        .iter()
        .zip(&hi)
        .map(|(a, b)| (*b - *a).max(Vec2::ZERO))
        .collect();
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by(|&a, &b| ext[b].y.total_cmp(&ext[a].y));
    let area: f32 = ext.iter().map(|e| e.x * e.y).sum();
    let widest = ext.iter().map(|e| e.x).fold(0.0f32, f32::max);
    let mut side = area.sqrt().max(widest).max(1e-6);
    let gutter_fraction = gutter_texels as f32 / size.max(1) as f32;
    loop {
        // The gutter in layout units: a fraction of the final side.
        let g = gutter_fraction * side;
        let mut offsets = vec![Vec2::ZERO; count];
        let (mut x, mut y, mut shelf) = (g, g, 0.0f32);
        let mut fits = true;
        for &p in &order {
            if x + ext[p].x + g > side && x > g {
                x = g;
                y += shelf + g;
                shelf = 0.0;
            }
            offsets[p] = Vec2::new(x, y);
            x += ext[p].x + g;
            shelf = shelf.max(ext[p].y);
            if x > side || y + shelf + g > side {
                fits = false;
                break;
            }
        }
        if fits {
            return mesh
                .uvs
                .iter()
                .zip(&part)
                .map(|(&uv, &p)| {
                    if p == u32::MAX {
                        uv
                    } else {
                        (uv - lo[p as usize] + offsets[p as usize]) / side
                    }
                })
                .collect();
        }
        side *= 1.05;
    }
}

/// The original UV of every texel of a `size`² map in a new layout: the original UV of the
/// surface point that the new layout puts at the texel's centre — or, for texels outside every
/// triangle, of the nearest point of the nearest triangle within `reach` texels; `None` beyond.
#[must_use]
pub(crate) fn source_uvs(
    mesh: &BakeMesh,
    new_uvs: &[Vec2],
    size: u32,
    reach: f32,
) -> Vec<Option<Vec2>> {
    let s = size as f32;
    let mut uvs = vec![None; (size * size) as usize];
    let mut best = vec![f32::INFINITY; (size * size) as usize];
    for t in mesh.indices.chunks_exact(3) {
        let p = [0, 1, 2].map(|k| new_uvs[t[k] as usize] * s);
        let src = [0, 1, 2].map(|k| mesh.uvs[t[k] as usize]);
        if texel::area2(&p).abs() < texel::MIN_AREA2 {
            continue;
        }
        let lo = p[0].min(p[1]).min(p[2]) - Vec2::splat(reach + 1.0);
        let hi = p[0].max(p[1]).max(p[2]) + Vec2::splat(reach + 1.0);
        let (x0, y0) = (lo.x.max(0.0) as u32, lo.y.max(0.0) as u32);
        let (x1, y1) = (
            hi.x.min(s - 1.0).max(0.0) as u32,
            hi.y.min(s - 1.0).max(0.0) as u32,
        );
        for y in y0..=y1 {
            for x in x0..=x1 {
                let c = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let (l, d) = texel::closest_barycentric(&p, c);
                let k = (y * size + x) as usize;
                if d <= reach && d < best[k] {
                    best[k] = d;
                    uvs[k] = Some(src[0] * l.x + src[1] * l.y + src[2] * l.z);
                }
            }
        }
    }
    uvs
}

/// The normal map moved into a new layout: texel (x, y) of the result holds the original map
/// sampled (bilinear, [`NormalMap::sample`]) at the texel's [`source_uvs`]; texels beyond
/// `reach` are flat (0, 0, 1).
#[must_use]
pub(crate) fn resample_normal_map(
    mesh: &BakeMesh,
    new_uvs: &[Vec2],
    normal_map: &NormalMap,
    size: u32,
    reach: f32,
) -> NormalMap {
    NormalMap {
        width: size,
        height: size,
        texels: source_uvs(mesh, new_uvs, size, reach)
            .into_iter()
            .map(|uv| uv.map_or(Vec3::Z, |uv| normal_map.sample(uv)))
            .collect(),
    }
}
