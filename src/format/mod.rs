//! The vertex formats of a tangent frame: one table row each, and everything else derived from it.
//!
//! Every format stores a [`QTangent`] (a rotation and a reflection flag). A row of
//! [`Format::info`]'s table holds all that is known about a format: its one canonical name (the
//! command line, the glTF extension, the KTX2 and JSON files and every table use it; aliases are
//! accepted only when parsing), its size, its error bound, how the GPU fetches it, the WGSL
//! function that turns the fetched attribute into a frame, its glTF accessor layout, and its
//! encode/decode pair. The WGSL format codes and per-format dispatch are generated from the same
//! rows (`qtangent::gpu`), so no integer is written twice.
//!
//! Error bounds are the largest angle, in degrees, between a decoded normal, tangent or
//! bitangent and the (orthonormalised) source vector; they are derived in each encoder's docs,
//! measured on 1,000,000 random frames plus the axis-aligned mirrored frames and two stress sets
//! by the lab's `encodings` program (`lab/src/bin/encodings.rs`), and asserted by the tests.
//! Decoders return the quaternion as the GPU sees it (possibly not unit); [`QTangent::to_frame`]
//! normalises it, as `tangent_frame` in `shaders/qtangent.wgsl` does.
//!
//! Adding a format touches three files: its encode/decode pair (a file in this folder), its
//! WGSL frame function (`shaders/qtangent.wgsl`) and its row here (the enum variant and
//! [`Format::info`]'s match arm).
//!
//! Quantising encoders (all but `F32x4` and `F16x3`) try rounding every stored component both
//! down and up and keep the combination whose decoded quaternion is closest to the input
//! rotation ([`search`]): the decoded rotation error bounds the error of every decoded vector.

mod f16x3;
mod search;
pub(crate) mod sign_w;
mod smallest3;

use crate::frame::QTangent;

// The lab's skinning reference packs snorm16 frames by rounding to nearest, as the kernel does
// (through `sign_w::signed_w`); the WGSL header carries the smallest-three constants and the
// snorm16 w bias.
#[cfg(feature = "pipeline")]
pub(crate) use sign_w::decode_snorm16x4;
#[cfg(feature = "pipeline")]
pub(crate) use sign_w::SNORM16_W_BIAS;
#[cfg(feature = "pipeline")]
pub(crate) use smallest3::{smallest3_step, S3X4_LEVELS, S3X6_LEVELS};

/// A tangent-frame vertex format. Bounds are the largest angle between a decoded n, t or b and the
/// source's, derived in each encoder's docs and measured on a million frames:
///
/// | format | bytes | max error | handedness |
/// |---|---|---|---|
/// | [`Format::F32x4`] | 16 | 0.01° | sign of w |
/// | [`Format::F16x4`] | 8 | 0.05° | sign of w |
/// | [`Format::Snorm16x4`] | 8 | 0.004° | sign of w |
/// | [`Format::F16x3`] | 6 | 3.34° ("Quaternion Tricks", trick #3, as written) | bit 14 of x |
/// | [`Format::Smallest3x6`] | 6 | 0.007° | own bit |
/// | [`Format::Smallest3x4`] | 4 | 0.25° | own bit |
///
///
/// Every property of a format comes from its row of one table; the WGSL format codes and
/// per-format dispatch are generated from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Format {
    /// Four f32 (16 B), reflection in the sign of w (w ≥ 2⁻⁶⁴): a reference. Bound 0.01°.
    F32x4,
    /// Four f16 (8 B), reflection in the sign of w (w ≥ 2⁻¹⁴, the smallest normal f16). Bound
    /// 0.05°.
    F16x4,
    /// Four snorm16 (8 B), the Crytek/Filament QTangent, reflection in the sign of w (w ≥ one
    /// step, so it never quantises to 0). Bound 0.004°.
    Snorm16x4,
    /// Three f16 with w rebuilt (6 B): the format of "Quaternion Tricks" (trick #3), kept to show
    /// why w near 0 cannot be rebuilt. Bound 3.34°.
    F16x3,
    /// Smallest three, 15:15:15 + 2-bit index + handedness bit (6 B). Bound 0.007°.
    Smallest3x6,
    /// Smallest three, 3 × 812 levels in 29 bits + 2-bit index + handedness bit (4 B). Bound
    /// 0.25°.
    Smallest3x4,
}

