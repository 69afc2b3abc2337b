//! Quaternion maps as stored and shipped: the texel bytes of every level in a [`MapFormat`]
//! (uncompressed or block-compressed), the map's [`MapSpace`], and the optional handedness plane —
//! what a KTX2 file holds ([`EncodedMap::write_ktx2`] / [`EncodedMap::read_ktx2`]) and what the
//! renderer uploads. CPU only.
//!
//! The formats are in [`MapFormat`]'s table.
//!
//! Decoding a sample (what `shaders/qmap.wgsl` does): plain formats give the quaternion
//! directly; BC7 gives `2c − 1`; BC5 gives (x, y) and w = √(1 − x² − y²). Then normalise.
//! Tangent-space BC7 keeps all four channels although three would fit a map with w ≥ 0 (and
//! BC7's opaque modes are about 1.5× as accurate, `tests/unit/qmap/bc.rs`): BC7 is the format of
//! maps with a twist, and a twist field that winds (the spun plate) has a seam where r turns
//! into −r; with w rebuilt, filtering across it lands on a wrong rotation with nothing to tell,
//! while with four channels the seam-robust sampler sees the conflict and repairs it.

use glam::Vec4;

use super::bc::{self, Bc7Quality, BcEncoder};
use super::{tangent, BakeError, MapDecode, MapFormat, MapLevel, MapSpace, QuatMap, Unfit};
use crate::ktx2::{Ktx2Texture, TexelFormat};

mod levels;
// The tests of the don't-care fill (`tests/unit/qmap/padding.rs`) encode single levels.
use levels::{bc5_level, bc5_pair_level, bc7_levels};
#[cfg(all(test, feature = "render"))]
pub(crate) use levels::{bc7_care, bc7_level};

/// A quaternion map as stored: level 0 first, each level's texel bytes (block rows for BC).
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedMap {
    /// Object or tangent space.
    pub space: MapSpace,
    /// Storage format.
    pub format: MapFormat,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// Texel bytes per level.
    pub levels: Vec<Vec<u8>>,
    /// The handedness plane (R8 SNORM: ±127, background 0) per level, when kept; `None` when
    /// derived from the UV winding (object space) or taken from the vertex (tangent space).
    pub handedness: Option<Vec<Vec<u8>>>,
    /// A tangent-space map whose twist about the normal is stored **doubled**, `arc ⊗ rot_z(2φ)`:
    /// an axial direction field (KHR_materials_anisotropy: d ≡ −d), for which φ and φ + π are the
    /// same groove, so the stored rotations of d and −d are q and −q — the hemisphere rule's
    /// case — and a field that turns once round a point has no seam at all. Decoders halve the
    /// twist (`qmap_halve_twist` in `shaders/qmap.wgsl`); the twist's quantisation error is halved with it. KTX2
    /// key `KEY_TWIST` = `axial`.
    pub axial_twist: bool,
    /// A BC5 tangent-space map of a twist alone (x = y = 0 everywhere: an anisotropy direction
    /// or a brushed field without a normal map) holding (z, w) instead of (x, y): the normal is
    /// exact, and each of the twist's two numbers gets BC5's own endpoints (BC7's four channels
    /// share them, tilting the normal by ~0.7° on the swirl disc). KTX2 key `KEY_CHANNELS` =
    /// `zw`.
    pub twist_only: bool,
    /// A BC5 tangent-space map of a tilt holding **the normal's (x, y)** (z ≥ 0 rebuilt: a BC5
    /// normal map; the rotation is the shortest arc from +Z to n) instead of the swing's (x, y):
    /// a tilt θ is stored as sin θ instead of sin(θ/2), twice the resolution in the same texel
    /// for tilts under 65° ([`MapDecode::Bc5Normal`]). Stored as BC5 **UNORM** of n·½ + ½, the
    /// 8-bit normal map's own lattice (level 0 lands on or beside the source's bytes: its normal
    /// is the source's, normalised). What
    /// `encode` writes unless a normal tilts past the horizon. KTX2 key `KEY_CHANNELS` =
    /// `normal`, vkFormat `VK_FORMAT_BC5_UNORM_BLOCK`.
    pub normal_xy: bool,
}

