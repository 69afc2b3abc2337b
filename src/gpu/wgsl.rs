//! qtangent's GPU stages. The shader files in `shaders/` are embedded at compile time (nothing
//! reads a shader file at run time); in front of each module goes the header generated from the
//! crate's tables ([`crate::wgsl`]) and the codes of the GPU stages' own tables (frame sources,
//! bake flags). No integer code is written by hand in both Rust and WGSL: add a row to a table and
//! the shaders see it.
//!
//! A stage's module is the header, `shaders/qtangent.wgsl` (the shared frame functions) and the
//! stage's own files ([`Stage::files`]). Entry-point and override names the Rust side uses are
//! listed per stage ([`Stage::entry_points`], [`Stage::overrides`]) and checked against the parsed
//! modules by the crate's tests, so a misspelt name fails in `cargo test`, not at pipeline
//! creation.

use std::sync::LazyLock;

use super::bake::BAKE_FLAGS;
pub(crate) use crate::wgsl::fetch_type;
use crate::wgsl::{self, MESH, QMAP, QTANGENT};

const DECODE: &str = include_str!("../../shaders/decode.wgsl");
const BAKE: &str = include_str!("../../shaders/bake.wgsl");
const BAKE_TANGENT: &str = include_str!("../../shaders/bake_tangent.wgsl");
const QMAP_SAMPLE: &str = include_str!("../../shaders/qmap_sample.wgsl");
#[cfg(feature = "render")]
const LIT: &str = include_str!("../../shaders/lit.wgsl");
const SKIN_BATCH: &str = include_str!("../../shaders/skin_batch.wgsl");
const SKIN: &str = include_str!("../../shaders/skin.wgsl");
const SKIN_MATRIX: &str = include_str!("../../shaders/skin_matrix.wgsl");

/// A WGSL module qtangent builds: one per GPU stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Stage {
    /// The generated header and `qtangent.wgsl` alone: what a user's shader starts with.
    Library,
    /// Batch decode (`decode.wgsl`).
    Decode,
    /// The mesh vertex stage (`mesh.wgsl`).
    Mesh,
    /// The object-space bake (`bake.wgsl`).
    Bake,
    /// The tangent-space bake (`bake_tangent.wgsl`, after `bake.wgsl`'s helpers).
    BakeTangent,
    /// The quaternion-map sampling test (`qmap_sample.wgsl`, after `qmap.wgsl`).
    Qmap,
    /// Lighting (`lit.wgsl`, after `mesh.wgsl` and `qmap.wgsl`): the renderer's.
    #[cfg(feature = "render")]
    Lit,
    /// The structure both skinning kernels share (`skin_batch.wgsl`).
    SkinBatch,
    /// Skinning with quaternion bones (`skin.wgsl`).
    Skin,
    /// The matrix-palette skinning baseline (`skin_matrix.wgsl`).
    SkinMatrix,
}

/// What kind of entry point a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))] // read by the tests, which check the names exist
pub(crate) enum EntryKind {
    /// `@vertex`.
    Vertex,
    /// `@fragment`.
    Fragment,
    /// `@compute`.
    Compute,
}

impl Stage {
    /// Every module, in build order.
    #[cfg(feature = "render")]
    pub(crate) const ALL: [Stage; 10] = [
        Stage::Library,
        Stage::Decode,
        Stage::Mesh,
        Stage::Bake,
        Stage::BakeTangent,
        Stage::Qmap,
        Stage::Lit,
        Stage::SkinBatch,
        Stage::Skin,
        Stage::SkinMatrix,
    ];
    /// Every module, in build order (no renderer: no lighting stage).
    #[cfg(not(feature = "render"))]
    #[allow(dead_code)] // the stage tests need the renderer; `Stage::source` reads the order
    pub(crate) const ALL: [Stage; 9] = [
        Stage::Library,
        Stage::Decode,
        Stage::Mesh,
        Stage::Bake,
        Stage::BakeTangent,
        Stage::Qmap,
        Stage::SkinBatch,
        Stage::Skin,
        Stage::SkinMatrix,
    ];

