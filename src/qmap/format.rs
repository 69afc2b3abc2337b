//! The formats a quaternion map is stored in: one table row each ([`MapFormat::info`]), and
//! the space ([`MapSpace`]) and shader decode ([`MapDecode`]) a stored map names.
//!
//! | format   | bytes/texel | object space                  | tangent space                        |
//! |----------|-------------|-------------------------------|--------------------------------------|
//! | rgba16f  | 8           | q                             | r                                    |
//! | snorm16  | 8           | q                             | r                                    |
//! | snorm8   | 4           | q                             | r                                    |
//! | rgba32f  | 16          | q                             | r                                    |
//! | bc5      | 1           | —                             | (x, y) snorm, w rebuilt; or (z, w)   |
//! | bc5x2    | 2           | swing (x, y), twist (z, w)    | normal (x, y), twist (z, w)          |
//! | bc7      | 1           | q·½+½ (RGBA), background free | r·½+½ (RGBA)                         |
//!
//! The uncompressed formats hold the texel as it is baked. The block formats are baked in
//! rgba32f ([`MapFormat::raster`]) and encoded afterwards. The WGSL codes (the bake's `FORMAT`,
//! the samplers' `MAP_DECODE`) are generated from these enums (`qtangent::gpu`).

use glam::Vec4;

use crate::ktx2::TexelFormat;
use crate::names::{named, ParseNameError};

/// How a quaternion map's texels are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum MapFormat {
    /// Four half floats, 8 B/texel: filterable on every adapter.
    Rgba16Float,
    /// Four 16-bit signed normalised values, 8 B/texel: 16× finer than f16 near ±1, but
    /// filtering it needs wgpu's `TEXTURE_FORMAT_16BIT_NORM`.
    Rgba16Snorm,
    /// Four 8-bit signed normalised values, 4 B/texel: half the memory, about 1° of error.
    Rgba8Snorm,
    /// Four f32, 16 B/texel: a reference; filtering it needs `FLOAT32_FILTERABLE`.
    Rgba32Float,
    /// BC5 SNORM of two components, 1 B/texel: (x, y) of a tangent-space rotation with w rebuilt,
    /// or (z, w) of a twist alone. The default of tangent-space maps.
    Bc5,
    /// BC7 UNORM of the quaternion as `q·½ + ½`, 1 B/texel. The default of object-space maps.
    Bc7,
    /// Two BC5 SNORM layers, 2 B/texel: the rotation as swing ⊗ twist, layer 0 the normal's
    /// (x, y) in tangent space (z rebuilt: a BC5 normal map) or the swing's (x, y) in object
    /// space (w rebuilt), and layer 1 the twist's (z, w) about the normal (as a direction map
    /// holds it); each with BC5's own
    /// endpoints (BC7's four channels share theirs). The default of tangent-space maps with a
    /// tilt and a twist (a normal map and an anisotropy direction): the bytes an engine spends
    /// on a BC5 normal map plus a BC5 direction map. A KTX2 array texture of two layers; on the
    /// GPU two textures. Object-space maps too, with the handedness derived (the second layer
    /// takes the plane's texture).
    Bc5Pair,
}

/// One row of the map-format table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MapInfo {
    /// The canonical name (`qtangent bake --map-format`, the KTX2 `qtangent.format` entry, tables).
    pub(crate) name: &'static str,
    /// The KTX2 texel format.
    pub(crate) ktx2: TexelFormat,
    /// How a shader turns a filtered sample into a quaternion (a BC5 map of a twist alone is
    /// [`MapDecode::Bc5Zw`] instead).
    #[cfg_attr(not(feature = "pipeline"), allow(dead_code))]
    pub(crate) decode: MapDecode,
    /// Half a quantisation step of one stored component of a unit quaternion; `None` for the
    /// block formats, whose error is measured, not bounded.
    pub(crate) half_step: Option<f32>,
}

impl MapFormat {
    /// Every format, in the order the tools list them (the bake's WGSL `FORMAT` codes are the
    /// positions of the uncompressed ones).
    pub const ALL: [MapFormat; 7] = [
        MapFormat::Rgba16Float,
        MapFormat::Rgba16Snorm,
        MapFormat::Rgba8Snorm,
        MapFormat::Rgba32Float,
        MapFormat::Bc5,
        MapFormat::Bc7,
        MapFormat::Bc5Pair,
    ];

