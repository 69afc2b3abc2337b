//! The Fox (`Fox.glb` from the glTF sample models) as the examples blend it: its clip names and
//! foot bones. Included by the examples that play it (`#[path = "<relative path>/examples/common/fox.rs"] mod fox;`,
//! with `cli` beside it).

#![allow(dead_code)] // each tool uses what it needs

use std::path::{Path, PathBuf};

use qtangent::anim::{Locomotion, LocomotionError};
use qtangent::mesh::Scene;

/// Where the Fox is when no file is named: `gltf/Fox.glb` in the assets
/// ([`crate::cli::assets_dir`]).
pub fn default_path() -> PathBuf {
    crate::cli::assets_dir().join("gltf/Fox.glb")
}

/// The Fox's walk clip.
pub const WALK: &str = "Walk";

/// The Fox's run clip.
pub const RUN: &str = "Run";

/// Footfall names of the Fox: hind feet first (a left/right pair always keeps its footfall
/// order between the walk and the gallop, and the hind legs propel both gaits), then the
/// front feet.
pub const FEET: [&str; 4] = [
    "b_LeftFoot02_018",
    "b_RightFoot02_022",
    "b_LeftHand_011",
    "b_RightHand_08",
];

/// The Fox's walk/run blend: clips [`WALK`] and [`RUN`], feet [`FEET`].
pub fn locomotion(scene: &Scene) -> Result<Locomotion, LocomotionError> {
    scene.locomotion(WALK, RUN, &FEET)
}

/// [`locomotion`] of `scene`, loaded from `path`; errors name the file once.
pub fn locomotion_of(path: &Path, scene: &Scene) -> Result<Locomotion, String> {
    locomotion(scene).map_err(|e| match e {
        // These name the file already.
        LocomotionError::MissingClip { .. } | LocomotionError::MissingNode { .. } => e.to_string(),
        _ => format!("{}: {e}", path.display()),
    })
}