/// How a map is stored ([`EncodedMap::encode`]): its `space` (object or tangent) and stored
/// `format`; `keep_handedness`, for object space, keeps the handedness plane instead of deriving
/// the handedness from the UV winding (ignored in tangent space: the vertex has it);
/// `axial_twist` records that the map's twist is already doubled ([`EncodedMap::axial_twist`]:
/// an axial direction field), not applied; `bc7` is the BC7 encoder's effort and `encoder` the
/// BC5/BC7 kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Encoding {
    pub(crate) space: MapSpace,
    pub(crate) format: MapFormat,
    pub(crate) keep_handedness: bool,
    pub(crate) axial_twist: bool,
    pub(crate) bc7: Bc7Quality,
    pub(crate) encoder: BcEncoder,
}

impl Encoding {
    /// A map of `space` stored as `format`: handedness derived, twist as baked, BC7 at
    /// [`Bc7Quality::Basic`] with the default encoder, bc7e (the defaults of
    /// [`super::MapOptions`]).
    #[must_use]
    pub(crate) fn new(space: MapSpace, format: MapFormat) -> Self {
        Self {
            space,
            format,
            keep_handedness: false,
            axial_twist: false,
            bc7: Bc7Quality::Basic,
            encoder: BcEncoder::default(),
        }
    }
}

/// KTX2 key of the map space.
pub(crate) const KEY_SPACE: &str = "qtangent.kind";
/// KTX2 key of the stored format's name.
pub(crate) const KEY_FORMAT: &str = "qtangent.format";
/// KTX2 key of the decode recipe in words.
pub(crate) const KEY_DECODE: &str = "qtangent.decode";
/// KTX2 key of the material the map is of (written by `qtangent bake`; how `render --maps-dir`
/// finds a map whose file name had to differ from the material's).
pub(crate) const KEY_MATERIAL: &str = "qtangent.material";

/// Where the handedness plane of the map file `path` is: beside it, `NAME.handedness.ktx2` for
/// `NAME.ktx2` (any other name gets `.handedness.ktx2` appended).
#[must_use]
fn plane_path(path: &std::path::Path) -> std::path::PathBuf {
    let file = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let stem = file.strip_suffix(".ktx2").unwrap_or(&file);
    path.with_file_name(format!("{stem}.handedness.ktx2"))
}

/// KTX2 key naming the quaternion components a two-channel (BC5) map holds: `zw` for a twist
/// alone ([`EncodedMap::twist_only`]), `normal` for the normal's (x, y)
/// ([`EncodedMap::normal_xy`]); absent, the swing's (x, y).
pub(crate) const KEY_CHANNELS: &str = "qtangent.channels";
/// KTX2 key saying a tangent-space map's twist is stored doubled ([`EncodedMap::axial_twist`]):
/// `axial`.
pub(crate) const KEY_TWIST: &str = "qtangent.twist";
/// [`KEY_CHANNELS`]' value for a twist alone.
const CHANNELS_ZW: &str = "zw";
/// [`KEY_CHANNELS`]' value for the normal's (x, y).
const CHANNELS_NORMAL: &str = "normal";
/// What [`KEY_TWIST`]'s value says.
const TWIST_AXIAL: &str = "axial";

