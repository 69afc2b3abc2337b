//! Seam padding and mips of baked quaternion maps, CPU only.
//!
//! - Padding leaves no background texel reachable by bilinear filtering at mip 0: for many
//!   points inside every baked triangle (corners, edge midpoints, centroid, seeded random
//!   barycentrics) all four texels of the 2×2 footprint (clamp-to-edge at the map border) are
//!   non-background — with `padding = 0`, so the fringe alone must do it — on the procedural
//!   meshes and on hand-made slivers (needles thinner than a texel, triangles inside a texel).
//! - The padding rings are exactly `padding` 8-neighbour rings around the covered and fringe
//!   texels, and no texel farther than `FRINGE_RADIUS + padding·√2` from every triangle is
//!   filled.
//! - Every mip texel made as a mean (a map finished without levels of its own, as the padding
//!   and background of every map are) is the hemisphere-aligned mean of its children, to the
//!   format's quantisation; none is the cancelled sum of q and −q. (Levels baked on their own
//!   are checked in `levels.rs`.)
//!
//! Each check is also run on a deliberately broken map and must fail there.

use crate::test_bake::{bake, from_primitive};
use glam::{DVec2, Quat, Vec2, Vec3, Vec4};
use qtangent::lab::shapes;
use qtangent::qmap::texel::{FRINGE_RADIUS, MIN_AREA2};
use qtangent::qmap::{self, BakeMesh, BakeSettings, MapFormat, NormalMap, QuatMap, TexelKind};
use qtangent::TangentFrame;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const SEED: u64 = 0x5eed_0000_9add_1e55;

/// A frame from a rotation and a handedness.
fn frame(q: Quat, handedness: f32) -> TangentFrame {
    TangentFrame {
        normal: q * Vec3::Z,
        tangent: q * Vec3::X,
        bitangent: q * Vec3::Y * handedness,
    }
}

/// Hand-made triangles in texel units of a 64 × 64 map, each with random corner frames: needles
/// thinner than a texel (diagonal, horizontal between two rows of texel centres, vertical along
/// a column of centres, along the map's border) and triangles smaller than a texel (inside one,
/// at the map's corner). Most cover no texel centre at all: only the fringe holds their frames.
const SLIVER_SIZE: u32 = 64;
fn slivers() -> BakeMesh {
    let tris: [[(f32, f32); 3]; 7] = [
        [(5.3, 10.2), (55.1, 40.9), (55.15, 40.87)], // diagonal needle, 0.05 texel wide
        [(3.0, 20.05), (60.0, 20.1), (60.0, 20.15)], // between the rows y = 19.5 and 20.5
        [(45.5, 2.0), (45.52, 30.0), (45.48, 30.0)], // on the column of centres x = 45.5
        [(63.9, 1.0), (63.95, 62.0), (63.97, 62.0)], // along the right border
        [(30.1, 40.1), (30.4, 40.15), (30.2, 40.4)], // inside one texel, no centre
        [(0.05, 0.05), (0.3, 0.1), (0.1, 0.35)],     // in the top-left corner texel
        [(20.6, 50.6), (21.4, 50.62), (20.62, 51.4)], // around a texel corner, no centre
    ];
    let mut r = Pcg64::seed_from_u64(SEED ^ 0x51);
    let mut mesh = BakeMesh {
        label: "hand-made slivers".into(),
        ..BakeMesh::default()
    };
    let size = SLIVER_SIZE as f32;
    for t in tris {
        for (x, y) in t {
            let q = Quat::from_euler(
                glam::EulerRot::XYZ,
                r.random_range(-3.0..3.0),
                r.random_range(-3.0..3.0),
                r.random_range(-3.0..3.0),
            );
            let h = if r.random_bool(0.5) { 1.0 } else { -1.0 };
            mesh.indices.push(mesh.uvs.len() as u32);
            mesh.uvs.push(Vec2::new(x, y) / size);
            mesh.frames.push(frame(q, h));
        }
    }
    mesh
}

