//! Quaternion maps on the GPU (`shaders/qmap.wgsl`): upload of a baked [`QuatMap`] with every
//! mip level, and the compute pipeline that samples it at given (uv, lod) points through the
//! lighting shaders' `qmap_frame_level`, so tests can compare hardware filtering with the CPU.
//!
//! Textures: the quaternions in [`texture_format`] of the map's [`MapFormat`] (the stored texel
//! values exactly, [`MapFormat::texel_bytes`]), the handedness plane in [`HANDEDNESS_FORMAT`]
//! (±1 as ±127, background 0), both with the map's full mip chain.

use glam::Vec2;

use super::kit::{self, Access};
use super::wgsl::Stage;
use super::{GpuContext, GpuError, StageNeeds};
use crate::qmap::stored::EncodedMap;
#[cfg(feature = "render")]
use crate::qmap::stored::Encoding;
use crate::qmap::{MapDecode, MapFormat};
#[cfg(feature = "render")]
use crate::qmap::{MapSpace, QuatMap};
use crate::report::{Listener, Warning, WarningKind};
use crate::TangentFrame;

/// The texture format of the handedness plane: one signed normalised byte, filterable on every
/// adapter; ±1 is stored as ±127 (exactly ±1.0 when read), background as 0.
pub(crate) const HANDEDNESS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R8Snorm;

/// The wgpu texture format holding a map's RGBA: the same bytes as [`MapFormat::texel_bytes`].
#[must_use]
pub(crate) fn texture_format(format: MapFormat) -> wgpu::TextureFormat {
    match format {
        MapFormat::Rgba16Float => wgpu::TextureFormat::Rgba16Float,
        MapFormat::Rgba16Snorm => wgpu::TextureFormat::Rgba16Snorm,
        MapFormat::Rgba8Snorm => wgpu::TextureFormat::Rgba8Snorm,
        MapFormat::Rgba32Float => wgpu::TextureFormat::Rgba32Float,
        MapFormat::Bc5 | MapFormat::Bc5Pair => wgpu::TextureFormat::Bc5RgSnorm,
        MapFormat::Bc7 => wgpu::TextureFormat::Bc7RgbaUnorm,
    }
}

/// The device features a map of `format` needs to be created and sampled with filtering:
/// `Rgba16Snorm` exists only with `TEXTURE_FORMAT_16BIT_NORM` (which makes it filterable);
/// `Rgba32Float` always exists but filters only with `FLOAT32_FILTERABLE`. `Rgba16Float` and
/// `Rgba8Snorm` (and the handedness plane's `R8Snorm`) are filterable everywhere.
#[must_use]
pub(crate) fn required_features(format: MapFormat) -> wgpu::Features {
    match format {
        MapFormat::Rgba16Float | MapFormat::Rgba8Snorm => wgpu::Features::empty(),
        MapFormat::Rgba16Snorm => wgpu::Features::TEXTURE_FORMAT_16BIT_NORM,
        MapFormat::Rgba32Float => wgpu::Features::FLOAT32_FILTERABLE,
        MapFormat::Bc5 | MapFormat::Bc7 | MapFormat::Bc5Pair => {
            wgpu::Features::TEXTURE_COMPRESSION_BC
        }
    }
}

/// Fails unless the device has [`required_features`] for `format`.
///
/// # Errors
/// [`GpuError::Invalid`] naming the format, the missing feature and whether the adapter has it
/// (then only the device was created without it).
pub(crate) fn check_filterable(ctx: &GpuContext, format: MapFormat) -> Result<(), GpuError> {
    let needed = required_features(format);
    let missing = needed - ctx.device.features();
    if missing.is_empty() {
        return Ok(());
    }
    let adapter_has = ctx.adapter.features().contains(missing);
    Err(GpuError::MissingFeature {
        stage: "filtering this quaternion-map format",
        feature: format!("{missing:?} (for {format})"),
        adapter_note: if adapter_has {
            " (the adapter has it: request it when creating the device)"
        } else {
            " (the adapter does not offer it: rgba16f and snorm8 filter everywhere)"
        },
    })
}

