//! The scene `qtangent render` and `qtangent view` draw: the SCENE argument and the quaternion-map flags, and
//! the upload that reports where each map came from. Included by those tools
//! (`#[path = "<relative path>/examples/common/scene.rs"] mod scene;`, with `cli` and `console` beside it).

#![allow(dead_code)] // each tool uses what it needs

use std::path::PathBuf;

use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, Renderer, UploadReport};
use qtangent::qmap::MapOrigin;
use qtangent::qmap::{Bc7Quality, BcEncoder};
use qtangent::qmap::{MapFormat, MapOptions};
use qtangent::render::RenderScene;
use qtangent::skin::Rig;
use qtangent::Format;

use crate::cli::names;
use crate::console::Console;

/// The scene to draw and how its quaternion maps are made.
#[derive(clap::Args, Debug, Clone)]
pub struct SceneArgs {
    /// A glTF (.gltf/.glb) or OBJ file, or `default` for the embedded default scene.
    #[arg(default_value = "default")]
    pub scene: PathBuf,
    /// Stored format of both kinds of quaternion map: rgba16f, snorm16, snorm8, rgba32f, bc5,
    /// bc7, bc5x2 (default: the compressed one — bc5 for tangent-space maps, bc5x2 for those
    /// with a twist as well as a normal, bc7 for object-space maps).
    #[arg(long, value_parser = names::<MapFormat>(MapFormat::ALL.map(MapFormat::name)))]
    pub map_format: Option<MapFormat>,
    /// Keep the object-space maps' handedness plane instead of deriving the handedness from the
    /// UV winding.
    #[arg(long)]
    pub keep_handedness: bool,
    /// BC7 encoder effort for the maps baked here: ultrafast (about 1 s per 2048² map on two
    /// cores), veryfast, fast, basic (the default of every tool, what ships; about 16 s), slow.
    #[arg(long, default_value_t = MapOptions::default().bc7,
          value_parser = names::<Bc7Quality>(Bc7Quality::ALL.map(Bc7Quality::name)))]
    pub bc7_quality: Bc7Quality,
    /// BC5/BC7 encoder: bc7e (the default: Binomial's bc7e for BC7, Intel's ISPC kernel for BC5), bc7f (Binomial's bc7f for BC7: faster, larger error), ispc (Intel's ISPC kernels for both) or portable (`block_compression`'s Rust port of them, several times slower)
    #[arg(long, default_value_t = MapOptions::default().encoder,
          value_parser = names::<BcEncoder>(BcEncoder::ALL.map(BcEncoder::name)))]
    pub bc_encoder: BcEncoder,
    /// A folder of KTX2 maps written by `qtangent bake` (`<material>.ktx2`): used for the
    /// materials it has, instead of baking.
    #[arg(long, value_name = "DIR")]
    pub maps_dir: Option<PathBuf>,
    /// Side of every baked quaternion map (default: one texel per normal-map texel, at least
    /// 256; the default scene uses 512).
    #[arg(long)]
    pub map_size: Option<u32>,
    /// Generate missing tangents with the MikkTSpace reference code, bit for bit as a baker using
    /// mikktspace.c saw them, instead of meshoptimizer's compatible generator (within 0.03°).
    #[arg(long)]
    pub exact_mikktspace: bool,
}

/// Sets [`qtangent::mesh::Primitive::exact_mikktspace`] on every primitive of `scene`.
pub fn exact_mikktspace(scene: &mut qtangent::mesh::Scene) {
    for m in &mut scene.meshes {
        for p in &mut m.primitives {
            p.exact_mikktspace = true;
        }
    }
}

impl SceneArgs {
    /// Whether SCENE is `default`, the embedded default scene.
    pub fn is_default(&self) -> bool {
        self.scene.as_os_str() == "default"
    }

    /// Checks the flags before any work: `--map-size` in range, `--maps-dir` a folder, the
    /// scene file present.
    pub fn check(&self) -> Result<(), String> {
        if let Some(size) = self.map_size.filter(|s| !(1..=16384).contains(s)) {
            return Err(format!("--map-size {size} is outside 1 to 16384"));
        }
        if let Some(dir) = self.maps_dir.as_ref().filter(|d| !d.is_dir()) {
            return Err(format!("--maps-dir {}: not a folder", dir.display()));
        }
        if self.is_default() {
            return Ok(());
        }
        crate::files::must_be_file("", &self.scene)
    }

