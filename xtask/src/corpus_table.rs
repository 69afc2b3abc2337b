//! The corpus table of `cargo xtask gltfpack-table`: `pack` with its defaults and with
//! `--compress meshopt` against gltfpack's default and `-cc` on every file of a varied corpus —
//! the shared assets (exporter output: FlightHelmet, the Fox, SimpleSkin), the lab's corpus
//! (`lab/src/bin/corpus.rs`: a morphing mesh with a weights animation, 27 primitives on 10 shared
//! sets, an untextured torus with UVs, an instanced torus) and optimiser output taken as input
//! (FlightHelmet through `gltfpack -cc`, the Fox through `gltf-transform optimize`): file sizes,
//! whether `pack` is no larger, the largest frame error of each tool's default against the
//! source (`frame_diff`), and the validator's errors before and after.

use std::path::{Path, PathBuf};

use crate::corpus_renders::{self, Row, VARIANTS};
use crate::npm;

/// Where the table's files go: `target/gltfpack-table/corpus`.
fn out_dir(root: &Path) -> PathBuf {
    root.join("target/gltfpack-table/corpus")
}

/// The sources: the shared assets, the lab corpus (written now) and two optimisers' outputs.
fn sources(root: &Path, assets: &Path, judges: &Path) -> Result<Vec<(String, String)>, String> {
    let out = out_dir(root);
    let corpus = out.join("sources");
    std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    let helmet = s(assets.join("gltf/FlightHelmet/FlightHelmet.gltf"));
    let fox = s(assets.join("gltf/Fox.glb"));
    let mut list = vec![
        ("FlightHelmet".to_string(), helmet.clone()),
        ("Fox".to_string(), fox.clone()),
        (
            "SimpleSkin".to_string(),
            s(assets.join("gltf/SimpleSkin.gltf")),
        ),
    ];
    crate::example(root, "corpus", &[&s(corpus.clone())])?;
    for name in [
        "morph",
        "shared",
        "untextured-torus",
        "instanced",
        "ribbed",
        "lamp",
    ] {
        list.push((
            format!("{name} (lab)"),
            s(corpus.join(format!("{name}.gltf"))),
        ));
    }
    let helmet_cc = s(corpus.join("FlightHelmet-gltfpack-cc.glb"));
    npm::gltfpack(judges, &["-i", &helmet, "-o", &helmet_cc, "-cc"])?;
    list.push(("FlightHelmet after gltfpack -cc".into(), helmet_cc));
    let fox_optimized = s(corpus.join("Fox-optimize.glb"));
    npm::gltf_transform(judges, &["optimize", &fox, &fox_optimized])?;
    list.push(("Fox after gltf-transform optimize".into(), fox_optimized));
    Ok(list)
}

/// Bytes of `file` and the files it names beside it (a `.gltf`'s `.bin` and images).
fn size(file: &str) -> u64 {
    let path = Path::new(file);
    let own = std::fs::metadata(path).map_or(0, |m| m.len());
    if !file.ends_with(".gltf") {
        return own;
    }
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    // Every `"uri":"…"` that is not a data URI (xtask reads no JSON otherwise).
    let uris = text
        .split("\"uri\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').nth(1))
        .filter(|u| !u.starts_with("data:"));
    own + uris
        .map(|u| std::fs::metadata(dir.join(u)).map_or(0, |m| m.len()))
        .sum::<u64>()
}

/// The validator's error count of `file`, or `?`.
fn errors(root: &Path, judges: &Path, file: &str) -> String {
    let validate = root.join("xtask/npm/validate.mjs");
    npm::node(&validate, &[file, &judges.to_string_lossy()])
        .ok()
        .and_then(|r| super::gltfpack_table::num_errors(&r))
        .map_or_else(|| "?".to_string(), |n| n.to_string())
}

/// The largest normal angle and the largest tangent or bitangent angle of `candidate`'s frames
/// against `source`'s (`frame_diff`, 14-bit positions and 12-bit UVs matched), or what went
/// wrong.
fn frame_error(root: &Path, source: &str, candidate: &str) -> String {
    let args = [
        source,
        candidate,
        "--row",
        "x",
        "--position-bits",
        "14",
        "--uv-bits",
        "12",
    ];
    match super::gltfpack_table::frame_diff(root, &args) {
        // `diff` refuses a pair with no vertex at matching positions and UVs (an output that
        // moved its meshes, e.g. instances baked into world space): nothing to compare.
        Err(e) if e.contains("share no vertex") => "– (no vertex at the source's places)".into(),
        Err(e) => format!("({})", super::gltfpack_table::first_line(&e)),
        Ok(row) => {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let max = |k: usize| {
                cells
                    .get(k)
                    .and_then(|c| c.rsplit('/').next()?.trim().parse::<f64>().ok())
                    .unwrap_or(f64::NAN)
            };
            // The normal, then the worst of tangent and bitangent (a file that stores no
            // tangent, where nothing reads one, has its loader's own).
            format!("{:.3} ({:.3})", max(7), max(8).max(max(9)))
        }
    }
}

fn kb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1000.0)
}

fn verdict(ours: u64, theirs: u64) -> &'static str {
    if ours <= theirs {
        "yes"
    } else {
        "**no**"
    }
}

