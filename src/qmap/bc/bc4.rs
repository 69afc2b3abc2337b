//! Endpoint refinement of BC4 blocks (each half of a BC5 block). The kernels take a block's
//! smallest and largest value as its endpoints, so the eight palette entries span the whole
//! range, and pick each value's entry by its byte; where the values are not spread evenly
//! between the extremes (a curve in a block: a bump's slope across a coarse mip level) a pair of
//! endpoints inside or just outside the extremes fits them better. This pass first re-picks each
//! value's entry for the block's own endpoints by the value itself, then fits the endpoints by
//! least squares to the entries the values take (five rounds), then descends over pairs of whole
//! endpoints within ±6 of the fit — the 5×5 pairs around the best so far, each tried once, moving
//! to the best until none improves — and keeps the candidate with the smallest squared error — the
//! kernel's own block when nothing beats it, so a block is never made worse — among those that
//! keep every value within the kernel's bound (half a palette step of the block's range, plus
//! half a byte). Blocks spanning at most 7 bytes keep their endpoints: their palette already
//! steps by a byte or less. Measured on the bumpy swirl disc (512² textures), `render --mode
//! all`, 640×480: the tangent-space `bc5x2` map 44.94 → 46.61 dB (rgba16f 47.15); the BC5
//! encode of FlightHelmet's tangent-space maps at 2048² 0.73 → 2.8 s on two cores
//! (docs/MAPS.md). Widened from ±4 and three rounds when the normal maps' levels became
//! box-filtered (issue 41: sharper coarse levels), which took the disc's gap to rgba16f from 0.54
//! to 0.62 dB: now 46.15 against 46.75 dB (0.60, the goal's edge; ±4 gave 46.13, ±8 46.14), at
//! about 1.5× the encode time (FlightHelmet's 512² maps here: 208 → 320 ms on two cores). The
//! descent replaced trying all 169 pairs (issue 42): the disc 46.15 → 46.17 dB, the brushed lamp
//! 44.08 → 44.31, FlightHelmet's BC5 at 2048² 4.3 → 2.0 s (17 Mtexel/s; the kernel alone about
//! 220), its per-texel error 0.001° more on the mean.
//!
//! Everything is on the BC4 UNORM scale (bytes 0–255, palette interpolated in f32 as the D3D11
//! functional spec §19.5.3 defines it); the BC5 SNORM blocks the crate writes are UNORM blocks
//! whose endpoint bytes are flipped afterwards (`super`'s module docs), a linear map that keeps
//! every error as it is.

/// How far from the least-squares endpoints (whole steps) the search looks.
const SEARCH: i32 = 6;

/// The descent's reach: each round tries the (2·REACH + 1)² pairs around the best so far.
const REACH: i32 = 2;

/// Rows of the searched window (one bit per column).
const WINDOW: usize = 2 * SEARCH as usize + 1;

/// Blocks whose values span at most this many bytes are left as the kernel made them: with
/// eight entries a step apart or less, the byte rounding is the error, not the endpoints.
const SMALL_RANGE: f32 = 7.0;

/// Least-squares rounds: indices from the endpoints, then endpoints from the indices.
const FIT_ROUNDS: usize = 5;

/// The 8-value mode's palette position of the entry `k` steps from `e0` towards `e1`
/// (0 → index 0, 7 → index 1, 1…6 → indices 2…7).
fn index_of_step(k: usize) -> u64 {
    match k {
        0 => 0,
        7 => 1,
        k => k as u64 + 1,
    }
}

/// The 16 values a BC4 UNORM block (8 bytes) decodes to, on the 0–255 scale: the crate's one
/// BC decoder (`bcdec_rs`, the palette interpolated in f32).
fn decode(block: &[u8]) -> [f32; 16] {
    let mut texels = [0.0f32; 16];
    bcdec_rs::bc4_float(block, &mut texels, 4, false);
    texels.map(|v| v * 255.0)
}

/// The steps (0–7 from `e0` towards `e1`) of the entries nearest `target` in the 8-value mode
/// (`e0 > e1`).
fn steps(e0: f32, e1: f32, target: &[f32; 16]) -> [usize; 16] {
    let steps_per_unit = 7.0 / (e0 - e1);
    target.map(|t| nearest_step((e0 - t) * steps_per_unit) as usize)
}

/// The whole step nearest `s` steps, within 0–7: +½ and truncation (after the clamp, so ≥ 0;
/// a cast, which the baseline x86-64 target does in one instruction where `trunc` is a call).
fn nearest_step(s: f32) -> f32 {
    ((s.clamp(0.0, 7.0) + 0.5) as u8).into()
}

