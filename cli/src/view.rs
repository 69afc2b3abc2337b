//! `qtangent view`: `qtangent render`'s scenes in a window (winit). Left-drag orbits, the wheel
//! zooms, keys switch the frame source (reference, qtangent, quaternion map), cycle the qtangent
//! format and toggle the anisotropic material. It draws with the same [`Renderer`] as `render`,
//! into the window's surface instead of an offscreen image.
//!
//! A file with skinned objects and the Fox's `Walk` and `Run` clips plays live: the walk/run
//! blend ([`BlendMethod::Locked`]) at a speed the arrows set, skinned on the GPU
//! every frame as `animate` does, on a checkered ground, the camera following the animal.
//!
//! ```sh
//! qtangent view                       # the embedded default scene
//! qtangent view ../shared/assets/gltf/FlightHelmet/FlightHelmet.gltf
//! qtangent view ../shared/assets/gltf/Fox.glb   # walks and runs
//! qtangent view model.glb --screenshot shot.png --size 1280x720   # headless: no window
//! ```
//!
//! `--screenshot OUT.png` opens no window and needs no display: the first frame's view (the
//! starting mode, format and camera; a skinned file in its bind pose, without the ground) drawn
//! offscreen at `--size` and written whole.
//!
//! Keys: `1` reference, `2` qtangent, `3` object-space quaternion map, `4` tangent-space
//! quaternion map, `M` next mode (cycles all four), `F` next qtangent format, `A`
//! anisotropy override on/off, `L` turn the sun 15°, `R` reset the camera, `Esc` quit; when
//! animating also `↑`/`↓` faster/slower, `S` automatic walk → run → walk on/off, `K` LBS/DQS.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::{Mat4, Vec3};
use qtangent::anim::{speed_ramp, BlendMethod, Locomotion, Player};
use qtangent::gpu::GpuContext;
use qtangent::gpu::{GpuScene, Output, Renderer, View, DEPTH_FORMAT};
use qtangent::gpu::{RigBatch, SkinPipeline};
use qtangent::render::{Camera, FrameSource, Lighting};
use qtangent::render::{MapSource, RenderScene};
use qtangent::skin::{Rig, SkinMethod};
use qtangent::{mesh, Format};
use winit::application::ApplicationHandler;
use winit::dpi::{LogicalSize, PhysicalPosition};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, KeyCode, NamedKey, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::{console, files, fox, names, pass, scene, size_arg, Verbosity};

const KEY_HELP: &str = "keys: left-drag orbit, wheel zoom, 1 reference, 2 qtangent, \
     3 object-space quaternion map, 4 tangent-space quaternion map, M next mode, \
     F next qtangent format, A anisotropy on/off, L sun +15°, R reset camera, \
     Esc quit";
const ANIM_KEY_HELP: &str = "animation keys: up/down faster/slower, S walk → run → walk on/off, \
     K LBS/DQS skinning";

/// Anisotropy strength the `A` key forces on every material.
const ANISOTROPY_ON: f32 = 0.8;
/// Degrees the `L` key turns the sun.
const SUN_STEP_DEG: f32 = 15.0;
/// Sun elevation, degrees (as `View::fitted`).
const SUN_PITCH_DEG: f32 = 50.0;
/// Orbit degrees per logical pixel dragged.
const ORBIT_DEG_PER_PIXEL: f32 = 0.3;
/// Distance factor per wheel line (scrolling up zooms in).
const ZOOM_PER_LINE: f32 = 0.9;
/// Pixels of a touchpad scroll counted as one wheel line.
const PIXELS_PER_LINE: f64 = 40.0;
/// How often the window title's frame time is refreshed.
const TITLE_INTERVAL: Duration = Duration::from_millis(250);
/// How long to wait before asking again for a surface texture that timed out or is occluded.
const RETRY_INTERVAL: Duration = Duration::from_millis(100);
/// Length of the `S` key's walk → run → walk schedule ([`speed_ramp`]), seconds.
const RAMP_SECONDS: f32 = 8.0;
/// Samples a second of that schedule.
const RAMP_RATE: f32 = 60.0;
/// `↑`/`↓` presses from the walk speed to the run speed.
const SPEED_STEPS: f32 = 8.0;
/// Longest animation step, seconds: after a stall (window dragged, minimised) the animal
/// carries on instead of jumping. Frames slower than this play slower than real time
/// (llvmpipe takes ~130 ms a frame with the ground at 1280×720).
const MAX_STEP: f32 = 0.25;
/// Half-size of the ground under an animated file, in radii of the animal.
const GROUND_RADII: f32 = 24.0;

