//! Bake meshes and CPU bakes for the map tests, panicking with the mesh's name.

use qtangent::mesh::Primitive;
use qtangent::qmap::{self, BakeMesh, BakeSettings, NormalMap, QuatMap};

/// `p` prepared, as one bake mesh named by its label.
pub(crate) fn from_primitive(p: &Primitive) -> BakeMesh {
    let prepared = p.prepare().unwrap_or_else(|e| panic!("{}: {e:?}", p.label));
    BakeMesh::from_prepared(p.label.clone(), &[&prepared])
}

/// Every primitive of the file at `path` prepared, as one bake mesh named `label`.
pub(crate) fn from_file(path: &std::path::Path, label: &str) -> BakeMesh {
    let scene = qtangent::mesh::load(path).unwrap_or_else(|e| panic!("{label}: {e}"));
    let prims: Vec<_> = scene
        .primitives()
        .map(|(_, p)| {
            p.prepare()
                .unwrap_or_else(|e| panic!("{label}: {}: {e}", p.label))
        })
        .collect();
    let refs: Vec<_> = prims.iter().collect();
    BakeMesh::from_prepared(label, &refs)
}

/// The exact CPU bake of `mesh` onto a `width`×`height` map: rgba32f, 2 texels of padding, no
/// normal map — what the tests store in other formats.
pub(crate) fn exact_map(mesh: &BakeMesh, width: u32, height: u32) -> QuatMap {
    let settings = BakeSettings {
        width,
        height,
        padding: 2,
        format: qmap::MapFormat::Rgba32Float,
    };
    bake(mesh, None, &settings)
}

/// The CPU bake of `mesh` (the reference).
pub(crate) fn bake(
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    settings: &BakeSettings,
) -> QuatMap {
    qmap::bake_cpu(mesh, normal_map, settings, &mut ())
        .unwrap_or_else(|e| panic!("{}: bake failed: {e}", mesh.label))
}
