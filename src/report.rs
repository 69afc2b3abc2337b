//! What long operations report while they run: [`Progress`] and [`Warning`]s, through one
//! [`Listener`].
//!
//! A warning is something that was wrong but not fatal — a primitive skipped, normals
//! regenerated, a map stored in another format than asked — with where it happened and how
//! many it concerns. Warnings are typed ([`WarningKind`]) so a program can act on them; their
//! `Display` is the one line the tools print. The library never prints: it hands warnings and
//! progress to the caller's [`Listener`] (`&mut Vec<Warning>` collects them, `&mut ()` drops
//! them).

use std::fmt;

/// How far a long operation is: `done` of `total` units of `stage` (`raster`, `pad`, `mips`,
/// …). The operation is whatever the listener was handed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress<'a> {
    /// The stage under way.
    pub stage: &'a str,
    /// Units done.
    pub done: u64,
    /// Units in the stage (at least 1).
    pub total: u64,
}

/// Something that was wrong but not fatal: where, and what (with how many).
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    place: String,
    kind: WarningKind,
}

impl Warning {
    /// A warning about `place` (a file, `FILE: mesh 'X' primitive 2`, `material 'Y'`).
    #[must_use]
    pub(crate) fn new(place: impl Into<String>, kind: WarningKind) -> Self {
        Self {
            place: place.into(),
            kind,
        }
    }

    /// Where it happened, as the message names it.
    #[must_use]
    pub fn place(&self) -> &str {
        &self.place
    }

    /// What happened.
    #[must_use]
    pub fn kind(&self) -> &WarningKind {
        &self.kind
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.place.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.place, self.kind)
        }
    }
}

