//! What the tools print while the library works: a [`qtangent::Listener`] that writes warnings
//! (and, when asked, progress: a bar on a terminal) to stderr with the tool's name in front. Included by the tools
//! (`#[path = "<relative path>/examples/common/console.rs"] mod console;`).

#![allow(dead_code)] // each tool uses what it needs

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `-q`: from now on nothing but errors is printed ([`quiet`]; [`Console`] keeps its warnings
/// for reports but prints none).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

/// Whether [`set_quiet`] asked for errors only.
pub fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Prints warnings to stderr as `TOOL: warning: …` and, when `progress` is on, progress: on a
/// terminal a bar (the stage, its percent and the time left in it), otherwise a `TOOL: stage`
/// line per stage started; keeps the warnings for a report.
pub struct Console {
    tool: &'static str,
    progress: bool,
    last_stage: String,
    /// The bar, where stderr is a terminal and progress is on.
    bar: Option<indicatif::ProgressBar>,
    /// Every warning heard.
    pub warnings: Vec<qtangent::Warning>,
}

impl Console {
    /// Warnings only.
    pub fn new(tool: &'static str) -> Self {
        Self {
            tool,
            progress: false,
            last_stage: String::new(),
            bar: None,
            warnings: Vec::new(),
        }
    }

    /// Warnings and progress (a bar on a terminal, a line for every stage otherwise).
    pub fn with_progress(tool: &'static str) -> Self {
        use std::io::IsTerminal as _;
        let bar = (!quiet() && std::io::stderr().is_terminal()).then(|| {
            let style = indicatif::ProgressStyle::with_template(
                "{msg:<40!} [{bar:24}] {percent:>3}% (ETA {eta})",
            )
            .map_or_else(
                |_| indicatif::ProgressStyle::default_bar(),
                |s| s.progress_chars("=> "),
            );
            indicatif::ProgressBar::new(1).with_style(style)
        });
        Self {
            tool,
            progress: true,
            last_stage: String::new(),
            bar,
            warnings: Vec::new(),
        }
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl qtangent::Listener for Console {
    fn progress(&mut self, p: qtangent::Progress<'_>) {
        if !self.progress || quiet() {
            return;
        }
        if let Some(bar) = &self.bar {
            if p.stage != self.last_stage {
                bar.reset_eta();
            }
            bar.set_message(format!("{}: {}", self.tool, p.stage));
            bar.set_length(p.total.max(1));
            bar.set_position(p.done);
        } else if p.stage != self.last_stage {
            eprintln!("{}: {}", self.tool, p.stage);
        }
        if p.stage != self.last_stage {
            self.last_stage = p.stage.to_string();
        }
    }

    fn warning(&mut self, w: qtangent::Warning) {
        if !quiet() {
            let line = format!("{}: warning: {w}", self.tool);
            match &self.bar {
                Some(bar) => bar.suspend(|| eprintln!("{line}")),
                None => eprintln!("{line}"),
            }
        }
        self.warnings.push(w);
    }
}

/// For the tools that read their few arguments by position: when any argument is `-h` or
/// `--help`, prints `usage` and returns true (the tool then ends with success, having done
/// nothing); an argument that starts with `-` otherwise is refused by [`positional`].
pub fn asked_for_help(usage: &str) -> bool {
    let asked = std::env::args().skip(1).any(|a| a == "-h" || a == "--help");
    if asked {
        println!("{usage}");
    }
    asked
}

/// Positional argument `n` (1-based), refusing one that looks like an option (`-x`): a typo such
/// as `--hepl` must not become a file name.
pub fn positional(n: usize) -> Result<Option<String>, String> {
    match std::env::args().nth(n) {
        Some(a) if a.starts_with('-') && a.len() > 1 => {
            Err(format!("{a}: unknown option (--help shows the usage)"))
        }
        other => Ok(other),
    }
}

/// A tool's `main`: quiets Mesa ([`quiet_mesa`], before any thread starts), parses the command
/// line and runs `run`, ending as [`finish`] does.
pub fn main<A: clap::Parser, E: std::fmt::Display>(
    tool: &str,
    run: impl FnOnce(&A) -> Result<(), E>,
) -> std::process::ExitCode {
    quiet_mesa();
    let args = A::parse();
    finish(tool, run(&args))
}

/// The end of a tool's `main`: success, or the error on stderr as `TOOL: error` and exit
/// status 1.
pub fn finish<E: std::fmt::Display>(tool: &str, result: Result<(), E>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{tool}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The message of an error, with what a user can do about it where the library says what
/// happened but not how to fix it here (installing software, command-line flags): the error
/// and its sources are matched by type, never by their text.
pub fn advise(e: &(dyn std::error::Error + 'static)) -> String {
    let text = e.to_string();
    let mut source = Some(e);
    while let Some(err) = source {
        if let Some(qtangent::gpu::GpuError::NoAdapter { .. }) = err.downcast_ref() {
            return format!(
                "{text}; to run on a machine without a GPU, install Mesa's software Vulkan \
                 (lavapipe): `apt-get install -y mesa-vulkan-drivers libvulkan1` on Debian/Ubuntu \
                 (`cargo xtask test` does this when it can), then check with `vulkaninfo --summary`"
            );
        }
        if let Some(qtangent::qmap::BakeError::Unfit { .. }) = err.downcast_ref() {
            return format!("{text}: use --map-format bc7");
        }
        source = err.source();
    }
    text
}

#[path = "quiet_mesa.rs"]
mod quiet;
pub use quiet::quiet_mesa;
