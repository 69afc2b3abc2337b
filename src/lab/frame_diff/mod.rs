//! Comparing the tangent frames of two files of one asset: a **source** and a **candidate** that
//! a tool rewrote (gltfpack, qtangent's `pack`). CPU only.
//!
//! Such tools reorder vertices, merge and split meshes, quantise positions and UVs and move the
//! dequantisation into node transforms (or, for skinned meshes, into the inverse bind matrices).
//! So vertices are compared where they are drawn:
//!
//! 1. `WorldVertices::from_scene` prepares every primitive ([`Scene::prepare`]: supplied or
//!    generated frames, mirror-seam splits) and places every vertex of every instance in world
//!    space. A rigid instance uses its node's world matrix; a **skinned** one ignores its node
//!    (glTF 2.0 §3.7.3.3) and is put in its bind pose, `p' = Σ wᵢ · joint_worldᵢ ·
//!    inverse_bindᵢ · p` with the weights renormalised, which is where gltfpack's dequantisation
//!    of skinned positions lives. Tangents and bitangents go through the linear part `L` of the
//!    matrix, normals through `L⁻ᵀ`, each renormalised.
//! 2. `compare_frames` matches every candidate vertex to the nearest source vertex whose position and
//!    UV both lie within a `Tolerance` (from the quantisation: `Tolerance::for_quantisation`),
//!    and measures the angle between the matched frames' normals, tangents and bitangents, how
//!    many kept their handedness, and which vertices found no partner on either side.
//!
//! Source vertices within the tolerance of a candidate vertex cannot be told apart by where they
//! are: mirror-seam splits and hard edges coincide exactly, and files carry near-twins whose UVs
//! differ by less than a quantisation step but whose tangents differ by tens of degrees
//! (FlightHelmet has such pairs). The candidate vertex is matched to the one of them whose frame
//! is nearest its own (the smallest of the largest n, t, b angle), then to the nearest in
//! position and UV. Of the readings the file allows, that is the one kindest to the tool: the
//! errors measured are lower bounds where vertices are ambiguous, exact elsewhere.

#[cfg(feature = "gltf")]
mod attribute_bytes;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use glam::{Mat3, Mat4, Vec2, Vec3};

#[cfg(feature = "gltf")]
pub(crate) use attribute_bytes::{frame_attribute_bytes, FrameAttributeBytes};

use crate::frame::TangentFrame;
use crate::lab::LabError;
use crate::measure::{angle_deg, ErrorStat, FrameErrors};
use crate::mesh::{self, Prepared, Scene};

/// The distance between two UVs; 0 when either side has none (NaN).
fn uv_distance(a: Vec2, b: Vec2) -> f32 {
    if a.is_nan() || b.is_nan() {
        0.0
    } else {
        a.distance(b)
    }
}

/// Every drawn vertex of a scene in world space (rigid instances by their node, skinned ones in
/// the bind pose), with its UV and its prepared frame turned into world space.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct WorldVertices {
    /// World-space positions.
    positions: Vec<Vec3>,
    /// UV set 0 (NaN where a primitive has none: a file that leaves out UVs nothing reads
    /// matches by position alone there, [`uv_distance`]).
    uvs: Vec<Vec2>,
    /// World-space frames: each vector unit length, not re-orthonormalised (a non-uniform scale
    /// tilts them alike in both files).
    frames: Vec<TangentFrame>,
}

impl WorldVertices {
    /// Loads nothing: prepares `scene` and places its vertices (see the module docs). Meshes
    /// that no node uses are not drawn and not included.
    ///
    /// # Errors
    /// A primitive that does not prepare; a skinned vertex whose joint is outside its skin,
    /// whose weights sum to zero or whose bind-pose matrix is singular.
    pub(crate) fn from_scene(scene: &Scene) -> Result<Self, LabError> {
        let prepared = scene.prepare()?;
        Self::from_prepared(scene, &prepared)
    }

