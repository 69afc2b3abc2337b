//! Tangent frames for every vertex: supplied glTF tangents, or MikkTSpace's (which the glTF 2.0
//! spec recommends) — by default from meshoptimizer's MikkTSpace-compatible generator
//! (`meshopt_generateTangents`), with [`Primitive::exact_mikktspace`] from `bevy_mikktspace`, a
//! byte-identical Rust port of Mikkelsen's reference code — then mirror-seam splitting.
//!
//! # Fallback frames
//! Where no tangent can be had, the frame is built from the normal alone: tangent and bitangent
//! are glam's `Vec3::any_orthonormal_pair` of the normal (Duff et al., "Building an Orthonormal
//! Basis, Revisited", JCGT 2017), handedness +1. That happens for
//! - every vertex of a primitive with no UVs (lighting that needs no tangent is exact; anisotropic
//!   lighting and normal maps have no meaningful direction to use there anyway);
//! - vertices that touch only triangles with degenerate UVs (MikkTSpace gives vertices that also
//!   touch a good triangle that triangle's tangent space, and none to the rest);
//! - supplied tangents that are zero, parallel to the normal or have w = 0.
//!
//! A triangle's UVs are *degenerate* (and counted as such) when the UV edges
//! `e1 = uv1 − uv0`, `e2 = uv2 − uv0` span no area: `|e1 × e2| ≤ 2⁻²³ · |e1| · |e2|` (the sine
//! of the UV angle is below f32's epsilon, or an edge has zero length), so `dP/du` is
//! undefined. Which triangles MikkTSpace itself treats as degenerate is its own (exact-zero)
//! test: a triangle counted here with a tiny non-zero UV area still gives MikkTSpace a
//! (numerically poor) tangent rather than the fallback.
//!
//! Supplied glTF tangents are used only together with supplied normals: glTF 2.0 says that
//! when normals are missing, tangents must be ignored, so both are then generated.
//!
//! # Handedness convention
//! UVs are stored with glTF's top-left origin. MikkTSpace is given `(u, 1 − v)`, so its tangent is
//! `dP/du` and its bitangent `dP/d(1 − v)`: "up" in the image, the direction a normal map's green
//! channel points (glTF and OpenGL normal maps). Unmirrored UVs then have handedness +1, matching
//! the tangents glTF exporters write (FlightHelmet's supplied tangents; tests/it/assets.rs checks).

use std::collections::HashMap;

use bevy_mikktspace::{Geometry, TangentSpace};
use glam::{Vec2, Vec3, Vec4};

use super::{normals, ErrorKind, Primitive};
use crate::frame::TangentFrame;

/// Where a primitive's normals or tangents came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Read from the file.
    Supplied,
    /// Computed (angle-weighted normals; MikkTSpace tangents).
    Generated,
    /// Tangents built from the normal alone because the primitive has no UVs.
    FromNormal,
}

crate::names::named!(Source, "frame source", {
    Supplied => "supplied",
    Generated => "generated",
    FromNormal => "from normal",
});

/// What [`Primitive::prepare`] did, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrimitiveStats {
    /// Vertices in the file.
    pub vertices_in: usize,
    /// Vertices after splitting.
    pub vertices: usize,
    /// Triangles.
    pub triangles: usize,
    /// Where the normals came from.
    pub normals: Source,
    /// Where the tangents came from.
    pub tangents: Source,
    /// Generated normals that fell back to +Z (vertices on zero-area triangles only).
    pub normal_fallbacks: usize,
    /// Triangles whose UVs span no area (see the module docs).
    pub degenerate_uv_triangles: usize,
    /// Triangles whose frames have handedness −1 (mirrored UVs), by majority of their corners.
    pub mirrored_triangles: usize,
    /// Extra vertices made by splitting vertices whose corners disagree on the frame.
    pub split_vertices: usize,
    /// Of those, splits where the corners disagree on handedness (mirror seams).
    pub mirror_split_vertices: usize,
    /// Vertices whose frame was built from the normal alone (see the module docs).
    pub fallback_frames: usize,
}

