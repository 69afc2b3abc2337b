//! Timing for the benchmarks (`lab/src/bin/bench.rs`, `lab/src/bin/skin_bench.rs`): the median time of
//! one recorded dispatch, by timestamp queries where the adapter has them (else the host clock
//! around a synchronised submit; the batch decode's dispatch is handed to it by
//! `qtangent::lab::time_decode_dispatch`), and the bandwidth of a large buffer copy, the bound a
//! memory-bound kernel is compared with. Nothing here asserts a time.
#![allow(dead_code)] // each benchmark takes what it needs

use std::time::Instant;

use qtangent::gpu::{GpuContext, GpuError};

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
    // With `resolve`: timestamps 0 and 1 resolved into the first buffer, copied into the second.
    let submit = |resolve: Option<(&wgpu::QuerySet, &wgpu::Buffer, &wgpu::Buffer)>| {
        ctx.scoped("timing a dispatch", || {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            encode(&mut encoder, resolve.map(|(query_set, ..)| (query_set, 0)));
            if let Some((query_set, buffer, staging)) = resolve {
                encoder.resolve_query_set(query_set, 0..2, buffer, 0);
                encoder.copy_buffer_to_buffer(buffer, 0, staging, 0, 16);
            }
            ctx.queue.submit([encoder.finish()]);
        })
    };
    for _ in 0..3 {
        submit(None)?;
        ctx.wait()?;
    }
    let mut times = Vec::with_capacity(runs);
    if !has_timestamps(ctx) {
        for _ in 0..runs {
            let t = Instant::now();
            submit(None)?;
            ctx.wait()?;
            times.push(t.elapsed().as_secs_f64());
        }
        return Ok(median(times));
    }
    let (query_set, resolve, staging) = ctx.scoped("creating timestamp queries", || {
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
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("qtangent timestamps, mapped"),
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        (query_set, resolve, staging)
    })?;
    let period_ns = f64::from(ctx.queue.get_timestamp_period());
    for _ in 0..runs {
        submit(Some((&query_set, &resolve, &staging)))?;
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        ctx.wait()?;
        let raw = rx
            .recv()
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
            .and_then(|()| staging.get_mapped_range(..).map_err(|e| e.to_string()))
            .map_err(|message| GpuError::Readback {
                what: "timestamps".into(),
                message,
            })?;
        let t: Vec<u64> = bytemuck::pod_collect_to_vec(&raw);
        drop(raw);
        staging.unmap();
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
    if has_timestamps(ctx) {
        "timestamp queries (compute pass only)"
    } else {
        "host clock around submit + wait"
    }
}

/// Whether `ctx`'s device has timestamp queries, which [`median_dispatch_seconds`] times with.
fn has_timestamps(ctx: &GpuContext) -> bool {
    ctx.device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY)
}