    /// As [`WorldVertices::from_scene`], with the primitives already prepared (`prepared[i]` is
    /// the `i`-th of [`Scene::primitives`], as [`Scene::prepare`] returns them).
    ///
    /// # Errors
    /// As [`WorldVertices::from_scene`], but for preparing.
    pub(crate) fn from_prepared(scene: &Scene, prepared: &[Prepared]) -> Result<Self, LabError> {
        let mut out = Self::default();
        let mut next = prepared.iter();
        for mesh in &scene.meshes {
            let prims: Vec<&Prepared> = next.by_ref().take(mesh.primitives.len()).collect();
            for instance in &mesh.instances {
                for (p, loaded) in prims.iter().zip(&mesh.primitives) {
                    let first = out.uvs.len();
                    match instance.skin.and_then(|s| scene.skins.get(s)) {
                        Some(skin) => out.push_skinned(scene, p, skin)?,
                        None => out.push_rigid(scene, p, instance.world)?,
                    }
                    if loaded.uvs.is_none() {
                        out.uvs[first..].fill(Vec2::NAN);
                    }
                }
            }
        }
        Ok(out)
    }

    fn push_rigid(&mut self, scene: &Scene, p: &Prepared, world: Mat4) -> Result<(), LabError> {
        let linear = Placement::new(world).ok_or_else(|| LabError::Vertex {
            file: scene.source.clone(),
            label: p.label.clone(),
            vertex: 0,
            problem: format!("the node's world matrix is singular: {world}"),
        })?;
        for v in 0..p.positions.len() {
            self.push(&linear, p, v);
        }
        Ok(())
    }

    fn push_skinned(
        &mut self,
        scene: &Scene,
        p: &Prepared,
        skin: &crate::mesh::Skin,
    ) -> Result<(), LabError> {
        let err = |vertex: usize, problem: String| LabError::Vertex {
            file: scene.source.clone(),
            label: p.label.clone(),
            vertex,
            problem,
        };
        if p.joints.is_empty() || p.weights.is_empty() {
            return Err(err(
                0,
                format!(
                    "the node uses skin '{}' but the primitive has no JOINTS_0/WEIGHTS_0",
                    skin.name
                ),
            ));
        }
        // Each joint's bind matrix: joint_world · inverse_bind (the skin matrix in the rest pose).
        let bind: Vec<Mat4> = skin
            .joint_world
            .iter()
            .zip(&skin.inverse_bind)
            .map(|(w, ib)| *w * *ib)
            .collect();
        for v in 0..p.positions.len() {
            let mut sum = Mat4::ZERO;
            let mut total = 0.0f32;
            for (joints, weights) in p.joints.iter().zip(&p.weights) {
                for (&j, &w) in joints[v].iter().zip(&weights[v]) {
                    if w == 0.0 {
                        continue;
                    }
                    let m = bind.get(usize::from(j)).ok_or_else(|| {
                        err(
                            v,
                            format!(
                                "joint {j} is outside skin '{}' ({} joints)",
                                skin.name,
                                bind.len()
                            ),
                        )
                    })?;
                    sum += *m * w;
                    total += w;
                }
            }
            if total <= 0.0 {
                return Err(err(v, "its skin weights sum to zero".into()));
            }
            let m = sum * total.recip();
            let placement = Placement::new(m)
                .ok_or_else(|| err(v, format!("its bind-pose matrix is singular: {m}")))?;
            self.push(&placement, p, v);
        }
        Ok(())
    }

    fn push(&mut self, placement: &Placement, p: &Prepared, v: usize) {
        let f = &p.frames[v];
        self.positions
            .push(placement.matrix.transform_point3(p.positions[v]));
        self.uvs.push(p.uvs[v]);
        self.frames.push(TangentFrame {
            normal: (placement.normal * f.normal).normalize(),
            tangent: (placement.linear * f.tangent).normalize(),
            bitangent: (placement.linear * f.bitangent).normalize(),
        });
    }

