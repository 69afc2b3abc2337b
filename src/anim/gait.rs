//! Gait analysis of one in-place locomotion clip: ground speed, stride, the root track the
//! feet imply, and when each foot is down (see [`crate::anim::Locomotion`] for how it is used).

use glam::Vec3;

use super::{Clip, LocomotionError, Skeleton};

/// How [`Gait::analyse`] samples a clip and decides contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GaitSettings {
    /// Samples per second of clip time (default 240: ten per key of a 24 fps clip). At least 64
    /// samples are taken per cycle whatever the rate.
    pub(crate) sample_rate: f32,
    /// A foot is down while its height is at most `lowest + contact_fraction·(highest −
    /// lowest)` over the cycle, in `(0, 1)` (default 0.2).
    pub(crate) contact_fraction: f32,
    /// Airborne gaps shorter than this fraction of the cycle are merged into the contact around
    /// them, so a foot that wobbles across the threshold lands once (default 0.05).
    pub(crate) min_gap: f32,
    /// Also require a down foot not to move forwards relative to the body (default true): a
    /// foot that skims the ground at the end of its swing has not landed yet.
    pub(crate) stance_moves_backwards: bool,
    /// The world up axis; `None` finds it: the signed coordinate axis nearest to the mean
    /// offset from the feet to their lowest common ancestor (the body) over the cycle.
    pub(crate) up: Option<Vec3>,
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
pub(crate) struct Contact {
    /// Touch-down (the footfall), clip seconds in `[0, duration)`.
    pub start: f32,
    /// Lift-off, clip seconds in `(start, start + duration]` (past `duration` when the stance
    /// wraps around the loop).
    pub end: f32,
    /// Horizontal displacement of the foot from touch-down to lift-off, in the skeleton's root
    /// space (points backwards for a forward gait).
    pub sweep: Vec3,
}

/// One foot over one clip.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FootGait {
    /// Node index of the foot bone.
    pub(crate) node: usize,
    /// Its name.
    pub name: String,
    /// Lowest height (along `Gait::up`) over the cycle.
    pub lowest: f32,
    /// Highest height over the cycle.
    pub highest: f32,
    /// Contact threshold: the foot is down at or below this height.
    pub threshold: f32,
    /// Stances, sorted by touch-down time.
    pub contacts: Vec<Contact>,
}

