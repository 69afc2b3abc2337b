//! The rows of the `maps` tool's bake-time table (`super::bake_timing`): FlightHelmet's maps
//! baked and stored at 2048² and 4096², time per stage, with the BC encoders side by side
//! (BC7: bc7e, the default, bc7f, Intel's ISPC kernels, `block_compression`'s portable port;
//! BC5: Intel's kernel and the port): Mtexel/s and the per-texel angle error of what each wrote.

use std::time::{Duration, Instant};

use super::table::stats;
use super::{bake_input, encoding, frame_angles, AngleStats};
use crate::gpu::GpuContext;
use crate::lab::LabError;
use crate::qmap::bake::CpuRaster;
use crate::qmap::stored::Encoding;
use crate::qmap::{
    Baker, Bc7Quality, BcEncoder, EncodedMap, MapFormat, MapOptions, MapSpace, NormalMap,
    ObjectInput, QuatMap, RasterStages, Repack, TexelKind,
};
use crate::render::{MapSource, RenderScene};

/// Padding rings of the maps the renderer bakes. Minified, a map is read from its mips, where
/// level k has 2⁻ᵏ of the padding: 16 rings keep a 4-texel margin at level 2 (a quarter of the
/// normal map's resolution), so island edges read their own frames rather than a neighbour
/// island's or background.
const RENDER_PADDING: u32 = 16;

/// One size's rows of the bake-time table.
pub(super) struct BakeTiming<'a> {
    pub(super) ctx: &'a GpuContext,
    pub(super) scene: &'a RenderScene,
    /// Side of every map, texels.
    pub(super) side: u32,
}

impl BakeTiming<'_> {
    /// Tangent space → BC5 at `side`²: the rotations on the GPU (here lavapipe) and on the CPU
    /// (every core), the total with the faster.
    pub(super) fn tangent(&self, bc7: Bc7Quality, encoder: BcEncoder) -> Result<String, LabError> {
        let (ctx, scene, side) = (self.ctx, self.scene, self.side);
        let mut t = [Duration::ZERO; 4];
        let mut pool = Pooled::default();
        for m in &scene.materials {
            let Some(normal) = &m.normal else { continue };
            let img = if normal.width() == side {
                normal.clone()
            } else {
                image::imageops::resize(normal, side, side, image::imageops::FilterType::Triangle)
            };
            let levels = timed(&mut t[0], || {
                NormalMap::levels_from_rgba8(&img, m.uniforms.normal_scale)
            });
            timed(&mut t[1], || {
                RasterStages::bake_tangent(ctx, &levels, None, MapFormat::Rgba32Float)
            })?;
            let map = timed(&mut t[2], || {
                CpuRaster.bake_tangent(&levels, None, MapFormat::Rgba32Float)
            })?;
            let how = encoding(MapSpace::Tangent, MapFormat::Bc5, bc7, encoder);
            let all = vec![true; map.levels[0].quats.len()];
            pool.store(&map, &how, &all, &mut t[3])?;
        }
        let (texels, n, tn) = pool.stats();
        let total = (t[0] + t[1].min(t[2]) + t[3]).as_secs_f64();
        let [mips, gpu, cpu, bc5] = t.map(|d| d.as_secs_f64());
        let (rate, name, n, tn) = (
            texels as f64 / bc5 / 1e6,
            encoder.name(),
            stats(Some(n)),
            stats(Some(tn)),
        );
        Ok(format!(
            "| {side}² | tangent → bc5 ({name}) | mips {mips:.2} s, rotations on the GPU {gpu:.2} s or on the CPU {cpu:.2} s, BC5 {bc5:.2} s ({rate:.0} Mtexel/s); per-texel error ° normal {n}, tangent {tn} | {total:.2} s |\n"
        ))
    }

    /// Object space → BC7 at `side`² and effort `quality`: raster, finish and compression times,
    /// and the per-texel error against the f32 bake, inside triangles.
    pub(super) fn object(
        &self,
        quality: Bc7Quality,
        encoder: BcEncoder,
    ) -> Result<String, LabError> {
        let (ctx, scene, side) = (self.ctx, self.scene, self.side);
        let mut o = [Duration::ZERO; 3];
        let mut pool = Pooled::default();
        for (i, sm) in scene.meshes.iter().enumerate() {
            if !matches!(sm.map, MapSource::Bake { .. }) {
                continue;
            }
            let (bake, normal_map) = bake_input(scene, i);
            let normal_map = normal_map.map(|nm| resize_normal_map(&nm, side));
            // The f32 bake as the renderer's baker makes it (every level rastered where the
            // device rasters fastest), timed by its own phases; stored below.
            let options = MapOptions {
                format: Some(MapFormat::Rgba32Float),
                padding: RENDER_PADDING,
                ..MapOptions::default()
            };
            let input = ObjectInput {
                mesh: bake,
                normal_map: normal_map.as_ref(),
                direction: None,
                size: side,
                repack: Repack::Never,
            };
            let baked = Baker::new(ctx.raster_backend(), &options).object(input, &mut ())?;
            for (phase, d) in &baked.times {
                match *phase {
                    "raster" => o[0] += *d,
                    "finish" => o[1] += *d,
                    _ => {}
                }
            }
            let map = baked.map;
            let how = encoding(MapSpace::Object, MapFormat::Bc7, quality, encoder);
            let mask: Vec<bool> = map.kind.iter().map(|k| *k == TexelKind::Covered).collect();
            pool.store(&map, &how, &mask, &mut o[2])?;
        }
        let (texels, n, t) = pool.stats();
        let total = o.iter().sum::<Duration>().as_secs_f64();
        let [raster, finish, bc7] = o.map(|d| d.as_secs_f64());
        let (rate, n, t) = (texels as f64 / bc7 / 1e6, stats(Some(n)), stats(Some(t)));
        let (quality, name) = (quality.name(), encoder.name());
        let raster_on = ctx.raster_backend().to_string();
        Ok(format!(
            "| {side}² | object → bc7 {quality} ({name}) | raster, every level ({raster_on}) {raster:.2} s, finish {finish:.2} s, BC7 {bc7:.2} s ({rate:.2} Mtexel/s); per-texel error ° normal {n}, tangent {t} | {total:.2} s |\n"
        ))
    }
}

