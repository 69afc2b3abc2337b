use serde_json::{json, Value};

use super::{component_f32, describe, Reader, MAX_ELEMENTS};
use crate::gltf::{AccessorError, ComponentType};

/// glTF 2.0 §3.11's table, at both ends and the middle of each type.
#[test]
fn normalisation_follows_the_spec_table() {
    let f = |c, bytes: &[u8], normalized| component_f32(c, bytes, normalized);
    use ComponentType::{Byte, Float, Short, UnsignedByte, UnsignedShort};
    assert_eq!(f(Byte, &127i8.to_le_bytes(), true), 1.0);
    assert_eq!(f(Byte, &(-127i8).to_le_bytes(), true), -1.0);
    assert_eq!(
        f(Byte, &(-128i8).to_le_bytes(), true),
        -1.0,
        "−128/127 clamps to −1"
    );
    assert_eq!(f(UnsignedByte, &[255], true), 1.0);
    assert_eq!(f(UnsignedByte, &[0], true), 0.0);
    assert_eq!(f(Short, &32767i16.to_le_bytes(), true), 1.0);
    assert_eq!(f(Short, &(-32768i16).to_le_bytes(), true), -1.0);
    assert_eq!(f(UnsignedShort, &65535u16.to_le_bytes(), true), 1.0);
    assert_eq!(
        f(UnsignedShort, &32768u16.to_le_bytes(), true),
        32768.0 / 65535.0
    );
    // Not normalised: the integer itself.
    assert_eq!(f(Byte, &(-128i8).to_le_bytes(), false), -128.0);
    assert_eq!(f(UnsignedShort, &65535u16.to_le_bytes(), false), 65535.0);
    assert_eq!(f(Short, &(-32768i16).to_le_bytes(), false), -32768.0);
    assert_eq!(f(Float, &2.5f32.to_le_bytes(), true), 2.5);
}

/// One buffer of `bin`, views as given, accessors as given.
fn doc(views: Value, accessors: Value, bin: &[u8]) -> (Value, Vec<Vec<u8>>) {
    let json = json!({
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": accessors,
    });
    (json, vec![bin.to_vec()])
}

/// A strided view, a sparse part replacing element 1 and a zero-filled accessor with a sparse
/// part, read as floats; unsigned integers of three widths.
#[test]
fn strides_sparse_parts_and_zeros() {
    // View 0: three u8 VEC2 elements at stride 4. View 1: sparse index [1] (u16). View 2:
    // sparse value [9, 8].
    let bin = [1, 2, 0, 0, 3, 4, 0, 0, 5, 6, 0, 0, 1, 0, 9, 8];
    let (json, buffers) = doc(
        json!([
            {"buffer": 0, "byteLength": 12, "byteStride": 4},
            {"buffer": 0, "byteOffset": 12, "byteLength": 2},
            {"buffer": 0, "byteOffset": 14, "byteLength": 2},
        ]),
        json!([
            {"bufferView": 0, "componentType": 5121, "count": 3, "type": "VEC2",
             "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5123},
                        "values": {"bufferView": 2}}},
            {"componentType": 5121, "count": 3, "type": "VEC2",
             "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5123},
                        "values": {"bufferView": 2}}},
            {"bufferView": 0, "componentType": 5121, "count": 3, "type": "VEC2", "normalized": true},
        ]),
        &bin,
    );
    let r = Reader::new(&json, &buffers);
    let read = |a| r.accessor(a).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.floats::<2>(&read(0)).unwrap_or_default(),
        [[1.0, 2.0], [9.0, 8.0], [5.0, 6.0]]
    );
    assert_eq!(
        r.floats::<2>(&read(1)).unwrap_or_default(),
        [[0.0, 0.0], [9.0, 8.0], [0.0, 0.0]]
    );
    assert_eq!(
        r.unsigned::<2>(&read(0)).unwrap_or_default(),
        [[1, 2], [9, 8], [5, 6]]
    );
    assert_eq!(
        r.floats::<2>(&read(2)).unwrap_or_default()[0],
        [1.0 / 255.0, 2.0 / 255.0]
    );
    assert!(matches!(
        r.unsigned::<2>(&read(2)),
        Err(AccessorError::Unreadable { .. })
    ));
    assert!(matches!(
        r.floats::<3>(&read(0)),
        Err(AccessorError::Unreadable { .. })
    ));
}

