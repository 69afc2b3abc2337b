//! What can be wrong with a glTF file at the level of this layer: its container, JSON and buffers
//! ([`ReadError`]), or one accessor ([`AccessorError`]); and what stops a file being written
//! ([`WriteError`]).

use std::path::PathBuf;

use super::names::{AccessorLayout, ComponentType};

/// A glTF file's container, JSON or buffers cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ReadError {
    /// Fewer bytes than a GLB header.
    #[error("GLB: {bytes} bytes, fewer than the 12-byte header")]
    GlbHeader {
        /// The file's size.
        bytes: usize,
    },
    /// A GLB version other than 2.
    #[error("GLB: version {version} (only version 2 is read)")]
    GlbVersion {
        /// The header's version.
        version: u32,
    },
    /// The GLB header's length is less than the header.
    #[error("GLB header says the file is {length} bytes, less than the header itself")]
    GlbLengthBelowHeader {
        /// The header's length.
        length: u32,
    },
    /// The GLB header's length is more than the file holds.
    #[error("GLB header says the file is {length} bytes, but it has {actual}")]
    GlbLengthPastEnd {
        /// The header's length.
        length: u32,
        /// The bytes present.
        actual: usize,
    },
    /// A GLB chunk runs past the length the header gives.
    #[error("GLB chunk {chunk} ends at byte {end}, past the end of the file at {length}")]
    GlbChunk {
        /// The chunk's position (0 is the JSON chunk).
        chunk: usize,
        /// Where it ends.
        end: u64,
        /// The file's length.
        length: u32,
    },
    /// A GLB whose first chunk is not JSON.
    #[error("GLB: the first chunk is not JSON")]
    GlbNoJson,
    /// A KHR_draco_mesh_compression primitive that does not decode: its extension object, its
    /// stream, or what the stream holds against the primitive's accessors.
    #[error("{primitive}, Draco-compressed: {what}")]
    Draco {
        /// `mesh M primitive P`.
        primitive: String,
        /// What is wrong.
        what: String,
    },
    /// The JSON does not parse.
    #[error("invalid JSON: {0}")]
    Json(serde_json::Error),
    /// A buffer names an external file, but the document came from memory.
    #[error("buffer {buffer} refers to the external file '{uri}', but the data came from memory")]
    ExternalFromMemory {
        /// The buffer.
        buffer: usize,
        /// Its URI.
        uri: String,
    },
    /// A buffer's file is missing, or is not a regular file (a device, a FIFO).
    #[error("buffer {buffer} file '{uri}' is missing or not a regular file ({})", path.display())]
    MissingFile {
        /// The buffer.
        buffer: usize,
        /// Its URI as written.
        uri: String,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A buffer without a URI, in a file with no GLB binary chunk (or one another buffer took).
    #[error("buffer {buffer} refers to the GLB binary chunk, but the file has none")]
    NoBinChunk {
        /// The buffer.
        buffer: usize,
    },
    /// A buffer's file could not be read.
    #[error("cannot read buffer {buffer}: {error}")]
    Io {
        /// The buffer.
        buffer: usize,
        /// The OS error.
        error: std::io::Error,
    },
    /// A buffer holds fewer bytes than its `byteLength`.
    #[error("buffer {buffer} has {actual} bytes but byteLength says {expected}")]
    ShortBuffer {
        /// The buffer.
        buffer: usize,
        /// `byteLength`.
        expected: usize,
        /// The bytes present.
        actual: usize,
    },
    /// A buffer's URI cannot be used.
    #[error("buffer {buffer} {problem}")]
    BufferUri {
        /// The buffer.
        buffer: usize,
        /// What is wrong with the URI.
        problem: Box<ReadError>,
    },
    /// A URI with a scheme other than `data:` or `file:`.
    #[error("URI '{uri}' has a scheme other than data: or file:")]
    UriScheme {
        /// The URI.
        uri: String,
    },
    /// A URI whose percent-encoding is not UTF-8.
    #[error("URI '{uri}': {error}")]
    UriEncoding {
        /// The URI.
        uri: String,
        /// The decoder's error.
        error: std::string::FromUtf8Error,
    },
    /// A `data:` URI that is not base64.
    #[error("data URI is not base64")]
    NotBase64,
    /// A `data:` URI whose base64 does not decode.
    #[error("data URI is not valid base64 ({0})")]
    Base64(base64::DecodeError),
}