/// `qtangent view`'s flags.
#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    #[command(flatten)]
    scene: scene::SceneArgs,
    /// The frame source to start with: reference | qtangent | quatmap | quatmap-tangent.
    #[arg(long, default_value = "qtangent", value_parser = ["reference", "qtangent", "quatmap", "quatmap-tangent"])]
    mode: String,
    /// The qtangent vertex frame format to start with (`F` cycles through all six).
    #[arg(long, default_value = "snorm16x4", value_parser = names::<Format>(Format::ALL.map(Format::name)))]
    frames: Format,
    /// Camera yaw about +Y, degrees (0 looks from +Z).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true)]
    yaw: f32,
    /// Camera pitch above the horizon, degrees.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    pitch: f32,
    /// Present without waiting for vertical sync, so the title shows the real frame time.
    #[arg(long)]
    no_vsync: bool,
    /// Headless: draw the first frame offscreen and write it to this .png (no window, no
    /// display needed).
    #[arg(long, value_name = "OUT.png")]
    screenshot: Option<std::path::PathBuf>,
    /// The screenshot's size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = size_arg, requires = "screenshot")]
    size: (u32, u32),
}

type Args = ViewArgs;

/// Runs `qtangent view`: `Err` for a refusal (before any work), `Ok(false)` for a failure
/// (printed here).
pub fn run(args: &Args, say: Verbosity) -> Result<bool, String> {
    args.scene.check()?;
    if let Some(shot) = &args.screenshot {
        crate::check_picture_size("--size", args.size)?;
        let png = shot
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
        if !png || shot.is_dir() {
            return Err(format!(
                "--screenshot {}: name a .png file to write",
                shot.display()
            ));
        }
    }
    let result = match &args.screenshot {
        Some(shot) => screenshot(args, shot, say),
        None => view(args.clone(), say),
    };
    match result {
        Ok(()) => Ok(true),
        Err(e) => {
            eprintln!("qtangent view: {e}");
            Ok(false)
        }
    }
}

/// `--screenshot`: the first frame's view drawn offscreen and written to `path`.
fn screenshot(args: &Args, path: &Path, say: Verbosity) -> Result<(), String> {
    let scene = args.scene.load()?;
    if say > Verbosity::Quiet {
        for w in &scene.warnings {
            eprintln!("qtangent view: warning: {w}");
        }
    }
    let options = args.scene.map_options()?;
    let (ctx, renderer, gpu) = scene::open("qtangent view", &scene, &[args.frames], &options)?;
    let (width, height) = args.size;
    // As the window's first frame: `View::fitted`'s camera and sun.
    let view = View::fitted(&scene, width as f32 / height as f32, args.yaw, args.pitch);
    let mode = Mode::from_arg(&args.mode);
    let source = mode.source(args.frames);
    let img = renderer
        .render_image(&ctx, &gpu, &view, source, width, height)
        .map_err(|e| format!("drawing {} in {source} mode: {e}", scene.name))?;
    files::save_png(&img, path)?;
    if say > Verbosity::Quiet {
        out!(
            "{}; {source}, {width}×{height} on {ctx}: wrote {}",
            scene::summary(&scene, &gpu),
            path.display()
        );
    }
    Ok(())
}

/// The window.
fn view(args: Args, say: Verbosity) -> Result<(), String> {
    // The display first: without one, loading and baking would be wasted (`--screenshot` needs
    // none).
    let event_loop = EventLoop::new().map_err(|e| {
        format!("cannot open a window (no display?): {e}; --screenshot OUT.png draws without one")
    })?;
    let scene = args.scene.load()?;
    // Checked before the window opens.
    args.scene.map_options()?;
    let skinned = if scene.objects.iter().any(|o| o.skin.is_some()) {
        match Skinned::prepare(&args.scene.scene, &scene) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("qtangent view: warning: shown unanimated: {e}");
                None
            }
        }
    } else {
        None
    };
    for w in &scene.warnings {
        // The loader's note that skinning is not applied is true only without the animation.
        let anim_note = skinned.is_some() && *w.kind() == qtangent::WarningKind::SkinnedInBindPose;
        if !anim_note && say > Verbosity::Quiet {
            eprintln!("qtangent view: warning: {w}");
        }
    }
    event_loop.set_control_flow(ControlFlow::Wait);
    out!("{KEY_HELP}");
    if skinned.is_some() {
        out!("{ANIM_KEY_HELP}");
    }
    let mut app = App {
        args,
        scene: Some((scene, skinned)),
        viewer: None,
        failure: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| format!("the window's event loop failed: {e}"))?;
    match app.failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Command {
    Mode(Mode),
    NextMode,
    NextFormat,
    Anisotropy,
    Sun,
    ResetCamera,
    Quit,
    /// Animation: desired speed one step up (+1) or down (−1).
    Speed(f32),
    /// Animation: the automatic walk → run → walk ramp on/off.
    Ramp,
    /// Animation: linear-blend ↔ dual-quaternion skinning.
    SkinMethod,
}

