//! Unit tests of the glTF writer (`src/gltf/write.rs`): accessors written, compressed or not,
//! read back byte for byte (the `.gltf` form is the lab's, `lab::gltf_json`).

use super::{Builder, Target};
use crate::lab::gltf_json::BufferUri;

/// Every accessor of a compressed builder reads back byte for byte as before compressing
/// (positions padded to 8, UVs, both index widths, animation-like floats, matrices); a
/// layout the extension does not allow (6-byte elements outside a vertex buffer) and a view
/// that compressing would not make smaller stay uncompressed; the fallback buffer is marked
/// and has no URI.
#[test]
fn compressed_accessors_read_back_byte_for_byte() {
    use crate::gltf::read::{read_buffers, Reader};
    use crate::gltf::{glb, AccessorLayout, AccessorType, ComponentType};
    let read_all = |glb_bytes: &[u8]| -> Vec<Vec<u8>> {
        let parts = glb::split(glb_bytes).unwrap_or_else(|e| panic!("{e}"));
        let json: serde_json::Value =
            serde_json::from_slice(parts.json).unwrap_or_else(|e| panic!("{e}"));
        let buffers = read_buffers(&json, parts.bin, None).unwrap_or_else(|e| panic!("{e}"));
        let r = Reader::new(&json, &buffers);
        (0..json["accessors"].as_array().map_or(0, Vec::len))
            .map(|a| {
                let acc = r.accessor(a).unwrap_or_else(|e| panic!("{a}: {e}"));
                r.bytes(&acc).unwrap_or_else(|e| panic!("{a}: {e}"))
            })
            .collect()
    };
    let mut b = Builder::default();
    let n = 300u32;
    let short3 = AccessorLayout {
        component: ComponentType::UnsignedShort,
        kind: AccessorType::Vec3,
        normalized: false,
    };
    let positions: Vec<u8> = (0..n * 3)
        .flat_map(|i| ((i * 37) as u16).to_le_bytes())
        .collect();
    b.accessor(&positions, short3, Some(Target::ArrayBuffer));
    let uvs: Vec<[f32; 2]> = (0..n)
        .map(|i| [i as f32 / 7.0, 1.0 / (1.0 + i as f32)])
        .collect();
    b.floats(&uvs, Some(Target::ArrayBuffer));
    let tris: Vec<u32> = (0..n - 2).flat_map(|i| [i, i + 1, i + 2]).collect();
    // Each triangle turned to the corner the index codec starts it from, as `pack` writes
    // them (the codec keeps triangles and windings, not the starting corner).
    let tris = meshopt::encode_index_buffer(&tris, n as usize)
        .and_then(|e| meshopt::decode_index_buffer::<u32>(&e, tris.len()))
        .unwrap_or_else(|e| panic!("{e}"));
    b.indices(&tris);
    let wide: Vec<u32> = tris.iter().map(|&i| i * 300).collect();
    let wide = meshopt::encode_index_buffer(&wide, 300 * n as usize)
        .and_then(|e| meshopt::decode_index_buffer::<u32>(&e, wide.len()))
        .unwrap_or_else(|e| panic!("{e}"));
    b.indices(&wide);
    b.floats(&(0..n).map(|i| [i as f32 * 0.1]).collect::<Vec<_>>(), None);
    let matrices: Vec<[f32; 16]> = (0..40).map(|i| [i as f32; 16]).collect();
    b.floats(&matrices, None);
    // Two matrices: 128 bytes the codec's header, tail and JSON would outgrow.
    let small = b.floats(&[[1.0f32; 16], [2.0; 16]], None);
    let odd = b.accessor(&positions, short3, None);
    let plain = b.to_glb().unwrap_or_else(|e| panic!("{e}"));
    let all = (0..b.json["accessors"].as_array().map_or(0, Vec::len)).collect();
    b.compress_meshopt(&all);
    let squeezed = b.to_glb().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        squeezed.len() < plain.len(),
        "{} ≥ {}",
        squeezed.len(),
        plain.len()
    );
    assert_eq!(read_all(&squeezed), read_all(&plain));
    let views = b.json["bufferViews"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let compressed = |v: &serde_json::Value| !v["extensions"]["EXT_meshopt_compression"].is_null();
    let view_of = |a: usize| b.json["accessors"][a]["bufferView"].as_u64().unwrap_or(0) as usize;
    let (odd_view, small_view) = (view_of(odd), view_of(small));
    for (i, v) in views.iter().enumerate() {
        assert_eq!(
            compressed(v),
            i != odd_view && i != small_view,
            "view {i}: {v}"
        );
    }
    let doc = b.to_gltf(BufferUri::DataUri);
    assert_eq!(
        doc["buffers"][1]["extensions"]["EXT_meshopt_compression"]["fallback"],
        true
    );
    assert!(doc["buffers"][1].get("uri").is_none());
}
use crate::gltf::read::{read_buffers, Reader};
use crate::gltf::{glb, AccessorLayout, AccessorType, ComponentType};

/// What the builder writes, the reader reads back: floats, indices of both widths, a
/// vertex attribute of 6-byte elements padded to 8, through a GLB and a data URI.
#[test]
fn written_accessors_read_back() {
    let mut b = Builder::default();
    let p = b.positions(&[[0.0, 1.0, 2.0], [-3.0, 4.0, 5.0]]);
    let short = b.indices(&[0, 1, 65534]);
    let int = b.indices(&[0, 65535]);
    let layout = AccessorLayout {
        component: ComponentType::Short,
        kind: AccessorType::Vec3,
        normalized: true,
    };
    let q = b.accessor(
        &[1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0],
        layout,
        Some(Target::ArrayBuffer),
    );
    assert_eq!(b.json["bufferViews"][3]["byteStride"], 8);
    assert_eq!(
        b.json["accessors"][p]["min"],
        serde_json::json!([-3.0, 1.0, 2.0])
    );
    let glb = b.to_glb().unwrap_or_default();
    let parts = glb::split(&glb).unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value =
        serde_json::from_slice(parts.json).unwrap_or_else(|e| panic!("{e}"));
    let from_uri: serde_json::Value = b.to_gltf(BufferUri::DataUri);
    for (json, bin) in [(&json, parts.bin), (&from_uri, None)] {
        let buffers = read_buffers(json, bin, None).unwrap_or_else(|e| panic!("{e}"));
        let r = Reader::new(json, &buffers);
        let read = |a| r.accessor(a).unwrap_or_else(|e| panic!("{e}"));
        let floats = r.floats::<3>(&read(p)).unwrap_or_default();
        assert_eq!(floats, [[0.0, 1.0, 2.0], [-3.0, 4.0, 5.0]]);
        assert_eq!(read(short).layout.component, ComponentType::UnsignedShort);
        assert_eq!(
            r.unsigned::<1>(&read(short)).unwrap_or_default(),
            [[0], [1], [65534]]
        );
        assert_eq!(read(int).layout.component, ComponentType::UnsignedInt);
        assert_eq!(
            r.unsigned::<1>(&read(int)).unwrap_or_default(),
            [[0], [65535]]
        );
        let q = r.floats::<3>(&read(q)).unwrap_or_default();
        assert_eq!(q[1], [4.0 / 32767.0, 5.0 / 32767.0, 6.0 / 32767.0]);
    }
}