/// One accessor (or the buffer view it reads) cannot be read. Messages are clauses that follow
/// the accessor's name: `POSITION accessor 0 is out of bounds: count is 0`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AccessorError {
    /// The index names no accessor.
    #[error("there is no such accessor ({count} in the file)")]
    NoAccessor {
        /// Accessors in the file.
        count: usize,
    },
    /// A field is missing or not what glTF allows (`componentType` 5124, `type` "VEC5").
    #[error("{field} is {found}")]
    Field {
        /// The field.
        field: &'static str,
        /// Its JSON, or `missing`.
        found: String,
    },
    /// An accessor of no elements.
    #[error("count is 0")]
    ZeroCount,
    /// A sparse part of no elements.
    #[error("sparse count is 0")]
    ZeroSparseCount,
    /// The index names no buffer view.
    #[error("buffer view {view} does not exist ({count} buffer views)")]
    NoView {
        /// The view.
        view: usize,
        /// Views in the file.
        count: usize,
    },
    /// A meshopt-compressed buffer view (EXT_meshopt_compression, KHR_meshopt_compression) that
    /// does not decode: its extension object, or its stream.
    #[error("buffer view {view}, meshopt-compressed: {problem}")]
    Meshopt {
        /// The view.
        view: usize,
        /// What is wrong.
        problem: String,
    },
    /// A buffer view's buffer does not exist.
    #[error("buffer view {view} names buffer {buffer}, which does not exist")]
    NoBuffer {
        /// The view.
        view: usize,
        /// The buffer it names.
        buffer: usize,
    },
    /// Elements closer together than their size.
    #[error("buffer view {view} stride {stride} is less than the element size {element}")]
    Stride {
        /// The view.
        view: usize,
        /// Its `byteStride`.
        stride: usize,
        /// Bytes per element.
        element: usize,
    },
    /// Elements that run past the end of their buffer view.
    #[error(
        "{count} elements from byte {offset} need {end} bytes, buffer view {view} has {length}"
    )]
    PastView {
        /// Elements read.
        count: usize,
        /// The accessor's `byteOffset`.
        offset: usize,
        /// Where the last element ends.
        end: usize,
        /// The view.
        view: usize,
        /// Its `byteLength`.
        length: usize,
    },
    /// A buffer view that runs past the end of its buffer.
    #[error("buffer view {view} ends at byte {end}, buffer {buffer} has {have}")]
    PastBuffer {
        /// The view.
        view: usize,
        /// Where it ends.
        end: usize,
        /// Its buffer.
        buffer: usize,
        /// The buffer's bytes.
        have: usize,
    },
    /// Offsets and lengths whose sum does not fit in memory.
    #[error("byte range overflows")]
    Overflow,
    /// More elements than one accessor may hold.
    #[error("{count} elements are more than the {max} one accessor may hold")]
    TooLarge {
        /// The accessor's count.
        count: usize,
        /// The most: 2²⁷.
        max: usize,
    },
    /// The sparse indices cannot be read.
    #[error("sparse indices: {0}")]
    SparseIndices(Box<AccessorError>),
    /// The sparse values cannot be read.
    #[error("sparse values: {0}")]
    SparseValues(Box<AccessorError>),
    /// A sparse index past the accessor's last element.
    #[error("sparse index {index} is past the last element ({count} elements)")]
    SparseIndex {
        /// The index.
        index: usize,
        /// The accessor's count.
        count: usize,
    },
    /// Elements of a layout the caller cannot take (floats as integers, a vector of another
    /// size).
    #[error("it is {}, which cannot be read as {want}", found.describe())]
    Unreadable {
        /// The accessor's layout.
        found: AccessorLayout,
        /// What the caller reads.
        want: &'static str,
    },
    /// Sparse indices of a type other than an unsigned integer.
    #[error("sparse indices are {0}, not an unsigned integer type")]
    SparseIndexType(ComponentType),
}

impl AccessorError {
    /// Whether the accessor's data is there but does not decode (a meshopt view), its sparse
    /// parts included, rather than out of bounds or malformed.
    pub(crate) fn is_undecodable(&self) -> bool {
        match self {
            Self::Meshopt { .. } => true,
            Self::SparseIndices(e) | Self::SparseValues(e) => e.is_undecodable(),
            _ => false,
        }
    }
}

/// A glTF file cannot be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A GLB's chunks add up to more than 4 GiB, which its 32-bit lengths cannot say.
    #[error("a GLB of {bytes} bytes is larger than the 4 GiB its header can say")]
    TooLarge {
        /// The bytes the file would take.
        bytes: u64,
    },
    /// A file cannot be written.
    #[error("cannot write {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
}
