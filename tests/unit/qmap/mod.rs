//! Unit tests of the quaternion-map internals — the CPU raster, padding, BC5/BC7, stored maps,
//! EXR, the tangent-space bake and seams — against references written independently here.

mod anisotropy;
mod assets;
mod bc;
mod cpu;
mod engine;
mod io;
mod levels;
mod padding;
mod seams;
mod stored;
mod tangent;
