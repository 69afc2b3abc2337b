//! The quaternion maps of a [`RenderScene`] as the renderer draws them and `pack` embeds them:
//! per material a tangent-space map, per mesh an object-space map — each from the file the scene
//! was loaded from, from a folder of KTX2 files `bake` wrote, as authored in code, or baked and
//! stored by the one [`Baker`] (so a packed file draws exactly as its source does).

use std::path::{Path, PathBuf};

use super::scene::{MapSource, RenderScene, SceneMaterial};
use crate::qmap::stored::{file_stem, EncodedMap, KEY_MATERIAL};
use crate::qmap::{BakeError, BakeMesh, Baked, Baker, MapSpace, ObjectInput, Repack, TangentInput};
use crate::qmap::{MapKinds, MapOrigin, SceneMap, SceneMaps};
use crate::report::{Listener, Warning, WarningKind};

impl SceneMaps {
    /// The maps of `scene` of the `kinds` asked for, made by `baker` where they are not in the
    /// scene's file or (for the materials it has) in the options' `maps_dir`. Object-space maps
    /// get a UV layout of their own where the mesh's UVs overlap ([`Repack::WhenOverlapping`]).
    ///
    /// # Errors
    /// Bake, encode and load errors, naming the material or mesh.
    pub fn new(
        scene: &RenderScene,
        baker: &Baker<'_>,
        kinds: MapKinds,
        listener: &mut dyn Listener,
    ) -> Result<Self, BakeError> {
        let maps_dir = baker.options().maps_dir.as_deref();
        let mut maps = Self::default();
        if kinds != MapKinds::Object {
            for m in &scene.materials {
                maps.tangent
                    .push(tangent_map(m, baker, maps_dir, listener)?);
            }
        }
        if kinds != MapKinds::Tangent {
            for i in 0..scene.meshes.len() {
                maps.object
                    .push(object_map(scene, i, baker, maps_dir, listener)?);
            }
        }
        Ok(maps)
    }
}

/// The tangent-space map of a material: from the file, loaded from `maps_dir`, else authored,
/// else baked from its normal map and anisotropy direction; `None` for a material with none.
fn tangent_map(
    material: &SceneMaterial,
    baker: &Baker<'_>,
    maps_dir: Option<&Path>,
    listener: &mut dyn Listener,
) -> Result<Option<SceneMap>, BakeError> {
    let what = format!("material '{}'", material.name);
    if let Some(packed) = &material.packed_tangent_map {
        return Ok(Some(SceneMap::new((**packed).clone(), MapOrigin::File)));
    }
    let field = material.direction_field();
    let wanted = material.tangent_map.is_some() || material.normal.is_some() || field.is_some();
    if let Some(dir) = maps_dir {
        let found = load_from_dir(dir, &material.name, MapSpace::Tangent)?;
        if let Some((map, path)) = found {
            return Ok(Some(SceneMap::new(map, MapOrigin::Loaded(path))));
        }
        if wanted {
            let kind = WarningKind::MapNotInFolder {
                file: format!("{}.ktx2", file_stem(&material.name)),
                folder: dir.to_path_buf(),
            };
            listener.warning(Warning::new(&what, kind));
        }
    }
    let input = TangentInput {
        what: &what,
        normal_map: material.normal.as_ref(),
        normal_scale: material.uniforms.normal_scale,
        direction: field.as_ref(),
        authored: material.tangent_map.as_deref(),
    };
    let origin = if input.authored.is_some() {
        MapOrigin::Authored
    } else {
        MapOrigin::Baked
    };
    Ok(baker.tangent(&input, listener)?.map(|b| SceneMap {
        stats: Some(b.map.stats),
        ..SceneMap::new(b.stored, origin)
    }))
}

