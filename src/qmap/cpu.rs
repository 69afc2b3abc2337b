//! The CPU reference raster stage: the same texels, triangles and per-texel maths as the GPU
//! baker's two render passes, without wgpu.
//!
//! Coverage follows the GPU rasteriser: corners snapped to 1/256 texel (8 sub-texel bits, as
//! lavapipe and desktop GPUs do; Vulkan allows as few as 4), the texel centre inside by exact
//! integer edge functions, ties broken by the top-left rule. A different GPU may decide a texel
//! centre lying within its snapping distance of an edge differently; the tests allow exactly
//! that.

use glam::{Vec2, Vec3};

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

/// The raster stage on the CPU (see the module docs and [`super`]).
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
    let format = settings.format;
    let mut r = Raster::empty(w, h, format);
    let size = Vec2::new(w as f32, h as f32);
    let tris = mesh.triangle_count();
    let mut fringe_dist = vec![f32::INFINITY; r.quats.len()];
    let tick = (tris / 100).max(1);
    // Pass 1: covered texels, lowest triangle wins; pass 2: fringe, nearest triangle wins
    // (lowest on a tie), over texels pass 1 left uncovered.
    for pass in 0..2 {
        let stage = if pass == 0 {
            "raster (CPU)"
        } else {
            "fringe (CPU)"
        };
        for i in 0..tris {
            if i % tick == 0 {
                listener.stage(stage, i as u64, tris as u64);
            }
            let tri: BakeTriangle = mesh.triangle(i, w, h);
            if texel::area2(&tri.p).abs() <= MIN_AREA2 {
                if pass == 0 {
                    r.degenerate_triangles += 1;
                }
                continue;
            }
            let lo = tri.p[0].min(tri.p[1]).min(tri.p[2]);
            let hi = tri.p[0].max(tri.p[1]).max(tri.p[2]);
            let rad = if pass == 0 { 0.0 } else { FRINGE_RADIUS };
            let (x0, x1) = span(lo.x, hi.x, rad, w);
            let (y0, y1) = span(lo.y, hi.y, rad, h);
            for y in y0..y1 {
                for x in x0..x1 {
                    let k = y as usize * w as usize + x as usize;
                    let c = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                    let l: Vec3;
                    if pass == 0 {
                        if !covers(&tri.p, x, y) {
                            continue;
                        }
                        r.coverage[k] = r.coverage[k].saturating_add(1);
                        if r.kind[k] == TexelKind::Covered {
                            continue;
                        }
                        r.kind[k] = TexelKind::Covered;
                        l = texel::barycentric(&tri.p, c);
                    } else {
                        if r.kind[k] == TexelKind::Covered {
                            continue;
                        }
                        let (lc, d) = texel::closest_barycentric(&tri.p, c);
                        if d > FRINGE_RADIUS || d >= fringe_dist[k] {
                            continue;
                        }
                        fringe_dist[k] = d;
                        r.kind[k] = TexelKind::Fringe;
                        l = lc;
                    }
                    let (q, hand) = texel::texel_quat(&tri.frames, l, normal_map, c / size);
                    r.quats[k] = format.quantize(q);
                    r.handedness[k] = hand as i8;
                    r.triangle[k] = i as u32;
                }
            }
        }
        listener.stage(stage, tris as u64, tris as u64);
    }
    r.triangles = tris - r.degenerate_triangles;
    Ok(r)
}