/// How to decode it, in words: the KTX2 file's `qtangent.decode` entry (before the axial
/// twist's note).
fn decode_text(decode: MapDecode, space: MapSpace) -> &'static str {
    match (decode, space) {
        (MapDecode::Bc5Xy, _) => {
            "q = (r, g, 0, sqrt(max(0, 1 - r*r - g*g))) from the snorm sample; frame = vertex frame * q' with q' = (h*x, y, h*z, w) for vertex handedness h"
        }
        (MapDecode::Bc5Normal, _) => {
            "normal n = (2r - 1, 2g - 1, sqrt(max(0, 1 - x*x - y*y))) from the unorm sample (a BC5 normal map), q = normalize(-n.y, n.x, 0, 1 + n.z) (the shortest arc from +Z to n); frame = vertex frame * q' with q' = (h*x, y, h*z, w) for vertex handedness h"
        }
        (MapDecode::Bc5Zw, _) => {
            "q = (0, 0, r, g) from the snorm sample (a twist alone); frame = vertex frame * q' with q' = (h*x, y, h*z, w) for vertex handedness h"
        }
        (MapDecode::Bc5NormalTwist, _) => {
            "normal n = (r0, g0, sqrt(max(0, 1 - r0*r0 - g0*g0))) from layer 0's snorm sample (a BC5 normal map), swing s = normalize(-n.y, n.x, 0, 1 + n.z), twist t = (0, 0, r1, g1) from layer 1's; q = normalize(s * t) (quaternion product); frame = vertex frame * q' with q' = (h*x, y, h*z, w) for vertex handedness h"
        }
        (MapDecode::Bc5Pair, _) => {
            "swing s = (r0, g0, 0, sqrt(max(0, 1 - r0*r0 - g0*g0))) from layer 0's snorm sample, twist t = (0, 0, r1, g1) from layer 1's; q = normalize(s * t) (quaternion product), object space: normal = column 2, tangent = column 0 of the rotation; handedness from the sign of the UV winding against the surface"
        }
        (MapDecode::Unorm, MapSpace::Tangent) => {
            "q = normalize(2 * rgba - 1); frame = vertex frame * q' with q' = (h*x, y, h*z, w) for vertex handedness h"
        }
        (MapDecode::Unorm, MapSpace::Object) => {
            "q = normalize(2 * rgba - 1), object space: normal = column 2, tangent = column 0 of the rotation; handedness from the .handedness.ktx2 plane if present, else the sign of the UV winding against the surface"
        }
        (MapDecode::Direct, MapSpace::Tangent) => {
            "q = normalize(rgba); frame = vertex frame * q' with q' = (h*x, y, h*z, w) for vertex handedness h"
        }
        (MapDecode::Direct, MapSpace::Object) => {
            "q = normalize(rgba), object space: normal = column 2, tangent = column 0 of the rotation; handedness from the .handedness.ktx2 plane if present, else the sign of the UV winding against the surface"
        }
    }
}

