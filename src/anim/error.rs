//! What can go wrong analysing locomotion clips or building a walk/run blend.

use glam::Vec3;

/// What can go wrong analysing clips or building a blend.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LocomotionError {
    /// No feet were given.
    #[error("no feet given: the gait analysis needs at least one foot bone")]
    NoFeet,
    /// A foot index is not a node of the skeleton.
    #[error("foot node {node} does not exist (the skeleton has {count} nodes)")]
    BadNode {
        /// The index given.
        node: usize,
        /// Nodes in the skeleton.
        count: usize,
    },
    /// A clip's duration is zero, negative or not finite.
    #[error("clip `{clip}` has no duration ({duration} s): a cycle needs a positive length")]
    NoDuration {
        /// Clip name.
        clip: String,
        /// Its duration.
        duration: f32,
    },
    /// An analysis setting is out of range.
    #[error("invalid gait setting: {0}")]
    Settings(String),
    /// The feet have no common ancestor to stand for the body (needed to find "up").
    #[error(
        "the feet {feet:?} share no ancestor to stand for the body; give the up axis in \
        GaitSettings::up"
    )]
    NoBody {
        /// Foot names.
        feet: Vec<String>,
    },
    /// The body is not above the feet on average, so no up axis can be found.
    #[error(
        "clip `{clip}`: the body `{body}` is not away from the feet on average; give the up \
        axis in GaitSettings::up"
    )]
    NoUp {
        /// Clip name.
        clip: String,
        /// Body node name.
        body: String,
    },
    /// A foot's height does not change over the clip: it never lifts off.
    #[error(
        "clip `{clip}`: foot `{foot}` never lifts (height range {range} along {up}): is it \
        animated?"
    )]
    NeverLifts {
        /// Clip name.
        clip: String,
        /// Foot name.
        foot: String,
        /// Height range over the cycle.
        range: f32,
        /// The up axis used.
        up: Vec3,
    },
    /// A foot never touches down (only possible with unusual settings).
    #[error("clip `{clip}`: foot `{foot}` never touches down")]
    NeverDown {
        /// Clip name.
        clip: String,
        /// Foot name.
        foot: String,
    },
    /// The feet in contact do not move, so the clip has no ground speed.
    #[error(
        "clip `{clip}`: the feet in contact do not move backwards (ground speed {speed}); \
        is the clip a locomotion cycle?"
    )]
    NoGroundSpeed {
        /// Clip name.
        clip: String,
        /// The measured speed.
        speed: f32,
    },
    /// The clips disagree on the up axis.
    #[error("clips `{walk}` and `{run}` disagree on the up axis ({walk_up} vs {run_up})")]
    UpMismatch {
        /// Walk clip name.
        walk: String,
        /// Run clip name.
        run: String,
        /// Up axis found in the walk.
        walk_up: Vec3,
        /// Up axis found in the run.
        run_up: Vec3,
    },
    /// The clips move in directions more than 45° apart.
    #[error("clips `{walk}` and `{run}` move in directions {angle_deg:.1}° apart (more than 45°)")]
    DirectionMismatch {
        /// Walk clip name.
        walk: String,
        /// Run clip name.
        run: String,
        /// Angle between the ground velocities.
        angle_deg: f32,
    },
    /// The walk is not slower than the run.
    #[error(
        "walk `{walk}` ({walk_speed:.3} units/s) is not slower than run `{run}` \
        ({run_speed:.3} units/s)"
    )]
    NotSlower {
        /// Walk clip name.
        walk: String,
        /// Its ground speed.
        walk_speed: f32,
        /// Run clip name.
        run: String,
        /// Its ground speed.
        run_speed: f32,
    },
    /// No foot lands the same number of times per cycle in both clips.
    #[error(
        "the first foot listed lands a different number of times per cycle in `{walk}` \
        and `{run}`, so no footfall events pair up (walk/run: {counts})"
    )]
    NoCommonEvents {
        /// Walk clip name.
        walk: String,
        /// Run clip name.
        run: String,
        /// `foot: walk/run` counts.
        counts: String,
    },
    /// The requested event feet do not land in the same cyclic order in both clips.
    #[error(
        "event feet {feet:?} do not land in the same cyclic order in `{walk}` and `{run}` \
        (or are not among the feet analysed)"
    )]
    EventFeetDisagree {
        /// The requested feet (indices into the analysed feet).
        feet: Vec<usize>,
        /// Walk clip name.
        walk: String,
        /// Run clip name.
        run: String,
    },
    /// Two footfall events fall at the same time, leaving an empty segment.
    #[error("clip `{clip}`: footfall events {a} and {b} coincide at {time} s")]
    CoincidentEvents {
        /// Clip name.
        clip: String,
        /// First event index.
        a: usize,
        /// Second event index.
        b: usize,
        /// Their time.
        time: f32,
    },
    /// A scene lacks a named animation.
    #[error("{scene}: no animation named `{name}` (it has: {available})")]
    MissingClip {
        /// Scene file.
        scene: String,
        /// The name looked for.
        name: String,
        /// The animations it has.
        available: String,
    },
    /// A scene lacks a named node.
    #[error("{scene}: no node named `{name}`")]
    MissingNode {
        /// Scene file.
        scene: String,
        /// The name looked for.
        name: String,
    },
    /// A footfall-event foot named that is not one of the analysed feet.
    #[error("`{name}` is not one of the feet {feet:?}")]
    NotAFoot {
        /// The name given.
        name: String,
        /// The analysed feet's names.
        feet: Vec<String>,
    },
}
