//! The CPU reference raster stage: the same texels, triangles and per-texel maths as the GPU
//! baker's two render passes, without wgpu.
//!
//! Coverage follows the GPU rasteriser: corners snapped to 1/256 texel (8 sub-texel bits, as
//! lavapipe and desktop GPUs do; Vulkan allows as few as 4), the texel centre inside by exact
//! integer edge functions, ties broken by the top-left rule. A different GPU may decide a texel
//! centre lying within its snapping distance of an edge differently; the tests allow exactly
//! that.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use glam::{Vec2, Vec3, Vec4};

use super::normal_map::NormalMap;
use super::texel::{self, BakeTriangle, FRINGE_RADIUS, MIN_AREA2};
use super::{check_settings, BakeError, BakeMesh, BakeSettings, Raster, TexelKind};
use crate::report::Listener;

/// Sub-texel bits of the snapped grid.
pub(crate) const SUBTEXEL_BITS: u32 = 8;

/// Whether the centre of texel (x, y) is covered by the triangle with corners `p` (texel units),
/// by the rules in the module docs.
#[must_use]
pub(crate) fn covers(p: &[Vec2; 3], x: u32, y: u32) -> bool {
    let scale = f64::from(1u32 << SUBTEXEL_BITS);
    let snap = |v: Vec2| {
        (
            (f64::from(v.x) * scale).round() as i64,
            (f64::from(v.y) * scale).round() as i64,
        )
    };
    let mut q = p.map(snap);
    let area = (q[1].0 - q[0].0) * (q[2].1 - q[0].1) - (q[1].1 - q[0].1) * (q[2].0 - q[0].0);
    if area == 0 {
        return false;
    }
    if area < 0 {
        q.swap(1, 2);
    }
    let half = 1i64 << (SUBTEXEL_BITS - 1);
    let c = (
        i64::from(x) * 2 * half + half,
        i64::from(y) * 2 * half + half,
    );
    for i in 0..3 {
        let a = q[i];
        let b = q[(i + 1) % 3];
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let e = dx * (c.1 - a.1) - dy * (c.0 - a.0);
        // y grows downwards; with positive area the interior is where e > 0. Top edge:
        // horizontal, running +x; left edge: running −y.
        let top_left = (dy == 0 && dx > 0) || dy < 0;
        if e < 0 || (e == 0 && !top_left) {
            return false;
        }
    }
    true
}

/// Texel index range `[lo, hi)` of centres within `[min − r, max + r]`, clamped to `0..n`.
fn span(min: f32, max: f32, r: f32, n: u32) -> (u32, u32) {
    let lo = (min - r - 0.5).ceil().max(0.0);
    let hi = (max + r - 0.5).floor() + 1.0;
    let hi = hi.min(n as f32).max(0.0);
    (lo.min(n as f32) as u32, hi as u32)
}

/// Texel rows per band of the parallel raster: bands are taken by whichever core is free.
const BAND_ROWS: u32 = 32;