/// A primitive ready for the GPU: one well-defined tangent frame per vertex.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// `mesh 'Name' primitive 0`.
    pub label: String,
    /// Positions (split vertices repeat their source's).
    pub positions: Vec<Vec3>,
    /// UV set 0, glTF convention; zeros when the primitive has none.
    pub uvs: Vec<Vec2>,
    /// One orthonormal frame per vertex.
    pub frames: Vec<TangentFrame>,
    /// Triangle list into the new vertices.
    pub indices: Vec<u32>,
    /// The file's vertex each vertex came from.
    pub source_vertex: Vec<u32>,
    /// Skin attributes, split along with the vertices.
    pub joints: Vec<Vec<[u16; 4]>>,
    /// Skin weights, split along with the vertices.
    pub weights: Vec<Vec<[f32; 4]>>,
    /// What was done.
    pub stats: PrimitiveStats,
}

/// The frame of a unit normal with no tangent information (see the module docs).
#[must_use]
pub(crate) fn frame_from_normal(normal: Vec3, handedness: f32) -> TangentFrame {
    // `+ 0.0` turns −0 into +0: glam's orthonormal pair reads the sign of z, zero included, so
    // without it two equal normals (a face's two triangles, say) could get different tangents.
    let n = normal.normalize() + Vec3::ZERO;
    let (t, _) = n.any_orthonormal_pair();
    TangentFrame {
        normal: n,
        tangent: t,
        bitangent: n.cross(t) * handedness.signum(),
    }
}

/// True when the triangle's UVs span no area (see the module docs).
#[must_use]
pub(crate) fn degenerate_uv(uv: [Vec2; 3]) -> bool {
    let e1 = uv[1] - uv[0];
    let e2 = uv[2] - uv[0];
    e1.perp_dot(e2).abs() <= f32::EPSILON * e1.length() * e2.length()
}

struct Mikk<'a> {
    positions: &'a [Vec3],
    normals: &'a [Vec3],
    uvs: &'a [Vec2],
    indices: &'a [u32],
    out: Vec<Option<TangentSpace>>,
}

impl Geometry for Mikk<'_> {
    fn num_faces(&self) -> usize {
        self.indices.len() / 3
    }
    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }
    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        self.positions[self.indices[face * 3 + vert] as usize].to_array()
    }
    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        self.normals[self.indices[face * 3 + vert] as usize].to_array()
    }
    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        let uv = self.uvs[self.indices[face * 3 + vert] as usize];
        [uv.x, 1.0 - uv.y]
    }
    fn set_tangent(&mut self, tangent_space: Option<TangentSpace>, face: usize, vert: usize) {
        self.out[face * 3 + vert] = tangent_space;
    }
}

impl Primitive {
    /// Normals (supplied or angle-weighted), tangent frames (supplied, MikkTSpace, or from the
    /// normal), and a split of every vertex whose triangles need different frames — mirror seams,
    /// where triangles of opposite handedness share a vertex. Splits copy the vertex's position,
    /// UV and skin attributes. Vertices no triangle uses are left out (`source_vertex` names the
    /// file vertex of each kept one).
    ///
    /// # Errors
    /// The invariants of [`Primitive`] broken (see `Primitive::validate`).
    pub fn prepare(&self) -> Result<Prepared, ErrorKind> {
        self.validate()?;
        if let Some(q) = &self.qtangents {
            return Ok(self.prepare_supplied_qtangents(q));
        }
        let n_in = self.positions.len();
        let (normals, normal_source, normal_fallbacks) = match &self.normals {
            Some(n) => (n.iter().map(|&v| unit(v)).collect(), Source::Supplied, 0),
            None => {
                let (n, fallbacks) = normals::angle_weighted(
                    &self.positions,
                    &self.indices,
                    self.smoothing_ids.as_deref(),
                );
                (n, Source::Generated, fallbacks)
            }
        };
        let degenerate_uv_triangles = self.uvs.as_ref().map_or(0, |uvs| {
            self.indices
                .chunks_exact(3)
                .filter(|t| degenerate_uv([0, 1, 2].map(|k| uvs[t[k] as usize])))
                .count()
        });
        // Flat shading gives each corner its face's normal; otherwise a corner has its vertex's.
        let (corner_normals, raw, tangent_source) = if self.normals.is_none() && self.flat_normals {
            let (n, raw, source) = self.flat_corner_tangents(&normals);
            (Some(n), raw, source)
        } else {
            let (raw, source) = self.corner_tangents(&normals);
            (None, raw, source)
        };
        let normal = |c: usize| {
            corner_normals
                .as_ref()
                .map_or_else(|| normals[self.indices[c] as usize], |n| n[c])
        };
        let supplied = tangent_source == Source::Supplied;
        let split = Split::new(&self.indices, n_in, &raw, supplied, normal);
        let stats = PrimitiveStats {
            vertices_in: n_in,
            vertices: split.frames.len(),
            triangles: self.triangle_count(),
            normals: normal_source,
            tangents: tangent_source,
            normal_fallbacks,
            degenerate_uv_triangles,
            mirrored_triangles: mirrored(&split.indices, &split.frames),
            split_vertices: split.split,
            mirror_split_vertices: split.mirror_split,
            fallback_frames: split.fallback.iter().filter(|&&b| b).count(),
        };
        let source_vertex = split.source_vertex;
        let gather = |values: &[_]| source_vertex.iter().map(|&v| values[v as usize]).collect();
        Ok(Prepared {
            label: self.label.clone(),
            positions: gather(&self.positions),
            uvs: self.uvs.as_ref().map_or_else(
                || vec![Vec2::ZERO; source_vertex.len()],
                |uv| source_vertex.iter().map(|&v| uv[v as usize]).collect(),
            ),
            joints: self
                .joints
                .iter()
                .map(|j| source_vertex.iter().map(|&v| j[v as usize]).collect())
                .collect(),
            weights: self
                .weights
                .iter()
                .map(|w| source_vertex.iter().map(|&v| w[v as usize]).collect())
                .collect(),
            frames: split.frames,
            indices: split.indices,
            source_vertex,
            stats,
        })
    }

