//! The glTF judges: Khronos' glTF-Validator, gltfpack and glTF-Transform (with Google's Draco
//! decoder, draco3dgltf), npm packages that `cargo xtask test`
//! installs, pinned (`xtask/npm/`), into `target/npm` and names in `QTANGENT_NPM`. Under CI
//! (`CI` set) a missing node or package fails the test; elsewhere the test records that it did
//! not run ([`super::not_run::did_not_run`]), as [`super::assets_dir`] does for missing assets.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder holding `node_modules/gltf-validator` and `node_modules/gltfpack`:
/// `$QTANGENT_NPM`, else `target/npm` in the repository. `None` (recorded as a test that did
/// not run) when it, or node, is missing outside CI; under CI that panics.
pub fn npm_dir() -> Option<PathBuf> {
    static FOUND: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let dir = std::env::var_os("QTANGENT_NPM").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/npm"),
            PathBuf::from,
        );
        let node = Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        let missing: Vec<&str> = ["gltf-validator", "gltfpack", "@gltf-transform/cli"]
            .into_iter()
            .filter(|p| !dir.join("node_modules").join(p).join("package.json").is_file())
            .collect();
        if !node {
            Err("node not found (apt-get install nodejs npm; `cargo xtask test` then installs the judges)".into())
        } else if !missing.is_empty() {
            Err(format!(
                "{} not installed in {} (`cargo xtask test` installs them; or set QTANGENT_NPM)",
                missing.join(" and "),
                dir.display()
            ))
        } else {
            Ok(dir)
        }
    });
    match found {
        Ok(dir) => Some(dir.clone()),
        Err(msg) => {
            assert!(std::env::var_os("CI").is_none(), "{msg}");
            super::not_run::did_not_run(msg);
            None
        }
    }
}

/// One message of a validation report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The issue code, e.g. `ACCESSOR_TOTAL_OFFSET_ALIGNMENT`.
    pub code: String,
    /// 0 error, 1 warning, 2 information, 3 hint.
    pub severity: u8,
    /// JSON pointer to the offending object, e.g. `/accessors/0` (may be empty).
    pub pointer: String,
    /// The validator's explanation.
    pub message: String,
}

/// Khronos' glTF-Validator's verdict on one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The file validated.
    pub file: PathBuf,
    /// Number of errors.
    pub errors: u64,
    /// Number of warnings.
    pub warnings: u64,
    /// Number of informational messages.
    pub infos: u64,
    /// Number of hints.
    pub hints: u64,
    /// Every message (the report is never truncated).
    pub messages: Vec<Message>,
}

impl Report {
    /// The messages with this code.
    pub fn with_code(&self, code: &str) -> Vec<&Message> {
        self.messages.iter().filter(|m| m.code == code).collect()
    }

    /// The counts and every message, one a line, for a failure message.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{}: {} errors, {} warnings, {} infos, {} hints",
            self.file.display(),
            self.errors,
            self.warnings,
            self.infos,
            self.hints
        );
        for m in &self.messages {
            let level = ["error", "warning", "info", "hint"]
                .get(usize::from(m.severity))
                .unwrap_or(&"?");
            s.push_str(&format!(
                "\n  {level} {} at {}: {}",
                m.code, m.pointer, m.message
            ));
        }
        s
    }

    /// Panics, listing every message, unless the validator found no error.
    pub fn assert_no_errors(&self) {
        assert_eq!(self.errors, 0, "{}", self.describe());
    }
}

/// Validates the `.gltf` or `.glb` at `path` (external buffers and images read next to it) with
/// `xtask/npm/validate.mjs`. `None` outside CI when node or the package is missing (see
/// [`npm_dir`]). Panics when the validator cannot run or its output is not a report.
pub fn validate_gltf(path: &Path) -> Option<Report> {
    let dir = npm_dir()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("xtask/npm/validate.mjs");
    let out = Command::new("node")
        .arg(&script)
        .arg(path)
        .arg(&dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run node {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "validate.mjs {} failed ({}): {stdout}{}",
        path.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("validate.mjs printed no JSON report ({e}): {stdout}"));
    let issues = &json["issues"];
    let count = |key: &str| {
        issues[key]
            .as_u64()
            .unwrap_or_else(|| panic!("the report has no issues.{key}: {stdout}"))
    };
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let messages = issues["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("the report has no issues.messages: {stdout}"))
        .iter()
        .map(|m| Message {
            code: text(&m["code"]),
            severity: m["severity"].as_u64().map_or(u8::MAX, |s| s.min(9) as u8),
            pointer: text(&m["pointer"]),
            message: text(&m["message"]),
        })
        .collect();
    assert_eq!(
        issues["truncated"].as_bool(),
        Some(false),
        "the validator truncated its report: {stdout}"
    );
    Some(Report {
        file: path.to_path_buf(),
        errors: count("numErrors"),
        warnings: count("numWarnings"),
        infos: count("numInfos"),
        hints: count("numHints"),
        messages,
    })
}

/// Runs gltfpack (`node <npm>/node_modules/gltfpack/cli.js ARGS`), panicking with its output
/// when it fails. `None` outside CI when node or the package is missing (see [`npm_dir`]).
pub fn gltfpack(args: &[&std::ffi::OsStr]) -> Option<()> {
    let dir = npm_dir()?;
    node(&dir.join("node_modules/gltfpack/cli.js"), args);
    Some(())
}

/// `node` running `script` with `args`, failing with its output.
fn node(script: &Path, args: &[&std::ffi::OsStr]) {
    let out = Command::new("node")
        .arg(script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run node {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{} {args:?} failed ({}): {}{}",
        script.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// glTF-Transform's CLI (`gltf-transform ARGS`, e.g. `copy IN OUT`, `draco IN OUT`); `None`
/// as [`npm_dir`] says.
pub fn gltf_transform(args: &[&std::ffi::OsStr]) -> Option<()> {
    let dir = npm_dir()?;
    node(
        &dir.join("node_modules/@gltf-transform/cli/bin/cli.js"),
        args,
    );
    Some(())
}

/// `input` read by glTF-Transform, its Draco primitives decoded by Google's Draco decoder
/// (draco3dgltf), written to `output` without Draco (`xtask/npm/undraco.mjs`); `None` as
/// [`npm_dir`] says.
pub fn undraco(input: &Path, output: &Path) -> Option<()> {
    let dir = npm_dir()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("xtask/npm/undraco.mjs");
    node(
        &script,
        &[input.as_os_str(), output.as_os_str(), dir.as_os_str()],
    );
    Some(())
}
