//! Judging a stored map against an exact one by what it does to the frame: the angles between
//! decoded and exact normals and tangents per texel ([`frame_angles`]) and their statistics
//! ([`AngleStats`]), what the `maps` table reports for every format.

use glam::Vec4;

use crate::qmap::{tangent, BakeError, EncodedMap};

/// Angle statistics of one axis over a set of texels, degrees.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AngleStats {
    /// Texels measured.
    pub count: usize,
    /// Mean angle.
    pub mean: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Largest angle.
    pub max: f64,
}

impl AngleStats {
    /// The statistics of `angles` (degrees; empty gives zeros).
    #[must_use]
    pub fn of(mut angles: Vec<f64>) -> Self {
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
pub fn frame_angles(
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
            (&tangent::halve_twist(*d), &tangent::halve_twist(*e))
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
