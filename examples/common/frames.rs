//! What the tools and the tests share to compare frames and print the encodings table: the
//! table itself (`encodings`, `demo`), and the largest component difference between two
//! vectors or frames, NaN-propagating so a poisoned GPU result can never pass a bound (`embed`,
//! `demo`, the GPU decode tests).
#![allow(dead_code)] // each user takes what it needs

use std::fmt::Write as _;

use glam::Vec3;
use qtangent::measure::{ErrorStat, FrameErrors};
use qtangent::{Format, TangentFrame};

/// The encodings table: one row per format with bytes, mean/max errors and handedness errors.
#[must_use]
pub fn table(rows: &[(Format, FrameErrors)]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| format       | bytes | normal mean / max (°)  | tangent mean / max (°) | bitangent mean / max (°) | handedness errors |"
    );
    let _ = writeln!(s, "|--------------|------:|------------------------|------------------------|--------------------------|-------------------|");
    for (format, e) in rows {
        let hand = e.handedness_errors.to_string();
        let pair = |st: &ErrorStat| format!("{:.6} / {:.6}", st.mean(), st.max);
        let _ = writeln!(
            s,
            "| {:<12} | {:>5} | {:<22} | {:<22} | {:<24} | {:<17} |",
            format.name(),
            format.bytes(),
            pair(&e.normal),
            pair(&e.tangent),
            pair(&e.bitangent),
            hand
        );
    }
    s
}

/// Largest absolute component of `a − b`; NaN when either has a NaN (unlike glam's
/// `max_element`, which skips NaN).
#[must_use]
pub fn max_abs_diff(a: Vec3, b: Vec3) -> f32 {
    let d = (a - b).abs();
    if d.is_nan() {
        f32::NAN
    } else {
        d.max_element()
    }
}

/// Largest absolute difference between corresponding components of two frames' vectors. NaN
/// when either frame has a NaN, so an unwritten (poisoned) GPU result can never pass a bound.
#[must_use]
pub fn max_component_diff(a: &TangentFrame, b: &TangentFrame) -> f32 {
    let d = [
        max_abs_diff(a.normal, b.normal),
        max_abs_diff(a.tangent, b.tangent),
        max_abs_diff(a.bitangent, b.bitangent),
    ];
    if d.iter().any(|x| x.is_nan()) {
        f32::NAN
    } else {
        d.into_iter().fold(0.0, f32::max)
    }
}
