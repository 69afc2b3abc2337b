//! Upload of a [`RenderScene`]: vertex streams for every frame source, material textures with
//! mips, and both kinds of quaternion map (baked, loaded or authored) as stored.

use std::collections::HashMap;

use image::RgbaImage;
use wgpu::util::DeviceExt;

use super::super::kit;
use super::super::qmap::{upload_encoded, upload_map, GpuQuatMap};
use super::super::{GpuContext, GpuError};
use super::pipeline::{POSITION_UV_STRIDE, REFERENCE_STRIDE};
use super::{
    next_scene_id, GpuMesh, GpuObject, GpuScene, MapReport, ModeCost, Renderer, UploadReport,
    FALLBACK_FORMAT,
};
use crate::mesh::Prepared;
use crate::qmap::normal_map::{mip_chain, normal_mip_chain};
use crate::qmap::{self, Baker, MapOptions, MapStats, QuatMap};
use crate::qmap::{MapKinds, SceneMap, SceneMaps};
use crate::render::{FrameSource, MaterialUniforms};
use crate::render::{MapSource, RenderScene, SceneMaterial, SceneMesh};
use crate::report::{Listener, Warning};
use crate::Format;

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
    upload_levels(ctx, label, img, None, mip_chain, format)
}

/// An 8-bit texture with `mips` below level 0 (`None`: those `chain` makes of `img`).
fn upload_levels(
    ctx: &GpuContext,
    label: &str,
    img: &RgbaImage,
    mips: Option<&[RgbaImage]>,
    chain: fn(&RgbaImage) -> Vec<RgbaImage>,
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
        None => chain(img),
    };
    let full = 32 - w.max(h).leading_zeros() as usize;
    if levels.len() > full
        || levels
            .iter()
            .enumerate()
            .any(|(k, l)| l.dimensions() != ((w >> k).max(1), (h >> k).max(1)))
    {
        return Err(GpuError::Invalid {
            what: format!("{label}: {} mip levels of a {w}×{h} texture", levels.len()),
            reason: "not the texture's mip chain",
        });
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
    /// format in `formats` (plus Snorm16x4, which quaternion-map mode draws meshes without a map with) for every mesh; material textures with
    /// mips; and both kinds of quaternion map — from the file, loaded, authored or baked on this
    /// GPU — stored as `options` says ([`SceneMaps::new`]). Progress and what was approximated
    /// go to `listener`.
    ///
    /// # Errors
    /// [`GpuError::OutOfRange`] for a mesh whose material (or an object whose mesh) does not
    /// exist; errors of the bake and of the uploads (textures beyond the device's limits among
    /// them).
    pub fn upload(
        &self,
        ctx: &GpuContext,
        scene: &RenderScene,
        formats: &[Format],
        options: &MapOptions,
        listener: &mut dyn Listener,
    ) -> Result<GpuScene, GpuError> {
        // A warning every map upload repeats is said once.
        let listener = &mut Once::new(listener);
        let baker = Baker::new(ctx.raster_backend(), options);
        let maps = SceneMaps::new(scene, &baker, MapKinds::Both, listener)?;
        let mut formats: Vec<Format> = formats.to_vec();
        if !formats.contains(&FALLBACK_FORMAT) {
            formats.push(FALLBACK_FORMAT);
        }
        let (materials, normal_texture_bytes) = self.upload_materials(ctx, scene)?;
        let dummy = upload_map(ctx, &identity_map())?;
        let mut up = SceneUpload {
            renderer: self,
            ctx,
            scene,
            formats: &formats,
            normal_texture_bytes,
            tangent_maps: Vec::new(),
            material_tangent: Vec::new(),
            report: UploadReport::default(),
            costs: HashMap::new(),
        };
        up.tangent_maps(&maps, listener)?;
        let meshes = scene
            .meshes
            .iter()
            .enumerate()
            .map(|(i, sm)| up.mesh(i, sm, maps.object.get(i).and_then(Option::as_ref), listener))
            .collect::<Result<Vec<_>, _>>()?;
        let objects = objects(scene, meshes.len())?;
        let SceneUpload {
            tangent_maps,
            mut report,
            costs,
            ..
        } = up;
        report.authored_objects = (0..scene.objects.len())
            .filter(|&k| {
                matches!(
                    scene.meshes[scene.objects[k].mesh].map,
                    MapSource::Authored(_)
                )
            })
            .collect();
        report.costs = sorted_costs(costs);
        report.vertices = meshes.iter().map(|m| m.vertex_count).sum();
        report.triangles = objects
            .iter()
            .map(|o| u64::from(meshes[o.mesh].index_count / 3))
            .sum();
        Ok(GpuScene {
            meshes,
            materials,
            visible: vec![true; objects.len()],
            objects,
            id: next_scene_id(),
            dummy_map: self.map_bind_group(ctx, &dummy, &self.map_sampler),
            tangent_maps,
            report,
        })
    }

    /// A bind group of `map` with `sampler` for the lit shader's map slot.
    fn map_bind_group(
        &self,
        ctx: &GpuContext,
        map: &GpuQuatMap,
        sampler: &wgpu::Sampler,
    ) -> wgpu::BindGroup {
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("lit quaternion map"),
            layout: &self.map_layout,
            entries: &map.entries(sampler),
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
        let (srgb, unorm) = (
            wgpu::TextureFormat::Rgba8UnormSrgb,
            wgpu::TextureFormat::Rgba8Unorm,
        );
        let solid = |label: &str, rgba: [u8; 4], format| {
            upload_texture(
                ctx,
                label,
                &RgbaImage::from_pixel(1, 1, image::Rgba(rgba)),
                format,
            )
        };
        let stand_ins = [
            solid("white", [255; 4], srgb)?,
            solid("white", [255; 4], unorm)?,
            solid("flat normal", [128, 128, 255, 255], unorm)?,
            solid("white", [255; 4], unorm)?,
        ];
        let mut materials = Vec::new();
        let mut normal_texture_bytes = Vec::new();
        for m in &scene.materials {
            type Chain = fn(&RgbaImage) -> Vec<RgbaImage>;
            let textures = [
                ("base colour", &m.base_color, srgb, None, mip_chain as Chain),
                (
                    "metallic-roughness",
                    &m.metallic_roughness,
                    unorm,
                    None,
                    mip_chain,
                ),
                // The normal and anisotropy textures may come with their own stored mips; a
                // normal map's own are box-filtered, as engines build them and as the
                // tangent-space maps are baked.
                (
                    "normal map",
                    &m.normal,
                    unorm,
                    m.normal_mips.as_deref(),
                    normal_mip_chain,
                ),
                (
                    "anisotropy texture",
                    &m.anisotropy,
                    unorm,
                    m.anisotropy_mips.as_deref(),
                    mip_chain,
                ),
            ];
            let mut views = Vec::with_capacity(4);
            for ((what, image, format, mips, chain), stand_in) in
                textures.into_iter().zip(&stand_ins)
            {
                views.push(match image {
                    Some(i) => {
                        let label = format!("material '{}' {what}", m.name);
                        upload_levels(ctx, &label, i, mips, chain, format)?
                    }
                    None => stand_in.clone(),
                });
            }
            normal_texture_bytes.push(
                m.normal
                    .as_ref()
                    .map_or(0, |n| texture_bytes_with_mips(n.width(), n.height(), 4)),
            );
            materials.push(self.material_group(ctx, m, &views));
        }
        Ok((materials, normal_texture_bytes))
    }

    /// The bind group of material `m` with its texture `views` (base colour,
    /// metallic-roughness, normal map, anisotropy).
    fn material_group(
        &self,
        ctx: &GpuContext,
        m: &SceneMaterial,
        views: &[wgpu::TextureView],
    ) -> wgpu::BindGroup {
        let mut uniforms: MaterialUniforms = m.uniforms;
        if m.normal.is_none() {
            uniforms.has_normal_map = 0.0;
        }
        uniforms.has_anisotropy_texture = f32::from(u8::from(m.anisotropy.is_some()));
        let buffer = kit::buffer(
            &ctx.device,
            "material uniforms",
            bytemuck::bytes_of(&uniforms),
            wgpu::BufferUsages::UNIFORM,
        );
        let view = wgpu::BindingResource::TextureView;
        kit::bind_group(
            &ctx.device,
            "lit material",
            &self.material_layout,
            &[
                buffer.as_entire_binding(),
                view(&views[0]),
                view(&views[1]),
                view(&views[2]),
                wgpu::BindingResource::Sampler(&self.material_sampler),
                view(&views[3]),
            ],
        )
    }
}

