//! The `maps` tool's tables, the one that decides between quaternion maps and the normal maps
//! they replace ([`scene_table`]) and the bake-time table ([`bake_timing`]), with what both
//! need: a scene mesh's bake input, and the judge of a stored map against an exact one by what
//! it does to the frame (the angles between decoded and exact normals and tangents per texel,
//! and their statistics).

#[cfg(feature = "gpu")]
use std::fmt::Write as _;

use glam::Vec4;

use crate::lab::shading::halve_twist;
use crate::qmap::{BakeError, BakeMesh, EncodedMap, MapFormat, NormalMap};
use crate::render::RenderScene;

#[cfg(feature = "gpu")]
mod table;
#[cfg(feature = "gpu")]
mod timing;
#[cfg(feature = "gpu")]
pub use table::scene_table;

/// The bake-time table of `scene`'s maps (titled `name`; FlightHelmet's, in the tool) at each
/// of `sides`² (its normal maps resized to that size where they differ), BC7 at effort `bc7` and
/// at UltraFast: a markdown section, handed to `each` piece by piece as it is measured (the
/// title, description and header first, then every row; lines end in `\n`). A row takes
/// seconds to minutes.
///
/// # Errors
/// A bake or store that fails.
#[cfg(feature = "gpu")]
pub fn bake_timing(
    ctx: &crate::gpu::GpuContext,
    name: &str,
    scene: &RenderScene,
    sides: &[u32],
    bc7: crate::qmap::Bc7Quality,
    mut each: impl FnMut(&str),
) -> Result<(), crate::lab::LabError> {
    let mut head = String::new();
    let _ = writeln!(
        head,
        "## Bake time, {name}, all materials ({} cores)\n",
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    let _ = writeln!(head, "Tangent-space maps come from the normal map alone (its mips, the rotation per texel, compression); object-space maps rasterise the mesh (on {}), then hemispheres, padding and mips (CPU), then compression.\n", ctx.info.name);
    let _ = writeln!(head, "BC5 and BC7 are encoded on every core by Intel's ISPC kernels (`ispc`) and by `block_compression`'s portable Rust port of them (`portable`); BC7 also by Binomial's bc7e (`bc7e`, the default; BC5 then runs on the ISPC kernel) and bc7f (`bc7f`). Mtexel/s counts every mip level's texels; the per-texel error is against the f32 bake over texels inside triangles (object space) or every texel (tangent space).\n");
    let _ = writeln!(
        head,
        "| size | kind → format (encoder) | stages (summed over materials) | total |"
    );
    let _ = writeln!(head, "|---|---|---|---:|");
    each(&head);
    for &side in sides {
        let timing = timing::BakeTiming { ctx, scene, side };
        // BC5 has two encoders (bc7e and bc7f leave BC5 to the ISPC kernel): side by side.
        for encoder in [
            crate::qmap::BcEncoder::Ispc,
            crate::qmap::BcEncoder::Portable,
        ] {
            each(&timing.tangent(bc7, encoder)?);
        }
        // Object space → BC7, at this effort and at UltraFast.
        let qualities = if bc7 == crate::qmap::Bc7Quality::UltraFast {
            vec![bc7]
        } else {
            vec![bc7, crate::qmap::Bc7Quality::UltraFast]
        };
        for quality in qualities {
            for encoder in crate::qmap::BcEncoder::ALL {
                each(&timing.object(quality, encoder)?);
            }
        }
    }
    each("\n");
    Ok(())
}

/// How a map of `space` is stored as `format`, BC7 at effort `bc7`, by `encoder`.
pub(crate) fn encoding(
    space: crate::qmap::MapSpace,
    format: MapFormat,
    bc7: crate::qmap::Bc7Quality,
    encoder: crate::qmap::BcEncoder,
) -> crate::qmap::stored::Encoding {
    crate::qmap::stored::Encoding {
        bc7,
        encoder,
        ..crate::qmap::stored::Encoding::new(space, format)
    }
}

/// The bake input of mesh `i` of `scene`: its frames and UVs, and its material's normal map.
///
/// # Panics
/// If `i` is not a mesh of the scene.
#[must_use]
pub(crate) fn bake_input(scene: &RenderScene, i: usize) -> (BakeMesh, Option<NormalMap>) {
    let m = &scene.meshes[i];
    let label = format!("{}: {}", scene.name, m.mesh.label);
    let bake = BakeMesh::from_prepared(label, &[&m.mesh]);
    (bake, scene.materials[m.material].bake_normal_map())
}

/// Angle statistics of one axis over a set of texels, degrees.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct AngleStats {
    /// Texels measured.
    count: usize,
    /// Mean angle.
    mean: f64,
    /// 99th percentile (nearest rank).
    p99: f64,
    /// Largest angle.
    max: f64,
}

impl AngleStats {
    /// The statistics of `angles` (degrees; empty gives zeros).
    #[must_use]
    pub(crate) fn of(mut angles: Vec<f64>) -> Self {
        if angles.is_empty() {
            return Self::default();
        }
        angles.sort_by(f64::total_cmp);
        let n = angles.len();
        let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1;
        Self {
            count: n,
            mean: angles.iter().sum::<f64>() / n as f64,
            p99: angles[rank],
            max: angles[n - 1],
        }
    }
}

/// Per-texel error of level 0 against `exact` (the same map's unquantised rotations, e.g. an
/// rgba32f bake), over the texels where `mask` is true (and neither side is background):
/// the angles, in degrees, between the decoded and the exact normal (`q·Z`) and tangent
/// (`q·X`; for an [`EncodedMap::axial_twist`] map, twists halved and the tangent compared as
/// an axis). Judges lossy formats by what they turn the frame into, not by component error.
/// [`AngleStats::of`] summarises them; the `maps` table pools them over materials.
///
/// # Errors
/// As `EncodedMap::decode_level`; [`BakeError::Settings`] when `exact` or `mask` do not
/// have a texel each.
pub(crate) fn frame_angles(
    map: &EncodedMap,
    exact: &[Vec4],
    mask: &[bool],
) -> Result<(Vec<f64>, Vec<f64>), BakeError> {
    let decoded = map.decode_level(0)?;
    if exact.len() != decoded.len() || mask.len() != decoded.len() {
        return Err(BakeError::Settings(format!(
            "{} exact texels and {} mask entries for a {}×{} map",
            exact.len(),
            mask.len(),
            map.width,
            map.height
        )));
    }
    let (mut normals, mut tangents) = (Vec::new(), Vec::new());
    for ((d, e), m) in decoded.iter().zip(exact).zip(mask) {
        if !*m || *d == Vec4::ZERO || *e == Vec4::ZERO {
            continue;
        }
        let (d, e) = if map.axial_twist {
            (&halve_twist(*d), &halve_twist(*e))
        } else {
            (d, e)
        };
        let (qd, qe) = (
            glam::Quat::from_vec4(*d).normalize(),
            glam::Quat::from_vec4(*e).normalize(),
        );
        normals.push(crate::measure::angle_deg(
            qd * glam::Vec3::Z,
            qe * glam::Vec3::Z,
        ));
        let t = crate::measure::angle_deg(qd * glam::Vec3::X, qe * glam::Vec3::X);
        // An axial map's tangent is a groove: t and −t are the same.
        tangents.push(if map.axial_twist { t.min(180.0 - t) } else { t });
    }
    Ok((normals, tangents))
}
