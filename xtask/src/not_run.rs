//! The tests that did not run: `cargo xtask test` hands the tests an empty record file
//! (`QTANGENT_NOT_RUN`, read by `tests/it/common/not_run.rs`), in which a test that could not
//! run, in full or in part, writes its name and why; after the tests, one line counts them by
//! reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The environment variable the tests read the record file's path from.
pub const ENV: &str = "QTANGENT_NOT_RUN";

/// A record file for one run of the tests.
pub struct Record {
    path: PathBuf,
}

impl Record {
    /// An empty record file in the temporary folder, named for this process.
    pub fn new() -> Result<Self, String> {
        let path =
            std::env::temp_dir().join(format!("qtangent-not-run-{}.tsv", std::process::id()));
        std::fs::write(&path, "").map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Self { path })
    }

    /// The file's path, for the tests' environment.
    pub fn path(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }

    /// One line: how many tests did not run (or not in full), then for each reason, most
    /// frequent first, how many and why.
    pub fn summary(&self) -> String {
        let text = std::fs::read_to_string(&self.path).unwrap_or_default();
        summarise(&text)
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The summary of a record's text (`TEST\tREASON` lines; a test recorded twice for the same
/// reason counts once).
fn summarise(text: &str) -> String {
    let mut by_reason: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut tests = BTreeSet::new();
    for (test, reason) in text.lines().filter_map(|l| l.split_once('\t')) {
        by_reason.entry(reason).or_default().insert(test);
        tests.insert(test);
    }
    if tests.is_empty() {
        return "xtask: every test ran in full (none recorded that it did not run)".into();
    }
    let mut reasons: Vec<(usize, &str)> = by_reason
        .iter()
        .map(|(reason, tests)| (tests.len(), *reason))
        .collect();
    reasons.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let why: Vec<String> = reasons
        .iter()
        .map(|(n, reason)| format!("{n}: {reason}"))
        .collect();
    format!(
        "xtask: {} {} did not run in full; {}",
        tests.len(),
        if tests.len() == 1 { "test" } else { "tests" },
        why.join("; ")
    )
}
