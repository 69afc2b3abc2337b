//! The quaternion maps of a scene as the renderer draws them, in their stored form
//! ([`EncodedMap`]): tangent-space maps per material (authored, or baked on the GPU from the
//! material's normal map by [`super::bake_tangent`]) and object-space maps per mesh (baked on
//! the GPU by [`super::bake`], repacked where the mesh's UVs overlap), each stored in the format
//! [`MapOptions`] asks for — or loaded from a folder of KTX2 files `bake` wrote.

use std::path::{Path, PathBuf};

use glam::Vec2;

use super::{GpuContext, GpuError};
use crate::qmap::bc::Bc7Quality;
use crate::qmap::stored::{file_stem, EncodedMap, KEY_MATERIAL};
use crate::qmap::{self, anisotropy, atlas, tangent, MapFormat, MapSpace, NormalMap, QuatMap};
use crate::render::scene::{self, RenderScene, SceneMaterial};
use crate::render::MapOptions;

/// The BC7 effort `bake` uses by default (the renderer's is [`MapOptions::bc7`]).
pub const BC7_QUALITY: Bc7Quality = Bc7Quality::Basic;

/// The format a map of `space` and `size` is stored in under `options`: the asked one, or the
/// compressed default. Where that cannot hold the map the renderer still draws it, and `warn`
/// says how: BC5 asked of an object-space map or of a tilt with a twist becomes BC7 (it holds
/// two numbers a texel); a block format of a size BC cannot take (a side not a multiple of 4, e.g. a 250² normal
/// map) becomes rgba16f.
fn choose(
    options: &MapOptions,
    space: MapSpace,
    (four_channels, size): (bool, (u32, u32)),
    what: &str,
    warn: &mut dyn FnMut(String),
) -> MapFormat {
    let format = choose_kind(options, space, four_channels, what, warn);
    if format.is_compressed() {
        if let Err(e) = crate::qmap::bc::check_size(size.0, size.1) {
            warn(format!("{what}: {e}; stored as rgba16f"));
            return MapFormat::Rgba16Float;
        }
    }
    format
}

fn choose_kind(
    options: &MapOptions,
    space: MapSpace,
    four_channels: bool,
    what: &str,
    warn: &mut dyn FnMut(String),
) -> MapFormat {
    match options.format {
        Some(MapFormat::Bc5) if space == MapSpace::Object || four_channels => {
            warn(format!(
                "{what}: bc5 cannot hold {}; stored as bc7",
                if four_channels {
                    "a tilt and a twist (x, y, z ≠ 0)"
                } else {
                    "an object-space map"
                }
            ));
            MapFormat::Bc7
        }
        Some(f) => f,
        None => MapFormat::default_for(space, four_channels),
    }
}

/// Stores a baked map, turning encoder errors (sizes BC cannot take) into [`GpuError::Input`]
/// naming `what`.
fn store(
    map: &QuatMap,
    space: MapSpace,
    format: MapFormat,
    (keep_handedness, quality): (bool, Bc7Quality),
    what: &str,
) -> Result<EncodedMap, GpuError> {
    EncodedMap::encode(map, space, format, keep_handedness, quality)
        .map_err(|e| GpuError::Input(format!("{what}: {e}")))
}

