//! The walk/run blend of "Blending a Walk/Run cycle" (`qtangent::anim::Locomotion`): the blend parameter and the
//! unified rates against the article's formulas, b = 0 reproducing the walk, a placement
//! without pops, event synchronisation, errors, and foot slide of the three methods.
//!
//! Most tests run on a procedural biped whose numbers are known by construction (each foot
//! slides back at exactly `2a / (d·T)` while down). The Fox tests need `$QTANGENT_ASSETS`.

use crate::common;

use glam::{Quat, Vec3, Vec4};
use qtangent::anim::blend::RootMotion;
use qtangent::anim::{
    speed_ramp, BlendMethod, Channel, Clip, Gait, GaitSettings, Interpolation, LocoFrame,
    Locomotion, LocomotionError, Property, Skeleton, Transform,
};
use qtangent::lab::walkrun::{slide_summary, ClipKind, FootSlide};
use qtangent::mesh;

/// Index of the walk in per-clip arrays (`Locomotion::gaits`, `LocoFrame::clip_times`).
const WALK: usize = ClipKind::Walk.index();
/// Index of the run in per-clip arrays.
const RUN: usize = ClipKind::Run.index();

/// Footfall names of the Fox (`Fox.glb` from the glTF sample models): hind feet first, then
/// the front feet.
const FOX_FEET: [&str; 4] = [
    "b_LeftFoot02_018",
    "b_RightFoot02_022",
    "b_LeftHand_011",
    "b_RightHand_08",
];

/// f32 machine epsilon.
const EPS: f32 = f32::EPSILON;

// ---------------------------------------------------------------------------------------------
// A procedural biped: root → hip (1 unit above the ground) → two feet, each driven by a LINEAR
// translation channel that slides back along −z on the ground for a fraction `duty` of the
// cycle and swings forward on an arc of height `lift` for the rest.

/// One gait of the biped.
#[derive(Clone, Copy)]
struct BipedGait {
    /// Cycle time, seconds.
    period: f32,
    /// Half the stance sweep: the foot goes from z = +half to z = −half while down.
    half: f32,
    /// Fraction of the cycle each foot is down.
    duty: f32,
    /// Swing height.
    lift: f32,
    /// Cycle fraction where the right foot lands (the left lands at 0).
    right_phase: f32,
}

impl BipedGait {
    /// Ground speed by construction: the stance sweep `2·half` over the stance time.
    fn speed(&self) -> f32 {
        2.0 * self.half / (self.duty * self.period)
    }
}

/// Keys per cycle; `duty · KEYS` and `right_phase · KEYS` are whole numbers in every gait used,
/// so stance is exactly linear between keys.
const KEYS: usize = 40;

fn biped_skeleton() -> Skeleton {
    let t = |x: f32, y: f32| Transform {
        translation: Vec3::new(x, y, 0.0),
        ..Transform::IDENTITY
    };
    Skeleton {
        names: ["root", "hip", "foot_l", "foot_r"]
            .map(String::from)
            .to_vec(),
        parents: vec![None, Some(0), Some(1), Some(1)],
        rest: vec![
            Transform::IDENTITY,
            t(0.0, 1.0),
            t(0.15, -1.0),
            t(-0.15, -1.0),
        ],
        order: vec![0, 1, 2, 3],
    }
}

/// Foot position (hip space) at cycle fraction `u` (0 = touch-down).
fn foot_at(g: &BipedGait, u: f32, x: f32) -> Vec3 {
    let u = u.rem_euclid(1.0);
    if u < g.duty {
        Vec3::new(x, -1.0, g.half - 2.0 * g.half * u / g.duty)
    } else {
        let s = (u - g.duty) / (1.0 - g.duty);
        Vec3::new(
            x,
            -1.0 + g.lift * (std::f32::consts::PI * s).sin(),
            -g.half + 2.0 * g.half * s,
        )
    }
}

fn biped_clip(name: &str, g: &BipedGait) -> Clip {
    let channel = |node: usize, x: f32, phase: f32| Channel {
        node,
        property: Property::Translation,
        interpolation: Interpolation::Linear,
        times: (0..=KEYS)
            .map(|k| g.period * k as f32 / KEYS as f32)
            .collect(),
        values: (0..=KEYS)
            .map(|k| foot_at(g, k as f32 / KEYS as f32 - phase, x).extend(0.0))
            .collect(),
    };
    Clip {
        name: name.into(),
        duration: g.period,
        channels: vec![channel(2, 0.15, 0.0), channel(3, -0.15, g.right_phase)],
    }
}

const BIPED_WALK: BipedGait = BipedGait {
    period: 1.0,
    half: 0.3,
    duty: 0.6,
    lift: 0.2,
    right_phase: 0.5,
};
const BIPED_RUN: BipedGait = BipedGait {
    period: 0.7,
    half: 0.6,
    duty: 0.35,
    lift: 0.4,
    right_phase: 0.5,
};

