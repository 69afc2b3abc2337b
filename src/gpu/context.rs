//! The wgpu device: yours ([`GpuContext::from_device`], for an engine that already has one),
//! headless ([`GpuContext::new`], the tools and tests), or able to present to a window's surface
//! ([`GpuContext::for_surface`], `qtangent view`). The library never prints; the tools
//! print [`GpuContext::describe`] themselves.

use std::sync::{Arc, Mutex};

/// Features the context asks for when the adapter has them: timestamps for benchmarks, and
/// filtering of the 16-bit-snorm and f32 quaternion-map formats, and BC texture sampling for
/// compressed maps (`gpu::qmap`; without it they are decoded at upload). Of these only
/// `TEXTURE_FORMAT_16BIT_NORM` touches what shaders may use (16-bit-norm storage textures,
/// which no shader here declares); shader validation runs with exactly what they grant.
pub(crate) const REQUESTED_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
    .union(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM)
    .union(wgpu::Features::FLOAT32_FILTERABLE)
    .union(wgpu::Features::TEXTURE_COMPRESSION_BC);

/// What went wrong on the GPU side.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter matched: the message lists what was asked for and what was seen. (Without a
    /// GPU, Mesa's software Vulkan, lavapipe, is an adapter.)
    #[error("no usable GPU adapter ({wanted}); adapters seen: {seen}")]
    NoAdapter {
        /// What was asked for (backends, WGPU_ADAPTER_NAME).
        wanted: String,
        /// The adapters the instance enumerated, or "none".
        seen: String,
    },
    /// The adapter refused to create a device.
    #[error("adapter {adapter} refused a device: {source}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's reason.
        source: wgpu::RequestDeviceError,
    },
    /// wgpu reported a validation or out-of-memory error while doing `what`.
    #[error("GPU error while {what}: {message}")]
    Wgpu {
        /// The operation that failed.
        what: String,
        /// wgpu's message.
        message: String,
    },
    /// A buffer would exceed a device limit.
    #[error("{what} needs {needed} bytes but this device allows {limit} ({limit_name})")]
    TooLarge {
        /// The buffer.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// The device's limit.
        limit: u64,
        /// Which limit.
        limit_name: &'static str,
    },
    /// A texture would exceed the device's `max_texture_dimension_2d`.
    #[error("{what} is {width}×{height} texels but this device allows at most {limit} a side (max_texture_dimension_2d)")]
    TextureTooLarge {
        /// The texture.
        what: String,
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
        /// The device's limit.
        limit: u32,
    },
    /// Something a stage needs at least one of is empty (a batch, a map's levels, points).
    #[error("{what} is empty")]
    Empty {
        /// What is empty.
        what: &'static str,
    },
    /// A count or size that does not match what it must match.
    #[error("{what}: {found}, where {expected} were expected")]
    Count {
        /// What was counted (and in what unit).
        what: String,
        /// What was given.
        found: u64,
        /// What it must be.
        expected: u64,
    },
    /// An index past the end of what it indexes.
    #[error("{what}: index {index}, but there are {len}")]
    OutOfRange {
        /// What is indexed, and by what.
        what: String,
        /// The index.
        index: usize,
        /// How many there are.
        len: usize,
    },
    /// A value the stage cannot use, and why.
    #[error("{what}: {reason}")]
    Invalid {
        /// The value.
        what: String,
        /// Why it cannot be used.
        reason: &'static str,
    },
    /// The device was lost or destroyed.
    #[error("the device of adapter {adapter} is lost")]
    DeviceLost {
        /// The adapter's name.
        adapter: String,
    },
    /// Skinning data the kernel cannot take.
    #[error(transparent)]
    Skin(#[from] crate::skin::SkinError),
    /// The device lacks a feature a stage needs (`StageNeeds`).
    #[error("{stage} needs the device feature {feature}, which this device was not created with{adapter_note}")]
    MissingFeature {
        /// The stage.
        stage: &'static str,
        /// The feature's name (`wgpu::Features`).
        feature: String,
        /// Whether the adapter could have granted it.
        adapter_note: &'static str,
    },
    /// The device's limit is below what a stage needs (`StageNeeds`).
    #[error("{stage} needs {limit_name} ≥ {needed} but this device allows {has}")]
    MissingLimit {
        /// The stage.
        stage: &'static str,
        /// The `wgpu::Limits` field.
        limit_name: &'static str,
        /// What the stage needs.
        needed: u32,
        /// What the device allows.
        has: u32,
    },
    /// The adapter lacks a capability a stage needs (compute shaders on a downlevel backend).
    #[error("{stage} needs {capability}, which adapter {adapter} does not support")]
    MissingCapability {
        /// The stage.
        stage: &'static str,
        /// The capability (`wgpu::DownlevelFlags` name).
        capability: &'static str,
        /// The adapter's name.
        adapter: String,
    },
    /// A quaternion map could not be made, stored or loaded.
    #[error(transparent)]
    Bake(#[from] crate::qmap::BakeError),
    /// Reading a buffer back failed.
    #[error("reading back {what} failed: {message}")]
    Readback {
        /// The buffer.
        what: String,
        /// The reason.
        message: String,
    },
}

impl GpuError {
    /// A bake's error: a map the caller's data could not make stays what it was; the rest is
    /// the backend's.
    pub(crate) fn into_bake(self) -> crate::qmap::BakeError {
        match self {
            GpuError::Bake(e) => e,
            other => crate::qmap::BakeError::Backend(Box::new(other)),
        }
    }
}

/// Adapter, device and queue: what every GPU stage takes.
///
/// Made by [`GpuContext::from_device`] from a device you own, or by [`GpuContext::new`] /
/// [`GpuContext::for_surface`], which pick an adapter and request a device themselves.
pub struct GpuContext {
    /// The adapter chosen.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter's description.
    pub info: wgpu::AdapterInfo,
    /// Errors collected by the uncaptured-error handler that [`GpuContext::new`] installs;
    /// `None` for a device handed in, whose handler stays the owner's.
    uncaptured: Option<Arc<Mutex<Vec<String>>>>,
}

/// One line naming the adapter, backend and driver.
impl std::fmt::Display for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let i = &self.info;
        write!(
            f,
            "{} ({:?}, {:?}, {} {})",
            i.name, i.backend, i.device_type, i.driver, i.driver_info
        )
    }
}