/// The four frame sources; the qtangent format is kept apart so `F` works in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Reference,
    QTangent,
    QuatMap,
    QuatMapTangent,
}

impl Mode {
    /// The frame source of this mode, qtangent frames in `format`.
    fn source(self, format: Format) -> FrameSource {
        match self {
            Mode::Reference => FrameSource::Reference,
            Mode::QTangent => FrameSource::QTangent(format),
            Mode::QuatMap => FrameSource::QuatMap,
            Mode::QuatMapTangent => FrameSource::QuatMapTangent,
        }
    }

    /// The mode `--mode` names.
    fn from_arg(name: &str) -> Self {
        match name {
            "reference" => Mode::Reference,
            "quatmap" => Mode::QuatMap,
            "quatmap-tangent" => Mode::QuatMapTangent,
            _ => Mode::QTangent,
        }
    }

    /// The next mode in the `M` cycle.
    fn next(self) -> Self {
        match self {
            Mode::Reference => Mode::QTangent,
            Mode::QTangent => Mode::QuatMap,
            Mode::QuatMap => Mode::QuatMapTangent,
            Mode::QuatMapTangent => Mode::Reference,
        }
    }
}

impl Command {
    /// The command of a key press: letters by the character they type, digits by their place
    /// on the keyboard (so `1`–`4` work on layouts that type them shifted).
    fn of(event: &KeyEvent) -> Option<Self> {
        if event.state != ElementState::Pressed {
            return None;
        }
        let command = match &event.logical_key {
            Key::Named(NamedKey::Escape) => Some(Self::Quit),
            Key::Named(NamedKey::ArrowUp) => Some(Self::Speed(1.0)),
            Key::Named(NamedKey::ArrowDown) => Some(Self::Speed(-1.0)),
            Key::Character(c) => match c.to_lowercase().as_str() {
                "m" => Some(Self::NextMode),
                "1" => Some(Self::Mode(Mode::Reference)),
                "2" => Some(Self::Mode(Mode::QTangent)),
                "3" => Some(Self::Mode(Mode::QuatMap)),
                "f" => Some(Self::NextFormat),
                "a" => Some(Self::Anisotropy),
                "l" => Some(Self::Sun),
                "r" => Some(Self::ResetCamera),
                "s" => Some(Self::Ramp),
                "k" => Some(Self::SkinMethod),
                _ => None,
            },
            _ => None,
        };
        let command = command.or(match event.physical_key {
            PhysicalKey::Code(KeyCode::Digit1 | KeyCode::Numpad1) => {
                Some(Self::Mode(Mode::Reference))
            }
            PhysicalKey::Code(KeyCode::Digit2 | KeyCode::Numpad2) => {
                Some(Self::Mode(Mode::QTangent))
            }
            PhysicalKey::Code(KeyCode::Digit3 | KeyCode::Numpad3) => {
                Some(Self::Mode(Mode::QuatMap))
            }
            PhysicalKey::Code(KeyCode::Digit4 | KeyCode::Numpad4) => {
                Some(Self::Mode(Mode::QuatMapTangent))
            }
            _ => None,
        })?;
        // Holding `L` or an arrow keeps acting; every other key acts once a press.
        let repeats = matches!(command, Self::Sun | Self::Speed(_));
        (!event.repeat || repeats).then_some(command)
    }
}

struct App {
    args: Args,
    /// The scene and its animation until they are uploaded (then only the GPU copy is kept).
    scene: Option<(RenderScene, Option<Skinned>)>,
    viewer: Option<Viewer>,
    /// Why the viewer stopped, reported once the event loop has returned.
    failure: Option<String>,
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, message: String) {
        self.failure.get_or_insert(message);
        event_loop.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.viewer.is_some() || self.failure.is_some() {
            return;
        }
        let Some((scene, skinned)) = self.scene.take() else {
            return;
        };
        match Viewer::new(event_loop, &self.args, scene, skinned) {
            Ok(v) => {
                v.window.request_redraw();
                self.viewer = Some(v);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(v) = self.viewer.as_mut() else {
            return;
        };
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(_) => v.configure(),
            WindowEvent::KeyboardInput { event, .. } => match Command::of(&event) {
                Some(Command::Quit) => {
                    event_loop.exit();
                    Ok(())
                }
                Some(c) => {
                    v.apply(c);
                    Ok(())
                }
                None => Ok(()),
            },
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                v.dragging = state == ElementState::Pressed;
                Ok(())
            }
            WindowEvent::CursorMoved { position, .. } => {
                v.cursor_moved(position);
                Ok(())
            }
            WindowEvent::CursorLeft { .. } => {
                v.cursor = None;
                Ok(())
            }
            WindowEvent::MouseWheel { delta, .. } => {
                v.zoom(delta);
                Ok(())
            }
            WindowEvent::Occluded(false) => {
                v.window.request_redraw();
                Ok(())
            }
            WindowEvent::RedrawRequested => v.redraw(),
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.fail(event_loop, e);
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(v) = self.viewer.as_mut() else {
            return;
        };
        match v.retry_at {
            Some(t) if Instant::now() >= t => {
                v.retry_at = None;
                v.window.request_redraw();
                event_loop.set_control_flow(ControlFlow::Wait);
            }
            Some(t) => event_loop.set_control_flow(ControlFlow::WaitUntil(t)),
            None => event_loop.set_control_flow(ControlFlow::Wait),
        }
    }
}

