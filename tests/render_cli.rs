//! The `render` example as a user runs it: the default scene in all modes writes its pictures
//! and prints the tables; bad input is one line on stderr, exit status 1 and no picture.
//! Needs a GPU adapter for the successful run (lavapipe is enough).

mod common;

use std::process::Output;

use common::stderr;

fn render(args: &[&str]) -> Output {
    common::run_example("render", args)
}

#[test]
fn default_scene_writes_every_picture_and_the_tables() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out_png = dir.path().join("scene.png");
    let out = render(&[
        "--size",
        "320x180",
        "--frames",
        "1",
        "-o",
        out_png.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "render failed: {}", stderr(&out));
    for suffix in [
        "reference",
        "qtangent",
        "quatmap",
        "diff-qtangent",
        "diff-quatmap",
        "sheet",
    ] {
        let p = dir.path().join(format!("scene-{suffix}.png"));
        let img = image::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(img.width() > 0, "{} is empty", p.display());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    for needle in ["PSNR", "quatmap", "qtangent snorm16x4", "frame time"] {
        assert!(
            stdout.contains(needle),
            "stdout lacks {needle:?}:\n{stdout}"
        );
    }
}

#[test]
fn bad_input_is_one_line_and_status_one() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let missing = dir.path().join("nope.gltf");
    let broken = dir.path().join("broken.gltf");
    std::fs::write(&broken, b"{ not json").expect("write");
    let out_png = dir.path().join("x.png");
    let o = out_png.to_str().expect("utf-8 path");
    for (args, want) in [
        (vec![missing.to_str().expect("utf-8"), "-o", o], "nope.gltf"),
        (
            vec![broken.to_str().expect("utf-8"), "-o", o],
            "broken.gltf",
        ),
        (vec!["--aniso", "2", "-o", o], "--aniso"),
        (vec!["--map-size", "0", "-o", o], "--map-size"),
        (vec!["--zoom-out", "0", "-o", o], "--zoom-out"),
    ] {
        let out = render(&args);
        let err = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: status {:?}, stderr {err}",
            out.status
        );
        assert!(
            err.contains(want),
            "{args:?}: stderr does not name {want:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert!(!out_png.exists(), "{args:?} wrote a picture");
    }
    // Clap rejects a malformed size before anything runs (status 2, its convention).
    let out = render(&["--size", "0x5"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("at least 1"), "{}", stderr(&out));
}
