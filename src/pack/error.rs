//! What stopped a file being packed ([`super::PackError`] names the file).

use crate::gltf::error::ReadError;
use crate::gltf::error::WriteError;
use crate::gltf::AccessorError;
use crate::mesh::ImageError;

/// What stopped a file being packed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum PackErrorKind {
    /// `prepared` does not hold one entry per primitive of the scene.
    #[error("{prepared} prepared primitives for {scene} in the scene")]
    PreparedCount {
        /// Entries in `prepared`.
        prepared: usize,
        /// Primitives in the scene.
        scene: usize,
    },
    /// The file has changed since it was loaded.
    #[error("the file has {file} meshes but {loaded} were loaded")]
    MeshCount {
        /// Meshes in the file.
        file: usize,
        /// Meshes in the scene.
        loaded: usize,
    },
    /// The file cannot be read again.
    #[error("cannot read: {0}")]
    Io(std::io::Error),
    /// Its container, JSON or buffers cannot be read.
    #[error("{0}")]
    Read(#[from] ReadError),
    /// An accessor to copy cannot be read.
    #[error("accessor {accessor} {error}")]
    Accessor {
        /// The accessor.
        accessor: usize,
        /// What is wrong with it.
        error: AccessorError,
    },
    /// An attribute to copy through the vertex splits has fewer elements than POSITION.
    #[error("{primitive}: {attribute} has fewer elements than POSITION")]
    ShortAttribute {
        /// The primitive.
        primitive: String,
        /// The attribute.
        attribute: String,
    },
    /// An image with neither a URI nor a buffer view.
    #[error("image {image} has neither uri nor bufferView")]
    ImageWithoutSource {
        /// The image.
        image: usize,
    },
    /// An image's buffer view cannot be read.
    #[error("image {image}: {error}")]
    ImageView {
        /// The image.
        image: usize,
        /// What is wrong with its view.
        error: AccessorError,
    },
    /// An image's URI cannot be used.
    #[error("image {image}: {error}")]
    ImageUri {
        /// The image.
        image: usize,
        /// What is wrong with its URI.
        error: ReadError,
    },
    /// An image's file or data URI cannot be read.
    #[error("{image}: {error}")]
    Image {
        /// The image, described.
        image: String,
        /// The problem.
        error: ImageError,
    },
    /// An image with no `mimeType` whose bytes are not PNG, JPEG, WebP or KTX2.
    #[error("image {image}: not PNG, JPEG, WebP or KTX2")]
    ImageType {
        /// The image.
        image: usize,
    },
    /// A map cannot be written as KTX2.
    #[error("{what}: {error}")]
    Ktx2 {
        /// The map.
        what: String,
        /// The writer's error.
        error: crate::ktx2::Ktx2Error,
    },
    /// A quantisation bit count outside 1 to 16.
    #[error("{what} bits must be 1 to 16, not {bits}")]
    Bits {
        /// Positions or UVs.
        what: &'static str,
        /// The bits asked for.
        bits: u8,
    },
    /// The GLB cannot be written.
    #[error("{0} (refused by strict packing: it changes what a reader draws)")]
    Strict(crate::Warning),

    #[error("GLB: {0}")]
    Write(#[from] WriteError),
}
