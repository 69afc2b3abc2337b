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

/// What [`repair`] changed in one primitive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Repairs {
    /// Normals regenerated (they were zero-length, NaN or infinite).
    pub normals: usize,
    /// Tangents replaced by zero (a component was NaN or infinite).
    pub tangents: usize,
}

impl Repairs {
    /// One warning line per kind of repair, each starting with the primitive's label.
    pub(crate) fn warnings(self, label: &str) -> Vec<String> {
        let mut out = Vec::new();
        if self.normals > 0 {
            out.push(format!(
                "{label}: {} zero-length or non-finite NORMAL value(s) regenerated (angle-weighted from the vertex's triangles)",
                self.normals
            ));
        }
        if self.tangents > 0 {
            out.push(format!(
                "{label}: {} non-finite TANGENT value(s) ignored (those vertices get the fallback frame)",
                self.tangents
            ));
        }
        out
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
        && p.indices.len() % 3 == 0
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
