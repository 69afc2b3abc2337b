//! The contact rule shared by every blend method, and the walk → run → walk schedule the lab's
//! foot-slide measure (`lab::walkrun`) runs the blends over.

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