/// Every range is checked before anything is read, and named.
#[test]
fn ranges_are_checked() {
    let bin = [0u8; 16];
    let (json, buffers) = doc(
        json!([
            {"buffer": 0, "byteLength": 12},
            {"buffer": 0, "byteOffset": 8, "byteLength": 12},
            {"buffer": 0, "byteLength": 12, "byteStride": 2},
            {"buffer": 3, "byteLength": 4},
        ]),
        json!([
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR"},
            {"bufferView": 1, "componentType": 5126, "count": 1, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 0, "componentType": 5126, "count": 0, "type": "SCALAR"},
            {"bufferView": 9, "componentType": 5126, "count": 1, "type": "SCALAR"},
            {"bufferView": 3, "componentType": 5126, "count": 1, "type": "SCALAR"},
            {"bufferView": 0, "componentType": 5124, "count": 1, "type": "SCALAR"},
            {"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC5"},
            {"componentType": 5126, "count": MAX_ELEMENTS + 1, "type": "SCALAR"},
            {"bufferView": 0, "componentType": 5126, "count": 1, "type": "SCALAR",
             "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5126},
                        "values": {"bufferView": 0}}},
            {"bufferView": 0, "componentType": 5126, "count": 1, "type": "SCALAR",
             "sparse": {"count": 4, "indices": {"bufferView": 0, "componentType": 5121},
                        "values": {"bufferView": 0, "byteOffset": 4}}},
        ]),
        &bin,
    );
    let r = Reader::new(&json, &buffers);
    let err = |a| {
        r.accessor(a)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert_eq!(
        err(0),
        "4 elements from byte 0 need 16 bytes, buffer view 0 has 12"
    );
    assert_eq!(err(1), "buffer view 1 ends at byte 20, buffer 0 has 16");
    assert_eq!(
        err(2),
        "buffer view 2 stride 2 is less than the element size 4"
    );
    assert_eq!(err(3), "count is 0");
    assert_eq!(err(4), "buffer view 9 does not exist (4 buffer views)");
    assert_eq!(err(5), "buffer view 3 names buffer 3, which does not exist");
    assert_eq!(err(6), "componentType is 5124");
    assert_eq!(err(7), "type is \"VEC5\"");
    assert!(err(8).contains("more than the"), "{}", err(8));
    assert_eq!(
        err(9),
        "sparse indices are FLOAT, not an unsigned integer type"
    );
    assert_eq!(
        err(10),
        "sparse values: 4 elements from byte 4 need 20 bytes, buffer view 0 has 12"
    );
    assert_eq!(err(11), "there is no such accessor (11 in the file)");
    assert!(describe(&json, 8).is_ok(), "describe reads the JSON alone");
}

/// A sparse index past the accessor's end is an error when read.
#[test]
fn sparse_indices_past_the_end_are_errors() {
    let bin = [7, 0, 0, 0, 0, 0, 128, 63];
    let (json, buffers) = doc(
        json!([
            {"buffer": 0, "byteLength": 4},
            {"buffer": 0, "byteOffset": 4, "byteLength": 4},
        ]),
        json!([{"componentType": 5126, "count": 2, "type": "SCALAR",
                "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5125},
                           "values": {"bufferView": 1}}}]),
        &bin,
    );
    let r = Reader::new(&json, &buffers);
    let acc = r.accessor(0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.bytes(&acc),
        Err(AccessorError::SparseIndex { index: 7, count: 2 })
    );
}
