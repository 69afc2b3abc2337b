//! `cargo xtask pack-bench [RUNS]` (and `cargo xtask bench`, after mesh preparation): `qtangent
//! pack` (its defaults: quantised as gltfpack quantises, `smallest3x4` frames, no maps) against
//! gltfpack (its defaults; the npm build, WebAssembly under node) on the same files, one process
//! at a time: wall time (median of RUNS, default 3) and peak resident memory (the child's
//! high-water mark from `wait4`), per file and for a batch of them all two at a time (`pack -j 2`
//! against two gltfpack processes at once). The files: the shared assets' glTF and OBJ meshes,
//! the lab corpus (`corpus`), and a torus of 4 M triangles with normals and UVs (no tangents)
//! written here. Prints Markdown tables (docs/PERFORMANCE.md); nothing asserts a time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::npm;

/// The shared assets packed, relative to the assets folder.
const ASSETS: &[&str] = &[
    "gltf/FlightHelmet/FlightHelmet.gltf",
    "gltf/Fox.glb",
    "gltf/SimpleSkin.gltf",
    "obj/duck.obj",
    "obj/laikago_upper_leg_mirror.obj",
    "obj/sphere_smooth.obj",
    "obj/torus_textured.obj",
];

/// The large torus: segments × rings quads, 2 triangles each (4 M triangles).
const TORUS: (u32, u32) = (2000, 1000);

/// One command's wall time and peak resident memory (KiB).
#[derive(Clone, Copy)]
struct Measured {
    wall: Duration,
    peak_kib: u64,
}

/// Runs `cmd` to its end: its wall time and its peak resident memory, failing with the first
/// line of its error output.
fn measure(cmd: &mut Command) -> Result<Measured, String> {
    use std::io::Read;
    let start = Instant::now();
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    // Read the error output to its end (the child's), then reap it with its resource usage.
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    let (status, peak_kib) = wait(child.id())?;
    let wall = start.elapsed();
    if status != 0 {
        let line = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(line.to_string());
    }
    Ok(Measured { wall, peak_kib })
}

/// Waits for process `pid`: its exit status (0 for success) and peak resident memory (KiB).
fn wait(pid: u32) -> Result<(i32, u64), String> {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for the child we spawned.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid as i32, &mut status, 0, &mut usage) };
    if got != pid as i32 {
        return Err(format!("wait4({pid}): {}", std::io::Error::last_os_error()));
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Ok((code, usage.ru_maxrss as u64))
}

/// The median wall time of `runs` runs of `make()`'s command, and the largest peak among them.
fn median(runs: usize, mut make: impl FnMut() -> Command) -> Result<Measured, String> {
    let mut all = (0..runs)
        .map(|_| measure(&mut make()))
        .collect::<Result<Vec<_>, _>>()?;
    all.sort_by_key(|m| m.wall);
    let peak_kib = all.iter().map(|m| m.peak_kib).max().unwrap_or(0);
    Ok(Measured {
        wall: all[all.len() / 2].wall,
        peak_kib,
    })
}