fn biped() -> Locomotion {
    let skeleton = biped_skeleton();
    Locomotion::new(
        &skeleton,
        &biped_clip("walk", &BIPED_WALK),
        &biped_clip("run", &BIPED_RUN),
        &[2, 3],
    )
    .unwrap_or_else(|e| panic!("biped: {e}"))
}

/// `clip` re-timed by the piecewise-linear map through `points` (`(old, new)` times, sorted,
/// from `(0, 0)` to `(duration, new duration)`). Keys are first inserted at the break points
/// (sampled from the clip, so the curve is unchanged), so the result at `map(t)` equals the
/// original at `t` for LINEAR channels.
fn warp_clip(clip: &Clip, name: &str, points: &[(f32, f32)]) -> Clip {
    let map = |t: f32| {
        let k = points
            .windows(2)
            .position(|w| t <= w[1].0)
            .unwrap_or(points.len() - 2);
        let (a, b) = (points[k], points[k + 1]);
        a.1 + (t - a.0) * (b.1 - a.1) / (b.0 - a.0)
    };
    let channels = clip
        .channels
        .iter()
        .map(|c| {
            assert_eq!(
                c.interpolation,
                Interpolation::Linear,
                "warp_clip: LINEAR only"
            );
            let mut times = c.times.clone();
            for &(t, _) in points {
                if t > c.times[0] && t < c.times[c.times.len() - 1] {
                    times.push(t);
                }
            }
            times.sort_by(f32::total_cmp);
            times.dedup();
            let values: Vec<Vec4> = times.iter().map(|&t| c.sample(t)).collect();
            Channel {
                times: times.iter().map(|&t| map(t)).collect(),
                values,
                ..c.clone()
            }
        })
        .collect();
    Clip {
        name: name.into(),
        duration: points[points.len() - 1].1,
        channels,
    }
}

/// A time-warped copy of `loco`'s walk as its run: `scale` of its duration, with the span
/// between the walk's first two events squeezed to `fraction` of the new cycle. Footfalls
/// fall at different fractions (so a single shared phase cannot align them) but with the same
/// poses between events: the case seed step 4 is for.
fn warped_pair(loco: &Locomotion, scale: f32, fraction: f32) -> Locomotion {
    let walk = &loco.clips()[WALK];
    let t = walk.duration;
    let ev = loco.events(ClipKind::Walk);
    assert!(ev.len() >= 2, "need two events, have {ev:?}");
    let (mut e0, mut e1) = (ev[0], ev[1]);
    if e1 < e0 {
        std::mem::swap(&mut e0, &mut e1);
    }
    let t2 = t * scale;
    let (sa, sb) = (
        fraction * t2 / (e1 - e0),
        (1.0 - fraction) * t2 / (t - (e1 - e0)),
    );
    let points = [
        (0.0, 0.0),
        (e0, e0 * sb),
        (e1, e0 * sb + (e1 - e0) * sa),
        (t, t2),
    ];
    let fast = warp_clip(walk, "warped walk", &points);
    Locomotion::new(loco.skeleton(), walk, &fast, loco.feet())
        .unwrap_or_else(|e| panic!("warped pair: {e}"))
}

fn fox() -> Option<(mesh::Scene, Locomotion)> {
    let dir = common::assets_dir()?;
    let path = dir.join("gltf/Fox.glb");
    let scene = mesh::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let loco = scene
        .locomotion("Walk", "Run", &FOX_FEET)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some((scene, loco))
}

// ---------------------------------------------------------------------------------------------

#[test]
fn biped_gait_matches_construction() {
    let loco = biped();
    for (g, built) in loco.gaits().iter().zip([BIPED_WALK, BIPED_RUN]) {
        // Stance samples move exactly linearly; the root velocity is their mean displacement
        // over 240 Hz steps, summed in f32 over ≤ 240 steps: a few hundred ε relative.
        let tol = 1e-4 * built.speed();
        assert!(
            (g.speed() - built.speed()).abs() <= tol,
            "{}: speed {} vs {} by construction (allowed {tol})",
            g.clip,
            g.speed(),
            built.speed()
        );
        assert_eq!(g.up, Vec3::Y, "{}: up", g.clip);
        assert!(
            g.forward().angle_between(Vec3::Z) < 1e-3,
            "{}: forward {}",
            g.clip,
            g.forward()
        );
        for f in &g.feet {
            assert_eq!(
                f.contacts.len(),
                1,
                "{} {}: one stance per cycle",
                g.clip,
                f.name
            );
            // Duty from the threshold crossings: within a sample step (1/240 s) at each end.
            let duty = f.duty_factor(g.duration);
            let tol = 2.0 / (240.0 * g.duration);
            assert!(
                (duty - built.duty).abs() <= tol,
                "{} {}: duty {duty} vs {}",
                g.clip,
                f.name,
                built.duty
            );
        }
    }
}

