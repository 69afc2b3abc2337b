//! The `maps` table for one scene: the reference (f32 vertex frames with the normal map as
//! 8-bit RGBA), the reference with its normal map stored as BC5, and every map kind (object
//! space, tangent space) in every stored format, side by side. Per column: bytes per texel and
//! the frame's bytes on the GPU; the per-texel error of the decoded normal and tangent against
//! an f32 bake; rendered PSNR and maximum error against the reference at each size.

use std::fmt::Write as _;

use glam::Vec3;
use image::RgbaImage;

use super::{encoding, frame_angles, AngleStats};
use crate::gpu::{GpuContext, GpuScene, Renderer, View};
use crate::lab::LabError;
use crate::measure::angle_deg;
use crate::qmap::{
    self, BakeMesh, Bc7Quality, BcEncoder, EncodedMap, MapFormat, MapOptions, MapSpace, NormalMap,
    TexelKind,
};
use crate::render::{self, FrameSource, ImageDiff, MapSource, RenderScene};
use crate::{Format, Listener};

/// The `maps` table of `scene` (titled `name`) rendered at each of `sizes` (width, height),
/// BC7 at effort `bc7`: a markdown section, lines ending in `\n`. The reference's warnings (its
/// textures stored as BC5) go to `listener`.
///
/// # Errors
/// A bake, store, upload, render or comparison that fails.
pub fn scene_table(
    ctx: &GpuContext,
    renderer: &Renderer,
    name: &str,
    scene: &RenderScene,
    sizes: &[(u32, u32)],
    bc7: Bc7Quality,
    listener: &mut dyn Listener,
) -> Result<String, LabError> {
    let rows = measure(ctx, renderer, scene, sizes, bc7, listener)?;
    let mut out = String::new();
    print_table(&mut out, name, scene, sizes, &rows);
    Ok(out)
}

/// One column of the table.
#[derive(Clone, Copy, PartialEq)]
enum Column {
    /// Reference mode with the normal and anisotropy textures as stored: 8-bit RGBA (`false`)
    /// or BC5 at every level, as engines ship them (`true`, `RenderScene::engine_textures`).
    Reference { bc5: bool },
    /// A quaternion map of a kind in a format.
    Map(MapSpace, MapFormat),
}

impl Column {
    fn label(self) -> String {
        match self {
            Column::Reference { bc5: false } => "reference (textures RGBA8)".into(),
            Column::Reference { bc5: true } => "reference, BC5 normal + BC5 direction".into(),
            Column::Map(s, f) => format!("{} {}", s.name(), f.name()),
        }
    }
}

fn columns() -> Vec<Column> {
    let mut c = vec![
        Column::Reference { bc5: false },
        Column::Reference { bc5: true },
    ];
    for space in [MapSpace::Tangent, MapSpace::Object] {
        for f in MapFormat::ALL {
            if !(space == MapSpace::Object && f == MapFormat::Bc5) {
                c.push(Column::Map(space, f));
            }
        }
    }
    c
}

/// What a column measured on one asset.
#[derive(Default, Clone)]
struct Row {
    bytes_per_texel: String,
    frame_bytes: u64,
    normal: Option<AngleStats>,
    tangent: Option<AngleStats>,
    renders: Vec<ImageDiff>,
    note: String,
}