/// The window, its surface and everything drawn into it.
struct Viewer {
    window: Arc<Window>,
    instance: wgpu::Instance,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The format the pipelines render to: the surface's, or its sRGB view.
    view_format: wgpu::TextureFormat,
    depth: wgpu::TextureView,
    ctx: GpuContext,
    renderer: Renderer,
    gpu: GpuScene,
    scene_name: String,
    /// The scene's bounding sphere (the animal's, in its bind pose, when animating).
    bounds: (Vec3, f32),
    /// The camera angles `R` returns to.
    home: (f32, f32),
    /// The fitted distance at start: the zoom is clamped around it.
    base_distance: f32,
    view: View,
    mode: Mode,
    format: Format,
    sun_yaw: f32,
    dragging: bool,
    cursor: Option<PhysicalPosition<f64>>,
    /// When the previous frame was presented.
    last_present: Option<Instant>,
    /// Smoothed interval between presents, milliseconds.
    frame_ms: Option<f64>,
    last_title: Option<Instant>,
    /// When set, the surface had no texture to give: ask again at this time.
    retry_at: Option<Instant>,
    /// The walk/run animation, when the file has one.
    anim: Option<Animation>,
}

impl Viewer {
    /// Opens the window, finds an adapter that can present to it and uploads `scene` with every
    /// qtangent format; with `skinned`, on a ground and skinned on the GPU (a failure there is a
    /// warning: the scene is shown unanimated).
    fn new(
        event_loop: &ActiveEventLoop,
        args: &Args,
        mut scene: RenderScene,
        skinned: Option<Skinned>,
    ) -> Result<Self, String> {
        let window = open_window(event_loop, &scene.name)?;
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = create_surface(&instance, &window)?;
        let ctx = pollster::block_on(GpuContext::for_surface(&instance, &surface))
            .map_err(|e| console::advise(&e))?;
        let size = window.inner_size();
        let (config, view_format) = surface_config(&surface, &ctx, size, args.no_vsync)?;
        let aspect = size.width.max(1) as f32 / size.height.max(1) as f32;
        // Fitted before the ground is added, so the camera frames the animal.
        let view = View::fitted(&scene, aspect, args.yaw, args.pitch);
        let bounds = scene.bounds();
        let skinned = skinned.and_then(|s| match s.dress(&mut scene) {
            Ok(()) => Some(s),
            Err(e) => {
                eprintln!(
                    "qtangent view: warning: {}: shown unanimated: {e}",
                    scene.name
                );
                None
            }
        });
        let renderer = Renderer::new(&ctx).map_err(|e| e.to_string())?;
        let options = args.scene.map_options()?;
        let mut gpu = scene::upload(
            "qtangent view",
            &ctx,
            &renderer,
            &scene,
            &Format::ALL,
            &options,
        )?;
        out!("{}; on {}", scene::summary(&scene, &gpu), ctx);
        let anim = skinned.and_then(|s| match s.start(&ctx, &mut gpu) {
            Ok(a) => Some(a),
            Err(e) => {
                eprintln!(
                    "qtangent view: warning: {}: shown unanimated: {e}",
                    scene.name
                );
                None
            }
        });
        let depth = depth_view(&ctx, config.width, config.height);
        let mut viewer = Self {
            instance,
            surface,
            view_format,
            depth,
            renderer,
            gpu,
            scene_name: scene.name.clone(),
            bounds,
            home: (args.yaw, args.pitch),
            base_distance: view.camera.distance,
            view,
            mode: Mode::from_arg(&args.mode),
            format: args.frames,
            sun_yaw: args.yaw - 40.0,
            dragging: false,
            cursor: None,
            last_present: None,
            frame_ms: None,
            last_title: None,
            retry_at: None,
            anim,
            config,
            ctx,
            window,
        };
        viewer.configure()?;
        viewer.set_title();
        Ok(viewer)
    }

    fn source(&self) -> FrameSource {
        self.mode.source(self.format)
    }

    fn aspect(&self) -> f32 {
        self.config.width as f32 / self.config.height as f32
    }

