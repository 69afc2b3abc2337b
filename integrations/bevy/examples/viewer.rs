//! Views a glTF file in Bevy: packed files through `bevy_qtangent`, any other as Bevy loads it.
//!
//! ```sh
//! cargo run --release --example viewer -- FILE                          # a window
//! cargo run --release --example viewer -- FILE --screenshot OUT.png     # headless, one image
//! ```
//!
//! A glTF file in a window, or rendered headless to a PNG (`--screenshot`), with a default camera
//! framing the scene and a default light; `--help` lists the options. The headless run is what
//! the integration's tests drive; it prints the camera it used, the GPU bytes of the frames, and
//! (`--frames N`) the mean frame time.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::app::{AppExit, ScheduleRunnerPlugin};
use bevy::asset::AssetPlugin;
use bevy::camera::RenderTarget;
use bevy::camera::primitives::Aabb;
use bevy::core_pipeline::tonemapping::{DebandDither, Tonemapping};
use bevy::gltf::Gltf;
use bevy::prelude::*;
use bevy::render::render_resource::{
    CachedPipelineState, PipelineCache, PollType, TextureFormat, TextureUsages,
};
use bevy::render::renderer::RenderDevice;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::render::{Render, RenderApp, RenderPlugin, RenderSystems};
use bevy::shader::ShaderCacheError;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy::world_serialization::WorldAssetRoot;

use bevy_qtangent::{
    DebugView, Mode, QTangentExtension, QTangentMaterial, QTangentMaterialPlugin, QTangentPlugin,
    frame_attribute, loader_settings,
};