fn text(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

impl EncodedMap {
    /// Stores `map` (of `space`) in `format`. Plain formats re-quantise each texel
    /// (`MapFormat::texel_bytes`); BC7 encodes `q·½+½`, with background texels (q = 0) of
    /// object-space maps as don't-care so they never spoil a block; BC5 encodes the normal's
    /// (x, y) of a tangent-space map without a twist ([`EncodedMap::normal_xy`]; the swing's
    /// (x, y) where a normal tilts past the horizon), or (z, w) of one with a twist and no tilt
    /// ([`EncodedMap::twist_only`]).
    ///
    /// # Errors
    /// [`BakeError::Unfit`] for a format that cannot hold the map (BC5 of an object-space map
    /// or of a tangent-space map with a twist and a tilt); [`BakeError::Settings`] for a size BC
    /// cannot take (not a
    /// multiple of 4).
    pub(crate) fn encode(map: &QuatMap, encoding: &Encoding) -> Result<Self, BakeError> {
        let Encoding {
            space,
            format,
            keep_handedness,
            axial_twist,
            bc7: quality,
            encoder,
        } = *encoding;
        let (width, height) = (map.width(), map.height());
        if format.is_compressed() {
            bc::check_size(width, height).map_err(|e| BakeError::Settings(e.to_string()))?;
        }
        let bc_err = |e: bc::BcError| BakeError::Settings(e.to_string());
        let mut twist_only = false;
        let mut normal_xy = false;
        let levels: Vec<Vec<u8>> = match format {
            MapFormat::Bc5 => {
                if space == MapSpace::Object {
                    return Err(BakeError::Unfit {
                        format,
                        unfit: Unfit::ObjectSpace,
                    });
                }
                twist_only = tangent::has_twist(map);
                if twist_only && tangent::has_tilt(map) {
                    return Err(BakeError::Unfit {
                        format,
                        unfit: Unfit::TiltAndTwist,
                    });
                }
                // The normal's (x, y), as a BC5 normal map holds it, unless a normal tilts past
                // the horizon (z ≥ 0 is rebuilt): then the swing's (x, y), which holds any tilt.
                normal_xy = !twist_only && tangent::tilts_past_horizon(map) == 0;
                map.levels
                    .iter()
                    .map(|l| bc5_level(l, twist_only, normal_xy, encoder).map_err(bc_err))
                    .collect::<Result<_, _>>()?
            }
            MapFormat::Bc5Pair => {
                if space == MapSpace::Object && keep_handedness {
                    return Err(BakeError::Unfit {
                        format,
                        unfit: Unfit::HandednessPlane,
                    });
                }
                if space == MapSpace::Tangent && tangent::tilts_past_horizon(map) > 0 {
                    return Err(BakeError::Unfit {
                        format,
                        unfit: Unfit::TiltPastHorizon,
                    });
                }
                map.levels
                    .iter()
                    .map(|l| bc5_pair_level(l, space, encoder).map_err(bc_err))
                    .collect::<Result<_, _>>()?
            }
            MapFormat::Bc7 => bc7_levels(map, space, quality, encoder).map_err(bc_err)?,
            f => map
                .levels
                .iter()
                .map(|l| l.quats.iter().flat_map(|&q| f.texel_bytes(q)).collect())
                .collect(),
        };
        let handedness = (space == MapSpace::Object && keep_handedness).then(|| {
            map.levels
                .iter()
                .map(|l| {
                    l.handedness
                        .iter()
                        .map(|&s| (i32::from(s.signum()) * 127) as u8)
                        .collect()
                })
                .collect()
        });
        Ok(Self {
            space,
            format,
            width,
            height,
            levels,
            handedness,
            axial_twist,
            twist_only,
            normal_xy,
        })
    }

    /// How a shader decodes this map's samples (its `MAP_DECODE`): the format's;
    /// [`MapDecode::Bc5Zw`] for a BC5 map of (z, w) ([`EncodedMap::twist_only`]);
    /// [`MapDecode::Bc5Normal`] for a BC5 map of the normal's (x, y) ([`EncodedMap::normal_xy`]);
    /// [`MapDecode::Bc5NormalTwist`] for a tangent-space `bc5x2` map (its first layer is the
    /// normal's (x, y)).
    #[must_use]
    pub fn decode(&self) -> MapDecode {
        if self.twist_only {
            MapDecode::Bc5Zw
        } else if self.normal_xy && self.format == MapFormat::Bc5 {
            MapDecode::Bc5Normal
        } else if self.format == MapFormat::Bc5Pair && self.space == MapSpace::Tangent {
            MapDecode::Bc5NormalTwist
        } else {
            self.format.info().decode
        }
    }

    /// The texel format the levels are in: the format's, but BC5 UNORM for the normal's (x, y)
    /// ([`EncodedMap::normal_xy`]: n·½ + ½, a BC5 normal map's bytes).
    #[must_use]
    pub(crate) fn texel_format(&self) -> TexelFormat {
        if self.normal_xy && self.format == MapFormat::Bc5 {
            TexelFormat::Bc5Unorm
        } else {
            self.format.texel_format()
        }
    }

    /// Size of level `k`.
    #[must_use]
    #[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
    pub(crate) fn level_size(&self, k: usize) -> (u32, u32) {
        ((self.width >> k).max(1), (self.height >> k).max(1))
    }

    /// The quaternion every texel of level `k` decodes to, unnormalised as a shader reads it
    /// (BC5: w rebuilt; BC7: `2c − 1`), row-major.
    ///
    /// # Errors
    /// [`BakeError::Settings`] for a level that does not exist or has the wrong byte count.
    #[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(dead_code))]
    pub(crate) fn decode_level(&self, k: usize) -> Result<Vec<Vec4>, BakeError> {
        let (w, h) = self.level_size(k);
        let bytes = self.levels.get(k).ok_or_else(|| {
            BakeError::Settings(format!("level {k} of a {}-level map", self.levels.len()))
        })?;
        let bc_err = |e: bc::BcError| BakeError::Settings(e.to_string());
        Ok(match self.format {
            MapFormat::Bc5 if self.twist_only => bc::decode_bc5_snorm(w, h, bytes)
                .map_err(bc_err)?
                .into_iter()
                .map(|[z, w]| Vec4::new(0.0, 0.0, z, w))
                .collect(),
            MapFormat::Bc5 if self.normal_xy => bc::decode_bc5_unorm(w, h, bytes)
                .map_err(bc_err)?
                .into_iter()
                .map(|c| tangent::join_normal_twist(c.map(|c| c * 2.0 - 1.0), [0.0, 1.0]))
                .collect(),
            MapFormat::Bc5 => bc::decode_bc5_snorm(w, h, bytes)
                .map_err(bc_err)?
                .into_iter()
                .map(|[x, y]| tangent::rebuild_w(x, y, 0.0))
                .collect(),
            MapFormat::Bc5Pair => {
                let (xy, zw) = bytes.split_at(bytes.len() / 2);
                let xy = bc::decode_bc5_snorm(w, h, xy).map_err(bc_err)?;
                let zw = bc::decode_bc5_snorm(w, h, zw).map_err(bc_err)?;
                let join = match self.space {
                    MapSpace::Tangent => tangent::join_normal_twist,
                    MapSpace::Object => tangent::join_swing_twist,
                };
                xy.into_iter().zip(zw).map(|(s, t)| join(s, t)).collect()
            }
            MapFormat::Bc7 => bc::decode_bc7(w, h, bytes)
                .map_err(bc_err)?
                .into_iter()
                .map(Vec4::from_array)
                .collect(),
            f => {
                let n = f.raster_bytes();
                if bytes.len() != n * (w * h) as usize {
                    return Err(BakeError::Settings(format!(
                        "level {k} has {} bytes; a {w}×{h} {f} level needs {}",
                        bytes.len(),
                        n * (w * h) as usize
                    )));
                }
                bytes
                    .chunks_exact(n)
                    .map(|c| {
                        let mut words = [0u32; 4];
                        for (i, b) in c.iter().enumerate() {
                            words[i / 4] |= u32::from(*b) << (8 * (i % 4));
                        }
                        f.unpack(words)
                    })
                    .collect()
            }
        })
    }

    /// The same map re-stored as `format` (plain), every texel decoded first: how a device
    /// without BC sampling gets a compressed map.
    ///
    /// # Errors
    /// As [`EncodedMap::decode_level`].
    #[cfg(feature = "gpu")]
    pub(crate) fn to_plain(&self, format: MapFormat) -> Result<Self, BakeError> {
        let levels = (0..self.levels.len())
            .map(|k| {
                self.decode_level(k)
                    .map(|qs| qs.into_iter().flat_map(|q| format.texel_bytes(q)).collect())
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            format: format.raster(),
            levels,
            ..self.clone()
        })
    }

    /// Bytes of every level, the handedness plane included.
    #[must_use]
    #[cfg(all(feature = "gpu", feature = "render"))]
    pub(crate) fn texture_bytes(&self) -> u64 {
        let planes = self
            .handedness
            .iter()
            .flatten()
            .map(Vec::len)
            .sum::<usize>();
        (self.levels.iter().map(Vec::len).sum::<usize>() + planes) as u64
    }

    /// The KTX2 textures: the map (with its space, format and decode recipe as key/values) and
    /// the handedness plane when kept.
    #[must_use]
    pub(crate) fn to_ktx2(&self) -> (Ktx2Texture, Option<Ktx2Texture>) {
        let kv = |extra: &str| {
            let decode = self.decode();
            let mut text_of_decode = decode_text(decode, self.space).to_string();
            if self.axial_twist {
                text_of_decode.push_str("; the twist about z is stored doubled (axial): t = normalize(0, 0, q.z, q.w), q = (q * conj(t)) * normalize(t + (0, 0, 0, 1)) before use");
            }
            let mut kv = vec![
                (KEY_SPACE.to_string(), text(self.space.name())),
                (KEY_FORMAT.to_string(), text(extra)),
                (KEY_DECODE.to_string(), text(&text_of_decode)),
            ];
            let channels = match decode {
                MapDecode::Bc5Zw => Some(CHANNELS_ZW),
                MapDecode::Bc5Normal => Some(CHANNELS_NORMAL),
                _ => None,
            };
            if let Some(c) = channels {
                kv.push((KEY_CHANNELS.to_string(), text(c)));
            }
            if self.axial_twist {
                kv.push((KEY_TWIST.to_string(), text(TWIST_AXIAL)));
            }
            kv
        };
        let main = Ktx2Texture {
            layers: self.format.ktx2_layers(),
            format: self.texel_format(),
            width: self.width,
            height: self.height,
            levels: self.levels.clone(),
            key_values: kv(self.format.name()),
        };
        let plane = self.handedness.as_ref().map(|planes| Ktx2Texture {
            layers: 0,
            format: TexelFormat::R8Snorm,
            width: self.width,
            height: self.height,
            levels: planes.clone(),
            key_values: vec![
                (KEY_SPACE.to_string(), text(self.space.name())),
                (KEY_FORMAT.to_string(), text("handedness")),
                (
                    KEY_DECODE.to_string(),
                    text(
                        "handedness = sign(r) (+1 or -1; 0 for background), filtered like the map",
                    ),
                ),
            ],
        });
        (main, plane)
    }

    /// Writes the map as the KTX 2.0 file `path` and, when it keeps the handedness plane, the
    /// plane beside it (`NAME.handedness.ktx2` for `NAME.ktx2`). `material`, when given, is
    /// recorded in both under the key `qtangent.material`, where a renderer reading a folder of
    /// maps (`qtangent render --maps-dir`) finds a material's map whatever the file is called.
    /// Each file is written under a temporary name and renamed, so no half-written map is left
    /// behind; a map without a plane removes a plane file left beside `path` by an earlier
    /// write, which [`EncodedMap::read_ktx2`] would otherwise read with it. Returns the files
    /// written, the map first.
    ///
    /// # Errors
    /// [`BakeError::Ktx2`] naming the file that could not be encoded or written.
    pub fn write_ktx2(
        &self,
        path: &std::path::Path,
        material: Option<&str>,
    ) -> Result<Vec<std::path::PathBuf>, BakeError> {
        let (mut main, mut plane) = self.to_ktx2();
        if let Some(material) = material {
            let key = (KEY_MATERIAL.to_string(), text(material));
            main.key_values.push(key.clone());
            if let Some(p) = &mut plane {
                p.key_values.push(key);
            }
        }
        crate::ktx2::write_file(path, &main)?;
        let mut files = vec![path.to_path_buf()];
        let plane_path = plane_path(path);
        if let Some(plane) = plane {
            crate::ktx2::write_file(&plane_path, &plane)?;
            files.push(plane_path);
        } else {
            // A plane left from an earlier map of this name would be read with this one.
            match std::fs::remove_file(&plane_path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(crate::ktx2::Ktx2Error::Io {
                        path: plane_path,
                        action: "remove",
                        error: e,
                    }
                    .into());
                }
                _ => {}
            }
        }
        Ok(files)
    }

    #[cfg(feature = "ktx2")]
    /// Reads a map [`EncodedMap::write_ktx2`] wrote (or `bake` or `pack`): the KTX 2.0 file
    /// `path` and, when it exists, the handedness plane beside it (`NAME.handedness.ktx2`).
    ///
    /// # Errors
    /// [`BakeError::Ktx2`] for a file that does not read as KTX 2.0; [`BakeError::Settings`]
    /// naming the file for one that holds no quaternion map, or a plane of another size.
    pub fn read_ktx2(path: &std::path::Path) -> Result<Self, BakeError> {
        let main = crate::ktx2::read_file(path)?;
        let plane_path = plane_path(path);
        let plane = if plane_path.exists() {
            Some(crate::ktx2::read_file(&plane_path)?)
        } else {
            None
        };
        Self::from_ktx2(&path.display().to_string(), &main, plane.as_ref())
    }

    #[cfg(feature = "ktx2")]
    /// Reads a map from the bytes of a KTX 2.0 file: a map image embedded in a packed glTF
    /// (`QTANGENT_frames` on a texture), for a renderer that reads the glTF itself. `what` names
    /// the image in errors. A map whose handedness plane is a file of its own
    /// ([`EncodedMap::read_ktx2`]) is read without it.
    ///
    /// # Errors
    /// [`BakeError::Ktx2`] for bytes that do not read as KTX 2.0; [`BakeError::Settings`] naming
    /// `what` for a texture that holds no quaternion map.
    pub fn read_ktx2_bytes(what: &str, bytes: &[u8]) -> Result<Self, BakeError> {
        let main = crate::ktx2::read(bytes)?;
        Self::from_ktx2(what, &main, None)
    }

    #[cfg(feature = "ktx2")]
    /// A map from its KTX2 texture (and handedness plane). `what` names the file in errors.
    ///
    /// # Errors
    /// [`BakeError::Settings`] naming `what` for a texel format that is no map format, a missing
    /// or unknown `qtangent.kind`, or a plane of another size.
    pub(crate) fn from_ktx2(
        what: &str,
        main: &Ktx2Texture,
        plane: Option<&Ktx2Texture>,
    ) -> Result<Self, BakeError> {
        let fail = |problem: String| Err(BakeError::Settings(format!("{what}: {problem}")));
        // BC5 UNORM is a bc5 map's normal layout (n·½ + ½; `EncodedMap::texel_format`).
        let unorm = main.format == TexelFormat::Bc5Unorm;
        let texel = if unorm {
            TexelFormat::Bc5Snorm
        } else {
            main.format
        };
        let format = MapFormat::from_texel_format(texel, main.layers)
            .filter(|&f| !unorm || f == MapFormat::Bc5);
        let Some(format) = format else {
            return fail(format!(
                "vkFormat {} with layerCount {} is not a quaternion-map format ({})",
                main.format.vk_format(),
                main.layers,
                MapFormat::ALL.map(MapFormat::name).join(", ")
            ));
        };
        let space = match main.key_value_text(KEY_SPACE) {
            Some(s) => match s.parse::<MapSpace>() {
                Ok(s) => s,
                Err(_) => return fail(format!("{KEY_SPACE} is '{s}', not object or tangent")),
            },
            None => {
                return fail(format!(
                    "no {KEY_SPACE} entry: not a qtangent quaternion map"
                ))
            }
        };
        if format == MapFormat::Bc5 && space == MapSpace::Object {
            return fail("a bc5 map cannot be object-space".into());
        }
        if format == MapFormat::Bc5Pair && plane.is_some() {
            return fail("a bc5x2 map has no handedness plane (its second layer is (z, w))".into());
        }
        if format.is_compressed() {
            if let Err(e) = bc::check_size(main.width, main.height) {
                return fail(e.to_string());
            }
        }
        let handedness = match plane {
            None => None,
            Some(p) => {
                if p.format != TexelFormat::R8Snorm
                    || (p.width, p.height) != (main.width, main.height)
                    || p.levels.len() != main.levels.len()
                {
                    return fail(format!(
                        "the handedness plane is {:?} {}×{} with {} levels; the map is {}×{} with {}",
                        p.format,
                        p.width,
                        p.height,
                        p.levels.len(),
                        main.width,
                        main.height,
                        main.levels.len()
                    ));
                }
                Some(p.levels.clone())
            }
        };
        let axial_twist = match main.key_value_text(KEY_TWIST) {
            None => false,
            Some(TWIST_AXIAL) if space == MapSpace::Tangent => true,
            Some(s) => {
                return fail(format!(
                    "{KEY_TWIST} is '{s}' for a {} map; only '{TWIST_AXIAL}' of a tangent-space map is known",
                    space.name()
                ))
            }
        };
        let (twist_only, normal_xy) = channels(main, format, unorm)
            .map_err(|p| BakeError::Settings(format!("{what}: {p}")))?;
        Ok(Self {
            space,
            format,
            width: main.width,
            height: main.height,
            levels: main.levels.clone(),
            handedness,
            axial_twist,
            twist_only,
            normal_xy,
        })
    }
}