/// The raster stage on the CPU (see the module docs and [`super`]), on every core: the map is
/// cut into bands of [`BAND_ROWS`] rows, each band rasters the triangles reaching it in
/// triangle order, so every texel is decided exactly as one pass over the whole map decides it.
///
/// # Errors
/// As `BakeMesh::validate` and [`check_settings`].
pub(crate) fn raster_cpu(
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    settings: &BakeSettings,
    listener: &mut dyn Listener,
) -> Result<Raster, BakeError> {
    check_settings(settings)?;
    mesh.validate()?;
    let (w, h) = (settings.width, settings.height);
    let mut r = Raster::empty(w, h, settings.format);
    let tris = mesh.triangle_count();
    // Each band's triangles, in order: those whose box (grown by the fringe radius) reaches it.
    let bands = h.div_ceil(BAND_ROWS) as usize;
    let mut reach: Vec<Vec<u32>> = vec![Vec::new(); bands];
    for i in 0..tris {
        let tri: BakeTriangle = mesh.triangle(i, w, h);
        if texel::area2(&tri.p).abs() <= MIN_AREA2 {
            r.degenerate_triangles += 1;
            continue;
        }
        let lo = tri.p[0].min(tri.p[1]).min(tri.p[2]);
        let hi = tri.p[0].max(tri.p[1]).max(tri.p[2]);
        let (y0, y1) = span(lo.y, hi.y, FRINGE_RADIUS, h);
        if y0 < y1 {
            for band in reach
                .iter_mut()
                .take(y1.div_ceil(BAND_ROWS) as usize)
                .skip((y0 / BAND_ROWS) as usize)
            {
                band.push(i as u32);
            }
        }
    }
    let texels = (BAND_ROWS * w) as usize;
    let work = Mutex::new(
        r.quats
            .chunks_mut(texels)
            .zip(r.handedness.chunks_mut(texels))
            .zip(r.kind.chunks_mut(texels))
            .zip(r.triangle.chunks_mut(texels))
            .zip(r.coverage.chunks_mut(texels))
            .zip(&reach)
            .enumerate()
            .map(
                |(b, (((((quats, hands), kind), triangle), coverage), tris))| {
                    let out = BandOut {
                        quats,
                        hands,
                        kind,
                        triangle,
                        coverage,
                    };
                    (b as u32 * BAND_ROWS, out, tris)
                },
            ),
    );
    let done = AtomicUsize::new(0);
    // Rasters the next band; false when none is left.
    let step = || {
        let next = work.lock().unwrap_or_else(PoisonError::into_inner).next();
        let Some((first_row, mut out, tris)) = next else {
            return false;
        };
        raster_band(mesh, normal_map, settings, first_row, &mut out, tris);
        done.fetch_add(1, Ordering::Relaxed);
        true
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(bands);
    let stage = "raster (CPU)";
    std::thread::scope(|s| {
        for _ in 1..threads {
            // A worker the system refuses is work left to the calling thread.
            let _ = std::thread::Builder::new().spawn_scoped(s, || while step() {});
        }
        // The calling thread works too, and reports progress between its bands.
        loop {
            listener.stage(stage, done.load(Ordering::Relaxed) as u64, bands as u64);
            if !step() {
                break;
            }
        }
    });
    listener.stage(stage, bands as u64, bands as u64);
    r.triangles = tris - r.degenerate_triangles;
    Ok(r)
}

/// One band's share of a [`Raster`]'s per-texel arrays.
struct BandOut<'a> {
    quats: &'a mut [Vec4],
    hands: &'a mut [i8],
    kind: &'a mut [TexelKind],
    triangle: &'a mut [u32],
    coverage: &'a mut [u16],
}

/// Rasters triangles `tris` (in order) into the band of rows from `first_row` that `out` holds.
/// Pass 1: covered texels, lowest triangle wins; pass 2: fringe, nearest triangle wins (lowest
/// on a tie), over texels pass 1 left uncovered.
fn raster_band(
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    settings: &BakeSettings,
    first_row: u32,
    out: &mut BandOut<'_>,
    tris: &[u32],
) {
    let (w, h) = (settings.width, settings.height);
    let format = settings.format;
    let size = Vec2::new(w as f32, h as f32);
    let rows = (out.kind.len() / w as usize) as u32;
    let mut fringe_dist = vec![f32::INFINITY; out.kind.len()];
    for pass in 0..2 {
        for &i in tris {
            let tri: BakeTriangle = mesh.triangle(i as usize, w, h);
            let lo = tri.p[0].min(tri.p[1]).min(tri.p[2]);
            let hi = tri.p[0].max(tri.p[1]).max(tri.p[2]);
            let rad = if pass == 0 { 0.0 } else { FRINGE_RADIUS };
            let (x0, x1) = span(lo.x, hi.x, rad, w);
            let (y0, y1) = span(lo.y, hi.y, rad, h);
            let (y0, y1) = (y0.max(first_row), y1.min(first_row + rows));
            for y in y0..y1 {
                for x in x0..x1 {
                    let k = (y - first_row) as usize * w as usize + x as usize;
                    let c = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                    let l: Vec3;
                    if pass == 0 {
                        if !covers(&tri.p, x, y) {
                            continue;
                        }
                        out.coverage[k] = out.coverage[k].saturating_add(1);
                        if out.kind[k] == TexelKind::Covered {
                            continue;
                        }
                        out.kind[k] = TexelKind::Covered;
                        l = texel::barycentric(&tri.p, c);
                    } else {
                        if out.kind[k] == TexelKind::Covered {
                            continue;
                        }
                        let (lc, d) = texel::closest_barycentric(&tri.p, c);
                        if d > FRINGE_RADIUS || d >= fringe_dist[k] {
                            continue;
                        }
                        fringe_dist[k] = d;
                        out.kind[k] = TexelKind::Fringe;
                        l = lc;
                    }
                    let (q, hand) = texel::texel_quat(&tri.frames, l, normal_map, c / size);
                    out.quats[k] = format.quantize(q);
                    out.hands[k] = hand as i8;
                    out.triangle[k] = i;
                }
            }
        }
    }
}