/// Bakes the object-space map of mesh `i` of `scene` at `size`² in `format` on the GPU, as the
/// renderer draws it: where more than [`atlas::OVERLAP_THRESHOLD`] of its UV texels overlap, in
/// a layout of its own ([`atlas::unique_layout`]) at twice the side (within
/// [`scene::MAX_AUTO_BAKE_SIZE`]), its normal map resampled into it; returns the map and that
/// layout's UVs (one per vertex) when it was repacked.
///
/// # Errors
/// Bake errors.
pub fn bake_object(
    ctx: &GpuContext,
    scene: &RenderScene,
    i: usize,
    size: u32,
    format: MapFormat,
    progress: &mut dyn FnMut(&str),
) -> Result<(QuatMap, Option<Vec<Vec2>>), GpuError> {
    let label = &scene.meshes[i].mesh.label;
    let (mut bake, mut normal_map) = scene.bake_input(i);
    let overlap = atlas::overlap_fraction(&bake).map_err(|e| GpuError::Input(e.to_string()))?;
    let repack = overlap > atlas::OVERLAP_THRESHOLD;
    // Repacked, the parts that shared texels share the square instead: twice the side keeps
    // their texel density.
    let size = if repack {
        (size.saturating_mul(2)).min(scene::MAX_AUTO_BAKE_SIZE.max(size))
    } else {
        size
    };
    let mut settings = RenderScene::bake_settings(size);
    settings.format = format;
    let mut map_uvs = None;
    let mut source_uvs = None;
    if repack {
        progress(&format!(
            "{label}: {:.0}% of its UV texels overlap; its object-space map gets a layout of its own",
            overlap * 100.0
        ));
        let uvs = atlas::unique_layout(&bake, size, 2 * settings.padding + 2);
        if let Some(nm) = &normal_map {
            normal_map = Some(atlas::resample_normal_map(
                &bake,
                &uvs,
                nm,
                size,
                settings.padding as f32 + 2.0,
            ));
        }
        if scene.materials[scene.meshes[i].material]
            .anisotropy
            .is_some()
        {
            source_uvs = Some(atlas::source_uvs(
                &bake,
                &uvs,
                size,
                settings.padding as f32 + 2.0,
            ));
        }
        bake.uvs.clone_from(&uvs);
        map_uvs = Some(uvs);
    }
    progress(&format!("baking the {size}² object-space map of {label}"));
    let mut raster = super::bake::raster_gpu(
        ctx,
        &bake,
        normal_map.as_ref(),
        &settings,
        &mut |_, _, _| {},
    )?;
    // KHR_materials_anisotropy: the map's tangent is the anisotropy direction.
    if let Some(field) = scene.materials[scene.meshes[i].material].direction_field() {
        anisotropy::turn_raster(&mut raster, &field, source_uvs.as_deref());
    }
    Ok((
        qmap::finish(&raster, settings.padding, &mut |_, _, _| {}),
        map_uvs,
    ))
}

/// The KTX2 file of material `name` in `dir` (`<stem>.ktx2`, or else the file whose
/// `qtangent.material` is `name`; its plane `<stem>.handedness.ktx2`), loaded with its path when
/// it exists and holds a map of `space`.
///
/// # Errors
/// [`GpuError::Input`] naming the file for one that exists but does not read.
pub fn load_from_dir(
    dir: &Path,
    name: &str,
    space: MapSpace,
) -> Result<Option<(EncodedMap, PathBuf)>, GpuError> {
    let read = |p: &Path| crate::ktx2::read_file(p).map_err(|e| GpuError::Input(e.to_string()));
    let stem = file_stem(name);
    let mut path: PathBuf = dir.join(format!("{stem}.ktx2"));
    let mut main = None;
    if path.exists() {
        main = Some(read(&path)?);
    } else {
        // `bake` renames a stem two materials share (`Name-2`); its files say whose they are.
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = entry.path();
            let file = p.file_name().map(|f| f.to_string_lossy().into_owned());
            let Some(file) = file else { continue };
            if !file.ends_with(".ktx2") || file.ends_with(".handedness.ktx2") {
                continue;
            }
            // Other materials' files are not this lookup's to judge: unreadable ones are skipped.
            if let Ok(tex) = crate::ktx2::read_file(&p) {
                if crate::ktx2::key_value_text(&tex, KEY_MATERIAL) == Some(name) {
                    path = p;
                    main = Some(tex);
                    break;
                }
            }
        }
    }
    let Some(main) = main else {
        return Ok(None);
    };
    let file = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let plane_path = path.with_file_name(format!(
        "{}.handedness.ktx2",
        file.strip_suffix(".ktx2").unwrap_or(&file)
    ));
    let plane = if plane_path.exists() {
        Some(read(&plane_path)?)
    } else {
        None
    };
    let map = EncodedMap::from_ktx2(&path.display().to_string(), &main, plane.as_ref())
        .map_err(|e| GpuError::Input(e.to_string()))?;
    Ok((map.space == space).then_some((map, path)))
}

