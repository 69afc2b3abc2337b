//! Walk/run locomotion blending: seed 000, Eric Brown, "Blending a Walk/Run cycle" (Physics For
//! Games, 2010), on in-place clips.
//!
//! The article's equations were images; re-derived here, with `T = N / 30` the cycle time of a
//! clip of `N` frames at 30 fps and `v_w < v_r` the clips' ground speeds:
//!
//! 1. **Blend parameter.** `b = (v − v_w) / (v_r − v_w)`, clamped to `[0, 1]`
//!    ([`Locomotion::blend_parameter`]).
//! 2. **Unified cycle time.** Both clips advance one shared phase at
//!    `φ' = (1 − b) / T_w + b / T_r` cycles per second, so they loop together. In the article's
//!    frame rates: `R_w = (1 − b)·30 + b·30·N_w/N_r`, `R_r = (1 − b)·30·N_r/N_w + b·30`; in clip
//!    seconds per second `r_i = T_i·φ'` ([`Locomotion::unified_rates`]).
//! 3. **Unified distance.** A target bone `T` has an animation-space value `TA_i` per clip and a
//!    world value `TW_i = AO_i · TA_i` through the clip's animation origin `AO_i`. The world
//!    target is the blend `TW = blend(TW_w, TW_r; b)`; each origin is then moved by the `Δ_i`
//!    with `Δ_i · TW_i = TW` (`AO_i ← Δ_i · AO_i`, so every clip agrees with `TW`), and the
//!    character is placed by the blended origin `AO = blend(AO_w, AO_r; b)` applied to the
//!    blended animation (here: `AO · blend(TA_w, TA_r; b)`, see below).
//! 4. **Events.** Footfalls split each cycle into segments that occur in the same order in both
//!    clips; step 2 is applied per segment: in segment `k` of lengths `L_w,k`, `L_r,k` a shared
//!    segment phase advances at `(1 − b)/L_w,k + b/L_r,k`, so both clips reach every event
//!    together, whatever fraction of their cycles the events sit at
//!    ([`Locomotion::segment_rates`]).
//!
//! **In-place clips.** The article assumes the clips carry their root motion. The Fox's do not
//! (its hip returns to where it started), so [`Gait::analyse`] reconstructs it from the feet:
//! while a foot is down it moves backwards in animation space at the ground speed. A foot is
//! down over a sample step when it is within [`GaitSettings::contact_fraction`] of its height
//! range above its lowest point at both ends and does not move forwards; the root track
//! [`Gait::root`] moves by minus the mean displacement of the feet that are down (interpolated
//! across flight phases), and its end is the stride: speed `v = stride / T` (the article's
//! `d·30/N`). The target bone is that root, `TA_i(t) = translation(root_i(t))` for clip time
//! `t` in `[0, T_i)` ([`RootMotion::Contacts`], the default), or the uniform
//! `translation(t·V_i)` ([`RootMotion::Uniform`]). When a clip loops its origin steps forward
//! by the stride, `AO_i ← AO_i · TA_i(T_i)`, as a root-motion clip's would. With a
//! translation-only target `AO · blend(TA)` equals `TW`: the placement advances at
//! `(1 − b)·r_w·root_w' + b·r_r·root_r'`. The poses are the clips' in-place local transforms,
//! blended with [`blend_poses`] against the rest pose.
//!
//! **Event feet.** The footfall order must be the same in both clips. [`Locomotion::new`] uses
//! the longest prefix of the listed feet whose cyclic footfall order agrees; list them in order
//! of preference. Two feet always qualify when each lands once per cycle (two points on a circle
//! have one cyclic order). A quadruped's four-foot order can change between gaits: the Fox
//! walks in diagonal couplets (left fore with right hind at 7 % and 12 % of the cycle, right
//! fore with left hind at 57 % and 74 %) and runs in a rotary gallop (right hind 2 %, right
//! fore 37 %, left fore 47 %, left hind 93 %). So [`Locomotion::fox`] lists the hind feet
//! first and gets them as the events: a left/right pair always keeps its order, and the hind
//! legs propel both gaits. Two three-foot sets do keep their order (right hind, right fore and
//! either left foot), but their segments differ so much between the clips (e.g. right fore →
//! left hind: 17 % of the walk, 56 % of the run) that the per-segment rates swing several-fold
//! and the feet slide more (with [`Locomotion::with_event_feet`]: events 77–83 units/s mean,
//! 1000–2100 max, against 71 and 680 for the hind pair).
//!
//! **Phase alignment.** [`Method::Unified`] and [`Method::Naive`] start the walk at event 0 and
//! the run at the same cycle fraction shifted by the circular mean of the events' fraction
//! differences, the nearest a single shared phase comes to the article's "footfalls at the same
//! fraction"; [`Method::Events`] starts both at event 0.
//!
//! **Measured** ([`foot_slide`], 8 s walk → run → walk ramp at 60 fps, `tests/locomotion.rs`
//! and `examples/walkrun.rs`): on a procedural biped whose walk and run share footfall
//! fractions, Unified and Events slide 20 % less than Naive (0.61 vs 0.76 units/s); with a
//! time-warped copy of a walk as the run (same poses, footfalls at other fractions: the case
//! step 4 is for), Events keeps the two clips' feet within a sample step of each other where
//! Unified leaves them 0.2–0.4 strides apart. On the Fox's own Walk and Run the seed does not
//! beat the naive blend (contact root: naive 57, unified 69, events 71 units/s mean over the
//! feet; the clips alone slide 34 and 29): the article's premise that the clips' footfalls
//! correspond fails (different four-foot orders and duty factors: walk feet down 35–43 % of
//! the cycle, run feet 17–36 %), so any common timing keeps some feet out of step, and
//! per-segment rates also scale each clip's own slide. The naive figure itself moves by about
//! 5 units/s with the run's starting phase.
//!
//! **Ours: locked feet** ([`Method::Locked`], what `examples/animate.rs` and the viewer play).
//! Keep the seed's steps 1–3 (the clips stay in phase, the origins keep the character from
//! popping), but (1) solve the blend for the speed asked for ([`Locomotion::blend_for_speed`]:
//! the unified speed, cadence × blended stride, is not linear in `b`), and (2) lock the feet: a
//! foot that touches down is pinned where it landed and its leg bent by two-bone IK to keep it
//! there until it rises above [`FOOT_RELEASE_FRACTION`] of its height range, then the pin
//! fades into the animation over [`FOOT_RELEASE_SECONDS`]. On the Fox's Walk/Run ramp it slides
//! 2.1 units/s mean over the four feet (598 max, single frames at touch-down) against 57.2 /
//! 469 for the naive blend, at the asked speed (tested within 1.4 units/s); under contact rules
//! it does not lock by (10 % and 30 % of the height range) 0.3 and 28 against 45.5 and 80.
//! (An earlier version placed the character by its blended pose's planted feet instead of
//! bending the legs: 44.6 units/s, but only because the character then moved at 58 units/s
//! where 148 was asked — the blended pose of two different gaits barely sweeps its feet.)
//!
//! Compare the methods with [`foot_slide`]: the horizontal world speed of each foot while it is
//! down, under one contact rule for every method ([`ContactRule`]).

use glam::{Mat4, Quat, Vec3};

use super::{blend_poses, Clip, Skeleton, Transform};
use crate::mesh::Scene;

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
}

/// How [`Gait::analyse`] samples a clip and decides contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaitSettings {
    /// Samples per second of clip time (default 240: ten per key of a 24 fps clip). At least 64
    /// samples are taken per cycle whatever the rate.
    pub sample_rate: f32,
    /// A foot is down while its height is at most `lowest + contact_fraction·(highest −
    /// lowest)` over the cycle, in `(0, 1)` (default 0.2).
    pub contact_fraction: f32,
    /// Airborne gaps shorter than this fraction of the cycle are merged into the contact around
    /// them, so a foot that wobbles across the threshold lands once (default 0.05).
    pub min_gap: f32,
    /// Also require a down foot not to move forwards relative to the body (default true): a
    /// foot that skims the ground at the end of its swing has not landed yet.
    pub stance_moves_backwards: bool,
    /// The world up axis; `None` finds it: the signed coordinate axis nearest to the mean
    /// offset from the feet to their lowest common ancestor (the body) over the cycle.
    pub up: Option<Vec3>,
}

impl Default for GaitSettings {
    fn default() -> Self {
        Self {
            sample_rate: 240.0,
            contact_fraction: 0.2,
            min_gap: 0.05,
            stance_moves_backwards: true,
            up: None,
        }
    }
}