// The table's GPU and glTF columns are read by the `gpu` and `gltf` layers only.
/// How the GPU fetches a format from a vertex buffer (`qtangent::gpu` maps it to a wgpu vertex
/// format and a WGSL type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
pub(crate) enum Fetch {
    /// Four f32: `vec4<f32>`.
    Float32x4,
    /// Four f16, unpacked by the fixed-function fetch: `vec4<f32>`.
    Float16x4,
    /// Four snorm16, unpacked by the fixed-function fetch: `vec4<f32>`.
    Snorm16x4,
    /// Two u32 words (6 bytes and 2 of padding in a vertex): `vec2<u32>`.
    Uint32x2,
    /// One u32 word: `u32`.
    Uint32,
}

/// glTF accessor `componentType` FLOAT (glTF 2.0 §3.6.2.2).
pub(crate) const GLTF_FLOAT: u32 = 5126;
/// glTF accessor `componentType` SHORT.
pub(crate) const GLTF_SHORT: u32 = 5122;

/// How a format's bytes sit in a glTF accessor. glTF has no half floats and no signed 32-bit
/// integers, and application-specific attributes may not use unsigned component types, so every
/// format but `f32x4` is stored as `SHORT` components: its exact bytes (the encoder's
/// little-endian output), read back as bit patterns. `snorm16x4` alone is also a meaningful
/// normalised accessor (the quaternion itself); `smallest3x6` is marked normalised only so that
/// no two formats share a layout (the loader names the format from the layout when a tool has
/// dropped the primitive's `QTANGENT_frames`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "gltf"), allow(dead_code))]
pub(crate) struct GltfLayout {
    /// The accessor's `componentType`.
    pub(crate) component_type: u32,
    /// Components per element: the accessor's `type` is `VEC2`, `VEC3` or `VEC4`.
    pub(crate) components: usize,
    /// The accessor's `normalized`.
    pub(crate) normalized: bool,
}

/// One row of the format table: everything the crate knows about a format.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Info {
    /// The canonical name.
    pub(crate) name: &'static str,
    /// Other spellings accepted when parsing (earlier names included).
    pub(crate) aliases: &'static [&'static str],
    /// Bytes per frame.
    pub(crate) bytes: usize,
    /// The bound on the decoded error of n, t and b, degrees.
    pub(crate) max_error_deg: f64,
    /// How the GPU fetches it.
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fetch: Fetch,
    /// The WGSL function (in `shaders/qtangent.wgsl`) taking the fetched attribute to a
    /// `QTangent` (rotation and handedness).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) wgsl_qtangent: &'static str,
    /// Its `_QTANGENT` accessor.
    #[cfg_attr(not(feature = "gltf"), allow(dead_code))]
    pub(crate) gltf: GltfLayout,
    /// Appends exactly `bytes` little-endian bytes.
    pub(crate) encode: fn(&QTangent, &mut Vec<u8>),
    /// Decodes exactly `bytes` bytes.
    pub(crate) decode: fn(&[u8]) -> QTangent,
}

const fn gltf(component_type: u32, components: usize, normalized: bool) -> GltfLayout {
    GltfLayout {
        component_type,
        components,
        normalized,
    }
}

impl Format {
    /// Every format, in table order (the order of the WGSL codes).
    pub const ALL: [Format; 6] = [
        Format::F32x4,
        Format::F16x4,
        Format::Snorm16x4,
        Format::F16x3,
        Format::Smallest3x6,
        Format::Smallest3x4,
    ];