/// What one GPU stage needs of a device beyond what every device has. Each stage checks its
/// needs ([`GpuContext::check`]) before it builds anything, so a device handed in through
/// [`GpuContext::from_device`] that lacks one gets an error naming it instead of a wgpu
/// validation panic.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StageNeeds {
    /// The stage, for messages ("batch decode").
    pub(crate) stage: &'static str,
    /// Device features it cannot run without.
    pub(crate) features: wgpu::Features,
    /// Whether it runs compute shaders.
    pub(crate) compute: bool,
    /// Whether its vertex stage reads storage buffers.
    pub(crate) vertex_storage: bool,
    /// Storage buffers bound in one shader stage.
    pub(crate) storage_buffers_per_shader_stage: u32,
    /// Sampled textures bound in one shader stage.
    pub(crate) sampled_textures_per_shader_stage: u32,
    /// Uniform buffers bound in one shader stage.
    pub(crate) uniform_buffers_per_shader_stage: u32,
    /// Bind groups.
    pub(crate) bind_groups: u32,
    /// Vertex buffers.
    pub(crate) vertex_buffers: u32,
    /// Colour attachments.
    pub(crate) color_attachments: u32,
}

impl StageNeeds {
    /// Nothing beyond a device's guaranteed minimum, for `stage`; fill in what it uses.
    #[must_use]
    pub(crate) const fn none(stage: &'static str) -> Self {
        Self {
            stage,
            features: wgpu::Features::empty(),
            compute: false,
            vertex_storage: false,
            storage_buffers_per_shader_stage: 0,
            sampled_textures_per_shader_stage: 0,
            uniform_buffers_per_shader_stage: 0,
            bind_groups: 0,
            vertex_buffers: 0,
            color_attachments: 0,
        }
    }
}

fn rank(info: &wgpu::AdapterInfo) -> u32 {
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    // Prefer the native APIs over GL at equal device type.
    let api = u32::from(info.backend == wgpu::Backend::Gl);
    kind * 2 + api
}

