//! Tests that say what they ran. A test that cannot run, in full or in part (no assets folder,
//! no node for the glTF judges, a device without a texture feature), never returns early in
//! silence: it calls [`did_not_run`], which prints a note and appends the test's name and the
//! reason to a record file. `cargo xtask test` empties that file before the tests and ends with
//! one line counting the tests it names, by reason.

use std::io::Write as _;
use std::path::PathBuf;

/// The environment variable naming the record file (`cargo xtask test` sets it).
pub const ENV: &str = "QTANGENT_NOT_RUN";

/// The record file: `$QTANGENT_NOT_RUN`, else `qtangent-not-run.tsv` in cargo's temporary folder
/// for integration tests (the system's for the crate's unit tests, which share these helpers).
/// One line per call: the test's name, a tab, the reason.
pub fn record_file() -> PathBuf {
    std::env::var_os(ENV).map_or_else(
        || {
            option_env!("CARGO_TARGET_TMPDIR")
                .map_or_else(std::env::temp_dir, PathBuf::from)
                .join("qtangent-not-run.tsv")
        },
        PathBuf::from,
    )
}

/// Records that the running test (the name libtest gives its thread) did not run, or not in
/// full, because of `reason` (one line; the same text for every test it stops, so the summary
/// can count them), and prints a note on stderr. Panics if the record cannot be written: a test
/// that cannot say it skipped must not pass.
pub fn did_not_run(reason: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("(a test's helper thread)");
    eprintln!("note: {test} did not run in full: {reason}");
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    let line = format!("{}\t{}\n", clean(test), clean(reason));
    let path = record_file();
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // One write of one short line to a file opened for appending: lines from tests running in
    // parallel do not interleave.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()))
        .unwrap_or_else(|e| {
            panic!(
                "cannot record a test that did not run in {}: {e}",
                path.display()
            )
        });
}
