//! The one way a quaternion map is baked and stored — by `qtangent bake`, the renderer and `pack`
//! alike — with one set of defaults ([`MapOptions::default`]).
//!
//! A [`Baker`] takes what a map is made of ([`TangentInput`]: a normal map, an anisotropy
//! direction, or an authored map; [`ObjectInput`]: a mesh and its normal map) and returns the
//! map baked and stored ([`Baked`]): the raster stage runs on a [`RasterBackend`] (the CPU here,
//! the GPU through `qtangent::gpu::GpuContext`, which also decides when the CPU is faster), the
//! rest on the CPU; the stored format is the one asked for where it can hold the map, else the
//! nearest that can, with a warning.

use std::time::{Duration, Instant};

use glam::Vec2;
use image::RgbaImage;

use super::anisotropy::{self, DirectionField};
use super::bc::{self, Bc7Quality, BcEncoder};
use super::stored::{EncodedMap, Encoding};
use super::tangent::{self, TwistField};
use super::{
    atlas, post::finish_levels, raster_cpu, BakeError, BakeMesh, BakeSettings, MapFormat, MapSpace,
    NormalMap, QuatMap, Raster, Unfit,
};
use crate::report::{Listener, Warning, WarningKind};

/// The level of a normal map (`first`, then its `coarser` levels) a map level `side` texels
/// across reads: the one of that size (the nearest), `shift` levels coarser, at most the last.
fn level_for<'m>(
    first: &'m NormalMap,
    coarser: &'m [NormalMap],
    side: u32,
    shift: u32,
) -> &'m NormalMap {
    let ratio = first.width.max(first.height) as f32 / side.max(1) as f32;
    let j = (ratio.log2().round().max(0.0) as usize + shift as usize).min(coarser.len());
    if j == 0 {
        first
    } else {
        &coarser[j - 1]
    }
}

/// Every level of an object-space map rastered on its own ([`raster_level`]): level 0 (with
/// `listener`'s progress) and each coarser one down to 1 × 1.
pub(crate) fn raster_levels(
    backend: &dyn RasterStages,
    levels: &LevelInputs<'_>,
    listener: &mut dyn Listener,
) -> Result<(Raster, Vec<Raster>), BakeError> {
    super::check_settings(&levels.settings)?;
    // The normal map's own levels, the renderer's filter, for the coarser map levels to read.
    let coarser = levels
        .normal_map
        .map(NormalMap::coarser_levels)
        .unwrap_or_default();
    let raster = raster_level(backend, levels, &coarser, 0, listener)?;
    let count = levels.settings.width.max(levels.settings.height).ilog2() as usize;
    let mut coarse = Vec::with_capacity(count);
    for k in 1..=count {
        listener.stage("coarser levels", k as u64 - 1, count as u64);
        coarse.push(raster_level(backend, levels, &coarser, k, &mut ())?);
    }
    listener.stage("coarser levels", count as u64, count as u64);
    Ok((raster, coarse))
}

/// Level `k` of an object-space map rastered on its own: `levels.settings`' size halved `k`
/// times, reading the normal map's level of that size (of `coarser`, its levels below it) — [`super::OBJECT_LOD_SHIFT`] levels
/// coarser below level 0 — and turned by the anisotropy direction's level of that size
/// (not shifted: its levels are axial means, the filter the true highlight direction has,
/// and read at their own texel centres they take no bilinear blend across its seams).
fn raster_level(
    backend: &dyn RasterStages,
    levels: &LevelInputs<'_>,
    coarser: &[NormalMap],
    k: usize,
    listener: &mut dyn Listener,
) -> Result<Raster, BakeError> {
    let shift = if k == 0 { 0 } else { super::OBJECT_LOD_SHIFT };
    let (w, h) = (levels.settings.width, levels.settings.height);
    let settings = BakeSettings {
        width: (w >> k).max(1),
        height: (h >> k).max(1),
        ..levels.settings
    };
    let side = settings.width.max(settings.height);
    let normal_map = levels
        .normal_map
        .map(|first| level_for(first, coarser, side, shift));
    let level = LevelInputs {
        normal_map,
        settings,
        ..*levels
    };
    let mut raster = backend.raster(&level, listener)?;
    // KHR_materials_anisotropy: the map's tangent is the anisotropy direction.
    if let Some(field) = levels.direction {
        // A map with a layout of its own reads the direction at each texel's own UV.
        let reach = settings.padding as f32 + 2.0;
        let source = levels
            .own_uvs
            .map(|(mesh, uvs)| atlas::source_uvs(mesh, uvs, settings.width, reach));
        anisotropy::turn_raster(&mut raster, field, source.as_deref());
    }
    Ok(raster)
}

