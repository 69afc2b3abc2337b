//! Playing a walk/run blend frame by frame ([`Player`]).

use std::borrow::Borrow;

use glam::{Mat4, Quat, Vec3};

use super::blend::{RUN, WALK};
use super::ik::{leg_of, place_foot};
use super::{blend_poses, BlendMethod, ContactRule, Locomotion, Transform};

/// How long a released foot takes to go from its pin back to the animation (seconds).
pub(crate) const FOOT_RELEASE_SECONDS: f32 = 0.12;

/// A locked foot is released once it rises above this fraction of its height range in the
/// clips (it locks at [`GaitSettings::contact_fraction`](super::GaitSettings::contact_fraction), 0.2).
pub(crate) const FOOT_RELEASE_FRACTION: f32 = 0.35;

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
    /// [`BlendMethod::Naive`]) and `TA_i'` the root velocity at the frame's clip time
    /// (`Locomotion::root_velocity`; `V_i` with `RootMotion::Uniform`).
    pub speed: f32,
    /// Clip times sampled for this frame, seconds: `[walk, run]`.
    pub(crate) clip_times: [f32; 2],
}

/// A rigid transform (rotation then translation), the "target bone" and "animation
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

/// One foot's lock ([`BlendMethod::Locked`]): where it is pinned (world space) while down, and
/// after lifting the offset from the animation still to fade and the seconds left.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct FootLock {
    pin: Option<Vec3>,
    release: Option<(Vec3, f32)>,
}

/// Plays one [`BlendMethod`] frame by frame, reusing its buffers (no allocation per
/// [`Player::advance`]; read the result with [`Player::frame`]).
///
/// `L` is how it holds its [`Locomotion`]: owned (the default, [`Locomotion::into_player`] or
/// `Player::new`) or borrowed (`&Locomotion`, `Locomotion::player`).
#[derive(Debug, Clone)]
pub struct Player<L: Borrow<Locomotion> = Locomotion> {
    loco: L,
    method: BlendMethod,
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

impl<L: Borrow<Locomotion>> Player<L> {
    /// A player for `method`, at its start phases (see [`crate::anim::Locomotion`], "Phase
    /// alignment") with the character at the origin, showing the walk.
    #[must_use]
    pub(crate) fn new(locomotion: L, method: BlendMethod) -> Self {
        let loco: &Locomotion = locomotion.borrow();
        let rest = &loco.skeleton.rest;
        let start = if method == BlendMethod::Events {
            [loco.events[WALK][0], loco.events[RUN][0]]
        } else {
            loco.start
        };
        let ta = |c: usize| Rigid::from_translation(loco.root_of(c, start[c]));
        let walk_speed = loco.gaits[WALK].speed();
        let mut p = Self {
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
            // Last: the fields above borrow from it.
            loco: locomotion,
        };
        p.advance(walk_speed, 0.0);
        p
    }

    /// The blend it plays.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn locomotion(&self) -> &Locomotion {
        self.loco.borrow()
    }

