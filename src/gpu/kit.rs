//! The wgpu plumbing every stage repeats, written once: bind-group layout entries, bind groups
//! numbered in order, compute pipelines with overrides, sampled textures with every mip level,
//! and poisoned output buffers.

use wgpu::util::DeviceExt;

/// A uniform buffer at `binding`, seen by `stages`.
pub(crate) fn uniform_entry(
    binding: u32,
    stages: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(binding, stages, wgpu::BufferBindingType::Uniform)
}

/// A storage buffer at `binding`, seen by `stages`.
pub(crate) fn storage_entry(
    binding: u32,
    stages: wgpu::ShaderStages,
    access: Access,
) -> wgpu::BindGroupLayoutEntry {
    let read_only = access == Access::Read;
    buffer_entry(
        binding,
        stages,
        wgpu::BufferBindingType::Storage { read_only },
    )
}

/// How a shader uses a storage buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    ReadWrite,
}

fn buffer_entry(
    binding: u32,
    stages: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: stages,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A 2D float texture at `binding`, seen by `stages`.
pub(crate) fn texture_entry(
    binding: u32,
    stages: wgpu::ShaderStages,
    filterable: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: stages,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

/// A sampler at `binding`, seen by `stages`.
pub(crate) fn sampler_entry(
    binding: u32,
    stages: wgpu::ShaderStages,
    filtering: bool,
) -> wgpu::BindGroupLayoutEntry {
    let ty = if filtering {
        wgpu::SamplerBindingType::Filtering
    } else {
        wgpu::SamplerBindingType::NonFiltering
    };
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: stages,
        ty: wgpu::BindingType::Sampler(ty),
        count: None,
    }
}

/// A bind group of `resources` at bindings 0, 1, 2, … in order.
pub(crate) fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: &[wgpu::BindingResource<'_>],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = resources
        .iter()
        .enumerate()
        .map(|(k, r)| wgpu::BindGroupEntry {
            binding: k as u32,
            resource: r.clone(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// A bind-group layout and the pipeline layout of that one group.
pub(crate) fn layouts(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    });
    let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(&group)],
        immediate_size: 0,
    });
    (group, pipeline)
}

/// A compute pipeline of `entry` in `module` with the pipeline-overridable `constants`.
pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    })
}

/// A storage buffer of `size` bytes a stage writes and the host reads back, filled with all-ones
/// words (NaN as f32, no valid code of any format) so anything the stage does not write fails
/// every comparison.
pub(crate) fn poisoned_output(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    size: u64,
) -> wgpu::Buffer {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    poison(queue, &buffer);
    buffer
}

/// Fills `buffer` with all-ones words again (NaN as f32), as [`poisoned_output`] made it.
pub(crate) fn poison(queue: &wgpu::Queue, buffer: &wgpu::Buffer) {
    queue.write_buffer(buffer, 0, &vec![0xffu8; buffer.size() as usize]);
}

/// A buffer holding `contents` with `usage`.
pub(crate) fn buffer(
    device: &wgpu::Device,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage,
    })
}

/// A sampled 2D texture of `format` and `size`, its `levels` mip levels given one after another
/// in `bytes` (usage `TEXTURE_BINDING | COPY_DST | COPY_SRC`).
pub(crate) fn texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    format: wgpu::TextureFormat,
    (width, height, levels): (u32, u32, u32),
    bytes: &[u8],
) -> wgpu::Texture {
    device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::MipMajor,
        bytes,
    )
}

/// Records one compute pass that dispatches `pipeline` with `bind_group` at group 0 over
/// `groups` (x, y), with timestamps at the pass's start and end (query indices `first`,
/// `first + 1`) when given: what every compute stage's `encode` does.
pub(crate) fn record_dispatch(
    encoder: &mut wgpu::CommandEncoder,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    groups: [u32; 2],
    timestamps: Option<(&wgpu::QuerySet, u32)>,
) {
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: timestamps.map(|(query_set, first)| wgpu::ComputePassTimestampWrites {
            query_set,
            beginning_of_pass_write_index: Some(first),
            end_of_pass_write_index: Some(first + 1),
        }),
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(groups[0], groups[1], 1);
}

/// Records one dispatch of `pipeline` over `groups` workgroups with `bind_group` at group 0 and
/// submits it (no timestamps).
pub(crate) fn submit_dispatch(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    groups: [u32; 2],
) {
    let mut encoder = device.create_command_encoder(&Default::default());
    record_dispatch(&mut encoder, label, pipeline, bind_group, groups, None);
    queue.submit([encoder.finish()]);
}

/// Pipelines made on first use and kept, by key. A poisoned lock only loses the cache: the
/// pipeline is made again.
pub(crate) struct PipelineCache<K, P>(std::sync::Mutex<std::collections::HashMap<K, P>>);

impl<K: std::hash::Hash + Eq, P: Clone> PipelineCache<K, P> {
    pub(crate) fn new() -> Self {
        Self(std::sync::Mutex::new(std::collections::HashMap::new()))
    }

    /// The pipeline for `key`, made by `make` the first time.
    pub(crate) fn get_or_make<E>(
        &self,
        key: K,
        make: impl FnOnce() -> Result<P, E>,
    ) -> Result<P, E> {
        if let Some(p) = self.0.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(p);
        }
        let pipeline = make()?;
        if let Ok(mut m) = self.0.lock() {
            m.insert(key, pipeline.clone());
        }
        Ok(pipeline)
    }
}

/// A single-level 2D texture of `format` and `size` that a pass renders into and the host
/// copies out (`RENDER_ATTACHMENT | COPY_SRC`, plus `extra` usages).
pub(crate) fn render_target(
    device: &wgpu::Device,
    label: &str,
    format: wgpu::TextureFormat,
    (width, height): (u32, u32),
    extra: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC | extra,
        view_formats: &[],
    })
}

/// Records a copy of `texture`'s level 0 into `buffer`, `bytes_per_row` (a multiple of
/// `COPY_BYTES_PER_ROW_ALIGNMENT`) bytes a row.
pub(crate) fn copy_to_buffer(
    encoder: &mut wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    buffer: &wgpu::Buffer,
    bytes_per_row: u32,
) {
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(texture.height()),
            },
        },
        texture.size(),
    );
}

/// A render pass over `views` (each cleared to `clear` and stored) and the depth view `depth`
/// (cleared to 1, the far plane, and stored).
#[cfg(feature = "render")]
pub(crate) fn begin_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    views: &[wgpu::TextureView],
    depth: &wgpu::TextureView,
    clear: wgpu::Color,
) -> wgpu::RenderPass<'e> {
    let ops = wgpu::Operations {
        load: wgpu::LoadOp::Clear(clear),
        store: wgpu::StoreOp::Store,
    };
    let attachments: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = views
        .iter()
        .map(|view| {
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops,
            })
        })
        .collect();
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &attachments,
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        ..Default::default()
    })
}
