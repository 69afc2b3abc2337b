//! The walk/run measurement the `walkrun` tool prints: the gait analysis of a [`Locomotion`]'s
//! two clips (axes, ground speeds, strides, each foot's stances, the footfall order), its
//! footfall events, and the foot slide of every blend method over a walk → run → walk speed
//! ramp, for both root-motion targets. The analysis behind it (`Gait`'s stances and footfalls,
//! the event feet, the root-motion target) is what the blend itself runs on; it stays inside
//! the crate, and this is its one window.

use std::fmt::Write as _;

use glam::Vec3;

use crate::anim::blend::{align_events, RootMotion, RUN, WALK};
use crate::anim::gait::{Contact, FootGait};
use crate::anim::{
    speed_ramp, BlendMethod, ContactRule, Gait, LocoFrame, Locomotion, LocomotionError, Player,
    Skeleton,
};

/// `loco` with the footfall events taken from the feet named in `names` (bone names; none: as
/// it is).
///
/// # Errors
/// [`LocomotionError::NotAFoot`] when a name is not one of the analysed feet, and what
/// `Locomotion::with_event_feet` reports when the feet cannot carry events.
fn with_event_feet(loco: Locomotion, names: &[String]) -> Result<Locomotion, LocomotionError> {
    if names.is_empty() {
        return Ok(loco);
    }
    let feet: Vec<String> = loco
        .gait(ClipKind::Walk)
        .feet
        .iter()
        .map(|f| f.name.clone())
        .collect();
    let picked = names
        .iter()
        .map(|e| {
            feet.iter()
                .position(|n| n == e)
                .ok_or_else(|| LocomotionError::NotAFoot {
                    name: e.clone(),
                    feet: feet.clone(),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    loco.with_event_feet(&picked)
}

/// The foot slide of each blend method over the speed schedule `speeds` (frames `dt` apart):
/// the mean over feet of each foot's mean slide and the largest slide of any foot, the
/// horizontal world speed of each foot while it is down, under the blend's one contact rule.
///
/// # Panics
/// If `dt` is not positive and finite or a speed is not finite.
#[must_use]
pub fn foot_slide_by_method(
    loco: &Locomotion,
    speeds: &[f32],
    dt: f32,
) -> Vec<(BlendMethod, f32, f32)> {
    BlendMethod::ALL
        .into_iter()
        .map(|method| {
            let frames = loco.simulate(method, speeds, dt);
            let (mean, max) = slide_summary(&loco.foot_slide(&frames, dt));
            (method, mean, max)
        })
        .collect()
}

/// The whole report: gaits, events (from the feet named in `event_feet`, bone names; none: the
/// analysis's own), and foot slide over a ramp of `seconds` at `fps`.
///
/// # Errors
/// As `with_event_feet`.
pub fn report(
    loco: Locomotion,
    event_feet: &[String],
    fps: f32,
    seconds: f32,
) -> Result<String, LocomotionError> {
    let loco = &with_event_feet(loco, event_feet)?;
    let mut s = String::new();
    gaits(&mut s, loco);
    events(&mut s, loco);
    foot_slide_table(&mut s, loco, fps, seconds);
    Ok(s)
}

/// The gait analysis of both clips: axes, speeds, strides, each foot's stances, footfalls.
fn gaits(s: &mut String, loco: &Locomotion) {
    let [walk, run] = loco.gaits();
    let _ = writeln!(
        s,
        "up {}  forward: walk {} run {}",
        loco.up(),
        walk.forward(),
        run.forward()
    );
    for g in [walk, run] {
        let _ = writeln!(
            s,
            "\n{:<6} cycle {:.4} s  ground speed {:.2} units/s  stride {:.2} units",
            g.clip,
            g.duration,
            g.speed(),
            g.stride()
        );
        let _ = writeln!(
            s,
            "  {:<18} {:>7} {:>7} {:>7}  {:>6}  stances (touch-down → lift-off, s; sweep)",
            "foot", "lowest", "highest", "thresh", "duty"
        );
        for f in &g.feet {
            let stances: Vec<String> = f
                .contacts
                .iter()
                .map(|c| format!("{:.3}→{:.3} ({:.1})", c.start, c.end, c.sweep.length()))
                .collect();
            let _ = writeln!(
                s,
                "  {:<18} {:>7.2} {:>7.2} {:>7.2}  {:>5.0}%  {}",
                f.name,
                f.lowest,
                f.highest,
                f.threshold,
                100.0 * f.duty_factor(g.duration),
                stances.join(", ")
            );
        }
        let order: Vec<String> = g
            .footfalls()
            .iter()
            .map(|f| format!("{} {:.2}", g.feet[f.foot].name, f.time / g.duration))
            .collect();
        let _ = writeln!(
            s,
            "  footfall order (cycle fraction): {}",
            order.join(" → ")
        );
    }
}

/// The event feet and their footfall times in each clip.
fn events(s: &mut String, loco: &Locomotion) {
    let [walk, run] = loco.gaits();
    let names: Vec<&str> = loco
        .event_feet()
        .iter()
        .map(|&i| walk.feet[i].name.as_str())
        .collect();
    let _ = writeln!(s, "\nevent feet: {}", names.join(", "));
    for (c, g) in [(ClipKind::Walk, walk), (ClipKind::Run, run)] {
        let ev: Vec<String> = loco
            .events(c)
            .iter()
            .zip(loco.event_foot())
            .map(|(t, &f)| format!("{} {:.3} s ({:.2})", g.feet[f].name, t, t / g.duration))
            .collect();
        let _ = writeln!(s, "  {:<6} {}", g.clip, ev.join(" → "));
    }
}

/// Foot slide over the walk → run → walk ramp: every blend method, and each clip alone, for
/// both targets of the root motion.
fn foot_slide_table(s: &mut String, loco: &Locomotion, fps: f32, seconds: f32) {
    let [walk, run] = loco.gaits();
    let dt = 1.0 / fps;
    let speeds = speed_ramp(walk.speed(), run.speed(), seconds, fps);
    let _ = writeln!(
        s,
        "\nfoot slide over the ramp ({} frames at {} fps, {:.2} → {:.2} → {:.2} units/s): \
         horizontal foot speed while down, units/s, mean / max (steps counted)",
        speeds.len(),
        fps,
        walk.speed(),
        run.speed(),
        walk.speed()
    );
    let feet: Vec<&str> = walk.feet.iter().map(|f| f.name.as_str()).collect();
    for root in RootMotion::ALL {
        let loco = loco.clone().with_root_motion(root);
        let _ = writeln!(s, "\n  target bone: {} root motion", root.name());
        let _ = write!(s, "  {:<8}", "method");
        for f in &feet {
            let _ = write!(s, " {f:>24}");
        }
        let _ = writeln!(s, " {:>16}", "all feet");
        let mut rows = Vec::new();
        for method in BlendMethod::ALL {
            let frames = loco.simulate(method, &speeds, dt);
            rows.push((method.name(), loco.foot_slide(&frames, dt)));
        }
        // Baselines: each clip alone at its own speed (the clips' own slide).
        for (name, v) in [("walk", walk.speed()), ("run", run.speed())] {
            let frames = loco.simulate(BlendMethod::Unified, &vec![v; speeds.len()], dt);
            rows.push((name, loco.foot_slide(&frames, dt)));
        }
        for (name, slides) in &rows {
            let _ = write!(s, "  {name:<8}");
            for slide in slides {
                let cell = format!(
                    "{:.1} / {:.1} ({})",
                    slide.mean, slide.max, slide.contact_frames
                );
                let _ = write!(s, " {cell:>24}");
            }
            let (mean, max) = slide_summary(slides);
            let _ = writeln!(s, " {:>16}", format!("{mean:.1} / {max:.1}"));
        }
    }
    let _ = writeln!(
        s,
        "  (walk, run: each clip alone at its own speed, for reference)"
    );
}

// The analysis the walk/run report (and the blend's unit tests) read, beside the blend rather
// than in it: the blend itself never names a clip or reads its events back.

/// One of the two clips a [`Locomotion`] blends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum ClipKind {
    /// The slower clip (blend parameter 0).
    Walk,
    /// The faster clip (blend parameter 1).
    Run,
}

crate::names::named!(ClipKind, "clip", { Walk => "walk", Run => "run" });

impl ClipKind {
    /// Position in per-clip arrays: 0 for the walk, 1 for the run.
    #[must_use]
    pub(crate) const fn index(self) -> usize {
        match self {
            Self::Walk => WALK,
            Self::Run => RUN,
        }
    }
}

impl Locomotion {
    /// [`foot_slide`] of every foot with this blend's up axis and `rule`.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn foot_slide_with(
        &self,
        frames: &[LocoFrame],
        dt: f32,
        rule: &ContactRule,
    ) -> Vec<FootSlide> {
        foot_slide(&self.skeleton, frames, &self.feet, dt, self.up(), rule)
    }

    /// `foot_slide` of every foot with this blend's up axis and contact rule.
    #[must_use]
    pub(crate) fn foot_slide(&self, frames: &[LocoFrame], dt: f32) -> Vec<FootSlide> {
        foot_slide(
            &self.skeleton,
            frames,
            &self.feet,
            dt,
            self.up(),
            &self.contact_rule(),
        )
    }

    /// Plays `method` over a speed schedule: frame `n` shows time `n·dt`, after advancing with
    /// the blend for `speeds[n]` (frame 0 is the start state).
    ///
    /// # Panics
    /// If `dt` is not positive and finite or a speed is not finite.
    #[must_use]
    pub(crate) fn simulate(&self, method: BlendMethod, speeds: &[f32], dt: f32) -> Vec<LocoFrame> {
        assert!(
            dt.is_finite() && dt > 0.0,
            "time step {dt} must be positive and finite"
        );
        let mut player = Player::new(self, method);
        speeds
            .iter()
            .enumerate()
            .map(|(n, &v)| {
                player.advance(v, if n == 0 { 0.0 } else { dt });
                player.frame().clone()
            })
            .collect()
    }

    /// The same blend with the footfalls of `event_feet` (indices into the feet given to
    /// `Locomotion::new`) as the events.
    ///
    /// # Errors
    /// [`LocomotionError::EventFeetDisagree`] when their footfall order differs between the
    /// clips (or the list is empty or out of range), [`LocomotionError::CoincidentEvents`].
    pub(crate) fn with_event_feet(mut self, event_feet: &[usize]) -> Result<Self, LocomotionError> {
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

    /// The same blend with another target-bone model (default [`RootMotion::Contacts`]).
    #[must_use]
    pub(crate) fn with_root_motion(mut self, root_motion: RootMotion) -> Self {
        self.root_motion = root_motion;
        self
    }

    /// The analysis of `clip`.
    #[must_use]
    pub(crate) fn gait(&self, clip: ClipKind) -> &Gait {
        &self.gaits[clip.index()]
    }

    /// The event feet, as indices into `Locomotion::feet`.
    #[must_use]
    pub(crate) fn event_feet(&self) -> &[usize] {
        &self.event_feet
    }

    /// Event times of `clip` in corresponding order (event `k` of the walk and of the run are
    /// the same footfall of the same foot), seconds in `[0, T_c)`; event 0 is the walk's
    /// earliest.
    #[must_use]
    pub(crate) fn events(&self, clip: ClipKind) -> Vec<f32> {
        let c = clip.index();
        let t = f64::from(self.gaits[c].duration);
        self.events[c].iter().map(|&e| (e % t) as f32).collect()
    }

    /// The foot (index into `Locomotion::feet`) of each event.
    #[must_use]
    pub(crate) fn event_foot(&self) -> &[usize] {
        &self.event_foot
    }

    /// `TA_c(t)`: the root displacement of clip `clip` at clip time `t` (in `[0, T_c]`).
    #[must_use]
    #[cfg(test)]
    pub(crate) fn root(&self, clip: ClipKind, t: f64) -> Vec3 {
        self.root_of(clip.index(), t)
    }

    /// Velocity of [`Locomotion::root`] at clip time `t`, per clip second.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn root_velocity(&self, clip: ClipKind, t: f64) -> Vec3 {
        self.root_velocity_of(clip.index(), t)
    }
}

/// Mean over feet of `FootSlide::mean`, and the largest `FootSlide::max`.
#[must_use]
pub(crate) fn slide_summary(slides: &[FootSlide]) -> (f32, f32) {
    let mean = slides.iter().map(|s| s.mean).sum::<f32>() / slides.len().max(1) as f32;
    let max = slides.iter().map(|s| s.max).fold(0.0, f32::max);
    (mean, max)
}

impl Contact {
    /// Length of the stance in seconds.
    #[must_use]
    pub(crate) fn duration(&self) -> f32 {
        self.end - self.start
    }
}

impl FootGait {
    /// Fraction of the cycle the foot is down.
    #[must_use]
    pub(crate) fn duty_factor(&self, duration: f32) -> f32 {
        self.contacts.iter().map(Contact::duration).sum::<f32>() / duration
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