    /// Number of vertices.
    #[must_use]
    pub(crate) fn len(&self) -> usize {
        self.positions.len()
    }

    #[cfg(test)]
    /// True when the scene draws no vertex.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// A world matrix, its linear part and the normals' matrix `L⁻ᵀ`.
struct Placement {
    matrix: Mat4,
    linear: Mat3,
    normal: Mat3,
}

impl Placement {
    /// `None` when the linear part is singular (no normal direction survives).
    fn new(matrix: Mat4) -> Option<Self> {
        let linear = Mat3::from_mat4(matrix);
        let det = linear.determinant();
        (det.is_finite() && det != 0.0).then(|| Self {
            matrix,
            linear,
            normal: linear.inverse().transpose(),
        })
    }
}

/// How far a candidate vertex may lie from its source vertex: the world-space distance of the
/// positions and the distance of the UVs (both Euclidean).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Tolerance {
    /// Largest position distance (world units).
    position: f32,
    /// Largest UV distance.
    uv: f32,
}

impl Tolerance {
    /// Bit-for-bit equal positions and UVs (a file against itself).
    pub(crate) const EXACT: Self = Self {
        position: 0.0,
        uv: 0.0,
    };

    /// For a candidate whose positions were quantised to `position_bits` and its UVs to
    /// `uv_bits` (gltfpack's `-vp` and `-vt`; defaults 14 and 12), derived from `source`:
    ///
    /// - A coordinate quantised over a range of length `E` to `b` bits lands on a grid of step
    ///   `s = E / (2ᵇ − 1)` and moves by at most `s/2` (round to nearest); over 3 axes a position
    ///   moves at most `√3/2 · s`, a UV over 2 axes at most `√2/2 · s`.
    /// - gltfpack may quantise a mesh in its own space, rotated against the world, so `E` for
    ///   positions is the length of the diagonal of the source's world bounding box: no
    ///   rotation of the point set has a bounding box side longer than that. Each mesh's own
    ///   range is inside it, so its step can only be smaller. For UVs (never rotated by
    ///   gltfpack), `E` is the longest side of the UV bounding box over the whole scene
    ///   (gltfpack's ranges are per material, inside it).
    /// - Dequantising in f32 (the file's scale and offset, the loader's node matrices, the
    ///   world transform here) rounds a few times more, each within `ε/2` of the largest
    ///   coordinate `M`; 8 such roundings allow `4ε·M`, doubled for the source's own transforms:
    ///   `8ε·M` is added to each tolerance.
    #[must_use]
    pub(crate) fn for_quantisation(
        source: &WorldVertices,
        position_bits: u32,
        uv_bits: u32,
    ) -> Self {
        let grid = |bits: u32| f64::from(2u32.saturating_pow(bits.clamp(1, 31)) - 1);
        let (pmin, pmax) = bounds(&source.positions);
        let (umin, umax) = bounds2(&source.uvs);
        let p_step = f64::from((pmax - pmin).length()) / grid(position_bits);
        let u_step = f64::from((umax - umin).max_element()) / grid(uv_bits);
        let rounding = Self::for_float(source);
        Self {
            position: (3f64.sqrt() / 2.0 * p_step) as f32 + rounding.position,
            uv: (2f64.sqrt() / 2.0 * u_step) as f32 + rounding.uv,
        }
    }

    /// For a candidate that stores positions and UVs as f32, as qtangent's `pack` does: only
    /// the rounding term of [`Tolerance::for_quantisation`], `8ε·M` (`M` the largest coordinate
    /// of the source's positions, or of its UVs), for the transforms both files go through.
    #[must_use]
    pub(crate) fn for_float(source: &WorldVertices) -> Self {
        let (pmin, pmax) = bounds(&source.positions);
        let (umin, umax) = bounds2(&source.uvs);
        let rounding = |big: f32| 8.0 * f32::EPSILON * big;
        Self {
            position: rounding(pmin.abs().max(pmax.abs()).max_element()),
            uv: rounding(umin.abs().max(umax.abs()).max_element()),
        }
    }
}