/// Several meshes packed into one map as separate islands (the torus, the sphere, the cube and
/// the quad pair each scaled into a rectangle at an offset that is no whole number of texels):
/// the torus alone fills its whole map and has no island border.
fn atlas() -> BakeMesh {
    let parts = [
        (
            qtangent::mesh::Primitive::torus(1.0, 0.35, 48, 24),
            (0.031, 0.042),
            (0.5, 0.45),
        ),
        (shapes::uv_sphere(24, 12), (0.583, 0.051), (0.39, 0.3)),
        (shapes::cube(), (0.107, 0.553), (0.3, 0.3)),
        (shapes::mirrored_quad_pair(), (0.551, 0.502), (0.2, 0.23)),
    ];
    let mut mesh = BakeMesh {
        label: "atlas of four islands".into(),
        ..BakeMesh::default()
    };
    for (p, offset, scale) in parts {
        let part = from_primitive(&p);
        let base = mesh.uvs.len() as u32;
        let (o, s) = (Vec2::from(offset), Vec2::from(scale));
        mesh.uvs.extend(part.uvs.iter().map(|uv| o + *uv * s));
        mesh.frames.extend_from_slice(&part.frames);
        mesh.indices.extend(part.indices.iter().map(|i| i + base));
    }
    mesh
}

/// The meshes and map sizes every check runs on (the torus with the swirl normal map).
pub(super) fn cases() -> Vec<(BakeMesh, Option<NormalMap>, u32, u32)> {
    vec![
        (atlas(), Some(NormalMap::default_swirl()), 256, 256),
        (
            from_primitive(&qtangent::mesh::Primitive::torus(1.0, 0.35, 96, 48)),
            Some(NormalMap::default_swirl()),
            256,
            256,
        ),
        // Not a power of two: odd sizes in the mip chain.
        (
            from_primitive(&qtangent::mesh::Primitive::torus(1.0, 0.35, 96, 48)),
            None,
            200,
            72,
        ),
        (
            from_primitive(&shapes::uv_sphere(32, 16)),
            Some(NormalMap::default_swirl()),
            128,
            128,
        ),
        (from_primitive(&shapes::cube()), None, 64, 64),
        (from_primitive(&shapes::mirrored_quad_pair()), None, 32, 32),
        (slivers(), None, SLIVER_SIZE, SLIVER_SIZE),
    ]
}

fn settings(width: u32, height: u32, padding: u32) -> BakeSettings {
    BakeSettings {
        width,
        height,
        padding,
        format: MapFormat::Rgba16Float,
    }
}

fn is_filled(map: &QuatMap, k: usize) -> bool {
    map.kind[k] != TexelKind::Background
        && map.levels[0].handedness[k] != 0
        && (map.levels[0].quats[k].length() - 1.0).abs() < 0.01
}

/// Triangle `i` of `mesh` in texel units, f64, or `None` when the bake skips it as degenerate.
fn triangle(mesh: &BakeMesh, i: usize, w: u32, h: u32) -> Option<[DVec2; 3]> {
    let t = mesh.triangle(i, w, h);
    (qmap::texel::area2(&t.p).abs() > MIN_AREA2).then(|| t.p.map(|p| p.as_dvec2()))
}

/// Points of the triangle: corners, edge midpoints, centroid and `extra` random ones
/// (uniform over the area).
fn points_in(t: &[DVec2; 3], extra: usize, r: &mut Pcg64) -> Vec<DVec2> {
    let mut pts = vec![
        t[0],
        t[1],
        t[2],
        (t[0] + t[1]) * 0.5,
        (t[1] + t[2]) * 0.5,
        (t[2] + t[0]) * 0.5,
        (t[0] + t[1] + t[2]) / 3.0,
    ];
    for _ in 0..extra {
        let (a, b): (f64, f64) = (r.random(), r.random());
        let (a, b) = if a + b > 1.0 {
            (1.0 - a, 1.0 - b)
        } else {
            (a, b)
        };
        pts.push(t[0] + (t[1] - t[0]) * a + (t[2] - t[0]) * b);
    }
    pts
}