#[test]
fn blend_parameter_follows_the_article() {
    let loco = biped();
    // 1.0 and 2·0.6/(0.35·0.7) ≈ 4.898 units/s by construction.
    let (vw, vr) = (BIPED_WALK.speed(), BIPED_RUN.speed());
    // b is linear in the speed: 0 at the walk, 1 at the run, 1/2 midway, clamped outside. The
    // gait speeds carry the analysis's relative 1e-4 (above), so b carries about 1e-4 / 0.8.
    let tol = 2e-4;
    for (v, want) in [
        (vw, 0.0),
        (vr, 1.0),
        (0.5 * (vw + vr), 0.5),
        (vw + 0.25 * (vr - vw), 0.25),
        (0.0, 0.0),
        (10.0 * vr, 1.0),
    ] {
        let b = loco.blend_parameter(v);
        assert!((b - want).abs() <= tol, "b({v}) = {b}, want {want} ± {tol}");
    }
}

#[test]
fn unified_rates_loop_together() {
    let loco = biped();
    let [gw, gr] = loco.gaits();
    let (tw, tr) = (gw.duration, gr.duration);
    // The article's rates in frames per second at 30 fps, N = 30·T frames per cycle.
    let (nw, nr) = (30.0 * tw, 30.0 * tr);
    for b in [0.0f32, 0.1, 0.37, 0.5, 0.9, 1.0] {
        let [rw, rr] = loco.unified_rates(b);
        let seed_w = (1.0 - b) * 30.0 + b * 30.0 * nw / nr;
        let seed_r = (1.0 - b) * 30.0 * nr / nw + b * 30.0;
        // A handful of f32 operations on values near 1: 8ε relative.
        let tol = 8.0 * EPS * seed_w.max(seed_r);
        assert!(
            (30.0 * rw - seed_w).abs() <= tol,
            "b {b}: walk {} vs {seed_w}",
            30.0 * rw
        );
        assert!(
            (30.0 * rr - seed_r).abs() <= tol,
            "b {b}: run {} vs {seed_r}",
            30.0 * rr
        );
        assert!(
            (tw / rw - tr / rr).abs() <= 8.0 * EPS * tw / rw,
            "b {b}: cycles take {} and {} s",
            tw / rw,
            tr / rr
        );

        // Played for exactly one shared cycle at constant b, both clips are back where they
        // started (time accumulates in f64; frame times are rounded to f32 once).
        let cycle = tw / rw;
        let frames = 90;
        let dt = cycle / frames as f32;
        let v = gw.speed() + b * (gr.speed() - gw.speed());
        let out = loco.simulate(BlendMethod::Unified, &vec![v; frames + 1], dt);
        for c in [WALK, RUN] {
            let (t0, t1) = (out[0].clip_times[c], out[frames].clip_times[c]);
            let d = (t1 - t0).abs();
            let d = d.min(loco.gaits()[c].duration - d);
            // dt is rounded to f32 (½ ulp relative) and accumulated over 90 frames.
            let tol = 1e-5 * loco.gaits()[c].duration;
            assert!(
                d <= tol,
                "b {b} clip {c}: {t0} → {t1} after one cycle (allowed {tol})"
            );
        }
    }
}

/// Checks that `frame.local` equals `clip` sampled at `t` from the rest pose: translations and
/// scales exactly (weights 1 and 0), rotations within the renormalisation of nlerp.
fn assert_pose_is_clip(frame: &LocoFrame, clip: &Clip, rest: &[Transform], t: f32, what: &str) {
    let mut want = rest.to_vec();
    clip.sample(t, &mut want);
    for (i, (a, b)) in frame.local.iter().zip(&want).enumerate() {
        assert_eq!(a.translation, b.translation, "{what} node {i}: translation");
        assert_eq!(a.scale, b.scale, "{what} node {i}: scale");
        // Normalising a unit quaternion moves it by ≤ 2ε; measuring in f32 adds a few ε.
        let angle = common::seeds::quat_angle(a.rotation, b.rotation);
        assert!(
            angle <= 16.0 * f64::from(EPS),
            "{what} node {i}: rotation off by {angle} rad"
        );
    }
}

