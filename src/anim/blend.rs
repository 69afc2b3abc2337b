//! The walk/run blend: [`Locomotion`] (its docs describe the method).

use glam::Vec3;

use super::{Clip, ContactRule, Footfall, Gait, GaitSettings, LocomotionError, Player, Skeleton};

/// The animation-space target bone `TA_i(t)` of the in-place clips (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) enum RootMotion {
    /// `TA_i(t) = t·V_i`: the root moves uniformly at the clip's mean ground velocity
    /// (`Gait::velocity`).
    Uniform,
    /// `TA_i(t) = root_i(t)` (`Gait::root`): the root moves as the feet that are down say,
    /// so it slows and surges within the cycle as the clip does. Same stride as `Uniform`.
    #[default]
    Contacts,
}

crate::names::named!(RootMotion, "root motion", { Uniform => "uniform", Contacts => "contacts" });

/// How the two clips are combined (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlendMethod {
    /// Each clip plays at its own rate from one clock; poses blended with weight `b`; the
    /// character moves by the blend of the clips' root displacements (`(1 − b)·V_w + b·V_r`
    /// per second with `RootMotion::Uniform`). What you get without the seed: the cycles
    /// drift in and out of phase.
    Naive,
    /// The article's steps 1–3: one shared phase (both clips loop together) and target/origin blending.
    /// Assumes footfalls at the same fractions of both cycles; starts the clips at the aligned
    /// phases of the module docs ("Phase alignment").
    Unified,
    /// Step 4 on top: the shared phase restarts at every footfall event, with rates per
    /// segment, so both clips reach every event together.
    Events,
    /// Ours: the article's steps 1–3 ([`BlendMethod::Unified`]) with the blend parameter solved so the
    /// character really moves at the speed asked for (the article's `b` is linear in speed, the
    /// unified speed is not), then **foot locking**: a foot that touches down (the
    /// `ContactRule` on the blended pose) is pinned where it landed, and its leg is bent by
    /// two-bone IK (hip and knee; the ankle keeps its orientation) to keep it there until it
    /// lifts; then the pin fades into the animation over `FOOT_RELEASE_SECONDS`. The seed
    /// keeps the two clips in phase; the pins remove what a blend of two different gaits
    /// leaves sliding.
    Locked,
}

crate::names::named!(BlendMethod, "blend method", {
    Naive => "naive",
    Unified => "unified",
    Events => "events",
    Locked => "locked",
});

/// Index of the walk in per-clip arrays.
pub(crate) const WALK: usize = 0;
/// Index of the run in per-clip arrays.
pub(crate) const RUN: usize = 1;

