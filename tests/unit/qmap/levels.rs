//! The mip levels of an object-space map: level 0 reads the normal map's level of its size, each
//! coarser level the normal map one level coarser than its own size (`qmap::OBJECT_LOD_SHIFT`),
//! so that the renderer, sampling the map one level finer than its footprint, filters the normal
//! map as the normal map's own mips would.

use glam::{Quat, Vec3, Vec4};
use qtangent::qmap::{
    self, BakeMesh, Baker, MapFormat, MapOptions, NormalMap, ObjectInput, Repack,
};
use qtangent::{QTangent, TangentFrame};

/// Two triangles covering the unit UV square, every corner the identity frame.
fn flat_quad() -> BakeMesh {
    super::cpu::flat_quad(TangentFrame {
        normal: Vec3::Z,
        tangent: Vec3::X,
        bitangent: Vec3::Y,
    })
}

/// The normal a stored texel decodes to.
fn normal(q: Vec4, h: i8) -> Vec3 {
    QTangent {
        rotation: Quat::from_vec4(q),
        reflected: h < 0,
    }
    .to_frame()
    .normal
}

fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    a.normalize()
        .dot(b.normalize())
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

#[test]
fn object_levels_read_the_normal_map_one_level_coarser() {
    // Columns tilted +θ, +θ, −θ, −θ about the bitangent, repeating. The renderer's mip filter
    // (1, 3, 3, 1)/8 makes level 1 alternate ±θ/2 column by column in x (−1 + 3 + 3 − 1 = 4,
    // 1 − 3 − 3 + 1 = −4, over 8), and level 2 flat away from its edges (−1 + 3 − 3 + 1 = 0).
    const SIDE: u32 = 64;
    let theta = 30f32.to_radians();
    let tilted = |x: u32| {
        let s = if x % 4 < 2 { 1.0 } else { -1.0 };
        Vec3::new(s * theta.sin(), 0.0, theta.cos())
    };
    let map = NormalMap {
        width: SIDE,
        height: SIDE,
        texels: (0..SIDE * SIDE).map(|i| tilted(i % SIDE)).collect(),
    };
    let options = MapOptions {
        format: Some(MapFormat::Rgba16Float),
        ..MapOptions::default()
    };
    let input = ObjectInput {
        mesh: flat_quad(),
        normal_map: Some(&map),
        direction: None,
        size: SIDE,
        repack: Repack::Never,
    };
    let baked = Baker::new(qtangent::qmap::RasterBackend::CPU, &options)
        .object(input, &mut ())
        .expect("a flat quad bakes");
    let levels = &baked.map.levels;
    // The frame is the identity, so a texel's normal is the normal map's vector normalised;
    // the only error is the format's rounding (its stated bound) plus f32 filtering, far below
    // 1e-3° for sums of eight terms of magnitude ≤ 1.
    let bound = MapFormat::Rgba16Float
        .max_error_deg()
        .expect("uncompressed")
        + 1e-3;
    let (w0, l0) = (levels[0].width, &levels[0]);
    for y in 0..w0 {
        for x in 0..w0 {
            let k = (y * w0 + x) as usize;
            let e = angle_deg(normal(l0.quats[k], l0.handedness[k]), tilted(x));
            assert!(e <= bound, "level 0 texel ({x}, {y}): {e}° > {bound}°");
        }
    }
    // Level 1 (32²) reads the normal map's level 2 (16²), magnified: at texel x it filters
    // columns ⌊x/2 − ¼⌋ and the next, so x in 3..=28 reads only the flat interior columns
    // 1..=14. Read at its own size (level 1) it would tilt by about ±16°; as the mean of its
    // children (level 0), by ±30°.
    let (w1, l1) = (levels[1].width, &levels[1]);
    assert_eq!(w1, SIDE / 2);
    for y in 0..w1 {
        for x in 3..=28 {
            let k = (y * w1 + x) as usize;
            let e = angle_deg(normal(l1.quats[k], l1.handedness[k]), Vec3::Z);
            assert!(
                e <= bound,
                "level 1 texel ({x}, {y}): {e}° from flat > {bound}°"
            );
        }
    }
}

#[test]
fn baked_levels_keep_the_hemisphere_of_their_children() {
    // Trilinear filtering blends a texel with its parent: a parent baked on its own must lie in
    // the hemisphere of its children's aligned mean (a sign: no tolerance), or the blend
    // cancels (up to the storage's rounding). Every case of the padding tests: an atlas of islands, tori, a sphere, a cube,
    // mirrored quads and slivers.
    for (mesh, normal_map, w, h) in super::padding::cases() {
        let s = qmap::BakeSettings {
            width: w,
            height: h,
            padding: 4,
            format: MapFormat::Rgba16Float,
        };
        let map = qmap::bake_cpu(&mesh, normal_map.as_ref(), &s, &mut ())
            .unwrap_or_else(|e| panic!("{}: {e}", mesh.label));
        for k in 1..map.levels.len() {
            let (parent, child) = (&map.levels[k], &map.levels[k - 1]);
            let (cw, ch) = (child.width as usize, child.height as usize);
            for y in 0..parent.height as usize {
                for x in 0..parent.width as usize {
                    let i = y * parent.width as usize + x;
                    let kids: Vec<Vec4> = [(0, 0), (1, 0), (0, 1), (1, 1)]
                        .iter()
                        .map(|&(dx, dy)| (2 * y + dy).min(ch - 1) * cw + (2 * x + dx).min(cw - 1))
                        .filter(|&c| child.handedness[c] != 0)
                        .map(|c| child.quats[c])
                        .collect();
                    let Some(&first) = kids.first() else { continue };
                    let mean: Vec4 = kids
                        .iter()
                        .map(|&q| if q.dot(first) < 0.0 { -q } else { q })
                        .sum();
                    let q = parent.quats[i];
                    // The bake decides the sign before storing; stored as rgba16f, q and each
                    // child move by at most half an ulp, 2^-11 of each component, so a dot that
                    // is 0 to within Σ|q_i|·(|m_i| + Σ_kids |c_i|)·2^-11 may read either sign
                    // (children that cancel leave a mean orthogonal to the parent, where either
                    // sign blends the same).
                    let spread: Vec4 = kids.iter().map(|c| c.abs()).sum();
                    let slack = q.abs().dot(mean.abs() + spread) * 2f32.powi(-11);
                    assert!(
                        q.dot(mean) >= -slack,
                        "{} {w}×{h}: level {k} texel ({x}, {y}) {q} against its children's {mean}",
                        mesh.label
                    );
                }
            }
        }
    }
}