/// Per-texel errors of every stored format of both kinds against the f32 bakes, per material /
/// mesh, pooled over the scene: (column → (normal, tangent)).
fn texel_errors(
    ctx: &GpuContext,
    scene: &RenderScene,
    bc7: Bc7Quality,
) -> Result<Vec<(Column, AngleStats, AngleStats, String)>, LabError> {
    let mut pooled: Vec<(Column, Vec<f64>, Vec<f64>)> = Vec::new();
    let mut notes: Vec<(Column, String)> = Vec::new();
    let mut push =
        |c: Column, n: Vec<f64>, t: Vec<f64>| match pooled.iter_mut().find(|(k, _, _)| *k == c) {
            Some((_, a, b)) => {
                a.extend(n);
                b.extend(t);
            }
            None => pooled.push((c, n, t)),
        };
    // Tangent space: per material with a normal map, the f32 bake of its mip chain, texels
    // inside the triangles of its meshes (their UVs rasterised at the map's size).
    for (mi, m) in scene.materials.iter().enumerate() {
        let Some(normal) = &m.normal else { continue };
        let levels = NormalMap::levels_from_rgba8(normal, m.uniforms.normal_scale);
        let exact = ctx
            .raster_backend()
            .0
            .bake_tangent(&levels, None, MapFormat::Rgba32Float)?;
        let mask = coverage(scene, mi, exact.width(), exact.height())?;
        for f in MapFormat::ALL {
            let c = Column::Map(MapSpace::Tangent, f);
            match EncodedMap::encode(
                &exact,
                &encoding(MapSpace::Tangent, f, bc7, BcEncoder::default()),
            ) {
                Ok(stored) => {
                    let (n, t) = frame_angles(&stored, &exact.levels[0].quats, &mask)?;
                    push(c, n, t);
                }
                Err(e) => notes.push((c, e.to_string())),
            }
        }
        // The normal map itself: RGBA8 is the source (0 by definition); BC5 against it.
        if let Ok(bc5) = crate::qmap::normal_map::bc5_round_trip_chain(normal)
            .map(|mut chain| chain.swap_remove(0))
        {
            let mut errs = Vec::new();
            for ((a, b), inside) in normal.pixels().zip(bc5.pixels()).zip(&mask) {
                if *inside {
                    // As the renderer unpacks it: 2c − 1, x and y × the material's scale, the
                    // direction measured (the tangent columns' normal likewise).
                    let scale = m.uniforms.normal_scale;
                    let v = |p: &image::Rgba<u8>| {
                        Vec3::new(
                            (f32::from(p[0]) / 127.5 - 1.0) * scale,
                            (f32::from(p[1]) / 127.5 - 1.0) * scale,
                            f32::from(p[2]) / 127.5 - 1.0,
                        )
                    };
                    errs.push(angle_deg(v(a), v(b)));
                }
            }
            push(Column::Reference { bc5: true }, errs, Vec::new());
        }
    }
    // Object space: per mesh with a map to bake, the f32 bake as the renderer makes it; texels
    // inside triangles.
    for (i, sm) in scene.meshes.iter().enumerate() {
        let MapSource::Bake { size } = sm.map else {
            continue;
        };
        let f32_options = MapOptions::stored(MapFormat::Rgba32Float);
        let baker = crate::qmap::Baker::new(ctx.raster_backend(), &f32_options);
        let exact = scene.bake_object(i, size, &baker, &mut ())?.map;
        let mask: Vec<bool> = exact
            .kind
            .iter()
            .map(|k| *k == TexelKind::Covered)
            .collect();
        for f in MapFormat::ALL {
            let c = Column::Map(MapSpace::Object, f);
            if f == MapFormat::Bc5 {
                continue;
            }
            let stored = EncodedMap::encode(
                &exact,
                &encoding(MapSpace::Object, f, bc7, BcEncoder::default()),
            )?;
            let (n, t) = frame_angles(&stored, &exact.levels[0].quats, &mask)?;
            push(c, n, t);
        }
    }
    Ok(pooled
        .into_iter()
        .map(|(c, n, t)| {
            let note = notes
                .iter()
                .find(|(k, _)| *k == c)
                .map_or_else(String::new, |(_, s)| s.clone());
            (c, AngleStats::of(n), AngleStats::of(t), note)
        })
        .collect())
}

/// Texels of a `w × h` map inside the UV triangles of the meshes using material `mi` (UVs
/// outside [0, 1] clipped).
fn coverage(scene: &RenderScene, mi: usize, w: u32, h: u32) -> Result<Vec<bool>, LabError> {
    let prims: Vec<_> = scene
        .meshes
        .iter()
        .filter(|m| m.material == mi)
        .map(|m| &m.mesh)
        .collect();
    let mut mask = vec![false; (w * h) as usize];
    if prims.is_empty() {
        return Ok(mask);
    }
    let bake = BakeMesh::from_prepared("coverage", &prims);
    let settings = qmap::BakeSettings {
        width: w,
        height: h,
        padding: 0,
        format: MapFormat::Rgba8Snorm,
    };
    let raster = qmap::raster_cpu(&bake, None, &settings, &mut ())?;
    for (m, k) in mask.iter_mut().zip(&raster.kind) {
        *m = *k == TexelKind::Covered;
    }
    Ok(mask)
}

/// Renders a scene's uploads at every size, for one column each.
struct Renders<'a> {
    ctx: &'a GpuContext,
    renderer: &'a Renderer,
    scene: &'a RenderScene,
    sizes: &'a [(u32, u32)],
}

