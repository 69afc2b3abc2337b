//! The `animate` example as a user runs it: a short Fox sequence writes its frames, the GIF and
//! the LBS/DQS sheet and prints the foot-slide table; bad input is one line on stderr, exit
//! status 1 and nothing written. Needs a GPU adapter (lavapipe is enough) and the shared Fox.

use crate::common;

use std::process::Output;

use common::{cli, stderr};

fn animate(args: &[&str]) -> Output {
    common::run_tool("animate", args)
}

#[test]
fn a_short_fox_sequence_writes_frames_gif_and_sheet() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    let fox = assets.join("gltf/Fox.glb");
    let dir = tempfile::tempdir().expect("temporary folder");
    let out_dir = dir.path().join("fox");
    let out = animate(&cli(
        "{} --seconds 0.8 --fps 10 --size 160x90 --gif-width 80 -o {}",
        &[
            fox.to_str().expect("utf-8 path"),
            out_dir.to_str().expect("utf-8 path"),
        ],
    ));
    assert!(out.status.success(), "animate failed: {}", stderr(&out));
    // 0.8 s at 10 fps: frames 0 to 7.
    for n in 0..8 {
        let p = out_dir.join(format!("frame-{n:04}.png"));
        let img = image::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!((img.width(), img.height()), (160, 90), "{}", p.display());
    }
    assert!(
        !out_dir.join("frame-0008.png").exists(),
        "one frame too many"
    );
    let gif = std::fs::read(out_dir.join("walkrun.gif")).expect("the GIF");
    assert!(gif.starts_with(b"GIF89a"), "walkrun.gif is not a GIF");
    image::open(out_dir.join("lbs-vs-dqs.png")).expect("the LBS/DQS sheet");
    common::assert_stdout_has(
        &out,
        &[
            "skinning 1728 vertices",
            "naive",
            "unified",
            "events",
            "LBS vs DQS",
        ],
    );
}

#[test]
fn bad_input_is_one_line_and_status_one() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let missing = dir.path().join("nope.glb");
    let out_dir = dir.path().join("out");
    let o = out_dir.to_str().expect("utf-8 path");
    let missing = missing.to_str().expect("utf-8 path");
    // Clap's refusal (status 2) is its own message; every other is one line, status 1.
    let mut cases: Vec<(&str, Vec<&str>, i32, &str)> = vec![
        ("{} -o {}", vec![missing, o], 1, "nope.glb"),
        ("--size 0x10 -o {}", vec![o], 2, "positive"),
        ("--fps inf -o {}", vec![o], 1, "--fps"),
        ("--seconds 0 -o {}", vec![o], 1, "--seconds"),
    ];
    // A file with no walk and run clips.
    let duck = common::assets_dir()
        .map(|a| a.join("obj/duck.obj"))
        .filter(|d| d.is_file());
    if let Some(duck) = &duck {
        cases.push((
            "{} -o {}",
            vec![duck.to_str().expect("utf-8 path"), o],
            1,
            "Walk",
        ));
    }
    for (line, paths, status, needle) in cases {
        let args = cli(line, &paths);
        let (_, err) = common::run_failing("animate", &args, status, needle);
        if status == 1 {
            let lines: Vec<&str> = err
                .lines()
                .filter(|l| !l.contains("XDG_RUNTIME_DIR"))
                .collect();
            assert_eq!(lines.len(), 1, "{args:?}: one line expected: {err}");
        }
        assert!(!out_dir.exists(), "{args:?}: nothing may be written");
    }
}
