//! The lab's engine copies (`content/engine_bc5.rs`): a GLB with its normal maps as KTX2 BC5
//! UNORM, read back by the `ktx2` crate and `bcdec_rs` (readers independent of the writer and the
//! encoder): every normal texture replaced, named both ways (`KHR_texture_basisu` and `source`),
//! its sampler kept; a full mip chain whose level 0 is the PNG's (r, g) and level 1 its 2 × 2 box
//! mean, each within BC5's contract; a file that is not a GLB refused with its name.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::lab::LabError;

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("cannot make a temporary folder: {e}"))
}

/// The corpus' `ribbed.gltf` as a GLB (its buffer moved into the BIN chunk), in `dir`.
fn ribbed_glb(dir: &Path) -> PathBuf {
    crate::lab::content::corpus(dir, &[]).unwrap_or_else(|e| panic!("the corpus: {e}"));
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut json: Value = serde_json::from_slice(&read("ribbed.gltf")).expect("JSON");
    let bin_name = json["buffers"][0]["uri"]
        .as_str()
        .expect("a .bin")
        .to_string();
    let bin = read(&bin_name);
    json["buffers"] = json!([{ "byteLength": bin.len() }]);
    let glb =
        crate::gltf::glb::write(&serde_json::to_vec(&json).expect("JSON"), &bin).expect("a GLB");
    let path = dir.join("ribbed.glb");
    std::fs::write(&path, glb).expect("written");
    path
}

/// JSON and BIN of the GLB at `path`.
fn parts(path: &Path) -> (Value, Vec<u8>) {
    let bytes = std::fs::read(path).expect("readable");
    let p = crate::gltf::glb::split(&bytes).expect("a GLB");
    (
        serde_json::from_slice(p.json).expect("JSON"),
        p.bin.expect("a BIN chunk").to_vec(),
    )
}

/// The bytes of image `i`'s buffer view.
fn image_bytes<'a>(json: &Value, bin: &'a [u8], i: &Value) -> &'a [u8] {
    let view = &json["bufferViews"][json["images"][i.as_u64().expect("index") as usize]
        ["bufferView"]
        .as_u64()
        .expect("in the buffer") as usize];
    let at = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    &bin[at..at + view["byteLength"].as_u64().expect("length") as usize]
}

/// Every texel of `level` (BC5 UNORM blocks, `w` × `h`) decoded by `bcdec_rs` to the byte scale
/// is within BC5's contract of `rg` (row-major bytes): ½ + range/14, range the spread of the
/// block's input bytes in that channel (module docs of `qmap::bc`); 1e-3 for f32's ·255.
fn assert_bc5_of(level: &[u8], w: usize, h: usize, rg: &[[u8; 2]], what: &str) {
    assert_eq!(
        level.len(),
        w.div_ceil(4) * h.div_ceil(4) * 16,
        "{what}: level size"
    );
    for (b, block) in level.chunks_exact(16).enumerate() {
        let (bx, by) = (b % w.div_ceil(4) * 4, b / w.div_ceil(4) * 4);
        let texel = |t: usize| (by + t / 4).min(h - 1) * w + (bx + t % 4).min(w - 1);
        for c in 0..2 {
            let mut decoded = [0.0f32; 16];
            bcdec_rs::bc4_float(&block[c * 8..c * 8 + 8], &mut decoded, 4, false);
            let input: Vec<f32> = (0..16).map(|t| f32::from(rg[texel(t)][c])).collect();
            let range = input.iter().copied().fold(f32::MIN, f32::max)
                - input.iter().copied().fold(f32::MAX, f32::min);
            let limit = 0.5 + range / 14.0 + 1e-3;
            for t in 0..16 {
                let e = (decoded[t] * 255.0 - input[t]).abs();
                assert!(
                    e <= limit,
                    "{what}: block {b} texel {t} channel {c}: {e} > {limit}"
                );
            }
        }
    }
}