    /// The scene named by SCENE, its maps sized by `--map-size`. Its warnings are left for the
    /// tool to print.
    pub fn load(&self) -> Result<RenderScene, String> {
        // `default` is the embedded default scene, anything else a file.
        let scene = if self.is_default() {
            qtangent::lab::content::default_scene()
        } else {
            qtangent::mesh::load(&self.scene)
                .map_err(qtangent::render::SceneError::from)
                .and_then(|mut loaded| {
                    if self.exact_mikktspace {
                        exact_mikktspace(&mut loaded);
                    }
                    RenderScene::from_loaded(&self.scene, loaded)
                })
        };
        let mut scene = scene.map_err(|e| e.to_string())?;
        if let Some(size) = self.map_size {
            if !(1..=16384).contains(&size) {
                return Err(format!("--map-size {size} is outside 1 to 16384"));
            }
            for m in &mut scene.meshes {
                if let qtangent::render::MapSource::Bake { size: s } = &mut m.map {
                    *s = size;
                }
            }
        }
        Ok(scene)
    }

    /// The map options the flags ask for; `--maps-dir` must be a folder.
    pub fn map_options(&self) -> Result<MapOptions, String> {
        if let Some(dir) = &self.maps_dir {
            if !dir.is_dir() {
                return Err(format!("--maps-dir {}: not a folder", dir.display()));
            }
        }
        Ok(MapOptions {
            format: self.map_format,
            keep_handedness: self.keep_handedness,
            maps_dir: self.maps_dir.clone(),
            bc7: self.bc7_quality,
            encoder: self.bc_encoder,
            ..MapOptions::default()
        })
    }
}

/// Uploads `scene` with the qtangent `formats` and its maps made as `options` say, printing
/// the bake's progress, the maps loaded from a folder and the objects quatmap mode draws with
/// vertex frames, each line headed by `tool`. Errors name the scene.
pub fn upload(
    tool: &'static str,
    ctx: &GpuContext,
    renderer: &Renderer,
    scene: &RenderScene,
    formats: &[Format],
    options: &MapOptions,
) -> Result<GpuScene, String> {
    let gpu = renderer
        .upload(
            ctx,
            scene,
            formats,
            options,
            &mut Console::with_progress(tool),
        )
        .map_err(|e| format!("{}: {e}", scene.name))?;
    if crate::console::quiet() {
        return Ok(gpu);
    }
    print_map_origins(tool, gpu.report());
    for m in gpu
        .report()
        .object_maps
        .iter()
        .filter(|m| m.format.is_none())
    {
        eprintln!(
            "note: {} has no quaternion map; quatmap mode draws it with its qtangent vertex frames",
            m.name
        );
    }
    Ok(gpu)
}

/// The device, the renderer and `scene` uploaded on it ([`upload`]): what `render` and `view
/// --screenshot` draw with. Errors name what failed.
pub fn open(
    tool: &'static str,
    scene: &RenderScene,
    formats: &[Format],
    options: &MapOptions,
) -> Result<(GpuContext, Renderer, GpuScene), String> {
    let ctx = GpuContext::new().map_err(|e| crate::console::advise(&e))?;
    let renderer = Renderer::new(&ctx).map_err(|e| e.to_string())?;
    let gpu = upload(tool, &ctx, &renderer, scene, formats, options)?;
    Ok((ctx, renderer, gpu))
}

/// `name: N meshes, N objects, N vertices, N triangles drawn`: what `gpu` holds of `scene`.
pub fn summary(scene: &RenderScene, gpu: &GpuScene) -> String {
    format!(
        "{}: {} meshes, {} objects, {} vertices, {} triangles drawn",
        scene.name,
        scene.meshes.len(),
        scene.objects.len(),
        gpu.report().vertices,
        gpu.report().triangles
    )
}

/// Names the maps loaded from the maps folder.
fn print_map_origins(tool: &str, report: &UploadReport) {
    let kinds = [
        ("tangent", &report.tangent_maps),
        ("object", &report.object_maps),
    ];
    for (kind, maps) in kinds {
        for m in maps {
            if let Some(MapOrigin::Loaded(path)) = &m.origin {
                let name = &m.name;
                eprintln!(
                    "{tool}: {name}: {kind}-space map loaded from {}",
                    path.display()
                );
            }
        }
    }
}

/// The skinning rig of `scene`'s skinned objects, their skins and joints from `loaded` (the file
/// `scene` was made from); its warnings printed, headed by `tool`.
pub fn skinned_rig(
    tool: &str,
    loaded: &qtangent::mesh::Scene,
    scene: &RenderScene,
) -> Result<Rig, String> {
    let objects = scene.objects.iter().enumerate();
    let rig = Rig::new(
        loaded,
        objects.filter_map(|(k, o)| o.skin.map(|s| (k, &scene.meshes[o.mesh].mesh, s))),
    )
    .map_err(|e| e.to_string())?;
    for w in &rig.warnings {
        eprintln!("{tool}: warning: {w}");
    }
    Ok(rig)
}