    /// The uncompressed formats: what a bake writes texels in ([`MapFormat::raster`]).
    #[cfg(feature = "pipeline")]
    pub(crate) const UNCOMPRESSED: [MapFormat; 4] = [
        MapFormat::Rgba16Float,
        MapFormat::Rgba16Snorm,
        MapFormat::Rgba8Snorm,
        MapFormat::Rgba32Float,
    ];

    /// The format's row of the table. The half steps: f16 half an ulp in [½, 1), 2⁻¹²; f32
    /// 2⁻²⁵; snorm: the packing computes `floor(0.5 + v·m)` in f32 (as WGSL does), whose two
    /// roundings near m add up to 2⁻⁸ of a step for m = 32767 (ulp 2⁻⁹ at 2¹⁵) and 2⁻¹⁶ for
    /// m = 127: (½ + 2⁻⁸)/32767 and (½ + 2⁻¹⁶)/127.
    #[must_use]
    pub(crate) fn info(self) -> MapInfo {
        let row = |name, ktx2, decode, half_step| MapInfo {
            name,
            ktx2,
            decode,
            half_step,
        };
        match self {
            MapFormat::Rgba16Float => row(
                "rgba16f",
                TexelFormat::Rgba16Float,
                MapDecode::Direct,
                Some(2f32.powi(-12)),
            ),
            MapFormat::Rgba16Snorm => row(
                "snorm16",
                TexelFormat::Rgba16Snorm,
                MapDecode::Direct,
                Some((0.5 + 2f32.powi(-8)) / 32767.0),
            ),
            MapFormat::Rgba8Snorm => row(
                "snorm8",
                TexelFormat::Rgba8Snorm,
                MapDecode::Direct,
                Some((0.5 + 2f32.powi(-16)) / 127.0),
            ),
            MapFormat::Rgba32Float => row(
                "rgba32f",
                TexelFormat::Rgba32Float,
                MapDecode::Direct,
                Some(2f32.powi(-25)),
            ),
            MapFormat::Bc5 => row("bc5", TexelFormat::Bc5Snorm, MapDecode::Bc5Xy, None),
            MapFormat::Bc7 => row("bc7", TexelFormat::Bc7Unorm, MapDecode::Unorm, None),
            MapFormat::Bc5Pair => row("bc5x2", TexelFormat::Bc5Snorm, MapDecode::Bc5Pair, None),
        }
    }

    /// `rgba16f`, `snorm16`, `snorm8`, `rgba32f`, `bc5`, `bc7` or `bc5x2`.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The WGSL code of an uncompressed format (the bake's `FORMAT` override): its position in
    /// [`MapFormat::ALL`].
    #[must_use]
    #[cfg(feature = "pipeline")]
    pub(crate) const fn code(self) -> u32 {
        self as u32
    }

    /// Whether the format is block-compressed (BC5, BC7, two BC5 layers: 4×4 blocks, sides
    /// multiples of 4).
    #[must_use]
    pub fn is_compressed(self) -> bool {
        self.info().half_step.is_none()
    }

    /// The format a bake writes texels in before storing them in this one: the format itself,
    /// or rgba32f for the block formats (their encoder's input).
    #[must_use]
    pub(crate) fn raster(self) -> MapFormat {
        if self.is_compressed() {
            MapFormat::Rgba32Float
        } else {
            self
        }
    }

    /// Bytes per texel (1 for BC5 and BC7: 16 B per 4×4 block; 2 for two BC5 layers).
    #[must_use]
    pub(crate) fn bytes_per_texel(self) -> f64 {
        match self {
            MapFormat::Rgba16Float | MapFormat::Rgba16Snorm => 8.0,
            MapFormat::Rgba8Snorm => 4.0,
            MapFormat::Rgba32Float => 16.0,
            MapFormat::Bc5 | MapFormat::Bc7 => 1.0,
            MapFormat::Bc5Pair => 2.0,
        }
    }

    /// Bytes of one texel as the bake stores it ([`MapFormat::raster`]).
    pub(crate) fn raster_bytes(self) -> usize {
        self.raster().bytes_per_texel() as usize
    }

