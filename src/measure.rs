//! Measuring formats: the angle between two directions and the angular errors of decoded frames
//! against their sources. (The encodings table's frames are the tools' and tests':
//! `examples/common/table_frames.rs`.)

use glam::Vec3;

use crate::frame::TangentFrame;

/// Angle between two vectors in degrees, computed in f64 (`atan2(|a×b|, a·b)`, accurate at
/// every angle).
#[must_use]
pub fn angle_deg(a: Vec3, b: Vec3) -> f64 {
    let (a, b) = (a.as_dvec3(), b.as_dvec3());
    a.cross(b).length().atan2(a.dot(b)).to_degrees()
}

/// Running mean and maximum of an angular error.
#[derive(Debug, Clone, Copy, Default)]
pub struct ErrorStat {
    sum: f64,
    /// Largest error seen (degrees).
    pub max: f64,
    count: u64,
}

impl ErrorStat {
    /// Adds one sample. A NaN sample makes `max` NaN, so it cannot pass a bound unnoticed.
    pub(crate) fn add(&mut self, deg: f64) {
        self.sum += deg;
        self.count += 1;
        if deg.is_nan() || self.max.is_nan() {
            self.max = f64::NAN;
        } else if deg > self.max {
            self.max = deg;
        }
    }

    /// Mean error (degrees); 0 with no samples.
    #[must_use]
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }
}

/// Errors of decoded frames against their sources.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameErrors {
    /// Normal error (degrees).
    pub normal: ErrorStat,
    /// Tangent error (degrees).
    pub tangent: ErrorStat,
    /// Bitangent error (degrees).
    pub bitangent: ErrorStat,
    /// Frames whose decoded handedness differs from the source's.
    pub handedness_errors: u64,
    /// Frames compared.
    pub frames: u64,
}

impl FrameErrors {
    /// Compares one decoded frame with its source.
    pub fn add(&mut self, source: &TangentFrame, decoded: &TangentFrame) {
        self.frames += 1;
        self.normal.add(angle_deg(source.normal, decoded.normal));
        self.tangent.add(angle_deg(source.tangent, decoded.tangent));
        self.bitangent
            .add(angle_deg(source.bitangent, decoded.bitangent));
        self.handedness_errors += u64::from(source.handedness() != decoded.handedness());
    }

    /// Largest of the normal, tangent and bitangent maxima (NaN if any is NaN).
    #[must_use]
    pub fn max(&self) -> f64 {
        let m = [self.normal.max, self.tangent.max, self.bitangent.max];
        if m.iter().any(|x| x.is_nan()) {
            f64::NAN
        } else {
            m.into_iter().fold(0.0, f64::max)
        }
    }
}
