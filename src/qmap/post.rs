//! After the raster stage, on the CPU for both bakers: the hemisphere rule, seam padding, mips
//! and the statistics (see [`super`] for what each does and why).

use std::collections::VecDeque;

use glam::Vec4;

use super::{MapLevel, MapStats, QuatMap, Raster, TexelKind};
use crate::report::Listener;

/// Flips quaternions so 4-neighbours agree wherever a breadth-first fill over each connected
/// set of non-background texels can make them. `quats` of background texels must be zero.
pub(crate) fn choose_hemispheres(width: u32, height: u32, quats: &mut [Vec4], filled: &[bool]) {
    let (w, h) = (width as usize, height as usize);
    let mut seen = vec![false; quats.len()];
    let mut queue = VecDeque::new();
    for start in 0..quats.len() {
        if !filled[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        queue.push_back(start);
        while let Some(k) = queue.pop_front() {
            let q = quats[k];
            for n in neighbours4(k, w, h) {
                if filled[n] && !seen[n] {
                    seen[n] = true;
                    if q.dot(quats[n]) < 0.0 {
                        quats[n] = -quats[n];
                    }
                    queue.push_back(n);
                }
            }
        }
    }
}

/// Counts 4-neighbour pairs where both texels satisfy `in_set`, and those whose quaternions
/// disagree (dot < 0): (pairs, conflicts).
#[must_use]
pub(crate) fn count_conflicts(
    width: u32,
    height: u32,
    quats: &[Vec4],
    in_set: impl Fn(usize) -> bool,
) -> (usize, usize) {
    let (w, h) = (width as usize, height as usize);
    let (mut pairs, mut conflicts) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let k = y * w + x;
            if !in_set(k) {
                continue;
            }
            for n in [(x + 1 < w).then(|| k + 1), (y + 1 < h).then(|| k + w)]
                .into_iter()
                .flatten()
            {
                if in_set(n) {
                    pairs += 1;
                    if quats[k].dot(quats[n]) < 0.0 {
                        conflicts += 1;
                    }
                }
            }
        }
    }
    (pairs, conflicts)
}

/// The hemisphere-aligned, normalised average of `qs` (each flipped to agree with the first),
/// or `None` for an empty set. A sum that cancels (only possible for opposite inputs) gives the
/// first.
#[must_use]
pub(crate) fn aligned_mean(qs: impl IntoIterator<Item = Vec4>) -> Option<Vec4> {
    let mut it = qs.into_iter();
    let first = it.next()?;
    let mut sum = first;
    for q in it {
        sum += if q.dot(first) < 0.0 { -q } else { q };
    }
    let len = sum.length();
    Some(if len > 1e-6 {
        sum / len
    } else {
        first.normalize()
    })
}

/// The sign of a sum of handedness values; a tie takes `first`.
fn majority(sum: i32, first: i8) -> i8 {
    match sum.signum() {
        0 => first,
        s => s as i8,
    }
}