fn check_b0_is_walk(loco: &Locomotion, what: &str) {
    let gw = &loco.gaits()[WALK];
    let per_cycle = 48;
    let dt = gw.duration / per_cycle as f32;
    let frames = 3 * per_cycle;
    for root in RootMotion::ALL {
        let loco = loco.clone().with_root_motion(root);
        let out = loco.simulate(BlendMethod::Unified, &vec![gw.speed(); frames + 1], dt);
        let t0 = f64::from(out[0].clip_times[WALK]);
        for (n, f) in out.iter().enumerate() {
            assert_eq!(f.blend, 0.0, "{what}: frame {n} blend");
            // At b = 0 the walk plays at rate 1: clip time t0 + n·dt (mod T); f32 rounding of
            // dt and of the stored time: 1e-6 s.
            let want = (t0 + n as f64 * f64::from(dt)).rem_euclid(f64::from(gw.duration));
            let got = f64::from(f.clip_times[WALK]);
            let d = (got - want)
                .abs()
                .min(f64::from(gw.duration) - (got - want).abs());
            assert!(d <= 1e-6, "{what}: frame {n} walk time {got}, want {want}");
            let rest = &loco.skeleton().rest;
            assert_pose_is_clip(f, &loco.clips()[WALK], rest, f.clip_times[WALK], what);
        }
        // After whole cycles the character has moved whole strides along the walk's
        // direction (f32 positions of a few strides: 1e-4 relative).
        for k in 1..=3 {
            let p = out[k * per_cycle].placement.w_axis.truncate();
            let want = gw.velocity * gw.duration * k as f32;
            let tol = 1e-4 * want.length();
            assert!(
                (p - want).length() <= tol,
                "{what} ({}): after {k} cycles at {p}, want {want}",
                root.name()
            );
        }
    }
}

#[test]
fn b0_unified_reproduces_the_walk() {
    check_b0_is_walk(&biped(), "biped");
    if let Some((_, fox)) = fox() {
        check_b0_is_walk(&fox, "Fox");
    }
}

/// Largest clip-time rate either clip can get at blend `b` under `method`.
fn max_rates(loco: &Locomotion, method: BlendMethod, b: f32) -> [f32; 2] {
    match method {
        BlendMethod::Naive => [1.0, 1.0],
        BlendMethod::Unified | BlendMethod::Locked => loco.unified_rates(b),
        BlendMethod::Events => {
            let mut m = [0.0f32; 2];
            for k in 0..loco.events(ClipKind::Walk).len() {
                let r = loco.segment_rates(k, b);
                m = [m[0].max(r[0]), m[1].max(r[1])];
            }
            m
        }
    }
}

fn check_placement_continuous(loco: &Locomotion, what: &str) {
    let fps = 60.0;
    let dt = 1.0 / fps;
    let [gw, gr] = loco.gaits();
    let speeds = speed_ramp(gw.speed(), gr.speed(), 8.0, fps);
    for root in RootMotion::ALL {
        let loco = loco.clone().with_root_motion(root);
        // Fastest the root track of each clip moves, per clip second.
        let vmax = ClipKind::ALL.map(|c| {
            let g = loco.gait(c);
            let n = g.root.len() - 1;
            (0..n)
                .map(|k| {
                    loco.root_velocity(c, (f64::from(g.duration) * (k as f64 + 0.5)) / n as f64)
                        .length()
                })
                .fold(0.0f32, f32::max)
        });
        for method in BlendMethod::ALL {
            let out = loco.simulate(method, &speeds, dt);
            for n in 1..out.len() {
                let step = (out[n].placement.w_axis - out[n - 1].placement.w_axis).length();
                let b = out[n].blend;
                let r = max_rates(&loco, method, b);
                let bound = ((1.0 - b) * r[0] * vmax[0] + b * r[1] * vmax[1]) * dt;
                // f32 positions: a few ulps of the distance travelled.
                let tol = 8.0 * EPS * out[n].placement.w_axis.length() + 1e-6;
                assert!(
                    step <= bound + tol,
                    "{what} {} {}: frame {n} (b {b}) moved {step}, at most {bound} + {tol}",
                    method.name(),
                    root.name()
                );
                assert_eq!(
                    out[n].placement.w_axis.y, 0.0,
                    "{what}: placement leaves the ground"
                );
            }
        }
    }
}

#[test]
fn placement_has_no_pops_on_the_ramp() {
    check_placement_continuous(&biped(), "biped");
    if let Some((_, fox)) = fox() {
        check_placement_continuous(&fox, "Fox");
    }
}

/// The event segment holding clip time `t` (events sorted by their time in the clip).
fn segment_of(events: &[f32], duration: f32, t: f32) -> usize {
    // Event k of this clip starts segment k; segments are cyclic.
    let n = events.len();
    (0..n)
        .find(|&k| {
            let (a, b) = (events[k], events[(k + 1) % n]);
            let len = (b - a).rem_euclid(duration);
            let len = if len == 0.0 { duration } else { len };
            (t - a).rem_euclid(duration) < len
        })
        .unwrap_or(0)
}