    /// (Re)configures the surface for the window's current size and remakes the depth buffer;
    /// nothing while the window has no area (minimised).
    fn configure(&mut self) -> Result<(), String> {
        let size = self.window.inner_size();
        if size.width == 0 || size.height == 0 {
            return Ok(());
        }
        let limit = self.ctx.device.limits().max_texture_dimension_2d;
        self.config.width = size.width.min(limit);
        self.config.height = size.height.min(limit);
        self.ctx
            .scoped("configuring the window's surface", || {
                self.surface.configure(&self.ctx.device, &self.config);
            })
            .map_err(|e| e.to_string())?;
        self.depth = depth_view(&self.ctx, self.config.width, self.config.height);
        self.window.request_redraw();
        Ok(())
    }

    fn apply(&mut self, command: Command) {
        match (command, self.anim.as_mut()) {
            (Command::Speed(_) | Command::Ramp | Command::SkinMethod, None) => return,
            (Command::Speed(steps), Some(a)) => a.step_speed(steps),
            (Command::Ramp, Some(a)) => a.toggle_ramp(),
            (Command::SkinMethod, Some(a)) => {
                let next = match a.batch.batch().method() {
                    SkinMethod::Linear => SkinMethod::DualQuaternion,
                    SkinMethod::DualQuaternion => SkinMethod::Linear,
                };
                a.batch.batch_mut().set_method(next);
            }
            _ => {}
        }
        match command {
            Command::Mode(m) => self.mode = m,
            Command::NextMode => self.mode = self.mode.next(),
            Command::NextFormat => {
                let at = Format::ALL
                    .iter()
                    .position(|&f| f == self.format)
                    .unwrap_or(0);
                let next = (at + 1) % Format::ALL.len();
                self.format = Format::ALL[next];
                self.mode = Mode::QTangent;
            }
            Command::Anisotropy => {
                self.view.anisotropy_override = match self.view.anisotropy_override {
                    Some(_) => None,
                    None => Some(ANISOTROPY_ON),
                };
            }
            Command::Sun => {
                self.sun_yaw = (self.sun_yaw + SUN_STEP_DEG).rem_euclid(360.0);
                let (center, radius) = self.bounds;
                let exposure = self.view.lighting.exposure;
                self.view.lighting = Lighting::studio(center, radius, self.sun_yaw, SUN_PITCH_DEG);
                self.view.lighting.exposure = exposure;
            }
            Command::ResetCamera => {
                let (center, radius) = self.bounds;
                let (yaw, pitch) = self.home;
                self.view.camera = Camera::fit(center, radius, self.aspect(), yaw, pitch);
            }
            Command::Quit | Command::Speed(_) | Command::Ramp | Command::SkinMethod => {}
        }
        let anim = self
            .anim
            .as_ref()
            .map_or_else(String::new, |a| format!(" | {}", a.label()));
        out!(
            "{} | anisotropy {} | sun at {:.0}°{anim}",
            self.source(),
            self.anisotropy_label(),
            self.sun_yaw
        );
        self.set_title();
        self.window.request_redraw();
    }

    fn anisotropy_label(&self) -> String {
        match self.view.anisotropy_override {
            Some(s) => format!("on ({s})"),
            None => "off".to_string(),
        }
    }

    fn set_title(&mut self) {
        let time = self
            .frame_ms
            .map_or_else(|| "–".to_string(), |ms| format!("{ms:.1} ms"));
        let anim = self
            .anim
            .as_ref()
            .map_or_else(String::new, |a| format!(" — {}", a.label()));
        self.window.set_title(&format!(
            "{} — {} — anisotropy {}{anim} — {time} — qtangent viewer",
            self.scene_name,
            self.source(),
            self.anisotropy_label()
        ));
        self.last_title = Some(Instant::now());
    }

    fn cursor_moved(&mut self, position: PhysicalPosition<f64>) {
        if let (true, Some(last)) = (self.dragging, self.cursor) {
            let scale = self.window.scale_factor();
            let dx = ((position.x - last.x) / scale) as f32;
            let dy = ((position.y - last.y) / scale) as f32;
            let camera = &mut self.view.camera;
            // Grab and turn: dragging right turns the scene right, dragging down tips it
            // towards the viewer.
            camera.yaw_deg = (camera.yaw_deg - dx * ORBIT_DEG_PER_PIXEL).rem_euclid(360.0);
            camera.pitch_deg = (camera.pitch_deg + dy * ORBIT_DEG_PER_PIXEL).clamp(-89.0, 89.0);
            self.window.request_redraw();
        }
        self.cursor = Some(position);
    }

    fn zoom(&mut self, delta: MouseScrollDelta) {
        let lines = match delta {
            MouseScrollDelta::LineDelta(_, y) => y,
            MouseScrollDelta::PixelDelta(p) => (p.y / PIXELS_PER_LINE) as f32,
        };
        let camera = &mut self.view.camera;
        camera.distance = (camera.distance * ZOOM_PER_LINE.powf(lines))
            .clamp(self.base_distance * 0.02, self.base_distance * 20.0);
        self.window.request_redraw();
    }

