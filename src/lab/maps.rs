//! The `maps` table's window into the bake: what the tool that measures every map format on a
//! scene needs and a renderer or an asset pipeline does not — a scene mesh's bake input and the
//! renderer's bake settings, one mesh's object-space bake, the BC5 round trip of a normal map,
//! a normal map's mip levels and samples, and a format's storage cost.

use glam::{Vec2, Vec3};

use crate::qmap::{BakeError, BakeMesh, BakeSettings, Baked, Baker, MapFormat, NormalMap};
use crate::render::scene::RENDER_PADDING;
use crate::render::RenderScene;
use crate::Listener;

/// The bake input of mesh `i` of `scene`: its frames and UVs, and its material's normal map.
///
/// # Panics
/// If `i` is not a mesh of the scene.
#[must_use]
pub fn bake_input(scene: &RenderScene, i: usize) -> (BakeMesh, Option<NormalMap>) {
    let m = &scene.meshes[i];
    let label = format!("{}: {}", scene.name, m.mesh.label);
    let bake = BakeMesh::from_prepared(label, &[&m.mesh]);
    (bake, scene.materials[m.material].bake_normal_map())
}

/// Bake settings for a map of `size`² in the renderer's format (rgba16f) with the renderer's
/// padding.
#[must_use]
pub fn bake_settings(size: u32) -> BakeSettings {
    BakeSettings {
        width: size,
        height: size,
        padding: RENDER_PADDING,
        format: MapFormat::Rgba16Float,
    }
}

/// The object-space map of mesh `i` of `scene`, as the renderer bakes it (its normal map and
/// anisotropy direction, a UV layout of its own where its UVs overlap).
///
/// # Errors
/// What [`Baker::object`] reports.
///
/// # Panics
/// If `i` is not a mesh of the scene.
pub fn bake_object(
    scene: &RenderScene,
    i: usize,
    size: u32,
    baker: &Baker<'_>,
    listener: &mut dyn Listener,
) -> Result<Baked, BakeError> {
    scene.bake_object(i, size, baker, listener)
}

/// An 8-bit normal texture as a shipping engine stores it, BC5, every mip level compressed and
/// decoded again (z rebuilt), level 0 first: what a renderer that samples a BC5 normal map sees.
///
/// # Errors
/// [`crate::qmap::BcError`] for a level 0 BC cannot take (not a multiple of 4).
pub fn bc5_round_trip_chain(
    img: &image::RgbaImage,
) -> Result<Vec<image::RgbaImage>, crate::qmap::BcError> {
    crate::qmap::normal_map::bc5_round_trip_chain(img)
}

/// The normal maps of an 8-bit normal texture's mip chain, each unpacked with `scale`: what a
/// renderer samples at each level.
#[must_use]
pub fn normal_map_levels(image: &image::RgbaImage, scale: f32) -> Vec<NormalMap> {
    NormalMap::levels_from_rgba8(image, scale)
}

/// A bilinear sample of `map` at `uv` (repeat wrapping, unnormalised), as the bake reads it.
#[must_use]
pub fn sample_normal_map(map: &NormalMap, uv: Vec2) -> Vec3 {
    map.sample(uv)
}

/// Bytes a texel of `format` takes (1 for BC5 and BC7, 2 for two BC5 layers).
#[must_use]
pub fn bytes_per_texel(format: MapFormat) -> f64 {
    format.bytes_per_texel()
}
