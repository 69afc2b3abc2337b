//! Tests of the lab equipment: the matrix-palette skinning baseline against its f64 reference,
//! the CPU mirror of the skinning kernel's snorm16 packing against its bound, and the checks of
//! GPU outputs against the CPU.

mod checks;
#[cfg(feature = "gltf")]
mod engine_bc5;
mod skin_matrix;
mod snorm16_nearest;