/// A walk and a run clip, analysed and ready to blend.
///
/// Walk/run locomotion blending: after Eric Brown, "Blending a Walk/Run cycle" (Physics For
/// Games, 2010), on in-place clips.
///
/// The article's equations were images; re-derived here, with `T = N / 30` the cycle time of a
/// clip of `N` frames at 30 fps and `v_w < v_r` the clips' ground speeds:
///
/// 1. **Blend parameter.** `b = (v − v_w) / (v_r − v_w)`, clamped to `[0, 1]`
///    (`Locomotion::blend_parameter`).
/// 2. **Unified cycle time.** Both clips advance one shared phase at
///    `φ' = (1 − b) / T_w + b / T_r` cycles per second, so they loop together. In the article's
///    frame rates: `R_w = (1 − b)·30 + b·30·N_w/N_r`, `R_r = (1 − b)·30·N_r/N_w + b·30`; in clip
///    seconds per second `r_i = T_i·φ'` (`Locomotion::unified_rates`).
/// 3. **Unified distance.** A target bone `T` has an animation-space value `TA_i` per clip and a
///    world value `TW_i = AO_i · TA_i` through the clip's animation origin `AO_i`. The world
///    target is the blend `TW = blend(TW_w, TW_r; b)`; each origin is then moved by the `Δ_i`
///    with `Δ_i · TW_i = TW` (`AO_i ← Δ_i · AO_i`, so every clip agrees with `TW`), and the
///    character is placed by the blended origin `AO = blend(AO_w, AO_r; b)` applied to the
///    blended animation (here: `AO · blend(TA_w, TA_r; b)`, see below).
/// 4. **Events.** Footfalls split each cycle into segments that occur in the same order in both
///    clips; step 2 is applied per segment: in segment `k` of lengths `L_w,k`, `L_r,k` a shared
///    segment phase advances at `(1 − b)/L_w,k + b/L_r,k`, so both clips reach every event
///    together, whatever fraction of their cycles the events sit at
///    (`Locomotion::segment_rates`).
///
/// **In-place clips.** The article assumes the clips carry their root motion. The Fox's do not
/// (its hip returns to where it started), so `Gait::analyse` reconstructs it from the feet:
/// while a foot is down it moves backwards in animation space at the ground speed. A foot is
/// down over a sample step when it is within `GaitSettings::contact_fraction` of its height
/// range above its lowest point at both ends and does not move forwards; the root track
/// `Gait::root` moves by minus the mean displacement of the feet that are down (interpolated
/// across flight phases), and its end is the stride: speed `v = stride / T` (the article's
/// `d·30/N`). The target bone is that root, `TA_i(t) = translation(root_i(t))` for clip time
/// `t` in `[0, T_i)` (`RootMotion::Contacts`, the default), or the uniform
/// `translation(t·V_i)` (`RootMotion::Uniform`). When a clip loops its origin steps forward
/// by the stride, `AO_i ← AO_i · TA_i(T_i)`, as a root-motion clip's would. With a
/// translation-only target `AO · blend(TA)` equals `TW`: the placement advances at
/// `(1 − b)·r_w·root_w' + b·r_r·root_r'`. The poses are the clips' in-place local transforms,
/// blended with `blend_poses` against the rest pose.
///
/// **Event feet.** The footfall order must be the same in both clips. `Locomotion::new` uses
/// the longest prefix of the listed feet whose cyclic footfall order agrees; list them in order
/// of preference. Two feet always qualify when each lands once per cycle (two points on a circle
/// have one cyclic order). A quadruped's four-foot order can change between gaits: the Fox
/// walks in diagonal couplets (left fore with right hind at 7 % and 12 % of the cycle, right
/// fore with left hind at 57 % and 74 %) and runs in a rotary gallop (right hind 2 %, right
/// fore 37 %, left fore 47 %, left hind 93 %). So the examples' Fox (`examples/common/fox.rs`)
/// lists the hind feet first and gets them as the events: a left/right pair always keeps its
/// order, and the hind legs propel both gaits. Two three-foot sets do keep their order (right hind, right fore and
/// either left foot), but their segments differ so much between the clips (e.g. right fore →
/// left hind: 17 % of the walk, 56 % of the run) that the per-segment rates swing several-fold
/// and the feet slide more (with `Locomotion::with_event_feet`: events 77–83 units/s mean,
/// 1000–2100 max, against 71 and 680 for the hind pair).
///
/// **Phase alignment.** [`BlendMethod::Unified`] and [`BlendMethod::Naive`] start the walk at event 0 and
/// the run at the same cycle fraction shifted by the circular mean of the events' fraction
/// differences, the nearest a single shared phase comes to the article's "footfalls at the same
/// fraction"; [`BlendMethod::Events`] starts both at event 0.
///
/// **Measured** (`foot_slide`, 8 s walk → run → walk ramp at 60 fps, `tests/unit/anim/locomotion.rs`
/// and `lab/src/bin/walkrun.rs`): on a procedural biped whose walk and run share footfall
/// fractions, Unified and Events slide 20 % less than Naive (0.61 vs 0.76 units/s); with a
/// time-warped copy of a walk as the run (same poses, footfalls at other fractions: the case
/// step 4 is for), Events keeps the two clips' feet within a sample step of each other where
/// Unified leaves them 0.2–0.4 strides apart. On the Fox's own Walk and Run the article's methods do not
/// beat the naive blend (contact root: naive 57, unified 69, events 71 units/s mean over the
/// feet; the clips alone slide 34 and 29): the article's premise that the clips' footfalls
/// correspond fails (different four-foot orders and duty factors: walk feet down 35–43 % of
/// the cycle, run feet 17–36 %), so any common timing keeps some feet out of step, and
/// per-segment rates also scale each clip's own slide. The naive figure itself moves by about
/// 5 units/s with the run's starting phase.
///
/// **Ours: locked feet** ([`BlendMethod::Locked`], what `lab/src/bin/animate.rs` and `qtangent
/// view` play).
/// Keep the article's steps 1–3 (the clips stay in phase, the origins keep the character from
/// popping), but (1) solve the blend for the speed asked for (`Locomotion::blend_for_speed`:
/// the unified speed, cadence × blended stride, is not linear in `b`), and (2) lock the feet: a
/// foot that touches down is pinned where it landed and its leg bent by two-bone IK to keep it
/// there until it rises above `FOOT_RELEASE_FRACTION` of its height range, then the pin
/// fades into the animation over `FOOT_RELEASE_SECONDS`. On the Fox's Walk/Run ramp it slides
/// 2.1 units/s mean over the four feet (598 max, single frames at touch-down) against 57.2 /
/// 469 for the naive blend, at the asked speed (tested within 1.4 units/s); under contact rules
/// it does not lock by (10 % and 30 % of the height range) 0.3 and 28 against 45.5 and 80.
/// (An earlier version placed the character by its blended pose's planted feet instead of
/// bending the legs: 44.6 units/s, but only because the character then moved at 58 units/s
/// where 148 was asked — the blended pose of two different gaits barely sweeps its feet.)
///
/// Compare the methods with `foot_slide`: the horizontal world speed of each foot while it is
/// down, under one contact rule for every method (`ContactRule`).
#[derive(Debug, Clone)]
pub struct Locomotion {
    pub(crate) skeleton: Skeleton,
    pub(crate) clips: [Clip; 2],
    pub(crate) gaits: [Gait; 2],
    pub(crate) feet: Vec<usize>,
    /// Indices into `feet` whose footfalls are the events.
    pub(crate) event_feet: Vec<usize>,
    /// Event times per clip, in corresponding order, unwrapped: `events[i][0]` in
    /// `[0, T_i)`, increasing, all below `events[i][0] + T_i`.
    pub(crate) events: [Vec<f64>; 2],
    /// Event foot (index into `feet`) of each event.
    pub(crate) event_foot: Vec<usize>,
    /// Clip times where [`BlendMethod::Naive`] and [`BlendMethod::Unified`] start.
    pub(crate) start: [f64; 2],
    pub(crate) root_motion: RootMotion,
}