/// What every level of an object-space map is rastered from (and, with a level's own normal
/// map and settings, what one level is).
#[derive(Clone, Copy)]
pub(crate) struct LevelInputs<'a> {
    /// The mesh, in the map's layout.
    pub(crate) mesh: &'a BakeMesh,
    /// The normal map in the map's layout.
    pub(crate) normal_map: Option<&'a NormalMap>,
    /// The anisotropy direction: the map's tangent.
    pub(crate) direction: Option<&'a DirectionField>,
    /// A map with a layout of its own: the mesh in its own UVs and the layout's UVs, to find
    /// each texel's own UV in the direction field.
    pub(crate) own_uvs: Option<(&'a BakeMesh, &'a [Vec2])>,
    /// Level 0's settings.
    pub(crate) settings: BakeSettings,
}

/// How maps are baked and stored. The defaults are the same for every tool.
#[derive(Debug, Clone, PartialEq)]
pub struct MapOptions {
    /// The stored format; `None`: the compressed default ([`MapFormat::default_for`]: BC5 for
    /// tangent-space maps, BC7 for those with a tilt and a twist and for object-space maps).
    pub format: Option<MapFormat>,
    /// Object space: keep the handedness plane instead of deriving the handedness from the UV
    /// winding (needed for maps whose handedness does not follow the UVs).
    pub keep_handedness: bool,
    /// BC7 encoder effort. Default [`Bc7Quality::Basic`] (all modes): the maps are what ships.
    pub bc7: Bc7Quality,
    /// The BC5/BC7 encoder. Default [`BcEncoder::Bc7e`]: bc7e for BC7, Intel's ISPC kernel for BC5.
    pub encoder: BcEncoder,
    /// Padding rings grown around the UV islands of object-space maps beyond the one-texel
    /// fringe. Default 16: minified, a map is read from its mips, where level k has 2⁻ᵏ of
    /// the padding; 16 rings keep a 4-texel margin at level 2, so island edges read their own
    /// frames rather than a neighbour island's or background.
    pub padding: u32,
    /// A folder of maps `bake` wrote (`<material>.ktx2`), loaded instead of baking for the
    /// materials it has (the renderer and `pack`; `bake` itself ignores it).
    pub maps_dir: Option<std::path::PathBuf>,
}

impl Default for MapOptions {
    fn default() -> Self {
        Self {
            format: None,
            keep_handedness: false,
            bc7: Bc7Quality::Basic,
            encoder: BcEncoder::default(),
            padding: 16,
            maps_dir: None,
        }
    }
}

/// Where a bake's raster stages run: [`RasterBackend::CPU`], or a device's own choice
/// (`qtangent::gpu::GpuContext::raster_backend`). A backend is chosen, not written: the stages
/// are the crate's own, and the GPU's are tested texel for texel against the CPU's.
#[derive(Clone, Copy)]
pub struct RasterBackend<'a>(pub(crate) &'a dyn RasterStages);

impl RasterBackend<'static> {
    /// The CPU: the reference raster, and the tangent-space bake on every core.
    pub const CPU: Self = RasterBackend(&CpuRaster);
}

/// What it is, for reports: `CPU`, or the GPU adapter.
impl std::fmt::Display for RasterBackend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.describe())
    }
}

impl std::fmt::Debug for RasterBackend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("RasterBackend")
            .field(&self.0.describe())
            .finish()
    }
}

/// The stages a backend runs.
pub(crate) trait RasterStages {
    /// What it is, for reports: `CPU`, or the GPU adapter.
    fn describe(&self) -> String;

    /// The object-space raster of `level`'s mesh under its normal map, at its settings (see
    /// [`CpuRaster`], whose result every backend reproduces); the direction is turned in after.
    ///
    /// # Errors
    /// What the mesh, the settings or the backend cannot do.
    fn raster(
        &self,
        level: &LevelInputs<'_>,
        listener: &mut dyn Listener,
    ) -> Result<Raster, BakeError>;

    /// A tangent-space map from a normal map's levels and a twist (see `tangent::bake_cpu`,
    /// whose texels every backend reproduces to one step of `format`).
    ///
    /// # Errors
    /// What the backend cannot do.
    fn bake_tangent(
        &self,
        levels: &[NormalMap],
        twist: Option<TwistField<'_>>,
        format: MapFormat,
    ) -> Result<QuatMap, BakeError>;
}

/// The CPU: the reference raster and the tangent-space bake on every core.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CpuRaster;

