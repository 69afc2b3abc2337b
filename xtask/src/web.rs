//! `web/`: its pinned npm packages (three.js, glTF-Transform, meshoptimizer, puppeteer-core;
//! `web/package.json` and `package-lock.json`, installed with `npm ci` into `web/node_modules`)
//! and Debian's chromium for the browser test (`tests/it/web.rs`), and `cargo xtask web`, the
//! viewer on loopback.
//!
//! Under CI (`CI` set) a failed install is an error; elsewhere a note, and the browser test
//! records that it did not run.

use std::path::Path;
use std::process::Command;

/// The browsers the test looks for, in order (`web/test/browser.mjs` too).
const CHROMIUM: &[&str] = &["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/// Installs `web/`'s packages (unless `web/node_modules` holds the lock file's install) and
/// chromium (unless present). `Err` only under CI.
pub fn ensure(root: &Path) -> Result<(), String> {
    let result = install_packages(root).and_then(|()| install_chromium());
    match result {
        Err(e) if std::env::var_os("CI").is_some() => Err(format!("web: {e}")),
        Err(e) => {
            eprintln!(
                "xtask: note: {e}; the browser test will not run (under CI this is a failure)"
            );
            Ok(())
        }
        Ok(()) => Ok(()),
    }
}

fn install_packages(root: &Path) -> Result<(), String> {
    let web = root.join("web");
    let lock = std::fs::read(web.join("package-lock.json"))
        .map_err(|e| format!("web/package-lock.json: {e}"))?;
    // npm ci writes node_modules/.package-lock.json; a stamp of the lock says which lock it was.
    let stamp = web.join("node_modules/.qtangent-lock");
    if std::fs::read(&stamp).is_ok_and(|s| s == lock) {
        return Ok(());
    }
    eprintln!("xtask: installing web/'s pinned packages (npm ci in web/)");
    crate::npm::ci(&web)?;
    std::fs::write(&stamp, &lock).map_err(|e| format!("{}: {e}", stamp.display()))
}

fn install_chromium() -> Result<(), String> {
    if std::env::var_os("QTANGENT_CHROMIUM").is_some()
        || CHROMIUM.iter().any(|p| Path::new(p).is_file())
    {
        return Ok(());
    }
    eprintln!("xtask: installing Debian's chromium for the browser test");
    crate::apt_install(&["chromium"])
}

/// `cargo xtask web [FILE|FOLDER] [--port N]`: the viewer on 127.0.0.1 (`web/serve.mjs`).
pub fn serve(root: &Path, args: &[&str]) -> Result<(), String> {
    install_packages(root)?;
    let mut cmd = Command::new("node");
    cmd.arg(root.join("web/serve.mjs")).args(args);
    crate::run(cmd, "node web/serve.mjs")
}
