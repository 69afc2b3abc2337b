//! Quiets Mesa's Vulkan drivers for the tools and for xtask (which includes this file by path:
//! it is a separate crate with no dependency on the examples).

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