/// A scene's upload under way: what the meshes' uploads share.
struct SceneUpload<'a> {
    renderer: &'a Renderer,
    ctx: &'a GpuContext,
    scene: &'a RenderScene,
    formats: &'a [Format],
    /// Per material: the bytes of its normal map with mips (0 without one).
    normal_texture_bytes: Vec<u64>,
    /// Uploaded tangent-space maps, with the bytes each stores.
    tangent_maps: Vec<(GpuQuatMap, wgpu::BindGroup)>,
    /// Per material: its map's index in `tangent_maps` and bytes.
    material_tangent: Vec<Option<(usize, u64)>>,
    report: UploadReport,
    costs: HashMap<FrameSource, ModeCost>,
}

impl SceneUpload<'_> {
    /// Uploads every material's tangent-space map; they tile, so they are sampled with repeat
    /// addressing like the material's textures.
    fn tangent_maps(
        &mut self,
        maps: &SceneMaps,
        listener: &mut dyn Listener,
    ) -> Result<(), GpuError> {
        for (k, m) in self.scene.materials.iter().enumerate() {
            let entry = maps.tangent.get(k).and_then(Option::as_ref);
            self.report.tangent_maps.push(MapReport::of(&m.name, entry));
            let index = match entry.map(|e| &e.map) {
                Some(stored) => {
                    let gpu = upload_encoded(self.ctx, stored, listener)?;
                    let r = self.renderer;
                    let bg = r.map_bind_group(self.ctx, &gpu, &r.material_sampler);
                    self.tangent_maps.push((gpu, bg));
                    Some((self.tangent_maps.len() - 1, stored.texture_bytes()))
                }
                None => None,
            };
            self.material_tangent.push(index);
        }
        Ok(())
    }

    /// Uploads mesh `i`: its streams and its object-space map (`object`), counting what each
    /// frame source costs.
    fn mesh(
        &mut self,
        i: usize,
        sm: &SceneMesh,
        object: Option<&SceneMap>,
        listener: &mut dyn Listener,
    ) -> Result<GpuMesh, GpuError> {
        let p = &sm.mesh;
        if sm.material >= self.scene.materials.len() {
            return Err(GpuError::OutOfRange {
                what: "material".into(),
                index: sm.material,
                len: self.scene.materials.len(),
            });
        }
        let device = &self.ctx.device;
        let buffer = |label: &str, bytes: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage,
            })
        };
        let vertex = wgpu::BufferUsages::VERTEX;
        let streams = Streams::of(p, object.and_then(|o| o.map_uvs.as_deref()));
        let n = p.positions.len() as u64;
        let normal_bytes = self.normal_texture_bytes[sm.material];
        let mut qtangent = HashMap::new();
        for &f in self.formats {
            let stream = p.vertex_stream(f);
            let add = self.costs.entry(FrameSource::QTangent(f)).or_default();
            add.vertex_bytes += stream.bytes.len() as u64;
            add.frame_vertex_bytes += n * crate::mesh::vertex::attribute_bytes(f) as u64;
            add.frame_texture_bytes += normal_bytes;
            qtangent.insert(f, buffer("qtangent vertices", &stream.bytes, vertex));
        }
        let r = self.costs.entry(FrameSource::Reference).or_default();
        r.vertex_bytes += streams.reference.len() as u64;
        r.frame_vertex_bytes += n * 28;
        r.frame_texture_bytes += normal_bytes;
        let map = self.object_map(i, p, object, streams.position_uv.len() as u64, listener)?;
        // Tangent-space mode: the fallback vertex frame and the material's map (or, without
        // one, its normal map as in qtangent mode).
        let t = self.costs.entry(FrameSource::QuatMapTangent).or_default();
        t.vertex_bytes += n * crate::mesh::vertex::stride(FALLBACK_FORMAT) as u64;
        t.frame_vertex_bytes += n * crate::mesh::vertex::attribute_bytes(FALLBACK_FORMAT) as u64;
        let tangent = self.material_tangent[sm.material];
        t.frame_texture_bytes += tangent.map_or(normal_bytes, |(_, bytes)| bytes);
        Ok(GpuMesh {
            reference: buffer("reference vertices", &streams.reference, vertex),
            position_uv: buffer("position+uv vertices", &streams.position_uv, vertex),
            map_uv: object.is_some_and(|o| o.map_uvs.is_some()),
            qtangent,
            index: buffer(
                "indices",
                bytemuck::cast_slice(&p.indices),
                wgpu::BufferUsages::INDEX,
            ),
            index_count: p.indices.len() as u32,
            vertex_count: n,
            material: sm.material,
            map,
            tangent_map: tangent.map(|(k, _)| k),
        })
    }

    /// Uploads mesh `i`'s object-space map (counting the quaternion-map mode's cost, which falls
    /// back to vertex frames without one).
    fn object_map(
        &mut self,
        i: usize,
        p: &Prepared,
        object: Option<&SceneMap>,
        position_uv_bytes: u64,
        listener: &mut dyn Listener,
    ) -> Result<Option<(GpuQuatMap, wgpu::BindGroup)>, GpuError> {
        let n = p.positions.len() as u64;
        let q = self.costs.entry(FrameSource::QuatMap).or_default();
        self.report
            .object_maps
            .push(MapReport::of(&p.label, object));
        let Some(m) = object else {
            q.vertex_bytes += n * crate::mesh::vertex::stride(FALLBACK_FORMAT) as u64;
            q.frame_vertex_bytes +=
                n * crate::mesh::vertex::attribute_bytes(FALLBACK_FORMAT) as u64;
            q.frame_texture_bytes += self.normal_texture_bytes[self.scene.meshes[i].material];
            return Ok(None);
        };
        q.vertex_bytes += position_uv_bytes;
        q.frame_texture_bytes += m.map.texture_bytes();
        let gpu = upload_encoded(self.ctx, &m.map, listener)?;
        let r = self.renderer;
        let bg = r.map_bind_group(self.ctx, &gpu, &r.map_sampler);
        Ok(Some((gpu, bg)))
    }
}

