//! Quaternion maps: textures that store a whole tangent frame per texel (trick #3 of "Quaternion Tricks"),
//! baked from a mesh's vertex frames and, optionally, its tangent-space normal map. CPU only:
//! the GPU baker in `crate::gpu::bake` produces the same raster, and everything after the
//! raster stage (`post.rs`: hemisphere choice, seam padding, mips, statistics) is shared.
//!
//! # The map
//!
//! - **RGBA** holds the unit quaternion (x, y, z, w) of the rotation `[t, cross(n, t), n]` (the
//!   same rotation as [`crate::QTangent`]), in object space: the space of the vertex data.
//!   Decode: `normalize(sample)` → matrix; column 2 is the normal, column 0 the tangent.
//! - **Handedness** is a separate plane (±1, 0 for background texels never reached): in a map
//!   the sign of q must stay free for the hemisphere rule below, so it cannot hold the
//!   reflection as the vertex formats do. The normal and tangent come from RGBA alone; the
//!   plane is needed only for the sign of the bitangent.
//! - **Hemisphere rule**: q and −q are the same rotation, but bilinear filtering between them
//!   cancels. The bake picks the sign of every texel by a breadth-first flood fill over each
//!   island (4-neighbours), each texel taking the sign that agrees (dot ≥ 0) with the texel it
//!   was reached from, so hardware filtering followed by normalisation (nlerp) decodes the
//!   right frame. Pairs that still disagree (across hard edges, seams that meet in texture
//!   space, or loops the field cannot close) are counted in [`MapStats::hemisphere_conflicts`].
//! - **Padding**: texels within `texel::FRINGE_RADIUS` of a triangle but outside all of them
//!   (the *fringe*) are baked from the nearest point of the nearest triangle, so bilinear
//!   filtering anywhere inside a triangle never reads background; `padding` more rings are then
//!   grown outward by hemisphere-aligned averaging, for mips.
//! - **Mips**: each texel of level k+1 is the normalised sum of its (up to four) non-background
//!   children, each first flipped to agree with the first, then re-quantised.
//! - **Overlaps**: where several triangles cover a texel (mirrored or stacked UV islands) the
//!   lowest-numbered triangle wins; the texels are counted in [`MapStats::overlapping`].

pub(crate) mod anisotropy;
pub(crate) mod atlas;
pub(crate) mod bake;
pub(crate) mod bc;
pub(crate) mod cpu;
mod format;
pub(crate) mod io;
pub(crate) mod job;
pub(crate) mod normal_map;
pub(crate) mod post;
mod scene_maps;
pub(crate) mod stored;
pub(crate) mod tangent;
pub(crate) mod texel;

use std::path::PathBuf;

use glam::{Vec2, Vec4};

pub use anisotropy::DirectionField;
pub use bake::{Baked, Baker, MapOptions, ObjectInput, RasterBackend, Repack, TangentInput};
#[cfg_attr(not(all(feature = "gpu", feature = "gltf")), allow(unused_imports))]
pub(crate) use bake::{LevelInputs, RasterStages};
pub use bc::{Bc7Quality, BcEncoder, BcError};
pub(crate) use cpu::raster_cpu;
pub use format::{MapDecode, MapFormat, MapSpace};
#[cfg(all(test, feature = "render"))]
pub(crate) use io::{decode_axis, PreviewAxis};
#[cfg(all(test, feature = "exr", feature = "render"))]
pub(crate) use io::{read_exr, ExrMap};
pub use job::{BakeJob, Container, JobMap, NormalSource, OutputFile};
pub use normal_map::NormalMap;
#[cfg_attr(not(feature = "gltf"), allow(unused_imports))]
pub(crate) use scene_maps::SceneMap;
pub use scene_maps::{MapKinds, MapOrigin, SceneMaps};
pub use stored::EncodedMap;
use texel::BakeTriangle;

use crate::mesh::Prepared;
use crate::TangentFrame;

/// What a texel of level 0 is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum TexelKind {
    /// Outside every triangle and beyond the padding: never written (quaternion 0, handedness 0).
    #[default]
    Background = 0,
    /// Its centre is inside a triangle.
    Covered = 1,
    /// Within `texel::FRINGE_RADIUS` texels of a triangle, baked from its nearest point.
    Fringe = 2,
    /// Grown by the padding rings.
    Padded = 3,
}