/// The backend sets to try, in order: `WGPU_BACKEND` when set, otherwise the native APIs first
/// and GL only when they find nothing (probing GL/EGL is slow and noisy on headless machines).
fn backend_tries() -> Vec<wgpu::Backends> {
    match wgpu::Backends::from_env() {
        Some(b) => vec![b],
        None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY],
    }
}

fn describe_adapter(a: &wgpu::Adapter) -> String {
    let i = a.get_info();
    format!("{} ({:?}, {:?})", i.name, i.backend, i.device_type)
}

fn describe_adapters(adapters: &[wgpu::Adapter]) -> String {
    if adapters.is_empty() {
        "none".to_string()
    } else {
        adapters
            .iter()
            .map(describe_adapter)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The best-ranked of `adapters` whose name contains `WGPU_ADAPTER_NAME` (case-insensitive)
/// when that is set; `wanted` and `seen` go into the error when there is none.
fn choose_adapter(
    adapters: Vec<wgpu::Adapter>,
    wanted: String,
    seen: String,
) -> Result<wgpu::Adapter, GpuError> {
    let wanted_name = std::env::var("WGPU_ADAPTER_NAME")
        .ok()
        .map(|s| s.to_lowercase());
    let wanted = match &wanted_name {
        Some(n) => format!("{wanted}, WGPU_ADAPTER_NAME contains {n:?}"),
        None => wanted,
    };
    adapters
        .into_iter()
        .filter(|a| {
            wanted_name
                .as_ref()
                .is_none_or(|n| a.get_info().name.to_lowercase().contains(n))
        })
        .min_by_key(|a| rank(&a.get_info()))
        .ok_or(GpuError::NoAdapter { wanted, seen })
}

impl GpuContext {
    /// Wraps a device the caller already has (an engine's own), so every qtangent stage can
    /// run on it. Prints nothing and leaves the device's uncaptured-error handler alone.
    ///
    /// qtangent asks for nothing here: each stage checks what it needs (`StageNeeds`) when
    /// it is built and returns [`GpuError::MissingFeature`], [`GpuError::MissingLimit`] or
    /// [`GpuError::MissingCapability`] naming what the device lacks. Optional features
    /// (`REQUESTED_FEATURES`: timestamps, BC sampling, 16-bit-norm and f32 filtering) are
    /// used when the device was created with them.
    ///
    /// # Errors
    /// [`GpuError::DeviceLost`] when `device` has been destroyed or lost.
    pub fn from_device(
        adapter: wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
    ) -> Result<Self, GpuError> {
        let info = adapter.get_info();
        if device.poll(wgpu::PollType::Poll).is_err() {
            return Err(GpuError::DeviceLost {
                adapter: info.name.clone(),
            });
        }
        Ok(Self {
            adapter,
            device,
            queue,
            info,
            uncaptured: None,
        })
    }

    /// Whether the adapter is a CPU (lavapipe, llvmpipe, SwiftShader): there the bake's CPU
    /// stages are faster than its passes ([`crate::qmap::RasterBackend`] for `GpuContext`).
    pub(crate) fn is_cpu_adapter(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Checks that this device can run `stage` ([`GpuContext::check`] of `needs`), then hands
    /// the device and the stage's compiled module to `build`, inside error scopes named `doing`.
    ///
    /// # Errors
    /// As [`GpuContext::check`]; [`GpuError::Wgpu`] for what fails validation.
    pub(crate) fn compile<T>(
        &self,
        needs: &StageNeeds,
        stage: super::wgsl::Stage,
        doing: &str,
        build: impl FnOnce(&wgpu::Device, wgpu::ShaderModule) -> T,
    ) -> Result<T, GpuError> {
        self.check(needs)?;
        self.scoped(doing, || build(&self.device, stage.module(&self.device)))
    }

    /// Checks that this device can run a stage with `needs`.
    ///
    /// # Errors
    /// [`GpuError::MissingFeature`], [`GpuError::MissingLimit`] or
    /// [`GpuError::MissingCapability`], naming the first thing missing.
    pub(crate) fn check(&self, needs: &StageNeeds) -> Result<(), GpuError> {
        let missing = needs.features - self.device.features();
        if let Some((name, first)) = missing.iter_names().next() {
            let adapter_note = if self.adapter.features().contains(first) {
                " (the adapter supports it: request it when creating the device)"
            } else {
                " (nor does the adapter support it)"
            };
            return Err(GpuError::MissingFeature {
                stage: needs.stage,
                feature: name.to_string(),
                adapter_note,
            });
        }
        let flags = self.adapter.get_downlevel_capabilities().flags;
        if needs.compute && !flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS) {
            return Err(GpuError::MissingCapability {
                stage: needs.stage,
                capability: "COMPUTE_SHADERS",
                adapter: self.info.name.clone(),
            });
        }
        if needs.vertex_storage && !flags.contains(wgpu::DownlevelFlags::VERTEX_STORAGE) {
            return Err(GpuError::MissingCapability {
                stage: needs.stage,
                capability: "VERTEX_STORAGE",
                adapter: self.info.name.clone(),
            });
        }
        let l = self.device.limits();
        let limits = [
            (
                "max_storage_buffers_per_shader_stage",
                needs.storage_buffers_per_shader_stage,
                l.max_storage_buffers_per_shader_stage,
            ),
            (
                "max_sampled_textures_per_shader_stage",
                needs.sampled_textures_per_shader_stage,
                l.max_sampled_textures_per_shader_stage,
            ),
            (
                "max_uniform_buffers_per_shader_stage",
                needs.uniform_buffers_per_shader_stage,
                l.max_uniform_buffers_per_shader_stage,
            ),
            ("max_bind_groups", needs.bind_groups, l.max_bind_groups),
            (
                "max_vertex_buffers",
                needs.vertex_buffers,
                l.max_vertex_buffers,
            ),
            (
                "max_color_attachments",
                needs.color_attachments,
                l.max_color_attachments,
            ),
        ];
        for (limit_name, needed, has) in limits {
            if needed > has {
                return Err(GpuError::MissingLimit {
                    stage: needs.stage,
                    limit_name,
                    needed,
                    has,
                });
            }
        }
        Ok(())
    }

    /// Creates a headless context, blocking. See `GpuContext::new_async`.
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`] (with what was seen and how to install lavapipe) or
    /// [`GpuError::RequestDevice`].
    pub fn new() -> Result<Self, GpuError> {
        pollster::block_on(Self::new_async())
    }

    /// Creates a headless context.
    ///
    /// Honours `WGPU_BACKEND` (e.g. `vulkan`, `gl`; without it Vulkan/Metal/DX12 are tried
    /// first, GL only when they find nothing) and `WGPU_ADAPTER_NAME` (a case-insensitive
    /// substring of the adapter name). Otherwise picks a discrete GPU, then integrated, virtual,
    /// then CPU (lavapipe, llvmpipe), preferring Vulkan/Metal/DX12 over GL. Prints nothing
    /// ([`GpuContext::describe`] says which adapter was chosen). Requests `REQUESTED_FEATURES` where available and the adapter's own
    /// limits. wgpu errors outside [`GpuContext::scoped`] are collected instead of aborting and
    /// reported by the next `scoped` call.
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    pub(crate) async fn new_async() -> Result<Self, GpuError> {
        let mut backends = wgpu::Backends::empty();
        let mut adapters = Vec::new();
        for b in backend_tries() {
            backends |= b;
            let desc = wgpu::InstanceDescriptor {
                backends: b,
                ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
            };
            adapters = wgpu::Instance::new(desc).enumerate_adapters(b).await;
            if !adapters.is_empty() {
                break;
            }
        }
        let seen = describe_adapters(&adapters);
        let adapter = choose_adapter(adapters, format!("backends {backends:?}"), seen)?;
        Self::with_adapter(adapter).await
    }

    /// Creates a context whose adapter can present to `surface` (made by `instance`): the
    /// the windowed viewer's (`qtangent view`).
    ///
    /// Picks among the adapters of `instance` that support `surface` as
    /// `GpuContext::new_async` does (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, discrete GPUs first)
    /// and requests the device with the same features, limits
    /// and error handling.
    ///
    /// # Errors
    /// As [`GpuContext::new`]; [`GpuError::NoAdapter`] also when adapters exist but none can
    /// present to `surface`.
    pub async fn for_surface(
        instance: &wgpu::Instance,
        surface: &wgpu::Surface<'_>,
    ) -> Result<Self, GpuError> {
        let mut backends = wgpu::Backends::empty();
        let mut seen = Vec::new();
        let mut adapters = Vec::new();
        for b in backend_tries() {
            backends |= b;
            for a in instance.enumerate_adapters(b).await {
                if a.is_surface_supported(surface) {
                    adapters.push(a);
                } else {
                    seen.push(format!(
                        "{} (cannot present to the window)",
                        describe_adapter(&a)
                    ));
                }
            }
            if !adapters.is_empty() {
                break;
            }
        }
        seen.extend(adapters.iter().map(describe_adapter));
        let seen = if seen.is_empty() {
            "none".to_string()
        } else {
            seen.join(", ")
        };
        let wanted = format!("backends {backends:?} presenting to the window");
        let adapter = choose_adapter(adapters, wanted, seen)?;
        Self::with_adapter(adapter).await
    }

    /// Requests `adapter`'s device ([`REQUESTED_FEATURES`] where available, the adapter's own
    /// limits) and installs the sink for uncaptured errors.
    async fn with_adapter(adapter: wgpu::Adapter) -> Result<Self, GpuError> {
        let info = adapter.get_info();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("qtangent"),
                required_features: adapter.features() & REQUESTED_FEATURES,
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|source| GpuError::RequestDevice {
                adapter: info.name.clone(),
                source,
            })?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&uncaptured);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        Ok(Self {
            adapter,
            device,
            queue,
            info,
            uncaptured: Some(uncaptured),
        })
    }

    /// Runs `f` inside validation and out-of-memory error scopes and turns any wgpu error
    /// (including ones collected earlier outside a scope) into [`GpuError::Wgpu`].
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] naming `what`.
    pub fn scoped<T>(&self, what: &str, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        let mut messages: Vec<String> = v.into_iter().chain(o).map(|e| e.to_string()).collect();
        if let Some(Ok(mut earlier)) = self.uncaptured.as_ref().map(|u| u.lock()) {
            messages.append(&mut earlier);
        }
        if messages.is_empty() {
            Ok(value)
        } else {
            Err(GpuError::Wgpu {
                what: what.to_string(),
                message: messages.join("; "),
            })
        }
    }

    /// Copies mip level 0 of a 2D texture (usage `COPY_SRC`, an uncompressed colour or depth
    /// format) into a buffer and reads it back as tightly packed rows: `width × texel bytes` a
    /// row, top row first. wgpu copies rows padded to 256 bytes
    /// ([`wgpu::COPY_BYTES_PER_ROW_ALIGNMENT`]); the padding is dropped here, so no caller
    /// handles it.
    ///
    /// # Errors
    /// [`GpuError::Invalid`] for a format without a fixed texel size;
    /// [`GpuError::Readback`] / [`GpuError::Wgpu`].
    pub fn read_texture(&self, texture: &wgpu::Texture, what: &str) -> Result<Vec<u8>, GpuError> {
        let (width, height) = (texture.width(), texture.height());
        let texel = texture
            .format()
            .block_copy_size(Some(wgpu::TextureAspect::All))
            .ok_or_else(|| GpuError::Invalid {
                what: format!("{what} ({:?})", texture.format()),
                reason: "a texture without a fixed texel size cannot be read back",
            })?;
        let row = width * texel;
        let padded =
            row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let size = u64::from(padded) * u64::from(height);
        let bytes = self.staged(
            &format!("copying {what} for readback"),
            what,
            size,
            |e, b| {
                super::kit::copy_to_buffer(e, texture, b, padded);
            },
        )?;
        let mut out = Vec::with_capacity(row as usize * height as usize);
        for r in bytes.chunks_exact(padded as usize) {
            out.extend_from_slice(&r[..row as usize]);
        }
        if out.len() != row as usize * height as usize {
            return Err(GpuError::Readback {
                what: what.to_string(),
                message: format!("got {} bytes for {height} rows of {row}", out.len()),
            });
        }
        Ok(out)
    }

    /// Waits for all submitted work.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] if the device is lost or the wait fails.
    pub fn wait(&self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| GpuError::Wgpu {
                what: "waiting for the GPU".into(),
                message: e.to_string(),
            })
    }

    /// Copies `size` bytes of `buffer` (which needs `COPY_SRC`) into a mapped staging buffer and
    /// returns them.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] or [`GpuError::Readback`].
    pub(crate) fn read_buffer(
        &self,
        buffer: &wgpu::Buffer,
        size: u64,
        what: &str,
    ) -> Result<Vec<u8>, GpuError> {
        self.staged(&format!("reading back {what}"), what, size, |e, staging| {
            e.copy_buffer_to_buffer(buffer, 0, staging, 0, size);
        })
    }

    /// A `size`-byte staging buffer filled by what `copy` records (inside error scopes named
    /// `doing`), submitted, mapped and read: its bytes.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] or [`GpuError::Readback`].
    fn staged(
        &self,
        doing: &str,
        what: &str,
        size: u64,
        copy: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) -> Result<Vec<u8>, GpuError> {
        let staging = self.scoped(doing, || {
            let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("qtangent readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = self.device.create_command_encoder(&Default::default());
            copy(&mut encoder, &staging);
            self.queue.submit([encoder.finish()]);
            staging
        })?;
        let mut bytes = self.map_read(&[&staging], what)?;
        Ok(bytes.pop().unwrap_or_default())
    }

    /// Maps `MAP_READ` buffers (after the work that fills them has been submitted), waits, and
    /// returns their whole contents, unmapping them again.
    ///
    /// # Errors
    /// [`GpuError::Wgpu`] or [`GpuError::Readback`].
    pub(crate) fn map_read(
        &self,
        buffers: &[&wgpu::Buffer],
        what: &str,
    ) -> Result<Vec<Vec<u8>>, GpuError> {
        let readback_error = |message: String| GpuError::Readback {
            what: what.to_string(),
            message,
        };
        let receivers: Vec<_> = buffers
            .iter()
            .map(|b| {
                let (tx, rx) = std::sync::mpsc::channel();
                b.map_async(wgpu::MapMode::Read, .., move |r| {
                    let _ = tx.send(r);
                });
                rx
            })
            .collect();
        self.wait()?;
        let mut out = Vec::with_capacity(buffers.len());
        for (b, rx) in buffers.iter().zip(receivers) {
            rx.recv()
                .map_err(|e| readback_error(e.to_string()))?
                .map_err(|e| readback_error(e.to_string()))?;
            let bytes = b
                .get_mapped_range(..)
                .map_err(|e| readback_error(e.to_string()))?
                .to_vec();
            b.unmap();
            out.push(bytes);
        }
        Ok(out)
    }

    /// Workgroups `[x, y]` for a 1D job of `count` threads in groups of `workgroup`, folded into
    /// two dimensions when it exceeds `max_compute_workgroups_per_dimension` (the shader
    /// rebuilds the index as `id.x + id.y · x · workgroup` and skips indices ≥ `count`).
    ///
    /// # Errors
    /// [`GpuError::TooLarge`] (naming `what`) beyond the square of the limit.
    pub(crate) fn dispatch_grid(
        &self,
        count: u64,
        workgroup: u32,
        what: &str,
    ) -> Result<[u32; 2], GpuError> {
        let max_dim = u64::from(self.device.limits().max_compute_workgroups_per_dimension);
        let groups = count.div_ceil(u64::from(workgroup)).max(1);
        let x = groups.min(max_dim);
        let y = groups.div_ceil(x);
        if y > max_dim {
            return Err(GpuError::TooLarge {
                what: what.to_string(),
                needed: groups,
                limit: max_dim * max_dim,
                limit_name: "max_compute_workgroups_per_dimension²",
            });
        }
        Ok([x as u32, y as u32])
    }

    /// Fails with [`GpuError::TooLarge`] when a storage buffer of `bytes` would exceed the
    /// device's buffer or binding limits.
    ///
    /// # Errors
    /// [`GpuError::TooLarge`].
    pub(crate) fn check_storage_size(&self, what: &str, bytes: u64) -> Result<(), GpuError> {
        let l = self.device.limits();
        for (limit, limit_name) in [
            (l.max_buffer_size, "max_buffer_size"),
            (
                l.max_storage_buffer_binding_size,
                "max_storage_buffer_binding_size",
            ),
        ] {
            if bytes > limit {
                return Err(GpuError::TooLarge {
                    what: what.to_string(),
                    needed: bytes,
                    limit,
                    limit_name,
                });
            }
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../tests/unit/gpu/context.rs"]
mod tests;
