//! Tangent-space quaternion maps of a packed file: the material's `QTANGENT_frames.tangentMap`,
//! its texture's `QTANGENT_frames.source` image (a KTX2 file qtangent wrote, read by qtangent's
//! own reader), uploaded as Bevy images in their stored block format.

use bevy::asset::{LoadContext, RenderAssetUsages};
use bevy::image::{Image, ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor};
use bevy::math::{Affine2, Vec2};
use bevy::prelude::Handle;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use qtangent::EncodedMap;
use qtangent::qmap::{MapDecode, MapFormat, MapSpace};
use serde_json::Value;

pub(crate) const EXTENSION: &str = "QTANGENT_frames";

/// A material's map, as the shader reads it.
#[derive(Clone, Debug)]
pub(crate) struct MaterialMap {
    /// The map (for two-layer maps, the first layer: the normal's (x, y)).
    pub(crate) map: Handle<Image>,
    /// The second layer of a two-layer (`bc5x2`) map: the twist's (z, w).
    pub(crate) twist: Option<Handle<Image>>,
    /// How the shader turns a sample into a quaternion.
    pub(crate) decode: MapDecode,
    /// The twist is stored doubled (an anisotropy direction): the shader halves it.
    pub(crate) axial: bool,
    /// Read with UV set 1 (`texCoord` 1) instead of 0.
    pub(crate) uv_b: bool,
}

/// The texture transform of a glTF texture info JSON, as Bevy's loader turns one into
/// `StandardMaterial::uv_transform`.
pub(crate) fn texture_transform(info: &Value) -> Option<Affine2> {
    let t = info.get("extensions")?.get("KHR_texture_transform")?;
    let pair = |k: &str, d: f32| {
        t.get(k)
            .and_then(Value::as_array)
            .map_or(Vec2::splat(d), |a| {
                Vec2::new(
                    a.first().and_then(Value::as_f64).unwrap_or(f64::from(d)) as f32,
                    a.get(1).and_then(Value::as_f64).unwrap_or(f64::from(d)) as f32,
                )
            })
    };
    let rotation = t.get("rotation").and_then(Value::as_f64).unwrap_or(0.0) as f32;
    Some(Affine2::from_scale_angle_translation(
        pair("scale", 1.0),
        -rotation,
        pair("offset", 0.0),
    ))
}

/// The bytes of image `index` of a GLB (its buffer view in the binary chunk) or of a data URI.
fn image_bytes(
    json: &gltf::json::Root,
    blob: Option<&[u8]>,
    index: usize,
) -> Result<Vec<u8>, String> {
    let image = json
        .images
        .get(index)
        .ok_or_else(|| format!("image {index} does not exist"))?;
    if let Some(view) = image.buffer_view {
        let view = json
            .buffer_views
            .get(view.value())
            .ok_or_else(|| format!("image {index}: buffer view {} does not exist", view.value()))?;
        let buffer = json.buffers.get(view.buffer.value());
        if buffer.is_some_and(|b| b.uri.is_some()) {
            return Err(format!(
                "image {index} lies in an external buffer; the plugin reads maps embedded in a GLB"
            ));
        }
        let blob = blob.ok_or_else(|| format!("image {index}: the file has no binary chunk"))?;
        let start = view.byte_offset.map_or(0, |o| o.0 as usize);
        let len = view.byte_length.0 as usize;
        return blob
            .get(start..start + len)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| format!("image {index}: its bytes are past the binary chunk"));
    }
    Err(format!(
        "image {index} is a URI; the plugin reads maps embedded in a GLB (as pack writes them)"
    ))
}