impl RasterStages for CpuRaster {
    fn describe(&self) -> String {
        "CPU".into()
    }

    fn raster(
        &self,
        level: &LevelInputs<'_>,
        listener: &mut dyn Listener,
    ) -> Result<Raster, BakeError> {
        raster_cpu(level.mesh, level.normal_map, &level.settings, listener)
    }

    fn bake_tangent(
        &self,
        levels: &[NormalMap],
        twist: Option<TwistField<'_>>,
        format: MapFormat,
    ) -> Result<QuatMap, BakeError> {
        Ok(tangent::bake_cpu(levels, twist, format))
    }
}

/// What a tangent-space map is made of. Without a normal map, an anisotropy direction or an
/// authored map, there is no map (it would be the identity).
#[derive(Debug, Clone, Copy, Default)]
pub struct TangentInput<'a> {
    /// What the map is of, for messages: `material 'X'`.
    pub what: &'a str,
    /// The normal map as a renderer uploads it: 8-bit RGBA (the map is baked from its mip
    /// chain, so it filters like the normal map it replaces).
    pub normal_map: Option<&'a RgbaImage>,
    /// The normal map's `scale`.
    pub normal_scale: f32,
    /// A KHR_materials_anisotropy direction: the map's tangent (its twist, stored doubled).
    pub direction: Option<&'a DirectionField>,
    /// A map made by hand: stored as it is.
    pub authored: Option<&'a QuatMap>,
}

/// Whether an object-space map may get a UV layout of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Repack {
    /// Bake in the mesh's UVs (overlapping texels: the lowest triangle wins).
    #[default]
    Never,
    /// Where more than `atlas::OVERLAP_THRESHOLD` of the UV texels overlap, bake in a layout of
    /// its own at twice the side (within 4096, or the size asked), the normal map resampled into
    /// it; the result says which UVs to draw it with.
    WhenOverlapping,
}

/// What an object-space map is made of.
#[derive(Debug, Clone)]
pub struct ObjectInput<'a> {
    /// The mesh (its label names the map in messages).
    pub mesh: BakeMesh,
    /// Its normal map, baked into the frames.
    pub normal_map: Option<&'a NormalMap>,
    /// A KHR_materials_anisotropy direction: the map's tangent.
    pub direction: Option<&'a DirectionField>,
    /// Map side in texels.
    pub size: u32,
    /// Whether it may get a UV layout of its own.
    pub repack: Repack,
}

/// A baked map: as baked (the raster format, every level, statistics) and as stored.
#[derive(Debug, Clone)]
pub struct Baked {
    /// Wall time of each phase, in order: `raster` and `finish` (object space), or `mips` and
    /// `bake` (tangent space); then `store`.
    pub times: Vec<(&'static str, Duration)>,
    /// The map as baked.
    pub map: QuatMap,
    /// The map as stored ([`MapOptions`]).
    pub stored: EncodedMap,
    /// The UVs (one per vertex of the input mesh) of the layout it was baked in, when it got a
    /// layout of its own ([`Repack::WhenOverlapping`]).
    #[cfg_attr(not(feature = "render"), allow(dead_code))] // read by the renderer (`render`)
    pub(crate) map_uvs: Option<Vec<Vec2>>,
}

/// `map` stored as `encoding`; where `bc5x2` cannot hold it (what [`EncodedMap::encode`]
/// refuses: a tangent-space map with normals tilted past the horizon, or an object-space map
/// that keeps its handedness plane), as BC7, which holds both, with a warning.
///
/// # Errors
/// What the encoder reports.
fn encode_fitting(
    map: &QuatMap,
    encoding: Encoding,
    what: &str,
    listener: &mut dyn Listener,
) -> Result<EncodedMap, BakeError> {
    let kind = match EncodedMap::encode(map, &encoding) {
        Err(BakeError::Unfit {
            format: MapFormat::Bc5Pair,
            unfit: Unfit::TiltPastHorizon,
        }) => WarningKind::TiltPastHorizon {
            texels: tangent::tilts_past_horizon(map),
        },
        Err(BakeError::Unfit {
            format: MapFormat::Bc5Pair,
            unfit: Unfit::HandednessPlane,
        }) => WarningKind::PlaneNotInBc5Pair,
        stored => return stored,
    };
    listener.warning(Warning::new(what, kind));
    let bc7 = Encoding {
        format: MapFormat::Bc7,
        ..encoding
    };
    EncodedMap::encode(map, &bc7)
}

/// The largest side a repacked map is given automatically.
const MAX_REPACKED_SIZE: u32 = 4096;

/// Bakes and stores maps on a backend with a set of options.
pub struct Baker<'a> {
    backend: RasterBackend<'a>,
    options: &'a MapOptions,
}