/// The bounding box of `v` (zero for none).
fn bounds(v: &[Vec3]) -> (Vec3, Vec3) {
    let first = v.first().copied().unwrap_or(Vec3::ZERO);
    v.iter()
        .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)))
}

/// The bounding box of `v` (zero for none).
fn bounds2(v: &[Vec2]) -> (Vec2, Vec2) {
    let mut present = v.iter().filter(|uv| !uv.is_nan());
    let first = present.next().copied().unwrap_or(Vec2::ZERO);
    present.fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)))
}

/// The result of [`compare_frames`].
#[derive(Debug, Clone, Default)]
pub(crate) struct FrameDiff {
    /// Angles (degrees) between the matched frames' normals, tangents and bitangents, and the
    /// handedness changes, over the matched candidate vertices (`errors.frames` of them).
    errors: FrameErrors,
    /// Vertices in the source.
    source_vertices: usize,
    /// Vertices in the candidate.
    candidate_vertices: usize,
    /// Candidate vertices with no source vertex within the tolerance.
    unmatched: usize,
    /// Source vertices with no candidate vertex within the tolerance (dropped by the tool; a
    /// merged duplicate still has its twin's partner and is not counted).
    uncovered: usize,
    /// For each candidate vertex, the source vertex it was matched to.
    matches: Vec<Option<u32>>,
    /// The largest distance between a matched pair's world positions.
    position_error: f32,
    /// The largest distance between a matched pair's UVs.
    uv_error: f32,
}

impl FrameDiff {
    /// The share of matched vertices whose handedness survived (1 when none were matched).
    #[must_use]
    pub(crate) fn handedness_kept(&self) -> f64 {
        if self.errors.frames == 0 {
            1.0
        } else {
            1.0 - self.errors.handedness_errors as f64 / self.errors.frames as f64
        }
    }
}

/// One matched vertex and its angles, for reports ([`FrameDiff::worst`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct VertexDiff {
    /// The candidate's vertex.
    candidate: usize,
    /// The source vertex it was matched to.
    source: usize,
    /// Angles (degrees) between the normals, tangents and bitangents.
    angles: [f64; 3],
}

impl FrameDiff {
    /// The `n` matched vertices with the largest angle (of n, t and b), largest first, for
    /// finding out where an error comes from. `source` and `candidate` are the vertices this
    /// diff was made from.
    #[must_use]
    pub(crate) fn worst(
        &self,
        source: &WorldVertices,
        candidate: &WorldVertices,
        n: usize,
    ) -> Vec<VertexDiff> {
        let mut all: Vec<VertexDiff> = self
            .matches
            .iter()
            .enumerate()
            .filter_map(|(c, m)| {
                let s = (*m)? as usize;
                let (a, b) = (&source.frames[s], &candidate.frames[c]);
                Some(VertexDiff {
                    candidate: c,
                    source: s,
                    angles: [
                        angle_deg(a.normal, b.normal),
                        angle_deg(a.tangent, b.tangent),
                        angle_deg(a.bitangent, b.bitangent),
                    ],
                })
            })
            .collect();
        let worst = |d: &VertexDiff| d.angles.into_iter().fold(0.0, f64::max);
        all.sort_by(|a, b| worst(b).total_cmp(&worst(a)));
        all.truncate(n);
        all
    }
}