/// The map of material JSON `material` (index `m`), if it names one: its images added to the
/// load as `QTangentMap{image}` (and `QTangentMap{image}/twist`).
pub(crate) fn material_map(
    lc: &mut LoadContext<'_>,
    json: &gltf::json::Root,
    blob: Option<&[u8]>,
    m: usize,
) -> Result<Option<MaterialMap>, String> {
    let Some(ext) = json.materials[m]
        .extensions
        .as_ref()
        .and_then(|e| e.others.get(EXTENSION))
    else {
        return Ok(None);
    };
    let Some(info) = ext.get("tangentMap") else {
        return Ok(None);
    };
    let texture = info
        .get("index")
        .and_then(Value::as_u64)
        .ok_or("tangentMap has no index")? as usize;
    let texture_json = json
        .textures
        .get(texture)
        .ok_or_else(|| format!("tangentMap names texture {texture}, which does not exist"))?;
    let image = texture_json
        .extensions
        .as_ref()
        .and_then(|e| e.others.get(EXTENSION))
        .and_then(|e| e.get("source"))
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("texture {texture} has no QTANGENT_frames.source"))?
        as usize;
    let bytes = image_bytes(json, blob, image).map_err(|e| format!("texture {texture}: {e}"))?;
    let what = format!("texture {texture}, image {image}");
    let map = EncodedMap::read_ktx2_bytes(&what, &bytes).map_err(|e| e.to_string())?;
    if map.space != MapSpace::Tangent {
        return Err(format!(
            "{what} is an object-space map, named as a tangentMap"
        ));
    }
    let tex_coord = info.get("texCoord").and_then(Value::as_u64).unwrap_or(0);
    if tex_coord > 1 {
        return Err(format!(
            "tangentMap reads UV set {tex_coord}; the plugin reads sets 0 and 1"
        ));
    }
    let (layers, format) = match map.format {
        // The normal layout is UNORM, n·½ + ½ (the shared WGSL's MAP_DECODE_BC5_NORMAL).
        MapFormat::Bc5 if map.normal_xy => (1, TextureFormat::Bc5RgUnorm),
        MapFormat::Bc5 => (1, TextureFormat::Bc5RgSnorm),
        MapFormat::Bc5Pair => (2, TextureFormat::Bc5RgSnorm),
        MapFormat::Bc7 => (1, TextureFormat::Bc7RgbaUnorm),
        MapFormat::Rgba16Float => (1, TextureFormat::Rgba16Float),
        MapFormat::Rgba16Snorm => (1, TextureFormat::Rgba16Snorm),
        MapFormat::Rgba8Snorm => (1, TextureFormat::Rgba8Snorm),
        MapFormat::Rgba32Float => (1, TextureFormat::Rgba32Float),
    };
    let mut images = (0..layers).map(|layer| {
        let levels: Vec<u8> = map
            .levels
            .iter()
            .flat_map(|l| {
                let half = l.len() / layers;
                l[layer * half..(layer + 1) * half].iter().copied()
            })
            .collect();
        let mut image = Image::new_uninit(
            Extent3d {
                width: map.width,
                height: map.height,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            format,
            RenderAssetUsages::RENDER_WORLD,
        );
        image.texture_descriptor.mip_level_count = map.levels.len() as u32;
        image.data = Some(levels);
        // Tangent-space maps tile: repeat, trilinear (as pack's sampler says).
        image.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
            address_mode_u: ImageAddressMode::Repeat,
            address_mode_v: ImageAddressMode::Repeat,
            mag_filter: ImageFilterMode::Linear,
            min_filter: ImageFilterMode::Linear,
            mipmap_filter: ImageFilterMode::Linear,
            ..Default::default()
        });
        image
    });
    let first = images.next().expect("one layer at least");
    let second = images.next();
    let map_handle = lc.add_labeled_asset(format!("QTangentMap{image}"), first);
    let twist = second.map(|s| lc.add_labeled_asset(format!("QTangentMap{image}/twist"), s));
    Ok(Some(MaterialMap {
        map: map_handle,
        twist,
        decode: map.decode(),
        axial: map.axial_twist,
        uv_b: tex_coord == 1,
    }))
}
