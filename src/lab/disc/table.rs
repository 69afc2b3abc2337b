//! The swirl-disc table (`lab/src/bin/aniso.rs`): does a filtered anisotropy direction stay right
//! under minification? The disc is rendered straight down at each size by the reference (its
//! KHR_materials_anisotropy RG map filtered as engines filter it, written canonical and
//! oriented) and by the tangent- and object-space quaternion maps baked from it, compressed
//! (the defaults) and rgba16f, and each render is compared with the supersampled truth: the
//! mean and p99 axial error of its anisotropy direction, and its PSNR.

use std::fmt::Write as _;

use glam::Vec3;
use image::RgbaImage;

use super::{
    axial_error_deg, camera, direction_stats, lighting, scene, truth, Relief, RgLayout, Truth,
    TruthSampling, COHERENT, MIN_JUDGED_STRENGTH,
};
use crate::gpu::{GpuContext, GpuScene, MapReport, Output, Renderer, Shot, View};
use crate::lab::LabError;
use crate::qmap::{MapFormat, MapOptions};
use crate::render::{self, FrameSource, RenderScene};
use crate::{Format, Listener};

/// One render size of [`disc_table`]: its rows and its pictures.
#[derive(Debug, Clone)]
pub struct DiscSheet {
    /// The render size (square).
    pub size: u32,
    /// The table's markdown lines this size adds, each ending in `\n` (the first size's start
    /// with the title, the description and the header).
    pub text: String,
    /// The truth, then the renders from the canonical upload: the RG map, the compressed
    /// tangent-space map, the compressed object-space map.
    pub images: Vec<RgbaImage>,
    /// For each of those three renders, per pixel the axial error of its anisotropy direction
    /// in degrees (90 where it has none), `None` where the truth is not judged (outside, or
    /// weaker than the judged strength).
    pub direction_errors: Vec<Vec<Option<f32>>>,
}

/// One column of the table: a label, which upload and which frame source.
struct Column {
    label: String,
    upload: usize,
    source: FrameSource,
}

/// The disc uploaded three ways (canonical with compressed maps, canonical with rgba16f maps,
/// oriented) and the columns drawn from them.
struct Table<'a> {
    ctx: &'a GpuContext,
    renderer: &'a Renderer,
    texture: u32,
    /// The disc with its RG map written canonical: the ground truth's scene.
    canonical: RenderScene,
    uploads: Vec<GpuScene>,
    columns: Vec<Column>,
    /// The compressed maps' formats, tangent and object space, as the renderer chose them.
    compressed: [String; 2],
    view: View,
}

/// The swirl-disc table with a `texture`² anisotropy texture at each of `sizes`: `each` gets
/// every size's [`DiscSheet`] as it is measured. Returns the legend of the sheets' pictures.
///
/// # Errors
/// A scene, upload, render or comparison that fails, and what `each` returns.
pub fn disc_table<E: From<LabError>>(
    ctx: &GpuContext,
    renderer: &Renderer,
    texture: u32,
    sizes: &[u32],
    listener: &mut dyn Listener,
    mut each: impl FnMut(DiscSheet) -> Result<(), E>,
) -> Result<String, E> {
    let table = Table::new(ctx, renderer, texture, listener)?;
    for (i, &size) in sizes.iter().enumerate() {
        let mut sheet = table.sheet(size)?;
        if i == 0 {
            sheet.text = format!("{}{}", table.header(), sheet.text);
        }
        each(sheet)?;
    }
    Ok(format!(
        "Sheets (top: truth, RG canonical, tangent-space {}, object-space {}; bottom: direction \
         error, black 0° to white 20°)",
        table.compressed[0], table.compressed[1]
    ))
}

