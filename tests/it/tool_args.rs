//! The examples that read their arguments by position (`embed`, `fuzz_seeds`, `demo`, `bench`,
//! `encodings`) as a user first runs them: `--help` prints the usage and does nothing else (no
//! file written, no number parsed, no GPU opened), and a mistyped option is refused in one line
//! instead of becoming a file name.

use std::process::Command;

use crate::common::example_exe;

#[test]
fn positional_tools_answer_help_and_refuse_unknown_options() {
    for tool in ["embed", "fuzz_seeds", "demo", "bench", "encodings"] {
        let exe = example_exe(tool);
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

/// The `pack` example's output rules, checked before any work: a `.glb` name (not none, not
/// `.gltf`), not a folder, not the input; each refused in one line, nothing written.
#[test]
fn the_pack_example_refuses_outputs_it_cannot_write_whole() {
    let exe = example_exe("pack");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let obj = dir.path().join("tri.obj");
    std::fs::write(
        &obj,
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1\n",
    )
    .expect("writes the OBJ");
    let glb = dir.path().join("tri.glb");
    let ok = Command::new(&exe)
        .arg(&obj)
        .arg("-o")
        .arg(&glb)
        .output()
        .expect("runs");
    assert!(ok.status.success(), "{ok:?}");
    let before: Vec<_> = std::fs::read_dir(dir.path())
        .expect("reads")
        .flatten()
        .map(|e| e.path())
        .collect();
    for (out, says) in [
        (dir.path().join("noext"), "name the output .glb"),
        (dir.path().join("x.gltf"), "name the output .glb"),
        (dir.path().to_path_buf(), "is a folder"),
        (glb.clone(), "would overwrite the input"),
    ] {
        let input = if out == glb { &glb } else { &obj };
        let o = Command::new(&exe)
            .arg(input)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!o.status.success(), "{}: {err}", out.display());
        assert!(err.contains(says), "{}: {err}", out.display());
        assert_eq!(err.trim().lines().count(), 1, "{}: {err}", out.display());
        let after: Vec<_> = std::fs::read_dir(dir.path())
            .expect("reads")
            .flatten()
            .map(|e| e.path())
            .collect();
        assert_eq!(after.len(), before.len(), "{} left a file", out.display());
    }
}