const USAGE: &str = "usage: viewer FILE [--screenshot OUT.png] [--mode gpu|cpu|standard] \
[--debug lit|normal|tangent|bitangent] [--size WxH] [--camera EX,EY,EZ,TX,TY,TZ] [--fov DEGREES] \
[--animation N --time SECONDS] \
[--frames N] [--shadows] [--depth-prepass]

  FILE            a glTF or GLB file (packed by qtangent's `pack`, or any other)
  --screenshot    render headless (no window, no display needed) and write the image
  --mode          gpu: the plugin, frames decoded on the GPU with quaternion maps (default);
                  cpu: the plugin, frames decoded at load into NORMAL/TANGENT;
                  standard: Bevy's own loader and StandardMaterial, no plugin
  --debug         lit (default), or the pixel's world normal / tangent / bitangent as 0.5 + 0.5 v,
                  untonemapped
  --size          image or window size (default 960x540)
  --camera        eye and target (default: framing the scene's bounds; the run prints it)
  --fov           the vertical field of view, degrees (default 45, Bevy's; `qtangent render`
                  draws at 40)
  --animation     play glTF animation N, paused at --time (default 0)
  --frames        render N frames more after the picture and print the mean frame time
  --shadows       the sun casts shadows (shadow maps)
  --depth-prepass the camera draws a depth prepass first";

/// Options of one run.
#[derive(Debug, Clone)]
struct Options {
    file: PathBuf,
    screenshot: Option<PathBuf>,
    mode: Option<Mode>,
    debug: DebugView,
    size: (u32, u32),
    camera: Option<(Vec3, Vec3)>,
    fov_deg: Option<f32>,
    animation: Option<(usize, f32)>,
    frames: u32,
    shadows: bool,
    depth_prepass: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        file: PathBuf::new(),
        screenshot: None,
        mode: Some(Mode::Gpu),
        debug: DebugView::Lit,
        size: (960, 540),
        camera: None,
        fov_deg: None,
        animation: None,
        frames: 0,
        shadows: false,
        depth_prepass: false,
    };
    let mut time = 0.0;
    let mut animation = None;
    let mut it = args.iter();
    let mut file = None;
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--help" | "-h" => return Err(USAGE.into()),
            "--screenshot" => o.screenshot = Some(value(a)?.into()),
            "--mode" => {
                o.mode = match value(a)?.as_str() {
                    "gpu" => Some(Mode::Gpu),
                    "cpu" => Some(Mode::Cpu),
                    "standard" => None,
                    m => return Err(format!("--mode {m}: gpu, cpu or standard")),
                }
            }
            "--debug" => {
                o.debug = match value(a)?.as_str() {
                    "lit" => DebugView::Lit,
                    "normal" => DebugView::Normal,
                    "tangent" => DebugView::Tangent,
                    "bitangent" => DebugView::Bitangent,
                    d => return Err(format!("--debug {d}: lit, normal, tangent or bitangent")),
                }
            }
            "--size" => {
                let v = value(a)?;
                let (w, h) = v
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                    .filter(|&(w, h): &(u32, u32)| w > 0 && h > 0 && w <= 8192 && h <= 8192)
                    .ok_or_else(|| format!("--size {v}: WIDTHxHEIGHT, 1 to 8192 each"))?;
                o.size = (w, h);
            }
            "--camera" => {
                let v = value(a)?;
                let n: Vec<f32> = v
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|_| format!("--camera {v}: six numbers"))?;
                let [ex, ey, ez, tx, ty, tz] = n[..] else {
                    return Err(format!("--camera {v}: six numbers, eye then target"));
                };
                o.camera = Some((Vec3::new(ex, ey, ez), Vec3::new(tx, ty, tz)));
            }
            "--fov" => {
                let v = value(a)?;
                let fov: f32 = v
                    .parse()
                    .ok()
                    .filter(|f| (1.0..=170.0).contains(f))
                    .ok_or_else(|| format!("--fov {v}: degrees, 1 to 170"))?;
                o.fov_deg = Some(fov);
            }
            "--animation" => {
                let v = value(a)?;
                animation = Some(
                    v.parse()
                        .map_err(|_| format!("--animation {v}: an index"))?,
                );
            }
            "--time" => {
                let v = value(a)?;
                time = v.parse().map_err(|_| format!("--time {v}: seconds"))?;
            }
            "--shadows" => o.shadows = true,
            "--depth-prepass" => o.depth_prepass = true,
            "--frames" => {
                let v = value(a)?;
                o.frames = v.parse().map_err(|_| format!("--frames {v}: a count"))?;
            }
            f if !f.starts_with("--") && file.is_none() => file = Some(PathBuf::from(f)),
            f => return Err(format!("unknown argument {f}\n{USAGE}")),
        }
    }
    o.file = file.ok_or_else(|| format!("no FILE\n{USAGE}"))?;
    o.animation = animation.map(|n| (n, time));
    if !o.file.is_file() {
        return Err(format!("{}: no such file", o.file.display()));
    }
    Ok(o)
}

/// Runs the viewer on command-line arguments (without the program name).
#[must_use]
fn view(args: Vec<String>) -> ExitCode {
    let options = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("viewer: {e}");
            return ExitCode::FAILURE;
        }
    };
    let has_display = std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty())
        || std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty());
    if options.screenshot.is_none() && !has_display {
        eprintln!(
            "viewer: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); use --screenshot OUT.png to render headless"
        );
        return ExitCode::FAILURE;
    }
    let failure = Arc::new(Mutex::new(None::<String>));
    run(options, failure.clone());
    match failure.lock().map(|f| f.clone()) {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(e)) => {
            eprintln!("viewer: {e}");
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::FAILURE,
    }
}

/// Where the run is.
#[derive(Resource)]
struct Run {
    options: Options,
    gltf: Handle<Gltf>,
    target: Option<Handle<Image>>,
    stage: Stage,
    failure: Arc<Mutex<Option<String>>>,
    /// Pipelines still compiling and pipelines that failed, from the render world.
    pipelines: Arc<PipelineReport>,
    frame_times: Vec<f32>,
    started: Instant,
    /// The scene is spawned.
    spawned: bool,
}