impl Renders<'_> {
    /// `gpu` drawn with `source` at every size.
    fn all(&self, gpu: &GpuScene, source: FrameSource) -> Result<Vec<RgbaImage>, LabError> {
        self.sizes
            .iter()
            .map(|&(w, h)| {
                let view = View::fitted(self.scene, w as f32 / h as f32, 30.0, 20.0);
                Ok(self
                    .renderer
                    .render_image(self.ctx, gpu, &view, source, w, h)?)
            })
            .collect()
    }

    /// `scene` uploaded with `options`, the objects with an authored map hidden: they carry a
    /// tangent field only the maps draw (the default scene's spun plate), so PSNR is measured
    /// without them.
    fn upload(
        &self,
        scene: &RenderScene,
        options: &MapOptions,
        warnings: &mut Vec<crate::Warning>,
    ) -> Result<GpuScene, LabError> {
        let mut gpu =
            self.renderer
                .upload(self.ctx, scene, &[Format::Snorm16x4], options, warnings)?;
        let authored = gpu.report().authored_objects.clone();
        gpu.set_hidden(&authored);
        Ok(gpu)
    }
}

/// The reference's pictures and costs, with its normal maps as RGBA8 and as BC5.
struct Reference {
    images: Vec<RgbaImage>,
    bc5_images: Vec<RgbaImage>,
    /// Bytes of the reference's vertex frames on the GPU.
    frame_vertex_bytes: u64,
}

impl Reference {
    fn new(renders: &Renders<'_>, listener: &mut dyn Listener) -> Result<Self, LabError> {
        let base = renders.upload(renders.scene, &MapOptions::default(), &mut Vec::new())?;
        let images = renders.all(&base, FrameSource::Reference)?;
        let cost = base.cost(FrameSource::Reference).unwrap_or_default();
        // The normal map and the anisotropy direction BC5 at every mip, as an engine ships them.
        let bc5_scene = renders.scene.engine_textures();
        for w in &bc5_scene.warnings[renders.scene.warnings.len()..] {
            let place = format!("reference with BC5 textures: {}", w.place());
            listener.warning(crate::Warning::new(place, w.kind().clone()));
        }
        let bc5_gpu = renders.upload(&bc5_scene, &MapOptions::default(), &mut Vec::new())?;
        Ok(Self {
            images,
            bc5_images: renders.all(&bc5_gpu, FrameSource::Reference)?,
            frame_vertex_bytes: cost.frame_vertex_bytes,
        })
    }

    /// Each of `images` against the reference picture of its size.
    fn diffs(&self, images: &[RgbaImage]) -> Result<Vec<ImageDiff>, LabError> {
        self.images
            .iter()
            .zip(images)
            .map(|(a, b)| render::diff(a, b, None).map_err(LabError::from))
            .collect()
    }
}

fn measure(
    ctx: &GpuContext,
    renderer: &Renderer,
    scene: &RenderScene,
    sizes: &[(u32, u32)],
    bc7: Bc7Quality,
    listener: &mut dyn Listener,
) -> Result<Vec<(Column, Row)>, LabError> {
    let errors = texel_errors(ctx, scene, bc7)?;
    let renders = Renders {
        ctx,
        renderer,
        scene,
        sizes,
    };
    let reference = Reference::new(&renders, listener)?;
    // Normal-map bytes with mips, counted per mesh as the renderer's costs count them; the
    // anisotropy texture's direction (what a quaternion map carries of it) likewise: RG8 (2 B)
    // uncompressed, BC5 (1 B) as engines ship it. Its strength (blue) is read by every column
    // alike and not counted.
    let texture_bytes = |bpt: f64, direction_bpt: f64| -> u64 {
        scene
            .meshes
            .iter()
            .map(|m| &scene.materials[m.material])
            .map(|m| {
                let bytes = |t: &Option<image::RgbaImage>, b: f64| {
                    t.as_ref()
                        .map_or(0, |t| mip_bytes(t.width(), t.height(), b))
                };
                bytes(&m.normal, bpt) + bytes(&m.anisotropy, direction_bpt)
            })
            .sum()
    };
    let has_direction = scene.materials.iter().any(|m| m.anisotropy.is_some());
    let find = |c: Column| errors.iter().find(|(k, _, _, _)| *k == c);
    let mut rows = Vec::new();
    for c in columns() {
        let mut row = Row::default();
        if let Some((_, n, t, note)) = find(c) {
            row.normal = Some(*n);
            row.tangent = (t.count > 0).then_some(*t);
            row.note.clone_from(note);
        }
        match c {
            Column::Reference { bc5 } => {
                row.bytes_per_texel = match (bc5, has_direction) {
                    (false, false) => "4".into(),
                    (true, false) => "1".into(),
                    (false, true) => "4 + 2".into(),
                    (true, true) => "1 + 1".into(),
                };
                row.frame_bytes = reference.frame_vertex_bytes
                    + if bc5 {
                        texture_bytes(1.0, 1.0)
                    } else {
                        texture_bytes(4.0, 2.0)
                    };
                let images = if bc5 {
                    &reference.bc5_images
                } else {
                    &reference.images
                };
                row.renders = reference.diffs(images)?;
                if !bc5 {
                    row.normal = Some(AngleStats::default());
                }
            }
            Column::Map(space, format) => {
                map_column(&renders, &reference, (space, format), bc7, &mut row)?;
            }
        }
        rows.push((c, row));
    }
    Ok(rows)
}