/// What a [`Warning`] says. New kinds may be added in any release.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum WarningKind {
    // One section per domain; each variant's Display (below, in the same order) is one line:
    // what, and how many.

    // ---- Loading meshes (glTF, OBJ) ----
    /// The file requires extensions qtangent does not implement; it was read without them.
    UnknownRequiredExtensions {
        /// Their names, as `extensionsRequired` lists them.
        extensions: Vec<String>,
    },
    /// An animation channel names no target node (an extension may name the target); skipped.
    ChannelWithoutTarget,
    /// Morph target `weights` animation channels were skipped (not supported).
    MorphWeightChannelsSkipped {
        /// How many.
        count: usize,
        /// The first few, named (`animation 'Walk' channel 3`).
        first: Vec<String>,
    },
    /// A node's matrix has a zero-length axis, so its rotation is unknown: animation uses the
    /// identity.
    MatrixWithZeroAxis,
    /// A node's matrix is not translation · rotation · scale (shear or a projective row):
    /// animation uses the nearest decomposition.
    MatrixNotTrs,
    /// A material's texture has no image qtangent can read; drawn without it.
    TextureWithoutImage {
        /// Which texture of the material (`normal`, `base colour`, …).
        texture: &'static str,
        /// The texture's index in the file.
        index: usize,
    },
    /// An OBJ material's texture names a file that is not there; drawn without it.
    TextureFileMissing {
        /// Which texture of the material (`normal`, `base colour`).
        texture: &'static str,
        /// Where it was looked for.
        path: String,
    },
    /// A KHR_texture_transform on a texture that reads a UV set other than 0 (only set 0 is
    /// loaded); drawn untransformed.
    TextureTransformOnOtherSet {
        /// Which texture of the material.
        texture: &'static str,
        /// The UV set it reads.
        set: u32,
    },
    /// A material's textures on UV set 0 have different KHR_texture_transforms; none applied.
    TextureTransformsDiffer {
        /// Each texture and its transform (`normal offset [0, 0] rotation 0 scale [2, 2]`).
        transforms: Vec<String>,
    },
    /// A primitive with nothing to draw was skipped (only triangles are drawn).
    PrimitiveSkipped {
        /// Why: its mode (`LINES`), `no POSITION`, or `no triangles (2 indices in TRIANGLES)`.
        why: String,
    },
    /// More than three primitives were skipped (only triangles are drawn).
    PrimitivesSkipped {
        /// How many.
        count: usize,
        /// The first three, each `mesh 'X' primitive 2 (LINES)`.
        first: Vec<String>,
    },
    /// A triangle list whose index count is not a multiple of three lost its last indices.
    PartialTriangleDropped {
        /// The index count.
        indices: usize,
        /// The indices ignored (1 or 2).
        dropped: usize,
    },
    /// Supplied normals that were zero-length or not finite were regenerated (angle-weighted
    /// from the vertex's triangles).
    NormalsRegenerated {
        /// How many.
        count: usize,
    },
    /// Supplied tangents that were not finite were ignored: those vertices get the fallback
    /// frame.
    TangentsIgnored {
        /// How many.
        count: usize,
    },
    /// An OBJ's material library was not loaded: the OBJ came from memory.
    MaterialLibraryFromMemory {
        /// The library as the OBJ names it.
        library: String,
    },
    /// An OBJ's material library cannot be read; its materials are skipped.
    MaterialLibraryUnreadable {
        /// Where it was looked for.
        library: String,
        /// The reason.
        error: String,
    },
    /// An OBJ's material library does not parse; its materials are skipped.
    MaterialLibraryInvalid {
        /// The library.
        library: String,
        /// What the parser said.
        error: String,
    },
    /// An OBJ object or group has no faces (points or lines only); skipped.
    ObjectWithoutFaces,
    /// OBJ point and line elements were skipped (only faces are loaded).
    PointsAndLinesSkipped {
        /// How many elements.
        count: usize,
    },

    // ---- Animation ----

    // ---- Quaternion maps (bake jobs, storing) ----
    /// A primitive has no UVs (TEXCOORD_0), so no map can be baked for it; skipped.
    PrimitiveWithoutUvs,
    /// None of a material's primitives has UVs; it gets no map.
    MaterialWithoutUvs {
        /// Its primitives.
        primitives: usize,
    },
    /// A material's texture reads a UV set other than 0, which is not loaded; the map is baked
    /// without it.
    BakeTextureOnOtherSet {
        /// Which texture (`normal`, `anisotropy`).
        texture: &'static str,
        /// The UV set it reads.
        set: u32,
    },
    /// More than a small share of an object-space map's UV texels overlap, so the map was
    /// baked in a UV layout of its own (drawn with a second UV set).
    MapRepacked {
        /// The share of texels that overlap, percent.
        overlap_percent: u32,
    },
    /// BC5 holds two numbers a texel: asked of an object-space map, the map is stored as BC7;
    /// of a tangent-space map with a tilt and a twist, as two BC5 layers (bc5x2).
    Bc5CannotHold {
        /// An object-space map (else a tangent-space map with a tilt and a twist).
        object_space: bool,
    },
    /// A block format was asked of a map whose sides are not multiples of 4; stored as
    /// rgba16f.
    NotBlockSized {
        /// The format asked for (its name).
        format: &'static str,
        /// Width of level 0.
        width: u32,
        /// Height of level 0.
        height: u32,
    },
    /// A tangent-space map with a tilt and a twist has normals tilted past the horizon
    /// (n.z < 0, a normal map's blue below ½), which two BC5 layers (the normal's (x, y), z ≥ 0
    /// rebuilt) cannot hold; stored as BC7.
    TiltPastHorizon {
        /// Texels (over every level) tilted past the horizon.
        texels: usize,
    },
    /// Two BC5 layers (bc5x2) were asked of an object-space map that keeps its handedness
    /// plane (an authored one, or `keep_handedness`): the second layer takes the plane's place;
    /// stored as BC7.
    PlaneNotInBc5Pair,
    /// Triangles with a vertex outside the [0, 1]² UV square: only the part inside is baked.
    OutsideUvSquare {
        /// Triangles that reach outside.
        triangles: usize,
        /// Triangles in the mesh.
        of: usize,
    },
    /// Triangles whose UVs have (next to) no area: an object-space map holds no frame of
    /// theirs, so where they are drawn they read their neighbours' texels.
    NoUvArea {
        /// Triangles without UV area.
        triangles: usize,
        /// Triangles in the mesh.
        of: usize,
    },
    /// A texture asked to be drawn BC-compressed, as an engine ships it, has sides that are not
    /// multiples of 4; drawn uncompressed.
    TextureNotBlockSized {
        /// Which texture (`normal map`, `anisotropy texture`).
        texture: &'static str,
        /// Width of level 0.
        width: u32,
        /// Height of level 0.
        height: u32,
    },

    /// A folder of maps was given, but it has no map for this material; baked instead.
    MapNotInFolder {
        /// The file looked for.
        file: String,
        /// The folder.
        folder: std::path::PathBuf,
    },

    // ---- Rendering ----
    /// A primitive without UVs gets no quaternion map: the map modes draw it with its qtangent
    /// vertex frames.
    NoQuaternionMap,
    /// A material's texture reads a UV set other than 0 (only set 0 is loaded); not drawn.
    TextureOnOtherSet {
        /// Which texture of the material (`normal`, `base colour`, …).
        texture: &'static str,
        /// The UV set it reads.
        set: u32,
    },
    /// A mesh instance whose node transform is singular or not finite was skipped.
    InstanceSkipped {
        /// The node.
        node: usize,
    },
    /// The file has skins; the renderer draws skinned meshes in their bind pose.
    SkinnedInBindPose,
    /// The device does not sample BC textures (`TEXTURE_COMPRESSION_BC`): block-compressed maps
    /// are decoded to rgba16f when uploaded.
    BcDecodedAtUpload {
        /// The map's format (its name).
        format: &'static str,
    },
    // ---- Skinning ----
    /// Influences beyond what a vertex holds were dropped (the largest weights are kept).
    InfluencesDropped {
        /// How many.
        count: usize,
        /// The influences a vertex holds.
        max: usize,
    },

    // ---- Packing glTF ----
    /// A primitive that is not a triangle primitive (points, lines) was dropped.
    PrimitiveDropped,
    /// A vertex attribute nothing reads (a UV set no texture samples) was left out of the
    /// packed file, as gltfpack leaves it out (`PackOptions::keep_attributes` keeps it).
    UnreadAttributeDropped {
        /// The primitives it left.
        primitives: usize,
    },
    /// A KTX2 image that a texture named as its core `source` (glTF allows PNG and JPEG there)
    /// and that is not Basis Universal (KHR_texture_basisu's) was stored as a PNG of its first
    /// level.
    Ktx2ImageAsPng,
    /// Supplied tangents that were not perpendicular to their normal or not of unit length
    /// were orthonormalised (Gram–Schmidt): a reader that uses the raw tangent (three.js'
    /// anisotropy) draws the source differently.
    TangentsOrthonormalised {
        /// Vertices whose tangent turned by more than 0.01°.
        count: usize,
        /// The largest turn, degrees.
        largest_degrees: f32,
    },
    /// A mesh left without a triangle primitive was removed, with its node references.
    EmptyMeshRemoved,
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            // ---- Loading meshes (glTF, OBJ) ----
            Self::UnknownRequiredExtensions { .. }
            | Self::ChannelWithoutTarget
            | Self::MorphWeightChannelsSkipped { .. }
            | Self::MatrixWithZeroAxis
            | Self::MatrixNotTrs
            | Self::TextureWithoutImage { .. }
            | Self::TextureFileMissing { .. }
            | Self::TextureTransformOnOtherSet { .. }
            | Self::TextureTransformsDiffer { .. }
            | Self::PrimitiveSkipped { .. }
            | Self::PrimitivesSkipped { .. }
            | Self::PartialTriangleDropped { .. }
            | Self::NormalsRegenerated { .. }
            | Self::TangentsIgnored { .. }
            | Self::MaterialLibraryFromMemory { .. }
            | Self::MaterialLibraryUnreadable { .. }
            | Self::MaterialLibraryInvalid { .. }
            | Self::ObjectWithoutFaces
            | Self::PointsAndLinesSkipped { .. } => self.fmt_loading(f),

            // ---- Animation ----

            // ---- Quaternion maps (bake jobs, storing) ----
            Self::PrimitiveWithoutUvs
            | Self::MaterialWithoutUvs { .. }
            | Self::BakeTextureOnOtherSet { .. }
            | Self::MapRepacked { .. }
            | Self::Bc5CannotHold { .. }
            | Self::NotBlockSized { .. }
            | Self::NoUvArea { .. }
            | Self::OutsideUvSquare { .. }
            | Self::TiltPastHorizon { .. }
            | Self::PlaneNotInBc5Pair
            | Self::TextureNotBlockSized { .. }
            | Self::MapNotInFolder { .. } => self.fmt_maps(f),

            // ---- Rendering ----
            Self::NoQuaternionMap => write!(
                f,
                "no UVs, so no quaternion map: the map modes draw it with qtangent vertex frames"
            ),
            Self::TextureOnOtherSet { texture, set } => write!(
                f,
                "the {texture} texture reads UV set {set}; only set 0 is loaded, so it is not drawn"
            ),
            Self::InstanceSkipped { node } => write!(
                f,
                "node {node} has a singular or non-finite transform; instance skipped"
            ),
            Self::SkinnedInBindPose => write!(f, "skinned meshes are drawn in their bind pose"),
            Self::BcDecodedAtUpload { format } => write!(
                f,
                "does not sample BC textures (TEXTURE_COMPRESSION_BC); {format} maps are decoded \
                 to rgba16f at upload"
            ),
            // ---- Skinning ----
            Self::InfluencesDropped { count, max } => write!(
                f,
                "{count} influences beyond {max} a vertex dropped (the largest weights kept)"
            ),

            // ---- Packing glTF ----
            Self::PrimitiveDropped => write!(f, "not a triangle primitive; dropped"),
            Self::UnreadAttributeDropped { primitives } => write!(
                f,
                "dropped from {primitives} primitive(s): no texture or map reads it"
            ),
            Self::Ktx2ImageAsPng => write!(
                f,
                "a KTX2 image named as a texture's core source, stored as a PNG of its first level"
            ),
            Self::TangentsOrthonormalised {
                count,
                largest_degrees,
            } => write!(
                f,
                "{count} supplied tangent(s) orthonormalised against their normals, \
                 the largest turned by {largest_degrees:.2}°"
            ),

            Self::EmptyMeshRemoved => write!(
                f,
                "no triangle primitive left; removed with its node references"
            ),
        }
    }
}

