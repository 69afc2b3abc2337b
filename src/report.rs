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
    pub fn new(place: impl Into<String>, kind: WarningKind) -> Self {
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

    // ---- Animation ----

    // ---- Quaternion maps (bake jobs, storing) ----
    /// More than a small share of an object-space map's UV texels overlap, so the map was
    /// baked in a UV layout of its own (drawn with a second UV set).
    MapRepacked {
        /// The share of texels that overlap, percent.
        overlap_percent: u32,
    },
    /// BC5 holds two numbers a texel: asked of an object-space map, or of a tangent-space map
    /// with a tilt and a twist, the map is stored as BC7.
    Bc5CannotHold {
        /// An object-space map (else a tilt with a twist).
        object_space: bool,
    },
    /// A block format was asked of a map whose sides are not multiples of 4; stored as
    /// rgba16f.
    NotBlockSized {
        /// The format asked for.
        format: crate::qmap::MapFormat,
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
    /// The device does not sample BC textures (`TEXTURE_COMPRESSION_BC`): block-compressed maps
    /// are decoded to rgba16f when uploaded.
    BcDecodedAtUpload {
        /// The map's format.
        format: crate::qmap::MapFormat,
    },
    // ---- Skinning ----

    // ---- Packing glTF ----
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            // ---- Loading meshes (glTF, OBJ) ----

            // ---- Animation ----

            // ---- Quaternion maps (bake jobs, storing) ----
            Self::MapRepacked { overlap_percent } => write!(
                f,
                "{overlap_percent}% of its UV texels overlap; its object-space map has a UV layout \
                 of its own"
            ),
            Self::Bc5CannotHold { object_space } => write!(
                f,
                "bc5 holds two numbers a texel, not {}; stored as bc7",
                if object_space {
                    "an object-space map"
                } else {
                    "a tilt and a twist (x, y, z ≠ 0)"
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
            Self::MapNotInFolder {
                ref file,
                ref folder,
            } => write!(f, "no map {file} in {}; baked instead", folder.display()),

            // ---- Rendering ----
            Self::BcDecodedAtUpload { format } => write!(
                f,
                "does not sample BC textures (TEXTURE_COMPRESSION_BC); {format} maps are decoded \
                 to rgba16f at upload"
            ),
            // ---- Skinning ----

            // ---- Packing glTF ----
        }
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
