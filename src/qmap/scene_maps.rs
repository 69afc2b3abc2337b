//! A scene's quaternion maps, as `pack` embeds them and the renderer draws them: per material a
//! tangent-space map, per mesh an object-space map, each with where it came from. Made by
//! `SceneMaps::new` (with the `render` feature: from a `render::RenderScene`, each map from the
//! scene's file, a folder of KTX2 files, code, or the one [`super::Baker`]); `SceneMaps::default()`
//! is none.

use std::path::PathBuf;

use glam::Vec2;

use super::{EncodedMap, MapStats};

/// Which kinds of map to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapKinds {
    /// Tangent-space maps only (per material).
    Tangent,
    /// Object-space maps only (per mesh).
    Object,
    /// Both.
    Both,
}

/// Where a scene's map came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapOrigin {
    /// Embedded in the file the scene was loaded from (a packed file).
    File,
    /// Loaded from a KTX2 file of the maps folder.
    Loaded(PathBuf),
    /// Authored in code (stored as the options ask).
    Authored,
    /// Baked here.
    Baked,
}

/// A material's tangent-space map or a mesh's object-space map.
#[derive(Debug, Clone)]
#[cfg_attr(
    not(all(feature = "gpu", feature = "gltf", feature = "render")),
    allow(dead_code)
)]
pub(crate) struct SceneMap {
    /// The stored map.
    pub(crate) map: EncodedMap,
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    /// Where it came from.
    pub(crate) origin: MapOrigin,
    /// An object-space map's own UVs (one per vertex) when it was baked in a layout of its own
    /// (then drawn with that second UV set).
    pub(crate) map_uvs: Option<Vec<Vec2>>,
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    /// The bake's statistics, for a map baked here or authored.
    pub(crate) stats: Option<MapStats>,
}

impl SceneMap {
    #[cfg(feature = "render")]
    pub(crate) fn new(map: EncodedMap, origin: MapOrigin) -> Self {
        Self {
            map,
            origin,
            map_uvs: None,
            stats: None,
        }
    }
}

/// The maps of a scene.
#[derive(Debug, Clone, Default)]
pub struct SceneMaps {
    /// Per material, in the scene's material order: its tangent-space map (empty when not asked
    /// for).
    #[cfg_attr(not(any(feature = "render", feature = "gltf")), allow(dead_code))]
    // read by the renderer (`render`) and `pack` (`gltf`)
    pub(crate) tangent: Vec<Option<SceneMap>>,
    /// Per mesh (primitive), in the scene's order: its object-space map (empty when not asked
    /// for).
    #[cfg_attr(not(any(feature = "render", feature = "gltf")), allow(dead_code))]
    // read by the renderer (`render`) and `pack` (`gltf`)
    pub(crate) object: Vec<Option<SceneMap>>,
}