impl Locomotion {
    /// Analyses `walk` and `run` (`Gait::analyse` with default settings) and picks the event
    /// feet: the longest prefix of `feet` whose cyclic footfall order is the same in both
    /// clips (list the feet in order of preference). Root motion [`RootMotion::Contacts`].
    ///
    /// # Errors
    /// Any `Gait::analyse` error, and [`LocomotionError::UpMismatch`],
    /// [`LocomotionError::DirectionMismatch`], [`LocomotionError::NotSlower`],
    /// [`LocomotionError::NoCommonEvents`], [`LocomotionError::CoincidentEvents`].
    pub(crate) fn new(
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
    pub(crate) fn with_settings(
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

    pub(crate) fn set_events(
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

    /// The target-bone model in use.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn root_motion(&self) -> RootMotion {
        self.root_motion
    }

    /// Both clips' durations in seconds, by per-clip array index.
    pub(super) fn durations(&self) -> [f64; 2] {
        self.gaits.each_ref().map(|g| f64::from(g.duration))
    }

    /// The root displacement of clip `c` (per-clip array index) at clip time `t`.
    pub(crate) fn root_of(&self, c: usize, t: f64) -> Vec3 {
        let g = &self.gaits[c];
        match self.root_motion {
            RootMotion::Uniform => g.velocity * t as f32,
            RootMotion::Contacts => g.root_at(t as f32),
        }
    }

    /// The velocity of [`Locomotion::root_of`] at clip time `t`, per clip second.
    pub(crate) fn root_velocity_of(&self, c: usize, t: f64) -> Vec3 {
        let g = &self.gaits[c];
        match self.root_motion {
            RootMotion::Uniform => g.velocity,
            RootMotion::Contacts => g.root_velocity_at(t as f32),
        }
    }

    /// The skeleton the clips animate.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn skeleton(&self) -> &Skeleton {
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
    #[cfg(test)]
    pub(crate) fn feet(&self) -> &[usize] {
        &self.feet
    }

    /// The world up axis (the walk's; the run's agrees).
    #[must_use]
    pub fn up(&self) -> Vec3 {
        self.gaits[WALK].up
    }

    /// The article's step 1: `b = (v − v_w) / (v_r − v_w)`, clamped to `[0, 1]`.
    #[must_use]
    pub(crate) fn blend_parameter(&self, speed: f32) -> f32 {
        let (vw, vr) = (self.gaits[WALK].speed(), self.gaits[RUN].speed());
        ((speed - vw) / (vr - vw)).clamp(0.0, 1.0)
    }

    /// The blend at which the article's steps 1–3 really move at `speed`: the unified speed
    /// `((1 − b)/T_w + b/T_r)·((1 − b)·d_w + b·d_r)` (cadence times blended stride) is not
    /// linear in `b` as the article's [`Locomotion::blend_parameter`] assumes (on the Fox it runs
    /// 13 % fast midway), so solve it by bisection; clamped to `[0, 1]`.
    #[must_use]
    pub(crate) fn blend_for_speed(&self, speed: f32) -> f32 {
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

    /// The article's step 2: clip seconds per second `[r_w, r_r]` for blend `b`, `r_i = T_i·φ'` with
    /// `φ' = (1 − b)/T_w + b/T_r`; so `T_w / r_w = T_r / r_r` (both loop together),
    /// `r_w(0) = 1` and `r_r(1) = 1`.
    #[must_use]
    pub(crate) fn unified_rates(&self, b: f32) -> [f32; 2] {
        let (tw, tr) = (self.gaits[WALK].duration, self.gaits[RUN].duration);
        let phase = (1.0 - b) / tw + b / tr;
        [tw * phase, tr * phase]
    }

    /// The article's step 4: clip seconds per second `[r_w, r_r]` in event segment `k` (from event `k`
    /// to event `k + 1`, cyclic) for blend `b`: `r_i = L_i,k·((1 − b)/L_w,k + b/L_r,k)`.
    ///
    /// # Panics
    /// If `k` is not below the number of events.
    #[must_use]
    pub(crate) fn segment_rates(&self, k: usize, b: f32) -> [f32; 2] {
        let (lw, lr) = (self.segment(WALK, k), self.segment(RUN, k));
        let b = f64::from(b);
        let phase = (1.0 - b) / lw + b / lr;
        [(lw * phase) as f32, (lr * phase) as f32]
    }

    /// Length of event segment `k` of clip `c`, seconds.
    pub(super) fn segment(&self, c: usize, k: usize) -> f64 {
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
    pub(crate) fn contact_rule(&self) -> ContactRule {
        let t = |c: usize| self.gaits[c].feet.iter().map(|f| f.threshold).collect();
        ContactRule {
            walk: t(WALK),
            run: t(RUN),
        }
    }

    /// A contact rule with another height fraction: foot `f` is down when it is within
    /// `fraction` of its height range above its lowest point in each clip (the analysis uses
    /// [`GaitSettings::contact_fraction`]). A metric independent of the rule
    /// [`BlendMethod::Locked`] pins feet by.
    #[must_use]
    pub(crate) fn contact_rule_at(&self, fraction: f32) -> ContactRule {
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

    /// A player for `method` that borrows this blend, at its start phases (module docs, "Phase
    /// alignment") with the character at the origin, showing the walk.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn player(&self, method: BlendMethod) -> Player<&Self> {
        Player::new(self, method)
    }

    /// A player for `method` that owns this blend (`Locomotion::player` otherwise).
    #[must_use]
    pub fn into_player(self, method: BlendMethod) -> Player {
        Player::new(self, method)
    }
}

/// Finds the footfalls of `subset` (indices into the gaits' feet) in both clips and matches
/// them: `Some((walk, run))` in corresponding order, walk starting at its earliest, when both
/// clips have the same cyclic sequence of feet. Among several matching rotations the one whose
/// events sit at the most similar cycle fractions wins.
pub(crate) fn align_events(
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