/// One stance of one foot: from touch-down to lift-off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// Touch-down (the footfall), clip seconds in `[0, duration)`.
    pub start: f32,
    /// Lift-off, clip seconds in `(start, start + duration]` (past `duration` when the stance
    /// wraps around the loop).
    pub end: f32,
    /// Horizontal displacement of the foot from touch-down to lift-off, in the skeleton's root
    /// space (points backwards for a forward gait).
    pub sweep: Vec3,
}

impl Contact {
    /// Length of the stance in seconds.
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.end - self.start
    }
}

/// One foot over one clip.
#[derive(Debug, Clone, PartialEq)]
pub struct FootGait {
    /// Node index of the foot bone.
    pub node: usize,
    /// Its name.
    pub name: String,
    /// Lowest height (along [`Gait::up`]) over the cycle.
    pub lowest: f32,
    /// Highest height over the cycle.
    pub highest: f32,
    /// Contact threshold: the foot is down at or below this height.
    pub threshold: f32,
    /// Stances, sorted by touch-down time.
    pub contacts: Vec<Contact>,
}

impl FootGait {
    /// Footfall times (touch-downs), sorted, clip seconds.
    #[must_use]
    pub fn footfalls(&self) -> Vec<f32> {
        self.contacts.iter().map(|c| c.start).collect()
    }

    /// Fraction of the cycle the foot is down.
    #[must_use]
    pub fn duty_factor(&self, duration: f32) -> f32 {
        self.contacts.iter().map(Contact::duration).sum::<f32>() / duration
    }
}

/// A footfall of one of the analysed feet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footfall {
    /// Clip seconds in `[0, duration)`.
    pub time: f32,
    /// Index into [`Gait::feet`].
    pub foot: usize,
}

/// What a locomotion clip does on the ground: its speed, stride, and when each foot is down.
#[derive(Debug, Clone, PartialEq)]
pub struct Gait {
    /// Clip name.
    pub clip: String,
    /// Cycle length (the clip's duration), seconds.
    pub duration: f32,
    /// World up axis (unit).
    pub up: Vec3,
    /// Node whose offset from the feet gave `up` (the feet's lowest common ancestor).
    pub body: Option<usize>,
    /// Mean ground velocity in the skeleton's root space, horizontal: the stride over the
    /// cycle time, `root[n] / duration` (the article's `v = d·30/N`).
    pub velocity: Vec3,
    /// The root motion the in-place clip implies, sampled at `k·duration/n` for `k = 0..=n`:
    /// `root[0] = 0`, and over each sample step the root moves by minus the mean horizontal
    /// displacement of the feet that are down over the step (so those feet stand still on the
    /// ground, in the least-squares sense, when the clip is played with this root); the first
    /// and last step of each stance are left out, as they may straddle touch-down or lift-off.
    /// Steps with no foot down (a gallop's flight) take the displacement interpolated
    /// linearly, cyclically, between the nearest steps that have one. `root[n]` is the stride.
    pub root: Vec<Vec3>,
    /// Per foot, in the order given.
    pub feet: Vec<FootGait>,
}

impl Gait {
    /// Ground speed, units per second.
    #[must_use]
    pub fn speed(&self) -> f32 {
        self.velocity.length()
    }

    /// Unit forward direction (horizontal).
    #[must_use]
    pub fn forward(&self) -> Vec3 {
        self.velocity.normalize_or_zero()
    }

    /// Distance covered per cycle: `speed · duration`.
    #[must_use]
    pub fn stride(&self) -> f32 {
        self.speed() * self.duration
    }

    /// The root track at clip time `t` (clamped to `[0, duration]`), linear between samples.
    #[must_use]
    pub fn root_at(&self, t: f32) -> Vec3 {
        let n = self.root.len() - 1;
        let x = (t / self.duration).clamp(0.0, 1.0) * n as f32;
        let k = (x.floor() as usize).min(n - 1);
        self.root[k].lerp(self.root[k + 1], x - k as f32)
    }

    /// Velocity of the root track at clip time `t` (that of the sample step holding `t`).
    #[must_use]
    pub fn root_velocity_at(&self, t: f32) -> Vec3 {
        let n = self.root.len() - 1;
        let x = (t / self.duration).clamp(0.0, 1.0) * n as f32;
        let k = (x.floor() as usize).min(n - 1);
        (self.root[k + 1] - self.root[k]) * (n as f32 / self.duration)
    }

