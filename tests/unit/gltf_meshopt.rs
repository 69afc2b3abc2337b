//! The meshopt buffer-view decoder: streams meshoptimizer's own encoders wrote come back through
//! the one reader as the data encoded (filters: as the `meshopt` crate's typed decoders give
//! them), and every malformed extension object or stream is an error naming the view, never a
//! panic or an abort in the C decoder.

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::gltf::read::Reader;
use crate::gltf::AccessorError;

/// A document of one buffer view (view 0) over buffer 1, compressed into buffer 0 as `ext`
/// describes (`buffer` and `byteOffset` filled in).
fn document(view_length: usize, stride: Option<usize>, mut ext: Value) -> Value {
    ext["buffer"] = json!(0);
    ext["byteOffset"] = json!(0);
    let mut view = json!({"buffer": 1, "byteLength": view_length,
        "extensions": {"EXT_meshopt_compression": ext}});
    if let Some(s) = stride {
        view["byteStride"] = json!(s);
    }
    json!({
        "buffers": [
            {"byteLength": 0},
            {"byteLength": view_length, "extensions": {"EXT_meshopt_compression": {"fallback": true}}}
        ],
        "bufferViews": [view]
    })
}

/// View 0 of `json` over `compressed` (buffer 0) and an empty fallback (buffer 1).
fn view(json: &Value, compressed: &[u8]) -> Result<Vec<u8>, AccessorError> {
    let buffers = vec![compressed.to_vec(), Vec::new()];
    Reader::new(json, &buffers)
        .view(0)
        .map(|v| v.bytes.into_owned())
}

/// An ATTRIBUTES extension object of `count` elements of `stride` bytes.
fn attributes(encoded: &[u8], count: usize, stride: usize, filter: &str) -> Value {
    json!({"byteLength": encoded.len(), "byteStride": stride, "count": count,
        "mode": "ATTRIBUTES", "filter": filter})
}

#[test]
fn vertex_and_index_streams_decode_to_what_was_encoded() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6d65_7368);
    let vertices: Vec<[u32; 3]> = (0..1000).map(|_| rng.random()).collect();
    let encoded = meshopt::encode_vertex_buffer(&vertices).expect("encodes");
    let json = document(12_000, Some(12), attributes(&encoded, 1000, 12, "NONE"));
    let bytes = view(&json, &encoded).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bytes, bytemuck::cast_slice::<_, u8>(&vertices));

    // Triangles keep their corners in order up to a rotation (the codec may start a triangle at
    // another corner); 16-bit indices.
    let indices: Vec<u32> = (0..300).map(|_| rng.random_range(0..100)).collect();
    let encoded = meshopt::encode_index_buffer(&indices, 100).expect("encodes");
    let ext = json!({"byteLength": encoded.len(), "byteStride": 2, "count": 300,
        "mode": "TRIANGLES"});
    let bytes = view(&document(600, None, ext), &encoded).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<u32> = bytemuck::pod_collect_to_vec::<u8, u16>(&bytes)
        .into_iter()
        .map(u32::from)
        .collect();
    let rotated = |t: &[u32]| {
        let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
        [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
    };
    let tris = |v: &[u32]| v.chunks_exact(3).map(rotated).collect::<Vec<_>>();
    assert_eq!(tris(&got), tris(&indices));

    // An index sequence (no connectivity) comes back as it was; 32-bit indices.
    let encoded = meshopt::encode_index_sequence(&indices, 100).expect("encodes");
    let ext = json!({"byteLength": encoded.len(), "byteStride": 4, "count": 300,
        "mode": "INDICES"});
    let bytes = view(&document(1200, None, ext), &encoded).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bytemuck::pod_collect_to_vec::<u8, u32>(&bytes), indices);
}