/// Matches `candidate`'s vertices to `source`'s within `tolerance` (the nearest frame among
/// those within it, see the module docs) and measures the frames.
#[must_use]
pub(crate) fn compare_frames(
    source: &WorldVertices,
    candidate: &WorldVertices,
    tolerance: Tolerance,
) -> FrameDiff {
    let grid = Grid::new(source, tolerance);
    let mut diff = FrameDiff {
        source_vertices: source.len(),
        candidate_vertices: candidate.len(),
        ..FrameDiff::default()
    };
    for c in 0..candidate.len() {
        let (p, uv, frame) = (
            candidate.positions[c],
            candidate.uvs[c],
            &candidate.frames[c],
        );
        // Every source vertex within the tolerance is where this one could have come from: the
        // nearest frame decides, then the nearest position and UV (in units of the tolerance).
        let key = |s: u32| {
            let s = s as usize;
            let dp = (source.positions[s] - p).length() / tolerance.position.max(f32::MIN_POSITIVE);
            let du = uv_distance(source.uvs[s], uv) / tolerance.uv.max(f32::MIN_POSITIVE);
            (frame_angle_deg(&source.frames[s], frame), dp * dp + du * du)
        };
        let chosen = grid
            .near(source, p, uv)
            .into_iter()
            .map(|s| (s, key(s)))
            .min_by(|(_, a), (_, b)| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let Some((chosen, _)) = chosen else {
            diff.unmatched += 1;
            diff.matches.push(None);
            continue;
        };
        diff.errors.add(&source.frames[chosen as usize], frame);
        let s = chosen as usize;
        diff.position_error = diff.position_error.max(source.positions[s].distance(p));
        diff.uv_error = diff.uv_error.max(uv_distance(source.uvs[s], uv));
        diff.matches.push(Some(chosen));
    }
    let back = Grid::new(candidate, tolerance);
    diff.uncovered = (0..source.len())
        .filter(|&s| {
            back.near(candidate, source.positions[s], source.uvs[s])
                .is_empty()
        })
        .count();
    diff
}

/// The largest of the angles (degrees) between two frames' normals, tangents and bitangents.
fn frame_angle_deg(a: &TangentFrame, b: &TangentFrame) -> f64 {
    angle_deg(a.normal, b.normal)
        .max(angle_deg(a.tangent, b.tangent))
        .max(angle_deg(a.bitangent, b.bitangent))
}

/// A uniform grid over one side's positions, cells at least as wide as the position tolerance,
/// so every vertex within the tolerance of a point is in the point's cell or a neighbour.
struct Grid {
    cell: f32,
    tolerance: Tolerance,
    cells: HashMap<[i32; 3], Vec<u32>>,
}

impl Grid {
    fn new(side: &WorldVertices, tolerance: Tolerance) -> Self {
        let (lo, hi) = bounds(&side.positions);
        // Wide enough for the tolerance, and for exact matching about a million cells across
        // the bounding box at most, so crowded cells stay rare.
        let cell = tolerance
            .position
            .max((hi - lo).max_element() / 1024.0)
            .max(f32::MIN_POSITIVE);
        let mut cells: HashMap<[i32; 3], Vec<u32>> = HashMap::new();
        for (i, &p) in side.positions.iter().enumerate() {
            cells.entry(Self::key(p, cell)).or_default().push(i as u32);
        }
        Self {
            cell,
            tolerance,
            cells,
        }
    }

    fn key(p: Vec3, cell: f32) -> [i32; 3] {
        // `as` saturates, so far-away points share the edge cells instead of wrapping.
        (p / cell).floor().to_array().map(|x| x as i32)
    }

    /// The vertices of `side` within the tolerance of `p` and `uv`.
    fn near(&self, side: &WorldVertices, p: Vec3, uv: Vec2) -> Vec<u32> {
        let [x, y, z] = Self::key(p, self.cell);
        let mut out = Vec::new();
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let k = [
                        x.saturating_add(dx),
                        y.saturating_add(dy),
                        z.saturating_add(dz),
                    ];
                    let Some(list) = self.cells.get(&k) else {
                        continue;
                    };
                    out.extend(list.iter().copied().filter(|&i| {
                        let i = i as usize;
                        (side.positions[i] - p).length() <= self.tolerance.position
                            && uv_distance(side.uvs[i], uv) <= self.tolerance.uv
                    }));
                }
            }
        }
        out
    }
}