    /// Every footfall of every foot, sorted by time.
    #[must_use]
    pub fn footfalls(&self) -> Vec<Footfall> {
        let mut all: Vec<Footfall> = self
            .feet
            .iter()
            .enumerate()
            .flat_map(|(foot, f)| {
                f.contacts.iter().map(move |c| Footfall {
                    time: c.start,
                    foot,
                })
            })
            .collect();
        all.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.foot.cmp(&b.foot)));
        all
    }

    /// Analyses one locomotion clip: samples the feet's model-space positions over one cycle
    /// ([`GaitSettings::sample_rate`]), finds the up axis (unless given), each foot's stances
    /// (a sample step is down when the foot is within [`GaitSettings::contact_fraction`] of
    /// its height range above its lowest point at both ends and, by default, does not move
    /// forwards; touch-down and lift-off are refined by linear interpolation of the height, or
    /// of the forward velocity, between samples), the root track and the ground velocity.
    ///
    /// # Errors
    /// [`LocomotionError`] when there are no feet, a foot index is out of range, the clip has no
    /// duration, a setting is out of range, no up axis can be found, a foot never lifts or never
    /// lands, or the feet in contact do not move.
    pub fn analyse(
        skeleton: &Skeleton,
        clip: &Clip,
        feet: &[usize],
        settings: &GaitSettings,
    ) -> Result<Self, LocomotionError> {
        check_feet(skeleton, feet)?;
        check_settings(settings)?;
        let duration = clip.duration;
        if !(duration.is_finite() && duration > 0.0) {
            return Err(LocomotionError::NoDuration {
                clip: clip.name.clone(),
                duration,
            });
        }
        let samples = ((f64::from(duration) * f64::from(settings.sample_rate)).ceil() as usize)
            .max(MIN_SAMPLES);
        let step = f64::from(duration) / samples as f64;
        let time = |k: usize| (k as f64 * step) as f32;

        let body = match settings.up {
            Some(_) => None,
            None => Some(
                body_of(skeleton, feet).ok_or_else(|| LocomotionError::NoBody {
                    feet: feet.iter().map(|&f| skeleton.names[f].clone()).collect(),
                })?,
            ),
        };
        let mut pose = skeleton.rest.clone();
        let mut positions = vec![Vec3::ZERO; samples * feet.len()];
        let mut offset = Vec3::ZERO;
        let mut world = Vec::with_capacity(skeleton.parents.len());
        for k in 0..samples {
            clip.sample(time(k), &mut pose);
            skeleton.world_matrices_into(&pose, &mut world);
            let row = &mut positions[k * feet.len()..(k + 1) * feet.len()];
            for (p, &f) in row.iter_mut().zip(feet) {
                *p = world[f].w_axis.truncate();
            }
            if let Some(body) = body {
                let mean_foot = row.iter().copied().sum::<Vec3>() / feet.len() as f32;
                offset += world[body].w_axis.truncate() - mean_foot;
            }
        }
        let up = match settings.up {
            Some(up) => up.normalize(),
            None => {
                let body = body.unwrap_or(0);
                nearest_axis(offset).ok_or_else(|| LocomotionError::NoUp {
                    clip: clip.name.clone(),
                    body: skeleton.names[body].clone(),
                })?
            }
        };

        // Model-space position of foot `f` at any time (for the refined stance ends).
        let mut position_at = |t: f32, node: usize| {
            clip.sample(t, &mut pose);
            skeleton.world_matrices_into(&pose, &mut world);
            world[node].w_axis.truncate()
        };
        let nf = feet.len();
        let pos = |i: usize, k: isize| positions[k.rem_euclid(samples as isize) as usize * nf + i];
        let scale = positions
            .iter()
            .map(|p| p.abs().max_element())
            .fold(1e-6, f32::max);
        let mut heights = vec![0.0f32; samples * nf];
        let mut bands = Vec::with_capacity(nf);
        for (i, &node) in feet.iter().enumerate() {
            for k in 0..samples {
                heights[i * samples + k] = pos(i, k as isize).dot(up);
            }
            let h = &heights[i * samples..(i + 1) * samples];
            let lowest = h.iter().copied().fold(f32::INFINITY, f32::min);
            let highest = h.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            // A foot that moves less than 1e-4 of the figure's size is not animated.
            if highest - lowest <= 1e-4 * scale {
                return Err(LocomotionError::NeverLifts {
                    clip: clip.name.clone(),
                    foot: skeleton.names[node].clone(),
                    range: highest - lowest,
                    up,
                });
            }
            bands.push((
                lowest,
                highest,
                lowest + settings.contact_fraction * (highest - lowest),
            ));
        }
        let low = |i: usize, k: isize| {
            heights[i * samples + k.rem_euclid(samples as isize) as usize] <= bands[i].2
        };
        // The root track from the sample steps (k → k+1) where `counts` holds.
        let track = |counts: &dyn Fn(usize, isize) -> bool| {
            let mut sum = vec![Vec3::ZERO; samples];
            let mut count = vec![0u32; samples];
            for i in 0..nf {
                for k in 0..samples as isize {
                    if counts(i, k) {
                        let d = pos(i, k + 1) - pos(i, k);
                        sum[k as usize] += d - up * d.dot(up);
                        count[k as usize] += 1;
                    }
                }
            }
            root_track(&sum, &count)
        };
        // Pass 1, height alone: the direction of travel. Pass 2: a step is down when the foot
        // is low at both ends and (by default) does not move forwards relative to the body,
        // which drops the end of a swing that skims the ground before the foot lands.
        let forward = track(&|i, k| low(i, k) && low(i, k + 1))[samples].normalize_or_zero();
        let along = |i: usize, k: isize| (pos(i, k + 1) - pos(i, k)).dot(forward);
        let down = |i: usize, k: isize| {
            low(i, k) && low(i, k + 1) && (!settings.stance_moves_backwards || along(i, k) <= 0.0)
        };
        // The root follows the interior steps of stances only: a first or last step may
        // straddle touch-down or lift-off and carry part of the swing.
        let root = track(&|i, k| down(i, k - 1) && down(i, k) && down(i, k + 1));

        let mut gait_feet = Vec::with_capacity(nf);
        for (i, &node) in feet.iter().enumerate() {
            let name = skeleton.names[node].clone();
            let (lowest, highest, threshold) = bands[i];
            let flags: Vec<bool> = (0..samples as isize).map(|k| down(i, k)).collect();
            let runs = stance_runs(&flags, settings.min_gap);
            if runs.is_empty() {
                return Err(LocomotionError::NeverDown {
                    clip: clip.name.clone(),
                    foot: name,
                });
            }
            let h = |k: isize| heights[i * samples + k.rem_euclid(samples as isize) as usize];
            // Touch-down: step `first − 1` is not down, step `first` is. If sample `first − 1`
            // is above the threshold, where the height crosses it; else where the forward
            // velocity (taken at step midpoints) crosses zero. In samples from 0.
            let touch_down = |first: isize| {
                if low(i, first - 1) {
                    let (x, y) = (along(i, first - 1), along(i, first));
                    first as f64 - 0.5 + f64::from((x / (x - y)).clamp(0.0, 1.0))
                } else {
                    let (x, y) = (h(first - 1) - threshold, h(first) - threshold);
                    first as f64 - 1.0 + f64::from((x / (x - y)).clamp(0.0, 1.0))
                }
            };
            // Lift-off, the mirror image: step `last` is down, step `last + 1` is not.
            let lift_off = |last: isize| {
                if low(i, last + 2) {
                    let (x, y) = (along(i, last), along(i, last + 1));
                    last as f64 + 0.5 + f64::from((x / (x - y)).clamp(0.0, 1.0))
                } else {
                    let (x, y) = (h(last + 1) - threshold, h(last + 2) - threshold);
                    last as f64 + 1.0 + f64::from((x / (x - y)).clamp(0.0, 1.0))
                }
            };
            let mut contacts = Vec::with_capacity(runs.len());
            for (first, last) in runs {
                let start_u = touch_down(first) * step;
                let end_u = lift_off(last) * step;
                let start = start_u.rem_euclid(f64::from(duration));
                let end = start + (end_u - start_u).max(0.0);
                let (start, end) = (start as f32, end as f32);
                let d = position_at(end % duration, node) - position_at(start, node);
                let d = d - up * d.dot(up);
                contacts.push(Contact {
                    start,
                    end,
                    sweep: d,
                });
            }
            contacts.sort_by(|a, b| a.start.total_cmp(&b.start));
            gait_feet.push(FootGait {
                node,
                name,
                lowest,
                highest,
                threshold,
                contacts,
            });
        }
        let velocity = root[samples] / duration;
        // A root that moves less than 1e-4 of the figure's size per second does not walk.
        if velocity.is_nan() || velocity.length() <= 1e-4 * scale {
            return Err(LocomotionError::NoGroundSpeed {
                clip: clip.name.clone(),
                speed: velocity.length(),
            });
        }
        Ok(Self {
            clip: clip.name.clone(),
            duration,
            up,
            body,
            velocity,
            root,
            feet: gait_feet,
        })
    }
}

/// The root track from per-step sums of the contact feet's displacements: each step moves by
/// minus their mean; steps without a foot down take the step displacement interpolated
/// linearly (cyclically) between the nearest steps with one. All zero when no step has one.
fn root_track(sum: &[Vec3], count: &[u32]) -> Vec<Vec3> {
    let n = sum.len();
    let known: Vec<usize> = (0..n).filter(|&k| count[k] > 0).collect();
    let step = |k: usize| -sum[k] / count[k] as f32;
    let mut root = Vec::with_capacity(n + 1);
    root.push(Vec3::ZERO);
    for k in 0..n {
        let d = if count[k] > 0 {
            step(k)
        } else if known.is_empty() {
            Vec3::ZERO
        } else {
            // Nearest known steps before and after k, cyclically.
            let after = known
                .iter()
                .copied()
                .find(|&j| j > k)
                .unwrap_or(known[0] + n);
            let before = known.iter().rev().copied().find(|&j| j < k).map_or_else(
                || known[known.len() - 1] as isize - n as isize,
                |j| j as isize,
            );
            let u = (k as isize - before) as f32 / (after as isize - before) as f32;
            step(before.rem_euclid(n as isize) as usize).lerp(step(after % n), u)
        };
        root.push(root[k] + d);
    }
    root
}

/// At least this many samples per cycle in [`Gait::analyse`].
const MIN_SAMPLES: usize = 64;

fn check_feet(skeleton: &Skeleton, feet: &[usize]) -> Result<(), LocomotionError> {
    if feet.is_empty() {
        return Err(LocomotionError::NoFeet);
    }
    let count = skeleton.names.len();
    match feet.iter().find(|&&f| f >= count) {
        Some(&node) => Err(LocomotionError::BadNode { node, count }),
        None => Ok(()),
    }
}

fn check_settings(s: &GaitSettings) -> Result<(), LocomotionError> {
    let bad = |m: String| Err(LocomotionError::Settings(m));
    if !(s.sample_rate.is_finite() && s.sample_rate > 0.0) {
        return bad(format!("sample_rate {} must be positive", s.sample_rate));
    }
    if !(s.contact_fraction > 0.0 && s.contact_fraction < 1.0) {
        return bad(format!(
            "contact_fraction {} must be in (0, 1)",
            s.contact_fraction
        ));
    }
    if !(0.0..0.5).contains(&s.min_gap) {
        return bad(format!("min_gap {} must be in [0, 0.5)", s.min_gap));
    }
    if let Some(up) = s.up {
        if !(up.is_finite() && up.length() > 1e-6) {
            return bad(format!("up {up} must be a finite non-zero vector"));
        }
    }
    Ok(())
}

/// The lowest common ancestor of the feet (its parent if it is one of the feet).
fn body_of(skeleton: &Skeleton, feet: &[usize]) -> Option<usize> {
    let chain = |mut n: usize| {
        let mut c = vec![n];
        while let Some(p) = skeleton.parents.get(n).copied().flatten() {
            c.push(p);
            n = p;
            if c.len() > skeleton.parents.len() {
                break; // a cycle; the loader rejects them, but do not loop forever
            }
        }
        c
    };
    let first = chain(feet[0]);
    let others: Vec<Vec<usize>> = feet[1..].iter().map(|&f| chain(f)).collect();
    let lca = first
        .iter()
        .copied()
        .find(|a| others.iter().all(|c| c.contains(a)))?;
    if feet.contains(&lca) {
        skeleton.parents.get(lca).copied().flatten()
    } else {
        Some(lca)
    }
}

