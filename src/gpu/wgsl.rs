//! WGSL sources. The shader files in `shaders/` are embedded at compile time (nothing reads a
//! shader file at run time); in front of each module goes a header **generated from the crate's
//! tables**: the vertex-format, map-format, map-decode, frame-source, skinning-method and bake-flag
//! codes, the smallest-three constants, and the per-format decode dispatch. No integer code is
//! written by hand in both Rust and WGSL: add a row to a table and the shaders see it.
//!
//! A stage's module is the header, `shaders/qtangent.wgsl` (the shared frame functions) and the
//! stage's own files ([`Stage::files`]). Entry-point and override names the Rust side uses are
//! listed per stage ([`Stage::entry_points`], [`Stage::overrides`]) and checked against the parsed
//! modules by the crate's tests, so a misspelt name fails in `cargo test`, not at pipeline
//! creation.

use std::fmt::Write as _;
use std::sync::LazyLock;

use super::bake::BAKE_FLAGS;
use crate::format::{Fetch, S3X4_LEVELS, S3X6_LEVELS};
use crate::gpu::render::pipeline::PixelFrame;
use crate::qmap::{MapDecode, MapFormat};
use crate::skin::SkinMethod;
use crate::Format;

const QTANGENT: &str = include_str!("../../shaders/qtangent.wgsl");
const DECODE: &str = include_str!("../../shaders/decode.wgsl");
const MESH: &str = include_str!("../../shaders/mesh.wgsl");
const BAKE: &str = include_str!("../../shaders/bake.wgsl");
const BAKE_TANGENT: &str = include_str!("../../shaders/bake_tangent.wgsl");
const QMAP: &str = include_str!("../../shaders/qmap.wgsl");
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
    /// Quaternion-map sampling (`qmap.wgsl`).
    Qmap,
    /// Lighting (`lit.wgsl`, after `mesh.wgsl` and `qmap.wgsl`).
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
            Stage::Qmap => &[("qtangent.wgsl", QTANGENT), ("qmap.wgsl", QMAP)],
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

/// WGSL a user's own shader can start with (see the README: "Decode them in your own WGSL").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wgsl {
    /// Frame decoding: the format codes, `tangent_frame`, `frame_from_quat`, `quat_to_mat3`, one
    /// frame function per format (`frame_f16x3`, `frame_smallest3x6`, `frame_smallest3x4`; the
    /// others arrive as `vec4<f32>` for `tangent_frame`), and `qtangent_frame_vec4f`,
    /// `qtangent_frame_vec2u`, `qtangent_frame_u32` taking a format code.
    Library,
    /// The library and the shipped vertex stage (`shaders/mesh.wgsl`: `vs_vec4f`, `vs_vec2u`,
    /// `vs_u32` with the `QTANGENT_FORMAT` override; see `super::vertex_entry_point`).
    Mesh,
    /// The library and quaternion-map sampling (`shaders/qmap.wgsl`: `qmap_frame`, `qmap_quat`,
    /// `qmap_apply_tangent`, `qmap_halve_twist`, the `MAP_DECODE` override and its codes).
    Qmap,
}

impl Wgsl {
    /// The WGSL text.
    #[must_use]
    pub fn source(self) -> &'static str {
        match self {
            Wgsl::Library => Stage::Library.source(),
            Wgsl::Mesh => Stage::Mesh.source(),
            Wgsl::Qmap => Stage::Qmap.source(),
        }
    }
}

/// A WGSL identifier from a table name: upper case, anything but letters and digits `_`.
fn ident(prefix: &str, name: &str) -> String {
    let body: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("{prefix}_{body}")
}

/// The WGSL type a fetch arrives as, and the suffix of its dispatch function and entry point.
pub(crate) fn fetch_type(fetch: Fetch) -> (&'static str, &'static str) {
    match fetch {
        Fetch::Float32x4 | Fetch::Float16x4 | Fetch::Snorm16x4 => ("vec4<f32>", "vec4f"),
        Fetch::Uint32x2 => ("vec2<u32>", "vec2u"),
        Fetch::Uint32 => ("u32", "u32"),
    }
}

/// The WGSL expression turning a record's raw little-endian words `w` (a `vec4<u32>`) into what
/// the vertex fetch of `fetch` would give.
fn from_words(fetch: Fetch) -> &'static str {
    match fetch {
        Fetch::Float32x4 => "unpack_f32x4(w.x, w.y, w.z, w.w)",
        Fetch::Float16x4 => "unpack_f16x4(w.x, w.y)",
        Fetch::Snorm16x4 => "unpack_snorm16x4(w.x, w.y)",
        Fetch::Uint32x2 => "w.xy",
        Fetch::Uint32 => "w.x",
    }
}

/// `const NAME: u32 = Nu;` lines.
fn codes(out: &mut String, what: &str, items: impl IntoIterator<Item = (String, u32)>) {
    let _ = writeln!(out, "// {what}");
    for (name, code) in items {
        let _ = writeln!(out, "const {name}: u32 = {code}u;");
    }
}

/// `QMAP_OBJECT_LOD_BIAS`: minus [`crate::qmap::OBJECT_LOD_SHIFT`] levels.
fn object_lod_bias() -> f32 {
    -(crate::qmap::OBJECT_LOD_SHIFT as f32)
}