impl WarningKind {
    /// The "Quaternion maps" section's lines (the other sections' variants write nothing here).
    fn fmt_maps(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::PrimitiveWithoutUvs => write!(f, "no UVs (TEXCOORD_0); skipped"),
            Self::MaterialWithoutUvs { primitives } => {
                write!(f, "none of its {primitives} primitives has UVs; no map")
            }
            Self::BakeTextureOnOtherSet { texture, set } => write!(
                f,
                "its {texture} texture reads TEXCOORD_{set}, which is not loaded; baked without it"
            ),
            Self::MapRepacked { overlap_percent } => write!(
                f,
                "{overlap_percent}% of its UV texels overlap; its object-space map has a UV layout \
                 of its own"
            ),
            Self::Bc5CannotHold { object_space } => write!(
                f,
                "bc5 holds two numbers a texel, not {}",
                if object_space {
                    "an object-space map; stored as bc7"
                } else {
                    "a tilt and a twist (x, y, z ≠ 0); stored as bc5x2"
                }
            ),
            Self::NotBlockSized {
                format,
                width,
                height,
            } => write!(
                f,
                "{format} needs sides that are multiples of 4, not {width}×{height}; stored as \
                 rgba16f"
            ),
            Self::PlaneNotInBc5Pair => write!(
                f,
                "bc5x2 cannot keep this object-space map's handedness plane (its second layer \
                 takes the plane's place); stored as bc7"
            ),
            Self::TiltPastHorizon { texels } => write!(
                f,
                "{texels} texels have normals tilted past the horizon (a normal map's blue below \
                 ½), which bc5x2 cannot hold (its first layer rebuilds z ≥ 0); stored as bc7"
            ),
            Self::OutsideUvSquare { triangles, of } => write!(
                f,
                "{triangles} of {of} triangles reach outside the [0, 1]² UV square; only the part \
                 inside is baked"
            ),
            Self::NoUvArea { triangles, of } => write!(
                f,
                "{triangles} of {of} triangles have no UV area: the object-space map holds no \
                 frame of theirs, so they draw their neighbours' (such a mesh needs UVs of its \
                 own, unique and with area, for an object-space map)"
            ),
            Self::TextureNotBlockSized {
                texture,
                width,
                height,
            } => write!(
                f,
                "its {texture} is {width}×{height}, not a multiple of 4 that BC5 can store; drawn \
                 uncompressed"
            ),
            Self::MapNotInFolder {
                ref file,
                ref folder,
            } => write!(f, "no map {file} in {}; baked instead", folder.display()),
            _ => Ok(()),
        }
    }

    /// The "Loading meshes" section's lines (the other sections' variants write nothing here).
    fn fmt_loading(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnknownRequiredExtensions { ref extensions } => write!(
                f,
                "the file requires {}, which qtangent does not implement; loaded without",
                extensions.join(", ")
            ),
            Self::ChannelWithoutTarget => write!(
                f,
                "no target node (an extension may name the target); skipped"
            ),
            Self::MorphWeightChannelsSkipped { count, ref first } => {
                let what = "morph target weights animation channel(s) skipped (not supported)";
                listed(f, what, count, first)
            }
            Self::MatrixWithZeroAxis => write!(
                f,
                "its matrix has a zero-length axis, so its rotation is unknown; identity used for \
             animation"
            ),
            Self::MatrixNotTrs => write!(
                f,
                "its matrix is not translation · rotation · scale (shear or a projective row); \
             animation uses the nearest decomposition"
            ),
            Self::TextureWithoutImage { texture, index } => write!(
                f,
                "the {texture} texture ({index}) has no image qtangent can read; drawn without it"
            ),
            Self::TextureFileMissing { texture, ref path } => write!(
                f,
                "the {texture} texture's file {path} is missing; drawn without it"
            ),
            Self::TextureTransformOnOtherSet { texture, set } => write!(
                f,
                "the {texture} texture's KHR_texture_transform is not supported on UV set {set} \
             (only set 0 is loaded); drawn untransformed"
            ),
            Self::TextureTransformsDiffer { ref transforms } => write!(
                f,
                "its textures on UV set 0 have different KHR_texture_transforms ({}); none applied",
                transforms.join("; ")
            ),
            Self::PrimitiveSkipped { ref why } => {
                write!(f, "{why} skipped (only triangles are drawn)")
            }
            Self::PrimitivesSkipped { count, ref first } => listed(
                f,
                "primitives skipped (only triangles are drawn)",
                count,
                first,
            ),
            Self::PartialTriangleDropped { indices, dropped } => write!(
                f,
                "{indices} indices do not make whole triangles; the last {dropped} ignored"
            ),
            Self::NormalsRegenerated { count } => write!(
                f,
                "{count} zero-length or non-finite NORMAL value(s) regenerated (angle-weighted \
             from the vertex's triangles)"
            ),
            Self::TangentsIgnored { count } => write!(
                f,
                "{count} non-finite TANGENT value(s) ignored (those vertices get the fallback \
             frame)"
            ),
            Self::MaterialLibraryFromMemory { ref library } => write!(
                f,
                "material library '{library}' not loaded: the OBJ came from memory"
            ),
            Self::MaterialLibraryUnreadable {
                ref library,
                ref error,
            } => library_skipped(f, library, "cannot be read", error),
            Self::MaterialLibraryInvalid {
                ref library,
                ref error,
            } => library_skipped(f, library, "is invalid", error),
            Self::ObjectWithoutFaces => write!(f, "no faces (points or lines only), skipped"),
            Self::PointsAndLinesSkipped { count } => write!(
                f,
                "{count} point and line elements skipped (only faces are loaded)"
            ),
            _ => Ok(()),
        }
    }
}

