//! A GLB with its normal maps as engines ship them in BC5: the yardstick the readers' tests put
//! beside a packed file's quaternion maps at equal bytes (issue 41: "at least as close to the
//! source as the same file with BC5 normal maps").
//!
//! Each image a material uses as `normalTexture` becomes a KTX 2.0 file,
//! `VK_FORMAT_BC5_UNORM_BLOCK`, of the image's red and green (`c = n·½ + ½`) at every level of
//! the box-filtered chain engines build (`normal_mip_chain`, the one the renderer's engine-BC5
//! reference uses), through the crate's BC5 kernels with the endpoint refinement. The texture
//! names it in two ways at once, because the two readers read different syntaxes: as
//! `KHR_texture_basisu`'s source, which three.js' GLTFLoader hands to its KTX2Loader (three.js
//! rebuilds z for an RGTC2 normal map, `USE_PACKED_NORMALMAP`), and as the texture's plain
//! `source`, which Bevy's loader reads by MIME type (it does not read the extension's syntax;
//! Bevy rebuilds z for a `Bc5RgUnorm` normal map). The extension is listed in `extensionsUsed`
//! only. Khronos' validator would object to a KTX2 `source` and to a BC5 file under that
//! extension (which names Basis Universal): this is test equipment, not a file qtangent ships.
//! The PNG/JPEG bytes it replaces stay in the buffer, unreferenced.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::lab::LabError;

/// Writes `source` (a GLB whose images are in its buffer, as `pack` writes them) to `out` with
/// its normal maps as KTX2 BC5 UNORM (module docs); returns `out`.
///
/// # Errors
/// [`LabError::Copy`] naming `source` and what stopped: an unreadable file or image, a normal
/// map outside the buffer or whose sides are not multiples of 4; [`LabError::Write`] for `out`.
pub(super) fn write(source: &Path, out: &Path) -> Result<PathBuf, LabError> {
    let fail = |problem: String| LabError::Copy {
        file: source.to_path_buf(),
        problem,
    };
    let bytes = std::fs::read(source).map_err(|e| fail(e.to_string()))?;
    let parts = crate::gltf::glb::split(&bytes).map_err(|e| fail(e.to_string()))?;
    let mut json: Value = serde_json::from_slice(parts.json).map_err(|e| fail(e.to_string()))?;
    let mut bin = parts.bin.unwrap_or_default().to_vec();
    // Each normal texture's copy, by the texture it replaces (a texture shared by materials is
    // converted once).
    let mut copies: HashMap<u64, usize> = HashMap::new();
    let materials = json["materials"].as_array().map_or(0, Vec::len);
    for m in 0..materials {
        let Some(texture) = json["materials"][m]["normalTexture"]["index"].as_u64() else {
            continue;
        };
        let copy = match copies.get(&texture) {
            Some(&c) => c,
            None => {
                let c = bc5_texture(&mut json, &mut bin, texture)
                    .map_err(|p| fail(format!("material {m}: normal texture {texture}: {p}")))?;
                copies.insert(texture, c);
                c
            }
        };
        json["materials"][m]["normalTexture"]["index"] = json!(copy);
    }
    if copies.is_empty() {
        return Err(fail("no material has a normal map".into()));
    }
    let used = json["extensionsUsed"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !used.contains(&json!("KHR_texture_basisu")) {
        json["extensionsUsed"] = json!([used, vec![json!("KHR_texture_basisu")]].concat());
    }
    match json["buffers"].as_array_mut().and_then(|b| b.first_mut()) {
        Some(buffer) => buffer["byteLength"] = json!(bin.len()),
        None => json["buffers"] = json!([{ "byteLength": bin.len() }]),
    }
    let text = serde_json::to_vec(&json).map_err(|e| fail(e.to_string()))?;
    let glb = crate::gltf::glb::write(&text, &bin)?;
    std::fs::write(out, glb).map_err(|error| crate::gltf::WriteError::Io {
        path: out.to_path_buf(),
        error,
    })?;
    Ok(out.to_path_buf())
}

/// Adds the BC5 copy of texture `texture` (its image, buffer view, KTX2 bytes appended to `bin`)
/// and returns the new texture's index.
fn bc5_texture(json: &mut Value, bin: &mut Vec<u8>, texture: u64) -> Result<usize, String> {
    let t = &json["textures"][texture as usize];
    let image = t["source"]
        .as_u64()
        .ok_or("no source image (an extension's image only)")?;
    let sampler = t.get("sampler").cloned();
    let view = json["images"][image as usize]["bufferView"]
        .as_u64()
        .ok_or(format!("image {image} is not in the GLB's buffer"))?;
    let v = &json["bufferViews"][view as usize];
    let (offset, length) = (
        v["byteOffset"].as_u64().unwrap_or(0) as usize,
        v["byteLength"].as_u64().unwrap_or(0) as usize,
    );
    let encoded = bin
        .get(offset..offset + length)
        .ok_or(format!("buffer view {view} lies outside the buffer"))?;
    let img = image::load_from_memory(encoded)
        .map_err(|e| format!("image {image}: {e}"))?
        .to_rgba8();
    let (width, height) = img.dimensions();
    crate::qmap::bc::check_size(width, height).map_err(|e| format!("image {image}: {e}"))?;
    let levels = crate::qmap::normal_map::normal_mip_chain(&img)
        .iter()
        .map(|l| {
            let rg: Vec<[f32; 2]> = l
                .pixels()
                .map(|p| [p[0], p[1]].map(|c| f32::from(c) / 255.0))
                .collect();
            let (w, h) = l.dimensions();
            crate::qmap::bc::encode_bc5_unorm(w, h, &rg, crate::qmap::bc::BcEncoder::default())
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("image {image}: {e}"))?;
    let ktx =
        crate::ktx2::Ktx2Texture::new(crate::ktx2::TexelFormat::Bc5Unorm, width, height, levels);
    let ktx = crate::ktx2::write(&ktx).map_err(|e| format!("image {image}: {e}"))?;
    bin.resize(bin.len().next_multiple_of(4), 0);
    let at = bin.len();
    bin.extend_from_slice(&ktx);
    let push = |json: &mut Value, key: &str, item: Value| {
        let list = json[key].as_array_mut().map(|l| {
            l.push(item.clone());
            l.len() - 1
        });
        list.unwrap_or_else(|| {
            json[key] = json!([item]);
            0
        })
    };
    let view = push(
        json,
        "bufferViews",
        json!({ "buffer": 0, "byteOffset": at, "byteLength": ktx.len() }),
    );
    let name = format!("image {image} as BC5 UNORM");
    let copy = push(
        json,
        "images",
        json!({ "name": name, "bufferView": view, "mimeType": "image/ktx2" }),
    );
    let mut texture = json!({
        "source": copy,
        "extensions": { "KHR_texture_basisu": { "source": copy } },
    });
    if let Some(s) = sampler {
        texture["sampler"] = s;
    }
    Ok(push(json, "textures", texture))
}