    /// Draws a frame into the window and asks for the next one.
    fn redraw(&mut self) -> Result<(), String> {
        let size = self.window.inner_size();
        if size.width == 0 || size.height == 0 {
            // Minimised: the next `Resized` asks for a frame again.
            self.last_present = None;
            return Ok(());
        }
        let Some((frame, suboptimal)) = self.acquire()? else {
            return Ok(());
        };
        self.animate();
        self.draw(&frame.texture)?;
        self.window.pre_present_notify();
        self.ctx.queue.present(frame);
        self.count_frame();
        if suboptimal {
            self.configure()?;
        }
        self.window.request_redraw();
        Ok(())
    }

    /// The surface's next texture and whether it is suboptimal; `None` when there is none to
    /// draw into now (a retry is scheduled, or the surface is configured or made again and a
    /// frame asked for).
    fn acquire(&mut self) -> Result<Option<(wgpu::SurfaceTexture, bool)>, String> {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => Ok(Some((t, false))),
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => Ok(Some((t, true))),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                self.last_present = None;
                self.retry_at = Some(Instant::now() + RETRY_INTERVAL);
                Ok(None)
            }
            wgpu::CurrentSurfaceTexture::Outdated => self.configure().map(|()| None),
            wgpu::CurrentSurfaceTexture::Lost => {
                self.surface = create_surface(&self.instance, &self.window)?;
                self.configure().map(|()| None)
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                let reason = self
                    .ctx
                    .scoped("acquiring the window's texture", || ())
                    .err()
                    .map_or_else(|| "a validation error".to_string(), |e| e.to_string());
                Err(format!("the window's surface gave no texture: {reason}"))
            }
        }
    }

    /// Skins the animal (when animating) and draws the scene into `texture`, in one submission.
    fn draw(&self, texture: &wgpu::Texture) -> Result<(), String> {
        let target = texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        let b = self.view.background;
        let clear = wgpu::Color {
            r: f64::from(b.x),
            g: f64::from(b.y),
            b: f64::from(b.z),
            a: 1.0,
        };
        let source = self.source();
        let prepared = self
            .renderer
            .prepare_view(&self.ctx, &self.gpu, &self.view, self.aspect())
            .map_err(|e| format!("preparing the view of {}: {e}", self.scene_name))?;
        let mut drawn = Ok(());
        self.ctx
            .scoped("drawing a frame", || {
                let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
                if let Some(a) = &self.anim {
                    a.batch.batch().encode(&mut encoder, None);
                }
                {
                    let mut pass = pass::begin(&mut encoder, "viewer", &target, clear, &self.depth);
                    drawn = self.renderer.draw(
                        &self.ctx,
                        &self.gpu,
                        &prepared,
                        source,
                        Output::Color(self.view_format),
                        &mut pass,
                    );
                }
                self.ctx.queue.submit([encoder.finish()]);
            })
            .map_err(|e| e.to_string())?;
        drawn.map_err(|e| format!("drawing {} in {} mode: {e}", self.scene_name, source))
    }

    /// Moves the animation on to now and points the camera and the lights at the animal; on a
    /// failure, a warning and the scene unanimated from then on.
    fn animate(&mut self) {
        let Some(a) = self.anim.as_mut() else {
            return;
        };
        match a.advance(&self.ctx) {
            Ok(target) => {
                let (_, radius) = self.bounds;
                let camera = &mut self.view.camera;
                camera.target = target;
                camera.scene_radius = a.reach;
                let exposure = self.view.lighting.exposure;
                self.view.lighting = Lighting::studio(target, radius, self.sun_yaw, SUN_PITCH_DEG);
                self.view.lighting.exposure = exposure;
            }
            Err(e) => {
                eprintln!(
                    "viewer: warning: {}: animation stopped: {e}",
                    self.scene_name
                );
                for &o in &a.objects {
                    self.gpu.clear_skinned(o);
                }
                self.anim = None;
            }
        }
    }

    /// Updates the smoothed frame time and, now and then, the title that shows it.
    fn count_frame(&mut self) {
        let now = Instant::now();
        if let Some(last) = self.last_present {
            let ms = now.duration_since(last).as_secs_f64() * 1e3;
            self.frame_ms = Some(self.frame_ms.map_or(ms, |avg| 0.9 * avg + 0.1 * ms));
        }
        self.last_present = Some(now);
        if self
            .last_title
            .is_none_or(|t| now.duration_since(t) >= TITLE_INTERVAL)
        {
            self.set_title();
        }
    }
}

/// A surface for `window` on `instance` (which holds the display handle).
fn create_surface(
    instance: &wgpu::Instance,
    window: &Arc<Window>,
) -> Result<wgpu::Surface<'static>, String> {
    instance
        .create_surface(wgpu::SurfaceTarget::from_window_without_display(
            Arc::clone(window),
        ))
        .map_err(|e| format!("cannot draw into the window: {e}"))
}