/// `cargo xtask pack-bench [RUNS]`.
pub fn run(root: &Path, assets: &Path, args: &[String]) -> Result<(), String> {
    let runs = match args.first() {
        None => 3,
        Some(n) => n.parse::<usize>().ok().filter(|&n| n > 0).ok_or(format!(
            "pack-bench: RUNS must be a whole number ≥ 1, not {n}"
        ))?,
    };
    let judges = npm::ensure(root)?
        .ok_or("pack-bench needs node and npm (apt-get install nodejs npm) for gltfpack")?;
    crate::cargo(root, &["build", "--release", "--package", "qtangent-cli"])?;
    let work = root.join("target/pack-bench");
    let _ = std::fs::remove_dir_all(&work);
    let (inputs, outputs) = (work.join("in"), work.join("out"));
    for dir in [&inputs, &outputs] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let files = corpus(root, assets, &inputs)?;
    let qtangent = root.join("target/release/qtangent");
    let gltfpack = judges.join("node_modules/gltfpack/cli.js");
    println!(
        "\n## pack against gltfpack ({} cores; median of {runs}, peak resident memory of the process)\n",
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    println!("| file | pack | peak | gltfpack | peak | pack ÷ gltfpack |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut singles = Vec::new();
    let mut packed = Vec::new();
    for file in &files {
        let name = file
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let out = outputs.join(format!("{name}.glb"));
        let pack = median(runs, || {
            let mut c = Command::new(&qtangent);
            c.arg("pack")
                .arg(file)
                .arg("-o")
                .arg(&out)
                .arg("--force")
                .arg("-q");
            c
        });
        let gout = outputs.join(format!("{name}.gltfpack.glb"));
        let gp = median(runs, || {
            let mut c = Command::new("node");
            c.arg(&gltfpack).arg("-i").arg(file).arg("-o").arg(&gout);
            c
        });
        let cells = |m: &Result<Measured, String>| match m {
            Ok(m) => format!("{} | {}", secs(m.wall), mib(m.peak_kib)),
            Err(e) => format!("fails: {e} | —"),
        };
        let ratio = match (&pack, &gp) {
            (Ok(p), Ok(g)) => format!("{:.2}", p.wall.as_secs_f64() / g.wall.as_secs_f64()),
            _ => "—".into(),
        };
        println!("| {name} | {} | {} | {ratio} |", cells(&pack), cells(&gp));
        // The batch takes the files both tools pack.
        if let (Ok(p), Ok(g)) = (pack, gp) {
            singles.push((p, g));
            packed.push(file.clone());
        }
    }
    let files = packed;
    batch(&qtangent, &gltfpack, &files, &outputs, runs, &singles)
}

/// The batch rows: every file, two at a time, against the memory of the two largest single runs.
fn batch(
    qtangent: &Path,
    gltfpack: &Path,
    files: &[PathBuf],
    outputs: &Path,
    runs: usize,
    singles: &[(Measured, Measured)],
) -> Result<(), String> {
    let out = outputs.join("batch");
    let pack = median(runs, || {
        let _ = std::fs::remove_dir_all(&out);
        let mut c = Command::new(qtangent);
        c.arg("pack")
            .args(files)
            .arg("-o")
            .arg(&out)
            .args(["-j", "2", "-q"]);
        c
    })?;
    // gltfpack has no batch: two processes at a time, each file as soon as one ends; each
    // output in the batch folder, named by its place in the list (names may repeat).
    let gout = outputs.join("gltfpack-batch");
    std::fs::create_dir_all(&gout).map_err(|e| format!("{}: {e}", gout.display()))?;
    let gp = median(runs, || {
        let mut c = Command::new("sh");
        let script = "i=0; for f in \"$@\"; do i=$((i+1)); printf '%s\\n%s\\n' \"$f\" \"$OUT/$i.glb\"; done | xargs -d '\\n' -P 2 -n 2 sh -c 'node \"$GLTFPACK\" -i \"$0\" -o \"$1\" >/dev/null'";
        c.arg("-c")
            .arg(script)
            .arg("sh")
            .args(files)
            .env("GLTFPACK", gltfpack)
            .env("OUT", &gout);
        c
    })?;
    let two_largest = |pick: fn(&(Measured, Measured)) -> u64| {
        let mut peaks: Vec<u64> = singles.iter().map(pick).collect();
        peaks.sort_unstable_by(|a, b| b.cmp(a));
        peaks.iter().take(2).sum::<u64>()
    };
    let (pack_two, gp_two) = (two_largest(|s| s.0.peak_kib), two_largest(|s| s.1.peak_kib));
    println!(
        "\n| batch of {} files, 2 at a time | wall | peak | the two largest single peaks summed |",
        files.len()
    );
    println!("|---|---:|---:|---:|");
    println!(
        "| `qtangent pack -j 2` (one process) | {} | {} | {} |",
        secs(pack.wall),
        mib(pack.peak_kib),
        mib(pack_two)
    );
    println!(
        "| gltfpack, two processes (`xargs -P 2`) | {} | {} (the largest process) | {} |",
        secs(gp.wall),
        mib(gp.peak_kib),
        mib(gp_two)
    );
    println!(
        "\npack -j 2 peak within the two largest single peaks: {}",
        if pack.peak_kib <= pack_two {
            "yes"
        } else {
            "no"
        }
    );
    Ok(())
}

/// The files packed: the shared assets that exist, the lab corpus written into `dir`, and the
/// 4 M-triangle torus.
fn corpus(root: &Path, assets: &Path, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = ASSETS
        .iter()
        .map(|rel| assets.join(rel))
        .filter(|p| p.is_file())
        .collect();
    if files.is_empty() {
        eprintln!(
            "xtask: pack-bench: no shared assets ({})",
            crate::ASSETS_HINT
        );
    }
    let lab = dir.join("corpus");
    crate::example(root, "corpus", &[&lab.to_string_lossy()])?;
    let mut lab_files: Vec<PathBuf> = std::fs::read_dir(&lab)
        .map_err(|e| format!("{}: {e}", lab.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gltf" || x == "glb"))
        .collect();
    lab_files.sort();
    files.extend(lab_files);
    let torus = dir.join("torus-4m.glb");
    write_torus(&torus, TORUS)?;
    files.push(torus);
    Ok(files)
}

/// A torus of `segments × rings` quads as a GLB: positions, normals, UVs, u32 indices. Written
/// as it is made (the benchmark's own peak memory stays small: a child's peak as `wait4` reports
/// it starts from its parent's at the spawn).
fn write_torus(path: &Path, (segments, rings): (u32, u32)) -> Result<(), String> {
    use std::io::Write;
    let (big, small) = (1.0f32, 0.35f32);
    let verts = ((segments + 1) * (rings + 1)) as usize;
    let (pos, nor, uv) = (verts * 12, verts * 12, verts * 8);
    let idx = segments as usize * rings as usize * 6;
    let total = pos + nor + uv + idx * 4;
    let json = format!(
        r#"{{"asset":{{"version":"2.0","generator":"qtangent xtask pack-bench"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2}},"indices":3}}]}}],"buffers":[{{"byteLength":{total}}}],"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{pos}}},{{"buffer":0,"byteOffset":{pos},"byteLength":{nor}}},{{"buffer":0,"byteOffset":{o2},"byteLength":{uv}}},{{"buffer":0,"byteOffset":{o3},"byteLength":{ib},"target":34963}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":{verts},"type":"VEC3","min":[{mn},{mn},{mz}],"max":[{mx},{mx},{zx}]}},{{"bufferView":1,"componentType":5126,"count":{verts},"type":"VEC3"}},{{"bufferView":2,"componentType":5126,"count":{verts},"type":"VEC2"}},{{"bufferView":3,"componentType":5125,"count":{idx},"type":"SCALAR"}}]}}"#,
        o2 = pos + nor,
        o3 = pos + nor + uv,
        ib = idx * 4,
        mn = -(big + small),
        mx = big + small,
        mz = -small,
        zx = small,
    );
    let mut json = json.into_bytes();
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let at = |i: u32, j: u32| {
        let (u, v) = (i as f32 / segments as f32, j as f32 / rings as f32);
        let (a, b) = (u * std::f32::consts::TAU, v * std::f32::consts::TAU);
        let n = [b.cos() * a.cos(), b.cos() * a.sin(), b.sin()];
        let p = [
            (big + small * b.cos()) * a.cos(),
            (big + small * b.cos()) * a.sin(),
            small * b.sin(),
        ];
        (p, n, [u * 8.0, v * 4.0])
    };
    let mut write = || -> std::io::Result<()> {
        out.write_all(b"glTF")?;
        out.write_all(&2u32.to_le_bytes())?;
        out.write_all(&((12 + 8 + json.len() + 8 + total) as u32).to_le_bytes())?;
        out.write_all(&(json.len() as u32).to_le_bytes())?;
        out.write_all(b"JSON")?;
        out.write_all(&json)?;
        out.write_all(&(total as u32).to_le_bytes())?;
        out.write_all(b"BIN\0")?;
        for part in 0..3 {
            for j in 0..=rings {
                for i in 0..=segments {
                    let (p, n, uv) = at(i, j);
                    let values: &[f32] = match part {
                        0 => &p,
                        1 => &n,
                        _ => &uv,
                    };
                    for v in values {
                        out.write_all(&v.to_le_bytes())?;
                    }
                }
            }
        }
        let row = segments + 1;
        for j in 0..rings {
            for i in 0..segments {
                let (a, b) = (j * row + i, j * row + i + 1);
                let (c, d) = (a + row, b + row);
                for k in [a, b, d, a, d, c] {
                    out.write_all(&k.to_le_bytes())?;
                }
            }
        }
        out.flush()
    };
    write().map_err(|e| format!("{}: {e}", path.display()))
}

/// Seconds with two decimals.
fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// KiB as MiB with one decimal.
fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}