impl<'a> Baker<'a> {
    /// A baker running its raster stages on `backend`.
    #[must_use]
    pub fn new(backend: RasterBackend<'a>, options: &'a MapOptions) -> Self {
        Self { backend, options }
    }

    /// The options.
    #[must_use]
    #[cfg(feature = "render")]
    pub(crate) fn options(&self) -> &MapOptions {
        self.options
    }

    /// The tangent-space map of `input`: the authored map stored, or the normal map's levels
    /// (flat levels of the direction's size without one) turned by the direction's twist,
    /// stored with the twist doubled (axial). `None` when there is nothing to bake.
    ///
    /// # Errors
    /// What the backend or the encoder reports.
    pub fn tangent(
        &self,
        input: &TangentInput<'_>,
        listener: &mut dyn Listener,
    ) -> Result<Option<Baked>, BakeError> {
        if let Some(authored) = input.authored {
            let t = Instant::now();
            let stored = self.store(authored, MapSpace::Tangent, input.what, listener)?;
            return Ok(Some(Baked {
                times: vec![("store", t.elapsed())],
                map: authored.clone(),
                stored,
                map_uvs: None,
            }));
        }
        let t = Instant::now();
        let levels = match (input.normal_map, input.direction) {
            (Some(normal), _) => NormalMap::levels_from_rgba8(normal, input.normal_scale),
            (None, Some(d)) => NormalMap::flat_levels(d.levels[0].width, d.levels[0].height),
            (None, None) => return Ok(None),
        };
        // Axial: the twist is stored doubled (EncodedMap::axial_twist), so d and −d are q and −q.
        let twist = input.direction.map(|d| {
            let sizes: Vec<(u32, u32)> = levels.iter().map(|l| (l.width, l.height)).collect();
            d.axial_twist_levels(&sizes)
        });
        let field = twist.as_deref().map(TwistField);
        let four = field.is_some() && input.normal_map.is_some();
        let size = (levels[0].width, levels[0].height);
        let format = self.choose(MapSpace::Tangent, four, size, input.what, listener);
        let mut times = vec![("mips", t.elapsed())];
        let t = Instant::now();
        listener.stage("tangent-space bake", 0, 1);
        let map = self
            .backend
            .0
            .bake_tangent(&levels, field, format.raster())?;
        listener.stage("tangent-space bake", 1, 1);
        times.push(("bake", t.elapsed()));
        let t = Instant::now();
        let encoding = Encoding {
            axial_twist: twist.is_some(),
            ..self.encoding(MapSpace::Tangent, format)
        };
        let stored = self.encode(&map, &encoding, input.what, listener)?;
        times.push(("store", t.elapsed()));
        Ok(Some(Baked {
            times,
            map,
            stored,
            map_uvs: None,
        }))
    }

    /// The object-space map of `input`, baked at `input.size`² (repacked where asked and the
    /// UVs overlap), its tangent the anisotropy direction where there is one.
    ///
    /// # Errors
    /// What the mesh, the backend or the encoder reports.
    pub fn object(
        &self,
        input: ObjectInput<'_>,
        listener: &mut dyn Listener,
    ) -> Result<Baked, BakeError> {
        let ObjectInput {
            mut mesh,
            normal_map,
            direction,
            size,
            repack,
        } = input;
        let what = mesh.label.clone();
        let overlap = match repack {
            Repack::Never => 0.0,
            Repack::WhenOverlapping => atlas::overlap_fraction(&mesh)?,
        };
        let repacked = overlap > atlas::OVERLAP_THRESHOLD;
        // Repacked, the parts that shared texels share the square instead: twice the side keeps
        // their texel density.
        let size = if repacked {
            size.saturating_mul(2).min(MAX_REPACKED_SIZE.max(size))
        } else {
            size
        };
        let format = self.choose(MapSpace::Object, false, (size, size), &what, listener);
        let settings = BakeSettings {
            width: size,
            height: size,
            padding: self.options.padding,
            format: format.raster(),
        };
        let mut resampled = None;
        let (mut map_uvs, mut own_uvs) = (None, None);
        if repacked {
            listener.warning(Warning::new(
                &what,
                WarningKind::MapRepacked {
                    overlap_percent: (overlap * 100.0).round() as u32,
                },
            ));
            let reach = settings.padding as f32 + 2.0;
            let uvs = atlas::unique_layout(&mesh, size, 2 * settings.padding + 2);
            resampled =
                normal_map.map(|nm| atlas::resample_normal_map(&mesh, &uvs, nm, size, reach));
            if direction.is_some() {
                own_uvs = Some(mesh.clone());
            }
            mesh.uvs.clone_from(&uvs);
            map_uvs = Some(uvs);
        }
        let t = Instant::now();
        let levels = LevelInputs {
            mesh: &mesh,
            normal_map: resampled.as_ref().or(normal_map),
            direction,
            own_uvs: own_uvs.as_ref().zip(map_uvs.as_deref()),
            settings,
        };
        let (raster, coarse) = raster_levels(self.backend.0, &levels, listener)?;
        if raster.degenerate_triangles > 0 {
            listener.warning(Warning::new(
                &what,
                WarningKind::NoUvArea {
                    triangles: raster.degenerate_triangles,
                    of: raster.degenerate_triangles + raster.triangles,
                },
            ));
        }
        let mut times = vec![("raster", t.elapsed())];
        let t = Instant::now();
        let map = finish_levels(&raster, &coarse, settings.padding, listener);
        times.push(("finish", t.elapsed()));
        let t = Instant::now();
        let encoding = self.encoding(MapSpace::Object, format);
        let stored = self.encode(&map, &encoding, &what, listener)?;
        times.push(("store", t.elapsed()));
        Ok(Baked {
            times,
            map,
            stored,
            map_uvs,
        })
    }

