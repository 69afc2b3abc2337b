//! glTF 2.0 files: bytes in, plain data out, and back. The files layer under the mesh loader,
//! `pack` and `compare`; it knows nothing of meshes' preparation, maps or rendering. It is
//! crate-internal: users read glTF through [`crate::mesh::load`] and write it through
//! [`crate::pack`]; its error types are public where those report them (`mesh::AccessorError`,
//! `pack::WriteError`).
//!
//! - [`Builder`]: the one writer — a JSON document with one binary buffer, its buffer views and
//!   accessors appended by type, written as `.glb` (the lab's `gltf_json` writes it as a
//!   `.gltf`, its buffer beside it or a `data:` URI, for its files and the tests; `qtangent pack`
//!   splits its GLB into a `.gltf` and `.bin`).
//! - The one reader (crate-internal): the GLB container, buffers (GLB chunk, `data:` URIs,
//!   files), and accessors of any layout — normalised, quantised (KHR_mesh_quantization),
//!   sparse, zero-filled, meshopt-compressed views (EXT/KHR_meshopt_compression, `meshopt`),
//!   Draco-compressed primitives (KHR_draco_mesh_compression, decoded into a buffer of their
//!   own first, `draco`) — read as bytes, floats or unsigned integers. Its failures are
//!   `ReadError` (file, container, buffers) and [`AccessorError`] (one accessor).
//! - The names both share: [`ComponentType`], [`AccessorType`], [`AccessorLayout`],
//!   [`Target`], and the extension names the crate reads and writes (`QTANGENT_frames`,
//!   docs/GLTF.md).

pub(crate) mod draco;
pub(crate) mod error;
pub(crate) mod glb;
pub(crate) mod meshopt;
pub(crate) mod names;
pub(crate) mod read;
pub(crate) mod uri;
mod write;

pub(crate) use error::{AccessorError, ReadError, WriteError};
pub(crate) use names::{AccessorLayout, AccessorType, ComponentType, Target};
pub(crate) use write::Builder;