    /// One raw tangent per corner (3 per triangle: xyz and handedness w, zero where there is
    /// none), and where the tangents came from: supplied, generated from the UVs, or none (the
    /// frame from the normal alone). [`corner_frame`] makes a corner's frame of it.
    fn corner_tangents(&self, normals: &[Vec3]) -> (Vec<[f32; 4]>, Source) {
        // glTF 2.0 §3.7.2.1: without normals, supplied tangents must be ignored.
        match (
            self.tangents.as_ref().filter(|_| self.normals.is_some()),
            &self.uvs,
        ) {
            (Some(tangents), _) => {
                let corners = self
                    .indices
                    .iter()
                    .map(|&v| tangents[v as usize].to_array());
                (corners.collect(), Source::Supplied)
            }
            (None, Some(uvs)) if self.exact_mikktspace => {
                (self.mikktspace(normals, uvs), Source::Generated)
            }
            (None, Some(uvs)) => (self.meshopt_tangents(normals, uvs), Source::Generated),
            (None, None) => (vec![[0.0; 4]; self.indices.len()], Source::FromNormal),
        }
    }

    /// The corners of flat shading: every corner of a triangle takes the triangle's face
    /// normal (`smooth[v]`, the vertex's smooth normal, where the triangle has no area), with
    /// tangents as [`Primitive::corner_tangents`] makes them, on the mesh with no vertex shared.
    /// Each corner's normal, its raw tangent and where the tangents came from.
    fn flat_corner_tangents(&self, smooth: &[Vec3]) -> (Vec<Vec3>, Vec<[f32; 4]>, Source) {
        let corner = |values: &[Vec2]| self.indices.iter().map(|&v| values[v as usize]).collect();
        let mut normals = Vec::with_capacity(self.indices.len());
        for t in self.indices.chunks_exact(3) {
            let face = normals::face_normal([0, 1, 2].map(|k| self.positions[t[k] as usize]));
            normals.extend(t.iter().map(|&v| face.unwrap_or(smooth[v as usize])));
        }
        let unshared = Primitive {
            positions: self
                .indices
                .iter()
                .map(|&v| self.positions[v as usize])
                .collect(),
            uvs: self.uvs.as_deref().map(corner),
            indices: (0..self.indices.len() as u32).collect(),
            exact_mikktspace: self.exact_mikktspace,
            ..Primitive::default()
        };
        let (raw, source) = unshared.corner_tangents(&normals);
        (normals, raw, source)
    }

    /// meshoptimizer's MikkTSpace-compatible raw corner tangents (`meshopt_generateTangents`
    /// with `Compatible`: MikkTSpace's angle weighting and grouping of equal vertices, its acos
    /// approximated; `ZeroFallback`: zero for a corner of degenerate triangles only), given
    /// `(u, 1 − v)` as MikkTSpace is.
    fn meshopt_tangents(&self, normals: &[Vec3], uvs: &[Vec2]) -> Vec<[f32; 4]> {
        let flipped: Vec<[f32; 2]> = uvs.iter().map(|uv| [uv.x, 1.0 - uv.y]).collect();
        meshopt::generate_tangents(
            Some(&self.indices),
            bytemuck::cast_slice(&self.positions),
            bytemuck::cast_slice(normals),
            &flipped,
            meshopt::TangentOptions::Compatible | meshopt::TangentOptions::ZeroFallback,
        )
    }

