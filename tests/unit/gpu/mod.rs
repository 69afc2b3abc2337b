//! Unit tests of GPU stages that reach the stages' internals: the object-space raster against
//! the CPU's, and quaternion-map sampling against a CPU filter.

mod aniso;
mod bake;
mod composed_normal;
mod decode;
mod mesh;
mod qmap_apply;
mod render;
mod render_skinned;
mod sample;
mod skin;