    /// The format's row of the table.
    #[must_use]
    pub(crate) const fn info(self) -> Info {
        match self {
            Format::F32x4 => Info {
                name: "f32x4",
                aliases: &[],
                bytes: 16,
                max_error_deg: 0.01,
                fetch: Fetch::Float32x4,
                wgsl_qtangent: "qtangent_sign_w",
                gltf: gltf(GLTF_FLOAT, 4, false),
                encode: sign_w::write_f32x4,
                decode: sign_w::read_f32x4,
            },
            Format::F16x4 => Info {
                name: "f16x4",
                aliases: &[],
                bytes: 8,
                max_error_deg: 0.05,
                fetch: Fetch::Float16x4,
                wgsl_qtangent: "qtangent_sign_w",
                gltf: gltf(GLTF_SHORT, 4, false),
                encode: sign_w::write_f16x4,
                decode: sign_w::read_f16x4,
            },
            Format::Snorm16x4 => Info {
                name: "snorm16x4",
                aliases: &[],
                bytes: 8,
                max_error_deg: 0.004,
                fetch: Fetch::Snorm16x4,
                wgsl_qtangent: "qtangent_sign_w",
                gltf: gltf(GLTF_SHORT, 4, true),
                encode: sign_w::write_snorm16x4,
                decode: sign_w::read_snorm16x4,
            },
            Format::F16x3 => Info {
                name: "f16x3",
                aliases: &["f16x3-seed"],
                bytes: 6,
                max_error_deg: 3.34,
                fetch: Fetch::Uint32x2,
                wgsl_qtangent: "qtangent_f16x3",
                gltf: gltf(GLTF_SHORT, 3, false),
                encode: f16x3::write,
                decode: f16x3::read,
            },
            Format::Smallest3x6 => Info {
                name: "smallest3x6",
                aliases: &["smallest3-6B"],
                bytes: 6,
                max_error_deg: 0.007,
                fetch: Fetch::Uint32x2,
                wgsl_qtangent: "qtangent_smallest3x6",
                // `normalized` only to tell it from f16x3's SHORT VEC3: no two formats share a
                // layout, so a file whose QTANGENT_frames a tool dropped still says its format.
                gltf: gltf(GLTF_SHORT, 3, true),
                encode: smallest3::write_6,
                decode: smallest3::read_6,
            },
            Format::Smallest3x4 => Info {
                name: "smallest3x4",
                aliases: &["smallest3-4B"],
                bytes: 4,
                max_error_deg: 0.25,
                fetch: Fetch::Uint32,
                wgsl_qtangent: "qtangent_smallest3x4",
                gltf: gltf(GLTF_SHORT, 2, false),
                encode: smallest3::write_4,
                decode: smallest3::read_4,
            },
        }
    }

    /// The WGSL code of the format, which the generated header names `FORMAT_<NAME>`
    /// ([`crate::Wgsl`]) and the decode dispatch (`qtangent_frame_u32(format, q)`, …) takes: its
    /// position in [`Format::ALL`].
    #[must_use]
    #[cfg_attr(not(feature = "pipeline"), allow(dead_code))]
    pub(crate) const fn code(self) -> u32 {
        self as u32
    }

    /// The format whose `_QTANGENT` accessor has this layout (glTF `componentType`, components per
    /// element, `normalized`): how a reader names the format when a tool has dropped the
    /// primitive's `QTANGENT_frames` (docs/GLTF.md, "Decoding `_QTANGENT`"). No two formats share a
    /// layout.
    #[must_use]
    pub fn from_gltf_layout(
        component_type: u32,
        components: usize,
        normalized: bool,
    ) -> Option<Self> {
        let layout = GltfLayout {
            component_type,
            components,
            normalized,
        };
        Self::ALL.into_iter().find(|f| f.info().gltf == layout)
    }

    /// Bytes per frame.
    #[must_use]
    pub const fn bytes(self) -> usize {
        self.info().bytes
    }