/// A quaternion map on the GPU: two textures with the map's mip chain, and views of all levels.
pub struct GpuQuatMap {
    /// The quaternions, `texture_format` of `format`; held so the texture lives as long as the
    /// map (shaders read it through `quats_view`).
    #[allow(dead_code)]
    pub(crate) quats: wgpu::Texture,
    /// The second texture: the handedness plane (`HANDEDNESS_FORMAT`), or of a two-layer BC5
    /// map ([`MapFormat::Bc5Pair`]) its layer 1, (z, w).
    /// Held, like `quats`, for as long as the map lives.
    #[allow(dead_code)]
    pub(crate) handedness: wgpu::Texture,
    /// A view of every level of `quats`.
    pub(crate) quats_view: wgpu::TextureView,
    /// A view of every level of `handedness`.
    pub(crate) handedness_view: wgpu::TextureView,
    /// How the texels are stored (rgba16f for a block-compressed map decoded at upload on a
    /// device without BC sampling).
    pub(crate) format: MapFormat,
    /// How a shader decodes a sample ([`EncodedMap::decode`]).
    pub(crate) decode: MapDecode,
    /// A tangent-space map whose twist is stored doubled
    /// ([`crate::qmap::stored::EncodedMap::axial_twist`]): shaders halve it.
    #[cfg_attr(not(feature = "render"), allow(dead_code))] // read by the renderer's pipeline
    pub(crate) axial_twist: bool,
    /// Whether `handedness` holds the map's own plane (false: a 1×1 +1 stand-in; the handedness
    /// is derived or comes from the vertex).
    #[cfg_attr(not(feature = "render"), allow(dead_code))] // read by the renderer's pipeline
    pub(crate) plane: bool,
}

impl GpuQuatMap {
    /// Bind-group entries 0, 1, 2: the quaternion view, the handedness view and `sampler` —
    /// the order `qmap.wgsl`'s sampling entry and `lit.wgsl` both declare.
    #[must_use]
    pub fn entries<'a>(&'a self, sampler: &'a wgpu::Sampler) -> [wgpu::BindGroupEntry<'a>; 3] {
        [
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&self.quats_view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&self.handedness_view),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(sampler),
            },
        ]
    }
}

/// Checks what [`upload`] relies on: at least one level, level k of size
/// `max(1, width >> k) × max(1, height >> k)` (wgpu's mip sizes), planes of that many texels.
#[cfg(feature = "render")]
fn check_levels(map: &QuatMap) -> Result<(), GpuError> {
    let Some(first) = map.levels.first() else {
        return Err(GpuError::Empty {
            what: "the quaternion map's levels",
        });
    };
    let (w, h) = (first.width, first.height);
    if w == 0 || h == 0 {
        return Err(GpuError::Invalid {
            what: format!("a {w}×{h} quaternion map"),
            reason: "a side of 0 texels",
        });
    }
    let max_levels = 32 - w.max(h).leading_zeros();
    if map.levels.len() > max_levels as usize {
        return Err(GpuError::Count {
            what: format!("levels of a {w}×{h} quaternion map (at most)"),
            found: map.levels.len() as u64,
            expected: u64::from(max_levels),
        });
    }
    for (k, level) in map.levels.iter().enumerate() {
        let want = ((w >> k).max(1), (h >> k).max(1));
        let texels = level.width as usize * level.height as usize;
        if (level.width, level.height) != want
            || level.quats.len() != texels
            || level.handedness.len() != texels
        {
            return Err(GpuError::Invalid {
                what: format!(
                    "level {k} of a {w}×{h} quaternion map ({}×{}, {} quaternions, {} \
                     handedness values)",
                    level.width,
                    level.height,
                    level.quats.len(),
                    level.handedness.len()
                ),
                reason: "not the size of that level, or not a value a texel",
            });
        }
    }
    Ok(())
}

/// Uploads `map`: the quaternion texture (`texture_format`, every level's stored texel bytes)
/// and the handedness plane (`HANDEDNESS_FORMAT`: sign × 127, 0 for background), each with
/// all of the map's levels. Usage `TEXTURE_BINDING | COPY_DST | COPY_SRC`.
///
/// # Errors
/// [`GpuError::TextureTooLarge`] when a side exceeds `max_texture_dimension_2d`;
/// [`GpuError::Invalid`] for inconsistent levels or a format the device cannot filter
/// (`check_filterable`); [`GpuError::Wgpu`].
#[cfg(feature = "render")]
pub(crate) fn upload_map(ctx: &GpuContext, map: &QuatMap) -> Result<GpuQuatMap, GpuError> {
    check_levels(map)?;
    let (width, height) = (map.width(), map.height());
    let limit = ctx.device.limits().max_texture_dimension_2d;
    if width > limit || height > limit {
        return Err(GpuError::TextureTooLarge {
            what: format!("the {} quaternion map", map.format),
            width,
            height,
            limit,
        });
    }
    check_filterable(ctx, map.format)?;
    // The stored texel bytes of its own format and its plane: one upload path for every map.
    let encoding = Encoding {
        keep_handedness: true,
        ..Encoding::new(MapSpace::Object, map.format)
    };
    let stored = EncodedMap::encode(map, &encoding)?;
    upload_encoded(ctx, &stored, &mut ())
}