fn check_events(loco: &Locomotion, what: &str) {
    let [gw, gr] = loco.gaits();
    let (ew, er) = (loco.events(ClipKind::Walk), loco.events(ClipKind::Run));
    assert_eq!(ew.len(), er.len(), "{what}: events per clip");
    assert!(!ew.is_empty(), "{what}: no events");
    for &f in loco.event_feet() {
        assert_eq!(
            gw.feet[f].contacts.len(),
            gr.feet[f].contacts.len(),
            "{what}: footfalls of {} per cycle",
            gw.feet[f].name
        );
    }
    // Under Events, both clips are in the same segment on every frame of the ramp (a frame
    // landing within float rounding of an event may see either side: 1e-4 s).
    let dt = 1.0 / 60.0;
    let speeds = speed_ramp(gw.speed(), gr.speed(), 8.0, 60.0);
    let out = loco.simulate(BlendMethod::Events, &speeds, dt);
    for (n, f) in out.iter().enumerate() {
        let [tw, tr] = f.clip_times;
        let near = |t: f32, ev: &[f32], d: f32| {
            ev.iter().any(|&e| {
                let x = (t - e).rem_euclid(d);
                x.min(d - x) < 1e-4
            })
        };
        if near(tw, &ew, gw.duration) || near(tr, &er, gr.duration) {
            continue;
        }
        assert_eq!(
            segment_of(&ew, gw.duration, tw),
            segment_of(&er, gr.duration, tr),
            "{what}: frame {n}: walk at {tw} s, run at {tr} s are in different segments"
        );
    }
}

#[test]
fn events_pair_up_and_stay_in_step() {
    let biped = biped();
    check_events(&biped, "biped");
    check_events(&warped_pair(&biped, 0.6, 0.3), "biped + warped copy");
    if let Some((_, fox)) = fox() {
        check_events(&fox, "Fox");
    }
}

/// The foot slide of every method over the 8 s ramp at 60 fps, printed as a table; returns the
/// mean over feet per method.
fn slide_table(loco: &Locomotion, what: &str) -> [f32; 4] {
    let fps = 60.0;
    let dt = 1.0 / fps;
    let [gw, gr] = loco.gaits();
    let speeds = speed_ramp(gw.speed(), gr.speed(), 8.0, fps);
    println!(
        "\n{what}: foot slide over the ramp ({:.3} → {:.3} → {:.3} units/s, {} frames), \
         units/s, mean / max (steps down), root motion {}",
        gw.speed(),
        gr.speed(),
        gw.speed(),
        speeds.len(),
        loco.root_motion().name()
    );
    let mut means = [0.0; 4];
    for (m, method) in BlendMethod::ALL.into_iter().enumerate() {
        let slides: Vec<FootSlide> = loco.foot_slide(&loco.simulate(method, &speeds, dt), dt);
        let cells: Vec<String> = slides
            .iter()
            .map(|s| {
                format!(
                    "{} {:.3}/{:.3} ({})",
                    s.foot, s.mean, s.max, s.contact_frames
                )
            })
            .collect();
        let (mean, max) = slide_summary(&slides);
        println!(
            "  {:8} all {mean:8.3}/{max:8.3}   {}",
            method.name(),
            cells.join("  ")
        );
        for s in &slides {
            assert!(s.mean.is_finite() && s.max.is_finite(), "{what}: {s:?}");
            assert!(
                s.contact_frames > 0,
                "{what} {}: {} never down",
                method.name(),
                s.foot
            );
        }
        means[m] = mean;
    }
    for (name, v) in [("walk", gw.speed()), ("run", gr.speed())] {
        let slides = loco.foot_slide(
            &loco.simulate(BlendMethod::Unified, &vec![v; speeds.len()], dt),
            dt,
        );
        let (mean, max) = slide_summary(&slides);
        println!("  {name:8} all {mean:8.3}/{max:8.3}   (the clip alone at its own speed)");
    }
    means
}

/// Largest distance between the feet of the walk at `t_w` and the run at `t_r` over the
/// frames of `method` on the ramp (the poses being blended), and the largest foot speed of
/// either clip (units per clip second).
fn pose_mismatch(loco: &Locomotion, method: BlendMethod) -> (f32, f32) {
    let [gw, gr] = loco.gaits();
    let dt = 1.0 / 60.0;
    let speeds = speed_ramp(gw.speed(), gr.speed(), 8.0, 60.0);
    let skeleton = loco.skeleton();
    let feet_at = |c: usize, t: f32| {
        let mut pose = skeleton.rest.clone();
        loco.clips()[c].sample(t, &mut pose);
        let w = skeleton.world_matrices(&pose);
        loco.feet()
            .iter()
            .map(|&f| w[f].w_axis.truncate())
            .collect::<Vec<_>>()
    };
    let mut worst = 0.0f32;
    for f in loco.simulate(method, &speeds, dt) {
        let (a, b) = (
            feet_at(WALK, f.clip_times[WALK]),
            feet_at(RUN, f.clip_times[RUN]),
        );
        for (p, q) in a.iter().zip(&b) {
            worst = worst.max((*p - *q).length());
        }
    }
    let mut fastest = 0.0f32;
    for c in [WALK, RUN] {
        let g = &loco.gaits()[c];
        let h = g.duration / 480.0;
        for k in 0..480 {
            let (a, b) = (feet_at(c, k as f32 * h), feet_at(c, (k + 1) as f32 * h));
            for (p, q) in a.iter().zip(&b) {
                fastest = fastest.max((*q - *p).length() / h);
            }
        }
    }
    (worst, fastest)
}