/// The signed coordinate axis nearest to `v`, or `None` for a (nearly) zero vector.
fn nearest_axis(v: Vec3) -> Option<Vec3> {
    if v.is_nan() || v.length() <= 1e-6 {
        return None;
    }
    let a = v.abs();
    let axis = if a.x >= a.y && a.x >= a.z {
        Vec3::X * v.x.signum()
    } else if a.y >= a.z {
        Vec3::Y * v.y.signum()
    } else {
        Vec3::Z * v.z.signum()
    };
    Some(axis)
}

/// Cyclic runs of `true` flags (sample steps that are down), as (first, last) indices with
/// `first` in `[0, n)` and `last ≥ first` (past `n` when the run wraps); gaps shorter than
/// `min_gap` of the cycle are merged. Empty when no step is down or every step is.
fn stance_runs(flags: &[bool], min_gap: f32) -> Vec<(isize, isize)> {
    let n = flags.len();
    let down = |k: usize| flags[k % n];
    let Some(k0) = (0..n).find(|&k| !down(k)) else {
        return Vec::new();
    };
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut k = k0 + 1;
    while k < k0 + 1 + n {
        if down(k) {
            let first = k;
            while down(k + 1) {
                k += 1;
            }
            runs.push((first, k));
        }
        k += 1;
    }
    // Merge runs separated by a short airborne gap (the gap after the last run wraps to the
    // first one, which k0 being airborne guarantees is a real gap).
    let max_gap = (min_gap * n as f32).floor() as usize;
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(runs.len());
    for r in runs {
        match merged.last_mut() {
            Some(last) if r.0 - last.1 - 1 < max_gap => last.1 = r.1,
            _ => merged.push(r),
        }
    }
    if merged.len() > 1 {
        let (first, last) = (merged[0], merged[merged.len() - 1]);
        if first.0 + n - last.1 - 1 < max_gap {
            merged[0] = (last.0, first.1 + n);
            merged.pop();
        }
    }
    merged
        .into_iter()
        .map(|(a, b)| {
            let shift = a / n * n;
            ((a - shift) as isize, (b - shift) as isize)
        })
        .collect()
}

/// The animation-space target bone `TA_i(t)` of the in-place clips (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RootMotion {
    /// `TA_i(t) = t·V_i`: the root moves uniformly at the clip's mean ground velocity
    /// ([`Gait::velocity`]).
    Uniform,
    /// `TA_i(t) = root_i(t)` ([`Gait::root`]): the root moves as the feet that are down say,
    /// so it slows and surges within the cycle as the clip does. Same stride as `Uniform`.
    #[default]
    Contacts,
}

impl RootMotion {
    /// Both, in order.
    pub const ALL: [Self; 2] = [Self::Uniform, Self::Contacts];

    /// Lower-case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Uniform => "uniform",
            Self::Contacts => "contacts",
        }
    }
}

/// How the two clips are combined (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Each clip plays at its own rate from one clock; poses blended with weight `b`; the
    /// character moves by the blend of the clips' root displacements (`(1 − b)·V_w + b·V_r`
    /// per second with [`RootMotion::Uniform`]). What you get without the seed: the cycles
    /// drift in and out of phase.
    Naive,
    /// Seed steps 1–3: one shared phase (both clips loop together) and target/origin blending.
    /// Assumes footfalls at the same fractions of both cycles; starts the clips at the aligned
    /// phases of the module docs ("Phase alignment").
    Unified,
    /// Step 4 on top: the shared phase restarts at every footfall event, with rates per
    /// segment, so both clips reach every event together.
    Events,
    /// Ours: the seed's steps 1–3 ([`Method::Unified`]) with the blend parameter solved so the
    /// character really moves at the speed asked for (the seed's `b` is linear in speed, the
    /// unified speed is not), then **foot locking**: a foot that touches down (the
    /// [`ContactRule`] on the blended pose) is pinned where it landed, and its leg is bent by
    /// two-bone IK (hip and knee; the ankle keeps its orientation) to keep it there until it
    /// lifts; then the pin fades into the animation over [`FOOT_RELEASE_SECONDS`]. The seed
    /// keeps the two clips in phase; the pins remove what a blend of two different gaits
    /// leaves sliding.
    Locked,
}

/// How long a released foot takes to go from its pin back to the animation (seconds).
pub const FOOT_RELEASE_SECONDS: f32 = 0.12;

/// A locked foot is released once it rises above this fraction of its height range in the
/// clips (it locks at [`GaitSettings::contact_fraction`], 0.2).
pub const FOOT_RELEASE_FRACTION: f32 = 0.35;

impl Method {
    /// All methods, in order.
    pub const ALL: [Self; 4] = [Self::Naive, Self::Unified, Self::Events, Self::Locked];

    /// Lower-case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Naive => "naive",
            Self::Unified => "unified",
            Self::Events => "events",
            Self::Locked => "locked",
        }
    }
}

/// One simulated frame.
#[derive(Debug, Clone, PartialEq)]
pub struct LocoFrame {
    /// The blended local pose, every node of the skeleton.
    pub local: Vec<Transform>,
    /// World from the skeleton's root space: a node's world matrix is
    /// `placement · skeleton.world_matrices(&local)[node]`.
    pub placement: Mat4,
    /// Blend parameter `b` (0 walk, 1 run).
    pub blend: f32,
    /// Ground speed of the placement at this frame's rates, units per second:
    /// `|(1 − b)·r_w·TA_w' + b·r_r·TA_r'|` with `r_i` the clip-time rates (1 for
    /// [`Method::Naive`]) and `TA_i'` the root velocity at the frame's clip time
    /// ([`Locomotion::root_velocity`]; `V_i` with [`RootMotion::Uniform`]).
    pub speed: f32,
    /// Clip times sampled for this frame, seconds: `[walk, run]`.
    pub clip_times: [f32; 2],
}

/// Contact thresholds shared by every method, from the clips' analyses: on a frame with blend
/// `b` foot `f` is down when its world height (along `up`) is at most
/// `(1 − b)·walk[f] + b·run[f]`, each the foot's [`FootGait::threshold`] in that clip.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactRule {
    /// Threshold per foot in the walk.
    pub walk: Vec<f32>,
    /// Threshold per foot in the run.
    pub run: Vec<f32>,
}

impl ContactRule {
    /// Threshold of foot `f` at blend `b`.
    #[must_use]
    pub fn threshold(&self, f: usize, b: f32) -> f32 {
        self.walk[f] + (self.run[f] - self.walk[f]) * b
    }
}

/// Foot slide of one foot over a run of frames.
#[derive(Debug, Clone, PartialEq)]
pub struct FootSlide {
    /// Foot name.
    pub foot: String,
    /// Mean horizontal world speed while down, units per second (0 when never down).
    pub mean: f32,
    /// Maximum horizontal world speed while down.
    pub max: f32,
    /// Frame steps counted (both ends down).
    pub contact_frames: usize,
}

/// Mean over feet of [`FootSlide::mean`], and the largest [`FootSlide::max`].
#[must_use]
pub fn slide_summary(slides: &[FootSlide]) -> (f32, f32) {
    let mean = slides.iter().map(|s| s.mean).sum::<f32>() / slides.len().max(1) as f32;
    let max = slides.iter().map(|s| s.max).fold(0.0, f32::max);
    (mean, max)
}

/// Foot slide: the horizontal world speed of each foot while it is down. The step from frame
/// `n − 1` to `n` counts for a foot when the foot is down on both frames by `rule` (the same
/// for every method); its speed is the horizontal part (orthogonal to `up`) of the foot's
/// world displacement over `dt`. `feet` index the skeleton and `rule`'s lists in order.
///
/// # Panics
/// If `rule` has fewer entries than `feet` or a foot index is out of range.
#[must_use]
pub fn foot_slide(
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

/// A rigid transform (rotation then translation), the seed's "target bone" and "animation
/// origin" matrices without scale.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rigid {
    rotation: Quat,
    translation: Vec3,
}

impl Rigid {
    fn from_translation(translation: Vec3) -> Self {
        Self {
            rotation: Quat::IDENTITY,
            translation,
        }
    }

    fn mul(self, o: Self) -> Self {
        Self {
            rotation: (self.rotation * o.rotation).normalize(),
            translation: self.translation + self.rotation * o.translation,
        }
    }

    fn inverse(self) -> Self {
        let r = self.rotation.conjugate();
        Self {
            rotation: r,
            translation: -(r * self.translation),
        }
    }

    /// `(1 − w)·a + w·b`: translation lerp, rotation nlerp on `a`'s hemisphere.
    fn blend(a: Self, b: Self, w: f32) -> Self {
        let rb = if a.rotation.dot(b.rotation) < 0.0 {
            -b.rotation
        } else {
            b.rotation
        };
        Self {
            rotation: (a.rotation * (1.0 - w) + rb * w).normalize(),
            translation: a.translation.lerp(b.translation, w),
        }
    }