/// Uploads a stored map ([`EncodedMap`]): its texel bytes as they are, every level, and its
/// handedness plane (or a 1×1 +1 stand-in when it has none). Block-compressed maps are sampled
/// directly where the device has `TEXTURE_COMPRESSION_BC`; elsewhere they are decoded here to
/// rgba16f and `listener` warned.
///
/// # Errors
/// [`GpuError::TextureTooLarge`] beyond `max_texture_dimension_2d`; [`GpuError::Count`] for a
/// map whose levels do not match its size, [`GpuError::MissingFeature`] for a plain format the
/// device cannot filter; [`GpuError::Wgpu`].
pub fn upload_encoded(
    ctx: &GpuContext,
    map: &EncodedMap,
    listener: &mut dyn Listener,
) -> Result<GpuQuatMap, GpuError> {
    let (width, height) = (map.width, map.height);
    let limit = ctx.device.limits().max_texture_dimension_2d;
    if width > limit || height > limit || width == 0 || height == 0 {
        return Err(GpuError::TextureTooLarge {
            what: format!("the {} quaternion map", map.format),
            width,
            height,
            limit,
        });
    }
    let decoded;
    let map = if map.format.is_compressed()
        && !ctx
            .device
            .features()
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
    {
        listener.warning(Warning::new(
            &ctx.info.name,
            WarningKind::BcDecodedAtUpload {
                format: map.format.name(),
            },
        ));
        decoded = map.to_plain(MapFormat::Rgba16Float)?;
        &decoded
    } else {
        map
    };
    if !map.format.is_compressed() {
        check_filterable(ctx, map.format)?;
    }
    check_stored_levels(map)?;
    let mip_level_count = map.levels.len() as u32;
    let plane = map.handedness.is_some();
    let layers = map.format.ktx2_layers().max(1) as usize;
    // Layer 0 of every level: the quaternion texture; layer 1 of a two-layer map takes the
    // handedness plane's place (a tangent-space map has none).
    let layer = |i: usize| -> Vec<u8> {
        map.levels
            .iter()
            .flat_map(|l| l.chunks_exact(l.len() / layers).nth(i).unwrap_or_default())
            .copied()
            .collect()
    };
    let (hand_format, hand_size, hand_bytes) = match &map.handedness {
        _ if layers == 2 => (
            texture_format(map.format),
            (width, height, mip_level_count),
            layer(1),
        ),
        Some(p) => (
            HANDEDNESS_FORMAT,
            (width, height, mip_level_count),
            p.concat(),
        ),
        None => (HANDEDNESS_FORMAT, (1, 1, 1), vec![127u8]),
    };
    ctx.scoped("uploading a quaternion map", || {
        let (device, queue) = (&ctx.device, &ctx.queue);
        // BC5's normal layout is UNORM (`EncodedMap::texel_format`); the shader's
        // MAP_DECODE_BC5_NORMAL reads it as n·½ + ½.
        let tf = match map.texel_format() {
            crate::ktx2::TexelFormat::Bc5Unorm => wgpu::TextureFormat::Bc5RgUnorm,
            _ => texture_format(map.format),
        };
        let size = (width, height, mip_level_count);
        let quats = kit::texture(device, queue, "qmap quaternions", tf, size, &layer(0));
        let handedness = kit::texture(
            device,
            queue,
            "qmap handedness",
            hand_format,
            hand_size,
            &hand_bytes,
        );
        GpuQuatMap {
            quats_view: quats.create_view(&Default::default()),
            handedness_view: handedness.create_view(&Default::default()),
            quats,
            handedness,
            format: map.format,
            decode: map.decode(),
            axial_twist: map.axial_twist,
            plane,
        }
    })
}

