//! The programs that read their arguments by position (the examples `bake`, `encode`, `embed`;
//! the lab's `corpus`, `fuzz_seeds`, `demo`, `bench`, `encodings`) as a user first runs them: `--help` prints the usage and does nothing else (no
//! file written, no number parsed, no GPU opened), and a mistyped option is refused in one line
//! instead of becoming a file name.

use std::process::Command;

use crate::common::tool_exe;

#[test]
fn positional_tools_answer_help_and_refuse_unknown_options() {
    for tool in [
        "bake",
        "encode",
        "embed",
        "corpus",
        "fuzz_seeds",
        "demo",
        "bench",
        "prepare_bench",
        "encodings",
    ] {
        let exe = tool_exe(tool);
        let dir = tempfile::tempdir().expect("a temporary folder");
        let run = |arg: &str| {
            Command::new(&exe)
                .arg(arg)
                .current_dir(dir.path())
                .output()
                .expect("the tool runs")
        };
        let help = run("--help");
        let out = String::from_utf8_lossy(&help.stdout).into_owned();
        assert!(help.status.success(), "{tool} --help: {help:?}");
        assert!(out.starts_with("usage: "), "{tool} --help printed {out:?}");
        let typo = run("--hepl");
        let err = String::from_utf8_lossy(&typo.stderr).into_owned();
        assert!(!typo.status.success(), "{tool} --hepl succeeded");
        assert!(
            err.contains("--hepl: unknown option"),
            "{tool} --hepl: {err}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("reads the folder")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(left.is_empty(), "{tool} wrote {left:?}");
    }
}

/// The lab programs with flags (clap) answer `--help` with their usage and do nothing else.
#[test]
fn lab_programs_answer_help() {
    for tool in [
        "animate",
        "aniso",
        "bake_bench",
        "maps",
        "skin_bench",
        "walkrun",
    ] {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let help = Command::new(tool_exe(tool))
            .arg("--help")
            .current_dir(dir.path())
            .output()
            .expect("the tool runs");
        let out = String::from_utf8_lossy(&help.stdout).into_owned();
        assert!(help.status.success(), "{tool} --help: {help:?}");
        assert!(out.contains("Usage: "), "{tool} --help printed {out:?}");
        let left = std::fs::read_dir(dir.path()).expect("reads").count();
        assert_eq!(left, 0, "{tool} --help wrote files");
    }
}