/// What a bake needs of a mesh: UVs (glTF convention, top-left origin), object-space frames and
/// triangles. Several primitives sharing a material are concatenated; triangle ids (which win
/// overlaps, lowest first) follow that order.
#[derive(Debug, Clone, Default)]
pub struct BakeMesh {
    /// What the map is of, for messages ("file: material 'X'").
    pub label: String,
    /// Per-vertex UVs.
    pub(crate) uvs: Vec<Vec2>,
    /// Per-vertex frames.
    pub frames: Vec<TangentFrame>,
    /// Triangle list.
    pub indices: Vec<u32>,
}

impl BakeMesh {
    /// Concatenates prepared primitives and orders the triangles island by island
    /// (`BakeMesh::ordered_by_island`), so that where islands overlap (mirrored halves sharing
    /// UVs) one whole island wins rather than a mosaic of both.
    #[must_use]
    pub fn from_prepared(label: impl Into<String>, prims: &[&Prepared]) -> Self {
        let mut m = Self {
            label: label.into(),
            ..Self::default()
        };
        for p in prims {
            let base = m.uvs.len() as u32;
            m.uvs.extend_from_slice(&p.uvs);
            m.frames.extend_from_slice(&p.frames);
            m.indices.extend(p.indices.iter().map(|i| i + base));
        }
        m.ordered_by_island()
    }