/// A map column's bytes, notes and renders: the scene's maps of `space` stored as `format`.
fn map_column(
    renders: &Renders<'_>,
    reference: &Reference,
    (space, format): (MapSpace, MapFormat),
    bc7: Bc7Quality,
    row: &mut Row,
) -> Result<(), LabError> {
    row.bytes_per_texel = format!("{}", format.bytes_per_texel());
    let options = MapOptions {
        bc7,
        ..MapOptions::stored(format)
    };
    let mut warnings: Vec<crate::Warning> = Vec::new();
    let gpu = renders.upload(renders.scene, &options, &mut warnings)?;
    for w in warnings.iter().map(ToString::to_string) {
        // Only what concerns this column's kind of map: tangent-space maps are a
        // material's, object-space maps a mesh's.
        let of_material = w.starts_with("material '");
        let other_kind = of_material != (space == MapSpace::Tangent);
        if !other_kind && !row.note.contains(w.as_str()) {
            row.note.push_str(&format!(
                "{}{w}",
                if row.note.is_empty() { "" } else { "; " }
            ));
        }
    }
    let source = match space {
        MapSpace::Object => FrameSource::QuatMap,
        MapSpace::Tangent => FrameSource::QuatMapTangent,
    };
    let cost = gpu.cost(source).unwrap_or_default();
    row.frame_bytes = cost.frame_vertex_bytes + cost.frame_texture_bytes;
    row.renders = reference.diffs(&renders.all(&gpu, source)?)?;
    Ok(())
}

/// Bytes of a `w × h` texture with all mips at `bpt` bytes per texel (BC: 1, blocks rounded).
fn mip_bytes(w: u32, h: u32, bpt: f64) -> u64 {
    let (mut w, mut h, mut total) = (w, h, 0u64);
    loop {
        total += if bpt < 2.0 {
            u64::from(w.div_ceil(4) * h.div_ceil(4)) * 16
        } else {
            (f64::from(w * h) * bpt) as u64
        };
        if w == 1 && h == 1 {
            break;
        }
        (w, h) = ((w / 2).max(1), (h / 2).max(1));
    }
    total
}

fn mib(b: u64) -> String {
    format!("{:.2} MiB", b as f64 / (1024.0 * 1024.0))
}

/// Mean / p99 / max of `s`, or a dash.
pub(super) fn stats(s: Option<AngleStats>) -> String {
    s.map_or_else(
        || "–".into(),
        |s| format!("{:.3} / {:.2} / {:.1}", s.mean, s.p99, s.max),
    )
}

fn print_table(
    out: &mut String,
    name: &str,
    scene: &RenderScene,
    sizes: &[(u32, u32)],
    rows: &[(Column, Row)],
) {
    let _ = writeln!(
        out,
        "## {name} ({} meshes, {} materials)\n",
        scene.meshes.len(),
        scene.materials.len()
    );
    let authored: Vec<&str> = scene
        .meshes
        .iter()
        .filter(|m| matches!(m.map, MapSource::Authored(_)))
        .map(|m| m.mesh.label.as_str())
        .collect();
    if !authored.is_empty() {
        let _ = writeln!(
            out,
            "PSNR without {} (an authored tangent field only the maps draw).\n",
            authored.join(", ")
        );
    }
    let size_cols: Vec<String> = sizes
        .iter()
        .map(|(w, h)| format!("PSNR dB / max, {w}×{h}"))
        .collect();
    let _ = writeln!(
            out,
        "| column | B/texel | frame bytes on GPU | normal error ° (mean / p99 / max) | tangent error ° | {} | note |",
        size_cols.join(" | ")
    );
    let _ = writeln!(
        out,
        "|---|---:|---:|---:|---:|{}---|",
        "---:|".repeat(sizes.len())
    );
    for (c, r) in rows {
        let renders: Vec<String> = r
            .renders
            .iter()
            .map(|d| {
                if d.psnr_db.is_infinite() {
                    "= / 0".to_string()
                } else {
                    format!("{:.2} / {}", d.psnr_db, d.max_error)
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c.label(),
            r.bytes_per_texel,
            mib(r.frame_bytes),
            stats(r.normal),
            stats(r.tangent),
            renders.join(" | "),
            r.note
        );
    }
    let _ = writeln!(out);
}