/// The viewer's window, 1280 × 720 logical pixels, titled with the scene's name.
fn open_window(event_loop: &ActiveEventLoop, name: &str) -> Result<Arc<Window>, String> {
    let attributes = Window::default_attributes()
        .with_title(format!("{name} — qtangent viewer"))
        .with_inner_size(LogicalSize::new(1280.0, 720.0));
    event_loop
        .create_window(attributes)
        .map(Arc::new)
        .map_err(|e| format!("cannot open a window: {e}"))
}

/// The surface's configuration for a window of `size`, and the format the pipelines render to:
/// an sRGB one, so the tone-mapped picture is encoded as `render`'s PNGs are.
fn surface_config(
    surface: &wgpu::Surface<'_>,
    ctx: &GpuContext,
    size: winit::dpi::PhysicalSize<u32>,
    no_vsync: bool,
) -> Result<(wgpu::SurfaceConfiguration, wgpu::TextureFormat), String> {
    let mut config = surface
        .get_default_config(&ctx.adapter, size.width.max(1), size.height.max(1))
        .ok_or_else(|| format!("{} cannot present to this window", ctx))?;
    let formats = surface.get_capabilities(&ctx.adapter).formats;
    // An sRGB format encodes the tone-mapped picture as `render`'s PNGs do; without one, an
    // sRGB view of a plain 8-bit format does the same.
    config.format = formats
        .iter()
        .copied()
        .find(wgpu::TextureFormat::is_srgb)
        .unwrap_or(config.format);
    let view_format = config.format.add_srgb_suffix();
    if view_format == config.format {
        config.view_formats.clear();
    } else {
        config.view_formats = vec![view_format];
    }
    if !view_format.is_srgb() {
        eprintln!(
            "viewer: warning: the window offers no sRGB format ({:?}): colours will look dark",
            config.format
        );
    }
    config.present_mode = if no_vsync {
        wgpu::PresentMode::AutoNoVsync
    } else {
        wgpu::PresentMode::AutoVsync
    };
    Ok((config, view_format))
}

/// A depth buffer of `width × height` in [`DEPTH_FORMAT`].
fn depth_view(ctx: &GpuContext, width: u32, height: u32) -> wgpu::TextureView {
    pass::target(ctx, "viewer depth", DEPTH_FORMAT, (width, height))
        .create_view(&Default::default())
}

/// A skinned file's walk/run blend, made before the window opens: the locomotion and the
/// skinning rig of its skinned objects.
struct Skinned {
    loco: Locomotion,
    /// Every skinned object's vertices and skin ([`qtangent::skin::RigMesh::object`] indexes
    /// the scene's objects).
    rig: Rig,
    /// The animal's bind-pose bounding sphere and the height of its feet.
    bounds: (Vec3, f32),
    floor: f32,
}

impl Skinned {
    /// Loads `path` again for its skins, nodes and clips, and finds the Fox's `Walk` and `Run`
    /// clips and feet in it. Errors name the file.
    fn prepare(path: &Path, scene: &RenderScene) -> Result<Self, String> {
        let loaded = mesh::load(path).map_err(|e| e.to_string())?;
        let loco = fox::locomotion_of(path, &loaded)?;
        let rig = scene::skinned_rig("viewer", &loaded, scene)?;
        let floor = rig
            .objects()
            .flat_map(|k| &scene.meshes[scene.objects[k].mesh].mesh.positions)
            .map(|p| p.y)
            .fold(f32::INFINITY, f32::min);
        Ok(Self {
            loco,
            rig,
            bounds: scene.bounds(),
            floor,
        })
    }

    /// Half-size of the ground and the period of its checker (the sampler repeats).
    fn ground_size(&self) -> (f32, f32) {
        let radius = self.bounds.1.max(1e-6);
        (GROUND_RADII * radius, 2.0 * radius)
    }