    /// The UV island of every triangle: triangles sharing an edge whose two UVs are equal (bit
    /// for bit; vertices split for their frames still share UVs) belong to one island. Islands
    /// are numbered in the order of their first triangle.
    #[must_use]
    pub(crate) fn islands(&self) -> Vec<u32> {
        let n = self.triangle_count();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let key = |v: u32| {
            let uv = self.uvs[v as usize];
            (uv.x.to_bits(), uv.y.to_bits())
        };
        type UvBits = (u32, u32);
        let mut edges: std::collections::HashMap<(UvBits, UvBits), usize> =
            std::collections::HashMap::with_capacity(3 * n);
        for t in 0..n {
            for c in 0..3 {
                let (a, b) = (
                    key(self.indices[3 * t + c]),
                    key(self.indices[3 * t + (c + 1) % 3]),
                );
                let e = if a <= b { (a, b) } else { (b, a) };
                let other = *edges.entry(e).or_insert(t);
                let (ra, rb) = (root(&mut parent, t), root(&mut parent, other));
                if ra != rb {
                    parent[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let mut number = vec![u32::MAX; n];
        let mut next = 0;
        (0..n)
            .map(|t| {
                let r = root(&mut parent, t);
                if number[r] == u32::MAX {
                    number[r] = next;
                    next += 1;
                }
                number[r]
            })
            .collect()
    }

    /// The same mesh with its triangles grouped island by island ([`BakeMesh::islands`]),
    /// islands in the order of their first triangle, triangles within an island in their
    /// original order. Both bakers let the lowest-numbered triangle win an overlap, so after this
    /// the earliest island wins whole.
    #[must_use]
    pub(crate) fn ordered_by_island(&self) -> Self {
        let islands = self.islands();
        let mut order: Vec<usize> = (0..self.triangle_count()).collect();
        order.sort_by_key(|&t| islands[t]);
        Self {
            label: self.label.clone(),
            uvs: self.uvs.clone(),
            frames: self.frames.clone(),
            indices: order
                .iter()
                .flat_map(|&t| self.indices[3 * t..3 * t + 3].iter().copied())
                .collect(),
        }
    }

    /// Number of triangles.
    #[must_use]
    pub(crate) fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Number of triangles with a vertex outside the [0, 1]² UV square (only the part inside
    /// is baked).
    #[must_use]
    pub(crate) fn triangles_outside_unit_square(&self) -> usize {
        let outside = |uv: &Vec2| !(0.0..=1.0).contains(&uv.x) || !(0.0..=1.0).contains(&uv.y);
        self.indices
            .chunks_exact(3)
            .filter(|t| {
                t.iter()
                    .any(|&v| self.uvs.get(v as usize).is_some_and(outside))
            })
            .count()
    }

    /// Checks what the bakers rely on: whole triangles, indices in range, finite UVs, matching
    /// lengths, at least one triangle.
    ///
    /// # Errors
    /// [`BakeError::Mesh`] naming the problem.
    pub(crate) fn validate(&self) -> Result<(), BakeError> {
        let fail = |problem: String| {
            Err(BakeError::Mesh {
                label: self.label.clone(),
                problem,
            })
        };
        if self.uvs.len() != self.frames.len() {
            return fail(format!(
                "{} UVs but {} frames",
                self.uvs.len(),
                self.frames.len()
            ));
        }
        if self.indices.is_empty() || !self.indices.len().is_multiple_of(3) {
            return fail(format!(
                "{} indices is not a whole, non-empty triangle list",
                self.indices.len()
            ));
        }
        if let Some(i) = self.indices.iter().find(|&&i| i as usize >= self.uvs.len()) {
            return fail(format!(
                "index {i} is out of range for {} vertices",
                self.uvs.len()
            ));
        }
        if let Some(v) = self.uvs.iter().position(|uv| !uv.is_finite()) {
            return fail(format!("vertex {v} has a non-finite UV"));
        }
        if self.triangle_count() >= 1 << 28 {
            return fail(format!("{} triangles is too many", self.triangle_count()));
        }
        Ok(())
    }

    /// Triangle `i` in texel units for a `width × height` map.
    #[must_use]
    pub(crate) fn triangle(&self, i: usize, width: u32, height: u32) -> BakeTriangle {
        let size = Vec2::new(width as f32, height as f32);
        let idx = [0, 1, 2].map(|k| self.indices[3 * i + k] as usize);
        BakeTriangle {
            p: idx.map(|v| self.uvs[v] * size),
            frames: idx.map(|v| self.frames[v]),
        }
    }
}

/// How to bake: the map's `width` and `height` in texels, the `padding` rings grown beyond the
/// fringe (default 4) and the raster `format` (default [`MapFormat::Rgba16Float`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BakeSettings {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) padding: u32,
    pub(crate) format: MapFormat,
}

impl Default for BakeSettings {
    fn default() -> Self {
        Self {
            width: 2048,
            height: 2048,
            padding: 4,
            format: MapFormat::Rgba16Float,
        }
    }
}

/// How many levels coarser than its size each level of an object-space map below level 0 reads
/// the normal map, and how many levels finer than its footprint
/// the renderer samples the map (`QMAP_OBJECT_LOD_BIAS`, generated into the WGSL from this).
/// The map carries two kinds of detail: the mesh's own frame variation, which the vertex
/// interpolation it replaces never filters, and the normal map's, which the renderer filters by
/// its mips. Sampled a level finer, the first keeps twice the density; baked a level coarser,
/// the second is filtered as the normal map's own mips filter it. docs/MAPS.md ("Mip levels of
/// object-space maps") has the measurements.
pub(crate) const OBJECT_LOD_SHIFT: u32 = 1;

/// The raster stage's output (level 0, before hemisphere choice and padding): what the GPU
/// baker reads back and the CPU reference computes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Raster {
    /// Width in texels.
    pub(crate) width: u32,
    /// Height in texels.
    pub(crate) height: u32,
    /// Format the quaternions were quantised to.
    pub(crate) format: MapFormat,
    /// Quantised quaternions, w ≥ 0 as baked (before the hemisphere rule); 0 for background.
    pub(crate) quats: Vec<Vec4>,
    /// ±1, 0 for background.
    pub(crate) handedness: Vec<i8>,
    /// Covered, fringe or background.
    pub kind: Vec<TexelKind>,
    /// The triangle that wrote the texel; `u32::MAX` for background.
    pub(crate) triangle: Vec<u32>,
    /// How many triangles cover the texel centre (saturating at `u16::MAX`).
    pub(crate) coverage: Vec<u16>,
    /// Triangles skipped because their UV area is (nearly) zero (`texel::MIN_AREA2`).
    pub(crate) degenerate_triangles: usize,
    /// Triangles baked.
    pub(crate) triangles: usize,
}

impl Raster {
    /// An empty raster (all background).
    #[must_use]
    pub(crate) fn empty(width: u32, height: u32, format: MapFormat) -> Self {
        let n = width as usize * height as usize;
        Self {
            width,
            height,
            format,
            quats: vec![Vec4::ZERO; n],
            handedness: vec![0; n],
            kind: vec![TexelKind::Background; n],
            triangle: vec![u32::MAX; n],
            coverage: vec![0; n],
            degenerate_triangles: 0,
            triangles: 0,
        }
    }
}

/// One mip level.
#[derive(Debug, Clone, PartialEq)]
pub struct MapLevel {
    /// Width in texels.
    pub(crate) width: u32,
    /// Height in texels.
    pub(crate) height: u32,
    /// Quantised quaternions, hemisphere-aligned; 0 for background.
    pub quats: Vec<Vec4>,
    /// ±1, 0 for background.
    pub handedness: Vec<i8>,
}

/// What a bake did, for the summary line and `--json`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MapStats {
    /// Map width.
    pub width: u32,
    /// Map height.
    pub height: u32,
    /// Triangles baked.
    pub triangles: usize,
    /// Triangles skipped for (nearly) zero UV area.
    pub degenerate_triangles: usize,
    /// Texels whose centre is inside a triangle.
    pub covered: usize,
    /// Texels covered by more than one triangle (overlapping UV islands).
    pub overlapping: usize,
    /// Fringe texels (near a triangle, outside all).
    pub fringe: usize,
    /// Texels grown by the padding rings.
    pub padded: usize,
    /// Texels left as background.
    pub background: usize,
    /// Horizontally or vertically neighbouring pairs of non-background texels.
    pub neighbour_pairs: usize,
    /// Of those, pairs whose quaternions still disagree (dot < 0).
    pub hemisphere_conflicts: usize,
    /// Neighbouring pairs of covered texels.
    pub covered_pairs: usize,
    /// Of those, pairs that disagree.
    pub covered_conflicts: usize,
    /// Texels whose handedness is −1.
    pub mirrored: usize,
}

impl MapStats {
    /// Fraction of neighbouring non-background pairs that disagree.
    #[must_use]
    pub fn conflict_fraction(&self) -> f64 {
        self.hemisphere_conflicts as f64 / self.neighbour_pairs.max(1) as f64
    }
}

/// A finished quaternion map: level 0 and its mips.
#[derive(Debug, Clone, PartialEq)]
pub struct QuatMap {
    /// Storage format.
    pub format: MapFormat,
    /// Level 0 first, down to 1×1.
    pub levels: Vec<MapLevel>,
    /// What each texel of level 0 is.
    pub kind: Vec<TexelKind>,
    /// The triangle each level-0 texel was baked from (`u32::MAX` for padded and background).
    pub triangle: Vec<u32>,
    /// Counts.
    pub stats: MapStats,
}

impl QuatMap {
    /// Width of level 0 (`stats.width` to a user).
    #[must_use]
    pub(crate) fn width(&self) -> u32 {
        self.levels[0].width
    }

    /// Height of level 0 (`stats.height` to a user).
    #[must_use]
    pub(crate) fn height(&self) -> u32 {
        self.levels[0].height
    }
}

/// A bake failed.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// The mesh cannot be baked.
    #[error("{label}: {problem}")]
    Mesh {
        /// Which mesh / material.
        label: String,
        /// What is wrong.
        problem: String,
    },
    /// A normal map could not be read.
    #[error("{}: normal map {image}: {problem}", mesh.display())]
    Image {
        /// The mesh file that refers to it.
        mesh: PathBuf,
        /// The image (path or description).
        image: String,
        /// What failed.
        problem: String,
    },
    /// A size the settings ask for is out of range, or a stored map is inconsistent.
    #[error("{0}")]
    Settings(String),
    /// The stored format cannot hold the map.
    #[error("{format} cannot hold {unfit}")]
    Unfit {
        /// The format asked for.
        format: MapFormat,
        /// What of the map it cannot hold.
        unfit: Unfit,
    },
    /// A KTX2 file could not be encoded or written (the error names the file).
    #[error(transparent)]
    Ktx2(#[from] crate::ktx2::Ktx2Error),
    /// A primitive of the mesh could not be prepared (normals, tangents, seam splits).
    #[error(transparent)]
    Prepare(#[from] crate::mesh::MeshError),
    /// The raster backend (the GPU) failed.
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
    /// Writing an output file failed.
    #[error("writing {}: {problem}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What failed.
        problem: String,
    },
}

/// What of a map a format cannot hold ([`BakeError::Unfit`]): BC5 (two channels) an object-space
/// map or a tilt with a twist, two BC5 layers a handedness plane; BC7 holds all three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfit {
    /// An object-space map: all four components of its quaternions (BC5 holds (x, y) of a
    /// tangent-space rotation).
    ObjectSpace,
    /// A tangent-space map with a tilt (x, y ≠ 0) and a twist (z ≠ 0): two numbers a texel
    /// are one or the other.
    TiltAndTwist,
    /// An object-space map that keeps its handedness plane: two BC5 layers take the plane's
    /// texture for (z, w), so the handedness must be derived from the UV winding.
    HandednessPlane,
    /// A tangent-space map with normals tilted past the horizon (n.z < 0): two BC5 layers hold
    /// the normal's (x, y) and rebuild z ≥ 0.
    TiltPastHorizon,
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::ObjectSpace => {
                "an object-space map: it holds two channels, (x, y) of a tangent-space rotation, and the map needs all four"
            }
            Self::TiltAndTwist => {
                "this tangent-space map: it holds two numbers a texel, and the map has a tilt (x, y ≠ 0) and a twist (z ≠ 0)"
            }
            Self::HandednessPlane => {
                "a handedness plane: its second layer, (z, w), takes the plane's place; derive the handedness from the UV winding instead"
            }
            Self::TiltPastHorizon => {
                "normals tilted past the horizon (n.z < 0): its first layer holds a tangent-space normal's (x, y) and rebuilds z ≥ 0"
            }
        })
    }
}