    /// The blend method it plays.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn method(&self) -> BlendMethod {
        self.method
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
        let loco: &Locomotion = self.loco.borrow();
        let b = if self.method == BlendMethod::Locked {
            loco.blend_for_speed(speed)
        } else {
            loco.blend_parameter(speed)
        };
        let before = self.last;
        let steps = self.step_clocks(b, f64::from(dt));
        let placement = self.place(&steps, before, b);
        let loco: &Locomotion = self.loco.borrow();
        for c in [WALK, RUN] {
            loco.clips[c].sample(steps.times[c] as f32, &mut self.poses[c]);
        }
        blend_poses(
            &[(&self.poses[WALK], 1.0 - b), (&self.poses[RUN], b)],
            &loco.skeleton.rest,
            &mut self.frame.local,
        );
        let v = [0, 1].map(|c| loco.root_velocity_of(c, steps.times[c]) * steps.rates[c]);
        if self.method == BlendMethod::Locked {
            self.lock_feet(placement, b, dt);
        }
        self.frame.placement = placement.to_mat4();
        self.frame.blend = b;
        self.frame.speed = (v[WALK] * (1.0 - b) + v[RUN] * b).length();
        self.frame.clip_times = steps.times.map(|t| t as f32);
        self.last = steps.times;
    }

    /// Advances both clips' clocks by `dt` seconds at blend `b`, the method's way.
    fn step_clocks(&mut self, b: f32, dt: f64) -> ClockStep {
        let loco: &Locomotion = self.loco.borrow();
        let durations = loco.durations();
        match self.method {
            BlendMethod::Naive => {
                let start = loco.start;
                let (old, new) = (self.clock, self.clock + dt);
                self.clock = new;
                let loops = |c: usize, clock: f64| ((start[c] + clock) / durations[c]).floor();
                let t = |c: usize| (start[c] + new).rem_euclid(durations[c]);
                ClockStep {
                    times: [t(WALK), t(RUN)],
                    wraps: [0, 1].map(|c| (loops(c, new) - loops(c, old)) as u32),
                    rates: [1.0, 1.0],
                }
            }
            BlendMethod::Unified | BlendMethod::Locked => {
                let rates = loco.unified_rates(b);
                let mut wraps = [0u32; 2];
                for c in [WALK, RUN] {
                    self.times[c] += f64::from(rates[c]) * dt;
                    while self.times[c] >= durations[c] {
                        self.times[c] -= durations[c];
                        wraps[c] += 1;
                    }
                }
                ClockStep {
                    times: self.times,
                    wraps,
                    rates,
                }
            }
            BlendMethod::Events => self.step_events(b, dt),
        }
    }

    /// Events: the shared phase runs through the footfall segments, each at the blend of the
    /// two clips' rates over it.
    fn step_events(&mut self, b: f32, dt: f64) -> ClockStep {
        let old = [self.event_time(WALK), self.event_time(RUN)];
        let loco: &Locomotion = self.loco.borrow();
        let k_count = loco.events[WALK].len() as u64;
        let mut left = dt;
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
        let loco: &Locomotion = self.loco.borrow();
        ClockStep {
            times: [new[0].0, new[1].0],
            wraps: [0, 1].map(|c| (new[c].1 - old[c].1) as u32),
            rates: loco.segment_rates(k, b),
        }
    }

    /// Where the character stands after a clock step from clip times `before`.
    fn place(&mut self, steps: &ClockStep, before: [f64; 2], b: f32) -> Rigid {
        let loco: &Locomotion = self.loco.borrow();
        let durations = loco.durations();
        let ta = [0, 1].map(|c| loco.root_of(c, steps.times[c]));
        if self.method == BlendMethod::Naive {
            // The blended root displacement, each clip's over its own step.
            for c in [WALK, RUN] {
                let moved = ta[c] - loco.root_of(c, before[c])
                    + loco.root_of(c, durations[c]) * steps.wraps[c] as f32;
                self.position += moved * if c == WALK { 1.0 - b } else { b };
            }
            return Rigid::from_translation(self.position);
        }
        // Step 3 of the walk/run blend with the target TA_i(t) = translation(root_i(t)).
        let ta = ta.map(Rigid::from_translation);
        for c in [WALK, RUN] {
            let stride = Rigid::from_translation(loco.root_of(c, durations[c]));
            for _ in 0..steps.wraps[c] {
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
    }

    /// Locked: pins the feet that are down (by the contact rule on the blended pose) where
    /// they touched down, and fades released pins back into the animation, by two-bone IK of
    /// each leg in the blended local pose. `placement` is translation-only (every method's is).
    fn lock_feet(&mut self, placement: Rigid, b: f32, dt: f32) {
        let loco: &Locomotion = self.loco.borrow();
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
        let loco: &Locomotion = self.loco.borrow();
        let k_count = loco.events[c].len() as u64;
        let k = (self.segment % k_count) as usize;
        let t_len = f64::from(loco.gaits[c].duration);
        let u = loco.events[c][k] + self.phase * loco.segment(c, k);
        let extra = (u / t_len).floor();
        (u - extra * t_len, self.segment / k_count + extra as u64)
    }
}

/// Both clips' clocks after one step: their times, how often each looped, and their playback
/// rates.
struct ClockStep {
    times: [f64; 2],
    wraps: [u32; 2],
    rates: [f32; 2],
}