    /// MikkTSpace's raw corner tangents (`tangent_encoded`; zero where it gives none).
    fn mikktspace(&self, normals: &[Vec3], uvs: &[Vec2]) -> Vec<[f32; 4]> {
        let mut mikk = Mikk {
            positions: &self.positions,
            normals,
            uvs,
            indices: &self.indices,
            out: vec![None; self.indices.len()],
        };
        // The error type has no variants: generation cannot fail.
        let _ = bevy_mikktspace::generate_tangents(&mut mikk);
        mikk.out
            .iter()
            .map(|ts| ts.map_or([0.0; 4], |ts| ts.tangent_encoded()))
            .collect()
    }
}

/// A corner's frame from its normal and raw tangent, and whether it is a fallback: the
/// tangent made perpendicular to the normal, or, where it cannot be (zero, parallel to the
/// normal, w = 0), the frame of the normal alone (module docs) with handedness +1, or w's sign
/// for a `supplied` tangent (+1 for 0).
fn corner_frame(n: Vec3, raw: [f32; 4], supplied: bool) -> (TangentFrame, bool) {
    let t = Vec4::from(raw);
    let h = if supplied { sign_or_one(t.w) } else { 1.0 };
    TangentFrame::from_normal_tangent(n, t)
        .map_or_else(|_| (frame_from_normal(n, h), true), |f| (f, false))
}

/// The vertices after splitting: corners of one vertex with different frames get vertices of
/// their own.
struct Split {
    /// The file's vertex each vertex came from.
    source_vertex: Vec<u32>,
    frames: Vec<TangentFrame>,
    /// Whether each vertex's frame is a fallback.
    fallback: Vec<bool>,
    indices: Vec<u32>,
    /// Vertices added.
    split: usize,
    /// Of those, vertices added because the handedness differs.
    mirror_split: usize,
}

impl Split {
    /// `raw[c]`, `normal(c)`: corner `c`'s raw tangent (`supplied`, or generated) and normal. A
    /// vertex's frame is made ([`corner_frame`]) from its first corner, on every core; another
    /// corner's only where its tangent or normal differs from its vertex's first corner's, bit
    /// for bit: most corners share their vertex's.
    fn new(
        triangles: &[u32],
        n_in: usize,
        raw: &[[f32; 4]],
        supplied: bool,
        normal: impl Fn(usize) -> Vec3 + Sync,
    ) -> Self {
        let key = |c: usize| -> [u32; 7] {
            let (r, n) = (raw[c], normal(c));
            std::array::from_fn(|k| if k < 4 { r[k] } else { n[k - 4] }.to_bits())
        };
        // Each vertex's first corner (none: no triangle uses it), then its frame from that
        // corner, on every core for a large primitive: the frames a single pass in corner order
        // would make.
        let mut first = vec![u32::MAX; n_in];
        for (c, &v) in triangles.iter().enumerate().rev() {
            first[v as usize] = c as u32;
        }
        let made = par_map(&first, |&c| {
            (c != u32::MAX).then(|| corner_frame(normal(c as usize), raw[c as usize], supplied))
        });
        let mut frames: Vec<Option<TangentFrame>> = made.iter().map(|m| m.map(|m| m.0)).collect();
        let mut fallback: Vec<bool> = made.iter().map(|m| m.is_some_and(|m| m.1)).collect();
        drop(made);
        let mut source_vertex: Vec<u32> = (0..n_in as u32).collect();
        let mut extra: HashMap<(u32, [u32; 9]), u32> = HashMap::new();
        let (mut split, mut mirror_split) = (0, 0);
        let mut indices = Vec::with_capacity(triangles.len());
        for (c, &v) in triangles.iter().enumerate() {
            let vi = v as usize;
            let fc = first[vi] as usize;
            // A used vertex has its first corner's frame (`first` and `frames` above).
            let out = match frames[vi] {
                Some(g) if c != fc && key(c) != key(fc) => {
                    let (f, corner_fallback) = corner_frame(normal(c), raw[c], supplied);
                    if g == f {
                        v
                    } else {
                        *extra.entry((v, frame_key(&f))).or_insert_with(|| {
                            split += 1;
                            if g.handedness() != f.handedness() {
                                mirror_split += 1;
                            }
                            frames.push(Some(f));
                            fallback.push(corner_fallback);
                            source_vertex.push(v);
                            (frames.len() - 1) as u32
                        })
                    }
                }
                // The vertex's first corner, or one with its tangent and normal bit for bit.
                _ => v,
            };
            indices.push(out);
        }
        // Vertices no triangle uses are dropped: a primitive that shares its file's vertex pool
        // with others (OBJ groups, glTF primitives on one accessor) keeps its own alone.
        let mut new_index = vec![u32::MAX; frames.len()];
        let mut kept_source = Vec::with_capacity(frames.len());
        let mut kept_fallback = Vec::with_capacity(frames.len());
        let mut kept_frames = Vec::with_capacity(frames.len());
        for (i, f) in frames.iter().enumerate() {
            if let Some(f) = f {
                new_index[i] = kept_frames.len() as u32;
                kept_frames.push(*f);
                kept_source.push(source_vertex[i]);
                kept_fallback.push(fallback[i]);
            }
        }
        for i in &mut indices {
            *i = new_index[*i as usize];
        }
        let (frames, source_vertex, fallback) = (kept_frames, kept_source, kept_fallback);
        Self {
            source_vertex,
            frames,
            fallback,
            indices,
            split,
            mirror_split,
        }
    }
}

