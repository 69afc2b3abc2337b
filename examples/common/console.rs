//! What the tools print while the library works: a [`qtangent::Listener`] that writes warnings
//! (and, when asked, progress) to stderr with the tool's name in front. Included by the tools
//! (`#[path = "common/console.rs"] mod console;`).

#![allow(dead_code)] // each tool uses what it needs

/// Prints warnings to stderr as `TOOL: warning: …`, progress as `TOOL: stage` lines when
/// `progress` is on, and keeps the warnings for a report.
pub struct Console {
    tool: &'static str,
    progress: bool,
    last_stage: String,
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
            warnings: Vec::new(),
        }
    }

    /// Warnings and a line for every stage started.
    pub fn with_progress(tool: &'static str) -> Self {
        Self {
            progress: true,
            ..Self::new(tool)
        }
    }
}

impl qtangent::Listener for Console {
    fn progress(&mut self, p: qtangent::Progress<'_>) {
        if self.progress && p.stage != self.last_stage {
            self.last_stage = p.stage.to_string();
            eprintln!("{}: {}", self.tool, p.stage);
        }
    }

    fn warning(&mut self, w: qtangent::Warning) {
        eprintln!("{}: warning: {w}", self.tool);
        self.warnings.push(w);
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
            return format!("{text}: use --format bc7");
        }
        source = err.source();
    }
    text
}

/// Points `XDG_RUNTIME_DIR` at a private folder (mode 0700, under the temporary directory) when
/// it is unset, so Mesa's Vulkan drivers do not print "XDG_RUNTIME_DIR is invalid or not set"
/// on every run (CI machines and containers leave it unset). Does nothing when it is set, or
/// when the folder cannot be made.
///
/// For a tool's `main`, called first, before any thread starts: changing the environment
/// while another thread reads it is undefined behaviour on some platforms. qtangent's stages
/// never call it; an application embedding them keeps its own environment.
pub fn quiet_mesa() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    #[cfg(unix)]
    let user = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
    };
    #[cfg(not(unix))]
    let user = 0;
    let dir = std::env::temp_dir().join(format!("qtangent-runtime-{user}"));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_err() {
            return;
        }
    }
    std::env::set_var("XDG_RUNTIME_DIR", &dir);
}