impl<'a> Table<'a> {
    fn new(
        ctx: &'a GpuContext,
        renderer: &'a Renderer,
        texture: u32,
        listener: &mut dyn Listener,
    ) -> Result<Self, LabError> {
        let canonical = scene(texture, RgLayout::Canonical, Relief::Flat)?;
        let oriented = scene(texture, RgLayout::Oriented, Relief::Flat)?;
        let formats = [Format::Snorm16x4];
        // The compressed maps at the default effort, what `bake` and `pack` ship.
        let compressed = MapOptions::default();
        let rgba16f = MapOptions::stored(MapFormat::Rgba16Float);
        let uploads: Vec<GpuScene> = vec![
            renderer.upload(ctx, &canonical, &formats, &compressed, listener)?,
            renderer.upload(ctx, &canonical, &formats, &rgba16f, listener)?,
            renderer.upload(ctx, &oriented, &formats, &compressed, listener)?,
        ];
        // The compressed maps' formats as the renderer chose them (a twist alone: BC5 of (z, w);
        // object space: BC7).
        let stored = |maps: &[MapReport]| {
            maps.first()
                .and_then(|m| m.format)
                .map_or_else(|| "none".to_string(), |f| f.name().to_string())
        };
        let report = uploads[0].report();
        let [tangent_c, object_c] = [&report.tangent_maps, &report.object_maps].map(|m| stored(m));
        let column = |label: String, upload, source| Column {
            label,
            upload,
            source,
        };
        let columns = vec![
            column(
                "RG map, canonical (reference)".into(),
                0,
                FrameSource::Reference,
            ),
            column(
                "RG map, oriented (reference)".into(),
                2,
                FrameSource::Reference,
            ),
            column(
                format!("tangent-space map, {tangent_c}"),
                0,
                FrameSource::QuatMapTangent,
            ),
            column(
                "tangent-space map, rgba16f".into(),
                1,
                FrameSource::QuatMapTangent,
            ),
            column(
                format!("object-space map, {object_c}"),
                0,
                FrameSource::QuatMap,
            ),
            column("object-space map, rgba16f".into(), 1, FrameSource::QuatMap),
        ];
        let view = View {
            camera: camera(),
            lighting: lighting(),
            anisotropy_override: None,
            background: Vec3::splat(0.02),
        };
        Ok(Self {
            ctx,
            renderer,
            texture,
            canonical,
            uploads,
            columns,
            compressed: [tangent_c, object_c],
            view,
        })
    }

    /// The title, what is judged, and the table's header.
    fn header(&self) -> String {
        format!(
            "# The swirl disc: anisotropy direction under minification ({})\n\n\
             Texture {}²; direction error over pixels whose true strength is ≥ \
             {MIN_JUDGED_STRENGTH} (coherent: and whose rays agree, coherence ≥ {COHERENT}); \
             PSNR over pixels wholly on the plate.\n\n\
             | size | mip | frame source | direction mean | p99 | mean, coherent | p99, coherent | PSNR |\n\
             |---|---|---|---|---|---|---|---|\n",
            self.ctx,
            self.texture
        )
    }

    /// The table's rows at one render size, and its pictures.
    fn sheet(&self, size: u32) -> Result<DiscSheet, LabError> {
        let view = &self.view;
        let sampling = TruthSampling::square(size, self.texture, view.background);
        let truth = truth(&self.canonical, &view.camera, &view.lighting, sampling);
        let mip = (self.texture as f32 / size as f32).log2();
        let mut sheet = DiscSheet {
            size,
            text: String::new(),
            images: vec![truth.image.clone()],
            direction_errors: Vec::new(),
        };
        for c in &self.columns {
            let gpu = &self.uploads[c.upload];
            let (ctx, renderer) = (self.ctx, self.renderer);
            let image = renderer.render_image(ctx, gpu, view, c.source, size, size)?;
            let shot = Shot {
                view,
                source: c.source,
                size: glam::UVec2::new(size, size),
            };
            let [_, tangents] = renderer.render_debug(ctx, gpu, &shot, Output::Frame)?;
            let all = direction_stats(&truth, &tangents, 0.0);
            let coherent = direction_stats(&truth, &tangents, COHERENT);
            let diff = render::diff(&image, &truth.image, Some(&truth.inside))?;
            let _ = writeln!(
                sheet.text,
                "| {size}² | {mip:.0} | {} | {:.2}° | {:.2}° | {:.2}° | {:.2}° | {:.2} dB |",
                c.label,
                all.mean_deg,
                all.p99_deg,
                coherent.mean_deg,
                coherent.p99_deg,
                diff.psnr_db
            );
            if c.upload == 0 {
                sheet.images.push(image);
                sheet
                    .direction_errors
                    .push(direction_errors(&truth, &tangents));
            }
        }
        Ok(sheet)
    }
}

/// Per pixel the axial error of a render's direction (`tangents`, the debug frame's second
/// target) against `truth`: `None` where the truth is not judged, 90° where the render has no
/// finite direction.
fn direction_errors(truth: &Truth, tangents: &[[f32; 4]]) -> Vec<Option<f32>> {
    truth
        .direction
        .iter()
        .zip(tangents)
        .map(|(d, t)| match *d {
            Some((psi, s, _)) if s >= MIN_JUDGED_STRENGTH => {
                Some(if t.iter().all(|c| c.is_finite()) {
                    axial_error_deg(t[2].atan2(t[0]), psi)
                } else {
                    90.0
                })
            }
            _ => None,
        })
        .collect()
}