/// Grows `rings` rings of padding around the non-background texels of level 0: each new texel
/// is the [`aligned_mean`] of its already-filled 8-neighbours (quantised), its handedness their
/// majority. Returns the number of texels grown.
pub(crate) fn pad(
    raster_format: super::MapFormat,
    width: u32,
    height: u32,
    quats: &mut [Vec4],
    handedness: &mut [i8],
    kind: &mut [TexelKind],
    rings: u32,
) -> usize {
    let (w, h) = (width as usize, height as usize);
    let mut grown = 0;
    // The first ring: background texels next to content. Each later ring: the background
    // neighbours of the ring before (a texel next to older content was in an earlier ring), so
    // the map is scanned once, not once per ring.
    let mut queued = vec![false; kind.len()];
    let mut frontier: Vec<usize> = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let k = y * w + x;
            if kind[k] == TexelKind::Background
                && neighbours8(x, y, w, h).any(|n| kind[n] != TexelKind::Background)
            {
                queued[k] = true;
                frontier.push(k);
            }
        }
    }
    // More rings than the map is wide fill nothing new.
    for _ in 0..rings.min(width.max(height)) {
        if frontier.is_empty() {
            break;
        }
        let values: Vec<(Vec4, i8)> = frontier
            .iter()
            .map(|&k| {
                let (x, y) = (k % w, k / w);
                let mut filled = [0usize; 8];
                let mut count = 0;
                for n in neighbours8(x, y, w, h) {
                    if kind[n] != TexelKind::Background {
                        filled[count] = n;
                        count += 1;
                    }
                }
                let filled = &filled[..count];
                let q = aligned_mean(filled.iter().map(|&n| quats[n])).unwrap_or(Vec4::ZERO);
                let hs: i32 = filled.iter().map(|&n| i32::from(handedness[n])).sum();
                (
                    raster_format.quantize(q),
                    majority(hs, handedness[filled[0]]),
                )
            })
            .collect();
        for (&k, &(q, hd)) in frontier.iter().zip(&values) {
            quats[k] = q;
            handedness[k] = hd;
            kind[k] = TexelKind::Padded;
        }
        grown += frontier.len();
        let mut next = Vec::with_capacity(frontier.len() + 8);
        for &k in &frontier {
            for n in neighbours8(k % w, k / w, w, h) {
                if kind[n] == TexelKind::Background && !queued[n] {
                    queued[n] = true;
                    next.push(n);
                }
            }
        }
        frontier = next;
    }
    grown
}

/// The 8-neighbours of (x, y) inside a `w × h` grid, in a fixed order (row above, sides, row
/// below).
fn neighbours8(x: usize, y: usize, w: usize, h: usize) -> impl Iterator<Item = usize> {
    const D: [(isize, isize); 8] = [
        (-1, -1),
        (0, -1),
        (1, -1),
        (-1, 0),
        (1, 0),
        (-1, 1),
        (0, 1),
        (1, 1),
    ];
    D.into_iter().filter_map(move |(dx, dy)| {
        let nx = x.checked_add_signed(dx)?;
        let ny = y.checked_add_signed(dy)?;
        (nx < w && ny < h).then_some(ny * w + nx)
    })
}

/// The next mip level: each texel the [`aligned_mean`] of its non-background children (a 2×2
/// block; odd sizes round down, the last texel's block clamped to the edge), quantised;
/// handedness their majority.
#[must_use]
pub(crate) fn next_level(format: super::MapFormat, level: &MapLevel) -> MapLevel {
    let (w, h) = (level.width as usize, level.height as usize);
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let mut quats = vec![Vec4::ZERO; nw * nh];
    let mut handedness = vec![0i8; nw * nh];
    for y in 0..nh {
        for x in 0..nw {
            let mut kids = [0usize; 4];
            let mut count = 0;
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let cx = (2 * x + dx).min(w - 1);
                let cy = (2 * y + dy).min(h - 1);
                let k = cy * w + cx;
                if level.handedness[k] != 0 && !kids[..count].contains(&k) {
                    kids[count] = k;
                    count += 1;
                }
            }
            let kids = &kids[..count];
            if let Some(q) = aligned_mean(kids.iter().map(|&k| level.quats[k])) {
                let i = y * nw + x;
                quats[i] = format.quantize(q);
                let hs: i32 = kids.iter().map(|&k| i32::from(level.handedness[k])).sum();
                handedness[i] = majority(hs, level.handedness[kids[0]]);
            }
        }
    }
    MapLevel {
        width: nw as u32,
        height: nh as u32,
        quats,
        handedness,
    }
}