/// A footfall of one of the analysed feet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Footfall {
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
    pub(crate) up: Vec3,
    /// Node whose offset from the feet gave `up` (the feet's lowest common ancestor).
    pub(crate) body: Option<usize>,
    /// Mean ground velocity in the skeleton's root space, horizontal: the stride over the
    /// cycle time, `root[n] / duration` (the article's `v = d·30/N`).
    pub(crate) velocity: Vec3,
    /// The root motion the in-place clip implies, sampled at `k·duration/n` for `k = 0..=n`:
    /// `root[0] = 0`, and over each sample step the root moves by minus the mean horizontal
    /// displacement of the feet that are down over the step (so those feet stand still on the
    /// ground, in the least-squares sense, when the clip is played with this root); the first
    /// and last step of each stance are left out, as they may straddle touch-down or lift-off.
    /// Steps with no foot down (a gallop's flight) take the displacement interpolated
    /// linearly, cyclically, between the nearest steps that have one. `root[n]` is the stride.
    pub(crate) root: Vec<Vec3>,
    /// Per foot, in the order given.
    pub(crate) feet: Vec<FootGait>,
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
    pub(crate) fn stride(&self) -> f32 {
        self.speed() * self.duration
    }

    /// The root track at clip time `t` (clamped to `[0, duration]`), linear between samples.
    #[must_use]
    pub(crate) fn root_at(&self, t: f32) -> Vec3 {
        let n = self.root.len() - 1;
        let x = (t / self.duration).clamp(0.0, 1.0) * n as f32;
        let k = (x.floor() as usize).min(n - 1);
        self.root[k].lerp(self.root[k + 1], x - k as f32)
    }

    /// Velocity of the root track at clip time `t` (that of the sample step holding `t`).
    #[must_use]
    pub(crate) fn root_velocity_at(&self, t: f32) -> Vec3 {
        let n = self.root.len() - 1;
        let x = (t / self.duration).clamp(0.0, 1.0) * n as f32;
        let k = (x.floor() as usize).min(n - 1);
        (self.root[k + 1] - self.root[k]) * (n as f32 / self.duration)
    }

    /// Every footfall of every foot, sorted by time.
    #[must_use]
    pub(crate) fn footfalls(&self) -> Vec<Footfall> {
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
    pub(crate) fn analyse(
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
        let body = match settings.up {
            Some(_) => None,
            None => Some(
                body_of(skeleton, feet).ok_or_else(|| LocomotionError::NoBody {
                    feet: feet.iter().map(|&f| skeleton.names[f].clone()).collect(),
                })?,
            ),
        };
        let mut poser = Poser::new(skeleton, clip);
        let (positions, offset) = poser.sample_feet(feet, samples, step, body);
        let up = match settings.up {
            Some(up) => up.normalize(),
            None => nearest_axis(offset).ok_or_else(|| LocomotionError::NoUp {
                clip: clip.name.clone(),
                body: skeleton.names[body.unwrap_or(0)].clone(),
            })?,
        };
        let mut cycle = Cycle::new(positions, feet, samples, up, settings, &poser)?;
        // Pass 1, height alone: the direction of travel. Pass 2 ([`Cycle::down`]) uses it.
        let forward = cycle.track(&|i, k| cycle.low(i, k) && cycle.low(i, k + 1))[samples];
        cycle.forward = forward.normalize_or_zero();
        // The root follows the interior steps of stances only: a first or last step may
        // straddle touch-down or lift-off and carry part of the swing.
        let root =
            cycle.track(&|i, k| cycle.down(i, k - 1) && cycle.down(i, k) && cycle.down(i, k + 1));
        let gait_feet = feet
            .iter()
            .enumerate()
            .map(|(i, &node)| cycle.foot(i, node, &mut poser, step))
            .collect::<Result<Vec<_>, _>>()?;
        let velocity = root[samples] / duration;
        // A root that moves less than 1e-4 of the figure's size per second does not walk.
        if velocity.is_nan() || velocity.length() <= 1e-4 * cycle.scale {
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

/// Poses one clip of one skeleton at any time and reads model-space node positions.
struct Poser<'a> {
    skeleton: &'a Skeleton,
    clip: &'a Clip,
    pose: Vec<super::Transform>,
    world: Vec<glam::Mat4>,
}

impl<'a> Poser<'a> {
    fn new(skeleton: &'a Skeleton, clip: &'a Clip) -> Self {
        Self {
            skeleton,
            clip,
            pose: skeleton.rest.clone(),
            world: Vec::with_capacity(skeleton.parents.len()),
        }
    }

    /// Poses the clip at `t` (the world matrices are then in `self.world`).
    fn pose_at(&mut self, t: f32) {
        self.clip.sample(t, &mut self.pose);
        self.skeleton
            .world_matrices_into(&self.pose, &mut self.world);
    }

    /// Model-space position of `node` at clip time `t`.
    fn position(&mut self, t: f32, node: usize) -> Vec3 {
        self.pose_at(t);
        self.world[node].w_axis.truncate()
    }

    /// The feet's positions at `samples` times `k·step` (sample-major), and the summed offset
    /// from the feet's mean to `body` (zero without one).
    fn sample_feet(
        &mut self,
        feet: &[usize],
        samples: usize,
        step: f64,
        body: Option<usize>,
    ) -> (Vec<Vec3>, Vec3) {
        let mut positions = vec![Vec3::ZERO; samples * feet.len()];
        let mut offset = Vec3::ZERO;
        for k in 0..samples {
            self.pose_at((k as f64 * step) as f32);
            let row = &mut positions[k * feet.len()..(k + 1) * feet.len()];
            for (p, &f) in row.iter_mut().zip(feet) {
                *p = self.world[f].w_axis.truncate();
            }
            if let Some(body) = body {
                let mean_foot = row.iter().copied().sum::<Vec3>() / feet.len() as f32;
                offset += self.world[body].w_axis.truncate() - mean_foot;
            }
        }
        (positions, offset)
    }
}

/// A foot's height band over the cycle.
#[derive(Clone, Copy)]
struct Band {
    lowest: f32,
    highest: f32,
    /// The foot is low at or below this height.
    threshold: f32,
}

/// The feet sampled over one cycle: positions, heights along `up`, and the contact rules.
struct Cycle<'a> {
    settings: &'a GaitSettings,
    samples: usize,
    /// Sample-major: sample `k` of foot `i` at `k·feet + i`.
    positions: Vec<Vec3>,
    feet: usize,
    up: Vec3,
    /// Foot-major: foot `i` at sample `k` at `i·samples + k`.
    heights: Vec<f32>,
    bands: Vec<Band>,
    /// The figure's size: the largest coordinate of any sampled foot position.
    scale: f32,
    /// The direction of travel (zero until the first pass has found it).
    forward: Vec3,
}

impl<'a> Cycle<'a> {
    /// Heights and bands of the sampled feet.
    ///
    /// # Errors
    /// [`LocomotionError::NeverLifts`] for a foot whose height does not change.
    fn new(
        positions: Vec<Vec3>,
        feet: &[usize],
        samples: usize,
        up: Vec3,
        settings: &'a GaitSettings,
        poser: &Poser<'_>,
    ) -> Result<Self, LocomotionError> {
        let scale = positions
            .iter()
            .map(|p| p.abs().max_element())
            .fold(1e-6, f32::max);
        let mut cycle = Self {
            settings,
            samples,
            positions,
            feet: feet.len(),
            up,
            heights: Vec::new(),
            bands: Vec::with_capacity(feet.len()),
            scale,
            forward: Vec3::ZERO,
        };
        cycle.heights = (0..feet.len())
            .flat_map(|i| (0..samples).map(move |k| (i, k)))
            .map(|(i, k)| cycle.pos(i, k as isize).dot(up))
            .collect();
        for (i, &node) in feet.iter().enumerate() {
            let h = &cycle.heights[i * samples..(i + 1) * samples];
            let lowest = h.iter().copied().fold(f32::INFINITY, f32::min);
            let highest = h.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            // A foot that moves less than 1e-4 of the figure's size is not animated.
            if highest - lowest <= 1e-4 * scale {
                return Err(LocomotionError::NeverLifts {
                    clip: poser.clip.name.clone(),
                    foot: poser.skeleton.names[node].clone(),
                    range: highest - lowest,
                    up,
                });
            }
            cycle.bands.push(Band {
                lowest,
                highest,
                threshold: lowest + settings.contact_fraction * (highest - lowest),
            });
        }
        Ok(cycle)
    }

    /// Position of foot `i` at sample `k` (cyclic).
    fn pos(&self, i: usize, k: isize) -> Vec3 {
        self.positions[k.rem_euclid(self.samples as isize) as usize * self.feet + i]
    }

    /// Height of foot `i` at sample `k` (cyclic).
    fn height(&self, i: usize, k: isize) -> f32 {
        self.heights[i * self.samples + k.rem_euclid(self.samples as isize) as usize]
    }

    fn low(&self, i: usize, k: isize) -> bool {
        self.height(i, k) <= self.bands[i].threshold
    }

    /// Forward displacement of foot `i` over step `k → k+1`.
    fn along(&self, i: usize, k: isize) -> f32 {
        (self.pos(i, k + 1) - self.pos(i, k)).dot(self.forward)
    }

    /// Step `k → k+1` of foot `i` is down when the foot is low at both ends and (by default)
    /// does not move forwards relative to the body, which drops the end of a swing that skims
    /// the ground before the foot lands.
    fn down(&self, i: usize, k: isize) -> bool {
        self.low(i, k)
            && self.low(i, k + 1)
            && (!self.settings.stance_moves_backwards || self.along(i, k) <= 0.0)
    }

    /// The root track from the sample steps (k → k+1) where `counts` holds.
    fn track(&self, counts: &dyn Fn(usize, isize) -> bool) -> Vec<Vec3> {
        let mut sum = vec![Vec3::ZERO; self.samples];
        let mut count = vec![0u32; self.samples];
        for i in 0..self.feet {
            for k in 0..self.samples as isize {
                if counts(i, k) {
                    let d = self.pos(i, k + 1) - self.pos(i, k);
                    sum[k as usize] += d - self.up * d.dot(self.up);
                    count[k as usize] += 1;
                }
            }
        }
        root_track(&sum, &count)
    }

    /// Touch-down in samples from 0: step `first − 1` is not down, step `first` is. If sample
    /// `first − 1` is above the threshold, where the height crosses it; else where the forward
    /// velocity (taken at step midpoints) crosses zero.
    fn touch_down(&self, i: usize, first: isize) -> f64 {
        if self.low(i, first - 1) {
            let (x, y) = (self.along(i, first - 1), self.along(i, first));
            first as f64 - 0.5 + f64::from((x / (x - y)).clamp(0.0, 1.0))
        } else {
            let t = self.bands[i].threshold;
            let (x, y) = (self.height(i, first - 1) - t, self.height(i, first) - t);
            first as f64 - 1.0 + f64::from((x / (x - y)).clamp(0.0, 1.0))
        }
    }

    /// Lift-off, the mirror image: step `last` is down, step `last + 1` is not.
    fn lift_off(&self, i: usize, last: isize) -> f64 {
        if self.low(i, last + 2) {
            let (x, y) = (self.along(i, last), self.along(i, last + 1));
            last as f64 + 0.5 + f64::from((x / (x - y)).clamp(0.0, 1.0))
        } else {
            let t = self.bands[i].threshold;
            let (x, y) = (self.height(i, last + 1) - t, self.height(i, last + 2) - t);
            last as f64 + 1.0 + f64::from((x / (x - y)).clamp(0.0, 1.0))
        }
    }

    /// Foot `i` (node `node`) over the cycle: its band and its stances.
    ///
    /// # Errors
    /// [`LocomotionError::NeverDown`] for a foot with no stance.
    fn foot(
        &self,
        i: usize,
        node: usize,
        poser: &mut Poser<'_>,
        step: f64,
    ) -> Result<FootGait, LocomotionError> {
        let name = poser.skeleton.names[node].clone();
        let flags: Vec<bool> = (0..self.samples as isize)
            .map(|k| self.down(i, k))
            .collect();
        let runs = stance_runs(&flags, self.settings.min_gap);
        if runs.is_empty() {
            return Err(LocomotionError::NeverDown {
                clip: poser.clip.name.clone(),
                foot: name,
            });
        }
        let duration = poser.clip.duration;
        let mut contacts = Vec::with_capacity(runs.len());
        for (first, last) in runs {
            let start_u = self.touch_down(i, first) * step;
            let end_u = self.lift_off(i, last) * step;
            let start = start_u.rem_euclid(f64::from(duration));
            let end = start + (end_u - start_u).max(0.0);
            let (start, end) = (start as f32, end as f32);
            let d = poser.position(end % duration, node) - poser.position(start, node);
            contacts.push(Contact {
                start,
                end,
                sweep: d - self.up * d.dot(self.up),
            });
        }
        contacts.sort_by(|a, b| a.start.total_cmp(&b.start));
        let Band {
            lowest,
            highest,
            threshold,
        } = self.bands[i];
        Ok(FootGait {
            node,
            name,
            lowest,
            highest,
            threshold,
            contacts,
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
