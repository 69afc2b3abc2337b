//! What `qtangent pack` loads and reads back: the scene, its prepared primitives and the maps to
//! embed; the frames a written file holds against those packed.

use std::path::Path;

use qtangent::gpu::GpuContext;
use qtangent::measure::FrameErrors;
use qtangent::mesh::{self, Prepared, Scene};
use qtangent::pack::{MapKind, Packed};
use qtangent::qmap::{Baker, MapOptions};
use qtangent::qmap::{MapKinds, SceneMaps};
use qtangent::render::RenderScene;

/// The scene at `path` (tangents generated with the MikkTSpace reference code where `exact`),
/// its prepared primitives and the maps of kind `maps` (baked on `ctx`, which `MapKind::None`
/// does not need; the bake's progress and warnings go to `listener`).
pub fn load(
    path: &Path,
    maps: MapKind,
    exact: bool,
    ctx: Option<&GpuContext>,
    listener: &mut dyn qtangent::Listener,
) -> Result<(Scene, Vec<Prepared>, SceneMaps), String> {
    let mut scene = mesh::load(path).map_err(|e| e.to_string())?;
    if exact {
        crate::scene::exact_mikktspace(&mut scene);
    }
    let Some(ctx) = ctx.filter(|_| maps != MapKind::None) else {
        let prepared = scene.prepare().map_err(|e| e.to_string())?;
        return Ok((scene, prepared, SceneMaps::default()));
    };
    let render = RenderScene::from_loaded(path, scene).map_err(|e| e.to_string())?;
    let kinds = match maps {
        MapKind::Object => MapKinds::Object,
        _ => MapKinds::Tangent,
    };
    let options = MapOptions::default();
    let baker = Baker::new(ctx.raster_backend(), &options);
    let maps = SceneMaps::new(&render, &baker, kinds, listener).map_err(|e| e.to_string())?;
    let scene = render
        .source
        .ok_or("the render scene kept no loaded file")?;
    // The renderer draws meshes at their default morph weights; the file stores the rest pose.
    let posed = scene
        .meshes
        .iter()
        .any(|m| m.weights.iter().any(|&w| w != 0.0));
    let prepared = if posed {
        scene.prepare().map_err(|e| e.to_string())?
    } else {
        render.meshes.iter().map(|m| m.mesh.clone()).collect()
    };
    Ok((scene, prepared, maps))
}

/// The packed GLB read back from memory (named `output` in messages) and prepared: its frames
/// against `packed`'s, over the primitives that store frames; an error where it cannot be read
/// or a primitive's vertex count changed.
pub fn read_back(output: &Path, packed: &Packed) -> Result<FrameErrors, String> {
    let back = mesh::load_bytes(&output.with_extension("glb"), &packed.glb, None)
        .and_then(|s| s.prepare())
        .map_err(|e| format!("reading the output back: {e}"))?;
    let mut errors = FrameErrors::default();
    let stored = packed.primitives.iter().zip(&back).zip(&packed.frameless);
    for ((p, b), _) in stored.filter(|(_, &frameless)| !frameless) {
        if p.frames.len() != b.frames.len() {
            return Err(format!(
                "reading the output back: {}: {} vertices written, {} read",
                p.label,
                p.frames.len(),
                b.frames.len()
            ));
        }
        for (f, g) in p.frames.iter().zip(&b.frames) {
            errors.add(f, g);
        }
    }
    Ok(errors)
}