// The `frame_diff` tool's job in one call: both files loaded and compared, and the result as
// a text report or as one row of the gltfpack table (`cargo xtask gltfpack-table`).

/// How far a candidate vertex may lie from its source vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// Bit-for-bit equal positions and UVs (a file against itself).
    Exact,
    /// The candidate stores f32 positions and UVs (qtangent's `pack`): rounding only.
    Float,
    /// The candidate's positions and UVs were quantised to these bits (gltfpack's `-vp` and
    /// `-vt`; its defaults are 14 and 12).
    Quantised {
        /// Position bits.
        position_bits: u32,
        /// UV bits.
        uv_bits: u32,
    },
}

/// What [`diff_files`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffOutput {
    /// The text report, listing the `worst` matched vertices with the largest error.
    Report {
        /// How many of the worst vertices to list (0 for none).
        worst: usize,
    },
    /// One markdown table row labelled `label`, after the table's header when `header`.
    Row {
        /// The row's first cell.
        label: String,
        /// Whether the header and alignment rows come first.
        header: bool,
    },
}

/// The markdown table's header and alignment row.
const HEADER: &str = "| file | size (MB) | without images (kB) | vertices | frame B/vertex | frame attributes | n mean / max (°) | t mean / max (°) | b mean / max (°) | handedness kept | unmatched / uncovered | position / UV error |\n|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|";

/// How far the rewritten file `candidate`'s tangent frames are from those of `source`, the file
/// it was made from (see the module docs for how vertices are matched), with the candidate's
/// frame bytes per vertex and its size read from the file (`?` where it is not glTF): the text
/// `output` asks for, lines ending in `\n`, and how many candidate vertices were matched (0: the
/// files share no vertex, nothing was compared).
///
/// # Errors
/// A file that does not load or prepare, or whose vertices cannot be placed in world space.
pub fn diff_files(
    source: &Path,
    candidate: &Path,
    matching: Matching,
    output: &DiffOutput,
) -> Result<(String, usize), LabError> {
    let s = WorldVertices::from_scene(&mesh::load(source)?)?;
    let c = WorldVertices::from_scene(&mesh::load(candidate)?)?;
    let tolerance = match matching {
        Matching::Exact => Tolerance::EXACT,
        Matching::Float => Tolerance::for_float(&s),
        Matching::Quantised {
            position_bits,
            uv_bits,
        } => Tolerance::for_quantisation(&s, position_bits, uv_bits),
    };
    let diff = compare_frames(&s, &c, tolerance);
    let bytes = Bytes::read(candidate);
    let mut out = String::new();
    match output {
        DiffOutput::Row { label, header } => {
            if *header {
                let _ = writeln!(out, "{HEADER}");
            }
            let _ = writeln!(out, "{}", row(label, &diff, &bytes));
        }
        DiffOutput::Report { worst } => {
            let files = (source, candidate);
            report(&mut out, files, matching, tolerance, &diff, &bytes);
            worst_vertices(&mut out, &diff, (&s, &c), *worst);
        }
    }
    Ok((
        out,
        usize::try_from(diff.errors.frames).unwrap_or(usize::MAX),
    ))
}

/// The candidate's frame bytes, formatted for the table and the report (`None` for a file
/// whose JSON cannot be read, as an OBJ).
struct Bytes(Option<FrameAttributeBytes>);

impl Bytes {
    #[cfg(feature = "gltf")]
    fn read(path: &Path) -> Self {
        Self(frame_attribute_bytes(path).ok())
    }

    #[cfg(not(feature = "gltf"))]
    fn read(_: &Path) -> Self {
        Self(None)
    }
}