/// An OBJ material library skipped: `material library 'x.mtl' is invalid (…); materials
/// skipped`.
fn library_skipped(
    f: &mut fmt::Formatter<'_>,
    library: &str,
    how: &str,
    error: &str,
) -> fmt::Result {
    write!(
        f,
        "material library '{library}' {how} ({error}); materials skipped"
    )
}

/// `COUNT WHAT: A, B, C, and N more`: a count and the first few of a list.
fn listed(f: &mut fmt::Formatter<'_>, what: &str, count: usize, first: &[String]) -> fmt::Result {
    write!(f, "{count} {what}: {}", first.join(", "))?;
    match count.saturating_sub(first.len()) {
        0 => Ok(()),
        more => write!(f, ", and {more} more"),
    }
}

/// Hears the progress and warnings of long operations. Implement it to show a progress bar or
/// route warnings to a log; `Vec<Warning>` collects the warnings, `()` ignores everything.
pub trait Listener {
    /// A stage advanced. The default ignores it.
    fn progress(&mut self, progress: Progress<'_>) {
        let _ = progress;
    }

    /// Something was wrong but not fatal.
    fn warning(&mut self, warning: Warning);
}

impl dyn Listener + '_ {
    /// Reports that `stage` reached `done` of `total`.
    pub(crate) fn stage(&mut self, stage: &str, done: u64, total: u64) {
        self.progress(Progress { stage, done, total });
    }
}

impl Listener for Vec<Warning> {
    fn warning(&mut self, warning: Warning) {
        self.push(warning);
    }
}

impl Listener for () {
    fn warning(&mut self, _: Warning) {}
}

#[cfg(test)]
#[path = "../tests/unit/report.rs"]
mod tests;