    /// The canonical name (`f32x4`, `f16x4`, `snorm16x4`, `f16x3`, `smallest3x6`,
    /// `smallest3x4`): what the tools take and the files and tables say.
    #[must_use]
    pub const fn name(self) -> &'static str {
        self.info().name
    }

    /// The documented maximum angular error (degrees) of a decoded normal, tangent or bitangent
    /// (each derived in the encoder's docs and checked on a million frames by the tests).
    #[must_use]
    pub const fn max_error_deg(self) -> f64 {
        self.info().max_error_deg
    }

    /// Encodes one frame into `out` (exactly [`Format::bytes`] bytes appended, little-endian).
    pub fn encode_into(self, q: &QTangent, out: &mut Vec<u8>) {
        (self.info().encode)(q, out);
    }

    /// Decodes one frame from exactly [`Format::bytes`] bytes.
    ///
    /// # Panics
    /// If `bytes.len() != self.bytes()` (a caller bug, not a data error).
    #[must_use]
    pub fn decode(self, bytes: &[u8]) -> QTangent {
        assert_eq!(
            bytes.len(),
            self.bytes(),
            "{} frame must be {} bytes",
            self.name(),
            self.bytes()
        );
        (self.info().decode)(bytes)
    }

    /// Packs frames tightly (stride [`Format::bytes`]) into little-endian `u32` words, the last
    /// one zero-padded: the layout the GPU batch decoder reads.
    #[must_use]
    pub fn pack(self, frames: &[QTangent]) -> Vec<u32> {
        let mut bytes = Vec::with_capacity(frames.len() * self.bytes() + 3);
        for q in frames {
            self.encode_into(q, &mut bytes);
        }
        bytes.resize(bytes.len().div_ceil(4) * 4, 0);
        bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    }

    /// Decodes frame `index` of a stream made by [`Format::pack`].
    ///
    /// # Panics
    /// If the stream is too short for `index` (a caller bug).
    #[must_use]
    pub fn unpack(self, words: &[u32], index: usize) -> QTangent {
        let bytes: &[u8] = bytemuck::cast_slice(words);
        let start = index * self.bytes();
        self.decode(&bytes[start..start + self.bytes()])
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses a canonical [`Format::name`], or an alias (the names of earlier releases:
/// `smallest3-4B`, `smallest3-6B`, `f16x3-seed`), ASCII case-insensitive.
impl std::str::FromStr for Format {
    type Err = crate::names::ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|f| {
                let info = f.info();
                info.name.eq_ignore_ascii_case(s)
                    || info.aliases.iter().any(|a| a.eq_ignore_ascii_case(s))
            })
            .ok_or_else(|| {
                crate::names::ParseNameError::new("format", s, Self::ALL.map(Self::name).to_vec())
            })
    }
}

// The tools' and tests' frames: in the unit tests' shared helpers with the default features,
// included here in the core build.
#[cfg(all(test, not(all(feature = "default", feature = "render"))))]
#[path = "../../examples/common/table_frames.rs"]
#[allow(unreachable_pub)]
mod table_frames;
#[cfg(all(test, feature = "default", feature = "render"))]
use crate::common::table_frames;

/// Unit tests that run in the core build (`--no-default-features`): every format round-trips
/// the 48 axis-aligned frames (24 rotations × both handednesses) within its documented bound
/// and keeps the handedness; names and aliases parse back.
#[cfg(test)]
mod tests {
    use super::table_frames;
    use super::Format;
    use crate::measure::angle_deg;
    use table_frames::axis_aligned_frames;

    #[test]
    fn every_format_round_trips_axis_aligned_frames_within_its_bound() {
        let frames = axis_aligned_frames();
        assert_eq!(frames.len(), 48);
        for format in Format::ALL {
            for (i, f) in frames.iter().enumerate() {
                let mut bytes = Vec::new();
                format.encode_into(&f.to_qtangent(), &mut bytes);
                assert_eq!(bytes.len(), format.bytes(), "{format}: frame {i}: bytes");
                let back = format.decode(&bytes).to_frame();
                assert_eq!(back.handedness(), f.handedness(), "{format}: frame {i}");
                for (a, b) in [
                    (f.normal, back.normal),
                    (f.tangent, back.tangent),
                    (f.bitangent, back.bitangent),
                ] {
                    let e = angle_deg(a, b);
                    assert!(
                        e <= format.max_error_deg(),
                        "{format}: frame {i}: {e}° > {}°",
                        format.max_error_deg()
                    );
                }
            }
        }
    }

    #[test]
    fn names_and_aliases_parse_back_and_unknown_names_list_the_valid_ones() {
        for format in Format::ALL {
            assert_eq!(format.name().parse::<Format>(), Ok(format));
            for alias in format.info().aliases {
                assert_eq!(alias.parse::<Format>(), Ok(format), "{alias}");
            }
            assert_eq!(
                format.code() as usize,
                Format::ALL.iter().position(|&f| f == format).unwrap_or(99)
            );
        }
        let e = "f15x4".parse::<Format>().unwrap_err().to_string();
        assert!(e.starts_with("unknown format 'f15x4' (valid: "), "{e}");
        assert!(e.contains("snorm16x4"), "{e}");
    }
}