/// The level-0 texels bilinear filtering at `p` (texel units) reads: floor(p − ½) and the next
/// texel on each axis, clamped to the map (clamp-to-edge). A texel whose weight is exactly 0
/// is included too (a GPU's rounded weights need not be 0 there).
fn footprint(p: DVec2, w: u32, h: u32) -> [(u32, u32); 4] {
    let s = p - DVec2::splat(0.5);
    let (x0, y0) = (s.x.floor(), s.y.floor());
    let cx = |x: f64| x.clamp(0.0, f64::from(w - 1)) as u32;
    let cy = |y: f64| y.clamp(0.0, f64::from(h - 1)) as u32;
    [
        (cx(x0), cy(y0)),
        (cx(x0 + 1.0), cy(y0)),
        (cx(x0), cy(y0 + 1.0)),
        (cx(x0 + 1.0), cy(y0 + 1.0)),
    ]
}

/// A point whose footprint reaches background: (triangle, point in texel units, texel).
type Unreachable = (usize, DVec2, (u32, u32));

/// Points inside baked triangles whose footprint reaches a background texel:
/// (triangle, point in texel units, the first such texel), and the number of points checked.
fn unreachable(map: &QuatMap, mesh: &BakeMesh, seed: u64) -> (Vec<Unreachable>, usize) {
    let (w, h) = (map.width(), map.height());
    let mut r = Pcg64::seed_from_u64(seed);
    let mut bad = Vec::new();
    let mut checked = 0;
    for i in 0..mesh.triangle_count() {
        let Some(t) = triangle(mesh, i, w, h) else {
            continue;
        };
        let area = ((t[1] - t[0]).perp_dot(t[2] - t[0]) * 0.5).abs();
        let extra = 24 + (area * 2.0).min(200.0) as usize;
        for p in points_in(&t, extra, &mut r) {
            checked += 1;
            let background = footprint(p, w, h)
                .into_iter()
                .find(|&(x, y)| !is_filled(map, y as usize * w as usize + x as usize));
            if let Some(texel) = background {
                bad.push((i, p, texel));
            }
        }
    }
    (bad, checked)
}

/// `map` with its fringe removed: fringe texels become background.
fn without_fringe(map: &QuatMap) -> QuatMap {
    let mut m = map.clone();
    for k in 0..m.kind.len() {
        if m.kind[k] == TexelKind::Fringe {
            m.kind[k] = TexelKind::Background;
            m.levels[0].quats[k] = Vec4::ZERO;
            m.levels[0].handedness[k] = 0;
        }
    }
    m
}

#[test]
fn bilinear_footprints_inside_triangles_never_reach_background() {
    for (n, (mesh, normal_map, w, h)) in cases().into_iter().enumerate() {
        let seed = SEED + n as u64;
        let map = bake(&mesh, normal_map.as_ref(), &settings(w, h, 0));
        let (bad, checked) = unreachable(&map, &mesh, seed);
        let fringe = map.stats.fringe;
        println!(
            "{} ({w}×{h}, padding 0): {checked} points in {} triangles, {} fringe texels; {} points reach background",
            mesh.label,
            map.stats.triangles,
            fringe,
            bad.len()
        );
        assert!(
            bad.is_empty(),
            "{} {w}×{h} (seed {seed:#x}): {} points' footprints reach background, first: triangle {} at {:?} reads texel {:?}",
            mesh.label,
            bad.len(),
            bad[0].0,
            bad[0].1,
            bad[0].2
        );
    }
}

#[test]
fn without_the_fringe_slivers_reach_background() {
    // The reachability check can fail: remove the fringe and it must, for the slivers (whose
    // frames live only in the fringe) and for every map with island borders inside it (the
    // torus, cube and quad pair fill their whole maps: no fringe to remove).
    for (n, (mesh, normal_map, w, h)) in cases().into_iter().enumerate() {
        let seed = SEED + n as u64;
        let baked = bake(&mesh, normal_map.as_ref(), &settings(w, h, 0));
        let (bad, checked) = unreachable(&without_fringe(&baked), &mesh, seed);
        println!(
            "{} without its {} fringe texels: {} of {checked} points' footprints reach background",
            mesh.label,
            baked.stats.fringe,
            bad.len()
        );
        assert!(
            bad.is_empty() == (baked.stats.fringe == 0),
            "{} (seed {seed:#x}): {} fringe texels removed, {} points' footprints reach background",
            mesh.label,
            baked.stats.fringe,
            bad.len()
        );
        if mesh.label.contains("sliver") {
            assert!(!bad.is_empty());
        }
    }
}

