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

/// How far a long operation is: `done` of `total` units of `stage` (`raster`, `pad`, `mips`, …)
/// of `task` (what the work is for: a map, a mesh).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress<'a> {
    /// What the work is for (a map's name, a scene's).
    pub task: &'a str,
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

    // ---- Rendering ----

    // ---- Skinning ----

    // ---- Packing glTF ----
}

impl fmt::Display for WarningKind {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            // ---- Loading meshes (glTF, OBJ) ----

            // ---- Animation ----

            // ---- Quaternion maps (bake jobs, storing) ----

            // ---- Rendering ----

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

impl Listener for Vec<Warning> {
    fn warning(&mut self, warning: Warning) {
        self.push(warning);
    }
}

impl Listener for () {
    fn warning(&mut self, _: Warning) {}
}