    /// Gives `scene` a checkered ground under the animal and no quaternion maps for meshes
    /// drawn only skinned: skinned frames come from the vertices, so baking those is wasted.
    /// On an error `scene` is as it was.
    fn dress(&self, scene: &mut RenderScene) -> Result<(), String> {
        let (half, period) = self.ground_size();
        for (i, m) in scene.meshes.iter_mut().enumerate() {
            let mut users = scene.objects.iter().filter(|o| o.mesh == i);
            if users.all(|o| o.skin.is_some()) {
                m.map = MapSource::None;
            }
        }
        qtangent::lab::content::add_ground(scene, half, self.floor, period)
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Uploads the vertices to one skinning batch (dual-quaternion) and draws every skinned
    /// object of `gpu` from it.
    fn start(self, ctx: &GpuContext, gpu: &mut GpuScene) -> Result<Animation, String> {
        let (reach, period) = self.ground_size();
        let batch = SkinPipeline::new(ctx)
            .and_then(|p| RigBatch::new(ctx, &p, self.rig, SkinMethod::DualQuaternion))
            .map_err(|e| e.to_string())?;
        let objects: Vec<usize> = batch.rig().objects().collect();
        for (i, &o) in objects.iter().enumerate() {
            if let Err(e) = gpu.set_skinned(o, batch.batch(), i) {
                for &o in &objects {
                    gpu.clear_skinned(o);
                }
                return Err(e.to_string());
            }
        }
        let [walk, run] = self.loco.gaits().each_ref().map(|g| g.speed());
        Ok(Animation {
            player: self.loco.into_player(BlendMethod::Locked),
            objects,
            batch,
            speeds: [walk, run],
            speed: walk,
            ramp: None,
            ramp_speeds: speed_ramp(walk, run, RAMP_SECONDS, RAMP_RATE),
            measured: 0.0,
            center: self.bounds.0,
            period,
            reach,
            last: None,
        })
    }
}

/// The walk/run blend playing: a [`Player`] advanced by the real frame time at the desired
/// speed, posing the skinning batch every frame.
struct Animation {
    player: Player,
    /// The object of each batch instance.
    objects: Vec<usize>,
    /// The skinned objects on the GPU, posed every frame.
    batch: RigBatch,
    /// Walk and run speeds, units per second.
    speeds: [f32; 2],
    /// Desired speed.
    speed: f32,
    /// Seconds into the automatic ramp while it is on, and the ramp's speeds.
    ramp: Option<f32>,
    ramp_speeds: Vec<f32>,
    /// The animal's ground speed, smoothed.
    measured: f32,
    /// The animal's bind-pose centre, the ground's checker period and half-size.
    center: Vec3,
    period: f32,
    reach: f32,
    last: Option<Instant>,
}

impl Animation {
    /// Advances by the time since the last call and uploads the bones of the new pose (the
    /// frame's encoder dispatches them); returns the animal's centre.
    fn advance(&mut self, ctx: &GpuContext) -> Result<Vec3, String> {
        let now = Instant::now();
        let dt = self
            .last
            .map_or(0.0, |t| now.duration_since(t).as_secs_f32().min(MAX_STEP));
        self.last = Some(now);
        if let Some(t) = self.ramp.as_mut() {
            *t = (*t + dt) % RAMP_SECONDS;
            let n = (*t * RAMP_RATE) as usize;
            self.speed = self.ramp_speeds[n.min(self.ramp_speeds.len() - 1)];
        }
        self.player.advance(self.speed, dt);
        let frame = self.player.frame();
        if dt > 0.0 {
            self.measured += 0.1 * (frame.speed - self.measured);
        }
        // The animal walks on for ever: keep it within a checker period of the ground's middle,
        // moved by whole periods so the floor under its feet looks the same.
        let p = frame.placement.w_axis.truncate() / self.period;
        let shift = Vec3::new(p.x.round(), 0.0, p.z.round()) * self.period;
        let placement = Mat4::from_translation(-shift) * frame.placement;
        self.batch
            .pose(ctx, &frame.local, placement)
            .map_err(|e| e.to_string())?;
        Ok(placement.transform_point3(self.center))
    }

    /// Changes the desired speed by `steps` of [`SPEED_STEPS`] between walk and run, and stops
    /// the ramp.
    fn step_speed(&mut self, steps: f32) {
        let [walk, run] = self.speeds;
        self.ramp = None;
        // min/max rather than clamp: a file's "run" need not be the faster gait.
        let speed = self.speed + steps * (run - walk) / SPEED_STEPS;
        self.speed = speed.max(walk.min(run)).min(walk.max(run));
    }

    /// Starts the ramp where it first reaches the desired speed, or stops it there.
    fn toggle_ramp(&mut self) {
        let [walk, run] = self.speeds;
        // The first sample within 10⁻⁴ of the way from walk to run past the desired speed.
        let at = (self.speed - walk) / (run - walk) - 1e-4;
        self.ramp = match self.ramp {
            Some(_) => None,
            None => {
                let past = |&v: &f32| (v - walk) / (run - walk) >= at;
                let n = self.ramp_speeds.iter().position(past).unwrap_or(0);
                Some(n as f32 / RAMP_RATE)
            }
        };
    }

    /// Blend, speeds, skinning method and ramp, for the title and the console.
    fn label(&self) -> String {
        format!(
            "b {:.2}, {:.1} u/s (asked {:.1}){}, {}",
            self.player.frame().blend,
            self.measured,
            self.speed,
            if self.ramp.is_some() { " ramp" } else { "" },
            self.batch.batch().method().name().to_uppercase()
        )
    }
}
