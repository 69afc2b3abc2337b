//! Unit tests of mesh preparation: generated normals, MikkTSpace tangents, fallback frames,
//! mirror-seam splitting and the interleaved stream, on meshes whose frames are known.

mod generators;
mod prepare;
mod texture_transform;