#[derive(Default)]
struct PipelineReport {
    waiting: AtomicUsize,
    errors: Mutex<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    /// Waiting for the file and its scene.
    Loading,
    /// Scene spawned: placing the camera and the animation, counting frames.
    Placed(u32),
    /// Pipelines compiled for this many consecutive frames.
    Settling(u32),
    /// The screenshot is asked for.
    Capturing,
    /// Timing frames.
    Timing,
    Done,
}

/// How long the headless run may take before it gives up (lavapipe compiles every pipeline on
/// the CPU; FlightHelmet's take about a minute).
const TIMEOUT: Duration = Duration::from_secs(600);

fn run(options: Options, failure: Arc<Mutex<Option<String>>>) {
    let file = std::fs::canonicalize(&options.file).unwrap_or_else(|_| options.file.clone());
    let folder = file
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let headless = options.screenshot.is_some();
    let (w, h) = options.size;
    let mut app = App::new();
    let window = WindowPlugin {
        primary_window: (!headless).then(|| Window {
            title: format!("bevy_qtangent — {}", options.file.display()),
            resolution: (w, h).into(),
            ..default()
        }),
        exit_condition: if headless {
            ExitCondition::DontExit
        } else {
            ExitCondition::OnAllClosed
        },
        ..default()
    };
    let assets = AssetPlugin {
        file_path: folder.to_string_lossy().into_owned(),
        ..default()
    };
    // Pipelines compiled before the frame that needs them: the picture is ready in a few frames
    // (lavapipe compiles on the CPU), and is the same picture either way.
    let render = RenderPlugin {
        synchronous_pipeline_compilation: true,
        ..default()
    };
    let plugins = DefaultPlugins.set(window).set(assets).set(render);
    if headless {
        app.add_plugins(plugins.disable::<WinitPlugin>())
            .add_plugins(ScheduleRunnerPlugin::run_loop(Duration::ZERO));
    } else {
        app.add_plugins(plugins);
    }
    match options.mode {
        Some(mode) => {
            app.add_plugins(QTangentPlugin {
                mode,
                debug: options.debug,
            });
        }
        None => {
            app.add_plugins(QTangentMaterialPlugin);
        }
    }
    let report = render_world_probes(&mut app, options.frames > 0);
    let name = file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let gltf = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(loader_settings)
        .load::<Gltf>(name.clone());
    app.insert_resource(Run {
        options,
        gltf,
        target: None,
        stage: Stage::Loading,
        failure,
        pipelines: report,
        frame_times: Vec::new(),
        started: Instant::now(),
        spawned: false,
    })
    .add_systems(Startup, setup)
    .add_systems(Update, ((advance, draw).chain(), debug_materials));
    app.run();
}

/// The render world's part: every frame, the pipelines still compiling and those that failed
/// (for the main world to wait on and report); with `timed`, a wait for the device after each
/// frame.
fn render_world_probes(app: &mut App, timed: bool) -> Arc<PipelineReport> {
    if timed {
        // Each timed frame ends when the GPU has finished it (there is no swapchain to wait on).
        app.sub_app_mut(RenderApp).add_systems(
            Render,
            (|device: Res<RenderDevice>| {
                let _ = device.poll(PollType::wait_indefinitely());
            })
            .after(RenderSystems::Render),
        );
    }
    let report = Arc::new(PipelineReport::default());
    let for_render = report.clone();
    app.sub_app_mut(RenderApp)
        .add_systems(Render, move |cache: Res<PipelineCache>| {
            for_render
                .waiting
                .store(cache.waiting_pipelines().count(), Ordering::Relaxed);
            let errors: Vec<String> = cache
                .pipelines()
                .filter_map(|p| match &p.state {
                    // A shader or an import still loading is retried by Bevy: waiting.
                    CachedPipelineState::Err(
                        ShaderCacheError::ShaderNotLoaded(_)
                        | ShaderCacheError::ShaderImportNotYetAvailable,
                    ) => None,
                    CachedPipelineState::Err(e) => Some(format!("{e:?}")),
                    _ => None,
                })
                .collect();
            if !errors.is_empty()
                && let Ok(mut e) = for_render.errors.lock()
            {
                *e = errors;
            }
        });
    report
}