/// A mesh's reference stream (position, UV, f32 normal, tangent and handedness) and position +
/// UV stream (with the map's own UV when it has a layout of its own).
struct Streams {
    reference: Vec<u8>,
    position_uv: Vec<u8>,
}

impl Streams {
    fn of(p: &Prepared, map_uvs: Option<&[glam::Vec2]>) -> Self {
        let mut reference = Vec::with_capacity(p.positions.len() * REFERENCE_STRIDE as usize);
        let mut position_uv = Vec::with_capacity(p.positions.len() * POSITION_UV_STRIDE as usize);
        for (v, ((pos, uv), f)) in p.positions.iter().zip(&p.uvs).zip(&p.frames).enumerate() {
            let head: [f32; 5] = [pos.x, pos.y, pos.z, uv.x, uv.y];
            position_uv.extend_from_slice(bytemuck::cast_slice(&head));
            if let Some(m) = map_uvs.and_then(|m| m.get(v)) {
                position_uv.extend_from_slice(bytemuck::cast_slice(&[m.x, m.y]));
            }
            reference.extend_from_slice(bytemuck::cast_slice(&head));
            let (n, t) = (f.normal, f.tangent);
            let frame: [f32; 7] = [n.x, n.y, n.z, t.x, t.y, t.z, f.handedness()];
            reference.extend_from_slice(bytemuck::cast_slice(&frame));
        }
        Self {
            reference,
            position_uv,
        }
    }
}