/// What a bake-time row pools over the scene's maps: texels stored, and the per-texel angle
/// errors of the stored normal and tangent against the f32 bake.
#[derive(Default)]
struct Pooled {
    texels: usize,
    normals: Vec<f64>,
    tangents: Vec<f64>,
}

impl Pooled {
    /// Stores `map` as `how` (the time added to `time`) and pools its texels and the errors of
    /// level 0's texels in `mask`.
    fn store(
        &mut self,
        map: &QuatMap,
        how: &Encoding,
        mask: &[bool],
        time: &mut Duration,
    ) -> Result<(), LabError> {
        let stored = timed(time, || EncodedMap::encode(map, how))?;
        self.texels += map.levels.iter().map(|l| l.quats.len()).sum::<usize>();
        let (n, t) = frame_angles(&stored, &map.levels[0].quats, mask)?;
        self.normals.extend(n);
        self.tangents.extend(t);
        Ok(())
    }

    /// Texels stored, and the statistics of the normal and tangent errors.
    fn stats(self) -> (usize, AngleStats, AngleStats) {
        let (n, t) = (AngleStats::of(self.normals), AngleStats::of(self.tangents));
        (self.texels, n, t)
    }
}

/// `f()`, its wall-clock time added to `total`.
fn timed<T>(total: &mut Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let value = f();
    *total += start.elapsed();
    value
}

/// A normal map resampled to `side`² (bilinear, repeat), for timing at a size the asset lacks.
fn resize_normal_map(nm: &NormalMap, side: u32) -> NormalMap {
    if nm.width == side && nm.height == side {
        return nm.clone();
    }
    let texels = (0..side * side)
        .map(|i| {
            let (x, y) = (i % side, i / side);
            nm.sample(glam::Vec2::new(
                (x as f32 + 0.5) / side as f32,
                (y as f32 + 0.5) / side as f32,
            ))
        })
        .collect();
    NormalMap {
        width: side,
        height: side,
        texels,
    }
}
