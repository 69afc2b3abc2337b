//! How each level of an [`EncodedMap`](super::EncodedMap) is block-compressed: BC5 of a
//! tangent-space map's one pair of numbers, BC5 pairs (`bc5x2`), BC7 with the texels filtering
//! reads kept and each block in one hemisphere.

use glam::Vec4;

use super::super::bc::{self, Bc7Quality, BcEncoder};
use super::super::{tangent, MapLevel, MapSpace, QuatMap, TexelKind};

/// A tangent-space `bc5` level: BC5 UNORM of the normal's n·½ + ½ (`normal_xy`), BC5 SNORM of
/// the twist's (z, w) (`twist_only`), else of the swing's (x, y).
pub(super) fn bc5_level(
    l: &super::MapLevel,
    twist_only: bool,
    normal_xy: bool,
    encoder: bc::BcEncoder,
) -> Result<Vec<u8>, bc::BcError> {
    if normal_xy {
        // UNORM n·½ + ½, the lattice of the 8-bit normal map the map was baked from: its level
        // 0 lands on or beside the source's bytes (the normal is the source's, normalised), so
        // BC5 encodes about what a BC5 normal map would (SNORM's k/127 lies between them: 0.29°
        // more on ribs, docs/MAPS.md).
        let unorm: Vec<[f32; 2]> = l
            .quats
            .iter()
            .map(|&q| tangent::normal_twist(q).0.map(|c| c * 0.5 + 0.5))
            .collect();
        return bc::encode_bc5_unorm(l.width, l.height, &unorm, encoder);
    }
    let pairs: Vec<[f32; 2]> = if twist_only {
        // Each block in one hemisphere, as for BC7: (z, w) and (−z, −w) side by side would
        // stretch the endpoints over both.
        block_aligned(l.width, l.height, &l.quats, None)
            .iter()
            .map(|q| [q.z, q.w])
            .collect()
    } else {
        l.quats.iter().map(|q| [q.x, q.y]).collect()
    };
    bc::encode_bc5_snorm(l.width, l.height, &pairs, encoder)
}

/// Every level as BC7 of the quaternion; in object space with what filtering never reads as
/// don't-care ([`bc7_care`]).
pub(super) fn bc7_levels(
    map: &QuatMap,
    space: MapSpace,
    quality: Bc7Quality,
    encoder: BcEncoder,
) -> Result<Vec<Vec<u8>>, bc::BcError> {
    (0..map.levels.len())
        .map(|k| {
            let care = (space == MapSpace::Object).then(|| bc7_care(map, k));
            bc7_level(&map.levels[k], care.as_deref(), quality, encoder)
        })
        .collect()
}

/// The texels of an object-space map's level `k` that filtering inside triangles reads, which
/// BC7 must keep: at level 0 the covered and fringe texels (the fringe is every texel a bilinear
/// footprint of a point inside a triangle touches); background and the padding rings, which
/// exist for the mips, are free to take their block's own values. At every lower level, every
/// filled texel (a mip of covered texels reads the padding).
pub(crate) fn bc7_care(map: &QuatMap, k: usize) -> Vec<bool> {
    let l = &map.levels[k];
    if k == 0 && map.kind.len() == l.quats.len() {
        map.kind
            .iter()
            .map(|t| matches!(t, TexelKind::Covered | TexelKind::Fringe))
            .collect()
    } else {
        l.quats.iter().map(|q| *q != Vec4::ZERO).collect()
    }
}

/// One level as BC7 of the quaternion, `care` as [`bc::Bc7Job::care`], each block's cared-for
/// quaternions in one hemisphere first ([`block_aligned`]).
pub(crate) fn bc7_level(
    l: &MapLevel,
    care: Option<&[bool]>,
    quality: Bc7Quality,
    encoder: BcEncoder,
) -> Result<Vec<u8>, bc::BcError> {
    let quats = block_aligned(l.width, l.height, &l.quats, care);
    let values: Vec<[f32; 4]> = quats.iter().map(|q| q.to_array()).collect();
    let job = bc::Bc7Job {
        channels: 4,
        care,
        quality,
        encoder,
    };
    bc::encode_bc7(l.width, l.height, &values, job)
}

/// A level as two BC5 layers: the normal's (x, y) in tangent space ([`tangent::normal_twist`],
/// a BC5 normal map) or the swing's (x, y) in object space ([`tangent::swing_twist`]), then the
/// twist's (z, w); each block's quaternions in one hemisphere first (as for BC7), so the twists
/// of a block agree in sign (the first layer has none).
pub(super) fn bc5_pair_level(
    l: &MapLevel,
    space: MapSpace,
    encoder: BcEncoder,
) -> Result<Vec<u8>, bc::BcError> {
    let quats = block_aligned(l.width, l.height, &l.quats, None);
    let split = match space {
        MapSpace::Tangent => tangent::normal_twist,
        MapSpace::Object => tangent::swing_twist,
    };
    let (xy, zw): (Vec<[f32; 2]>, Vec<[f32; 2]>) = quats.iter().map(|&q| split(q)).unzip();
    let mut bytes = bc::encode_bc5_snorm(l.width, l.height, &xy, encoder)?;
    bytes.extend(bc::encode_bc5_snorm(l.width, l.height, &zw, encoder)?);
    Ok(bytes)
}

/// The texels with each 4×4 block's quaternions put in one hemisphere (q and −q are one
/// rotation): every texel that disagrees (dot < 0) with the block's reference — the normalised
/// sum of its cared-for texels, each first aligned with the first — is negated. The hemisphere
/// rule aligns neighbours across the whole map, but where it cannot (island borders, seams)
/// a block would hold q and −q side by side, which BC7's endpoints cannot fit (measured: texels
/// off by up to 99° on FlightHelmet without this). Where a flip breaks a neighbour's agreement
/// across a block edge, the seam-robust sampler repairs the filtering.
fn block_aligned(width: u32, height: u32, quats: &[Vec4], care: Option<&[bool]>) -> Vec<Vec4> {
    let (w, h) = (width as usize, height as usize);
    let mut out = quats.to_vec();
    for by in (0..h).step_by(4) {
        for bx in (0..w).step_by(4) {
            let texels: Vec<usize> = (by..(by + 4).min(h))
                .flat_map(|y| (bx..(bx + 4).min(w)).map(move |x| y * w + x))
                .filter(|&i| care.is_none_or(|c| c[i]) && quats[i] != Vec4::ZERO)
                .collect();
            let Some(&first) = texels.first() else {
                continue;
            };
            let mut sum = Vec4::ZERO;
            for &i in &texels {
                let q = quats[i];
                sum += if q.dot(quats[first]) < 0.0 { -q } else { q };
            }
            if sum == Vec4::ZERO {
                continue;
            }
            for y in by..(by + 4).min(h) {
                for x in bx..(bx + 4).min(w) {
                    let i = y * w + x;
                    if out[i].dot(sum) < 0.0 {
                        out[i] = -out[i];
                    }
                }
            }
        }
    }
    out
}
