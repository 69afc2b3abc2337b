//! The binary chunk of a GLB being written: buffer views and accessors appended one by one,
//! each view on a 4-byte boundary (glTF 2.0 §3.6.2.4: every accessor offset a multiple of its
//! component size, every vertex attribute element aligned to 4 bytes).

use serde_json::{json, Value};

use super::extension::component;

/// `bufferView.target` for vertex attributes.
pub const ARRAY_BUFFER: u32 = 34962;
/// `bufferView.target` for indices.
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// The buffer, views and accessors written so far.
#[derive(Debug, Default)]
pub struct Bin {
    /// The BIN chunk's bytes.
    pub bytes: Vec<u8>,
    /// `bufferViews`.
    pub views: Vec<Value>,
    /// `accessors`.
    pub accessors: Vec<Value>,
}

/// One accessor to write: its elements tightly packed (`element` bytes each), how glTF reads
/// them, and the stride its view uses (≥ `element`, padding with zeros).
pub struct Elements<'a> {
    /// The bytes, `count × element`.
    pub data: &'a [u8],
    /// Bytes per element.
    pub element: usize,
    /// `componentType`.
    pub component_type: u32,
    /// `type` (`SCALAR`, `VEC2`, …, `MAT4`).
    pub kind: &'a str,
    /// `normalized`.
    pub normalized: bool,
    /// `bufferView.target`, if any.
    pub target: Option<u32>,
    /// The view's `byteStride` (written when it differs from `element` or for vertex data).
    pub stride: usize,
}

impl Bin {
    /// Appends raw bytes as a view of their own (images); returns the view's index.
    pub fn view(&mut self, data: &[u8]) -> usize {
        self.align();
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(data);
        self.views.push(json!({
            "buffer": 0,
            "byteOffset": offset,
            "byteLength": data.len(),
        }));
        self.views.len() - 1
    }

    /// Appends an accessor and its view; returns the accessor's index. `min`/`max` are written
    /// when given (POSITION needs them).
    pub fn accessor(&mut self, e: &Elements<'_>, min_max: Option<(Value, Value)>) -> usize {
        self.align();
        let count = e.data.len() / e.element.max(1);
        let offset = self.bytes.len();
        if e.stride == e.element {
            self.bytes.extend_from_slice(e.data);
        } else {
            for chunk in e.data.chunks_exact(e.element) {
                self.bytes.extend_from_slice(chunk);
                self.bytes
                    .resize(self.bytes.len() + e.stride - e.element, 0);
            }
        }
        let mut view = json!({
            "buffer": 0,
            "byteOffset": offset,
            "byteLength": self.bytes.len() - offset,
        });
        if let Some(target) = e.target {
            view["target"] = json!(target);
            if target == ARRAY_BUFFER {
                view["byteStride"] = json!(e.stride);
            }
        }
        self.views.push(view);
        let mut accessor = json!({
            "bufferView": self.views.len() - 1,
            "componentType": e.component_type,
            "count": count,
            "type": e.kind,
        });
        if e.normalized {
            accessor["normalized"] = json!(true);
        }
        if let Some((min, max)) = min_max {
            accessor["min"] = min;
            accessor["max"] = max;
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// An f32 vertex attribute of `N` components (`VEC2`…`VEC4`), with min/max when asked.
    pub fn floats<const N: usize>(&mut self, values: &[[f32; N]], with_bounds: bool) -> usize {
        let kind = match N {
            1 => "SCALAR",
            2 => "VEC2",
            3 => "VEC3",
            _ => "VEC4",
        };
        let bounds = with_bounds.then(|| {
            let mut lo = [f32::INFINITY; N];
            let mut hi = [f32::NEG_INFINITY; N];
            for v in values {
                for k in 0..N {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
            (json!(lo.to_vec()), json!(hi.to_vec()))
        });
        let data: Vec<u8> = values
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        self.accessor(
            &Elements {
                data: &data,
                element: 4 * N,
                component_type: component::FLOAT,
                kind,
                normalized: false,
                target: Some(ARRAY_BUFFER),
                stride: 4 * N,
            },
            bounds,
        )
    }

    /// A triangle list: `UNSIGNED_SHORT` when every index is below 65535 (the restart value),
    /// else `UNSIGNED_INT`.
    pub fn indices(&mut self, indices: &[u32]) -> usize {
        let short = indices.iter().all(|&i| i < 65535);
        let data: Vec<u8> = if short {
            indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect()
        } else {
            bytemuck::cast_slice(indices).to_vec()
        };
        let (element, component_type) = if short {
            (2, component::UNSIGNED_SHORT)
        } else {
            (4, component::UNSIGNED_INT)
        };
        self.accessor(
            &Elements {
                data: &data,
                element,
                component_type,
                kind: "SCALAR",
                normalized: false,
                target: Some(ELEMENT_ARRAY_BUFFER),
                stride: element,
            },
            None,
        )
    }

    fn align(&mut self) {
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
    }
}

/// Bytes per component of a glTF `componentType` (0 for an unknown one).
#[must_use]
pub fn component_bytes(component_type: u64) -> usize {
    match component_type {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        _ => 0,
    }
}

/// Components of a glTF accessor `type` (0 for an unknown one).
#[must_use]
pub fn type_components(kind: &str) -> usize {
    match kind {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        _ => 0,
    }
}
