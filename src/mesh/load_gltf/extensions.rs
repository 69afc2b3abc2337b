//! Which extensions a file may require.
//!
//! gltf-json refuses every required extension outside its own short list; the loader decides
//! instead. The ones qtangent reads ([`READ`]) load silently, meshopt's compressed buffer views
//! and Draco's compressed primitives among them (the one glTF reader decodes them). Any other
//! required extension loads with a warning naming it, since qtangent
//! reads the geometry without it (the glTF-Validator, too, only warns about extensions it does
//! not know). Extensions that are only in `extensionsUsed` are never a reason to refuse: a
//! compression there comes with uncompressed fallback data, which is what is read.

use crate::gltf::names::{
    EXT_MESHOPT_COMPRESSION, KHR_DRACO_MESH_COMPRESSION, KHR_MATERIALS_ANISOTROPY,
    KHR_MESHOPT_COMPRESSION, KHR_MESH_QUANTIZATION, KHR_TEXTURE_BASISU, KHR_TEXTURE_TRANSFORM,
};
use crate::mesh::ErrorKind;
use crate::{Warning, WarningKind};

/// Extensions the loader reads.
pub(super) const READ: &[&str] = &[
    KHR_MESH_QUANTIZATION,
    EXT_MESHOPT_COMPRESSION,
    KHR_MESHOPT_COMPRESSION,
    KHR_DRACO_MESH_COMPRESSION,
    KHR_TEXTURE_TRANSFORM,
    KHR_MATERIALS_ANISOTROPY,
    KHR_TEXTURE_BASISU,
];

/// Checks the file's `extensionsRequired` (see the module docs): a warning naming those
/// qtangent does not read.
///
/// # Errors
/// None today; the signature keeps the loader's order of checks.
pub(super) fn check_required(
    root: &gltf::json::Root,
    warnings: &mut Vec<Warning>,
) -> Result<(), ErrorKind> {
    let mut unknown = Vec::new();
    for ext in &root.extensions_required {
        if !READ.contains(&ext.as_str()) && !unknown.contains(ext) {
            unknown.push(ext.clone());
        }
    }
    if !unknown.is_empty() {
        warnings.push(Warning::new(
            "",
            WarningKind::UnknownRequiredExtensions {
                extensions: unknown,
            },
        ));
    }
    Ok(())
}