#[test]
fn filters_decode_as_the_crates_typed_decoders_do() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6f63_7461);
    let unit: Vec<[f32; 4]> = (0..256)
        .map(|_| {
            let v = glam::Vec3::new(rng.random(), rng.random(), rng.random()) * 2.0 - 1.0;
            let v = v.try_normalize().unwrap_or(glam::Vec3::Z);
            [v.x, v.y, v.z, 1.0]
        })
        .collect();
    // Octahedral, 8-bit components (stride 4), and quaternions (stride 8).
    let oct: Vec<[i8; 4]> = meshopt::encode_filter_oct(&unit, 8);
    let quat: Vec<[i16; 4]> = meshopt::encode_filter_quat(&unit, 12);
    // Exponential: three floats a vertex (stride 12).
    let floats: Vec<[f32; 3]> = (0..256)
        .map(|_| [rng.random::<f32>() * 100.0, -rng.random::<f32>(), 1e-3])
        .collect();
    let exp: Vec<[u32; 3]> =
        meshopt::encode_filter_exp(&floats, 15, meshopt::EncodeExpMode::Separate);
    let cases: [(&str, Vec<u8>, usize, Vec<u8>); 3] = [
        ("OCTAHEDRAL", bytemuck::cast_slice(&oct).to_vec(), 4, {
            let mut d: Vec<[i8; 4]> = oct.clone();
            meshopt::decode_filter_oct(&mut d);
            bytemuck::cast_slice(&d).to_vec()
        }),
        ("QUATERNION", bytemuck::cast_slice(&quat).to_vec(), 8, {
            let mut d = quat.clone();
            meshopt::decode_filter_quat(&mut d);
            bytemuck::cast_slice(&d).to_vec()
        }),
        ("EXPONENTIAL", bytemuck::cast_slice(&exp).to_vec(), 12, {
            let mut d = exp.clone();
            meshopt::decode_filter_exp(&mut d);
            bytemuck::cast_slice(&d).to_vec()
        }),
    ];
    for (filter, raw, stride, expected) in cases {
        let count = raw.len() / stride;
        let encoded = encode_raw(&raw, stride);
        let json = document(
            raw.len(),
            Some(stride),
            attributes(&encoded, count, stride, filter),
        );
        let bytes = view(&json, &encoded).unwrap_or_else(|e| panic!("{filter}: {e}"));
        assert_eq!(bytes, expected, "{filter}");
        assert_ne!(bytes, raw, "{filter}: the filter ran");
    }
}

/// `raw` (elements of `stride` bytes) through the vertex encoder.
fn encode_raw(raw: &[u8], stride: usize) -> Vec<u8> {
    match stride {
        4 => meshopt::encode_vertex_buffer(&bytemuck::pod_collect_to_vec::<u8, [u8; 4]>(raw)),
        8 => meshopt::encode_vertex_buffer(&bytemuck::pod_collect_to_vec::<u8, [u8; 8]>(raw)),
        12 => meshopt::encode_vertex_buffer(&bytemuck::pod_collect_to_vec::<u8, [u8; 12]>(raw)),
        _ => unreachable!("strides used here"),
    }
    .expect("encodes")
}

#[test]
fn malformed_extensions_and_streams_are_errors_naming_the_view() {
    let vertices: Vec<[u32; 2]> = (0..64).map(|i| [i, i * 3]).collect();
    let encoded = meshopt::encode_vertex_buffer(&vertices).expect("encodes");
    let good = attributes(&encoded, 64, 8, "NONE");
    let with = |key: &str, value: Value| {
        let mut e = good.clone();
        e[key] = value;
        e
    };
    let cases: Vec<(Value, usize, &[u8], &str)> = vec![
        (
            with("byteStride", json!(6)),
            384,
            &encoded,
            "byteStride of 4 to 256",
        ),
        (
            with("byteStride", json!(260)),
            64 * 260,
            &encoded,
            "byteStride of 4 to 256",
        ),
        (
            json!({"byteLength": encoded.len(), "byteStride": 4, "count": 64,
                "mode": "ATTRIBUTES", "filter": "QUATERNION"}),
            256,
            &encoded,
            "QUATERNION needs",
        ),
        (with("filter", json!("QUATERNION")), 512, &encoded, "ok"),
        (with("filter", json!("OCTAHEDRAL")), 512, &encoded, "ok"),
        (with("filter", json!("SPIRAL")), 512, &encoded, "filter is"),
        (with("mode", json!("STRIPS")), 512, &encoded, "mode is"),
        (with("count", json!(0)), 0, &encoded, "count must be"),
        (
            with("count", Value::Null),
            512,
            &encoded,
            "count is missing",
        ),
        (good.clone(), 500, &encoded, "byteLength is 500"),
        (
            with("byteLength", json!(100_000)),
            512,
            &encoded,
            "run past buffer 0",
        ),
        (
            with("byteLength", json!(encoded.len() / 2)),
            512,
            &encoded[..encoded.len() / 2],
            "does not decode",
        ),
        (
            with("byteLength", json!(40)),
            512,
            &[0u8; 40],
            "does not decode",
        ),
        // A tiny stream claiming a large decoded size is refused before any allocation.
        (
            with("count", json!(1 << 20)),
            8 << 20,
            &encoded,
            "cannot hold 8388608 decoded bytes",
        ),
        (
            json!({"byteLength": encoded.len(), "byteStride": 3, "count": 6, "mode": "TRIANGLES"}),
            18,
            &encoded,
            "byteStride of 2 or 4",
        ),
        (
            json!({"byteLength": encoded.len(), "byteStride": 2, "count": 7, "mode": "TRIANGLES"}),
            14,
            &encoded,
            "divisible by 3",
        ),
        (
            json!({"byteLength": encoded.len(), "byteStride": 2, "count": 6, "mode": "INDICES",
                "filter": "OCTAHEDRAL"}),
            12,
            &encoded,
            "take no filter",
        ),
    ];
    for (ext, view_length, compressed, want) in cases {
        let json = document(view_length, None, ext.clone());
        match view(&json, compressed) {
            // Octahedral and quaternion filters over 8-byte elements (16-bit components) are
            // allowed: the layout is checked, not the meaning.
            Ok(_) if want == "ok" => {}
            Ok(_) => panic!("{ext}: decoded, expected {want:?}"),
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.starts_with("buffer view 0, meshopt-compressed:") && text.contains(want),
                    "{ext}: {text}"
                );
            }
        }
    }
}