/// The smallest total bilinear weight on filled (non-background) texels of level `k`, over
/// points inside the baked triangles: 0 means a footprint of background only, which no
/// normalisation can rescue (the shader would divide 0 by 0).
fn min_filled_weight(map: &QuatMap, mesh: &BakeMesh, k: usize, seed: u64) -> (f64, DVec2) {
    let (w0, h0) = (map.width(), map.height());
    let level = &map.levels[k];
    let (w, h) = (level.width, level.height);
    let scale = DVec2::new(f64::from(w) / f64::from(w0), f64::from(h) / f64::from(h0));
    let mut r = Pcg64::seed_from_u64(seed);
    let mut worst = (f64::INFINITY, DVec2::ZERO);
    for i in 0..mesh.triangle_count() {
        let Some(t) = triangle(mesh, i, w0, h0) else {
            continue;
        };
        for p0 in points_in(&t, 16, &mut r) {
            let p = p0 * scale;
            let s = p - DVec2::splat(0.5);
            let f = s - s.floor();
            let weights = [
                (1.0 - f.x) * (1.0 - f.y),
                f.x * (1.0 - f.y),
                (1.0 - f.x) * f.y,
                f.x * f.y,
            ];
            let filled: f64 = footprint(p, w, h)
                .iter()
                .zip(weights)
                .filter(|((x, y), _)| level.handedness[(*y * w + *x) as usize] != 0)
                .map(|(_, wt)| wt)
                .sum();
            if filled < worst.0 {
                worst = (filled, p0 / DVec2::new(f64::from(w0), f64::from(h0)));
            }
        }
    }
    worst
}

#[test]
fn no_footprint_inside_a_triangle_is_all_background_at_any_level() {
    // At level 0 the padding keeps every footprint texel filled (above); at coarser levels a
    // texel is filled when any child is, so the level-k texel over a point inside a triangle
    // stays filled and holds at least ¼ of the bilinear weight (½ on each axis), whatever its
    // neighbours are.
    for (n, (mesh, normal_map, w, h)) in cases().into_iter().enumerate() {
        let seed = SEED + 100 + n as u64;
        // Padding 0: the fringe and the mips alone must do it.
        let map = bake(&mesh, normal_map.as_ref(), &settings(w, h, 0));
        let mut line = format!("{} {w}×{h}: least filled weight per level", mesh.label);
        for k in 0..map.levels.len() {
            let (weight, uv) = min_filled_weight(&map, &mesh, k, seed);
            line += &format!(" {weight:.3}");
            assert!(
                weight >= 0.25 - 1e-9,
                "{} {w}×{h} level {k} (seed {seed:#x}): at uv {uv} only {weight} of the bilinear \
                 weight is on filled texels",
                mesh.label
            );
        }
        println!("{line}");
    }
}

/// Chebyshev (8-neighbour) distance of every texel from the covered and fringe texels;
/// `u32::MAX` where there are none.
fn ring_distance(map: &QuatMap) -> Vec<u32> {
    let (w, h) = (map.width() as usize, map.height() as usize);
    let mut d = vec![u32::MAX; w * h];
    let mut queue = std::collections::VecDeque::new();
    for (k, (dk, kind)) in d.iter_mut().zip(&map.kind).enumerate() {
        if matches!(kind, TexelKind::Covered | TexelKind::Fringe) {
            *dk = 0;
            queue.push_back(k);
        }
    }
    while let Some(k) = queue.pop_front() {
        let (x, y) = ((k % w) as isize, (k / w) as isize);
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (nx, ny) = (x + dx, y + dy);
                if nx < 0 || ny < 0 || nx >= w as isize || ny >= h as isize {
                    continue;
                }
                let n = ny as usize * w + nx as usize;
                if d[n] == u32::MAX {
                    d[n] = d[k] + 1;
                    queue.push_back(n);
                }
            }
        }
    }
    d
}

