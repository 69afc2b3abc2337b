//! Timing for the benchmarks (`examples/bench.rs`, `examples/skin_bench.rs`): the median time of
//! one recorded dispatch, by timestamp queries where the adapter has them (else the host clock
//! around a synchronised submit), the batch decode's dispatch timed that way, and the bandwidth
//! of a large buffer copy, the bound a memory-bound kernel is compared with. Nothing here asserts
//! a time.

use std::time::Instant;

use crate::gpu::{DecodePipeline, GpuContext, GpuError};
use crate::Format;

/// Records one dispatch, with timestamps at its pass's start and end (query indices `first`,
/// `first + 1`) when given: what every stage's `encode` method takes.
pub type Encode<'a> = dyn Fn(&mut wgpu::CommandEncoder, Option<(&wgpu::QuerySet, u32)>) + 'a;

/// The median of `v` (the upper one of an even count); NaN for an empty `v`.
#[must_use]
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median seconds of one dispatch recorded by `encode`, over `runs` runs after 3 warm-ups:
/// the pass's timestamps where the adapter has them ([`clock`]), else the host clock around a
/// submit and wait.
///
/// # Errors
/// wgpu and readback errors.
pub fn median_dispatch_seconds(
    ctx: &GpuContext,
    runs: usize,
    encode: &Encode<'_>,
) -> Result<f64, GpuError> {
    // With `resolve`: timestamps 0 and 1 around the pass, resolved into the buffer.
    let submit = |resolve: Option<(&wgpu::QuerySet, &wgpu::Buffer)>| {
        ctx.scoped("timing a dispatch", || {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            encode(&mut encoder, resolve.map(|(query_set, _)| (query_set, 0)));
            if let Some((query_set, buffer)) = resolve {
                encoder.resolve_query_set(query_set, 0..2, buffer, 0);
            }
            ctx.queue.submit([encoder.finish()]);
        })
    };
    for _ in 0..3 {
        submit(None)?;
        ctx.wait()?;
    }
    let mut times = Vec::with_capacity(runs);
    if !ctx.has_timestamps() {
        for _ in 0..runs {
            let t = Instant::now();
            submit(None)?;
            ctx.wait()?;
            times.push(t.elapsed().as_secs_f64());
        }
        return Ok(median(times));
    }
    let (query_set, resolve) = ctx.scoped("creating timestamp queries", || {
        let query_set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("qtangent timing"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("qtangent timestamps"),
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        (query_set, resolve)
    })?;
    let period_ns = f64::from(ctx.queue.get_timestamp_period());
    for _ in 0..runs {
        submit(Some((&query_set, &resolve)))?;
        let raw = ctx.read_buffer(&resolve, 16, "timestamps")?;
        let t: Vec<u64> = bytemuck::pod_collect_to_vec(&raw);
        times.push(t[1].wrapping_sub(t[0]) as f64 * period_ns * 1e-9);
    }
    Ok(median(times))
}

/// GB/s of a large buffer→buffer copy (bytes read + bytes written), host-timed around a
/// synchronised submit of 8 copies (median of `runs` after 2 warm-ups); and the buffer size
/// (256 MiB, or half the device's largest buffer). The source holds a hash of the index, not
/// zeros.
///
/// # Errors
/// wgpu errors.
pub fn copy_bandwidth(ctx: &GpuContext, runs: usize) -> Result<(f64, u64), GpuError> {
    let size = (256u64 << 20).min(ctx.device.limits().max_buffer_size / 2) & !255;
    let (src, dst) = ctx.scoped("creating copy buffers", || {
        let make = |usage| {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("qtangent copy"),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        (
            make(wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST),
            make(wgpu::BufferUsages::COPY_DST),
        )
    })?;
    let pattern: Vec<u32> = (0..(size / 4) as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    ctx.queue
        .write_buffer(&src, 0, bytemuck::cast_slice(&pattern));
    const COPIES: u32 = 8;
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs + 2 {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..COPIES {
            encoder.copy_buffer_to_buffer(&src, 0, &dst, 0, size);
        }
        let t = Instant::now();
        ctx.scoped("copying", || ctx.queue.submit([encoder.finish()]))?;
        ctx.wait()?;
        if run >= 2 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    let s = median(times);
    Ok((2.0 * size as f64 * f64::from(COPIES) / s / 1e9, size))
}

/// What [`median_dispatch_seconds`] times with on `ctx`: the pass's timestamp queries, or the
/// host clock around a submit and wait.
#[must_use]
pub fn clock(ctx: &GpuContext) -> &'static str {
    if ctx.has_timestamps() {
        "timestamp queries (compute pass only)"
    } else {
        "host clock around submit + wait"
    }
}

/// The batch decode's dispatch timed: `count` frames packed by [`Format::pack`] in `format`,
/// uploaded and bound once, then the median seconds of one dispatch over `runs` runs
/// ([`median_dispatch_seconds`]), with the bytes it moves (packed input + decoded output).
///
/// # Errors
/// As `DecodePipeline::decode`, plus timing readback errors.
pub fn decode_dispatch_seconds(
    ctx: &GpuContext,
    pipeline: &DecodePipeline,
    format: Format,
    packed: &[u32],
    count: usize,
    runs: usize,
) -> Result<(f64, u64), GpuError> {
    let batch = pipeline.prepare(ctx, format, packed, count)?;
    let seconds = median_dispatch_seconds(ctx, runs, &|e, ts| batch.encode(e, ts))?;
    Ok((seconds, batch.input_bytes() + batch.output_bytes()))
}