/// With a time-warped copy as the run, Events blends identical poses: the feet of the two
/// clips at the frame's clip times agree to within what the event times' detection error
/// allows (the touch-down is found by linear interpolation between 240 Hz samples; allow one
/// sample step of the fastest foot in either clip), far closer than under Unified.
fn check_events_keep_poses_in_step(loco: &Locomotion, what: &str) {
    let (events, fastest) = pose_mismatch(loco, BlendMethod::Events);
    let (unified, _) = pose_mismatch(loco, BlendMethod::Unified);
    let bound = fastest / 240.0;
    println!(
        "  {what}: feet apart under events {events:.4}, unified {unified:.4} (bound {bound:.4})"
    );
    assert!(
        events <= bound,
        "{what}: feet {events} apart under events (bound {bound})"
    );
    assert!(
        events < 0.1 * unified,
        "{what}: events {events} vs unified {unified}"
    );
}

/// The slides over `loco`'s walk and a time-warped copy of it as the run ([`warped_pair`]),
/// `[naive, unified, events]`, once [`slide_table`] has printed them, unified has slid less than
/// naive and [`check_events_keep_poses_in_step`] has passed.
fn warped_slides(loco: &Locomotion, walk: &str, what: &str) -> [f32; 3] {
    let warped = warped_pair(loco, 0.6, 0.3);
    let [naive, unified, events, _] = slide_table(&warped, &format!("{walk} / warped copy"));
    assert!(
        unified < naive,
        "warped {what}: unified {unified} ≥ naive {naive}"
    );
    check_events_keep_poses_in_step(&warped, what);
    [naive, unified, events]
}

#[test]
fn seed_blends_slide_less_than_naive() {
    // Biped walk and run with footfalls at the same fractions (the article's assumption):
    // one shared phase keeps them in step; the naive blend drifts in and out of phase.
    let biped = biped();
    let [naive, unified, events, locked] = slide_table(&biped, "biped walk/run");
    assert!(locked < naive, "biped: locked {locked} ≥ naive {naive}");
    assert!(unified < naive, "biped: unified {unified} ≥ naive {naive}");
    assert!(events < naive, "biped: events {events} ≥ naive {naive}");

    // Footfalls at different fractions (a time-warped copy as the run): only the per-segment
    // rates of step 4 keep the poses in step, so events < unified < naive, and events is
    // near zero (what is left is the event detection's sub-sample error).
    let [_, unified, events] = warped_slides(&biped, "biped walk", "biped");
    assert!(
        events < unified,
        "warped biped: events {events} ≥ unified {unified}"
    );

    let Some((_, fox)) = fox() else {
        return;
    };
    // The same on the Fox's own walk and a warped copy of it (real, hand-keyed data).
    // Events and Unified slide about equally here: Events keeps the poses in step, but its
    // per-segment rates also speed up and slow down each clip's own (hand-keyed) slide.
    let [naive, _, events] = warped_slides(&fox, "Fox Walk", "Fox");
    assert!(
        events < naive,
        "warped Fox: events {events} ≥ naive {naive}"
    );

    // The Fox's Walk and Run: its walk is a diagonal-sequence walk and its run a rotary gallop
    // (different four-foot orders and duty factors), which breaks the article's premise that
    // the clips' footfalls correspond (see the module docs): the article's methods are printed,
    // not ranked. Ours, with its feet locked by leg IK, must slide less than the
    // naive blend (the requirement), with either root motion.
    for root in RootMotion::ALL {
        let loco = fox.clone().with_root_motion(root);
        let [naive, _, _, locked] = slide_table(&loco, "Fox Walk/Run");
        assert!(
            locked < naive,
            "Fox {}: locked {locked} ≥ naive {naive}",
            root.name()
        );
        // Locked pins feet by the same contact rule the metric uses; under rules it does not see
        // (feet within 10 % or 30 % of their height range) it must still slide less.
        let fps = 60.0;
        let dt = 1.0 / fps;
        let [gw, gr] = loco.gaits();
        let speeds = speed_ramp(gw.speed(), gr.speed(), 8.0, fps);
        for fraction in [0.1, 0.3] {
            let rule = loco.contact_rule_at(fraction);
            let mean = |m: BlendMethod| {
                slide_summary(&loco.foot_slide_with(&loco.simulate(m, &speeds, dt), dt, &rule)).0
            };
            let (naive, locked) = (mean(BlendMethod::Naive), mean(BlendMethod::Locked));
            println!(
                "Fox {} with contact within {fraction} of the range: naive {naive:.1}, locked {locked:.1}",
                root.name()
            );
            assert!(
                locked < naive,
                "Fox {}, contact fraction {fraction}: locked {locked} ≥ naive {naive}",
                root.name()
            );
        }
    }
}