/// The largest side of a baked map, in texels. The bakers keep about 45 bytes per texel on the
/// host (raster, finished levels, statistics), 12 GB at 16384²; the GPU baker also checks the
/// adapter's texture limit.
pub const MAX_MAP_SIZE: u32 = 16384;

/// Checks the map size: at least 1×1 and at most [`MAX_MAP_SIZE`] on a side.
///
/// # Errors
/// [`BakeError::Settings`].
pub(crate) fn check_settings(s: &BakeSettings) -> Result<(), BakeError> {
    const MAX: u32 = MAX_MAP_SIZE;
    if s.width == 0 || s.height == 0 || s.width > MAX || s.height > MAX {
        return Err(BakeError::Settings(format!(
            "map size {}×{} is out of range (1 to {MAX} texels a side)",
            s.width, s.height
        )));
    }
    Ok(())
}

/// Bakes on the CPU as [`Baker::object`] bakes a map that keeps the mesh's UVs and has no
/// anisotropy direction, at any width and height: every level rastered ([`CpuRaster`]), the
/// normal map read at each level's size (one level coarser below level 0, see
/// `OBJECT_LOD_SHIFT`), then padding and the hemisphere rule: the tests' reference, at the
/// sizes and paddings they choose.
///
/// # Errors
/// As `BakeMesh::validate` and [`check_settings`].
#[cfg(test)]
pub(crate) fn bake_cpu(
    mesh: &BakeMesh,
    normal_map: Option<&NormalMap>,
    settings: &BakeSettings,
    listener: &mut dyn crate::report::Listener,
) -> Result<QuatMap, BakeError> {
    let levels = bake::LevelInputs {
        mesh,
        normal_map,
        direction: None,
        own_uvs: None,
        settings: *settings,
    };
    let (raster, coarse) = bake::raster_levels(&bake::CpuRaster, &levels, listener)?;
    Ok(post::finish_levels(
        &raster,
        &coarse,
        settings.padding,
        listener,
    ))
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../tests/unit/qmap/mod.rs"]
mod tests;