/// The tangent-space map of a material: loaded from [`MapOptions::maps_dir`], else its authored
/// map, else baked on the GPU from its normal map (every level of the normal map's mip chain, as
/// the renderer uploads it); `None` for a material with neither.
///
/// # Errors
/// Bake, encode and load errors, naming the material.
pub fn tangent_map(
    ctx: &GpuContext,
    material: &SceneMaterial,
    options: &MapOptions,
    progress: &mut dyn FnMut(&str),
    warn: &mut dyn FnMut(String),
) -> Result<Option<EncodedMap>, GpuError> {
    let what = format!("material '{}'", material.name);
    let field = material.direction_field();
    if let Some(packed) = &material.packed_tangent_map {
        progress(&format!("{what}: tangent-space map from the file"));
        return Ok(Some((**packed).clone()));
    }
    let wanted = material.tangent_map.is_some() || material.normal.is_some() || field.is_some();
    if let Some(dir) = &options.maps_dir {
        let found = load_from_dir(dir, &material.name, MapSpace::Tangent)?;
        if found.is_none() && wanted {
            warn(format!(
                "{what}: no tangent-space map {}.ktx2 in {}; baked instead",
                file_stem(&material.name),
                dir.display()
            ));
        }
        if let Some((m, path)) = found {
            progress(&format!(
                "{what}: tangent-space map loaded from {}",
                path.display()
            ));
            return Ok(Some(m));
        }
    }
    if let Some(authored) = &material.tangent_map {
        let four = tangent::has_twist(authored) && tangent::has_tilt(authored);
        let size = (authored.width(), authored.height());
        let format = choose(options, MapSpace::Tangent, (four, size), &what, warn);
        return store(
            authored,
            MapSpace::Tangent,
            format,
            (false, options.bc7),
            &what,
        )
        .map(Some);
    }
    // The normal map's levels, or flat ones the anisotropy texture's size; its direction is
    // the twist (KHR_materials_anisotropy: the map's tangent is the anisotropy direction).
    let levels = match (&material.normal, &material.anisotropy) {
        (Some(normal), _) => NormalMap::levels_from_rgba8(normal, material.uniforms.normal_scale),
        (None, Some(a)) => NormalMap::flat_levels(a.width(), a.height()),
        (None, None) => return Ok(None),
    };
    // Axial: the twist is stored doubled (EncodedMap::axial_twist), so d and −d are q and −q.
    let twist = field.map(|f| {
        let sizes: Vec<(u32, u32)> = levels.iter().map(|l| (l.width, l.height)).collect();
        f.axial_twist_levels(&sizes)
    });
    let axial = twist.is_some();
    let twist = twist.as_deref().map(tangent::TwistField::Texels);
    // Four channels for a normal map's tilt and a twist together; BC5 holds either alone.
    let format = choose(
        options,
        MapSpace::Tangent,
        (
            twist.is_some() && material.normal.is_some(),
            (levels[0].width, levels[0].height),
        ),
        &what,
        warn,
    );
    // A per-texel formula with no raster: on a CPU adapter (lavapipe) the CPU bake on every core
    // is several times faster than the dispatch and its copies (docs/MAPS.md); the two agree to
    // one step of the format (tests/it/qmap_tangent.rs).
    let map = if ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu {
        tangent::bake_cpu(&levels, twist, format.raster())
    } else {
        super::bake_tangent::bake_gpu(ctx, &levels, twist, format.raster())?
    };
    store(&map, MapSpace::Tangent, format, (false, options.bc7), &what).map(|mut m| {
        m.axial_twist = axial;
        Some(m)
    })
}

/// An object-space map of a scene mesh, and the UV layout it was baked in when the mesh's UVs
/// overlap (then drawn with that second UV set).
pub struct ObjectMap {
    /// The stored map.
    pub map: EncodedMap,
    /// The map's own UVs (one per vertex) when it was repacked ([`atlas`]).
    pub map_uvs: Option<Vec<Vec2>>,
    /// The bake's statistics (default for a map loaded from a file).
    pub stats: qmap::MapStats,
}