/// The object-space map of mesh `i` of `scene` for its [`MapSource`]: from the file, loaded from
/// `maps_dir` for a material only this mesh uses, authored, or baked.
fn object_map(
    scene: &RenderScene,
    i: usize,
    baker: &Baker<'_>,
    maps_dir: Option<&Path>,
    listener: &mut dyn Listener,
) -> Result<Option<SceneMap>, BakeError> {
    let sm = &scene.meshes[i];
    let what = format!("{}: {}", scene.name, sm.mesh.label);
    let material = scene.materials.get(sm.material);
    if let (Some(dir), Some(material)) = (maps_dir, material) {
        let sole = scene
            .meshes
            .iter()
            .filter(|m| m.material == sm.material)
            .count()
            == 1;
        if sole {
            if let Some((map, path)) = load_from_dir(dir, &material.name, MapSpace::Object)? {
                return Ok(Some(SceneMap::new(map, MapOrigin::Loaded(path))));
            }
        }
    }
    match &sm.map {
        MapSource::None => Ok(None),
        MapSource::Packed { map, uvs } => Ok(Some(SceneMap {
            map_uvs: uvs.clone(),
            ..SceneMap::new((**map).clone(), MapOrigin::File)
        })),
        MapSource::Authored(m) => Ok(Some(SceneMap {
            stats: Some(m.stats),
            ..SceneMap::new(
                baker.store(m, MapSpace::Object, &what, listener)?,
                MapOrigin::Authored,
            )
        })),
        MapSource::Bake { size } => {
            let baked = scene.bake_object(i, *size, baker, listener)?;
            Ok(Some(SceneMap {
                map_uvs: baked.map_uvs,
                stats: Some(baked.map.stats),
                ..SceneMap::new(baked.stored, MapOrigin::Baked)
            }))
        }
    }
}

/// The KTX2 file of material `name` in `dir` (`<stem>.ktx2`, or else the file whose
/// `qtangent.material` is `name`; its plane `<stem>.handedness.ktx2`), loaded with its path when
/// it exists and holds a map of `space`.
///
/// # Errors
/// [`BakeError::Ktx2`] naming the file for one that exists but does not read.
pub(crate) fn load_from_dir(
    dir: &Path,
    name: &str,
    space: MapSpace,
) -> Result<Option<(EncodedMap, PathBuf)>, BakeError> {
    let stem = file_stem(name);
    let path = dir.join(format!("{stem}.ktx2"));
    // `bake` renames a stem two materials share (`Name-2`); its files say whose they are.
    let Some(path) = Some(path)
        .filter(|p| p.exists())
        .or_else(|| find_by_material(dir, name))
    else {
        return Ok(None);
    };
    let map = EncodedMap::read_ktx2(&path)?;
    Ok((map.space == space).then_some((map, path)))
}

/// The map file in `dir` whose `qtangent.material` is `name`. Other materials' files are not
/// this lookup's to judge: unreadable ones are skipped.
fn find_by_material(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        let Some(file) = p.file_name().map(|f| f.to_string_lossy().into_owned()) else {
            continue;
        };
        if !file.ends_with(".ktx2") || file.ends_with(".handedness.ktx2") {
            continue;
        }
        if let Ok(tex) = crate::ktx2::read_file(&p) {
            if tex.key_value_text(KEY_MATERIAL) == Some(name) {
                return Some(p);
            }
        }
    }
    None
}

impl RenderScene {
    /// Bakes the object-space map of mesh `i` at `size`² as the renderer does: its material's
    /// normal map and anisotropy direction, a UV layout of its own where its UVs overlap.
    ///
    /// # Errors
    /// What [`Baker::object`] reports.
    ///
    /// # Panics
    /// If `i` is not a mesh of the scene.
    pub(crate) fn bake_object(
        &self,
        i: usize,
        size: u32,
        baker: &Baker<'_>,
        listener: &mut dyn Listener,
    ) -> Result<Baked, BakeError> {
        let sm = &self.meshes[i];
        let material = self.materials.get(sm.material);
        let normal_map = material.and_then(SceneMaterial::bake_normal_map);
        let direction = material.and_then(SceneMaterial::direction_field);
        let label = format!("{}: {}", self.name, sm.mesh.label);
        let input = ObjectInput {
            mesh: BakeMesh::from_prepared(label, &[&sm.mesh]),
            normal_map: normal_map.as_ref(),
            direction: direction.as_ref(),
            size,
            repack: Repack::WhenOverlapping,
        };
        baker.object(input, listener)
    }
}