/// Texels whose kind disagrees with `padding` rings around the covered and fringe texels:
/// padded exactly at ring distance 1..=padding, background beyond.
fn ring_mismatches(map: &QuatMap, padding: u32) -> Vec<(usize, TexelKind, u32)> {
    let d = ring_distance(map);
    (0..map.kind.len())
        .filter_map(|k| {
            let want = match d[k] {
                0 => return None,
                r if r <= padding => TexelKind::Padded,
                _ => TexelKind::Background,
            };
            (map.kind[k] != want || is_filled(map, k) != (want == TexelKind::Padded)).then_some((
                k,
                map.kind[k],
                d[k],
            ))
        })
        .collect()
}

/// Distance in texels from `c` to the triangle `t` (0 inside), f64.
fn distance_to_triangle(t: &[DVec2; 3], c: DVec2) -> f64 {
    let side = |a: DVec2, b: DVec2| (b - a).perp_dot(c - a);
    let s = [side(t[0], t[1]), side(t[1], t[2]), side(t[2], t[0])];
    if s.iter().all(|v| *v >= 0.0) || s.iter().all(|v| *v <= 0.0) {
        return 0.0;
    }
    (0..3)
        .map(|i| {
            let (a, b) = (t[i], t[(i + 1) % 3]);
            let e = b - a;
            let u = ((c - a).dot(e) / e.dot(e)).clamp(0.0, 1.0);
            (a + e * u - c).length()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Filled texels farther than `radius` from every baked triangle.
fn filled_beyond(map: &QuatMap, mesh: &BakeMesh, radius: f64) -> Vec<usize> {
    let (w, h) = (map.width(), map.height());
    let mut near = vec![false; w as usize * h as usize];
    for i in 0..mesh.triangle_count() {
        let Some(t) = triangle(mesh, i, w, h) else {
            continue;
        };
        let lo = t[0].min(t[1]).min(t[2]) - DVec2::splat(radius + 1.0);
        let hi = t[0].max(t[1]).max(t[2]) + DVec2::splat(radius + 1.0);
        let x0 = lo.x.floor().max(0.0) as u32;
        let y0 = lo.y.floor().max(0.0) as u32;
        let x1 = (hi.x.ceil().max(0.0) as u32).min(w);
        let y1 = (hi.y.ceil().max(0.0) as u32).min(h);
        for y in y0..y1 {
            for x in x0..x1 {
                let c = DVec2::new(f64::from(x) + 0.5, f64::from(y) + 0.5);
                if distance_to_triangle(&t, c) <= radius {
                    near[y as usize * w as usize + x as usize] = true;
                }
            }
        }
    }
    (0..near.len())
        .filter(|&k| is_filled(map, k) && !near[k])
        .collect()
}

#[test]
fn padding_grows_exactly_the_requested_rings() {
    for (mesh, normal_map, w, h) in cases() {
        for padding in [0, 1, 4] {
            let map = bake(&mesh, normal_map.as_ref(), &settings(w, h, padding));
            let count = |k: TexelKind| map.kind.iter().filter(|v| **v == k).count();
            assert_eq!(map.stats.padded, count(TexelKind::Padded), "{}", mesh.label);
            assert_eq!(map.stats.fringe, count(TexelKind::Fringe), "{}", mesh.label);
            assert_eq!(
                map.stats.background,
                count(TexelKind::Background),
                "{}",
                mesh.label
            );
            let bad = ring_mismatches(&map, padding);
            assert!(
                bad.is_empty(),
                "{} {w}×{h} padding {padding}: {} texels break the ring rule, first {:?} \
                 (texel, kind, ring distance)",
                mesh.label,
                bad.len(),
                bad[0]
            );
            // Geometric form: the fringe reaches FRINGE_RADIUS, each ring at most a texel
            // diagonal (√2) further; 1e-4 for the f32 of the bake's own distances.
            let radius = f64::from(FRINGE_RADIUS) + f64::from(padding) * 2f64.sqrt() + 1e-4;
            let far = filled_beyond(&map, &mesh, radius);
            assert!(
                far.is_empty(),
                "{} {w}×{h} padding {padding}: {} texels filled beyond {radius} texels of \
                 every triangle, first {}",
                mesh.label,
                far.len(),
                far[0]
            );
            // And the check can fail: the same map judged against one ring fewer or more.
            if padding > 0 && map.stats.padded > 0 {
                assert!(
                    !ring_mismatches(&map, padding - 1).is_empty(),
                    "{}: ring check passed with padding {} for a map padded {padding}",
                    mesh.label,
                    padding - 1
                );
            }
            if map.stats.background > 0 {
                assert!(
                    !ring_mismatches(&map, padding + 1).is_empty(),
                    "{}: ring check passed with padding {} for a map padded {padding}",
                    mesh.label,
                    padding + 1
                );
            }
        }
    }
}

/// What the mip check found at one level: (texels, worst |parent − aligned mean of its
/// children|, texels breaking a rule, description of the first).
struct MipReport {
    texels: usize,
    worst: f32,
    bad: usize,
    first: Option<String>,
}

/// Each texel of `map.levels[k]` (k ≥ 1) against its children in level k − 1 (the 2×2 block at
/// (2x, 2y), clamped to the edge; background children, handedness 0, left out): background
/// exactly when no child is filled, otherwise within `2 · half_step` (the quantisation of four
/// components, Euclidean) of the children's mean, each child first flipped to agree with the
/// first — so never the cancelled sum of q and −q — and the handedness their majority.
fn check_mip(map: &QuatMap, k: usize) -> MipReport {
    let (parent, child) = (&map.levels[k], &map.levels[k - 1]);
    let (cw, ch) = (child.width as usize, child.height as usize);
    let tol = 2.0 * map.format.half_step() + 1e-6;
    let mut report = MipReport {
        texels: 0,
        worst: 0.0,
        bad: 0,
        first: None,
    };
    for y in 0..parent.height as usize {
        for x in 0..parent.width as usize {
            let i = y * parent.width as usize + x;
            let mut kids: Vec<usize> = Vec::new();
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let c = (2 * y + dy).min(ch - 1) * cw + (2 * x + dx).min(cw - 1);
                if child.handedness[c] != 0 && !kids.contains(&c) {
                    kids.push(c);
                }
            }
            let (q, hd) = (parent.quats[i], parent.handedness[i]);
            let problem = if kids.is_empty() {
                (hd != 0 || q != Vec4::ZERO).then(|| format!("filled {q} over background"))
            } else {
                report.texels += 1;
                let first = child.quats[kids[0]];
                let sum: Vec4 = kids
                    .iter()
                    .map(|&c| {
                        let v = child.quats[c];
                        if v.dot(first) < 0.0 {
                            -v
                        } else {
                            v
                        }
                    })
                    .sum();
                let mean = sum.normalize();
                let d = (q - mean).length();
                report.worst = report.worst.max(d);
                let votes: i32 = kids.iter().map(|&c| i32::from(child.handedness[c])).sum();
                if d > tol || q.dot(first) < 0.0 {
                    Some(format!(
                        "{q} is {d:.2e} from the aligned mean {mean} of {} children (allowed {tol:.2e})",
                        kids.len()
                    ))
                } else if votes != 0 && i32::from(hd) != votes.signum() {
                    Some(format!("handedness {hd} against a vote of {votes}"))
                } else {
                    None
                }
            };
            if let Some(p) = problem {
                report.bad += 1;
                report
                    .first
                    .get_or_insert_with(|| format!("level {k} texel ({x}, {y}): {p}"));
            }
        }
    }
    report
}

#[test]
fn mips_are_hemisphere_aligned_means_of_their_children() {
    for (mesh, normal_map, w, h) in cases() {
        for format in [MapFormat::Rgba16Float, MapFormat::Rgba8Snorm] {
            let s = BakeSettings {
                format,
                ..settings(w, h, 4)
            };
            // Means only: level 0 finished without coarser rasters.
            let raster = qmap::raster_cpu(&mesh, normal_map.as_ref(), &s, &mut ())
                .unwrap_or_else(|e| panic!("{}: {e}", mesh.label));
            let map = qmap::post::finish_levels(&raster, &[], s.padding, &mut ());
            let want_levels = 32 - w.max(h).leading_zeros() as usize;
            assert_eq!(map.levels.len(), want_levels, "{}: mip count", mesh.label);
            let mut line = format!("{} {w}×{h} {format}: conflicts per level", mesh.label);
            for k in 0..map.levels.len() {
                let l = &map.levels[k];
                assert_eq!(
                    (l.width, l.height),
                    ((w >> k).max(1), (h >> k).max(1)),
                    "{}: level {k} size",
                    mesh.label
                );
                let (pairs, conflicts) =
                    qmap::post::count_conflicts(l.width, l.height, &l.quats, |i| {
                        l.handedness[i] != 0
                    });
                line += &format!(" {conflicts}/{pairs}");
                if k == 0 {
                    continue;
                }
                let r = check_mip(&map, k);
                assert!(
                    r.bad == 0,
                    "{} {format}: {} of {} texels: {}",
                    mesh.label,
                    r.bad,
                    r.texels,
                    r.first.unwrap_or_default()
                );
            }
            println!("{line}");
        }
    }
}

#[test]
fn an_unaligned_mip_fails_the_mip_check() {
    // Negate every other texel of level 0 (a checkerboard) and build level 1 by plain,
    // unaligned averaging: the sums cancel and the check must say so.
    let mesh = from_primitive(&qtangent::mesh::Primitive::torus(1.0, 0.35, 96, 48));
    let swirl = NormalMap::default_swirl();
    let mut map = bake(&mesh, Some(&swirl), &settings(128, 128, 4));
    let (w, h) = (map.width() as usize, map.height() as usize);
    let l0 = &mut map.levels[0];
    for y in 0..h {
        for x in 0..w {
            if (x + y) % 2 == 1 {
                l0.quats[y * w + x] = -l0.quats[y * w + x];
            }
        }
    }
    let l0 = map.levels[0].clone();
    let l1 = &mut map.levels[1];
    for y in 0..l1.height as usize {
        for x in 0..l1.width as usize {
            let i = y * l1.width as usize + x;
            if l1.handedness[i] == 0 {
                continue;
            }
            let sum: Vec4 = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .iter()
                .map(|(dx, dy)| l0.quats[(2 * y + dy) * w + 2 * x + dx])
                .sum();
            l1.quats[i] = if sum.length() > 1e-6 {
                MapFormat::Rgba16Float.quantize(sum.normalize())
            } else {
                Vec4::ZERO
            };
        }
    }
    let r = check_mip(&map, 1);
    println!(
        "unaligned level 1: {} of {} texels fail, worst distance {:.3}",
        r.bad, r.texels, r.worst
    );
    assert!(
        r.bad > r.texels / 10,
        "only {} of {} unaligned texels failed the mip check",
        r.bad,
        r.texels
    );
}

/// The rotation errors (degrees) of the texels of `level` marked in `read`, decoded from
/// `blocks` (BC7 of the level, decoded to the quaternion's own range), normalised.
fn bc7_errors(level: &qmap::MapLevel, blocks: &[u8], read: &[bool]) -> Vec<f32> {
    let back = qmap::bc::decode_bc7(level.width, level.height, blocks).expect("own output");
    level
        .quats
        .iter()
        .zip(back)
        .zip(read)
        .filter(|(_, &r)| r)
        .map(|((q, c), _)| {
            let got = Quat::from_array(c).normalize();
            let want = Quat::from_vec4(*q).normalize();
            // q and −q are the same rotation.
            2.0 * got.dot(want).abs().min(1.0).acos().to_degrees()
        })
        .collect()
}

/// Mean and maximum of `e`.
fn mean_max(e: &[f32]) -> (f32, f32) {
    let mean = e.iter().sum::<f32>() / e.len().max(1) as f32;
    (mean, e.iter().copied().fold(0.0, f32::max))
}

/// Object-space BC7 keeps every texel that filtering inside a triangle reads: at level 0 the
/// covered texels *and the fringe* (every texel a bilinear footprint of a point inside a
/// triangle touches: the first ring around the covered ones), at each lower level every filled
/// texel (the mips of covered texels read the padding); the rest (background, and the padding
/// rings at level 0) is don't-care. Checked twice on the slivers, whose triangles mostly cover
/// no texel centre, so the fringe alone holds their frames:
/// - the store's care mask: at level 0 it holds every texel of the bilinear footprint of
///   corners, edge midpoints and seeded random points of every triangle, and no padding ring
///   texel; below, every filled texel;
/// - end to end: the stored map's fringe decodes closer to its baked frames than the same
///   level encoded with the fringe don't-care (the control), by at least half in the mean and
///   the maximum — a store that let the fringe go would measure the same as the control.
#[test]
fn object_space_bc7_keeps_every_texel_filtering_reads() {
    use qmap::stored::{bc7_care, bc7_level, EncodedMap, Encoding};
    use qmap::MapSpace;
    let mesh = slivers();
    let map = bake(&mesh, None, &settings(SLIVER_SIZE, SLIVER_SIZE, 4));
    // Level 0: every texel of the footprint of a point inside a triangle is kept; no padding
    // ring texel (nor background) is.
    let care = bc7_care(&map, 0);
    let (w, h) = (map.width(), map.height());
    let mut r = Pcg64::seed_from_u64(SEED ^ 0xca4e);
    for i in 0..mesh.triangle_count() {
        let Some(t) = triangle(&mesh, i, w, h) else {
            continue;
        };
        for p in points_in(&t, 64, &mut r) {
            for (x, y) in footprint(p, w, h) {
                let k = y as usize * w as usize + x as usize;
                assert!(
                    care[k],
                    "triangle {i} at {p:?} reads texel ({x}, {y}), don't-care"
                );
            }
        }
    }
    for (k, (kind, kept)) in map.kind.iter().zip(&care).enumerate() {
        let free = matches!(kind, TexelKind::Padded | TexelKind::Background);
        assert!(!(free && *kept), "texel {k} ({kind:?}) is kept at level 0");
    }
    // Lower levels: every filled texel.
    for (k, level) in map.levels.iter().enumerate().skip(1) {
        let filled: Vec<bool> = level.quats.iter().map(|q| *q != Vec4::ZERO).collect();
        assert_eq!(
            bc7_care(&map, k),
            filled,
            "level {k}: the store's care mask"
        );
    }
    let stored = EncodedMap::encode(&map, &Encoding::new(MapSpace::Object, MapFormat::Bc7))
        .expect("the slivers' map is BC-sized");
    let level = &map.levels[0];
    let covered: Vec<bool> = map.kind.iter().map(|t| *t == TexelKind::Covered).collect();
    let fringe: Vec<bool> = map.kind.iter().map(|t| *t == TexelKind::Fringe).collect();
    let control = bc7_level(
        level,
        Some(&covered),
        qmap::Bc7Quality::Basic,
        qmap::BcEncoder::Ispc,
    )
    .expect("the same level");
    let kept = mean_max(&bc7_errors(level, &stored.levels[0], &fringe));
    let dropped = mean_max(&bc7_errors(level, &control, &fringe));
    eprintln!("fringe error, mean / max °: kept {kept:?}, don't-care {dropped:?}");
    // Half: a margin chosen far inside the measured gap (1.77° / 23.2° kept against 118° / 180°
    // don't-care), so only a store that lets the fringe go comes near it.
    assert!(
        kept.0 <= dropped.0 / 2.0 && kept.1 <= dropped.1 / 2.0,
        "the stored fringe ({kept:?}°) is not kept better than a don't-care fringe ({dropped:?}°)"
    );
}