/// Checks what [`upload_encoded`] relies on: 1 to a full chain of levels, each of the bytes its
/// size takes in the map's format, and a handedness plane (when kept) of one byte a texel.
fn check_stored_levels(map: &EncodedMap) -> Result<(), GpuError> {
    let (width, height) = (map.width, map.height);
    let max_levels = 32 - width.max(height).leading_zeros();
    if map.levels.is_empty() || map.levels.len() > max_levels as usize {
        return Err(GpuError::Count {
            what: format!("levels of a {width}×{height} quaternion map (1 to)"),
            found: map.levels.len() as u64,
            expected: u64::from(max_levels),
        });
    }
    let tf = texture_format(map.format);
    let (bw, bh) = tf.block_dimensions();
    let block = u64::from(tf.block_copy_size(None).unwrap_or(0))
        * u64::from(map.format.ktx2_layers().max(1));
    let mut texels = 0;
    for (k, l) in map.levels.iter().enumerate() {
        let (w, h) = map.level_size(k);
        texels += u64::from(w) * u64::from(h);
        let want = u64::from(w.div_ceil(bw) * h.div_ceil(bh)) * block;
        if l.len() as u64 != want {
            return Err(GpuError::Count {
                what: format!(
                    "bytes of level {k} of a {width}×{height} {} map",
                    map.format
                ),
                found: l.len() as u64,
                expected: want,
            });
        }
    }
    let plane: u64 = map
        .handedness
        .iter()
        .flatten()
        .map(|p| p.len() as u64)
        .sum();
    if map.handedness.is_some() && plane != texels {
        return Err(GpuError::Count {
            what: "bytes of the handedness plane".into(),
            found: plane,
            expected: texels,
        });
    }
    Ok(())
}

/// The clamped sampler of the sampling stage: `filter` within a level and between levels.
fn sampler(device: &wgpu::Device, filter: wgpu::FilterMode) -> wgpu::Sampler {
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("qmap"),
        address_mode_u: wgpu::AddressMode::ClampToEdge,
        address_mode_v: wgpu::AddressMode::ClampToEdge,
        address_mode_w: wgpu::AddressMode::ClampToEdge,
        mag_filter: filter,
        min_filter: filter,
        mipmap_filter: if filter == wgpu::FilterMode::Linear {
            wgpu::MipmapFilterMode::Linear
        } else {
            wgpu::MipmapFilterMode::Nearest
        },
        ..Default::default()
    })
}

/// One sample as `qmap_sample` in `shaders/qmap_sample.wgsl` writes it: four `vec4<f32>`, 64 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SampledFrame {
    /// Unit normal decoded by `qmap_frame_level`.
    pub(crate) normal: [f32; 3],
    /// ±1: the sign of `filtered_handedness` (0 counts as +1).
    pub(crate) handedness: f32,
    /// Unit tangent.
    pub(crate) tangent: [f32; 3],
    /// The handedness plane as the sampler filtered it, in [−1, 1].
    pub(crate) filtered_handedness: f32,
    /// Unit bitangent, `cross(n, t) · handedness`.
    pub(crate) bitangent: [f32; 3],
    /// Written as 0.
    pub(crate) pad: f32,
    /// The quaternion as the sampler filtered it, before normalisation (x, y, z, w).
    pub(crate) filtered: [f32; 4],
}

const _: () = assert!(std::mem::size_of::<SampledFrame>() == 64);

impl SampledFrame {
    /// The decoded frame's three vectors.
    #[must_use]
    pub fn to_frame(&self) -> TangentFrame {
        TangentFrame::from_arrays(self.normal, self.tangent, self.bitangent)
    }

    /// The filtered quaternion before normalisation.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn filtered_quat(&self) -> glam::Vec4 {
        glam::Vec4::from_array(self.filtered)
    }
}

/// `@workgroup_size` of `qmap_sample`.
const WORKGROUP: u32 = 64;

/// What sampling a map in a compute pass needs of a device: compute shaders; two sampled
/// textures and two storage buffers in one bind group (`shaders/qmap.wgsl`). A map format's own
/// feature is checked by [`check_filterable`].
pub(crate) const SAMPLE_NEEDS: StageNeeds = StageNeeds {
    compute: true,
    storage_buffers_per_shader_stage: 2,
    sampled_textures_per_shader_stage: 2,
    bind_groups: 1,
    ..StageNeeds::none("quaternion-map sampling")
};

/// How [`sample_frames`] filters a map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapFilter {
    /// The texel whose area holds the point, at the nearest level.
    Nearest,
    /// Bilinear within a level, trilinear across: the hardware filter alone.
    Linear,
    /// [`MapFilter::Linear`] through the seam-robust sampler (`qmap_robust` in
    /// `shaders/qmap.wgsl`), which takes the nearest texel's frame where the footprint straddles
    /// a seam of opposite handedness or hemisphere.
    LinearRobust,
}

