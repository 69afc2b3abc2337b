//! The foot-slide measure: how fast each foot moves horizontally while it is down, under one
//! contact rule for every blend method, and the walk → run → walk schedule it is run over.

use glam::Vec3;

use super::{LocoFrame, Skeleton};

/// Contact thresholds shared by every method, from the clips' analyses: on a frame with blend
/// `b` foot `f` is down when its world height (along `up`) is at most
/// `(1 − b)·walk[f] + b·run[f]`, each the foot's [`FootGait::threshold`](super::FootGait::threshold) in that clip.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ContactRule {
    /// Threshold per foot in the walk.
    pub(crate) walk: Vec<f32>,
    /// Threshold per foot in the run.
    pub(crate) run: Vec<f32>,
}

impl ContactRule {
    /// Threshold of foot `f` at blend `b`.
    #[must_use]
    pub(crate) fn threshold(&self, f: usize, b: f32) -> f32 {
        self.walk[f] + (self.run[f] - self.walk[f]) * b
    }
}

/// Foot slide of one foot over a run of frames.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FootSlide {
    /// Foot name.
    pub(crate) foot: String,
    /// Mean horizontal world speed while down, units per second (0 when never down).
    pub(crate) mean: f32,
    /// Maximum horizontal world speed while down.
    pub(crate) max: f32,
    /// Frame steps counted (both ends down).
    pub(crate) contact_frames: usize,
}

/// Foot slide: the horizontal world speed of each foot while it is down. The step from frame
/// `n − 1` to `n` counts for a foot when the foot is down on both frames by `rule` (the same
/// for every method); its speed is the horizontal part (orthogonal to `up`) of the foot's
/// world displacement over `dt`. `feet` index the skeleton and `rule`'s lists in order.
///
/// # Panics
/// If `rule` has fewer entries than `feet` or a foot index is out of range.
#[must_use]
#[cfg_attr(not(feature = "lab"), allow(dead_code))]
pub(crate) fn foot_slide(
    skeleton: &Skeleton,
    frames: &[LocoFrame],
    feet: &[usize],
    dt: f32,
    up: Vec3,
    rule: &ContactRule,
) -> Vec<FootSlide> {
    let up = up.normalize();
    let mut sum = vec![0.0f64; feet.len()];
    let mut max = vec![0.0f32; feet.len()];
    let mut count = vec![0usize; feet.len()];
    let mut prev: Vec<(Vec3, bool)> = Vec::with_capacity(feet.len());
    let mut now: Vec<(Vec3, bool)> = Vec::with_capacity(feet.len());
    let mut world = Vec::with_capacity(skeleton.parents.len());
    for (n, frame) in frames.iter().enumerate() {
        skeleton.world_matrices_into(&frame.local, &mut world);
        now.clear();
        now.extend(feet.iter().enumerate().map(|(i, &node)| {
            let p = frame
                .placement
                .transform_point3(world[node].w_axis.truncate());
            (p, p.dot(up) <= rule.threshold(i, frame.blend))
        }));
        if n > 0 {
            for (i, (&(p0, down0), &(p1, down1))) in prev.iter().zip(&now).enumerate() {
                if down0 && down1 {
                    let d = p1 - p0;
                    let v = (d - up * d.dot(up)).length() / dt;
                    sum[i] += f64::from(v);
                    max[i] = max[i].max(v);
                    count[i] += 1;
                }
            }
        }
        std::mem::swap(&mut prev, &mut now);
    }
    feet.iter()
        .enumerate()
        .map(|(i, &node)| FootSlide {
            foot: skeleton.names[node].clone(),
            mean: if count[i] > 0 {
                (sum[i] / count[i] as f64) as f32
            } else {
                0.0
            },
            max: max[i],
            contact_frames: count[i],
        })
        .collect()
}

/// A walk → run → walk speed schedule, one desired speed per frame: hold `v_walk` for 1/8 of
/// `seconds`, ramp linearly to `v_run` over 3/8, hold for 1/8, ramp back over 3/8 (for
/// `seconds = 8`: 1 s, 3 s, 1 s, 3 s). `round(seconds · fps)` frames, frame `n` at `n / fps`.
#[must_use]
pub fn speed_ramp(v_walk: f32, v_run: f32, seconds: f32, fps: f32) -> Vec<f32> {
    let frames = (seconds * fps).round().max(0.0) as usize;
    (0..frames)
        .map(|n| {
            let x = n as f32 / fps / seconds * 8.0; // in eighths of the schedule
            let u = if x < 1.0 {
                0.0
            } else if x < 4.0 {
                (x - 1.0) / 3.0
            } else if x < 5.0 {
                1.0
            } else {
                (1.0 - (x - 5.0) / 3.0).max(0.0)
            };
            v_walk + (v_run - v_walk) * u
        })
        .collect()
}
