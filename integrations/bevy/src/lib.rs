//! qtangent in Bevy: glTF files written by qtangent's `pack` (quaternion tangent frames in
//! `_QTANGENT`, quaternion maps in `QTANGENT_frames`), loaded by Bevy's own glTF loader and drawn
//! by Bevy's own PBR.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_qtangent::QTangentPlugin;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, QTangentPlugin::default()))
//!     .add_systems(Startup, |mut commands: Commands, assets: Res<AssetServer>| {
//!         commands.spawn(bevy_qtangent::scene(&assets, "packed.glb"));
//!     });
//! ```
//!
//! - [`Mode::Gpu`] (the default): each primitive keeps its frame as `pack` wrote it (4 to 16 bytes
//!   a vertex), decoded in the vertex shader by qtangent's own WGSL; materials become
//!   [`QTangentMaterial`], an [`ExtendedMaterial`] of Bevy's `StandardMaterial` whose fragment
//!   shader turns the vertex frame by the material's tangent-space quaternion map (in place of
//!   the normal map) and then calls Bevy's lighting.
//! - [`Mode::Cpu`]: the frames are decoded on the CPU at load time into plain `NORMAL` and
//!   `TANGENT` attributes (vertices split at mirror seams, as `pack` wrote them); materials stay
//!   `StandardMaterial`, with their normal maps. No custom shader.
//!
//! Either way the plugin reads the packed file's quantised attributes (KHR_mesh_quantization),
//! which Bevy's loader does not; load packed files with [`scene`] or [`loader_settings`] (Bevy's
//! validation refuses files that require extensions it does not know).

// docs/BEVY.md's and the README's snippets compile as doc tests (window apps: compiled, not run).
#[cfg(doctest)]
#[doc = include_str!("../../../docs/BEVY.md")]
struct BevyDocSnippets;
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeSnippets;

mod accessor;
mod loader;
mod map;
mod material;
mod wgsl;

use bevy::asset::embedded_asset;
use bevy::gltf::GltfLoaderSettings;
use bevy::gltf::extensions::GltfExtensionHandlers;
use bevy::pbr::{ExtendedMaterial, MaterialPlugin, StandardMaterial};
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;

pub use material::{DebugView, QTangentExtension, frame_attribute};
/// The `_QTANGENT` formats ([`frame_attribute`] takes one) and how a map's texels become a
/// quaternion ([`QTangentExtension::decode`]): qtangent's own, re-exported so that a plugin user
/// needs no qtangent dependency of their own to name them.
pub use qtangent::{Format, qmap::MapDecode};

/// The material of primitives with qtangent frames in [`Mode::Gpu`].
pub type QTangentMaterial = ExtendedMaterial<StandardMaterial, QTangentExtension>;

/// How the plugin gives Bevy the frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Packed frames on the GPU, decoded by the vertex shader; quaternion maps applied.
    #[default]
    Gpu,
    /// Frames decoded at load time into `NORMAL` and `TANGENT`; `StandardMaterial`, no maps.
    Cpu,
}

/// Loads qtangent's packed glTF files into Bevy (see the crate docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct QTangentPlugin {
    /// GPU decode with quaternion maps, or CPU decode into plain attributes.
    pub mode: Mode,
    /// What [`Mode::Gpu`]'s fragment shader shows: lit (the default) or a frame for checking.
    pub debug: DebugView,
}

impl Plugin for QTangentPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<QTangentMaterialPlugin>() {
            app.add_plugins(QTangentMaterialPlugin);
        }
        let handlers = app
            .world_mut()
            .get_resource_or_init::<GltfExtensionHandlers>()
            .0
            .clone();
        handlers
            .write_blocking()
            .push(Box::new(loader::Handler::new(self.mode, self.debug)));
    }
}

/// [`QTangentMaterial`] and its shaders (qtangent's WGSL modules, `qtangent_pbr.wgsl`) alone,
/// without the glTF loading: for an app that builds meshes with [`frame_attribute`] itself, or
/// gives its own meshes the material's debug views. [`QTangentPlugin`] adds it.
#[derive(Debug, Clone, Copy, Default)]
pub struct QTangentMaterialPlugin;

impl Plugin for QTangentMaterialPlugin {
    fn build(&self, app: &mut App) {
        embedded_asset!(app, "qtangent_pbr.wgsl");
        wgsl::register(app);
        app.add_plugins(MaterialPlugin::<QTangentMaterial>::default());
    }
}

/// Settings for Bevy's glTF loader that packed files need: Bevy's validation, which refuses a
/// file that requires an extension Bevy's `gltf` crate does not know (a quantised file requires
/// KHR_mesh_quantization, a compressed one EXT_meshopt_compression; this plugin reads both), is
/// one switch for the whole document, so it is off and the plugin runs the same validation
/// itself with those two extensions allowed: any other problem is logged as an error naming the
/// file, and the plugin leaves that file alone.
pub fn loader_settings(settings: &mut GltfLoaderSettings) {
    settings.validate = false;
}

/// Scene 0 of the glTF file at `path`, loaded with [`loader_settings`], ready to spawn. Load
/// each file one way: a second load of the same path that starts before the first is known
/// (another label, the `Gltf` asset) can run without these settings and fail Bevy's validation;
/// to have the `Gltf` asset too, load it alone and spawn its `scenes[0]` (as the viewer does).
pub fn scene(assets: &AssetServer, path: impl Into<String>) -> WorldAssetRoot {
    let path = path.into();
    WorldAssetRoot(
        assets
            .load_builder()
            .with_settings(loader_settings)
            .load(GltfAssetLabel::Scene(0).from_asset(path)),
    )
}