/// The pipeline constant selecting how qtangent's WGSL decodes a map sample:
/// `("MAP_DECODE", code)` for [`EncodedMap::decode`] (`qmap_quat` and `qmap_frame` in
/// [`crate::Wgsl::Qmap`] read it).
#[must_use]
pub fn map_decode_constant(decode: MapDecode) -> (&'static str, f64) {
    ("MAP_DECODE", f64::from(decode.code()))
}

/// Samples `map` at each `(uv, lod)` through `qmap_frame_level` in a compute shader and reads
/// the results back, one [`SampledFrame`] per point, in order.
///
/// The sampler clamps to the edge in u and v and filters as `filter` says, within and between
/// mip levels. The lod is clamped to the map's levels. The output is poisoned with NaN before
/// the dispatch, so a point the shader skipped reads NaN.
///
/// # Errors
/// [`GpuError::Empty`] for no points, [`GpuError::Invalid`] (filtering) for a format the device
/// cannot filter;
/// [`GpuError::TooLarge`] beyond the device's buffer or dispatch limits; [`GpuError::Wgpu`],
/// [`GpuError::Readback`].
pub fn sample_frames(
    ctx: &GpuContext,
    map: &GpuQuatMap,
    points: &[(Vec2, f32)],
    filter: MapFilter,
) -> Result<Vec<SampledFrame>, GpuError> {
    let robust = filter == MapFilter::LinearRobust;
    let filter = if filter == MapFilter::Nearest {
        wgpu::FilterMode::Nearest
    } else {
        wgpu::FilterMode::Linear
    };
    ctx.check(&SAMPLE_NEEDS)?;
    if points.is_empty() {
        return Err(GpuError::Empty {
            what: "the points to sample",
        });
    }
    let filtering = filter == wgpu::FilterMode::Linear;
    if filtering && !map.format.is_compressed() {
        check_filterable(ctx, map.format)?;
    }
    let count = points.len() as u64;
    let input_bytes = count * 16;
    let output_bytes = count * std::mem::size_of::<SampledFrame>() as u64;
    ctx.check_storage_size("the sample points (16 B each)", input_bytes)?;
    ctx.check_storage_size("the sampled frames (64 B each)", output_bytes)?;
    let [gx, gy] = ctx.dispatch_grid(
        count,
        WORKGROUP,
        &format!("a dispatch of {count} sample points"),
    )?;
    let packed: Vec<[f32; 4]> = points
        .iter()
        .map(|&(uv, lod)| [uv.x, uv.y, lod, 0.0])
        .collect();
    let output = ctx.scoped("sampling a quaternion map", || {
        let device = &ctx.device;
        let compute = wgpu::ShaderStages::COMPUTE;
        let (layout, pipeline_layout) = kit::layouts(
            device,
            "qmap sample",
            &[
                kit::texture_entry(0, compute, filtering),
                kit::texture_entry(1, compute, filtering),
                kit::sampler_entry(2, compute, filtering),
                kit::storage_entry(3, compute, Access::Read),
                kit::storage_entry(4, compute, Access::ReadWrite),
            ],
        );
        let constants = [
            map_decode_constant(map.decode),
            ("QMAP_ROBUST", f64::from(u8::from(robust))),
        ];
        let module = Stage::Qmap.module(device);
        let pipeline =
            kit::compute_pipeline(device, &pipeline_layout, &module, "qmap_sample", &constants);
        let sampler = sampler(device, filter);
        let input = kit::buffer(
            device,
            "qmap sample points",
            bytemuck::cast_slice(&packed),
            wgpu::BufferUsages::STORAGE,
        );
        let output = kit::poisoned_output(device, &ctx.queue, "qmap sampled frames", output_bytes);
        let bind_group = kit::bind_group(
            device,
            "qmap sample",
            &layout,
            &[
                wgpu::BindingResource::TextureView(&map.quats_view),
                wgpu::BindingResource::TextureView(&map.handedness_view),
                wgpu::BindingResource::Sampler(&sampler),
                input.as_entire_binding(),
                output.as_entire_binding(),
            ],
        );
        kit::submit_dispatch(
            device,
            &ctx.queue,
            "qmap sample",
            &pipeline,
            &bind_group,
            [gx, gy],
        );
        output
    })?;
    ctx.wait()?;
    let bytes = ctx.read_buffer(&output, output_bytes, "sampled quaternion-map frames")?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}