#[test]
fn normal_maps_become_ktx2_bc5_with_box_filtered_mips() {
    let dir = tempdir();
    let source = ribbed_glb(dir.path());
    let written = crate::lab::content::corpus(dir.path(), std::slice::from_ref(&source))
        .unwrap_or_else(|e| panic!("the copy: {e}"));
    assert_eq!(written, vec![dir.path().join("ribbed-bc5-normal-maps.glb")]);
    let (before, old_bin) = parts(&source);
    let (json, bin) = parts(&written[0]);
    assert!(json["extensionsUsed"]
        .as_array()
        .is_some_and(|u| u.contains(&json!("KHR_texture_basisu"))));
    let materials = json["materials"].as_array().expect("materials");
    assert_eq!(materials.len(), 3, "the ribbed scene's three materials");
    for (m, material) in materials.iter().enumerate() {
        let old = &before["textures"][before["materials"][m]["normalTexture"]["index"]
            .as_u64()
            .expect("a normal map") as usize];
        let t =
            &json["textures"][material["normalTexture"]["index"].as_u64().expect("index") as usize];
        assert_eq!(
            t["source"], t["extensions"]["KHR_texture_basisu"]["source"],
            "material {m}"
        );
        assert_eq!(
            t.get("sampler"),
            old.get("sampler"),
            "material {m}: the sampler kept"
        );
        let image = &json["images"][t["source"].as_u64().expect("index") as usize];
        assert_eq!(image["mimeType"], "image/ktx2", "material {m}");
        // The rest of the material is as it was.
        let mut unchanged = material.clone();
        unchanged["normalTexture"] = before["materials"][m]["normalTexture"].clone();
        assert_eq!(unchanged, before["materials"][m], "material {m}");

        let png = image::load_from_memory(image_bytes(&before, &old_bin, &old["source"]))
            .expect("the PNG")
            .to_rgba8();
        let ktx = ::ktx2::Reader::new(image_bytes(&json, &bin, &t["source"])).expect("a KTX2");
        let header = ktx.header();
        assert_eq!(
            header.format,
            Some(::ktx2::Format::BC5_UNORM_BLOCK),
            "material {m}"
        );
        let (w, h) = (png.width() as usize, png.height() as usize);
        assert_eq!(
            (header.pixel_width as usize, header.pixel_height as usize),
            (w, h)
        );
        // A full chain: 512² has 10 levels.
        assert_eq!(header.level_count, 10, "material {m}");
        let levels: Vec<&[u8]> = ktx.levels().map(|l| l.data).collect();
        let rg0: Vec<[u8; 2]> = png.pixels().map(|p| [p[0], p[1]]).collect();
        assert_bc5_of(levels[0], w, h, &rg0, &format!("material {m} level 0"));
        // Level 1: the rounded mean of each 2 × 2 box of the PNG's bytes.
        let rg1: Vec<[u8; 2]> = (0..w * h / 4)
            .map(|i| {
                let (x, y) = (i % (w / 2) * 2, i / (w / 2) * 2);
                std::array::from_fn(|c| {
                    let sum: u32 = [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)]
                        .iter()
                        .map(|&(x, y)| u32::from(rg0[y * w + x][c]))
                        .sum();
                    ((sum + 2) / 4) as u8
                })
            })
            .collect();
        assert_bc5_of(
            levels[1],
            w / 2,
            h / 2,
            &rg1,
            &format!("material {m} level 1"),
        );
    }
}

#[test]
fn a_file_that_is_not_a_glb_is_refused_by_name() {
    let dir = tempdir();
    crate::lab::content::corpus(dir.path(), &[]).unwrap_or_else(|e| panic!("the corpus: {e}"));
    let gltf = dir.path().join("ribbed.gltf");
    match crate::lab::content::corpus(dir.path(), std::slice::from_ref(&gltf)) {
        Err(e @ LabError::Copy { .. }) => {
            assert!(
                e.to_string().starts_with(&gltf.display().to_string()),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(!dir.path().join("ribbed-bc5-normal-maps.glb").exists());
}