    /// The largest error of one stored component of a unit quaternion in the raster format:
    /// half a step (f16: 2⁻¹²; f32: 2⁻²⁵; snorm: (½ + 2⁻⁸)/32767 and (½ + 2⁻¹⁶)/127, the
    /// packing's two f32 roundings included).
    #[must_use]
    #[cfg(test)]
    pub(crate) fn half_step(self) -> f32 {
        self.raster().info().half_step.unwrap_or(f32::EPSILON)
    }

    /// Bound on the rotation error of one stored texel, degrees, for the uncompressed formats:
    /// each of the four components is off by at most e = half a step, so the quaternion by at
    /// most 2e; after normalisation it is at most asin(2e) away as a 4-vector, a rotation of
    /// 2·asin(2e), and no rotated vector (n, t, b) moves further. f16 0.056°, snorm16 0.0035°,
    /// snorm8 0.90°. `None` for the block formats, whose error is measured per map.
    #[must_use]
    pub fn max_error_deg(self) -> Option<f32> {
        self.info()
            .half_step
            .map(|e| (2.0 * (2.0 * f64::from(e)).asin()).to_degrees() as f32)
    }

    /// The compressed format a map of `space` is stored in by default: BC5 for tangent-space
    /// maps — of (x, y) for a tilt, of (z, w) for a twist alone — and BC7 for object-space
    /// maps. (A tangent-space map with both a tilt and a twist needs four channels, two BC5
    /// layers; the baker chooses that itself.)
    #[must_use]
    pub fn default_for(space: MapSpace) -> Self {
        Self::default_holding(space, false)
    }

    /// [`MapFormat::default_for`], and two BC5 layers for a tangent-space map that needs
    /// `four_channels` (docs/MAPS.md has the measurement that chose them over BC7).
    pub(crate) fn default_holding(space: MapSpace, four_channels: bool) -> Self {
        match space {
            MapSpace::Tangent if !four_channels => MapFormat::Bc5,
            MapSpace::Tangent => MapFormat::Bc5Pair,
            MapSpace::Object => MapFormat::Bc7,
        }
    }

    /// The KTX2 texel format.
    #[must_use]
    pub(crate) fn texel_format(self) -> TexelFormat {
        self.info().ktx2
    }

    /// The KTX2 layerCount: 2 for the two BC5 layers, 0 (a plain texture) for the others.
    #[must_use]
    pub(crate) fn ktx2_layers(self) -> u32 {
        if self == MapFormat::Bc5Pair {
            2
        } else {
            0
        }
    }

    /// The format of a KTX2 texel format and layerCount (the handedness plane's R8 is none).
    #[must_use]
    #[cfg(feature = "ktx2")]
    pub(crate) fn from_texel_format(t: TexelFormat, layers: u32) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|f| f.texel_format() == t && f.ktx2_layers() == layers)
    }

    /// The four 32-bit words the GPU baker writes for `q` in the raster format (WGSL's
    /// `pack2x16float`, `pack2x16snorm`, `pack4x8snorm` or `bitcast`; unused words 0).
    #[must_use]
    pub(crate) fn pack(self, q: Vec4) -> [u32; 4] {
        let snorm = |v: f32, m: f32| (v.clamp(-1.0, 1.0) * m + 0.5).floor() as i32;
        match self.raster() {
            MapFormat::Rgba16Float => {
                let h = |v: f32| u32::from(half::f16::from_f32(v).to_bits());
                [h(q.x) | h(q.y) << 16, h(q.z) | h(q.w) << 16, 0, 0]
            }
            MapFormat::Rgba16Snorm => {
                let s = |v: f32| (snorm(v, 32767.0) as u32) & 0xffff;
                [s(q.x) | s(q.y) << 16, s(q.z) | s(q.w) << 16, 0, 0]
            }
            MapFormat::Rgba8Snorm => {
                let s = |v: f32| (snorm(v, 127.0) as u32) & 0xff;
                [s(q.x) | s(q.y) << 8 | s(q.z) << 16 | s(q.w) << 24, 0, 0, 0]
            }
            _ => q.to_array().map(f32::to_bits),
        }
    }

    /// The quaternion four packed words stand for (the inverse of [`MapFormat::pack`] up to the
    /// quantisation; snorm −32768 / −128 decode as −1, as GPUs do).
    #[must_use]
    pub(crate) fn unpack(self, w: [u32; 4]) -> Vec4 {
        let h = |bits: u32| half::f16::from_bits(bits as u16).to_f32();
        let s16 = |bits: u32| (f32::from(bits as u16 as i16) / 32767.0).max(-1.0);
        let s8 = |bits: u32| (f32::from(bits as u8 as i8) / 127.0).max(-1.0);
        match self.raster() {
            MapFormat::Rgba16Float => Vec4::new(h(w[0]), h(w[0] >> 16), h(w[1]), h(w[1] >> 16)),
            MapFormat::Rgba16Snorm => {
                Vec4::new(s16(w[0]), s16(w[0] >> 16), s16(w[1]), s16(w[1] >> 16))
            }
            MapFormat::Rgba8Snorm => {
                Vec4::new(s8(w[0]), s8(w[0] >> 8), s8(w[0] >> 16), s8(w[0] >> 24))
            }
            _ => Vec4::from_array(w.map(f32::from_bits)),
        }
    }

    /// `q` as the raster format stores it: `unpack(pack(q))`.
    #[must_use]
    pub(crate) fn quantize(self, q: Vec4) -> Vec4 {
        self.unpack(self.pack(q))
    }

    /// The bytes of one texel as a texture of the raster format holds them (little-endian).
    #[must_use]
    pub(crate) fn texel_bytes(self, q: Vec4) -> Vec<u8> {
        let w = self.pack(q);
        let mut out: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        out.truncate(self.raster_bytes());
        out
    }
}