/// `qtangent.channels` of a KTX2 map in `format` (`unorm`: BC5 UNORM): (twist only, normal's
/// (x, y)), or what is wrong.
#[cfg(feature = "ktx2")]
fn channels(main: &Ktx2Texture, format: MapFormat, unorm: bool) -> Result<(bool, bool), String> {
    Ok(match main.key_value_text(KEY_CHANNELS) {
        // A bc5 map is tangent-space (refused before); the normal layout is UNORM.
        Some(CHANNELS_NORMAL) if unorm => (false, true),
        Some(CHANNELS_NORMAL) if format == MapFormat::Bc5 => {
            return Err(format!(
                "{KEY_CHANNELS} '{CHANNELS_NORMAL}' in BC5 SNORM: a map from an earlier build, whose normal layout was SNORM; bake it again (the layout is BC5 UNORM now)"
            ))
        }
        _ if unorm => {
            return Err(format!(
                "BC5 UNORM holds the normal's (x, y), but {KEY_CHANNELS} is not '{CHANNELS_NORMAL}'"
            ))
        }
        None => (false, false),
        Some(CHANNELS_ZW) if format == MapFormat::Bc5 => (true, false),
        Some(s) => {
            return Err(format!(
                "{KEY_CHANNELS} is '{s}' for a {format} map; only '{CHANNELS_ZW}' and '{CHANNELS_NORMAL}' of a bc5 map are known"
            ))
        }
    })
}

/// A file stem from a material name, as `bake` names its files and the renderer looks them up:
/// ASCII letters, digits, `-`, `_` and `.` kept, anything else `_`; no leading or trailing dot;
/// at most 100 characters; `map` when nothing is left.
#[must_use]
pub(crate) fn file_stem(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    let s = s.trim_start_matches('.').trim_end_matches('.').to_string();
    if s.is_empty() || s.chars().all(|c| c == '_') {
        "map".into()
    } else {
        s
    }
}