/// The squared error of the 8-value encoding with endpoints `e0 > e1`, or `None` when it reaches
/// `limit` or a value is off by more than `bound`. Branch-free over four lanes of four values,
/// so the compiler keeps it in SIMD registers: the descent calls it for every candidate.
fn error_within(e0: f32, e1: f32, target: &[f32; 16], limit: f32, bound: f32) -> Option<f32> {
    let (per_step, steps_per_unit) = ((e1 - e0) / 7.0, 7.0 / (e0 - e1));
    let mut sums = [0.0f32; 4];
    let mut worst = [0.0f32; 4];
    for row in 0..4 {
        for lane in 0..4 {
            let t = target[4 * row + lane];
            let k = nearest_step((e0 - t) * steps_per_unit);
            // Not `mul_add`: without FMA in the target it is a software call.
            let d = e0 + per_step * k - t;
            sums[lane] += d * d;
            worst[lane] = worst[lane].max(d.abs());
        }
    }
    let sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
    let worst = worst[0].max(worst[1]).max(worst[2].max(worst[3]));
    (sum < limit && worst <= bound).then_some(sum)
}

/// The endpoints minimising the squared error of `target` with each value at its `steps`
/// (`None` when the steps do not determine two endpoints: all equal).
fn least_squares(steps: &[usize; 16], target: &[f32; 16]) -> Option<(f32, f32)> {
    let (mut aa, mut ab, mut bb, mut at, mut bt) = (0.0f32, 0.0, 0.0, 0.0, 0.0);
    for (&s, &t) in steps.iter().zip(target) {
        let w = s as f32 / 7.0;
        let (a, b) = (1.0 - w, w);
        aa += a * a;
        ab += a * b;
        bb += b * b;
        at += a * t;
        bt += b * t;
    }
    let det = aa * bb - ab * ab;
    (det.abs() > 1e-6).then(|| ((at * bb - bt * ab) / det, (aa * bt - ab * at) / det))
}

/// Refines `block` (8 bytes of BC4 UNORM) towards `target` (its 16 values on the 0–255 scale)
/// as the module docs say: the result is never worse in squared error, and a block of new
/// endpoints keeps every value within `bound` of its target (the block's own endpoints with
/// better indices only lower each value's error).
pub(crate) fn refine(block: &mut [u8], target: &[f32; 16], bound: f32) {
    // A NaN would pass every comparison below; the caller maps NaN to 0 first.
    debug_assert!(target.iter().all(|t| t.is_finite()), "{target:?}");
    let original = decode(block);
    let mut best = original
        .iter()
        .zip(target)
        .map(|(d, t)| (d - t) * (d - t))
        .sum::<f32>();
    let mut chosen: Option<(u8, u8)> = None;
    // The block's own endpoints, each value at its nearest entry (the kernels pick by the
    // value's byte, which can be one entry off).
    if block[0] > block[1] {
        let (e0, e1) = (f32::from(block[0]), f32::from(block[1]));
        if let Some(sum) = error_within(e0, e1, target, best, f32::MAX) {
            best = sum;
            chosen = Some((block[0], block[1]));
        }
    }
    let (lo, hi) = target
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &t| (lo.min(t), hi.max(t)));
    if hi - lo <= SMALL_RANGE {
        return write(block, chosen, target); // a palette step of a byte at most: as good as any
    }
    let (mut e0, mut e1) = (hi, lo);
    for _ in 0..FIT_ROUNDS {
        let Some((a, b)) = least_squares(&steps(e0, e1, target), target) else {
            break;
        };
        (e0, e1) = (a.max(b), a.min(b));
        if e0 - e1 < 1.0 {
            return write(block, chosen, target);
        }
    }
    // Descent over whole endpoint pairs within ±SEARCH of the fit: the 5×5 pairs around the
    // best so far (each tried once), moving to the best of them until none improves.
    let (f0, f1) = (e0.round() as i32, e1.round() as i32);
    let mut seen = [0u32; WINDOW];
    let mut centre = (0i32, 0i32);
    loop {
        let mut moved = None;
        for d0 in centre.0 - REACH..=centre.0 + REACH {
            for d1 in centre.1 - REACH..=centre.1 + REACH {
                if d0.abs() > SEARCH || d1.abs() > SEARCH {
                    continue;
                }
                let (row, bit) = ((d0 + SEARCH) as usize, 1u32 << (d1 + SEARCH));
                if seen[row] & bit != 0 {
                    continue;
                }
                seen[row] |= bit;
                let (a, b) = ((f0 + d0).clamp(1, 255), (f1 + d1).clamp(1, 255));
                if a <= b {
                    continue;
                }
                if let Some(sum) = error_within(a as f32, b as f32, target, best, bound) {
                    best = sum;
                    chosen = Some((a as u8, b as u8));
                    moved = Some((d0, d1));
                }
            }
        }
        match moved {
            Some(next) if next != centre => centre = next,
            _ => break,
        }
    }
    write(block, chosen, target);
}

/// Writes the 8-value block with endpoints `chosen` and each value of `target` at its nearest
/// entry into `block`; leaves `block` as it is for `None`.
fn write(block: &mut [u8], chosen: Option<(u8, u8)>, target: &[f32; 16]) {
    if let Some((c0, c1)) = chosen {
        let bits = steps(f32::from(c0), f32::from(c1), target)
            .iter()
            .enumerate()
            .fold(0u64, |acc, (t, &k)| acc | index_of_step(k) << (3 * t));
        block[0] = c0;
        block[1] = c1;
        for (b, byte) in block[2..8].iter_mut().enumerate() {
            *byte = (bits >> (8 * b)) as u8;
        }
    }
}