/// The generated header (see the module docs).
fn header() -> String {
    let mut s = String::from(
        "// Generated by qtangent from its tables (src/gpu/wgsl.rs); not a file: do not look for \
         it in shaders/.\n",
    );
    codes(
        &mut s,
        "Vertex formats (src/format/mod.rs).",
        Format::ALL.map(|f| (ident("FORMAT", f.name()), f.code())),
    );
    codes(
        &mut s,
        "Quaternion-map formats a bake writes (src/qmap/format.rs).",
        MapFormat::UNCOMPRESSED.map(|f| (ident("MAP_FORMAT", f.name()), f.code())),
    );
    codes(
        &mut s,
        "How a map sample is decoded (src/qmap/format.rs).",
        MapDecode::ALL.map(|d| (ident("MAP_DECODE", d.name()), d.code())),
    );
    codes(
        &mut s,
        "Where a pixel's frame comes from (src/gpu/render/pipeline.rs).",
        PixelFrame::ALL.map(|p| (ident("FRAME_SOURCE", p.name()), p.code())),
    );
    codes(
        &mut s,
        "Skinning methods (src/skin/mod.rs).",
        SkinMethod::ALL.map(|m| (ident("SKIN_METHOD", m.name()), m.code())),
    );
    codes(
        &mut s,
        "Bake texel flags (src/gpu/bake.rs).",
        BAKE_FLAGS.map(|(n, v)| (n.to_string(), v)),
    );
    let step = crate::format::smallest3_step;
    let _ = writeln!(
        s,
        "// Smallest-three steps, sqrt(2) / (levels - 1) as f32 (src/format/smallest3.rs).\n\
         const S3_STEP_15: f32 = {:?}f;\nconst S3_STEP_812: f32 = {:?}f;\n\
         const S3_LEVELS_4B: u32 = {S3X4_LEVELS}u;\nconst S3_HALF_RANGE: f32 = {:?}f;\n\
         // The snorm16 w bias, one step (src/format/sign_w.rs).\nconst SNORM16_W_BIAS: f32 = {:?}f;\n\
         // Levels an object-space map is sampled away from its footprint (src/qmap/mod.rs).\n\
         const QMAP_OBJECT_LOD_BIAS: f32 = {:?}f;",
        step(S3X6_LEVELS),
        step(S3X4_LEVELS),
        std::f32::consts::FRAC_1_SQRT_2,
        crate::format::SNORM16_W_BIAS,
        object_lod_bias(),
    );
    dispatch(&mut s);
    s
}

/// The per-format dispatch, from the format table: a `QTangent` (rotation and handedness) and a
/// `Frame` from a fetched attribute (one pair of functions per WGSL fetch type) and from a
/// record's raw words, and each format's record size. Another format than the function's fetch
/// type takes gives a zero rotation: a NaN frame.
fn dispatch(s: &mut String) {
    for (ty, suffix) in [
        ("vec4<f32>", "vec4f"),
        ("vec2<u32>", "vec2u"),
        ("u32", "u32"),
    ] {
        let cases = Format::ALL.iter().filter_map(|f| {
            let info = f.info();
            (fetch_type(info.fetch).1 == suffix).then(|| (*f, format!("{}(q)", info.wgsl_qtangent)))
        });
        switch_fn(
            s,
            &format!("qtangent_qtangent_{suffix}"),
            &format!("q: {ty}"),
            cases,
        );
        let _ = writeln!(
            s,
            "fn qtangent_frame_{suffix}(format: u32, q: {ty}) -> Frame {{\n    \
             return frame_of(qtangent_qtangent_{suffix}(format, q));\n}}"
        );
    }
    let cases = Format::ALL.iter().map(|f| {
        let fetch = f.info().fetch;
        let call = format!(
            "qtangent_qtangent_{}(format, {})",
            fetch_type(fetch).1,
            from_words(fetch)
        );
        (*f, call)
    });
    switch_fn(s, "qtangent_record_qtangent", "w: vec4<u32>", cases);
    s.push_str(
        "fn qtangent_record_frame(format: u32, w: vec4<u32>) -> Frame {\n    \
         return frame_of(qtangent_record_qtangent(format, w));\n}\n\
         // Bytes of one record of each format.\n\
         fn qtangent_format_bytes(format: u32) -> u32 {\n    switch format {\n",
    );
    for f in Format::ALL {
        let _ = writeln!(
            s,
            "        case {}: {{ return {}u; }}",
            ident("FORMAT", f.name()),
            f.bytes()
        );
    }
    s.push_str("        default: { return 4u; }\n    }\n}\n");
}

/// `fn NAME(format: u32, ARG) -> QTangent` switching on the format code over `cases`
/// (format, expression), a zero rotation by default.
fn switch_fn(s: &mut String, name: &str, arg: &str, cases: impl Iterator<Item = (Format, String)>) {
    let _ = writeln!(
        s,
        "fn {name}(format: u32, {arg}) -> QTangent {{\n    switch format {{"
    );
    for (f, expr) in cases {
        let _ = writeln!(
            s,
            "        case {}: {{ return {expr}; }}",
            ident("FORMAT", f.name())
        );
    }
    s.push_str("        default: { return QTangent(vec4<f32>(0.0), 1.0); }\n    }\n}\n");
}

#[cfg(test)]
#[path = "../../tests/unit/gpu/wgsl.rs"]
mod tests;