#[test]
fn fox_gait_facts() {
    let Some((_, fox)) = fox() else {
        return;
    };
    let [walk, run] = fox.gaits();
    // glTF's convention is +Y up and the asset's front facing +Z; the analysis finds both from
    // the feet alone (forward within 2° of +Z: the run drifts sideways a little).
    for g in [walk, run] {
        assert_eq!(g.up, Vec3::Y, "{}: up", g.clip);
        let angle = g.forward().angle_between(Vec3::Z).to_degrees();
        assert!(
            angle < 2.0,
            "{}: forward {} is {angle}° from +Z",
            g.clip,
            g.forward()
        );
        println!(
            "{}: {:.4} s, {:.2} units/s, stride {:.2}, footfalls {:?}",
            g.clip,
            g.duration,
            g.speed(),
            g.stride(),
            g.footfalls()
                .iter()
                .map(|f| (g.feet[f.foot].name.as_str(), f.time / g.duration))
                .collect::<Vec<_>>()
        );
    }
    assert!(walk.speed() < run.speed());
    // Each foot lands once per cycle in both clips; the hind pair are the events (the
    // four-foot order differs between the clips).
    for g in [walk, run] {
        for f in &g.feet {
            assert_eq!(f.contacts.len(), 1, "{} {}", g.clip, f.name);
        }
    }
    let order = |g: &Gait| g.footfalls().iter().map(|f| f.foot).collect::<Vec<_>>();
    let (ow, or) = (order(walk), order(run));
    let same_cyclic = (0..ow.len()).any(|r| (0..ow.len()).all(|k| ow[k] == or[(k + r) % ow.len()]));
    assert!(!same_cyclic, "four-foot orders {ow:?} and {or:?} agree");
    assert_eq!(fox.event_feet(), &[0, 1], "the hind feet are the events");
}

#[test]
fn errors_name_what_is_wrong() {
    let skeleton = biped_skeleton();
    let walk = biped_clip("walk", &BIPED_WALK);
    let s = GaitSettings::default();
    assert_eq!(
        Gait::analyse(&skeleton, &walk, &[], &s).unwrap_err(),
        LocomotionError::NoFeet
    );
    assert!(matches!(
        Gait::analyse(&skeleton, &walk, &[2, 9], &s),
        Err(LocomotionError::BadNode { node: 9, count: 4 })
    ));
    let empty = Clip {
        name: "empty".into(),
        duration: 0.0,
        channels: Vec::new(),
    };
    let e = Gait::analyse(&skeleton, &empty, &[2, 3], &s).unwrap_err();
    assert!(matches!(e, LocomotionError::NoDuration { .. }), "{e}");
    assert!(e.to_string().contains("empty"), "{e}");
    // The hip is not animated: as a "foot" it never lifts.
    let e = Gait::analyse(&skeleton, &walk, &[2, 1], &s).unwrap_err();
    assert!(
        matches!(e, LocomotionError::NeverLifts { ref foot, .. } if foot == "hip"),
        "{e}"
    );
    // Walk and run swapped: the "walk" is faster.
    let run = biped_clip("run", &BIPED_RUN);
    let e = Locomotion::new(&skeleton, &run, &walk, &[2, 3]).unwrap_err();
    assert!(matches!(e, LocomotionError::NotSlower { .. }), "{e}");
    let bad = GaitSettings {
        contact_fraction: 1.5,
        ..GaitSettings::default()
    };
    let e = Gait::analyse(&skeleton, &walk, &[2, 3], &bad).unwrap_err();
    assert!(e.to_string().contains("contact_fraction"), "{e}");

    if let Some((scene, _)) = fox() {
        let e = scene
            .locomotion("Walk", "Sprint", &["b_LeftHand_011"])
            .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("Sprint") && msg.contains("Fox.glb") && msg.contains("`Run`"),
            "{msg}"
        );
        let e = scene.locomotion("Walk", "Run", &["b_Paw"]).unwrap_err();
        assert!(e.to_string().contains("b_Paw"), "{e}");
        // Survey is not a locomotion cycle: its feet barely move back while down.
        let e = scene.locomotion("Survey", "Run", &FOX_FEET);
        println!("Survey as the walk: {e:?}");
    }
}

#[test]
fn speed_ramp_shape() {
    let (vw, vr) = (1.5f32, 4.0f32);
    let fps = 30.0;
    let v = speed_ramp(vw, vr, 8.0, fps);
    assert_eq!(v.len(), 240);
    // 0–1 s walk, 1–4 s up, 4–5 s run, 5–8 s down.
    assert!(v[..30].iter().all(|&x| x == vw));
    assert!(v[30..120].windows(2).all(|w| w[1] > w[0]));
    assert!(v[120..150].iter().all(|&x| x == vr));
    assert!(v[150..].windows(2).all(|w| w[1] < w[0]));
    assert!(
        (v[75] - (vw + 0.5 * (vr - vw))).abs() <= 4.0 * EPS * vr,
        "midway {}",
        v[75]
    );
}