fn setup(mut commands: Commands, mut run: ResMut<Run>, mut images: ResMut<Assets<Image>>) {
    let mut camera = commands.spawn((
        Camera3d::default(),
        // No dithering: pictures compared pixel by pixel.
        DebandDither::Disabled,
        Transform::from_xyz(0.0, 0.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    if run.options.debug != DebugView::Lit {
        camera.insert(Tonemapping::None);
    }
    if let Some(fov) = run.options.fov_deg {
        camera.insert(Projection::from(PerspectiveProjection {
            fov: fov.to_radians(),
            ..Default::default()
        }));
    }
    if run.options.depth_prepass {
        camera.insert(bevy::core_pipeline::prepass::DepthPrepass);
    }
    if run.options.screenshot.is_some() {
        let (w, h) = run.options.size;
        let mut image = Image::new_target_texture(w, h, TextureFormat::Rgba8UnormSrgb, None);
        image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
        let handle = images.add(image);
        camera.insert(RenderTarget::Image(handle.clone().into()));
        run.target = Some(handle);
    }
    // A default light: a sun from above, front and right, and a little ambient light.
    commands.spawn((
        DirectionalLight {
            illuminance: 8_000.0,
            shadow_maps_enabled: run.options.shadows,
            ..default()
        },
        Transform::from_xyz(1.0, 2.0, 1.5).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 300.0,
        ..default()
    });
}

/// With `--debug`, every StandardMaterial becomes the plugin's material with the debug view
/// (Bevy's own tangents drawn by the same shader as the plugin's).
fn debug_materials(
    mut commands: Commands,
    run: Res<Run>,
    added: Query<
        (Entity, &MeshMaterial3d<StandardMaterial>),
        Added<MeshMaterial3d<StandardMaterial>>,
    >,
    standard: Res<Assets<StandardMaterial>>,
    mut ours: ResMut<Assets<QTangentMaterial>>,
) {
    if run.options.debug == DebugView::Lit {
        return;
    }
    for (entity, material) in &added {
        let base = standard.get(&material.0).cloned().unwrap_or_default();
        let handle = ours.add(QTangentMaterial {
            base,
            extension: QTangentExtension {
                debug: run.options.debug,
                ..default()
            },
        });
        commands
            .entity(entity)
            .remove::<MeshMaterial3d<StandardMaterial>>()
            .insert(MeshMaterial3d(handle));
    }
}

/// The vertices of every triangle mesh drawn with a frame and the bytes of their frame attributes: `_QTANGENT` in
/// any format, or NORMAL and TANGENT.
fn frame_bytes(meshes: &Assets<Mesh>, drawn: &Query<&Mesh3d>) -> (usize, usize) {
    let drawn: std::collections::HashSet<AssetId<Mesh>> = drawn.iter().map(|m| m.0.id()).collect();
    let frame_ids: Vec<_> = qtangent::Format::ALL
        .into_iter()
        .map(|f| frame_attribute(f).id)
        .chain([Mesh::ATTRIBUTE_NORMAL.id, Mesh::ATTRIBUTE_TANGENT.id])
        .collect();
    let mut vertices = 0;
    let mut bytes = 0;
    for (id, mesh) in meshes.iter() {
        if !drawn.contains(&id)
            || mesh.primitive_topology() != bevy::mesh::PrimitiveTopology::TriangleList
        {
            continue;
        }
        let frame: usize = mesh
            .attributes()
            .filter(|(a, _)| frame_ids.contains(&a.id))
            .map(|(a, _)| a.format.size() as usize)
            .sum();
        if frame > 0 {
            vertices += mesh.count_vertices();
            bytes += mesh.count_vertices() * frame;
        }
    }
    (vertices, bytes)
}

/// The box of every mesh in the world.
fn bounds(meshes: &Query<(&Aabb, &GlobalTransform)>) -> Option<(Vec3, Vec3)> {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for (aabb, transform) in meshes {
        let (c, e) = (Vec3::from(aabb.center), Vec3::from(aabb.half_extents));
        for i in 0..8 {
            let s = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            let p = transform.transform_point(c + e * s);
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    (lo.x <= hi.x).then_some((lo, hi))
}

/// The default camera: the bounding sphere of every mesh seen from the front, above and right.
fn framing(meshes: &Query<(&Aabb, &GlobalTransform)>, options: &Options) -> Option<(Vec3, Vec3)> {
    let (lo, hi) = bounds(meshes)?;
    let center = (lo + hi) * 0.5;
    let radius = ((hi - lo) * 0.5).length().max(1e-6);
    // The bounding sphere fits the narrower of the two half-angles with a little room: the
    // vertical one from `--fov` (Bevy's default π/4 without it), the horizontal one from it and
    // the picture's aspect.
    let half_y = (options
        .fov_deg
        .map_or(std::f32::consts::FRAC_PI_4, f32::to_radians)
        * 0.5)
        .tan();
    let (w, h) = options.size;
    let aspect = w as f32 / h.max(1) as f32;
    let half = half_y.min(half_y * aspect.max(1e-3)).atan();
    let distance = radius / half.sin() * 1.05;
    let dir = Vec3::new(0.35, 0.25, 1.0).normalize();
    Some((center + dir * distance, center))
}

/// Asks for the picture of `target`, written to `path`; the run goes on to timing or ends once
/// it is written.
fn capture(commands: &mut Commands, target: Handle<Image>, path: PathBuf) {
    let done = path.clone();
    commands
        .spawn(Screenshot::image(target))
        .observe(save_to_disk(path))
        .observe(
            move |_: On<bevy::render::view::screenshot::ScreenshotCaptured>,
                  mut run: ResMut<Run>| {
                println!("screenshot: {}", done.display());
                run.stage = if run.options.frames > 0 {
                    Stage::Timing
                } else {
                    Stage::Done
                };
            },
        );
}

/// Records the first failure, asks the app to exit with an error, and stops the run.
fn fail(run: &mut Run, exit: &mut MessageWriter<AppExit>, e: String) {
    if let Ok(mut f) = run.failure.lock() {
        f.get_or_insert(e);
    }
    exit.write(AppExit::error());
    run.stage = Stage::Done;
}

/// The stages up to the placed scene: failures and the time limit, the file, the scene, the
/// camera and the pose.
#[allow(clippy::too_many_arguments)]
fn advance(
    mut commands: Commands,
    mut run: ResMut<Run>,
    assets: Res<AssetServer>,
    gltfs: Res<Assets<Gltf>>,
    meshes: Query<(&Aabb, &GlobalTransform)>,
    mut cameras: Query<&mut Transform, With<Camera3d>>,
    mut players: Query<(Entity, &mut AnimationPlayer)>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    mesh_assets: Res<Assets<Mesh>>,
    drawn: Query<&Mesh3d>,
    mut exit: MessageWriter<AppExit>,
) {
    if let Some(e) = run
        .pipelines
        .errors
        .lock()
        .ok()
        .and_then(|e| e.first().cloned())
    {
        let message = format!("a pipeline failed: {e}");
        fail(&mut run, &mut exit, message);
        return;
    }
    if run.started.elapsed() > TIMEOUT && run.stage != Stage::Done {
        let message = format!(
            "not drawn within {} s (stage {:?})",
            TIMEOUT.as_secs(),
            run.stage
        );
        fail(&mut run, &mut exit, message);
        return;
    }
    match run.stage {
        Stage::Loading => {
            if let Some(bevy::asset::LoadState::Failed(e)) = assets.get_load_state(&run.gltf) {
                let message = format!("{}: {e}", run.options.file.display());
                fail(&mut run, &mut exit, message);
                return;
            }
            if !assets.is_loaded_with_dependencies(&run.gltf) {
                return;
            }
            if !run.spawned {
                // The file's scene from the one load of the file (a second load of the same
                // path could start before the first is known, without the loader settings).
                let scene = gltfs.get(&run.gltf).and_then(|g| {
                    g.default_scene
                        .clone()
                        .or_else(|| g.scenes.first().cloned())
                });
                let Some(scene) = scene else {
                    let message = format!("{}: no scene", run.options.file.display());
                    fail(&mut run, &mut exit, message);
                    return;
                };
                commands.spawn(WorldAssetRoot(scene));
                run.spawned = true;
            } else if !meshes.is_empty() {
                run.stage = Stage::Placed(0);
            }
        }
        Stage::Placed(n) => {
            // One frame for transforms to propagate, then the camera and the pose.
            if n == 1 {
                let Some((eye, target)) = run
                    .options
                    .camera
                    .or_else(|| framing(&meshes, &run.options))
                else {
                    fail(&mut run, &mut exit, "the scene has no meshes".into());
                    return;
                };
                println!(
                    "camera: {},{},{},{},{},{}",
                    eye.x, eye.y, eye.z, target.x, target.y, target.z
                );
                let (vertices, bytes) = frame_bytes(&mesh_assets, &drawn);
                if vertices > 0 {
                    println!(
                        "frame bytes: {bytes} for {vertices} vertices ({:.2} a vertex)",
                        bytes as f64 / vertices as f64
                    );
                }
                for mut t in &mut cameras {
                    *t = Transform::from_translation(eye).looking_at(target, Vec3::Y);
                }
                if let Some((index, seconds)) = run.options.animation {
                    let clip = gltfs
                        .get(&run.gltf)
                        .and_then(|g| g.animations.get(index).cloned());
                    let Some(clip) = clip else {
                        let message = format!("the file has no animation {index}");
                        fail(&mut run, &mut exit, message);
                        return;
                    };
                    let (graph, node) = AnimationGraph::from_clip(clip);
                    let graph = graphs.add(graph);
                    for (entity, mut player) in &mut players {
                        player.play(node).seek_to(seconds).pause();
                        commands
                            .entity(entity)
                            .insert(AnimationGraphHandle(graph.clone()));
                    }
                }
            }
            run.stage = if n >= 3 {
                Stage::Settling(0)
            } else {
                Stage::Placed(n + 1)
            };
        }
        _ => {}
    }
}

/// The stages after the scene is placed: the pipelines settle, the picture, the timed frames.
fn draw(
    mut commands: Commands,
    mut run: ResMut<Run>,
    time: Res<Time<Real>>,
    mut exit: MessageWriter<AppExit>,
) {
    match run.stage {
        Stage::Settling(n) => {
            let waiting = run.pipelines.waiting.load(Ordering::Relaxed);
            let n = if waiting == 0 { n + 1 } else { 0 };
            if n < 10 {
                run.stage = Stage::Settling(n);
            } else if let (Some(target), Some(path)) =
                (run.target.clone(), run.options.screenshot.clone())
            {
                capture(&mut commands, target, path);
                run.stage = Stage::Capturing;
            } else {
                run.stage = Stage::Timing;
            }
        }
        Stage::Loading | Stage::Placed(_) | Stage::Capturing => {}
        Stage::Timing => {
            if run.frame_times.len() as u32 >= run.options.frames {
                if !run.frame_times.is_empty() {
                    let mean = run.frame_times.iter().sum::<f32>() / run.frame_times.len() as f32;
                    println!(
                        "frame time: {:.3} ms mean over {} frames",
                        mean * 1e3,
                        run.frame_times.len()
                    );
                }
                run.stage = Stage::Done;
            } else {
                let dt = time.delta_secs();
                run.frame_times.push(dt);
            }
        }
        Stage::Done => {
            if run.options.screenshot.is_some() {
                exit.write(AppExit::Success);
            }
        }
    }
}

fn main() -> ExitCode {
    view(std::env::args().skip(1).collect())
}