impl std::fmt::Display for MapFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses a [`MapFormat::name`] (ASCII case-insensitive).
impl std::str::FromStr for MapFormat {
    type Err = ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseNameError::new("map format", s, Self::ALL.map(Self::name).to_vec()))
    }
}

/// Which frame a map's rotations are relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapSpace {
    /// The whole frame in object space (needs unique UVs; hemisphere-aligned).
    Object,
    /// The rotation of the interpolated vertex frame (`super::tangent`).
    Tangent,
}

named!(MapSpace, "map kind", { Object => "object", Tangent => "tangent" });

/// How a shader turns a filtered sample of a stored map into a quaternion: the `MAP_DECODE`
/// override of `shaders/qmap.wgsl` (the WGSL constants are generated from this enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum MapDecode {
    /// The sample is the quaternion (the uncompressed formats).
    #[default]
    Direct,
    /// `q = 2c − 1` (BC7 UNORM).
    Unorm,
    /// `q = (x, y, 0, √(1 − x² − y²))` (BC5 SNORM of a tilt as the swing's (x, y): the layout
    /// of tangent-space `bc5` maps whose normals tilt past the horizon, and of files written
    /// before [`MapDecode::Bc5Normal`]).
    Bc5Xy,
    /// `q = (0, 0, x, y)` (BC5 SNORM of a twist alone).
    Bc5Zw,
    /// `q = swing ⊗ twist` from two BC5 SNORM textures: the swing's (x, y) with w rebuilt,
    /// the twist's (z, w) (an object-space `bc5x2` map, whose normal may face any way).
    Bc5Pair,
    /// `q = swing(n) ⊗ twist` from two BC5 SNORM textures: the normal's (x, y) with z ≥ 0
    /// rebuilt — a BC5 normal map — and the twist's (z, w); the swing is the shortest arc from
    /// +Z to n (a tangent-space `bc5x2` map).
    Bc5NormalTwist,
    /// `q = swing(n)` from one BC5 UNORM texture of the normal's (x, y) as n·½ + ½, z ≥ 0
    /// rebuilt: a BC5 normal map, the swing the shortest arc from +Z to n (a tangent-space `bc5`
    /// map of a tilt: twice the swing's resolution for tilts under 65°,
    /// `qmap::tangent::normal_twist`; on the 8-bit normal map's lattice).
    Bc5Normal,
}

named!(MapDecode, "map decode", {
    Direct => "direct",
    Unorm => "unorm",
    Bc5Xy => "bc5_xy",
    Bc5Zw => "bc5_zw",
    Bc5Pair => "bc5_pair",
    Bc5NormalTwist => "bc5_normal_twist",
    Bc5Normal => "bc5_normal",
});

impl MapDecode {
    /// The WGSL code, which the generated header names `MAP_DECODE_<NAME>` ([`crate::Wgsl`]):
    /// the position in [`MapDecode::ALL`].
    #[must_use]
    pub(crate) const fn code(self) -> u32 {
        self as u32
    }
}
