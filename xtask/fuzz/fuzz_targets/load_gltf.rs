//! glTF (JSON or GLB) from arbitrary bytes, with no base folder (external files are refused):
//! loading, preparing (normals, MikkTSpace tangents, seam splitting) and encoding every vertex
//! format must return `Ok` or `Err`, never panic, hang or abort.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| common::load_prepare_encode("fuzz.gltf", bytes));