    fn to_mat4(self) -> Mat4 {
        Mat4::from_rotation_translation(self.rotation, self.translation)
    }
}

/// Index of the walk in per-clip arrays.
pub const WALK: usize = 0;
/// Index of the run in per-clip arrays.
pub const RUN: usize = 1;

/// Footfall names of the Fox (`Fox.glb` from the glTF sample models): hind feet first, then
/// the front feet.
pub const FOX_FEET: [&str; 4] = [
    "b_LeftFoot02_018",
    "b_RightFoot02_022",
    "b_LeftHand_011",
    "b_RightHand_08",
];

/// A walk and a run clip, analysed and ready to blend.
#[derive(Debug, Clone)]
pub struct Locomotion {
    skeleton: Skeleton,
    clips: [Clip; 2],
    gaits: [Gait; 2],
    feet: Vec<usize>,
    /// Indices into `feet` whose footfalls are the events.
    event_feet: Vec<usize>,
    /// Event times per clip, in corresponding order, unwrapped: `events[i][0]` in
    /// `[0, T_i)`, increasing, all below `events[i][0] + T_i`.
    events: [Vec<f64>; 2],
    /// Event foot (index into `feet`) of each event.
    event_foot: Vec<usize>,
    /// Clip times where [`Method::Naive`] and [`Method::Unified`] start.
    start: [f64; 2],
    root_motion: RootMotion,
}

impl Locomotion {
    /// Analyses `walk` and `run` ([`Gait::analyse`] with default settings) and picks the event
    /// feet: the longest prefix of `feet` whose cyclic footfall order is the same in both
    /// clips (list the feet in order of preference). Root motion [`RootMotion::Contacts`].
    ///
    /// # Errors
    /// Any [`Gait::analyse`] error, and [`LocomotionError::UpMismatch`],
    /// [`LocomotionError::DirectionMismatch`], [`LocomotionError::NotSlower`],
    /// [`LocomotionError::NoCommonEvents`], [`LocomotionError::CoincidentEvents`].
    pub fn new(
        skeleton: &Skeleton,
        walk: &Clip,
        run: &Clip,
        feet: &[usize],
    ) -> Result<Self, LocomotionError> {
        Self::with_settings(skeleton, walk, run, feet, &GaitSettings::default())
    }

    /// [`Locomotion::new`] with explicit analysis settings.
    ///
    /// # Errors
    /// As [`Locomotion::new`].
    pub fn with_settings(
        skeleton: &Skeleton,
        walk: &Clip,
        run: &Clip,
        feet: &[usize],
        settings: &GaitSettings,
    ) -> Result<Self, LocomotionError> {
        let gw = Gait::analyse(skeleton, walk, feet, settings)?;
        let gr = Gait::analyse(skeleton, run, feet, settings)?;
        if gw.up.dot(gr.up) < 0.99 {
            return Err(LocomotionError::UpMismatch {
                walk: gw.clip,
                run: gr.clip,
                walk_up: gw.up,
                run_up: gr.up,
            });
        }
        let angle = gw.forward().angle_between(gr.forward()).to_degrees();
        if angle.is_nan() || angle > 45.0 {
            return Err(LocomotionError::DirectionMismatch {
                walk: gw.clip,
                run: gr.clip,
                angle_deg: angle,
            });
        }
        if gw.speed() >= gr.speed() {
            return Err(LocomotionError::NotSlower {
                walk_speed: gw.speed(),
                run_speed: gr.speed(),
                walk: gw.clip,
                run: gr.clip,
            });
        }
        // The longest prefix of the listed feet whose cyclic footfall order agrees.
        let chosen = (1..=feet.len())
            .rev()
            .find_map(|len| {
                let subset: Vec<usize> = (0..len).collect();
                align_events(&gw, &gr, &subset).map(|e| (subset, e))
            })
            .ok_or_else(|| LocomotionError::NoCommonEvents {
                counts: gw
                    .feet
                    .iter()
                    .zip(&gr.feet)
                    .map(|(a, b)| format!("{}: {}/{}", a.name, a.contacts.len(), b.contacts.len()))
                    .collect::<Vec<_>>()
                    .join(", "),
                walk: gw.clip.clone(),
                run: gr.clip.clone(),
            })?;
        let mut loco = Self {
            skeleton: skeleton.clone(),
            clips: [walk.clone(), run.clone()],
            gaits: [gw, gr],
            feet: feet.to_vec(),
            event_feet: Vec::new(),
            events: [Vec::new(), Vec::new()],
            event_foot: Vec::new(),
            start: [0.0; 2],
            root_motion: RootMotion::default(),
        };
        loco.set_events(chosen.0, chosen.1)?;
        Ok(loco)
    }

    /// The same blend with the footfalls of `event_feet` (indices into the feet given to
    /// [`Locomotion::new`]) as the events.
    ///
    /// # Errors
    /// [`LocomotionError::EventFeetDisagree`] when their footfall order differs between the
    /// clips (or the list is empty or out of range), [`LocomotionError::CoincidentEvents`].
    pub fn with_event_feet(mut self, event_feet: &[usize]) -> Result<Self, LocomotionError> {
        let mut subset = event_feet.to_vec();
        subset.sort_unstable();
        subset.dedup();
        let aligned = if subset.is_empty() || subset.iter().any(|&f| f >= self.feet.len()) {
            None
        } else {
            align_events(&self.gaits[WALK], &self.gaits[RUN], &subset)
        };
        let Some(aligned) = aligned else {
            return Err(LocomotionError::EventFeetDisagree {
                feet: event_feet.to_vec(),
                walk: self.gaits[WALK].clip.clone(),
                run: self.gaits[RUN].clip.clone(),
            });
        };
        self.set_events(subset, aligned)?;
        Ok(self)
    }

    fn set_events(
        &mut self,
        subset: Vec<usize>,
        (walk, run): (Vec<Footfall>, Vec<Footfall>),
    ) -> Result<(), LocomotionError> {
        let mut events = [Vec::new(), Vec::new()];
        for (c, list) in [walk, run].into_iter().enumerate() {
            let t = f64::from(self.gaits[c].duration);
            let mut times: Vec<f64> = Vec::with_capacity(list.len());
            for f in &list {
                let mut x = f64::from(f.time);
                while let Some(&prev) = times.last() {
                    if x >= prev {
                        break;
                    }
                    x += t;
                }
                times.push(x);
            }
            for k in 0..times.len() {
                let next = if k + 1 < times.len() {
                    times[k + 1]
                } else {
                    times[0] + t
                };
                if next <= times[k] {
                    return Err(LocomotionError::CoincidentEvents {
                        clip: self.gaits[c].clip.clone(),
                        a: k,
                        b: (k + 1) % times.len(),
                        time: times[k] as f32,
                    });
                }
            }
            events[c] = times;
            if c == WALK {
                self.event_foot = list.iter().map(|f| f.foot).collect();
            }
        }
        // Unified and Naive start the walk at event 0 and the run at the same cycle fraction
        // shifted by the circular mean of the events' fraction differences (run − walk), so
        // the events sit as near the same fractions as one shared phase allows.
        let frac = |c: usize, k: usize| events[c][k] / f64::from(self.gaits[c].duration);
        let (sin, cos) = (0..events[WALK].len()).fold((0.0, 0.0), |(s, c), k| {
            let a = std::f64::consts::TAU * (frac(RUN, k) - frac(WALK, k));
            (s + a.sin(), c + a.cos())
        });
        let shift = sin.atan2(cos) / std::f64::consts::TAU;
        let run_duration = f64::from(self.gaits[RUN].duration);
        self.start = [
            events[WALK][0],
            ((frac(WALK, 0) + shift) * run_duration).rem_euclid(run_duration),
        ];
        self.event_feet = subset;
        self.events = events;
        Ok(())
    }

    /// The same blend with another target-bone model (default [`RootMotion::Contacts`]).
    #[must_use]
    pub fn with_root_motion(mut self, root_motion: RootMotion) -> Self {
        self.root_motion = root_motion;
        self
    }

    /// The target-bone model in use.
    #[must_use]
    pub fn root_motion(&self) -> RootMotion {
        self.root_motion
    }

