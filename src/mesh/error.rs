//! Mesh loading errors: every one names the file, the mesh/primitive where there is one, and
//! the problem, in one line.

use std::fmt;
use std::path::{Path, PathBuf};

/// A mesh file could not be used. Displays as `file: mesh 'Name' primitive 0: problem` (or
/// `file: animation 'Walk' channel 3: problem`).
#[derive(Debug, thiserror::Error)]
pub struct MeshError {
    /// The file.
    pub(crate) file: PathBuf,
    /// `mesh 'Name' primitive 0`, `animation 'Walk' channel 3`, or `None` for file-level
    /// problems.
    pub(crate) place: Option<String>,
    /// What is wrong (also in the message, so it is not repeated as a `source`).
    pub kind: ErrorKind,
}

impl MeshError {
    /// A problem with the whole file.
    #[must_use]
    pub(crate) fn file(file: &Path, kind: ErrorKind) -> Self {
        Self {
            file: file.to_path_buf(),
            place: None,
            kind,
        }
    }

    /// A problem in one mesh/primitive or animation channel.
    #[must_use]
    pub(crate) fn at(file: &Path, place: &str, kind: ErrorKind) -> Self {
        Self {
            file: file.to_path_buf(),
            place: Some(place.to_owned()),
            kind,
        }
    }
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file.display())?;
        if let Some(place) = &self.place {
            write!(f, "{place}: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

/// What is wrong with a mesh file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file (or a file it names) could not be read.
    #[error("cannot read {what}: {error}")]
    Io {
        /// `file` or `buffer 'scene.bin'`.
        what: String,
        /// The OS error.
        error: std::io::Error,
    },
    /// Not `.gltf`, `.glb` or `.obj`.
    #[error("unknown mesh format (expected .gltf, .glb or .obj)")]
    UnknownExtension,
    /// A format this build of qtangent was compiled without (its cargo feature is off).
    #[error("{format} support is not compiled in (enable qtangent's `{feature}` cargo feature)")]
    FeatureOff {
        /// The format.
        format: &'static str,
        /// The cargo feature that adds it.
        feature: &'static str,
    },
    /// The file ends early or its binary container is broken.
    #[error("truncated or malformed file: {0}")]
    Truncated(String),
    /// The glTF JSON does not parse.
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    /// The glTF JSON parses but breaks the spec (a dangling index, a missing field).
    #[error("invalid glTF: {0}")]
    InvalidGltf(String),
    /// The OBJ text does not parse.
    #[error("invalid OBJ: {0}")]
    InvalidObj(String),
    /// A buffer's file does not exist.
    #[error("buffer {buffer} file '{uri}' is missing or not a regular file ({path})")]
    MissingBuffer {
        /// Buffer index.
        buffer: usize,
        /// URI as written in the file.
        uri: String,
        /// Where it was looked for.
        path: String,
    },
    /// A buffer holds fewer bytes than its `byteLength`.
    #[error("buffer {buffer} has {actual} bytes but byteLength says {expected}")]
    ShortBuffer {
        /// Buffer index.
        buffer: usize,
        /// `byteLength`.
        expected: usize,
        /// Bytes present.
        actual: usize,
    },
    /// Something else the glTF crate refused (unsupported URI scheme, bad base64, …).
    #[error("{0}")]
    Gltf(String),
    /// An accessor reads past its buffer view or buffer, or cannot be read (its compressed view
    /// does not decode).
    #[cfg(feature = "gltf")]
    #[error("{attribute} accessor {accessor} {}: {detail}", if detail.is_undecodable() {
        "cannot be decoded"
    } else {
        "is out of bounds"
    })]
    AccessorOutOfBounds {
        /// `POSITION`, `indices`, …
        attribute: String,
        /// Accessor index.
        accessor: usize,
        /// What does not fit.
        detail: Box<crate::gltf::AccessorError>,
    },
    /// An accessor has the wrong type or component type for its attribute.
    #[error("{attribute} accessor {accessor} is {found}, expected {expected}")]
    AccessorType {
        /// Attribute name.
        attribute: String,
        /// Accessor index.
        accessor: usize,
        /// What the file says.
        found: String,
        /// What the spec allows.
        expected: &'static str,
    },
    /// An index refers past the last vertex.
    #[error("index {index} at position {position} is out of range ({vertices} vertices)")]
    IndexOutOfRange {
        /// Position in the index list.
        position: usize,
        /// The index value.
        index: u32,
        /// Vertex count.
        vertices: usize,
    },
    /// An attribute value is NaN or infinite.
    #[error("{attribute} of vertex {vertex} is {value} (NaN and infinity are not allowed)")]
    NonFinite {
        /// Attribute name.
        attribute: String,
        /// Vertex index.
        vertex: usize,
        /// The value found.
        value: f32,
    },
    /// A supplied normal has zero length.
    #[error("NORMAL of vertex {vertex} has zero length")]
    ZeroLengthNormal {
        /// Vertex index.
        vertex: usize,
    },
    /// Attributes of one primitive have different counts.
    #[error("{attribute} has {count} entries but POSITION has {positions}")]
    CountMismatch {
        /// Attribute name.
        attribute: String,
        /// Its count.
        count: usize,
        /// Position count.
        positions: usize,
    },
    /// Nothing in the file is a triangle: every primitive was skipped (points, lines, no
    /// positions) or there are no meshes. The text says what was skipped.
    #[error("no triangles at all: {0}")]
    NoTrianglesAtAll(String),
    /// No POSITION attribute, or zero positions.
    #[error("no positions")]
    NoPositions,
    /// Zero triangles.
    #[error("no triangles")]
    NoTriangles,
    /// An index count that is not a multiple of three.
    #[error("{indices} indices do not make whole triangles")]
    PartialTriangle {
        /// The index count.
        indices: usize,
    },
    /// The file asks for more data than the loader accepts.
    #[error("too large: {0}")]
    TooLarge(String),
    /// The file holds no meshes at all.
    #[error("no triangles at all: no meshes in the file")]
    NoMeshes,
    /// An animation sampler's key times are not strictly increasing (equal times included).
    #[error("key {key} time {time} is not after key {} time {previous} (key times must strictly increase)", key - 1)]
    KeyTimesNotIncreasing {
        /// Index of the offending key (≥ 1).
        key: usize,
        /// Time of the key before it.
        previous: f32,
        /// Its time.
        time: f32,
    },
    /// An animation sampler's first key time is negative.
    #[error("first key time {time} is negative")]
    NegativeKeyTime {
        /// The time.
        time: f32,
    },
    /// An animation key time or value is NaN or infinite.
    #[error("{what} of key {key} is {value} (NaN and infinity are not allowed)")]
    NonFiniteKey {
        /// `time`, `value`, `in-tangent` or `out-tangent`.
        what: &'static str,
        /// Key index.
        key: usize,
        /// The value found.
        value: f32,
    },
    /// An animation sampler's output count does not match its input count.
    #[error("{outputs} output values for {inputs} key times ({interpolation} needs {expected})")]
    KeyCountMismatch {
        /// Input (time) count.
        inputs: usize,
        /// Output (value) count.
        outputs: usize,
        /// What the interpolation requires.
        expected: usize,
        /// `LINEAR`, `STEP` or `CUBICSPLINE`.
        interpolation: &'static str,
    },
    /// An animated rotation key has zero length (no rotation to normalise to).
    #[error("rotation of key {key} has zero length")]
    ZeroLengthRotation {
        /// Key index.
        key: usize,
    },
}

/// An image a material names cannot be read or decoded ([`super::ImageSource::decode`]).
/// Messages do not name the image: callers add the [`super::ImageSource`]'s name (its `Display`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ImageError {
    /// The file cannot be read.
    #[error("{0}")]
    Io(std::io::Error),
    /// A `data:` URI that is not base64 or does not decode.
    #[cfg(feature = "gltf")]
    #[error("{0}")]
    DataUri(crate::gltf::ReadError),
    /// PNG, JPEG or GIF bytes that do not decode.
    #[error("{0}")]
    Decode(image::ImageError),
    /// A KTX2 image that does not decode.
    #[error("KTX2: {0}")]
    #[cfg_attr(not(feature = "ktx2"), allow(dead_code))]
    Ktx2(crate::ktx2::Ktx2Error),
    /// An image of a kind this build was compiled without.
    #[error("{what}: enable qtangent's `{feature}` cargo feature")]
    #[cfg_attr(all(feature = "ktx2", feature = "gltf"), allow(dead_code))]
    FeatureOff {
        /// The kind of image.
        what: &'static str,
        /// The cargo feature that reads it.
        feature: &'static str,
    },
    /// An image of no pixels.
    #[error("the image is empty")]
    Empty,
}
