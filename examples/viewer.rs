//! `viewer`: the `render` example's scenes in a window (winit). Left-drag orbits, the wheel
//! zooms, keys switch the frame source (reference, qtangent, quaternion map), cycle the qtangent
//! format and toggle the anisotropic material. It draws with the same [`Renderer`] as `render`,
//! into the window's surface instead of an offscreen image.
//!
//! ```sh
//! cargo run --release --example viewer                       # the embedded default scene
//! cargo run --release --example viewer -- ../shared/assets/gltf/FlightHelmet/FlightHelmet.gltf
//! ```
//!
//! Keys: `1` reference, `2` qtangent, `3` quaternion map, `F` next qtangent format, `A`
//! anisotropy override on/off, `L` turn the sun 15°, `R` reset the camera, `Esc` quit.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use glam::Vec3;
use qtangent::gpu::render::{GpuScene, Output, Renderer, View, DEPTH_FORMAT, FALLBACK_FORMAT};
use qtangent::gpu::GpuContext;
use qtangent::render::scene::Scene;
use qtangent::render::{Camera, FrameSource, Lighting};
use qtangent::Format;
use winit::application::ApplicationHandler;
use winit::dpi::{LogicalSize, PhysicalPosition};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, KeyCode, NamedKey, PhysicalKey};
use winit::window::{Window, WindowId};

const KEY_HELP: &str = "keys: left-drag orbit, wheel zoom, 1 reference, 2 qtangent, \
     3 quaternion map, F next qtangent format, A anisotropy on/off, L sun +15°, R reset camera, \
     Esc quit";

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

#[derive(Parser, Debug)]
#[command(about = "View a scene lit with reference, qtangent or quaternion-map tangent frames")]
struct Args {
    /// A glTF (.gltf/.glb) or OBJ file, or `default` for the embedded default scene.
    #[arg(default_value = "default")]
    scene: String,
    /// The frame source to start with: reference | qtangent | quatmap.
    #[arg(long, default_value = "qtangent", value_parser = ["reference", "qtangent", "quatmap"])]
    mode: String,
    /// The qtangent vertex format to start with (`F` cycles through all six).
    #[arg(long, default_value = "snorm16x4", value_parser = parse_format)]
    format: Format,
    /// Camera yaw about +Y, degrees (0 looks from +Z).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true)]
    yaw: f32,
    /// Camera pitch above the horizon, degrees.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    pitch: f32,
    /// Present without waiting for vertical sync, so the title shows the real frame time.
    #[arg(long)]
    no_vsync: bool,
}

