//! Seeded mutations of real mesh files through the loaders: every result must be `Ok` or `Err`,
//! never a panic. The stable-toolchain companion of the cargo-fuzz targets in `xtask/fuzz`
//! (which run far longer); the seed of a failing case is printed.

use crate::common;

use std::path::Path;

use qtangent::mesh;
use rand::Rng;

/// Numbers that break things: zero, negative, past u32, huge floats, NaN spelled out.
const NASTY: &[&str] = &[
    "0",
    "-1",
    "4294967295",
    "4294967296",
    "1e39",
    "-1e39",
    "3",
    "7",
    "1.5",
    "NaN",
    "\"x\"",
];

/// Replaces a few numbers in JSON text with nasty ones, or cuts/damages bytes.
fn mutate_text(text: &str, rng: &mut impl Rng) -> Vec<u8> {
    let mut out = text.as_bytes().to_vec();
    match rng.random_range(0..4) {
        0 => {
            // Replace up to 3 digit runs.
            for _ in 0..rng.random_range(1..=3) {
                let starts: Vec<usize> = (1..out.len())
                    .filter(|&i| {
                        out[i].is_ascii_digit()
                            && !out[i - 1].is_ascii_digit()
                            && out[i - 1] != b'.'
                    })
                    .collect();
                if starts.is_empty() {
                    break;
                }
                let s = starts[rng.random_range(0..starts.len())];
                let e = (s..out.len())
                    .find(|&i| !out[i].is_ascii_digit())
                    .unwrap_or(out.len());
                let with = NASTY[rng.random_range(0..NASTY.len())].as_bytes();
                out.splice(s..e, with.iter().copied());
            }
        }
        1 => out.truncate(rng.random_range(0..out.len().max(1))),
        _ => mutate_bytes(&mut out, rng),
    }
    out
}

fn mutate_bytes(out: &mut Vec<u8>, rng: &mut impl Rng) {
    for _ in 0..rng.random_range(1..=8) {
        if out.is_empty() {
            return;
        }
        let i = rng.random_range(0..out.len());
        match rng.random_range(0..3) {
            0 => out[i] = rng.random(),
            1 => out[i] ^= 1 << rng.random_range(0..8),
            _ => {
                let end = (i + rng.random_range(1..16)).min(out.len());
                out.drain(i..end);
            }
        }
    }
}

/// The unmutated base file loads and prepares: without this, a loader that refused everything
/// would pass every mutation test.
fn assert_base_loads(name: &str, bytes: &[u8]) {
    let scene = load(name, bytes).unwrap_or_else(|e| panic!("the base file {name} must load: {e}"));
    let prepared = scene
        .prepare()
        .unwrap_or_else(|e| panic!("the base file {name} must prepare: {e}"));
    assert!(
        !prepared.is_empty(),
        "the base file {name} has no primitives"
    );
}

/// Loads `bytes` as the file `name` (OBJ or glTF/GLB, by its extension).
fn load(name: &str, bytes: &[u8]) -> Result<mesh::Scene, mesh::MeshError> {
    mesh::load_bytes(Path::new(name), bytes, None)
}

fn run(name: &str, bytes: &[u8]) {
    if let Ok(scene) = load(name, bytes) {
        if let Ok(prepared) = scene.prepare() {
            for p in prepared {
                let _ = p.vertex_stream(qtangent::Format::Smallest3x4);
            }
        }
    }
}

#[test]
fn mutated_gltf_json_never_panics() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let text =
        std::fs::read_to_string(dir.join("gltf/SimpleSkin.gltf")).unwrap_or_else(|e| panic!("{e}"));
    assert_base_loads("SimpleSkin.gltf", text.as_bytes());
    common::for_seeds("mutated SimpleSkin.gltf", 20_000, |_, rng| {
        run("mutated.gltf", &mutate_text(&text, rng));
    });
}

#[test]
fn mutated_glb_never_panics() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let glb = std::fs::read(dir.join("gltf/Fox.glb")).unwrap_or_else(|e| panic!("{e}"));
    assert_base_loads("Fox.glb", &glb);
    // The JSON chunk starts at byte 20; damage it as text, or the whole file as bytes.
    let json_len = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
    let json = String::from_utf8_lossy(&glb[20..20 + json_len]).into_owned();
    common::for_seeds("mutated Fox.glb", 5000, |_, rng| {
        let bytes = if rng.random_bool(0.5) {
            let mut j = mutate_text(&json, rng);
            while j.len() % 4 != 0 {
                j.push(b' ');
            }
            let mut out = glb[..12].to_vec();
            out.extend_from_slice(&(j.len() as u32).to_le_bytes());
            out.extend_from_slice(&glb[16..20]);
            out.extend_from_slice(&j);
            out.extend_from_slice(&glb[20 + json_len..]);
            let total = out.len() as u32;
            out[8..12].copy_from_slice(&total.to_le_bytes());
            out
        } else {
            let mut b = glb.clone();
            mutate_bytes(&mut b, rng);
            b
        };
        run("mutated.glb", &bytes);
    });
}

#[test]
fn mutated_obj_never_panics() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("obj/torus_textured.obj"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_base_loads("torus_textured.obj", text.as_bytes());
    common::for_seeds("mutated torus_textured.obj", 1000, |_, rng| {
        run("mutated.obj", &mutate_text(&text, rng));
    });
}

/// The handwritten seeds of the fuzz targets (`lab/src/bin/fuzz_seeds.rs`, which `cargo xtask fuzz`
/// runs) load and prepare, and their mutations — data-URI buffers and a GLB written by the
/// library's writer — never panic.
#[test]
fn fuzz_seeds_load_and_their_mutations_never_panic() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = common::run_tool("fuzz_seeds", &[&dir.path().to_string_lossy()]);
    assert!(out.status.success(), "fuzz_seeds: {}", common::stderr(&out));
    let mut seeds = 0;
    for target in ["load_gltf", "load_obj"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.path().join(target))
            .unwrap_or_else(|e| panic!("{target}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        files.sort();
        for file in files {
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_default();
            let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_base_loads(&name, &bytes);
            common::for_seeds(&format!("mutated {name}"), 200, |_, rng| {
                let mutated = if name.ends_with(".glb") {
                    let mut b = bytes.clone();
                    mutate_bytes(&mut b, rng);
                    b
                } else {
                    mutate_text(&String::from_utf8_lossy(&bytes), rng)
                };
                run(&name, &mutated);
            });
            seeds += 1;
        }
    }
    assert_eq!(seeds, 10, "five glTF seeds and five OBJ seeds");
}