/// From a raster to a finished map: hemisphere rule over covered and fringe texels, `padding`
/// rings (each padded texel aligned with the neighbours it averages), mips down to 1×1, and the
/// statistics. Level `k + 1` is baked on its own where `coarse[k]` (a raster of that level's
/// size) is given: its covered and fringe texels take the baked frame, turned into the
/// hemisphere of the mean of their children; the rest (padding, background) keep that mean.
/// Levels past `coarse` are means only.
#[must_use]
pub(crate) fn finish_levels(
    raster: &Raster,
    coarse: &[Raster],
    padding: u32,
    listener: &mut dyn Listener,
) -> QuatMap {
    let (w, h) = (raster.width, raster.height);
    let mut quats = raster.quats.clone();
    let mut handedness = raster.handedness.clone();
    let mut kind = raster.kind.clone();
    listener.stage("hemispheres", 0, 3);
    let filled: Vec<bool> = kind.iter().map(|k| *k != TexelKind::Background).collect();
    choose_hemispheres(w, h, &mut quats, &filled);
    listener.stage("padding", 1, 3);
    let padded = pad(
        raster.format,
        w,
        h,
        &mut quats,
        &mut handedness,
        &mut kind,
        padding,
    );
    let (neighbour_pairs, hemisphere_conflicts) =
        count_conflicts(w, h, &quats, |k| kind[k] != TexelKind::Background);
    let (covered_pairs, covered_conflicts) =
        count_conflicts(w, h, &quats, |k| kind[k] == TexelKind::Covered);
    let count = |want: TexelKind| kind.iter().filter(|k| **k == want).count();
    let stats = MapStats {
        width: w,
        height: h,
        triangles: raster.triangles,
        degenerate_triangles: raster.degenerate_triangles,
        covered: count(TexelKind::Covered),
        overlapping: raster.coverage.iter().filter(|c| **c > 1).count(),
        fringe: count(TexelKind::Fringe),
        padded,
        background: count(TexelKind::Background),
        neighbour_pairs,
        hemisphere_conflicts,
        covered_pairs,
        covered_conflicts,
        mirrored: handedness.iter().filter(|v| **v < 0).count(),
    };
    listener.stage("mips", 2, 3);
    let mut level = MapLevel {
        width: w,
        height: h,
        quats,
        handedness,
    };
    let mut levels = Vec::new();
    while level.width > 1 || level.height > 1 {
        let mut next = next_level(raster.format, &level);
        if let Some(baked) = coarse.get(levels.len()) {
            take_baked(&mut next, baked);
        }
        levels.push(std::mem::replace(&mut level, next));
    }
    levels.push(level);
    listener.stage("mips", 3, 3);
    let mut triangle = raster.triangle.clone();
    for (t, k) in triangle.iter_mut().zip(&kind) {
        if *k == TexelKind::Padded {
            *t = u32::MAX;
        }
    }
    QuatMap {
        format: raster.format,
        levels,
        kind,
        triangle,
        stats,
    }
}

/// Puts the covered and fringe texels of `baked` (a raster of `level`'s size) into `level`, each
/// flipped into the hemisphere of the value it replaces where there is one.
fn take_baked(level: &mut MapLevel, baked: &Raster) {
    debug_assert_eq!((baked.width, baked.height), (level.width, level.height));
    let texels = level.quats.iter_mut().zip(&mut level.handedness);
    for ((mean, hand), ((q, h), kind)) in
        texels.zip(baked.quats.iter().zip(&baked.handedness).zip(&baked.kind))
    {
        if *kind != TexelKind::Background {
            *mean = if mean.dot(*q) < 0.0 { -*q } else { *q };
            *hand = *h;
        }
    }
}

/// The 4-neighbours of texel `k` of a `w` × `h` grid (row-major) that lie inside it, in the
/// order left, right, up, down.
pub(crate) fn neighbours4(k: usize, w: usize, h: usize) -> impl Iterator<Item = usize> {
    let (x, y) = (k % w, k / w);
    [
        (x > 0).then(|| k - 1),
        (x + 1 < w).then(|| k + 1),
        (y > 0).then(|| k - w),
        (y + 1 < h).then(|| k + w),
    ]
    .into_iter()
    .flatten()
}