fn row(label: &str, d: &FrameDiff, bytes: &Bytes) -> String {
    let pair = |s: &ErrorStat| format!("{:.3} / {:.3}", s.mean(), s.max);
    let (size, data, per_vertex, layouts) = bytes.0.as_ref().map_or_else(
        || ("?".into(), "?".into(), "?".into(), "?".into()),
        |b| {
            (
                format!("{:.2}", b.file_bytes as f64 / 1e6),
                format!(
                    "{:.0}",
                    b.file_bytes.saturating_sub(b.image_bytes) as f64 / 1e3
                ),
                format!("{:.1}", b.per_vertex()),
                b.layouts.join("; "),
            )
        },
    );
    format!(
        "| {label} | {size} | {data} | {} | {per_vertex} | {layouts} | {} | {} | {} | {:.3}% | {} / {} | {:.1e} / {:.1e} |",
        d.candidate_vertices,
        pair(&d.errors.normal),
        pair(&d.errors.tangent),
        pair(&d.errors.bitangent),
        100.0 * d.handedness_kept(),
        d.unmatched,
        d.uncovered,
        d.position_error,
        d.uv_error
    )
}

fn report(
    out: &mut String,
    (source, candidate): (&Path, &Path),
    matching: Matching,
    t: Tolerance,
    d: &FrameDiff,
    bytes: &Bytes,
) {
    let _ = writeln!(
        out,
        "source    {}: {} vertices drawn",
        source.display(),
        d.source_vertices
    );
    let _ = writeln!(
        out,
        "candidate {}: {} vertices drawn",
        candidate.display(),
        d.candidate_vertices
    );
    if let Some(b) = &bytes.0 {
        let _ = writeln!(
            out,
            "          {} bytes ({} without images); frames {:.2} B/vertex: {}",
            b.file_bytes,
            b.file_bytes.saturating_sub(b.image_bytes),
            b.per_vertex(),
            b.layouts.join("; ")
        );
    }
    let how = match matching {
        Matching::Exact => " (exact)".to_string(),
        Matching::Float => " (f32 positions and UVs)".to_string(),
        Matching::Quantised {
            position_bits,
            uv_bits,
        } => format!(" ({position_bits}-bit positions, {uv_bits}-bit UVs)"),
    };
    let _ = writeln!(
        out,
        "tolerance position {:.3e}, uv {:.3e}{how}",
        t.position, t.uv
    );
    let _ = writeln!(
        out,
        "matched   {} of {} candidate vertices ({} unmatched); {} source vertices uncovered",
        d.errors.frames, d.candidate_vertices, d.unmatched, d.uncovered
    );
    let _ = writeln!(
        out,
        "moved     position {:.3e} max (world units), UV {:.3e} max",
        d.position_error, d.uv_error
    );
    for (name, s) in [
        ("normal", &d.errors.normal),
        ("tangent", &d.errors.tangent),
        ("bitangent", &d.errors.bitangent),
    ] {
        let _ = writeln!(out, "{name:<9} mean {:.4}°  max {:.4}°", s.mean(), s.max);
    }
    let _ = writeln!(
        out,
        "handedness kept {:.3}% ({} of {} changed)",
        100.0 * d.handedness_kept(),
        d.errors.handedness_errors,
        d.errors.frames
    );
}

/// The `n` matched vertices with the largest error, with both frames.
fn worst_vertices(
    out: &mut String,
    d: &FrameDiff,
    (source, candidate): (&WorldVertices, &WorldVertices),
    n: usize,
) {
    for w in d.worst(source, candidate, n) {
        let (s, c) = (&source.frames[w.source], &candidate.frames[w.candidate]);
        let _ = writeln!(
            out,
            "worst     candidate {} at {} uv {}: n {:.3}° t {:.3}° b {:.3}°\n          source n {} t {} b {}\n          candidate n {} t {} b {}",
            w.candidate,
            candidate.positions[w.candidate],
            candidate.uvs[w.candidate],
            w.angles[0],
            w.angles[1],
            w.angles[2],
            s.normal,
            s.tangent,
            s.bitangent,
            c.normal,
            c.tangent,
            c.bitangent
        );
    }
}

#[cfg(all(test, feature = "default", feature = "render"))]
#[path = "../../../tests/unit/lab/frame_diff.rs"]
mod tests;