/// Packs and compares every corpus file; prints the table.
pub fn run(root: &Path, assets: &Path, judges: &Path) -> Result<(), String> {
    let out = out_dir(root);
    crate::cargo(
        root,
        &[
            "build",
            "--release",
            "--package",
            "qtangent-lab",
            "--bin",
            "corpus",
        ],
    )?;
    let mut table = String::from(
        "| file | source (kB) | pack (kB) | gltfpack (kB) | ≤ | pack meshopt (kB) | gltfpack -cc (kB) | ≤ | normal max (tangent) (°): pack / gltfpack | validator errors: source / pack / pack meshopt / gltfpack |\n\
         |---|---:|---:|---:|---|---:|---:|---|---|---|\n",
    );
    let mut rows = Vec::new();
    for (k, (name, source)) in sources(root, assets, judges)?.iter().enumerate() {
        let file = |what: &str| {
            out.join(format!("{k}-{what}.glb"))
                .to_string_lossy()
                .into_owned()
        };
        let (pack, packc, gp, gpcc) = (
            file("pack"),
            file("pack-meshopt"),
            file("gltfpack"),
            file("gltfpack-cc"),
        );
        crate::command(root, &["pack", source, "-o", &pack, "-q"])?;
        crate::command(
            root,
            &["pack", source, "-o", &packc, "--compress", "meshopt", "-q"],
        )?;
        npm::gltfpack(judges, &["-i", source, "-o", &gp])?;
        npm::gltfpack(judges, &["-i", source, "-o", &gpcc, "-cc"])?;
        let [s, p, pc, g, gc] = [source.as_str(), &pack, &packc, &gp, &gpcc].map(size);
        let frames = format!(
            "{} / {}",
            frame_error(root, source, &pack),
            frame_error(root, source, &gp)
        );
        let judged = [source.as_str(), &pack, &packc, &gp]
            .map(|f| errors(root, judges, f))
            .join(" / ");
        table.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {frames} | {judged} |\n",
            kb(s),
            kb(p),
            kb(g),
            verdict(p, g),
            kb(pc),
            kb(gc),
            verdict(pc, gc),
        ));
        rows.push(Row {
            name: name.clone(),
            source: source.clone(),
            outputs: [pack, packc, gp, gpcc],
            tangent_source: tangent_source(judges, source, &file("source-tangents"))?,
        });
    }
    println!("\n{table}");
    rendered(root, judges, &out, &rows);
    Ok(())
}

/// For a source with normal maps and no TANGENT (a byte search of its JSON: xtask reads no
/// JSON otherwise), the source with MikkTSpace tangents added by glTF-Transform, written to
/// `out`.
fn tangent_source(judges: &Path, source: &str, out: &str) -> Result<Option<String>, String> {
    let json = std::fs::read(source).map_err(|e| format!("{source}: {e}"))?;
    let json = &json[..json.len().min(4 << 20)];
    let has = |key: &[u8]| json.windows(key.len()).any(|w| w == key);
    if !has(b"\"normalTexture\"") || has(b"\"TANGENT\"") {
        return Ok(None);
    }
    npm::gltf_transform(judges, &["tangents", source, out])?;
    Ok(Some(out.to_string()))
}

/// The second table: each output drawn by three.js and by Bevy against the source drawn by the
/// same engine alone (`corpus_renders`), and the warnings Bevy's loader logged. A reader that
/// cannot be run gives cells that say so. Where a source has normal maps and no TANGENT,
/// three.js' `pack` cells add the figure against the source with MikkTSpace tangents (⁶).
fn rendered(root: &Path, judges: &Path, out: &Path, rows: &[Row]) {
    let extra: Vec<Row> = rows.iter().filter_map(Row::with_tangent_source).collect();
    let all: Vec<Row> = rows
        .iter()
        .map(|r| Row {
            tangent_source: None,
            ..r.clone()
        })
        .chain(extra)
        .collect();
    let mut three = corpus_renders::three_js(root, out, &all);
    let against_tangents = three.split_off(rows.len());
    let mut extra_cells = against_tangents.into_iter();
    for (row, cells) in rows.iter().zip(three.iter_mut()) {
        if row.tangent_source.is_none() {
            continue;
        }
        let Some(with) = extra_cells.next() else {
            break;
        };
        for (cell, with) in cells.iter_mut().zip(&with).take(2) {
            *cell = format!("{cell} ({with}⁶)");
        }
    }
    let (bevy, warnings) = match crate::bevy::viewer(root) {
        Ok(viewer) => corpus_renders::bevy(&viewer, judges, out, rows),
        Err(e) => {
            let cell = format!(
                "not run: the viewer did not build ({})",
                e.lines().next().unwrap_or("")
            );
            (
                vec![std::array::from_fn(|_| cell.clone()); rows.len()],
                Vec::new(),
            )
        }
    };
    let heads = VARIANTS.join(" / ");
    let mut table =
        format!("| file | three.js (dB): {heads} | Bevy (dB): {heads} |\n|---|---|---|\n");
    for ((row, t), b) in rows.iter().zip(&three).zip(&bevy) {
        table.push_str(&format!(
            "| {} | {} | {} |\n",
            row.name,
            t.join(" / "),
            b.join(" / ")
        ));
    }
    println!("\n{table}");
    if rows.iter().any(|r| r.tangent_source.is_some()) {
        println!(
            "⁶ Against the source with MikkTSpace tangents added (`gltf-transform tangents`): three.js draws a file without TANGENT with screen-space frames, which its normal map and anisotropy direction follow; the glTF spec recommends MikkTSpace, whose frames `pack` writes.\n"
        );
    }
    if !warnings.is_empty() {
        println!("Bevy's glTF loader warned (the first warning of each run):");
        for w in &warnings {
            println!("- {w}");
        }
    }
}