impl Primitive {
    /// Frames from supplied qtangents (a file qtangent wrote): one per vertex as decoded, no
    /// normals or tangents generated, no splits (the writer split already).
    fn prepare_supplied_qtangents(&self, q: &[crate::frame::QTangent]) -> Prepared {
        let frames: Vec<TangentFrame> = q.iter().map(crate::frame::QTangent::to_frame).collect();
        let n = frames.len();
        let mirrored_triangles = mirrored(&self.indices, &frames);
        Prepared {
            label: self.label.clone(),
            positions: self.positions.clone(),
            uvs: self.uvs.clone().unwrap_or_else(|| vec![Vec2::ZERO; n]),
            frames,
            indices: self.indices.clone(),
            source_vertex: (0..n as u32).collect(),
            joints: self.joints.clone(),
            weights: self.weights.clone(),
            stats: PrimitiveStats {
                vertices_in: n,
                vertices: n,
                triangles: self.triangle_count(),
                normals: Source::Supplied,
                tangents: Source::Supplied,
                normal_fallbacks: 0,
                degenerate_uv_triangles: 0,
                mirrored_triangles,
                split_vertices: 0,
                mirror_split_vertices: 0,
                fallback_frames: 0,
            },
        }
    }
}

/// `f` of each item, in order, on every core when there are enough items to share
/// ([`par_chunks`]).
fn par_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    par_chunks(items, |part| part.iter().map(&f).collect())
}

/// `f` of consecutive runs of `items`, concatenated in order: one run per core when there are
/// at least 64 Ki items a core (a thread costs more than it saves below that), else one run.
/// A thread the system refuses leaves its run to the calling thread.
pub(crate) fn par_chunks<T: Sync, U: Send>(
    items: &[T],
    f: impl Fn(&[T]) -> Vec<U> + Sync,
) -> Vec<U> {
    /// Items below which one thread works.
    const PER_THREAD: usize = 1 << 16;
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len() / PER_THREAD);
    if threads <= 1 {
        return f(items);
    }
    let f = &f;
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(items.len().div_ceil(threads))
            .map(|part| {
                std::thread::Builder::new()
                    .spawn_scoped(s, move || f(part))
                    .map_err(|_| part)
            })
            .collect();
        let mut out = Vec::new();
        for part in parts {
            match part {
                Ok(h) => out.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
                Err(part) => out.extend(f(part)),
            }
        }
        out
    })
}

/// Triangles whose frames have handedness −1, by majority of their corners.
fn mirrored(indices: &[u32], frames: &[TangentFrame]) -> usize {
    indices
        .chunks_exact(3)
        .filter(|t| {
            t.iter()
                .filter(|&&v| frames[v as usize].handedness() < 0.0)
                .count()
                >= 2
        })
        .count()
}

/// `v` normalised without overflow for huge components (validated: finite, not zero).
fn unit(v: Vec3) -> Vec3 {
    (v / v.abs().max_element()).normalize()
}

fn sign_or_one(w: f32) -> f32 {
    if w < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// Exact bit pattern of a frame, for grouping identical corner frames.
fn frame_key(f: &TangentFrame) -> [u32; 9] {
    let a = [
        f.normal.to_array(),
        f.tangent.to_array(),
        f.bitangent.to_array(),
    ]
    .concat();
    std::array::from_fn(|i| a[i].to_bits())
}