/// A [`Format`] from its name ([`Format::name`]).
fn parse_format(name: &str) -> Result<Format, String> {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    match names.iter().position(|&n| n == name) {
        Some(i) => Ok(Format::ALL[i]),
        None => Err(format!("{name:?} is none of {}", names.join(", "))),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("viewer: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    let scene = Scene::from_arg(&args.scene).map_err(|e| e.to_string())?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    let event_loop =
        EventLoop::new().map_err(|e| format!("cannot open a window (no display?): {e}"))?;
    event_loop.set_control_flow(ControlFlow::Wait);
    println!("{KEY_HELP}");
    let mut app = App {
        args,
        scene: Some(scene),
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
    NextFormat,
    Anisotropy,
    Sun,
    ResetCamera,
    Quit,
}

/// The three frame sources; the qtangent format is kept apart so `F` works in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Reference,
    QTangent,
    QuatMap,
}

impl Command {
    /// The command of a key press: letters by the character they type, digits by their place
    /// on the keyboard (so `1`–`3` work on layouts that type them shifted).
    fn of(event: &KeyEvent) -> Option<Self> {
        if event.state != ElementState::Pressed {
            return None;
        }
        let command = match &event.logical_key {
            Key::Named(NamedKey::Escape) => Some(Self::Quit),
            Key::Character(c) => match c.to_lowercase().as_str() {
                "1" => Some(Self::Mode(Mode::Reference)),
                "2" => Some(Self::Mode(Mode::QTangent)),
                "3" => Some(Self::Mode(Mode::QuatMap)),
                "f" => Some(Self::NextFormat),
                "a" => Some(Self::Anisotropy),
                "l" => Some(Self::Sun),
                "r" => Some(Self::ResetCamera),
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
            _ => None,
        })?;
        // Holding `L` keeps turning the sun; every other key acts once a press.
        (!event.repeat || command == Self::Sun).then_some(command)
    }
}

struct App {
    args: Args,
    /// The scene until it is uploaded (then only the GPU copy is kept).
    scene: Option<Scene>,
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
        let Some(scene) = self.scene.take() else {
            return;
        };
        match Viewer::new(event_loop, &self.args, &scene) {
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
}

impl Viewer {
    /// Opens the window, finds an adapter that can present to it and uploads `scene` with every
    /// qtangent format.
    fn new(event_loop: &ActiveEventLoop, args: &Args, scene: &Scene) -> Result<Self, String> {
        let attributes = Window::default_attributes()
            .with_title(format!("{} — qtangent viewer", scene.name))
            .with_inner_size(LogicalSize::new(1280.0, 720.0));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| format!("cannot open a window: {e}"))?,
        );
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = create_surface(&instance, &window)?;
        let ctx = pollster::block_on(GpuContext::for_surface(&instance, &surface))
            .map_err(|e| e.to_string())?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&ctx.adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| format!("{} cannot present to this window", ctx.describe()))?;
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
        config.present_mode = if args.no_vsync {
            wgpu::PresentMode::AutoNoVsync
        } else {
            wgpu::PresentMode::AutoVsync
        };

        let renderer = Renderer::new(&ctx).map_err(|e| e.to_string())?;
        let gpu = renderer
            .upload(&ctx, scene, &Format::ALL, &mut |what| {
                eprintln!("viewer: {what}");
            })
            .map_err(|e| format!("{}: {e}", scene.name))?;
        for f in &gpu.fallbacks {
            eprintln!(
                "note: {f} has no quaternion map; quatmap mode draws it with {} vertex frames",
                FALLBACK_FORMAT.name()
            );
        }
        println!(
            "{}: {} meshes, {} objects, {} vertices, {} triangles drawn; on {}",
            scene.name,
            scene.meshes.len(),
            scene.objects.len(),
            gpu.vertex_count(),
            gpu.triangles_drawn(),
            ctx.describe()
        );
        let aspect = size.width.max(1) as f32 / size.height.max(1) as f32;
        let view = View::fitted(scene, aspect, args.yaw, args.pitch);
        let mode = match args.mode.as_str() {
            "reference" => Mode::Reference,
            "quatmap" => Mode::QuatMap,
            _ => Mode::QTangent,
        };
        let depth = depth_view(&ctx, config.width, config.height);
        let mut viewer = Self {
            instance,
            surface,
            view_format,
            depth,
            renderer,
            gpu,
            scene_name: scene.name.clone(),
            bounds: scene.bounds(),
            home: (args.yaw, args.pitch),
            base_distance: view.camera.distance,
            view,
            mode,
            format: args.format,
            sun_yaw: args.yaw - 40.0,
            dragging: false,
            cursor: None,
            last_present: None,
            frame_ms: None,
            last_title: None,
            retry_at: None,
            config,
            ctx,
            window,
        };
        viewer.configure()?;
        viewer.set_title();
        Ok(viewer)
    }

    fn source(&self) -> FrameSource {
        match self.mode {
            Mode::Reference => FrameSource::Reference,
            Mode::QTangent => FrameSource::QTangent(self.format),
            Mode::QuatMap => FrameSource::QuatMap,
        }
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
        match command {
            Command::Mode(m) => self.mode = m,
            Command::NextFormat => {
                let next = (self.format.index() + 1) % Format::ALL.len();
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
            Command::Quit => {}
        }
        println!(
            "{} | anisotropy {} | sun at {:.0}°",
            self.source().label(),
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
        self.window.set_title(&format!(
            "{} — {} — anisotropy {} — {time} — qtangent viewer",
            self.scene_name,
            self.source().label(),
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
        let (frame, suboptimal) = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => (t, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => (t, true),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                self.last_present = None;
                self.retry_at = Some(Instant::now() + RETRY_INTERVAL);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Outdated => return self.configure(),
            wgpu::CurrentSurfaceTexture::Lost => {
                self.surface = create_surface(&self.instance, &self.window)?;
                return self.configure();
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                let reason = self
                    .ctx
                    .scoped("acquiring the window's texture", || ())
                    .err()
                    .map_or_else(|| "a validation error".to_string(), |e| e.to_string());
                return Err(format!("the window's surface gave no texture: {reason}"));
            }
        };
        let target = frame.texture.create_view(&wgpu::TextureViewDescriptor {
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
        let aspect = self.aspect();
        let mut drawn = Ok(());
        self.ctx
            .scoped("drawing a frame", || {
                let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
                {
                    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: Some("viewer"),
                        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                            view: &target,
                            depth_slice: None,
                            resolve_target: None,
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Clear(clear),
                                store: wgpu::StoreOp::Store,
                            },
                        })],
                        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                            view: &self.depth,
                            depth_ops: Some(wgpu::Operations {
                                load: wgpu::LoadOp::Clear(1.0),
                                store: wgpu::StoreOp::Store,
                            }),
                            stencil_ops: None,
                        }),
                        ..Default::default()
                    });
                    drawn = self.renderer.draw(
                        &self.ctx,
                        &self.gpu,
                        &self.view,
                        aspect,
                        source,
                        Output::Color(self.view_format),
                        &mut pass,
                    );
                }
                self.ctx.queue.submit([encoder.finish()]);
            })
            .map_err(|e| e.to_string())?;
        drawn.map_err(|e| {
            format!(
                "drawing {} in {} mode: {e}",
                self.scene_name,
                source.label()
            )
        })?;
        self.window.pre_present_notify();
        self.ctx.queue.present(frame);
        self.count_frame();
        if suboptimal {
            self.configure()?;
        }
        self.window.request_redraw();
        Ok(())
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

/// A depth buffer of `width × height` in [`DEPTH_FORMAT`].
fn depth_view(ctx: &GpuContext, width: u32, height: u32) -> wgpu::TextureView {
    ctx.device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("viewer depth"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}