/// Passes warnings on to `inner`, each distinct one once (a warning every map upload repeats).
struct Once<'a> {
    inner: &'a mut dyn Listener,
    seen: Vec<Warning>,
}

impl<'a> Once<'a> {
    fn new(inner: &'a mut dyn Listener) -> Self {
        Self {
            inner,
            seen: Vec::new(),
        }
    }
}

impl Listener for Once<'_> {
    fn progress(&mut self, progress: crate::Progress<'_>) {
        self.inner.progress(progress);
    }

    fn warning(&mut self, warning: Warning) {
        if !self.seen.contains(&warning) {
            self.seen.push(warning.clone());
            self.inner.warning(warning);
        }
    }
}

/// A 1×1 identity map: what the map slot holds where a draw reads none.
fn identity_map() -> QuatMap {
    QuatMap {
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
    }
}

/// The scene's objects, each checked to name a mesh.
fn objects(scene: &RenderScene, meshes: usize) -> Result<Vec<GpuObject>, GpuError> {
    scene
        .objects
        .iter()
        .map(|o| {
            if o.mesh >= meshes {
                return Err(GpuError::OutOfRange {
                    what: "mesh".into(),
                    index: o.mesh,
                    len: meshes,
                });
            }
            Ok(GpuObject {
                mesh: o.mesh,
                model: o.model,
                skinned: None,
            })
        })
        .collect()
}

/// The costs in table order: reference, qtangent formats, quaternion maps.
fn sorted_costs(costs: HashMap<FrameSource, ModeCost>) -> Vec<(FrameSource, ModeCost)> {
    let mut costs: Vec<(FrameSource, ModeCost)> = costs.into_iter().collect();
    costs.sort_by_key(|(s, _)| match s {
        FrameSource::Reference => 0,
        FrameSource::QTangent(f) => 1 + f.code() as usize,
        FrameSource::QuatMap => 100,
        FrameSource::QuatMapTangent => 101,
    });
    costs
}