/// The object-space map of mesh `i` of `scene` for its [`scene::MapSource`]: authored as it
/// is, baked on the GPU (repacked at twice the side where more than
/// [`atlas::OVERLAP_THRESHOLD`] of its texels overlap), or loaded from the maps folder for a
/// material only this mesh uses; `None` for a mesh without one.
///
/// # Errors
/// Bake, encode and load errors.
pub fn object_map(
    ctx: &GpuContext,
    scene: &RenderScene,
    i: usize,
    options: &MapOptions,
    progress: &mut dyn FnMut(&str),
    warn: &mut dyn FnMut(String),
) -> Result<Option<ObjectMap>, GpuError> {
    let sm = &scene.meshes[i];
    let label = sm.mesh.label.clone();
    let what = format!("{}: {label}", scene.name);
    if let (Some(dir), Some(material)) = (&options.maps_dir, scene.materials.get(sm.material)) {
        let sole = scene
            .meshes
            .iter()
            .filter(|m| m.material == sm.material)
            .count()
            == 1;
        if sole {
            if let Some((map, path)) = load_from_dir(dir, &material.name, MapSpace::Object)? {
                progress(&format!(
                    "{what}: object-space map loaded from {}",
                    path.display()
                ));
                return Ok(Some(ObjectMap {
                    map,
                    map_uvs: None,
                    stats: qmap::MapStats::default(),
                }));
            }
        }
    }
    match &sm.map {
        scene::MapSource::None => Ok(None),
        scene::MapSource::Packed { map, uvs } => Ok(Some(ObjectMap {
            map: (**map).clone(),
            map_uvs: uvs.clone(),
            stats: qmap::MapStats::default(),
        })),
        // Authored maps keep their handedness plane: made by hand, their handedness need not
        // follow the UV winding.
        scene::MapSource::Authored(m) => store(
            m,
            MapSpace::Object,
            choose(
                options,
                MapSpace::Object,
                (false, (m.width(), m.height())),
                &what,
                warn,
            ),
            (true, options.bc7),
            &what,
        )
        .map(|map| {
            Some(ObjectMap {
                map,
                map_uvs: None,
                stats: m.stats,
            })
        }),
        scene::MapSource::Bake { size } => {
            let format = choose(
                options,
                MapSpace::Object,
                (false, (*size, *size)),
                &what,
                warn,
            );
            let (map, map_uvs) = bake_object(ctx, scene, i, *size, format.raster(), progress)?;
            let stats = map.stats;
            store(
                &map,
                MapSpace::Object,
                format,
                (options.keep_handedness, options.bc7),
                &what,
            )
            .map(|map| {
                Some(ObjectMap {
                    map,
                    map_uvs,
                    stats,
                })
            })
        }
    }
}

/// The maps `pack` embeds ([`crate::pack`]) for a scene loaded from a file
/// ([`RenderScene::load`]): per material a tangent-space map, or per mesh an object-space map,
/// as the renderer would make them under `options` — so a packed file draws exactly as its
/// source does. `progress` hears each stage; `warn` what was approximated.
///
/// # Errors
/// As [`tangent_map`] and [`object_map`].
pub fn for_pack(
    ctx: &GpuContext,
    scene: &RenderScene,
    kind: crate::pack::MapKind,
    options: &MapOptions,
    progress: &mut dyn FnMut(&str),
    warn: &mut dyn FnMut(String),
) -> Result<crate::pack::PackMaps, GpuError> {
    use crate::pack::{MapKind, ObjectMapOut, PackMaps};
    let mut maps = PackMaps::default();
    // RenderScene::load appends a default material after the file's; it has nothing to bake.
    let file_materials = scene.loaded().map_or(0, |s| s.materials.len());
    match kind {
        MapKind::None => {}
        MapKind::Tangent => {
            for m in scene.materials.iter().take(file_materials) {
                maps.tangent
                    .push(tangent_map(ctx, m, options, progress, warn)?);
            }
        }
        MapKind::Object => {
            for i in 0..scene.meshes.len() {
                maps.object.push(
                    object_map(ctx, scene, i, options, progress, warn)?.map(|o| ObjectMapOut {
                        map: o.map,
                        uvs: o.map_uvs,
                    }),
                );
            }
        }
    }
    Ok(maps)
}