#[test]
fn khr_meshopt_compression_and_odd_16_bit_triangles_decode() {
    // The ratified name, and 9 16-bit indices: 18 bytes, not a whole number of words.
    let indices: Vec<u32> = vec![0, 1, 2, 2, 1, 3, 3, 1, 4];
    let encoded = meshopt::encode_index_buffer(&indices, 5).expect("encodes");
    let mut json = document(
        18,
        None,
        json!({"byteLength": encoded.len(), "byteStride": 2, "count": 9, "mode": "TRIANGLES"}),
    );
    let ext = json["bufferViews"][0]["extensions"]["EXT_meshopt_compression"].take();
    json["bufferViews"][0]["extensions"] = json!({"KHR_meshopt_compression": ext});
    let bytes = view(&json, &encoded).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bytes.len(), 18);
    let mut got: Vec<u32> = bytemuck::pod_collect_to_vec::<u8, u16>(&bytes)
        .into_iter()
        .map(u32::from)
        .collect();
    let mut want = indices.clone();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want, "the same corners");
    // Both names on one view: refused (KHR_meshopt_compression forbids it).
    json["bufferViews"][0]["extensions"]["EXT_meshopt_compression"] =
        json["bufferViews"][0]["extensions"]["KHR_meshopt_compression"].clone();
    let e = view(&json, &encoded).expect_err("both names");
    assert!(e.to_string().contains("names both"), "{e}");
}

#[test]
fn the_views_byte_stride_must_be_the_extensions() {
    let vertices: Vec<[u32; 2]> = (0..16).map(|i| [i, i]).collect();
    let encoded = meshopt::encode_vertex_buffer(&vertices).expect("encodes");
    let json = document(128, Some(16), attributes(&encoded, 16, 8, "NONE"));
    let e = view(&json, &encoded).expect_err("stride mismatch");
    assert!(
        e.to_string()
            .contains("byteStride 16 is not the extension's 8"),
        "{e}"
    );
}

#[test]
fn a_fallback_buffer_reads_as_empty_and_only_its_compressed_views_are_read() {
    // A GLB whose fallback buffer has no URI: only buffer 0 takes the binary chunk.
    let json = json!({
        "buffers": [
            {"byteLength": 4},
            {"byteLength": 1000, "extensions": {"EXT_meshopt_compression": {"fallback": true}}}
        ],
        "bufferViews": [{"buffer": 1, "byteLength": 16}]
    });
    let buffers = crate::gltf::read::read_buffers(&json, Some(&[1, 2, 3, 4]), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(buffers, vec![vec![1, 2, 3, 4], Vec::new()]);
    // A view of the fallback without the extension has no bytes to read.
    let e = Reader::new(&json, &buffers)
        .view(0)
        .expect_err("nothing behind it");
    assert!(e.to_string().contains("buffer 1 has 0"), "{e}");

    // The fallback mark is optional: a buffer with no URI that only compressed views read is
    // one too (here at index 0, so the binary chunk is not given to it).
    let json = json!({
        "buffers": [{"byteLength": 100}, {"uri": "data:application/octet-stream;base64,AAAA",
            "byteLength": 3}],
        "bufferViews": [{"buffer": 0, "byteLength": 8, "byteStride": 8, "extensions":
            {"EXT_meshopt_compression": {"buffer": 1, "byteLength": 3, "byteStride": 8,
                "count": 1, "mode": "ATTRIBUTES"}}}]
    });
    let buffers =
        crate::gltf::read::read_buffers(&json, None, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(buffers[0], Vec::<u8>::new());
    // Only buffer 0 may be a GLB's binary chunk.
    let json = json!({"buffers": [{"uri": "data:application/octet-stream;base64,AAAA",
        "byteLength": 3}, {"byteLength": 4}]});
    let e = crate::gltf::read::read_buffers(&json, Some(&[1, 2, 3, 4]), None)
        .expect_err("buffer 1 cannot be the chunk");
    assert!(e.to_string().contains("buffer 1"), "{e}");
}