#[test]
fn frames_are_well_formed() {
    // Unit rotations, finite placements and speeds, blend in [0, 1], for every method.
    let loco = biped();
    let [gw, gr] = loco.gaits();
    let speeds = speed_ramp(gw.speed(), gr.speed(), 4.0, 60.0);
    for method in BlendMethod::ALL {
        for f in loco.simulate(method, &speeds, 1.0 / 60.0) {
            assert!((0.0..=1.0).contains(&f.blend));
            assert!(f.placement.is_finite() && f.speed.is_finite());
            for t in &f.local {
                assert!((t.rotation.length() - 1.0).abs() <= 4.0 * EPS);
                assert!(
                    t.rotation.is_finite() && t.rotation != Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)
                );
            }
        }
    }
}

#[test]
fn event_feet_can_be_chosen() {
    let loco = biped();
    assert_eq!(loco.event_feet(), &[0, 1]);
    let one = loco
        .clone()
        .with_event_feet(&[1])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(one.event_feet(), &[1]);
    assert_eq!(one.events(ClipKind::Walk).len(), 1);
    let e = loco.with_event_feet(&[5]).unwrap_err();
    assert!(
        matches!(e, LocomotionError::EventFeetDisagree { .. }),
        "{e}"
    );
    if let Some((_, fox)) = fox() {
        // Hind feet and one fore foot: their three-foot orders differ between Walk and Run.
        let e = fox.with_event_feet(&[0, 1, 2]).unwrap_err();
        assert!(e.to_string().contains("cyclic order"), "{e}");
    }
}

#[test]
fn locked_moves_at_the_asked_speed() {
    let Some((_, fox)) = fox() else { return };
    let [gw, gr] = fox.gaits();
    let fps = 120.0f32;
    let dt = 1.0 / fps;
    for k in 0..=4 {
        let v = gw.speed() + (gr.speed() - gw.speed()) * k as f32 / 4.0;
        let b = fox.blend_for_speed(v);
        // Exactly whole shared cycles (rounded to frames), after one to settle: the root track
        // covers one blended stride per cycle.
        let cycle = 1.0 / ((1.0 - b) / gw.duration + b / gr.duration);
        let (settle, frames) = (
            (cycle * fps).round() as usize,
            (4.0 * cycle * fps).round() as usize,
        );
        let out = fox.simulate(BlendMethod::Locked, &vec![v; frames + 1], dt);
        let moved = (out[frames].placement.w_axis - out[settle].placement.w_axis).length();
        let seconds = (frames - settle) as f32 * dt;
        let net = moved / seconds;
        // Rounding the cycles to frames leaves up to half a frame at each end, at no more than
        // twice the run's mean speed (the root tracks' peaks): 2·v_r·dt / seconds.
        let tol = 2.0 * gr.speed() * dt / seconds;
        println!("asked {v:.1}: b {b:.3}, net {net:.1} (± {tol:.1})");
        assert!(
            (net - v).abs() <= tol,
            "asked {v}, moved at {net} (tolerance {tol})"
        );
    }
}

#[test]
fn names_parse_and_clip_kinds_index() {
    for m in BlendMethod::ALL {
        assert_eq!(m.name().parse::<BlendMethod>(), Ok(m));
        assert_eq!(m.to_string(), m.name());
    }
    // Display pads like a string, so tables can align names with `{:<8}`.
    assert_eq!(format!("[{:<8}]", BlendMethod::Locked), "[locked  ]");
    assert_eq!("LOCKED".parse::<BlendMethod>(), Ok(BlendMethod::Locked));
    let e = "fast".parse::<BlendMethod>().unwrap_err().to_string();
    assert!(
        e.contains("'fast'") && e.contains("naive, unified, events, locked"),
        "{e}"
    );
    for r in RootMotion::ALL {
        assert_eq!(r.name().parse::<RootMotion>(), Ok(r));
    }
    assert!("none".parse::<RootMotion>().is_err());
    assert_eq!(ClipKind::ALL.map(ClipKind::index), [0, 1]);
    assert_eq!(ClipKind::ALL.map(ClipKind::name), ["walk", "run"]);
}

#[test]
fn owned_player_matches_borrowed() {
    let loco = biped();
    let dt = 1.0 / 60.0;
    let speeds = speed_ramp(
        loco.gait(ClipKind::Walk).speed(),
        loco.gait(ClipKind::Run).speed(),
        2.0,
        60.0,
    );
    for method in BlendMethod::ALL {
        let mut borrowed = loco.player(method);
        let mut owned = loco.clone().into_player(method);
        assert_eq!(owned.method(), method);
        for (n, &v) in speeds.iter().enumerate() {
            let step = if n == 0 { 0.0 } else { dt };
            borrowed.advance(v, step);
            owned.advance(v, step);
            assert_eq!(
                borrowed.frame(),
                owned.frame(),
                "{} frame {n}",
                method.name()
            );
        }
        assert_eq!(owned.locomotion().feet(), loco.feet());
        assert_eq!(
            loco.root(ClipKind::Run, 0.1),
            owned.locomotion().root(ClipKind::Run, 0.1)
        );
    }
}
