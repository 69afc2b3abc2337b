//! Upload of a [`RenderScene`]: vertex streams for every frame source, material textures with
//! mips, and both kinds of quaternion map (baked, loaded or authored) as stored.

use std::collections::HashMap;

use image::RgbaImage;
use wgpu::util::DeviceExt;

use super::super::qmap::{upload as upload_map, upload_encoded, GpuQuatMap};
use super::super::{GpuContext, GpuError};
use super::{
    next_scene_id, GpuMesh, GpuObject, GpuScene, ModeCost, Renderer, FALLBACK_FORMAT,
    POSITION_UV_STRIDE, REFERENCE_STRIDE,
};
use crate::qmap::normal_map::mip_chain;
use crate::qmap::{self, MapStats, QuatMap};
use crate::render::scene::{MapSource, RenderScene};
use crate::render::{FrameSource, MapOptions, MaterialUniforms};
use crate::Format;

/// Pushes `w` unless it is there already (a warning every map upload repeats).
fn warn_once(warnings: &mut Vec<String>, w: &str) {
    if !warnings.iter().any(|x| x == w) {
        warnings.push(w.to_string());
    }
}

/// Bytes of a `w × h` texture of `texel` bytes a texel with its full mip chain.
fn texture_bytes_with_mips(w: u32, h: u32, texel: u64) -> u64 {
    let mut total = 0;
    let (mut w, mut h) = (w, h);
    loop {
        total += u64::from(w) * u64::from(h) * texel;
        if w == 1 && h == 1 {
            return total;
        }
        w = (w / 2).max(1);
        h = (h / 2).max(1);
    }
}

fn upload_texture(
    ctx: &GpuContext,
    label: &str,
    img: &RgbaImage,
    format: wgpu::TextureFormat,
) -> Result<wgpu::TextureView, GpuError> {
    upload_levels(ctx, label, img, None, format)
}

/// An 8-bit texture with `mips` below level 0 (`None`: [`mip_chain`]).
fn upload_levels(
    ctx: &GpuContext,
    label: &str,
    img: &RgbaImage,
    mips: Option<&[RgbaImage]>,
    format: wgpu::TextureFormat,
) -> Result<wgpu::TextureView, GpuError> {
    let (w, h) = img.dimensions();
    let limit = ctx.device.limits().max_texture_dimension_2d;
    if w > limit || h > limit {
        return Err(GpuError::TextureTooLarge {
            what: label.to_string(),
            width: w,
            height: h,
            limit,
        });
    }
    let levels = match mips {
        Some(m) => std::iter::once(img.clone())
            .chain(m.iter().cloned())
            .collect(),
        None => mip_chain(img),
    };
    let full = 32 - w.max(h).leading_zeros() as usize;
    if levels.len() > full
        || levels
            .iter()
            .enumerate()
            .any(|(k, l)| l.dimensions() != ((w >> k).max(1), (h >> k).max(1)))
    {
        return Err(GpuError::Input(format!(
            "{label}: its {} mip levels are not the chain of a {w}×{h} texture",
            levels.len()
        )));
    }
    let bytes: Vec<u8> = levels
        .iter()
        .flat_map(|l| l.as_raw().iter().copied())
        .collect();
    let texture = ctx.device.create_texture_with_data(
        &ctx.queue,
        &wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: levels.len() as u32,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::MipMajor,
        &bytes,
    );
    Ok(texture.create_view(&Default::default()))
}

impl Renderer {
    /// Uploads `scene`: a reference stream, a position+UV stream and a qtangent stream per
    /// format in `formats` (plus [`FALLBACK_FORMAT`]) for every mesh; material textures with
    /// mips; quaternion maps — authored ones as they are, the rest baked on the GPU
    /// ([`crate::gpu::bake::raster_gpu`] then [`qmap::finish`]) with `progress` told each stage.
    ///
    /// # Errors
    /// [`GpuError::Input`] for a mesh whose material index is out of range, errors of the bake
    /// and of the uploads (textures beyond the device's limits among them).
    pub fn upload(
        &self,
        ctx: &GpuContext,
        scene: &RenderScene,
        formats: &[Format],
        progress: &mut dyn FnMut(&str),
    ) -> Result<GpuScene, GpuError> {
        self.upload_with(ctx, scene, formats, &MapOptions::default(), progress)
    }