    /// `TA_c(t)`: the root displacement of clip `c` at clip time `t` (in `[0, T_c]`).
    #[must_use]
    pub fn root(&self, c: usize, t: f64) -> Vec3 {
        let g = &self.gaits[c];
        match self.root_motion {
            RootMotion::Uniform => g.velocity * t as f32,
            RootMotion::Contacts => g.root_at(t as f32),
        }
    }

    /// Velocity of [`Locomotion::root`] at clip time `t`, per clip second.
    #[must_use]
    pub fn root_velocity(&self, c: usize, t: f64) -> Vec3 {
        let g = &self.gaits[c];
        match self.root_motion {
            RootMotion::Uniform => g.velocity,
            RootMotion::Contacts => g.root_velocity_at(t as f32),
        }
    }

    /// The Fox: clips `Walk` and `Run`, feet [`FOX_FEET`] (hind feet first).
    ///
    /// # Errors
    /// [`LocomotionError::MissingClip`] / [`LocomotionError::MissingNode`] naming what is
    /// missing, then as [`Locomotion::new`].
    pub fn fox(scene: &Scene) -> Result<Self, LocomotionError> {
        Self::from_scene(scene, "Walk", "Run", &FOX_FEET)
    }

    /// Finds the clips and feet of a loaded scene by name and calls [`Locomotion::new`].
    ///
    /// # Errors
    /// [`LocomotionError::MissingClip`] / [`LocomotionError::MissingNode`] naming what is
    /// missing, then as [`Locomotion::new`].
    pub fn from_scene(
        scene: &Scene,
        walk: &str,
        run: &str,
        feet: &[&str],
    ) -> Result<Self, LocomotionError> {
        let source = scene.source.display().to_string();
        let clip = |name: &str| {
            scene
                .animations
                .iter()
                .find(|c| c.name == name)
                .ok_or_else(|| LocomotionError::MissingClip {
                    scene: source.clone(),
                    name: name.to_owned(),
                    available: if scene.animations.is_empty() {
                        "no animations".to_owned()
                    } else {
                        scene
                            .animations
                            .iter()
                            .map(|c| format!("`{}`", c.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                })
        };
        let (walk, run) = (clip(walk)?, clip(run)?);
        let skeleton = Skeleton::from_scene(scene);
        let feet = feet
            .iter()
            .map(|&name| {
                skeleton
                    .find(name)
                    .ok_or_else(|| LocomotionError::MissingNode {
                        scene: source.clone(),
                        name: name.to_owned(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(&skeleton, walk, run, &feet)
    }

    /// The skeleton the clips animate.
    #[must_use]
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// The clips, `[walk, run]`.
    #[must_use]
    pub fn clips(&self) -> &[Clip; 2] {
        &self.clips
    }

    /// The analyses, `[walk, run]`.
    #[must_use]
    pub fn gaits(&self) -> &[Gait; 2] {
        &self.gaits
    }

    /// The foot nodes, as given.
    #[must_use]
    pub fn feet(&self) -> &[usize] {
        &self.feet
    }

    /// The world up axis (the walk's; the run's agrees).
    #[must_use]
    pub fn up(&self) -> Vec3 {
        self.gaits[WALK].up
    }

    /// The event feet, as indices into [`Locomotion::feet`].
    #[must_use]
    pub fn event_feet(&self) -> &[usize] {
        &self.event_feet
    }

    /// Event times of clip `c` ([`WALK`] or [`RUN`]) in corresponding order (event `k` of the
    /// walk and of the run are the same footfall of the same foot), seconds in `[0, T_c)`;
    /// event 0 is the walk's earliest.
    #[must_use]
    pub fn events(&self, c: usize) -> Vec<f32> {
        let t = f64::from(self.gaits[c].duration);
        self.events[c].iter().map(|&e| (e % t) as f32).collect()
    }

    /// The foot (index into [`Locomotion::feet`]) of each event.
    #[must_use]
    pub fn event_foot(&self) -> &[usize] {
        &self.event_foot
    }

    /// Seed step 1: `b = (v − v_w) / (v_r − v_w)`, clamped to `[0, 1]`.
    #[must_use]
    pub fn blend_parameter(&self, speed: f32) -> f32 {
        let (vw, vr) = (self.gaits[WALK].speed(), self.gaits[RUN].speed());
        ((speed - vw) / (vr - vw)).clamp(0.0, 1.0)
    }

    /// The blend at which seed steps 1–3 really move at `speed`: the unified speed
    /// `((1 − b)/T_w + b/T_r)·((1 − b)·d_w + b·d_r)` (cadence times blended stride) is not
    /// linear in `b` as the seed's [`Locomotion::blend_parameter`] assumes (on the Fox it runs
    /// 13 % fast midway), so solve it by bisection; clamped to `[0, 1]`.
    #[must_use]
    pub fn blend_for_speed(&self, speed: f32) -> f32 {
        let (tw, tr) = (self.gaits[WALK].duration, self.gaits[RUN].duration);
        let (dw, dr) = (self.gaits[WALK].stride(), self.gaits[RUN].stride());
        let unified = |b: f32| ((1.0 - b) / tw + b / tr) * ((1.0 - b) * dw + b * dr);
        let (mut lo, mut hi) = (0.0f32, 1.0f32);
        if speed.is_nan() || speed <= unified(lo) {
            return 0.0;
        }
        if speed >= unified(hi) {
            return 1.0;
        }
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if unified(mid) < speed {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// Seed step 2: clip seconds per second `[r_w, r_r]` for blend `b`, `r_i = T_i·φ'` with
    /// `φ' = (1 − b)/T_w + b/T_r`; so `T_w / r_w = T_r / r_r` (both loop together),
    /// `r_w(0) = 1` and `r_r(1) = 1`.
    #[must_use]
    pub fn unified_rates(&self, b: f32) -> [f32; 2] {
        let (tw, tr) = (self.gaits[WALK].duration, self.gaits[RUN].duration);
        let phase = (1.0 - b) / tw + b / tr;
        [tw * phase, tr * phase]
    }

    /// Seed step 4: clip seconds per second `[r_w, r_r]` in event segment `k` (from event `k`
    /// to event `k + 1`, cyclic) for blend `b`: `r_i = L_i,k·((1 − b)/L_w,k + b/L_r,k)`.
    ///
    /// # Panics
    /// If `k` is not below the number of events.
    #[must_use]
    pub fn segment_rates(&self, k: usize, b: f32) -> [f32; 2] {
        let (lw, lr) = (self.segment(WALK, k), self.segment(RUN, k));
        let b = f64::from(b);
        let phase = (1.0 - b) / lw + b / lr;
        [(lw * phase) as f32, (lr * phase) as f32]
    }

    /// Length of event segment `k` of clip `c`, seconds.
    fn segment(&self, c: usize, k: usize) -> f64 {
        let e = &self.events[c];
        let next = if k + 1 < e.len() {
            e[k + 1]
        } else {
            e[0] + f64::from(self.gaits[c].duration)
        };
        next - e[k]
    }

    /// The contact rule of [`foot_slide`] for these clips.
    #[must_use]
    pub fn contact_rule(&self) -> ContactRule {
        let t = |c: usize| self.gaits[c].feet.iter().map(|f| f.threshold).collect();
        ContactRule {
            walk: t(WALK),
            run: t(RUN),
        }
    }

    /// A contact rule with another height fraction: foot `f` is down when it is within
    /// `fraction` of its height range above its lowest point in each clip (the analysis uses
    /// [`GaitSettings::contact_fraction`]). A metric independent of the rule
    /// [`Method::Locked`] pins feet by.
    #[must_use]
    pub fn contact_rule_at(&self, fraction: f32) -> ContactRule {
        let t = |c: usize| {
            self.gaits[c]
                .feet
                .iter()
                .map(|f| f.lowest + fraction * (f.highest - f.lowest))
                .collect()
        };
        ContactRule {
            walk: t(WALK),
            run: t(RUN),
        }
    }

    /// [`foot_slide`] of every foot with this blend's up axis and `rule`.
    #[must_use]
    pub fn foot_slide_with(
        &self,
        frames: &[LocoFrame],
        dt: f32,
        rule: &ContactRule,
    ) -> Vec<FootSlide> {
        foot_slide(&self.skeleton, frames, &self.feet, dt, self.up(), rule)
    }

    /// [`foot_slide`] of every foot with this blend's up axis and contact rule.
    #[must_use]
    pub fn foot_slide(&self, frames: &[LocoFrame], dt: f32) -> Vec<FootSlide> {
        foot_slide(
            &self.skeleton,
            frames,
            &self.feet,
            dt,
            self.up(),
            &self.contact_rule(),
        )
    }

    /// A player for `method`, at its start phases (module docs, "Phase alignment") with the
    /// character at the origin, showing the walk.
    #[must_use]
    pub fn player(&self, method: Method) -> Player<'_> {
        Player::new(self, method)
    }

    /// Plays `method` over a speed schedule: frame `n` shows time `n·dt`, after advancing with
    /// the blend for `speeds[n]` (frame 0 is the start state).
    ///
    /// # Panics
    /// If `dt` is not positive and finite or a speed is not finite.
    #[must_use]
    pub fn simulate(&self, method: Method, speeds: &[f32], dt: f32) -> Vec<LocoFrame> {
        assert!(
            dt.is_finite() && dt > 0.0,
            "time step {dt} must be positive and finite"
        );
        let mut player = self.player(method);
        speeds
            .iter()
            .enumerate()
            .map(|(n, &v)| {
                player.advance(v, if n == 0 { 0.0 } else { dt });
                player.frame().clone()
            })
            .collect()
    }
}

/// Finds the footfalls of `subset` (indices into the gaits' feet) in both clips and matches
/// them: `Some((walk, run))` in corresponding order, walk starting at its earliest, when both
/// clips have the same cyclic sequence of feet. Among several matching rotations the one whose
/// events sit at the most similar cycle fractions wins.
fn align_events(
    walk: &Gait,
    run: &Gait,
    subset: &[usize],
) -> Option<(Vec<Footfall>, Vec<Footfall>)> {
    let pick = |g: &Gait| -> Vec<Footfall> {
        g.footfalls()
            .into_iter()
            .filter(|f| subset.contains(&f.foot))
            .collect()
    };
    let (w, r) = (pick(walk), pick(run));
    if w.is_empty() || w.len() != r.len() {
        return None;
    }
    let n = w.len();
    let frac = |f: &Footfall, g: &Gait| f.time / g.duration;
    let mut best: Option<(f32, usize)> = None;
    for rot in 0..n {
        if (0..n).all(|k| w[k].foot == r[(k + rot) % n].foot) {
            let cost: f32 = (0..n)
                .map(|k| {
                    let d = (frac(&w[k], walk) - frac(&r[(k + rot) % n], run)).rem_euclid(1.0);
                    d.min(1.0 - d)
                })
                .sum();
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, rot));
            }
        }
    }
    let (_, rot) = best?;
    let r = (0..n).map(|k| r[(k + rot) % n]).collect();
    Some((w, r))
}

/// One foot's lock ([`Method::Locked`]): where it is pinned (world space) while down, and
/// after lifting the offset from the animation still to fade and the seconds left.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct FootLock {
    pin: Option<Vec3>,
    release: Option<(Vec3, f32)>,
}

/// The leg that ends at `foot`, as `[hip, knee, ankle, foot]` for [`place_foot`]: the foot and
/// the unbranched chain of ancestors above it (each with the one child), up to three of them.
/// Three: thigh, shin, ankle (the Fox's hind legs). Two: `ankle = foot` (upper arm, forearm,
/// hand: its fore legs). Fewer — a foot hanging straight off the pelvis, as in a skeleton
/// whose feet are animated by translation — `None`: nothing to bend.
fn leg_of(skeleton: &Skeleton, foot: usize) -> Option<[usize; 4]> {
    let parent = |n: usize| skeleton.parents.get(n).copied().flatten();
    let children = |n: usize| skeleton.parents.iter().filter(|p| **p == Some(n)).count();
    let mut path = vec![foot];
    let mut n = foot;
    while path.len() < 4 {
        match parent(n) {
            Some(p) if children(p) == 1 => {
                path.push(p);
                n = p;
            }
            _ => break,
        }
    }
    match path.len() {
        4 => Some([path[3], path[2], path[1], path[0]]),
        3 => Some([path[2], path[1], path[0], path[0]]),
        _ => None,
    }
}

/// Rotation part of a node's world matrix (the Fox's skeleton has no scale; a scaled one
/// keeps its scale, as only rotations are rewritten).
fn world_rotation(world: &[Mat4], node: usize) -> Quat {
    world
        .get(node)
        .map_or(Quat::IDENTITY, |m| m.to_scale_rotation_translation().1)
}

/// Two-bone IK: turns the hip and knee of `leg = [hip, knee, ankle, foot]` (world matrices of
/// the current pose in `world`) so the foot lands on `target` (model space) with the ankle's
/// world orientation unchanged, writing the new local rotations into `local`. The knee stays in
/// the plane it bends in now; beyond the leg's reach the leg straightens towards the target.
fn place_foot(
    skeleton: &Skeleton,
    world: &[Mat4],
    leg: [usize; 4],
    target: Vec3,
    local: &mut [Transform],
) {
    let [hip, knee, ankle, foot] = leg;
    let pos = |n: usize| world[n].w_axis.truncate();
    let (h, k, a) = (pos(hip), pos(knee), pos(ankle));
    // The ankle goes where the foot's offset from it puts the foot on the target.
    let goal = target - (pos(foot) - a);
    let (l1, l2) = ((k - h).length(), (a - k).length());
    let to_goal = goal - h;
    let reach = to_goal.length();
    if l1 <= 1e-6 || l2 <= 1e-6 || reach <= 1e-6 {
        return;
    }
    let dir = to_goal / reach;
    let d = reach.clamp((l1 - l2).abs() + 1e-4 * (l1 + l2), (l1 + l2) * (1.0 - 1e-4));
    // Law of cosines: the angle at the hip between the goal and the thigh.
    let cos_hip = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
    let sin_hip = (1.0 - cos_hip * cos_hip).sqrt();
    // The bend side: the current knee's offset across the hip→goal line.
    let across = (k - h) - dir * (k - h).dot(dir);
    let side = if across.length_squared() > 1e-12 {
        across.normalize()
    } else {
        dir.any_orthonormal_vector()
    };
    let new_knee = h + (dir * cos_hip + side * sin_hip) * l1;
    let new_ankle = h + dir * d;
    let turn_hip = crate::quat::rotation_arc((k - h) / l1, (new_knee - h) / l1);
    let shin = turn_hip * (a - k);
    let turn_knee = crate::quat::rotation_arc(shin / l2, (new_ankle - new_knee) / l2);
    let r_hip = (turn_hip * world_rotation(world, hip)).normalize();
    let r_knee = (turn_knee * turn_hip * world_rotation(world, knee)).normalize();
    let r_ankle = world_rotation(world, ankle);
    let parent = skeleton
        .parents
        .get(hip)
        .copied()
        .flatten()
        .map_or(Quat::IDENTITY, |p| world_rotation(world, p));
    local[hip].rotation = (parent.inverse() * r_hip).normalize();
    local[knee].rotation = (r_hip.inverse() * r_knee).normalize();
    local[ankle].rotation = (r_knee.inverse() * r_ankle).normalize();
}

/// Plays one [`Method`] frame by frame, reusing its buffers (no allocation per
/// [`Player::advance`]; read the result with [`Player::frame`]).
#[derive(Debug, Clone)]
pub struct Player<'a> {
    loco: &'a Locomotion,
    method: Method,
    /// Naive: seconds since the start.
    clock: f64,
    /// Unified: clip times in `[0, T_i)`.
    times: [f64; 2],
    /// Events: segments completed since the start, and the phase in the current one.
    segment: u64,
    phase: f64,
    /// Animation origins (Unified, Events).
    origins: [Rigid; 2],
    /// Naive: the character's position.
    position: Vec3,
    /// Clip times of the current frame.
    last: [f64; 2],
    /// Locked: the contact rule (made once), each foot's leg (hip, knee, ankle, foot; `None`
    /// without three ancestors), each foot's lock, and scratch world matrices.
    rule: ContactRule,
    release_rule: ContactRule,
    legs: Vec<Option<[usize; 4]>>,
    locks: Vec<FootLock>,
    world: Vec<Mat4>,
    poses: [Vec<Transform>; 2],
    frame: LocoFrame,
}

impl<'a> Player<'a> {
    fn new(loco: &'a Locomotion, method: Method) -> Self {
        let rest = &loco.skeleton.rest;
        let start = if method == Method::Events {
            [loco.events[WALK][0], loco.events[RUN][0]]
        } else {
            loco.start
        };
        let ta = |c: usize| Rigid::from_translation(loco.root(c, start[c]));
        let mut p = Self {
            loco,
            method,
            clock: 0.0,
            times: start,
            segment: 0,
            phase: 0.0,
            // TW_i = AO_i · TA_i = identity: the character starts at the origin.
            origins: [ta(WALK).inverse(), ta(RUN).inverse()],
            position: Vec3::ZERO,
            last: start,
            rule: loco.contact_rule(),
            release_rule: loco.contact_rule_at(FOOT_RELEASE_FRACTION),
            legs: loco
                .feet
                .iter()
                .map(|&foot| leg_of(&loco.skeleton, foot))
                .collect(),
            locks: vec![FootLock::default(); loco.feet.len()],
            world: Vec::new(),
            poses: [rest.clone(), rest.clone()],
            frame: LocoFrame {
                local: rest.clone(),
                placement: Mat4::IDENTITY,
                blend: 0.0,
                speed: 0.0,
                clip_times: [0.0; 2],
            },
        };
        p.advance(loco.gaits[WALK].speed(), 0.0);
        p
    }

    /// The current frame.
    #[must_use]
    pub fn frame(&self) -> &LocoFrame {
        &self.frame
    }

    /// Advances by `dt` seconds at the blend for desired `speed`, then samples and blends the
    /// pose and places the character.
    ///
    /// # Panics
    /// If `dt` is negative or not finite, or `speed` is not finite.
    pub fn advance(&mut self, speed: f32, dt: f32) {
        assert!(
            dt.is_finite() && dt >= 0.0,
            "time step {dt} must be finite and ≥ 0"
        );
        assert!(speed.is_finite(), "speed {speed} must be finite");
        let loco = self.loco;
        let b = if self.method == Method::Locked {
            loco.blend_for_speed(speed)
        } else {
            loco.blend_parameter(speed)
        };
        let dt64 = f64::from(dt);
        let durations = [
            f64::from(loco.gaits[WALK].duration),
            f64::from(loco.gaits[RUN].duration),
        ];
        let before = self.last;
        let (times, wraps, rates) = match self.method {
            Method::Naive => {
                let start = loco.start;
                let (old, new) = (self.clock, self.clock + dt64);
                self.clock = new;
                let loops = |c: usize, clock: f64| ((start[c] + clock) / durations[c]).floor();
                let t = |c: usize| (start[c] + new).rem_euclid(durations[c]);
                let wraps = [0, 1].map(|c| (loops(c, new) - loops(c, old)) as u32);
                ([t(WALK), t(RUN)], wraps, [1.0, 1.0])
            }
            Method::Unified | Method::Locked => {
                let rates = loco.unified_rates(b);
                let mut wraps = [0u32; 2];
                for c in [WALK, RUN] {
                    self.times[c] += f64::from(rates[c]) * dt64;
                    while self.times[c] >= durations[c] {
                        self.times[c] -= durations[c];
                        wraps[c] += 1;
                    }
                }
                (self.times, wraps, rates)
            }
            Method::Events => {
                let old = [self.event_time(WALK), self.event_time(RUN)];
                let k_count = loco.events[WALK].len() as u64;
                let mut left = dt64;
                loop {
                    let k = (self.segment % k_count) as usize;
                    let (lw, lr) = (loco.segment(WALK, k), loco.segment(RUN, k));
                    let rate = (1.0 - f64::from(b)) / lw + f64::from(b) / lr;
                    let to_end = (1.0 - self.phase) / rate;
                    if left < to_end {
                        self.phase += rate * left;
                        break;
                    }
                    left -= to_end;
                    self.segment += 1;
                    self.phase = 0.0;
                }
                let new = [self.event_time(WALK), self.event_time(RUN)];
                let k = (self.segment % k_count) as usize;
                let wraps = [0, 1].map(|c| (new[c].1 - old[c].1) as u32);
                ([new[0].0, new[1].0], wraps, loco.segment_rates(k, b))
            }
        };
        let ta = [0, 1].map(|c| loco.root(c, times[c]));
        let placement = if self.method == Method::Naive {
            // The blended root displacement, each clip's over its own step.
            for c in [WALK, RUN] {
                let moved =
                    ta[c] - loco.root(c, before[c]) + loco.root(c, durations[c]) * wraps[c] as f32;
                self.position += moved * if c == WALK { 1.0 - b } else { b };
            }
            Rigid::from_translation(self.position)
        } else {
            // Seed step 3 with the target TA_i(t) = translation(root_i(t)).
            let ta = ta.map(Rigid::from_translation);
            for c in [WALK, RUN] {
                let stride = Rigid::from_translation(loco.root(c, durations[c]));
                for _ in 0..wraps[c] {
                    self.origins[c] = self.origins[c].mul(stride);
                }
            }
            let tw = [0, 1].map(|c| self.origins[c].mul(ta[c]));
            let target = Rigid::blend(tw[WALK], tw[RUN], b);
            for c in [WALK, RUN] {
                // Δ_i = TW · TW_i⁻¹, AO_i ← Δ_i · AO_i = TW · TA_i⁻¹.
                self.origins[c] = target.mul(ta[c].inverse());
            }
            let origin = Rigid::blend(self.origins[WALK], self.origins[RUN], b);
            origin.mul(Rigid::blend(ta[WALK], ta[RUN], b))
        };

        for c in [WALK, RUN] {
            loco.clips[c].sample(times[c] as f32, &mut self.poses[c]);
        }
        blend_poses(
            &[(&self.poses[WALK], 1.0 - b), (&self.poses[RUN], b)],
            &loco.skeleton.rest,
            &mut self.frame.local,
        );
        if self.method == Method::Locked {
            self.lock_feet(placement, b, dt);
        }
        let v = [0, 1].map(|c| loco.root_velocity(c, times[c]) * rates[c]);
        self.frame.placement = placement.to_mat4();
        self.frame.blend = b;
        self.frame.speed = (v[WALK] * (1.0 - b) + v[RUN] * b).length();
        self.frame.clip_times = [times[WALK] as f32, times[RUN] as f32];
        self.last = times;
    }

    /// Locked: pins the feet that are down (by the contact rule on the blended pose) where
    /// they touched down, and fades released pins back into the animation, by two-bone IK of
    /// each leg in the blended local pose. `placement` is translation-only (every method's is).
    fn lock_feet(&mut self, placement: Rigid, b: f32, dt: f32) {
        let loco = self.loco;
        let up = loco.gaits[WALK].up;
        let origin = placement.translation;
        loco.skeleton
            .world_matrices_into(&self.frame.local, &mut self.world);
        for f in 0..loco.feet.len() {
            let Some(leg) = self.legs[f] else { continue };
            let foot = self.world[leg[3]].w_axis.truncate();
            // Hysteresis: a foot locks at the contact rule's height and stays locked until it
            // rises above the release rule's, so the low, fast start of a swing (a paw skimming
            // forwards) is not shown dragged along the ground by a fading pin.
            let height = foot.dot(up);
            let lock = &mut self.locks[f];
            let down = height <= self.rule.threshold(f, b)
                || (lock.pin.is_some() && height <= self.release_rule.threshold(f, b));
            // Where the foot is shown now: the animation plus what is left of a fading pin.
            let fading = lock.release.map_or(Vec3::ZERO, |(offset, left)| {
                offset * (left / FOOT_RELEASE_SECONDS)
            });
            // The foot's target in model space (world minus the placement).
            let target = if down {
                // A foot that lands again while its last pin still fades is pinned where it is
                // shown, not where the animation has it: no jump.
                let pin = *lock.pin.get_or_insert(foot + fading + origin);
                lock.release = None;
                pin - origin
            } else {
                if let Some(pin) = lock.pin.take() {
                    lock.release = Some((pin - origin - foot, FOOT_RELEASE_SECONDS));
                }
                let Some((offset, left)) = lock.release else {
                    continue;
                };
                let left = left - dt;
                lock.release = (left > 0.0).then_some((offset, left));
                foot + offset * (left.max(0.0) / FOOT_RELEASE_SECONDS)
            };
            place_foot(
                &loco.skeleton,
                &self.world,
                leg,
                target,
                &mut self.frame.local,
            );
            // The leg's world matrices changed; the other legs' did not (no leg is inside
            // another), but recompute so every foot sees the pose as it now is.
            loco.skeleton
                .world_matrices_into(&self.frame.local, &mut self.world);
        }
    }

    /// Events: clip `c`'s time in `[0, T_c)` and the number of loops completed.
    fn event_time(&self, c: usize) -> (f64, u64) {
        let loco = self.loco;
        let k_count = loco.events[c].len() as u64;
        let k = (self.segment % k_count) as usize;
        let t_len = f64::from(loco.gaits[c].duration);
        let u = loco.events[c][k] + self.phase * loco.segment(c, k);
        let extra = (u / t_len).floor();
        (u - extra * t_len, self.segment / k_count + extra as u64)
    }
}
