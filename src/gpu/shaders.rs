//! WGSL sources, embedded at compile time: nothing reads shader files at run time.
//!
//! `shaders/qtangent.wgsl` is a library of functions shared by every stage; a stage's module is
//! the library followed by the stage's own file.

/// The shared library: quaternion → matrix, tangent frames, unpacking of every format.
pub const LIBRARY: &str = include_str!("../../shaders/qtangent.wgsl");

/// The batch-decode compute stage (`shaders/decode.wgsl`) with the library in front.
pub const DECODE: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/decode.wgsl")
);

/// The mesh vertex stage (`shaders/mesh.wgsl`) with the library in front.
pub const MESH: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/mesh.wgsl")
);

/// The quaternion-map bake stage (`shaders/bake.wgsl`) with the library in front.
pub const BAKE: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/bake.wgsl")
);

/// The tangent-space quaternion-map bake (`shaders/bake_tangent.wgsl`), after the library and
/// the object-space bake, whose quaternion helpers and packing it shares.
pub const BAKE_TANGENT: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/bake.wgsl"),
    "\n",
    include_str!("../../shaders/bake_tangent.wgsl")
);

/// Quaternion-map sampling (`shaders/qmap.wgsl`: the functions lighting shaders use, and the
/// compute entry point the sampling test runs) with the library in front.
pub const QMAP: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/qmap.wgsl")
);

/// Lighting for the demo scenes (`shaders/lit.wgsl`), after the library, the mesh vertex stage
/// (its vertex functions) and quaternion-map sampling (its `qmap_frame`).
pub const LIT: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/mesh.wgsl"),
    "\n",
    include_str!("../../shaders/qmap.wgsl"),
    "\n",
    include_str!("../../shaders/lit.wgsl")
);

/// Batch skinning with quaternion bones (`shaders/skin.wgsl`) with the library and the shared
/// batch structure in front.
pub const SKIN: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/skin_batch.wgsl"),
    "\n",
    include_str!("../../shaders/skin.wgsl")
);

/// The batch structure both skinning kernels share (`shaders/skin_batch.wgsl`: params, the
/// instance table and its binary search) with the library in front.
pub const SKIN_BATCH: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/skin_batch.wgsl")
);

/// The matrix-palette skinning baseline (`shaders/skin_matrix.wgsl`: f32 normal + tangent,
/// mat4x4 bones) with the library in front, for the skinning benchmark.
pub const SKIN_MATRIX: &str = concat!(
    include_str!("../../shaders/qtangent.wgsl"),
    "\n",
    include_str!("../../shaders/skin_batch.wgsl"),
    "\n",
    include_str!("../../shaders/skin_matrix.wgsl")
);

/// Every module the crate builds, by the stage file it comes from: what the naga validation
/// test checks, and what it compares with the files in `shaders/`.
pub const MODULES: &[(&str, &str)] = &[
    ("qtangent.wgsl", LIBRARY),
    ("decode.wgsl", DECODE),
    ("mesh.wgsl", MESH),
    ("bake.wgsl", BAKE),
    ("bake_tangent.wgsl", BAKE_TANGENT),
    ("qmap.wgsl", QMAP),
    ("lit.wgsl", LIT),
    ("skin_batch.wgsl", SKIN_BATCH),
    ("skin.wgsl", SKIN),
    ("skin_matrix.wgsl", SKIN_MATRIX),
];