    /// [`Renderer::upload`] with the maps stored (or loaded) as `options` says: both kinds of
    /// quaternion map through [`crate::gpu::maps`], each mesh's object-space map and each
    /// material's tangent-space map, uploaded as stored ([`upload_encoded`]). What was
    /// approximated is in [`GpuScene::warnings`].
    ///
    /// # Errors
    /// As [`Renderer::upload`], and maps that cannot be stored as asked or fail to load.
    #[allow(clippy::too_many_lines)]
    pub fn upload_with(
        &self,
        ctx: &GpuContext,
        scene: &RenderScene,
        formats: &[Format],
        options: &MapOptions,
        progress: &mut dyn FnMut(&str),
    ) -> Result<GpuScene, GpuError> {
        let device = &ctx.device;
        let mut formats: Vec<Format> = formats.to_vec();
        if !formats.contains(&FALLBACK_FORMAT) {
            formats.push(FALLBACK_FORMAT);
        }
        let (materials, normal_texture_bytes) = self.upload_materials(ctx, scene)?;
        let map_bind_group = |map: &GpuQuatMap, sampler: &wgpu::Sampler| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("lit quaternion map"),
                layout: &self.map_layout,
                entries: &map.entries(sampler),
            })
        };
        let identity_map = QuatMap {
            format: qmap::MapFormat::Rgba16Float,
            levels: vec![qmap::MapLevel {
                width: 1,
                height: 1,
                quats: vec![glam::Vec4::W],
                handedness: vec![1],
            }],
            kind: vec![qmap::TexelKind::Covered],
            triangle: vec![0],
            stats: MapStats::default(),
        };
        let dummy = upload_map(ctx, &identity_map)?;
        let dummy_map = map_bind_group(&dummy, &self.map_sampler);
        let mut warnings = Vec::new();
        // Tangent-space maps, one per material that has a normal map or an authored one; they
        // tile, so they are sampled with repeat addressing like the material's textures.
        let mut tangent_maps = Vec::new();
        let mut tangent_map_bytes = Vec::new();
        let mut tangent_map_formats = Vec::new();
        let mut material_tangent = Vec::new();
        for m in &scene.materials {
            let stored = crate::gpu::maps::tangent_map(ctx, m, options, progress, &mut |w| {
                warnings.push(w)
            })?;
            tangent_map_formats.push((m.name.clone(), stored.as_ref().map(|s| s.format)));
            material_tangent.push(match stored {
                Some(stored) => {
                    progress(&format!(
                        "material '{}': {}×{} tangent-space map, {}",
                        m.name, stored.width, stored.height, stored.format
                    ));
                    let gpu = upload_encoded(ctx, &stored, &mut |w| warn_once(&mut warnings, w))?;
                    let bg = map_bind_group(&gpu, &self.material_sampler);
                    tangent_map_bytes.push(stored.texture_bytes());
                    tangent_maps.push((gpu, bg));
                    Some(tangent_maps.len() - 1)
                }
                None => None,
            });
        }
        let mut object_map_formats = Vec::new();
        // Meshes.
        let mut meshes = Vec::new();
        let mut map_stats = Vec::new();
        let mut fallbacks = Vec::new();
        let mut costs: HashMap<FrameSource, ModeCost> = HashMap::new();
        for (i, sm) in scene.meshes.iter().enumerate() {
            let p = &sm.mesh;
            if sm.material >= scene.materials.len() {
                return Err(GpuError::Input(format!(
                    "{}: material {} of {}",
                    p.label,
                    sm.material,
                    scene.materials.len()
                )));
            }
            let n = p.positions.len() as u64;
            let mut reference = Vec::with_capacity(p.positions.len() * REFERENCE_STRIDE as usize);
            let mut position_uv =
                Vec::with_capacity(p.positions.len() * POSITION_UV_STRIDE as usize);
            for ((pos, uv), f) in p.positions.iter().zip(&p.uvs).zip(&p.frames) {
                let head: [f32; 5] = [pos.x, pos.y, pos.z, uv.x, uv.y];
                position_uv.extend_from_slice(bytemuck::cast_slice(&head));
                reference.extend_from_slice(bytemuck::cast_slice(&head));
                let frame: [f32; 7] = [
                    f.normal.x,
                    f.normal.y,
                    f.normal.z,
                    f.tangent.x,
                    f.tangent.y,
                    f.tangent.z,
                    f.handedness(),
                ];
                reference.extend_from_slice(bytemuck::cast_slice(&frame));
            }
            let buffer = |label: &str, bytes: &[u8], usage| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: bytes,
                    usage,
                })
            };
            let vertex = wgpu::BufferUsages::VERTEX;
            let mut qtangent = HashMap::new();
            for &f in &formats {
                let stream = p.vertex_stream(f);
                let add = costs.entry(FrameSource::QTangent(f)).or_default();
                add.vertex_bytes += stream.bytes.len() as u64;
                add.frame_vertex_bytes += n * crate::mesh::vertex::attribute_bytes(f) as u64;
                add.frame_texture_bytes += normal_texture_bytes[sm.material];
                qtangent.insert(f, buffer("qtangent vertices", &stream.bytes, vertex));
            }
            let r = costs.entry(FrameSource::Reference).or_default();
            r.vertex_bytes += reference.len() as u64;
            r.frame_vertex_bytes += n * 28;
            r.frame_texture_bytes += normal_texture_bytes[sm.material];
            let label = p.label.clone();
            let object =
                crate::gpu::maps::object_map(ctx, scene, i, options, progress, &mut |w| {
                    warnings.push(w);
                })?;
            let map_uvs = object.as_ref().and_then(|o| o.map_uvs.clone());
            if let Some(uvs) = &map_uvs {
                position_uv.clear();
                for ((pos, uv), m) in p.positions.iter().zip(&p.uvs).zip(uvs) {
                    let v: [f32; 7] = [pos.x, pos.y, pos.z, uv.x, uv.y, m.x, m.y];
                    position_uv.extend_from_slice(bytemuck::cast_slice(&v));
                }
            }
            let q = costs.entry(FrameSource::QuatMap).or_default();
            let map = match object {
                Some(m) => {
                    q.vertex_bytes += position_uv.len() as u64;
                    q.frame_texture_bytes += m.map.texture_bytes();
                    map_stats.push((label.clone(), Some(m.stats)));
                    object_map_formats.push((label.clone(), Some(m.map.format)));
                    let gpu = upload_encoded(ctx, &m.map, &mut |w| warn_once(&mut warnings, w))?;
                    let bg = map_bind_group(&gpu, &self.map_sampler);
                    Some((gpu, bg))
                }
                None => {
                    let fb = n * crate::mesh::vertex::stride(FALLBACK_FORMAT) as u64;
                    q.vertex_bytes += fb;
                    q.frame_vertex_bytes +=
                        n * crate::mesh::vertex::attribute_bytes(FALLBACK_FORMAT) as u64;
                    q.frame_texture_bytes += normal_texture_bytes[sm.material];
                    map_stats.push((label.clone(), None));
                    object_map_formats.push((label.clone(), None));
                    fallbacks.push(label.clone());
                    None
                }
            };
            // Tangent-space mode: the Snorm16x4 vertex frame and the material's map (or, without
            // one, its normal map as in qtangent mode).
            let t = costs.entry(FrameSource::QuatMapTangent).or_default();
            let stride = crate::mesh::vertex::stride(FALLBACK_FORMAT) as u64;
            t.vertex_bytes += n * stride;
            t.frame_vertex_bytes +=
                n * crate::mesh::vertex::attribute_bytes(FALLBACK_FORMAT) as u64;
            let tangent_map = material_tangent[sm.material];
            t.frame_texture_bytes += match tangent_map {
                Some(k) => tangent_map_bytes[k],
                None => normal_texture_bytes[sm.material],
            };
            let index_bytes: &[u8] = bytemuck::cast_slice(&p.indices);
            meshes.push(GpuMesh {
                reference: buffer("reference vertices", &reference, vertex),
                position_uv: buffer("position+uv vertices", &position_uv, vertex),
                map_uv: map_uvs.is_some(),
                qtangent,
                index: buffer("indices", index_bytes, wgpu::BufferUsages::INDEX),
                index_count: p.indices.len() as u32,
                vertex_count: n,
                material: sm.material,
                map,
                tangent_map,
            });
        }
        let mut objects = Vec::new();
        let mut authored = Vec::new();
        for o in &scene.objects {
            if o.mesh >= meshes.len() {
                return Err(GpuError::Input(format!(
                    "object refers to mesh {} of {}",
                    o.mesh,
                    meshes.len()
                )));
            }
            authored.push(matches!(scene.meshes[o.mesh].map, MapSource::Authored(_)));
            objects.push(GpuObject {
                mesh: o.mesh,
                model: o.model,
                skinned: None,
            });
        }
        let mut costs: Vec<(FrameSource, ModeCost)> = costs.into_iter().collect();
        costs.sort_by_key(|(s, _)| match s {
            FrameSource::Reference => 0,
            FrameSource::QTangent(f) => 1 + f.code() as usize,
            FrameSource::QuatMap => 100,
            FrameSource::QuatMapTangent => 101,
        });
        Ok(GpuScene {
            meshes,
            materials,
            objects,
            id: next_scene_id(),
            dummy_map,
            map_stats,
            costs,
            fallbacks,
            tangent_maps,
            tangent_map_formats,
            object_map_formats,
            warnings,
            visible: vec![true; authored.len()],
            authored,
        })
    }

    /// Uploads every material of `scene`: its uniforms and textures with mips (1×1 white or
    /// flat-normal stand-ins for those it lacks) as a bind group; and per material, the bytes of
    /// its normal map with mips (0 without one), what the vertex-frame modes pay for it.
    fn upload_materials(
        &self,
        ctx: &GpuContext,
        scene: &RenderScene,
    ) -> Result<(Vec<wgpu::BindGroup>, Vec<u64>), GpuError> {
        let device = &ctx.device;
        let solid = |label: &str, rgba: [u8; 4], format| {
            upload_texture(
                ctx,
                label,
                &RgbaImage::from_pixel(1, 1, image::Rgba(rgba)),
                format,
            )
        };
        let white_srgb = solid("white", [255; 4], wgpu::TextureFormat::Rgba8UnormSrgb)?;
        let white = solid("white", [255; 4], wgpu::TextureFormat::Rgba8Unorm)?;
        let flat = solid(
            "flat normal",
            [128, 128, 255, 255],
            wgpu::TextureFormat::Rgba8Unorm,
        )?;
        let mut materials = Vec::new();
        let mut normal_texture_bytes = Vec::new();
        for m in &scene.materials {
            let tex =
                |what: &str, img: &Option<RgbaImage>, format, fallback: &wgpu::TextureView| {
                    img.as_ref().map_or_else(
                        || Ok(fallback.clone()),
                        |i| {
                            // Only the normal texture may come with its own stored mips.
                            let mips = if what == "normal map" {
                                m.normal_mips.as_deref()
                            } else {
                                None
                            };
                            upload_levels(
                                ctx,
                                &format!("material '{}' {what}", m.name),
                                i,
                                mips,
                                format,
                            )
                        },
                    )
                };
            let [base, mr, normal, aniso] = [
                (
                    "base colour",
                    &m.base_color,
                    wgpu::TextureFormat::Rgba8UnormSrgb,
                    &white_srgb,
                ),
                (
                    "metallic-roughness",
                    &m.metallic_roughness,
                    wgpu::TextureFormat::Rgba8Unorm,
                    &white,
                ),
                (
                    "normal map",
                    &m.normal,
                    wgpu::TextureFormat::Rgba8Unorm,
                    &flat,
                ),
                (
                    "anisotropy texture",
                    &m.anisotropy,
                    wgpu::TextureFormat::Rgba8Unorm,
                    &white,
                ),
            ]
            .map(|(what, img, format, fallback)| tex(what, img, format, fallback));
            let (base, mr, normal, aniso) = (base?, mr?, normal?, aniso?);
            normal_texture_bytes.push(
                m.normal
                    .as_ref()
                    .map_or(0, |n| texture_bytes_with_mips(n.width(), n.height(), 4)),
            );
            let mut uniforms: MaterialUniforms = m.uniforms;
            if m.normal.is_none() {
                uniforms.has_normal_map = 0.0;
            }
            uniforms.has_anisotropy_texture = f32::from(u8::from(m.anisotropy.is_some()));
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("material uniforms"),
                contents: bytemuck::bytes_of(&uniforms),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            materials.push(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("lit material"),
                layout: &self.material_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&base),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::TextureView(&mr),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: wgpu::BindingResource::TextureView(&normal),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: wgpu::BindingResource::Sampler(&self.material_sampler),
                    },
                    wgpu::BindGroupEntry {
                        binding: 5,
                        resource: wgpu::BindingResource::TextureView(&aniso),
                    },
                ],
            }));
        }
        Ok((materials, normal_texture_bytes))
    }
}