    /// The `shaders/` files after the header, in order, with their contents.
    pub(crate) fn files(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Stage::Library => &[("qtangent.wgsl", QTANGENT)],
            Stage::Decode => &[("qtangent.wgsl", QTANGENT), ("decode.wgsl", DECODE)],
            Stage::Mesh => &[("qtangent.wgsl", QTANGENT), ("mesh.wgsl", MESH)],
            Stage::Bake => &[("qtangent.wgsl", QTANGENT), ("bake.wgsl", BAKE)],
            Stage::BakeTangent => &[
                ("qtangent.wgsl", QTANGENT),
                ("bake.wgsl", BAKE),
                ("bake_tangent.wgsl", BAKE_TANGENT),
            ],
            Stage::Qmap => &[
                ("qtangent.wgsl", QTANGENT),
                ("qmap.wgsl", QMAP),
                ("qmap_sample.wgsl", QMAP_SAMPLE),
            ],
            #[cfg(feature = "render")]
            Stage::Lit => &[
                ("qtangent.wgsl", QTANGENT),
                ("mesh.wgsl", MESH),
                ("qmap.wgsl", QMAP),
                ("lit.wgsl", LIT),
            ],
            Stage::SkinBatch => &[("qtangent.wgsl", QTANGENT), ("skin_batch.wgsl", SKIN_BATCH)],
            Stage::Skin => &[
                ("qtangent.wgsl", QTANGENT),
                ("skin_batch.wgsl", SKIN_BATCH),
                ("skin.wgsl", SKIN),
            ],
            Stage::SkinMatrix => &[
                ("qtangent.wgsl", QTANGENT),
                ("skin_batch.wgsl", SKIN_BATCH),
                ("skin_matrix.wgsl", SKIN_MATRIX),
            ],
        }
    }

    /// A label for wgpu objects and messages: the stage's last file.
    pub(crate) fn label(self) -> &'static str {
        self.files().last().map_or("qtangent.wgsl", |f| f.0)
    }

    /// The entry points the Rust side uses by name.
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests
    pub(crate) fn entry_points(self) -> &'static [(&'static str, EntryKind)] {
        use EntryKind::{Compute, Fragment, Vertex};
        match self {
            Stage::Library | Stage::SkinBatch => &[],
            Stage::Decode => &[("decode", Compute)],
            Stage::Mesh => &[
                ("vs_vec4f", Vertex),
                ("vs_vec2u", Vertex),
                ("vs_u32", Vertex),
                ("fs_frame", Fragment),
            ],
            Stage::Bake => &[
                ("vs_cover", Vertex),
                ("fs_cover", Fragment),
                ("vs_fringe", Vertex),
                ("fs_fringe", Fragment),
            ],
            Stage::BakeTangent => &[("bake_tangent", Compute)],
            Stage::Qmap => &[("qmap_sample", Compute)],
            #[cfg(feature = "render")]
            Stage::Lit => &[
                ("vs_reference", Vertex),
                ("vs_position_uv", Vertex),
                ("vs_position_uv2", Vertex),
                ("vs_vec4f", Vertex),
                ("vs_vec2u", Vertex),
                ("vs_u32", Vertex),
                ("fs_lit", Fragment),
                ("fs_debug_frame", Fragment),
                ("fs_debug_shading", Fragment),
            ],
            Stage::Skin => &[("skin", Compute)],
            Stage::SkinMatrix => &[("skin_matrix", Compute)],
        }
    }

    /// The pipeline-overridable constants the Rust side sets by name.
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests
    pub(crate) fn overrides(self) -> &'static [&'static str] {
        match self {
            Stage::Library | Stage::SkinBatch => &[],
            Stage::Decode => &["QTANGENT_FORMAT"],
            Stage::Mesh => &["QTANGENT_FORMAT", "GRID_WIDTH", "GRID_HEIGHT"],
            Stage::Bake | Stage::BakeTangent => &["MAP_FORMAT"],
            Stage::Qmap => &["MAP_DECODE", "QMAP_ROBUST"],
            #[cfg(feature = "render")]
            Stage::Lit => &[
                "QTANGENT_FORMAT",
                "FRAME_SOURCE",
                "MAP_DECODE",
                "MAP_DERIVED_HANDEDNESS",
                "MAP_AXIAL",
            ],
            Stage::Skin => &["QTANGENT_FORMAT", "SKIN_METHOD", "INFLUENCES"],
            Stage::SkinMatrix => &["INFLUENCES"],
        }
    }

    /// The module's WGSL: the generated header, then [`Stage::files`].
    pub(crate) fn source(self) -> &'static str {
        static SOURCES: LazyLock<Vec<String>> = LazyLock::new(|| {
            let header = header();
            Stage::ALL
                .iter()
                .map(|stage| {
                    let mut s = header.clone();
                    for (_, text) in stage.files() {
                        s.push('\n');
                        s.push_str(text);
                    }
                    s
                })
                .collect()
        });
        &SOURCES[self as usize]
    }

    /// A shader module of this stage.
    pub(crate) fn module(self, device: &wgpu::Device) -> wgpu::ShaderModule {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(self.label()),
            source: wgpu::ShaderSource::Wgsl(self.source().into()),
        })
    }
}

/// The header of qtangent's own stages: the crate's ([`crate::wgsl`]), then the codes of the GPU
/// stages' own tables.
fn header() -> String {
    let mut s = wgsl::header();
    wgsl::codes(
        &mut s,
        "Where a pixel's frame comes from (src/gpu/render/pipeline.rs).",
        PixelFrame::ALL.map(|p| (wgsl::ident("FRAME_SOURCE", p.name()), p.code())),
    );
    wgsl::codes(
        &mut s,
        "Bake texel flags (src/gpu/bake.rs).",
        BAKE_FLAGS.map(|(n, v)| (n.to_string(), v)),
    );
    s
}

// Every shader file in a stage: the lighting stage is the renderer's.
#[cfg(all(test, feature = "render"))]
#[path = "../../tests/unit/gpu/wgsl.rs"]
mod tests;

/// Where the lighting shader takes a pixel's frame from: the `FRAME_SOURCE` override of
/// `shaders/lit.wgsl` (the WGSL codes are generated from this enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub(crate) enum PixelFrame {
    /// The interpolated vertex frame and the normal map (`FrameSource::Reference` and
    /// `FrameSource::QTangent`).
    Vertex,
    /// An object-space quaternion map.
    ObjectMap,
    /// The vertex frame turned by a tangent-space quaternion map.
    TangentMap,
}

crate::names::named!(PixelFrame, "pixel frame", {
    Vertex => "vertex",
    ObjectMap => "object_map",
    TangentMap => "tangent_map",
});

impl PixelFrame {
    /// The WGSL code: the position in [`PixelFrame::ALL`].
    pub(crate) const fn code(self) -> u32 {
        self as u32
    }
}