    /// Stores an already baked map (a [`Baked::map`] in another format, or an authored one) as
    /// the options ask, `what` naming it in warnings: a tangent-space map with a tilt and a
    /// twist needs four channels (BC7 where BC5 was asked for, with a warning); an object-space
    /// map keeps its handedness plane (its handedness need not follow the UV winding).
    ///
    /// # Errors
    /// What the encoder reports.
    pub fn store(
        &self,
        map: &QuatMap,
        space: MapSpace,
        what: &str,
        listener: &mut dyn Listener,
    ) -> Result<EncodedMap, BakeError> {
        let size = (map.width(), map.height());
        let four = space == MapSpace::Tangent && tangent::has_twist(map) && tangent::has_tilt(map);
        let format = self.choose(space, four, size, what, listener);
        let encoding = Encoding {
            keep_handedness: space == MapSpace::Object,
            ..self.encoding(space, format)
        };
        encode_fitting(map, encoding, what, listener)
    }

    /// How the options store a map of `space` in `format`.
    fn encoding(&self, space: MapSpace, format: MapFormat) -> Encoding {
        Encoding {
            keep_handedness: self.options.keep_handedness,
            bc7: self.options.bc7,
            encoder: self.options.encoder,
            ..Encoding::new(space, format)
        }
    }

    /// Encodes a baked map.
    fn encode(
        &self,
        map: &QuatMap,
        encoding: &Encoding,
        what: &str,
        listener: &mut dyn Listener,
    ) -> Result<EncodedMap, BakeError> {
        listener.stage("store", 0, 1);
        encode_fitting(map, *encoding, what, listener).map_err(|e| BakeError::Mesh {
            label: what.to_string(),
            problem: e.to_string(),
        })
    }

    /// The format a map of `space` and `size` is stored in: the one asked for, or the compressed
    /// default. Where that cannot hold the map, the nearest that can, with a warning: BC5 (two
    /// numbers a texel) asked of an object-space map becomes BC7, of a tilt with a twist two BC5
    /// layers; a block format of a size BC cannot take (a side not a multiple of 4) becomes
    /// rgba16f.
    fn choose(
        &self,
        space: MapSpace,
        four_channels: bool,
        size: (u32, u32),
        what: &str,
        listener: &mut dyn Listener,
    ) -> MapFormat {
        let mut format = match self.options.format {
            Some(MapFormat::Bc5) if space == MapSpace::Object || four_channels => {
                let kind = WarningKind::Bc5CannotHold {
                    object_space: space == MapSpace::Object,
                };
                listener.warning(Warning::new(what, kind));
                if space == MapSpace::Object {
                    MapFormat::Bc7
                } else {
                    MapFormat::Bc5Pair
                }
            }
            Some(f) => f,
            None => MapFormat::default_holding(space, four_channels),
        };
        if format.is_compressed() && bc::check_size(size.0, size.1).is_err() {
            let kind = WarningKind::NotBlockSized {
                format: format.name(),
                width: size.0,
                height: size.1,
            };
            listener.warning(Warning::new(what, kind));
            format = MapFormat::Rgba16Float;
        }
        format
    }
}
