//! Repairs the loaders make to an otherwise good primitive before validating it: supplied
//! normals that are zero-length or not finite are regenerated for just those vertices
//! (angle-weighted, [`normals::angle_weighted`], honouring the primitive's smoothing ids), and
//! tangents that are not finite become zero, which [`Primitive::prepare`] treats like any
//! unusable supplied tangent: that vertex gets the fallback frame ([`super::tangents`]).
//!
//! Positions are never repaired: NaN or infinite positions stay an error
//! ([`Primitive::validate`]), and a primitive with such positions or with indices out of range
//! is left as it is for validation to report.

use glam::Vec4;

use super::{normals, Primitive};
use crate::{Warning, WarningKind};

/// What [`repair`] changed in one primitive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Repairs {
    /// Normals regenerated (they were zero-length, NaN or infinite).
    pub(crate) normals: usize,
    /// Tangents replaced by zero (a component was NaN or infinite).
    pub(crate) tangents: usize,
}

impl Repairs {
    /// One warning per kind of repair, placed at the primitive's label.
    pub(crate) fn warnings(self, label: &str) -> Vec<Warning> {
        [
            (
                self.normals,
                WarningKind::NormalsRegenerated {
                    count: self.normals,
                },
            ),
            (
                self.tangents,
                WarningKind::TangentsIgnored {
                    count: self.tangents,
                },
            ),
        ]
        .into_iter()
        .filter(|&(count, _)| count > 0)
        .map(|(_, kind)| Warning::new(label, kind))
        .collect()
    }
}

/// A supplied normal no direction can be had from: the same threshold as
/// [`Primitive::validate`] (below it nothing survives normalisation in f32).
fn unusable_normal(n: glam::Vec3) -> bool {
    !n.is_finite() || n.abs().max_element() < 1e-12
}

/// Repairs `p` in place (see the module docs) and says what it did.
pub(crate) fn repair(p: &mut Primitive) -> Repairs {
    let mut done = Repairs::default();
    let n = p.positions.len();
    let geometry_ok = p.positions.iter().all(|v| v.is_finite())
        && p.indices.len().is_multiple_of(3)
        && p.indices.iter().all(|&i| (i as usize) < n)
        && p.smoothing_ids.as_ref().is_none_or(|ids| ids.len() == n);
    if let Some(tangents) = &mut p.tangents {
        for t in tangents.iter_mut().filter(|t| !t.is_finite()) {
            *t = Vec4::ZERO;
            done.tangents += 1;
        }
    }
    let Some(supplied) = &p.normals else {
        return done;
    };
    if !geometry_ok || supplied.len() != n || !supplied.iter().any(|&v| unusable_normal(v)) {
        return done;
    }
    let (generated, _) =
        normals::angle_weighted(&p.positions, &p.indices, p.smoothing_ids.as_deref());
    if let Some(normals) = &mut p.normals {
        for (v, g) in normals.iter_mut().zip(generated) {
            if unusable_normal(*v) {
                *v = g;
                done.normals += 1;
            }
        }
    }
    done
}
